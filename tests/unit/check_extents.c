/* check_extents.c: regions, extents, halos and dead-code removal
 * (extents.c) on programs compiled in process. Every expected number is
 * derived by hand in the comment above it, from the rules of language.md
 * section 6: walking back from the outputs, a statement runs on the region
 * its readers need, and a read at offset o from region R needs R + o. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static void compile(Comp *k, const char *text)
{
    comp_open(k);
    comp_lower(k, text);
    comp_extents(k);
    fflush(k->out);
}

static void compile_ok(Comp *k, const char *text)
{
    compile(k, text);
    assert_no_errors(k);
}

static IrStmt *stmt(IrStencil *st, int ci, int ii, int n)
{
    ck_assert_int_gt(st->computations.len, ci);
    IrComputation *comp = st->computations.items[ci];
    ck_assert_int_gt(comp->intervals.len, ii);
    IrInterval *iv = comp->intervals.items[ii];
    ck_assert_int_gt(iv->stmts.len, n);
    return iv->stmts.items[n];
}

/* Checks an extent (or region) along I and J: {ilo, ihi, jlo, jhi}. */
#define ck_assert_ij(ext, ilo, ihi, jlo, jhi)                                            \
    do {                                                                                 \
        const Extent *e_ = (ext);                                                        \
        ck_assert_int_eq(e_->r[AXIS_I].lo, ilo);                                         \
        ck_assert_int_eq(e_->r[AXIS_I].hi, ihi);                                         \
        ck_assert_int_eq(e_->r[AXIS_J].lo, jlo);                                         \
        ck_assert_int_eq(e_->r[AXIS_J].hi, jhi);                                         \
    } while (0)

/* Checks a halo: lower and upper per axis I, J, K. */
#define ck_assert_halo(f, il, ih, jl, jh, kl, kh)                                        \
    do {                                                                                 \
        const IrField *f_ = (f);                                                         \
        ck_assert_int_eq(f_->halo[AXIS_I][0], il);                                       \
        ck_assert_int_eq(f_->halo[AXIS_I][1], ih);                                       \
        ck_assert_int_eq(f_->halo[AXIS_J][0], jl);                                       \
        ck_assert_int_eq(f_->halo[AXIS_J][1], jh);                                       \
        ck_assert_int_eq(f_->halo[AXIS_K][0], kl);                                       \
        ck_assert_int_eq(f_->halo[AXIS_K][1], kh);                                       \
    } while (0)

START_TEST(test_hdiff)
{
    Comp k;
    compile_ok(&k, HDIFF_STN);
    IrStencil *st = stencil0(&k);
    /* out_u runs on the domain and reads flx at i-1 and i, fly at j-1 and j:
     * flx: i[-1,0], fly: j[-1,0]. */
    ck_assert_ij(&stmt(st, 0, 0, 5)->region, 0, 0, 0, 0);
    ck_assert_ij(&field(st, "flx")->extent, -1, 0, 0, 0);
    ck_assert_ij(&field(st, "fly")->extent, 0, 0, -1, 0);
    /* flx's statements (and its if) run on i[-1,0] and read l at i+1 and i:
     * l needs i[-1,+1]; fly's likewise j[-1,+1]; l is their box. */
    ck_assert_ij(&stmt(st, 0, 0, 1)->region, -1, 0, 0, 0);
    ck_assert_ij(&stmt(st, 0, 0, 2)->region, -1, 0, 0, 0);
    ck_assert_ij(&stmt(st, 0, 0, 2)->iff.then.items[0]->region, -1, 0, 0, 0);
    ck_assert_ij(&stmt(st, 0, 0, 4)->region, 0, 0, -1, 0);
    ck_assert_ij(&field(st, "l")->extent, -1, 1, -1, 1);
    ck_assert_ij(&stmt(st, 0, 0, 0)->region, -1, 1, -1, 1);
    /* l reads u at +-1 over i[-1,1] x j[-1,1]: u needs 2 each side. */
    ck_assert_halo(field(st, "u"), 2, 2, 2, 2, 0, 0);
    ck_assert_halo(field(st, "coeff"), 0, 0, 0, 0, 0, 0);
    ck_assert_halo(field(st, "out_u"), 0, 0, 0, 0, 0, 0);
    ck_assert(field(st, "u")->read_at_offset);
    ck_assert(!field(st, "coeff")->read_at_offset);
    ck_assert_int_eq(st->min_nk, 0);
    done(&k);
}
END_TEST

START_TEST(test_asymmetric_chain)
{
    Comp k;
    compile_ok(&k, "stencil s(field<double> u, field<double> v) {\n"
                   "  double a = u[i+1];\n"
                   "  double b = a[i+2];\n"
                   "  v = b[i-1];\n"
                   "}\n");
    IrStencil *st = stencil0(&k);
    /* b: {-1} and the origin -> [-1,0]; a: [-1,0]+2 = [1,2] and the origin
     * -> [0,2]; u: [0,2]+1 = [1,3] and the origin -> [0,3]. */
    ck_assert_ij(&field(st, "b")->extent, -1, 0, 0, 0);
    ck_assert_ij(&field(st, "a")->extent, 0, 2, 0, 0);
    ck_assert_ij(&stmt(st, 0, 0, 0)->region, 0, 2, 0, 0);
    ck_assert_halo(field(st, "u"), 0, 3, 0, 0, 0, 0);
    done(&k);
}
END_TEST

START_TEST(test_k_halos)
{
    Comp k;
    compile_ok(&k, "stencil s(field<double> u, field<double> w, field<double> z,\n"
                   "          field<double> v, field<double> x, field<double, IJ> y) {\n"
                   "  computation(parallel) {\n"
                   "    interval(0, 1) { v = u[k-1]; }\n"
                   "    interval(1, end-2) { v = u[k+2]; }\n"
                   "    interval(end-2, end) { v = u[k+1] + w[k+3]; }\n"
                   "  }\n"
                   "  computation(forward) { interval(0, 3) { x = w[k+2]; } }\n"
                   "  y = sum(z[k-1], k);\n"
                   "}\n");
    IrStencil *st = stencil0(&k);
    /* u: k-1 from level 0 -> 1 below; k+2 up to end-2 -> end: none above;
     * k+1 up to end -> 1 above. */
    ck_assert_halo(field(st, "u"), 0, 0, 0, 0, 1, 1);
    /* w: k+3 up to end -> 3 above; k+2 up to level 3 counts from the start:
     * no halo, but NK >= 5. */
    ck_assert_halo(field(st, "w"), 0, 0, 0, 0, 0, 3);
    /* z: the column [0, end) read at k-1 -> 1 below. */
    ck_assert_halo(field(st, "z"), 0, 0, 0, 0, 1, 0);
    ck_assert_int_eq(field(st, "u")->extent.r[AXIS_K].lo, -1);
    ck_assert_int_eq(field(st, "u")->extent.r[AXIS_K].hi, 2);
    /* Interval bounds need NK >= 3 (interval(1, end-2)); the read of w at
     * k+2 below level 3 needs NK >= 5. */
    ck_assert_int_eq(st->min_nk, 5);
    done(&k);
}
END_TEST

START_TEST(test_boundary_axes_have_no_halo)
{
    Comp k;
    compile_ok(&k, "stencil s(field<double> u, field<double> w, field<double> v) {\n"
                   "  boundary u: periodic;\n"
                   "  boundary w(k): neumann;\n"
                   "  v = u[i-2] + u[j+1] + w[k+1] + w[i+1];\n"
                   "}\n");
    IrStencil *st = stencil0(&k);
    IrField *u = field(st, "u"), *w = field(st, "w");
    ck_assert_halo(u, 0, 0, 0, 0, 0, 0);
    ck_assert_ij(&u->extent, -2, 0, 0, 1);
    ck_assert_halo(w, 0, 1, 0, 0, 0, 0);
    ck_assert_int_eq(w->extent.r[AXIS_K].hi, 1);
    done(&k);
}
END_TEST

START_TEST(test_if_region_union)
{
    Comp k;
    compile_ok(&k, "stencil s(field<double> u, field<double> c, field<double> v) {\n"
                   "  double p = u;\n"
                   "  double q = u;\n"
                   "  if (c > 0.0) { p = 1.0; q = 2.0; }\n"
                   "  v = p[i+1] + q[j-1];\n"
                   "}\n");
    IrStencil *st = stencil0(&k);
    /* p is read at i+1 -> [0,1] along I; q at j-1 -> [-1,0] along J. */
    IrStmt *iff = stmt(st, 0, 0, 2);
    ck_assert_int_eq(iff->kind, IR_IF);
    /* The if runs its condition on the union; each branch statement keeps
     * its own destination's region. */
    ck_assert_ij(&iff->region, 0, 1, -1, 0);
    ck_assert_ij(&iff->iff.then.items[0]->region, 0, 1, 0, 0);
    ck_assert_ij(&iff->iff.then.items[1]->region, 0, 0, -1, 0);
    /* c is read by the condition over the union; u by p's and q's statements. */
    ck_assert_halo(field(st, "c"), 0, 1, 1, 0, 0, 0);
    ck_assert_halo(field(st, "u"), 0, 1, 1, 0, 0, 0);
    done(&k);
}
END_TEST

START_TEST(test_dead_code)
{
    Comp k;
    compile_ok(&k, "stencil s(field<double> u, field<double> v) {\n"
                   "  double dead = u * 2.0;\n"
                   "  double t = u;\n"
                   "  v = t;\n"
                   "  t = 3.0 * u;\n"
                   "  if (u > 0.0) { dead = 1.0; }\n"
                   "}\n");
    IrStencil *st = stencil0(&k);
    ck_assert(!has_field(st, "dead"));
    ck_assert_int_eq(st->fields.len, 3);
    ck_assert_int_eq(field(st, "t")->id, 2);
    /* t = u and v = t remain; dead's statements, the if around one and the
     * last write of t are gone, with a warning for dead and one for t. */
    IrInterval *iv = st->computations.items[0]->intervals.items[0];
    ck_assert_int_eq(iv->stmts.len, 2);
    ck_assert_int_eq(k.c->diag.warnings, 2);
    ck_assert_ptr_nonnull(strstr(k.diag, "temporary 'dead' is never used by an output"));
    ck_assert_ptr_nonnull(strstr(k.diag, "the value assigned to 't' here is never used"));
    done(&k);
}
END_TEST

START_TEST(test_forward_fixpoint)
{
    Comp k;
    compile_ok(&k, "stencil s(field<double> u, field<double> v) {\n"
                   "  computation(forward) {\n"
                   "    interval(0, 1) { double t = u; double y = u; }\n"
                   "    interval(1, end) { y = t[k-1]; t = y + u[i+1]; }\n"
                   "  }\n"
                   "  v = t[i+1];\n"
                   "}\n");
    IrStencil *st = stencil0(&k);
    /* v needs t on [0,1]; t = y + u[i+1] runs there: y on [0,1], u on
     * [1,2] and the origin; y = t[k-1] carries [0,1] back to t: stable.
     * Level 0 computes t and y from u on [0,1]: u [0,2]. */
    ck_assert_ij(&field(st, "t")->extent, 0, 1, 0, 0);
    ck_assert_ij(&field(st, "y")->extent, 0, 1, 0, 0);
    ck_assert_halo(field(st, "u"), 0, 2, 0, 0, 0, 0);
    ck_assert_int_eq(field(st, "t")->extent.r[AXIS_K].lo, -1);
    done(&k);
}
END_TEST

START_TEST(test_growth_is_an_error)
{
    Comp k;
    compile(&k, "stencil s(field<double> u, field<double> v) {\n"
                "  computation(forward) {\n"
                "    interval(0, 1) { double t = u; double y = u; }\n"
                "    interval(1, end) { y = t[k-1]; t = y[i+1] + u; }\n"
                "  }\n"
                "  v = t;\n"
                "}\n");
    ck_assert_int_eq(k.c->diag.errors, 1);
    ck_assert_ptr_nonnull(strstr(k.diag, "grows with every level"));
    done(&k);
}
END_TEST

START_TEST(test_lower_dimensional_temporaries)
{
    Comp k;
    compile_ok(&k, "stencil s(field<double, IJ> u, field<double, K> ak, field<double> v) {\n"
                   "  field<double, IJ> top = u[j+1];\n"
                   "  field<double, K> prof = 2.0 * ak;\n"
                   "  computation(parallel) {\n"
                   "    interval(0, end-1) { v = top[i-1] + prof[k+1] + top; }\n"
                   "  }\n"
                   "}\n");
    IrStencil *st = stencil0(&k);
    /* top (IJ) is read at i-1 and 0: [-1,0] along I, computed there, reading
     * u at j+1. prof has no I or J: its region is the domain, its K extent
     * [0,1]; ak needs nothing along I or J. */
    ck_assert_ij(&field(st, "top")->extent, -1, 0, 0, 0);
    ck_assert_halo(field(st, "u"), 1, 0, 0, 1, 0, 0);
    IrField *prof = field(st, "prof");
    ck_assert_ij(&prof->extent, 0, 0, 0, 0);
    ck_assert_int_eq(prof->extent.r[AXIS_K].hi, 1);
    ck_assert_halo(field(st, "ak"), 0, 0, 0, 0, 0, 0);
    done(&k);
}
END_TEST

START_TEST(test_reads_of_outputs_in_later_computations)
{
    Comp k;
    compile_ok(&k, "stencil s(field<double> u, field<double> io, field<double> v) {\n"
                   "  io = 2.0 * u;\n"
                   "  computation(parallel) { interval(0, end) { v = io[i+1] + io[j-2]; } }\n"
                   "}\n");
    IrStencil *st = stencil0(&k);
    /* io is written, then read at offsets by a later computation: its
     * storage's halo must hold those points. */
    ck_assert_halo(field(st, "io"), 0, 1, 2, 0, 0, 0);
    ck_assert(field(st, "io")->is_read && field(st, "io")->is_written);
    done(&k);
}
END_TEST

START_TEST(test_read_through_temporary_counts_as_offset)
{
    Comp k;
    compile_ok(&k, "stencil s(field<double> u, field<double> v) {\n"
                   "  double t = u;\n"
                   "  v = t[i+1];\n"
                   "}\n");
    IrStencil *st = stencil0(&k);
    /* u is read only at zero offset, but by a statement running on i[0,1]:
     * it is read beyond the point being written, which aliasing must know. */
    ck_assert(field(st, "u")->read_at_offset);
    ck_assert_halo(field(st, "u"), 0, 1, 0, 0, 0, 0);
    done(&k);
}
END_TEST

/* ir_walk_stmt / ir_walk_stmts, the one pre-order walker of statements (ir.c):
 * program order into branches, SKIP leaves a statement's nested ones out,
 * STOP ends the walk (false); ir_collect_writes, one of its collectors. */
typedef struct {
    const IrStmt *seen[16];
    int n;
    const IrStmt *skip, *stop;
} WalkLog;

static IrWalk log_stmt(void *ctx, const IrStmt *s)
{
    WalkLog *w = ctx;
    ck_assert_int_lt(w->n, 16);
    w->seen[w->n++] = s;
    return s == w->stop ? IR_WALK_STOP : s == w->skip ? IR_WALK_SKIP : IR_WALK_ON;
}

START_TEST(test_walker)
{
    Comp k;
    compile_ok(&k, "stencil s(field<double> u, field<double> v, field<double> w) {\n"
                   "  double t = u;\n"
                   "  if (u > 0.5) { v = t; if (u > 0.7) { w = 1.0; } else { w = 2.0; } }\n"
                   "  else { v = 0.0; w = t; }\n"
                   "}\n");
    IrStencil *st = stencil0(&k);
    IrStmtVec *top = &st->computations.items[0]->intervals.items[0]->stmts;
    ck_assert_int_eq(top->len, 2);
    IrStmt *a = top->items[0], *iff = top->items[1];
    ck_assert_int_eq(iff->kind, IR_IF);
    IrStmt *v1 = iff->iff.then.items[0], *inner = iff->iff.then.items[1];
    IrStmt *w1 = inner->iff.then.items[0], *w2 = inner->iff.els.items[0];
    IrStmt *v0 = iff->iff.els.items[0], *w3 = iff->iff.els.items[1];
    /* every statement, in program order: the if before its branches, then before else */
    const IrStmt *order[] = {a, iff, v1, inner, w1, w2, v0, w3};
    WalkLog w = {{0}, 0, NULL, NULL};
    ck_assert(ir_walk_stmts(top, log_stmt, &w));
    ck_assert_int_eq(w.n, 8);
    for (int i = 0; i < 8; i++)
        ck_assert_ptr_eq(w.seen[i], order[i]);
    /* SKIP on the inner if: its branches are left out, the walk goes on */
    WalkLog s = {{0}, 0, inner, NULL};
    ck_assert(ir_walk_stmts(top, log_stmt, &s));
    ck_assert_int_eq(s.n, 6);
    ck_assert_ptr_eq(s.seen[4], v0);
    /* STOP at the first assignment of v: nothing after it, and false */
    WalkLog p = {{0}, 0, NULL, v1};
    ck_assert(!ir_walk_stmts(top, log_stmt, &p));
    ck_assert_int_eq(p.n, 3);
    /* the writes, nested ones too, in program order */
    IrFieldVec writes = {0};
    ir_collect_writes(k.c->arena, top, &writes);
    ck_assert_int_eq(writes.len, 6);
    const char *names[] = {"t", "v", "w", "w", "v", "w"};
    for (int i = 0; i < 6; i++)
        ck_assert_str_eq(writes.items[i]->name, names[i]);
    done(&k);
}
END_TEST

Suite *suite_extents(void);
Suite *suite_extents(void)
{
    Suite *s = suite_create("extents");
    TCase *tc = tcase_create("regions");
    tcase_add_test(tc, test_hdiff);
    tcase_add_test(tc, test_asymmetric_chain);
    tcase_add_test(tc, test_if_region_union);
    tcase_add_test(tc, test_lower_dimensional_temporaries);
    suite_add_tcase(s, tc);
    tc = tcase_create("halos");
    tcase_add_test(tc, test_k_halos);
    tcase_add_test(tc, test_boundary_axes_have_no_halo);
    tcase_add_test(tc, test_reads_of_outputs_in_later_computations);
    tcase_add_test(tc, test_read_through_temporary_counts_as_offset);
    suite_add_tcase(s, tc);
    tc = tcase_create("sequential");
    tcase_add_test(tc, test_forward_fixpoint);
    tcase_add_test(tc, test_growth_is_an_error);
    suite_add_tcase(s, tc);
    tc = tcase_create("dead");
    tcase_add_test(tc, test_dead_code);
    tcase_add_test(tc, test_walker);
    suite_add_tcase(s, tc);
    return s;
}
