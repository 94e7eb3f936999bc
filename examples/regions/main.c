/* examples/regions/main.c: one step of regions.stn's edge_smooth on u = i + 10 j.
 *
 * The interior is smoothed (u is linear in i, so it stays u), the first column sees the
 * wall (u + 0.25), the last column takes its western neighbour, the south row (but its
 * ends) its northern neighbour, two points of the north row the inflow. The program prints
 * one row per J of the lowest level, then checks every point against those rules. */
#include <stdio.h>

#include <gt/gt.h>

#include "regions.gen.h"

enum { NI = 8, NJ = 5, NK = 2 };

/* u at (i, j), halo included */
static double u_at(int64_t i, int64_t j) { return (double)i + 10.0 * (double)j; }

int main(void)
{
    const gt_field_info *fu = &edge_smooth_info.fields[0];
    gt_storage_opts opts = {0};
    int64_t shape[3] = {NI, NJ, NK};
    for (int a = 0; a < 3; a++) {
        opts.halo[a][0] = fu->halo[a][0];
        opts.halo[a][1] = fu->halo[a][1];
        shape[a] += fu->halo[a][0] + fu->halo[a][1];
    }
    gt_storage *u = gt_empty(GT_FLOAT64, "IJK", shape, &opts);
    gt_storage *unew = gt_full(GT_FLOAT64, "IJK", (int64_t[3]){NI, NJ, NK}, -1.0, NULL);
    if (!u || !unew) {
        fprintf(stderr, "regions: %s\n", gt_last_error());
        return 1;
    }
    double *p = gt_host(u, GT_WRITE);
    const int64_t *s = gt_strides(u);
    for (int64_t i = 0; i < shape[0]; i++)
        for (int64_t j = 0; j < shape[1]; j++)
            for (int64_t k = 0; k < shape[2]; k++)
                p[i * s[0] + j * s[1] + k * s[2]] = u_at(i - fu->halo[0][0], j - fu->halo[1][0]);
    const double inflow = -5.0;
    if (edge_smooth(u, unew, inflow, NULL) != 0) {
        fprintf(stderr, "regions: %s\n", gt_last_error());
        return 1;
    }
    const double *o = gt_host(unew, GT_READ);
    const int64_t *os = gt_strides(unew);
    long wrong = 0;
    for (int64_t j = NJ - 1; j >= 0; j--) {
        printf("j=%lld:", (long long)j);
        for (int64_t i = 0; i < NI; i++) {
            double v = o[i * os[0] + j * os[1]];
            printf(" %6.2f", v);
            for (int64_t k = 0; k < NK; k++) {
                double want = i == NI - 1                     ? u_at(i - 1, j)
                              : j == 0 && i > 0                 ? u_at(i, j + 1)
                              : j == NJ - 1 && i >= 1 && i < 3  ? inflow
                              : i == 0                          ? u_at(i, j) + 0.25
                                                                : u_at(i, j);
                wrong += o[i * os[0] + j * os[1] + k * os[2]] != want;
            }
        }
        printf("\n");
    }
    printf("edge_smooth: %ld of %d points differ from the edge rules\n", wrong, NI * NJ * NK);
    gt_release(u);
    gt_release(unew);
    return wrong != 0;
}
