/* relay.h: a rank's failure explained on every rank (mpi.c's agreements, entry.c's): once
 * the ranks have agreed that rank `who` failed, it sends its message to the others, so that
 * a program printing only rank 0's messages says why. Every rank calls it (a collective). */
#ifndef GT_MPI_RELAY_H
#define GT_MPI_RELAY_H

#include <stdio.h>

#include <gt/gt_mpi.h>

/* 0 when MPI is up, else GT_EMPI recorded for fn ("MPI is not initialized", "MPI is
   finalized"): every collective function asks first (mpi.c). */
int gt__mpi_down(const char *fn);

enum { GT_MPI_RELAYED = 400 };   /* bytes of the failing rank's message sent to the others */

/* theirs (GT_MPI_RELAYED bytes): rank who's gt_last_error(), on every rank ("see its
   message" where the broadcast fails). */
static inline void gt__mpi_relay(MPI_Comm comm, int rank, int who, char *theirs)
{
    theirs[0] = 0;
    if (rank == who)
        snprintf(theirs, GT_MPI_RELAYED, "%s", gt_last_error());
    if (MPI_Bcast(theirs, GT_MPI_RELAYED, MPI_CHAR, who, comm) != MPI_SUCCESS)
        snprintf(theirs, GT_MPI_RELAYED, "see its message");
    theirs[GT_MPI_RELAYED - 1] = 0;
}

#endif
