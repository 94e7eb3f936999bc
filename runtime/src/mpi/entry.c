/* entry.c: the halo a local storage needs in a distributed call (gt_mpi_halo); gt/gt_mpi.h
 * says what it does, docs/mpi.md how to use it. */
#include <string.h>

#include <gt/gt_mpi.h>

#include "rt.h"

int gt_mpi_halo(const gt_stencil_info *info, int field, const char *axes, int64_t halo[3][2])
{
    static const char fn[] = "gt_mpi_halo";
    if (!info || !info->fields || !halo || field < 0 || field >= info->nfields)
        return gt__error(GT_EINVAL, "%s: bad arguments (info %s, field %d of %d, halo %s)", fn,
                         info ? "given" : "NULL", field, info ? info->nfields : 0,
                         halo ? "given" : "NULL");
    const gt_field_info *fi = &info->fields[field];
    const char *ax = axes ? axes : fi->axes;
    size_t n = strlen(ax);
    int same = fi->axes && n == strlen(fi->axes);
    for (size_t x = 0; same && x < n; x++)
        same = strchr(fi->axes, ax[x]) && !memchr(ax, ax[x], x);
    if (!same)
        return gt__error(GT_EAXES, "%s: stencil '%s': field '%s' has axes %s, a storage of "
                         "axes \"%s\" cannot hold it", fn, info->name ? info->name : "?",
                         fi->name ? fi->name : "?", fi->axes ? fi->axes : "(null)", ax);
    int64_t out[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    for (size_t x = 0; x < n; x++) {
        int a = ax[x] - 'I';
        for (int side = 0; side < 2; side++) {
            int64_t h = fi->halo[a][side], r = fi->reach[a][side];
            out[x][side] = a < 2 && r > h ? r : h;
        }
    }
    memcpy(halo, out, sizeof out);
    return 0;
}
