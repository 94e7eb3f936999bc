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

/* A shell prefix that sets $omp to the link flags of LLVM's libomp (as
 * pkg-config gtrt links it), or to -fopenmp when no libomp is installed. */
#define BENCH_OMP_LINK                                                                     \
    "d=$(ls -d /usr/lib/llvm-*/lib 2>/dev/null | while read x; do "                        \
    "[ -e $x/libomp.so ] && echo $x; done | tail -n 1); "                                  \
    "if [ -n \"$d\" ]; then omp=\"-L$d -Wl,-rpath,$d -lomp\"; else omp=-fopenmp; fi; "

#endif /* BENCH_H */
