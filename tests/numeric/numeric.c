/* numeric.c: fields, random data, comparisons and the PASS/FAIL lines of the numeric test
 * drivers (numeric.h). Uses only the public runtime API. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numeric.h"

static int nfail;
int64_t fld_alignment;

int failures(void)
{
    return nfail;
}

/* ------------------------------------------------------------------ random */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

void rng_seed(uint64_t seed)
{
    rng_state = seed;
}

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

double rng_uniform(double lo, double hi)
{
    return lo + (hi - lo) * (double)(rng_next() >> 11) / 9007199254740992.0;
}

/* -------------------------------------------------------------------- Arr */

static bool has(const char *axes, int a)
{
    return strchr(axes, "IJK"[a]) != NULL;
}

double *arr_at(const Arr *a, int64_t i, int64_t j, int64_t k)
{
    int64_t idx[3] = {i, j, k}, off = 0;
    for (int d = 0; d < 3; d++) {
        int64_t x = has(a->axes, d) ? idx[d] : 0;
        if (x < -a->halo[d][0] || x >= a->n[d] + a->halo[d][1]) {
            fprintf(stderr, "arr_at: index %lld out of range along %c\n", (long long)x, "IJK"[d]);
            abort();
        }
        off += (x + a->halo[d][0]) * a->stride[d];
    }
    return &a->v[off];
}

static Arr arr_new(const char *axes, const int64_t n[3], const int64_t *h)
{
    Arr a = {0};
    a.axes = axes;
    int64_t total = 1;
    for (int d = 2; d >= 0; d--) {
        a.n[d] = has(axes, d) ? n[d] : 1;
        a.halo[d][0] = has(axes, d) ? h[2 * d] : 0;
        a.halo[d][1] = has(axes, d) ? h[2 * d + 1] : 0;
        a.stride[d] = total;
        total *= a.halo[d][0] + a.n[d] + a.halo[d][1];
    }
    a.v = calloc((size_t)total, sizeof(double));
    return a;
}

void arr_free(Arr *a)
{
    free(a->v);
    a->v = NULL;
}

/* -------------------------------------------------------------------- Fld */

static void *element(const Fld *f, void *base, int64_t i, int64_t j, int64_t k)
{
    const int64_t *st = gt_strides(f->s);
    int64_t idx[3] = {i, j, k}, off = 0;
    for (int d = 0; f->axes[d]; d++) {
        int a = f->axes[d] - 'I';
        off += (idx[a] + f->halo[a][0]) * st[d];
    }
    size_t es = f->dtype == GT_FLOAT64 ? 8 : f->dtype == GT_BOOL ? 1 : 4;
    return (char *)base + off * (int64_t)es;
}

static double load(gt_dtype t, const void *p)
{
    switch (t) {
    case GT_FLOAT64: return *(const double *)p;
    case GT_FLOAT32: return *(const float *)p;
    case GT_INT32: return *(const int32_t *)p;
    case GT_BOOL: return *(const bool *)p;
    }
    return 0;
}

static void store(gt_dtype t, void *p, double v)
{
    switch (t) {
    case GT_FLOAT64: *(double *)p = v; break;
    case GT_FLOAT32: *(float *)p = (float)v; break;
    case GT_INT32: *(int32_t *)p = (int32_t)v; break;
    case GT_BOOL: *(bool *)p = v != 0; break;
    }
}

/* Calls fn on every element (by name, from the interior origin), halo included. */
#define FOR_ALL(f, i, j, k)                                                                \
    for (int64_t i = has((f)->axes, 0) ? -(f)->halo[0][0] : 0;                             \
         i < (has((f)->axes, 0) ? (f)->n[0] + (f)->halo[0][1] : 1); i++)                   \
        for (int64_t j = has((f)->axes, 1) ? -(f)->halo[1][0] : 0;                         \
             j < (has((f)->axes, 1) ? (f)->n[1] + (f)->halo[1][1] : 1); j++)               \
            for (int64_t k = has((f)->axes, 2) ? -(f)->halo[2][0] : 0;                     \
                 k < (has((f)->axes, 2) ? (f)->n[2] + (f)->halo[2][1] : 1); k++)

Fld fld_new_range(gt_dtype dtype, Layout lay, const int64_t n[3], int64_t h[3][2],
                  double lo, double hi)
{
    Fld f = {0};
    f.dtype = dtype;
    f.axes = lay.axes;
    gt_storage_opts opts = {0};
    int64_t shape[3];
    for (int a = 0; a < 3; a++) {
        f.n[a] = has(lay.axes, a) ? n[a] : 1;
        f.halo[a][0] = has(lay.axes, a) ? h[a][0] : 0;
        f.halo[a][1] = has(lay.axes, a) ? h[a][1] : 0;
    }
    for (int d = 0; lay.axes[d]; d++) {
        int a = lay.axes[d] - 'I';
        shape[d] = f.halo[a][0] + f.n[a] + f.halo[a][1];
        opts.halo[d][0] = f.halo[a][0];
        opts.halo[d][1] = f.halo[a][1];
    }
    opts.layout = lay.layout;
    opts.alignment = fld_alignment;
    opts.defaults = lay.defaults;
    f.s = gt_empty(dtype, lay.axes, shape, &opts);
    if (!f.s) {
        fprintf(stderr, "gt_empty: %s\n", gt_last_error());
        exit(2);
    }
    char sorted[4] = "";
    for (int a = 0, m = 0; a < 3; a++)
        if (has(lay.axes, a))
            sorted[m++] = "IJK"[a];
    f.before = arr_new(strdup(sorted), f.n, &f.halo[0][0]);
    void *base = gt_host(f.s, GT_WRITE);
    FOR_ALL(&f, i, j, k) {
        double v;
        switch (dtype) {
        case GT_INT32: v = floor(rng_uniform(lo, hi + 1)); break;
        case GT_BOOL: v = rng_uniform(0, 1) < 0.5; break;
        case GT_FLOAT32: v = (float)rng_uniform(lo, hi); break;
        default: v = rng_uniform(lo, hi); break;
        }
        store(dtype, element(&f, base, i, j, k), v);
        A(f.before, i, j, k) = v;
    }
    return f;
}

Fld fld_new(gt_dtype dtype, Layout lay, const int64_t n[3], int64_t h[3][2])
{
    if (dtype == GT_INT32)
        return fld_new_range(dtype, lay, n, h, -50, 50);
    return fld_new_range(dtype, lay, n, h, -1, 1);
}

void fld_free(Fld *f)
{
    gt_release(f->s);
    free((char *)f->before.axes);
    arr_free(&f->before);
}

double fld_get(const Fld *f, int64_t i, int64_t j, int64_t k)
{
    void *base = gt_host(f->s, GT_READ);
    return load(f->dtype, element(f, base, i, j, k));
}

void fld_set(Fld *f, int64_t i, int64_t j, int64_t k, double v)
{
    void *base = gt_host(f->s, GT_WRITE);
    store(f->dtype, element(f, base, i, j, k), v);
    A(f->before, i, j, k) = v;
}

Arr fld_now(const Fld *f)
{
    Arr a = arr_new(f->before.axes, f->n, &f->halo[0][0]);
    FOR_ALL(f, i, j, k)
        A(a, i, j, k) = fld_get(f, i, j, k);
    return a;
}

Arr arr_like(const Fld *f)
{
    Arr a = arr_new(f->before.axes, f->n, &f->halo[0][0]);
    FOR_ALL(f, i, j, k)
        A(a, i, j, k) = A(f->before, i, j, k);
    return a;
}

/* ---------------------------------------------------------------- checks */

bool check(const char *name, bool ok, const char *fmt, ...)
{
    if (ok) {
        printf("PASS %s\n", name);
        return true;
    }
    printf("FAIL %s: ", name);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    nfail++;
    return false;
}

bool check_field(const char *name, const Fld *f, const Arr *expected, const int64_t d[3],
                 double tol)
{
    long bad = 0, bad_halo = 0;
    char first[256] = "";
    FOR_ALL(f, i, j, k) {
        int64_t idx[3] = {i, j, k};
        bool inside = true;
        for (int a = 0; a < 3; a++)
            if (has(f->axes, a) && (idx[a] < 0 || idx[a] >= d[a]))
                inside = false;
        double got = fld_get(f, i, j, k);
        if (inside) {
            double want = A(*expected, i, j, k);
            double err = fabs(got - want), scale = fabs(want) > 1 ? fabs(want) : 1;
            bool same = got == want || (isnan(got) && isnan(want)) || err <= tol * scale;
            if (!same && bad++ == 0)
                snprintf(first, sizeof first, "at (%lld,%lld,%lld): got %.17g, want %.17g",
                         (long long)i, (long long)j, (long long)k, got, want);
        } else {
            double was = A(f->before, i, j, k);
            if (!(got == was || (isnan(got) && isnan(was))) && bad_halo++ == 0)
                snprintf(first, sizeof first, "outside the domain at (%lld,%lld,%lld): "
                         "%.17g became %.17g", (long long)i, (long long)j, (long long)k, was,
                         got);
        }
    }
    return check(name, bad == 0 && bad_halo == 0, "%ld wrong, %ld changed outside; first %s",
                 bad, bad_halo, first);
}

bool check_unchanged(const char *name, const Fld *f)
{
    int64_t none[3] = {0, 0, 0};
    Arr same = arr_like(f);
    bool ok = check_field(name, f, &same, none, 0);
    arr_free(&same);
    return ok;
}

bool check_error(const char *name, int got, int want, const char *const *needles)
{
    if (got != want)
        return check(name, false, "returned %d (%s), expected %d (%s); message: %s", got,
                     gt_strerror(got), want, gt_strerror(want), gt_last_error());
    for (int i = 0; needles && needles[i]; i++)
        if (!strstr(gt_last_error(), needles[i]))
            return check(name, false, "message \"%s\" lacks \"%s\"", gt_last_error(),
                         needles[i]);
    return check(name, true, "%s", "");
}
