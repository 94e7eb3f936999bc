/* sema.c: semantic analysis and lowering of the AST to the stencil IR.
 *
 * sema_check_program runs three steps:
 *  1. modules and global names: every const, function and (main file)
 *     stencil gets one entry in a name table; a module sees its own names and
 *     those of the modules it imports, directly or not;
 *  2. functions are checked once each (names, calls, arity, locals; see
 *     inline.c) and the call graph is searched for recursion and for calls of
 *     functions declared later;
 *  3. consts are evaluated (lowered, converted to their type, folded), and
 *     -D overrides replace their values;
 * then sema_lower_stencil lowers each stencil of the main file: parameters,
 * temporaries in their scopes, statements with types (casts inserted, weak
 * floating literals adapted), shapes, inlined calls, folded constants and
 * constant `if`s resolved, intervals checked and put in execution order,
 * boundary conditions attached, intents checked. The access rules come next
 * (access.c), then sema_unique_names.
 * Regions, extents and halos come later (extents.c).
 *
 * Errors never stop the pass: a statement with an error is left out of the IR
 * and the next one is checked, until the error limit is reached.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gtcc.h"
#include "sema.h"

/* ============================================================ diagnostics */

void sema_error(Sema *s, Loc loc, const char *fmt, ...)
{
    if (s->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    diag_verror(&s->c->diag, loc, fmt, ap);
    va_end(ap);
    inline_notes(s);
}

static bool loc_before(Loc a, Loc b)
{
    return a.line < b.line || (a.line == b.line && a.col < b.col);
}

/* ========================================================= global names */

typedef enum { G_CONST, G_FUNCTION, G_STENCIL } GlobalKind;
static const char *const global_kind_names[] = {"const", "function", "stencil"};

typedef struct {
    GlobalKind kind;
    const char *name;
    Loc loc;
    int module;
    ConstDecl *decl;          /* G_CONST */
    int state;                /* G_CONST: 0 not evaluated, 1 being evaluated, 2 done */
    IrExpr *value;            /* G_CONST: the folded value, NULL after an error */
    FnInfo *fn;               /* G_FUNCTION */
} Global;

static bool is_builtin_name(const char *name)
{
    if (strcmp(name, "sum") == 0)
        return true;
    for (int b = 0; b < NBUILTINS; b++)
        if (strcmp(builtin_names[b], name) == 0)
            return true;
    return false;
}

static int builtin_index(const char *name)
{
    for (int b = 0; b < NBUILTINS; b++)
        if (strcmp(builtin_names[b], name) == 0)
            return b;
    return -1;
}

static int module_index(const Sema *s, const Module *m)
{
    (void)s;
    return m ? m->sema_index - 1 : -1;
}

static void add_module(Sema *s, Module *m, int *cap)
{
    if (!m || module_index(s, m) >= 0)
        return;
    if (s->nmodules == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        Module **grown = arena_alloc(s->c->arena, sizeof *grown * (size_t)*cap);
        if (s->nmodules)
            memcpy(grown, s->modules, sizeof *grown * (size_t)s->nmodules);
        s->modules = grown;
    }
    s->modules[s->nmodules++] = m;
    m->sema_index = s->nmodules;
    for (int i = 0; i < m->imports.len; i++)
        add_module(s, m->imports.items[i]->module, cap);
}

static bool sees(const Sema *s, int from, int to)
{
    return s->visible[(size_t)from * (size_t)s->visible_words + (size_t)to / 64] >> (to % 64) & 1;
}

/* Row m of the visibility matrix: itself, and what every module it imports
 * sees (rows computed once each: done[]; imports form no cycle here). */
static void mark_visible(Sema *s, int m, bool *done)
{
    if (done[m])
        return;
    done[m] = true;
    uint64_t *row = s->visible + (size_t)m * (size_t)s->visible_words;
    row[m / 64] |= (uint64_t)1 << (m % 64);
    const Module *mod = s->modules[m];
    for (int i = 0; i < mod->imports.len; i++) {
        int to = module_index(s, mod->imports.items[i]->module);
        if (to < 0 || to == m)
            continue;
        mark_visible(s, to, done);
        const uint64_t *from = s->visible + (size_t)to * (size_t)s->visible_words;
        for (int w = 0; w < s->visible_words; w++)
            row[w] |= from[w];
    }
}

/* Every module reachable from the main one, imports before the modules that
 * import them (so that a name defined twice is reported at the importer),
 * and who sees whom. */
static void setup_modules(Sema *s)
{
    int cap = 0;
    for (int i = 0; i < s->c->modules.len; i++)
        add_module(s, s->c->modules.items[i], &cap);
    add_module(s, s->c->main, &cap);
    s->main = module_index(s, s->c->main);
    int n = s->nmodules;
    s->visible_words = (n + 63) / 64;
    s->visible = arena_alloc(s->c->arena,
                             sizeof(uint64_t) * ((size_t)n * (size_t)s->visible_words + 1));
    bool *done = arena_alloc(s->c->arena, sizeof(bool) * (size_t)(n + 1));
    for (int m = 0; m < n; m++)
        mark_visible(s, m, done);
}

/* A declaration of a module, for sorting them in textual order. */
typedef struct {
    GlobalKind kind;
    const char *name;
    Loc loc;
    void *decl;
} DeclRef;

static int compare_decl_refs(const void *x, const void *y)
{
    const DeclRef *a = x, *b = y;
    if (loc_before(a->loc, b->loc))
        return -1;
    return loc_before(b->loc, a->loc) ? 1 : 0;
}

static void declare_global(Sema *s, int module, const DeclRef *d)
{
    if (is_builtin_name(d->name)) {
        sema_error(s, d->loc, "%s '%s' has the name of a builtin function; choose another name",
                   global_kind_names[d->kind], d->name);
        return;
    }
    Global *old = map_get(s->globals, d->name);
    if (old) {
        sema_error(s, d->loc, "'%s' is already defined, as a %s", d->name,
                   global_kind_names[old->kind]);
        diag_note(&s->c->diag, old->loc, "'%s' is first defined here", d->name);
        return;
    }
    Global *g = arena_alloc(s->c->arena, sizeof *g);
    g->kind = d->kind;
    g->name = d->name;
    g->loc = d->loc;
    g->module = module;
    if (d->kind == G_CONST) {
        g->decl = d->decl;
    } else if (d->kind == G_FUNCTION) {
        g->fn = arena_alloc(s->c->arena, sizeof *g->fn);
        g->fn->fn = d->decl;
        g->fn->module = module;
    }
    map_put(s->globals, d->name, g);
}

/* Enters the consts and functions of every module, and the stencils of the
 * main one, in textual order per module. */
static void collect_globals(Sema *s)
{
    s->globals = map_new(s->c->arena);
    for (int m = 0; m < s->nmodules; m++) {
        Module *mod = s->modules[m];
        int n = mod->consts.len + mod->functions.len + (m == s->main ? mod->stencils.len : 0);
        DeclRef *refs = arena_alloc(s->c->arena, sizeof *refs * (size_t)(n + 1));
        int k = 0;
        for (int i = 0; i < mod->consts.len; i++) {
            ConstDecl *d = mod->consts.items[i];
            refs[k++] = (DeclRef){G_CONST, d->name, d->loc, d};
        }
        for (int i = 0; i < mod->functions.len; i++) {
            Function *f = mod->functions.items[i];
            refs[k++] = (DeclRef){G_FUNCTION, f->name, f->loc, f};
        }
        for (int i = 0; m == s->main && i < mod->stencils.len; i++) {
            Stencil *st = mod->stencils.items[i];
            refs[k++] = (DeclRef){G_STENCIL, st->name, st->loc, st};
        }
        qsort(refs, (size_t)k, sizeof *refs, compare_decl_refs);
        for (int i = 0; i < k; i++)
            declare_global(s, m, &refs[i]);
    }
}

static IrExpr *const_value(Sema *s, Global *g);

/* The global `name` as seen from s->module; NULL if there is none (nothing
 * reported) or it is not visible (reported, *reported set). Inside a const or
 * a function (s->user), consts of the same file must be declared earlier, and
 * so must functions when check_order. */
static Global *lookup_global(Sema *s, const char *name, Loc loc, bool check_order,
                             bool *reported)
{
    *reported = false;
    Global *g = map_get(s->globals, name);
    if (!g)
        return NULL;
    if (!sees(s, s->module, g->module)) {
        sema_error(s, loc, "%s '%s' is defined in %s, which this file does not import",
                   global_kind_names[g->kind], name, g->loc.file);
        *reported = true;
        return NULL;
    }
    bool ordered = g->kind == G_CONST || (g->kind == G_FUNCTION && check_order);
    if (ordered && s->user.file && g->module == s->module && !loc_before(g->loc, s->user)) {
        sema_error(s, loc, "%s '%s' is used before its declaration at line %d", 
                   global_kind_names[g->kind], name, g->loc.line);
        *reported = true;
        return NULL;
    }
    return g;
}

/* A name visible from s->module that a declaration would shadow, or NULL. */
static Global *visible_global(const Sema *s, const char *name)
{
    Global *g = map_get(s->globals, name);
    return g && sees(s, s->module, g->module) ? g : NULL;
}

/* Reports a declaration of `name` (a "parameter", "temporary", "local", ...)
 * that would shadow a builtin or a global; false then. */
static bool check_shadowing(Sema *s, const char *what, const char *name, Loc loc)
{
    if (is_builtin_name(name)) {
        sema_error(s, loc, "%s '%s' has the name of a builtin function; choose another name",
                   what, name);
        return false;
    }
    Global *g = visible_global(s, name);
    if (g && g->kind != G_STENCIL) {   /* stencil names never appear in expressions */
        sema_error(s, loc, "%s '%s' has the name of %s '%s'; choose another name", what, name,
                   global_kind_names[g->kind], name);
        diag_note(&s->c->diag, g->loc, "%s '%s' is declared here", global_kind_names[g->kind],
                  name);
        return false;
    }
    return true;
}

/* ================================================================== types */

static bool is_numeric(Type t)
{
    return t != TY_BOOL;
}

/* A weak double expression becomes a float one: its literals are rounded to
 * float (one beyond float's range is an error, as C's 1e39f would be
 * infinite), its operations and int-to-double casts retyped. Only double
 * nodes are weak-derived; bool and int subtrees keep their types. */
static IrExpr *retype_weak(Sema *s, IrExpr *e, Type t)
{
    if (e->type != TY_DOUBLE || t != TY_FLOAT)
        return e;
    e->type = TY_FLOAT;
    switch (e->kind) {
    case IR_CONST:
        if (isfinite(e->cnst.d) && !isfinite((float)e->cnst.d))
            sema_error(s, e->loc, "floating literal %.9g is out of range for float (at most "
                       "%.9g)", e->cnst.d, (double)FLT_MAX);
        else if (e->cnst.d != 0.0 && (float)e->cnst.d == 0.0f)
            diag_warning(&s->c->diag, e->loc, "floating constant %g is too small for float: it "
                         "is 0", e->cnst.d);
        e->cnst.d = (double)(float)e->cnst.d;
        break;
    case IR_UNARY:
        retype_weak(s, e->op.a, t);
        break;
    case IR_BINARY:
        retype_weak(s, e->op.a, t);
        retype_weak(s, e->op.b, t);
        break;
    case IR_COND:
        retype_weak(s, e->cond.then, t);
        retype_weak(s, e->cond.els, t);
        break;
    case IR_CALL:
        for (int i = 0; i < e->call.nargs; i++)
            retype_weak(s, e->call.args[i], t);
        break;
    case IR_COLREDUCE:
        retype_weak(s, e->colreduce.a, t);
        break;
    case IR_CAST:             /* int -> double becomes int -> float */
    case IR_LOAD: case IR_SCALAR: case IR_INDEX:
        break;
    }
    return e;
}

/* Brings two numeric operands to their common type (C's usual conversions,
 * a weak floating operand taking the other's floating type); returns it. */
static Type unify(Sema *s, Typed *a, Typed *b, bool *weak)
{
    Arena *arena = s->c->arena;
    Type ta = a->e->type, tb = b->e->type;
    if (a->weak && type_is_floating(tb) && !b->weak) {
        a->e = retype_weak(s, a->e, tb);
        a->weak = false;
        ta = a->e->type;
    } else if (b->weak && type_is_floating(ta) && !a->weak) {
        b->e = retype_weak(s, b->e, ta);
        b->weak = false;
        tb = b->e->type;
    }
    Type common = ta > tb ? ta : tb;
    *weak = type_is_floating(common) && (a->weak || !type_is_floating(ta)) &&
            (b->weak || !type_is_floating(tb));
    a->e = ir_cast(arena, a->e, common);
    b->e = ir_cast(arena, b->e, common);
    return common;
}

Typed sema_convert(Sema *s, Typed v, Type to, Loc loc, const char *what)
{
    if (!v.e)
        return v;
    if (v.weak)
        v.e = retype_weak(s, v.e, to);
    v.weak = false;
    Type from = v.e->type;
    if (from == to)
        return v;
    if (from == TY_BOOL || to == TY_BOOL) {
        sema_error(s, loc, "cannot assign %s %s value to %s: bool and numbers do not convert; %s",
                   from == TY_INT ? "an" : "a", type_names[from], what,
                   to == TY_BOOL ? "compare the value, e.g. x != 0"
                                 : "choose a value with ?:, e.g. c ? 1.0 : 0.0");
        return (Typed){0};
    }
    if (to == TY_INT) {
        sema_error(s, loc,
                   "cannot assign a %s value to %s: floating values do not convert to int "
                   "implicitly; convert explicitly with int(e), which truncates toward zero",
                   type_names[from], what);
        return (Typed){0};
    }
    v.e = ir_cast(s->c->arena, v.e, to);
    return v;
}

/* ============================================================ expressions */

static Typed lower_access(Sema *s, const Expr *e);
static Typed lower_call(Sema *s, const Expr *e);

static bool need_number(Sema *s, Typed v, const char *what, Loc loc)
{
    if (!v.e || is_numeric(v.e->type))
        return v.e != NULL;
    sema_error(s, loc, "%s needs a number, not bool", what);
    return false;
}

static Typed lower_unary(Sema *s, const Expr *e)
{
    const Expr *lit = e->op.a;
    if (e->op.op == OP_NEG && lit->kind == EXPR_INT && lit->ival == (int64_t)INT32_MAX + 1) {
        /* -2147483648: INT32_MIN, but its literal does not fit in int (as in C) */
        sema_error(s, lit->loc, "integer literal %" PRId64 " does not fit in int (at most %d); "
                   "write -2147483647 - 1 for the least int", lit->ival, INT32_MAX);
        return (Typed){0};
    }
    Typed a = sema_expr(s, e->op.a);
    if (!a.e)
        return a;
    Op op = e->op.op;
    if (op == OP_NOT) {
        if (a.e->type != TY_BOOL) {
            sema_error(s, e->loc, "operator '!' needs a bool, not %s; compare it, e.g. x == 0",
                       type_names[a.e->type]);
            return (Typed){0};
        }
    } else if (!need_number(s, a, op == OP_NEG ? "operator '-'" : "operator '+'", e->loc)) {
        return (Typed){0};
    }
    return (Typed){ir_unary(s->c->arena, e->loc, op, a.e->type, a.e), a.weak};
}

Typed sema_binary(Sema *s, Op op, Typed a, Typed b, Loc loc)
{
    if (!a.e || !b.e)
        return (Typed){0};
    Type ta = a.e->type, tb = b.e->type, type;
    bool weak = false;
    switch (op) {
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV:
    case OP_LT: case OP_LE: case OP_GT: case OP_GE:
        if (ta == TY_BOOL || tb == TY_BOOL) {
            sema_error(s, loc, "operator '%s' needs numbers, but its %s operand is bool",
                       op_spellings[op], ta == TY_BOOL ? "left" : "right");
            return (Typed){0};
        }
        type = unify(s, &a, &b, &weak);
        if (op >= OP_LT) {
            type = TY_BOOL;
            weak = false;
        }
        break;
    case OP_MOD:
        if (ta != TY_INT || tb != TY_INT) {
            sema_error(s, loc, "operator '%%' needs int operands, not %s and %s; use fmod(a, b) "
                       "for floating values", type_names[ta], type_names[tb]);
            return (Typed){0};
        }
        type = TY_INT;
        break;
    case OP_EQ: case OP_NE:
        if ((ta == TY_BOOL) != (tb == TY_BOOL)) {
            sema_error(s, loc, "cannot compare %s with %s", type_names[ta], type_names[tb]);
            return (Typed){0};
        }
        if (ta != TY_BOOL)
            unify(s, &a, &b, &weak);
        type = TY_BOOL;
        weak = false;
        break;
    case OP_AND: case OP_OR:
        if (ta != TY_BOOL || tb != TY_BOOL) {
            sema_error(s, loc, "operator '%s' needs bool operands, but its %s operand is %s; "
                       "compare it, e.g. x != 0", op_spellings[op],
                       ta != TY_BOOL ? "left" : "right", type_names[ta != TY_BOOL ? ta : tb]);
            return (Typed){0};
        }
        type = TY_BOOL;
        break;
    default:
        unreachable();
    }
    return (Typed){ir_binary(s->c->arena, loc, op, type, a.e, b.e), weak};
}

static Typed lower_cond(Sema *s, const Expr *e)
{
    Typed c = sema_expr(s, e->cond.cond);
    Typed a = sema_expr(s, e->cond.then);
    Typed b = sema_expr(s, e->cond.els);
    if (!c.e || !a.e || !b.e)
        return (Typed){0};
    if (c.e->type != TY_BOOL) {
        sema_error(s, e->cond.cond->loc, "the condition of '?:' must be bool, not %s; compare "
                   "it, e.g. x != 0", type_names[c.e->type]);
        return (Typed){0};
    }
    Type type = TY_BOOL;
    bool weak = false;
    if (a.e->type == TY_BOOL && b.e->type == TY_BOOL)
        type = TY_BOOL;
    else if (a.e->type != TY_BOOL && b.e->type != TY_BOOL)
        type = unify(s, &a, &b, &weak);
    else {
        sema_error(s, e->loc, "the branches of '?:' have types %s and %s, which do not convert",
                   type_names[a.e->type], type_names[b.e->type]);
        return (Typed){0};
    }
    return (Typed){ir_cond(s->c->arena, e->loc, type, c.e, a.e, b.e), weak};
}

/* double(e), float(e), int(e): an explicit conversion, C's (language.md
 * section 10.5). Its value is never weak; a weak literal converted to float
 * is rounded to float, as C's (float)1.5. A bool converts to 0 or 1. */
static Typed lower_convert(Sema *s, const Expr *e)
{
    Type to = e->convert.type;
    Typed a = sema_expr(s, e->convert.a);
    if (!a.e || to == TY_BOOL)   /* bool(e): reported by the parser */
        return (Typed){0};
    if (a.weak && to == TY_FLOAT)
        a.e = retype_weak(s, a.e, TY_FLOAT);
    return (Typed){ir_cast(s->c->arena, a.e, to), false};
}

Typed sema_expr(Sema *s, const Expr *e)
{
    Arena *a = s->c->arena;
    s->nodes++;
    switch (e->kind) {
    case EXPR_INT:
        if (e->ival > INT32_MAX) {
            sema_error(s, e->loc, "integer literal %" PRId64 " does not fit in int (at most %d)",
                       e->ival, INT32_MAX);
            return (Typed){0};
        }
        return (Typed){ir_const_int(a, e->loc, TY_INT, e->ival), false};
    case EXPR_FLOAT:
        if (!isfinite(e->flit.value)) {
            sema_error(s, e->loc, "floating literal '%s' is out of range", e->flit.text);
            return (Typed){0};
        }
        return (Typed){ir_const_real(a, e->loc, TY_DOUBLE, e->flit.value), true};
    case EXPR_BOOL:
        return (Typed){ir_const_int(a, e->loc, TY_BOOL, e->bval), false};
    case EXPR_ACCESS:
        return lower_access(s, e);
    case EXPR_UNARY:
        return lower_unary(s, e);
    case EXPR_BINARY: {
        Typed x = sema_expr(s, e->op.a);
        Typed y = sema_expr(s, e->op.b);
        return sema_binary(s, e->op.op, x, y, e->loc);
    }
    case EXPR_COND:
        return lower_cond(s, e);
    case EXPR_CALL:
        return lower_call(s, e);
    case EXPR_INDEX:
        if (s->const_context) {
            sema_error(s, e->loc, "index(%c) is not a compile-time constant", "ijk"[e->index.axis]);
            return (Typed){0};
        }
        return (Typed){ir_index(a, e->loc, e->index.axis), false};
    case EXPR_CONVERT:
        return lower_convert(s, e);
    }
    unreachable();
}

/* ---------------------------------------------------------------- names */

/* A field parameter, a temporary or a scalar parameter of the stencil. */
typedef struct {
    const char *name;
    Loc loc;
    IrField *field;
    IrScalar *scalar;
} Sym;

static const char *sym_kind(const Sym *sym)
{
    if (sym->scalar)
        return sym->scalar->is_output ? "out scalar" : "scalar parameter";
    return sym->field->kind == IR_TEMP ? "temporary" : "field parameter";
}

struct Scope {
    IrStencil *st;
    NameMap *names;           /* the names visible now -> Sym */
    NameMap *decls;           /* every temporary declared in the body -> Loc of the first */
    VEC(Sym *) block_syms;    /* temporaries of the open if blocks, innermost last */
    int block;                /* if blocks open */
    int mask;                 /* if statements open whose condition is not constant */
    unsigned mask_shape;      /* the union of their conditions' shapes */
    Area area;                /* the intersection of the open regions (language.md 10.1) */
    bool region_block;        /* the innermost open block is a region's */
    bool loop_block;          /* the innermost open block is a while loop's */
    NameMap *region_decls;    /* temporaries first declared in a region block -> non-NULL */
    NameMap *loop_decls;      /* temporaries first declared in a while loop's block */
    bool dead;                /* in a branch that a constant condition removes */
    IterOrder order;          /* of the computation being lowered */
    Loc dead_output;          /* the first assignment of a field parameter or out scalar in
                                 a dead branch (file NULL: none), for the note of 'writes no
                                 output' */
    bool writes_output;       /* some live statement assigns a field parameter or out
                                 scalar (counted even when the statement has errors) */
    bool lost_writes;         /* an if or while whose condition had an error (perhaps one
                                 said before the stencil: a const's) hid its branches */
    int *reductions;          /* per scalar: assignments seen (out scalars) */
    Loc *reduction_loc;       /* per scalar: the first one */
    Loc (*bc_loc)[NAXES];     /* per field: where its boundary condition per axis is */
};

/* Reports a name that resolves to nothing. */
static void undeclared(Sema *s, const char *name, Loc loc, bool assigned)
{
    if (s->env) {
        sema_error(s, loc, "'%s' is not declared; a function sees only its parameters, its "
                   "locals and constants: pass '%s' as an argument", name, name);
        return;
    }
    if (s->scope) {
        Loc *decl = map_get(s->scope->decls, name);
        if (decl && loc_before(loc, *decl)) {
            sema_error(s, loc, "'%s' is used before its declaration at line %d", name,
                       decl->line);
            return;
        }
        if (decl) {
            bool region = map_get(s->scope->region_decls, name) != NULL;
            bool loop = map_get(s->scope->loop_decls, name) != NULL;
            sema_error(s, loc, "'%s' is declared inside %s block at line %d and is not "
                       "visible here; declare it before the %s", name,
                       sema_block_inside(region, loop), decl->line, sema_block_name(region, loop));
            return;
        }
    }
    if (assigned) {
        sema_error(s, loc, "assignment to undeclared name '%s'; declare it first, e.g. "
                   "double %s = ...;", name, name);
    } else if (strcmp(name, "True") == 0 || strcmp(name, "False") == 0) {
        sema_error(s, loc, "'%s' is not declared; the bool constants are 'true' and 'false'",
                   name);
    } else {
        sema_error(s, loc, "'%s' is not declared", name);
    }
}

/* The offsets of an access, per axis; false (reported) if an axis repeats. */
static bool access_offsets(Sema *s, const Expr *e, int64_t off[NAXES])
{
    unsigned seen = 0;
    off[0] = off[1] = off[2] = 0;
    for (int i = 0; i < e->access.noffsets; i++) {
        const Offset *o = &e->access.offsets[i];
        if (seen & (1u << o->axis)) {
            sema_error(s, o->loc, "axis %c appears twice in the offsets of '%s'",
                       "ijk"[o->axis], e->access.name);
            return false;
        }
        seen |= 1u << o->axis;
        if (o->value > SEMA_MAX_OFFSET || o->value < -SEMA_MAX_OFFSET) {
            sema_error(s, o->loc, "offset %c%+" PRId64 " is too large (at most %d)",
                       "ijk"[o->axis], o->value, SEMA_MAX_OFFSET);
            return false;
        }
        off[o->axis] = o->value;
    }
    return true;
}

static bool any_offset(const int64_t off[NAXES])
{
    return off[AXIS_I] || off[AXIS_J] || off[AXIS_K];
}

static Typed lower_sym(Sema *s, const Expr *e, Sym *sym, const int64_t off[NAXES])
{
    char buf[96];
    const char *name = sym->name;
    if (s->const_context) {
        sema_error(s, e->loc, "'%s' is not a compile-time constant; only literals and consts "
                   "may appear here", name);
        return (Typed){0};
    }
    if (sym->scalar) {
        if (sym->scalar->is_output) {
            sema_error(s, e->loc, "out scalar '%s' cannot be read; it is written when the "
                       "stencil returns", name);
            return (Typed){0};
        }
        if (any_offset(off)) {
            sema_error(s, e->loc, "scalar parameter '%s' cannot be read at an offset (%s)", name,
                       ir_offset_text(buf, off));
            return (Typed){0};
        }
        return (Typed){ir_scalar_ref(s->c->arena, e->loc, sym->scalar), false};
    }
    IrField *f = sym->field;
    if (!shape_check_offset(s, e->loc, name, f->axes, off, NULL))
        return (Typed){0};
    if (f->block_local && any_offset(off)) {
        sema_error(s, e->loc, "temporary '%s' is declared inside %s block, so it can be read "
                   "only at zero offset, not at %s; declare it before the %s", name,
                   sema_block_inside(f->region_local, f->loop_local), ir_offset_text(buf, off),
                   sema_block_name(f->region_local, f->loop_local));
        return (Typed){0};
    }
    if (!s->scope->dead)
        f->is_read = true;
    return (Typed){ir_load(s->c->arena, e->loc, f, off), false};
}

/* The run-time K offset of an access (language.md 10.3), or NULL. */
static const Offset *access_dyn(const Expr *e)
{
    for (int i = 0; i < e->access.noffsets; i++)
        if (e->access.offsets[i].dyn)
            return &e->access.offsets[i];
    return NULL;
}

/* Makes the load of t a read at the run-time level of dyn (an int, lowered
 * to level): only a field parameter with a K axis may be read so. */
static Typed attach_level(Sema *s, const Expr *e, Typed t, const Offset *dyn, IrExpr *level)
{
    IrExpr *load = t.e;
    if (load->kind != IR_LOAD || load->load.klevel) {
        sema_error(s, e->loc, "'%s' is not a field here, so it cannot be read at a run-time K "
                   "offset; only field parameters can", e->access.name);
        return (Typed){0};
    }
    IrField *f = load->load.field;
    if (f->kind != IR_PARAM_FIELD) {
        sema_error(s, e->loc, "temporary '%s' cannot be read at a run-time K offset; only field "
                   "parameters can: pass '%s' to the stencil as a field", f->name, f->name);
        return (Typed){0};
    }
    if (!(f->axes & AXES_K)) {
        sema_error(s, dyn->loc, "field '%s' has no K axis, so it cannot be read at a run-time "
                   "K offset", f->name);
        return (Typed){0};
    }
    load->load.kmode = dyn->dyn_mode;
    load->load.klevel = level;
    if (dyn->dyn_mode == KDYN_ABS)
        load->shape &= ~AXES_K;   /* at a given level: along K only as the level varies */
    load->shape |= level->shape;
    return t;
}

static Typed lower_access_at(Sema *s, const Expr *e);

static Typed lower_access(Sema *s, const Expr *e)
{
    const Offset *dyn = access_dyn(e);
    if (!dyn || s->const_context)
        return lower_access_at(s, e);
    Typed level = sema_expr(s, dyn->dyn);
    if (!level.e)
        return (Typed){0};
    if (level.e->type != TY_INT) {
        sema_error(s, dyn->dyn->loc, "the run-time K offset of '%s' must be an int expression, "
                   "not %s", e->access.name, type_names[level.e->type]);
        return (Typed){0};
    }
    Typed t = lower_access_at(s, e);
    return t.e ? attach_level(s, e, t, dyn, level.e) : t;
}

/* An access at its compile-time offsets. */
static Typed lower_access_at(Sema *s, const Expr *e)
{
    const char *name = e->access.name;
    int64_t off[NAXES];
    if (!access_offsets(s, e, off))
        return (Typed){0};
    Typed t;
    if (s->env && inline_lookup(s, e, off, &t))
        return t;
    if (!s->env && s->scope) {
        Sym *sym = map_get(s->scope->names, name);
        if (sym)
            return lower_sym(s, e, sym, off);
    }
    bool reported;
    Global *g = lookup_global(s, name, e->loc, false, &reported);
    if (reported)
        return (Typed){0};
    if (g && g->kind == G_CONST) {
        if (any_offset(off)) {
            sema_error(s, e->loc, "const '%s' is a scalar; it cannot be read at an offset", name);
            return (Typed){0};
        }
        IrExpr *v = const_value(s, g);
        if (!v)
            return (Typed){0};
        IrExpr *copy = ir_copy(s->c->arena, v);
        copy->loc = e->loc;
        return (Typed){copy, false};
    }
    if (g)
        sema_error(s, e->loc, "'%s' is a %s, not a value%s", name, global_kind_names[g->kind],
                   g->kind == G_FUNCTION ? "; call it with arguments" : "");
    else if (is_builtin_name(name))
        sema_error(s, e->loc, "'%s' is a builtin function, not a value; call it with arguments",
                   name);
    else
        undeclared(s, name, e->loc, false);
    return (Typed){0};
}

/* ---------------------------------------------------------------- calls */

static bool is_reduction_name(const char *name, RedOp *op)
{
    for (int i = 0; i < NRED_OPS; i++) {
        if (strcmp(name, red_op_names[i]) == 0) {
            *op = (RedOp)i;
            return true;
        }
    }
    return false;
}

static Typed lower_column_reduction(Sema *s, const Expr *e, RedOp op)
{
    const char *name = e->call.name;
    if (e->call.args.len != 1) {
        sema_error(s, e->loc, "%s(e, k) takes one expression before k, not %d", name,
                   e->call.args.len);
        return (Typed){0};
    }
    Typed a = sema_expr(s, e->call.args.items[0]);
    if (!a.e)
        return a;
    if (s->const_context) {
        sema_error(s, e->loc, "%s(e, k) is not a compile-time constant", name);
        return (Typed){0};
    }
    char what[32];
    snprintf(what, sizeof what, "%s(e, k)", name);
    if (!need_number(s, a, what, e->loc) || !shape_check_column(s, e->loc, name, a.e->shape))
        return (Typed){0};
    return (Typed){ir_colreduce(s->c->arena, e->loc, op, a.e), a.weak};
}

static Typed lower_builtin(Sema *s, const Expr *e, Builtin fn, Typed *args)
{
    Arena *a = s->c->arena;
    int n = e->call.args.len;
    const char *name = builtin_names[fn];
    if (n != builtin_nargs[fn]) {
        sema_error(s, e->loc, "'%s' takes %d argument%s, but %d %s given", name,
                   builtin_nargs[fn], builtin_nargs[fn] == 1 ? "" : "s", n,
                   n == 1 ? "is" : "are");
        return (Typed){0};
    }
    char what[40];
    snprintf(what, sizeof what, "'%s'", name);
    for (int i = 0; i < n; i++)
        if (!need_number(s, args[i], what, e->call.args.items[i]->loc))
            return (Typed){0};
    Type type;
    bool weak = false;
    switch (fn) {
    case B_ABS:
        type = args[0].e->type;
        weak = args[0].weak;
        break;
    case B_MIN: case B_MAX:
        type = unify(s, &args[0], &args[1], &weak);
        break;
    case B_POW: case B_ATAN2: case B_FMOD: case B_HYPOT: case B_COPYSIGN:
        type = unify(s, &args[0], &args[1], &weak);
        if (type == TY_INT) {
            type = TY_DOUBLE;
            args[0].e = ir_cast(a, args[0].e, type);
            args[1].e = ir_cast(a, args[1].e, type);
        }
        break;
    default:   /* one floating argument; an int is converted to double, as in C */
        if (args[0].e->type == TY_INT)
            args[0].e = ir_cast(a, args[0].e, TY_DOUBLE);
        type = args[0].e->type;
        weak = args[0].weak;
        if (fn == B_ISNAN || fn == B_ISINF || fn == B_ISFINITE) {
            type = TY_BOOL;
            weak = false;
        }
        break;
    }
    IrExpr *ops[2] = {args[0].e, n > 1 ? args[1].e : NULL};
    return (Typed){ir_call(a, e->loc, fn, type, ops, n), weak};
}

/* GT4Py's names of math functions that .stn spells otherwise (gtscript's arcsin, gamma,
 * mod, NumPy's minimum, ...): the hint of an unknown function, or "". */
static const char *gt4py_builtin_hint(const char *name)
{
    static const char *const hints[][2] = {
        {"arcsin", "; the builtin is asin"}, {"arccos", "; the builtin is acos"},
        {"arctan", "; the builtin is atan"}, {"arctan2", "; the builtin is atan2"},
        {"arcsinh", "; the builtin is asinh"}, {"arccosh", "; the builtin is acosh"},
        {"arctanh", "; the builtin is atanh"}, {"gamma", "; the builtin is tgamma"},
        {"power", "; the builtin is pow"}, {"absolute", "; the builtin is abs"},
        {"fabs", "; the builtin is abs"}, {"minimum", "; the builtin is min"},
        {"maximum", "; the builtin is max"}, {"fmin", "; the builtin is min"},
        {"fmax", "; the builtin is max"},
        {"mod", "; use fmod(a, b) for floating values, '%' for ints"},
        {"sign", "; use copysign(1.0, x) (+1 or -1, also at 0)"},
    };
    for (size_t i = 0; i < sizeof hints / sizeof *hints; i++)
        if (strcmp(name, hints[i][0]) == 0)
            return hints[i][1];
    return "";
}

/* The user function that call e names, with as many parameters as e has
 * arguments; NULL (reported) otherwise. */
static FnInfo *find_function(Sema *s, const Expr *e)
{
    const char *name = e->call.name;
    int n = e->call.args.len;
    /* Functions calling later functions are reported with the call graph
     * (check_functions); a const must not call a later function either. */
    bool reported;
    Global *g = lookup_global(s, name, e->loc, s->const_context, &reported);
    if (reported)
        return NULL;
    if (!g || g->kind != G_FUNCTION) {
        if (g)
            sema_error(s, e->loc, "'%s' is a %s, not a function", name,
                       global_kind_names[g->kind]);
        else if (s->scope && !s->env && map_get(s->scope->names, name))
            sema_error(s, e->loc, "'%s' is a %s, not a function", name,
                       sym_kind(map_get(s->scope->names, name)));
        else if (strcmp(name, "not") == 0 && n == 1)   /* Python's, from GT4Py code */
            sema_error(s, e->loc, "'not' is not a function: no builtin or function of that "
                       "name is visible; did you mean '!'?");
        else
            sema_error(s, e->loc, "'%s' is not a function: no builtin or function of that name "
                       "is visible%s", name, gt4py_builtin_hint(name));
        return NULL;
    }
    Function *f = g->fn->fn;
    if (n != f->params.len) {
        sema_error(s, e->loc, "function '%s' takes %d argument%s, but %d %s given", name,
                   f->params.len, f->params.len == 1 ? "" : "s", n, n == 1 ? "is" : "are");
        diag_note(&s->c->diag, f->loc, "'%s' is defined here", name);
        return NULL;
    }
    return g->fn;
}

static Typed lower_call(Sema *s, const Expr *e)
{
    const char *name = e->call.name;
    int n = e->call.args.len;
    RedOp red = RED_SUM;
    bool reduction = is_reduction_name(name, &red);
    if (e->call.along_k) {
        if (reduction)
            return lower_column_reduction(s, e, red);
        sema_error(s, e->loc, "only sum, min and max reduce along k; '%s(e, k)' is not allowed",
                   name);
        return (Typed){0};
    }
    Typed *args = arena_alloc(s->c->arena, sizeof *args * (size_t)(n + 1));
    bool ok = true;
    for (int i = 0; i < n; i++) {
        args[i] = sema_expr(s, e->call.args.items[i]);
        ok = ok && args[i].e;
    }
    if (reduction && n == 1) {
        sema_error(s, e->loc, "%s(e) reduces over the whole compute domain; it may only be the "
                   "entire right-hand side of an assignment to an out scalar%s", name,
                   red == RED_SUM ? "" : " (the smaller or larger of two values is "
                   "min(a, b) or max(a, b))");
        return (Typed){0};
    }
    int b = builtin_index(name);
    if (b >= 0)
        return ok ? lower_builtin(s, e, (Builtin)b, args) : (Typed){0};
    if (reduction) {
        sema_error(s, e->loc, "sum takes one argument: sum(e) over the domain or sum(e, k) "
                   "along the column");
        return (Typed){0};
    }
    FnInfo *fn = find_function(s, e);
    if (!fn)
        return (Typed){0};
    int nres = inline_nresults(fn->fn);
    if (nres > 1) {
        sema_error(s, e->loc, "function '%s' returns %d values, but a call in an expression "
                   "gives one; call it as the whole right-hand side of an assignment with %d "
                   "targets, e.g. %s = %s(...);", name, nres, nres,
                   nres == 2 ? "a, b" : "a, b, ...", name);
        return (Typed){0};
    }
    return inline_call(s, fn, args, e->loc, &e->call.args);
}

bool sema_call_results(Sema *s, const Expr *e, int n, Typed *out)
{
    RedOp red;
    if (e->kind != EXPR_CALL || e->call.along_k || builtin_index(e->call.name) >= 0 ||
        is_reduction_name(e->call.name, &red)) {
        sema_error(s, e->loc, "the right-hand side of an assignment with %d targets must be a "
                   "call of a function that returns %d values", n, n);
        s->quiet++;   /* its own errors would only repeat the point */
        sema_expr(s, e);
        s->quiet--;
        return false;
    }
    int nargs = e->call.args.len;
    Typed *args = arena_alloc(s->c->arena, sizeof *args * (size_t)(nargs + 1));
    bool ok = true;
    for (int i = 0; i < nargs; i++) {
        args[i] = sema_expr(s, e->call.args.items[i]);
        ok = ok && args[i].e;
    }
    FnInfo *fn = find_function(s, e);
    if (!fn)
        return false;
    int nres = inline_nresults(fn->fn);
    if (nres && nres != n) {
        sema_error(s, e->loc, "the assignment has %d target%s, but function '%s' returns %d "
                   "value%s", n, n == 1 ? "" : "s", e->call.name, nres, nres == 1 ? "" : "s");
        diag_note(&s->c->diag, fn->fn->loc, "'%s' is defined here", e->call.name);
        return false;
    }
    return inline_call_results(s, fn, args, e->loc, n, out, &e->call.args) && ok;
}

/* ================================================================= consts */

static const Define *find_define(Compiler *c, const char *name)
{
    const Define *found = NULL;
    for (int i = 0; i < c->opts.defines.len; i++) {
        Define *d = &c->opts.defines.items[i];
        if (strcmp(d->name, name) == 0) {
            d->used = true;
            found = d;   /* the last one wins, as with cc */
        }
    }
    return found;
}

/* The folded value of a const (evaluated once), NULL after an error. */
static IrExpr *const_value(Sema *s, Global *g)
{
    if (g->state == 2)
        return g->value;
    if (g->state == 1) {
        sema_error(s, g->loc, "const '%s' depends on itself", g->name);
        return NULL;
    }
    g->state = 1;
    Sema saved = *s;
    s->module = g->module;
    s->user = g->loc;
    s->const_context = true;
    s->scope = NULL;
    s->env = NULL;
    s->quiet = 0;
    ConstDecl *d = g->decl;
    char what[256];
    snprintf(what, sizeof what, "const %s '%s'", type_names[d->type], d->name);
    Typed v = sema_convert(s, sema_expr(s, d->value), d->type, d->loc, what);
    int errors = s->c->diag.errors;
    IrExpr *value = v.e ? fold_expr(s->c, v.e) : NULL;
    /* where folding stopped on an error (1 / 0), it said why: no second error */
    if (value && value->kind != IR_CONST) {
        if (s->c->diag.errors == errors)
            sema_error(s, d->value->loc, "the value of const '%s' is not a compile-time "
                       "constant", d->name);
        value = NULL;
    }
    const Define *def = find_define(s->c, d->name);
    if (def)
        value = fold_define(s->c, def, d->type, d->loc);
    s->module = saved.module;
    s->user = saved.user;
    s->const_context = saved.const_context;
    s->scope = saved.scope;
    s->env = saved.env;
    s->quiet = saved.quiet;
    g->state = 2;
    g->value = value;
    return value;
}

static void evaluate_consts(Sema *s)
{
    for (int m = 0; m < s->nmodules; m++) {
        Module *mod = s->modules[m];
        for (int i = 0; i < mod->consts.len; i++) {
            Global *g = map_get(s->globals, mod->consts.items[i]->name);
            if (g && g->kind == G_CONST && g->decl == mod->consts.items[i])
                const_value(s, g);
        }
    }
    Loc cmdline = {"<command line>", 0, 0};
    for (int i = 0; i < s->c->opts.defines.len; i++) {
        const Define *d = &s->c->opts.defines.items[i];
        if (!d->used)
            diag_warning(&s->c->diag, cmdline, "-D %s matches no const of the program", d->name);
    }
}

/* ============================================================== functions */

/* The locals declared in v and its blocks: scalars with a value, named
 * neither like a global nor like a parameter. (Two declarations of one name
 * where both are visible are reported when the body is lowered, inline.c.) */
static void check_local_names(Sema *s, FnInfo *fi, const StmtVec *v)
{
    Function *f = fi->fn;
    for (int i = 0; i < v->len; i++) {
        const Stmt *d = v->items[i];
        if (d->kind == STMT_IF) {
            check_local_names(s, fi, &d->iff.then);
            check_local_names(s, fi, &d->iff.els);
        }
        if (d->kind != STMT_DECL)
            continue;
        const char *name = d->decl.name;
        if (!check_shadowing(s, "local", name, d->decl.name_loc))
            fi->bad = true;
        if (d->decl.is_field || !d->decl.init) {
            sema_error(s, d->decl.name_loc, "local '%s' of function '%s' must be a scalar with a "
                       "value: %s %s = ...;", name, f->name, type_names[d->decl.type], name);
            fi->bad = true;
        }
        for (int j = 0; j < f->params.len; j++) {
            if (strcmp(f->params.items[j], name) == 0) {
                sema_error(s, d->decl.name_loc, "local '%s' of function '%s' has the name of "
                           "one of its parameters", name, f->name);
                fi->bad = true;
            }
        }
    }
}

static void check_function_names(Sema *s, FnInfo *fi)
{
    Function *f = fi->fn;
    s->module = fi->module;
    for (int i = 0; i < f->params.len; i++) {
        const char *p = f->params.items[i];
        Loc loc = i < f->param_locs.len ? f->param_locs.items[i] : f->loc;
        if (!check_shadowing(s, "parameter", p, loc))
            fi->bad = true;
        for (int j = 0; j < i; j++) {
            if (strcmp(f->params.items[j], p) == 0) {
                sema_error(s, loc, "parameter '%s' of function '%s' is declared twice", p,
                           f->name);
                fi->bad = true;
            }
        }
    }
    check_local_names(s, fi, &f->body);
}

/* Depth-first search for cycles in the call graph; state: 0 unvisited,
 * 1 on the path, 2 done. Reports each cycle once, naming it. */
static void find_cycles(Sema *s, FnInfo *fi, FnInfo **path, int depth, NameMap *state)
{
    map_put(state, fi->fn->name, (void *)(intptr_t)1);
    path[depth] = fi;
    for (int i = 0; i < fi->calls.len; i++) {
        FnInfo *callee = fi->calls.items[i].callee;
        intptr_t st = (intptr_t)map_get(state, callee->fn->name);
        if (st == 0) {
            find_cycles(s, callee, path, depth + 1, state);
        } else if (st == 1) {
            Loc loc = fi->calls.items[i].loc;
            if (callee == fi) {
                sema_error(s, loc, "function '%s' calls itself; recursion is not allowed",
                           fi->fn->name);
            } else {
                char cycle[1024];
                size_t n = 0;
                int from = depth;
                while (path[from] != callee)
                    from--;
                for (int k = from; k <= depth && n < sizeof cycle - 64; k++)
                    n += (size_t)snprintf(cycle + n, sizeof cycle - n, "%s -> ",
                                          path[k]->fn->name);
                snprintf(cycle + n, sizeof cycle - n, "%s", callee->fn->name);
                sema_error(s, loc, "recursive functions: %s; a function cannot call itself, "
                           "directly or through others", cycle);
            }
            for (int k = depth; k >= 0; k--) {
                path[k]->bad = true;
                if (path[k] == callee)
                    break;
            }
        }
    }
    map_put(state, fi->fn->name, (void *)(intptr_t)2);
}

/* Checks every function of every module: names, body, recursion, order. */
static void check_functions(Sema *s)
{
    VEC(FnInfo *) all = {0};
    for (int m = 0; m < s->nmodules; m++) {
        Module *mod = s->modules[m];
        for (int i = 0; i < mod->functions.len; i++) {
            Global *g = map_get(s->globals, mod->functions.items[i]->name);
            if (!g || g->kind != G_FUNCTION || g->fn->fn != mod->functions.items[i])
                continue;   /* a duplicate, already reported */
            vec_push(s->c->arena, &all, g->fn);
            check_function_names(s, g->fn);
            inline_check_function(s, g->fn);
        }
    }
    NameMap *state = map_new(s->c->arena);
    FnInfo **path = arena_alloc(s->c->arena, sizeof *path * (size_t)(all.len + 1));
    for (int i = 0; i < all.len; i++)
        if (!map_get(state, all.items[i]->fn->name))
            find_cycles(s, all.items[i], path, 0, state);
    for (int i = 0; i < all.len; i++) {
        FnInfo *fi = all.items[i];
        for (int j = 0; j < fi->calls.len; j++) {
            FnInfo *callee = fi->calls.items[j].callee;
            if (callee == fi || callee->module != fi->module ||
                loc_before(callee->fn->loc, fi->fn->loc) || (callee->bad && fi->bad))
                continue;
            sema_error(s, fi->calls.items[j].loc, "function '%s' is called before its "
                       "declaration at line %d; functions may call only earlier functions",
                       callee->fn->name, callee->fn->loc.line);
            fi->bad = true;
        }
    }
    s->module = s->main;
    s->user = (Loc){0};
}

/* =============================================================== stencils */

static void bind(Sema *s, Sym *sym)
{
    map_put(s->scope->names, sym->name, sym);
    if (s->scope->block > 0)
        vec_push(s->c->arena, &s->scope->block_syms, sym);
}

static Sym *new_sym(Sema *s, const char *name, Loc loc)
{
    Sym *sym = arena_alloc(s->c->arena, sizeof *sym);
    sym->name = name;
    sym->loc = loc;
    return sym;
}

/* What a new stencil name collides with. */
typedef enum {
    NAME_FREE,                /* nothing */
    NAME_SHADOWS,             /* a builtin or global (reported; it is bound all the same) */
    NAME_TAKEN,               /* a parameter or temporary (reported; not bound) */
} NameCheck;

/* Reports a stencil name (parameter or temporary) that is already taken. */
static NameCheck check_stencil_name(Sema *s, const char *what, const char *name, Loc loc)
{
    Sym *old = map_get(s->scope->names, name);
    if (old) {
        if (old->field && old->field->kind == IR_TEMP && strcmp(what, "temporary") == 0)
            sema_error(s, loc, "temporary '%s' is already declared at line %d; assign it "
                       "without a type: %s = ...;", name, old->loc.line, name);
        else if (strcmp(what, "parameter") == 0)
            sema_error(s, loc, "parameter '%s' is declared twice", name);
        else
            sema_error(s, loc, "%s '%s' has the name of %s '%s' declared at line %d", what, name,
                       sym_kind(old), name, old->loc.line);
        return NAME_TAKEN;
    }
    return check_shadowing(s, what, name, loc) ? NAME_FREE : NAME_SHADOWS;
}

static void lower_params(Sema *s, const Stencil *ast)
{
    IrStencil *st = s->scope->st;
    Arena *a = s->c->arena;
    for (int i = 0; i < ast->params.len; i++) {
        const Param *p = ast->params.items[i];
        bool ok = check_stencil_name(s, "parameter", p->name, p->loc) != NAME_TAKEN;
        IrParam ip = {0};
        Sym *sym = new_sym(s, p->name, p->loc);
        if (p->kind == PARAM_FIELD) {
            IrField *f = arena_alloc(a, sizeof *f);
            f->name = p->name;
            f->loc = p->loc;
            f->id = st->fields.len;
            f->kind = IR_PARAM_FIELD;
            f->param_pos = i;
            f->type = p->type;
            f->axes = p->axes ? p->axes : AXES_IJK;
            vec_push(a, &st->fields, f);
            ip.is_field = true;
            ip.field = f;
            sym->field = f;
        } else {
            IrScalar *sc = arena_alloc(a, sizeof *sc);
            sc->name = p->name;
            sc->loc = p->loc;
            sc->id = st->scalars.len;
            sc->param_pos = i;
            sc->type = p->type;
            sc->is_output = p->kind == PARAM_OUT_SCALAR;
            vec_push(a, &st->scalars, sc);
            ip.scalar = sc;
            sym->scalar = sc;
        }
        vec_push(a, &st->params, ip);
        if (ok)
            bind(s, sym);
    }
    int n = st->scalars.len + 1;
    s->scope->reductions = arena_alloc(a, sizeof(int) * (size_t)n);
    s->scope->reduction_loc = arena_alloc(a, sizeof(Loc) * (size_t)n);
}

/* Records where each temporary is first declared, for "used before its
 * declaration" messages. */
static void prescan_stmts(Sema *s, const StmtVec *v, bool region, bool loop)
{
    for (int i = 0; i < v->len; i++) {
        const Stmt *st = v->items[i];
        if (st->kind == STMT_DECL && !map_get(s->scope->decls, st->decl.name)) {
            Loc *loc = arena_alloc(s->c->arena, sizeof *loc);
            *loc = st->decl.name_loc;
            map_put(s->scope->decls, st->decl.name, loc);
            if (region)
                map_put(s->scope->region_decls, st->decl.name, loc);
            if (loop)
                map_put(s->scope->loop_decls, st->decl.name, loc);
        } else if (st->kind == STMT_IF) {
            prescan_stmts(s, &st->iff.then, false, st->iff.loop);
            prescan_stmts(s, &st->iff.els, false, false);
        } else if (st->kind == STMT_REGION) {
            prescan_stmts(s, &st->region.body, true, false);
        }
    }
}

/* The field parameter called name, or NULL after an error at loc naming what it is. */
static IrField *iterate_field(Sema *s, const IrStencil *st, const char *name, Loc loc)
{
    for (int i = 0; i < st->params.len; i++) {
        const IrParam *p = &st->params.items[i];
        if (p->is_field && strcmp(p->field->name, name) == 0)
            return p->field;
        if (!p->is_field && strcmp(p->scalar->name, name) == 0) {
            diag_error(&s->c->diag, loc, "iterate: '%s' is a scalar parameter; a pair of "
                       "iterate names two fields", name);
            return NULL;
        }
    }
    diag_error(&s->c->diag, loc, "iterate: '%s' is not a parameter of stencil '%s'", name,
               st->name);
    return NULL;
}

/* iterate's pairs (language.md 11): two field parameters of one type and axes each, every
 * field in one pair at most, once; no out scalars. What the body writes and reads:
 * access.c. */
static void lower_iterate(Sema *s, const Stencil *ast)
{
    IrStencil *st = s->scope->st;
    Arena *a = s->c->arena;
    Diag *d = &s->c->diag;
    if (ast->iterate.len == 0)
        return;
    const IterPair **seen = arena_alloc(a, sizeof *seen * (size_t)(st->fields.len + 1));
    for (int i = 0; i < ast->iterate.len; i++) {
        const IterPair *q = ast->iterate.items[i];
        IrField *next = iterate_field(s, st, q->next, q->next_loc);
        IrField *cur = iterate_field(s, st, q->cur, q->cur_loc);
        if (!next || !cur)
            continue;
        if (next == cur) {
            diag_error(d, q->loc, "iterate: pair '%s -> %s' names one field twice; a step "
                       "writes the first field of a pair from the second", q->next, q->cur);
            continue;
        }
        bool ok = true;
        IrField *both[2] = {next, cur};
        for (int k = 0; k < 2; k++) {
            if (seen[both[k]->id]) {
                diag_error(d, q->loc, "iterate: field '%s' is in pair '%s -> %s' already; a "
                           "field is in one pair at most", both[k]->name,
                           seen[both[k]->id]->next, seen[both[k]->id]->cur);
                ok = false;
            }
        }
        if (!ok)
            continue;
        seen[next->id] = seen[cur->id] = q;
        if (next->type != cur->type || next->axes != cur->axes) {
            diag_error(d, q->loc, "iterate: the fields of pair '%s -> %s' differ: "
                       "field<%s, %s> and field<%s, %s>; both must have one type and axes",
                       q->next, q->cur, type_names[next->type], axes_name(next->axes),
                       type_names[cur->type], axes_name(cur->axes));
            continue;
        }
        vec_push(a, &st->pairs, ((IrPair){next, cur, q->loc}));
    }
    for (int i = 0; i < st->scalars.len; i++)
        if (st->scalars.items[i]->is_output)
            diag_error(d, st->scalars.items[i]->loc, "iterate: stencil '%s' has the out scalar "
                       "'%s'; a stencil with iterate has no out scalars", st->name,
                       st->scalars.items[i]->name);
}

static void lower_stmts(Sema *s, const StmtVec *in, IrStmtVec *out);
static bool branch_in_area(const IrStmtVec *v, const Area *a);
static void split_if(Sema *s, IrStmt *iff, IrStmtVec *out);
#define REGION_FAR ((int64_t)1 << 40)

/* The shape e would have if every `T t = e` temporary it reads had the shape of
 * the values assigned to it (its value_shape) instead of IJK; *via: the first such
 * temporary read that made the difference. Never more than e->shape. */
static unsigned own_shape(const IrExpr *e, const IrField **via)
{
    unsigned sh = 0;
    switch (e->kind) {
    case IR_LOAD: {
        const IrField *f = e->load.field;
        if (f->kind != IR_TEMP || !f->implicit_ijk || e->load.klevel)
            return e->shape;
        if ((e->shape & ~f->value_shape) && !*via)
            *via = f;
        return e->shape & f->value_shape;
    }
    case IR_UNARY:
    case IR_BINARY:
        sh = own_shape(e->op.a, via) | (e->op.b ? own_shape(e->op.b, via) : 0);
        break;
    case IR_COND:
        sh = own_shape(e->cond.cond, via) | own_shape(e->cond.then, via) |
             own_shape(e->cond.els, via);
        break;
    case IR_CALL:
        for (int i = 0; i < e->call.nargs; i++)
            sh |= own_shape(e->call.args[i], via);
        break;
    case IR_CAST:
        sh = own_shape(e->cast.a, via);
        break;
    default:
        return e->shape;
    }
    return sh & e->shape;
}

/* f (NULL: no) is a temporary declared `T t = e`, IJK by that form only: none of
 * the values assigned to it so far varies along the axes in extra. */
static bool implicit_lacks(const IrField *f, unsigned extra)
{
    return f && f->kind == IR_TEMP && f->implicit_ijk && (f->axes & extra) &&
           !(f->value_shape & extra);
}

#define IMPLICIT_NAMED 4   /* the most temporaries one message names */

typedef struct {
    unsigned extra;
    const IrField *found[IMPLICIT_NAMED];   /* distinct, in the order of their first read */
    int nfound;
} ImplicitRead;

static IrWalk implicit_read(void *ctx, const IrExpr *e)
{
    ImplicitRead *r = ctx;
    if (e->kind != IR_LOAD)
        return IR_WALK_ON;
    const IrField *f = e->load.field;
    if (!implicit_lacks(f, r->extra))
        return IR_WALK_SKIP;
    for (int i = 0; i < r->nfound; i++)
        if (r->found[i] == f)
            return IR_WALK_SKIP;
    r->found[r->nfound++] = f;
    return r->nfound == IMPLICIT_NAMED ? IR_WALK_STOP : IR_WALK_SKIP;
}

/* The temporaries declared `T t = e` read in e that make e vary along an axis in
 * `extra` though no value assigned to them so far did (a read of another such
 * temporary counted by what was assigned to that one): into r, the first
 * IMPLICIT_NAMED of them. */
static void implicit_ijk_reads(const IrExpr *e, unsigned extra, ImplicitRead *r)
{
    *r = (ImplicitRead){.extra = extra};
    ir_walk_expr(e, implicit_read, r);
}

/* Appends to names (at *nn) "SEP't' ('T t = ...', line L)" for temporary f and to fix (at
 * *nf) "FSEP'field<T, AXES> t = ...'", the declaration that gives f the axes of dst's value
 * without extra; false, appending nothing, where either would not fit. */
static bool name_declaration(char *names, size_t cap_n, size_t *nn, char *fix, size_t cap_f,
                             size_t *nf, const char *sep, const char *fsep, const IrField *f,
                             const IrField *dst, unsigned extra)
{
    unsigned w = (f->value_shape | dst->axes) & ~extra;
    int wn = snprintf(names + *nn, cap_n - *nn, "%s'%s' ('%s %s = ...', line %d)", sep,
                      f->name, type_names[f->type], f->name, f->loc.line);
    int wf = snprintf(fix + *nf, cap_f - *nf, "%s'field<%s, %s> %s = ...'", fsep,
                      type_names[f->type], w ? axes_name(w) : axes_name(dst->axes), f->name);
    if (wn < 0 || wf < 0 || (size_t)wn >= cap_n - *nn || (size_t)wf >= cap_f - *nf) {
        names[*nn] = fix[*nf] = '\0';
        return false;
    }
    *nn += (size_t)wn, *nf += (size_t)wf;
    return true;
}

/* The shape rule of an assignment (shapes.c) where it fails only because of
 * how a temporary was declared: `double t = ps * 2.0` makes t IJK, whatever
 * the shape of ps, and `top = t` into an IJ field then varies along K. The
 * message names the declaration and the fix, instead of the generic advice to
 * reduce along K (issue 14 item 7). False when reported. */
static bool check_implicit_ijk(Sema *s, Loc loc, const IrField *dst, const IrExpr *value)
{
    unsigned allowed = dst->axes | (s->scope->order != ORDER_PARALLEL ? AXES_K : 0);
    unsigned extra = value->shape & ~allowed;
    ImplicitRead r = {0};
    if (extra)
        implicit_ijk_reads(value, extra, &r);
    if (!r.nfound)
        return true;
    const IrField *t = r.found[0];
    unsigned want = (t->value_shape | dst->axes) & ~extra;
    bool chains = false;
    for (int i = 0; i < r.nfound; i++)
        chains |= implicit_lacks(r.found[i]->implicit_via, extra);
    bool side = r.nfound > 1 && !chains;
    if (!side && !implicit_lacks(t->implicit_via, extra)) {
        sema_error(s, loc,
                   "cannot assign a value of shape %s to '%s' of axes %s: it varies along %s "
                   "because temporary '%s' does, and '%s' is IJK only because of its "
                   "declaration '%s %s = ...' (line %d; a local declared that way is an IJK "
                   "temporary); declare it 'field<%s, %s> %s = ...'",
                   shape_name(value->shape), dst->name, axes_name(dst->axes), axes_name(extra),
                   t->name, t->name, type_names[t->type], t->name, t->loc.line,
                   type_names[t->type], want ? axes_name(want) : axes_name(dst->axes),
                   t->name);
        return false;
    }
    /* several such temporaries read side by side (fluxes fx and fy): name them all, since
       changing one declaration leaves the error; or t has the axis from another such
       temporary it reads, and so on: name the chain (at most four). Each with the
       declaration it needs. (A chain's names have 512 bytes.) */
    char names[768] = "", fix[768] = "";
    size_t nn = 0, nf = 0;
    if (side) {
        for (int i = 0; i < r.nfound; i++) {
            const char *sep = !i ? "" : i == r.nfound - 1 ? " and " : ", ";
            if (!name_declaration(names, sizeof names, &nn, fix, sizeof fix, &nf, sep, sep,
                                  r.found[i], dst, extra))
                break;
        }
    } else {
        int n = 0;
        for (const IrField *f = t; implicit_lacks(f, extra) && n < 4; f = f->implicit_via, n++) {
            bool last = n == 3 || !implicit_lacks(f->implicit_via, extra);
            if (!name_declaration(names, 512, &nn, fix, sizeof fix, &nf,
                                  n ? ", which reads " : "", !n ? "" : last ? " and " : ", ",
                                  f, dst, extra))
                break;
        }
    }
    sema_error(s, loc,
               "cannot assign a value of shape %s to '%s' of axes %s: it varies along %s "
               "because it reads %s %s, IJK only because of their declarations (a local "
               "declared that way is an IJK temporary); declare them %s",
               shape_name(value->shape), dst->name, axes_name(dst->axes), axes_name(extra),
               side ? "temporaries" : "temporary", names, fix);
    return false;
}

/* Lowers `dst op= value` (op OP_PLUS for plain `=`). */
static void assign_field(Sema *s, IrField *dst, Op op, const Expr *value, Loc loc,
                         IrStmtVec *out)
{
    Scope *sc = s->scope;
    Arena *a = s->c->arena;
    s->nodes = 0;
    Typed v = sema_expr(s, value);
    if (op != OP_PLUS) {
        static const int64_t zero[NAXES];
        if (!sc->dead)
            dst->is_read = true;
        v = sema_binary(s, op, (Typed){ir_load(a, loc, dst, zero), false}, v, loc);
    }
    char what[256];
    snprintf(what, sizeof what, "%s '%s'", type_names[dst->type], dst->name);
    v = sema_convert(s, v, dst->type, loc, what);
    if (!v.e)
        return;
    v.e = fold_expr(s->c, v.e);
    if (!check_implicit_ijk(s, loc, dst, v.e) ||
        !shape_check_assign(s, loc, dst->name, dst->axes, v.e->shape, sc->mask_shape, sc->order))
        return;
    const IrField *via = NULL;
    dst->value_shape |= own_shape(v.e, &via);
    if (via && !dst->implicit_via)
        dst->implicit_via = via;
    for (int ax = 0; ax < 2; ax++)
        if (sc->area.set[ax] && !(dst->axes & (1u << ax))) {
            sema_error(s, loc, "'%s' has no axis %c, so a region cannot restrict it along %c; "
                       "assign it outside the region, or restrict only axes it has", dst->name,
                       "IJ"[ax], "ij"[ax]);
            return;
        }
    IrStmt *st = ir_stmt_new(a, IR_ASSIGN, loc);
    st->assign.dst = dst;
    st->assign.value = v.e;
    if (!sc->dead)
        dst->is_written = true;
    vec_push(a, out, st);
}

static void lower_decl(Sema *s, const Stmt *d, IrStmtVec *out)
{
    Scope *sc = s->scope;
    Arena *a = s->c->arena;
    const char *name = d->decl.name;
    if (check_stencil_name(s, "temporary", name, d->decl.name_loc) == NAME_TAKEN) {
        if (d->decl.init) {   /* still report the errors of the value */
            s->nodes = 0;
            sema_expr(s, d->decl.init);
        }
        return;
    }
    IrField *t = arena_alloc(a, sizeof *t);
    t->name = name;
    t->loc = d->decl.name_loc;
    t->kind = IR_TEMP;
    t->param_pos = -1;
    t->type = d->decl.type;
    t->axes = d->decl.is_field && d->decl.axes ? d->decl.axes : AXES_IJK;
    t->block_local = sc->block > 0;
    t->implicit_ijk = !d->decl.is_field;
    t->region_local = t->block_local && sc->region_block;
    t->loop_local = t->block_local && sc->loop_block;
    if (!sc->dead) {
        t->id = sc->st->fields.len;
        vec_push(a, &sc->st->fields, t);
    }
    Sym *sym = new_sym(s, name, d->decl.name_loc);
    sym->field = t;
    bind(s, sym);
    if (d->decl.init)
        assign_field(s, t, OP_PLUS, d->decl.init, d->loc, out);
}

static void lower_reduction(Sema *s, IrScalar *dst, const Stmt *st, IrStmtVec *out)
{
    Scope *sc = s->scope;
    const Expr *value = st->assign.value;
    RedOp op = RED_SUM;
    bool is_reduction = value->kind == EXPR_CALL && !value->call.along_k &&
                        value->call.args.len == 1 && is_reduction_name(value->call.name, &op);
    s->nodes = 0;
    if (!sc->dead && sc->reductions[dst->id]++) {
        sema_error(s, st->loc, "out scalar '%s' is assigned twice (first at line %d); a "
                   "stencil returns one value per out scalar", dst->name,
                   sc->reduction_loc[dst->id].line);
        sema_expr(s, is_reduction ? value->call.args.items[0] : value);   /* its own errors */
        return;
    }
    if (!sc->dead)
        sc->reduction_loc[dst->id] = st->loc;
    if (!is_reduction || st->assign.op != OP_PLUS) {
        sema_error(s, st->loc, "out scalar '%s' can only be assigned a reduction over the "
                   "domain, with '=': %s = sum(e), min(e) or max(e)", dst->name, dst->name);
        s->quiet++;   /* a reduction inside would only repeat the point */
        sema_expr(s, value);
        s->quiet--;
        return;
    }
    bool ok = true;
    if (sc->order != ORDER_PARALLEL) {
        sema_error(s, st->loc, "a reduction over the domain must be in a computation(parallel), "
                   "not in a %s one", sc->order == ORDER_FORWARD ? "forward" : "backward");
        ok = false;
    }
    if (sc->mask > 0) {
        sema_error(s, st->loc, "a reduction over the domain cannot be inside an if or a while "
                   "loop; reduce a conditional expression instead, e.g. sum(c ? e : 0.0)");
        ok = false;
    } else if (area_any(&sc->area)) {
        sema_error(s, st->loc, "a reduction over the domain cannot be inside a region; reduce "
                   "a conditional expression instead, e.g. sum(index(i) == 0 ? e : 0.0)");
        ok = false;
    }
    if (dst->type == TY_BOOL) {
        sema_error(s, st->loc, "out scalar '%s' is a bool; reductions produce int, float or "
                   "double", dst->name);
        ok = false;
    }
    Typed v = sema_expr(s, value->call.args.items[0]);
    char what[256];
    snprintf(what, sizeof what, "%s(e)", value->call.name);
    if (!ok || !need_number(s, v, what, value->loc))
        return;
    snprintf(what, sizeof what, "out %s '%s'", type_names[dst->type], dst->name);
    v = sema_convert(s, v, dst->type, st->loc, what);
    if (!v.e || !ok)
        return;
    IrStmt *r = ir_stmt_new(s->c->arena, IR_REDUCE, st->loc);
    r->reduce.dst = dst;
    r->reduce.op = op;
    r->reduce.value = fold_expr(s->c, v.e);
    vec_push(s->c->arena, out, r);
}

const char *sema_block_inside(bool region, bool loop)
{
    return region ? "a region" : loop ? "a while loop's" : "an if";
}

const char *sema_block_name(bool region, bool loop)
{
    return region ? "region" : loop ? "while loop" : "if";
}

bool sema_multi_targets(Sema *s, const Stmt *st,
                        bool (*target)(Sema *s, void *ctx, int i, const char *name, Loc loc),
                        void *ctx)
{
    bool ok = true;
    for (int i = 0; i < st->multi.names.len; i++) {
        const char *name = st->multi.names.items[i];
        Loc loc = st->multi.name_locs.items[i];
        for (int j = 0; j < i; j++) {
            if (strcmp(st->multi.names.items[j], name) == 0) {
                sema_error(s, loc, "'%s' is a target twice in one multiple assignment", name);
                ok = false;
                break;
            }
        }
        if (!target(s, ctx, i, name, loc))
            ok = false;
    }
    return ok;
}

void sema_bad_target(Sema *s, const char *name, Loc loc)
{
    bool reported;
    Global *g = lookup_global(s, name, loc, false, &reported);
    if (g)
        sema_error(s, loc, "cannot assign to %s '%s'", global_kind_names[g->kind], name);
    else if (is_builtin_name(name))
        sema_error(s, loc, "cannot assign to builtin function '%s'", name);
    else if (!reported)
        undeclared(s, name, loc, true);
}

/* `a, b = f(...)` (language.md section 10.2): each target is assigned like
 * in its own statement, all of them from the values the call computed
 * first. When a result reads a target that an earlier one assigns (a, b =
 * swap(b, a)), the results go through pointwise temporaries named after the
 * function and the target: swap_a = b; swap_b = a; a = swap_a; b = swap_b. */
/* Target i of a multiple assignment: the field named, into ((IrField **)ctx)[i]. */
static bool multi_field_target(Sema *s, void *ctx, int i, const char *name, Loc loc)
{
    IrField **dst = ctx;
    Scope *sc = s->scope;
    Sym *sym = map_get(sc->names, name);
    if (sym && sym->field) {
        dst[i] = sym->field;
        if (sym->field->kind == IR_PARAM_FIELD && !sc->dead)
            sc->writes_output = true;
        else if (sym->field->kind == IR_PARAM_FIELD && !sc->dead_output.file)
            sc->dead_output = loc;
        return true;
    }
    if (sym && sym->scalar->is_output)
        sema_error(s, loc, "out scalar '%s' can only be assigned a reduction over the "
                   "domain, with '=': %s = sum(e), min(e) or max(e)", name, name);
    else if (sym)
        sema_error(s, loc, "scalar parameter '%s' is an input; it cannot be assigned", name);
    else
        sema_bad_target(s, name, loc);
    return false;
}

static void lower_multi(Sema *s, const Stmt *st, IrStmtVec *out)
{
    Scope *sc = s->scope;
    Arena *a = s->c->arena;
    int n = st->multi.names.len;
    IrField **dst = arena_alloc(a, sizeof *dst * (size_t)n);
    bool ok = sema_multi_targets(s, st, multi_field_target, dst);
    s->nodes = 0;
    Typed *res = arena_alloc(a, sizeof *res * (size_t)n);
    if (!sema_call_results(s, st->multi.value, n, res) || !ok)
        return;
    for (int i = 0; i < n; i++) {
        char what[256];
        snprintf(what, sizeof what, "%s '%s'", type_names[dst[i]->type], dst[i]->name);
        res[i] = sema_convert(s, res[i], dst[i]->type, st->multi.name_locs.items[i], what);
        if (!res[i].e)
            return;
        res[i].e = fold_expr(s->c, res[i].e);
        if (!shape_check_assign(s, st->multi.name_locs.items[i], dst[i]->name, dst[i]->axes,
                                res[i].e->shape, sc->mask_shape, sc->order))
            return;
    }
    /* Does a result read a target assigned before it? */
    bool through_temps = false;
    for (int j = 1; j < n && !through_temps; j++)
        for (int i = 0; i < j && !through_temps; i++)
            through_temps = ir_reads_field(res[j].e, dst[i]);
    const char *fn = st->multi.value->call.name;
    for (int i = 0; i < n; i++) {
        IrField *target = dst[i];
        if (through_temps) {
            IrField *t = arena_alloc(a, sizeof *t);
            t->name = arena_printf(a, "%s_%s", fn, target->name);
            t->loc = st->multi.name_locs.items[i];
            t->kind = IR_TEMP;
            t->param_pos = -1;
            t->type = target->type;
            /* the target's axes, and K for a column accumulator (forward) */
            t->axes = target->axes | res[i].e->shape;
            t->block_local = true;   /* read once, at zero offset, by the copy below */
            t->generated = true;
            if (!sc->dead) {
                t->id = sc->st->fields.len;
                vec_push(a, &sc->st->fields, t);
                t->is_written = true;
                t->is_read = true;
            }
            IrStmt *tmp = ir_stmt_new(a, IR_ASSIGN, t->loc);
            tmp->assign.dst = t;
            tmp->assign.value = res[i].e;
            vec_push(a, out, tmp);
            static const int64_t zero[NAXES];
            res[i].e = ir_load(a, t->loc, t, zero);
        }
    }
    for (int i = 0; i < n; i++) {
        IrStmt *as = ir_stmt_new(a, IR_ASSIGN, st->multi.name_locs.items[i]);
        as->assign.dst = dst[i];
        as->assign.value = res[i].e;
        if (!sc->dead)
            dst[i]->is_written = true;
        vec_push(a, out, as);
    }
}

static void lower_assign(Sema *s, const Stmt *st, IrStmtVec *out)
{
    const char *name = st->assign.name;
    Sym *sym = map_get(s->scope->names, name);
    bool output = sym && (sym->field ? sym->field->kind == IR_PARAM_FIELD
                                     : sym->scalar->is_output);
    if (output && !s->scope->dead)
        s->scope->writes_output = true;
    else if (output && !s->scope->dead_output.file)
        s->scope->dead_output = st->loc;
    if (sym && sym->field) {
        assign_field(s, sym->field, st->assign.op, st->assign.value, st->loc, out);
        return;
    }
    if (sym && sym->scalar->is_output) {
        lower_reduction(s, sym->scalar, st, out);
        return;
    }
    if (sym)
        sema_error(s, st->assign.name_loc, "scalar parameter '%s' is an input; it cannot be "
                   "assigned", name);
    else
        sema_bad_target(s, name, st->assign.name_loc);
    s->nodes = 0;
    sema_expr(s, st->assign.value);   /* its own errors */
}

/* Lowers one branch of an if in a block scope; dead: removed by a constant
 * condition (lowered for its errors only); masked: under a non-constant one. */
static void lower_branch(Sema *s, const StmtVec *in, IrStmtVec *out, bool dead, bool masked,
                         unsigned cond_shape)
{
    Scope *sc = s->scope;
    IrStmtVec scratch = {0};
    bool saved_dead = sc->dead;
    unsigned saved_shape = sc->mask_shape;
    int mark = sc->block_syms.len;
    sc->dead = sc->dead || dead;
    sc->block++;
    if (masked) {
        sc->mask++;
        sc->mask_shape |= cond_shape;
    }
    lower_stmts(s, in, dead ? &scratch : out);
    if (masked) {
        sc->mask--;
        sc->mask_shape = saved_shape;
    }
    sc->block--;
    while (sc->block_syms.len > mark)
        map_del(sc->names, sc->block_syms.items[--sc->block_syms.len]->name);
    sc->dead = saved_dead;
}

static void lower_if(Sema *s, const Stmt *st, IrStmtVec *out)
{
    s->nodes = 0;
    Typed c = sema_expr(s, st->iff.cond);
    bool loop = st->iff.loop;
    if (c.e && c.e->type != TY_BOOL) {
        sema_error(s, st->iff.cond->loc, "the condition of %s must be bool, not %s; compare "
                   "it, e.g. x != 0", loop ? "a while loop" : "an if", type_names[c.e->type]);
        c.e = NULL;
    }
    if (c.e)
        c.e = fold_expr(s->c, c.e);
    if (loop && c.e && c.e->kind == IR_CONST && !s->scope->dead)
        diag_warning(&s->c->diag, st->iff.cond->loc, c.e->cnst.i
                     ? "the condition of this while loop is always true: the loop never ends"
                     : "the condition of this while loop is always false: its statements never "
                       "run");
    if (!c.e || (c.e->kind == IR_CONST && !(loop && c.e->cnst.i))) {
        /* A constant condition keeps one branch, unmasked; after an error
         * both are lowered for their own errors only. */
        bool take_then = c.e && c.e->cnst.i;
        bool take_else = c.e && !c.e->cnst.i;
        if (!c.e && !s->scope->dead)
            s->scope->lost_writes = true;
        bool saved_region = s->scope->region_block, saved_loop = s->scope->loop_block;
        s->scope->region_block = false;
        s->scope->loop_block = loop;
        lower_branch(s, &st->iff.then, out, !take_then, false, 0);
        s->scope->loop_block = saved_loop;
        lower_branch(s, &st->iff.els, out, !take_else, false, 0);
        s->scope->region_block = saved_region;
        return;
    }
    IrStmt *iff = ir_stmt_new(s->c->arena, IR_IF, st->loc);
    iff->iff.cond = c.e;
    iff->iff.loop = loop;
    iff->area = s->scope->area;
    bool saved_region = s->scope->region_block, saved_loop = s->scope->loop_block;
    s->scope->region_block = false;
    s->scope->loop_block = loop;
    lower_branch(s, &st->iff.then, &iff->iff.then, false, true, c.e->shape);
    s->scope->loop_block = false;
    lower_branch(s, &st->iff.els, &iff->iff.els, false, true, c.e->shape);
    s->scope->region_block = saved_region;
    s->scope->loop_block = saved_loop;
    if (!iff->iff.then.len && !iff->iff.els.len)
        return;
    if (loop && !s->scope->dead && !ir_stmt_in_area(iff, &iff->area)) {
        /* the loop's test and its statements run at the same points */
        sema_error(s, st->loc, "this while loop holds a region; put the while loop inside the "
                   "region instead");
        return;
    }
    if (!s->scope->dead && (!branch_in_area(&iff->iff.then, &iff->area) ||
                            !branch_in_area(&iff->iff.els, &iff->area))) {
        split_if(s, iff, out);
        return;
    }
    vec_push(s->c->arena, out, iff);
}

/* Does every statement of v run in region a (as every statement of an `if`
 * must, for the backends: fuse.c fuses an `if` as one unit)? */
static bool branch_in_area(const IrStmtVec *v, const Area *a)
{
    for (int i = 0; i < v->len; i++)
        if (!area_equal(&v->items[i]->area, a))
            return false;
    return true;
}

/* The intersection of the axes of the fields that s and the statements
 * nested in it assign (every axis: none assigned). */
static unsigned assigned_axes(const IrStmt *s)
{
    unsigned axes = AXES_IJK;
    if (s->kind == IR_ASSIGN)
        return s->assign.dst->axes;
    if (s->kind == IR_IF) {
        for (int i = 0; i < s->iff.then.len; i++)
            axes &= assigned_axes(s->iff.then.items[i]);
        for (int i = 0; i < s->iff.els.len; i++)
            axes &= assigned_axes(s->iff.els.items[i]);
    }
    return axes;
}

/* Appends to out the statements of branch v, consecutive ones of one region
 * under one `if` on cond (on its negation for an else branch). */
static void split_branch(Sema *s, const IrStmt *iff, const IrStmtVec *v, bool is_else,
                         IrField *mask, IrStmtVec *out)
{
    Arena *a = s->c->arena;
    static const int64_t zero[NAXES];
    for (int i = 0; i < v->len;) {
        int j = i + 1;
        while (j < v->len && area_equal(&v->items[j]->area, &v->items[i]->area))
            j++;
        IrStmt *g = ir_stmt_new(a, IR_IF, iff->loc);
        g->area = v->items[i]->area;
        g->iff.split_of = iff;
        g->iff.cond = mask ? ir_load(a, iff->loc, mask, zero) : ir_copy(a, iff->iff.cond);
        for (int k = i; k < j; k++)
            vec_push(a, is_else ? &g->iff.els : &g->iff.then, v->items[k]);
        vec_push(a, out, g);
        i = j;
    }
}

/* An `if` holding statements of other regions than its own: its condition
 * goes into a mask temporary where it runs, then each run of statements of
 * one region becomes an `if` on the mask in that region (the naive order:
 * the condition first, then the branches). A condition that varies along no
 * axis and reads no field is repeated instead. */
static void split_if(Sema *s, IrStmt *iff, IrStmtVec *out)
{
    Scope *sc = s->scope;
    Arena *a = s->c->arena;
    IrExpr *cond = iff->iff.cond;
    unsigned axes = cond->shape | sc->mask_shape | assigned_axes(iff);
    IrField *mask = NULL;
    if (cond->shape || ir_expr_has(cond, IR_LOAD)) {
        if (!axes) {
            sema_error(s, iff->loc, "this if holds a region, but its condition and the fields "
                       "it assigns share no axis to hold the condition in; put the if inside "
                       "the region");
            return;
        }
        mask = arena_alloc(a, sizeof *mask);
        mask->name = "region_mask";
        mask->generated = true;
        mask->loc = iff->loc;
        mask->kind = IR_TEMP;
        mask->param_pos = -1;
        mask->type = TY_BOOL;
        mask->axes = axes;
        mask->is_written = mask->is_read = true;
        mask->id = sc->st->fields.len;
        vec_push(a, &sc->st->fields, mask);
        IrStmt *set = ir_stmt_new(a, IR_ASSIGN, iff->loc);
        set->area = iff->area;
        set->assign.dst = mask;
        set->assign.value = cond;
        vec_push(a, out, set);
    }
    split_branch(s, iff, &iff->iff.then, false, mask, out);
    split_branch(s, iff, &iff->iff.els, true, mask, out);
}

/* ---------------------------------------------------------------- regions */

/* A far position: more than this from 0 or end is an error. */
enum { REGION_MAX_POS = SEMA_MAX_OFFSET };

static const char *pos_text(char buf[40], Level p)
{
    if (!p.from_end)
        snprintf(buf, 40, "%" PRId64, p.offset);
    else if (p.offset == 0)
        snprintf(buf, 40, "end");
    else
        snprintf(buf, 40, "end %c %" PRId64, p.offset < 0 ? '-' : '+',
                 p.offset < 0 ? -p.offset : p.offset);
    return buf;
}

static AreaBound area_bound(Level p)
{
    AreaBound b = {0};
    if (p.from_end) {
        b.has_end = true;
        b.end = p.offset;
    } else {
        b.has_start = true;
        b.start = p.offset;
    }
    return b;
}

/* region(ranges) body: the body's statements, each restricted to the
 * intersection of the open regions; a block scope, as an if's branch. */
static void lower_region(Sema *s, const Stmt *st, IrStmtVec *out)
{
    Scope *sc = s->scope;
    Area area = {0};
    bool ok = true, empty_alone[2] = {false, false};
    for (int r = 0; r < st->region.ranges.len; r++) {
        const RegionRange *rg = &st->region.ranges.items[r];
        char lo[40], hi[40];
        if (rg->axis == AXIS_K) {
            sema_error(s, rg->loc, "a region restricts i and j only, not k; use an "
                       "interval for levels");
            ok = false;
            continue;
        }
        if (area.set[rg->axis]) {
            sema_error(s, rg->loc, "axis %c appears twice in the region; write one range per "
                       "axis, or nest a second region to intersect them", "ij"[rg->axis]);
            ok = false;
            continue;
        }
        if (llabs(rg->lo.offset) > REGION_MAX_POS || llabs(rg->hi.offset) > REGION_MAX_POS) {
            sema_error(s, rg->loc, "region %c(%s, %s) has a position too far from 0 or end "
                       "(at most %d)", "ij"[rg->axis], pos_text(lo, rg->lo), pos_text(hi, rg->hi),
                       REGION_MAX_POS);
            ok = false;
            continue;
        }
        area.set[rg->axis] = true;
        area.lo[rg->axis] = area_bound(rg->lo);
        area.hi[rg->axis] = area_bound(rg->hi);
        Area one = {0};
        one.set[rg->axis] = true;
        one.lo[rg->axis] = area.lo[rg->axis];
        one.hi[rg->axis] = area.hi[rg->axis];
        if (!sc->dead && area_never(&one, rg->axis, -REGION_FAR, REGION_FAR)) {
            diag_warning(&s->c->diag, rg->loc, "region %c(%s, %s) is empty for every domain "
                         "size: its statements never run", "ij"[rg->axis], pos_text(lo, rg->lo),
                         pos_text(hi, rg->hi));
            empty_alone[rg->axis] = true;
        }
    }
    Area saved = sc->area;
    bool saved_region = sc->region_block, saved_loop = sc->loop_block;
    area_intersect(&sc->area, &area);
    /* nested in a region whose range along the same axis it never meets */
    for (int ax = 0; ax < 2 && ok && !sc->dead; ax++)
        if (area.set[ax] && saved.set[ax] && !empty_alone[ax] &&
            area_never(&sc->area, ax, -REGION_FAR, REGION_FAR)) {
            char in[128], out_[128], both[128];
            Area a1 = {0}, a2 = {0}, a3 = {0};
            a1.set[ax] = a2.set[ax] = a3.set[ax] = true;
            a1.lo[ax] = area.lo[ax], a1.hi[ax] = area.hi[ax];
            a2.lo[ax] = saved.lo[ax], a2.hi[ax] = saved.hi[ax];
            a3.lo[ax] = sc->area.lo[ax], a3.hi[ax] = sc->area.hi[ax];
            diag_warning(&s->c->diag, st->loc, "region %s inside region %s runs on %s, empty "
                         "for every domain size: its statements never run",
                         area_text(in, sizeof in, &a1), area_text(out_, sizeof out_, &a2),
                         area_text(both, sizeof both, &a3));
            break;
        }
    sc->region_block = true;
    sc->loop_block = false;
    /* after an error the body is lowered for its own errors only */
    lower_branch(s, &st->region.body, out, !ok, false, 0);
    sc->area = saved;
    sc->region_block = saved_region;
    sc->loop_block = saved_loop;
}

static void lower_stmts(Sema *s, const StmtVec *in, IrStmtVec *out)
{
    for (int i = 0; i < in->len && !diag_full(&s->c->diag); i++) {
        const Stmt *st = in->items[i];
        int first = out->len;
        switch (st->kind) {
        case STMT_DECL: lower_decl(s, st, out); break;
        case STMT_ASSIGN: lower_assign(s, st, out); break;
        case STMT_IF: lower_if(s, st, out); break;
        case STMT_MULTI: lower_multi(s, st, out); break;
        case STMT_RETURN:
            sema_error(s, st->loc, "return is allowed only at the end of a function body");
            break;
        case STMT_REGION: lower_region(s, st, out); break;
        }
        if (st->kind == STMT_DECL || st->kind == STMT_ASSIGN || st->kind == STMT_MULTI)
            for (int k = first; k < out->len; k++)
                out->items[k]->area = s->scope->area;
    }
}


/* ---------------------------------------------------------------- intervals */

static void require_nk(IrStencil *st, int64_t nk)
{
    if (nk > st->min_nk)
        st->min_nk = nk;
}

static bool check_interval(Sema *s, const Interval *iv)
{
    char lo[32], hi[32];
    if (llabs(iv->lo.offset) > SEMA_MAX_LEVEL || llabs(iv->hi.offset) > SEMA_MAX_LEVEL) {
        sema_error(s, iv->loc, "interval(%s, %s) has a level too far from 0 or end (at most "
                   "%d)", level_text(lo, iv->lo), level_text(hi, iv->hi), SEMA_MAX_LEVEL);
        return false;
    }
    if (level_cmp(iv->lo, iv->hi) >= 0) {
        sema_error(s, iv->loc, "interval(%s, %s) is %s: its lower bound must be below its "
                   "upper bound", level_text(lo, iv->lo), level_text(hi, iv->hi),
                   level_cmp(iv->lo, iv->hi) == 0 ? "empty" : "reversed");
        return false;
    }
    IrStencil *st = s->scope->st;
    require_nk(st, iv->lo.from_end ? -iv->lo.offset : iv->lo.offset);
    require_nk(st, iv->hi.from_end ? -iv->hi.offset : iv->hi.offset);
    require_nk(st, level_min_nk(iv->lo, iv->hi));
    return true;
}

/* Sorts the intervals by level, checks that they do not overlap, and leaves
 * them in execution order. */
static void order_intervals(Sema *s, IrComputation *comp)
{
    IrInterval **v = comp->intervals.items;
    int n = comp->intervals.len;
    for (int i = 1; i < n; i++) {   /* insertion sort: stable, and n is small */
        IrInterval *x = v[i];
        int j = i;
        for (; j > 0 && level_cmp(v[j - 1]->lo, x->lo) > 0; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
    for (int i = 1; i < n; i++) {
        char a[32], b[32], c[32], d[32];
        if (level_cmp(v[i]->lo, v[i - 1]->hi) < 0)
            sema_error(s, v[i]->loc, "interval(%s, %s) overlaps interval(%s, %s) at line %d; "
                       "intervals of one computation must not overlap",
                       level_text(a, v[i]->lo), level_text(b, v[i]->hi),
                       level_text(c, v[i - 1]->lo), level_text(d, v[i - 1]->hi),
                       v[i - 1]->loc.line);
        else
            require_nk(s->scope->st, level_min_nk(v[i - 1]->hi, v[i]->lo));
    }
    if (comp->order == ORDER_BACKWARD)
        for (int i = 0, j = n - 1; i < j; i++, j--) {
            IrInterval *t = v[i];
            v[i] = v[j];
            v[j] = t;
        }
}

static void lower_computation(Sema *s, const Computation *ast)
{
    Arena *a = s->c->arena;
    IrComputation *comp = arena_alloc(a, sizeof *comp);
    comp->loc = ast->loc;
    comp->order = ast->order;
    s->scope->order = ast->order;
    for (int i = 0; i < ast->intervals.len; i++) {
        const Interval *iv = ast->intervals.items[i];
        bool ok = check_interval(s, iv);
        IrInterval *ir = arena_alloc(a, sizeof *ir);
        ir->loc = iv->loc;
        ir->lo = iv->lo;
        ir->hi = iv->hi;
        lower_stmts(s, &iv->stmts, &ir->stmts);
        if (ok)
            vec_push(a, &comp->intervals, ir);
    }
    order_intervals(s, comp);
    vec_push(a, &s->scope->st->computations, comp);
}

/* --------------------------------------------------------- boundaries */

static void lower_boundary(Sema *s, const BoundaryDecl *b)
{
    Scope *sc = s->scope;
    Sym *sym = map_get(sc->names, b->field);
    if (!sym || !sym->field || sym->field->kind != IR_PARAM_FIELD) {
        if (!sym && !map_get(sc->decls, b->field))
            sema_error(s, b->field_loc, "boundary condition for '%s', which is not a parameter "
                       "of this stencil", b->field);
        else
            sema_error(s, b->field_loc, "'%s' is a %s; boundary conditions apply to input "
                       "fields only", b->field,
                       sym && sym->scalar ? "scalar parameter" : "temporary");
        return;
    }
    IrField *f = sym->field;
    if (f->is_written) {
        sema_error(s, b->field_loc, "field '%s' is written by this stencil; boundary conditions "
                   "apply to input fields only", f->name);
        return;
    }
    unsigned axes = b->axes ? b->axes : (f->axes & AXES_IJ);
    if (!axes) {
        sema_error(s, b->field_loc, "field '%s' has no axis I or J; name the axis: boundary "
                   "%s(k): ...;", f->name, f->name);
        return;
    }
    if (axes & ~f->axes) {
        sema_error(s, b->field_loc, "field '%s' has no axis %s; it cannot have a boundary "
                   "condition along it", f->name, axes_name(axes & ~f->axes));
        return;
    }
    double value = 0.0;
    if (b->kind == BC_DIRICHLET) {
        s->const_context = true;
        s->nodes = 0;
        char what[256];
        snprintf(what, sizeof what, "the boundary value of %s field '%s'", type_names[f->type],
                 f->name);
        Typed v = sema_convert(s, sema_expr(s, b->value), f->type, b->value->loc, what);
        IrExpr *e = v.e ? fold_expr(s->c, v.e) : NULL;
        s->const_context = false;
        if (!e)
            return;
        if (e->kind != IR_CONST) {
            sema_error(s, b->value->loc, "the value of dirichlet(...) must be a compile-time "
                       "constant");
            return;
        }
        value = type_is_floating(e->type) ? e->cnst.d : (double)e->cnst.i;
    }
    for (int ax = 0; ax < NAXES; ax++) {
        if (!(axes & (1u << ax)))
            continue;
        if (f->bc[ax].kind != BC_NONE) {
            sema_error(s, b->loc, "field '%s' already has a boundary condition along %c, at "
                       "line %d", f->name, "IJK"[ax], sc->bc_loc[f->id][ax].line);
            continue;
        }
        f->bc[ax].kind = b->kind;
        f->bc[ax].value = value;
        sc->bc_loc[f->id][ax] = b->loc;
    }
}

/* ------------------------------------------------------------- intents */

/* An error in the stencil may have left its writes unseen (the body of an if
 * whose condition is wrong is not lowered, also where the condition's error was
 * said before the stencil: it reads a const whose value had one), so these two
 * are only said of a stencil that had none. */
static void check_intents(Sema *s, const Stencil *ast, int errors)
{
    if (s->c->diag.errors != errors || s->scope->lost_writes)
        return;
    IrStencil *st = s->scope->st;
    bool out_scalars = false;
    for (int i = 0; i < st->scalars.len; i++) {
        IrScalar *sc = st->scalars.items[i];
        out_scalars = out_scalars || sc->is_output;
        if (sc->is_output && !s->scope->reductions[sc->id])
            sema_error(s, sc->loc, "out scalar '%s' is never assigned; assign it a reduction, "
                       "e.g. %s = sum(...);", sc->name, sc->name);
    }
    if (!s->scope->writes_output && !out_scalars) {
        sema_error(s, ast->loc, "stencil '%s' writes no output; assign a field parameter or an "
                   "out scalar", ast->name);
        if (s->scope->dead_output.file)
            diag_note(&s->c->diag, s->scope->dead_output, "this assignment is in a branch that "
                      "a constant condition removes, so it does not count");
    }
}

/* Temporaries get names unique in their stencil (two if blocks may each
 * declare their own `t`): later ones get a suffix _2, _3, ..., the first one
 * not taken. The search for a name resumes where the last one for the same
 * name stopped (every suffix below it is taken, and stays taken), so n
 * blocks that each declare `t` take linear time, not quadratic. */
static void unique_names(Compiler *c, IrStencil *st)
{
    NameMap *taken = map_new(c->arena);
    NameMap *next_suffix = map_new(c->arena);   /* declared name -> int *: the suffix to try */
    for (int i = 0; i < st->scalars.len; i++)
        map_put(taken, st->scalars.items[i]->name, st);
    for (int i = 0; i < st->fields.len; i++) {
        IrField *f = st->fields.items[i];
        const char *name = f->name;
        if (map_get(taken, name)) {
            int *n = map_get(next_suffix, f->name);
            if (!n) {
                n = arena_alloc(c->arena, sizeof *n);
                *n = 2;
                map_put(next_suffix, f->name, n);
            }
            do
                name = arena_printf(c->arena, "%s_%d", f->name, (*n)++);
            while (map_get(taken, name));
        }
        f->name = name;
        map_put(taken, name, st);
    }
}

/* ------------------------------------------------------------- a stencil */

static IrStencil *lower_stencil(Sema *s, const Stencil *ast)
{
    Arena *a = s->c->arena;
    IrStencil *st = arena_alloc(a, sizeof *st);
    st->name = ast->name;
    st->loc = ast->loc;
    Scope *sc = arena_alloc(a, sizeof *sc);
    sc->st = st;
    sc->names = map_new(a);
    sc->decls = map_new(a);
    sc->region_decls = map_new(a);
    sc->loop_decls = map_new(a);
    s->scope = sc;
    s->module = s->main;
    s->user = (Loc){0};
    int errors = s->c->diag.errors;

    lower_params(s, ast);
    lower_iterate(s, ast);
    for (int i = 0; i < ast->body.len; i++)
        if (ast->body.items[i].kind == ITEM_COMPUTATION)
            for (int j = 0; j < ast->body.items[i].computation->intervals.len; j++)
                prescan_stmts(s, &ast->body.items[i].computation->intervals.items[j]->stmts,
                              false, false);
    for (int i = 0; i < ast->body.len && !diag_full(&s->c->diag); i++)
        if (ast->body.items[i].kind == ITEM_COMPUTATION)
            lower_computation(s, ast->body.items[i].computation);
    sc->bc_loc = arena_alloc(a, sizeof *sc->bc_loc * (size_t)(st->fields.len + 1));
    for (int i = 0; i < ast->body.len; i++)
        if (ast->body.items[i].kind == ITEM_BOUNDARY)
            lower_boundary(s, ast->body.items[i].boundary);
    check_intents(s, ast, errors);
    st->complete = s->c->diag.errors == errors;
    s->scope = NULL;
    return st;
}

void sema_check_program(Compiler *c)
{
    c->ir = arena_alloc(c->arena, sizeof *c->ir);
    Sema *s = c->sema = arena_alloc(c->arena, sizeof *s);
    s->c = c;
    setup_modules(s);
    collect_globals(s);
    check_functions(s);
    evaluate_consts(s);
    Module *main = c->main;
    if (main->stencils.len == 0)
        diag_warning(&c->diag, (Loc){main->path, 0, 0},
                     "no stencil is defined in this file; the generated code declares nothing");
}

IrStencil *sema_lower_stencil(Compiler *c, int i)
{
    IrStencil *st = lower_stencil(c->sema, c->main->stencils.items[i]);
    vec_push(c->arena, &c->ir->stencils, st);
    return st;
}

void sema_unique_names(Compiler *c)
{
    for (int i = 0; c->ir && i < c->ir->stencils.len; i++)
        unique_names(c, c->ir->stencils.items[i]);
}
