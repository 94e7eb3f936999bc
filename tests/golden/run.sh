#!/bin/sh
# tests/golden/run.sh [--update] [NAME...]: golden tests in the cproc style.
#
# For each tests/golden/<kind>/NAME.stn, the mode comes from the expectation
# file that sits beside it:
#   NAME.ir    gtcc --emit=ir NAME.stn       exit 0, stdout must equal NAME.ir
#   NAME.err   gtcc --emit=ir NAME.stn       exit 1 (or the status in an
#              `// EXIT: N` line), stderr must equal NAME.err
#   NAME.c     gtcc -b naive -o OUT.c NAME.stn   OUT.c must equal NAME.c, and the
#              header OUT.h NAME.h where a NAME.h sits beside it
#   NAME.json  gtcc --emit=meta NAME.stn     exit 0, stdout must equal NAME.json, and
#              be JSON (python3 -m json.tool, where python3 is found)
#   NAME.f90   gtcc --emit=fortran -o OUT.f90 NAME.stn   OUT.f90 must equal NAME.f90
# Extra options come from a `// ARGS: ...` line in the .stn file. gtcc runs in
# the test's directory on the bare file name, so paths in messages are stable.
# A .stn with no expectation beside it fails (run --update to create one).
# --update rewrites the expectations from the current gtcc: review `git diff`. It refuses
# (counts a failure, leaves the expectation as it was) a test whose exit status is not the
# expected one: a crash, or a program newly accepted or rejected is a bug to look at, not a
# new expectation; where the new status is right, record it in an `// EXIT: N` line first.
# A status above 2 (a crash: gtcc itself exits 0, 1 or 2) is never right, with or without
# an EXIT line: --update never blesses it and a plain run fails it.
# Then, without NAMEs and --update, tests/golden/docs.sh: the examples of the user
# documentation compile and give what the pages show.
# Prints a unified diff per failure, then "N passed, N failed"; writes the
# counts to $RESULTS/golden when RESULTS is set.
set -u
here=$(cd "$(dirname "$0")" && pwd)
GTCC=${GTCC:-$here/../../build/bin/gtcc}
update=0
[ "${1:-}" = "--update" ] && { update=1; shift; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
passed=0; failed=0
fail() { failed=$((failed + 1)); echo "FAIL: $1"; }

for stn in "$here"/*/*.stn; do
    [ -e "$stn" ] || continue
    dir=$(dirname "$stn"); kind=$(basename "$dir"); base=$(basename "$stn" .stn)
    name="$kind/$base"
    if [ $# -gt 0 ]; then
        case " $* " in *" $base "*|*" $name "*) ;; *) continue ;; esac
    fi
    args=$(sed -n 's|^// ARGS: *||p' "$stn" | head -n 1)
    want_status=$(sed -n 's|^// EXIT: *||p' "$stn" | head -n 1)
    if [ -e "$dir/$base.c" ] || { [ $update = 1 ] && [ "$kind" = emit ]; }; then
        mode=c
    elif [ -e "$dir/$base.err" ] || { [ $update = 1 ] && [ "$kind" = errors ]; }; then
        mode=err
    elif [ -e "$dir/$base.ir" ] || { [ $update = 1 ] && [ "$kind" = ir ]; }; then
        mode=ir
    elif [ -e "$dir/$base.json" ] || { [ $update = 1 ] && [ "$kind" = meta ]; }; then
        mode=meta
    elif [ -e "$dir/$base.f90" ] || { [ $update = 1 ] && [ "$kind" = fortran ]; }; then
        mode=fortran
    else
        fail "$name: no expectation (.ir, .err, .c, .json or .f90) beside it"; continue
    fi
    case $mode in
    ir)  (cd "$dir" && eval "\"$GTCC\" --emit=ir $args \"$base.stn\"") >"$tmp/out" 2>"$tmp/err"
         status=$?; want=$dir/$base.ir; got=$tmp/out; want_status=${want_status:-0} ;;
    meta) (cd "$dir" && eval "\"$GTCC\" --emit=meta $args \"$base.stn\"") >"$tmp/out" 2>"$tmp/err"
         status=$?; want=$dir/$base.json; got=$tmp/out; want_status=${want_status:-0}
         if [ "$status" = 0 ] && command -v python3 >/dev/null 2>&1 &&
            ! python3 -m json.tool "$got" >/dev/null 2>"$tmp/json"; then
             fail "$name: the output is not JSON"; sed 's/^/  | /' "$tmp/json" | head -n 5; continue
         fi ;;
    fortran) (cd "$dir" && eval "\"$GTCC\" --emit=fortran $args -o \"$tmp/$base.f90\" \"$base.stn\"") >"$tmp/out" 2>"$tmp/err"
         status=$?; want=$dir/$base.f90; got=$tmp/$base.f90; want_status=${want_status:-0}
         [ -e "$got" ] || : > "$got" ;;
    err) (cd "$dir" && eval "\"$GTCC\" --emit=ir $args \"$base.stn\"") >"$tmp/out" 2>"$tmp/err"
         status=$?; want=$dir/$base.err; got=$tmp/err; want_status=${want_status:-1} ;;
    c)   (cd "$dir" && eval "\"$GTCC\" -b naive $args -o \"$tmp/$base.c\" \"$base.stn\"") >"$tmp/out" 2>"$tmp/err"
         status=$?; want=$dir/$base.c; got=$tmp/$base.c; want_status=${want_status:-0}
         [ -e "$got" ] || : > "$got"
         # the source's #line directives name it by the -o path: leave out $tmp/
         sed "s|^\(#line [0-9]* \"\)$tmp/|\1|" "$got" > "$tmp/lines" && mv "$tmp/lines" "$got" ;;
    esac
    if [ $update = 1 ]; then
        if [ "$status" -gt 2 ]; then
            fail "$name: gtcc crashed (exit status $status): not updated"
            sed 's/^/  | /' "$tmp/err" | head -n 20
            continue
        elif [ "$status" != "$want_status" ]; then
            fail "$name: exit status $status, expected $want_status: not updated (if $status is right, add \`// EXIT: $status\` to $base.stn)"
            sed 's/^/  | /' "$tmp/err" | head -n 20
            continue
        fi
        cp "$got" "$want"
        [ $mode = c ] && [ -e "$dir/$base.h" ] && cp "$tmp/$base.h" "$dir/$base.h"
        passed=$((passed + 1)); continue
    fi
    if [ "$status" -gt 2 ]; then
        fail "$name: gtcc crashed (exit status $status)"; sed 's/^/  | /' "$tmp/err" | head -n 20
    elif [ "$status" != "$want_status" ]; then
        fail "$name: exit status $status, expected $want_status"; sed 's/^/  | /' "$tmp/err" | head -n 20
    elif ! diff -u "$want" "$got" >"$tmp/diff"; then
        fail "$name: output differs from $(basename "$want")"; cat "$tmp/diff"
    elif [ $mode = c ] && [ -e "$dir/$base.h" ] &&
         ! diff -u "$dir/$base.h" "$tmp/$base.h" >"$tmp/diff" 2>&1; then
        fail "$name: header differs from $base.h"; cat "$tmp/diff"
    else
        passed=$((passed + 1))
    fi
done
# The user documentation's examples and quoted messages (tests/golden/docs.sh), on a run of
# every test (not with NAMEs, not --update: the pages are fixed by hand).
if [ $# -eq 0 ] && [ $update = 0 ]; then
    GTCC=$GTCC sh "$here/docs.sh" > "$tmp/docs" 2>&1
    grep -v '^docs: [0-9]* passed, [0-9]* failed$' "$tmp/docs"
    set -- $(sed -n 's/^docs: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$tmp/docs")
    if [ $# -eq 2 ]; then
        passed=$((passed + $1)); failed=$((failed + $2))
    else
        fail "docs: tests/golden/docs.sh gave no count"
    fi
fi
echo "golden: $passed passed, $failed failed"
[ -n "${RESULTS:-}" ] && echo "$passed $failed" > "$RESULTS/golden"
[ "$failed" -eq 0 ]
