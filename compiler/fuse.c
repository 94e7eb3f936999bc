/* fuse.c: the fusion plan of the optimizing backends (OpenMP, later CUDA).
 *
 * The naive backend runs every statement as its own loop nest and keeps every
 * temporary in a full array: each statement is a store/reload barrier. This
 * pass removes the barriers that no read needs (seed 001: "fuse kernels by
 * dropping store/reload barriers") and decides where each temporary lives. It
 * only annotates the IR; the backend reads the plan:
 *
 * 1. Recompute. A temporary written by one unconditional statement of a
 *    parallel computation from input fields only (an expression of at most
 *    PlanParams.recompute_max_nodes nodes; temporaries recomputed before it
 *    count as their expressions), and read only after it (later in
 *    its interval, or in later computations), is recomputed at each read (the
 *    expression, shifted by the read's offset) when that moves fewer bytes
 *    through the cache than a tile: reads x loads(producer) <= 1 store +
 *    reads loads, where reads are the distinct read offsets. Read at a K
 *    offset or in a later computation, it could only be a FULL array, whose
 *    store and reload through memory count as
 *    PlanParams.recompute_full_loads loads: reads x loads <=
 *    recompute_full_loads + reads - 1. Its statement disappears from the
 *    loop nests.
 * 2. Kernels. Consecutive top-level statements of an interval are fused into
 *    one loop nest unless one reads, at a non-zero offset (horizontal only in
 *    forward/backward computations, where each level is a barrier anyway), a
 *    field another one writes (either order), or their loops differ: axes,
 *    region (the extent they are computed on), the region statement that
 *    restricts them (IrStmt.area: a kernel's loops are clamped to it), or how
 *    a cache block covers the region (redundantly for tiles, a partition for
 *    arrays). A temporary computed under a region statement is never
 *    recomputed (outside the region it is not computed).
 * 3. Groups. Consecutive three-dimensional kernels of a parallel interval
 *    share one cache-blocked loop (blocks of I x J, one K level at a time)
 *    unless a kernel reads at a K offset (or a whole column of) a field
 *    written in the group, or reads at a horizontal offset a field written in
 *    the group that is not a tile. Reductions get a group of their own.
 * 4. Classes. A temporary read only at zero offset, with every access in one
 *    kernel that first writes it, is a SCALAR (a register). One with every
 *    access in one group, read at K offset 0, first written there, is a TILE:
 *    a per-thread 2-D buffer of one block grown by its extent (the halo is
 *    recomputed by each block). Everything else is FULL, as in the naive
 *    backend. A tile demoted to FULL changes the kernels, so 2-4 repeat until
 *    nothing changes.
 * 5. Buffers. FULL temporaries of the same type and axes whose lifetimes do
 *    not overlap share one buffer. In a forward/backward computation every
 *    temporary lives for the whole computation (levels interleave its
 *    statements), in a column group for all its computations (columns
 *    interleave them). Each TILE has its own: its group runs row by row.
 * 6. Rows. A group's block runs row step by row step, each kernel at a lag
 *    behind the kernels before it that leaves their rows in place for it;
 *    a tile keeps only the rows still to be read (fuse_lags).
 * 7. Facts. Once the classes are final, each kernel records what the
 *    emitters read instead of working it out again (kernel_facts): its
 *    axes (IrKernel.axes), whether it covers a block redundantly
 *    (.redundant), its reduction (.reduce), and its group's tiles (.tiles)
 *    and resources (.tile_bytes, .plane_bytes: group_facts).
 *
 * A forward/backward computation is `columnar` when no statement reads a
 * field written in it at a horizontal offset: the backend then runs whole
 * columns per cache block, with no barrier between levels (the carried values
 * of level k-1 are still in cache). Consecutive columnar computations form one
 * column group when none reads at a horizontal offset what another writes:
 * each block runs through all of them before the next (a tridiagonal solve's
 * backward sweep finds the forward sweep's coefficients in cache). The
 * k-cache lists the fields a columnar computation reads back from the levels
 * it just computed; a backend that runs one column at a time carries them in
 * locals (registers).
 *
 * Cost: every pass is linear in the accesses (plus sorting the buffers'
 * keys): per-field indices of the accesses, per-field stamps of the kernel and
 * group that last wrote or read a field instead of pairwise statement scans,
 * heaps for the first free buffer. Steps 2-4 repeat once per round of tile
 * demotions: usually one or two, but a chain of tiles that each split the
 * group of the next takes one round per link. */
#include <stdlib.h>
#include <string.h>

#include "gtcc.h"
#include "plan.h"

/* One access of a field by a top-level statement (nested ones included). */
typedef struct {
    IrField *field;
    int64_t offset[NAXES];
    bool write;
    bool in_column;
} Access;

typedef VEC(Access) AccessVec;

/* Per top-level statement of the stencil, in execution order. */
typedef struct {
    IrStmt *stmt;
    int comp, interval, index;   /* where it is */
    AccessVec acc;               /* reads (in evaluation order) before the writes */
    Extent region;
    unsigned axes;
    bool has_reduce;
    bool skip;                   /* the producer of a recomputed temporary */
    int kernel, group;           /* stencil-wide numbers */
} StmtInfo;

/* One access in the per-field index: statement and position in its acc. */
typedef struct {
    int stmt, acc;
} AccRef;

/* The passes are linear in the accesses (times a small number of rounds):
 * per-field indices and stamps replace scans of every statement per field or
 * per pair of statements. */
typedef struct {
    Compiler *c;
    const PlanParams *params;
    IrStencil *st;
    VEC(StmtInfo) stmts;
    bool *tile_ok;               /* per field id: may still become a tile */
    /* per field id t: its accesses fa[fa_start[t] .. fa_start[t + 1]), in
     * execution order, as collected (before fuse_recompute_kernels adds the
     * reads of recomputed kernels) */
    int *fa_start;
    AccRef *fa;
    /* per field id scratch for fuse_kernels: the kernel/group that last
     * wrote it, that last read it in a way that conflicts with a write */
    int *kw, *kr, *gw, *gr;
    int *wk, *wg;             /* per field: the kernel and group of its last wide read */
} Fuse;

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n + 1, size);
    if (!p)
        gtcc_die("out of memory");
    return p;
}

static void build_index(Fuse *f)
{
    int nf = f->st->fields.len;
    size_t total = 0;
    f->fa_start = arena_alloc(f->c->arena, sizeof(int) * ((size_t)nf + 2));
    memset(f->fa_start, 0, sizeof(int) * ((size_t)nf + 2));
    for (int i = 0; i < f->stmts.len; i++) {
        StmtInfo *si = &f->stmts.items[i];
        total += (size_t)si->acc.len;
        for (int k = 0; k < si->acc.len; k++)
            f->fa_start[si->acc.items[k].field->id + 1]++;
    }
    for (int t = 0; t < nf; t++)
        f->fa_start[t + 1] += f->fa_start[t];
    f->fa = arena_alloc(f->c->arena, sizeof(AccRef) * (total + 1));
    int *fill = xcalloc((size_t)nf, sizeof *fill);
    for (int t = 0; t < nf; t++)
        fill[t] = f->fa_start[t];
    for (int i = 0; i < f->stmts.len; i++) {
        StmtInfo *si = &f->stmts.items[i];
        for (int k = 0; k < si->acc.len; k++)
            f->fa[fill[si->acc.items[k].field->id]++] = (AccRef){i, k};
    }
    free(fill);
}

/* ============================================================ accesses */

typedef struct {
    Fuse *f;
    AccessVec *v;
} LoadCtx;

static void add_load(void *ctx, IrExpr *load, bool in_column)
{
    LoadCtx *lc = ctx;
    Access a = {load->load.field, {0}, false, in_column};
    memcpy(a.offset, load->load.offset, sizeof a.offset);
    vec_push(lc->f->c->arena, lc->v, a);
}

/* What collect gathers of a top-level statement. */
typedef struct {
    LoadCtx lc;
    Extent *region;
    bool *reduce;
} Collect;

static IrWalk collect_stmt(void *ctx, const IrStmt *s)
{
    Collect *c = ctx;
    for (int a = 0; a < 2; a++) {
        if (s->region.r[a].lo < c->region->r[a].lo)
            c->region->r[a].lo = s->region.r[a].lo;
        if (s->region.r[a].hi > c->region->r[a].hi)
            c->region->r[a].hi = s->region.r[a].hi;
    }
    ir_for_each_load(ir_stmt_expr(s), add_load, &c->lc);
    if (s->kind == IR_ASSIGN) {
        Access w = {s->assign.dst, {0}, true, false};
        vec_push(c->lc.f->c->arena, c->lc.v, w);
    }
    if (s->kind == IR_REDUCE)
        *c->reduce = true;
    return IR_WALK_ON;
}

/* The accesses of s and of the statements nested in it into v (each
 * statement's reads, then its write), region grown by theirs, *reduce set
 * if one is a reduction. */
static void collect(Fuse *f, IrStmt *s, AccessVec *v, Extent *region, bool *reduce)
{
    Collect c = {{f, v}, region, reduce};
    ir_walk_stmt(s, collect_stmt, &c);
}

static bool writes(const StmtInfo *si, const IrField *fd)
{
    for (int i = 0; i < si->acc.len; i++)
        if (si->acc.items[i].write && si->acc.items[i].field == fd)
            return true;
    return false;
}

static bool offset_nonzero(const Access *a, bool horizontal_only)
{
    return a->offset[AXIS_I] || a->offset[AXIS_J] || (!horizontal_only && a->offset[AXIS_K]);
}

/* Walker callback of if_pointwise: stops at a statement not run over the
 * region ctx, or one neither an assignment nor an if (a reduction). */
static IrWalk pointwise(void *ctx, const IrStmt *s)
{
    const Extent *region = ctx;
    for (int a = 0; a < 2; a++)
        if (s->region.r[a].lo != region->r[a].lo || s->region.r[a].hi != region->r[a].hi)
            return IR_WALK_STOP;
    return s->kind == IR_IF || s->kind == IR_ASSIGN ? IR_WALK_ON : IR_WALK_STOP;
}

/* Is every read inside an `if` of something the `if` writes at zero offset,
 * and every nested statement run over the `if`'s region? Then the `if` can run
 * point by point (a C if) instead of mask first, branches after. */
static bool if_pointwise(IrStmt *s, const Extent *region)
{
    return ir_walk_stmt(s, pointwise, (void *)region);
}

static const char *check_if(Fuse *f, StmtInfo *si)
{
    IrStmt *s = si->stmt;
    if (s->kind != IR_IF)
        return NULL;
    if (!if_pointwise(s, &si->region) || !ir_stmt_in_area(s, &s->area))
        return s->iff.loop ? "a while loop whose statements run over different regions"
                           : "an if whose branches run over different regions or hold a reduction";
    if (s->iff.loop && ir_expr_has(s->iff.cond, IR_COLREDUCE))
        return "a while loop whose condition reduces a column";
    /* in a forward/backward computation a point of a level writes that
     * point only, so a read of its column (at a K offset, or a column
     * reduction) sees no other point's write of the if */
    bool vertical = f->st->computations.items[si->comp]->order != ORDER_PARALLEL;
    for (int i = 0; i < si->acc.len; i++) {
        const Access *r = &si->acc.items[i];
        if (r->write)
            continue;
        if ((offset_nonzero(r, vertical) || (r->in_column && !vertical)) &&
            writes(si, r->field))
            return s->iff.loop ? "a while loop that reads a field it writes at an offset"
                               : "an if that reads a field it writes at an offset";
    }
    return NULL;
}

/* ========================================================= offset sets */

/* A set of distinct (field, offset) pairs in the order they were added,
 * with a hash index: the reads a plan decision counts, however many. */
typedef struct {
    const IrField *f;
    int64_t off[NAXES];
} FieldOffset;

typedef struct {
    FieldOffset *items;
    int len, cap;
    int *slot;                   /* open addressing: item index + 1, 0 if empty */
    int nslot;                   /* a power of two, at least twice cap */
} FoSet;

static size_t fo_hash(const IrField *f, const int64_t off[NAXES])
{
    uint64_t h = (uint64_t)(uintptr_t)f * 0x9e3779b97f4a7c15u;
    for (int a = 0; a < NAXES; a++)
        h = (h ^ (uint64_t)off[a]) * 0x100000001b3u;
    return (size_t)(h ^ (h >> 29));
}

/* The slot holding (f, off), or the empty slot where it would go. */
static int fo_slot(const FoSet *set, const IrField *f, const int64_t off[NAXES])
{
    size_t mask = (size_t)set->nslot - 1;
    for (size_t i = fo_hash(f, off) & mask;; i = (i + 1) & mask) {
        int at = set->slot[i];
        if (!at)
            return (int)i;
        const FieldOffset *x = &set->items[at - 1];
        if (x->f == f && !memcmp(x->off, off, sizeof x->off))
            return (int)i;
    }
}

static bool fo_has(const FoSet *set, const IrField *f, const int64_t off[NAXES])
{
    return set->nslot && set->slot[fo_slot(set, f, off)];
}

/* Adds (f, off); false if it was there already. */
static bool fo_add(FoSet *set, const IrField *f, const int64_t off[NAXES])
{
    if (set->len == set->cap) {
        set->cap = set->cap ? 2 * set->cap : 16;
        set->items = realloc(set->items, sizeof *set->items * (size_t)set->cap);
        free(set->slot);
        set->nslot = 4 * set->cap;
        set->slot = xcalloc((size_t)set->nslot, sizeof *set->slot);
        if (!set->items)
            gtcc_die("out of memory");
        for (int i = 0; i < set->len; i++)
            set->slot[fo_slot(set, set->items[i].f, set->items[i].off)] = i + 1;
    }
    int i = fo_slot(set, f, off);
    if (set->slot[i])
        return false;
    FieldOffset *x = &set->items[set->len++];
    x->f = f;
    memcpy(x->off, off, sizeof x->off);
    set->slot[i] = set->len;
    return true;
}

static void fo_clear(FoSet *set)
{
    set->len = 0;
    if (set->slot)
        memset(set->slot, 0, sizeof *set->slot * (size_t)set->nslot);
}

static void fo_free(FoSet *set)
{
    free(set->items);
    free(set->slot);
    *set = (FoSet){0};
}

/* ============================================================ recompute */

typedef struct {
    size_t loads;
    size_t nodes;             /* of the expression with recomputed temporaries expanded */
    bool *pure;
} LoadCount;

/* A parameter read nowhere at an offset may be an output's storage too (an in-place call,
 * which gt__bind accepts): recomputed after that output's write, a read of it would see
 * the new values (seed 157: a K field read through an IK temporary at an I offset). */
static bool may_share_output(const IrField *f)
{
    return f->kind == IR_PARAM_FIELD && !f->read_at_offset;
}

static IrWalk count_load(void *ctx, const IrExpr *e)
{
    LoadCount *n = ctx;
    n->nodes++;
    if (e->kind == IR_LOAD) {
        const IrField *f = e->load.field;
        if (plan_expr_recompute(f) && !e->load.klevel) {
            /* a temporary recomputed already (an earlier one of the stencil): its
             * expression, of input fields only, is substituted here in turn */
            n->nodes--;
            ir_walk_expr(f->producer[0]->assign.value, count_load, n);
            return IR_WALK_SKIP;
        }
        if (f->is_written || e->load.klevel || may_share_output(f))
            *n->pure = false;
        n->loads++;
        return IR_WALK_SKIP;
    }
    if (e->kind == IR_INDEX || e->kind == IR_COLREDUCE) {
        *n->pure = false;
        return IR_WALK_SKIP;
    }
    return IR_WALK_ON;
}

/* The loads of e, recomputed temporaries expanded into theirs (*nodes: its
 * size so expanded); pure becomes false if e reads a field that is written
 * (but such a temporary), an index or a column, or a parameter that an
 * output may share (read nowhere at an offset): only values that no write
 * of the stencil can change may be read again later. */
static size_t count_loads(const IrExpr *e, bool *pure, size_t *nodes)
{
    LoadCount n = {0, 0, pure};
    ir_walk_expr(e, count_load, &n);
    if (nodes)
        *nodes = n.nodes;
    return n.loads;
}

static void fuse_recompute(Fuse *f)
{
    IrStencil *st = f->st;
    FoSet offs = {0};
    for (int t = 0; t < st->fields.len; t++) {
        IrField *fd = st->fields.items[t];
        if (fd->kind != IR_TEMP)
            continue;
        StmtInfo *producer = NULL;
        int nwrites = 0;
        bool ok = true;
        for (int e = f->fa_start[t]; e < f->fa_start[t + 1]; e++) {
            StmtInfo *si = &f->stmts.items[f->fa[e].stmt];
            if (si->acc.items[f->fa[e].acc].write) {
                nwrites++;
                producer = si;
            }
        }
        /* a producer restricted by a region computes the temporary only there */
        if (nwrites != 1 || producer->stmt->kind != IR_ASSIGN || area_any(&producer->stmt->area) ||
            st->computations.items[producer->comp]->order != ORDER_PARALLEL)
            continue;
        bool pure = true;
        size_t nodes = 0;
        size_t loads = count_loads(producer->stmt->assign.value, &pure, &nodes);
        if (!pure || nodes > (size_t)f->params->recompute_max_nodes)
            continue;
        /* distinct read offsets, each after the producer: in its interval, or in a later
         * computation (the reads' levels are ones the producer computes: sema refuses any
         * other). wide: a read at a K offset or in a later computation, which no tile
         * could serve (the temporary would be a FULL array) */
        bool wide = false;
        fo_clear(&offs);
        for (int e = f->fa_start[t]; e < f->fa_start[t + 1] && ok; e++) {
            StmtInfo *si = &f->stmts.items[f->fa[e].stmt];
            Access *a = &si->acc.items[f->fa[e].acc];
            if (a->write)
                continue;
            bool later = si->comp > producer->comp;
            bool same = si->comp == producer->comp && si->interval == producer->interval &&
                        si->index > producer->index;
            if ((!later && !same) || a->in_column) {
                ok = false;
                break;
            }
            wide |= later || a->offset[AXIS_K] != 0;
            fo_add(&offs, fd, a->offset);
        }
        /* bytes through the cache: recompute reads `loads` per read; a tile
         * stores once and reads once per read; a FULL array's store and reload
         * through memory count as recompute_full_loads. Read only at zero offset
         * in its interval: a scalar, if it can be one, costs nothing */
        size_t noffs = (size_t)offs.len;
        const int64_t *off0 = noffs ? offs.items[0].off : NULL;
        bool zero_only = !wide && noffs == 1 && !off0[0] && !off0[1] && !off0[2];
        size_t keep = wide ? (size_t)f->params->recompute_full_loads + noffs - 1 : noffs + 1;
        if (!ok || noffs == 0 || zero_only || noffs * loads > keep)
            continue;
        fd->temp_class = IR_TEMP_RECOMPUTE;
        IrInterval *piv = st->computations.items[producer->comp]->intervals.items[producer->interval];
        fd->producer = &piv->stmts.items[producer->index];
        fd->nproducer = 1;
        producer->skip = true;
    }
    fo_free(&offs);
}

static bool expr_has_any(const IrExpr *e)
{
    return ir_expr_has(e, IR_INDEX) || ir_expr_has(e, IR_COLREDUCE) || ir_expr_has_kdyn(e);
}

/* Walker callback of stmt_has_any: adds each expression's size to *ops and
 * stops at an index, a column reduction, a run-time K level, a full
 * reduction or a loop (a loop's cost is unknown). */
static IrWalk has_any(void *ctx, const IrStmt *s)
{
    size_t *ops = ctx;
    switch (s->kind) {
    case IR_ASSIGN:
        *ops += ir_expr_size(s->assign.value);
        return expr_has_any(s->assign.value) ? IR_WALK_STOP : IR_WALK_ON;
    case IR_REDUCE:
        return IR_WALK_STOP;
    case IR_IF:
        *ops += ir_expr_size(s->iff.cond);
        return s->iff.loop || expr_has_any(s->iff.cond) ? IR_WALK_STOP : IR_WALK_ON;
    }
    return IR_WALK_STOP;
}

static bool stmt_has_any(const IrStmt *s, size_t *ops)
{
    return !ir_walk_stmt(s, has_any, ops);
}

/* Is field t written by a statement that was not skipped on entry to
 * fuse_recompute_kernels in (after, end)? writers[wstart[t] .. wstart[t + 1])
 * are those statements, in order. */
static bool written_in(const int *wstart, const int *writers, int t, int after, int end)
{
    int lo = wstart[t], hi = wstart[t + 1];
    while (lo < hi) {   /* the first writer > after */
        int mid = lo + (hi - lo) / 2;
        if (writers[mid] > after)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo < wstart[t + 1] && writers[lo] < end;
}

/* A kernel of a parallel interval that only computes one temporary t (an
 * assignment and the ifs that correct it, as hdiff's flux limiter), read
 * after it in its interval at K offset 0: recomputed in each consumer, once
 * per read offset, into locals, when that reads fewer distinct elements than
 * a tile (store + reads + the producer's own loads) and the extra arithmetic
 * stays small (PlanParams.recompute_max_ops per point: 16 for openmp). */
/* The state of fuse_recompute_kernels. Statements after the kernel being
 * looked at keep their skip flags and their writes while it runs (reads are
 * added only after a recomputed kernel, and skip flags set only inside it),
 * so what it asks about them is indexed on entry: the last statement of each
 * kernel, the end of each statement's interval, each field's writers (and
 * f->fa, each field's accesses). */
typedef struct {
    Fuse *f;
    int *klast;                  /* per kernel: its last statement not skipped */
    int *ivend;                  /* per statement: the end of its interval's statements */
    int *wstart, *writers;       /* per field t: writers[wstart[t] .. wstart[t + 1]) */
    FoSet lp;                    /* the candidate kernel's reads (t's own excepted) */
    FoSet reads;                 /* t's reads by its consumers */
    FoSet cons;                  /* the other loads of those consumers */
    FoSet uni;                   /* lp shifted by each of reads */
} Rk;

static void rk_index(Rk *r)
{
    Fuse *f = r->f;
    int n = f->stmts.len, nf = f->st->fields.len;
    r->klast = xcalloc((size_t)n, sizeof *r->klast);
    r->ivend = xcalloc((size_t)n, sizeof *r->ivend);
    for (int i = 0; i < n; i++)
        if (!f->stmts.items[i].skip)
            r->klast[f->stmts.items[i].kernel] = i;
    for (int i = n - 1; i >= 0; i--) {
        const StmtInfo *si = &f->stmts.items[i], *sn = &f->stmts.items[i + 1];
        r->ivend[i] = i + 1 < n && sn->comp == si->comp && sn->interval == si->interval
                          ? r->ivend[i + 1]
                          : i + 1;
    }
    int *wstart = r->wstart = xcalloc((size_t)nf + 1, sizeof *r->wstart);
    int *writers = r->writers = xcalloc((size_t)f->fa_start[nf], sizeof *r->writers);
    for (int t = 0; t < nf; t++) {
        wstart[t + 1] = wstart[t];
        for (int e = f->fa_start[t]; e < f->fa_start[t + 1]; e++) {
            int s = f->fa[e].stmt;
            const StmtInfo *si = &f->stmts.items[s];
            if (!si->skip && si->acc.items[f->fa[e].acc].write &&
                (wstart[t + 1] == wstart[t] || writers[wstart[t + 1] - 1] != s))
                writers[wstart[t + 1]++] = s;
        }
    }
}

/* The one temporary the kernel's statements [i, last] write, if they only
 * compute it (three-dimensional, no index or column, not recomputed yet);
 * NULL otherwise. Adds the operations of the statements to *ops. */
static IrField *rk_candidate(Rk *r, int i, int last, size_t *ops)
{
    IrField *t = NULL;
    for (int s = i; s <= last; s++) {
        StmtInfo *si = &r->f->stmts.items[s];
        if (si->skip)
            continue;
        if (stmt_has_any(si->stmt, ops) || si->axes != AXES_IJK || area_any(&si->stmt->area))
            return NULL;
        for (int k = 0; k < si->acc.len; k++) {
            Access *a = &si->acc.items[k];
            if (!a->write)
                continue;
            if (t && a->field != t)
                return NULL;
            t = a->field;
        }
    }
    if (!t || t->kind != IR_TEMP || t->axes != AXES_IJK || t->temp_class == IR_TEMP_RECOMPUTE)
        return NULL;
    return t;
}

/* The kernel's own reads into lp: t only at zero offset, the others not
 * recomputed by statements, not written after it in the interval, and no
 * parameter that an output may share (read nowhere at an offset: in an
 * in-place call the output's writes before a consumer would change what the
 * recomputation reads; may_share_output). */
static bool rk_producer_reads(Rk *r, const IrField *t, int i, int last)
{
    fo_clear(&r->lp);
    for (int s = i; s <= last; s++) {
        StmtInfo *si = &r->f->stmts.items[s];
        if (si->skip)
            continue;
        for (int k = 0; k < si->acc.len; k++) {
            Access *a = &si->acc.items[k];
            if (a->write)
                continue;
            if (a->field == t) {
                if (offset_nonzero(a, false) || a->in_column)
                    return false;
                continue;
            }
            if ((a->field->temp_class == IR_TEMP_RECOMPUTE && a->field->nproducer != 1) ||
                may_share_output(a->field) ||
                written_in(r->wstart, r->writers, a->field->id, last, r->ivend[i]))
                return false;
            fo_add(&r->lp, a->field, a->offset);
        }
    }
    return true;
}

/* The reads of t, into reads: later in the interval, at K offset 0; the
 * other loads of the statements reading it into cons. (A statement that
 * reads t only through reads added by an earlier recomputed kernel comes
 * after one that accessed t on entry, before i: that one fails, so f->fa
 * lists every statement that counts.) */
static bool rk_consumer_reads(Rk *r, const IrField *t, const StmtInfo *p0, int i, int last)
{
    Fuse *f = r->f;
    fo_clear(&r->reads);
    fo_clear(&r->cons);
    for (int e = f->fa_start[t->id], prev = -1; e < f->fa_start[t->id + 1]; e++) {
        int s = f->fa[e].stmt;
        if (s == prev)
            continue;
        prev = s;
        StmtInfo *si = &f->stmts.items[s];
        if (s >= i && s <= last)
            continue;
        bool reads_t = false;
        for (int k = 0; k < si->acc.len; k++) {
            Access *a = &si->acc.items[k];
            if (a->field != t)
                continue;
            if (a->write || si->skip || si->comp != p0->comp || si->interval != p0->interval ||
                s < last || a->offset[AXIS_K] || a->in_column)
                return false;
            reads_t = true;
            fo_add(&r->reads, t, a->offset);
        }
        for (int k = 0; k < si->acc.len && reads_t; k++) {
            Access *a = &si->acc.items[k];
            if (!a->write && a->field != t)
                fo_add(&r->cons, a->field, a->offset);
        }
    }
    return r->reads.len > 0;
}

/* Is recomputing cheaper than a tile? Elements read through the cache:
 * recomputing reads the producer's loads at every read offset (those the
 * consumers load anyway are free); a tile stores once, is read at every
 * offset, and its own loop loads the producer's inputs once. And the extra
 * arithmetic must stay small. */
static bool rk_cheaper(Rk *r, size_t ops)
{
    int nreads = r->reads.len, nlp = r->lp.len;
    fo_clear(&r->uni);
    int extra = 0;
    for (int k = 0; k < nreads; k++)
        for (int l = 0; l < nlp; l++) {
            int64_t off[NAXES];
            for (int a = 0; a < NAXES; a++)
                off[a] = r->lp.items[l].off[a] + r->reads.items[k].off[a];
            if (fo_add(&r->uni, r->lp.items[l].f, off) && !fo_has(&r->cons, r->lp.items[l].f, off))
                extra++;
        }
    int tile = nlp + 1 + nreads;
    return extra <= tile && ops * (size_t)(nreads - 1) <= (size_t)r->f->params->recompute_max_ops;
}

/* Recomputes t: skips its kernel [i, last], lets the consumers read what
 * it reads. */
static void rk_apply(Rk *r, IrField *t, const StmtInfo *p0, int i, int last)
{
    Fuse *f = r->f;
    IrInterval *iv = f->st->computations.items[p0->comp]->intervals.items[p0->interval];
    t->temp_class = IR_TEMP_RECOMPUTE;
    t->producer = &iv->stmts.items[p0->index];
    t->nproducer = f->stmts.items[last].index - p0->index + 1;
    f->tile_ok[t->id] = false;
    for (int s = i; s <= last; s++)
        f->stmts.items[s].skip = true;
    for (int e = f->fa_start[t->id], prev = -1; e < f->fa_start[t->id + 1]; e++) {
        int s = f->fa[e].stmt;
        if (s == prev || s <= last)
            continue;
        prev = s;
        StmtInfo *si = &f->stmts.items[s];
        int n0 = si->acc.len;
        for (int k = 0; k < n0; k++) {
            Access a = si->acc.items[k];
            if (a.field != t || a.write)
                continue;
            for (int l = 0; l < r->lp.len; l++) {
                Access b = {(IrField *)r->lp.items[l].f, {0}, false, false};
                for (int ax = 0; ax < NAXES; ax++)
                    b.offset[ax] = r->lp.items[l].off[ax] + a.offset[ax];
                vec_push(f->c->arena, &si->acc, b);
            }
        }
    }
}

static bool fuse_recompute_kernels(Fuse *f)
{
    Rk r = {.f = f};
    rk_index(&r);
    bool changed = false;
    for (int i = 0; i < f->stmts.len; i++) {
        StmtInfo *p0 = &f->stmts.items[i];
        if (p0->skip || f->st->computations.items[p0->comp]->order != ORDER_PARALLEL ||
            (i > 0 && f->stmts.items[i - 1].kernel == p0->kernel && !f->stmts.items[i - 1].skip))
            continue;
        /* the kernel's statements [i, last] (skipped ones inside are fine):
         * its statements after i are not skipped yet, its kernel number is
         * above those of the skipped ones (-1, or below i) */
        int last = r.klast[p0->kernel];
        size_t ops = 0;
        IrField *t = rk_candidate(&r, i, last, &ops);
        if (!t || !rk_producer_reads(&r, t, i, last) || !rk_consumer_reads(&r, t, p0, i, last) ||
            !rk_cheaper(&r, ops))
            continue;
        rk_apply(&r, t, p0, i, last);
        changed = true;
    }
    free(r.klast), free(r.ivend), free(r.wstart), free(r.writers);
    fo_free(&r.lp), fo_free(&r.reads), fo_free(&r.cons), fo_free(&r.uni);
    return changed;
}

/* ============================================================ kernels */

static bool same_region(const Extent *a, const Extent *b)
{
    for (int ax = 0; ax < 2; ax++)
        if (a->r[ax].lo != b->r[ax].lo || a->r[ax].hi != b->r[ax].hi)
            return false;
    return true;
}

/* Statements x and y conflict (either order) when fused at the point level
 * if one reads a field the other writes at a non-zero offset (horizontal_only:
 * K offsets do not count) or a whole column of it. Kernels of one
 * cache-blocked group conflict if one reads a field the other writes at a K
 * offset, a whole column of it, or at a horizontal offset if it is not a tile.
 * fuse_kernels checks a statement against all those of its kernel and group
 * at once: f->kw/f->gw hold, per field, the last kernel/group that writes it,
 * f->kr/f->gr the last one that reads it in a conflicting way. */
static bool kernel_read_conflicts(const Access *a, bool horizontal_only)
{
    return offset_nonzero(a, horizontal_only) || a->in_column;
}

static bool group_read_conflicts(const Fuse *f, const Access *a)
{
    return a->offset[AXIS_K] || a->in_column ||
           ((a->offset[AXIS_I] || a->offset[AXIS_J]) && !f->tile_ok[a->field->id]);
}

/* A statement computed beyond the domain (a tile's producer, over the block grown by its
 * extent) reads a non-tile field at zero offset outside the block too: where the other
 * blocks write it, which they may have done already. Such a wide read conflicts with a
 * write of the field by another kernel of its group (in one kernel each point is written
 * and read once, in order). */
static bool wide_read(const Fuse *f, const StmtInfo *si, const Access *a)
{
    return !a->write && !f->tile_ok[a->field->id] &&
           (si->region.r[AXIS_I].lo || si->region.r[AXIS_I].hi || si->region.r[AXIS_J].lo ||
            si->region.r[AXIS_J].hi);
}

/* Does si conflict with a statement of kernel `kernel`? */
static bool conflict(const Fuse *f, const StmtInfo *si, int kernel, bool horizontal_only)
{
    for (int i = 0; i < si->acc.len; i++) {
        const Access *a = &si->acc.items[i];
        int t = a->field->id;
        if (a->write ? f->kr[t] == kernel
                     : kernel_read_conflicts(a, horizontal_only) && f->kw[t] == kernel)
            return true;
    }
    return false;
}

/* Does si, to run in kernel `kernel`, conflict with a kernel of group `group`? */
static bool group_conflict(const Fuse *f, const StmtInfo *si, int group, int kernel)
{
    for (int i = 0; i < si->acc.len; i++) {
        const Access *a = &si->acc.items[i];
        int t = a->field->id;
        if (a->write ? f->gr[t] == group || (f->wg[t] == group && f->wk[t] != kernel)
                     : (group_read_conflicts(f, a) && f->gw[t] == group) ||
                           (wide_read(f, si, a) && f->gw[t] == group && f->kw[t] != kernel))
            return true;
    }
    return false;
}

/* A statement covers a block redundantly (it writes tile candidates only)
 * or as a partition (anything else): the planning-time test, on the
 * candidates left (tile_ok). What the emitters read is the kernel's final
 * fact, IrKernel.redundant (kernel_facts: on the final classes). */
static bool redundant(const Fuse *f, const StmtInfo *si)
{
    bool any = false;
    for (int i = 0; i < si->acc.len; i++)
        if (si->acc.items[i].write) {
            if (!f->tile_ok[si->acc.items[i].field->id])
                return false;
            any = true;
        }
    return any;
}

static void fuse_kernels(Fuse *f)
{
    IrStencil *st = f->st;
    int kernel = -1, group = -1;
    int start = 0;   /* first statement of the current kernel */
    int gstart = 0;  /* first statement of the current group */
    bool first_redundant = false;   /* redundant(f, first statement of the kernel) */
    int greds = 0;                  /* the reductions of the current group */
    for (int t = 0; t < st->fields.len; t++)
        f->kw[t] = f->kr[t] = f->gw[t] = f->gr[t] = f->wk[t] = f->wg[t] = -1;
    for (int i = 0; i < f->stmts.len; i++) {
        StmtInfo *si = &f->stmts.items[i];
        if (si->skip) {
            si->kernel = si->group = -1;
            continue;
        }
        IrComputation *comp = st->computations.items[si->comp];
        bool parallel = comp->order == ORDER_PARALLEL;
        bool new_kernel = kernel < 0, new_group = group < 0;
        StmtInfo *first = new_kernel ? NULL : &f->stmts.items[start];
        if (first && (first->comp != si->comp || first->interval != si->interval))
            new_kernel = new_group = true;
        bool si_redundant = redundant(f, si);
        if (!new_kernel) {
            static const Extent zero;
            new_kernel = first->axes != si->axes || !same_region(&first->region, &si->region) ||
                         !area_equal(&first->stmt->area, &si->stmt->area) ||
                         (first_redundant != si_redundant &&
                          !same_region(&si->region, &zero)) ||
                         first->has_reduce || si->has_reduce;
            /* the kernel's statements are all of si's computation */
            if (!new_kernel && conflict(f, si, kernel, !parallel))
                new_kernel = true;
        }
        if (!new_group) {
            /* groups: 3-D kernels of one parallel interval; a statement that
             * conflicts with the group starts a new kernel and group */
            bool split =
                parallel && group_conflict(f, si, group, new_kernel ? kernel + 1 : kernel);
            if (split)
                new_kernel = new_group = true;
            else if (new_kernel)
                new_group = !parallel || si->axes != AXES_IJK ||
                            (!f->params->group_reductions &&
                             (si->has_reduce || f->stmts.items[gstart].has_reduce)) ||
                            (si->has_reduce && greds >= PLAN_GROUP_REDUCTIONS_MAX) ||
                            f->stmts.items[gstart].axes != AXES_IJK;
        }
        if (new_kernel) {
            kernel++;
            start = i;
            first_redundant = si_redundant;
        }
        if (new_group) {
            group++;
            gstart = i;
            greds = 0;
        }
        greds += si->has_reduce;
        si->kernel = kernel;
        si->group = group;
        for (int k = 0; k < si->acc.len; k++) {
            const Access *a = &si->acc.items[k];
            int t = a->field->id;
            if (a->write) {
                f->kw[t] = kernel;
                f->gw[t] = group;
                continue;
            }
            if (kernel_read_conflicts(a, !parallel))
                f->kr[t] = kernel;
            if (group_read_conflicts(f, a))
                f->gr[t] = group;
            if (wide_read(f, si, a)) {
                f->wg[t] = group;
                f->wk[t] = kernel;
            }
        }
    }
}

/* ============================================================ classes */

/* Is the first access of fd in statement si (in evaluation order) a write? */
static bool first_access_writes(const StmtInfo *si, const IrField *fd)
{
    for (int i = 0; i < si->acc.len; i++)
        if (si->acc.items[i].field == fd)
            return si->acc.items[i].write;
    return false;
}

/* The group of each tile candidate's accesses, per field id (freed by the
 * caller): -2 not accessed (or no candidate), -3 in several groups. */
static int *tile_groups(const Fuse *f)
{
    int nf = f->st->fields.len;
    int *group = xcalloc((size_t)nf + 1, sizeof *group);
    for (int t = 0; t < nf; t++)
        group[t] = -2;
    for (int i = 0; i < f->stmts.len; i++) {
        const StmtInfo *si = &f->stmts.items[i];
        if (si->skip)
            continue;
        for (int k = 0; k < si->acc.len; k++) {
            int t = si->acc.items[k].field->id;
            if (!f->tile_ok[t])
                continue;
            if (group[t] == -2)
                group[t] = si->group;
            else if (group[t] != si->group)
                group[t] = -3;
        }
    }
    return group;
}

/* Demotes tile candidates whose accesses span several groups; true if any. */
static bool demote_tiles(Fuse *f)
{
    int nf = f->st->fields.len;
    bool changed = false;
    int *group = tile_groups(f);
    for (int t = 0; t < nf; t++)
        if (f->tile_ok[t] && group[t] < 0) {
            f->tile_ok[t] = false;
            changed = true;
        }
    free(group);
    return changed;
}

static void fuse_classes(Fuse *f)
{
    IrStencil *st = f->st;
    int nf = st->fields.len;
    /* per field, over the statements left: the kernel of all its accesses
     * (-2 none, -1 several), its first statement, whether every read is at
     * zero offset */
    int *kern = xcalloc((size_t)nf, sizeof *kern), *firsts = xcalloc((size_t)nf, sizeof *firsts);
    bool *zeros = xcalloc((size_t)nf, sizeof *zeros);
    for (int t = 0; t < nf; t++) {
        kern[t] = -2;
        firsts[t] = -1;
        zeros[t] = true;
    }
    for (int i = 0; i < f->stmts.len; i++) {
        StmtInfo *si = &f->stmts.items[i];
        if (si->skip)
            continue;
        for (int k = 0; k < si->acc.len; k++) {
            Access *a = &si->acc.items[k];
            int t = a->field->id;
            if (firsts[t] < 0)
                firsts[t] = i;
            if (kern[t] == -2)
                kern[t] = si->kernel;
            else if (kern[t] != si->kernel)
                kern[t] = -1;
            if (!a->write && (offset_nonzero(a, false) || a->in_column))
                zeros[t] = false;
        }
    }
    for (int t = 0; t < st->fields.len; t++) {
        IrField *fd = st->fields.items[t];
        if (fd->kind != IR_TEMP || fd->temp_class == IR_TEMP_RECOMPUTE)
            continue;
        int kernel = kern[t], first = firsts[t];
        bool zero = zeros[t];
        if (first >= 0 && kernel >= 0 && zero && first_access_writes(&f->stmts.items[first], fd))
            fd->temp_class = IR_TEMP_SCALAR;
        else if (f->tile_ok[t])
            fd->temp_class = IR_TEMP_TILE;
        else
            fd->temp_class = IR_TEMP_FULL;
    }
    free(kern), free(firsts), free(zeros);
}

/* A binary min-heap of ints, ordered by prio[x] (by x itself if prio is
 * NULL), ties by x. */
typedef struct {
    int *v;
    int len, cap;
} Heap;

static bool heap_less(const int *prio, int x, int y)
{
    int px = prio ? prio[x] : x, py = prio ? prio[y] : y;
    return px < py || (px == py && x < y);
}

static void heap_push(Heap *h, int x, const int *prio)
{
    if (h->len == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 4;
        h->v = realloc(h->v, sizeof *h->v * (size_t)h->cap);
        if (!h->v)
            gtcc_die("out of memory");
    }
    int i = h->len++;
    while (i > 0 && heap_less(prio, x, h->v[(i - 1) / 2])) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = x;
}

static int heap_pop(Heap *h, const int *prio)
{
    int top = h->v[0], x = h->v[--h->len], i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= h->len)
            break;
        if (c + 1 < h->len && heap_less(prio, h->v[c + 1], h->v[c]))
            c++;
        if (!heap_less(prio, h->v[c], x))
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->len)
        h->v[i] = x;
    return top;
}

/* What a temporary must share with the owner of a buffer it joins: class,
 * type, axes. A tile shares with none (own: its field id, else -1): the
 * kernels of its group run row by row, interleaved, so every tile of a group
 * is live for the whole group, and tiles of two groups never meet. */
typedef struct {
    int t, cls, type, axes, own;
} BufKey;

static int bufkey_cmp(const void *pa, const void *pb)
{
    const BufKey *a = pa, *b = pb;
    if (a->cls != b->cls)
        return a->cls < b->cls ? -1 : 1;
    if (a->type != b->type)
        return a->type < b->type ? -1 : 1;
    if (a->axes != b->axes)
        return a->axes < b->axes ? -1 : 1;
    if (a->own != b->own)
        return a->own < b->own ? -1 : 1;
    return (a->t > b->t) - (a->t < b->t);
}

/* Greedy sharing of buffers between temporaries of disjoint lifetimes: each
 * temporary, in order of first use, takes the first buffer (lowest number) of
 * its key whose last use is before its first one, else a new buffer. First
 * uses only grow, so a buffer free for one temporary is free for every later
 * one until it is taken: per key, a heap of the free buffers by number and
 * one of the busy ones by the end of their use. */
static void fuse_buffers(Fuse *f)
{
    IrStencil *st = f->st;
    int nf = st->fields.len;
    int *lo = xcalloc((size_t)nf, sizeof *lo), *hi = xcalloc((size_t)nf, sizeof *hi);
    for (int t = 0; t < nf; t++)
        lo[t] = -1;
    /* Lifetimes: fused statements run interleaved, so a FULL temporary lives
     * for whole groups (a vertical computation: all its groups). */
    /* per computation: its first and last group */
    int nc = st->computations.len;
    int *cg0 = xcalloc((size_t)nc, sizeof *cg0), *cg1 = xcalloc((size_t)nc, sizeof *cg1);
    for (int ci = 0; ci < nc; ci++)
        cg0[ci] = cg1[ci] = -1;
    for (int i = 0; i < f->stmts.len; i++) {
        StmtInfo *si = &f->stmts.items[i];
        if (si->skip)
            continue;
        if (cg0[si->comp] < 0 || si->group < cg0[si->comp])
            cg0[si->comp] = si->group;
        if (si->group > cg1[si->comp])
            cg1[si->comp] = si->group;
    }
    /* the computations of one column group run interleaved, column by
     * column: each lives for the groups of all of them (a later computation
     * of the column group writing a buffer an earlier one still reads in the
     * next columns would overwrite it) */
    for (int c0 = 0, c1; c0 < nc; c0 = c1) {
        int cgroup = st->computations.items[c0]->column_group;
        c1 = c0 + 1;
        if (cgroup < 0)
            continue;
        int g0 = cg0[c0], g1 = cg1[c0];
        while (c1 < nc && st->computations.items[c1]->column_group == cgroup) {
            if (cg0[c1] >= 0 && (g0 < 0 || cg0[c1] < g0))
                g0 = cg0[c1];
            if (cg1[c1] > g1)
                g1 = cg1[c1];
            c1++;
        }
        for (int ci = c0; ci < c1; ci++)
            cg0[ci] = g0, cg1[ci] = g1;
    }
    for (int i = 0; i < f->stmts.len; i++) {
        StmtInfo *si = &f->stmts.items[i];
        if (si->skip)
            continue;
        int g0 = si->group, g1 = si->group;
        if (st->computations.items[si->comp]->order != ORDER_PARALLEL) {
            g0 = cg0[si->comp];
            g1 = cg1[si->comp];
        }
        for (int k = 0; k < si->acc.len; k++) {
            int t = si->acc.items[k].field->id;
            if (lo[t] < 0 || g0 < lo[t])
                lo[t] = g0;
            if (g1 > hi[t])
                hi[t] = g1;
        }
    }
    free(cg0), free(cg1);
    int nbuf = 0;
    int *buf_end = xcalloc((size_t)nf, sizeof *buf_end);
    /* temporaries in order of first use (group numbers are below the
     * number of statements), then of id: a counting sort */
    int n = f->stmts.len;
    int *bstart = xcalloc((size_t)n + 1, sizeof *bstart), *order = xcalloc((size_t)nf, sizeof *order);
    for (int t = 0; t < nf; t++)
        if (lo[t] >= 0 && lo[t] < n)
            bstart[lo[t] + 1]++;
    for (int pos = 0; pos < n; pos++)
        bstart[pos + 1] += bstart[pos];
    for (int t = 0; t < nf; t++)
        if (lo[t] >= 0 && lo[t] < n)
            order[bstart[lo[t]]++] = t;
    int norder = bstart[n];
    /* the key of each temporary that gets a buffer, numbered */
    BufKey *keys = xcalloc((size_t)norder, sizeof *keys);
    int nkeyed = 0;
    for (int o = 0; o < norder; o++) {
        IrField *fd = st->fields.items[order[o]];
        if (fd->kind != IR_TEMP ||
            (fd->temp_class != IR_TEMP_FULL && fd->temp_class != IR_TEMP_TILE))
            continue;
        keys[nkeyed++] = (BufKey){order[o], (int)fd->temp_class, (int)fd->type, (int)fd->axes,
                                  fd->temp_class == IR_TEMP_TILE ? order[o] : -1};
    }
    qsort(keys, (size_t)nkeyed, sizeof *keys, bufkey_cmp);
    int *key_of = xcalloc((size_t)nf, sizeof *key_of), nkeys = 0;
    for (int k = 0; k < nkeyed; k++) {
        if (k > 0) {
            BufKey a = keys[k - 1], b = keys[k];
            a.t = b.t = 0;
            if (bufkey_cmp(&a, &b))
                nkeys++;
        }
        key_of[keys[k].t] = nkeys;
    }
    if (nkeyed)
        nkeys++;
    free(keys);
    Heap *free_bufs = xcalloc((size_t)nkeys, sizeof *free_bufs);
    Heap *busy_bufs = xcalloc((size_t)nkeys, sizeof *busy_bufs);
    for (int o = 0; o < norder; o++) {
        int t = order[o];
        IrField *fd = st->fields.items[t];
        if (fd->kind != IR_TEMP ||
            (fd->temp_class != IR_TEMP_FULL && fd->temp_class != IR_TEMP_TILE))
            continue;
        Heap *fr = &free_bufs[key_of[t]], *busy = &busy_bufs[key_of[t]];
        while (busy->len && buf_end[busy->v[0]] < lo[t])
            heap_push(fr, heap_pop(busy, buf_end), NULL);
        fd->buffer = fr->len ? heap_pop(fr, NULL) : nbuf++;
        buf_end[fd->buffer] = hi[t];
        heap_push(busy, fd->buffer, buf_end);
    }
    for (int k = 0; k < nkeys; k++)
        free(free_bufs[k].v), free(busy_bufs[k].v);
    free(free_bufs), free(busy_bufs), free(key_of);
    free(bstart), free(order);
    free(lo), free(hi), free(buf_end);
}

/* ============================================================ columns */

/* Which computations run by columns, how they group into column loops, and
 * their k-caches. Linear in the accesses: per computation, the fields it
 * writes and the fields it reads at a horizontal offset. */
static void fuse_columns(Fuse *f)
{
    IrStencil *st = f->st;
    int nc = st->computations.len, nf = st->fields.len;
    bool *writes_in = xcalloc((size_t)nc * (size_t)nf, 1);
    bool *hreads_in = xcalloc((size_t)nc * (size_t)nf, 1);
    bool *flat = xcalloc((size_t)nc, 1);   /* has a statement without I or J */
    int *cfirst = xcalloc((size_t)nc, sizeof *cfirst);   /* its first statement */
    for (int ci = 0; ci < nc; ci++)
        cfirst[ci] = f->stmts.len;
    for (int i = f->stmts.len - 1; i >= 0; i--)
        cfirst[f->stmts.items[i].comp] = i;
    for (int i = 0; i < f->stmts.len; i++) {
        StmtInfo *si = &f->stmts.items[i];
        if ((si->axes & AXES_IJ) != AXES_IJ)
            flat[si->comp] = true;
        for (int k = 0; k < si->acc.len; k++) {
            Access *a = &si->acc.items[k];
            size_t at = (size_t)si->comp * (size_t)nf + (size_t)a->field->id;
            if (a->write)
                writes_in[at] = true;
            else if (a->offset[AXIS_I] || a->offset[AXIS_J])
                hreads_in[at] = true;
        }
    }
    int group = -1, ngroups = 0;
    bool *gw = xcalloc((size_t)nf, 1), *gh = xcalloc((size_t)nf, 1);
    for (int ci = 0; ci < nc; ci++) {
        IrComputation *comp = st->computations.items[ci];
        const bool *w = writes_in + (size_t)ci * (size_t)nf;
        const bool *h = hreads_in + (size_t)ci * (size_t)nf;
        comp->columnar = comp->order != ORDER_PARALLEL && !flat[ci];
        comp->kcache.len = 0;
        for (int t = 0; t < nf && comp->columnar; t++)
            if (w[t] && h[t])
                comp->columnar = false;
        if (!comp->columnar) {
            comp->column_group = -1;
            group = -1;
            continue;
        }
        /* joins the previous computation's column loop when neither reads at
         * a horizontal offset what the other writes */
        bool join = group >= 0;
        for (int t = 0; t < nf && join; t++)
            if ((gw[t] && h[t]) || (w[t] && gh[t]))
                join = false;
        if (!join) {
            group = ngroups++;
            memset(gw, 0, (size_t)nf);
            memset(gh, 0, (size_t)nf);
        }
        comp->column_group = group;
        for (int t = 0; t < nf; t++) {
            gw[t] = gw[t] || w[t];
            gh[t] = gh[t] || h[t];
        }
        /* k-cache: arrays written here, read at zero horizontal offset on the
         * levels already computed (a K boundary condition could remap such a
         * read to a level not computed yet: those stay loads) */
        int *depth = xcalloc((size_t)nf, sizeof *depth);
        int dir = comp->order == ORDER_FORWARD ? -1 : 1;
        for (int i = cfirst[ci]; i < f->stmts.len; i++) {
            StmtInfo *si = &f->stmts.items[i];
            if (si->comp != ci)
                break;   /* a computation's statements are consecutive */
            for (int k = 0; k < si->acc.len; k++) {
                Access *a = &si->acc.items[k];
                IrField *fd = a->field;
                int64_t d = a->offset[AXIS_K] * dir;
                if (a->write || a->in_column || a->offset[AXIS_I] || a->offset[AXIS_J] ||
                    d < 1 || d > IR_KCACHE_MAX || !w[fd->id] || !(fd->axes & AXES_K) ||
                    (fd->kind == IR_TEMP && fd->temp_class != IR_TEMP_FULL) ||
                    (fd->kind == IR_PARAM_FIELD && fd->bc[AXIS_K].kind != BC_NONE))
                    continue;
                if (d > depth[fd->id])
                    depth[fd->id] = (int)d;
            }
        }
        for (int t = 0; t < nf; t++)
            if (depth[t]) {
                IrKCache kc = {st->fields.items[t], depth[t]};
                vec_push(f->c->arena, &comp->kcache, kc);
            }
        free(depth);
    }
    free(writes_in), free(hreads_in), free(flat), free(gw), free(gh), free(cfirst);
}

/* ============================================================ rows */

/* Row lags of the kernels of each group, and the rows each tile keeps live.
 * A group's block runs row step by row step; at step t each kernel in turn
 * computes its row t - lag. Kernel m's accesses to a field reach rows
 * [r + dmin, r + dmax] of its row r (J offsets; writes at 0), so it touches
 * row x at steps x + lag_m - dmax .. x + lag_m - dmin. For kernels m before
 * q that both access a field, one of them writing it, every access of m to a
 * row must come before every access of q to it (as in the kernel-after-kernel
 * order): lag_q >= lag_m - dmin_m + dmax_q. The least such lags, kernel by
 * kernel, per field the running maxima of lag - dmin over the group's
 * kernels (all, and writers only). A tile's rows live from its first writer's
 * row to the oldest one still read: max(lag - dmin) - min(writer lag) + 1.
 * Linear in the accesses; the fields' entries are reset per group by stamps. */
static void fuse_lags(Fuse *f, int *klag)
{
    IrStencil *st = f->st;
    int nf = st->fields.len;
    int64_t *all = xcalloc((size_t)nf, sizeof *all), *wr = xcalloc((size_t)nf, sizeof *wr);
    int64_t *wmin = xcalloc((size_t)nf, sizeof *wmin);
    int64_t *kmin = xcalloc((size_t)nf, sizeof *kmin), *kmax = xcalloc((size_t)nf, sizeof *kmax);
    int *gstamp = xcalloc((size_t)nf, sizeof *gstamp), *kstamp = xcalloc((size_t)nf, sizeof *kstamp);
    bool *kwrite = xcalloc((size_t)nf, sizeof *kwrite), *has_wr = xcalloc((size_t)nf, sizeof *has_wr);
    int *touched = xcalloc((size_t)nf, sizeof *touched);
    for (int t = 0; t < nf; t++)
        gstamp[t] = kstamp[t] = -1;
    int i = 0;
    while (i < f->stmts.len) {
        StmtInfo *s0 = &f->stmts.items[i];
        if (s0->skip) {
            i++;
            continue;
        }
        int kernel = s0->kernel, group = s0->group, ntouched = 0;
        bool parallel = st->computations.items[s0->comp]->order == ORDER_PARALLEL;
        /* the kernel's accesses: per field the J offsets reached, written? */
        int end = i;
        for (; end < f->stmts.len; end++) {
            StmtInfo *si = &f->stmts.items[end];
            if (si->skip)
                continue;
            if (si->kernel != kernel)
                break;
            for (int k = 0; k < si->acc.len; k++) {
                const Access *a = &si->acc.items[k];
                int t = a->field->id;
                int64_t d = a->write ? 0 : a->offset[AXIS_J];
                if (kstamp[t] != kernel) {
                    kstamp[t] = kernel;
                    kmin[t] = kmax[t] = d;
                    kwrite[t] = false;
                    touched[ntouched++] = t;
                }
                if (d < kmin[t])
                    kmin[t] = d;
                if (d > kmax[t])
                    kmax[t] = d;
                kwrite[t] = kwrite[t] || a->write;
            }
        }
        int64_t lag = 0;
        for (int n = 0; n < ntouched && parallel; n++) {
            int t = touched[n];
            if (gstamp[t] != group)
                continue;
            if (kwrite[t] && all[t] + kmax[t] > lag)
                lag = all[t] + kmax[t];
            if (!kwrite[t] && has_wr[t] && wr[t] + kmax[t] > lag)
                lag = wr[t] + kmax[t];
        }
        klag[kernel] = (int)lag;
        for (int n = 0; n < ntouched; n++) {
            int t = touched[n];
            if (gstamp[t] != group) {
                gstamp[t] = group;
                all[t] = lag - kmin[t];
                has_wr[t] = false;
                wmin[t] = lag;
            }
            if (lag - kmin[t] > all[t])
                all[t] = lag - kmin[t];
            if (kwrite[t]) {
                if (!has_wr[t] || lag - kmin[t] > wr[t])
                    wr[t] = lag - kmin[t];
                if (!has_wr[t] || lag < wmin[t])
                    wmin[t] = lag;
                has_wr[t] = true;
            }
        }
        i = end;
    }
    /* a tile is accessed in one group only: its entries are that group's */
    for (int t = 0; t < nf; t++) {
        IrField *fd = st->fields.items[t];
        if (fd->kind == IR_TEMP && fd->temp_class == IR_TEMP_TILE && has_wr[t])
            fd->tile_rows = (int)(all[t] - wmin[t] + 1);
    }
    free(all), free(wr), free(wmin), free(kmin), free(kmax);
    free(gstamp), free(kstamp), free(kwrite), free(has_wr), free(touched);
}

/* ============================================================ driver */

int64_t plan_tile_bytes(const PlanParams *params, const IrField *fd, int64_t *width,
                        int64_t *height)
{
    const Range *ri = &fd->extent.r[AXIS_I], *rj = &fd->extent.r[AXIS_J];
    int64_t w = (int64_t)params->block_i + ri->hi - ri->lo;
    int64_t h = (int64_t)params->block_j_max + rj->hi - rj->lo;
    if (params->tile_row_align > 1)
        w = (w + params->tile_row_align - 1) / params->tile_row_align * params->tile_row_align;
    if (width)
        *width = w;
    if (height)
        *height = h;
    return w * h * type_size(fd->type);
}

/* A tile of fd within the backend's limit (PlanParams.tile_bytes_max; 0: none)? */
static bool tile_fits(const PlanParams *params, const IrField *fd)
{
    return !params->tile_bytes_max ||
           plan_tile_bytes(params, fd, NULL, NULL) <= params->tile_bytes_max;
}

/* A tile candidate of a group, for demote_over_budget. */
typedef struct {
    int group, id;
    int64_t bytes;
} GroupTile;

/* By group, then the largest first, then the last declared first. */
static int cmp_group_tile(const void *a, const void *b)
{
    const GroupTile *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return (x->id < y->id) - (x->id > y->id);
}

/* Demotes, in each group whose tiles together take more than
 * PlanParams.group_tile_bytes_max, its largest tiles (of equal ones, the last
 * declared first) until the rest fit; true if any. Called once every tile
 * candidate lies in one group (demote_tiles), so each is counted in exactly
 * one. One round demotes all a group needs: a stencil of many tiles does not
 * plan again once per tile. */
static bool demote_over_budget(Fuse *f, const PlanParams *params)
{
    if (!params->group_tile_bytes_max)
        return false;
    IrStencil *st = f->st;
    int nf = st->fields.len;
    int *group = tile_groups(f);
    GroupTile *tiles = xcalloc((size_t)nf + 1, sizeof *tiles);
    int n = 0;
    for (int t = 0; t < nf; t++)
        if (f->tile_ok[t] && group[t] >= 0)
            tiles[n++] = (GroupTile){group[t], t,
                                     plan_tile_bytes(params, st->fields.items[t], NULL, NULL)};
    if (n > 1)
        qsort(tiles, (size_t)n, sizeof *tiles, cmp_group_tile);
    bool changed = false;
    for (int g0 = 0, g1; g0 < n; g0 = g1) {
        int64_t total = 0;
        for (g1 = g0; g1 < n && tiles[g1].group == tiles[g0].group; g1++)
            total += tiles[g1].bytes;
        for (int i = g0; i < g1 && total > params->group_tile_bytes_max; i++) {
            f->tile_ok[tiles[i].id] = false;
            total -= tiles[i].bytes;
            changed = true;
        }
    }
    free(group), free(tiles);
    return changed;
}

/* ============================================================ kernel facts */

/* Walker callback of writes_tile_only: stops at a reduction or at an
 * assignment to anything but a tile, a recomputed temporary or a scalar (a
 * local of the point's code: planning took it for a tile candidate, and a
 * tile's producer that computes one first must still cover the tile's ring). */
static IrWalk tile_write(void *ctx, const IrStmt *s)
{
    (void)ctx;
    if (s->kind == IR_REDUCE)
        return IR_WALK_STOP;
    if (s->kind != IR_ASSIGN)
        return IR_WALK_ON;
    const IrField *d = s->assign.dst;
    return d->kind == IR_TEMP && (d->temp_class == IR_TEMP_TILE ||
                                  d->temp_class == IR_TEMP_RECOMPUTE ||
                                  d->temp_class == IR_TEMP_SCALAR)
               ? IR_WALK_ON
               : IR_WALK_STOP;
}

/* s writes only tiles, recomputed temporaries and scalars (as classed). */
static bool writes_tile_only(const IrStmt *s)
{
    return ir_walk_stmt(s, tile_write, NULL);
}

/* What a group accesses as planned (plan_visit_stmt's walk): each field once
 * in ids (mark[id] set), and per field id the K offsets it is accessed at
 * outside column reductions (klo > khi while none). */
typedef struct {
    bool *mark;
    int *ids;
    int n;
    int64_t *klo, *khi;
} GroupScan;

static void scan_access(void *ctx, const IrField *f, const int64_t off[NAXES], bool in_column)
{
    GroupScan *g = ctx;
    if (!g->mark[f->id]) {
        g->mark[f->id] = true;
        g->ids[g->n++] = f->id;
    }
    if (in_column)
        return;               /* a column reduction walks its own levels */
    if (off[AXIS_K] < g->klo[f->id])
        g->klo[f->id] = off[AXIS_K];
    if (off[AXIS_K] > g->khi[f->id])
        g->khi[f->id] = off[AXIS_K];
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Records on the kernels of group [g0, g1) of iv what the group uses (the
 * same on each): its tiles (sorted ids), their bytes over one block, and the
 * bytes per point of the planes it keeps live from level to level. Linear in
 * what the group accesses; leaves g's arrays as it found them. */
static void group_facts(Compiler *c, const PlanParams *params, const IrStencil *st,
                        IrInterval *iv, int g0, int g1, GroupScan *g)
{
    IrKernel *ks = iv->kernels.items;
    g->n = 0;
    for (int kk = g0; kk < g1; kk++)
        for (int s = ks[kk].first; s < ks[kk].first + ks[kk].count; s++)
            plan_visit_stmt(iv->stmts.items[s], scan_access, g);
    int ntiles = 0;
    int64_t tile_bytes = 0, plane_bytes = 0;
    int *tiles = g->n ? arena_alloc(c->arena, sizeof(int) * (size_t)g->n) : NULL;
    for (int i = 0; i < g->n; i++) {
        int f = g->ids[i];
        const IrField *fd = st->fields.items[f];
        if (fd->kind == IR_TEMP && fd->temp_class == IR_TEMP_TILE) {
            tiles[ntiles++] = f;
            tile_bytes += plan_tile_bytes(params, fd, NULL, NULL);
        }
        if (g->khi[f] > g->klo[f])
            plane_bytes += (g->khi[f] - g->klo[f] + 1) * type_size(fd->type);
        g->mark[f] = false;
        g->klo[f] = INT64_MAX, g->khi[f] = INT64_MIN;
    }
    if (ntiles > 1)
        qsort(tiles, (size_t)ntiles, sizeof(int), cmp_int);
    for (int kk = g0; kk < g1; kk++) {
        ks[kk].tiles = tiles;
        ks[kk].ntiles = ntiles;
        ks[kk].tile_bytes = tile_bytes;
        ks[kk].plane_bytes = plane_bytes;
    }
}

/* What a group reads of each field, for group_stages: the box of the points read around
 * the block (a kernel's region plus the read's offset), the distinct horizontal offsets
 * (up to STAGE_OFFSETS of them), and whether a read rules staging out (at another level,
 * inside a column reduction). */
enum { STAGE_OFFSETS = 8 };
typedef struct {
    const Extent *region;     /* the kernel being scanned */
    bool *seen, *bad;
    int64_t (*box)[4];        /* I lo, I hi, J lo, J hi */
    int64_t (*offs)[STAGE_OFFSETS][2];
    int *noffs;
} StageScan;

static void stage_access(void *ctx, const IrField *f, const int64_t off[NAXES], bool in_column)
{
    StageScan *g = ctx;
    int id = f->id;
    if (in_column || off[AXIS_K] != 0) {
        g->bad[id] = true;
        return;
    }
    int64_t b[4] = {g->region->r[AXIS_I].lo + off[AXIS_I], g->region->r[AXIS_I].hi + off[AXIS_I],
                    g->region->r[AXIS_J].lo + off[AXIS_J], g->region->r[AXIS_J].hi + off[AXIS_J]};
    if (!g->seen[id]) {
        g->seen[id] = true;
        memcpy(g->box[id], b, sizeof b);
    }
    for (int x = 0; x < 4; x++)
        if (x % 2 ? b[x] > g->box[id][x] : b[x] < g->box[id][x])
            g->box[id][x] = b[x];
    for (int m = 0; m < g->noffs[id]; m++)
        if (g->offs[id][m][0] == off[AXIS_I] && g->offs[id][m][1] == off[AXIS_J])
            return;
    if (g->noffs[id] < STAGE_OFFSETS) {
        g->offs[id][g->noffs[id]][0] = off[AXIS_I];
        g->offs[id][g->noffs[id]][1] = off[AXIS_J];
        g->noffs[id]++;
    }
}

/* The fields group [g0, g1) of iv stages in shared memory (IrKernel.stages): where the
 * backend asks for it, in a parallel interval, a group of three-dimensional kernels that
 * has tiles (so barriers already order its levels), a parameter of axes IJK that the
 * stencil never writes, reads at no run-time level, has no boundary condition, and is read
 * in the group only at level k, at stage_min_offsets horizontal offsets or more; its box
 * loaded in at most stage_max_loads points per thread, and the group's tiles and stages
 * within group_tile_bytes_max. */
static void group_stages(Compiler *c, const PlanParams *params, const IrStencil *st,
                         IrInterval *iv, int g0, int g1)
{
    IrKernel *ks = iv->kernels.items;
    for (int kk = g0; kk < g1; kk++) {
        ks[kk].stages = NULL;
        ks[kk].nstages = 0;
    }
    if (!params->stage_min_offsets || !ks[g0].ntiles)
        return;
    for (int kk = g0; kk < g1; kk++)
        if (ks[kk].axes != AXES_IJK)
            return;
    size_t nf = (size_t)st->fields.len + 1;
    StageScan g = {NULL, xcalloc(nf, sizeof(bool)), xcalloc(nf, sizeof(bool)),
                   xcalloc(nf, sizeof *g.box), xcalloc(nf, sizeof *g.offs),
                   xcalloc(nf, sizeof(int))};
    for (int kk = g0; kk < g1; kk++) {
        g.region = &iv->stmts.items[ks[kk].first]->region;
        for (int s = ks[kk].first; s < ks[kk].first + ks[kk].count; s++)
            plan_visit_stmt(iv->stmts.items[s], stage_access, &g);
    }
    int64_t threads = (int64_t)params->block_i * params->block_j_max;
    int64_t budget = params->group_tile_bytes_max ? params->group_tile_bytes_max - ks[g0].tile_bytes
                                                  : INT64_MAX;
    IrStage *stages = NULL;
    int n = 0;
    for (int f = 0; f < st->fields.len; f++) {
        const IrField *fd = st->fields.items[f];
        if (!g.seen[f] || g.bad[f] || fd->kind != IR_PARAM_FIELD || fd->is_written ||
            fd->read_at_run_time_k || fd->axes != AXES_IJK ||
            g.noffs[f] < params->stage_min_offsets)
            continue;
        bool bc = false;
        for (int a = 0; a < NAXES; a++)
            bc = bc || fd->bc[a].kind != BC_NONE;
        IrStage x = {.field = f,
                     .lo = {g.box[f][0], g.box[f][2]},
                     .hi = {g.box[f][1], g.box[f][3]}};
        x.w = params->block_i + x.hi[0] - x.lo[0];
        x.h = params->block_j_max + x.hi[1] - x.lo[1];
        x.bytes = x.w * x.h * type_size(fd->type);
        x.loads = (x.w * x.h + threads - 1) / threads;
        if (bc || x.loads > params->stage_max_loads || x.bytes > budget)
            continue;
        budget -= x.bytes;
        if (!stages)
            stages = arena_alloc(c->arena, sizeof *stages * nf);
        stages[n++] = x;
    }
    for (int kk = g0; kk < g1; kk++) {
        ks[kk].stages = stages;
        ks[kk].nstages = n;
    }
    free(g.seen), free(g.bad), free(g.box), free(g.offs), free(g.noffs);
}

/* Records on each kernel, once the classes are final, what the emitters
 * read: IrKernel.axes, .redundant, .reduce, its group's tiles and
 * resources (group_facts) and the fields it stages (group_stages). */
static void kernel_facts(Compiler *c, const PlanParams *params, IrStencil *st)
{
    size_t nf = (size_t)st->fields.len + 1;
    GroupScan g = {xcalloc(nf, sizeof(bool)), xcalloc(nf, sizeof(int)), 0,
                   xcalloc(nf, sizeof(int64_t)), xcalloc(nf, sizeof(int64_t))};
    for (size_t f = 0; f < nf; f++)
        g.klo[f] = INT64_MAX, g.khi[f] = INT64_MIN;
    for (int ci = 0; ci < st->computations.len; ci++) {
        IrComputation *comp = st->computations.items[ci];
        for (int ii = 0; ii < comp->intervals.len; ii++) {
            IrInterval *iv = comp->intervals.items[ii];
            IrKernel *ks = iv->kernels.items;
            for (int kk = 0; kk < iv->kernels.len; kk++) {
                IrKernel *k = &ks[kk];
                k->axes = 0;
                k->redundant = true;
                k->reduce = NULL;
                k->stages = NULL;
                k->nstages = 0;
                for (int s = k->first; s < k->first + k->count; s++) {
                    const IrStmt *x = iv->stmts.items[s];
                    k->axes |= ir_stmt_axes(x);
                    k->redundant = k->redundant && writes_tile_only(x);
                    if (x->kind == IR_REDUCE)
                        k->reduce = x;
                }
            }
            /* the kernels of one group are consecutive in their interval */
            for (int g0 = 0, g1; g0 < iv->kernels.len; g0 = g1) {
                for (g1 = g0; g1 < iv->kernels.len && ks[g1].group == ks[g0].group; g1++)
                    ;
                group_facts(c, params, st, iv, g0, g1, &g);
                if (comp->order == ORDER_PARALLEL)
                    group_stages(c, params, st, iv, g0, g1);
            }
        }
    }
    free(g.mark), free(g.ids), free(g.klo), free(g.khi);
}

static void fuse_stencil(Compiler *c, const PlanParams *params, IrStencil *st)
{
    Fuse f = {.c = c, .params = params, .st = st};
    st->fused = false;
    for (int t = 0; t < st->fields.len; t++) {
        st->fields.items[t]->temp_class = IR_TEMP_FULL;
        st->fields.items[t]->buffer = -1;
        st->fields.items[t]->producer = NULL;
        st->fields.items[t]->nproducer = 0;
        st->fields.items[t]->tile_rows = 0;
    }
    for (int ci = 0; ci < st->computations.len; ci++) {
        IrComputation *comp = st->computations.items[ci];
        for (int ii = 0; ii < comp->intervals.len; ii++) {
            IrInterval *iv = comp->intervals.items[ii];
            iv->kernels.len = 0;
            for (int s = 0; s < iv->stmts.len; s++) {
                StmtInfo si = {.stmt = iv->stmts.items[s], .comp = ci, .interval = ii, .index = s};
                si.region = iv->stmts.items[s]->region;
                collect(&f, si.stmt, &si.acc, &si.region, &si.has_reduce);
                si.axes = ir_stmt_axes(si.stmt);
                const char *why = check_if(&f, &si);
                if (!why && si.has_reduce && si.stmt->kind != IR_REDUCE)
                    why = "a reduction inside an if";
                if (why) {
                    st->not_fused_why = why;
                    st->not_fused_loc = si.stmt->loc;
                    diag_warning(&c->diag, si.stmt->loc,
                                 "stencil '%s' is not fused: %s; it runs as the naive "
                                 "backend's code, one loop nest per statement", st->name, why);
                    return;
                }
                vec_push(c->arena, &f.stmts, si);
            }
        }
    }
    f.tile_ok = arena_alloc(c->arena, sizeof(bool) * (size_t)(st->fields.len + 1));
    build_index(&f);
    int nf = st->fields.len;
    f.kw = xcalloc((size_t)nf, sizeof(int));
    f.kr = xcalloc((size_t)nf, sizeof(int));
    f.gw = xcalloc((size_t)nf, sizeof(int));
    f.gr = xcalloc((size_t)nf, sizeof(int));
    f.wk = xcalloc((size_t)nf, sizeof(int));
    f.wg = xcalloc((size_t)nf, sizeof(int));
    fuse_recompute(&f);
    /* tile candidates: 3-D temporaries read at K offset 0 in one parallel
     * interval, first written there */
    for (int t = 0; t < st->fields.len; t++) {
        IrField *fd = st->fields.items[t];
        if (fd->kind != IR_TEMP || fd->axes != AXES_IJK || fd->temp_class == IR_TEMP_RECOMPUTE)
            continue;
        bool ok = true;
        int first = -1;
        for (int e = f.fa_start[t]; e < f.fa_start[t + 1] && ok; e++) {
            int i = f.fa[e].stmt;
            StmtInfo *si = &f.stmts.items[i];
            Access *a = &si->acc.items[f.fa[e].acc];
            if (first < 0)
                first = i;
            StmtInfo *fs = &f.stmts.items[first];
            if (si->comp != fs->comp || si->interval != fs->interval ||
                st->computations.items[si->comp]->order != ORDER_PARALLEL ||
                si->axes != AXES_IJK || si->has_reduce ||
                (!a->write && (a->offset[AXIS_K] || a->in_column)))
                ok = false;
        }
        f.tile_ok[t] = params->tiles && ok && first >= 0 && tile_fits(params, fd) &&
                       first_access_writes(&f.stmts.items[first], fd);
    }
    do {
        do
            fuse_kernels(&f);
        while (demote_tiles(&f));
    } while (demote_over_budget(&f, params));
    if (fuse_recompute_kernels(&f)) {
        do {
            do
                fuse_kernels(&f);
            while (demote_tiles(&f));
        } while (demote_over_budget(&f, params));
    }
    fuse_classes(&f);
    fuse_columns(&f);
    fuse_buffers(&f);
    free(f.kw), free(f.kr), free(f.gw), free(f.gr), free(f.wk), free(f.wg);
    int nkernels = 0;
    for (int i = 0; i < f.stmts.len; i++)
        if (!f.stmts.items[i].skip && f.stmts.items[i].kernel + 1 > nkernels)
            nkernels = f.stmts.items[i].kernel + 1;
    int *klag = xcalloc((size_t)nkernels, sizeof *klag);
    fuse_lags(&f, klag);

    /* the kernels, and whether vertical computations can run by columns */
    int prev_kernel = -1;
    for (int i = 0; i < f.stmts.len; i++) {
        StmtInfo *si = &f.stmts.items[i];
        if (si->skip)
            continue;
        IrInterval *iv = st->computations.items[si->comp]->intervals.items[si->interval];
        IrKernel *last = iv->kernels.len ? &iv->kernels.items[iv->kernels.len - 1] : NULL;
        bool same = last && prev_kernel == si->kernel;
        prev_kernel = si->kernel;
        if (same) {
            /* skipped producers inside the range are left out by the backend */
            last->count = si->index - last->first + 1;
        } else {
            IrKernel k = {.first = si->index, .count = 1, .group = si->group,
                          .lag = klag[si->kernel]};
            vec_push(c->arena, &iv->kernels, k);
        }
    }
    free(klag);
    kernel_facts(c, params, st);
    st->fused = true;
}

void fuse_plan(Compiler *c, const PlanParams *params)
{
    for (int s = 0; s < c->ir->stencils.len; s++)
        fuse_stencil(c, params, c->ir->stencils.items[s]);
}
