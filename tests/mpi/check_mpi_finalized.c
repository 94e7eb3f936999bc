/* check_mpi_finalized.c: every collective function of libgtrt-mpi called after MPI_Finalize
 * returns GT_EMPI saying that MPI is finalized, writing nothing (docs/mpi.md, "Errors").
 * MPI forbids any MPI call after MPI_Finalize but a few (MPI_Initialized, MPI_Finalized):
 * Open MPI aborts the process on one ("The MPI_Comm_rank() function was called after
 * MPI_FINALIZE was invoked"), and every one of these functions did so, although
 * runtime.md promises that none aborts on bad input. Each rank finds it out by itself
 * (a finalized rank cannot tell the others), so each case is checked on every rank.
 * Built by tests/mpi/run.sh with tests/mpi/steps.stn and tests/mpi/entries.stn (openmp). */
#include <stdio.h>
#include <string.h>

#include <gt/gt_mpi.h>

#include "entries.h"
#include "steps.h"

static int rank, failures;

static void expect(const char *what, int rc)
{
    const char *msg = gt_last_error();
    if (rc == GT_EMPI && strstr(msg, "MPI is finalized")) {
        printf("PASS finalized: rank %d: %s after MPI_Finalize is GT_EMPI\n", rank, what);
    } else {
        printf("FAIL finalized: rank %d: %s after MPI_Finalize: status %d (%s), want GT_EMPI "
               "saying that MPI is finalized\n", rank, what, rc, msg);
        failures++;
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int64_t G[3] = {12, 10, 1};
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, G, NULL, NULL);
    gt_storage_opts o;
    memset(&o, 0, sizeof o);
    if (!d || gt_mpi_steps_halo(&sdi_info, 0, "IJ", 1, o.halo) != 0) {
        printf("FAIL finalized: rank %d: setting up: %s\n", rank, gt_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    gt_storage *u = gt_mpi_zeros(d, GT_FLOAT64, "IJ", &o);
    gt_storage *un = gt_mpi_zeros(d, GT_FLOAT64, "IJ", &o);
    gt_storage *c = gt_mpi_zeros(d, GT_FLOAT64, "IJ", &o);
    gt_exchange *pending = gt_halo_exchange_begin(d, &u, 1, NULL);
    if (!u || !un || !c || !pending) {
        printf("FAIL finalized: rank %d: setting up: %s\n", rank, gt_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* a pending exchange waits until after MPI_Finalize; the halos keep a sentinel */
    double *h = gt_host(u, GT_READWRITE);
    int64_t span = gt_shape(u)[0] * gt_strides(u)[0];
    for (int64_t e = 0; e < span; e++)
        h[e] = 42.0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();

    gt_decomp *e = gt_mpi_decompose(MPI_COMM_WORLD, G, NULL, NULL);
    expect("gt_mpi_decompose", e ? 0 : gt_last_error_code());
    gt_storage *s = gt_mpi_empty(d, GT_FLOAT64, "IJ", NULL);
    expect("gt_mpi_empty", s ? 0 : gt_last_error_code());
    gt_release(s);
    s = gt_mpi_zeros(d, GT_FLOAT64, "IJ", NULL);
    expect("gt_mpi_zeros", s ? 0 : gt_last_error_code());
    gt_release(s);
    expect("gt_halo_exchange", gt_halo_exchange(d, &u, 1, NULL));
    gt_exchange *x = gt_halo_exchange_begin(d, &u, 1, NULL);
    expect("gt_halo_exchange_begin", x ? 0 : gt_last_error_code());
    expect("gt_halo_exchange_end of an exchange begun before", gt_halo_exchange_end(pending));
    expect("sdi_mpi (gt_mpi_call)", sdi_mpi(d, u, un, c, 0.1, 0, NULL));
    expect("sdi_steps_mpi (gt_mpi_steps)", sdi_steps_mpi(d, u, un, c, 0.1, 3, 1, NULL));
    double sum = -1;
    int32_t n = -1;
    expect("nofield_mpi (a stencil without fields)", nofield_mpi(d, 1.0, &sum, &n, 0, NULL));
    int written = sum != -1 || n != -1;
    for (int64_t k = 0; k < span; k++)
        written |= h[k] != 42.0;
    if (written) {
        printf("FAIL finalized: rank %d: a refused call wrote a storage or an out scalar\n",
               rank);
        failures++;
    } else {
        printf("PASS finalized: rank %d: the refused calls wrote nothing\n", rank);
    }
    gt_release(u);
    gt_release(un);
    gt_release(c);
    gt_mpi_decomp_release(d);
    return failures != 0;
}
