#!/bin/sh
# tests/mpi/random.sh: random programs in distributed calls (part of `make mpi`, through
# tests/mpi/run.sh; alone for a longer hunt).
#
# Makes $MPI_PROGRAMS (default 20) random well-formed programs with tests/diff/gen.c from
# seeds $MPI_SEED.. (default 500001: seeds the differential test does not use; a program
# gtcc rejects is replaced by the next seed), 10 to a file, takes the files of $MPI_FILES
# as they are (default: tests/diff/programs/fv3.stn, FV3's patterns, regions on the
# domain's edges and in its halo among them; inout.stn, levels.stn, functions.stn and
# readnext.stn, fields read beyond the point around their writes; keepnext.stn, steps
# that keep or read next's values from before them; lowdim.stn, outputs
# lacking I or J updated from what they read; tests/numeric/steps.stn,
# every boundary kind with iterate), and builds each file by the
# naive and the openmp backend (-O0) and, where a C++ compiler is found, by the cuda
# backend for the CPU against the SIMT emulator of tests/simt, each with the call shims
# of `gen --wrap`. check_mpi_random.c then runs every stencil on 2, 3 and 4 processes
# (mpirun, oversubscribed): one process's naive call against gt_mpi_call of each build,
# blocking and overlapped, bit for bit (see that file).
# Prints the PASS/FAIL lines, then "mpi-random: N passed, N failed"; exits 1 on a failure.
#
# Environment: BUILD, GTCC, CC, SANFLAGS, MPICC, MPIRUN (as tests/mpi/run.sh passes them),
# MPI_PROGRAMS, MPI_SEED, MPI_NP (default "2 3 4"), MPI_FILES, and MPI_GEN_ARGS (--fuzz:
# gen's programs with more of the language, int, float and bool fields among them).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
GTCC=${GTCC:-$BUILD/bin/gtcc}
CC=${CC:-cc}
SANFLAGS=${SANFLAGS:-}
MPICC=${MPICC:-$(command -v mpicc || echo mpicc)}
MPIRUN=${MPIRUN:-$(command -v mpirun || echo mpirun)}
work=$BUILD/mpi/random
rm -rf "$work"; mkdir -p "$work"
omplib=$(ls /usr/lib/llvm-*/lib/libomp.so /usr/lib/x86_64-linux-gnu/libomp.so 2>/dev/null | tail -n 1)
OMPLIBS="-fopenmp"
[ -n "$omplib" ] && OMPLIBS="-L$(dirname "$omplib") -Wl,-rpath,$(dirname "$omplib") -lomp"
CXX_SIMT=$(command -v g++ || command -v clang++ || true)
# as tests/diff/run.sh builds them
CFLAGS="-std=c11 -O0 -frounding-math -Wall -Wextra -Werror -Wno-unused-parameter -fPIC $SANFLAGS -I$root/runtime/include -I$root/tests/diff"
SIMTFLAGS="-x c++ -std=c++17 -O1 -fPIC -ffp-contract=off -frounding-math -DGT_SIMT -I$root/tests/simt -I$root/runtime/include"
fail_build() {
    echo "FAIL mpi-random: $1"; sed 's/^/  | /' "$work/log" | head -n 20
    echo "mpi-random: 0 passed, 1 failed"; exit 1
}
$CC -std=c11 -O1 -D_POSIX_C_SOURCE=200809L -o "$work/gen" "$root/tests/diff/gen.c" \
    >"$work/log" 2>&1 || fail_build "gen.c does not build"
$CC -std=c11 -O1 -g -Wall -Wextra -Werror $SANFLAGS -D_POSIX_C_SOURCE=200809L \
    $("$MPICC" --showme:compile) -I"$root/runtime/include" -I"$root/runtime/src" \
    -I"$root/tests/diff" -I"$here" -o "$work/check_mpi_random" "$here/check_mpi_random.c" \
    -rdynamic -Wl,--whole-archive "$BUILD/lib/libgtrt-mpi.a" "$BUILD/lib/libgtrt.a" \
    -Wl,--no-whole-archive $("$MPICC" --showme:link) -ldl -lm >"$work/log" 2>&1 ||
    fail_build "check_mpi_random.c does not build"
[ -n "$CXX_SIMT" ] && { $CXX_SIMT $SIMTFLAGS -c -o "$work/simt.o" "$root/tests/simt/simt.cc" \
    >"$work/log" 2>&1 || fail_build "the SIMT emulator does not build"; }

want=${MPI_PROGRAMS:-20}
seed=${MPI_SEED:-500001}
made=0; batch=0; inbatch=0
flush() {
    [ "$inbatch" -gt 0 ] || return 0
    mv "$work/open.stn" "$work/random$batch.stn"
    batch=$((batch + 1)); inbatch=0
}
while [ $made -lt "$want" ]; do
    "$work/gen" ${MPI_GEN_ARGS:-} $seed >"$work/one.stn"
    if "$GTCC" --emit=ir -b openmp "$work/one.stn" >/dev/null 2>&1; then
        cat "$work/one.stn" >>"$work/open.stn"
        made=$((made + 1)); inbatch=$((inbatch + 1))
        [ "$inbatch" -eq 10 ] && flush
    fi
    seed=$((seed + 1))
done
flush
# the fixed programs: copied in as files of their own (their relative imports with them)
p=$root/tests/diff/programs
for stn in ${MPI_FILES-$p/fv3.stn $p/inout.stn $p/levels.stn $p/functions.stn $p/readnext.stn $p/keepnext.stn $p/lowdim.stn $root/tests/numeric/steps.stn}; do
    cp "$stn" "$work/random$batch.stn" || continue
    batch=$((batch + 1))
done

export OMP_NUM_THREADS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
: >"$work/results"
b=0
while [ $b -lt $batch ]; do
    d=$work/r$b; mkdir -p "$d"
    stn=$work/random$b.stn
    built=yes
    for be in naive openmp; do
        { "$GTCC" -b $be -o "$d/$be.c" "$stn" &&
          "$work/gen" --wrap "$d/$be.h" >"$d/wrap_$be.c" &&
          $CC $CFLAGS $( [ $be = openmp ] && echo -fopenmp) -I"$d" -shared -o "$d/$be.so" \
              "$d/$be.c" "$d/wrap_$be.c" $( [ $be = openmp ] && echo "$OMPLIBS"); } \
            >"$d/log" 2>&1 ||
            { echo "FAIL random$b.stn: the $be build"; sed 's/^/  | /' "$d/log" | head; built=; }
    done >>"$work/results"
    others=openmp
    if [ -n "$CXX_SIMT" ] && [ -n "$built" ]; then
        if { "$GTCC" -b cuda -o "$d/cuda.cu" "$stn" &&
             "$work/gen" --wrap "$d/cuda.h" >"$d/wrap_cuda.c" &&
             $CC -std=c11 -O1 -fPIC -c -I"$root/runtime/include" -I"$root/tests/diff" -I"$d" \
                 -o "$d/wrap_cuda.o" "$d/wrap_cuda.c" &&
             $CXX_SIMT $SIMTFLAGS -Wall -Wextra -Werror -Wno-unused-parameter \
                 -Wno-unused-function -I"$d" -shared -o "$d/cuda.so" "$d/cuda.cu" -x none \
                 "$work/simt.o" "$d/wrap_cuda.o"; } >"$d/log" 2>&1; then
            others="openmp cuda"
        else
            echo "FAIL random$b.stn: the cuda build"; sed 's/^/  | /' "$d/log" | head
        fi >>"$work/results"
    fi
    if [ -n "$built" ]; then
        for np in ${MPI_NP:-2 3 4}; do
            for o in $others; do
                dev=; [ $o = cuda ] && dev=device
                log=$d/$o.np$np.log
                timeout 300 "$MPIRUN" --oversubscribe -np $np "$work/check_mpi_random" \
                    "$d/naive.so" "$d/$o.so" $((b + 1)) $dev >"$log" 2>&1
                status=$?
                sed -n "s/^\(PASS\|FAIL\) /\1 random$b.stn: /p" "$log" >>"$work/results"
                if [ $status -ne 0 ] && ! grep -q '^FAIL ' "$log"; then
                    echo "FAIL random$b.stn, $o, mpirun -np $np: exit status $status$( [ $status -eq 124 ] && echo ' (timed out)')" >>"$work/results"
                    sed 's/^/  | /' "$log" | tail -n 15 >>"$work/results"
                fi
            done
        done
    fi
    b=$((b + 1))
done
cat "$work/results"
passed=$(grep -c '^PASS ' "$work/results")
failed=$(grep -c '^FAIL ' "$work/results")
echo "mpi-random: $passed passed, $failed failed ($made random programs, seeds from ${MPI_SEED:-500001})"
[ "$failed" -eq 0 ]
