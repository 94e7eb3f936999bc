#!/bin/sh
# bench/peers/run.sh: make bench-peers. gtcc against Devito and GT4Py, side by side on
# this machine (bench/peers/peers.py says how).
#
# Devito and GT4Py come from the package registry into a virtual environment of their own,
# $BUILD/bench/peers-venv: never a dependency of the build or of make check. gtcc's probes
# (probes.stn, bench/stencils/hdiff.stn) are built with $CC (default cc) and, when it is
# installed and is not $CC, with clang; each build is a contestant of the table.
# PEERS_ROUNDS (default 11) sets the rounds.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
GTCC=${GTCC:-$BUILD/bin/gtcc}
CC=${CC:-cc}
work=$BUILD/bench/peers
venv=$BUILD/bench/peers-venv
mkdir -p "$work"

if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import devito, gt4py' 2>/dev/null; then
    echo "bench-peers: installing Devito 4.8 and GT4Py 1.1 into $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q 'devito>=4.8,<4.9' 'gt4py>=1.1,<1.2' || {
        echo "bench-peers: pip install failed (is the package registry reachable?)" >&2
        exit 1
    }
fi
"$venv/bin/python" -c 'import devito, gt4py; print("bench-peers: Devito", devito.__version__, "and GT4Py", gt4py.__version__)'

"$GTCC" -b openmp -o "$work/probes.c" "$here/probes.stn"
"$GTCC" -b openmp -o "$work/hdiff.c" "$root/bench/stencils/hdiff.stn"
omplib=$(ls /usr/lib/llvm-*/lib/libomp.so 2>/dev/null | tail -n 1)
if [ -n "$omplib" ]; then
    ompdir=$(dirname "$omplib"); omp="-L$ompdir -Wl,-rpath,$ompdir -lomp"
else
    omp=-fopenmp
fi
build() { # build COMPILER OUTPUT
    "$1" -std=c11 -O3 -march=native -fopenmp -D_POSIX_C_SOURCE=200809L \
        -I"$root/runtime/include" -I"$root/bench" -I"$work" -o "$2" \
        "$here/gtcc_worker.c" "$work/probes.c" "$work/hdiff.c" "$BUILD/lib/libgtrt.a" $omp -lm
}
name() { "$1" --version 2>/dev/null | grep -q clang && echo clang || echo gcc; }
build "$CC" "$work/worker-cc"
workers="gtcc-$(name "$CC")=$work/worker-cc"
if command -v clang >/dev/null 2>&1 && [ "$(name "$CC")" != clang ]; then
    build clang "$work/worker-clang"
    workers="$workers gtcc-clang=$work/worker-clang"
fi
echo "cpu: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1); $(nproc) cores; OMP_NUM_THREADS=${OMP_NUM_THREADS:-all}"
cd "$work"
exec "$venv/bin/python" "$here/peers.py" "${PEERS_ROUNDS:-11}" $workers
