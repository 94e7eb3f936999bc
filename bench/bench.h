/* bench.h: the timing helpers of the benchmark programs (compiled with
 * -Ibench). static inline: each program uses what it needs. */
#ifndef BENCH_H
#define BENCH_H

#include <stdlib.h>
#include <time.h>

/* Seconds on the monotonic clock. */
static inline double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* qsort comparison of doubles, ascending. */
static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts t[0, n) in place and returns its median (the upper one for even n). */
static inline double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return t[n / 2];
}

#ifdef _OPENMP
#include <stdint.h>
#include <stdio.h>

/* STREAM copy, b = a, over 2^26 doubles (plain aligned_alloc arrays, as STREAM's, made on
 * the first call): one call's bandwidth in bytes per second, 16 per element. */
static inline double bench_stream_copy(void)
{
    enum { STREAM_N = 1 << 26 };
    static double *stream_a, *stream_b;
    const int64_t n = STREAM_N;
    if (!stream_a) {
        stream_a = aligned_alloc(64, (size_t)n * sizeof(double));
        stream_b = aligned_alloc(64, (size_t)n * sizeof(double));
        if (!stream_a || !stream_b) {
            fprintf(stderr, "bench: no memory for the STREAM copy\n");
            exit(1);
        }
        double *a = stream_a, *b = stream_b;
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n; i++)
            a[i] = (double)i, b[i] = 0.0;
    }
    double *restrict a = stream_a, *restrict b = stream_b;
    double t0 = now();
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++)
        b[i] = a[i];
    double dt = now() - t0;
    if (b[n - 1] != (double)(n - 1))
        exit(1);
    return 16.0 * (double)n / dt;
}
#endif

#ifndef BENCH_HARNESS
#include <stdio.h>

/* The launcher of a benchmark program (`make bench` builds it without OpenMP): runs cmd,
 * which snprintf returned len for in a buffer of cap bytes, through the shell; the
 * program's exit status (name: the program's, for the messages). */
static inline int bench_launch(const char *name, const char *cmd, int len, size_t cap)
{
    if (len < 0 || (size_t)len >= cap) {
        fprintf(stderr, "%s: build command too long\n", name);
        return 1;
    }
    int rc = system(cmd);
    if (rc != 0)
        fprintf(stderr, "%s: failed (%d): %s\n", name, rc, cmd);
    return rc != 0;
}
#endif

/* A shell prefix that sets $omp to the link flags of LLVM's libomp (as
 * pkg-config gtrt links it), or to -fopenmp when no libomp is installed. */
#define BENCH_OMP_LINK                                                                     \
    "d=$(ls -d /usr/lib/llvm-*/lib 2>/dev/null | while read x; do "                        \
    "[ -e $x/libomp.so ] && echo $x; done | tail -n 1); "                                  \
    "if [ -n \"$d\" ]; then omp=\"-L$d -Wl,-rpath,$d -lomp\"; else omp=-fopenmp; fi; "

#if defined(GT_GT_H)   /* <gt/gt.h> came first */
#include <stdbool.h>
#include <string.h>

/* Fills every element of s (halos and padding too) with pseudo-random numbers in [0.5, 1),
 * one sequence across the calls of a program: float64 or float32 storages. */
static inline void bench_fill(gt_storage *s)
{
    static uint64_t rng = 88172645463325252ull;
    const int64_t *shape = gt_shape(s), *st = gt_strides(s);
    int64_t total = 0;
    for (int d = 0; d < (int)strlen(gt_axes(s)); d++)
        if (st[d] * shape[d] > total)
            total = st[d] * shape[d];
    bool f64 = gt_dtype_of(s) == GT_FLOAT64;
    void *p = gt_host(s, GT_WRITE);
    for (int64_t i = 0; i < total; i++) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        double v = 0.5 + (double)(rng % 1000000) / 2000000.0;
        if (f64)
            ((double *)p)[i] = v;
        else
            ((float *)p)[i] = (float)v;
    }
}
#endif

#endif /* BENCH_H */
