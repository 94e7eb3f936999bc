"""bench/python/gt4py_call.py BACKEND TINY: GT4Py's own call of a 3-field stencil (c = a + b)
on 4x4x1 storages, for bench/python/bench.py's row beside gtcc's: the median over 11 batches
of TINY calls, per call, with validate_args on (GT4Py's default) and off. Runs in the venv of
`make bench-peers` (GT4Py from PyPI; its gt:cpu_ifirst backend is a pybind11 module), which
bench.py finds under $BUILD/bench/peers-venv; prints "validate US" and "novalidate US"."""
import sys
import time

import numpy as np
import gt4py.cartesian.gtscript as gtscript
import gt4py.storage as gs
from gt4py.cartesian.gtscript import PARALLEL, computation, interval

backend, tiny = sys.argv[1], int(sys.argv[2])


@gtscript.stencil(backend=backend)
def add3(a: gtscript.Field[np.float64], b: gtscript.Field[np.float64],
         c: gtscript.Field[np.float64]):
    with computation(PARALLEL), interval(...):
        c = a + b


a, b, c = (gs.zeros((4, 4, 1), np.float64, backend=backend) for _ in range(3))
for validate in (True, False):
    add3(a, b, c, validate_args=validate)
    t = []
    for _ in range(11):
        t0 = time.perf_counter()
        for _ in range(tiny):
            add3(a, b, c, validate_args=validate)
        t.append((time.perf_counter() - t0) / tiny)
    print("validate" if validate else "novalidate", "%.3f" % (1e6 * sorted(t)[5]), flush=True)
