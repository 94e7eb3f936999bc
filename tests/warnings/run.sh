#!/bin/sh
# tests/warnings/run.sh: the generated C compiles cleanly with the strictest
# warnings, `make warnings`.
#
# Every tests/numeric/*.stn, examples/*/*.stn, bench/stencils/*.stn,
# tests/golden/emit/*.stn and tests/diff/programs/*.stn is compiled by gtcc with both backends (naive and
# openmp; gtcc options from a `// ARGS: ...` line), and each output is
# compiled (compile only: -c) with
#   -std=c11 -Wall -Wextra -Wpedantic -Werror -fopenmp -O2 -I runtime/include
# by gcc and by clang ($WARN_COMPILERS, default "gcc clang"). A compiler that
# is not installed is skipped with a line saying so and counts nothing. One
# case = one program, one backend, one compiler (a gtcc failure counts one
# failed case per backend). Compiles run two at a time.
#
# Prints "warnings: N passed, N failed" and writes "PASSED FAILED" to
# $RESULTS/warnings when RESULTS is set.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
GTCC=${GTCC:-$BUILD/bin/gtcc}
FLAGS="-std=c11 -Wall -Wextra -Wpedantic -Werror -fopenmp -O2 ${WARN_EXTRA_FLAGS:-}"

# --- worker: run.sh --one DIR NAME CC WHAT ------------------------------------
# compiles DIR/NAME.c (NAME.h beside it) with CC; prints PASS/FAIL WHAT [CC]
if [ "${1:-}" = "--one" ]; then
    dir=$2; name=$3; cc=$4; shift 4; what=$*
    log=$dir/$name.$cc.log
    if $cc $FLAGS -I"$root/runtime/include" -I"$dir" -c "$dir/$name.c" -o "$dir/$name.$cc.o" \
            >"$log" 2>&1; then
        echo "PASS $what [$cc]"
    else
        # one write, so that the lines of two workers do not interleave
        { echo "FAIL $what [$cc]: does not compile cleanly"
          sed 's/^/  | /' "$log" | head -n 20; } >"$log.msg"
        cat "$log.msg"
    fi
    exit 0
fi

work=$BUILD/warnings
rm -rf "$work"; mkdir -p "$work"
results=$work/results
: >"$results"

compilers=""
for cc in ${WARN_COMPILERS:-gcc clang}; do
    if command -v "$cc" >/dev/null 2>&1; then
        compilers="$compilers $cc"
    else
        echo "warnings: SKIP $cc: not installed, its compiles are not run (nor counted)"
    fi
done

# One more program, hostile names: every macro the headers of the generated
# code define and every function they declare (as the compilers installed
# preprocess them, <omp.h> included), as field and scalar names, and as the
# names of one-stencil programs that gtcc must either reject with an error
# or compile; the accepted ones join the program as stencils.
names=$work/names
mkdir -p "$names"
printf '#include <math.h>\n#include <stdbool.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <gt/gt.h>\n#include <gt/gt_generated.h>\n#include <omp.h>\n' >"$names/inc.c"
kw='stencil|function|const|import|return|if|else|computation|interval|parallel|forward|backward|end|boundary|periodic|dirichlet|neumann|mirror|field|out|double|float|int|bool|true|false|i|j|k|index|region|while|sum|min|max'
for cc in $compilers; do
    $cc -std=c11 -fopenmp -I"$root/runtime/include" -dM -E "$names/inc.c" | awk '{print $2}' |
        sed 's/(.*//'
    $cc -std=c11 -fopenmp -I"$root/runtime/include" -E -P "$names/inc.c" |
        grep -oE '[A-Za-z_][A-Za-z0-9_]* *\(' | sed 's/ *(//'
done | grep -E '^[A-Za-z_][A-Za-z0-9_]*$' | grep -v -x -E "$kw" | LC_ALL=C sort -u >"$names/list"
hostile=$work/hostile_names.stn
: >"$hostile"
: >"$names/params"
while read -r name; do
    echo "stencil $name(field<double> a, field<double> b) { b = a; }" >"$names/one.stn"
    "$GTCC" -b naive -o "$names/one.c" "$names/one.stn" >"$names/one.log" 2>&1
    st=$?
    if [ $st -eq 0 ]; then
        cat "$names/one.stn" >>"$hostile"
    elif [ $st -ne 1 ] || ! grep -q 'error:' "$names/one.log"; then
        echo "FAIL stencil named $name: gtcc exit status $st" >>"$results"
    fi
    # a name the language refuses for a parameter (a builtin's) is left out
    echo "stencil f(field<double> $name, field<double> b) { b = $name; }" >"$names/one.stn"
    "$GTCC" --emit=ir "$names/one.stn" >/dev/null 2>&1 && echo "$name" >>"$names/params"
done <"$names/list"
split -l 24 "$names/params" "$names/chunk."
for chunk in "$names"/chunk.*; do
    c=${chunk##*.}
    awk -v c="$c" '{ p = p sep ((NR % 2) ? "field<double> " : "double ") $0; e = e plus $0;
                     sep = ", "; plus = " + " }
        END { print "stencil fields_" c "(" p ", field<double> res_) { res_ = " e "; }" }' \
        "$chunk" >>"$hostile"
done
echo "warnings: $(wc -l <"$names/list") names from the headers (build/warnings/hostile_names.stn)"

# generate every program with both backends; list the compile jobs
jobs=$work/jobs
: >"$jobs"
n=0
for stn in "$root"/tests/numeric/*.stn "$root"/examples/*/*.stn "$root"/bench/stencils/*.stn \
           "$root"/tests/golden/emit/*.stn "$root"/tests/diff/programs/*.stn "$hostile"; do
    [ -e "$stn" ] || continue
    n=$((n + 1))
    rel=${stn#"$root"/}
    args=$(sed -n 's|^// ARGS: *||p' "$stn" | head -n 1)
    for backend in naive openmp; do
        dir=$work/p$n-$backend
        mkdir -p "$dir"
        base=$(basename "$stn" .stn)
        if ! (cd "$(dirname "$stn")" &&
              eval "\"$GTCC\" -b $backend $args -o \"$dir/$base.c\" \"$base.stn\"") \
                >"$dir/gtcc.log" 2>&1; then
            echo "FAIL $rel -b $backend: gtcc failed" >>"$results"
            sed 's/^/  | /' "$dir/gtcc.log" | head -n 20 >>"$results"
            continue
        fi
        for cc in $compilers; do
            echo "$dir $base $cc $rel -b $backend" >>"$jobs"
        done
    done
done

xargs -r -L 1 -P 2 "$here/run.sh" --one <"$jobs" >>"$results" 2>&1
grep -v '^PASS ' "$results" | head -n 80
passed=$(grep -c '^PASS ' "$results")
failed=$(grep -c '^FAIL ' "$results")
echo "warnings: $passed passed, $failed failed ($n programs x 2 backends x compilers:$compilers)"
[ -n "${RESULTS:-}" ] && echo "$passed $failed" >"$RESULTS/warnings"
[ "$failed" -eq 0 ]
