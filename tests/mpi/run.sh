#!/bin/sh
# tests/mpi/run.sh: libgtrt-mpi under mpirun, `make mpi`.
#
# Builds tests/mpi/check_mpi.c against libgtrt-mpi and runs it with mpirun on 1, 2, 3
# and 4 processes (oversubscribed on small machines; as root with Open MPI's
# allow-run-as-root settings), each run under a time limit so that a hang fails instead
# of stopping the check. A case is one line PASS/FAIL of one run (the program reports a
# case as failed when it failed on any rank). Skipped with a message where mpicc or
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
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
# Open MPI keeps memory until exit that LeakSanitizer would report
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
: >"$work/results"
for np in 1 2 3 4; do
    timeout 300 "$MPIRUN" --oversubscribe -np $np "$work/check_mpi" >"$work/np$np.log" 2>&1
    status=$?
    grep -E '^(PASS|FAIL) ' "$work/np$np.log" >>"$work/results"
    if [ $status -ne 0 ] && ! grep -q '^FAIL ' "$work/np$np.log"; then
        echo "FAIL mpirun -np $np: exit status $status$( [ $status -eq 124 ] && echo ' (timed out)')" >>"$work/results"
        sed 's/^/  | /' "$work/np$np.log" | tail -n 15 >>"$work/results"
    fi
done
grep -v '^PASS ' "$work/results" | head -n 60
passed=$(grep -c '^PASS ' "$work/results")
failed=$(grep -c '^FAIL ' "$work/results")
echo "mpi: $passed passed, $failed failed (mpirun -np 1, 2, 3, 4)"
result "$passed" "$failed"
[ "$failed" -eq 0 ]
