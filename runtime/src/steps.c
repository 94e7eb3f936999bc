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

int gt__steps(const gt_stencil_info *info, gt_storage *const *fields, int64_t nsteps,
              const gt_domain *domain, gt__step_fn *step, void *args, int device)
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
    for (int64_t s = 0; s < nsteps && !rc; s++) {
        rc = step(args, cur, &dom);
        swap_pairs(info, cur);
    }
    free(cur);
    return rc;
}
