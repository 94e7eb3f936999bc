/* ref.c: the reference of the Fortran tests (tests/fortran/run.sh): the stencils of
 * ftest.stn called from C on the same inputs as the Fortran wrappers, through storages the
 * C way (gt_empty, the default layout) filled from and copied back to the Fortran test's
 * dense arrays (I fastest). The test compares both results bit for bit. */
#include <string.h>

#include <gt/gt.h>

#include "ftest.h"

/* Copies between the dense Fortran-ordered array f and storage s, halo included. */
static void copy(gt_storage *s, void *f, int into_storage)
{
    size_t es = gt_dtype_size(gt_dtype_of(s));
    int nd = gt_ndim(s);
    const int64_t *sh = gt_shape(s), *st = gt_strides(s);
    char *p = gt_host(s, into_storage ? GT_WRITE : GT_READ), *q = f;
    int64_t n[3] = {1, 1, 1}, str[3] = {0, 0, 0};
    for (int d = 0; d < nd; d++) {
        n[d] = sh[d];
        str[d] = st[d];
    }
    int64_t lin = 0;
    for (int64_t c = 0; c < n[2]; c++)
        for (int64_t b = 0; b < n[1]; b++)
            for (int64_t a = 0; a < n[0]; a++, lin++) {
                char *e = p + (a * str[0] + b * str[1] + c * str[2]) * (int64_t)es;
                if (into_storage)
                    memcpy(e, q + lin * (int64_t)es, es);
                else
                    memcpy(q + lin * (int64_t)es, e, es);
            }
}

/* Runs stencil `which` (0 lap, 1 mix, 2 heat, 3 heat_steps) on storages made from data[f]
 * (shape: 3 numbers per field, its axes' sizes; halo: 6 per field, lower and upper along
 * I, J, K), copies every field back, returns the stencil's code. */
int ref_run(int which, void *const *data, const int64_t *shape, const int64_t *halo,
            const int64_t *domain, const double *sc, double *total, int32_t *biggest,
            int64_t nsteps);
int ref_run(int which, void *const *data, const int64_t *shape, const int64_t *halo,
            const int64_t *domain, const double *sc, double *total, int32_t *biggest,
            int64_t nsteps)
{
    const gt_stencil_info *info = which == 0 ? &lap_info : which == 1 ? &mix_info : &heat_info;
    gt_storage *s[16] = {0};
    for (int f = 0; f < info->nfields; f++) {
        const char *axes = info->fields[f].axes;
        gt_storage_opts o = {0};
        for (int d = 0; axes[d]; d++) {
            o.halo[d][0] = halo[6 * f + 2 * (axes[d] - 'I')];
            o.halo[d][1] = halo[6 * f + 2 * (axes[d] - 'I') + 1];
        }
        s[f] = gt_empty(info->fields[f].dtype, axes, shape + 3 * f, &o);
        if (!s[f])
            return gt_last_error_code();
        copy(s[f], data[f], 1);
    }
    gt_domain dom;
    const gt_domain *dp = NULL;
    if (domain) {
        dom = (gt_domain){{domain[0], domain[1], domain[2]}};
        dp = &dom;
    }
    int rc = 0;
    switch (which) {
    case 0: rc = lap(s[0], s[1], dp); break;
    case 1:
        rc = mix(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], (float)sc[0],
                 (int32_t)sc[1], sc[2] != 0, sc[3], total, biggest, dp);
        break;
    case 2: rc = heat(s[0], s[1], sc[0], dp); break;
    default: rc = heat_steps(s[0], s[1], sc[0], nsteps, dp); break;
    }
    for (int f = 0; f < info->nfields; f++) {
        copy(s[f], data[f], 0);
        gt_release(s[f]);
    }
    return rc;
}
