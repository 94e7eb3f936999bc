/* set_all.h: a helper of the MPI test programs (check_mpi_stencil.c, check_mpi_klevels.c). */
#ifndef MPI_TEST_SET_ALL_H
#define MPI_TEST_SET_ALL_H

#include <gt/gt.h>

/* Every element of s (double or int; halos and all) to v. */
static void set_all(gt_storage *s, double v)
{
    const int64_t *shape = gt_shape(s), *st = gt_strides(s);
    void *p = gt_host(s, GT_WRITE);
    for (int64_t k = 0; k < shape[2]; k++)
        for (int64_t j = 0; j < shape[1]; j++)
            for (int64_t i = 0; i < shape[0]; i++) {
                int64_t e = i * st[0] + j * st[1] + k * st[2];
                if (gt_dtype_of(s) == GT_INT32)
                    ((int32_t *)p)[e] = (int32_t)v;
                else
                    ((double *)p)[e] = v;
            }
}

#endif
