/* pool.c: the pool of device blocks that the temporaries of generated stencils
 * (gt__device_temporary) take and give back, so that a stencil called in a loop allocates
 * its device temporaries once rather than at every call (cudaMalloc and cudaFree are slow
 * and synchronise the device). The host temporaries (gt__temporary) take their blocks from
 * it too, through the host "layer" gt__host_pool_ops: a fresh block of many megabytes is
 * mapped, faulted in and zeroed by the kernel page by page at every call (a third of the
 * time of a stencil with two such temporaries, bench_vertical's before, on the development
 * machine).
 *
 * Requests are rounded up to a size class: 256 bytes and up, four classes per power of two
 * (2^k, 1.25, 1.5 and 1.75 times 2^k), so a block is at most 25% larger than asked. A block
 * is allocated with GT__POOL_ALIGN - 1 bytes more than its class and handed out from its
 * first 256-byte boundary. A request takes the smallest free block of the same device layer
 * whose class is at least its own and at most twice it (best fit by class); only when there
 * is none does it allocate (a block whose class exceeds the cap, which could never be kept,
 * at the size asked: tests/diff's fake device sets a cap of 1 byte so that every temporary
 * is a fresh block bounded exactly, for the SIMT emulator's bounds check). A block given back is kept while the free blocks stay within the
 * cap (GT__POOL_CAP, 512 MiB), else freed at once; gt__pool_trim frees every free block, and
 * runs at exit. The free list is short (the temporaries of a few stencils), a linked list of
 * host records searched in full, behind a spin lock: stencil calls on different threads take
 * and give back blocks concurrently, and the lock is never held across a device call. */
#include <stdatomic.h>
#include <stdlib.h>

#include "rt.h"

typedef struct block {
    struct block *next;
    const gt__device_ops *ops; /* the device layer that allocated it */
    void *raw;                 /* what ops->release frees */
    size_t bytes;              /* its size class: usable bytes from its aligned start */
} block;

/* host blocks (gt__temporary's storages): plain memory with huge pages advised, as a host
   buffer of storage.c has; kept, their pages stay mapped and faulted in for the next call */
static int host_alloc(void **out, size_t nbytes)
{
    *out = gt__malloc(nbytes);
    if (!*out)
        return 1;
    gt__advise_huge(*out, nbytes);
    return 0;
}

static void host_release(void *p)
{
    gt__free(p);
}

const gt__device_ops gt__host_pool_ops = {.name = "host", .alloc = host_alloc,
                                          .release = host_release};

static atomic_flag lock = ATOMIC_FLAG_INIT;
static block *free_list;       /* free blocks, under lock */
static size_t free_bytes;      /* their bytes, under lock */
static size_t cap = GT__POOL_CAP;
static atomic_flag exit_hook = ATOMIC_FLAG_INIT;

static void take_lock(void)
{
    while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
        ;
}

static void drop_lock(void)
{
    atomic_flag_clear_explicit(&lock, memory_order_release);
}

/* The class of n bytes: the smallest of 256 and c * 2^k / 4 (c = 4..7) that is >= n. (Buffers
   are below 2^60 bytes, storage.c: no overflow.) */
static size_t size_class(size_t n)
{
    if (n <= 256)
        return 256;
    size_t p = 256;
    while (p <= n / 2)
        p *= 2; /* p <= n < 2p */
    for (size_t c = 4; c <= 8; c++)
        if (p / 4 * c >= n)
            return p / 4 * c;
    return 0;
}

static void *aligned_start(void *raw)
{
    uintptr_t r = (uintptr_t)raw;
    return (void *)((r + GT__POOL_ALIGN - 1) / GT__POOL_ALIGN * GT__POOL_ALIGN);
}

static void free_blocks(block *b)
{
    while (b) {
        block *next = b->next;
        b->ops->release(b->raw);
        gt__free(b);
        b = next;
    }
}

/* Detaches free blocks beyond the cap (oldest first: those at the list's end) under the lock,
   and returns them to be freed outside it. */
static block *over_cap(void)
{
    block *out = NULL, **link = &free_list;
    size_t kept = 0;
    while (*link) {
        block *b = *link;
        if (kept + b->bytes <= cap) {
            kept += b->bytes;
            link = &b->next;
        } else {
            *link = b->next;
            free_bytes -= b->bytes;
            b->next = out;
            out = b;
        }
    }
    return out;
}

void *gt__pool_get(const gt__device_ops *ops, size_t nbytes, void **raw, size_t *bytes,
                   int *err)
{
    size_t want = size_class(nbytes);
    *err = 0;
    *raw = NULL;
    *bytes = 0;
    take_lock();
    block **best = NULL;
    for (block **link = &free_list; *link; link = &(*link)->next) {
        block *b = *link;
        if (b->ops == ops && b->bytes >= want && b->bytes / 2 <= want &&
            (!best || b->bytes < (*best)->bytes))
            best = link;
    }
    block *b = best ? *best : NULL;
    if (b) {
        *best = b->next;
        free_bytes -= b->bytes;
    }
    int keepable = want <= cap;
    drop_lock();
    if (b) {
        *raw = b->raw;
        *bytes = b->bytes;
        gt__free(b);
        return aligned_start(*raw);
    }
    if (!keepable) { /* never kept: the size asked, as ops->alloc aligns it */
        *err = ops->alloc(raw, nbytes);
        if (*err)
            return *raw = NULL;
        *bytes = nbytes;
        return *raw;
    }
    *err = ops->alloc(raw, want + GT__POOL_ALIGN - 1);
    if (*err)
        return *raw = NULL;
    *bytes = want;
    return aligned_start(*raw);
}

static void at_exit(void)
{
    gt__pool_trim();
}

void gt__pool_put(const gt__device_ops *ops, void *raw, size_t bytes)
{
    block *b = gt__malloc(sizeof *b);
    if (!b) { /* no record for it: not kept */
        ops->release(raw);
        return;
    }
    *b = (block){NULL, ops, raw, bytes};
    if (!atomic_flag_test_and_set(&exit_hook))
        atexit(at_exit);
    take_lock();
    b->next = free_list;
    free_list = b;
    free_bytes += bytes;
    block *drop = free_bytes > cap ? over_cap() : NULL;
    drop_lock();
    free_blocks(drop);
}

size_t gt__pool_trim(void)
{
    take_lock();
    block *all = free_list;
    size_t n = free_bytes;
    free_list = NULL;
    free_bytes = 0;
    drop_lock();
    free_blocks(all);
    return n;
}

void gt__pool_set_cap(size_t bytes)
{
    take_lock();
    cap = bytes ? bytes : GT__POOL_CAP;
    block *drop = over_cap();
    drop_lock();
    free_blocks(drop);
}

size_t gt__pool_free_bytes(size_t *nblocks)
{
    take_lock();
    size_t n = 0, total = free_bytes;
    for (block *b = free_list; b; b = b->next)
        n++;
    drop_lock();
    if (nblocks)
        *nblocks = n;
    return total;
}
