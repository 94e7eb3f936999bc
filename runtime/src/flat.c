/* flat.c: gt_wrap_flat, gt_wrap for callers that cannot fill a gt_storage_opts: the Fortran
 * module gtrt (runtime/fortran/gtrt.f90, docs/fortran.md), which computes each array's
 * strides in bytes from element addresses and passes its halo as a flat array. */
#include <stdio.h>
#include <string.h>

#include "rt.h"

int gt_wrap_flat(gt_storage **out, void *data, int dtype, const char *axes,
                 const int64_t *shape, const int64_t *byte_strides, const int64_t *halo,
                 const char *what)
{
    static const char fn[] = "gt_wrap_flat";
    if (!out)
        return gt__error(GT_EINVAL, "%s: out is NULL", fn);
    *out = NULL;
    int rc = 0;
    size_t esize = gt_dtype_size((gt_dtype)dtype);
    size_t ndim = axes ? strlen(axes) : 0;
    gt_storage_opts opts = {0};
    int64_t strides[3] = {0, 0, 0};
    if (esize == 0)
        rc = gt__error(GT_EINVAL, "%s: dtype %d is not a gt_dtype " GT__DTYPES, fn, dtype);
    else if (!axes || ndim == 0 || ndim > 3 || !shape || !byte_strides || !halo)
        rc = gt__error(GT_EINVAL, "%s: axes '%s', shape, strides and halo are required (1 to 3 "
                       "axes)", fn, axes ? axes : "(null)");
    /* an empty array (an extent 0, as a Fortran section a(1:0, :, :)): its element
     * addresses say nothing (the module passes 0 for every stride, and no address), and it
     * addresses no memory, so dense strides say the same, as the Python package passes them;
     * its byte strides are not looked at */
    int empty = 0;
    for (size_t d = 0; d < ndim && rc == 0; d++)
        empty |= shape[d] == 0;
    for (size_t d = 0; d < ndim && rc == 0; d++) {
        if (!empty && byte_strides[d] % (int64_t)esize)
            rc = gt__error(GT_EINVAL, "%s: stride along %c is %lld bytes, not a multiple of the "
                           "%zu bytes of a %s", fn, axes[d], (long long)byte_strides[d], esize,
                           gt_dtype_name((gt_dtype)dtype));
        strides[d] = byte_strides[d] / (int64_t)esize;
        opts.halo[d][0] = halo[2 * d];
        opts.halo[d][1] = halo[2 * d + 1];
    }
    if (rc == 0 && !(*out = gt_wrap(data, (gt_dtype)dtype, axes, shape, empty ? NULL : strides,
                                    &opts)))
        rc = gt_last_error_code();
    if (rc != 0 && what && *what) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", gt_last_error());
        gt__error(rc, "%s: %s", what, msg);
    }
    return rc;
}
