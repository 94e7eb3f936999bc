/* check_mpi_steps.c: gt_mpi_steps (docs/mpi.md, "Time steps") through the generated entries
 * S_steps_mpi of tests/mpi/steps.stn (gtcc -b openmp), on the ranks of MPI_COMM_WORLD,
 * against one process: rank 0 runs S_steps, and nsteps single calls of S with the pairs
 * swapped, on global storages; every rank runs S_steps_mpi on its box; each pair's cur is
 * gathered and compared bit for bit. Every boundary kind (dirichlet, neumann, mirror,
 * periodic on a periodic decomposition, none: the frame), two pairs, a read-only field, a
 * step that keeps next's values and reads them (skp: a pair's next holds its own values in
 * the domain, cur's in the frame), nsteps 0, 1, 2, T - 1, T, T + 1, odd and larger, T given
 * and the default. Then the
 * refusals: a halo too small (on one rank only), nsteps < 0, a next storage wider than the
 * box (on one rank only), a bad field for gt_mpi_steps_halo, nsteps differing between ranks,
 * and snx (an output that a later computation reads at offsets) on more than one rank, past
 * whose inner edges that read would find old values (S_steps_mpi and S_mpi): the same code
 * on every rank and nothing written; on one rank snx runs and matches. src reads its
 * read-only field further than its pair: on boxes of 5 points the default tblock must
 * take what that field allows, and a larger tblock must be refused naming it. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gt/gt_mpi.h>

#include "steps.h"

static int rank, nproc, failures;

#include "report.h"

enum { NS = 9 };
static const char *const names[NS] = {"sdi (dirichlet)", "sne (neumann)", "smi (mirror)",
                                      "spe (periodic)", "sfr (frame)", "swe (two pairs)",
                                      "skp (keeps next's values)",
                                      "snx (an output read at offsets)",
                                      "src (a read-only field read further than the pair)"};
static const gt_stencil_info *const infos[NS] = {&sdi_info, &sne_info, &smi_info, &spe_info,
                                                 &sfr_info, &swe_info, &skp_info, &snx_info,
                                                 &src_info};

static double input(int f, int64_t gi, int64_t gj)
{
    return sin(0.37 * (double)gi + 0.9 * (double)f) * cos(0.23 * (double)gj + 0.1 * f) +
           (f == 2 || f == 4 ? 1.5 : 0.0);
}

/* Fills IJ storage s with input f at global positions offset + local (wrapped on a periodic
   axis), with input fo outside the global domain (the frame, where a pair's next holds what
   its cur holds: language.md 11); positions inside the global domain (or wrapped) but
   outside this rank's box NaN when nan: only the exchange may fill them. */
static void fill(gt_storage *s, int f, int fo, const int64_t off[2], const int64_t global[2],
                 const int periodic[2], bool nan)
{
    const int64_t *shape = gt_shape(s), *st = gt_strides(s);
    const int64_t (*h)[2] = gt_halo(s);
    double *p = gt_host(s, GT_WRITE);
    for (int64_t j = 0; j < shape[1]; j++)
        for (int64_t i = 0; i < shape[0]; i++) {
            int64_t g[2] = {i - h[0][0] + off[0], j - h[1][0] + off[1]};
            bool in_box = i >= h[0][0] && i < shape[0] - h[0][1] && j >= h[1][0] &&
                          j < shape[1] - h[1][1];
            bool exchanged = true;
            for (int a = 0; a < 2; a++) {
                if (g[a] >= 0 && g[a] < global[a])
                    continue;
                if (periodic[a])
                    g[a] = (g[a] % global[a] + global[a]) % global[a];
                else
                    exchanged = false;
            }
            p[i * st[0] + j * st[1]] = nan && !in_box && exchanged ? NAN
                                       : input(exchanged ? f : fo, g[0], g[1]);
        }
}

/* The input of field f's frame: its own, or for a pair's next, its cur's. */
static int frame_of(const gt_stencil_info *info, int f)
{
    for (int p = 0; p < info->npairs; p++)
        if (info->pairs[p].next == f)
            return info->pairs[p].cur;
    return f;
}

/* The stencil's fields (in parameter order) and scalar. */
static int nfields(int w)
{
    return w == 5 || w == 7 ? 5 : 3;
}

static int call_steps(int w, gt_storage **f, int64_t n, const gt_domain *dom)
{
    switch (w) {
    case 0: return sdi_steps(f[0], f[1], f[2], 0.05, n, dom);
    case 1: return sne_steps(f[0], f[1], f[2], 0.05, n, dom);
    case 2: return smi_steps(f[0], f[1], f[2], 0.05, n, dom);
    case 3: return spe_steps(f[0], f[1], f[2], 0.05, n, dom);
    case 4: return sfr_steps(f[0], f[1], f[2], 0.05, n, dom);
    case 5: return swe_steps(f[0], f[1], f[2], f[3], f[4], 0.1, n, dom);
    case 6: return skp_steps(f[0], f[1], f[2], 0.05, n, dom);
    case 8: return src_steps(f[0], f[1], f[2], 0.05, n, dom);
    default: return snx_steps(f[0], f[1], f[2], f[3], f[4], 0.1, n, dom);
    }
}

static int call_one(int w, gt_storage **f, const gt_domain *dom)
{
    switch (w) {
    case 0: return sdi(f[0], f[1], f[2], 0.05, dom);
    case 1: return sne(f[0], f[1], f[2], 0.05, dom);
    case 2: return smi(f[0], f[1], f[2], 0.05, dom);
    case 3: return spe(f[0], f[1], f[2], 0.05, dom);
    case 4: return sfr(f[0], f[1], f[2], 0.05, dom);
    case 5: return swe(f[0], f[1], f[2], f[3], f[4], 0.1, dom);
    case 6: return skp(f[0], f[1], f[2], 0.05, dom);
    case 8: return src(f[0], f[1], f[2], 0.05, dom);
    default: return snx(f[0], f[1], f[2], f[3], f[4], 0.1, dom);
    }
}

static int call_mpi(int w, const gt_decomp *d, gt_storage **f, int64_t n, int t)
{
    switch (w) {
    case 0: return sdi_steps_mpi(d, f[0], f[1], f[2], 0.05, n, t, NULL);
    case 1: return sne_steps_mpi(d, f[0], f[1], f[2], 0.05, n, t, NULL);
    case 2: return smi_steps_mpi(d, f[0], f[1], f[2], 0.05, n, t, NULL);
    case 3: return spe_steps_mpi(d, f[0], f[1], f[2], 0.05, n, t, NULL);
    case 4: return sfr_steps_mpi(d, f[0], f[1], f[2], 0.05, n, t, NULL);
    case 5: return swe_steps_mpi(d, f[0], f[1], f[2], f[3], f[4], 0.1, n, t, NULL);
    case 6: return skp_steps_mpi(d, f[0], f[1], f[2], 0.05, n, t, NULL);
    case 8: return src_steps_mpi(d, f[0], f[1], f[2], 0.05, n, t, NULL);
    default: return snx_steps_mpi(d, f[0], f[1], f[2], f[3], f[4], 0.1, n, t, NULL);
    }
}

static void swap_pairs(const gt_stencil_info *info, gt_storage **f)
{
    for (int p = 0; p < info->npairs; p++) {
        gt_storage *t = f[info->pairs[p].next];
        f[info->pairs[p].next] = f[info->pairs[p].cur];
        f[info->pairs[p].cur] = t;
    }
}

/* The bits of the interior of s into buf (global NI x NJ, I fastest) at offset off. */
static void put(gt_storage *s, uint64_t *buf, const int64_t off[2], const int64_t global[2])
{
    const int64_t *shape = gt_shape(s), *st = gt_strides(s);
    const int64_t (*h)[2] = gt_halo(s);
    const double *p = gt_host(s, GT_READ);
    for (int64_t j = h[1][0]; j < shape[1] - h[1][1]; j++)
        for (int64_t i = h[0][0]; i < shape[0] - h[0][1]; i++)
            memcpy(&buf[(j - h[1][0] + off[1]) * global[0] + i - h[0][0] + off[0]],
                   &p[i * st[0] + j * st[1]], 8);
}

/* The whole buffer of s (halos too), for "nothing written". */
static size_t whole(gt_storage *s, unsigned char *out)
{
    const int64_t *shape = gt_shape(s);
    size_t n = (size_t)(shape[0] * shape[1]) * 8;
    if (out)
        memcpy(out, gt_host(s, GT_READ), n);
    return n;
}

static gt_storage *local(const gt_decomp *d, const gt_stencil_info *info, int f, int t)
{
    gt_storage_opts o = {0};
    if (gt_mpi_steps_halo(info, f, "IJ", t, o.halo) != 0)
        return NULL;
    return gt_mpi_zeros(d, GT_FLOAT64, "IJ", &o);
}

/* One case: stencil w, nsteps n, tblock t (0: default; the storages' halos for tmake
   steps), on a decomposition of global with dims. */
static void steps_case(int w, const int64_t global[2], const int dims[2], int64_t n, int t,
                       int tmake)
{
    char name[200], why[600] = "";
    const gt_stencil_info *info = infos[w];
    const int per[2] = {w == 3, w == 3};
    snprintf(name, sizeof name, "%s %lld steps, tblock %d (halos for %d), %lld x %lld", names[w],
             (long long)n, t, tmake, (long long)global[0], (long long)global[1]);
    int nf = nfields(w);
    size_t cells = (size_t)(global[0] * global[1]);
    uint64_t *ref = calloc(2 * cells, 8), *single = calloc(2 * cells, 8), *got = calloc(cells, 8),
             *mine = calloc(cells, 8);
    const int64_t zero[2] = {0, 0};
    /* one process (rank 0): S_steps, and n single calls with the pairs swapped */
    if (rank == 0) {
        gt_storage *g[5], *s[5];
        const int64_t size[3] = {global[0], global[1], 1};
        for (int f = 0; f < nf; f++) {
            gt_storage_opts o = {0};
            gt_mpi_steps_halo(info, f, "IJ", tmake, o.halo);
            int64_t shape[2] = {global[0] + o.halo[0][0] + o.halo[0][1],
                                global[1] + o.halo[1][0] + o.halo[1][1]};
            g[f] = gt_zeros(GT_FLOAT64, "IJ", shape, &o);
            s[f] = gt_zeros(GT_FLOAT64, "IJ", shape, &o);
            fill(g[f], f, frame_of(info, f), zero, global, per, false);
            fill(s[f], f, frame_of(info, f), zero, global, per, false);
        }
        gt_domain dom = {{size[0], size[1], 1}};
        if (call_steps(w, g, n, &dom) != 0)
            snprintf(why, sizeof why, "S_steps: %s", gt_last_error());
        gt_storage *r[5];
        memcpy(r, s, sizeof r);
        for (int64_t k = 0; k < n && !why[0]; k++) {
            if (call_one(w, r, &dom) != 0)
                snprintf(why, sizeof why, "single call: %s", gt_last_error());
            swap_pairs(info, r);
        }
        for (int p = 0; p < info->npairs && !why[0]; p++) {
            put(g[info->pairs[p].cur], ref + p * cells, zero, global);
            put(r[info->pairs[p].cur], single + p * cells, zero, global);
            if (memcmp(ref + p * cells, single + p * cells, cells * 8))
                snprintf(why, sizeof why, "S_steps and single calls differ (pair %d)", p);
        }
        for (int f = 0; f < nf; f++)
            gt_release(g[f]), gt_release(s[f]);
    }
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, (const int64_t[3]){global[0], global[1], 1},
                                    dims, per);
    gt_storage *l[5] = {0};
    int64_t off[3];
    gt_mpi_box(d, off, NULL);
    for (int f = 0; f < nf; f++) {
        l[f] = local(d, info, f, tmake);
        fill(l[f], f, frame_of(info, f), off, global, per, true);
    }
    int rc = call_mpi(w, d, l, n, t);
    if (rc != 0 && !why[0])
        snprintf(why, sizeof why, "S_steps_mpi: %s", gt_last_error());
    for (int p = 0; p < info->npairs && rc == 0; p++) {
        memset(mine, 0, cells * 8);
        put(l[info->pairs[p].cur], mine, off, global);
        MPI_Reduce(mine, got, (int)cells, MPI_UINT64_T, MPI_BOR, 0, MPI_COMM_WORLD);
        if (rank == 0 && !why[0]) {
            size_t diff = 0, first = 0;
            for (size_t c = 0; c < cells; c++)
                if (got[c] != ref[p * cells + c] && !diff++)
                    first = c;
            if (diff)
                snprintf(why, sizeof why, "pair %d: %zu point(s) differ from one process, "
                         "first (%zu, %zu)", p, diff, first % (size_t)global[0],
                         first / (size_t)global[0]);
        }
    }
    for (int f = 0; f < nf; f++)
        gt_release(l[f]);
    gt_mpi_decomp_release(d);
    report("steps ", name, !why[0], why, sizeof why);
    free(ref), free(single), free(got), free(mine);
}

/* A refusal: every rank returns code, and no storage changed. mode 0: the last rank's u
   has a halo for one step fewer than tblock; 1: nsteps -1; 2: nsteps differs on rank 0;
   5: the last rank's un (next, which no exchange takes) is a storage one point wider along I
   than its box (gt_mpi_steps ran with it, writing it, where gt_mpi_call refuses it); 6: the
   scalar a differs on the last rank (each rank stepped with its own a). */
static void refusal(int mode, int code)
{
    static const char *const what[7] = {
        "a halo too small (last rank)", "nsteps < 0", "nsteps differs between ranks",
        "an output read at offsets past an inner edge (snx_steps_mpi)",
        "an output read at offsets past an inner edge (snx_mpi)",
        "a next storage wider than the box (last rank)", "the scalar a differs (last rank)"};
    char name[120], why[600] = "";
    snprintf(name, sizeof name, "refused: %s", what[mode]);
    const int64_t global[2] = {20, 13};
    const int per[2] = {0, 0};
    bool snx = mode == 3 || mode == 4;
    const gt_stencil_info *info = snx ? &snx_info : &sdi_info;
    int nf = snx ? 5 : 3;
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, (const int64_t[3]){20, 13, 1}, NULL, per);
    int64_t off[3];
    gt_mpi_box(d, off, NULL);
    gt_storage *l[5];
    unsigned char *before[5], *after = NULL;
    for (int f = 0; f < nf; f++) {
        l[f] = local(d, info, f, 3);
        if (mode == 0 && f == 0 && rank == nproc - 1) {
            /* not gt_mpi_zeros, whose halos every rank must pass alike */
            gt_storage_opts o = {0};
            int64_t box[3];
            gt_mpi_box(d, NULL, box);
            gt_mpi_steps_halo(&sdi_info, 0, "IJ", 2, o.halo);
            const int64_t shape[2] = {box[0] + o.halo[0][0] + o.halo[0][1],
                                      box[1] + o.halo[1][0] + o.halo[1][1]};
            gt_release(l[f]);
            l[f] = gt_zeros(GT_FLOAT64, "IJ", shape, &o);
        }
        if (mode == 5 && f == 1 && rank == nproc - 1) {
            gt_storage_opts o = {0};
            int64_t box[3];
            gt_mpi_box(d, NULL, box);
            gt_mpi_steps_halo(&sdi_info, 1, "IJ", 3, o.halo);
            const int64_t shape[2] = {box[0] + 1 + o.halo[0][0] + o.halo[0][1],
                                      box[1] + o.halo[1][0] + o.halo[1][1]};
            gt_release(l[f]);
            l[f] = gt_zeros(GT_FLOAT64, "IJ", shape, &o);
        }
        fill(l[f], f, f, off, global, per, true);
        before[f] = malloc(whole(l[f], NULL));
        whole(l[f], before[f]);
    }
    int64_t n = mode == 1 ? -1 : mode == 2 && rank == 0 && nproc > 1 ? 4 : 5;
    int rc = mode == 4   ? snx_mpi(d, l[0], l[1], l[2], l[3], l[4], 0.1, 1, NULL)
             : mode == 3 ? snx_steps_mpi(d, l[0], l[1], l[2], l[3], l[4], 0.1, n, 3, NULL)
             : mode == 6 ? sdi_steps_mpi(d, l[0], l[1], l[2], rank == nproc - 1 ? 0.06 : 0.05,
                                         n, 3, NULL)
                         : sdi_steps_mpi(d, l[0], l[1], l[2], 0.05, n, 3, NULL);
    if (rc != code)
        snprintf(why, sizeof why, "returned %d, not %d: %s", rc, code, gt_last_error());
    else if (snx && !strstr(gt_last_error(), "field 'an' is read beyond the point "
                                                    "along I after the stencil wrote it"))
        snprintf(why, sizeof why, "the message does not name 'an': %s", gt_last_error());
    else if (mode == 5 && !strstr(gt_last_error(), "field 'un' has"))
        snprintf(why, sizeof why, "the message does not name 'un': %s", gt_last_error());
    else if (mode == 6 && !strstr(gt_last_error(), "disagree on scalar 'a' of stencil 'sdi' "
                                                    "(0.05 on rank 0, 0.06 on rank"))
        snprintf(why, sizeof why, "the message does not name a: %s", gt_last_error());
    for (int f = 0; f < nf && !why[0]; f++) {
        size_t bytes = whole(l[f], NULL);
        after = malloc(bytes);
        whole(l[f], after);
        if (memcmp(before[f], after, bytes))
            snprintf(why, sizeof why, "storage %d was written", f);
        free(after);
    }
    for (int f = 0; f < nf; f++)
        gt_release(l[f]), free(before[f]);
    gt_mpi_decomp_release(d);
    report("steps ", name, !why[0], why, sizeof why);
}

/* src on boxes of 5 points along I (all along I): blocks of t steps exchange the pair
   t deep and c (t - 1) + 3 deep. The default (t 0; halos for 8 steps) must take 3, the
   most that c allows, and match one process (it took 5, which the pair allows: the
   exchange then refused c, "storage 1: this rank owns 5 point(s)"); t 4 must be refused by
   gt_mpi_steps' own check on every rank, GT_ESHAPE naming c, nothing written. */
static void narrow_read_only(void)
{
    const int64_t global[2] = {5 * (int64_t)nproc, 8};
    const int dims[2] = {nproc, 1};
    steps_case(8, global, dims, 6, 0, 8);
    char why[600] = "";
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, (const int64_t[3]){global[0], global[1], 1},
                                    dims, NULL);
    int64_t off[3];
    gt_mpi_box(d, off, NULL);
    const int per[2] = {0, 0};
    gt_storage *l[3];
    unsigned char *before[3];
    for (int f = 0; f < 3; f++) {
        l[f] = local(d, &src_info, f, 8);
        fill(l[f], f, f, off, global, per, true);
        before[f] = malloc(whole(l[f], NULL));
        whole(l[f], before[f]);
    }
    int rc = src_steps_mpi(d, l[0], l[1], l[2], 0.05, 6, 4, NULL);
    if (nproc == 1 && rc != 0)
        snprintf(why, sizeof why, "one rank (no inner edge): %d: %s", rc, gt_last_error());
    else if (nproc > 1 && (rc != GT_ESHAPE || !strstr(gt_last_error(), "field 'c'") ||
                           !strstr(gt_last_error(), "gt_mpi_steps")))
        snprintf(why, sizeof why, "returned %d, want %d naming field 'c': %s", rc, GT_ESHAPE,
                 gt_last_error());
    for (int f = 0; f < 3; f++) {
        size_t bytes = whole(l[f], NULL);
        unsigned char *after = malloc(bytes);
        whole(l[f], after);
        if (nproc > 1 && !why[0] && memcmp(before[f], after, bytes))
            snprintf(why, sizeof why, "storage %d was written", f);
        free(after);
        free(before[f]);
        gt_release(l[f]);
    }
    gt_mpi_decomp_release(d);
    report("steps ", "src, tblock 4 on boxes of 5 (c exchanged 6 deep): refused", !why[0],
           why, sizeof why);
}

/* tblock 10 given (nsteps 10): one block of 10 steps, the first computed on the box grown
   by 9 points (w = 1 along I) on each inner edge along I, as docs/mpi.md says; only the
   default is capped at 8 (a tblock given was capped too: blocks of 8, grown by 7). The
   step function (gt_mpi_steps itself) records the widest domain it is given. */
typedef struct {
    int64_t widest;
} Widest;

static int sdi_step(void *ctx, gt_storage *const *f, const gt_domain *dom)
{
    Widest *w = ctx;
    if (dom->size[0] > w->widest)
        w->widest = dom->size[0];
    return sdi(f[0], f[1], f[2], 0.05, dom);
}

static void tblock_given_above_8(void)
{
    char why[600] = "";
    const int64_t global[3] = {12 * (int64_t)nproc, 6, 1};
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, (const int[2]){nproc, 1}, NULL);
    int64_t off[3], box[3];
    gt_mpi_box(d, off, box);
    gt_storage *l[3];
    for (int f = 0; f < 3; f++) {
        l[f] = local(d, &sdi_info, f, 10);
        fill(l[f], f, frame_of(&sdi_info, f), off, global, (const int[2]){0, 0}, true);
    }
    Widest w = {0};
    int rc = gt_mpi_steps(d, &sdi_info, l, 10, 10, sdi_step, &w, NULL);
    int64_t inner = (off[0] > 0) + (off[0] + box[0] < global[0]);
    if (rc != 0)
        snprintf(why, sizeof why, "rank %d: %s", rank, gt_last_error());
    else if (w.widest != box[0] + 9 * inner)
        snprintf(why, sizeof why, "rank %d: the widest step is %lld along I, want %lld (box %lld "
                 "grown by 9 on %lld inner edge(s))", rank, (long long)w.widest,
                 (long long)(box[0] + 9 * inner), (long long)box[0], (long long)inner);
    for (int f = 0; f < 3; f++)
        gt_release(l[f]);
    gt_mpi_decomp_release(d);
    report("steps ", "sdi, tblock 10 given: blocks of 10 (not capped at 8)", !why[0], why,
           sizeof why);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    const int64_t g1[2] = {20, 13}, g2[2] = {23, 17};
    const int64_t ns[] = {0, 1, 2, 3 - 1, 3, 3 + 1, 7, 16};
    for (int w = 0; w < NS; w++) {
        /* snx runs on one process only: with more, the inner edges refuse it (below) */
        if (w == 7 && nproc > 1)
            continue;
        for (size_t k = 0; k < sizeof ns / sizeof *ns; k++)
            if (k != 3)   /* T - 1 is 2 */
                steps_case(w, g1, NULL, ns[k], 3, 3);
        steps_case(w, g2, (const int[2]){1, 0}, 11, 0, 4);   /* the default: 4 */
        steps_case(w, g2, (const int[2]){0, 1}, 9, 2, 2);
    }
    narrow_read_only();
    tblock_given_above_8();
    refusal(0, GT_EHALO);
    refusal(1, GT_EINVAL);
    refusal(5, GT_ESHAPE);
    {
        /* a bad field number is gt_mpi_steps_halo's own refusal (it named gt_mpi_halo) */
        char why[600] = "";
        int64_t h[3][2];
        int rc = gt_mpi_steps_halo(&sdi_info, 9, "IJ", 1, h);
        if (rc != GT_EINVAL || !strstr(gt_last_error(), "gt_mpi_steps_halo: bad arguments") ||
            !strstr(gt_last_error(), "field 9 of 3"))
            snprintf(why, sizeof why, "returned %d: %s", rc, rc ? gt_last_error() : "");
        report("steps ", "gt_mpi_steps_halo: field 9 of 3", !why[0], why, sizeof why);
        /* a stencil without iterate, and tblock 0, each said on its own (until 2026-11 one
           list, "0 pair(s) of iterate, tblock 2: it must be >= 1", as if tblock were wrong) */
        gt_stencil_info plain = sdi_info;
        plain.npairs = 0;
        plain.pairs = NULL;
        why[0] = 0;
        rc = gt_mpi_steps_halo(&plain, 0, "IJ", 2, h);
        if (rc != GT_EINVAL || !strstr(gt_last_error(), "gt_mpi_steps_halo: stencil 'sdi' has "
                                       "no iterate") || !strstr(gt_last_error(), "use gt_mpi_halo") ||
            strstr(gt_last_error(), "tblock"))
            snprintf(why, sizeof why, "returned %d: %s", rc, rc ? gt_last_error() : "");
        report("steps ", "gt_mpi_steps_halo: a stencil without iterate", !why[0], why,
               sizeof why);
        rc = gt_mpi_steps_halo(&sdi_info, 0, "IJ", 0, h);
        if (rc != GT_EINVAL || !strstr(gt_last_error(), "gt_mpi_steps_halo: stencil 'sdi': "
                                       "tblock is 0; it must be >= 1"))
            snprintf(why, sizeof why, "returned %d: %s", rc, rc ? gt_last_error() : "");
        report("steps ", "gt_mpi_steps_halo: tblock 0", !why[0], why, sizeof why);
    }
    if (nproc > 1) {
        refusal(2, GT_EINVAL);
        refusal(3, GT_EINVAL);
        refusal(4, GT_EINVAL);
        refusal(6, GT_EINVAL);
    }
    MPI_Finalize();
    return failures != 0;
}
