/* gpu_bench.c: speed of the cuda backend on a GPU (`make bench-gpu`, bench/bench_gpu.sh).
 *
 * For hdiff and jacobi3d (bench/stencils, built by gtcc -b cuda and nvcc), on storages of
 * doubles in the "cuda" layout on the device, filled with pseudo-random numbers (bench_fill),
 * it times RUNS calls after WARMUP and prints per stencil:
 *   - the kernel time: CUDA events recorded on the default stream around the call (the call
 *     returns when its kernels have finished: gt__device_wait), median;
 *   - the host-call time beside it (binding, launches, the wait), median;
 *   - the effective bandwidth (compulsory bytes: every field read once, every output written
 *     once, per kernel time) against, measured in the same run, an SM copy kernel's
 *     bandwidth (bench/gpu_copy.cu: a cudaMemcpy device to device runs on the copy engines
 *     and reaches less, so it flattered) and the nominal peak (memory clock x bus width x 2);
 *   - whether the output agrees with the OpenMP backend's (built with -P ref_) on the same
 *     inputs at the bench size: every interior point within 1e-12 of the largest |value|
 *     (nvcc contracts to fused multiply-adds: the last bits differ).
 * Targets: hdiff and jacobi3d at >= 80% of the SM copy kernel's bandwidth (issue 23). A
 * third row, hdiff-nosreg, is hdiff built without its stage registers (docs/cuda.md, "Stage
 * registers"; -P nosreg_ and GT_STAGE_REG a reference): the same run compares the two. It
 * has no target.
 * `gpu_bench --check` runs one call of each and the comparison only (make check-gpu).
 *
 * Without a usable GPU it says so (the CUDA runtime's error) and exits with status 1; a wrong
 * output exits with status 1 too. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include <gt/gt.h>

#include "bench.h"
#include "hdiff.h"
#include "jacobi3d.h"
#include "nosreg_hdiff.h"
#include "ref_hdiff.h"
#include "ref_jacobi3d.h"

enum { WARMUP = 5, RUNS = 31 };

double gpu_copy_ms(double *b, const double *a, size_t n); /* gpu_copy.cu */

static gt_storage *field(const int64_t n[3], int device)
{
    gt_storage_opts o = {0};
    o.defaults = device ? "cuda" : "cpu";
    o.device = device ? GT_CUDA : GT_HOST;
    for (int d = 0; d < 2; d++)
        o.halo[d][0] = o.halo[d][1] = 2;
    o.halo[2][0] = o.halo[2][1] = 1;
    int64_t shape[3] = {n[0] + 4, n[1] + 4, n[2] + 2};
    gt_storage *s = gt_zeros(GT_FLOAT64, "IJK", shape, &o);
    if (!s) {
        fprintf(stderr, "gpu_bench: %s\n", gt_last_error());
        exit(1);
    }
    return s;
}

/* The same pseudo-random contents in the device storage d and the host storage h. */
static void fill_pair(gt_storage *d, gt_storage *h)
{
    bench_fill(h);
    if (gt_copy_into(d, h) != 0) {
        fprintf(stderr, "gpu_bench: %s\n", gt_last_error());
        exit(1);
    }
}

/* Median SM-copy milliseconds of n doubles. */
static double copy_ms(size_t n)
{
    void *a = NULL, *b = NULL;
    if (cudaMalloc(&a, n * sizeof(double)) != cudaSuccess ||
        cudaMalloc(&b, n * sizeof(double)) != cudaSuccess ||
        cudaMemset(a, 0, n * sizeof(double)) != cudaSuccess) {
        fprintf(stderr, "gpu_bench: cudaMalloc of 2 x %zu doubles failed\n", n);
        exit(1);
    }
    double t[RUNS];
    for (int r = 0; r < WARMUP + RUNS; r++) {
        double ms = gpu_copy_ms(b, a, n);
        if (ms < 0) {
            fprintf(stderr, "gpu_bench: the copy kernel failed\n");
            exit(1);
        }
        if (r >= WARMUP)
            t[r - WARMUP] = ms;
    }
    cudaFree(a);
    cudaFree(b);
    return median(t, RUNS);
}

/* The largest difference between the interiors of the cuda output d and the reference h,
   relative to the largest |h|; *points gets how many differ by more than tol of it. */
static double compare(gt_storage *d, gt_storage *h, const int64_t n[3], double tol,
                      int64_t *points)
{
    const double *pd = gt_host(d, GT_READ), *ph = gt_host(h, GT_READ);
    const int64_t *sd = gt_strides(d), *sh = gt_strides(h);
    double scale = 0, worst = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int64_t k = 1; k <= n[2]; k++)
            for (int64_t j = 2; j < n[1] + 2; j++)
                for (int64_t i = 2; i < n[0] + 2; i++) {
                    double r = ph[i * sh[0] + j * sh[1] + k * sh[2]];
                    double x = pd[i * sd[0] + j * sd[1] + k * sd[2]];
                    if (pass == 0) {
                        scale = fmax(scale, fabs(r));
                        continue;
                    }
                    double e = fabs(x - r) / (scale > 0 ? scale : 1);
                    if (!(e <= tol))
                        (*points)++;
                    if (!(e <= worst))
                        worst = e;
                }
    return worst;
}

typedef struct {
    const char *name;
    int fields;          /* compulsory: fields read or written once each */
    int ref;             /* the reference's call (the openmp backend's): 0 hdiff, 1 jacobi3d */
    int target;          /* held to the target */
} Bench;

static int call(int b, gt_storage *in, gt_storage *aux, gt_storage *out, const gt_domain *dom,
                int ref)
{
    if (ref)
        return b == 1 ? ref_jacobi3d(in, aux, out, 0.01, dom) : ref_hdiff(in, aux, out, dom);
    if (b == 2)
        return nosreg_hdiff(in, aux, out, dom);
    return b == 0 ? hdiff(in, aux, out, dom) : jacobi3d(in, aux, out, 0.01, dom);
}

int main(int argc, char **argv)
{
    int check_only = argc > 1 && strcmp(argv[1], "--check") == 0;
    int count = -1;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count < 1) {
        printf("bench-gpu: no usable GPU (cudaGetDeviceCount: error %d, %s)\n", (int)err,
               cudaGetErrorString(err));
        return 1;
    }
    struct cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    int clock_khz = 0, bus_bits = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, 0);
    cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0);
    double peak = 2.0 * clock_khz * 1e3 * bus_bits / 8 / 1e9;
    const int64_t n[3] = {512, 512, 80};
    const double points = (double)n[0] * (double)n[1] * (double)n[2];
    gt_domain dom = {{n[0], n[1], n[2]}};
    static const Bench benches[] = {{"hdiff", 3, 0, 1}, {"jacobi3d", 3, 1, 1},
                                    {"hdiff-nosreg", 3, 0, 0}};
    const int nbench = (int)(sizeof benches / sizeof benches[0]);
    const double target = 80.0;
    if (!check_only) {
        printf("cuda backend on %s: doubles, %lld x %lld x %lld, \"cuda\" layout, median of "
               "%d calls; nominal peak %.0f GB/s\n", prop.name, (long long)n[0],
               (long long)n[1], (long long)n[2], RUNS, peak);
        printf("%-12s %10s %10s %10s %12s %10s %8s %8s %8s\n", "stencil", "kernel ms",
               "call ms", "eff. GB/s", "SM copy GB/s", "% SM copy", "% peak", "target",
               "output");
    }
    int missed = 0, wrong = 0;
    cudaEvent_t e0, e1;
    if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) {
        fprintf(stderr, "gpu_bench: cudaEventCreate failed\n");
        return 1;
    }
    for (int b = 0; b < nbench; b++) {
        gt_storage *in = field(n, 1), *aux = field(n, 1), *out = field(n, 1);
        gt_storage *hin = field(n, 0), *haux = field(n, 0), *hout = field(n, 0);
        fill_pair(in, hin);
        fill_pair(aux, haux);
        double tk[RUNS], tc[RUNS];
        int runs = check_only ? 1 : WARMUP + RUNS;
        for (int r = 0; r < runs; r++) {
            double t0 = now();
            cudaEventRecord(e0, 0);
            int rc = call(b, in, aux, out, &dom, 0);
            cudaEventRecord(e1, 0);
            float ms = 0;
            if (!rc && (cudaEventSynchronize(e1) != cudaSuccess ||
                        cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess))
                rc = -1;
            double dt = now() - t0;
            if (rc) {
                fprintf(stderr, "gpu_bench: %s: %s\n", benches[b].name,
                        rc == -1 ? "CUDA events failed" : gt_last_error());
                return 1;
            }
            if (r >= WARMUP)
                tk[r - WARMUP] = ms, tc[r - WARMUP] = dt * 1e3;
        }
        if (call(benches[b].ref, hin, haux, hout, &dom, 1) != 0) {
            fprintf(stderr, "gpu_bench: ref_%s: %s\n", benches[b].name, gt_last_error());
            return 1;
        }
        int64_t bad = 0;
        double worst = compare(out, hout, n, 1e-12, &bad);
        wrong += bad > 0;
        if (check_only) {
            printf("%s %s: the cuda output %s the OpenMP backend's at %lld x %lld x %lld "
                   "(largest difference %.2g of max |value|, %lld points over 1e-12)\n",
                   bad ? "FAIL" : "PASS", benches[b].name, bad ? "differs from" : "agrees with",
                   (long long)n[0], (long long)n[1], (long long)n[2], worst, (long long)bad);
        } else {
            double k = median(tk, RUNS), c = median(tc, RUNS);
            double bytes = points * 8.0 * benches[b].fields;
            /* the copy moves its bytes twice (read and write): half the traffic's doubles */
            double cm = copy_ms((size_t)(bytes / 16) & ~(size_t)1);
            double eff = bytes / (k * 1e-3) / 1e9, copy = bytes / (cm * 1e-3) / 1e9;
            double pct = 100.0 * eff / copy;
            missed += benches[b].target && pct < target;
            char tg[16] = "-";
            if (benches[b].target)
                snprintf(tg, sizeof tg, "%.0f%%", target);
            printf("%-12s %10.3f %10.3f %10.1f %12.1f %9.1f%% %7.1f%% %8s %8s\n",
                   benches[b].name, k, c, eff, copy, pct, 100.0 * eff / peak, tg,
                   bad ? "WRONG" : "checked");
        }
        gt_release(in), gt_release(aux), gt_release(out);
        gt_release(hin), gt_release(haux), gt_release(hout);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (!check_only)
        printf("targets: %s; outputs: %s\n", missed ? "missed" : "met",
               wrong ? "WRONG" : "agree with the OpenMP backend");
    return wrong ? 1 : 0;
}
