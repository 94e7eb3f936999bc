/* inline.c: function inlining with substitution semantics (language.md
 * section 4).
 *
 * A call f(a1, ..., an) is replaced by f's return expressions in which a
 * read of parameter p at offset d is the argument bound to p with every
 * access shifted by d, and a read of a local is the local's value at that
 * point of the body: so lap(lap(u)) is the bi-harmonic operator as one
 * expression, and locals never become temporaries. The statements of a body
 * are lowered in order, each assignment giving its local a new value; an if
 * makes each local it assigns `cond ? then_value : else_value`
 * (if-conversion, language.md section 10.2). Every result is therefore one
 * expression over the arguments, which a parameter read at an offset shifts
 * whole, conditions included: the substitution semantics stay exact. The arguments are lowered once, at the call (sema.c),
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
#include "sema.h"

/* A local of the function being inlined, while it is visible. */
typedef struct {
    const Stmt *decl;         /* its STMT_DECL */
    Typed value;              /* its value at this point of the body, over the arguments;
                                 e NULL when unknown (checking) or after an error */
} Local;

struct FnEnv {
    FnInfo *fn;
    FnEnv *parent;            /* the call this one is inlined into */
    Loc call_loc;
    bool checking;            /* inline_check_function: the arguments are unknown */
    Typed *args;              /* one template per parameter; e NULL when unknown */
    const char **bound;       /* per parameter: the caller's local its argument reads (or
                                 the local its caller's parameter was bound to), or NULL */
    const char **bound_fn;    /* the function of that local */
    VEC(Local) locals;        /* the visible locals, innermost block last */
    Typed *results;           /* the values of the return, once lowered */
    int nresults;
    bool misplaced_return;    /* a return was reported as not last */
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
                   f->name, sema_block_inside(f->region_local, f->loop_local), sh->param,
                   sh->fn, f->name, sema_block_name(f->region_local, f->loop_local));
        sh->failed = true;
        return;
    }
    for (int ax = 0; ax < NAXES; ax++)
        copy->load.offset[ax] += off[ax];
    if ((off[AXIS_I] || off[AXIS_J]) && !copy->load.via.file) {
        copy->load.via = sh->use;
        copy->load.via_fn = sh->fn;
    }
    /* an absolute run-time level does not move along K; its expression
     * moves with the point */
    if (copy->load.kmode == KDYN_ABS)
        copy->load.offset[AXIS_K] -= off[AXIS_K];
    if (copy->load.klevel)
        copy->load.klevel = shift_copy(sh, copy->load.klevel, off);
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

/* The visible local called name, innermost first; NULL if none. */
static Local *find_local(FnEnv *env, const char *name)
{
    for (int i = env->locals.len - 1; i >= 0; i--)
        if (strcmp(env->locals.items[i].decl->decl.name, name) == 0)
            return &env->locals.items[i];
    return NULL;
}

/* The declaration of a local called name anywhere in v (depth-first); top:
 * set to whether it is in v itself rather than in an if block. */
static const Stmt *find_decl(const StmtVec *v, const char *name, bool *top)
{
    for (int i = 0; i < v->len; i++) {
        const Stmt *st = v->items[i];
        if (st->kind == STMT_DECL && strcmp(st->decl.name, name) == 0) {
            *top = true;
            return st;
        }
        if (st->kind == STMT_IF) {
            const Stmt *d = find_decl(&st->iff.then, name, top);
            if (!d)
                d = find_decl(&st->iff.els, name, top);
            if (d) {
                *top = false;
                return d;
            }
        }
    }
    return NULL;
}

/* Reports a name of env's function that is declared as a local but not
 * visible at loc; false if the function declares no local of that name. */
static bool invisible_local(Sema *s, FnEnv *env, const char *name, Loc loc)
{
    const Function *f = env->fn->fn;
    bool top = false;
    const Stmt *d = find_decl(&f->body, name, &top);
    if (!d)
        return false;
    if (top)
        sema_error(s, loc, "'%s' is used before its declaration in function '%s'", name,
                   f->name);
    else
        sema_error(s, loc, "local '%s' of function '%s' is declared inside an if block at line "
                   "%d and is not visible here; declare it before the if", name, f->name,
                   d->decl.name_loc.line);
    return true;
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
        if (env->bound && env->bound[i] && (offset[AXIS_I] || offset[AXIS_J] || offset[AXIS_K])) {
            /* substitution would read the local at an offset (language.md 10.2) */
            sema_error(s, access->loc,
                       "local '%s' of function '%s' is a scalar; it cannot be read at an offset, "
                       "but parameter '%s' of function '%s' is bound to it and read at one "
                       "(pass the expression the local holds, or make it a function of its own)",
                       env->bound[i], env->bound_fn[i], name, f->name);
            *out = (Typed){0};
            return true;
        }
        *out = use_template(s, env->args[i], offset, access->loc, name, f->name);
        return true;
    }
    *out = (Typed){0};
    Local *l = find_local(env, name);
    if (!l)
        return invisible_local(s, env, name, access->loc);
    if (offset[AXIS_I] || offset[AXIS_J] || offset[AXIS_K])
        sema_error(s, access->loc,
                   "local '%s' of function '%s' is a scalar; it cannot be read at an offset "
                   "(make it a parameter, or a function of its own)",
                   name, f->name);
    else
        *out = use_template(s, l->value, offset, access->loc, name, f->name);
    return true;
}

int inline_nresults(const Function *f)
{
    if (f->body.len == 0)
        return 0;
    const Stmt *last = f->body.items[f->body.len - 1];
    return last->kind == STMT_RETURN ? last->ret.values.len : 0;
}

static void lower_fstmts(Sema *s, FnEnv *env, const StmtVec *body, bool top);

/* A local's declaration: `double x = e;`. */
static void lower_fdecl(Sema *s, FnEnv *env, const Stmt *d)
{
    const char *name = d->decl.name;
    Local *old = find_local(env, name);
    Typed v = d->decl.init ? sema_expr(s, d->decl.init) : (Typed){0};
    if (old) {
        sema_error(s, d->decl.name_loc, "local '%s' of function '%s' is already declared at "
                   "line %d; assign it without a type: %s = ...;", name, env->fn->fn->name,
                   old->decl->decl.name_loc.line, name);
        return;
    }
    char what[256];
    snprintf(what, sizeof what, "%s '%s'", type_names[d->decl.type], name);
    v = sema_convert(s, v, d->decl.type, d->decl.name_loc, what);
    vec_push(s->c->arena, &env->locals, ((Local){d, v}));
}

/* The local a function assigns, or NULL (reported). */
static Local *assigned_local(Sema *s, FnEnv *env, const char *name, Loc loc)
{
    const Function *f = env->fn->fn;
    Local *l = find_local(env, name);
    if (l)
        return l;
    for (int i = 0; i < f->params.len; i++) {
        if (strcmp(f->params.items[i], name) == 0) {
            sema_error(s, loc, "parameter '%s' of function '%s' cannot be assigned: it stands "
                       "for its argument; copy it into a local first, e.g. double v = %s;",
                       name, f->name, name);
            return NULL;
        }
    }
    if (!invisible_local(s, env, name, loc))
        sema_bad_target(s, name, loc);
    return NULL;
}

/* `x op= e` on a local: its value becomes the new expression. */
static void lower_fassign(Sema *s, FnEnv *env, const Stmt *st)
{
    Local *l = assigned_local(s, env, st->assign.name, st->assign.name_loc);
    Typed v = sema_expr(s, st->assign.value);
    if (!l)
        return;
    const Stmt *d = l->decl;
    if (st->assign.op != OP_PLUS) {
        static const int64_t zero[NAXES];
        Typed cur = use_template(s, l->value, zero, st->loc, d->decl.name, env->fn->fn->name);
        v = sema_binary(s, st->assign.op, cur, v, st->loc);
    }
    char what[256];
    snprintf(what, sizeof what, "%s '%s'", type_names[d->decl.type], d->decl.name);
    l->value = sema_convert(s, v, d->decl.type, st->loc, what);
}

/* Target i of a multiple assignment in a function: the local assigned. */
struct FnTargets {
    FnEnv *env;
    Local **dst;
};

static bool local_target(Sema *s, void *ctx, int i, const char *name, Loc loc)
{
    struct FnTargets *t = ctx;
    t->dst[i] = assigned_local(s, t->env, name, loc);
    return t->dst[i] != NULL;
}

/* `a, b = f(...)` on locals: every result is computed from the values before
 * the statement, then assigned. */
static void lower_fmulti(Sema *s, FnEnv *env, const Stmt *st)
{
    int n = st->multi.names.len;
    struct FnTargets ctx = {env, arena_alloc(s->c->arena, sizeof(Local *) * (size_t)n)};
    Local **dst = ctx.dst;
    bool ok = sema_multi_targets(s, st, local_target, &ctx);
    Typed *res = arena_alloc(s->c->arena, sizeof *res * (size_t)n);
    if (!sema_call_results(s, st->multi.value, n, res) || !ok) {
        for (int i = 0; ok && i < n; i++)
            dst[i]->value = (Typed){0};
        return;
    }
    for (int i = 0; i < n; i++) {
        const Stmt *d = dst[i]->decl;
        char what[256];
        snprintf(what, sizeof what, "%s '%s'", type_names[d->decl.type], d->decl.name);
        dst[i]->value = sema_convert(s, res[i], d->decl.type, st->multi.name_locs.items[i], what);
    }
}

/* The values of the locals visible before a branch. */
static Typed *save_values(Sema *s, FnEnv *env, int n)
{
    Typed *v = arena_alloc(s->c->arena, sizeof *v * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        v[i] = env->locals.items[i].value;
    return v;
}

static void restore_values(FnEnv *env, const Typed *v, int n)
{
    env->locals.len = n;
    for (int i = 0; i < n; i++)
        env->locals.items[i].value = v[i];
}

/* An if in a function: each local assigned in a branch becomes
 * `cond ? then_value : else_value` (if-conversion), so the body stays one
 * expression per result and shifts exactly like any other. A constant
 * condition keeps one branch (the other is lowered for its errors only). */
static void lower_fif(Sema *s, FnEnv *env, const Stmt *st)
{
    Arena *a = s->c->arena;
    Typed c = sema_expr(s, st->iff.cond);
    if (c.e && c.e->type != TY_BOOL) {
        sema_error(s, st->iff.cond->loc, "the condition of an if must be bool, not %s; compare "
                   "it, e.g. x != 0", type_names[c.e->type]);
        c.e = NULL;
    }
    if (c.e)
        c.e = fold_expr(s->c, c.e);
    int n = env->locals.len;
    Typed *before = save_values(s, env, n);
    if (c.e && c.e->kind == IR_CONST) {
        bool take_then = c.e->cnst.i != 0;
        lower_fstmts(s, env, &st->iff.then, false);
        Typed *after_then = save_values(s, env, n);
        restore_values(env, before, n);
        lower_fstmts(s, env, &st->iff.els, false);
        restore_values(env, take_then ? after_then : save_values(s, env, n), n);
        return;
    }
    lower_fstmts(s, env, &st->iff.then, false);
    Typed *then = save_values(s, env, n);
    restore_values(env, before, n);
    lower_fstmts(s, env, &st->iff.els, false);
    env->locals.len = n;
    for (int i = 0; i < n; i++) {
        Local *l = &env->locals.items[i];
        Typed t = then[i], e = l->value;
        if (t.e == e.e)
            continue;   /* not assigned in either branch */
        if (!c.e || !t.e || !e.e || !spend(s, ir_expr_size(c.e) + 1, st->loc)) {
            l->value = (Typed){0};
            continue;
        }
        l->value = (Typed){ir_cond(a, st->loc, l->decl->decl.type, ir_copy(a, c.e), t.e, e.e),
                           false};
    }
}

/* The statements of a function body or of one of its blocks; a block's
 * locals go out of view at its end. */
static void lower_fstmts(Sema *s, FnEnv *env, const StmtVec *body, bool top)
{
    int n = env->locals.len;
    for (int i = 0; i < body->len && !diag_full(&s->c->diag); i++) {
        const Stmt *st = body->items[i];
        switch (st->kind) {
        case STMT_DECL: lower_fdecl(s, env, st); break;
        case STMT_ASSIGN: lower_fassign(s, env, st); break;
        case STMT_IF:
            if (st->iff.loop)
                sema_error(s, st->loc, "a while loop is not allowed in function '%s' (a function "
                           "body is if-converted into one expression); put the loop around the "
                           "call in the stencil", env->fn->fn->name);
            else
                lower_fif(s, env, st);
            break;
        case STMT_MULTI: lower_fmulti(s, env, st); break;
        case STMT_REGION:
            sema_error(s, st->loc, "a region is not allowed in function '%s' (its statements "
                       "are pointwise values); put the region around the call in the stencil",
                       env->fn->fn->name);
            break;
        case STMT_RETURN: {
            const ExprVec *v = &st->ret.values;
            bool last = top && i == body->len - 1;
            if (!last) {
                env->misplaced_return = true;
                sema_error(s, st->loc, "return must be the last statement of function '%s'%s",
                           env->fn->fn->name, top ? "" : ", outside any if; assign a local "
                           "in the branches and return it at the end");
            }
            Typed *r = arena_alloc(s->c->arena, sizeof *r * (size_t)(v->len + 1));
            for (int j = 0; j < v->len; j++)
                r[j] = sema_expr(s, v->items[j]);
            if (last) {
                env->results = r;
                env->nresults = v->len;
            }
            break;
        }
        }
    }
    if (!top)
        env->locals.len = n;
}

/* Folds the results of a call while it is the innermost, so that an error
 * of folding (an int division by a constant 0, an overflow: fold.c) that the
 * arguments cause notes this call (`g(a, 0)` for `return x % d;`); the
 * statement's own fold finds the same errors again, which diag.c shows once.
 * A weak result is folded in a copy: its literals take their type later
 * (sema.c, retype_weak), and folding them now in double would round twice. */
static void fold_results(Sema *s, FnEnv *env)
{
    for (int i = 0; env->results && i < env->nresults; i++) {
        Typed *r = &env->results[i];
        if (!r->e)
            continue;
        if (r->weak)
            fold_expr(s->c, ir_copy(s->c->arena, r->e));
        else
            r->e = fold_expr(s->c, r->e);
    }
}

/* Lowers the body of env's function; its results are env->results. */
static void lower_body(Sema *s, FnEnv *env)
{
    FnInfo *fn = env->fn;
    const Function *f = fn->fn;
    int saved_module = s->module;
    Loc saved_user = s->user;
    int errors = s->c->diag.errors;
    s->env = env;
    s->module = fn->module;
    s->user = f->loc;
    if (fn->inline_error)
        s->quiet++;

    lower_fstmts(s, env, &f->body, true);
    if (!env->results && !env->misplaced_return)
        sema_error(s, f->end_loc, "function '%s' ends without a return; its last statement "
                   "must be 'return EXPR;'", f->name);
    /* errors of folding depend on the arguments: they do not silence later calls */
    int lowered = s->c->diag.errors;
    if (!env->checking)
        fold_results(s, env);

    if (fn->inline_error)
        s->quiet--;
    s->env = env->parent;
    s->module = saved_module;
    s->user = saved_user;
    if (lowered > errors) {
        if (env->checking)
            fn->bad = true;
        else
            fn->inline_error = true;
    }
}

static FnEnv *new_env(Sema *s, FnInfo *fn, Typed *args, Loc call_loc, bool checking)
{
    FnEnv *env = arena_alloc(s->c->arena, sizeof *env);
    env->fn = fn;
    env->parent = s->env;
    env->call_loc = call_loc;
    env->checking = checking;
    env->args = args;
    return env;
}

/* The local of env's function that the argument a reads (directly, or through a parameter
 * of env's function that is bound to one), or NULL; *fn_name: its function. */
static const char *reads_local(FnEnv *env, const Expr *a, const char **fn_name)
{
    if (!a)
        return NULL;
    const char *l = NULL;
    switch (a->kind) {
    case EXPR_ACCESS: {
        const Function *f = env->fn->fn;
        for (int i = 0; i < f->params.len; i++)
            if (strcmp(f->params.items[i], a->access.name) == 0) {
                if (env->bound && env->bound[i]) {
                    *fn_name = env->bound_fn[i];
                    return env->bound[i];
                }
                break;
            }
        if (find_local(env, a->access.name)) {
            *fn_name = f->name;
            return a->access.name;
        }
        for (int i = 0; i < a->access.noffsets && !l; i++)
            l = reads_local(env, a->access.offsets[i].dyn, fn_name);
        return l;
    }
    case EXPR_UNARY: case EXPR_BINARY:
        l = reads_local(env, a->op.a, fn_name);
        return l ? l : reads_local(env, a->op.b, fn_name);
    case EXPR_COND:
        l = reads_local(env, a->cond.cond, fn_name);
        l = l ? l : reads_local(env, a->cond.then, fn_name);
        return l ? l : reads_local(env, a->cond.els, fn_name);
    case EXPR_CALL:
        for (int i = 0; i < a->call.args.len && !l; i++)
            l = reads_local(env, a->call.args.items[i], fn_name);
        return l;
    case EXPR_CONVERT:
        return reads_local(env, a->convert.a, fn_name);
    default:
        return NULL;
    }
}

bool inline_call_results(Sema *s, FnInfo *fn, Typed *args, Loc call_loc, int n, Typed *out,
                         const ExprVec *arg_exprs)
{
    for (int i = 0; i < n; i++)
        out[i] = (Typed){0};
    if (s->env && s->env->checking) {
        vec_push(s->c->arena, &s->env->fn->calls, ((FnCall){fn, call_loc}));
        return false;
    }
    if (fn->bad)
        return false;
    for (int i = 0; i < fn->fn->params.len; i++)
        if (!args[i].e)
            return false;
    if (!spend(s, 1, call_loc))
        return false;
    FnEnv *env = new_env(s, fn, args, call_loc, false);
    if (env->parent && arg_exprs && arg_exprs->len == fn->fn->params.len) {
        /* a call in a function body: which arguments read the caller's locals */
        int np = arg_exprs->len;
        env->bound = arena_alloc(s->c->arena, sizeof *env->bound * (size_t)(np + 1));
        env->bound_fn = arena_alloc(s->c->arena, sizeof *env->bound_fn * (size_t)(np + 1));
        for (int i = 0; i < np; i++)
            env->bound[i] = reads_local(env->parent, arg_exprs->items[i], &env->bound_fn[i]);
    }
    lower_body(s, env);
    if (!env->results || env->nresults != n)
        return false;
    bool ok = true;
    for (int i = 0; i < n; i++) {
        out[i] = env->results[i];
        ok = ok && out[i].e;
    }
    return ok;
}

Typed inline_call(Sema *s, FnInfo *fn, Typed *args, Loc call_loc, const ExprVec *arg_exprs)
{
    Typed r;
    inline_call_results(s, fn, args, call_loc, 1, &r, arg_exprs);
    return r;
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
