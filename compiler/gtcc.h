/* gtcc.h: the one internal header of the compiler.
 *
 * It holds the types shared between the passes, in this order: basic utilities
 * (arena, vectors, locations), diagnostics, the compilation context, the AST
 * built by the parser (grammar/stencil.y), the stencil IR produced by the
 * semantic passes, and the declarations of each pass, in pipeline order.
 *
 * The AST is what the user wrote, with names unresolved. The IR is the
 * checked, inlined, folded program: every name resolved to a field, a
 * temporary or a scalar, every expression typed and shaped, every extent and
 * halo computed. Backends read only the IR. It holds no backend's code
 * shapes: what fuse.c adds is the plan in target-neutral terms (kernels,
 * groups, row lags, temporary classes, buffers), made with the parameters
 * the backend gives (PlanParams) and read through plan.c; how a backend
 * stores a tile or runs a group is its emitter's business (emit.h is the
 * emitters' private kit).
 */
#ifndef GTCC_H
#define GTCC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ===================================================================== util.c */

/* An arena: every allocation of one compilation comes from it and is released
 * by one arena_free. arena_alloc returns zeroed memory and never fails (out of
 * memory is reported through gtcc_die). */
typedef struct Arena Arena;
Arena *arena_new(void);
void arena_free(Arena *arena);
void *arena_alloc(Arena *arena, size_t size);
char *arena_strdup(Arena *arena, const char *s);
char *arena_strndup(Arena *arena, const char *s, size_t n);
char *arena_printf(Arena *arena, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The last component of a path: "out/x.c" -> "x.c". */
const char *path_base(const char *path);
/* A finite v as a C floating literal, the shortest that reads back as the same
 * double (or float, with an f suffix where single): 20.0, 0.1, 1e-07, 2.5e+08. */
enum { REAL_LITERAL_SIZE = 48 };
void real_literal(char buf[REAL_LITERAL_SIZE], double v, bool single);

/* A growable array of T allocated in an arena: declare with
 * `typedef VEC(Stmt *) StmtVec;`, append with vec_push(arena, &v, x). */
#define VEC(T) struct { T *items; int len; int cap; }
void vec_grow_(Arena *arena, void **items, int *cap, size_t elem_size);
#define vec_push(arena, v, x)                                                         \
    ((v)->len == (v)->cap ? vec_grow_((arena), (void **)&(v)->items, &(v)->cap,        \
                                      sizeof *(v)->items)                              \
                          : (void)0,                                                   \
     (v)->items[(v)->len++] = (x))

/* A string-keyed hash table in an arena (FNV-1a, chained buckets). Keys are
 * not copied: they must live as long as the map. map_get gives NULL for a key
 * not bound; map_put binds key to value, replacing an earlier binding. */
typedef struct NameMap NameMap;
NameMap *map_new(Arena *arena);
void *map_get(const NameMap *m, const char *key);
void map_put(NameMap *m, const char *key, void *value);
void map_del(NameMap *m, const char *key);

/* An internal compiler bug: prints FILE:LINE and the message, then aborts.
 * Never used for anything a user's input can cause. */
_Noreturn void gtcc_die_(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define gtcc_die(...) gtcc_die_(__FILE__, __LINE__, __VA_ARGS__)
#define unreachable() gtcc_die("unreachable")

/* A position in a source file: file as given on the command line or resolved
 * from an import, line and column 1-based (column counts bytes). */
typedef struct {
    const char *file;
    int line;
    int col;
} Loc;

/* ===================================================================== diag.c */

/* Diagnostics, printed as `FILE:LINE:COL: error: MESSAGE`, then the source line
 * and a caret (language.md section 8). At most DIAG_MAX_ERRORS errors are
 * printed; after that the compilation stops with a note. */
enum { DIAG_MAX_ERRORS = 20 };

typedef struct SourceFile SourceFile;
struct SourceFile {
    const char *path;   /* as opened */
    const char *text;   /* whole contents, NUL-terminated */
    size_t len;         /* bytes, without the terminator */
    /* diag.c: the start of the line it quoted last, so that diagnostics in
     * file order find their lines in one pass (100,000 warnings took 29 s) */
    int quoted_line;    /* 0: none yet */
    size_t quoted_at;
};

typedef struct {
    FILE *out;          /* where diagnostics go (stderr, or a memory stream in tests) */
    int errors;         /* errors reported so far */
    int warnings;       /* warnings reported so far (not counting silenced ones) */
    bool werror;        /* -Werror: warnings count as errors */
    bool no_warnings;   /* -w: warnings are not printed */
    VEC(SourceFile *) sources;  /* files whose lines can be quoted */
    bool stopped;       /* the error limit was passed: the note is printed, all else is dropped */
    bool last_shown;    /* the previous error or warning was printed (its notes follow it) */
    /* the last errors and warnings shown, hashed with their place: one met again
     * (a call's argument copied into each result of a multiple assignment, checked
     * once per copy) is not shown or counted twice */
    uint64_t seen[32];
    int nseen;
} Diag;

/* An error with loc.file == NULL is printed `gtcc: error: MESSAGE` (command
 * line, I/O); with loc.line == 0, `FILE: error: MESSAGE` without a quote. */

void diag_error(Diag *d, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void diag_verror(Diag *d, Loc loc, const char *fmt, va_list ap);
void diag_warning(Diag *d, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A note attached to the previous error or warning (e.g. "declared here"). */
void diag_note(Diag *d, Loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* True once an error past the limit was reported (and the note printed in its
 * place): passes should stop early. Not before: a pass that stopped at the
 * limit itself would never report the error past it, and the note would not
 * tell the user that more errors were left unchecked. */
bool diag_full(const Diag *d);

/* ========================================================= common enumerations */

/* Scalar types, in the order of C's usual arithmetic conversions: name, and
 * bytes of one element in a storage or buffer (type_size). */
#define SCALAR_TYPES(X)        \
    X(TY_BOOL, "bool", 1)      \
    X(TY_INT, "int", 4)        \
    X(TY_FLOAT, "float", 4)    \
    X(TY_DOUBLE, "double", 8)
typedef enum {
#define X(id, name, size) id,
    SCALAR_TYPES(X)
#undef X
} Type;
extern const char *const type_names[];
extern const int type_sizes[];

/* Axes. An axis set is a bit mask: AXES_I | AXES_K is "IK". */
enum { AXIS_I = 0, AXIS_J = 1, AXIS_K = 2, NAXES = 3 };
enum { AXES_NONE = 0, AXES_I = 1, AXES_J = 2, AXES_K = 4, AXES_IJ = 3, AXES_IJK = 7 };
/* "IJK", "IJ", "" ...: a static string for a mask. */
const char *axes_name(unsigned axes);

/* C precedence levels, higher binds tighter (the order of the C standard):
 * what both printers of expressions (ir_dump.c, emit_expr.c) parenthesize by. */
enum {
    PREC_COND = 3, PREC_OR = 4, PREC_AND = 5, PREC_EQ = 9, PREC_REL = 10, PREC_ADD = 12,
    PREC_MUL = 13, PREC_UNARY = 14, PREC_PRIMARY = 16
};

/* Operators, with their C spelling and precedence. */
#define OPERATORS(X)                                                                 \
    X(OP_ADD, "+", PREC_ADD) X(OP_SUB, "-", PREC_ADD) X(OP_MUL, "*", PREC_MUL)       \
    X(OP_DIV, "/", PREC_MUL) X(OP_MOD, "%", PREC_MUL) X(OP_LT, "<", PREC_REL)        \
    X(OP_LE, "<=", PREC_REL) X(OP_GT, ">", PREC_REL) X(OP_GE, ">=", PREC_REL)        \
    X(OP_EQ, "==", PREC_EQ) X(OP_NE, "!=", PREC_EQ) X(OP_AND, "&&", PREC_AND)        \
    X(OP_OR, "||", PREC_OR) X(OP_NEG, "-", PREC_UNARY) X(OP_NOT, "!", PREC_UNARY)    \
    X(OP_PLUS, "+", PREC_UNARY)
typedef enum {
#define X(id, spelling, prec) id,
    OPERATORS(X)
#undef X
} Op;
extern const char *const op_spellings[];
extern const int op_precedence[];

/* Iteration order of a computation, with its .stn keyword. */
#define ITER_ORDERS(X)                                                               \
    X(ORDER_PARALLEL, "parallel") X(ORDER_FORWARD, "forward") X(ORDER_BACKWARD, "backward")
typedef enum {
#define X(id, name) id,
    ITER_ORDERS(X)
#undef X
} IterOrder;
extern const char *const iter_order_names[];

/* Boundary conditions (language.md section 7), with their .stn keyword. */
#define BC_KINDS(X)                                                                  \
    X(BC_NONE, "") X(BC_PERIODIC, "periodic") X(BC_DIRICHLET, "dirichlet")           \
    X(BC_NEUMANN, "neumann") X(BC_MIRROR, "mirror")
typedef enum {
#define X(id, name) id,
    BC_KINDS(X)
#undef X
} BcKind;
extern const char *const bc_kind_names[];

/* Reductions, with their .stn function name. */
#define RED_OPS(X) X(RED_SUM, "sum") X(RED_MIN, "min") X(RED_MAX, "max")
typedef enum {
#define X(id, name) id,
    RED_OPS(X)
#undef X
} RedOp;
enum {
#define X(id, name) +1
    NRED_OPS = 0 RED_OPS(X)
#undef X
};
extern const char *const red_op_names[];

/* A K level of an interval bound: `3` is {false, 3}, `end` {true, 0},
 * `end - 2` {true, -2}. */
typedef struct {
    bool from_end;
    int64_t offset;
} Level;

/* One range of a region statement as written (language.md 10.1):
 * axis(lo, hi), each bound a Level-like position (`end + 2` is {true, 2}). */
typedef struct {
    int axis;                 /* AXIS_I, AXIS_J; AXIS_K is an error of sema */
    Loc loc;
    Level lo, hi;
} RegionRange;

/* ====================================================================== AST */

typedef struct Expr Expr;
typedef struct Stmt Stmt;
typedef VEC(Expr *) ExprVec;
typedef VEC(Stmt *) StmtVec;

#define EXPR_KINDS(X)                                                              \
    X(EXPR_INT)      /* integer literal: ival */                                   \
    X(EXPR_FLOAT)    /* floating literal: fval and its spelling text */            \
    X(EXPR_BOOL)     /* true / false: bval */                                      \
    X(EXPR_ACCESS)   /* name or name[offsets]: access */                           \
    X(EXPR_UNARY)    /* op a */                                                    \
    X(EXPR_BINARY)   /* a op b */                                                  \
    X(EXPR_COND)     /* c ? a : b */                                               \
    X(EXPR_CALL)     /* name(args) or name(args, k): builtin, function, reduction */ \
    X(EXPR_INDEX)    /* index(i|j|k): index.axis */                                \
    X(EXPR_CONVERT)  /* double(e), float(e), int(e): convert */
typedef enum {
#define X(id) id,
    EXPR_KINDS(X)
#undef X
} ExprKind;

/* How an access reads along K at a level known only at run time
 * (language.md 10.3): q[k + (e)], q[k - (e)], q[k = (e)]. */
typedef enum {
    KDYN_NONE,               /* a compile-time offset */
    KDYN_ADD,                /* k + (e): relative, added */
    KDYN_SUB,                /* k - (e): relative, subtracted */
    KDYN_ABS,                /* k = (e): the absolute level e */
} KdynMode;

/* One offset of an access: u[i+1] has {AXIS_I, 1}; q[k + (n)] has
 * {AXIS_K, 0, .., KDYN_ADD, n}. */
typedef struct {
    int axis;
    int64_t value;
    Loc loc;
    KdynMode dyn_mode;       /* KDYN_NONE for a compile-time offset */
    Expr *dyn;               /* the run-time expression; NULL if none */
} Offset;

struct Expr {
    ExprKind kind;
    Loc loc;
    int depth;                   /* operators on the longest path to a leaf (parser) */
    union {
        int64_t ival;
        bool bval;
        struct {
            double value;
            const char *text;    /* the literal as written, e.g. "1e-3" */
        } flit;
        struct {
            const char *name;
            bool has_brackets;   /* written as name[...] */
            int noffsets;        /* 0 to 3, in source order */
            Offset offsets[3];
        } access;
        struct {
            Op op;
            Expr *a;
            Expr *b;             /* NULL for unary operators */
        } op;
        struct {
            Expr *cond;
            Expr *then;
            Expr *els;
        } cond;
        struct {
            const char *name;
            ExprVec args;
            bool along_k;        /* written name(e, k): a column reduction */
        } call;
        struct {
            int axis;
        } index;
        struct {
            Type type;           /* TY_INT, TY_FLOAT or TY_DOUBLE */
            Expr *a;
        } convert;
    };
};

#define STMT_KINDS(X)                                                              \
    X(STMT_DECL)     /* localdecl: decl */                                         \
    X(STMT_ASSIGN)   /* name op= value: assign */                                  \
    X(STMT_IF)       /* if (cond) then else: iff */                                \
    X(STMT_RETURN)   /* return e {, e}: ret (function bodies only) */              \
    X(STMT_MULTI)    /* a, b = f(...): multi (several targets, one call) */        \
    X(STMT_REGION)   /* region(ranges) body: region */
typedef enum {
#define X(id) id,
    STMT_KINDS(X)
#undef X
} StmtKind;

struct Stmt {
    StmtKind kind;
    Loc loc;
    union {
        struct {
            Type type;
            const char *name;
            Loc name_loc;
            bool is_field;       /* written field<T, AXES> name [= e] */
            unsigned axes;       /* AXES_IJK for `double x = e;` */
            Expr *init;          /* may be NULL for field<...> declarations */
        } decl;
        struct {
            const char *name;
            Loc name_loc;
            Op op;               /* OP_ADD for +=, ...; OP_PLUS stands for plain = */
            Expr *value;
        } assign;
        struct {
            Expr *cond;
            StmtVec then;
            StmtVec els;         /* an else-if is one STMT_IF in els */
            bool has_else;
            bool loop;           /* while (cond) then: no else */
        } iff;
        struct {
            ExprVec values;      /* one per result */
        } ret;
        struct {
            VEC(const char *) names;   /* the targets, in order (two or more) */
            VEC(Loc) name_locs;
            Expr *value;         /* the call */
        } multi;
        struct {
            VEC(RegionRange) ranges;   /* as written (sema checks the axes) */
            StmtVec body;
        } region;
    };
};

typedef struct {
    Loc loc;
    Level lo, hi;
    Loc lo_loc, hi_loc;
    StmtVec stmts;
} Interval;

typedef struct {
    Loc loc;
    IterOrder order;
    bool implicit;                /* made from top-level statements */
    VEC(Interval *) intervals;    /* textual order */
} Computation;

typedef struct {
    Loc loc;
    const char *field;
    Loc field_loc;
    unsigned axes;                /* AXES_NONE when not written: means I and J */
    BcKind kind;
    Expr *value;                  /* dirichlet(value), else NULL */
} BoundaryDecl;

typedef enum { PARAM_FIELD, PARAM_SCALAR, PARAM_OUT_SCALAR } ParamKind;

typedef struct {
    Loc loc;
    ParamKind kind;
    Type type;
    unsigned axes;                /* fields only: AXES_IJK by default */
    const char *name;
} Param;

/* One item of a stencil body, in textual order. */
typedef enum { ITEM_COMPUTATION, ITEM_BOUNDARY } BodyItemKind;
typedef struct {
    BodyItemKind kind;
    Computation *computation;     /* top-level statements arrive grouped as implicit ones */
    BoundaryDecl *boundary;
} BodyItem;

/* One pair of `iterate(next -> cur)` (language.md 11): a step writes next from cur. */
typedef struct {
    Loc loc;                      /* the '->' */
    const char *next, *cur;       /* the field a step writes, the one it reads */
    Loc next_loc, cur_loc;
} IterPair;

typedef struct {
    Loc loc;
    const char *name;
    VEC(Param *) params;
    VEC(BodyItem) body;
    VEC(IterPair *) iterate;      /* the pairs of `iterate(...)`, in order; empty without */
    Loc iterate_loc;              /* the word `iterate` */
} Stencil;

typedef struct {
    Loc loc;
    const char *name;
    VEC(const char *) params;
    VEC(Loc) param_locs;
    StmtVec body;                 /* declarations, assignments, ifs; ends with a STMT_RETURN
                                     (sema.c reports a body that does not) */
    Loc end_loc;                  /* the closing brace */
} Function;

typedef struct {
    Loc loc;
    Type type;
    const char *name;
    Expr *value;
} ConstDecl;

typedef struct Module Module;
typedef struct {
    Loc loc;
    const char *path;             /* as written */
    Module *module;               /* resolved by the import pass; NULL on error */
} Import;

/* One parsed .stn file. Declarations keep their textual order per kind. */
struct Module {
    const char *path;
    int sema_index;           /* sema.c: its index in Sema.modules plus one; 0 before */
    VEC(Import *) imports;
    VEC(ConstDecl *) consts;
    VEC(Function *) functions;
    VEC(Stencil *) stencils;
};

/* ======================================================================= IR */

/* The extent of a region relative to the compute domain, per axis:
 * [lo, hi] with lo <= 0 <= hi; {-2, 2} along I means i from -2 to NI+1. */
typedef struct {
    int64_t lo, hi;
} Range;
typedef struct {
    Range r[NAXES];
} Extent;

/* A horizontal region (language.md 10.1) restricting where a statement runs,
 * per axis I (0) and J (1): the positions p with lo <= p < hi. Nested
 * regions intersect, so each bound is the greatest (lo) or least (hi) of a
 * position counted from the domain's first point (`start`) and one counted
 * from its end (`end + end`), either of them absent. Positions are global
 * under MPI (10.7). */
typedef struct {
    bool has_start, has_end;
    int64_t start, end;
} AreaBound;
typedef struct {
    bool set[2];              /* restricted along I, J */
    AreaBound lo[2], hi[2];   /* where set */
} Area;

typedef struct IrField IrField;
typedef struct IrScalar IrScalar;
typedef struct IrExpr IrExpr;
typedef struct IrStmt IrStmt;
typedef VEC(IrStmt *) IrStmtVec;
typedef VEC(IrField *) IrFieldVec;

/* Where a temporary lives in the plan of fuse.c, with its name in the IR
 * dump. The classes are the target-neutral ones of seed 001 (register,
 * block-private buffer, global buffer, recomputed); each backend maps them
 * to its own storage (emit_openmp.c: a TILE is a per-thread ring of rows; on
 * a GPU it would be a shared-memory tile):
 *   FULL       an array over the domain grown by its alloc_halo
 *   SCALAR     a local of the loop body: read only at zero offset, in one kernel
 *   TILE       private to one cache block of its group: the block grown by its
 *              extent, the halo recomputed by each block
 *   RECOMPUTE  recomputed at each read (shifted by the read's offset) */
#define IR_TEMP_CLASSES(X)                                                           \
    X(IR_TEMP_FULL, "full") X(IR_TEMP_SCALAR, "scalar") X(IR_TEMP_TILE, "tile")      \
    X(IR_TEMP_RECOMPUTE, "recompute")
typedef enum {
#define X(id, name) id,
    IR_TEMP_CLASSES(X)
#undef X
} IrTempClass;
extern const char *const ir_temp_class_names[];

typedef enum {
    IR_PARAM_FIELD,    /* a field parameter of the stencil */
    IR_TEMP,           /* a temporary declared in the body (or a function local) */
} IrFieldKind;

/* A field parameter or a temporary. */
struct IrField {
    const char *name;         /* .stn name; temporaries from inlining get unique names */
    Loc loc;                  /* declaration */
    int id;                   /* index in IrStencil.fields */
    IrFieldKind kind;
    int param_pos;            /* position in the parameter list; -1 for temporaries */
    Type type;
    unsigned axes;
    bool is_read;             /* read somewhere (after dead-code removal) */
    bool is_written;          /* written somewhere: parameters that are written are outputs */
    bool read_at_offset;      /* read at a non-zero offset somewhere (aliasing rule) */
    bool block_local;         /* declared inside an if block: only read at zero offset */
    bool generated;           /* made by sema, not declared (region_mask, a multiple
                                 assignment's FUNCTION_TARGET): dead, it goes without a
                                 warning, since the user's dead code it follows from has one */
    bool implicit_ijk;        /* a temporary declared `T name = e`: IJK by that form */
    /* Temporaries (sema): the union of the shapes assigned so far, a read of a
     * `T t = e` temporary counted with t's value_shape rather than IJK; and
     * such a temporary, read in those values, that made them vary along an
     * axis beyond its value_shape (NULL if none). */
    unsigned value_shape;
    const IrField *implicit_via;
    bool read_at_run_time_k;  /* parameters: read at a run-time K level (language.md 10.3) */
    bool region_local;        /* block_local, in a region block (messages say so) */
    bool loop_local;          /* block_local, in a while loop's block (messages say so) */
    /* Parameters: the region read, the hull of every read (what halo the input
     * needs). Temporaries: the region where they are computed. Always contains
     * the origin; K is given relative to the intervals (see IrStencil). */
    Extent extent;
    /* Parameters: the halo a storage must have, per axis I, J, K, lower and
     * upper, both >= 0 (0 along an axis with a boundary condition). */
    int64_t halo[NAXES][2];
    /* Parameters: how far reads reach beyond the domain, per axis and side, whether a
     * boundary condition applies or not (what a distributed call exchanges; S_info's
     * reach); halo where none applies. */
    int64_t reach[NAXES][2];
    struct {
        BcKind kind;          /* BC_NONE if the axis has no boundary condition */
        double value;         /* dirichlet constant */
    } bc[NAXES];
    /* Set by fuse.c (temporaries only; IR_TEMP_FULL when no plan was made). */
    IrTempClass temp_class;
    int buffer;               /* FULL and TILE: the buffer it shares with temporaries of
                                 disjoint lifetimes (same class, type, axes); -1 otherwise */
    IrStmt *const *producer;  /* RECOMPUTE: the statements computing it, consecutive in */
    int nproducer;            /* their interval (one assignment: substituted as an expression) */
    int tile_rows;            /* TILE: rows live at once when its group runs row by row */
    /* Temporaries (extents.c): the halo of an array holding it over the whole
     * domain, per axis lower and upper, >= 0: its extent, grown along I and J
     * to every region where a statement assigns it. */
    int64_t alloc_halo[NAXES][2];
};

/* A scalar parameter: an input by value or an `out` reduction result. */
struct IrScalar {
    const char *name;
    Loc loc;
    int id;                   /* index in IrStencil.scalars */
    int param_pos;
    Type type;
    bool is_output;
};

#define IR_EXPR_KINDS(X)                                                            \
    X(IR_CONST)      /* a literal or folded constant: cnst */                       \
    X(IR_LOAD)       /* field[offset]: load */                                      \
    X(IR_SCALAR)     /* a scalar input parameter: scalar */                         \
    X(IR_UNARY)      /* op a */                                                     \
    X(IR_BINARY)     /* a op b */                                                   \
    X(IR_COND)       /* c ? a : b */                                                \
    X(IR_CALL)       /* builtin math function: call */                              \
    X(IR_INDEX)      /* index(axis): int position in the compute domain */          \
    X(IR_CAST)       /* conversion to expr->type: cast.a */                         \
    X(IR_COLREDUCE)  /* reduction of a along K over the whole column: colreduce */
typedef enum {
#define X(id) id,
    IR_EXPR_KINDS(X)
#undef X
} IrExprKind;

/* Builtin functions (language.md section 4), with their .stn names. */
#define BUILTINS(X)                                                                 \
    X(B_ABS, "abs", 1) X(B_MIN, "min", 2) X(B_MAX, "max", 2) X(B_SQRT, "sqrt", 1)   \
    X(B_CBRT, "cbrt", 1) X(B_EXP, "exp", 1) X(B_LOG, "log", 1)                      \
    X(B_LOG10, "log10", 1) X(B_POW, "pow", 2) X(B_SIN, "sin", 1)                    \
    X(B_COS, "cos", 1) X(B_TAN, "tan", 1) X(B_ASIN, "asin", 1)                      \
    X(B_ACOS, "acos", 1) X(B_ATAN, "atan", 1) X(B_ATAN2, "atan2", 2)                \
    X(B_SINH, "sinh", 1) X(B_COSH, "cosh", 1) X(B_TANH, "tanh", 1)                  \
    X(B_FLOOR, "floor", 1) X(B_CEIL, "ceil", 1) X(B_TRUNC, "trunc", 1)              \
    X(B_ROUND, "round", 1) X(B_FMOD, "fmod", 2) X(B_ISNAN, "isnan", 1)              \
    X(B_ISINF, "isinf", 1) X(B_ASINH, "asinh", 1) X(B_ACOSH, "acosh", 1)            \
    X(B_ATANH, "atanh", 1) X(B_ERF, "erf", 1) X(B_ERFC, "erfc", 1)                  \
    X(B_TGAMMA, "tgamma", 1) X(B_LGAMMA, "lgamma", 1) X(B_EXP2, "exp2", 1)          \
    X(B_LOG2, "log2", 1) X(B_EXPM1, "expm1", 1) X(B_LOG1P, "log1p", 1)              \
    X(B_ISFINITE, "isfinite", 1) X(B_HYPOT, "hypot", 2) X(B_COPYSIGN, "copysign", 2)
typedef enum {
#define X(id, name, nargs) id,
    BUILTINS(X)
#undef X
    NBUILTINS
} Builtin;
extern const char *const builtin_names[];
extern const int builtin_nargs[];

struct IrExpr {
    IrExprKind kind;
    Type type;                /* after conversions: the type this expression yields */
    unsigned shape;           /* axes it varies along */
    Loc loc;
    union {
        struct {
            int64_t i;        /* TY_INT, TY_BOOL */
            double d;         /* TY_FLOAT, TY_DOUBLE */
        } cnst;
        struct {
            IrField *field;
            int64_t offset[NAXES];   /* 0 along axes the field lacks */
            /* A read at a run-time K level (language.md 10.3): the level is
             * k + offset[K] + klevel (KDYN_ADD), k + offset[K] - klevel
             * (KDYN_SUB) or offset[K] + klevel (KDYN_ABS: offset[K] is a
             * shift of the level a function parameter adds, never moved
             * by shifting the point); klevel is an int expression
             * evaluated at the point. KDYN_NONE: NULL. */
            KdynMode kmode;
            IrExpr *klevel;
            /* a function's parameter read at a horizontal offset that moved this
             * load: that read (the innermost such), its function; file NULL if none */
            Loc via;
            const char *via_fn;
        } load;
        IrScalar *scalar;
        struct {
            Op op;
            IrExpr *a;
            IrExpr *b;        /* NULL for unary */
        } op;
        struct {
            IrExpr *cond;
            IrExpr *then;
            IrExpr *els;
        } cond;
        struct {
            Builtin fn;
            IrExpr *args[2];
            int nargs;
        } call;
        int index_axis;
        struct {
            IrExpr *a;
        } cast;
        struct {
            RedOp op;
            IrExpr *a;        /* has K in its shape; the result has not */
        } colreduce;
    };
};

#define IR_STMT_KINDS(X)                                                            \
    X(IR_ASSIGN)     /* dst = value at zero offset: assign */                       \
    X(IR_IF)         /* masked branches, or a while loop: iff */                    \
    X(IR_REDUCE)     /* out scalar = sum/min/max(value) over the region: reduce */
typedef enum {
#define X(id) id,
    IR_STMT_KINDS(X)
#undef X
} IrStmtKind;

struct IrStmt {
    IrStmtKind kind;
    Loc loc;
    /* The horizontal region (I and J ranges of the extent) where the statement
     * runs; its K range is its interval's. K of `region` is unused ({0,0}). */
    Extent region;
    /* Where a region statement restricts it to (nothing set: no region); a
     * statement nested in an `if` has the `if`'s (sema.c). */
    Area area;
    union {
        struct {
            IrField *dst;
            IrExpr *value;    /* converted to dst->type */
        } assign;
        struct {
            IrExpr *cond;
            IrStmtVec then;
            IrStmtVec els;
            bool loop;        /* a while loop (then repeats while cond holds; no else) */
            /* sema.c split_if: the source `if` (holding regions) this one is a piece of,
               NULL for none. Its pieces are consecutive, those of its then branch (then
               only) before those of its else branch (els only): access.c joins what the
               two groups write as it joins an if's branches. */
            const struct IrStmt *split_of;
        } iff;
        struct {
            IrScalar *dst;
            RedOp op;
            IrExpr *value;
        } reduce;
    };
};

/* A fused loop nest (fuse.c): top-level statements [first, first + count) of
 * an interval, run point by point in one loop nest. Kernels of one interval
 * with the same group run inside one cache-blocked loop (parallel
 * computations), row by row: at each row step t of a block, each kernel in
 * turn computes its row t - lag (lag >= 0, the rows it must trail the
 * kernels before it by to find what they write, and to read what they
 * overwrite before they do). */
/* A parameter field a group stages in shared memory at each level (fuse.c, where the
 * backend asks for it: PlanParams.stage_min_offsets): every point of the box the group's
 * kernels read it over, loaded once per level, then read from there. The box is
 * [block origin + lo, block end + hi) along I (a = 0) and J (a = 1), w x h elements, which
 * the block's threads load in `loads` passes (each thread at most one point a pass). */
typedef struct {
    int field;
    int64_t lo[2], hi[2];
    int64_t w, h, bytes;
    int64_t loads;
} IrStage;

typedef struct {
    int first, count;
    int group;
    int lag;
    unsigned axes;            /* the axes its loop nest runs over (its statements', alike:
                                 ir_stmt_axes) */
    /* It writes only tiles, scalars and recomputed temporaries: a cache block runs it
     * over the block grown by its region, redundantly with its neighbours
     * (else over its share of the region, a partition). */
    bool redundant;
    const IrStmt *reduce;     /* its full reduction, NULL if none (a reduction is a
                                 kernel of its own) */
    /* The tiles its group accesses as planned (field ids, increasing; the
     * same list on every kernel of the group; a tile lives in one group). */
    const int *tiles;
    int ntiles;
    /* What its group uses (the same on every kernel of the group): its tiles'
     * bytes over one block (plan_tile_bytes with the plan's parameters: a
     * cuda kernel's shared memory), and per point the bytes of the planes it
     * keeps live from one level to the next (per field accessed at more than
     * one K offset outside column reductions, the element size times the
     * levels from the lowest offset to the highest: gt__blocks sizes the
     * openmp backend's blocks by it). */
    int64_t tile_bytes;
    int64_t plane_bytes;
    /* The fields its group stages in shared memory (the same on every kernel of the
     * group; field ids increasing): a three-dimensional group of a parallel interval with
     * tiles, a parameter it only reads, at level k, at no fewer horizontal offsets than
     * PlanParams.stage_min_offsets, without a boundary condition; within the group's
     * shared-memory budget beside its tiles. */
    const IrStage *stages;
    int nstages;
} IrKernel;

typedef struct {
    Loc loc;
    Level lo, hi;             /* half-open [lo, hi) */
    IrStmtVec stmts;
    VEC(IrKernel) kernels;    /* fuse.c; empty when no plan was made */
} IrInterval;

/* One k-cached field of a forward/backward computation. */
typedef struct {
    IrField *field;
    int depth;                /* levels carried, 1 .. IR_KCACHE_MAX */
} IrKCache;

enum { IR_KCACHE_MAX = 4 };

typedef struct {
    Loc loc;
    IterOrder order;
    /* In execution order: increasing lo for parallel and forward, decreasing
     * for backward. Intervals do not overlap. */
    VEC(IrInterval *) intervals;
    /* fuse.c, forward/backward only: no statement reads a field written here at a
     * horizontal offset, so each column can run all its levels on its own. */
    bool columnar;
    /* fuse.c: consecutive columnar computations with the same number run in
     * one loop over column blocks, each column through all of them in turn
     * (no statement of the group reads at a horizontal offset a field the
     * group writes); -1 when not columnar. */
    int column_group;
    /* fuse.c, columnar only: the k-cache, fields written here whose values at
     * the levels just computed are read back (forward: k-1 .. k-depth;
     * backward: k+1 .. k+depth, at zero horizontal offset). A backend running
     * one column at a time carries them in locals instead of reloading. */
    VEC(IrKCache) kcache;
} IrComputation;

/* One parameter, in declaration order: a field or a scalar. */
typedef struct {
    bool is_field;
    IrField *field;
    IrScalar *scalar;
} IrParam;

/* One pair of `iterate(next -> cur)` (language.md 11): a step writes next from cur, and
 * the next step reads as cur what this one wrote. */
typedef struct {
    IrField *next, *cur;      /* field parameters */
    Loc loc;                  /* the pair's '->' */
} IrPair;

typedef struct {
    const char *name;
    Loc loc;
    VEC(IrParam) params;             /* in declaration order */
    VEC(IrPair) pairs;               /* iterate's pairs, in order (sema.c); empty without */
    VEC(IrField *) fields;           /* parameters first (parameter order), then temporaries */
    VEC(IrScalar *) scalars;         /* in parameter order */
    VEC(IrComputation *) computations;  /* in execution order */
    /* The smallest NK for which every interval bound is a valid level
     * (0 <= lo <= hi <= NK); the generated code rejects a smaller domain. */
    int64_t min_nk;
    /* sema.c: lowered without errors (the access rules and the later passes
     * may assume every rule sema checks holds) */
    bool complete;
    /* fuse.c: kernels and temporary classes are planned; false when the
     * stencil uses a construct the plan does not cover (the backend then
     * emits that stencil's unfused, naive code; `why` says what, at
     * `not_fused_loc`, and fuse.c warns). */
    bool fused;
    const char *not_fused_why;
    Loc not_fused_loc;
} IrStencil;

typedef struct {
    VEC(IrStencil *) stencils;       /* stencils of the file named on the command line */
} Ir;

/* ========================================================== compilation context */

typedef enum { EMIT_C, EMIT_IR, EMIT_META, EMIT_FORTRAN } EmitKind;

typedef struct {
    const char *name;                /* NAME of -D NAME=VALUE */
    const char *value;
    bool used;                       /* matched a const of the program */
} Define;

/* What the command line asked for. */
typedef struct {
    const char *input;               /* FILE.stn */
    const char *output;              /* -o; NULL: derived from input */
    const char *backend;             /* "naive", "openmp" (default), "cuda" */
    EmitKind emit;
    VEC(const char *) include_dirs;  /* -I, in order */
    VEC(Define) defines;             /* -D */
    bool dep_M, dep_MD;              /* -M: deps to stdout and nothing else; -MD: deps beside */
    const char *dep_file;            /* -MF */
    const char *dep_target;          /* -MT and -MQ (quoted), in order */
    const char *prefix;              /* -P: prepended to every exported name; "" for none */
} Options;

typedef struct Sema Sema;           /* the state of the semantic passes (sema.h) */

/* One compilation: the arena everything lives in, diagnostics, and the
 * results of each stage. */
typedef struct {
    Arena *arena;
    Options opts;
    Diag diag;
    Module *main;                    /* the module of opts.input */
    VEC(Module *) modules;           /* every module read, imports included */
    Sema *sema;                      /* sema_check_program: what the stencils are lowered with */
    Ir *ir;
} Compiler;

/* ================================================================== passes
 * In pipeline order. Each section belongs to one file; the driver
 * (driver.c: gtcc_compile) calls them as one flat list. */

/* --- compiler.c: the compilation context */
Compiler *compiler_new(FILE *diag_out);
void compiler_free(Compiler *c);

/* --- parse.c (with grammar/stencil.l, grammar/stencil.y): reads and parses
 * one file into a Module; reports syntax errors; NULL if it cannot be read
 * (reported at `from`, or as a command-line error when from.file is NULL). */
Module *parse_file(Compiler *c, const char *path, Loc from);
Module *parse_string(Compiler *c, const char *name, const char *text);

/* --- import.c: resolves the imports of c->main recursively (relative to the
 * importing file, then each -I directory), reports cycles, fills c->modules.
 * c->modules lists each file once, imports before the files that import
 * them (c->main last); a file imported twice, by any path, is read once. */
void import_resolve(Compiler *c);

/* --- sema.c, inline.c, fold.c, shapes.c: checks every rule of language.md,
 * inlines functions, folds constants and dead branches, computes types and
 * shapes, and lowers the stencils of c->main to IR (c->ir), one by one. */
/* The names of every module, the functions (once each, on their own) and
 * the consts (with -D); starts c->ir. */
void sema_check_program(Compiler *c);
/* Lowers stencil i of c->main, appends it to c->ir and returns it
 * (IrStencil.complete: without errors). */
IrStencil *sema_lower_stencil(Compiler *c, int i);
/* sema.c: gives the temporaries of each stencil names unique in it (two if
 * blocks may each declare a `t`: the later one becomes t_2), after the
 * access rules have reported errors with the names as written. */
void sema_unique_names(Compiler *c);

/* Their internal interface (the state they share, and the functions they
 * call across files) is compiler/sema.h, for those four files only. */

/* ir.c: constructors (type given, shape from the operands) and helpers. */
IrExpr *ir_const_int(Arena *a, Loc loc, Type type, int64_t value);   /* int or bool */
IrExpr *ir_const_real(Arena *a, Loc loc, Type type, double value);   /* float or double */
IrExpr *ir_load(Arena *a, Loc loc, IrField *field, const int64_t offset[NAXES]);
IrExpr *ir_scalar_ref(Arena *a, Loc loc, IrScalar *scalar);
IrExpr *ir_unary(Arena *a, Loc loc, Op op, Type type, IrExpr *x);
IrExpr *ir_binary(Arena *a, Loc loc, Op op, Type type, IrExpr *x, IrExpr *y);
IrExpr *ir_cond(Arena *a, Loc loc, Type type, IrExpr *c, IrExpr *x, IrExpr *y);
IrExpr *ir_call(Arena *a, Loc loc, Builtin fn, Type type, IrExpr *const *args, int nargs);
IrExpr *ir_index(Arena *a, Loc loc, int axis);
IrExpr *ir_cast(Arena *a, IrExpr *x, Type type);    /* x itself when already of type */
IrExpr *ir_colreduce(Arena *a, Loc loc, RedOp op, IrExpr *x);
IrStmt *ir_stmt_new(Arena *a, IrStmtKind kind, Loc loc);
/* A deep copy of e (the IR stays a tree: passes may rewrite nodes in place). */
IrExpr *ir_copy(Arena *a, const IrExpr *e);
size_t ir_expr_size(const IrExpr *e);
/* The one walker of expressions: the operands of e, in evaluation order, into
 * out; returns how many (0 to 3). ir_expr_slots gives where e holds them, for
 * passes that replace operands. */
int ir_expr_children(const IrExpr *e, IrExpr *out[3]);
int ir_expr_slots(IrExpr *e, IrExpr **slot[3]);
/* a and b are the same expression (the same tree: kinds, types, operators,
 * fields and offsets, constants' bits), so they have the same value at every
 * point (expressions have no side effects). */
bool ir_expr_equal(const IrExpr *a, const IrExpr *b);
/* True if e or one of its subexpressions is of kind k. */
bool ir_expr_has(const IrExpr *e, IrExprKind k);
/* True if e loads f somewhere, at any offset. */
bool ir_reads_field(const IrExpr *e, const IrField *f);
/* Does e read a field at a run-time K level (IrExpr.load.klevel)? */
bool ir_expr_has_kdyn(const IrExpr *e);
/* Calls fn on every load of e; in_column: inside a column reduction. */
typedef void IrLoadFn(void *ctx, IrExpr *load, bool in_column);
void ir_for_each_load(IrExpr *e, IrLoadFn *fn, void *ctx);
/* The one pre-order walker of IR statements, for queries and collectors:
 * ir_walk_stmt calls fn on s, then, unless fn said IR_WALK_SKIP, on the
 * statements nested in s in program order (an if's then and else branches, a
 * while loop's body). IR_WALK_STOP ends the whole walk, which then returns
 * false; true when it ran to the end. */
typedef enum { IR_WALK_ON, IR_WALK_SKIP, IR_WALK_STOP } IrWalk;
typedef IrWalk IrStmtFn(void *ctx, const IrStmt *s);
bool ir_walk_stmt(const IrStmt *s, IrStmtFn *fn, void *ctx);
bool ir_walk_stmts(const IrStmtVec *v, IrStmtFn *fn, void *ctx);
/* The same for expressions: fn on e, then (unless IR_WALK_SKIP) on its
 * operands in evaluation order (ir_expr_children), pre-order. */
typedef IrWalk IrExprFn(void *ctx, const IrExpr *e);
bool ir_walk_expr(const IrExpr *e, IrExprFn *fn, void *ctx);
/* The expression s itself evaluates (not those nested in it): an
 * assignment's or a reduction's value, an if's or a while's condition. */
IrExpr *ir_stmt_expr(const IrStmt *s);
/* Appends to out the destination of every assignment in v, nested ones too,
 * in program order (a field assigned twice appears twice). */
void ir_collect_writes(Arena *a, const IrStmtVec *v, IrFieldVec *out);
/* The axes a statement's loop nest runs over: what its destinations and
 * expressions vary along (all three for a full reduction). */
unsigned ir_stmt_axes(const IrStmt *s);
static inline bool type_is_floating(Type t) { return t == TY_FLOAT || t == TY_DOUBLE; }
/* Bytes of one element of type t in a storage or buffer (SCALAR_TYPES). */
static inline int64_t type_size(Type t) { return type_sizes[t]; }
/* Levels compared for a large NK: every start-relative level is below every
 * end-relative one. Returns <0, 0 or >0. */
int level_cmp(Level a, Level b);
/* The NK that makes a <= b hold (0 when it holds for every NK). */
int64_t level_min_nk(Level a, Level b);
/* "i+1, k-1" for the non-zero parts of an offset, "zero offset" if none: into
 * buf, which is returned. */
const char *ir_offset_text(char buf[96], const int64_t off[NAXES]);
/* "3", "end", "end-2", "-1", "end+1": into buf, which is returned. */
const char *level_text(char buf[32], Level l);
extern const Extent extent_zero;
/* Grows e to contain region + offset, along the axes in `axes` only. */
void extent_add(Extent *e, const Extent *region, const int64_t offset[NAXES], unsigned axes);
bool extent_equal(const Extent *a, const Extent *b);
/* Regions (Area) of statements: restricted along some axis; equal; a
 * intersected with b, into a. */
bool area_any(const Area *a);
bool area_equal(const Area *a, const Area *b);
void area_intersect(Area *a, const Area *b);
/* Do s and every statement nested in it run in region a? (sema.c splits an
 * `if` whose statements do not; fuse.c fuses an `if` or a loop as one unit.) */
bool ir_stmt_in_area(const IrStmt *s, const Area *a);
/* Along axis ax, is a empty for every domain size n >= 1 when the statement
 * runs on [lo, n + hi) (lo = INT64_MIN, hi = INT64_MAX: unbounded there)? */
bool area_never(const Area *a, int ax, int64_t lo, int64_t hi);
/* `i(0, 1), j(end - 1, end)`, with max(...)/min(...) for bounds that
 * intersect both kinds: into buf (size n), which is returned. */
const char *area_text(char *buf, size_t n, const Area *a);

/* --- access.c: checks the access rules (language.md sections 5 and 6) on
 * the IR of st if sema lowered it completely; reports, changes nothing. */
void access_check(Compiler *c, IrStencil *st);

/* --- extents.c: extents of temporaries, halos of fields, regions of
 * statements; removes (with a warning) what no output depends on. */
void ext_compute(Compiler *c);

/* --- fuse.c (the plan) and plan.c (what it means): compiler/plan.h, for
 * the planner, the backends and the IR dump. */
typedef struct PlanParams PlanParams;

/* --- ir_dump.c: the stable text form of the IR (--emit=ir), with the plan
 * lines of backend b (NULL: none). */
typedef struct Backend Backend;   /* below */
void ir_dump(FILE *out, const Ir *ir, const Backend *b);

/* --- backends (emit_*.c) behind one interface, a table of parameters and
 * hooks (QBE's struct Target). A backend is its emitter file: it fills a
 * Backend, writes one stencil's function with the kit of emit.h, and asks
 * the plan through plan.c; emit_files (emit_abi.c) does the rest, alike for
 * every backend: names, header, source prologue, the stencils in order,
 * the files. */
typedef struct Out Out;                   /* emit.h */
typedef struct EmitStencil EmitStencil;   /* emit.h */
struct Backend {
    const char *name;         /* -b NAME */
    const char *suffix;       /* of the source file: ".c" or ".cu" */
    bool cxx;                 /* the source is compiled as C++ (nvcc) */
    /* the plan it follows: the driver runs fuse_plan with it before emit;
     * NULL: no plan */
    const PlanParams *plan;
    /* Writes what the source needs once, after its includes; NULL: nothing. */
    void (*preamble)(Compiler *c, Out *o);
    /* Writes one stencil's S_info and function into o. */
    void (*stencil)(Compiler *c, Out *o, EmitStencil *es);
    /* The backend whose stencil hook writes a stencil the plan could not
     * fuse (IrStencil.fused false; fuse.c warned); NULL: every stencil is
     * this backend's own. */
    const Backend *fallback;
    /* Writes the backend's own plan lines (how it runs fuse.c's plan) after
     * the plan in --emit=ir, for a fused stencil; NULL: none. */
    void (*dump_plan)(FILE *out, const IrStencil *st);
    /* The files it writes besides the source and the header (a wrapper's
     * module, say): their suffixes, NULL-terminated, each file named as the
     * source with its suffix replaced; extra writes them all, files[i] for
     * extra_suffixes[i], given the base names of the source and the header.
     * The driver commits them with the source and header, all or none
     * (driver_write_files). NULL: none. */
    const char *const *extra_suffixes;
    bool (*extra)(Compiler *c, FILE *const *files, const char *src_name, const char *hdr_name);
    /* Its stencil functions bind their storages on the device (S_steps' copies run there). */
    bool device;
    /* Writes S_steps of a stencil with iterate (language.md 11) after S; NULL: the loop
       of single steps (emit_steps_loop), the definition. */
    void (*steps)(Compiler *c, Out *o, EmitStencil *es);
    /* How it runs those steps, for --emit=ir's `steps` line; NULL: "loop of single steps". */
    const char *steps_plan;
    /* Whether its S_steps of st is time-tiled (S_info's tiles_time: 0 no, 1 parts of rows,
       2 parts that may cut the levels as well), and the `steps` line then (with the
       levels' line added for 2); NULL: never. */
    int (*steps_tiled)(const IrStencil *st);
    const char *steps_tiled_plan;
    const char *steps_tiled_levels;
};
/* The whole output of backend b for c->ir: the source (src_path, for its #line
 * directives) and the header (named hdr_name, for the #include); false after
 * reporting an error. */
bool emit_files(Compiler *c, const Backend *b, FILE *src, const char *src_path, FILE *hdr,
                const char *hdr_name);
/* --- emit_meta.c: `--emit=meta`, the JSON description of the program's stencils
 * (docs/generated-api.md); false (reported) where naming fails. */
bool emit_meta(Compiler *c, FILE *f);
/* --- emit_fortran.c: `--emit=fortran`, the Fortran module wrapping the program's stencils
 * (docs/fortran.md), written whole to path; the exit status (0, 1 or 2). */
int emit_fortran(Compiler *c, const char *path);
/* The module's name: PREFIX, the input's base name without .stn, `_gt` (lower case, other
 * characters than letters, digits and '_' as '_'). */
const char *emit_fortran_module(Compiler *c);
/* backends.c: the backend named NAME on the command line (NULL: no such
 * name); backend_available: it is built (a known name may not be yet). */
const Backend *backend_find(const char *name);
bool backend_available(const Backend *b);
/* Every backend name, in table order, separated by sep and the last one by
 * last_sep ("naive, openmp or cuda"), the default one followed by
 * " (default)" if mark_default. */
const char *backend_list(Arena *arena, const char *sep, const char *last_sep,
                         bool mark_default);
extern const Backend *const backend_default;
/* The naive backend, the fallback of the others (emit_naive.c); the table
 * of backends.c declares every backend. */
extern const Backend backend_naive;

/* --- depfile.c: -M, -MD (-MMD), -MF, -MT, -MQ (-MP). Writes the make rule `TARGET: MAIN
 * IMPORTS...` and an empty rule per import (like GCC's -MP): to stdout for
 * -M (or the -MF file), to the -MF file or OUTPUT.d for -MD. target is the
 * generated source's path, used unless -MT names one. False after an I/O
 * error (reported). */
bool depfile_write(Compiler *c, const char *target);
/* The rule alone, written to out. */
void depfile_rule(Compiler *c, FILE *out, const char *target);
/* path with make's special characters escaped (a space, '#', '$'), as in the rule. */
const char *depfile_quote(Arena *arena, const char *path);
/* Where -MD writes the rule: the -MF file, or target with suffix .d. */
const char *depfile_path(Compiler *c, const char *target);

/* --- driver.c: the whole pipeline for the options in c->opts; returns the
 * exit status (0 ok, 1 errors in the program, 2 command line or I/O). */
int gtcc_compile(Compiler *c);
/* The generated source: -o, or FILE.c / FILE.cu in the current directory. */
const char *driver_output_path(Compiler *c);
/* path with its suffix (if any) replaced by suffix: "out/x.c" -> "out/x.h". */
const char *driver_sibling_path(Compiler *c, const char *path, const char *suffix);
/* Is path (an output) the input or an imported file? Reports it (status 2). */
bool driver_program_file(Compiler *c, const char *path);
/* An output file written atomically: to a temporary file beside path,
 * renamed onto path by outfile_commit, removed by outfile_discard (and if a
 * signal ends gtcc). Where path is a symbolic link to a file, the file is
 * replaced and the link kept; where it is a device or a FIFO (-o /dev/null,
 * -MF /dev/stdout), the text is kept in memory and written into it by
 * outfile_commit, never renamed over it (a descriptor's name, /dev/stdout or
 * /dev/fd/N, is written through that descriptor, whatever file it reaches). open
 * and commit report their errors (gtcc: error: ...) and return false; commit
 * after a failure discards. */
typedef struct {
    const char *path;       /* the final name */
    const char *dest;       /* the file renamed onto: path, or the file its link names */
    char *tmp;              /* the temporary file; NULL once committed or discarded */
    FILE *f;                /* where to write */
    bool in_place;          /* path is not a regular file (or is fd's name): f writes to mem */
    int fd;                 /* the open descriptor path names (/dev/stdout), or -1 */
    char *mem;
    size_t mem_len;
} OutFile;
bool outfile_open(Compiler *c, OutFile *out, const char *path);
bool outfile_commit(Compiler *c, OutFile *out);
void outfile_discard(OutFile *out);
/* Writes n files all or none: a temporary beside each of paths (all
 * distinct), write(c, files, ctx) with their FILE *s in order, then each
 * renamed onto its path in order, the last one last; with -MD the
 * dependency file is one more, after them (distinct from them too); if write fails or
 * reports an error, or a file cannot be made, closed or renamed, none of the
 * paths is left changed (devices and FIFOs are written first; the renamed ones are
 * removed). None may be the input or an imported file. Returns 0, 1 (errors
 * in the program, reported by write) or 2 (I/O, reported). */
typedef bool OutWriter(Compiler *c, FILE *const *files, void *ctx);
int driver_write_files(Compiler *c, const char *const *paths, int n, OutWriter *write,
                       void *ctx);
/* options.c: command-line parsing (main.c only calls it), reusable by tests:
 * fills opts; returns 0, 2 after printing a usage error, or -1 after printing
 * --help or --version (nothing left to do: exit status 0). */
int options_parse(Compiler *c, int argc, char **argv);

#endif /* GTCC_H */
