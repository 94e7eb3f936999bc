/* ir.c: constructors and small helpers of the stencil IR.
 *
 * Every constructor allocates in the compilation's arena, takes the node's
 * type from its caller (sema.c decides types and inserts the casts) and
 * computes the node's shape from its operands: the union of their axes
 * (language.md section 5), the field's axes for a load, one axis for
 * index(), and the operand's shape without K for a column reduction. The IR
 * is a tree, never a DAG: ir_copy is used wherever a subexpression appears
 * twice, so a pass may rewrite a node in place.
 *
 * Also here: symbolic K levels (compared as if NK were large) and extents.
 */
#include <inttypes.h>
#include <stdio.h>

#include <string.h>

#include "gtcc.h"

/* ------------------------------------------------------------ expressions */

static IrExpr *new_expr(Arena *a, IrExprKind kind, Type type, unsigned shape, Loc loc)
{
    IrExpr *e = arena_alloc(a, sizeof *e);
    e->kind = kind;
    e->type = type;
    e->shape = shape;
    e->loc = loc;
    return e;
}

IrExpr *ir_const_int(Arena *a, Loc loc, Type type, int64_t value)
{
    IrExpr *e = new_expr(a, IR_CONST, type, AXES_NONE, loc);
    e->cnst.i = value;
    return e;
}

IrExpr *ir_const_real(Arena *a, Loc loc, Type type, double value)
{
    IrExpr *e = new_expr(a, IR_CONST, type, AXES_NONE, loc);
    e->cnst.d = type == TY_FLOAT ? (double)(float)value : value;
    return e;
}

IrExpr *ir_load(Arena *a, Loc loc, IrField *field, const int64_t offset[NAXES])
{
    IrExpr *e = new_expr(a, IR_LOAD, field->type, field->axes, loc);
    e->load.field = field;
    for (int ax = 0; ax < NAXES; ax++)
        e->load.offset[ax] = (field->axes & (1u << ax)) ? offset[ax] : 0;
    return e;
}

IrExpr *ir_scalar_ref(Arena *a, Loc loc, IrScalar *scalar)
{
    IrExpr *e = new_expr(a, IR_SCALAR, scalar->type, AXES_NONE, loc);
    e->scalar = scalar;
    return e;
}

IrExpr *ir_unary(Arena *a, Loc loc, Op op, Type type, IrExpr *x)
{
    IrExpr *e = new_expr(a, IR_UNARY, type, x->shape, loc);
    e->op.op = op;
    e->op.a = x;
    return e;
}

IrExpr *ir_binary(Arena *a, Loc loc, Op op, Type type, IrExpr *x, IrExpr *y)
{
    IrExpr *e = new_expr(a, IR_BINARY, type, x->shape | y->shape, loc);
    e->op.op = op;
    e->op.a = x;
    e->op.b = y;
    return e;
}

IrExpr *ir_cond(Arena *a, Loc loc, Type type, IrExpr *c, IrExpr *x, IrExpr *y)
{
    IrExpr *e = new_expr(a, IR_COND, type, c->shape | x->shape | y->shape, loc);
    e->cond.cond = c;
    e->cond.then = x;
    e->cond.els = y;
    return e;
}

IrExpr *ir_call(Arena *a, Loc loc, Builtin fn, Type type, IrExpr *const *args, int nargs)
{
    IrExpr *e = new_expr(a, IR_CALL, type, AXES_NONE, loc);
    e->call.fn = fn;
    e->call.nargs = nargs;
    for (int i = 0; i < nargs; i++) {
        e->call.args[i] = args[i];
        e->shape |= args[i]->shape;
    }
    return e;
}

IrExpr *ir_index(Arena *a, Loc loc, int axis)
{
    IrExpr *e = new_expr(a, IR_INDEX, TY_INT, 1u << axis, loc);
    e->index_axis = axis;
    return e;
}

IrExpr *ir_cast(Arena *a, IrExpr *x, Type type)
{
    if (x->type == type)
        return x;
    IrExpr *e = new_expr(a, IR_CAST, type, x->shape, x->loc);
    e->cast.a = x;
    return e;
}

IrExpr *ir_colreduce(Arena *a, Loc loc, RedOp op, IrExpr *x)
{
    IrExpr *e = new_expr(a, IR_COLREDUCE, x->type, x->shape & ~(unsigned)AXES_K, loc);
    e->colreduce.op = op;
    e->colreduce.a = x;
    return e;
}

IrStmt *ir_stmt_new(Arena *a, IrStmtKind kind, Loc loc)
{
    IrStmt *s = arena_alloc(a, sizeof *s);
    s->kind = kind;
    s->loc = loc;
    return s;
}

bool ir_expr_equal(const IrExpr *a, const IrExpr *b)
{
    if (a == b)
        return true;
    if (a->kind != b->kind || a->type != b->type)
        return false;
    switch (a->kind) {
    case IR_CONST:
        return a->cnst.i == b->cnst.i && memcmp(&a->cnst.d, &b->cnst.d, sizeof a->cnst.d) == 0;
    case IR_LOAD:
        if (a->load.field != b->load.field || a->load.kmode != b->load.kmode ||
            memcmp(a->load.offset, b->load.offset, sizeof a->load.offset) != 0)
            return false;
        break;   /* the run-time level, if any, is the one child */
    case IR_SCALAR:
        return a->scalar == b->scalar;
    case IR_INDEX:
        return a->index_axis == b->index_axis;
    case IR_UNARY: case IR_BINARY:
        if (a->op.op != b->op.op)
            return false;
        break;
    case IR_CALL:
        if (a->call.fn != b->call.fn || a->call.nargs != b->call.nargs)
            return false;
        break;
    case IR_COLREDUCE:
        if (a->colreduce.op != b->colreduce.op)
            return false;
        break;
    case IR_COND: case IR_CAST:
        break;
    }
    IrExpr *x[3], *y[3];
    int n = ir_expr_children(a, x);
    if (n != ir_expr_children(b, y))
        return false;
    for (int i = 0; i < n; i++)
        if (!ir_expr_equal(x[i], y[i]))
            return false;
    return true;
}

int ir_expr_slots(IrExpr *e, IrExpr **slot[3])
{
    switch (e->kind) {
    case IR_CONST: case IR_SCALAR: case IR_INDEX:
        return 0;
    case IR_LOAD:   /* a read at a run-time K level has it as its child */
        if (!e->load.klevel)
            return 0;
        slot[0] = &e->load.klevel;
        return 1;
    case IR_UNARY:
        slot[0] = &e->op.a;
        return 1;
    case IR_BINARY:
        slot[0] = &e->op.a;
        slot[1] = &e->op.b;
        return 2;
    case IR_COND:
        slot[0] = &e->cond.cond;
        slot[1] = &e->cond.then;
        slot[2] = &e->cond.els;
        return 3;
    case IR_CALL:
        for (int i = 0; i < e->call.nargs; i++)
            slot[i] = &e->call.args[i];
        return e->call.nargs;
    case IR_CAST:
        slot[0] = &e->cast.a;
        return 1;
    case IR_COLREDUCE:
        slot[0] = &e->colreduce.a;
        return 1;
    }
    unreachable();
}

int ir_expr_children(const IrExpr *e, IrExpr *out[3])
{
    IrExpr **slot[3];
    int n = ir_expr_slots((IrExpr *)e, slot);
    for (int i = 0; i < n; i++)
        out[i] = *slot[i];
    return n;
}

IrExpr *ir_copy(Arena *a, const IrExpr *e)
{
    IrExpr *copy = arena_alloc(a, sizeof *copy);
    *copy = *e;
    IrExpr **slot[3];
    int n = ir_expr_slots(copy, slot);
    for (int i = 0; i < n; i++)
        *slot[i] = ir_copy(a, *slot[i]);
    return copy;
}

static IrWalk count_node(void *ctx, const IrExpr *e)
{
    (void)e;
    ++*(size_t *)ctx;
    return IR_WALK_ON;
}

size_t ir_expr_size(const IrExpr *e)
{
    size_t size = 0;
    ir_walk_expr(e, count_node, &size);
    return size;
}

bool ir_walk_expr(const IrExpr *e, IrExprFn *fn, void *ctx)
{
    IrWalk w = fn(ctx, e);
    if (w != IR_WALK_ON)
        return w != IR_WALK_STOP;
    IrExpr *sub[3];
    int n = ir_expr_children(e, sub);
    for (int i = 0; i < n; i++)
        if (!ir_walk_expr(sub[i], fn, ctx))
            return false;
    return true;
}

static void for_each_load(IrExpr *e, IrLoadFn *fn, void *ctx, bool in_column)
{
    if (e->kind == IR_LOAD)
        fn(ctx, e, in_column);   /* then the loads of its run-time level, if any */
    IrExpr *sub[3];
    int n = ir_expr_children(e, sub);
    for (int i = 0; i < n; i++)
        for_each_load(sub[i], fn, ctx, in_column || e->kind == IR_COLREDUCE);
}

bool ir_walk_stmt(const IrStmt *s, IrStmtFn *fn, void *ctx)
{
    IrWalk w = fn(ctx, s);
    if (w == IR_WALK_STOP)
        return false;
    if (w == IR_WALK_SKIP || s->kind != IR_IF)
        return true;
    return ir_walk_stmts(&s->iff.then, fn, ctx) && ir_walk_stmts(&s->iff.els, fn, ctx);
}

bool ir_walk_stmts(const IrStmtVec *v, IrStmtFn *fn, void *ctx)
{
    for (int i = 0; i < v->len; i++)
        if (!ir_walk_stmt(v->items[i], fn, ctx))
            return false;
    return true;
}

typedef struct {
    Arena *arena;
    IrFieldVec *out;
} Writes;

static IrWalk note_write(void *ctx, const IrStmt *s)
{
    Writes *w = ctx;
    if (s->kind == IR_ASSIGN)
        vec_push(w->arena, w->out, s->assign.dst);
    return IR_WALK_ON;
}

void ir_collect_writes(Arena *a, const IrStmtVec *v, IrFieldVec *out)
{
    Writes w = {a, out};
    ir_walk_stmts(v, note_write, &w);
}

static IrWalk add_axes(void *ctx, const IrStmt *s)
{
    unsigned *axes = ctx;
    switch (s->kind) {
    case IR_ASSIGN:
        *axes |= s->assign.dst->axes | s->assign.value->shape;
        break;
    case IR_REDUCE:
        /* a full reduction runs over the whole domain, whatever e varies along */
        *axes |= AXES_IJK;
        break;
    case IR_IF:
        *axes |= s->iff.cond->shape;
        break;
    }
    return IR_WALK_ON;
}

unsigned ir_stmt_axes(const IrStmt *s)
{
    unsigned axes = 0;
    ir_walk_stmt(s, add_axes, &axes);
    return axes;
}

void ir_for_each_load(IrExpr *e, IrLoadFn *fn, void *ctx)
{
    for_each_load(e, fn, ctx, false);
}

static IrWalk load_of(void *ctx, const IrExpr *e)
{
    return e->kind == IR_LOAD && e->load.field == ctx ? IR_WALK_STOP : IR_WALK_ON;
}

bool ir_reads_field(const IrExpr *e, const IrField *f)
{
    return !ir_walk_expr(e, load_of, (void *)f);
}

static IrWalk kdyn_load(void *ctx, const IrExpr *e)
{
    (void)ctx;
    return e->kind == IR_LOAD && e->load.klevel ? IR_WALK_STOP : IR_WALK_ON;
}

bool ir_expr_has_kdyn(const IrExpr *e)
{
    return !ir_walk_expr(e, kdyn_load, NULL);
}

static IrWalk of_kind(void *ctx, const IrExpr *e)
{
    return e->kind == *(const IrExprKind *)ctx ? IR_WALK_STOP : IR_WALK_ON;
}

bool ir_expr_has(const IrExpr *e, IrExprKind k)
{
    return !ir_walk_expr(e, of_kind, &k);
}

IrExpr *ir_stmt_expr(const IrStmt *s)
{
    switch (s->kind) {
    case IR_ASSIGN: return s->assign.value;
    case IR_REDUCE: return s->reduce.value;
    case IR_IF: return s->iff.cond;
    }
    unreachable();
}

/* ----------------------------------------------------------------- levels */

int level_cmp(Level a, Level b)
{
    if (a.from_end != b.from_end)
        return a.from_end ? 1 : -1;
    return a.offset < b.offset ? -1 : a.offset > b.offset;
}

int64_t level_min_nk(Level a, Level b)
{
    /* a = x (from the start), b = NK + y: x <= NK + y needs NK >= x - y. */
    if (!a.from_end && b.from_end)
        return a.offset - b.offset;
    return 0;
}

const char *ir_offset_text(char buf[96], const int64_t off[NAXES])
{
    size_t n = 0;
    buf[0] = '\0';
    for (int ax = 0; ax < NAXES; ax++)
        if (off[ax])
            n += (size_t)snprintf(buf + n, 96 - n, "%s%c%+" PRId64, n ? ", " : "", "ijk"[ax],
                                  off[ax]);
    return n ? buf : "zero offset";
}

const char *level_text(char buf[32], Level l)
{
    if (!l.from_end)
        snprintf(buf, 32, "%" PRId64, l.offset);
    else if (l.offset == 0)
        snprintf(buf, 32, "end");
    else
        snprintf(buf, 32, "end%+" PRId64, l.offset);
    return buf;
}

/* ---------------------------------------------------------------- extents */

const Extent extent_zero;

void extent_add(Extent *e, const Extent *region, const int64_t offset[NAXES], unsigned axes)
{
    for (int ax = 0; ax < NAXES; ax++) {
        if (!(axes & (1u << ax)))
            continue;
        int64_t lo = region->r[ax].lo + offset[ax], hi = region->r[ax].hi + offset[ax];
        if (lo < e->r[ax].lo)
            e->r[ax].lo = lo;
        if (hi > e->r[ax].hi)
            e->r[ax].hi = hi;
    }
}

bool extent_equal(const Extent *a, const Extent *b)
{
    for (int ax = 0; ax < NAXES; ax++)
        if (a->r[ax].lo != b->r[ax].lo || a->r[ax].hi != b->r[ax].hi)
            return false;
    return true;
}

/* ---------------------------------------------------------------- regions */

bool area_any(const Area *a)
{
    return a->set[0] || a->set[1];
}

static bool bound_equal(const AreaBound *a, const AreaBound *b)
{
    return a->has_start == b->has_start && a->has_end == b->has_end &&
           (!a->has_start || a->start == b->start) && (!a->has_end || a->end == b->end);
}

static IrWalk in_area(void *ctx, const IrStmt *s)
{
    return area_equal(&s->area, ctx) ? IR_WALK_ON : IR_WALK_STOP;
}

bool ir_stmt_in_area(const IrStmt *s, const Area *a)
{
    return ir_walk_stmt(s, in_area, (void *)a);
}

bool area_equal(const Area *a, const Area *b)
{
    for (int ax = 0; ax < 2; ax++) {
        if (a->set[ax] != b->set[ax])
            return false;
        if (a->set[ax] && (!bound_equal(&a->lo[ax], &b->lo[ax]) ||
                           !bound_equal(&a->hi[ax], &b->hi[ax])))
            return false;
    }
    return true;
}

/* x tightened by y: the greater (lower bounds, upper false: the lesser) of
 * the terms of each kind. */
static void bound_meet(AreaBound *x, const AreaBound *y, bool upper)
{
    if (y->has_start) {
        if (!x->has_start || (upper ? y->start < x->start : y->start > x->start))
            x->start = y->start;
        x->has_start = true;
    }
    if (y->has_end) {
        if (!x->has_end || (upper ? y->end < x->end : y->end > x->end))
            x->end = y->end;
        x->has_end = true;
    }
}

void area_intersect(Area *a, const Area *b)
{
    for (int ax = 0; ax < 2; ax++) {
        if (!b->set[ax])
            continue;
        if (!a->set[ax]) {
            a->set[ax] = true;
            a->lo[ax] = b->lo[ax];
            a->hi[ax] = b->hi[ax];
            continue;
        }
        bound_meet(&a->lo[ax], &b->lo[ax], false);
        bound_meet(&a->hi[ax], &b->hi[ax], true);
    }
}

/* max(lo terms) - min(hi terms) at domain size n: the range is empty where
 * it is >= 0 (lo has a start term, hi an end term). */
static int64_t area_gap(const AreaBound *lo, const AreaBound *hi, int64_t n)
{
    int64_t l = lo->start, h = n + hi->end;
    if (lo->has_end && n + lo->end > l)
        l = n + lo->end;
    if (hi->has_start && hi->start < h)
        h = hi->start;
    return l - h;
}

bool area_never(const Area *a, int ax, int64_t lo, int64_t hi)
{
    if (!a->set[ax])
        return false;
    /* the statement's own range [lo, n + hi) as two more terms. The gap is
     * piecewise linear in n, with kinks where a start term meets an end
     * term: it is >= 0 for every n >= 1 when it does not fall for large n
     * and is >= 0 at n = 1 and at every kink */
    AreaBound l = a->lo[ax], h = a->hi[ax];
    bound_meet(&l, &(AreaBound){true, false, lo, 0}, false);
    bound_meet(&h, &(AreaBound){false, true, 0, hi}, true);
    if (!l.has_end && !h.has_start)
        return false;
    int64_t kinks[3] = {1, l.has_end ? l.start - l.end : 1, h.has_start ? h.start - h.end : 1};
    for (int k = 0; k < 3; k++)
        for (int64_t d = -1; d <= 1; d++) {
            int64_t n = kinks[k] + d;
            if (n >= 1 && area_gap(&l, &h, n) < 0)
                return false;
        }
    return true;
}

static void bound_text(char *buf, size_t n, const AreaBound *b, bool upper)
{
    char s[32], e[40];
    if (b->has_start)
        snprintf(s, sizeof s, "%" PRId64, b->start);
    if (b->has_end) {
        if (b->end == 0)
            snprintf(e, sizeof e, "end");
        else
            snprintf(e, sizeof e, "end %c %" PRId64, b->end < 0 ? '-' : '+',
                     b->end < 0 ? -b->end : b->end);
    }
    if (b->has_start && b->has_end)
        snprintf(buf, n, "%s(%s, %s)", upper ? "min" : "max", s, e);
    else
        snprintf(buf, n, "%s", b->has_start ? s : e);
}

const char *area_text(char *buf, size_t n, const Area *a)
{
    size_t len = 0;
    buf[0] = 0;
    for (int ax = 0; ax < 2; ax++) {
        if (!a->set[ax])
            continue;
        char lo[96], hi[96];
        bound_text(lo, sizeof lo, &a->lo[ax], false);
        bound_text(hi, sizeof hi, &a->hi[ax], true);
        int w = snprintf(buf + len, n - len, "%s%c(%s, %s)", len ? ", " : "", "ij"[ax], lo, hi);
        if (w > 0 && (size_t)w < n - len)
            len += (size_t)w;
    }
    return buf;
}
