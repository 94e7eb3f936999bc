/* gt_device.h: devices and synchronisation (runtime.md section 4).
 *
 * Each buffer with a device mirror has a sync state shared by all storages viewing it:
 * clean, host dirty or device dirty. With GT_MANAGED_RUNTIME, gt_host and gt_device_ptr
 * bring the side they return up to date and mark it dirty when asked for write access.
 * With GT_MANAGED_NONE nothing is copied implicitly: the functions below copy when the user
 * says. With GT_MANAGED_CUDA (unified memory) they do nothing but wait for the device.
 * On a storage without a device buffer they do nothing and return 0, so that code can be
 * written once for both kinds. A device-only storage (gt_wrap_device) has no host side and
 * nothing to sync: gt_set_device_modified returns 0, the others GT_EDEVICE. A runtime built without CUDA refuses every request for a
 * device buffer with GT_EDEVICE. */
#ifndef GT_DEVICE_H
#define GT_DEVICE_H

#include "gt_storage.h"

#ifdef __cplusplus
extern "C" {
#endif

int gt_sync(gt_storage *);                 /* bring the stale side up to date */
int gt_host_to_device(gt_storage *, int force);  /* copy if host dirty (or force); then clean */
int gt_device_to_host(gt_storage *, int force);  /* copy if device dirty (or force); then clean */
int gt_set_host_modified(gt_storage *);    /* mark host dirty (the user wrote it directly) */
int gt_set_device_modified(gt_storage *);  /* mark device dirty */
int gt_set_synchronized(gt_storage *);     /* mark clean (the user synced by hand) */

#ifdef __cplusplus
}
#endif

#endif /* GT_DEVICE_H */
