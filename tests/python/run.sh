#!/bin/sh
# tests/python/run.sh: the python group. Makes a virtual environment under $BUILD/python
# (tools/pyvenv.sh: python3 -m venv, filled from PyPI with numpy, pytest and hypothesis,
# ./python installed into it) and runs pytest on tests/python against the build tree's gtcc
# and libgtrt. Writes "PASSED FAILED" to $RESULTS/python; pytest's "no tests collected" (exit 5),
# an interrupted run, or a venv that cannot be made count as failures.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$here/build}
RESULTS=${RESULTS:-$BUILD/results}
GTCC=${GTCC:-$BUILD/bin/gtcc}
dir=$BUILD/python
venv=$dir/venv
mkdir -p "$dir" "$RESULTS"
fail() {
    echo "python: $*" >&2
    echo "0 1" > "$RESULTS/python"
    echo "python: 0 passed, 1 failed"
    exit 1
}

PRELOAD=
if [ -n "${SANFLAGS:-}" ]; then
    # SANITIZE=1: the sanitized libgtrt (and gtcc) in an uninstrumented python, with the
    # sanitizers' runtimes preloaded; leaks not checked (the interpreter's own are many)
    for l in libasan.so libubsan.so; do
        f=$(${CC:-cc} -print-file-name=$l)
        [ -e "$f" ] || fail "SANITIZE=1: $l not found by ${CC:-cc} -print-file-name"
        PRELOAD="$PRELOAD $f"
    done
    export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
fi

"$here/tools/pyvenv.sh" "$dir" || fail "no virtual environment (tools/pyvenv.sh)"

rm -rf "$dir/cache" "$dir/junit.xml"
cd "$dir" || fail "cannot cd to $dir"
GTCC=$GTCC GTCC_LIBDIR=$BUILD/lib GTCC_INCLUDEDIR=$here/runtime/include \
LD_PRELOAD=${PRELOAD# } GTCC_CACHE_DIR=$dir/cache OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} \
    timeout 900 "$venv/bin/python" -m pytest -q -p no:cacheprovider \
    --junitxml="$dir/junit.xml" "$here/tests/python"
rc=$?
[ "$rc" = 5 ] && fail "pytest collected no tests"
[ -f "$dir/junit.xml" ] || fail "pytest exited $rc without a report"
counts=$("$venv/bin/python" - "$dir/junit.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
s = r if r.tag == "testsuite" else r.find("testsuite")
t, f, e, k = (int(s.get(x, 0)) for x in ("tests", "failures", "errors", "skipped"))
print(t - f - e - k, f + e)
PY
) || fail "cannot read $dir/junit.xml"
set -- $counts
passed=$1 failed=$2
if [ "$rc" != 0 ] && [ "$failed" = 0 ]; then
    failed=1                               # pytest failed without a failing test (interrupt)
fi
if [ "$passed" = 0 ]; then
    failed=$((failed + 1))
fi
echo "$passed $failed" > "$RESULTS/python"
echo "python: $passed passed, $failed failed"
[ "$failed" = 0 ]
