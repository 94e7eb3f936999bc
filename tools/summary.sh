#!/bin/sh
# tools/summary.sh RESULTS GROUP...: adds up the "PASSED FAILED" counts that each
# test group wrote to RESULTS/GROUP and prints the closing line of `make check`.
# A group that wrote no result (it crashed or did not build) counts as one failure.
set -u
dir=$1; shift
passed=0; failed=0
for g in "$@"; do
    if [ -r "$dir/$g" ]; then
        read p f < "$dir/$g"
        printf '  %-12s %5d passed, %d failed\n' "$g:" "$p" "$f"
    else
        p=0; f=1
        printf '  %-12s no result (the group did not run to its end)\n' "$g:"
    fi
    passed=$((passed + p)); failed=$((failed + f))
done
echo "check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
