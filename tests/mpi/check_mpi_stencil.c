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

static int rank, nproc, failures;

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
                bool in_global = true;
                for (int a = 0; a < 2; a++) {
                    if (g[a] >= 0 && g[a] < global[a])
                        continue;
                    in_global = false;
                    if (periodic[a])
                        g[a] = wrap(g[a], global[a]);
                }
                double v = input(f, g[0], g[1], g[2]);
                /* inside the domain but another rank's, or wrapped around a periodic axis
                   split over several ranks: only the exchange may fill it */
                if (internal_nan && !in_box && (in_global || periodic[0] || periodic[1]))
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
} Call;

static const int nfields[3] = {3, 3, 5};
static const gt_stencil_info *const infos[3] = {&hdiff_info, &jacobi3d_info, &tridiagonal_info};

static int run(void *ctx, const gt_domain *dom)
{
    Call *c = ctx;
    gt_storage **f = c->f;
    return c->which == 0   ? hdiff(f[0], f[1], f[2], dom)
           : c->which == 1 ? jacobi3d(f[0], f[1], f[2], 0.25, dom)
                           : tridiagonal(f[0], f[1], f[2], f[3], f[4], dom);
}

/* The interior of s (this rank's box) into buf, I fastest, then J, then K. */
static void interior(gt_storage *s, double *buf)
{
    const int64_t *shape = gt_shape(s), *st = gt_strides(s);
    const int64_t (*h)[2] = gt_halo(s);
    const double *p = gt_host(s, GT_READ);
    size_t at = 0;
    for (int64_t k = h[2][0]; k < shape[2] - h[2][1]; k++)
        for (int64_t j = h[1][0]; j < shape[1] - h[1][1]; j++)
            for (int64_t i = h[0][0]; i < shape[0] - h[0][1]; i++)
                buf[at++] = p[i * st[0] + j * st[1] + k * st[2]];
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
        Call c = {which, {NULL}};
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
    Call c = {which, {NULL}};
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
    /* gather every rank's box and its interior on rank 0 */
    int64_t mine[6] = {off[0], off[1], off[2], box[0], box[1], box[2]};
    int64_t *boxes = malloc(sizeof *boxes * 6 * (size_t)nproc);
    MPI_Gather(mine, 6, MPI_INT64_T, boxes, 6, MPI_INT64_T, 0, MPI_COMM_WORLD);
    size_t count = (size_t)(box[0] * box[1] * box[2]);
    double *part = malloc(count * sizeof *part);
    interior(c.f[nf - 1], part);
    int *counts = malloc(sizeof *counts * (size_t)nproc), *displs = malloc(sizeof *displs * (size_t)nproc);
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
                            snprintf(why, sizeof why, "rank %d, global (%lld, %lld, %lld): %.17g, "
                                     "single process %.17g", r, (long long)(b[0] + i),
                                     (long long)(b[1] + j), (long long)k, all[at], ref[g]);
                    }
        }
        if (differ)
            snprintf(why + strlen(why), sizeof why - strlen(why), " (%ld elements differ)", differ);
    }
    int ok = !why[0] && !bad, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s %s (np %d)%s%s\n", all_ok ? "PASS" : "FAIL", name, nproc, all_ok ? "" : ": ",
               all_ok ? "" : why[0] ? why : "failed on another rank");
    failures += !all_ok;
    free(ref);
    free(all);
    free(part);
    free(boxes);
    free(counts);
    free(displs);
    for (int f = 0; f < nf; f++)
        gt_release(c.f[f]);
    gt_mpi_decomp_release(d);
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
    MPI_Finalize();
    return failures;
}
