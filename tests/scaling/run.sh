#!/bin/sh
# tests/scaling/run.sh: gtcc answers legal programs in time and memory roughly
# linear in their size, or with a clear diagnostic, never a signal
# (`make scaling`).
#
# Each case generates a big input in $BUILD/scaling and runs gtcc on it under
# a CPU-time limit (and, without the sanitizers, an address-space limit),
# where the quadratic (or worse) behaviour that each case once had would
# clearly exceed the limits, and linear behaviour stays well inside:
#   sum        a flat sum of 4,000,000 terms (16 MB): a clear error (expression
#              nested too deeply), not a stack overflow; 300,000 terms compile
#   stencils   10,000 stencils (naive, openmp, cuda): each stencil's name set
#              copied every global name (10 GB and an abort)
#   elseif     an if / else-if chain of 10,000 branches (naive, openmp, cuda):
#              each branch repeated every earlier condition, or was indented
#              one level deeper (1.5 GB of C); the C must stay within 100 bytes
#              per byte of input
#   deadtemps  100,000 temporaries no output uses, removed with a warning each
#              (each warning searched the file from its start: 29 s)
#   imports    a chain of 10,000 files, each importing the next (cubic: 20,000
#              files took 6 min 37 s)
#   blocktemps 20,000 if blocks that each declare the same two temporaries
#              (--emit=ir, naive, openmp, cuda): each new name tried every
#              suffix taken before it, and each if copied a flag per temporary
#              of the stencil (10,000 took 81 s and 2.4 GB)
#   multi      20,000 multiple assignments `c, d = f(c, d + 1.0);`, two
#              temporaries each (--emit=ir, naive, openmp, cuda): the same
#              search for a free name (10,000 took 82 s and 1.65 GB)
# Limits: 20 CPU seconds per gtcc run (60 under the sanitizers), 3 GiB of
# address space (gtcc reserves a 1 GiB stack), 200 MB per output file.
# Prints "scaling: N passed, N failed" and writes "PASSED FAILED" to
# $RESULTS/scaling when RESULTS is set.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
GTCC=${GTCC:-$BUILD/bin/gtcc}
work=$BUILD/scaling
rm -rf "$work"; mkdir -p "$work" || exit 1
cpu=20
[ -n "${SANFLAGS:-}" ] && cpu=60
passed=0; failed=0
pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; sed 's/^/  | /' "$work/err" | head -n 5; }

# run NAME ARGS...: gtcc under the limits, in $work; sets $st and $secs
run() {
    name=$1; shift
    start=$(date +%s)
    (
        ulimit -t $cpu
        ulimit -f 409600   # 512-byte blocks: 200 MB
        [ -n "${SANFLAGS:-}" ] || ulimit -v 3145728
        cd "$work" && exec "$GTCC" "$@"
    ) >"$work/out" 2>"$work/err"
    st=$?
    secs=$(($(date +%s) - start))
}

# expect_ok NAME: the last run exited 0
expect_ok() {
    if [ $st -eq 0 ]; then pass "$1 ($secs s)"
    else fail "$1: exit status $st after $secs s (signal, or a limit hit?)"; fi
}

# --- sum ------------------------------------------------------------------------
sum_program() {
    awk -v n="$1" 'BEGIN { printf "stencil s(field<double> a, field<double> b) {\n  b = a";
                           for (t = 1; t < n; t++) printf " + a"; printf ";\n}\n" }'
}
sum_program 4000000 >"$work/sum4m.stn"
run sum4m --emit=ir sum4m.stn
if [ $st -eq 1 ] && grep -q 'error: expression nested too deeply' "$work/err"; then
    pass "sum: 4,000,000 terms give an error ($secs s)"
else
    fail "sum: 4,000,000 terms: exit status $st, expected 1 with 'expression nested too deeply'"
fi
rm -f "$work/sum4m.stn"
sum_program 300000 >"$work/sum300k.stn"
run sum300k -b naive -o sum300k.c sum300k.stn
expect_ok "sum: 300,000 terms compile"

# --- stencils -------------------------------------------------------------------
awk 'BEGIN { for (s = 0; s < 10000; s++)
    printf "stencil st%d(field<double> a, field<double> b, double x) { b = a[i+1] * x; }\n", s }' \
    >"$work/stencils.stn"
for be in naive openmp cuda; do
    run stencils -b $be -o "stencils_$be.c" stencils.stn
    expect_ok "stencils: 10,000 stencils, -b $be"
done

# --- elseif ---------------------------------------------------------------------
awk 'BEGIN { printf "stencil s(field<double> a, field<double> b) {\n  if (a > 0.0) b = 0.0;\n";
             for (n = 1; n < 10000; n++) printf "  else if (a > %d.0) b = %d.0;\n", n, n;
             printf "  else b = -1.0;\n}\n" }' >"$work/elseif.stn"
in_size=$(wc -c <"$work/elseif.stn")
for be in naive openmp cuda; do
    run elseif -b $be -o "elseif_$be.c" elseif.stn
    out_size=$(cat "$work"/elseif_$be.c* 2>/dev/null | wc -c)
    if [ $st -ne 0 ]; then
        fail "elseif: 10,000 branches, -b $be: exit status $st after $secs s"
    elif [ "$out_size" -gt $((100 * in_size)) ]; then
        fail "elseif: 10,000 branches, -b $be: $out_size bytes of C for $in_size of input"
    else
        pass "elseif: 10,000 branches, -b $be ($secs s, $out_size bytes)"
    fi
    rm -f "$work"/elseif_$be.c*
done

# --- deadtemps ------------------------------------------------------------------
awk 'BEGIN { printf "stencil s(field<double> a, field<double> b) {\n";
             for (n = 0; n < 100000; n++) printf "  double t%d = a[i+1];\n", n;
             printf "  b = a;\n}\n" }' >"$work/deadtemps.stn"
run deadtemps --emit=ir deadtemps.stn
if [ $st -eq 0 ] && [ "$(grep -c "warning: temporary 't[0-9]*' is never used" "$work/err")" -eq 100000 ]
then
    pass "deadtemps: 100,000 unused temporaries, a warning each ($secs s)"
else
    fail "deadtemps: exit status $st after $secs s, $(grep -c warning: "$work/err") warnings"
fi

# --- imports --------------------------------------------------------------------
mkdir -p "$work/imports"
awk -v dir="$work/imports" 'BEGIN {
    n = 10000
    for (k = 1; k < n; k++) {
        f = dir "/m" k ".stn"
        if (k + 1 < n) printf "import \"m%d.stn\";\n", k + 1 >f
        printf "const double c%d = 1.0;\n", k >f
        close(f)
    }
    printf "import \"m1.stn\";\nstencil s(field<double> a, field<double> b) { b = a * c1 + c%d; }\n",
        n - 1 >(dir "/main.stn") }'
run imports --emit=ir imports/main.stn
expect_ok "imports: a chain of 10,000 files"
rm -rf "$work/imports"

# --- blocktemps, multi -------------------------------------------------------------
# Block-local temporaries: every block declares p and q, which become p, p_2,
# ..., p_20000 (checked in the IR), and the same for the temporaries of the
# multiple assignments (f_c, f_c_2, ...).
awk 'BEGIN { printf "stencil s(field<double> a, field<double> b) {\n  b = a;\n";
             for (n = 0; n < 20000; n++)
                 printf "  if (a > %d.0) { double p = a[i+1] * 2.0; double q = p + a; b = b + q; }\n", n;
             printf "}\n" }' >"$work/blocktemps.stn"
awk 'BEGIN { printf "function f(x, y) { return y, x; }\n";
             printf "stencil s(field<double> a, field<double> b) {\n  double c = a;\n  double d = a;\n";
             for (n = 0; n < 20000; n++) printf "  c, d = f(c, d + 1.0);\n";
             printf "  b = c + d;\n}\n" }' >"$work/multi.stn"
for case in blocktemps:p:q multi:f_c:f_d; do
    prog=${case%%:*}; rest=${case#*:}; t1=${rest%%:*}; t2=${rest#*:}
    run $prog --emit=ir $prog.stn
    if [ $st -ne 0 ]; then
        fail "$prog: 20,000 pairs of temporaries, --emit=ir: exit status $st after $secs s"
    elif ! grep -q "^  temp ${t1}_20000: " "$work/out" || ! grep -q "^  temp ${t2}_20000: " "$work/out" \
         || grep -q "^  temp ${t1}_20001: " "$work/out" \
         || [ "$(grep -c "^  temp ${t1}\(_[0-9]*\)\{0,1\}: " "$work/out")" -ne 20000 ]; then
        fail "$prog: 20,000 pairs of temporaries, --emit=ir: not named ${t1}, ${t1}_2, ..., ${t1}_20000"
    else
        pass "$prog: 20,000 pairs of temporaries, --emit=ir ($secs s)"
    fi
    for be in naive openmp cuda; do
        run $prog -b $be -o "${prog}_$be.c" $prog.stn
        expect_ok "$prog: 20,000 pairs of temporaries, -b $be"
        rm -f "$work"/${prog}_$be.c*
    done
done

echo "scaling: $passed passed, $failed failed"
[ -n "${RESULTS:-}" ] && echo "$passed $failed" >"$RESULTS/scaling"
[ "$failed" -eq 0 ]
