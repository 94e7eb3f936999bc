/* test_tridiagonal.c: tridiagonal.stn against the Thomas algorithm in plain C, column by
 * column, and against the system itself: the solution x must satisfy
 * a x[k-1] + b x[k] + c x[k+1] = d to 1e-10 (b is diagonally dominant). The generated
 * code performs the same operations in the same order as the reference: tolerance 1e-12. */
#include <math.h>
#include <stdio.h>

#include "numeric.h"
#include "tridiagonal.h"

enum { NI = 6, NJ = 5, NK = 17 };

static void run(const char *name, Layout lay, int64_t nk)
{
    int64_t n[3] = {NI, NJ, nk};
    int64_t h0[3][2] = {{0, 0}, {0, 0}, {0, 0}}, h1[3][2] = {{1, 0}, {0, 2}, {1, 1}};
    Fld a = fld_new_range(GT_FLOAT64, lay, n, h0, -0.5, 0.5);
    Fld b = fld_new_range(GT_FLOAT64, lay, n, h1, 2.0, 3.0);
    Fld c = fld_new_range(GT_FLOAT64, lay, n, h0, -0.5, 0.5);
    Fld d = fld_new(GT_FLOAT64, lay, n, h1);
    Fld x = fld_new(GT_FLOAT64, lay, n, h1);
    char label[128];
    int rc = tridiagonal(a.s, b.s, c.s, d.s, x.s, NULL);
    snprintf(label, sizeof label, "%s: returns 0", name);
    if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
        Arr wc = arr_like(&c), wd = arr_like(&d), wx = arr_like(&x);
        const Arr *A_ = &a.before, *B = &b.before;
        double worst = 0;
        for (int64_t i = 0; i < NI; i++)
            for (int64_t j = 0; j < NJ; j++) {
                A(wc, i, j, 0) = A(wc, i, j, 0) / A(*B, i, j, 0);
                A(wd, i, j, 0) = A(wd, i, j, 0) / A(*B, i, j, 0);
                for (int64_t k = 1; k < nk; k++) {
                    double m = 1.0 / (A(*B, i, j, k) - A(*A_, i, j, k) * A(wc, i, j, k - 1));
                    A(wc, i, j, k) = A(wc, i, j, k) * m;
                    A(wd, i, j, k) = (A(wd, i, j, k) - A(*A_, i, j, k) * A(wd, i, j, k - 1)) * m;
                }
                A(wx, i, j, nk - 1) = A(wd, i, j, nk - 1);
                for (int64_t k = nk - 2; k >= 0; k--)
                    A(wx, i, j, k) = A(wd, i, j, k) - A(wc, i, j, k) * A(wx, i, j, k + 1);
                /* the residual of the original system */
                for (int64_t k = 0; k < nk; k++) {
                    double lhs = A(*B, i, j, k) * A(wx, i, j, k);
                    if (k > 0)
                        lhs += A(*A_, i, j, k) * A(wx, i, j, k - 1);
                    if (k < nk - 1)
                        lhs += A(c.before, i, j, k) * A(wx, i, j, k + 1);
                    double r = fabs(lhs - A(d.before, i, j, k));
                    worst = r > worst ? r : worst;
                }
            }
        int64_t dom[3] = {NI, NJ, nk};
        snprintf(label, sizeof label, "%s: reference solves the system", name);
        check(label, worst < 1e-10, "residual %g", worst);
        snprintf(label, sizeof label, "%s: x", name);
        check_field(label, &x, &wx, dom, 1e-12);
        snprintf(label, sizeof label, "%s: c rewritten in place", name);
        check_field(label, &c, &wc, dom, 1e-12);
        snprintf(label, sizeof label, "%s: d rewritten in place", name);
        check_field(label, &d, &wd, dom, 1e-12);
        snprintf(label, sizeof label, "%s: a and b unchanged", name);
        check(label, check_unchanged("a", &a) && check_unchanged("b", &b), "%s", "changed");
        arr_free(&wc);
        arr_free(&wd);
        arr_free(&wx);
    }
    fld_free(&a);
    fld_free(&b);
    fld_free(&c);
    fld_free(&d);
    fld_free(&x);
}

int main(void)
{
    rng_seed(4);
    run("C order", (Layout){"IJK", NULL, "C"}, NK);
    run("Fortran order", (Layout){"IJK", NULL, "F"}, NK);
    run("axes KJI", (Layout){"KJI", NULL, "C"}, NK);
    run("one level", (Layout){"IJK", NULL, "C"}, 1);
    run("two levels", (Layout){"IJK", NULL, "F"}, 2);
    return failures() != 0;
}
