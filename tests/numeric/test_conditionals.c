/* test_conditionals.c: conditionals.stn. Reference: the same branches as plain C if/else
 * per point (for `swap` the condition uses the values before the branch, which is what a
 * mask evaluated first gives), the limited temporary computed on i in [-1, NI); for
 * column_if a per-column loop with the column sums, minima and maxima computed first. */
#include <math.h>
#include <stdio.h>

#include "conditionals.h"
#include "numeric.h"

enum { NI = 10, NJ = 9, NK = 4 };

int main(void)
{
    rng_seed(9);
    int64_t n[3] = {NI, NJ, NK}, d[3] = {NI, NJ, NK};
    int64_t h0[3][2] = {{0, 0}, {0, 0}, {0, 0}}, h1[3][2] = {{1, 1}, {0, 0}, {0, 0}};
    Layout lays[] = {{"IJK", NULL, "C"}, {"KJI", NULL, "C"}};
    char label[128];
    for (int l = 0; l < 2; l++) {
        Fld a = fld_new(GT_FLOAT64, lays[l], n, h1);
        Fld b = fld_new(GT_FLOAT64, lays[l], n, h1);
        Fld out = fld_new(GT_FLOAT64, lays[l], n, h0);
        Fld lim = fld_new(GT_FLOAT64, lays[l], n, h1);
        int rc = nested(a.s, b.s, out.s, lim.s, NULL);
        snprintf(label, sizeof label, "nested %d: returns 0", l);
        if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Arr wo = arr_like(&out), wl = arr_like(&lim);
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++)
                    for (int64_t k = 0; k < NK; k++) {
                        double x = A(a.before, i, j, k), y = A(b.before, i, j, k), r;
                        if (x > 0.0) {
                            if (y > 0.5)
                                r = x + y;
                            else if (y < -0.5 || x > 0.9)
                                r = x - y;
                            else
                                r = x * y;
                        } else {
                            double t = x * 2.0;
                            r = t < -1.0 && y > 0.0 ? -t : t + y;
                        }
                        A(wo, i, j, k) = r;
                        double f[2];
                        for (int s = 0; s < 2; s++) {
                            int64_t ii = i - 1 + s;
                            f[s] = A(b.before, ii + 1, j, k) - A(b.before, ii, j, k);
                            if (f[s] * A(a.before, ii, j, k) > 0.0)
                                f[s] = 0.0;
                        }
                        A(wl, i, j, k) = f[1] - f[0] + (x > y ? x : y);
                    }
            snprintf(label, sizeof label, "nested %d: if / else if / else", l);
            check_field(label, &out, &wo, d, 0);
            snprintf(label, sizeof label, "nested %d: limiter and ternary", l);
            check_field(label, &lim, &wl, d, 1e-12);
            arr_free(&wo);
            arr_free(&wl);
        }
        fld_free(&a);
        fld_free(&b);
        fld_free(&out);
        fld_free(&lim);

        Fld p = fld_new(GT_FLOAT64, lays[l], n, h1);
        Fld q = fld_new(GT_FLOAT64, lays[1 - l], n, h0);
        rc = swap(p.s, q.s, NULL);
        snprintf(label, sizeof label, "swap %d: returns 0", l);
        if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Arr wp = arr_like(&p), wq = arr_like(&q);
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++)
                    for (int64_t k = 0; k < NK; k++) {
                        double x = A(p.before, i, j, k), y = A(q.before, i, j, k);
                        A(wp, i, j, k) = x > y ? y : x;
                        A(wq, i, j, k) = x > y ? x : y;
                    }
            snprintf(label, sizeof label, "swap %d: a", l);
            check_field(label, &p, &wp, d, 0);
            snprintf(label, sizeof label, "swap %d: b", l);
            check_field(label, &q, &wq, d, 0);
            arr_free(&wp);
            arr_free(&wq);
        }
        fld_free(&p);
        fld_free(&q);
    }
    for (int l = 0; l < 2; l++) {
        Fld u = fld_new(GT_FLOAT64, lays[l], n, h0);
        Fld s = fld_new(GT_FLOAT64, (Layout){l ? "JI" : "IJ", NULL, "C"}, n, h1);
        int rc = column_if(u.s, s.s, NULL);
        snprintf(label, sizeof label, "column_if %d: returns 0", l);
        if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Arr ws = arr_like(&s);
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++) {
                    double sum = 0, mx = -INFINITY, mn = INFINITY;
                    for (int64_t k = 0; k < NK; k++) {
                        double v = A(u.before, i, j, k);
                        sum += v;
                        mx = fmax(mx, v);
                        mn = fmin(mn, v);
                    }
                    double acc = A(u.before, i, j, 0);
                    for (int64_t k = 1; k < NK; k++) {
                        double v = A(u.before, i, j, k);
                        if (sum > 0.0)
                            acc = mx > v + 0.5 ? acc + v : acc - v;
                        else
                            acc = mn * acc;
                    }
                    A(ws, i, j, 0) = acc;
                }
            snprintf(label, sizeof label, "column_if %d: IJ accumulator", l);
            check_field(label, &s, &ws, d, 1e-12);
            arr_free(&ws);
        }
        fld_free(&u);
        fld_free(&s);
    }
    return failures() != 0;
}
