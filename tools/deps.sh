#!/bin/sh
# tools/deps.sh: makes sure the Debian build dependencies of gtcc are present.
# Called by the Makefile before anything is built. As root on a machine that
# lacks a package it installs it with apt-get; otherwise it prints the one
# apt-get line to run and fails.
set -u
missing=""
need() { # need PACKAGE TEST-COMMAND...
    pkg=$1; shift
    "$@" >/dev/null 2>&1 || missing="$missing $pkg"
}
need flex       command -v flex
need bison      command -v bison
need pkg-config command -v pkg-config
need check      pkg-config --exists check
need libomp-dev sh -c 'ls /usr/lib/llvm-*/lib/libomp.so /usr/lib/x86_64-linux-gnu/libomp.so* 2>/dev/null | grep -q .'
need gcc        command -v cc
need g++        command -v g++
need clang      command -v clang
need gfortran   command -v gfortran
need make       command -v make
need libopenmpi-dev command -v mpicc
need openmpi-bin command -v mpirun
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -qq $missing >/dev/null 2>&1; then
        apt-get update -qq >/dev/null 2>&1
        apt-get install -y -qq $missing >/dev/null || {
            echo "deps: apt-get install$missing failed" >&2; exit 1; }
    fi
    exit 0
fi
echo "deps: missing build dependencies; run as root:" >&2
echo "    apt-get install$missing" >&2
exit 1
