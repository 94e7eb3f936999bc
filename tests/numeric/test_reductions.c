/* test_reductions.c: reductions.stn. Column reductions over the whole column of the
 * compute domain at each IJ point, full reductions over the whole compute domain. The
 * reference loops i, j, k in that nesting, like the generated code, so sums add in the same
 * order: 1e-12. Also GT_EINVAL for a NULL out scalar, and min and max over columns and a
 * domain holding NaNs (stencil nans): C's fmin and fmax applied from the first value to the
 * last, so that values all NaN give NaN. */
#include <math.h>
#include <stdio.h>

#include "numeric.h"
#include "reductions.h"

enum { NI = 6, NJ = 5, NK = 9 };

/* fmin (fmax) of the column of (i, j) from its first level up, of u or f (a NaN loses) */
static double column(const Fld *x, int64_t i, int64_t j, bool is_max)
{
    double r = A(x->before, i, j, 0);
    for (int64_t k = 1; k < NK; k++)
        r = is_max ? fmax(r, A(x->before, i, j, k)) : fmin(r, A(x->before, i, j, k));
    return r;
}

/* Columns with no NaN, some NaN and only NaN, and domains with some and only NaN. */
static void nan_columns(void)
{
    int64_t n[3] = {NI, NJ, NK}, h0[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    Layout lay = {"IJK", NULL, "C"};
    for (int all = 0; all < 2; all++) {
        Fld u = fld_new(GT_FLOAT64, lay, n, h0);
        Fld f = fld_new(GT_FLOAT32, lay, n, h0);
        Fld lo = fld_new(GT_FLOAT64, (Layout){"IJ", NULL, "C"}, n, h0);
        Fld hi = fld_new(GT_FLOAT32, (Layout){"IJ", NULL, "C"}, n, h0);
        for (int64_t i = 0; i < NI; i++)
            for (int64_t j = 0; j < NJ; j++)
                for (int64_t k = 0; k < NK; k++)
                    if (all || i < 2 || (j == 1 && k % 2 == 0)) {
                        fld_set(&u, i, j, k, NAN);
                        fld_set(&f, i, j, k, NAN);
                    }
        double smallest = 0;
        float largest = 0;
        int rc = nans(u.s, f.s, lo.s, hi.s, &smallest, &largest, NULL);
        char label[128];
        snprintf(label, sizeof label, "nans %d: returns 0", all);
        if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Arr wl = arr_like(&lo), wh = arr_like(&hi);
            double sm = A(u.before, 0, 0, 0), lg = A(f.before, 0, 0, 0);
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++) {
                    A(wl, i, j, 0) = column(&u, i, j, false);
                    A(wh, i, j, 0) = column(&f, i, j, true);
                    for (int64_t k = 0; k < NK; k++) {
                        sm = fmin(sm, A(u.before, i, j, k));
                        lg = fmax(lg, A(f.before, i, j, k));
                    }
                }
            int64_t d[3] = {NI, NJ, NK};
            snprintf(label, sizeof label, "nans %d: column min", all);
            check_field(label, &lo, &wl, d, 0);
            snprintf(label, sizeof label, "nans %d: column max", all);
            check_field(label, &hi, &wh, d, 0);
            snprintf(label, sizeof label, "nans %d: min", all);
            check(label, smallest == sm || (isnan(smallest) && isnan(sm)), "%.17g, want %.17g",
                  smallest, sm);
            snprintf(label, sizeof label, "nans %d: max", all);
            check(label, largest == (float)lg || (isnan(largest) && isnan(lg)),
                  "%.9g, want %.9g", (double)largest, lg);
            arr_free(&wl);
            arr_free(&wh);
        }
        fld_free(&u);
        fld_free(&f);
        fld_free(&lo);
        fld_free(&hi);
    }
}

int main(void)
{
    rng_seed(7);
    int64_t n[3] = {NI, NJ, NK};
    int64_t h0[3][2] = {{0, 0}, {0, 0}, {0, 0}}, h1[3][2] = {{1, 1}, {1, 1}, {2, 2}};
    Layout lays[] = {{"IJK", NULL, "C"}, {"KJI", NULL, "C"}, {"IJK", NULL, "F"}};
    char label[128];
    for (int l = 0; l < 3; l++) {
        Fld u = fld_new(GT_FLOAT64, lays[l], n, h1);
        Fld s = fld_new(GT_FLOAT64, (Layout){"IJ", NULL, "C"}, n, h1);
        Fld lo = fld_new(GT_FLOAT64, (Layout){"JI", NULL, "C"}, n, h0);
        Fld hi = fld_new(GT_FLOAT64, (Layout){"IJ", NULL, "F"}, n, h0);
        Fld an = fld_new(GT_FLOAT64, lays[l], n, h0);
        int rc = columns(u.s, s.s, lo.s, hi.s, an.s, NULL);
        snprintf(label, sizeof label, "columns %d: returns 0", l);
        if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Arr ws = arr_like(&s), wl = arr_like(&lo), wh = arr_like(&hi), wa = arr_like(&an);
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++) {
                    double sum = 0, mn = INFINITY, mx = -INFINITY;
                    for (int64_t k = 0; k < NK; k++) {
                        double v = A(u.before, i, j, k);
                        sum += v;
                        mn = fmin(mn, v);
                        mx = fmax(mx, v * v);
                    }
                    A(ws, i, j, 0) = sum;
                    A(wl, i, j, 0) = mn;
                    A(wh, i, j, 0) = mx;
                    for (int64_t k = 0; k < NK; k++)
                        A(wa, i, j, k) = A(u.before, i, j, k) - sum / 4.0;
                }
            int64_t d[3] = {NI, NJ, NK};
            snprintf(label, sizeof label, "columns %d: sum", l);
            check_field(label, &s, &ws, d, 1e-12);
            snprintf(label, sizeof label, "columns %d: min", l);
            check_field(label, &lo, &wl, d, 0);
            snprintf(label, sizeof label, "columns %d: max", l);
            check_field(label, &hi, &wh, d, 0);
            snprintf(label, sizeof label, "columns %d: in an IJK expression", l);
            check_field(label, &an, &wa, d, 1e-12);
            arr_free(&ws);
            arr_free(&wl);
            arr_free(&wh);
            arr_free(&wa);
        }
        fld_free(&u);
        fld_free(&s);
        fld_free(&lo);
        fld_free(&hi);
        fld_free(&an);

        Fld v = fld_new(GT_FLOAT64, lays[l], n, h1);
        Fld m = fld_new(GT_INT32, lays[l], n, h0);
        double total = -1, smallest = -1;
        int32_t count = -1, largest = -1;
        int64_t small[3] = {NI - 1, NJ, NK - 2};
        gt_domain dom = {{small[0], small[1], small[2]}};
        rc = totals(v.s, m.s, &total, &smallest, &count, &largest, l == 2 ? &dom : NULL);
        snprintf(label, sizeof label, "totals %d: returns 0", l);
        if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
            const int64_t *dd = l == 2 ? small : n;
            double t = 0, sm = INFINITY;
            int32_t c = 0, lg = INT32_MIN;
            for (int64_t i = 0; i < dd[0]; i++)
                for (int64_t j = 0; j < dd[1]; j++)
                    for (int64_t k = 0; k < dd[2]; k++) {
                        t += A(v.before, i, j, k);
                        sm = fmin(sm, A(v.before, i, j, k) * 2.0);
                        c += (int32_t)A(m.before, i, j, k);
                        lg = (int32_t)A(m.before, i, j, k) > lg ? (int32_t)A(m.before, i, j, k) : lg;
                    }
            snprintf(label, sizeof label, "totals %d: sum", l);
            check(label, fabs(total - t) <= 1e-12 * fmax(1, fabs(t)), "%.17g, want %.17g", total, t);
            snprintf(label, sizeof label, "totals %d: min", l);
            check(label, smallest == sm, "%.17g, want %.17g", smallest, sm);
            snprintf(label, sizeof label, "totals %d: int sum", l);
            check(label, count == c, "%d, want %d", (int)count, (int)c);
            snprintf(label, sizeof label, "totals %d: int max", l);
            check(label, largest == lg, "%d, want %d", (int)largest, (int)lg);
        }
        if (l == 0) {
            const char *needles[] = {"totals", "count", NULL};
            check_error("EINVAL: NULL out scalar", totals(v.s, m.s, &total, &smallest, NULL,
                                                           &largest, NULL), GT_EINVAL, needles);
        }
        fld_free(&v);
        fld_free(&m);
    }
    nan_columns();
    return failures() != 0;
}
