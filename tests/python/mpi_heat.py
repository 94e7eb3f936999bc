"""tests/python/mpi_heat.py, run by test_mpi.py under mpirun: a periodic heat step with an
out scalar through S.mpi on a gtcc.Decomposition over mpi4py's COMM_WORLD, against the same
stencil called on the whole domain by one process (every rank computes that reference):
the field bitwise, the sum to 1e-12 relative. Prints "rank R of N: OK" or raises."""
import sys

import numpy as np
from mpi4py import MPI

import gtcc

SRC = """
stencil heat(field<double> u, field<double> unew, double alpha, out double total) {
  boundary u: periodic;
  unew = u + alpha * (u[i-1] + u[i+1] + u[j-1] + u[j+1] - 4.0 * u);
  total = sum(u);
}

stencil twice(field<double> u, field<double> res) {
  res = 2.0 * u + index(i);
}
"""
G = (13, 10, 3)

comm = MPI.COMM_WORLD
# the decomposition before any compile: libgtrt-mpi.so is then loaded while libgtrt.so is
# loaded by its path only (its soname satisfies libgtrt-mpi's NEEDED, the library directory
# not being on the loader's path)
d = gtcc.Decomposition(comm, G, periodic=(True, True))
if comm.rank == 0:
    mod = gtcc.compile(SRC)
comm.Barrier()
mod = gtcc.compile(SRC)                 # a cache hit on the other ranks
u0 = np.random.default_rng(42).standard_normal(G)
ref = np.zeros(G)
ref_total = mod.heat(u0, ref, 0.1)

(oi, oj, ok), (ni, nj, nk) = d.box
u = d.zeros(mod.heat, "u")
unew = d.zeros(mod.heat, "unew")
hi, hj, hk = u.__gt_origin__
u[hi:hi + ni, hj:hj + nj, hk:hk + nk] = u0[oi:oi + ni, oj:oj + nj, ok:ok + nk]
total = mod.heat.mpi(d, u, unew, 0.1)
gi, gj, gk = unew.__gt_origin__
got = np.asarray(unew)[gi:gi + ni, gj:gj + nj, gk:gk + nk]
assert np.array_equal(got, ref[oi:oi + ni, oj:oj + nj, ok:ok + nk]), "field differs"
assert abs(total - ref_total) <= 1e-12 * np.abs(u0).sum(), (total, ref_total)
assert d.box[1][0] * d.box[1][1] < G[0] * G[1] or comm.size == 1
# a refused distributed call: the runtime's message, on every rank
try:
    mod.heat.mpi(d, u, np.zeros((2, 2, 2)), 0.1)
    raise AssertionError("no error")
except gtcc.StencilError as e:
    assert "stencil 'heat'" in e.message, e.message
# refused by the package on the last rank only (a read-only output, a scalar that is no
# number): every rank raises, the others naming that rank (they waited in the collective call
# forever), nothing written; a call after it runs
last = comm.size - 1
ro = unew.copy()
ro.flags.writeable = comm.rank != last
mine = {"ro": "stencil 'heat': field 'unew': the array is read-only, but the stencil writes it",
        "x": "stencil 'heat': scalar 'alpha': 'x' (a str) is not a real number"}
for call, why in ((lambda: mod.heat.mpi(d, u, ro, 0.1), "ro"),
                  (lambda: mod.heat.mpi(d, u, unew, "x" if comm.rank == last else 0.1), "x")):
    before = np.array(unew)
    try:
        call()
        raise AssertionError("no error")
    except gtcc.StencilError as e:
        want = mine[why] if comm.rank == last else \
            "stencil 'heat': rank %d failed (%s); nothing was done" % (last, mine[why])
        assert e.message == want, (e.message, want)
    assert np.array_equal(np.array(unew), before) and np.array_equal(np.array(ro), before)
# a scalar that differs on the last rank (a time step each rank computed for itself):
# every rank raises, naming it and both values, nothing written
if comm.size > 1:
    before = np.array(unew)
    try:
        mod.heat.mpi(d, u, unew, 0.2 if comm.rank == last else 0.1)
        raise AssertionError("no error")
    except gtcc.StencilError as e:
        want = ("ranks 0 and %d disagree on scalar 'alpha' of stencil 'heat' (0.1 on rank 0, "
                "0.2 on rank %d): every rank must pass it alike; nothing was done" % (last, last))
        assert want in e.message, (e.message, want)
    assert np.array_equal(np.array(unew), before)
assert mod.heat.mpi(d, u, unew, 0.1) == total
# steps of a stencil without iterate, a field the stencil lacks: refused, naming them
try:
    mod.heat.steps_mpi(d, u, unew, 0.1, nsteps=2)
    raise AssertionError("no error")
except gtcc.StencilError as e:
    assert e.message == "stencil 'heat' has no iterate: no steps", e.message
try:
    d.zeros(mod.heat, "v")
    raise AssertionError("no error")
except gtcc.StencilError as e:
    assert e.message == "stencil 'heat' has no field 'v' (its fields: u, unew)", e.message
# sizes are integers: a float is refused before anything collective, not truncated
for call, msg in ((lambda: gtcc.Decomposition(comm, (G[0], G[1] + 0.5, G[2])),
                   "gtcc.Decomposition: an entry of global_shape (%d, %r, %d) is %r (a float); "
                   "it must be an integer" % (G[0], G[1] + 0.5, G[2], G[1] + 0.5)),
                  (lambda: gtcc.Decomposition(comm, G[:2]),
                   "gtcc.Decomposition: global_shape %r has 2 entries; it takes 3 (NI, NJ, NK)"
                   % (G[:2],)),
                  (lambda: gtcc.Decomposition(comm, G, dims=(1.0, comm.size)),
                   "gtcc.Decomposition: an entry of dims (1.0, %d) is 1.0 (a float)"
                   % comm.size),
                  (lambda: d.zeros(mod.heat, "u", tblock=2.0),
                   "Decomposition.zeros: tblock is 2.0 (a float); it must be an integer"),
                  # the stencil by name: refused naming it (an AttributeError of .fields)
                  (lambda: d.zeros("heat", "u"),
                   "Decomposition.zeros: the stencil is 'heat' (a str); give the gtcc.Stencil, "
                   "as mod.heat"),
                  (lambda: gtcc.Decomposition(comm, G, dims=2),
                   "gtcc.Decomposition: dims is 2 (an int); it must be a sequence of processes "
                   "along I and J; None: MPI chooses"),
                  (lambda: gtcc.Decomposition(comm, G, periodic=True),
                   "gtcc.Decomposition: periodic is True (a bool); it must be a sequence of "
                   "bools (I, J)"),
                  (lambda: gtcc.Decomposition(comm, G, periodic=(True,)),
                   "gtcc.Decomposition: periodic (True,) must be two bools (I, J)"),
                  (lambda: gtcc.Decomposition(comm, G, periodic=(True, "no")),
                   "gtcc.Decomposition: periodic (True, 'no') must be two bools (I, J)")):
    try:
        call()
        raise AssertionError("no error")
    except gtcc.StencilError as e:
        assert e.message.startswith(msg), (e.message, msg)
# refused by the package on the last rank only: every rank raises, the others naming that
# rank and its reason (they waited in gt_mpi_decompose forever); a decomposition after it is
# made
for kw, why in (({"periodic": (1, 0)}, "gtcc.Decomposition: periodic (1, 0) must be two bools "
                  "(I, J)"),
                ({"dims": (1.0, comm.size)}, "gtcc.Decomposition: an entry of dims (1.0, %d) is "
                 "1.0 (a float); it must be an integer" % comm.size)):
    try:
        gtcc.Decomposition(comm, G, **(kw if comm.rank == last else {}))
        raise AssertionError("no error")
    except gtcc.StencilError as e:
        want = why if comm.rank == last else \
            "gtcc.Decomposition: rank %d failed (%s); nothing was done" % (last, why)
        assert e.message == want, (e.message, want)
assert gtcc.Decomposition(comm, G).global_shape == tuple(G)
# the global arrays (no origin) where this rank's box is smaller: refused on every rank,
# nothing written (each rank computed its box on the global array's first points, silently:
# twice reads no halo)
if comm.size > 1:
    gu, gres = u0.copy(), np.zeros(G)
    for orig in (None, {"res": (0, 0, 0)}):
        try:
            mod.twice.mpi(d, gu, gres, origin=orig)
            raise AssertionError("no error")
        except gtcc.StencilError as e:
            x = 0 if d.box[1][0] < G[0] else 1
            want = ("stencil 'twice': field 'u': the array has %d points along %s, the global "
                    "domain's, but this rank's box is %d points (from %d): a distributed call "
                    "takes each rank's local array (Decomposition.zeros(stencil, 'u'): its box "
                    "and halo), not the global one" % (G[x], "IJ"[x], d.box[1][x], d.box[0][x]))
            assert e.message.startswith(want), (e.message, want)
        assert not gres.any() and np.array_equal(gu, u0)
# local arrays: twice is 2u + i with i global
lu, lres = d.zeros(mod.twice, "u"), d.zeros(mod.twice, "res")
lu[...] = u0[oi:oi + ni, oj:oj + nj, ok:ok + nk]
mod.twice.mpi(d, lu, lres)
want = 2.0 * u0[oi:oi + ni, oj:oj + nj, ok:ok + nk] + np.arange(oi, oi + ni)[:, None, None]
assert np.array_equal(np.asarray(lres), want)
print("rank %d of %d: OK" % (comm.rank, comm.size))
sys.stdout.flush()
