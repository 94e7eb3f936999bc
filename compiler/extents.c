/* extents.c: regions of statements, extents of temporaries, halos of field
 * parameters, and dead-code removal (language.md section 6).
 *
 * The walk goes backwards from the outputs (the last statement of the last
 * computation first), carrying per temporary its *demand*: the horizontal
 * region where later statements read it, or nothing yet. A statement that
 * writes a field parameter or reduces into an out scalar runs on the compute
 * domain (region zero); one that writes a temporary runs on the temporary's
 * demand at that point, and is dead if there is none; an `if` runs its
 * condition on the union of the regions of its live statements, and each
 * statement inside keeps its own region. Each read at offset o in a statement
 * of region R adds R + o to the demand of a temporary, or to the read extent
 * of a parameter. Writes never shrink a demand (a masked or partial write
 * leaves older values in place), so a statement computes its temporary
 * wherever any later statement reads it.
 *
 * Parallel computations need one backward pass. In forward and backward
 * computations a statement can read, at an earlier level, what a later
 * statement writes, so the passes over such a computation repeat until the
 * demands no longer change; if they still change after as many passes as the
 * computation has statements (plus two), an extent grows with every level,
 * which is an error. A final pass removes what is dead, with a warning.
 *
 * Halos: along I and J the extent of the reads, 0 along an axis with a
 * boundary condition. Along K, a read at k+o in interval [lo, hi) needs
 * max(0, -(lo+o)) levels below when lo counts from the start, and
 * max(0, hi+o) above when hi counts from end (hi <= 0 there); a bound that
 * counts from the other end instead makes NK >= that level a requirement of
 * the stencil (IrStencil.min_nk). Column reductions read [0, end).
 *
 * Runs only on a program without errors: after an error the IR is
 * incomplete, and its dead-code warnings would mislead.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gtcc.h"

typedef struct {
    Loc loc;
    char *text;
} Warning;

typedef struct {
    Compiler *c;
    IrStencil *st;
    int nfields;
    Extent *demand;           /* per temporary: where later statements read it */
    bool *live;               /* per temporary: demand is not empty */
    int64_t (*khalo)[2];      /* per parameter: K halo below and above */
    bool *param_read;         /* per parameter: read by a live statement */
    bool *offset_read;        /* per field: read at a non-zero offset, or across its column
                               * (a parameter in a column reduction), by a live statement */
    bool *kdyn_read;          /* per field: read at a run-time K level by a live statement */
    bool *live_write;         /* per temporary: written by a live statement (final pass) */
    bool *any_write;          /* per temporary: written by any statement (final pass) */
    IrInterval *iv;           /* the interval being walked */
    bool changed;             /* a demand changed during this pass */
    IrField *grown;           /* the last temporary whose demand changed */
    bool final;               /* the final pass: record and remove what is dead */
    IrStmtVec dead_assigns;   /* assignments to temporaries removed by the final pass */
    VEC(Warning) warnings;
} Ext;

/* What one read adds, with the region of the statement that reads. */
typedef struct {
    Ext *x;
    const Extent *region;
} ReadCtx;

static void require_nk(IrStencil *st, int64_t nk)
{
    if (nk > st->min_nk)
        st->min_nk = nk;
}

static void grow_range(Range *r, int64_t v)
{
    if (v < r->lo)
        r->lo = v;
    if (v > r->hi)
        r->hi = v;
}

static void param_k_halo(Ext *x, IrField *f, int64_t o, bool in_column)
{
    Level lo = in_column ? (Level){false, 0} : x->iv->lo;
    Level hi = in_column ? (Level){true, 0} : x->iv->hi;
    int64_t (*h)[2] = &x->khalo[f->id];
    if (!lo.from_end && -(lo.offset + o) > (*h)[0])
        (*h)[0] = -(lo.offset + o);
    if (lo.from_end)
        require_nk(x->st, -(lo.offset + o));
    if (hi.from_end && hi.offset + o > (*h)[1])
        (*h)[1] = hi.offset + o;
    if (!hi.from_end)
        require_nk(x->st, hi.offset + o);
}

static void add_read(void *ctx, IrExpr *load, bool in_column)
{
    ReadCtx *rc = ctx;
    Ext *x = rc->x;
    IrField *f = load->load.field;
    const int64_t *off = load->load.offset;
    unsigned horizontal = f->axes & AXES_IJ;
    /* a column reduction reads a field with K at every level of its column: other
     * points than the one an output writes, so not in place (gt__bind's alias rule) */
    if (off[AXIS_I] || off[AXIS_J] || off[AXIS_K] || load->load.klevel ||
        (in_column && f->kind == IR_PARAM_FIELD && (f->axes & AXES_K)))
        x->offset_read[f->id] = true;
    if (f->kind == IR_PARAM_FIELD) {
        x->param_read[f->id] = true;
        extent_add(&f->extent, rc->region, off, horizontal);
        /* a read at a run-time level needs no K halo of its own: the
         * levels it reads are checked at run time (language.md 10.3) */
        if (load->load.klevel)
            x->kdyn_read[f->id] = true;
        else if (f->axes & AXES_K) {
            grow_range(&f->extent.r[AXIS_K], off[AXIS_K]);
            param_k_halo(x, f, off[AXIS_K], in_column);
        }
        return;
    }
    Extent *d = &x->demand[f->id];
    Extent before = *d;
    extent_add(d, rc->region, off, horizontal);
    if (f->axes & AXES_K)
        grow_range(&d->r[AXIS_K], off[AXIS_K]);
    if (!x->live[f->id] || !extent_equal(&before, d)) {
        x->live[f->id] = true;
        x->changed = true;
        x->grown = f;
    }
}

static void add_reads(Ext *x, IrExpr *e, const Extent *region)
{
    ReadCtx rc = {x, region};
    ir_for_each_load(e, add_read, &rc);
}

static void warn(Ext *x, Loc loc, char *text)
{
    vec_push(x->c->arena, &x->warnings, ((Warning){loc, text}));
}

static bool visit_stmts(Ext *x, IrStmtVec *v);
static bool visit_stmt(Ext *x, IrStmt *st);

/* A while loop (language.md 10.4). Its test and every statement in it run at
 * the same points: at a point where the test ran but a statement that
 * changes what it reads did not, the loop would never end. So the loop's
 * region is where anything after it reads what it writes (the compute domain
 * for a field parameter, the demand for a temporary), every temporary it
 * writes is computed over all of it (the loop also reads what it writes, in
 * its next round, which a single backward walk would not see), and a field
 * parameter written in a loop whose region is wider is an error. A loop that
 * writes nothing used later is dead. */
static bool visit_loop(Ext *x, IrStmt *st)
{
    static const int64_t zero[NAXES];
    IrFieldVec w = {0};
    ir_collect_writes(x->c->arena, &st->iff.then, &w);
    Extent h = extent_zero;
    bool live = false;
    const IrField *param = NULL, *wide = NULL;
    for (int i = 0; i < w.len; i++) {
        const IrField *f = w.items[i];
        if (f->kind == IR_PARAM_FIELD) {
            live = true;
            param = param ? param : f;
        } else if (x->live[f->id]) {
            live = true;
            Extent before = h;
            extent_add(&h, &x->demand[f->id], zero, AXES_IJ);
            if (!extent_equal(&before, &h))
                wide = f;
        }
    }
    if (!live) {
        visit_stmts(x, &st->iff.then);   /* the final pass removes them, with warnings */
        return false;
    }
    for (int i = 0; i < w.len; i++) {
        IrField *f = w.items[i];
        if (f->kind != IR_TEMP)
            continue;
        Extent before = x->demand[f->id];
        extent_add(&x->demand[f->id], &h, zero, AXES_IJ & f->axes);
        if (!x->live[f->id] || !extent_equal(&before, &x->demand[f->id])) {
            x->live[f->id] = true;
            x->changed = true;
            x->grown = f;
        }
    }
    visit_stmts(x, &st->iff.then);
    st->region = h;
    st->region.r[AXIS_K] = (Range){0, 0};
    add_reads(x, st->iff.cond, &st->region);
    /* h is wider than the compute domain exactly when some temporary
     * (wide) made it so: then a field parameter's statement would run on
     * less than the loop */
    if (x->final && param && wide)
        diag_error(&x->c->diag, st->loc, "this while loop writes field '%s', on the compute "
                   "domain, and temporary '%s', which is read after it at offsets that need it "
                   "over i[%" PRId64 ",%" PRId64 "] j[%" PRId64 ",%" PRId64 "]; a loop runs all "
                   "its statements at the same points: compute '%s' in a while loop that writes "
                   "no field parameter", param->name, wide->name, h.r[0].lo, h.r[0].hi,
                   h.r[1].lo, h.r[1].hi, wide->name);
    return true;
}

/* Sets the region of st from what later statements need; false if dead. */
static bool visit_stmt(Ext *x, IrStmt *st)
{
    st->region = extent_zero;
    switch (st->kind) {
    case IR_ASSIGN: {
        IrField *dst = st->assign.dst;
        bool live = dst->kind == IR_PARAM_FIELD || x->live[dst->id];
        if (live && dst->kind == IR_TEMP) {
            st->region = x->demand[dst->id];
            st->region.r[AXIS_K] = (Range){0, 0};
        }
        if (live)
            add_reads(x, st->assign.value, &st->region);
        if (x->final && dst->kind == IR_TEMP) {
            x->any_write[dst->id] = true;
            x->live_write[dst->id] = x->live_write[dst->id] || live;
            if (!live)
                vec_push(x->c->arena, &x->dead_assigns, st);
        }
        return live;
    }
    case IR_REDUCE:
        add_reads(x, st->reduce.value, &st->region);
        return true;
    case IR_IF: {
        if (st->iff.loop)
            return visit_loop(x, st);
        /* Both branches see the demand after the if. */
        bool live_then = visit_stmts(x, &st->iff.then);
        bool live_else = visit_stmts(x, &st->iff.els);
        if (!live_then && !live_else)
            return false;
        static const int64_t zero[NAXES];
        IrStmtVec *branches[2] = {&st->iff.then, &st->iff.els};
        for (int b = 0; b < 2; b++)
            for (int i = 0; i < branches[b]->len; i++)
                extent_add(&st->region, &branches[b]->items[i]->region, zero, AXES_IJ);
        add_reads(x, st->iff.cond, &st->region);
        return true;
    }
    }
    unreachable();
}

/* Visits v backwards; in the final pass removes its dead statements. Returns
 * whether any statement is live. */
static bool visit_stmts(Ext *x, IrStmtVec *v)
{
    bool any = false;
    bool *live = x->final ? arena_alloc(x->c->arena, sizeof(bool) * (size_t)(v->len + 1)) : NULL;
    for (int i = v->len - 1; i >= 0; i--) {
        bool l = visit_stmt(x, v->items[i]);
        any = any || l;
        if (live)
            live[i] = l;
    }
    if (live) {
        int keep = 0;
        for (int i = 0; i < v->len; i++)
            if (live[i])
                v->items[keep++] = v->items[i];
        v->len = keep;
    }
    return any;
}

static void visit_computation(Ext *x, IrComputation *comp)
{
    for (int i = comp->intervals.len - 1; i >= 0; i--) {
        x->iv = comp->intervals.items[i];
        visit_stmts(x, &x->iv->stmts);
    }
}

static IrWalk count_one(void *ctx, const IrStmt *s)
{
    (void)s;
    ++*(int *)ctx;
    return IR_WALK_ON;
}

/* The statements of v, nested ones too. */
static int count_stmts(const IrStmtVec *v)
{
    int n = 0;
    ir_walk_stmts(v, count_one, &n);
    return n;
}

/* The passes over one computation; false after a growth error. */
static bool walk_computation(Ext *x, IrComputation *comp)
{
    if (comp->order != ORDER_PARALLEL) {
        int limit = 2;
        for (int i = 0; i < comp->intervals.len; i++)
            limit += count_stmts(&comp->intervals.items[i]->stmts);
        for (int pass = 0;; pass++) {
            x->changed = false;
            visit_computation(x, comp);
            if (!x->changed)
                break;
            if (pass + 1 >= limit) {
                diag_error(&x->c->diag, comp->loc,
                           "the region where temporary '%s' is computed grows with every level "
                           "of this %s computation: it depends on a value of an earlier level "
                           "read at a horizontal offset; compute that value in an earlier "
                           "computation",
                           x->grown->name, iter_order_names[comp->order]);
                return false;
            }
        }
    }
    x->final = true;
    visit_computation(x, comp);
    x->final = false;
    return true;
}

static int compare_warnings(const void *a, const void *b)
{
    const Warning *x = a, *y = b;
    if (x->loc.line != y->loc.line)
        return x->loc.line < y->loc.line ? -1 : 1;
    return (x->loc.col > y->loc.col) - (x->loc.col < y->loc.col);
}

/* Fills the fields' extents, halos and flags; drops dead temporaries and
 * empty intervals and computations. */
static void finish(Ext *x)
{
    IrStencil *st = x->st;
    Arena *a = x->c->arena;
    for (int i = 0; i < x->dead_assigns.len; i++) {
        IrStmt *dead = x->dead_assigns.items[i];
        if (x->live_write[dead->assign.dst->id])   /* else the whole temporary goes */
            warn(x, dead->loc, arena_printf(a, "the value assigned to '%s' here is never used "
                                            "by an output; the assignment is removed",
                                            dead->assign.dst->name));
    }
    int kept = 0;
    for (int i = 0; i < st->fields.len; i++) {
        IrField *f = st->fields.items[i];
        f->read_at_offset = x->offset_read[f->id];
        f->read_at_run_time_k = x->kdyn_read[f->id];
        if (f->kind == IR_PARAM_FIELD) {
            f->is_read = x->param_read[f->id];
            for (int ax = 0; ax < NAXES; ax++) {
                bool along = (f->axes & (1u << ax)) && f->bc[ax].kind == BC_NONE;
                f->halo[ax][0] = along ? -f->extent.r[ax].lo : 0;
                f->halo[ax][1] = along ? f->extent.r[ax].hi : 0;
                if (ax != AXIS_K && (f->extent.r[ax].lo || f->extent.r[ax].hi))
                    f->read_at_offset = true;
            }
            if ((f->axes & AXES_K) && f->bc[AXIS_K].kind == BC_NONE) {
                f->halo[AXIS_K][0] = x->khalo[f->id][0];
                f->halo[AXIS_K][1] = x->khalo[f->id][1];
            }
            for (int ax = 0; ax < NAXES; ax++) {
                bool along = f->axes & (1u << ax);
                f->reach[ax][0] = !along ? 0 : ax == AXIS_K ? x->khalo[f->id][0]
                                                            : -f->extent.r[ax].lo;
                f->reach[ax][1] = !along ? 0 : ax == AXIS_K ? x->khalo[f->id][1]
                                                            : f->extent.r[ax].hi;
            }
        } else {
            f->extent = x->demand[f->id];
            f->is_read = x->live[f->id];
            f->is_written = x->live_write[f->id];
            if (!f->is_written) {
                if (!f->generated)
                    warn(x, f->loc, arena_printf(a, x->any_write[f->id]
                                                        ? "temporary '%s' is never used by an "
                                                          "output; its statements are removed"
                                                        : "temporary '%s' is never used; it is "
                                                          "removed", f->name));
                continue;
            }
        }
        f->id = kept;
        st->fields.items[kept++] = f;
    }
    st->fields.len = kept;

    int nc = 0;
    for (int i = 0; i < st->computations.len; i++) {
        IrComputation *comp = st->computations.items[i];
        int ni = 0;
        for (int j = 0; j < comp->intervals.len; j++)
            if (comp->intervals.items[j]->stmts.len)
                comp->intervals.items[ni++] = comp->intervals.items[j];
        comp->intervals.len = ni;
        if (ni)
            st->computations.items[nc++] = comp;
    }
    st->computations.len = nc;
}

/* Grows the alloc_halo of the temporaries that s (or a statement nested in
 * it) assigns to the region where it runs. */
static IrWalk grow_one(void *ctx, const IrStmt *s)
{
    (void)ctx;
    if (s->kind != IR_ASSIGN || s->assign.dst->kind != IR_TEMP)
        return IR_WALK_ON;
    int64_t (*h)[2] = s->assign.dst->alloc_halo;
    for (int a = 0; a < 2; a++) {
        if (-s->region.r[a].lo > h[a][0])
            h[a][0] = -s->region.r[a].lo;
        if (s->region.r[a].hi > h[a][1])
            h[a][1] = s->region.r[a].hi;
    }
    return IR_WALK_ON;
}

static void grow_alloc_halo(const IrStmt *s)
{
    ir_walk_stmt(s, grow_one, NULL);
}

/* The alloc_halo of every temporary: its extent and the regions written. */
static void alloc_halos(IrStencil *st)
{
    for (int f = 0; f < st->fields.len; f++) {
        IrField *fd = st->fields.items[f];
        if (fd->kind != IR_TEMP)
            continue;
        for (int a = 0; a < NAXES; a++) {
            fd->alloc_halo[a][0] = fd->extent.r[a].lo < 0 ? -fd->extent.r[a].lo : 0;
            fd->alloc_halo[a][1] = fd->extent.r[a].hi > 0 ? fd->extent.r[a].hi : 0;
        }
    }
    for (int c = 0; c < st->computations.len; c++)
        for (int i = 0; i < st->computations.items[c]->intervals.len; i++) {
            const IrInterval *iv = st->computations.items[c]->intervals.items[i];
            for (int s = 0; s < iv->stmts.len; s++)
                grow_alloc_halo(iv->stmts.items[s]);
        }
}

/* Warns of statements that their region keeps from ever running (language.md
 * 10.1): along an axis, the region misses [lo, n + hi) for every n, lo and hi
 * of the region where the statement is computed. A region empty on its own
 * was reported by sema; the statements of a reported `if` are not checked. */
static IrWalk never_run(void *ctx, const IrStmt *s)
{
    Ext *x = ctx;
    char miss[128] = "";
    size_t len = 0;
    for (int ax = 0; ax < 2; ax++) {
        const Range *r = &s->region.r[ax];
        if (area_never(&s->area, ax, -((int64_t)1 << 40), (int64_t)1 << 40) ||
            !area_never(&s->area, ax, r->lo, r->hi))
            continue;
        len += (size_t)snprintf(miss + len, sizeof miss - len, "%s%c[%s%" PRId64 ",%s%" PRId64
                                "]", len ? " and " : "", "ij"[ax], r->lo > 0 ? "+" : "", r->lo,
                                r->hi > 0 ? "+" : "", r->hi);
    }
    if (!len)
        return IR_WALK_ON;
    char buf[512];
    warn(x, s->loc, arena_printf(x->c->arena, "this statement never runs: its region "
         "%s misses %s, where it is computed (a region restricts where a statement runs, "
         "it never extends it)", area_text(buf, sizeof buf, &s->area), miss));
    return IR_WALK_SKIP;
}

static void ext_stencil(Compiler *c, IrStencil *st)
{
    Arena *a = c->arena;
    Ext x = {.c = c, .st = st, .nfields = st->fields.len};
    size_t n = (size_t)x.nfields + 1;
    x.demand = arena_alloc(a, sizeof *x.demand * n);
    x.live = arena_alloc(a, sizeof(bool) * n);
    x.khalo = arena_alloc(a, sizeof *x.khalo * n);
    x.param_read = arena_alloc(a, sizeof(bool) * n);
    x.offset_read = arena_alloc(a, sizeof(bool) * n);
    x.kdyn_read = arena_alloc(a, sizeof(bool) * n);
    x.live_write = arena_alloc(a, sizeof(bool) * n);
    x.any_write = arena_alloc(a, sizeof(bool) * n);
    for (int i = 0; i < st->fields.len; i++)
        st->fields.items[i]->extent = extent_zero;
    for (int i = st->computations.len - 1; i >= 0; i--)
        if (!walk_computation(&x, st->computations.items[i]))
            return;
    finish(&x);
    alloc_halos(st);
    for (int cc = 0; cc < st->computations.len; cc++)
        for (int i = 0; i < st->computations.items[cc]->intervals.len; i++)
            ir_walk_stmts(&st->computations.items[cc]->intervals.items[i]->stmts, never_run, &x);
    if (x.warnings.len)
        qsort(x.warnings.items, (size_t)x.warnings.len, sizeof *x.warnings.items,
              compare_warnings);
    for (int i = 0; i < x.warnings.len; i++)
        diag_warning(&c->diag, x.warnings.items[i].loc, "%s", x.warnings.items[i].text);
}

void ext_compute(Compiler *c)
{
    if (!c->ir || c->diag.errors)
        return;
    for (int i = 0; i < c->ir->stencils.len; i++)
        ext_stencil(c, c->ir->stencils.items[i]);
}
