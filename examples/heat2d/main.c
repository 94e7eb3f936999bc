/* examples/heat2d/main.c: heat diffusion on a periodic plane (heat2d.stn), written as a
 * PGM image that any image viewer opens.
 *
 * The stencil declares `boundary u: periodic;`, so its storages need no halo: reads
 * outside the domain wrap around. Two hot squares, one of them across the domain's edge,
 * spread for STEPS steps; the program prints the peak temperature and the total heat
 * (conserved by the scheme), and writes the field of level 0 to heat2d.pgm (or argv[1]). */
#define _POSIX_C_SOURCE 200809L /* getcwd */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <gt/gt.h>

#include "heat2d.gen.h"

enum { NI = 128, NJ = 96, NK = 1, STEPS = 400 };

static void die(const char *what)
{
    fprintf(stderr, "heat2d: %s: %s\n", what, gt_last_error());
    exit(1);
}

static double total(gt_storage *s, double *peak)
{
    const double *p = gt_host(s, GT_READ);
    const int64_t *st = gt_strides(s);
    double sum = 0;
    *peak = 0;
    for (int64_t i = 0; i < NI; i++)
        for (int64_t j = 0; j < NJ; j++) {
            double v = p[i * st[0] + j * st[1]];
            sum += v;
            *peak = v > *peak ? v : *peak;
        }
    return sum;
}

static int write_pgm(const char *path, gt_storage *s, double hi)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    const double *p = gt_host(s, GT_READ);
    const int64_t *st = gt_strides(s);
    fprintf(f, "P5\n%d %d\n255\n", NI, NJ);
    for (int64_t j = NJ - 1; j >= 0; j--)          /* J up, I to the right */
        for (int64_t i = 0; i < NI; i++) {
            double v = p[i * st[0] + j * st[1]] / hi;
            fputc((int)(255.0 * (v < 0 ? 0 : v > 1 ? 1 : v) + 0.5), f);
        }
    return fclose(f);
}

int main(int argc, char **argv)
{
    const char *image = argc > 1 ? argv[1] : "heat2d.pgm";
    int64_t shape[3] = {NI, NJ, NK};
    gt_storage *u = gt_zeros(GT_FLOAT64, "IJK", shape, NULL);
    gt_storage *unew = gt_zeros(GT_FLOAT64, "IJK", shape, NULL);
    if (!u || !unew)
        die("gt_zeros");

    double *p = gt_host(u, GT_WRITE);
    const int64_t *st = gt_strides(u);
    for (int64_t i = 0; i < NI; i++)
        for (int64_t j = 0; j < NJ; j++) {
            int a = i >= 30 && i < 50 && j >= 40 && j < 60;         /* a square inside */
            int b = (i < 10 || i >= NI - 10) && j >= 10 && j < 25;  /* one across the edge */
            p[i * st[0] + j * st[1]] = a || b ? 1.0 : 0.0;
        }

    double peak0, peak, heat0 = total(u, &peak0);
    for (int step = 0; step < STEPS; step++) {
        if (heat(u, unew, 0.2, NULL) != 0)
            die("heat");
        gt_storage *t = u;
        u = unew;
        unew = t;
    }
    double heat1 = total(u, &peak);
    printf("heat2d: %d steps of heat diffusion on a periodic %dx%d plane\n", STEPS, NI, NJ);
    printf("  peak temperature: %.4f -> %.4f\n", peak0, peak);
    printf("  total heat:       %.6f -> %.6f (conserved)\n", heat0, heat1);
    if (write_pgm(image, u, peak) != 0) {
        perror(image);
        return 1;
    }
    char dir[4096];
    if (image[0] != '/' && getcwd(dir, sizeof dir))
        printf("  image of the field: %s/%s (PGM, %dx%d, white = hottest)\n", dir, image, NI, NJ);
    else
        printf("  image of the field: %s (PGM, %dx%d, white = hottest)\n", image, NI, NJ);
    gt_release(u);
    gt_release(unew);
    return 0;
}
