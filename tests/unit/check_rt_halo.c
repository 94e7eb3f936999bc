/* check_rt_halo.c: gt_fill_halo, swept over the four boundary conditions x subsets and orders
 * of axes x layouts x axis orders x dtypes, against a reference that applies language.md
 * section 7 axis by axis in the order given (so corners compose the rules, and a Dirichlet
 * axis among them gives its value); plus its error paths, which change nothing. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"
#include "rt_check.h"

#define SENTINEL (-5.0)
#define DIRICHLET 7.0

/* Element of s at interior coordinates p (by axis name I, J, K). */
static unsigned char *at(gt_storage *s, const int64_t *p)
{
    unsigned char *base = gt__host_raw(s);
    int64_t off = 0;
    for (int d = 0; d < gt_ndim(s); d++) {
        int a = gt_axes(s)[d] - 'I';
        off += (p[a] + gt_halo(s)[d][0]) * gt_strides(s)[d];
    }
    return base + off * (int64_t)gt_dtype_size(gt_dtype_of(s));
}

static void put(gt_storage *s, const int64_t *p, double v)
{
    unsigned char *e = at(s, p);
    switch (gt_dtype_of(s)) {
    case GT_FLOAT32: *(float *)e = (float)v; break;
    case GT_FLOAT64: *(double *)e = v; break;
    case GT_INT32: *(int32_t *)e = (int32_t)v; break;
    case GT_BOOL: *(_Bool *)e = ((int64_t)v & 1) != 0; break;
    }
}

static double get(gt_storage *s, const int64_t *p)
{
    unsigned char *e = at(s, p);
    switch (gt_dtype_of(s)) {
    case GT_FLOAT32: return *(float *)e;
    case GT_FLOAT64: return *(double *)e;
    case GT_INT32: return *(int32_t *)e;
    case GT_BOOL: return *(_Bool *)e;
    }
    return -1;
}

static double pattern(const int64_t *p)
{
    return (double)(p[0] * 100 + p[1] * 10 + p[2] + 1);
}

typedef struct {
    int64_t lo[3], n[3], hi[3]; /* halo and interior per axis name (n = 1, no halo if absent) */
} geometry;

static geometry geometry_of(gt_storage *s)
{
    geometry g;
    for (int a = 0; a < 3; a++) {
        int d = gt__axis_pos(s, (char)('I' + a));
        g.lo[a] = d < 0 ? 0 : gt_halo(s)[d][0];
        g.hi[a] = d < 0 ? 0 : gt_halo(s)[d][1];
        g.n[a] = d < 0 ? 1 : gt_shape(s)[d] - g.lo[a] - g.hi[a];
    }
    return g;
}

/* The value at p after filling axes[0..m) in order, from the initial state (pattern inside,
   sentinel in every halo). */
static double reference(const geometry *g, const char *axes, int m, gt_bc bc, const int64_t *p)
{
    if (m == 0) {
        for (int a = 0; a < 3; a++)
            if (p[a] < 0 || p[a] >= g->n[a])
                return SENTINEL;
        return pattern(p);
    }
    int a = axes[m - 1] - 'I';
    int64_t n = g->n[a], q = p[a], r[3] = {p[0], p[1], p[2]};
    if (q >= 0 && q < n)
        return reference(g, axes, m - 1, bc, p);
    switch (bc) {
    case GT_BC_DIRICHLET: return DIRICHLET;
    case GT_BC_PERIODIC: r[a] = q < 0 ? q + n : q - n; break;
    case GT_BC_NEUMANN: r[a] = q < 0 ? 0 : n - 1; break;
    case GT_BC_MIRROR: r[a] = q < 0 ? -q - 1 : 2 * n - q - 1; break;
    }
    return reference(g, axes, m - 1, bc, r);
}

static double as_dtype(gt_dtype t, double v)
{
    return t == GT_BOOL ? (double)(((int64_t)v & 1) != 0) : v;
}

static gt_storage *make(gt_dtype t, const char *axes, const char *preset)
{
    static const int64_t interior[3] = {5, 4, 3};
    static const int64_t halo[3][2] = {{2, 1}, {1, 2}, {1, 1}};
    gt_storage_opts o = {0};
    int64_t shape[3];
    for (int d = 0; d < (int)strlen(axes); d++) {
        int a = axes[d] - 'I';
        o.halo[d][0] = halo[a][0];
        o.halo[d][1] = halo[a][1];
        shape[d] = interior[a] + halo[a][0] + halo[a][1];
    }
    o.defaults = preset;
    o.alignment = 4;
    gt_storage *s = gt_empty(t, axes, shape, &o);
    ck_assert_msg(s != NULL, "%s", gt_last_error());
    geometry g = geometry_of(s);
    int64_t p[3];
    for (p[0] = -g.lo[0]; p[0] < g.n[0] + g.hi[0]; p[0]++)
        for (p[1] = -g.lo[1]; p[1] < g.n[1] + g.hi[1]; p[1]++)
            for (p[2] = -g.lo[2]; p[2] < g.n[2] + g.hi[2]; p[2]++)
                put(s, p, reference(&g, "", 0, GT_BC_PERIODIC, p));
    return s;
}

static const char *const fill_axes[] = {"I", "J", "K", "IJ", "JI", "IJK", "KJI", "KI", NULL};
static const char *const storage_axes[] = {"IJK", "KIJ", "JI"};
static const char *const presets[] = {"C", "F"};
#define N_FILL 9
#define N_STORE 3

/* Fills the halo of a fresh storage along fa (NULL: all axes) and compares every element with
   the reference. */
static void fill_case(gt_dtype t, const char *sa, const char *preset, const char *fa, gt_bc bc)
{
    gt_storage *s = make(t, sa, preset);
    int rc = gt_fill_halo(s, fa, bc, DIRICHLET);
    ck_assert_msg(rc == 0, "%s", gt_last_error());
    const char *done = fa ? fa : sa;
    geometry g = geometry_of(s);
    int64_t p[3];
    for (p[0] = -g.lo[0]; p[0] < g.n[0] + g.hi[0]; p[0]++)
        for (p[1] = -g.lo[1]; p[1] < g.n[1] + g.hi[1]; p[1]++)
            for (p[2] = -g.lo[2]; p[2] < g.n[2] + g.hi[2]; p[2]++) {
                double want = as_dtype(t, reference(&g, done, (int)strlen(done), bc, p));
                if (get(s, p) != want)
                    ck_abort_msg("%s %s bc %d axes %s at (%lld,%lld,%lld): %g, want %g", sa,
                                 preset, (int)bc, done, (long long)p[0], (long long)p[1],
                                 (long long)p[2], get(s, p), want);
            }
    gt_release(s);
}

/* One loop iteration per bc x storage axes x layout; inside, every choice of axes, with the
   dtype varying along. */
START_TEST(fill_sweep)
{
    gt_bc bc = (gt_bc)(_i % 4);
    const char *sa = storage_axes[_i / 4 % N_STORE];
    const char *preset = presets[_i / (4 * N_STORE)];
    for (int f = 0; f < N_FILL; f++) {
        const char *fa = fill_axes[f];
        if (fa && strlen(sa) == 2 && strchr(fa, 'K'))
            continue; /* an axis the storage lacks: see fill_errors */
        fill_case((gt_dtype)((_i + f) % 4), sa, preset, fa, bc);
    }
}
END_TEST

/* The language's corner rule, spelled out once: periodic in I and J reads across the
   diagonal; a Dirichlet axis among the axes gives its value at the corners. */
START_TEST(corners)
{
    gt_storage *s = make(GT_FLOAT64, "IJK", "C");
    ck_assert_int_eq(gt_fill_halo(s, "IJ", GT_BC_PERIODIC, 0), 0);
    int64_t corner[3] = {-1, -1, 0}, diag[3] = {4, 3, 0};
    ck_assert_double_eq(get(s, corner), pattern(diag));
    ck_assert_int_eq(gt_fill_halo(s, "J", GT_BC_DIRICHLET, -2), 0);
    ck_assert_double_eq(get(s, corner), -2);
    int64_t edge[3] = {-1, 0, 0}; /* an I halo cell inside J keeps its periodic value */
    int64_t src[3] = {4, 0, 0};
    ck_assert_double_eq(get(s, edge), pattern(src));
    gt_release(s);
}
END_TEST

START_TEST(fill_errors)
{
    gt_storage *s = make(GT_FLOAT64, "IJK", "F");
    size_t bytes = (size_t)(gt_shape(s)[0] * gt_shape(s)[1] * gt_shape(s)[2]) * 8;
    unsigned char *before = malloc(bytes);
    memcpy(before, gt_host(s, GT_READ), bytes);
    ck_assert_int_eq(gt_fill_halo(NULL, "I", GT_BC_NEUMANN, 0), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "gt_fill_halo: storage is NULL");
    ck_assert_int_eq(gt_fill_halo(s, "I", (gt_bc)9, 0), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "invalid boundary condition 9 (GT_BC_PERIODIC, "
                               "GT_BC_DIRICHLET, GT_BC_NEUMANN or GT_BC_MIRROR)");
    ck_assert_int_eq(gt_fill_halo(s, "IX", GT_BC_NEUMANN, 0), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "'X' is not I, J or K");
    ck_assert_int_eq(gt_fill_halo(s, "II", GT_BC_NEUMANN, 0), GT_EINVAL);
    ck_assert_int_eq(gt_fill_halo(s, "", GT_BC_NEUMANN, 0), GT_EINVAL);
    gt_storage *ij = make(GT_INT32, "JI", "C");
    ck_assert_int_eq(gt_fill_halo(ij, "IK", GT_BC_NEUMANN, 0), GT_EAXES);
    ck_assert_error(GT_EAXES, "storage JI int32 (7,8) has no axis K");
    ck_assert_int_eq(gt_fill_halo(ij, "I", GT_BC_DIRICHLET, 0.5), GT_EINVAL);
    /* naming the storage, as the other refusals do (it said "gt_fill_halo: value 0.5 ...") */
    ck_assert_error(GT_EINVAL, "gt_fill_halo: storage JI int32 (7,8): dirichlet: value 0.5 is "
                               "not an int32 (an integer in [-2147483648, 2147483647])");
    gt_release(ij);
    /* periodic and mirror read at most the interior's width */
    int64_t shape[2] = {7, 4};
    gt_storage_opts o = {0};
    o.halo[0][0] = 3, o.halo[0][1] = 2; /* interior 2 along I */
    gt_storage *narrow = gt_zeros(GT_FLOAT32, "IJ", shape, &o);
    ck_assert_int_eq(gt_fill_halo(narrow, "I", GT_BC_PERIODIC, 0), GT_EHALO);
    ck_assert_error(GT_EHALO, "storage IJ float32 (7,4): halo along I is [3,2], wider than the "
                              "interior 2 that periodic reads");
    ck_assert_int_eq(gt_fill_halo(narrow, "JI", GT_BC_MIRROR, 0), GT_EHALO);
    ck_assert_error(GT_EHALO, "mirror");
    ck_assert_int_eq(gt_fill_halo(narrow, "I", GT_BC_NEUMANN, 0), 0); /* fine for these */
    ck_assert_int_eq(gt_fill_halo(narrow, "I", GT_BC_DIRICHLET, 1), 0);
    o.halo[0][0] = 4, o.halo[0][1] = 3; /* no interior at all */
    gt_storage *none = gt_zeros(GT_FLOAT32, "IJ", shape, &o);
    ck_assert_int_eq(gt_fill_halo(none, "I", GT_BC_NEUMANN, 0), GT_EHALO);
    ck_assert_error(GT_EHALO, "empty interior: neumann has nothing to extend");
    ck_assert_int_eq(gt_fill_halo(none, "J", GT_BC_NEUMANN, 0), 0); /* no J halo: nothing */
    gt_release(narrow);
    gt_release(none);
    ck_assert_int_eq(memcmp(before, gt_host(s, GT_READ), bytes), 0); /* s untouched */
    free(before);
    gt_release(s);
}
END_TEST

START_TEST(fill_views_and_wrapped)
{
    /* a domain view has no halo: nothing to do; a wrapped buffer is filled in place */
    gt_storage *s = make(GT_FLOAT64, "IJK", "C");
    gt_storage *v = gt_domain_view(s);
    ck_assert_int_eq(gt_fill_halo(v, NULL, GT_BC_MIRROR, 0), 0);
    gt_release(v);
    gt_release(s);
    static double buf[4 * 6];
    int64_t shape[2] = {4, 6}, strides[2] = {6, 1};
    gt_storage_opts o = {0};
    o.halo[1][0] = o.halo[1][1] = 1;
    gt_storage *w = gt_wrap(buf, GT_FLOAT64, "IJ", shape, strides, &o);
    for (int i = 0; i < 4; i++)
        for (int j = 1; j < 5; j++)
            buf[i * 6 + j] = i * 10 + j;
    ck_assert_int_eq(gt_fill_halo(w, "J", GT_BC_MIRROR, 0), 0);
    ck_assert_double_eq(buf[2 * 6 + 0], 21);
    ck_assert_double_eq(buf[2 * 6 + 5], 24);
    gt_release(w);
}
END_TEST

Suite *suite_rt_halo(void); /* collected by tests/unit/main.c */

Suite *suite_rt_halo(void)
{
    Suite *s = suite_create("rt_halo");
    TCase *t = tcase_create("sweep");
    tcase_add_loop_test(t, fill_sweep, 0, 4 * N_STORE * 2);
    suite_add_tcase(s, t);
    t = tcase_create("halo");
    tcase_add_test(t, corners);
    tcase_add_test(t, fill_errors);
    tcase_add_test(t, fill_views_and_wrapped);
    suite_add_tcase(s, t);
    return s;
}
