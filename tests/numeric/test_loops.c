/* test_loops.c: loops.stn. Reference: plain C loops at each point, written from
 * language.md 10.4 (a while loop repeats its block at each point while its condition
 * holds there), with the same arithmetic in the same order, so results are exact. The
 * inputs make every loop end and make the number of rounds differ from point to point. */
#include <math.h>
#include <stdio.h>

#include "numeric.h"
#include "loops.h"

enum { NI = 9, NJ = 7, NK = 4 };

static int64_t h0[3][2];   /* no halo */

static void test_newton(Layout lay, int l)
{
    int64_t n[3] = {NI, NJ, NK};
    char label[128];
    Fld x = fld_new_range(GT_FLOAT64, lay, n, h0, 0.01, 100.0);
    Fld r = fld_new(GT_FLOAT64, lay, n, h0);
    Fld c = fld_new(GT_INT32, lay, n, h0);
    int rc = newton(x.s, r.s, c.s, NULL);
    snprintf(label, sizeof label, "newton %d: returns 0", l);
    if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
        Arr wr = arr_like(&r), wc = arr_like(&c);
        int lo = 1000, hi = 0;
        for (int64_t i = 0; i < NI; i++)
            for (int64_t j = 0; j < NJ; j++)
                for (int64_t k = 0; k < NK; k++) {
                    double v = A(x.before, i, j, k), g = v > 1.0 ? v : 1.0;
                    int it = 0;
                    while (fabs(g * g - v) > 1e-12 * v && it < 60) {
                        g = 0.5 * (g + v / g);
                        it += 1;
                    }
                    A(wr, i, j, k) = g;
                    A(wc, i, j, k) = it;
                    lo = it < lo ? it : lo;
                    hi = it > hi ? it : hi;
                }
        snprintf(label, sizeof label, "newton %d: rounds differ between points", l);
        check(label, lo < hi && hi < 60, "rounds from %d to %d", lo, hi);
        snprintf(label, sizeof label, "newton %d: square roots", l);
        check_field(label, &r, &wr, n, 0);
        snprintf(label, sizeof label, "newton %d: rounds", l);
        check_field(label, &c, &wc, n, 0);
        arr_free(&wr);
        arr_free(&wc);
    }
    fld_free(&x);
    fld_free(&r);
    fld_free(&c);
}

static void test_halving(Layout lay, int l)
{
    int64_t n[3] = {NI, NJ, NK};
    char label[128];
    Fld a = fld_new(GT_INT32, lay, n, h0);
    Fld steps = fld_new(GT_INT32, lay, n, h0);
    Fld rest = fld_new(GT_INT32, lay, n, h0);
    int rc = halving(a.s, steps.s, rest.s, NULL);
    snprintf(label, sizeof label, "halving %d: returns 0", l);
    if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
        Arr ws = arr_like(&steps), wr = arr_like(&rest);
        for (int64_t i = 0; i < NI; i++)
            for (int64_t j = 0; j < NJ; j++)
                for (int64_t k = 0; k < NK; k++) {
                    int v = (int)A(a.before, i, j, k), s = 0, r = v;
                    if (v > 0) {
                        while (r > 1) {
                            r = r % 2 == 0 ? r / 2 : 3 * r + 1;
                            s += 1;
                        }
                    } else {
                        while (r < 0) {
                            r += 7;
                            s -= 1;
                        }
                    }
                    A(ws, i, j, k) = s;
                    A(wr, i, j, k) = r;
                }
        snprintf(label, sizeof label, "halving %d: loops in both branches of an if", l);
        check_field(label, &steps, &ws, n, 0);
        snprintf(label, sizeof label, "halving %d: what the loops leave", l);
        check_field(label, &rest, &wr, n, 0);
        arr_free(&ws);
        arr_free(&wr);
    }
    fld_free(&a);
    fld_free(&steps);
    fld_free(&rest);
}

static void test_nested(Layout lay, int l)
{
    int64_t n[3] = {NI, NJ, NK};
    char label[128];
    Fld a = fld_new_range(GT_INT32, lay, n, h0, -2, 6);
    Fld b = fld_new_range(GT_INT32, lay, n, h0, -1, 5);
    Fld c = fld_new(GT_INT32, lay, n, h0);
    int rc = nested(a.s, b.s, c.s, NULL);
    snprintf(label, sizeof label, "nested %d: returns 0", l);
    if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
        Arr w = arr_like(&c);
        for (int64_t i = 0; i < NI; i++)
            for (int64_t j = 0; j < NJ; j++)
                for (int64_t k = 0; k < NK; k++) {
                    int s = 0, pa = (int)A(a.before, i, j, k), pb = (int)A(b.before, i, j, k);
                    for (int p = 0; p < pa; p++)
                        for (int q = 0; q < pb; q++)
                            s += p * q + 1;
                    A(w, i, j, k) = s;
                }
        snprintf(label, sizeof label, "nested %d: a loop in a loop", l);
        check_field(label, &c, &w, n, 0);
        arr_free(&w);
    }
    fld_free(&a);
    fld_free(&b);
    fld_free(&c);
}

/* t and m of `spread` at a point: halve u until it is at most 0.1. */
static double halved(double u, int *m)
{
    *m = 0;
    while (u > 0.1) {
        u = u * 0.5;
        *m += 1;
    }
    return u;
}

static void test_spread(Layout lay, int l)
{
    int64_t n[3] = {NI, NJ, NK};
    int64_t hu[3][2] = {{1, 1}, {0, 2}, {0, 0}};
    char label[128];
    Fld u = fld_new_range(GT_FLOAT64, lay, n, hu, 0.05, 3.0);
    Fld res = fld_new(GT_FLOAT64, lay, n, h0);
    int rc = spread(u.s, res.s, NULL);
    snprintf(label, sizeof label, "spread %d: returns 0", l);
    if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
        Arr w = arr_like(&res);
        for (int64_t i = 0; i < NI; i++)
            for (int64_t j = 0; j < NJ; j++)
                for (int64_t k = 0; k < NK; k++) {
                    int m, unused;
                    double c = halved(A(u.before, i, j, k), &m);
                    (void)c;
                    double w1 = halved(A(u.before, i - 1, j, k), &unused);
                    double w2 = halved(A(u.before, i + 1, j, k), &unused);
                    double w3 = halved(A(u.before, i, j + 2, k), &unused);
                    A(w, i, j, k) = w1 + w2 + w3 + (double)m;
                }
        snprintf(label, sizeof label, "spread %d: a loop's temporary read at offsets", l);
        check_field(label, &res, &w, n, 0);
        arr_free(&w);
    }
    fld_free(&u);
    fld_free(&res);
}

static void test_upward(Layout lay, int l)
{
    int64_t n[3] = {NI, NJ, NK};
    char label[128];
    Fld u = fld_new(GT_FLOAT64, lay, n, h0);
    Fld v = fld_new(GT_FLOAT64, lay, n, h0);
    int rc = upward(u.s, v.s, NULL);
    snprintf(label, sizeof label, "upward %d: returns 0", l);
    if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
        Arr w = arr_like(&v);
        for (int64_t i = 0; i < NI; i++)
            for (int64_t j = 0; j < NJ; j++) {
                A(w, i, j, 0) = A(u.before, i, j, 0);
                for (int64_t k = 1; k < NK; k++) {
                    double x = A(u.before, i, j, k);
                    while (x < A(w, i, j, k - 1))
                        x = x + 0.25;
                    A(w, i, j, k) = x;
                }
            }
        snprintf(label, sizeof label, "upward %d: a loop reads the level below", l);
        check_field(label, &v, &w, n, 0);
        arr_free(&w);
    }
    fld_free(&u);
    fld_free(&v);
}

static void test_colsum(Layout lay, int l)
{
    int64_t n[3] = {NI, NJ, NK};
    char label[128];
    Fld u = fld_new_range(GT_FLOAT64, lay, n, h0, -3.0, 1.0);
    Fld w = fld_new(GT_FLOAT64, lay, n, h0);
    int rc = colsum(u.s, w.s, NULL);
    snprintf(label, sizeof label, "colsum %d: returns 0", l);
    if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
        Arr e = arr_like(&w);   /* starts as w's values before the call */
        for (int64_t i = 0; i < NI; i++)
            for (int64_t j = 0; j < NJ; j++)
                for (int64_t k = 0; k < NK; k++) {
                    A(e, i, j, k) = A(u.before, i, j, k);
                    for (;;) {
                        double s = 0.0;
                        for (int64_t kk = 0; kk < NK; kk++)
                            s += A(e, i, j, kk);
                        if (!(s < 0.0))
                            break;
                        A(e, i, j, k) = A(e, i, j, k) + 1.0;
                    }
                }
        snprintf(label, sizeof label, "colsum %d: a column sum in the condition", l);
        check_field(label, &w, &e, n, 0);
        arr_free(&e);
    }
    fld_free(&u);
    fld_free(&w);
}

static void test_inregion(Layout lay, int l)
{
    int64_t n[3] = {NI, NJ, NK};
    char label[128];
    Fld u = fld_new(GT_FLOAT64, lay, n, h0);
    Fld w = fld_new(GT_FLOAT64, lay, n, h0);
    int rc = inregion(u.s, w.s, NULL);
    snprintf(label, sizeof label, "inregion %d: returns 0", l);
    if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
        Arr e = arr_like(&w);
        for (int64_t i = 0; i < NI; i++)
            for (int64_t j = 0; j < NJ; j++)
                for (int64_t k = 0; k < NK; k++) {
                    double x = A(u.before, i, j, k);
                    while (i < 2 && x < 3.0)
                        x = x + 1.0;
                    A(e, i, j, k) = x;
                }
        snprintf(label, sizeof label, "inregion %d: a loop on the first two columns", l);
        check_field(label, &w, &e, n, 0);
        arr_free(&e);
    }
    fld_free(&u);
    fld_free(&w);
}

int main(void)
{
    rng_seed(41);
    Layout lays[] = {{"IJK", NULL, "C"}, {"KJI", NULL, "C"}};
    for (int l = 0; l < 2; l++) {
        test_newton(lays[l], l);
        test_halving(lays[l], l);
        test_nested(lays[l], l);
        test_spread(lays[l], l);
        test_upward(lays[l], l);
        test_colsum(lays[l], l);
        test_inregion(lays[l], l);
    }
    return failures() ? 1 : 0;
}
