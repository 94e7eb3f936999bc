/* halo.c: gt_fill_halo, boundary conditions written into a storage's halo (runtime.md
 * section 5, rules of language.md section 7).
 *
 * Along one axis with lower halo L, interior size n and upper halo H, the halo layer at
 * interior coordinate p (p in [-L, 0) or [n, n + H)) is a whole plane of the storage (every
 * index of the other axes, their halos included). It is filled by copying the interior plane
 * q(p) that the rule names, or with the Dirichlet value. Axes are done in the order given,
 * so a later axis copies planes that already hold the earlier axes' halo values: corners
 * compose the rules, and a Dirichlet axis among them gives its value, as language.md says. */
#include <stdio.h>
#include <string.h>

#include "rt.h"

/* The interior plane that halo plane p reads (periodic, Neumann, mirror). */
static int64_t source_plane(gt_bc bc, int64_t p, int64_t n)
{
    switch (bc) {
    case GT_BC_PERIODIC: return p < 0 ? p + n : p - n;
    case GT_BC_NEUMANN: return p < 0 ? 0 : n - 1;
    case GT_BC_MIRROR: return p < 0 ? -p - 1 : 2 * n - p - 1;
    case GT_BC_DIRICHLET: break;
    }
    return 0;
}

static const char *bc_name(gt_bc bc)
{
    switch (bc) {
    case GT_BC_PERIODIC: return "periodic";
    case GT_BC_DIRICHLET: return "dirichlet";
    case GT_BC_NEUMANN: return "neumann";
    case GT_BC_MIRROR: return "mirror";
    }
    return "invalid";
}

/* Fills halo plane p of axis d (lower halo lo, interior n). */
static void fill_plane(gt_storage *s, unsigned char *base, int d, int64_t lo, int64_t n,
                       int64_t p, gt_bc bc, const unsigned char *value)
{
    size_t esize = gt_dtype_size(s->dtype);
    int64_t plane[3], step = s->strides[d] * (int64_t)esize;
    memcpy(plane, s->shape, sizeof plane);
    plane[d] = 1;
    unsigned char *to = base + (lo + p) * step;
    if (bc == GT_BC_DIRICHLET)
        gt__fill_box(to, s->strides, plane, s->ndim, esize, value);
    else
        gt__copy_box(to, s->strides, base + (lo + source_plane(bc, p, n)) * step, s->strides,
                     plane, s->ndim, esize);
}

int gt_fill_halo(gt_storage *s, const char *axes, gt_bc bc, double value)
{
    static const char fn[] = "gt_fill_halo";
    char desc[GT__DESC_MAX], todo[4];
    unsigned char encoded[8];
    if (!s)
        return gt__error(GT_EINVAL, "%s: storage is NULL", fn);
    gt__describe(s, desc);
    if (bc != GT_BC_PERIODIC && bc != GT_BC_DIRICHLET && bc != GT_BC_NEUMANN &&
        bc != GT_BC_MIRROR)
        return gt__error(GT_EINVAL, "%s: storage %s: invalid boundary condition %d "
                         "(GT_BC_PERIODIC, GT_BC_DIRICHLET, GT_BC_NEUMANN or GT_BC_MIRROR)", fn,
                         desc, (int)bc);
    int n_axes = gt__parse_axes(fn, axes ? axes : s->axes, todo);
    if (n_axes < 0)
        return n_axes;
    for (int k = 0; k < n_axes; k++)
        if (gt__axis_pos(s, todo[k]) < 0)
            return gt__error(GT_EAXES, "%s: storage %s has no axis %c", fn, desc, todo[k]);
    if (bc == GT_BC_DIRICHLET) { /* the message names the storage, as the others here do */
        char what[GT__DESC_MAX + 48];
        snprintf(what, sizeof what, "%s: storage %s: dirichlet", fn, desc);
        if (gt__encode_value(what, s->dtype, value, encoded))
            return GT_EINVAL;
    }
    for (int k = 0; k < n_axes; k++) {
        int d = gt__axis_pos(s, todo[k]);
        int64_t lo = s->halo[d][0], hi = s->halo[d][1], n = s->shape[d] - lo - hi;
        if ((bc == GT_BC_PERIODIC || bc == GT_BC_MIRROR) && (lo > n || hi > n))
            return gt__error(GT_EHALO, "%s: storage %s: halo along %c is [%lld,%lld], wider "
                             "than the interior %lld that %s reads", fn, desc, todo[k],
                             (long long)lo, (long long)hi, (long long)n, bc_name(bc));
        if (bc == GT_BC_NEUMANN && n == 0 && lo + hi > 0)
            return gt__error(GT_EHALO, "%s: storage %s: halo along %c is [%lld,%lld] around an "
                             "empty interior: neumann has nothing to extend", fn, desc,
                             todo[k], (long long)lo, (long long)hi);
    }
    int rc = gt__sync_host(fn, s, GT_READWRITE);
    if (rc)
        return rc;
    unsigned char *base = gt__host_raw(s);
    for (int k = 0; k < n_axes && base; k++) {
        int d = gt__axis_pos(s, todo[k]);
        int64_t lo = s->halo[d][0], hi = s->halo[d][1], n = s->shape[d] - lo - hi;
        for (int64_t p = -lo; p < 0; p++)
            fill_plane(s, base, d, lo, n, p, bc, encoded);
        for (int64_t p = n; p < n + hi; p++)
            fill_plane(s, base, d, lo, n, p, bc, encoded);
    }
    return 0;
}
