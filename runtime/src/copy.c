/* copy.c: copying strided boxes (the engine of gt_copy_into, gt_copy and gt_fill_halo),
 * and those two public functions. (gt_copy_into's transposes between a host side and a
 * device side go through transfer.c, which packs with this engine.)
 *
 * A device-only storage (gt_wrap_device) is copied by gt_copy_into through the device
 * layer, row by row, without transposes (copy_device_only).
 *
 * A box is up to three dimensions, each with an extent and a stride in the source and in the
 * destination. The engine first simplifies it: dimensions of extent 1 go, the rest are
 * ordered by decreasing destination stride, and neighbours that are contiguous in both
 * (outer stride = inner stride * inner extent, on both sides) merge into one. Then either
 *   - the innermost destination dimension is also the source's innermost (rows): each row is
 *     one memcpy when both strides are 1, else a strided loop; or
 *   - they differ (a transpose): the source's and the destination's contiguous dimensions
 *     are cut into tiles (256 bytes along the source's rows, 512 along the destination's),
 *     each copied 8 source rows at a time, while the next tile is prefetched. Copies of
 *     4 MiB or more of 4- or 8-byte elements whose destination rows start on cache lines
 *     write with non-temporal stores (SSE2 movnti on x86-64) in 512x256-byte tiles: the
 *     destination is then never read before being written, which is most of what made the
 *     transpose slower than memcpy.
 * The rows or tiles are visited with a mixed-radix counter (seed 004): each digit is a loop
 * (an outer dimension or a tile index) with its byte steps in source and destination; a step
 * adds the innermost digit's steps and on overflow carries into the next digit, subtracting
 * what the wrapped digit had added. No index is ever unravelled: the only divisions are the
 * tile counts, once per copy, and there is none per element.
 *
 * Measured with bench/bench_copy.c (256x256x64 doubles, C to F order) on the 2-core VM: the
 * transpose ran at 0.44 to 0.54 of memcpy of the same bytes with cached stores, and runs at
 * 0.8 to 1.0 with streaming stores (F to C alike); tile sizes alone moved it by +-0.1, and
 * staging tiles through packed buffers, square tiles and AVX2 tile kernels were all slower.
 * Unaligned destinations (e.g. F order with a halo of 1) keep cached stores: streaming
 * partial lines ran at 0.1. */
#include <string.h>

#include "rt.h"

#if (defined(__GNUC__) || defined(__clang__)) && defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#define HAVE_STREAM 1 /* non-temporal stores (SSE2, guaranteed on x86-64) */
#else
#define HAVE_STREAM 0
#endif

#if defined(__GNUC__) || defined(__clang__)
/* Elements are moved as same-size integers: bit-exact (NaN payloads survive), and allowed to
   alias the user's float/double/int objects. */
typedef uint64_t __attribute__((may_alias)) word8;
typedef uint32_t __attribute__((may_alias)) word4;
#define RESTRICT __restrict__
#else
typedef uint64_t word8;
typedef uint32_t word4;
#define RESTRICT
#endif
typedef unsigned char word1;

typedef struct {
    int64_t n;      /* extent */
    int64_t ss, ds; /* element strides in source and destination */
} dim;

/* Drops extent-1 dimensions, orders by decreasing destination stride, merges contiguous
   neighbours. Returns the number left (0: one element), or -1 if the box is empty. */
static int simplify(dim *d, const int64_t *extent, const int64_t *ss, const int64_t *ds, int ndim)
{
    int n = 0;
    for (int k = 0; k < ndim; k++) {
        if (extent[k] == 0)
            return -1;
        if (extent[k] > 1)
            d[n++] = (dim){extent[k], ss[k], ds[k]};
    }
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && (d[b].ds > d[b - 1].ds ||
                                  (d[b].ds == d[b - 1].ds && d[b].ss > d[b - 1].ss)); b--) {
            dim t = d[b];
            d[b] = d[b - 1];
            d[b - 1] = t;
        }
    int m = 0; /* merge: d[m] is the innermost kept so far, scanning from the outside */
    for (int k = 1; k < n; k++) {
        if (d[m].ds == d[k].ds * d[k].n && d[m].ss == d[k].ss * d[k].n) {
            d[m] = (dim){d[m].n * d[k].n, d[k].ss, d[k].ds};
        } else {
            d[++m] = d[k];
        }
    }
    return n ? m + 1 : 0;
}

/* One digit of the mixed-radix counter. */
typedef struct {
    int64_t n;                /* digit values 0 .. n-1 */
    int64_t sstep, dstep;     /* bytes added to source and destination per increment */
} digit;

/* Increments the counter cnt[0..nd) (last digit fastest) and moves the two byte offsets with
   it. Returns 0 when it wraps around completely (the visit is over). */
static int advance(const digit *g, int64_t *cnt, int nd, int64_t *so, int64_t *dof)
{
    for (int k = nd - 1; k >= 0; k--) {
        *so += g[k].sstep;
        *dof += g[k].dstep;
        if (++cnt[k] < g[k].n)
            return 1;
        cnt[k] = 0;
        *so -= g[k].sstep * g[k].n;
        *dof -= g[k].dstep * g[k].n;
    }
    return 0;
}

/* ---- rows -------------------------------------------------------------------------------- */

#define DEFINE_ROW(T)                                                                        \
    static void row_##T(word1 *RESTRICT dst, int64_t ds, const word1 *RESTRICT src,         \
                        int64_t ss, int64_t n)                                               \
    {                                                                                        \
        T *d = (T *)dst;                                                                     \
        const T *s = (const T *)src;                                                         \
        for (int64_t i = 0; i < n; i++)                                                      \
            d[i * ds] = s[i * ss];                                                           \
    }
DEFINE_ROW(word8)
DEFINE_ROW(word4)
DEFINE_ROW(word1)

static void copy_rows(word1 *dst, const word1 *src, const dim *d, int nd, size_t esize)
{
    digit g[3];
    int64_t cnt[3] = {0, 0, 0}, so = 0, dof = 0, es = (int64_t)esize;
    const dim *in = &d[nd - 1];
    for (int k = 0; k < nd - 1; k++)
        g[k] = (digit){d[k].n, d[k].ss * es, d[k].ds * es};
    int contiguous = in->ss == 1 && in->ds == 1;
    do {
        if (contiguous)
            memcpy(dst + dof, src + so, (size_t)(in->n * es));
        else if (esize == 8)
            row_word8(dst + dof, in->ds, src + so, in->ss, in->n);
        else if (esize == 4)
            row_word4(dst + dof, in->ds, src + so, in->ss, in->n);
        else
            row_word1(dst + dof, in->ds, src + so, in->ss, in->n);
    } while (advance(g, cnt, nd - 1, &so, &dof));
}

/* ---- tiles ------------------------------------------------------------------------------- *
 * A tile has extent tx along x (the source's contiguous dimension) and ty along y (the
 * destination's). The unit kernel (source stride 1 along x, destination stride 1 along y:
 * what layouts produce) takes 8 rows of y at a time: 8 source lines, each read down x, so
 * that at most 8 lines of one cache set are live however power-of-two the strides are, and
 * every destination row segment of 8 elements is written at once. The tile after the
 * current one is prefetched while this one is copied: across strided rows the hardware
 * prefetcher does not help, and without it a transpose waits on memory latency. */

#define STORE(p, v) (*(p) = (v))
#define DEFINE_TILE_UNIT(NAME, T, PUT)                                                       \
    static void NAME(word1 *RESTRICT dst, int64_t dsx, const word1 *RESTRICT src,            \
                     int64_t ssy, int64_t tx, int64_t ty)                                    \
    {                                                                                        \
        int64_t y0 = 0;                                                                      \
        for (; y0 + 8 <= ty; y0 += 8) {                                                      \
            T *d = (T *)dst + y0;                                                            \
            const T *s = (const T *)src + y0 * ssy;                                          \
            for (int64_t x = 0; x < tx; x++, d += dsx, s++) {                                \
                T a0 = s[0], a1 = s[ssy], a2 = s[2 * ssy], a3 = s[3 * ssy];                  \
                T a4 = s[4 * ssy], a5 = s[5 * ssy], a6 = s[6 * ssy], a7 = s[7 * ssy];        \
                PUT(d, a0), PUT(d + 1, a1), PUT(d + 2, a2), PUT(d + 3, a3);                  \
                PUT(d + 4, a4), PUT(d + 5, a5), PUT(d + 6, a6), PUT(d + 7, a7);              \
            }                                                                                \
        }                                                                                    \
        for (; y0 < ty; y0++) {                                                              \
            T *d = (T *)dst + y0;                                                            \
            const T *s = (const T *)src + y0 * ssy;                                          \
            for (int64_t x = 0; x < tx; x++)                                                 \
                PUT(d + x * dsx, s[x]);                                                      \
        }                                                                                    \
    }
#define DEFINE_TILE(T)                                                                       \
    DEFINE_TILE_UNIT(tile_unit_##T, T, STORE)                                                \
    static void tile_any_##T(word1 *RESTRICT dst, int64_t dsx, int64_t dsy,                  \
                             const word1 *RESTRICT src, int64_t ssx, int64_t ssy, int64_t tx, \
                             int64_t ty)                                                     \
    {                                                                                        \
        for (int64_t x = 0; x < tx; x++) {                                                   \
            T *d = (T *)dst + x * dsx;                                                       \
            const T *s = (const T *)src + x * ssx;                                           \
            for (int64_t y = 0; y < ty; y++)                                                 \
                d[y * dsy] = s[y * ssy];                                                     \
        }                                                                                    \
    }
DEFINE_TILE(word8)
DEFINE_TILE(word4)
DEFINE_TILE(word1)

#if HAVE_STREAM
/* The same unit kernel with non-temporal stores (movnti): each destination row segment of 8
   elements is written at once, so a write-combining buffer fills (a whole line when
   aligned) and goes to memory without the line being read first (no read-for-ownership)
   and without evicting the source from the caches. */
#define STREAM8(p, v) _mm_stream_si64((long long *)(void *)(p), (long long)(v))
#define STREAM4(p, v) _mm_stream_si32((int *)(void *)(p), (int)(v))
DEFINE_TILE_UNIT(tile_stream_word8, word8, STREAM8)
DEFINE_TILE_UNIT(tile_stream_word4, word4, STREAM4)
#endif

/* Prefetches rows lines of width bytes, stride bytes apart, for reading or writing. */
static void prefetch_rows(const word1 *p, int64_t stride, int64_t rows, int64_t width, int write)
{
#if defined(__GNUC__) || defined(__clang__)
    for (int64_t r = 0; r < rows; r++, p += stride)
        for (int64_t b = 0; b < width; b += 64) {
            if (write)
                __builtin_prefetch(p + b, 1, 3);
            else
                __builtin_prefetch(p + b, 0, 3);
        }
#else
    (void)p, (void)stride, (void)rows, (void)width, (void)write;
#endif
}

/* Copies of at least this many bytes stream their destination (non-temporal stores): a
   transpose of a box larger than the caches otherwise reads every destination line before
   writing it, and evicts source lines still to be read. Smaller copies keep the destination
   in the cache, where the caller will usually read it next. */
#define STREAM_MIN ((int64_t)4 << 20)

/* Tile edges in elements (measured with bench_copy). Cached stores: 256 bytes along x, 512
   along y (long destination rows matter more than square tiles). Streaming stores: 512 bytes
   along x, 256 along y; with x covering a whole 64-double row the third dimension runs
   inside the tiles, so that the source streams. */
static int64_t tile_x(size_t esize, int stream)
{
    return (stream ? 512 : 256) / (int64_t)esize;
}

static int64_t tile_y(size_t esize, int stream)
{
    return (stream ? 256 : 512) / (int64_t)esize;
}

static void copy_tiles(word1 *dst, const word1 *src, const dim *d, int nd, int xs, size_t esize)
{
    /* y: the destination's contiguous dimension (innermost, nd - 1); x: the source's (xs). */
    const dim *x = &d[xs], *y = &d[nd - 1];
    int64_t es = (int64_t)esize, bytes = es;
    for (int k = 0; k < nd; k++)
        bytes *= d[k].n;
    int unit = x->ss == 1 && y->ds == 1, more;
    /* Streaming needs every destination row segment to start on a cache line (a partly
       written write-combining buffer goes to memory in pieces, several times slower). */
    int aligned = (uintptr_t)dst % 64 == 0;
    for (int k = 0; k < nd - 1; k++)
        aligned &= d[k].ds * es % 64 == 0;
    int stream = HAVE_STREAM && unit && (esize == 8 || esize == 4) && aligned &&
                 bytes >= STREAM_MIN;
    int64_t tx0 = tile_x(esize, stream), ty0 = tile_y(esize, stream);
    /* Digits: the x tiles, the y tiles and the other dimension (3-d boxes have one). The
       other goes innermost when it continues a whole tile row in memory (its stride on one
       side is the stride times the extent of a dimension the tile covers completely): then
       successive tiles extend the same rows and both sides stream; else it goes outermost. */
    digit g[3];
    int ng = 0, z = -1;
    for (int k = 0; k < nd - 1; k++)
        if (k != xs)
            z = k;
    int z_inner = z >= 0 && ((y->n <= ty0 && d[z].ds == y->ds * y->n) ||
                             (x->n <= tx0 && d[z].ss == x->ss * x->n));
    if (z >= 0 && !z_inner)
        g[ng++] = (digit){d[z].n, d[z].ss * es, d[z].ds * es};
    int kx = ng, ky = ng + 1;
    g[ng++] = (digit){(x->n + tx0 - 1) / tx0, tx0 * x->ss * es, tx0 * x->ds * es};
    g[ng++] = (digit){(y->n + ty0 - 1) / ty0, ty0 * y->ss * es, ty0 * y->ds * es};
    if (z_inner)
        g[ng++] = (digit){d[z].n, d[z].ss * es, d[z].ds * es};
    int64_t cnt[3] = {0, 0, 0}, so = 0, dof = 0;
    do {
        int64_t tx = x->n - cnt[kx] * tx0, ty = y->n - cnt[ky] * ty0;
        tx = tx < tx0 ? tx : tx0;
        ty = ty < ty0 ? ty : ty0;
        word1 *dp = dst + dof;
        const word1 *sp = src + so;
        more = advance(g, cnt, ng, &so, &dof); /* the next tile: prefetch it */
        if (more && unit) {
            prefetch_rows(src + so, y->ss * es, ty0, tx0 * es, 0);
            if (!stream) /* streamed lines are not read */
                prefetch_rows(dst + dof, x->ds * es, tx0, ty0 * es, 1);
        }
#if HAVE_STREAM
        if (stream && esize == 8)
            tile_stream_word8(dp, x->ds, sp, y->ss, tx, ty);
        else if (stream)
            tile_stream_word4(dp, x->ds, sp, y->ss, tx, ty);
        else
#endif
        if (unit && esize == 8)
            tile_unit_word8(dp, x->ds, sp, y->ss, tx, ty);
        else if (unit && esize == 4)
            tile_unit_word4(dp, x->ds, sp, y->ss, tx, ty);
        else if (unit)
            tile_unit_word1(dp, x->ds, sp, y->ss, tx, ty);
        else if (esize == 8)
            tile_any_word8(dp, x->ds, y->ds, sp, x->ss, y->ss, tx, ty);
        else if (esize == 4)
            tile_any_word4(dp, x->ds, y->ds, sp, x->ss, y->ss, tx, ty);
        else
            tile_any_word1(dp, x->ds, y->ds, sp, x->ss, y->ss, tx, ty);
    } while (more);
#if HAVE_STREAM
    if (stream)
        _mm_sfence(); /* order the streamed stores before any later store (another thread
                         may read dst once we return and it is told so) */
#endif
}

void gt__dense_strides(const gt_storage *s, const int64_t *extent, int64_t dense[3])
{
    int order[3] = {0, 1, 2};   /* the dimensions by increasing stride */
    for (int x = 0; x < s->ndim; x++)
        for (int y = x + 1; y < s->ndim; y++)
            if (s->strides[order[y]] < s->strides[order[x]]) {
                int t = order[x];
                order[x] = order[y];
                order[y] = t;
            }
    int64_t step = 1;
    for (int x = 0; x < s->ndim; x++) {
        dense[order[x]] = step;
        step *= extent[order[x]];
    }
}

void gt__copy_box(void *dst, const int64_t *dst_strides, const void *src,
                  const int64_t *src_strides, const int64_t *extent, int ndim, size_t esize)
{
    dim d[3];
    int nd = simplify(d, extent, src_strides, dst_strides, ndim);
    if (nd < 0)
        return;
    if (nd == 0) {
        memcpy(dst, src, esize);
        return;
    }
    int xs = nd - 1; /* the source's contiguous dimension: smallest source stride */
    for (int k = 0; k < nd; k++)
        if (d[k].ss < d[xs].ss)
            xs = k;
    if (xs == nd - 1)
        copy_rows(dst, src, d, nd, esize);
    else
        copy_tiles(dst, src, d, nd, xs, esize);
}

int gt__box_transposes(const int64_t *dst_strides, const int64_t *src_strides,
                       const int64_t *extent, int ndim)
{
    dim d[3];
    int nd = simplify(d, extent, src_strides, dst_strides, ndim);
    for (int k = 0; k < nd - 1; k++)
        if (d[k].ss < d[nd - 1].ss)
            return 1;
    return 0;
}

void gt__fill_box(void *dst, const int64_t *strides, const int64_t *extent, int ndim,
                  size_t esize, const void *value)
{
    dim d[3];
    int nd = simplify(d, extent, strides, strides, ndim);
    if (nd < 0)
        return;
    if (nd == 0) {
        memcpy(dst, value, esize);
        return;
    }
    digit g[3];
    int64_t cnt[3] = {0, 0, 0}, so = 0, dof = 0, es = (int64_t)esize;
    for (int k = 0; k < nd - 1; k++)
        g[k] = (digit){d[k].n, 0, d[k].ds * es};
    const dim *in = &d[nd - 1];
    word1 *base = dst;
    do {
        word1 *p = base + dof;
        for (int64_t i = 0; i < in->n; i++)
            memcpy(p + i * in->ds * es, value, esize);
    } while (advance(g, cnt, nd - 1, &so, &dof));
}

/* ---- gt_copy_into, gt_copy --------------------------------------------------------------- */

int gt__copy_box_runs(int (*op)(void *, const void *, size_t), unsigned char *dst,
                      const int64_t *ds, const unsigned char *src, const int64_t *ss,
                      const int64_t *extent, int ndim, size_t esize)
{
    dim d[3];
    int nd = simplify(d, extent, ss, ds, ndim);
    if (nd < 0)
        return 0;
    if (nd == 0)
        return op(dst, src, esize);
    digit g[3];
    int ng = 0;
    int64_t es = (int64_t)esize, run = 1, cnt[3] = {0, 0, 0}, so = 0, dof = 0;
    for (int k = 0; k < nd - 1; k++)
        g[ng++] = (digit){d[k].n, d[k].ss * es, d[k].ds * es};
    const dim *in = &d[nd - 1];
    if (in->ss == 1 && in->ds == 1)
        run = in->n;
    else
        g[ng++] = (digit){in->n, in->ss * es, in->ds * es};
    do {
        int err = op(dst + dof, src + so, (size_t)(run * es));
        if (err)
            return err;
    } while (advance(g, cnt, ng, &so, &dof));
    return 0;
}

/* gt_copy_into where dst or src is device-only (docs/runtime.md section 5): the other
   storage's device side if it has one (GT_CUDA: synced on the device first), else its host
   memory; no transposes; through the device layer of the device-only storage. Checks done
   by the caller: dtype, axes, interior sizes; extent, strides and offsets of the box. */
static int copy_device_only(const char *fn, gt_storage *dst, const gt_storage *src,
                            const char *dd, const char *sd, const int64_t *extent,
                            const int64_t *ds, int64_t doff, const int64_t *ss, int64_t soff)
{
    int dev_dst = dst->buf->device_only || dst->buf->device;
    int dev_src = src->buf->device_only || src->buf->device;
    const gt__device_ops *ops = dst->buf->device_only ? dst->buf->ops : src->buf->ops;
    if (dst == src)
        return 0;
    if (gt__overlap(dst, src, dev_dst && dev_src))
        return gt__error(GT_EALIAS, "%s: dst %s and src %s overlap in device memory", fn, dd,
                         sd);
    if (gt__box_transposes(ds, ss, extent, dst->ndim))
        return gt__error(GT_EINVAL, "%s: dst %s (layout %s) and src %s (layout %s): a "
                         "device-only storage is copied only between storages of the same "
                         "layout (no transposes on the device)", fn, dd, dst->layout, sd,
                         src->layout);
    int (*op)(void *, const void *, size_t) =
        dev_dst && dev_src ? ops->device_copy : dev_dst ? ops->to_device : ops->to_host;
    if (!op)
        return gt__error(GT_EDEVICE, "%s: dst %s and src %s: the device layer \"%s\" cannot "
                         "copy device memory to device memory", fn, dd, sd, ops->name);
    /* the side of each storage that the copy reads or writes, up to date */
    int rc = dev_src ? (src->buf->device_only ? 0 : gt__sync_device(fn, src, GT_READ))
                     : gt__sync_host(fn, src, GT_READ);
    gt__buffer *db = dst->buf;
    int host_whole = 0; /* dst's host side holds the old contents whole while the copy runs */
    if (!rc && !db->device_only) {
        rc = dev_dst ? gt__sync_device(fn, dst, GT_READ) : gt__sync_host(fn, dst, GT_WRITE);
        host_whole = dev_dst && db->managed == GT_MANAGED_RUNTIME &&
                     db->state != GT__DEVICE_DIRTY;
    }
    if (rc)
        return rc;
    int64_t es = (int64_t)gt_dtype_size(dst->dtype);
    unsigned char *to = dev_dst ? gt__device_raw(dst) : gt__host_raw(dst);
    const unsigned char *from = dev_src ? gt__device_raw(src) : gt__host_raw(src);
    int err = to && from ? gt__copy_box_runs(op, to + doff * es, ds, from + soff * es, ss,
                                             extent, dst->ndim, (size_t)es)
                         : 0; /* NULL: an empty storage */
    if (err) {
        if (host_whole)
            db->state = GT__HOST_DIRTY; /* not the device side written in part */
        return gt__error(GT_EDEVICE, "%s: dst %s and src %s: copying %s failed (%s: %s)", fn,
                         dd, sd, dev_dst && dev_src ? "device to device"
                                 : dev_dst ? "host to device" : "device to host",
                         ops->name, gt__device_why(ops, err));
    }
    if (dev_dst && !db->device_only)
        return gt__sync_device(fn, dst, GT_WRITE); /* marks it device-dirty */
    return 0;
}

int gt_copy_into(gt_storage *dst, const gt_storage *src)
{
    static const char fn[] = "gt_copy_into";
    char dd[GT__DESC_MAX], sd[GT__DESC_MAX];
    if (!dst || !src)
        return gt__error(GT_EINVAL, "%s: %s is NULL", fn, dst ? "src" : "dst");
    gt__describe(dst, dd);
    gt__describe(src, sd);
    if (dst->dtype != src->dtype)
        return gt__error(GT_EDTYPE, "%s: dst %s and src %s have different dtypes", fn, dd, sd);
    int pos[3];
    for (int d = 0; d < dst->ndim; d++)
        pos[d] = gt__axis_pos(src, dst->axes[d]);
    int same_set = dst->ndim == src->ndim;
    for (int d = 0; d < dst->ndim; d++)
        same_set &= pos[d] >= 0;
    if (!same_set)
        return gt__error(GT_EAXES, "%s: dst %s and src %s have different axes", fn, dd, sd);
    int64_t extent[3], ss[3], ds[3], soff = 0, doff = 0;
    int empty = 0;
    for (int d = 0; d < dst->ndim; d++) {
        int e = pos[d];
        int64_t nd = dst->shape[d] - dst->halo[d][0] - dst->halo[d][1];
        int64_t ns = src->shape[e] - src->halo[e][0] - src->halo[e][1];
        if (nd != ns)
            return gt__error(GT_ESHAPE, "%s: dst %s and src %s: interior along %c is %lld in "
                             "dst but %lld in src", fn, dd, sd, dst->axes[d], (long long)nd,
                             (long long)ns);
        int64_t lo = dst->halo[d][0] < src->halo[e][0] ? dst->halo[d][0] : src->halo[e][0];
        int64_t hi = dst->halo[d][1] < src->halo[e][1] ? dst->halo[d][1] : src->halo[e][1];
        extent[d] = nd + lo + hi;
        empty |= extent[d] == 0;
        ds[d] = dst->strides[d];
        ss[d] = src->strides[e];
        doff += (dst->halo[d][0] - lo) * ds[d];
        soff += (src->halo[e][0] - lo) * ss[d];
    }
    if (dst->buf->device_only || src->buf->device_only)
        return copy_device_only(fn, dst, src, dd, sd, extent, ds, doff, ss, soff);
    if (dst == src)
        return 0; /* the same elements: nothing to copy, nothing to sync */
    if (gt__overlap(dst, src, 0))
        return gt__error(GT_EALIAS, dst->buf == src->buf
                         ? "%s: dst %s and src %s are views of one buffer, which gt_copy_into "
                           "does not copy between (even where their elements are apart)"
                         : "%s: dst %s and src %s overlap in memory", fn, dd, sd);
    int way = empty ? 0 : gt__transfer_way(dst, src, extent, ds, ss);
    if (way) /* a transpose between host and device: streamed (transfer.c) */
        return gt__transfer_copy(fn, way, dst, src, extent, ds, doff, ss, soff);
    int rc = gt__sync_host(fn, src, GT_READ);
    if (!rc)
        rc = gt__sync_host(fn, dst, GT_WRITE);
    if (rc || empty)
        return rc;
    int64_t es = (int64_t)gt_dtype_size(dst->dtype);
    gt__copy_box((unsigned char *)gt__host_raw(dst) + doff * es, ds,
                 (const unsigned char *)gt__host_raw(src) + soff * es, ss, extent, dst->ndim,
                 (size_t)es);
    return 0;
}

gt_storage *gt_copy(const gt_storage *src)
{
    static const char fn[] = "gt_copy";
    if (!src)
        return gt__error(GT_EINVAL, "%s: storage is NULL", fn), NULL;
    if (src->buf->device_only) {
        char desc[GT__DESC_MAX];
        return gt__error(GT_EDEVICE, "%s: storage %s is device-only (gt_wrap_device): the "
                         "runtime does not allocate device-only copies; copy it with "
                         "gt_copy_into into a storage made with device = GT_CUDA", fn,
                         gt__describe(src, desc)), NULL;
    }
    gt__params p;
    gt__params_of(src, &p);
    gt_storage *s = gt__create(fn, &p, GT__INIT_NONE, 0);
    if (!s)
        return NULL;
    if (gt__sync_host(fn, src, GT_READ)) {
        gt_release(s);
        return NULL;
    }
    if (gt__host_raw(src)) /* NULL only for an empty wrapped storage */
        gt__copy_box(gt__host_raw(s), s->strides, gt__host_raw(src), src->strides, src->shape,
                 src->ndim, gt_dtype_size(src->dtype));
    if (s->buf->device && s->buf->managed != GT_MANAGED_CUDA)
        s->buf->state = GT__HOST_DIRTY;
    return s;
}
