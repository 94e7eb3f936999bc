/* device.c: the device layer and the host/device sync-state machine (runtime.md section 4).
 *
 * Everything device-specific goes through a small table of operations (gt__device_ops):
 * allocate, free, copy each way, wait, and for the streamed transfers of transfer.c pinned
 * host memory, streams and asynchronous copies. Without CUDA the table says "unavailable"
 * and every device request fails with GT_EDEVICE; the CUDA build plugs cudaMalloc,
 * cudaMallocManaged, cudaMemcpy and cudaDeviceSynchronize (and cudaMallocHost & co.) into
 * it; the unit tests plug a fake device backed by host memory (tests/unit/fake_device.h),
 * which is how the state machine below is tested on machines without a GPU. Device blocks
 * of temporaries come from the pool of pool.c and go back to it.
 *
 * The sync state lives in the buffer, so every view of a buffer shares it. Transfers always
 * move the whole buffer (all views at once), except that a download into wrapped memory
 * whose elements leave gaps writes its elements only (buf->gaps). With GT_MANAGED_RUNTIME:
 *   gt_host(any access):   DEVICE_DIRTY -> download -> CLEAN; then a write -> HOST_DIRTY
 *   gt_device_ptr(any):    HOST_DIRTY -> upload -> CLEAN;     then a write -> DEVICE_DIRTY
 * A write-only host access downloads too: a view may write only part of the buffer.
 *
 * A device-only buffer (gt_wrap_device) has no host side and no state: gt__sync_host and the
 * explicit calls refuse it (GT_EDEVICE, "device-only"), except gt_set_device_modified (0),
 * and gt__sync_device has nothing to do. */
#include <string.h>

#include "rt.h"

static const gt__device_ops no_device = {
    .name = "none",
    .unavailable = "libgtrt was built without CUDA",
};

static const gt__device_ops *ops = &no_device;

void gt__set_device_ops(const gt__device_ops *o)
{
    ops = o ? o : &no_device;
}

const gt__device_ops *gt__device_ops_get(void)
{
    return ops;
}

int gt__device_available(const char *fn, const char *what)
{
    if (ops->unavailable)
        return gt__error(GT_EDEVICE, "%s: %s was requested, but %s: no device support", fn,
                         what, ops->unavailable);
    return 0;
}

const char *gt__device_why(const gt__device_ops *o, int err)
{
    const char *text = o->error_string ? o->error_string(err) : NULL;
    return text ? text : "device error";
}

#define why gt__device_why

int gt__device_alloc(const char *fn, const char *what, gt__buffer *buf, int managed_block,
                     int pooled, size_t align)
{
    void *p = NULL, *start;
    size_t n = buf->nbytes + align, pool_bytes = 0;
    int err = 0;
    if (pooled && !managed_block) {
        start = gt__pool_get(ops, n, &p, &pool_bytes, &err);
    } else {
        err = managed_block ? ops->alloc_managed(&p, n) : ops->alloc(&p, n);
        start = p;
    }
    if (err)
        return gt__error(GT_EDEVICE, "%s: allocating %s of %zu bytes failed (%s: %s)", fn, what,
                         n, ops->name, why(ops, err));
    buf->ops = ops;
    buf->device_block = p;
    buf->pool_bytes = pool_bytes;
    buf->device = (unsigned char *)start + (align - (uintptr_t)start % align);
    if (managed_block)
        buf->host = buf->device;
    return 0;
}

void gt__device_free(gt__buffer *buf)
{
    if (!buf->device_block)
        return;
    if (buf->pool_bytes)
        gt__pool_put(buf->ops, buf->device_block, buf->pool_bytes);
    else
        buf->ops->release(buf->device_block);
    buf->device_block = buf->device = NULL;
}

gt__sync_state gt__sync_state_of(const gt_storage *s)
{
    return s->buf->state;
}

/* ---- transfers --------------------------------------------------------------------------- */

static int upload(const char *fn, const gt_storage *s)
{
    gt__buffer *b = s->buf;
    int err = b->nbytes ? b->ops->to_device(b->device, b->host, b->nbytes) : 0;
    if (err) {
        char desc[GT__DESC_MAX];
        return gt__error(GT_EDEVICE, "%s: storage %s: copying %zu bytes host to device failed "
                         "(%s: %s)", fn, gt__describe(s, desc), b->nbytes, b->ops->name,
                         why(b->ops, err));
    }
    b->state = GT__CLEAN;
    return 0;
}

static int download(const char *fn, const gt_storage *s)
{
    gt__buffer *b = s->buf;
    int err = 0;
    if (b->gaps) /* only the wrapped elements: the bytes between them are the caller's */
        err = gt__copy_box_runs(b->ops->to_host, b->host, b->gap_strides, b->device,
                                b->gap_strides, b->gap_shape, b->gap_ndim, b->gap_esize);
    else if (b->nbytes)
        err = b->ops->to_host(b->host, b->device, b->nbytes);
    if (err) {
        char desc[GT__DESC_MAX];
        return gt__error(GT_EDEVICE, "%s: storage %s: copying %zu bytes device to host failed "
                         "(%s: %s)", fn, gt__describe(s, desc), b->nbytes, b->ops->name,
                         why(b->ops, err));
    }
    b->state = GT__CLEAN;
    return 0;
}

static int barrier(const char *fn, const gt_storage *s)
{
    gt__buffer *b = s->buf;
    int err = b->ops->barrier ? b->ops->barrier() : 0;
    if (err) {
        char desc[GT__DESC_MAX];
        return gt__error(GT_EDEVICE, "%s: storage %s: waiting for the device failed (%s: %s)",
                         fn, gt__describe(s, desc), b->ops->name, why(b->ops, err));
    }
    return 0;
}

/* ---- the state machine -------------------------------------------------------------------- */

static int check_access(const char *fn, gt_access access)
{
    if (access != GT_READ && access != GT_WRITE && access != GT_READWRITE)
        return gt__error(GT_EINVAL, "%s: access %d is not GT_READ, GT_WRITE or GT_READWRITE", fn,
                         (int)access);
    return 0;
}

int gt__sync_host(const char *fn, const gt_storage *s, gt_access access)
{
    gt__buffer *b = s->buf;
    if (b->device_only)
        return gt__device_only_error(fn, s);
    if (!b->device)
        return 0;
    if (b->managed == GT_MANAGED_CUDA)
        return barrier(fn, s);
    if (b->managed == GT_MANAGED_RUNTIME) {
        if (b->state == GT__DEVICE_DIRTY) {
            int rc = download(fn, s);
            if (rc)
                return rc;
        }
        if (access & GT_WRITE)
            b->state = GT__HOST_DIRTY;
    }
    return 0;
}

int gt__sync_device(const char *fn, const gt_storage *s, gt_access access)
{
    gt__buffer *b = s->buf;
    if (!b->device && !b->device_only) {
        char desc[GT__DESC_MAX];
        if (gt__device_available(fn, "a device pointer"))
            return gt_last_error_code();
        return gt__error(GT_EDEVICE, "%s: storage %s has no device buffer (it was created "
                         "with device = GT_HOST)", fn, gt__describe(s, desc));
    }
    if (b->managed == GT_MANAGED_RUNTIME) {
        if (b->state == GT__HOST_DIRTY && upload(fn, s))
            return gt_last_error_code();
        if (access & GT_WRITE)
            b->state = GT__DEVICE_DIRTY;
    }
    return 0;
}

void *gt__device_raw(const gt_storage *s)
{
    return s->buf->device ? (unsigned char *)s->buf->device +
                                s->offset * (int64_t)gt_dtype_size(s->dtype)
                          : NULL;
}

void *gt_host(gt_storage *s, gt_access access)
{
    if (!s)
        return gt__error(GT_EINVAL, "gt_host: storage is NULL"), NULL;
    if (check_access("gt_host", access) || gt__sync_host("gt_host", s, access))
        return NULL;
    return gt__host_raw(s);
}

void *gt_device_ptr(gt_storage *s, gt_access access)
{
    static const char fn[] = "gt_device_ptr";
    if (!s)
        return gt__error(GT_EINVAL, "%s: storage is NULL", fn), NULL;
    if (check_access(fn, access) || gt__sync_device(fn, s, access))
        return NULL;
    return gt__device_raw(s);
}

/* Common start of the explicit calls: 1 = proceed with the state machine, 0 = nothing to do
   (no device, or unified memory), < 0 = error (a device-only storage: nothing to sync with;
   gt_set_device_modified, which accepts it, does not come here). */
static int explicit_call(const char *fn, gt_storage *s)
{
    if (!s)
        return gt__error(GT_EINVAL, "%s: storage is NULL", fn);
    if (s->buf->device_only)
        return gt__device_only_error(fn, s);
    if (!s->buf->device)
        return 0;
    if (s->buf->managed == GT_MANAGED_CUDA)
        return 0;
    return 1;
}

int gt_sync(gt_storage *s)
{
    int rc = explicit_call("gt_sync", s);
    if (rc <= 0)
        return rc < 0 ? rc : s->buf->device ? barrier("gt_sync", s) : 0;
    if (s->buf->state == GT__HOST_DIRTY)
        return upload("gt_sync", s);
    if (s->buf->state == GT__DEVICE_DIRTY)
        return download("gt_sync", s);
    return 0;
}

int gt_host_to_device(gt_storage *s, int force)
{
    int rc = explicit_call("gt_host_to_device", s);
    if (rc <= 0)
        return rc;
    if (force || s->buf->state == GT__HOST_DIRTY)
        return upload("gt_host_to_device", s);
    return 0;
}

int gt_device_to_host(gt_storage *s, int force)
{
    int rc = explicit_call("gt_device_to_host", s);
    if (rc <= 0)
        return rc < 0 ? rc : s->buf->device ? barrier("gt_device_to_host", s) : 0;
    if (force || s->buf->state == GT__DEVICE_DIRTY)
        return download("gt_device_to_host", s);
    return 0;
}

static int set_state(const char *fn, gt_storage *s, gt__sync_state state)
{
    int rc = explicit_call(fn, s);
    if (rc <= 0)
        return rc;
    s->buf->state = state;
    return 0;
}

int gt_set_host_modified(gt_storage *s)
{
    return set_state("gt_set_host_modified", s, GT__HOST_DIRTY);
}

int gt_set_device_modified(gt_storage *s)
{
    if (s && s->buf->device_only)
        return 0; /* its device side is its only side: always the newest */
    return set_state("gt_set_device_modified", s, GT__DEVICE_DIRTY);
}

int gt_set_synchronized(gt_storage *s)
{
    return set_state("gt_set_synchronized", s, GT__CLEAN);
}

/* ---- for generated device code ------------------------------------------------------------ */

int gt__device_copy(const char *what, void *dst, const void *src, size_t nbytes, int to_device)
{
    if (gt__device_available(what, "a device copy"))
        return gt_last_error_code();
    int err = to_device ? ops->to_device(dst, src, nbytes) : ops->to_host(dst, src, nbytes);
    if (err)
        return gt__error(GT_EDEVICE, "%s: copying %zu bytes %s failed (%s: %s)", what, nbytes,
                         to_device ? "host to device" : "device to host", ops->name,
                         why(ops, err));
    return 0;
}

int gt__device_wait(const char *what)
{
    if (gt__device_available(what, "the device"))
        return gt_last_error_code();
    int err = ops->barrier ? ops->barrier() : 0;
    if (err)
        return gt__error(GT_EDEVICE, "%s: the device failed (%s: %s)", what, ops->name,
                         why(ops, err));
    return 0;
}
