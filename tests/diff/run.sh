#!/bin/sh
# tests/diff/run.sh: differential test of the openmp and cuda backends against
# the naive backend (the oracle), `make diff`.
#
# The cuda backend's .cu is built for the CPU by a C++ compiler (g++ or
# clang++; skipped with a message without one) with -DGT_SIMT against the
# SIMT emulator of tests/simt (a fiber per CUDA thread, threads shuffled
# between barriers), and the driver calls it with `device`: the storages of
# that side have a device buffer on a fake device whose memory starts as NaN.
# For even seeds the emulator takes at most 2 blocks of rows a launch (CUDA:
# 65535; GT_SIMT_GRID_Y_MAX), so that the generated code's launches in turn
# over more rows than one launch covers are compared on small domains.
# Its cases print as NAME[cuda]; for layout F the driver passes device-only
# storages (gt_wrap_device over those device buffers) instead, NAME[cuda]
# F/device-only, except to a stencil the backend does not fuse (naive code on
# the host, which refuses them). One more case, nosync, removes a needed
# __syncthreads from the cuda output of programs/reductions.stn and passes
# when the emulator reports the shared-memory race it leaves; oob moves one
# load far outside its array and passes when the emulator stops it (every
# GT_LD/GT_ST is checked against the fake device's allocations).
#
# With DIFF_GPU=1 (`make check-gpu`, on a machine with a GPU) the cuda output
# is built by nvcc instead, linked with libgtrt-cuda, and the driver calls it
# with `gpu`: the storages of that side live on the real device (the openmp
# side and the emulator's checks are left out; the SIMT-only cases nosync and
# oob too).
#
# Programs: every tests/numeric/*.stn, examples/*/*.stn, bench/stencils/*.stn and
# tests/diff/programs/*.stn (written for the differential test),
# plus $DIFF_PROGRAMS (default 240) random well-formed programs made by gen.c
# from seeds $DIFF_SEED.. (default 1), `gen $DIFF_GEN_ARGS SEED` (--fuzz: int,
# float and bool fields, scalars and outputs, mixed types, more builtins; for
# hunts, not make check); a random program gtcc rejects is
# replaced by the next seed. Random programs are compiled 30 to a file.
#
# One random program in 8 (gen.c: every 8th seed) has an `if` the openmp
# backend cannot plan (its statements run over different regions), so that
# the openmp backend emits the naive code for that stencil (and warns):
# `gtcc --emit=ir -b openmp` of the program says `plan: not fused (...)`.
# (Another 1 in 8 has an `if` reading at k-1/k+1 what it writes in a
# forward/backward computation, which fell back too before fuse.c learnt to
# plan it.) Such programs share files with the fused ones, as a user's would;
# they are counted, and if none falls back the group fails (one FAIL: the
# generator no longer covers the fallback).
#
# One random program in 4 (gen.c: ITERATE_EVERY) has a second stencil with iterate
# (language.md 11), and the fixed programs include tests/numeric/steps.stn: for a stencil
# with iterate, driver.c also runs S_steps ((seed + layout) % 6 steps) in both builds and
# nsteps single calls of the naive build's S with the pairs swapped, and compares them
# exactly (the pairs' scratch fields left out); the cuda build's S_steps on device-only
# storages too where its single call had them (NAME[cuda] F/device-only).
#
# Each program is compiled by both backends, each output built with
# $CC -std=c11 -Wall -Wextra -Werror $SANFLAGS (-O2 for the fixed programs, so
# that the SIMD loops are vectorized; -O0 for the random ones, to keep the
# group quick: their point is the plan, not the vectorizer; $DIFF_RANDOM_OPT
# overrides that) into a shared object with
# the call shims of `gen --wrap`, and driver.c calls both builds on the same
# random storages in five layouts ("cpu": the unit-stride fast path; "F",
# "JKI", "IKJ": the generic-stride path; "IJK": K contiguous; 3 to 10 levels, or
# in every layout but "cpu" at least what the stencil's intervals need, as its
# header says; a call both builds refuse alike prints "PASS ... (refused alike)") with
# OMP_NUM_THREADS=2 (and for odd seeds GT_CACHE_BYTES=1: the openmp code's
# slab order of docs/internals.md, "3-D blocks"; for seeds not multiples of 3
# GT_STEPS_TILE small: S_steps time-tiled, some with levels and columns), and compares
# every element of every storage (halos included) exactly, and out scalars to
# a relative 1e-12 (1e-5 for float): full sums are reassociated by threads.
#
# With DIFF_EXTREME=1 (for hunts, not make check) the driver draws one element in four of
# every field, and one scalar input in four, from edge values instead (driver.c,
# fill_elem: INT32_MIN, INT32_MAX, -1, 46341, ...; NaN, infinities, -0, 1e300, 2^31,
# subnormals), so that int arithmetic that wraps, int() out of range and the builtins
# at infinities are compared (and, under SANITIZE=1, checked for undefined behaviour).
# Out scalars of such values may differ by summation order alone (a sum that overflows
# in one order and not in another): read such a FAIL before believing it. The fixed
# programs' while loops run on the data (tests/numeric/loops.stn halves an infinity until
# it is below 0.1, adds 7 to INT32_MIN until it is positive) and may not end on such
# values: hunt with them on the random programs (whose loops have counters) and kill a
# fixed program's driver that hangs.
#
# The openmp objects link LLVM's libomp (as pkg-config gtrt does). Under
# SANITIZE=1 the driver and both objects are built with $SANFLAGS and run with
# ASan and UBSan, but without LeakSanitizer, which crashes at exit next to
# libomp's threads.
# Prints "diff: N passed, N failed" (one case = one stencil in one layout)
# and writes "PASSED FAILED" to $RESULTS/diff.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
GTCC=${GTCC:-$BUILD/bin/gtcc}
CC=${CC:-cc}
SANFLAGS=${SANFLAGS:-}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
work=$BUILD/diff
omplib=$(ls /usr/lib/llvm-*/lib/libomp.so /usr/lib/x86_64-linux-gnu/libomp.so 2>/dev/null | tail -n 1)
if [ -n "$omplib" ]; then
    ompdir=$(dirname "$omplib")
    OMPLIBS="-L$ompdir -Wl,-rpath,$ompdir -lomp"
else
    OMPLIBS="-fopenmp"
fi
# -frounding-math everywhere: no build folds a math function of constant arguments at
# compile time (gcc does it correctly rounded, glibc may differ by an ulp at run time: a
# level loop `for (k = 1; k < 2; k++)` made acosh(1.0 + abs(k)) a constant in the SIMT
# build at -O1 and not in the naive build at -O0, seed 70387)
CFLAGS="-std=c11 -frounding-math -Wall -Wextra -Werror -Wno-unused-parameter -fPIC $SANFLAGS -I$root/runtime/include -I$here"
# the cuda output built for the CPU against the SIMT emulator (the worker's build and
# simt_so's edited ones): no fused multiply-adds, as the naive build
SIMTFLAGS="-x c++ -std=c++17 -O1 -fPIC -ffp-contract=off -frounding-math -DGT_SIMT -I$root/tests/simt -I$root/runtime/include"

# --- worker: run.sh --one DIR STN SEED OPT [GTCC ARGS...] ---------------------
if [ "${1:-}" = "--one" ]; then
    dir=$2; stn=$3; seed=$4; CFLAGS="$CFLAGS $5"; shift 5
    name=$(basename "$stn" .stn)
    mkdir -p "$dir"
    fail() { echo "FAIL $name: $1"; sed 's/^/  | /' "$dir/log" | head -n 20; exit 0; }
    (cd "$(dirname "$stn")" && "$GTCC" -b naive "$@" -o "$dir/naive.c" "$(basename "$stn")") \
        >"$dir/log" 2>&1 || fail "gtcc -b naive"
    (cd "$(dirname "$stn")" && "$GTCC" -b openmp "$@" -o "$dir/openmp.c" "$(basename "$stn")") \
        >"$dir/log" 2>&1 || fail "gtcc -b openmp"
    "$work/gen" --wrap "$dir/naive.h" >"$dir/wrap_naive.c" 2>"$dir/log" || fail "gen --wrap naive.h"
    $CC $CFLAGS -I"$dir" -shared -o "$dir/naive.so" "$dir/naive.c" "$dir/wrap_naive.c" \
        >"$dir/log" 2>&1 || fail "the naive output does not build"
    # on a GPU (DIFF_GPU=1) only the cuda side is compared: the openmp side is make check's
    if [ -z "${DIFF_GPU:-}" ]; then
        "$work/gen" --wrap "$dir/openmp.h" >"$dir/wrap_omp.c" 2>"$dir/log" || fail "gen --wrap openmp.h"
        $CC $CFLAGS -fopenmp -I"$dir" -shared -o "$dir/omp.so" "$dir/openmp.c" "$dir/wrap_omp.c" \
            $OMPLIBS >"$dir/log" 2>&1 || fail "the openmp output does not build"
        # LeakSanitizer crashes at exit when libomp's worker threads are alive
        # ("Tracer caught signal 11"): leaks are not checked here (ASan and UBSan are)
        # odd seeds: a cache share of 1 byte, so that every group reading at K
        # offsets streams its levels through slabs of one row (gt__blocks)
        cache=; [ $((seed % 2)) = 1 ] && cache=1
        # S_steps' time tiles (docs/internals.md, "Time tiling") forced small for two
        # seeds in three: tiles of 3 rows one step deep; of 5 rows two steps deep; or of
        # 5 rows and 5 columns two steps deep, the levels two a wave (where every level
        # is computed alike: tiles_time 2)
        tile=; [ $((seed % 3)) = 1 ] && tile=3,1; [ $((seed % 6)) = 5 ] && tile=5,2
        [ $((seed % 6)) = 2 ] && tile=5,2,2,5
        ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" OMP_NUM_THREADS=2 GT_CACHE_BYTES=$cache \
            GT_STEPS_TILE=$tile \
            "$work/driver" "$dir/naive.so" "$dir/omp.so" "$seed" >"$dir/out" 2>&1
        status=$?
        grep -E '^(PASS|FAIL) ' "$dir/out"
        grep -q -E '^(PASS|FAIL) ' "$dir/out" || { cp "$dir/out" "$dir/log"; fail "no stencil was run"; }
        if [ $status -ne 0 ] && ! grep -q '^FAIL ' "$dir/out"; then
            cp "$dir/out" "$dir/log"; fail "driver exit status $status"
        fi
    fi
    # the cuda backend's output, built for the CPU against the SIMT emulator
    # (without the sanitizers: fibers switch stacks under them), on a fake
    # device whose memory starts as NaN
    [ -n "$CXX_SIMT" ] || exit 0
    (cd "$(dirname "$stn")" && "$GTCC" -b cuda "$@" -o "$dir/cuda.cu" "$(basename "$stn")") \
        >"$dir/log" 2>&1 || fail "gtcc -b cuda"
    "$work/gen" --wrap "$dir/cuda.h" >"$dir/wrap_cuda.c" 2>"$dir/log" || fail "gen --wrap cuda.h"
    if [ -n "${DIFF_GPU:-}" ]; then
        { $CC -std=c11 -O1 -fPIC -c -I"$root/runtime/include" -I"$here" -I"$dir" \
              -o "$dir/wrap_cuda.o" "$dir/wrap_cuda.c" &&
          "$NVCC" -std=c++17 -O2 -fmad=false -Xcompiler -fPIC -shared -Werror all-warnings \
              -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90] \
              -I"$root/runtime/include" -I"$dir" -o "$dir/cuda.so" "$dir/cuda.cu" \
              "$dir/wrap_cuda.o" "$BUILD/lib/libgtrt-cuda.a" -lcudart; } >"$dir/log" 2>&1 ||
            fail "the cuda output does not build with nvcc"
        "$work/driver" "$dir/naive.so" "$dir/cuda.so" "$seed" gpu >"$dir/out_cuda" 2>&1
        status=$?
        sed -n 's/^\(PASS\|FAIL\) \([^ ]*\)/\1 \2[gpu]/p' "$dir/out_cuda"
        grep -q -E '^(PASS|FAIL) ' "$dir/out_cuda" || { cp "$dir/out_cuda" "$dir/log"; fail "gpu: no stencil was run"; }
        if [ $status -ne 0 ] && ! grep -q '^FAIL ' "$dir/out_cuda"; then
            cp "$dir/out_cuda" "$dir/log"; fail "gpu: driver exit status $status"
        fi
        exit 0
    fi
    { $CC -std=c11 -O1 -fPIC -c -I"$root/runtime/include" -I"$here" -I"$dir" \
          -o "$dir/wrap_cuda.o" "$dir/wrap_cuda.c" &&
      $CXX_SIMT $SIMTFLAGS -Wall -Wextra -Werror -Wno-unused-parameter -Wno-unused-function \
          -I"$dir" -shared -o "$dir/cuda.so" "$dir/cuda.cu" \
          "$root/tests/simt/simt.cc" -x none "$dir/wrap_cuda.o"; } >"$dir/log" 2>&1 ||
        fail "the cuda output does not build for the SIMT emulator"
    # even seeds: the emulator takes 2 blocks of rows a launch (CUDA takes 65535), so the
    # generated code's launches in turn over the rows (emit_cuda.c, launch_unit) run here
    ymax=; [ $((seed % 2)) = 0 ] && ymax=2
    GT_SIMT_GRID_Y_MAX=$ymax "$work/driver" "$dir/naive.so" "$dir/cuda.so" "$seed" device \
        >"$dir/out_cuda" 2>&1
    status=$?
    sed -n 's/^\(PASS\|FAIL\) \([^ ]*\)/\1 \2[cuda]/p' "$dir/out_cuda"
    grep '^VARIANTS ' "$dir/out_cuda"
    grep -q -E '^(PASS|FAIL) ' "$dir/out_cuda" || { cp "$dir/out_cuda" "$dir/log"; fail "cuda: no stencil was run"; }
    if [ $status -ne 0 ] && ! grep -q '^FAIL ' "$dir/out_cuda"; then
        cp "$dir/out_cuda" "$dir/log"; fail "cuda: driver exit status $status"
    fi
    exit 0
fi

# the cuda backend is checked too where a C++ compiler builds its output for
# the SIMT emulator
CXX_SIMT=$(command -v g++ || command -v clang++ || true)
export CXX_SIMT
[ -n "$CXX_SIMT" ] || echo "diff: no C++ compiler (g++, clang++): the cuda backend is not compared"
rm -rf "$work"; mkdir -p "$work/cases"
$CC -std=c11 -O1 -D_POSIX_C_SOURCE=200809L -o "$work/gen" "$here/gen.c" || exit 1
$CC -std=c11 -O1 -g $SANFLAGS -D_POSIX_C_SOURCE=200809L -I"$root/runtime/include" \
    -I"$root/runtime/src" -I"$here" \
    -o "$work/driver" "$here/driver.c" -rdynamic \
    -Wl,--whole-archive "$BUILD/lib/libgtrt.a" -Wl,--no-whole-archive -ldl -lm || exit 1

# the job list: DIR STN SEED ARGS...
jobs=$work/jobs
: >"$jobs"
n=0
fixed_opt=-O2
[ -n "$SANFLAGS" ] && fixed_opt=-O1   # the sanitizers make -O2 builds slow
for stn in "$root"/tests/numeric/*.stn "$root"/examples/*/*.stn "$root"/bench/stencils/*.stn \
           "$root"/tests/diff/programs/*.stn; do
    [ -e "$stn" ] || continue
    n=$((n + 1))
    args=$(sed -n 's|^// ARGS: *||p' "$stn" | head -n 1)
    echo "$work/cases/fixed$n $stn $n $fixed_opt $args" | sed 's/ *$//' >>"$jobs"
done
want=${DIFF_PROGRAMS:-240}
seed=${DIFF_SEED:-1}
made=0; batch=0; inbatch=0
fallback=0; marked=0
# closes the open file of random programs as a job
flush() {
    [ "$inbatch" -gt 0 ] || return 0
    mv "$work/cases/open.stn" "$work/cases/random$batch.stn"
    echo "$work/cases/r$batch $work/cases/random$batch.stn $((1000 + batch)) ${DIFF_RANDOM_OPT:--O0}" >>"$jobs"
    batch=$((batch + 1)); inbatch=0
}
while [ $made -lt "$want" ]; do
    f=$work/cases/one.stn
    "$work/gen" ${DIFF_GEN_ARGS:-} $seed >"$f"
    if "$GTCC" --emit=ir -b openmp "$f" >"$work/cases/one.ir" 2>&1; then
        head -n 1 "$f" | grep -q ', fallback' && marked=$((marked + 1))
        grep -q 'plan: not fused' "$work/cases/one.ir" && fallback=$((fallback + 1))
        cat "$f" >>"$work/cases/open.stn"
        made=$((made + 1)); inbatch=$((inbatch + 1))
        [ "$inbatch" -eq 30 ] && flush
    fi
    seed=$((seed + 1))
done
flush

xargs -L 1 -P "${JOBS:-2}" "$here/run.sh" --one <"$jobs" >"$work/results" 2>&1

# The emulator must expose a missing barrier: the cuda output of
# tests/diff/programs/reductions.stn without the __syncthreads that follows
# each block's store of its partial results (the tree then reads partials
# not written yet, in the emulator's shuffled order) must differ from the
# naive results.
# simt_so SRC.cu OUT.so: an edited cuda output built for the emulator
simt_so() {
    $CXX_SIMT $SIMTFLAGS -I"$d" -shared -o "$2" "$1" "$root/tests/simt/simt.cc" \
        -x none "$d/wrap_cuda.o" >"$d/log" 2>&1
}
if [ -n "$CXX_SIMT" ] && [ -z "${DIFF_GPU:-}" ]; then
    d=$work/cases/nosync
    "$here/run.sh" --one "$d" "$here/programs/reductions.stn" 7 -O1 >/dev/null 2>&1
    if [ -e "$d/cuda.cu" ]; then
        awk '/__syncthreads\(\);/ && !dropped { dropped = 1; next } { print }' "$d/cuda.cu" \
            >"$d/nosync.cu"
        if cmp -s "$d/cuda.cu" "$d/nosync.cu"; then
            echo "FAIL nosync: no __syncthreads in the cuda output of reductions.stn" >>"$work/results"
        elif simt_so "$d/nosync.cu" "$d/nosync.so" &&
             ! "$work/driver" "$d/naive.so" "$d/nosync.so" 7 device >"$d/out_nosync" 2>&1 &&
             grep -q 'shared memory race' "$d/out_nosync"; then
            echo "PASS nosync: the emulator reports the race a missing __syncthreads leaves" >>"$work/results"
        else
            echo "FAIL nosync: the emulator did not expose a missing __syncthreads" >>"$work/results"
        fi
    else
        echo "FAIL nosync: reductions.stn did not build" >>"$work/results"
    fi
    # and an access outside the device's memory is stopped by the emulator
    if [ -e "$d/cuda.cu" ]; then
        sed '0,/GT_LD(\([a-z_0-9]*\), /s//GT_LD(\1, 100000000 + /' "$d/cuda.cu" >"$d/oob.cu"
        if simt_so "$d/oob.cu" "$d/oob.so" &&
           ! "$work/driver" "$d/naive.so" "$d/oob.so" 7 device >"$d/out_oob" 2>&1 &&
           grep -q 'outside every device allocation' "$d/out_oob"; then
            echo "PASS oob: the emulator stops a load outside every device allocation" >>"$work/results"
        else
            echo "FAIL oob: the emulator did not stop an out-of-bounds load" >>"$work/results"
        fi
    fi
fi
# every variant of the cuda kernels ran somewhere: the kernels for storages
# that agree by stride set (gt_sN), gt_kN with 32-bit and 64-bit indices, and
# gt_aN for in-place calls (the driver's in-place case)
if [ -n "$CXX_SIMT" ] && [ -z "${DIFF_GPU:-}" ]; then
    awk '/^VARIANTS / { s += $2; a += $3; b += $4; p += $5 }
         END { r = (s > 0 && a > 0 && b > 0 && p > 0) ? "PASS" : "FAIL"
               printf "%s variants: cuda launches of gt_sN %d, gt_kN<int32_t> %d, gt_kN<int64_t> %d, gt_aN (in place) %d\n", r, s, a, b, p }' \
        "$work/results" >>"$work/results.v"
    grep -v '^VARIANTS ' "$work/results" >>"$work/results.v"
    mv "$work/results.v" "$work/results"
    # and device-only storages (gt_wrap_device, the driver's layout F) went through the
    # cuda builds' device binding
    n=$(grep -c '^PASS [^ ]*\[cuda\] F/device-only$' "$work/results")
    if [ "$n" -gt 0 ]; then
        echo "PASS device-only: $n cuda cases ran on gt_wrap_device storages" >>"$work/results"
    else
        echo "FAIL device-only: no cuda case ran on gt_wrap_device storages" >>"$work/results"
    fi
fi
grep -v '^PASS ' "$work/results" | head -n 60
grep '^PASS variants: ' "$work/results"
grep '^PASS device-only: ' "$work/results"
passed=$(grep -c '^PASS ' "$work/results")
failed=$(grep -c '^FAIL ' "$work/results")
echo "diff: $fallback of the $made random programs took the openmp backend's naive fallback" \
     "($marked were made to)"
if [ "$fallback" -eq 0 ]; then
    echo "FAIL fallback: no random program took the naive fallback (gen.c no longer makes" \
         "an if that fuse.c cannot plan?)"
    failed=$((failed + 1))
fi
echo "diff: $passed passed, $failed failed ($made random programs, $fallback of them fall back)"
[ -n "${RESULTS:-}" ] && echo "$passed $failed" >"$RESULTS/diff"
[ "$failed" -eq 0 ]
