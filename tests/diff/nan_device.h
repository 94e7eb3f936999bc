/* nan_device.h: the fake device of the tests that run the cuda backend's output on the
 * SIMT emulator (tests/simt) on the CPU: device memory is host memory that starts as NaN,
 * so a kernel that reads what nothing wrote gives NaN, and the emulator checks every access
 * against the live blocks (gt_device_contains). Included by one file of a program (its
 * functions are static but gt_device_contains, which the emulator looks up); install it
 * with gt__set_device_ops(&nan_device) (rt.h). */
#ifndef NAN_DEVICE_H
#define NAN_DEVICE_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* the live device blocks, for gt_device_contains */
static struct {
    char *p;
    size_t n;
} blocks[4096];
static int nblocks;

static int nan_alloc(void **out, size_t n)
{
    double *p = malloc(n + sizeof(double));
    if (!p || nblocks == (int)(sizeof blocks / sizeof *blocks))
        return free(p), 2;
    for (size_t i = 0; i <= n / sizeof(double); i++)
        p[i] = NAN;
    blocks[nblocks].p = (char *)p;
    blocks[nblocks++].n = n;
    *out = p;
    return 0;
}

static void nan_release(void *p)
{
    for (int b = 0; b < nblocks; b++)
        if (blocks[b].p == p) {
            blocks[b] = blocks[--nblocks];
            break;
        }
    free(p);
}

/* The SIMT emulator's check of a kernel's access (exported: the .so finds it). */
int gt_device_contains(const void *p, size_t n);
int gt_device_contains(const void *p, size_t n)
{
    const char *c = p;
    for (int b = 0; b < nblocks; b++)
        if (c >= blocks[b].p && c + n <= blocks[b].p + blocks[b].n)
            return 1;
    return 0;
}

static int copy_to(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
    return 0;
}

static int no_wait(void)
{
    return 0;
}

static const gt__device_ops nan_device = {
    .name = "fake",
    .alloc = nan_alloc,
    .alloc_managed = nan_alloc,
    .release = nan_release,
    .to_device = copy_to,
    .to_host = copy_to,
    .barrier = no_wait,
    .device_copy = copy_to,
};

#endif /* NAN_DEVICE_H */
