/* check_rt_copy.c: gt_copy_into swept over axis orders x layouts x halos x dtypes (the copied
 * region is the interior plus the halo both sides have; the rest of dst is untouched), with
 * sizes that leave partial tiles; its error paths (nothing touched on error); gt_copy; and
 * the strided-box engine (gt__copy_box, gt__fill_box) against a naive reference for
 * arbitrary strides and element sizes. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"
#include "rt_check.h"

/* Element access by interior coordinates p[0..2] given by axis NAME (I, J, K). */
typedef struct {
    unsigned char *base; /* element 0 of the interior */
    int64_t stride[3];   /* bytes, by axis name; 0 where absent */
    gt_dtype dtype;
} accessor;

static accessor access_of(gt_storage *s)
{
    accessor x = {gt_host(s, GT_READWRITE), {0, 0, 0}, gt_dtype_of(s)};
    int64_t es = (int64_t)gt_dtype_size(x.dtype);
    for (int d = 0; d < gt_ndim(s); d++) {
        int a = gt_axes(s)[d] - 'I';
        x.stride[a] = gt_strides(s)[d] * es;
        x.base += gt_halo(s)[d][0] * x.stride[a];
    }
    return x;
}

static unsigned char *at(const accessor *x, const int64_t *p)
{
    return x->base + p[0] * x->stride[0] + p[1] * x->stride[1] + p[2] * x->stride[2];
}

/* The test pattern: a value per point, exact in every dtype (bool: parity). */
static double pattern(const int64_t *p)
{
    return (double)((p[0] + 3) * 1000 + (p[1] + 3) * 10 + (p[2] + 3));
}

static void put(const accessor *x, const int64_t *p, double v)
{
    unsigned char *e = at(x, p);
    switch (x->dtype) {
    case GT_FLOAT32: *(float *)e = (float)v; break;
    case GT_FLOAT64: *(double *)e = v; break;
    case GT_INT32: *(int32_t *)e = (int32_t)v; break;
    case GT_BOOL: *(_Bool *)e = ((int64_t)v & 1) != 0; break;
    }
}

static double get(const accessor *x, const int64_t *p)
{
    unsigned char *e = at(x, p);
    switch (x->dtype) {
    case GT_FLOAT32: return *(float *)e;
    case GT_FLOAT64: return *(double *)e;
    case GT_INT32: return *(int32_t *)e;
    case GT_BOOL: return *(_Bool *)e;
    }
    return -1;
}

static double expect(gt_dtype t, double v)
{
    return t == GT_BOOL ? (double)(((int64_t)v & 1) != 0) : v;
}

/* Interior-coordinate range of s along axis name a (halo included): [*lo, *hi). */
static void range(gt_storage *s, int a, int64_t *lo, int64_t *hi)
{
    int d = gt__axis_pos(s, (char)('I' + a));
    if (d < 0) {
        *lo = 0, *hi = 1;
        return;
    }
    *lo = -gt_halo(s)[d][0];
    *hi = gt_shape(s)[d] - gt_halo(s)[d][0];
}

/* Sets every element of s: pattern (or sentinel if fill_sentinel). */
static void fill_all(gt_storage *s, int fill_sentinel)
{
    int64_t lo[3], hi[3], p[3];
    accessor x = access_of(s);
    for (int a = 0; a < 3; a++)
        range(s, a, &lo[a], &hi[a]);
    for (p[0] = lo[0]; p[0] < hi[0]; p[0]++)
        for (p[1] = lo[1]; p[1] < hi[1]; p[1]++)
            for (p[2] = lo[2]; p[2] < hi[2]; p[2]++)
                put(&x, p, fill_sentinel ? -1 : pattern(p));
}

/* Checks dst after gt_copy_into(dst, src): pattern inside src's range, sentinel outside. */
static void check_copied(gt_storage *dst, gt_storage *src)
{
    int64_t lo[3], hi[3], slo[3], shi[3], p[3];
    for (int a = 0; a < 3; a++) {
        range(dst, a, &lo[a], &hi[a]);
        range(src, a, &slo[a], &shi[a]);
    }
    gt_dtype t = gt_dtype_of(dst);
    accessor x = access_of(dst);
    for (p[0] = lo[0]; p[0] < hi[0]; p[0]++)
        for (p[1] = lo[1]; p[1] < hi[1]; p[1]++)
            for (p[2] = lo[2]; p[2] < hi[2]; p[2]++) {
                int in = 1;
                for (int a = 0; a < 3; a++)
                    in &= p[a] >= slo[a] && p[a] < shi[a];
                double want = in ? expect(t, pattern(p)) : expect(t, -1);
                double got = get(&x, p);
                if (got != want)
                    ck_abort_msg("at (%lld,%lld,%lld): %g, want %g", (long long)p[0],
                                 (long long)p[1], (long long)p[2], got, want);
            }
}

/* ---- the sweep -------------------------------------------------------------------------- */

static const char *const axes3[] = {"IJK", "KJI", "JKI"};
static const char *const layouts[] = {"C", "F", "cpu", "KIJ"};
static const int64_t interiors[][3] = {{37, 70, 5}, {3, 9, 67}, {70, 2, 33}};
static const int64_t halos[][3][2] = {
    {{0, 0}, {0, 0}, {0, 0}}, {{2, 1}, {1, 3}, {0, 2}}, {{1, 1}, {2, 2}, {1, 0}}};
#define NA 3
#define NL 4
#define NI_ 3
#define NH 3

static gt_storage *make(gt_dtype t, const char *axes, const char *layout, const int64_t *interior,
                        const int64_t (*halo)[2], int64_t alignment)
{
    gt_storage_opts o = {0};
    int64_t shape[3];
    for (int d = 0; d < (int)strlen(axes); d++) {
        int a = axes[d] - 'I';
        o.halo[d][0] = halo[a][0];
        o.halo[d][1] = halo[a][1];
        shape[d] = interior[a] + halo[a][0] + halo[a][1];
    }
    if (strlen(layout) == 3 && strcmp(layout, "cpu") != 0)
        o.layout = layout;
    else
        o.defaults = layout;
    o.alignment = alignment;
    gt_storage *s = gt_empty(t, axes, shape, &o);
    ck_assert_msg(s != NULL, "%s", gt_last_error());
    return s;
}

/* One loop iteration per dst axes x dst layout x src layout; inside, every src axes order x
   interior, with dtypes and halos varying along. */
START_TEST(copy_sweep)
{
    int da = _i % NA, dl = _i / NA % NL, sl = _i / (NA * NL);
    for (int inner = 0; inner < NA * NI_; inner++) {
        int sa = inner % NA, n = inner / NA;
        int dh = (_i + inner) % NH, sh = (dh + 1) % NH;
        gt_dtype t = (gt_dtype)((_i + inner) % 4);
        gt_storage *dst = make(t, axes3[da], layouts[dl], interiors[n], halos[dh], 0);
        gt_storage *src = make(t, axes3[sa], layouts[sl], interiors[n], halos[sh], 4);
        fill_all(src, 0);
        fill_all(dst, 1);
        ck_assert_msg(gt_copy_into(dst, src) == 0, "%s", gt_last_error());
        check_copied(dst, src);
        gt_release(dst);
        gt_release(src);
    }
}
END_TEST

/* 2-d and 1-d storages, and axes given in different orders. */
START_TEST(copy_low_dims)
{
    static const int64_t interior[3] = {41, 66, 1};
    static const int64_t h[3][2] = {{1, 0}, {2, 2}, {0, 0}};
    static const int64_t h0[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    gt_storage *a = make(GT_FLOAT64, "IJ", "C", interior, h, 0);
    gt_storage *b = make(GT_FLOAT64, "JI", "C", interior, h0, 0);
    fill_all(a, 0);
    fill_all(b, 1);
    ck_assert_int_eq(gt_copy_into(b, a), 0);
    check_copied(b, a);
    gt_storage *c = make(GT_FLOAT64, "JI", "F", interior, h, 8);
    fill_all(c, 1);
    ck_assert_int_eq(gt_copy_into(c, b), 0); /* b has no halo: only c's interior is set */
    check_copied(c, b);
    gt_release(a);
    gt_release(b);
    gt_release(c);
    static const int64_t line[3] = {1, 1, 100};
    static const int64_t hk[3][2] = {{0, 0}, {0, 0}, {3, 3}};
    gt_storage *k1 = make(GT_INT32, "K", "C", line, hk, 0);
    gt_storage *k2 = make(GT_INT32, "K", "F", line, hk, 16);
    fill_all(k1, 0);
    fill_all(k2, 1);
    ck_assert_int_eq(gt_copy_into(k2, k1), 0);
    check_copied(k2, k1);
    gt_release(k1);
    gt_release(k2);
}
END_TEST

/* Copies a C-order storage into an F-order one and back, checking both. */
static void transpose_both_ways(gt_dtype dtype, const int64_t *interior, const int64_t h[3][2])
{
    gt_storage *c = make(dtype, "IJK", "C", interior, h, 0);
    gt_storage *f = make(dtype, "IJK", "F", interior, h, 0);
    fill_all(c, 0);
    fill_all(f, 1);
    ck_assert_int_eq(gt_copy_into(f, c), 0);
    check_copied(f, c);
    fill_all(c, 1);
    ck_assert_int_eq(gt_copy_into(c, f), 0);
    check_copied(c, f);
    gt_release(c);
    gt_release(f);
}

/* A larger transpose (several tiles along every dimension), both ways. */
START_TEST(copy_large)
{
    static const int64_t interior[3] = {130, 67, 41};
    static const int64_t h[3][2] = {{2, 2}, {1, 1}, {0, 0}};
    transpose_both_ways(GT_FLOAT64, interior, h);
}
END_TEST

/* Transposes above the 4 MiB streaming threshold with every destination row on a cache line,
 * so that they take the non-temporal-store path of copy.c (both directions, 8- and 4-byte
 * elements, sizes that leave partial tiles). */
START_TEST(copy_stream)
{
    static const int64_t interior[2][3] = {{136, 96, 64}, {272, 80, 64}}; /* 6.4, 5.3 MiB */
    static const int64_t h[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    transpose_both_ways(_i == 0 ? GT_FLOAT64 : GT_FLOAT32, interior[_i], h);
}
END_TEST

START_TEST(copy_into_errors)
{
    static const int64_t interior[3] = {4, 5, 6}, other[3] = {4, 5, 7};
    static const int64_t h[3][2] = {{1, 1}, {0, 0}, {0, 0}};
    gt_storage *a = make(GT_FLOAT64, "IJK", "C", interior, h, 0);
    gt_storage *b = make(GT_FLOAT64, "IJK", "F", interior, h, 0);
    gt_storage *f32 = make(GT_FLOAT32, "IJK", "C", interior, h, 0);
    gt_storage *ij = make(GT_FLOAT64, "IJ", "C", interior, h, 0);
    gt_storage *ik = make(GT_FLOAT64, "IK", "C", interior, h, 0);
    gt_storage *big = make(GT_FLOAT64, "KJI", "C", other, h, 0);
    fill_all(a, 0);
    fill_all(b, 1);
    unsigned char before[4 * 5 * 6 * 8 * 2];
    memcpy(before, gt_host(b, GT_READ), 6 * 5 * 6 * 8);

    ck_assert_int_eq(gt_copy_into(NULL, a), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "gt_copy_into: dst is NULL");
    ck_assert_int_eq(gt_copy_into(b, NULL), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "src is NULL");
    ck_assert_int_eq(gt_copy_into(b, f32), GT_EDTYPE);
    ck_assert_error(GT_EDTYPE, "dst IJK float64 (6,5,6) and src IJK float32 (6,5,6) have "
                               "different dtypes");
    ck_assert_int_eq(gt_copy_into(ij, ik), GT_EAXES);
    ck_assert_error(GT_EAXES, "dst IJ float64 (6,5) and src IK float64 (6,6) have different axes");
    ck_assert_int_eq(gt_copy_into(b, ij), GT_EAXES);
    ck_assert_int_eq(gt_copy_into(b, big), GT_ESHAPE);
    ck_assert_error(GT_ESHAPE, "interior along K is 6 in dst but 7 in src");
    gt_storage *v = gt_domain_view(b);
    ck_assert_int_eq(gt_copy_into(v, b), GT_EALIAS);
    ck_assert_error(GT_EALIAS, "are views of one buffer");
    ck_assert_int_eq(gt_copy_into(b, v), GT_EALIAS);
    /* two views of one buffer whose elements are apart (I [0,2) and [2,4) of its interior): refused
       too, and the message says why rather than "overlap in memory" */
    gt_storage *lo = gt_domain_view(b), *hi = gt_domain_view(b);
    ck_assert_int_eq(gt_set_halo(lo, (const int64_t[3][2]){{0, 2}, {0, 0}, {0, 0}}), 0);
    ck_assert_int_eq(gt_set_halo(hi, (const int64_t[3][2]){{2, 0}, {0, 0}, {0, 0}}), 0);
    gt_storage *lov = gt_domain_view(lo), *hiv = gt_domain_view(hi);
    ck_assert_int_eq(gt_copy_into(hiv, lov), GT_EALIAS);
    ck_assert_error(GT_EALIAS, "dst IJK float64 (2,5,6) and src IJK float64 (2,5,6) are views "
                               "of one buffer, which gt_copy_into does not copy between");
    gt_release(lo);
    gt_release(hi);
    gt_release(lov);
    gt_release(hiv);
    ck_assert_int_eq(memcmp(before, gt_host(b, GT_READ), 6 * 5 * 6 * 8), 0); /* untouched */
    ck_assert_int_eq(gt_copy_into(b, b), 0); /* itself: nothing to do */
    ck_assert_int_eq(memcmp(before, gt_host(b, GT_READ), 6 * 5 * 6 * 8), 0);

    /* wrapped buffers with overlapping byte ranges */
    static double buf[100];
    int64_t shape[1] = {50};
    gt_storage *w1 = gt_wrap(buf, GT_FLOAT64, "K", shape, NULL, NULL);
    gt_storage *w2 = gt_wrap(buf + 49, GT_FLOAT64, "K", shape, NULL, NULL);
    gt_storage *w3 = gt_wrap(buf + 50, GT_FLOAT64, "K", shape, NULL, NULL);
    ck_assert_int_eq(gt_copy_into(w2, w1), GT_EALIAS);
    ck_assert_int_eq(gt_copy_into(w3, w1), 0); /* adjacent, not overlapping */
    /* interleaved views (the components of a NumPy array of pairs): ranges intersect,
       elements do not; one component on is the same elements */
    static double pairs[2 * 50];
    for (int n = 0; n < 100; n++)
        pairs[n] = n;
    int64_t two[1] = {2};
    gt_storage *c0 = gt_wrap(pairs, GT_FLOAT64, "K", shape, two, NULL);
    gt_storage *c1 = gt_wrap(pairs + 1, GT_FLOAT64, "K", shape, two, NULL);
    int64_t shorter[1] = {49};
    gt_storage *c2 = gt_wrap(pairs + 2, GT_FLOAT64, "K", shorter, two, NULL);
    ck_assert_msg(gt_copy_into(c0, c1) == 0, "%s", gt_last_error());
    for (int n = 0; n < 50; n++)
        ck_assert(pairs[2 * n] == 2 * n + 1 && pairs[2 * n + 1] == 2 * n + 1);
    gt_storage *c0s = gt_wrap(pairs, GT_FLOAT64, "K", shorter, two, NULL);
    ck_assert_int_eq(gt_copy_into(c0s, c2), GT_EALIAS);
    ck_assert_error(GT_EALIAS, "overlap in memory");
    gt_release(c0);
    gt_release(c1);
    gt_release(c2);
    gt_release(c0s);
    gt_release(w1);
    gt_release(w2);
    gt_release(w3);
    gt_release(v);
    gt_release(a);
    gt_release(b);
    gt_release(f32);
    gt_release(ij);
    gt_release(ik);
    gt_release(big);
}
END_TEST

START_TEST(copy_whole)
{
    static const int64_t interior[3] = {7, 9, 4};
    static const int64_t h[3][2] = {{1, 2}, {2, 1}, {0, 1}};
    gt_storage *a = make((gt_dtype)_i, "JKI", "cpu", interior, h, 8);
    fill_all(a, 0);
    gt_storage *c = gt_copy(a);
    ck_assert_ptr_nonnull(c);
    ck_assert_ptr_ne(gt_host(c, GT_READ), gt_host(a, GT_READ));
    ck_assert_str_eq(gt_axes(c), gt_axes(a));
    ck_assert_str_eq(gt_layout(c), gt_layout(a));
    ck_assert_int_eq(gt_dtype_of(c), gt_dtype_of(a));
    for (int d = 0; d < 3; d++) {
        ck_assert_int_eq(gt_shape(c)[d], gt_shape(a)[d]);
        ck_assert_int_eq(gt_strides(c)[d], gt_strides(a)[d]); /* same alignment, same padding */
        ck_assert_int_eq(gt_halo(c)[d][0], gt_halo(a)[d][0]);
        ck_assert_int_eq(gt_halo(c)[d][1], gt_halo(a)[d][1]);
    }
    check_copied(c, a);
    int64_t p[3] = {0, 0, 0};
    accessor xc = access_of(c), xa = access_of(a);
    put(&xc, p, 2); /* independent buffers */
    ck_assert(get(&xa, p) == expect(gt_dtype_of(a), pattern(p)));
    gt_release(c);
    gt_release(a);
}
END_TEST

/* ---- the box engine ------------------------------------------------------------------------ */

/* Naive reference: element by element with unravelled indices. */
static void ref_copy(unsigned char *dst, const int64_t *ds, const unsigned char *src,
                     const int64_t *ss, const int64_t *n, size_t es)
{
    for (int64_t i = 0; i < n[0]; i++)
        for (int64_t j = 0; j < n[1]; j++)
            for (int64_t k = 0; k < n[2]; k++)
                memcpy(dst + (i * ds[0] + j * ds[1] + k * ds[2]) * (int64_t)es,
                       src + (i * ss[0] + j * ss[1] + k * ss[2]) * (int64_t)es, es);
}

/* Dense strides for extents n in the dimension order perm (outermost first), each row
   padded by pad elements. */
static void strides_for(const int64_t *n, const int *perm, int64_t pad, int64_t *st, int64_t *span)
{
    int64_t run = 1;
    for (int k = 2; k >= 0; k--) {
        st[perm[k]] = run;
        run *= n[perm[k]] + (k == 2 ? pad : 0);
    }
    *span = run;
}

/* Copies (and fills) one box whose dimensions are ordered by dp in the destination and by sp
   in the source, with padded rows, and compares with the naive reference. */
static void box_case(const int *dp, const int *sp, const int64_t *n, size_t es, int64_t dpad,
                     int64_t spad, int odd_stride)
{
    int64_t ds[3], ss[3], dspan, sspan;
    strides_for(n, dp, dpad, ds, &dspan);
    strides_for(n, sp, spad, ss, &sspan);
    if (odd_stride) /* a non-unit innermost stride on the source side */
        for (int k = 0; k < 3; k++)
            ss[k] *= 2, sspan *= 2;
    size_t sb = (size_t)sspan * es + 8, db = (size_t)dspan * es + 8;
    unsigned char *src = malloc(sb), *got = malloc(db), *want = malloc(db);
    for (size_t b = 0; b < sb; b++)
        src[b] = (unsigned char)(b * 7 + 1);
    memset(got, 0xee, db);
    memset(want, 0xee, db);
    gt__copy_box(got, ds, src, ss, n, 3, es);
    ref_copy(want, ds, src, ss, n, es);
    ck_assert_int_eq(memcmp(got, want, db), 0);
    /* fill: every element of the box, nothing else */
    unsigned char value[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    memset(got, 0, db);
    memset(want, 0, db);
    gt__fill_box(got, ds, n, 3, es, value);
    for (int64_t i = 0; i < n[0]; i++)
        for (int64_t j = 0; j < n[1]; j++)
            for (int64_t k = 0; k < n[2]; k++)
                memcpy(want + (i * ds[0] + j * ds[1] + k * ds[2]) * (int64_t)es, value, es);
    ck_assert_int_eq(memcmp(got, want, db), 0);
    free(src);
    free(got);
    free(want);
}

/* One loop iteration per element size x padding; inside, every pair of dimension orders x
   extents. */
START_TEST(box_engine)
{
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                    {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    static const int64_t exts[][3] = {{33, 65, 7}, {1, 130, 3}, {9, 1, 70}, {64, 64, 1}, {5, 0, 3}};
    static const size_t esizes[3] = {1, 4, 8};
    size_t es = esizes[_i % 3];
    int64_t dpad = _i / 3 ? 3 : 0, spad = _i / 3 ? 0 : 2;
    for (int v = 0; v < 180; v++)
        box_case(perms[v % 6], perms[v / 6 % 6], exts[v / 36], es, dpad, spad, v % 7 == 3);
}
END_TEST

START_TEST(box_small)
{
    /* fewer than 3 dimensions, one element, bit patterns (NaN payloads) kept */
    uint64_t src[4] = {0x7ff8dead00000001ull, 2, 3, 4}, dst[4] = {0};
    int64_t one[1] = {1}, st[1] = {1};
    gt__copy_box(dst, st, src, st, one, 1, 8);
    ck_assert(dst[0] == src[0]);
    int64_t n2[2] = {2, 2}, s2[2] = {2, 1}, d2[2] = {1, 2};
    gt__copy_box(dst, d2, src, s2, n2, 2, 8);
    ck_assert(dst[0] == src[0] && dst[1] == 3 && dst[2] == 2 && dst[3] == 4);
    int64_t zero[2] = {2, 0};
    gt__copy_box(NULL, d2, NULL, s2, zero, 2, 8); /* empty: touches nothing */
    gt__fill_box(NULL, d2, zero, 2, 8, src);
}
END_TEST

Suite *suite_rt_copy(void); /* collected by tests/unit/main.c */

Suite *suite_rt_copy(void)
{
    Suite *s = suite_create("rt_copy");
    TCase *t = tcase_create("sweep");
    tcase_add_loop_test(t, copy_sweep, 0, NA * NL * NL);
    tcase_set_timeout(t, 60);
    suite_add_tcase(s, t);
    t = tcase_create("copy");
    tcase_add_test(t, copy_low_dims);
    tcase_add_test(t, copy_large);
    tcase_add_loop_test(t, copy_stream, 0, 2);
    tcase_add_test(t, copy_into_errors);
    tcase_add_loop_test(t, copy_whole, 0, 4);
    tcase_set_timeout(t, 60);
    suite_add_tcase(s, t);
    t = tcase_create("box");
    tcase_add_loop_test(t, box_engine, 0, 6);
    tcase_add_test(t, box_small);
    suite_add_tcase(s, t);
    return s;
}
