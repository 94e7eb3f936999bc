/* test_types.c: types.stn. ints: C division and remainder (truncation toward zero, the
 * sign of the remainder follows the dividend), exact; index(i), index(k) are positions in
 * the compute domain. floats: computed in float (2.5 and 0.25 are float literals here, the
 * builtins their float versions), compared exactly with the same float operations; z is the
 * float sum converted to double. bools: exact. */
#include <math.h>
#include <stdio.h>

#include "numeric.h"
#include "types.h"

enum { NI = 7, NJ = 6, NK = 5 };

int main(void)
{
    rng_seed(10);
    int64_t n[3] = {NI, NJ, NK}, d[3] = {NI, NJ, NK};
    int64_t h0[3][2] = {{0, 0}, {0, 0}, {0, 0}}, h1[3][2] = {{1, 1}, {1, 1}, {1, 1}};
    Layout lays[] = {{"IJK", NULL, "C"}, {"KJI", NULL, "C"}};
    char label[128];
    for (int l = 0; l < 2; l++) {
        Fld a = fld_new(GT_INT32, lays[l], n, h1), b = fld_new(GT_INT32, lays[l], n, h0);
        Fld q = fld_new(GT_INT32, lays[l], n, h0), r = fld_new(GT_INT32, lays[1 - l], n, h1);
        Fld m = fld_new(GT_FLOAT64, lays[l], n, h0);
        int64_t small[3] = {5, 4, 3};
        gt_domain dom = {{5, 4, 3}};
        const int64_t *dd = l ? small : d;
        int rc = ints(a.s, b.s, q.s, r.s, m.s, l ? &dom : NULL);
        snprintf(label, sizeof label, "ints %d: returns 0", l);
        if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Arr wq = arr_like(&q), wr = arr_like(&r), wm = arr_like(&m);
            for (int64_t i = 0; i < dd[0]; i++)
                for (int64_t j = 0; j < dd[1]; j++)
                    for (int64_t k = 0; k < dd[2]; k++) {
                        int32_t x = (int32_t)A(a.before, i, j, k), y = (int32_t)A(b.before, i, j, k);
                        A(wq, i, j, k) = x / (y * y + 1);
                        A(wr, i, j, k) = x % 7 + (int32_t)i - 2 * (int32_t)k;
                        A(wm, i, j, k) = x * 0.5 + y;
                    }
            snprintf(label, sizeof label, "ints %d: division", l);
            check_field(label, &q, &wq, dd, 0);
            snprintf(label, sizeof label, "ints %d: remainder and index", l);
            check_field(label, &r, &wr, dd, 0);
            snprintf(label, sizeof label, "ints %d: int to double", l);
            check_field(label, &m, &wm, dd, 0);
            arr_free(&wq);
            arr_free(&wr);
            arr_free(&wm);
        }
        fld_free(&a);
        fld_free(&b);
        fld_free(&q);
        fld_free(&r);
        fld_free(&m);

        Fld x = fld_new(GT_FLOAT32, lays[l], n, h0), y = fld_new(GT_FLOAT32, lays[l], n, h1);
        Fld z = fld_new(GT_FLOAT64, lays[1 - l], n, h0);
        rc = floats(x.s, y.s, z.s, NULL);
        snprintf(label, sizeof label, "floats %d: returns 0", l);
        if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Arr wy = arr_like(&y), wz = arr_like(&z);
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++)
                    for (int64_t k = 0; k < NK; k++) {
                        float v = (float)A(x.before, i, j, k);
                        A(wy, i, j, k) = v * 2.5f + sqrtf(fabsf(v)) - fminf(v, 0.25f);
                        A(wz, i, j, k) = (double)(v + 1.0f);
                    }
            snprintf(label, sizeof label, "floats %d: float arithmetic", l);
            check_field(label, &y, &wy, d, 0);
            snprintf(label, sizeof label, "floats %d: float to double", l);
            check_field(label, &z, &wz, d, 0);
            arr_free(&wy);
            arr_free(&wz);
        }
        fld_free(&x);
        fld_free(&y);
        fld_free(&z);

        Fld u = fld_new(GT_FLOAT64, lays[l], n, h0), pos = fld_new(GT_BOOL, lays[l], n, h1);
        Fld flag = fld_new(GT_INT32, lays[1 - l], n, h0);
        rc = bools(u.s, pos.s, flag.s, NULL);
        snprintf(label, sizeof label, "bools %d: returns 0", l);
        if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Arr wp = arr_like(&pos), wf = arr_like(&flag);
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++)
                    for (int64_t k = 0; k < NK; k++) {
                        double v = A(u.before, i, j, k);
                        bool p = v > 0.0 && !(v > 0.5);
                        A(wp, i, j, k) = p;
                        A(wf, i, j, k) = p ? 1 : -1;
                    }
            snprintf(label, sizeof label, "bools %d: bool field", l);
            check_field(label, &pos, &wp, d, 0);
            snprintf(label, sizeof label, "bools %d: from a bool", l);
            check_field(label, &flag, &wf, d, 0);
            arr_free(&wp);
            arr_free(&wf);
        }
        fld_free(&u);
        fld_free(&pos);
        fld_free(&flag);
    }
    {
        Fld x = fld_new(GT_FLOAT32, lays[0], n, h1), y = fld_new(GT_FLOAT32, lays[1], n, h0);
        float top = 0, total = 0;
        int rc = scaled(x.s, y.s, 1.5f, &top, &total, NULL);
        if (check("scaled: returns 0", rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Arr wy = arr_like(&y);
            float t = -INFINITY, sum = 0;
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++)
                    for (int64_t k = 0; k < NK; k++) {
                        float v = (float)A(x.before, i, j, k) * 1.5f - 0.1f;
                        A(wy, i, j, k) = v;
                        t = fmaxf(t, v);
                        sum += v;
                    }
            check_field("scaled: float scalar input", &y, &wy, d, 0);
            check("scaled: float max", top == t, "%.9g, want %.9g", top, t);
            check("scaled: float sum, accumulated in float", total == sum, "%.9g, want %.9g",
                  total, sum);
            arr_free(&wy);
        }
        fld_free(&x);
        fld_free(&y);
    }
    return failures() != 0;
}
