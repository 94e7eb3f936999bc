/* fold.c: constant folding, and the values of -D overrides.
 *
 * fold_expr rewrites, bottom up, every operation whose operands are
 * constants into a constant, with the semantics the generated C would have:
 * int is a 32-bit two's complement integer whose overflow is an error (the
 * generated code wraps, language.md 5.3, but a constant that does is an
 * error while the program can be fixed), int division or modulo by zero is
 * an error even when only the divisor is constant (the generated code gives
 * 0), float operations round to
 * float at every step, floating division by zero gives an IEEE infinity, and a NaN made
 * from numbers (0.0 / 0.0) is the positive NaN on every host (made_nan).
 * A constant condition selects its branch, `false && e` is false and
 * `true && e` is e (expressions have no side effects), and an int or bool
 * compared with itself (`n == n`) or subtracted from itself is a constant
 * (its reads go with it: they cannot change the value). Folding a constant
 * `if` condition into a dead branch is done by sema.c with the folded value.
 *
 * fold_define parses the VALUE of `-D NAME=VALUE` for a const of a given type.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gtcc.h"
#include "sema.h"

static bool is_const(const IrExpr *e)
{
    return e->kind == IR_CONST;
}

/* The value of an int, float or double constant, as a double. */
static double real_of(const IrExpr *e)
{
    return type_is_floating(e->type) ? e->cnst.d : (double)e->cnst.i;
}

static IrExpr *make_int(Compiler *c, const IrExpr *at, Type type, int64_t v)
{
    return ir_const_int(c->arena, at->loc, type, v);
}

static IrExpr *make_real(Compiler *c, const IrExpr *at, Type type, double v)
{
    return ir_const_real(c->arena, at->loc, type, v);
}

/* After an error: a note at each inlined call the folded expression comes
 * through (inline.c folds a function's results while its call is the
 * innermost; elsewhere there is none). */
static void call_notes(Compiler *c)
{
    if (c->sema)
        inline_notes(c->sema);
}

/* An int result: an error unless it fits in 32 bits. */
static IrExpr *int_result(Compiler *c, IrExpr *e, int64_t v, const char *what)
{
    if (v < INT32_MIN || v > INT32_MAX) {
        diag_error(&c->diag, e->loc, "integer overflow: %s does not fit in int", what);
        call_notes(c);
        return e;
    }
    return make_int(c, e, TY_INT, v);
}

static IrExpr *fold_unary(Compiler *c, IrExpr *e)
{
    IrExpr *x = e->op.a;
    if (!is_const(x))
        return e->op.op == OP_PLUS ? x : e;
    switch (e->op.op) {
    case OP_NEG:
        if (e->type == TY_INT) {
            char what[48];
            snprintf(what, sizeof what, "-(%" PRId64 ")", x->cnst.i);
            return int_result(c, e, -x->cnst.i, what);
        }
        return make_real(c, e, e->type, -x->cnst.d);
    case OP_PLUS:
        return x;
    case OP_NOT:
        return make_int(c, e, TY_BOOL, !x->cnst.i);
    default:
        unreachable();
    }
}

static IrExpr *fold_int_binary(Compiler *c, IrExpr *e, int64_t a, int64_t b)
{
    char what[80];
    snprintf(what, sizeof what, "%" PRId64 " %s %" PRId64, a, op_spellings[e->op.op], b);
    switch (e->op.op) {
    case OP_ADD: return int_result(c, e, a + b, what);
    case OP_SUB: return int_result(c, e, a - b, what);
    case OP_MUL: return int_result(c, e, a * b, what);
    case OP_DIV: return int_result(c, e, a / b, what);   /* b != 0: checked by the caller */
    case OP_MOD:
        if (a / b > INT32_MAX)   /* INT_MIN % -1: undefined in C, as INT_MIN / -1 is */
            return int_result(c, e, a / b, what);
        return int_result(c, e, a % b, what);
    default: unreachable();
    }
}

static double real_binary(Op op, Type type, double a, double b)
{
    if (type == TY_FLOAT) {
        float x = (float)a, y = (float)b;
        switch (op) {
        case OP_ADD: return x + y;
        case OP_SUB: return x - y;
        case OP_MUL: return x * y;
        case OP_DIV: return x / y;
        default: unreachable();
        }
    }
    switch (op) {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_DIV: return a / b;
    default: unreachable();
    }
}

static bool compare(Op op, double a, double b)
{
    switch (op) {
    case OP_LT: return a < b;
    case OP_LE: return a <= b;
    case OP_GT: return a > b;
    case OP_GE: return a >= b;
    case OP_EQ: return a == b;
    case OP_NE: return a != b;
    default: unreachable();
    }
}

/* v, computed from the constants x and y (y NULL for one): a NaN made from numbers is C's
   NAN, the positive quiet NaN, whatever the host makes (x86 makes 0.0 / 0.0 and sqrt(-1.0)
   with the sign bit set, other machines without), so that the generated code does not
   depend on the machine gtcc ran on; a NaN operand's NaN propagates as it is. */
static double made_nan(double v, const IrExpr *x, const IrExpr *y)
{
    bool from_nan = isnan(x->cnst.d) || (y && isnan(y->cnst.d));
    return isnan(v) && !from_nan ? NAN : v;
}

static IrExpr *fold_binary(Compiler *c, IrExpr *e)
{
    IrExpr *x = e->op.a, *y = e->op.b;
    Op op = e->op.op;
    if ((op == OP_DIV || op == OP_MOD) && e->type == TY_INT && is_const(y) && y->cnst.i == 0) {
        diag_error(&c->diag, e->loc, "integer %s by zero",
                   op == OP_DIV ? "division" : "modulo");
        call_notes(c);
        return e;
    }
    if (op == OP_AND || op == OP_OR) {
        bool absorbing = op == OP_OR;   /* true || e is true, false && e is false */
        if (is_const(x))
            return x->cnst.i == absorbing ? x : y;
        if (is_const(y))
            return y->cnst.i == absorbing ? y : x;
        return e;
    }
    if (!type_is_floating(x->type) && ir_expr_equal(x, y)) {
        /* An int or bool against itself (`n == n`, `n - n`): a constant,
         * which gcc and clang -Wtautological-compare would reject in the
         * generated C (a floating one is not: NaN). Equal ints never
         * overflow when subtracted. */
        switch (op) {
        case OP_EQ: case OP_LE: case OP_GE:
            return make_int(c, e, TY_BOOL, 1);
        case OP_NE: case OP_LT: case OP_GT:
            return make_int(c, e, TY_BOOL, 0);
        case OP_SUB:
            return make_int(c, e, e->type, 0);
        default:
            break;
        }
    }
    if (!is_const(x) || !is_const(y))
        return e;
    switch (op) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_MOD:
        if (e->type == TY_INT)
            return fold_int_binary(c, e, x->cnst.i, y->cnst.i);
        return make_real(c, e, e->type,
                         made_nan(real_binary(op, e->type, x->cnst.d, y->cnst.d), x, y));
    case OP_LT: case OP_LE: case OP_GT: case OP_GE: case OP_EQ: case OP_NE:
        if (type_is_floating(x->type))
            return make_int(c, e, TY_BOOL, compare(op, x->cnst.d, y->cnst.d));
        return make_int(c, e, TY_BOOL, compare(op, (double)x->cnst.i, (double)y->cnst.i));
    default:
        unreachable();
    }
}

/* int(x) of a floating x: truncation toward zero, NaN -> 0, values beyond
 * int's range saturate to INT32_MIN or INT32_MAX; gt_double_to_int and
 * gt_float_to_int in gt_generated.h compute the same at run time (a float
 * is exactly a double, and no float lies between INT32_MAX and 2^31). */
static int64_t fold_real_to_int(double x)
{
    if (isnan(x))
        return 0;
    if (x >= 2147483647.0)
        return INT32_MAX;
    if (x <= -2147483648.0)
        return INT32_MIN;
    return (int64_t)x;
}

static IrExpr *fold_cast(Compiler *c, IrExpr *e)
{
    IrExpr *x = e->cast.a;
    if (!is_const(x))
        return e;
    /* int(e) of a float or double: gt_real_to_int's result (runtime
     * gt_generated.h); of a bool: 0 or 1. */
    if (e->type == TY_INT)
        return make_int(c, e, TY_INT,
                        type_is_floating(x->type) ? fold_real_to_int(x->cnst.d) : x->cnst.i);
    /* widening int -> float -> double, narrowing double -> float, bool -> 0 or 1 */
    return make_real(c, e, e->type, real_of(x));
}

/* min and max as the generated code computes them (gt_min_double ... in gt_generated.h:
   a NaN loses, equal arguments give the second), not fmin, whose +0/-0 answer C leaves
   open. */
static double min_real(double a, double b)
{
    return a < b || b != b ? a : b;
}

static double max_real(double a, double b)
{
    return a > b || b != b ? a : b;
}

/* A builtin over double or float constants; NaN for the int-only cases. */
static double real_call(Builtin fn, Type type, double a, double b)
{
    bool f = type == TY_FLOAT;
    float x = (float)a, y = (float)b;
    switch (fn) {
    case B_ABS: return f ? fabsf(x) : fabs(a);
    case B_MIN: return f ? (float)min_real(x, y) : min_real(a, b);
    case B_MAX: return f ? (float)max_real(x, y) : max_real(a, b);
    case B_SQRT: return f ? sqrtf(x) : sqrt(a);
    case B_CBRT: return f ? cbrtf(x) : cbrt(a);
    case B_EXP: return f ? expf(x) : exp(a);
    case B_LOG: return f ? logf(x) : log(a);
    case B_LOG10: return f ? log10f(x) : log10(a);
    case B_POW: return f ? powf(x, y) : pow(a, b);
    case B_SIN: return f ? sinf(x) : sin(a);
    case B_COS: return f ? cosf(x) : cos(a);
    case B_TAN: return f ? tanf(x) : tan(a);
    case B_ASIN: return f ? asinf(x) : asin(a);
    case B_ACOS: return f ? acosf(x) : acos(a);
    case B_ATAN: return f ? atanf(x) : atan(a);
    case B_ATAN2: return f ? atan2f(x, y) : atan2(a, b);
    case B_SINH: return f ? sinhf(x) : sinh(a);
    case B_COSH: return f ? coshf(x) : cosh(a);
    case B_TANH: return f ? tanhf(x) : tanh(a);
    case B_FLOOR: return f ? floorf(x) : floor(a);
    case B_CEIL: return f ? ceilf(x) : ceil(a);
    case B_TRUNC: return f ? truncf(x) : trunc(a);
    case B_ROUND: return f ? roundf(x) : round(a);
    case B_FMOD: return f ? fmodf(x, y) : fmod(a, b);
    case B_ASINH: return f ? asinhf(x) : asinh(a);
    case B_ACOSH: return f ? acoshf(x) : acosh(a);
    case B_ATANH: return f ? atanhf(x) : atanh(a);
    case B_ERF: return f ? erff(x) : erf(a);
    case B_ERFC: return f ? erfcf(x) : erfc(a);
    case B_TGAMMA: return f ? tgammaf(x) : tgamma(a);
    case B_LGAMMA: return f ? lgammaf(x) : lgamma(a);
    case B_EXP2: return f ? exp2f(x) : exp2(a);
    case B_LOG2: return f ? log2f(x) : log2(a);
    case B_EXPM1: return f ? expm1f(x) : expm1(a);
    case B_LOG1P: return f ? log1pf(x) : log1p(a);
    case B_HYPOT: return f ? hypotf(x, y) : hypot(a, b);
    case B_COPYSIGN: return f ? copysignf(x, y) : copysign(a, b);
    case B_ISNAN: case B_ISINF: case B_ISFINITE: case NBUILTINS:
        break;
    }
    unreachable();
}

static IrExpr *fold_call(Compiler *c, IrExpr *e)
{
    for (int i = 0; i < e->call.nargs; i++)
        if (!is_const(e->call.args[i]))
            return e;
    IrExpr *x = e->call.args[0], *y = e->call.nargs > 1 ? e->call.args[1] : NULL;
    Builtin fn = e->call.fn;
    /* C's classification macros give a nonzero int, not 1 (glibc's isinf(-inf) is -1):
       a bool constant is 0 or 1 */
    if (fn == B_ISNAN)
        return make_int(c, e, TY_BOOL, isnan(x->cnst.d) != 0);
    if (fn == B_ISINF)
        return make_int(c, e, TY_BOOL, isinf(x->cnst.d) != 0);
    if (fn == B_ISFINITE)
        return make_int(c, e, TY_BOOL, isfinite(x->cnst.d) != 0);
    if (e->type == TY_INT) {   /* abs, min, max of ints */
        int64_t a = x->cnst.i, b = y ? y->cnst.i : 0;
        switch (fn) {
        case B_ABS: {
            char what[40];
            snprintf(what, sizeof what, "abs(%" PRId64 ")", a);
            return int_result(c, e, a < 0 ? -a : a, what);
        }
        case B_MIN: return make_int(c, e, TY_INT, a < b ? a : b);
        case B_MAX: return make_int(c, e, TY_INT, a > b ? a : b);
        default: unreachable();
        }
    }
    return make_real(c, e, e->type,
                     made_nan(real_call(fn, e->type, x->cnst.d, y ? y->cnst.d : 0.0), x, y));
}

IrExpr *fold_expr(Compiler *c, IrExpr *e)
{
    IrExpr **slot[3];
    int n = ir_expr_slots(e, slot);
    for (int i = 0; i < n; i++)
        *slot[i] = fold_expr(c, *slot[i]);
    switch (e->kind) {
    case IR_CONST: case IR_LOAD: case IR_SCALAR: case IR_INDEX: case IR_COLREDUCE:
        return e;
    case IR_UNARY:
        return fold_unary(c, e);
    case IR_BINARY:
        return fold_binary(c, e);
    case IR_COND:
        if (is_const(e->cond.cond))
            return e->cond.cond->cnst.i ? e->cond.then : e->cond.els;
        return e;
    case IR_CALL:
        return fold_call(c, e);
    case IR_CAST:
        return fold_cast(c, e);
    }
    unreachable();
}

/* ---------------------------------------------------------------- -D values */

IrExpr *fold_define(Compiler *c, const Define *d, Type t, Loc const_loc)
{
    const char *text = d->value ? d->value : "1";   /* -D NAME alone means 1, as in C */
    Loc cmdline = {"<command line>", 0, 0};
    char *end = NULL;
    errno = 0;
    switch (t) {
    case TY_BOOL:
        if (strcmp(text, "true") == 0 || strcmp(text, "1") == 0)
            return ir_const_int(c->arena, const_loc, TY_BOOL, 1);
        if (strcmp(text, "false") == 0 || strcmp(text, "0") == 0)
            return ir_const_int(c->arena, const_loc, TY_BOOL, 0);
        diag_error(&c->diag, cmdline,
                   "-D %s=%s: const '%s' is a bool; give true, false, 1 or 0", d->name, text,
                   d->name);
        return NULL;
    case TY_INT: {
        long long v = strtoll(text, &end, 10);
        if (*text && !*end && errno == 0 && v >= INT32_MIN && v <= INT32_MAX)
            return ir_const_int(c->arena, const_loc, TY_INT, v);
        diag_error(&c->diag, cmdline,
                   "-D %s=%s: const '%s' is an int; give a decimal integer between %d and %d",
                   d->name, text, d->name, INT32_MIN, INT32_MAX);
        return NULL;
    }
    case TY_FLOAT: case TY_DOUBLE: {
        double v = strtod(text, &end);
        /* a float takes what rounds to a finite float, as a literal does (sema.c): 3.4028235e38
           is FLT_MAX, not beyond it */
        bool ok = *text && !*end && isfinite(v) && !(t == TY_FLOAT && !isfinite((float)v));
        if (ok && !strpbrk(text, "xXnN")) {   /* no hexadecimal floats, no inf or nan */
            /* a nonzero value that becomes 0, as a literal's is (stencil.l, sema.c) */
            bool lost = errno == ERANGE ? v == 0.0 : t == TY_FLOAT && v != 0.0 && (float)v == 0.0f;
            if (lost)
                diag_warning(&c->diag, cmdline, "-D %s=%s: the value is too small for const "
                             "'%s', a %s: it is 0", d->name, text, d->name, type_names[t]);
            return ir_const_real(c->arena, const_loc, t, v);
        }
        diag_error(&c->diag, cmdline,
                   "-D %s=%s: const '%s' is a %s; give a finite decimal number such as 1.5",
                   d->name, text, d->name, type_names[t]);
        return NULL;
    }
    }
    unreachable();
}
