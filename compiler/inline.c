/* inline.c: function inlining with substitution semantics (language.md
 * section 4).
 *
 * A call f(a1, ..., an) is replaced by f's return expression in which a read
 * of parameter p at offset d is the argument bound to p with every access
 * shifted by d, and a read of a local is the local's defining expression: so
 * lap(lap(u)) is the bi-harmonic operator as one expression, and locals never
 * become temporaries. The arguments are lowered once, at the call (sema.c),
 * so their errors are reported once; each use is a shifted copy of that
 * template. Shifting moves loads, turns index(i) into index(i) + d, and moves
 * a column reduction horizontally only (its operand always covers the whole
 * column). A copy that would push the statement past SEMA_NODE_BUDGET nodes
 * is an error suggesting a temporary, which keeps deep compositions from
 * growing exponentially.
 *
 * Each function is also lowered once on its own, with unknown arguments
 * (inline_check_function): that reports what does not depend on the
 * arguments even for functions never called, and records the calls for the
 * recursion check of sema.c. Errors that do depend on the arguments (types,
 * offsets along a missing axis) are reported per call, with a note naming the
 * call; after the first such error a function's later calls stay quiet.
 */
#include <inttypes.h>
#include <string.h>

#include "gtcc.h"

struct FnEnv {
    FnInfo *fn;
    FnEnv *parent;            /* the call this one is inlined into */
    Loc call_loc;
    bool checking;            /* inline_check_function: the arguments are unknown */
    Typed *args;              /* one template per parameter; e NULL when unknown */
    Typed *locals;            /* one per local, as far as lowered */
    int nlocals;              /* locals lowered so far */
};

/* Accounts for n more nodes in the current statement; false (reported once)
 * past the budget. */
static bool spend(Sema *s, size_t n, Loc loc)
{
    if (s->nodes > SEMA_NODE_BUDGET)
        return false;
    s->nodes += (long)n;
    if (s->nodes <= SEMA_NODE_BUDGET)
        return true;
    sema_error(s, loc,
               "this expression grows beyond %d nodes when its functions are inlined; "
               "store an intermediate result in a temporary",
               SEMA_NODE_BUDGET);
    return false;
}

/* What a shifted copy reports its errors against. */
typedef struct {
    Sema *s;
    Loc use;                  /* the read of the parameter in the function body */
    const char *param;
    const char *fn;
    bool failed;
} Shift;

static IrExpr *shift_copy(Shift *sh, const IrExpr *e, const int64_t off[NAXES]);

static void shift_load(Shift *sh, IrExpr *copy, const int64_t off[NAXES])
{
    IrField *f = copy->load.field;
    char via[256];
    snprintf(via, sizeof via, " (parameter '%s' of function '%s' is bound to it)", sh->param,
             sh->fn);
    if (!shape_check_offset(sh->s, sh->use, f->name, f->axes, off, via)) {
        sh->failed = true;
        return;
    }
    if (f->block_local && (off[AXIS_I] || off[AXIS_J] || off[AXIS_K])) {
        sema_error(sh->s, sh->use,
                   "temporary '%s' is declared inside %s block, so it is read only at zero "
                   "offset, but parameter '%s' of function '%s' is bound to it and read at an "
                   "offset; declare '%s' before the %s",
                   f->name, f->region_local ? "a region" : "an if", sh->param, sh->fn, f->name,
                   f->region_local ? "region" : "if");
        sh->failed = true;
        return;
    }
    for (int ax = 0; ax < NAXES; ax++)
        copy->load.offset[ax] += off[ax];
}

static IrExpr *shift_copy(Shift *sh, const IrExpr *e, const int64_t off[NAXES])
{
    Arena *a = sh->s->c->arena;
    IrExpr *copy = arena_alloc(a, sizeof *copy);
    *copy = *e;
    switch (e->kind) {
    case IR_CONST: case IR_SCALAR:
        break;
    case IR_LOAD:
        shift_load(sh, copy, off);
        break;
    case IR_INDEX:
        if (off[e->index_axis]) {
            int64_t d = off[e->index_axis];
            copy = ir_binary(a, e->loc, d > 0 ? OP_ADD : OP_SUB, TY_INT, copy,
                             ir_const_int(a, e->loc, TY_INT, d > 0 ? d : -d));
        }
        break;
    case IR_UNARY:
        copy->op.a = shift_copy(sh, e->op.a, off);
        break;
    case IR_BINARY:
        copy->op.a = shift_copy(sh, e->op.a, off);
        copy->op.b = shift_copy(sh, e->op.b, off);
        break;
    case IR_COND:
        copy->cond.cond = shift_copy(sh, e->cond.cond, off);
        copy->cond.then = shift_copy(sh, e->cond.then, off);
        copy->cond.els = shift_copy(sh, e->cond.els, off);
        break;
    case IR_CALL:
        for (int i = 0; i < e->call.nargs; i++)
            copy->call.args[i] = shift_copy(sh, e->call.args[i], off);
        break;
    case IR_CAST:
        copy->cast.a = shift_copy(sh, e->cast.a, off);
        break;
    case IR_COLREDUCE: {
        /* The result does not vary along K: only the horizontal shift applies. */
        int64_t horizontal[NAXES] = {off[AXIS_I], off[AXIS_J], 0};
        copy->colreduce.a = shift_copy(sh, e->colreduce.a, horizontal);
        break;
    }
    }
    return copy;
}

static Typed use_template(Sema *s, Typed t, const int64_t off[NAXES], Loc use,
                          const char *param, const char *fn)
{
    if (!t.e || s->nodes > SEMA_NODE_BUDGET || !spend(s, ir_expr_size(t.e), use))
        return (Typed){0};
    Shift sh = {s, use, param, fn, false};
    IrExpr *e = shift_copy(&sh, t.e, off);
    return sh.failed ? (Typed){0} : (Typed){e, t.weak};
}

bool inline_lookup(Sema *s, const Expr *access, const int64_t offset[NAXES], Typed *out)
{
    FnEnv *env = s->env;
    if (!env)
        return false;
    const Function *f = env->fn->fn;
    const char *name = access->access.name;
    for (int i = 0; i < f->params.len; i++) {
        if (strcmp(f->params.items[i], name) != 0)
            continue;
        *out = use_template(s, env->args[i], offset, access->loc, name, f->name);
        return true;
    }
    for (int i = 0; i < f->locals.len; i++) {
        const Stmt *d = f->locals.items[i];
        if (strcmp(d->decl.name, name) != 0)
            continue;
        *out = (Typed){0};
        if (i >= env->nlocals)
            sema_error(s, access->loc, "'%s' is used before its declaration in function '%s'",
                       name, f->name);
        else if (offset[AXIS_I] || offset[AXIS_J] || offset[AXIS_K])
            sema_error(s, access->loc,
                       "local '%s' of function '%s' is a scalar; it cannot be read at an offset "
                       "(make it a parameter, or a function of its own)",
                       name, f->name);
        else
            *out = use_template(s, env->locals[i], offset, access->loc, name, f->name);
        return true;
    }
    return false;
}

/* Lowers the locals and the return expression of env's function. */
static Typed lower_body(Sema *s, FnEnv *env)
{
    FnInfo *fn = env->fn;
    int saved_module = s->module;
    Loc saved_user = s->user;
    int errors = s->c->diag.errors;
    s->env = env;
    s->module = fn->module;
    s->user = fn->fn->loc;
    if (fn->inline_error)
        s->quiet++;

    for (int i = 0; i < fn->fn->locals.len; i++) {
        const Stmt *d = fn->fn->locals.items[i];
        Typed v = d->decl.init ? sema_expr(s, d->decl.init) : (Typed){0};
        char what[256];
        snprintf(what, sizeof what, "%s '%s'", type_names[d->decl.type], d->decl.name);
        env->locals[i] = sema_convert(s, v, d->decl.type, d->decl.name_loc, what);
        env->nlocals = i + 1;
    }
    Typed result = sema_expr(s, fn->fn->ret);

    if (fn->inline_error)
        s->quiet--;
    s->env = env->parent;
    s->module = saved_module;
    s->user = saved_user;
    if (s->c->diag.errors > errors) {
        if (env->checking)
            fn->bad = true;
        else
            fn->inline_error = true;
    }
    return result;
}

static FnEnv *new_env(Sema *s, FnInfo *fn, Typed *args, Loc call_loc, bool checking)
{
    FnEnv *env = arena_alloc(s->c->arena, sizeof *env);
    env->fn = fn;
    env->parent = s->env;
    env->call_loc = call_loc;
    env->checking = checking;
    env->args = args;
    env->locals = arena_alloc(s->c->arena, sizeof(Typed) * (size_t)(fn->fn->locals.len + 1));
    return env;
}

Typed inline_call(Sema *s, FnInfo *fn, Typed *args, Loc call_loc)
{
    if (s->env && s->env->checking) {
        vec_push(s->c->arena, &s->env->fn->calls, ((FnCall){fn, call_loc}));
        return (Typed){0};
    }
    if (fn->bad)
        return (Typed){0};
    for (int i = 0; i < fn->fn->params.len; i++)
        if (!args[i].e)
            return (Typed){0};
    if (!spend(s, 1, call_loc))
        return (Typed){0};
    return lower_body(s, new_env(s, fn, args, call_loc, false));
}

void inline_check_function(Sema *s, FnInfo *fn)
{
    Typed *unknown = arena_alloc(s->c->arena, sizeof(Typed) * (size_t)(fn->fn->params.len + 1));
    FnEnv *saved = s->env;
    s->env = NULL;
    lower_body(s, new_env(s, fn, unknown, fn->fn->loc, true));
    s->env = saved;
}

void inline_notes(Sema *s)
{
    enum { MAX_NOTES = 4 };
    int shown = 0, more = 0;
    FnEnv *outermost = NULL;
    for (FnEnv *env = s->env; env; env = env->parent) {
        if (env->checking)
            continue;
        if (shown < MAX_NOTES) {
            diag_note(&s->c->diag, env->call_loc, "in this call of '%s'", env->fn->fn->name);
            shown++;
        } else {
            more++;
            outermost = env;
        }
    }
    if (more == 1)
        diag_note(&s->c->diag, outermost->call_loc, "in this call of '%s'",
                  outermost->fn->fn->name);
    else if (more > 1)
        diag_note(&s->c->diag, outermost->call_loc, "in this call of '%s', through %d more "
                  "calls", outermost->fn->fn->name, more - 1);
}
