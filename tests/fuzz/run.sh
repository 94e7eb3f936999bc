#!/bin/sh
# tests/fuzz/run.sh: the robustness test of gtcc (`make robust`).
#
# Builds the generator (gen.c) with $CC into $BUILD/fuzz, makes $FUZZ_CASES
# inputs from fixed seeds (pathological programs, mutations of every .stn
# under tests/golden and examples, token soups, random bytes), and runs gtcc
# on each, two at a time:
#   gtcc --emit=ir CASE                   for every case
#   gtcc -b naive -o TMP/out.c CASE       for every fourth case and the
#   gtcc -b openmp -o TMP/out.c CASE      pathological ones (case_N-o.stn)
#   gtcc -b cuda -o TMP/out.cu CASE
# and checks, for each run:
#   * the exit status is 0 or 1; 2 only for a backend that is not available
#     or an I/O error (said on stderr); never a signal or more than 60 s of CPU
#   * status 1 comes with an error message on stderr
#   * no sanitizer report (make check SANITIZE=1 builds gtcc with them)
#   * with -o: when the status is not 0, the output directory is empty
#     (no partial output, no temporary file); when it is 0, exactly the
#     source and the header are there
# Prints "robust: N passed, N failed" and writes "N M" to $RESULTS/robust.
# A failing case is copied to $RESULTS/robust-failures/ to reproduce it.
#
# Environment: GTCC, BUILD, RESULTS, CC, SANFLAGS (as the Makefile passes
# them); FUZZ_CASES (default 3000, or 1500 under the sanitizers) and
# FUZZ_SEED (default 20240601) to vary it.
set -u

# --- worker mode: run.sh --check CASE... (called through xargs) --------------
# Written with shell builtins where it can: a fork per check would cost more
# than gtcc itself.
if [ "${1:-}" = "--check" ]; then
    shift
    work=$(mktemp -d "${TMPDIR:-/tmp}/gtcc-robust.XXXXXX") || exit 1
    trap 'rm -rf "$work"' EXIT
    mkdir "$work/out"
    err=$work/err
    ulimit -t 60   # CPU seconds per gtcc run: a hang becomes a failure
    verdict() { # verdict CASE MODE STATUS: true if the run is acceptable
        if [ -s "$err" ] && grep -q -E 'Sanitizer|runtime error:' "$err"; then
            echo "FAIL $1 ($2): sanitizer report: $(grep -m1 -E 'Sanitizer|runtime error:' "$err")"
            return 1
        fi
        first=
        [ -s "$err" ] && read -r first < "$err"
        case $3 in
        0) return 0 ;;
        1) # warnings come in source order, so an error may follow some
           [ -s "$err" ] && grep -q 'error:' "$err" && return 0
           echo "FAIL $1 ($2): status 1 without an error message"; return 1 ;;
        2) case $first in
           "gtcc: error: backend "*" is not available yet"|"gtcc: error: cannot "*) return 0 ;;
           esac
           echo "FAIL $1 ($2): status 2 without an I/O error: $first"; return 1 ;;
        *) echo "FAIL $1 ($2): status $3 (signal or CPU limit): $first"; return 1 ;;
        esac
    }
    # What is left in the output directory, as a list of names.
    leftovers() {
        left=
        for x in "$work/out"/* "$work/out"/.[!.]*; do
            [ -e "$x" ] && left="$left ${x##*/}"
        done
    }
    for f in "$@"; do
        "$GTCC" --emit=ir "$f" >/dev/null 2>"$err" </dev/null
        verdict "$f" ir $? || continue
        case $f in
        *-o.stn)
            for be in naive openmp cuda; do
                ext=c; [ $be = cuda ] && ext=cu
                "$GTCC" -b $be -o "$work/out/out.$ext" "$f" >/dev/null 2>"$err" </dev/null
                st=$?
                leftovers
                if ! verdict "$f" "c, $be" $st; then
                    :
                elif [ "$st" -eq 0 ] && [ "$left" != " out.$ext out.h" ]; then
                    echo "FAIL $f (c, $be): status 0 but the output directory holds:$left"
                elif [ "$st" -ne 0 ] && [ -n "$left" ]; then
                    echo "FAIL $f (c, $be): status $st left:$left"
                else
                    [ "$st" -eq 0 ] && rm -f "$work/out/out.$ext" "$work/out/out.h"
                    left=
                fi
                [ -n "$left" ] && rm -rf "$work/out" && mkdir "$work/out"
                [ -z "$left" ] || continue 2
            done
            ;;
        esac
        echo ok
    done
    exit 0
fi

# --- driver -------------------------------------------------------------------------
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
GTCC=${GTCC:-$BUILD/bin/gtcc}
CC=${CC:-cc}
# Fewer cases under the sanitizers, which make each run slower.
if [ -n "${SANFLAGS:-}" ]; then cases=${FUZZ_CASES:-1500}; else cases=${FUZZ_CASES:-3000}; fi
seed=${FUZZ_SEED:-20240601}
export GTCC

fail_setup() {
    echo "robust: $1"
    echo "robust: 0 passed, 1 failed"
    [ -n "${RESULTS:-}" ] && echo "0 1" > "$RESULTS/robust"
    exit 1
}

[ -x "$GTCC" ] || fail_setup "no gtcc at $GTCC"
mkdir -p "$BUILD/fuzz" || fail_setup "cannot create $BUILD/fuzz"
# The generator is a test tool, built without the sanitizers.
if [ ! -x "$BUILD/fuzz/gen" ] || [ "$here/gen.c" -nt "$BUILD/fuzz/gen" ]; then
    $CC -O2 -o "$BUILD/fuzz/gen" "$here/gen.c" || fail_setup "cannot build the generator"
fi
dir="$BUILD/fuzz/cases"
rm -rf "$dir" && mkdir -p "$dir"
seeds=$(find "$root/tests/golden" "$root/examples" -name '*.stn' 2>/dev/null | LC_ALL=C sort)
# shellcheck disable=SC2086
"$BUILD/fuzz/gen" "$dir" "$cases" "$seed" $seeds || fail_setup "the generator failed"

start=$(date +%s)
log="$BUILD/fuzz/log"
ls "$dir" | sed "s|^|$dir/|" |
    xargs -P 2 -n 25 sh "$here/run.sh" --check > "$log" 2>&1
passed=$(grep -c '^ok$' "$log")
failed=$(grep -c '^FAIL' "$log")
missing=$((cases - passed - failed))
if [ "$missing" -gt 0 ]; then   # a worker died: count what it did not report
    echo "robust: $missing cases were not checked"
    failed=$((failed + missing))
fi
grep '^FAIL' "$log" | head -n 30
if [ -n "${RESULTS:-}" ] && grep -q '^FAIL' "$log"; then
    mkdir -p "$RESULTS/robust-failures"
    grep '^FAIL' "$log" | sed 's/^FAIL \([^ ]*\) .*/\1/' | sort -u |
        while read -r f; do cp "$f" "$RESULTS/robust-failures/"; done
fi
echo "robust: $passed passed, $failed failed ($(($(date +%s) - start)) s, seed $seed)"
[ -n "${RESULTS:-}" ] && echo "$passed $failed" > "$RESULTS/robust"
[ "$failed" -eq 0 ]
