/* check_rt_flat.c: gt_wrap_flat (runtime/src/flat.c, docs/runtime.md section 5), the wrap
 * the Fortran module gtrt calls: byte strides turned into element strides, the flat halo in
 * axes order, its refusals (a stride not a multiple of the element size, a bad dtype, NULL
 * arguments) and gt_wrap's, each with the caller's prefix before the message and *out NULL.
 * Expected values are the test's own: a 4 x 3 double array in Fortran order (I fastest). */
#include <check.h>
#include <stdint.h>

#include "rt_check.h"

START_TEST(flat_wraps)
{
    double a[3][4];   /* a[j][i]: I fastest, as a Fortran a(4, 3) */
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 4; i++)
            a[j][i] = 10 * i + j;
    gt_storage *s = (gt_storage *)&s;   /* overwritten */
    int64_t shape[2] = {4, 3}, bytes[2] = {8, 32}, halo[4] = {1, 2, 0, 1};
    ck_assert_int_eq(gt_wrap_flat(&s, a, GT_FLOAT64, "IJ", shape, bytes, halo, "x"), 0);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(gt_strides(s)[0], 1);
    ck_assert_int_eq(gt_strides(s)[1], 4);
    ck_assert_int_eq(gt_halo(s)[0][0], 1);
    ck_assert_int_eq(gt_halo(s)[0][1], 2);
    ck_assert_int_eq(gt_halo(s)[1][0], 0);
    ck_assert_int_eq(gt_halo(s)[1][1], 1);
    ck_assert_str_eq(gt_layout(s), "JI");
    ck_assert_ptr_eq(gt_host(s, GT_READ), a);
    gt_release(s);
    /* every second point along I: a section a(1:4:2, :) */
    int64_t half[2] = {2, 3}, bytes2[2] = {16, 32}, none[4] = {0, 0, 0, 0};
    ck_assert_int_eq(gt_wrap_flat(&s, a, GT_FLOAT64, "IJ", half, bytes2, none, NULL), 0);
    const double *p = gt_host(s, GT_READ);
    ck_assert(p[1 * gt_strides(s)[0] + 2 * gt_strides(s)[1]] == 22.0);   /* a(3, 3) */
    gt_release(s);
}
END_TEST

START_TEST(flat_refusals)
{
    double a[12];
    gt_storage *s = (gt_storage *)&s;
    int64_t shape[2] = {4, 3}, halo[4] = {0, 0, 0, 0};
    int64_t odd[2] = {8, 20};   /* 20 bytes: not a multiple of 8 */
    ck_assert_int_eq(gt_wrap_flat(&s, a, GT_FLOAT64, "IJ", shape, odd, halo,
                                  "stencil 'f': field 'u'"), GT_EINVAL);
    ck_assert_ptr_null(s);
    ck_assert_error(GT_EINVAL, "stencil 'f': field 'u': gt_wrap_flat: stride along J is 20 "
                               "bytes, not a multiple of the 8 bytes of a float64");
    int64_t neg[2] = {-8, 32};
    s = (gt_storage *)&s;
    ck_assert_int_eq(gt_wrap_flat(&s, a, GT_FLOAT64, "IJ", shape, neg, halo, "w"), GT_EINVAL);
    ck_assert_ptr_null(s);
    ck_assert_error(GT_EINVAL, "w: gt_wrap: stride along I is -1; negative strides are not "
                               "supported");
    int64_t ok[2] = {8, 32}, big[4] = {0, 0, 2, 2};   /* a halo of 4 along J, of 3 points */
    ck_assert_int_eq(gt_wrap_flat(&s, a, GT_FLOAT64, "IJ", shape, ok, big, ""), GT_EINVAL);
    ck_assert_ptr_null(s);
    ck_assert_msg(strncmp(gt_last_error(), "gt_wrap", 7) == 0, "no prefix for \"\": %s",
                  gt_last_error());
    ck_assert_int_eq(gt_wrap_flat(&s, a, 9, "IJ", shape, ok, halo, NULL), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "gt_wrap_flat: dtype 9 is not a gt_dtype (GT_FLOAT32, "
                               "GT_FLOAT64, GT_INT32 or GT_BOOL)");
    ck_assert_int_eq(gt_wrap_flat(&s, a, GT_FLOAT64, NULL, shape, ok, halo, NULL), GT_EINVAL);
    ck_assert_int_eq(gt_wrap_flat(&s, a, GT_FLOAT64, "IJ", shape, NULL, halo, NULL),
                     GT_EINVAL);
    ck_assert_ptr_null(s);
    ck_assert_int_eq(gt_wrap_flat(NULL, a, GT_FLOAT64, "IJ", shape, ok, halo, NULL), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "gt_wrap_flat: out is NULL");
}
END_TEST

/* An empty array addresses no memory and its strides are not looked at (docs/runtime.md
   section 5): a caller that derives them from element addresses has none to take them
   from. Strides that were not a multiple of the element size were refused all the same. */
START_TEST(flat_empty)
{
    gt_storage *s = (gt_storage *)&s;
    int64_t shape[2] = {0, 3}, odd[2] = {3, -5}, halo[4] = {0, 0, 1, 0};
    ck_assert_msg(gt_wrap_flat(&s, NULL, GT_FLOAT64, "IJ", shape, odd, halo, "e") == 0, "%s",
                  gt_last_error());
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(gt_shape(s)[0], 0);
    ck_assert_int_eq(gt_shape(s)[1], 3);
    ck_assert_int_eq(gt_halo(s)[1][0], 1);
    gt_release(s);
    /* a non-empty array still has its strides checked */
    int64_t full[2] = {1, 3};
    ck_assert_int_eq(gt_wrap_flat(&s, NULL, GT_FLOAT64, "IJ", full, odd, halo, "e"), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "e: gt_wrap_flat: stride along I is 3 bytes");
    ck_assert_ptr_null(s);
}
END_TEST

Suite *suite_rt_flat(void); /* collected by tests/unit/main.c */

Suite *suite_rt_flat(void)
{
    Suite *s = suite_create("rt_flat");
    TCase *t = tcase_create("flat");
    tcase_add_test(t, flat_wraps);
    tcase_add_test(t, flat_refusals);
    tcase_add_test(t, flat_empty);
    suite_add_tcase(s, t);
    return s;
}
