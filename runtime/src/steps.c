/* steps.c: S_steps of a stencil with iterate (language.md section 11) as a loop of single
 * steps (gt__steps), the executable definition that every backend without its own schedule
 * calls.
 *
 * iterate(next -> cur): one step writes next from cur; S_steps leaves its result in cur.
 * Before anything is written, S_steps checks nsteps, runs the single call's checks (the
 * stencil called with gt__check_only on: it returns after them) for the order of the first
 * step and, when there are two steps or more, for the swapped order too (each storage of a
 * pair then plays both roles), and refuses pairs whose storages share memory. Then:
 *
 *   nsteps 0       nothing;
 *   nsteps 1       one step, then the domain of next copied into cur;
 *   nsteps even    each pair's frame (the domain grown by cur's halo, less the domain: the
 *                  points a step reads but does not compute) copied from cur into next, then
 *                  the steps, the first writing next;
 *   nsteps odd     the whole box (frame and domain) copied from cur into next, then the
 *                  steps with the roles swapped, the first reading next, so that the last
 *                  writes cur: no copy of the result afterwards.
 *
 * Either way step s reads what n single calls with swaps would read (the caller's storages
 * agreeing on the frame, as the language says), so the result is bitwise theirs. Copies run
 * where the step binds its storages: on the host, or on the device for the cuda backend (no
 * host round trip between steps: the storages stay device-side). */
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
   layouts would transpose the box are copied on the host). */
static int copy_box(const char *what, gt_storage *dst, const gt_storage *src,
                    const int64_t lo[3], const int64_t ext[3], int device)
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
                         "device-only storages are copied only between one layout", what,
                         dst->layout, src->layout);
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

int gt__steps_copy_box(const char *what, gt_storage *dst, const gt_storage *src,
                       const int64_t lo[3], const int64_t ext[3], int device)
{
    return copy_box(what, dst, src, lo, ext, device);
}

/* The frame of field cur (the domain size grown by its halo, less the domain: one slab per
   axis and side, the axes before it over the domain, those after it over the grown range),
   or with whole set the grown box, copied from src into dst. */
static int copy_frame(const char *what, gt_storage *dst, const gt_storage *src,
                      const gt_field_info *cur, const int64_t size[3], int whole, int device)
{
    int64_t lo[3], ext[3];
    for (int a = 0; a < 3; a++) {
        int has = strchr(cur->axes, 'I' + a) != NULL;
        lo[a] = has ? -cur->halo[a][0] : 0;
        ext[a] = has ? size[a] + cur->halo[a][0] + cur->halo[a][1] : 1;
    }
    if (whole)
        return copy_box(what, dst, src, lo, ext, device);
    for (int a = 0; a < 3; a++) {
        if (!strchr(cur->axes, 'I' + a))
            continue;
        for (int side = 0; side < 2; side++) {
            int64_t h = cur->halo[a][side];
            if (h == 0)
                continue;
            int64_t slo[3], sext[3];
            memcpy(slo, lo, sizeof slo);
            memcpy(sext, ext, sizeof sext);
            for (int b = 0; b < a; b++)
                if (strchr(cur->axes, 'I' + b))
                    slo[b] = 0, sext[b] = size[b];
            slo[a] = side ? size[a] : -h;
            sext[a] = h;
            int rc = copy_box(what, dst, src, slo, sext, device);
            if (rc)
                return rc;
        }
    }
    return 0;
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
 * changes. */

typedef struct {
    const gt_stencil_info *info;
    gt_storage *const *held;    /* the caller's storages (both of each pair) */
    gt_storage **order[2];      /* the fields of even and odd steps */
    gt__step_fn *step;
    void *args;
    int64_t size[3];
    int64_t r, depth, ntiles;
    int wrap[2];                /* a field periodic along I, J (J: the rows are a ring) */
    int64_t *lo;                /* ntiles + 1 tile starts */
    int64_t s0, t;              /* the chunk: steps s0 .. s0 + t - 1 (from 0) */
    int phase;                  /* 1 tiles, 2 gaps */
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

static const gt__layer tile_layer = {"S_steps", "S_steps' tiles", tile_reads, tile_holds,
                                     tile_result, tile_keep, tile_keep_result, tile_levels};

/* Step s (from 0) on rows [j0, j1). */
static void tile_call(Tiling *tl, int64_t j0, int64_t j1, int64_t s)
{
    if (j0 >= j1 || atomic_load_explicit(&tl->rc, memory_order_relaxed))
        return;
    gt__placement p;
    memset(&p, 0, sizeof p);
    p.origin[1] = j0;
    p.global[0] = tl->size[0];
    p.global[1] = tl->size[1];
    p.size[0] = tl->size[0];
    p.size[1] = j1 - j0;
    p.in_part = 1;
    p.part[1] = j0;
    p.inner[1][0] = j0 > 0;
    p.inner[1][1] = j1 < tl->size[1];
    for (int a = 0; a < 2; a++)
        p.wrap[a] = p.wrap_here[a] = tl->wrap[a];
    snprintf(p.who, sizeof p.who, "rows from %lld", (long long)j0);
    p.layer = &tile_layer;
    p.ctx = tl;
    gt_domain d = {{tl->size[0], j1 - j0, tl->size[2]}};
    gt__placement_set(&p);
    int rc = tl->step(tl->args, tl->order[s & 1], &d);
    gt__placement_set(NULL);
    int none = 0;
    if (rc && atomic_compare_exchange_strong(&tl->rc, &none, rc))
        snprintf(tl->why, sizeof tl->why, "%s", gt_last_error());
}

static void tile_body(void *ctx, int64_t x)
{
    Tiling *tl = ctx;
    int64_t r = tl->r, last = tl->ntiles - 1, nj = tl->size[1];
    int ring = tl->wrap[1];
    for (int64_t t = 1; t <= tl->t; t++) {
        int64_t s = tl->s0 + t - 1, b = tl->lo[x + 1];
        if (tl->phase == 1)
            tile_call(tl, tl->lo[x] + (x > 0 || ring ? r * t : 0),
                      b - (x < last || ring ? r * t : 0), s);
        else if (b < nj)
            tile_call(tl, b - r * t, b + r * t, s);
        else {   /* the ring's gap at nj = 0 */
            tile_call(tl, nj - r * t, nj, s);
            tile_call(tl, 0, r * t, s);
        }
    }
}

/* Whether to tile, and how: rows *w of a tile and *depth steps a chunk (1), the loop of
   single steps (0), or a GT_E... code (a malformed GT_STEPS_TILE). */
static int tile_plan(const gt_stencil_info *info, const int64_t size[3], int64_t nsteps,
                     int nthreads, int64_t *r_out, int64_t *w_out, int64_t *depth_out,
                     int wrap[2])
{
    int64_t r = 0, rowbytes = 0;
    wrap[0] = wrap[1] = 0;
    for (int f = 0; f < info->nfields; f++) {
        const gt_field_info *fi = &info->fields[f];
        int has_j = strchr(fi->axes, 'J') != NULL;
        for (int a = 0; a < 2; a++)
            if (fi->bc[a] == 1 + GT_BC_PERIODIC && strchr(fi->axes, 'I' + a)) {
                if (size[a] >= (int64_t)1 << 29)
                    return 0;   /* beyond the bounds gt__place keeps exact */
                wrap[a] = 1;
            }
        if (fi->is_output && !has_j)
            return 0;   /* every part would write all of it */
        if (!has_j)
            continue;
        for (int side = 0; side < 2; side++)
            if (fi->reach[1][side] > r)
                r = fi->reach[1][side];
        int64_t b = (int64_t)gt_dtype_size(fi->dtype);
        for (int a = 0; a < 3; a++)
            if (a != 1 && strchr(fi->axes, 'I' + a))
                b *= size[a];
        rowbytes += b;
    }
    if (nsteps < 2 || size[0] < 1 || size[1] < 1 || size[2] < 1)
        return 0;
    int64_t w, depth;
    int forced = 0;
    const char *env = getenv("GT_STEPS_TILE");
    if (env && *env) {
        char *end;
        long long a = strtoll(env, &end, 10), b = 0;
        if (a == 0 && *end == '\0')
            return 0;
        if (*end == ',')
            b = strtoll(end + 1, &end, 10);
        if (*end != '\0' || a < 1 || b < 1)
            return gt__error(GT_EINVAL, "stencil '%s': steps: GT_STEPS_TILE is '%s'; it must "
                             "be ROWS,STEPS (two positive numbers) or 0", info->name, env);
        w = a, depth = b, forced = 1;
    } else {
        int64_t l2, l3;
        gt__cache_sizes(&l2, &l3);
        int64_t share = l2 + l3 / (nthreads > 0 ? nthreads : 1);
        /* a tile's rows of every field in a quarter of the share (the rest for the gaps'
           rows and what streams past), 16 steps deep at most (bench/bench_steps.c: 2-D
           5-point on 8192^2 f32, 2 threads, 1 MB L2 and 32 MB L3: 64 rows and 16 steps
           2.4x the single calls, 136 rows and 8 steps 1.7x) */
        w = rowbytes > 0 ? share / 4 / rowbytes : size[1];
        depth = 16;
        if (size[1] <= 2 * w)
            return 0;   /* the domain is about one tile: nothing to gain */
    }
    if (w > size[1])
        w = size[1];
    if (depth > nsteps)
        depth = nsteps;
    if (r > 0 && (w < size[1] || wrap[1]) && w < r * (2 * depth + 1))
        depth = (w / r - 1) / 2;   /* gaps apart: see above */
    if (depth < (forced ? 1 : 2))
        return 0;
    *r_out = r;
    *w_out = w;
    *depth_out = depth;
    return 1;
}

/* The steps (the frame copied, first[] the order of the first step) tiled as tile_plan
   says: 0 or the first failing call's code. */
static int run_tiled(const gt_stencil_info *info, gt_storage *const *held,
                     gt_storage **first, int64_t nsteps, const int64_t size[3],
                     gt__step_fn *step, void *args, gt__tiles_fn *tiles, int64_t r, int64_t w,
                     int64_t depth, const int wrap[2])
{
    int nf = info->nfields;
    Tiling tl;
    memset(&tl, 0, sizeof tl);
    tl.ntiles = size[1] / w;
    tl.lo = malloc(sizeof *tl.lo * (size_t)(tl.ntiles + 1));
    gt_storage **odd = malloc(sizeof *odd * (size_t)nf);
    if (!tl.lo || !odd) {
        free(tl.lo);
        free(odd);
        return gt__error(GT_ENOMEM, "stencil '%s': steps: no memory", info->name);
    }
    for (int64_t k = 0; k < tl.ntiles; k++)
        tl.lo[k] = k * w;
    tl.lo[tl.ntiles] = size[1];   /* the last tile takes the rest */
    memcpy(odd, first, sizeof *odd * (size_t)nf);
    swap_pairs(info, odd);
    tl.info = info;
    tl.held = held;
    tl.order[0] = first;
    tl.order[1] = odd;
    tl.step = step;
    tl.args = args;
    memcpy(tl.size, size, sizeof tl.size);
    tl.r = r;
    tl.depth = depth;
    tl.wrap[0] = wrap[0];
    tl.wrap[1] = wrap[1];
    atomic_init(&tl.rc, 0);
    for (tl.s0 = 0; tl.s0 < nsteps && !atomic_load(&tl.rc); tl.s0 += tl.t) {
        tl.t = nsteps - tl.s0 < depth ? nsteps - tl.s0 : depth;
        tl.phase = 1;
        tiles(tl.ntiles, tile_body, &tl);
        tl.phase = 2;
        int64_t gaps = tl.ntiles - (wrap[1] ? 0 : 1);   /* the ring's: one at nj too */
        if (gaps > 0 && r > 0 && !atomic_load(&tl.rc))
            tiles(gaps, tile_body, &tl);
    }
    free(tl.lo);
    free(odd);
    int rc = atomic_load(&tl.rc);
    return rc ? gt__error(rc, "%s", tl.why) : 0;   /* the message on the calling thread */
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
        rc = check_call(step, args, cur, &dom);
        swap_pairs(info, cur);
    }
    for (int p = 0; p < info->npairs && !rc; p++) {
        const gt_iterate_pair *q = &info->pairs[p];
        if (gt__overlap(fields[q->next], fields[q->cur], device))
            rc = gt__error(GT_EALIAS, "stencil '%s': steps: the storages of '%s' and '%s' "
                           "(pair %s -> %s of iterate) share memory", info->name,
                           info->fields[q->next].name, info->fields[q->cur].name,
                           info->fields[q->next].name, info->fields[q->cur].name);
    }
    int64_t r = 0, w = 1, depth = 1;
    int wrap[2] = {0, 0};
    if (!rc && tiles) {
        int plan = tile_plan(info, size, nsteps, nthreads, &r, &w, &depth, wrap);
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
    if (nsteps == 1) {
        rc = step(args, cur, &dom);
        for (int p = 0; p < info->npairs && !rc; p++) {
            const gt_iterate_pair *q = &info->pairs[p];
            const gt_field_info *fi = &info->fields[q->cur];
            int64_t lo[3] = {0, 0, 0}, ext[3];
            for (int a = 0; a < 3; a++)
                ext[a] = strchr(fi->axes, 'I' + a) ? size[a] : 1;
            rc = copy_box(what, fields[q->cur], fields[q->next], lo, ext, device);
        }
        free(cur);
        return rc;
    }
    int odd = (int)(nsteps & 1);
    for (int p = 0; p < info->npairs && !rc; p++) {
        const gt_iterate_pair *q = &info->pairs[p];
        rc = copy_frame(what, fields[q->next], fields[q->cur], &info->fields[q->cur], size, odd,
                        device);
    }
    if (odd)
        swap_pairs(info, cur);
    if (!rc && tiles) {
        rc = run_tiled(info, fields, cur, nsteps, size, step, args, tiles, r, w, depth, wrap);
        free(cur);
        return rc;
    }
    for (int64_t s = 0; s < nsteps && !rc; s++) {
        rc = step(args, cur, &dom);
        swap_pairs(info, cur);
    }
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
