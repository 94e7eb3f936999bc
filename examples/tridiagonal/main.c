/* examples/tridiagonal/main.c: solves one tridiagonal system per column with the Thomas
 * algorithm of tridiagonal.stn (a forward and a backward sweep over K).
 *
 * The right-hand side d is built from a known solution, x_true(k) = sin(k / 4) + i - j, so
 * the program can print how far the computed x is from it. The stencil overwrites c and d
 * (they are in-out fields); a and b are only read. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gt/gt.h>

#include "tridiagonal.gen.h"

enum { NI = 8, NJ = 8, NK = 40 };

static double exact(int64_t i, int64_t j, int64_t k)
{
    return sin((double)k / 4.0) + (double)i - (double)j;
}

int main(void)
{
    int64_t shape[3] = {NI, NJ, NK};
    gt_storage *a = gt_full(GT_FLOAT64, "IJK", shape, -1.0, NULL);
    gt_storage *b = gt_full(GT_FLOAT64, "IJK", shape, 4.0, NULL);
    gt_storage *c = gt_full(GT_FLOAT64, "IJK", shape, -1.0, NULL);
    gt_storage *d = gt_zeros(GT_FLOAT64, "IJK", shape, NULL);
    gt_storage *x = gt_zeros(GT_FLOAT64, "IJK", shape, NULL);
    if (!a || !b || !c || !d || !x) {
        fprintf(stderr, "tridiagonal: %s\n", gt_last_error());
        return 1;
    }
    /* d = A x_true, with a(k) x(k-1) + b(k) x(k) + c(k) x(k+1) */
    double *dp = gt_host(d, GT_WRITE);
    const int64_t *s = gt_strides(d);
    for (int64_t i = 0; i < NI; i++)
        for (int64_t j = 0; j < NJ; j++)
            for (int64_t k = 0; k < NK; k++) {
                double v = 4.0 * exact(i, j, k);
                if (k > 0)
                    v -= exact(i, j, k - 1);
                if (k < NK - 1)
                    v -= exact(i, j, k + 1);
                dp[i * s[0] + j * s[1] + k * s[2]] = v;
            }

    if (tridiagonal(a, b, c, d, x, NULL) != 0) {
        fprintf(stderr, "tridiagonal: %s\n", gt_last_error());
        return 1;
    }
    const double *xp = gt_host(x, GT_READ);
    double worst = 0;
    for (int64_t i = 0; i < NI; i++)
        for (int64_t j = 0; j < NJ; j++)
            for (int64_t k = 0; k < NK; k++)
                worst = fmax(worst, fabs(xp[i * s[0] + j * s[1] + k * s[2]] - exact(i, j, k)));
    printf("tridiagonal: %d systems of %d unknowns (one per column)\n", NI * NJ, NK);
    printf("  largest error against the known solution: %.3g\n", worst);
    printf("  x at column (2, 3), levels 0..4:");
    for (int64_t k = 0; k < 5; k++)
        printf(" %.6f", xp[2 * s[0] + 3 * s[1] + k * s[2]]);
    printf("\n");
    gt_release(a);
    gt_release(b);
    gt_release(c);
    gt_release(d);
    gt_release(x);
    return worst < 1e-9 ? 0 : 1;
}
