/* test_functions.c: functions.stn. Reference: the functions written as plain C
 * functions with their ifs, called at each point (at the shifted points where a
 * parameter is read at an offset: diff(limited(q)) is lim(i) - lim(i-1)); the flux
 * temporaries of advect computed on i in [0, NI] and j in [0, NJ]; the forward
 * computations as a per-column loop over k. */
#include <math.h>
#include <stdio.h>

#include "functions.h"
#include "numeric.h"

enum { NI = 9, NJ = 8, NK = 5 };

static void upwind(double u, double v, double q, double qim, double qjm, double *fx,
                   double *fy)
{
    *fx = u > 0.0 ? u * qim : u * q;
    if (v > 0.0)
        *fy = v * qjm;
    else if (v < -0.5)
        *fy = v * q;
    else
        *fy = (q + qjm) * (0.5 * v);
}

static double lim(const Arr *q, int64_t i, int64_t j, int64_t k)
{
    double d = A(*q, i + 1, j, k) - A(*q, i, j, k);
    return d > 0.5 ? 0.5 : d < -0.5 ? -0.5 : d;
}

int main(void)
{
    rng_seed(10);
    int64_t n[3] = {NI, NJ, NK}, d[3] = {NI, NJ, NK};
    int64_t h0[3][2] = {{0, 0}, {0, 0}, {0, 0}}, h1[3][2] = {{1, 1}, {1, 1}, {0, 0}};
    Layout lays[] = {{"IJK", NULL, "C"}, {"KJI", NULL, "C"}};
    char label[128];
    for (int l = 0; l < 2; l++) {
        /* advect */
        Fld u = fld_new(GT_FLOAT64, lays[l], n, h1);
        Fld v = fld_new(GT_FLOAT64, lays[l], n, h1);
        Fld q = fld_new(GT_FLOAT64, lays[l], n, h1);
        Fld qn = fld_new(GT_FLOAT64, lays[1 - l], n, h0);
        int rc = advect(u.s, v.s, q.s, qn.s, NULL);
        snprintf(label, sizeof label, "advect %d: returns 0", l);
        if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Arr w = arr_like(&qn);
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++)
                    for (int64_t k = 0; k < NK; k++) {
                        double fx[2][2], fy[2][2];   /* [di][dj] */
                        for (int di = 0; di < 2; di++)
                            for (int dj = 0; dj < 2; dj++) {
                                int64_t ii = i + di, jj = j + dj;
                                upwind(A(u.before, ii, jj, k), A(v.before, ii, jj, k),
                                       A(q.before, ii, jj, k), A(q.before, ii - 1, jj, k),
                                       A(q.before, ii, jj - 1, k), &fx[di][dj], &fy[di][dj]);
                            }
                        A(w, i, j, k) = A(q.before, i, j, k) -
                                        0.1 * (fx[1][0] - fx[0][0] + fy[0][1] - fy[0][0]);
                    }
            snprintf(label, sizeof label, "advect %d: upwind fluxes (fx, fy)", l);
            check_field(label, &qn, &w, d, 1e-12);
            arr_free(&w);
        }
        fld_free(&u);
        fld_free(&v);
        fld_free(&qn);

        /* masked */
        Fld r = fld_new(GT_FLOAT64, lays[l], n, h0);
        Fld s = fld_new(GT_FLOAT64, lays[1 - l], n, h0);
        rc = masked(q.s, r.s, s.s, NULL);
        snprintf(label, sizeof label, "masked %d: returns 0", l);
        if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Arr wr = arr_like(&r), ws = arr_like(&s);
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++) {
                    for (int64_t k = 0; k < NK; k++) {
                        double diff = lim(&q.before, i, j, k) - lim(&q.before, i - 1, j, k);
                        A(wr, i, j, k) = A(q.before, i, j, k) > 0.0
                                             ? diff : lim(&q.before, i, j, k) * 2.0;
                    }
                    double prev = lim(&q.before, i, j, 0);
                    A(ws, i, j, 0) = prev;
                    for (int64_t k = 1; k < NK; k++) {
                        double diff = lim(&q.before, i, j, k) - lim(&q.before, i - 1, j, k);
                        prev = prev > 0.0 ? prev * 0.5 + lim(&q.before, i, j, k) : diff;
                        A(ws, i, j, k) = prev;
                    }
                }
            snprintf(label, sizeof label, "masked %d: function with if under an if", l);
            check_field(label, &r, &wr, d, 1e-12);
            snprintf(label, sizeof label, "masked %d: function with if in forward", l);
            check_field(label, &s, &ws, d, 1e-12);
            arr_free(&wr);
            arr_free(&ws);
        }
        fld_free(&q);
        fld_free(&r);
        fld_free(&s);

        /* swapper */
        Fld a = fld_new(GT_FLOAT64, lays[l], n, h0);
        Fld b = fld_new(GT_FLOAT64, lays[1 - l], n, h0);
        Fld c = fld_new(GT_FLOAT64, lays[l], n, h1);
        Fld lo = fld_new(GT_FLOAT64, lays[l], n, h0);
        Fld hi = fld_new(GT_FLOAT64, lays[1 - l], n, h0);
        Fld mn = fld_new(GT_FLOAT64, lays[l], n, h0);
        Fld mx = fld_new(GT_FLOAT64, lays[l], n, h0);
        rc = swapper(a.s, b.s, c.s, lo.s, hi.s, mn.s, mx.s, NULL);
        snprintf(label, sizeof label, "swapper %d: returns 0", l);
        if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Arr wa = arr_like(&a), wb = arr_like(&b), wlo = arr_like(&lo), whi = arr_like(&hi);
            Arr wmn = arr_like(&mn), wmx = arr_like(&mx);
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++) {
                    double cmin = INFINITY, cmax = -INFINITY;
                    for (int64_t k = 0; k < NK; k++) {
                        A(wa, i, j, k) = A(b.before, i, j, k);
                        A(wb, i, j, k) = A(a.before, i, j, k);
                        double x = A(c.before, i, j, k), y = A(c.before, i + 1, j, k);
                        A(wlo, i, j, k) = x > y ? y : x;
                        A(whi, i, j, k) = x > y ? x : y;
                        cmin = fmin(cmin, x);
                        cmax = fmax(cmax, x);
                        A(wmn, i, j, k) = cmin;
                        A(wmx, i, j, k) = cmax;
                    }
                }
            snprintf(label, sizeof label, "swapper %d: a, b = swap(a, b): a", l);
            check_field(label, &a, &wa, d, 0);
            snprintf(label, sizeof label, "swapper %d: a, b = swap(a, b): b", l);
            check_field(label, &b, &wb, d, 0);
            snprintf(label, sizeof label, "swapper %d: sorted lo", l);
            check_field(label, &lo, &wlo, d, 0);
            snprintf(label, sizeof label, "swapper %d: sorted hi", l);
            check_field(label, &hi, &whi, d, 0);
            snprintf(label, sizeof label, "swapper %d: running min along k", l);
            check_field(label, &mn, &wmn, d, 0);
            snprintf(label, sizeof label, "swapper %d: running max along k", l);
            check_field(label, &mx, &wmx, d, 0);
            arr_free(&wa);
            arr_free(&wb);
            arr_free(&wlo);
            arr_free(&whi);
            arr_free(&wmn);
            arr_free(&wmx);
        }
        fld_free(&a);
        fld_free(&b);
        fld_free(&c);
        fld_free(&lo);
        fld_free(&hi);
        fld_free(&mn);
        fld_free(&mx);
    }
    return failures() != 0;
}
