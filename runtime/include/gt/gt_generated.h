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
   non-zero offset anywhere. fields: nfields storages in parameter order. size_out: NI, NJ, NK
   of the compute domain. Returns 0 or a GT_E... code with gt_last_error() set to a message
   naming the stencil, the field and the numbers. */
int gt__bind(const gt_stencil_info *info, const unsigned char *read_at_offset,
             gt_storage *const *fields, const gt_domain *domain, int64_t size_out[3],
             gt_bound *bound_out);

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

/* Fills *place for a call of the stencil info over the domain size[3] (after gt__bind,
   fields in parameter order): 0 to go on, 1 when the call must return 0 at once (a
   distributed call checking its arguments first), or a GT_E... code with gt_last_error()
   set: the domain is not the part the distributed call gives, a field reads further into
   an internal edge's halo than was exchanged, a periodic bc along an axis the
   decomposition does not wrap. */
int gt__place(const gt_stencil_info *info, gt_storage *const *fields, const int64_t size[3],
              gt_place *place);

/* The out scalar number slot (in parameter order among the out scalars) of a call: op 0
   sum, 1 min, 2 max, of dtype, the value the call wrote at result. A distributed call
   combines the values of its parts and ranks and writes the total there; nothing for a
   single process. */
void gt__place_result(const gt_place *place, int slot, int op, gt_dtype dtype, void *result);
/* The K levels a bound storage s holds, relative to the compute-domain origin, its K halo
   included: [levels[0], levels[1]) (both 0 if it has no K axis). The code of a stencil that
   reads a field at run-time K levels (language.md 10.3) checks every level against them. */
void gt__levels(const gt_storage *s, int64_t levels[2]);

/* ---- for the code of device backends (cuda) ----------------------------------------------- */

/* gt__bind, but the fields bound on the device: inputs whose host side is newer are uploaded
   first, outputs are marked device-dirty (GT_MANAGED_RUNTIME), and origin is the device
   address. A field whose storage has no device buffer is GT_EDEVICE. */
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
   and their forms against a gt_place's bounds (gt_periodic_at, gt_clamp_at, gt_mirror_at,
   gt_outside_at), which the generated code uses along I and J. */
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
    /* periodic axis whose halo an exchange filled (wrap 0) reads it                     */  \
    GT_HD static inline T gt_periodic_at(T p, T n, int wrap)                                \
    {                                                                                        \
        return wrap ? gt_periodic(p, n) : p;                                                 \
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

/* min and max of ints (float and double use fmin and fmax) */
GT_HD static inline int32_t gt_min_int(int32_t a, int32_t b)
{
    return a < b ? a : b;
}

GT_HD static inline int32_t gt_max_int(int32_t a, int32_t b)
{
    return a > b ? a : b;
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
