/* check_rt_klevels.c: the runtime side of reads at run-time K levels (runtime/src/place.c,
 * gt/gt_generated.h; language.md 5.7): when the up-front check of levels of inputs runs
 * (gt__levels_now: a single process, a distributed call's checking call unless the check
 * reads a halo the exchange fills, its level check; never a part), the check of a level
 * as it is read (gt_klevel: the level, or the nearest one the storage holds, the failure
 * recorded and the while loop's flag cleared) and the order in which the first failure is
 * kept (gt__kfail_note: phase, level order, read, j, i; the first of equal keys), and the
 * outputs a stencil keeps (gt__keep): a single process's host boxes put back only when the
 * call fails, the storage's bytes on the device (with the device layer's device_copy and,
 * without one, through the host), and a distributed call's outputs and out scalars kept by
 * its checking call only (the MPI layer's hooks, runtime/src/mpi/call.c) and put back by
 * gt__mpi_call_end. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fake_device.h"
#include "mpi/call.h"
#include "rt.h"

/* f(u, v, w): u an input, v and w outputs */
static const gt_field_info fields[3] = {
    {"u", "IJK", GT_FLOAT64, 0, {{0, 0}, {0, 0}, {0, 0}}, {{0, 0}, {0, 0}, {0, 0}}, {0, 0, 0}},
    {"v", "IJK", GT_FLOAT64, 1, {{0, 0}, {0, 0}, {0, 0}}, {{0, 0}, {0, 0}, {0, 0}}, {0, 0, 0}},
    {"w", "IJK", GT_INT32, 1, {{0, 0}, {0, 0}, {0, 0}}, {{0, 0}, {0, 0}, {0, 0}}, {0, 0, 0}},
};
static const gt_stencil_info info = {"f", 3, fields};

START_TEST(levels_now)
{
    gt_place single = {{0, 0}, {0, 0}, {7, 5}, {1, 1}, NULL};
    const int64_t none[4] = {0, 0, 0, 0}, below_i[4] = {1, 0, 0, 0}, above_j[4] = {0, 0, 0, 2};
    ck_assert_int_eq(gt__levels_now(&single, 0, below_i), 1);
    /* the box's lower I side internal, its upper J side a global edge */
    gt__mpi_call w;
    gt__mpi_call_init(&w, 0, 0, NULL, NULL, NULL);
    w.place.inner[0][0] = w.place.inner[0][1] = w.place.inner[1][0] = 1;
    gt_place part = single;
    part.distributed = &w.place;
    ck_assert_int_eq(gt__levels_now(&part, 0, none), 0);    /* a part: checked before */
    ck_assert_int_eq(gt__levels_now(&part, 2, below_i), 1); /* the check after the exchange */
    ck_assert_int_eq(w.levels, 0);
    ck_assert_int_eq(gt__levels_now(&part, 1, none), 1);
    ck_assert_int_eq(w.levels, 1);
    ck_assert_int_eq(gt__levels_now(&part, 1, above_j), 1); /* nothing exchanged there */
    ck_assert_int_eq(w.levels, 1);
    ck_assert_int_eq(gt__levels_now(&part, 1, below_i), 0); /* a stale halo: after it */
    ck_assert_int_eq(w.levels, 2);
}
END_TEST

START_TEST(klevel_checks_and_orders)
{
    gt_kfail f;
    gt__kfail_init(&f);
    ck_assert(f.key[0] == INT64_MAX);
    const int64_t lv[2] = {-1, 5};   /* levels -1 to 4 */
    bool go = true;
    ck_assert_int_eq(gt_klevel(-1, lv, &f, 3, 1, 0, 0, 0, 0, &go), -1);
    ck_assert_int_eq(gt_klevel(4, lv, &f, 3, 1, 0, 0, 0, 0, &go), 4);
    ck_assert(go && f.key[0] == INT64_MAX);
    /* outside: the nearest level held, recorded, the loop's flag cleared */
    ck_assert_int_eq(gt_klevel(9, lv, &f, 3, 1, 4, 2, 1, 6, &go), 4);
    ck_assert(!go);
    ck_assert_int_eq(f.key[0], 3);
    ck_assert_int_eq(f.level, 9);
    ck_assert_int_eq(f.k, 6);
    ck_assert_int_eq(gt_klevel(-1000000, lv, &f, 3, 1, 4, 2, 1, 6, NULL), -1);
    ck_assert_int_eq(f.level, 9);   /* the same key: the first stays */
    /* an earlier phase, then a lower level, then an earlier read, j, i: each wins */
    gt__kfail_note(&f, 2, 8, 9, 9, 9, 8, 20);
    ck_assert_int_eq(f.level, 20);
    gt__kfail_note(&f, 2, 7, 9, 9, 9, 7, 21);
    ck_assert_int_eq(f.level, 21);
    gt__kfail_note(&f, 2, 7, 8, 9, 9, 7, 22);
    ck_assert_int_eq(f.read, 8);
    gt__kfail_note(&f, 2, 7, 8, 0, 8, 7, 23);   /* j 8 before j 9, whatever i */
    ck_assert_int_eq(f.level, 23);
    gt__kfail_note(&f, 2, 7, 8, 5, 8, 7, 24);   /* i 5 after i 0 */
    ck_assert_int_eq(f.level, 23);
    gt__kfail_note(&f, 2, 7, 8, 0, 7, 7, 25);   /* j 7 */
    ck_assert_int_eq(f.level, 25);
    ck_assert_int_eq(f.key[3], 7);
    ck_assert_int_eq(f.key[4], 0);
    /* a backward computation: the higher level comes first */
    gt__kfail_init(&f);
    gt_klevel(7, lv, &f, 1, -1, 0, 0, 0, 3, NULL);
    gt_klevel(8, lv, &f, 1, -1, 0, 0, 0, 6, NULL);
    gt_klevel(6, lv, &f, 1, -1, 0, 0, 0, 5, NULL);
    ck_assert_int_eq(f.k, 6);
    ck_assert_int_eq(f.level, 8);
    ck_assert_int_eq(f.key[1], -6);
}
END_TEST

/* Element (i, j, k) of the interior of s (halo h along every axis, by name). */
static void *at(gt_storage *s, int64_t i, int64_t j, int64_t k)
{
    const int64_t *st = gt_strides(s);
    const int64_t (*h)[2] = gt_halo(s);
    const char *axes = gt_axes(s);
    int64_t idx[3] = {i, j, k}, e = 0;
    for (int d = 0; d < 3; d++) {
        int a = axes[d] - 'I';
        e += (idx[a] + h[d][0]) * st[d];
    }
    char *base = gt_host(s, GT_READWRITE);
    return base + e * (int64_t)gt_dtype_size(gt_dtype_of(s));
}

static gt_storage *make(gt_dtype t, const char *axes, gt_device dev)
{
    gt_storage_opts o = {0};
    o.device = dev;
    const int64_t n[3] = {6, 5, 4};
    int64_t shape[3];
    for (int d = 0; d < 3; d++) {
        o.halo[d][0] = o.halo[d][1] = 1;
        shape[d] = n[axes[d] - 'I'] + 2;
    }
    gt_storage *s = gt_zeros(t, axes, shape, &o);
    ck_assert_ptr_nonnull(s);
    return s;
}

/* Every interior element to a value of its position (plus base). */
static void fill(gt_storage *s, double base)
{
    for (int64_t k = 0; k < 4; k++)
        for (int64_t j = 0; j < 5; j++)
            for (int64_t i = 0; i < 6; i++) {
                double v = base + (double)(i + 10 * j + 100 * k);
                if (gt_dtype_of(s) == GT_INT32)
                    *(int32_t *)at(s, i, j, k) = (int32_t)v;
                else
                    *(double *)at(s, i, j, k) = v;
            }
}

static double get(gt_storage *s, int64_t i, int64_t j, int64_t k)
{
    void *p = at(s, i, j, k);
    return gt_dtype_of(s) == GT_INT32 ? (double)*(int32_t *)p : *(double *)p;
}

START_TEST(keep_host)
{
    gt_storage *u = make(GT_FLOAT64, "IJK", GT_HOST), *v = make(GT_FLOAT64, "KJI", GT_HOST);
    gt_storage *w = make(GT_INT32, "JIK", GT_HOST);
    gt_storage *s[3] = {u, v, w};
    fill(v, 0);
    fill(w, 1000);
    gt_place p = {{0, 0}, {0, 0}, {4, 3}, {1, 1}, NULL};
    const int64_t size[3] = {4, 3, 2};   /* a domain smaller than the storages */
    for (int fails = 0; fails < 2; fails++) {
        gt__kept *kept = NULL;
        ck_assert_int_eq(gt__keep(&p, &info, s, size, 0, 0, &kept), 0);
        ck_assert_ptr_nonnull(kept);
        fill(v, 0.5);   /* the stencil writes */
        fill(w, 2000);
        ck_assert_int_eq(gt__keep_end(kept, fails ? GT_ESHAPE : 0), fails ? GT_ESHAPE : 0);
        for (int64_t k = 0; k < 4; k++)
            for (int64_t j = 0; j < 5; j++)
                for (int64_t i = 0; i < 6; i++) {
                    /* put back: the compute-domain box, when the call fails */
                    bool back = fails && i < 4 && j < 3 && k < 2;
                    double x = (double)(i + 10 * j + 100 * k);
                    ck_assert(get(v, i, j, k) == x + (back ? 0 : 0.5));
                    ck_assert(get(w, i, j, k) == x + (back ? 1000 : 2000));
                }
        fill(v, 0);
        fill(w, 1000);
    }
    gt_release(u);
    gt_release(v);
    gt_release(w);
}
END_TEST

static int copy_within(void *dst, const void *src, size_t n)
{
    memmove(dst, src, n);
    return 0;
}

/* The storages' bytes on the device: through device_copy (with), or through the host. */
static void keep_device(bool with)
{
    static gt__device_ops ops;   /* the pool keeps it with the blocks given back */
    ops = fake_ops;
    ops.device_copy = with ? copy_within : NULL;
    gt__set_device_ops(&ops);
    gt_storage *u = make(GT_FLOAT64, "IJK", GT_CUDA), *v = make(GT_FLOAT64, "IJK", GT_CUDA);
    gt_storage *w = make(GT_INT32, "KJI", GT_CUDA);
    gt_storage *s[3] = {u, v, w};
    fill(v, 0);
    fill(w, 1000);
    int64_t n[3];
    gt_bound b[3];
    ck_assert_int_eq(gt__bind_device(&info, NULL, s, NULL, n, b), 0);
    gt_place p = {{0, 0}, {0, 0}, {6, 5}, {1, 1}, NULL};
    gt__kept *kept = NULL;
    ck_assert_int_eq(gt__keep(&p, &info, s, n, 0, 1, &kept), 0);
    /* the "kernels" write every element of the device sides (fake device memory is host
       memory) */
    for (int o = 1; o < 3; o++) {
        const int64_t *sh = gt_shape(s[o]), *st = gt_strides(s[o]);
        char *d = gt__device_raw(s[o]);
        for (int64_t x = 0; x < sh[0]; x++)
            for (int64_t y = 0; y < sh[1]; y++)
                for (int64_t z = 0; z < sh[2]; z++) {
                    int64_t e = x * st[0] + y * st[1] + z * st[2];
                    if (o == 1)
                        ((double *)d)[e] = -1.0;
                    else
                        ((int32_t *)d)[e] = -1;
                }
    }
    ck_assert_int_eq(gt__keep_end(kept, GT_ESHAPE), GT_ESHAPE);
    for (int64_t k = 0; k < 4; k++)
        for (int64_t j = 0; j < 5; j++)
            for (int64_t i = 0; i < 6; i++) {
                double x = (double)(i + 10 * j + 100 * k);
                ck_assert(get(v, i, j, k) == x);   /* downloaded from the device */
                ck_assert(get(w, i, j, k) == x + 1000);
            }
    ck_assert(get(v, -1, -1, -1) == 0.0);   /* the halo too: every byte put back */
    gt_release(u);
    gt_release(v);
    gt_release(w);
    gt__pool_trim();
    gt__set_device_ops(&fake_ops);
}

START_TEST(keep_device_copy)
{
    keep_device(true);
}
END_TEST

START_TEST(keep_device_through_host)
{
    keep_device(false);
}
END_TEST

START_TEST(keep_distributed)
{
    gt_storage *u = make(GT_FLOAT64, "IJK", GT_HOST), *v = make(GT_FLOAT64, "IJK", GT_HOST);
    gt_storage *w = make(GT_INT32, "IJK", GT_HOST);
    gt_storage *s[3] = {u, v, w};
    fill(v, 0);
    fill(w, 1000);
    gt__mpi_call where;
    gt__mpi_call_init(&where, 1, 0, NULL, NULL, NULL);
    gt_place p = {{0, 0}, {0, 0}, {6, 5}, {0, 0}, &where.place};
    const int64_t size[3] = {6, 5, 4};
    double total = -1.0;
    gt__kept *kept = (gt__kept *)&kept;
    /* a part keeps nothing */
    ck_assert_int_eq(gt__keep(&p, &info, s, size, 0, 1, &kept), 0);
    ck_assert_ptr_null(kept);
    gt__keep_result(&p, 0, &total, sizeof total);
    ck_assert_ptr_null(where.kept);
    /* the checking call keeps, on the host whatever the backend, in the call's state */
    ck_assert_int_eq(gt__keep(&p, &info, s, size, 1, 1, &kept), 0);
    ck_assert_ptr_null(kept);
    gt__keep_result(&p, 1, &total, sizeof total);
    ck_assert_ptr_nonnull(where.kept);
    fill(v, 0.5);
    fill(w, 2000);
    total = 4.0;
    ck_assert_int_eq(gt__mpi_call_end(&where, GT_ESHAPE), GT_ESHAPE);
    ck_assert_ptr_null(where.kept);
    ck_assert(total == -1.0);
    ck_assert(get(v, 5, 4, 3) == 345.0);
    ck_assert(get(w, 2, 1, 0) == 1012.0);
    /* a call that succeeds keeps what it wrote */
    ck_assert_int_eq(gt__keep(&p, &info, s, size, 1, 0, &kept), 0);
    gt__keep_result(&p, 1, &total, sizeof total);
    fill(v, 0.5);
    total = 4.0;
    ck_assert_int_eq(gt__mpi_call_end(&where, 0), 0);
    ck_assert(total == 4.0);
    ck_assert(get(v, 5, 4, 3) == 345.5);
    gt_release(u);
    gt_release(v);
    gt_release(w);
}
END_TEST

Suite *suite_rt_klevels(void); /* collected by tests/unit/main.c */

Suite *suite_rt_klevels(void)
{
    Suite *s = suite_create("rt_klevels");
    TCase *t = tcase_create("klevels");
    tcase_add_checked_fixture(t, fake_setup, fake_teardown);
    tcase_add_test(t, levels_now);
    tcase_add_test(t, klevel_checks_and_orders);
    tcase_add_test(t, keep_host);
    tcase_add_test(t, keep_device_copy);
    tcase_add_test(t, keep_device_through_host);
    tcase_add_test(t, keep_distributed);
    suite_add_tcase(s, t);
    return s;
}
