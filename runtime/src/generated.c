/* generated.c: the runtime functions that only generated code calls (gt_generated.h):
 * allocating temporaries through the public storage API, with their host or device block
 * from the pool of pool.c, so that a stencil called again reuses the blocks of its last
 * call instead of allocating (mapping and faulting in pages, or cudaMalloc) anew. (Its
 * errors go through gt__error, error.c; its arguments are bound by gt__bind, bind.c.) */
#include <string.h>

#include "rt.h"

/* gt__set_poison_temporaries's byte, or -1. */
static int poison = -1;

void gt__set_poison_temporaries(int byte)
{
    poison = byte >= 0 && byte <= 255 ? byte : -1;
}

/* gt__temporary and gt__device_temporary: the storage, and the address of its origin on
   the host or on the device. */
static void *temporary(gt_storage **storage, gt_dtype dtype, const char *axes,
                       const int64_t size[3], const int64_t halo[6], int64_t stride[3],
                       int device)
{
    gt_storage_opts opts = {0};
    int64_t shape[3] = {0, 0, 0};
    int nd = 0;
    *storage = NULL;
    stride[0] = stride[1] = stride[2] = 0;
    for (const char *p = axes; *p && nd < 3; p++, nd++) {
        int a = *p - 'I';
        if (a < 0 || a > 2)
            return gt__error(GT_EINVAL, "gt__temporary: bad axes \"%s\"", axes), NULL;
        opts.halo[nd][0] = halo[2 * a];
        opts.halo[nd][1] = halo[2 * a + 1];
        shape[nd] = halo[2 * a] + size[a] + halo[2 * a + 1];
    }
    /* the cpu layout (I contiguous, K slowest): the one the openmp backend's fast path
     * is specialised on, so a stencil with temporaries can take it */
    opts.defaults = "cpu";
    if (device) {
        /* only the device side is used: no implicit copies */
        opts.device = GT_CUDA;
        opts.managed = GT_MANAGED_NONE;
    }
    gt_storage *s = gt__empty_pooled(device ? "gt__device_temporary" : "gt__temporary", dtype,
                                     axes, shape, &opts);
    if (!s)
        return NULL;
    char *base = device ? gt_device_ptr(s, GT_READWRITE) : gt_host(s, GT_READWRITE);
    const int64_t *st = gt_strides(s);
    if (!base || !st) {
        gt_release(s);
        return NULL;
    }
    if (!device && poison >= 0)   /* a bool gets the byte's low bit: 0 and 1 only are bools */
        memset(s->buf->host, dtype == GT_BOOL ? poison & 1 : poison, s->buf->nbytes);
    int64_t offset = 0;
    nd = 0;
    for (const char *p = axes; *p && nd < 3; p++, nd++) {
        int a = *p - 'I';
        stride[a] = st[nd];
        offset += halo[2 * a] * st[nd];
    }
    *storage = s;
    return base + offset * (int64_t)gt_dtype_size(dtype);
}

void *gt__temporary(gt_storage **storage, gt_dtype dtype, const char *axes,
                    const int64_t size[3], const int64_t halo[6], int64_t stride[3])
{
    return temporary(storage, dtype, axes, size, halo, stride, 0);
}

void *gt__device_temporary(gt_storage **storage, gt_dtype dtype, const char *axes,
                           const int64_t size[3], const int64_t halo[6], int64_t stride[3])
{
    return temporary(storage, dtype, axes, size, halo, stride, 1);
}
