/* bench_copy.c: speed of gt_copy_into against memcpy of the same bytes, measured in the same
 * run (so the ratio does not depend on the machine's mood): the transposing copy of a
 * 256x256x64 double storage from C to F order (the target: ratio >= 0.5), the
 * reverse, and C to C copies with equal and with different halos. Each time is the median
 * of RUNS runs; each run times the copy under test and then memcpy, and the ratio printed is
 * the median over runs of memcpy time / copy time, so that a slow moment of a shared
 * machine hits both sides of a ratio alike. Only the C -> F row has a target: its result
 * column says "ok" when the ratio meets it and "below" when not; the other rows say
 * "no target". Any row whose copied values are wrong says "WRONG" (and the exit status is 1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gt/gt.h>

#include "bench.h"

#define RUNS 21
#define NI 256
#define NJ 256
#define NK 64
#define TARGET 0.5 /* the target ratio for C -> F */

static gt_storage *make(const char *preset, int64_t halo)
{
    gt_storage_opts o = {0};
    o.defaults = preset;
    o.halo[0][0] = o.halo[0][1] = o.halo[1][0] = o.halo[1][1] = halo;
    int64_t shape[3] = {NI + 2 * halo, NJ + 2 * halo, NK};
    gt_storage *s = gt_empty(GT_FLOAT64, "IJK", shape, &o);
    if (!s) {
        fprintf(stderr, "bench_copy: %s\n", gt_last_error());
        exit(1);
    }
    return s;
}

/* Sets element (i,j,k) of the interior to i*1e6 + j*1e3 + k. */
static void fill(gt_storage *s)
{
    double *p = gt_host(s, GT_WRITE);
    const int64_t *st = gt_strides(s), *shape = gt_shape(s);
    const int64_t(*h)[2] = gt_halo(s);
    for (int64_t i = 0; i < shape[0]; i++)
        for (int64_t j = 0; j < shape[1]; j++)
            for (int64_t k = 0; k < shape[2]; k++)
                p[i * st[0] + j * st[1] + k * st[2]] =
                    (double)(i - h[0][0]) * 1e6 + (double)(j - h[1][0]) * 1e3 + (double)k;
}

static int check(gt_storage *s)
{
    double *p = gt_host(s, GT_READ);
    const int64_t *st = gt_strides(s);
    const int64_t(*h)[2] = gt_halo(s);
    for (int64_t i = 0; i < NI; i += 7)
        for (int64_t j = 0; j < NJ; j += 5)
            for (int64_t k = 0; k < NK; k += 3)
                if (p[(i + h[0][0]) * st[0] + (j + h[1][0]) * st[1] + k * st[2]] !=
                    (double)i * 1e6 + (double)j * 1e3 + (double)k)
                    return 0;
    return 1;
}

/* target: the ratio the row must reach, or 0 for none. */
static int row(const char *name, const char *from, int64_t hfrom, const char *to, int64_t hto,
               double target)
{
    gt_storage *src = make(from, hfrom), *dst = make(to, hto);
    size_t bytes = (size_t)NI * NJ * NK * sizeof(double);
    unsigned char *a = malloc(bytes), *b = malloc(bytes);
    if (!a || !b) {
        fprintf(stderr, "bench_copy: out of memory\n");
        return 0;
    }
    memset(a, 1, bytes);
    memset(b, 2, bytes);
    fill(src);
    gt_copy_into(dst, src); /* warm up: page faults, caches */
    memcpy(b, a, bytes);
    double tc[RUNS], tm[RUNS], ratio[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = now();
        int rc = gt_copy_into(dst, src);
        double t1 = now();
        memcpy(b, a, bytes);
        double t2 = now();
        if (rc) {
            fprintf(stderr, "bench_copy: %s\n", gt_last_error());
            return 0;
        }
        tc[r] = t1 - t0;
        tm[r] = t2 - t1;
        ratio[r] = tm[r] / tc[r];
    }
    int ok = check(dst) && b[bytes / 2] == 1;
    double c = median(tc, RUNS), m = median(tm, RUNS), q = median(ratio, RUNS);
    char tgt[16] = "-";
    if (target > 0)
        snprintf(tgt, sizeof tgt, ">= %.2f", target);
    const char *result = !ok ? "WRONG" : target <= 0 ? "no target" : q >= target ? "ok" : "below";
    printf("%-34s %9.3f %9.3f %8.2f %8.3f %8s  %s\n", name, 1e3 * c, 1e3 * m,
           (double)bytes / c / 1e9, q, tgt, result);
    free(a);
    free(b);
    gt_release(src);
    gt_release(dst);
    return ok;
}

int main(void)
{
    printf("gt_copy_into of a %dx%dx%d float64 storage (%.1f MiB), median of %d runs\n", NI, NJ,
           NK, NI * NJ * NK * 8.0 / (1 << 20), RUNS);
    printf("%-34s %9s %9s %8s %8s %8s  %s\n", "copy", "copy ms", "memcpy ms", "GB/s", "ratio",
           "target", "result");
    int ok = row("C -> F (transpose)", "C", 0, "F", 0, TARGET);
    ok &= row("F -> C (transpose)", "F", 0, "C", 0, 0);
    ok &= row("C -> cpu (transpose)", "C", 0, "cpu", 0, 0);
    ok &= row("C -> C, same halo", "C", 0, "C", 0, 0);
    ok &= row("C -> C, halo 3 -> 0 (interior)", "C", 3, "C", 0, 0);
    ok &= row("C -> C, halo 0 -> 2 (interior)", "C", 0, "C", 2, 0);
    ok &= row("C halo 3 -> F halo 1", "C", 3, "F", 1, 0);
    printf("ratio: median over runs of memcpy time / copy time (1: as fast as memcpy).\n"
           "result: for the row with a target (C -> F: ratio >= %.2f), \"ok\" if met, \"below\" "
           "if not;\nthe other rows have none. \"WRONG\": the copied values are wrong.\n", TARGET);
    return ok ? 0 : 1;
}
