#!/bin/sh
# tools/vec_report.sh [--check GOLDEN]: which point loops of the openmp backend's output
# vectorise (`make vec-report`; with --check, the `vec` test group of `make check`).
#
# For every bench/stencils/*.stn, bench/peers/*.stn and examples/*/*.stn it writes the openmp
# output (gtcc -b openmp, the #line directives removed so that the compilers' remarks point into
# the C), and builds it with gcc (-fopt-info-vec-all) and with clang (-Rpass=loop-vectorize
# -Rpass-missed=loop-vectorize), both at -O3 -march=$VEC_MARCH (default x86-64-v3: AVX2, the
# vector ISA every machine of the project has; `make vec-report VEC_MARCH=native` for this
# machine's own) without fast-math flags, as a user builds. Each loop the emitter marks `omp
# simd` (the loops over I of every kernel) gets one line per compiler: "vectorized", or "NOT
# vectorized" with the compiler's reason. A loop's remarks are the ones whose line lies between
# its `for` and its closing brace (gcc places them on the body's statements, clang on the pragma
# or the `for`); a loop that gcc turns into a call of memset or memcpy counts as vectorised (the
# library's vector code runs); a loop with no remark is "no remark".
#
# Other innermost loops (the two-iteration edge loops of periodic and boundary-condition
# kernels, which run over at most the reach's few points of a row) are not listed.
#
# --check GOLDEN compares the report with GOLDEN (a reviewed file: tests/golden/vec/report.txt)
# and fails on any difference and on any loop not vectorized; it prints "vec: N passed,
# N failed" (one case = one loop and one compiler) and writes "PASSED FAILED" to
# $RESULTS/vec. Where clang is missing its lines say "clang: not installed" and fail.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$root/build}
GTCC=${GTCC:-$BUILD/bin/gtcc}
MARCH=${VEC_MARCH:-x86-64-v3}
work=$BUILD/vec
rm -rf "$work"; mkdir -p "$work"
report=$work/report.txt
: >"$report"
for stn in "$root"/bench/stencils/*.stn "$root"/bench/peers/*.stn "$root"/examples/*/*.stn; do
    rel=${stn#"$root"/}
    name=$(echo "$rel" | tr '/' '_' | sed 's/\.stn$//')
    c=$work/$name.c
    if ! (cd "$(dirname "$stn")" && "$GTCC" -b openmp -o "$c" "$(basename "$stn")") >"$work/$name.log" 2>&1; then
        echo "$rel: gtcc -b openmp failed" >>"$report"; continue
    fi
    sed -i '/^#line /d' "$c"
    gcc -std=c11 -O3 -march="$MARCH" -fopenmp -I"$root/runtime/include" -I"$work" -c "$c" \
        -o "$work/$name.gcc.o" -fopt-info-vec-all 2>"$work/$name.gcc" ||
        echo "$rel: gcc failed" >>"$report"
    if command -v clang >/dev/null 2>&1; then
        clang -std=c11 -O3 -march="$MARCH" -fopenmp -I"$root/runtime/include" -I"$work" -c "$c" \
            -o "$work/$name.clang.o" -Rpass=loop-vectorize -Rpass-missed=loop-vectorize \
            2>"$work/$name.clang" || echo "$rel: clang failed" >>"$report"
    else
        echo "not installed" >"$work/$name.clang"
    fi
    # the simd loops: the line of each pragma and of its loop's closing brace
    awk '/GT_OMP\(omp simd\)/ { start = NR; depth = 0; open = 0; next }
         start { n = gsub(/\{/, "{"); m = gsub(/\}/, "}"); depth += n - m; if (n) open = 1;
                 if (open && depth <= 0) { print start, NR; start = 0 } }' "$c" >"$work/$name.loops"
    loop=0
    while read -r from to; do
        loop=$((loop + 1))
        base=$(basename "$c")
        g=$(awk -F: -v f="$base" -v a="$from" -v b="$to" '
              index($1, f) && $2 > a && $2 <= b && /optimized: loop vectorized/ { ok = 1 }
              index($1, f) && $2 > a && $2 <= b && /missed: not vectorized:/ && why == "" {
                  sub(/.*missed: not vectorized: */, ""); why = $0 }
              index($1, f) && $2 > a && $2 <= b && /missed: couldn.t vectorize loop/ { bad = 1 }
              index($1, f) && $2 > a && $2 <= b && /__builtin_mem(set|cpy|move) \(/ { lib = 1 }
              END { if (ok) print "vectorized";
                    else if (lib && !bad) print "vectorized (a library memset/memcpy)";
                    else if (bad || why != "") print "NOT vectorized: " why;
                    else print "no remark" }' "$work/$name.gcc")
        if grep -q '^not installed' "$work/$name.clang"; then
            k="not installed"
        else
            k=$(awk -F: -v f="$base" -v a="$from" -v b="$to" '
                  index($1, f) && $2 >= a && $2 <= b && /remark: vectorized loop/ { ok = 1 }
                  index($1, f) && $2 >= a && $2 <= b && /remark: loop not vectorized/ && why == "" {
                      sub(/.*remark: loop not vectorized:? */, ""); why = $0 }
                  END { if (ok) print "vectorized"; else if (why != "") print "NOT vectorized: " why;
                        else print "no remark" }' "$work/$name.clang")
        fi
        echo "$rel loop $loop: gcc: $g" >>"$report"
        echo "$rel loop $loop: clang: $k" >>"$report"
    done <"$work/$name.loops"
done
if [ "${1:-}" != "--check" ]; then
    echo "vec-report: point loops of the openmp output, gcc $(gcc -dumpfullversion) and" \
         "$(clang --version 2>/dev/null | head -n 1 || echo 'no clang'), -O3 -march=$MARCH"
    cat "$report"
    echo "vec-report: $(grep -Ec ': vectorized( \(|$)' "$report") vectorized," \
         "$(grep -Evc ': vectorized( \(|$)' "$report") not (compiler remarks in $work)"
    exit 0
fi
golden=$2
passed=0; failed=0
while IFS= read -r line; do
    case $line in
        *": vectorized"|*": vectorized ("*) passed=$((passed + 1)) ;;
        *) failed=$((failed + 1)); echo "FAIL $line" ;;
    esac
done <"$report"
if ! diff -u "$golden" "$report" >"$work/diff"; then
    failed=$((failed + 1))
    echo "FAIL the report differs from $golden (review it and update the file):"
    sed 's/^/  | /' "$work/diff" | head -n 40
fi
echo "vec: $passed passed, $failed failed (point loops x {gcc, clang}, -O3 -march=$MARCH)"
[ -n "${RESULTS:-}" ] && echo "$passed $failed" >"$RESULTS/vec"
[ "$failed" -eq 0 ]
