/* gt.h: the public interface of libgtrt, the gtcc runtime (docs/runtime.md). Programs that
 * call generated stencils include this header and link with -lgtrt. */
#ifndef GT_GT_H
#define GT_GT_H

#include "gt_error.h"
#include "gt_storage.h"
#include "gt_device.h"
#include "gt_halo.h"
#include "gt_stencil.h"

#endif /* GT_GT_H */
