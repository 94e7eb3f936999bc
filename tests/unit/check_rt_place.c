/* check_rt_place.c: gt__place and the out-scalar combination of distributed calls
 * (runtime/src/place.c) without MPI: a single process's place, a part of a global domain
 * made current by hand (as gt_mpi_call does), the checks it makes (domain, reach against
 * the widths exchanged on internal sides, periodic conditions against the decomposition,
 * storages missing), the checking call's answer 1 and what it records, and the rules by
 * which gt__place_result combines values: sums, fmin/fmax (a NaN loses), int min/max and
 * wrapping sums, bool all/any. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

#define ck_assert_error(code, text)                                                          \
    do {                                                                                     \
        ck_assert_int_eq(gt_last_error_code(), (code));                                     \
        ck_assert_msg(strstr(gt_last_error(), (text)) != NULL, "message \"%s\" lacks \"%s\"", \
                      gt_last_error(), (text));                                              \
    } while (0)

/* f(u, v): u periodic along I, reading 2 below and 1 above along I and 3 above along J
   (no bc along J); v read nowhere beyond the domain */
static const gt_field_info fields[2] = {
    {"u", "IJK", GT_FLOAT64, 0, {{0, 0}, {0, 3}, {0, 0}}, {{2, 1}, {0, 3}, {0, 0}},
     {1 + GT_BC_PERIODIC, 0, 0}},
    {"v", "IJK", GT_FLOAT64, 1, {{0, 0}, {0, 0}, {0, 0}}, {{0, 0}, {0, 0}, {0, 0}}, {0, 0, 0}},
};
static const gt_stencil_info info = {"f", 2, fields};

START_TEST(place_single_process)
{
    const int64_t size[3] = {7, 5, 3};
    gt_storage *none[2] = {NULL, NULL};
    gt_place p;
    memset(&p, 0x55, sizeof p);
    ck_assert_int_eq(gt__place(&info, none, size, &p), 0);
    ck_assert_int_eq(p.origin[0], 0);
    ck_assert_int_eq(p.origin[1], 0);
    ck_assert_int_eq(p.lo[0], 0);
    ck_assert_int_eq(p.hi[0], 7);
    ck_assert_int_eq(p.hi[1], 5);
    ck_assert_int_eq(p.wrap[0], 1);
    ck_assert_ptr_null(p.distributed);
    /* nothing to combine for a single process: the value stays */
    double total = 4.5;
    gt__place_result(&p, 0, 0, GT_FLOAT64, &total);
    ck_assert(total == 4.5);
}
END_TEST

/* A part [3, 3 + 4) x [10, 10 + 5) of a 20 x 15 domain, periodic along I, the box's lower
   J side internal, its upper J side the global edge. */
static gt__where part(gt_storage *const *s, gt_halo_widths_ *widths, gt_halo_widths_ *needed,
                      const char **by)
{
    gt__where w = {.rank = 3, .origin = {3, 10}, .global = {20, 15}, .size = {4, 5},
                   .wrap = {1, 0}, .internal = {{1, 1}, {1, 0}}, .n = 2, .storages = s,
                   .widths = widths, .needed = needed, .needed_by = by};
    return w;
}

START_TEST(place_part)
{
    const int64_t size[3] = {4, 5, 3}, shape[3] = {10, 11, 3};
    /* u with the halo it is read in (its reach), v without */
    gt_storage_opts reach = {.halo = {{2, 1}, {0, 3}, {0, 0}}};
    gt_storage *u = gt_zeros(GT_FLOAT64, "IJK", shape, &reach);
    gt_storage *v = gt_zeros(GT_FLOAT64, "IJK", shape, NULL);
    gt_storage *s[2] = {u, v};
    gt_halo_widths_ widths[2] = {{{2, 1}, {0, 3}}, {{0, 0}, {0, 0}}}, needed[2];
    const char *by[2] = {NULL, NULL};
    memset(needed, 0, sizeof needed);
    gt__where w = part(s, widths, needed, by);
    gt__where_set(&w);
    gt_place p;
    ck_assert_int_eq(gt__place(&info, s, size, &p), 0);
    ck_assert_int_eq(p.origin[0], 3);
    ck_assert_int_eq(p.origin[1], 10);
    ck_assert_int_eq(p.lo[0], -3);
    ck_assert_int_eq(p.hi[0], 17);
    ck_assert_int_eq(p.lo[1], -10);
    ck_assert_int_eq(p.hi[1], 5);
    ck_assert_int_eq(p.wrap[0], 0);
    ck_assert_ptr_eq(p.distributed, &w);
    ck_assert_int_eq(w.calls, 1);
    /* the checking call answers 1 and records what u needs on the internal sides: not J
       above (the global edge) */
    w.check = 1;
    ck_assert_int_eq(gt__place(&info, s, size, &p), 1);
    ck_assert_int_eq(needed[0][0][0], 2);
    ck_assert_int_eq(needed[0][0][1], 1);
    ck_assert_int_eq(needed[0][1][1], 0);
    ck_assert_str_eq(by[0], "u");
    /* a storage whose halo has no room for what is read beyond an internal side (made
       with S_info's halo, 0 along the periodic I): the checking call refuses it */
    gt_storage *u0 = gt_zeros(GT_FLOAT64, "IJK", shape, NULL);
    gt_storage *s0[2] = {u0, v};
    w.storages = s0;
    ck_assert_int_eq(gt__place(&info, s0, size, &p), GT_EHALO);
    ck_assert_error(GT_EHALO, "stencil 'f': rank 3: field 'u' reads 2 point(s) beyond the "
                              "lower I edge of this rank's box, from its halo, but the "
                              "storage's halo there is 0: a distributed call needs the halo "
                              "gt_mpi_halo gives");
    gt_release(u0);
    w.storages = s;
    w.check = 0;
    /* another domain */
    const int64_t other[3] = {4, 4, 3};
    ck_assert_int_eq(gt__place(&info, s, other, &p), GT_ESHAPE);
    ck_assert_error(GT_ESHAPE, "stencil 'f': rank 3: called with a domain of 4 x 4");
    /* widths narrower than u reads below along I */
    widths[0][0][0] = 1;
    ck_assert_int_eq(gt__place(&info, s, size, &p), GT_EHALO);
    ck_assert_error(GT_EHALO, "field 'u' reads 2 point(s) beyond the lower I edge of this "
                              "rank's box, but gt_mpi_call exchanged 1 there");
    widths[0][0][0] = 2;
    /* u's storage not among the storages */
    w.n = 1;
    w.storages = &v;
    ck_assert_int_eq(gt__place(&info, s, size, &p), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "is not among gt_mpi_call's storages");
    w.n = 2;
    w.storages = s;
    /* periodic along I without a periodic decomposition */
    w.wrap[0] = 0;
    ck_assert_int_eq(gt__place(&info, s, size, &p), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "field 'u' has a periodic boundary condition along I, but the "
                               "decomposition is not periodic along I");
    /* far bounds are clipped to +-2^30 */
    w.wrap[0] = 1;
    w.global[0] = (int64_t)1 << 40;
    ck_assert_int_eq(gt__place(&info, s, size, &p), 0);
    ck_assert_int_eq(p.hi[0], (int64_t)1 << 30);
    gt__where_set(NULL);
    ck_assert_int_eq(gt__place(&info, s, size, &p), 0);
    ck_assert_ptr_null(p.distributed);
    gt_release(u);
    gt_release(v);
}
END_TEST

START_TEST(place_results)
{
    gt__where w = {.rank = 0};
    gt__where_set(&w);
    gt_place p = {.distributed = &w};
    double d = 1.5, lo = NAN;
    gt__place_result(&p, 0, 0, GT_FLOAT64, &d);   /* sum */
    gt__place_result(&p, 1, 1, GT_FLOAT64, &lo);  /* min: a NaN first */
    d = 2.25;
    lo = 3.0;
    gt__place_result(&p, 0, 0, GT_FLOAT64, &d);
    gt__place_result(&p, 1, 1, GT_FLOAT64, &lo);
    ck_assert(w.red[0].value.d == 3.75);
    ck_assert(w.red[1].value.d == 3.0);   /* fmin: the NaN loses */
    int32_t big = INT32_MAX;
    gt__place_result(&p, 2, 0, GT_INT32, &big);
    /* a second int sum through the same result pointer wraps like the generated code's */
    big = 1;
    gt__place_result(&p, 2, 0, GT_INT32, &big);
    ck_assert_int_eq(w.red[2].value.i, INT32_MIN);
    bool b = true;
    gt__place_result(&p, 3, 1, GT_BOOL, &b);   /* min of bools: all */
    b = false;
    gt__place_result(&p, 3, 1, GT_BOOL, &b);
    ck_assert(!w.red[3].value.b);
    float f = -2.0f;
    gt__place_result(&p, 4, 2, GT_FLOAT32, &f);
    f = -3.0f;
    gt__place_result(&p, 4, 2, GT_FLOAT32, &f);
    ck_assert(w.red[4].value.f == -2.0f);
    ck_assert_int_eq(w.nred, 5);
    ck_assert_int_eq(w.red_error, 0);
    /* a part that disagrees on a slot's type */
    gt__place_result(&p, 4, 2, GT_FLOAT64, &d);
    ck_assert_int_eq(w.red_error, GT_EINVAL);
    gt__where_set(NULL);
    free(w.red);
}
END_TEST

Suite *suite_rt_place(void); /* collected by tests/unit/main.c */

Suite *suite_rt_place(void)
{
    Suite *s = suite_create("rt_place");
    TCase *t = tcase_create("place");
    tcase_add_test(t, place_single_process);
    tcase_add_test(t, place_part);
    tcase_add_test(t, place_results);
    suite_add_tcase(s, t);
    return s;
}
