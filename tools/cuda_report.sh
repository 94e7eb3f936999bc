#!/bin/sh
# tools/cuda_report.sh [--check GOLDEN | --update GOLDEN]: the SASS report of the cuda
# backend's kernels (`make cuda-report`; with --check, part of the cuda group of make check).
#
# Every bench/stencils/*.stn and examples/*/*.stn goes through gtcc -b cuda and nvcc -cubin for
# sm_80 and sm_90 with -Xptxas -v (each .cu once per architecture, $JOBS at a time; a .cu that
# tests/cuda/resources.sh built just before is not built again); cuobjdump -sass disassembles
# the cubins. One row per kernel and architecture (tools/sass_report.py, whose header and
# docs/cuda.md "SASS report" define the counts):
#   regs, spill (bytes stored and loaded), smem (shared bytes), occ (theoretical occupancy,
#   tests/cuda/occupancy.cc, blocks of 256), and in the K loop per point: ldg (global loads),
#   stg (global stores), ro (read-only loads, LDG...CONSTANT), plain (static plain LDG in a
#   kernel that reads no field it writes), div (static integer division sequences), instr (SASS
#   instructions), rw (1: reads a field it writes), loop (k; alt where a tile has a boundary and
#   an interior point loop, both counted; none: no loop, the kernel counted whole; ? where the
#   SASS loops do not match the source's point loops).
# Then the goals of issue 23, a line each, "met" or "NOT met" (the report measures them; make
# check does not require them).
#
# cuobjdump and nvdisasm come from PyPI (nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm; 13.2.51,
# the oldest 13.x there: nvcc 13.0's own are not on PyPI), installed into build/sass-venv on
# first use unless CUOBJDUMP names one. Without nvcc, python3 or the tools (no network) the
# report says so and stops: with --check it counts as skipped (SKIP, 0 passed 0 failed).
#
# --check GOLDEN compares the integer columns (kernel, arch, regs, spill, smem, occ, plain,
# div, instr, loop) with GOLDEN (tests/cuda/sass.expected) and prints "PASS sass-report: ..."
# or "FAIL sass-report: ..." and a diff; --update GOLDEN rewrites it for review (git diff).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$root/build}
GTCC=${GTCC:-$BUILD/bin/gtcc}
NVCC=${NVCC:-$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; } || true)}
mode=${1:-}; golden=${2:-}
work=$BUILD/cuda-report
skip() {
    echo "SKIP sass-report: $1"
    exit 0
}
[ -n "$NVCC" ] || skip "nvcc not found (PATH, /usr/local/cuda/bin)"
command -v python3 >/dev/null 2>&1 || skip "python3 not found"
venv=$root/build/sass-venv
CUOBJDUMP=${CUOBJDUMP:-$venv/lib/python3*/site-packages/nvidia/cu13/bin/cuobjdump}
# shellcheck disable=SC2086 # the glob of the default path
CUOBJDUMP=$(ls $CUOBJDUMP 2>/dev/null | head -n 1)
if [ -z "$CUOBJDUMP" ]; then
    echo "cuda-report: installing nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm 13.2.51 into $venv"
    rm -rf "$venv"
    if ! { python3 -m venv "$venv" && timeout 300 "$venv/bin/pip" install -q --retries 1 --timeout 20 \
            'nvidia-cuda-cuobjdump==13.2.51' 'nvidia-cuda-nvdisasm==13.2.51'; } >"$BUILD/sass-venv.log" 2>&1; then
        rm -rf "$venv"
        skip "cuobjdump could not be installed from PyPI (no network?): see $BUILD/sass-venv.log"
    fi
    CUOBJDUMP=$(ls "$venv"/lib/python3*/site-packages/nvidia/cu13/bin/cuobjdump 2>/dev/null | head -n 1)
    [ -n "$CUOBJDUMP" ] || skip "no cuobjdump in $venv"
fi
cuda_home=$(dirname "$(dirname "$NVCC")")
rm -rf "$work"; mkdir -p "$work"
c++ -std=c++17 -O1 -I"$cuda_home/include" -o "$work/occupancy" "$root/tests/cuda/occupancy.cc" ||
    { echo "FAIL sass-report: occupancy.cc does not build"; exit 0; }

# the .cu files, then the cubins (reused from resources.sh's run where its .cu is the same)
: >"$work/jobs"
for stn in "$root"/bench/stencils/*.stn "$root"/examples/*/*.stn; do
    case $stn in
        "$root"/bench/*) label=$(basename "$stn" .stn) ;;
        *) label=examples/$(basename "$stn" .stn) ;;
    esac
    name=$(echo "$label" | tr '/' '_')
    # by its full path, as resources.sh does (the same #line directives, so the same .cu)
    "$GTCC" -b cuda -o "$work/$name.cu" "$stn" >"$work/$name.log" 2>&1 ||
        { echo "FAIL sass-report: gtcc -b cuda $stn"; exit 0; }
    echo "$label" >>"$work/labels"
    res=$BUILD/cuda/resources
    for arch in sm_80 sm_90; do
        # the same .cu, and no header of the runtime changed since
        if [ -f "$res/$name.$arch.cubin" ] && cmp -s "$res/$name.cu" "$work/$name.cu" &&
           [ -z "$(find "$root/runtime/include" -newer "$res/$name.$arch.cubin" -print 2>/dev/null | head -n 1)" ]; then
            cp "$res/$name.$arch.cubin" "$res/$name.$arch.ptxas" "$work/"
        else
            echo "$name $arch" >>"$work/jobs"
        fi
    done
done
export NVCC root work
xargs -L 1 -P "${JOBS:-2}" sh -c '"$NVCC" -cubin -std=c++17 -arch="$1" -Xptxas -v \
    -I"$root/runtime/include" -I"$work" -o "$work/$0.$1.cubin" "$work/$0.cu" >"$work/$0.$1.ptxas" 2>&1 ||
    echo "FAIL sass-report: nvcc -cubin -arch $1 $0.cu"' <"$work/jobs" >"$work/nvcc.log"
if [ -s "$work/nvcc.log" ]; then cat "$work/nvcc.log"; exit 0; fi

: >"$work/rows"
while read -r label; do
    name=$(echo "$label" | tr '/' '_')
    for arch in sm_80 sm_90; do
        awk -f "$root/tests/cuda/ptxas.awk" "$work/$name.$arch.ptxas" | sort >"$work/$name.$arch.occ.spill"
        awk '{ print $1, $2, $3, $4 }' "$work/$name.$arch.occ.spill" | "$work/occupancy" >"$work/$name.$arch.occ" &&
        "$CUOBJDUMP" -sass "$work/$name.$arch.cubin" >"$work/$name.$arch.sass" &&
        python3 "$root/tools/sass_report.py" "$label" "$work/$name.cu" "$work/$name.$arch.sass" \
            "$work/$name.$arch.occ" >>"$work/rows" ||
            { echo "FAIL sass-report: $label $arch: occupancy, cuobjdump or tools/sass_report.py"; exit 0; }
    done
done <"$work/labels"

{
    printf '%-22s %-28s %-5s %4s %5s %6s %4s %6s %5s %5s %5s %3s %5s %2s %-4s %6s %6s\n' stencil kernel \
        arch regs spill smem occ ldg/pt stg/pt ro/pt plain div ins/pt rw loop lds/pt sts/pt
    sort -k1,1 -k2,2 -k3,3 "$work/rows"
} >"$work/report"

# the goals of issue 23 (docs/cuda.md): for hdiff and jacobi3d, the worst of their 32-bit-index
# kernels (gt_sN, gt_kN<int32_t>; the 64-bit ones are for storages past 2^31 elements) on sm_80
# and sm_90; divisions and plain loads in every kernel
goal() {
    awk -v what="$1" -v s="$2" -v col="$3" -v max="$4" '
        $1 == s && $2 !~ /int64_t/ { n++; if ($col > worst || n == 1) worst = $col; if ($15 == "?") bad = 1 }
        END { printf "goal: %s %s at most %s per point (worst of %d kernels: %s): %s\n", s, what, max, n, worst,
              (n > 0 && !bad && worst <= max) ? "met" : "NOT met" }' "$work/rows"
}
{
goal "SASS instructions" hdiff 13 140
goal "global loads" hdiff 8 3
goal "SASS instructions" jacobi3d 13 60
awk '$12 > 0 { n++ } END { printf "goal: no integer division in any K loop (%d of %d kernels have one): %s\n",
     n, NR, n ? "NOT met" : "met" }' "$work/rows"
awk '$11 > 0 { n++ } END { printf "goal: no plain LDG of a read-only field (%d of %d kernels have one): %s\n",
     n, NR, n ? "NOT met" : "met" }' "$work/rows"
awk '$15 == "?" { n++ } END { printf "check: every kernel'"'"'s SASS loops match its point loops (%d of %d do not): %s\n",
     n, NR, n ? "NOT met" : "met" }' "$work/rows"
} >>"$work/report"
# the report (the check writes it to $work/report only)
[ "$mode" = --check ] || cat "$work/report"

# the reviewed integer columns
awk '{ printf "%-22s %-28s %s %3d %4d %6d %3d %3d %3d %5d %s\n", $1, $2, $3, $4, $5, $6, $7, $11, $12, $13, $15 }' \
    "$work/rows" | sort -k1,1 -k2,2 -k3,3 >"$work/integers"
case $mode in
    --update)
        cp "$work/integers" "$golden"
        echo "sass-report: wrote $golden ($(wc -l <"$work/integers") kernels); review git diff" ;;
    --check)
        if diff -u "$golden" "$work/integers" >"$work/diff"; then
            echo "PASS sass-report: $(wc -l <"$work/integers") kernels as in $(basename "$golden")"
        else
            echo "FAIL sass-report: differs from $golden (tools/cuda_report.sh --update $golden after review)"
            sed 's/^/  | /' "$work/diff" | head -n 40
        fi ;;
esac
exit 0
