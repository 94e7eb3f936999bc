/* shapes.c: the shape rules (language.md section 5).
 *
 * The shape of an expression is the set of axes it varies along; the IR
 * constructors (ir.c) compute it as the union of the operands' shapes, which
 * is broadcasting: a lower-dimensional operand is inflated along the axes it
 * lacks, and nothing else is needed for that. What is checked here is where a
 * shape meets a storage: an assignment must not store a varying value into a
 * field that lacks the axis (except a column accumulator in a forward or
 * backward computation), an access offset must be along an axis the field
 * has, and a column reduction must reduce something that varies along K.
 */
#include <inttypes.h>
#include <stdio.h>

#include "gtcc.h"
#include "sema.h"

const char *shape_name(unsigned shape)
{
    return shape == AXES_NONE ? "scalar" : axes_name(shape);
}

bool shape_check_assign(Sema *s, Loc loc, const char *dst, unsigned dst_axes,
                        unsigned value_shape, unsigned mask_shape, IterOrder order)
{
    unsigned allowed = dst_axes;
    if (order != ORDER_PARALLEL)
        allowed |= AXES_K;   /* a column accumulator holds the value of the current level */
    unsigned extra = value_shape & ~allowed;
    if (extra) {
        sema_error(s, loc,
                   "cannot assign a value of shape %s to '%s' of axes %s: it varies along %s, "
                   "which '%s' lacks%s",
                   shape_name(value_shape), dst, axes_name(dst_axes), axes_name(extra), dst,
                   (extra & AXES_K) && !(extra & AXES_IJ)
                       ? "; reduce it with sum(e, k), or accumulate it in a forward computation"
                       : "; declare the destination with those axes");
        return false;
    }
    extra = mask_shape & ~allowed;
    if (extra) {
        sema_error(s, loc,
                   "the condition around this assignment varies along %s, which '%s' (axes %s) "
                   "lacks; the assignment would depend on the point%s",
                   axes_name(extra), dst, axes_name(dst_axes),
                   (extra & AXES_K) && !(extra & AXES_IJ)
                       ? "; make the condition not vary along K (reduce it, e.g. max(e, k)), "
                         "or assign in a forward computation, where the last level whose "
                         "condition holds gives the value"
                       : "; declare the destination with those axes");
        return false;
    }
    return true;
}

bool shape_check_offset(Sema *s, Loc loc, const char *name, unsigned axes,
                        const int64_t offset[NAXES], const char *via)
{
    for (int ax = 0; ax < NAXES; ax++) {
        if (offset[ax] == 0 || (axes & (1u << ax)))
            continue;
        sema_error(s, loc, "field '%s' has no axis %c; it cannot be read at %c%+" PRId64 "%s",
                   name, "IJK"[ax], "ijk"[ax], offset[ax], via ? via : "");
        return false;
    }
    return true;
}

bool shape_check_column(Sema *s, Loc loc, const char *fn, unsigned shape)
{
    if (shape & AXES_K)
        return true;
    sema_error(s, loc,
               "%s(e, k) reduces along K, but its operand has shape %s: it does not vary "
               "along K", fn, shape_name(shape));
    return false;
}
