/* check_parser.c: the parser (grammar/stencil.y) from strings, in process:
 * the AST of each construct of language.md, precedence, the grouping of
 * top-level statements into implicit computations, and the syntax errors,
 * their recovery and their limit. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef Comp Parse;

static void parse(Parse *p, const char *text)
{
    comp_open(p);
    p->m = parse_string(p->c, "t.stn", text);
    fflush(p->out);
}

/* Parses text that must be free of errors. */
static void parse_ok(Parse *p, const char *text)
{
    parse(p, text);
    assert_no_errors(p);
    ck_assert_ptr_nonnull(p->m);
}

/* The statements of the only implicit computation of the first stencil. */
static StmtVec *body_stmts(Parse *p)
{
    Stencil *s = p->m->stencils.items[0];
    ck_assert_int_ge(s->body.len, 1);
    BodyItem *it = &s->body.items[s->body.len - 1];
    ck_assert_int_eq(it->kind, ITEM_COMPUTATION);
    ck_assert(it->computation->implicit);
    return &it->computation->intervals.items[0]->stmts;
}

/* The value of the first statement of `stencil s(...) { x = EXPR; }`. */
static Expr *rhs(Parse *p, const char *expr)
{
    char text[512];
    snprintf(text, sizeof text, "stencil s(field<double> u, field<double> x) { x = %s; }", expr);
    parse_ok(p, text);
    Stmt *st = body_stmts(p)->items[0];
    ck_assert_int_eq(st->kind, STMT_ASSIGN);
    return st->assign.value;
}

static const char hdiff[] =
    "function lap(f) { return 4.0 * f - (f[i-1] + f[i+1] + f[j-1] + f[j+1]); }\n"
    "\n"
    "stencil hdiff(field<double> u, field<double> coeff, field<double> out_u) {\n"
    "  double l   = lap(u);\n"
    "  double flx = l[i+1] - l;\n"
    "  if (flx * (u[i+1] - u) > 0.0) flx = 0.0;\n"
    "  double fly = l[j+1] - l;\n"
    "  if (fly * (u[j+1] - u) > 0.0) fly = 0.0;\n"
    "  out_u = u - coeff * (flx - flx[i-1] + fly - fly[j-1]);\n"
    "}\n";

START_TEST(test_hdiff)
{
    Parse p;
    parse_ok(&p, hdiff);
    ck_assert_int_eq(p.m->functions.len, 1);
    Function *f = p.m->functions.items[0];
    ck_assert_str_eq(f->name, "lap");
    ck_assert_int_eq(f->params.len, 1);
    ck_assert_str_eq(f->params.items[0], "f");
    ck_assert_int_eq(f->param_locs.items[0].col, 14);
    ck_assert_int_eq(f->body.len, 1);
    ck_assert_int_eq(f->body.items[0]->kind, STMT_RETURN);
    ck_assert_int_eq(f->body.items[0]->ret.values.len, 1);
    Expr *ret = f->body.items[0]->ret.values.items[0];
    ck_assert_int_eq(ret->kind, EXPR_BINARY);
    ck_assert_int_eq(ret->op.op, OP_SUB);

    ck_assert_int_eq(p.m->stencils.len, 1);
    Stencil *s = p.m->stencils.items[0];
    ck_assert_str_eq(s->name, "hdiff");
    ck_assert_int_eq(s->loc.line, 3);
    ck_assert_int_eq(s->params.len, 3);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(s->params.items[i]->kind, PARAM_FIELD);
        ck_assert_int_eq(s->params.items[i]->type, TY_DOUBLE);
        ck_assert_uint_eq(s->params.items[i]->axes, AXES_IJK);
    }
    ck_assert_str_eq(s->params.items[2]->name, "out_u");
    /* Six top-level statements, one implicit computation. */
    ck_assert_int_eq(s->body.len, 1);
    Computation *comp = s->body.items[0].computation;
    ck_assert(comp->implicit);
    ck_assert_int_eq(comp->order, ORDER_PARALLEL);
    ck_assert_int_eq(comp->intervals.len, 1);
    Interval *in = comp->intervals.items[0];
    ck_assert(!in->lo.from_end && in->lo.offset == 0);
    ck_assert(in->hi.from_end && in->hi.offset == 0);
    ck_assert_int_eq(in->stmts.len, 6);

    Stmt *l = in->stmts.items[0];
    ck_assert_int_eq(l->kind, STMT_DECL);
    ck_assert_str_eq(l->decl.name, "l");
    ck_assert(!l->decl.is_field);
    ck_assert_uint_eq(l->decl.axes, AXES_IJK);
    ck_assert_int_eq(l->decl.init->kind, EXPR_CALL);
    ck_assert_str_eq(l->decl.init->call.name, "lap");
    ck_assert_int_eq(l->decl.init->call.args.len, 1);
    ck_assert(!l->decl.init->call.along_k);

    Stmt *iff = in->stmts.items[2];
    ck_assert_int_eq(iff->kind, STMT_IF);
    ck_assert(!iff->iff.has_else);
    ck_assert_int_eq(iff->iff.then.len, 1);
    ck_assert_int_eq(iff->iff.cond->op.op, OP_GT);
    Stmt *then = iff->iff.then.items[0];
    ck_assert_int_eq(then->kind, STMT_ASSIGN);
    ck_assert_int_eq(then->assign.op, OP_PLUS);
    ck_assert_int_eq(then->assign.value->kind, EXPR_FLOAT);
    ck_assert_str_eq(then->assign.value->flit.text, "0.0");

    Stmt *flx = in->stmts.items[1];
    Expr *acc = flx->decl.init->op.a;
    ck_assert_int_eq(acc->kind, EXPR_ACCESS);
    ck_assert(acc->access.has_brackets);
    ck_assert_int_eq(acc->access.noffsets, 1);
    ck_assert_int_eq(acc->access.offsets[0].axis, AXIS_I);
    ck_assert_int_eq(acc->access.offsets[0].value, 1);
    Expr *plain = flx->decl.init->op.b;
    ck_assert(!plain->access.has_brackets);
    ck_assert_int_eq(plain->access.noffsets, 0);
    done(&p);
}
END_TEST

static const char tridiagonal[] = TRIDIAGONAL_STN;

START_TEST(test_tridiagonal)
{
    Parse p;
    parse_ok(&p, tridiagonal);
    Stencil *s = p.m->stencils.items[0];
    ck_assert_int_eq(s->params.len, 5);
    ck_assert_int_eq(s->body.len, 2);
    Computation *fw = s->body.items[0].computation;
    Computation *bw = s->body.items[1].computation;
    ck_assert(!fw->implicit && !bw->implicit);
    ck_assert_int_eq(fw->order, ORDER_FORWARD);
    ck_assert_int_eq(bw->order, ORDER_BACKWARD);
    ck_assert_int_eq(fw->loc.line, 3);
    ck_assert_int_eq(fw->intervals.len, 2);
    Interval *i0 = fw->intervals.items[0], *i1 = fw->intervals.items[1];
    ck_assert(!i0->lo.from_end && i0->lo.offset == 0 && !i0->hi.from_end && i0->hi.offset == 1);
    ck_assert(!i1->lo.from_end && i1->lo.offset == 1 && i1->hi.from_end && i1->hi.offset == 0);
    ck_assert_int_eq(i0->stmts.len, 2);
    ck_assert_int_eq(i1->stmts.len, 3);
    ck_assert_int_eq(i1->hi_loc.line, 5);
    ck_assert_int_eq(i1->hi_loc.col, 17);
    Interval *b0 = bw->intervals.items[0], *b1 = bw->intervals.items[1];
    ck_assert(b0->lo.from_end && b0->lo.offset == -1 && b0->hi.from_end && b0->hi.offset == 0);
    ck_assert(!b1->lo.from_end && b1->lo.offset == 0 && b1->hi.from_end && b1->hi.offset == -1);
    Expr *xk = b1->stmts.items[0]->assign.value->op.b->op.b;
    ck_assert_str_eq(xk->access.name, "x");
    ck_assert_int_eq(xk->access.offsets[0].axis, AXIS_K);
    ck_assert_int_eq(xk->access.offsets[0].value, 1);
    done(&p);
}
END_TEST

START_TEST(test_heat_and_pressure)
{
    Parse p;
    parse_ok(&p, "stencil heat(field<double> u, field<double> unew, double alpha) {\n"
                 "  boundary u: periodic;\n"
                 "  unew = u + alpha * (u[i-1] + u[i+1] + u[j-1] + u[j+1] - 4.0 * u);\n"
                 "}\n"
                 "stencil pressure(field<double, IJ> ps, field<double, K> ak, field<double, K> bk,\n"
                 "                 field<double> p, out double pmax) {\n"
                 "  p = ak + bk * ps;\n"
                 "  pmax = max(p);\n"
                 "}\n");
    Stencil *heat = p.m->stencils.items[0];
    ck_assert_int_eq(heat->params.items[2]->kind, PARAM_SCALAR);
    ck_assert_int_eq(heat->body.len, 2);
    ck_assert_int_eq(heat->body.items[0].kind, ITEM_BOUNDARY);
    BoundaryDecl *bc = heat->body.items[0].boundary;
    ck_assert_str_eq(bc->field, "u");
    ck_assert_int_eq(bc->kind, BC_PERIODIC);
    ck_assert_uint_eq(bc->axes, AXES_NONE);
    ck_assert_ptr_null(bc->value);
    ck_assert_int_eq(heat->body.items[1].kind, ITEM_COMPUTATION);

    Stencil *pr = p.m->stencils.items[1];
    ck_assert_uint_eq(pr->params.items[0]->axes, AXES_IJ);
    ck_assert_uint_eq(pr->params.items[1]->axes, AXES_K);
    ck_assert_int_eq(pr->params.items[4]->kind, PARAM_OUT_SCALAR);
    ck_assert_str_eq(pr->params.items[4]->name, "pmax");
    ck_assert_int_eq(pr->body.len, 1);
    StmtVec *st = &pr->body.items[0].computation->intervals.items[0]->stmts;
    ck_assert_int_eq(st->len, 2);
    Expr *mx = st->items[1]->assign.value;
    ck_assert_int_eq(mx->kind, EXPR_CALL);
    ck_assert_str_eq(mx->call.name, "max");
    ck_assert_int_eq(mx->call.args.len, 1);
    done(&p);
}
END_TEST

START_TEST(test_program_items)
{
    Parse p;
    parse_ok(&p, "import \"lib/a.stn\";\n"
                 "const double C = 2.5;\n"
                 "const bool FLAG = true;\n"
                 "import \"b.stn\";\n"
                 "function zero() { return 0; }\n"
                 "function f(a, b) { double t = a * b; float u = t; return t + u; }\n");
    ck_assert_int_eq(p.m->imports.len, 2);
    ck_assert_str_eq(p.m->imports.items[0]->path, "lib/a.stn");
    ck_assert_int_eq(p.m->imports.items[0]->loc.col, 8);
    ck_assert_ptr_null(p.m->imports.items[0]->module);
    ck_assert_int_eq(p.m->consts.len, 2);
    ck_assert_str_eq(p.m->consts.items[0]->name, "C");
    ck_assert_int_eq(p.m->consts.items[0]->type, TY_DOUBLE);
    ck_assert_int_eq(p.m->consts.items[1]->value->kind, EXPR_BOOL);
    ck_assert(p.m->consts.items[1]->value->bval);
    ck_assert_int_eq(p.m->functions.len, 2);
    ck_assert_int_eq(p.m->functions.items[0]->params.len, 0);
    Function *f = p.m->functions.items[1];
    ck_assert_int_eq(f->params.len, 2);
    ck_assert_int_eq(f->body.len, 3);   /* two locals, then the return */
    ck_assert_int_eq(f->body.items[1]->kind, STMT_DECL);
    ck_assert_int_eq(f->body.items[1]->decl.type, TY_FLOAT);
    ck_assert_int_eq(f->body.items[2]->kind, STMT_RETURN);
    ck_assert_int_eq(p.m->stencils.len, 0);
    done(&p);
}
END_TEST

START_TEST(test_precedence)
{
    Parse p;
    Expr *e = rhs(&p, "u + u * 2");
    ck_assert_int_eq(e->op.op, OP_ADD);
    ck_assert_int_eq(e->op.b->op.op, OP_MUL);
    done(&p);

    e = rhs(&p, "u - u - u");     /* left associative */
    ck_assert_int_eq(e->op.op, OP_SUB);
    ck_assert_int_eq(e->op.a->kind, EXPR_BINARY);
    ck_assert_int_eq(e->op.b->kind, EXPR_ACCESS);
    done(&p);

    e = rhs(&p, "u > 0.0 ? u : u < 0.0 ? -u : u");   /* right associative */
    ck_assert_int_eq(e->kind, EXPR_COND);
    ck_assert_int_eq(e->cond.cond->op.op, OP_GT);
    ck_assert_int_eq(e->cond.els->kind, EXPR_COND);
    ck_assert_int_eq(e->cond.els->cond.then->kind, EXPR_UNARY);
    ck_assert_int_eq(e->cond.els->cond.then->op.op, OP_NEG);
    ck_assert_ptr_null(e->cond.els->cond.then->op.b);
    done(&p);

    e = rhs(&p, "!(u > 1.0) && u < 2.0 || u == 3.0 && u != 4.0");
    ck_assert_int_eq(e->op.op, OP_OR);
    ck_assert_int_eq(e->op.a->op.op, OP_AND);
    ck_assert_int_eq(e->op.a->op.a->op.op, OP_NOT);
    ck_assert_int_eq(e->op.b->op.op, OP_AND);
    ck_assert_int_eq(e->op.b->op.a->op.op, OP_EQ);
    done(&p);

    e = rhs(&p, "u <= 1 == u >= 2");   /* relational binds tighter than equality */
    ck_assert_int_eq(e->op.op, OP_EQ);
    ck_assert_int_eq(e->op.a->op.op, OP_LE);
    ck_assert_int_eq(e->op.b->op.op, OP_GE);
    done(&p);

    e = rhs(&p, "-u * +u % 3 / 2");
    ck_assert_int_eq(e->op.op, OP_DIV);
    ck_assert_int_eq(e->op.a->op.op, OP_MOD);
    ck_assert_int_eq(e->op.a->op.a->op.op, OP_MUL);
    ck_assert_int_eq(e->op.a->op.a->op.a->op.op, OP_NEG);
    ck_assert_int_eq(e->op.a->op.a->op.b->op.op, OP_PLUS);
    done(&p);

    e = rhs(&p, "(u + u) * u");
    ck_assert_int_eq(e->op.op, OP_MUL);
    ck_assert_int_eq(e->op.a->op.op, OP_ADD);
    ck_assert_int_eq(e->loc.col, 59);   /* a binary expression is located at its operator */
    done(&p);
}
END_TEST

START_TEST(test_accesses_and_calls)
{
    Parse p;
    Expr *e = rhs(&p, "u[j-1, k+1]");
    ck_assert_int_eq(e->access.noffsets, 2);
    ck_assert_int_eq(e->access.offsets[0].axis, AXIS_J);
    ck_assert_int_eq(e->access.offsets[0].value, -1);
    ck_assert_int_eq(e->access.offsets[1].axis, AXIS_K);
    ck_assert_int_eq(e->access.offsets[1].value, 1);
    done(&p);

    e = rhs(&p, "u[k, j+2, i-3]");
    ck_assert_int_eq(e->access.noffsets, 3);
    ck_assert_int_eq(e->access.offsets[0].value, 0);
    ck_assert_int_eq(e->access.offsets[2].axis, AXIS_I);
    ck_assert_int_eq(e->access.offsets[2].value, -3);
    done(&p);

    e = rhs(&p, "sum(u * u, k) + min(u, k) + atan2(u, 1.0) + index(j)");
    Expr *s = e->op.a->op.a->op.a;
    ck_assert_int_eq(s->kind, EXPR_CALL);
    ck_assert_str_eq(s->call.name, "sum");
    ck_assert(s->call.along_k);
    ck_assert_int_eq(s->call.args.len, 1);
    ck_assert(e->op.a->op.a->op.b->call.along_k);
    Expr *at2 = e->op.a->op.b;
    ck_assert(!at2->call.along_k);
    ck_assert_int_eq(at2->call.args.len, 2);
    ck_assert_int_eq(e->op.b->kind, EXPR_INDEX);
    ck_assert_int_eq(e->op.b->index.axis, AXIS_J);
    done(&p);

    e = rhs(&p, "true ? 1 : 2");
    ck_assert_int_eq(e->cond.cond->kind, EXPR_BOOL);
    ck_assert_int_eq(e->cond.then->kind, EXPR_INT);
    ck_assert_int_eq(e->cond.then->ival, 1);
    done(&p);
}
END_TEST

START_TEST(test_statements)
{
    Parse p;
    parse_ok(&p, "stencil s(field<double> u, field<double> x, field<int, IK> n) {\n"
                 "  x += u; x -= u; x *= 2.0; x /= 2.0;\n"
                 "  field<float, IJ> t = u;\n"
                 "  field<bool, K> flag;\n"
                 "  int c = 1;\n"
                 "  if (u > 0.0) { x = 1.0; x = 2.0; } else if (u < 0.0) x = 3.0; else { }\n"
                 "}\n");
    StmtVec *st = body_stmts(&p);
    ck_assert_int_eq(st->len, 8);
    ck_assert_int_eq(st->items[0]->assign.op, OP_ADD);
    ck_assert_int_eq(st->items[1]->assign.op, OP_SUB);
    ck_assert_int_eq(st->items[2]->assign.op, OP_MUL);
    ck_assert_int_eq(st->items[3]->assign.op, OP_DIV);
    ck_assert_str_eq(st->items[3]->assign.name, "x");
    ck_assert_int_eq(st->items[3]->assign.name_loc.col, 29);
    Stmt *t = st->items[4];
    ck_assert(t->decl.is_field);
    ck_assert_int_eq(t->decl.type, TY_FLOAT);
    ck_assert_uint_eq(t->decl.axes, AXES_IJ);
    ck_assert_ptr_nonnull(t->decl.init);
    ck_assert_int_eq(t->decl.name_loc.col, 20);
    Stmt *flag = st->items[5];
    ck_assert(flag->decl.is_field);
    ck_assert_uint_eq(flag->decl.axes, AXES_K);
    ck_assert_ptr_null(flag->decl.init);
    ck_assert_int_eq(st->items[6]->decl.type, TY_INT);
    Stmt *iff = st->items[7];
    ck_assert(iff->iff.has_else);
    ck_assert_int_eq(iff->iff.then.len, 2);
    ck_assert_int_eq(iff->iff.els.len, 1);
    Stmt *elif = iff->iff.els.items[0];
    ck_assert_int_eq(elif->kind, STMT_IF);
    ck_assert_int_eq(elif->iff.then.len, 1);
    ck_assert(elif->iff.has_else);
    ck_assert_int_eq(elif->iff.els.len, 0);
    ck_assert_uint_eq(p.m->stencils.items[0]->params.items[2]->axes, AXES_I | AXES_K);
    done(&p);

    /* The dangling else belongs to the nearest if. */
    parse_ok(&p, "stencil s(field<double> u, field<double> x) {\n"
                 "  if (u > 0.0) if (u > 1.0) x = 1.0; else x = 2.0;\n"
                 "}\n");
    Stmt *outer = body_stmts(&p)->items[0];
    ck_assert(!outer->iff.has_else);
    ck_assert(outer->iff.then.items[0]->iff.has_else);
    done(&p);
}
END_TEST

START_TEST(test_implicit_grouping)
{
    Parse p;
    parse_ok(&p, "stencil s(field<double> u, field<double> x) {\n"
                 "  x = u;\n"
                 "  boundary u(i, k): dirichlet(-1.5);\n"
                 "  x = x + u;\n"
                 "  computation(forward) interval(0, end) { x = x[k-1]; }\n"
                 "  x = 2.0 * x;\n"
                 "  computation(parallel) { }\n"
                 "}\n");
    Stencil *s = p.m->stencils.items[0];
    ck_assert_int_eq(s->body.len, 5);
    ck_assert_int_eq(s->body.items[4].computation->intervals.len, 0);
    /* A boundary declaration does not split the implicit computation. */
    Computation *c1 = s->body.items[0].computation;
    ck_assert(c1->implicit);
    ck_assert_int_eq(c1->intervals.items[0]->stmts.len, 2);
    BoundaryDecl *bc = s->body.items[1].boundary;
    ck_assert_int_eq(bc->kind, BC_DIRICHLET);
    ck_assert_uint_eq(bc->axes, AXES_I | AXES_K);
    ck_assert_int_eq(bc->value->kind, EXPR_UNARY);
    ck_assert_int_eq(bc->field_loc.col, 12);
    Computation *c2 = s->body.items[2].computation;
    ck_assert(!c2->implicit);
    ck_assert_int_eq(c2->order, ORDER_FORWARD);
    ck_assert_int_eq(c2->intervals.len, 1);
    Computation *c3 = s->body.items[3].computation;
    ck_assert(c3->implicit);
    ck_assert_int_eq(c3->intervals.items[0]->stmts.len, 1);
    done(&p);

    parse_ok(&p, "stencil s(field<double> u) { boundary u(k): neumann; boundary u: mirror; }");
    s = p.m->stencils.items[0];
    ck_assert_int_eq(s->body.len, 2);
    ck_assert_int_eq(s->body.items[0].boundary->kind, BC_NEUMANN);
    ck_assert_uint_eq(s->body.items[0].boundary->axes, AXES_K);
    ck_assert_int_eq(s->body.items[1].boundary->kind, BC_MIRROR);
    done(&p);
}
END_TEST

/* Syntax errors: the first line of the message each one must give. */
static const struct {
    const char *text;
    const char *message;
} errors[] = {
    {"stencil s(field<double> u) { u = u + 1 }",
     "t.stn:1:39: error: expected ';' after expression, saw '}'"},
    {"stencil s(field<double> u) { u = (u + 1; }",
     "t.stn:1:40: error: expected ')' to close '(', saw ';'"},
    {"stencil s(field<double> u) {\n u = f(u,\n 1; }",
     "t.stn:3:3: error: expected ',' or ')' to close '(' at line 2, saw ';'"},
    {"stencil s(field<double> u) { u = u[i+1, i-1]; }",
     "t.stn:1:41: error: axis 'i' appears twice in this offset; each axis may be given once"},
    {"stencil s(field<double> u) { u = u[1]; }",
     "error: expected 'i', 'j' or 'k', saw '1'; an offset is written like 'i+1' or 'k-1'"},
    {"stencil s(field<double> u) { u[i+1] = 1.0; }",
     "error: assignments always write at zero offset: write 'u = ...' without '[...]'"},
    {"stencil s(field<double> u) { computation(forward) interval(0, end + 1) { u = 1.0; } }",
     "error: a level cannot be above 'end'"},
    {"stencil s(field<double> u) { computation(forward) interval(-1, end) { u = 1.0; } }",
     "error: levels are counted from 0 at the bottom; write 'end - 1' to count from the top"},
    {"stencil s(field<double> u) { computation(forward) interval(0, N) { u = 1.0; } }",
     "error: a level is an integer, 'end' or 'end - N', not 'N'"},
    {"stencil s(field<double> u) { computation(forward) { u = 1.0; } }",
     "error: expected '}' or 'interval', saw 'u'; the statements of a computation go inside"},
    {"stencil s(field<double> u) { interval(0, end) { u = 1.0; } }",
     "error: expected statement or '}', saw 'interval'; 'interval' goes inside 'computation(...)'"},
    {"stencil s(field<double> u) { double end = 1.0; u = end; }",
     "t.stn:1:37: error: 'end' is a keyword and cannot be a name"},
    {"stencil s(field<double> u) { u = end; }",
     "error: expected expression, saw 'end'; 'end' is a keyword and cannot be a name"},
    {"stencil s(field<double> u) { u = k; }",
     "error: expected expression, saw 'k'; 'k' names an axis: write 'index(k)'"},
    {"stencil s(field<double> u) { if (u = 1.0) u = 2.0; }",
     "error: expected ')' to close '(', saw '='; did you mean '=='?"},
    {"stencil s(field<double> u) { else u = 2.0; }",
     "error: expected statement or '}', saw 'else'; 'else' without a matching 'if'"},
    {"stencil s(field<double, XY> u) { u = 1.0; }",
     "error: unknown axes 'XY'; expected IJK, IJ, IK, JK, I, J or K"},
    {"stencil s(field<double, KI> u) { u = 1.0; }",
     "error: axes are written in the order I, J, K: 'IK', not 'KI'"},
    {"stencil s(field<double, k> u) { u = 1.0; }", "error: axes are written in upper case: 'K'"},
    {"stencil s(field<double> u) { field<double> t; u = t; }",
     "error: a temporary field needs its axes: 'field<double, IJK> t'"},
    {"stencil s(field<double> u) { double t; }", "error: local 't' needs an initial value"},
    {"stencil s(field<double> u) { boundary u(i, i): periodic; }",
     "error: axis 'i' is listed twice"},
    {"stencil s(field<double> u) { u = sum(u, j); }",
     "error: a column reduction is along 'k' only"},
    {"function f(a) { double x = a; x }",
     "t.stn:1:33: error: expected '=', saw '}'"},
    {"function f(a) { double x = a; return x, }",
     "t.stn:1:41: error: expected expression, saw '}'"},
    {"const double C = 1.0\nstencil s(field<double> u) { u = C; }",
     "t.stn:1:21: error: expected ';' after expression, saw 'stencil'"},
    {"import \"a.stn\"\nconst int N = 1;", "error: expected ';' after import path, saw 'const'"},
    {"stencil s(field<double> u) {\n  u = 1.0;\n", "t.stn:2:11: error: expected statement or '}' "
     "to close '{' at line 1, saw end of file"},
    {"stencil s(field<double> u) { u = u @ 2; }", "error: invalid character '@' in program"},
    {"stencil s(field<double> u) { u = u & u; }",
     "error: invalid character '&' in program; did you mean '&&'?"},
    {"}", "t.stn:1:1: error: expected 'stencil', 'function', 'const' or 'import', saw '}'"},
    {"stencil s() { }", "error: expected type, 'field' or 'out', saw ')'"},
    {"stencil s(field<double> u) { u = 1.0; } /* open", "error: unterminated comment"},
    {"stencil s(field<double u) { u = 1.0; }", "t.stn:1:24: error: expected ',' or '>', saw 'u'"},
    {"stencil s(field<double> u) { u = max(u, ; }", "t.stn:1:41: error: expected expression, "
     "saw ';'"},
    {"stencil s(field<double> u) { for (i = 0; i < 3; i++) u = 1.0; }",
     "t.stn:1:34: error: expected '=', saw '('; there are no for loops"},
    {"stencil s(field<double> u) { while (u > 1.0) { u = u * 0.5; } u = u; while u > 0.0 {} }",
     "t.stn:1:76: error: expected '(', saw 'u'"},
    {"stencil s(field<double> while) { }", "'while' is a keyword and cannot be a name"},
};

START_TEST(test_errors)
{
    Parse p;
    parse(&p, errors[_i].text);
    ck_assert_int_ge(p.c->diag.errors, 1);
    ck_assert_msg(strstr(p.diag, errors[_i].message), "for: %s\nwanted: %s\ngot: %s",
                  errors[_i].text, errors[_i].message, p.diag);
    done(&p);
}
END_TEST

START_TEST(test_error_format)
{
    Parse p;
    parse(&p, "stencil s(field<double> u) {\n\tu = u +;\n}\n");
    ck_assert_str_eq(p.diag, "t.stn:2:9: error: expected expression, saw ';'\n"
                             " \tu = u +;\n"
                             " \t       ^\n");
    done(&p);
}
END_TEST

START_TEST(test_recovery)
{
    /* Independent errors in successive statements are all reported, and the
     * rest of the program is still parsed. */
    Parse p;
    parse(&p, "stencil s(field<double> u, field<double> v) {\n"
              "  v = u +* 2.0;\n"
              "  v = u[i+1, i];\n"
              "  if (u > (1.0) { v = 1.0; } else { v = 2.0; }\n"
              "  v = (u;\n"
              "  v = u\n"
              "  v = 3.0;\n"
              "}\n"
              "stencil t(field<double> u, field<double> v) { v = u; }\n");
    ck_assert_int_eq(p.c->diag.errors, 5);
    ck_assert_ptr_nonnull(strstr(p.diag, "t.stn:2:10: error: expected expression, saw '*'"));
    ck_assert_ptr_nonnull(strstr(p.diag, "t.stn:3:14: error: axis 'i' appears twice"));
    ck_assert_ptr_nonnull(strstr(p.diag, "t.stn:4:17: error: expected ')' to close '(', saw '{'"));
    ck_assert_ptr_nonnull(strstr(p.diag, "t.stn:5:9: error: expected ')' to close '(', saw ';'"));
    ck_assert_ptr_nonnull(strstr(p.diag, "t.stn:6:8: error: expected ';' after expression, "
                                         "saw 'v'"));
    ck_assert_int_eq(p.m->stencils.len, 2);
    /* v = 3.0 on line 7 survived the missing ';' before it. */
    StmtVec *st = &p.m->stencils.items[0]->body.items[0].computation->intervals.items[0]->stmts;
    ck_assert_int_eq(st->items[st->len - 1]->loc.line, 7);
    ck_assert_int_eq(p.m->stencils.items[1]->body.len, 1);
    done(&p);

    /* A ';' inside brackets opened after the error does not end the broken
     * statement: the for loop is one error, not three. */
    parse(&p, "stencil s(field<double> u, field<double> v) {\n"
              "  for (i = 0; i < 3; i++) { v = u; }\n"
              "  v = u +;\n"
              "}\n");
    ck_assert_int_eq(p.c->diag.errors, 2);
    ck_assert_ptr_nonnull(strstr(p.diag, "t.stn:3:10: error: expected expression, saw ';'"));
    done(&p);
}
END_TEST

START_TEST(test_error_limit)
{
    char text[4096] = "stencil s(field<double> u) {\n";
    for (int i = 0; i < 30; i++)
        strcat(text, "  u = u +;\n");
    strcat(text, "}\n");
    Parse p;
    parse(&p, text);
    ck_assert_int_eq(p.c->diag.errors, DIAG_MAX_ERRORS);
    ck_assert(p.c->diag.stopped);
    ck_assert_ptr_nonnull(strstr(p.diag, "t.stn:21:10: error: expected expression, saw ';'"));
    ck_assert_ptr_null(strstr(p.diag, "t.stn:22:10: error"));
    ck_assert_ptr_nonnull(strstr(p.diag, "t.stn:22:10: note: too many errors, stopping\n"));
    done(&p);
}
END_TEST

START_TEST(test_flat_sum)
{
    /* A legal 200000-term sum parses with a shallow parser stack. */
    enum { TERMS = 200000 };
    static const char head[] = "stencil s(field<double> u, field<double> v) { v = u";
    char *text = malloc(sizeof head + 4 * TERMS + 8);
    char *q = text + sprintf(text, "%s", head);
    for (int i = 1; i < TERMS; i++)
        q += sprintf(q, " + u");
    strcpy(q, "; }");
    Parse p;
    parse_ok(&p, text);
    Expr *e = body_stmts(&p)->items[0]->assign.value;
    int depth = 0;
    while (e->kind == EXPR_BINARY) {
        e = e->op.a;
        depth++;
    }
    ck_assert_int_eq(depth, TERMS - 1);
    done(&p);
    free(text);
}
END_TEST

START_TEST(test_deep_nesting)
{
    /* Too deep: one clear error each, never a crash. */
    enum { N = 20000 };
    static const char head[] = "stencil s(field<double> u, field<double> v) { v = ";
    char *text = malloc(sizeof head + 2 * N + 8);
    char *q = text + sprintf(text, "%s", head);
    memset(q, '(', N);
    q[N] = 'u';
    memset(q + N + 1, ')', N);
    strcpy(q + 2 * N + 1, "; }");
    Parse p;
    parse(&p, text);
    ck_assert_int_eq(p.c->diag.errors, 1);
    ck_assert_ptr_nonnull(strstr(p.diag, "error: brackets nested too deeply"));
    done(&p);

    /* 150000 unary minus signs exhaust the parser stack. */
    enum { M = 150000 };
    text = realloc(text, sizeof head + M + 8);
    q = text + sprintf(text, "%s", head);
    memset(q, '-', M);
    strcpy(q + M, "u; }");
    parse(&p, text);
    ck_assert_int_eq(p.c->diag.errors, 1);
    ck_assert_ptr_nonnull(strstr(p.diag, "error: program nested too deeply for the parser"));
    done(&p);
    free(text);
}
END_TEST

START_TEST(test_many_programs)
{
    /* The arena is freed: parsing many programs in one process stays small. */
    for (int i = 0; i < 200; i++) {
        Parse p;
        parse_ok(&p, hdiff);
        done(&p);
        parse_ok(&p, tridiagonal);
        done(&p);
    }
}
END_TEST

Suite *suite_parser(void);
Suite *suite_parser(void)
{
    Suite *s = suite_create("parser");
    TCase *tc = tcase_create("ast");
    tcase_add_test(tc, test_hdiff);
    tcase_add_test(tc, test_tridiagonal);
    tcase_add_test(tc, test_heat_and_pressure);
    tcase_add_test(tc, test_program_items);
    tcase_add_test(tc, test_precedence);
    tcase_add_test(tc, test_accesses_and_calls);
    tcase_add_test(tc, test_statements);
    tcase_add_test(tc, test_implicit_grouping);
    suite_add_tcase(s, tc);
    tc = tcase_create("errors");
    tcase_add_loop_test(tc, test_errors, 0, (int)(sizeof errors / sizeof errors[0]));
    tcase_add_test(tc, test_error_format);
    tcase_add_test(tc, test_recovery);
    tcase_add_test(tc, test_error_limit);
    tcase_add_test(tc, test_flat_sum);
    tcase_add_test(tc, test_deep_nesting);
    tcase_add_test(tc, test_many_programs);
    suite_add_tcase(s, tc);
    return s;
}
