/* blocks.c: the cache blocks of the openmp backend's parallel loops (gt__blocks), sized at
 * run time from the caches of the machine the code runs on (docs/internals.md, "3-D
 * blocks").
 *
 * A group of kernels that reads fields at K offsets reuses the planes k-1, k, k+1 of those
 * fields from one level to the next. Walking the levels one after the other (each thread a
 * run of levels, rows in blocks of bj) streams memory in long runs, which the hardware
 * prefetchers like best, and reads each plane once from memory as long as the planes a
 * thread keeps live fit in its share of the caches. When they do not, the levels are
 * streamed through slabs of bj rows sized to fit that share: each thread walks every level
 * of its slab before the next one. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rt.h"

/* Bytes of one cache level of cpu 0 from sysfs ("1024K"), or 0. */
static int64_t sysfs_cache(int level)
{
    for (int index = 0; index < 8; index++) {
        char path[96], buf[32];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", index);
        FILE *f = fopen(path, "r");
        if (!f)
            return 0;
        int lv = 0;
        int ok = fscanf(f, "%d", &lv) == 1;
        fclose(f);
        if (!ok || lv != level)
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", index);
        f = fopen(path, "r");
        if (f) {
            ok = fgets(buf, sizeof buf, f) != NULL;
            fclose(f);
            if (ok && buf[0] == 'I')     /* "Instruction" */
                continue;
        }
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
        f = fopen(path, "r");
        if (!f)
            return 0;
        long long v = 0;
        char unit = 0;
        int got = fscanf(f, "%lld%c", &v, &unit);
        fclose(f);
        if (got < 1 || v <= 0)
            return 0;
        if (got == 2 && (unit == 'K' || unit == 'k'))
            v *= 1024;
        else if (got == 2 && (unit == 'M' || unit == 'm'))
            v *= 1024 * 1024;
        return (int64_t)v;
    }
    return 0;
}

static int64_t cache_level(int level)
{
    int64_t v = sysfs_cache(level);
#if defined(_SC_LEVEL2_CACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
    /* sysconf second: some virtual machines report an L3 of the whole host there */
    if (v <= 0) {
        long s = sysconf(level == 2 ? _SC_LEVEL2_CACHE_SIZE : _SC_LEVEL3_CACHE_SIZE);
        v = s > 0 ? (int64_t)s : 0;
    }
#endif
    return v;
}

/* GT_CACHE_BYTES (a positive number of bytes) replaces what the machine says: the
 * tests force the streaming order with it. */
static void cache_bytes(int64_t *l2_out, int64_t *l3_out)
{
    static _Atomic int64_t l2 = -1, l3 = -1;
    int64_t a = atomic_load_explicit(&l2, memory_order_relaxed);
    int64_t b = atomic_load_explicit(&l3, memory_order_relaxed);
    if (a < 0 || b < 0) {
        a = cache_level(2);
        b = cache_level(3);
        if (a <= 0)
            a = 512 * 1024;     /* unknown: a small L2 and no L3 */
        atomic_store_explicit(&l2, a, memory_order_relaxed);
        atomic_store_explicit(&l3, b, memory_order_relaxed);
    }
    *l2_out = a;
    *l3_out = b;
}

void gt__cache_sizes(int64_t *l2, int64_t *l3)
{
    cache_bytes(l2, l3);
}

void gt__blocks(int64_t nk, int64_t nj, int64_t ni, int64_t kbytes, int nthreads,
                int64_t *bk_out, int64_t *bj_out)
{
    if (nthreads < 1)
        nthreads = 1;
    if (nk < 1)
        nk = 1;
    if (nj < 1)
        nj = 1;
    if (ni < 1)
        ni = 1;
    int64_t l2, l3;
    cache_bytes(&l2, &l3);
    int64_t share = l2 + l3 / nthreads;
    const char *env = getenv("GT_CACHE_BYTES");
    if (env && *env >= '0' && *env <= '9') {  /* digits only: strtoll alone took " 4" and
                                                 "+4", and saturated 99999999999999999999 */
        char *end;
        errno = 0;
        long long v = strtoll(env, &end, 10);
        if (*end == '\0' && errno == 0 && v > 0)
            share = (int64_t)v;
    }
    /* half the share for the planes kept live: the rest holds what streams past them */
    int64_t budget = share / 2;
    if (kbytes <= 0 || nk == 1 || ni * nj <= budget / kbytes) {
        /* level by level: rows in blocks of 64, fewer while the blocks are too few to give
         * every thread 8 */
        int64_t bj = 64;
        while (bj > 1 && nk * ((nj + bj - 1) / bj) < 8 * (int64_t)nthreads)
            bj /= 2;
        *bk_out = 1;
        *bj_out = bj;
        return;
    }
    /* slabs: as many rows as fit the budget, and no more than a thread's share of rows */
    int64_t bj = budget / (ni * kbytes);
    int64_t most = (nj + nthreads - 1) / nthreads;
    if (bj > most)
        bj = most;
    if (bj < 1)
        bj = 1;
    *bk_out = nk;
    *bj_out = bj;
}
