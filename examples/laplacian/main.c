/* examples/laplacian/main.c: the five-point Laplacian of laplacian.stn, applied to
 * u = i*i + j*j, whose discrete Laplacian is 4 everywhere.
 *
 * The input needs one point of halo along I and J (laplacian_info says so); the program
 * allocates it in Fortran order to show that the layout does not matter, and calls the
 * stencil twice: on the whole interior, and on an explicit smaller domain (the output
 * starts at -1 each time; points outside the domain keep it). */
#include <stdio.h>

#include <gt/gt.h>

#include "laplacian.gen.h"

enum { NI = 32, NJ = 24, NK = 4 };

int main(void)
{
    const gt_field_info *fu = &laplacian_info.fields[0];
    gt_storage_opts opts = {.defaults = "F"};
    int64_t shape[3] = {NI, NJ, NK};
    for (int a = 0; a < 3; a++) {
        opts.halo[a][0] = fu->halo[a][0];
        opts.halo[a][1] = fu->halo[a][1];
        shape[a] += fu->halo[a][0] + fu->halo[a][1];
    }
    gt_storage *u = gt_empty(GT_FLOAT64, "IJK", shape, &opts);
    if (!u) {
        fprintf(stderr, "laplacian: %s\n", gt_last_error());
        return 1;
    }
    double *p = gt_host(u, GT_WRITE);
    const int64_t *s = gt_strides(u);
    for (int64_t i = 0; i < shape[0]; i++)
        for (int64_t j = 0; j < shape[1]; j++)
            for (int64_t k = 0; k < shape[2]; k++)
                p[i * s[0] + j * s[1] + k * s[2]] = (double)(i * i + j * j);

    gt_domain corner = {{5, 4, 2}};
    for (int pass = 0; pass < 2; pass++) {
        const gt_domain *dom = pass ? &corner : NULL;
        gt_storage *lap = gt_full(GT_FLOAT64, "IJK", (int64_t[3]){NI, NJ, NK}, -1.0, NULL);
        if (!lap || laplacian(u, lap, dom) != 0) {
            fprintf(stderr, "laplacian: %s\n", gt_last_error());
            return 1;
        }
        const double *l = gt_host(lap, GT_READ);
        const int64_t *ls = gt_strides(lap);
        long fours = 0, untouched = 0;
        for (int64_t i = 0; i < NI; i++)
            for (int64_t j = 0; j < NJ; j++)
                for (int64_t k = 0; k < NK; k++) {
                    double v = l[i * ls[0] + j * ls[1] + k * ls[2]];
                    fours += v == 4.0;
                    untouched += v == -1.0;
                }
        printf("laplacian of i*i + j*j on %s: %ld points equal 4, %ld untouched\n",
               pass ? "a 5x4x2 domain" : "the whole 32x24x4 interior", fours, untouched);
        gt_release(lap);
    }
    gt_release(u);
    return 0;
}
