"""bench/python/bench.py: the Python package's call overhead and large-call speed (make
bench, through bench/python/run.sh). Prints, per backend, the median time of a call of a
3-field stencil on 4x4x1 arrays (target: at most 20 microseconds), the same call from C, and
hdiff on N x N x NK from Python against the same call from C (call.c, which loads the very
library the package built; target within 2%), in ROUNDS rounds that alternate C and Python."""
import os
import subprocess
import sys
import time

import numpy as np

import gtcc

SRC = """
stencil add3(field<double> a, field<double> b, field<double> c) { c = a + b; }
function lap(f) { return 4.0 * f - (f[i-1] + f[i+1] + f[j-1] + f[j+1]); }
stencil hdiff(field<double> u, field<double> coeff, field<double> out_u) {
  double l   = lap(u);
  double flx = l[i+1] - l;
  if (flx * (u[i+1] - u) > 0.0) flx = 0.0;
  double fly = l[j+1] - l;
  if (fly * (u[j+1] - u) > 0.0) fly = 0.0;
  out_u = u - coeff * (flx - flx[i-1] + fly - fly[j-1]);
}
"""
TINY, N, NK, LARGE, ROUNDS = 1000, 256, 64, 11, 7


def tiny(f):
    """Median per-call time (us) of f(a, b, c) on three 4x4x1 arrays, 11 batches of TINY."""
    a, b, c = (np.zeros((4, 4, 1)) for _ in range(3))
    t = []
    for _ in range(11):
        t0 = time.perf_counter()
        for _ in range(TINY):
            f(a, b, c)
        t.append((time.perf_counter() - t0) / TINY)
    return 1e6 * sorted(t)[5]


def large(mod):
    shape = (N + 4, N + 4, NK)
    u = gtcc.empty(shape, halo=((2, 2), (2, 2), (0, 0)), aligned=True)
    co = gtcc.empty(shape, halo=((2, 2), (2, 2), (0, 0)), aligned=True)
    o = gtcc.zeros(shape, halo=((2, 2), (2, 2), (0, 0)), aligned=True)
    u[...] = 1.0
    co[...] = 0.025
    mod.hdiff(u, co, o)
    t = []
    for _ in range(LARGE):
        t0 = time.perf_counter()
        mod.hdiff(u, co, o)
        t.append(time.perf_counter() - t0)
    return sorted(t)[LARGE // 2]


def build_pybind(work):
    """The GT4Py-style pybind11 module (pybind_call.cpp), or None (pybind11 or a C++
    compiler or Python's headers missing: the row says so)."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        inc = subprocess.run([sys.executable, "-m", "pybind11", "--includes"], check=True,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True).stdout.split()
        suffix = subprocess.run([sys.executable, "-c", "import sysconfig; print(sysconfig."
                                 "get_config_var('EXT_SUFFIX'))"], check=True,
                                stdout=subprocess.PIPE, text=True).stdout.strip()
        subprocess.run([os.environ.get("CXX", "g++"), "-O2", "-shared", "-fPIC",
                        "-std=c++17"] + inc + [os.path.join(here, "pybind_call.cpp"), "-o",
                                               os.path.join(work, "pybind_call" + suffix)],
                       check=True, stderr=subprocess.PIPE)
    except (OSError, subprocess.CalledProcessError):
        return None
    sys.path.insert(0, work)
    import pybind_call
    return pybind_call


def gt4py_side(work):
    """GT4Py's own tiny call (gt4py_call.py, gt:cpu_ifirst) in the venv of make bench-peers:
    {"validate": us, "novalidate": us}, or None where that venv is missing or fails."""
    here = os.path.dirname(os.path.abspath(__file__))
    build = os.environ.get("BUILD") or os.path.join(os.path.dirname(os.path.dirname(here)),
                                                    "build")
    py = os.path.join(build, "bench", "peers-venv", "bin", "python")
    if not os.path.exists(py):
        return None
    try:
        out = subprocess.run([py, os.path.join(here, "gt4py_call.py"), "gt:cpu_ifirst",
                              str(TINY)], check=True, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, cwd=work,
                             timeout=900).stdout.split()
        return {out[0]: float(out[1]), out[2]: float(out[3])}
    except (OSError, subprocess.SubprocessError, IndexError, ValueError):
        return None


def build_c(work):
    here = os.path.dirname(os.path.abspath(__file__))
    exe = os.path.join(work, "call")
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-I" + os.environ["GTCC_INCLUDEDIR"],
                    "-I" + os.path.dirname(here), os.path.join(here, "call.c"),
                    "-L" + os.environ["GTCC_LIBDIR"], "-Wl,-rpath," + os.environ["GTCC_LIBDIR"],
                    "-lgtrt", "-ldl", "-lm", "-o", exe], check=True)
    return exe


def c_side(exe, mod):
    lib = os.path.join(mod.path, "libstencils.so")
    out = subprocess.run([exe, lib, str(TINY), str(N), str(NK), str(LARGE)], check=True,
                         stdout=subprocess.PIPE, text=True).stdout.split()
    return float(out[1]), float(out[3])


def main():
    work = sys.argv[1]
    stn = os.path.join(work, "pybench.stn")
    with open(stn, "w") as f:
        f.write(SRC)
    threads = os.environ.get("OMP_NUM_THREADS", "all")
    print("gtcc from Python: median call times (OMP_NUM_THREADS=%s, OPENBLAS_NUM_THREADS=%s)"
          % (threads, os.environ.get("OPENBLAS_NUM_THREADS", "unset")))
    mods = {b: gtcc.compile(stn, backend=b) for b in ("naive", "openmp")}
    exe = build_c(work)
    pb = build_pybind(work)
    # ROUNDS rounds, C and Python in turn (a shared machine's load changes from second to
    # second): the medians of each side, and the median of the rounds' ratios
    t = {"naive": [], "openmp": [], "c": [], "py_large": [], "c_large": [], "ratio": [],
         "pybind": []}
    for _ in range(ROUNDS):
        c_tiny, c_large = c_side(exe, mods["openmp"])
        py = large(mods["openmp"])
        t["c"].append(c_tiny)
        t["c_large"].append(c_large)
        t["py_large"].append(py)
        t["ratio"].append(py / c_large)
        for b in ("naive", "openmp"):
            t[b].append(tiny(mods[b].add3))
        if pb is not None:
            t["pybind"].append(tiny(pb.run_computation))
    med = {k: sorted(v)[len(v) // 2] for k, v in t.items() if v}
    for b in ("naive", "openmp"):
        print("  %-6s add3 on 4x4x1, 3 fields      %7.2f us per call from Python "
              "(target <= 20)" % (b, med[b]))
    print("  openmp add3 on 4x4x1 from C            %7.2f us per call" % med["c"])
    g4 = gt4py_side(work)
    if g4 is not None:
        print("  GT4Py 3-field add on 4x4x1, gt:cpu_ifirst %7.2f us per call (validate_args "
              "off: %.2f)" % (g4["validate"], g4["novalidate"]))
    else:
        print("  GT4Py: not measured (make bench-peers installs it into build/bench/peers-venv)")
    if pb is not None:
        print("  GT4Py-style pybind11 entry, 3 buffers  %7.2f us per call (no computation: "
              "pybind_call.cpp)" % med["pybind"])
    else:
        print("  GT4Py-style pybind11 entry: not measured (pybind11 from PyPI, g++ or "
              "Python's headers missing)")
    print("  openmp hdiff %dx%dx%d: Python %.3f ms, C %.3f ms; Python/C per round, median "
          "%.3f (target <= 1.02)" % (N, N, NK, 1e3 * med["py_large"], 1e3 * med["c_large"],
                                     med["ratio"]))


if __name__ == "__main__":
    main()
