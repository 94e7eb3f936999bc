/* alloc.c: the runtime's host allocations (storage and buffer records, host data) all go
 * through one replaceable allocator, so that tests can make the n-th allocation fail and
 * prove that every creating function then fails cleanly. */
#include <stdlib.h>

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
