/* emit_point.c: the body of one point of a planned kernel, for every backend
 * that follows the plan of fuse.c.
 *
 * What the plan means at a point is the same on every target: a SCALAR
 * temporary is a local of the body; a statement-recomputed temporary is
 * computed once per read offset into locals at the top of the body (its
 * producing statements run again, shifted by the offset); an
 * expression-recomputed one is substituted, shifted, at each read; the
 * statements of the kernel follow, their `if`s as C `if`s. Only arrays and
 * tiles are the backend's: it prints them through EmitPoint.access. */
#include <string.h>

#include "emit.h"

void emit_point_init(EmitPoint *p, EmitStencil *es, const char *kk)
{
    memset(p, 0, sizeof *p);
    p->es = es;
    p->kk = kk;
    p->scalar_mark = arena_alloc(es->arena, sizeof(int) * (size_t)(es->st->fields.len + 1));
}

/* A load at the point: recomputed temporaries and scalars here, arrays and
 * tiles through the backend. */
static void point_load(Out *o, const EmitExprCtx *cx, const IrExpr *e)
{
    EmitPoint *p = cx->user;
    const IrField *f = e->load.field;
    int64_t off[NAXES];
    for (int a = 0; a < NAXES; a++)
        off[a] = e->load.offset[a] + p->shift[a];
    if (f->kind == IR_TEMP && f->temp_class == IR_TEMP_RECOMPUTE) {
        if (plan_stmt_recompute(f)) {
            for (int r = 0; r < p->rc.len; r++)
                if (p->rc.items[r].f == f && !memcmp(p->rc.items[r].off, off, sizeof off)) {
                    emit_text(o, "%s", p->rc.items[r].name);
                    return;
                }
            gtcc_die("recomputed temporary '%s' has no local", f->name);
        }
        int64_t saved[NAXES];
        memcpy(saved, p->shift, sizeof saved);
        memcpy(p->shift, off, sizeof off);
        emit_text(o, "(");
        emit_expr(o, cx, f->producer[0]->assign.value);
        emit_text(o, ")");
        memcpy(p->shift, saved, sizeof saved);
        return;
    }
    if (f->kind == IR_TEMP && f->temp_class == IR_TEMP_SCALAR) {
        emit_text(o, "%s", p->es->field[f->id]);
        return;
    }
    /* a k-cached value of a level just computed (never a column reduction's
     * read, which runs over the whole column) */
    if (p->kc_depth && p->kc_depth[f->id] && !off[AXIS_I] && !off[AXIS_J] && !e->load.klevel &&
        cx->idx[AXIS_K].term != p->kk) {
        int64_t d = off[AXIS_K] * p->kc_dir;
        if (d >= 1 && d <= p->kc_depth[f->id]) {
            emit_text(o, "%s", p->kc_name[f->id][d]);
            return;
        }
    }
    if (e->load.klevel) {
        /* a run-time level (checked before the statements ran, or as it reads) */
        EmitExprCtx at = *cx;
        at.idx[AXIS_K] = emit_kdyn_level(
            cx, e, e->load.kmode == KDYN_ABS ? e->load.offset[AXIS_K] : off[AXIS_K], p->shift);
        off[AXIS_K] = 0;
        p->access(o, &at, f, off, false);
        return;
    }
    p->access(o, cx, f, off, false);
}

EmitExprCtx emit_point_expr_ctx(EmitPoint *p, const char *kvar)
{
    return emit_point_ctx(p->es, kvar, point_load, p);
}

void emit_point_load(Out *o, const EmitExprCtx *cx, const IrField *f, const int64_t off[NAXES])
{
    IrExpr e = {.kind = IR_LOAD, .type = f->type, .shape = f->axes};
    e.load.field = (IrField *)f;
    memcpy(e.load.offset, off, sizeof e.load.offset);
    point_load(o, cx, &e);
}

static void point_stmt(EmitPoint *p, const IrStmt *s, const char *kvar);

static void point_stmts(EmitPoint *p, const IrStmtVec *v, const char *kvar)
{
    for (int i = 0; i < v->len; i++)
        point_stmt(p, v->items[i], kvar);
}

/* `dst = value;` at the point: the local of the read offset being
 * recomputed, a scalar's local, or the backend's element (a write is always
 * inside the domain: never remapped). */
static void point_assign(EmitPoint *p, const IrStmt *s, const EmitExprCtx *cx)
{
    Out *o = p->o;
    const IrField *f = s->assign.dst;
    emit_begin_stn_line(o, s->loc);
    if (f == p->producing || (f->kind == IR_TEMP && f->temp_class == IR_TEMP_SCALAR)) {
        static const int64_t zero[NAXES] = {0, 0, 0};
        int64_t saved[NAXES];
        memcpy(saved, p->shift, sizeof saved);
        if (f != p->producing)
            memset(p->shift, 0, sizeof p->shift);
        emit_point_load(o, cx, f, zero);
        memcpy(p->shift, saved, sizeof saved);
    } else {
        static const int64_t zero[NAXES] = {0, 0, 0};
        p->access(o, cx, f, zero, true);
        /* a k-cached field: the local of the level being computed takes the
         * value too (the outputs share no memory with each other, so the
         * element keeps the last value stored at the point; carrying it
         * spares a reload behind the store on the sweep's dependency chain) */
        if (p->kc_depth && p->kc_depth[f->id])
            emit_text(o, " = %s", p->kc_name[f->id][0]);
    }
    emit_text(o, " = ");
    emit_expr(o, cx, s->assign.value);
    emit_text(o, ";");
    emit_end_line(o);
}

/* One statement at the point (i, j, kvar). */
static void point_stmt(EmitPoint *p, const IrStmt *s, const char *kvar)
{
    Out *o = p->o;
    EmitExprCtx cx = emit_point_expr_ctx(p, kvar);
    switch (s->kind) {
    case IR_ASSIGN: {
        const IrField *f = s->assign.dst;
        if (f->kind == IR_TEMP && f->temp_class == IR_TEMP_RECOMPUTE && f != p->producing)
            return;
        emit_hoist_columns(o, &cx, s->assign.value, s->loc, p->kk);
        point_assign(p, s, &cx);
        return;
    }
    case IR_REDUCE: {
        emit_hoist_columns(o, &cx, s->reduce.value, s->loc, p->kk);
        Type t = s->reduce.dst->type;
        emit_begin_stn_line(o, s->loc);
        emit_reduce_open(o, s->reduce.op, t, p->red_acc);
        emit_expr_prec(o, &cx, s->reduce.value, t == TY_BOOL && s->reduce.op != RED_SUM ? 6 : 0);
        emit_reduce_close(o, s->reduce.op, t);
        emit_text(o, ";");
        emit_end_line(o);
        return;
    }
    case IR_IF:
        if (!p->producing && plan_stmt_recomputed(s))
            return;
        /* a while loop has no else; fuse.c keeps column reductions out of
         * its test (they would be hoisted out of the loop) */
        emit_hoist_columns(o, &cx, s->iff.cond, s->loc, p->kk);
        if (s->iff.loop && emit_kguard_stmt(p->es, s)) {
            /* reads checked as they read: one that fails ends the loop at the point */
            const char *go = emit_unique(p->es->arena, &p->es->names, "gt_go");
            const char *saved = p->es->kgo;
            emit_open(o, "{");
            emit_line(o, "bool %s = true;", go);
            p->es->kgo = arena_printf(p->es->arena, "&%s", go);
            emit_begin_stn_line(o, s->loc);
            emit_text(o, "while (%s && (", go);
            emit_expr(o, &cx, s->iff.cond);
            emit_text(o, ")) {");
            emit_end_open(o);
            point_stmts(p, &s->iff.then, kvar);
            emit_close(o);
            p->es->kgo = saved;
            emit_close(o);
            return;
        }
        emit_begin_stn_line(o, s->loc);
        emit_text(o, s->iff.loop ? "while (" : "if (");
        for (;;) {
            emit_expr(o, &cx, s->iff.cond);
            emit_text(o, ") {");
            emit_end_open(o);
            point_stmts(p, &s->iff.then, kvar);
            /* an else branch that is one `if` (an else-if chain) continues
             * at this indentation: nested, N branches took O(N^2) spaces */
            const IrStmt *next = s->iff.els.len == 1 ? s->iff.els.items[0] : NULL;
            if (next && next->kind == IR_IF && !next->iff.loop &&
                !ir_expr_has(next->iff.cond, IR_COLREDUCE)) {
                s = next;
                emit_dedent(o);
                emit_begin_stn_line(o, s->loc);
                emit_text(o, "} else if (");
                continue;
            }
            break;
        }
        if (s->iff.els.len) {
            emit_else(o);
            point_stmts(p, &s->iff.els, kvar);
        }
        emit_close(o);
        return;
    }
}

/* The scalars a kernel accesses, in order of first access: p->scalars, each
 * once (p->scalar_mark[id] == p->scalar_stamp marks the ones taken). */
static void scalar_visit(void *ctx, const IrField *f, const int64_t off[NAXES], bool in_column)
{
    EmitPoint *p = ctx;
    (void)off, (void)in_column;
    if (f->kind != IR_TEMP || f->temp_class != IR_TEMP_SCALAR ||
        p->scalar_mark[f->id] == p->scalar_stamp)
        return;
    p->scalar_mark[f->id] = p->scalar_stamp;
    vec_push(p->es->arena, &p->scalars, f);
}

/* Collects the (temporary, offset) pairs a kernel recomputes (producers read
 * no statement-recomputed temporary, so their order does not matter). */
static void rc_visit(void *ctx, const IrField *f, const int64_t off[NAXES], bool in_column)
{
    EmitPoint *p = ctx;
    (void)in_column;
    if (!plan_stmt_recompute(f))
        return;
    for (int r = 0; r < p->rc.len; r++)
        if (p->rc.items[r].f == f && !memcmp(p->rc.items[r].off, off, sizeof p->rc.items[r].off))
            return;
    Arena *arena = p->es->arena;
    struct EmitRecomputed at = {f, {off[0], off[1], off[2]}, NULL};
    at.name = emit_unique(arena, &p->es->names,
                          arena_printf(arena, "%s_%d", p->es->field[f->id], p->rc.len));
    vec_push(arena, &p->rc, at);
}

/* `T name = 0;` */
static void zero_local(Out *o, Type t, const char *name)
{
    emit_begin_line(o);
    emit_text(o, "%s %s = ", emit_c_type(t), name);
    emit_const(o, t, 0, 0.0);
    emit_text(o, ";");
    emit_end_line(o);
}

void emit_point_body(EmitPoint *p, const IrInterval *iv, const IrKernel *k, const char *kvar)
{
    Out *o = p->o;
    p->scalars.len = 0;
    p->scalar_stamp++;
    for (int s = k->first; s < k->first + k->count; s++)
        plan_visit_stmt(iv->stmts.items[s], scalar_visit, p);
    for (int i = 0; i < p->scalars.len; i++)
        zero_local(o, p->scalars.items[i]->type, p->es->field[p->scalars.items[i]->id]);
    /* statement-recomputed temporaries, once per read offset, into locals;
     * producers may read other ones (recomputed first) */
    p->rc.len = 0;
    for (int s = k->first; s < k->first + k->count; s++)
        plan_visit_stmt(iv->stmts.items[s], rc_visit, p);
    for (int r = 0; r < p->rc.len; r++) {
        const IrField *f = p->rc.items[r].f;
        zero_local(o, f->type, p->rc.items[r].name);
        int64_t saved[NAXES];
        memcpy(saved, p->shift, sizeof saved);
        memcpy(p->shift, p->rc.items[r].off, sizeof saved);
        p->producing = f;
        for (int i = 0; i < f->nproducer; i++)
            point_stmt(p, f->producer[i], kvar);
        p->producing = NULL;
        memcpy(p->shift, saved, sizeof saved);
    }
    for (int s = k->first; s < k->first + k->count; s++)
        point_stmt(p, iv->stmts.items[s], kvar);
}

/* ================================================================ k-caching */

void emit_kcache_begin(EmitPoint *p, const IrComputation *comp)
{
    Out *o = p->o;
    Arena *arena = p->es->arena;
    int nf = p->es->st->fields.len;
    /* kc_name may be the backend's (one set of locals per column it interleaves) */
    if (!p->kc_name)
        p->kc_name = arena_alloc(arena, sizeof *p->kc_name * (size_t)(nf + 1));
    if (!p->kc_comp_depth) {
        p->kc_comp_depth = arena_alloc(arena, sizeof(int) * (size_t)(nf + 1));
        p->kc_iv_depth = arena_alloc(arena, sizeof(int) * (size_t)(nf + 1));
        p->kc_stored = arena_alloc(arena, sizeof(bool) * (size_t)(nf + 1));
    }
    memset(p->kc_comp_depth, 0, sizeof(int) * (size_t)(nf + 1));
    p->kc_dir = comp->order == ORDER_FORWARD ? -1 : 1;
    for (int q = 0; q < comp->kcache.len; q++) {
        const IrField *f = comp->kcache.items[q].field;
        p->kc_comp_depth[f->id] = comp->kcache.items[q].depth;
        emit_begin_line(o);
        emit_text(o, "%s ", emit_c_type(f->type));
        for (int d = 0; d <= p->kc_comp_depth[f->id]; d++) {
            p->kc_name[f->id][d] = emit_unique(
                arena, &p->es->names,
                d ? arena_printf(arena, "%s_k%s%d", p->es->field[f->id],
                                 comp->order == ORDER_FORWARD ? "m" : "p", d)
                  : arena_printf(arena, "%s_k0", p->es->field[f->id]));
            emit_text(o, "%s%s = ", d ? ", " : "", p->kc_name[f->id][d]);
            emit_const(o, f->type, 0, 0.0);
        }
        emit_text(o, ";");
        emit_end_line(o);
    }
}

/* The deepest carried level of each field an interval reads back. */
static void kc_visit(void *ctx, const IrField *f, const int64_t off[NAXES], bool in_column)
{
    EmitPoint *p = ctx;
    int64_t d = off[AXIS_K] * p->kc_dir;
    if (in_column || off[AXIS_I] || off[AXIS_J] || d < 1)
        return;
    if (d <= p->kc_comp_depth[f->id] && d > p->kc_iv_depth[f->id])
        p->kc_iv_depth[f->id] = (int)d;
}

/* dst = f at (i, j, k + dk), bypassing the k-cache. */
static void load_into(EmitPoint *p, const IrField *f, int64_t dk, const char *dst)
{
    const int64_t off[NAXES] = {0, 0, dk};
    EmitExprCtx cx = emit_point_expr_ctx(p, "k");
    emit_begin_line(p->o);
    emit_text(p->o, "%s = ", dst);
    emit_point_load(p->o, &cx, f, off);
    emit_text(p->o, ";");
    emit_end_line(p->o);
}

void emit_kcache_interval_begin(EmitPoint *p, const IrComputation *comp, const IrInterval *iv)
{
    Out *o = p->o;
    Arena *arena = p->es->arena;
    const IrStencil *st = p->es->st;
    int nf = st->fields.len;
    p->kc_depth = NULL;   /* the preload reads memory (another column's cache may be on) */
    memset(p->kc_iv_depth, 0, sizeof(int) * (size_t)(nf + 1));
    memset(p->kc_stored, 0, sizeof(bool) * (size_t)(nf + 1));
    for (int s = 0; s < iv->stmts.len; s++) {
        const IrStmt *x = iv->stmts.items[s];
        plan_visit_stmt(x, kc_visit, p);
        if (x->kind == IR_ASSIGN && p->kc_comp_depth[x->assign.dst->id])
            p->kc_stored[x->assign.dst->id] = true;
    }
    bool any = false;
    for (int f = 0; f < nf; f++)
        any = any || p->kc_iv_depth[f];
    if (any) {
        const char *nk = p->es->nk;
        bool fwd = comp->order == ORDER_FORWARD;
        emit_open(o, "if (%s < %s) {", emit_level(arena, nk, iv->lo, 0),
                  emit_level(arena, nk, iv->hi, 0));
        emit_line(o, "const %s k = %s;", emit_index_type(p->es),
                  fwd ? emit_level(arena, nk, iv->lo, 0) : emit_level(arena, nk, iv->hi, -1));
        p->preload = true;
        for (int f = 0; f < nf; f++)
            for (int d = 1; d <= p->kc_iv_depth[f]; d++)
                load_into(p, st->fields.items[f], (int64_t)d * p->kc_dir, p->kc_name[f][d]);
        p->preload = false;
        emit_close(o);
    }
    p->kc_depth = p->kc_iv_depth;
}

void emit_kcache_interval_end(EmitPoint *p)
{
    const IrStencil *st = p->es->st;
    p->kc_depth = NULL;
    for (int f = 0; f < st->fields.len; f++) {
        for (int d = p->kc_iv_depth[f]; d > 1; d--)
            emit_line(p->o, "%s = %s;", p->kc_name[f][d], p->kc_name[f][d - 1]);
        if (p->kc_iv_depth[f] && p->kc_stored[f])
            emit_line(p->o, "%s = %s;", p->kc_name[f][1], p->kc_name[f][0]);
        else if (p->kc_iv_depth[f])
            load_into(p, st->fields.items[f], 0, p->kc_name[f][1]);
    }
}

void emit_kcache_end(EmitPoint *p, const IrComputation *comp)
{
    /* the locals are set but not read when no interval reads them back */
    for (int q = 0; q < comp->kcache.len; q++)
        for (int d = 0; d <= comp->kcache.items[q].depth; d++)
            emit_line(p->o, "(void)%s;", p->kc_name[comp->kcache.items[q].field->id][d]);
}
