/* examples/heat2d_steps/main.c: heat diffusion on a plate with cold edges
 * (heat2d_steps.stn): STEPS steps in one call of heat_steps, written as a PGM image.
 *
 * Three hot discs spread and leak out through the edges (held at 0). heat_steps leaves
 * the result in u, whatever the count; unew is scratch. The program checks the first
 * steps against single calls of heat (bitwise), prints the peak and total heat, and writes
 * the field to heat2d_steps.pgm (or argv[1]). A plate this small fits the caches: it runs
 * as single steps unless GT_STEPS_TILE=ROWS,STEPS forces tiles (docs/generated-api.md),
 * `GT_STEPS_TILE=32,8 make run`. */
#define _POSIX_C_SOURCE 200809L /* getcwd */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gt/gt.h>

#include "heat2d_steps.gen.h"

enum { NI = 512, NJ = 384, STEPS = 2000, CHECK = 37 };

static void die(const char *what)
{
    fprintf(stderr, "heat2d_steps: %s: %s\n", what, gt_last_error());
    exit(1);
}

static gt_storage *plate(void)
{
    int64_t shape[2] = {NI, NJ};
    gt_storage *s = gt_zeros(GT_FLOAT32, "IJ", shape, NULL);
    if (!s)
        die("gt_zeros");
    float *p = gt_host(s, GT_WRITE);
    const int64_t *st = gt_strides(s);
    static const int disc[3][3] = {{120, 100, 50}, {330, 250, 70}, {420, 80, 30}};
    for (int64_t i = 0; i < NI; i++)
        for (int64_t j = 0; j < NJ; j++) {
            float v = 0;
            for (int d = 0; d < 3; d++) {
                int64_t di = i - disc[d][0], dj = j - disc[d][1];
                if (di * di + dj * dj < disc[d][2] * disc[d][2])
                    v = 1;
            }
            p[i * st[0] + j * st[1]] = v;
        }
    return s;
}

static double total(gt_storage *s, double *peak)
{
    const float *p = gt_host(s, GT_READ);
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

/* CHECK steps by heat_steps and by single calls: the same bits. */
static int same_as_single_calls(void)
{
    gt_storage *a = plate(), *an = plate(), *b = plate(), *bn = plate();
    if (heat_steps(a, an, 0.2f, CHECK, NULL) != 0)
        die("heat_steps");
    for (int s = 0; s < CHECK; s++) {
        if (heat(b, bn, 0.2f, NULL) != 0)
            die("heat");
        gt_storage *t = b;
        b = bn;
        bn = t;
    }
    const float *p = gt_host(a, GT_READ), *q = gt_host(b, GT_READ);
    const int64_t *sp = gt_strides(a), *sq = gt_strides(b);
    int same = 1;
    for (int64_t i = 0; i < NI; i++)
        for (int64_t j = 0; j < NJ; j++)
            same &= memcmp(&p[i * sp[0] + j * sp[1]], &q[i * sq[0] + j * sq[1]],
                           sizeof *p) == 0;
    gt_release(a), gt_release(an), gt_release(b), gt_release(bn);
    return same;
}

static int write_pgm(const char *path, gt_storage *s, double hi)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    const float *p = gt_host(s, GT_READ);
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
    const char *image = argc > 1 ? argv[1] : "heat2d_steps.pgm";
    int same = same_as_single_calls();
    gt_storage *u = plate(), *unew = plate();
    double peak0, peak, heat0 = total(u, &peak0);
    if (heat_steps(u, unew, 0.2f, STEPS, NULL) != 0)
        die("heat_steps");
    double heat1 = total(u, &peak);
    printf("heat2d_steps: %d steps in one call of heat_steps on a %dx%d plate (tiles_time "
           "%d)\n", STEPS, NI, NJ, heat_info.tiles_time);
    printf("  %d steps against %d single calls: %s\n", CHECK, CHECK,
           same ? "bitwise equal" : "DIFFERENT");
    printf("  peak temperature: %.4f -> %.4f\n", peak0, peak);
    printf("  total heat:       %.2f -> %.2f (lost through the cold edges)\n", heat0, heat1);
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
    return !same;
}
