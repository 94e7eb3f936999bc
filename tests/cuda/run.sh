#!/bin/sh
# tests/cuda/run.sh: the cuda backend's output compiles with nvcc, `make cuda`.
#
# Every test, example and bench program (the golden error tests aside) and
# $CUDA_PROGRAMS (default 210) random programs of tests/diff/gen.c, 30 to a
# file, are compiled by gtcc -b cuda and then by nvcc for sm_80 (A100) and
# sm_90 (H100) (a file of random programs for one of the two, in turn: each takes
# nvcc about 80 s an architecture; they go first, so that the two workers end
# together) with every warning an error (nvcc's and the host compiler's -Wall
# -Wextra), <gt/gt_mpi.h> included first where mpicc is found (the header's
# distributed entries). Where nvcc is not found (on PATH
# or in /usr/local/cuda/bin) the group is skipped with a message. The numbers
# of the same output are checked by the differential test (tests/diff), which
# builds it for the CPU against the SIMT emulator of tests/simt. Then the
# ptxas resources of the bench stencils' kernels (tests/cuda/resources.sh) and the
# SASS report of theirs and the examples' (tools/cuda_report.sh --check
# tests/cuda/sass.expected; skipped with a SKIP line where cuobjdump cannot be
# installed from PyPI). Last,
# examples/hdiff is built with BACKEND=cuda (nvcc, pkg-config gtrt-cuda) and
# run: on a GPU it must work, without one it must fail cleanly (GT_EDEVICE
# naming the CUDA runtime's error). And bench/bench_gpu.sh --build-only: the
# program of `make bench-gpu` builds; tests/gpu/check_pack.c (check-gpu's test of
# the MPI exchange's pack kernel) links against libgtrt-cuda.a with cc, and its
# -DPACK_FAKE build passes on the fake device.
# A program with a `// INSTANCES: OPTS | OPTS` line (tests/numeric/run.sh) is
# compiled once per OPTS (-D and -P, language.md section 10.6), and the objects
# must link together (ld -r) and export only names with their -P prefix.
# Prints "cuda: N passed, N failed" (one case = one .stn file) and writes
# "PASSED FAILED" to $RESULTS/cuda.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
GTCC=${GTCC:-$BUILD/bin/gtcc}
work=$BUILD/cuda
NVCC=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; } || true)
result() { [ -n "${RESULTS:-}" ] && echo "$1 $2" >"$RESULTS/cuda"; }
if [ -z "$NVCC" ]; then
    echo "cuda: nvcc not found (PATH, /usr/local/cuda/bin): the nvcc builds are skipped"
    echo "cuda: 0 passed, 0 failed (skipped)"
    result 0 0
    exit 0
fi
NVFLAGS="-c -std=c++17 -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror"
SM80="-gencode arch=compute_80,code=sm_80" SM90="-gencode arch=compute_90,code=sm_90"
# where Open MPI's mpicc is found, <gt/gt_mpi.h> comes first in every build (-include), so
# that the header's distributed entries (S_mpi, static inline) compile under nvcc too
MPICC=$(command -v mpicc || true)
[ -n "$MPICC" ] &&
    NVFLAGS="$NVFLAGS -DOMPI_SKIP_MPICXX -include gt/gt_mpi.h $("$MPICC" --showme:incdirs | sed 's/[^ ][^ ]*/-I&/g')"

# --- worker: run.sh --one STN DIR [GTCC ARGS...] ------------------------------------
if [ "${1:-}" = "--one" ]; then
    stn=$2; dir=$3; shift 3
    name=$(basename "$stn" .stn)
    mkdir -p "$dir"
    if ! (cd "$(dirname "$stn")" && "$GTCC" -b cuda "$@" -o "$dir/$name.cu" "$(basename "$stn")") \
            >"$dir/log" 2>&1; then
        echo "FAIL $stn: gtcc -b cuda"; sed 's/^/  | /' "$dir/log" | head -n 10; exit 0
    fi
    arch="$SM80 $SM90"
    case $stn in    # the random files (below), and only they, are $work/randomN.stn
        "$work"/random*) arch=$SM90; [ $((${name#random} % 2)) = 1 ] && arch=$SM80 ;;
    esac
    if ! "$NVCC" $NVFLAGS $arch -I"$root/runtime/include" -I"$dir" -o "$dir/$name.o" "$dir/$name.cu" \
            >"$dir/log" 2>&1; then
        echo "FAIL $stn: nvcc"; sed 's/^/  | /' "$dir/log" | head -n 20; exit 0
    fi
    echo "PASS $stn"
    exit 0
fi

rm -rf "$work"; mkdir -p "$work"
jobs=$work/jobs; : >"$jobs"
n=0
for stn in "$root"/tests/numeric/*.stn "$root"/tests/diff/programs/*.stn "$root"/examples/*/*.stn \
           "$root"/bench/stencils/*.stn "$root"/tests/golden/ir/*.stn "$root"/tests/golden/emit/*.stn; do
    n=$((n + 1))
    args=$(sed -n 's|^// ARGS: *||p' "$stn" | head -n 1 | sed 's/-b *[a-z]*//')
    instances=$(sed -n 's|^// INSTANCES: *||p' "$stn" | head -n 1)
    if [ -z "$instances" ]; then
        echo "$stn $work/p$n $args" | sed 's/ *$//' >>"$jobs"
        continue
    fi
    m=0
    while [ -n "$instances" ]; do
        m=$((m + 1))
        echo "$stn $work/p${n}_i$m $args ${instances%%|*}" | sed 's/ *$//' >>"$jobs"
        case $instances in *"|"*) instances=${instances#*|} ;; *) instances="" ;; esac
    done
    echo "$stn $work/p$n" >>"$work/instances"
done
cc -std=c11 -O1 -D_POSIX_C_SOURCE=200809L -o "$work/gen" "$root/tests/diff/gen.c" || exit 1
want=${CUDA_PROGRAMS:-210}; made=0; seed=${CUDA_SEED:-5001}; batch=0; inbatch=0
: >"$work/jobs.random"
while [ $made -lt "$want" ]; do
    "$work/gen" $seed >"$work/one.stn"
    if "$GTCC" --emit=ir -b cuda "$work/one.stn" >/dev/null 2>&1; then
        cat "$work/one.stn" >>"$work/random$batch.stn"
        made=$((made + 1)); inbatch=$((inbatch + 1))
        if [ $inbatch -eq 30 ] || [ $made -eq "$want" ]; then
            echo "$work/random$batch.stn $work/r$batch" >>"$work/jobs.random"
            batch=$((batch + 1)); inbatch=0
        fi
    fi
    seed=$((seed + 1))
done
cat "$work/jobs.random" "$jobs" |
    xargs -L 1 -P "${JOBS:-2}" "$here/run.sh" --one >"$work/results" 2>&1
# the instances of one file link into one program: no name defined twice, and
# every name they define (but C++'s weak ones) starts with that instance's -P prefix
[ -e "$work/instances" ] && while read -r stn dir; do
    objs=$(ls "$dir"_i*/*.o 2>/dev/null)
    bad=""
    for o in $objs; do
        prefix=$(sed -n 's|^// INSTANCES: *||p' "$stn" | head -n 1 | tr '|' '\n' |
                 sed -n "$(basename "$(dirname "$o")" | sed 's/.*_i//')p" | sed -n 's/.*-P *\([A-Za-z0-9_]*\).*/\1/p')
        bad="$bad$(nm -g --defined-only "$o" | awk -v p="$prefix" '$2 ~ /^[TDRB]$/ && index($3, p) != 1 { printf " %s", $3 }')"
    done
    if [ -z "$objs" ] || ! ld -r -o "$dir.linked.o" $objs >"$dir.ld.log" 2>&1; then
        echo "FAIL $stn: its instances do not link together"; sed 's/^/  | /' "$dir.ld.log" | head -n 10
        echo "FAIL $stn (instances)" >>"$work/results"
    elif [ -n "$bad" ]; then
        echo "FAIL $stn (instances): names without the -P prefix:$bad" >>"$work/results"
    else
        echo "PASS $stn: $(echo $objs | wc -w) instances (-P) link into one program" >>"$work/results"
    fi
done <"$work/instances"

# examples/hdiff built with BACKEND=cuda against an installed gtcc and
# gtrt-cuda.pc, then run: with a GPU it must succeed; without one the CUDA
# runtime's error (35, 34 or 100 from cudaGetDeviceCount) must come back as
# a clear GT_EDEVICE message and exit status 1, not a crash or a hang.
prefix=$work/prefix
if ! make -C "$root" --no-print-directory -s install PREFIX="$prefix" BUILD="$BUILD" \
        >"$work/install.log" 2>&1; then
    echo "FAIL example: make install"; sed 's/^/  | /' "$work/install.log" | head -n 10
    echo "FAIL example" >>"$work/results"
elif ! make -C "$root/examples/hdiff" --no-print-directory BACKEND=cuda GTCC="$prefix/bin/gtcc" \
        PKG_CONFIG_PATH="$prefix/lib/pkgconfig" O="$work/hdiff" CFLAGS="-O2 -g ${SANFLAGS:-}" \
        >"$work/example.log" 2>&1; then
    echo "FAIL example: make BACKEND=cuda in examples/hdiff"
    sed 's/^/  | /' "$work/example.log" | tail -n 10
    echo "FAIL example" >>"$work/results"
else
    # (the example exits on the error without releasing its storages: no leak check)
    (cd "$work/hdiff" && ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" timeout 60 ./hdiff) \
        >"$work/run.log" 2>&1
    status=$?
    if [ $status -eq 0 ]; then
        echo "PASS example: hdiff ran on the GPU" >>"$work/results"
    elif [ $status -eq 1 ] && grep -q 'cudaGetDeviceCount: error' "$work/run.log"; then
        echo "PASS example: without a GPU: $(head -n 1 "$work/run.log")" >>"$work/results"
    else
        echo "FAIL example: hdiff (cuda) exit status $status"; sed 's/^/  | /' "$work/run.log" | head
        echo "FAIL example" >>"$work/results"
    fi
fi
# make bench-gpu's program builds (it runs only where there is a GPU)
if BUILD="$BUILD" GTCC="$GTCC" NVCC="$NVCC" "$root/bench/bench_gpu.sh" --build-only \
        >"$work/bench_gpu.log" 2>&1; then
    echo "PASS bench-gpu: bench/gpu_bench.c builds with the cuda output" >>"$work/results"
else
    echo "FAIL bench-gpu: bench/bench_gpu.sh --build-only"; sed 's/^/  | /' "$work/bench_gpu.log" | tail -n 10
    echo "FAIL bench-gpu" >>"$work/results"
fi
# make check-gpu's test of the CUDA layer's pack and unpack (the MPI exchange's kernel,
# runtime/src/cuda/pack.cu) links against libgtrt-cuda.a with cc alone (nothing of
# libstdc++), and its checks pass on the fake device of tests/mpi/strip_device.h
cuda_home=$(dirname "$(dirname "$NVCC")")
if cc -std=c11 -O2 -Wall -Wextra -Werror ${SANFLAGS:-} -D_POSIX_C_SOURCE=200809L -I"$root/runtime/include" \
       -I"$root/runtime/src" -o "$work/check_pack" "$root/tests/gpu/check_pack.c" \
       "$BUILD/lib/libgtrt-cuda.a" "$BUILD/lib/libgtrt.a" -L"$cuda_home/lib64" \
       -Wl,-rpath,"$cuda_home/lib64" -lcudart -lm >"$work/pack.log" 2>&1 &&
   cc -std=c11 -O2 -Wall -Wextra -Werror ${SANFLAGS:-} -D_POSIX_C_SOURCE=200809L -DPACK_FAKE \
       -I"$root/runtime/include" -I"$root/runtime/src" -I"$root/tests/diff" -I"$root/tests/mpi" \
       -o "$work/check_pack_fake" "$root/tests/gpu/check_pack.c" "$BUILD/lib/libgtrt.a" -lm \
       >>"$work/pack.log" 2>&1 &&
   timeout 120 "$work/check_pack_fake" >>"$work/pack.log" 2>&1; then
    echo "PASS pack: tests/gpu/check_pack.c links against libgtrt-cuda.a with cc and passes on the fake device" >>"$work/results"
else
    echo "FAIL pack: tests/gpu/check_pack.c"; sed 's/^/  | /' "$work/pack.log" | tail -n 10
    echo "FAIL pack" >>"$work/results"
fi
# the bench stencils' kernels: registers, shared memory, occupancy on A100 and
# H100 as reviewed in tests/cuda/resources.expected, and no spills
NVCC="$NVCC" "$here/resources.sh" >>"$work/results" 2>&1
# the SASS report of the same kernels and the examples' (tools/cuda_report.sh, `make
# cuda-report`): its integer columns as reviewed in tests/cuda/sass.expected; SKIP where
# cuobjdump cannot be installed from PyPI
NVCC="$NVCC" "$root/tools/cuda_report.sh" --check "$here/sass.expected" >>"$work/results" 2>&1
grep -v '^PASS ' "$work/results" | head -n 60
passed=$(grep -c '^PASS ' "$work/results")
failed=$(grep -c '^FAIL ' "$work/results")
echo "cuda: $passed passed, $failed failed ($made random programs in $batch files; nvcc sm_80, sm_90)"
result "$passed" "$failed"
[ "$failed" -eq 0 ]
