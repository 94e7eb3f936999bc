/* gt_cuda.h: the dialect of the code the cuda backend generates (S.cu), included by it
 * after gt_generated.h. Not part of the user contract.
 *
 * Under nvcc it is CUDA: GT_LAUNCH(kernel, grid, block, args...) is kernel<<<grid,
 * block>>>(args...), and the atomics of the out scalars' reductions are CUDA's (min and max
 * of reals by compare-and-swap). Built with -DGT_SIMT by a C++ compiler, the same text runs
 * on the SIMT emulator of the test tree (tests/simt/gt_simt.h, found through -I), which
 * provides the same names. */
#ifndef GT_CUDA_H
#define GT_CUDA_H

#include <stdint.h>

#ifdef GT_SIMT
#include <gt_simt.h>
#else
#include <cuda_runtime.h>

/* Installs libgtrt-cuda's device layer (0, or GT_EDEVICE without a usable device); run
   when the program starts, so that GT_CUDA storages made before the first stencil call
   work too. */
extern "C" int gt__cuda_init(void);
static const int gt__cuda_ready __attribute__((unused)) = gt__cuda_init();

#define GT_LAUNCH(kernel, grid, block, ...) kernel<<<(grid), (block)>>>(__VA_ARGS__)
/* an element of a device array, or of a shared array, read or written */
#define GT_LD(p, i) (p)[i]
#define GT_ST(p, i) (p)[i]
#define GT_SHL(p, i) (p)[i]
#define GT_SHS(p, i) (p)[i]
#define GT_GRID(x, y) dim3((unsigned)(x), (unsigned)(y), 1u)
#define GT_BLOCK(x, y) dim3((unsigned)(x), (unsigned)(y), 1u)
/* the most blocks a launch takes along y (every architecture's limit): a kernel over more
   rows runs in several launches, GT_GRID_Y_MAX blocks of rows each */
#define GT_GRID_Y_MAX 65535
/* before a loop a thread runs once or twice (a block's points): not unrolled, which would
   copy the body and raise the registers of the 64-bit kernels (hdiff: 48, not 80) */
#define GT_ROLLED _Pragma("unroll 1")
/* the gt_sN kernels: 8 blocks of 256 threads an SM (32 registers a thread), 100% occupancy
   on sm_80 and sm_90 (the level addresses of a K loop otherwise take jacobi3d to 40) */
#define GT_FULL_BLOCKS __launch_bounds__(256, 8)
/* a staged field's value at the thread's own point plus an offset that two kernels of a
   group read there (emit_cuda.c, stage_regs): on sm_90 and later a register loaded once a
   level (hdiff's gt_s0: 11.64 shared-memory loads a point instead of 13.64, 30 registers);
   before sm_90 a reference to the stage, loaded where read, as without it (there the
   register took hdiff's gt_s0 from 30 registers to 38, occupancy from 100% to 75%) */
#ifndef GT_STAGE_REG  /* -D'GT_STAGE_REG(T)=const T &': without them (bench/bench_gpu.sh) */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define GT_STAGE_REG(T) const T &
#else
#define GT_STAGE_REG(T) const T
#endif
#endif

static __device__ __forceinline__ void gt_atomic_sum(double *p, double v) { atomicAdd(p, v); }
static __device__ __forceinline__ void gt_atomic_sum(float *p, float v) { atomicAdd(p, v); }
static __device__ __forceinline__ void gt_atomic_sum(int32_t *p, int32_t v) { atomicAdd(p, v); }
static __device__ __forceinline__ void gt_atomic_min(int32_t *p, int32_t v) { atomicMin(p, v); }
static __device__ __forceinline__ void gt_atomic_max(int32_t *p, int32_t v) { atomicMax(p, v); }
/* the rank of a failed check of a run-time K level (emit_kcheck.c) */
static __device__ __forceinline__ void gt_atomic_min_rank(unsigned long long *p,
                                                          unsigned long long v)
{
    atomicMin(p, v);
}

/* a failed run-time K level read as it is read (gt_generated.h's gt_kfail): the record
   changes under its lock, taken and given back in one branch of the same loop (no thread
   of a warp waits for another that cannot run on); the first failure by its key */
static __device__ __noinline__ void gt_dkfail_note(gt_kfail *f, long long phase,
                                                   long long korder, int read, long long i,
                                                   long long j, long long k, long long level)
{
    const long long key[5] = {phase, korder, read, j, i};
    for (bool done = false; !done;) {
        if (atomicCAS(&f->lock, 0, 1) == 0) {
            __threadfence();
            volatile gt_kfail *v = f;
            int x = 0;
            while (x < 5 && key[x] == v->key[x])
                x++;
            if (x < 5 && key[x] < v->key[x]) {
                for (int y = 0; y < 5; y++)
                    v->key[y] = key[y];
                v->k = k;
                v->level = level;
                v->read = read;
            }
            __threadfence();
            atomicExch(&f->lock, 0);
            done = true;
        }
    }
}

/* min and max of reals as fmin and fmax take them (a NaN loses), by compare-and-swap on
   the bits */
#define GT_ATOMIC_REAL(name, T, U, combine, to_bits, from_bits)                               \
    static __device__ __forceinline__ void name(T *p, T v)                                   \
    {                                                                                          \
        U *a = (U *)p, old = *a, seen;                                                         \
        do {                                                                                   \
            seen = old;                                                                        \
            old = atomicCAS(a, seen, (U)to_bits(combine(from_bits(seen), v)));               \
        } while (old != seen);                                                                 \
    }
#define GT_DOUBLE_BITS(x) __double_as_longlong(x)
#define GT_BITS_DOUBLE(x) __longlong_as_double((long long)(x))
GT_ATOMIC_REAL(gt_atomic_min, double, unsigned long long, fmin, GT_DOUBLE_BITS, GT_BITS_DOUBLE)
GT_ATOMIC_REAL(gt_atomic_max, double, unsigned long long, fmax, GT_DOUBLE_BITS, GT_BITS_DOUBLE)
GT_ATOMIC_REAL(gt_atomic_min, float, unsigned, fminf, __float_as_uint, __uint_as_float)
GT_ATOMIC_REAL(gt_atomic_max, float, unsigned, fmaxf, __float_as_uint, __uint_as_float)
#endif

/* gt_klevel (gt_generated.h) in device code: the level, or the nearest one the storage
   holds with the failure recorded (and the while loop around it ended at the point). */
static __device__ __forceinline__ int64_t gt_dklevel(int64_t level, const int64_t *lv,
                                                     gt_kfail *f, int64_t phase, int kdir,
                                                     int32_t read, int64_t i, int64_t j,
                                                     int64_t k, bool *go)
{
    const int64_t lo = lv[0], hi = lv[1];
    if (level >= lo && level < hi)
        return level;
    gt_dkfail_note(f, phase, kdir * k, read, i, j, k, level);
    if (go)
        *go = false;
    return level < lo ? lo : hi - 1;
}

/* a / b rounded to nearest, for a constant b (|b| within 2^-64..2^64 for double, 2^-20..2^20
   for float; the cuda backend's division by a literal) and y = RN(1 / b), computed once by
   gtcc: q = RN(a y) is within an ulp of a / b, r = a - b q is exact (an fma), and
   RN(q + r y) is a / b rounded (Markstein's theorem), bitwise the IEEE division. Where a is
   0, subnormal, very small or large, infinite or NaN, the division itself, out of line: 3
   instructions and one fma each instead of the general division's reciprocal refinement. */
static __device__ __noinline__ double gt_div_slow(double a, double b) { return a / b; }
static __device__ __noinline__ float gt_div_slowf(float a, float b) { return a / b; }
static __device__ __forceinline__ double gt_div_rn(double a, double b, double y)
{
    if (!(fabs(a) >= 0x1p-900 && fabs(a) <= 0x1p900))
        return gt_div_slow(a, b);
    const double q = a * y;
    return fma(fma(-b, q, a), y, q);
}
static __device__ __forceinline__ float gt_div_rnf(float a, float b, float y)
{
    if (!(fabsf(a) >= 0x1p-100f && fabsf(a) <= 0x1p100f))
        return gt_div_slowf(a, b);
    const float q = a * y;
    return fmaf(fmaf(-b, q, a), y, q);
}

/* The remapping of gt_generated.h for kernels with 32-bit indices (gt_kN<int32_t>, gt_sN):
   the same functions on int32_t (C++ overloads), so that a remapped read stays 32-bit. */
GT_REMAP_FUNCTIONS(int32_t)

#endif /* GT_CUDA_H */
