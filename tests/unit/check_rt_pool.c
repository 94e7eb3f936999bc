/* check_rt_pool.c: the pool of device blocks (pool.c) that gt__device_temporary takes from,
 * on the fake device of fake_device.h, and of host blocks that gt__temporary takes from: a
 * temporary requested again after its release allocates nothing, blocks start on 256 bytes, a request takes the smallest free block of
 * its size class up to twice it, the cap frees what is beyond it, trimming frees every free
 * block, a device failure is GT_EDEVICE, and concurrent takers and givers lose nothing. */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "fake_device.h"
#include "rt.h"

static void *temp(gt_storage **t, const int64_t size[3])
{
    const int64_t halo[6] = {2, 2, 1, 1, 0, 0};
    int64_t stride[3];
    void *p = gt__device_temporary(t, GT_FLOAT64, "IJK", size, halo, stride);
    ck_assert_msg(p != NULL, "%s", gt_last_error());
    return p;
}

/* The device temporaries of a stencil called twice: the second call allocates nothing. */
START_TEST(temporaries_reused)
{
    const int64_t a[3] = {32, 16, 8}, b[3] = {7, 5, 3};
    gt_storage *t1, *t2;
    for (int call = 0; call < 3; call++) {
        void *p1 = temp(&t1, a), *p2 = temp(&t2, b);
        ck_assert_int_eq(fake.allocs, 2); /* the first call's only */
        ck_assert_int_eq(fake.live, 2);
        ck_assert_uint_eq((uintptr_t)p1 % 8, 0);
        /* the storage's device start: on the pool's 256 bytes (the fake's malloc gives 16) */
        ck_assert_uint_eq((uintptr_t)gt_device_ptr(t1, GT_READ) % 64, 0);
        ck_assert_uint_eq((uintptr_t)t1->buf->device_block % 16, 0);
        ck_assert_ptr_ne(p1, p2);
        gt_release(t1);
        gt_release(t2);
        size_t n;
        ck_assert_uint_gt(gt__pool_free_bytes(&n), 32 * 16 * 8 * 8);
        ck_assert_uint_eq(n, 2);
    }
    ck_assert_uint_gt(gt__pool_trim(), 0);
    ck_assert_int_eq(fake.live, 0);
    ck_assert_uint_eq(gt__pool_free_bytes(NULL), 0);
}
END_TEST

/* The host temporaries (gt__temporary) of a stencil called again: the second call gets the
 * first call's blocks back from the pool (the same addresses: nothing mapped anew), every
 * element written and read within the block, the data start aligned as the "cpu" preset
 * asks; trimming frees them, and a cap of one byte keeps none. */
START_TEST(host_temporaries_reused)
{
    const int64_t a[3] = {300, 200, 16}, b[3] = {7, 5, 3}, halo[6] = {2, 2, 1, 1, 0, 0};
    int64_t sa[3], sb[3];
    gt_storage *t1, *t2;
    double *first = NULL;
    ck_assert_uint_eq(gt__pool_free_bytes(NULL), 0);
    for (int call = 0; call < 3; call++) {
        double *p1 = gt__temporary(&t1, GT_FLOAT64, "IJK", a, halo, sa);
        double *p2 = gt__temporary(&t2, GT_FLOAT64, "IJK", b, halo, sb);
        ck_assert_msg(p1 && p2, "%s", gt_last_error());
        ck_assert_ptr_eq(gt_host(t1, GT_READ), t1->buf->host);
        ck_assert_uint_eq((uintptr_t)t1->buf->host % 64, 0);
        ck_assert_uint_gt(t1->buf->host_pool_bytes, 0);
        if (call == 0)
            first = p1;
        else
            ck_assert_ptr_eq(p1, first);
        /* the whole box, halo included, lies in the block */
        for (int64_t k = 0; k < a[2]; k++)
            for (int64_t j = -1; j < a[1] + 1; j++)
                for (int64_t i = -2; i < a[0] + 2; i++)
                    p1[i * sa[0] + j * sa[1] + k * sa[2]] = (double)(i + j + k);
        ck_assert(p1[(a[0] + 1) * sa[0] + a[1] * sa[1] + (a[2] - 1) * sa[2]] ==
                  (double)(a[0] + 1 + a[1] + a[2] - 1));
        gt_release(t1);
        gt_release(t2);
        size_t n;
        ck_assert_uint_gt(gt__pool_free_bytes(&n), 304 * 202 * 16 * 8);
        ck_assert_uint_eq(n, 2);
    }
    ck_assert_uint_gt(gt__pool_trim(), 0);
    ck_assert_uint_eq(gt__pool_free_bytes(NULL), 0);
    gt__pool_set_cap(1);
    ck_assert_ptr_nonnull(gt__temporary(&t1, GT_FLOAT64, "IJK", a, halo, sa));
    gt_release(t1);
    ck_assert_uint_eq(gt__pool_free_bytes(NULL), 0);
    gt__pool_set_cap(0);
}
END_TEST

/* gt__pool_get directly: size classes, best fit, alignment. */
START_TEST(classes_and_fit)
{
    const gt__device_ops *ops = &fake_ops;
    void *raw[8];
    size_t bytes[8];
    int err;
    for (size_t n = 1; n < 5000; n = n * 3 + 1) { /* every block on 256 bytes */
        void *p = gt__pool_get(ops, n, &raw[0], &bytes[0], &err);
        ck_assert_int_eq(err, 0);
        ck_assert_uint_eq((uintptr_t)p % GT__POOL_ALIGN, 0);
        ck_assert_uint_ge(bytes[0], n);
        ck_assert_uint_le(bytes[0], n < 256 ? 256 : n + n / 4);
        memset(p, 1, bytes[0]); /* usable (ASan checks) */
        gt__pool_put(ops, raw[0], bytes[0]);
    }
    gt__pool_trim();
    int allocs = fake.allocs;
    void *p1000 = gt__pool_get(ops, 1000, &raw[0], &bytes[0], &err); /* class 1024 */
    void *p3000 = gt__pool_get(ops, 3000, &raw[1], &bytes[1], &err); /* class 3072 */
    ck_assert_uint_eq(bytes[0], 1024);
    ck_assert_uint_eq(bytes[1], 3072);
    gt__pool_put(ops, raw[1], bytes[1]);
    gt__pool_put(ops, raw[0], bytes[0]);
    ck_assert_int_eq(fake.allocs, allocs + 2);
    /* 600 (class 640): the 1024 block, the smallest that fits within twice the class */
    ck_assert_ptr_eq(gt__pool_get(ops, 600, &raw[2], &bytes[2], &err), p1000);
    ck_assert_uint_eq(bytes[2], 1024);
    /* 300 (class 320): 1024 is more than twice: a new block */
    gt__pool_put(ops, raw[2], bytes[2]);
    gt__pool_get(ops, 300, &raw[3], &bytes[3], &err);
    ck_assert_int_eq(fake.allocs, allocs + 3);
    ck_assert_uint_eq(bytes[3], 320);
    /* 2000 (class 2048): the 3072 block (1024 is too small) */
    ck_assert_ptr_eq(gt__pool_get(ops, 2000, &raw[4], &bytes[4], &err), p3000);
    ck_assert_int_eq(fake.allocs, allocs + 3);
    gt__pool_put(ops, raw[3], bytes[3]);
    gt__pool_put(ops, raw[4], bytes[4]);
    /* blocks of another device layer are not handed out */
    gt__device_ops other = fake_ops;
    gt__pool_get(&other, 1000, &raw[5], &bytes[5], &err);
    ck_assert_int_eq(fake.allocs, allocs + 4);
    gt__pool_put(&other, raw[5], bytes[5]);
    ck_assert_uint_eq(gt__pool_trim(), 1024 + 3072 + 320 + 1024);
    ck_assert_int_eq(fake.live, 0);
}
END_TEST

START_TEST(cap)
{
    const gt__device_ops *ops = &fake_ops;
    void *raw[6];
    size_t bytes[6];
    int err;
    for (int k = 0; k < 6; k++)
        gt__pool_get(ops, 4096, &raw[k], &bytes[k], &err);
    gt__pool_set_cap(3 * 4096);
    for (int k = 0; k < 6; k++)
        gt__pool_put(ops, raw[k], bytes[k]);
    size_t n;
    ck_assert_uint_eq(gt__pool_free_bytes(&n), 3 * 4096);
    ck_assert_uint_eq(n, 3);
    ck_assert_int_eq(fake.live, 3); /* the others were freed */
    gt__pool_set_cap(4096); /* lowering the cap frees at once */
    ck_assert_int_eq(fake.live, 1);
    gt__pool_set_cap(100); /* a block bigger than the cap is not kept */
    ck_assert_int_eq(fake.live, 0);
    gt__pool_get(ops, 4000, &raw[0], &bytes[0], &err);
    ck_assert_uint_eq(bytes[0], 4000); /* nor rounded to its class */
    gt__pool_put(ops, raw[0], bytes[0]);
    ck_assert_int_eq(fake.live, 0);
    gt__pool_set_cap(0); /* the default again */
    gt__pool_get(ops, 4096, &raw[0], &bytes[0], &err);
    gt__pool_put(ops, raw[0], bytes[0]);
    ck_assert_int_eq(fake.live, 1);
    gt__pool_trim();
    ck_assert_int_eq(fake.live, 0);
}
END_TEST

START_TEST(failure)
{
    gt_storage *t = NULL;
    const int64_t size[3] = {4, 4, 4}, halo[6] = {0};
    int64_t stride[3];
    fake.fail_alloc = 1;
    ck_assert_ptr_null(gt__device_temporary(&t, GT_FLOAT32, "IJK", size, halo, stride));
    ck_assert_ptr_null(t);
    ck_assert_int_eq(gt_last_error_code(), GT_EDEVICE);
    ck_assert_msg(strstr(gt_last_error(), "gt__device_temporary: allocating a CUDA device "
                                          "buffer of") &&
                  strstr(gt_last_error(), "(fake: out of device memory)"),
                  "%s", gt_last_error());
    ck_assert_int_eq(fake.live, 0);
    gt__set_device_ops(NULL); /* no device: GT_EDEVICE, nothing pooled */
    ck_assert_ptr_null(gt__device_temporary(&t, GT_FLOAT32, "IJK", size, halo, stride));
    ck_assert_int_eq(gt_last_error_code(), GT_EDEVICE);
    ck_assert_uint_eq(gt__pool_free_bytes(NULL), 0);
}
END_TEST

/* ---- threads: a thread-safe counting device ------------------------------------------------ */

static atomic_int thread_live;

static int count_alloc(void **out, size_t n)
{
    *out = malloc(n);
    atomic_fetch_add(&thread_live, 1);
    return *out ? 0 : 2;
}

static void count_release(void *p)
{
    atomic_fetch_sub(&thread_live, 1);
    free(p);
}

static const gt__device_ops count_ops = {
    .name = "count", .alloc = count_alloc, .release = count_release,
};

static void *churn(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    for (int k = 0; k < 20000; k++) {
        void *raw;
        size_t bytes;
        int err;
        seed = seed * 1103515245u + 12345u;
        size_t n = 100 + (seed >> 8) % 5000;
        unsigned char *p = gt__pool_get(&count_ops, n, &raw, &bytes, &err);
        if (!p || bytes < n)
            return (void *)1;
        p[0] = p[n - 1] = 1;
        gt__pool_put(&count_ops, raw, bytes);
    }
    return NULL;
}

START_TEST(threads)
{
    pthread_t th[4];
    gt__pool_set_cap(64 << 10); /* so that puts free blocks too */
    for (int k = 0; k < 4; k++)
        ck_assert_int_eq(pthread_create(&th[k], NULL, churn, (void *)(uintptr_t)(k + 1)), 0);
    for (int k = 0; k < 4; k++) {
        void *r;
        pthread_join(th[k], &r);
        ck_assert_ptr_null(r);
    }
    ck_assert_uint_le(gt__pool_free_bytes(NULL), 64 << 10);
    gt__pool_trim();
    ck_assert_int_eq(atomic_load(&thread_live), 0);
    gt__pool_set_cap(0);
}
END_TEST

Suite *suite_rt_pool(void); /* collected by tests/unit/main.c */

Suite *suite_rt_pool(void)
{
    Suite *s = suite_create("rt_pool");
    TCase *t = tcase_create("pool");
    tcase_add_checked_fixture(t, fake_setup, fake_teardown);
    tcase_add_test(t, temporaries_reused);
    tcase_add_test(t, host_temporaries_reused);
    tcase_add_test(t, classes_and_fit);
    tcase_add_test(t, cap);
    tcase_add_test(t, failure);
    tcase_add_test(t, threads);
    tcase_set_timeout(t, 60);
    suite_add_tcase(s, t);
    return s;
}
