/* test_minmax.c: minmax.stn. Each point gets one pair (a, b) of a table: signed zeros both
 * ways, NaN first and second, both NaN, infinities, equal and ordered numbers; the float
 * fields the same pairs as floats. Expected, written here from the rule (not from fmin):
 * min(a, b) is a where a < b or b is NaN, else b; max(a, b) is a where a > b or b is NaN,
 * else b; compared bit for bit (the sign of a zero, and NaN as any NaN). cmn is min(0.0,
 * -0.0) folded by gtcc (-0) plus min(a, b) * 0.0; cmx is max(-0.0, 0.0) folded (+0). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "minmax.h"
#include "numeric.h"

enum { NI = 4, NJ = 3, NK = 2 };

static double ref_min(double a, double b)
{
    return (a < b || isnan(b)) ? a : b;
}

static double ref_max(double a, double b)
{
    return (a > b || isnan(b)) ? a : b;
}

/* the same bits, or both NaN */
static int same(double x, double y)
{
    return (isnan(x) && isnan(y)) || memcmp(&x, &y, sizeof x) == 0;
}

int main(void)
{
    static const double pairs[][2] = {
        {0.0, -0.0}, {-0.0, 0.0}, {-0.0, -0.0}, {0.0, 0.0}, {NAN, 1.0}, {1.0, NAN},
        {NAN, NAN}, {INFINITY, -INFINITY}, {-2.5, 3.0}, {3.0, -2.5}, {1.5, 1.5}, {-1.0, -0.0},
    };
    enum { NPAIRS = sizeof pairs / sizeof pairs[0] };
    const int64_t shape[3] = {NI, NJ, NK};
    gt_storage *s[10];
    for (int f = 0; f < 10; f++)
        s[f] = gt_zeros(f == 2 || f == 3 || f == 6 || f == 7 ? GT_FLOAT32 : GT_FLOAT64, "IJK",
                        shape, NULL);
    for (int f = 0; f < 10; f++)
        if (!check("minmax: storages", s[f] != NULL, "%s", gt_last_error()))
            return 0;
    double *a = gt_host(s[0], GT_WRITE), *b = gt_host(s[1], GT_WRITE);
    float *fa = gt_host(s[2], GT_WRITE), *fb = gt_host(s[3], GT_WRITE);
    const int64_t *st = gt_strides(s[0]), *fs = gt_strides(s[2]);
    for (int64_t i = 0; i < NI; i++)
        for (int64_t j = 0; j < NJ; j++)
            for (int64_t k = 0; k < NK; k++) {
                const double *p = pairs[(i + NI * (j + NJ * k)) % NPAIRS];
                a[i * st[0] + j * st[1] + k * st[2]] = p[0];
                b[i * st[0] + j * st[1] + k * st[2]] = p[1];
                fa[i * fs[0] + j * fs[1] + k * fs[2]] = (float)p[0];
                fb[i * fs[0] + j * fs[1] + k * fs[2]] = (float)p[1];
            }
    int rc = minmax(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9], NULL);
    if (!check("minmax: returns 0", rc == 0, "returned %d: %s", rc, gt_last_error()))
        return 0;
    const double *mn = gt_host(s[4], GT_READ), *mx = gt_host(s[5], GT_READ);
    const float *fmn = gt_host(s[6], GT_READ), *fmx = gt_host(s[7], GT_READ);
    const double *cmn = gt_host(s[8], GT_READ), *cmx = gt_host(s[9], GT_READ);
    int64_t wrong[6] = {0};
    char first[6][160] = {""};
    for (int64_t i = 0; i < NI; i++)
        for (int64_t j = 0; j < NJ; j++)
            for (int64_t k = 0; k < NK; k++) {
                const double *p = pairs[(i + NI * (j + NJ * k)) % NPAIRS];
                int64_t x = i * st[0] + j * st[1] + k * st[2], y = i * fs[0] + j * fs[1] + k * fs[2];
                double want[6] = {ref_min(p[0], p[1]), ref_max(p[0], p[1]),
                                  (float)ref_min((float)p[0], (float)p[1]),
                                  (float)ref_max((float)p[0], (float)p[1]),
                                  -0.0 + ref_min(p[0], p[1]) * 0.0, 0.0};
                double got[6] = {mn[x], mx[x], fmn[y], fmx[y], cmn[x], cmx[x]};
                for (int c = 0; c < 6; c++)
                    if (!same(want[c], got[c]) && wrong[c]++ == 0)
                        snprintf(first[c], sizeof first[c], "(%g, %g) gave %g, want %g", p[0],
                                 p[1], got[c], want[c]);
            }
    static const char *const names[6] = {"min of doubles", "max of doubles", "min of floats",
                                         "max of floats", "min(0.0, -0.0) folded",
                                         "max(-0.0, 0.0) folded"};
    for (int c = 0; c < 6; c++) {
        char name[80];
        snprintf(name, sizeof name, "minmax: %s", names[c]);
        check(name, wrong[c] == 0, "%lld points wrong, first %s", (long long)wrong[c], first[c]);
    }
    for (int f = 0; f < 10; f++)
        gt_release(s[f]);
    return 0;
}
