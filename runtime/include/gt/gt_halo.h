/* gt_halo.h: boundary conditions written into a storage's halo (runtime.md section 5). */
#ifndef GT_HALO_H
#define GT_HALO_H

#include "gt_storage.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    GT_BC_PERIODIC,  /* p < 0: u[p + n];  p >= n: u[p - n] */
    GT_BC_DIRICHLET, /* the constant value */
    GT_BC_NEUMANN,   /* p < 0: u[0];      p >= n: u[n - 1] */
    GT_BC_MIRROR     /* p < 0: u[-p - 1]; p >= n: u[2n - p - 1] */
} gt_bc;

/* Fills the halo along the named axes (a subset of the storage's axes, e.g. "IJ"; NULL: all
   its axes) from the interior, with the rules of language.md section 7, n being the interior
   size along the axis. Axes are done one after the other in the order given, each over the
   full extent (halo included) of the other axes, so corners compose the rules of the axes
   involved (a Dirichlet axis among them gives its value). value: GT_BC_DIRICHLET only. */
int gt_fill_halo(gt_storage *, const char *axes, gt_bc bc, double value);
    /* fills the halo along the named axes from the interior, with the rules of
       language.md section 7; value is used by GT_BC_DIRICHLET only */

#ifdef __cplusplus
}
#endif

#endif /* GT_HALO_H */
