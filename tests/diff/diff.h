/* diff.h: the table a call shim (gen --wrap) exports from each build of a
 * generated program, read by the differential driver (driver.c). */
#ifndef DIFF_H
#define DIFF_H

#include <gt/gt.h>

/* One stencil: call it with its fields in parameter order, its scalar inputs
 * (converted from double) and its out scalars (converted to double). */
typedef struct {
    const char *name;
    const gt_stencil_info *info;
    int (*call)(gt_storage **fields, const double *in, double *out, const gt_domain *domain);
    const char *out_types;   /* one letter per out scalar: d(ouble), f(loat), i(nt), b(ool) */
    /* S_steps of a stencil with iterate (its fields, scalar inputs, nsteps, domain); NULL
       for one without */
    int (*steps)(gt_storage **fields, const double *in, int64_t nsteps, const gt_domain *domain);
    /* the out scalars where the last call left them (converted to double): the stencil
       writes them into variables of the shim's file, where a distributed call
       (gt_mpi_call) writes the combined values after the last part */
    void (*outs)(double *out);
    /* the levels the stencil's intervals need (the header's "the domain needs at least N
       levels along K"; 0 where it says nothing) */
    int min_nk;
} DiffStencil;

/* An int scalar's argument from the driver's double (gen --wrap): C's conversion where it is
   defined, the nearest int beyond (NaN: 0), for DIFF_EXTREME's values. */
static inline int32_t diff_int(double x)
{
    return x != x ? 0 : x >= 2147483647.0 ? INT32_MAX : x <= -2147483648.0 ? INT32_MIN
                                                                        : (int32_t)x;
}

#endif
