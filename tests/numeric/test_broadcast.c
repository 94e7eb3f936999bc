/* test_broadcast.c: broadcast.stn. Lower-dimensional fields are read at every point of
 * the IJK domain; the IJ output is written once per IJ point. Reference: the formulas in
 * plain loops, each field indexed by the axes it has. Exact up to 1e-12 (same operations). */
#include <math.h>
#include <stdio.h>

#include "broadcast.h"
#include "numeric.h"

enum { NI = 8, NJ = 7, NK = 6 };

int main(void)
{
    rng_seed(6);
    int64_t n[3] = {NI, NJ, NK}, d[3] = {NI, NJ, NK};
    int64_t h0[3][2] = {{0, 0}, {0, 0}, {0, 0}}, h1[3][2] = {{1, 1}, {1, 1}, {1, 1}};
    Layout layouts[] = {{"IJK", NULL, "C"}, {"KJI", NULL, "C"}};
    Layout ij[] = {{"IJ", NULL, "C"}, {"JI", NULL, "C"}};
    Layout jk[] = {{"JK", NULL, "C"}, {"KJ", NULL, "F"}};
    for (int l = 0; l < 2; l++) {
        char label[128];
        /* pressure */
        Fld ps = fld_new(GT_FLOAT64, ij[l], n, h0);
        Fld ak = fld_new(GT_FLOAT64, (Layout){"K", NULL, NULL}, n, h0);
        Fld bk = fld_new(GT_FLOAT64, (Layout){"K", NULL, NULL}, n, h1);
        Fld p = fld_new(GT_FLOAT64, layouts[l], n, h1);
        double pmax = -1;
        int rc = pressure(ps.s, ak.s, bk.s, p.s, &pmax, NULL);
        snprintf(label, sizeof label, "pressure %d: returns 0", l);
        if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Arr want = arr_like(&p);
            double m = -INFINITY;
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++)
                    for (int64_t k = 0; k < NK; k++) {
                        A(want, i, j, k) = A(ak.before, 0, 0, k) +
                                           A(bk.before, 0, 0, k) * A(ps.before, i, j, 0);
                        m = fmax(m, A(want, i, j, k));
                    }
            snprintf(label, sizeof label, "pressure %d: p", l);
            check_field(label, &p, &want, d, 1e-12);
            snprintf(label, sizeof label, "pressure %d: pmax", l);
            check(label, pmax == m, "pmax %.17g, want %.17g", pmax, m);
            arr_free(&want);
        }
        fld_free(&ps);
        fld_free(&ak);
        fld_free(&bk);
        fld_free(&p);

        /* mixed */
        Fld a = fld_new(GT_FLOAT64, ij[l], n, h1);
        Fld b = fld_new(GT_FLOAT64, (Layout){"K", NULL, NULL}, n, h0);
        Fld c = fld_new(GT_FLOAT64, (Layout){"I", NULL, NULL}, n, h1);
        Fld dd = fld_new(GT_FLOAT64, jk[l], n, h1);
        Fld out = fld_new(GT_FLOAT64, layouts[l], n, h0);
        Fld out2 = fld_new(GT_FLOAT64, ij[1 - l], n, h1);
        rc = mixed(a.s, b.s, c.s, dd.s, out.s, out2.s, NULL);
        snprintf(label, sizeof label, "mixed %d: returns 0", l);
        if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Arr w1 = arr_like(&out), w2 = arr_like(&out2);
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++) {
                    for (int64_t k = 0; k < NK; k++)
                        A(w1, i, j, k) = A(a.before, i, j, 0) * A(b.before, 0, 0, k) +
                                         A(c.before, i, 0, 0) - A(dd.before, 0, j + 1, k - 1);
                    A(w2, i, j, 0) = A(a.before, i - 1, j, 0) * A(c.before, i + 1, 0, 0) + 1.0;
                }
            snprintf(label, sizeof label, "mixed %d: IJK output", l);
            check_field(label, &out, &w1, d, 1e-12);
            snprintf(label, sizeof label, "mixed %d: IJ output", l);
            check_field(label, &out2, &w2, d, 1e-12);
            arr_free(&w1);
            arr_free(&w2);
        }
        fld_free(&a);
        fld_free(&b);
        fld_free(&c);
        fld_free(&dd);
        fld_free(&out);
        fld_free(&out2);
    }
    return failures() != 0;
}
