/* test_intarith.c: intarith.stn. The int rules of language.md section 5.3, written here
 * from their definitions in 64-bit arithmetic (never with gt_generated.h's helpers): a
 * result wraps to the int32 value congruent to it modulo 2^32; the quotient truncates
 * toward zero and is 0 for a divisor 0; the remainder is a - b * (a / b) with the true
 * quotient, 0 for a divisor 0. Operands are the int limits, 0, +-1 and random values of
 * every size, in every pair, on two layouts. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "numeric.h"
#include "intarith.h"

enum { NI = 12, NJ = 12, NK = 6 };

/* the int32 value congruent to v modulo 2^32 */
static int64_t wrap(int64_t v)
{
    int64_t m = ((v % 4294967296LL) + 4294967296LL) % 4294967296LL;   /* 0 .. 2^32 - 1 */
    return m >= 2147483648LL ? m - 4294967296LL : m;
}

static int64_t quotient(int64_t a, int64_t b)
{
    return b == 0 ? 0 : wrap(a / b);   /* C99's / on int64 truncates; no int64 overflow here */
}

static int64_t remainder_of(int64_t a, int64_t b)
{
    return b == 0 ? 0 : wrap(a - b * (a / b));
}

/* the values the operands take: the limits, small ones, then random ones */
static double operand(int64_t n)
{
    static const double special[] = {-2147483648.0, 2147483647.0, 0, 1, -1, 2, -2,
                                     -2147483647.0, 2147483646.0, 65536, -65536, 46341};
    enum { NSPECIAL = sizeof special / sizeof *special };
    if (n < NSPECIAL)
        return special[n];
    double r = rng_uniform(0, 1);
    double scale = r < 0.3 ? 10 : r < 0.6 ? 70000 : 2147483647.0;
    return floor(rng_uniform(-scale, scale + 1));
}

int main(void)
{
    rng_seed(23);
    int64_t n[3] = {NI, NJ, NK}, d[3] = {NI, NJ, NK};
    int64_t h0[3][2] = {{0, 0}, {0, 0}, {0, 0}}, h1[3][2] = {{1, 1}, {1, 1}, {1, 1}};
    Layout lays[] = {{"IJK", NULL, "C"}, {"KJI", NULL, "C"}};
    char label[128];
    for (int l = 0; l < 2; l++) {
        Fld a = fld_new(GT_INT32, lays[l], n, h1), b = fld_new(GT_INT32, lays[1 - l], n, h0);
        /* every pair of the special values (a along I, b along J at level 0), random pairs
           elsewhere */
        for (int64_t k = 0; k < NK; k++)
            for (int64_t j = 0; j < NJ; j++)
                for (int64_t i = 0; i < NI; i++) {
                    fld_set(&a, i, j, k, k == 0 ? operand(i) : operand(12 + i));
                    fld_set(&b, i, j, k, k == 0 ? operand(j) : operand(12 + j));
                }
        Fld out[7], q[5];
        for (int o = 0; o < 7; o++)
            out[o] = fld_new(GT_INT32, lays[(l + o) % 2], n, o % 2 ? h1 : h0);
        for (int o = 0; o < 5; o++)
            q[o] = fld_new(GT_INT32, lays[(l + o + 1) % 2], n, h0);
        int rc = iops(a.s, b.s, out[0].s, out[1].s, out[2].s, out[3].s, out[4].s, out[5].s,
                      out[6].s, NULL);
        int rc2 = iconst(a.s, q[0].s, q[1].s, q[2].s, q[3].s, q[4].s, NULL);
        snprintf(label, sizeof label, "intarith layout %d: iops and iconst return 0", l);
        if (check(label, rc == 0 && rc2 == 0, "returned %d, %d: %s", rc, rc2,
                  gt_last_error())) {
            Arr w[12];
            for (int o = 0; o < 7; o++)
                w[o] = arr_like(&out[o]);
            for (int o = 0; o < 5; o++)
                w[7 + o] = arr_like(&q[o]);
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++)
                    for (int64_t k = 0; k < NK; k++) {
                        int64_t x = (int64_t)A(a.before, i, j, k);
                        int64_t y = (int64_t)A(b.before, i, j, k);
                        A(w[0], i, j, k) = (double)wrap(x + y);
                        A(w[1], i, j, k) = (double)wrap(x - y);
                        A(w[2], i, j, k) = (double)wrap(x * y);
                        A(w[3], i, j, k) = (double)quotient(x, y);
                        A(w[4], i, j, k) = (double)remainder_of(x, y);
                        A(w[5], i, j, k) = (double)wrap(-x);
                        A(w[6], i, j, k) = (double)wrap(x < 0 ? -x : x);
                        A(w[7], i, j, k) = (double)quotient(x, -1);
                        A(w[8], i, j, k) = (double)remainder_of(x, -1);
                        A(w[9], i, j, k) = (double)quotient(x, -7);
                        A(w[10], i, j, k) = (double)remainder_of(x, 7);
                        A(w[11], i, j, k) = (double)wrap(wrap(x + 2147483647) * 3);
                    }
            static const char *const names[] = {
                "a + b wraps", "a - b wraps", "a * b wraps", "a / b (b 0: 0; MIN / -1: MIN)",
                "a % b (b 0: 0)", "-a wraps", "abs(a) (abs(MIN): MIN)", "a / -1", "a % -1",
                "a / -7", "a % 7", "t += MAX; t *= 3 (wraps)"};
            for (int o = 0; o < 12; o++) {
                snprintf(label, sizeof label, "intarith layout %d: %s", l, names[o]);
                check_field(label, o < 7 ? &out[o] : &q[o - 7], &w[o], d, 0);
                arr_free(&w[o]);
            }
        }
        int32_t total = 12345;
        Layout ij = {"IJ", NULL, "C"};
        Fld col = fld_new(GT_INT32, ij, n, h0);
        rc = isums(a.s, col.s, &total, NULL);
        snprintf(label, sizeof label, "intarith layout %d: isums returns 0", l);
        if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Arr wc = arr_like(&col);
            int64_t all = 0;
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++) {
                    int64_t s = 0;
                    for (int64_t k = 0; k < NK; k++)
                        s += (int64_t)A(a.before, i, j, k);
                    A(wc, i, j, 0) = (double)wrap(s);
                    all += s;
                }
            snprintf(label, sizeof label, "intarith layout %d: sum(a, k) wraps", l);
            check_field(label, &col, &wc, d, 0);
            snprintf(label, sizeof label, "intarith layout %d: sum(a) wraps", l);
            check(label, total == wrap(all), "got %d, expected %lld", (int)total,
                  (long long)wrap(all));
            arr_free(&wc);
        }
        fld_free(&col);
        for (int o = 0; o < 7; o++)
            fld_free(&out[o]);
        for (int o = 0; o < 5; o++)
            fld_free(&q[o]);
        fld_free(&a);
        fld_free(&b);
    }
    return failures() != 0;
}
