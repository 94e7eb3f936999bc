/* gt_stencil.h: the types of the generated API (runtime.md section 3): the compute domain
 * and the metadata (S_info) every generated stencil describes itself with. What only the
 * generated code calls is in gt_generated.h. */
#ifndef GT_STENCIL_H
#define GT_STENCIL_H

#include <stdint.h>

#include "gt_storage.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { int64_t size[3]; } gt_domain;  /* NI, NJ, NK */

typedef struct {
    const char *name;               /* field name as in the .stn file */
    const char *axes;               /* "IJK", "IJ", ... */
    gt_dtype dtype;
    int is_output;
    int64_t halo[3][2];             /* required halo per axis I, J, K (0 where a bc applies) */
    int64_t reach[3][2];            /* how far the stencil reads beyond the domain per axis and
                                       side, boundary condition or not: what a distributed call
                                       exchanges (docs/mpi.md); equal to halo where no bc */
    int bc[3];                      /* per axis: 0 for none, or 1 + its gt_bc (gt_halo.h) */
} gt_field_info;

/* One pair of `iterate(next -> cur)` (language.md section 11): one step writes field `next`
   from field `cur`, and S_steps leaves its result in `cur`. Indices into fields. keeps: 1
   where a step may depend on what next held before it (it reads next, or may leave points
   of it unwritten), 0 where it overwrites all of next without reading it (gt_mpi_steps
   then does not exchange next: docs/mpi.md); 1 is always safe. */
typedef struct {
    int next;
    int cur;
    int keeps;
} gt_iterate_pair;

typedef struct {
    const char *name;
    int nfields;
    const gt_field_info *fields;    /* in parameter order */
    /* a stencil with iterate (S_steps, docs/generated-api.md); 0, NULL and 0 without */
    int npairs;
    const gt_iterate_pair *pairs;   /* npairs, in the order of iterate(...) */
    int tiles_time;                 /* 1 if S_steps computes several steps per pass over
                                       the domain (temporal blocking), 2 if so and its parts
                                       may cut the levels too (every level computed alike),
                                       0 if one step at a time */
} gt_stencil_info;

#ifdef __cplusplus
}
#endif

#endif /* GT_STENCIL_H */
