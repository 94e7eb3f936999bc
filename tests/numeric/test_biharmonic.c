/* test_biharmonic.c: biharmonic.stn against the operators applied in two passes through an
 * array: L = lap(u) on the domain grown by one, then lap(L); likewise for the differences
 * and the smoother. The inlined code evaluates each inner value at every shifted point with
 * the same operations: tolerance 1e-12. */
#include <stdio.h>
#include <stdlib.h>

#include "biharmonic.h"
#include "numeric.h"

enum { NI = 10, NJ = 11, NK = 3 };

int main(void)
{
    rng_seed(3);
    int64_t n[3] = {NI, NJ, NK};
    int64_t h2[3][2] = {{2, 2}, {2, 2}, {0, 0}}, h0[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    Layout lays[] = {{"IJK", NULL, "C"}, {"KJI", NULL, "F"}};
    for (int l = 0; l < 2; l++) {
        Fld u = fld_new(GT_FLOAT64, lays[l], n, h2);
        Fld bilap = fld_new(GT_FLOAT64, lays[l], n, h0);
        Fld d2 = fld_new(GT_FLOAT64, lays[l], n, h0);
        Fld sm = fld_new(GT_FLOAT64, lays[l], n, h0);
        int rc = biharmonic(u.s, bilap.s, d2.s, sm.s, NULL);
        char label[128];
        snprintf(label, sizeof label, "layout %d: returns 0", l);
        if (!check(label, rc == 0, "returned %d: %s", rc, gt_last_error()))
            continue;
        const Arr *a = &u.before;
        /* inner values with one point of margin: index + 1 */
        double *lap = malloc(sizeof(double) * (NI + 2) * (NJ + 2) * NK);
        double *fwd = malloc(sizeof(double) * (NI + 2) * NJ * NK);
        double *smo = malloc(sizeof(double) * NI * (NJ + 2) * NK);
#define LAP(i, j, k) lap[(((i) + 1) * (NJ + 2) + (j) + 1) * NK + (k)]
#define FWD(i, j, k) fwd[(((i) + 1) * NJ + (j)) * NK + (k)]
#define SMO(i, j, k) smo[((i) * (NJ + 2) + (j) + 1) * NK + (k)]
        for (int64_t i = -1; i <= NI; i++)
            for (int64_t j = -1; j <= NJ; j++)
                for (int64_t k = 0; k < NK; k++)
                    LAP(i, j, k) = A(*a, i - 1, j, k) + A(*a, i + 1, j, k) + A(*a, i, j - 1, k) +
                                   A(*a, i, j + 1, k) - 4.0 * A(*a, i, j, k);
        for (int64_t i = -1; i < NI; i++)
            for (int64_t j = 0; j < NJ; j++)
                for (int64_t k = 0; k < NK; k++)
                    FWD(i, j, k) = A(*a, i + 1, j, k) - A(*a, i, j, k);
        for (int64_t i = 0; i < NI; i++)
            for (int64_t j = -1; j <= NJ; j++)
                for (int64_t k = 0; k < NK; k++)
                    SMO(i, j, k) = 0.25 * A(*a, i, j - 1, k) + 2.0 * 0.25 * A(*a, i, j, k) +
                                   0.25 * A(*a, i, j + 1, k);
        Arr wb = arr_like(&bilap), wd = arr_like(&d2), ws = arr_like(&sm);
        for (int64_t i = 0; i < NI; i++)
            for (int64_t j = 0; j < NJ; j++)
                for (int64_t k = 0; k < NK; k++) {
                    A(wb, i, j, k) = LAP(i - 1, j, k) + LAP(i + 1, j, k) + LAP(i, j - 1, k) +
                                     LAP(i, j + 1, k) - 4.0 * LAP(i, j, k);
                    A(wd, i, j, k) = FWD(i, j, k) - FWD(i - 1, j, k);
                    A(ws, i, j, k) = 0.25 * SMO(i, j - 1, k) + 2.0 * 0.25 * SMO(i, j, k) +
                                     0.25 * SMO(i, j + 1, k);
                }
        int64_t d[3] = {NI, NJ, NK};
        snprintf(label, sizeof label, "layout %d: lap(lap(u))", l);
        check_field(label, &bilap, &wb, d, 1e-12);
        snprintf(label, sizeof label, "layout %d: bwd(fwd(u))", l);
        check_field(label, &d2, &wd, d, 1e-12);
        snprintf(label, sizeof label, "layout %d: smooth(smooth(u))", l);
        check_field(label, &sm, &ws, d, 1e-12);
        snprintf(label, sizeof label, "layout %d: input unchanged", l);
        check_unchanged(label, &u);
        arr_free(&wb);
        arr_free(&wd);
        arr_free(&ws);
        free(lap);
        free(fwd);
        free(smo);
        fld_free(&u);
        fld_free(&bilap);
        fld_free(&d2);
        fld_free(&sm);
    }
    return failures() != 0;
}
