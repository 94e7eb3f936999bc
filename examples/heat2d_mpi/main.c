/* examples/heat2d_mpi/main.c: heat diffusion on a periodic plane split over MPI ranks
 * (heat2d_mpi.stn: the stencil of examples/heat2d, its periodic boundary condition
 * included), written as a PGM image by rank 0.
 *
 * The same problem as examples/heat2d: two hot squares, one of them across the plane's
 * edge, spread for STEPS steps. The plane is decomposed over the ranks of MPI_COMM_WORLD
 * (gt_mpi_decompose, periodic along I and J); each rank holds its box with the halo
 * gt_mpi_halo gives (one point: what heat reads across an edge), and each step is one call
 * of heat_mpi, the distributed entry the generated header defines after <gt/gt_mpi.h>
 * (halo exchange, then the stencil on the box, the exchange overlapped with the inner
 * box). Rank 0 gathers the field, prints the peak
 * temperature and the total heat, and writes heat2d_mpi.pgm (or argv[1]): the same bytes
 * whatever the number of ranks (tests/mpi/run.sh compares -np 1 with -np 4). */
#include <stdio.h>
#include <stdlib.h>

#include <gt/gt_mpi.h>

#include "heat2d_mpi.gen.h"

enum { NI = 128, NJ = 96, STEPS = 400 };

static void die(const char *what)
{
    fprintf(stderr, "heat2d_mpi: %s: %s\n", what, gt_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nproc;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    const char *image = argc > 1 ? argv[1] : "heat2d_mpi.pgm";
    const int64_t global[3] = {NI, NJ, 1};
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, NULL, (const int[2]){1, 1});
    if (!d)
        die("gt_mpi_decompose");
    int64_t off[3], box[3];
    gt_mpi_box(d, off, box);
    /* the halo of heat's u (its field 0) in a distributed run: 1 along I and J, where one
       process needs none (the periodic condition wraps); unew takes it too, since the two
       swap roles after each step */
    gt_storage_opts o = {0};
    if (gt_mpi_halo(&heat_info, 0, "IJK", o.halo) != 0)
        die("gt_mpi_halo");
    const int64_t halo_i = o.halo[0][0], halo_j = o.halo[1][0];
    gt_storage *u = gt_mpi_zeros(d, GT_FLOAT64, "IJK", &o);
    gt_storage *unew = gt_mpi_zeros(d, GT_FLOAT64, "IJK", &o);
    if (!u || !unew)
        die("gt_mpi_zeros");
    double *p = gt_host(u, GT_WRITE);
    const int64_t *st = gt_strides(u);
    for (int64_t i = 0; i < box[0]; i++)
        for (int64_t j = 0; j < box[1]; j++) {
            int64_t gi = off[0] + i, gj = off[1] + j;
            int hot = (gi >= 30 && gi < 50 && gj >= 40 && gj < 60) ||            /* inside */
                      ((gi < 10 || gi >= NI - 10) && gj >= 10 && gj < 25);     /* across */
            p[(i + halo_i) * st[0] + (j + halo_j) * st[1]] = hot ? 1.0 : 0.0;
        }
    for (int s = 0; s < STEPS; s++) {
        /* the halos exchanged as far as heat reads (u: 1 on each side, unew: none) */
        if (heat_mpi(d, u, unew, 0.2, 1 /* overlap */, NULL) != 0)
            die("heat_mpi");
        gt_storage *t = u;
        u = unew;
        unew = t;
    }
    /* gather the boxes on rank 0: offsets and sizes, then the values (I fastest) */
    double *mine = malloc(sizeof *mine * (size_t)(box[0] * box[1]));
    p = gt_host(u, GT_READ);
    st = gt_strides(u);
    for (int64_t j = 0; j < box[1]; j++)
        for (int64_t i = 0; i < box[0]; i++)
            mine[j * box[0] + i] = p[(i + halo_i) * st[0] + (j + halo_j) * st[1]];
    int64_t me[4] = {off[0], off[1], box[0], box[1]}, *boxes = malloc(sizeof *boxes * 4 * (size_t)nproc);
    MPI_Gather(me, 4, MPI_INT64_T, boxes, 4, MPI_INT64_T, 0, MPI_COMM_WORLD);
    int *counts = malloc(sizeof *counts * (size_t)nproc), *displs = malloc(sizeof *displs * (size_t)nproc);
    double *parts = rank == 0 ? malloc(sizeof *parts * NI * NJ) : NULL;
    for (int r = 0, at = 0; rank == 0 && r < nproc; r++) {
        counts[r] = (int)(boxes[4 * r + 2] * boxes[4 * r + 3]);
        displs[r] = at;
        at += counts[r];
    }
    MPI_Gatherv(mine, (int)(box[0] * box[1]), MPI_DOUBLE, parts, counts, displs, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
    int rc = 0;
    if (rank == 0) {
        static double field[NJ][NI];
        for (int r = 0; r < nproc; r++) {
            const int64_t *b = boxes + 4 * r;
            for (int64_t j = 0; j < b[3]; j++)
                for (int64_t i = 0; i < b[2]; i++)
                    field[b[1] + j][b[0] + i] = parts[displs[r] + j * b[2] + i];
        }
        double sum = 0, peak = 0;
        for (int j = 0; j < NJ; j++)
            for (int i = 0; i < NI; i++) {
                sum += field[j][i];
                peak = field[j][i] > peak ? field[j][i] : peak;
            }
        int dims[2];
        gt_mpi_grid(d, dims, NULL, NULL);
        printf("heat2d_mpi: %d steps on a periodic %dx%d plane over %d rank%s (grid %d x %d)\n",
               STEPS, NI, NJ, nproc, nproc > 1 ? "s" : "", dims[0], dims[1]);
        printf("  peak temperature: %.4f, total heat %.6f\n", peak, sum);
        FILE *f = fopen(image, "wb");
        if (!f) {
            perror(image);
            rc = 1;
        } else {
            fprintf(f, "P5\n%d %d\n255\n", NI, NJ);
            for (int j = NJ - 1; j >= 0; j--)
                for (int i = 0; i < NI; i++) {
                    double v = field[j][i] / peak;
                    fputc((int)(255.0 * (v < 0 ? 0 : v > 1 ? 1 : v) + 0.5), f);
                }
            rc = fclose(f) != 0;
            printf("  image of the field: %s (PGM, %dx%d, white = hottest)\n", image, NI, NJ);
        }
    }
    free(mine);
    free(boxes);
    free(counts);
    free(displs);
    free(parts);
    gt_release(u);
    gt_release(unew);
    gt_mpi_decomp_release(d);
    MPI_Finalize();
    return rc;
}
