/* examples/hdiff/main.c: smooths a bump with the horizontal diffusion of hdiff.stn.
 *
 * Shows the generated API at work: storages allocated with the halo that hdiff_info says
 * each field needs, the halo refreshed between steps with gt_fill_halo (periodic), the
 * output of one step fed as the input of the next, errors reported with gt_last_error().
 * With a uniform coefficient and periodic halos the scheme conserves the sum of u, which
 * the program prints next to the peak value it flattens. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gt/gt.h>

#include "hdiff.gen.h"

enum { NI = 64, NJ = 64, NK = 3, STEPS = 100 };

static void die(const char *what)
{
    fprintf(stderr, "hdiff: %s: %s\n", what, gt_last_error());
    exit(1);
}

/* A storage for field f of hdiff, with the halo that field `like` needs (u and out_u swap
 * roles after each step, so both get the input's halo). */
static gt_storage *field_storage(int f, int like, double value)
{
    const gt_field_info *fi = &hdiff_info.fields[like];
    gt_storage_opts opts = {0};
#ifdef GT_EXAMPLE_CUDA
    opts.device = GT_CUDA;   /* the cuda backend's stencils run on device storages */
#endif
    int64_t shape[3] = {NI, NJ, NK};
    for (int a = 0; a < 3; a++) {
        opts.halo[a][0] = fi->halo[a][0];
        opts.halo[a][1] = fi->halo[a][1];
        shape[a] += fi->halo[a][0] + fi->halo[a][1];
    }
    gt_storage *s = gt_full(GT_FLOAT64, "IJK", shape, value, &opts);
    if (!s)
        die(hdiff_info.fields[f].name);
    return s;
}

/* Element (i, j, k) of the interior. */
static double *at(gt_storage *s, double *base, int64_t i, int64_t j, int64_t k)
{
    const int64_t *st = gt_strides(s);
    const int64_t(*h)[2] = gt_halo(s);
    return &base[(i + h[0][0]) * st[0] + (j + h[1][0]) * st[1] + (k + h[2][0]) * st[2]];
}

static void stats(gt_storage *s, double *peak, double *sum)
{
    double *p = gt_host(s, GT_READ);
    *peak = -INFINITY;
    *sum = 0;
    for (int64_t i = 0; i < NI; i++)
        for (int64_t j = 0; j < NJ; j++) {
            double v = *at(s, p, i, j, 0);
            *peak = v > *peak ? v : *peak;
            *sum += v;
        }
}

int main(void)
{
    gt_storage *u = field_storage(0, 0, 0.0), *coeff = field_storage(1, 1, 0.05);
    gt_storage *out = field_storage(2, 0, 0.0);

    double *p = gt_host(u, GT_WRITE);
    for (int64_t i = 0; i < NI; i++)
        for (int64_t j = 0; j < NJ; j++)
            for (int64_t k = 0; k < NK; k++) {
                double x = (i - NI / 2.0) / 3.0, y = (j - NJ / 2.0) / 3.0;
                *at(u, p, i, j, k) = exp(-(x * x + y * y));
            }

    double peak0, sum0, peak, sum;
    stats(u, &peak0, &sum0);
    for (int step = 0; step < STEPS; step++) {
        if (gt_fill_halo(u, "IJ", GT_BC_PERIODIC, 0) != 0)
            die("gt_fill_halo");
        if (hdiff(u, coeff, out, NULL) != 0)
            die("hdiff");
        gt_storage *t = u;
        u = out;
        out = t;
    }
    stats(u, &peak, &sum);
    printf("hdiff: %d steps of horizontal diffusion on a %dx%dx%d grid\n", STEPS, NI, NJ, NK);
    printf("  peak of the bump: %.6f -> %.6f\n", peak0, peak);
    printf("  sum over a level: %.9f -> %.9f (conserved)\n", sum0, sum);
    gt_release(u);
    gt_release(coeff);
    gt_release(out);
    return 0;
}
