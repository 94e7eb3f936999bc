#!/bin/sh
# bench/python/run.sh: the Python package's row of `make bench` (bench/python/bench.py) in
# the venv of tools/pyvenv.sh under $BUILD/python, against the build tree's gtcc and libgtrt.
# OPENBLAS_NUM_THREADS defaults to 1: NumPy's OpenBLAS threads (one per core, waiting busily
# after NumPy work) took cores from the stencil's OpenMP threads (hdiff 2 to 3 times slower
# from Python than from C with 2 threads on 2 cores, equal with OpenBLAS at 1 thread).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$root/build}
work=$BUILD/bench/python
rm -rf "$work"; mkdir -p "$work"
"$root/tools/pyvenv.sh" "$BUILD/python" || { echo "python bench: no venv: skipped"; exit 0; }
# pybind11 for the GT4Py-style row (bench only, never a dependency of the build or the tests)
"$BUILD/python/venv/bin/python" -c "import pybind11" 2>/dev/null ||
    timeout 600 "$BUILD/python/venv/bin/pip" install -q pybind11 >/dev/null 2>&1 ||
    echo "python bench: pip install pybind11 failed: no GT4Py-style row"
GTCC=${GTCC:-$BUILD/bin/gtcc} GTCC_LIBDIR=$BUILD/lib GTCC_INCLUDEDIR=$root/runtime/include \
GTCC_CACHE_DIR=$work/cache OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1} \
    "$BUILD/python/venv/bin/python" "$root/bench/python/bench.py" "$work"
