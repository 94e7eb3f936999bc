/* alloc.c: the runtime's host allocations (storage and buffer records, host data) all go
 * through one replaceable allocator, so that tests can make the n-th allocation fail and
 * prove that every creating function then fails cleanly. Large host blocks are advised
 * into transparent huge pages. */
#define _DEFAULT_SOURCE 1 /* madvise */
#include <stdint.h>
#include <stdlib.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#include "rt.h"

static void *libc_alloc(size_t nbytes, void *ctx)
{
    (void)ctx;
    return malloc(nbytes ? nbytes : 1);
}

static void libc_release(void *p, void *ctx)
{
    (void)ctx;
    free(p);
}

static const gt__allocator libc_allocator = {libc_alloc, libc_release, NULL};
static gt__allocator current = {libc_alloc, libc_release, NULL};

void gt__set_allocator(const gt__allocator *a)
{
    current = a ? *a : libc_allocator;
}

void *gt__malloc(size_t nbytes)
{
    return current.alloc(nbytes, current.ctx);
}

void gt__free(void *p)
{
    if (p)
        current.release(p, current.ctx);
}

void gt__advise_huge(void *p, size_t nbytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (nbytes < GT__HUGE_MIN)
        return;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t hi = ((uintptr_t)p + nbytes) & ~(huge - 1);
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);   /* advice: failure is harmless */
#else
    (void)p, (void)nbytes;
#endif
}
