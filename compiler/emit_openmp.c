/* emit_openmp.c: the optimized C backend (OpenMP threads, SIMD, cache
 * blocking), the default backend.
 *
 * It follows the plan of fuse.c (kernels, groups, temporary classes, shared
 * buffers) and gives the naive backend's numbers: every point is evaluated
 * with the same operations in the same order, only the order of points and
 * where intermediate values live change. (Full reductions run as `omp simd
 * reduction` along each row into a per-thread partial, the partials combined
 * in thread order: deterministic for a binary and a thread count, equal to
 * the naive sum up to reassociation, and exactly to its min and max.)
 *
 * Shape of a generated function:
 *
 *     int S(fields..., scalars..., const gt_domain *domain)
 *     {
 *         argument checks (gt__bind), field pointers and strides
 *         FULL temporaries (gt__temporary, shared buffers), per-thread tiles
 *         if (every field has unit stride along I and no output aliases)
 *             the body with I stride 1, restrict pointers    (fast path)
 *         else
 *             the same body with every stride a variable     (generic path)
 *         out scalars; release
 *     }
 *
 * In the body, a parallel computation runs each group of kernels as one
 * `omp for` over (level, J block, I block); inside a block, row steps jt, at
 * each of which every kernel computes its row jt - lag (IrKernel.lag; a
 * group of one kernel just loops over its rows), the contiguous axis I
 * innermost under `omp simd`. Tiles are rings of rows (row j at j & (R - 1)).
 * Columnar forward/backward computations of one column group run as one
 * `omp for` over blocks of columns, each block through all their levels (the
 * carried values of the level just computed stay in L1); in the generic path,
 * when every field parameter has unit K stride, one column at a time instead,
 * the k-cached values carried in locals. Other forward/backward computations
 * loop over levels, each kernel an `omp for` over rows.
 *
 * Boundary conditions: for each kernel the reads of fields with a boundary
 * condition give, per axis, the offsets [lo, hi] they reach. A row whose J or
 * K position could reach outside runs its points with remapped reads (as the
 * naive backend), and within a row the points whose I reads stay inside run
 * without any check, between two slabs of width lo and hi that remap. On the
 * fast path, the fields a kernel only reads are read through row pointers that
 * apply the conditions along J and K once per row (rows_scan): where they serve
 * every such read, no row is left to the scalar path, and the inner points run
 * as whole vectors, the last one overlapping (ROW_VECTOR). */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

/* The plan this backend asks for (fuse.c), and its cache blocks: 256 x BJ
 * points of one level (parallel computations; BJ from 64 down to 8 at run
 * time, halved while there are fewer than 8 blocks per thread) or 256 x 4
 * whole columns (columnar computations). Tiles' rows start 64-byte aligned. */
static const PlanParams openmp_plan = {
    .tiles = true,
    .recompute_max_nodes = 24,
    .recompute_max_ops = 16,
    .recompute_full_loads = 12,
    .block_i = 256,
    .block_j_max = 64,
    .block_j_min = 8,
    .blocks_per_thread = 8,
    .block_j_column = 4,
};
enum { TILE_ALIGN = 64 };
/* The points of a row's whole vectors where kernel_rows computes the last one
 * twice (64 bytes of float). */
enum { ROW_VECTOR = 16 };

/* A thread's slice of the tile block is whole pages plus one page of gap: the
 * hardware prefetchers of one core, running past the end of its tiles, then
 * never fetch lines another core is writing (with slices packed back to back,
 * hdiff ran 8-15% slower on the development machine). */
enum { SLICE_ALIGN = 4096 };

typedef struct {
    int owner;                /* field id of its first temporary */
    int64_t halo[2];          /* tiles: I lower, upper */
    int64_t width, height;    /* tiles: elements per row (padded), rows (the power of 2
                                 at least its temporary's tile_rows: row j of the block
                                 is row j & (height - 1)) */
    int64_t pad;              /* tiles: elements before the block's first point */
    int64_t offset;           /* tiles: element offset in a thread's slice */
    const char *name, *off;   /* tiles: pointer, per-block offset */
} Buffer;

/* A row pointer of kernel_rows: field f's row at offset (dj, dk) from the
 * row (j, k) being computed, as its boundary conditions along J and K give it
 * (the row of the Dirichlet constant where one applies). */
typedef struct {
    const IrField *f;
    int64_t dj, dk;
    const char *name;
} RowRead;

typedef struct {
    Compiler *c;
    Out *o;
    EmitStencil *es;
    const IrStencil *st;
    Buffer *bufs;             /* by IrField.buffer (FULL and TILE numbered apart) */
    int nbufs;
    int64_t tile_bytes;       /* per thread */
    const char **si, **sj, **sk;      /* per field: stride names */
    const char **rp;          /* per field: restrict pointer of the fast path */
    const char *tiles, *tiles_mem, *nth, *ib, *jb, *ie, *je, *jt, *bj, *unit, *kk, *bk, *kb, *ke;
    const char *i_in, *i_in0, *i_out, *i_out0, *row_slab, *slab, *i0, *x;  /* kernel_rows' locals */
    const char **edge;        /* per field: its row of the Dirichlet constant (row_field_edge), or NULL */
    const char **edge_buf;    /* per field: the allocation behind edge */
    /* while emitting */
    bool fast;                /* unit-stride path */
    VEC(RowRead) rows;        /* the row pointers of the kernel being emitted (fast path) */
    const char *rows_k;       /* the level variable they were taken at */
    bool rows_all;            /* they serve every read along J and K that a condition remaps */
    bool rows_missed;         /* ... and yet a read of the kind was emitted without one */
    bool safe;                /* remapped reads */
    EmitPoint point;          /* the point body of the kernel being emitted (and the
                                 column path's k-cache) */
} Omp;

/* The OpenMP reduction identifier of a full reduction: the built-in ones,
 * and for floating-point min/max the ones declared by
 * emit_declare_reductions, which keep gt_min_double's treatment of NaN. */
static const char *reduction_id(RedOp op, Type t)
{
    if (op == RED_SUM)
        return t == TY_INT ? "gt_isum" : "+";   /* ints wrap (gt_iadd) */
    bool is_min = op == RED_MIN;
    if (t == TY_DOUBLE)
        return is_min ? "gt_fmin" : "gt_fmax";
    if (t == TY_FLOAT)
        return is_min ? "gt_fminf" : "gt_fmaxf";
    if (t == TY_BOOL)
        return is_min ? "&&" : "||";
    return is_min ? "min" : "max";
}

/* Does any full reduction of the file take the min or max of reals, or the
 * sum of ints (the reductions emit_declare_reductions declares)? */
static bool has_declared_reduction(const Compiler *c)
{
    for (int s = 0; s < c->ir->stencils.len; s++) {
        const IrStencil *st = c->ir->stencils.items[s];
        if (!st->fused)
            continue;
        for (int ci = 0; ci < st->computations.len; ci++)
            for (int ii = 0; ii < st->computations.items[ci]->intervals.len; ii++) {
                const IrInterval *iv = st->computations.items[ci]->intervals.items[ii];
                for (int k = 0; k < iv->stmts.len; k++) {
                    const IrStmt *x = iv->stmts.items[k];
                    if (x->kind != IR_REDUCE)
                        continue;
                    Type t = x->reduce.dst->type;
                    if (x->reduce.op == RED_SUM ? t == TY_INT
                                                : t == TY_DOUBLE || t == TY_FLOAT)
                        return true;
                }
            }
    }
    return false;
}

/* The reductions of reduction_id that OpenMP does not have built in. */
static void emit_declare_reductions(Out *o)
{
    static const char *const decl[][3] = {
        {"gt_fmin", "double", "gt_min_double"}, {"gt_fmax", "double", "gt_max_double"},
        {"gt_fminf", "float", "gt_min_float"}, {"gt_fmaxf", "float", "gt_max_float"},
    };
    emit_line(o, "/* min and max of reals as the naive code takes them (gt_min_double ...: a");
    emit_line(o, "   NaN loses), for `omp simd reduction`. */");
    emit_line(o, "#ifdef _OPENMP");
    for (int d = 0; d < 4; d++)
        emit_line(o, "#pragma omp declare reduction(%s : %s : omp_out = %s(omp_out, omp_in)) "
                     "initializer(omp_priv = NAN)",
                  decl[d][0], decl[d][1], decl[d][2]);
    emit_line(o, "/* a sum of ints wraps, as the naive code's gt_iadd does */");
    emit_line(o, "#pragma omp declare reduction(gt_isum : int32_t : omp_out = gt_iadd(omp_out, "
                 "omp_in)) initializer(omp_priv = 0)");
    emit_line(o, "#endif");
}

/* ============================================================ expressions */

/* ============================================================ row pointers */

/* f has a boundary condition along axis a (one of its axes). */
static bool row_bc(const IrField *f, int a)
{
    return (f->axes & (1u << a)) && f->bc[a].kind != BC_NONE;
}

/* Parameter f can be read through row pointers: it has I, no condition
 * along I but Dirichlet (checked at each point), one Dirichlet constant for
 * all its axes (bit for bit: the value a read outside along any of them
 * gives) and no read at a run-time level. */
static bool row_field(const IrField *f)
{
    if (f->kind != IR_PARAM_FIELD || !(f->axes & AXES_I) || f->read_at_run_time_k)
        return false;
    if (row_bc(f, AXIS_I) && f->bc[AXIS_I].kind != BC_DIRICHLET)
        return false;
    const double *value = NULL;
    for (int a = 0; a < NAXES; a++) {
        if (!row_bc(f, a) || f->bc[a].kind != BC_DIRICHLET)
            continue;
        if (value && memcmp(value, &f->bc[a].value, sizeof *value) != 0)
            return false;
        value = &f->bc[a].value;
    }
    return true;
}

/* ... and its rows outside along J or K hold its Dirichlet constant: it needs
 * a row of it (omp_function allocates one per call). */
static bool row_field_edge(const IrField *f)
{
    return row_field(f) &&
           ((row_bc(f, AXIS_J) && f->bc[AXIS_J].kind == BC_DIRICHLET) ||
            (row_bc(f, AXIS_K) && f->bc[AXIS_K].kind == BC_DIRICHLET));
}

/* The row pointer of the kernel for f's row at off (along the axes f has), if any. */
static const RowRead *row_at(const Omp *m, const IrField *f, const int64_t off[NAXES])
{
    int64_t dj = f->axes & AXES_J ? off[AXIS_J] : 0, dk = f->axes & AXES_K ? off[AXIS_K] : 0;
    for (int x = 0; x < m->rows.len; x++) {
        const RowRead *row = &m->rows.items[x];
        if (row->f == f && row->dj == dj && row->dk == dk)
            return row;
    }
    return NULL;
}

/* The row pointer serving a read of f at off from the point of cx, if any. */
static const RowRead *row_find(const Omp *m, const EmitExprCtx *cx, const IrField *f,
                               const int64_t off[NAXES])
{
    if (cx->idx[AXIS_J].kind != EV_NAME || strcmp(cx->idx[AXIS_J].term, "j") != 0 ||
        cx->idx[AXIS_K].kind != EV_NAME || strcmp(cx->idx[AXIS_K].term, m->rows_k) != 0)
        return NULL;
    return row_at(m, f, off);
}

/* A kernel's scan for row pointers: the fields it writes (so far, and in
 * all), whether a point can be computed twice (no field read before the
 * kernel writes it) and whether the rows serve every read that a condition
 * along J or K remaps. */
typedef struct {
    Omp *m;
    bool *written, *written_before;
    bool twice, all;
} RowScan;

static void row_scan_read(void *ctx, const IrField *f, const int64_t off[NAXES], bool in_column)
{
    RowScan *x = ctx;
    Omp *m = x->m;
    if (x->written[f->id] && !x->written_before[f->id])
        x->twice = false;
    if (f->kind != IR_PARAM_FIELD)
        return;
    if (in_column || !row_field(f) || x->written[f->id] || (row_field_edge(f) && !m->edge[f->id])) {
        if (row_bc(f, AXIS_J) || row_bc(f, AXIS_K))
            x->all = false;
        return;
    }
    if (row_at(m, f, off))
        return;
    Arena *arena = m->c->arena;
    RowRead row = {f, f->axes & AXES_J ? off[AXIS_J] : 0, f->axes & AXES_K ? off[AXIS_K] : 0,
                   emit_unique(arena, &m->es->names,
                               arena_printf(arena, "%s_row", m->es->field[f->id]))};
    vec_push(arena, &m->rows, row);
}

/* Sets up the row pointers of kernel k (m->rows, rows_k, rows_all) and says
 * whether its points may be computed twice (the overlapping last vector of
 * a row). */
static bool rows_scan(Omp *m, const IrInterval *iv, const IrKernel *k, const char *kvar)
{
    int nf = m->st->fields.len;
    RowScan x = {m, arena_alloc(m->c->arena, (size_t)(nf + 1)),
                 arena_alloc(m->c->arena, (size_t)(nf + 1)), !k->reduce, true};
    for (int s = k->first; s < k->first + k->count; s++)
        ir_walk_stmt(iv->stmts.items[s], emit_mark_assigned, x.written);
    m->rows.len = 0;
    for (int s = k->first; s < k->first + k->count; s++) {
        plan_visit_reads(iv->stmts.items[s], row_scan_read, &x);
        ir_walk_stmt(iv->stmts.items[s], emit_mark_assigned, x.written_before);
    }
    m->rows_k = kvar;
    m->rows_all = x.all;
    m->rows_missed = false;
    return x.twice;
}

/* The row pointers of the kernel, at the start of row j. */
static void rows_declare(Omp *m)
{
    Arena *arena = m->c->arena;
    for (int x = 0; x < m->rows.len; x++) {
        const RowRead *row = &m->rows.items[x];
        const IrField *f = row->f;
        const int64_t off[NAXES] = {0, row->dj, row->dk};
        const EmitVal idx[NAXES] = {emit_val_name("i"), emit_val_name("j"),
                                    emit_val_name(m->rows_k)};
        const bool remap[NAXES] = {false, true, true};
        EmitRead r = emit_read(arena, m->es, f, idx, off, remap);
        EmitVal pos[NAXES] = {{0}, r.pos[AXIS_J], r.pos[AXIS_K]};
        const char *stride[NAXES] = {NULL, m->sj[f->id], m->sk[f->id]};
        emit_begin_line(m->o);
        emit_text(m->o, "const %s *restrict const %s = ", emit_c_type(f->type), row->name);
        if (r.dirichlet)
            emit_text(m->o, "%s ? %s : ", r.dirichlet, m->edge[f->id]);
        emit_text(m->o, "&");
        emit_element(m->o, m->rp[f->id], pos, stride);
        emit_text(m->o, ";");
        emit_end_line(m->o);
        emit_line(m->o, "(void)%s;", row->name);
    }
}

/* An array or a tile at offset off from the point of cx (emit_point.c
 * handles scalars and recomputed temporaries). */
static void omp_access(Out *o, const EmitExprCtx *cx, const IrField *f, const int64_t off[NAXES],
                       bool write)
{
    Omp *m = ((EmitPoint *)cx->user)->user;
    Arena *arena = m->c->arena;
    if (f->kind == IR_TEMP && f->temp_class == IR_TEMP_TILE) {
        const Buffer *b = &m->bufs[f->buffer];
        emit_text(o, "%s[%s + %s + ((%s) & %" PRId64 ") * %" PRId64 "]", b->name, b->off,
                  emit_val_text(arena, emit_val_add(cx->idx[AXIS_I], off[AXIS_I]), PREC_ADD),
                  emit_val_text(arena, emit_val_add(cx->idx[AXIS_J], off[AXIS_J]), 0),
                  b->height - 1, b->width);
        return;
    }
    if (!write && m->rows.len) {
        const RowRead *row = row_find(m, cx, f, off);
        if (row) {
            /* through its row pointer: only I left to remap */
            bool remap[NAXES] = {m->safe || m->point.preload, false, false};
            EmitRead r = emit_read(arena, m->es, f, cx->idx, off, remap);
            EmitVal pos[NAXES] = {r.pos[AXIS_I]};
            const char *stride[NAXES] = {NULL, NULL, NULL};
            emit_read_open(o, &r, f->type);
            emit_element(o, row->name, pos, stride);
            emit_read_close(o, &r);
            return;
        }
        if (m->rows_all && !m->safe && !m->point.preload && f->kind == IR_PARAM_FIELD &&
            (row_bc(f, AXIS_J) || row_bc(f, AXIS_K)))
            m->rows_missed = true;
    }
    /* an array: position per axis, remapped where a boundary condition applies */
    bool remap[NAXES];
    for (int a = 0; a < NAXES; a++)
        remap[a] = !write && (m->safe || m->point.preload ||
                              (a == AXIS_K && cx->idx[a].term == m->kk));
    EmitRead r = emit_read(arena, m->es, f, cx->idx, off, remap);
    emit_read_open(o, &r, f->type);
    const char *base = m->es->data[f->id];
    if (m->fast && m->rp[f->id])
        base = m->rp[f->id];
    const char *stride[NAXES] = {m->fast ? NULL : m->si[f->id], m->sj[f->id], m->sk[f->id]};
    emit_element(o, base, r.pos, stride);
    emit_read_close(o, &r);
}

/* The point body of kernel k (kvar: the level's variable). */
static void point_body(Omp *m, const IrInterval *iv, const IrKernel *k, const char *kvar)
{
    m->point.o = m->o;
    emit_point_body(&m->point, iv, k, kvar);
}

/* ============================================================ loops */

/* How a kernel covers a block: its I and J ranges [lo, hi), and their C text. */
typedef struct {
    EmitVal lo[2], hi[2];
    const char *ilo, *ihi, *jlo, *jhi;
} Ranges;

static const char *plus(Arena *arena, const char *base, int64_t d)
{
    return emit_offset(arena, base, d);
}

/* The ranges of a kernel over the block [ib, ie) x [jb, je), or over the
 * whole domain when blocked is false. */
static Ranges kernel_ranges(Omp *m, const IrInterval *iv, const IrKernel *k, bool blocked)
{
    Arena *arena = m->c->arena;
    const IrStmt *s0 = iv->stmts.items[k->first];
    Extent r = s0->region;
    bool redundant = blocked && k->redundant;
    Ranges out;
    const char *lo[2] = {m->ib, m->jb}, *hi[2] = {m->ie, m->je};
    const char *n[2] = {m->es->ni, m->es->nj};
    for (int a = 0; a < 2; a++) {
        int64_t rl = r.r[a].lo, rh = r.r[a].hi;
        EmitVal *olo = &out.lo[a], *ohi = &out.hi[a];
        if (!blocked) {
            *olo = emit_val_const(rl);
            *ohi = emit_val_add(emit_val_name(n[a]), rh);
        } else if (redundant) {
            *olo = emit_val_add(emit_val_name(lo[a]), rl);
            *ohi = emit_val_add(emit_val_name(hi[a]), rh);
        } else {
            *olo = rl ? emit_val_term(arena_printf(arena, "(%s == 0 ? %s : %s)", lo[a],
                                                   plus(arena, lo[a], rl), lo[a]),
                                      PREC_PRIMARY)
                      : emit_val_name(lo[a]);
            *ohi = rh ? emit_val_term(arena_printf(arena, "(%s == %s ? %s : %s)", hi[a], n[a],
                                                   plus(arena, hi[a], rh), hi[a]),
                                      PREC_PRIMARY)
                      : emit_val_name(hi[a]);
        }
        /* a region statement's kernel: its range clamped to the region, so
         * that the loops over I test nothing (fuse.c: one region per kernel) */
        *olo = emit_area_lo(arena, m->es, &s0->area, a, *olo);
        *ohi = emit_area_hi(arena, m->es, &s0->area, a, *ohi);
    }
    out.ilo = emit_val_text(arena, out.lo[0], 0);
    out.ihi = emit_val_text(arena, out.hi[0], 0);
    out.jlo = emit_val_text(arena, out.lo[1], 0);
    out.jhi = emit_val_text(arena, out.hi[1], 0);
    return out;
}

/* The restrict pointers of the fast path, at the top of a block. */
static void declare_restrict(Omp *m)
{
    if (!m->fast)
        return;
    const IrStencil *st = m->st;
    for (int f = 0; f < st->fields.len; f++) {
        const IrField *fd = st->fields.items[f];
        if (!m->rp[f])
            continue;
        emit_line(m->o, "%s%s *restrict const %s = %s;",
                  fd->kind == IR_PARAM_FIELD && !fd->is_written ? "const " : "",
                  emit_c_type(fd->type), m->rp[f], m->es->data[f]);
        emit_line(m->o, "(void)%s;", m->rp[f]);
    }
}

/* One kernel: rows j over [jlo, jhi) (an `omp for` when par_rows), or only
 * row `row` if it is in that range (a step of a group's rows), points i with
 * the inner range free of checks. 3-D kernels only. */
static void kernel_rows(Omp *m, const IrInterval *iv, const IrKernel *k, Ranges r,
                        const char *kvar, bool par_rows, const char *row)
{
    Out *o = m->o;
    Arena *arena = m->c->arena;
    PlanReach reach = plan_kernel_reach(iv, k);
    emit_line(o, "/* kernel: statements %d to %d at lines %d to %d */", k->first,
              k->first + k->count - 1, iv->stmts.items[k->first]->loc.line,
              iv->stmts.items[k->first + k->count - 1]->loc.line);
    if (par_rows)
        emit_line(o, "GT_OMP(omp parallel for schedule(static))");
    if (row) {
        emit_open(o, "if (%s >= %s && %s < %s) {", row, r.jlo, row, r.jhi);
        emit_line(o, "const int64_t j = %s;", row);
    } else {
        emit_open(o, "for (int64_t j = %s; j < %s; j++) {", r.jlo, r.jhi);
    }
    if (par_rows)
        declare_restrict(m);
    /* a full reduction: each SIMD lane keeps its own partial result, combined
     * at the end of the row (deterministic for one binary) */
    /* (a read checked as it reads records its failure in one place for all lanes) */
    const char *simd = reach.cols || emit_kguard_kernel(m->es, iv, k) ? NULL
                       : k->reduce
                           ? arena_printf(arena, "GT_OMP(omp simd reduction(%s:%s))",
                                          reduction_id(k->reduce->reduce.op,
                                                       k->reduce->reduce.dst->type),
                                          m->point.red_acc)
                           : "GT_OMP(omp simd)";
    /* on the fast path of a kernel with boundary conditions, the fields it
     * only reads are read through row pointers that apply the conditions
     * along J and K once per row: the rows at the J and K edges then need no
     * check, and the loop over I indexes its rows directly */
    bool twice = false;
    m->rows.len = 0;
    if (m->fast && simd && (reach.has[AXIS_I] || reach.has[AXIS_J] || reach.has[AXIS_K])) {
        twice = rows_scan(m, iv, k, kvar);
        rows_declare(m);
    }
    bool rows_all = m->rows.len && m->rows_all;
    /* the rows that may read outside along J or K */
    const char *row_safe = NULL;
    if (reach.has[AXIS_J] && !rows_all)
        row_safe = emit_edge_test(arena, m->es, AXIS_J, &reach, "j", "j", false);
    if (reach.has[AXIS_K] && !rows_all) {
        const char *t = emit_edge_test(arena, m->es, AXIS_K, &reach, kvar, kvar, false);
        row_safe = row_safe ? arena_printf(arena, "%s || %s", row_safe, t) : t;
    }
    if (row_safe || reach.has[AXIS_I]) {
        /* [i_in, i_out): no read leaves the domain; the rest, [ilo, i_in) and
         * [i_out, ihi), is the boundary slabs (the whole row when the row
         * itself is in a J or K slab) */
        const char *lo_in = r.ilo, *hi_in = r.ihi;
        if (reach.has[AXIS_I]) {
            /* max(ilo, -lo) and min(ihi, ni - hi), folded when both are the
             * same value (clang warns of a tautological comparison) */
            EmitVal lim = emit_edge_lo(m->es, AXIS_I, -reach.lo[AXIS_I]);
            const char *t = emit_val_text(arena, lim, PREC_REL + 1);
            if (!emit_val_equal(r.lo[AXIS_I], lim))
                lo_in = arena_printf(arena, "(%s > %s ? %s : %s)", r.ilo, t, r.ilo, t);
            lim = emit_edge_hi(m->es, AXIS_I, reach.hi[AXIS_I]);
            t = emit_val_text(arena, lim, PREC_REL + 1);
            if (!emit_val_equal(r.hi[AXIS_I], lim))
                hi_in = arena_printf(arena, "(%s < %s ? %s : %s)", r.ihi, t, r.ihi, t);
        }
        if (row_safe)
            emit_line(o, "const bool %s = %s;", m->row_slab, row_safe);
        const char *in = m->i_in, *out = m->i_out, *in0 = m->i_in0, *out0 = m->i_out0;
        emit_line(o, "const int64_t %s = %s;", in0,
                  row_safe ? arena_printf(arena, "%s ? %s : %s", m->row_slab, r.ihi, lo_in)
                           : lo_in);
        emit_line(o, "const int64_t %s = %s < %s ? %s : %s;", in, in0, r.ihi, in0, r.ihi);
        emit_line(o, "const int64_t %s = %s;", out0, hi_in);
        emit_line(o, "const int64_t %s = %s > %s ? %s : %s;", out, out0, in, out0, in);
        m->safe = false;
        if (rows_all && twice) {
            /* whole vectors of ROW_VECTOR points, the last one overlapping
             * the one before it (its points computed twice, to the same
             * values): no scalar remainder */
            const char *i0 = m->i0;
            emit_open(o, "if (%s - %s >= %d) {", out, in, ROW_VECTOR);
            emit_open(o, "for (int64_t %s = %s;; %s += %d) {", i0, in, i0, ROW_VECTOR);
            emit_line(o, "if (%s > %s - %d)", i0, out, ROW_VECTOR);
            emit_line(o, "    %s = %s - %d;", i0, out, ROW_VECTOR);
            emit_line(o, "%s", simd);
            emit_open(o, "for (int64_t i = %s; i < %s + %d; i++) {", i0, i0, ROW_VECTOR);
            point_body(m, iv, k, kvar);
            emit_close(o);
            emit_line(o, "if (%s == %s - %d)", i0, out, ROW_VECTOR);
            emit_line(o, "    break;");
            emit_close(o);
            emit_else(o);
        }
        if (simd)
            emit_line(o, "%s", simd);
        emit_open(o, "for (int64_t i = %s; i < %s; i++) {", in, out);
        point_body(m, iv, k, kvar);
        emit_close(o);
        if (rows_all && twice)
            emit_close(o);
        m->safe = true;
        emit_line(o, "for (int %s = 0; %s < 2; %s++)", m->slab, m->slab, m->slab);
        emit_open(o, "for (int64_t i = %s ? %s : %s; i < (%s ? %s : %s); i++) {", m->slab, out,
                  r.ilo, m->slab, r.ihi, in);
        point_body(m, iv, k, kvar);
        emit_close(o);
    } else {
        m->safe = false;
        if (simd)
            emit_line(o, "%s", simd);
        emit_open(o, "for (int64_t i = %s; i < %s; i++) {", r.ilo, r.ihi);
        point_body(m, iv, k, kvar);
        emit_close(o);
    }
    m->safe = false;
    if (m->rows_missed)
        gtcc_die("openmp: a read of kernel %d of stencil '%s' missed its row pointer", k->first,
                 m->st->name);
    m->rows.len = 0;
    emit_close(o);
}

/* A kernel whose loops lack I or J: serial loops over its axes, every read
 * remapped. */
static void kernel_simple(Omp *m, const IrInterval *iv, const IrKernel *k, unsigned axes,
                          const char *kvar)
{
    Out *o = m->o;
    Ranges r = kernel_ranges(m, iv, k, false);
    emit_line(o, "/* kernel: statements %d to %d (axes %s) */", k->first,
              k->first + k->count - 1, axes_name(axes));
    emit_open(o, "{");
    int opened = 0;
    if (axes & AXES_J) {
        emit_open(o, "for (int64_t j = %s; j < %s; j++) {", r.jlo, r.jhi);
        opened++;
    }
    if (axes & AXES_I) {
        emit_open(o, "for (int64_t i = %s; i < %s; i++) {", r.ilo, r.ihi);
        opened++;
    }
    bool fast = m->fast;
    m->fast = false;
    declare_restrict(m);
    m->safe = true;
    point_body(m, iv, k, kvar);
    m->safe = false;
    m->fast = fast;
    while (opened--)
        emit_close(o);
    emit_close(o);
}

static const char *level(Omp *m, Level lv, int64_t delta)
{
    return emit_level(m->c->arena, m->es->nk, lv, delta);
}

/* `const int64_t end = start + step < n ? start + step : n;`: the end of a
 * block of step starting at start, within n. */
static void block_end(Omp *m, const char *end, const char *start, const char *step,
                      const char *n)
{
    emit_line(m->o, "const int64_t %s = %s + %s < %s ? %s + %s : %s;", end, start, step, n,
              start, step, n);
}

static void block_bounds(Omp *m, const char *bj)
{
    block_end(m, m->ie, m->ib, arena_printf(m->c->arena, "%d", openmp_plan.block_i), m->es->ni);
    block_end(m, m->je, m->jb, bj, m->es->nj);
}

/* What fusing_ok learns of two kernels' statements. */
typedef struct {
    bool *written;     /* per field id: written by the kernel walked */
    const bool *other; /* per field id: written by the other kernel */
    int64_t dj;        /* reads of `other` at this J offset: those of its current row */
    PlanLoadFn *read;  /* what a read in the kernel walked must respect */
    bool clash;
} FuseScan;

static IrWalk fuse_mark_write(void *ctx, const IrStmt *s)
{
    FuseScan *f = ctx;
    if (s->kind == IR_ASSIGN)
        f->written[s->assign.dst->id] = true;
    return IR_WALK_ON;
}

/* A read of the producer's output in the consumer: on the producer's current row
 * only at the same point; elsewhere at the same level (a row it finished before).
 * (No field written is read at a run-time K level: access.c.) */
static void fuse_read_b(void *ctx, const IrField *fd, const int64_t o[NAXES], bool in_column)
{
    FuseScan *f = ctx;
    if (!f->other[fd->id])
        return;
    if (in_column || o[AXIS_K] != 0 || (o[AXIS_J] == f->dj && o[AXIS_I] != 0) ||
        o[AXIS_J] > f->dj)
        f->clash = true;
}

/* A read in the producer of what the consumer writes. */
static void fuse_read_a(void *ctx, const IrField *fd, const int64_t o[NAXES], bool in_column)
{
    (void)o, (void)in_column;
    FuseScan *f = ctx;
    if (f->other[fd->id])
        f->clash = true;
}

static void fuse_walk(const IrInterval *iv, const IrKernel *k, IrStmtFn *fn, FuseScan *f)
{
    for (int i = k->first; i < k->first + k->count; i++)
        ir_walk_stmt(iv->stmts.items[i], fn, f);
}

/* The reads of a kernel's statements as they run: a recomputed temporary's
 * read is the reads of its expression, shifted by the read's offset. */
static void fuse_reads(const IrInterval *iv, const IrKernel *k, FuseScan *f)
{
    for (int i = k->first; i < k->first + k->count; i++)
        plan_visit_reads(iv->stmts.items[i], f->read, f);
}

/* Can kernel b (the next of a's group) run in a's loop over I, each point of
 * b's row right after a's point (docs/internals.md, "Row steps")? Both take
 * kernel_rows' plain path (no boundary condition, reduction or checked level,
 * no region), a runs redundantly over a range that holds b's, b reads a's
 * outputs on a's current row only at its own point, a reads nothing b writes
 * (reads of recomputed temporaries are those of their expressions, at the
 * point they run: plan_visit_reads) and they write different fields. */
static bool fusing_ok(Omp *m, const IrInterval *iv, const IrKernel *a, const IrKernel *b)
{
    const IrKernel *ks[2] = {a, b};
    for (int x = 0; x < 2; x++) {
        const IrKernel *k = ks[x];
        const IrStmt *s0 = iv->stmts.items[k->first];
        PlanReach reach = plan_kernel_reach(iv, k);
        if (k->reduce || reach.cols || reach.has[AXIS_I] || reach.has[AXIS_J] ||
            reach.has[AXIS_K] || emit_kguard_kernel(m->es, iv, k) || s0->area.set[0] ||
            s0->area.set[1] || !(k->axes & AXES_I) || !(k->axes & AXES_J))
            return false;
    }
    if (!a->redundant || b->lag <= a->lag)
        return false;
    const Extent *ra = &iv->stmts.items[a->first]->region;
    const Extent *rb = &iv->stmts.items[b->first]->region;
    int64_t blo = rb->r[AXIS_I].lo, bhi = rb->r[AXIS_I].hi;
    if (!b->redundant)
        blo = blo < 0 ? blo : 0, bhi = bhi > 0 ? bhi : 0;
    if (ra->r[AXIS_I].lo > blo || ra->r[AXIS_I].hi < bhi)
        return false;
    Arena *arena = m->c->arena;
    size_t nf = (size_t)m->st->fields.len + 1;
    bool *wa = arena_alloc(arena, nf), *wb = arena_alloc(arena, nf);
    FuseScan f = {wa, NULL, 0, NULL, false};
    fuse_walk(iv, a, fuse_mark_write, &f);
    f.written = wb;
    fuse_walk(iv, b, fuse_mark_write, &f);
    for (size_t i = 0; i < nf; i++)
        if (wa[i] && wb[i])
            return false;
    f.other = wb, f.read = fuse_read_a;
    fuse_reads(iv, a, &f);
    f.other = wa, f.dj = b->lag - a->lag, f.read = fuse_read_b;
    fuse_reads(iv, b, &f);
    return !f.clash;
}

/* Kernels ks[0..n-1] of a row step (fusing_ok for every pair in order), fused along
 * I where every row is in its kernel's range: each kernel but the last alone over
 * the points of its range outside the last one's (in order: a later kernel's
 * extra points read what an earlier one computed there), then one loop over the
 * last one's range, each kernel's point in turn. Otherwise each kernel's rows as
 * usual. */
static void fused_rows(Omp *m, const IrInterval *iv, const IrKernel *const *ks, int n)
{
    Out *o = m->o;
    Arena *arena = m->c->arena;
    const char **row = arena_alloc(arena, sizeof *row * (size_t)n);
    Ranges *r = arena_alloc(arena, sizeof *r * (size_t)n);
    const IrKernel *last = ks[n - 1];
    emit_begin_line(o);
    emit_text(o, "/* kernels: statements");
    for (int x = 0; x < n; x++) {
        row[x] = plus(arena, m->jt, -ks[x]->lag);
        r[x] = kernel_ranges(m, iv, ks[x], true);
        emit_text(o, "%s %d to %d", x == 0 ? "" : x == n - 1 ? " and" : ",", ks[x]->first,
                  ks[x]->first + ks[x]->count - 1);
    }
    emit_text(o, " at lines %d to %d, fused along I */", iv->stmts.items[ks[0]->first]->loc.line,
              iv->stmts.items[last->first + last->count - 1]->loc.line);
    emit_end_line(o);
    emit_begin_line(o);
    emit_text(o, "if (");
    for (int x = 0; x < n; x++)
        emit_text(o, "%s%s >= %s && %s < %s", x ? " && " : "", row[x], r[x].jlo, row[x],
                  r[x].jhi);
    emit_text(o, ") {");
    emit_end_open(o);
    m->safe = false;
    const Ranges *rl = &r[n - 1];
    for (int x = 0; x < n - 1; x++) {
        const char *from[2] = {r[x].ilo, rl->ihi}, *to[2] = {rl->ilo, r[x].ihi};
        bool side[2] = {strcmp(from[0], to[0]) != 0, strcmp(from[1], to[1]) != 0};
        if (!side[0] && !side[1])
            continue;
        emit_open(o, "{");
        emit_line(o, "const int64_t j = %s;", row[x]);
        for (int sd = 0; sd < 2; sd++) {
            if (!side[sd])
                continue;
            emit_open(o, "for (int64_t i = %s; i < %s; i++) {", from[sd], to[sd]);
            point_body(m, iv, ks[x], "k");
            emit_close(o);
        }
        emit_close(o);
    }
    emit_line(o, "GT_OMP(omp simd)");
    emit_open(o, "for (int64_t i = %s; i < %s; i++) {", rl->ilo, rl->ihi);
    for (int x = 0; x < n; x++) {
        emit_open(o, "{");
        emit_line(o, "const int64_t j = %s;", row[x]);
        point_body(m, iv, ks[x], "k");
        emit_close(o);
    }
    emit_close(o);
    emit_else(o);
    for (int x = 0; x < n; x++)
        kernel_rows(m, iv, ks[x], r[x], "k", false, row[x]);
    emit_close(o);
}

/* The rows of a group's kernels for the block [ib, ie) x [jb, je) at level k:
 * one kernel's rows, or row steps where each kernel computes its row jt - lag,
 * in [jb, je) grown by its region (a run of them fused along I where every
 * pair can be: fusing_ok). */
static void group_rows(Omp *m, const IrInterval *iv, int kfirst, int klast)
{
    Arena *arena = m->c->arena;
    if (kfirst == klast) {
        const IrKernel *k = &iv->kernels.items[kfirst];
        kernel_rows(m, iv, k, kernel_ranges(m, iv, k, true), "k", false, NULL);
        return;
    }
    int64_t t0 = 0, t1 = 0;
    for (int kk = kfirst; kk <= klast; kk++) {
        const IrKernel *k = &iv->kernels.items[kk];
        const Extent *r = &iv->stmts.items[k->first]->region;
        if (kk == kfirst || r->r[AXIS_J].lo + k->lag < t0)
            t0 = r->r[AXIS_J].lo + k->lag;
        if (kk == kfirst || r->r[AXIS_J].hi + k->lag > t1)
            t1 = r->r[AXIS_J].hi + k->lag;
    }
    emit_open(m->o, "for (int64_t %s = %s; %s < %s; %s++) {", m->jt, plus(arena, m->jb, t0),
              m->jt, plus(arena, m->je, t1), m->jt);
    for (int kk = kfirst; kk <= klast; kk++) {
        const IrKernel *k = &iv->kernels.items[kk];
        /* the longest run from k whose every pair may be fused */
        int n = 1;
        while (kk + n <= klast) {
            bool ok = true;
            for (int x = 0; x < n && ok; x++)
                ok = fusing_ok(m, iv, k + x, k + n);
            if (!ok)
                break;
            n++;
        }
        if (n > 1) {
            const IrKernel **run = arena_alloc(arena, sizeof *run * (size_t)n);
            for (int x = 0; x < n; x++)
                run[x] = k + x;
            fused_rows(m, iv, run, n);
            kk += n - 1;
            continue;
        }
        kernel_rows(m, iv, k, kernel_ranges(m, iv, k, true), "k", false,
                    plus(arena, m->jt, -k->lag));
    }
    emit_close(m->o);
}

/* A group without tiles or reduction: whole rows, in blocks of bk levels by bj
 * rows that gt__blocks sizes at run time from the caches (docs/internals.md,
 * "3-D blocks"): one level at a time while the planes read at K offsets fit,
 * else every level of a slab of rows before the next slab. */
static void emit_streamed(Omp *m, const IrInterval *iv, int kfirst, int klast)
{
    Out *o = m->o;
    const char *lo = level(m, iv->lo, 0), *hi = level(m, iv->hi, 0);
    emit_line(o, "int64_t %s, %s;", m->bk, m->bj);
    emit_line(o, "gt__blocks(%s - %s, %s, %s, %" PRId64 ", %s, &%s, &%s);", hi, lo, m->es->nj,
              m->es->ni, iv->kernels.items[kfirst].plane_bytes, m->nth, m->bk, m->bj);
    emit_line(o, "GT_OMP(omp parallel for collapse(2) schedule(static))");
    emit_line(o, "for (int64_t %s = %s; %s < %s; %s += %s)", m->kb, lo, m->kb, hi, m->kb,
              m->bk);
    emit_open(o, "for (int64_t %s = 0; %s < %s; %s += %s) {", m->jb, m->jb, m->es->nj, m->jb,
              m->bj);
    emit_line(o, "const int64_t %s = 0, %s = %s;", m->ib, m->ie, m->es->ni);
    block_end(m, m->je, m->jb, m->bj, m->es->nj);
    block_end(m, m->ke, m->kb, m->bk, hi);
    emit_line(o, "(void)%s; (void)%s;", m->ib, m->ie);
    declare_restrict(m);
    emit_open(o, "for (int64_t k = %s; k < %s; k++) {", m->kb, m->ke);
    group_rows(m, iv, kfirst, klast);
    emit_close(o);
    emit_close(o);
}

/* A group of 3-D kernels of a parallel interval: blocks of one level. */
static void emit_group(Omp *m, const IrInterval *iv, int kfirst, int klast)
{
    Out *o = m->o;
    Arena *arena = m->c->arena;
    /* the buffers of the group's tiles (the plan's, on its kernels) */
    const IrKernel *k0 = &iv->kernels.items[kfirst];
    bool *uses = arena_alloc(arena, sizeof(bool) * (size_t)(m->nbufs + 1));
    for (int t = 0; t < k0->ntiles; t++)
        uses[m->st->fields.items[k0->tiles[t]]->buffer] = true;
    bool any_tile = k0->ntiles > 0;
    const IrStmt *reduce = k0->reduce;   /* a reduction is a group of its own */
    const char *part = NULL;
    Type rt = TY_DOUBLE;
    if (reduce) {
        rt = reduce->reduce.dst->type;
        part = emit_unique(arena, &m->es->names, "partial");
        m->point.red_acc = emit_unique(arena, &m->es->names, "local");
    }
    emit_open(o, "{");
    if (reduce) {
        emit_line(o, "%s %s[%s];", emit_c_type(rt), part, m->nth);
        emit_begin_line(o);
        emit_text(o, "for (int t = 0; t < %s; t++) %s[t] = ", m->nth, part);
        emit_red_identity(o, reduce->reduce.op, rt);
        emit_text(o, ";");
        emit_end_line(o);
    }
    if (!any_tile && !reduce) {
        emit_streamed(m, iv, kfirst, klast);
        emit_close(o);
        return;
    }
    /* rows per block: fewer while there are too few blocks for the threads */
    const PlanParams *p = &openmp_plan;
    emit_line(o, "int64_t %s = %d;", m->bj, p->block_j_max);
    emit_line(o, "while (%s > %d && (%s - %s) * ((%s + %s - 1) / %s) * ((%s + %d) / %d) < %d * "
                 "(int64_t)%s)", m->bj, p->block_j_min, level(m, iv->hi, 0), level(m, iv->lo, 0),
              m->es->nj, m->bj, m->bj, m->es->ni, p->block_i - 1, p->block_i,
              p->blocks_per_thread, m->nth);
    emit_line(o, "    %s /= 2;", m->bj);
    bool region = any_tile || reduce;
    if (region) {
        emit_line(o, "GT_OMP(omp parallel)");
        emit_open(o, "{");
        if (reduce) {
            emit_begin_line(o);
            emit_text(o, "%s %s = ", emit_c_type(rt), m->point.red_acc);
            emit_red_identity(o, reduce->reduce.op, rt);
            emit_text(o, ";");
            emit_end_line(o);
        }
        for (int b = 0; b < m->nbufs; b++)
            if (uses[b])
                emit_line(o, "%s *restrict const %s = (%s *)(%s + (size_t)omp_get_thread_num() * "
                             "%" PRId64 ") + %" PRId64 ";",
                          emit_c_type(m->st->fields.items[m->bufs[b].owner]->type),
                          m->bufs[b].name,
                          emit_c_type(m->st->fields.items[m->bufs[b].owner]->type), m->tiles,
                          m->tile_bytes, m->bufs[b].offset);
        emit_line(o, "GT_OMP(omp for collapse(3) schedule(static))");
    } else {
        emit_line(o, "GT_OMP(omp parallel for collapse(3) schedule(static))");
    }
    emit_line(o, "for (int64_t k = %s; k < %s; k++)", level(m, iv->lo, 0), level(m, iv->hi, 0));
    emit_line(o, "for (int64_t %s = 0; %s < %s; %s += %s)", m->jb, m->jb, m->es->nj, m->jb,
              m->bj);
    emit_open(o, "for (int64_t %s = 0; %s < %s; %s += %d) {", m->ib, m->ib, m->es->ni, m->ib,
              openmp_plan.block_i);
    block_bounds(m, m->bj);
    emit_line(o, "(void)%s; (void)%s;", m->ie, m->je);
    for (int b = 0; b < m->nbufs; b++)
        if (uses[b])
            emit_line(o, "const int64_t %s = %" PRId64 " - %s;", m->bufs[b].off, m->bufs[b].pad,
                      m->ib);
    declare_restrict(m);
    group_rows(m, iv, kfirst, klast);
    emit_close(o);
    if (region) {
        if (reduce)
            emit_line(o, "%s[omp_get_thread_num()] = %s;", part, m->point.red_acc);
        emit_close(o);
    }
    if (reduce) {
        const char *acc = m->es->acc[reduce->reduce.dst->id];
        emit_begin_line(o);
        emit_text(o, "for (int t = 0; t < %s; t++) ", m->nth);
        emit_reduce_open(o, reduce->reduce.op, rt, acc);
        emit_text(o, "%s[t]", part);
        emit_reduce_close(o, reduce->reduce.op, rt);
        emit_text(o, ";");
        emit_end_line(o);
    }
    emit_close(o);
}

static void emit_parallel(Omp *m, const IrComputation *comp)
{
    Out *o = m->o;
    for (int ii = 0; ii < comp->intervals.len; ii++) {
        const IrInterval *iv = comp->intervals.items[ii];
        int kk = 0;
        while (kk < iv->kernels.len) {
            const IrKernel *k = &iv->kernels.items[kk];
            unsigned axes = k->axes;
            if (axes == AXES_IJ) {
                /* a 2-D kernel: once, its rows over the threads */
                emit_open(o, "if (%s < %s) {", level(m, iv->lo, 0), level(m, iv->hi, 0));
                kernel_rows(m, iv, k, kernel_ranges(m, iv, k, false), "k", true, NULL);
                emit_close(o);
                kk++;
                continue;
            }
            if (axes != AXES_IJK) {
                if (axes & AXES_K) {
                    emit_open(o, "for (int64_t k = %s; k < %s; k++)", level(m, iv->lo, 0),
                              level(m, iv->hi, 0));
                    kernel_simple(m, iv, k, axes, "k");
                    emit_dedent(o);
                } else {
                    emit_open(o, "if (%s < %s)", level(m, iv->lo, 0), level(m, iv->hi, 0));
                    kernel_simple(m, iv, k, axes, "k");
                    emit_dedent(o);
                }
                kk++;
                continue;
            }
            int last = kk;
            while (last + 1 < iv->kernels.len && iv->kernels.items[last + 1].group == k->group)
                last++;
            emit_group(m, iv, kk, last);
            kk = last + 1;
        }
    }
}

static void open_level_loop(Omp *m, const IrInterval *iv, bool fwd)
{
    if (fwd)
        emit_open(m->o, "for (int64_t k = %s; k < %s; k++) {", level(m, iv->lo, 0),
                  level(m, iv->hi, 0));
    else
        emit_open(m->o, "for (int64_t k = %s; k >= %s; k--) {", level(m, iv->hi, -1),
                  level(m, iv->lo, 0));
}

static void comp_comment(Omp *m, const IrComputation *comp)
{
    emit_line(m->o, "/* computation(%s) at line %d%s */", iter_order_names[comp->order],
              comp->loc.line,
              comp->order == ORDER_PARALLEL ? ""
              : comp->columnar               ? ", by columns"
                                             : ", level by level");
}

/* A forward/backward computation that is not columnar: its levels in turn,
 * each kernel an `omp for` over rows. */
static void emit_levels(Omp *m, const IrComputation *comp)
{
    Out *o = m->o;
    for (int ii = 0; ii < comp->intervals.len; ii++) {
        const IrInterval *iv = comp->intervals.items[ii];
        open_level_loop(m, iv, comp->order == ORDER_FORWARD);
        for (int kk = 0; kk < iv->kernels.len; kk++) {
            const IrKernel *k = &iv->kernels.items[kk];
            unsigned axes = k->axes & ~(unsigned)AXES_K;
            if (axes != AXES_IJ)
                kernel_simple(m, iv, k, axes, "k");
            else
                kernel_rows(m, iv, k, kernel_ranges(m, iv, k, false), "k", true, NULL);
        }
        emit_close(o);
    }
}

/* A column group by cache blocks: an `omp for` over blocks of BI x BJ
 * columns, each block running every computation of the group over all its
 * levels, rows of the block under `omp simd` (the carried values of the
 * level just computed are in L1). */
static void emit_column_rows(Omp *m, int c0, int c1)
{
    Out *o = m->o;
    emit_line(o, "GT_OMP(omp parallel for collapse(2) schedule(static))");
    emit_line(o, "for (int64_t %s = 0; %s < %s; %s += %d)", m->jb, m->jb, m->es->nj, m->jb,
              openmp_plan.block_j_column);
    emit_open(o, "for (int64_t %s = 0; %s < %s; %s += %d) {", m->ib, m->ib, m->es->ni, m->ib,
              openmp_plan.block_i);
    block_bounds(m, arena_printf(m->c->arena, "%d", openmp_plan.block_j_column));
    emit_line(o, "(void)%s; (void)%s;", m->ie, m->je);
    declare_restrict(m);
    for (int c = c0; c <= c1; c++) {
        const IrComputation *comp = m->st->computations.items[c];
        if (c > c0)
            comp_comment(m, comp);
        for (int ii = 0; ii < comp->intervals.len; ii++) {
            const IrInterval *iv = comp->intervals.items[ii];
            open_level_loop(m, iv, comp->order == ORDER_FORWARD);
            for (int kk = 0; kk < iv->kernels.len; kk++) {
                const IrKernel *k = &iv->kernels.items[kk];
                kernel_rows(m, iv, k, kernel_ranges(m, iv, k, true), "k", false, NULL);
            }
            emit_close(o);
        }
    }
    emit_close(o);
}

/* Can the group run one column at a time (every kernel over the same
 * columns: plan_columns_alike)? */
static bool columns_alike(const Omp *m, int c0, int c1)
{
    const Extent *r0 = NULL;
    for (int c = c0; c <= c1; c++)
        if (!plan_columns_alike(m->st->computations.items[c], &r0))
            return false;
    return r0 != NULL;
}

/* One kernel at the point (i, j, k) of the column path: remapped reads when
 * the point is within its boundary-condition reach of the domain's edge. */
static void column_kernel(Omp *m, const IrInterval *iv, const IrKernel *k)
{
    Out *o = m->o;
    Arena *arena = m->c->arena;
    PlanReach reach = plan_kernel_reach(iv, k);
    const char *idx[NAXES] = {"i", "j", "k"};
    const char *slab = NULL;
    for (int a = 0; a < NAXES; a++) {
        if (!reach.has[a])
            continue;
        const char *t = emit_edge_test(arena, m->es, a, &reach, idx[a], idx[a], false);
        slab = slab ? arena_printf(arena, "%s || %s", slab, t) : t;
    }
    emit_line(o, "/* kernel: statements %d to %d at lines %d to %d */", k->first,
              k->first + k->count - 1, iv->stmts.items[k->first]->loc.line,
              iv->stmts.items[k->first + k->count - 1]->loc.line);
    if (slab) {
        emit_open(o, "if (%s) {", slab);
        m->safe = true;
        point_body(m, iv, k, "k");
        m->safe = false;
        emit_else(o);
    } else {
        emit_open(o, "{");
    }
    point_body(m, iv, k, "k");
    emit_close(o);
}

/* Does the text written since `from` name i (a lane's column)? */
static bool uses_i(const Out *o, size_t from)
{
    for (size_t x = from; x < o->len; x++) {
        if (o->buf[x] != 'i')
            continue;
        char before = x > from ? o->buf[x - 1] : ' ', after = x + 1 < o->len ? o->buf[x + 1] : ' ';
        if (!(isalnum((unsigned char)before) || before == '_') &&
            !(isalnum((unsigned char)after) || after == '_'))
            return true;
    }
    return false;
}

/* A lane's block in column_comps: where it began, where its body begins. */
typedef struct {
    OutMark before, body;
} Lane;

/* Opens lane q's block, i its column, and makes its k-cached locals the
 * point's (with one lane, nothing: the statements are the column's). */
static void lane_open(Omp *m, int lanes, const char *(**names)[IR_KCACHE_MAX + 1], int q,
                      Lane *l)
{
    if (lanes == 1)
        return;
    m->point.kc_name = names[q];
    l->before = emit_mark(m->o);
    emit_open(m->o, "{");
    emit_line(m->o, "const int64_t i = gt_il + %d;", q);
    l->body = emit_mark(m->o);
}

/* Closes it: a block left empty is taken back, one that does not use i marks it used. */
static void lane_close(Omp *m, int lanes, const Lane *l)
{
    if (lanes == 1)
        return;
    if (emit_mark(m->o).len == l->body.len) {
        emit_rewind(m->o, l->before);
        return;
    }
    if (!uses_i(m->o, l->body.len))
        emit_line(m->o, "(void)i;");
    emit_close(m->o);
}

/* The computations c0..c1 of a column group at the column(s) of the point
 * loop: lanes columns side by side, i = gt_il + q for lane q (each lane's
 * k-cached locals its own: names[q]), interleaved kernel by kernel within each
 * level, so that the carried dependency chains of the columns overlap; or the
 * one column i (lanes 1, names NULL: the locals named as they come). */
static void column_comps(Omp *m, int c0, int c1, int lanes,
                         const char *(**names)[IR_KCACHE_MAX + 1])
{
    Out *o = m->o;
    const IrStencil *st = m->st;
    EmitPoint *p = &m->point;
    Lane l;
    for (int c = c0; c <= c1; c++) {
        const IrComputation *comp = st->computations.items[c];
        if (c > c0)
            comp_comment(m, comp);
        emit_open(o, "{");
        for (int q = 0; q < lanes; q++) {
            if (lanes > 1)
                p->kc_name = names[q];
            emit_kcache_begin(p, comp);
        }
        for (int ii = 0; ii < comp->intervals.len; ii++) {
            const IrInterval *iv = comp->intervals.items[ii];
            for (int q = 0; q < lanes; q++) {
                lane_open(m, lanes, names, q, &l);
                emit_kcache_interval_begin(p, comp, iv);
                lane_close(m, lanes, &l);
            }
            open_level_loop(m, iv, comp->order == ORDER_FORWARD);
            for (int kk = 0; kk < iv->kernels.len; kk++)
                for (int q = 0; q < lanes; q++) {
                    lane_open(m, lanes, names, q, &l);
                    column_kernel(m, iv, &iv->kernels.items[kk]);
                    lane_close(m, lanes, &l);
                }
            for (int q = 0; q < lanes; q++) {
                lane_open(m, lanes, names, q, &l);
                emit_kcache_interval_end(p);
                lane_close(m, lanes, &l);
            }
            emit_close(o);
        }
        for (int q = 0; q < lanes; q++) {
            if (lanes > 1)
                p->kc_name = names[q];
            emit_kcache_end(p, comp);
        }
        emit_close(o);
    }
}

/* Columns side by side in the column path: 2 where a computation of the group
 * carries levels in locals (a dependency chain from level to level: a
 * division's latency in the tridiagonal sweep), else 1. */
static int column_lanes(const Omp *m, int c0, int c1)
{
    for (int c = c0; c <= c1; c++)
        if (m->st->computations.items[c]->kcache.len)
            return 2;
    return 1;
}

/* A column group one column at a time (the path for unit K stride): an `omp
 * for` over columns, each running every computation of the group over all
 * its levels, the k-cached values carried in locals (k-caching); with lanes,
 * pairs of columns, the last one of an odd count alone. */
static void emit_column_points(Omp *m, int c0, int c1)
{
    Out *o = m->o;
    Arena *arena = m->c->arena;
    const IrStencil *st = m->st;
    int nf = st->fields.len;
    /* every kernel covers the same columns (columns_alike): the first one's */
    const IrInterval *iv0 = NULL;
    for (int c = c0; c <= c1 && !iv0; c++) {
        const IrComputation *comp = st->computations.items[c];
        for (int ii = 0; ii < comp->intervals.len && !iv0; ii++)
            if (comp->intervals.items[ii]->kernels.len)
                iv0 = comp->intervals.items[ii];
    }
    Ranges r = kernel_ranges(m, iv0, &iv0->kernels.items[0], false);
    /* with unit K stride known, the K index needs no multiplication (a NULL stride) */
    const char **sk = m->sk;
    m->sk = arena_alloc(arena, sizeof *m->sk * (size_t)(nf + 1));
    for (int f = 0; f < nf; f++)
        m->sk[f] = st->fields.items[f]->kind == IR_PARAM_FIELD ? NULL : sk[f];
    m->point.o = o;
    int lanes = column_lanes(m, c0, c1);
    emit_line(o, "GT_OMP(omp parallel for collapse(2) schedule(static))");
    emit_line(o, "for (int64_t j = %s; j < %s; j++)", r.jlo, r.jhi);
    if (lanes == 1) {
        emit_open(o, "for (int64_t i = %s; i < %s; i++) {", r.ilo, r.ihi);
        m->point.kc_name = NULL;
        column_comps(m, c0, c1, 1, NULL);
        emit_close(o);
    } else {
        const char *(**names)[IR_KCACHE_MAX + 1] =
            arena_alloc(arena, sizeof *names * (size_t)lanes);
        for (int q = 0; q < lanes; q++)
            names[q] = arena_alloc(arena, sizeof *names[q] * (size_t)(nf + 1));
        emit_open(o, "for (int64_t gt_il = %s; gt_il < %s; gt_il += %d) {", r.ilo, r.ihi, lanes);
        emit_line(o, "/* columns i = gt_il .. gt_il + %d side by side, their levels' kernels "
                  "interleaved */", lanes - 1);
        emit_open(o, "if (gt_il + %d < %s) {", lanes - 1, r.ihi);
        column_comps(m, c0, c1, lanes, names);
        emit_else(o);
        emit_line(o, "/* the last column of an odd count */");
        emit_open(o, "for (int64_t i = gt_il; i < %s; i++) {", r.ihi);
        m->point.kc_name = NULL;
        column_comps(m, c0, c1, 1, NULL);
        emit_close(o);
        emit_close(o);
        emit_close(o);
    }
    m->point.kc_name = NULL;
    m->sk = sk;
}

/* Consecutive columnar computations of one column group. The generic path
 * runs them one column at a time when every field parameter with a K axis
 * has unit K stride, in cache blocks otherwise (as the fast path does). */
static void emit_columns(Omp *m, int c0, int c1)
{
    Out *o = m->o;
    const IrStencil *st = m->st;
    if (m->fast || !columns_alike(m, c0, c1)) {
        emit_column_rows(m, c0, c1);
        return;
    }
    bool *used = arena_alloc(m->c->arena, sizeof(bool) * (size_t)(st->fields.len + 1));
    for (int c = c0; c <= c1; c++)
        plan_comp_fields_used(st->computations.items[c], used);
    emit_begin_line(o);
    emit_text(o, "if (true");
    for (int f = 0; f < st->fields.len; f++) {
        const IrField *fd = st->fields.items[f];
        if (used[f] && fd->kind == IR_PARAM_FIELD && (fd->axes & AXES_K))
            emit_text(o, " && %s == 1", m->sk[f]);
    }
    emit_text(o, ") {");
    emit_end_open(o);
    emit_column_points(m, c0, c1);
    emit_else(o);
    emit_column_rows(m, c0, c1);
    emit_close(o);
}

static void omp_body(Omp *m)
{
    const IrStencil *st = m->st;
    for (int c = 0; c < st->computations.len; c++) {
        const IrComputation *comp = st->computations.items[c];
        emit_blank(m->o);
        comp_comment(m, comp);
        if (comp->order == ORDER_PARALLEL) {
            emit_parallel(m, comp);
        } else if (!comp->columnar) {
            emit_levels(m, comp);
        } else {
            int last = c;
            while (last + 1 < st->computations.len &&
                   st->computations.items[last + 1]->columnar &&
                   st->computations.items[last + 1]->column_group == comp->column_group)
                last++;
            emit_columns(m, c, last);
            c = last;
        }
    }
}

/* ============================================================ setup */

static void omp_analyse(Omp *m)
{
    Arena *arena = m->c->arena;
    const IrStencil *st = m->st;
    EmitStencil *es = m->es;
    int nf = st->fields.len;
    m->si = arena_alloc(arena, sizeof(char *) * (size_t)(nf + 1));
    m->sj = arena_alloc(arena, sizeof(char *) * (size_t)(nf + 1));
    m->sk = arena_alloc(arena, sizeof(char *) * (size_t)(nf + 1));
    m->rp = arena_alloc(arena, sizeof(char *) * (size_t)(nf + 1));
    m->edge = arena_alloc(arena, sizeof(char *) * (size_t)(nf + 1));
    m->edge_buf = arena_alloc(arena, sizeof(char *) * (size_t)(nf + 1));
    for (int f = 0; f < nf; f++) {
        const IrField *fd = st->fields.items[f];
        if (fd->kind == IR_TEMP && fd->temp_class != IR_TEMP_FULL)
            continue;
        m->si[f] = emit_unique(arena, &es->names, arena_printf(arena, "%si", es->stride[f]));
        m->sj[f] = emit_unique(arena, &es->names, arena_printf(arena, "%sj", es->stride[f]));
        m->sk[f] = emit_unique(arena, &es->names, arena_printf(arena, "%sk", es->stride[f]));
        m->rp[f] = emit_unique(arena, &es->names, arena_printf(arena, "%s_r", es->field[f]));
    }
    m->tiles = emit_unique(arena, &es->names, "tiles");
    m->tiles_mem = emit_unique(arena, &es->names, "tiles_mem");
    m->nth = emit_unique(arena, &es->names, "nthreads");
    m->ib = emit_unique(arena, &es->names, "ib");
    m->jb = emit_unique(arena, &es->names, "jb");
    m->ie = emit_unique(arena, &es->names, "ie");
    m->je = emit_unique(arena, &es->names, "je");
    m->jt = emit_unique(arena, &es->names, "jt");
    m->bj = emit_unique(arena, &es->names, "bj");
    m->bk = emit_unique(arena, &es->names, "bk");
    m->kb = emit_unique(arena, &es->names, "kb");
    m->ke = emit_unique(arena, &es->names, "ke");
    m->unit = emit_unique(arena, &es->names, "unit");
    m->kk = emit_unique(arena, &es->names, "kk");
    m->i_in = emit_unique(arena, &es->names, "i_in");
    m->i_out = emit_unique(arena, &es->names, "i_out");
    m->i_in0 = emit_unique(arena, &es->names, "i_in0");
    m->i_out0 = emit_unique(arena, &es->names, "i_out0");
    m->row_slab = emit_unique(arena, &es->names, "row_slab");
    m->slab = emit_unique(arena, &es->names, "slab");
    m->i0 = emit_unique(arena, &es->names, "i0");
    m->x = emit_unique(arena, &es->names, "x");
    emit_point_init(&m->point, es, m->kk);
    m->point.access = omp_access;
    m->point.user = m;
    /* buffers: FULL and TILE ids are numbered apart by fuse.c; keep them apart here */
    int maxb = 0;
    for (int f = 0; f < nf; f++)
        if (st->fields.items[f]->kind == IR_TEMP && st->fields.items[f]->buffer + 1 > maxb)
            maxb = st->fields.items[f]->buffer + 1;
    m->nbufs = maxb;
    m->bufs = arena_alloc(arena, sizeof(Buffer) * (size_t)(maxb + 1));
    for (int b = 0; b < maxb; b++)
        m->bufs[b].owner = -1;
    for (int f = 0; f < nf; f++) {
        const IrField *fd = st->fields.items[f];
        if (fd->kind != IR_TEMP)
            continue;
        if (fd->temp_class != IR_TEMP_TILE)
            continue;
        Buffer *b = &m->bufs[fd->buffer];
        if (b->owner < 0) {
            b->owner = f;
            b->name = emit_unique(arena, &es->names, arena_printf(arena, "tile_%d", fd->buffer));
            b->off = emit_unique(arena, &es->names, arena_printf(arena, "%s_off", b->name));
        }
        if (-fd->extent.r[AXIS_I].lo > b->halo[0])
            b->halo[0] = -fd->extent.r[AXIS_I].lo;
        if (fd->extent.r[AXIS_I].hi > b->halo[1])
            b->halo[1] = fd->extent.r[AXIS_I].hi;
    }
    /* tile geometry */
    int64_t offset = 0;
    for (int b = 0; b < maxb; b++) {
        Buffer *bf = &m->bufs[b];
        if (!bf->name)
            continue;
        int64_t esize = type_size(st->fields.items[bf->owner]->type);
        int64_t per_line = TILE_ALIGN / esize;
        bf->pad = (bf->halo[0] + per_line - 1) / per_line * per_line;
        bf->width = (bf->pad + openmp_plan.block_i + bf->halo[1] + per_line - 1) / per_line *
                    per_line;
        /* a tile shares its buffer with no other (fuse.c) */
        bf->height = 1;
        while (bf->height < st->fields.items[bf->owner]->tile_rows)
            bf->height *= 2;
        /* byte offset of this tile in a thread's slice, in elements of its type */
        offset = (offset + TILE_ALIGN - 1) / TILE_ALIGN * TILE_ALIGN;
        bf->offset = offset / esize;
        offset += bf->width * bf->height * esize;
    }
    m->tile_bytes = offset == 0 ? 0
                    : (offset + SLICE_ALIGN - 1) / SLICE_ALIGN * SLICE_ALIGN + SLICE_ALIGN;
}

static void omp_body(Omp *m);

static void omp_strides(Out *o, const EmitStencil *es, int f, void *ctx)
{
    const Omp *m = ctx;
    emit_line(o, "const int64_t %s = %s[%d].stride[0], %s = %s[%d].stride[1], "
                 "%s = %s[%d].stride[2];",
              m->si[f], es->bound, f, m->sj[f], es->bound, f, m->sk[f], es->bound, f);
    emit_line(o, "(void)%s; (void)%s; (void)%s;", m->si[f], m->sj[f], m->sk[f]);
}

static void omp_function(Omp *m, const bool *used)
{
    Out *o = m->o;
    EmitStencil *es = m->es;
    const IrStencil *st = m->st;
    int nf = st->fields.len;

    bool all[NAXES] = {true, true, true};
    emit_function_open(o, es, all);
    emit_line(o, "(void)%s; (void)%s; (void)%s;", es->ni, es->nj, es->nk);
    for (int s = 0; s < st->scalars.len; s++)
        if (!st->scalars.items[s]->is_output)
            emit_line(o, "(void)%s;", es->scalar[s]);

    emit_field_origins(o, es, used, omp_strides, m);
    emit_scalar_accumulators(o, es);
    emit_line(o, "const int %s = omp_get_max_threads();", m->nth);
    emit_line(o, "(void)%s;", m->nth);
    bool has_full = emit_full_storages(o, es);
    emit_line(o, "char *%s = NULL;", m->tiles);
    if (m->tile_bytes > 0)
        emit_line(o, "char *%s = NULL;", m->tiles_mem);
    /* the rows of Dirichlet constants that row pointers read outside along J
     * or K: as long as a read of the field along I can reach (the I axis of
     * a call is never remapped through them) */
    bool edges = false;
    for (int f = 0; f < es->nfield_params; f++) {
        const IrField *fd = st->fields.items[f];
        m->edge[f] = m->edge_buf[f] = NULL;
        if (!used[f] || !row_field_edge(fd))
            continue;
        m->edge_buf[f] = emit_unique(m->c->arena, &es->names,
                                     arena_printf(m->c->arena, "%s_edge_buf", es->field[f]));
        m->edge[f] = emit_unique(m->c->arena, &es->names,
                                 arena_printf(m->c->arena, "%s_edge", es->field[f]));
        emit_line(o, "%s *%s = NULL;", emit_c_type(fd->type), m->edge_buf[f]);
        edges = true;
    }
    emit_kcheck_host(o, es, true);
    emit_full_temporaries(o, es, "gt__temporary", m->si, m->sj, m->sk);
    if (m->tile_bytes > 0) {
        emit_line(o, "/* per-thread tiles: %" PRId64 " bytes each, a page of it a gap */",
                  m->tile_bytes);
        /* malloc, aligned by hand: aligned_alloc is C11's, and a caller's -std=c99 left it
           undeclared, its pointer cut to an int (gcc warned, the stencil crashed) */
        emit_line(o, "%s = malloc((size_t)%s * %" PRId64 " + %d);", m->tiles_mem, m->nth,
                  m->tile_bytes, SLICE_ALIGN - 1);
        emit_line(o, "if (!%s) {", m->tiles_mem);
        emit_line(o, "    %s = gt__error(GT_ENOMEM, \"stencil '%s': no memory for the "
                     "per-thread tiles\");", es->rc, st->name);
        emit_line(o, "    goto done;");
        emit_line(o, "}");
        emit_line(o, "%s = %s + (-(uintptr_t)%s & %d);", m->tiles, m->tiles_mem, m->tiles_mem,
                  SLICE_ALIGN - 1);
    }
    for (int f = 0; f < es->nfield_params; f++) {
        const IrField *fd = st->fields.items[f];
        if (!m->edge[f])
            continue;
        const char *len = arena_printf(m->c->arena, "%s + %" PRId64, es->ni,
                                       fd->reach[AXIS_I][0] + fd->reach[AXIS_I][1] + 1);
        emit_line(o, "%s = malloc(sizeof(%s) * (size_t)(%s));", m->edge_buf[f],
                  emit_c_type(fd->type), len);
        emit_line(o, "if (!%s) {", m->edge_buf[f]);
        emit_line(o, "    %s = gt__error(GT_ENOMEM, \"stencil '%s': no memory for the Dirichlet "
                     "row of field '%s'\");", es->rc, st->name, fd->name);
        emit_line(o, "    goto done;");
        emit_line(o, "}");
        emit_line(o, "for (int64_t %s = 0; %s < %s; %s++)", m->x, m->x, len, m->x);
        emit_begin_line(o);
        emit_text(o, "    %s[%s] = ", m->edge_buf[f], m->x);
        int a = row_bc(fd, AXIS_J) && fd->bc[AXIS_J].kind == BC_DIRICHLET ? AXIS_J : AXIS_K;
        emit_bc_value(o, fd->type, fd->bc[a].value);
        emit_text(o, ";");
        emit_end_line(o);
        emit_line(o, "const %s *const %s = %s + %" PRId64 ";", emit_c_type(fd->type), m->edge[f],
                  m->edge_buf[f], fd->reach[AXIS_I][0]);
        emit_line(o, "(void)%s;", m->edge[f]);
    }
    /* the fast path: unit stride along I, no output sharing a base with another field */
    emit_begin_line(o);
    emit_text(o, "const bool %s = true", m->unit);
    for (int f = 0; f < nf; f++) {
        const IrField *fd = st->fields.items[f];
        if (!m->rp[f] || !(fd->axes & AXES_I))
            continue;
        if (fd->kind == IR_PARAM_FIELD && !used[f])
            continue;
        emit_text(o, " && %s == 1", m->si[f]);
    }
    for (int f = 0; f < es->nfield_params; f++) {
        if (!used[f] || !st->fields.items[f]->is_written)
            continue;
        for (int g = 0; g < es->nfield_params; g++)
            if (g != f && used[g])
                emit_text(o, " && (const void *)%s != (const void *)%s", es->data[f],
                          es->data[g]);
    }
    emit_text(o, ";");
    emit_end_line(o);
    emit_open(o, "if (%s) {", m->unit);
    m->fast = true;
    omp_body(m);
    emit_else(o);
    m->fast = false;
    omp_body(m);
    emit_close(o);

    emit_kguard_report(o, es);
    emit_scalar_results(o, es);
    emit_blank(o);
    if (has_full || m->tile_bytes > 0 || emit_kcheck_any(st) || edges)
        emit_done_label(o);
    emit_kguard_done(o, es);
    emit_full_releases(o, es);
    for (int f = 0; f < es->nfield_params; f++)
        if (m->edge[f])
            emit_line(o, "free(%s);", m->edge_buf[f]);
    /* (without tiles, tiles stays NULL: its free keeps it used) */
    emit_line(o, "free(%s);", m->tile_bytes > 0 ? m->tiles_mem : m->tiles);
    emit_line(o, "return %s;", es->rc);
    emit_close(o);
}


/* What the file needs once: OpenMP or its stand-ins, the min and max
 * reductions of reals. */
static void omp_preamble(Compiler *c, Out *o)
{
    emit_blank(o);
    emit_line(o, "/* `omp simd` is a request: where clang cannot vectorise a loop (e.g. int");
    emit_line(o, "   division), the loop stays correct, so that is not worth a warning. */");
    emit_line(o, "#ifdef __clang__");
    emit_line(o, "#pragma clang diagnostic ignored \"-Wpass-failed\"");
    emit_line(o, "#endif");
    emit_line(o, "/* Without OpenMP (no -fopenmp) the code runs on one thread. */");
    emit_line(o, "#ifdef _OPENMP");
    emit_line(o, "#include <omp.h>");
    emit_line(o, "#define GT_OMP(x) _Pragma(#x)");
    emit_line(o, "#else");
    emit_line(o, "#define GT_OMP(x)");
    emit_line(o, "static inline int omp_get_thread_num(void) { return 0; }");
    emit_line(o, "static inline int omp_get_max_threads(void) { return 1; }");
    emit_line(o, "#endif");
    if (has_declared_reduction(c))
        emit_declare_reductions(o);
}

/* The function of one fused stencil. */
static void omp_stencil(Compiler *c, Out *o, EmitStencil *es)
{
    Omp *m = arena_alloc(c->arena, sizeof *m);
    m->c = c;
    m->es = es;
    m->st = es->st;
    omp_analyse(m);
    const IrStencil *st = m->st;
    bool *used = emit_fields_used(es);
    for (int f = 0; f < st->fields.len; f++)
        if (!used[f] && st->fields.items[f]->kind == IR_PARAM_FIELD)
            m->rp[f] = NULL;
    m->o = o;
    omp_function(m, used);
}

/* Whether S_steps of st is time-tiled (gt__steps_tiled, docs/internals.md "Time tiling"):
   fused (the openmp code), without out scalars (one result a step), without run-time K
   levels (a failing step puts its outputs back: not part by part) and with every output
   along J (the parts split J; gt__steps_tiled checks it again). Periodic fields along J
   make the rows a ring, along I the parts span I (gt__steps_tiled). */
/* An expression that a part of the levels would compute otherwise than the whole column:
   index(k), a column reduction, a temporary read at another level (computed in the part's
   levels only). */
static IrWalk level_bound(void *ctx, const IrExpr *e)
{
    bool *found = ctx;
    if ((e->kind == IR_INDEX && e->index_axis == AXIS_K) || e->kind == IR_COLREDUCE ||
        (e->kind == IR_LOAD && e->load.field->kind != IR_PARAM_FIELD &&
         e->load.offset[AXIS_K] != 0)) {
        *found = true;
        return IR_WALK_STOP;
    }
    return IR_WALK_ON;
}

static IrWalk stmt_level_bound(void *ctx, const IrStmt *s)
{
    const IrExpr *e = ir_stmt_expr(s);
    return e && !ir_walk_expr(e, level_bound, ctx) ? IR_WALK_STOP : IR_WALK_ON;
}

/* The axes along which a statement reads, at a non-zero offset, a field the stencil writes
   (the next field of a pair): a part computes that field on its own points only, so such a
   read beyond them would find another step's values. */
static unsigned written_read_axes(const IrStencil *st)
{
    return emit_written_reads(st, false, NULL);
}

/* Whether every level of st is computed alike, so that a call on a part of the levels
   computes them as the whole column does: every computation parallel over one interval of
   all levels, every output along K, nothing of level_bound, no written field read at
   another level. */
static bool levels_alike(const IrStencil *st)
{
    if (written_read_axes(st) & (1u << AXIS_K))
        return false;
    for (int f = 0; f < st->fields.len; f++) {
        const IrField *fd = st->fields.items[f];
        if (fd->kind == IR_PARAM_FIELD && fd->is_written && !(fd->axes & (1u << AXIS_K)))
            return false;
    }
    for (int c = 0; c < st->computations.len; c++) {
        const IrComputation *cp = st->computations.items[c];
        if (cp->order != ORDER_PARALLEL || cp->intervals.len != 1)
            return false;
        const IrInterval *iv = cp->intervals.items[0];
        if (iv->lo.from_end || iv->lo.offset != 0 || !iv->hi.from_end || iv->hi.offset != 0)
            return false;
        bool found = false;
        ir_walk_stmts(&iv->stmts, stmt_level_bound, &found);
        if (found)
            return false;
    }
    return true;
}

/* S_info's tiles_time: 0 the loop of single steps (not fused, run-time K levels, an output
   without J, out scalars, a written field read at a horizontal offset), 2 where the parts
   may cut the levels too (levels_alike), else 1. */
static int omp_steps_tiled(const IrStencil *st)
{
    if (!st->fused || !st->pairs.len || emit_kcheck_any(st) ||
        (written_read_axes(st) & ((1u << AXIS_I) | (1u << AXIS_J))))
        return 0;
    for (int f = 0; f < st->fields.len; f++) {
        const IrField *fd = st->fields.items[f];
        if (fd->kind != IR_PARAM_FIELD)
            continue;
        if (fd->is_written && !(fd->axes & (1u << AXIS_J)))
            return 0;
    }
    for (int s = 0; s < st->scalars.len; s++)
        if (st->scalars.items[s]->is_output)
            return 0;
    return levels_alike(st) ? 2 : 1;
}

/* S_steps of a stencil with iterate (language.md 11): time-tiled where omp_steps_tiled, the
   parts of each phase in parallel (S_tiles: one thread a part, the stencil's own parallel
   regions then one thread wide), else the loop of single steps. */
static void omp_steps(Compiler *c, Out *o, EmitStencil *es)
{
    (void)c;
    if (!es->tiles_time) {
        emit_steps_loop(o, es, false);
        return;
    }
    emit_blank(o);
    emit_comment(o, arena_printf(es->arena, "%s: body(ctx, x) for x in [0, n), in parallel, "
                                 "for %s.", es->tiles, es->steps));
    emit_line(o, "static void %s(int64_t n, gt__tile_body *body, void *ctx)", es->tiles);
    emit_open(o, "{");
    emit_line(o, "GT_OMP(omp parallel)");
    emit_open(o, "{");
    emit_line(o, "#ifdef _OPENMP");
    emit_line(o, "omp_set_num_threads(1);   /* the stencil's parallel regions in a part */");
    emit_line(o, "#endif");
    emit_line(o, "GT_OMP(omp for schedule(dynamic, 1))");
    emit_line(o, "for (int64_t x = 0; x < n; x++)");
    emit_line(o, "    body(ctx, x);");
    emit_close(o);
    emit_close(o);
    emit_steps_call(o, es, false, es->tiles);
}

const Backend backend_openmp = {
    .name = "openmp",
    .suffix = ".c",
    .plan = &openmp_plan,
    .preamble = omp_preamble,
    .stencil = omp_stencil,
    .fallback = &backend_naive,
    .steps = omp_steps,
    .steps_plan = "loop of single steps (time not tiled: an output without J, out scalars, "
                  "run-time K levels or an output read at a horizontal offset)",
    .steps_tiled = omp_steps_tiled,
    .steps_tiled_plan = "time-tiled along J (trapezoids of rows and steps, then the gaps "
                        "between them, each phase parallel; the rows a ring where periodic; "
                        "single steps where it cannot pay)",
    .steps_tiled_levels = "; every level alike: rows too wide for the cache run their "
                          "levels as a wavefront",
};
