/* access.c: the access rules of language.md sections 5 and 6, a pass on the
 * IR of every stencil that sema.c lowered without errors.
 *
 * It walks each stencil in execution order and checks every read against
 * what is written around it: no statement (or if) reads at an offset, or
 * over its column in a parallel computation, what it writes itself; a field
 * parameter written in a computation is read in it only at zero horizontal
 * offset; a temporary read at a horizontal offset in a forward/backward
 * computation is computed before it, in an earlier computation; and every
 * read of a temporary finds its K levels computed by statements that run
 * earlier (per interval, the temporaries definitely written so far: both
 * branches of an if, or before it; a write in a region only for reads in that
 * region, as a write in an if block only for reads in that block). It reports
 * each problem once per statement and changes nothing.
 *
 * It also checks the reads at run-time K levels (language.md 10.3, and
 * docs/language.md 5.7): the field read so is an input without a K boundary
 * condition, not inside a column reduction. Its level expression may read
 * anything an int expression may; whether the generated code checks the levels
 * before any statement runs (the expression reads only inputs) or as each read
 * happens (it reads computed values) is emit_kcheck.c's choice. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gtcc.h"

/* Where a write of a field ran: the union of areas, each of them within it (a write in
   a region, or regions merged by add_piece); NULL where a Cover is expected: everywhere. */
typedef struct Cover {
    Area area;
    const struct Cover *next;
} Cover;

/* A range of K levels [lo, hi), computed where area says (NULL: everywhere). */
typedef struct {
    Level lo, hi;
    const Cover *area;
} LevelRange;
typedef VEC(LevelRange) LevelRanges;
typedef VEC(Area) Areas;

/* A set of fields of one stencil: a flag per field, and the fields whose flag
 * is set, in the order they were added. An if joins what its branches add
 * (fieldset_join) in time proportional to those fields, not to the fields of
 * the stencil: a stencil of n if blocks that each declare temporaries takes
 * linear time and memory, not quadratic. */
typedef struct {
    bool *has;                /* per field: in the set */
    int *at;                  /* per field in the set: its index in added */
    VEC(int) added;           /* the ids of the fields in the set, each once */
    int *mark;                /* per field: the last join that saw it in a then branch */
    int joins;                /* the number of joins so far */
} FieldSet;

/* The Cover of field id before the innermost branch of an if changed it. */
typedef struct {
    int id;
    const Cover *old;
} Saved;

/* The two branches of an if as the walk goes through them (branches_begin). */
typedef struct {
    int start, then_end;      /* what the then branch added to `written` */
    const Cover **then;       /* where it wrote, from then_areas */
    int saved;                /* the first entry of Rules.saved made in the if */
    Saved *then_changed;      /* the Covers the then branch changed, where it left them */
    int nthen_changed;
    int outer_start, outer;   /* Rules.branch_start and .branch outside the if */
} Branches;

/* An open group of pieces of an if that sema.c split by region (split_next). */
typedef struct {
    const IrStmt *of;         /* the source if of the group */
    Branches b;               /* its then pieces, then its else pieces */
    bool in_else;             /* the else pieces have begun (branches_else) */
    bool inside;              /* the walk is in one of its pieces */
} SplitGroup;

/* The state of the access-rule walk over one stencil. */
typedef struct {
    Compiler *c;
    IrStencil *st;
    int nfields;
    IrComputation *comp;
    int iv_index;             /* the current interval, in execution order */
    IrInterval *iv;
    int pos;                  /* the current top-level statement, in execution order */
    IrStmt *top;
    IrFieldVec top_writes;       /* what the current top-level statement writes */
    bool *param_written;      /* per field: written in the current computation */
    int *last_write;          /* per field: last top-level position writing it in it */
    IrStmt **last_writer;     /* per field: the top-level statement at last_write */
    bool **end_written;       /* per interval: per field, definitely written in it */
    const Cover ***end_area;  /* per interval: per field written in it, where (as warea) */
    FieldSet written;         /* definitely written so far in the interval */
    const Cover **warea;      /* per field of written: where it was written (NULL: everywhere) */
    Areas *pieces;            /* per field: regions written outside if blocks since (add_piece) */
    const Area *read_area;    /* the region of the statement whose reads are checked */
    bool read_domain;         /* and whether it runs on the compute domain only */
    int *then_pos;            /* per field: its place among a then branch's writes */
    LevelRanges *avail;       /* per field: levels computed by earlier computations */
    IrField *reported_field;  /* the last error, to report a statement's repeats once */
    IrStmt *reported_top;
    VEC(SplitGroup) groups;   /* the open groups of pieces of split ifs, innermost last */
    /* A branch of an if may widen where a field written before the if was written: the
       old Cover of each such field is saved (once per branch) and put back when the
       branch ends (walk_if). */
    VEC(Saved) saved;
    int branch_start;         /* written->added.len where the innermost branch began */
    int branch;               /* the innermost branch's number (saved_in) */
    int branches;             /* branches numbered so far */
    int *saved_in;            /* per field: the number of the branch that last saved it */
    const IrStmt **cond_write; /* per field: an earlier assignment that runs under an if
                                  whose other branch does not assign it, or in a while
                                  loop (cond_writes), for the message of check_levels */
    bool *cond_in_loop;       /* per field: that assignment is in a while loop */
} Rules;

static void fieldset_init(Arena *a, FieldSet *s, int nfields)
{
    size_t n = (size_t)nfields + 1;
    s->has = arena_alloc(a, sizeof(bool) * n);
    s->at = arena_alloc(a, sizeof(int) * n);
    s->mark = arena_alloc(a, sizeof(int) * n);
}

static void fieldset_add(Arena *a, FieldSet *s, int id)
{
    if (!s->has[id]) {
        s->has[id] = true;
        s->at[id] = s->added.len;
        vec_push(a, &s->added, id);
    }
}

/* Empties s, in time proportional to its size. */
static void fieldset_clear(FieldSet *s)
{
    for (int i = 0; i < s->added.len; i++)
        s->has[s->added.items[i]] = false;
    s->added.len = 0;
}

/* The then branch of an if has added s->added[start, then_end) to s: s forgets
 * them, the way it was before the if, for the else branch. */
static void fieldset_undo(FieldSet *s, int start, int then_end)
{
    for (int i = start; i < then_end; i++)
        s->has[s->added.items[i]] = false;
}

/* After an if whose then branch added s->added[start, then_end) (undone by
 * fieldset_undo) and whose else branch added the rest: s keeps only what both
 * branches added (with what it held before the if). */
static void fieldset_join(FieldSet *s, int start, int then_end)
{
    int join = ++s->joins;
    for (int i = start; i < then_end; i++)
        s->mark[s->added.items[i]] = join;
    int kept = start;
    for (int i = then_end; i < s->added.len; i++) {
        int id = s->added.items[i];
        if (s->mark[id] == join) {
            s->at[id] = kept;
            s->added.items[kept++] = id;
        } else {
            s->has[id] = false;
        }
    }
    s->added.len = kept;
}

static bool top_writes(const Rules *r, const IrField *f)
{
    for (int i = 0; i < r->top_writes.len; i++)
        if (r->top_writes.items[i] == f)
            return true;
    return false;
}

/* Is position a (counted from the domain's start, or from its end when a_end) at most
   position b, for every domain size n >= 0? */
static bool pos_le(bool a_end, int64_t a, bool b_end, int64_t b)
{
    return a_end == b_end ? a <= b : !a_end && a <= b;   /* a <= n + b for every n >= 0 */
}

/* A bound's positions: from the start (at_end false) or from `end`. */
typedef struct {
    int n;
    bool at_end[2];
    int64_t pos[2];
} Positions;

static Positions positions(const AreaBound *b)
{
    Positions p = {0};
    if (b->has_start)
        p.at_end[p.n] = false, p.pos[p.n++] = b->start;
    if (b->has_end)
        p.at_end[p.n] = true, p.pos[p.n++] = b->end;
    return p;
}

/* Is position i of xs at most one of ys (every: all of them)? */
static bool le_some(const Positions *xs, int i, const Positions *ys, bool every)
{
    for (int k = 0; k < ys->n; k++)
        if (pos_le(xs->at_end[i], xs->pos[i], ys->at_end[k], ys->pos[k]) != every)
            return !every;
    return every;
}

/* Is bound x at most bound y for every domain size (a sufficient test)? A lower bound
   (x_lo, y_lo) is the greatest of its positions, -inf without one; an upper bound the
   least, +inf without one. */
static bool bound_le(const AreaBound *x, bool x_lo, const AreaBound *y, bool y_lo)
{
    Positions px = positions(x), py = positions(y);
    if ((x_lo && px.n == 0) || (!y_lo && py.n == 0))
        return true;
    if (px.n == 0 || py.n == 0)
        return false;
    if (x_lo) {   /* max(X) <= y: each x below the greatest y (some), the least (every) */
        for (int i = 0; i < px.n; i++)
            if (!le_some(&px, i, &py, !y_lo))
                return false;
        return true;
    }
    if (y_lo) {   /* min(X) <= max(Y): some x below some y */
        for (int i = 0; i < px.n; i++)
            if (le_some(&px, i, &py, false))
                return true;
        return false;
    }
    /* min(X) <= min(Y): each y above some x */
    for (int k = 0; k < py.n; k++) {
        bool some = false;
        for (int i = 0; i < px.n && !some; i++)
            some = pos_le(px.at_end[i], px.pos[i], py.at_end[k], py.pos[k]);
        if (!some)
            return false;
    }
    return true;
}

/* Does in's range along axis ax lie within out's, for every domain size? */
static bool range_in(const Area *in, const Area *out, int ax)
{
    return !out->set[ax] || (in->set[ax] && bound_le(&out->lo[ax], true, &in->lo[ax], true) &&
                             bound_le(&in->hi[ax], false, &out->hi[ax], false));
}

/* Does a statement restricted to region in (NULL: none) run only at points of area out, for
   every domain size? (A sufficient test: each bound of in as tight as out's or tighter,
   bounds of either kind compared as positions.) */
static bool area_in(const Area *in, const Area *out)
{
    return in && range_in(in, out, 0) && range_in(in, out, 1);
}

/* ... only at points where a write of Cover out ran (NULL: everywhere)? */
static bool area_within(const Area *in, const Cover *out)
{
    if (!out)
        return true;
    for (const Cover *c = out; c; c = c->next)
        if (area_in(in, &c->area))
            return true;
    return false;
}

static bool cover_equal(const Cover *a, const Cover *b)
{
    for (; a && b; a = a->next, b = b->next)
        if (!area_equal(&a->area, &b->area))
            return false;
    return !a && !b;
}

/* An area within a | b for every domain size, into *out: along axis x, from a's lower
   bound to b's upper one, where b's range starts within a's or where it ends (a point
   below a's upper bound lies in a's range, one above it in b's); along the other axis,
   the range of the one that lies within the other's (region(i(0, 2)) and
   region(i(2, end)) make region(i(0, end))). */
static bool area_join(const Area *a, const Area *b, int x, Area *out)
{
    int y = 1 - x;
    if (!a->set[x] || !b->set[x] || !bound_le(&b->lo[x], true, &a->hi[x], false))
        return false;
    if (range_in(a, b, y))
        *out = *a;
    else if (range_in(b, a, y))
        *out = *b;
    else
        return false;
    out->lo[x] = a->lo[x];
    out->hi[x] = b->hi[x];
    return true;
}

static const Area *stmt_area(const IrStmt *st)
{
    return area_any(&st->area) ? &st->area : NULL;
}

/* The points a read at offset off may read, for a statement restricted to in (NULL:
   none): in shifted by the horizontal offset, into *buf. With domain set the statement
   runs on the compute domain only (it writes an output, or reduces into an out scalar), so
   its points lie in [0, end) too: that bound is added (a bound of each kind means the
   greater lower, the lesser upper one). A statement writing a temporary may run beyond
   the domain (its extent, not known yet), so its region alone bounds it. */
static const Area *read_points(const Area *in, const int64_t *off, bool domain, Area *buf)
{
    if (!domain && (!in || (!off[AXIS_I] && !off[AXIS_J])))
        return in;
    *buf = in ? *in : (Area){0};
    for (int ax = 0; ax < 2; ax++) {
        AreaBound *lo = &buf->lo[ax], *hi = &buf->hi[ax];
        if (domain) {
            if (!buf->set[ax])
                *lo = *hi = (AreaBound){0};
            buf->set[ax] = true;
            if (!lo->has_start || lo->start < 0)
                lo->has_start = true, lo->start = 0;
            if (!hi->has_end || hi->end > 0)
                hi->has_end = true, hi->end = 0;
        }
        int64_t o = off[ax == 0 ? AXIS_I : AXIS_J];
        lo->start += o, lo->end += o, hi->start += o, hi->end += o;
    }
    return buf;
}

/* At most this many areas in a field's pieces (more are left out: a sufficient test). */
enum { MAX_PIECES = 16 };

/* The Cover of the union of areas a[0, n): those no other of them holds (of equal ones,
   the first), at most MAX_PIECES of them. An area that another holds adds no point, and
   leaving it out keeps the Covers that cover_meet multiplies short. */
static const Cover *cover_of(Rules *r, const Area *a, int n)
{
    const Cover *cover = NULL;
    int kept = 0;
    for (int i = 0; i < n && kept < MAX_PIECES; i++) {
        bool held = false;
        for (int k = 0; k < n && !held; k++)
            held = k != i && area_in(&a[i], &a[k]) && (k < i || !area_in(&a[k], &a[i]));
        if (held)
            continue;
        Cover *c = arena_alloc(r->c->arena, sizeof *c);
        *c = (Cover){a[i], cover};
        cover = c;
        kept++;
    }
    return cover;
}

/* A write of field id in region where, outside if blocks, after others in regions: the
   regions written since the last write without one (r->pieces) and those merged from them
   where they touch or overlap (area_join) make the field's Cover. */
static void add_piece(Rules *r, int id, const Area *where)
{
    Areas *pieces = &r->pieces[id];
    if (pieces->len == 0)
        for (const Cover *c = r->warea[id]; c; c = c->next)
            vec_push(r->c->arena, pieces, c->area);
    for (Area cur = *where; pieces->len < MAX_PIECES;) {
        bool known = false;
        for (int i = 0; i < pieces->len && !known; i++)
            known = area_in(&cur, &pieces->items[i]);
        if (known)
            break;
        vec_push(r->c->arena, pieces, cur);
        /* the first join of it with a piece that no piece holds */
        bool grown = false;
        for (int i = 0; i < pieces->len - 1 && !grown; i++)
            for (int t = 0; t < 4 && !grown; t++) {
                Area m;
                const Area *p = &pieces->items[i];
                if (!area_join(t < 2 ? p : &cur, t < 2 ? &cur : p, t % 2, &m))
                    continue;
                grown = true;
                for (int k = 0; k < pieces->len && grown; k++)
                    grown = !area_in(&m, &pieces->items[k]);
                if (grown)
                    cur = m;
            }
        if (!grown)
            break;
    }
    r->warea[id] = cover_of(r, pieces->items, pieces->len);
}

/* Before the Cover of field id, in written, changes: saves it where the field was written
   before the innermost branch of an if began (the change is put back when the branch
   ends, so that the other branch starts from where the if did). */
static void will_change(Rules *r, const FieldSet *written, int id)
{
    if (written->has[id] && written->at[id] < r->branch_start && r->saved_in[id] != r->branch) {
        r->saved_in[id] = r->branch;
        vec_push(r->c->arena, &r->saved, ((Saved){id, r->warea[id]}));
    }
}

/* Puts back the Covers saved since entry `from` of r->saved, latest first. */
static void restore_saved(Rules *r, int from)
{
    for (int i = r->saved.len - 1; i >= from; i--) {
        int id = r->saved.items[i].id;
        r->warea[id] = r->saved.items[i].old;
        r->pieces[id].len = 0;
    }
    r->saved.len = from;
}

/* Assignment st writes its destination into written, where it runs. An unrestricted write
   widens an earlier one in a region; so does one in a region that touches or overlaps it
   (add_piece). In a branch of an if, the widening lasts to the end of the branch, and
   after the if, where both branches widened (walk_if). */
static void add_write(Rules *r, FieldSet *written, const IrStmt *st)
{
    int id = st->assign.dst->id;
    const Area *where = stmt_area(st);
    will_change(r, written, id);
    if (!written->has[id] || !where) {
        Cover *c = NULL;
        if (where) {
            c = arena_alloc(r->c->arena, sizeof *c);
            c->area = *where;
        }
        r->warea[id] = c;
        r->pieces[id].len = 0;
    } else if (r->warea[id]) {
        add_piece(r, id, where);
    }
    fieldset_add(r->c->arena, written, id);
}

/* Before fieldset_undo: the regions of the writes the then branch added, s->added[start,
   then_end), in that order. */
static const Cover **then_areas(Rules *r, const FieldSet *s, int start, int then_end)
{
    const Cover **t = arena_alloc(r->c->arena, sizeof *t * (size_t)(then_end - start + 1));
    for (int i = start; i < then_end; i++)
        t[i - start] = r->warea[s->added.items[i]];
    return t;
}

/* Where both of covers t and e (NULL: everywhere) say a write ran: the intersections of
   an area of each (cover_of: at most MAX_PIECES that no other holds). */
static const Cover *cover_meet(Rules *r, const Cover *t, const Cover *e)
{
    if (!t || !e)
        return t ? t : e;
    Areas both = {0};
    for (const Cover *a = t; a; a = a->next)
        for (const Cover *b = e; b; b = b->next) {
            Area m = a->area;
            area_intersect(&m, &b->area);
            vec_push(r->c->arena, &both, m);
        }
    return cover_of(r, both.items, both.len);
}

/* fieldset_join, and a field both branches wrote gets where both wrote it (a branch
   without a region, the other's; two covers, their intersection: where the write ran
   whatever the condition). */
static void join_writes(Rules *r, FieldSet *s, int start, int then_end, const Cover **then)
{
    for (int i = start; i < then_end; i++)
        r->then_pos[s->added.items[i]] = i - start;
    fieldset_join(s, start, then_end);
    for (int i = start; i < s->added.len; i++) {
        int id = s->added.items[i];
        const Cover *t = then[r->then_pos[id]], *e = r->warea[id];
        if (t != e && !cover_equal(t, e))
            r->warea[id] = cover_meet(r, t, e);
    }
}

/* Whether field id is among the n entries of s. */
static bool in_saved(const Saved *s, int n, int id)
{
    for (int i = 0; i < n; i++)
        if (s[i].id == id)
            return true;
    return false;
}

/* Begins the then branch of an if. */
static void branches_begin(Rules *r, Branches *b, const FieldSet *written)
{
    *b = (Branches){.start = written->added.len, .saved = r->saved.len,
                    .outer_start = r->branch_start, .outer = r->branch};
    r->branch_start = b->start;
    r->branch = ++r->branches;
}

/* Ends the then branch and begins the else branch: written and the Covers the then
   branch changed are as before the if (where it left them is kept for branches_end). */
static void branches_else(Rules *r, Branches *b, FieldSet *written)
{
    b->then_end = written->added.len;
    b->then = then_areas(r, written, b->start, b->then_end);
    fieldset_undo(written, b->start, b->then_end);
    b->nthen_changed = r->saved.len - b->saved;
    b->then_changed = arena_alloc(r->c->arena, sizeof(Saved) * (size_t)(b->nthen_changed + 1));
    for (int i = 0; i < b->nthen_changed; i++) {
        int id = r->saved.items[b->saved + i].id;
        b->then_changed[i] = (Saved){id, r->warea[id]};
    }
    restore_saved(r, b->saved);
    r->branch = ++r->branches;
}

/* Ends the else branch: written keeps what both branches wrote (join_writes), and a field
   written before the if gets where both branches left it (one that did not change it: as
   before), a change of the branch around the if. */
static void branches_end(Rules *r, Branches *b, FieldSet *written)
{
    int nelse = r->saved.len - b->saved;
    Saved *both = arena_alloc(r->c->arena,
                              sizeof *both * (size_t)(b->nthen_changed + nelse + 1));
    int n = 0;
    for (int i = 0; i < b->nthen_changed; i++) {
        int id = b->then_changed[i].id;
        both[n++] = (Saved){id, cover_meet(r, b->then_changed[i].old, r->warea[id])};
    }
    for (int i = 0; i < nelse; i++) {
        int id = r->saved.items[b->saved + i].id;
        const Cover *before = r->saved.items[b->saved + i].old;
        if (!in_saved(b->then_changed, b->nthen_changed, id))
            both[n++] = (Saved){id, cover_meet(r, before, r->warea[id])};
    }
    restore_saved(r, b->saved);
    r->branch_start = b->outer_start;
    r->branch = b->outer;
    join_writes(r, written, b->start, b->then_end, b->then);
    for (int i = 0; i < n; i++) {
        int id = both[i].id;
        if (cover_equal(both[i].old, r->warea[id]))
            continue;
        will_change(r, written, id);
        r->warea[id] = both[i].old;
        r->pieces[id].len = 0;
    }
}

/* The pieces of an if that sema.c split by region (IrStmt.iff.split_of): they join what
   their two groups write as one if joins its branches. A group's pieces are consecutive in
   the walk, but where the split if was itself in a branch of an if split by region, its
   pieces are spread over the pieces of the outer one (each starting one of their
   branches): a group stays open, pending, across the ends of those lists, until the walk
   meets a statement that does not continue it. */
static void split_else(Rules *r, SplitGroup *g, FieldSet *written)
{
    branches_else(r, &g->b, written);
    g->in_else = true;
}

/* Closes the innermost open group: what both of its groups wrote stays written. */
static void split_close(Rules *r, FieldSet *written)
{
    SplitGroup *g = &r->groups.items[r->groups.len - 1];
    if (!g->in_else)
        split_else(r, g, written);
    r->groups.len--;
    branches_end(r, &g->b, written);
}

/* Is statement st a piece of the group of `of`, or a piece whose branch begins with one? */
static bool split_continues(const IrStmt *st, const IrStmt *of)
{
    while (st->kind == IR_IF && st->iff.split_of) {
        if (st->iff.split_of == of)
            return true;
        const IrStmtVec *b = st->iff.then.len ? &st->iff.then : &st->iff.els;
        if (!b->len)
            return false;
        st = b->items[0];
    }
    return false;
}

/* Before statement st of any list: closes the pending groups st does not continue, opens
   st's group if it is a piece of a new one, and undoes the then pieces' writes before the
   first else piece. */
static void split_next(Rules *r, const IrStmt *st, FieldSet *written)
{
    while (r->groups.len) {
        const SplitGroup *t = &r->groups.items[r->groups.len - 1];
        if (t->inside || split_continues(st, t->of))
            break;
        split_close(r, written);
    }
    const IrStmt *of = st->kind == IR_IF ? st->iff.split_of : NULL;
    if (!of)
        return;
    int g = r->groups.len - 1;
    while (g >= 0 && r->groups.items[g].of != of)
        g--;
    if (g < 0) {
        vec_push(r->c->arena, &r->groups, ((SplitGroup){.of = of}));
        g = r->groups.len - 1;
        branches_begin(r, &r->groups.items[g].b, written);
    }
    if (!r->groups.items[g].in_else && !st->iff.then.len) {
        /* an if's branches lie in one branch of an if around it: the groups inside this
           one's then pieces have closed */
        if (g != r->groups.len - 1)
            unreachable();
        split_else(r, &r->groups.items[g], written);
    }
}

/* Marks the walk as in (or out of) piece st of its open group. */
static void split_inside(Rules *r, const IrStmt *st, bool in)
{
    for (int g = r->groups.len - 1; g >= 0; g--)
        if (r->groups.items[g].of == st->iff.split_of) {
            r->groups.items[g].inside = in;
            return;
        }
    unreachable();
}

/* After a list that no piece of a group opened in it can follow (a branch of an if that
   was not split, an interval's statements): closes the groups above the first n. */
static void split_close_to(Rules *r, FieldSet *written, int n)
{
    while (r->groups.len > n)
        split_close(r, written);
}

/* The walk of an if's branches by walk (definite_writes, rules_stmts): a piece of an if
   that sema.c split by region walks its branch in its group (split_next joins the group);
   any other if keeps what both branches write (join_writes). */
static void walk_if(Rules *r, const IrStmt *st, FieldSet *written,
                    void (*walk)(Rules *r, const IrStmtVec *v, FieldSet *written))
{
    if (st->iff.split_of) {
        split_inside(r, st, true);
        walk(r, &st->iff.then, written);
        walk(r, &st->iff.els, written);
        split_inside(r, st, false);
        return;
    }
    int open = r->groups.len;
    Branches b;
    branches_begin(r, &b, written);
    walk(r, &st->iff.then, written);
    split_close_to(r, written, open);
    branches_else(r, &b, written);
    walk(r, &st->iff.els, written);
    split_close_to(r, written, open);
    branches_end(r, &b, written);
}

/* Definite writes of one statement list: `written` gains what it assigns
 * on every path (an if assigns what both of its branches assign). */
static void definite_writes(Rules *r, const IrStmtVec *v, FieldSet *written)
{
    for (int i = 0; i < v->len; i++) {
        IrStmt *st = v->items[i];
        split_next(r, st, written);
        if (st->kind == IR_ASSIGN)
            add_write(r, written, st);
        else if (st->kind == IR_IF)
            walk_if(r, st, written, definite_writes);
    }
}

static bool covered(LevelRange need, const LevelRanges *have, int64_t *min_nk, Level *gap)
{
    Level cur = need.lo;
    int64_t nk = 0;
    while (level_cmp(cur, need.hi) < 0) {
        const LevelRange *best = NULL;
        for (int i = 0; i < have->len; i++) {
            const LevelRange *h = &have->items[i];
            if (level_cmp(h->lo, cur) <= 0 && level_cmp(cur, h->hi) < 0 &&
                (!best || level_cmp(h->hi, best->hi) > 0))
                best = h;
        }
        if (!best) {
            *gap = cur;
            return false;
        }
        int64_t need_nk = level_min_nk(best->lo, cur);
        nk = need_nk > nk ? need_nk : nk;
        cur = best->hi;
    }
    int64_t need_nk = level_min_nk(need.hi, cur);
    nk = need_nk > nk ? need_nk : nk;
    if (nk > *min_nk)
        *min_nk = nk;
    return true;
}

static Level shifted(Level l, int64_t by)
{
    l.offset += by;
    return l;
}

/* The NK from which interval [lo, hi) holds a level: interval(1, end) none for NK = 1. */
static int64_t nonempty_nk(Level lo, Level hi)
{
    return level_min_nk(shifted(lo, 1), hi);
}

/* An earlier write of a temporary without K, over levels [lo, hi) where `where` says, for
   a read of points `in` by an interval holding a level from NK reads_from: where it covers
   them, *ok, and *nk lowered to the NK from which it holds a level whenever the reader
   does (0 where the reader needs a larger NK anyway). */
static void kless_write(const Area *in, Level lo, Level hi, const Cover *where,
                        int64_t reads_from, bool *ok, int64_t *nk)
{
    int64_t from = nonempty_nk(lo, hi), need = from > reads_from ? from : 0;
    if (area_within(in, where) && need < *nk) {
        *ok = true;
        *nk = need;
    }
}

static bool report_once(Rules *r, IrField *f)
{
    if (r->reported_field == f && r->reported_top == r->top)
        return false;
    r->reported_field = f;
    r->reported_top = r->top;
    return true;
}

/* Does a write of f that a read in region in does not count (it ran in a region that may
   leave the read's points out) come before it? For the message. */
static bool region_write_before(const Rules *r, const IrField *f, const Area *in)
{
    if (r->written.has[f->id] && !area_within(in, r->warea[f->id]))
        return true;
    for (int i = 0; i < r->avail[f->id].len; i++)
        if (!area_within(in, r->avail[f->id].items[i].area))
            return true;
    for (int i = 0; i < r->comp->intervals.len; i++)
        if (r->end_written[i][f->id] && !area_within(in, r->end_area[i][f->id]))
            return true;
    return false;
}

static const char region_hint[] = "; a statement in a region computes it only in that region, "
                                  "and the points this read reads may lie outside it";

static bool writes_field(const IrFieldVec *v, const IrField *f)
{
    for (int i = 0; i < v->len; i++)
        if (v->items[i] == f)
            return true;
    return false;
}

/* Adds to out the fields that list v assigns on every path: its assignments, and what both
   branches of an if assign (nothing for a while loop, which may run no round, nor for a
   piece of an if split by region). */
static void sure_writes(Arena *a, const IrStmtVec *v, IrFieldVec *out)
{
    for (int i = 0; i < v->len; i++) {
        const IrStmt *st = v->items[i];
        if (st->kind == IR_ASSIGN && !writes_field(out, st->assign.dst))
            vec_push(a, out, st->assign.dst);
        if (st->kind != IR_IF || st->iff.loop || st->iff.split_of)
            continue;
        IrFieldVec then = {0}, els = {0};
        sure_writes(a, &st->iff.then, &then);
        sure_writes(a, &st->iff.els, &els);
        for (int f = 0; f < then.len; f++)
            if (writes_field(&els, then.items[f]) && !writes_field(out, then.items[f]))
                vec_push(a, out, then.items[f]);
    }
}

/* Records in r->cond_write the assignments of list v that are not sure writes
   (sure_writes): in a while loop (in_loop), or under an if whose other branch does not
   surely assign the field (other), unless an if around it surely does (covered). The
   pieces of an if split by region are left out: the region hint speaks for them. */
static void cond_writes(Rules *r, const IrStmtVec *v, const IrFieldVec *other,
                        const IrFieldVec *covered, bool in_loop)
{
    Arena *a = r->c->arena;
    for (int i = 0; i < v->len; i++) {
        const IrStmt *st = v->items[i];
        if (st->kind == IR_ASSIGN && !writes_field(covered, st->assign.dst) &&
            (in_loop || (other && !writes_field(other, st->assign.dst)))) {
            r->cond_write[st->assign.dst->id] = st;
            r->cond_in_loop[st->assign.dst->id] = in_loop;
        }
        if (st->kind != IR_IF || st->iff.split_of)
            continue;
        IrFieldVec then = {0}, els = {0}, inner = {0};
        if (!st->iff.loop) {
            sure_writes(a, &st->iff.then, &then);
            sure_writes(a, &st->iff.els, &els);
            sure_writes(a, &(IrStmtVec){(IrStmt **)&v->items[i], 1, 1}, &inner);
        }
        for (int f = 0; f < covered->len; f++)
            if (!writes_field(&inner, covered->items[f]))
                vec_push(a, &inner, covered->items[f]);
        bool loop = in_loop || st->iff.loop;
        cond_writes(r, &st->iff.then, &els, &inner, loop);
        cond_writes(r, &st->iff.els, &then, &inner, loop);
    }
}

/* The end of a message of check_levels for a field that a conditional assignment
   (cond_writes) writes before the read; "" for none. */
static const char *cond_hint(const Rules *r, const IrField *f)
{
    if (!r->cond_write[f->id])
        return "";
    return r->cond_in_loop[f->id] ? "; an assignment in a while loop does not count, since the "
                                "loop may run no round: give it a value before the loop"
                              : "; an assignment under an if counts only where every branch "
                                "assigns it: give it a value before the if, or assign it in "
                                "the other branch too";
}

/* After an error that ended in cond_hint's hint (used): a note at the assignment it means. */
static void cond_note(Rules *r, const IrField *f, bool used)
{
    if (used && r->cond_write[f->id])
        diag_note(&r->c->diag, r->cond_write[f->id]->loc, r->cond_in_loop[f->id]
                  ? "'%s' is assigned here, in a while loop"
                  : "'%s' is assigned here, under an if", f->name);
}

/* Reading temporary f at K offset o needs its levels computed before. */
static void check_levels(Rules *r, IrExpr *load, bool in_column)
{
    IrField *f = load->load.field;
    IterOrder order = r->comp->order;
    int64_t o = load->load.offset[AXIS_K];
    Area shifted_area;   /* a write in a region counts where it covers the points read */
    const Area *in = read_points(r->read_area, load->load.offset, r->read_domain,
                                 &shifted_area);
    if (!(f->axes & AXES_K)) {
        /* A write in an earlier interval counts only where that interval holds a level:
           interval(1, end) holds none for NK = 1, where interval(0, end) reads. The NK
           from which the writer holds a level whenever the reader does joins min_nk (the
           least over the writes that count); an empty domain (NK = 0) reads nothing. */
        bool ok = r->written.has[f->id] && area_within(in, r->warea[f->id]);
        int64_t nk = ok ? 0 : INT64_MAX;
        int64_t reads_from = nonempty_nk(r->iv->lo, r->iv->hi);
        for (int i = 0; i < r->avail[f->id].len; i++) {
            const LevelRange *h = &r->avail[f->id].items[i];
            kless_write(in, h->lo, h->hi, h->area, reads_from, &ok, &nk);
        }
        for (int i = 0; i < r->iv_index; i++) {
            const IrInterval *iv = r->comp->intervals.items[i];
            if (r->end_written[i][f->id])
                kless_write(in, iv->lo, iv->hi, r->end_area[i][f->id], reads_from, &ok, &nk);
        }
        if (ok && nk > r->st->min_nk)
            r->st->min_nk = nk;
        if (!ok && report_once(r, f)) {
            bool region = region_write_before(r, f, in);
            const char *hint = region ? region_hint : cond_hint(r, f);
            diag_error(&r->c->diag, load->loc, "temporary '%s' is read before any statement assigns "
                       "it%s", f->name, hint);
            cond_note(r, f, !region);
        }
        return;
    }
    LevelRanges have = {0};
    Arena *a = r->c->arena;
    for (int i = 0; i < r->avail[f->id].len; i++)
        if (area_within(in, r->avail[f->id].items[i].area))
            vec_push(a, &have, r->avail[f->id].items[i]);
    bool processed = order == ORDER_FORWARD ? o < 0 : o > 0;   /* levels already done */
    bool now = r->written.has[f->id] && area_within(in, r->warea[f->id]);
    for (int i = 0; i < r->comp->intervals.len; i++) {
        IrInterval *iv = r->comp->intervals.items[i];
        bool use;
        bool then = r->end_written[i][f->id] && area_within(in, r->end_area[i][f->id]);
        if (order == ORDER_PARALLEL)
            use = i < r->iv_index ? then : i == r->iv_index && now;
        else if (in_column)
            use = false;
        else if (processed)
            use = then;
        else
            use = o == 0 && i == r->iv_index && now;
        if (use)
            vec_push(a, &have, ((LevelRange){iv->lo, iv->hi, NULL}));
    }
    LevelRange need = in_column ? (LevelRange){{false, o}, {true, o}, NULL}
                                : (LevelRange){shifted(r->iv->lo, o), shifted(r->iv->hi, o), NULL};
    Level gap;
    if (covered(need, &have, &r->st->min_nk, &gap) || !report_once(r, f))
        return;
    char g[32], lo[32], hi[32], kbuf[32];
    snprintf(kbuf, sizeof kbuf, "k%+" PRId64, o);
    const char *hint = "";
    bool cond = false;   /* the hint is cond_hint's */
    if (order != ORDER_PARALLEL && o != 0 && !processed && r->last_write[f->id] >= 0)
        hint = order == ORDER_FORWARD ? "; in a forward computation the levels above the "
                                        "current one are computed later"
                                      : "; in a backward computation the levels below the "
                                        "current one are computed later";
    else if (order != ORDER_PARALLEL && in_column && r->last_write[f->id] >= 0)
        hint = "; the column is complete only after the computation that computes it";
    else if (region_write_before(r, f, in))
        hint = region_hint;
    else {
        hint = cond_hint(r, f);
        cond = true;
    }
    if (in_column)
        diag_error(&r->c->diag, load->loc, "temporary '%s' is read over the whole column, but no "
                   "earlier statement computes it at level %s%s", f->name, level_text(g, gap),
                   hint);
    else
        diag_error(&r->c->diag, load->loc, "temporary '%s' is read%s%s in interval(%s, %s), but no "
                   "earlier statement computes it at level %s%s", f->name, o ? " at " : "",
                   o ? kbuf : "", level_text(lo, r->iv->lo), level_text(hi, r->iv->hi),
                   level_text(g, gap), hint);
    cond_note(r, f, cond);
}

/* After an error about load's horizontal offset: the function's read that put it there. */
static void via_note(Rules *r, const IrExpr *load)
{
    if (load->load.via.file)
        diag_note(&r->c->diag, load->load.via, "through this read at an offset in function '%s'",
                  load->load.via_fn);
}

static void check_read(void *ctx, IrExpr *load, bool in_column)
{
    Rules *r = ctx;
    IrField *f = load->load.field;
    const int64_t *off = load->load.offset;
    bool horizontal = off[AXIS_I] || off[AXIS_J];
    bool parallel = r->comp->order == ORDER_PARALLEL;
    char buf[96];
    if (top_writes(r, f) && (horizontal || (parallel && (off[AXIS_K] || in_column)))) {
        if (!report_once(r, f))
            return;
        const char *what = r->top->kind != IR_IF ? "statement"
                           : r->top->iff.loop ? "while loop" : "if";
        if (in_column && !horizontal)
            diag_error(&r->c->diag, load->loc, "'%s' is reduced over its column in the %s that writes "
                       "it, in a parallel computation: the result would depend on the order of "
                       "the levels; write the result into another %s", f->name, what,
                       f->kind == IR_TEMP ? "temporary" : "field");
        else if (r->top->kind == IR_IF)
            diag_error(&r->c->diag, load->loc, "'%s' is written inside this %s, so it cannot be read "
                       "at an offset (%s) inside it; compute what the %s reads before it", f->name,
                       what, ir_offset_text(buf, off), r->top->iff.loop ? "loop" : "if");
        else
            diag_error(&r->c->diag, load->loc, "'%s' is read at %s by the statement that writes it; "
                       "the result would depend on the order of the points: write the result "
                       "into another %s", f->name, ir_offset_text(buf, off),
                       f->kind == IR_TEMP ? "temporary" : "field");
        if (horizontal)
            via_note(r, load);
        return;
    }
    if (f->kind == IR_PARAM_FIELD) {
        if (horizontal && r->param_written[f->id] && report_once(r, f)) {
            diag_error(&r->c->diag, load->loc, "field '%s' is written in this computation, so it can "
                       "be read in it only at zero horizontal offset, not at %s; compute the new "
                       "values into a temporary, read that at offsets, and copy it into '%s'",
                       f->name, ir_offset_text(buf, off), f->name);
            via_note(r, load);
        }
        return;
    }
    if (horizontal && !parallel && r->last_write[f->id] >= r->pos) {
        if (report_once(r, f)) {
            diag_error(&r->c->diag, load->loc, "temporary '%s' is read at a horizontal offset (%s) "
                       "before it is written in this %s computation: its extent would grow with "
                       "every level; compute it in an earlier computation", f->name,
                       ir_offset_text(buf, off),
                       r->comp->order == ORDER_FORWARD ? "forward" : "backward");
            if (r->last_write[f->id] > r->pos)
                diag_note(&r->c->diag, r->last_writer[f->id]->loc, "the last write of '%s' in "
                          "this computation, after the read in its order of statements",
                          f->name);
            via_note(r, load);
        }
        return;
    }
    check_levels(r, load, in_column);
}

static void rules_stmts(Rules *r, const IrStmtVec *v, FieldSet *written);

static void rules_stmt(Rules *r, IrStmt *st)
{
    r->read_area = stmt_area(st);
    r->read_domain = st->kind == IR_REDUCE ||
                     (st->kind == IR_ASSIGN && st->assign.dst->kind == IR_PARAM_FIELD);
    switch (st->kind) {
    case IR_ASSIGN:
        ir_for_each_load(st->assign.value, check_read, r);
        add_write(r, &r->written, st);
        break;
    case IR_REDUCE:
        ir_for_each_load(st->reduce.value, check_read, r);
        break;
    case IR_IF: {
        ir_for_each_load(st->iff.cond, check_read, r);
        walk_if(r, st, &r->written, rules_stmts);
        break;
    }
    }
}

/* The rules of each statement of v; written: r->written (walk_if's form). */
static void rules_stmts(Rules *r, const IrStmtVec *v, FieldSet *written)
{
    for (int i = 0; i < v->len; i++) {
        split_next(r, v->items[i], written);
        rules_stmt(r, v->items[i]);
    }
}

static void rules_computation(Rules *r, IrComputation *comp)
{
    Arena *a = r->c->arena;
    size_t n = sizeof(bool) * (size_t)r->nfields;
    r->comp = comp;
    memset(r->param_written, 0, n);
    for (int f = 0; f < r->nfields; f++)
        r->last_write[f] = -1;
    r->end_written = arena_alloc(a, sizeof(bool *) * (size_t)(comp->intervals.len + 1));
    r->end_area = arena_alloc(a, sizeof(const Cover **) * (size_t)(comp->intervals.len + 1));
    int pos = 0;
    for (int i = 0; i < comp->intervals.len; i++) {
        IrInterval *iv = comp->intervals.items[i];
        r->end_written[i] = arena_alloc(a, n);
        r->end_area[i] = arena_alloc(a, sizeof(const Cover *) * (size_t)(r->nfields + 1));
        fieldset_clear(&r->written);
        definite_writes(r, &iv->stmts, &r->written);
        split_close_to(r, &r->written, 0);
        for (int w = 0; w < r->written.added.len; w++) {
            int f = r->written.added.items[w];
            r->end_written[i][f] = true;
            r->end_area[i][f] = r->warea[f];
        }
        for (int j = 0; j < iv->stmts.len; j++, pos++) {
            r->top_writes.len = 0;
            ir_collect_writes(r->c->arena, &(IrStmtVec){&iv->stmts.items[j], 1, 1}, &r->top_writes);
            for (int w = 0; w < r->top_writes.len; w++) {
                IrField *f = r->top_writes.items[w];
                r->last_write[f->id] = pos;
                r->last_writer[f->id] = iv->stmts.items[j];
                if (f->kind == IR_PARAM_FIELD)
                    r->param_written[f->id] = true;
            }
        }
    }
    r->pos = 0;
    for (int i = 0; i < comp->intervals.len; i++) {
        r->iv_index = i;
        r->iv = comp->intervals.items[i];
        fieldset_clear(&r->written);
        for (int j = 0; j < r->iv->stmts.len; j++, r->pos++) {
            r->top = r->iv->stmts.items[j];
            r->top_writes.len = 0;
            ir_collect_writes(r->c->arena, &(IrStmtVec){&r->iv->stmts.items[j], 1, 1},
                              &r->top_writes);
            split_next(r, r->top, &r->written);
            rules_stmt(r, r->top);
            cond_writes(r, &(IrStmtVec){&r->iv->stmts.items[j], 1, 1}, NULL, &(IrFieldVec){0},
                        false);
        }
        split_close_to(r, &r->written, 0);
    }
    for (int i = 0; i < comp->intervals.len; i++) {
        IrInterval *iv = comp->intervals.items[i];
        for (int f = 0; f < r->nfields; f++)
            if (r->end_written[i][f])
                vec_push(a, &r->avail[f], ((LevelRange){iv->lo, iv->hi, r->end_area[i][f]}));
    }
}

/* ------------------------------------------------ run-time K levels */

static void kdyn_read(void *ctx, IrExpr *load, bool in_column)
{
    Compiler *c = ctx;
    if (!load->load.klevel)
        return;
    IrField *f = load->load.field;
    if (in_column)
        diag_error(&c->diag, load->loc, "'%s' is read at a run-time K offset inside a column "
                   "reduction; reduce a temporary that holds the read instead", f->name);
    else if (f->is_written)
        diag_error(&c->diag, load->loc, "field '%s' is written by this stencil, so it cannot be "
                   "read at a run-time K offset; pass its input values as another field",
                   f->name);
    else if (f->bc[AXIS_K].kind != BC_NONE)
        diag_error(&c->diag, load->loc, "field '%s' has a boundary condition along K, so it "
                   "cannot be read at a run-time K offset (the levels read must lie in its "
                   "storage)", f->name);
}

static IrWalk kdyn_stmt(void *ctx, const IrStmt *s)
{
    Compiler *c = ctx;
    if (diag_full(&c->diag))
        return IR_WALK_STOP;
    ir_for_each_load(ir_stmt_expr(s), kdyn_read, c);
    return IR_WALK_ON;
}

static void access_stencil(Compiler *c, IrStencil *st)
{
    for (int i = 0; i < st->computations.len; i++) {
        IrComputation *comp = st->computations.items[i];
        for (int j = 0; j < comp->intervals.len; j++)
            ir_walk_stmts(&comp->intervals.items[j]->stmts, kdyn_stmt, c);
    }
    Arena *a = c->arena;
    Rules r = {.c = c, .st = st, .nfields = st->fields.len};
    size_t n = (size_t)r.nfields + 1;
    r.param_written = arena_alloc(a, sizeof(bool) * n);
    r.last_write = arena_alloc(a, sizeof(int) * n);
    r.last_writer = arena_alloc(a, sizeof(IrStmt *) * n);
    fieldset_init(a, &r.written, r.nfields);
    r.avail = arena_alloc(a, sizeof(LevelRanges) * n);
    r.warea = arena_alloc(a, sizeof(const Cover *) * n);
    r.pieces = arena_alloc(a, sizeof(Areas) * n);
    r.then_pos = arena_alloc(a, sizeof(int) * n);
    r.saved_in = arena_alloc(a, sizeof(int) * n);
    r.cond_write = arena_alloc(a, sizeof(const IrStmt *) * n);
    r.cond_in_loop = arena_alloc(a, sizeof(bool) * n);
    for (int i = 0; i < st->computations.len && !diag_full(&c->diag); i++)
        rules_computation(&r, st->computations.items[i]);
}

/* ---- iterate (language.md 11): a step writes only the first field of each pair and
 * reads the second. */
typedef struct {
    Compiler *c;
    IrStencil *st;
    bool *written;            /* per field: written by some statement */
    bool *read;               /* per field: read by some statement */
    bool *reported;           /* per field: its write (or its read before it) reported */
} IterRules;

static IrWalk iterate_stmt(void *ctx, const IrStmt *s)
{
    IterRules *r = ctx;
    const IrExpr *e = ir_stmt_expr(s);
    for (int f = 0; e && f < r->st->fields.len; f++)
        if (r->st->fields.items[f]->kind == IR_PARAM_FIELD &&
            ir_reads_field(e, r->st->fields.items[f]))
            r->read[f] = true;
    /* a pair's next field read before the first statement that writes it (a sweep's
       statement may read the levels it wrote before): the step would read the scratch
       values S_steps leaves there, which are not those of single calls with swaps */
    for (int p = 0; e && p < r->st->pairs.len; p++) {
        const IrPair *q = &r->st->pairs.items[p];
        if (r->written[q->next->id] || r->reported[q->next->id] ||
            !ir_reads_field(e, q->next) ||
            (s->kind == IR_ASSIGN && s->assign.dst == q->next))
            continue;
        r->reported[q->next->id] = true;
        diag_error(&r->c->diag, s->loc, "iterate: the stencil reads '%s', the first field of "
                   "pair '%s -> %s', before it writes it; a step's '%s' holds nothing before "
                   "the step writes it (it is scratch between steps): read '%s', or compute "
                   "'%s' first", q->next->name, q->next->name, q->cur->name, q->next->name,
                   q->cur->name, q->next->name);
    }
    if (s->kind != IR_ASSIGN || s->assign.dst->kind != IR_PARAM_FIELD)
        return IR_WALK_ON;
    const IrField *dst = s->assign.dst;
    r->written[dst->id] = true;
    const IrPair *in = NULL;
    for (int p = 0; p < r->st->pairs.len; p++) {
        if (r->st->pairs.items[p].next == dst)
            return IR_WALK_ON;
        if (r->st->pairs.items[p].cur == dst)
            in = &r->st->pairs.items[p];
    }
    if (r->reported[dst->id])
        return IR_WALK_ON;
    r->reported[dst->id] = true;
    if (in)
        diag_error(&r->c->diag, s->loc, "iterate: the stencil writes '%s', the second field of "
                   "pair '%s -> %s'; a step writes the first field of each pair and reads the "
                   "second", dst->name, in->next->name, dst->name);
    else
        diag_error(&r->c->diag, s->loc, "iterate: the stencil writes '%s', which is in no pair "
                   "of iterate; a step writes only the first field of each pair, other fields "
                   "are inputs constant over the steps", dst->name);
    return IR_WALK_ON;
}

static void access_iterate(Compiler *c, IrStencil *st)
{
    Arena *a = c->arena;
    size_t n = (size_t)st->fields.len + 1;
    IterRules r = {c, st, arena_alloc(a, n), arena_alloc(a, n), arena_alloc(a, n)};
    for (int i = 0; i < st->computations.len; i++) {
        IrComputation *comp = st->computations.items[i];
        for (int j = 0; j < comp->intervals.len; j++)
            ir_walk_stmts(&comp->intervals.items[j]->stmts, iterate_stmt, &r);
    }
    for (int p = 0; p < st->pairs.len; p++) {
        const IrPair *q = &st->pairs.items[p];
        if (!r.written[q->next->id])
            diag_error(&c->diag, q->loc, "iterate: the stencil never writes '%s', the first "
                       "field of pair '%s -> %s'; a step writes it from '%s'", q->next->name,
                       q->next->name, q->cur->name, q->cur->name);
        if (!r.read[q->cur->id])
            diag_error(&c->diag, q->loc, "iterate: the stencil never reads '%s', the second "
                       "field of pair '%s -> %s'; a step reads it to write '%s'", q->cur->name,
                       q->next->name, q->cur->name, q->next->name);
    }
}

void access_check(Compiler *c, IrStencil *st)
{
    if (!st->complete)   /* the rules assume a complete IR */
        return;
    access_stencil(c, st);
    if (st->pairs.len)
        access_iterate(c, st);
}
