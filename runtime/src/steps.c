/* steps.c: S_steps of a stencil with iterate (language.md section 11) as a loop of single
 * steps (gt__steps), the executable definition that every backend without its own schedule
 * calls.
 *
 * iterate(next -> cur): one step writes next from cur; S_steps leaves its result in cur.
 * Before anything is written, S_steps checks nsteps, runs the single call's checks (the
 * stencil called with gt__check_only on: it returns after them) for the order of the first
 * step and, when there are two steps or more, for the swapped order too (each storage of a
 * pair then plays both roles), refuses pairs whose storages share memory, and for an odd
 * count storages between which the result's copy (below) cannot be made. Then:
 *
 *   nsteps 0       nothing;
 *   empty domain   as for 2 or 3 steps (by the count's parity): they compute nothing;
 *   otherwise      each pair's frame (the domain grown by the larger of its two fields'
 *                  halos, less the domain: the points a step reads of either field but does
 *                  not compute) copied from cur into next, then the steps, the first writing
 *                  next, and for an odd count the domain of next (which the last step wrote)
 *                  copied into cur.
 *
 * Step s then reads what n single calls with swaps would read (the caller's storages
 * agreeing on the frame, as the language says), so the result is bitwise theirs: next's
 * domain too holds the caller's values until a step writes it, as for single calls, which a
 * step reads where it reads next before writing it (un[k+1] in a forward sweep) and keeps
 * where it writes next under a mask (starting an odd count with the roles swapped, the last
 * step writing cur, would give such a step cur's values there). Copies run
 * where the step binds its storages: on the host, or on the device for the cuda backend (no
 * host round trip between steps: the storages stay device-side). */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* Device memory to device memory: the layer's copy, or through the host where it has
   none. */
static _Thread_local const gt__device_ops *within_ops;   /* for within, per thread */

static int within(void *dst, const void *src, size_t nbytes)
{
    return gt__device_within(within_ops, dst, src, nbytes);
}

/* Copies the box of positions [lo, lo + ext) (per axis I, J, K, relative to the compute
   domain's origin, the first interior point of each storage) of src into dst, both storages
   of one field (its axes, its dtype). On the host, or on the device (device 1; storages whose
   layouts would transpose the box are copied on the host). With check set it copies nothing
   and only says whether it would refuse the copy (a refusal before any step writes). */
static int copy_box(const char *what, gt_storage *dst, const gt_storage *src,
                    const int64_t lo[3], const int64_t ext[3], int device, int check)
{
    int nd = dst->ndim;
    int64_t extent[3], ds[3], ss[3], doff = 0, soff = 0;
    for (int d = 0; d < nd; d++) {
        int a = dst->axes[d] - 'I', e = gt__axis_pos(src, dst->axes[d]);
        if (ext[a] <= 0)
            return 0;
        extent[d] = ext[a];
        ds[d] = dst->strides[d];
        ss[d] = src->strides[e];
        doff += (dst->halo[d][0] + lo[a]) * ds[d];
        soff += (src->halo[e][0] + lo[a]) * ss[d];
    }
    int64_t es = (int64_t)gt_dtype_size(dst->dtype);
    if (device && !gt__box_transposes(ds, ss, extent, nd)) {
        if (check)
            return 0;
        int rc = src->buf->device_only ? 0 : gt__sync_device(what, src, GT_READ);
        if (!rc && !dst->buf->device_only)
            rc = gt__sync_device(what, dst, GT_READWRITE);
        if (rc)
            return rc;
        within_ops = dst->buf->ops ? dst->buf->ops : gt__device_ops_get();
        unsigned char *to = gt__device_raw(dst);
        const unsigned char *from = gt__device_raw(src);
        int err = to && from ? gt__copy_box_runs(within, to + doff * es, ds, from + soff * es,
                                                 ss, extent, nd, (size_t)es)
                             : 0;
        if (err)
            return gt__error(GT_EDEVICE, "%s: copying the frame on the device failed (%s: %s)",
                             what, within_ops->name, gt__device_why(within_ops, err));
        return 0;
    }
    if (dst->buf->device_only || src->buf->device_only)
        return gt__error(GT_EINVAL, "%s: the two storages of a pair have layouts %s and %s; "
                         "device-only storages are copied only between one layout: give both "
                         "storages of the pair one layout (their strides in the same order)",
                         what, dst->layout, src->layout);
    if (check)
        return 0;
    int rc = gt__sync_host(what, src, GT_READ);
    if (!rc)
        rc = gt__sync_host(what, dst, GT_READWRITE);
    if (rc)
        return rc;
    gt__copy_box((unsigned char *)gt__host_raw(dst) + doff * es, ds,
                 (const unsigned char *)gt__host_raw(src) + soff * es, ss, extent, nd,
                 (size_t)es);
    return 0;
}

/* The points storage s has beyond a domain of n points along its dimension d, below
   (side 0: its lower halo, the domain starting at the interior's first point) or above
   (side 1: the rest of the interior, then the upper halo). */
static int64_t room(const gt_storage *s, int d, int side, int64_t n)
{
    return side ? s->shape[d] - s->halo[d][0] - n : s->halo[d][0];
}

int gt__steps_copy_frame(const char *what, gt_storage *dst, const gt_storage *src,
                         const char *axes, const int64_t size[3], const int64_t w[3][2],
                         const int copy[3][2], int device, int check)
{
    int64_t halo[3][2], lo[3], ext[3];
    for (int a = 0; a < 3; a++) {
        int has = strchr(axes, 'I' + a) != NULL;
        for (int side = 0; side < 2; side++) {
            int64_t h = w[a][side];
            int dd = gt__axis_pos(dst, (char)('I' + a)), sd = gt__axis_pos(src, (char)('I' + a));
            int64_t rd = has && dd >= 0 ? room(dst, dd, side, size[a]) : h;
            int64_t rs = has && sd >= 0 ? room(src, sd, side, size[a]) : h;
            if (rd < h)
                h = rd;
            if (rs < h)
                h = rs;
            halo[a][side] = h;
        }
        lo[a] = has ? -halo[a][0] : 0;
        ext[a] = has ? size[a] + halo[a][0] + halo[a][1] : 1;
    }
    for (int a = 0; a < 3; a++) {
        if (!strchr(axes, 'I' + a))
            continue;
        for (int side = 0; side < 2; side++) {
            int64_t h = halo[a][side];
            if (!copy[a][side] || h == 0)
                continue;
            int64_t slo[3], sext[3];
            memcpy(slo, lo, sizeof slo);
            memcpy(sext, ext, sizeof sext);
            slo[a] = side ? size[a] : -h;
            sext[a] = h;
            int rc = copy_box(what, dst, src, slo, sext, device, check);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* The frame of pair q (the domain size grown by the larger of its two fields' halos, less
   the domain: the points a step reads of either field but does not compute) copied from src
   (cur) into dst (next); never beyond either storage (the single call's checks in both
   orders, for two steps or more, make both hold all of it; one step checks each storage in
   its own role only). Above the domain the frame may lie in the interior (a domain smaller
   than the interior): those points are frame as much as the halo's. */
static int copy_frame(const char *what, gt_storage *dst, const gt_storage *src,
                      const gt_stencil_info *info, const gt_iterate_pair *q,
                      const int64_t size[3], int device, int check)
{
    const gt_field_info *cur = &info->fields[q->cur], *next = &info->fields[q->next];
    int64_t w[3][2];
    static const int every[3][2] = {{1, 1}, {1, 1}, {1, 1}};
    for (int a = 0; a < 3; a++)
        for (int side = 0; side < 2; side++)
            w[a][side] = cur->halo[a][side] > next->halo[a][side] ? cur->halo[a][side]
                                                                   : next->halo[a][side];
    char pw[400];
    snprintf(pw, sizeof pw, "%s: pair %s -> %s", what, next->name, cur->name);
    return gt__steps_copy_frame(pw, dst, src, cur->axes, size, w, every, device, check);
}

int gt__steps_copy_result(const char *what, gt_storage *cur, const gt_storage *next,
                          const char *axes, const int64_t size[3], int device, int check)
{
    int64_t lo[3] = {0, 0, 0}, ext[3];
    for (int a = 0; a < 3; a++)
        ext[a] = strchr(axes, 'I' + a) ? size[a] : 1;
    return copy_box(what, cur, next, lo, ext, device, check);
}

/* The single call's checks on fields: the stencil called with nothing computed. */
static int check_call(gt__step_fn *step, void *args, gt_storage *const *fields,
                      const gt_domain *domain)
{
    gt__check_only(1);
    int rc = step(args, fields, domain);
    gt__check_only(0);
    return rc;
}

int gt__steps_swapped_error(const gt_stencil_info *info, int rc)
{
    if (!rc)
        return 0;
    char msg[1024], pairs[512] = "";
    snprintf(msg, sizeof msg, "%s", gt_last_error());
    size_t used = 0;
    for (int p = 0; p < info->npairs && used < sizeof pairs; p++) {
        const char *cur = info->fields[info->pairs[p].cur].name;
        const char *next = info->fields[info->pairs[p].next].name;
        int n = snprintf(pairs + used, sizeof pairs - used, "%s'%s' there is the storage given "
                         "as '%s'", p == 0 ? "" : ", ", cur, next);
        used += n > 0 ? (size_t)n : 0;
    }
    return gt__error(rc, "%s (the steps after the first swap the storages of iterate's "
                     "pairs: %s, and the other way round; with two steps or more each storage "
                     "of a pair plays both roles)", msg, pairs);
}

static void swap_pairs(const gt_stencil_info *info, gt_storage **f)
{
    for (int p = 0; p < info->npairs; p++) {
        gt_storage *t = f[info->pairs[p].next];
        f[info->pairs[p].next] = f[info->pairs[p].cur];
        f[info->pairs[p].cur] = t;
    }
}

/* ---- time tiling (gt__steps_tiled, docs/internals.md "Time tiling") ---------------------
 *
 * The rows [0, nj) of the domain are cut into tiles [lo[k], lo[k+1]) of w rows or more;
 * r is the largest reach along J of any field. The steps run in chunks of at most depth
 * steps s0 + 1 .. s0 + T, each in two phases, each phase parallel over its parts:
 *
 *   phase 1, tile k:  step s0 + t on rows [lo[k] + r t, lo[k+1] - r t), t = 1 .. T, not
 *                     shrinking at the domain's edges (the boundary conditions, or the
 *                     frame, give what lies beyond them);
 *   phase 2, gap g:   step s0 + t on rows [b - r t, b + r t), b = lo[g + 1], t = 1 .. T.
 *
 * Step t of a tile reads rows [lo + r (t - 1), hi - r (t - 1)), which its step t - 1 wrote
 * (all of them written by the chunk before when t = 1): a tile reads and writes its own rows
 * only. Step t of a gap reads rows [b - r (t + 1), b + r (t + 1)) of step t - 1: the gap's
 * own (step t - 1) and the tiles' (step t - 1 of phase 1, which wrote step t + 1, the same
 * buffer, only on rows [.., b - r (t + 1)) and [b + r (t + 1), ..)). Gaps write within r T
 * of b and read within r (T + 1): with w >= r (2 T + 1) no gap reads what another writes.
 * Phase 2 computes what phase 1 left, so every point of every step is computed once, by
 * the step function from what the loop of single steps gives it: bitwise gt__steps.
 *
 * Periodic along J (a ring): the rows wrap, so the first tile shrinks at its lower side too
 * and a last gap lies at b = nj (= 0), run as two parts, [nj - r t, nj) and [0, r t). A part
 * is placed with wrap_here along each periodic axis: its reads beyond the domain's edges
 * wrap within the domain (gt_periodic_at against the global [lo, hi)), as a single call's do,
 * since the storages hold all of it. Periodic along I only: the parts span I, nothing else
 * changes.
 *
 * Columns (GT_STEPS_TILE's COLUMNS): I is cut too; a part is a tile or a gap along each axis,
 * phase 1 tile x tile, phase 2 gap x tile and tile x gap, phase 3 gap x gap (two parts of
 * phase 2 meet only where one reads step t - 1 and the other writes step t: different
 * buffers). Levels (tiles_time 2: every level computed alike): a part runs its levels as a
 * wavefront, wave m computing step t on levels [m kh - (t - 1) rk, (m + 1) kh - (t - 1) rk)
 * for t = 1 .. T, each a placed call with part_k/size_k (docs/internals.md). */

typedef struct {
    const gt_stencil_info *info;
    gt_storage *const *held;    /* the caller's storages (both of each pair) */
    gt_storage **order[2];      /* the fields of even and odd steps */
    gt__step_fn *step;
    void *args;
    int64_t size[3];
    int64_t depth;
    /* per axis I, J: the reach, whether the axis is cut (J always; I where a tile of whole
       rows is too wide for the cache), the tiles [lo[a][k], lo[a][k + 1]), k < nt[a], and
       the gaps between them (the ring's included) */
    int64_t r[2], nt[2], ngaps[2];
    int cut[2];
    int wrap[2];                /* a field periodic along I, J */
    int ring[2];                /* ... and the axis cut: its tiles are a ring */
    int64_t *lo[2];
    /* the levels as a wavefront (kh > 0): step t of wave m runs levels [m kh - (t - 1) rk,
       (m + 1) kh - (t - 1) rk) of the part's rows, waves m = 0 .. nwaves - 1 in order */
    int64_t kh, rk;
    int64_t s0, t;              /* the chunk: steps s0 .. s0 + t - 1 (from 0) */
    int phase;                  /* 1 tiles, 2 a gap along one axis, 3 gaps along both */
    _Atomic int rc;             /* the first failing call's code */
    char why[1024];             /* its message (set on the thread that failed) */
} Tiling;

static int tile_reads(gt__placement *p, const gt_stencil_info *info, int f, const gt_storage *s,
                      int a, int side, int64_t r)
{
    (void)p, (void)info, (void)f, (void)s, (void)a, (void)side, (void)r;
    return 0;   /* the storages hold every row beyond a part */
}

static int tile_holds(const gt__placement *p, const gt_storage *s)
{
    const Tiling *tl = p->ctx;
    for (int f = 0; f < tl->info->nfields; f++)
        if (tl->held[f] == s)
            return 1;
    return 0;
}

/* the stencils tiled have no out scalar and no run-time K levels (compiler/emit_openmp.c):
   the hooks for those are never called */
static void tile_result(gt__placement *p, int slot, int op, gt_dtype dtype, void *result)
{
    (void)p, (void)slot, (void)op, (void)dtype, (void)result;
}

static int tile_keep(gt__placement *p, const gt_stencil_info *info, gt_storage *const *fields,
                     const int64_t size[3], int checking)
{
    (void)p, (void)info, (void)fields, (void)size, (void)checking;
    return 0;
}

static void tile_keep_result(gt__placement *p, int checking, const void *result, size_t bytes)
{
    (void)p, (void)checking, (void)result, (void)bytes;
}

static void tile_levels(gt__placement *p, int after)
{
    (void)p, (void)after;
}

static void tile_scalars(gt__placement *p, const gt__scalar *scalars, int n)
{
    (void)p, (void)scalars, (void)n;   /* one process: its scalars are the call's */
}

static const gt__layer tile_layer = {"S_steps", "S_steps' tiles", tile_reads, tile_holds,
                                     tile_result, tile_keep, tile_keep_result, tile_levels,
                                     tile_scalars};

/* Step s (from 0) on the box b: [b[0][0], b[0][1]) x [b[1][0], b[1][1]) x [b[2][0], b[2][1])
   (along I, J, K). */
static void tile_call(Tiling *tl, const int64_t b[3][2], int64_t s)
{
    if (b[0][0] >= b[0][1] || b[1][0] >= b[1][1] || b[2][0] >= b[2][1] ||
        atomic_load_explicit(&tl->rc, memory_order_relaxed))
        return;
    gt__placement p;
    memset(&p, 0, sizeof p);
    for (int a = 0; a < 2; a++) {
        p.origin[a] = p.part[a] = b[a][0];
        p.global[a] = tl->size[a];
        p.size[a] = b[a][1] - b[a][0];
        p.inner[a][0] = b[a][0] > 0;
        p.inner[a][1] = b[a][1] < tl->size[a];
        p.wrap[a] = p.wrap_here[a] = tl->wrap[a];
    }
    p.in_part = 1;
    if (tl->kh)
        p.part_k = b[2][0], p.size_k = b[2][1] - b[2][0];
    if (tl->cut[0])
        snprintf(p.who, sizeof p.who, "box from %lld,%lld", (long long)b[0][0],
                 (long long)b[1][0]);
    else
        snprintf(p.who, sizeof p.who, "rows from %lld", (long long)b[1][0]);
    p.layer = &tile_layer;
    p.ctx = tl;
    gt_domain d = {{p.size[0], p.size[1], b[2][1] - b[2][0]}};
    gt__placement_set(&p);
    int rc = tl->step(tl->args, tl->order[s & 1], &d);
    gt__placement_set(NULL);
    int none = 0;
    if (rc && atomic_compare_exchange_strong(&tl->rc, &none, rc))
        snprintf(tl->why, sizeof tl->why, "%s", gt_last_error());
}

/* The ranges along axis a at step t of the chunk: of tile x (gap 0) or of the gap after tile
   x (gap 1). Returns how many ranges (a gap across the ring's seam is two). */
static int tile_ranges(const Tiling *tl, int a, int64_t x, int gap, int64_t t, int64_t out[2][2])
{
    int64_t rt = tl->r[a] * t, n = tl->size[a], b = tl->lo[a][x + 1];
    if (!gap) {
        int ring = tl->ring[a];
        out[0][0] = tl->lo[a][x] + (x > 0 || ring ? rt : 0);
        out[0][1] = b - (x < tl->nt[a] - 1 || ring ? rt : 0);
        return 1;
    }
    if (b < n) {
        out[0][0] = b - rt, out[0][1] = b + rt;
        return 1;
    }
    out[0][0] = n - rt, out[0][1] = n;   /* the ring's gap at n = 0 */
    out[1][0] = 0, out[1][1] = rt;
    return 2;
}

/* Part x of the phase: its steps 1 .. t of the chunk. Phase 1 runs the tiles (tile along I
   and J), phase 2 the gaps along one axis (a gap along I and a tile along J, then a tile
   along I and a gap along J), phase 3 the gaps along both. */
static void tile_body(void *ctx, int64_t x)
{
    Tiling *tl = ctx;
    int64_t xi, xj;
    int gi, gj;
    if (tl->phase == 1)
        xi = x % tl->nt[0], xj = x / tl->nt[0], gi = gj = 0;
    else if (tl->phase == 3)
        xi = x % tl->ngaps[0], xj = x / tl->ngaps[0], gi = gj = 1;
    else if (x < tl->ngaps[0] * tl->nt[1])
        xi = x % tl->ngaps[0], xj = x / tl->ngaps[0], gi = 1, gj = 0;
    else {
        x -= tl->ngaps[0] * tl->nt[1];
        xi = x % tl->nt[0], xj = x / tl->nt[0], gi = 0, gj = 1;
    }
    int64_t nk = tl->size[2], waves = 1;
    if (tl->kh)   /* until the last step's levels reach nk */
        waves = (nk + (tl->t - 1) * tl->rk + tl->kh - 1) / tl->kh;
    for (int64_t m = 0; m < waves; m++)
        for (int64_t t = 1; t <= tl->t; t++) {
            int64_t ri[2][2], rj[2][2], k0 = 0, k1 = nk;
            if (tl->kh) {
                k0 = m * tl->kh - (t - 1) * tl->rk;
                k1 = k0 + tl->kh;
                k0 = k0 < 0 ? 0 : k0;
                k1 = k1 > nk ? nk : k1;
            }
            int ni = tile_ranges(tl, 0, xi, gi, t, ri), nj = tile_ranges(tl, 1, xj, gj, t, rj);
            for (int u = 0; u < nj; u++)
                for (int v = 0; v < ni; v++) {
                    const int64_t box[3][2] = {{ri[v][0], ri[v][1]}, {rj[u][0], rj[u][1]},
                                               {k0, k1}};
                    tile_call(tl, box, tl->s0 + t - 1);
                }
        }
}

/* Parses GT_STEPS_TILE: 0 unset or empty, 1 set (w[] and *depth), 2 "0" (never tile), or a
   GT_E... code (malformed). */
static int tile_env(const gt_stencil_info *info, int64_t w[3], int64_t *depth)
{
    const char *env = getenv("GT_STEPS_TILE");
    if (!env || !*env)
        return 0;
    char *end;
    long long v[4] = {0, 0, 0, 0};
    int n = 0, bad = 0;
    const char *q = env;
    for (;;) {   /* ROWS,STEPS[,LEVELS[,COLUMNS]]: digits only (strtoll would take " 4",
                    "+4" and saturate 99999999999999999999) */
        errno = 0;
        v[n++] = strtoll(q, &end, 10);
        if (end == q || *q < '0' || *q > '9' || errno == ERANGE ||
            v[n - 1] < (n == 2 ? 1 : 0)) {
            bad = 1;
            break;
        }
        if (*end != ',' || n == 4)
            break;
        q = end + 1;
    }
    if (!bad && n == 1 && v[0] == 0 && *end == '\0')
        return 2;
    if (bad || *end != '\0' || n < 2 || v[0] < 1)
        return gt__error(GT_EINVAL, "stencil '%s': steps: GT_STEPS_TILE is '%s'; it must be "
                         "ROWS,STEPS[,LEVELS[,COLUMNS]] (ROWS and STEPS positive, LEVELS and "
                         "COLUMNS 0 for all) or 0", info->name, env);
    w[1] = v[0], *depth = v[1], w[2] = v[2], w[0] = v[3];
    return 1;
}

/* Whether to tile, and how: w[1] rows, w[0] columns (0: whole rows) and levels w[2] a wave
   (0: all levels in each call) of a tile, *depth steps a chunk (1), the loop of single steps
   (0), or a GT_E... code (a malformed GT_STEPS_TILE). */
static int tile_plan(const gt_stencil_info *info, const int64_t size[3], int64_t nsteps,
                     int nthreads, int64_t r[3], int64_t w[3], int64_t *depth_out,
                     int wrap[2])
{
    int64_t rowbytes = 0, levelbytes = 0;
    r[0] = r[1] = r[2] = 0;
    wrap[0] = wrap[1] = 0;
    int out_i = 1;   /* every output along I: I may be cut */
    for (int f = 0; f < info->nfields; f++) {
        const gt_field_info *fi = &info->fields[f];
        int has_i = strchr(fi->axes, 'I') != NULL, has_j = strchr(fi->axes, 'J') != NULL;
        for (int a = 0; a < 2; a++)
            if (fi->bc[a] == 1 + GT_BC_PERIODIC && strchr(fi->axes, 'I' + a)) {
                if (size[a] >= (int64_t)1 << 29)
                    return 0;   /* beyond the bounds gt__place keeps exact */
                wrap[a] = 1;
            }
        if (fi->is_output && !has_j)
            return 0;   /* every part would write all of it */
        if (fi->is_output && !has_i)
            out_i = 0;
        for (int a = 0; a < 3; a++)
            if (strchr(fi->axes, 'I' + a))
                for (int side = 0; side < 2; side++)
                    if (fi->reach[a][side] > r[a])
                        r[a] = fi->reach[a][side];
        if (!has_j)
            continue;
        int64_t b = (int64_t)gt_dtype_size(fi->dtype) * (has_i ? size[0] : 1);
        if (strchr(fi->axes, 'K'))
            levelbytes += b, b *= size[2];
        rowbytes += b;
    }
    if (nsteps < 2 || size[0] < 1 || size[1] < 1 || size[2] < 1)
        return 0;
    int64_t depth = 0;
    w[0] = w[2] = 0;
    int forced = tile_env(info, w, &depth);
    if (forced < 0 || forced == 2)
        return forced < 0 ? forced : 0;
    if (w[0] > 0 && !out_i)
        w[0] = 0;   /* an output without I: whole rows */
    if (info->tiles_time != 2)
        w[2] = 0;   /* levels not alike: all of them in each call */
    if (!forced) {
        int64_t l2, l3;
        gt__cache_sizes(&l2, &l3);
        int64_t share = l2 + l3 / (nthreads > 0 ? nthreads : 1);
        /* a tile's rows of every field in a quarter of the share (the rest for the gaps'
           rows and what streams past), 16 steps deep at most (bench/bench_steps.c: 2-D
           5-point on 8192^2 f32, 2 threads, 1 MB L2 and 32 MB L3: 64 rows and 16 steps
           2.4x the single calls, 136 rows and 8 steps 1.7x) */
        w[1] = rowbytes > 0 ? share / 4 / rowbytes : size[1];
        depth = 16;
        if (w[1] < r[1] * 5 && info->tiles_time == 2 && levelbytes > 0 && size[2] > 8) {
            /* rows too wide for two steps: the levels as a wavefront of 4 levels a wave,
               8 steps deep, the band of every field's levels that a tile keeps live (a
               wave, the levels the steps trail by and read beyond) in a quarter of the
               share (bench/bench_steps.c: 3-D 7-point on 384^3 f32, 2 threads: 96 rows 8
               steps 1.17x the single calls, 48 rows 8 steps 1.08x, 17 rows 0.92x) */
            depth = 8, w[2] = 4;
            w[1] = share / 4 / ((w[2] + (depth + 1) * r[2] + 1) * levelbytes);
        }
        if (w[1] < 1)
            return 0;   /* not one row in the quarter: nothing to gain */
        if (size[1] <= 2 * w[1])
            return 0;   /* the domain is about one tile: nothing to gain */
        /* as many tiles as threads or a multiple: no thread idle at a phase's end */
        int64_t nt = (size[1] + w[1] - 1) / w[1], th = nthreads > 0 ? nthreads : 1;
        nt = (nt + th - 1) / th * th;
        if (nt > size[1])
            nt = size[1];   /* tiles of one row, not of none */
        w[1] = size[1] / nt;
    }
    if (w[0] >= size[0])
        w[0] = 0;
    if (w[1] > size[1])
        w[1] = size[1];
    if (w[2] >= size[2])
        w[2] = 0;
    if (depth > nsteps)
        depth = nsteps;
    for (int a = 1; a >= 0; a--) {
        int64_t n = a ? size[1] : (w[0] ? size[0] : 0);
        if (n && r[a] > 0 && (w[a] < n || wrap[a]) && w[a] < r[a] * (2 * depth + 1))
            depth = (w[a] / r[a] - 1) / 2;   /* gaps apart: see above */
    }
    if (depth < (forced ? 1 : 2))
        return 0;
    *depth_out = depth;
    return 1;
}

/* The steps (the frame copied, first[] the order of the first step) tiled as tile_plan
   says: 0 or the first failing call's code. */
static int run_tiled(const gt_stencil_info *info, gt_storage *const *held,
                     gt_storage **first, int64_t nsteps, const int64_t size[3],
                     gt__step_fn *step, void *args, gt__tiles_fn *tiles, const int64_t r[3],
                     const int64_t w[3], int64_t depth, const int wrap[2])
{
    int nf = info->nfields;
    Tiling tl;
    memset(&tl, 0, sizeof tl);
    for (int a = 0; a < 2; a++) {
        tl.cut[a] = a == 1 || w[0] > 0;
        tl.nt[a] = tl.cut[a] ? size[a] / w[a] : 1;
        tl.r[a] = r[a];
        tl.wrap[a] = wrap[a];
        tl.ring[a] = tl.cut[a] && wrap[a];
        tl.ngaps[a] = r[a] > 0 && tl.cut[a] ? tl.nt[a] - (tl.ring[a] ? 0 : 1) : 0;
        tl.lo[a] = malloc(sizeof *tl.lo[a] * (size_t)(tl.nt[a] + 1));
    }
    gt_storage **odd = malloc(sizeof *odd * (size_t)nf);
    if (!tl.lo[0] || !tl.lo[1] || !odd) {
        free(tl.lo[0]);
        free(tl.lo[1]);
        free(odd);
        return gt__error(GT_ENOMEM, "stencil '%s': steps: no memory", info->name);
    }
    for (int a = 0; a < 2; a++)   /* the rest spread over the tiles: each w[a] or more */
        for (int64_t k = 0; k <= tl.nt[a]; k++)
            tl.lo[a][k] = tl.cut[a] ? k * size[a] / tl.nt[a] : k * size[a];
    memcpy(odd, first, sizeof *odd * (size_t)nf);
    swap_pairs(info, odd);
    tl.info = info;
    tl.held = held;
    tl.order[0] = first;
    tl.order[1] = odd;
    tl.step = step;
    tl.args = args;
    memcpy(tl.size, size, sizeof tl.size);
    tl.depth = depth;
    tl.kh = w[2];
    tl.rk = r[2];
    atomic_init(&tl.rc, 0);
    int64_t parts[4] = {0, tl.nt[0] * tl.nt[1],
                        tl.ngaps[0] * tl.nt[1] + tl.nt[0] * tl.ngaps[1],
                        tl.ngaps[0] * tl.ngaps[1]};
    for (tl.s0 = 0; tl.s0 < nsteps && !atomic_load(&tl.rc); tl.s0 += tl.t) {
        tl.t = nsteps - tl.s0 < depth ? nsteps - tl.s0 : depth;
        for (tl.phase = 1; tl.phase <= 3 && !atomic_load(&tl.rc); tl.phase++)
            if (parts[tl.phase] > 0)
                tiles(parts[tl.phase], tile_body, &tl);
    }
    free(tl.lo[0]);
    free(tl.lo[1]);
    free(odd);
    int rc = atomic_load(&tl.rc);
    return rc ? gt__error(rc, "%s", tl.why) : 0;   /* the message on the calling thread */
}

/* After an odd count the last step has written each pair's next: its domain (of size
   size) copied into cur, the result (with check set, whether the copy would be refused). */
static int copy_result(const char *what, const gt_stencil_info *info,
                       gt_storage *const *fields, const int64_t size[3], int device, int check)
{
    int rc = 0;
    for (int p = 0; p < info->npairs && !rc; p++) {
        const gt_iterate_pair *q = &info->pairs[p];
        char pw[400];
        snprintf(pw, sizeof pw, "%s: pair %s -> %s", what, info->fields[q->next].name,
                 info->fields[q->cur].name);
        rc = gt__steps_copy_result(pw, fields[q->cur], fields[q->next],
                                   info->fields[q->cur].axes, size, device, check);
    }
    return rc;
}

static int run_steps(const gt_stencil_info *info, gt_storage *const *fields, int64_t nsteps,
                     const gt_domain *domain, gt__step_fn *step, void *args, int device,
                     gt__tiles_fn *tiles, int nthreads)
{
    if (!info || !step || info->nfields < 1 || info->npairs < 1 || !info->pairs)
        return gt__error(GT_EINVAL, "gt__steps: invalid stencil info or step function");
    if (nsteps < 0)
        return gt__error(GT_EINVAL, "stencil '%s': steps: nsteps is %lld; it must be >= 0",
                         info->name, (long long)nsteps);
    int nf = info->nfields;
    gt_storage **cur = malloc(sizeof *cur * (size_t)nf);
    if (!cur)
        return gt__error(GT_ENOMEM, "stencil '%s': steps: no memory", info->name);
    memcpy(cur, fields, sizeof *cur * (size_t)nf);
    /* the domain of the first step, which every step gets (a NULL domain would be inferred
       from another storage in the swapped order) */
    int64_t size[3] = {0, 0, 0};
    int rc = check_call(step, args, cur, domain);
    if (!rc)
        rc = gt__compute_domain(info, fields, domain, size);
    gt_domain dom = {{size[0], size[1], size[2]}};
    if (!rc && nsteps >= 2) {
        swap_pairs(info, cur);
        rc = gt__steps_swapped_error(info, check_call(step, args, cur, &dom));
        swap_pairs(info, cur);
    }
    for (int p = 0; p < info->npairs && !rc; p++) {
        const gt_iterate_pair *q = &info->pairs[p];
        if (gt__overlap(fields[q->next], fields[q->cur], device))
            rc = gt__error(GT_EALIAS, "stencil '%s': steps: the storages of '%s' and '%s' "
                           "(pair %s -> %s of iterate) share memory; each step writes the one "
                           "while it reads the other: give the pair two storages", info->name,
                           info->fields[q->next].name, info->fields[q->cur].name,
                           info->fields[q->next].name, info->fields[q->cur].name);
    }
    int64_t r[3] = {0, 0, 0}, w[3] = {0, 1, 0}, depth = 1;
    int wrap[2] = {0, 0};
    if (!rc && tiles) {
        int plan = tile_plan(info, size, nsteps, nthreads, r, w, &depth, wrap);
        if (plan < 0)
            rc = plan;
        else if (plan == 0)
            tiles = NULL;   /* the loop of single steps */
    }
    if (rc || nsteps == 0) {
        free(cur);
        return rc;
    }
    char what[160];
    snprintf(what, sizeof what, "stencil '%s': steps", info->name);
    /* an odd count ends with the result's copy, and the frames' copies come first: each
       refused (if at all) before anything is written (device-only storages of two layouts,
       whose frame a later pair's copy refused, had had an earlier pair's frame written) */
    if (nsteps & 1)
        rc = copy_result(what, info, fields, size, device, 1);
    for (int p = 0; p < info->npairs && !rc; p++)
        rc = copy_frame(what, fields[info->pairs[p].next], fields[info->pairs[p].cur], info,
                        &info->pairs[p], size, device, 1);
    /* the points of next that a step reads but does not compute hold cur's (language.md 11:
       every step reads what the caller put in cur there) */
    for (int p = 0; p < info->npairs && !rc; p++)
        rc = copy_frame(what, fields[info->pairs[p].next], fields[info->pairs[p].cur], info,
                        &info->pairs[p], size, device, 0);
    if (!rc && tiles)
        rc = run_tiled(info, fields, cur, nsteps, size, step, args, tiles, r, w, depth, wrap);
    else {
        /* an empty domain: every step computes nothing, so a step in each role (the third
           for an odd count) is all of them, however many were asked for */
        int64_t n = nsteps;
        if ((!size[0] || !size[1] || !size[2]) && n > 2)
            n = 2 + (n & 1);
        for (int64_t s = 0; s < n && !rc; s++) {
            rc = step(args, cur, &dom);
            swap_pairs(info, cur);
        }
    }
    if (!rc && (nsteps & 1))
        rc = copy_result(what, info, fields, size, device, 0);
    free(cur);
    return rc;
}

int gt__steps(const gt_stencil_info *info, gt_storage *const *fields, int64_t nsteps,
              const gt_domain *domain, gt__step_fn *step, void *args, int device)
{
    return run_steps(info, fields, nsteps, domain, step, args, device, NULL, 1);
}

int gt__steps_tiled(const gt_stencil_info *info, gt_storage *const *fields, int64_t nsteps,
                    const gt_domain *domain, gt__step_fn *step, void *args,
                    gt__tiles_fn *tiles, int nthreads)
{
    if (!tiles)
        return gt__error(GT_EINVAL, "gt__steps_tiled: no tiles function");
    return run_steps(info, fields, nsteps, domain, step, args, 0, tiles, nthreads);
}
