#!/bin/sh
# bench/bench_gpu.sh [--build-only | --check]: the cuda backend's speed on a GPU, `make
# bench-gpu`. Builds bench/gpu_bench.c with the cuda output of bench/stencils/hdiff.stn and
# jacobi3d.stn (gtcc -b cuda, nvcc -O3 for sm_80 and sm_90, libgtrt-cuda), the SM copy kernel
# of bench/gpu_copy.cu, and the same stencils by the openmp backend (gtcc -P ref_) as the
# reference of the output, and runs it: per stencil the kernel time (CUDA events) and the
# host-call time, the effective bandwidth against the SM copy kernel's measured in the same
# run and against the nominal peak (target: 80% of the SM copy), and whether the output
# agrees with the OpenMP backend's at the bench size; and hdiff once more without its stage
# registers (-P nosreg_, GT_STAGE_REG a reference), for the comparison. Without a usable GPU the program says
# so and exits with status 1. --build-only stops after the build (tests/cuda/run.sh checks
# this way that the benchmark builds on machines without a GPU); --check runs one call of
# each stencil and the comparison only (make check-gpu).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$root/build}
GTCC=${GTCC:-$BUILD/bin/gtcc}
CC=${CC:-cc}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$NVCC" ] || command -v "$NVCC" >/dev/null 2>&1 ||
    { echo "bench-gpu: nvcc not found: nothing to build"; exit 1; }
[ -e "$BUILD/lib/libgtrt-cuda.a" ] || { echo "bench-gpu: $BUILD/lib/libgtrt-cuda.a missing (make)"; exit 1; }
cuda_home=$(dirname "$(dirname "$(command -v "$NVCC")")")
work=$BUILD/bench/gpu
rm -rf "$work"; mkdir -p "$work"
for s in hdiff jacobi3d; do
    "$GTCC" -b cuda -o "$work/$s.cu" "$root/bench/stencils/$s.stn" &&
    "$NVCC" -c -O3 -std=c++17 -Werror all-warnings -gencode arch=compute_80,code=sm_80 \
        -gencode arch=compute_90,code=sm_90 -I"$root/runtime/include" -I"$work" \
        -o "$work/$s.o" "$work/$s.cu" || { echo "bench-gpu: $s does not build"; exit 1; }
done
# hdiff again with its stage registers read from the stage where used (GT_STAGE_REG a
# reference, as before sm_90): the same run times both (docs/cuda.md, "Stage registers")
"$GTCC" -b cuda -P nosreg_ -o "$work/nosreg_hdiff.cu" "$root/bench/stencils/hdiff.stn" &&
"$NVCC" -c -O3 -std=c++17 -Werror all-warnings -gencode arch=compute_80,code=sm_80 \
    -gencode arch=compute_90,code=sm_90 -I"$root/runtime/include" -I"$work" \
    '-DGT_STAGE_REG(T)=const T &' -o "$work/nosreg_hdiff.o" "$work/nosreg_hdiff.cu" ||
    { echo "bench-gpu: hdiff without stage registers does not build"; exit 1; }
"$NVCC" -c -O3 -std=c++17 -Werror all-warnings -gencode arch=compute_80,code=sm_80 \
    -gencode arch=compute_90,code=sm_90 -o "$work/gpu_copy.o" "$root/bench/gpu_copy.cu" ||
    { echo "bench-gpu: gpu_copy.cu does not build"; exit 1; }
for s in hdiff jacobi3d; do
    "$GTCC" -b openmp -P ref_ -o "$work/ref_$s.c" "$root/bench/stencils/$s.stn" &&
    $CC -std=c11 -O2 -fopenmp -I"$root/runtime/include" -c -o "$work/ref_$s.o" "$work/ref_$s.c" ||
        { echo "bench-gpu: the openmp reference of $s does not build"; exit 1; }
done
$CC -std=c11 -O2 -Wall -Wextra -Werror ${SANFLAGS:-} -D_POSIX_C_SOURCE=200809L -I"$root/runtime/include" \
    -I"$cuda_home/include" -I"$root/bench" -I"$work" -o "$work/gpu_bench" "$root/bench/gpu_bench.c" \
    "$work/hdiff.o" "$work/jacobi3d.o" "$work/nosreg_hdiff.o" "$work/gpu_copy.o" "$work/ref_hdiff.o" "$work/ref_jacobi3d.o" \
    "$BUILD/lib/libgtrt-cuda.a" "$BUILD/lib/libgtrt.a" \
    -L"$cuda_home/lib64" -Wl,-rpath,"$cuda_home/lib64" -lcudart -lstdc++ -fopenmp -lm ||
    { echo "bench-gpu: gpu_bench.c does not build"; exit 1; }
[ "${1:-}" = "--build-only" ] && { echo "bench-gpu: built $work/gpu_bench"; exit 0; }
"$work/gpu_bench" ${1:+"$1"}
