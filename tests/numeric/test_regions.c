/* test_regions.c: regions.stn. Reference: plain loops with the regions written as tests
 * of the position against 0 and the domain's size (language.md 10.1): a region restricts
 * where a statement runs, the temporary of `corner` is computed on its extent (i from -2 to
 * NI, j from -1 to NJ - 1) and replaced in the regions there, the ifs of `nest_if` evaluate
 * their condition before their branches run. `edges` runs on the whole storage and on a
 * smaller explicit domain (its `end` is the domain's). */
#include <stdio.h>

#include "numeric.h"
#include "regions.h"

enum { NI = 10, NJ = 9, NK = 3 };

static void test_edges(Layout lay, int64_t di, int64_t dj, int l)
{
    int64_t n[3] = {NI, NJ, NK}, d[3] = {di, dj, NK};
    int64_t h0[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    char label[128];
    Fld u = fld_new(GT_FLOAT64, lay, n, h0);
    Fld v = fld_new(GT_FLOAT64, lay, n, h0);
    gt_domain dom = {{di, dj, NK}};
    int rc = edges(u.s, v.s, &dom);
    snprintf(label, sizeof label, "edges %d (%lldx%lld): returns 0", l, (long long)di,
             (long long)dj);
    if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
        Arr w = arr_like(&v);
        for (int64_t i = 0; i < di; i++)
            for (int64_t j = 0; j < dj; j++)
                for (int64_t k = 0; k < NK; k++) {
                    double x = A(u.before, i, j, k), r = x;
                    if (i == 0)
                        r = 1.0 + x;
                    if (i == di - 1 && j < 2)
                        r = 2.0 * x;
                    if (j >= dj - 2)
                        r = r + 10.0;
                    A(w, i, j, k) = r;
                }
        snprintf(label, sizeof label, "edges %d (%lldx%lld): first column, two points of the "
                 "last, last two rows", l, (long long)di, (long long)dj);
        check_field(label, &v, &w, d, 0);
        arr_free(&w);
    }
    fld_free(&u);
    fld_free(&v);
}

/* t of `corner` at (i, j, k): u, or 100 + u in the south-west halo corner, or -u east of
 * the domain. */
static double corner_t(const Fld *u, int64_t i, int64_t j, int64_t k)
{
    double x = A(u->before, i, j, k);
    if (i >= -3 && i < 0 && j >= -3 && j < 0)
        return 100.0 + x;
    if (i >= NI && i < NI + 2)
        return -x;
    return x;
}

int main(void)
{
    rng_seed(23);
    int64_t n[3] = {NI, NJ, NK}, d[3] = {NI, NJ, NK};
    int64_t h0[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    int64_t hc[3][2] = {{2, 1}, {1, 0}, {0, 0}};
    Layout lays[] = {{"IJK", NULL, "C"}, {"KJI", NULL, "C"}};
    char label[128];
    for (int l = 0; l < 2; l++) {
        test_edges(lays[l], NI, NJ, l);
        test_edges(lays[l], 6, 5, l);

        Fld u = fld_new(GT_FLOAT64, lays[l], n, hc);
        Fld res = fld_new(GT_FLOAT64, lays[1 - l], n, h0);
        int rc = corner(u.s, res.s, NULL);
        snprintf(label, sizeof label, "corner %d: returns 0", l);
        if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Arr w = arr_like(&res);
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++)
                    for (int64_t k = 0; k < NK; k++)
                        A(w, i, j, k) = corner_t(&u, i - 1, j - 1, k) +
                                        corner_t(&u, i + 1, j, k) + corner_t(&u, i - 2, j, k);
            snprintf(label, sizeof label, "corner %d: temporary in halo regions", l);
            check_field(label, &res, &w, d, 0);
            arr_free(&w);
        }
        fld_free(&u);
        fld_free(&res);

        Fld a = fld_new(GT_FLOAT64, lays[l], n, h0);
        Fld r = fld_new(GT_FLOAT64, lays[l], n, h0);
        rc = nest_if(a.s, r.s, NULL);
        snprintf(label, sizeof label, "nest_if %d: returns 0", l);
        if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Arr w = arr_like(&r);
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++)
                    for (int64_t k = 0; k < NK; k++) {
                        double x = A(a.before, i, j, k), y = x;
                        if (i >= 1 && i < NI - 1) {
                            if (j >= 2 && i < 4)
                                y = 3.0 * x;
                            bool m = y > 0.0;   /* before the branch changes y */
                            if (m) {
                                y = y - 0.5;
                                if (j < 3)
                                    y = y * 2.0;
                            } else if (i >= NI - 3) {
                                y = y - 5.0;
                            }
                        }
                        if (x < 0.5 && j == NJ - 1)
                            y = 42.0;
                        A(w, i, j, k) = y;
                    }
            snprintf(label, sizeof label, "nest_if %d: nested regions and ifs", l);
            check_field(label, &r, &w, d, 0);
            arr_free(&w);
        }
        fld_free(&a);
        fld_free(&r);

        Fld cu = fld_new(GT_FLOAT64, lays[l], n, h0);
        Fld acc = fld_new(GT_FLOAT64, lays[1 - l], n, h0);
        rc = column(cu.s, acc.s, NULL);
        snprintf(label, sizeof label, "column %d: returns 0", l);
        if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Arr w = arr_like(&acc);
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++) {
                    double s = A(cu.before, i, j, 0);
                    A(w, i, j, 0) = s;
                    for (int64_t k = 1; k < NK; k++) {
                        s = s + A(cu.before, i, j, k);
                        if (i < 2 && j == NJ - 1)
                            s = s * 0.5;
                        A(w, i, j, k) = s;
                    }
                }
            snprintf(label, sizeof label, "column %d: region in a forward computation", l);
            check_field(label, &acc, &w, d, 0);
            arr_free(&w);
        }
        fld_free(&cu);
        fld_free(&acc);
    }
    return failures() != 0;
}
