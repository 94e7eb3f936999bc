"""examples/python/heat.py: the heat equation on a square plate held at 0 on its edges, with a
heat source moving on a circle: a model a Python user starts from.

    python heat.py [OUT_DIR]      (gtcc on PATH and libgtrt beside it: `make install`; or
                                   GTCC=... GTCC_LIBDIR=... GTCC_INCLUDEDIR=..., docs/python.md)

gtcc.compile builds the stencils once (later runs take them from the cache); the time loop
is Python, each step one call on NumPy arrays, zero-copy. Writes heat.png with Matplotlib
when it is installed, else says so."""
import math
import os
import sys
import time

import numpy as np

import gtcc

SRC = """
// one explicit step; the source: a Gaussian of width 3 points at (x0, y0), strength q
stencil step(field<double, IJ> u, field<double, IJ> unew, double alpha, double x0, double y0,
             double q) {
  boundary u: dirichlet(0.0);
  field<double, IJ> dx = index(i) - x0;
  field<double, IJ> dy = index(j) - y0;
  unew = u + alpha * (u[i-1] + u[i+1] + u[j-1] + u[j+1] - 4.0 * u)
           + q * exp(-(dx * dx + dy * dy) / 18.0);
}

stencil stats(field<double, IJ> u, out double total, out double hottest) {
  total = sum(u);
  hottest = max(u);
}
"""

N, STEPS, ALPHA, Q = 128, 2000, 0.2, 0.05


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    t0 = time.perf_counter()
    mod = gtcc.compile(SRC)          # cached: a second run does not build again
    print("compiled in %.2f s (%s)" % (time.perf_counter() - t0,
                                       "built" if mod.built else "from the cache"))
    u = gtcc.zeros((N, N))           # no halo: the Dirichlet boundary gives the edges
    unew = gtcc.zeros((N, N))
    t0 = time.perf_counter()
    for n in range(STEPS):
        a = 2.0 * math.pi * n / STEPS
        x0, y0 = N / 2 + N / 4 * math.cos(a), N / 2 + N / 4 * math.sin(a)
        mod.step(u, unew, ALPHA, x0, y0, Q)
        u, unew = unew, u
        if (n + 1) % 500 == 0:
            total, hottest = mod.stats(u)
            print("step %4d: total heat %9.3f, hottest %.4f at %s" % (
                n + 1, total, hottest, tuple(int(x) for x in np.unravel_index(np.argmax(u), u.shape))))
    dt = time.perf_counter() - t0
    print("%d steps of %dx%d in %.2f s (%.1f us per step)" % (STEPS, N, N, dt,
                                                             1e6 * dt / STEPS))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot (pip install matplotlib)")
        return
    fig, ax = plt.subplots(figsize=(5, 4))
    im = ax.imshow(np.asarray(u).T, origin="lower", cmap="inferno")
    fig.colorbar(im, ax=ax, label="temperature")
    ax.set_title("heat after %d steps, source on a circle" % STEPS)
    path = os.path.join(out_dir, "heat.png")
    fig.savefig(path, dpi=100)
    print("wrote", path)


if __name__ == "__main__":
    main()
