/* report.h: one case's verdict over every rank of MPI_COMM_WORLD, for the check_mpi_*.c
 * programs, which define `static int rank, nproc, failures;` before including it. A case
 * passes where it passed on every rank; otherwise the first failing rank sends its message
 * (why, len bytes) to rank 0, which prints "FAIL KINDNAME (np N): why", and every rank counts
 * the failure. */
#ifndef GT_TESTS_MPI_REPORT_H
#define GT_TESTS_MPI_REPORT_H

#include <stdio.h>

#include <mpi.h>

static void report(const char *kind, const char *name, int ok, char *why, size_t len)
{
    int all_ok = 0, mine = ok ? nproc : rank, first = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok && first < nproc && first != 0) {
        if (rank == first)
            MPI_Send(why, (int)len, MPI_CHAR, 0, 7, MPI_COMM_WORLD);
        if (rank == 0)
            MPI_Recv(why, (int)len, MPI_CHAR, first, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == 0)
        printf("%s %s%s (np %d)%s%s\n", all_ok ? "PASS" : "FAIL", kind, name, nproc,
               all_ok ? "" : ": ", all_ok ? "" : why[0] ? why : "failed on another rank");
    failures += !all_ok;
}

#endif
