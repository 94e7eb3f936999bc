/* gen.c: random well-formed stencil programs for the differential test of the
 * openmp backend against the naive one (tests/diff/run.sh), and the call
 * shims the generic driver needs.
 *
 *   gen SEED            a random program on stdout (deterministic in SEED)
 *   gen --fuzz SEED     the same program with more of the language, for the
 *                       emitters' fuzzing (tests/fuzz/emit.sh): int, float and
 *                       bool fields and scalars, comparisons and logic on them
 *                       (`n == n` included), builtins, mixed types, int, float
 *                       and bool outputs, scalars the body never reads
 *   gen --wrap HEADER   C source defining `diff_stencils`, a table with one
 *                       generic entry per stencil declared in HEADER (a
 *                       header gtcc wrote), on stdout
 *
 * A program has 1 to 3 input fields (IJK, sometimes IJ and K ones), a scalar,
 * boundary conditions on some inputs, temporaries read at horizontal offsets
 * (and reassigned), conditionals with block-local temporaries, parallel
 * computations with several intervals, forward and backward computations with
 * carried values, column reductions, index(), and sometimes a full
 * reduction into an out scalar. Temporaries are only read where they were
 * computed, so every program has one defined result.
 *
 * One seed in FALLBACK_EVERY (seed % FALLBACK_EVERY == 0) also gets an output
 * outf computed by an `if` whose statements run over different regions (it
 * writes a temporary that later statements read at horizontal offsets, and an
 * output or a second temporary read at other offsets), in a parallel or a
 * forward computation. fuse.c (check_if) cannot plan such an `if`, so the
 * openmp backend falls back to the naive code for the whole file (`plan: not
 * fused (...)` in `gtcc --emit=ir`); run.sh compiles these programs in files
 * of their own. The first line of such a program says `fallback`. (The other
 * reason fuse.c knows, a reduction over the domain inside an `if`, is an error
 * in the language, so no well-formed program has it.)
 *
 * The seeds halfway between (seed % FALLBACK_EVERY == FALLBACK_EVERY / 2) get
 * an output outk computed by a forward or backward computation whose `if`
 * reads at k-1 (k+1) the field it writes: the openmp backend fell back for
 * it too before it learnt to run such an `if` level by level (fuse.c).
 *
 * One seed in FUNCTIONS_EVERY (seed % FUNCTIONS_EVERY == 1) also gets
 * functions with statements (language.md 10.2): fh0_SEED (programs share
 * files), random, with locals
 * assigned under if / else if / else and two results, fh1 with one result
 * (sometimes calling fh0 in a multiple assignment of its locals), and fsw,
 * a swap; the stencil calls them as the last things it does (outputs outh
 * and outh2): a, b = fh0(...) into temporaries read at offsets, a, b =
 * fsw(a, b), fh1 under an if, and a forward computation with multiple
 * assignments per level (one through temporaries: outh2, m = fsw(outh2[k-1]
 * * 0.5, ...) reads the target it assigns first). The functions are drawn
 * from a generator of their own and the calls after every other draw, so
 * that the rest of the program is what it was before functions were added.
 *
 * One seed in KDYN_EVERY (seed % KDYN_EVERY == 2) gets an output outr that
 * reads inputs at run-time K levels (language.md 10.3), drawn after
 * everything else so that the rest of the program is the one the seed made
 * before: levels bounded by construction (index(k) / 2, k - min(index(k),
 * c), a data-dependent choice between them), through a temporary read at an
 * I offset, sometimes in a forward computation, and one program in four of
 * these with k + (cond ? 1 : 0), past the top level where cond holds there:
 * every backend must then refuse the call with the same GT_ESHAPE message
 * (unless the storages' K halo, which the driver sometimes adds, holds it).
 * In every other such seed (by the seed alone) the conditions are temporaries
 * (tc0, tc1), so that the levels are checked as they are read, not up front.
 *
 * About one seed in three (decided by a hash of the seed, so that the other
 * programs stay as they were; drawn after everything else) also gets an
 * output outz computed with horizontal regions (language.md 10.1): a
 * temporary computed everywhere, then again in regions that may lie in the
 * halo, read at offsets; regions on the domain's edges, nested, around and
 * inside an `if` (with an else branch), and in a forward computation. Each
 * region statement only changes a value computed everywhere before it, so
 * every program keeps one defined result. A temporary written only in regions
 * that meet (pieces) is read at offsets too.
 *
 * Another one seed in three (by another hash of the seed, drawn last) gets an
 * output outw computed with while loops (language.md 10.4), each bounded by a
 * counter so that it ends whatever the data: temporaries computed by a loop
 * and read at offsets after it, a loop writing the output with an if inside,
 * nested loops inside an if, a loop in a forward computation reading the level
 * below.
 *
 * A third one seed in three (a third hash) gets an output outs read through a tile
 * whose producer computes a scalar temporary first (scalars(), below).
 *
 * A fourth one seed in three (a fourth hash) gets lower-dimensional fields: IK, JK, I and J
 * inputs, temporaries declared with axes K, IJ and IK, an IJ output accumulated over the
 * column, a K output, and outd reading them inflated into IJK (dims(), below). */
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static bool chance(unsigned percent)
{
    return rnd(100) < percent;
}

/* A second stream for the language's v2 additions (conversions, the v2 builtins,
 * while loops): drawing them from it leaves the draws of rng, and so the
 * structure of every seed's program, as they were before v2; v2 only wraps
 * some expressions and adds some statements. */
static uint64_t rng_v2;

static unsigned rnd_v2(unsigned n)
{
    rng_v2 ^= rng_v2 << 13;
    rng_v2 ^= rng_v2 >> 7;
    rng_v2 ^= rng_v2 << 17;
    return (unsigned)(rng_v2 % n);
}

typedef struct {
    char text[4096];
    size_t len;
} Buf;

static void put(Buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->text + b->len, sizeof b->text - b->len, fmt, ap);
    va_end(ap);
    if (n > 0 && b->len + (size_t)n < sizeof b->text)
        b->len += (size_t)n;
}

/* The names an expression may read. */
typedef struct {
    int ninputs;          /* in0.. (IJK) */
    bool has_ij, has_k;   /* s2 (IJ), kc (K) */
    int ntemps;           /* t0.. : IJK temporaries, readable at horizontal offsets */
    const char *local;    /* a block-local temporary readable at zero offset, or NULL */
    bool bc[3];           /* in0..in2 have a boundary condition: any offset */
    bool allow_k;         /* K offsets on inputs */
    bool allow_col;       /* column reductions */
} Scope;

/* gen --fuzz: the program also has int n, bool flag, float fs scalars, int mi
 * and float ff fields, and expressions use them (plain programs stay as they
 * were: nothing below draws a random number unless fuzz is set). */
static bool fuzz;

static void offset(Buf *b, int maxoff, bool k)
{
    int di = (int)rnd(2 * maxoff + 1) - maxoff, dj = (int)rnd(2 * maxoff + 1) - maxoff;
    int dk = k && chance(30) ? (int)rnd(3) - 1 : 0;
    if (!di && !dj && !dk)
        return;
    put(b, "[");
    const char *sep = "";
    if (di) { put(b, "i%+d", di); sep = ", "; }
    if (dj) { put(b, "%sj%+d", sep, dj); sep = ", "; }
    if (dk) put(b, "%sk%+d", sep, dk);
    put(b, "]");
}

static void expr(Buf *b, const Scope *s, int depth);
static void int_expr(Buf *b, const Scope *s, int depth);
static void bool_expr(Buf *b, const Scope *s, int depth);

static void leaf(Buf *b, const Scope *s)
{
    if (fuzz && chance(30)) {
        switch (rnd(6)) {
        case 0: put(b, "ff"); offset(b, 1, false); return;
        case 1: put(b, "fs"); return;
        case 2: put(b, "("); int_expr(b, s, 1); put(b, ")"); return;
        case 3: put(b, "mi"); offset(b, 1, false); return;
        case 4: put(b, "%d", (int)rnd(5)); return;
        default: put(b, "%d.%de%d", (int)rnd(10), (int)rnd(10), (int)rnd(7) - 3); return;
        }
    }
    switch (rnd(10)) {
    case 0:
        put(b, "%d.%d", (int)rnd(3), (int)rnd(10));
        return;
    case 1:
        put(b, "alpha");
        return;
    case 2:
        if (s->has_ij) { put(b, "s2"); offset(b, 1, false); return; }
        break;
    case 3:
        if (s->has_k) { put(b, "kc"); if (s->allow_k && chance(40)) put(b, "[k%+d]", (int)rnd(3) - 1); return; }
        break;
    case 4: case 5:
        if (s->ntemps) { put(b, "t%d", (int)rnd((unsigned)s->ntemps)); offset(b, 1, false); return; }
        break;
    case 6:
        if (s->local) { put(b, "%s", s->local); return; }
        break;
    case 7:
        if (chance(30)) { put(b, "index(%c)", "ijk"[rnd(3)]); return; }
        break;
    default:
        break;
    }
    put(b, "in%d", (int)rnd((unsigned)s->ninputs));
    offset(b, 2, s->allow_k);
}

static void expr_v1(Buf *b, const Scope *s, int depth);

/* An expression; one in 20 wrapped in a v2 builtin or conversion (rng_v2). */
static void expr(Buf *b, const Scope *s, int depth)
{
    static const char *const open[] = {
        "", "asinh(", "atanh(0.5 * tanh(", "acosh(1.0 + abs(", "erf(", "erfc(", "exp2(min(",
        "log2(1.0 + abs(", "expm1(min(", "log1p(abs(", "hypot(", "copysign(1.5, ",
        "lgamma(1.5 + abs(", "tgamma(1.0 + min(abs(", "double(int(4.0 * (", "double(float(",
        "(isfinite(",
    };
    static const char *const close[] = {
        "", ")", "))", "))", ")", ")", ", 4.0))", "))", ", 2.0))", "))", ", 0.5)", ")", "))",
        "), 3.0))", "))) * 0.25", "))", ") ? 1.0 : -1.0)",
    };
    unsigned w = rnd_v2(20) == 0 ? 1 + rnd_v2(sizeof open / sizeof *open - 1) : 0;
    put(b, "%s", open[w]);
    expr_v1(b, s, depth);
    put(b, "%s", close[w]);
}

static void expr_v1(Buf *b, const Scope *s, int depth)
{
    if (depth <= 0 || chance(25)) {
        leaf(b, s);
        return;
    }
    if (fuzz && chance(35)) {
        static const char *const unary[] = {"sqrt(abs(", "exp(min(", "floor(", "ceil(",
                                            "trunc(", "round(", "sin(", "atan(", "tanh(",
                                            "cbrt(", "log(1.0 + abs("};
        static const char *const close[] = {"))", ", 1.0))", ")", ")", ")", ")", ")", ")",
                                            ")", ")", "))"};
        int u = (int)rnd(sizeof unary / sizeof *unary);
        switch (rnd(7)) {
        case 0: case 1:
            put(b, "(");
            bool_expr(b, s, depth - 1);
            put(b, " ? ");
            expr(b, s, depth - 1);
            put(b, " : ");
            expr(b, s, depth - 1);
            put(b, ")");
            return;
        case 2:
            put(b, "%s", unary[u]);
            expr(b, s, depth - 1);
            put(b, "%s", close[u]);
            return;
        case 3:
            put(b, "%s(", chance(50) ? "atan2" : chance(50) ? "fmod" : "pow");
            expr(b, s, depth - 1);
            put(b, ", 1.5 + abs(");
            expr(b, s, depth - 1);
            put(b, "))");
            return;
        case 4:
            int_expr(b, s, depth - 1);
            put(b, " * ");
            leaf(b, s);
            return;
        case 5:
            expr(b, s, depth - 1);
            put(b, " / (2.0 + abs(");
            expr(b, s, depth - 1);
            put(b, "))");
            return;
        default:
            put(b, "ff * ");
            leaf(b, s);
            return;
        }
    }
    switch (rnd(9)) {
    case 0: case 1:
        expr(b, s, depth - 1); put(b, " + "); expr(b, s, depth - 1); return;
    case 2:
        expr(b, s, depth - 1); put(b, " - "); expr(b, s, depth - 1); return;
    case 3: case 4:
        put(b, "("); expr(b, s, depth - 1); put(b, ") * "); leaf(b, s); return;
    case 5:
        put(b, "%s(", chance(50) ? "min" : "max");
        expr(b, s, depth - 1); put(b, ", "); expr(b, s, depth - 1); put(b, ")"); return;
    case 6:
        put(b, "("); expr(b, s, depth - 1); put(b, " > 0.0 ? "); expr(b, s, depth - 1);
        put(b, " : "); leaf(b, s); put(b, ")"); return;
    case 7:
        if (s->allow_col) {
            put(b, "%s(in%d * 0.5, k)", chance(60) ? "sum" : chance(50) ? "min" : "max",
                (int)rnd((unsigned)s->ninputs));
            return;
        }
        put(b, "abs("); expr(b, s, depth - 1); put(b, ")"); return;
    default:
        put(b, "0.5 * "); leaf(b, s); return;
    }
}

/* gen --fuzz: an int expression (no constant that overflows). One in four of
 * its sums is a product, quotient or remainder instead (draws of rng_v2, so
 * that the rest of every seed's program is as it was), whose divisor `mi % n`
 * is 0 or -1 at many points: language.md 5.3 defines those (gt_idiv,
 * gt_imod). */
static void int_expr(Buf *b, const Scope *s, int depth)
{
    switch (depth <= 0 ? rnd(4) : rnd(9)) {
    case 0: put(b, "n"); return;
    case 1: put(b, "mi"); offset(b, 1, false); return;
    case 2: put(b, "index(%c)", "ijk"[rnd(3)]); return;
    case 3: put(b, "%d", (int)rnd(7) - 3); return;
    case 4: {
        const char *op = chance(50) ? "+" : "-";
        if (rnd_v2(4) == 0) {
            static const char *const mul[] = {"*", "/", "%"};
            op = mul[rnd_v2(3)];
            put(b, "(");
            int_expr(b, s, depth - 1);
            put(b, ") %s ", op);
            if (*op == '*') {
                put(b, "(");
                int_expr(b, s, depth - 1);
                put(b, ")");
                return;
            }
            /* a divisor that is 0 or -1 at many points but never a constant
               (one that folds to 0 is an error of gtcc) */
            int di = (int)rnd_v2(3) - 1, dj = (int)rnd_v2(3) - 1;
            put(b, "(mi[i%+d, j%+d] %% %d)", di, dj, 2 + (int)rnd_v2(3));
            return;
        }
        int_expr(b, s, depth - 1);
        put(b, " %s ", op);
        int_expr(b, s, depth - 1);
        return;
    }
    case 5: put(b, "("); int_expr(b, s, depth - 1); put(b, ") %% %d", 1 + (int)rnd(4)); return;
    case 6: put(b, "%s(", chance(50) ? "min" : "max"); int_expr(b, s, depth - 1); put(b, ", ");
            int_expr(b, s, depth - 1); put(b, ")"); return;
    case 7: put(b, "abs("); int_expr(b, s, depth - 1); put(b, ")"); return;
    default: put(b, "("); bool_expr(b, s, depth - 1); put(b, " ? "); int_expr(b, s, depth - 1);
             put(b, " : "); int_expr(b, s, depth - 1); put(b, ")"); return;
    }
}

/* gen --fuzz: a bool expression: comparisons of ints, floats and bools (an
 * operand compared with itself among them), flag, isnan, && || !. */
static void bool_expr(Buf *b, const Scope *s, int depth)
{
    static const char *const cmp[] = {"==", "!=", "<", "<=", ">", ">="};
    const char *op = cmp[rnd(6)];
    switch (depth <= 0 ? rnd(5) : rnd(8)) {
    case 0: put(b, "flag"); return;
    case 1: {   /* an int compared with itself or another */
        Buf x = {{0}, 0};
        int_expr(&x, s, 1);
        put(b, "%s %s ", x.text, op);
        if (chance(50)) put(b, "%s", x.text); else int_expr(b, s, 1);
        return;
    }
    case 2: {   /* a double compared with itself (NaN) or another */
        Buf x = {{0}, 0};
        leaf(&x, s);
        put(b, "%s %s ", x.text, op);
        if (chance(40)) put(b, "%s", x.text); else leaf(b, s);
        return;
    }
    case 3: put(b, "%s(", chance(50) ? "isnan" : "isinf"); leaf(b, s); put(b, ")"); return;
    case 4: put(b, "flag %s flag", chance(50) ? "==" : "!="); return;
    case 5: put(b, "!("); bool_expr(b, s, depth - 1); put(b, ")"); return;
    case 6: put(b, "("); bool_expr(b, s, depth - 1); put(b, ") == ("); bool_expr(b, s, depth - 1);
            put(b, ")"); return;
    default: bool_expr(b, s, depth - 1); put(b, " %s ", chance(50) ? "&&" : "||");
             put(b, "("); bool_expr(b, s, depth - 1); put(b, ")"); return;
    }
}

enum { FALLBACK_EVERY = 8 };
enum { KDYN_EVERY = 5 };

static const char *const fallback_kinds[] = {
    "parallel, temporary and output", "parallel, two temporaries", "forward, temporary and output",
};

/* An if whose statements run over different regions (see the top): writes outf. */
static void fallback(const Scope *s, unsigned kind)
{
    Scope e = *s;
    e.allow_col = false;
    e.local = NULL;
    Buf a = {{0}, 0}, b = {{0}, 0}, c = {{0}, 0}, d = {{0}, 0};
    expr(&a, &e, 2);
    expr(&b, &e, 2);
    expr(&c, &e, 1);
    expr(&d, &e, 2);
    /* u0 is computed where its later reads at offsets need it, outf (or u1,
     * read at other offsets) elsewhere */
    int di = chance(50) ? 1 : -1, dj = chance(50) ? 1 : -1;
    switch (kind) {
    case 0:
        printf("  computation(parallel) {\n    interval(0, end) {\n");
        printf("      double u0 = %s;\n", a.text);
        printf("      if (in0 - %s > 0.25) { u0 = %s; outf = u0 + %s; } else { outf = u0 * 0.5; }\n",
               c.text, b.text, d.text);
        printf("      outf = outf * 0.5 + u0[i%+d] + u0[j%+d];\n", di, dj);
        printf("    }\n  }\n");
        break;
    case 1:
        printf("  computation(parallel) {\n    interval(0, end) {\n");
        printf("      double u0 = %s;\n", a.text);
        printf("      double u1 = %s;\n", d.text);
        printf("      if (in0 - %s > 0.25) { u0 = %s; u1 = u1 * 0.5 - u0; } else { u1 = u0; }\n",
               c.text, b.text);
        printf("      outf = u0[i%+d, j%+d] + u1[j%+d] * 0.5 + u1;\n", di, dj, -dj);
        printf("    }\n  }\n");
        break;
    default:
        printf("  computation(forward) {\n    interval(0, end) {\n");
        printf("      double u0 = %s;\n", a.text);
        printf("      if (in0 - %s > 0.25) { u0 = %s; outf = u0 * 0.5 + %s; } else { outf = u0; }\n",
               c.text, b.text, d.text);
        printf("    }\n  }\n");
        printf("  computation(parallel) {\n");
        printf("    interval(0, end) { outf = outf + u0[i%+d] * 0.25 + u0[j%+d]; }\n  }\n", di, dj);
        break;
    }
}

/* A forward (backward) computation whose if reads at k-1 (k+1) the field it
 * writes, outk: levels already computed. */
static void kif(const Scope *s, bool fwd)
{
    Scope e = *s;
    e.allow_col = false;
    e.local = NULL;
    Buf a = {{0}, 0}, b = {{0}, 0}, c = {{0}, 0}, d = {{0}, 0};
    expr(&a, &e, 2);
    expr(&b, &e, 2);
    expr(&c, &e, 1);
    expr(&d, &e, 2);
    const char *prev = fwd ? "outk[k-1]" : "outk[k+1]";
    printf("  computation(%s) {\n", fwd ? "forward" : "backward");
    printf("    interval(%s) { outk = %s; }\n", fwd ? "0, 1" : "end - 1, end", a.text);
    printf("    interval(%s) {\n", fwd ? "1, end" : "0, end - 1");
    switch (rnd(3)) {
    case 0:   /* in a branch */
        printf("      if (in0 + %s > 0.0) outk = %s * 0.5 + %s; else outk = %s;\n", c.text, prev,
               b.text, d.text);
        break;
    case 1:   /* in the condition */
        printf("      if (%s + %s > 0.0) outk = %s; else outk = %s * 0.25 - %s;\n", prev,
               c.text, b.text, prev, d.text);
        break;
    default:  /* one branch only: the other points keep what outk held */
        printf("      if (in0 * %s < 0.5) {\n        double r = %s;\n        outk = r + %s * "
               "0.5;\n      }\n", c.text, b.text, prev);
        break;
    }
    printf("    }\n  }\n");
}

enum { FUNCTIONS_EVERY = 3 };
/* One seed in ITERATE_EVERY (seed % ITERATE_EVERY == ITERATE_EVERY - 1) gets a second
   stencil with iterate after its own (iterate_stencil). */
enum { ITERATE_EVERY = 4 };
static void iterate_stencil(unsigned seed);

/* An expression of a function body over its parameters p0..np-1 (at offsets)
 * and its first nl locals l0.. (at zero offset). */
static void fexpr(Buf *b, int np, int nl, int depth)
{
    if (depth <= 0 || chance(30)) {
        unsigned r = rnd(10);
        if (r < 2) {
            put(b, "%d.%d", (int)rnd(3), (int)rnd(10));
        } else if (r < 5 && nl) {
            put(b, "l%d", (int)rnd((unsigned)nl));
        } else {
            put(b, "p%d", (int)rnd((unsigned)np));
            offset(b, 1, false);
        }
        return;
    }
    switch (rnd(5)) {
    case 0:
        put(b, "min(");
        fexpr(b, np, nl, depth - 1);
        put(b, ", ");
        fexpr(b, np, nl, depth - 1);
        put(b, ")");
        return;
    case 1:
        put(b, "(");
        fexpr(b, np, nl, depth - 1);
        put(b, " > 0.0 ? ");
        fexpr(b, np, nl, depth - 1);
        put(b, " : 0.5)");
        return;
    default: {
        static const char *const ops[] = {" + ", " - ", " * "};
        put(b, "(");
        fexpr(b, np, nl, depth - 1);
        put(b, "%s", ops[rnd(3)]);
        fexpr(b, np, nl, depth - 1);
        put(b, ")");
        return;
    }
    }
}

/* The functions fh0, fh1 and fsw (see the top), from a generator of their own. */
static void functions(unsigned seed)
{
    uint64_t saved = rng;
    rng = 0x5851f42d4c957f2dull ^ ((uint64_t)seed * 0x9e3779b97f4a7c15ull);
    for (int i = 0; i < 4; i++)
        rnd(2);
    Buf a = {{0}, 0}, b = {{0}, 0}, c = {{0}, 0}, d = {{0}, 0}, e = {{0}, 0}, f = {{0}, 0};
    fexpr(&a, 2, 0, 2);
    fexpr(&b, 2, 1, 2);
    fexpr(&c, 2, 2, 1);
    fexpr(&d, 2, 2, 2);
    fexpr(&e, 2, 2, 2);
    fexpr(&f, 2, 2, 2);
    static const char *const aops[] = {"=", "+=", "-=", "*="};
    printf("function fh0_%u(p0, p1) {\n  double l0 = %s;\n  double l1 = %s;\n", seed, a.text, b.text);
    printf("  if (%s > 0.25) {\n    l0 %s %s;\n  }", c.text, aops[rnd(4)], d.text);
    if (chance(50))
        printf(" else if (l1 < p1[j%+d]) {\n    double l2 = l0 * 0.5;\n    l1 = l2 + %s;\n  }",
               (int)rnd(3) - 1, e.text);
    if (chance(70))
        printf(" else {\n    l1 %s %s;\n    if (l1 > 1.0) l1 = 1.0;\n  }", aops[rnd(4)], f.text);
    printf("\n  return l0, %s;\n}\n", chance(50) ? "l1" : "l1 - l0 * 0.25");
    Buf g = {{0}, 0}, h = {{0}, 0};
    fexpr(&g, 1, 0, 2);
    fexpr(&h, 1, 2, 2);
    printf("function fh1_%u(p0) {\n  double l0 = %s;\n", seed, g.text);
    if (chance(50))
        printf("  double l1 = 0.0;\n  l0, l1 = fh0_%u(p0, p0[i%+d] * 0.5);\n", seed, (int)rnd(3) - 1);
    else
        printf("  double l1 = l0 * 0.5;\n");
    printf("  if (%s < 0.0) { l0 = l1; }\n  return l0 * 0.5 + l1;\n}\n", h.text);
    printf("function fsw_%u(a, b) { return b, a; }\n", seed);
    rng = saved;
}

/* The calls of the functions (see the top): outputs outh and outh2. */
static void calls(const Scope *s, unsigned seed)
{
    Scope e = *s;
    e.allow_col = false;
    e.local = NULL;
    e.has_k = false;   /* the functions read their parameters at I and J offsets */
    Buf a = {{0}, 0}, b = {{0}, 0}, c = {{0}, 0}, d = {{0}, 0}, f = {{0}, 0}, g = {{0}, 0};
    expr(&a, &e, 2);
    expr(&b, &e, 2);
    expr(&c, &e, 1);
    expr(&d, &e, 2);
    expr(&f, &e, 1);
    expr(&g, &e, 2);
    printf("  double fa = 0.0;\n  double fb = 0.0;\n");
    printf("  fa, fb = fh0_%u(%s, %s);\n", seed, a.text, b.text);
    if (chance(50))
        printf("  fa, fb = fsw_%u(fa, fb);\n", seed);
    printf("  outh = fa[i%+d] + fb[j%+d] * 0.5 + fh1_%u(fb);\n", (int)rnd(3) - 1, (int)rnd(3) - 1,
           seed);
    printf("  if (%s < 0.5) { outh = outh * 0.5 + fh1_%u(%s); }\n", c.text, seed, d.text);
    printf("  computation(forward) {\n");
    printf("    interval(0, 1) { outh2 = fh1_%u(%s); }\n", seed, f.text);
    printf("    interval(1, end) {\n      double m = 0.0;\n");
    printf("      if (outh2[k-1] > 0.0) { m, outh2 = fh0_%u(%s, %s); }\n", seed, g.text, a.text);
    printf("      else { outh2, m = fsw_%u(outh2[k-1] * 0.5, %s); }\n", seed, b.text);
    printf("      outh2 = outh2 + m * 0.25;\n");
    printf("    }\n  }\n");
}

/* outr: reads at run-time K levels of the inputs without a K boundary
 * condition (kbc[i]), of the K field kc too (see KDYN_EVERY); with temp, the
 * conditions of the levels are temporaries, so that the levels are checked as
 * they are read rather than up front. */
static void kdyn(const Scope *s, const bool *kbc, bool temp)
{
    Scope z = {0};   /* what a level expression may read: inputs, index() */
    z.ninputs = s->ninputs;
    z.has_ij = s->has_ij;
    z.has_k = s->has_k;
    z.allow_k = true;
    int ok[3], nok = 0;
    for (int i = 0; i < s->ninputs; i++)
        if (!kbc[i])
            ok[nok++] = i;
    bool past = chance(25);
    Buf r[2] = {{{0}, 0}, {{0}, 0}};
    for (int n = 0; n < 2; n++) {
        Buf c = {{0}, 0};
        expr(&c, &z, 1);
        if (temp) {
            printf("  double tc%d = %s;\n", n, c.text);
            c.len = 0;
            put(&c, "tc%d", n);
        }
        const char *field = "kc";
        char name[8];
        if (nok > 0 && (!s->has_k || chance(75))) {
            snprintf(name, sizeof name, "in%d", ok[rnd((unsigned)nok)]);
            field = name;
        } else if (!s->has_k) {
            put(&r[n], "0.5");
            continue;
        }
        bool k_only = field[0] == 'k';
        switch (past && n == 0 ? 3 : rnd(3)) {
        case 0:
            put(&r[n], "%s[k = ((%s) > 0.0 ? index(k) : index(k) / 2)]", field, c.text);
            break;
        case 1:
            put(&r[n], "%s[%sk - (min(index(k), 1 + ((%s) > 0.5 ? 1 : 0)))]", field,
                k_only ? "" : "i+1, ", c.text);
            break;
        case 2:
            put(&r[n], "%s[k + ((%s) > 0.0 ? 0 : -min(index(k), 2))]", field, c.text);
            break;
        default:
            put(&r[n], "%s[k + ((%s) > 0.8 ? 1 : 0)]", field, c.text);
            break;
        }
    }
    printf("  double tr = %s;\n", r[0].text);
    if (chance(40)) {
        printf("  computation(forward) {\n");
        printf("    interval(0, 1) { outr = tr[i-1] + %s; }\n", r[1].text);
        printf("    interval(1, end) { outr = outr[k-1] * 0.5 + tr; }\n");
        printf("  }\n");
    } else {
        printf("  outr = tr[i-1] + tr * 0.5 + %s;\n", r[1].text);
    }
}
static void regions(const Scope *s, unsigned seed);
static void pieces(unsigned seed);
static bool has_regions(unsigned seed);
static void loops(const Scope *s);
static bool has_loops(unsigned seed);
static void scalars(const Scope *s);
static bool has_scalars(unsigned seed);
static void dims(const Scope *s);
static bool has_dims(unsigned seed);

static void program(unsigned seed)
{
    rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)seed * 0x2545f4914f6cdd1dull);
    rng_v2 = (0x6a09e667f3bcc909ull ^ ((uint64_t)seed * 0x9e3779b97f4a7c15ull)) | 1;
    for (int i = 0; i < 4; i++)
        rnd(2);
    Scope s = {0};
    s.ninputs = 1 + (int)rnd(3);
    s.has_ij = chance(30);
    s.has_k = chance(30);
    bool reduce = chance(20);
    bool vertical = chance(40);
    bool two_outputs = chance(40);
    bool colgroup = vertical && chance(50);
    /* from the seed alone, so that the other programs stay as they were */
    bool fb = seed % FALLBACK_EVERY == 0;
    unsigned fb_kind = seed / FALLBACK_EVERY % 3;
    bool kf = seed % FALLBACK_EVERY == FALLBACK_EVERY / 2;
    bool kf_fwd = seed / FALLBACK_EVERY % 2 == 0;
    bool fns = seed % FUNCTIONS_EVERY == 1;
    bool kd = seed % KDYN_EVERY == 2;
    bool kd_temp = seed / KDYN_EVERY % 2 == 1;
    if (fb)
        printf("// random program, seed %u, fallback (%s)\n", seed, fallback_kinds[fb_kind]);
    else if (kf)
        printf("// random program, seed %u, if reading k%s1 (%s)\n", seed, kf_fwd ? "-" : "+",
               kf_fwd ? "forward" : "backward");
    else
        printf("// random program, seed %u\n", seed);
    if (fns)
        functions(seed);
    printf("stencil rnd%u(", seed);
    for (int i = 0; i < s.ninputs; i++)
        printf("field<double> in%d, ", i);
    if (s.has_ij)
        printf("field<double, IJ> s2, ");
    if (s.has_k)
        printf("field<double, K> kc, ");
    printf("double alpha, field<double> out0");
    if (fuzz)
        printf(", int n, bool flag, float fs, field<int> mi, field<float> ff, field<int> oi, "
               "field<bool> ob, field<float> of, %s unread", chance(50) ? "int" : "double");
    if (two_outputs)
        printf(", field<double> out1");
    if (vertical)
        printf(", field<double> outv");
    if (colgroup)
        printf(", field<double> outg");
    if (fb)
        printf(", field<double> outf");
    if (kf)
        printf(", field<double> outk");
    if (fns)
        printf(", field<double> outh, field<double> outh2");
    if (kd)
        printf(", field<double> outr");
    if (reduce)
        printf(", out double total");
    bool with_regions = !fb && has_regions(seed);
    if (with_regions)
        printf(", field<double> outz");
    bool with_loops = !fb && has_loops(seed);
    if (with_loops)
        printf(", field<double> outw");
    bool with_scalars = !fb && has_scalars(seed);
    if (with_scalars)
        printf(", field<double> outs");
    bool with_dims = !fb && has_dims(seed);
    if (with_dims)
        printf(", field<double, IK> lik, field<double, JK> ljk, field<double, I> li, "
               "field<double, J> lj, field<double> outd, field<double, IJ> odij, "
               "field<double, K> odk");
    printf(") {\n");
    static const char *const bcs[] = {"periodic", "dirichlet(0.5)", "neumann", "mirror"};
    bool kbc[3] = {false, false, false};   /* a boundary condition along K */
    for (int i = 0; i < s.ninputs; i++)
        if (chance(30)) {
            const char *axes = chance(25) ? "(k)" : chance(30) ? "(i)" : "";
            kbc[i] = axes[1] == 'k';
            printf("  boundary in%d%s: %s;\n", i, axes, bcs[rnd(4)]);
        }
    /* temporaries in the implicit parallel computation */
    s.allow_k = true;
    s.allow_col = chance(25);
    int ntemps = (int)rnd(5);
    for (int t = 0; t < ntemps; t++) {
        Buf b = {{0}, 0};
        expr(&b, &s, 1 + (int)rnd(3));
        printf("  double t%d = %s;\n", t, b.text);
        s.ntemps = t + 1;
        if (chance(25)) {
            Buf c = {{0}, 0}, v = {{0}, 0};
            expr(&c, &s, 1);
            Scope z = s;
            z.ntemps = t;   /* the temporary itself at zero offset only */
            expr(&v, &z, 2);
            printf("  if (%s > 0.0) t%d = %s + t%d; else t%d = t%d * 0.5;\n", c.text, t, v.text,
                   t, t, t);
        }
    }
    /* outputs: a conditional with a block-local, and plain assignments */
    {
        Buf b = {{0}, 0};
        expr(&b, &s, 3);
        printf("  out0 = %s", b.text);
        for (int t = 0; t < s.ntemps; t++) {   /* every temporary reaches an output */
            Buf o = {{0}, 0};
            offset(&o, 1, false);
            printf(" + t%d%s", t, o.text);
        }
        printf(";\n");
        if (chance(50)) {
            Buf c = {{0}, 0}, l = {{0}, 0}, v = {{0}, 0};
            expr(&c, &s, 2);
            expr(&l, &s, 2);
            Scope in = s;
            in.local = "q";
            expr(&v, &in, 2);
            printf("  if (%s < 0.25) {\n    double q = %s;\n    out0 = q * 0.5 + %s;\n  }\n", c.text,
                   l.text, v.text);
        }
    }
    if (reduce) {
        Buf b = {{0}, 0};
        Scope r = s;
        r.allow_col = false;
        expr(&b, &r, 2);
        static const char *const red[] = {"sum", "min", "max"};
        printf("  total = %s(%s);\n", red[rnd(3)], b.text);
    }
    if (two_outputs) {
        /* intervals of an explicit parallel computation */
        Scope p = s;
        p.allow_col = false;
        Buf a = {{0}, 0}, b = {{0}, 0}, c = {{0}, 0};
        expr(&a, &p, 2);
        expr(&b, &p, 2);
        expr(&c, &p, 2);
        printf("  computation(parallel) {\n");
        printf("    interval(0, 1) { out1 = %s; }\n", a.text);
        printf("    interval(1, end - 1) { double w = %s; out1 = w * 0.5 + %s; }\n", b.text,
               c.text);
        printf("    interval(end - 1, end) { out1 = 1.5; }\n");
        printf("  }\n");
    }
    if (vertical) {
        Scope v = s;
        v.allow_col = false;
        Buf a = {{0}, 0}, b = {{0}, 0}, c = {{0}, 0};
        expr(&a, &v, 2);
        expr(&b, &v, 2);
        expr(&c, &v, 1);
        bool fwd = chance(50);
        bool horizontal = chance(30);
        printf("  computation(%s) {\n", fwd ? "forward" : "backward");
        if (fwd && chance(35)) {
            /* a carried temporary read at horizontal offsets: level by level */
            printf("    interval(0, 1) { double h = %s; outv = h; }\n", a.text);
            printf("    interval(1, end) { h = h[k-1] * 0.5 + %s; outv = h[i+1] + h[j-1] * 0.25; }\n",
                   b.text);
        } else if (fwd) {
            printf("    interval(0, 1) { outv = %s; }\n", a.text);
            printf("    interval(1, end) { double c = outv[k-1] * 0.5; outv = c + %s%s; }\n",
                   b.text, horizontal ? " + 0.25 * out0[i+1]" : "");
        } else {
            printf("    interval(end - 1, end) { outv = %s; }\n", a.text);
            printf("    interval(0, end - 1) { double c = outv[k+1] * 0.5; outv = c + %s; }\n",
                   b.text);
        }
        printf("  }\n");
        if (chance(40)) {
            /* a second sweep reading the first one at horizontal offsets */
            printf("  computation(forward) {\n");
            printf("    interval(0, end) { outv = outv + 0.125 * %s; }\n", c.text);
            printf("  }\n");
        }
        if (colgroup) {
            /* sweeps that join the ones above in a column group (or start
             * their own, when the backward one reads outv at an I offset):
             * a temporary and an output carried over two levels across
             * intervals, an if reading back what it writes */
            Buf d = {{0}, 0}, e = {{0}, 0}, f = {{0}, 0};
            expr(&d, &v, 2);
            expr(&e, &v, 2);
            expr(&f, &v, 1);
            printf("  computation(forward) {\n");
            printf("    interval(0, 1) { double g = %s; outg = g; }\n", d.text);
            printf("    interval(1, 2) { g = g[k-1] * 0.5 + %s; outg = g + outg[k-1]; }\n", e.text);
            printf("    interval(2, end) {\n      g = 0.5 * g[k-1] + 0.25 * g[k-2] + %s;\n",
                   f.text);
            printf("      if (g > 0.5) { outg = outg[k-1] - g[k-2]; } else { outg = g * 0.5 + "
                   "outg[k-2]; }\n    }\n  }\n");
            printf("  computation(backward) {\n");
            printf("    interval(end - 1, end) { outg = outg + g; }\n");
            printf("    interval(0, end - 1) { outg = outg * 0.5 + outg[k+1] * 0.25 + g[k+1]%s; }\n",
                   chance(30) ? " + 0.125 * outv[i+1]" : "");
            printf("  }\n");
        }
    }
    if (fuzz) {
        Buf a = {{0}, 0}, c = {{0}, 0}, d = {{0}, 0};
        Scope f = s;
        f.allow_col = false;
        int_expr(&a, &f, 3);
        bool_expr(&c, &f, 3);
        expr(&d, &f, 3);
        printf("  oi = %s;\n  ob = %s;\n  of = %s;\n", a.text, c.text, d.text);
    }
    if (fb)
        fallback(&s, fb_kind);
    if (kf)
        kif(&s, kf_fwd);
    if (fns)
        calls(&s, seed);
    if (kd)
        kdyn(&s, kbc, kd_temp);
    if (with_regions)
        regions(&s, seed);
    if (with_loops)
        loops(&s);
    if (with_scalars)
        scalars(&s);
    if (with_dims)
        dims(&s);
    printf("}\n");
    if (!fuzz && seed % ITERATE_EVERY == ITERATE_EVERY - 1)
        iterate_stencil(seed);
}

/* ---------------------------------------------------------------- iterate */

/* A second stencil with iterate (language.md 11), from the seed alone: one pair (un -> u)
   or two (vn -> v too), u with a random boundary condition or none (a frame), v with none or
   periodic, IJK or IJ fields, sometimes a forward sweep along K; reads at offsets up to 2 and
   a read-only input w. In a quarter each (a draw of its own, so that the rest is as it was),
   a step that depends on what un held before it: un written under an `if` (keeping its
   values elsewhere), un read at the point before the step writes it, or (IJK, no sweep) the
   levels from 1 only. run.sh's driver compares its steps across backends and with single
   calls. */
static void iterate_stencil(unsigned seed)
{
    rng = (0x243f6a8885a308d3ull ^ ((uint64_t)seed * 0x9e3779b97f4a7c15ull)) | 1;
    for (int i = 0; i < 4; i++)
        rnd(2);
    static const char *const bcs[] = {NULL, "periodic", "dirichlet(0.5)", "neumann", "mirror"};
    const char *bc = bcs[rnd(5)];
    bool ij = chance(30), two = chance(40), sweep = !ij && chance(40);
    const char *ax = ij ? ", IJ" : "";
    printf("\nstencil iter_%u(field<double%s> u, field<double%s> un, ", seed, ax, ax);
    if (two)
        printf("field<double%s> v, field<double%s> vn, ", ax, ax);
    printf("field<double%s> w, double c) iterate(un -> u%s) {\n", ax, two ? ", vn -> v" : "");
    if (bc)
        printf("  boundary u: %s;\n", bc);
    if (two && chance(50))
        printf("  boundary v: periodic;\n");
    char e[512];
    int len = snprintf(e, sizeof e, "u + 0.125 * c * (");
    int terms = 2 + (int)rnd(3);
    for (int t = 0; t < terms; t++)
        len += snprintf(e + len, sizeof e - (size_t)len, "%su[i%+d, j%+d] - u",
                        t ? " + " : "", (int)rnd(5) - 2, (int)rnd(5) - 2);
    len += snprintf(e + len, sizeof e - (size_t)len, ") + 0.25 * w");
    if (two)
        snprintf(e + len, sizeof e - (size_t)len, " * v[j%+d]", (int)rnd(3) - 1);
    const char *vn = two ? " vn = v - 0.25 * c * (u[i+1] - u[i-1]);" : "";
    /* 0: un overwritten; 1: under an if; 2: read first; 3: levels from 1 */
    int keep = (int)((((uint64_t)seed * 0xd1b54a32d192ed03ull) >> 29) % 4);
    if (keep == 3 && (ij || sweep))
        keep = 0;
    const char *if_open = keep == 1 ? "if (w > 0.25) { " : "", *if_close = keep == 1 ? " }" : "";
    const char *first = keep == 2 ? "0.5 * un + " : "";
    if (sweep) {
        printf("  computation(forward) {\n    interval(0, 1) { un = %s%s;%s }\n", first, e, vn);
        printf("    interval(1, end) { %sun = 0.5 * un[k-1] + %s;%s%s }\n  }\n", if_open, e,
               if_close, vn);
    } else if (keep == 3) {
        printf("  computation(parallel) { interval(1, end) { un = %s;%s } }\n", e, vn);
    } else {
        printf("  %sun = %s%s;%s\n", if_open, first, e, if_close);
        if (two)
            printf("  vn = v - 0.25 * c * (u[i+1] - u[i-1]);\n");
    }
    printf("}\n");
}

/* ---------------------------------------------------------------- regions */

/* A program gets regions from its seed alone (not from rng): one in three. */
/* A hash of the seed, for the features a program gets from its seed alone (each its own
 * constants, so that they come independently): h = seed a + b, then a xorshift by s1, a
 * multiply by m and a xorshift by s2. */
static uint64_t seed_hash(unsigned seed, uint64_t a, uint64_t b, int s1, uint64_t m, int s2)
{
    uint64_t h = (uint64_t)seed * a + b;
    h ^= h >> s1;
    h *= m;
    h ^= h >> s2;
    return h;
}

static bool has_regions(unsigned seed)
{
    return seed_hash(seed, 0x9e3779b97f4a7c15ull, 0, 29, 0xbf58476d1ce4e5b9ull, 32) % 3 == 0;
}

/* A region position: from the start, or from `end`. */
static void region_pos(Buf *b, bool from_end, int p)
{
    if (!from_end)
        put(b, "%d", p);
    else if (p == 0)
        put(b, "end");
    else
        put(b, "end %c %d", p < 0 ? '-' : '+', p < 0 ? -p : p);
}

/* axis(lo, hi): a non-empty range that meets [-reach, end + reach) (a
 * statement computed there runs somewhere in it), near one of the edges. */
static void region_range(Buf *b, char axis, int reach)
{
    int w = 1 + (int)rnd(3);
    put(b, "%c(", axis);
    if (chance(50)) {   /* near the first point: [lo, lo + w) with lo + w > -reach */
        int lo = (int)rnd(4 + (unsigned)reach) - reach - 1;
        if (lo + w <= -reach)
            w = -reach - lo + 1;
        region_pos(b, false, lo);
        put(b, ", ");
        region_pos(b, false, lo + w);
    } else {            /* near end: [end + lo, end + lo + w) with end + lo < end + reach */
        int lo = -(int)rnd(4) + (int)rnd((unsigned)reach + 1);
        if (lo >= reach)
            lo = reach - 1;
        region_pos(b, true, lo);
        put(b, ", ");
        region_pos(b, true, lo + w);
    }
    put(b, ")");
}

/* region(...) with one or two ranges, for statements computed on the domain
 * grown by reach along I and J. */
static void region_head(Buf *b, int reach)
{
    put(b, "region(");
    unsigned axes = 1 + rnd(3);   /* 1: i, 2: j, 3: both */
    if (axes & 1)
        region_range(b, 'i', reach);
    if (axes == 3)
        put(b, ", ");
    if (axes & 2)
        region_range(b, 'j', reach);
    put(b, ")");
}

static void regions(const Scope *s, unsigned seed)
{
    Scope r = *s;
    r.allow_col = false;
    Buf a = {{0}, 0}, b = {{0}, 0}, c = {{0}, 0}, d = {{0}, 0}, e = {{0}, 0}, f = {{0}, 0};
    Buf h1 = {{0}, 0}, h2 = {{0}, 0}, o1 = {{0}, 0}, o2 = {{0}, 0}, o3 = {{0}, 0};
    Buf o4 = {{0}, 0}, o5 = {{0}, 0};
    expr(&a, &r, 2);
    expr(&b, &r, 2);
    expr(&c, &r, 2);
    expr(&d, &r, 2);
    expr(&e, &r, 1);
    expr(&f, &r, 1);
    /* rr is read at (i-1, j+1) and (i+1, j-1): computed on i[-1,+1] j[-1,+1] */
    region_head(&h1, 1);
    region_head(&h2, 1);
    region_head(&o1, 0);
    region_head(&o2, 0);
    region_head(&o3, 0);
    region_head(&o4, 0);
    region_head(&o5, 0);
    printf("  double rr = %s;\n", a.text);
    printf("  %s { rr = rr * 0.5 + %s; }\n", h1.text, b.text);
    printf("  %s rr = -rr;\n", h2.text);
    printf("  outz = rr[i-1, j+1] - 0.5 * rr[i+1, j-1] + %s;\n", c.text);
    printf("  %s { outz = outz + 1.5; }\n", o1.text);
    switch (rnd(3)) {
    case 0:   /* nested regions, an if inside */
        printf("  %s {\n    %s {\n      if (%s > 0.0) { outz = outz * 0.5; } else "
               "{ outz = outz - %s; }\n    }\n  }\n", o2.text, o3.text, d.text, e.text);
        break;
    case 1:   /* an if holding regions (its condition reads what they write) */
        printf("  if (outz > %s) {\n    outz = outz - 0.25;\n    %s { double q = outz * 2.0; "
               "outz = q + %s; }\n  } else {\n    %s { %s outz = outz + 2.0; }\n  }\n",
               e.text, o2.text, f.text, o3.text, o4.text);
        break;
    default:  /* a region around an if holding a region */
        printf("  %s {\n    if (%s < 0.5) {\n      %s outz = outz * 0.25;\n    }\n  }\n",
               o2.text, d.text, o3.text);
        break;
    }
    printf("  computation(forward) {\n    interval(1, end) {\n      %s { outz = outz + 0.5 * "
           "outz[k-1]; }\n    }\n  }\n", o5.text);
    pieces(seed);
}

/* A temporary written only in regions of one axis that meet at a position from the
 * start or from the end (access.c add_piece counts them together), in either order, then
 * read at offsets on both axes: it is needed on [-1, end + 1) along each. Drawn from a
 * hash of the seed, so that the other draws stay as they were. */
static void pieces(unsigned seed)
{
    uint64_t h = seed_hash(seed, 0xa0761d6478bd642full, 0xe7037ed1a0b428dbull, 31,
                           0x8ebc6af09c88c6e3ull, 29);
    char a = h & 1 ? 'j' : 'i';
    int p = (int)(h >> 1 & 3);
    Buf at = {{0}, 0};
    region_pos(&at, h >> 3 & 1, h >> 3 & 1 ? -p : p);
    const char *first = "in0 * 0.5", *second = "in0 + 0.25";
    if (h >> 4 & 1)
        printf("  field<double, IJK> rp;\n  region(%c(%s, end + 1)) { rp = %s; }\n"
               "  region(%c(-1, %s)) { rp = %s; }\n", a, at.text, second, a, at.text, first);
    else
        printf("  field<double, IJK> rp;\n  region(%c(-1, %s)) { rp = %s; }\n"
               "  region(%c(%s, end + 1)) { rp = %s; }\n", a, at.text, first, a, at.text, second);
    printf("  outz = outz + rp[i-1, j+1] - 0.5 * rp[i+1, j-1];\n");
}

/* ------------------------------------------------------------------ loops */

/* A program gets while loops from its seed alone: one in three. */
static bool has_loops(unsigned seed)
{
    return seed_hash(seed, 0xd1b54a32d192ed03ull, 0x8cb92ba72f3d8dd7ull, 31,
                     0x94d049bb133111ebull, 29) % 3 == 1;
}

static void loops(const Scope *s)
{
    Scope r = *s;
    r.allow_col = false;
    Buf a = {{0}, 0}, b = {{0}, 0}, c = {{0}, 0};
    expr(&a, &r, 2);
    expr(&b, &r, 2);
    expr(&c, &r, 1);
    int n = 2 + (int)rnd(4);   /* at most this many rounds */
    switch (rnd(4)) {
    case 0:   /* temporaries only, read at offsets after the loop: it runs on their extent */
        printf("  double wv = %s;\n  int wn = 0;\n", a.text);
        printf("  while (wn < %d && wv < %s) {\n    wv = wv + 0.5 + %s * 0.25;\n    wn += 1;\n"
               "  }\n", n, b.text, c.text);
        printf("  outw = wv[i+1] - wv[j-1] * 0.5 + double(wn);\n");
        break;
    case 1:   /* the output and a counter, an if inside */
        printf("  outw = %s;\n  int wn = 0;\n", a.text);
        printf("  while (outw < %s && wn < %d) {\n    if (%s > 0.0) { outw = outw + 0.75; } "
               "else { outw = outw * 0.5 + 0.5; }\n    wn += 1;\n  }\n", b.text, n, c.text);
        printf("  outw = outw + double(wn) * 0.125;\n");
        break;
    case 2:   /* nested loops inside an if */
        printf("  outw = %s;\n  if (%s > -0.5) {\n    int wa = 0;\n    while (wa < %d) {\n"
               "      int wb = 0;\n      while (wb < wa && outw < %s) { outw = outw + 0.25; "
               "wb += 1; }\n      wa += 1;\n    }\n  }\n", a.text, b.text, n, c.text);
        break;
    default:  /* a forward computation, reading the level below, which the loop wrote */
        printf("  computation(forward) {\n    interval(0, 1) { outw = %s; }\n"
               "    interval(1, end) {\n      outw = %s;\n      int wn = 0;\n"
               "      while (wn < %d && outw < outw[k-1] + %s) { outw = outw + 0.375; wn += 1; }\n"
               "    }\n  }\n", a.text, b.text, n, c.text);
        break;
    }
}

/* One seed in three (by a third hash of the seed; drawn last, so that the rest of the
 * program is the one the seed made before) gets an output outs read through a tile
 * whose producer computes a scalar first: a temporary read at zero offset only (sc,
 * sometimes changed under an if), then the tile st from it, read at horizontal offsets.
 * The planner fuses both into the tile's producer; such a kernel must still cover the
 * tile's ring (tests/diff/programs/scalartile.stn: openmp and cuda once computed it over
 * the block only). */
static bool has_scalars(unsigned seed)
{
    return seed_hash(seed, 0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull, 30,
                     0x9e3779b97f4a7c15ull, 27) % 3 == 2;
}

static void scalars(const Scope *s)
{
    Scope r = *s;
    r.allow_col = false;
    Buf a = {{0}, 0}, b = {{0}, 0};
    expr(&a, &r, 2);
    expr(&b, &r, 2);
    printf("  double sc = %s;\n", a.text);
    if (chance(50)) {
        Buf c = {{0}, 0};
        expr(&c, &r, 1);
        printf("  if (sc > 0.5) { sc = %s; }\n", c.text);
    }
    printf("  double st = sc * 0.5 + %s;\n", b.text);
    static const char *const offs[] = {"i-1", "i+1", "j-1", "j+1", "i-1, j+1", "i+1, j-1",
                                       "i+2", "j-2"};
    const char *o1 = offs[rnd(8)], *o2 = offs[rnd(8)];
    printf("  outs = st[%s] - 0.5 * st[%s] + st;\n", o1, o2);
}

/* ------------------------------------------------------------------- dims */

/* One seed in three (by a fourth hash; drawn last, so that the rest of the program is the
 * one the seed made before) gets lower-dimensional fields (language.md 5): inputs lik (IK),
 * ljk (JK), li (I) and lj (J), some with boundary conditions; temporaries declared with
 * axes K, IJ and IK (never tiles: full arrays), read at horizontal offsets; an IK
 * temporary and the IJ output odij carried over the column by a forward or backward
 * computation (a destination without K takes each level's value); an IJ accumulator
 * declared without a value, by a forward or a backward computation; the K output odk,
 * sometimes in-out (`odk = odk * 0.5 + ...`: once per level, as the naive backend runs it;
 * the cuda backend once ran it on every thread of a block); and outd reading them all
 * inflated into IJK, the accumulator at an offset. */
static bool has_dims(unsigned seed)
{
    return seed_hash(seed, 0x94d049bb133111ebull, 0x2545f4914f6cdd1dull, 28,
                     0xd1b54a32d192ed03ull, 31) % 3 == 0;
}

/* A leaf of shape within axes ("K", "IJ", "IK", "JK" or "IJK"): the lower-dimensional
 * inputs and temporaries declared so far (ndecl: 1 xk, 2 xij too, 3 xik too), s2 and kc
 * where the program has them, index(), alpha, a constant. */
static void dleaf(Buf *b, const Scope *s, const char *axes, int ndecl)
{
    bool I = strchr(axes, 'I'), J = strchr(axes, 'J'), K = strchr(axes, 'K');
    for (;;) {
        switch (rnd(12)) {
        case 0: put(b, "%d.%d", (int)rnd(3), (int)rnd(10)); return;
        case 1: put(b, "alpha"); return;
        case 2:
            if (I && K) { put(b, "lik[i%+d, k%+d]", (int)rnd(5) - 2, (int)rnd(3) - 1); return; }
            break;
        case 3:
            if (J && K) { put(b, "ljk[j%+d, k%+d]", (int)rnd(5) - 2, (int)rnd(3) - 1); return; }
            break;
        case 4:
            if (I) { put(b, "li[i%+d]", (int)rnd(5) - 2); return; }
            break;
        case 5:
            if (J) { put(b, "lj[j%+d]", (int)rnd(5) - 2); return; }
            break;
        case 6:
            if (K && ndecl >= 1) { put(b, "xk"); return; }
            break;
        case 7:
            if (I && J && ndecl >= 2) {
                put(b, "xij[i%+d, j%+d]", (int)rnd(3) - 1, (int)rnd(3) - 1);
                return;
            }
            break;
        case 8:
            if (I && K && ndecl >= 3) { put(b, "xik[i%+d]", (int)rnd(3) - 1); return; }
            break;
        case 9:
            if (I && J && s->has_ij) { put(b, "s2[i%+d]", (int)rnd(3) - 1); return; }
            if (K && s->has_k) { put(b, "kc[k%+d]", (int)rnd(3) - 1); return; }
            break;
        case 10:
            if (I && J && !K) { put(b, "sum(in0 * 0.25, k)"); return; }
            break;
        default: {
            const char *ax = I && J && K ? "ijk" : I && J ? "ij" : I && K ? "ik" : J && K ? "jk"
                           : I ? "i" : J ? "j" : "k";
            put(b, "double(index(%c)) * 0.125", ax[rnd((unsigned)strlen(ax))]);
            return;
        }
        }
    }
}

/* An expression of shape within axes (dleaf's), of up to depth operators. */
static void dexpr(Buf *b, const Scope *s, const char *axes, int ndecl, int depth)
{
    if (depth <= 0 || chance(30)) {
        dleaf(b, s, axes, ndecl);
        return;
    }
    switch (rnd(4)) {
    case 0: dexpr(b, s, axes, ndecl, depth - 1); put(b, " + "); dexpr(b, s, axes, ndecl, depth - 1); return;
    case 1: dexpr(b, s, axes, ndecl, depth - 1); put(b, " - 0.5 * "); dleaf(b, s, axes, ndecl); return;
    case 2:
        put(b, "%s(", chance(50) ? "min" : "max");
        dexpr(b, s, axes, ndecl, depth - 1); put(b, ", "); dexpr(b, s, axes, ndecl, depth - 1);
        put(b, ")");
        return;
    default: put(b, "("); dexpr(b, s, axes, ndecl, depth - 1); put(b, ") * 0.5"); return;
    }
}

static void dims(const Scope *s)
{
    Scope r = *s;
    r.allow_col = false;
    static const char *const bcs[] = {"periodic", "dirichlet(0.5)", "neumann", "mirror"};
    if (chance(30))
        printf("  boundary li: %s;\n", bcs[rnd(4)]);
    if (chance(30))
        printf("  boundary lik%s: %s;\n", chance(50) ? "(k)" : "", bcs[rnd(4)]);
    if (chance(20))
        printf("  boundary ljk(j): %s;\n", bcs[rnd(4)]);
    Buf k = {{0}, 0}, ij = {{0}, 0}, ik = {{0}, 0};
    dexpr(&k, s, "K", 0, 2);
    dexpr(&ij, s, "IJ", 1, 2);
    dexpr(&ik, s, "IK", 2, 2);
    printf("  field<double, K> xk = %s;\n", k.text);
    printf("  field<double, IJ> xij = %s;\n", ij.text);
    printf("  field<double, IK> xik = %s;\n", ik.text);
    if (chance(40)) {   /* xik carried along K: every J of a column computes the same */
        Buf a = {{0}, 0};
        dexpr(&a, s, "IK", 2, 1);
        printf("  computation(forward) { interval(1, end) { xik = xik[k-1] * 0.5 + %s; } }\n",
               a.text);
    }
    /* odij: a column accumulator (each level's value, the last one kept) */
    Buf a = {{0}, 0}, c = {{0}, 0}, d = {{0}, 0};
    dexpr(&a, s, "IJ", 3, 2);
    dexpr(&c, s, "IJK", 3, 2);
    expr(&d, &r, 1);
    bool fwd = chance(50);
    printf("  computation(%s) {\n", fwd ? "forward" : "backward");
    printf("    interval(%s) { odij = %s; }\n", fwd ? "0, 1" : "end - 1, end", a.text);
    printf("    interval(%s) { odij = odij * 0.5 + %s + %s; }\n  }\n",
           fwd ? "1, end" : "0, end - 1", c.text, d.text);
    Buf e = {{0}, 0};
    dexpr(&e, s, "IJK", 3, 2);
    printf("  field<double, IJ> xacc;\n");
    bool up = chance(50);
    printf("  computation(%s) {\n    interval(%s) { xacc = %s; }\n"
           "    interval(%s) { xacc = max(xacc, %s); }\n  }\n", up ? "forward" : "backward",
           up ? "0, 1" : "end - 1, end", e.text, up ? "1, end" : "0, end - 1", e.text);
    Buf o = {{0}, 0}, p = {{0}, 0};
    dexpr(&o, s, "K", 1, 2);
    expr(&p, &r, 2);
    /* half the time odk is in-out: its value on entry is read, once per level (as the naive
       backend runs it), not once per column */
    printf("  odk = %sxk * 0.5 + %s;\n", chance(50) ? "odk * 0.5 + " : "", o.text);
    /* odij at offset 0: read at an offset, an output written by an earlier computation
       makes gt_mpi_call refuse the stencil, and tests/mpi/random.sh would lose it */
    printf("  outd = %s + xij[i+1] - xik[i-1] * 0.5 + odij + xacc[%s] + xk;\n", p.text,
           chance(50) ? "i-1" : "j+1");
}

/* ---------------------------------------------------------------- shims */

/* Parses `int NAME(PARAMS, const gt_domain *domain);` lines of a header. */
/* A scalar input's argument from the driver's in[n] (in [-1, 1]): an int one
 * scaled to [-12, 12], so that levels, counts and offsets taken from it reach
 * past the few levels of a case (refused calls included) */
static void scalar_arg(char *a, size_t size, const char *type, int n)
{
    if (strncmp(type, "int", 3) == 0)
        snprintf(a, size, "(%s)diff_int(in[%d] * 12.0), ", type, n);
    else
        snprintf(a, size, "(%s)in[%d], ", type, n);
}

static void wrap(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(2);
    }
    const char *slash = strrchr(path, '/');
    printf("/* generated by tests/diff/gen.c --wrap */\n#include <stdint.h>\n#include <stdbool.h>\n");
    printf("#include \"%s\"\n#include \"diff.h\"\n\n", slash ? slash + 1 : path);
    char line[8192];
    char names[64][256];
    char otypes[64][64];
    int steps[64];   /* the steps shim of stencil n (S_steps, right after S), or -1 */
    int min_nk[64], pending_nk = 0;   /* the header's comment comes before the declaration */
    int n = 0;
    while (fgets(line, sizeof line, f) && n < 64) {
        const char *need = strstr(line, "the domain needs at least ");
        if (need)
            pending_nk = atoi(need + strlen("the domain needs at least "));
        if (strncmp(line, "int ", 4) != 0)
            continue;
        /* a declaration may span lines: join them up to the ';' */
        while (!strchr(line, ';')) {
            size_t len = strlen(line);
            while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == ' '))
                line[--len] = 0;
            if (len + 2 >= sizeof line || !fgets(line + len + 1, (int)(sizeof line - len - 1), f))
                break;
            line[len] = ' ';
        }
        if (!strstr(line, "const gt_domain *"))
            continue;
        char *open = strchr(line, '(');
        if (!open)
            continue;
        *open = 0;
        char *params = open + 1;
        char *close = strrchr(params, ')');
        if (close)
            *close = 0;
        /* S_steps (iterate): S's parameters, then int64_t nsteps; a shim for S's entry */
        if (n > 0 && strstr(params, "int64_t ") &&
            strncmp(line + 4, names[n - 1], strlen(names[n - 1])) == 0 &&
            strcmp(line + 4 + strlen(names[n - 1]), "_steps") == 0) {
            char args[4096] = "";
            int nf = 0, ni = 0;
            char *save = NULL;
            for (char *tok = strtok_r(params, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                while (isspace((unsigned char)*tok))
                    tok++;
                char a[256], type[64];
                if (strncmp(tok, "const gt_domain", 15) == 0)
                    snprintf(a, sizeof a, "d");
                else if (strncmp(tok, "int64_t ", 8) == 0)
                    snprintf(a, sizeof a, "nsteps, ");
                else if (strncmp(tok, "gt_storage", 10) == 0)
                    snprintf(a, sizeof a, "f[%d], ", nf++);
                else if (sscanf(tok, "%63s", type) == 1)
                    scalar_arg(a, sizeof a, type, ni++);
                strcat(args, a);
            }
            printf("static int steps_%d(gt_storage **f, const double *in, int64_t nsteps, "
                   "const gt_domain *d)\n{\n    (void)in;\n    return %s_steps(%s);\n}\n\n",
                   n - 1, names[n - 1], args);
            steps[n - 1] = n - 1;
            continue;
        }
        snprintf(names[n], sizeof names[n], "%s", line + 4);
        steps[n] = -1;
        min_nk[n] = pending_nk;
        pending_nk = 0;
        /* out scalars: variables of the file, so that a distributed call (gt_mpi_call,
           which writes the combined values where the stencil wrote its own, once the
           shim has returned) still finds them: outs_N reads them again */
        char args[4096] = "";
        int nf = 0, ni = 0, no = 0;
        otypes[n][0] = 0;
        char *save = NULL;
        char pre[4096] = "", post[4096] = "", decl[4096] = "";
        for (char *tok = strtok_r(params, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            while (isspace((unsigned char)*tok))
                tok++;
            char a[256];
            if (strncmp(tok, "const gt_domain", 15) == 0) {
                snprintf(a, sizeof a, "d");
            } else if (strncmp(tok, "gt_storage", 10) == 0) {
                snprintf(a, sizeof a, "f[%d], ", nf++);
            } else if (strchr(tok, '*')) {
                char type[64];
                sscanf(tok, "%63s", type);
                char tmp[512];
                snprintf(tmp, sizeof tmp, "static %s o%d_%d;\n", type, n, no);
                strcat(decl, tmp);
                snprintf(tmp, sizeof tmp, "    o%d_%d = 0;\n", n, no);
                strcat(pre, tmp);
                snprintf(tmp, sizeof tmp, "    out[%d] = (double)o%d_%d;\n", no, n, no);
                strcat(post, tmp);
                snprintf(a, sizeof a, "&o%d_%d, ", n, no++);
                size_t ol = strlen(otypes[n]);
                if (ol < 62) {
                    otypes[n][ol] = type[0] == 'i' ? 'i' : type[0];
                    otypes[n][ol + 1] = 0;
                }
            } else {
                char type[64];
                sscanf(tok, "%63s", type);
                scalar_arg(a, sizeof a, type, ni++);
            }
            strcat(args, a);
        }
        /* driver.c passes 16 scalar inputs and takes 16 out scalars (double in[16],
           out[16]): more would read and write past its arrays */
        if (ni > 16 || no > 16) {
            fprintf(stderr, "gen --wrap: %s: stencil '%s' has %d scalar inputs and %d out "
                    "scalars; the differential driver handles at most 16 of each\n", path,
                    names[n], ni, no);
            exit(2);
        }
        printf("%sstatic int call_%d(gt_storage **f, const double *in, double *out, "
               "const gt_domain *d)\n{\n    (void)in;\n    (void)out;\n", decl, n);
        printf("%s    int rc = %s(%s);\n%s    return rc;\n}\n\n", pre, names[n], args, post);
        printf("static void outs_%d(double *out)\n{\n    (void)out;\n%s}\n\n", n, post);
        n++;
    }
    fclose(f);
    printf("const DiffStencil diff_stencils[] = {\n");
    for (int i = 0; i < n; i++) {
        char st[32] = "0";
        if (steps[i] >= 0)
            snprintf(st, sizeof st, "steps_%d", steps[i]);
        printf("    {\"%s\", &%s_info, call_%d, \"%s\", %s, outs_%d, %d},\n", names[i],
               names[i], i, otypes[i], st, i, min_nk[i]);
    }
    printf("    {0, 0, 0, 0, 0, 0, 0},\n};\n");
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--wrap") == 0) {
        wrap(argv[2]);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "--fuzz") == 0) {
        fuzz = true;
        argv++;
        argc--;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: gen [--fuzz] SEED | gen --wrap HEADER\n");
        return 2;
    }
    program((unsigned)strtoul(argv[1], NULL, 10));
    return 0;
}
