/* transfer.c: copies between layouts across the host/device boundary, streamed (seed 004).
 *
 * gt_copy_into of a host side into a device storage of another layout (or the reverse)
 * would otherwise transpose on the host into the device storage's host mirror and upload
 * the whole mirror later: two passes over host memory and a transfer that starts only after
 * the transpose is over. Here the box is cut into chunks that are contiguous on the device
 * side (slabs along its slowest dimension, as many as fill a staging buffer; a plane, a row
 * or a piece of a row when even one slab is too big), and each chunk goes through one of two
 * pinned (page-locked) staging buffers, each with its own stream:
 *
 *   host to device: chunk n is packed, in the device storage's layout, from the source into
 *     staging buffer n % 2 (gt__copy_box: the cache-tiled transpose) while chunk n - 1 is
 *     copied to the device on the other stream; before packing into a buffer, the copy queued
 *     from it two chunks ago is waited for;
 *   device to host: the copy of chunk n + 1 into one buffer is queued before chunk n, once
 *     waited for, is unpacked from the other into the destination.
 *
 * A staging buffer holds its chunk densely, so its copy is one 2-D copy (rows of the device
 * side's contiguous run, its row pitch), or one per index of an outer dimension when the
 * chunk is not contiguous on the device side (halos the copy leaves out, a view). The two
 * buffers and streams are kept for the next transfer (one set, taken and given back
 * atomically so that concurrent transfers each get their own), freed at exit, by
 * gt__transfer_trim, and after any device failure, which waits for what was queued first.
 *
 * The sync states (runtime.md section 9): into a device storage, the source's host side is
 * brought up to date, the destination's device side too unless the copy covers all of it,
 * and the destination is then device-dirty (if the transfer fails, host-dirty where its host
 * side holds the old contents, so that no side written in part is marked newer); out of a
 * device storage whose device side is
 * newer, the source keeps its state and the destination's host side is written
 * (host-dirty). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* ---- staging buffers and streams --------------------------------------------------------- */

typedef struct {
    const gt__device_ops *ops; /* the device layer they belong to */
    size_t bytes;              /* of each buffer */
    void *buf[2];              /* pinned host memory */
    void *stream[2];           /* buf[b]'s copies run on stream[b] */
} staging;

static staging *_Atomic kept;  /* the set kept between transfers, or NULL */
static _Atomic size_t staging_bytes = GT__STAGING_BYTES;
static atomic_flag exit_hook = ATOMIC_FLAG_INIT;

static int has_streams(const gt__device_ops *o)
{
    return o && !o->unavailable && o->alloc_pinned && o->release_pinned && o->stream_create &&
           o->stream_destroy && o->copy_async && o->stream_wait;
}

static void destroy(staging *st)
{
    if (!st)
        return;
    for (int b = 0; b < 2; b++) {
        if (st->stream[b])
            st->ops->stream_destroy(st->stream[b]);
        if (st->buf[b])
            st->ops->release_pinned(st->buf[b]);
    }
    gt__free(st);
}

static int acquire(const char *fn, const gt__device_ops *ops, staging **out)
{
    size_t bytes = atomic_load(&staging_bytes);
    staging *st = atomic_exchange(&kept, NULL);
    if (st && st->ops == ops && st->bytes == bytes) {
        *out = st;
        return 0;
    }
    destroy(st);
    st = gt__malloc(sizeof *st);
    if (!st)
        return gt__error(GT_ENOMEM, "%s: out of memory", fn);
    memset(st, 0, sizeof *st);
    st->ops = ops;
    st->bytes = bytes;
    for (int b = 0; b < 2; b++) {
        int err = ops->alloc_pinned(&st->buf[b], bytes);
        if (err) {
            st->buf[b] = NULL;
            destroy(st);
            return gt__error(GT_EDEVICE, "%s: allocating a pinned staging buffer of %zu bytes "
                             "failed (%s: %s)", fn, bytes, ops->name, gt__device_why(ops, err));
        }
        err = ops->stream_create(&st->stream[b]);
        if (err) {
            st->stream[b] = NULL;
            destroy(st);
            return gt__error(GT_EDEVICE, "%s: creating a stream failed (%s: %s)", fn, ops->name,
                             gt__device_why(ops, err));
        }
    }
    *out = st;
    return 0;
}

static void at_exit(void)
{
    gt__transfer_trim();
}

static void give_back(staging *st)
{
    staging *none = NULL;
    if (!atomic_flag_test_and_set(&exit_hook))
        atexit(at_exit);
    if (!atomic_compare_exchange_strong(&kept, &none, st))
        destroy(st); /* another transfer gave its set back first */
}

void gt__transfer_trim(void)
{
    destroy(atomic_exchange(&kept, NULL));
}

void gt__set_staging_bytes(size_t bytes)
{
    atomic_store(&staging_bytes, bytes == 0 ? GT__STAGING_BYTES : bytes < 64 ? 64 : bytes);
    gt__transfer_trim();
}

/* ---- chunks ------------------------------------------------------------------------------ */

typedef struct {
    int64_t n;      /* extent */
    int64_t ds, hs; /* element strides on the device side and on the host side */
} tdim;

/* A chunk: a box of m dimensions (device order, the first cut), at element offsets doff and
   hoff from the device and host origins of the copy. */
typedef struct {
    tdim d[3];
    int m;
    int64_t doff, hoff;
} chunk;

/* Walks the chunks of a box of nd dimensions (by decreasing device stride, none of extent 1):
   the outer dimensions before `level` one index at a time, `per` indices of dimension
   `level` at a time, the inner ones whole. */
typedef struct {
    const tdim *t;
    int nd, level;
    int64_t per, count; /* count: chunks in all */
    int64_t at[3];      /* position of the next chunk: indices of dimensions 0..level */
    int done;
} chunker;

static void chunker_init(chunker *it, const tdim *t, int nd, int64_t cap)
{
    int64_t below[3]; /* elements of dimensions after k */
    below[nd - 1] = 1;
    for (int k = nd - 2; k >= 0; k--)
        below[k] = below[k + 1] * t[k + 1].n;
    int level = 0;
    while (below[level] > cap)
        level++;
    int64_t per = cap / below[level];
    it->t = t;
    it->nd = nd;
    it->level = level;
    it->per = per < t[level].n ? per : t[level].n;
    it->count = (t[level].n + it->per - 1) / it->per;
    for (int k = 0; k < level; k++)
        it->count *= t[k].n;
    memset(it->at, 0, sizeof it->at);
    it->done = 0;
}

static int next_chunk(chunker *it, chunk *c)
{
    if (it->done)
        return 0;
    const tdim *t = it->t;
    int L = it->level;
    c->m = it->nd - L;
    c->doff = c->hoff = 0;
    for (int k = 0; k <= L; k++) {
        c->doff += it->at[k] * t[k].ds;
        c->hoff += it->at[k] * t[k].hs;
    }
    for (int j = 0; j < c->m; j++)
        c->d[j] = t[L + j];
    int64_t left = t[L].n - it->at[L];
    c->d[0].n = left < it->per ? left : it->per;
    /* advance: dimension L by per, carrying into the outer ones */
    it->at[L] += c->d[0].n;
    int k = L;
    while (k >= 0 && it->at[k] >= t[k].n) {
        it->at[k] = 0;
        if (--k >= 0)
            it->at[k]++;
    }
    it->done = k < 0;
    return 1;
}

/* ---- the engine -------------------------------------------------------------------------- */

typedef struct {
    const char *fn;
    const char *side;     /* "dst KJI float64 (..)" or "src ...": the device storage */
    const gt__device_ops *ops;
    staging *st;
    int64_t es;           /* element bytes */
    int up;               /* host to device */
    int busy[2];          /* copies queued on stream b since it was last waited for */
    int64_t last[2];      /* the chunk queued last on stream b */
    int64_t index, count; /* the chunk being queued (from 1), of how many */
} engine;

static int failed(engine *e, const char *what, int err)
{
    return gt__error(GT_EDEVICE, "%s: %s: %s chunk %lld of %lld (%s) failed (%s: %s)", e->fn,
                     e->side, what, (long long)e->index, (long long)e->count,
                     e->up ? "host to device" : "device to host", e->ops->name,
                     gt__device_why(e->ops, err));
}

static int wait_for(engine *e, int b)
{
    if (!e->busy[b])
        return 0;
    int err = e->ops->stream_wait(e->st->stream[b]);
    if (err) { /* still busy: waited for again before the buffers are freed */
        e->index = e->last[b];
        return failed(e, "waiting for the copy of", err);
    }
    e->busy[b] = 0;
    return 0;
}

/* Queues the copies of chunk c between staging buffer b (dense, in device order) and the
   device at dev: rows of the device side's contiguous run (the innermost dimensions that are
   dense there), one 2-D copy per index of the dimensions outside the row dimension. */
static int queue_chunk(engine *e, int b, unsigned char *dev, const chunk *c)
{
    const tdim *t = c->d;
    int m = c->m, r = m - 1;
    int64_t w = 1; /* elements per row */
    if (t[m - 1].ds == 1) {
        w = t[m - 1].n;
        for (r = m - 2; r >= 0 && t[r].ds == w; r--)
            w *= t[r].n;
    }
    size_t width = (size_t)(w * e->es), height = r >= 0 ? (size_t)t[r].n : 1;
    size_t pitch = r >= 0 ? (size_t)(t[r].ds * e->es) : width;
    unsigned char *stage = e->st->buf[b];
    int64_t cnt[3] = {0, 0, 0}, doff = 0, soff = 0;
    e->busy[b] = 1;
    e->last[b] = e->index;
    for (;;) {
        int err = e->up ? e->ops->copy_async(dev + doff, pitch, stage + soff, width, width,
                                             height, 1, e->st->stream[b])
                        : e->ops->copy_async(stage + soff, width, dev + doff, pitch, width,
                                             height, 0, e->st->stream[b]);
        if (err)
            return failed(e, "queueing the copy of", err);
        soff += (int64_t)(width * height);
        int k = r - 1; /* the outer dimensions, last fastest */
        for (; k >= 0; k--) {
            doff += t[k].ds * e->es;
            if (++cnt[k] < t[k].n)
                break;
            doff -= t[k].ds * e->es * t[k].n;
            cnt[k] = 0;
        }
        if (k < 0)
            return 0;
    }
}

/* Packs (up) or unpacks chunk c between staging buffer b and the host at host. */
static void pack(engine *e, int b, unsigned char *host, const chunk *c)
{
    int64_t ext[3], dense[3], hs[3];
    for (int j = c->m - 1; j >= 0; j--) {
        ext[j] = c->d[j].n;
        hs[j] = c->d[j].hs;
        dense[j] = j == c->m - 1 ? 1 : dense[j + 1] * ext[j + 1];
    }
    if (e->up)
        gt__copy_box(e->st->buf[b], dense, host + c->hoff * e->es, hs, ext, c->m, (size_t)e->es);
    else
        gt__copy_box(host + c->hoff * e->es, hs, e->st->buf[b], dense, ext, c->m, (size_t)e->es);
}

/* Moves every chunk, two in flight; on failure waits for what is queued (the staging buffers
   may be freed only then) and returns the error. */
static int run(engine *e, unsigned char *dev, unsigned char *host, chunker *it)
{
    chunk cur, next;
    int rc = 0, b = 0;
    if (e->up) {
        for (; next_chunk(it, &cur); b ^= 1) {
            e->index++;
            /* the copy queued from this buffer two chunks ago must be done before it is
               overwritten */
            if ((rc = wait_for(e, b)))
                break;
            pack(e, b, host, &cur);
            if ((rc = queue_chunk(e, b, dev + cur.doff * e->es, &cur)))
                break;
        }
    } else {
        int have = next_chunk(it, &cur);
        int64_t n = 1; /* cur's number */
        e->index = 1;
        if (have)
            rc = queue_chunk(e, b, dev + cur.doff * e->es, &cur);
        while (have && !rc) {
            /* the next chunk into the other buffer (unpacked already) while this one lands */
            int more = next_chunk(it, &next);
            e->index = n + 1;
            if (more && (rc = queue_chunk(e, b ^ 1, dev + next.doff * e->es, &next)))
                break;
            e->index = n;
            if ((rc = wait_for(e, b)))
                break;
            pack(e, b, host, &cur);
            if (more)
                cur = next;
            have = more;
            b ^= 1;
            n++;
        }
    }
    for (int k = 0; k < 2; k++) {
        if (rc) {
            if (e->busy[k])
                e->ops->stream_wait(e->st->stream[k]); /* its error is the one reported */
            e->busy[k] = 0;
        } else {
            rc = wait_for(e, k);
        }
    }
    return rc;
}

/* ---- gt_copy_into's transfers ------------------------------------------------------------ */

int gt__transfer_way(const gt_storage *dst, const gt_storage *src, const int64_t *extent,
                     const int64_t *ds, const int64_t *ss)
{
    const gt__buffer *d = dst->buf, *s = src->buf;
    if (!gt__box_transposes(ds, ss, extent, dst->ndim))
        return 0;
    if (d->device && d->managed == GT_MANAGED_RUNTIME && has_streams(d->ops))
        return GT__TRANSFER_UP;
    if (s->device && s->managed == GT_MANAGED_RUNTIME && s->state == GT__DEVICE_DIRTY &&
        has_streams(s->ops))
        return GT__TRANSFER_DOWN;
    return 0;
}

/* Whether the box copied covers every element of s's buffer. */
static int covers(const gt_storage *s, const int64_t *extent)
{
    int all = s->whole;
    for (int d = 0; d < s->ndim; d++)
        all &= extent[d] == s->shape[d];
    return all;
}

int gt__transfer_copy(const char *fn, int way, gt_storage *dst, const gt_storage *src,
                      const int64_t *extent, const int64_t *ds, int64_t doff,
                      const int64_t *ss, int64_t soff)
{
    int up = way == GT__TRANSFER_UP;
    const gt_storage *dev = up ? dst : src, *host = up ? src : dst;
    char desc[GT__DESC_MAX + 8];
    memcpy(desc, up ? "dst " : "src ", 5);
    gt__describe(dev, desc + 4);
    engine e = {fn, desc, dev->buf->ops, NULL, (int64_t)gt_dtype_size(dst->dtype), up,
                {0, 0}, {0, 0}, 0, 0};
    int rc = acquire(fn, e.ops, &e.st);
    if (rc)
        return rc;
    /* Up, the destination's host side still holds its old contents whole while the chunks
       land, unless its device side is newer: a failed transfer then marks the host side
       newer, not the device side written in part. (Down, the destination has no device side
       the runtime manages, gt__transfer_way: its host side is its only copy.) */
    int host_whole = 0;
    if (up) {
        rc = gt__sync_host(fn, src, GT_READ);
        /* the elements the copy leaves out must not go stale on the device */
        if (!rc && dst->buf->state == GT__HOST_DIRTY && !covers(dst, extent))
            rc = gt__sync_device(fn, dst, GT_READ);
        host_whole = dst->buf->state != GT__DEVICE_DIRTY;
    } else {
        rc = gt__sync_host(fn, dst, GT_WRITE);
    }
    if (rc) {
        give_back(e.st);
        return rc;
    }
    /* the box by decreasing device stride, extent-1 dimensions left out */
    tdim t[3];
    int nd = 0;
    for (int k = 0; k < dst->ndim; k++) {
        if (extent[k] == 1)
            continue;
        tdim x = up ? (tdim){extent[k], ds[k], ss[k]} : (tdim){extent[k], ss[k], ds[k]};
        int j = nd++;
        for (; j > 0 && (t[j - 1].ds < x.ds || (t[j - 1].ds == x.ds && t[j - 1].hs < x.hs));
             j--)
            t[j] = t[j - 1];
        t[j] = x;
    }
    if (nd == 0)
        t[nd++] = (tdim){1, 1, 1};
    chunker it;
    chunker_init(&it, t, nd, (int64_t)(e.st->bytes / (size_t)e.es));
    e.count = it.count;
    unsigned char *devp = (unsigned char *)gt__device_raw(dev) + (up ? doff : soff) * e.es;
    unsigned char *hostp = (unsigned char *)gt__host_raw(host) + (up ? soff : doff) * e.es;
    rc = run(&e, devp, hostp, &it);
    if (rc) {
        destroy(e.st); /* after a device failure the streams are not trusted again */
        if (up && host_whole)
            dst->buf->state = GT__HOST_DIRTY;
        return rc;
    }
    give_back(e.st);
    if (up)
        dst->buf->state = GT__DEVICE_DIRTY;
    return 0;
}
