#!/bin/sh
# tests/fuzz/emit.sh: structure-aware fuzzing of the emitters (`make fuzz`),
# and the `gencc` test group of `make check`.
#
# Mutated inputs (tests/fuzz/run.sh) rarely pass the semantic checks, so they
# barely reach the back end. Here every input is a well-formed program: the
# random program generator of the differential test (tests/diff/gen.c, in its
# --fuzz mode: int, float and bool fields, scalars and outputs, comparisons,
# builtins, mixed types, scalars never read), and one program in four has its
# names replaced by names that C, the preprocessor, the C library, <omp.h>,
# CUDA or the generated code claim (`defined`, `__x`, `omp_in`, `n`, `bound`,
# `column_sum`, `in0_p`, ...). Programs are compiled 30 to a file by
#   gtcc -b naive, gtcc -b openmp, gtcc -b cuda
# and each run must exit 0 (or 1 with an error message: a hostile name gtcc
# refuses), never with a signal or a sanitizer report; then each C output is
# compiled (-c) by gcc and clang with
#   -std=c11 -Wall -Wextra -Wpedantic -Werror -fopenmp -O0
# and the cuda output by g++ (or clang++) for the SIMT emulator (tests/simt)
# with -Wall -Wextra -Werror, as the differential test builds it. A compiler
# that is not installed is skipped with a line saying so. A file that fails
# is split: each of its programs is tried alone, and each failing program is
# kept in $work/failures/ (with the compiler's messages) to reproduce it.
# Files are independent (file F holds seeds FIRST + 30 F to FIRST + 30 F + 29)
# and run $JOBS at a time (default 2), each by this script as a worker
# (emit.sh --file WORK F SEED), which writes its counts to WORK/fF.sum.
#
#   emit.sh [--check]
# Environment: GTCC, BUILD, RESULTS, CC, JOBS (as the Makefile passes them);
#   FUZZ_SECONDS  run for this many seconds (make fuzz; default 600)
#   FUZZ_PROGRAMS or stop after this many programs (--check: default 300)
#   FUZZ_SEED     the first seed (default: from the clock; --check: 1)
# gtcc is copied first, so that a rebuild during a long run does not change it.
# Prints "fuzz: N programs (S s), M compiles, K failed" (with --check:
# "gencc: N passed, K failed", one case = one file, one backend, one compiler,
# and "PASSED FAILED" in $RESULTS/gencc) and the seeds of the failing programs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
GTCC=${GTCC:-$BUILD/bin/gtcc}
CC=${CC:-cc}
check=0 worker=0
[ "${1:-}" = "--check" ] && check=1
[ "${1:-}" = "--file" ] && worker=1
if [ $worker = 1 ]; then
    work=$2
elif [ $check = 1 ]; then
    name=gencc; work=$BUILD/gencc
    programs=${FUZZ_PROGRAMS:-300}; seconds=${FUZZ_SECONDS:-0}; seed=${FUZZ_SEED:-1}
else
    name=fuzz; work=$BUILD/fuzz-emit
    programs=${FUZZ_PROGRAMS:-0}; seconds=${FUZZ_SECONDS:-600}
    seed=${FUZZ_SEED:-$(( $(date +%s) % 1000000 * 1000 ))}
fi
CFLAGS="-std=c11 -Wall -Wextra -Wpedantic -Werror -fopenmp -O0 -I$root/runtime/include"
CXXFLAGS="-x c++ -std=c++17 -O0 -ffp-contract=off -Wall -Wextra -Werror -Wno-unused-parameter
    -Wno-unused-function -DGT_SIMT -I$root/tests/simt -I$root/runtime/include"

if [ $worker = 0 ]; then
    rm -rf "$work"; mkdir -p "$work/failures" || exit 1
    $CC -std=c11 -O1 -D_POSIX_C_SOURCE=200809L -o "$work/gen" "$root/tests/diff/gen.c" || exit 1
    cp "$GTCC" "$work/gtcc" || exit 1
fi
GTCC=$work/gtcc
compilers=""
for cc in gcc clang; do
    if command -v $cc >/dev/null 2>&1; then compilers="$compilers $cc"
    elif [ $worker = 0 ]; then echo "$name: SKIP $cc: not installed"; fi
done
CXX_SIMT=$(command -v g++ || command -v clang++ || true)
[ -n "$CXX_SIMT" ] || [ $worker = 1 ] ||
    echo "$name: SKIP the cuda output: no C++ compiler (g++, clang++)"

# Names to give a program's fields, scalars and temporaries in place of its own.
hostile="defined __x __STDC_X _Bool omp_in omp_out omp_priv omp_get_thread_num kmp_x
    EXIT_SUCCESS RAND_MAX NAN INFINITY errno assert main restrict register bool_ int32_t
    threadIdx blockIdx dim3 n ni nj nk i_ j_ k_ kk domain args bound rc read_at_offset
    column_sum column_min mask mask_p in0_p in0_s out0_r tile nth part done gt sinf fmodl
    sqrt_ u__x t_info x_fields"

passed=0; failed=0; made=0; compiles=0; files=0; refused=0

# gtcc_ok STATUS ERRFILE: gtcc exited acceptably (0, or 1 with an error message)
gtcc_ok() {
    if grep -q -E 'Sanitizer|runtime error:' "$2"; then return 1; fi
    [ "$1" -eq 0 ] && return 0
    [ "$1" -eq 1 ] && grep -q 'error:' "$2" && return 0
    return 1
}

# build DIR STN: every backend and compiler on one file; prints one line per
# case "PASS|FAIL what" and returns 1 if any failed
build() {
    bd=$1; bstn=$2; bad=0
    for be in naive openmp cuda; do
        suf=c; [ $be = cuda ] && suf=cu
        "$GTCC" -b $be -o "$bd/$be.$suf" "$bstn" >"$bd/$be.gtcc" 2>&1
        bst=$?
        if ! gtcc_ok $bst "$bd/$be.gtcc"; then
            echo "FAIL gtcc -b $be: exit status $bst"; bad=1; continue
        fi
        [ $bst -eq 0 ] || continue
        if [ $be = cuda ]; then
            [ -n "$CXX_SIMT" ] || continue
            # shellcheck disable=SC2086
            if $CXX_SIMT $CXXFLAGS -I"$bd" -c "$bd/cuda.cu" -o "$bd/cuda.o" >"$bd/cuda.log" 2>&1
            then echo "PASS cuda [$CXX_SIMT]"; else echo "FAIL cuda [$CXX_SIMT]"; bad=1; fi
            continue
        fi
        for cc in $compilers; do
            # shellcheck disable=SC2086
            if $cc $CFLAGS -I"$bd" -c "$bd/$be.c" -o "$bd/$be.$cc.o" >"$bd/$be.$cc.log" 2>&1
            then echo "PASS $be [$cc]"; else echo "FAIL $be [$cc]"; bad=1; fi
        done
    done
    return $bad
}

# one program, renamed one time in four
make_program() {
    "$work/gen" --fuzz "$1" >"$2"
    [ $(($1 % 4)) -eq 3 ] || return 0
    set -- "$1" "$2" $(printf '%s\n' $hostile | awk -v s="$1" 'BEGIN { srand(s) }
        { print rand() "\t" $0 }' | sort | cut -f 2 | head -n 12)
    seedn=$1; file=$2; shift 2
    sedargs=""
    for old in in0 in1 in2 alpha out1 t0 t1 t2 n flag mi oi; do
        [ $# -gt 0 ] || break
        sedargs="$sedargs -e s/\\b$old\\b/$1/g"; shift
    done
    # shellcheck disable=SC2086
    sed -E $sedargs "$file" >"$file.tmp" && mv "$file.tmp" "$file"
    : "$seedn"
}

# --- worker: emit.sh --file WORK F SEED: file F, seeds SEED to SEED + 29 ----------
# writes "MADE REFUSED PASSED FAILED COMPILES" to WORK/fF.sum and the failing seeds'
# lines to WORK/fF.log
if [ $worker = 1 ]; then
    files=$3; seed=$4
    log=$work/f$files.log
    : >"$log"
    d=$work/f$files
    rm -rf "$d"; mkdir -p "$d"
    : >"$d/all.stn"
    first=$seed
    for _ in $(seq 30); do
        make_program $seed "$d/one.stn"
        # The generator's programs are not all well-formed (a temporary read
        # at an offset inside the if that writes it), and a renamed one may
        # be refused: each alone first (a refused stencil takes its file).
        "$GTCC" --emit=ir "$d/one.stn" >/dev/null 2>"$d/one.log"
        st=$?
        if ! gtcc_ok $st "$d/one.log"; then
            echo "seed $seed: FAIL gtcc --emit=ir: exit status $st" >>"$log"
            mkdir -p "$work/failures/seed$seed"
            cp "$d/one.stn" "$d/one.log" "$work/failures/seed$seed/"
            failed=$((failed + 1))
        fi
        if [ $st -ne 0 ]; then
            seed=$((seed + 1)); made=$((made + 1)); refused=$((refused + 1)); continue
        fi
        cat "$d/one.stn" >>"$d/all.stn"
        seed=$((seed + 1)); made=$((made + 1))
    done
    build "$d" "$d/all.stn" >"$d/result"
    bst=$?
    passed=$((passed + $(grep -c '^PASS' "$d/result")))
    compiles=$((compiles + $(grep -c -E '^(PASS|FAIL) [a-z]+ \[' "$d/result")))
    if [ $bst -ne 0 ]; then
        failed=$((failed + $(grep -c '^FAIL' "$d/result")))
        s=$first
        while [ $s -lt $seed ]; do
            o=$d/s$s
            mkdir -p "$o"
            make_program $s "$o/p.stn"
            if ! "$GTCC" --emit=ir "$o/p.stn" >/dev/null 2>&1; then
                s=$((s + 1)); continue   # refused: left out of the file
            fi
            if ! build "$o" "$o/p.stn" >"$o/result"; then
                echo "seed $s: $(grep '^FAIL' "$o/result" | tr '\n' ' ')" >>"$log"
                cp -r "$o" "$work/failures/seed$s"
            fi
            s=$((s + 1))
        done
    fi
    rm -rf "$d"
    echo "$made $refused $passed $failed $compiles" >"$work/f$files.sum"
    exit 0
fi

# --- driver: $JOBS files at a time, until the programs or the seconds are done -------
jobs=${JOBS:-2}
start=$(date +%s)
log=$work/log
: >"$log"
while :; do
    [ "$programs" -gt 0 ] && [ $made -ge "$programs" ] && break
    [ "$seconds" -gt 0 ] && [ $(($(date +%s) - start)) -ge "$seconds" ] && break
    # a batch of $jobs files, fewer where the programs left need fewer
    n=$jobs
    if [ "$programs" -gt 0 ]; then
        left=$(( (programs - made + 29) / 30 ))
        [ $left -lt $n ] && n=$left
    fi
    : >"$work/batch"
    for f in $(seq $files $((files + n - 1))); do
        echo "$work $f $((seed + 30 * (f - files)))" >>"$work/batch"
    done
    xargs -L 1 -P "$jobs" sh "$here/emit.sh" --file <"$work/batch"
    for f in $(seq $files $((files + n - 1))); do
        if [ -r "$work/f$f.sum" ]; then
            read -r m r p x c <"$work/f$f.sum"
        else
            m=30 r=0 p=0 x=1 c=0   # the worker died before its counts
            echo "file $f: the worker wrote no counts" >>"$work/f$f.log"
        fi
        made=$((made + m)); refused=$((refused + r)); passed=$((passed + p))
        failed=$((failed + x)); compiles=$((compiles + c))
        tee -a "$log" <"$work/f$f.log"
        rm -f "$work/f$f.sum" "$work/f$f.log"
    done
    seed=$((seed + 30 * n)); files=$((files + n))
done
elapsed=$(($(date +%s) - start))
if [ $check = 1 ]; then
    echo "$name: $made programs in $files files ($refused refused by gtcc)," \
         "$elapsed s"
    echo "$name: $passed passed, $failed failed"
    [ -n "${RESULTS:-}" ] && echo "$passed $failed" >"$RESULTS/$name"
else
    echo "$name: $made programs in $files files ($elapsed s; $refused refused" \
         "by gtcc), $compiles compiles, $failed failed; failing seeds: $(wc -l <"$log")" \
         "(in $work/failures)"
fi
[ "$failed" -eq 0 ]
