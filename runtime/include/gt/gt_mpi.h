/* gt_mpi.h: distributed runs over MPI (libgtrt-mpi; docs/mpi.md). Not included by
 * <gt/gt.h>: a program that uses it includes <mpi.h> through this header and links
 * `pkg-config --libs gtrt-mpi`.
 *
 * A decomposition splits the IJ plane of a global domain over the processes of an MPI
 * communicator (a Cartesian grid of processes; K is not split). Each rank owns a box of
 * the global domain: its offset (the global index of its first point) and its size. Local
 * storages hold a rank's box and a halo; a halo exchange fills the halos from the
 * neighbouring ranks' interiors (corners included, from the diagonal neighbours), or, on
 * a periodic axis, wraps around the process grid. Halos on the global edges of a
 * non-periodic axis are left as they are.
 *
 * Every function but gt_mpi_box, gt_mpi_grid, gt_mpi_comm and gt_mpi_widths is collective
 * over the decomposition's communicator: every rank calls it, with arguments that agree
 * (docs/mpi.md, "Agreement": the same sizes, dtypes, axes, layouts, K extents and widths;
 * each rank its own storages). It checks them before anything is sent: when a rank's
 * arguments are wrong, or differ from another rank's, every rank returns the same negative
 * GT_E... code (GT_EINVAL for a difference; the worst code where ranks fail differently),
 * or NULL with gt_last_error_code() giving it, and gt_last_error() names the rank where it
 * failed ("rank 2: ...") or the ranks whose arguments differ, what differs and their values
 * ("ranks 0 and 3 disagree on ..."); nothing is sent, written or made then. A rank that
 * makes another collective call than the others (it skipped one, or made one more) fails
 * every rank in it alike ("ranks 0 and 3 are in different collective calls (...)"). MPI
 * failures are GT_EMPI with MPI's error string; so is a call before MPI_Init or after
 * MPI_Finalize (each rank by itself: a finalized rank cannot tell the others). */
#ifndef GT_MPI_H
#define GT_MPI_H

#include <mpi.h>
#include <stdint.h>

#include <gt/gt.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gt_decomp gt_decomp; /* opaque */

/* Decomposes the IJ plane of the global domain global[3] (NI, NJ, NK, each >= 1) over
   comm. dims[2]: processes along I and J, 0 = choose (as MPI_Dims_create, or, where its
   grid leaves a rank without a point, the most balanced grid that does not); NULL: both 0;
   a nonzero product must equal the communicator's size. periodic[2]: per axis, nonzero =
   periodic (NULL: neither). Remainders are spread evenly: the first NI % PI ranks along I
   own one more column. Every rank must own at least one point along I and J. */
gt_decomp *gt_mpi_decompose(MPI_Comm comm, const int64_t global[3], const int dims[2],
                            const int periodic[2]);
/* The same, comm a Fortran handle (MPI_Comm_f2c): for the Fortran module gtrt_mpi. */
gt_decomp *gt_mpi_decompose_f(MPI_Fint comm, const int64_t global[3], const int dims[2],
                              const int periodic[2]);
void gt_mpi_decomp_release(gt_decomp *);

/* This rank's box: offset[3] (global index of its first point; 0 along K) and size[3].
   Either may be NULL. */
int gt_mpi_box(const gt_decomp *, int64_t offset[3], int64_t size[3]);
/* The process grid (dims[2]), this rank's coordinates in it (coords[2]) and its rank in the
   decomposition's communicator; each may be NULL. */
int gt_mpi_grid(const gt_decomp *, int dims[2], int coords[2], int *rank);
/* The communicator of the decomposition (a Cartesian communicator made from comm). */
MPI_Comm gt_mpi_comm(const gt_decomp *);

/* A local storage for this rank: like gt_empty / gt_zeros, its shape along I, J and K being
   this rank's box grown by opts->halo (axes: any ordered subset of "IJK"). */
gt_storage *gt_mpi_empty(const gt_decomp *, gt_dtype, const char *axes,
                         const gt_storage_opts *opts);
gt_storage *gt_mpi_zeros(const gt_decomp *, gt_dtype, const char *axes,
                         const gt_storage_opts *opts);

/* Halo widths per storage: [I or J][lower or upper], in points. */
typedef int64_t gt_halo_widths[2][2];
/* The widths stencil info says field f is read at beyond the domain along I and J
   (S_info.fields[f].reach: boundary conditions or not, since they apply on the global
   edges only). */
int gt_mpi_widths(const gt_stencil_info *info, int field, gt_halo_widths out);

/* Fills the halos of n storages, widths[s] of storage s (NULL: each storage's whole halo
   along I and J), from the neighbouring ranks: the lower I halo of width w from the last w
   columns of the neighbour below along I, and so on; corners from the diagonal neighbours.
   Each storage must be a local storage of this decomposition (its interior this rank's box
   along the axes it has), with a halo at least as wide as its widths, and every rank's box
   at least as wide as each width it sends to a neighbour (the lower width up, the upper
   one down) along each decomposed axis. A storage whose device side is as new as its host
   side or newer, or a device-only one, is exchanged on the device where the device layer
   packs (only the strips cross the bus); any other through its host side (docs/mpi.md,
   "Storages on a device"). Blocking. */
int gt_halo_exchange(const gt_decomp *, gt_storage *const *storages, int n,
                     const gt_halo_widths *widths);

/* The same in two halves: begin checks and posts every message (the storages' halos must
   not be read, nor their interiors written, until end returns); end waits for them, writes
   the halos and releases the exchange. NULL from begin on failure. */
typedef struct gt_exchange gt_exchange;
gt_exchange *gt_halo_exchange_begin(const gt_decomp *, gt_storage *const *storages, int n,
                                    const gt_halo_widths *widths);
int gt_halo_exchange_end(gt_exchange *);

/* A distributed call of a generated stencil over the n storages it takes: call(ctx,
   domain) must call exactly one generated stencil, on those storages, with the domain it
   is given. First a checking call (the stencil returns after its argument checks and says
   what it reads beyond the internal edges of this rank's box), agreed by every rank; then
   the storages' halos are exchanged with widths[k] (NULL: as far as the stencil reads on
   any rank; explicit widths must cover that), and the stencil runs on this rank's box with
   index(i), index(j) global, boundary conditions on the global edges only (a periodic one
   needs a decomposition periodic along its axis) and out scalars combined over the ranks
   (min, max exact; sums in rank order: rounding differs from one process's), written where
   the stencil wrote its own values, after call() has returned for the last time: the out
   scalars' variables must outlive gt_mpi_call (a local of call() that it copies out on
   return holds this rank's last part only). With overlap,
   the exchange is started, the inner box (the box less the widest width on each side)
   computed while the messages travel, the exchange finished, and the four strips around the
   inner box computed: each part by call() on the storages with their interiors moved to the
   part (the part's offset in the placement of the call, which the binding of each storage
   reads: the storages themselves are never changed); a stencil whose parts would read
   what another part wrote (it writes a field and reads it beyond the point, or has an output
   lacking I or J) computes its box in one part, after the exchange. The results are the
   same bits either way. times (may be NULL): seconds spent [0] exchanging (posting the
   messages, packing included, and waiting for them: for the overlapped form the wait after
   the inner box) and [1] computing, on this rank. */
typedef int gt_mpi_stencil_fn(void *ctx, const gt_domain *domain);
int gt_mpi_call(const gt_decomp *, gt_storage *const *storages, int n,
                const gt_halo_widths *widths, gt_mpi_stencil_fn *call, void *ctx, int overlap,
                double times[2]);

/* The halo a local storage of field `field` of a stencil (S_info) needs in any distributed
   call: along I and J as far as the stencil reads beyond its domain (S_info.fields[f].reach,
   which a boundary condition does not reduce: on a rank's internal edges the field is read
   from its halo), along K S_info.fields[f].halo. One row per axis of `axes`, in its order
   (NULL: the field's own axes), as gt_storage_opts.halo wants for a storage of those axes;
   the rows after them 0. Not collective. GT_EINVAL for a NULL info or halo or a field out of
   range, GT_EAXES when axes are not the field's (in any order). */
int gt_mpi_halo(const gt_stencil_info *info, int field, const char *axes, int64_t halo[3][2]);

/* A distributed S_steps (language.md section 11) of a stencil with iterate (info:
   S_info, npairs >= 1): nsteps steps of step(ctx, fields, domain), which must call exactly
   one generated stencil, S, on the info->nfields storages it is given (in parameter order,
   the pairs' storages swapped between steps) with the domain it is given. fields: this
   rank's local storages of S's fields, in parameter order. Communication-avoiding: in blocks
   of T steps (tblock; 0: the default, the most that every rank's storages allow, at most 8;
   never more than nsteps), the pairs' current storages' halos are exchanged T * w deep (w:
   S_info's widest reach of a pair's field, per axis and side), the other fields' once, and
   step s of a block is computed on this rank's box grown by (T - s) * w on its inner edges
   (redundantly with the neighbours), so that the box is exact after the block; boundary
   conditions on the global edges only, as gt_mpi_call. Before anything, the single call's
   checks (both orders of the pairs) and the halos: gt_mpi_steps_halo(info, f, axes, T) for
   each field (GT_EHALO otherwise), and every rank's box as wide as each field's exchanged
   halo (T * w for a pair's field, (T - 1) * w + reach for another) along the axes split
   over several processes (GT_ESHAPE), all agreed by every rank. Then, after the
   first exchange, each pair's cur is copied into next where it lies outside the global
   domain (the halo both storages have on the global edges the decomposition does not wrap,
   and along K), the frame of section 11; inside the domain next keeps the caller's values,
   as one process's S_steps keeps them. The result, in each
   pair's cur, is bitwise one process's S_steps over the global domain whose storages hold
   what the local ones hold (the frame on global edges without a boundary condition); on an
   axis the decomposition wraps, a pair's field without a periodic condition along it is
   exchanged there as every field is (no frame), and the result is then nsteps
   gt_mpi_call's with the pairs swapped. Stencils that read
   at run-time K levels are refused (GT_EINVAL). times (may be NULL): seconds exchanging
   and computing on this rank. */
typedef int gt_mpi_step_fn(void *ctx, gt_storage *const *fields, const gt_domain *domain);
int gt_mpi_steps(const gt_decomp *, const gt_stencil_info *info, gt_storage *const *fields,
                 int64_t nsteps, int tblock, gt_mpi_step_fn *step, void *ctx,
                 double times[2]);
/* The halo a local storage of field `field` of a stencil with iterate needs for
   gt_mpi_steps in blocks of tblock (>= 1) steps: along I and J, for a field of a pair
   tblock * w, for another field (tblock - 1) * w + its reach (w as gt_mpi_steps says), at
   least gt_mpi_halo's; along K gt_mpi_halo's, for a field of a pair the larger of the
   pair's two (the storages swap roles). Rows as gt_mpi_halo. Not collective. */
int gt_mpi_steps_halo(const gt_stencil_info *info, int field, const char *axes, int tblock,
                      int64_t halo[3][2]);

/* For the generated distributed entries S_mpi (docs/generated-api.md), not to be called
   otherwise: gt_mpi_call(d, the distinct storages of fields (info->nfields of them,
   compacted in place), widths NULL, call, ctx, overlap, times), call() passing S its
   arguments from ctx; first, agreed by every rank, no storage NULL and the same fields
   sharing a storage on every rank (GT_EINVAL naming the field). A stencil without fields has no domain to split: every rank checks its
   arguments, the ranks agree, and every rank calls it once as one process does (call(ctx,
   NULL)). */
int gt__mpi_entry(const gt_stencil_info *info, const gt_decomp *d, gt_storage **fields,
                  gt_mpi_stencil_fn *call, void *ctx, int overlap, double times[2]);

#ifdef __cplusplus
}
#endif

#endif /* GT_MPI_H */
