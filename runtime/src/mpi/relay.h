/* relay.h: a rank's failure explained on every rank (mpi.c's agreements, entry.c's): once
 * the ranks have agreed that rank `who` failed, it sends its message to the others, so that
 * a program printing only rank 0's messages says why. Every rank calls it (a collective). */
#ifndef GT_MPI_RELAY_H
#define GT_MPI_RELAY_H

#include <stdint.h>
#include <stdio.h>

#include <gt/gt_generated.h>
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

/* A rank's outcome as a value for an MPI_MAX over the ranks: -(rc * 2^32 + rank), so that
   the most negative rc, then the lowest rank, wins; success is INT64_MIN, which no failure
   (a positive rc either: its key is negative too) loses to. */
static inline int64_t gt__mpi_fail_key(int rc, int rank)
{
    return rc ? -((int64_t)rc * ((int64_t)1 << 32) + rank) : INT64_MIN;
}

/* The worst rc that MPI_MAX of the ranks' keys gave, 0 where none failed; *who: its rank. */
static inline int gt__mpi_fail_worst(int64_t most, int *who)
{
    const int64_t ranks = (int64_t)1 << 32;
    int64_t key = most == INT64_MIN ? 0 : -most, low = (key % ranks + ranks) % ranks;
    *who = (int)low;
    return (int)((key - low) / ranks);
}

/* mpi.c: the ranks' scalar arguments of one call of stencil info (the checking call's, n of
   them; error: GT_ENOMEM where this rank could not keep them) alike, every rank calling:
   one MPI_Allreduce of a digest of their number and values (equal values alike: -0.0 and
   0.0, any two NaNs), and only where it differs, their number, then each value. 0, or the same code on every rank: GT_EINVAL naming the
   first scalar that differs, its two values and the lowest ranks that pass them. */
int gt__mpi_same_scalars(MPI_Comm comm, const char *fn, int rank, const gt_stencil_info *info,
                         const gt__scalar *scalars, int n, int error);

#endif
