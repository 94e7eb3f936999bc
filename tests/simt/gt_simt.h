/* gt_simt.h: the SIMT emulator's side of the CUDA dialect (gt/gt_cuda.h with -DGT_SIMT).
 *
 * The .cu text the cuda backend writes is compiled by a C++ compiler for the CPU, and each
 * launch runs on the emulator (simt.cc): every CUDA thread of a block is a fiber (ucontext)
 * with its own stack and threadIdx; the fibers of a block run one at a time, in a shuffled
 * order between barriers, each until its next __syncthreads or its end; a barrier that
 * some threads of the block reach while others have finished is reported (and aborts), as
 * a missing one shows up as wrong numbers. Blocks run one after the other, so __shared__
 * arrays are static arrays, and atomics are plain updates (a fiber runs alone until its
 * next barrier). Nothing here is CUDA's; it is just enough to run what gtcc generates. */
#ifndef GT_SIMT_H
#define GT_SIMT_H

#include <functional>
#include <stddef.h>
#include <math.h>
#include <stdint.h>

#include <gt/gt_generated.h>   /* gt_kfail */

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};

/* the running fiber's thread and block, the launch's shapes */
extern dim3 threadIdx, blockIdx, blockDim, gridDim;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define GT_FULL_BLOCKS
#define __shared__ static
#define __restrict__

/* Waits until every thread of the block has reached it. */
void __syncthreads(void);

/* Warp shuffles: the threads of a warp (32 consecutive thread numbers) meet
   at a warp barrier, each leaves its value, and each takes the value of the
   lane delta above it (its own where there is none). Every lane of the warp
   must take part (a full mask; anything else is reported and aborts), and a
   warp whose threads do not all arrive is reported (a shuffle under
   divergent control flow). */
void gt_simt_shuffle(unsigned mask, const void *value, void *out, size_t size, unsigned delta);
template <typename T> static inline T __shfl_down_sync(unsigned mask, T value, unsigned delta)
{
    T out;
    gt_simt_shuffle(mask, &value, &out, sizeof value, delta);
    return out;
}

/* Runs body (one kernel call, the kernel named kernel) for every thread of every block of
   the grid. */
void gt_simt_launch(dim3 grid, dim3 block, const std::function<void()> &body,
                    const char *kernel);

/* launches by the variant of the cuda backend's kernels: [0] gt_sN (shared strides),
   [1] gt_kN<int32_t>, [2] gt_kN<int64_t>, [3] gt_aN<int64_t> (in-place calls) */
extern long gt_simt_variants[4];

/* launches made so far, and threads run (for tests and counts) */
extern long gt_simt_launches, gt_simt_threads;

/* Global memory: every element a kernel reads (GT_LD) or writes (GT_ST) is checked to lie
   inside one device allocation (when the host of the emulator gives gt_device_contains)
   and counted: every access, and the distinct elements each block touches (the traffic of
   a block with a perfect cache), summed over blocks. */
extern long gt_simt_loads, gt_simt_stores, gt_simt_block_loads, gt_simt_block_stores;
void gt_simt_access(const void *p, size_t size, bool store);
template <typename T> static inline T *gt_simt_at(T *p, int64_t i, bool store)
{
    gt_simt_access(p + i, sizeof *p, store);
    return p + i;
}
#define GT_ROLLED
#define GT_LD(p, i) (*gt_simt_at((p), (i), false))
#define GT_ST(p, i) (*gt_simt_at((p), (i), true))

/* Shared memory: an element loaded (GT_SHL) or stored (GT_SHS) by one thread after another
   thread of the block stored it, or stored after another thread loaded it, with no barrier
   between, is reported (and aborts): the race a missing __syncthreads leaves. */
void gt_simt_shared_access(const void *p, bool store);
template <typename T> static inline T *gt_simt_shared(T *p, int64_t i, bool store)
{
    gt_simt_shared_access(p + i, store);
    return p + i;
}
#define GT_SHL(p, i) (*gt_simt_shared((p), (i), false))
#define GT_SHS(p, i) (*gt_simt_shared((p), (i), true))
/* a stage register (gt_cuda.h): a value, as on sm_90 */
#define GT_STAGE_REG(T) const T

#define GT_LAUNCH(kernel, grid, block, ...)                                                 \
    gt_simt_launch((grid), (block), [&] { kernel(__VA_ARGS__); }, #kernel)
#define GT_GRID(x, y) dim3((unsigned)(x), (unsigned)(y), 1u)
#define GT_BLOCK(x, y) dim3((unsigned)(x), (unsigned)(y), 1u)
/* the most blocks a launch takes along y: CUDA's 65535, or $GT_SIMT_GRID_Y_MAX (read when
   the emulator is loaded), so that a test reaches the generated code's several launches
   over a few rows; gt_simt_launch stops a launch beyond it */
extern unsigned gt_simt_grid_y_max;
#define GT_GRID_Y_MAX gt_simt_grid_y_max

template <typename T> static inline void gt_atomic_sum(T *p, T v) { *p += v; }
static inline void gt_atomic_min(double *p, double v) { *p = fmin(*p, v); }
static inline void gt_atomic_max(double *p, double v) { *p = fmax(*p, v); }
static inline void gt_atomic_min(float *p, float v) { *p = fminf(*p, v); }
static inline void gt_atomic_max(float *p, float v) { *p = fmaxf(*p, v); }
static inline void gt_atomic_min(int32_t *p, int32_t v) { *p = v < *p ? v : *p; }
static inline void gt_atomic_max(int32_t *p, int32_t v) { *p = v > *p ? v : *p; }
static inline void gt_atomic_min_rank(unsigned long long *p, unsigned long long v)
{
    *p = v < *p ? v : *p;
}
/* a failed run-time K level (gt_kfail of gt_generated.h): a fiber runs alone until its
   next barrier, so the record needs no lock; the first failure by its key */
static inline void gt_dkfail_note(gt_kfail *f, long long phase, long long korder, int read,
                                  long long i, long long j, long long k, long long level)
{
    const long long key[5] = {phase, korder, read, j, i};
    int x = 0;
    while (x < 5 && key[x] == f->key[x])
        x++;
    if (x < 5 && key[x] < f->key[x]) {
        for (int y = 0; y < 5; y++)
            f->key[y] = key[y];
        f->k = k;
        f->level = level;
        f->read = read;
    }
}

#endif /* GT_SIMT_H */
