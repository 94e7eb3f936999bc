#!/bin/sh
# tests/gpu/run.sh: `make check-gpu`, the cuda backend on a real GPU.
#
# First a probe (nvcc, cudaGetDeviceCount): without nvcc or a usable GPU it says why and
# exits with status 1 (nothing is run; `make check` proves the backend without a GPU).
# Then:
#   - the differential test with DIFF_GPU=1 (tests/diff/run.sh): every test program and
#     $DIFF_PROGRAMS (default 240) random ones, the cuda output built by nvcc
#     (-fmad=false) and run on the device against the naive backend, in five layouts,
#     the last with 64-bit indices; reals to a relative 1e-10 (1e-4 for float: the CUDA
#     math library's functions round differently from glibc's);
#   - the cuda group (tests/cuda/run.sh): nvcc builds, resources, and examples/hdiff
#     built with BACKEND=cuda, which on a GPU must run and succeed;
#   - one bench-sized case (bench/bench_gpu.sh --check): hdiff, jacobi3d and hdiff-nosreg
#     at 512 x 512 x 80 on the device against the openmp backend's output;
#   - tests/gpu/check_pack.c: the CUDA layer's pack and unpack (the MPI exchange's halo
#     strips, runtime/src/cuda/pack.cu) on random boxes and at the grid's limits.
# Both build in parallel on $JOBS cores (default: nproc).
# Prints "check-gpu: N passed, N failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
work=$BUILD/gpu
command -v "$NVCC" >/dev/null 2>&1 || { echo "check-gpu: nvcc not found: nothing run"; exit 1; }
rm -rf "$work"; mkdir -p "$work"
cat >"$work/probe.c" <<'PROBE'
#include <stdio.h>
#include <cuda_runtime_api.h>
int main(void)
{
    int n = -1;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n < 1) {
        printf("no usable GPU (cudaGetDeviceCount: error %d, %s)\n", (int)e, cudaGetErrorString(e));
        return 1;
    }
    struct cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    printf("%s, compute capability %d.%d\n", p.name, p.major, p.minor);
    return 0;
}
PROBE
cuda_home=$(dirname "$(dirname "$(command -v "$NVCC")")")
cc -o "$work/probe" "$work/probe.c" -I"$cuda_home/include" -L"$cuda_home/lib64" \
    -Wl,-rpath,"$cuda_home/lib64" -lcudart || { echo "check-gpu: the probe does not build"; exit 1; }
if ! "$work/probe" >"$work/device"; then
    echo "check-gpu: $(cat "$work/device"): nothing run"
    exit 1
fi
echo "check-gpu: on $(cat "$work/device")"
mkdir -p "$work/results"
# the builds (nvcc is slow) in parallel over every core of the GPU host
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
export JOBS
DIFF_GPU=1 RESULTS="$work/results" "$root/tests/diff/run.sh"
RESULTS="$work/results" "$root/tests/cuda/run.sh"
# one bench-sized case: hdiff, jacobi3d and hdiff without its stage registers at 512 x 512 x
# 80, the cuda output against the openmp backend's (bench/bench_gpu.sh --check)
BUILD="$BUILD" "$root/bench/bench_gpu.sh" --check >"$work/bench_check" 2>&1
cat "$work/bench_check"
bp=$(grep -c '^PASS' "$work/bench_check"); bf=$(grep -c '^FAIL' "$work/bench_check")
[ "$bp" -eq 3 ] || bf=$((bf + 3 - bp - bf))
echo "$bp $bf" >"$work/results/bench"
# the device layer's pack and unpack (the MPI exchange's kernel)
if cc -std=c11 -O2 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -I"$root/runtime/include" \
       -I"$root/runtime/src" -o "$work/check_pack" "$here/check_pack.c" \
       "$BUILD/lib/libgtrt-cuda.a" "$BUILD/lib/libgtrt.a" -L"$cuda_home/lib64" \
       -Wl,-rpath,"$cuda_home/lib64" -lcudart -lm >"$work/pack.log" 2>&1; then
    timeout 120 "$work/check_pack" >>"$work/pack.log" 2>&1
fi
grep -E '^(PASS|FAIL)' "$work/pack.log" || sed 's/^/  | /' "$work/pack.log" | head -n 10
pp=$(grep -c '^PASS' "$work/pack.log"); pf=$(grep -c '^FAIL' "$work/pack.log")
[ "$pp" -eq 3 ] || pf=$((pf + 3 - pp - pf))
echo "$pp $pf" >"$work/results/pack"
passed=0; failed=0
for g in diff cuda bench pack; do
    [ -e "$work/results/$g" ] || { failed=$((failed + 1)); continue; }
    read -r p f <"$work/results/$g"
    passed=$((passed + p)); failed=$((failed + f))
done
echo "check-gpu: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
