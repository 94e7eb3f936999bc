/* emit_cuda.c: the CUDA backend (docs/cuda.md).
 *
 * It follows the plan of fuse.c with the parameters below (tiles in shared
 * memory up to 16 KiB each; a wider temporary stays a FULL device array) and
 * writes, per stencil, its kernels and then its host function, with the same
 * C API as the other backends (runtime.md section 3):
 *
 *     int S(fields..., scalars..., const gt_domain *domain)
 *     {
 *         gt__bind_device: argument checks; inputs uploaded where the host
 *             is newer, outputs marked device-dirty; device origins, strides
 *         FULL temporaries on the device (gt__device_temporary)
 *         out scalars: a device accumulator each, at the identity
 *         the kernels' variant: 32-bit indices if gt__index32 allows, and
 *             one set of strides per stride set if the storages agree
 *         the kernels, in the order of the plan (one stream)
 *         gt__device_wait: a failed launch or kernel is GT_EDEVICE
 *         out scalars copied back; release
 *     }
 *
 * Each launch unit is a device function templated on its index type
 * (gt_bN_S), called by gt_kN_S<int32_t / int64_t> (strides per array) and
 * gt_sN_S (strides per stride set, 32-bit); each block indexes its arrays
 * from base pointers at its origin. Launch units, in plan order:
 *   - parallel computations: one kernel per group of three-dimensional
 *     planned kernels, blocks of 32 x 8 threads over the domain, each block
 *     looping over the levels and running the group's kernels in turn
 *     (tiles in shared memory, barriers where a kernel depends on the ones
 *     before); other kernels a thread per (i, j) of their range, looping
 *     over the levels;
 *   - columnar forward/backward computations whose kernels all vary along I
 *     and J: one kernel for the whole computation, each thread running its
 *     column through every interval and level in order (k-caching);
 *   - other forward/backward computations: the host loops over the levels,
 *     one launch per planned kernel and level.
 * Full reductions: per thread, then warp shuffles, the warps' results in
 * shared memory, shuffles in the first warp, one atomic per block. Reads of
 * fields with a boundary condition are remapped only where a block (in a
 * group) or a point (elsewhere) is within reach of the domain's edge.
 *
 * The same .cu text builds for the CPU with -DGT_SIMT against the SIMT
 * emulator of tests/simt (gt/gt_cuda.h selects the dialect): that is how the
 * differential test checks its numbers without a GPU. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

/* 32 x 8 threads: a warp along I (contiguous in the "cuda" and "cpu"
 * layouts: coalesced loads), 8 rows. */
enum { CUDA_BLOCK_I = 32, CUDA_BLOCK_J = 8, CUDA_THREADS = CUDA_BLOCK_I * CUDA_BLOCK_J };

static const PlanParams cuda_plan = {
    .tiles = true,
    .tile_bytes_max = 16 * 1024,
    /* the static shared memory of one block (48 KiB), less what the block reductions of
       a group take (8 warps' partial results of at most 8 bytes, for each of at most
       PLAN_GROUP_REDUCTIONS_MAX reductions) */
    .group_tile_bytes_max = 48 * 1024 - PLAN_GROUP_REDUCTIONS_MAX * 8 * 8,
    .tile_row_align = 8,
    .stage_min_offsets = 3,
    .stage_max_loads = 2,
    .group_reductions = true,
    .recompute_max_nodes = 24,
    .recompute_max_ops = 16,
    .recompute_full_loads = 12,
    .block_i = CUDA_BLOCK_I,
    .block_j_max = CUDA_BLOCK_J,
    .block_j_min = CUDA_BLOCK_J,
    .blocks_per_thread = 1,
    .block_j_column = CUDA_BLOCK_J,
};

/* The 32-bit registers a group's stage registers take at most (stage_regs). */
enum { CUDA_STAGE_REGS = 4 };

/* A staged field's value at the thread's own point plus a horizontal offset, kept in a
 * register for the level (stage_regs). */
typedef struct {
    int field;
    int64_t off[2];           /* I, J */
    int kernels, last;        /* while scanning: the own-point kernels that read it, the
                                 last of them */
    const char *name;         /* the register, once emitted */
} StageReg;

/* One launch unit: a kernel function and how the host launches it. */
typedef enum {
    UNIT_GROUP,      /* the three-dimensional kernels of one group of a parallel interval:
                        blocks over the domain, tiles in shared memory */
    UNIT_PARALLEL,   /* one other planned kernel of a parallel interval, levels looped per
                        thread */
    UNIT_COLUMNS,    /* a whole columnar computation, columns per thread */
    UNIT_LEVEL,      /* one planned kernel of a forward/backward interval, one level */
} UnitKind;

typedef struct {
    Compiler *c;
    Out *o;
    EmitStencil *es;
    const IrStencil *st;
    const char **si, **sj, **sk;   /* per array field: its strides along I, J, K */
    const char **acc_d;            /* per out scalar: its device accumulator */
    int naccs;                     /* out scalars: slots of the accumulators' device block */
    bool *used;                    /* per field: the stencil accesses it */
    const char *kk;
    int nunits;                    /* kernels written so far */
    int unit_kernels;              /* the kernels of the unit being handled (groups: several) */
    FILE *dump;                    /* cuda_dump_plan: where the plan lines go */
    bool safe;                     /* reads of fields with a boundary condition are remapped
                                      (everywhere but in a group's blocks away from the edges) */
    /* TILE temporaries, per field id: the shared array, its row length and
     * its rows (the block grown by the extent), and the variables of its
     * origin in the domain for the current block */
    const char **tile, **tile_i0, **tile_j0;
    int *tile_w, *tile_h;
    /* per field: the stage the current unit reads it from (IrKernel.stages), or NULL; its
     * shared array and the variables of its origin and its per-thread load slots */
    const IrStage **stage;
    const char **stage_name, **stage_i0, **stage_j0;
    /* per tile or staged field: the register that holds its value at the thread's own point
     * of the block (i = gt_ib + threadIdx.x, j = gt_jb + threadIdx.y) at the current level,
     * where a group keeps one (own_ring, stage_slots), else NULL; and whether the point
     * code being written is at the thread's own point (reads at offset 0 there take the
     * register instead of shared memory, writes set it too) */
    const char **own_reg;
    bool own;
    /* the current group's stage registers (stage_regs): a staged field's values at the
     * own point plus an offset, loaded once per level */
    StageReg sreg[CUDA_STAGE_REGS];
    int nsreg;
    /* per array field: its address at the current block's origin (gt_ib, gt_jb), so
     * that a thread indexes it with small offsets; its stride set: fields
     * whose storages agree (same axes and element size: parameters; the same
     * halo too: temporaries) share the strides of the set's first field in
     * the kernels for calls where they do agree */
    const char **base;
    /* per array field with a K axis: its address at the block's origin and the level of
     * the current unit's K loop (moved by its K stride each level), where kbump */
    const char **kbase;
    bool level_addr;               /* the current unit's K loop addresses from levels */
    bool kbump;
    int *set;
    int nsets;
    int *set_first;                /* per stride set: its first field */
    const char **set_i, **set_j, **set_k;
    const char *ib, *jb;           /* the current unit's block origin along I, J; or NULL */
    bool *unit_used;               /* per field: the current unit's kernels access it */
    const char *index32, *shared;  /* host: the variables that choose a kernel's variant */
    const char *in_place;          /* and whether an output is an input's storage (or NULL:
                                    * no field is read only at offset 0, or none is written) */
    EmitPoint point;
} Cuda;

/* ================================================================ points */

static bool is_array(const IrField *f)
{
    return f->kind == IR_PARAM_FIELD || f->temp_class == IR_TEMP_FULL;
}

/* An array element, GT_LD(p, index) for a read and GT_ST(p, index) for a
 * write (p[index] under nvcc; checked and counted by the SIMT emulator):
 * every read of a field with a boundary condition is remapped, writes never
 * are. */
static void cuda_access(Out *o, const EmitExprCtx *cx, const IrField *f, const int64_t off[NAXES],
                        bool write)
{
    Cuda *u = ((EmitPoint *)cx->user)->user;
    Arena *ar = u->c->arena;
    const char *sh = NULL, *i0 = NULL, *j0 = NULL;
    int64_t w = 0;
    if (f->kind == IR_TEMP && f->temp_class == IR_TEMP_TILE) {
        sh = u->tile[f->id], i0 = u->tile_i0[f->id], j0 = u->tile_j0[f->id];
        w = u->tile_w[f->id];
    } else if (!write && u->stage && u->stage[f->id]) {
        /* a staged field (the plan: read here only at level k, at horizontal offsets
           within its box) */
        sh = u->stage_name[f->id], i0 = u->stage_i0[f->id], j0 = u->stage_j0[f->id];
        w = u->stage[f->id]->w;
    }
    if (sh) {
        const char *reg = u->own && !off[AXIS_I] && !off[AXIS_J] && !off[AXIS_K]
                              ? u->own_reg[f->id] : NULL;
        for (int r = 0; u->own && !write && sh == u->stage_name[f->id] && r < u->nsreg; r++)
            if (u->sreg[r].field == f->id && u->sreg[r].off[0] == off[AXIS_I] &&
                u->sreg[r].off[1] == off[AXIS_J] && !off[AXIS_K])
                reg = u->sreg[r].name;
        if (reg && !write) {
            emit_text(o, "%s", reg);
            return;
        }
        emit_text(o, "%s(%s, (%s - %s) * %" PRId64 " + %s - %s)", write ? "GT_SHS" : "GT_SHL", sh,
                  emit_val_text(ar, emit_val_add(cx->idx[AXIS_J], off[AXIS_J]), PREC_ADD), j0, w,
                  emit_val_text(ar, emit_val_add(cx->idx[AXIS_I], off[AXIS_I]), PREC_ADD), i0);
        /* `GT_SHS(...) = reg = value;`: the register follows every store at the own point */
        if (reg)
            emit_text(o, " = %s", reg);
        return;
    }
    bool remap[NAXES];
    for (int a = 0; a < NAXES; a++)
        remap[a] = !write && (u->safe || (a == AXIS_K && cx->idx[a].term == u->kk));
    EmitRead r = emit_read(ar, u->es, f, cx->idx, off, remap);
    const char *stride[NAXES] = {u->si[f->id], u->sj[f->id], u->sk[f->id]};
    /* positions from the block's origin (the base pointer's) */
    const char *origin[2] = {u->ib, u->jb};
    for (int a = 0; a < 2; a++)
        if (r.pos[a].kind != EV_NONE && origin[a])
            r.pos[a] = emit_val_sub(ar, r.pos[a], emit_val_name(origin[a]));
    /* at the K loop's level k plus a constant: from the level's address (no k * stride
     * at each level, and the rest of the index the same at every level) */
    const char *base = u->base[f->id];
    if (u->kbump && (f->axes & AXES_K) && r.pos[AXIS_K].kind == EV_NAME &&
        cx->idx[AXIS_K].kind == EV_NAME && strcmp(r.pos[AXIS_K].term, "k") == 0 &&
        strcmp(cx->idx[AXIS_K].term, "k") == 0) {
        base = u->kbase[f->id];
        r.pos[AXIS_K] = emit_val_const(r.pos[AXIS_K].k);
    }
    emit_read_open(o, &r, f->type);
    emit_element_macro(o, write ? "GT_ST" : "GT_LD", base, r.pos, stride);
    emit_read_close(o, &r);
}

/* The K loop `for (k = gt_klo; k < gt_khi; k++)` of a unit, with each array field of K
 * the unit accesses addressed from its level: opened (the level addresses at gt_klo), and
 * closed (each moved by its K stride, then the loop's brace). */
/* A field the unit's K loop addresses from its level (level_loop_open). */
static bool level_field(const Cuda *u, int f)
{
    const IrField *fd = u->st->fields.items[f];
    return u->used[f] && is_array(fd) && u->unit_used[f] && (fd->axes & AXES_K);
}

static void level_loop_open(Cuda *u, const char *head)
{
    Out *o = u->o;
    const IrStencil *st = u->st;
    if (!u->level_addr) {
        emit_open(o, "%s", head);
        return;
    }
    for (int f = 0; f < st->fields.len; f++) {
        const IrField *fd = st->fields.items[f];
        if (level_field(u, f))
            emit_line(o, "%s%s *%s = %s + gt_klo * %s;", fd->is_written ? "" : "const ",
                      emit_c_type(fd->type), u->kbase[f], u->base[f], u->sk[f]);
    }
    emit_open(o, "%s", head);
    u->kbump = true;
}

static void level_loop_close(Cuda *u)
{
    Out *o = u->o;
    const IrStencil *st = u->st;
    for (int f = 0; u->level_addr && f < st->fields.len; f++)
        if (level_field(u, f))
            emit_line(o, "%s += %s;", u->kbase[f], u->sk[f]);
    emit_close(o);
    u->kbump = false;
}

/* ================================================================ kernels */

/* A field parameter the stencil only reads, at an offset somewhere: bind
 * refuses a call where an output shares its memory (GT_EALIAS), so nothing
 * writes it while a kernel runs and its pointers are __restrict__ (loads
 * through the read-only path, LDG...CONSTANT, and never reloaded after a
 * store). A field read only at offset 0 may be an output's very storage (an
 * in-place call), and temporaries may share buffers: not theirs. */
static bool read_only(const IrField *fd)
{
    return fd->kind == IR_PARAM_FIELD && !fd->is_written && fd->read_at_offset;
}

/* A field parameter the stencil only reads, and only at offset 0: an output
 * may be its very storage (bind allows that in-place call, and only with
 * the same view). The host knows at the call (the two origins are equal,
 * in_place): the gt_kN and gt_sN kernels, which run where no output is such
 * a field's storage, have its pointer __restrict__ too (kernel parameters
 * only: the body and its block bases keep read_only's, so the gt_aN kernel,
 * for in-place calls, reads it the plain way). */
static bool read_at_zero_only(const IrField *fd)
{
    return fd->kind == IR_PARAM_FIELD && !fd->is_written && !fd->read_at_offset;
}

/* Which pointers kernel_params makes __restrict__: the body's and the in-place
 * kernel's (read_only), or the other kernels' (every field only read). */
typedef enum { PARAMS_BODY, PARAMS_KERNEL } ParamsKind;

static bool columns_unit(const IrComputation *comp)
{
    if (comp->order == ORDER_PARALLEL || !comp->columnar)
        return false;
    for (int i = 0; i < comp->intervals.len; i++) {
        const IrInterval *iv = comp->intervals.items[i];
        for (int k = 0; k < iv->kernels.len; k++)
            if ((iv->kernels.items[k].axes & AXES_IJ) != AXES_IJ)
                return false;
    }
    return true;
}

/* The kernel's name: stencil names are unique, and no user name starts
 * with gt_. Variant 'k': the kernel for any storages (a template on its
 * index type), 's': the kernel for storages that agree by stride set
 * (32-bit indices), 'b': the body both call. */
static const char *variant_name(const Cuda *u, char variant, int n)
{
    return arena_printf(u->c->arena, "gt_%c%d_%s", variant, n, u->st->name);
}

/* The parameters of every kernel of the stencil: the domain, the range of
 * the launch, the arrays it uses with their strides (sets: a pointer per
 * array, then the strides of each stride set), the scalar inputs and the out
 * scalars' accumulators. Indices have type gt_idx, or int32_t with sets. */
static void kernel_params(Cuda *u, UnitKind kind, bool sets, ParamsKind pk)
{
    Out *o = u->o;
    const EmitStencil *es = u->es;
    const IrStencil *st = u->st;
    const char *t = sets ? "int32_t" : "gt_idx";
    emit_indent(o);
    emit_indent(o);
    emit_line(o, "const %s %s, const %s %s, const %s %s,", t, es->ni, t, es->nj, t, es->nk);
    if (es->placed) {
        /* the place: bounds (clipped to +-2^30: they fit int32_t), origin, wrap */
        emit_line(o, "const %s %s, const %s %s, const %s %s, const %s %s,", t, es->lo[0], t,
                  es->hi[0], t, es->lo[1], t, es->hi[1]);
        emit_line(o, "const %s %s, const %s %s, const int %s, const int %s,", t, es->origin[0],
                  t, es->origin[1], es->wrap[0], es->wrap[1]);
    }
    emit_line(o, "const %s gt_ilo, const %s gt_ihi, const %s gt_jlo, const %s gt_jhi,", t, t, t,
              t);
    emit_begin_line(o);
    if (kind == UNIT_LEVEL)
        emit_text(o, "const %s k", t);
    else
        emit_text(o, "const %s gt_klo, const %s gt_khi", t, t);
    for (int f = 0; f < st->fields.len; f++) {
        const IrField *fd = st->fields.items[f];
        if (!u->used[f] || !is_array(fd))
            continue;
        emit_text(o, ",");
        emit_end_line(o);
        emit_begin_line(o);
        bool ro = read_only(fd) || (pk == PARAMS_KERNEL && read_at_zero_only(fd));
        emit_text(o, "%s%s *%sconst %s", fd->is_written ? "" : "const ", emit_c_type(fd->type),
                  ro ? "__restrict__ " : "", es->data[f]);
        if (!sets)
            emit_text(o, ", const %s %s, const %s %s, const %s %s", t, u->si[f], t, u->sj[f], t,
                      u->sk[f]);
    }
    for (int x = 0; sets && x < u->nsets; x++) {
        emit_text(o, ",");
        emit_end_line(o);
        emit_begin_line(o);
        emit_text(o, "const %s %s, const %s %s, const %s %s", t, u->set_i[x], t, u->set_j[x], t,
                  u->set_k[x]);
    }
    for (int s = 0; s < st->scalars.len; s++) {
        const IrScalar *sc = st->scalars.items[s];
        emit_text(o, ",");
        emit_end_line(o);
        emit_begin_line(o);
        if (sc->is_output)
            emit_text(o, "%s *const %s", emit_c_type(sc->type), u->acc_d[s]);
        else
            emit_text(o, "const %s %s", emit_c_type(sc->type), es->scalar[s]);
    }
    if (emit_kguard_any(u->es)) {
        /* reads at run-time levels checked as they read: the record, the levels */
        emit_text(o, ",");
        emit_end_line(o);
        emit_begin_line(o);
        emit_text(o, "gt_kfail *const gt_kf, const int64_t *const gt_klv");
    }
    emit_text(o, ")");
    emit_end_line(o);
    emit_dedent(o);
    emit_dedent(o);
}

/* The arguments matching kernel_params: klo and khi (or k) as given; with
 * sets, each array's strides are its set's (in a kernel: the set's
 * parameters; on the host: its first field's strides). */
static void kernel_args(Cuda *u, const char *klev, bool sets, bool expand)
{
    Out *o = u->o;
    const EmitStencil *es = u->es;
    const IrStencil *st = u->st;
    emit_text(o, "%s, %s, %s, ", es->ni, es->nj, es->nk);
    if (es->placed)
        emit_text(o, "%s, %s, %s, %s, %s, %s, %s, %s, ", es->lo[0], es->hi[0], es->lo[1],
                  es->hi[1], es->origin[0], es->origin[1], es->wrap[0], es->wrap[1]);
    emit_text(o, "gt_ilo, gt_ihi, gt_jlo, gt_jhi, %s", klev);
    for (int f = 0; f < st->fields.len; f++) {
        if (!u->used[f] || !is_array(st->fields.items[f]))
            continue;
        emit_text(o, ", %s", es->data[f]);
        if (!sets) {
            emit_text(o, ", %s, %s, %s", u->si[f], u->sj[f], u->sk[f]);
        } else if (expand) {
            /* the gt_sN kernels run where every I stride is 1 (kernel_variant) */
            int x = u->set[f];
            emit_text(o, ", %s, %s, %s", st->fields.items[f]->axes & AXES_I ? "1" : u->set_i[x],
                      u->set_j[x], u->set_k[x]);
        }
    }
    for (int x = 0; sets && !expand && x < u->nsets; x++) {
        int f = u->set_first[x];
        emit_text(o, ", %s, %s, %s", u->si[f], u->sj[f], u->sk[f]);
    }
    for (int s = 0; s < st->scalars.len; s++)
        emit_text(o, ", %s", st->scalars.items[s]->is_output ? u->acc_d[s] : es->scalar[s]);
    if (emit_kguard_any(u->es))
        emit_text(o, ", gt_kf, gt_klv");
}

/* Each array the kernels of the unit access at its block's origin: base
 * pointers, so that the threads index them with small offsets. */
static void block_bases(Cuda *u)
{
    Out *o = u->o;
    const IrStencil *st = u->st;
    for (int f = 0; f < st->fields.len; f++) {
        const IrField *fd = st->fields.items[f];
        if (!u->used[f] || !is_array(fd) || !u->unit_used[f])
            continue;
        const char *off = NULL;
        if (u->ib && (fd->axes & AXES_I))
            off = arena_printf(u->c->arena, "%s * %s", u->ib, u->si[f]);
        if (u->jb && (fd->axes & AXES_J)) {
            const char *t = arena_printf(u->c->arena, "%s * %s", u->jb, u->sj[f]);
            off = off ? arena_printf(u->c->arena, "%s + %s", off, t) : t;
        }
        emit_line(o, "%s%s *%sconst %s = %s%s%s%s;", fd->is_written ? "" : "const ",
                  emit_c_type(fd->type), read_only(fd) ? "__restrict__ " : "", u->base[f],
                  u->es->data[f], off ? " + (" : "", off ? off : "", off ? ")" : "");
    }
}

static void mark_field(void *ctx, const IrField *f, const int64_t off[NAXES], bool in_column)
{
    (void)off, (void)in_column;
    ((bool *)ctx)[f->id] = true;
}

/* Sets u->unit_used to the fields the count kernels from k0 access. */
static void unit_fields(Cuda *u, const IrInterval *iv, const IrKernel *k0, int count)
{
    for (int m = 0; m < count; m++)
        for (int s = k0[m].first; s < k0[m].first + k0[m].count; s++)
            plan_visit_stmt(iv->stmts.items[s], mark_field, u->unit_used);
}

/* v combined with the value of the lane delta above it: a step of a warp's
 * reduction by shuffles (bools go through int: there is no bool shuffle). */
static void shuffle_step(Cuda *u, const IrStmt *red, const char *delta)
{
    Out *o = u->o;
    Type t = red->reduce.dst->type;
    emit_open(o, "for (int gt_s = %s; gt_s > 0; gt_s >>= 1) {", delta);
    if (t == TY_BOOL)
        emit_line(o, "const bool gt_o = __shfl_down_sync(0xffffffffu, (int)gt_v, gt_s) != 0;");
    else
        emit_line(o, "const %s gt_o = __shfl_down_sync(0xffffffffu, gt_v, gt_s);",
                  emit_c_type(t));
    emit_begin_line(o);
    emit_reduce_open(o, red->reduce.op, t, "gt_v");
    emit_text(o, "gt_o");
    emit_reduce_close(o, red->reduce.op, t);
    emit_text(o, ";");
    emit_end_line(o);
    emit_close(o);
}

/* The block's reduction of each thread's partial result red into the out
 * scalar's accumulator (seed 001): each warp reduces its 32 values by
 * shuffles, lane 0 of each warp puts the warp's in shared memory, one
 * barrier, the first warp reduces those 8 by shuffles, and its lane 0 does
 * the block's one atomic. */
static void block_reduce(Cuda *u, const IrStmt *red, const char *local, int n)
{
    Out *o = u->o;
    Type t = red->reduce.dst->type;
    const char *part = arena_printf(u->c->arena, "gt_part%d", n);
    enum { WARPS = CUDA_THREADS / 32 };
    emit_open(o, "{");
    emit_line(o, "__shared__ %s %s[%d];", emit_c_type(t), part, WARPS);
    emit_line(o, "const int gt_t = (int)(threadIdx.y * %d + threadIdx.x), gt_lane = gt_t %% 32, "
                 "gt_warp = gt_t / 32;", CUDA_BLOCK_I);
    emit_line(o, "%s gt_v = %s;", emit_c_type(t), local);
    shuffle_step(u, red, "16");
    emit_line(o, "if (gt_lane == 0)");
    emit_line(o, "    GT_SHS(%s, gt_warp) = gt_v;", part);
    emit_line(o, "__syncthreads();");
    emit_open(o, "if (gt_warp == 0) {");
    emit_begin_line(o);
    emit_text(o, "gt_v = gt_lane < %d ? GT_SHL(%s, gt_lane) : ", WARPS, part);
    emit_red_identity(o, red->reduce.op, t);
    emit_text(o, ";");
    emit_end_line(o);
    shuffle_step(u, red, arena_printf(u->c->arena, "%d", WARPS / 2));
    emit_line(o, "if (gt_lane == 0)");
    emit_line(o, "    gt_atomic_%s(%s, gt_v);", red_op_names[red->reduce.op],
              u->acc_d[red->reduce.dst->id]);
    emit_close(o);
    emit_close(o);
}

/* The levels of an interval in execution order: for (k = ...) {. */
static void open_levels(Cuda *u, const IrInterval *iv, bool forward)
{
    Arena *a = u->c->arena;
    const char *nk = u->es->nk, *t = emit_index_type(u->es);
    if (forward)
        emit_open(u->o, "for (%s k = %s; k < %s; k++) {", t, emit_level(a, nk, iv->lo, 0),
                  emit_level(a, nk, iv->hi, 0));
    else
        emit_open(u->o, "for (%s k = %s; k >= %s; k--) {", t, emit_level(a, nk, iv->hi, -1),
                  emit_level(a, nk, iv->lo, 0));
}

/* When does the point (i, j, k) of kernel k read a field with a boundary
 * condition outside the domain? NULL: never. */
static const char *point_edge(Cuda *u, const IrInterval *iv, const IrKernel *k)
{
    Arena *a = u->c->arena;
    PlanReach reach = plan_kernel_reach(iv, k);
    static const char *const var[NAXES] = {"i", "j", "k"};
    const char *test = NULL;
    for (int ax = 0; ax < NAXES; ax++) {
        if (!reach.has[ax])
            continue;
        const char *t = emit_edge_test(a, u->es, ax, &reach, var[ax], var[ax], false);
        test = test ? arena_printf(a, "%s || %s", test, t) : t;
    }
    return test;
}

/* The point body of kernel k, guarded by its region when the launch covers
 * more (a columns unit runs kernels of different regions). */
static void unit_body(Cuda *u, const IrInterval *iv, const IrKernel *k, bool guard)
{
    Out *o = u->o;
    Arena *a = u->c->arena;
    const Extent *r = &iv->stmts.items[k->first]->region;
    /* a region statement's kernel: each point tests whether it lies in it */
    static const char *const ij[2] = {"i", "j"};
    const char *in_area = emit_area_test(a, u->es, &iv->stmts.items[k->first]->area, ij);
    if (guard)
        emit_open(o, "if (i >= %" PRId64 " && i < %s && j >= %" PRId64 " && j < %s%s%s) {",
                  r->r[AXIS_I].lo, emit_offset(a, u->es->ni, r->r[AXIS_I].hi), r->r[AXIS_J].lo,
                  emit_offset(a, u->es->nj, r->r[AXIS_J].hi), in_area ? " && " : "",
                  in_area ? in_area : "");
    else if (in_area)
        emit_open(o, "if (%s) {", in_area);
    else
        emit_open(o, "{");
    u->point.o = o;
    /* where reads may need remapping (outside a group, or in a group's edge
     * block: u->safe), each point tests whether it is within reach of the
     * domain's edge; the others read without remapping */
    const char *edge = u->safe ? point_edge(u, iv, k) : NULL;
    if (edge) {
        emit_open(o, "if (%s) {", edge);
        emit_point_body(&u->point, iv, k, "k");
        emit_else(o);
        u->safe = false;
        emit_point_body(&u->point, iv, k, "k");
        u->safe = true;
        emit_close(o);
    } else {
        emit_point_body(&u->point, iv, k, "k");
    }
    emit_close(o);
}

/* The block's range of kernel k along axis a (0: I, 1: J), into lo and hi:
 * the block grown by its region when k is redundant (writes only tiles, scalars
 * and recomputed temporaries), redundantly with its neighbours; else its share
 * of the region (the overhang at the domain's edges goes to the edge
 * blocks). */
static void group_range(Cuda *u, const IrInterval *iv, const IrKernel *k, int a, const char **lo,
                        const char **hi)
{
    Arena *ar = u->c->arena;
    const Extent *r = &iv->stmts.items[k->first]->region;
    int64_t rl = r->r[a].lo, rh = r->r[a].hi;
    const char *b = a ? "gt_jb" : "gt_ib", *e = a ? "gt_je" : "gt_ie";
    const char *n = a ? u->es->nj : u->es->ni;
    if (k->redundant) {
        *lo = emit_offset(ar, b, rl);
        *hi = emit_offset(ar, e, rh);
    } else {
        *lo = rl ? arena_printf(ar, "(%s == 0 ? %" PRId64 " : %s)", b, rl, b) : b;
        *hi = rh ? arena_printf(ar, "(%s == %s ? %s : %s)", e, n, emit_offset(ar, n, rh), e) : e;
    }
}

/* Sets writes[f] for each field s (or a statement nested in it) assigns,
 * recomputed temporaries aside (their statements are left out). */
static IrWalk mark_write(void *ctx, const IrStmt *s)
{
    bool *writes = ctx;
    if (s->kind == IR_ASSIGN) {
        const IrField *f = s->assign.dst;
        if (f->kind != IR_TEMP || f->temp_class != IR_TEMP_RECOMPUTE)
            writes[f->id] = true;
    }
    return IR_WALK_ON;
}

/* The barriers of a group of count kernels from k0 (tiles: it has some):
 * sync[m], one after kernel m. The next kernel takes the block's points in
 * another order, so a barrier comes where it reads what the kernels since
 * the last barrier wrote, or writes what they read; and after the last
 * kernel where there are tiles, which the next level overwrites. */
static void group_syncs(const IrStencil *st, const IrInterval *iv, const IrKernel *k0, int count,
                        bool tiles, bool *sync)
{
    size_t n = (size_t)st->fields.len + 1;
    bool *buf = calloc(4 * n, sizeof *buf);
    if (!buf)
        gtcc_die("out of memory");
    bool *since_r = buf, *since_w = buf + n, *next_r = buf + 2 * n, *next_w = buf + 3 * n;
    for (int m = 0; m < count; m++) {
        for (int s = k0[m].first; s < k0[m].first + k0[m].count; s++) {
            plan_visit_stmt(iv->stmts.items[s], mark_field, since_r);
            ir_walk_stmt(iv->stmts.items[s], mark_write, since_w);
        }
        sync[m] = m + 1 == count && tiles;
        if (m + 1 < count) {
            memset(next_r, 0, 2 * n * sizeof *buf);
            for (int s = k0[m + 1].first; s < k0[m + 1].first + k0[m + 1].count; s++) {
                plan_visit_stmt(iv->stmts.items[s], mark_field, next_r);
                ir_walk_stmt(iv->stmts.items[s], mark_write, next_w);
            }
            for (size_t f = 0; f < n; f++)
                sync[m] = sync[m] || (since_w[f] && next_r[f]) || (since_r[f] && next_w[f]);
        }
        if (sync[m])
            memset(since_r, 0, 2 * n * sizeof *buf);
    }
    free(buf);
}

/* A kernel whose range is the block grown by its region (redundant: a tile's producer) in
 * at most LINEAR_PASSES passes of the block's threads over its w x h points, taken row by
 * row (point p = t + 256 n, a division by the constant w): rather than a loop over J rows
 * and one over I columns, where a warp runs its 32 columns twice for the two a region adds
 * (hdiff's Laplacian over 34 x 10 points: 11 warp passes instead of 20). */
enum { LINEAR_PASSES = 4 };
static bool linear_points(const IrInterval *iv, const IrKernel *k, int64_t *w, int64_t *h)
{
    const Extent *r = &iv->stmts.items[k->first]->region;
    *w = CUDA_BLOCK_I + r->r[AXIS_I].hi - r->r[AXIS_I].lo;
    *h = CUDA_BLOCK_J + r->r[AXIS_J].hi - r->r[AXIS_J].lo;
    return k->redundant && (*w * *h + CUDA_THREADS - 1) / CUDA_THREADS <= LINEAR_PASSES;
}

/* Whether kernel k's range is the block's own (no region along I or J): group_points
 * gives each thread one point, its own. */
static bool block_range(const IrInterval *iv, const IrKernel *k)
{
    const Extent *r = &iv->stmts.items[k->first]->region;
    return !r->r[AXIS_I].lo && !r->r[AXIS_I].hi && !r->r[AXIS_J].lo && !r->r[AXIS_J].hi;
}

/* Whether a box [block origin + lo, block end + hi) holds the block's own 32 x 8 points:
 * then thread (x, y) takes its own point in it first, and the rest of it (the ring) after,
 * so that its own point's value can stay in a register (Cuda.own_reg). */
static bool own_box(int64_t lo_i, int64_t hi_i, int64_t lo_j, int64_t hi_j)
{
    return lo_i <= 0 && hi_i >= 0 && lo_j <= 0 && hi_j >= 0;
}

/* The ring of a w x h box around the block's 32 x 8 points (which start at column a, row
 * b of it): point q of it (0 <= q < w h - 256) at row r, column c, declared as ints. The
 * rows above and below the block come first (T = (h - 8) w points, row by row, skipping the
 * block's 8 rows), then the w - 32 columns beside it in each of its rows. The divisors are
 * constants (a multiply, no division). */
static void ring_point(Cuda *u, const char *q, int64_t w, int64_t h, int64_t a, int64_t b,
                       const char *r, const char *c)
{
    Arena *ar = u->c->arena;
    int64_t t = (h - CUDA_BLOCK_J) * w, side = w - CUDA_BLOCK_I;
    if (strchr(q, ' '))
        q = arena_printf(ar, "(%s)", q);
    const char *tr = arena_printf(ar, "%s / %" PRId64, q, w);
    tr = b ? arena_printf(ar, "%s + (%s >= %" PRId64 " ? %d : 0)", tr, tr, b, CUDA_BLOCK_J)
           : arena_printf(ar, "%s + %d", tr, CUDA_BLOCK_J);
    const char *tc = arena_printf(ar, "%s %% %" PRId64, q, w);
    const char *qs = t ? arena_printf(ar, "(%s - %" PRId64 ")", q, t) : q;
    const char *sr = arena_printf(ar, "%" PRId64 " + %s / %" PRId64, b, qs, side);
    const char *sc = arena_printf(ar, "%s %% %" PRId64, qs, side);
    sc = a ? arena_printf(ar, "%s + (%s >= %" PRId64 " ? %d : 0)", sc, sc, a, CUDA_BLOCK_I)
           : arena_printf(ar, "%s + %d", sc, CUDA_BLOCK_I);
    if (!side) {
        emit_line(u->o, "const int %s = %s, %s = %s;", r, tr, c, tc);
    } else if (!t) {
        emit_line(u->o, "const int %s = %s, %s = %s;", r, sr, c, sc);
    } else {
        emit_line(u->o, "const int %s = %s < %" PRId64 " ? %s : %s;", r, q, t, tr, sr);
        emit_line(u->o, "const int %s = %s < %" PRId64 " ? %s : %s;", c, q, t, tc, sc);
    }
}

/* Kernel k takes the points of its range linearly (linear_points) over a box that holds the
 * block: its own point first, then the ring (group_points). */
static bool own_ring(const IrInterval *iv, const IrKernel *k)
{
    int64_t w, h;
    const Extent *r = &iv->stmts.items[k->first]->region;
    return linear_points(iv, k, &w, &h) &&
           own_box(r->r[AXIS_I].lo, r->r[AXIS_I].hi, r->r[AXIS_J].lo, r->r[AXIS_J].hi);
}

/* The block's points of kernel k, [gt_i0, gt_i1) x [gt_j0, gt_j1): thread
 * (x, y) takes the points i = gt_i0 + x + 32 m, j = gt_j0 + y + 8 n, so no
 * index is divided. A kernel without a region runs over the block itself:
 * one point a thread, no loop; one grown by a region (a tile's producer
 * redundantly over the tile) loops, a second pass along I or J for a few
 * threads, kept rolled (GT_ROLLED); where its range holds the block and
 * takes few passes (own_ring), each thread takes its own point first, with
 * u->own set (reads and writes at offset 0 of a tile or stage there go
 * through its register), then the ring's points in a loop. */
static void group_points(Cuda *u, const IrInterval *iv, const IrKernel *k)
{
    Out *o = u->o;
    const Extent *r = &iv->stmts.items[k->first]->region;
    int64_t w, h;
    if (block_range(iv, k)) {
        emit_open(o, "{");
        emit_line(o, "const gt_idx i = gt_i0 + (gt_idx)threadIdx.x, "
                     "j = gt_j0 + (gt_idx)threadIdx.y;");
        emit_open(o, "if (i < gt_i1 && j < gt_j1) {");
        u->own = true;
    } else if (own_ring(iv, k)) {
        /* the thread's own point, then the ring's points t, t + 256, ... (rolled) */
        linear_points(iv, k, &w, &h);
        emit_open(o, "{");
        emit_line(o, "const gt_idx i = gt_ib + (gt_idx)threadIdx.x, "
                     "j = gt_jb + (gt_idx)threadIdx.y;");
        emit_open(o, "if (i < gt_i1 && j < gt_j1) {");
        emit_line(o, "(void)i; (void)j;");
        u->own = true;
        unit_body(u, iv, k, false);
        u->own = false;
        emit_close(o);
        emit_close(o);
        emit_open(o, "GT_ROLLED for (int gt_q = gt_t; gt_q < %" PRId64 "; gt_q += %d) {",
                  w * h - CUDA_THREADS, CUDA_THREADS);
        ring_point(u, "gt_q", w, h, -r->r[AXIS_I].lo, -r->r[AXIS_J].lo, "gt_r", "gt_c");
        emit_line(o, "const gt_idx i = gt_i0 + gt_c, j = gt_j0 + gt_r;");
        emit_open(o, "if (i < gt_i1 && j < gt_j1) {");
    } else if (linear_points(iv, k, &w, &h)) {
        emit_open(o, "GT_ROLLED for (int gt_p = gt_t; gt_p < %" PRId64 "; gt_p += %d) {", w * h,
                  CUDA_THREADS);
        emit_line(o, "const gt_idx i = gt_i0 + gt_p %% %" PRId64 ", j = gt_j0 + gt_p / %" PRId64
                     ";", w, w);
        emit_open(o, "if (i < gt_i1 && j < gt_j1) {");
    } else {
        emit_open(o, "GT_ROLLED for (gt_idx j = gt_j0 + (gt_idx)threadIdx.y; j < gt_j1; "
                     "j += %d) {", CUDA_BLOCK_J);
        emit_open(o, "GT_ROLLED for (gt_idx i = gt_i0 + (gt_idx)threadIdx.x; i < gt_i1; "
                     "i += %d) {", CUDA_BLOCK_I);
    }
    emit_line(o, "(void)i; (void)j;");
    unit_body(u, iv, k, false);
    u->own = false;
    emit_close(o);
    emit_close(o);
}

/* When does a block's part of kernel k, [gt_i0, gt_i1) x [gt_j0, gt_j1) at level
 * k, read a field with a boundary condition outside the domain? NULL:
 * never (no such read). */
static const char *block_edge(Cuda *u, const IrInterval *iv, const IrKernel *k)
{
    Arena *a = u->c->arena;
    PlanReach reach = plan_kernel_reach(iv, k);
    static const char *const lo[NAXES] = {"gt_i0", "gt_j0", "k"};
    static const char *const hi[NAXES] = {"gt_i1", "gt_j1", "k + 1"};
    const char *test = NULL;
    for (int ax = 0; ax < NAXES; ax++) {
        if (!reach.has[ax])
            continue;
        const char *t = emit_edge_test(a, u->es, ax, &reach, lo[ax], hi[ax], true);
        test = test ? arena_printf(a, "%s || %s", test, t) : t;
    }
    return test;
}

/* stage_regs' scan of one own-point kernel (m) of a group. */
enum { STAGE_REG_SCAN = 32 };
typedef struct {
    const IrKernel *k0;
    int m;
    StageReg cand[STAGE_REG_SCAN];
    int n;
} StageRegScan;

static void stage_reg_access(void *ctx, const IrField *f, const int64_t off[NAXES],
                             bool in_column)
{
    StageRegScan *g = ctx;
    const IrStage *sg = NULL;
    for (int x = 0; x < g->k0->nstages; x++)
        if (g->k0->stages[x].field == f->id)
            sg = &g->k0->stages[x];
    if (!sg || in_column || off[AXIS_K] || (!off[AXIS_I] && !off[AXIS_J]) ||
        !own_box(sg->lo[0], sg->hi[0], sg->lo[1], sg->hi[1]))
        return;
    int c = 0;
    while (c < g->n && !(g->cand[c].field == f->id && g->cand[c].off[0] == off[AXIS_I] &&
                         g->cand[c].off[1] == off[AXIS_J]))
        c++;
    if (c == g->n) {
        if (g->n == STAGE_REG_SCAN)
            return;
        g->cand[g->n++] = (StageReg){f->id, {off[AXIS_I], off[AXIS_J]}, 0, -1, NULL};
    }
    if (g->cand[c].last != g->m) {
        g->cand[c].kernels++;
        g->cand[c].last = g->m;
    }
}

/* The stage registers of group [k0, k0 + count): a staged field's values at the thread's
 * own point plus a horizontal offset that two kernels of the group or more read there
 * (their own-point code: block_range, own_ring), in the order first read, while they fit
 * in CUDA_STAGE_REGS 32-bit registers. stage_level loads them from the stage once per
 * level, after its barrier and the next level's global loads; each kernel would load them
 * again (the barriers between the kernels keep nvcc from reusing a load). hdiff: u[i-1]
 * and u[i+1], read by the Laplacian and again by the fluxes' limiters: shared-memory loads
 * per point 13.64 -> 11.64 at 30 registers (gt_s0, sm_90); all four neighbours took 38
 * registers, occupancy 100% -> 75%. They are GT_STAGE_REG(T) (gt_cuda.h): a reference into
 * the stage before sm_90, where the two took gt_s0 from 30 registers to 38. Returns their
 * number; regs[CUDA_STAGE_REGS] gets them. */
static int stage_regs(const Cuda *u, const IrInterval *iv, const IrKernel *k0, int count,
                      StageReg *regs)
{
    if (!k0->nstages)
        return 0;
    StageRegScan scan, *g = &scan;
    g->k0 = k0;
    g->n = 0;
    for (int m = 0; m < count; m++) {
        if (!block_range(iv, &k0[m]) && !own_ring(iv, &k0[m]))
            continue;
        g->m = m;
        for (int s = k0[m].first; s < k0[m].first + k0[m].count; s++)
            plan_visit_stmt(iv->stmts.items[s], stage_reg_access, g);
    }
    int n = 0, words = 0;
    for (int c = 0; c < g->n; c++) {
        int w = (int)((type_size(u->st->fields.items[g->cand[c].field]->type) + 3) / 4);
        if (g->cand[c].kernels < 2 || words + w > CUDA_STAGE_REGS)
            continue;
        regs[n++] = g->cand[c];
        words += w;
    }
    return n;
}

/* The names of field f's stage (made once per stencil, on first use). */
static void stage_names(Cuda *u, int f)
{
    Arena *a = u->c->arena;
    if (u->stage_name[f])
        return;
    u->stage_name[f] = emit_unique(a, &u->es->names, arena_printf(a, "stage_%s", u->es->field[f]));
    u->stage_i0[f] = emit_unique(a, &u->es->names, arena_printf(a, "%s_i0", u->stage_name[f]));
    u->stage_j0[f] = emit_unique(a, &u->es->names, arena_printf(a, "%s_j0", u->stage_name[f]));
}

/* The load slots of a group's stages, before its level loop: thread t loads the points
 * t, t + 256, ... of each stage's box (w x h, row by row, as the shared array holds it),
 * those inside the block's box (the edge blocks' boxes are cut off at the domain's end plus
 * the box's overhang), each at its offset from the base pointer, computed once here; the
 * first level's values are loaded into registers (stage_level stores them and loads the
 * next level's while the block computes). */
static void stage_slots(Cuda *u, const IrKernel *k0)
{
    Out *o = u->o;
    Arena *a = u->c->arena;
    for (int x = 0; x < k0->nstages; x++) {
        const IrStage *sg = &k0->stages[x];
        int f = sg->field;
        const char *n = arena_printf(a, "gt_%s", u->stage_name[f]);   /* its slots' names */
        const char *t = emit_c_type(u->st->fields.items[f]->type);
        /* where the box holds the block: slot 0 is the thread's own point, the others the
           ring's points t, t + 256, ... (stage_level keeps slot 0's value in a register) */
        bool own = own_box(sg->lo[0], sg->hi[0], sg->lo[1], sg->hi[1]);
        for (int64_t m = 0; m < sg->loads; m++) {
            const char *p = arena_printf(a, "%s_p%" PRId64, n, m);
            const char *pi, *pj, *in;
            if (!own) {
                emit_line(o, "const int %s = %s;", p, emit_offset(a, "gt_t", m * CUDA_THREADS));
                pi = arena_printf(a, "%s %% %" PRId64, p, sg->w);
                pj = arena_printf(a, "%s / %" PRId64, p, sg->w);
                in = arena_printf(a, "%s < %" PRId64 " && ", p, sg->w * sg->h);
            } else {
                pi = arena_printf(a, "%s_c%" PRId64, n, m);
                pj = arena_printf(a, "%s_r%" PRId64, n, m);
                if (m == 0) {
                    emit_line(o, "const int %s = (int)threadIdx.x + %" PRId64 ", %s = "
                                 "(int)threadIdx.y + %" PRId64 ";", pi, -sg->lo[0], pj,
                              -sg->lo[1]);
                    in = "";
                } else {
                    const char *q = emit_offset(a, "gt_t", (m - 1) * CUDA_THREADS);
                    ring_point(u, q, sg->w, sg->h, -sg->lo[0], -sg->lo[1], pj, pi);
                    in = arena_printf(a, "%s < %" PRId64 " && ", q,
                                      sg->w * sg->h - CUDA_THREADS);
                }
                emit_line(o, "const int %s = %s * %" PRId64 " + %s;", p, pj, sg->w, pi);
            }
            emit_line(o, "const bool %s_in%" PRId64 " = %s%s < gt_ie - gt_ib + %" PRId64
                         " && %s < gt_je - gt_jb + %" PRId64 ";", n, m, in, pi,
                      sg->hi[0] - sg->lo[0], pj, sg->hi[1] - sg->lo[1]);
            emit_line(o, "const gt_idx %s_o%" PRId64 " = (gt_idx)(%s) * %s + (gt_idx)(%s) * %s;", n,
                      m, emit_offset(a, pi, sg->lo[0]), u->si[f], emit_offset(a, pj, sg->lo[1]),
                      u->sj[f]);
            emit_line(o, "%s %s_v%" PRId64 " = %s_in%" PRId64 " ? GT_LD(%s, %s_o%" PRId64
                         " + gt_klo * %s) : (%s)0;", t, n, m, n, m, u->base[f], n, m, u->sk[f], t);
        }
    }
}

/* At the top of a group's level: the stages' values into shared memory, a barrier, and
 * the next level's values into the registers (their loads in flight while the block
 * computes this level). The barrier after the group's last kernel (it has tiles) keeps
 * the next level's stores from overwriting what this level still reads. */
static void stage_level(Cuda *u, const IrKernel *k0)
{
    Out *o = u->o;
    if (!k0->nstages)
        return;
    for (int x = 0; x < k0->nstages; x++) {
        const IrStage *sg = &k0->stages[x];
        const char *n = u->stage_name[sg->field];
        for (int64_t m = 0; m < sg->loads; m++)
            emit_line(o, "if (gt_%s_in%" PRId64 ") GT_SHS(%s, gt_%s_p%" PRId64 ") = gt_%s_v%" PRId64
                         ";", n, m, n, n, m, n, m);
    }
    emit_line(o, "__syncthreads();");
    /* slot 0 is the own point (stage_slots): its value stays for this level's reads there */
    for (int x = 0; x < k0->nstages; x++) {
        const IrStage *sg = &k0->stages[x];
        int f = sg->field;
        if (!own_box(sg->lo[0], sg->hi[0], sg->lo[1], sg->hi[1]))
            continue;
        if (!u->own_reg[f])
            u->own_reg[f] = emit_unique(u->c->arena, &u->es->names,
                                        arena_printf(u->c->arena, "%s_own", u->stage_name[f]));
        emit_line(o, "const %s %s = gt_%s_v0;", emit_c_type(u->st->fields.items[f]->type),
                  u->own_reg[f], u->stage_name[f]);
        emit_line(o, "(void)%s;", u->own_reg[f]);
    }
    emit_open(o, "if (k + 1 < gt_khi) {");
    for (int x = 0; x < k0->nstages; x++) {
        const IrStage *sg = &k0->stages[x];
        int f = sg->field;
        const char *n = u->stage_name[f];
        for (int64_t m = 0; m < sg->loads; m++)
            emit_line(o, "if (gt_%s_in%" PRId64 ") gt_%s_v%" PRId64 " = GT_LD(%s, gt_%s_o%" PRId64
                         " + (k + 1) * %s);", n, m, n, m, u->base[f], n, m, u->sk[f]);
    }
    emit_close(o);
    /* the stage registers (stage_regs), after the next level's loads: before them,
       nvcc kept more registers (hdiff's gt_k0<int32_t>: 37, not 32) */
    for (int r = 0; r < u->nsreg; r++) {
        StageReg *x = &u->sreg[r];
        const IrStage *sg = u->stage[x->field];
        Arena *a = u->c->arena;
        /* stage_u_im1_j0: u at i - 1, j */
        const char *d[2];
        for (int ax = 0; ax < 2; ax++)
            d[ax] = arena_printf(a, "%s%" PRId64, x->off[ax] < 0 ? "m" : x->off[ax] ? "p" : "",
                                 x->off[ax] < 0 ? -x->off[ax] : x->off[ax]);
        x->name = emit_unique(a, &u->es->names, arena_printf(a, "%s_i%s_j%s",
                                                             u->stage_name[x->field], d[0], d[1]));
        emit_line(o, "GT_STAGE_REG(%s) %s = GT_SHL(%s, %s);",
                  emit_c_type(u->st->fields.items[x->field]->type), x->name,
                  u->stage_name[x->field],
                  emit_offset(a, arena_printf(a, "gt_%s_p0", u->stage_name[x->field]),
                              x->off[1] * sg->w + x->off[0]));
        emit_line(o, "(void)%s;", x->name);
    }
}

/* The registers of the tiles that the group's kernels write at the threads' own points
 * (own_ring), declared before the level loop: kept equal to the tile there (every store
 * at the own point sets it), so a later read there, at this level or the next, takes it.
 * Only for a tile that every kernel writing it writes so: one that takes its points
 * otherwise (a nest, or a range that does not hold the block) could store at another
 * thread's own point and leave its register behind. */
static void own_tiles(Cuda *u, const IrInterval *iv, const IrKernel *k0, int count)
{
    const IrStencil *st = u->st;
    size_t n = (size_t)st->fields.len + 1;
    bool *writes = arena_alloc(u->c->arena, sizeof(bool) * n);
    bool *own = arena_alloc(u->c->arena, sizeof(bool) * n);
    bool *other = arena_alloc(u->c->arena, sizeof(bool) * n);
    for (int m = 0; m < count; m++) {
        bool block = block_range(iv, &k0[m]);
        memset(writes, 0, sizeof(bool) * n);
        for (int s = k0[m].first; s < k0[m].first + k0[m].count; s++)
            ir_walk_stmt(iv->stmts.items[s], mark_write, writes);
        bool ring = own_ring(iv, &k0[m]);
        for (size_t f = 0; f < n; f++) {
            own[f] = own[f] || (writes[f] && ring);
            other[f] = other[f] || (writes[f] && !ring && !block);
        }
    }
    for (int f = 0; f < st->fields.len; f++) {
        const IrField *fd = st->fields.items[f];
        if (!own[f] || other[f] || fd->kind != IR_TEMP || fd->temp_class != IR_TEMP_TILE)
            continue;
        u->own_reg[f] = emit_unique(u->c->arena, &u->es->names,
                                    arena_printf(u->c->arena, "%s_own", u->tile[f]));
        emit_line(u->o, "%s %s = 0;", emit_c_type(fd->type), u->own_reg[f]);
        emit_line(u->o, "(void)%s;", u->own_reg[f]);
    }
}

/* The kernels [k0, k0 + count) of one group: each block (32 x 8 points of
 * the domain) runs them in turn at each level, every thread taking the
 * block's points of a kernel's range in strides of 32 along I and 8 along J
 * (group_points: a range grown by a region or a tile's extent gives a
 * thread other points than the block's own); a tile lives in shared memory for the
 * block, over the block grown by its extent. A barrier comes between two
 * kernels where the later reads what the kernels since the last barrier
 * wrote, or writes what they read, and after the last kernel where there
 * are tiles (the next level overwrites them). */
static void write_group(Cuda *u, const IrInterval *iv, const IrKernel *k0, int count,
                        const char *const *locals)
{
    Out *o = u->o;
    const IrStencil *st = u->st;
    bool any = k0->ntiles > 0;   /* the group's tiles: the plan's, on its kernels */
    emit_line(o, "const gt_idx gt_ib = (gt_idx)blockIdx.x * %d, "
                 "gt_jb = gt_jlo + (gt_idx)blockIdx.y * %d;", CUDA_BLOCK_I, CUDA_BLOCK_J);
    emit_line(o, "const gt_idx gt_ie = gt_ib + %d < %s ? gt_ib + %d : %s, "
                 "gt_je = gt_jb + %d < %s ? gt_jb + %d : %s;", CUDA_BLOCK_I, u->es->ni,
              CUDA_BLOCK_I, u->es->ni, CUDA_BLOCK_J, u->es->nj, CUDA_BLOCK_J, u->es->nj);
    for (int t = 0; t < k0->ntiles; t++) {
        int f = k0->tiles[t];
        const IrField *fd = st->fields.items[f];
        emit_line(o, "__shared__ %s %s[%d];", emit_c_type(fd->type), u->tile[f],
                  u->tile_w[f] * u->tile_h[f]);
        emit_line(o, "const gt_idx %s = gt_ib - %" PRId64 ", %s = gt_jb - %" PRId64 ";",
                  u->tile_i0[f], -fd->extent.r[AXIS_I].lo, u->tile_j0[f],
                  -fd->extent.r[AXIS_J].lo);
    }
    int64_t shared_bytes = k0->tile_bytes;
    for (int x = 0; x < k0->nstages; x++) {
        const IrStage *sg = &k0->stages[x];
        stage_names(u, sg->field);
        u->stage[sg->field] = sg;
        emit_line(o, "__shared__ %s %s[%" PRId64 "];",
                  emit_c_type(st->fields.items[sg->field]->type), u->stage_name[sg->field],
                  sg->w * sg->h);
        emit_line(o, "const gt_idx %s = %s, %s = %s;", u->stage_i0[sg->field],
                  emit_offset(u->c->arena, "gt_ib", sg->lo[0]), u->stage_j0[sg->field],
                  emit_offset(u->c->arena, "gt_jb", sg->lo[1]));
        shared_bytes += sg->bytes;
    }
    /* planning kept every group within the budget (fuse.c: demote_over_budget,
       group_stages) */
    if (shared_bytes > cuda_plan.group_tile_bytes_max)
        gtcc_die("stencil '%s': a group's tiles and stages take %" PRId64 " bytes, over the "
                 "plan's budget of %" PRId64, st->name, shared_bytes,
                 cuda_plan.group_tile_bytes_max);
    bool *sync = arena_alloc(u->c->arena, sizeof(bool) * (size_t)count);
    group_syncs(st, iv, k0, count, any, sync);
    u->ib = "gt_ib";
    u->jb = "gt_jb";
    block_bases(u);
    /* the thread's number in the block, where points are taken by it */
    bool linear = k0->nstages > 0;
    for (int m = 0; m < count; m++) {
        int64_t w, h;
        linear = linear || linear_points(iv, &k0[m], &w, &h);
    }
    if (linear) {
        /* (void): a kernel of linear points clamped away by its region takes none of them
           (tests/numeric/regions.stn's nest_if, with its mask a one-row tile) */
        emit_line(o, "const int gt_t = (int)(threadIdx.y * %d + threadIdx.x);", CUDA_BLOCK_I);
        emit_line(o, "(void)gt_t;");
    }
    stage_slots(u, k0);
    u->nsreg = stage_regs(u, iv, k0, count, u->sreg);
    own_tiles(u, iv, k0, count);
    /* rolled: unrolling it by two (nvcc's choice) saved 5% of jacobi3d's instructions per
       point but took its registers from 32 to 40-44 (occupancy 100% -> 62-75%) */
    level_loop_open(u, "GT_ROLLED for (gt_idx k = gt_klo; k < gt_khi; k++) {");
    stage_level(u, k0);
    for (int m = 0, r = 0; m < count; m++) {
        const IrKernel *k = &k0[m];
        const char *ilo, *ihi, *jlo, *jhi;
        group_range(u, iv, k, 0, &ilo, &ihi);
        group_range(u, iv, k, 1, &jlo, &jhi);
        if (k->reduce)
            u->point.red_acc = locals[r++];
        emit_open(o, "{");
        emit_line(o, "const gt_idx gt_i0 = %s, gt_i1 = %s, gt_j0 = %s, gt_j1 = %s;", ilo, ihi,
                  jlo, jhi);
        /* seed 003: a block whose points' boundary-condition reads all stay
         * inside the domain runs without remapping; an edge block remaps */
        const char *edge = block_edge(u, iv, k);
        if (edge) {
            emit_open(o, "if (%s) {", edge);
            u->safe = true;
            group_points(u, iv, k);
            emit_else(o);
        }
        u->safe = false;
        group_points(u, iv, k);
        u->safe = true;
        if (edge)
            emit_close(o);
        emit_close(o);
        if (sync[m])
            emit_line(o, "__syncthreads();");
    }
    level_loop_close(u);
    for (int x = 0; x < k0->nstages; x++)
        u->stage[k0->stages[x].field] = NULL;
    for (int f = 0; f < st->fields.len; f++)
        u->own_reg[f] = NULL;
    u->nsreg = 0;
}

/* The reductions of a unit, in the order of its kernels: every kernel's of a columns
 * unit, of a group's kernels (from k), or k's own. */
typedef VEC(const IrStmt *) Reductions;

static Reductions unit_reductions(Cuda *u, UnitKind kind, const IrComputation *comp,
                                  const IrKernel *k)
{
    Reductions reds = {0};
    if (kind == UNIT_COLUMNS) {
        for (int ii = 0; ii < comp->intervals.len; ii++) {
            const IrInterval *x = comp->intervals.items[ii];
            for (int kk = 0; kk < x->kernels.len; kk++)
                if (x->kernels.items[kk].reduce)
                    vec_push(u->c->arena, &reds, x->kernels.items[kk].reduce);
        }
    } else {
        for (int m = 0; m < (kind == UNIT_GROUP ? u->unit_kernels : 1); m++)
            if (k[m].reduce)
                vec_push(u->c->arena, &reds, k[m].reduce);
    }
    return reds;
}

/* A partial result per thread for each reduction, declared (NULL: none); the block
 * reductions (block_reduce) combine them after the unit's loops. */
static const char **reduction_locals(Cuda *u, const Reductions *reds)
{
    if (!reds->len)
        return NULL;
    const char **locals = arena_alloc(u->c->arena, sizeof *locals * (size_t)reds->len);
    for (int r = 0; r < reds->len; r++) {
        locals[r] = emit_unique(u->c->arena, &u->es->names, "local");
        emit_red_local(u->o, reds->items[r]->reduce.op, reds->items[r]->reduce.dst->type,
                       locals[r]);
    }
    return locals;
}

/* Writes one kernel function: for UNIT_PARALLEL and UNIT_LEVEL kernel k of
 * iv, for UNIT_GROUP the kernels of k's group from k, for UNIT_COLUMNS every
 * kernel of comp. */
static void write_body(Cuda *u, UnitKind kind, const IrComputation *comp, const IrInterval *iv,
                       const IrKernel *k)
{
    Out *o = u->o;
    unsigned axes = kind == UNIT_COLUMNS || kind == UNIT_GROUP ? AXES_IJK : k->axes;
    memset(u->unit_used, 0, sizeof(bool) * (size_t)(u->st->fields.len + 1));
    if (kind == UNIT_COLUMNS)
        for (int ii = 0; ii < comp->intervals.len; ii++)
            unit_fields(u, comp->intervals.items[ii], comp->intervals.items[ii]->kernels.items,
                        comp->intervals.items[ii]->kernels.len);
    else
        unit_fields(u, iv, k, u->unit_kernels);
    if (kind == UNIT_GROUP) {
        /* the group's reductions (cuda_plan.group_reductions), over the levels and
         * the points its kernel gives the thread */
        Reductions reds = unit_reductions(u, kind, comp, k);
        const char **locals = reduction_locals(u, &reds);
        write_group(u, iv, k, u->unit_kernels, locals);
        for (int x = 0; x < reds.len; x++)
            block_reduce(u, reds.items[x], locals[x], x);
        return;
    }
    u->ib = u->jb = NULL;
    if (axes & AXES_I) {
        emit_line(o, "const gt_idx gt_ib = gt_ilo + (gt_idx)(blockIdx.x * blockDim.x), "
                     "i = gt_ib + (gt_idx)threadIdx.x;");
        u->ib = "gt_ib";
    }
    if (axes & AXES_J) {
        emit_line(o, "const gt_idx gt_jb = gt_jlo + (gt_idx)(blockIdx.y * blockDim.y), "
                     "j = gt_jb + (gt_idx)threadIdx.y;");
        u->jb = "gt_jb";
    }
    block_bases(u);
    Reductions reds = unit_reductions(u, kind, comp, k);
    const char **locals = reduction_locals(u, &reds);
    /* threads outside the range do nothing, but reach every __syncthreads; along an axis
     * the kernel lacks, only the block's first thread runs it (its grid is one block wide
     * there): a statement of a lower-dimensional field runs once per point of its axes,
     * as in the naive backend, so that `ok = ok + 1.0` adds 1 once */
    const char *inside = (axes & AXES_IJ) == AXES_IJ ? "i < gt_ihi && j < gt_jhi"
                         : axes & AXES_I              ? "i < gt_ihi && threadIdx.y == 0"
                         : axes & AXES_J              ? "j < gt_jhi && threadIdx.x == 0"
                                                      : "threadIdx.x == 0 && threadIdx.y == 0";
    emit_open(o, "if (%s) {", inside);
    int r = 0;
    if (kind == UNIT_COLUMNS) {
        /* the levels read back are carried in registers (k-caching) where
         * every kernel covers the same columns (else a thread's preload
         * could read where a kernel of a smaller region does not) */
        const Extent *same = NULL;
        bool kcache = plan_columns_alike(comp, &same);
        u->point.o = o;
        if (kcache)
            emit_kcache_begin(&u->point, comp);
        for (int ii = 0; ii < comp->intervals.len; ii++) {
            const IrInterval *x = comp->intervals.items[ii];
            if (kcache)
                emit_kcache_interval_begin(&u->point, comp, x);
            open_levels(u, x, comp->order == ORDER_FORWARD);
            for (int kk = 0; kk < x->kernels.len; kk++) {
                if (x->kernels.items[kk].reduce)
                    u->point.red_acc = locals[r++];
                unit_body(u, x, &x->kernels.items[kk], true);
            }
            if (kcache)
                emit_kcache_interval_end(&u->point);
            emit_close(o);
        }
        if (kcache)
            emit_kcache_end(&u->point, comp);
    } else {
        if (reds.len)
            u->point.red_acc = locals[0];
        bool loop = kind == UNIT_PARALLEL && (axes & AXES_K);
        if (loop)
            level_loop_open(u, "for (gt_idx k = gt_klo; k < gt_khi; k++) {");
        unit_body(u, iv, k, false);
        if (loop)
            level_loop_close(u);
    }
    emit_close(o);
    for (int x = 0; x < reds.len; x++)
        block_reduce(u, reds.items[x], locals[x], x);
}

/* The distinct array accesses (field and offset) of a unit, counted up to
 * LEVEL_ACCESSES_MAX + 1. */
enum { LEVEL_ACCESSES_MAX = 8 };
typedef struct {
    const IrField *f[LEVEL_ACCESSES_MAX + 1];
    int64_t off[LEVEL_ACCESSES_MAX + 1][NAXES];
    int n;
    bool column;
} Accesses;

static void count_access(void *ctx, const IrField *f, const int64_t off[NAXES], bool in_column)
{
    Accesses *x = ctx;
    x->column |= in_column;
    if (!is_array(f) || x->n > LEVEL_ACCESSES_MAX)
        return;
    for (int m = 0; m < x->n; m++)
        if (x->f[m] == f && memcmp(x->off[m], off, sizeof x->off[m]) == 0)
            return;
    x->f[x->n] = f;
    memcpy(x->off[x->n], off, sizeof x->off[x->n]);
    x->n++;
}

/* Does the unit's K loop address its arrays from their levels (level_loop_open), and
 * its gt_sN kernel run 8 blocks an SM (GT_FULL_BLOCKS)? Where each thread takes one
 * point of the block (a parallel kernel, or a group of one kernel without tiles, stages
 * or a reduction) and it makes at most LEVEL_ACCESSES_MAX distinct accesses: an access
 * then costs 2 instructions a level instead of 4 (jacobi3d: 76 -> 58 a point), and the
 * registers the addresses take stay within the 32 of full occupancy without spills
 * (box27's 27 accesses spill under the bound: its addresses stay per point). */
static bool level_addressed(Cuda *u, UnitKind kind, const IrInterval *iv, const IrKernel *k)
{
    if (kind == UNIT_GROUP) {
        if (u->unit_kernels != 1 || k->ntiles || k->nstages || k->reduce)
            return false;
    } else if (kind != UNIT_PARALLEL || !(k->axes & AXES_K) || k->reduce) {
        return false;
    }
    Accesses x = {0};
    for (int s = k->first; s < k->first + k->count; s++)
        plan_visit_stmt(iv->stmts.items[s], count_access, &x);
    return !x.column && x.n <= LEVEL_ACCESSES_MAX;
}

/* Writes the kernels of one launch unit (for UNIT_PARALLEL and UNIT_LEVEL
 * kernel k of iv, for UNIT_GROUP the kernels of k's group from k, for
 * UNIT_COLUMNS every kernel of comp): its body, a device function templated
 * on the index type, and the two kernels that call it: gt_kN (any storages;
 * instantiated with int32_t and int64_t indices) and gt_sN (storages that
 * agree by stride set: one set of strides each, 32-bit indices). */
static void write_unit(Cuda *u, UnitKind kind, const IrComputation *comp, const IrInterval *iv,
                       const IrKernel *k)
{
    Out *o = u->o;
    int n = u->nunits++;
    const char *lev = kind == UNIT_LEVEL ? "k" : "gt_klo, gt_khi";
    u->level_addr = kind != UNIT_COLUMNS && level_addressed(u, kind, iv, k);
    emit_blank(o);
    emit_line(o, "template <typename gt_idx>");
    emit_line(o, "static __device__ __forceinline__ void %s(", variant_name(u, 'b', n));
    kernel_params(u, kind, false, PARAMS_BODY);
    emit_open(o, "{");
    if (u->es->placed)
        emit_line(o, "(void)%s; (void)%s; (void)%s; (void)%s; (void)%s; (void)%s; (void)%s; "
                     "(void)%s;", u->es->lo[0], u->es->hi[0], u->es->lo[1], u->es->hi[1],
                  u->es->origin[0], u->es->origin[1], u->es->wrap[0], u->es->wrap[1]);
    u->es->index_type = "gt_idx";
    write_body(u, kind, comp, iv, k);
    u->es->index_type = NULL;
    emit_close(o);
    emit_blank(o);
    for (int v = 0; v < (u->in_place ? 2 : 1); v++) {
        if (v)
            emit_blank(o);
        emit_line(o, "template <typename gt_idx>");
        emit_line(o, "static __global__ void %s(", variant_name(u, v ? 'a' : 'k', n));
        kernel_params(u, kind, false, v ? PARAMS_BODY : PARAMS_KERNEL);
        emit_line(o, "{");
        emit_begin_line(o);
        emit_text(o, "    %s<gt_idx>(", variant_name(u, 'b', n));
        kernel_args(u, lev, false, false);
        emit_text(o, ");");
        emit_end_line(o);
        emit_line(o, "}");
    }
    emit_blank(o);
    emit_line(o, "static __global__ void %s%s(", u->level_addr ? "GT_FULL_BLOCKS " : "",
              variant_name(u, 's', n));
    kernel_params(u, kind, true, PARAMS_KERNEL);
    emit_line(o, "{");
    emit_begin_line(o);
    emit_text(o, "    %s<int32_t>(", variant_name(u, 'b', n));
    kernel_args(u, lev, true, true);
    emit_text(o, ");");
    emit_end_line(o);
    emit_line(o, "}");
}

/* Calls fn for each launch unit of the stencil, in the order of their
 * kernels; with launch, in the order they run: a forward/backward
 * computation run level by level loops over its levels on the host, each
 * level launching every kernel of the interval in turn (a kernel may read
 * at the level below what a later one wrote). */
typedef void UnitFn(Cuda *u, UnitKind kind, const IrComputation *comp, const IrInterval *iv,
                    const IrKernel *k);

/* Is kernel k of a parallel interval three-dimensional, so that it runs as
 * part of its group? Then *count: the kernels of the group from k. */
static bool unit_group(const IrInterval *iv, int k, int *count)
{
    const IrKernel *ks = iv->kernels.items;
    if (ks[k].axes != AXES_IJK)
        return false;
    int last = k;
    while (last + 1 < iv->kernels.len && ks[last + 1].group == ks[k].group &&
           ks[last + 1].axes == AXES_IJK)
        last++;
    *count = last - k + 1;
    return true;
}

static void for_each_unit(Cuda *u, UnitFn *fn, bool launch)
{
    const IrStencil *st = u->st;
    for (int c = 0; c < st->computations.len; c++) {
        const IrComputation *comp = st->computations.items[c];
        if (columns_unit(comp)) {
            fn(u, UNIT_COLUMNS, comp, NULL, NULL);
            continue;
        }
        for (int i = 0; i < comp->intervals.len; i++) {
            const IrInterval *iv = comp->intervals.items[i];
            bool levels = comp->order != ORDER_PARALLEL;
            if (launch && levels)
                open_levels(u, iv, comp->order == ORDER_FORWARD);
            for (int k = 0; k < iv->kernels.len; k++) {
                UnitKind kind = levels                                  ? UNIT_LEVEL
                                : unit_group(iv, k, &u->unit_kernels) ? UNIT_GROUP
                                                                      : UNIT_PARALLEL;
                if (kind != UNIT_GROUP)
                    u->unit_kernels = 1;
                fn(u, kind, comp, iv, &iv->kernels.items[k]);
                k += u->unit_kernels - 1;
            }
            if (launch && levels)
                emit_close(u->o);
        }
    }
}

/* ================================================================ launches */

/* The range of a unit's threads: the region of its kernel (of the union of
 * a columns unit's), into ilo, ihi, jlo, jhi. */
static void unit_range(Cuda *u, UnitKind kind, const IrComputation *comp, const IrInterval *iv,
                       const IrKernel *k, const char *out[4])
{
    Arena *a = u->c->arena;
    Extent r = {{{0, 0}, {0, 0}, {0, 0}}};
    bool first = true;
    for (int ii = 0; ii < (kind == UNIT_COLUMNS ? comp->intervals.len : 1); ii++) {
        const IrInterval *x = kind == UNIT_COLUMNS ? comp->intervals.items[ii] : iv;
        for (int kk = 0; kk < (kind == UNIT_COLUMNS ? x->kernels.len : 1); kk++) {
            const IrKernel *y = kind == UNIT_COLUMNS ? &x->kernels.items[kk] : k;
            const Extent *e = &x->stmts.items[y->first]->region;
            for (int ax = 0; ax < 2; ax++) {
                if (first || e->r[ax].lo < r.r[ax].lo)
                    r.r[ax].lo = e->r[ax].lo;
                if (first || e->r[ax].hi > r.r[ax].hi)
                    r.r[ax].hi = e->r[ax].hi;
            }
            first = false;
        }
    }
    unsigned axes = kind == UNIT_COLUMNS ? AXES_IJK : k->axes;
    const char *n[2] = {u->es->ni, u->es->nj};
    for (int ax = 0; ax < 2; ax++) {
        bool has = axes & (1u << ax);
        out[2 * ax] = has ? arena_printf(a, "%" PRId64, r.r[ax].lo) : "0";
        out[2 * ax + 1] = has ? emit_offset(a, n[ax], r.r[ax].hi) : "1";
    }
}

static void launch_unit(Cuda *u, UnitKind kind, const IrComputation *comp, const IrInterval *iv,
                        const IrKernel *k)
{
    Out *o = u->o;
    Arena *a = u->c->arena;
    const EmitStencil *es = u->es;
    const char *range[4];
    unit_range(u, kind, comp, iv, k, range);
    if (kind == UNIT_GROUP) {   /* blocks over the domain */
        range[0] = range[2] = "0";
        range[1] = es->ni;
        range[3] = es->nj;
    }
    const char *klo = "0", *khi = "1";
    if (kind == UNIT_PARALLEL || kind == UNIT_GROUP) {
        klo = emit_level(a, es->nk, iv->lo, 0);
        khi = emit_level(a, es->nk, iv->hi, 0);
    }
    emit_open(o, "{");
    emit_line(o, "const int64_t gt_ilo = %s, gt_ihi = %s, gt_jhi = %s;", range[0], range[1],
              range[3]);
    /* a launch takes at most GT_GRID_Y_MAX blocks along y (gt_cuda.h: CUDA's 65535): more
     * rows than that many blocks hold run in launches one after the other, each from its
     * first row gt_jlo (a launch's blocks run in any order, so launches in turn are one of
     * its orders) */
    emit_open(o, "for (int64_t gt_jlo = %s; gt_jlo < gt_jhi; gt_jlo += (int64_t)GT_GRID_Y_MAX "
                 "* %d) {", range[2], CUDA_BLOCK_J);
    emit_line(o, "const int64_t gt_jblocks = (gt_jhi - gt_jlo + %d) / %d;", CUDA_BLOCK_J - 1,
              CUDA_BLOCK_J);
    emit_line(o, "const dim3 gt_grid = GT_GRID((gt_ihi - gt_ilo + %d) / %d, gt_jblocks < "
                 "GT_GRID_Y_MAX ? gt_jblocks : GT_GRID_Y_MAX), gt_block = GT_BLOCK(%d, %d);",
              CUDA_BLOCK_I - 1, CUDA_BLOCK_I, CUDA_BLOCK_I, CUDA_BLOCK_J);
    const char *lev = kind == UNIT_LEVEL ? "k" : arena_printf(a, "%s, %s", klo, khi);
    int n = u->nunits++;
    /* the variant the storages allow (the host decided once per call: an in-place
     * call first; the shared strides imply 32-bit indices) */
    static const char *const kernels[4] = {"%s<int64_t>", "%s", "%s<int32_t>", "%s<int64_t>"};
    static const char variants[4] = {'a', 's', 'k', 'k'};
    const char *const conds[4] = {u->in_place, u->shared, u->index32, ""};
    emit_open(o, "if (gt_ihi > gt_ilo && %s < %s) {", klo, khi);
    const int first = u->in_place ? 0 : 1;
    for (int v = first; v < 4; v++) {
        if (v == 3)
            emit_line(o, "else");
        else
            emit_line(o, v == first ? "if (%s)" : "else if (%s)", conds[v]);
        emit_begin_line(o);
        emit_text(o, "    GT_LAUNCH(");
        emit_text(o, kernels[v], variant_name(u, variants[v], n));
        emit_text(o, ", gt_grid, gt_block, ");
        kernel_args(u, lev, v == 1, false);
        emit_text(o, ");");
        emit_end_line(o);
    }
    emit_close(o);
    emit_close(o);
    emit_close(o);
}


/* ================================================================ the host */

static void cuda_strides(Out *o, const EmitStencil *es, int f, void *ctx)
{
    const Cuda *u = ctx;
    emit_line(o, "const int64_t %s = %s[%d].stride[0], %s = %s[%d].stride[1], "
                 "%s = %s[%d].stride[2];",
              u->si[f], es->bound, f, u->sj[f], es->bound, f, u->sk[f], es->bound, f);
}

/* The out scalars' device accumulators: one device block of 8-byte slots (in
 * scalar order), set to the identities their host ones hold with one copy,
 * through the host staging array gt_acc_h (read back with one copy after
 * the launches: accumulator_results). */
static void accumulators(Cuda *u)
{
    Out *o = u->o;
    const EmitStencil *es = u->es;
    int n = u->naccs;
    if (n == 0)
        return;
    emit_line(o, "uint64_t gt_acc_h[%d] = {0};", n);
    emit_line(o, "int64_t gt_acc_s[3];");
    emit_line(o, "unsigned char *const gt_acc = (unsigned char *)gt__device_temporary(&gt_accs, "
                 "GT_FLOAT64, \"I\", (const int64_t[3]){%d, 1, 1}, (const int64_t[6]){0}, "
                 "gt_acc_s);", n);
    emit_alloc_check(o, es, "gt_acc");
    for (int s = 0, m = 0; s < u->st->scalars.len; s++) {
        const IrScalar *sc = u->st->scalars.items[s];
        if (!sc->is_output)
            continue;
        emit_line(o, "%s *const %s = (%s *)(gt_acc + %d);", emit_c_type(sc->type), u->acc_d[s],
                  emit_c_type(sc->type), 8 * m);
        emit_line(o, "__builtin_memcpy(&gt_acc_h[%d], &%s, sizeof %s);", m++, es->acc[s],
                  es->acc[s]);
    }
    emit_line(o, "%s = gt__device_copy(\"stencil '%s'\", gt_acc, gt_acc_h, sizeof gt_acc_h, 1);",
              es->rc, u->st->name);
    emit_line(o, "if (%s != 0)", es->rc);
    emit_line(o, "    goto done;");
}

/* The accumulators' values after the launches, into the host ones (one copy). */
static void accumulator_results(Cuda *u)
{
    Out *o = u->o;
    const EmitStencil *es = u->es;
    const IrStencil *st = u->st;
    if (u->naccs) {
        emit_line(o, "if (%s == 0)", es->rc);
        emit_line(o, "    %s = gt__device_copy(\"stencil '%s'\", gt_acc_h, gt_acc, "
                     "sizeof gt_acc_h, 0);", es->rc, st->name);
    }
    emit_open(o, "if (%s == 0) {", es->rc);
    for (int s = 0, m = 0; s < st->scalars.len; s++)
        if (st->scalars.items[s]->is_output)
            emit_line(o, "__builtin_memcpy(&%s, &gt_acc_h[%d], sizeof %s);", es->acc[s], m++,
                      es->acc[s]);
    emit_scalar_results(o, es);
    emit_close(o);
}

/* Which kernels run (one choice per call): 32-bit indices where every
 * storage and the domain allow (gt__index32), and then the kernels with
 * one set of strides per stride set where the storages of each set agree. */
static void kernel_variant(Cuda *u)
{
    Out *o = u->o;
    const EmitStencil *es = u->es;
    const IrStencil *st = u->st;
    emit_begin_line(o);
    emit_text(o, "const bool %s = gt__index32(%s, %d, %s)", u->index32,
              es->nfield_params ? es->args : "NULL", es->nfield_params, es->size);
    for (int f = es->nfield_params; f < st->fields.len; f++)
        if (st->fields.items[f]->temp_class == IR_TEMP_FULL && plan_owns_buffer(st, f))
            emit_text(o, " && gt__index32(&%s, 1, %s)", es->storage[f], es->size);
    emit_text(o, ";");
    emit_end_line(o);
    emit_begin_line(o);
    emit_text(o, "const bool %s = %s", u->shared, u->index32);
    for (int f = 0; f < st->fields.len; f++) {
        if (!u->used[f] || !is_array(st->fields.items[f]))
            continue;
        int g = u->set_first[u->set[f]];
        if (g != f)
            emit_text(o, " && %s == %s && %s == %s && %s == %s", u->si[f], u->si[g], u->sj[f],
                      u->sj[g], u->sk[f], u->sk[g]);
        else if (st->fields.items[f]->axes & AXES_I)
            emit_text(o, " && %s == 1", u->si[f]);
    }
    emit_text(o, ";");
    emit_end_line(o);
    if (!u->in_place)
        return;
    /* bind allowed an output to share memory only with a field read only at
     * offset 0, and only as the same view: then the two origins are equal */
    emit_begin_line(o);
    emit_text(o, "const bool %s =", u->in_place);
    const char *sep = " ";
    for (int g = 0; g < es->nfield_params; g++) {
        if (!u->used[g] || !read_at_zero_only(st->fields.items[g]))
            continue;
        for (int f = 0; f < es->nfield_params; f++)
            if (u->used[f] && st->fields.items[f]->is_written) {
                emit_text(o, "%s(const void *)%s == (const void *)%s", sep, es->data[g],
                          es->data[f]);
                sep = " || ";
            }
    }
    emit_text(o, ";");
    emit_end_line(o);
}

/* Are array fields f and g in one stride set? Parameters of the same axes
 * and element type; temporaries of the same axes, type and buffer halo. */
static bool same_set(const IrStencil *st, int f, int g)
{
    const IrField *a = st->fields.items[f], *b = st->fields.items[g];
    if ((a->kind == IR_PARAM_FIELD) != (b->kind == IR_PARAM_FIELD) || a->axes != b->axes ||
        a->type != b->type)
        return false;
    if (a->kind == IR_PARAM_FIELD)
        return true;
    int64_t ha[NAXES][2], hb[NAXES][2];
    plan_buffer_halo(st, f, ha);
    plan_buffer_halo(st, g, hb);
    return memcmp(ha, hb, sizeof ha) == 0;
}

/* The stride sets of the array fields used: set[f] for each, the first field
 * of each set in first[]; returns how many sets. */
static int stride_sets(const IrStencil *st, const bool *used, int *set, int *first)
{
    int n = 0;
    for (int f = 0; f < st->fields.len; f++) {
        if (!used[f] || !is_array(st->fields.items[f]))
            continue;
        int x = 0;
        while (x < n && !same_set(st, first[x], f))
            x++;
        if (x == n)
            first[n++] = f;
        set[f] = x;
    }
    return n;
}

/* Names the block base pointers and finds the stride sets. */
static void name_arrays(Cuda *u)
{
    Arena *a = u->c->arena;
    EmitStencil *es = u->es;
    int nf = u->st->fields.len;
    u->base = arena_alloc(a, sizeof(char *) * (size_t)(nf + 1));
    u->set = arena_alloc(a, sizeof(int) * (size_t)(nf + 1));
    u->set_first = arena_alloc(a, sizeof(int) * (size_t)(nf + 1));
    u->set_i = arena_alloc(a, sizeof(char *) * (size_t)(nf + 1));
    u->set_j = arena_alloc(a, sizeof(char *) * (size_t)(nf + 1));
    u->set_k = arena_alloc(a, sizeof(char *) * (size_t)(nf + 1));
    u->kbase = arena_alloc(a, sizeof(char *) * (size_t)(nf + 1));
    for (int f = 0; f < nf; f++)
        if (u->used[f] && is_array(u->st->fields.items[f])) {
            u->base[f] = emit_unique(a, &es->names, arena_printf(a, "%s_b", es->data[f]));
            u->kbase[f] = emit_unique(a, &es->names, arena_printf(a, "%s_k", es->data[f]));
        }
    u->nsets = stride_sets(u->st, u->used, u->set, u->set_first);
    for (int x = 0; x < u->nsets; x++) {
        u->set_i[x] = emit_unique(a, &es->names, arena_printf(a, "gt_s%di", x));
        u->set_j[x] = emit_unique(a, &es->names, arena_printf(a, "gt_s%dj", x));
        u->set_k[x] = emit_unique(a, &es->names, arena_printf(a, "gt_s%dk", x));
    }
    u->unit_used = arena_alloc(a, sizeof(bool) * (size_t)(nf + 1));
    u->index32 = emit_unique(a, &es->names, "index32");
    u->shared = emit_unique(a, &es->names, "shared_strides");
    bool zero = false, out = false;
    for (int f = 0; f < es->nfield_params; f++) {
        const IrField *fd = u->st->fields.items[f];
        zero |= u->used[f] && read_at_zero_only(fd);
        out |= fd->is_written;
    }
    u->in_place = zero && out ? emit_unique(a, &es->names, "in_place") : NULL;
}

static void cuda_function(Cuda *u)
{
    Out *o = u->o;
    EmitStencil *es = u->es;
    const IrStencil *st = u->st;
    bool all[NAXES] = {true, true, true};
    emit_function_open(o, es, all);
    emit_line(o, "(void)%s; (void)%s; (void)%s;", es->ni, es->nj, es->nk);
    emit_field_origins(o, es, u->used, cuda_strides, u);
    emit_scalar_accumulators(o, es);
    bool gotos = emit_full_storages(o, es);
    if (u->naccs) {   /* the out scalars' device block (accumulators) */
        emit_line(o, "gt_storage *gt_accs = NULL;");
        gotos = true;
    }
    const char *kflag = NULL, *krec = NULL;
    if (emit_kcheck_any(st)) {
        kflag = emit_unique(u->c->arena, &es->names, "gt_kcheck");
        emit_line(o, "gt_storage *%s = NULL;", kflag);
        if (emit_kguard_any(es)) {
            krec = emit_unique(u->c->arena, &es->names, "gt_krecord");
            emit_line(o, "gt_storage *%s = NULL;", krec);
            emit_line(o, "gt__kept *gt_kept = NULL;");
        }
        gotos = true;
    }
    /* C++: no goto may skip an initialized declaration still in scope at done */
    emit_open(o, "{");
    if (kflag)
        emit_kcheck_device(o, es, kflag, krec);
    emit_full_temporaries(o, es, "gt__device_temporary", u->si, u->sj, u->sk);
    accumulators(u);
    kernel_variant(u);
    u->nunits = 0;
    for_each_unit(u, launch_unit, true);
    emit_line(o, "%s = gt__device_wait(\"stencil '%s'\");", es->rc, st->name);
    emit_kguard_device_report(o, es);
    accumulator_results(u);
    emit_close(o);
    if (gotos)
        emit_done_label(o);
    emit_kguard_done(o, es);
    emit_full_releases(o, es);
    if (u->naccs)
        emit_line(o, "gt_release(gt_accs);");
    if (kflag)
        emit_line(o, "gt_release(%s);", kflag);
    if (krec)
        emit_line(o, "gt_release(%s);", krec);
    emit_line(o, "return %s;", es->rc);
    emit_close(o);
}

static void cuda_preamble(Compiler *c, Out *o)
{
    (void)c;
    emit_blank(o);
    emit_line(o, "/* CUDA under nvcc; the SIMT emulator of the tests with -DGT_SIMT. */");
    emit_line(o, "#include <gt/gt_cuda.h>");
}

static void cuda_stencil(Compiler *c, Out *o, EmitStencil *es)
{
    Arena *a = c->arena;
    Cuda *u = arena_alloc(a, sizeof *u);
    u->c = c;
    u->o = o;
    u->es = es;
    u->st = es->st;
    es->bind = "gt__bind_device";
    es->device = true;
    int nf = u->st->fields.len, ns = u->st->scalars.len;
    u->used = emit_fields_used(es);
    u->si = arena_alloc(a, sizeof(char *) * (size_t)(nf + 1));
    u->sj = arena_alloc(a, sizeof(char *) * (size_t)(nf + 1));
    u->sk = arena_alloc(a, sizeof(char *) * (size_t)(nf + 1));
    for (int f = 0; f < nf; f++) {
        if (!is_array(u->st->fields.items[f]))
            continue;
        u->si[f] = emit_unique(a, &es->names, arena_printf(a, "%si", es->stride[f]));
        u->sj[f] = emit_unique(a, &es->names, arena_printf(a, "%sj", es->stride[f]));
        u->sk[f] = emit_unique(a, &es->names, arena_printf(a, "%sk", es->stride[f]));
    }
    name_arrays(u);
    u->acc_d = arena_alloc(a, sizeof(char *) * (size_t)(ns + 1));
    for (int s = 0; s < ns; s++)
        if (u->st->scalars.items[s]->is_output) {
            u->acc_d[s] = emit_unique(a, &es->names, arena_printf(a, "%s_d", es->scalar[s]));
            u->naccs++;
        }
    u->tile = arena_alloc(a, sizeof(char *) * (size_t)(nf + 1));
    u->tile_i0 = arena_alloc(a, sizeof(char *) * (size_t)(nf + 1));
    u->tile_j0 = arena_alloc(a, sizeof(char *) * (size_t)(nf + 1));
    u->tile_w = arena_alloc(a, sizeof(int) * (size_t)(nf + 1));
    u->tile_h = arena_alloc(a, sizeof(int) * (size_t)(nf + 1));
    for (int f = 0; f < nf; f++) {
        const IrField *fd = u->st->fields.items[f];
        if (fd->kind != IR_TEMP || fd->temp_class != IR_TEMP_TILE)
            continue;
        int64_t w, h;
        plan_tile_bytes(&cuda_plan, fd, &w, &h);
        u->tile_w[f] = (int)w;
        u->tile_h[f] = (int)h;
        u->tile[f] = emit_unique(a, &es->names, arena_printf(a, "tile_%s", es->field[f]));
        u->tile_i0[f] = emit_unique(a, &es->names, arena_printf(a, "%s_i0", u->tile[f]));
        u->tile_j0[f] = emit_unique(a, &es->names, arena_printf(a, "%s_j0", u->tile[f]));
    }
    u->stage = arena_alloc(a, sizeof *u->stage * (size_t)(nf + 1));
    u->stage_name = arena_alloc(a, sizeof(char *) * (size_t)(nf + 1));
    u->stage_i0 = arena_alloc(a, sizeof(char *) * (size_t)(nf + 1));
    u->stage_j0 = arena_alloc(a, sizeof(char *) * (size_t)(nf + 1));
    u->own_reg = arena_alloc(a, sizeof(char *) * (size_t)(nf + 1));
    for (int f = 0; f <= nf; f++) {
        u->stage[f] = NULL;
        u->stage_name[f] = u->stage_i0[f] = u->stage_j0[f] = u->own_reg[f] = NULL;
    }
    u->kk = emit_unique(a, &es->names, "kk");
    emit_point_init(&u->point, es, u->kk);
    u->safe = true;
    u->point.access = cuda_access;
    u->point.user = u;
    /* the kernels, then the host function that launches them */
    u->nunits = 0;
    for_each_unit(u, write_unit, false);
    emit_kcheck_kernels(o, es);
    cuda_function(u);
}

/* ============================================================== the plan */

/* The temporaries where the kernels keep them. */
static void dump_temps(FILE *out, const IrStencil *st)
{
    static const char *const where[] = {
        [IR_TEMP_FULL] = "global (a device array over the domain, from the pool)",
        [IR_TEMP_SCALAR] = "registers",
        [IR_TEMP_TILE] = "shared memory",
        [IR_TEMP_RECOMPUTE] = "registers (recomputed where read)",
    };
    for (int f = 0; f < st->fields.len; f++) {
        const IrField *fd = st->fields.items[f];
        if (fd->kind != IR_TEMP)
            continue;
        fprintf(out, "    temp %s: %s", fd->name, where[fd->temp_class]);
        if (fd->temp_class == IR_TEMP_TILE) {
            int64_t w, h, bytes = plan_tile_bytes(&cuda_plan, fd, &w, &h);
            fprintf(out, ", %" PRId64 " x %" PRId64 " (%" PRId64 " bytes)", w, h, bytes);
        }
        fprintf(out, "\n");
    }
}

static void dump_unit(Cuda *u, UnitKind kind, const IrComputation *comp, const IrInterval *iv,
                      const IrKernel *k)
{
    FILE *out = u->dump;
    char lo[32], hi[32];
    fprintf(out, "    launch gt_k%d_%s / gt_s%d_%s: ", u->nunits, u->st->name, u->nunits,
            u->st->name);
    u->nunits++;
    bool reduce = false;
    if (kind == UNIT_COLUMNS) {
        fprintf(out, "computation %s, a thread per column, every level in order",
                iter_order_names[comp->order]);
        for (int ii = 0; ii < comp->intervals.len; ii++)
            for (int kk = 0; kk < comp->intervals.items[ii]->kernels.len; kk++)
                reduce = reduce || comp->intervals.items[ii]->kernels.items[kk].reduce;
    } else if (kind == UNIT_GROUP) {
        fprintf(out, "group %d:", k->group);
        bool *sync = calloc((size_t)u->unit_kernels + 1, sizeof *sync);
        if (!sync)
            gtcc_die("out of memory");
        for (int m = 0; m < u->unit_kernels; m++) {
            fprintf(out, " kernel [%d", k[m].first);
            if (k[m].count > 1)
                fprintf(out, "-%d", k[m].first + k[m].count - 1);
            fputc(']', out);
            reduce = reduce || k[m].reduce;
        }
        group_syncs(u->st, iv, k, u->unit_kernels, k->ntiles > 0, sync);
        fprintf(out, " of interval(%s, %s), blocks over the domain, levels looped per block",
                level_text(lo, iv->lo), level_text(hi, iv->hi));
        if (k->ntiles > 0)
            fprintf(out, ", tiles in %" PRId64 " bytes of shared memory", k->tile_bytes);
        for (int x = 0; x < k->nstages; x++) {
            const IrStage *sg = &k->stages[x];
            fprintf(out, "%s %s (%" PRId64 " x %" PRId64 ", %" PRId64 " bytes)",
                    x ? "," : ", staged per level in shared memory, loaded a level ahead:",
                    u->st->fields.items[sg->field]->name, sg->w, sg->h, sg->bytes);
        }
        StageReg regs[CUDA_STAGE_REGS];
        int nregs = stage_regs(u, iv, k, u->unit_kernels, regs);
        for (int r = 0; r < nregs; r++) {
            fprintf(out, "%s %s[i",
                    r ? "," : ", held in registers at the thread's point each level:",
                    u->st->fields.items[regs[r].field]->name);
            if (regs[r].off[0])
                fprintf(out, "%+" PRId64, regs[r].off[0]);
            fprintf(out, ",j");
            if (regs[r].off[1])
                fprintf(out, "%+" PRId64, regs[r].off[1]);
            fputc(']', out);
        }
        const char *sep = "; syncs: after kernel";
        bool any = k->nstages > 0;
        if (any) {
            fprintf(out, "; syncs: after the stages' stores");
            sep = ", after kernel";
        }
        for (int m = 0; m < u->unit_kernels; m++)
            if (sync[m]) {
                fprintf(out, "%s [%d]", sep, k[m].first);
                sep = ",";
                any = true;
            }
        free(sync);
        if (any) {
            fprintf(out, "%s\n", reduce ? ", and the block reduction's" : "");
            return;
        }
    } else {
        fprintf(out, "kernel [%d", k->first);
        if (k->count > 1)
            fprintf(out, "-%d", k->first + k->count - 1);
        unsigned axes = k->axes;
        fprintf(out, "] of interval(%s, %s), %s", level_text(lo, iv->lo), level_text(hi, iv->hi),
                kind == UNIT_LEVEL ? "one launch per level"
                : axes & AXES_K    ? "levels looped per thread"
                                   : "once");
        reduce = k->reduce != NULL;
    }
    fprintf(out, "; syncs: %s\n",
            reduce ? "the block reduction's (warp shuffles, then the warps' results in shared "
                     "memory)" : "none");
}

static void cuda_dump_plan(FILE *out, const IrStencil *st)
{
    fprintf(out, "  gpu plan: blocks of %d x %d threads, one stream\n", CUDA_BLOCK_I,
            CUDA_BLOCK_J);
    fprintf(out, "    indices: from each block's base pointers; 32-bit where every buffer and "
                 "the domain hold fewer than 2^29 elements, else 64-bit\n");
    size_t n = (size_t)st->fields.len + 1;
    bool *used = calloc(n, sizeof *used);
    int *set = calloc(2 * n, sizeof *set);
    if (!used || !set)
        gtcc_die("out of memory");
    plan_fields_used(st, used);
    int nsets = stride_sets(st, used, set, set + n);
    fprintf(out, "    stride sets (shared where the storages agree):");
    for (int x = 0; x < nsets; x++) {
        const char *sep = " {";
        for (int f = 0; f < st->fields.len; f++)
            if (used[f] && is_array(st->fields.items[f]) && set[f] == x) {
                fprintf(out, "%s%s", sep, st->fields.items[f]->name);
                sep = ", ";
            }
        fputc('}', out);
    }
    fprintf(out, "%s\n", nsets ? "" : " none");
    free(used);
    free(set);
    dump_temps(out, st);
    Cuda u = {.st = st, .dump = out};
    for_each_unit(&u, dump_unit, false);
}

const Backend backend_cuda = {
    .name = "cuda",
    .suffix = ".cu",
    .cxx = true,
    .plan = &cuda_plan,
    .preamble = cuda_preamble,
    .stencil = cuda_stencil,
    .fallback = &backend_naive,
    .dump_plan = cuda_dump_plan,
    .device = true,
    .steps_plan = "loop of single steps on the device",
};
