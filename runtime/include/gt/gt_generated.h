/* gt_generated.h: the runtime's interface for the code that gtcc generates, not part of the
 * user contract (runtime.md section 3 is). Every backend's output includes it after
 * <gt/gt.h>: errors (gt__error), argument binding (gt_bound, gt__bind), temporaries
 * (gt__temporary) and the remapping of reads.
 *
 * The static inline functions remap a position p of a read outside the compute domain
 * [0, n) along one axis, as language.md section 7 says; the naive backend calls them for
 * every read that may leave the domain. */
#ifndef GT_GENERATED_H
#define GT_GENERATED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gt_stencil.h"
#include "gt_storage.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Records code and the printf-formatted message as the calling thread's last failure (what
   gt_last_error() returns) and returns code: `return gt__error(GT_ESHAPE, "...", nk);`. The
   runtime reports its own failures through it too. */
int gt__error(int code, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A field bound for a call: where its compute-domain origin is, and its strides. */
typedef struct {
    void   *origin;     /* host address of the element at the compute-domain origin (the storage's
                           first interior point) */
    int64_t stride[3];  /* element strides along I, J, K (by axis NAME, whatever the storage's axis
                           order); 0 along an axis the field lacks */
} gt_bound;

/* Checks every argument of a stencil call before any data is touched, infers the compute
   domain, and binds each field. read_at_offset[f] != 0 when the stencil reads field f at a
   non-zero offset anywhere; bit 2 (along I) and bit 4 (along J) when it reads f beyond the
   point along that axis (at an offset, or through a temporary computed around the point)
   after writing it, which a placed call with an inner edge along that axis refuses
   (GT_EINVAL); bit 8 (I) and bit 16 (J) when it writes f and reads it beyond the point
   before or after, so that the parts of a placed call must be one (gt__placed_reads).
   fields: nfields storages in parameter order. size_out: NI, NJ, NK of the compute domain.
   Returns 0 or a GT_E... code with gt_last_error() set to a message naming the stencil, the
   field and the numbers. A device-only storage (gt_wrap_device) is GT_EDEVICE: the code
   calling gt__bind runs on the host. */
int gt__bind(const gt_stencil_info *info, const unsigned char *read_at_offset,
             gt_storage *const *fields, const gt_domain *domain, int64_t size_out[3],
             gt_bound *bound_out);

/* S_steps of a stencil with iterate (language.md section 11), for every backend that runs
   its steps as a loop of single steps: step(args, fields, domain) calls S once on fields
   (nfields storages in parameter order, the pairs of info swapped as the loop needs). Fails
   (GT_EINVAL) for nsteps < 0; then runs every check of the single call, for both orders of
   each pair when nsteps >= 2, and GT_EALIAS if the two storages of a pair share memory,
   before it writes anything. It copies each pair's frame (the points around the domain the
   step reads: the domain grown by the halo of `cur`) from `cur` into `next`, runs the steps
   so that the last one writes `cur`, and returns 0 or the first failing step's code. device:
   the step binds its storages on the device (the cuda backend): the copies run there. */
typedef int gt__step_fn(void *args, gt_storage *const *fields, const gt_domain *domain);
int gt__steps(const gt_stencil_info *info, gt_storage *const *fields, int64_t nsteps,
              const gt_domain *domain, gt__step_fn *step, void *args, int device);
/* S_steps time-tiled on the host (the openmp backend, docs/internals.md "Time tiling"):
   gt__steps' checks and frame copy, then the steps in trapezoids of rows (J) and steps,
   each (part, step) a call of step on the part (a placed call, gt__placement); tiles(n,
   body, ctx) calls body(ctx, x) for x in [0, n), in parallel, each thread's nested parallel
   regions one thread wide. Where tiling does not apply or cannot pay (nsteps < 2, a
   periodic field along I or J, an output without J, a domain within nthreads' cache share,
   GT_STEPS_TILE=0) the loop of single steps. The result is bitwise gt__steps'. */
typedef void gt__tile_body(void *ctx, int64_t x);
typedef void gt__tiles_fn(int64_t n, gt__tile_body *body, void *ctx);
int gt__steps_tiled(const gt_stencil_info *info, gt_storage *const *fields, int64_t nsteps,
                    const gt_domain *domain, gt__step_fn *step, void *args,
                    gt__tiles_fn *tiles, int nthreads);

/* The cache blocks of a parallel group of the openmp backend without tiles (blocks.c): its
   nk levels, nj rows of ni points, kbytes the bytes per point of the planes it keeps live
   from one level to the next (per field read at K offsets, its element size times the
   number of levels read plus one; 0 when none). Sets *bk to 1 and *bj to the rows of a
   block when those planes fit this machine's caches (levels walked one by one), else *bk to
   nk and *bj to the rows of a slab that fits (levels streamed through each slab).
   GT_CACHE_BYTES, when set, is the cache share of a thread in bytes. */
void gt__blocks(int64_t nk, int64_t nj, int64_t ni, int64_t kbytes, int nthreads,
                int64_t *bk, int64_t *bj);

/* Allocates a temporary of dtype over the axes named (a subset of "IJK" in that order) and
   the compute domain size[3] (NI, NJ, NK) grown by halo {ilo, ihi, jlo, jhi, klo, khi}, and
   returns the host address of its element at the compute-domain origin (in the "cpu" layout:
   I contiguous, K slowest), with its strides in
   elements along I, J, K in stride[3] (0 along an axis it lacks); *storage holds it, for
   gt_release. NULL on failure, with gt_last_error() set (*storage is then NULL). */
void *gt__temporary(gt_storage **storage, gt_dtype dtype, const char *axes,
                    const int64_t size[3], const int64_t halo[6], int64_t stride[3]);

/* Where the compute domain lies in the global domain (language.md section 10.7): a single
   process's call is the whole of it; a distributed call (gt_mpi_call, docs/mpi.md) runs the
   stencil on a part of it. */
typedef struct {
    int64_t origin[2];  /* index(i), index(j) of the domain's first point */
    int64_t lo[2], hi[2];   /* the global domain along I and J, [lo, hi), in positions of the
                               compute domain (lo <= 0, hi >= its size), clipped to +-2^30:
                               the edges where boundary conditions apply */
    int wrap[2];        /* 1: a periodic boundary condition wraps within the domain; 0: it
                           reads the halo, which a halo exchange filled */
    void *distributed;  /* the distributed call's state (NULL for a single process) */
} gt_place;

/* A scalar argument (not an out scalar) as the ranks of a distributed call compare it: they
   must all pass the same values (a dt computed on each rank from its own part, and not
   reduced over the ranks, would compute something no single process computes). name: as
   in the .stn file; kind: 0 a real (bits: the double's bits, gt__scalar_real), 1 an
   integer (bits: its value), 2 a bool (0 or 1). */
typedef struct {
    const char *name;
    int kind;
    int64_t bits;
} gt__scalar;

/* A real's bits for gt__scalar: a float widened (exact), -0.0 as 0.0 (equal values), every
   NaN as one. */
static inline int64_t gt__scalar_real(double v)
{
    union { double d; int64_t i; } u;
    u.d = v == 0 ? 0.0 : v;
    return v != v ? INT64_MAX : u.i;
}

/* Fills *place for a call of the stencil info over the domain size[3] (after gt__bind,
   fields in parameter order; scalars: its nscalars scalar arguments, NULL for none): 0 to
   go on; 1 when the call must compute nothing (a
   distributed call checking its arguments first: the stencil returns 0 at once, or, if it
   reads at run-time K levels, after checking them where gt__levels_now says and keeping
   its outputs, gt__keep); 2 when it must only check its run-time K levels (a distributed
   call whose check reads halos waits for the exchange, then calls it so before any part);
   or a GT_E... code with gt_last_error() set: the domain is not the part the distributed
   call gives, a field reads further into an internal edge's halo than was exchanged, a
   periodic bc along an axis the decomposition does not wrap. */
int gt__place(const gt_stencil_info *info, gt_storage *const *fields, const int64_t size[3],
              const gt__scalar *scalars, int nscalars, gt_place *place);

/* The out scalar number slot (in parameter order among the out scalars) of a call: op 0
   sum, 1 min, 2 max, of dtype, the value the call wrote at result. A distributed call
   combines the values of its parts and ranks and writes the total there; nothing for a
   single process. */
void gt__place_result(const gt_place *place, int slot, int op, gt_dtype dtype, void *result);
/* The K levels a bound storage s holds, relative to the compute-domain origin, its K halo
   included: [levels[0], levels[1]) (both 0 if it has no K axis). The code of a stencil that
   reads a field at run-time K levels (language.md 10.3) checks every level against them. */
void gt__levels(const gt_storage *s, int64_t levels[2]);

/* ---- reads at run-time K levels (language.md 10.3; compiler/emit_kcheck.c) ----------------

   A read whose level expression reads only inputs is checked before the stencil computes
   anything, by a pass over the level expressions. checking is what gt__place returned;
   reach: how far that pass reads beyond the domain {below I, above I, below J, above J}.
   1: check now (a single process; a distributed call's checking call when the pass reads no
   halo that the exchange fills; its level check, 2); 0: not now (a part of a distributed
   call, checked before it; the checking call when the pass reads such a halo: gt_mpi_call
   then exchanges first and calls the stencil again with 2, before any part). */
int gt__levels_now(const gt_place *place, int checking, const int64_t reach[4]);

/* A read whose level expression reads computed values (temporaries, outputs) is checked as
   it reads: gt_klevel (gt_dklevel in device code, gt/gt_cuda.h) returns the level if it
   lies in lv[0] .. lv[1] - 1, else records the failure in *f, clears *go (a while loop's
   flag: the loop ends at the point, which its condition on clamped values might never do;
   NULL outside loops) and returns the nearest level that the storage holds, so that no
   read leaves the buffer. The record keeps the first failure in the
   order (phase, level order, read, j, i): phase numbers the stencil's statements in the
   order its semantics runs them (a forward or backward interval is one phase), the level
   order is k (-k in a backward computation), read numbers the reads; a failure that is a
   consequence of another (a level computed from a clamped read) comes later in it, and
   the order does not depend on how a backend schedules the points. */
typedef struct {
    int64_t key[5];   /* phase, level order, read, j, i; key[0] INT64_MAX: no failure */
    int64_t k;        /* the failure's level index */
    int64_t level;    /* the level it read */
    int32_t read;     /* the read's number */
    int32_t lock;     /* device code: held while the record changes */
} gt_kfail;

/* No failure yet. */
void gt__kfail_init(gt_kfail *f);
/* Records a failure (thread-safe), if it comes before the one recorded. */
void gt__kfail_note(gt_kfail *f, int64_t phase, int64_t korder, int32_t read, int64_t i,
                    int64_t j, int64_t k, int64_t level);

static inline int64_t gt_klevel(int64_t level, const int64_t *lv, gt_kfail *f, int64_t phase,
                                int kdir, int32_t read, int64_t i, int64_t j, int64_t k,
                                bool *go)
{
    if (level >= lv[0] && level < lv[1])
        return level;
    gt__kfail_note(f, phase, kdir * k, read, i, j, k, level);
    if (go)
        *go = false;   /* a while loop around the read ends at this point */
    return level < lv[0] ? lv[0] : lv[1] - 1;
}

/* The outputs of a stencil with such reads: kept before it computes, put back if the call
   fails (a level out of range, or anything else), so that a refused call leaves them as
   they were. A single process keeps each output's compute-domain box on the host (device
   0), or its storage's bytes on the device (device 1: the cuda backend); *kept, for
   gt__keep_end. A distributed call keeps every output's box on the host in its checking
   call (checking 1; *kept NULL), and gt_mpi_call puts them back on every rank when any
   rank's part failed; the parts keep nothing. */
typedef struct gt__kept gt__kept;
int gt__keep(const gt_place *place, const gt_stencil_info *info, gt_storage *const *fields,
             const int64_t size[3], int checking, int device, gt__kept **kept);
/* An out scalar's value, kept by a distributed call's checking call (nothing otherwise). */
void gt__keep_result(const gt_place *place, int checking, const void *result, size_t bytes);
/* Puts the outputs back when rc != 0, frees kept (NULL: nothing); returns rc, or
   GT_EDEVICE if putting them back failed. */
int gt__keep_end(gt__kept *kept, int rc);

/* ---- for the code of device backends (cuda) ----------------------------------------------- */

/* gt__bind, but the fields bound on the device: inputs whose host side is newer are uploaded
   first, outputs are marked device-dirty (GT_MANAGED_RUNTIME), and origin is the device
   address. A field whose storage has no device buffer is GT_EDEVICE; a device-only storage
   (gt_wrap_device) is bound at its device address with nothing synced, and aliasing is also
   checked between device addresses. */
int gt__bind_device(const gt_stencil_info *info, const unsigned char *read_at_offset,
                    gt_storage *const *fields, const gt_domain *domain, int64_t size_out[3],
                    gt_bound *bound_out);

/* Whether a device kernel may index every storage of storages[0..n) (NULL entries
   skipped) and the compute domain size[3] with int32_t: 1 when each buffer holds fewer
   than 2^29 elements and each size is below 2^29 (an offset from a block's base, three
   such terms, then fits), else 0. */
int gt__index32(gt_storage *const *storages, int n, const int64_t size[3]);

/* gt__temporary on the device (the device address of the origin); only its device side is
   used. */
void *gt__device_temporary(gt_storage **storage, gt_dtype dtype, const char *axes,
                           const int64_t size[3], const int64_t halo[6], int64_t stride[3]);

/* Copies nbytes between host and device memory (to_device: host src to device dst) through
   the device layer; waits for the device (kernels launched before included). GT_EDEVICE
   with a message naming what on failure. */
int gt__device_copy(const char *what, void *dst, const void *src, size_t nbytes, int to_device);
int gt__device_wait(const char *what);

/* The helpers below run on the host and, in CUDA code, on the device. */
#if defined(__CUDACC__)
#define GT_HD __host__ __device__
#else
#define GT_HD
#endif

/* The remapping of a position p along an axis of n points, on index type T (int64_t here;
   the cuda backend's 32-bit kernels also get them on int32_t, gt/gt_cuda.h):
     gt_periodic  periodic: p + n below the domain, p - n above (any distance: p modulo n)
     gt_clamp     neumann: the nearest point of the domain (zero gradient)
     gt_mirror    mirror: -p - 1 below the domain, 2n - p - 1 above
     gt_outside   dirichlet: true where the constant replaces the field
   and their forms against a gt_place's bounds (gt_periodic_at, gt_periodic_in, gt_clamp_at,
   gt_mirror_at, gt_outside_at), which the generated code uses along I and J (positions
   within the field's reach of the domain: gt_periodic_at steps by n instead of dividing). */
#define GT_REMAP_FUNCTIONS(T)                                                                \
    GT_HD static inline T gt_periodic(T p, T n)                                             \
    {                                                                                        \
        T r = p % n;                                                                         \
        return r < 0 ? r + n : r;                                                            \
    }                                                                                        \
    GT_HD static inline T gt_clamp(T p, T n) { return p < 0 ? 0 : p >= n ? n - 1 : p; }     \
    GT_HD static inline T gt_mirror(T p, T n)                                               \
    {                                                                                        \
        return p < 0 ? -p - 1 : p >= n ? 2 * n - p - 1 : p;                                  \
    }                                                                                        \
    GT_HD static inline bool gt_outside(T p, T n) { return p < 0 || p >= n; }               \
    /* the same along I and J, against the global domain [lo, hi) of a gt_place; a       */  \
    /* periodic axis wraps within it (wrap 1: one process, or a part that time tiling     */  \
    /* places, whose storages hold all of it) or reads the halo an exchange filled       */  \
    /* (wrap 0); p is within steps x (hi - lo) of it (steps: the field's reach, a        */  \
    /* constant), so no division                                                         */  \
    GT_HD static inline T gt_periodic_in(T p, T lo, T hi, int wrap, int steps)              \
    {                                                                                        \
        for (int s = 0; wrap && s < steps; s++)                                              \
            p = p < lo ? p + (hi - lo) : p >= hi ? p - (hi - lo) : p;                        \
        return p;                                                                            \
    }                                                                                        \
    /* ... within [0, n): every stencil but a time-tiled one (lo 0 a constant)           */  \
    GT_HD static inline T gt_periodic_at(T p, T n, int wrap, int steps)                     \
    {                                                                                        \
        return gt_periodic_in(p, (T)0, n, wrap, steps);                                      \
    }                                                                                        \
    GT_HD static inline T gt_clamp_at(T p, T lo, T hi)                                      \
    {                                                                                        \
        return p < lo ? lo : p >= hi ? hi - 1 : p;                                           \
    }                                                                                        \
    GT_HD static inline T gt_mirror_at(T p, T lo, T hi)                                     \
    {                                                                                        \
        return p < lo ? 2 * lo - p - 1 : p >= hi ? 2 * hi - p - 1 : p;                       \
    }                                                                                        \
    GT_HD static inline bool gt_outside_at(T p, T lo, T hi) { return p < lo || p >= hi; }
GT_REMAP_FUNCTIONS(int64_t)

/* min and max of reals (language.md, builtins): C's fmin and fmax (a NaN argument loses to
   a number), with the answer C leaves open fixed: where the arguments compare equal (+0
   and -0), the second one. fmin itself is not that: glibc returns the first argument there,
   and compilers take fmin as commutative and may swap its arguments, so the sign of a zero
   result depended on how a backend's expression was spelt (tests/diff, seed 700003). Also a
   compare and a blend, which vectorise where a call of fmin does not (gcc). */
GT_HD static inline double gt_min_double(double a, double b)
{
    return a < b || b != b ? a : b;
}

GT_HD static inline double gt_max_double(double a, double b)
{
    return a > b || b != b ? a : b;
}

GT_HD static inline float gt_min_float(float a, float b)
{
    return a < b || b != b ? a : b;
}

GT_HD static inline float gt_max_float(float a, float b)
{
    return a > b || b != b ? a : b;
}

/* min and max of ints */
GT_HD static inline int32_t gt_min_int(int32_t a, int32_t b)
{
    return a < b ? a : b;
}

GT_HD static inline int32_t gt_max_int(int32_t a, int32_t b)
{
    return a > b ? a : b;
}

/* int arithmetic of the language (language.md section 5.3): 32-bit two's complement, defined
   for every pair of operands, as NumPy's int32 arrays compute (C leaves an overflow, a
   division by zero and INT32_MIN / -1 undefined: they crashed the process, SIGFPE, on x86):
     gt_iadd, gt_isub, gt_imul, gt_ineg  wrap modulo 2^32 (computed unsigned; the conversion
                                         back is the two's complement one of gcc, clang, nvcc)
     gt_idiv  truncates toward zero; a / 0 is 0, INT32_MIN / -1 is INT32_MIN (wraps)
     gt_imod  the remainder of gt_idiv, sign of a; a % 0 is 0, a % -1 is 0
     gt_abs_int  |a|; abs(INT32_MIN) is INT32_MIN (wraps)
   A division by a constant other than 0 and -1 is C's operator (defined for every a);
   compiler/emit_expr.c. */
GT_HD static inline int32_t gt_iadd(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a + (uint32_t)b);
}

GT_HD static inline int32_t gt_isub(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a - (uint32_t)b);
}

GT_HD static inline int32_t gt_imul(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a * (uint32_t)b);
}

GT_HD static inline int32_t gt_ineg(int32_t a)
{
    return (int32_t)(0u - (uint32_t)a);
}

GT_HD static inline int32_t gt_idiv(int32_t a, int32_t b)
{
    return b == 0 ? 0 : b == -1 ? gt_ineg(a) : a / b;
}

GT_HD static inline int32_t gt_imod(int32_t a, int32_t b)
{
    return b == 0 || b == -1 ? 0 : a % b;
}

GT_HD static inline int32_t gt_abs_int(int32_t a)
{
    return a < 0 ? gt_ineg(a) : a;
}

/* int(x) of the language (language.md section 10.5): truncation toward zero, as C's cast,
   but defined where C's is not: NaN gives 0, values at or above 2^31 - 1 give INT32_MAX,
   values at or below -2^31 give INT32_MIN (compiler/fold.c folds constants the same way). */
GT_HD static inline int32_t gt_double_to_int(double x)
{
    return x != x ? 0 : x >= 2147483647.0 ? INT32_MAX : x <= -2147483648.0 ? INT32_MIN
                                                                        : (int32_t)x;
}

GT_HD static inline int32_t gt_float_to_int(float x)
{
    return x != x ? 0 : x >= 2147483648.0f ? INT32_MAX : x <= -2147483648.0f ? INT32_MIN
                                                                          : (int32_t)x;
}

#ifdef __cplusplus
}
#endif

#endif /* GT_GENERATED_H */
