#!/bin/sh
# tools/pyvenv.sh DIR: a Python virtual environment in DIR/venv with the gtcc package of
# python/ installed, for the python check group, make demo and make bench. Made with
# python3 -m venv (python3-venv installed with apt-get where it is missing and we are root,
# as tools/deps.sh installs the build dependencies), filled once from PyPI (numpy, pytest,
# hypothesis, setuptools, wheel; mpi4py too where mpirun is found); the package is installed again on every call, from a copy
# in DIR/src (setuptools writes build/ and egg-info beside the sources). Prints nothing on
# success; exits 1 with a message otherwise.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: tools/pyvenv.sh DIR}
venv=$dir/venv
mkdir -p "$dir" || exit 1
if [ ! -x "$venv/bin/python" ] || [ ! -f "$venv/.filled3" ]; then
    rm -rf "$venv"
    if ! python3 -m venv "$venv" >/dev/null 2>&1; then
        rm -rf "$venv"
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            echo "pyvenv: installing python3-venv" >&2
            export DEBIAN_FRONTEND=noninteractive
            apt-get install -y -qq python3-venv >/dev/null 2>&1 || {
                apt-get update -qq >/dev/null 2>&1
                apt-get install -y -qq python3-venv >/dev/null 2>&1; }
        fi
        python3 -m venv "$venv" >/dev/null 2>&1 || {
            echo "pyvenv: python3 -m venv failed (as root: apt-get install python3-venv)" >&2
            exit 1; }
    fi
    timeout 900 "$venv/bin/pip" install -q numpy pytest hypothesis setuptools wheel || {
        echo "pyvenv: pip install numpy pytest hypothesis setuptools wheel failed" >&2; exit 1; }
    # mpi4py (a binary wheel that uses the system's Open MPI or MPICH) where MPI is installed:
    # optional, the MPI tests skip without it
    if command -v mpirun >/dev/null 2>&1; then
        timeout 900 "$venv/bin/pip" install -q mpi4py ||
            echo "pyvenv: pip install mpi4py failed: the MPI tests will be skipped" >&2
    fi
    touch "$venv/.filled3"
fi
# (without a build/ or egg-info that a pip install in python/ itself left: setuptools would
# take build/lib's stale copies of the modules, as new as the sources after cp)
rm -rf "$dir/src" && cp -r "$here/python" "$dir/src" &&
    rm -rf "$dir/src/build" "$dir/src"/*.egg-info || exit 1
timeout 600 "$venv/bin/pip" install -q --no-deps --no-build-isolation --force-reinstall \
    "$dir/src" >"$dir/pip.log" 2>&1 || {
    cat "$dir/pip.log" >&2; echo "pyvenv: pip install ./python failed" >&2; exit 1; }
