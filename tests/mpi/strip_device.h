/* strip_device.h: the fake device of tests/mpi/check_mpi_device.c: nan_device.h's device
 * memory (host memory that starts as NaN, whose blocks the SIMT emulator checks every
 * kernel access against) with what the MPI exchange packs halo strips on the device with:
 * pinned memory, streams, asynchronous copies and the pack/unpack box copies, each one
 * counted: the bytes moved host to device and device to host (to_device, to_host and
 * copy_async alike: everything that would cross the bus), the calls of each kind.
 *
 * It is hostile to an exchange that forgets a wait: queued work (copies, packs, unpacks)
 * runs only when its stream is waited for, in order; pinned buffers start as 0xff bytes and
 * are filled with 0xa5 before being freed. A copy whose host side is not inside a live
 * pinned buffer, or whose device side or box is not inside live device memory, counts in
 * sd.bad; work still queued when its stream is destroyed or a pinned buffer it uses is
 * freed counts in sd.lost (and is dropped). sd.fail_pack, fail_unpack and fail_async make
 * the n-th call of that kind fail (error 700, "illegal address"). The box copies are plain loops over the box,
 * written here, not the runtime's. Install it with gt__set_device_ops(&strip_device). */
#ifndef STRIP_DEVICE_H
#define STRIP_DEVICE_H

#include "nan_device.h"

static struct {
    size_t up, down;           /* bytes host to device, device to host */
    int copies;                /* to_device and to_host calls (whole transfers) */
    int async;                 /* copy_async calls */
    int packs, unpacks;        /* box copies queued */
    int pinned_allocs, pinned_live, streams_live, waits;
    int bad, lost;
    int fail_pack, fail_unpack, fail_async;   /* the n-th call of that kind from now fails
                                                 (1: the next), with error 700 */
} sd;

typedef struct {
    int box;                   /* 0 a copy of n bytes; 1 a box copy */
    void *dst;
    const void *src;
    size_t n, es;
    int64_t ds[3], ss[3], ext[3];
    int ndim;
} sd_work;

typedef struct {
    sd_work *q;
    int n, cap;
} sd_stream;

#define SD_MAX 16
static struct { unsigned char *p; size_t n; } sd_pinned[SD_MAX];
static sd_stream *sd_streams[SD_MAX];

static int sd_is_pinned(const void *p, size_t n)
{
    const unsigned char *c = p;
    for (int k = 0; k < SD_MAX; k++)
        if (sd_pinned[k].p && c >= sd_pinned[k].p && c + n <= sd_pinned[k].p + sd_pinned[k].n)
            return 1;
    return 0;
}

static int sd_up(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
    sd.up += n;
    sd.copies++;
    return 0;
}

static int sd_down(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
    sd.down += n;
    sd.copies++;
    return 0;
}

static int sd_device_copy(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
    return 0;
}

static int sd_alloc_pinned(void **out, size_t n)
{
    for (int k = 0; k < SD_MAX; k++)
        if (!sd_pinned[k].p) {
            sd_pinned[k].p = malloc(n ? n : 1);
            if (!sd_pinned[k].p)
                return 2;
            sd_pinned[k].n = n;
            memset(sd_pinned[k].p, 0xff, n);
            *out = sd_pinned[k].p;
            sd.pinned_allocs++;
            sd.pinned_live++;
            return 0;
        }
    return 2;
}

static void sd_release_pinned(void *p)
{
    for (int k = 0; k < SD_MAX; k++)
        if (sd_pinned[k].p == p) {
            const unsigned char *lo = p, *hi = lo + sd_pinned[k].n;
            for (int s = 0; s < SD_MAX; s++)
                for (int i = 0; sd_streams[s] && i < sd_streams[s]->n; i++) {
                    const unsigned char *a = sd_streams[s]->q[i].dst, *b = sd_streams[s]->q[i].src;
                    if ((a >= lo && a < hi) || (b >= lo && b < hi))
                        sd.lost++;
                }
            memset(p, 0xa5, sd_pinned[k].n);
            free(p);
            sd_pinned[k].p = NULL;
            sd.pinned_live--;
            return;
        }
    sd.bad++;   /* not a pinned buffer */
}

static int sd_stream_create(void **out)
{
    for (int k = 0; k < SD_MAX; k++)
        if (!sd_streams[k]) {
            sd_streams[k] = calloc(1, sizeof *sd_streams[k]);
            if (!sd_streams[k])
                return 2;
            sd.streams_live++;
            *out = sd_streams[k];
            return 0;
        }
    return 2;
}

static void sd_stream_destroy(void *stream)
{
    sd_stream *s = stream;
    sd.lost += s->n;
    for (int k = 0; k < SD_MAX; k++)
        if (sd_streams[k] == s)
            sd_streams[k] = NULL;
    free(s->q);
    free(s);
    sd.streams_live--;
}

static void sd_queue(sd_stream *s, sd_work w)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->q = realloc(s->q, (size_t)s->cap * sizeof *s->q);
    }
    s->q[s->n++] = w;
}

static int sd_copy_async(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, int to_device, void *stream)
{
    if (sd.fail_async && --sd.fail_async == 0)
        return 700;
    sd.async++;
    const void *host = to_device ? src : dst, *dev = to_device ? dst : src;
    size_t n = width * height;
    /* the exchange copies each strip whole (one row): pitches that would leave gaps are
       not what it does */
    if (height != 1 && (dpitch != width || spitch != width))
        sd.bad++;
    if (!sd_is_pinned(host, n) || !gt_device_contains(dev, n))
        sd.bad++;
    if (to_device)
        sd.up += n;
    else
        sd.down += n;
    sd_queue(stream, (sd_work){0, dst, src, n, 0, {0}, {0}, {0}, 0});
    return 0;
}

/* The bytes from an element to one past the last element of a box with these strides. */
static size_t sd_span(const int64_t *st, const int64_t *ext, int ndim, size_t es)
{
    int64_t last = 0;
    for (int x = 0; x < ndim; x++)
        last += (ext[x] - 1) * st[x];
    return (size_t)(last + 1) * es;
}

static int sd_box(void *dst, const int64_t *ds, const void *src, const int64_t *ss,
                  const int64_t *ext, int ndim, size_t es, void *stream)
{
    sd_work w = {1, dst, src, 0, es, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, ndim};
    for (int x = 0; x < ndim; x++) {
        w.ds[x] = ds[x];
        w.ss[x] = ss[x];
        w.ext[x] = ext[x];
        if (ext[x] == 0)
            return 0;
    }
    if (!gt_device_contains(dst, sd_span(ds, ext, ndim, es)) ||
        !gt_device_contains(src, sd_span(ss, ext, ndim, es)))
        sd.bad++;
    sd_queue(stream, w);
    return 0;
}

static int sd_pack(void *dense, const int64_t *dstrides, const void *box, const int64_t *strides,
                   const int64_t *extent, int ndim, size_t esize, void *stream)
{
    if (sd.fail_pack && --sd.fail_pack == 0)
        return 700;
    sd.packs++;
    return sd_box(dense, dstrides, box, strides, extent, ndim, esize, stream);
}

static int sd_unpack(void *box, const int64_t *strides, const void *dense,
                     const int64_t *dstrides, const int64_t *extent, int ndim, size_t esize,
                     void *stream)
{
    if (sd.fail_unpack && --sd.fail_unpack == 0)
        return 700;
    sd.unpacks++;
    return sd_box(box, strides, dense, dstrides, extent, ndim, esize, stream);
}

static void sd_run(const sd_work *w)
{
    if (!w->box) {
        memcpy(w->dst, w->src, w->n);
        return;
    }
    for (int64_t a = 0; a < w->ext[0]; a++)
        for (int64_t b = 0; b < w->ext[1]; b++)
            for (int64_t c = 0; c < w->ext[2]; c++)
                memcpy((char *)w->dst + (a * w->ds[0] + b * w->ds[1] + c * w->ds[2]) * (int64_t)w->es,
                       (const char *)w->src + (a * w->ss[0] + b * w->ss[1] + c * w->ss[2]) * (int64_t)w->es,
                       w->es);
}

static int sd_stream_wait(void *stream)
{
    sd_stream *s = stream;
    sd.waits++;
    for (int i = 0; i < s->n; i++)
        sd_run(&s->q[i]);
    s->n = 0;
    return 0;
}

static const char *sd_error_string(int err)
{
    return err == 700 ? "illegal address" : err == 2 ? "out of device memory" : NULL;
}

static const gt__device_ops strip_device = {
    .name = "fake",
    .error_string = sd_error_string,
    .alloc = nan_alloc,
    .alloc_managed = nan_alloc,
    .release = nan_release,
    .to_device = sd_up,
    .to_host = sd_down,
    .barrier = no_wait,
    .device_copy = sd_device_copy,
    .alloc_pinned = sd_alloc_pinned,
    .release_pinned = sd_release_pinned,
    .stream_create = sd_stream_create,
    .stream_destroy = sd_stream_destroy,
    .copy_async = sd_copy_async,
    .stream_wait = sd_stream_wait,
    .pack = sd_pack,
    .unpack = sd_unpack,
};

#endif /* STRIP_DEVICE_H */
