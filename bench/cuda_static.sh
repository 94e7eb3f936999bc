#!/bin/sh
# bench/cuda_static.sh: the static part of the cuda backend's benchmark (no GPU
# needed), run by `make bench`: for hdiff, jacobi3d and tridiagonal, per
# stencil, the global elements its kernels touch per grid point, counted by
# the SIMT emulator of tests/simt as distinct elements per block (the traffic
# of blocks with a perfect cache), against the compulsory count (each field's
# elements once); then each kernel's registers and occupancy on A100 and H100
# (tests/cuda/resources.expected, checked by make check). Target for hdiff:
# at most 1.3x compulsory (docs/cuda.md).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$root/build}
GTCC=${GTCC:-$BUILD/bin/gtcc}
CC=${CC:-cc}
CXX=$(command -v g++ || command -v clang++ || true)
work=$BUILD/bench/cuda_static
[ -n "$CXX" ] || { echo "cuda_static: no C++ compiler: skipped"; exit 0; }
rm -rf "$work"; mkdir -p "$work"
$CC -std=c11 -O1 -D_POSIX_C_SOURCE=200809L -o "$work/gen" "$root/tests/diff/gen.c" &&
$CC -std=c11 -O1 -D_POSIX_C_SOURCE=200809L -I"$root/runtime/include" -I"$root/runtime/src" \
    -I"$root/tests/diff" -o "$work/driver" "$root/tests/diff/driver.c" -rdynamic \
    -Wl,--whole-archive "$BUILD/lib/libgtrt.a" -Wl,--no-whole-archive -ldl -lm || exit 1
n="128 128 32"
echo "cuda backend, static: global elements per grid point (SIMT emulator, distinct per block;"
echo "blocks of 32 x 8), domain ${n% *} x ${n##* }, against the compulsory count"
printf "%-14s %9s %9s %11s %8s\n" stencil loads/pt stores/pt compulsory ratio
for s in hdiff jacobi3d tridiagonal; do
    d=$work/$s; mkdir -p "$d"
    for b in naive cuda; do
        "$GTCC" -b $b -o "$d/$b.$( [ $b = cuda ] && echo cu || echo c)" "$root/bench/stencils/$s.stn" ||
            exit 1
        "$work/gen" --wrap "$d/$b.h" >"$d/wrap_$b.c"
    done
    $CC -std=c11 -O1 -fPIC -shared -I"$root/runtime/include" -I"$root/tests/diff" -I"$d" \
        -o "$d/naive.so" "$d/naive.c" "$d/wrap_naive.c" &&
    $CC -std=c11 -O1 -fPIC -c -I"$root/runtime/include" -I"$root/tests/diff" -I"$d" \
        -o "$d/wrap_cuda.o" "$d/wrap_cuda.c" &&
    $CXX -x c++ -std=c++17 -O2 -fPIC -DGT_SIMT -I"$root/tests/simt" -I"$root/runtime/include" \
        -I"$d" -shared -o "$d/cuda.so" "$d/cuda.cu" "$root/tests/simt/simt.cc" -x none \
        "$d/wrap_cuda.o" || exit 1
    "$work/driver" "$d/naive.so" "$d/cuda.so" 1 count $n |
        awk '$1 == "COUNT" { printf "%-14s %9s %9s %11s %7sx\n", $2, $3, $4, $5, $6 }'
done
grep -E 'hdiff|jacobi3d|tridiagonal' "$root/tests/cuda/resources.expected" | sed 's/^/  /'
