/* gpu_copy.cu: the reference of `make bench-gpu` (bench/gpu_bench.c): b = a over n doubles
 * by an SM copy kernel (a grid-stride loop of 128-bit loads and stores, 8 blocks of 256
 * threads per SM), timed by CUDA events; a cudaMemcpy device to device runs through the copy
 * engines and reaches less (about 2 TB/s on an H20 against 3.3 TB/s by SMs), so "% of copy"
 * against it flattered the stencils. */
#include <cuda_runtime.h>

static __global__ void gt_bench_copy(double2 *__restrict__ b, const double2 *__restrict__ a,
                                     size_t n2)
{
    size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n2; i += step)
        b[i] = a[i];
}

/* Milliseconds of one copy of n doubles (n even) from a to b, by events; negative on a CUDA
   error. */
extern "C" double gpu_copy_ms(double *b, const double *a, size_t n)
{
    int dev = 0, sms = 1;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
        return -1.0;
    cudaEvent_t e0, e1;
    if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess)
        return -1.0;
    cudaEventRecord(e0, 0);
    gt_bench_copy<<<8 * sms, 256>>>((double2 *)b, (const double2 *)a, n / 2);
    cudaEventRecord(e1, 0);
    float ms = -1.0f;
    if (cudaEventSynchronize(e1) != cudaSuccess || cudaGetLastError() != cudaSuccess ||
        cudaEventElapsedTime(&ms, e0, e1) != cudaSuccess)
        ms = -1.0f;
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return ms;
}
