/* gt_stencil.h: the types of the generated API (runtime.md section 3) and the one function
 * through which every backend's generated code checks and binds its arguments. */
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
} gt_field_info;

typedef struct {
    const char *name;
    int nfields;
    const gt_field_info *fields;    /* in parameter order */
} gt_stencil_info;

/* ---- for generated code, not part of the user contract ---------------------------------- */

typedef struct {
    void   *origin;     /* host address of the element at the compute-domain origin (the storage's first interior point) */
    int64_t stride[3];  /* element strides along I, J, K (by axis NAME, whatever the storage's axis order); 0 along an axis the field lacks */
} gt_bound;
/* Checks every argument of a stencil call before any data is touched, infers the compute domain, and binds each field.
   read_at_offset[f] != 0 when the stencil reads field f at a non-zero offset anywhere.
   fields: nfields storages in parameter order. size_out: NI, NJ, NK of the compute domain.
   Returns 0 or a GT_E... code with gt_last_error() set to a message naming the stencil, the field and the numbers. */
int gt__bind(const gt_stencil_info *info, const unsigned char *read_at_offset, gt_storage *const *fields,
             const gt_domain *domain, int64_t size_out[3], gt_bound *bound_out);

#ifdef __cplusplus
}
#endif

#endif /* GT_STENCIL_H */
