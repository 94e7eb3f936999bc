#!/bin/sh
# tests/numeric/run.sh [NAME...]: numeric tests of the naive backend.
#
# For each tests/numeric/NAME.stn there is a driver test_NAME.c that calls the
# stencils gtcc generates from it on random data (fixed seeds) and compares every
# output with a reference written by hand in the driver (plain loops over plain
# arrays, from language.md), and every element outside the compute domain with
# its value before the call. The driver prints "PASS name" / "FAIL name: why".
#
# Each program is built with $CC -std=c11 -Wall -Wextra -Wpedantic -Werror
# $SANFLAGS and run; then with clang the same way (built only, not run, when
# $SANFLAGS is set: the runtime was built with $CC's sanitizer runtime).
# Options for gtcc come from a `// ARGS: ...` line of the .stn file. A
# `// INSTANCES: OPTS | OPTS ...` line compiles the file once per OPTS (e.g.
# `-D W=2 -P two_`) into NAME_1.c, NAME_2.c, ... (headers NAME_1.h, ...), all
# linked into the one driver (language.md section 10.6). A program
# with a `// FMA` line is built with -std=gnu11 -O2 (GNU modes let gcc contract
# a * b + c, at -O2) and, on an x86-64 machine whose CPU has FMA, with -mfma
# too, so that a contraction the generated code failed to forbid would run.
# NUMERIC_BACKEND=openmp runs the same tests on another backend's code (built
# with -fopenmp); the default, naive, is what `make check` runs. A `// BACKENDS: B...`
# line runs that test on each backend named instead, a `// THREADS: N...` line each run
# with OMP_NUM_THREADS=N for each N (results named NAME,BACKEND,threads N).
# Prints "numeric: N passed, N failed"; writes "PASSED FAILED" to
# $RESULTS/numeric when RESULTS is set.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
GTCC=${GTCC:-$BUILD/bin/gtcc}
CC=${CC:-cc}
SANFLAGS=${SANFLAGS:-}
WFLAGS="-std=c11 -Wall -Wextra -Wpedantic -Werror"
BACKEND=${NUMERIC_BACKEND:-naive}
[ "$BACKEND" = naive ] || WFLAGS="$WFLAGS -fopenmp"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
passed=0; failed=0

fail() { failed=$((failed + 1)); echo "FAIL $1"; }

compilers="$CC"
if command -v clang >/dev/null 2>&1 && [ "$(basename "$CC")" != clang ]; then
    compilers="$compilers clang"
fi

for stn in "$here"/*.stn; do
    [ -e "$stn" ] || continue
    base=$(basename "$stn" .stn)
    if [ $# -gt 0 ]; then
        case " $* " in *" $base "*) ;; *) continue ;; esac
    fi
    driver=$here/test_$base.c
    [ -e "$driver" ] || { fail "$base: no driver test_$base.c"; continue; }
    args=$(sed -n 's|^// ARGS: *||p' "$stn" | head -n 1)
    fmaflags=""
    if grep -q '^// FMA$' "$stn"; then
        fmaflags="-std=gnu11 -O2"
        if [ "$(uname -m)" = x86_64 ] && grep -qw fma /proc/cpuinfo 2>/dev/null; then
            fmaflags="$fmaflags -mfma"
        else
            echo "note: $base: no x86-64 FMA here, built without -mfma"
        fi
    fi
    # `// BACKENDS: naive openmp` and `// THREADS: 1 2` (OMP_NUM_THREADS of each run) in a
    # .stn run its driver on each backend, with each thread count
    backends=$(sed -n 's|^// BACKENDS: *||p' "$stn" | head -n 1)
    threads=$(sed -n 's|^// THREADS: *||p' "$stn" | head -n 1)
    [ -n "$threads" ] || threads=-
    for be in ${backends:-$BACKEND}; do
    tag0=$base; [ -z "$backends" ] || tag0="$base,$be"; tag=$tag0
    mkdir -p "$tmp/$base/$be"
    instances=$(sed -n 's|^// INSTANCES: *||p' "$stn" | head -n 1)
    rest=${instances:-" "}; srcs=""; n=0; gtcc_ok=1
    while [ -n "$rest" ]; do
        inst=${rest%%|*}
        case $rest in *"|"*) rest=${rest#*|} ;; *) rest="" ;; esac
        n=$((n + 1))
        out=$tmp/$base/$be/$base.c
        [ -z "$instances" ] || out=$tmp/$base/$be/${base}_$n.c
        if ! (cd "$here" && eval "\"$GTCC\" -b $be $args $inst -o \"$out\" \"$base.stn\"") \
                >"$tmp/$base/$be/gtcc.log" 2>&1; then
            fail "$tag: gtcc $inst failed"; sed 's/^/  | /' "$tmp/$base/$be/gtcc.log" | head -n 20
            gtcc_ok=0; break
        fi
        srcs="$srcs $out"
    done
    [ $gtcc_ok = 1 ] || continue
    for cc in $compilers; do
        name=$(basename "$cc")
        flags="$WFLAGS -O1 -g $fmaflags"
        [ "$be" = naive ] || case $flags in *-fopenmp*) ;; *) flags="$flags -fopenmp" ;; esac
        flags="$flags -DGT_TEST_BACKEND=\"$be\""   # the quotes stay: a C string
        run=1
        if [ "$cc" != "$CC" ] && [ -n "$SANFLAGS" ]; then
            run=0
        else
            flags="$flags $SANFLAGS"
        fi
        exe=$tmp/$base/$be/test_$name
        inc="-I$root/runtime/include -I$root/runtime/src -I$tmp/$base/$be -I$here"
        if [ $run = 0 ]; then
            built=1; : >"$tmp/$base/$be/cc.log"
            for src in $srcs; do
                $cc $flags $inc -c "$src" -o "$src.o" >>"$tmp/$base/$be/cc.log" 2>&1 || built=0
            done
            if [ $built = 1 ] && $cc $flags $inc -c "$driver" -o "$exe.o" >>"$tmp/$base/$be/cc.log" 2>&1; then
                passed=$((passed + 1)); echo "PASS $tag[$name]: builds"
            else
                fail "$tag[$name]: does not build"; sed 's/^/  | /' "$tmp/$base/$be/cc.log" | head -n 30
            fi
            continue
        fi
        # shellcheck disable=SC2086 # $srcs: the generated files, no spaces in $tmp
        if ! $cc $flags $inc -o "$exe" "$driver" $srcs "$here/numeric.c" \
                "$BUILD/lib/libgtrt.a" -lm >"$tmp/$base/$be/cc.log" 2>&1; then
            fail "$tag[$name]: does not build"; sed 's/^/  | /' "$tmp/$base/$be/cc.log" | head -n 30
            continue
        fi
        for th in $threads; do
        if [ "$th" = - ]; then
            (cd "$tmp/$base/$be" && "$exe") >"$tmp/$base/$be/out" 2>&1
        else
            (cd "$tmp/$base/$be" && OMP_NUM_THREADS=$th "$exe") >"$tmp/$base/$be/out" 2>&1
        fi
        status=$?
        tag=$tag0; [ "$th" = - ] || tag="$tag0,threads $th"
        p=$(grep -c '^PASS ' "$tmp/$base/$be/out")
        f=$(grep -c '^FAIL ' "$tmp/$base/$be/out")
        passed=$((passed + p)); failed=$((failed + f))
        grep '^FAIL ' "$tmp/$base/$be/out" | sed "s/^FAIL /FAIL $tag[$name]: /"
        if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
            fail "$tag[$name]: exit status $status"; tail -n 20 "$tmp/$base/$be/out" | sed 's/^/  | /'
        fi
        [ "$p" -gt 0 ] || [ "$status" -ne 0 ] || fail "$tag[$name]: no checks ran"
        done
        tag=$tag0
    done
    done
done
echo "numeric: $passed passed, $failed failed"
[ -n "${RESULTS:-}" ] && echo "$passed $failed" > "$RESULTS/numeric"
[ "$failed" -eq 0 ]
