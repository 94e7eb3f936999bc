/* emit_kcheck.c: reads at run-time K levels (language.md 10.3) for every
 * backend: the level a read reads, and the check that every level the
 * stencil's reads would read lies in its field's storage.
 *
 * A read whose level expression reads only inputs (fields the stencil never
 * writes, scalars, index(), constants; no other run-time read, no column
 * reduction) is checked *up front*: before any statement runs, by a pass of
 * its own that evaluates only the level expressions, whose values at a point
 * are then the same as when the statement reads. The pass covers, for each
 * such read (in execution order), every point where its statement runs: the
 * statement's horizontal region over its interval's levels, whatever the
 * conditions of the ifs and ?: around it say (a superset of the points that
 * read: never a read outside a buffer, but a call may be refused for a
 * level a masked-out point would have read). The first failure in the order
 * (read, k, j, i) is reported: GT_ESHAPE, with the field, the level, the
 * position and the storage's levels in the message, and nothing written.
 * Host code (naive, openmp: an `omp parallel for` with a min reduction of
 * the failing position's rank) and device code (cuda: one kernel per read
 * that takes the minimum rank with an atomic, then, on failure, a second
 * launch that writes the failing level) report the same call the same way.
 * In a distributed call (gt_mpi_call) the pass runs in the checking call
 * that every rank agrees on before any rank computes, or, where it reads
 * halos the exchange fills, in a call of its own after the exchange
 * (gt__levels_now); the parts do not run it.
 *
 * A read whose level expression reads computed values (a temporary, a field
 * the stencil writes, another run-time read, a column reduction) is checked
 * *as it reads*: gt_klevel (gt_dklevel in kernels) returns the level, or,
 * outside the storage, records the failure (the first in an order that does
 * not depend on the schedule: gt_kfail in gt_generated.h) and returns the
 * nearest level the storage holds, so that no read leaves the buffer. The
 * statements run to their end on clamped values; the outputs were kept
 * before (gt__keep: host copies of their compute-domain boxes, device copies
 * of their storages' bytes) and are put back when the call fails, after the
 * report of the recorded failure (the same message as the up-front check's);
 * out scalars are written only on success. In a distributed call the
 * checking call keeps them and gt_mpi_call puts them back on every rank once
 * the ranks agree that one failed. The OpenMP loops holding such a read lose
 * their `omp simd` (the record is shared by the lanes).
 */
#include "emit.h"

/* One read at a run-time level, with where it runs. */
typedef struct {
    const IrExpr *load;
    const IrStmt *stmt;       /* the statement (or if) whose expression has it */
    const IrStmt *top;        /* the top-level statement holding it */
    const IrInterval *iv;
    const IrComputation *comp;
    int phase;                /* read as it reads: its phase and number (gt_kfail) */
    int id;
} KRead;
typedef VEC(KRead) KReads;

/* A stencil's reads at run-time levels: checked up front, or as they read;
 * per field id, whether a recomputed temporary's statements hold one of the
 * latter (0: not known yet, 1: no, 2: yes). */
struct EmitKdyn {
    KReads upfront, guarded;
    signed char *recomputed;
};

typedef struct {
    Arena *arena;
    struct EmitKdyn *kd;
    const IrStmt *stmt, *top;
    const IrInterval *iv;
    const IrComputation *comp;
    int phase;
} Collect;

static IrWalk not_input(void *ctx, const IrExpr *e)
{
    (void)ctx;
    bool input = e->kind != IR_COLREDUCE &&
                 (e->kind != IR_LOAD || (!e->load.klevel && e->load.field->kind != IR_TEMP &&
                                         !e->load.field->is_written));
    return input ? IR_WALK_ON : IR_WALK_STOP;
}

/* Does level expression e read only inputs (checked up front)? */
static bool reads_inputs(const IrExpr *e)
{
    return ir_walk_expr(e, not_input, NULL);
}

static void collect_load(void *ctx, IrExpr *load, bool in_column)
{
    (void)in_column;
    Collect *c = ctx;
    if (!load->load.klevel)
        return;
    KRead r = {load, c->stmt, c->top, c->iv, c->comp, 0, 0};
    if (reads_inputs(load->load.klevel)) {
        vec_push(c->arena, &c->kd->upfront, r);
        return;
    }
    r.phase = c->phase;
    r.id = c->kd->guarded.len;
    vec_push(c->arena, &c->kd->guarded, r);
}

static IrWalk collect_stmt(void *ctx, const IrStmt *s)
{
    Collect *c = ctx;
    c->stmt = s;
    ir_for_each_load(ir_stmt_expr(s), collect_load, c);
    return IR_WALK_ON;
}

/* Every read at a run-time level of es's stencil, in execution order; the
 * phases of those read as they read: each statement of a parallel interval,
 * each forward or backward interval (its levels run in turn, each running
 * every statement). */
static struct EmitKdyn *kdyn_of(EmitStencil *es)
{
    if (es->kdyn)
        return es->kdyn;
    const IrStencil *st = es->st;
    struct EmitKdyn *kd = arena_alloc(es->arena, sizeof *kd);
    kd->recomputed = arena_alloc(es->arena, (size_t)st->fields.len + 1);
    Collect c = {es->arena, kd, NULL, NULL, NULL, NULL, 0};
    for (int i = 0; i < st->computations.len; i++) {
        c.comp = st->computations.items[i];
        for (int j = 0; j < c.comp->intervals.len; j++) {
            c.iv = c.comp->intervals.items[j];
            bool parallel = c.comp->order == ORDER_PARALLEL;
            if (!parallel)
                c.phase++;
            for (int s = 0; s < c.iv->stmts.len; s++) {
                if (parallel)
                    c.phase++;
                c.top = c.iv->stmts.items[s];
                ir_walk_stmt(c.top, collect_stmt, &c);
            }
        }
    }
    es->kdyn = kd;
    return kd;
}

static const KRead *guarded_read(EmitStencil *es, const IrExpr *load)
{
    struct EmitKdyn *kd = kdyn_of(es);
    for (int i = 0; i < kd->guarded.len; i++)
        if (kd->guarded.items[i].load == load)
            return &kd->guarded.items[i];
    return NULL;
}

bool emit_kguard_any(EmitStencil *es)
{
    return kdyn_of(es)->guarded.len > 0;
}

typedef struct {
    EmitStencil *es;
    bool found;
} Find;

static void find_stmts(Find *f, IrStmt *const *v, int n);

static void find_load(void *ctx, IrExpr *load, bool in_column)
{
    (void)in_column;
    Find *f = ctx;
    if (load->load.klevel && guarded_read(f->es, load))
        f->found = true;
    const IrField *fd = load->load.field;
    if (f->found || fd->kind != IR_TEMP || fd->temp_class != IR_TEMP_RECOMPUTE)
        return;
    /* a recomputed temporary's statements run where it is read (each searched once) */
    signed char *known = &kdyn_of(f->es)->recomputed[fd->id];
    if (!*known) {
        *known = 1;
        Find inner = {f->es, false};
        find_stmts(&inner, fd->producer, fd->nproducer);
        *known = inner.found ? 2 : 1;
    }
    f->found = *known == 2;
}

static IrWalk find_stmt(void *ctx, const IrStmt *s)
{
    Find *f = ctx;
    ir_for_each_load(ir_stmt_expr(s), find_load, f);
    return f->found ? IR_WALK_STOP : IR_WALK_ON;
}

/* Sets f->found if one of the n statements of v (or one nested in them)
 * holds a guarded read. */
static void find_stmts(Find *f, IrStmt *const *v, int n)
{
    for (int i = 0; i < n && !f->found; i++)
        ir_walk_stmt(v[i], find_stmt, f);
}

bool emit_kguard_stmt(EmitStencil *es, const IrStmt *s)
{
    if (!emit_kguard_any(es))
        return false;
    Find f = {es, false};
    find_stmts(&f, (IrStmt *const *)&s, 1);
    return f.found;
}

bool emit_kguard_kernel(EmitStencil *es, const IrInterval *iv, const IrKernel *k)
{
    if (!emit_kguard_any(es))
        return false;
    Find f = {es, false};
    find_stmts(&f, iv->stmts.items + k->first, k->count);
    return f.found;
}

bool emit_kcheck_any(const IrStencil *st)
{
    for (int f = 0; f < st->fields.len; f++)
        if (st->fields.items[f]->read_at_run_time_k)
            return true;
    return false;
}

EmitVal emit_kdyn_level(const EmitExprCtx *cx, const IrExpr *load, int64_t koff,
                        const int64_t *shift)
{
    Arena *a = cx->es->arena;
    Out t = {.name = ""};
    emit_expr(&t, cx, load->load.klevel);
    /* the level expression, always in parentheses */
    EmitVal e = emit_val_term(arena_printf(a, "(%s)", emit_out_string(a, &t)), PREC_PRIMARY);
    EmitVal level = {0};
    switch (load->load.kmode) {
    case KDYN_ADD: level = emit_val_sum(a, emit_val_add(cx->idx[AXIS_K], koff), e); break;
    case KDYN_SUB: level = emit_val_sub(a, emit_val_add(cx->idx[AXIS_K], koff), e); break;
    case KDYN_ABS: level = emit_val_add(e, koff); break;
    case KDYN_NONE: unreachable();
    }
    const KRead *r = guarded_read(cx->es, load);
    if (!r)
        return level;
    /* checked as it reads: the point of the statement (0 along an axis it does not run
       over; its level in a forward or backward computation, which runs it at each) */
    unsigned axes = ir_stmt_axes(r->top);
    const char *pos[NAXES];
    for (int x = 0; x < NAXES; x++) {
        bool runs = (axes & (1u << x)) || (x == AXIS_K && r->comp->order != ORDER_PARALLEL);
        pos[x] = emit_val_text(a, runs ? emit_val_add(cx->idx[x], shift ? shift[x] : 0)
                                       : emit_val_const(0), 0);
    }
    return emit_val_term(arena_printf(a, "%s(%s, gt_klv + %d, gt_kf, %d, %d, %d, %s, %s, %s, %s)",
                                      cx->es->device ? "gt_dklevel" : "gt_klevel",
                                      emit_val_text(a, level, 0), 2 * load->load.field->id,
                                      r->phase, r->comp->order == ORDER_BACKWARD ? -1 : 1, r->id,
                                      pos[0], pos[1], pos[2], cx->es->kgo ? cx->es->kgo : "NULL"),
                         PREC_PRIMARY);
}

/* ------------------------------------------------------------ the pass */

/* The state of one stencil's check. */
typedef struct {
    Out *o;
    EmitStencil *es;
    Arena *arena;
    bool device;              /* cuda: element reads through GT_LD */
} Check;

/* "a - (b)", or a when b is 0. */
static EmitVal minus(Arena *arena, EmitVal a, EmitVal b)
{
    return emit_val_is_const(b, 0) ? a : emit_val_sub(arena, a, emit_val_paren(arena, b));
}

/* "(a) + b", or b when a is 0. */
static EmitVal plus(Arena *arena, EmitVal a, EmitVal b)
{
    return emit_val_is_const(a, 0) ? b : emit_val_sum(arena, emit_val_paren(arena, a), b);
}

static const char *text(const Check *k, EmitVal v)
{
    return emit_val_text(k->arena, v, 0);
}

/* A read of the level expression: the element of an input field (any axis
 * may leave the domain: remapped where a boundary condition says). */
static void check_load(Out *o, const EmitExprCtx *cx, const IrExpr *e)
{
    const Check *k = cx->user;
    const IrField *f = e->load.field;
    bool remap[NAXES] = {true, true, true};
    EmitRead r = emit_read(k->arena, k->es, f, cx->idx, e->load.offset, remap);
    const char *stride[NAXES];
    for (int a = 0; a < NAXES; a++)
        stride[a] = arena_printf(k->arena, "%s[%d].stride[%d]", k->es->bound, f->id, a);
    emit_read_open(o, &r, f->type);
    if (k->device)
        emit_element_macro(o, "GT_LD", k->es->data[f->id], r.pos, stride);
    else
        emit_element(o, k->es->data[f->id], r.pos, stride);
    emit_read_close(o, &r);
}

/* The C range [lo, hi) of axis a of read r. An absolute level that does
 * not vary along K is checked at the interval's first level only. */
static void range_of(const Check *k, const KRead *r, int a, EmitVal *lo, EmitVal *hi)
{
    const char *n = arena_printf(k->arena, "%s[%d]", k->es->size, a);
    if (a == AXIS_K) {
        *lo = emit_val_level(n, r->iv->lo, 0);
        *hi = emit_val_level(n, r->iv->hi, 0);
        if (r->load->load.kmode == KDYN_ABS && !(r->load->load.klevel->shape & AXES_K))
            *hi = emit_val_sum(
                k->arena, *lo,
                emit_val_term(arena_printf(k->arena, "(%s < %s)",
                                           emit_val_text(k->arena, *lo, PREC_REL + 1),
                                           emit_val_text(k->arena, *hi, PREC_REL + 1)),
                              PREC_PRIMARY));
        return;
    }
    const Range *g = &r->stmt->region.r[a];
    *lo = emit_val_const(g->lo);
    *hi = emit_val_add(emit_val_name(n), g->hi);
}

/* The axes a check loops over: those its read varies along. */
static bool check_axis(const KRead *r, int a)
{
    return a == AXIS_K || (r->load->shape & (1u << a));
}

/* rank = ((k - klo) * nj' + (j - jlo)) * ni' + (i - ilo) over the axes
 * looped, into the text of a C expression. */
static const char *rank_of(const Check *k, const KRead *r)
{
    const char *rank = NULL;
    for (int a = AXIS_K; a >= AXIS_I; a--) {
        if (!check_axis(r, a))
            continue;
        EmitVal lo, hi;
        range_of(k, r, a, &lo, &hi);
        const char *var = a == AXIS_I ? "i" : a == AXIS_J ? "j" : "k";
        const char *term = text(k, minus(k->arena, emit_val_name(var), lo));
        rank = rank ? arena_printf(k->arena, "(%s) * (%s) + (%s)", rank,
                                   text(k, minus(k->arena, hi, lo)), term)
                    : term;
    }
    return rank;
}

/* `const int64_t i = ..., ...;` from the rank in bad: the position of the
 * failure (0 along axes not looped). */
static void decode_position(const Check *k, const KRead *r, const char *bad)
{
    const char *div = "";     /* the divisions by the axes decoded so far */
    bool divided = false;
    EmitVal pos[NAXES];
    for (int a = AXIS_I; a < NAXES; a++) {
        if (!check_axis(r, a)) {
            pos[a] = emit_val_const(0);
            continue;
        }
        EmitVal lo, hi;
        range_of(k, r, a, &lo, &hi);
        const char *q = arena_printf(k->arena, "%s%s", bad, div);
        const char *n = text(k, minus(k->arena, hi, lo));
        pos[a] = plus(k->arena, lo,
                      a == AXIS_K ? emit_val_term(q, divided ? PREC_MUL : PREC_PRIMARY)
                                  : emit_val_term(arena_printf(k->arena, "%s %% (%s)", q, n),
                                                  PREC_MUL));
        div = arena_printf(k->arena, "%s / (%s)", div, n);
        divided = true;
    }
    emit_line(k->o, "const int64_t i = %s, j = %s, k = %s;", text(k, pos[0]), text(k, pos[1]),
              text(k, pos[2]));
    emit_line(k->o, "(void)i; (void)j; (void)k;");
}

/* The level of read r at the point (i, j, k), as C text. */
static const char *check_level_text(Check *k, const KRead *r)
{
    EmitExprCtx cx = emit_point_ctx(k->es, "k", check_load, k);
    return text(k, emit_kdyn_level(&cx, r->load, r->load->load.offset[AXIS_K], NULL));
}

/* rc = gt__error(GT_ESHAPE, ...) naming the read of field f at line:col, at the point
   (i, j, k) (domain positions; global along I and J in a distributed call: the place's
   origin added) reading lev, outside levels lv[0] .. lv[1] - 1. */
static void report_read(Out *o, const EmitStencil *es, const IrExpr *load, const char *lev,
                        const char *i, const char *j, const char *k, const char *lv)
{
    emit_line(o, "%s = gt__error(GT_ESHAPE, \"stencil '%s': '%s' read at level %%lld at "
                 "(%%lld, %%lld, %%lld), outside the levels %%lld to %%lld its storage holds "
                 "(the run-time K offset at line %d, column %d)\", (long long)%s, "
                 "(long long)(%s + %s.origin[0]), (long long)(%s + %s.origin[1]), "
                 "(long long)%s, (long long)%s[0], (long long)%s[1] - 1);",
              es->rc, es->st->name, load->load.field->name, load->loc.line, load->loc.col, lev,
              i, es->place, j, es->place, k, lv, lv);
}

static void report(Check *k, const KRead *r, const char *lev, const char *lv)
{
    report_read(k->o, k->es, r->load, lev, "i", "j", "k", lv);
    emit_line(k->o, "goto done;");
}

/* The levels of each field read up front: lv[f]. */
static const char **declare_levels(Check *k, const KReads *reads)
{
    const IrStencil *st = k->es->st;
    const char **lv = arena_alloc(k->arena, sizeof(char *) * (size_t)(st->fields.len + 1));
    for (int d = 0; d < reads->len; d++) {
        const IrField *fd = reads->items[d].load->load.field;
        int f = fd->id;
        if (lv[f])
            continue;
        lv[f] = emit_unique(k->arena, &k->es->names,
                            arena_printf(k->arena, "%s_levels", k->es->field[f]));
        emit_line(k->o, "int64_t %s[2];", lv[f]);
        emit_line(k->o, "gt__levels(%s, %s);", k->es->field[f], lv[f]);
    }
    return lv;
}

/* How far the up-front pass reads beyond the domain, {below I, above I, below J, above
   J}: each read's region, moved by the offsets of its level expression's loads. */
typedef struct {
    const Extent *region;
    int64_t reach[4];
} Reach;

static void reach_load(void *ctx, IrExpr *load, bool in_column)
{
    (void)in_column;
    Reach *x = ctx;
    for (int a = 0; a < 2; a++) {
        int64_t below = -(x->region->r[a].lo + load->load.offset[a]);
        int64_t above = x->region->r[a].hi + load->load.offset[a];
        x->reach[2 * a] = below > x->reach[2 * a] ? below : x->reach[2 * a];
        x->reach[2 * a + 1] = above > x->reach[2 * a + 1] ? above : x->reach[2 * a + 1];
    }
}

/* `if (gt__levels_now(&place, gt_checking, reach)) {` (the caller closes it): the up-front
   pass runs in a single process's call and in a distributed call's checking calls. */
static void open_now(Out *o, EmitStencil *es, const KReads *reads)
{
    Reach x = {NULL, {0, 0, 0, 0}};
    for (int d = 0; d < reads->len; d++) {
        x.region = &reads->items[d].stmt->region;
        ir_for_each_load(reads->items[d].load->load.klevel, reach_load, &x);
    }
    emit_open(o, "if (gt__levels_now(&%s, gt_checking, (const int64_t[4]){%lld, %lld, %lld, "
                 "%lld})) {", es->place, (long long)x.reach[0], (long long)x.reach[1],
              (long long)x.reach[2], (long long)x.reach[3]);
}

/* The outputs kept (and, in a distributed call's checking call, the out scalars) before
   reads checked as they read; then, in the checking calls, nothing more. */
static void keep_outputs(Out *o, EmitStencil *es, bool device)
{
    const IrStencil *st = es->st;
    if (emit_kguard_any(es)) {
        emit_line(o, "/* Reads at run-time K levels computed from computed values, checked as "
                     "they read: the");
        emit_line(o, "   outputs kept, put back after done if the call fails. */");
        emit_line(o, "%s = gt__keep(&%s, &%s, %s, %s, gt_checking, %d, &gt_kept);", es->rc,
                  es->place, es->info, es->nfield_params ? es->args : "NULL", es->size,
                  device ? 1 : 0);
        emit_line(o, "if (%s != 0)", es->rc);
        emit_line(o, "    goto done;");
        for (int s = 0; s < st->scalars.len; s++)
            if (st->scalars.items[s]->is_output)
                emit_line(o, "gt__keep_result(&%s, gt_checking, %s, sizeof *%s);", es->place,
                          es->scalar[s], es->scalar[s]);
    }
    emit_line(o, "if (gt_checking)");
    emit_line(o, "    goto done;");
}

void emit_kcheck_host(Out *o, EmitStencil *es, bool omp)
{
    const IrStencil *st = es->st;
    if (!emit_kcheck_any(st))
        return;
    Check k = {o, es, es->arena, false};
    KReads reads = kdyn_of(es)->upfront;
    bool guard = emit_kguard_any(es);
    emit_blank(o);
    if (guard) {
        int n = 2 * (es->nfield_params ? es->nfield_params : 1);
        emit_line(o, "/* The first failure of a read checked as it reads, the levels of each "
                     "field. */");
        emit_line(o, "gt__kept *gt_kept = NULL;");
        emit_line(o, "gt_kfail gt_kfr;");
        emit_line(o, "gt_kfail *const gt_kf = &gt_kfr;");
        emit_line(o, "int64_t gt_klv[%d] = {0};", n);
        emit_line(o, "(void)gt_kf; (void)gt_klv;");
    }
    if (reads.len) {
        emit_line(o, "/* Reads at run-time K levels (language.md 10.3) whose levels depend on "
                     "inputs: every");
        emit_line(o, "   level read lies in its storage, checked before anything is written; "
                     "the first");
        emit_line(o, "   failure, in the order read, k, j, i, is reported. */");
        open_now(o, es, &reads);
        emit_line(o, "(void)%s; (void)%s; (void)%s;", es->ni, es->nj, es->nk);
        const char **lv = declare_levels(&k, &reads);
        const char *bad = emit_unique(es->arena, &es->names, "gt_bad");
        for (int d = 0; d < reads.len; d++) {
            const KRead *r = &reads.items[d];
            const char *levels = lv[r->load->load.field->id];
            emit_open(o, "{");
            emit_line(o, "int64_t %s = INT64_MAX;", bad);
            int loops = 0;
            for (int a = AXIS_K; a >= AXIS_I; a--) {
                if (!check_axis(r, a))
                    continue;
                if (omp && loops == 0)
                    emit_line(o, "#pragma omp parallel for%s reduction(min:%s)",
                              check_axis(r, AXIS_J) || check_axis(r, AXIS_I) ? " collapse(2)"
                                                                             : "",
                              bad);
                EmitVal lo, hi;
                range_of(&k, r, a, &lo, &hi);
                emit_open(o, "for (int64_t %c = %s; %c < %s; %c++)%s", "ijk"[a], text(&k, lo),
                          "ijk"[a], text(&k, hi), "ijk"[a], " {");
                loops++;
            }
            emit_line(o, "const int64_t gt_level = %s;", check_level_text(&k, r));
            emit_line(o, "if (gt_level < %s[0] || gt_level >= %s[1]) {", levels, levels);
            emit_line(o, "    const int64_t gt_rank = %s;", rank_of(&k, r));
            emit_line(o, "    if (gt_rank < %s)", bad);
            emit_line(o, "        %s = gt_rank;", bad);
            emit_line(o, "}");
            for (int l = 0; l < loops; l++) {
                emit_close(o);
            }
            emit_open(o, "if (%s != INT64_MAX) {", bad);
            decode_position(&k, r, bad);
            emit_line(o, "const int64_t gt_level = %s;", check_level_text(&k, r));
            report(&k, r, "gt_level", levels);
            emit_close(o);
            emit_close(o);
        }
        emit_close(o);
    }
    keep_outputs(o, es, false);
    if (guard) {
        for (int f = 0; f < es->nfield_params; f++)
            if (st->fields.items[f]->read_at_run_time_k)
                emit_line(o, "gt__levels(%s, gt_klv + %d);", es->field[f], 2 * f);
        emit_line(o, "gt__kfail_init(&gt_kfr);");
    }
}

/* The report of the failure recorded in rec (a gt_kfail), the levels in lv: rc =
   GT_ESHAPE naming the read, and goto done. */
static void report_recorded(Out *o, EmitStencil *es, const char *rec, const char *lv)
{
    KReads reads = kdyn_of(es)->guarded;
    emit_open(o, "if (%s.key[0] != INT64_MAX) {", rec);
    emit_line(o, "/* the first failure of a read checked as it reads: the outputs are put "
                 "back */");
    emit_line(o, "switch (%s.read) {", rec);
    for (int d = 0; d < reads.len; d++) {
        const IrExpr *load = reads.items[d].load;
        int f = load->load.field->id;
        emit_open(o, "case %d:", d);
        report_read(o, es, load, arena_printf(es->arena, "%s.level", rec),
                    arena_printf(es->arena, "%s.key[4]", rec),
                    arena_printf(es->arena, "%s.key[3]", rec),
                    arena_printf(es->arena, "%s.k", rec),
                    arena_printf(es->arena, "(%s + %d)", lv, 2 * f));
        emit_line(o, "break;");
        emit_dedent(o);
    }
    emit_line(o, "default:");
    emit_line(o, "    %s = gt__error(GT_ESHAPE, \"stencil '%s': a read at a run-time K level "
                 "outside its storage\");", es->rc, es->st->name);
    emit_line(o, "}");
    emit_line(o, "goto done;");
    emit_close(o);
}

void emit_kguard_report(Out *o, EmitStencil *es)
{
    if (emit_kcheck_any(es->st) && emit_kguard_any(es))
        report_recorded(o, es, "gt_kfr", "gt_klv");
}

void emit_kguard_done(Out *o, EmitStencil *es)
{
    if (emit_kcheck_any(es->st) && emit_kguard_any(es))
        emit_line(o, "%s = gt__keep_end(gt_kept, %s);", es->rc, es->rc);
}

/* ------------------------------------------------------------ cuda */

/* The kernel of check d: gt_cD_S. */
static const char *kernel_name(const EmitStencil *es, int d)
{
    return arena_printf(es->arena, "gt_c%d_%s", d, es->st->name);
}

/* The fields a check kernel reads: the field parameters the level
 * expressions of st read. */
static void mark_level_field(void *ctx, IrExpr *load, bool in_column)
{
    (void)in_column;
    ((bool *)ctx)[load->load.field->id] = true;
}

void emit_kcheck_kernels(Out *o, EmitStencil *es)
{
    const IrStencil *st = es->st;
    if (!emit_kcheck_any(st))
        return;
    Check k = {o, es, es->arena, true};
    KReads reads = kdyn_of(es)->upfront;
    for (int d = 0; d < reads.len; d++) {
        const KRead *r = &reads.items[d];
        bool *uses = arena_alloc(es->arena, sizeof(bool) * (size_t)(st->fields.len + 1));
        ir_for_each_load(r->load->load.klevel, mark_level_field, uses);
        emit_blank(o);
        emit_line(o, "/* The check of the run-time K level at line %d, column %d: the rank "
                     "(read, k, j, i) of", r->load->loc.line, r->load->loc.col);
        emit_line(o, "   the first level outside the storage into *gt_bad; the level at rank "
                     "gt_want into *gt_lev. */");
        emit_line(o, "static __global__ void %s(", kernel_name(es, d));
        emit_indent(o);
        emit_indent(o);
        emit_line(o, "const int64_t gt_n0, const int64_t gt_n1, const int64_t gt_n2,");
        emit_line(o, "const int64_t gt_lv0, const int64_t gt_lv1,");
        if (es->placed)
            emit_line(o, "const gt_place gt_pl,");
        for (int f = 0; f < es->nfield_params; f++)
            if (uses[f])
                emit_line(o, "const gt_bound gt_b%d,", f);
        for (int s = 0; s < st->scalars.len; s++)
            if (!st->scalars.items[s]->is_output)
                emit_line(o, "const %s %s,", emit_c_type(st->scalars.items[s]->type),
                          es->scalar[s]);
        emit_line(o, "unsigned long long *const gt_bad, const unsigned long long gt_want, "
                     "long long *const gt_lev)");
        emit_dedent(o);
        emit_dedent(o);
        emit_open(o, "{");
        emit_line(o, "const int64_t %s[3] = {gt_n0, gt_n1, gt_n2};", es->size);
        emit_line(o, "const int64_t %s = gt_n0, %s = gt_n1, %s = gt_n2;", es->ni, es->nj,
                  es->nk);
        /* used or not by the level expression and the loop bounds (an interval of
           constant levels needs neither): no unused-variable warning */
        emit_line(o, "(void)%s; (void)%s; (void)%s; (void)%s;", es->size, es->ni, es->nj,
                  es->nk);
        if (es->placed) {
            /* the place's bounds and origin, as the stencil's function has them */
            emit_line(o, "const int64_t %s = gt_pl.lo[0], %s = gt_pl.hi[0], %s = gt_pl.lo[1], "
                         "%s = gt_pl.hi[1];", es->lo[0], es->hi[0], es->lo[1], es->hi[1]);
            emit_line(o, "const int64_t %s = gt_pl.origin[0], %s = gt_pl.origin[1];",
                      es->origin[0], es->origin[1]);
            emit_line(o, "const int %s = gt_pl.wrap[0], %s = gt_pl.wrap[1];", es->wrap[0],
                      es->wrap[1]);
            emit_line(o, "(void)%s; (void)%s; (void)%s; (void)%s; (void)%s; (void)%s; (void)%s; "
                         "(void)%s;", es->lo[0], es->hi[0], es->lo[1], es->hi[1], es->origin[0],
                      es->origin[1], es->wrap[0], es->wrap[1]);
        }
        emit_line(o, "gt_bound %s[%d];", es->bound, es->nfield_params);
        emit_line(o, "(void)%s;", es->bound);
        for (int f = 0; f < es->nfield_params; f++) {
            if (!uses[f])
                continue;
            const IrField *fd = st->fields.items[f];
            emit_line(o, "%s[%d] = gt_b%d;", es->bound, f, f);
            emit_line(o, "const %s *const %s = (const %s *)%s[%d].origin;",
                      emit_c_type(fd->type), es->data[f], emit_c_type(fd->type), es->bound, f);
        }
        EmitVal lo, hi;
        bool rows = false;   /* J a loop over the rows of the grid's y, open */
        for (int a = AXIS_I; a <= AXIS_J; a++) {
            if (!check_axis(r, a)) {
                emit_line(o, "const int64_t %c = 0;", "ijk"[a]);
                emit_line(o, "(void)%c;", "ijk"[a]);
                emit_line(o, "if (blockIdx.%c || threadIdx.%c)", "xy"[a], "xy"[a]);
                emit_line(o, "    return;");
                continue;
            }
            range_of(&k, r, a, &lo, &hi);
            EmitVal thread = emit_val_term(
                arena_printf(es->arena, "(int64_t)blockIdx.%c * blockDim.%c + threadIdx.%c",
                             "xy"[a], "xy"[a], "xy"[a]),
                PREC_ADD);
            if (a == AXIS_J) {
                /* a launch takes at most GT_GRID_Y_MAX blocks of rows (CUDA's 65535): each
                   thread takes every row a grid's height apart */
                emit_open(o, "for (int64_t j = %s; j < %s; j += (int64_t)gridDim.y * "
                             "blockDim.y) {", text(&k, plus(es->arena, lo, thread)),
                          text(&k, hi));
                rows = true;
                continue;
            }
            emit_line(o, "const int64_t %c = %s;", "ijk"[a], text(&k, plus(es->arena, lo, thread)));
            emit_line(o, "if (%c >= %s)", "ijk"[a], text(&k, hi));
            emit_line(o, "    return;");
        }
        range_of(&k, r, AXIS_K, &lo, &hi);
        emit_open(o, "for (int64_t k = %s; k < %s; k++) {", text(&k, lo), text(&k, hi));
        emit_line(o, "const int64_t gt_level = %s;", check_level_text(&k, r));
        emit_line(o, "const unsigned long long gt_rank = (unsigned long long)(%s);",
                  rank_of(&k, r));
        emit_line(o, "if (gt_rank == gt_want)");
        emit_line(o, "    *gt_lev = gt_level;");
        emit_line(o, "if (gt_level < gt_lv0 || gt_level >= gt_lv1) {");
        emit_line(o, "    gt_atomic_min_rank(gt_bad, gt_rank);   /* this column's first */");
        emit_line(o, "    break;");
        emit_line(o, "}");
        emit_close(o);
        if (rows)
            emit_close(o);
        emit_close(o);
    }
}

void emit_kcheck_device(Out *o, EmitStencil *es, const char *flag, const char *rec)
{
    const IrStencil *st = es->st;
    if (!emit_kcheck_any(st))
        return;
    Check k = {o, es, es->arena, true};
    KReads reads = kdyn_of(es)->upfront;
    if (reads.len) {
        emit_line(o, "/* Reads at run-time K levels (language.md 10.3) whose levels depend on "
                     "inputs: every");
        emit_line(o, "   level read lies in its storage, checked on the device before "
                     "anything is written;");
        emit_line(o, "   the first failure, in the order read, k, j, i, is reported. */");
        open_now(o, es, &reads);
        const char **lv = declare_levels(&k, &reads);
        emit_line(o, "int64_t gt_fs[3];");
        emit_line(o, "unsigned long long *const gt_flag = (unsigned long long *)"
                     "gt__device_temporary(&%s, GT_FLOAT64, \"I\", (const int64_t[3]){2, 1, 1}, "
                     "(const int64_t[6]){0}, gt_fs);", flag);
        emit_alloc_check(o, es, "gt_flag");
        for (int d = 0; d < reads.len; d++) {
            const KRead *r = &reads.items[d];
            bool *uses = arena_alloc(es->arena, sizeof(bool) * (size_t)(st->fields.len + 1));
            ir_for_each_load(r->load->load.klevel, mark_level_field, uses);
            const char *levels = lv[r->load->load.field->id];
            emit_open(o, "{");
            EmitVal lo[NAXES], hi[NAXES];
            for (int a = 0; a < NAXES; a++) {
                if (a == AXIS_K || check_axis(r, a))
                    range_of(&k, r, a, &lo[a], &hi[a]);
                else
                    lo[a] = emit_val_const(0), hi[a] = emit_val_const(1);
            }
            emit_line(o, "unsigned long long gt_host[2] = {~0ull, 0};");
            emit_line(o, "%s = gt__device_copy(\"stencil '%s'\", gt_flag, gt_host, sizeof "
                         "gt_host, 1);", es->rc, st->name);
            emit_line(o, "if (%s != 0)", es->rc);
            emit_line(o, "    goto done;");
            emit_line(o, "const int64_t gt_ni = %s, gt_nj = %s;",
                      text(&k, minus(es->arena, hi[0], lo[0])),
                      text(&k, minus(es->arena, hi[1], lo[1])));
            emit_line(o, "const dim3 gt_grid = GT_GRID((gt_ni + 31) / 32, (gt_nj + 7) / 8 < "
                         "GT_GRID_Y_MAX ? (gt_nj + 7) / 8 : GT_GRID_Y_MAX), "
                         "gt_block = GT_BLOCK(32, 8);");
            for (int pass = 0; pass < 2; pass++) {
                /* pass 0: the first failure's rank; pass 1, after one: its level */
                emit_open(o, pass ? "if (gt_host[0] != ~0ull) {" : "if (gt_ni > 0 && gt_nj > 0 "
                          "&& %s < %s) {", text(&k, lo[2]), text(&k, hi[2]));
                emit_begin_line(o);
                emit_text(o, "GT_LAUNCH(%s, gt_grid, gt_block, %s[0], %s[1], %s[2], %s[0], %s[1]",
                          kernel_name(es, d), es->size, es->size, es->size, levels, levels);
                if (es->placed)
                    emit_text(o, ", %s", es->place);
                for (int f = 0; f < es->nfield_params; f++)
                    if (uses[f])
                        emit_text(o, ", %s[%d]", es->bound, f);
                for (int s = 0; s < st->scalars.len; s++)
                    if (!st->scalars.items[s]->is_output)
                        emit_text(o, ", %s", es->scalar[s]);
                emit_text(o, ", gt_flag, %s, (long long *)(gt_flag + 1));",
                          pass ? "gt_host[0]" : "~0ull");
                emit_end_line(o);
                emit_line(o, "%s = gt__device_copy(\"stencil '%s'\", gt_host, gt_flag, sizeof "
                             "gt_host, 0);", es->rc, st->name);
                emit_line(o, "if (%s != 0)", es->rc);
                emit_line(o, "    goto done;");
                if (pass) {
                    emit_line(o, "const int64_t gt_bad = (int64_t)gt_host[0];");
                    decode_position(&k, r, "gt_bad");
                    emit_line(o, "const long long gt_level = (long long)gt_host[1];");
                    report(&k, r, "gt_level", levels);
                }
                emit_close(o);
            }
            emit_close(o);
        }
        emit_close(o);
    }
    keep_outputs(o, es, true);
    if (!emit_kguard_any(es))
        return;
    /* the record and the levels on the device, for the kernels (gt_kf, gt_klv) */
    int n = 2 * (es->nfield_params ? es->nfield_params : 1);
    emit_line(o, "/* The first failure of a read checked as it reads, and the levels of each "
                 "field, on the device. */");
    emit_line(o, "struct {");
    emit_line(o, "    gt_kfail r;");
    emit_line(o, "    int64_t lv[%d];", n);
    emit_line(o, "} gt_kh;");
    emit_line(o, "gt__kfail_init(&gt_kh.r);");
    emit_line(o, "for (int gt_f = 0; gt_f < %d; gt_f++)", n);
    emit_line(o, "    gt_kh.lv[gt_f] = 0;");
    for (int f = 0; f < es->nfield_params; f++)
        if (st->fields.items[f]->read_at_run_time_k)
            emit_line(o, "gt__levels(%s, gt_kh.lv + %d);", es->field[f], 2 * f);
    emit_line(o, "int64_t gt_khs[3];");
    emit_line(o, "gt_kfail *const gt_kf = (gt_kfail *)gt__device_temporary(&%s, GT_FLOAT64, "
                 "\"I\", (const int64_t[3]){(int64_t)(sizeof gt_kh / 8), 1, 1}, "
                 "(const int64_t[6]){0}, gt_khs);", rec);
    emit_alloc_check(o, es, "gt_kf");
    emit_line(o, "%s = gt__device_copy(\"stencil '%s'\", gt_kf, &gt_kh, sizeof gt_kh, 1);",
              es->rc, st->name);
    emit_line(o, "if (%s != 0)", es->rc);
    emit_line(o, "    goto done;");
    emit_line(o, "const int64_t *const gt_klv = (const int64_t *)(gt_kf + 1);");
}

void emit_kguard_device_report(Out *o, EmitStencil *es)
{
    if (!emit_kcheck_any(es->st) || !emit_kguard_any(es))
        return;
    emit_line(o, "if (%s == 0)", es->rc);
    emit_line(o, "    %s = gt__device_copy(\"stencil '%s'\", &gt_kh.r, gt_kf, sizeof gt_kh.r, "
                 "0);", es->rc, es->st->name);
    emit_open(o, "if (%s == 0) {", es->rc);
    report_recorded(o, es, "gt_kh.r", "gt_kh.lv");
    emit_close(o);
}
