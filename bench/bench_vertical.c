/* bench_vertical.c: temporaries read at K offsets by a later computation (`make bench`),
 * on bench/vertical.stn over 256x256x64 doubles: p = 0.5 * (u + u[k+1]) and q = w * p
 * computed in one computation, res = p - p[k-1] + 0.25 * (q + q[k-1]) in the next.
 *
 *   gtcc openmp    the openmp backend's output: p recomputed at each read
 *                  (docs/internals.md, "Recompute"); q an array, as w may be res's
 *                  own storage in an in-place call
 *   arrays         hand-written C as the plan had it before (and a direct port
 *                  would): p and q stored in two full arrays by one parallel loop
 *                  nest, read back by a second
 *   hand-fused     hand-written C with p and q computed inline at both levels (right
 *                  only when res is not w's storage)
 *
 * Medians over RUNS calls, the variants alternated in each round, each with its time
 * over gtcc's; every variant must give gtcc's naive backend's bits. The program built by
 * the Makefile is a launcher: it runs gtcc -b openmp and -b naive on the stencil, builds
 * the harness with -fopenmp -O3 -march=native (LLVM's libomp where installed) and runs
 * it. */
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
                       "mkdir -p %s/bench/vertical-work && %s -b openmp -o "
                       "%s/bench/vertical-work/vertical.c bench/vertical.stn && "
                       "%s -b naive -P ref_ -o %s/bench/vertical-work/ref.c bench/vertical.stn && "
                       BENCH_OMP_LINK
                       "%s -std=c11 -O3 -march=native -fopenmp -D_POSIX_C_SOURCE=200809L "
                       "-DBENCH_HARNESS -Iruntime/include -Ibench -I%s/bench/vertical-work "
                       "-o %s/bench/vertical-work/run bench/bench_vertical.c "
                       "%s/bench/vertical-work/vertical.c %s/bench/vertical-work/ref.c "
                       "%s/lib/libgtrt.a $omp -lm && %s/bench/vertical-work/run",
                       build, GTCC_BIN, build, GTCC_BIN, build, cc, build, build, build, build,
                       build, build);
    return bench_launch("bench_vertical", cmd, len, sizeof cmd);
}
#else
#include <math.h>
#include <omp.h>

#include "gt/gt.h"
#include "ref.h"
#include "vertical.h"

enum { NI = 256, NJ = 256, NK = 64, RUNS = 21, WARMUP = 2, NV = 3 };
static const int64_t SJ = NI, SK = (int64_t)NI * NJ;

/* res over the interior levels 1 .. NK-2; levels 0 and NK-1 are 0.0, as the stencil sets */
static void edges(double *restrict res)
{
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < NJ; j++)
        for (int64_t i = 0; i < NI; i++)
            res[i + j * SJ] = res[i + j * SJ + (NK - 1) * SK] = 0.0;
}

static void arrays(const double *restrict u, const double *restrict w, double *restrict p,
                   double *restrict q, double *restrict res)
{
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t k = 0; k < NK - 1; k++)
        for (int64_t j = 0; j < NJ; j++)
#pragma omp simd
            for (int64_t i = 0; i < NI; i++) {
                int64_t x = i + j * SJ + k * SK;
                p[x] = 0.5 * (u[x] + u[x + SK]);
                q[x] = w[x] * p[x];
            }
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t k = 1; k < NK - 1; k++)
        for (int64_t j = 0; j < NJ; j++)
#pragma omp simd
            for (int64_t i = 0; i < NI; i++) {
                int64_t x = i + j * SJ + k * SK;
                res[x] = p[x] - p[x - SK] + 0.25 * (q[x] + q[x - SK]);
            }
    edges(res);
}

static void fused(const double *restrict u, const double *restrict w, double *restrict res)
{
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t k = 1; k < NK - 1; k++)
        for (int64_t j = 0; j < NJ; j++)
#pragma omp simd
            for (int64_t i = 0; i < NI; i++) {
                int64_t x = i + j * SJ + k * SK;
                double p = 0.5 * (u[x] + u[x + SK]), pm = 0.5 * (u[x - SK] + u[x]);
                res[x] = p - pm + 0.25 * (w[x] * p + w[x - SK] * pm);
            }
    edges(res);
}

/* a storage over a dense array of NI x NJ x NK doubles, I contiguous, zeros */
static gt_storage *field(void)
{
    const int64_t shape[3] = {NI, NJ, NK};
    double *a = aligned_alloc(64, sizeof(double) * NI * NJ * NK);
    gt_storage *s = a ? gt_wrap(a, GT_FLOAT64, "IJK", shape, NULL, NULL) : NULL;
    if (a)
        memset(a, 0, sizeof(double) * NI * NJ * NK);
    if (!s) {
        fprintf(stderr, "bench_vertical: %s\n", gt_last_error());
        exit(1);
    }
    return s;
}

int main(void)
{
    gt_storage *u = field(), *w = field(), *ref = field(), *out[NV];
    for (int v = 0; v < NV; v++)
        out[v] = field();
    double *hu = gt_host(u, GT_WRITE), *hw = gt_host(w, GT_WRITE);
    for (int64_t x = 0; x < NI * NJ * NK; x++) {
        hu[x] = sin(0.001 * (double)x);
        hw[x] = 0.5 + 0.25 * cos(0.003 * (double)x);
    }
    double *p = aligned_alloc(64, sizeof(double) * NI * NJ * NK);
    double *q = aligned_alloc(64, sizeof(double) * NI * NJ * NK);
    if (!p || !q || ref_vertical(u, w, ref, NULL)) {
        fprintf(stderr, "bench_vertical: setup failed\n");
        return 1;
    }
    const char *names[NV] = {"gtcc openmp", "arrays", "hand-fused"};
    double t[NV][RUNS];
    for (int r = 0; r < WARMUP + RUNS; r++)
        for (int v = 0; v < NV; v++) {
            double *res = gt_host(out[v], GT_WRITE);
            const double *cu = gt_host(u, GT_READ), *cw = gt_host(w, GT_READ);
            double t0 = now();
            if (v == 0 && vertical(u, w, out[0], NULL)) {
                fprintf(stderr, "bench_vertical: %s\n", gt_last_error());
                return 1;
            }
            if (v == 1)
                arrays(cu, cw, p, q, res);
            if (v == 2)
                fused(cu, cw, res);
            if (r >= WARMUP)
                t[v][r - WARMUP] = now() - t0;
        }
    const double *want = gt_host(ref, GT_READ);
    double m[NV];
    for (int v = 0; v < NV; v++)
        m[v] = median(t[v], RUNS);
    printf("bench_vertical: temporaries read at K offsets by a later computation, "
           "256x256x64 doubles, %d threads, median of %d calls\n", omp_get_max_threads(), RUNS);
    printf("variant           ms / gtcc   check\n");
    int bad = 0;
    for (int v = 0; v < NV; v++) {
        const double *got = gt_host(out[v], GT_READ);
        int same = !memcmp(got, want, sizeof(double) * NI * NJ * NK);
        bad |= !same;
        printf("%-13s %7.3f %6.2f   %s\n", names[v], 1e3 * m[v], m[v] / m[0],
               same ? "ok" : "WRONG (not the naive backend's bits)");
    }
    free(p);
    free(q);
    return bad;
}
#endif
