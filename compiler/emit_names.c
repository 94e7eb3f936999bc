/* emit_names.c: C names for what a .stn program names, and for the locals
 * of the generated code.
 *
 * A .stn name keeps its spelling in C where it can (fields become parameters
 * and access macros of the same name); names that C or the generated code
 * reserve get a trailing '_' (emit_user_name), and generated locals are
 * chosen after the user's names so they never clash. */
#include <string.h>

#include "emit.h"

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
    es->bind = "gt__bind";
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
