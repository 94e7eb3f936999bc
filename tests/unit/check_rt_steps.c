/* check_rt_steps.c: gt__steps (runtime/src/steps.c), S_steps of the backends, with a step
 * function written here as generated code is (gt__bind or gt__bind_device, gt__place, then
 * the loop): un = 0.5 * (u[i-1] + u[i+1]) * w with iterate(un -> u). The results are
 * compared with the same steps on plain arrays, computed here: the frame (u's halo along I,
 * which no step computes) held at the values the caller put in u. On the fake device
 * (tests/unit/fake_device.h: device memory is host memory, transfers counted), the steps
 * run on the device (the fake given a copy within device memory, as the CUDA layer has): each
 * storage uploaded at most once, nothing downloaded, the frame copied on the device.
 * And the refusals: nothing computed, uploaded or written. gt__steps_tiled with its tiles
 * forced (GT_STEPS_TILE): one placed call per part and step, the same result. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "fake_device.h"
#include "rt_check.h"
#include <gt/gt.h>
#include <gt/gt_generated.h>

enum { NI = 7, NJ = 3, NK = 2 };

static const gt_field_info avg_fields[3] = {
    {"u", "IJK", GT_FLOAT64, 0, {{1, 1}, {0, 0}, {0, 0}}, {{1, 1}, {0, 0}, {0, 0}}, {0, 0, 0}},
    {"un", "IJK", GT_FLOAT64, 1, {{0, 0}, {0, 0}, {0, 0}}, {{0, 0}, {0, 0}, {0, 0}}, {0, 0, 0}},
    {"w", "IJK", GT_FLOAT64, 0, {{0, 0}, {0, 0}, {0, 0}}, {{0, 0}, {0, 0}, {0, 0}}, {0, 0, 0}},
};
static const gt_iterate_pair avg_pairs[1] = {{1, 0, 1}};
static const gt_stencil_info avg_info = {"avg", 3, avg_fields, 1, avg_pairs, 0};
static const unsigned char avg_offsets[3] = {1, 0, 0};

static int computes;        /* steps that computed (not the checking calls) */
static int rows_at[NJ];     /* computing calls whose part starts at row j (J origin) */
static int wide_parts;      /* computing calls of more than one row */
/* the fake device given a copy within device memory (as the CUDA layer has), counted */
static int within_copies;

/* one step, as a backend writes it; args: 1 to bind on the device */
static int avg_step(void *args, gt_storage *const *f, const gt_domain *dom)
{
    int device = *(const int *)args;
    int64_t n[3];
    gt_bound b[3];
    int rc = device ? gt__bind_device(&avg_info, avg_offsets, f, dom, n, b)
                    : gt__bind(&avg_info, avg_offsets, f, dom, n, b);
    if (rc)
        return rc;
    gt_place place;
    rc = gt__place(&avg_info, f, n, NULL, 0, &place);
    if (rc)
        return rc < 0 ? rc : 0;
    computes++;
    if (place.origin[1] >= 0 && place.origin[1] < NJ)
        rows_at[place.origin[1]]++;
    wide_parts += n[1] != 1;
    const double *u = b[0].origin, *w = b[2].origin;
    double *un = b[1].origin;
    for (int64_t k = 0; k < n[2]; k++)
        for (int64_t j = 0; j < n[1]; j++)
            for (int64_t i = 0; i < n[0]; i++) {
#define AT(x, di) ((i + (di)) * b[x].stride[0] + j * b[x].stride[1] + k * b[x].stride[2])
                un[AT(1, 0)] = 0.5 * (u[AT(0, -1)] + u[AT(0, 1)]) * w[AT(2, 0)];
#undef AT
            }
    return 0;
}

/* A storage of interior NI x NJ x NK, halo 1 along I where halo, filled from seed. */
static gt_storage *make(int halo, int device, double seed)
{
    int64_t shape[3] = {NI + 2 * halo, NJ, NK};
    gt_storage_opts o = {0};
    o.halo[0][0] = o.halo[0][1] = halo;
    o.device = device ? GT_CUDA : GT_HOST;
    gt_storage *s = gt_zeros(GT_FLOAT64, "IJK", shape, &o);
    ck_assert_msg(s != NULL, "%s", gt_last_error());
    double *p = gt_host(s, GT_WRITE);
    const int64_t *st = gt_strides(s);
    for (int64_t i = 0; i < shape[0]; i++)
        for (int64_t j = 0; j < NJ; j++)
            for (int64_t k = 0; k < NK; k++)
                p[i * st[0] + j * st[1] + k * st[2]] =
                    seed + 0.01 * (double)i - 0.1 * (double)j + 0.3 * (double)k;
    return s;
}

/* element (i, j, k) of the interior (i from -halo) */
static double get(gt_storage *s, int halo, int64_t i, int64_t j, int64_t k)
{
    const double *p = gt_host(s, GT_READ);
    const int64_t *st = gt_strides(s);
    return p[(i + halo) * st[0] + j * st[1] + k * st[2]];
}

/* nsteps steps on plain arrays: a and b with the frame (i = -1 and NI) of u; the result in
   want[i + 1][j][k] */
static void reference(gt_storage *u, gt_storage *w, int64_t nsteps,
                      double want[NI + 2][NJ][NK])
{
    static double a[NI + 2][NJ][NK], b[NI + 2][NJ][NK];
    for (int i = -1; i <= NI; i++)
        for (int j = 0; j < NJ; j++)
            for (int k = 0; k < NK; k++)
                a[i + 1][j][k] = b[i + 1][j][k] = get(u, 1, i, j, k);
    double (*cur)[NJ][NK] = a, (*nxt)[NJ][NK] = b;
    for (int64_t s = 0; s < nsteps; s++) {
        for (int i = 0; i < NI; i++)
            for (int j = 0; j < NJ; j++)
                for (int k = 0; k < NK; k++)
                    nxt[i + 1][j][k] = 0.5 * (cur[i][j][k] + cur[i + 2][j][k]) *
                                       get(w, 0, i, j, k);
        double (*t)[NJ][NK] = cur;
        cur = nxt;
        nxt = t;
    }
    memcpy(want, cur, sizeof a);
}

/* gt__steps_tiled's parallel loop, here in order on one thread. */
static void serial_tiles(int64_t n, gt__tile_body *body, void *ctx)
{
    for (int64_t x = 0; x < n; x++)
        body(ctx, x);
}

static void run_as(int device, int64_t nsteps, int tiled)
{
    gt_storage *u = make(1, device, 1.0), *un = make(1, device, -7.0), *w = make(0, device, 0.5);
    double want[NI + 2][NJ][NK];
    reference(u, w, nsteps, want);
    gt_storage *f[3] = {u, un, w};
    int flag = device;
    int up = fake.uploads, down = fake.downloads;
    within_copies = 0;
    computes = 0;
    memset(rows_at, 0, sizeof rows_at);
    wide_parts = 0;
    int rc = tiled ? gt__steps_tiled(&avg_info, f, nsteps, NULL, avg_step, &flag, serial_tiles, 1)
                   : gt__steps(&avg_info, f, nsteps, NULL, avg_step, &flag, device);
    ck_assert_msg(rc == 0, "%s", gt_last_error());
    if (tiled && nsteps >= 2) {
        /* GT_STEPS_TILE=1,2 and no reach along J: tiles of one row, no gaps; each row's
           tile computes every step */
        ck_assert_int_eq(computes, NJ * nsteps);
        ck_assert_int_eq(wide_parts, 0);
        for (int j = 0; j < NJ; j++)
            ck_assert_int_eq(rows_at[j], nsteps);
    } else {
        ck_assert_int_eq(computes, nsteps);
    }
    if (device) {
        /* u, un, w uploaded once each at most (gt_zeros filled them on the host), nothing
           downloaded */
        ck_assert_msg(fake.uploads - up <= 3, "nsteps %lld: %d uploads", (long long)nsteps,
                      fake.uploads - up);
        ck_assert_int_eq(fake.downloads, down);
        if (nsteps > 0)
            ck_assert_int_gt(within_copies, 0);   /* the frame, or the result of one step */
    }
    /* the result in u, the frame as it was */
    for (int i = -1; i <= NI; i++)
        for (int j = 0; j < NJ; j++)
            for (int k = 0; k < NK; k++)
                ck_assert_msg(get(u, 1, i, j, k) == want[i + 1][j][k],
                              "nsteps %lld: u(%d,%d,%d) is %.17g, want %.17g",
                              (long long)nsteps, i, j, k, get(u, 1, i, j, k),
                              want[i + 1][j][k]);
    gt_release(u);
    gt_release(un);
    gt_release(w);
}

static void run(int device, int64_t nsteps)
{
    run_as(device, nsteps, 0);
}

/* On the host: every count of the definition (even, odd, 0, 1). */
START_TEST(host_steps)
{
    for (int64_t n = 0; n <= 6; n++)
        run(0, n);
    run(0, 17);
}
END_TEST

/* On the fake device: the storages stay there between steps. */
START_TEST(device_steps)
{
    for (int64_t n = 0; n <= 5; n++)
        run(1, n);
    run(1, 12);
}
END_TEST

/* Time-tiled (gt__steps_tiled) with tiles forced to one row and two steps: each part a
   placed call of one row, the result the loop's; GT_STEPS_TILE=0 the loop; a malformed
   GT_STEPS_TILE refused before anything is computed. */
START_TEST(tiled_steps)
{
    setenv("GT_STEPS_TILE", "1,2", 1);
    for (int64_t n = 0; n <= 5; n++)
        run_as(0, n, 1);
    run_as(0, 17, 1);
    setenv("GT_STEPS_TILE", "0", 1);
    run_as(0, 4, 0);
    gt_storage *u = make(1, 0, 1.0), *un = make(1, 0, -7.0), *w = make(0, 0, 0.5);
    gt_storage *f[3] = {u, un, w};
    int flag = 0;
    setenv("GT_STEPS_TILE", "8,", 1);
    computes = 0;
    ck_assert_int_eq(gt__steps_tiled(&avg_info, f, 4, NULL, avg_step, &flag, serial_tiles, 1),
                     GT_EINVAL);
    ck_assert_error(GT_EINVAL, "GT_STEPS_TILE is '8,'");
    ck_assert_int_eq(computes, 0);
    ck_assert_double_eq(get(un, 1, -1, 0, 0), -7.0);   /* no frame copied */
    /* digits only: no sign or space strtoll would skip, no number it would saturate */
    const char *const malformed[] = {" 4,2", "+4,2", "4, 2", "4,2,+1", "99999999999999999999,2",
                                     "4,99999999999999999999"};
    for (size_t m = 0; m < sizeof malformed / sizeof malformed[0]; m++) {
        setenv("GT_STEPS_TILE", malformed[m], 1);
        ck_assert_int_eq(gt__steps_tiled(&avg_info, f, 4, NULL, avg_step, &flag, serial_tiles,
                                         1),
                         GT_EINVAL);
        ck_assert_int_eq(computes, 0);
    }
    setenv("GT_STEPS_TILE", "0", 1);
    ck_assert_int_eq(gt__steps_tiled(&avg_info, f, 4, NULL, avg_step, &flag, serial_tiles, 1),
                     0);
    ck_assert_int_eq(computes, 4);   /* off: the loop, one call a step */
    unsetenv("GT_STEPS_TILE");
    gt_release(u);
    gt_release(un);
    gt_release(w);
}
END_TEST

/* Refused before anything: nsteps < 0, a storage the single call refuses (un without the
   halo the swapped order needs, the message saying which storage plays 'u' there), one
   storage for both fields of the pair (the single call's aliasing rule: u is read at
   offsets); nothing computed or written. (A pair that shares memory where the single call
   allows it: tests/numeric/test_steps.c, decay.) */
static int step_calls;   /* every call of counted_step, the checking calls included */

static int counted_step(void *args, gt_storage *const *f, const gt_domain *dom)
{
    step_calls++;
    return avg_step(args, f, dom);
}

/* An empty domain: however many steps, a few calls (each computing nothing), not nsteps. */
START_TEST(empty_domain_steps)
{
    gt_storage *u = make(1, 0, 1.0), *un = make(1, 0, -7.0), *w = make(0, 0, 0.5);
    gt_storage *f[3] = {u, un, w};
    int flag = 0;
    const gt_domain empty = {{0, NJ, NK}};
    const int64_t counts[2] = {INT64_MAX - 1, INT64_MAX};   /* even, odd */
    for (int c = 0; c < 2; c++) {
        step_calls = 0;
        ck_assert_int_eq(gt__steps(&avg_info, f, counts[c], &empty, counted_step, &flag, 0), 0);
        ck_assert_int_le(step_calls, 5);   /* 2 checking calls, 2 or 3 steps */
    }
    ck_assert_double_eq(get(u, 1, 0, 0, 0), 1.01);   /* as made: nothing computed */
    gt_release(u);
    gt_release(un);
    gt_release(w);
}
END_TEST

START_TEST(refusals)
{
    gt_storage *u = make(1, 1, 1.0), *un = make(1, 1, 2.0), *w = make(0, 1, 0.5);
    gt_storage *thin = make(0, 1, 3.0);
    int flag = 1, up = fake.uploads;
    computes = 0;
    gt_storage *f[3] = {u, un, w};
    ck_assert_int_eq(gt__steps(&avg_info, f, -1, NULL, avg_step, &flag, 1), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "nsteps is -1");
    ck_assert_int_eq(fake.uploads, up);
    gt_storage *g[3] = {u, thin, w};
    /* one step reads only u: thin is fine as un; two swap the roles */
    ck_assert_int_eq(gt__steps(&avg_info, g, 2, NULL, avg_step, &flag, 1), GT_EHALO);
    /* the message names 'u', which thin plays there: it says so */
    ck_assert_error(GT_EHALO, "field 'u': halo along I is [0,0] but the stencil needs [1,1] "
                              "(the steps after the first swap the storages of iterate's "
                              "pairs: 'u' there is the storage given as 'un', and the other "
                              "way round");
    gt_storage *h[3] = {u, u, w};
    ck_assert_int_eq(gt__steps(&avg_info, h, 3, NULL, avg_step, &flag, 1), GT_EALIAS);
    ck_assert_int_eq(computes, 0);
    ck_assert_double_eq(get(thin, 0, 0, 0, 0), 3.0);
    ck_assert_double_eq(get(un, 1, -1, 0, 0), 2.0);   /* no frame copied */
    gt_release(u);
    gt_release(un);
    gt_release(w);
    gt_release(thin);
}
END_TEST


/* A pointwise step, un = 0.5 * u (no frame), bound on the device. */
static const gt_field_info half_fields[2] = {
    {"u", "IJK", GT_FLOAT64, 0, {{0, 0}, {0, 0}, {0, 0}}, {{0, 0}, {0, 0}, {0, 0}}, {0, 0, 0}},
    {"un", "IJK", GT_FLOAT64, 1, {{0, 0}, {0, 0}, {0, 0}}, {{0, 0}, {0, 0}, {0, 0}}, {0, 0, 0}},
};
static const gt_stencil_info half_info = {"half", 2, half_fields, 1, avg_pairs, 0};

/* b[1] = 0.5 * b[0] over the n points bound. */
static void halve(const gt_bound *b, const int64_t n[3])
{
    const double *u = b[0].origin;
    double *un = b[1].origin;
    for (int64_t k = 0; k < n[2]; k++)
        for (int64_t j = 0; j < n[1]; j++)
            for (int64_t i = 0; i < n[0]; i++)
                un[i * b[1].stride[0] + j * b[1].stride[1] + k * b[1].stride[2]] =
                    0.5 * u[i * b[0].stride[0] + j * b[0].stride[1] + k * b[0].stride[2]];
}

/* A step of info whose pairs are its fields (0, 1), (2, 3), ...: each next = 0.5 * cur, bound
   on the device. */
static int halve_pairs(const gt_stencil_info *info, const unsigned char *offsets,
                       gt_storage *const *f, const gt_domain *dom)
{
    int64_t n[3];
    gt_bound b[4];
    int rc = gt__bind_device(info, offsets, f, dom, n, b);
    if (rc)
        return rc;
    gt_place place;
    rc = gt__place(info, f, n, NULL, 0, &place);
    if (rc)
        return rc < 0 ? rc : 0;
    computes++;
    for (int x = 0; x < info->nfields; x += 2)
        halve(b + x, n);
    return 0;
}

static int half_step(void *args, gt_storage *const *f, const gt_domain *dom)
{
    (void)args;
    static const unsigned char offsets[2] = {0, 0};
    return halve_pairs(&half_info, offsets, f, dom);
}

/* An odd count ends with a copy of next's domain into cur, which device-only storages of
   two layouts cannot have: refused before the first step, cur as it was (the copy was
   tried after the steps, which had written cur). */
START_TEST(odd_copy_refused)
{
    static double a[NI * NJ * NK], b[NI * NJ * NK];
    for (int x = 0; x < NI * NJ * NK; x++)
        a[x] = 1.0 + x, b[x] = -1.0;
    const int64_t shape[3] = {NI, NJ, NK}, c[3] = {NJ * NK, NK, 1}, fo[3] = {1, NI, NI * NJ};
    gt_storage *u = gt_wrap_device(a, GT_FLOAT64, "IJK", shape, c, NULL);
    gt_storage *un = gt_wrap_device(b, GT_FLOAT64, "IJK", shape, fo, NULL);
    ck_assert_msg(u && un, "%s", gt_last_error());
    gt_storage *f[2] = {u, un};
    computes = 0;
    ck_assert_int_eq(gt__steps(&half_info, f, 3, NULL, half_step, NULL, 1), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "device-only storages are copied only between one layout");
    ck_assert_int_eq(computes, 0);
    for (int x = 0; x < NI * NJ * NK; x++)
        ck_assert_double_eq(a[x], 1.0 + x);
    ck_assert_int_eq(gt__steps(&half_info, f, 2, NULL, half_step, NULL, 1), 0);
    ck_assert_int_eq(computes, 2);                    /* even: no copy of the result */
    ck_assert_double_eq(a[1], 0.25 * 2.0);
    gt_release(u);
    gt_release(un);
}
END_TEST

/* Two pairs whose storages have a frame along I (halo 1 each side), a pointwise step bound on
   the device. */
static const gt_field_info pair2_fields[4] = {
    {"u", "IJK", GT_FLOAT64, 0, {{1, 1}, {0, 0}, {0, 0}}, {{1, 1}, {0, 0}, {0, 0}}, {0, 0, 0}},
    {"un", "IJK", GT_FLOAT64, 1, {{1, 1}, {0, 0}, {0, 0}}, {{1, 1}, {0, 0}, {0, 0}}, {0, 0, 0}},
    {"v", "IJK", GT_FLOAT64, 0, {{1, 1}, {0, 0}, {0, 0}}, {{1, 1}, {0, 0}, {0, 0}}, {0, 0, 0}},
    {"vn", "IJK", GT_FLOAT64, 1, {{1, 1}, {0, 0}, {0, 0}}, {{1, 1}, {0, 0}, {0, 0}}, {0, 0, 0}},
};
static const gt_iterate_pair pair2_pairs[2] = {{1, 0, 1}, {3, 2, 1}};
static const gt_stencil_info pair2_info = {"pair2", 4, pair2_fields, 2, pair2_pairs, 0};

static int pair2_step(void *args, gt_storage *const *f, const gt_domain *dom)
{
    (void)args;
    static const unsigned char offsets[4] = {1, 0, 1, 0};
    return halve_pairs(&pair2_info, offsets, f, dom);
}

/* The frames' copies, like the result's, refused before anything is written: device-only
   storages, the first pair's two of one layout, the second's of two (whose frame cannot be
   copied on the device). The first pair's frame was copied into un before the second's was
   refused. */
START_TEST(frame_copy_refused)
{
    enum { N = (NI + 2) * NJ * NK };
    static double a[4][N];
    for (int x = 0; x < N; x++)
        for (int f = 0; f < 4; f++)
            a[f][x] = f % 2 ? -1.0 : 1.0 + x;
    const int64_t shape[3] = {NI + 2, NJ, NK}, c[3] = {NJ * NK, NK, 1},
                  fo[3] = {1, NI + 2, (NI + 2) * NJ};
    gt_storage_opts o = {0};
    o.halo[0][0] = o.halo[0][1] = 1;
    gt_storage *f[4];
    for (int x = 0; x < 4; x++) {
        f[x] = gt_wrap_device(a[x], GT_FLOAT64, "IJK", shape, x == 3 ? fo : c, &o);
        ck_assert_msg(f[x] != NULL, "%s", gt_last_error());
    }
    computes = 0;
    ck_assert_int_eq(gt__steps(&pair2_info, f, 2, NULL, pair2_step, NULL, 1), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "stencil 'pair2': steps: pair vn -> v: the two storages of a "
                               "pair have layouts KJI and IJK; device-only storages are copied "
                               "only between one layout: give both storages of the pair one "
                               "layout (their strides in the same order)");
    ck_assert_int_eq(computes, 0);
    for (int x = 0; x < N; x++) {
        ck_assert_double_eq(a[1][x], -1.0);
        ck_assert_double_eq(a[3][x], -1.0);
    }
    for (int x = 0; x < 4; x++)
        gt_release(f[x]);
}
END_TEST

static int fake_within(void *dst, const void *src, size_t n)
{
    memmove(dst, src, n);
    within_copies++;
    return 0;
}

static gt__device_ops steps_ops;

static void setup(void)
{
    fake_setup();
    steps_ops = fake_ops;
    steps_ops.device_copy = fake_within;
    gt__set_device_ops(&steps_ops);
    within_copies = 0;
}

static void teardown(void)
{
    fake_teardown();
}

Suite *suite_rt_steps(void); /* collected by tests/unit/main.c */

Suite *suite_rt_steps(void)
{
    Suite *s = suite_create("rt_steps");
    TCase *t = tcase_create("steps");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, host_steps);
    tcase_add_test(t, device_steps);
    tcase_add_test(t, refusals);
    tcase_add_test(t, empty_domain_steps);
    tcase_add_test(t, odd_copy_refused);
    tcase_add_test(t, frame_copy_refused);
    tcase_add_test(t, tiled_steps);
    suite_add_tcase(s, t);
    return s;
}
