/* test_instances.c: instances.stn compiled twice into one program (run.sh's INSTANCES
 * line): two_ with W = 2, C = 0.25 and three_ with W = 3, C = 0.5 (the file's own). Each
 * instance computes with its own constants; the two headers include together (their
 * guards differ) and each instance has its own _info object. */
#include <stdio.h>

#include "numeric.h"
#include "instances_1.h"
#include "instances_2.h"

enum { NI = 6, NJ = 5, NK = 4 };

static void run(const char *name, int w, double cst,
                int (*smooth)(gt_storage *, gt_storage *, double, const gt_domain *),
                int (*scale)(gt_storage *, gt_storage *, const gt_domain *))
{
    int64_t n[3] = {NI, NJ, NK};
    int64_t h0[3][2] = {{0, 0}, {0, 0}, {0, 0}}, h1[3][2] = {{1, 1}, {0, 0}, {0, 0}};
    Layout lay = {"IJK", NULL, "C"};
    char label[128];
    Fld u = fld_new(GT_FLOAT64, lay, n, h1), v = fld_new(GT_FLOAT64, lay, n, h0);
    Fld m = fld_new(GT_INT32, lay, n, h0);
    int rc = smooth(u.s, v.s, 0.125, NULL);
    int rc2 = scale(u.s, m.s, NULL);
    snprintf(label, sizeof label, "%s: returns 0", name);
    if (check(label, rc == 0 && rc2 == 0, "returned %d, %d: %s", rc, rc2, gt_last_error())) {
        Arr wv = arr_like(&v), wm = arr_like(&m);
        for (int64_t i = 0; i < NI; i++)
            for (int64_t j = 0; j < NJ; j++)
                for (int64_t k = 0; k < NK; k++) {
                    double x = A(u.before, i, j, k);
                    A(wv, i, j, k) = cst * (A(u.before, i - 1, j, k) + A(u.before, i + 1, j, k)) *
                                     w + 0.125;
                    A(wm, i, j, k) = (int)(x * 10.0) * w;
                }
        snprintf(label, sizeof label, "%s: smooth with its -D values", name);
        check_field(label, &v, &wv, n, 0);
        snprintf(label, sizeof label, "%s: scale with its -D values", name);
        check_field(label, &m, &wm, n, 0);
        arr_free(&wv);
        arr_free(&wm);
    }
    fld_free(&u);
    fld_free(&v);
    fld_free(&m);
}

int main(void)
{
    rng_seed(6);
    run("two_", 2, 0.25, two_smooth, two_scale);
    run("three_", 3, 0.5, three_smooth, three_scale);
    check("_info objects", &two_smooth_info != &three_smooth_info &&
          two_smooth_info.nfields == 2 && three_scale_info.nfields == 2,
          "two_smooth_info and three_smooth_info are not two objects of 2 fields");
    return failures() != 0;
}
