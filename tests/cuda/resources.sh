#!/bin/sh
# tests/cuda/resources.sh [--update]: the resources ptxas gives the cuda
# backend's kernels for the bench stencils, for sm_80 (A100) and sm_90 (H100):
# registers, shared memory and the occupancy cuda_occupancy.h computes from
# them (tests/cuda/occupancy.cc), compared with the reviewed expectation
# tests/cuda/resources.expected (a change of code generation or of nvcc shows
# there; --update rewrites it for review). Spill stores or loads are a failure
# in any case, --update or not. Needs nvcc (NVCC) and a C++ compiler.
# Prints "PASS resources" or "FAIL resources: why" and a diff.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
GTCC=${GTCC:-$BUILD/bin/gtcc}
NVCC=${NVCC:-nvcc}
cuda_home=$(dirname "$(dirname "$(command -v "$NVCC")")")
work=$BUILD/cuda/resources
rm -rf "$work"; mkdir -p "$work"
c++ -std=c++17 -O1 -I"$cuda_home/include" -o "$work/occupancy" "$here/occupancy.cc" ||
    { echo "FAIL resources: occupancy.cc does not build"; exit 0; }
: >"$work/table"
for stn in "$root"/bench/stencils/*.stn; do
    name=$(basename "$stn" .stn)
    "$GTCC" -b cuda -o "$work/$name.cu" "$stn" 2>/dev/null ||
        { echo "FAIL resources: gtcc -b cuda $name.stn"; exit 0; }
    "$NVCC" -c -std=c++17 -Xptxas -v -gencode arch=compute_80,code=sm_80 \
        -gencode arch=compute_90,code=sm_90 -I"$root/runtime/include" -I"$work" \
        -o "$work/$name.o" "$work/$name.cu" >"$work/$name.ptxas" 2>&1 ||
        { echo "FAIL resources: nvcc $name.cu"; exit 0; }
    # entry 'MANGLED' for 'sm_XX', then its spills, then its registers and shared memory
    awk '
        /Compiling entry function/ {
            s = $0; sub(/.*function .\_Z/, "", s); sub(/^L/, "", s)
            n = s + 0; sub(/^[0-9]+/, "", s); kernel = substr(s, 1, n)
            # the index type of a kernel template: gt_kN<int32_t> or <int64_t>
            rest = substr(s, n + 1)
            if (rest ~ /^IiE/) kernel = kernel "<int32_t>"
            if (rest ~ /^IlE/) kernel = kernel "<int64_t>"
            arch = $0; sub(/.*for ./, "", arch); sub(/.$/, "", arch)
        }
        /bytes spill stores/ { spill = $5 + $9 }
        /Used [0-9]+ registers/ {
            regs = $0; sub(/.*Used /, "", regs); regs += 0
            smem = 0
            if ($0 ~ /bytes smem/) { smem = $0; sub(/ bytes smem.*/, "", smem); sub(/.*, /, "", smem) }
            print kernel, arch, regs, smem + 0, spill
        }' "$work/$name.ptxas" | sort >>"$work/table"
done
spills=$(awk '$5 != 0' "$work/table")
if [ -n "$spills" ]; then
    echo "FAIL resources: spills (kernel arch registers smem spill-bytes):"
    echo "$spills" | sed 's/^/  | /'
    exit 0
fi
awk '{ print $1, $2, $3, $4 }' "$work/table" | "$work/occupancy" >"$work/resources" ||
    { echo "FAIL resources: occupancy"; exit 0; }
if [ "${1:-}" = "--update" ]; then
    cp "$work/resources" "$here/resources.expected"
    echo "resources: wrote tests/cuda/resources.expected ($(wc -l <"$work/resources") kernels); review git diff"
elif diff -u "$here/resources.expected" "$work/resources" >"$work/diff"; then
    echo "PASS resources: $(wc -l <"$work/resources") kernels as expected, no spills"
else
    echo "FAIL resources: differ from tests/cuda/resources.expected (tests/cuda/resources.sh --update after review)"
    sed 's/^/  | /' "$work/diff" | head -n 40
fi
