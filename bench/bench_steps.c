/* bench_steps.c: the openmp backend's time-tiled S_steps (docs/internals.md "Time tiling")
 * against as many single calls of S with the pairs swapped between calls (`make bench`,
 * alone `make bench-steps`), on bench/stencils/steps.stn:
 *
 *   heat5   2-D 5-point, float, 8192 x 8192, 64 steps
 *   heat5p  the same, periodic (the rows a ring)
 *   heat7   3-D 7-point, float, 384 x 384 x 384, 16 steps
 *
 * Per case: the median time over RUNS runs of S_steps(n) and of n calls of S, GLUP/s
 * (10^9 point updates a second), the ratio, and each against the in-cache rate (the same
 * stencil's single calls on a domain whose two fields fit a 32 MB L3 share: 2048 x 256 for
 * heat5, 128 x 64 x 64 for heat7, 256 steps). The results must be bitwise equal. (Devito's time tiling is not
 * compared here.) GT_STEPS_TILE and OMP_NUM_THREADS apply as usual. The program built by
 * the Makefile is a launcher: it runs gtcc -b openmp on the stencils, builds the harness
 * with -fopenmp -O3 -march=native and LLVM's libomp where installed, and runs it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#ifndef BENCH_HARNESS
int main(void)
{
    const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
    const char *cc = getenv("CC") && *getenv("CC") ? getenv("CC") : "cc";
    char cmd[8192];
    int len = snprintf(cmd, sizeof cmd,
                       "mkdir -p %s/bench/steps-work && %s -b openmp -o "
                       "%s/bench/steps-work/steps.c bench/stencils/steps.stn && "
                       BENCH_OMP_LINK
                       "%s -std=c11 -O3 -march=native -fopenmp -D_POSIX_C_SOURCE=200809L "
                       "-DBENCH_HARNESS -Iruntime/include -Ibench -I%s/bench/steps-work "
                       "-o %s/bench/steps-work/run bench/bench_steps.c "
                       "%s/bench/steps-work/steps.c %s/lib/libgtrt.a $omp -lm && "
                       "%s/bench/steps-work/run",
                       build, GTCC_BIN, build, cc, build, build, build, build, build);
    return bench_launch("bench_steps", cmd, len, sizeof cmd);
}
#else
#include <omp.h>

#include "gt/gt.h"
#include "steps.h"

enum { RUNS = 3 };

typedef struct {
    const char *name;
    int ndim;
    int64_t n[3];
    int64_t nsteps;
    int64_t small[3], small_steps;   /* the in-cache run */
    int periodic;                    /* heat5p instead of heat5 */
} Case;

/* A storage of n with a halo of 1, I contiguous, over memory of ours (*data). */
static gt_storage *make(const Case *c, const int64_t *n, float **data)
{
    gt_storage_opts o = {0};
    int64_t shape[3], strides[3], total = 1;
    for (int a = 0; a < c->ndim; a++) {
        shape[a] = n[a] + 2;
        strides[a] = total;
        total *= shape[a];
        o.halo[a][0] = o.halo[a][1] = 1;
    }
    *data = aligned_alloc(64, ((size_t)total * sizeof(float) + 63) / 64 * 64);
    gt_storage *s = *data ? gt_wrap(*data, GT_FLOAT32, c->ndim == 2 ? "IJ" : "IJK", shape,
                                    strides, &o) : NULL;
    if (!s) {
        fprintf(stderr, "bench_steps: %s\n", *data ? gt_last_error() : "no memory");
        exit(1);
    }
    return s;
}

static void fill(float *p, const Case *c, const int64_t *n)
{
    int64_t total = 1;
    for (int a = 0; a < c->ndim; a++)
        total *= n[a] + 2;
#pragma omp parallel for schedule(static)
    for (int64_t x = 0; x < total; x++)
        p[x] = (float)((x * 2654435761u) % 1000) * 0.001f;
}

static int one(const Case *c, gt_storage *u, gt_storage *un)
{
    if (c->ndim == 3)
        return heat7(u, un, 0.125f, NULL);
    return c->periodic ? heat5p(u, un, 0.125f, NULL) : heat5(u, un, 0.125f, NULL);
}

static int steps(const Case *c, gt_storage *u, gt_storage *un, int64_t n)
{
    if (c->ndim == 3)
        return heat7_steps(u, un, 0.125f, n, NULL);
    return c->periodic ? heat5p_steps(u, un, 0.125f, n, NULL)
                       : heat5_steps(u, un, 0.125f, n, NULL);
}

/* n single calls, swapping: the result in *u. */
static double singles(const Case *c, gt_storage **u, gt_storage **un, int64_t n)
{
    double t0 = now();
    for (int64_t s = 0; s < n; s++) {
        if (one(c, *u, *un)) {
            fprintf(stderr, "bench_steps: %s\n", gt_last_error());
            exit(1);
        }
        gt_storage *t = *u;
        *u = *un;
        *un = t;
    }
    return now() - t0;
}

int main(void)
{
    static const Case cases[] = {
        {"heat5 2-D 5-point f32 8192^2", 2, {8192, 8192, 1}, 64, {2048, 256, 1}, 256, 0},
        {"heat5p periodic f32 8192^2", 2, {8192, 8192, 1}, 64, {2048, 256, 1}, 256, 1},
        {"heat7 3-D 7-point f32 384^3", 3, {384, 384, 384}, 16, {128, 64, 64}, 256, 0},
    };
    printf("S_steps (time-tiled) against single calls, %d threads, median of %d runs, "
           "GT_STEPS_TILE %s\n", omp_get_max_threads(), RUNS,
           getenv("GT_STEPS_TILE") ? getenv("GT_STEPS_TILE") : "(unset)");
    printf("%-30s %6s %10s %10s %10s %7s %9s %9s\n", "case", "steps", "calls s", "steps s",
           "in-cache", "ratio", "calls %", "steps %");
    int bad = 0;
    const char *only = getenv("BENCH_STEPS_ONLY");   /* heat5, heat5p, heat7: that case */
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const Case *c = &cases[k];
        if (only && *only && (strncmp(c->name, only, strlen(only)) != 0 ||
                              c->name[strlen(only)] != ' '))
            continue;
        double pts = (double)c->n[0] * (double)c->n[1] * (double)c->n[2];
        /* in cache: single calls on a small domain */
        float *da, *db, *d[4];
        gt_storage *a = make(c, c->small, &da), *b = make(c, c->small, &db);
        fill(da, c, c->small);
        fill(db, c, c->small);
        singles(c, &a, &b, 16);
        double tc[RUNS];
        for (int r = 0; r < RUNS; r++)
            tc[r] = singles(c, &a, &b, c->small_steps);
        double spts = (double)c->small[0] * (double)c->small[1] * (double)c->small[2];
        double incache = spts * (double)c->small_steps / median(tc, RUNS) * 1e-9;
        gt_release(a), gt_release(b), free(da), free(db);
        gt_storage *u1 = make(c, c->n, &d[0]), *v1 = make(c, c->n, &d[1]),
                   *u2 = make(c, c->n, &d[2]), *v2 = make(c, c->n, &d[3]);
        double ts[RUNS], t1[RUNS];
        for (int r = 0; r < RUNS; r++) {
            for (int x = 0; x < 4; x++)
                fill(d[x], c, c->n);
            gt_storage *x = u1, *y = v1;
            t1[r] = singles(c, &x, &y, c->nsteps);
            double t0 = now();
            if (steps(c, u2, v2, c->nsteps)) {
                fprintf(stderr, "bench_steps: %s\n", gt_last_error());
                return 1;
            }
            ts[r] = now() - t0;
            /* bitwise on the domain: S_steps' result in u2, the single calls' in x */
            const float *p = x == u1 ? d[0] : d[1], *q = d[2];
            int64_t s0 = c->n[0] + 2, s1 = s0 * (c->n[1] + 2), diff = 0;
            int64_t k0 = c->ndim == 3 ? 1 : 0, k1 = c->ndim == 3 ? c->n[2] : 0;
#pragma omp parallel for collapse(2) reduction(+ : diff) schedule(static)
            for (int64_t kk = k0; kk <= k1; kk++)
                for (int64_t j = 1; j <= c->n[1]; j++)
                    for (int64_t i = 1; i <= c->n[0]; i++)
                        diff += memcmp(p + i + j * s0 + kk * s1, q + i + j * s0 + kk * s1,
                                       sizeof *p) != 0;
            if (diff) {
                printf("%s: %lld points differ from the single calls\n", c->name,
                       (long long)diff);
                bad = 1;
            }
        }
        double m1 = median(t1, RUNS), ms = median(ts, RUNS);
        double g1 = pts * (double)c->nsteps / m1 * 1e-9, gs = pts * (double)c->nsteps / ms * 1e-9;
        printf("%-30s %6lld %10.3f %10.3f %10.2f %6.2fx %8.0f%% %8.0f%%\n", c->name,
               (long long)c->nsteps, m1, ms, incache, m1 / ms, 100 * g1 / incache,
               100 * gs / incache);
        printf("%-30s %6s %10.2f %10.2f %10s   GLUP/s (calls, steps)\n", "", "", g1, gs, "");
        fflush(stdout);
        gt_release(u1), gt_release(v1), gt_release(u2), gt_release(v2);
        for (int x = 0; x < 4; x++)
            free(d[x]);
    }
    return bad;
}
#endif
