/* check_emit.c: the naive backend and the emitter helpers, on IR built by
 * hand (independent of the front end): C names, constants, expression
 * printing, and whole generated files for a few stencils, checked for their
 * structure and compiled with `cc -std=c11 -Wall -Wextra -Wpedantic -Werror`
 * (skipped where no cc runs). Numbers are checked by tests/numeric/. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emit.h"

/* ------------------------------------------------------------ IR builders */

static Loc L(int line)
{
    return (Loc){"hand.stn", line, 1};
}

static IrStencil *stencil_new(Compiler *c, const char *name)
{
    IrStencil *st = arena_alloc(c->arena, sizeof *st);
    st->name = name;
    st->loc = L(1);
    if (!c->ir)
        c->ir = arena_alloc(c->arena, sizeof *c->ir);
    vec_push(c->arena, &c->ir->stencils, st);
    return st;
}

static IrField *field_new(Compiler *c, IrStencil *st, const char *name, Type type,
                          unsigned axes, bool param)
{
    IrField *f = arena_alloc(c->arena, sizeof *f);
    f->name = name;
    f->loc = L(1);
    f->id = st->fields.len;
    f->kind = param ? IR_PARAM_FIELD : IR_TEMP;
    f->param_pos = param ? st->params.len : -1;
    f->type = type;
    f->axes = axes;
    vec_push(c->arena, &st->fields, f);
    if (param) {
        IrParam p = {true, f, NULL};
        vec_push(c->arena, &st->params, p);
    }
    return f;
}

static IrScalar *scalar_new(Compiler *c, IrStencil *st, const char *name, Type type, bool out)
{
    IrScalar *s = arena_alloc(c->arena, sizeof *s);
    s->name = name;
    s->loc = L(1);
    s->id = st->scalars.len;
    s->param_pos = st->params.len;
    s->type = type;
    s->is_output = out;
    vec_push(c->arena, &st->scalars, s);
    IrParam p = {false, NULL, s};
    vec_push(c->arena, &st->params, p);
    return s;
}

static IrInterval *interval_new(Compiler *c, IrStencil *st, IterOrder order, Level lo,
                                Level hi)
{
    IrComputation *comp = NULL;
    if (st->computations.len && st->computations.items[st->computations.len - 1]->order == order)
        comp = st->computations.items[st->computations.len - 1];
    if (!comp || order == ORDER_PARALLEL) {
        comp = arena_alloc(c->arena, sizeof *comp);
        comp->order = order;
        comp->loc = L(2);
        vec_push(c->arena, &st->computations, comp);
    }
    IrInterval *iv = arena_alloc(c->arena, sizeof *iv);
    iv->lo = lo;
    iv->hi = hi;
    vec_push(c->arena, &comp->intervals, iv);
    return iv;
}

static IrExpr *ld(Compiler *c, IrField *f, int64_t di, int64_t dj, int64_t dk)
{
    int64_t off[3] = {di, dj, dk};
    if (di || dj || dk)
        f->read_at_offset = true;
    f->is_read = true;
    return ir_load(c->arena, L(3), f, off);
}

static IrExpr *num(Compiler *c, double v)
{
    return ir_const_real(c->arena, L(3), TY_DOUBLE, v);
}

static IrExpr *bin(Compiler *c, Op op, IrExpr *a, IrExpr *b)
{
    Type t = op >= OP_LT && op <= OP_OR ? TY_BOOL : a->type;
    return ir_binary(c->arena, L(3), op, t, a, b);
}

static IrStmt *assign(Compiler *c, IrStmtVec *into, int line, IrField *dst, IrExpr *value,
                      int64_t ilo, int64_t ihi, int64_t jlo, int64_t jhi)
{
    IrStmt *s = ir_stmt_new(c->arena, IR_ASSIGN, L(line));
    s->assign.dst = dst;
    s->assign.value = value;
    s->region.r[AXIS_I] = (Range){ilo, ihi};
    s->region.r[AXIS_J] = (Range){jlo, jhi};
    dst->is_written = true;
    vec_push(c->arena, into, s);
    return s;
}

static const Level L0 = {false, 0}, L1 = {false, 1}, END = {true, 0}, END1 = {true, -1};

/* lap: out = 4u - (u[i-1] + u[i+1] + u[j-1] + u[j+1]) */
static void build_lap(Compiler *c)
{
    IrStencil *st = stencil_new(c, "lap");
    IrField *u = field_new(c, st, "u", TY_DOUBLE, AXES_IJK, true);
    IrField *out = field_new(c, st, "out", TY_DOUBLE, AXES_IJK, true);
    for (int a = 0; a < 2; a++)
        u->halo[a][0] = u->halo[a][1] = u->reach[a][0] = u->reach[a][1] = 1;
    IrInterval *iv = interval_new(c, st, ORDER_PARALLEL, L0, END);
    IrExpr *sum = bin(c, OP_ADD, bin(c, OP_ADD, ld(c, u, -1, 0, 0), ld(c, u, 1, 0, 0)),
                      bin(c, OP_ADD, ld(c, u, 0, -1, 0), ld(c, u, 0, 1, 0)));
    assign(c, &iv->stmts, 4, out, bin(c, OP_SUB, bin(c, OP_MUL, num(c, 4.0), ld(c, u, 0, 0, 0)), sum),
           0, 0, 0, 0);
}

/* tri: forward and backward sweeps with intervals at both ends */
static void build_tri(Compiler *c)
{
    IrStencil *st = stencil_new(c, "tri");
    IrField *a = field_new(c, st, "a", TY_DOUBLE, AXES_IJK, true);
    IrField *x = field_new(c, st, "x", TY_DOUBLE, AXES_IJK, true);
    st->min_nk = 1;
    IrInterval *f0 = interval_new(c, st, ORDER_FORWARD, L0, L1);
    assign(c, &f0->stmts, 5, x, ld(c, a, 0, 0, 0), 0, 0, 0, 0);
    IrInterval *f1 = interval_new(c, st, ORDER_FORWARD, L1, END);
    assign(c, &f1->stmts, 6, x, bin(c, OP_ADD, ld(c, x, 0, 0, -1), ld(c, a, 0, 0, 0)), 0, 0, 0, 0);
    IrInterval *b0 = interval_new(c, st, ORDER_BACKWARD, END1, END);
    assign(c, &b0->stmts, 8, x, bin(c, OP_MUL, num(c, 0.5), ld(c, x, 0, 0, 0)), 0, 0, 0, 0);
    IrInterval *b1 = interval_new(c, st, ORDER_BACKWARD, L0, END1);
    assign(c, &b1->stmts, 9, x, bin(c, OP_SUB, ld(c, x, 0, 0, 0), ld(c, x, 0, 0, 1)), 0, 0, 0, 0);
}

/* mix: a temporary, a boundary condition, an if with else, a column
 * reduction, a full reduction into an out scalar, names C reserves */
static void build_mix(Compiler *c)
{
    IrStencil *st = stencil_new(c, "mix");
    IrField *u = field_new(c, st, "double_", TY_DOUBLE, AXES_IJK, true);
    IrField *w = field_new(c, st, "sqrt", TY_DOUBLE, AXES_IJK, true);
    IrField *s2 = field_new(c, st, "s2", TY_DOUBLE, AXES_IJ, true);
    IrScalar *alpha = scalar_new(c, st, "alpha", TY_DOUBLE, false);
    IrScalar *total = scalar_new(c, st, "total", TY_DOUBLE, true);
    IrField *t = field_new(c, st, "n", TY_DOUBLE, AXES_IJK, false);
    u->bc[AXIS_I].kind = BC_PERIODIC;
    u->bc[AXIS_J].kind = BC_DIRICHLET;
    u->bc[AXIS_J].value = 1.5;
    t->extent.r[AXIS_I] = (Range){-1, 0};
    IrInterval *iv = interval_new(c, st, ORDER_PARALLEL, L0, END);
    assign(c, &iv->stmts, 4, t,
           bin(c, OP_MUL, ld(c, u, -1, 1, 0), ir_scalar_ref(c->arena, L(4), alpha)), -1, 0, 0, 0);
    IrStmt *iff = ir_stmt_new(c->arena, IR_IF, L(5));
    iff->iff.cond = bin(c, OP_GT, ld(c, t, -1, 0, 0), num(c, 0.0));
    assign(c, &iff->iff.then, 6, w, ld(c, t, 0, 0, 0), 0, 0, 0, 0);
    assign(c, &iff->iff.els, 7, w, ir_unary(c->arena, L(7), OP_NEG, TY_DOUBLE, ld(c, t, 0, 0, 0)),
           0, 0, 0, 0);
    vec_push(c->arena, &iv->stmts, iff);
    IrInterval *iv2 = interval_new(c, st, ORDER_PARALLEL, L0, END);
    assign(c, &iv2->stmts, 8, s2, ir_colreduce(c->arena, L(8), RED_MAX, ld(c, w, 0, 0, 0)), 0, 0,
           0, 0);
    IrStmt *red = ir_stmt_new(c->arena, IR_REDUCE, L(9));
    red->reduce.dst = total;
    red->reduce.op = RED_SUM;
    red->reduce.value = ld(c, w, 0, 0, 0);
    vec_push(c->arena, &iv2->stmts, red);
}

/* Emits c's IR with the naive backend into *src and *hdr (malloc'd). */
static bool emit(Compiler *c, char **src, char **hdr)
{
    size_t ns, nh;
    FILE *fs = open_memstream(src, &ns), *fh = open_memstream(hdr, &nh);
    bool ok = emit_files(c, &backend_naive, fs, "hand.c", fh, "hand.h");
    fclose(fs);
    fclose(fh);
    if (getenv("CHECK_EMIT_DUMP"))
        printf("%s\n%s\n", *hdr, *src);
    return ok;
}

/* Writes src and hdr to a temporary directory and compiles them strictly;
 * true also when no compiler can be run (the numeric tests need one anyway). */
static bool compiles(const char *src, const char *hdr)
{
    char dir[] = "/tmp/check_emit_XXXXXX";
    if (!mkdtemp(dir))
        return false;
    char path[256], cmd[1024];
    snprintf(path, sizeof path, "%s/hand.c", dir);
    FILE *f = fopen(path, "w");
    fputs(src, f);
    fclose(f);
    snprintf(path, sizeof path, "%s/hand.h", dir);
    f = fopen(path, "w");
    fputs(hdr, f);
    fclose(f);
    const char *cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";
    char cwd[512];   /* the tests run from the repository root */
    if (!getcwd(cwd, sizeof cwd))
        return false;
    snprintf(cmd, sizeof cmd,
             "cd %s && %s -std=c11 -Wall -Wextra -Wpedantic -Werror -I%s/runtime/include "
             "-c hand.c -o hand.o",
             dir, cc, cwd);
    int rc = system(cmd);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        return false;
    return rc == 0;
}

/* ------------------------------------------------------------------ tests */

START_TEST(names)
{
    Arena *a = arena_new();
    NameSet set = {0};
    ck_assert_str_eq(emit_user_name(a, &set, "u"), "u");
    ck_assert_str_eq(emit_user_name(a, &set, "sqrt"), "sqrt_");
    ck_assert_str_eq(emit_user_name(a, &set, "sqrt_"), "sqrt__");
    ck_assert_str_eq(emit_user_name(a, &set, "double_"), "double__");
    ck_assert_str_eq(emit_user_name(a, &set, "gt_x"), "gt_x_");
    ck_assert_str_eq(emit_user_name(a, &set, "size_t"), "size_t_");
    ck_assert_str_eq(emit_unique(a, &set, "u"), "u_2");
    ck_assert_str_eq(emit_unique(a, &set, "u"), "u_3");
    ck_assert(emit_is_reserved("INT32_MAX"));
    ck_assert(!emit_is_reserved("flux"));
    /* the preprocessor's operator; names with a leading '_' keep none */
    ck_assert_str_eq(emit_user_name(a, &set, "defined"), "defined_");
    /* GNU C's predefined macros (gcc -std=gnu11, the default, defines linux as 1) */
    ck_assert_str_eq(emit_user_name(a, &set, "linux"), "linux_");
    ck_assert(emit_is_reserved("unix") && emit_is_reserved("i386"));
    /* and glibc's <stdlib.h> there: BIG_ENDIAN is 4321, WEXITSTATUS(s) a macro */
    ck_assert_str_eq(emit_user_name(a, &set, "BIG_ENDIAN"), "BIG_ENDIAN_");
    ck_assert(emit_is_reserved("WEXITSTATUS") && emit_is_reserved("htole32") &&
              emit_is_reserved("FD_SET"));
    ck_assert_str_eq(emit_user_name(a, &set, "__STDC_X"), "u__STDC_X");
    ck_assert_str_eq(emit_user_name(a, &set, "__STDC__"), "u__STDC___");
    ck_assert_str_eq(emit_user_name(a, &set, "u__STDC_X"), "u__STDC_X_2");
    ck_assert_str_eq(emit_user_name(a, &set, "_gt_x"), "u_gt_x");
    /* <stdlib.h>, <math.h>'s float/long double forms, <omp.h>, CUDA */
    ck_assert(emit_is_reserved("EXIT_SUCCESS"));
    ck_assert(emit_is_reserved("sinl") && emit_is_reserved("fmodf"));
    ck_assert(emit_is_reserved("omp_get_thread_num") && emit_is_reserved("kmp_x"));
    ck_assert(emit_is_reserved("threadIdx") && emit_is_reserved("cudaMalloc"));
    ck_assert(emit_is_reserved("CUDA_VERSION") && !emit_is_reserved("cuda_step"));
    ck_assert(!emit_is_reserved("l") && !emit_is_reserved("f") && !emit_is_reserved("flux"));
    /* C++ keywords and alternative tokens: the cuda output is C++, the headers may be
     * included from C++ */
    ck_assert_str_eq(emit_user_name(a, &set, "new"), "new_");
    ck_assert_str_eq(emit_user_name(a, &set, "template"), "template_");
    ck_assert(emit_is_reserved("typename") && emit_is_reserved("class") &&
              emit_is_reserved("this") && emit_is_reserved("and") && emit_is_reserved("xor_eq"));
    ck_assert(!emit_is_reserved("ie") && !emit_is_reserved("np") && !emit_is_reserved("w"));
    /* a stencil's names see the globals without copying them */
    NameSet globals = {0}, local = {.parent = &globals};
    emit_take(a, &globals, "s");
    ck_assert_str_eq(emit_user_name(a, &local, "s"), "s_2");
    ck_assert_int_eq(local.list.len, 1);
    /* a name made from a user's may be the runtime's (a temporary gt's storage) */
    ck_assert_str_eq(emit_unique(a, &local, "gt_storage"), "gt_storage_");
    arena_free(a);
}
END_TEST

static char *const_text(Type t, int64_t i, double d)
{
    static char buf[64];
    Out o = {0};
    emit_const(&o, t, i, d);
    snprintf(buf, sizeof buf, "%.*s", (int)o.len, o.buf);
    free(o.buf);
    return buf;
}

START_TEST(constants)
{
    ck_assert_str_eq(const_text(TY_DOUBLE, 0, 4.0), "4.0");
    ck_assert_str_eq(const_text(TY_DOUBLE, 0, 0.1), "0.1");
    ck_assert_str_eq(const_text(TY_DOUBLE, 0, -2.5), "-2.5");
    ck_assert_str_eq(const_text(TY_DOUBLE, 0, 1e-300), "1e-300");
    ck_assert_str_eq(const_text(TY_FLOAT, 0, (double)0.1f), "0.1f");
    ck_assert_str_eq(const_text(TY_DOUBLE, 0, 1.0 / 3.0), "0.3333333333333333");
    ck_assert_str_eq(const_text(TY_INT, -2147483647 - 1, 0), "(-2147483647 - 1)");
    ck_assert_str_eq(const_text(TY_BOOL, 1, 0), "true");
    ck_assert_str_eq(const_text(TY_DOUBLE, 0, -1.0 / 0.0), "-INFINITY");
    /* whole numbers below 1e6 without an exponent (%g's shortest wrote 2e+01) */
    ck_assert_str_eq(const_text(TY_DOUBLE, 0, 20.0), "20.0");
    ck_assert_str_eq(const_text(TY_DOUBLE, 0, -300.0), "-300.0");
    ck_assert_str_eq(const_text(TY_FLOAT, 0, 500000.0), "500000.0f");
    ck_assert_str_eq(const_text(TY_DOUBLE, 0, 2500.5), "2500.5");
    ck_assert_str_eq(const_text(TY_DOUBLE, 0, 1e6), "1e+06");
    ck_assert_str_eq(const_text(TY_DOUBLE, 0, 2.5e8), "2.5e+08");
}
END_TEST

/* Every literal reads back as the value it was made from: doubles of every
 * magnitude, floats as a C compiler reads an f literal (strtof). */
START_TEST(literals_round_trip)
{
    uint64_t x = 88172645463325252u;
    for (int n = 0; n < 200000; n++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double d;
        uint64_t bits = x;
        memcpy(&d, &bits, sizeof d);
        if (!isfinite(d))
            continue;
        if (n % 4 == 0)
            d = (double)(int64_t)(x % 4000000) / (double)(1 + x % 7);   /* near whole */
        char buf[REAL_LITERAL_SIZE];
        real_literal(buf, d, false);
        ck_assert_msg(strtod(buf, NULL) == d, "%s is not %.17g", buf, d);
        float f = (float)d;
        if (!isfinite(f))
            continue;
        real_literal(buf, f, true);
        size_t len = strlen(buf);
        ck_assert_msg(len > 1 && buf[len - 1] == 'f', "%s has no f suffix", buf);
        ck_assert_msg(strtof(buf, NULL) == f, "%s is not %.9g", buf, (double)f);
    }
}
END_TEST

static void dummy_load(Out *o, const EmitExprCtx *cx, const IrExpr *e)
{
    (void)cx;
    emit_text(o, "%s", e->load.field->name);
}

static char *expr_text(const IrExpr *e)
{
    static char buf[256];
    EmitExprCtx cx = emit_point_ctx(NULL, "k", dummy_load, NULL);
    Out o = {0};
    emit_expr(&o, &cx, e);
    snprintf(buf, sizeof buf, "%.*s", (int)o.len, o.buf);
    free(o.buf);
    return buf;
}

START_TEST(precedence)
{
    Compiler *c = compiler_new(NULL);
    IrStencil *st = stencil_new(c, "p");
    IrField *a = field_new(c, st, "a", TY_DOUBLE, AXES_IJK, true);
    IrField *b = field_new(c, st, "b", TY_DOUBLE, AXES_IJK, true);
    IrField *d = field_new(c, st, "d", TY_DOUBLE, AXES_IJK, true);
#define A ld(c, a, 0, 0, 0)
#define B ld(c, b, 0, 0, 0)
#define D ld(c, d, 0, 0, 0)
    ck_assert_str_eq(expr_text(bin(c, OP_SUB, A, bin(c, OP_SUB, B, D))), "a - (b - d)");
    ck_assert_str_eq(expr_text(bin(c, OP_SUB, bin(c, OP_SUB, A, B), D)), "a - b - d");
    ck_assert_str_eq(expr_text(bin(c, OP_MUL, bin(c, OP_ADD, A, B), D)), "(a + b) * d");
    ck_assert_str_eq(expr_text(bin(c, OP_ADD, A, bin(c, OP_MUL, B, D))), "a + b * d");
    ck_assert_str_eq(expr_text(ir_unary(c->arena, L(1), OP_NEG, TY_DOUBLE,
                                        ir_unary(c->arena, L(1), OP_NEG, TY_DOUBLE, A))),
                     "-(-a)");
    ck_assert_str_eq(expr_text(bin(c, OP_SUB, A, num(c, -1.5))), "a - -1.5");
    IrExpr *lt = bin(c, OP_LT, A, B), *gt = bin(c, OP_GT, B, D);
    ck_assert_str_eq(expr_text(bin(c, OP_OR, bin(c, OP_AND, lt, gt), bin(c, OP_EQ, A, D))),
                     "(a < b && b > d) || a == d");
    ck_assert_str_eq(expr_text(ir_cond(c->arena, L(1), TY_DOUBLE, bin(c, OP_LT, A, B), A,
                                       bin(c, OP_ADD, B, D))),
                     "a < b ? a : b + d");
    ck_assert_str_eq(expr_text(ir_cast(c->arena, bin(c, OP_ADD, A, B), TY_FLOAT)),
                     "(float)(a + b)");
#undef A
#undef B
#undef D
    compiler_free(c);
}
END_TEST

START_TEST(lap_file)
{
    Compiler *c = compiler_new(NULL);
    c->opts.input = "hand.stn";
    build_lap(c);
    char *src, *hdr;
    ck_assert(emit(c, &src, &hdr));
    ck_assert_ptr_nonnull(strstr(hdr, "int lap(gt_storage *u, gt_storage *out, const gt_domain *domain);"));
    ck_assert_ptr_nonnull(strstr(hdr, "extern const gt_stencil_info lap_info;"));
    ck_assert_ptr_nonnull(strstr(src, "{\"u\", \"IJK\", GT_FLOAT64, 0, {{1, 1}, {1, 1}, {0, 0}}, "
                                      "{{1, 1}, {1, 1}, {0, 0}}, {0, 0, 0}},"));
    ck_assert_ptr_nonnull(strstr(src, "rc = gt__place(&lap_info, args, n, NULL, 0, &place);"));
    ck_assert_ptr_nonnull(strstr(src, "gt__bind(&lap_info"));
    ck_assert_ptr_nonnull(strstr(src, "#line 4 \"hand.stn\"\n"));
    ck_assert_ptr_nonnull(
        strstr(src, "out(i, j, k) = 4.0 * u(i, j, k) - (u(i - 1, j, k) + u(i + 1, j, k) + "
                    "(u(i, j - 1, k) + u(i, j + 1, k)));"));
    ck_assert_ptr_nonnull(strstr(src, "#line 67 \"hand.c\"\n    return 0;"));
    ck_assert(compiles(src, hdr));
    free(src);
    free(hdr);
    compiler_free(c);
}
END_TEST

START_TEST(tri_file)
{
    Compiler *c = compiler_new(NULL);
    c->opts.input = "hand.stn";
    build_tri(c);
    char *src, *hdr;
    ck_assert(emit(c, &src, &hdr));
    ck_assert_ptr_nonnull(strstr(src, "for (int64_t k = 1; k < nk; k++) {"));
    ck_assert_ptr_nonnull(strstr(src, "for (int64_t k = nk - 1; k >= nk - 1; k--) {"));
    ck_assert_ptr_nonnull(strstr(src, "for (int64_t k = nk - 2; k >= 0; k--) {"));
    ck_assert_ptr_nonnull(strstr(src, "if (nk < 1)"));
    ck_assert_ptr_null(strstr(src, "no field of the stencil has axis K"));
    ck_assert(compiles(src, hdr));
    free(src);
    free(hdr);
    compiler_free(c);
}
END_TEST

START_TEST(mix_file)
{
    Compiler *c = compiler_new(NULL);
    c->opts.input = "hand.stn";
    build_mix(c);
    char *src, *hdr;
    ck_assert(emit(c, &src, &hdr));
    ck_assert_ptr_nonnull(strstr(hdr, "int mix(gt_storage *double__, gt_storage *sqrt_, "
                                      "gt_storage *s2, double alpha, double *total,\n"
                                      "        const gt_domain *domain);"));
    ck_assert_ptr_nonnull(strstr(src, "gt_periodic_at(i - 1, ni, wrap_i, 1)"));
    ck_assert_ptr_nonnull(strstr(src, "gt_outside_at(j + 1, lo_j, hi_j) ? 1.5 :"));
    ck_assert_ptr_nonnull(strstr(src, "mask(i, j, k) = n(i - 1, j, k) > 0.0;"));
    ck_assert_ptr_nonnull(strstr(src, "if (!mask(i, j, k))"));
    ck_assert_ptr_nonnull(strstr(src, "column_max = gt_max_double(column_max, sqrt_(i, j, kk));"));
    ck_assert_ptr_nonnull(strstr(src, "*total = total_value;"));
    ck_assert_ptr_nonnull(strstr(src, "gt_release(n_storage);"));
    ck_assert(compiles(src, hdr));
    free(src);
    free(hdr);
    compiler_free(c);
}
END_TEST

START_TEST(reserved_stencil_name)
{
    char *diag;
    size_t nd;
    FILE *d = open_memstream(&diag, &nd);
    Compiler *c = compiler_new(d);
    c->opts.input = "hand.stn";
    IrStencil *st = stencil_new(c, "exp");
    IrField *out = field_new(c, st, "out", TY_DOUBLE, AXES_IJK, true);
    IrInterval *iv = interval_new(c, st, ORDER_PARALLEL, L0, END);
    assign(c, &iv->stmts, 2, out, num(c, 1.0), 0, 0, 0, 0);
    char *src, *hdr;
    ck_assert(!emit(c, &src, &hdr));
    fclose(d);
    ck_assert_ptr_nonnull(strstr(diag, "stencil name 'exp' is reserved"));
    free(diag);
    free(src);
    free(hdr);
    compiler_free(c);
}
END_TEST

/* The header guard is no reserved identifier whatever the file is called: a header `_q.h`
 * once got `_Q_H_INCLUDED` (C reserves `_` and an upper-case letter) and `a__b.h` got
 * `A__B_H_INCLUDED` (C++, which includes the header too, reserves any `__`). */
START_TEST(header_guard_not_reserved)
{
    static const struct {
        const char *prefix, *header, *guard;
    } cases[] = {
        {NULL, "hand.h", "HAND_H_INCLUDED"},   {NULL, "_q.h", "GTCC_Q_H_INCLUDED"},
        {NULL, "__r.h", "GTCC_R_H_INCLUDED"},  {NULL, "a__b.h", "A_B_H_INCLUDED"},
        {NULL, "a-.-b.h", "A_B_H_INCLUDED"},   {NULL, "1a.h", "GTCC_1A_H_INCLUDED"},
        {NULL, "\xc3\xa9t\xc3\xa9.h", "GTCC_T_H_INCLUDED"}, {"p_", "_x.h", "P_X_H_INCLUDED"},
        {"iord8_", "fv_tp8.h", "IORD8_FV_TP8_H_INCLUDED"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Compiler *c = compiler_new(NULL);
        c->opts.input = "hand.stn";
        c->opts.prefix = cases[i].prefix;
        build_lap(c);
        char *src, *hdr;
        size_t ns, nh;
        FILE *fs = open_memstream(&src, &ns), *fh = open_memstream(&hdr, &nh);
        ck_assert(emit_files(c, &backend_naive, fs, "hand.c", fh, cases[i].header));
        fclose(fs);
        fclose(fh);
        char want[128];
        snprintf(want, sizeof want, "#ifndef %s\n#define %s\n", cases[i].guard,
                 cases[i].guard);
        ck_assert_msg(strstr(hdr, want), "%s: want guard %s in\n%.600s", cases[i].header,
                      cases[i].guard, hdr);
        free(src);
        free(hdr);
        compiler_free(c);
    }
}
END_TEST

/* A stencil without a field along K has one level (gt__compute_domain) whatever the domain
 * given says: where its intervals need more, its refusal says why rather than only "the
 * domain has 1 levels" to a caller who gave 5. */
START_TEST(min_nk_without_k)
{
    Compiler *c = compiler_new(NULL);
    c->opts.input = "hand.stn";
    IrStencil *st = stencil_new(c, "flat");
    IrField *u = field_new(c, st, "u", TY_DOUBLE, AXES_IJ, true);
    IrField *out = field_new(c, st, "out", TY_DOUBLE, AXES_IJ, true);
    st->min_nk = 3;
    IrInterval *iv = interval_new(c, st, ORDER_FORWARD, L0, (Level){false, 3});
    assign(c, &iv->stmts, 2, out, ld(c, u, 0, 0, 0), 0, 0, 0, 0);
    char *src, *hdr;
    ck_assert(emit(c, &src, &hdr));
    ck_assert_ptr_nonnull(strstr(src, "if (nk < 3)"));
    ck_assert_ptr_nonnull(strstr(src, "its intervals need 3 or more (no field of the stencil "
                                      "has axis K, so its domain has 1 level along K, or 0 "
                                      "where the domain given says 0)"));
    ck_assert(compiles(src, hdr));
    free(src);
    free(hdr);
    compiler_free(c);
}
END_TEST

/* Emits stencils named name[0..] (each `out = 1.0`) into src/hdr; the diagnostics
 * in *diag. */
static bool emit_named(const char *const *name, int n, char **diag, char **src, char **hdr)
{
    size_t nd;
    FILE *d = open_memstream(diag, &nd);
    Compiler *c = compiler_new(d);
    c->opts.input = "hand.stn";
    for (int k = 0; k < n; k++) {
        IrStencil *st = stencil_new(c, name[k]);
        st->loc.line = k + 1;
        IrField *out = field_new(c, st, "out", TY_DOUBLE, AXES_IJK, true);
        IrInterval *iv = interval_new(c, st, ORDER_PARALLEL, L0, END);
        assign(c, &iv->stmts, 2, out, num(c, 1.0), 0, 0, 0, 0);
    }
    bool ok = emit(c, src, hdr);
    compiler_free(c);
    fclose(d);
    return ok;
}

/* A stencil named like another's S_info or S_mpi is an error (they are the
 * API's names); one named like its field table gets the table renamed; <omp.h>'s
 * names are reserved. */
START_TEST(global_name_clashes)
{
    char *diag, *src, *hdr;
    const char *const info[] = {"s", "s_info"};
    ck_assert(!emit_named(info, 2, &diag, &src, &hdr));
    ck_assert_ptr_nonnull(strstr(diag, "stencil name 's_info' is the name of the metadata "
                                       "object of stencil 's' (line 1)"));
    free(diag), free(src), free(hdr);
    /* so is one named like another's distributed entry S_mpi, which the header declares
       under MPI */
    const char *const entry[] = {"s", "s_mpi"};
    ck_assert(!emit_named(entry, 2, &diag, &src, &hdr));
    ck_assert_ptr_nonnull(strstr(diag, "stencil name 's_mpi' is the name of the distributed "
                                       "entry of stencil 's' (line 1)"));
    free(diag), free(src), free(hdr);
    const char *const table[] = {"s", "s_fields", "t_fields", "t"};
    ck_assert(emit_named(table, 4, &diag, &src, &hdr));
    ck_assert_str_eq(diag, "");
    ck_assert_ptr_nonnull(strstr(src, "const gt_stencil_info s_info = {\"s\", 1, s_fields_2, 0, NULL, 0};"));
    ck_assert(compiles(src, hdr));
    free(diag), free(src), free(hdr);
    const char *const omp[] = {"omp_get_thread_num", "omp_get_max_threads"};
    ck_assert(!emit_named(omp, 2, &diag, &src, &hdr));
    ck_assert_ptr_nonnull(strstr(diag, "stencil name 'omp_get_max_threads' is reserved"));
    free(diag), free(src), free(hdr);
    /* a C library function the generated code does not declare (POSIX's sync, ISO C's
       time): compiled, with a warning, since in a shared library the dynamic linker may
       bind a call of it to the C library's (S_steps of `stencil sync` synced the disks) */
    const char *const libc[] = {"sync", "time", "relax"};
    ck_assert(emit_named(libc, 3, &diag, &src, &hdr));
    ck_assert_ptr_nonnull(strstr(diag, "warning: stencil name 'sync' is a "
                                       "function of the C library: a program that puts the "
                                       "stencil in a shared library may call the library's "
                                       "'sync' instead; rename the stencil or give gtcc -P "
                                       "PREFIX"));
    ck_assert_ptr_nonnull(strstr(diag, "stencil name 'time' is a function of the C library"));
    ck_assert_ptr_null(strstr(diag, "'relax'"));
    ck_assert(compiles(src, hdr));
    free(diag), free(src), free(hdr);
}
END_TEST

/* Index and bound values (EmitVal): constants fold, equality is on values,
 * and the printer parenthesizes by precedence. Expected text written by hand. */
static const char *val(Arena *a, EmitVal v, int min_prec)
{
    return emit_val_text(a, v, min_prec);
}

START_TEST(values)
{
    Arena *a = arena_new();
    EmitVal ib = emit_val_name("ib");
    ck_assert_str_eq(val(a, emit_val_const(3), 0), "3");
    ck_assert_str_eq(val(a, emit_val_const(-2), PREC_MUL), "-2");
    ck_assert_str_eq(val(a, emit_val_const(-2), PREC_PRIMARY), "(-2)");
    ck_assert_str_eq(val(a, emit_val_add(ib, -1), 0), "ib - 1");
    ck_assert_str_eq(val(a, emit_val_add(ib, -1), PREC_ADD), "ib - 1");
    ck_assert_str_eq(val(a, emit_val_add(ib, -1), PREC_ADD + 1), "(ib - 1)");
    ck_assert_str_eq(val(a, emit_val_add(emit_val_name("nj"), 2), PREC_MUL), "(nj + 2)");
    /* constants fold */
    ck_assert_str_eq(val(a, emit_val_add(emit_val_add(ib, -1), 1), PREC_MUL), "ib");
    ck_assert(emit_val_is_const(emit_val_add(emit_val_const(2), -2), 0));
    ck_assert(!emit_val_is_const(emit_val_add(ib, 0), 0));
    ck_assert(!emit_val_is_const(emit_val_const(1), 0));
    ck_assert_str_eq(val(a, emit_val_sub(a, emit_val_add(ib, 4), emit_val_const(3)), 0), "ib + 1");
    ck_assert_str_eq(val(a, emit_val_sum(a, emit_val_add(ib, 4), emit_val_const(-4)), 0), "ib");
    ck_assert_str_eq(val(a, emit_val_level("nk", (Level){true, -1}, 0), 0), "nk - 1");
    ck_assert_str_eq(val(a, emit_val_level("nk", (Level){true, -1}, 1), 0), "nk");
    ck_assert(emit_val_is_const(emit_val_level("nk", (Level){false, 1}, -1), 0));
    /* equality on values: the same name (spelt in another string) plus the same constant */
    char *lo = arena_printf(a, "%s", "lo_i");
    ck_assert(emit_val_equal(emit_val_add(emit_val_name("lo_i"), 2),
                             emit_val_add(emit_val_name(lo), 2)));
    ck_assert(!emit_val_equal(emit_val_add(emit_val_name("lo_i"), 2), emit_val_name("lo_i")));
    ck_assert(!emit_val_equal(emit_val_name("lo_i"), emit_val_name("hi_i")));
    ck_assert(!emit_val_equal(emit_val_const(0), emit_val_name("0")));
    ck_assert(emit_val_equal(emit_val_add(ib, -1), emit_val_sub(a, ib, emit_val_const(1))));
    /* a term: equal to itself only, whatever another's spelling */
    const char *t = "(x ? y : z)";
    EmitVal tv = emit_val_term(t, PREC_PRIMARY);
    ck_assert(emit_val_equal(emit_val_add(tv, 1), emit_val_add(tv, 1)));
    ck_assert(!emit_val_equal(tv, emit_val_term(arena_printf(a, "%s", t), PREC_PRIMARY)));
    /* differences and sums of terms */
    EmitVal d = emit_val_sub(a, emit_val_add(emit_val_name("i"), -1), ib);
    ck_assert_str_eq(val(a, d, 0), "i - 1 - ib");
    ck_assert_str_eq(val(a, d, PREC_MUL), "(i - 1 - ib)");
    ck_assert_str_eq(val(a, emit_val_sub(a, emit_val_name("a"), d), 0), "a - (i - 1 - ib)");
    ck_assert_str_eq(val(a, emit_val_sum(a, emit_val_name("a"), d), 0), "a + i - 1 - ib");
    EmitVal two = emit_val_paren(a, emit_val_const(2));
    ck_assert(!emit_val_is_const(two, 2));
    ck_assert_str_eq(val(a, emit_val_sub(a, emit_val_name("hi"), two), 0), "hi - (2)");
    ck_assert_str_eq(val(a, emit_val_add(emit_val_paren(a, emit_val_name("n")), 3), 0), "(n) + 3");
    /* a term of lower precedence than + gets parentheses before its constant */
    ck_assert_str_eq(val(a, emit_val_add(emit_val_term("c ? x : y", PREC_COND), 1), 0),
                     "(c ? x : y) + 1");
    ck_assert_str_eq(val(a, emit_val_term("c ? x : y", PREC_COND), PREC_OR), "(c ? x : y)");
    ck_assert_str_eq(val(a, emit_val_term("gt_clamp(k, nk)", PREC_PRIMARY), PREC_MUL),
                     "gt_clamp(k, nk)");
    /* elements: positions times strides, parenthesized where a product needs it */
    EmitVal pos[NAXES] = {emit_val_add(emit_val_name("i"), -1),
                          emit_val_term("gt_clamp(j + 1, nj)", PREC_PRIMARY),
                          emit_val_add(emit_val_name("k"), 2)};
    Out o = {.name = ""};
    emit_element(&o, "u", pos, (const char *const[NAXES]){"si", "sj", NULL});
    ck_assert_str_eq(emit_out_string(a, &o), "u[(i - 1) * si + gt_clamp(j + 1, nj) * sj + k + 2]");
    EmitVal mirror = emit_val_term("gt_mirror_at(i, lo_i, hi_i)", PREC_PRIMARY);
    EmitVal cuda[NAXES] = {emit_val_sub(a, mirror, ib),
                           emit_val_sub(a, emit_val_name("j"), emit_val_name("jb")), {0}};
    emit_element_macro(&o, "GT_LD", "p", cuda, (const char *const[NAXES]){"si", "sj", "sk"});
    ck_assert_str_eq(emit_out_string(a, &o),
                     "GT_LD(p, (gt_mirror_at(i, lo_i, hi_i) - ib) * si + (j - jb) * sj)");
    emit_element(&o, "s", (EmitVal[NAXES]){{0}}, (const char *const[NAXES]){"si", "sj", "sk"});
    ck_assert_str_eq(emit_out_string(a, &o), "s[0]");
    arena_free(a);
}
END_TEST

/* The kit's blocks: every way the indentation changes, against text written
 * out by hand. */
START_TEST(blocks)
{
    Arena *a = arena_new();
    Out o = {.name = "t.c"};
    emit_open(&o, "static const int t[2] = {");
    emit_line(&o, "1,");
    emit_close_with(&o, "};");
    emit_open(&o, "int f(int x)");
    emit_directive(&o, "#define A(i) x");
    emit_dedent(&o);
    emit_open(&o, "{");
    emit_open(&o, "for (int i = 0; i < x; i++)");
    emit_line(&o, "x--;");
    emit_dedent(&o);
    emit_open(&o, "switch (x) {");
    emit_open(&o, "case 1:");
    emit_indent(&o);
    emit_line(&o, "/* column %d */", emit_column(&o));
    emit_dedent(&o);
    emit_line(&o, "break;");
    emit_dedent(&o);
    emit_close(&o);
    emit_begin_line(&o);
    emit_text(&o, "if (x > %d) {", 2);
    emit_end_open(&o);
    emit_line(&o, "goto done;");
    emit_else(&o);
    emit_begin_directive(&o);
    emit_text(&o, "#undef A");
    emit_end_line(&o);
    emit_close(&o);
    emit_reopen(&o, "done:");
    emit_line(&o, "return x;");
    emit_close(&o);
    emit_comment(&o, "end");
    emit_open(&o, "{");
    emit_comment(&o, "a\n\nb");
    emit_close(&o);
    ck_assert_str_eq(emit_out_string(a, &o),
                     "static const int t[2] = {\n"
                     "    1,\n"
                     "};\n"
                     "int f(int x)\n"
                     "#define A(i) x\n"
                     "{\n"
                     "    for (int i = 0; i < x; i++)\n"
                     "        x--;\n"
                     "    switch (x) {\n"
                     "        case 1:\n"
                     "                /* column 16 */\n"
                     "            break;\n"
                     "    }\n"
                     "    if (x > 2) {\n"
                     "        goto done;\n"
                     "    } else {\n"
                     "#undef A\n"
                     "    }\n"
                     "done:\n"
                     "    return x;\n"
                     "}\n"
                     "/* end */\n"
                     "{\n"
                     "    /* a\n"
                     "     *\n"
                     "     * b */\n"
                     "}\n");
    arena_free(a);
}
END_TEST

/* Nothing but emit_out.c changes the indentation (Out.indent): the emitters
 * go through the kit's block functions. */
START_TEST(indent_in_kit_only)
{
    DIR *d = opendir("compiler");   /* the tests run from the repository root */
    ck_assert_ptr_nonnull(d);
    int files = 0, uses = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 3 || (strcmp(e->d_name + n - 2, ".c") && strcmp(e->d_name + n - 2, ".h")) ||
            !strcmp(e->d_name, "emit_out.c"))
            continue;
        char path[512];
        snprintf(path, sizeof path, "compiler/%s", e->d_name);
        FILE *f = fopen(path, "r");
        ck_assert_ptr_nonnull(f);
        files++;
        char line[4096];
        for (int ln = 1; fgets(line, sizeof line, f); ln++)
            if (strstr(line, "->indent") || strstr(line, ".indent")) {
                fprintf(stderr, "%s:%d: Out.indent outside emit_out.c: %s", path, ln, line);
                uses++;
            }
        fclose(f);
    }
    closedir(d);
    ck_assert_int_gt(files, 10);
    ck_assert_int_eq(uses, 0);
}
END_TEST

Suite *suite_emit(void); /* collected by tests/unit/main.c */
Suite *suite_emit(void)
{
    Suite *s = suite_create("emit");
    TCase *tc = tcase_create("naive");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, names);
    tcase_add_test(tc, constants);
    tcase_add_test(tc, literals_round_trip);
    tcase_add_test(tc, precedence);
    tcase_add_test(tc, values);
    tcase_add_test(tc, blocks);
    tcase_add_test(tc, indent_in_kit_only);
    tcase_add_test(tc, lap_file);
    tcase_add_test(tc, tri_file);
    tcase_add_test(tc, mix_file);
    tcase_add_test(tc, reserved_stencil_name);
    tcase_add_test(tc, header_guard_not_reserved);
    tcase_add_test(tc, min_nk_without_k);
    tcase_add_test(tc, global_name_clashes);
    suite_add_tcase(s, tc);
    return s;
}
