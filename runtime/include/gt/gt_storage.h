/* gt_storage.h: storages (runtime.md section 2).
 *
 * A storage is a reference-counted view (dtype, axes, shape, strides, halo) of a buffer.
 * Several storages may view one buffer (gt_domain_view); the buffer, its device mirror and
 * its sync state live as long as one view does. Axis arrays (shape, strides, halo,
 * aligned_index) are indexed in the storage's own axes order. Strides are in elements. */
#ifndef GT_STORAGE_H
#define GT_STORAGE_H

#include <stddef.h>
#include <stdint.h>

#include "gt_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    GT_FLOAT32, /* float, 4 bytes */
    GT_FLOAT64, /* double, 8 bytes */
    GT_INT32,   /* int32_t, 4 bytes */
    GT_BOOL     /* C bool (_Bool), 1 byte holding 0 or 1 */
} gt_dtype;

typedef enum {
    GT_HOST = 0, /* host memory only */
    GT_CUDA = 1  /* also keep a device buffer */
} gt_device;

typedef enum {
    GT_MANAGED_RUNTIME = 0, /* the runtime keeps host and device in sync (section 4) */
    GT_MANAGED_NONE,        /* the user syncs with gt_sync & co. */
    GT_MANAGED_CUDA         /* one CUDA unified-memory buffer */
} gt_managed;

typedef enum {
    GT_READ = 1,     /* the caller reads through the pointer */
    GT_WRITE = 2,    /* the caller writes through the pointer */
    GT_READWRITE = 3 /* both */
} gt_access;

typedef struct {
    int64_t halo[3][2];        /* lower/upper halo per axis, in axes order (rows past the
                                  last axis must be 0); default 0 */
    int64_t alignment;         /* elements; 1 = none; 0 = the preset's ("cuda": rows on 128
                                  bytes; the others: none) */
    int64_t aligned_index[3];  /* default: the lower halo */
    int     has_aligned_index; /* 0: use the default */
    const char *layout;        /* permutation of the axes, largest stride first; NULL: preset */
    const char *defaults;      /* "C", "F", "cpu", "cuda" preset; NULL = "cpu" */
    gt_device device;          /* GT_CUDA: also keep a device buffer */
    gt_managed managed;        /* who keeps host and device in sync (section 4) */
} gt_storage_opts;             /* all-zero is a valid default; a NULL pointer to it
                                  means all defaults */

typedef struct gt_storage gt_storage; /* opaque, reference counted */

/* Creation. Each returns a new storage holding one reference (release it with gt_release),
   viewing a new 64-byte-aligned buffer that it owns, or NULL with gt_last_error() set.
   axes: any ordered subset of "IJK" (NULL: "IJK"); shape: one entry per axis. gt_empty
   leaves the elements undefined; gt_zeros, gt_ones and gt_full set every element, halo and
   padding included. gt_full converts value to the dtype (int32: must be an integer in range;
   bool: nonzero is true). */
gt_storage *gt_empty(gt_dtype, const char *axes, const int64_t *shape, const gt_storage_opts *);
gt_storage *gt_zeros(gt_dtype, const char *axes, const int64_t *shape, const gt_storage_opts *);
gt_storage *gt_ones (gt_dtype, const char *axes, const int64_t *shape, const gt_storage_opts *);
gt_storage *gt_full (gt_dtype, const char *axes, const int64_t *shape, double value,
                     const gt_storage_opts *);

/* A storage over the caller's memory, without a copy (as_storage). data is element
   (0,0,0); strides in elements (NULL: dense in the layout of opts). The caller keeps
   ownership of data, which must outlive every view; the runtime never frees it. Strides must
   be non-negative and describe no two overlapping elements. */
gt_storage *gt_wrap (void *data, gt_dtype, const char *axes, const int64_t *shape,
                     const int64_t *strides, const gt_storage_opts *);  /* no copy (as_storage) */

/* A device-only storage over memory another library allocated on the device (CuPy,
   PyTorch, a Fortran OpenACC caller's device copy, cudaMalloc): no host buffer, no mirror,
   no copy. device_data is element (0,0,0) in device memory; dtype, axes, shape, strides and
   opts are validated as by gt_wrap (opts->layout/defaults only for strides NULL;
   alignment claims checked on the device address). opts->device: GT_CUDA, or GT_HOST (0)
   meaning the device; opts->managed: GT_MANAGED_RUNTIME (0) or GT_MANAGED_NONE, both
   meaning nothing to sync (GT_MANAGED_CUDA is GT_EINVAL: wrap unified memory with gt_wrap).
   GT_EDEVICE without a device layer (a runtime built without CUDA). The caller keeps
   ownership; the runtime never frees it. Only the device side exists: gt_device_ptr,
   gt_domain_view, gt_set_halo, the accessors, gt_copy_into (no transposes), the cuda
   backend's stencils and gt_set_device_modified (a no-op) take it; gt_host, gt_sync,
   gt_host_to_device, gt_device_to_host, gt_set_host_modified, gt_set_synchronized, gt_copy,
   gt_fill_halo, the naive and openmp backends' stencils and the MPI exchanges refuse it with
   GT_EDEVICE, writing nothing (docs/runtime.md section 2). */
gt_storage *gt_wrap_device(void *device_data, gt_dtype, const char *axes, const int64_t *shape,
                           const int64_t *strides, const gt_storage_opts *);

/* A new storage with a new buffer, same parameters (dtype, axes, shape, halo, layout,
   alignment, aligned index, device, managed), same data. The source is not changed except
   that its host side is brought up to date. */
gt_storage *gt_copy (const gt_storage *);           /* new buffer, same parameters, same data */

/* Copies src into dst. Same dtype, same axis names (in any order), same interior size
   (shape minus halo) per axis name; layouts and halos may differ (a transpose). Copies the
   interior and, along each axis, as much halo as both storages have: with equal halos the
   whole storage. dst and src must not overlap in memory unless they are the same storage. */
int         gt_copy_into(gt_storage *dst, const gt_storage *src); /* same axis names (in any
                    order) and size per axis, same dtype; any layouts and halos: a transpose */

/* A new storage (one reference) without halo viewing the interior of the same buffer: it
   shares the data and the sync state, and keeps the buffer alive after s is released. */
gt_storage *gt_domain_view(gt_storage *);   /* view without halo; shares the buffer */

void        gt_retain(gt_storage *);        /* one more reference; NULL: no-op */
void        gt_release(gt_storage *);       /* frees the buffer with its last reference;
                                               a wrapped buffer is never freed; NULL: no-op */

/* Pointers into the buffer, valid while the storage lives; see gt_device.h for the sync. */
void          *gt_host(gt_storage *, gt_access);   /* host pointer to element (0,0,0) of the
                                                      full buffer, halo included; syncs first;
                                                      NULL (GT_EDEVICE) if device-only */
void          *gt_device_ptr(gt_storage *, gt_access);

/* Accessors. The returned arrays belong to the storage (ndim entries, in axes order) and
   stay valid until it is released (gt_halo's until the next gt_set_halo). On NULL they
   return -1 / NULL and set the error. */
gt_dtype       gt_dtype_of(const gt_storage *);
const char    *gt_axes(const gt_storage *);
int            gt_ndim(const gt_storage *);
const int64_t *gt_shape(const gt_storage *);
const int64_t *gt_strides(const gt_storage *);
const int64_t (*gt_halo(const gt_storage *))[2];

/* Changes the halo of this storage only (not of other views); halo has ndim rows (NULL:
   no halo). Alignment is not affected. */
int            gt_set_halo(gt_storage *, const int64_t halo[][2]);

/* Additions, not part of runtime.md. */
size_t         gt_dtype_size(gt_dtype);       /* bytes per element; 0 for an invalid dtype */
const char    *gt_dtype_name(gt_dtype);       /* "float32", ...; "invalid" otherwise */
const char    *gt_layout(const gt_storage *); /* axes by decreasing stride, e.g. "KJI" */
int            gt_is_device_only(const gt_storage *); /* 1: made by gt_wrap_device (or a view
                                                         of one), 0: not; GT_EINVAL for NULL */

/* gt_wrap for callers that cannot fill a gt_storage_opts (the Fortran module gtrt,
   docs/fortran.md): strides in bytes (each a multiple of the element size), halo as ndim
   pairs (lower, upper) in axes order; an empty array's strides (an extent 0) are not looked
   at. *out gets the storage, or NULL on failure; then the
   message is gt_wrap's (or this function's) after `what` and ": " when what is neither NULL
   nor "" ("stencil 'hdiff': field 'u'"). Returns 0 or the GT_E... code. */
int            gt_wrap_flat(gt_storage **out, void *data, int dtype, const char *axes,
                            const int64_t *shape, const int64_t *byte_strides,
                            const int64_t *halo, const char *what);

#ifdef __cplusplus
}
#endif

#endif /* GT_STORAGE_H */
