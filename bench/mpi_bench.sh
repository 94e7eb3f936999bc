#!/bin/sh
# bench/mpi_bench.sh: distributed hdiff per step at 1, 2 and 4 processes, blocking and
# overlapped (bench/mpi_bench.c), run by `make bench`. One OpenMP thread per process; on a
# machine with fewer cores than processes they are oversubscribed, so the 4-process figures
# measure time-sharing as much as the exchange: read them as such. Skipped with a message
# without Open MPI.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$root/build}
GTCC=${GTCC:-$BUILD/bin/gtcc}
CC=${CC:-cc}
MPICC=$(command -v mpicc || true)
MPIRUN=$(command -v mpirun || true)
[ -n "$MPICC" ] && [ -n "$MPIRUN" ] || { echo "mpi_bench: Open MPI not found: skipped"; exit 0; }
[ -e "$BUILD/lib/libgtrt-mpi.a" ] ||
    make -C "$root" --no-print-directory -s BUILD="$BUILD" MPICC="$MPICC" "$BUILD/lib/libgtrt-mpi.a" ||
    exit 1
work=$BUILD/bench/mpi
rm -rf "$work"; mkdir -p "$work"
omplib=$(ls /usr/lib/llvm-*/lib/libomp.so /usr/lib/x86_64-linux-gnu/libomp.so 2>/dev/null | tail -n 1)
OMPLIBS="-fopenmp"
[ -n "$omplib" ] && OMPLIBS="-L$(dirname "$omplib") -Wl,-rpath,$(dirname "$omplib") -lomp"
"$GTCC" -b openmp -o "$work/hdiff.c" "$root/bench/stencils/hdiff.stn" &&
$CC -std=c11 -O3 -march=native -fopenmp ${SANFLAGS:-} -D_POSIX_C_SOURCE=200809L $("$MPICC" --showme:compile) \
    -I"$root/runtime/include" -I"$root/bench" -I"$work" -o "$work/mpi_bench" "$root/bench/mpi_bench.c" \
    "$work/hdiff.c" "$BUILD/lib/libgtrt-mpi.a" "$BUILD/lib/libgtrt.a" \
    $("$MPICC" --showme:link) $OMPLIBS -lm || exit 1
export OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
echo "distributed hdiff (gt_mpi_call; $(getconf _NPROCESSORS_ONLN) cores here: 4 processes are oversubscribed)"
for np in 1 2 4; do
    "$MPIRUN" --oversubscribe -np $np "$work/mpi_bench" || exit 1
done
