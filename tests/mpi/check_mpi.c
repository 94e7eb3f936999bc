/* check_mpi.c: libgtrt-mpi under mpirun (tests/mpi/run.sh runs it on 1 to 4 processes).
 *
 * Decompositions: every rank's box, gathered, tiles the global domain exactly, boxes along
 * an axis differ by at most one point, the process grid is the one asked for (or
 * MPI_Dims_create's). Halo exchanges: each storage's interior holds a function of the
 * global position, its halo a sentinel; after the exchange every halo element whose
 * global position (wrapped along periodic axes) lies in the global domain and within the
 * widths holds the function there, every other one still the sentinel; for several axes
 * orders, layouts, dtypes, widths (uneven, zero), periodicity, process grids that do not
 * divide the domain, one storage or several at once, blocking and begin/end. Errors:
 * each is answered on every rank with the code, the failing rank named, and no halo
 * written. Prints "PASS name" / "FAIL name: why" lines from rank 0 (a case fails if it
 * fails on any rank) and exits with the number of failures. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gt/gt_mpi.h>

static int rank, nproc, failures;

/* A case passes when ok holds on every rank. */
static void report(const char *name, bool ok, const char *why)
{
    int mine = ok, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!ok)
        fprintf(stderr, "rank %d: %s: %s\n", rank, name, why);
    if (rank == 0)
        printf("%s %s (np %d)%s%s\n", all ? "PASS" : "FAIL", name, nproc, all ? "" : ": ",
               all ? "" : why);
    failures += !all;
}

static double value(int64_t gi, int64_t gj, int64_t gk)
{
    return (double)(gi * 10007 + gj * 101 + gk + 1);
}

static const double SENTINEL = -12345.0;

/* the element of s at global position g (I, J, K) relative to this rank's box offset */
static void *element(gt_storage *s, const int64_t off[3], const int64_t g[3])
{
    const char *axes = gt_axes(s);
    const int64_t *st = gt_strides(s), *h = &gt_halo(s)[0][0];
    char *p = gt_host(s, GT_READWRITE);
    int64_t e = 0;
    for (int x = 0; axes[x]; x++) {
        int a = axes[x] - 'I';
        e += (g[a] - off[a] + h[2 * x]) * st[x];
    }
    return p + e * (int64_t)gt_dtype_size(gt_dtype_of(s));
}

static double get(gt_storage *s, const int64_t off[3], const int64_t g[3])
{
    void *p = element(s, off, g);
    switch (gt_dtype_of(s)) {
    case GT_FLOAT64: return *(double *)p;
    case GT_FLOAT32: return *(float *)p;
    case GT_INT32: return *(int32_t *)p;
    default: return *(bool *)p;
    }
}

static void set(gt_storage *s, const int64_t off[3], const int64_t g[3], double v)
{
    void *p = element(s, off, g);
    switch (gt_dtype_of(s)) {
    case GT_FLOAT64: *(double *)p = v; break;
    case GT_FLOAT32: *(float *)p = (float)v; break;
    case GT_INT32: *(int32_t *)p = (int32_t)v; break;
    default: *(bool *)p = v != 0; break;
    }
}

/* the value an element of dtype t holds for v (what set then get gives) */
static double as_dtype(gt_dtype t, double v)
{
    switch (t) {
    case GT_FLOAT64: return v;
    case GT_FLOAT32: return (float)v;
    case GT_INT32: return (int32_t)v;
    default: return v != 0;
    }
}

/* Calls fn for every element of s (halo included) with its global position; axes the
   storage lacks are at 0. */
typedef void ElemFn(gt_storage *s, const int64_t off[3], const int64_t g[3], bool interior,
                    void *ctx);
static void each(gt_storage *s, const int64_t off[3], ElemFn *fn, void *ctx)
{
    const char *axes = gt_axes(s);
    const int64_t *shape = gt_shape(s), *h = &gt_halo(s)[0][0];
    int nd = (int)strlen(axes);
    int64_t idx[3] = {0, 0, 0};
    for (;;) {
        int64_t g[3] = {0, 0, 0};
        bool interior = true;
        for (int x = 0; x < nd; x++) {
            int a = axes[x] - 'I';
            g[a] = idx[x] - h[2 * x] + off[a];
            interior = interior && idx[x] >= h[2 * x] && idx[x] < shape[x] - h[2 * x + 1];
        }
        fn(s, off, g, interior, ctx);
        int x = nd - 1;
        while (x >= 0 && ++idx[x] == shape[x])
            idx[x--] = 0;
        if (x < 0)
            return;
    }
}

static void fill(gt_storage *s, const int64_t off[3], const int64_t g[3], bool interior,
                 void *ctx)
{
    (void)ctx;
    set(s, off, g, interior ? value(g[0], g[1], g[2]) : SENTINEL);
}

typedef struct {
    const int64_t *global;
    const int *periodic;
    const int64_t (*w)[2];   /* widths [I/J][lo/hi] */
    const int64_t *box;
    bool has[2];
    long bad;
    char why[300];
} Expect;

/* After an exchange: a halo element within the widths whose global position (wrapped on a
   periodic axis) is inside the domain holds the value there; any other is the sentinel. */
static void verify(gt_storage *s, const int64_t off[3], const int64_t g[3], bool interior,
                   void *ctx)
{
    Expect *e = ctx;
    if (interior)
        return;
    int64_t w[3] = {g[0], g[1], g[2]};
    bool filled = true;
    for (int a = 0; a < 2; a++) {
        if (!e->has[a])
            continue;
        int64_t lo = off[a], hi = off[a] + e->box[a];
        if (g[a] < lo - e->w[a][0] || g[a] >= hi + e->w[a][1])
            filled = false;  /* beyond the widths: never written */
        if (g[a] < 0 || g[a] >= e->global[a]) {
            if (e->periodic[a])
                w[a] = (g[a] % e->global[a] + e->global[a]) % e->global[a];
            else
                filled = false;
        }
    }
    /* the K halo is not exchanged */
    const char *axes = gt_axes(s);
    for (int x = 0; axes[x]; x++)
        if (axes[x] == 'K' && (g[2] < 0 || g[2] >= e->global[2]))
            filled = false;
    double want = filled ? as_dtype(gt_dtype_of(s), value(w[0], w[1], w[2])) : SENTINEL;
    want = as_dtype(gt_dtype_of(s), want);
    double got = get(s, off, g);
    if (got != want && e->bad++ == 0)
        snprintf(e->why, sizeof e->why, "at global (%lld, %lld, %lld): %g, want %g",
                 (long long)g[0], (long long)g[1], (long long)g[2], got, want);
}

typedef struct {
    const char *axes, *layout;
    gt_dtype dtype;
    int64_t halo[2][2];    /* I, J storage halo */
    int64_t w[2][2];       /* widths */
} Field;

/* One exchange case: decomposition of global over dims (0: choose) with periodic, the
   fields exchanged at once (split: begin/end), checked on every rank. */
static void exchange_case(const char *name, const int64_t global[3], const int dims[2],
                          const int periodic[2], const Field *fields, int nf, bool split)
{
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, dims, periodic);
    if (!d) {
        report(name, false, gt_last_error());
        return;
    }
    int64_t off[3], box[3];
    gt_mpi_box(d, off, box);
    gt_storage *s[8];
    gt_halo_widths w[8];
    for (int f = 0; f < nf; f++) {
        gt_storage_opts o = {0};
        o.layout = fields[f].layout;
        const char *ax = fields[f].axes;
        for (int x = 0; ax[x]; x++) {
            int a = ax[x] - 'I';
            if (a < 2) {
                o.halo[x][0] = fields[f].halo[a][0];
                o.halo[x][1] = fields[f].halo[a][1];
            } else {
                o.halo[x][0] = o.halo[x][1] = 1;
            }
        }
        s[f] = gt_mpi_empty(d, fields[f].dtype, ax, &o);
        if (!s[f]) {
            report(name, false, gt_last_error());
            return;
        }
        each(s[f], off, fill, NULL);
        memcpy(w[f], fields[f].w, sizeof w[f]);
    }
    int rc;
    if (split) {
        gt_exchange *x = gt_halo_exchange_begin(d, s, nf, w);
        rc = x ? gt_halo_exchange_end(x) : gt_last_error_code();
    } else {
        rc = gt_halo_exchange(d, s, nf, w);
    }
    char why[400] = "";
    if (rc)
        snprintf(why, sizeof why, "exchange: %s", gt_last_error());
    for (int f = 0; f < nf && !why[0]; f++) {
        Expect e = {global, periodic, (const int64_t(*)[2])fields[f].w, box, {false, false}, 0, ""};
        for (int x = 0; fields[f].axes[x]; x++)
            if (fields[f].axes[x] != 'K')
                e.has[fields[f].axes[x] - 'I'] = true;
        each(s[f], off, verify, &e);
        if (e.bad)
            snprintf(why, sizeof why, "field %d (%s): %ld halo elements wrong; first %s", f,
                     fields[f].axes, e.bad, e.why);
    }
    report(name, !why[0], why);
    for (int f = 0; f < nf; f++)
        gt_release(s[f]);
    gt_mpi_decomp_release(d);
}

/* Decompositions tile the domain. */
static void decomposition_case(const char *name, const int64_t global[3], const int dims[2])
{
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, dims, NULL);
    if (!d) {
        report(name, false, gt_last_error());
        return;
    }
    /* every rank's box: as many as the run has (a fixed 4 overran the stack under -np 6,
       and the next case read a clobbered global size, "global size is NULL") */
    int64_t mine[6], *all = malloc(sizeof *all * 6 * (size_t)nproc);
    if (!all) {
        report(name, false, "out of memory");
        gt_mpi_decomp_release(d);
        return;
    }
    gt_mpi_box(d, mine, mine + 3);
    int grid[2];
    gt_mpi_grid(d, grid, NULL, NULL);
    MPI_Allgather(mine, 6, MPI_INT64_T, all, 6, MPI_INT64_T, MPI_COMM_WORLD);
    char why[300] = "";
    if (dims && dims[0] && (grid[0] != dims[0] || grid[1] != dims[1]))
        snprintf(why, sizeof why, "grid %d x %d, asked %d x %d", grid[0], grid[1], dims[0],
                 dims[1]);
    if (grid[0] * grid[1] != nproc)
        snprintf(why, sizeof why, "grid %d x %d for %d processes", grid[0], grid[1], nproc);
    /* every global point of the IJ plane in exactly one box; K whole; sizes within one */
    int64_t n = global[0] * global[1], covered = 0;
    int64_t minsz[2] = {INT64_MAX, INT64_MAX}, maxsz[2] = {0, 0};
    for (int r = 0; r < nproc && !why[0]; r++) {
        int64_t *b = all + 6 * r;
        if (b[2] != 0 || b[5] != global[2])
            snprintf(why, sizeof why, "rank %d: K box %lld + %lld", r, (long long)b[2],
                     (long long)b[5]);
        covered += b[3] * b[4];
        for (int a = 0; a < 2; a++) {
            minsz[a] = b[3 + a] < minsz[a] ? b[3 + a] : minsz[a];
            maxsz[a] = b[3 + a] > maxsz[a] ? b[3 + a] : maxsz[a];
        }
        for (int q = 0; q < r && !why[0]; q++) {
            int64_t *c = all + 6 * q;
            bool apart = b[0] + b[3] <= c[0] || c[0] + c[3] <= b[0] || b[1] + b[4] <= c[1] ||
                         c[1] + c[4] <= b[1];
            if (!apart)
                snprintf(why, sizeof why, "ranks %d and %d overlap", q, r);
        }
        if (b[0] < 0 || b[1] < 0 || b[0] + b[3] > global[0] || b[1] + b[4] > global[1])
            snprintf(why, sizeof why, "rank %d's box leaves the domain", r);
    }
    if (!why[0] && covered != n)
        snprintf(why, sizeof why, "boxes cover %lld points of %lld", (long long)covered,
                 (long long)n);
    for (int a = 0; a < 2 && !why[0]; a++)
        if (maxsz[a] - minsz[a] > 1)
            snprintf(why, sizeof why, "boxes along %c from %lld to %lld points", "IJ"[a],
                     (long long)minsz[a], (long long)maxsz[a]);
    report(name, !why[0], why);
    free(all);
    gt_mpi_decomp_release(d);
}

/* counts the halo elements that are not the sentinel */
static void untouched(gt_storage *s, const int64_t off[3], const int64_t g[3], bool interior,
                      void *ctx)
{
    if (!interior && get(s, off, g) != SENTINEL)
        ++*(long *)ctx;
}

/* An error: the call on every rank fails with code, every rank's message names the rank
   where it failed: itself, or else `culprit` (the lowest rank that failed; of arguments
   that differ between ranks, the lower of the two ranks named), and the halos of s (if
   any) are untouched. */
static void error_case(const char *name, int rc, int code, int culprit, gt_storage *s,
                       const int64_t off[3])
{
    char why[400] = "", mine[32], theirs[32], pair[32];
    snprintf(mine, sizeof mine, "rank %d:", rank);
    snprintf(theirs, sizeof theirs, "rank %d failed", culprit);
    snprintf(pair, sizeof pair, "ranks %d and ", culprit);
    if (rc != code)
        snprintf(why, sizeof why, "status %d, want %d (%s)", rc, code, gt_last_error());
    else if (!strstr(gt_last_error(), mine) && !strstr(gt_last_error(), theirs) &&
             !strstr(gt_last_error(), pair))
        snprintf(why, sizeof why, "message \"%s\" names neither this rank nor rank %d",
                 gt_last_error(), culprit);
    if (s && !why[0]) {
        long written = 0;
        each(s, off, untouched, &written);
        if (written)
            snprintf(why, sizeof why, "%ld halo elements were written", written);
    }
    report(name, !why[0], why);
}

static void error_cases(void)
{
    const int64_t global[3] = {13, 11, 3};
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, NULL, (const int[2]){1, 1});
    int64_t other_global[3] = {14, 11, 3};
    gt_decomp *d2 = gt_mpi_decompose(MPI_COMM_WORLD, other_global, NULL, NULL);
    if (!d || !d2) {
        report("errors: decompositions", false, gt_last_error());
        return;
    }
    int64_t off[3], off2[3];
    gt_mpi_box(d, off, NULL);
    gt_mpi_box(d2, off2, NULL);
    gt_storage_opts o = {0};
    o.halo[0][0] = o.halo[0][1] = o.halo[1][0] = o.halo[1][1] = 1;
    gt_storage *a = gt_mpi_empty(d, GT_FLOAT64, "IJK", &o);
    gt_storage *b = gt_mpi_empty(d2, GT_FLOAT64, "IJK", &o);
    each(a, off, fill, NULL);
    each(b, off2, fill, NULL);
    /* a storage of another decomposition (on ranks where the boxes differ: with one
       process along I every rank differs; the lowest failing rank is named) */
    gt_storage *ab[2] = {a, b};
    int rc = gt_halo_exchange(d, ab, 2, NULL);
    int differs = 0, first = -1;
    {
        int64_t b1[3], b2[3];
        gt_mpi_box(d, NULL, b1);
        gt_mpi_box(d2, NULL, b2);
        int mine = b1[0] != b2[0] || b1[1] != b2[1] ? rank : nproc;
        MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        differs = first < nproc;
    }
    if (differs)
        error_case("errors: storage of another decomposition (GT_ESHAPE)", rc, GT_ESHAPE, first,
                   a, off);
    /* widths beyond the halo */
    gt_halo_widths wide[1] = {{{2, 1}, {1, 1}}};
    rc = gt_halo_exchange(d, &a, 1, wide);
    error_case("errors: widths wider than the halo (GT_EHALO)", rc, GT_EHALO, 0, a, off);
    /* only the last rank passes a NULL storage: every rank fails, naming it */
    gt_storage *mine = rank == nproc - 1 ? NULL : a;
    rc = gt_halo_exchange(d, &mine, 1, NULL);
    error_case("errors: one rank's bad argument fails every rank (GT_EINVAL)", rc, GT_EINVAL,
               nproc - 1, a, off);
    /* a box narrower than the widths it must send */
    gt_storage_opts o4 = {0};
    o4.halo[0][0] = o4.halo[0][1] = o4.halo[1][0] = o4.halo[1][1] = 20;
    gt_storage *c = gt_mpi_empty(d, GT_FLOAT64, "IJK", &o4);
    rc = gt_halo_exchange(d, &c, 1, NULL);
    error_case("errors: a box narrower than the halo width (GT_ESHAPE)", rc, GT_ESHAPE, 0, NULL,
               off);
    gt_release(c);
    /* a process grid the communicator cannot have */
    gt_decomp *bad = gt_mpi_decompose(MPI_COMM_WORLD, global, (const int[2]){nproc + 1, 1}, NULL);
    error_case("errors: process grid of the wrong size (GT_EINVAL)", bad ? 0 : gt_last_error_code(),
               GT_EINVAL, 0, NULL, off);
    gt_mpi_decomp_release(bad);
    /* more processes along an axis than points */
    const int64_t thin[3] = {1, 1, 1};
    bad = gt_mpi_decompose(MPI_COMM_WORLD, thin, (const int[2]){nproc, 1}, NULL);
    if (nproc > 1)
        error_case("errors: more processes than points (GT_ESHAPE)", bad ? 0 : gt_last_error_code(),
                   GT_ESHAPE, 0, NULL, off);
    gt_mpi_decomp_release(bad);
    /* widths that differ between ranks (the messages would not match) */
    if (nproc > 1) {
        gt_halo_widths mixed[1] = {{{rank % 2, 1}, {1, 1}}};
        rc = gt_halo_exchange(d, &a, 1, mixed);
        error_case("errors: widths that differ between ranks (GT_EINVAL)", rc, GT_EINVAL, 0, a,
                   off);
    }
    /* storages sharing a buffer */
    gt_storage *twice[2] = {a, a};
    rc = gt_halo_exchange(d, twice, 2, NULL);
    error_case("errors: one storage twice (GT_EALIAS)", rc, GT_EALIAS, 0, a, off);
    gt_release(a);
    gt_release(b);
    gt_mpi_decomp_release(d);
    gt_mpi_decomp_release(d2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    const int64_t g1[3] = {13, 11, 3}, g2[3] = {9, 5, 2}, g3[3] = {32, 17, 4};
    decomposition_case("decompose: 13 x 11 x 3, grid chosen", g1, NULL);
    /* grids chosen where MPI_Dims_create's would leave a rank without a point (it splits
       2 processes 2 x 1, 3 as 3 x 1, 4 as 2 x 2, whatever the domain): refused before */
    decomposition_case("decompose: 1 x 50 x 2, grid chosen", (const int64_t[3]){1, 50, 2}, NULL);
    decomposition_case("decompose: 50 x 1 x 2, grid chosen", (const int64_t[3]){50, 1, 2}, NULL);
    decomposition_case("decompose: 2 x 50 x 2, grid chosen", (const int64_t[3]){2, 50, 2}, NULL);
    decomposition_case("decompose: 1 x 50 x 2, grid {0, 0}", (const int64_t[3]){1, 50, 2},
                       (const int[2]){0, 0});
    decomposition_case("decompose: 32 x 17 x 4, all along I", g3, (const int[2]){nproc, 1});
    decomposition_case("decompose: 32 x 17 x 4, all along J", g3, (const int[2]){1, nproc});
    static const int open[2] = {0, 0}, both[2] = {1, 1}, ionly[2] = {1, 0};
    const Field hdiff = {"IJK", NULL, GT_FLOAT64, {{2, 2}, {2, 2}}, {{2, 2}, {2, 2}}};
    const Field uneven = {"KJI", NULL, GT_FLOAT32, {{3, 1}, {0, 2}}, {{2, 1}, {0, 2}}};
    const Field plane = {"IJ", "JI", GT_INT32, {{1, 1}, {1, 1}}, {{1, 1}, {1, 1}}};
    const Field row = {"IK", NULL, GT_FLOAT64, {{1, 2}, {0, 0}}, {{1, 2}, {0, 0}}};
    const Field flags = {"JIK", "KIJ", GT_BOOL, {{1, 1}, {2, 2}}, {{1, 0}, {2, 1}}};
    const Field all5[5] = {hdiff, uneven, plane, row, flags};
    for (int p = 0; p < 3; p++) {
        const int *per = p == 0 ? open : p == 1 ? both : ionly;
        const char *pn = p == 0 ? "open" : p == 1 ? "periodic" : "periodic I";
        char name[200];
        snprintf(name, sizeof name, "exchange hdiff halo, 13 x 11 x 3, %s", pn);
        exchange_case(name, g1, NULL, per, &hdiff, 1, false);
        snprintf(name, sizeof name, "exchange 5 fields at once, 13 x 11 x 3, %s", pn);
        exchange_case(name, g1, NULL, per, all5, 5, false);
        snprintf(name, sizeof name, "exchange begin/end, 9 x 5 x 2 along I, %s", pn);
        exchange_case(name, g2, (const int[2]){nproc, 1}, per, all5, 5, true);
        snprintf(name, sizeof name, "exchange 32 x 17 x 4 along J, %s", pn);
        exchange_case(name, g3, (const int[2]){1, nproc}, per, all5, 5, p == 1);
    }
    /* the last rank along an open axis owns 1 point (2 * nproc - 1 points), fewer than the
       lower width 2, but sends only the upper width 1 down (nothing goes up past the global
       edge): taken, every halo filled (until 2026-11 refused, "this rank owns 1 point(s)
       along I, fewer than the halo width 2 it must send") */
    const Field narrow_i = {"IJK", NULL, GT_FLOAT64, {{2, 1}, {1, 1}}, {{2, 1}, {1, 1}}};
    const Field narrow_j = {"JIK", NULL, GT_INT32, {{1, 1}, {2, 1}}, {{1, 1}, {2, 1}}};
    const int64_t gi[3] = {2 * nproc - 1, 5, 2}, gj[3] = {4, 2 * nproc - 1, 2};
    for (int split = 0; split < 2; split++) {
        char name[200];
        snprintf(name, sizeof name, "exchange %d x 5 x 2 along I, open, last box 1 wide, "
                 "widths 2 below and 1 above%s", 2 * nproc - 1, split ? ", begin/end" : "");
        exchange_case(name, gi, (const int[2]){nproc, 1}, open, &narrow_i, 1, split);
        snprintf(name, sizeof name, "exchange 4 x %d x 2 along J, open, last box 1 wide, "
                 "widths 2 below and 1 above%s", 2 * nproc - 1, split ? ", begin/end" : "");
        exchange_case(name, gj, (const int[2]){1, nproc}, open, &narrow_j, 1, split);
    }
    error_cases();
    MPI_Finalize();
    return failures;
}
