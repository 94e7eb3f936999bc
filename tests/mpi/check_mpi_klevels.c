/* check_mpi_klevels.c: reads at run-time K levels in distributed calls (gt_mpi_call), under
 * mpirun (tests/mpi/run.sh: 1 to 4 processes), on the stencils of tests/mpi/klevels.stn
 * from the openmp, naive and cuda backends (cuda on the SIMT emulator, storages on its
 * fake device), blocking and overlapped, the domain split along I (so that rank 0's last
 * column borders rank 1).
 *
 * Inputs are functions of the global position (their halos on the global edges too; the
 * halos the exchange fills hold a stale value first). A call whose levels all lie in the
 * storages must give, on every rank, what plain loops over the global functions give
 * (the out scalar within 1e-12 of the sum of magnitudes: it is added in another order).
 * A call with one level outside a storage at one global point must fail on every rank
 * with GT_ESHAPE, the owner's message naming the stencil, the field, the level and the
 * point (global), the others' naming the owner, and every output of every rank (halos
 * included) and the out scalar byte for byte as they were:
 *   - kpoint (levels from inputs at the point): checked in the checking call, before any
 *     rank computes (before, the other ranks had written their outputs, and overlapped,
 *     the failing rank its inner box);
 *   - khalo (a level from m[i-1]): the stale halo value is in range, the exchanged one
 *     (rank 0's last column) is not; and the other way round, which must succeed: the
 *     levels are checked after the exchange, before any part;
 *   - kmap (levels from a while loop's accumulator, checked as they are read): a target
 *     above the column, in a rank's last column (a strip, computed after the inner box
 *     when overlapped) or inside its inner box.
 * Prints PASS/FAIL lines from rank 0; exits with the number of failures. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the three builds' headers before <gt/gt_mpi.h>: the -D-renamed ones would declare the
   distributed entries (kpoint_mpi, ...) a second time; this test calls gt_mpi_call */
#include "klevels.h"
#define kpoint kpoint_naive
#define kpoint_info kpoint_naive_info
#define khalo khalo_naive
#define khalo_info khalo_naive_info
#define kmap kmap_naive
#define kmap_info kmap_naive_info
#include "klevels_naive.h"
#undef kpoint
#undef kpoint_info
#undef khalo
#undef khalo_info
#undef kmap
#undef kmap_info
#define kpoint kpoint_cuda
#define kpoint_info kpoint_cuda_info
#define khalo khalo_cuda
#define khalo_info khalo_cuda_info
#define kmap kmap_cuda
#define kmap_info kmap_cuda_info
#include "klevels_cuda.h"
#undef kpoint
#undef kpoint_info
#undef khalo
#undef khalo_info
#undef kmap
#undef kmap_info

#include <gt/gt_mpi.h>

/* the fake device of the cuda build: host memory that starts as NaN (tests/diff) */
#include "nan_device.h"
#include "set_all.h"

enum { GI = 13, GJ = 11, NK = 6 };
static const int64_t global[3] = {GI, GJ, NK};
static const char *const backends[3] = {"openmp", "naive", "cuda"};
static int rank, nproc, failures;

#include "report.h"

/* ---- inputs as functions of the global position -------------------------------------- */

static double PE(int64_t gi, int64_t gj, int64_t k) { return 0.5 * k + 0.01 * gi - 0.02 * gj; }
static double W(int64_t gi, int64_t gj, int64_t k) { return sin(0.3 * gi + 0.2 * gj) + k; }
static int LEV(int64_t gi, int64_t gj, int64_t k)
{
    return (int)(((gi * 7 + gj * 3 + k) % 3 + 3) % 3) - 1;   /* -1, 0 or 1 */
}
/* source interfaces rising by 0.6 to 1.4 a level; targets in [PE1(0), PE1(NK - 1)) */
static double PE1(int64_t gi, int64_t gj, int64_t k)
{
    return (double)k + 0.4 * sin(1.3 * (double)k + 0.7 * (double)gi + 0.3 * (double)gj) -
           0.4 * sin(0.7 * (double)gi + 0.3 * (double)gj);
}
static double Q1(int64_t gi, int64_t gj, int64_t k) { return cos(0.2 * gi - 0.1 * gj + 0.5 * k); }
static double PE2(int64_t gi, int64_t gj, int64_t k)
{
    (void)gi, (void)gj;
    return ((double)NK - 1.8) * ((double)k + 0.5) / (double)NK;
}

/* Where a test puts a value of its own: one global point of one field. */
typedef struct {
    int field;           /* -1: none */
    int64_t g[3];
    double value;
    double stale;        /* the int field's internal halos before the exchange */
} Poke;

/* Fills storage s (double or int) with fn at the global positions; the halo elements
   inside the domain but outside this rank's box (the exchange fills them) with stale
   (NaN for doubles unless the poke says). */
static void fill(gt_storage *s, const int64_t off[3], double (*fn)(int64_t, int64_t, int64_t),
                 int (*ifn)(int64_t, int64_t, int64_t), double stale)
{
    const int64_t *shape = gt_shape(s), *st = gt_strides(s);
    const int64_t (*h)[2] = gt_halo(s);
    void *p = gt_host(s, GT_WRITE);
    for (int64_t k = 0; k < shape[2]; k++)
        for (int64_t j = 0; j < shape[1]; j++)
            for (int64_t i = 0; i < shape[0]; i++) {
                int64_t g[3] = {i - h[0][0] + off[0], j - h[1][0] + off[1], k - h[2][0]};
                bool in_box = i >= h[0][0] && i < shape[0] - h[0][1] && j >= h[1][0] &&
                              j < shape[1] - h[1][1];
                bool inside = g[0] >= 0 && g[0] < GI && g[1] >= 0 && g[1] < GJ;
                double v = ifn ? (double)ifn(g[0], g[1], g[2]) : fn(g[0], g[1], g[2]);
                if (!in_box && inside)
                    v = stale;
                int64_t e = i * st[0] + j * st[1] + k * st[2];
                if (ifn)
                    ((int32_t *)p)[e] = (int32_t)v;
                else
                    ((double *)p)[e] = v;
            }
}

/* Sets the element at global position g of s (if this rank holds it in its box). */
static void poke(gt_storage *s, const int64_t off[3], const int64_t box[3], const int64_t g[3],
                 double v)
{
    for (int a = 0; a < 2; a++)
        if (g[a] < off[a] || g[a] >= off[a] + box[a])
            return;
    const int64_t *st = gt_strides(s);
    const int64_t (*h)[2] = gt_halo(s);
    void *p = gt_host(s, GT_READWRITE);
    int64_t e = (g[0] - off[0] + h[0][0]) * st[0] + (g[1] - off[1] + h[1][0]) * st[1] +
                (g[2] + h[2][0]) * st[2];
    if (gt_dtype_of(s) == GT_INT32)
        ((int32_t *)p)[e] = (int32_t)v;
    else
        ((double *)p)[e] = v;
}

/* ---- the calls ---------------------------------------------------------------------------- */

typedef struct {
    int backend, which;   /* which: 0 kpoint, 1 khalo, 2 kmap */
    gt_storage *f[6];
    double total;
} Call;

static int run(void *ctx, const gt_domain *dom)
{
    Call *c = ctx;
    gt_storage **f = c->f;
    static int (*const point[3])(gt_storage *, gt_storage *, gt_storage *, gt_storage *,
                                 const gt_domain *) = {kpoint, kpoint_naive, kpoint_cuda};
    static int (*const halo[3])(gt_storage *, gt_storage *, gt_storage *, const gt_domain *) = {
        khalo, khalo_naive, khalo_cuda};
    static int (*const map[3])(gt_storage *, gt_storage *, gt_storage *, gt_storage *,
                               gt_storage *, double *, const gt_domain *) = {kmap, kmap_naive,
                                                                             kmap_cuda};
    switch (c->which) {
    case 0: return point[c->backend](f[0], f[1], f[2], f[3], dom);
    case 1: return halo[c->backend](f[0], f[1], f[2], dom);
    default: return map[c->backend](f[0], f[1], f[2], f[3], f[4], &c->total, dom);
    }
}

static const int nfields[3] = {4, 3, 5};
static const int noutputs[3] = {1, 1, 2};   /* the last ones */

/* The storages of stencil which on decomposition d: halo 1 along I and J, K halos where the
   stencil reads beyond the column (pe: a level each side; pe1, q1: one above). */
static void make(Call *c, const gt_decomp *d, const int64_t off[3], double stale)
{
    static const int64_t khalo[3][5][2] = {
        {{1, 1}, {0, 0}, {0, 0}, {0, 0}},
        {{1, 1}, {0, 0}, {0, 0}},
        {{0, 1}, {0, 1}, {0, 0}, {0, 0}, {0, 0}},
    };
    for (int f = 0; f < nfields[c->which]; f++) {
        bool ints = (c->which < 2 && f == 1) || (c->which == 2 && f == 4);
        gt_storage_opts o = {0};
        o.device = c->backend == 2 ? GT_CUDA : GT_HOST;
        o.halo[0][0] = o.halo[0][1] = o.halo[1][0] = o.halo[1][1] = 1;
        o.halo[2][0] = khalo[c->which][f][0];
        o.halo[2][1] = khalo[c->which][f][1];
        c->f[f] = gt_mpi_zeros(d, ints ? GT_INT32 : GT_FLOAT64, "IJK", &o);
    }
    gt_storage **s = c->f;
    if (c->which == 0) {
        fill(s[0], off, PE, NULL, NAN);
        fill(s[1], off, NULL, LEV, stale);
        fill(s[2], off, W, NULL, NAN);
    } else if (c->which == 1) {
        fill(s[0], off, PE, NULL, NAN);
        fill(s[1], off, NULL, LEV, stale);
    } else {
        fill(s[0], off, PE1, NULL, NAN);
        fill(s[1], off, Q1, NULL, NAN);
        fill(s[2], off, PE2, NULL, NAN);
    }
    /* the outputs (halos too) hold 7 */
    for (int f = nfields[c->which] - noutputs[c->which]; f < nfields[c->which]; f++)
        set_all(s[f], 7.0);
    c->total = -1.0;
}

/* Every element of s (halo included), in storage index order, into a malloc'd buffer of
   *n bytes. */
static unsigned char *snapshot(gt_storage *s, size_t *n)
{
    const int64_t *shape = gt_shape(s), *st = gt_strides(s);
    size_t es = gt_dtype_size(gt_dtype_of(s));
    *n = (size_t)(shape[0] * shape[1] * shape[2]) * es;
    unsigned char *b = malloc(*n), *at = b;
    const unsigned char *p = gt_host(s, GT_READ);
    for (int64_t k = 0; k < shape[2]; k++)
        for (int64_t j = 0; j < shape[1]; j++)
            for (int64_t i = 0; i < shape[0]; i++, at += es)
                memcpy(at, p + (size_t)(i * st[0] + j * st[1] + k * st[2]) * es, es);
    return b;
}

static double field_at(gt_storage *s, const int64_t off[3], int64_t gi, int64_t gj, int64_t k)
{
    const int64_t *st = gt_strides(s);
    const int64_t (*h)[2] = gt_halo(s);
    const void *p = gt_host(s, GT_READ);
    int64_t e = (gi - off[0] + h[0][0]) * st[0] + (gj - off[1] + h[1][0]) * st[1] +
                (k + h[2][0]) * st[2];
    return gt_dtype_of(s) == GT_INT32 ? (double)((const int32_t *)p)[e] : ((const double *)p)[e];
}

/* The outputs of a successful call against plain loops over the global functions. */
static void compare(Call *c, const int64_t off[3], const int64_t box[3], const Poke *pk,
                    char *why, size_t len)
{
    double sum = 0, mag = 0;
    for (int64_t gi = off[0]; gi < off[0] + box[0] && !why[0]; gi++)
        for (int64_t gj = off[1]; gj < off[1] + box[1] && !why[0]; gj++) {
            int64_t kk = 0;
            for (int64_t k = 0; k < NK && !why[0]; k++) {
                double want[2];
                if (c->which == 0) {
                    want[0] = PE(gi, gj, k + LEV(gi, gj, k)) + 0.25 * W(gi + 1, gj, k);
                } else if (c->which == 1) {
                    /* m(gi - 1) as exchanged (or the poked value where it was poked) */
                    int lev = LEV(gi - 1, gj, k);
                    if (pk->field == 1 && pk->g[0] == gi - 1 && pk->g[1] == gj && pk->g[2] == k)
                        lev = (int)pk->value;
                    want[0] = PE(gi, gj, k + lev);
                } else {
                    while (PE1(gi, gj, kk + 1) < PE2(gi, gj, k))
                        kk++;
                    want[0] = Q1(gi, gj, kk) + 0.25 * PE2(gi + 1, gj, k);
                    want[1] = (double)kk;
                    sum += want[0];
                    mag += fabs(want[0]);
                }
                int first = nfields[c->which] - noutputs[c->which];
                for (int o = 0; o < noutputs[c->which]; o++) {
                    double got = field_at(c->f[first + o], off, gi, gj, k);
                    if (memcmp(&got, &want[o], sizeof got) != 0)
                        snprintf(why, len, "rank %d: output %d at (%lld, %lld, %lld) is %.17g, "
                                 "the loops give %.17g", rank, o, (long long)gi, (long long)gj,
                                 (long long)k, got, want[o]);
                }
            }
        }
    if (c->which == 2) {
        double both[2] = {sum, mag}, all[2];
        MPI_Allreduce(both, all, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (!why[0] && !(fabs(c->total - all[0]) <= 1e-12 * all[1]))
            snprintf(why, len, "rank %d: total %.17g, the loops give %.17g", rank, c->total,
                     all[0]);
    }
}

/* The rank that owns global column gi (the grid is P x 1). */
static int owner(const gt_decomp *d, int64_t gi)
{
    int64_t off[3], box[3];
    gt_mpi_box(d, off, box);
    int mine = gi >= off[0] && gi < off[0] + box[0] ? rank : nproc, who = 0;
    MPI_Allreduce(&mine, &who, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return who;
}

/* One call of stencil which on backend, blocking or overlapped, with pk applied: refused
   (expect: the owner's message; fail_at: the global column whose rank fails) or
   compared with the loops. */
static void one_case(int backend, int which, bool overlap, const char *what, const Poke *pk,
                     const char *expect, int64_t fail_at)
{
    static const char *const names[3] = {"kpoint", "khalo", "kmap"};
    char name[300], why[400] = "";
    snprintf(name, sizeof name, "%s (%s) %s, %s", names[which], backends[backend], what,
             overlap ? "overlapped" : "blocking");
    const int dims[2] = {nproc, 1}, open[2] = {0, 0};
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, dims, open);
    int64_t off[3], box[3];
    gt_mpi_box(d, off, box);
    Call c = {backend, which, {NULL}, 0};
    make(&c, d, off, pk->stale);
    if (pk->field >= 0)
        poke(c.f[pk->field], off, box, pk->g, pk->value);
    int nf = nfields[which], first = nf - noutputs[which];
    unsigned char *before[2] = {NULL, NULL};
    size_t bytes[2] = {0, 0};
    for (int o = 0; o < noutputs[which]; o++)
        before[o] = snapshot(c.f[first + o], &bytes[o]);
    int rc = gt_mpi_call(d, c.f, nf, NULL, run, &c, overlap, NULL);
    if (!expect) {
        if (rc != 0)
            snprintf(why, sizeof why, "rank %d: gt_mpi_call: %s", rank, gt_last_error());
        else
            compare(&c, off, box, pk, why, sizeof why);
    } else {
        int failing = owner(d, fail_at);
        char other[80];
        snprintf(other, sizeof other, "rank %d failed", failing);
        const char *want = rank == failing ? expect : other;
        if (rc != GT_ESHAPE)
            snprintf(why, sizeof why, "rank %d: returned %d (%s), want GT_ESHAPE", rank, rc,
                     gt_last_error());
        else if (!strstr(gt_last_error(), want))
            snprintf(why, sizeof why, "rank %d: message \"%s\" lacks \"%s\"", rank,
                     gt_last_error(), want);
        for (int o = 0; o < noutputs[which] && !why[0]; o++) {
            size_t n;
            unsigned char *after = snapshot(c.f[first + o], &n);
            size_t at = 0;
            while (at < n && after[at] == before[o][at])
                at++;
            if (n != bytes[o] || at < n)
                snprintf(why, sizeof why, "rank %d: output %d was written (byte %zu of %zu)",
                         rank, o, at, n);
            free(after);
        }
        if (!why[0] && c.total != -1.0)
            snprintf(why, sizeof why, "rank %d: the out scalar was written: %g", rank, c.total);
    }
    report("", name, !why[0], why, sizeof why);
    for (int o = 0; o < 2; o++)
        free(before[o]);
    for (int f = 0; f < nf; f++)
        gt_release(c.f[f]);
    gt_mpi_decomp_release(d);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    gt__set_device_ops(&nan_device);
    /* rank 0's last column (the global column before rank 1's first; one process: a
       column in the middle) */
    int64_t last0;
    {
        const int dims[2] = {nproc, 1}, open[2] = {0, 0};
        gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, dims, open);
        int64_t off[3], box[3];
        gt_mpi_box(d, off, box);
        last0 = nproc > 1 ? box[0] - 1 : GI / 2;
        MPI_Bcast(&last0, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
        gt_mpi_decomp_release(d);
    }
    const int64_t mid = GI - 2;   /* inside the last rank's box, away from its edges */
    /* (the failing rank's message is "stencil 'kpoint': rank R: 'pe' read ...", the others'
       "rank R failed (...)": the texts below hold in both) */
    char text[200];
    for (int backend = 0; backend < 3; backend++)
        for (int ov = 0; ov < 2; ov++) {
            const Poke none = {-1, {0, 0, 0}, 0, 0};
            one_case(backend, 0, ov, "levels in range", &none, NULL, 0);
            /* n = 5 at level 2: pe at level 7, above its levels -1 to 6 */
            Poke bad = {1, {mid, 4, 2}, 5, 0};
            snprintf(text, sizeof text, "'pe' read at level 7 at (%lld, 4, 2), "
                     "outside the levels -1 to 6", (long long)mid);
            one_case(backend, 0, ov, "a level past the column", &bad, text, mid);
            Poke lowest = {1, {0, 0, 0}, -2, 0};
            one_case(backend, 0, ov, "a level below the column at the first point", &lowest,
                     "'pe' read at level -2 at (0, 0, 0)", 0);

            one_case(backend, 1, ov, "levels in range", &none, NULL, 0);
            /* m = 5 in rank 0's last column: read through rank 1's halo (stale: 0) */
            Poke across = {1, {last0, 3, 2}, 5, 0};
            snprintf(text, sizeof text, "'pe' read at level 7 at (%lld, 3, 2)",
                     (long long)(last0 + 1));
            one_case(backend, 1, ov, "an exchanged level past the column", &across, text,
                     last0 + 1);
            /* the stale halo value (9) is past the column, the exchanged one is not */
            Poke stale = {-1, {0, 0, 0}, 0, 9};
            one_case(backend, 1, ov, "a stale halo past the column", &stale, NULL, 0);

            one_case(backend, 2, ov, "levels in range", &none, NULL, 0);
            Poke strip = {2, {last0, 5, 3}, 100, 0};
            snprintf(text, sizeof text, "'pe1' read at level 7 at (%lld, 5, 3), "
                     "outside the levels 0 to 6", (long long)last0);
            one_case(backend, 2, ov, "a target above the column in a last column", &strip,
                     text, last0);
            Poke inner = {2, {mid, 6, 1}, 100, 0};
            snprintf(text, sizeof text, "'pe1' read at level 7 at (%lld, 6, 1)", (long long)mid);
            one_case(backend, 2, ov, "a target above the column inside a box", &inner, text,
                     mid);
        }
    MPI_Finalize();
    return failures;
}
