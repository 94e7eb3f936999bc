/* check_rt_place.c: gt__place and gt__halo (runtime/src/place.c) without MPI: a single
 * process's place, and a placed call through the fake layer of fake_layer.h (a part with an
 * offset inside the interiors of the storages the layer holds, inner edges, a wrapped axis):
 * gt__halo and the binding answer from the placement alone, gt__place checks the domain and
 * periodic conditions itself and asks the layer's hooks for every read beyond an inner edge,
 * gt__place_result, gt__levels_now, gt__keep and gt__keep_result reach the layer through its
 * hooks, the messages name what the layer says (never a rank), and no byte of the caller's
 * storages (their records and their data) changes. The MPI layer's hooks are
 * check_mpi_call.c's. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fake_layer.h"
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

/* A real scalar's bits as the ranks compare them: equal values alike (-0.0 and 0.0; a
   float and the double it widens to), every NaN alike, other values apart. */
START_TEST(test_scalar_real)
{
    ck_assert_int_eq(gt__scalar_real(-0.0), gt__scalar_real(0.0));
    ck_assert_int_eq(gt__scalar_real(0.0), 0);
    ck_assert_int_eq(gt__scalar_real((float)0.25), gt__scalar_real(0.25));
    ck_assert_int_ne(gt__scalar_real((float)0.1), gt__scalar_real(0.1));
    ck_assert_int_eq(gt__scalar_real(NAN), gt__scalar_real(-NAN));
    ck_assert_int_eq(gt__scalar_real(NAN), gt__scalar_real(0.0 * INFINITY));
    ck_assert_int_ne(gt__scalar_real(INFINITY), gt__scalar_real(-INFINITY));
    ck_assert_int_ne(gt__scalar_real(NAN), gt__scalar_real(INFINITY));
    ck_assert_int_eq(gt__scalar_real(-2.0), (int64_t)0xc000000000000000);   /* sign, 2^1 */
    ck_assert_int_ne(gt__scalar_real(1.0), gt__scalar_real(nextafter(1.0, 2.0)));
}
END_TEST

START_TEST(place_single_process)
{
    const int64_t size[3] = {7, 5, 3};
    gt_storage *none[2] = {NULL, NULL};
    gt_place p;
    memset(&p, 0x55, sizeof p);
    ck_assert_int_eq(gt__place(&info, none, size, NULL, 0, &p), 0);
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

/* The bytes a storage's record and its buffer hold. */
typedef struct {
    struct gt_storage rec;
    unsigned char *data;
    size_t bytes;
} Snapshot;

static Snapshot snap(const gt_storage *s)
{
    Snapshot n;
    memcpy(&n.rec, s, sizeof n.rec);
    n.bytes = s->buf->nbytes;
    n.data = malloc(n.bytes);
    memcpy(n.data, s->buf->host, n.bytes);
    return n;
}

static void same(Snapshot *n, const gt_storage *s)
{
    ck_assert_msg(memcmp(&n->rec, s, sizeof n->rec) == 0, "the storage's record changed");
    ck_assert_msg(n->bytes == s->buf->nbytes && memcmp(n->data, s->buf->host, n->bytes) == 0,
                  "the storage's data changed");
    free(n->data);
}

/* The core's messages name what the layer gave it, never MPI's notions. */
static void core_words(void)
{
    ck_assert_msg(!strstr(gt_last_error(), "rank") && !strstr(gt_last_error(), "gt_mpi"),
                  "\"%s\" names the MPI layer", gt_last_error());
}

/* A part [2, 2 + 4) x [1, 1 + 5) of u's interior (7 x 8 x 3, halo I (2, 1), J (0, 3)), at
   global (5, 11) of a 20 x 15 space that wraps along I; the part's lower I, upper I and
   lower J edges inner, its upper J edge the global one. v is not held by the layer. */
START_TEST(placed_call_core)
{
    const int64_t size[3] = {4, 5, 3}, shape[3] = {10, 11, 3};
    gt_storage_opts reach = {.halo = {{2, 1}, {0, 3}, {0, 0}}};
    gt_storage *u = gt_zeros(GT_FLOAT64, "IJK", shape, &reach);
    gt_storage *v = gt_zeros(GT_FLOAT64, "IJK", shape, NULL);
    double *hu = u->buf->host;
    for (size_t e = 0; e < u->buf->nbytes / sizeof *hu; e++)
        hu[e] = (double)e;   /* each element of the buffer holds its index */
    Snapshot su = snap(u), sv = snap(v);
    gt_storage *s[2] = {u, v};
    gt__placement p;
    fake_layer l;
    fake_placement(&p, &l);
    l.held = u;
    p.origin[0] = 5;
    p.origin[1] = 11;
    p.global[0] = 20;
    p.global[1] = 15;
    p.size[0] = 4;
    p.size[1] = 5;
    p.in_part = 1;
    p.part[0] = 2;
    p.part[1] = 1;
    p.inner[0][0] = p.inner[0][1] = p.inner[1][0] = 1;
    p.wrap[0] = 1;
    gt__placement_set(&p);

    /* gt__halo: u's halo grown by the rest of its interior around the part: I 2 + 2 below,
       1 + (7 - 2 - 4) above; J 0 + 1 below, 3 + (8 - 1 - 5) above; K as it is */
    ck_assert_int_eq(gt__halo(u, 0, 0), 4);
    ck_assert_int_eq(gt__halo(u, 0, 1), 2);
    ck_assert_int_eq(gt__halo(u, 1, 0), 1);
    ck_assert_int_eq(gt__halo(u, 1, 1), 5);
    ck_assert_int_eq(gt__halo(u, 2, 0), 0);
    ck_assert_int_eq(gt__halo(u, 2, 1), 0);
    /* a storage the layer does not hold is bound as it is */
    for (int d = 0; d < 3; d++)
        for (int side = 0; side < 2; side++)
            ck_assert_int_eq(gt__halo(v, d, side), 0);
    ck_assert_int_gt(l.nholds, 0);
    /* the binding sees the part: u's origin at the part's first point, interior element
       (2, 1, 0), storage element (4, 1, 0) */
    static const gt_stencil_info one = {"g", 1, fields};
    const unsigned char at_offset[1] = {1};
    const gt_domain dom = {{4, 5, 3}};
    int64_t got[3];
    gt_bound b;
    ck_assert_int_eq(gt__bind(&one, at_offset, s, &dom, got, &b), 0);
    ck_assert(*(double *)b.origin == (double)(u->offset + 4 * u->strides[0] + u->strides[1]));
    ck_assert_int_eq(got[0], 4);
    ck_assert_int_eq(got[1], 5);
    /* outside a part, and without a placement, the halo is the storage's */
    p.in_part = 0;
    ck_assert_int_eq(gt__halo(u, 0, 0), 2);
    ck_assert_int_eq(gt__halo(u, 1, 1), 3);
    p.in_part = 1;
    gt__placement_set(NULL);
    ck_assert_int_eq(gt__halo(u, 0, 0), 2);
    gt__placement_set(&p);

    /* gt__place: the place from the placement; the layer asked about the inner edges that
       u reads beyond (I: 2 below, 1 above), not J above (the global edge), nothing for v */
    gt_place place;
    memset(&place, 0x55, sizeof place);
    ck_assert_int_eq(gt__place(&info, s, size, NULL, 0, &place), 0);
    ck_assert_int_eq(place.origin[0], 5);
    ck_assert_int_eq(place.origin[1], 11);
    ck_assert_int_eq(place.lo[0], -5);
    ck_assert_int_eq(place.hi[0], 15);
    ck_assert_int_eq(place.lo[1], -11);
    ck_assert_int_eq(place.hi[1], 4);
    ck_assert_int_eq(place.wrap[0], 0);
    ck_assert_int_eq(place.wrap[1], 0);
    ck_assert_ptr_eq(place.distributed, &p);
    ck_assert_int_eq(p.calls, 1);
    ck_assert_ptr_eq(p.info, &info);
    ck_assert_int_eq(l.nreads, 2);
    ck_assert_int_eq(l.read[0].f, 0);
    ck_assert_int_eq(l.read[0].a, 0);
    ck_assert_int_eq(l.read[0].side, 0);
    ck_assert_int_eq(l.read[0].r, 2);
    ck_assert_ptr_eq(l.read[0].s, u);
    ck_assert_int_eq(l.read[1].a, 0);
    ck_assert_int_eq(l.read[1].side, 1);
    ck_assert_int_eq(l.read[1].r, 1);
    /* the checking call and the level check answer what the placement says; the checking
       call alone hands the layer the scalar arguments (the ranks compare them) */
    const gt__scalar args[2] = {{"dt", 0, gt__scalar_real(0.5)}, {"n", 1, 3}};
    ck_assert_int_eq(l.nscalar_calls, 0);
    p.check = 1;
    ck_assert_int_eq(gt__place(&info, s, size, args, 2, &place), 1);
    ck_assert_int_eq(l.read[2].check, 1);
    ck_assert_int_eq(l.nscalar_calls, 1);
    ck_assert_int_eq(l.nscalars, 2);
    ck_assert_str_eq(l.scalar0.name, "dt");
    ck_assert_int_eq(l.scalar0.bits, 0x3fe0000000000000);   /* 0.5: 2^-1, IEEE 754 */
    ck_assert_int_eq(gt__place(&info, s, size, NULL, 0, &place), 1);
    ck_assert_int_eq(l.nscalars, 0);
    p.check = 2;
    ck_assert_int_eq(gt__place(&info, s, size, args, 2, &place), 2);
    p.check = 0;
    ck_assert_int_eq(gt__place(&info, s, size, args, 2, &place), 0);
    ck_assert_int_eq(l.nscalar_calls, 2);
    /* the upper J edge inner too: asked about it (3 above) */
    l.nreads = 0;
    p.inner[1][1] = 1;
    ck_assert_int_eq(gt__place(&info, s, size, NULL, 0, &place), 0);
    ck_assert_int_eq(l.nreads, 3);
    ck_assert_int_eq(l.read[2].a, 1);
    ck_assert_int_eq(l.read[2].side, 1);
    ck_assert_int_eq(l.read[2].r, 3);
    /* no inner edge: nothing to ask */
    memset(p.inner, 0, sizeof p.inner);
    l.nreads = 0;
    ck_assert_int_eq(gt__place(&info, s, size, NULL, 0, &place), 0);
    ck_assert_int_eq(l.nreads, 0);
    p.inner[0][0] = p.inner[0][1] = p.inner[1][0] = 1;
    /* the layer's refusal is the call's */
    l.reads_rc = GT_EHALO;
    ck_assert_int_eq(gt__place(&info, s, size, NULL, 0, &place), GT_EHALO);
    ck_assert_error(GT_EHALO, "stencil 'f': part 7: the fake refuses field 0");
    l.reads_rc = 0;
    /* another domain, and a periodic condition along an axis that does not wrap: the
       core's own checks, in the layer's words */
    const int64_t other[3] = {4, 4, 3};
    ck_assert_int_eq(gt__place(&info, s, other, NULL, 0, &place), GT_ESHAPE);
    ck_assert_error(GT_ESHAPE, "stencil 'f': part 7: called with a domain of 4 x 4 along I "
                               "and J in a distributed call whose part is 4 x 5: call the "
                               "stencil with the domain fake_call gives");
    core_words();
    p.wrap[0] = 0;
    ck_assert_int_eq(gt__place(&info, s, size, NULL, 0, &place), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "stencil 'f': part 7: field 'u' has a periodic boundary "
                               "condition along I, but the decomposition is not periodic "
                               "along I (fake_wraps[0])");
    core_words();
    p.wrap[0] = 1;
    /* far bounds are clipped to +-2^30 */
    p.global[0] = (int64_t)1 << 40;
    ck_assert_int_eq(gt__place(&info, s, size, NULL, 0, &place), 0);
    ck_assert_int_eq(place.hi[0], (int64_t)1 << 30);
    p.global[0] = 20;

    /* out scalars, levels and keeping: the layer's */
    double x = 2.5;
    gt__place_result(&place, 3, 1, GT_FLOAT64, &x);
    ck_assert_int_eq(l.nresults, 1);
    ck_assert_int_eq(l.slot, 3);
    ck_assert_int_eq(l.op, 1);
    ck_assert_int_eq(l.dtype, GT_FLOAT64);
    ck_assert_ptr_eq(l.result, &x);
    gt__place_result(&place, -1, 0, GT_FLOAT64, &x);   /* no slot: nothing */
    ck_assert_int_eq(l.nresults, 1);
    ck_assert(x == 2.5);
    const int64_t none[4] = {0, 0, 0, 0}, below_j[4] = {0, 0, 1, 0}, above_j[4] = {0, 0, 0, 1};
    ck_assert_int_eq(gt__levels_now(&place, 1, below_j), 0);   /* an inner edge: later */
    ck_assert_int_eq(l.nlevels, 1);
    ck_assert_int_eq(l.after, 1);
    ck_assert_int_eq(gt__levels_now(&place, 1, above_j), 1);   /* the global edge: now */
    ck_assert_int_eq(l.after, 0);
    ck_assert_int_eq(gt__levels_now(&place, 1, none), 1);
    ck_assert_int_eq(gt__levels_now(&place, 0, below_j), 0);   /* a part: never */
    ck_assert_int_eq(gt__levels_now(&place, 2, below_j), 1);   /* the level check */
    ck_assert_int_eq(l.nlevels, 3);
    gt__kept *kept = (gt__kept *)&kept;
    ck_assert_int_eq(gt__keep(&place, &info, s, size, 1, 1, &kept), 0);
    ck_assert_ptr_null(kept);
    ck_assert_int_eq(l.nkeep, 1);
    ck_assert_int_eq(l.keep_checking, 1);
    gt__keep_result(&place, 1, &x, sizeof x);
    ck_assert_int_eq(l.nkeep_results, 1);

    /* without a placement: a single process's place again */
    gt__placement_set(NULL);
    ck_assert_int_eq(gt__place(&info, s, size, NULL, 0, &place), 0);
    ck_assert_ptr_null(place.distributed);
    ck_assert_int_eq(place.wrap[0], 1);
    /* nothing of the caller's storages changed */
    same(&su, u);
    same(&sv, v);
    gt_release(u);
    gt_release(v);
}
END_TEST

Suite *suite_rt_place(void); /* collected by tests/unit/main.c */

Suite *suite_rt_place(void)
{
    Suite *s = suite_create("rt_place");
    TCase *t = tcase_create("place");
    tcase_add_test(t, place_single_process);
    tcase_add_test(t, test_scalar_real);
    tcase_add_test(t, placed_call_core);
    suite_add_tcase(s, t);
    return s;
}
