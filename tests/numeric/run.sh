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
# with -fopenmp); the default, naive, is what `make check` runs.
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
    mkdir -p "$tmp/$base"
    instances=$(sed -n 's|^// INSTANCES: *||p' "$stn" | head -n 1)
    rest=${instances:-" "}; srcs=""; n=0; gtcc_ok=1
    while [ -n "$rest" ]; do
        inst=${rest%%|*}
        case $rest in *"|"*) rest=${rest#*|} ;; *) rest="" ;; esac
        n=$((n + 1))
        out=$tmp/$base/$base.c
        [ -z "$instances" ] || out=$tmp/$base/${base}_$n.c
        if ! (cd "$here" && eval "\"$GTCC\" -b $BACKEND $args $inst -o \"$out\" \"$base.stn\"") \
                >"$tmp/$base/gtcc.log" 2>&1; then
            fail "$base: gtcc $inst failed"; sed 's/^/  | /' "$tmp/$base/gtcc.log" | head -n 20
            gtcc_ok=0; break
        fi
        srcs="$srcs $out"
    done
    [ $gtcc_ok = 1 ] || continue
    for cc in $compilers; do
        name=$(basename "$cc")
        flags="$WFLAGS -O1 -g $fmaflags"
        run=1
        if [ "$cc" != "$CC" ] && [ -n "$SANFLAGS" ]; then
            run=0
        else
            flags="$flags $SANFLAGS"
        fi
        exe=$tmp/$base/test_$name
        inc="-I$root/runtime/include -I$root/runtime/src -I$tmp/$base -I$here"
        if [ $run = 0 ]; then
            built=1; : >"$tmp/$base/cc.log"
            for src in $srcs; do
                $cc $flags $inc -c "$src" -o "$src.o" >>"$tmp/$base/cc.log" 2>&1 || built=0
            done
            if [ $built = 1 ] && $cc $flags $inc -c "$driver" -o "$exe.o" >>"$tmp/$base/cc.log" 2>&1; then
                passed=$((passed + 1)); echo "PASS $base[$name]: builds"
            else
                fail "$base[$name]: does not build"; sed 's/^/  | /' "$tmp/$base/cc.log" | head -n 30
            fi
            continue
        fi
        # shellcheck disable=SC2086 # $srcs: the generated files, no spaces in $tmp
        if ! $cc $flags $inc -o "$exe" "$driver" $srcs "$here/numeric.c" \
                "$BUILD/lib/libgtrt.a" -lm >"$tmp/$base/cc.log" 2>&1; then
            fail "$base[$name]: does not build"; sed 's/^/  | /' "$tmp/$base/cc.log" | head -n 30
            continue
        fi
        (cd "$tmp/$base" && "$exe") >"$tmp/$base/out" 2>&1
        status=$?
        p=$(grep -c '^PASS ' "$tmp/$base/out")
        f=$(grep -c '^FAIL ' "$tmp/$base/out")
        passed=$((passed + p)); failed=$((failed + f))
        grep '^FAIL ' "$tmp/$base/out" | sed "s/^FAIL /FAIL $base[$name]: /"
        if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
            fail "$base[$name]: exit status $status"; tail -n 20 "$tmp/$base/out" | sed 's/^/  | /'
        fi
        [ "$p" -gt 0 ] || [ "$status" -ne 0 ] || fail "$base[$name]: no checks ran"
    done
done
echo "numeric: $passed passed, $failed failed"
[ -n "${RESULTS:-}" ] && echo "$passed $failed" > "$RESULTS/numeric"
[ "$failed" -eq 0 ]
