/* check_mpi_stencil.c: distributed calls of generated stencils (gt_mpi_call) against the
 * single-process call, under mpirun (tests/mpi/run.sh: 1 to 4 processes).
 *
 * hdiff, jacobi3d and tridiagonal (a forward and a backward sweep along K; bench/stencils,
 * built by gtcc -b openmp) on a global domain whose
 * inputs are a function of the global position (their halos on the global edges too, as
 * a single process's storage holds them; on periodic axes the wrapped position): rank 0
 * calls the stencil on the whole domain, every rank calls it on its box through
 * gt_mpi_call (the internal halos start as NaN: only the exchange fills them), blocking
 * and overlapped, and the outputs gathered on rank 0 must equal the single-process ones
 * bit for bit. Domains that the process grids do not divide evenly, open and periodic.
 * The generated entries S_mpi (edges from the three backends, the naive and cuda ones
 * built with gtcc -P, heat, and entries.stn: a stencil read beyond boundary conditions,
 * one taking a storage twice, one without fields) against one process, their storages'
 * halos from gt_mpi_halo; S_info's halos refused with GT_EHALO once a rank has a
 * neighbour, and one process's GT_EHALO naming the distributed need.
 * Prints PASS/FAIL lines from rank 0; exits with the number of failures. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gt/gt_mpi.h>

#include "hdiff.h"
#include "jacobi3d.h"
#include "tridiagonal.h"
#include "edges.h"
#include "heat2d.h"
/* the same stencils from the naive backend (gtcc -P naive_: naive_edges, naive_edges_mpi),
   and from the cuda backend (-P cuda_), built for the CPU against the SIMT emulator of
   tests/simt */
#include "edges_naive.h"
#include "edges_cuda.h"
#include "regions.h"
#include "regions_naive.h"
#include "regions_cuda.h"
#include "entries.h"

/* the fake device of the cuda build: host memory that starts as NaN (tests/diff) */
#include "nan_device.h"
#include "set_all.h"

static int rank, nproc, failures;

#include "report.h"

static double input(int f, int64_t gi, int64_t gj, int64_t gk)
{
    /* (field 1 is tridiagonal's diagonal b: kept away from 0 by the 4.0) */
    return sin(0.37 * (double)gi + 0.11 * (double)f) * cos(0.23 * (double)gj) +
           0.01 * (double)gk + (f == 1 ? 4.0 : 0.0);
}

static int64_t wrap(int64_t g, int64_t n)
{
    return (g % n + n) % n;
}

/* Fills s (IJK, halo h along I and J, 1 along K) with input f at the global positions
   offset + local; halo elements outside the global domain along a periodic axis take the
   wrapped position's; halo elements inside the global domain but outside this rank's box
   are NaN when internal_nan (the exchange must fill them). */
static void fill(gt_storage *s, int f, const int64_t off[3], const int64_t global[3],
                 const int periodic[2], bool internal_nan)
{
    const int64_t *shape = gt_shape(s), *st = gt_strides(s);
    const int64_t (*h)[2] = gt_halo(s);
    double *p = gt_host(s, GT_WRITE);
    for (int64_t k = 0; k < shape[2]; k++)
        for (int64_t j = 0; j < shape[1]; j++)
            for (int64_t i = 0; i < shape[0]; i++) {
                int64_t g[3] = {i - h[0][0] + off[0], j - h[1][0] + off[1], k - h[2][0]};
                bool in_box = i >= h[0][0] && i < shape[0] - h[0][1] && j >= h[1][0] &&
                              j < shape[1] - h[1][1];
                bool exchanged = true;   /* inside the domain, or wrapped around */
                for (int a = 0; a < 2; a++) {
                    if (g[a] >= 0 && g[a] < global[a])
                        continue;
                    if (periodic[a])
                        g[a] = wrap(g[a], global[a]);
                    else
                        exchanged = false;
                }
                double v = input(f, g[0], g[1], g[2]);
                /* inside the domain but another rank's, or wrapped around a periodic axis:
                   only the exchange may fill it */
                if (internal_nan && !in_box && exchanged)
                    v = NAN;
                p[i * st[0] + j * st[1] + k * st[2]] = v;
            }
}

static gt_storage *make(const int64_t n[3], int64_t h)
{
    gt_storage_opts o = {0};
    o.halo[0][0] = o.halo[0][1] = o.halo[1][0] = o.halo[1][1] = h;
    o.halo[2][0] = o.halo[2][1] = 1;
    int64_t shape[3] = {n[0] + 2 * h, n[1] + 2 * h, n[2] + 2};
    return gt_zeros(GT_FLOAT64, "IJK", shape, &o);
}

/* hdiff(u, coeff, out), jacobi3d(u, f, unew), tridiagonal(a, b, c, d, x): fields, the
   last one the output compared */
typedef struct {
    int which;                 /* 0 hdiff, 1 jacobi3d, 2 tridiagonal */
    gt_storage *f[5];
    int64_t h;                 /* the halo along I and J every storage was made with */
    int moved;                 /* calls that saw a storage's halo changed (gt_mpi_call must
                                  never change the caller's storages, not even in a part) */
} Call;

static const int nfields[3] = {3, 3, 5};
static const gt_stencil_info *const infos[3] = {&hdiff_info, &jacobi3d_info, &tridiagonal_info};

static int run(void *ctx, const gt_domain *dom)
{
    Call *c = ctx;
    gt_storage **f = c->f;
    for (int i = 0; i < nfields[c->which]; i++) {
        const int64_t (*hh)[2] = gt_halo(f[i]);
        if (hh[0][0] != c->h || hh[0][1] != c->h || hh[1][0] != c->h || hh[1][1] != c->h)
            c->moved++;
    }
    return c->which == 0   ? hdiff(f[0], f[1], f[2], dom)
           : c->which == 1 ? jacobi3d(f[0], f[1], f[2], 0.25, dom)
                           : tridiagonal(f[0], f[1], f[2], f[3], f[4], dom);
}

/* The interior of s (this rank's box) into buf, I fastest, then J, then K. */
static void interior(gt_storage *s, double *buf)
{
    const int64_t *shape = gt_shape(s), *st = gt_strides(s);
    const int64_t (*h)[2] = gt_halo(s);
    const void *p = gt_host(s, GT_READ);
    bool ints = gt_dtype_of(s) == GT_INT32;
    size_t at = 0;
    for (int64_t k = h[2][0]; k < shape[2] - h[2][1]; k++)
        for (int64_t j = h[1][0]; j < shape[1] - h[1][1]; j++)
            for (int64_t i = h[0][0]; i < shape[0] - h[0][1]; i++) {
                int64_t e = i * st[0] + j * st[1] + k * st[2];
                buf[at++] = ints ? (double)((const int32_t *)p)[e] : ((const double *)p)[e];
            }
}

/* Gathers every rank's box of s (its interior) on rank 0 and compares it bit for bit with
   ref, the single-process output over the global domain (I fastest): the first difference
   and their count into why on rank 0 (left as it is when it already holds a reason). */
static void gather_compare(gt_storage *s, const double *ref, const int64_t global[3],
                           const int64_t off[3], const int64_t box[3], char *why, size_t len)
{
    size_t total = (size_t)(global[0] * global[1] * global[2]);
    /* gather every rank's box and its interior on rank 0 */
    int64_t mine[6] = {off[0], off[1], off[2], box[0], box[1], box[2]};
    int64_t *boxes = malloc(sizeof *boxes * 6 * (size_t)nproc);
    MPI_Gather(mine, 6, MPI_INT64_T, boxes, 6, MPI_INT64_T, 0, MPI_COMM_WORLD);
    size_t count = (size_t)(box[0] * box[1] * box[2]);
    double *part = malloc(count * sizeof *part);
    interior(s, part);
    int *counts = malloc(sizeof *counts * (size_t)nproc);
    int *displs = malloc(sizeof *displs * (size_t)nproc);
    double *all = rank == 0 ? malloc(total * sizeof *all) : NULL;
    if (rank == 0)
        for (int r = 0, at = 0; r < nproc; r++) {
            counts[r] = (int)(boxes[6 * r + 3] * boxes[6 * r + 4] * boxes[6 * r + 5]);
            displs[r] = at;
            at += counts[r];
        }
    MPI_Gatherv(part, (int)count, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0 && !why[0]) {
        long differ = 0;
        for (int r = 0; r < nproc; r++) {
            const int64_t *b = boxes + 6 * r;
            size_t at = (size_t)displs[r];
            for (int64_t k = 0; k < b[5]; k++)
                for (int64_t j = 0; j < b[4]; j++)
                    for (int64_t i = 0; i < b[3]; i++, at++) {
                        size_t g = (size_t)((k * global[1] + b[1] + j) * global[0] + b[0] + i);
                        if (memcmp(&all[at], &ref[g], sizeof(double)) != 0 && differ++ == 0)
                            snprintf(why, len, "rank %d, global (%lld, %lld, %lld): %.17g, "
                                     "single process %.17g", r, (long long)(b[0] + i),
                                     (long long)(b[1] + j), (long long)k, all[at], ref[g]);
                    }
        }
        if (differ)
            snprintf(why + strlen(why), len - strlen(why), " (%ld elements differ)", differ);
    }
    free(all);
    free(part);
    free(boxes);
    free(counts);
    free(displs);
}

static void one_case(int which, const int64_t global[3], const int dims[2],
                     const int periodic[2], bool overlap)
{
    const char *sname = infos[which]->name;
    int nf = nfields[which];
    char name[200];
    snprintf(name, sizeof name, "%s %lld x %lld x %lld, grid %s, %s, %s", sname,
             (long long)global[0], (long long)global[1], (long long)global[2],
             dims ? (dims[0] == 1 ? "1 x P" : "P x 1") : "chosen",
             periodic[0] ? "periodic" : "open", overlap ? "overlapped" : "blocking");
    const int64_t h = 2;
    char why[300] = "";
    /* the reference on rank 0: the whole domain on one process */
    double *ref = NULL;
    size_t total = (size_t)(global[0] * global[1] * global[2]);
    if (rank == 0) {
        Call c = {which, {NULL}, h, 0};
        const int64_t zero[3] = {0, 0, 0};
        for (int f = 0; f < nf; f++) {
            c.f[f] = make(global, h);
            if (f < nf - 1)   /* inputs (and tridiagonal's in-out c, d) */
                fill(c.f[f], f, zero, global, periodic, false);
        }
        gt_domain dom = {{global[0], global[1], global[2]}};
        ref = malloc(total * sizeof *ref);
        if (run(&c, &dom) != 0)
            snprintf(why, sizeof why, "single process: %s", gt_last_error());
        else
            interior(c.f[nf - 1], ref);
        for (int f = 0; f < nf; f++)
            gt_release(c.f[f]);
    }
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, dims, periodic);
    int64_t off[3], box[3];
    gt_mpi_box(d, off, box);
    gt_storage_opts o = {0};
    o.halo[0][0] = o.halo[0][1] = o.halo[1][0] = o.halo[1][1] = h;
    o.halo[2][0] = o.halo[2][1] = 1;
    Call c = {which, {NULL}, h, 0};
    gt_halo_widths w[5];
    for (int f = 0; f < nf; f++) {
        c.f[f] = gt_mpi_zeros(d, GT_FLOAT64, "IJK", &o);
        if (f < nf - 1)
            fill(c.f[f], f, off, global, periodic, true);
        gt_mpi_widths(infos[which], f, w[f]);
    }
    int rc = gt_mpi_call(d, c.f, nf, w, run, &c, overlap, NULL);
    int bad = rc != 0;
    MPI_Bcast(why, (int)sizeof why, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rc && !why[0])
        snprintf(why, sizeof why, "gt_mpi_call: %s", gt_last_error());
    if (c.moved && !why[0])
        snprintf(why, sizeof why, "the storages' halos were changed during %d of the calls",
                 c.moved);
    gather_compare(c.f[nf - 1], ref, global, off, box, why, sizeof why);
    report("", name, !why[0] && !bad, why, sizeof why);
    free(ref);
    for (int f = 0; f < nf; f++)
        gt_release(c.f[f]);
    gt_mpi_decomp_release(d);
}

/* ---- edges.stn: boundary conditions, index() and out scalars ---------------------------- */

enum { NE = 7 };   /* fields of edges: up, ud, un, um, w (inputs), res, at (outputs) */

typedef struct {
    int backend;   /* 0 openmp, 1 naive, 2 cuda (SIMT emulator, storages on the fake device) */
    gt_storage *f[NE];
    double r[4];   /* total, magnitude, lowest, highest */
    int32_t n[2];  /* count, last */
} Edges;

static int run_edges(void *ctx, const gt_domain *dom)
{
    Edges *e = ctx;
    gt_storage **f = e->f;
    static int (*const fn[3])(gt_storage *, gt_storage *, gt_storage *, gt_storage *,
                              gt_storage *, gt_storage *, gt_storage *, double *, double *,
                              double *, double *, int32_t *, int32_t *, const gt_domain *) = {
        edges, naive_edges, cuda_edges};
    return fn[e->backend](f[0], f[1], f[2], f[3], f[4], f[5], f[6], &e->r[0],
                                            &e->r[1], &e->r[2], &e->r[3], &e->n[0], &e->n[1],
                                            dom);
}

static gt_storage *make_edges_field(const gt_decomp *d, const int64_t global[3], int f, int h,
                                    int backend)
{
    gt_storage_opts o = {0};
    o.device = backend == 2 ? GT_CUDA : GT_HOST;
    o.halo[0][0] = o.halo[0][1] = o.halo[1][0] = o.halo[1][1] = h;
    if (d)
        return gt_mpi_zeros(d, f == 6 ? GT_INT32 : GT_FLOAT64, "IJK", &o);
    const int64_t shape[3] = {global[0] + 2 * h, global[1] + 2 * h, global[2]};
    return gt_zeros(f == 6 ? GT_INT32 : GT_FLOAT64, "IJK", shape, &o);
}

/* edges through its generated distributed entry: edges_mpi, naive_edges_mpi (gtcc -P
   naive_), cuda_edges_mpi (-P cuda_). */
static int edges_entry(const gt_decomp *d, Edges *e, int overlap, double times[2])
{
    gt_storage **f = e->f;
    double *r = e->r;
    int32_t *n = e->n;
    if (e->backend == 0)
        return edges_mpi(d, f[0], f[1], f[2], f[3], f[4], f[5], f[6], &r[0], &r[1], &r[2],
                         &r[3], &n[0], &n[1], overlap, times);
    if (e->backend == 1)
        return naive_edges_mpi(d, f[0], f[1], f[2], f[3], f[4], f[5], f[6], &r[0], &r[1],
                               &r[2], &r[3], &n[0], &n[1], overlap, times);
    return cuda_edges_mpi(d, f[0], f[1], f[2], f[3], f[4], f[5], f[6], &r[0], &r[1], &r[2],
                          &r[3], &n[0], &n[1], overlap, times);
}

/* edges through gt_mpi_call (widths: NULL, what the stencil reads), or through its entry
   S_mpi (entry), against one process: the outputs and the min, max and int out scalars bit
   for bit, the sums to a relative 1e-12 of the larger of 1 and the two values (their order
   of additions differs; the bound tests/diff holds the backends' sums to,
   docs/generated-api.md); the entry's times written. */
static void edges_case(int backend, const int64_t global[3], const int dims[2],
                       const int periodic[2], bool overlap, bool entry)
{
    char name[200], why[300] = "";
    snprintf(name, sizeof name, "edges (%s) %lld x %lld x %lld, grid %s, periodic %s, %s%s",
             backend == 2 ? "cuda" : backend ? "naive" : "openmp", (long long)global[0],
             (long long)global[1],
             (long long)global[2], dims ? (dims[0] == 1 ? "1 x P" : "P x 1") : "chosen",
             periodic[1] ? "I and J" : "I", overlap ? "overlapped" : "blocking",
             entry ? ", through S_mpi" : "");
    const int h = 4;
    size_t total = (size_t)(global[0] * global[1] * global[2]);
    double *ref[2] = {NULL, NULL};
    Edges one = {backend, {NULL}, {0}, {0}};
    if (rank == 0) {
        const int64_t zero[3] = {0, 0, 0};
        for (int f = 0; f < NE; f++) {
            one.f[f] = make_edges_field(NULL, global, f, h, backend);
            if (f < 5)
                fill(one.f[f], f, zero, global, periodic, false);
        }
        gt_domain dom = {{global[0], global[1], global[2]}};
        if (run_edges(&one, &dom) != 0)
            snprintf(why, sizeof why, "single process: %s", gt_last_error());
        for (int o = 0; o < 2; o++) {
            ref[o] = malloc(total * sizeof *ref[o]);
            interior(one.f[5 + o], ref[o]);
        }
        for (int f = 0; f < NE; f++)
            gt_release(one.f[f]);
    }
    MPI_Bcast(&one.r, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Bcast(&one.n, 2, MPI_INT32_T, 0, MPI_COMM_WORLD);
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, dims, periodic);
    int64_t off[3], box[3];
    gt_mpi_box(d, off, box);
    Edges e = {backend, {NULL}, {-1, -1, -1, -1}, {-1, -1}};
    for (int f = 0; f < NE; f++) {
        e.f[f] = make_edges_field(d, global, f, h, backend);
        if (f < 5)
            fill(e.f[f], f, off, global, periodic, true);
    }
    double times[2] = {-1, -1};
    int rc = entry ? edges_entry(d, &e, overlap, times)
                   : gt_mpi_call(d, e.f, NE, NULL, run_edges, &e, overlap, NULL);
    int bad = rc != 0;
    MPI_Bcast(why, (int)sizeof why, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rc && !why[0])
        snprintf(why, sizeof why, "%s: %s", entry ? "S_mpi" : "gt_mpi_call", gt_last_error());
    if (!rc && entry && !(times[0] >= 0 && times[1] >= 0))
        snprintf(why, sizeof why, "rank %d: times not written: %g, %g", rank, times[0],
                 times[1]);
    for (int o = 0; o < 2; o++)
        gather_compare(e.f[5 + o], ref[o], global, off, box, why, sizeof why);
    /* every rank holds the combined scalars */
    if (!why[0]) {
        for (int k = 0; k < 2 && !why[0]; k++) {
            double tol = 1e-12 * fmax(1.0, fmax(fabs(e.r[k]), fabs(one.r[k])));
            if (!(fabs(e.r[k] - one.r[k]) <= tol))
                snprintf(why, sizeof why, "rank %d: sum %d is %.17g, single process %.17g "
                         "(tolerance %.3g)", rank, k, e.r[k], one.r[k], tol);
        }
        for (int k = 2; k < 4 && !why[0]; k++)
            if (memcmp(&e.r[k], &one.r[k], sizeof(double)) != 0)
                snprintf(why, sizeof why, "rank %d: %s is %.17g, single process %.17g", rank,
                         k == 2 ? "min" : "max", e.r[k], one.r[k]);
        for (int k = 0; k < 2 && !why[0]; k++)
            if (e.n[k] != one.n[k])
                snprintf(why, sizeof why, "rank %d: int %s is %d, single process %d", rank,
                         k ? "max" : "sum", (int)e.n[k], (int)one.n[k]);
    }
    report("", name, !why[0] && !bad, why, sizeof why);
    for (int o = 0; o < 2; o++)
        free(ref[o]);
    for (int f = 0; f < NE; f++)
        gt_release(e.f[f]);
    gt_mpi_decomp_release(d);
}

/* ---- regions.stn: region positions are global ------------------------------------------ */

typedef struct {
    int backend;   /* 0 openmp, 1 naive, 2 cuda (SIMT emulator, storages on the fake device) */
    gt_storage *f[2];   /* u, res */
} Regions;

static int run_regions(void *ctx, const gt_domain *dom)
{
    Regions *r = ctx;
    static int (*const fn[3])(gt_storage *, gt_storage *, const gt_domain *) = {
        regions, naive_regions, cuda_regions};
    return fn[r->backend](r->f[0], r->f[1], dom);
}

/* regions through gt_mpi_call against one process, res bit for bit. */
static void regions_case(int backend, const int64_t global[3], const int dims[2],
                         const int periodic[2], bool overlap)
{
    char name[200], why[300] = "";
    snprintf(name, sizeof name, "regions (%s) %lld x %lld x %lld, grid %s, periodic %s, %s",
             backend == 2 ? "cuda" : backend ? "naive" : "openmp", (long long)global[0],
             (long long)global[1], (long long)global[2],
             dims ? (dims[0] == 1 ? "1 x P" : "P x 1") : "chosen",
             periodic[0] ? "I and J" : "none", overlap ? "overlapped" : "blocking");
    const int h = 3;
    size_t total = (size_t)(global[0] * global[1] * global[2]);
    double *ref = NULL;
    if (rank == 0) {
        const int64_t zero[3] = {0, 0, 0};
        Regions one = {backend, {NULL, NULL}};
        for (int f = 0; f < 2; f++)
            one.f[f] = make_edges_field(NULL, global, f, h, backend);
        fill(one.f[0], 0, zero, global, periodic, false);
        gt_domain dom = {{global[0], global[1], global[2]}};
        if (run_regions(&one, &dom) != 0)
            snprintf(why, sizeof why, "single process: %s", gt_last_error());
        ref = malloc(total * sizeof *ref);
        interior(one.f[1], ref);
        for (int f = 0; f < 2; f++)
            gt_release(one.f[f]);
    }
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, dims, periodic);
    int64_t off[3], box[3];
    gt_mpi_box(d, off, box);
    Regions e = {backend, {NULL, NULL}};
    for (int f = 0; f < 2; f++)
        e.f[f] = make_edges_field(d, global, f, h, backend);
    fill(e.f[0], 0, off, global, periodic, true);
    int rc = gt_mpi_call(d, e.f, 2, NULL, run_regions, &e, overlap, NULL);
    MPI_Bcast(why, (int)sizeof why, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rc && !why[0])
        snprintf(why, sizeof why, "gt_mpi_call: %s", gt_last_error());
    gather_compare(e.f[1], ref, global, off, box, why, sizeof why);
    int ok = !why[0] && rc == 0, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s %s (np %d)%s%s\n", all_ok ? "PASS" : "FAIL", name, nproc, all_ok ? "" : ": ",
               all_ok ? "" : why[0] ? why : "failed on another rank");
    failures += !all_ok;
    free(ref);
    for (int f = 0; f < 2; f++)
        gt_release(e.f[f]);
    gt_mpi_decomp_release(d);
}

/* ---- the distributed call's errors: every rank fails alike, nothing is written --------- */

typedef struct {
    int mode;       /* 0 edges, 1 no stencil, 2 two stencils, 3 another domain */
    Edges *e;
} Bad;

static int run_bad(void *ctx, const gt_domain *dom)
{
    Bad *b = ctx;
    if (b->mode == 1)
        return 0;
    if (b->mode == 3) {
        gt_domain other = *dom;
        other.size[0] -= 1;
        return run_edges(b->e, &other);
    }
    int rc = run_edges(b->e, dom);
    return rc || b->mode != 2 ? rc : run_edges(b->e, dom);
}

static void error_case(const char *what, int want, int mode, const int periodic[2],
                       int nstorages, int narrow, const char *expect)
{
    const int64_t global[3] = {23, 17, 2};
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, NULL, periodic);
    Edges e = {0, {NULL}, {-1, -1, -1, -1}, {-1, -1}};
    int64_t off[3];
    gt_mpi_box(d, off, NULL);
    for (int f = 0; f < NE; f++) {
        e.f[f] = make_edges_field(d, global, f, 4, 0);
        if (f < 5)
            fill(e.f[f], f, off, global, periodic, true);
    }
    /* outputs hold 7 (res) and 7 (at), the halos of the inputs NaN where the exchange fills */
    set_all(e.f[5], 7.0);
    set_all(e.f[6], 7.0);
    gt_halo_widths w[NE];
    for (int f = 0; f < NE; f++)
        gt_mpi_widths(&edges_info, f, w[f]);
    if (narrow)
        w[3][0][1] = 2;   /* um reads 4 above along I (periodic: an internal side) */
    Bad b = {mode, &e};
    int rc = gt_mpi_call(d, e.f, nstorages, w, run_bad, &b, 0, NULL);
    char why[300] = "";
    if (rc != want)
        snprintf(why, sizeof why, "returned %d (%s), want %d", rc, gt_last_error(), want);
    else if (!strstr(gt_last_error(), expect))
        snprintf(why, sizeof why, "message \"%s\" lacks \"%s\"", gt_last_error(), expect);
    int64_t box[3];
    gt_mpi_box(d, NULL, box);
    size_t count = (size_t)(box[0] * box[1] * box[2]);
    double *out = malloc(count * sizeof *out);
    for (int o = 5; o < NE; o++) {
        interior(e.f[o], out);
        for (size_t at = 0; at < count && !why[0]; at++)
            if (out[at] != 7.0)
                snprintf(why, sizeof why, "output %d was written: %g", o, out[at]);
    }
    free(out);
    if (!why[0] && (e.r[0] != -1 || e.n[0] != -1))
        snprintf(why, sizeof why, "an out scalar was written: %g, %d", e.r[0], (int)e.n[0]);
    report("error: ", what, !why[0], why, sizeof why);
    for (int f = 0; f < NE; f++)
        gt_release(e.f[f]);
    gt_mpi_decomp_release(d);
}

static void error_cases(void)
{
    const int along_i[2] = {1, 0}, open[2] = {0, 0};
    error_case("periodic bc along an axis the decomposition does not wrap", GT_EINVAL, 0, open,
               NE, 0, "is not periodic along I");
    error_case("the function calls no stencil", GT_EINVAL, 1, along_i, NE, 0,
               "called 0 generated stencil(s)");
    error_case("the function calls two stencils", GT_EINVAL, 2, along_i, NE, 0,
               "called 2 generated stencil(s)");
    error_case("the stencil gets another domain", GT_ESHAPE, 3, along_i, NE, 0,
               "call the stencil with the domain gt_mpi_call gives");
    error_case("widths narrower than the stencil reads", GT_EHALO, 0, along_i, NE, 1,
               "but field 'um' of the stencil reads 4 there: give widths[3] at least that, "
               "or NULL widths (as far as the stencil reads)");
    error_case("a storage read in its halo is not exchanged", GT_EINVAL, 0, along_i, 4, 0,
               "is not among gt_mpi_call's storages");
}

/* ---- examples/heat2d's stencil (boundary u: periodic), many steps ------------------------ */

typedef struct { gt_storage *u, *unew; } Heat;

static int run_heat(void *ctx, const gt_domain *dom)
{
    Heat *h = ctx;
    return heat(h->u, h->unew, 0.2, dom);
}

/* steps of heat, the storages swapped after each, distributed (widths NULL) against one
   process: the final field bit for bit. The local storages' halo of 1 is what heat reads
   across a rank's edge; one process's storages have none (the periodic condition wraps).
   entry: each step through heat_mpi, the halo of both storages (they swap roles) what
   gt_mpi_halo gives for u. */
static void heat_case(const int64_t global[3], const int dims[2], int steps, bool overlap,
                      bool entry)
{
    char name[200], why[300] = "";
    snprintf(name, sizeof name, "heat2d %d steps %lld x %lld, grid %s, %s%s", steps,
             (long long)global[0], (long long)global[1],
             dims ? (dims[0] == 1 ? "1 x P" : "P x 1") : "chosen",
             overlap ? "overlapped" : "blocking", entry ? ", through heat_mpi" : "");
    const int periodic[2] = {1, 1};
    size_t total = (size_t)(global[0] * global[1] * global[2]);
    double *ref = NULL;
    if (rank == 0) {
        const int64_t zero[3] = {0, 0, 0};
        Heat h = {gt_zeros(GT_FLOAT64, "IJK", global, NULL), gt_zeros(GT_FLOAT64, "IJK", global,
                                                                      NULL)};
        fill(h.u, 0, zero, global, periodic, false);
        for (int t = 0; t < steps && !why[0]; t++) {
            if (run_heat(&h, NULL) != 0)
                snprintf(why, sizeof why, "single process: %s", gt_last_error());
            gt_storage *x = h.u;
            h.u = h.unew;
            h.unew = x;
        }
        ref = malloc(total * sizeof *ref);
        interior(h.u, ref);
        gt_release(h.u);
        gt_release(h.unew);
    }
    MPI_Bcast(why, (int)sizeof why, MPI_CHAR, 0, MPI_COMM_WORLD);
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, dims, periodic);
    int64_t off[3], box[3];
    gt_mpi_box(d, off, box);
    gt_storage_opts o = {0};
    o.halo[0][0] = o.halo[0][1] = o.halo[1][0] = o.halo[1][1] = 1;
    if (entry && gt_mpi_halo(&heat_info, 0, NULL, o.halo) != 0)
        snprintf(why, sizeof why, "gt_mpi_halo: %s", gt_last_error());
    Heat h = {gt_mpi_zeros(d, GT_FLOAT64, "IJK", &o), gt_mpi_zeros(d, GT_FLOAT64, "IJK", &o)};
    fill(h.u, 0, off, global, periodic, true);
    int bad = 0;
    for (int t = 0; t < steps && !bad; t++) {
        gt_storage *both[2] = {h.u, h.unew};
        if ((entry ? heat_mpi(d, h.u, h.unew, 0.2, overlap, NULL)
                   : gt_mpi_call(d, both, 2, NULL, run_heat, &h, overlap, NULL)) != 0) {
            bad = 1;
            if (!why[0])
                snprintf(why, sizeof why, "%s, step %d: %s", entry ? "heat_mpi" : "gt_mpi_call",
                         t, gt_last_error());
        }
        gt_storage *x = h.u;
        h.u = h.unew;
        h.unew = x;
    }
    gather_compare(h.u, ref, global, off, box, why, sizeof why);
    report("", name, !why[0] && !bad, why, sizeof why);
    free(ref);
    gt_release(h.u);
    gt_release(h.unew);
    gt_mpi_decomp_release(d);
}

/* ---- entries.stn: the generated entries S_mpi and gt_mpi_halo ------------------------- */

/* gt_mpi_halo against the halos read off entries.stn's bc: u (dirichlet along I and J) read
   at i-2, i+1 and j-1; v (neumann along I) at i-1 and j+1; res nowhere beyond the domain.
   Rows in the order of the axes asked for; nothing written on error. */
static void halo_values(void)
{
    static const int64_t want[3][3][2] = {{{2, 1}, {1, 0}, {0, 0}},
                                          {{1, 0}, {0, 1}, {0, 0}},
                                          {{0, 0}, {0, 0}, {0, 0}}};
    char why[300] = "";
    int64_t h[3][2];
    for (int f = 0; f < 3 && !why[0]; f++) {
        if (gt_mpi_halo(&bc_info, f, NULL, h) != 0)
            snprintf(why, sizeof why, "field %d: %s", f, gt_last_error());
        else if (memcmp(h, want[f], sizeof h) != 0)
            snprintf(why, sizeof why, "field %d: [%lld,%lld] [%lld,%lld] [%lld,%lld]", f,
                     (long long)h[0][0], (long long)h[0][1], (long long)h[1][0],
                     (long long)h[1][1], (long long)h[2][0], (long long)h[2][1]);
    }
    /* a KJI storage of u: its rows K, J, I */
    if (!why[0] && (gt_mpi_halo(&bc_info, 0, "KJI", h) != 0 || h[0][0] || h[0][1] ||
                    h[1][0] != 1 || h[1][1] != 0 || h[2][0] != 2 || h[2][1] != 1))
        snprintf(why, sizeof why, "axes KJI: [%lld,%lld] [%lld,%lld] [%lld,%lld] (%s)",
                 (long long)h[0][0], (long long)h[0][1], (long long)h[1][0],
                 (long long)h[1][1], (long long)h[2][0], (long long)h[2][1], gt_last_error());
    memset(h, 0x11, sizeof h);
    int64_t same[3][2];
    memcpy(same, h, sizeof h);
    if (!why[0] && gt_mpi_halo(&bc_info, 0, "IJ", h) != GT_EAXES)
        snprintf(why, sizeof why, "axes IJ of an IJK field: not GT_EAXES");
    if (!why[0] && gt_mpi_halo(&bc_info, 3, NULL, h) != GT_EINVAL)
        snprintf(why, sizeof why, "field 3 of 3: not GT_EINVAL");
    if (!why[0] && memcmp(h, same, sizeof h) != 0)
        snprintf(why, sizeof why, "a refused call wrote the halo");
    report("", "gt_mpi_halo: bc's halos, by axes; errors", !why[0], why, sizeof why);
}

/* A storage of bc's field f: this rank's (d) or the whole domain's (NULL), its halo what
   gt_mpi_halo gives (mpi_halo) or what S_info says one process needs. */
static gt_storage *bc_field(const gt_decomp *d, const int64_t global[3], int f, bool mpi_halo)
{
    gt_storage_opts o = {0};
    if (mpi_halo)
        gt_mpi_halo(&bc_info, f, NULL, o.halo);
    else
        memcpy(o.halo, bc_info.fields[f].halo, sizeof o.halo);
    if (d)
        return gt_mpi_zeros(d, GT_FLOAT64, "IJK", &o);
    int64_t shape[3];
    for (int a = 0; a < 3; a++)
        shape[a] = global[a] + o.halo[a][0] + o.halo[a][1];
    return gt_zeros(GT_FLOAT64, "IJK", shape, &o);
}

/* bc through bc_mpi against one process (storages with S_info's halos): res bit for bit,
   total to the documented relative 1e-12 (of the larger of 1 and the two values). mpi_halo: the local storages' halos from
   gt_mpi_halo; otherwise S_info's, which one process does with, and a distributed call
   refuses once a rank has a neighbour (GT_EHALO, pointing at gt_mpi_halo). */
static void bc_case(const int64_t global[3], const int dims[2], bool overlap, bool mpi_halo)
{
    char name[200], why[300] = "";
    snprintf(name, sizeof name, "bc through bc_mpi %lld x %lld x %lld, grid %s, %s, halos %s",
             (long long)global[0], (long long)global[1], (long long)global[2],
             dims ? (dims[0] == 1 ? "1 x P" : "P x 1") : "chosen",
             overlap ? "overlapped" : "blocking",
             mpi_halo ? "of gt_mpi_halo"
             : nproc > 1 ? "of S_info: refused (GT_EHALO naming gt_mpi_halo)"
                         : "of S_info: enough on one rank");
    const int open[2] = {0, 0};
    const int64_t zero[3] = {0, 0, 0};
    size_t total = (size_t)(global[0] * global[1] * global[2]);
    double *ref = NULL, sums[1] = {0};   /* the single process's total */
    if (rank == 0) {
        gt_storage *f[3];
        for (int k = 0; k < 3; k++)
            f[k] = bc_field(NULL, global, k, false);
        fill(f[0], 0, zero, global, open, false);
        fill(f[1], 1, zero, global, open, false);
        if (bc(f[0], f[1], f[2], 0.75, &sums[0], NULL) != 0)
            snprintf(why, sizeof why, "single process: %s", gt_last_error());
        ref = malloc(total * sizeof *ref);
        interior(f[2], ref);
        for (int k = 0; k < 3; k++)
            gt_release(f[k]);
    }
    MPI_Bcast(sums, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Bcast(why, (int)sizeof why, MPI_CHAR, 0, MPI_COMM_WORLD);
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, dims, open);
    int64_t off[3], box[3];
    gt_mpi_box(d, off, box);
    gt_storage *f[3];
    for (int k = 0; k < 3; k++)
        f[k] = bc_field(d, global, k, mpi_halo);
    fill(f[0], 0, off, global, open, true);
    fill(f[1], 1, off, global, open, true);
    set_all(f[2], 7.0);
    double sum = -1, times[2] = {-1, -1};
    int rc = bc_mpi(d, f[0], f[1], f[2], 0.75, &sum, overlap, times);
    int dims_got[2];
    gt_mpi_grid(d, dims_got, NULL, NULL);
    bool refused = !mpi_halo && dims_got[0] * dims_got[1] > 1;   /* a rank has a neighbour */
    if (refused) {
        /* nothing written, on every rank */
        if (rc != GT_EHALO)
            snprintf(why, sizeof why, "rank %d: returned %d (%s), want GT_EHALO", rank, rc,
                     rc ? gt_last_error() : "");
        else if (!strstr(gt_last_error(), "gt_mpi_halo") &&
                 (rank == nproc - 1 || !strstr(gt_last_error(), "failed (")))
            /* the last rank reads u beyond its lower internal edge (2 along I, 1 along J);
               a rank that does not may name the one that failed, and repeats its message
               (which names gt_mpi_halo) */
            snprintf(why, sizeof why, "rank %d: message \"%s\" does not point at gt_mpi_halo",
                     rank, gt_last_error());
        else if (sum != -1)
            snprintf(why, sizeof why, "rank %d: total was written: %g", rank, sum);
        size_t count = (size_t)(box[0] * box[1] * box[2]);
        double *out = malloc(count * sizeof *out);
        interior(f[2], out);
        for (size_t at = 0; at < count && !why[0]; at++)
            if (out[at] != 7.0)
                snprintf(why, sizeof why, "rank %d: res was written: %g", rank, out[at]);
        free(out);
        report("", name, !why[0], why, sizeof why);
    } else {
        if (rc && !why[0])
            snprintf(why, sizeof why, "bc_mpi: %s", gt_last_error());
        if (!rc && !(times[0] >= 0 && times[1] >= 0))
            snprintf(why, sizeof why, "rank %d: times not written", rank);
        if (!why[0] && !(fabs(sum - sums[0]) <= 1e-12 * fmax(1.0, fmax(fabs(sum), fabs(sums[0])))))
            snprintf(why, sizeof why, "rank %d: total %.17g, single process %.17g", rank, sum,
                     sums[0]);
        gather_compare(f[2], ref, global, off, box, why, sizeof why);
        report("", name, !why[0] && rc == 0, why, sizeof why);
    }
    free(ref);
    for (int k = 0; k < 3; k++)
        gt_release(f[k]);
    gt_mpi_decomp_release(d);
}

/* One process's GT_EHALO for a field with a boundary condition names what a distributed
   run needs: v (neumann along I, read at i-1 and j+1) without a halo along J. */
static void bc_single_message(void)
{
    const int64_t global[3] = {9, 8, 2}, shape[3] = {9, 8, 2};
    char why[300] = "";
    gt_storage *u = bc_field(NULL, global, 0, false), *res = bc_field(NULL, global, 2, false);
    gt_storage *v = gt_zeros(GT_FLOAT64, "IJK", shape, NULL);
    double sum = -1;
    int rc = bc(u, v, res, 0.75, &sum, NULL);
    const char *want = "stencil 'bc': field 'v': halo along J is [0,0] but the stencil needs "
                       "[0,1]; a distributed run needs [1,0] along I and [0,1] along J "
                       "(gt_mpi_halo)";
    if (rc != GT_EHALO || strcmp(gt_last_error(), want) != 0)
        snprintf(why, sizeof why, "rank %d: %d, \"%s\"", rank, rc, gt_last_error());
    report("", "one process's GT_EHALO names the distributed need", !why[0], why, sizeof why);
    gt_release(u);
    gt_release(v);
    gt_release(res);
}

/* twice_mpi(d, x, x): one storage as input (read at offset 0 only) and output, which one
   exchange cannot take twice: x becomes 2 x, exactly. */
static void twice_in_place(const int64_t global[3], bool overlap)
{
    char name[120], why[300] = "";
    snprintf(name, sizeof name, "twice_mpi on one storage in place, %s",
             overlap ? "overlapped" : "blocking");
    const int open[2] = {0, 0};
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, NULL, open);
    int64_t off[3], box[3];
    gt_mpi_box(d, off, box);
    gt_storage *x = gt_mpi_zeros(d, GT_FLOAT64, "IJK", NULL);
    fill(x, 0, off, global, open, false);
    int rc = twice_mpi(d, x, x, overlap, NULL);
    if (rc)
        snprintf(why, sizeof why, "rank %d: %s", rank, gt_last_error());
    const double *p = gt_host(x, GT_READ);
    const int64_t *st = gt_strides(x);
    for (int64_t k = 0; k < box[2] && !why[0]; k++)
        for (int64_t j = 0; j < box[1] && !why[0]; j++)
            for (int64_t i = 0; i < box[0] && !why[0]; i++) {
                double want = 2.0 * input(0, off[0] + i, off[1] + j, k);
                double got = p[i * st[0] + j * st[1] + k * st[2]];
                if (memcmp(&got, &want, sizeof got) != 0)
                    snprintf(why, sizeof why, "rank %d, (%lld, %lld, %lld): %.17g, want %.17g",
                             rank, (long long)i, (long long)j, (long long)k, got, want);
            }
    report("", name, !why[0], why, sizeof why);
    gt_release(x);
    gt_mpi_decomp_release(d);
}

/* Two storages of this rank's box, x and y, filled (fields 0 and 1 of fill), and a copy of
   their boxes, x's then y's (*bytes each), to see that a refused call wrote neither. */
static double *two_filled(const gt_decomp *d, const int64_t global[3], gt_storage **x,
                          gt_storage **y, size_t *bytes)
{
    int64_t off[3], box[3];
    gt_mpi_box(d, off, box);
    *x = gt_mpi_zeros(d, GT_FLOAT64, "IJK", NULL);
    *y = gt_mpi_zeros(d, GT_FLOAT64, "IJK", NULL);
    const int open[2] = {0, 0};
    fill(*x, 0, off, global, open, false);
    fill(*y, 1, off, global, open, false);
    *bytes = (size_t)(box[0] * box[1] * box[2]) * sizeof(double);
    double *before = malloc(2 * *bytes);
    memcpy(before, gt_host(*x, GT_READ), *bytes);
    memcpy(before + *bytes / sizeof(double), gt_host(*y, GT_READ), *bytes);
    return before;
}

/* twice_mpi with the last rank's storages unlike the others': res NULL there (how 0), x
   as both u and res there (1; x and y elsewhere), or res float32 there (2); or bc_mpi (3
   fields) on every rank but the last, which calls twice_mpi (2: its agreement must be of
   a fixed size, not one sized by the fields, which would not match). Every rank
   fails with GT_EINVAL, the message naming the field (before, S_mpi dropped NULL storages
   and passed each storage once, so the ranks passed gt_mpi_call different numbers of
   storages: "ranks 0 and 2 disagree on the number of storages (n)", which S_mpi's caller
   never passed; and a dtype differing was "storage 1's dtype", no field), and x and y are
   untouched. */
static void entry_storages_differ(const int64_t global[3], int how)
{
    char name[120], why[400] = "";
    snprintf(name, sizeof name, how == 3 ? "twice_mpi on the last rank, bc_mpi on the others "
             "(%s)" : "twice_mpi, res %s on the last rank only", how == 0 ? "NULL"
             : how == 1 ? "u's storage" : how == 2 ? "float32" : "3 fields and 2");
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, NULL, NULL);
    gt_storage *x, *y;
    size_t bytes;
    double *before = two_filled(d, global, &x, &y, &bytes);
    gt_storage *narrow = gt_mpi_zeros(d, GT_FLOAT32, "IJK", NULL);
    gt_storage *res = rank != nproc - 1 ? y : how == 1 ? x : how == 2 ? narrow : NULL;
    double total = 0;
    int rc = how == 3 && rank != nproc - 1 ? bc_mpi(d, x, narrow, y, 1.0, &total, 0, NULL)
             : how == 3                    ? twice_mpi(d, x, y, 0, NULL)
                                           : twice_mpi(d, x, res, 0, NULL);
    const char *want = how == 1   ? "field 'res' has the storage of field 'u' on some ranks only"
                       : how == 2 ? "storage 1's dtype (field 'res')"
                       : how == 3 ? "the ranks call stencils of 2 to 3 fields"
                                  : "the storage of field 'res' is NULL";
    if (nproc == 1 && how == 0 && rc != GT_EINVAL)
        snprintf(why, sizeof why, "rank %d: %d, want %d (%s)", rank, rc, GT_EINVAL,
                 gt_last_error());
    else if (nproc > 1 && (rc != GT_EINVAL || !strstr(gt_last_error(), want)))
        snprintf(why, sizeof why, "rank %d: %d (%s), want %d naming \"%s\"", rank, rc,
                 gt_last_error(), GT_EINVAL, want);
    else if (nproc > 1 && (memcmp(before, gt_host(x, GT_READ), bytes) != 0 ||
                           memcmp(before + bytes / sizeof(double), gt_host(y, GT_READ), bytes)))
        snprintf(why, sizeof why, "rank %d: a storage was written", rank);
    report("", name, !why[0], why, sizeof why);
    free(before);
    gt_release(narrow);
    gt_release(x);
    gt_release(y);
    gt_mpi_decomp_release(d);
}

/* nofield_mpi: no field, no domain to split: every rank gets one process's values, s =
   3.0 * 0.5 + 1.0 and n = 7 (one point, index 0); a NULL out pointer on the last rank fails
   the call on every rank, and the others' out scalars are untouched. */
static void nofield_case(bool overlap)
{
    char name[120], why[300] = "";
    snprintf(name, sizeof name, "nofield_mpi (no field), %s", overlap ? "overlapped" : "blocking");
    const int64_t global[3] = {6, 5, 3};
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, NULL, NULL);
    double s = -1, s1 = -1, times[2] = {-1, -1};
    int32_t n = -1, n1 = -1;
    int rc = nofield_mpi(d, 3.0, &s, &n, overlap, times);
    if (nofield(3.0, &s1, &n1, NULL) != 0 || s1 != 2.5 || n1 != 7)
        snprintf(why, sizeof why, "rank %d: one process: %g, %d (%s)", rank, s1, (int)n1,
                 gt_last_error());
    else if (rc != 0)
        snprintf(why, sizeof why, "rank %d: %s", rank, gt_last_error());
    else if (s != 2.5 || n != 7)
        snprintf(why, sizeof why, "rank %d: %g, %d, want 2.5, 7", rank, s, (int)n);
    else if (!(times[0] == 0 && times[1] >= 0))
        snprintf(why, sizeof why, "rank %d: times %g, %g", rank, times[0], times[1]);
    s = -1;
    rc = nofield_mpi(d, 3.0, rank == nproc - 1 ? NULL : &s, &n, overlap, NULL);
    if (!why[0] && (rc != GT_EINVAL || s != -1))
        snprintf(why, sizeof why, "rank %d: a NULL out pointer on rank %d: %d (%s), s %g",
                 rank, nproc - 1, rc, gt_last_error(), s);
    report("", name, !why[0], why, sizeof why);
    gt_mpi_decomp_release(d);
}

/* kinds_mpi with one scalar argument different on the last rank (which: 0 the double c,
   1 the float f, 2 the int n, 3 the bool b): every rank fails with GT_EINVAL naming the
   scalar, both values and two ranks, and res is untouched (before, every rank computed its
   part with its own value, and the result was no single process's); equal values passed
   alike (4: -0.0 on the last rank, 0.0 elsewhere; 5: NaN everywhere, of other signs)
   compute. The same for nofield_mpi (6: its a), where every rank computes the whole. */
static void scalars_differ(const int64_t global[3], int which)
{
    static const char *const what[7] = {"the double c", "the float f", "the int n",
                                        "the bool b", "-0.0 and 0.0", "NaN", "nofield's a"};
    char name[120], why[600] = "", want[200] = "";
    snprintf(name, sizeof name, "scalar arguments: %s on the last rank", what[which]);
    bool last = rank == nproc - 1;
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, NULL, NULL);
    gt_storage *u, *res;
    size_t bytes;
    double *before = two_filled(d, global, &u, &res, &bytes);
    double c = which == 0 && last ? 0.5 : which == 4 ? (last ? -0.0 : 0.0)
               : which == 5 ? (last ? -NAN : NAN) : 0.75;
    float f = which == 1 && last ? 0.25f : 0.125f;
    int32_t n = which == 2 && last ? -3 : 2;
    bool b = which == 3 && last ? false : true;
    int rc;
    if (which == 6) {
        double sum = -1;
        int32_t count = -1;
        rc = nofield_mpi(d, last ? 4.0 : 3.0, &sum, &count, 0, NULL);
        snprintf(want, sizeof want, "disagree on scalar 'a' of stencil 'nofield' (3 on rank "
                 "0, 4 on rank %d)", nproc - 1);
        if (nproc > 1 && !(sum == -1 && count == -1))
            snprintf(why, sizeof why, "rank %d: an out scalar was written", rank);
    } else {
        rc = kinds_mpi(d, u, res, c, f, n, b, 0, NULL);
        static const char *const names[4] = {"c", "f", "n", "b"};
        static const char *const values[4][2] = {{"0.75", "0.5"}, {"0.125", "0.25"},
                                                 {"2", "-3"}, {"true", "false"}};
        if (which < 4)
            snprintf(want, sizeof want, "ranks 0 and %d disagree on scalar '%s' of stencil "
                     "'kinds' (%s on rank 0, %s on rank %d): every rank must pass it alike; "
                     "nothing was done", nproc - 1, names[which], values[which][0],
                     values[which][1], nproc - 1);
    }
    if (why[0])
        ;
    else if (nproc == 1 || which == 4 || which == 5) {
        if (rc != 0)
            snprintf(why, sizeof why, "rank %d: %d (%s), want 0", rank, rc, gt_last_error());
    } else if (rc != GT_EINVAL || !strstr(gt_last_error(), want)) {
        snprintf(why, sizeof why, "rank %d: %d (%s), want %d with \"%s\"", rank, rc,
                 gt_last_error(), GT_EINVAL, want);
    } else if (memcmp(before + bytes / sizeof(double), gt_host(res, GT_READ), bytes) != 0) {
        snprintf(why, sizeof why, "rank %d: res was written", rank);
    }
    report("", name, !why[0], why, sizeof why);
    free(before);
    gt_release(u);
    gt_release(res);
    gt_mpi_decomp_release(d);
}

/* twice_mpi with res made for one process (the global shape) on the last rank only: every
   rank fails with GT_ESHAPE before anything is exchanged or written, the last rank's
   message naming itself, the field, both sizes and the fix, the others repeating it (until
   2026-11 the stencil's binding said "field 'res': the domain is N along I", of a domain
   the caller never gave, and no fix); x and res untouched where they are local. */
static void entry_single_storage_on_last(const int64_t global[3])
{
    char name[120], why[600] = "";
    snprintf(name, sizeof name, "twice_mpi, res of one process on the last rank only");
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, NULL, NULL);
    int64_t off[3], box[3];
    gt_mpi_box(d, off, box);
    gt_storage *x, *y;
    size_t bytes;
    double *before = two_filled(d, global, &x, &y, &bytes);
    const int last = nproc - 1;
    gt_storage *whole = gt_zeros(GT_FLOAT64, "IJK", global, NULL);
    int rc = twice_mpi(d, x, rank == last ? whole : y, 0, NULL);
    char want[300];
    int64_t lbox[3];   /* the last rank's box, which its message names */
    memcpy(lbox, box, sizeof lbox);
    MPI_Bcast(lbox, 3, MPI_INT64_T, last, MPI_COMM_WORLD);
    if (lbox[0] != global[0])
        snprintf(want, sizeof want, "gt_mpi_call: rank %d: storage 1 (field 'res') has %lld "
                 "points along I, the decomposition gives this rank %lld (a storage of another "
                 "decomposition? make local storages with gt_mpi_empty or gt_mpi_zeros of this "
                 "decomposition)", last, (long long)global[0], (long long)lbox[0]);
    else
        snprintf(want, sizeof want, "gt_mpi_call: rank %d: storage 1 (field 'res') has %lld "
                 "points along J", last, (long long)global[1]);
    if (nproc == 1 ? rc != 0 : rc != GT_ESHAPE || !strstr(gt_last_error(), want) ||
                                   (rank != last && !strstr(gt_last_error(), "failed (")))
        snprintf(why, sizeof why, "rank %d: status %d: \"%s\", want %s", rank, rc,
                 gt_last_error(), nproc == 1 ? "0" : want);
    else if (nproc > 1 && (memcmp(gt_host(x, GT_READ), before, bytes) ||
                           (rank != last && memcmp(gt_host(y, GT_READ),
                                                   before + bytes / sizeof(double), bytes))))
        snprintf(why, sizeof why, "rank %d: a storage was written", rank);
    report("", name, !why[0], why, sizeof why);
    free(before);
    gt_release(x);
    gt_release(y);
    gt_release(whole);
    gt_mpi_decomp_release(d);
}

/* zeros_mpi on 2 * nproc x 3 x 2 split along I, u of one sign (last 0) on every rank but the
   last and of the other on the last: min and max of u * 0.0 are zeros that compare equal,
   of which the language takes the later one (language.md 5.6: min(0.0, -0.0) is -0), so
   both are the last rank's zero, as they are one process's, the last point of its domain
   being the last rank's. C's fmin and fmax combined the ranks to the first rank's zero
   (glibc): +0 where one process gives -0. Overlapped, the parts combine alike. */
static void zeros_case(bool last_negative, bool overlap)
{
    char name[160], why[300] = "";
    snprintf(name, sizeof name, "zeros_mpi: min and max of +0 and -0 over the ranks, the last "
             "rank's %s, %s", last_negative ? "-0" : "+0", overlap ? "overlapped" : "blocking");
    const int64_t global[3] = {2 * nproc, 3, 2};
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, (const int[2]){nproc, 1}, NULL);
    gt_storage *u = gt_mpi_empty(d, GT_FLOAT64, "IJK", NULL);
    gt_storage *g = gt_empty(GT_FLOAT64, "IJK", global, NULL);
    if (!d || !u || !g) {
        snprintf(why, sizeof why, "rank %d: %s", rank, gt_last_error());
        report("", name, 0, why, sizeof why);
        return;
    }
    const double other = last_negative ? 1.0 : -1.0;
    set_all(u, rank == nproc - 1 ? -other : other);
    double *gp = gt_host(g, GT_WRITE);
    for (int64_t x = 0; x < global[0] * global[1] * global[2]; x++)
        gp[x] = other;
    /* the last rank's box, along I the last 2 points: the other sign */
    const int64_t *st = gt_strides(g);
    for (int64_t i = global[0] - 2; i < global[0]; i++)
        for (int64_t j = 0; j < global[1]; j++)
            for (int64_t k = 0; k < global[2]; k++)
                gp[i * st[0] + j * st[1] + k * st[2]] = -other;
    const double want = last_negative ? -0.0 : 0.0;
    double lo = 7, hi = 7, lo1 = 7, hi1 = 7;
    int rc = zeros_mpi(d, u, &lo, &hi, overlap, NULL);
    if (zeros(g, &lo1, &hi1, &(gt_domain){{global[0], global[1], global[2]}}) != 0)
        snprintf(why, sizeof why, "rank %d: one process: %s", rank, gt_last_error());
    else if (rc != 0)
        snprintf(why, sizeof why, "rank %d: %s", rank, gt_last_error());
    else if (memcmp(&lo, &want, sizeof want) || memcmp(&hi, &want, sizeof want) ||
             memcmp(&lo1, &want, sizeof want) || memcmp(&hi1, &want, sizeof want))
        snprintf(why, sizeof why, "rank %d: min %g, max %g (one process: %g, %g), want %g",
                 rank, lo, hi, lo1, hi1, want);
    report("", name, !why[0], why, sizeof why);
    gt_release(u);
    gt_release(g);
    gt_mpi_decomp_release(d);
}

static void entry_cases(const int64_t g1[3], const int64_t g2[3])
{
    halo_values();
    bc_single_message();
    for (int ov = 0; ov < 2; ov++) {
        bc_case(g1, NULL, ov, true);
        bc_case(g2, (const int[2]){nproc, 1}, ov, true);
        bc_case(g2, (const int[2]){1, nproc}, ov, true);
        twice_in_place(g1, ov);
        nofield_case(ov);
        entry_storages_differ(g1, ov);
        entry_storages_differ(g1, ov ? 2 : 3);
        zeros_case(true, ov);
        zeros_case(false, ov);
    }
    entry_single_storage_on_last(g1);
    bc_case(g1, (const int[2]){nproc, 1}, false, false);
    bc_case(g2, (const int[2]){1, nproc}, true, false);
    for (int which = 0; which < 7; which++)
        scalars_differ(g1, which);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    const int64_t g1[3] = {37, 23, 4}, g2[3] = {19, 30, 3};
    const int open[2] = {0, 0}, periodic[2] = {1, 1};
    for (int which = 0; which < 3; which++)
        for (int ov = 0; ov < 2; ov++) {
            one_case(which, g1, NULL, open, ov);
            one_case(which, g1, NULL, periodic, ov);
            one_case(which, g2, (const int[2]){nproc, 1}, open, ov);
            one_case(which, g2, (const int[2]){1, nproc}, periodic, ov);
        }
    error_cases();
    for (int ov = 0; ov < 2; ov++) {
        heat_case(g1, NULL, 25, ov, false);
        heat_case(g2, (const int[2]){nproc, 1}, 25, ov, false);
        heat_case(g2, (const int[2]){1, nproc}, 25, ov, false);
        heat_case(g1, NULL, 25, ov, true);
        heat_case(g2, (const int[2]){1, nproc}, 25, ov, true);
    }
    entry_cases(g1, g2);
    const int along_i[2] = {1, 0};
    gt__set_device_ops(&nan_device);
    for (int backend = 0; backend < 3; backend++)
        for (int ov = 0; ov < 2; ov++) {
            edges_case(backend, g1, NULL, along_i, ov, false);
            edges_case(backend, g1, NULL, periodic, ov, false);
            edges_case(backend, g2, (const int[2]){nproc, 1}, along_i, ov, false);
            edges_case(backend, g2, (const int[2]){1, nproc}, periodic, ov, false);
            edges_case(backend, g1, NULL, along_i, ov, true);
            edges_case(backend, g2, (const int[2]){1, nproc}, periodic, ov, true);
            regions_case(backend, g1, NULL, open, ov);
            regions_case(backend, g2, (const int[2]){nproc, 1}, open, ov);
            regions_case(backend, g2, (const int[2]){1, nproc}, periodic, ov);
        }
    MPI_Finalize();
    return failures;
}
