/* plan.c: what the fusion plan means, asked by every backend that follows it.
 *
 * fuse.c decides (kernels, groups, temporary classes, buffers, lags) and
 * writes its decisions on the IR; this file answers the questions a backend
 * asks of those decisions, so that every backend reads them alike:
 *
 * - which temporaries are recomputed, and how: one assignment substituted as
 *   an expression at each read (plan_expr_recompute), or the statements of
 *   its kernel run again into locals, once per read offset
 *   (plan_stmt_recompute); which statements are left out of their kernel
 *   because they only compute such temporaries (plan_stmt_recomputed);
 * - every field a statement loads, at which offset, once recomputed
 *   temporaries are expanded into what they read (plan_visit_stmt);
 * - how far a kernel's boundary-condition reads reach outside the domain,
 *   per axis (plan_kernel_reach): the width of its boundary slabs;
 * - whether the kernels of a column group all run over the same columns
 *   (plan_columns_alike);
 * - which FULL temporary allocates the buffer it shares with others, and
 *   with which halo (plan_owns_buffer, plan_buffer_halo);
 * - which fields and domain sizes a stencil's code uses (plan_fields_used). */
#include <string.h>

#include "gtcc.h"
#include "plan.h"

bool plan_expr_recompute(const IrField *f)
{
    return f->kind == IR_TEMP && f->temp_class == IR_TEMP_RECOMPUTE && f->nproducer == 1 &&
           f->producer[0]->kind == IR_ASSIGN && f->producer[0]->assign.dst == f;
}

bool plan_stmt_recompute(const IrField *f)
{
    return f->kind == IR_TEMP && f->temp_class == IR_TEMP_RECOMPUTE && !plan_expr_recompute(f);
}

static bool assigns_recomputed(const IrStmt *s)
{
    return s->kind == IR_ASSIGN && s->assign.dst->kind == IR_TEMP &&
           s->assign.dst->temp_class == IR_TEMP_RECOMPUTE;
}

/* Stops at a statement that runs: an assignment of anything but a recomputed
 * temporary, a reduction, an if with no statement in it. */
static IrWalk runs(void *ctx, const IrStmt *s)
{
    (void)ctx;
    bool left_out = s->kind == IR_ASSIGN ? assigns_recomputed(s)
                    : s->kind == IR_IF   ? s->iff.then.len + s->iff.els.len > 0
                                         : false;
    return left_out ? IR_WALK_ON : IR_WALK_STOP;
}

bool plan_stmt_recomputed(const IrStmt *s)
{
    return ir_walk_stmt(s, runs, NULL);
}

/* ================================================================ visits */

/* A statement-recomputed temporary being expanded: the chain of them lives
 * on the C stack, so an expansion never re-enters one already open. */
typedef struct Expanding Expanding;
struct Expanding {
    const IrField *field;
    const Expanding *outer;
};

typedef struct {
    PlanLoadFn *fn;
    void *ctx;
    bool writes;              /* also the writes */
} Visit;

static void visit_stmt_at(const Visit *v, const IrStmt *s, const int64_t shift[NAXES],
                          bool producer, const Expanding *open);

static void visit_expr(const Visit *v, const IrExpr *e, const int64_t shift[NAXES], bool in_col,
                       const Expanding *open)
{
    if (e->kind != IR_LOAD) {
        IrExpr *sub[3];
        int n = ir_expr_children(e, sub);
        for (int i = 0; i < n; i++)
            visit_expr(v, sub[i], shift, in_col || e->kind == IR_COLREDUCE, open);
        return;
    }
    int64_t off[NAXES];
    for (int a = 0; a < NAXES; a++)
        off[a] = e->load.offset[a] + shift[a];
    const IrField *f = e->load.field;
    if (plan_expr_recompute(f)) {
        visit_expr(v, f->producer[0]->assign.value, off, in_col, open);
        return;
    }
    v->fn(v->ctx, f, off, in_col);
    if (e->load.klevel)   /* the loads of a run-time level, at the point */
        visit_expr(v, e->load.klevel, shift, in_col, open);
    if (!plan_stmt_recompute(f))
        return;
    /* the producer reads f itself at zero offset: its own local */
    for (const Expanding *x = open; x; x = x->outer)
        if (x->field == f)
            return;
    Expanding inner = {f, open};
    for (int i = 0; i < f->nproducer; i++)
        visit_stmt_at(v, f->producer[i], off, true, &inner);
}

/* A statement visit: its loads shifted by shift; producer: it computes a
 * recomputed temporary (else such statements are left out). */
typedef struct {
    const Visit *v;
    const int64_t *shift;
    bool producer;
    const Expanding *open;
} StmtVisit;

static IrWalk visit_one(void *ctx, const IrStmt *s)
{
    const StmtVisit *x = ctx;
    if (!x->producer && plan_stmt_recomputed(s))
        return IR_WALK_SKIP;
    if (s->kind == IR_ASSIGN && assigns_recomputed(s) &&
        (!x->producer || plan_expr_recompute(s->assign.dst)))
        return IR_WALK_SKIP;
    visit_expr(x->v, ir_stmt_expr(s), x->shift, false, x->open);
    if (s->kind == IR_ASSIGN && x->v->writes)
        x->v->fn(x->v->ctx, s->assign.dst, x->shift, false);
    return IR_WALK_ON;
}

static void visit_stmt_at(const Visit *v, const IrStmt *s, const int64_t shift[NAXES],
                          bool producer, const Expanding *open)
{
    StmtVisit x = {v, shift, producer, open};
    ir_walk_stmt(s, visit_one, &x);
}

void plan_visit_stmt(const IrStmt *s, PlanLoadFn *fn, void *ctx)
{
    static const int64_t zero[NAXES] = {0, 0, 0};
    Visit v = {fn, ctx, true};
    visit_stmt_at(&v, s, zero, false, NULL);
}

void plan_visit_reads(const IrStmt *s, PlanLoadFn *fn, void *ctx)
{
    static const int64_t zero[NAXES] = {0, 0, 0};
    Visit v = {fn, ctx, false};
    visit_stmt_at(&v, s, zero, false, NULL);
}

/* ============================================================== kernels */

static void reach_load(void *ctx, const IrField *f, const int64_t off[NAXES], bool in_column)
{
    PlanReach *r = ctx;
    if (f->kind != IR_PARAM_FIELD)
        return;
    for (int a = 0; a < NAXES; a++) {
        if (f->bc[a].kind == BC_NONE || !(f->axes & (1u << a)) || (in_column && a == AXIS_K))
            continue;
        if (!r->has[a]) {
            r->has[a] = true;
            r->lo[a] = r->hi[a] = 0;
        }
        if (off[a] < r->lo[a])
            r->lo[a] = off[a];
        if (off[a] > r->hi[a])
            r->hi[a] = off[a];
    }
}

static IrWalk has_kind(void *ctx, const IrStmt *s)
{
    IrExprKind k = *(const IrExprKind *)ctx;
    switch (s->kind) {
    case IR_ASSIGN:
        return !assigns_recomputed(s) && ir_expr_has(s->assign.value, k) ? IR_WALK_STOP
                                                                          : IR_WALK_ON;
    case IR_REDUCE:
        return ir_expr_has(s->reduce.value, k) ? IR_WALK_STOP : IR_WALK_ON;
    case IR_IF:
        return ir_expr_has(s->iff.cond, k) ? IR_WALK_STOP : IR_WALK_ON;
    }
    unreachable();
}

bool plan_stmt_has(const IrStmt *s, IrExprKind k)
{
    return !ir_walk_stmt(s, has_kind, &k);
}

PlanReach plan_kernel_reach(const IrInterval *iv, const IrKernel *k)
{
    PlanReach r = {0};
    for (int s = k->first; s < k->first + k->count; s++) {
        const IrStmt *st = iv->stmts.items[s];
        plan_visit_stmt(st, reach_load, &r);
        r.cols = r.cols || plan_stmt_has(st, IR_COLREDUCE);
    }
    return r;
}

bool plan_columns_alike(const IrComputation *comp, const Extent **same)
{
    for (int ii = 0; ii < comp->intervals.len; ii++) {
        const IrInterval *iv = comp->intervals.items[ii];
        for (int kk = 0; kk < iv->kernels.len; kk++) {
            const IrStmt *s0 = iv->stmts.items[iv->kernels.items[kk].first];
            const Extent *r = &s0->region;
            if (area_any(&s0->area))
                return false;   /* clamped ranges: some columns skip the kernel */
            if (!*same)
                *same = r;
            for (int a = 0; a < 2; a++)
                if (r->r[a].lo != (*same)->r[a].lo || r->r[a].hi != (*same)->r[a].hi)
                    return false;
        }
    }
    return true;
}

/* ============================================================== buffers */

static bool full_temp(const IrField *f)
{
    return f->kind == IR_TEMP && f->temp_class == IR_TEMP_FULL;
}

bool plan_owns_buffer(const IrStencil *st, int f)
{
    const IrField *fd = st->fields.items[f];
    if (!full_temp(fd))
        return false;
    for (int g = 0; g < f; g++) {
        const IrField *o = st->fields.items[g];
        if (full_temp(o) && o->buffer == fd->buffer)
            return false;
    }
    return true;
}

void plan_buffer_halo(const IrStencil *st, int f, int64_t h[NAXES][2])
{
    const IrField *fd = st->fields.items[f];
    memset(h, 0, sizeof(int64_t) * NAXES * 2);
    for (int g = 0; g < st->fields.len; g++) {
        const IrField *gd = st->fields.items[g];
        if (!full_temp(gd) || gd->buffer != fd->buffer)
            continue;
        for (int a = 0; a < NAXES; a++)
            for (int s = 0; s < 2; s++)
                if (gd->alloc_halo[a][s] > h[a][s])
                    h[a][s] = gd->alloc_halo[a][s];
    }
}

/* ================================================================ usage */

static void mark_used(void *ctx, const IrField *f, const int64_t off[NAXES], bool in_column)
{
    (void)off, (void)in_column;
    ((bool *)ctx)[f->id] = true;
}

void plan_comp_fields_used(const IrComputation *comp, bool *used)
{
    for (int i = 0; i < comp->intervals.len; i++) {
        const IrInterval *iv = comp->intervals.items[i];
        for (int s = 0; s < iv->stmts.len; s++)
            plan_visit_stmt(iv->stmts.items[s], mark_used, used);
    }
}

void plan_fields_used(const IrStencil *st, bool *used)
{
    for (int f = 0; f < st->fields.len; f++)
        used[f] = false;
    for (int c = 0; c < st->computations.len; c++)
        plan_comp_fields_used(st->computations.items[c], used);
}
