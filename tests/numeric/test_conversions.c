/* test_conversions.c: conversions.stn. int(e) follows language.md section 10.5 (truncation
 * toward zero, NaN -> 0, saturation to INT32_MIN / INT32_MAX), written here from the rule
 * (want_int), checked at run time with s = 1 (values in range), 1e10 (out of range), NaN and
 * infinity, and folded at compile time (foldint, one case per level). double(e) and float(e)
 * fix the precision of what follows; the new builtins are compared exactly with the C
 * library's functions, the f-suffixed ones for float. classify: isinf, isnan and isfinite
 * are bools of 0 or 1 at -inf, +inf and NaN (glibc's isinf(-inf) is -1), at run time and
 * folded. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "numeric.h"
#include "conversions.h"

enum { NI = 5, NJ = 4, NK = 9 };

/* the rule, independently of gt_double_to_int */
static int32_t want_int(double v)
{
    if (isnan(v))
        return 0;
    if (v > 2147483647.0)
        return INT32_MAX;
    if (v <= -2147483648.0)
        return INT32_MIN;
    return (int32_t)trunc(v);
}

int main(void)
{
    rng_seed(14);
    int64_t n[3] = {NI, NJ, NK}, d[3] = {NI, NJ, NK};
    int64_t h0[3][2] = {{0, 0}, {0, 0}, {0, 0}}, h1[3][2] = {{1, 1}, {1, 1}, {1, 1}};
    Layout lays[] = {{"IJK", NULL, "C"}, {"KJI", NULL, "C"}};
    char label[128];
    const double scales[] = {1.0, 1e10, NAN, INFINITY};
    const char *const scale_names[] = {"in range", "out of range", "NaN", "infinite"};
    for (int c = 0; c < 4; c++) {
        int l = c % 2;
        double s = scales[c];
        Fld x = fld_new_range(GT_FLOAT64, lays[l], n, h1, -5, 5);
        Fld f = fld_new_range(GT_FLOAT32, lays[1 - l], n, h0, -5, 5);
        Fld ni = fld_new(GT_INT32, lays[l], n, h0), mi = fld_new(GT_INT32, lays[1 - l], n, h1);
        Fld bi = fld_new(GT_INT32, lays[l], n, h0);
        int rc = toint(x.s, f.s, ni.s, mi.s, bi.s, s, NULL);
        snprintf(label, sizeof label, "toint %s: returns 0", scale_names[c]);
        if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Arr wn = arr_like(&ni), wm = arr_like(&mi), wb = arr_like(&bi);
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++)
                    for (int64_t k = 0; k < NK; k++) {
                        double v = A(x.before, i, j, k);
                        float g = (float)A(f.before, i, j, k) * (float)s;
                        A(wn, i, j, k) = want_int(v * s);
                        A(wm, i, j, k) = want_int(g);
                        A(wb, i, j, k) = (v > 0.0 ? 1 : 0) + 2;
                    }
            snprintf(label, sizeof label, "toint %s: int(double)", scale_names[c]);
            check_field(label, &ni, &wn, d, 0);
            snprintf(label, sizeof label, "toint %s: int(float)", scale_names[c]);
            check_field(label, &mi, &wm, d, 0);
            snprintf(label, sizeof label, "toint %s: int(bool), int(-2.5)", scale_names[c]);
            check_field(label, &bi, &wb, d, 0);
            arr_free(&wn);
            arr_free(&wm);
            arr_free(&wb);
        }
        fld_free(&x);
        fld_free(&f);
        fld_free(&ni);
        fld_free(&mi);
        fld_free(&bi);
    }
    {
        Fld c = fld_new(GT_INT32, lays[1], n, h1);
        int rc = foldint(c.s, NULL);
        if (check("foldint: returns 0", rc == 0, "returned %d: %s", rc, gt_last_error())) {
            /* 1e30, -1e30, NaN, -3.9, float(2147483520.0), 2147483647.5, -2147483648.9,
               +inf, -inf */
            const int32_t want[NK] = {INT32_MAX, INT32_MIN, 0, -3, 2147483520, INT32_MAX,
                                      INT32_MIN, INT32_MAX, INT32_MIN};
            Arr wc = arr_like(&c);
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++)
                    for (int64_t k = 0; k < NK; k++)
                        A(wc, i, j, k) = want[k];
            check_field("foldint: folded int() of NaN, infinities, out of range", &c, &wc, d, 0);
            arr_free(&wc);
        }
        fld_free(&c);
    }
    {
        Fld x = fld_new(GT_FLOAT64, lays[0], n, h0), f = fld_new(GT_FLOAT32, lays[1], n, h0);
        Fld z = fld_new(GT_FLOAT64, lays[1], n, h0), y = fld_new(GT_FLOAT32, lays[0], n, h1);
        Fld w = fld_new(GT_FLOAT64, lays[0], n, h0);
        int rc = precision(x.s, f.s, z.s, y.s, w.s, NULL);
        if (check("precision: returns 0", rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Arr wz = arr_like(&z), wy = arr_like(&y), ww = arr_like(&w);
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++)
                    for (int64_t k = 0; k < NK; k++) {
                        double v = A(x.before, i, j, k);
                        float g = (float)A(f.before, i, j, k);
                        A(wz, i, j, k) = (double)g * 0.1;
                        A(wy, i, j, k) = (float)v * 0.1f;
                        A(ww, i, j, k) = (double)0.1f * v + (double)i;
                    }
            check_field("precision: double(f) * 0.1 in double", &z, &wz, d, 0);
            check_field("precision: float(x) * 0.1 in float", &y, &wy, d, 0);
            check_field("precision: float(0.1) is a float constant", &w, &ww, d, 0);
            arr_free(&wz);
            arr_free(&wy);
            arr_free(&ww);
        }
        fld_free(&x);
        fld_free(&f);
        fld_free(&z);
        fld_free(&y);
        fld_free(&w);
    }
    for (int c = 0; c < 3; c++) {
        double s = c == 0 ? 1.0 : c == 1 ? INFINITY : NAN;
        Fld x = fld_new(GT_FLOAT64, lays[0], n, h1), dd = fld_new(GT_FLOAT64, lays[1], n, h0);
        Fld fin = fld_new(GT_BOOL, lays[0], n, h0);
        Fld xf = fld_new(GT_FLOAT32, lays[1], n, h0), df = fld_new(GT_FLOAT32, lays[0], n, h1);
        Fld finf = fld_new(GT_BOOL, lays[1], n, h0);
        int rc = fns(x.s, dd.s, fin.s, s, NULL);
        int rcf = fnsf(xf.s, df.s, finf.s, (float)s, NULL);
        snprintf(label, sizeof label, "fns %d: returns 0", c);
        bool ok = check(label, rc == 0 && rcf == 0, "returned %d, %d: %s", rc, rcf,
                        gt_last_error());
        if (ok) {
            Arr wd = arr_like(&dd), wf = arr_like(&fin), wdf = arr_like(&df);
            Arr wff = arr_like(&finf);
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++)
                    for (int64_t k = 0; k < NK; k++) {
                        double v = A(x.before, i, j, k);
                        A(wd, i, j, k) = asinh(v) + acosh(1.0 + fabs(v)) + atanh(v * 0.5) +
                                         erf(v) + erfc(v) + tgamma(v + 2.0) +
                                         lgamma(v + 2.0) + exp2(v) + log2(fabs(v) + 0.5) +
                                         expm1(v) + log1p(fabs(v)) + hypot(v, 2.0 * v) +
                                         copysign(0.5, v);
                        A(wf, i, j, k) = isfinite(v * s);
                        float g = (float)A(xf.before, i, j, k);
                        A(wdf, i, j, k) = asinhf(g) + acoshf(1.0f + fabsf(g)) +
                                          atanhf(g * 0.5f) + erff(g) + erfcf(g) +
                                          tgammaf(g + 2.0f) + lgammaf(g + 2.0f) + exp2f(g) +
                                          log2f(fabsf(g) + 0.5f) + expm1f(g) +
                                          log1pf(fabsf(g)) + hypotf(g, 2.0f * g) +
                                          copysignf(0.5f, g);
                        A(wff, i, j, k) = isfinite(g * (float)s);
                    }
            snprintf(label, sizeof label, "fns %d: double builtins", c);
            check_field(label, &dd, &wd, d, 0);
            snprintf(label, sizeof label, "fns %d: isfinite", c);
            check_field(label, &fin, &wf, d, 0);
            snprintf(label, sizeof label, "fns %d: float builtins (f-suffixed)", c);
            check_field(label, &df, &wdf, d, 0);
            snprintf(label, sizeof label, "fns %d: isfinite of float", c);
            check_field(label, &finf, &wff, d, 0);
            arr_free(&wd);
            arr_free(&wf);
            arr_free(&wdf);
            arr_free(&wff);
        }
        fld_free(&x);
        fld_free(&dd);
        fld_free(&fin);
        fld_free(&xf);
        fld_free(&df);
        fld_free(&finf);
    }
    {
        /* classify: -inf, +inf and NaN at i = 0, 1, 2 of every row, numbers elsewhere */
        Fld x = fld_new(GT_FLOAT64, lays[0], n, h1), f = fld_new(GT_FLOAT32, lays[1], n, h0);
        Fld c = fld_new(GT_INT32, lays[1], n, h0), cf = fld_new(GT_INT32, lays[0], n, h1);
        Fld e = fld_new(GT_BOOL, lays[0], n, h0), ef = fld_new(GT_BOOL, lays[1], n, h1);
        const double special[3] = {-INFINITY, INFINITY, NAN};
        for (int64_t i = 0; i < 3; i++)
            for (int64_t j = 0; j < NJ; j++)
                for (int64_t k = 0; k < NK; k++) {
                    fld_set(&x, i, j, k, special[i]);
                    fld_set(&f, i, j, k, special[i]);
                }
        int rc = classify(x.s, f.s, c.s, cf.s, e.s, ef.s, NULL);
        if (check("classify: returns 0", rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Arr wc = arr_like(&c), wcf = arr_like(&cf), we = arr_like(&e), wef = arr_like(&ef);
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++)
                    for (int64_t k = 0; k < NK; k++) {
                        double v = A(x.before, i, j, k), g = A(f.before, i, j, k);
                        A(wc, i, j, k) = (isinf(v) ? 1 : 0) + (isnan(v) ? 2 : 0) +
                                         (isfinite(v) ? 4 : 0);
                        A(wcf, i, j, k) = (isinf(g) ? 1 : 0) + (isnan(g) ? 2 : 0) +
                                          (isfinite(g) ? 4 : 0);
                        A(we, i, j, k) = 1;
                        A(wef, i, j, k) = 0;
                        if (k == 4 || k == 5)   /* isinf(-1.0 / 0.0), isinf(1.0 / 0.0) */
                            A(wc, i, j, k) = 1;
                        if (k == 6)             /* isfinite(-inf) 0, isnan(NaN) 1 */
                            A(wc, i, j, k) = 2;
                    }
            check_field("classify: int(isinf(x)), int(isnan(x)), int(isfinite(x))", &c, &wc,
                        d, 0);
            check_field("classify: of float", &cf, &wcf, d, 0);
            check_field("classify: isinf(x) == isinf(-x), == true", &e, &we, d, 0);
            check_field("classify: of float, double(isinf(f)) not negative", &ef, &wef, d, 0);
            arr_free(&wc);
            arr_free(&wcf);
            arr_free(&we);
            arr_free(&wef);
        }
        fld_free(&x);
        fld_free(&f);
        fld_free(&c);
        fld_free(&cf);
        fld_free(&e);
        fld_free(&ef);
    }
    {
        /* nansign: the rule (language.md 5.4), not the host's 0.0 / 0.0 */
        Fld x = fld_new(GT_FLOAT64, lays[0], n, h0), a = fld_new(GT_FLOAT64, lays[1], n, h0);
        Fld b = fld_new(GT_FLOAT64, lays[0], n, h1), c = fld_new(GT_FLOAT64, lays[1], n, h1);
        Fld e = fld_new(GT_FLOAT64, lays[0], n, h0);
        int rc = nansign(x.s, a.s, b.s, c.s, e.s, NULL);
        if (check("nansign: returns 0", rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Arr wa = arr_like(&a), wb = arr_like(&b);
            int64_t bad = 0;
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++)
                    for (int64_t k = 0; k < NK; k++) {
                        A(wa, i, j, k) = 1.0;
                        A(wb, i, j, k) = -1.0;
                        double v = fld_get(&e, i, j, k);
                        bad += !isnan(v) || !signbit(v);
                    }
            check_field("nansign: copysign(1.0, 0.0 / 0.0) folded is 1", &a, &wa, d, 0);
            check_field("nansign: copysign(1.0, -(0.0 / 0.0)) folded is -1", &b, &wb, d, 0);
            check_field("nansign: copysign(1.0, sqrt(-1.0)) folded is 1", &c, &wa, d, 0);
            check("nansign: -(0.0 / 0.0) is a NaN with the sign bit", bad == 0,
                  "%" PRId64 " points were not", bad);
            arr_free(&wa);
            arr_free(&wb);
        }
        fld_free(&x);
        fld_free(&a);
        fld_free(&b);
        fld_free(&c);
        fld_free(&e);
    }
    return failures() != 0;
}
