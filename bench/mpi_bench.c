/* mpi_bench.c: distributed hdiff per step, `make bench` (bench/mpi_bench.sh runs it under
 * mpirun on 1, 2 and 4 processes, OMP_NUM_THREADS=1 each).
 *
 * A global domain of 512 x 512 x 32 doubles, decomposed by gt_mpi_decompose (grid chosen),
 * halo 2; each step is one gt_mpi_call of hdiff (gtcc -b openmp), blocking or overlapped,
 * after 3 warm-up steps. Per step the slowest rank's exchange time (posting the messages,
 * then waiting for them: for the overlapped form the wait after the inner box) and compute
 * time, and the
 * step's wall time (MPI_Barrier before, timed to the last rank's return); printed as
 * medians over STEPS steps. */
#include <stdio.h>
#include <stdlib.h>

#include <gt/gt_mpi.h>

#include "bench.h"
#include "hdiff.h"

enum { STEPS = 21, WARMUP = 3 };

typedef struct { gt_storage *u, *coeff, *out; } Args;

static int call(void *ctx, const gt_domain *dom)
{
    Args *a = ctx;
    return hdiff(a->u, a->coeff, a->out, dom);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nproc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    const int64_t global[3] = {512, 512, 32};
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, NULL, (const int[2]){1, 1});
    if (!d) {
        fprintf(stderr, "mpi_bench: %s\n", gt_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int dims[2];
    gt_mpi_grid(d, dims, NULL, NULL);
    gt_storage_opts o = {0};
    o.halo[0][0] = o.halo[0][1] = o.halo[1][0] = o.halo[1][1] = 2;
    Args a = {gt_mpi_zeros(d, GT_FLOAT64, "IJK", &o), gt_mpi_zeros(d, GT_FLOAT64, "IJK", &o),
              gt_mpi_zeros(d, GT_FLOAT64, "IJK", &o)};
    gt_storage *s[3] = {a.u, a.coeff, a.out};
    gt_halo_widths w[3];
    for (int f = 0; f < 3; f++)
        gt_mpi_widths(&hdiff_info, f, w[f]);
    if (rank == 0)
        printf("hdiff, %lld x %lld x %lld doubles over %d process%s (grid %d x %d), medians of "
               "%d steps, slowest rank:\n", (long long)global[0], (long long)global[1],
               (long long)global[2], nproc, nproc > 1 ? "es" : "", dims[0], dims[1], STEPS);
    for (int overlap = 0; overlap < 2; overlap++) {
        double ex[STEPS], comp[STEPS], wall[STEPS];
        for (int step = 0; step < WARMUP + STEPS; step++) {
            double t[2], worst[2];
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (gt_mpi_call(d, s, 3, w, call, &a, overlap, t) != 0) {
                fprintf(stderr, "mpi_bench: %s\n", gt_last_error());
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            double mine = MPI_Wtime() - t0, slowest;
            MPI_Reduce(t, worst, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            if (step >= WARMUP) {
                ex[step - WARMUP] = worst[0];
                comp[step - WARMUP] = worst[1];
                wall[step - WARMUP] = slowest;
            }
        }
        if (rank == 0)
            printf("  %-11s step %8.3f ms   exchange %8.3f ms   compute %8.3f ms\n",
                   overlap ? "overlapped" : "blocking", 1e3 * median(wall, STEPS),
                   1e3 * median(ex, STEPS), 1e3 * median(comp, STEPS));
    }
    gt_release(a.u);
    gt_release(a.coeff);
    gt_release(a.out);
    gt_mpi_decomp_release(d);
    MPI_Finalize();
    return 0;
}
