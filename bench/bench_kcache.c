/* bench_kcache.c: where a column solver's carried values should live
 * (`make bench`). The experiment behind the openmp backend's choice for
 * forward/backward computations, on tridiagonal (the Thomas algorithm of
 * bench/stencils/tridiagonal.stn) over 256x256x64 doubles, I contiguous:
 *
 *   rows, sweeps apart   blocks of 4 x 256 columns, K outside the rows of a
 *                        block, I innermost under `omp simd`; the forward and
 *                        backward sweeps in two parallel loops. The value of
 *                        level k-1 is the row just written (L1).
 *   rows, sweeps fused   the same, each block running both sweeps (what gtcc
 *                        emits for a column group: the backward sweep finds
 *                        c and d in cache).
 *   strips of W          W columns at a time, K outside a W-wide `omp simd`
 *                        loop, the carried values in W-element locals
 *                        (registers for W = 8), both sweeps per strip.
 *
 * Each variant's median time over RUNS calls is printed with its ratio to
 * "rows, sweeps fused"; all variants must give the same bits. The program
 * built by the Makefile rebuilds itself with -fopenmp -O3 -march=native and
 * LLVM's libomp (BENCH_HARNESS) and runs that. */
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
    char cmd[4096];
    int len = snprintf(cmd, sizeof cmd,
                       "mkdir -p %s/bench && " BENCH_OMP_LINK
                       "%s -std=c11 -O3 -march=native -fopenmp -DBENCH_HARNESS -Ibench "
                       "-o %s/bench/kcache-run bench/bench_kcache.c $omp && %s/bench/kcache-run",
                       build, cc, build, build);
    return bench_launch("bench_kcache", cmd, len, sizeof cmd);
}
#else
#include <omp.h>

enum { NI = 256, NJ = 256, NK = 64, SJ = NI, SK = NI * NJ, RUNS = 15, WARMUP = 2 };
#define AT(p, i, j, k) (p)[(i) + (j) * SJ + (k) * SK]

typedef const double *restrict In;
typedef double *restrict Out;

static inline void forward_rows(In a, In b, Out c, Out d, int64_t jb, int64_t je)
{
    for (int64_t j = jb; j < je; j++)
#pragma omp simd
        for (int64_t i = 0; i < NI; i++) {
            AT(c, i, j, 0) = AT(c, i, j, 0) / AT(b, i, j, 0);
            AT(d, i, j, 0) = AT(d, i, j, 0) / AT(b, i, j, 0);
        }
    for (int64_t k = 1; k < NK; k++)
        for (int64_t j = jb; j < je; j++)
#pragma omp simd
            for (int64_t i = 0; i < NI; i++) {
                double m = 1.0 / (AT(b, i, j, k) - AT(a, i, j, k) * AT(c, i, j, k - 1));
                AT(c, i, j, k) = AT(c, i, j, k) * m;
                AT(d, i, j, k) = (AT(d, i, j, k) - AT(a, i, j, k) * AT(d, i, j, k - 1)) * m;
            }
}

static inline void backward_rows(In c, In d, Out x, int64_t jb, int64_t je)
{
    for (int64_t j = jb; j < je; j++)
#pragma omp simd
        for (int64_t i = 0; i < NI; i++)
            AT(x, i, j, NK - 1) = AT(d, i, j, NK - 1);
    for (int64_t k = NK - 2; k >= 0; k--)
        for (int64_t j = jb; j < je; j++)
#pragma omp simd
            for (int64_t i = 0; i < NI; i++)
                AT(x, i, j, k) = AT(d, i, j, k) - AT(c, i, j, k) * AT(x, i, j, k + 1);
}

static void rows_apart(In a, In b, Out c, Out d, Out x)
{
#pragma omp parallel for schedule(static)
    for (int64_t jb = 0; jb < NJ; jb += 4)
        forward_rows(a, b, c, d, jb, jb + 4);
#pragma omp parallel for schedule(static)
    for (int64_t jb = 0; jb < NJ; jb += 4)
        backward_rows(c, d, x, jb, jb + 4);
}

static void rows_fused(In a, In b, Out c, Out d, Out x)
{
#pragma omp parallel for schedule(static)
    for (int64_t jb = 0; jb < NJ; jb += 4) {
        forward_rows(a, b, c, d, jb, jb + 4);
        backward_rows(c, d, x, jb, jb + 4);
    }
}

/* W columns of row j: both sweeps, the carried values in W-element locals. */
#define STRIPS(W)                                                                           \
    static void strips_##W(In a, In b, Out c, Out d, Out x)                                 \
    {                                                                                       \
        _Pragma("omp parallel for schedule(static)")                                        \
        for (int64_t j = 0; j < NJ; j++)                                                    \
            for (int64_t s = 0; s < NI; s += W) {                                           \
                double cm[W], dm[W], xp[W];                                                 \
                _Pragma("omp simd")                                                         \
                for (int64_t i = s; i < s + W; i++) {                                       \
                    cm[i - s] = AT(c, i, j, 0) = AT(c, i, j, 0) / AT(b, i, j, 0);           \
                    dm[i - s] = AT(d, i, j, 0) = AT(d, i, j, 0) / AT(b, i, j, 0);           \
                }                                                                           \
                for (int64_t k = 1; k < NK; k++) {                                          \
                    _Pragma("omp simd")                                                     \
                    for (int64_t i = s; i < s + W; i++) {                                   \
                        double m = 1.0 / (AT(b, i, j, k) - AT(a, i, j, k) * cm[i - s]);     \
                        cm[i - s] = AT(c, i, j, k) = AT(c, i, j, k) * m;                    \
                        dm[i - s] = AT(d, i, j, k) =                                        \
                            (AT(d, i, j, k) - AT(a, i, j, k) * dm[i - s]) * m;              \
                    }                                                                       \
                }                                                                           \
                _Pragma("omp simd")                                                         \
                for (int64_t i = s; i < s + W; i++)                                         \
                    xp[i - s] = AT(x, i, j, NK - 1) = AT(d, i, j, NK - 1);                  \
                for (int64_t k = NK - 2; k >= 0; k--) {                                     \
                    _Pragma("omp simd")                                                     \
                    for (int64_t i = s; i < s + W; i++)                                     \
                        xp[i - s] = AT(x, i, j, k) =                                        \
                            AT(d, i, j, k) - AT(c, i, j, k) * xp[i - s];                    \
                }                                                                           \
            }                                                                               \
    }
STRIPS(8)
STRIPS(32)
STRIPS(256)

typedef void Variant(In, In, Out, Out, Out);

int main(void)
{
    static const struct {
        const char *name;
        Variant *fn;
    } v[] = {
        {"rows, sweeps apart", rows_apart}, {"rows, sweeps fused", rows_fused},
        {"strips of 8", strips_8},          {"strips of 32", strips_32},
        {"strips of 256", strips_256},
    };
    enum { NV = sizeof v / sizeof v[0], BASE = 1 };
    size_t n = (size_t)SK * NK;
    double *f[8];
    for (int q = 0; q < 8; q++)
        if (!(f[q] = aligned_alloc(64, n * sizeof(double)))) {
            fprintf(stderr, "bench_kcache: no memory\n");
            return 1;
        }
    double *a = f[0], *b = f[1], *c0 = f[2], *d0 = f[3], *c = f[4], *d = f[5], *x = f[6],
           *ref = f[7];
    uint64_t r = 88172645463325252ull;
    for (size_t q = 0; q < n; q++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        a[q] = 0.5 + (double)(r % 1000) / 2000.0;
        b[q] = 2.5 + (double)(r % 997) / 2000.0;   /* diagonally dominant */
        c0[q] = 0.5 + (double)(r % 991) / 2000.0;
        d0[q] = 0.5 + (double)(r % 983) / 2000.0;
    }
    double t[NV][RUNS];
    int bad = 0;
    for (int run = 0; run < RUNS + WARMUP; run++)
        for (int k = 0; k < NV; k++) {
            memcpy(c, c0, n * sizeof(double));
            memcpy(d, d0, n * sizeof(double));
            double t0 = now();
            v[k].fn(a, b, c, d, x);
            double dt = now() - t0;
            if (run >= WARMUP)
                t[k][run - WARMUP] = dt;
            if (run == 0 && k == 0)
                memcpy(ref, x, n * sizeof(double));
            else if (run == 0 && memcmp(ref, x, n * sizeof(double)) != 0) {
                printf("MISMATCH: %s\n", v[k].name);
                bad = 1;
            }
        }
    printf("bench_kcache: tridiagonal %dx%dx%d doubles, I contiguous, %d threads, "
           "median of %d calls\n", NI, NJ, NK, omp_get_max_threads(), RUNS);
    double base = median(t[BASE], RUNS);
    printf("%-20s %9s %12s\n", "variant", "ms", "/ fused rows");
    for (int k = 0; k < NV; k++) {
        double m = median(t[k], RUNS);
        printf("%-20s %9.3f %12.2f\n", v[k].name, m * 1e3, m / base);
    }
    for (int q = 0; q < 8; q++)
        free(f[q]);
    return bad;
}
#endif
