/* emit_kcheck.c: reads at run-time K levels (language.md 10.3) for every
 * backend: the level a read reads, and the check that every level the
 * stencil's reads would read lies in its field's storage.
 *
 * The check runs before any statement, as a pass of its own that evaluates
 * only the level expressions. access.c makes that possible: a level
 * expression reads only inputs (fields the stencil never writes, scalars,
 * index(), constants), so its value at a point is the same before the
 * stencil runs as when the statement reads. The pass covers, for each read
 * (in execution order), every point where its statement runs: the
 * statement's horizontal region over its interval's levels, whatever the
 * conditions of the ifs and ?: around it say (a superset of the points that
 * read: never a read outside a buffer, but a call may be refused for a
 * level a masked-out point would have read). The first failure in the order
 * (read, k, j, i) is reported: GT_ESHAPE, with the field, the level, the
 * position and the storage's levels in the message, and nothing written.
 *
 * Host code (naive, openmp: an `omp parallel for` with a min reduction of
 * the failing position's rank) and device code (cuda: one kernel per read
 * that takes the minimum rank with an atomic, then, on failure, a second
 * launch that writes the failing level) report the same call the same way.
 */
#include <stdlib.h>
#include <string.h>

#include "emit.h"

/* One read at a run-time level, with where it runs. */
typedef struct {
    const IrExpr *load;
    const IrStmt *stmt;       /* the statement (or if) whose expression has it */
    const IrInterval *iv;
} KRead;
typedef VEC(KRead) KReads;

typedef struct {
    Arena *arena;
    KReads *reads;
    const IrStmt *stmt;
    const IrInterval *iv;
} Collect;

static void collect_load(void *ctx, IrExpr *load, bool in_column)
{
    (void)in_column;
    Collect *c = ctx;
    if (load->load.klevel)
        vec_push(c->arena, c->reads, ((KRead){load, c->stmt, c->iv}));
}

static void collect_stmts(Collect *c, const IrStmtVec *v)
{
    for (int i = 0; i < v->len; i++) {
        IrStmt *s = v->items[i];
        c->stmt = s;
        switch (s->kind) {
        case IR_ASSIGN: ir_for_each_load(s->assign.value, collect_load, c); break;
        case IR_REDUCE: ir_for_each_load(s->reduce.value, collect_load, c); break;
        case IR_IF:
            ir_for_each_load(s->iff.cond, collect_load, c);
            collect_stmts(c, &s->iff.then);
            collect_stmts(c, &s->iff.els);
            break;
        }
    }
}

/* Every read at a run-time level of st, in execution order. */
static KReads collect(Arena *arena, const IrStencil *st)
{
    KReads reads = {0};
    Collect c = {arena, &reads, NULL, NULL};
    for (int i = 0; i < st->computations.len; i++) {
        const IrComputation *comp = st->computations.items[i];
        for (int j = 0; j < comp->intervals.len; j++) {
            c.iv = comp->intervals.items[j];
            collect_stmts(&c, &c.iv->stmts);
        }
    }
    return reads;
}

bool emit_kcheck_any(const IrStencil *st)
{
    for (int f = 0; f < st->fields.len; f++)
        if (st->fields.items[f]->read_at_run_time_k)
            return true;
    return false;
}

const char *emit_kdyn_level(const EmitExprCtx *cx, const IrExpr *load, int64_t koff)
{
    Out t = {0};
    t.name = "";
    Arena *a = cx->es->arena;
    emit_expr(&t, cx, load->load.klevel);
    char *text = arena_alloc(a, t.len + 1);
    memcpy(text, t.buf, t.len);
    text[t.len] = '\0';
    free(t.buf);
    switch (load->load.kmode) {
    case KDYN_ADD:
        return arena_printf(a, "%s + (%s)", emit_offset(a, cx->idx[AXIS_K], koff), text);
    case KDYN_SUB:
        return arena_printf(a, "%s - (%s)", emit_offset(a, cx->idx[AXIS_K], koff), text);
    case KDYN_ABS:
        return koff ? arena_printf(a, "(%s) %c %lld", text, koff < 0 ? '-' : '+',
                                   (long long)(koff < 0 ? -koff : koff))
                    : arena_printf(a, "(%s)", text);
    case KDYN_NONE:
        break;
    }
    unreachable();
}

/* ------------------------------------------------------------ the pass */

/* The state of one stencil's check. */
typedef struct {
    Out *o;
    EmitStencil *es;
    Arena *arena;
    bool device;              /* cuda: element reads through GT_LD */
} Check;

/* "a - (b)", or a when b is "0". */
static const char *minus(Arena *arena, const char *a, const char *b)
{
    return strcmp(b, "0") == 0 ? a : arena_printf(arena, "%s - (%s)", a, b);
}

/* "(a) + b", or b when a is "0". */
static const char *plus(Arena *arena, const char *a, const char *b)
{
    return strcmp(a, "0") == 0 ? b : arena_printf(arena, "(%s) + %s", a, b);
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
static void range_of(const Check *k, const KRead *r, int a, const char **lo, const char **hi)
{
    const char *n = arena_printf(k->arena, "%s[%d]", k->es->size, a);
    if (a == AXIS_K) {
        *lo = emit_level(k->arena, n, r->iv->lo, 0);
        *hi = emit_level(k->arena, n, r->iv->hi, 0);
        if (r->load->load.kmode == KDYN_ABS && !(r->load->load.klevel->shape & AXES_K))
            *hi = arena_printf(k->arena, "%s + (%s < %s)", *lo, *lo, *hi);
        return;
    }
    const Range *g = &r->stmt->region.r[a];
    *lo = arena_printf(k->arena, "%lld", (long long)g->lo);
    *hi = emit_offset(k->arena, n, g->hi);
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
        const char *lo, *hi;
        range_of(k, r, a, &lo, &hi);
        const char *var = a == AXIS_I ? "i" : a == AXIS_J ? "j" : "k";
        const char *term = minus(k->arena, var, lo);
        rank = rank ? arena_printf(k->arena, "(%s) * (%s) + (%s)", rank, minus(k->arena, hi, lo),
                                   term)
                    : term;
    }
    return rank;
}

/* `const int64_t i = ..., ...;` from the rank in bad: the position of the
 * failure (0 along axes not looped). */
static void decode_position(const Check *k, const KRead *r, const char *bad)
{
    const char *div = "";
    const char *pos[NAXES];
    for (int a = AXIS_I; a < NAXES; a++) {
        if (!check_axis(r, a)) {
            pos[a] = "0";
            continue;
        }
        const char *lo, *hi;
        range_of(k, r, a, &lo, &hi);
        const char *q = arena_printf(k->arena, "%s%s", bad, div);
        const char *n = minus(k->arena, hi, lo);
        pos[a] = a == AXIS_K ? plus(k->arena, lo, q)
                             : plus(k->arena, lo, arena_printf(k->arena, "%s %% (%s)", q, n));
        div = arena_printf(k->arena, "%s / (%s)", div, n);
    }
    emit_line(k->o, "const int64_t i = %s, j = %s, k = %s;", pos[0], pos[1], pos[2]);
    emit_line(k->o, "(void)i; (void)j; (void)k;");
}

/* The level of read r at the point (i, j, k), as C text. */
static const char *check_level_text(Check *k, const KRead *r)
{
    EmitExprCtx cx = {.es = k->es, .idx = {"i", "j", "k"}, .load = check_load, .user = k};
    return emit_kdyn_level(&cx, r->load, r->load->load.offset[AXIS_K]);
}

/* rc = gt__error(GT_ESHAPE, ...) naming read r, at (i, j, k) reading lev,
 * outside levels lv[0] .. lv[1] - 1. */
static void report(Check *k, const KRead *r, const char *lev, const char *lv)
{
    const IrField *f = r->load->load.field;
    emit_line(k->o, "%s = gt__error(GT_ESHAPE, \"stencil '%s': '%s' read at level %%lld at "
                    "(%%lld, %%lld, %%lld), outside the levels %%lld to %%lld its storage holds "
                    "(the run-time K offset at line %d, column %d)\", (long long)%s, "
                    "(long long)i, (long long)j, (long long)k, (long long)%s[0], "
                    "(long long)%s[1] - 1);",
              k->es->rc, k->es->st->name, f->name, r->load->loc.line, r->load->loc.col, lev,
              lv, lv);
    emit_line(k->o, "goto done;");
}

/* The levels each field read at run-time levels has: lv[f]. */
static const char **declare_levels(Check *k)
{
    const IrStencil *st = k->es->st;
    const char **lv = arena_alloc(k->arena, sizeof(char *) * (size_t)(st->fields.len + 1));
    for (int f = 0; f < k->es->nfield_params; f++) {
        if (!st->fields.items[f]->read_at_run_time_k)
            continue;
        lv[f] = emit_unique(k->arena, &k->es->names,
                            arena_printf(k->arena, "%s_levels", k->es->field[f]));
        emit_line(k->o, "int64_t %s[2];", lv[f]);
        emit_line(k->o, "gt__levels(%s, %s);", k->es->field[f], lv[f]);
    }
    return lv;
}

void emit_kcheck_host(Out *o, EmitStencil *es, bool omp)
{
    const IrStencil *st = es->st;
    if (!emit_kcheck_any(st))
        return;
    Check k = {o, es, es->arena, false};
    KReads reads = collect(es->arena, st);
    emit_blank(o);
    emit_line(o, "/* Reads at run-time K levels (language.md 10.3): every level read lies in its");
    emit_line(o, "   storage, checked before anything is written; the first failure, in the");
    emit_line(o, "   order read, k, j, i, is reported. */");
    emit_line(o, "{");
    o->indent++;
    emit_line(o, "(void)%s; (void)%s; (void)%s;", es->ni, es->nj, es->nk);
    const char **lv = declare_levels(&k);
    const char *bad = emit_unique(es->arena, &es->names, "gt_bad");
    for (int d = 0; d < reads.len; d++) {
        const KRead *r = &reads.items[d];
        const char *levels = lv[r->load->load.field->id];
        emit_line(o, "{");
        o->indent++;
        emit_line(o, "int64_t %s = INT64_MAX;", bad);
        int loops = 0;
        for (int a = AXIS_K; a >= AXIS_I; a--) {
            if (!check_axis(r, a))
                continue;
            if (omp && loops == 0)
                emit_line(o, "#pragma omp parallel for%s reduction(min:%s)",
                          check_axis(r, AXIS_J) || check_axis(r, AXIS_I) ? " collapse(2)" : "",
                          bad);
            const char *lo, *hi;
            range_of(&k, r, a, &lo, &hi);
            emit_line(o, "for (int64_t %c = %s; %c < %s; %c++)%s", "ijk"[a], lo, "ijk"[a], hi,
                      "ijk"[a], " {");
            o->indent++;
            loops++;
        }
        emit_line(o, "const int64_t gt_level = %s;", check_level_text(&k, r));
        emit_line(o, "if (gt_level < %s[0] || gt_level >= %s[1]) {", levels, levels);
        emit_line(o, "    const int64_t gt_rank = %s;", rank_of(&k, r));
        emit_line(o, "    if (gt_rank < %s)", bad);
        emit_line(o, "        %s = gt_rank;", bad);
        emit_line(o, "}");
        for (int l = 0; l < loops; l++) {
            o->indent--;
            emit_line(o, "}");
        }
        emit_line(o, "if (%s != INT64_MAX) {", bad);
        o->indent++;
        decode_position(&k, r, bad);
        emit_line(o, "const int64_t gt_level = %s;", check_level_text(&k, r));
        report(&k, r, "gt_level", levels);
        o->indent--;
        emit_line(o, "}");
        o->indent--;
        emit_line(o, "}");
    }
    o->indent--;
    emit_line(o, "}");
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
    KReads reads = collect(es->arena, st);
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
        o->indent += 2;
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
        o->indent -= 2;
        emit_line(o, "{");
        o->indent++;
        emit_line(o, "const int64_t %s[3] = {gt_n0, gt_n1, gt_n2};", es->size);
        emit_line(o, "const int64_t %s = gt_n0, %s = gt_n1, %s = gt_n2;", es->ni, es->nj,
                  es->nk);
        emit_line(o, "(void)%s; (void)%s; (void)%s;", es->ni, es->nj, es->nk);
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
        const char *lo, *hi;
        for (int a = AXIS_I; a <= AXIS_J; a++) {
            if (!check_axis(r, a)) {
                emit_line(o, "const int64_t %c = 0;", "ijk"[a]);
                emit_line(o, "(void)%c;", "ijk"[a]);
                emit_line(o, "if (blockIdx.%c || threadIdx.%c)", "xy"[a], "xy"[a]);
                emit_line(o, "    return;");
                continue;
            }
            range_of(&k, r, a, &lo, &hi);
            emit_line(o, "const int64_t %c = %s;", "ijk"[a],
                  plus(es->arena, lo, arena_printf(es->arena, "(int64_t)blockIdx.%c * blockDim.%c + "
                                                   "threadIdx.%c", "xy"[a], "xy"[a], "xy"[a])));
            emit_line(o, "if (%c >= %s)", "ijk"[a], hi);
            emit_line(o, "    return;");
        }
        range_of(&k, r, AXIS_K, &lo, &hi);
        emit_line(o, "for (int64_t k = %s; k < %s; k++) {", lo, hi);
        o->indent++;
        emit_line(o, "const int64_t gt_level = %s;", check_level_text(&k, r));
        emit_line(o, "const unsigned long long gt_rank = (unsigned long long)(%s);",
                  rank_of(&k, r));
        emit_line(o, "if (gt_rank == gt_want)");
        emit_line(o, "    *gt_lev = gt_level;");
        emit_line(o, "if (gt_level < gt_lv0 || gt_level >= gt_lv1) {");
        emit_line(o, "    gt_atomic_min_rank(gt_bad, gt_rank);   /* this column's first */");
        emit_line(o, "    break;");
        emit_line(o, "}");
        o->indent--;
        emit_line(o, "}");
        o->indent--;
        emit_line(o, "}");
    }
}

void emit_kcheck_device(Out *o, EmitStencil *es, const char *flag)
{
    const IrStencil *st = es->st;
    if (!emit_kcheck_any(st))
        return;
    Check k = {o, es, es->arena, true};
    KReads reads = collect(es->arena, st);
    emit_line(o, "/* Reads at run-time K levels (language.md 10.3): every level read lies in "
                 "its");
    emit_line(o, "   storage, checked on the device before anything is written; the first "
                 "failure,");
    emit_line(o, "   in the order read, k, j, i, is reported. */");
    emit_line(o, "{");
    o->indent++;
    const char **lv = declare_levels(&k);
    emit_line(o, "int64_t gt_fs[3];");
    emit_line(o, "unsigned long long *const gt_flag = (unsigned long long *)gt__device_temporary("
                 "&%s, GT_FLOAT64, \"I\", (const int64_t[3]){2, 1, 1}, (const int64_t[6]){0}, "
                 "gt_fs);", flag);
    emit_alloc_check(o, es, "gt_flag");
    for (int d = 0; d < reads.len; d++) {
        const KRead *r = &reads.items[d];
        bool *uses = arena_alloc(es->arena, sizeof(bool) * (size_t)(st->fields.len + 1));
        ir_for_each_load(r->load->load.klevel, mark_level_field, uses);
        const char *levels = lv[r->load->load.field->id];
        emit_line(o, "{");
        o->indent++;
        const char *lo[NAXES], *hi[NAXES];
        for (int a = 0; a < NAXES; a++) {
            if (a == AXIS_K || check_axis(r, a))
                range_of(&k, r, a, &lo[a], &hi[a]);
            else
                lo[a] = "0", hi[a] = "1";
        }
        emit_line(o, "unsigned long long gt_host[2] = {~0ull, 0};");
        emit_line(o, "%s = gt__device_copy(\"stencil '%s'\", gt_flag, gt_host, sizeof gt_host, 1);",
                  es->rc, st->name);
        emit_line(o, "if (%s != 0)", es->rc);
        emit_line(o, "    goto done;");
        emit_line(o, "const int64_t gt_ni = %s, gt_nj = %s;", minus(es->arena, hi[0], lo[0]),
                  minus(es->arena, hi[1], lo[1]));
        emit_line(o, "const dim3 gt_grid = GT_GRID((gt_ni + 31) / 32, (gt_nj + 7) / 8), "
                     "gt_block = GT_BLOCK(32, 8);");
        for (int pass = 0; pass < 2; pass++) {
            /* pass 0: the first failure's rank; pass 1, after one: its level */
            emit_line(o, pass ? "if (gt_host[0] != ~0ull) {" : "if (gt_ni > 0 && gt_nj > 0 && "
                      "%s < %s) {", lo[2], hi[2]);
            o->indent++;
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
            emit_line(o, "%s = gt__device_copy(\"stencil '%s'\", gt_host, gt_flag, sizeof gt_host, "
                         "0);", es->rc, st->name);
            emit_line(o, "if (%s != 0)", es->rc);
            emit_line(o, "    goto done;");
            if (pass) {
                emit_line(o, "const int64_t gt_bad = (int64_t)gt_host[0];");
                decode_position(&k, r, "gt_bad");
                emit_line(o, "const long long gt_level = (long long)gt_host[1];");
                report(&k, r, "gt_level", levels);
            }
            o->indent--;
            emit_line(o, "}");
        }
        o->indent--;
        emit_line(o, "}");
    }
    o->indent--;
    emit_line(o, "}");
}
