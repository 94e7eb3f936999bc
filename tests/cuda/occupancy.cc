/* occupancy.cc: the occupancy of kernels from their ptxas resources, for A100 (sm_80) and
 * H100 (sm_90) properties, through the CUDA toolkit's header-only cuda_occupancy.h (no GPU
 * needed). Reads lines "KERNEL ARCH REGISTERS SHARED_BYTES" on standard input (blocks of
 * 256 threads, as the cuda backend launches), writes them back with the active warps per SM
 * and the occupancy (active warps / 64). */
#include <stdio.h>
#include <string.h>

#include <cuda_occupancy.h>

static cudaOccDeviceProp device(int arch)
{
    cudaOccDeviceProp p{};
    p.computeMajor = arch / 10;
    p.computeMinor = arch % 10;
    p.maxThreadsPerBlock = 1024;
    p.maxThreadsPerMultiprocessor = 2048;
    p.regsPerBlock = 65536;
    p.regsPerMultiprocessor = 65536;
    p.warpSize = 32;
    p.sharedMemPerBlock = 49152;
    p.reservedSharedMemPerBlock = 1024;
    if (arch == 80) {          /* A100: 108 SMs, 164 KiB shared memory per SM */
        p.numSms = 108;
        p.sharedMemPerMultiprocessor = 167936;
        p.sharedMemPerBlockOptin = 166912;
    } else {                   /* H100 SXM: 132 SMs, 228 KiB shared memory per SM */
        p.numSms = 132;
        p.sharedMemPerMultiprocessor = 233472;
        p.sharedMemPerBlockOptin = 232448;
    }
    return p;
}

int main(void)
{
    char name[256];
    int arch, regs;
    long smem;
    int status = 0;
    while (scanf("%255s sm_%d %d %ld", name, &arch, &regs, &smem) == 4) {
        cudaOccDeviceProp prop = device(arch);
        cudaOccFuncAttributes attr{};
        attr.maxThreadsPerBlock = 1024;
        attr.numRegs = regs;
        attr.sharedSizeBytes = (size_t)smem;
        cudaOccDeviceState state{};
        cudaOccResult result{};
        if (cudaOccMaxActiveBlocksPerMultiprocessor(&result, &prop, &attr, &state, 256, 0) !=
            CUDA_OCC_SUCCESS) {
            printf("%s sm_%d: the occupancy calculator failed\n", name, arch);
            status = 1;
            continue;
        }
        int warps = result.activeBlocksPerMultiprocessor * 256 / 32;
        printf("%-28s sm_%d %3d registers %6ld B shared  %2d warps/SM  occupancy %3d%%\n", name,
               arch, regs, smem, warps, warps * 100 / 64);
    }
    return status;
}
