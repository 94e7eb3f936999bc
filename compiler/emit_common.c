/* emit_common.c: what every C-like backend shares.
 *
 * The generated text is built in memory (Out) so that the line count needed
 * by #line directives is known: lines that evaluate .stn code are preceded by
 * `#line N "FILE.stn"`, so compiler messages and debuggers show .stn lines,
 * and scaffolding switches back to the generated file's own lines.
 *
 * Names: a .stn name keeps its spelling in C where it can (fields become
 * parameters and access macros of the same name); names that C or the
 * generated code reserve get a trailing '_' (emit_user_name), and generated
 * locals are chosen after the user's names so they never clash.
 *
 * Also here: constants, expressions with C precedence, the header, the S_info
 * metadata and the argument-binding prologue (gt__bind, runtime.md section 3),
 * which the naive, OpenMP and CUDA backends write alike. */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gtcc.h"

/* ================================================================ text out */

static void out_reserve(Out *o, size_t more)
{
    if (o->len + more <= o->cap)
        return;
    size_t cap = o->cap ? o->cap : 4096;
    while (cap < o->len + more)
        cap *= 2;
    char *buf = realloc(o->buf, cap);
    if (!buf)
        gtcc_die("out of memory");
    o->buf = buf;
    o->cap = cap;
}

static void out_vprintf(Out *o, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        gtcc_die("bad format");
    out_reserve(o, (size_t)n + 1);
    vsnprintf(o->buf + o->len, (size_t)n + 1, fmt, ap);
    for (int i = 0; i < n; i++)
        if (o->buf[o->len + i] == '\n')
            o->line++;
    o->len += (size_t)n;
}

void emit_text(Out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    out_vprintf(o, fmt, ap);
    va_end(ap);
}

static void indent(Out *o)
{
    for (int i = 0; i < o->indent; i++)
        emit_text(o, "    ");
}

void emit_begin_line(Out *o)
{
    if (o->stn_file) {
        /* The directive is line o->line + 1; the next line is o->line + 2. */
        emit_text(o, "#line %d \"%s\"\n", o->line + 2, o->name);
        o->stn_file = NULL;
    }
    indent(o);
}

/* A string as the inside of a C string literal. */
static void emit_quoted(Out *o, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            emit_text(o, "\\%c", *s);
        else if (isprint((unsigned char)*s))
            emit_text(o, "%c", *s);
        else
            emit_text(o, "\\%03o", (unsigned char)*s);
    }
}

void emit_begin_stn_line(Out *o, Loc loc)
{
    if (!loc.file || loc.line <= 0) {
        emit_begin_line(o);
        return;
    }
    if (!o->stn_file || strcmp(o->stn_file, loc.file) != 0 || o->stn_next != loc.line) {
        emit_text(o, "#line %d \"", loc.line);
        emit_quoted(o, loc.file);
        emit_text(o, "\"\n");
    }
    o->stn_file = loc.file;
    o->stn_next = loc.line + 1;
    indent(o);
}

void emit_end_line(Out *o)
{
    emit_text(o, "\n");
}

void emit_blank(Out *o)
{
    emit_begin_line(o);
    /* no indentation on an empty line */
    while (o->len > 0 && o->buf[o->len - 1] == ' ')
        o->len--;
    emit_end_line(o);
}

void emit_line(Out *o, const char *fmt, ...)
{
    emit_begin_line(o);
    va_list ap;
    va_start(ap, fmt);
    out_vprintf(o, fmt, ap);
    va_end(ap);
    emit_end_line(o);
}

bool emit_flush(Compiler *c, Out *o, FILE *f)
{
    bool ok = fwrite(o->buf, 1, o->len, f) == o->len;
    free(o->buf);
    o->buf = NULL;
    o->len = o->cap = 0;
    if (!ok)
        diag_error(&c->diag, (Loc){0}, "cannot write the generated code");
    return ok;
}

/* ================================================================== names */

/* Names the generated code or the headers it includes use, beyond C keywords:
 * a user name equal to one of them gets a trailing '_'. */
static const char *const reserved_names[] = {
    /* C keywords, C11 to C23 */
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
    "typedef", "union", "unsigned", "void", "volatile", "while", "alignas", "alignof", "bool",
    "constexpr", "false", "nullptr", "static_assert", "thread_local", "true", "typeof",
    "typeof_unqual", "asm", "main",
    /* <math.h>, <stdlib.h>: functions and macros the generated code may use */
    "abs", "fabs", "fabsf", "fmin", "fminf", "fmax", "fmaxf", "sqrt", "sqrtf", "cbrt",
    "cbrtf", "exp", "expf", "log", "logf", "log10", "log10f", "pow", "powf", "sin", "sinf",
    "cos", "cosf", "tan", "tanf", "asin", "asinf", "acos", "acosf", "atan", "atanf", "atan2",
    "atan2f", "sinh", "sinhf", "cosh", "coshf", "tanh", "tanhf", "floor", "floorf", "ceil",
    "ceilf", "trunc", "truncf", "round", "roundf", "fmod", "fmodf", "isnan", "isinf",
    "isfinite", "isnormal", "signbit", "fpclassify", "isgreater", "isgreaterequal",
    "isless", "islessequal", "islessgreater", "isunordered", "math_errhandling",
    "INFINITY", "NAN", "HUGE_VAL", "HUGE_VALF", "HUGE_VALL", "NULL", "EOF", "errno",
    "assert", "offsetof", "free", "malloc", "calloc", "realloc", "exit",
    /* the rest of <math.h>, and C library functions compilers know as builtins: a stencil
     * (a global function) of one of these names would clash with its declaration */
    "acosh", "asinh", "atanh", "exp2", "expm1", "log1p", "log2", "logb", "ilogb", "scalbn",
    "scalbln", "ldexp", "frexp", "modf", "hypot", "erf", "erfc", "lgamma", "tgamma", "gamma",
    "nearbyint", "rint", "lrint", "llrint", "lround", "llround", "remainder", "remquo",
    "copysign", "nan", "nextafter", "nexttoward", "fdim", "fma", "j0", "j1", "jn", "y0", "y1",
    "yn", "printf", "fprintf", "sprintf", "snprintf", "vprintf", "puts", "putchar", "scanf",
    "strlen", "strcpy", "strncpy", "strcmp", "strncmp", "strcat", "strchr", "strdup",
    "memcpy", "memmove", "memset", "memcmp", "abort", "labs", "llabs", "div", "alloca",
};

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

bool emit_is_reserved(const char *name)
{
    for (size_t i = 0; i < sizeof reserved_names / sizeof *reserved_names; i++)
        if (strcmp(reserved_names[i], name) == 0)
            return true;
    /* gt_/GT_: the runtime's; _x: the implementation's; x_t: POSIX types;
     * M_, FP_, INTn_MAX ...: macros of <math.h> and <stdint.h>. */
    return strncmp(name, "gt_", 3) == 0 || strncmp(name, "GT_", 3) == 0 || name[0] == '_' ||
           ends_with(name, "_t") || strncmp(name, "M_", 2) == 0 ||
           strncmp(name, "FP_", 3) == 0 ||
           ((strncmp(name, "INT", 3) == 0 || strncmp(name, "UINT", 4) == 0 ||
             strncmp(name, "SIZE_", 5) == 0 || strncmp(name, "PTRDIFF_", 8) == 0) &&
            (ends_with(name, "_MAX") || ends_with(name, "_MIN") || ends_with(name, "_C")));
}

static bool set_has(const NameSet *set, const char *name)
{
    return set->taken && map_get(set->taken, name);
}

void emit_take(Arena *arena, NameSet *set, const char *name)
{
    if (set_has(set, name))
        return;
    if (!set->taken)
        set->taken = map_new(arena);
    map_put(set->taken, name, (void *)name);
    vec_push(arena, &set->list, name);
}

const char *emit_unique(Arena *arena, NameSet *set, const char *want)
{
    const char *name = want;
    for (int n = 2; set_has(set, name); n++)
        name = arena_printf(arena, "%s_%d", want, n);
    emit_take(arena, set, name);
    return name;
}

const char *emit_user_name(Arena *arena, NameSet *set, const char *stn_name)
{
    /* Appending '_' to reserved names and to names ending in '_' keeps the
     * mapping one-to-one. */
    const char *want = stn_name;
    if (emit_is_reserved(stn_name) || ends_with(stn_name, "_"))
        want = arena_printf(arena, "%s_", stn_name);
    return emit_unique(arena, set, want);
}

void emit_name_stencil(EmitStencil *es, Arena *arena, const NameSet *globals,
                       const IrStencil *st)
{
    memset(es, 0, sizeof *es);
    es->st = st;
    es->arena = arena;
    for (int i = 0; i < globals->list.len; i++)
        emit_take(arena, &es->names, globals->list.items[i]);
    es->info = arena_printf(arena, "%s_info", st->name);
    int nf = st->fields.len, ns = st->scalars.len;
    es->field = arena_alloc(arena, sizeof(char *) * (size_t)(nf + 1));
    es->data = arena_alloc(arena, sizeof(char *) * (size_t)(nf + 1));
    es->stride = arena_alloc(arena, sizeof(char *) * (size_t)(nf + 1));
    es->storage = arena_alloc(arena, sizeof(char *) * (size_t)(nf + 1));
    es->scalar = arena_alloc(arena, sizeof(char *) * (size_t)(ns + 1));
    es->acc = arena_alloc(arena, sizeof(char *) * (size_t)(ns + 1));
    /* The user's names first, in parameter order, then temporaries. */
    for (int p = 0; p < st->params.len; p++) {
        const IrParam *par = &st->params.items[p];
        if (par->is_field)
            es->field[par->field->id] = emit_user_name(arena, &es->names, par->field->name);
        else
            es->scalar[par->scalar->id] =
                emit_user_name(arena, &es->names, par->scalar->name);
    }
    for (int f = 0; f < nf; f++) {
        const IrField *fd = st->fields.items[f];
        if (fd->kind == IR_PARAM_FIELD)
            es->nfield_params++;
        else
            es->field[f] = emit_user_name(arena, &es->names, fd->name);
    }
    es->domain = emit_unique(arena, &es->names, "domain");
    es->size = emit_unique(arena, &es->names, "n");
    es->ni = emit_unique(arena, &es->names, "ni");
    es->nj = emit_unique(arena, &es->names, "nj");
    es->nk = emit_unique(arena, &es->names, "nk");
    es->args = emit_unique(arena, &es->names, "args");
    es->offsets = emit_unique(arena, &es->names, "read_at_offset");
    es->bound = emit_unique(arena, &es->names, "bound");
    es->rc = emit_unique(arena, &es->names, "rc");
    for (int f = 0; f < nf; f++) {
        const IrField *fd = st->fields.items[f];
        es->data[f] = emit_unique(arena, &es->names, arena_printf(arena, "%s_p", es->field[f]));
        es->stride[f] =
            emit_unique(arena, &es->names, arena_printf(arena, "%s_s", es->field[f]));
        if (fd->kind == IR_TEMP)
            es->storage[f] =
                emit_unique(arena, &es->names, arena_printf(arena, "%s_storage", es->field[f]));
    }
    for (int s = 0; s < ns; s++)
        if (st->scalars.items[s]->is_output)
            es->acc[s] = emit_unique(arena, &es->names,
                                     arena_printf(arena, "%s_value", es->scalar[s]));
}

bool emit_globals(Compiler *c, NameSet *globals)
{
    bool ok = true;
    for (int s = 0; s < c->ir->stencils.len; s++) {
        const IrStencil *st = c->ir->stencils.items[s];
        if (emit_is_reserved(st->name)) {
            diag_error(&c->diag, st->loc,
                       "stencil name '%s' is reserved in the generated C code; rename the "
                       "stencil", st->name);
            ok = false;
        }
        emit_take(c->arena, globals, st->name);
        emit_take(c->arena, globals, arena_printf(c->arena, "%s_info", st->name));
    }
    return ok;
}

/* ============================================================== constants */

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

/* The shortest "%.Ng" spelling that reads back as the same value. */
static void shortest(char *buf, size_t size, double d, bool single)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, d);
        if (single ? strtof(buf, NULL) == (float)d : strtod(buf, NULL) == d)
            return;
    }
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
            emit_text(o, "NAN");
            return;
        }
        if (isinf(d)) {
            emit_text(o, "%sINFINITY", d < 0 ? "-" : "");
            return;
        }
        char buf[64];
        shortest(buf, sizeof buf, d, single);
        bool has_point = strpbrk(buf, ".e") != NULL;
        emit_text(o, "%s%s%s", buf, has_point ? "" : ".0", single ? "f" : "");
        return;
    }
    }
    unreachable();
}

const char *emit_level(Arena *arena, const char *nk, Level lv, int64_t delta)
{
    int64_t off = lv.offset + delta;
    if (!lv.from_end)
        return arena_printf(arena, "%" PRId64, off);
    if (off == 0)
        return nk;
    return arena_printf(arena, "%s %c %" PRId64, nk, off < 0 ? '-' : '+',
                        off < 0 ? -off : off);
}

const char *emit_offset(Arena *arena, const char *var, int64_t offset)
{
    if (offset == 0)
        return var;
    return arena_printf(arena, "%s %c %" PRId64, var, offset < 0 ? '-' : '+',
                        offset < 0 ? -offset : offset);
}

/* ============================================================ expressions */

/* C precedence levels, higher binds tighter. */
enum {
    P_COND = 3, P_OR = 4, P_AND = 5, P_EQ = 9, P_REL = 10, P_ADD = 12, P_MUL = 13,
    P_UNARY = 14, P_PRIMARY = 16
};

static int binary_prec(Op op)
{
    switch (op) {
    case OP_ADD: case OP_SUB: return P_ADD;
    case OP_MUL: case OP_DIV: case OP_MOD: return P_MUL;
    case OP_LT: case OP_LE: case OP_GT: case OP_GE: return P_REL;
    case OP_EQ: case OP_NE: return P_EQ;
    case OP_AND: return P_AND;
    case OP_OR: return P_OR;
    default: unreachable();
    }
}

static bool is_negative_const(const IrExpr *e)
{
    if (e->kind != IR_CONST)
        return false;
    if (e->type == TY_INT)
        return e->cnst.i < 0;
    if (e->type == TY_FLOAT || e->type == TY_DOUBLE)
        return signbit(e->cnst.d) && !isnan(e->cnst.d);
    return false;
}

static int prec_of(const IrExpr *e)
{
    switch (e->kind) {
    case IR_CONST:
        return is_negative_const(e) ? P_UNARY : P_PRIMARY;
    case IR_LOAD: case IR_SCALAR: case IR_CALL: case IR_COLREDUCE:
        return P_PRIMARY;
    case IR_INDEX:
        return e->type == TY_INT ? P_UNARY : P_PRIMARY;   /* (int32_t)i */
    case IR_UNARY: case IR_CAST:
        return P_UNARY;
    case IR_BINARY:
        return binary_prec(e->op.op);
    case IR_COND:
        return P_COND;
    }
    unreachable();
}

static void expr_at(Out *o, const EmitExprCtx *cx, const IrExpr *e, int min_prec);

/* The C function for a builtin applied to arguments of type t. */
static const char *builtin_c_name(Builtin fn, Type t)
{
    bool single = t == TY_FLOAT;
    switch (fn) {
    case B_ABS: return t == TY_INT ? "abs" : single ? "fabsf" : "fabs";
    case B_MIN: return t == TY_INT ? "gt_min_int" : single ? "fminf" : "fmin";
    case B_MAX: return t == TY_INT ? "gt_max_int" : single ? "fmaxf" : "fmax";
    case B_ISNAN: return "isnan";
    case B_ISINF: return "isinf";
    default: break;
    }
    static const char *const float_names[] = {
#define X(id, name, nargs) name "f",
        BUILTINS(X)
#undef X
    };
    return single ? float_names[fn] : builtin_names[fn];
}

void emit_expr(Out *o, const EmitExprCtx *cx, const IrExpr *e)
{
    expr_at(o, cx, e, 0);
}

static void expr_at(Out *o, const EmitExprCtx *cx, const IrExpr *e, int min_prec)
{
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
        expr_at(o, cx, a, sign && inner_sign ? P_PRIMARY : P_UNARY);
        break;
    }
    case IR_BINARY: {
        /* Children of comparisons, and && under ||, get parentheses even where
         * C does not need them: gcc -Wparentheses asks for them. */
        int left = prec, right = prec + 1;
        if (prec == P_REL || prec == P_EQ)
            left = right = P_REL + 1;
        if (e->op.op == OP_OR)
            left = right = P_AND + 1;
        expr_at(o, cx, e->op.a, left);
        emit_text(o, " %s ", op_spellings[e->op.op]);
        expr_at(o, cx, e->op.b, right);
        break;
    }
    case IR_COND:
        expr_at(o, cx, e->cond.cond, P_OR);
        emit_text(o, " ? ");
        expr_at(o, cx, e->cond.then, P_OR);
        emit_text(o, " : ");
        expr_at(o, cx, e->cond.els, P_COND);
        break;
    case IR_CALL: {
        Type t = e->call.args[0]->type;
        emit_text(o, "%s(", builtin_c_name(e->call.fn, t));
        for (int a = 0; a < e->call.nargs; a++) {
            if (a)
                emit_text(o, ", ");
            expr_at(o, cx, e->call.args[a], 0);
        }
        emit_text(o, ")");
        break;
    }
    case IR_INDEX:
        if (e->type == TY_INT)
            emit_text(o, "(int32_t)%s", cx->idx[e->index_axis]);
        else
            emit_text(o, "%s", cx->idx[e->index_axis]);
        break;
    case IR_CAST:
        emit_text(o, "(%s)", emit_c_type(e->type));
        expr_at(o, cx, e->cast.a,
                is_negative_const(e->cast.a) || e->cast.a->kind == IR_UNARY ? P_PRIMARY
                                                                            : P_UNARY);
        break;
    case IR_COLREDUCE:
        cx->colreduce(o, cx, e);
        break;
    }
    if (paren)
        emit_text(o, ")");
}

bool emit_expr_has(const IrExpr *e, IrExprKind k)
{
    if (!e)
        return false;
    if (e->kind == k)
        return true;
    switch (e->kind) {
    case IR_UNARY: case IR_BINARY:
        return emit_expr_has(e->op.a, k) || emit_expr_has(e->op.b, k);
    case IR_COND:
        return emit_expr_has(e->cond.cond, k) || emit_expr_has(e->cond.then, k) ||
               emit_expr_has(e->cond.els, k);
    case IR_CALL:
        for (int a = 0; a < e->call.nargs; a++)
            if (emit_expr_has(e->call.args[a], k))
                return true;
        return false;
    case IR_CAST:
        return emit_expr_has(e->cast.a, k);
    case IR_COLREDUCE:
        return emit_expr_has(e->colreduce.a, k);
    default:
        return false;
    }
}

/* ============================================================ header, info */

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

void emit_source_prologue(Out *o, Compiler *c, const char *hdr_name, const char *backend)
{
    emit_line(o, "/* %s: generated by gtcc (backend %s) from %s; do not edit. */", o->name,
              backend, base_name(c->opts.input ? c->opts.input : "the program"));
    emit_line(o, "#include <math.h>");
    emit_line(o, "#include <stdbool.h>");
    emit_line(o, "#include <stdint.h>");
    emit_line(o, "#include <stdlib.h>");
    emit_blank(o);
    emit_line(o, "#include <gt/gt.h>");
    emit_line(o, "#include <gt/gt_generated.h>");
    emit_blank(o);
    emit_line(o, "#include \"%s\"", base_name(hdr_name));
    emit_blank(o);
    emit_line(o, "/* Each operation rounds on its own, in the order the program gives: no");
    emit_line(o, "   contraction of a * b + c into a fused multiply-add, which the C compiler");
    emit_line(o, "   may otherwise do differently in each backend's code (GNU C modes, and");
    emit_line(o, "   clang in any mode, contract by default). -DGT_ALLOW_FMA allows it. */");
    emit_line(o, "#ifndef GT_ALLOW_FMA");
    emit_line(o, "#if defined(__clang__)");
    emit_line(o, "#pragma STDC FP_CONTRACT OFF");
    emit_line(o, "#elif defined(__GNUC__)");
    emit_line(o, "#pragma GCC optimize(\"fp-contract=off\")");
    emit_line(o, "#endif");
    emit_line(o, "#endif");
}

void emit_signature(Out *o, const EmitStencil *es)
{
    /* Parameters wrap before column 96, aligned after the '('. */
    const IrStencil *st = es->st;
    Arena *arena = es->arena;
    size_t open = strlen(st->name) + 5, col = open;
    emit_text(o, "int %s(", st->name);
    for (int p = 0; p <= st->params.len; p++) {
        const char *text;
        if (p == st->params.len) {
            text = arena_printf(arena, "const gt_domain *%s)", es->domain);
        } else {
            const IrParam *par = &st->params.items[p];
            if (par->is_field)
                text = arena_printf(arena, "gt_storage *%s,", es->field[par->field->id]);
            else
                text = arena_printf(arena, "%s %s%s,", emit_c_type(par->scalar->type),
                                    par->scalar->is_output ? "*" : "",
                                    es->scalar[par->scalar->id]);
        }
        size_t len = strlen(text);
        if (col > open && col + 1 + len > 96) {
            emit_text(o, "\n%*s", (int)(o->indent * 4 + open), "");
            col = open;
        } else if (col > open) {
            emit_text(o, " ");
            col++;
        }
        emit_text(o, "%s", text);
        col += len;
    }
}

/* "i[-1, 1] j[-1, 1]", or "none". */
static const char *halo_text(Arena *arena, const IrField *f)
{
    const char *s = "";
    for (int a = 0; a < NAXES; a++)
        if (f->halo[a][0] || f->halo[a][1])
            s = arena_printf(arena, "%s%s%c[%" PRId64 ", %" PRId64 "]", s, *s ? " " : "",
                             "ijk"[a], f->halo[a][0], f->halo[a][1]);
    return *s ? s : "none";
}

static const char *bc_text(Arena *arena, const IrField *f)
{
    static const char *const names[] = {"", "periodic", "dirichlet", "neumann", "mirror"};
    const char *s = "";
    for (int a = 0; a < NAXES; a++) {
        if (f->bc[a].kind == BC_NONE)
            continue;
        if (f->bc[a].kind == BC_DIRICHLET)
            s = arena_printf(arena, "%s, %c: dirichlet(%g)", s, "ijk"[a], f->bc[a].value);
        else
            s = arena_printf(arena, "%s, %c: %s", s, "ijk"[a], names[f->bc[a].kind]);
    }
    return s;
}

void emit_header(Out *o, Compiler *c, const char *hdr_name, const char *backend,
                 const NameSet *globals, EmitStencil *const *stencils)
{
    (void)globals;
    const char *base = base_name(hdr_name);
    char *guard = arena_printf(c->arena, "%s_INCLUDED", base);
    for (char *p = guard; *p; p++)
        *p = isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_';
    if (isdigit((unsigned char)guard[0]))
        guard = arena_printf(c->arena, "GTCC_%s", guard);
    emit_line(o, "/* %s: generated by gtcc (backend %s) from %s; do not edit.", base, backend,
              base_name(c->opts.input ? c->opts.input : "the program"));
    emit_line(o, " *");
    emit_line(o, " * Each stencil returns 0, or a negative GT_E... code with gt_last_error()");
    emit_line(o, " * saying why; on error no data has been written. domain may be NULL: the");
    emit_line(o, " * compute domain is then the interior of the first output. Field storages");
    emit_line(o, " * are matched by axis names; each needs at least the halo listed. */");
    emit_line(o, "#ifndef %s", guard);
    emit_line(o, "#define %s", guard);
    emit_blank(o);
    emit_line(o, "#include <stdbool.h>");
    emit_line(o, "#include <stdint.h>");
    emit_blank(o);
    emit_line(o, "#include <gt/gt.h>");
    emit_blank(o);
    emit_line(o, "#ifdef __cplusplus");
    emit_line(o, "extern \"C\" {");
    emit_line(o, "#endif");
    for (int s = 0; s < c->ir->stencils.len; s++) {
        const EmitStencil *es = stencils[s];
        const IrStencil *st = es->st;
        emit_blank(o);
        emit_line(o, "/* %s:%d: stencil %s", base_name(st->loc.file ? st->loc.file : "?"),
                  st->loc.line, st->name);
        for (int p = 0; p < st->params.len; p++) {
            const IrParam *par = &st->params.items[p];
            if (par->is_field) {
                const IrField *f = par->field;
                emit_line(o, " *   %-10s field<%s, %s>  %s, halo %s%s", es->field[f->id],
                          type_names[f->type], axes_name(f->axes),
                          f->is_written ? (f->is_read ? "in-out" : "output") : "input",
                          halo_text(c->arena, f), bc_text(c->arena, f));
            } else {
                const IrScalar *sc = par->scalar;
                emit_line(o, " *   %-10s %s%s", es->scalar[sc->id],
                          sc->is_output ? "out " : "", type_names[sc->type]);
            }
        }
        if (st->min_nk > 1)
            emit_line(o, " *   the domain needs at least %" PRId64 " levels along K", st->min_nk);
        emit_line(o, " */");
        emit_begin_line(o);
        emit_signature(o, es);
        emit_text(o, ";");
        emit_end_line(o);
        emit_line(o, "extern const gt_stencil_info %s;", es->info);
    }
    emit_blank(o);
    emit_line(o, "#ifdef __cplusplus");
    emit_line(o, "}");
    emit_line(o, "#endif");
    emit_blank(o);
    emit_line(o, "#endif /* %s */", guard);
}

void emit_info(Out *o, const EmitStencil *es)
{
    const IrStencil *st = es->st;
    const char *table = arena_printf(es->arena, "%s_fields", st->name);
    emit_line(o, "static const gt_field_info %s[%d] = {", table,
              es->nfield_params ? es->nfield_params : 1);
    o->indent++;
    for (int f = 0; f < es->nfield_params; f++) {
        const IrField *fd = st->fields.items[f];
        emit_begin_line(o);
        emit_text(o, "{\"");
        emit_quoted(o, fd->name);
        emit_text(o, "\", \"%s\", %s, %d, {", axes_name(fd->axes), emit_dtype(fd->type),
                  fd->is_written ? 1 : 0);
        for (int a = 0; a < NAXES; a++)
            emit_text(o, "%s{%" PRId64 ", %" PRId64 "}", a ? ", " : "", fd->halo[a][0],
                      fd->halo[a][1]);
        emit_text(o, "}},");
        emit_end_line(o);
    }
    if (es->nfield_params == 0)
        emit_line(o, "{0},");
    o->indent--;
    emit_line(o, "};");
    emit_line(o, "const gt_stencil_info %s = {\"%s\", %d, %s};", es->info, st->name,
              es->nfield_params, table);
}

void emit_bind_prologue(Out *o, const EmitStencil *es, const bool used[NAXES])
{
    const IrStencil *st = es->st;
    int nf = es->nfield_params;
    for (int s = 0; s < st->scalars.len; s++) {
        const IrScalar *sc = st->scalars.items[s];
        if (!sc->is_output)
            continue;
        emit_line(o, "if (!%s)", es->scalar[s]);
        emit_line(o, "    return gt__fail(GT_EINVAL, \"stencil '%s': out scalar '%s' is NULL\");",
                  st->name, sc->name);
    }
    emit_begin_line(o);
    emit_text(o, "gt_storage *const %s[%d] = {", es->args, nf ? nf : 1);
    for (int f = 0; f < nf; f++)
        emit_text(o, "%s%s", f ? ", " : "", es->field[f]);
    emit_text(o, "%s};", nf ? "" : "NULL");
    emit_end_line(o);
    emit_begin_line(o);
    emit_text(o, "static const unsigned char %s[%d] = {", es->offsets, nf ? nf : 1);
    for (int f = 0; f < nf; f++)
        emit_text(o, "%s%d", f ? ", " : "", st->fields.items[f]->read_at_offset ? 1 : 0);
    emit_text(o, "%s};", nf ? "" : "0");
    emit_end_line(o);
    emit_line(o, "int64_t %s[3];", es->size);
    emit_line(o, "gt_bound %s[%d];", es->bound, nf ? nf : 1);
    emit_line(o, "int %s = gt__bind(&%s, %s, %s, %s, %s, %s);", es->rc, es->info, es->offsets,
              es->args, es->domain, es->size, es->bound);
    emit_line(o, "if (%s != 0)", es->rc);
    emit_line(o, "    return %s;", es->rc);
    const char *sizes[3] = {es->ni, es->nj, es->nk};
    bool any = false;
    for (int a = 0; a < NAXES; a++) {
        if (!used[a] && !(a == AXIS_K && st->min_nk > 0))
            continue;
        if (!any)
            emit_begin_line(o), emit_text(o, "const int64_t ");
        emit_text(o, "%s%s = %s[%d]", any ? ", " : "", sizes[a], es->size, a);
        any = true;
    }
    if (any)
        emit_text(o, ";"), emit_end_line(o);
    if (st->min_nk > 0) {
        emit_line(o, "if (%s < %" PRId64 ")", es->nk, st->min_nk);
        emit_line(o, "    return gt__fail(GT_ESHAPE, \"stencil '%s': the domain has %%lld levels "
                     "along K; its intervals need %" PRId64 " or more\", (long long)%s);",
                  st->name, st->min_nk, es->nk);
    }
}

void emit_expr_prec(Out *o, const EmitExprCtx *cx, const IrExpr *e, int min_prec)
{
    expr_at(o, cx, e, min_prec);
}

static bool ident_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

void emit_names_used(Arena *arena, const char *text, size_t len, const char *const *names,
                     int n, bool *used)
{
    /* name -> its first index + 1 */
    NameMap *want = map_new(arena);
    for (int x = n - 1; x >= 0; x--)
        map_put(want, names[x], (void *)(intptr_t)(x + 1));
    for (int x = 0; x < n; x++)
        used[x] = false;
    char small[128];
    bool line_start = true;
    size_t i = 0;
    while (i < len) {
        char ch = text[i];
        if (line_start) {
            size_t j = i;
            while (j < len && (text[j] == ' ' || text[j] == '\t'))
                j++;
            if (j < len && text[j] == '#') {   /* a preprocessor line: not code */
                while (j < len && text[j] != '\n')
                    j++;
                i = j;
                continue;
            }
        }
        line_start = ch == '\n';
        if (ch == '/' && i + 1 < len && text[i + 1] == '*') {
            size_t j = i + 2;
            while (j + 1 < len && !(text[j] == '*' && text[j + 1] == '/'))
                j++;
            i = j + 2;
        } else if (ch == '"' || ch == '\'') {
            size_t j = i + 1;
            while (j < len && text[j] != ch && text[j] != '\n')
                j += text[j] == '\\' ? 2 : 1;
            i = j + 1;
        } else if (isdigit((unsigned char)ch)) {   /* a number, 1e5 included */
            while (i < len && (ident_char(text[i]) || text[i] == '.'))
                i++;
        } else if (ident_char(ch)) {
            size_t j = i;
            while (j < len && ident_char(text[j]))
                j++;
            size_t k = j - i;
            char *word = k < sizeof small ? small : arena_alloc(arena, k + 1);
            memcpy(word, text + i, k);
            word[k] = '\0';
            intptr_t at = (intptr_t)map_get(want, word);
            if (at)
                used[at - 1] = true;
            i = j;
        } else {
            i++;
        }
    }
    /* a name given twice: every index of it */
    for (int x = 0; x < n; x++)
        used[x] = used[(intptr_t)map_get(want, names[x]) - 1];
}

/* ------------------------------------------------- shared by the backends */

const char *emit_source_name(Arena *arena, const char *hdr_name, const char *suffix)
{
    const char *slash = strrchr(hdr_name, '/');
    const char *base = slash ? slash + 1 : hdr_name;
    size_t len = strlen(base);
    if (len > 2 && strcmp(base + len - 2, ".h") == 0)
        len -= 2;
    return arena_printf(arena, "%.*s%s", (int)len, base, suffix);
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
        emit_const(o, t, 0, op == RED_MIN ? INFINITY : -INFINITY);
}

void emit_reduce_open(Out *o, RedOp op, Type t, const char *acc)
{
    if (op == RED_SUM) {
        emit_text(o, "%s += ", acc);
        return;
    }
    bool is_min = op == RED_MIN;
    if (t == TY_FLOAT || t == TY_DOUBLE)
        emit_text(o, "%s = %s%s(%s, ", acc, is_min ? "fmin" : "fmax", t == TY_FLOAT ? "f" : "",
                  acc);
    else if (t == TY_BOOL)
        emit_text(o, "%s = %s %s ", acc, acc, is_min ? "&&" : "||");
    else
        emit_text(o, "%s = %s(%s, ", acc, is_min ? "gt_min_int" : "gt_max_int", acc);
}

void emit_reduce_close(Out *o, RedOp op, Type t)
{
    if (op != RED_SUM && t != TY_BOOL)
        emit_text(o, ")");
}

void emit_scalar_accumulators(Out *o, const EmitStencil *es)
{
    const IrStencil *st = es->st;
    for (int s = 0; s < st->scalars.len; s++) {
        const IrScalar *sc = st->scalars.items[s];
        if (!sc->is_output)
            continue;
        RedOp op = RED_SUM;
        /* the reduction writing it decides its identity */
        for (int c = 0; c < st->computations.len; c++)
            for (int i = 0; i < st->computations.items[c]->intervals.len; i++) {
                const IrInterval *iv = st->computations.items[c]->intervals.items[i];
                for (int k = 0; k < iv->stmts.len; k++)
                    if (iv->stmts.items[k]->kind == IR_REDUCE &&
                        iv->stmts.items[k]->reduce.dst == sc)
                        op = iv->stmts.items[k]->reduce.op;
            }
        emit_red_local(o, op, sc->type, es->acc[s]);
    }
}

void emit_scalar_results(Out *o, const EmitStencil *es)
{
    const IrStencil *st = es->st;
    bool any_out = false;
    for (int s = 0; s < st->scalars.len; s++)
        if (st->scalars.items[s]->is_output) {
            if (!any_out)
                emit_blank(o);
            any_out = true;
            emit_line(o, "*%s = %s;", es->scalar[s], es->acc[s]);
        }
}

void emit_temp_halo(Out *o, unsigned axes, const int64_t h[NAXES][2])
{
    for (int a = 0; a < NAXES; a++) {
        bool has = axes & (1u << a);
        emit_text(o, "%s%" PRId64 ", %" PRId64, a ? ", " : "", has ? h[a][0] : 0,
                  has ? h[a][1] : 0);
    }
}

void emit_alloc_check(Out *o, const EmitStencil *es, const char *ptr)
{
    emit_line(o, "if (!%s) {", ptr);
    emit_line(o, "    %s = gt_last_error_code();", es->rc);
    emit_line(o, "    goto done;");
    emit_line(o, "}");
}

bool emit_finish(Compiler *c, Out *hdr_out, FILE *hdr, Out *src_out, FILE *src)
{
    if (src_out->stn_file)
        emit_blank(src_out);
    bool ok = emit_flush(c, hdr_out, hdr);
    ok = emit_flush(c, src_out, src) && ok;
    return ok;
}

EmitStencil **emit_name_stencils(Compiler *c, NameSet *globals)
{
    if (!emit_globals(c, globals))
        return NULL;
    int ns = c->ir->stencils.len;
    EmitStencil **stencils = arena_alloc(c->arena, sizeof *stencils * (size_t)(ns + 1));
    for (int s = 0; s < ns; s++) {
        stencils[s] = arena_alloc(c->arena, sizeof **stencils);
        emit_name_stencil(stencils[s], c->arena, globals, c->ir->stencils.items[s]);
    }
    return stencils;
}

void emit_open_files(Compiler *c, const Backend *b, const char *hdr_name, const NameSet *globals,
                     EmitStencil *const *stencils, Out *h, Out *o)
{
    *h = (Out){.name = arena_strdup(c->arena, hdr_name)};
    emit_header(h, c, hdr_name, b->name, globals, stencils);
    *o = (Out){.name = emit_source_name(c->arena, hdr_name, b->suffix)};
    emit_source_prologue(o, c, hdr_name, b->name);
}

void emit_red_local(Out *o, RedOp op, Type t, const char *name)
{
    emit_begin_line(o);
    emit_text(o, "%s %s = ", emit_c_type(t), name);
    emit_red_identity(o, op, t);
    emit_text(o, ";");
    emit_end_line(o);
}
