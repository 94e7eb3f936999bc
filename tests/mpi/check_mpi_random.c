/* check_mpi_random.c: the random programs of the differential test (tests/diff/gen.c) in
 * distributed calls, under mpirun (tests/mpi/random.sh).
 *
 *   check_mpi_random NAIVE.so OTHER.so SEED [device]
 *
 * Both shared objects are builds of one generated program with the call shims of gen
 * --wrap (tests/diff/diff.h): NAIVE.so by the naive backend, OTHER.so by another (openmp; or
 * cuda built for the CPU against the SIMT emulator, with `device`: its storages then have a
 * device side on the tests' NaN device). For every stencil of the program, on a global
 * domain drawn from SEED and the stencil's index, every rank
 *
 *   - calls the naive build once on the whole domain as one process does (the reference):
 *     storages with gt_mpi_halo's halo, every element (halos included) a function of the
 *     field and the global position (on an axis that the decomposition wraps, the wrapped
 *     position's);
 *   - calls each build through gt_mpi_call on its box, blocking and overlapped, on local
 *     storages holding the same function, except the halo elements that only the exchange
 *     may fill (inside the global domain but another rank's, or wrapped around): NaN (0 for
 *     int and bool fields, which NaN cannot mark);
 *
 * and compares its box, along K the whole storage, of every field with the reference's,
 * bit for bit (NaN matching NaN), and the out scalars to a relative 1e-12 (1e-5 for float;
 * sums are added in another order per rank and per part). A stencil the reference refuses
 * must be refused by every distributed call with the same status; one that the distributed
 * call refuses because a computation reads at an offset what an earlier one wrote
 * (docs/mpi.md, gt_mpi_call's checking call) must be refused so by both builds, and counts
 * as passed then. The decomposition wraps I (J) where a field has a periodic boundary
 * condition along it, and for odd SEEDs along both axes.
 *
 * Prints "PASS NAME ..." or "FAIL NAME ...: why" per stencil and call from rank 0 (report.h);
 * exits with the number of failures. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gt/gt_mpi.h>

#include "diff.h"
#include "load.h"
#include "rt.h"

#include "nan_device.h"

static int rank, nproc, failures;

#include "report.h"

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The value of field f at global position g (three entries; those of axes the field lacks
   are 0), written as dtype t into elem. */
static void value(void *elem, gt_dtype t, uint64_t seed, int f, const int64_t g[3])
{
    uint64_t r = mix(seed ^ mix((uint64_t)f * 1000003u ^
                                mix((uint64_t)(g[0] + 1000) * 65599u ^
                                    mix((uint64_t)(g[1] + 1000) * 131u ^
                                        (uint64_t)(g[2] + 1000)))));
    switch (t) {
    case GT_FLOAT64: *(double *)elem = (double)(r % 2000001) / 1000000.0 - 1.0; break;
    case GT_FLOAT32: *(float *)elem = (float)((double)(r % 2001) / 1000.0 - 1.0); break;
    case GT_INT32: *(int32_t *)elem = (int32_t)(r % 11) - 5; break;
    case GT_BOOL: *(unsigned char *)elem = (unsigned char)(r & 1); break;
    }
}

static void mark(void *elem, gt_dtype t)
{
    switch (t) {
    case GT_FLOAT64: *(double *)elem = NAN; break;
    case GT_FLOAT32: *(float *)elem = NAN; break;
    case GT_INT32: *(int32_t *)elem = 0; break;
    case GT_BOOL: *(unsigned char *)elem = 0; break;
    }
}

static int64_t wrap(int64_t g, int64_t n)
{
    return (g % n + n) % n;
}

/* The element of s at index idx (one per axis of s) and the global position it holds:
   local index less the lower halo, plus the box's offset along I and J. */
typedef void ElemFn(void *elem, const int64_t g[3], bool in_box, void *ctx);

static void for_each(gt_storage *s, const int64_t off[3], const int64_t box[3], ElemFn *fn,
                     void *ctx)
{
    char *base = gt_host(s, GT_READWRITE);
    const char *axes = gt_axes(s);
    int nd = gt_ndim(s);
    const int64_t *shape = gt_shape(s), *st = gt_strides(s);
    const int64_t (*h)[2] = gt_halo(s);
    size_t size = gt_dtype_size(gt_dtype_of(s));
    int64_t ext[3] = {1, 1, 1}, idx[3];
    for (int d = 0; d < nd; d++)
        ext[d] = shape[d];
    for (idx[0] = 0; idx[0] < ext[0]; idx[0]++)
        for (idx[1] = 0; idx[1] < ext[1]; idx[1]++)
            for (idx[2] = 0; idx[2] < ext[2]; idx[2]++) {
                int64_t g[3] = {0, 0, 0}, at = 0;
                bool in_box = true;
                for (int d = 0; d < nd; d++) {
                    int a = axes[d] - 'I';
                    g[a] = idx[d] - h[d][0] + (a < 2 ? off[a] : 0);
                    if (a < 2 && (g[a] < off[a] || g[a] >= off[a] + box[a]))
                        in_box = false;
                    at += idx[d] * st[d];
                }
                fn(base + (size_t)at * size, g, in_box, ctx);
            }
}

typedef struct {
    uint64_t seed;
    int f;
    gt_dtype t;
    const int64_t *global;
    const int *wraps;
    bool local;   /* a rank's storage: the exchange's elements marked */
} Fill;

static void fill_elem(void *elem, const int64_t g0[3], bool in_box, void *ctx)
{
    const Fill *c = ctx;
    int64_t g[3] = {g0[0], g0[1], g0[2]};
    bool exchanged = true;   /* inside the global domain along I and J, or wrapped */
    for (int a = 0; a < 2; a++) {
        if (g[a] >= 0 && g[a] < c->global[a])
            continue;
        if (c->wraps[a])
            g[a] = wrap(g[a], c->global[a]);
        else
            exchanged = false;
    }
    if (c->local && !in_box && exchanged)
        mark(elem, c->t);
    else
        value(elem, c->t, c->seed, c->f, g);
}

/* The element of storage s at global position g: s one process's (off NULL) or a rank's
   whose box starts at off along I and J. */
static const void *elem_at(gt_storage *s, const int64_t *off, const int64_t g[3])
{
    const char *base = gt_host(s, GT_READ);
    const char *axes = gt_axes(s);
    const int64_t *st = gt_strides(s);
    const int64_t (*h)[2] = gt_halo(s);
    int64_t at = 0;
    for (int d = 0; d < gt_ndim(s); d++) {
        int a = axes[d] - 'I';
        at += (g[a] - (off && a < 2 ? off[a] : 0) + h[d][0]) * st[d];
    }
    return base + (size_t)at * gt_dtype_size(gt_dtype_of(s));
}

/* A pair's frame in a rank's storages: next's elements outside the global domain, along
   K or an axis the decomposition does not wrap, set to cur's at the same position (what
   gt_mpi_steps copies, as one process's S_steps does; inside the domain next keeps its
   own values). */
typedef struct {
    gt_storage *cur;
    const int64_t *off, *global;
    const int *wraps;
} Frame;

static void frame_elem(void *elem, const int64_t g[3], bool in_box, void *ctx)
{
    const Frame *c = ctx;
    bool frame = false;
    for (int a = 0; a < 3; a++)
        if ((a == 2 || !c->wraps[a]) && (g[a] < 0 || g[a] >= c->global[a]))
            frame = true;
    if (!in_box && frame)
        memcpy(elem, elem_at(c->cur, c->off, g), gt_dtype_size(gt_dtype_of(c->cur)));
}


typedef struct {
    gt_storage *ref;
    gt_dtype t;
    long mismatches;
    char first[200];
} Cmp;

static void cmp_elem(void *elem, const int64_t g[3], bool in_box, void *ctx)
{
    Cmp *c = ctx;
    if (!in_box)
        return;
    const void *r = elem_at(c->ref, NULL, g);
    size_t size = gt_dtype_size(c->t);
    if (memcmp(r, elem, size) == 0)
        return;
    if (c->t == GT_FLOAT64 && isnan(*(const double *)r) && isnan(*(double *)elem))
        return;
    if (c->t == GT_FLOAT32 && isnan(*(const float *)r) && isnan(*(float *)elem))
        return;
    if (c->mismatches++ == 0) {
        if (c->t == GT_FLOAT64)
            snprintf(c->first, sizeof c->first, "at (%lld, %lld, %lld): one process %.17g, "
                     "distributed %.17g", (long long)g[0], (long long)g[1], (long long)g[2],
                     *(const double *)r, *(double *)elem);
        else
            snprintf(c->first, sizeof c->first, "at (%lld, %lld, %lld)", (long long)g[0],
                     (long long)g[1], (long long)g[2]);
    }
}
enum { MAXF = 64 };

/* One stencil's case: its info, the halo of each field's storages (rows of its axes), the
   global domain and the axes the decomposition wraps. */
typedef struct {
    const gt_stencil_info *info;
    int nf;
    int64_t halo[MAXF][3][2];
    int64_t global[3];
    int wraps[2];
    uint64_t seed;
    double in[16];
} Case;

/* Storages of every field of c: on one process over the global domain (d NULL), or this
   rank's of decomposition d (box at off, its internal halos marked), on the device with
   device. */
static void make(const Case *c, const gt_decomp *d, const int64_t off[3], const int64_t box[3],
                 int device, gt_storage **s)
{
    for (int f = 0; f < c->nf; f++) {
        const gt_field_info *fi = &c->info->fields[f];
        gt_storage_opts o = {0};
        int64_t shape[3];
        int nd = (int)strlen(fi->axes);
        for (int dd = 0; dd < nd; dd++) {
            o.halo[dd][0] = c->halo[f][dd][0];
            o.halo[dd][1] = c->halo[f][dd][1];
            shape[dd] = c->global[fi->axes[dd] - 'I'] + o.halo[dd][0] + o.halo[dd][1];
        }
        if (device)
            o.device = GT_CUDA;
        s[f] = d ? gt_mpi_empty(d, fi->dtype, fi->axes, &o)
                 : gt_empty(fi->dtype, fi->axes, shape, &o);
        Fill fl = {c->seed, f, fi->dtype, c->global, c->wraps, d != NULL};
        for_each(s[f], off, box, fill_elem, &fl);
    }
}

/* Compares this rank's box of each field of loc (but those with skip[f]) with ref's; the
   first difference into why. */
static void compare(const Case *c, gt_storage **ref, gt_storage **loc, const int64_t off[3],
                    const int64_t box[3], const bool *skip, char *why, size_t len)
{
    for (int f = 0; f < c->nf && !why[0]; f++) {
        if (skip && skip[f])
            continue;
        Cmp cm = {ref[f], c->info->fields[f].dtype, 0, ""};
        for_each(loc[f], off, box, cmp_elem, &cm);
        if (cm.mismatches)
            snprintf(why, len, "field '%s': %ld elements differ, first %s",
                     c->info->fields[f].name, cm.mismatches, cm.first);
    }
}

/* Compares this rank's box of each field of loc (but those with skip[f]) with that of
   another local storage of the same rank, ref. */
static void compare_local(const Case *c, gt_storage **ref, gt_storage **loc, const bool *skip,
                          char *why, size_t len)
{
    for (int f = 0; f < c->nf && !why[0]; f++) {
        if (skip && skip[f])
            continue;
        size_t size = gt_dtype_size(c->info->fields[f].dtype);
        const char *a = gt_host(ref[f], GT_READ), *b = gt_host(loc[f], GT_READ);
        const int64_t *sa = gt_strides(ref[f]), *sb = gt_strides(loc[f]);
        const int64_t *shape = gt_shape(loc[f]);
        const int64_t (*h)[2] = gt_halo(loc[f]);
        int nd = gt_ndim(loc[f]);
        int64_t lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1}, idx[3];
        for (int dd = 0; dd < nd; dd++) {
            bool horizontal = c->info->fields[f].axes[dd] != 'K';
            lo[dd] = horizontal ? h[dd][0] : 0;
            hi[dd] = horizontal ? shape[dd] - h[dd][1] : shape[dd];
        }
        long bad = 0;
        for (idx[0] = lo[0]; idx[0] < hi[0]; idx[0]++)
            for (idx[1] = lo[1]; idx[1] < hi[1]; idx[1]++)
                for (idx[2] = lo[2]; idx[2] < hi[2]; idx[2]++) {
                    int64_t pa = 0, pb = 0;
                    for (int dd = 0; dd < nd; dd++)
                        pa += idx[dd] * sa[dd], pb += idx[dd] * sb[dd];
                    bad += memcmp(a + (size_t)pa * size, b + (size_t)pb * size, size) != 0;
                }
        if (bad)
            snprintf(why, len, "field '%s': %ld elements differ from gt_mpi_call per step",
                     c->info->fields[f].name, bad);
    }
}

static void release(const Case *c, gt_storage **s)
{
    for (int f = 0; f < c->nf; f++)
        gt_release(s[f]);
}

/* A global domain drawn from r on which every rank's box is at least as wide as `need`
   times the widest reach (the exchange refuses a narrower one, GT_ESHAPE; boxes differ
   by one point at most). */
static void draw_global(Case *c, uint64_t r, int64_t need)
{
    c->global[0] = 14 + (int64_t)(r % 9);
    c->global[1] = 13 + (int64_t)((r >> 8) % 9);
    c->global[2] = 3 + (int64_t)((r >> 16) % 4);
    for (int a = 0; a < 2; a++) {
        int64_t reach = 0;
        for (int f = 0; f < c->nf; f++)
            for (int side = 0; side < 2; side++)
                if (c->info->fields[f].reach[a][side] > reach)
                    reach = c->info->fields[f].reach[a][side];
        if (c->global[a] < nproc * reach * need)
            c->global[a] = nproc * reach * need + (int64_t)((r >> (24 + 4 * a)) % 3);
    }
}

typedef struct {
    const DiffStencil *s;
    gt_storage **f;
    const double *in;
    double *out;
} Call;

static int run(void *ctx, const gt_domain *dom)
{
    Call *c = ctx;
    return c->s->call(c->f, c->in, c->out, dom);
}

static int run_step(void *ctx, gt_storage *const *fields, const gt_domain *dom)
{
    Call *c = ctx;
    double out[16];
    return c->s->call((gt_storage **)fields, c->in, out, dom);
}

static bool refused_for_order(const char *msg)
{
    return strstr(msg, "after the stencil wrote it") != NULL;
}

static void status_why(int ref_rc, const char *ref_msg, int rc, char *why, size_t len)
{
    snprintf(why, len, "status: one process %d%s%.200s%s, distributed %d (%.250s)", ref_rc,
             ref_rc ? " (" : "", ref_msg, ref_rc ? ")" : "", rc, rc ? gt_last_error() : "");
}

/* Stencil x of both builds through gt_mpi_call on a global domain drawn from seed. */
static void calls(const DiffStencil *const tables[2], int x, uint64_t seed, int device,
                  const char *other)
{
    const DiffStencil *ns = &tables[0][x];
    Case c = {.info = ns->info, .nf = ns->info->nfields, .seed = seed};
    if (c.nf > MAXF)
        return;
    draw_global(&c, mix(seed * 7919u + (uint64_t)x), 1);
    c.wraps[0] = c.wraps[1] = (int)(seed & 1);
    for (int f = 0; f < c.nf; f++) {
        gt_mpi_halo(c.info, f, NULL, c.halo[f]);
        for (int a = 0; a < 2; a++)
            if (c.info->fields[f].bc[a] == 1 + GT_BC_PERIODIC)
                c.wraps[a] = 1;
    }
    for (int i = 0; i < 16; i++)
        c.in[i] = (double)(mix(seed + 31u * (uint64_t)i) % 2001) / 1000.0 - 1.0;
    /* the reference */
    gt_storage *ref[MAXF];
    const int64_t zero[3] = {0, 0, 0};
    make(&c, NULL, zero, c.global, 0, ref);
    double ref_out[16] = {0};
    gt_domain dom = {{c.global[0], c.global[1], c.global[2]}};
    int ref_rc = ns->call(ref, c.in, ref_out, &dom);
    char ref_msg[300] = "";
    if (ref_rc)
        snprintf(ref_msg, sizeof ref_msg, "%s", gt_last_error());
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, c.global, NULL, c.wraps);
    int64_t off[3], box[3];
    gt_mpi_box(d, off, box);
    int order_refusals = 0;
    for (int b = 0; b < 2; b++)
        for (int overlap = 0; overlap < 2; overlap++) {
            char name[200], why[600] = "";
            snprintf(name, sizeof name, "%s[%s] %lld x %lld x %lld, %s, %s", ns->name,
                     b ? other : "naive", (long long)c.global[0], (long long)c.global[1],
                     (long long)c.global[2], c.wraps[0] || c.wraps[1] ? "periodic" : "open",
                     overlap ? "overlapped" : "blocking");
            gt_storage *loc[MAXF];
            make(&c, d, off, box, b && device, loc);
            double out[16] = {0};
            Call call = {&tables[b][x], loc, c.in, out};
            int rc = gt_mpi_call(d, loc, c.nf, NULL, run, &call, overlap, NULL);
            /* the combined values, written where the stencil wrote its own */
            tables[b][x].outs(out);
            if (rc && refused_for_order(gt_last_error())) {
                order_refusals++;   /* both builds must refuse it alike: below */
            } else if (rc != ref_rc) {
                status_why(ref_rc, ref_msg, rc, why, sizeof why);
            } else if (!rc) {
                compare(&c, ref, loc, off, box, NULL, why, sizeof why);
                for (int o = 0; ns->out_types[o] && !why[0]; o++) {
                    double x0 = ref_out[o], y0 = out[o];
                    double tol = ns->out_types[o] == 'd'   ? 1e-12
                                 : ns->out_types[o] == 'f' ? 1e-5
                                                           : 0.0;
                    if (!(x0 == y0 || (isnan(x0) && isnan(y0)) ||
                          fabs(x0 - y0) <= tol * fmax(1.0, fmax(fabs(x0), fabs(y0)))))
                        snprintf(why, sizeof why, "out scalar %d: one process %.17g, "
                                 "distributed %.17g", o, x0, y0);
                }
            }
            report("", name, !why[0], why, sizeof why);
            release(&c, loc);
        }
    /* a refusal for the order of the computations: every call refused it, or none */
    if (order_refusals) {
        char name[200], why[200] = "";
        snprintf(name, sizeof name, "%s: refused by gt_mpi_call for reading at an offset what "
                 "an earlier computation wrote", ns->name);
        if (order_refusals != 4)
            snprintf(why, sizeof why, "by %d of the 4 calls only", order_refusals);
        report("", name, !why[0], why, sizeof why);
    }
    release(&c, ref);
    gt_mpi_decomp_release(d);
}

/* Stencil x (with iterate) of both builds through gt_mpi_steps, against one process's
   S_steps of the naive build: nsteps and tblock drawn from seed; the decomposition wraps
   the axes along which a field has a periodic boundary condition. The pairs' next fields
   (scratch) are left out of the comparison. */
static void steps(const DiffStencil *const tables[2], int x, uint64_t seed, int device,
                  const char *other)
{
    const DiffStencil *ns = &tables[0][x];
    Case c = {.info = ns->info, .nf = ns->info->nfields, .seed = seed};
    if (c.nf > MAXF || !ns->steps)
        return;
    uint64_t r = mix(seed * 104729u + (uint64_t)x);
    int tblock = 1 + (int)(r % 3);
    int64_t nsteps = (int64_t)((r >> 40) % 7);
    draw_global(&c, r, tblock);
    bool skip[MAXF] = {false};
    for (int p = 0; p < c.info->npairs; p++)
        skip[c.info->pairs[p].next] = true;
    for (int f = 0; f < c.nf; f++) {
        gt_mpi_steps_halo(c.info, f, NULL, tblock, c.halo[f]);
        for (int a = 0; a < 2; a++)
            if (c.info->fields[f].bc[a] == 1 + GT_BC_PERIODIC)
                c.wraps[a] = 1;
    }
    for (int i = 0; i < 16; i++)
        c.in[i] = (double)(mix(seed + 37u * (uint64_t)i) % 2001) / 1000.0 - 1.0;
    /* a pair's field without a periodic condition along an axis the decomposition wraps
       is exchanged across the seam as every field is (docs/mpi.md): it has no frame there,
       as it has in one process, and the reference is then nsteps gt_mpi_call's of the
       naive build with the pairs swapped (next's frame made cur's first) */
    bool per_call = false;
    for (int p = 0; p < c.info->npairs; p++)
        for (int a = 0; a < 2; a++) {
            const gt_field_info *fi = &c.info->fields[c.info->pairs[p].cur];
            if (c.wraps[a] && strchr(fi->axes, "IJ"[a]) && fi->bc[a] != 1 + GT_BC_PERIODIC)
                per_call = true;
        }
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, c.global, NULL, c.wraps);
    int64_t off[3], box[3];
    gt_mpi_box(d, off, box);
    gt_storage *ref[MAXF];
    const int64_t zero[3] = {0, 0, 0};
    gt_domain dom = {{c.global[0], c.global[1], c.global[2]}};
    int ref_rc = 0;
    if (!per_call) {
        make(&c, NULL, zero, c.global, 0, ref);
        ref_rc = ns->steps(ref, c.in, nsteps, &dom);
    } else {
        make(&c, d, off, box, 0, ref);
        gt_storage *f[MAXF];
        for (int x2 = 0; x2 < c.nf; x2++)
            f[x2] = ref[x2];
        for (int p = 0; p < c.info->npairs; p++) {
            Frame fr = {f[c.info->pairs[p].cur], off, c.global, c.wraps};
            for_each(f[c.info->pairs[p].next], off, box, frame_elem, &fr);
        }
        for (int64_t t = 0; t < nsteps && !ref_rc; t++) {
            double out[16];
            Call call = {ns, f, c.in, out};
            ref_rc = gt_mpi_call(d, f, c.nf, NULL, run, &call, 0, NULL);
            for (int p = 0; p < c.info->npairs; p++) {
                gt_storage *tmp = f[c.info->pairs[p].next];
                f[c.info->pairs[p].next] = f[c.info->pairs[p].cur];
                f[c.info->pairs[p].cur] = tmp;
            }
        }
        /* each pair's last result, where the comparison reads cur */
        for (int x2 = 0; x2 < c.nf; x2++)
            ref[x2] = f[x2];
    }
    char ref_msg[300] = "";
    if (ref_rc)
        snprintf(ref_msg, sizeof ref_msg, "%s", gt_last_error());
    for (int b = 0; b < 2; b++) {
        char name[200], why[600] = "";
        snprintf(name, sizeof name, "%s[%s] gt_mpi_steps %lld steps, tblock %d, %lld x %lld x "
                 "%lld, %s, against %s", ns->name, b ? other : "naive", (long long)nsteps,
                 tblock, (long long)c.global[0], (long long)c.global[1],
                 (long long)c.global[2], c.wraps[0] || c.wraps[1] ? "periodic" : "open",
                 per_call ? "gt_mpi_call per step" : "one process");
        gt_storage *loc[MAXF];
        make(&c, d, off, box, b && device, loc);
        Call call = {&tables[b][x], NULL, c.in, NULL};
        int rc = gt_mpi_steps(d, c.info, loc, nsteps, tblock, run_step, &call, NULL);
        if (rc == GT_EINVAL && refused_for_order(gt_last_error()))
            snprintf(name + strlen(name), sizeof name - strlen(name), ": refused for reading "
                     "beyond the point what it wrote");   /* as gt_mpi_call refuses it */
        else if (rc != ref_rc)
            status_why(ref_rc, ref_msg, rc, why, sizeof why);
        else if (!rc && per_call)
            compare_local(&c, ref, loc, skip, why, sizeof why);
        else if (!rc)
            compare(&c, ref, loc, off, box, skip, why, sizeof why);
        report("", name, !why[0], why, sizeof why);
        release(&c, loc);
    }
    release(&c, ref);
    gt_mpi_decomp_release(d);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    if (argc < 4) {
        if (rank == 0)
            fprintf(stderr, "usage: check_mpi_random NAIVE.so OTHER.so SEED [device]\n");
        MPI_Finalize();
        return 2;
    }
    int device = argc > 4 && strcmp(argv[4], "device") == 0;
    if (device)
        gt__set_device_ops(&nan_device);
    const DiffStencil *tables[2] = {diff_load(argv[1], "check_mpi_random", NULL),
                                    diff_load(argv[2], "check_mpi_random", NULL)};
    uint64_t seed = strtoull(argv[3], NULL, 10);
    for (int x = 0; tables[0][x].name; x++) {
        calls(tables, x, seed, device, device ? "cuda" : "openmp");
        steps(tables, x, seed, device, device ? "cuda" : "openmp");
    }
    MPI_Finalize();
    return failures;
}
