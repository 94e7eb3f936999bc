/* test_contract.c: contract.stn. a = b = 1 + 2^-30 everywhere, c = 1 + 2^-29. The exact
 * product a * b is 1 + 2^-29 + 2^-60, which rounds to 1 + 2^-29 = c, so with each operation
 * rounded on its own out = a * b - c is exactly 0. A fused multiply-add keeps the exact
 * product and gives 2^-60 instead. Expected: 0 at every point, exactly. */
#include <math.h>
#include <stdio.h>

#include "contract.h"
#include "numeric.h"

enum { NI = 9, NJ = 8, NK = 3 };

int main(void)
{
    const int64_t shape[3] = {NI, NJ, NK};
    const double x = 1.0 + ldexp(1.0, -30), p = 1.0 + ldexp(1.0, -29);
    gt_storage *a = gt_full(GT_FLOAT64, "IJK", shape, x, NULL);
    gt_storage *b = gt_full(GT_FLOAT64, "IJK", shape, x, NULL);
    gt_storage *c = gt_full(GT_FLOAT64, "IJK", shape, p, NULL);
    gt_storage *out = gt_full(GT_FLOAT64, "IJK", shape, -1.0, NULL);
    if (!check("contract: storages", a && b && c && out, "%s", gt_last_error()))
        return 0;
    int rc = contract(a, b, c, out, NULL);
    if (check("contract: returns 0", rc == 0, "returned %d: %s", rc, gt_last_error())) {
        const double *o = gt_host(out, GT_READ);
        const int64_t *s = gt_strides(out);
        int64_t wrong = 0;
        double first = 0;
        for (int64_t i = 0; i < NI; i++)
            for (int64_t j = 0; j < NJ; j++)
                for (int64_t k = 0; k < NK; k++) {
                    double v = o[i * s[0] + j * s[1] + k * s[2]];
                    if (v != 0.0 && wrong++ == 0)
                        first = v;
                }
        check("contract: a * b - c is 0 (no fused multiply-add)", wrong == 0,
              "%lld of %d points are not 0, e.g. %a (2^-60 is %a: contracted)", (long long)wrong,
              NI * NJ * NK, first, ldexp(1.0, -60));
    }
    gt_release(a), gt_release(b), gt_release(c), gt_release(out);
    return 0;
}
