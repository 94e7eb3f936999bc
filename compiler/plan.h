/* plan.h: the plan's interface. fuse.c makes the plan (fuse_plan, with a
 * backend's PlanParams); plan.c answers what it means, alike for every
 * backend that follows it. Included by the planner, the emitters (through
 * emit.h), the IR dump and the driver; the front end does not need it. */
#ifndef GTCC_PLAN_H
#define GTCC_PLAN_H

#include "gtcc.h"

/* --- fuse.c: plans fusion for the backends that follow a plan
 * (Backend.plan): groups statements into kernels and kernels into
 * cache-blocked groups, and classes each temporary (scalar, tile, recompute,
 * full) with buffer sharing. Only annotates the IR (IrInterval.kernels,
 * IrField.temp_class ...). */

/* What a backend asks of the plan: the decisions are fuse.c's, the knobs the
 * target's. */
enum { PLAN_GROUP_REDUCTIONS_MAX = 8 };
struct PlanParams {
    bool tiles;               /* temporaries may be TILEs (block-private buffers) */
    int64_t tile_bytes_max;   /* a tile over one block (block_i x block_j_max grown by the
                                 temporary's extent: plan_tile_bytes) takes at most this
                                 many bytes, else the temporary is not a tile; 0: no limit */
    int64_t group_tile_bytes_max; /* the tiles of one group together (the shared memory of
                                 one cuda kernel) take at most this many bytes: planning
                                 demotes a group's largest tiles until the rest fit;
                                 0: no limit */
    int tile_row_align;       /* a tile's rows are rounded up to a multiple of this many
                                 elements (plan_tile_bytes); 0 or 1: not rounded */
    int stage_min_offsets;    /* a field a group with tiles only reads, at level k, at this
                                 many horizontal offsets or more is staged in shared memory
                                 (IrKernel.stages); 0: never */
    int stage_max_loads;      /* ... if each of the block's threads loads at most this many
                                 of its points per level */
    bool group_reductions;    /* a 3-D reduction's kernel may join a group (the cuda
                                 backend reduces in the group's kernel), up to
                                 PLAN_GROUP_REDUCTIONS_MAX a group; else a reduction is a
                                 group of its own */
    int recompute_max_nodes;  /* an expression-recomputed temporary's expression has
                                 at most this many nodes */
    int recompute_max_ops;    /* a kernel recomputed in its consumers adds at most this
                                 many operations per point */
    int recompute_full_loads; /* a FULL array's store and reload through memory, counted
                                 in loads from the cache: an expression-recomputed
                                 temporary read at a K offset or in a later computation
                                 (which no tile can serve) is recomputed when its distinct
                                 reads x its loads <= this + reads - 1 */
    /* The cache blocks the backend runs groups in (fuse.c does not depend
     * on them; the emitter reads them here): I x J points of one level, J
     * from block_j_max down to block_j_min while there are fewer than
     * blocks_per_thread blocks per thread; columnar groups in blocks of
     * block_i x block_j_column columns. */
    int block_i, block_j_max, block_j_min, blocks_per_thread, block_j_column;
};
void fuse_plan(Compiler *c, const PlanParams *params);
/* The bytes of temporary fd's tile over one block of params: (block_i grown by its I
 * extent, rounded up to tile_row_align) x (block_j_max grown by its J extent) elements;
 * *width and *height (when not NULL) get the two. The budgets above and the cuda
 * emitter's shared-memory tiles both use it. */
int64_t plan_tile_bytes(const PlanParams *params, const IrField *fd, int64_t *width,
                        int64_t *height);

/* --- plan.c: what the plan of fuse.c means, asked alike by every backend
 * that follows it. */
/* Recomputed as its one assignment's expression, substituted at each read. */
bool plan_expr_recompute(const IrField *f);
/* Recomputed by its kernel's statements into locals, once per read offset. */
bool plan_stmt_recompute(const IrField *f);
/* s only computes recomputed temporaries: it is left out of its kernel. */
bool plan_stmt_recomputed(const IrStmt *s);
/* s (not left out) holds an expression of kind k. */
bool plan_stmt_has(const IrStmt *s, IrExprKind k);
/* Calls fn on every field s accesses when run as planned, with the offset:
 * recomputed temporaries are expanded into what they read (shifted by the
 * read's offset; a statement-recomputed one is also visited itself), and
 * statements left out of their kernel are skipped. Writes come after the
 * reads of their statement, at offset 0. in_column: inside a column
 * reduction. */
typedef void PlanLoadFn(void *ctx, const IrField *f, const int64_t off[NAXES], bool in_column);
void plan_visit_stmt(const IrStmt *s, PlanLoadFn *fn, void *ctx);
/* plan_visit_stmt without the writes: what s reads. */
void plan_visit_reads(const IrStmt *s, PlanLoadFn *fn, void *ctx);
/* How far a kernel's reads of fields with a boundary condition reach, per
 * axis where any does: [lo, hi] around the point (K not counted inside column
 * reductions, which remap their own loop). */
typedef struct {
    bool has[NAXES];
    int64_t lo[NAXES], hi[NAXES];
    bool cols;                /* holds a column reduction */
} PlanReach;
PlanReach plan_kernel_reach(const IrInterval *iv, const IrKernel *k);
/* Every kernel of comp runs over the same columns as *same (set to the
 * first kernel's region when NULL), none clamped to a region: a column group
 * can run one column at a time. Call it for each computation of a group in
 * turn with one *same. */
bool plan_columns_alike(const IrComputation *comp, const Extent **same);
/* Field f (index in st->fields) is the first FULL temporary of its buffer:
 * the one that allocates it. */
bool plan_owns_buffer(const IrStencil *st, int f);
/* The halo of f's buffer: the largest alloc_halo of the FULL temporaries
 * sharing it. */
void plan_buffer_halo(const IrStencil *st, int f, int64_t h[NAXES][2]);
/* used[f] (per field id): the stencil's code, run as planned, accesses f. */
void plan_fields_used(const IrStencil *st, bool *used);
/* Sets used[f] for each field comp accesses (leaves the others). */
void plan_comp_fields_used(const IrComputation *comp, bool *used);

#endif /* GTCC_PLAN_H */
