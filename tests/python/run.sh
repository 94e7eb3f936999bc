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

if [ -n "${SANFLAGS:-}" ]; then
    # a sanitized libgtrt cannot be loaded into an uninstrumented python: the group runs
    # against the plain build (BUILD without /san), built here if need be
    plain=${BUILD%/san}
    [ "$plain" != "$BUILD" ] || fail "SANFLAGS set but BUILD ($BUILD) is not a build/san"
    make -s -C "$here" BUILD="$plain" SANITIZE= all >/dev/null || fail "make all for $plain failed"
    echo "python: SANITIZE=1: running against the unsanitized build in $plain"
    GTCC=$plain/bin/gtcc
    LIBDIR=$plain/lib
else
    LIBDIR=$BUILD/lib
fi

"$here/tools/pyvenv.sh" "$dir" || fail "no virtual environment (tools/pyvenv.sh)"

rm -rf "$dir/cache" "$dir/junit.xml"
cd "$dir" || fail "cannot cd to $dir"
GTCC=$GTCC GTCC_LIBDIR=$LIBDIR GTCC_INCLUDEDIR=$here/runtime/include \
GTCC_CACHE_DIR=$dir/cache OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} \
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
