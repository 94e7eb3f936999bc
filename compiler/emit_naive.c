/* emit_naive.c: the naive C backend, the executable specification of
 * language.md and the oracle of every other backend's tests.
 *
 * No cleverness: every statement is its own loop nest over exactly its region
 * (its interval along K), every temporary a full array allocated through the
 * runtime with a halo equal to its extent, every `if` a mask array evaluated
 * before its branches run, every boundary condition a remapping of each read
 * (language.md section 7), every column reduction a loop over the column.
 *
 * Shape of a generated function (runtime.md section 3):
 *
 *     int S(fields..., scalars..., const gt_domain *domain)
 *     {
 *         argument checks: gt__bind (every check, the domain), min_nk
 *         pointers to each field at the compute-domain origin, its strides
 *         #define u(i, j, k) ...   one access macro per field, named like it
 *         temporaries: gt__temporary, released on every path
 *         one block per computation, one loop nest per statement
 *         out scalars written on success
 *     }
 *
 * Loop variables i, j, k are positions in the compute domain (0 at its
 * origin), so that `index(i)` is i and an access u[i+1] is u(i + 1, j, k). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

/* The range [lo, hi) of a loop variable: for I and J {0 + region.lo, n +
 * region.hi}, for K the interval's levels. */
typedef struct {
    Level lo, hi;
} Span;

typedef struct {
    const IrStmt *stmt;
    bool is_else;             /* the else mask of stmt (below), not its own */
    const char *name;         /* the mask array of an IR_IF: its access macro */
    const char *data, *stride, *storage;
    Extent hull;              /* the hull of the regions of the `if` and everything in it */
} MaskName;

typedef struct {
    Compiler *c;
    Out *o;
    EmitStencil *es;
    /* One per IR_IF, in the order emission asks for them, and for each `if`
     * nested in another's branch that has an else branch, its else mask:
     * where the else branch runs (its guard and not its condition), so that
     * the guards of an else-if chain stay one mask long (written out, they
     * would repeat every earlier condition: quadratic C). */
    VEC(MaskName) masks;
    int next_mask;            /* masks.items[next_mask] is usually the next asked for */
    const char *kk;           /* loop variable of column reductions */
    Extent mask_hull;         /* hull of every statement's region: where masks live */
    /* while printing a statement: the ranges of i, j, k */
    Span span[NAXES];
    Span column_saved;        /* span[AXIS_K] outside a column reduction's loop */
    bool k_defined;           /* a variable k holds the current level */
    bool *field_used;         /* per field id: the body accesses it */
} Naive;

/* =============================================================== analysis */

static void hull(Extent *e, const Extent *with)
{
    for (int a = 0; a < NAXES; a++) {
        if (with->r[a].lo < e->r[a].lo)
            e->r[a].lo = with->r[a].lo;
        if (with->r[a].hi > e->r[a].hi)
            e->r[a].hi = with->r[a].hi;
    }
}

/* The region of a statement and of everything nested in it. */
/* Names the locals of the column reductions in e, innermost first. */
static void name_cols(Naive *n, const IrExpr *e)
{
    IrExpr *sub[3];
    int count = ir_expr_children(e, sub);
    for (int i = 0; i < count; i++)
        name_cols(n, sub[i]);
    if (e->kind == IR_COLREDUCE)
        emit_column_name(n->es, e);
}

static void add_mask(Naive *n, const IrStmt *s, bool is_else)
{
    Arena *arena = n->c->arena;
    MaskName m = {.stmt = s, .is_else = is_else,
                  .name = emit_unique(arena, &n->es->names, "mask")};
    m.data = emit_unique(arena, &n->es->names, arena_printf(arena, "%s_p", m.name));
    m.stride = emit_unique(arena, &n->es->names, arena_printf(arena, "%s_s", m.name));
    m.storage = emit_unique(arena, &n->es->names, arena_printf(arena, "%s_storage", m.name));
    vec_push(n->c->arena, &n->masks, m);
}

/* nested: s is inside a branch of an `if` (it runs under a guard). Returns
 * the hull of the regions of s and everything in it (each `if` keeps its
 * own in its mask: computed once, bottom up). */
static Extent analyse_stmt(Naive *n, const IrStmt *s, bool nested)
{
    Extent h = s->region;
    hull(&n->mask_hull, &h);
    switch (s->kind) {
    case IR_ASSIGN:
        name_cols(n, s->assign.value);
        break;
    case IR_REDUCE:
        name_cols(n, s->reduce.value);
        break;
    case IR_IF: {
        int m = n->masks.len;
        add_mask(n, s, false);
        name_cols(n, s->iff.cond);
        for (int i = 0; i < s->iff.then.len; i++) {
            Extent sub = analyse_stmt(n, s->iff.then.items[i], true);
            hull(&h, &sub);
        }
        if (nested && s->iff.els.len > 0)
            add_mask(n, s, true);
        for (int i = 0; i < s->iff.els.len; i++) {
            Extent sub = analyse_stmt(n, s->iff.els.items[i], true);
            hull(&h, &sub);
        }
        n->masks.items[m].hull = h;
        break;
    }
    }
    return h;
}

static void naive_analyse(Naive *n)
{
    const IrStencil *st = n->es->st;
    for (int c = 0; c < st->computations.len; c++) {
        const IrComputation *comp = st->computations.items[c];
        for (int i = 0; i < comp->intervals.len; i++) {
            const IrInterval *iv = comp->intervals.items[i];
            for (int s = 0; s < iv->stmts.len; s++)
                analyse_stmt(n, iv->stmts.items[s], false);
        }
    }
    n->kk = emit_unique(n->c->arena, &n->es->names, "kk");
}

/* The mask (or else mask) of s; emission asks in the order of analysis. */
static const MaskName *mask_of(Naive *n, const IrStmt *s, bool is_else)
{
    int i = n->next_mask;
    if (i >= n->masks.len || n->masks.items[i].stmt != s || n->masks.items[i].is_else != is_else)
        for (i = 0; i < n->masks.len; i++)
            if (n->masks.items[i].stmt == s && n->masks.items[i].is_else == is_else)
                break;
    if (i >= n->masks.len)
        unreachable();
    n->next_mask = i + 1;
    return &n->masks.items[i];
}

static const MaskName *mask_named(const Naive *n, int m)
{
    return &n->masks.items[m];
}

/* ========================================================== expressions */

/* True if p = var + offset stays inside [0, size) for every var in span. */
static bool in_domain(const Naive *n, Span sp, int64_t offset, int axis)
{
    int64_t min_n = axis == AXIS_K ? n->es->st->min_nk : 0;
    bool lo_ok, hi_ok;
    /* lowest p: lo + offset */
    if (!sp.lo.from_end)
        lo_ok = sp.lo.offset + offset >= 0;
    else
        lo_ok = min_n + sp.lo.offset + offset >= 0;
    /* highest p + 1: hi + offset <= size */
    if (sp.hi.from_end)
        hi_ok = sp.hi.offset + offset <= 0;
    else
        hi_ok = sp.hi.offset + offset <= min_n;
    return lo_ok && hi_ok;
}

/* field(i, j, k): the access macro with one argument per axis of the field. */
static void print_access(Out *o, const Naive *n, const IrField *f, const EmitVal idx[NAXES])
{
    emit_text(o, "%s(", n->es->field[f->id]);
    bool first = true;
    for (int a = 0; a < NAXES; a++) {
        if (!(f->axes & (1u << a)))
            continue;
        emit_text(o, "%s", first ? "" : ", ");
        emit_val_print(o, idx[a], 0);
        first = false;
    }
    emit_text(o, ")");
}

static void naive_load(Out *o, const EmitExprCtx *cx, const IrExpr *e)
{
    const Naive *n = cx->user;
    const IrField *f = e->load.field;
    bool remap[NAXES];
    for (int a = 0; a < NAXES; a++)
        remap[a] = !in_domain(n, n->span[a], e->load.offset[a], a);
    EmitVal idx[NAXES] = {cx->idx[0], cx->idx[1], cx->idx[2]};
    int64_t off[NAXES] = {e->load.offset[0], e->load.offset[1], e->load.offset[2]};
    if (e->load.klevel) {
        /* a run-time level, checked before the statements ran or as it reads (then
           clamped into the storage): never remapped */
        idx[AXIS_K] = emit_kdyn_level(cx, e, off[AXIS_K], NULL);
        off[AXIS_K] = 0;
        remap[AXIS_K] = false;
    }
    EmitRead r = emit_read(n->c->arena, n->es, f, idx, off, remap);
    emit_read_open(o, &r, f->type);
    print_access(o, n, f, r.pos);
    emit_read_close(o, &r);
}

/* A column reduction's loop runs over the whole column. */
static void naive_column(const EmitExprCtx *cx, bool enter)
{
    Naive *n = cx->user;
    if (enter) {
        n->column_saved = n->span[AXIS_K];
        n->span[AXIS_K] = (Span){{false, 0}, {true, 0}};
    } else {
        n->span[AXIS_K] = n->column_saved;
    }
}

static EmitExprCtx naive_ctx(Naive *n, const char *kvar)
{
    EmitExprCtx cx = emit_point_ctx(n->es, kvar, naive_load, n);
    cx.column = naive_column;
    return cx;
}

/* ============================================================ statements */

static bool stmt_has_cols(const IrStmt *s)
{
    switch (s->kind) {
    case IR_ASSIGN: return ir_expr_has(s->assign.value, IR_COLREDUCE);
    case IR_REDUCE: return ir_expr_has(s->reduce.value, IR_COLREDUCE);
    case IR_IF: return ir_expr_has(s->iff.cond, IR_COLREDUCE);
    }
    unreachable();
}

/* Opens the loops over the axes in `axes` (K only when kloop) with the
 * region's I and J ranges, clamped to the region statement's area, and the K
 * range [klo, khi); the innermost loop opens a brace when `block`. Returns
 * the number of loops opened. */
static int open_loops(Naive *n, unsigned axes, const Extent *region, const Area *area,
                      bool kloop, Level klo, Level khi, bool block)
{
    Out *o = n->o;
    Arena *arena = n->c->arena;
    int count = 0, last = -1;
    for (int a = 0; a < NAXES; a++)
        if ((axes & (1u << a)) && (a != AXIS_K || kloop))
            last = a;
    for (int a = 0; a < NAXES; a++) {
        if (!(axes & (1u << a)) || (a == AXIS_K && !kloop))
            continue;
        const char *v = a == 0 ? "i" : a == 1 ? "j" : "k";
        Span sp;
        if (a == AXIS_K)
            sp = (Span){klo, khi};
        else
            sp = (Span){{false, region->r[a].lo}, {true, region->r[a].hi}};
        /* the span stays the unclamped range: reads remap as there */
        n->span[a] = sp;
        EmitVal lo = emit_val_level(emit_size_name(n->es, a), sp.lo, 0);
        EmitVal hi = emit_val_level(emit_size_name(n->es, a), sp.hi, 0);
        if (a != AXIS_K) {
            lo = emit_area_lo(arena, n->es, area, a, lo);
            hi = emit_area_hi(arena, n->es, area, a, hi);
        }
        emit_open(o, "for (int64_t %s = %s; %s < %s; %s++)%s", v, emit_val_text(arena, lo, 0), v,
                  emit_val_text(arena, hi, 0), v, block && a == last ? " {" : "");
        count++;
    }
    if (count == 0 && block)
        emit_open(o, "{");
    return count;
}

static void close_loops(Naive *n, int count, bool block)
{
    /* the brace closes under the line that opened it: the innermost loop */
    if (block)
        emit_close(n->o);
    for (int l = block; l < count; l++)
        emit_dedent(n->o);
}

/* The point statement `dst(i, j, k) = value;` or the reduction's update,
 * under guard (a mask expression, or NULL). */
static void naive_point_stmt(Naive *n, const IrStmt *s, const char *guard, const char *kvar)
{
    Out *o = n->o;
    bool cols = stmt_has_cols(s);
    if (guard)
        emit_open(o, "if (%s)%s", guard, cols ? " {" : "");
    EmitExprCtx cx = naive_ctx(n, kvar);
    if (s->kind == IR_ASSIGN) {
        emit_hoist_columns(o, &cx, s->assign.value, s->loc, n->kk);
        const IrField *f = s->assign.dst;
        emit_begin_stn_line(o, s->loc);
        print_access(o, n, f, cx.idx);
        emit_text(o, " = ");
        emit_expr(o, &cx, s->assign.value);
        emit_text(o, ";");
        emit_end_line(o);
    } else {
        emit_hoist_columns(o, &cx, s->reduce.value, s->loc, n->kk);
        const IrScalar *sc = s->reduce.dst;
        const char *acc = n->es->acc[sc->id];
        Type t = sc->type;
        emit_begin_stn_line(o, s->loc);
        /* out scalars are never bool (sema), so the value needs no parentheses */
        emit_reduce_open(o, s->reduce.op, t, acc);
        emit_expr(o, &cx, s->reduce.value);
        emit_reduce_close(o, s->reduce.op, t);
        emit_text(o, ";");
        emit_end_line(o);
    }
    if (guard && cols)
        emit_close(o);
    else if (guard)
        emit_dedent(o);
}

static void emit_stmt(Naive *n, const IrStmt *s, unsigned axes, bool kloop, Level klo,
                      Level khi, const char *guard);

/* The index of a mask at the current point: masks are IJK arrays; an axis
 * the nest does not loop over is at 0. */
static const char *mask_index(const Naive *n, unsigned axes, bool kloop)
{
    return arena_printf(n->c->arena, "(%s, %s, %s)", axes & AXES_I ? "i" : "0",
                        axes & AXES_J ? "j" : "0",
                        (axes & AXES_K) && (kloop || n->k_defined) ? "k" : "0");
}

/* An `if`: its mask over the hull of its region, then each branch statement
 * as its own loop nest, at the points where its guard holds. */
static void emit_if(Naive *n, const IrStmt *s, unsigned axes, bool kloop, Level klo, Level khi,
                    const char *guard)
{
    Out *o = n->o;
    Arena *arena = n->c->arena;
    const char *kvar = "k";
    const MaskName *mk = mask_of(n, s, false);
    const char *idx = mask_index(n, axes, kloop);
    const char *m = arena_printf(arena, "%s%s", mk->name, idx);
    Extent region = mk->hull;
    bool cols = ir_expr_has(s->iff.cond, IR_COLREDUCE);
    EmitExprCtx cx = naive_ctx(n, kvar);
    int loops = open_loops(n, axes, &region, &s->area, kloop, klo, khi, cols);
    if (cols && guard) {
        emit_line(o, "%s = false;", m);
        emit_open(o, "if (%s) {", guard);
    }
    emit_hoist_columns(o, &cx, s->iff.cond, s->loc, n->kk);
    emit_begin_stn_line(o, s->loc);
    emit_text(o, "%s = ", m);
    if (guard && !cols) {
        emit_text(o, "%s && ", guard);
        emit_expr_prec(o, &cx, s->iff.cond, 6);
    } else {
        emit_expr(o, &cx, s->iff.cond);
    }
    emit_text(o, ";");
    emit_end_line(o);
    if (cols && guard)
        emit_close(o);
    close_loops(n, loops, cols);
    for (int i = 0; i < s->iff.then.len; i++)
        emit_stmt(n, s->iff.then.items[i], axes, kloop, klo, khi, m);
    if (s->iff.els.len == 0)
        return;
    const char *not_m = arena_printf(arena, "!%s", m);
    if (guard) {
        /* the else mask: the guard and not the condition, one mask long */
        const char *e = arena_printf(arena, "%s%s", mask_of(n, s, true)->name, idx);
        loops = open_loops(n, axes, &region, &s->area, kloop, klo, khi, false);
        emit_line(o, "%s = %s && !%s;", e, guard, m);
        close_loops(n, loops, false);
        not_m = e;
    }
    for (int i = 0; i < s->iff.els.len; i++)
        emit_stmt(n, s->iff.els.items[i], axes, kloop, klo, khi, not_m);
}

/* A while loop: its mask starts as its guard; each round, the condition
 * where the mask still holds (the mask keeps it), and while it holds
 * anywhere, each statement as its own loop nest where it holds. Each point
 * runs the rounds its own loop would: what a statement reads at a point is
 * written only at that point (access.c), so a point's condition, once
 * false, stays false. */
static void emit_loop(Naive *n, const IrStmt *s, unsigned axes, bool kloop, Level klo, Level khi,
                      const char *guard)
{
    Out *o = n->o;
    Arena *arena = n->c->arena;
    const MaskName *mk = mask_of(n, s, false);
    const char *m = arena_printf(arena, "%s%s", mk->name, mask_index(n, axes, kloop));
    const char *more = emit_unique(arena, &n->es->names, "more");
    Extent region = mk->hull;
    EmitExprCtx cx = naive_ctx(n, "k");
    emit_line(o, "/* while (line %d): %s starts where the loop is reached */", s->loc.line,
              mk->name);
    int loops = open_loops(n, axes, &region, &s->area, kloop, klo, khi, false);
    emit_line(o, "%s = %s;", m, guard ? guard : "true");
    close_loops(n, loops, false);
    emit_open(o, "for (;;) {");
    emit_line(o, "bool %s = false;", more);
    loops = open_loops(n, axes, &region, &s->area, kloop, klo, khi, true);
    emit_open(o, "if (%s) {", m);
    emit_hoist_columns(o, &cx, s->iff.cond, s->loc, n->kk);
    /* reads checked as they read: one that fails ends the loop at the point (in the test:
       through go; in the body: its mask) */
    const char *saved = n->es->kgo;
    const char *go = NULL;
    if (emit_kguard_stmt(n->es, s)) {
        go = emit_unique(arena, &n->es->names, "gt_go");
        emit_line(o, "bool %s = true;", go);
        n->es->kgo = arena_printf(arena, "&%s", go);
    }
    emit_begin_stn_line(o, s->loc);
    emit_text(o, "%s = ", m);
    if (go) {
        emit_expr_prec(o, &cx, s->iff.cond, 6);
        emit_text(o, " && %s", go);
    } else {
        emit_expr(o, &cx, s->iff.cond);
    }
    emit_text(o, ";");
    emit_end_line(o);
    emit_line(o, "%s = %s || %s;", more, more, m);
    emit_close(o);
    close_loops(n, loops, true);
    emit_line(o, "if (!%s)", more);
    emit_line(o, "    break;");
    if (go)
        n->es->kgo = arena_printf(arena, "&%s", m);
    for (int i = 0; i < s->iff.then.len; i++)
        emit_stmt(n, s->iff.then.items[i], axes, kloop, klo, khi, m);
    n->es->kgo = saved;
    emit_close(o);
}

/* One statement: its own loop nest over its region (and K range when kloop). */
static void emit_stmt(Naive *n, const IrStmt *s, unsigned axes, bool kloop, Level klo,
                      Level khi, const char *guard)
{
    if (s->kind == IR_IF && s->iff.loop) {
        emit_loop(n, s, axes, kloop, klo, khi, guard);
        return;
    }
    if (s->kind == IR_IF) {
        emit_if(n, s, axes, kloop, klo, khi, guard);
        return;
    }
    bool block = !guard && stmt_has_cols(s);
    int loops = open_loops(n, axes, &s->region, &s->area, kloop, klo, khi, block);
    naive_point_stmt(n, s, guard, "k");
    close_loops(n, loops, block);
}

static const char *level_spelling(Arena *arena, Level lv)
{
    if (!lv.from_end)
        return arena_printf(arena, "%" PRId64, lv.offset);
    if (lv.offset == 0)
        return "end";
    return arena_printf(arena, "end %c %" PRId64, lv.offset < 0 ? '-' : '+',
                        lv.offset < 0 ? -lv.offset : lv.offset);
}

static void emit_computation(Naive *n, const IrComputation *comp)
{
    Out *o = n->o;
    Arena *arena = n->c->arena;
    emit_blank(o);
    emit_line(o, "/* computation(%s) at line %d */", iter_order_names[comp->order], comp->loc.line);
    for (int iv_i = 0; iv_i < comp->intervals.len; iv_i++) {
        const IrInterval *iv = comp->intervals.items[iv_i];
        const char *nk = n->es->nk;
        if (iv_i > 0 || comp->intervals.len > 1 || comp->order != ORDER_PARALLEL ||
            iv->lo.from_end || iv->lo.offset != 0 || !iv->hi.from_end || iv->hi.offset != 0)
            emit_line(o, "/* interval(%s, %s) */", level_spelling(arena, iv->lo),
                      level_spelling(arena, iv->hi));
        if (comp->order == ORDER_PARALLEL) {
            for (int s = 0; s < iv->stmts.len; s++) {
                const IrStmt *st = iv->stmts.items[s];
                unsigned axes = ir_stmt_axes(st);
                n->k_defined = false;
                if (axes & AXES_K) {
                    emit_stmt(n, st, axes, true, iv->lo, iv->hi, NULL);
                } else {
                    /* no K: the statement runs once, if its interval is not empty */
                    n->span[AXIS_K] = (Span){iv->lo, iv->hi};
                    emit_open(o, "if (%s < %s) {", emit_level(arena, nk, iv->lo, 0),
                              emit_level(arena, nk, iv->hi, 0));
                    emit_stmt(n, st, axes, false, iv->lo, iv->hi, NULL);
                    emit_close(o);
                }
            }
            continue;
        }
        if (comp->order == ORDER_FORWARD)
            emit_open(o, "for (int64_t k = %s; k < %s; k++) {", emit_level(arena, nk, iv->lo, 0),
                      emit_level(arena, nk, iv->hi, 0));
        else
            emit_open(o, "for (int64_t k = %s; k >= %s; k--) {",
                      emit_level(arena, nk, iv->hi, -1), emit_level(arena, nk, iv->lo, 0));
        n->k_defined = true;
        /* at each level, every statement over its IJ region */
        n->span[AXIS_K] = (Span){iv->lo, iv->hi};
        for (int s = 0; s < iv->stmts.len; s++) {
            const IrStmt *st = iv->stmts.items[s];
            emit_stmt(n, st, ir_stmt_axes(st) & ~(unsigned)AXES_K, false, iv->lo, iv->hi, NULL);
        }
        emit_close(o);
    }
}

/* ============================================================== functions */

static const char *field_axes_args(unsigned axes)
{
    switch (axes & AXES_IJK) {
    case AXES_I: return "i";
    case AXES_J: return "j";
    case AXES_K: return "k";
    case AXES_IJ: return "i, j";
    case AXES_I | AXES_K: return "i, k";
    case AXES_J | AXES_K: return "j, k";
    case AXES_IJK: return "i, j, k";
    default: return "";
    }
}

/* #define f(i, j, k) f_p[(i) * f_s[0] + (j) * f_s[1] + (k) * f_s[2]] */
static void define_access(Out *o, const char *name, const char *data, const char *stride,
                          unsigned axes)
{
    emit_begin_directive(o);
    emit_text(o, "#define %s(%s) %s[", name, field_axes_args(axes), data);
    bool first = true;
    for (int a = 0; a < NAXES; a++) {
        if (!(axes & (1u << a)))
            continue;
        emit_text(o, "%s(%c) * %s[%d]", first ? "" : " + ", "ijk"[a], stride, a);
        first = false;
    }
    if (first)
        emit_text(o, "0");
    emit_text(o, "]");
    emit_end_line(o);
}

static void naive_body(Naive *n)
{
    const EmitStencil *es = n->es;
    const IrStencil *st = es->st;
    for (int c = 0; c < st->computations.len; c++)
        emit_computation(n, st->computations.items[c]);
}

static void naive_strides(Out *o, const EmitStencil *es, int f, void *ctx)
{
    emit_line(o, "const int64_t *const %s = %s[%d].stride;", es->stride[f], es->bound, f);
}

typedef struct {
    const Naive *n;
    Span k;                   /* the interval's levels */
    bool *used;
} SizeUse;

/* A read along K outside the levels of its interval is remapped with nk. */
static void size_load(void *ctx, IrExpr *load, bool in_column)
{
    SizeUse *u = ctx;
    const IrField *f = load->load.field;
    if (!in_column && f->kind == IR_PARAM_FIELD && (f->axes & AXES_K) &&
        f->bc[AXIS_K].kind != BC_NONE && !in_domain(u->n, u->k, load->load.offset[AXIS_K], AXIS_K))
        u->used[AXIS_K] = true;
}

static IrWalk size_stmt(void *ctx, const IrStmt *s)
{
    SizeUse *u = ctx;
    IrExpr *e = ir_stmt_expr(s);
    if (ir_expr_has(e, IR_COLREDUCE))
        u->used[AXIS_K] = true;   /* the column's loop */
    ir_for_each_load(e, size_load, u);
    return IR_WALK_ON;
}

/* Which of ni, nj, nk the body prints: ni and nj in every loop over I and
 * J, nk in a level relative to the end, a column's loop, a read along K
 * remapped. */
static void sizes_used(const Naive *n, bool used[NAXES])
{
    const IrStencil *st = n->es->st;
    SizeUse u = {n, {{false, 0}, {false, 0}}, used};
    used[AXIS_I] = used[AXIS_J] = used[AXIS_K] = false;
    for (int c = 0; c < st->computations.len; c++)
        for (int i = 0; i < st->computations.items[c]->intervals.len; i++) {
            const IrInterval *iv = st->computations.items[c]->intervals.items[i];
            if (iv->lo.from_end || iv->hi.from_end)
                used[AXIS_K] = true;
            u.k = (Span){iv->lo, iv->hi};
            for (int s = 0; s < iv->stmts.len; s++) {
                unsigned axes = ir_stmt_axes(iv->stmts.items[s]);
                used[AXIS_I] = used[AXIS_I] || (axes & AXES_I);
                used[AXIS_J] = used[AXIS_J] || (axes & AXES_J);
                ir_walk_stmt(iv->stmts.items[s], size_stmt, &u);
            }
        }
}

static IrWalk scalar_read(void *ctx, const IrExpr *e)
{
    bool *read = ctx;
    if (e->kind == IR_SCALAR)
        read[e->scalar->id] = true;
    return IR_WALK_ON;
}

/* Marks in read[] (ctx) the scalar inputs that s reads. */
static IrWalk scalars_read(void *ctx, const IrStmt *s)
{
    ir_walk_expr(ir_stmt_expr(s), scalar_read, ctx);
    return IR_WALK_ON;
}

/* `(void)x;` for each scalar input the body does not read (-Wunused-parameter). */
static void unread_scalars(Out *o, const EmitStencil *es)
{
    const IrStencil *st = es->st;
    bool *read = arena_alloc(es->arena, sizeof(bool) * (size_t)(st->scalars.len + 1));
    for (int c = 0; c < st->computations.len; c++) {
        const IrComputation *comp = st->computations.items[c];
        for (int v = 0; v < comp->intervals.len; v++)
            ir_walk_stmts(&comp->intervals.items[v]->stmts, scalars_read, read);
    }
    for (int s = 0; s < st->scalars.len; s++)
        if (!st->scalars.items[s]->is_output && !read[s])
            emit_line(o, "(void)%s;", es->scalar[s]);
}

static void naive_function(Naive *n, const bool used[NAXES])
{
    Out *o = n->o;
    EmitStencil *es = n->es;
    const IrStencil *st = es->st;
    bool has_temps = n->masks.len > 0 || st->fields.len > es->nfield_params;

    emit_function_open(o, es, used);
    unread_scalars(o, es);
    emit_field_origins(o, es, n->field_used, naive_strides, NULL);
    if (has_temps) {
        emit_blank(o);
        emit_line(o, "/* Temporaries and masks, over the compute domain grown by their extent. */");
        for (int f = es->nfield_params; f < st->fields.len; f++) {
            const IrField *fd = st->fields.items[f];
            emit_line(o, "gt_storage *%s = NULL;", es->storage[f]);
            emit_line(o, "%s *%s = NULL;", emit_c_type(fd->type), es->data[f]);
            emit_line(o, "int64_t %s[3];", es->stride[f]);
        }
        for (int m = 0; m < n->masks.len; m++) {
            const MaskName *mk = mask_named(n, m);
            emit_line(o, "gt_storage *%s = NULL;", mk->storage);
            emit_line(o, "bool *%s = NULL;", mk->data);
            emit_line(o, "int64_t %s[3];", mk->stride);
        }
    }
    emit_scalar_accumulators(o, es);
    emit_kcheck_host(o, es, false);

    emit_blank(o);
    for (int f = 0; f < st->fields.len; f++) {
        const IrField *fd = st->fields.items[f];
        if (n->field_used[f])
            define_access(o, es->field[f], es->data[f], es->stride[f], fd->axes);
    }
    for (int m = 0; m < n->masks.len; m++) {
        const MaskName *mk = mask_named(n, m);
        define_access(o, mk->name, mk->data, mk->stride, AXES_IJK);
    }

    if (has_temps) {
        emit_blank(o);
        for (int f = es->nfield_params; f < st->fields.len; f++) {
            const IrField *fd = st->fields.items[f];
            emit_begin_line(o);
            /* the halo, per axis I, J, K lower and upper, is the temporary's extent */
            const char *cast = emit_cast(es, fd->type);
            int call = (int)strlen(es->data[f]) + 3 + (int)strlen(cast) +
                       (int)strlen("gt__temporary(");
            emit_text(o, "%s = %sgt__temporary(&%s, %s, \"%s\", %s,\n%*s(const int64_t[6]){",
                      es->data[f], cast, es->storage[f], emit_dtype(fd->type),
                      axes_name(fd->axes), es->size, emit_column(o) + call, "");
            emit_temp_halo(o, fd->axes, (const int64_t (*)[2])fd->alloc_halo);
            emit_text(o, "}, %s);", es->stride[f]);
            emit_end_line(o);
            emit_alloc_check(o, es, es->data[f]);
        }
        for (int m = 0; m < n->masks.len; m++) {
            const MaskName *mk = mask_named(n, m);
            emit_begin_line(o);
            const char *cast = emit_cast(es, TY_BOOL);
            int call = (int)strlen(mk->data) + 3 + (int)strlen(cast) +
                       (int)strlen("gt__temporary(");
            emit_text(o, "%s = %sgt__temporary(&%s, GT_BOOL, \"IJK\", %s,\n%*s(const int64_t[6]){",
                      mk->data, cast, mk->storage, es->size, emit_column(o) + call, "");
            for (int a = 0; a < NAXES; a++)
                emit_text(o, "%s%" PRId64 ", %" PRId64, a ? ", " : "",
                          -n->mask_hull.r[a].lo, n->mask_hull.r[a].hi);
            emit_text(o, "}, %s);", mk->stride);
            emit_end_line(o);
            emit_alloc_check(o, es, mk->data);
        }
    }

    naive_body(n);

    emit_kguard_report(o, es);
    emit_scalar_results(o, es);
    if (has_temps || emit_kcheck_any(st)) {
        emit_blank(o);
        emit_done_label(o);
        emit_kguard_done(o, es);
        for (int f = es->nfield_params; f < st->fields.len; f++)
            emit_line(o, "gt_release(%s);", es->storage[f]);
        for (int m = 0; m < n->masks.len; m++)
            emit_line(o, "gt_release(%s);", mask_named(n, m)->storage);
        emit_line(o, "return %s;", es->rc);
    } else {
        emit_line(o, "return 0;");
    }
    for (int f = 0; f < st->fields.len; f++)
        if (n->field_used[f])
            emit_directive(o, "#undef %s", es->field[f]);
    for (int m = 0; m < n->masks.len; m++)
        emit_directive(o, "#undef %s", n->masks.items[m].name);
    emit_close(o);
}

/* The function of one stencil. */
static void naive_stencil(Compiler *c, Out *o, EmitStencil *es)
{
    Naive *n = arena_alloc(c->arena, sizeof *n);
    n->c = c;
    n->es = es;
    naive_analyse(n);
    bool used[NAXES];
    sizes_used(n, used);
    if (emit_kcheck_any(es->st))   /* the check's loops */
        used[AXIS_I] = used[AXIS_J] = used[AXIS_K] = true;
    n->field_used = emit_fields_used(es);
    n->o = o;
    naive_function(n, used);
}

const Backend backend_naive = {
    .name = "naive",
    .suffix = ".c",
    .stencil = naive_stencil,
};
