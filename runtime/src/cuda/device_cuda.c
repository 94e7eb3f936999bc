/* device_cuda.c: the CUDA implementation of the device-ops table (runtime.md section 4),
 * libgtrt-cuda. Plain C against the CUDA runtime's C API (cudaMalloc, cudaMallocManaged,
 * cudaMemcpy, also device to device for the outputs a stencil keeps, cudaDeviceSynchronize;
 * for the streamed transfers of transfer.c cudaMallocHost, cudaStreamCreate,
 * cudaMemcpyAsync / cudaMemcpy2DAsync and cudaStreamSynchronize; for the MPI exchange's
 * halo strips the kernel of pack.cu, built by nvcc); linked with -lcudart.
 *
 * It installs itself when the program starts (a constructor; the object is linked in because
 * the code of the cuda backend calls gt__cuda_init) if the CUDA runtime finds a device.
 * Without a usable GPU the CUDA runtime answers cudaGetDeviceCount with an error (35: the
 * driver is older than the runtime or absent; 34: the stub driver library; 100: no device)
 * and may leave the count unset: the table then says "unavailable" with that error, and
 * every device request fails with GT_EDEVICE and the reason, never a crash or a hang. */
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "rt.h"

static int cuda_alloc(void **out, size_t nbytes)
{
    return (int)cudaMalloc(out, nbytes ? nbytes : 1);
}

static int cuda_alloc_managed(void **out, size_t nbytes)
{
    return (int)cudaMallocManaged(out, nbytes ? nbytes : 1, cudaMemAttachGlobal);
}

static void cuda_release(void *p)
{
    cudaFree(p);
}

static int cuda_to_device(void *dst, const void *src, size_t nbytes)
{
    return (int)cudaMemcpy(dst, src, nbytes, cudaMemcpyHostToDevice);
}

static int cuda_to_host(void *dst, const void *src, size_t nbytes)
{
    return (int)cudaMemcpy(dst, src, nbytes, cudaMemcpyDeviceToHost);
}

/* cudaMemcpy between device addresses: ordered on the legacy default stream with the
   kernels (the outputs a stencil keeps, gt__keep). */
static int cuda_device_copy(void *dst, const void *src, size_t nbytes)
{
    return (int)cudaMemcpy(dst, src, nbytes, cudaMemcpyDeviceToDevice);
}

static int cuda_alloc_pinned(void **out, size_t nbytes)
{
    return (int)cudaMallocHost(out, nbytes ? nbytes : 1);
}

static void cuda_release_pinned(void *p)
{
    cudaFreeHost(p);
}

/* Blocking streams (cudaStreamCreate): their copies wait for the kernels queued before them
   on the legacy default stream, where the cuda backend launches, and those after wait for
   them, so a download never reads what a kernel has yet to write. */
static int cuda_stream_create(void **out)
{
    cudaStream_t s = NULL;
    cudaError_t err = cudaStreamCreate(&s);
    *out = (void *)s;
    return (int)err;
}

static void cuda_stream_destroy(void *stream)
{
    cudaStreamDestroy((cudaStream_t)stream);
}

static int cuda_copy_async(void *dst, size_t dpitch, const void *src, size_t spitch,
                           size_t width, size_t height, int to_device, void *stream)
{
    enum cudaMemcpyKind kind = to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    if (height == 1)
        return (int)cudaMemcpyAsync(dst, src, width, kind, (cudaStream_t)stream);
    return (int)cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind,
                                  (cudaStream_t)stream);
}

/* pack.cu: the box-copy kernel, launched on stream (a cudaError_t). */
int gt__cuda_box_copy(void *dst, const int64_t *ds, const void *src, const int64_t *ss,
                      const int64_t *extent, int ndim, size_t esize, void *stream);

/* The MPI exchange's halo strips: a kernel per strip on the exchange's stream (a blocking
   one: after the stencils' kernels on the legacy default stream). */
static int cuda_pack(void *dense, const int64_t *dstrides, const void *box,
                     const int64_t *strides, const int64_t *extent, int ndim, size_t esize,
                     void *stream)
{
    return gt__cuda_box_copy(dense, dstrides, box, strides, extent, ndim, esize, stream);
}

static int cuda_unpack(void *box, const int64_t *strides, const void *dense,
                       const int64_t *dstrides, const int64_t *extent, int ndim, size_t esize,
                       void *stream)
{
    return gt__cuda_box_copy(box, strides, dense, dstrides, extent, ndim, esize, stream);
}

static int cuda_stream_wait(void *stream)
{
    return (int)cudaStreamSynchronize((cudaStream_t)stream);
}

/* A failed launch (cudaGetLastError) or a failed kernel (cudaDeviceSynchronize). */
static int cuda_barrier(void)
{
    cudaError_t launch = cudaGetLastError();
    cudaError_t run = cudaDeviceSynchronize();
    return (int)(launch != cudaSuccess ? launch : run);
}

static const char *cuda_error_string(int err)
{
    return cudaGetErrorString((cudaError_t)err);
}

static char unavailable[200];

static gt__device_ops cuda_ops = {
    .name = "cuda",
    .alloc = cuda_alloc,
    .alloc_managed = cuda_alloc_managed,
    .release = cuda_release,
    .to_device = cuda_to_device,
    .to_host = cuda_to_host,
    .barrier = cuda_barrier,
    .error_string = cuda_error_string,
    .alloc_pinned = cuda_alloc_pinned,
    .release_pinned = cuda_release_pinned,
    .stream_create = cuda_stream_create,
    .stream_destroy = cuda_stream_destroy,
    .copy_async = cuda_copy_async,
    .stream_wait = cuda_stream_wait,
    .device_copy = cuda_device_copy,
    .pack = cuda_pack,
    .unpack = cuda_unpack,
};

int gt__cuda_init(void)
{
    static int done, status;
    if (done)
        return status;
    done = 1;
    int count = -1;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaSuccess && count <= 0)
        err = cudaErrorNoDevice;
    if (err != cudaSuccess) {
        snprintf(unavailable, sizeof unavailable,
                 "the CUDA runtime finds no usable device (cudaGetDeviceCount: error %d, %s)",
                 (int)err, cudaGetErrorString(err));
        cuda_ops.unavailable = unavailable;
        status = GT_EDEVICE;
    }
    gt__set_device_ops(&cuda_ops);
    return status;
}

__attribute__((constructor)) static void install(void)
{
    gt__cuda_init();
}
