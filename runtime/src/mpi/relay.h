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

/* Where the ranks agreed that rank `who` failed with `worst`: its message sent to every
   rank ("see its message" where the broadcast fails), then the code every rank returns:
   rc where this rank failed with worst itself (its own message kept), else worst,
   recorded as "FN: rank WHO failed (ITS MESSAGE); OUTCOME" (NULL: "nothing was done"),
   this rank's own message after it where it failed otherwise. A collective. */
static inline int gt__mpi_failed(MPI_Comm comm, const char *fn, int rank, int rc, int worst,
                                 int who, const char *outcome)
{
    char theirs[GT_MPI_RELAYED] = "";
    if (rank == who)
        snprintf(theirs, GT_MPI_RELAYED, "%s", gt_last_error());
    if (MPI_Bcast(theirs, GT_MPI_RELAYED, MPI_CHAR, who, comm) != MPI_SUCCESS)
        snprintf(theirs, GT_MPI_RELAYED, "see its message");
    theirs[GT_MPI_RELAYED - 1] = 0;
    if (rc == worst)
        return rc;
    char own[600] = "";
    if (rc != 0)
        snprintf(own, sizeof own, " (this rank: %s)", gt_last_error());
    return gt__error(worst, "%s: rank %d failed (%s); %s%s", fn, who, theirs,
                     outcome ? outcome : "nothing was done", own);
}

/* mpi.c: the worst of every rank's rc (0 where none failed), the same on every rank, in the
   first agreement of a collective call where one is open (gt__mpi_open); a failure is
   recorded as gt__mpi_failed says, with outcome. */
int gt__mpi_agree(MPI_Comm comm, const char *fn, int rc, const char *outcome);

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

/* The collective calls, told apart by the first agreement of each (gt__mpi_open). */
typedef enum {
    GT_MPI_DECOMPOSE = 1,
    GT_MPI_LOCAL,      /* gt_mpi_empty, gt_mpi_zeros */
    GT_MPI_EXCHANGE,   /* gt_halo_exchange, gt_halo_exchange_begin */
    GT_MPI_CALL,       /* gt_mpi_call */
    GT_MPI_STEPS,      /* gt_mpi_steps */
    GT_MPI_ENTRY       /* gt__mpi_entry: a generated S_mpi (C, Python) */
} gt__mpi_collective;

/* mpi.c: this thread's next agreement is the first of collective call `call`. That
   agreement's MPI_Allreduce (gt__mpi_open_allreduce) then has one size in every call, and
   carries which call it is: a rank that skipped a call, or made one more, meets another
   call's first agreement there, which every rank taking part refuses alike (GT_EINVAL,
   naming both calls and two ranks), where different sizes left a rank waiting for ever. */
void gt__mpi_open(gt__mpi_collective call);

/* MPI_MAX over the ranks of mine[0 .. n - 1] (int64) into most: padded to one size and
   checked as above where an opening is pending (n <= GT_MPI_OPENING - 2). 0, or a code
   recorded for fn (GT_EMPI, GT_EINVAL for calls that differ). */
enum { GT_MPI_OPENING = 24 };
int gt__mpi_open_allreduce(MPI_Comm comm, const char *fn, int rank, const int64_t *mine,
                           int64_t *most, int n);

/* mpi.c: the ranks' scalar arguments of one call of stencil info (the checking call's, n of
   them; error: GT_ENOMEM where this rank could not keep them) alike, every rank calling:
   one MPI_Allreduce of a digest of their number and values (equal values alike: -0.0 and
   0.0, any two NaNs), and only where it differs, their number, then each value. 0, or the same code on every rank: GT_EINVAL naming the
   first scalar that differs, its two values and the lowest ranks that pass them. */
int gt__mpi_same_scalars(MPI_Comm comm, const char *fn, int rank, const gt_stencil_info *info,
                         const gt__scalar *scalars, int n, int error);

#endif
