/* check_mpi_call.c: the MPI layer's side of a distributed call without MPI
 * (runtime/src/mpi/call.c, linked into the unit tests alone): its placement's hooks, made
 * current by hand as gt_mpi_call does, behind gt__place (the widths exchanged against the
 * reach on internal sides, storages missing, the checking call's answer 1, the storages'
 * halos there and what it records per storage), gt__halo (the part applies to the call's
 * storages only) and gt__place_result: the rules by which out scalars combine: sums,
 * min/max as the language's (a NaN loses; of equal zeros the later), int min/max and wrapping sums, bool all/any. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/call.h"
#include "rt.h"
#include "rt_check.h"

/* f(u, v): u periodic along I, reading 2 below and 1 above along I and 3 above along J
   (no bc along J); v read nowhere beyond the domain */
static const gt_field_info fields[2] = {
    {"u", "IJK", GT_FLOAT64, 0, {{0, 0}, {0, 3}, {0, 0}}, {{2, 1}, {0, 3}, {0, 0}},
     {1 + GT_BC_PERIODIC, 0, 0}},
    {"v", "IJK", GT_FLOAT64, 1, {{0, 0}, {0, 0}, {0, 0}}, {{0, 0}, {0, 0}, {0, 0}}, {0, 0, 0}},
};
static const gt_stencil_info info = {"f", 2, fields};

/* A part [3, 3 + 4) x [10, 10 + 5) of a 20 x 15 domain, periodic along I, the box's lower
   J side internal, its upper J side the global edge. */
static void part(gt__mpi_call *w, gt_storage *const *s, gt__mpi_widths *widths,
                 gt__mpi_widths *needed, const char **by)
{
    gt__mpi_call_init(w, 3, 2, s, needed, by);
    w->widths = widths;
    gt__placement *p = &w->place;
    p->origin[0] = 3;
    p->origin[1] = 10;
    p->global[0] = 20;
    p->global[1] = 15;
    p->size[0] = 4;
    p->size[1] = 5;
    p->wrap[0] = 1;
    p->inner[0][0] = p->inner[0][1] = p->inner[1][0] = 1;
}

START_TEST(call_part)
{
    const int64_t size[3] = {4, 5, 3}, shape[3] = {10, 11, 3};
    /* u with the halo it is read in (its reach), v without */
    gt_storage_opts reach = {.halo = {{2, 1}, {0, 3}, {0, 0}}};
    gt_storage *u = gt_zeros(GT_FLOAT64, "IJK", shape, &reach);
    gt_storage *v = gt_zeros(GT_FLOAT64, "IJK", shape, NULL);
    gt_storage *s[2] = {u, v};
    gt__mpi_widths widths[2] = {{{2, 1}, {0, 3}}, {{0, 0}, {0, 0}}}, needed[2];
    const char *by[2] = {NULL, NULL};
    memset(needed, 0, sizeof needed);
    gt__mpi_call w;
    part(&w, s, widths, needed, by);
    gt__placement_set(&w.place);
    gt_place p;
    ck_assert_int_eq(gt__place(&info, s, size, NULL, 0, &p), 0);
    ck_assert_int_eq(p.origin[0], 3);
    ck_assert_int_eq(p.origin[1], 10);
    ck_assert_int_eq(p.lo[0], -3);
    ck_assert_int_eq(p.hi[0], 17);
    ck_assert_int_eq(p.lo[1], -10);
    ck_assert_int_eq(p.hi[1], 5);
    ck_assert_int_eq(p.wrap[0], 0);
    ck_assert_ptr_eq(p.distributed, &w.place);
    ck_assert_int_eq(w.place.calls, 1);
    /* the checking call answers 1 and records what u needs on the internal sides: not J
       above (the global edge) */
    w.place.check = 1;
    ck_assert_int_eq(gt__place(&info, s, size, NULL, 0, &p), 1);
    ck_assert_int_eq(needed[0][0][0], 2);
    ck_assert_int_eq(needed[0][0][1], 1);
    ck_assert_int_eq(needed[0][1][1], 0);
    ck_assert_str_eq(by[0], "u");
    /* a storage whose halo has no room for what is read beyond an internal side (made
       with S_info's halo, 0 along the periodic I): the checking call refuses it */
    gt_storage *u0 = gt_zeros(GT_FLOAT64, "IJK", shape, NULL);
    gt_storage *s0[2] = {u0, v};
    w.storages = s0;
    ck_assert_int_eq(gt__place(&info, s0, size, NULL, 0, &p), GT_EHALO);
    ck_assert_error(GT_EHALO, "stencil 'f': rank 3: field 'u' reads 2 point(s) beyond the "
                              "lower I edge of this rank's box, from its halo, but the "
                              "storage's halo there is 0: a distributed call needs the halo "
                              "gt_mpi_halo gives");
    gt_release(u0);
    w.storages = s;
    w.place.check = 0;
    /* another domain */
    const int64_t other[3] = {4, 4, 3};
    ck_assert_int_eq(gt__place(&info, s, other, NULL, 0, &p), GT_ESHAPE);
    ck_assert_error(GT_ESHAPE, "stencil 'f': rank 3: called with a domain of 4 x 4");
    /* widths narrower than u reads below along I */
    widths[0][0][0] = 1;
    ck_assert_int_eq(gt__place(&info, s, size, NULL, 0, &p), GT_EHALO);
    ck_assert_error(GT_EHALO, "field 'u' reads 2 point(s) beyond the lower I edge of this "
                              "rank's box, but gt_mpi_call exchanged 1 there");
    widths[0][0][0] = 2;
    /* u's storage not among the storages */
    w.n = 1;
    w.storages = &v;
    ck_assert_int_eq(gt__place(&info, s, size, NULL, 0, &p), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "is not among gt_mpi_call's storages");
    w.n = 2;
    w.storages = s;
    /* periodic along I without a periodic decomposition */
    w.place.wrap[0] = 0;
    ck_assert_int_eq(gt__place(&info, s, size, NULL, 0, &p), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "field 'u' has a periodic boundary condition along I, but the "
                               "decomposition is not periodic along I");
    /* far bounds are clipped to +-2^30 */
    w.place.wrap[0] = 1;
    w.place.global[0] = (int64_t)1 << 40;
    ck_assert_int_eq(gt__place(&info, s, size, NULL, 0, &p), 0);
    ck_assert_int_eq(p.hi[0], (int64_t)1 << 30);
    gt__placement_set(NULL);
    ck_assert_int_eq(gt__place(&info, s, size, NULL, 0, &p), 0);
    ck_assert_ptr_null(p.distributed);
    gt_release(u);
    gt_release(v);
}
END_TEST

START_TEST(call_results)
{
    gt__mpi_call w;
    gt__mpi_call_init(&w, 0, 0, NULL, NULL, NULL);
    gt__placement_set(&w.place);
    gt_place p = {.distributed = &w.place};
    double d = 1.5, lo = NAN;
    gt__place_result(&p, 0, 0, GT_FLOAT64, &d);   /* sum */
    gt__place_result(&p, 1, 1, GT_FLOAT64, &lo);  /* min: a NaN first */
    d = 2.25;
    lo = 3.0;
    gt__place_result(&p, 0, 0, GT_FLOAT64, &d);
    gt__place_result(&p, 1, 1, GT_FLOAT64, &lo);
    ck_assert(w.red[0].value.d == 3.75);
    ck_assert(w.red[1].value.d == 3.0);   /* min: the NaN loses */
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
    /* zeros that compare equal: the later part's, as min(0.0, -0.0) is -0 in the language
       (C's fmin gave the first here, glibc's) */
    d = 0.0;
    gt__place_result(&p, 5, 1, GT_FLOAT64, &d);
    d = -0.0;
    gt__place_result(&p, 5, 1, GT_FLOAT64, &d);
    ck_assert(w.red[5].value.d == 0.0 && signbit(w.red[5].value.d));
    f = -0.0f;
    gt__place_result(&p, 6, 2, GT_FLOAT32, &f);
    f = 0.0f;
    gt__place_result(&p, 6, 2, GT_FLOAT32, &f);
    ck_assert(w.red[6].value.f == 0.0f && !signbit(w.red[6].value.f));
    ck_assert_int_eq(w.nred, 7);
    ck_assert_int_eq(w.red_error, 0);
    /* a part that disagrees on a slot's type */
    gt__place_result(&p, 4, 2, GT_FLOAT64, &d);
    ck_assert_int_eq(w.red_error, GT_EINVAL);
    gt__placement_set(NULL);
    gt__mpi_call_free(&w);
    ck_assert_ptr_null(w.red);
}
END_TEST

/* In a part, the interiors of the call's storages are the part; any other storage is
   bound as it is. */
START_TEST(call_halo)
{
    const int64_t shape[3] = {10, 11, 3};
    gt_storage_opts o = {.halo = {{2, 1}, {0, 3}, {0, 0}}};
    gt_storage *u = gt_zeros(GT_FLOAT64, "IJK", shape, &o);
    gt_storage *v = gt_zeros(GT_FLOAT64, "IJK", shape, &o);
    gt_storage *s[1] = {u};
    gt__mpi_call w;
    gt__mpi_call_init(&w, 1, 1, s, NULL, NULL);
    ck_assert_str_eq(w.place.who, "rank 1");
    ck_assert_ptr_eq(w.place.ctx, &w);
    w.place.in_part = 1;
    w.place.part[0] = 3;
    w.place.part[1] = 2;
    w.place.size[0] = 4;
    w.place.size[1] = 6;
    gt__placement_set(&w.place);
    /* interior 7 x 8: I 2 + 3 below, 1 + (7 - 3 - 4) above; J 0 + 2, 3 + (8 - 2 - 6) */
    ck_assert_int_eq(gt__halo(u, 0, 0), 5);
    ck_assert_int_eq(gt__halo(u, 0, 1), 1);
    ck_assert_int_eq(gt__halo(u, 1, 0), 2);
    ck_assert_int_eq(gt__halo(u, 1, 1), 3);
    ck_assert_int_eq(gt__halo(v, 0, 0), 2);
    ck_assert_int_eq(gt__halo(v, 1, 1), 3);
    gt__placement_set(NULL);
    ck_assert_int_eq(gt__mpi_call_end(&w, 0), 0);
    gt__mpi_call_free(&w);
    gt_release(u);
    gt_release(v);
}
END_TEST

Suite *suite_mpi_call(void); /* collected by tests/unit/main.c */

Suite *suite_mpi_call(void)
{
    Suite *s = suite_create("mpi_call");
    TCase *t = tcase_create("call");
    tcase_add_test(t, call_part);
    tcase_add_test(t, call_results);
    tcase_add_test(t, call_halo);
    suite_add_tcase(s, t);
    return s;
}
