/* rt.h: the one internal header of libgtrt, in sections per source file.
 *
 * Objects: a gt__buffer is the reference-counted memory (host block, device mirror, sync
 * state) shared by every storage that views it; a gt_storage is a reference-counted view
 * of a buffer (dtype, axes, shape, strides, halo and the element offset of its element
 * (0,0,0) from the buffer's host start). Internal functions shared between files are
 * prefixed gt__; test hooks (allocator, device ops) are declared here and never in the
 * public headers. */
#ifndef GT_RT_H
#define GT_RT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "gt/gt.h"
#include "gt/gt_generated.h"


/* Upper bounds that keep every size computation far from int64_t overflow. */
#define GT__MAX_ALIGNMENT ((int64_t)1 << 20) /* elements */
#define GT__BASE_ALIGN 64                    /* bytes: every fresh buffer starts here */

/* ---- error.c ---------------------------------------------------------------------------- */

/* gt__error (declared in gt_generated.h, for generated code too): records code and the
   printf-formatted message as the calling thread's last failure and returns code, so that
   `return gt__error(GT_EINVAL, ...)` reads naturally. */

/* ---- alloc.c: every host allocation of the runtime goes through here --------------------- */

typedef struct {
    void *(*alloc)(size_t nbytes, void *ctx); /* like malloc; NULL = failure */
    void (*release)(void *p, void *ctx);      /* like free */
    void *ctx;                                /* passed back to both */
} gt__allocator;

/* Installs an allocator (tests inject failures with it); NULL restores malloc/free. Not
   thread-safe: install it while no other thread uses the runtime. */
void gt__set_allocator(const gt__allocator *a);
void *gt__malloc(size_t nbytes); /* NULL on failure, without setting an error message */
/* Host blocks of at least GT__HUGE_MIN bytes are advised into transparent huge pages
 * (Linux madvise MADV_HUGEPAGE, on the 2 MiB pages wholly inside [p, p + nbytes)): a
 * stencil's rows then stay in one TLB entry for 2 MiB and its streams are not cut every
 * 4 KiB. Elsewhere, or if the kernel refuses, nothing happens. */
enum { GT__HUGE_MIN = 4 << 20 };
void gt__advise_huge(void *p, size_t nbytes);
void gt__free(void *p);          /* NULL: no-op */

/* ---- storage.c ---------------------------------------------------------------------------- */

typedef enum {
    GT__CLEAN,        /* host and device hold the same data (or no device) */
    GT__HOST_DIRTY,   /* the host is newer */
    GT__DEVICE_DIRTY  /* the device is newer */
} gt__sync_state;

struct gt__device_ops_;

/* What an invalid dtype's message lists: the values there are. */
#define GT__DTYPES "(GT_FLOAT32, GT_FLOAT64, GT_INT32 or GT_BOOL)"

typedef struct gt__buffer {
    atomic_int refs;      /* storages viewing this buffer */
    const struct gt__device_ops_ *ops; /* the device layer that allocated device, or NULL */
    void *host;           /* host start (aligned when owned); the unified block if managed CUDA */
    void *host_block;     /* what gt__free releases: NULL when wrapped or managed CUDA */
    void *device;         /* device mirror of nbytes (== host if managed CUDA), or NULL */
    void *device_block;   /* what ops->release frees (device is aligned inside it), or NULL */
    size_t pool_bytes;    /* nonzero: device_block came from the pool (pool.c), a block of
                             that many bytes, and goes back to it */
    size_t host_pool_bytes; /* nonzero: host_block came from the pool (gt__host_pool_ops),
                             a block of that many bytes, and goes back to it */
    size_t nbytes;        /* bytes from host (and from device) */
    int wrapped;          /* the host memory belongs to the caller */
    gt_managed managed;   /* sync mode; meaningful only with a device mirror */
    gt__sync_state state; /* shared by all views */
    int device_only;      /* gt_wrap_device: the caller's device memory at device, no host
                             side (host NULL), never freed (device_block NULL) */
    /* gt_wrap with a device mirror whose elements leave gaps in their span (a slice of a
       larger array, one component of interleaved ones): the bytes between them are the
       caller's, so downloads write the elements only, run by run (device.c); 0 otherwise */
    int gaps;
    int gap_ndim;
    size_t gap_esize;
    int64_t gap_shape[3], gap_strides[3];
} gt__buffer;

/* Device-only storages (gt_wrap_device, storage.c; buf->device_only): the GT_EDEVICE refusal
   of fn to touch the host side of s, naming the storage and saying it is device-only. */
int gt__device_only_error(const char *fn, const gt_storage *s);

struct gt_storage {
    atomic_int refs;        /* references held by the user */
    gt__buffer *buf;        /* the memory viewed (this storage holds one buffer reference) */
    gt_dtype dtype;
    int ndim;               /* 1..3 */
    char axes[4];           /* axes names in indexing order, NUL-terminated */
    char layout[4];         /* axes names by decreasing stride */
    int64_t shape[3];       /* per axis, in axes order */
    int64_t strides[3];     /* elements, >= 0 */
    int64_t halo[3][2];     /* lower/upper */
    int64_t offset;         /* elements from buf->host to element (0,0,0) */
    int64_t alignment;      /* elements (1: none); creation parameter, kept for gt_copy */
    int64_t aligned_index[3]; /* creation parameter, kept for gt_copy */
    gt_device device;       /* GT_CUDA when buf has a device mirror */
    int whole;              /* its elements are all the elements of buf (not a smaller view) */
};

/* Validated parameters of a new storage: what gt_empty & co. and gt_copy build from. */
typedef struct {
    gt_dtype dtype;
    int ndim;
    char axes[4];
    char layout[4];            /* axes by decreasing stride */
    int64_t shape[3];
    int64_t halo[3][2];
    int64_t alignment;         /* >= 1 */
    int64_t aligned_index[3];
    gt_device device;
    gt_managed managed;
    int pooled;                /* the device block from the pool (gt__device_temporary) */
    int pooled_host;           /* the host block from the pool (gt__temporary) */
} gt__params;

/* How a storage's contents start out. */
typedef enum { GT__INIT_NONE, GT__INIT_ZERO, GT__INIT_VALUE } gt__init;

/* Allocates a storage for validated parameters p (fn names the public caller in messages)
   and initializes it. NULL with the error set; nothing leaks. */
gt_storage *gt__create(const char *fn, const gt__params *p, gt__init init, double value);

/* gt_empty whose block comes from the pool of pool.c and goes back to it with the buffer:
   the storage of gt__device_temporary (opts->device GT_CUDA, not GT_MANAGED_CUDA: its
   device block) and of gt__temporary (GT_HOST: its host block, as gt__host_pool_ops's),
   so that a stencil called in a loop neither allocates device memory nor maps, faults in
   and zeroes its FULL temporaries' pages at every call. */
gt_storage *gt__empty_pooled(const char *fn, gt_dtype dtype, const char *axes,
                             const int64_t *shape, const gt_storage_opts *opts);

/* The creation parameters of s (for gt_copy). */
void gt__params_of(const gt_storage *s, gt__params *p);

/* Validates axes ("IJK" subsets in any order, no repeats; NULL means "IJK") into out[4] and
   returns ndim, or a GT_EINVAL code with the message naming fn. */
int gt__parse_axes(const char *fn, const char *axes, char out[4]);

/* Position of axis name c ('I', 'J' or 'K') in s's axes, -1 if absent. */
int gt__axis_pos(const gt_storage *s, char c);

/* "IJK float64 (10,12,5)" into buf (size >= GT__DESC_MAX); returns buf. */
#define GT__DESC_MAX 96
const char *gt__describe(const gt_storage *s, char *buf);

/* Converts value to one element of dtype at out (>= 8 bytes). GT_EINVAL for an int32 that
   is not an integer in range or NaN. */
int gt__encode_value(const char *fn, gt_dtype dtype, double value, void *out);

/* Byte range [*lo, *hi) of the elements s addresses in host memory, in device memory for a
   device-only storage (*lo == *hi if empty). */
void gt__byte_range(const gt_storage *s, uintptr_t *lo, uintptr_t *hi);
/* The same of s's device side (*lo == *hi without one). */
void gt__device_byte_range(const gt_storage *s, uintptr_t *lo, uintptr_t *hi);

/* Host address of element (0,0,0) without any sync. */
void *gt__host_raw(const gt_storage *s);

/* Reference counts, for tests. */
int gt__refcount(const gt_storage *s);
int gt__buffer_refcount(const gt_storage *s);

/* ---- device.c: the device layer and the sync-state machine ------------------------------ */

/* What the runtime needs of a device API. The CUDA build plugs cudaMalloc & co. in here;
   tests plug a fake device backed by host memory. Functions return 0 or a nonzero
   API-specific code, which error_string (may be NULL) turns into words. The streamed
   transfers (transfer.c) need the six functions from alloc_pinned on; a table without
   them (NULL) keeps the copies on the host. */
typedef struct gt__device_ops_ {
    const char *name;        /* "none", "cuda", "fake" */
    const char *unavailable; /* non-NULL: every device request fails, with this reason */
    int (*alloc)(void **out, size_t nbytes);         /* device memory */
    int (*alloc_managed)(void **out, size_t nbytes); /* unified memory */
    void (*release)(void *p);                        /* frees either kind */
    int (*to_device)(void *dst, const void *src, size_t nbytes);
    int (*to_host)(void *dst, const void *src, size_t nbytes);
    int (*barrier)(void);    /* waits for the device (before host access to unified memory) */
    const char *(*error_string)(int err);
    int (*alloc_pinned)(void **out, size_t nbytes);  /* page-locked host memory (staging) */
    void (*release_pinned)(void *p);
    int (*stream_create)(void **out);                /* an asynchronous queue of copies */
    void (*stream_destroy)(void *stream);
    /* Queues on stream a copy of height rows of width bytes, from src (rows spitch bytes
       apart) to dst (dpitch apart); host to device if to_device, else device to host; the
       host side is pinned memory. It may run at any time until stream_wait returns. */
    int (*copy_async)(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                      size_t height, int to_device, void *stream);
    int (*stream_wait)(void *stream);                /* until the stream's copies are done */
    /* Copies nbytes between device addresses (NULL: through the host); ordered after the
       kernels launched before it, and before those after it. */
    int (*device_copy)(void *dst, const void *src, size_t nbytes);
    /* Queue on stream the copy of a box of extent[0..ndim) elements of esize bytes (1, 4 or
       8; ndim <= 3) between device addresses: pack from a strided box (box, strides in
       elements, >= 0) into a dense buffer (dense, its strides dstrides: the box's elements in
       the order gt__dense_strides gives), unpack the reverse. Ordered after the kernels
       launched before them and the stream's earlier work, done when stream_wait returns;
       the two sides must not overlap. The halo strips of the MPI exchange (libgtrt-mpi);
       NULL: the exchange goes through host sides. */
    int (*pack)(void *dense, const int64_t *dstrides, const void *box, const int64_t *strides,
                const int64_t *extent, int ndim, size_t esize, void *stream);
    int (*unpack)(void *box, const int64_t *strides, const void *dense,
                  const int64_t *dstrides, const int64_t *extent, int ndim, size_t esize,
                  void *stream);
} gt__device_ops;

/* cuda/device_cuda.c (libgtrt-cuda): installs the CUDA device ops, "unavailable" with the
   CUDA runtime's error when it finds no usable device; 0 or GT_EDEVICE. Idempotent. */
int gt__cuda_init(void);

/* Installs device ops (NULL restores the build's default: "no CUDA" without CUDA).
   Not thread-safe: install them while no other thread uses the runtime. */
void gt__set_device_ops(const gt__device_ops *ops);

/* ---- bind.c: the compute domain, aliasing, the index type of device kernels ------------ */

/* The compute domain of a call of info on fields with domain (NULL: inferred, runtime.md
   section 3) into size: 0, or GT_EINVAL for a negative size (gt__bind's rule). */
int gt__compute_domain(const gt_stencil_info *info, gt_storage *const *fields,
                       const gt_domain *domain, int64_t size[3]);
/* Whether a and b may share memory (on the host, or bound on the device (device 1) their
   device sides too); empty storages share nothing. */
int gt__overlap(const gt_storage *a, const gt_storage *b, int device);

/* steps.c, the copies of S_steps that gt_mpi_steps makes too, between two storages of one
   field (its axes, its dtype), on the host or (device 1) on the device; 0 or a GT_E... code
   with the error set. gt__steps_copy_frame: src's frame into dst: per axis a of axes and
   side with copy[a][side] set, the points beyond a domain of size[a] points, w[a][side]
   deep, over [-w[b][0], size[b] + w[b][1]) along every other axis b (each width bounded by
   what both storages have there; the slabs overlap at the corners, so a side left out
   leaves the others' reaching over its halo). gt__steps_copy_result: next's domain into cur.
   With check set either copies nothing and only says whether it would refuse the copy. */
int gt__steps_copy_frame(const char *what, gt_storage *dst, const gt_storage *src,
                         const char *axes, const int64_t size[3], const int64_t w[3][2],
                         const int copy[3][2], int device, int check);
int gt__steps_copy_result(const char *what, gt_storage *cur, const gt_storage *next,
                          const char *axes, const int64_t size[3], int device, int check);

/* steps.c: rc (nonzero, the error set) of the single call's checks in the swapped order of
   S_steps (the pairs' storages exchanged), with the last message told that the fields it
   names there are the storages given for their partners. Returns rc. */
int gt__steps_swapped_error(const gt_stencil_info *info, int rc);

/* Buffers and domain sizes below this many elements let kernels index with int32_t. */
#define GT__INDEX32_LIMIT ((int64_t)1 << 29)
/* Test hook: another limit (0: never 32-bit; out of [0, GT__INDEX32_LIMIT]: the default). */
void gt__set_index32_limit(int64_t elements);
/* Test hook (tests/diff): a byte (0-255) that every host temporary (gt__temporary) is
   filled with, halo included, when it is made (a bool temporary: with the byte's low bit),
   so that two builds given different bytes differ wherever a stencil reads a point of a
   temporary no statement wrote; -1 (the default): as the pool gives it. */
void gt__set_poison_temporaries(int byte);
const gt__device_ops *gt__device_ops_get(void);

/* Fails with GT_EDEVICE (message naming fn and what) when the device layer is unavailable. */
int gt__device_available(const char *fn, const char *what);

/* Allocates the device side of buf (host side already there, or for managed CUDA the one
   unified block, which then is buf->host too), its start aligned to align bytes like a host
   block, from the pool if pooled (not with managed_block): GT_EDEVICE on failure, buf
   unchanged. */
int gt__device_alloc(const char *fn, const char *what, gt__buffer *buf, int managed_block,
                     int pooled, size_t align);
/* Frees the device side of buf (back to the pool if it came from there). */
void gt__device_free(gt__buffer *buf);

/* The function of ops that failed with err, in words ("device error" if it has none). */
const char *gt__device_why(const gt__device_ops *ops, int err);

/* Brings the host side of s's buffer up to date for access (and marks it dirty for a
   write) per the managed mode; GT_EDEVICE if a copy fails. */
int gt__sync_host(const char *fn, const gt_storage *s, gt_access access);
/* The device side of s up to date for access (and marked dirty for a write) per the
   managed mode; GT_EDEVICE if s has no device buffer or a copy fails. */
int gt__sync_device(const char *fn, const gt_storage *s, gt_access access);
/* The device address of s's element (0,0,0), without any sync; NULL without a device
   buffer. */
void *gt__device_raw(const gt_storage *s);

/* The sync state of s's buffer, for tests. */
gt__sync_state gt__sync_state_of(const gt_storage *s);

/* ---- copy.c: strided boxes ---------------------------------------------------------------- */

/* Copies a box of extent[0..ndim) elements of esize bytes (1, 4 or 8) from src to dst.
   Dimensions correspond by position; strides are in elements, >= 0, and may order the
   dimensions differently in src and dst (a transpose). Cache-blocked, no division per
   element. src and dst must not overlap. ndim <= 3. */
void gt__copy_box(void *dst, const int64_t *dst_strides, const void *src,
                  const int64_t *src_strides, const int64_t *extent, int ndim, size_t esize);

/* The strides (in elements) of a dense box of extent[x] elements along the storage's
   dimension x, laid out in the storage's own order of strides: copies between the storage
   and such a buffer run along the storage's rows (gt__copy_box). */
void gt__dense_strides(const gt_storage *s, const int64_t *extent, int64_t dense[3]);

/* Whether gt__copy_box would transpose this box (the destination's contiguous dimension,
   extent-1 dimensions left out, is not the source's): the copies between layouts. */
int gt__box_transposes(const int64_t *dst_strides, const int64_t *src_strides,
                       const int64_t *extent, int ndim);

/* Copies a box of esize-byte elements (no transpose: gt__box_transposes is 0) run by run
   through op (a device layer's to_device, to_host or device_copy): each run is a row
   contiguous on both sides, or one element where the innermost strides are not 1. 0 or the
   first error of op. */
int gt__copy_box_runs(int (*op)(void *, const void *, size_t), unsigned char *dst,
                      const int64_t *ds, const unsigned char *src, const int64_t *ss,
                      const int64_t *extent, int ndim, size_t esize);

/* Sets every element of a box to the esize bytes at value. */
void gt__fill_box(void *dst, const int64_t *strides, const int64_t *extent, int ndim,
                  size_t esize, const void *value);

/* ---- transfer.c: streamed transposes between host and device ---------------------------- */

/* Staging buffers are this many bytes each unless a test sets otherwise. */
#define GT__STAGING_BYTES ((size_t)4 << 20)

/* Which way gt_copy_into moves a box that passed its checks (extent, element strides of dst
   and src by dst's axes): GT__TRANSFER_UP (into dst's device side, from src's host side),
   GT__TRANSFER_DOWN (from src's device side into dst's host side), or 0 (host to host, the
   path of same-layout copies, host-only storages and unified memory). */
enum { GT__TRANSFER_UP = 1, GT__TRANSFER_DOWN = 2 };
int gt__transfer_way(const gt_storage *dst, const gt_storage *src, const int64_t *extent,
                     const int64_t *ds, const int64_t *ss);

/* gt_copy_into's copy of the box (dst and src element offsets doff, soff from their elements
   (0,0,0)) the way gt__transfer_way said, syncing both storages as runtime.md section 8
   describes: 0, or GT_EDEVICE (GT_ENOMEM) with the message naming fn and the device error. */
int gt__transfer_copy(const char *fn, int way, gt_storage *dst, const gt_storage *src,
                      const int64_t *extent, const int64_t *ds, int64_t doff,
                      const int64_t *ss, int64_t soff);

/* Test hooks: the size of each staging buffer (0: GT__STAGING_BYTES; at least 64), and
   freeing the staging buffers and streams kept between transfers (also done at exit). */
void gt__set_staging_bytes(size_t bytes);
void gt__transfer_trim(void);

/* ---- pool.c: device blocks kept between stencil calls ------------------------------------- */

#define GT__POOL_ALIGN 256                    /* bytes: every block starts on this */
/* The pool's host "layer": blocks of host memory (gt__malloc, huge pages advised) that
   gt__empty_pooled takes for gt__temporary, kept beside the device blocks under the same cap. */
extern const struct gt__device_ops_ gt__host_pool_ops;
#define GT__POOL_CAP ((size_t)512 << 20)      /* bytes of free blocks kept at most */

/* A device block of at least nbytes from ops: a free block of the pool of the same size class
   or up to twice it (the smallest that fits), else a new one from ops->alloc of nbytes'
   size class. *raw: the block to give back with gt__pool_put; *bytes: its size; the return
   value: its start aligned to GT__POOL_ALIGN, or NULL with *err set to the ops error. A
   class above the cap: a block of nbytes, as ops->alloc aligns it, freed when given back. */
void *gt__pool_get(const gt__device_ops *ops, size_t nbytes, void **raw, size_t *bytes,
                   int *err);
/* Gives a block back: kept while the pool's free bytes stay within its cap, else freed. */
void gt__pool_put(const gt__device_ops *ops, void *raw, size_t bytes);
/* Frees every free block (also done at exit); returns the bytes freed. */
size_t gt__pool_trim(void);
/* Test hooks: the cap (0: GT__POOL_CAP; blocks beyond a smaller cap are freed now) and the
   bytes and number of free blocks held. */
void gt__pool_set_cap(size_t bytes);
size_t gt__pool_free_bytes(size_t *nblocks);

/* The device copy of nbytes from src to dst (device addresses): the device layer's, or
   through the host where it has none (place.c). 0, or the layer's error code (-1: no
   memory for the staging copy). */
int gt__device_within(const gt__device_ops *ops, void *dst, const void *src, size_t nbytes);

/* The L2 and L3 cache sizes of this machine in bytes (blocks.c: sysfs, then sysconf; L2 512K
   and L3 0 when unknown). */
void gt__cache_sizes(int64_t *l2, int64_t *l3);

/* ---- place.c: where a stencil call's domain lies (gt__place) ------------------------------ */

/* A single process's call is its whole domain. A *placed* call's domain lies somewhere in a
   larger global index space: a layer above the core (libgtrt-mpi's gt_mpi_call, runtime/src/
   mpi/call.h) makes a gt__placement current for the calling thread and calls the stencil;
   gt__place and gt__halo answer from the placement alone, and call the layer's hooks for
   what only the layer knows. The core knows nothing of how the layer splits the space, moves
   halos or combines results. */
struct gt__placement;

/* What the layer fills in: called with the placement, whose ctx is the layer's state. */
typedef struct {
    const char *caller;      /* the layer's function that places calls, for messages */
    const char *wraps;       /* what chose wrap[], for messages ("gt_mpi_decompose's periodic") */
    /* Field f of info, bound to s, reads r points beyond side `side` (0 lower, 1 upper) of
       axis a (0 I, 1 J), an inner edge: 0, or a GT_E... code with the error set. */
    int (*reads)(struct gt__placement *p, const gt_stencil_info *info, int f,
                 const gt_storage *s, int a, int side, int64_t r);
    /* Whether s is one of the storages whose interiors the part lies in (gt__halo). */
    int (*holds)(const struct gt__placement *p, const gt_storage *s);
    /* gt__place_result's out scalar of this call (slot >= 0). */
    void (*result)(struct gt__placement *p, int slot, int op, gt_dtype dtype, void *result);
    /* gt__keep and gt__keep_result of this call (the layer keeps what it must, with
       gt__kept_add and gt__kept_add_result). */
    int (*keep)(struct gt__placement *p, const gt_stencil_info *info,
                gt_storage *const *fields, const int64_t size[3], int checking);
    void (*keep_result)(struct gt__placement *p, int checking, const void *result,
                        size_t bytes);
    /* The checking call's pass over the run-time K levels of inputs (gt__levels_now): run now
       (after 0), or left until the halos beyond the inner edges it reads are filled
       (after 1). */
    void (*levels)(struct gt__placement *p, int after);
    /* The checking call's (check 1) scalar arguments (gt__place's), n of them, for the
       layer to compare across its parts' callers (the MPI ranks); the array is the
       stencil's: the layer copies what it keeps. */
    void (*scalars)(struct gt__placement *p, const gt__scalar *scalars, int n);
} gt__layer;

/* A placed call, current for the calling thread between gt__placement_set(p) and
   gt__placement_set(NULL). The layer fills everything above calls; the core counts calls. */
typedef struct gt__placement {
    int check;                  /* what gt__place returns: 0 compute; 1 the checking call
                                   (the stencil returns after its checks); 2 the level check */
    int64_t origin[2];          /* the domain's first point in the global index space (I, J) */
    int64_t global[2];          /* the global index space's size */
    int64_t size[2];            /* the domain the stencil must be called with */
    int in_part;                /* the domain is [part, part + size) of the interiors of the
                                   storages the layer holds: gt__halo counts the rest of each
                                   interior as halo (0: storages are bound as they are) */
    int64_t part[2];
    int64_t part_k, size_k;     /* in_part with size_k > 0: the domain's levels are [part_k,
                                   part_k + size_k) of the interiors as well (S_steps' K
                                   wavefront: a stencil that runs every level alike); 0: all */
    int inner[2][2];            /* [axis][lower, upper]: an inner edge, whose halo comes from
                                   elsewhere (the layer); boundary conditions skip it */
    int wrap[2];                /* the global index space wraps along the axis: a periodic
                                   boundary condition is allowed there */
    int wrap_here[2];           /* ... and the storages hold all of it: a read beyond the
                                   global edge wraps within it (gt_place.wrap; 0: it reads
                                   the halo, which the layer fills) */
    char who[32];               /* who places the call, for messages ("rank 3") */
    const gt__layer *layer;     /* hooks, all set */
    void *ctx;                  /* the layer's state, for its hooks */
    int whole;                  /* set by gt__placed_reads: the stencil reads a field it
                                   writes beyond the point (read_at_offset & 24), or has an
                                   output lacking I or J (each part writes all of it), so
                                   parts computed one after another would read what another
                                   part wrote: the layer computes its box in one part */
    int calls;                  /* gt__place calls seen */
    const gt_stencil_info *info;   /* the stencil of the last gt__place call (NULL: none) */
} gt__placement;

/* The reads beyond a placed call's inner edges that it cannot run (gt__bind calls it):
   read_at_offset[f] & 2 (along I) or & 4 (along J) says the stencil reads field f beyond
   the point along that axis after writing it (a later computation, later in a parallel
   one, or a sweep at the levels before; at an offset or through a temporary computed
   beyond the domain). Past an inner edge that read would find the halo's values from
   before the call where one process reads the values just computed: GT_EINVAL naming the
   field and the axis. 0 when no call is placed or no such read crosses an inner edge.
   Sets the placement's `whole` where read_at_offset[f] & 24 (f written, and read beyond
   the point along I (8) or J (16) before or after), or where an output lacks I or J. */
int gt__placed_reads(const gt_stencil_info *info, const unsigned char *read_at_offset);

/* Makes p the calling thread's placed call (NULL: none). */
void gt__placement_set(gt__placement *p);
/* While on (1) for the calling thread and no placement is current, gt__place returns 1: a
   stencil called then checks its arguments and computes nothing (gt__steps' check). */
void gt__check_only(int on);
/* The halo of storage s along its dimension d, side 0 (lower) or 1 (upper), as the stencil
   being called sees it: s->halo, except that in a part (in_part) of the current placement
   the interior of each storage the layer holds is the part (along I and J, and K where
   size_k is set; the rest of the interior counted as halo). The storages themselves are
   never changed. */
int64_t gt__halo(const gt_storage *s, int d, int side);

/* Keeping outputs (gt__keep, gt__keep_end): adds output s of stencil sn to *k (allocated
   when NULL): its box of size[] (by axis name) on the host, or all its bytes on the device.
   0, or GT_ENOMEM / GT_EDEVICE with the error set (what was added stays, for
   gt__keep_end). */
int gt__kept_add(gt__kept **k, const char *sn, gt_storage *s, const int64_t size[3],
                 int device);
/* Adds the value of an out scalar (bytes at result; nothing beyond GT__KEPT_VALUE bytes,
   which no out scalar has) to *k (allocated when NULL): 0 or GT_ENOMEM (the error not
   set). */
enum { GT__KEPT_VALUE = 8 };
int gt__kept_add_result(gt__kept **k, const void *result, size_t bytes);

#endif /* GT_RT_H */
