/* emit.h: the C-emission kit, the private interface of the backends
 * (emit_*.c). A backend writes only its own emitter (emit_naive.c,
 * emit_openmp.c) on top of these, by concern:
 *
 *   emit_out.c    generated text in memory, blocks (the indentation), #line
 *                 directives
 *   emit_names.c  C names of a stencil's fields, scalars and locals
 *   emit_expr.c   C types, constants, expressions, reads with boundary
 *                 conditions, column reductions, reduction updates
 *   emit_abi.c    the generated API: header, S_info, signature, gt__bind
 *                 prologue, the function frame, the files of a compilation
 *
 * The plan a backend follows is asked through plan.c (gtcc.h). */
#ifndef GTCC_EMIT_H
#define GTCC_EMIT_H

#include "gtcc.h"
#include "plan.h"


/* Generated text in memory, with the line count that #line directives need.
 * Lines that carry .stn code are preceded by `#line N "FILE.stn"`; the next
 * line of generated scaffolding switches back with `#line L "name"`. */
struct Out {
    char *buf;                /* malloc'd text (not NUL-terminated) */
    size_t len, cap;
    int line;                 /* complete lines written so far */
    int indent;               /* indentation of the next line, in steps of 4 spaces
                                 (emit_out.c's: changed only by the block functions) */
    const char *name;         /* this file's base name, for its first comment */
    const char *line_name;    /* its path as gtcc was told it (-o), for #line back to
                                 it; NULL: name */
    const char *stn_file;     /* while lines map to .stn code: its file; else NULL */
    int stn_next;             /* the .stn line the next output line would get */
    bool classifies;          /* isnan, isinf or isfinite written: emit_finish adds the
                                 guard against -ffast-math, which compiles them away */
};
void emit_text(Out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A place in the text to go back to (emit_rewind drops what was written since,
 * a block opened since included). */
typedef struct {
    size_t len;
    int line, indent, stn_next;
    const char *stn_file;
} OutMark;
OutMark emit_mark(const Out *o);
void emit_rewind(Out *o, OutMark m);
/* A whole line of scaffolding, indented, newline added. */
void emit_line(Out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Blocks: the only way the indentation changes. emit_open writes a block's
 * opening line (ending in `{`; or a `for (...)`, `if (...)` or `case N:`
 * over unbraced statements) and indents the lines after it; emit_close ends
 * a braced block with `}`, emit_close_with with another line (`};`),
 * emit_dedent an unbraced one. */
void emit_open(Out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void emit_close(Out *o);
void emit_close_with(Out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A line one step out between two indented parts of a block (a label:
 * `done:`); emit_else: `} else {`. */
void emit_reopen(Out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void emit_else(Out *o);
/* Ends an opening line built with emit_begin_line (emit_begin_stn_line)
 * and emit_text, and indents the lines after it: emit_open's line. */
void emit_end_open(Out *o);
/* Indentation without an opening line: continuation lines (a parameter
 * list's, two steps in). */
void emit_indent(Out *o);
void emit_dedent(Out *o);
/* The column where the current indentation puts a line's text (what a
 * continuation line aligned with it needs). */
int emit_column(const Out *o);
/* A preprocessor line (#define, #undef) in column 0, whatever the
 * indentation; emit_begin_directive begins one for emit_text. */
void emit_directive(Out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void emit_begin_directive(Out *o);
void emit_blank(Out *o);
/* A block comment of text's lines (separated by '\n'): the first after the
 * comment's opening, the others after ` * ` (an empty one: ` *`), the last
 * one closing it. */
void emit_comment(Out *o, const char *text);
/* Starts a line (indentation) of scaffolding / of .stn code from loc; the
 * caller writes it with emit_text and ends it with emit_end_line. */
void emit_begin_line(Out *o);
void emit_begin_stn_line(Out *o, Loc loc);
void emit_end_line(Out *o);
/* s as the inside of a C string literal: quotes, backslashes and
 * unprintable bytes escaped. */
void emit_quoted(Out *o, const char *s);
/* The text of scratch output t as a string in arena; t is freed (emptied). */
const char *emit_out_string(Arena *arena, Out *t);
/* Writes the text to f and frees it; false on an I/O error, errno saying why (not reported:
   driver_write_files names the file). */
bool emit_flush(Out *o, FILE *f);

/* C names. A .stn name keeps its spelling unless it is a C keyword, a name
 * the generated code uses (C library, runtime, locals) or ends with '_': then
 * '_' is appended. A name already taken gets a numeric suffix. */
typedef struct NameSet NameSet;
struct NameSet {
    VEC(const char *) list;   /* the names, in the order they were taken */
    NameMap *taken;           /* the same names, for lookup; NULL while empty */
    const NameSet *parent;    /* names taken too (a stencil's: the file's globals), shared
                                 rather than copied; NULL for none */
    NameMap *numbered;        /* per wanted name, the last N of want_N taken: the next
                                 search starts there (20000 masks took 10^8 tries) */
};
/* Takes name in set (already taken or not). */
void emit_take(Arena *arena, NameSet *set, const char *name);
bool emit_is_reserved(const char *name);
/* A function of the C library (ISO C or POSIX) that the generated code does not declare: a
 * stencil of that name is a warning. */
bool emit_libc_name(const char *name);
/* want itself, or want_2, want_3, ... : the first not in set; adds it. A
 * reserved want (`gt_storage`, made from a temporary `gt`) gets a '_' first. */
const char *emit_unique(Arena *arena, NameSet *set, const char *want);
const char *emit_user_name(Arena *arena, NameSet *set, const char *stn_name);

/* The C names of one stencil's function (all per-id arrays are indexed by
 * IrField.id / IrScalar.id). */
struct EmitStencil {
    const IrStencil *st;
    Arena *arena;
    NameSet names;
    const char *fn;           /* the stencil function: S, or PREFIXS with -P */
    const char *info;         /* S_info (PREFIXS_info with -P) */
    /* a stencil with iterate (language.md 11): S_steps, its static pair table, the static
       step function gt__steps calls, the struct of its scalars, and its locals; NULL
       without iterate */
    const char *steps, *pairs, *step, *step_args, *nsteps, *steps_scalars, *steps_fields;
    const char *tiles;        /* S_steps' parallel loop over parts (time-tiled: openmp) */
    int tiles_time;           /* the backend's S_steps tiles time (S_info's tiles_time: 0,
                                 1, or 2 where its parts may cut the levels) */
    const char *table;        /* its field table: S_fields, or numbered if a stencil has it */
    int nfield_params;        /* field parameters, in parameter order, first in st->fields */
    const char **field;       /* per field: the parameter (gt_storage *) or the temporary */
    const char **data;        /* per field: pointer to the element at the domain origin */
    const char **stride;      /* per field: its strides along I, J, K */
    const char **storage;     /* temporaries: their gt_storage * */
    const char **scalar;      /* per scalar parameter */
    const char **acc;         /* out scalars: the local accumulator */
    const char *domain, *size, *ni, *nj, *nk, *args, *offsets, *bound, *rc;
    const char *bind;         /* the runtime's binding call: gt__bind, or gt__bind_device */
    /* where the domain lies in the global domain (gt__place, language.md section 10.7) */
    const char *place;        /* the gt_place local */
    const char *scalars;      /* the gt__scalar array of its scalar arguments, which a
                                 distributed call's ranks compare (NULL: it has none) */
    bool placed;              /* the code reads its bounds or origin (boundary conditions
                                 along I or J, index(i), index(j), regions): the locals below */
    const char *lo[NAXES], *hi[NAXES];  /* the global domain [lo, hi) in positions of the
                                 domain along I and J; "0" and nk along K */
    const char *wrap[2];      /* periodic bcs wrap within the domain (1) or read the halo */
    const char *origin[2];    /* index(i), index(j) of the domain's first point */
    bool cxx;                 /* the source is C++ (CUDA): void pointers are cast */
    const char *index_type;   /* the type of the levels the kit loops over (NULL: int64_t;
                                 the cuda backend's kernels: their index type) */
    /* the locals of column reductions, in the order they were named */
    VEC(struct EmitColumn { const IrExpr *expr; const char *name; }) columns;
    bool device;              /* the code runs in device kernels (the cuda backend's) */
    struct EmitKdyn *kdyn;    /* the reads at run-time K levels (emit_kcheck.c), or NULL */
    const char *kgo;          /* while emitting a while loop holding reads checked as they
                                 read: the address of the flag a failed read clears to end
                                 the loop at its point (NULL elsewhere) */
};
/* S_steps of a stencil with iterate (emit_abi.c): its signature (as S's, with
 * `int64_t nsteps` before the domain), and its definition after S's as a loop of single
 * steps (gt__steps; device: S binds its storages on the device). */
void emit_steps_signature(Out *o, const EmitStencil *es);
void emit_steps_loop(Out *o, const EmitStencil *es, bool device);
/* The same, calling gt__steps_tiled with the parallel loop named tiles (emitted by the
   caller; NULL: emit_steps_loop). */
void emit_steps_call(Out *o, const EmitStencil *es, bool device, const char *tiles);

/* Names a stencil: user names first, then generated ones. `globals` holds the
 * file's global names (every stencil S and S_info, after `prefix`: -P). */
void emit_name_stencil(EmitStencil *es, Arena *arena, const NameSet *globals,
                       const IrStencil *st, const char *prefix);

/* Generated index and bound expressions are values, not text: a term plus a
 * constant (`0`, `3`, `nk`, `ib - 1`, `gt_clamp(k + 1, nk) - ib`), where the
 * term is a variable's name or a C expression of known precedence. The
 * emitters build them, add constants, test and compare them as values, and
 * print them with emit_val_print, which adds the parentheses that precedence
 * needs; nothing reads the printed text back. A zero EmitVal is no value. */
typedef struct {
    enum { EV_NONE, EV_CONST, EV_NAME, EV_TERM } kind;
    const char *term;         /* EV_NAME: the name; EV_TERM: the C expression */
    int prec;                 /* EV_TERM: the term's C precedence (PREC_PRIMARY: a call) */
    int64_t k;                /* the constant added (EV_CONST: the value) */
} EmitVal;
EmitVal emit_val_const(int64_t k);
EmitVal emit_val_name(const char *name);
/* The C expression text, of precedence prec (PREC_PRIMARY for a call). */
EmitVal emit_val_term(const char *text, int prec);
/* v + k, the constant folded into v's: (ib - 1) + 1 is ib. */
EmitVal emit_val_add(EmitVal v, int64_t k);
/* a - b and a + b (a constant b folds into a); `(v)`, a primary written with
 * its parentheses whatever v's precedence. */
EmitVal emit_val_sub(Arena *arena, EmitVal a, EmitVal b);
EmitVal emit_val_sum(Arena *arena, EmitVal a, EmitVal b);
EmitVal emit_val_paren(Arena *arena, EmitVal v);
/* Interval bound lv moved by delta: a constant, or nk plus a constant. */
EmitVal emit_val_level(const char *nk, Level lv, int64_t delta);
/* The C precedence of v as printed (PREC_ADD for a term plus a constant). */
int emit_val_prec(EmitVal v);
/* Is v the constant k? Are a and b the same value (equal constants, or the
 * same name or term plus equal constants)? */
bool emit_val_is_const(EmitVal v, int64_t k);
bool emit_val_equal(EmitVal a, EmitVal b);
/* Prints v, parenthesized if its precedence is below min_prec (the levels
 * of emit_expr_prec); emit_val_text: the same as a string. */
void emit_val_print(Out *o, EmitVal v, int min_prec);
const char *emit_val_text(Arena *arena, EmitVal v, int min_prec);

/* The type of level variables in loops the kit writes (EmitStencil.index_type). */
const char *emit_index_type(const EmitStencil *es);
/* "double", "float", "int32_t", "bool"; "GT_FLOAT64" ... */
const char *emit_c_type(Type t);
const char *emit_dtype(Type t);
/* A constant of type t as a C literal (shortest exact spelling). */
void emit_const(Out *o, Type t, int64_t i, double d);
/* A Dirichlet value (held as a double) as a constant of its field's type t:
 * converted to an integer only for int and bool, where it is one. */
void emit_bc_value(Out *o, Type t, double v);
/* Interval bound as a C expression: "3", "nk", "nk - 1"; delta is added. */
const char *emit_level(Arena *arena, const char *nk, Level lv, int64_t delta);
/* "i", "i + 1", "i - 2". */
const char *emit_offset(Arena *arena, const char *var, int64_t offset);

/* Expression printing with C precedence and the fewest parentheses that keep
 * gcc -Wparentheses quiet. Field loads and column reductions are printed by
 * the backend's hooks; idx names the variables of the current point. */
typedef struct EmitExprCtx EmitExprCtx;
struct EmitExprCtx {
    EmitStencil *es;
    EmitVal idx[NAXES];       /* the position of the current point (variables) */
    /* prints a field load (the backend knows where fields live) */
    void (*load)(Out *o, const EmitExprCtx *cx, const IrExpr *e);
    /* if set, called before (enter) and after each column reduction's loop
     * that emit_hoist_columns writes */
    void (*column)(const EmitExprCtx *cx, bool enter);
    void *user;               /* the backend's state */
};
/* The context of a point (i, j, kvar) with the backend's load hook. */
EmitExprCtx emit_point_ctx(EmitStencil *es, const char *kvar,
                           void (*load)(Out *o, const EmitExprCtx *cx, const IrExpr *e),
                           void *user);
/* Prints e; a column reduction prints as the local emit_hoist_columns wrote. */
void emit_expr(Out *o, const EmitExprCtx *cx, const IrExpr *e);

/* The C variable holding the domain size along axis: ni, nj or nk. */
const char *emit_size_name(const EmitStencil *es, int axis);
/* Where reads that reach reach points below (above) a point stay inside the global
 * domain along axis: the point at "lo_i + reach" or above (below "hi_i - reach"); along
 * K the domain's own edges "reach" and "nk - reach". The edge tests of boundary slabs. */
EmitVal emit_edge_lo(const EmitStencil *es, int axis, int64_t reach);
EmitVal emit_edge_hi(const EmitStencil *es, int axis, int64_t reach);
/* `lo < EDGE_LO || hi >= EDGE_HI` (`>` where past is set): the points from lo to
 * hi come within reach (plan_kernel_reach) of an edge along axis. */
const char *emit_edge_test(Arena *arena, const EmitStencil *es, int axis, const PlanReach *reach,
                           const char *lo, const char *hi, bool past);
/* The range [lo, hi) of a loop along axis (0: I, 1: J) clamped to region a
 * (language.md 10.1): lo raised to the region's lower bound, hi lowered to its
 * upper bound, both against the place's bounds (lo_i + p, hi_i + p: global
 * positions under MPI; EmitStencil.placed is set). lo or hi itself where a
 * does not restrict the axis. The clamped range may be empty (hi <= lo). */
EmitVal emit_area_lo(Arena *arena, const EmitStencil *es, const Area *a, int axis, EmitVal lo);
EmitVal emit_area_hi(Arena *arena, const EmitStencil *es, const Area *a, int axis, EmitVal hi);
/* `i >= lo_i + 0 && i < lo_i + 1 && ...`: the point (idx[0], idx[1]) lies in
 * region a; NULL where a restricts nothing. */
const char *emit_area_test(Arena *arena, const EmitStencil *es, const Area *a,
                           const char *const idx[2]);

/* A read of field f at offset off from the point idx (boundary conditions:
 * language.md section 7). The one place where reads are remapped: a backend
 * says along which axes the read may leave the domain (remap), and a field
 * with a boundary condition along such an axis has its position remapped
 * there (periodic, neumann, mirror) or replaced by the constant outside
 * (dirichlet). */
typedef struct {
    EmitVal pos[NAXES];       /* per axis of f: the position read; EV_NONE elsewhere */
    const char *dirichlet;    /* where the Dirichlet constant replaces the value; NULL if never */
    double value;             /* that constant */
    /* per axis: where it is outside with a Dirichlet condition (NULL if not
     * tested), and its constant; split: the constants differ, and a read
     * outside along several such axes gives the first one's, in I, J, K
     * order (emit_read_open then tests axis by axis) */
    const char *test[NAXES];
    double values[NAXES];
    bool split;
} EmitRead;
EmitRead emit_read(Arena *arena, const EmitStencil *es, const IrField *f,
                   const EmitVal idx[NAXES], const int64_t off[NAXES],
                   const bool remap[NAXES]);
/* base[pos_i * stride_i + pos_j * stride_j + ...] over the axes with a
 * position (pos of emit_read); a NULL stride is a unit one. */
void emit_element(Out *o, const char *base, const EmitVal pos[NAXES],
                  const char *const stride[NAXES]);
/* MACRO(base, index): the same element through a macro of the backend's
 * dialect (the cuda backend's GT_LD and GT_ST). */
void emit_element_macro(Out *o, const char *macro, const char *base, const EmitVal pos[NAXES],
                        const char *const stride[NAXES]);
/* `(TEST ? VALUE : ` before the element of a Dirichlet read, `)` after it;
 * nothing for other reads. */
void emit_read_open(Out *o, const EmitRead *r, Type t);
void emit_read_close(Out *o, const EmitRead *r);
/* The axes (bit 1 << a) along which a statement of st reads a parameter field that the
 * stencil writes beyond the point it computes: at a non-zero offset, or along I and J at
 * offset 0 where the statement runs beyond the domain (a temporary's extent). With after
 * false, any such read of a field st writes anywhere; with after true, only a read that
 * runs after a write of the field: in a later computation, later in a parallel computation
 * (a while loop's condition and body after its own writes), or anywhere in a forward or
 * backward computation that writes it (at the levels before). Per field id into axes
 * (nfields entries, or NULL); returns their union. */
unsigned emit_written_reads(const IrStencil *st, bool after, unsigned char *axes);
/* An ir_walk_stmt callback: ctx is a bool per field id, set for each field a statement
 * assigns. */
IrWalk emit_mark_assigned(void *ctx, const IrStmt *s);

/* The local holding column reduction e (column_sum, column_min ...), named at
 * its first request. */
const char *emit_column_name(EmitStencil *es, const IrExpr *e);
/* Writes the column reductions inside e, innermost first, each as a loop of
 * kk over the column into its local, evaluated at the point of cx; loc: the
 * statement's, for #line. */
void emit_hoist_columns(Out *o, const EmitExprCtx *cx, const IrExpr *e, Loc loc, const char *kk);

/* Writes the file comment and includes of a generated source file, and its
 * FMA policy (C: no contraction unless GT_ALLOW_FMA; C++ for nvcc: a note). */
void emit_source_prologue(Out *o, Compiler *c, const char *hdr_name, const char *backend,
                          bool cxx);
/* Writes the whole header: guard, includes, one declaration per stencil. */
void emit_header(Out *o, Compiler *c, const char *hdr_name, const char *backend,
                 const NameSet *globals, EmitStencil *const *stencils);
/* The file's global names: every stencil S and S_info, plus the reserved ones;
 * reports a stencil whose name a C program cannot define. */
bool emit_globals(Compiler *c, NameSet *globals);
/* The S_info metadata: field table and the gt_stencil_info. */
void emit_info(Out *o, const EmitStencil *es);
/* `int S(params..., const gt_domain *domain)` without ';' or body. */
void emit_signature(Out *o, const EmitStencil *es);
/* The argument checks at the start of a stencil function: out scalars not NULL,
 * gt__bind, the minimum number of levels; defines the bound array and the
 * sizes ni, nj, nk that used[] asks for. Returns directly on error (nothing
 * allocated yet). */
void emit_bind_prologue(Out *o, const EmitStencil *es, const bool used[NAXES]);
/* Prints e with parentheses if its precedence is below min_prec (C levels:
 * 4 ||, 5 &&, 9 ==, 10 <, 12 +, 13 *, 14 unary, 16 primary). */
void emit_expr_prec(Out *o, const EmitExprCtx *cx, const IrExpr *e, int min_prec);
/* The start of a stencil's function: its S_info, the signature, `{`, and
 * the argument checks of emit_bind_prologue (sizes: which of ni, nj, nk the
 * body uses). */
void emit_function_open(Out *o, const EmitStencil *es, const bool sizes[NAXES]);
/* Per field id: does the stencil's code use the field (plan_fields_used)?
 * In es's arena. */
bool *emit_fields_used(const EmitStencil *es);
/* `T *const u_p = bound[F].origin;` for each field parameter the body uses,
 * under a comment, each followed by what strides() writes for it. */
void emit_field_origins(Out *o, const EmitStencil *es, const bool *used,
                        void (*strides)(Out *o, const EmitStencil *es, int f, void *ctx),
                        void *ctx);
/* "(T *)" before a void pointer assigned to a T pointer in C++ sources
 * (EmitStencil.cxx), "" in C. */
const char *emit_cast(const EmitStencil *es, Type t);
/* The `done:` label the error paths jump to, at the function's indentation. */
void emit_done_label(Out *o);
/* A planned stencil's FULL temporaries (plan_owns_buffer): their storages
 * declared (NULL) under a comment; false (nothing written) if it has none. */
bool emit_full_storages(Out *o, const EmitStencil *es);
/* Allocates each FULL buffer with alloc ("gt__temporary", or
 * "gt__device_temporary": the origin's address where the code runs) and the
 * halo of every temporary sharing it (plan_buffer_halo); each sharer's data
 * pointer, and its strides into si, sj, sk (per field id). */
void emit_full_temporaries(Out *o, const EmitStencil *es, const char *alloc,
                           const char *const *si, const char *const *sj, const char *const *sk);
/* gt_release of each FULL buffer's storage. */
void emit_full_releases(Out *o, const EmitStencil *es);
/* What reduction op over type t starts from, as a C constant: its identity, and for min
 * and max of reals NaN, which loses to every number (gt_min_double ...), so that values
 * all NaN reduce to NaN as fmin and fmax of them do (an infinity would win). */
void emit_red_identity(Out *o, RedOp op, Type t);
/* `acc += ` / `acc = fmin(acc, ` ...: the value's text follows, then emit_reduce_close. */
void emit_reduce_open(Out *o, RedOp op, Type t, const char *acc);
void emit_reduce_close(Out *o, RedOp op, Type t);
/* `T name = identity;`: a local that reduction op over type t starts from. */
void emit_red_local(Out *o, RedOp op, Type t, const char *name);
/* Declares each out scalar's accumulator, at the identity of its reduction. */
void emit_scalar_accumulators(Out *o, const EmitStencil *es);
/* Stores each out scalar's accumulator through its pointer (blank line first). */
void emit_scalar_results(Out *o, const EmitStencil *es);
/* The 6 halo numbers of a gt__temporary call: h[a] along axes, 0 elsewhere. */
void emit_temp_halo(Out *o, unsigned axes, const int64_t h[NAXES][2]);
/* `if (!ptr) { rc = gt_last_error_code(); goto done; }` on four lines. */
void emit_alloc_check(Out *o, const EmitStencil *es, const char *ptr);
/* emit_globals, then every stencil named (indexed like c->ir->stencils); NULL
 * after reporting an error. */
EmitStencil **emit_name_stencils(Compiler *c, NameSet *globals);
/* emit_meta.c, shared with emit_fortran.c: a field's axes in I, J, K order ("IJ"), and its
 * intent: "in" (only read), "out" (written, not read) or "inout". */
const char *emit_axes_text(unsigned axes);
const char *emit_field_intent(const IrField *fd);
/* Starts the header h (written whole) and the source o (its prologue) of backend b;
 * src_path: the source's path as gtcc was told it (its #line name). */
void emit_open_files(Compiler *c, const Backend *b, const char *src_path, const char *hdr_name,
                     const NameSet *globals, EmitStencil *const *stencils, Out *h, Out *o);
/* Ends the source (back from .stn lines) and flushes header and source; false on an I/O
   error (as emit_flush). */
bool emit_finish(Out *hdr_out, FILE *hdr, Out *src_out, FILE *src);

/* --- emit_point.c: the body of one point of a planned kernel (fuse.c), for
 * every backend that follows the plan: scalars as locals, recomputed
 * temporaries (per read offset, or substituted), the kernel's statements;
 * arrays and tiles through the backend's access hook. */
typedef struct EmitPoint EmitPoint;
struct EmitPoint {
    EmitStencil *es;
    Out *o;                   /* where the body goes */
    const char *kk;           /* the loop variable of column reductions */
    const char *red_acc;      /* the accumulator a full reduction updates */
    /* prints the element of f (an array or a tile: the backend's) at offset
     * off (the read's, shifted) from the point of cx; write: the destination
     * of an assignment, always inside the domain */
    void (*access)(Out *o, const EmitExprCtx *cx, const IrField *f, const int64_t off[NAXES],
                   bool write);
    void *user;               /* the backend's state, for access */
    /* while emitting */
    int64_t shift[NAXES];     /* the read offset a recomputed temporary is evaluated at */
    const IrField *producing; /* the statement-recomputed temporary being computed */
    VEC(struct EmitRecomputed {
        const IrField *f;
        int64_t off[NAXES];
        const char *name;     /* its local at that read offset */
    }) rc;
    VEC(const IrField *) scalars;
    int *scalar_mark, scalar_stamp;
    /* k-caching (a columnar computation run a column at a time, between
     * emit_kcache_begin and emit_kcache_end): per field id the levels of the
     * current interval carried in locals (0: none; NULL outside a level
     * loop) and the locals, [d] holding level k - d (forward) or k + d */
    int *kc_depth;
    int *kc_comp_depth;       /* per field id: the computation's depth */
    int *kc_iv_depth;         /* per field id: the current interval's */
    const char *(*kc_name)[IR_KCACHE_MAX + 1];
    /* per field id: the local every store at the point also sets, [0] of
     * kc_name (the level being computed); the current interval stores the
     * field unconditionally (a top-level assignment), so that local is the
     * element's value at the end of the level and is carried without a reload */
    bool *kc_stored;
    int kc_dir;               /* -1 forward, +1 backward */
    bool preload;             /* loading the carried levels: the backend remaps every read */
};
/* Starts p for stencil es (the backend sets o, red_acc, access, user). */
void emit_point_init(EmitPoint *p, EmitStencil *es, const char *kk);
/* The expression context of the point (i, j, kvar): cx->user is p. */
EmitExprCtx emit_point_expr_ctx(EmitPoint *p, const char *kvar);
/* Prints a read of f at offset off (then shifted) from the point of cx. */
void emit_point_load(Out *o, const EmitExprCtx *cx, const IrField *f, const int64_t off[NAXES]);
/* The body of one point of kernel k of iv (kvar: the level's variable). */
void emit_point_body(EmitPoint *p, const IrInterval *iv, const IrKernel *k, const char *kvar);
/* k-caching of columnar computation comp (fuse.c's IrComputation.kcache),
 * for a backend running one column at a time: begin declares the locals;
 * interval_begin, before interval iv's level loop, loads the levels iv reads
 * back (remapped, as its first level's reads would be) and turns the cache
 * on for the loop's body; interval_end, at the end of the body, turns it off
 * and carries (the level just computed becomes level k -/+ 1); end marks
 * the locals used. Reads at zero horizontal offset of a carried level, not
 * in a column reduction, then read the locals. */
void emit_kcache_begin(EmitPoint *p, const IrComputation *comp);
void emit_kcache_interval_begin(EmitPoint *p, const IrComputation *comp, const IrInterval *iv);
void emit_kcache_interval_end(EmitPoint *p);
void emit_kcache_end(EmitPoint *p, const IrComputation *comp);

/* --- emit_kcheck.c: reads at run-time K levels (language.md 10.3) */
/* Does st read a field at a run-time K level? */
bool emit_kcheck_any(const IrStencil *st);
/* Does es have reads whose levels are checked as they are read (their level
 * expressions read computed values)? Then the generated code keeps its
 * outputs (gt__keep) and records failures in gt_kf (gt_kfail *, with the
 * levels gt_klv: two per field parameter), which device kernels get as
 * parameters. */
bool emit_kguard_any(EmitStencil *es);
/* Does a statement of kernel k of iv hold such a read? Does statement s? */
bool emit_kguard_kernel(EmitStencil *es, const IrInterval *iv, const IrKernel *k);
bool emit_kguard_stmt(EmitStencil *es, const IrStmt *s);
/* The level that load (IrExpr.load.klevel set) reads at the
 * point of cx, its compile-time K offset (shifted) being koff: for a read
 * checked as it reads, the checked level (gt_klevel, gt_dklevel) at the point
 * of cx moved by shift (NULL: none), clearing *es->kgo when it fails (a
 * while loop around it ends there: on clamped levels it might never end). */
EmitVal emit_kdyn_level(const EmitExprCtx *cx, const IrExpr *load, int64_t koff,
                        const int64_t *shift);
/* The check of every run-time level that depends on inputs only before any
 * statement runs, as host loops (omp: parallel): on a failure, rc =
 * GT_ESHAPE and goto done; then, for reads checked as they read, the outputs
 * kept and the record set up; in a distributed call's checking calls, goto
 * done after that. Writes nothing for a stencil without such reads. */
void emit_kcheck_host(Out *o, EmitStencil *es, bool omp);
/* After the statements (host code): a recorded failure as rc = GT_ESHAPE
 * naming the read, and goto done. */
void emit_kguard_report(Out *o, EmitStencil *es);
/* After `done:`: the outputs put back if rc != 0 (gt__keep_end). */
void emit_kguard_done(Out *o, EmitStencil *es);
/* cuda: the check's kernels (before the host function), and their launches
 * in the host function (on a failure, rc = GT_ESHAPE and goto done), with a
 * device flag held by the storage variable named flag (declared NULL before,
 * released after done by the caller); then the outputs kept and the record
 * on the device, held by the storage variable named rec (declared NULL
 * before, released after done by the caller). */
void emit_kcheck_kernels(Out *o, EmitStencil *es);
void emit_kcheck_device(Out *o, EmitStencil *es, const char *flag, const char *rec);
/* cuda, after the kernels ran (gt__device_wait): the record copied back and
 * a failure reported as by emit_kguard_report. */
void emit_kguard_device_report(Out *o, EmitStencil *es);

#endif /* GTCC_EMIT_H */
