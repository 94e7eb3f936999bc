/* test_vadv.c: vadv.stn against the COSMO vertical advection written as one loop per
 * column in plain C (the same formulas, operation for operation: tolerance 1e-12), and the
 * GT_ESHAPE error of a domain with fewer levels than the stencil's intervals need. */
#include <stdio.h>
#include <stdlib.h>

#include "numeric.h"
#include "vadv.h"

enum { NI = 7, NJ = 6, NK = 12 };
#define BET_M 0.5
#define BET_P 0.5

static void reference(const Arr *us, const Arr *wcon, const Arr *upos, const Arr *utens,
                      Arr *ut, double dtr, int64_t ni, int64_t nj, int64_t nk)
{
    double *ccol = malloc(sizeof(double) * (size_t)nk), *dcol = malloc(sizeof(double) * (size_t)nk);
    for (int64_t i = 0; i < ni; i++)
        for (int64_t j = 0; j < nj; j++) {
            for (int64_t k = 0; k < nk; k++) {
#define W(di, dk) A(*wcon, i + (di), j, k + (dk))
#define U(dk) A(*us, i, j, k + (dk))
                double gcv, cs, gav, as, acol, bcol, corr, divided;
                double base = dtr * A(*upos, i, j, k) + A(*utens, i, j, k) + A(*ut, i, j, k);
                if (k == 0) {
                    gcv = 0.25 * (W(1, 1) + W(0, 1));
                    cs = gcv * BET_M;
                    ccol[k] = gcv * BET_P;
                    bcol = dtr - ccol[k];
                    corr = -cs * (U(1) - U(0));
                    dcol[k] = base + corr;
                    divided = 1.0 / bcol;
                    ccol[k] = ccol[k] * divided;
                    dcol[k] = dcol[k] * divided;
                } else if (k < nk - 1) {
                    gav = -0.25 * (W(1, 0) + W(0, 0));
                    gcv = 0.25 * (W(1, 1) + W(0, 1));
                    as = gav * BET_M;
                    cs = gcv * BET_M;
                    acol = gav * BET_P;
                    ccol[k] = gcv * BET_P;
                    bcol = dtr - acol - ccol[k];
                    corr = -as * (U(-1) - U(0)) - cs * (U(1) - U(0));
                    dcol[k] = base + corr;
                    divided = 1.0 / (bcol - ccol[k - 1] * acol);
                    ccol[k] = ccol[k] * divided;
                    dcol[k] = (dcol[k] - dcol[k - 1] * acol) * divided;
                } else {
                    gav = -0.25 * (W(1, 0) + W(0, 0));
                    as = gav * BET_M;
                    acol = gav * BET_P;
                    bcol = dtr - acol;
                    corr = -as * (U(-1) - U(0));
                    dcol[k] = base + corr;
                    divided = 1.0 / (bcol - ccol[k - 1] * acol);
                    dcol[k] = (dcol[k] - dcol[k - 1] * acol) * divided;
                }
#undef W
#undef U
            }
            double data_col = 0;
            for (int64_t k = nk - 1; k >= 0; k--) {
                data_col = k == nk - 1 ? dcol[k] : dcol[k] - ccol[k] * data_col;
                A(*ut, i, j, k) = dtr * (data_col - A(*upos, i, j, k));
            }
        }
    free(ccol);
    free(dcol);
}

static void run(const char *name, Layout lay, int64_t nk)
{
    int64_t n[3] = {NI, NJ, nk};
    int64_t h0[3][2] = {{0, 0}, {0, 0}, {0, 0}}, hw[3][2] = {{0, 1}, {0, 0}, {0, 0}};
    Fld ut = fld_new(GT_FLOAT64, lay, n, h0);
    Fld us = fld_new(GT_FLOAT64, lay, n, h0);
    Fld wcon = fld_new(GT_FLOAT64, lay, n, hw);
    Fld upos = fld_new(GT_FLOAT64, lay, n, h0);
    Fld utens = fld_new(GT_FLOAT64, lay, n, h0);
    double dtr = 3.0;
    char label[128];
    int rc = vadv(ut.s, us.s, wcon.s, upos.s, utens.s, dtr, NULL);
    snprintf(label, sizeof label, "%s: returns 0", name);
    if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
        Arr want = arr_like(&ut);
        reference(&us.before, &wcon.before, &upos.before, &utens.before, &want, dtr, NI, NJ, nk);
        int64_t d[3] = {NI, NJ, nk};
        snprintf(label, sizeof label, "%s: utens_stage", name);
        check_field(label, &ut, &want, d, 1e-12);
        snprintf(label, sizeof label, "%s: wcon unchanged", name);
        check_unchanged(label, &wcon);
        arr_free(&want);
    }
    fld_free(&ut);
    fld_free(&us);
    fld_free(&wcon);
    fld_free(&upos);
    fld_free(&utens);
}

int main(void)
{
    rng_seed(5);
    run("C order", (Layout){"IJK", NULL, "C"}, NK);
    run("Fortran order", (Layout){"IJK", NULL, "F"}, NK);
    run("axes KJI", (Layout){"KJI", NULL, "C"}, NK);
    run("three levels", (Layout){"IJK", NULL, "C"}, 3);

    /* one level: the intervals need two */
    int64_t n[3] = {NI, NJ, 1}, h0[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    int64_t hw[3][2] = {{0, 1}, {0, 0}, {0, 0}};
    Layout c = {"IJK", NULL, "C"};
    Fld ut = fld_new(GT_FLOAT64, c, n, h0), us = fld_new(GT_FLOAT64, c, n, h0);
    Fld wcon = fld_new(GT_FLOAT64, c, n, hw), upos = fld_new(GT_FLOAT64, c, n, h0);
    Fld utens = fld_new(GT_FLOAT64, c, n, h0);
    const char *needles[] = {"vadv", "the domain has 1 level along K; its intervals need 3 or more",
                             NULL};
    check_error("ESHAPE: one level", vadv(ut.s, us.s, wcon.s, upos.s, utens.s, 3.0, NULL),
                GT_ESHAPE, needles);
    check_unchanged("ESHAPE: output unchanged", &ut);
    fld_free(&ut);
    fld_free(&us);
    fld_free(&wcon);
    fld_free(&upos);
    fld_free(&utens);
    return failures() != 0;
}
