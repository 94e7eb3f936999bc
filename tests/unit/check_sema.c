/* check_sema.c: the semantic passes (sema.c, inline.c, fold.c, shapes.c) on
 * programs compiled in process from strings: types and the casts inserted,
 * floating literals adapting to float, shapes, intents, inlining by
 * substitution, constant folding and -D overrides, dead branches of constant
 * conditions, interval order, boundary conditions, unique names, and one
 * diagnostic per rule of language.md that says "error". */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Compiles text (with -D defines "NAME=VALUE", NULL-terminated) through
 * the semantic passes (comp_lower) and, when they found no error, ext_compute. */
static void compile_with(Comp *k, const char *text, const char *const *defines)
{
    comp_open(k);
    for (int i = 0; defines && defines[i]; i++) {
        const char *eq = strchr(defines[i], '=');
        Define d = {arena_strndup(k->c->arena, defines[i], (size_t)(eq - defines[i])), eq + 1,
                    false};
        vec_push(k->c->arena, &k->c->opts.defines, d);
    }
    comp_lower(k, text);
    if (!k->c->diag.errors)
        ext_compute(k->c);
    fflush(k->out);
}

static void compile(Comp *k, const char *text)
{
    compile_with(k, text, NULL);
}

static void compile_ok(Comp *k, const char *text)
{
    compile(k, text);
    assert_no_errors(k);
}

/* The n-th top-level statement of the first interval of computation ci. */
static IrStmt *stmt(IrStencil *st, int ci, int n)
{
    ck_assert_int_gt(st->computations.len, ci);
    IrInterval *iv = st->computations.items[ci]->intervals.items[0];
    ck_assert_int_gt(iv->stmts.len, n);
    return iv->stmts.items[n];
}

static IrExpr *value(IrStencil *st, int n)
{
    IrStmt *s = stmt(st, 0, n);
    ck_assert_int_eq(s->kind, IR_ASSIGN);
    return s->assign.value;
}

typedef struct {
    int loads;
    int64_t min_off[NAXES], max_off[NAXES];
} LoadCount;

static void count_load(void *ctx, IrExpr *load, bool in_column)
{
    (void)in_column;
    LoadCount *lc = ctx;
    lc->loads++;
    for (int ax = 0; ax < NAXES; ax++) {
        if (load->load.offset[ax] < lc->min_off[ax])
            lc->min_off[ax] = load->load.offset[ax];
        if (load->load.offset[ax] > lc->max_off[ax])
            lc->max_off[ax] = load->load.offset[ax];
    }
}

static LoadCount loads(IrExpr *e)
{
    LoadCount lc = {0};
    ir_for_each_load(e, count_load, &lc);
    return lc;
}

static int count_kind(const IrExpr *e, IrExprKind kind)
{
    int n = e->kind == kind;
    switch (e->kind) {
    case IR_UNARY: return n + count_kind(e->op.a, kind);
    case IR_BINARY: return n + count_kind(e->op.a, kind) + count_kind(e->op.b, kind);
    case IR_COND:
        return n + count_kind(e->cond.cond, kind) + count_kind(e->cond.then, kind) +
               count_kind(e->cond.els, kind);
    case IR_CALL:
        for (int i = 0; i < e->call.nargs; i++)
            n += count_kind(e->call.args[i], kind);
        return n;
    case IR_CAST: return n + count_kind(e->cast.a, kind);
    case IR_COLREDUCE: return n + count_kind(e->colreduce.a, kind);
    default: return n;
    }
}

/* ------------------------------------------------------------------ types */

START_TEST(test_float_literals_adapt)
{
    Comp k;
    compile_ok(&k, "stencil s(field<float> f, field<float> g, field<double> d) {\n"
                   "  g = 2.0 * f + 0.1;\n"
                   "  g = 0.1;\n"
                   "  d = 0.1;\n"
                   "}\n");
    IrStencil *st = stencil0(&k);
    IrExpr *e = value(st, 0);
    ck_assert_int_eq(e->type, TY_FLOAT);
    ck_assert_int_eq(count_kind(e, IR_CAST), 0);   /* all float: no conversion at all */
    ck_assert_int_eq(e->op.b->kind, IR_CONST);
    ck_assert_int_eq(e->op.b->type, TY_FLOAT);
    ck_assert(e->op.b->cnst.d == (double)0.1f);
    e = value(st, 1);
    ck_assert_int_eq(e->kind, IR_CONST);
    ck_assert_int_eq(e->type, TY_FLOAT);
    e = value(st, 2);
    ck_assert_int_eq(e->type, TY_DOUBLE);
    ck_assert(e->cnst.d == 0.1);
    done(&k);
    /* float's range: the largest finite float is accepted, a tiny literal rounds
     * (to 0 or a subnormal, as C's), a double expression keeps its literal */
    compile_ok(&k, "stencil s(field<float> f, field<float> g, field<double> d) {\n"
                   "  g = f * 3.4028234e38 + 1e-50;\n"
                   "  d = double(f) * 1e300;\n"
                   "}\n");
    st = stencil0(&k);
    e = value(st, 0);
    ck_assert_int_eq(e->op.a->op.b->kind, IR_CONST);
    ck_assert(e->op.a->op.b->cnst.d == (double)3.4028234e38f);
    ck_assert(e->op.b->cnst.d == (double)1e-50f);
    e = value(st, 1);
    ck_assert_int_eq(e->type, TY_DOUBLE);
    ck_assert(e->op.b->cnst.d == 1e300);
    done(&k);
}
END_TEST

START_TEST(test_usual_conversions_insert_casts)
{
    Comp k;
    compile_ok(&k, "stencil s(field<float> f, field<int> n, field<double> d, field<float> g,\n"
                   "          field<bool> b) {\n"
                   "  d = f + n;\n"          /* (float)n, then the sum widened to double */
                   "  g = d;\n"              /* double -> float narrowing on assignment */
                   "  b = n < f;\n"          /* the comparison in float */
                   "  d = n / 2;\n"          /* int division, then widened */
                   "}\n");
    IrStencil *st = stencil0(&k);
    IrExpr *e = value(st, 0);
    ck_assert_int_eq(e->kind, IR_CAST);
    ck_assert_int_eq(e->type, TY_DOUBLE);
    ck_assert_int_eq(e->cast.a->type, TY_FLOAT);
    ck_assert_int_eq(e->cast.a->op.b->kind, IR_CAST);
    ck_assert_int_eq(e->cast.a->op.b->cast.a->type, TY_INT);
    e = value(st, 1);
    ck_assert_int_eq(e->kind, IR_CAST);
    ck_assert_int_eq(e->type, TY_FLOAT);
    e = value(st, 2);
    ck_assert_int_eq(e->type, TY_BOOL);
    ck_assert_int_eq(e->op.a->kind, IR_CAST);
    ck_assert_int_eq(e->op.a->type, TY_FLOAT);
    e = value(st, 3);
    ck_assert_int_eq(e->kind, IR_CAST);
    ck_assert_int_eq(e->cast.a->type, TY_INT);
    ck_assert_int_eq(e->cast.a->op.op, OP_DIV);
    done(&k);
}
END_TEST

START_TEST(test_builtin_types)
{
    Comp k;
    compile_ok(&k, "stencil s(field<int> n, field<float> f, field<double> d, field<int> m,\n"
                   "          field<bool> b) {\n"
                   "  d = sqrt(n);\n"
                   "  m = abs(n) + min(n, 2);\n"
                   "  f = pow(f, 2.0);\n"
                   "  b = isnan(f);\n"
                   "  m = index(i) + index(k);\n"
                   "}\n");
    IrStencil *st = stencil0(&k);
    IrExpr *e = value(st, 0);
    ck_assert_int_eq(e->kind, IR_CALL);
    ck_assert_int_eq(e->type, TY_DOUBLE);
    ck_assert_int_eq(e->call.args[0]->kind, IR_CAST);
    e = value(st, 1);
    ck_assert_int_eq(e->type, TY_INT);
    ck_assert_int_eq(count_kind(e, IR_CAST), 0);
    e = value(st, 2);
    ck_assert_int_eq(e->type, TY_FLOAT);
    ck_assert_int_eq(e->call.args[1]->type, TY_FLOAT);
    e = value(st, 3);
    ck_assert_int_eq(e->type, TY_BOOL);
    e = value(st, 4);
    ck_assert_int_eq(e->type, TY_INT);
    ck_assert_uint_eq(e->shape, AXES_I | AXES_K);
    done(&k);
}
END_TEST

/* ----------------------------------------------------------------- shapes */

START_TEST(test_shapes_union)
{
    Comp k;
    compile_ok(&k, "stencil s(field<double, IJ> ps, field<double, K> ak, field<double> p,\n"
                   "          field<double, IJ> top, field<double, I> xi, field<double, IK> t) {\n"
                   "  p = ak + ak * ps;\n"
                   "  top = sum(p, k) + 2.0;\n"
                   "  t = xi * ak;\n"
                   "}\n");
    IrStencil *st = stencil0(&k);
    ck_assert_uint_eq(value(st, 0)->shape, AXES_IJK);
    ck_assert_uint_eq(value(st, 0)->op.a->shape, AXES_K);
    IrExpr *e = value(st, 1);
    ck_assert_uint_eq(e->shape, AXES_IJ);
    ck_assert_int_eq(e->op.a->kind, IR_COLREDUCE);
    ck_assert_uint_eq(e->op.a->colreduce.a->shape, AXES_IJK);
    ck_assert_uint_eq(value(st, 2)->shape, AXES_I | AXES_K);
    done(&k);
}
END_TEST

START_TEST(test_column_accumulator)
{
    /* Forward: an IJ destination may take a K-varying value; parallel may not. */
    Comp k;
    compile_ok(&k, "stencil s(field<double> u, field<double, IJ> acc) {\n"
                   "  computation(forward) { interval(0, end) { acc = acc + u; } }\n"
                   "}\n");
    done(&k);
    compile(&k, "stencil s(field<double> u, field<double, IJ> acc) { acc = acc + u; }\n");
    ck_assert_int_eq(k.c->diag.errors, 1);
    ck_assert_ptr_nonnull(strstr(k.diag, "cannot assign a value of shape IJK to 'acc'"));
    done(&k);
}
END_TEST

/* ---------------------------------------------------------------- intents */

START_TEST(test_intents)
{
    Comp k;
    compile_ok(&k, "stencil s(field<double> in1, field<double> out1, field<double> io,\n"
                   "          field<double> unused, double a, out double total) {\n"
                   "  out1 = a * in1;\n"
                   "  io = io + 1.0;\n"
                   "  total = sum(in1);\n"
                   "}\n");
    IrStencil *st = stencil0(&k);
    IrField *in1 = field(st, "in1"), *out1 = field(st, "out1"), *io = field(st, "io");
    IrField *unused = field(st, "unused");
    ck_assert(in1->is_read && !in1->is_written);
    ck_assert(!out1->is_read && out1->is_written);
    ck_assert(io->is_read && io->is_written);
    ck_assert(!unused->is_read && !unused->is_written);
    ck_assert_int_eq(st->params.len, 6);
    ck_assert_int_eq(st->scalars.len, 2);
    ck_assert(!st->scalars.items[0]->is_output);
    ck_assert(st->scalars.items[1]->is_output);
    ck_assert_int_eq(st->scalars.items[1]->param_pos, 5);
    IrStmt *red = stmt(st, 0, 2);
    ck_assert_int_eq(red->kind, IR_REDUCE);
    ck_assert_int_eq(red->reduce.op, RED_SUM);
    done(&k);
}
END_TEST

/* --------------------------------------------------------------- inlining */

START_TEST(test_inline_biharmonic)
{
    /* lap(lap(u)): 5 x 5 loads, offsets up to 2 along I and J, no temporary. */
    Comp k;
    compile_ok(&k, "function lap(f) { return 4.0 * f - (f[i-1] + f[i+1] + f[j-1] + f[j+1]); }\n"
                   "stencil s(field<double> u, field<double> v) { v = lap(lap(u)); }\n");
    IrStencil *st = stencil0(&k);
    ck_assert_int_eq(st->fields.len, 2);
    LoadCount lc = loads(value(st, 0));
    ck_assert_int_eq(lc.loads, 25);
    ck_assert_int_eq(lc.min_off[AXIS_I], -2);
    ck_assert_int_eq(lc.max_off[AXIS_I], 2);
    ck_assert_int_eq(lc.min_off[AXIS_J], -2);
    ck_assert_int_eq(lc.max_off[AXIS_J], 2);
    ck_assert_int_eq(lc.max_off[AXIS_K], 0);
    done(&k);
}
END_TEST

START_TEST(test_inline_locals_and_shifts)
{
    /* A local is its defining expression, read wherever it is used; an
     * argument read at an offset is shifted as a whole, index() included. */
    Comp k;
    compile_ok(&k, "function dx(f) { double d = f[i+1] - f; return d * d; }\n"
                   "function g(x) { return x[j-1]; }\n"
                   "stencil s(field<double> u, field<double> v, field<int> n) {\n"
                   "  v = dx(u[k+1]);\n"
                   "  n = g(index(j) + 1);\n"
                   "}\n");
    IrStencil *st = stencil0(&k);
    ck_assert_int_eq(st->fields.len, 3);
    LoadCount lc = loads(value(st, 0));
    ck_assert_int_eq(lc.loads, 4);
    ck_assert_int_eq(lc.min_off[AXIS_K], 0);
    ck_assert_int_eq(lc.max_off[AXIS_K], 1);
    ck_assert_int_eq(lc.max_off[AXIS_I], 1);
    /* index(j) read at j-1: index(j) - 1 + 1 */
    IrExpr *e = value(st, 1);
    ck_assert_int_eq(count_kind(e, IR_INDEX), 1);
    ck_assert_int_eq(e->kind, IR_BINARY);
    ck_assert_int_eq(e->op.a->kind, IR_BINARY);
    ck_assert_int_eq(e->op.a->op.op, OP_SUB);
    done(&k);
}
END_TEST

START_TEST(test_inline_weak_argument)
{
    /* A literal argument takes the float type of what it meets in the body. */
    Comp k;
    compile_ok(&k, "function scale(c, f) { return c * f; }\n"
                   "stencil s(field<float> f, field<float> g) { g = scale(0.5, f); }\n");
    IrExpr *e = value(stencil0(&k), 0);
    ck_assert_int_eq(e->type, TY_FLOAT);
    ck_assert_int_eq(e->op.a->kind, IR_CONST);
    ck_assert_int_eq(e->op.a->type, TY_FLOAT);
    done(&k);
}
END_TEST

/* ---------------------------------------------------------------- folding */

START_TEST(test_fold_and_defines)
{
    static const char *const defines[] = {"N=5", "FAST=true", NULL};
    Comp k;
    compile_with(&k, "const int N = 2;\n"
                     "const int M = N * 3 - 7 / 2;\n"
                     "const bool FAST = false;\n"
                     "stencil s(field<double> u, field<double> v, field<int> n) {\n"
                     "  n = M;\n"
                     "  if (FAST) { v = u; } else { v = 2.0 * u; }\n"
                     "  if (!FAST) v = 3.0 * u;\n"
                     "}\n",
                 defines);
    ck_assert_msg(k.c->diag.errors == 0, "%s", k.diag);
    IrStencil *st = stencil0(&k);
    IrExpr *e = value(st, 0);
    ck_assert_int_eq(e->kind, IR_CONST);
    ck_assert_int_eq(e->cnst.i, 5 * 3 - 3);
    /* the dead branches are gone: two statements, the second is v = u */
    IrInterval *iv = st->computations.items[0]->intervals.items[0];
    ck_assert_int_eq(iv->stmts.len, 2);
    ck_assert_int_eq(iv->stmts.items[1]->kind, IR_ASSIGN);
    ck_assert_int_eq(iv->stmts.items[1]->assign.value->kind, IR_LOAD);
    done(&k);
}
END_TEST

START_TEST(test_fold_float_semantics)
{
    Comp k;
    compile_ok(&k, "const float THIRD = 1.0 / 3.0;\n"
                   "const double INF = 1.0 / 0.0;\n"
                   "stencil s(field<float> f, field<double> d) {\n"
                   "  f = THIRD;\n"
                   "  d = INF;\n"
                   "}\n");
    IrStencil *st = stencil0(&k);
    ck_assert(value(st, 0)->cnst.d == (double)(1.0f / 3.0f));
    ck_assert(value(st, 1)->cnst.d > 1e308);
    done(&k);
}
END_TEST

START_TEST(test_define_unused_warns)
{
    static const char *const defines[] = {"NOPE=1", NULL};
    Comp k;
    compile_with(&k, "stencil s(field<double> u, field<double> v) { v = u; }\n", defines);
    ck_assert_int_eq(k.c->diag.errors, 0);
    ck_assert_int_eq(k.c->diag.warnings, 1);
    ck_assert_ptr_nonnull(strstr(k.diag, "-D NOPE matches no const"));
    done(&k);
}
END_TEST

/* -------------------------------------------------------------- intervals */

START_TEST(test_interval_order)
{
    Comp k;
    compile_ok(&k, "stencil s(field<double> u, field<double> v) {\n"
                   "  computation(backward) {\n"
                   "    interval(0, 2) { v = u; }\n"
                   "    interval(end-1, end) { v = 2.0 * u; }\n"
                   "    interval(2, end-1) { v = 3.0 * u; }\n"
                   "  }\n"
                   "  computation(forward) {\n"
                   "    interval(end-1, end) { v = u; }\n"
                   "    interval(0, end-1) { v = v[k+1]; }\n"
                   "  }\n"
                   "}\n");
    IrStencil *st = stencil0(&k);
    IrComputation *back = st->computations.items[0], *fwd = st->computations.items[1];
    ck_assert_int_eq(back->intervals.len, 3);
    ck_assert(back->intervals.items[0]->lo.from_end);
    ck_assert_int_eq(back->intervals.items[1]->lo.offset, 2);
    ck_assert_int_eq(back->intervals.items[2]->lo.offset, 0);
    ck_assert(!fwd->intervals.items[0]->lo.from_end);
    ck_assert(fwd->intervals.items[1]->lo.from_end);
    /* interval(2, end-1) needs NK >= 3 */
    ck_assert_int_eq(st->min_nk, 3);
    done(&k);
}
END_TEST

/* A temporary without K written in an interval that holds no level for small NK
   (interval(1, end) at NK = 1) and read later: the NK that interval needs to run joins
   min_nk, else the read found the temporary unassigned (uninitialized memory). */
START_TEST(test_kless_temp_min_nk)
{
    static const struct { const char *body; int64_t min_nk; } cases[] = {
        {"  field<double, IJ> t;\n"
         "  computation(forward) interval(1, end) { t = u; }\n"
         "  computation(parallel) interval(0, end) { v = t; }\n", 2},
        {"  field<double, IJ> t;\n"
         "  computation(forward) {\n"
         "    interval(0, end-3) { t = u; v = t; }\n"
         "    interval(end-3, end) { v = t; }\n"
         "  }\n", 4},
        /* the least over the writes that count: interval(0, 1) runs for every NK */
        {"  field<double, IJ> t;\n"
         "  computation(forward) interval(1, end) { t = u; }\n"
         "  computation(forward) interval(0, 1) { t = u; }\n"
         "  computation(parallel) interval(0, end) { v = t; }\n", 1},
        /* a writer that holds a level whenever the reader does needs nothing: an empty
           domain (NK = 0) stays a valid call */
        {"  field<double, IJ> t = 0.0;\n"
         "  computation(forward) interval(0, end) { v = t + u; }\n", 0},
        /* a write earlier in the reading interval needs nothing */
        {"  field<double, IJ> t;\n"
         "  computation(forward) interval(2, end) { t = u; v = t; }\n", 2},
    };
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
        char src[512];
        snprintf(src, sizeof src, "stencil s(field<double> u, field<double> v) {\n%s}\n",
                 cases[n].body);
        Comp k;
        compile_ok(&k, src);
        ck_assert_int_eq(stencil0(&k)->min_nk, cases[n].min_nk);
        done(&k);
    }
}
END_TEST

/* An if whose branches hold regions is split into pieces on a mask (sema.c split_if);
   a temporary both branches write is still definitely written after them, where both
   regions cover the read (docs/language.md section 7, rule 4). */
START_TEST(test_region_if_definite)
{
    static const struct { const char *body; int errors; } cases[] = {
        {"if (u > 0.0) { region(i(0, end)) { t = 1.0; } } else { t = 2.0; } v = t;", 0},
        {"if (u > 0.0) { region(i(0, end)) { t = 1.0; } } else { region(i(0, end)) { t = 2.0; } } "
         "v = t;", 0},
        {"if (u > 0.0) { region(i(0, end + 1)) { t = 1.0; } } else { t = 2.0; } v = t[i+1];", 0},
        {"if (u > 0.0) { if (u > 1.0) { region(i(0, end)) { t = 1.0; } } else "
         "{ region(i(0, end)) { t = 5.0; } } } else { t = 2.0; } v = t;", 0},
        /* an if split by region in a branch of another: its pieces are spread over the
           outer one's pieces, and its mask is still computed before they read it */
        {"if (u > 0.0) { t = 1.0; } else if (u > -1.0) { t = 2.0; } else "
         "{ region(j(0, end)) { if (u < -2.0) { region(i(0, end)) { t = 5.0; } } "
         "else { t = 6.0; } } } v = t;", 0},
        /* branches in different regions: t is written where both are */
        {"if (u > 0.0) { region(i(0, end)) { t = 1.0; } } else { region(j(0, end)) { t = 2.0; } } "
         "v = t;", 0},
        /* the reads are not covered: each an error, as before */
        {"if (u > 0.0) { region(i(0, end)) { t = 1.0; } } else { t = 2.0; } v = t[i+1];", 1},
        {"if (u > 0.0) { region(i(0, end)) { t = 1.0; } } v = t;", 1},
        {"if (u > 0.0) { region(i(1, end)) { t = 1.0; } } else { region(j(0, end)) { t = 2.0; } } "
         "v = t;", 1},
        {"if (u > 0.0) { region(i(0, end)) { t = 1.0; } } else { v = t; t = 2.0; }", 1},
    };
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
        char src[512];
        snprintf(src, sizeof src, "stencil s(field<double> u, field<double> v) {\n"
                 "  field<double, IJK> t;\n  %s\n}\n", cases[n].body);
        Comp k;
        compile(&k, src);
        ck_assert_msg(k.c->diag.errors == cases[n].errors, "case %zu: %d errors", n,
                      k.c->diag.errors);
        done(&k);
    }
}
END_TEST

/* ------------------------------------------------------- boundaries, names */

START_TEST(test_boundaries)
{
    Comp k;
    compile_ok(&k, "const double C = 0.25;\n"
                   "stencil s(field<double> u, field<double> w, field<double> v) {\n"
                   "  boundary u: periodic;\n"
                   "  boundary w(k): dirichlet(4.0 * C);\n"
                   "  v = u[i+1] + w[k-1];\n"
                   "}\n");
    IrStencil *st = stencil0(&k);
    IrField *u = field(st, "u"), *w = field(st, "w");
    ck_assert_int_eq(u->bc[AXIS_I].kind, BC_PERIODIC);
    ck_assert_int_eq(u->bc[AXIS_J].kind, BC_PERIODIC);
    ck_assert_int_eq(u->bc[AXIS_K].kind, BC_NONE);
    ck_assert_int_eq(w->bc[AXIS_K].kind, BC_DIRICHLET);
    ck_assert(w->bc[AXIS_K].value == 1.0);
    ck_assert_int_eq(w->bc[AXIS_I].kind, BC_NONE);
    done(&k);
}
END_TEST

START_TEST(test_block_local_unique_names)
{
    Comp k;
    compile_ok(&k, "stencil s(field<double> u, field<double> v, double t_2) {\n"
                   "  if (u > 0.0) { double t = u; v = t; } else { double t = -u; v = t; }\n"
                   "}\n");
    IrStencil *st = stencil0(&k);
    ck_assert(field(st, "t")->block_local);
    ck_assert(has_field(st, "t_3"));   /* t_2 is taken by the scalar */
    done(&k);
}
END_TEST

START_TEST(test_many_programs_one_process)
{
    /* The arena must really be released: run under ASan, this leaks nothing. */
    for (int i = 0; i < 50; i++) {
        Comp k;
        compile_ok(&k, "function lap(f) { return 4.0 * f - (f[i-1] + f[i+1] + f[j-1] + f[j+1]); }\n"
                       "stencil s(field<double> u, field<double> v) { double l = lap(u); v = lap(l); }\n");
        done(&k);
    }
}
END_TEST

/* ----------------------------------------------------------------- errors */

/* One program per "error" rule, with a piece of the message it must give. */
static const struct {
    const char *program;
    const char *message;
} errors[] = {
    {"stencil s(field<double> u, field<double> v) { computation(parallel) {"
     " interval(0, 2) { v = u; } interval(1, end) { v = u; } } }",
     "interval(1, end) overlaps interval(0, 2)"},
    {"stencil s(field<double> u, field<double> v) { computation(forward) {"
     " interval(end, 0) { v = u; } } }", "interval(end, 0) is reversed"},
    {"stencil s(field<double> u, field<double> v) { double t = u; double t = u; v = t; }",
     "temporary 't' is already declared"},
    {"stencil s(field<double> u, field<double> v) { if (u > 0.0) { double t = u; v = t[i+1]; } }",
     "can be read only at zero offset"},
    {"stencil s(field<double> u, field<double> v) { v = u % 2.0; }",
     "operator '%' needs int operands"},
    {"stencil s(field<int> n, field<double> v) { if (n) v = 1.0; }",
     "the condition of an if must be bool, not int"},
    {"stencil s(field<double, IJ> p, field<double> v) { v = p[k+1]; }",
     "field 'p' has no axis K; it cannot be read at k+1"},
    {"stencil s(field<double> u, field<double> v) { v = sum(u); }",
     "sum(e) reduces over the whole compute domain"},
    {"stencil s(field<double> u, out double t) { computation(forward) {"
     " interval(0, end) { t = sum(u); } } }", "must be in a computation(parallel)"},
    {"function f(x) { return f(x); } stencil s(field<double> u, field<double> v) { v = f(u); }",
     "function 'f' calls itself"},
    {"function f(x) { return g(x); } function g(x) { return f(x); }"
     " stencil s(field<double> u, field<double> v) { v = u; }", "recursive functions: f -> g -> f"},
    {"function f(x) { return g(x); } function g(x) { return x; }"
     " stencil s(field<double> u, field<double> v) { v = f(u); }",
     "function 'g' is called before its declaration"},
    {"function f(a, b) { return a + b; } stencil s(field<double> u, field<double> v) { v = f(u); }",
     "function 'f' takes 2 arguments, but 1 is given"},
    {"stencil s(field<double> u, field<double, IJ> v) { v = u; }",
     "cannot assign a value of shape IJK to 'v' of axes IJ"},
    {"stencil s(field<double> u, field<double> v, field<double> w) { v = u; w = v[i+1]; }",
     "field 'v' is written in this computation"},
    {"stencil s(field<double> u, field<double> v) { double t = u; v = t[k-1]; }",
     "no earlier statement computes it at level -1"},
    {"stencil s(field<double> u, field<double> v) { computation(forward) {"
     " interval(0, end) { double t = u; v = t[k+1]; } } }", "computed later"},
    {"stencil s(field<double> u, field<double> v) { boundary v: periodic; v = u; }",
     "field 'v' is written by this stencil"},
    {"stencil s(field<double> u, field<double> v) { double t = u; boundary t: periodic; v = t; }",
     "'t' is a temporary; boundary conditions apply to input fields only"},
    {"stencil s(field<double> u, field<double> v) { boundary u: periodic;"
     " boundary u(i): mirror; v = u; }", "already has a boundary condition along I"},
    {"stencil s(field<double, IJ> u, field<double> v) { boundary u(k): neumann; v = u; }",
     "field 'u' has no axis K"},
    {"stencil s(field<double> u, double a) { double t = a * u; }", "writes no output"},
    {"stencil s(field<double> u, out double t) { }", "out scalar 't' is never assigned"},
    {"stencil s(field<double> u, out double t) { t = sum(u); t = max(u); }",
     "out scalar 't' is assigned twice"},
    {"stencil s(field<double> u, out double t) { t = 1.0; }",
     "out scalar 't' can only be assigned a reduction"},
    {"stencil s(field<double> u, field<double> v, double a) { a = 1.0; v = u; }",
     "scalar parameter 'a' is an input"},
    {"const double X = 1.0; function X(a) { return a; }"
     " stencil s(field<double> u, field<double> v) { v = u; }", "'X' is already defined"},
    {"stencil s(field<double> u, field<double> u) { u = 1.0; }",
     "parameter 'u' is declared twice"},
    {"stencil s(field<double> sqrt, field<double> v) { v = sqrt; }",
     "parameter 'sqrt' has the name of a builtin function"},
    {"stencil s(field<double> u, field<double> v) { v = t; double t = u; }",
     "'t' is used before its declaration"},
    {"stencil s(field<double> u, field<double> v) { x = u; v = u; }",
     "assignment to undeclared name 'x'; declare it first"},
    {"stencil s(field<double> u, field<int> n) { n = u; }",
     "cannot assign a double value to int 'n'"},
    {"stencil s(field<double> u, field<bool> b) { b = u; }",
     "cannot assign a double value to bool 'b'"},
    {"stencil s(field<int> n) { n = n / 0; }", "integer division by zero"},
    {"stencil s(field<int> n) { n = 2147483647 + 1; }", "integer overflow"},
    {"stencil s(field<double> u, field<double> v) { v = u; v = v[i+1] + 1.0; }",
     "'v' is read at i+1 by the statement that writes it"},
    {"stencil s(field<double> u, field<double> v) { double t = u; t = t[i+1]; v = t; }",
     "by the statement that writes it"},
    {"stencil s(field<double> u, field<double> v) { computation(forward) {"
     " interval(0, 1) { double t = u; } interval(1, end) { v = t[i+1, k-1]; t = v; } } }",
     "before it is written in this forward computation"},
    {"stencil s(field<double, IJ> p, field<double, IJ> v) { v = sum(p, k); }",
     "does not vary along K"},
    {"const double C = index(i); stencil s(field<double> v) { v = C; }",
     "not a compile-time constant"},
    {"function f(x) { return x + u; } stencil s(field<double> u, field<double> v) { v = u; }",
     "a function sees only its parameters"},
    {"function f(x) { double a = x; return a[i+1]; }"
     " stencil s(field<double> u, field<double> v) { v = f(u); }",
     "local 'a' of function 'f' is a scalar"},
    {"stencil s(field<double> u, out double t) { if (u > 0.0) { t = sum(u); } }",
     "cannot be inside an if"},
    {"stencil s(field<double> u, out double t, field<double> v) { v = t; t = sum(u); }",
     "out scalar 't' cannot be read"},
    {"stencil s(field<int> n) { n = 3000000000; }", "does not fit in int"},
    {"function f(x) { return x + x[i+1]; }\n"
     "stencil s(field<double> o) { double p = 0.0; p = f(o); o = p; }",
     "2:52: error: field 'o' is written in this computation, so it can be read in it only at "
     "zero horizontal offset, not at i+1"},
    {"function f(x) { return x + x[i+1]; }\n"
     "stencil s(field<double> o) { double p = 0.0; p = f(o); o = p; }",
     "1:28: note: through this read at an offset in function 'f'"},
    {"stencil s(field<float> u, field<float> r) { float t = 1e300; r = u * t; }",
     "floating literal 1e+300 is out of range for float (at most 3.40282347e+38)"},
    /* just past the largest float: both numbers in enough digits to tell them apart (it
       said "3.40282e+38 is out of range for float (at most 3.40282e+38)") */
    {"stencil s(field<float> r) { r = float(3.4028236e38); }",
     "floating literal 3.4028236e+38 is out of range for float (at most 3.40282347e+38)"},
    {"stencil s(field<float> u, field<float> r) { r = u * 2.0 + 1e39; }",
     "floating literal 1e+39 is out of range for float"},
    {"const float big = 4e38; stencil s(field<float> u, field<float> r) { r = u + big; }",
     "floating literal 4e+38 is out of range for float"},
    {"stencil s(field<double> u, field<float> r) { r = float(u) + float(1e40); }",
     "floating literal 1e+40 is out of range for float"},
    {"function up(f) { return f[k+1]; }"
     " stencil s(field<double, IJ> p, field<double> v) { v = up(p); }",
     "parameter 'f' of function 'up' is bound to it"},
};

START_TEST(test_error_rules)
{
    Comp k;
    compile(&k, errors[_i].program);
    ck_assert_msg(k.c->diag.errors >= 1, "no error for: %s", errors[_i].program);
    ck_assert_msg(strstr(k.diag, errors[_i].message) != NULL,
                  "expected '%s' for:\n%s\ngot:\n%s", errors[_i].message, errors[_i].program,
                  k.diag);
    done(&k);
}
END_TEST

START_TEST(test_errors_keep_going)
{
    /* Independent errors in one stencil are all reported. */
    Comp k;
    compile(&k, "stencil s(field<double> u, field<int> n, field<double> v) {\n"
                "  n = u;\n"
                "  v = u % 2.0;\n"
                "  v = w;\n"
                "}\n");
    ck_assert_int_eq(k.c->diag.errors, 3);
    done(&k);
}
END_TEST

START_TEST(test_errors_once_each)
{
    /* A call's argument copied into both results of a multiple assignment is
     * checked in each copy: its error is shown (and counted) once. The same
     * error at another place is still shown. */
    Comp k;
    compile(&k, "function two(x) { return max(x, 0.0), min(x, 0.0); }\n"
                "stencil s(field<double> a, field<double> o) {\n"
                "  double p = 0.0; double m = 0.0;\n"
                "  p, m = two(o[i+1]); o = p - m + a;\n"
                "  p, m = two(o[i+1]);\n"
                "}\n");
    ck_assert_int_eq(k.c->diag.errors, 2);
    const char *first = strstr(k.diag, ":4:");
    ck_assert_ptr_nonnull(first);
    ck_assert_ptr_null(strstr(first + 1, ":4:"));
    ck_assert_ptr_nonnull(strstr(k.diag, ":5:"));
    done(&k);
}
END_TEST

START_TEST(test_inline_budget)
{
    Comp k;
    compile(&k, "function lap(f) { return 4.0 * f - (f[i-1] + f[i+1] + f[j-1] + f[j+1]); }\n"
                "function l3(f) { return lap(lap(lap(f))); }\n"
                "function l9(f) { return l3(l3(l3(f))); }\n"
                "stencil s(field<double> u, field<double> v) { v = l9(u); }\n");
    ck_assert_int_eq(k.c->diag.errors, 1);
    ck_assert_ptr_nonnull(strstr(k.diag, "store an intermediate result in a temporary"));
    done(&k);
}
END_TEST

Suite *suite_sema(void);
Suite *suite_sema(void)
{
    Suite *s = suite_create("sema");
    TCase *tc = tcase_create("types");
    tcase_add_test(tc, test_float_literals_adapt);
    tcase_add_test(tc, test_usual_conversions_insert_casts);
    tcase_add_test(tc, test_builtin_types);
    suite_add_tcase(s, tc);
    tc = tcase_create("shapes");
    tcase_add_test(tc, test_shapes_union);
    tcase_add_test(tc, test_column_accumulator);
    suite_add_tcase(s, tc);
    tc = tcase_create("intents");
    tcase_add_test(tc, test_intents);
    suite_add_tcase(s, tc);
    tc = tcase_create("inline");
    tcase_add_test(tc, test_inline_biharmonic);
    tcase_add_test(tc, test_inline_locals_and_shifts);
    tcase_add_test(tc, test_inline_weak_argument);
    tcase_add_test(tc, test_errors_once_each);
    tcase_add_test(tc, test_inline_budget);
    suite_add_tcase(s, tc);
    tc = tcase_create("fold");
    tcase_add_test(tc, test_fold_and_defines);
    tcase_add_test(tc, test_fold_float_semantics);
    tcase_add_test(tc, test_define_unused_warns);
    suite_add_tcase(s, tc);
    tc = tcase_create("structure");
    tcase_add_test(tc, test_interval_order);
    tcase_add_test(tc, test_kless_temp_min_nk);
    tcase_add_test(tc, test_region_if_definite);
    tcase_add_test(tc, test_boundaries);
    tcase_add_test(tc, test_block_local_unique_names);
    tcase_add_test(tc, test_many_programs_one_process);
    suite_add_tcase(s, tc);
    tc = tcase_create("errors");
    tcase_add_loop_test(tc, test_error_rules, 0, (int)(sizeof errors / sizeof errors[0]));
    tcase_add_test(tc, test_errors_keep_going);
    suite_add_tcase(s, tc);
    return s;
}
