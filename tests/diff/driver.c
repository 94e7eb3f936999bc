/* driver.c: the generic differential driver (tests/diff/run.sh).
 *
 *   driver NAIVE.so OTHER.so SEED [device]
 *   driver NAIVE.so CUDA.so SEED count NI NJ NK
 *
 * Both shared objects are builds of the same generated program, by the naive
 * and another backend (openmp; or cuda, built for the CPU against the SIMT
 * emulator of tests/simt, with `device`), each with the call shims of gen
 * --wrap. With `device` the other build's storages have a device buffer on a
 * fake device whose memory is apart from the host's and filled with NaN when
 * allocated: a missing upload reads NaN, a missing download leaves the
 * host's stale values, and either shows as a difference. For every
 * stencil of the program and every layout below, the driver makes random
 * storages from the stencil's S_info (axes, dtype, halo plus a random extra; in a
 * third of the cases every field gets the widest halo of its axes and dtype, so that
 * fields agree in shape and strides as the cuda backend's gt_sN kernels need),
 * fills both copies with the same random bytes (halos and padding included),
 * calls each backend's stencil on a random domain, and compares every element
 * of every storage (so halos that must stay untouched are checked too) and
 * every out scalar.
 *
 * Fields must agree exactly (NaN matching NaN): the openmp backend evaluates
 * every point with the naive backend's operations in the same order. Out
 * scalars agree to a relative 1e-12 (1e-5 for float): full sums are
 * reassociated by the per-thread partial sums.
 *
 * Layouts: "cpu" (I contiguous: the fast path), "F" (the axes reversed: for
 * the axes as the stencil info gives them, I before J before K, the same
 * strides as "cpu", reached through the other preset), "JKI"/"IKJ" (permuted:
 * the generic-stride path), and "IJK" (K contiguous: a unit K stride, I and J
 * strided). With `device`, layout "F" passes the cuda build device-only storages instead
 * (gt_wrap_device over the device sides of its storages, uploaded first; docs/runtime.md
 * section 5), printed as layout "F/device-only": the generated code binds them on the
 * device (gt__bind_device) and must compute what the naive build computes. (A stencil the
 * cuda backend does not fuse runs the naive code on the host, which refuses them,
 * GT_EDEVICE: that case is then run with the storages themselves, printed as "F".) Prints
 * "PASS NAME LAYOUT" or "FAIL NAME LAYOUT: why" per case. */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "load.h"
#include "rt.h"

/* ---- the fake device of `device` runs ------------------------------------------------ */

#include "nan_device.h"

/* Every call of a stencil fills the host temporaries it makes with a byte of its build's
   own (gt__set_poison_temporaries): 0xa5 for naive, 0x5a for the other build (doubles
   about -4e-130 and 2e127, int32 -1515870811 and 1515870810, bools 1 and 0), so that a
   read of a point of a temporary that no statement wrote, which access.c should have
   refused (or a backend should not make), shows as a difference rather than as the zeros
   of fresh memory or the same stale bytes the pool gave both. */
#define NAIVE(fn) (gt__set_poison_temporaries(0xa5), (fn))
#define OTHER(fn) (gt__set_poison_temporaries(0x5a), (fn))

static uint64_t rng;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void *last_lib;

static const DiffStencil *table(const char *path)
{
    return diff_load(path, "driver", &last_lib);
}

/* Every element of s, halo and padding included, through a callback. */
typedef void ElemFn(void *elem, size_t size, void *ctx);

static void for_each(gt_storage *s, ElemFn *fn, void *ctx)
{
    char *base = gt_host(s, GT_READWRITE);
    int nd = gt_ndim(s);
    const int64_t *shape = gt_shape(s), *st = gt_strides(s);
    size_t size = gt_dtype_size(gt_dtype_of(s));
    int64_t idx[3] = {0, 0, 0}, ext[3] = {1, 1, 1}, str[3] = {0, 0, 0};
    for (int d = 0; d < nd; d++)
        ext[d] = shape[d], str[d] = st[d];
    for (idx[0] = 0; idx[0] < ext[0]; idx[0]++)
        for (idx[1] = 0; idx[1] < ext[1]; idx[1]++)
            for (idx[2] = 0; idx[2] < ext[2]; idx[2]++)
                fn(base + (size_t)(idx[0] * str[0] + idx[1] * str[1] + idx[2] * str[2]) * size,
                   size, ctx);
}

/* DIFF_EXTREME=1 (run.sh passes it on): one element in four, and one scalar input in four,
   from the values below instead (the random stream is the same; the element's own draw picks
   them), so that the helpers of the generated code's int arithmetic (language.md 5.3) and
   int() (5.2) are reached at their edges: overflow, INT32_MIN / -1, conversions of values
   out of int's range, infinities and NaN. Off by default: the cases make check runs are the
   ones they were. */
static int extreme;
static const int32_t extreme_int[] = {INT32_MIN, INT32_MAX, INT32_MIN + 1, -1, 0, 65536,
                                      46341, -46341, 1073741824};
static const double extreme_double[] = {NAN, INFINITY, -INFINITY, -0.0, 1e300, -1e300,
                                        4.9e-324, 2147483648.0, -2147483649.0, 1e10};
static const float extreme_float[] = {NAN, INFINITY, -INFINITY, -0.0f, 1e30f, -1e30f,
                                      1e-45f, 2147483648.0f, -2147483904.0f, 1e10f};
#define NEXTREME(a) (sizeof(a) / sizeof(a[0]))

static void fill_elem(void *elem, size_t size, void *ctx)
{
    gt_dtype t = *(gt_dtype *)ctx;
    uint64_t r = next();
    if (extreme && (r >> 40) % 4 == 0) {
        uint64_t x = r >> 44;
        switch (t) {
        case GT_FLOAT64: *(double *)elem = extreme_double[x % NEXTREME(extreme_double)]; return;
        case GT_FLOAT32: *(float *)elem = extreme_float[x % NEXTREME(extreme_float)]; return;
        case GT_INT32: *(int32_t *)elem = extreme_int[x % NEXTREME(extreme_int)]; return;
        case GT_BOOL: break;
        }
    }
    switch (t) {
    case GT_FLOAT64: *(double *)elem = (double)(r % 2000001) / 1000000.0 - 1.0; break;
    case GT_FLOAT32: *(float *)elem = (float)((double)(r % 2001) / 1000.0 - 1.0); break;
    case GT_INT32: *(int32_t *)elem = (int32_t)(r % 11) - 5; break;
    case GT_BOOL: *(unsigned char *)elem = (unsigned char)(r & 1); break;
    }
    (void)size;
}

typedef struct {
    char *a;      /* the naive side's elements, in for_each order */
    size_t n, cap;
} Snap;

static void snap_elem(void *elem, size_t size, void *ctx)
{
    Snap *s = ctx;
    if (s->n + size > s->cap) {
        s->cap = s->cap ? 2 * s->cap : 4096;
        while (s->cap < s->n + size)
            s->cap *= 2;
        s->a = realloc(s->a, s->cap);
        if (!s->a)
            abort();
    }
    memcpy(s->a + s->n, elem, size);
    s->n += size;
}

typedef struct {
    const Snap *ref;
    size_t pos;
    gt_dtype type;
    long mismatches;
    char first[200];
    const char *other;   /* the other backend's name */
    double tol;          /* 0: bitwise; else reals may differ by this relative amount (gpu:
                            the CUDA math library rounds its functions differently) */
} Cmp;

static void cmp_elem(void *elem, size_t size, void *ctx)
{
    Cmp *c = ctx;
    const char *ref = c->ref->a + c->pos;
    c->pos += size;
    if (memcmp(ref, elem, size) == 0)
        return;
    if (c->type == GT_FLOAT64 && isnan(*(const double *)ref) && isnan(*(double *)elem))
        return;
    if (c->type == GT_FLOAT32 && isnan(*(const float *)ref) && isnan(*(float *)elem))
        return;
    if (c->tol > 0 && (c->type == GT_FLOAT64 || c->type == GT_FLOAT32)) {
        double x = c->type == GT_FLOAT64 ? *(const double *)ref : *(const float *)ref;
        double y = c->type == GT_FLOAT64 ? *(double *)elem : *(float *)elem;
        double tol = (c->type == GT_FLOAT64 ? c->tol : 1e-4) * fmax(1.0, fmax(fabs(x), fabs(y)));
        if (fabs(x - y) <= tol)
            return;
    }
    if (c->mismatches++ == 0) {
        if (c->type == GT_FLOAT64)
            snprintf(c->first, sizeof c->first, "element %zu: naive %.17g, %s %.17g",
                     c->pos / size - 1, *(const double *)ref, c->other, *(double *)elem);
        else
            snprintf(c->first, sizeof c->first, "element %zu differs", c->pos / size - 1);
    }
}

/* `count`: each stencil of the cuda build once on an NI x NJ x NK domain in the cpu
 * layout; the global elements its blocks touch (the emulator's distinct loads and stores
 * per block, summed), per point, against the compulsory count: every field's elements over
 * the domain once (an input read once, an output written once; an in-out field counted
 * once). Prints "COUNT NAME loads/pt stores/pt compulsory/pt ratio". */
/* A field g the stencil only reads, at offset 0 by S_info (no halo, no reach), and an
   output o of its dtype and axes: the pair of an in-place call; -1 where none. */
static void in_place_pair(const gt_stencil_info *info, int *g, int *o)
{
    for (int x = 0; x < info->nfields; x++) {
        const gt_field_info *fx = &info->fields[x];
        int zero = !fx->is_output;
        for (int a = 0; a < 3 && zero; a++)
            zero = !fx->halo[a][0] && !fx->halo[a][1] && !fx->reach[a][0] && !fx->reach[a][1];
        for (int y = 0; y < info->nfields && zero; y++) {
            const gt_field_info *fy = &info->fields[y];
            if (fy->is_output && fy->dtype == fx->dtype && strcmp(fy->axes, fx->axes) == 0) {
                *g = x;
                *o = y;
                return;
            }
        }
    }
}

static int count_mode(const DiffStencil *t, void *lib, const int64_t n[3]);

static const char *const layouts[] = {"cpu", "F", "JKI", "IKJ", "IJK"};
enum { NLAYOUTS = (int)(sizeof layouts / sizeof layouts[0]) };

static gt_storage *make(const gt_field_info *fi, const int64_t n[3], int64_t extra, int layout,
                        int device)
{
    gt_storage_opts o = {0};
    o.device = device ? GT_CUDA : GT_HOST;
    int64_t shape[3];
    int nd = (int)strlen(fi->axes);
    for (int d = 0; d < nd; d++) {
        int a = fi->axes[d] - 'I';
        o.halo[d][0] = fi->halo[a][0] + extra;
        o.halo[d][1] = fi->halo[a][1] + (extra ? 1 : 0);
        shape[d] = n[a] + o.halo[d][0] + o.halo[d][1];
    }
    if (layout < 2)
        o.defaults = layouts[layout];
    else
        o.layout = layouts[layout];
    gt_storage *s = gt_empty(fi->dtype, fi->axes, shape, &o);
    if (!s) {
        fprintf(stderr, "driver: %s\n", gt_last_error());
        exit(2);
    }
    return s;
}

/* A device-only storage (gt_wrap_device) over the device side of s, uploaded first, with
   its shape, strides and halo: what a CuPy or PyTorch caller would pass. */
static gt_storage *device_only(gt_storage *s)
{
    gt_storage_opts o = {0};
    const int64_t (*h)[2] = gt_halo(s);
    for (int d = 0; d < gt_ndim(s); d++) {
        o.halo[d][0] = h[d][0];
        o.halo[d][1] = h[d][1];
    }
    void *p = gt_device_ptr(s, GT_READ);
    gt_storage *w = p ? gt_wrap_device(p, gt_dtype_of(s), gt_axes(s), gt_shape(s),
                                       gt_strides(s), &o)
                      : NULL;
    if (!w) {
        fprintf(stderr, "driver: %s\n", gt_last_error());
        exit(2);
    }
    return w;
}

/* fi's halo widened to by's, per axis and side. */
static void widen_halo(gt_field_info *fi, const gt_field_info *by)
{
    for (int a = 0; a < 3; a++)
        for (int side = 0; side < 2; side++)
            if (by->halo[a][side] > fi->halo[a][side])
                fi->halo[a][side] = by->halo[a][side];
}

/* Field f with the widest halo of the fields of its axes and dtype, per axis and side. */
static gt_field_info widest_halo(const gt_stencil_info *info, int f)
{
    gt_field_info fi = info->fields[f];
    for (int x = 0; x < info->nfields; x++)
        if (info->fields[x].dtype == fi.dtype && strcmp(info->fields[x].axes, fi.axes) == 0)
            widen_halo(&fi, &info->fields[x]);
    return fi;
}

/* Field f of a stencil with iterate: a pair's two fields get the halo both need (each
   plays both roles over the steps). */
static gt_field_info steps_field(const gt_stencil_info *info, int f)
{
    gt_field_info fi = info->fields[f];
    for (int p = 0; p < info->npairs; p++) {
        int other = info->pairs[p].next == f ? info->pairs[p].cur
                    : info->pairs[p].cur == f ? info->pairs[p].next : -1;
        if (other >= 0)
            widen_halo(&fi, &info->fields[other]);
    }
    return fi;
}

/* count storages of field fi (dev[x]: a device one), filled with the same values (the
   current rng, which moves on once). */
static void make_alike(const gt_field_info *fi, const int64_t n[3], int64_t extra, int layout,
                       const int *dev, int count, gt_storage **out)
{
    gt_dtype t = fi->dtype;
    uint64_t keep = rng;
    for (int x = 0; x < count; x++) {
        out[x] = make(fi, n, extra, layout, dev[x]);
        rng = keep;
        for_each(out[x], fill_elem, &t);
    }
}

/* Each field of b against a's (tol as Cmp's); the first that differs into why, after
   the text what (may be ""). */
static void compare_fields(const gt_stencil_info *info, gt_storage *const *a,
                           gt_storage *const *b, const char *other, double tol,
                           const char *what, char *why, size_t whylen)
{
    for (int f = 0; f < info->nfields && !why[0]; f++) {
        Snap snap = {0};
        for_each(a[f], snap_elem, &snap);
        Cmp c = {&snap, 0, info->fields[f].dtype, 0, "", other, tol};
        for_each(b[f], cmp_elem, &c);
        if (c.mismatches)
            snprintf(why, whylen, "%sfield %s: %ld elements differ; first %s", what,
                     info->fields[f].name, c.mismatches, c.first);
        free(snap.a);
    }
}

/* The frame of a pair in storages of domain n: every element of next outside the domain
   (along any of its axes: its halo, and its interior past n) set to cur's at the same
   position, where cur has one. Inside the domain next keeps its own values. */
static void frame_into(gt_storage *next, gt_storage *cur, const int64_t n[3])
{
    int nd = gt_ndim(next);
    const char *axes = gt_axes(next), *caxes = gt_axes(cur);
    const int64_t *shape = gt_shape(next), *st = gt_strides(next), *cst = gt_strides(cur);
    const int64_t *cshape = gt_shape(cur);
    const int64_t (*h)[2] = gt_halo(next), (*ch)[2] = gt_halo(cur);
    size_t size = gt_dtype_size(gt_dtype_of(next));
    const char *from = gt_host(cur, GT_READ);
    char *to = gt_host(next, GT_READWRITE);
    int64_t ext[3] = {1, 1, 1}, idx[3];
    for (int d = 0; d < nd; d++)
        ext[d] = shape[d];
    for (idx[0] = 0; idx[0] < ext[0]; idx[0]++)
        for (idx[1] = 0; idx[1] < ext[1]; idx[1]++)
            for (idx[2] = 0; idx[2] < ext[2]; idx[2]++) {
                int outside = 0, has = 1;
                int64_t at = 0, cat = 0;
                for (int d = 0; d < nd; d++) {
                    int e = (int)(strchr(caxes, axes[d]) - caxes);   /* cur's dimension */
                    int64_t pos = idx[d] - h[d][0], c = pos + ch[e][0];
                    outside |= pos < 0 || pos >= n[axes[d] - 'I'];
                    has &= c >= 0 && c < cshape[e];
                    at += idx[d] * st[d];
                    cat += c * cst[e];
                }
                if (outside && has)
                    memcpy(to + (size_t)at * size, from + (size_t)cat * size, size);
            }
}

/* S_steps of a stencil with iterate (language.md 11): nsteps steps by the naive build (a),
   by the other build (b; devonly: on device-only storages over b's device buffers), and
   nsteps single calls of the naive build's S with the pairs
   swapped between calls (r, the definition), on the same random storages, but in r each
   pair's first field holding its second's values outside the domain (so that they agree on
   the frame, as the definition asks; a and b keep their own random values there, which
   S_steps' frame copy must replace; inside the domain next keeps its own, which a step
   that keeps or reads next's values depends on). Every field but the pairs' scratch ones
   compared exactly (gpu: 1e-10) between a and b, and a with r. An empty string, or why
   not. */
static void steps_case(const DiffStencil *ns, const DiffStencil *os, const int64_t n[3],
                       int64_t extra, int layout, int dev, int devonly, double tol,
                       int64_t nsteps, const double *in, const char *other, char *why,
                       size_t whylen)
{
    const gt_stencil_info *info = ns->info;
    int nf = info->nfields;
    gt_storage *a[64], *b[64], *r[64], *cur[64];
    for (int f = 0; f < nf && f < 64; f++) {
        gt_field_info fi = steps_field(info, f);
        gt_storage *s3[3];
        make_alike(&fi, n, extra, layout, (const int[3]){0, 0, dev}, 3, s3);
        a[f] = s3[0], r[f] = s3[1], b[f] = s3[2];
    }
    for (int p = 0; p < info->npairs; p++) {
        int nx = info->pairs[p].next, cu = info->pairs[p].cur;
        frame_into(r[nx], r[cu], n);
    }
    gt_domain dom = {{n[0], n[1], n[2]}};
    int rca = NAIVE(ns->steps)(a, in, nsteps, &dom);
    char msg[400] = "";
    if (rca)
        snprintf(msg, sizeof msg, "%s", gt_last_error());
    /* devonly: the frame's and the result's copies on the device, between storages
       without a host side */
    gt_storage *w[64];
    for (int f = 0; f < nf && f < 64 && devonly; f++)
        w[f] = device_only(b[f]);
    int rcb = OTHER(os->steps)(devonly ? w : b, in, nsteps, &dom);
    if (rcb)
        snprintf(msg, sizeof msg, "%s", gt_last_error());
    for (int f = 0; f < nf && f < 64 && devonly; f++) {
        gt_set_device_modified(b[f]);   /* the comparison downloads the results */
        gt_release(w[f]);
    }
    double out[16];
    int rcr = 0;
    memcpy(cur, r, sizeof *r * (size_t)nf);
    for (int64_t s = 0; s < nsteps && !rcr; s++) {
        rcr = NAIVE(ns->call)(cur, in, out, &dom);
        for (int p = 0; p < info->npairs; p++) {
            gt_storage *t = cur[info->pairs[p].next];
            cur[info->pairs[p].next] = cur[info->pairs[p].cur];
            cur[info->pairs[p].cur] = t;
        }
    }
    if (rca != rcb || rca != rcr)
        snprintf(why, whylen, "steps %lld: status naive %d, %s %d, single calls %d (%s)",
                 (long long)nsteps, rca, other, rcb, rcr, msg);
    for (int f = 0; f < nf && !why[0] && !rca; f++) {
        int scratch = 0;
        for (int p = 0; p < info->npairs; p++)
            scratch |= info->pairs[p].next == f;
        if (scratch)
            continue;
        Snap snap = {0};
        for_each(a[f], snap_elem, &snap);
        Cmp c = {&snap, 0, info->fields[f].dtype, 0, "", other, tol};
        for_each(b[f], cmp_elem, &c);
        Cmp d = {&snap, 0, info->fields[f].dtype, 0, "", "single calls", 0};
        for_each(cur[f], cmp_elem, &d);
        if (c.mismatches)
            snprintf(why, whylen, "steps %lld: field %s: %ld elements differ; first %s",
                     (long long)nsteps, info->fields[f].name, c.mismatches, c.first);
        else if (d.mismatches)
            snprintf(why, whylen, "steps %lld: field %s: %ld elements differ from %lld single "
                     "calls; first %s", (long long)nsteps, info->fields[f].name, d.mismatches,
                     (long long)nsteps, d.first);
        free(snap.a);
    }
    for (int f = 0; f < nf && f < 64; f++) {
        gt_release(a[f]);
        gt_release(b[f]);
        gt_release(r[f]);
    }
}

int main(int argc, char **argv)
{
    int device = argc == 5 && strcmp(argv[4], "device") == 0;
    /* gpu: the other build is nvcc's, on the real device (its libgtrt-cuda installs the
       CUDA device ops when it is loaded) */
    int gpu = argc == 5 && strcmp(argv[4], "gpu") == 0;
    int count = argc == 8 && strcmp(argv[4], "count") == 0;
    if (argc != 4 && !device && !gpu && !count) {
        fprintf(stderr, "usage: driver NAIVE.so OTHER.so SEED [device | gpu | count NI NJ NK]\n");
        return 2;
    }
    if (count) {
        gt__set_device_ops(&nan_device);
        gt__pool_set_cap(1); /* as below */
        table(argv[1]);
        const DiffStencil *t = table(argv[2]);
        int64_t n[3] = {atoll(argv[5]), atoll(argv[6]), atoll(argv[7])};
        return count_mode(t, last_lib, n);
    }
    const char *other = device ? "cuda" : gpu ? "gpu" : "openmp";
    long *variants = NULL;
    if (device) {
        gt__set_device_ops(&nan_device);
        /* no pooled temporaries: each a fresh NaN block of the size asked, so that a read
           before a write and the emulator's bounds check stay exact */
        gt__pool_set_cap(1);
    }
    const DiffStencil *naive = table(argv[1]), *omp = table(argv[2]);
    if (device)
        variants = dlsym(last_lib, "gt_simt_variants");
    unsigned long seed = strtoul(argv[3], NULL, 10);
    extreme = getenv("DIFF_EXTREME") && strcmp(getenv("DIFF_EXTREME"), "1") == 0;
    int failed = 0;
    for (int s = 0; naive[s].name; s++) {
        const DiffStencil *ns = &naive[s], *os = NULL;
        for (int t = 0; omp[t].name; t++)
            if (strcmp(omp[t].name, ns->name) == 0)
                os = &omp[t];
        if (!os) {
            printf("FAIL %s: not in the %s build\n", ns->name, other);
            failed++;
            continue;
        }
        for (int layout = 0; layout < NLAYOUTS; layout++) {
            rng = 0x243f6a8885a308d3ull ^ (seed * 1000003u + (unsigned)s * 7919u + (unsigned)layout);
            next();
            int64_t n[3];
            n[0] = 8 + (int64_t)(next() % 13);
            n[1] = 8 + (int64_t)(next() % 13);
            n[2] = 3 + (int64_t)(next() % 8);
            uint64_t shape = next() % 8;
            if (shape == 0) {               /* several cache blocks along I and J */
                n[0] = 260 + (int64_t)(next() % 30);
                n[1] = 9 + (int64_t)(next() % 12);
                n[2] = 3;
            } else if (shape == 1) {        /* enough blocks for the openmp backend's J
                                               blocks of 16 to 64 rows, the last one cut */
                n[1] = 70 + (int64_t)(next() % 31);
                n[2] = 4 + (int64_t)(next() % 7);
            }
            /* a stencil whose intervals need more levels than these runs on enough in
               every layout but the first (where naive and the other build must refuse
               the call alike), up to 2 more: programs with deep intervals are compared */
            if (layout > 0 && ns->min_nk > n[2] && ns->min_nk <= 48)
                n[2] = ns->min_nk + (int64_t)(next() % 3);
            int64_t extra = (int64_t)(next() % 2);
            int nf = ns->info->nfields;
            /* in a third of the cases (apart from the random stream) fields of one axes
               and dtype get one halo, the widest they need, so one shape and strides: the
               cuda kernels that agree by stride set (gt_sN), which per-field halos
               rarely reach in random programs */
            int widest = (seed + (unsigned long)s + (unsigned long)layout) % 3 == 0;
            gt_storage *a[64], *b[64];
            for (int f = 0; f < nf && f < 64; f++) {
                gt_storage *s2[2];
                gt_field_info fi = widest ? widest_halo(ns->info, f) : ns->info->fields[f];
                make_alike(&fi, n, extra, layout, (const int[2]){0, device || gpu}, 2, s2);
                a[f] = s2[0], b[f] = s2[1];
            }
            double in[16], out_a[16] = {0}, out_b[16] = {0};
            for (int i = 0; i < 16; i++) {
                uint64_t r = next();
                in[i] = (double)(r % 2001) / 1000.0 - 1.0;
                /* an int scalar gets in[i] * 12 (gen --wrap, clamped to int's range) */
                if (extreme && (r >> 40) % 4 == 0)
                    in[i] = extreme_double[(r >> 44) % NEXTREME(extreme_double)];
            }
            gt_domain dom = {{n[0], n[1], n[2]}};
            int rca = NAIVE(ns->call)(a, in, out_a, &dom);
            char msg[400] = "";   /* a refused call: the other must refuse it alike */
            if (rca)
                snprintf(msg, sizeof msg, "%s", gt_last_error());
            /* the cuda kernels with 64-bit indices run for the last layout (every
               storage here is small enough for the 32-bit ones) */
            if (device || gpu)
                gt__set_index32_limit(layout == NLAYOUTS - 1 ? 0 : -1);
            int devonly = device && layout == 1;
            gt_storage *w[64];
            for (int f = 0; f < nf && f < 64 && devonly; f++)
                w[f] = device_only(b[f]);
            int rcb = OTHER(os->call)(devonly ? w : b, in, out_b, &dom);
            /* a stencil the cuda backend does not fuse is the naive code, on the host
               (gt__bind): it refuses device-only storages before touching anything, and
               the layout is checked with b instead */
            int host_code = devonly && rcb == GT_EDEVICE &&
                            strstr(gt_last_error(), "is device-only (gt_wrap_device) but this "
                                                    "stencil runs on the host");
            for (int f = 0; f < nf && f < 64 && devonly; f++) {
                if (!host_code)
                    gt_set_device_modified(b[f]); /* the comparison downloads the results */
                gt_release(w[f]);
            }
            if (host_code) {
                devonly = 0;
                rcb = OTHER(os->call)(b, in, out_b, &dom);
            }
            char why[400] = "";
            if (rca != rcb)
                snprintf(why, sizeof why, "status naive %d, %s %d (%s)", rca, other, rcb,
                         gt_last_error());
            else if (rca && strcmp(msg, gt_last_error()) != 0)
                snprintf(why, sizeof why, "messages differ: naive \"%.150s\", %s \"%.150s\"",
                         msg, other, gt_last_error());
            compare_fields(ns->info, a, b, other, gpu ? 1e-10 : 0, "", why, sizeof why);
            for (int i = 0; i < 16 && ns->out_types[i] && !why[0]; i++) {
                double x = out_a[i], y = out_b[i];
                double rel = ns->out_types[i] == 'f' ? 1e-5 : 1e-12;
                double tol = rel * fmax(1.0, fmax(fabs(x), fabs(y)));
                if (!(x == y || fabs(x - y) <= tol || (isnan(x) && isnan(y))))
                    snprintf(why, sizeof why, "out scalar %d: naive %.17g, %s %.17g", i, x,
                             other, y);
            }
            /* an in-place call, an output given as the storage of a field it only reads,
               at offset 0 as far as S_info says (halo and reach 0; where it reads it at an
               offset after all, both must refuse alike): the cuda backend's gt_aN kernels
               where its kernels use that field (run.sh checks that some ran) */
            int g = -1, o = -1;
            if (device && layout == 0 && !why[0])
                in_place_pair(ns->info, &g, &o);
            if (g >= 0) {
                gt_storage *a2[64], *b2[64];
                for (int f = 0; f < nf; f++) {
                    gt_storage *s2[2];
                    make_alike(&ns->info->fields[f], n, extra, layout, (const int[2]){0, 1}, 2,
                               s2);
                    a2[f] = s2[0], b2[f] = s2[1];
                }
                gt_storage *ga = a2[g], *gb = b2[g];
                a2[g] = a2[o];
                b2[g] = b2[o];
                int r1 = NAIVE(ns->call)(a2, in, out_a, &dom);
                snprintf(msg, sizeof msg, "%s", r1 ? gt_last_error() : "");
                int r2 = OTHER(os->call)(b2, in, out_b, &dom);
                if (r1 != r2 || (r1 && strcmp(msg, gt_last_error()) != 0))
                    snprintf(why, sizeof why, "in place (%s as %s): status naive %d, %s %d (%s)",
                             ns->info->fields[o].name, ns->info->fields[g].name, r1, other, r2,
                             r2 ? gt_last_error() : msg);
                if (!why[0]) {
                    char what[160];
                    snprintf(what, sizeof what, "in place (%s as %s): ",
                             ns->info->fields[o].name, ns->info->fields[g].name);
                    compare_fields(ns->info, a2, b2, other, 0, what, why, sizeof why);
                }
                a2[g] = ga;
                b2[g] = gb;
                for (int f = 0; f < nf; f++) {
                    gt_release(a2[f]);
                    gt_release(b2[f]);
                }
                if (!why[0])
                    printf("PASS %s in-place\n", ns->name);
            }
            /* a stencil with iterate: its steps too ((seed + layout) % 6 of them; the
               cuda build's on device-only storages where its single call had them) */
            if (!why[0] && ns->steps && os->steps && ns->info->npairs > 0)
                steps_case(ns, os, n, extra, layout, device || gpu, devonly, gpu ? 1e-10 : 0,
                           (int64_t)((seed + (unsigned long)layout) % 6), in, other, why,
                           sizeof why);
            if (why[0]) {
                printf("FAIL %s %s%s (%lldx%lldx%lld): %s\n", ns->name, layouts[layout],
                       devonly ? "/device-only" : "",
                       (long long)n[0], (long long)n[1], (long long)n[2], why);
                failed++;
            } else {
                /* a call both builds refused alike: said, so that a stencil only ever
                   refused shows */
                printf("PASS %s %s%s%s\n", ns->name, layouts[layout],
                       devonly ? "/device-only" : "", rca ? " (refused alike)" : "");
            }
            for (int f = 0; f < nf && f < 64; f++) {
                gt_release(a[f]);
                gt_release(b[f]);
            }
        }
    }
    if (variants)   /* which kernels of the cuda backend ran (run.sh checks all did) */
        printf("VARIANTS %ld %ld %ld %ld\n", variants[0], variants[1], variants[2], variants[3]);
    return failed ? 1 : 0;
}

static int count_mode(const DiffStencil *t, void *lib, const int64_t n[3])
{
    long *loads = dlsym(lib, "gt_simt_block_loads"), *stores = dlsym(lib, "gt_simt_block_stores");
    if (!loads || !stores) {
        fprintf(stderr, "driver: the build has no SIMT emulator counters\n");
        return 2;
    }
    rng = 0x243f6a8885a308d3ull;
    for (int s = 0; t[s].name; s++) {
        int nf = t[s].info->nfields;
        gt_storage *b[64];
        double compulsory = 0;
        for (int f = 0; f < nf && f < 64; f++) {
            const gt_field_info *fi = &t[s].info->fields[f];
            b[f] = make(fi, n, 0, 0, 1);
            gt_dtype dt = fi->dtype;
            for_each(b[f], fill_elem, &dt);
            double elems = 1;
            for (const char *a = fi->axes; *a; a++)
                elems *= (double)n[*a - 'I'];
            compulsory += elems;
        }
        double in[16] = {0}, out[16] = {0};
        for (int i = 0; i < 16; i++)
            in[i] = 0.5;
        gt_domain dom = {{n[0], n[1], n[2]}};
        long l0 = *loads, s0 = *stores;
        int rc = t[s].call(b, in, out, &dom);
        double points = (double)n[0] * (double)n[1] * (double)n[2];
        if (rc)
            printf("COUNT %s failed: %s\n", t[s].name, gt_last_error());
        else
            printf("COUNT %s %.2f %.2f %.2f %.2f\n", t[s].name, (double)(*loads - l0) / points,
                   (double)(*stores - s0) / points, compulsory / points,
                   (double)(*loads - l0 + *stores - s0) / compulsory);
        for (int f = 0; f < nf && f < 64; f++)
            gt_release(b[f]);
    }
    return 0;
}
