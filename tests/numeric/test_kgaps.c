/* test_kgaps.c: kgaps.stn. The references run the sweeps of language.md section 1 level
 * by level over plain arrays: gaps between intervals keep what the storage held, a read at
 * k+1 in a forward sweep sees the value an earlier computation left there. Two layouts, and
 * u with one point of halo on the upper I side for ahead's t[i+1]. */
#include <stdio.h>

#include "numeric.h"
#include "kgaps.h"

enum { NI = 5, NJ = 4, NK = 8 };

/* Compares the outputs v and w of stencil `stencil` with their references ev and ew, then
   frees them all. */
static void check_and_free(const char *label, const char *stencil, Fld *u, Fld *v, Fld *w,
                           Arr *ev, Arr *ew)
{
    char name[96];
    int64_t d[3] = {NI, NJ, NK};
    snprintf(name, sizeof name, "kgaps %s: %s v", label, stencil);
    check_field(name, v, ev, d, 0);
    snprintf(name, sizeof name, "kgaps %s: %s w", label, stencil);
    check_field(name, w, ew, d, 0);
    arr_free(ev);
    arr_free(ew);
    fld_free(u);
    fld_free(v);
    fld_free(w);
}

static void check_gaps(Layout lay, const char *label)
{
    int64_t n[3] = {NI, NJ, NK}, h0[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    Fld u = fld_new(GT_FLOAT64, lay, n, h0), v = fld_new(GT_FLOAT64, lay, n, h0);
    Fld w = fld_new(GT_FLOAT64, lay, n, h0);
    char name[96];
    int rc = gaps(u.s, v.s, w.s, NULL);
    snprintf(name, sizeof name, "kgaps %s: gaps returns 0", label);
    check(name, rc == 0, "returned %d: %s", rc, gt_last_error());
    Arr ev = arr_like(&v), ew = arr_like(&w);
    for (int j = 0; j < NJ; j++)
        for (int i = 0; i < NI; i++) {
            double U[NK], V[NK], W[NK];
            for (int k = 0; k < NK; k++) {
                U[k] = A(u.before, i, j, k);
                V[k] = A(v.before, i, j, k);
                W[k] = A(w.before, i, j, k);
            }
            V[0] = U[0];
            V[1] = V[0] + U[1];                  /* level 2: a gap, as it was */
            for (int k = 3; k < NK - 2; k++)
                V[k] = V[k - 1] * 2.0 + V[k - 2];
            W[NK - 1] = U[NK - 1];               /* level NK-2: a gap */
            W[NK - 3] = W[NK - 2] + W[NK - 1] + U[NK - 3];
            for (int k = NK - 5; k >= 0; k--)    /* level NK-4: a gap */
                W[k] = W[k + 1] - U[k] + W[k + 3];
            for (int k = 0; k < NK; k++) {
                A(ev, i, j, k) = V[k];
                A(ew, i, j, k) = W[k];
            }
        }
    check_and_free(label, "gaps", &u, &v, &w, &ev, &ew);
}

static void check_ahead(Layout lay, const char *label)
{
    int64_t n[3] = {NI, NJ, NK}, h0[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    int64_t hu[3][2] = {{0, 1}, {0, 0}, {0, 0}};
    Fld u = fld_new(GT_FLOAT64, lay, n, hu), v = fld_new(GT_FLOAT64, lay, n, h0);
    Fld w = fld_new(GT_FLOAT64, lay, n, h0);
    char name[96];
    int rc = ahead(u.s, v.s, w.s, NULL);
    snprintf(name, sizeof name, "kgaps %s: ahead returns 0", label);
    check(name, rc == 0, "returned %d: %s", rc, gt_last_error());
    Arr ev = arr_like(&v), ew = arr_like(&w);
    static double t[NI + 1][NJ][NK];   /* t over its extent i[0,+1] */
    for (int k = 0; k < NK; k++)
        for (int j = 0; j < NJ; j++)
            for (int i = 0; i <= NI; i++)
                t[i][j][k] = A(u.before, i, j, k);
    for (int j = 0; j < NJ; j++)
        for (int i = 0; i < NI; i++)
            A(ev, i, j, 0) = t[i][j][0];
    for (int k = 1; k < NK - 1; k++) {   /* t[k+1]: the first computation's value */
        for (int j = 0; j < NJ; j++)
            for (int i = 0; i <= NI; i++)
                t[i][j][k] = t[i][j][k - 1] + t[i][j][k + 1];
        for (int j = 0; j < NJ; j++)
            for (int i = 0; i < NI; i++) {
                A(ev, i, j, k) = t[i][j][k];
                A(ew, i, j, k) = t[i + 1][j][k - 1];
            }
    }
    for (int j = 0; j < NJ; j++)
        for (int i = 0; i < NI; i++) {
            A(ew, i, j, NK - 1) = t[i][j][NK - 1];
            A(ew, i, j, 0) = t[i][j][1] * 2.0 + t[i][j][0];
        }
    check_and_free(label, "ahead", &u, &v, &w, &ev, &ew);
}

int main(void)
{
    rng_seed(29);
    Layout lays[] = {{"IJK", NULL, "C"}, {"KJI", NULL, "C"}};
    const char *labels[] = {"IJK", "KJI"};
    for (int l = 0; l < 2; l++) {
        check_gaps(lays[l], labels[l]);
        check_ahead(lays[l], labels[l]);
    }
    return failures() ? 1 : 0;
}
