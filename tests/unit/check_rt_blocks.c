/* check_rt_blocks.c: the cache blocks of the openmp backend's groups without tiles
 * (gt__blocks, runtime/src/blocks.c; docs/internals.md, "3-D blocks"). With the cache
 * share fixed by GT_CACHE_BYTES, the numbers below follow from the documented rule: half
 * the share holds the planes read at K offsets; levels one by one (bk 1, bj 64 halved while
 * there are fewer than 8 blocks per thread) when the whole domain's planes fit, else every
 * level of a slab of rows that fits (at least 1 row, at most a thread's share of the rows).
 * Check runs each test in a process of its own, so setenv stays inside it. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "rt.h"

static void blocks(int64_t nk, int64_t nj, int64_t ni, int64_t kbytes, int nth, int64_t *bk,
                   int64_t *bj)
{
    *bk = *bj = -1;
    gt__blocks(nk, nj, ni, kbytes, nth, bk, bj);
}

START_TEST(levels_one_by_one_while_the_planes_fit)
{
    setenv("GT_CACHE_BYTES", "8000000", 1);   /* budget 4,000,000 bytes */
    int64_t bk, bj;
    /* nothing read at K offsets */
    blocks(384, 384, 384, 0, 2, &bk, &bj);
    ck_assert_int_eq(bk, 1);
    ck_assert_int_eq(bj, 64);
    /* a 7-point f32 stencil at 384^3: 384 * 384 * 12 = 1,769,472 bytes fit */
    blocks(384, 384, 384, 12, 2, &bk, &bj);
    ck_assert_int_eq(bk, 1);
    ck_assert_int_eq(bj, 64);
    /* one level: nothing to keep from one level to the next */
    blocks(1, 4096, 4096, 12, 2, &bk, &bj);
    ck_assert_int_eq(bk, 1);
    /* exactly the budget still fits: 100 * 1000 * 40 = 4,000,000 */
    blocks(10, 1000, 100, 40, 2, &bk, &bj);
    ck_assert_int_eq(bk, 1);
}
END_TEST

START_TEST(rows_halved_for_the_threads)
{
    setenv("GT_CACHE_BYTES", "8000000", 1);
    int64_t bk, bj;
    /* one level of 20 rows, 4 threads: 64 -> 32 -> 16 -> 8 -> 4 -> 2 -> 1 (20 blocks < 32) */
    blocks(1, 20, 100, 0, 4, &bk, &bj);
    ck_assert_int_eq(bk, 1);
    ck_assert_int_eq(bj, 1);
    /* 2 levels of 256 rows, 2 threads: 2 * 4 = 8 blocks < 16 -> 32: 16 blocks */
    blocks(2, 256, 256, 0, 2, &bk, &bj);
    ck_assert_int_eq(bj, 32);
}
END_TEST

START_TEST(slabs_when_the_planes_do_not_fit)
{
    setenv("GT_CACHE_BYTES", "8000000", 1);
    int64_t bk, bj;
    /* 1800 x 1800 x 48, 12 bytes a point: 4,000,000 / (1800 * 12) = 185 rows */
    blocks(48, 1800, 1800, 12, 2, &bk, &bj);
    ck_assert_int_eq(bk, 48);
    ck_assert_int_eq(bj, 185);
    /* one point over the budget: 100 * 1001 * 40; 4,000,000 / 4000 = 1000 rows, but a
     * thread's share of 1001 rows is 501 */
    blocks(10, 1001, 100, 40, 2, &bk, &bj);
    ck_assert_int_eq(bk, 10);
    ck_assert_int_eq(bj, 501);
    /* a share of one byte: slabs of one row */
    setenv("GT_CACHE_BYTES", "1", 1);
    blocks(7, 30, 40, 8, 2, &bk, &bj);
    ck_assert_int_eq(bk, 7);
    ck_assert_int_eq(bj, 1);
}
END_TEST

START_TEST(bad_setting_and_degenerate_sizes)
{
    int64_t bk0, bj0, bk, bj;
    unsetenv("GT_CACHE_BYTES");
    blocks(64, 1800, 1800, 24, 2, &bk0, &bj0);
    ck_assert(bk0 == 1 || bk0 == 64);
    ck_assert_int_ge(bj0, 1);
    ck_assert_int_le(bj0, 1800);
    /* a setting that is not a positive number is ignored: the machine's caches decide */
    /* nor is one with a blank or a sign before its digits, or past int64 (it once read
       " 1" and "+1" as 1, and 99999999999999999999 as 2^63 - 1) */
    const char *bad[] = {"abc", "-5", "0", "12k", "", " 1", "+1", "99999999999999999999"};
    for (int b = 0; b < 8; b++) {
        setenv("GT_CACHE_BYTES", bad[b], 1);
        blocks(64, 1800, 1800, 24, 2, &bk, &bj);
        ck_assert_int_eq(bk, bk0);
        ck_assert_int_eq(bj, bj0);
    }
    /* empty domains and no threads still give blocks of at least one */
    setenv("GT_CACHE_BYTES", "8000000", 1);
    blocks(0, 0, 0, 12, 0, &bk, &bj);
    ck_assert_int_ge(bk, 1);
    ck_assert_int_ge(bj, 1);
}
END_TEST

Suite *suite_rt_blocks(void); /* collected by tests/unit/main.c */

Suite *suite_rt_blocks(void)
{
    Suite *s = suite_create("rt_blocks");
    TCase *t = tcase_create("blocks");
    tcase_add_test(t, levels_one_by_one_while_the_planes_fit);
    tcase_add_test(t, rows_halved_for_the_threads);
    tcase_add_test(t, slabs_when_the_planes_do_not_fit);
    tcase_add_test(t, bad_setting_and_degenerate_sizes);
    suite_add_tcase(s, t);
    return s;
}
