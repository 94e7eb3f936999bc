/* emit_expr.c: C types, constants and expressions, with C precedence and
 * the fewest parentheses that keep gcc -Wparentheses quiet; reductions'
 * updates. Field loads and column reductions are printed through the
 * backend's hooks (EmitExprCtx). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

const char *emit_c_type(Type t)
{
    switch (t) {
    case TY_BOOL: return "bool";
    case TY_INT: return "int32_t";
    case TY_FLOAT: return "float";
    case TY_DOUBLE: return "double";
    }
    unreachable();
}

const char *emit_dtype(Type t)
{
    switch (t) {
    case TY_BOOL: return "GT_BOOL";
    case TY_INT: return "GT_INT32";
    case TY_FLOAT: return "GT_FLOAT32";
    case TY_DOUBLE: return "GT_FLOAT64";
    }
    unreachable();
}

void emit_const(Out *o, Type t, int64_t i, double d)
{
    switch (t) {
    case TY_BOOL:
        emit_text(o, "%s", i ? "true" : "false");
        return;
    case TY_INT:
        if (i == INT32_MIN)
            emit_text(o, "(-2147483647 - 1)");
        else
            emit_text(o, "%" PRId64, i);
        return;
    case TY_FLOAT:
    case TY_DOUBLE: {
        bool single = t == TY_FLOAT;
        if (isnan(d)) {
            /* with its sign, which copysign and signbit read: -(0.0 / 0.0) folded is
               -NAN (fold.c, made_nan) */
            emit_text(o, "%sNAN", signbit(d) ? "-" : "");
            return;
        }
        if (isinf(d)) {
            emit_text(o, "%sINFINITY", d < 0 ? "-" : "");
            return;
        }
        char buf[REAL_LITERAL_SIZE];
        real_literal(buf, d, single);
        emit_text(o, "%s", buf);
        return;
    }
    }
    unreachable();
}

void emit_bc_value(Out *o, Type t, double v)
{
    /* a floating value may lie outside int64_t (1e30, an infinity): no cast then */
    emit_const(o, t, t == TY_INT || t == TY_BOOL ? (int64_t)v : 0, v);
}

/* ============================================================ values */

EmitVal emit_val_const(int64_t k)
{
    return (EmitVal){.kind = EV_CONST, .k = k};
}

EmitVal emit_val_name(const char *name)
{
    return (EmitVal){.kind = EV_NAME, .term = name, .prec = PREC_PRIMARY};
}

EmitVal emit_val_term(const char *text, int prec)
{
    return (EmitVal){.kind = EV_TERM, .term = text, .prec = prec};
}

EmitVal emit_val_add(EmitVal v, int64_t k)
{
    v.k += k;
    return v;
}

EmitVal emit_val_sub(Arena *arena, EmitVal a, EmitVal b)
{
    if (b.kind == EV_CONST)
        return emit_val_add(a, -b.k);
    return emit_val_term(arena_printf(arena, "%s - %s", emit_val_text(arena, a, PREC_ADD),
                                      emit_val_text(arena, b, PREC_ADD + 1)),
                         PREC_ADD);
}

EmitVal emit_val_sum(Arena *arena, EmitVal a, EmitVal b)
{
    if (b.kind == EV_CONST)
        return emit_val_add(a, b.k);
    /* positions are integers: a + (b - c) is a + b - c */
    return emit_val_term(arena_printf(arena, "%s + %s", emit_val_text(arena, a, PREC_ADD),
                                      emit_val_text(arena, b, PREC_ADD)),
                         PREC_ADD);
}

EmitVal emit_val_paren(Arena *arena, EmitVal v)
{
    return emit_val_term(arena_printf(arena, "(%s)", emit_val_text(arena, v, 0)), PREC_PRIMARY);
}

EmitVal emit_val_level(const char *nk, Level lv, int64_t delta)
{
    EmitVal v = lv.from_end ? emit_val_name(nk) : emit_val_const(0);
    return emit_val_add(v, lv.offset + delta);
}

int emit_val_prec(EmitVal v)
{
    switch (v.kind) {
    case EV_CONST: return v.k < 0 ? PREC_UNARY : PREC_PRIMARY;
    case EV_NAME:
    case EV_TERM: return v.k ? PREC_ADD : v.prec;
    case EV_NONE: break;
    }
    unreachable();
}

bool emit_val_is_const(EmitVal v, int64_t k)
{
    return v.kind == EV_CONST && v.k == k;
}

bool emit_val_equal(EmitVal a, EmitVal b)
{
    if (a.kind != b.kind || a.k != b.k)
        return false;
    switch (a.kind) {
    case EV_NONE: case EV_CONST: return true;
    case EV_NAME: return strcmp(a.term, b.term) == 0;
    case EV_TERM: return a.term == b.term;   /* the same expression, not one spelt alike */
    }
    unreachable();
}

void emit_val_print(Out *o, EmitVal v, int min_prec)
{
    bool paren = emit_val_prec(v) < min_prec;
    if (paren)
        emit_text(o, "(");
    if (v.kind == EV_CONST) {
        emit_text(o, "%" PRId64, v.k);
    } else {
        bool inner = v.k && v.prec < PREC_ADD;
        emit_text(o, inner ? "(%s)" : "%s", v.term);
        if (v.k)
            emit_text(o, " %c %" PRId64, v.k < 0 ? '-' : '+', v.k < 0 ? -v.k : v.k);
    }
    if (paren)
        emit_text(o, ")");
}

const char *emit_val_text(Arena *arena, EmitVal v, int min_prec)
{
    Out t = {.name = ""};
    emit_val_print(&t, v, min_prec);
    return emit_out_string(arena, &t);
}

const char *emit_level(Arena *arena, const char *nk, Level lv, int64_t delta)
{
    return emit_val_text(arena, emit_val_level(nk, lv, delta), 0);
}

const char *emit_offset(Arena *arena, const char *var, int64_t offset)
{
    return emit_val_text(arena, emit_val_add(emit_val_name(var), offset), 0);
}

static bool is_negative_const(const IrExpr *e)
{
    if (e->kind != IR_CONST)
        return false;
    if (e->type == TY_INT)
        return e->cnst.i < 0;
    if (e->type == TY_FLOAT || e->type == TY_DOUBLE)
        return signbit(e->cnst.d);   /* -1.5, -INFINITY, -NAN */
    return false;
}

/* The helper of gt_generated.h that computes an int operation of e with the
 * language's defined semantics (wrapping, a / 0 = 0: language.md 5.3), or
 * NULL where C's operator is already defined for every operand: a division
 * or remainder by a constant other than 0 and -1. */
static const char *int_helper(const IrExpr *e)
{
    if (e->type != TY_INT)
        return NULL;
    if (e->kind == IR_UNARY)
        return e->op.op == OP_NEG ? "gt_ineg" : NULL;
    if (e->kind != IR_BINARY)
        return NULL;
    const IrExpr *b = e->op.b;
    bool safe_divisor = b->kind == IR_CONST && b->cnst.i != 0 && b->cnst.i != -1;
    switch (e->op.op) {
    case OP_ADD: return "gt_iadd";
    case OP_SUB: return "gt_isub";
    case OP_MUL: return "gt_imul";
    case OP_DIV: return safe_divisor ? NULL : "gt_idiv";
    case OP_MOD: return safe_divisor ? NULL : "gt_imod";
    default: return NULL;
    }
}

static int prec_of(const IrExpr *e)
{
    if (int_helper(e))
        return PREC_PRIMARY;
    switch (e->kind) {
    case IR_CONST:
        return is_negative_const(e) ? PREC_UNARY : PREC_PRIMARY;
    case IR_LOAD: case IR_SCALAR: case IR_CALL: case IR_COLREDUCE:
        return PREC_PRIMARY;
    case IR_INDEX:
        return e->type == TY_INT ? PREC_UNARY : PREC_PRIMARY;   /* (int32_t)i */
    case IR_UNARY: case IR_CAST:
        return PREC_UNARY;
    case IR_BINARY:
        return op_precedence[e->op.op];
    case IR_COND:
        return PREC_COND;
    }
    unreachable();
}

static void expr_at(Out *o, const EmitExprCtx *cx, const IrExpr *e, int min_prec);

/* The C function for a builtin applied to arguments of type t. */
static const char *builtin_c_name(Builtin fn, Type t)
{
    bool single = t == TY_FLOAT;
    switch (fn) {
    case B_ABS: return t == TY_INT ? "gt_abs_int" : single ? "fabsf" : "fabs";
    case B_MIN: return t == TY_INT ? "gt_min_int" : single ? "gt_min_float" : "gt_min_double";
    case B_MAX: return t == TY_INT ? "gt_max_int" : single ? "gt_max_float" : "gt_max_double";
    case B_ISNAN: return "isnan";
    case B_ISINF: return "isinf";
    case B_ISFINITE: return "isfinite";
    default: break;
    }
    static const char *const float_names[] = {
#define X(id, name, nargs) name "f",
        BUILTINS(X)
#undef X
    };
    return single ? float_names[fn] : builtin_names[fn];
}

/* In device code (the cuda backend), a floating division by a constant b
 * of moderate size is gt_div_rn(a, b, RN(1 / b)) (gt_cuda.h): bitwise the
 * division, without the reciprocal's refinement at every point. */
static bool device_const_division(Out *o, const EmitExprCtx *cx, const IrExpr *e)
{
    const IrExpr *b = e->op.b;
    if (!cx->es || !cx->es->device || e->op.op != OP_DIV || !type_is_floating(e->type) ||
        b->kind != IR_CONST || b->type != e->type)
        return false;
    bool single = e->type == TY_FLOAT;
    double d = b->cnst.d, m = fabs(d), lim = single ? 0x1p20 : 0x1p64;
    if (!(m >= 1 / lim && m <= lim))
        return false;
    emit_text(o, "%s(", single ? "gt_div_rnf" : "gt_div_rn");
    expr_at(o, cx, e->op.a, 0);
    emit_text(o, ", ");
    emit_const(o, e->type, 0, d);
    emit_text(o, ", ");
    if (single) {
        const float fb = (float)d, y = 1.0f / fb;   /* float division: RN(1 / b) */
        emit_const(o, TY_FLOAT, 0, y);
    } else {
        const double y = 1.0 / d;
        emit_const(o, TY_DOUBLE, 0, y);
    }
    emit_text(o, ")");
    return true;
}

void emit_expr(Out *o, const EmitExprCtx *cx, const IrExpr *e)
{
    expr_at(o, cx, e, 0);
}

static void expr_at(Out *o, const EmitExprCtx *cx, const IrExpr *e, int min_prec)
{
    const char *helper = int_helper(e);
    if (helper) {   /* an int operation: gt_iadd(a, b), gt_ineg(a), ... (a primary) */
        IrExpr *sub[3];
        int n = ir_expr_children(e, sub);
        emit_text(o, "%s(", helper);
        for (int i = 0; i < n; i++) {
            if (i)
                emit_text(o, ", ");
            expr_at(o, cx, sub[i], 0);
        }
        emit_text(o, ")");
        return;
    }
    int prec = prec_of(e);
    bool paren = prec < min_prec;
    if (paren)
        emit_text(o, "(");
    switch (e->kind) {
    case IR_CONST:
        emit_const(o, e->type, e->cnst.i, e->cnst.d);
        break;
    case IR_LOAD:
        cx->load(o, cx, e);
        break;
    case IR_SCALAR:
        emit_text(o, "%s", cx->es->scalar[e->scalar->id]);
        break;
    case IR_UNARY: {
        const IrExpr *a = e->op.a;
        emit_text(o, "%s", op_spellings[e->op.op]);
        /* "- -x" must not become "--x" */
        bool sign = e->op.op == OP_NEG || e->op.op == OP_PLUS;
        bool inner_sign = (a->kind == IR_UNARY && a->op.op != OP_NOT) || is_negative_const(a);
        expr_at(o, cx, a, sign && inner_sign ? PREC_PRIMARY : PREC_UNARY);
        break;
    }
    case IR_BINARY: {
        /* An int or bool compared with itself (`n == n`) is a self-comparison
         * that gcc and clang -Wtautological-compare reject. fold.c folds those
         * of the program; one that a backend makes (substituting temporaries)
         * is written `n - n == 0`, the same test (equal ints never overflow
         * when subtracted, bools are promoted), keeping the reads the rest of
         * the code expects. A floating one stays: it is no tautology (NaN). */
        if ((prec == PREC_REL || prec == PREC_EQ) && !type_is_floating(e->op.a->type) &&
            ir_expr_equal(e->op.a, e->op.b)) {
            expr_at(o, cx, e->op.a, PREC_ADD);
            emit_text(o, " - ");
            expr_at(o, cx, e->op.b, PREC_ADD + 1);
            emit_text(o, " %s 0", op_spellings[e->op.op]);
            break;
        }
        if (device_const_division(o, cx, e))
            break;
        /* Children of comparisons, and && under ||, get parentheses even where
         * C does not need them: gcc -Wparentheses asks for them. */
        int left = prec, right = prec + 1;
        if (prec == PREC_REL || prec == PREC_EQ)
            left = right = PREC_REL + 1;
        if (e->op.op == OP_OR)
            left = right = PREC_AND + 1;
        /* and so does a `!` operand of a comparison (-Wlogical-not-parentheses:
         * `!a == b` reads as if `!` applied to the comparison) */
        bool cmp = prec == PREC_REL || prec == PREC_EQ;
        bool not_a = cmp && e->op.a->kind == IR_UNARY && e->op.a->op.op == OP_NOT;
        bool not_b = cmp && e->op.b->kind == IR_UNARY && e->op.b->op.op == OP_NOT;
        expr_at(o, cx, e->op.a, not_a ? PREC_PRIMARY : left);
        emit_text(o, " %s ", op_spellings[e->op.op]);
        expr_at(o, cx, e->op.b, not_b ? PREC_PRIMARY : right);
        break;
    }
    case IR_COND:
        expr_at(o, cx, e->cond.cond, PREC_OR);
        emit_text(o, " ? ");
        expr_at(o, cx, e->cond.then, PREC_OR);
        emit_text(o, " : ");
        expr_at(o, cx, e->cond.els, PREC_COND);
        break;
    case IR_CALL: {
        /* isnan, isinf and isfinite are C macros that give a nonzero int, not 1 (glibc's
           isinf(-inf) is -1): the language's bool is 0 or 1 where it is compared with
           another (`isinf(x) == true`) or converted (`int(isinf(x))`), so they are written
           `(isinf(x) != 0)`, a primary */
        Builtin fn = e->call.fn;
        bool classify = fn == B_ISNAN || fn == B_ISINF || fn == B_ISFINITE;
        Type t = e->call.args[0]->type;
        o->classifies |= classify;
        emit_text(o, "%s%s(", classify ? "(" : "", builtin_c_name(fn, t));
        for (int a = 0; a < e->call.nargs; a++) {
            if (a)
                emit_text(o, ", ");
            expr_at(o, cx, e->call.args[a], 0);
        }
        emit_text(o, classify ? ") != 0)" : ")");
        break;
    }
    case IR_INDEX: {
        /* global positions along I and J (the place's origin) */
        EmitVal p = cx->idx[e->index_axis];
        if (e->index_axis != AXIS_K)
            p = emit_val_paren(cx->es->arena,
                               emit_val_sum(cx->es->arena, p,
                                            emit_val_name(cx->es->origin[e->index_axis])));
        if (e->type == TY_INT)
            emit_text(o, "(int32_t)");
        emit_val_print(o, p, e->type == TY_INT ? PREC_UNARY : 0);
        break;
    }
    case IR_CAST:
        if (e->type == TY_INT && type_is_floating(e->cast.a->type)) {
            /* int(e): no undefined behaviour on NaN or out of range (gt_generated.h) */
            emit_text(o, "%s(", e->cast.a->type == TY_FLOAT ? "gt_float_to_int"
                                                            : "gt_double_to_int");
            expr_at(o, cx, e->cast.a, 0);
            emit_text(o, ")");
            break;
        }
        emit_text(o, "(%s)", emit_c_type(e->type));
        expr_at(o, cx, e->cast.a,
                is_negative_const(e->cast.a) || e->cast.a->kind == IR_UNARY ? PREC_PRIMARY
                                                                            : PREC_UNARY);
        break;
    case IR_COLREDUCE:
        emit_text(o, "%s", emit_column_name(cx->es, e));
        break;
    }
    if (paren)
        emit_text(o, ")");
}

const char *emit_size_name(const EmitStencil *es, int axis)
{
    const char *names[NAXES] = {es->ni, es->nj, es->nk};
    return names[axis];
}

EmitVal emit_edge_lo(const EmitStencil *es, int axis, int64_t reach)
{
    return axis == AXIS_K ? emit_val_const(reach)
                          : emit_val_add(emit_val_name(es->lo[axis]), reach);
}

EmitVal emit_edge_hi(const EmitStencil *es, int axis, int64_t reach)
{
    return emit_val_add(emit_val_name(es->hi[axis]), -reach);
}

const char *emit_edge_test(Arena *arena, const EmitStencil *es, int axis, const PlanReach *reach,
                           const char *lo, const char *hi, bool past)
{
    EmitVal elo = emit_edge_lo(es, axis, -reach->lo[axis]);
    EmitVal ehi = emit_edge_hi(es, axis, reach->hi[axis]);
    return arena_printf(arena, "%s < %s || %s %s %s", lo, emit_val_text(arena, elo, PREC_REL + 1),
                        hi, past ? ">" : ">=", emit_val_text(arena, ehi, PREC_REL + 1));
}

/* ============================================================== regions */

/* The terms of one bound of a region (AreaBound) as C positions of the
 * domain: the global position p is the place's lo + p, end + p is hi + p. */
static int area_terms(Arena *arena, const EmitStencil *es, const AreaBound *b, int ax,
                      const char *out[2])
{
    int n = 0;
    if (b->has_start)
        out[n++] = emit_offset(arena, es->lo[ax], b->start);
    if (b->has_end)
        out[n++] = emit_offset(arena, es->hi[ax], b->end);
    return n;
}

static EmitVal area_bound(Arena *arena, const EmitStencil *es, const Area *a, int ax,
                          EmitVal base, bool upper)
{
    if (!a->set[ax])
        return base;
    const char *t[2];
    int n = area_terms(arena, es, upper ? &a->hi[ax] : &a->lo[ax], ax, t);
    EmitVal r = base;
    for (int i = 0; i < n; i++) {
        const char *b = emit_val_text(arena, r, 0);
        r = emit_val_term(arena_printf(arena, "(%s %c %s ? %s : %s)", b, upper ? '<' : '>', t[i],
                                       b, t[i]),
                          PREC_PRIMARY);
    }
    return r;
}

EmitVal emit_area_lo(Arena *arena, const EmitStencil *es, const Area *a, int ax, EmitVal lo)
{
    return area_bound(arena, es, a, ax, lo, false);
}

EmitVal emit_area_hi(Arena *arena, const EmitStencil *es, const Area *a, int ax, EmitVal hi)
{
    return area_bound(arena, es, a, ax, hi, true);
}

const char *emit_area_test(Arena *arena, const EmitStencil *es, const Area *a,
                           const char *const idx[2])
{
    const char *test = NULL;
    for (int ax = 0; ax < 2; ax++) {
        if (!a->set[ax])
            continue;
        const char *t[2];
        for (int upper = 0; upper < 2; upper++) {
            int n = area_terms(arena, es, upper ? &a->hi[ax] : &a->lo[ax], ax, t);
            for (int i = 0; i < n; i++) {
                const char *c = arena_printf(arena, "%s %s %s", idx[ax], upper ? "<" : ">=", t[i]);
                test = test ? arena_printf(arena, "%s && %s", test, c) : c;
            }
        }
    }
    return test;
}

EmitExprCtx emit_point_ctx(EmitStencil *es, const char *kvar,
                           void (*load)(Out *o, const EmitExprCtx *cx, const IrExpr *e),
                           void *user)
{
    EmitExprCtx cx = {.es = es,
                      .idx = {emit_val_name("i"), emit_val_name("j"), emit_val_name(kvar)},
                      .load = load,
                      .user = user};
    return cx;
}

/* ================================================================= reads */

/* How many steps of n bring a read of f along axis a into the domain: its
 * reach beyond either side (at least 1). */
static int64_t reach_steps(const IrField *f, int a)
{
    int64_t s = f->reach[a][0] > f->reach[a][1] ? f->reach[a][0] : f->reach[a][1];
    return s > 1 ? s : 1;
}

EmitRead emit_read(Arena *arena, const EmitStencil *es, const IrField *f,
                   const EmitVal idx[NAXES], const int64_t off[NAXES],
                   const bool remap[NAXES])
{
    EmitRead r = {{{0}}, NULL, 0, {NULL}, {0}, false};
    for (int a = 0; a < NAXES; a++) {
        if (!(f->axes & (1u << a)))
            continue;
        EmitVal pv = emit_val_add(idx[a], off[a]);
        r.pos[a] = pv;
        const char *p = emit_val_text(arena, pv, 0);
        BcKind bc = f->kind == IR_PARAM_FIELD ? f->bc[a].kind : BC_NONE;
        if (bc == BC_NONE || !remap[a])
            continue;
        const char *n = emit_size_name(es, a);
        /* along I and J against the global domain's edges (gt_place: the domain's
         * own in a single process); along K, which is never split, the domain's */
        const char *lohi = a == AXIS_K ? NULL
                                       : arena_printf(arena, "%s, %s", es->lo[a], es->hi[a]);
        const char *call = NULL;
        switch (bc) {
        case BC_PERIODIC:
            /* along I and J a read is within the field's reach of the domain, and
             * the domain has at least one point: that many steps of n at most; a
             * time-tiled stencil's parts wrap within the global domain [lo, hi)
             * (runtime/src/steps.c), every other call within [0, n) */
            call = !lohi ? arena_printf(arena, "gt_periodic(%s, %s)", p, n)
                   : es->tiles_time
                       ? arena_printf(arena, "gt_periodic_in(%s, %s, %s, %" PRId64 ")", p, lohi,
                                      es->wrap[a], reach_steps(f, a))
                       : arena_printf(arena, "gt_periodic_at(%s, %s, %s, %" PRId64 ")", p, n,
                                      es->wrap[a], reach_steps(f, a));
            break;
        case BC_NEUMANN:
            call = lohi ? arena_printf(arena, "gt_clamp_at(%s, %s)", p, lohi)
                        : arena_printf(arena, "gt_clamp(%s, %s)", p, n);
            break;
        case BC_MIRROR:
            call = lohi ? arena_printf(arena, "gt_mirror_at(%s, %s)", p, lohi)
                        : arena_printf(arena, "gt_mirror(%s, %s)", p, n);
            break;
        case BC_DIRICHLET: {
            /* outside along this axis: the constant, whatever the other axes
             * say; inside: the element itself along this axis */
            const char *test = lohi ? arena_printf(arena, "gt_outside_at(%s, %s)", p, lohi)
                                    : arena_printf(arena, "gt_outside(%s, %s)", p, n);
            if (r.dirichlet && memcmp(&r.value, &f->bc[a].value, sizeof r.value) != 0)
                r.split = true;
            r.dirichlet = r.dirichlet ? arena_printf(arena, "%s || %s", r.dirichlet, test) : test;
            r.value = f->bc[a].value;
            r.test[a] = test;
            r.values[a] = f->bc[a].value;
            break;
        }
        case BC_NONE: break;
        }
        if (call)
            r.pos[a] = emit_val_term(call, PREC_PRIMARY);
    }
    return r;
}

/* pos_i * stride_i + ...: the element's index from base. */
static void emit_index(Out *o, const EmitVal pos[NAXES], const char *const stride[NAXES])
{
    bool first = true;
    for (int a = 0; a < NAXES; a++) {
        if (pos[a].kind == EV_NONE)
            continue;
        if (pos[a].kind == EV_CONST && stride[a]) {
            /* a constant position: `+ s`, `- 2 * s`; none where 0 */
            int64_t c = pos[a].k;
            if (c == 0)
                continue;
            emit_text(o, "%s", first ? (c < 0 ? "-" : "") : c < 0 ? " - " : " + ");
            first = false;
            if (c != 1 && c != -1)
                emit_text(o, "%" PRId64 " * ", c < 0 ? -c : c);
            emit_text(o, "%s", stride[a]);
            continue;
        }
        if (!first)
            emit_text(o, " + ");
        first = false;
        /* a term of the sum (a difference needs no parentheses there), or a product */
        emit_val_print(o, pos[a], stride[a] ? PREC_MUL : PREC_ADD);
        if (stride[a])
            emit_text(o, " * %s", stride[a]);
    }
    if (first)
        emit_text(o, "0");
}

void emit_element(Out *o, const char *base, const EmitVal pos[NAXES],
                  const char *const stride[NAXES])
{
    emit_text(o, "%s[", base);
    emit_index(o, pos, stride);
    emit_text(o, "]");
}

void emit_element_macro(Out *o, const char *macro, const char *base, const EmitVal pos[NAXES],
                        const char *const stride[NAXES])
{
    emit_text(o, "%s(%s, ", macro, base);
    emit_index(o, pos, stride);
    emit_text(o, ")");
}

void emit_read_open(Out *o, const EmitRead *r, Type t)
{
    if (!r->dirichlet)
        return;
    if (r->split) {
        emit_text(o, "(");
        for (int a = 0; a < NAXES; a++)
            if (r->test[a]) {
                emit_text(o, "%s ? ", r->test[a]);
                emit_bc_value(o, t, r->values[a]);
                emit_text(o, " : ");
            }
        return;
    }
    emit_text(o, "(%s ? ", r->dirichlet);
    emit_bc_value(o, t, r->value);
    emit_text(o, " : ");
}

void emit_read_close(Out *o, const EmitRead *r)
{
    if (r->dirichlet)
        emit_text(o, ")");
}

typedef struct {
    bool *written;            /* per field id: written (so far, with after) */
    unsigned char *axes;      /* per field id */
    unsigned all;
    const Extent *region;     /* where the statement being walked runs */
} WrittenReads;

/* A load of a written field reaches beyond the point along I or J where its offset, or
   the region its statement runs over (a temporary computed beyond the domain), is not
   zero there; along K where its offset is. */
static IrWalk written_reads_load(void *ctx, const IrExpr *e)
{
    WrittenReads *x = ctx;
    const IrField *f = e->kind == IR_LOAD ? e->load.field : NULL;
    if (!f || f->kind != IR_PARAM_FIELD || !x->written[f->id])
        return IR_WALK_ON;
    for (int a = 0; a < NAXES; a++) {
        int64_t off = e->load.offset[a];
        bool beyond = a == AXIS_K ? off != 0
                                  : x->region->r[a].lo + off != 0 || x->region->r[a].hi + off != 0;
        if (beyond) {
            x->all |= 1u << a;
            if (x->axes)
                x->axes[f->id] |= (unsigned char)(1u << a);
        }
    }
    return IR_WALK_ON;
}

IrWalk emit_mark_assigned(void *ctx, const IrStmt *s)
{
    bool *written = ctx;
    if (s->kind == IR_ASSIGN)
        written[s->assign.dst->id] = true;
    return IR_WALK_ON;
}

/* The statements of v in the order they run, each statement's reads before its write (a
   while loop's writes before its reads: its condition and body run again after them). */
static void written_reads_stmts(WrittenReads *x, const IrStmtVec *v)
{
    for (int i = 0; i < v->len; i++) {
        const IrStmt *s = v->items[i];
        if (s->kind == IR_IF && s->iff.loop)
            ir_walk_stmt(s, emit_mark_assigned, x->written);
        x->region = &s->region;
        ir_walk_expr(ir_stmt_expr(s), written_reads_load, x);
        if (s->kind == IR_IF) {
            written_reads_stmts(x, &s->iff.then);
            written_reads_stmts(x, &s->iff.els);
        } else if (s->kind == IR_ASSIGN) {
            x->written[s->assign.dst->id] = true;
        }
    }
}

unsigned emit_written_reads(const IrStencil *st, bool after, unsigned char *axes)
{
    int nf = st->fields.len;
    bool *written = calloc((size_t)nf + 1, sizeof *written);
    if (!written)
        gtcc_die("out of memory");
    for (int f = 0; f < nf && !after; f++)
        written[f] = st->fields.items[f]->is_written;
    WrittenReads x = {written, axes, 0, NULL};
    for (int c = 0; c < st->computations.len; c++) {
        const IrComputation *cp = st->computations.items[c];
        /* a sweep reads at each level what it wrote at the levels before */
        for (int i = 0; i < cp->intervals.len && cp->order != ORDER_PARALLEL; i++)
            ir_walk_stmts(&cp->intervals.items[i]->stmts, emit_mark_assigned, written);
        for (int i = 0; i < cp->intervals.len; i++)
            written_reads_stmts(&x, &cp->intervals.items[i]->stmts);
    }
    free(written);
    return x.all;
}

const char *emit_index_type(const EmitStencil *es)
{
    return es->index_type ? es->index_type : "int64_t";
}

/* ====================================================== column reductions */

const char *emit_column_name(EmitStencil *es, const IrExpr *e)
{
    for (int i = 0; i < es->columns.len; i++)
        if (es->columns.items[i].expr == e)
            return es->columns.items[i].name;
    const char *base = arena_printf(es->arena, "column_%s", red_op_names[e->colreduce.op]);
    struct EmitColumn col = {e, emit_unique(es->arena, &es->names, base)};
    vec_push(es->arena, &es->columns, col);
    return col.name;
}

void emit_hoist_columns(Out *o, const EmitExprCtx *cx, const IrExpr *e, Loc loc, const char *kk)
{
    if (e->kind != IR_COLREDUCE) {
        IrExpr *sub[3];
        int n = ir_expr_children(e, sub);
        for (int i = 0; i < n; i++)
            emit_hoist_columns(o, cx, sub[i], loc, kk);
        return;
    }
    emit_hoist_columns(o, cx, e->colreduce.a, loc, kk);
    const char *name = emit_column_name(cx->es, e);
    Type t = e->type;
    emit_red_local(o, e->colreduce.op, t, name);
    emit_open(o, "for (%s %s = 0; %s < %s; %s++)", emit_index_type(cx->es), kk, kk, cx->es->nk,
              kk);
    EmitExprCtx col = *cx;
    col.idx[AXIS_K] = emit_val_name(kk);
    if (cx->column)
        cx->column(cx, true);
    emit_begin_stn_line(o, loc);
    emit_reduce_open(o, e->colreduce.op, t, name);
    emit_expr_prec(o, &col, e->colreduce.a, t == TY_BOOL && e->colreduce.op != RED_SUM ? 6 : 0);
    emit_reduce_close(o, e->colreduce.op, t);
    emit_text(o, ";");
    emit_end_line(o);
    if (cx->column)
        cx->column(cx, false);
    emit_dedent(o);
}

void emit_expr_prec(Out *o, const EmitExprCtx *cx, const IrExpr *e, int min_prec)
{
    expr_at(o, cx, e, min_prec);
}

void emit_red_identity(Out *o, RedOp op, Type t)
{
    if (op == RED_SUM)
        emit_const(o, t, 0, 0.0);
    else if (t == TY_INT)
        emit_text(o, op == RED_MIN ? "INT32_MAX" : "INT32_MIN");
    else if (t == TY_BOOL)
        emit_text(o, op == RED_MIN ? "true" : "false");
    else
        emit_const(o, t, 0, NAN);
}

void emit_reduce_open(Out *o, RedOp op, Type t, const char *acc)
{
    if (op == RED_SUM) {   /* ints wrap (gt_iadd), as the operator does */
        emit_text(o, t == TY_INT ? "%s = gt_iadd(%s, " : "%s += ", acc, acc);
        return;
    }
    bool is_min = op == RED_MIN;
    if (t == TY_FLOAT || t == TY_DOUBLE)
        emit_text(o, "%s = gt_%s_%s(%s, ", acc, is_min ? "min" : "max",
                  t == TY_FLOAT ? "float" : "double", acc);
    else if (t == TY_BOOL)
        emit_text(o, "%s = %s %s ", acc, acc, is_min ? "&&" : "||");
    else
        emit_text(o, "%s = %s(%s, ", acc, is_min ? "gt_min_int" : "gt_max_int", acc);
}

void emit_reduce_close(Out *o, RedOp op, Type t)
{
    if ((op != RED_SUM && t != TY_BOOL) || (op == RED_SUM && t == TY_INT))
        emit_text(o, ")");
}

void emit_red_local(Out *o, RedOp op, Type t, const char *name)
{
    emit_begin_line(o);
    emit_text(o, "%s %s = ", emit_c_type(t), name);
    emit_red_identity(o, op, t);
    emit_text(o, ";");
    emit_end_line(o);
}
