/* check_rt_alloc.c: every creating function (gt_empty, gt_zeros, gt_ones, gt_full, gt_wrap,
 * gt_copy, gt_domain_view) fails cleanly at each of its allocation points: an allocator
 * installed with gt__set_allocator makes the n-th allocation fail, for n = 0, 1, ... until
 * the call succeeds; every failure must give NULL and GT_ENOMEM, leak nothing (live block
 * count back where it was) and change nothing (reference counts and data of the source).
 * The same loop runs over storages with halos, alignment and views. */
#define _DEFAULT_SOURCE 1 /* MADV_HUGEPAGE */
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#include "rt.h"

static long live;    /* blocks allocated and not yet freed */
static long calls;   /* allocation calls so far */
static long fail_at; /* the call number that fails (-1: none) */

static void *test_alloc(size_t n, void *ctx)
{
    (void)ctx;
    if (calls++ == fail_at)
        return NULL;
    void *p = malloc(n ? n : 1);
    if (p)
        live++;
    return p;
}

static void test_release(void *p, void *ctx)
{
    (void)ctx;
    live--;
    free(p);
}

static void setup(void)
{
    static const gt__allocator a = {test_alloc, test_release, NULL};
    live = calls = 0;
    fail_at = -1;
    gt__set_allocator(&a);
}

static void teardown(void)
{
    gt__set_allocator(NULL);
}

/* What the loop calls: one creating call on a fixed source. */
typedef gt_storage *(*creator)(gt_storage *src, void *data);

static gt_storage *make_empty(gt_storage *src, void *data)
{
    (void)src, (void)data;
    int64_t shape[3] = {5, 6, 7};
    gt_storage_opts o = {0};
    o.alignment = 8;
    o.halo[0][0] = o.halo[0][1] = 2;
    return gt_empty(GT_FLOAT64, "IJK", shape, &o);
}

static gt_storage *make_zeros(gt_storage *src, void *data)
{
    (void)src, (void)data;
    int64_t shape[2] = {5, 6};
    return gt_zeros(GT_FLOAT32, "JI", shape, NULL);
}

static gt_storage *make_ones(gt_storage *src, void *data)
{
    (void)src, (void)data;
    int64_t shape[1] = {9};
    gt_storage_opts o = {0};
    o.defaults = "F";
    return gt_ones(GT_INT32, "K", shape, &o);
}

static gt_storage *make_full(gt_storage *src, void *data)
{
    (void)src, (void)data;
    int64_t shape[3] = {3, 3, 3};
    return gt_full(GT_BOOL, "KIJ", shape, 1, NULL);
}

static gt_storage *make_wrap(gt_storage *src, void *data)
{
    (void)src;
    int64_t shape[2] = {4, 4};
    return gt_wrap(data, GT_FLOAT64, "IJ", shape, NULL, NULL);
}

static gt_storage *make_copy(gt_storage *src, void *data)
{
    (void)data;
    return gt_copy(src);
}

static gt_storage *make_view(gt_storage *src, void *data)
{
    (void)data;
    return gt_domain_view(src);
}

/* Sum of the bytes of s's elements: "nothing changed" for the source. */
static unsigned long checksum(gt_storage *s)
{
    if (!s)
        return 0;
    const unsigned char *p = gt_host(s, GT_READ);
    uintptr_t lo, hi;
    gt__byte_range(s, &lo, &hi);
    unsigned long sum = 0;
    for (uintptr_t a = lo; a < hi; a++)
        sum = sum * 31 + p[a - lo];
    return sum;
}

/* Runs c with the n-th allocation failing for n = 0, 1, ... and returns the number of
   allocation points it found (calls that failed cleanly). */
static int sweep(creator c, gt_storage *src, void *data, const char *fn)
{
    int points = 0;
    for (long n = 0; n < 100; n++) {
        long live0 = live;
        int refs = src ? gt__refcount(src) : 0, brefs = src ? gt__buffer_refcount(src) : 0;
        unsigned long sum = checksum(src);
        fail_at = calls + n;
        gt_storage *s = c(src, data);
        fail_at = -1;
        if (s) {
            ck_assert_int_eq(points, n); /* the first success follows the last failure */
            gt_release(s);
            ck_assert_int_eq(live, live0);
            return points;
        }
        points++;
        ck_assert_int_eq(gt_last_error_code(), GT_ENOMEM);
        ck_assert_msg(strstr(gt_last_error(), fn), "\"%s\" lacks \"%s\"", gt_last_error(), fn);
        ck_assert_msg(strstr(gt_last_error(), "out of memory"), "%s", gt_last_error());
        ck_assert_int_eq(live, live0); /* nothing leaked */
        if (src) {                     /* nothing changed */
            ck_assert_int_eq(gt__refcount(src), refs);
            ck_assert_int_eq(gt__buffer_refcount(src), brefs);
            ck_assert_uint_eq(checksum(src), sum);
        }
    }
    ck_abort_msg("%s never succeeded", fn);
    return -1;
}

START_TEST(fail_creators)
{
    ck_assert_int_eq(sweep(make_empty, NULL, NULL, "gt_empty"), 3);
    ck_assert_int_eq(sweep(make_zeros, NULL, NULL, "gt_zeros"), 3);
    ck_assert_int_eq(sweep(make_ones, NULL, NULL, "gt_ones"), 3);
    ck_assert_int_eq(sweep(make_full, NULL, NULL, "gt_full"), 3);
    double buf[16] = {0};
    ck_assert_int_eq(sweep(make_wrap, NULL, buf, "gt_wrap"), 2);
    ck_assert_int_eq(live, 0);
}
END_TEST

/* The message names the storage as every other message does, AXES DTYPE (SHAPE), one size
   per axis, and the bytes asked for: whichever of its allocations failed. */
START_TEST(fail_message)
{
    for (long n = 0; n < 3; n++) {
        fail_at = calls + n;
        ck_assert_ptr_null(make_zeros(NULL, NULL));
        fail_at = -1;
        ck_assert_int_eq(gt_last_error_code(), GT_ENOMEM);
        ck_assert_msg(strstr(gt_last_error(), "gt_zeros: out of memory allocating storage "
                                              "JI float32 (5,6) ("), "%s", gt_last_error());
    }
    ck_assert_int_eq(live, 0);
}
END_TEST

/* gt_copy and gt_domain_view on sources of every kind: fresh, aligned with halo, a view, a
   wrapped buffer. */
START_TEST(fail_derived)
{
    int64_t shape[3] = {6, 5, 4};
    gt_storage_opts o = {0};
    o.halo[1][0] = 1, o.halo[1][1] = 2;
    o.alignment = 4;
    o.defaults = (_i & 1) ? "F" : "C";
    gt_storage *src = gt_full(GT_FLOAT64, "IJK", shape, 3.5, &o);
    static double wrapped[6 * 5 * 4];
    for (int k = 0; k < 6 * 5 * 4; k++)
        wrapped[k] = k;
    gt_storage_opts wo = o;
    wo.alignment = 0; /* a static array: no alignment to claim */
    gt_storage *w = gt_wrap(wrapped, GT_FLOAT64, "IJK", shape, NULL, &wo);
    gt_storage *v = gt_domain_view(src);
    ck_assert(src && w && v);
    gt_storage *sources[] = {src, w, v};
    for (int k = 0; k < 3; k++) {
        ck_assert_int_eq(sweep(make_copy, sources[k], NULL, "gt_copy"), 3);
        ck_assert_int_eq(sweep(make_view, sources[k], NULL, "gt_domain_view"), 1);
    }
    gt_release(v);
    gt_release(w);
    gt_release(src);
    ck_assert_int_eq(live, 0);
}
END_TEST

/* Failures that are not ENOMEM leave nothing allocated either. */
START_TEST(no_leak_on_invalid)
{
    int64_t shape[3] = {4, 4, -4};
    ck_assert_ptr_null(gt_zeros(GT_FLOAT64, "IJK", shape, NULL));
    int64_t ok[3] = {4, 4, 4};
    gt_storage_opts o = {0};
    o.device = GT_CUDA;
    ck_assert_ptr_null(gt_zeros(GT_FLOAT64, "IJK", ok, &o));
    ck_assert_int_eq(gt_last_error_code(), GT_EDEVICE);
    ck_assert_ptr_null(gt_full(GT_INT32, "IJK", ok, 0.5, NULL));
    ck_assert_int_eq(live, 0);
    ck_assert_int_eq(calls, 0); /* validation comes before any allocation */
}
END_TEST

/* The VmFlags of the mapping of this process that holds address a, from /proc/self/smaps,
 * into flags (empty if there is none); false if smaps cannot be read. */
static bool vmflags_of(uintptr_t a, char *flags, size_t size)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return false;
    char line[512];
    bool inside = false;
    flags[0] = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char dash;
        if (sscanf(line, "%lx%c%lx ", &lo, &dash, &hi) == 3 && dash == '-')
            inside = a >= lo && a < hi;
        else if (inside && !strncmp(line, "VmFlags:", 8)) {
            snprintf(flags, size, "%s", line + 8);
            break;
        }
    }
    fclose(f);
    return true;
}

/* A host block of at least GT__HUGE_MIN bytes is advised into transparent huge pages (the
 * 'hg' VmFlag on the 2 MiB pages inside it, Linux); a smaller one is not. */
START_TEST(huge_pages)
{
    gt_storage *big = gt_empty(GT_FLOAT64, "IJ", (int64_t[]){1024, 1024}, NULL);   /* 8 MiB */
    gt_storage *small = gt_empty(GT_FLOAT64, "IJ", (int64_t[]){256, 256}, NULL);   /* 512 KiB */
    ck_assert_ptr_nonnull(big);
    ck_assert_ptr_nonnull(small);
    uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t in_big = (((uintptr_t)gt_host(big, GT_READ) + huge - 1) & ~(huge - 1)) + huge / 2;
    char flags[512];
    if (!vmflags_of(in_big, flags, sizeof flags)) {
        fprintf(stderr, "rt_alloc: huge_pages: /proc/self/smaps unreadable, not checked\n");
    } else {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        ck_assert_msg(strstr(flags, " hg") != NULL, "no hg flag: %s", flags);
        ck_assert(vmflags_of((uintptr_t)gt_host(small, GT_READ), flags, sizeof flags));
        ck_assert_msg(strstr(flags, " hg") == NULL, "small block advised: %s", flags);
#endif
    }
    gt_release(big);
    gt_release(small);
}
END_TEST

Suite *suite_rt_alloc(void); /* collected by tests/unit/main.c */

Suite *suite_rt_alloc(void)
{
    Suite *s = suite_create("rt_alloc");
    TCase *t = tcase_create("alloc");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, fail_creators);
    tcase_add_test(t, fail_message);
    tcase_add_loop_test(t, fail_derived, 0, 2);
    tcase_add_test(t, no_leak_on_invalid);
    suite_add_tcase(s, t);
    TCase *h = tcase_create("huge");
    tcase_add_test(h, huge_pages);
    suite_add_tcase(s, h);
    return s;
}
