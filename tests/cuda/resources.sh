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
: >"$work/table"; : >"$work/jobs"
for stn in "$root"/bench/stencils/*.stn; do
    name=$(basename "$stn" .stn)
    "$GTCC" -b cuda -o "$work/$name.cu" "$stn" 2>/dev/null ||
        { echo "FAIL resources: gtcc -b cuda $name.stn"; exit 0; }
    echo "$name sm_80" >>"$work/jobs"; echo "$name sm_90" >>"$work/jobs"
done
# one cubin per .cu and architecture, $JOBS at a time (tools/cuda_report.sh reuses them)
export NVCC root work
xargs -L 1 -P "${JOBS:-2}" sh -c '"$NVCC" -cubin -std=c++17 -Xptxas -v -arch="$1" \
    -I"$root/runtime/include" -I"$work" -o "$work/$0.$1.cubin" "$work/$0.cu" >"$work/$0.$1.ptxas" 2>&1 ||
    echo "FAIL resources: nvcc -arch $1 $0.cu"' <"$work/jobs" >"$work/nvcc.log"
if [ -s "$work/nvcc.log" ]; then cat "$work/nvcc.log"; exit 0; fi
for stn in "$root"/bench/stencils/*.stn; do
    name=$(basename "$stn" .stn)
    awk -f "$here/ptxas.awk" "$work/$name.sm_80.ptxas" "$work/$name.sm_90.ptxas" | sort
done >"$work/table"
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
