/* call.h: the state of a distributed call (gt_mpi_call, gt__mpi_entry) and the hooks through
 * which the core's placed call (gt__placement, rt.h) reaches it; call.c, MPI-free (the unit
 * tests link it without MPI). mpi.c and entry.c fill the placement and run the call.
 *
 * The core sees a placement: where this rank's part lies in the global domain, which edges
 * are inner (their halos come from the exchange), where the domain wraps. What only the
 * distributed call knows stays here: the rank (for messages), the storages exchanged and
 * their widths, what the checking call finds each storage needs (and which field needs it),
 * the out scalars of the parts, the outputs and out scalars the checking call keeps, and
 * whether the run-time K levels are checked before or after the exchange. */
#ifndef GT_MPI_CALL_H
#define GT_MPI_CALL_H

#include <stdbool.h>
#include <stdint.h>

#include "rt.h"

typedef int64_t gt__mpi_widths[2][2]; /* gt_mpi.h's gt_halo_widths: [I/J][lower/upper] */

/* An out scalar of a distributed call: its combined value so far. */
typedef struct {
    int op;                 /* 0 sum, 1 min, 2 max */
    gt_dtype dtype;
    void *result;           /* where the stencil wrote it */
    union { double d; float f; int32_t i; bool b; } value;
    int set;                /* a part has given a value */
} gt__reduction;

/* A distributed call while it runs. */
typedef struct {
    gt__placement place;            /* what the core sees (place.ctx is this call) */
    int rank;
    int n;                          /* storages exchanged */
    gt_storage *const *storages;
    const gt__mpi_widths *widths;   /* per storage: the widths exchanged */
    gt__mpi_widths *needed;         /* per storage: the widest reach of the fields bound to
                                       it, filled by the checking call */
    const char **needed_by;         /* per storage: the field that needs the most */
    gt__reduction *red;             /* the out scalars, by slot */
    int nred, cap;
    int red_error;                  /* 0, or GT_ENOMEM (red could not grow, an out scalar
                                       could not be kept) or GT_EINVAL (parts disagree) */
    int levels;                     /* run-time K levels checked before the parts: 1 by the
                                       checking call, 2 after the exchange (gt__levels_now) */
    gt__kept *kept;                 /* outputs and out scalars the checking call kept */
    gt__scalar *scalars;            /* the checking call's scalar arguments (copies; the
                                       names are the generated code's literals) */
    int nscalars;
    int scalars_error;              /* GT_ENOMEM: they could not be kept */
} gt__mpi_call;

/* Starts c for rank's call over the storages (n of them; needed and needed_by per storage,
   or NULL): everything zero but the rank (the placement's "rank N"), the storages and the
   hooks; the caller fills the rest of c->place. */
void gt__mpi_call_init(gt__mpi_call *c, int rank, int n, gt_storage *const *storages,
                       gt__mpi_widths *needed, const char **needed_by);
/* The end of a distributed call: the outputs and out scalars c kept put back if rc != 0,
   and freed; returns rc (or GT_EDEVICE if putting them back failed). */
int gt__mpi_call_end(gt__mpi_call *c, int rc);
/* Frees the out scalars (after combining them) and the scalar arguments kept. */
void gt__mpi_call_free(gt__mpi_call *c);
/* mpi.c: frees the pinned staging buffer and the stream that halo exchanges packing on the
   device keep between exchanges (also done at exit), as gt__transfer_trim does for
   transfer.c's. */
void gt__mpi_trim(void);
/* mpi.c: names (n of them, NULL: none) of the storages of the gt_mpi_call this thread makes
   next, for its messages ("storage 1's dtype (field 'res')"): gt__mpi_entry names each
   storage after the first field that has it, and clears them after the call. */
void gt__mpi_storage_names(const char *const *names, int n);
/* Combines value (of the reduction's dtype) into r: sum, fmin/fmax, min/max, and/or. */
void gt__reduction_combine(gt__reduction *r, const void *value);

#endif /* GT_MPI_CALL_H */
