#!/bin/sh
# tests/mpi/run.sh: libgtrt-mpi under mpirun, `make mpi`.
#
# Builds tests/mpi/check_mpi.c (decompositions, halo exchanges, errors) and
# tests/mpi/check_mpi_misuse.c (every refusal of every collective function: bad arguments,
# arguments that differ between ranks, out of memory on one rank; nothing written; each case
# under a watchdog, a hang being a failure of that case, the run then going on after it),
# tests/mpi/check_mpi_stencil.c (distributed calls of hdiff, jacobi3d and tridiagonal, gtcc -b openmp,
# of tests/mpi/edges.stn (every boundary kind, index(), out scalars) from the openmp, naive and
# cuda backends (cuda on the SIMT emulator; naive and cuda built with -P naive_, -P cuda_),
# of tests/mpi/regions.stn (regions on the global
# edges and in the global halo, the same three backends), of 25 steps of examples/heat2d's stencil, blocking
# and overlapped, gathered and compared bit for bit with one process; gt_mpi_call's errors;
# the generated entries S_mpi and gt_mpi_halo, with tests/mpi/entries.stn),
# tests/mpi/check_mpi_device.c (storages whose device side is newer: halo strips packed on
# the device, only they cross the bus, bitwise the host path's results),
# tests/mpi/check_mpi_klevels.c (run-time K levels of tests/mpi/klevels.stn in distributed
# calls, the same three backends: levels checked before any rank writes, and levels read as
# computed put back on every rank when one rank's read runs off its column),
# tests/mpi/check_mpi_steps.c (gt_mpi_steps through S_steps_mpi of tests/mpi/steps.stn
# against one process's S_steps, bit for bit; its refusals agreed on every rank),
# tests/mpi/check_mpi_finalized.c (every collective function after MPI_Finalize: GT_EMPI,
# nothing written, no abort) against
# libgtrt-mpi and runs each with mpirun on 1, 2, 3 and 4 processes (oversubscribed on small machines; as root with Open MPI's
# allow-run-as-root settings), each run under a time limit so that a hang fails instead
# of stopping the check. Two cases check the layers: libgtrt defines nothing of the MPI
# layer (gt__where*, gt__reduction*, gt__mpi*) and its messages name no rank nor
# gt_mpi_call. A case is one line PASS/FAIL of one run (the program reports a
# case as failed when it failed on any rank). Then make install with a PREFIX that is not
# absolute, empty or with a blank must be refused, installing nothing; examples/heat2d_mpi, built through
# its own Makefile against an installed gtcc, on 1, 3 and 4 ranks must write the picture
# of examples/heat2d (one process, a periodic boundary), its stencil built with OpenMP, and
# on 2 ranks with only the installed pkg-config files on pkg-config's path. Last, tests/mpi/random.sh: random
# programs of tests/diff/gen.c from the naive, openmp and cuda backends through gt_mpi_call
# and gt_mpi_steps against one process, on 2, 3 and 4 processes. Skipped with a message where mpicc or
# mpirun is missing. Prints "mpi: N passed, N failed" and writes "PASSED FAILED" to
# $RESULTS/mpi.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
CC=${CC:-cc}
SANFLAGS=${SANFLAGS:-}
work=$BUILD/mpi
result() { [ -n "${RESULTS:-}" ] && echo "$1 $2" >"$RESULTS/mpi"; }
MPICC=$(command -v mpicc || true)
MPIRUN=$(command -v mpirun || true)
if [ -z "$MPICC" ] || [ -z "$MPIRUN" ]; then
    echo "mpi: mpicc or mpirun not found (Debian: libopenmpi-dev, openmpi-bin): skipped"
    echo "mpi: 0 passed, 0 failed (skipped)"
    result 0 0
    exit 0
fi
rm -rf "$work"; mkdir -p "$work"
# libgtrt-mpi is built by `make all` where mpicc was found when make started; on a machine
# where tools/deps.sh has only just installed it, build it now
if [ ! -e "$BUILD/lib/libgtrt-mpi.a" ]; then
    make -C "$root" --no-print-directory -s BUILD="$BUILD" MPICC="$MPICC" \
        "$BUILD/lib/libgtrt-mpi.a" >"$work/build.log" 2>&1 ||
        { echo "FAIL mpi: libgtrt-mpi does not build"; sed 's/^/  | /' "$work/build.log" | tail;
          echo "mpi: 0 passed, 1 failed"; result 0 1; exit 0; }
fi
if ! $CC -std=c11 -O1 -g -Wall -Wextra -Werror $SANFLAGS -D_POSIX_C_SOURCE=200809L \
        $("$MPICC" --showme:compile) -I"$root/runtime/include" -o "$work/check_mpi" \
        "$here/check_mpi.c" "$BUILD/lib/libgtrt-mpi.a" "$BUILD/lib/libgtrt.a" \
        $("$MPICC" --showme:link) -lm >"$work/build.log" 2>&1; then
    echo "FAIL mpi: check_mpi.c does not build"; sed 's/^/  | /' "$work/build.log" | head -n 20
    echo "mpi: 0 passed, 1 failed"; result 0 1; exit 0
fi
GTCC=${GTCC:-$BUILD/bin/gtcc}
omplib=$(ls /usr/lib/llvm-*/lib/libomp.so /usr/lib/x86_64-linux-gnu/libomp.so 2>/dev/null | tail -n 1)
OMPLIBS="-fopenmp"
[ -n "$omplib" ] && OMPLIBS="-L$(dirname "$omplib") -Wl,-rpath,$(dirname "$omplib") -lomp"
progs=check_mpi
# the cuda backend's edges runs on the SIMT emulator of tests/simt (a C++ compiler; built
# without the sanitizers, as in the diff group: its fibers switch stacks under them)
CXX_SIMT=$(command -v g++ || command -v clang++ || echo g++)
if "$GTCC" -b openmp -o "$work/hdiff.c" "$root/bench/stencils/hdiff.stn" >"$work/build.log" 2>&1 &&
   "$GTCC" -b openmp -o "$work/jacobi3d.c" "$root/bench/stencils/jacobi3d.stn" >>"$work/build.log" 2>&1 &&
   "$GTCC" -b openmp -o "$work/tridiagonal.c" "$root/bench/stencils/tridiagonal.stn" >>"$work/build.log" 2>&1 &&
   "$GTCC" -b openmp -o "$work/edges.c" "$here/edges.stn" >>"$work/build.log" 2>&1 &&
   "$GTCC" -b openmp -o "$work/heat2d.c" "$root/examples/heat2d/heat2d.stn" >>"$work/build.log" 2>&1 &&
   "$GTCC" -b naive -P naive_ -o "$work/edges_naive.c" "$here/edges.stn" >>"$work/build.log" 2>&1 &&
   $CC -std=c11 -O2 -g -Wall -Wextra -Werror $SANFLAGS -I"$root/runtime/include" \
       -c -o "$work/edges_naive.o" "$work/edges_naive.c" >>"$work/build.log" 2>&1 &&
   "$GTCC" -b cuda -P cuda_ -o "$work/edges_cuda.cu" "$here/edges.stn" >>"$work/build.log" 2>&1 &&
   $CXX_SIMT -x c++ -std=c++17 -O1 -ffp-contract=off -Wall -Wextra -Werror \
       -Wno-unused-parameter -Wno-unused-function -DGT_SIMT -I"$root/tests/simt" \
       -I"$root/runtime/include" -I"$work" \
       -c -o "$work/edges_cuda.o" "$work/edges_cuda.cu" >>"$work/build.log" 2>&1 &&
   "$GTCC" -b openmp -o "$work/regions.c" "$here/regions.stn" >>"$work/build.log" 2>&1 &&
   "$GTCC" -b naive -P naive_ -o "$work/regions_naive.c" "$here/regions.stn" >>"$work/build.log" 2>&1 &&
   $CC -std=c11 -O2 -g -Wall -Wextra -Werror $SANFLAGS -I"$root/runtime/include" -c \
       -o "$work/regions_naive.o" "$work/regions_naive.c" >>"$work/build.log" 2>&1 &&
   "$GTCC" -b cuda -P cuda_ -o "$work/regions_cuda.cu" "$here/regions.stn" >>"$work/build.log" 2>&1 &&
   $CXX_SIMT -x c++ -std=c++17 -O1 -ffp-contract=off -Wall -Wextra -Werror \
       -Wno-unused-parameter -Wno-unused-function -DGT_SIMT -I"$root/tests/simt" \
       -I"$root/runtime/include" -I"$work" -c -o "$work/regions_cuda.o" "$work/regions_cuda.cu" \
       >>"$work/build.log" 2>&1 &&
   "$GTCC" -b openmp -o "$work/entries.c" "$here/entries.stn" >>"$work/build.log" 2>&1 &&
   $CXX_SIMT -std=c++17 -O1 -DGT_SIMT -I"$root/tests/simt" -I"$root/runtime/include" \
       -c -o "$work/simt.o" "$root/tests/simt/simt.cc" >>"$work/build.log" 2>&1 &&
   $CC -std=c11 -O2 -g -Wall -Wextra -Werror $SANFLAGS -D_POSIX_C_SOURCE=200809L -fopenmp \
       $("$MPICC" --showme:compile) -I"$root/runtime/include" -I"$root/runtime/src" \
       -I"$root/tests/diff" -I"$work" \
       -o "$work/check_mpi_stencil" \
       "$here/check_mpi_stencil.c" "$work/hdiff.c" "$work/jacobi3d.c" "$work/tridiagonal.c" \
       "$work/edges.c" "$work/heat2d.c" "$work/edges_naive.o" "$work/edges_cuda.o" \
       "$work/regions.c" "$work/regions_naive.o" "$work/regions_cuda.o" "$work/entries.c" \
       "$work/simt.o" -lstdc++ \
       "$BUILD/lib/libgtrt-mpi.a" \
       "$BUILD/lib/libgtrt.a" $("$MPICC" --showme:link) $OMPLIBS -lm >>"$work/build.log" 2>&1; then
    progs="$progs check_mpi_stencil"
else
    echo "FAIL mpi: check_mpi_stencil.c does not build"; sed 's/^/  | /' "$work/build.log" | head -n 20
    echo "FAIL check_mpi_stencil: build" >"$work/results.build"
fi
# check_mpi_device.c: exchanges of storages whose device side is newer, packed on the
# device (strip_device.h's fake device, which counts the bytes crossing the bus), and
# gt_mpi_call of the cuda backend's regions (the objects built above)
if [ -e "$work/regions_cuda.o" ] && [ -e "$work/simt.o" ] &&
   $CC -std=c11 -O1 -g -Wall -Wextra -Werror $SANFLAGS -D_POSIX_C_SOURCE=200809L \
       $("$MPICC" --showme:compile) -I"$root/runtime/include" -I"$root/runtime/src" \
       -I"$root/tests/diff" -I"$work" -o "$work/check_mpi_device" "$here/check_mpi_device.c" \
       "$work/regions_cuda.o" "$work/simt.o" -lstdc++ "$BUILD/lib/libgtrt-mpi.a" \
       "$BUILD/lib/libgtrt.a" $("$MPICC" --showme:link) -lm >"$work/build_dev.log" 2>&1; then
    progs="$progs check_mpi_device"
else
    echo "FAIL mpi: check_mpi_device.c does not build"; sed 's/^/  | /' "$work/build_dev.log" | head -n 20
    echo "FAIL check_mpi_device: build" >>"$work/results.build"
fi
# the generated headers' distributed entries (S_mpi: static inline functions where
# <gt/gt_mpi.h> came first) compile as C11 and as C++17 with -Wpedantic and -Wshadow, every
# warning an error (nvcc builds them in the cuda group); a header included before
# <gt/gt_mpi.h> and again after it declares them then
cat >"$work/headers.c" <<'EOF'
#include "entries.h"
#include <gt/gt_mpi.h>
#include "entries.h"
#include "hdiff.h"
#include "jacobi3d.h"
#include "tridiagonal.h"
#include "edges.h"
#include "edges_naive.h"
#include "edges_cuda.h"
#include "heat2d.h"
#include "regions.h"
#include "regions_naive.h"
#include "regions_cuda.h"
int entries(const gt_decomp *d, gt_storage *u, double *t, int32_t *n);
int entries(const gt_decomp *d, gt_storage *u, double *t, int32_t *n)
{
    return bc_mpi(d, u, u, u, 0.5, t, 1, NULL) + nofield_mpi(d, 1.0, t, n, 0, NULL) +
           cuda_regions_mpi(d, u, u, 0, t) + naive_edges_mpi(d, u, u, u, u, u, u, u, t, t, t,
                                                             t, n, n, 0, NULL);
}
EOF
for lang in c c++; do
    if [ $lang = c ]; then compiler="$CC -std=c11"; else compiler="$CXX_SIMT -std=c++17 -DOMPI_SKIP_MPICXX"; fi
    if $compiler -x $lang -Wall -Wextra -Wpedantic -Wshadow -Werror $("$MPICC" --showme:compile) \
           -I"$root/runtime/include" -I"$work" -c -o "$work/headers.o" "$work/headers.c" \
           >"$work/headers.log" 2>&1; then
        echo "PASS headers: the distributed entries compile as $lang (-Wpedantic -Wshadow -Werror)"
    else
        echo "FAIL headers: the distributed entries do not compile as $lang"
        sed 's/^/  | /' "$work/headers.log" | head -n 20
    fi
done >"$work/results.headers"
# check_mpi_misuse.c: every refusal of every collective function (tests/mpi/misuse.stn and
# misuse_twin.stn through the naive backend)
if "$GTCC" -b naive -o "$work/misuse.c" "$here/misuse.stn" >"$work/misuse.log" 2>&1 &&
   "$GTCC" -b naive -o "$work/misuse_twin.c" "$here/misuse_twin.stn" >>"$work/misuse.log" 2>&1 &&
   $CC -std=c11 -O2 -g -Wall -Wextra -Werror $SANFLAGS -I"$root/runtime/include" \
       -Dtwin=twin_int -Dtwin_info=twin_int_info -c -o "$work/misuse_twin.o" \
       "$work/misuse_twin.c" >>"$work/misuse.log" 2>&1 &&
   $CC -std=c11 -O1 -g -Wall -Wextra -Werror $SANFLAGS -D_POSIX_C_SOURCE=200809L \
       $("$MPICC" --showme:compile) -I"$root/runtime/include" -I"$root/runtime/src" -I"$work" \
       -o "$work/check_mpi_misuse" "$here/check_mpi_misuse.c" "$work/misuse.c" \
       "$work/misuse_twin.o" "$BUILD/lib/libgtrt-mpi.a" "$BUILD/lib/libgtrt.a" \
       $("$MPICC" --showme:link) -lm >>"$work/misuse.log" 2>&1; then
    misuse=yes
else
    misuse=
    echo "FAIL mpi: check_mpi_misuse.c does not build"; sed 's/^/  | /' "$work/misuse.log" | head -n 20
    echo "FAIL check_mpi_misuse: build" >>"$work/results.build"
fi
# check_mpi_klevels.c: run-time K levels in distributed calls (tests/mpi/klevels.stn) from
# the openmp, naive and cuda backends (cuda on the SIMT emulator)
kl_rename="-Dkpoint=kpoint_B -Dkpoint_info=kpoint_B_info -Dkhalo=khalo_B -Dkhalo_info=khalo_B_info -Dkmap=kmap_B -Dkmap_info=kmap_B_info"
if "$GTCC" -b openmp -o "$work/klevels.c" "$here/klevels.stn" >"$work/build_kl.log" 2>&1 &&
   "$GTCC" -b naive -o "$work/klevels_naive.c" "$here/klevels.stn" >>"$work/build_kl.log" 2>&1 &&
   $CC -std=c11 -O2 -g -Wall -Wextra -Werror $SANFLAGS -I"$root/runtime/include" \
       $(echo "$kl_rename" | sed 's/_B/_naive/g') -c -o "$work/klevels_naive.o" \
       "$work/klevels_naive.c" >>"$work/build_kl.log" 2>&1 &&
   "$GTCC" -b cuda -o "$work/klevels_cuda.cu" "$here/klevels.stn" >>"$work/build_kl.log" 2>&1 &&
   $CXX_SIMT -x c++ -std=c++17 -O1 -ffp-contract=off -Wall -Wextra -Werror \
       -Wno-unused-parameter -Wno-unused-function -DGT_SIMT -I"$root/tests/simt" \
       -I"$root/runtime/include" -I"$work" $(echo "$kl_rename" | sed 's/_B/_cuda/g') \
       -c -o "$work/klevels_cuda.o" "$work/klevels_cuda.cu" >>"$work/build_kl.log" 2>&1 &&
   $CXX_SIMT -std=c++17 -O1 -DGT_SIMT -I"$root/tests/simt" -I"$root/runtime/include" \
       -c -o "$work/simt_kl.o" "$root/tests/simt/simt.cc" >>"$work/build_kl.log" 2>&1 &&
   $CC -std=c11 -O2 -g -Wall -Wextra -Werror $SANFLAGS -D_POSIX_C_SOURCE=200809L -fopenmp \
       $("$MPICC" --showme:compile) -I"$root/runtime/include" -I"$root/runtime/src" \
       -I"$root/tests/diff" -I"$work" -o "$work/check_mpi_klevels" \
       "$here/check_mpi_klevels.c" "$work/klevels.c" "$work/klevels_naive.o" \
       "$work/klevels_cuda.o" "$work/simt_kl.o" -lstdc++ "$BUILD/lib/libgtrt-mpi.a" \
       "$BUILD/lib/libgtrt.a" $("$MPICC" --showme:link) $OMPLIBS -lm >>"$work/build_kl.log" 2>&1; then
    progs="$progs check_mpi_klevels"
else
    echo "FAIL mpi: check_mpi_klevels.c does not build"; sed 's/^/  | /' "$work/build_kl.log" | head -n 20
    echo "FAIL check_mpi_klevels: build" >>"$work/results.build"
fi
# check_mpi_steps.c: gt_mpi_steps through the generated S_steps_mpi of tests/mpi/steps.stn
# (every boundary kind, two pairs, a read-only field) against one process's S_steps, bitwise;
# its refusals agreed on every rank
if "$GTCC" -b openmp -o "$work/steps.c" "$here/steps.stn" >"$work/build_steps.log" 2>&1 &&
   $CC -std=c11 -O1 -g -Wall -Wextra -Werror $SANFLAGS -D_POSIX_C_SOURCE=200809L -fopenmp \
       $("$MPICC" --showme:compile) -I"$root/runtime/include" -I"$work" \
       -o "$work/check_mpi_steps" "$here/check_mpi_steps.c" "$work/steps.c" \
       "$BUILD/lib/libgtrt-mpi.a" "$BUILD/lib/libgtrt.a" $("$MPICC" --showme:link) $OMPLIBS \
       -lm >>"$work/build_steps.log" 2>&1; then
    progs="$progs check_mpi_steps"
else
    echo "FAIL mpi: check_mpi_steps.c does not build"; sed 's/^/  | /' "$work/build_steps.log" | head -n 20
    echo "FAIL check_mpi_steps: build" >>"$work/results.build"
fi
# check_mpi_finalized.c: every collective function called after MPI_Finalize is GT_EMPI
# (it aborted the process, through the MPI call it made)
if "$GTCC" -b openmp -o "$work/entries.c" "$here/entries.stn" >"$work/build_fin.log" 2>&1 &&
   "$GTCC" -b openmp -o "$work/steps.c" "$here/steps.stn" >>"$work/build_fin.log" 2>&1 &&
   $CC -std=c11 -O1 -g -Wall -Wextra -Werror $SANFLAGS -D_POSIX_C_SOURCE=200809L -fopenmp \
       $("$MPICC" --showme:compile) -I"$root/runtime/include" -I"$work" \
       -o "$work/check_mpi_finalized" "$here/check_mpi_finalized.c" "$work/steps.c" \
       "$work/entries.c" "$BUILD/lib/libgtrt-mpi.a" "$BUILD/lib/libgtrt.a" \
       $("$MPICC" --showme:link) $OMPLIBS -lm >>"$work/build_fin.log" 2>&1; then
    progs="$progs check_mpi_finalized"
else
    echo "FAIL mpi: check_mpi_finalized.c does not build"; sed 's/^/  | /' "$work/build_fin.log" | head -n 20
    echo "FAIL check_mpi_finalized: build" >>"$work/results.build"
fi
export OMP_NUM_THREADS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
# Open MPI keeps memory until exit that LeakSanitizer would report
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
: >"$work/results"
[ -e "$work/results.build" ] && cat "$work/results.build" >>"$work/results"
cat "$work/results.headers" >>"$work/results"
# the layers (docs/internals.md, "Runtime layers"): libgtrt knows a placed call and its
# hooks, nothing of the MPI layer: it defines none of its state's functions, and its
# messages name no rank and no gt_mpi_call (the layer's words come through its hooks)
mpi_syms=$(nm -g --defined-only "$BUILD/lib/libgtrt.a" 2>&1 | grep -E ' [A-Z] ' |
           grep -E ' gt__(where|reduction|mpi)' | awk '{print $3}' | tr '\n' ' ')
if [ -z "$mpi_syms" ] && nm -g --defined-only "$BUILD/lib/libgtrt.a" | grep -q ' T gt__placement_set$' &&
   nm -g --defined-only "$BUILD/lib/libgtrt-mpi.a" | grep -q ' T gt__mpi_call_init$'; then
    echo "PASS layers: libgtrt defines the placed call and nothing of the MPI layer's state" >>"$work/results"
else
    echo "FAIL layers: libgtrt defines the MPI layer's ${mpi_syms:-(or lacks gt__placement_set, or libgtrt-mpi gt__mpi_call_init)}" >>"$work/results"
fi
mpi_words=$(strings "$BUILD/lib/libgtrt.a" | grep -E 'rank %d|gt_mpi_call' | head -n 3)
if [ -z "$mpi_words" ]; then
    echo "PASS layers: libgtrt's messages name no rank and no gt_mpi_call" >>"$work/results"
else
    echo "FAIL layers: libgtrt's messages name the MPI layer:" >>"$work/results"
    echo "$mpi_words" | sed 's/^/  | /' >>"$work/results"
fi
for prog in $progs; do
    for np in 1 2 3 4; do
        log=$work/$prog.np$np.log
        timeout 300 "$MPIRUN" --oversubscribe -np $np "$work/$prog" >"$log" 2>&1
        status=$?
        grep -E '^(PASS|FAIL) ' "$log" >>"$work/results"
        if [ $status -ne 0 ] && ! grep -q '^FAIL ' "$log"; then
            echo "FAIL $prog, mpirun -np $np: exit status $status$( [ $status -eq 124 ] && echo ' (timed out)')" >>"$work/results"
            sed 's/^/  | /' "$log" | tail -n 15 >>"$work/results"
        fi
    done
done
# check_mpi_misuse: case after case, each under its own watchdog (60 s): a case that hangs,
# or stops the run otherwise, fails, and the program runs again from the case after it
for np in 1 2 3 4; do
    [ -n "$misuse" ] || break
    next=0 runs=0
    while [ $runs -lt 40 ]; do
        runs=$((runs + 1))
        log=$work/check_mpi_misuse.np$np.from$next.log
        timeout 600 "$MPIRUN" --oversubscribe -np $np "$work/check_mpi_misuse" $next \
            >"$log" 2>&1
        status=$?
        grep -E '^(PASS|FAIL) ' "$log" >>"$work/results"
        grep -q '^DONE' "$log" && break
        case_no=$(sed -n 's/^BEGIN \([0-9]*\) .*/\1/p' "$log" | tail -n 1)
        if [ -z "$case_no" ]; then
            echo "FAIL check_mpi_misuse, mpirun -np $np from case $next: exit status $status before any case" >>"$work/results"
            sed 's/^/  | /' "$log" | tail -n 15 >>"$work/results"
            break
        fi
        if ! grep -qE "^(PASS|FAIL) misuse $case_no:" "$log"; then
            echo "FAIL misuse $case_no: $(sed -n "s/^BEGIN $case_no //p" "$log") (np $np): the run stopped in it (exit status $status$( [ $status -eq 124 ] && echo ', timed out'))" >>"$work/results"
            grep -v -E '^(PASS|BEGIN) ' "$log" | sed 's/^/  | /' | tail -n 6 >>"$work/results"
        fi
        next=$((case_no + 1))
    done
done
# make install refuses a PREFIX that is not an absolute directory without blanks (it goes
# into the pkg-config files), installing nothing: PREFIX=rel once wrote prefix=rel, and
# PREFIX= installed into /bin, /lib and /include. DESTDIR (and the blank's second word) keep
# what a make that took them would install inside $work/stage.
for bad in rel "" "$work/stage/a $work/stage/b"; do
    rm -rf "$work/stage"; mkdir -p "$work/stage"
    if (cd "$work/stage" && make -C "$root" --no-print-directory -s install PREFIX="$bad" \
            DESTDIR="$work/stage/" BUILD="$BUILD" MPICC="$MPICC" >"$work/install-bad.log" 2>&1); then
        echo "FAIL install: make install PREFIX='$bad' succeeded" >>"$work/results"
    elif ! grep -q "PREFIX '$bad' is not an absolute directory" "$work/install-bad.log" ||
         [ -n "$(ls -A "$work/stage")" ]; then
        echo "FAIL install: make install PREFIX='$bad' did not say why, or installed" >>"$work/results"
        sed 's/^/  | /' "$work/install-bad.log" | head -n 4 >>"$work/results"
    else
        echo "PASS install: make install PREFIX='$bad' is refused" >>"$work/results"
    fi
done
rm -rf "$work/stage"
# examples/heat2d_mpi through its own Makefile against an installed gtcc, on 1, 3 and 4
# ranks: each writes the same picture as examples/heat2d (one process, boundary periodic)
prefix=$work/prefix
if ! make -C "$root" --no-print-directory -s install PREFIX="$prefix" BUILD="$BUILD" \
        MPICC="$MPICC" >"$work/install.log" 2>&1; then
    echo "FAIL example: make install" >>"$work/results"; sed 's/^/  | /' "$work/install.log" | head >>"$work/results"
else
    env PATH="$prefix/bin:$PATH" make -C "$root/examples/heat2d" --no-print-directory -s \
        O="$work/heat2d" GTCC="$prefix/bin/gtcc" PKG_CONFIG_PATH="$prefix/lib/pkgconfig" \
        CFLAGS="-O2 -g $SANFLAGS" run >"$work/heat2d.log" 2>&1 ||
        echo "FAIL example: examples/heat2d does not run" >>"$work/results"
    for np in 1 3 4; do
        if env PATH="$prefix/bin:$PATH" timeout 300 make -C "$root/examples/heat2d_mpi" \
               --no-print-directory -s O="$work/heat2d_mpi" GTCC="$prefix/bin/gtcc" \
               PKG_CONFIG_PATH="$prefix/lib/pkgconfig" CFLAGS="-O2 -g $SANFLAGS" NP=$np run \
               >"$work/heat2d_mpi.np$np.log" 2>&1 &&
           cmp -s "$work/heat2d/heat2d.pgm" "$work/heat2d_mpi/heat2d_mpi.pgm"; then
            echo "PASS example: heat2d_mpi on $np ranks writes examples/heat2d's picture" >>"$work/results"
        else
            echo "FAIL example: heat2d_mpi on $np ranks (log and picture in $work)" >>"$work/results"
            sed 's/^/  | /' "$work/heat2d_mpi.np$np.log" | tail -n 8 >>"$work/results"
        fi
        rm -f "$work/heat2d_mpi/heat2d_mpi.pgm"
    done
    # built with OpenMP: pkg-config gtrt-mpi carries gtrt's flags (it once had neither
    # -fopenmp nor -lomp, and the openmp backend's code ran one thread a rank, silently)
    if nm "$work/heat2d_mpi/heat2d_mpi.gen.o" 2>/dev/null | grep -qE 'GOMP_|__kmpc_'; then
        echo "PASS example: heat2d_mpi's stencil built with OpenMP (pkg-config gtrt-mpi)" >>"$work/results"
    else
        echo "FAIL example: heat2d_mpi's stencil built without OpenMP: pkg-config --cflags gtrt-mpi lacks gtrt's flags" >>"$work/results"
    fi
    # gtrt-mpi.pc names no MPI's pkg-config module (MPI's flags come from mpicc): with only
    # the installed tree on pkg-config's path, as where the MPI has no ompi-c (MPICH), the
    # example builds and runs on 2 ranks. Before, gtrt-mpi.pc required Open MPI's ompi-c, and
    # pkg-config refused it there: no -lgtrt-mpi, no gtrt flags, the link failed.
    if env PATH="$prefix/bin:$PATH" PKG_CONFIG_LIBDIR="$prefix/lib/pkgconfig" timeout 300 \
           make -C "$root/examples/heat2d_mpi" --no-print-directory -s O="$work/heat2d_mpi_pc" \
           GTCC="$prefix/bin/gtcc" CFLAGS="-O2 -g $SANFLAGS" NP=2 run >"$work/heat2d_mpi_pc.log" 2>&1 &&
       cmp -s "$work/heat2d/heat2d.pgm" "$work/heat2d_mpi_pc/heat2d_mpi.pgm"; then
        echo "PASS example: heat2d_mpi built with the installed pkg-config files alone (no ompi-c)" >>"$work/results"
    else
        echo "FAIL example: heat2d_mpi with the installed pkg-config files alone (PKG_CONFIG_LIBDIR; log in $work)" >>"$work/results"
        sed 's/^/  | /' "$work/heat2d_mpi_pc.log" | tail -n 8 >>"$work/results"
    fi
fi
# random programs of the differential test (tests/diff/gen.c) in distributed calls, against
# one process: tests/mpi/random.sh
BUILD="$BUILD" GTCC="$GTCC" CC="$CC" SANFLAGS="$SANFLAGS" MPICC="$MPICC" MPIRUN="$MPIRUN" \
    sh "$here/random.sh" >"$work/random.log" 2>&1
grep -E '^(PASS|FAIL) |^  \| ' "$work/random.log" >>"$work/results"
grep -q '^mpi-random: ' "$work/random.log" ||
    { echo "FAIL mpi-random: tests/mpi/random.sh stopped before its summary"
      tail -n 10 "$work/random.log" | sed 's/^/  | /'; } >>"$work/results"
grep -v '^PASS ' "$work/results" | head -n 60
passed=$(grep -c '^PASS ' "$work/results")
failed=$(grep -c '^FAIL ' "$work/results")
echo "mpi: $passed passed, $failed failed (mpirun -np 1, 2, 3, 4)"
result "$passed" "$failed"
[ "$failed" -eq 0 ]
