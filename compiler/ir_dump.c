/* ir_dump.c: the stable text form of the IR, printed by `gtcc --emit=ir`.
 *
 * One block per stencil, in source order; a blank line between stencils.
 *
 *   stencil NAME
 *     min_nk N
 *     iterate NEXT -> CUR, ...                  (a stencil with iterate only)
 *     field NAME: INTENT TYPE AXES extent i[..] j[..] k[..] halo i[..] j[..] k[..] [FLAGS]
 *     scalar NAME: in|out TYPE
 *     temp NAME: TYPE AXES extent i[..] j[..] k[..] [FLAGS]
 *     computation parallel|forward|backward
 *       interval(LO, HI)
 *         DST = EXPR @ i[..] j[..] [in region(i(LO, HI), j(LO, HI))]
 *         if (EXPR) @ i[..] j[..]
 *           ...
 *         else
 *           ...
 *         OUT = sum|min|max(EXPR) @ i[..] j[..]
 *     [the backend's plan lines]
 *     steps: HOW                                (a stencil with iterate only)
 *
 * Parameters come in declaration order, temporaries after them. INTENT is
 * in, out or inout; FLAGS are `bc I:periodic J:dirichlet(0.5) ...` for
 * boundary conditions, `read_at_offset`, `read_at_run_time_k` and
 * `block_local`. A read at a run-time K level prints its level as k+(e),
 * k-(e) or k=(e) (language.md 10.3). A range prints as
 * [lo,hi] relative to the compute domain, non-zero bounds signed: extent
 * i[-1,+2]; a halo prints the same way, lower halo negated: halo i[-2,+2] is
 * two points each side. Expressions are .stn-like infix with C precedence
 * and every access spelled out along each axis of its field (u[i-1,j,k]);
 * conversions show as casts, (double)n[i,j,k]; float constants carry an f.
 * After `@` comes the statement's horizontal region, then `in region(i(0, 1))`
 * where a region statement restricts it (language.md 10.1; a bound of
 * nested regions that meet both ways prints as max(..) or min(..)). The text depends on
 * nothing but the IR: no addresses, no file names, no timing.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gtcc.h"
#include "plan.h"

/* v with its sign ("+2", "-1"); "0" for zero. Hot in big dumps: no printf. */
static void print_signed(FILE *out, int64_t v)
{
    char buf[24];
    int n = sizeof buf;
    uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
    buf[--n] = '\0';
    do
        buf[--n] = (char)('0' + u % 10);
    while (u /= 10);
    if (v)
        buf[--n] = v < 0 ? '-' : '+';
    fputs(buf + n, out);
}

static void print_range(FILE *out, char axis, int64_t lo, int64_t hi)
{
    fprintf(out, "%c[", axis);
    print_signed(out, lo);
    fputc(',', out);
    print_signed(out, hi);
    fputc(']', out);
}

static void print_extent(FILE *out, const Extent *e, int naxes)
{
    for (int ax = 0; ax < naxes; ax++) {
        if (ax)
            fputc(' ', out);
        print_range(out, "ijk"[ax], e->r[ax].lo, e->r[ax].hi);
    }
}

/* The shortest text that reads back as the same value of the type. */
static void print_real(FILE *out, double v, Type type)
{
    if (!isfinite(v)) {
        fprintf(out, "%s%s", type == TY_FLOAT ? "(float)" : "",
                isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
        return;
    }
    char buf[REAL_LITERAL_SIZE];
    real_literal(buf, v, type == TY_FLOAT);
    fputs(buf, out);
}

/* Binding strength of an expression, as in C (PREC_...): higher binds
 * tighter. */
static int precedence(const IrExpr *e)
{
    switch (e->kind) {
    case IR_CONST:
        return type_is_floating(e->type) ? (e->cnst.d < 0 ? PREC_UNARY : PREC_PRIMARY)
                                         : (e->cnst.i < 0 ? PREC_UNARY : PREC_PRIMARY);
    case IR_UNARY: case IR_CAST:
        return PREC_UNARY;
    case IR_COND:
        return PREC_COND;
    case IR_BINARY:
        return op_precedence[e->op.op];
    default:
        return PREC_PRIMARY;
    }
}

static void print_expr(FILE *out, const IrExpr *e, int min_prec);

static void print_load(FILE *out, const IrExpr *e)
{
    const IrField *f = e->load.field;
    fputs(f->name, out);
    fputc('[', out);
    bool first = true;
    for (int ax = 0; ax < NAXES; ax++) {
        if (!(f->axes & (1u << ax)))
            continue;
        if (!first)
            fputc(',', out);
        fputc("ijk"[ax], out);
        if (ax == AXIS_K && e->load.kmode == KDYN_ABS) {
            /* k=(e) or k=(e)+d: the absolute level */
            fputs("=(", out);
            print_expr(out, e->load.klevel, 0);
            fputc(')', out);
        }
        if (e->load.offset[ax])
            print_signed(out, e->load.offset[ax]);
        if (ax == AXIS_K && (e->load.kmode == KDYN_ADD || e->load.kmode == KDYN_SUB)) {
            /* k+(e), k-1-(e): relative */
            fputs(e->load.kmode == KDYN_ADD ? "+(" : "-(", out);
            print_expr(out, e->load.klevel, 0);
            fputc(')', out);
        }
        first = false;
    }
    fputc(']', out);
}

static void print_inner(FILE *out, const IrExpr *e)
{
    switch (e->kind) {
    case IR_CONST:
        if (e->type == TY_BOOL)
            fputs(e->cnst.i ? "true" : "false", out);
        else if (e->type == TY_INT)
            fprintf(out, "%" PRId64, e->cnst.i);
        else
            print_real(out, e->cnst.d, e->type);
        break;
    case IR_LOAD:
        print_load(out, e);
        break;
    case IR_SCALAR:
        fputs(e->scalar->name, out);
        break;
    case IR_UNARY: {
        const IrExpr *a = e->op.a;
        fputs(op_spellings[e->op.op], out);
        /* -(-x), not --x */
        bool wrap = a->kind == IR_UNARY || (a->kind == IR_CONST && precedence(a) == PREC_UNARY);
        print_expr(out, a, wrap ? PREC_PRIMARY + 1 : PREC_UNARY);
        break;
    }
    case IR_BINARY: {
        int p = precedence(e);
        print_expr(out, e->op.a, p);
        fputc(' ', out);
        fputs(op_spellings[e->op.op], out);
        fputc(' ', out);
        print_expr(out, e->op.b, p + 1);
        break;
    }
    case IR_COND:
        print_expr(out, e->cond.cond, PREC_OR);
        fputs(" ? ", out);
        print_expr(out, e->cond.then, PREC_COND);
        fputs(" : ", out);
        print_expr(out, e->cond.els, PREC_COND);
        break;
    case IR_CALL:
        fprintf(out, "%s(", builtin_names[e->call.fn]);
        for (int i = 0; i < e->call.nargs; i++) {
            if (i)
                fputs(", ", out);
            print_expr(out, e->call.args[i], PREC_COND);
        }
        fputc(')', out);
        break;
    case IR_INDEX:
        fprintf(out, "index(%c)", "ijk"[e->index_axis]);
        break;
    case IR_CAST:
        fprintf(out, "(%s)", type_names[e->type]);
        print_expr(out, e->cast.a, PREC_UNARY);
        break;
    case IR_COLREDUCE:
        fprintf(out, "%s(", red_op_names[e->colreduce.op]);
        print_expr(out, e->colreduce.a, PREC_COND);
        fputs(", k)", out);
        break;
    }
}

static void print_expr(FILE *out, const IrExpr *e, int min_prec)
{
    bool paren = precedence(e) < min_prec;
    if (paren)
        fputc('(', out);
    print_inner(out, e);
    if (paren)
        fputc(')', out);
}

static void print_region(FILE *out, const IrStmt *st)
{
    fputs(" @ ", out);
    print_extent(out, &st->region, 2);
    if (area_any(&st->area)) {
        char buf[512];
        fprintf(out, " in region(%s)", area_text(buf, sizeof buf, &st->area));
    }
    fputc('\n', out);
}

static void print_stmts(FILE *out, const IrStmtVec *v, int depth);

static void print_stmt(FILE *out, const IrStmt *st, int depth)
{
    fprintf(out, "%*s", 2 * depth, "");
    switch (st->kind) {
    case IR_ASSIGN:
        fprintf(out, "%s = ", st->assign.dst->name);
        print_expr(out, st->assign.value, PREC_COND);
        print_region(out, st);
        break;
    case IR_REDUCE:
        fprintf(out, "%s = %s(", st->reduce.dst->name, red_op_names[st->reduce.op]);
        print_expr(out, st->reduce.value, PREC_COND);
        fputc(')', out);
        print_region(out, st);
        break;
    case IR_IF:
        fputs(st->iff.loop ? "while (" : "if (", out);
        print_expr(out, st->iff.cond, PREC_COND);
        fputc(')', out);
        print_region(out, st);
        print_stmts(out, &st->iff.then, depth + 1);
        if (st->iff.els.len) {
            fprintf(out, "%*selse\n", 2 * depth, "");
            print_stmts(out, &st->iff.els, depth + 1);
        }
        break;
    }
}

static void print_stmts(FILE *out, const IrStmtVec *v, int depth)
{
    for (int i = 0; i < v->len; i++)
        print_stmt(out, v->items[i], depth);
}

static void print_field(FILE *out, const IrField *f)
{
    if (f->kind == IR_PARAM_FIELD) {
        const char *intent = !f->is_written ? "in" : f->is_read ? "inout" : "out";
        fprintf(out, "  field %s: %s %s %s extent ", f->name, intent, type_names[f->type],
                axes_name(f->axes));
        print_extent(out, &f->extent, NAXES);
        fputs(" halo", out);
        for (int ax = 0; ax < NAXES; ax++) {
            fputc(' ', out);
            print_range(out, "ijk"[ax], -f->halo[ax][0], f->halo[ax][1]);
        }
        bool any_bc = false;
        for (int ax = 0; ax < NAXES; ax++) {
            if (f->bc[ax].kind == BC_NONE)
                continue;
            fprintf(out, "%s%c:%s", any_bc ? " " : " bc ", "IJK"[ax], bc_kind_names[f->bc[ax].kind]);
            if (f->bc[ax].kind == BC_DIRICHLET) {
                fputc('(', out);
                print_real(out, f->bc[ax].value, TY_DOUBLE);
                fputc(')', out);
            }
            any_bc = true;
        }
    } else {
        fprintf(out, "  temp %s: %s %s extent ", f->name, type_names[f->type],
                axes_name(f->axes));
        print_extent(out, &f->extent, NAXES);
        if (f->block_local)
            fputs(" block_local", out);
    }
    if (f->read_at_offset)
        fputs(" read_at_offset", out);
    if (f->read_at_run_time_k)
        fputs(" read_at_run_time_k", out);
    fputc('\n', out);
}

static void print_plan(FILE *out, const IrStencil *st);

static void print_stencil(FILE *out, const IrStencil *st)
{
    fprintf(out, "stencil %s\n", st->name);
    fprintf(out, "  min_nk %" PRId64 "\n", st->min_nk);
    for (int i = 0; i < st->pairs.len; i++)
        fprintf(out, "%s%s -> %s%s", i ? ", " : "  iterate ", st->pairs.items[i].next->name,
                st->pairs.items[i].cur->name, i + 1 == st->pairs.len ? "\n" : "");
    for (int i = 0; i < st->params.len; i++) {
        const IrParam *p = &st->params.items[i];
        if (p->is_field)
            print_field(out, p->field);
        else
            fprintf(out, "  scalar %s: %s %s\n", p->scalar->name,
                    p->scalar->is_output ? "out" : "in", type_names[p->scalar->type]);
    }
    for (int i = 0; i < st->fields.len; i++)
        if (st->fields.items[i]->kind == IR_TEMP)
            print_field(out, st->fields.items[i]);
    for (int i = 0; i < st->computations.len; i++) {
        const IrComputation *comp = st->computations.items[i];
        fprintf(out, "  computation %s\n", iter_order_names[comp->order]);
        for (int j = 0; j < comp->intervals.len; j++) {
            const IrInterval *iv = comp->intervals.items[j];
            char lo[32], hi[32];
            fprintf(out, "    interval(%s, %s)\n", level_text(lo, iv->lo), level_text(hi, iv->hi));
            print_stmts(out, &iv->stmts, 3);
        }
    }
    print_plan(out, st);
}

/* The fusion plan of fuse.c, when a backend asked for one: each temporary's
 * class, the kernels (statement ranges of their interval) grouped into cache
 * blocks, and how forward/backward computations run. */
static void print_plan(FILE *out, const IrStencil *st)
{
    if (!st->fused) {
        if (st->not_fused_why)
            fprintf(out, "  plan: not fused (%s)\n", st->not_fused_why);
        return;
    }
    fputs("  plan\n", out);
    for (int i = 0; i < st->fields.len; i++) {
        const IrField *f = st->fields.items[i];
        if (f->kind != IR_TEMP)
            continue;
        fprintf(out, "    temp %s: %s", f->name, ir_temp_class_names[f->temp_class]);
        if (f->temp_class == IR_TEMP_FULL || f->temp_class == IR_TEMP_TILE)
            fprintf(out, " buffer %d", f->buffer);
        if (f->temp_class == IR_TEMP_TILE)
            fprintf(out, ", %d row%s", f->tile_rows, f->tile_rows == 1 ? "" : "s");
        if (f->temp_class == IR_TEMP_RECOMPUTE)
            fprintf(out, plan_expr_recompute(f) ? " (expression, at each read)"
                             : " (%d statements, per read offset)", f->nproducer);
        fputc('\n', out);
    }
    for (int i = 0; i < st->computations.len; i++) {
        const IrComputation *comp = st->computations.items[i];
        fprintf(out, "    computation %s%s", iter_order_names[comp->order],
                comp->order == ORDER_PARALLEL ? ""
                : comp->columnar               ? " by columns"
                                               : " level by level");
        if (comp->columnar) {
            fprintf(out, ", column group %d", comp->column_group);
            char sign = comp->order == ORDER_FORWARD ? '-' : '+';
            for (int k = 0; k < comp->kcache.len; k++) {
                const IrKCache *kc = &comp->kcache.items[k];
                fprintf(out, "%s %s[k%c1", k ? "," : ", k-cache", kc->field->name, sign);
                if (kc->depth > 1)
                    fprintf(out, "..k%c%d", sign, kc->depth);
                fputc(']', out);
            }
        }
        fputc('\n', out);
        for (int j = 0; j < comp->intervals.len; j++) {
            const IrInterval *iv = comp->intervals.items[j];
            char lo[32], hi[32];
            fprintf(out, "      interval(%s, %s)", level_text(lo, iv->lo), level_text(hi, iv->hi));
            for (int k = 0; k < iv->kernels.len; k++) {
                const IrKernel *kn = &iv->kernels.items[k];
                if (comp->order == ORDER_PARALLEL &&
                    (k == 0 || kn->group != iv->kernels.items[k - 1].group))
                    fprintf(out, "%s group %d:", k ? ";" : "", kn->group);
                else if (comp->order != ORDER_PARALLEL && k == 0)
                    fputc(':', out);
                if (kn->count == 1)
                    fprintf(out, " kernel [%d]", kn->first);
                else
                    fprintf(out, " kernel [%d-%d]", kn->first, kn->first + kn->count - 1);
                if (kn->lag)
                    fprintf(out, " lag %d", kn->lag);
            }
            fputc('\n', out);
        }
    }
}

void ir_dump(FILE *out, const Ir *ir, const Backend *b)
{
    for (int i = 0; i < ir->stencils.len; i++) {
        const IrStencil *st = ir->stencils.items[i];
        if (i)
            fputc('\n', out);
        print_stencil(out, st);
        if (st->fused && b && b->dump_plan)
            b->dump_plan(out, st);
        int tiled = st->pairs.len && b && b->steps_tiled ? b->steps_tiled(st) : 0;
        if (tiled)
            fprintf(out, "  steps: %s%s\n", b->steps_tiled_plan,
                    tiled == 2 ? b->steps_tiled_levels : "");
        else if (st->pairs.len)
            fprintf(out, "  steps: %s\n", b && b->steps_plan ? b->steps_plan
                                                              : "loop of single steps");
    }
}
