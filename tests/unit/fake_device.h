/* fake_device.h: the fake device of the runtime's unit tests (check_rt_device.c,
 * check_rt_transfer.c), installed with gt__set_device_ops: device memory is host memory
 * (malloc), so tests read what a "kernel" or a transfer left there directly.
 *
 * Its streams are hostile to a transfer engine that forgets a wait: an asynchronous copy is
 * only queued, and runs when its stream is waited for (FAKE_DEFER), or at a random later
 * point of the test's calls into the fake, in each stream's order (FAKE_RANDOM); FAKE_NOW
 * runs it at once. Pinned staging buffers start filled with 0xff bytes and are filled with
 * 0xa5 before being freed. So a staging buffer refilled before the copy queued from it ran
 * sends the later chunk's data; a chunk unpacked before its copy ran unpacks 0xff bytes; a
 * copy never waited for never runs; and the test sees wrong numbers. A copy still queued
 * when its stream is destroyed, or when a pinned buffer it uses is freed, is counted in
 * fake.lost (and dropped); a queued copy whose host side is not inside a pinned buffer in
 * fake.unpinned. Every function here is static: each test file uses the whole fake. */
#ifndef FAKE_DEVICE_H
#define FAKE_DEVICE_H

#include <stdlib.h>
#include <string.h>

#include "rt.h"

enum { FAKE_NOW, FAKE_DEFER, FAKE_RANDOM };

typedef struct {
    void *dst;
    const void *src;
    size_t dpitch, spitch, width, height;
} fake_copy;

typedef struct {
    int id;          /* creation order, from 0 */
    fake_copy *q;    /* queued copies, oldest first */
    int n, cap;
} fake_stream;

#define FAKE_MAX_PINNED 8
#define FAKE_MAX_STREAMS 8

static struct {
    int live;         /* device blocks allocated */
    int managed_live; /* of which unified */
    int allocs;       /* device allocations (alloc and alloc_managed calls that succeeded) */
    int uploads, downloads, barriers;
    int fail_alloc, fail_up, fail_down, fail_barrier; /* next call of that kind fails */
    /* streams */
    int mode;                       /* FAKE_NOW, FAKE_DEFER, FAKE_RANDOM */
    unsigned long long rng;         /* FAKE_RANDOM's choices */
    int pinned_allocs, pinned_live;
    int streams_created, streams_live;
    int async_copies, async_rows;   /* copy_async calls, and rows (height) they moved */
    int copies_on[FAKE_MAX_STREAMS];/* copy_async calls per stream id */
    int waits;
    int lost, unpinned;             /* engine errors the fake caught (see above) */
    int fail_pinned, fail_wait;     /* next call of that kind fails */
    int fail_stream, fail_async;    /* the n-th call of that kind from now fails (1: the next) */
    struct { unsigned char *p; size_t n; } pinned[FAKE_MAX_PINNED];
    fake_stream *streams[FAKE_MAX_STREAMS];
} fake;

static int fake_alloc(void **out, size_t n)
{
    if (fake.fail_alloc) {
        fake.fail_alloc = 0;
        return 2;
    }
    *out = malloc(n ? n : 1);
    fake.live++;
    fake.allocs++;
    return *out ? 0 : 2;
}

static int fake_alloc_managed(void **out, size_t n)
{
    int rc = fake_alloc(out, n);
    fake.managed_live += rc == 0;
    return rc;
}

static void fake_release(void *p)
{
    fake.live--;
    free(p);
}

static int fake_up(void *dst, const void *src, size_t n)
{
    if (fake.fail_up) {
        fake.fail_up = 0;
        return 700;
    }
    memcpy(dst, src, n);
    fake.uploads++;
    return 0;
}

static int fake_down(void *dst, const void *src, size_t n)
{
    if (fake.fail_down) {
        fake.fail_down = 0;
        return 700;
    }
    memcpy(dst, src, n);
    fake.downloads++;
    return 0;
}

static int fake_barrier(void)
{
    if (fake.fail_barrier) {
        fake.fail_barrier = 0;
        return 4;
    }
    fake.barriers++;
    return 0;
}

static const char *fake_error_string(int err)
{
    return err == 2 ? "out of device memory" : err == 700 ? "illegal address" : NULL;
}

/* ---- streams ----------------------------------------------------------------------------- */

static unsigned long long fake_random(void)
{
    fake.rng ^= fake.rng << 13;
    fake.rng ^= fake.rng >> 7;
    fake.rng ^= fake.rng << 17;
    return fake.rng;
}

static void fake_run_one(fake_stream *s)
{
    fake_copy c = s->q[0];
    for (size_t r = 0; r < c.height; r++)
        memcpy((unsigned char *)c.dst + r * c.dpitch, (const unsigned char *)c.src + r * c.spitch,
               c.width);
    memmove(s->q, s->q + 1, (size_t)(--s->n) * sizeof s->q[0]);
}

/* FAKE_RANDOM: runs some queued copies (oldest first in each stream) of random streams. */
static void fake_progress(void)
{
    if (fake.mode != FAKE_RANDOM)
        return;
    int steps = (int)(fake_random() % 3);
    for (int k = 0; k < steps; k++) {
        fake_stream *s = fake.streams[fake_random() % FAKE_MAX_STREAMS];
        if (s && s->n)
            fake_run_one(s);
    }
}

static int fake_is_pinned(const void *p, size_t n)
{
    const unsigned char *c = p;
    for (int k = 0; k < FAKE_MAX_PINNED; k++)
        if (fake.pinned[k].p && c >= fake.pinned[k].p &&
            c + n <= fake.pinned[k].p + fake.pinned[k].n)
            return 1;
    return 0;
}

static int fake_alloc_pinned(void **out, size_t n)
{
    fake_progress();
    if (fake.fail_pinned) {
        fake.fail_pinned = 0;
        return 2;
    }
    for (int k = 0; k < FAKE_MAX_PINNED; k++)
        if (!fake.pinned[k].p) {
            fake.pinned[k].p = malloc(n);
            fake.pinned[k].n = n;
            memset(fake.pinned[k].p, 0xff, n);
            *out = fake.pinned[k].p;
            fake.pinned_allocs++;
            fake.pinned_live++;
            return 0;
        }
    return 2;
}

/* Drops (and counts in fake.lost) the queued copies whose host side lies in [p, p + n). */
static void fake_drop_copies_into(const unsigned char *p, size_t n)
{
    for (int k = 0; k < FAKE_MAX_STREAMS; k++) {
        fake_stream *s = fake.streams[k];
        for (int i = 0; s && i < s->n; i++) {
            const unsigned char *a = s->q[i].dst, *b = s->q[i].src;
            if ((a >= p && a < p + n) || (b >= p && b < p + n)) {
                fake.lost++;
                memmove(s->q + i, s->q + i + 1, (size_t)(s->n - i - 1) * sizeof s->q[0]);
                s->n--, i--;
            }
        }
    }
}

static void fake_release_pinned(void *p)
{
    for (int k = 0; k < FAKE_MAX_PINNED; k++)
        if (fake.pinned[k].p == p) {
            fake_drop_copies_into(p, fake.pinned[k].n);
            memset(p, 0xa5, fake.pinned[k].n);
            free(p);
            fake.pinned[k].p = NULL;
            fake.pinned_live--;
            return;
        }
    fake.lost++; /* not a pinned buffer */
}

static int fake_stream_create(void **out)
{
    if (fake.fail_stream && --fake.fail_stream == 0)
        return 2;
    for (int k = 0; k < FAKE_MAX_STREAMS; k++)
        if (!fake.streams[k]) {
            fake_stream *s = calloc(1, sizeof *s);
            s->id = fake.streams_created++ % FAKE_MAX_STREAMS;
            fake.streams[k] = s;
            fake.streams_live++;
            *out = s;
            return 0;
        }
    return 2;
}

static void fake_stream_destroy(void *stream)
{
    fake_stream *s = stream;
    fake.lost += s->n; /* copies that never ran */
    for (int k = 0; k < FAKE_MAX_STREAMS; k++)
        if (fake.streams[k] == s)
            fake.streams[k] = NULL;
    free(s->q);
    free(s);
    fake.streams_live--;
}

static int fake_copy_async(void *dst, size_t dpitch, const void *src, size_t spitch,
                           size_t width, size_t height, int to_device, void *stream)
{
    fake_stream *s = stream;
    fake_progress();
    if (fake.fail_async && --fake.fail_async == 0)
        return 700;
    const void *host = to_device ? src : dst;
    size_t hpitch = to_device ? spitch : dpitch;
    if (!fake_is_pinned(host, (height - 1) * hpitch + width))
        fake.unpinned++;
    fake.async_copies++;
    fake.async_rows += (int)height;
    fake.copies_on[s->id]++;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->q = realloc(s->q, (size_t)s->cap * sizeof s->q[0]);
    }
    s->q[s->n++] = (fake_copy){dst, src, dpitch, spitch, width, height};
    if (fake.mode == FAKE_NOW)
        fake_run_one(s);
    return 0;
}

static int fake_stream_wait(void *stream)
{
    fake_stream *s = stream;
    fake_progress();
    fake.waits++;
    if (fake.fail_wait) {
        fake.fail_wait = 0;
        return 700;
    }
    while (s->n)
        fake_run_one(s);
    return 0;
}

static const gt__device_ops fake_ops = {
    .name = "fake",
    .alloc = fake_alloc,
    .alloc_managed = fake_alloc_managed,
    .release = fake_release,
    .to_device = fake_up,
    .to_host = fake_down,
    .barrier = fake_barrier,
    .error_string = fake_error_string,
    .alloc_pinned = fake_alloc_pinned,
    .release_pinned = fake_release_pinned,
    .stream_create = fake_stream_create,
    .stream_destroy = fake_stream_destroy,
    .copy_async = fake_copy_async,
    .stream_wait = fake_stream_wait,
};

/* Fresh counters, fake_ops installed, nothing kept from an earlier test. */
static void fake_setup(void)
{
    gt__transfer_trim();
    gt__pool_trim();
    memset(&fake, 0, sizeof fake);
    fake.rng = 0x9e3779b97f4a7c15ull;
    gt__set_device_ops(&fake_ops);
}

static void fake_teardown(void)
{
    gt__transfer_trim();
    gt__pool_trim();
    gt__set_staging_bytes(0);
    gt__set_device_ops(NULL);
}

#endif /* FAKE_DEVICE_H */
