"""bench/python/bench.py: the Python package's call overhead and large-call speed (make
bench, through bench/python/run.sh). Prints, per backend, the median time of a call of a
3-field stencil on 4x4x1 arrays (target: at most 20 microseconds), the same call from C, and
hdiff on N x N x NK from Python against the same call from C (call.c; target within 2%),
in ROUNDS rounds that alternate C and Python."""
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
TINY, N, NK, LARGE, ROUNDS = 1000, 256, 64, 11, 5


def tiny(mod):
    a, b, c = (np.zeros((4, 4, 1)) for _ in range(3))
    f = mod.add3
    t = []
    for _ in range(11):
        t0 = time.perf_counter()
        for _ in range(TINY):
            f(a, b, c)
        t.append((time.perf_counter() - t0) / TINY)
    return 1e6 * sorted(t)[5]


def large(mod):
    shape = (N + 4, N + 4, NK)
    u = gtcc.empty(shape, halo=((2, 2), (2, 2), (0, 0)), aligned=False)
    co = gtcc.empty(shape, halo=((2, 2), (2, 2), (0, 0)), aligned=False)
    o = gtcc.zeros(shape, halo=((2, 2), (2, 2), (0, 0)), aligned=False)
    u[...] = 1.0
    co[...] = 0.025
    mod.hdiff(u, co, o)
    t = []
    for _ in range(LARGE):
        t0 = time.perf_counter()
        mod.hdiff(u, co, o)
        t.append(time.perf_counter() - t0)
    return sorted(t)[LARGE // 2]


def build_c(work, stn):
    gen = os.path.join(work, "gen.c")
    subprocess.run([os.environ["GTCC"], "-b", "openmp", "-o", gen, stn], check=True)
    here = os.path.dirname(os.path.abspath(__file__))
    exe = os.path.join(work, "call")
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-fopenmp",
                    "-I" + os.environ["GTCC_INCLUDEDIR"], "-I" + work,
                    "-I" + os.path.dirname(here), os.path.join(here, "call.c"), gen,
                    "-L" + os.environ["GTCC_LIBDIR"], "-Wl,-rpath," + os.environ["GTCC_LIBDIR"],
                    "-lgtrt", "-lm", "-o", exe], check=True)
    return exe


def c_side(exe):
    out = subprocess.run([exe, str(TINY), str(N), str(NK), str(LARGE)], check=True,
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
    exe = build_c(work, stn)
    mods = {b: gtcc.compile(stn, backend=b) for b in ("naive", "openmp")}
    # ROUNDS rounds, C and Python in turn (a shared machine's load changes from second to
    # second): the medians of each side, and the median of the rounds' ratios
    t = {"naive": [], "openmp": [], "c": [], "py_large": [], "c_large": [], "ratio": []}
    for _ in range(ROUNDS):
        c_tiny, c_large = c_side(exe)
        py = large(mods["openmp"])
        t["c"].append(c_tiny)
        t["c_large"].append(c_large)
        t["py_large"].append(py)
        t["ratio"].append(py / c_large)
        for b in ("naive", "openmp"):
            t[b].append(tiny(mods[b]))
    med = {k: sorted(v)[len(v) // 2] for k, v in t.items()}
    for b in ("naive", "openmp"):
        print("  %-6s add3 on 4x4x1, 3 fields      %7.2f us per call from Python "
              "(target <= 20)" % (b, med[b]))
    print("  openmp add3 on 4x4x1 from C            %7.2f us per call" % med["c"])
    print("  openmp hdiff %dx%dx%d: Python %.3f ms, C %.3f ms; Python/C per round, median "
          "%.3f (target <= 1.02)" % (N, N, NK, 1e3 * med["py_large"], 1e3 * med["c_large"],
                                     med["ratio"]))


if __name__ == "__main__":
    main()
