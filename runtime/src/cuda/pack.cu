/* pack.cu: the box-copy kernel of the CUDA device layer (libgtrt-cuda, compiled by nvcc for
 * sm_80 and sm_90, with PTX for later GPUs): the halo strips of the MPI exchange packed into
 * and unpacked from dense device buffers (device_cuda.c's pack and unpack; rt.h says what
 * they do). One launch per strip on the exchange's stream: threads along the box's dimension
 * of smallest stride (x, a warp's worth at least, more rows per block when it is short),
 * the next one along y and the last one along z, grid-stride loops where the grid's limits
 * are reached; no division per element. */
#include <stdint.h>

#include <cuda_runtime.h>

template <typename T>
__global__ void box_copy(T *__restrict__ dst, long long d0, long long d1, long long d2,
                         const T *__restrict__ src, long long s0, long long s1, long long s2,
                         long long n0, long long n1, long long n2)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n0)
        return;
    for (long long j = (long long)blockIdx.y * blockDim.y + threadIdx.y; j < n1;
         j += (long long)gridDim.y * blockDim.y)
        for (long long k = blockIdx.z; k < n2; k += gridDim.z)
            dst[i * d0 + j * d1 + k * d2] = src[i * s0 + j * s1 + k * s2];
}

template <typename T>
static cudaError_t launch(void *dst, const long long *ds, const void *src, const long long *ss,
                          const long long *n, cudaStream_t stream)
{
    unsigned bx = n[0] >= 256 ? 256u : (unsigned)((n[0] + 31) / 32 * 32);
    unsigned by = 256u / bx;
    long long gy = (n[1] + by - 1) / by;
    dim3 block(bx, by, 1);
    dim3 grid((unsigned)((n[0] + bx - 1) / bx), (unsigned)(gy < 65535 ? gy : 65535),
              (unsigned)(n[2] < 65535 ? n[2] : 65535));
    box_copy<T><<<grid, block, 0, stream>>>((T *)dst, ds[0], ds[1], ds[2], (const T *)src,
                                            ss[0], ss[1], ss[2], n[0], n[1], n[2]);
    return cudaGetLastError();
}

/* Copies a box of extent[0..ndim) elements of esize bytes (1, 4 or 8) from src (strides ss,
   in elements) to dst (strides ds) on stream: the dimensions ordered by stride (the two
   sides order them alike: a storage and its dense strips), extent-1 ones left out. A
   cudaError_t. */
extern "C" int gt__cuda_box_copy(void *dst, const int64_t *ds, const void *src,
                                 const int64_t *ss, const int64_t *extent, int ndim,
                                 size_t esize, void *stream)
{
    long long n[3] = {1, 1, 1}, d[3] = {0, 0, 0}, s[3] = {0, 0, 0};
    int m = 0;
    for (int x = 0; x < ndim; x++) {
        if (extent[x] == 0)
            return (int)cudaSuccess;   /* an empty box */
        if (extent[x] == 1)
            continue;
        /* insert by the sum of the strides, smallest first */
        int at = m++;
        while (at > 0 && d[at - 1] + s[at - 1] > ds[x] + ss[x]) {
            n[at] = n[at - 1], d[at] = d[at - 1], s[at] = s[at - 1];
            at--;
        }
        n[at] = extent[x], d[at] = ds[x], s[at] = ss[x];
    }
    if (n[0] > 0x7fffffffLL * 256)
        return (int)cudaErrorInvalidValue;
    cudaStream_t st = (cudaStream_t)stream;
    switch (esize) {
    case 1:
        return (int)launch<unsigned char>(dst, d, src, s, n, st);
    case 4:
        return (int)launch<uint32_t>(dst, d, src, s, n, st);
    case 8:
        return (int)launch<uint64_t>(dst, d, src, s, n, st);
    default:
        return (int)cudaErrorInvalidValue;
    }
}
