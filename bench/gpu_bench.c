/* gpu_bench.c: speed of the cuda backend on a GPU (`make bench-gpu`, bench/bench_gpu.sh).
 *
 * For hdiff and jacobi3d (bench/stencils, built by gtcc -b cuda and nvcc), on storages of
 * doubles in the "cuda" layout on the device, it times the median of RUNS calls (after
 * WARMUP calls; a call returns when its kernels have finished: gt__device_wait), and in the
 * same run the device's copy bandwidth: cudaMemcpy device to device of a buffer as large as
 * the stencil's compulsory traffic, bytes counted read + write, median of RUNS. It prints
 * per stencil the median time, the effective bandwidth (compulsory bytes: every field read
 * once, every output written once, per call / time), that as a percentage of the copy
 * bandwidth, and the targets (hdiff 70%, jacobi3d 80%).
 *
 * Without a usable GPU it says so (the CUDA runtime's error) and exits with status 1. */
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

enum { WARMUP = 5, RUNS = 31 };

static gt_storage *field(const int64_t n[3], int64_t halo, double value)
{
    gt_storage_opts o = {0};
    o.defaults = "cuda";
    o.device = GT_CUDA;
    for (int d = 0; d < 2; d++)
        o.halo[d][0] = o.halo[d][1] = halo;
    o.halo[2][0] = o.halo[2][1] = 1;
    int64_t shape[3] = {n[0] + 2 * halo, n[1] + 2 * halo, n[2] + 2};
    gt_storage *s = gt_full(GT_FLOAT64, "IJK", shape, value, &o);
    if (!s) {
        fprintf(stderr, "gpu_bench: %s\n", gt_last_error());
        exit(1);
    }
    return s;
}

/* Median seconds of a device-to-device copy of nbytes (cudaMemcpy waits for it). */
static double copy_time(size_t nbytes)
{
    void *a = NULL, *b = NULL;
    if (cudaMalloc(&a, nbytes) != cudaSuccess || cudaMalloc(&b, nbytes) != cudaSuccess ||
        cudaMemset(a, 0, nbytes) != cudaSuccess) {
        fprintf(stderr, "gpu_bench: cudaMalloc of %zu bytes failed\n", nbytes);
        exit(1);
    }
    double t[RUNS];
    for (int r = 0; r < WARMUP + RUNS; r++) {
        double t0 = now();
        if (cudaMemcpy(b, a, nbytes, cudaMemcpyDeviceToDevice) != cudaSuccess) {
            fprintf(stderr, "gpu_bench: cudaMemcpy failed\n");
            exit(1);
        }
        cudaDeviceSynchronize();
        if (r >= WARMUP)
            t[r - WARMUP] = now() - t0;
    }
    cudaFree(a);
    cudaFree(b);
    return median(t, RUNS);
}

typedef struct {
    const char *name;
    int fields;          /* compulsory: fields read or written once each */
    double target;       /* % of the copy bandwidth */
} Bench;

int main(void)
{
    int count = -1;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count < 1) {
        printf("bench-gpu: no usable GPU (cudaGetDeviceCount: error %d, %s)\n", (int)err,
               cudaGetErrorString(err));
        return 1;
    }
    struct cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    const int64_t n[3] = {512, 512, 80};
    const double points = (double)n[0] * (double)n[1] * (double)n[2];
    gt_domain dom = {{n[0], n[1], n[2]}};
    printf("cuda backend on %s: doubles, %lld x %lld x %lld, \"cuda\" layout, median of %d "
           "calls\n", prop.name, (long long)n[0], (long long)n[1], (long long)n[2], RUNS);
    printf("%-10s %10s %12s %12s %8s %8s\n", "stencil", "ms/call", "eff. GB/s", "copy GB/s",
           "% copy", "target");
    static const Bench benches[] = {{"hdiff", 3, 70.0}, {"jacobi3d", 3, 80.0}};
    int missed = 0;
    for (int b = 0; b < 2; b++) {
        gt_storage *in = field(n, 2, 1.0), *aux = field(n, 2, 0.5), *out = field(n, 2, 0.0);
        double t[RUNS];
        for (int r = 0; r < WARMUP + RUNS; r++) {
            double t0 = now();
            int rc = b == 0 ? hdiff(in, aux, out, &dom) : jacobi3d(in, aux, out, 0.01, &dom);
            double dt = now() - t0;
            if (rc) {
                fprintf(stderr, "gpu_bench: %s: %s\n", benches[b].name, gt_last_error());
                return 1;
            }
            if (r >= WARMUP)
                t[r - WARMUP] = dt;
        }
        double ts = median(t, RUNS);
        double bytes = points * 8.0 * benches[b].fields;
        /* a copy moves its bytes twice (read and write): a buffer of half the traffic */
        double tc = copy_time((size_t)(bytes / 2));
        double eff = bytes / ts / 1e9, copy = bytes / tc / 1e9, pct = 100.0 * eff / copy;
        missed += pct < benches[b].target;
        printf("%-10s %10.3f %12.1f %12.1f %7.1f%% %7.0f%%\n", benches[b].name, ts * 1e3, eff,
               copy, pct, benches[b].target);
        gt_release(in);
        gt_release(aux);
        gt_release(out);
    }
    printf("targets: %s\n", missed ? "missed" : "met");
    return 0;
}
