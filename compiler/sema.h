/* sema.h: the internal interface of the semantic passes. sema.c, inline.c,
 * fold.c and shapes.c share the state below and call these functions across
 * files; nothing else includes it (gtcc.h has the passes' entry points, and
 * ir.c's constructors and helpers, which serve every pass). */
#ifndef GTCC_SEMA_H
#define GTCC_SEMA_H

#include "gtcc.h"

/* A lowered expression. weak: its floating type comes from floating literals
 * only, so it still adapts to a float context (language.md section 2). */
typedef struct {
    IrExpr *e;                /* NULL after an error (already reported) */
    bool weak;
} Typed;

/* A user function and what sema.c found out about it. */
typedef struct FnInfo FnInfo;
typedef struct {
    FnInfo *callee;
    Loc loc;                  /* of the call */
} FnCall;
struct FnInfo {
    Function *fn;
    int module;               /* index in Sema.modules */
    VEC(FnCall) calls;        /* the calls in its body, for the recursion check */
    bool bad;                 /* has errors: calls to it lower to NULL silently */
    bool inline_error;        /* an error was reported while inlining it once */
};

typedef struct FnEnv FnEnv;       /* the bindings of one inlined call (inline.c) */
typedef struct Scope Scope;       /* the names of the stencil being lowered (sema.c) */

/* The state of the semantic passes (Compiler.sema). */
struct Sema {
    Compiler *c;
    Module **modules;         /* every module, each after those it imports */
    int nmodules;
    int main;                 /* the index of c->main */
    uint64_t *visible;        /* bit n of row m (visible_words words): module m sees
                                 module n's names (a chain of N imports sees N^2 / 2) */
    int visible_words;
    NameMap *globals;         /* const, function and stencil names of every module */
    int module;               /* the module whose names are being resolved */
    Loc user;                 /* the const or function being checked: names of its own
                                 module must be declared before it; file NULL in stencils */
    bool const_context;       /* lowering a constant expression: no fields, no index */
    Scope *scope;             /* the stencil being lowered; NULL outside stencils */
    FnEnv *env;               /* the innermost function being inlined; NULL if none */
    long nodes;               /* IR nodes made for the current statement (inlining budget) */
    int quiet;                /* > 0: errors are not reported (an error about the same
                                 construct already was) */
};

/* The inlining budget: a statement whose expression grows beyond this many
 * nodes is rejected with a hint to use a temporary. */
enum { SEMA_NODE_BUDGET = 1000000 };
/* The largest offset an access may write, and the largest level number of an
 * interval bound: far beyond any real halo or column, small enough that
 * extents and levels never overflow. */
enum { SEMA_MAX_OFFSET = 1000000, SEMA_MAX_LEVEL = 1000000000 };

/* sema.c: lowers e (in s->env when inlining); reports errors. */
Typed sema_expr(Sema *s, const Expr *e);
/* Reports an error, with a note per enclosing inlined call; silent when quiet. */
void sema_error(Sema *s, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Converts v for storing into a `to` variable described by `what` (e.g.
 * "int 'n'"), with the implicit conversions of language.md; reports others. */
Typed sema_convert(Sema *s, Typed v, Type to, Loc loc, const char *what);

/* sema.c: `a op b` with the typing rules of language.md (NULL operands give
 * NULL silently). */
Typed sema_binary(Sema *s, Op op, Typed a, Typed b, Loc loc);
/* sema.c: the targets of multiple assignment st, in order: one that repeats
 * an earlier one is reported; each is then resolved by target(s, ctx, i,
 * name, loc), false after reporting one that cannot be assigned. False if
 * any target was repeated or not resolved. */
bool sema_multi_targets(Sema *s, const Stmt *st,
                        bool (*target)(Sema *s, void *ctx, int i, const char *name, Loc loc),
                        void *ctx);
/* sema.c: how messages name the block a temporary is local to, "inside %s
 * block" ("a region", "a while loop's", "an if") and "before the %s"
 * ("region", "while loop", "if"). */
const char *sema_block_inside(bool region, bool loop);
const char *sema_block_name(bool region, bool loop);
/* sema.c: reports an assignment to name, which is no variable in view. */
void sema_bad_target(Sema *s, const char *name, Loc loc);
/* sema.c: the n results of `call`, the right-hand side of an assignment with
 * n targets: a call of a function returning n values (reported otherwise).
 * False after an error or when a result is unknown. */
bool sema_call_results(Sema *s, const Expr *call, int n, Typed *out);

/* inline.c: the result of fn with its parameters bound to args
 * (substitution); while a function is being checked, records the call
 * instead. inline_call_results gives the n results of a function returning
 * n values (false if one is unknown). */
Typed inline_call(Sema *s, FnInfo *fn, Typed *args, Loc call_loc, const ExprVec *arg_exprs);
bool inline_call_results(Sema *s, FnInfo *fn, Typed *args, Loc call_loc, int n, Typed *out,
                         const ExprVec *arg_exprs);
/* The number of values f returns: its final return's; 0 without one. */
int inline_nresults(const Function *f);
/* A read, at offset, of a parameter or local of the innermost inlined
 * function; false if access names neither. */
bool inline_lookup(Sema *s, const Expr *access, const int64_t offset[NAXES], Typed *out);
/* Lowers fn's body once with unknown arguments: reports the errors that do
 * not depend on the arguments, records its calls; marks fn bad on error. */
void inline_check_function(Sema *s, FnInfo *fn);
/* Prints a note at each enclosing inlined call (after an error). */
void inline_notes(Sema *s);

/* fold.c: folds the constant parts of e (int32 and IEEE semantics); reports
 * int division by zero and int overflow. */
IrExpr *fold_expr(Compiler *c, IrExpr *e);
/* The value of -D NAME=VALUE for a const of type t, or NULL after an error. */
IrExpr *fold_define(Compiler *c, const Define *d, Type t, Loc const_loc);

/* shapes.c: the shape rules of language.md section 5; false after an error. */
bool shape_check_assign(Sema *s, Loc loc, const char *dst, unsigned dst_axes,
                        unsigned value_shape, unsigned mask_shape, IterOrder order);
bool shape_check_offset(Sema *s, Loc loc, const char *name, unsigned axes,
                        const int64_t offset[NAXES], const char *via);
bool shape_check_column(Sema *s, Loc loc, const char *fn, unsigned shape);
/* "IJK", or "scalar" for the empty shape. */
const char *shape_name(unsigned shape);

#endif /* GTCC_SEMA_H */
