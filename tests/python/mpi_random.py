"""tests/python/mpi_random.py GEN SEED[,fuzz]...: run by test_mpi_random.py under mpirun. The
random programs of the differential test (tests/diff/gen.c) through S.mpi on a
gtcc.Decomposition over mpi4py's COMM_WORLD, every stencil of each program:

* the reference, on every rank: the package's naive call of the stencil on the whole global
  domain, one process, on arrays with the halo gt_mpi_halo gives (d.zeros' halo), every
  element random but along an axis the decomposition wraps, where the halo holds the
  wrapped interior's values;
* the distributed calls, blocking and overlapped, of the openmp build on d.zeros' arrays
  holding the same values, but for the halo elements only the exchange may fill (another
  rank's, or wrapped around): NaN (0 for int and bool fields);

and compares each field on this rank's box (along K the whole array) bit for bit, the out
scalars to 1e-12 relative (1e-5 for float). A stencil the reference refuses must be refused
by the distributed calls with the same code; one the distributed call refuses because it
reads beyond the point what it wrote (docs/mpi.md) counts as passed if both calls refuse it
alike. A stencil with iterate also runs S.steps_mpi (3 steps, tblock 1 and 2) on arrays
with gt_mpi_steps_halo's halos, against its definition: 3 distributed single calls with the
pairs swapped, each pair's next first a copy of its cur. The decomposition wraps I (J) where
a field has a periodic condition along it, and for odd seeds along both. Prints "rank R of
N: OK, P passed ..." and a "FAIL ..." line per failure."""
import subprocess
import sys

import numpy as np
from mpi4py import MPI

import gtcc
from conftest import bits, random_field

comm = MPI.COMM_WORLD
gen = sys.argv[1]
passed, refused, failures = 0, 0, []


def fail(what):
    failures.append(what)


def compile_all(src):
    """The naive and openmp builds, compiled by rank 0 first (the others hit the cache);
    None where gtcc refuses the program (the generator's rare misses: test_random.py)."""
    mods = None
    if comm.rank == 0:
        try:
            mods = {b: gtcc.compile(src, backend=b) for b in ("naive", "openmp")}
        except gtcc.GtccError:
            mods = None
    ok = comm.bcast(mods is not None, root=0)
    if not ok:
        return None
    if comm.rank != 0:
        mods = {b: gtcc.compile(src, backend=b) for b in ("naive", "openmp")}
    return mods


def global_arrays(d, S, fields, rng, glob, wraps, tblock=None):
    """Per field, the global array (random; along a wrapped axis the halo holds the wrapped
    interior's values) and its halo H, d.zeros' (gt_mpi_halo's, or with tblock
    gt_mpi_steps_halo's)."""
    size = d.box[1]
    G, H = {}, {}
    for p in fields:
        a = d.zeros(S, p["name"], tblock=tblock)
        lo = a.__gt_origin__
        halo = [(lo[x], a.shape[x] - lo[x] - size["IJK".index(c)])
                for x, c in enumerate(p["axes"])]
        shape = tuple(glob["IJK".index(c)] + h[0] + h[1] for c, h in zip(p["axes"], halo))
        g = random_field(rng, p["dtype"], shape, ints=10)
        for x, c in enumerate(p["axes"]):
            if c != "K" and wraps["IJK".index(c)]:
                n = glob["IJK".index(c)]
                idx = (np.arange(shape[x]) - halo[x][0]) % n + halo[x][0]
                g = np.take(g, idx, axis=x)
        G[p["name"]], H[p["name"]] = g, halo
    return G, H


def local_arrays(d, S, fields, G, H, glob, wraps, tblock=None):
    """d.zeros' arrays holding G on this rank's box grown by H, but NaN (0 for int and bool)
    where only the exchange may fill them: outside the box along I or J, and inside the
    global domain (or wrapped) along both; the halos on global edges, corners included, are
    the caller's."""
    off, size = d.box
    arrays = {}
    for p in fields:
        name, g, halo = p["name"], G[p["name"]], H[p["name"]]
        a = d.zeros(S, name, tblock=tblock)
        sel = []
        outside = np.zeros(a.shape, dtype=bool)
        inside = np.ones(a.shape, dtype=bool)
        for x, c in enumerate(p["axes"]):
            ax = "IJK".index(c)
            pos = off[ax] - halo[x][0] + np.arange(a.shape[x])   # global
            sel.append(pos + halo[x][0])
            if c != "K":
                shape = [1] * len(p["axes"])
                shape[x] = -1
                outside = outside | ((pos < off[ax]) | (pos >= off[ax] + size[ax])).reshape(
                    shape)
                inside = inside & (((pos >= 0) & (pos < glob[ax])) | wraps[ax]).reshape(shape)
        a[...] = g[np.ix_(*sel)]
        a[outside & inside] = np.nan if a.dtype.kind == "f" else 0
        arrays[name] = a
    return arrays


def frame_of(d, p, halo, glob, wraps, shape):
    """The frame in a local array of field p: its points outside the global domain along K,
    or along I or J where the decomposition does not wrap (language.md 11; what
    gt_mpi_steps copies from a pair's cur into its next)."""
    off = d.box[0]
    frame = np.zeros(shape, dtype=bool)
    for x, c in enumerate(p["axes"]):
        ax = "IJK".index(c)
        pos = (off[ax] if c != "K" else 0) - halo[x][0] + np.arange(shape[x])   # global
        if c == "K" or not wraps[ax]:
            dims = [1] * len(p["axes"])
            dims[x] = -1
            frame = frame | ((pos < 0) | (pos >= glob[ax])).reshape(dims)
    return frame


def box_of(d, p, halo, at=(0, 0, 0)):
    """The slices of this rank's box (along K the whole array) in a local array, or with at
    the box's offset in the global array."""
    size = d.box[1]
    return tuple(slice(at[a] + h[0], at[a] + h[0] + size[a]) if c != "K" else slice(None)
                 for c, a, h in ((c, "IJK".index(c), h) for c, h in zip(p["axes"], halo)))


def one_stencil(mods, st, seed, what):
    global passed, refused
    rng = np.random.default_rng(seed * 1000 + len(st["name"]))
    wraps = [seed % 2 == 1 or any(c == "IJ"[a] and b and b["kind"] == "periodic"
                                  for p in st["params"] if p["kind"] == "field"
                                  for c, b in zip(p["axes"], p["bc"]))
             for a in range(2)]
    glob = (int(rng.integers(16, 26)), int(rng.integers(16, 24)),
            max(st["min_nk"] or 1, int(rng.integers(2, 6))))
    d = gtcc.Decomposition(comm, glob, periodic=tuple(wraps))
    off = d.box[0]
    S = getattr(mods["openmp"], st["name"])
    fields = [p for p in st["params"] if p["kind"] == "field"]
    G, H = global_arrays(d, S, fields, rng, glob, wraps)
    scalars = {p["name"]: random_field(rng, p["dtype"], (), ints=10).item()
               for p in st["params"] if p["kind"] == "scalar" and p["intent"] == "in"}

    def args(arrays):
        return [arrays[p["name"]] if p["kind"] == "field" else scalars[p["name"]]
                for p in st["params"] if p["kind"] == "field" or p["intent"] == "in"]

    ref = {n: g.copy() for n, g in G.items()}
    try:
        ref_res = getattr(mods["naive"], st["name"])(
            *args(ref), origin={n: tuple(h[0] for h in H[n]) for n in H}, domain=glob)
        ref_code = 0
    except gtcc.StencilError as e:
        ref_res, ref_code = None, e.code
    for overlap in (False, True):
        how = "%s, %s" % (what, "overlapped" if overlap else "blocking")
        arrays = local_arrays(d, S, fields, G, H, glob, wraps)
        try:
            res = S.mpi(d, *args(arrays), overlap=overlap)
            code = 0
        except gtcc.StencilError as e:
            res, code, msg = None, e.code, e.message
        if ref_code:
            if code != ref_code:
                fail("%s: %s, where one process is refused (code %d)" % (
                    how, "runs" if code == 0 else "code %d" % code, ref_code))
            else:
                passed += 1
                refused += 1
            continue
        if code:
            if "read beyond the point" not in msg:
                fail("%s: refused: %s" % (how, msg))
            else:
                passed += 1
                refused += 1
            continue
        ok = True
        for p in fields:
            name, halo = p["name"], H[p["name"]]
            ok &= same(how, name, ref[name][box_of(d, p, halo, off)],
                       np.asarray(arrays[name])[box_of(d, p, halo)], d, "one process")
        outs = [p for p in st["params"] if p["kind"] == "scalar" and p["intent"] == "out"]
        rs = [] if not outs else [res] if len(outs) == 1 else list(res)
        ws = [] if not outs else [ref_res] if len(outs) == 1 else list(ref_res)
        for p, r, w in zip(outs, rs, ws):
            tol = 1e-5 if p["dtype"] == "float32" else 1e-12
            if p["dtype"] in ("int32", "bool") and r != w or \
                    isinstance(w, float) and not (r == w or abs(r - w) <= tol * max(1, abs(w))):
                fail("%s: out scalar '%s' is %r, one process %r" % (how, p["name"], r, w))
                ok = False
        passed += ok
    if st.get("iterate"):
        steps(d, S, st, fields, rng, glob, wraps, args, what)


def same(how, name, want, got, d, ref):
    if np.array_equal(bits(want), bits(got)):
        return True
    bad = np.argwhere(bits(want) != bits(got))
    fail("%s: field '%s' differs from %s at %d point(s) of box %s, first at local %s: %r, "
         "%s %r" % (how, name, ref, len(bad), d.box, tuple(int(x) for x in bad[0]),
                    got[tuple(bad[0])], ref, want[tuple(bad[0])]))
    return False


def steps(d, S, st, fields, rng, glob, wraps, args, what):
    """S.steps_mpi(nsteps 3, tblock 1 and 2) against its definition: 3 distributed single
    calls (S.mpi) with the pairs swapped between calls, each pair's next made to agree with
    its cur on the frame first (points outside the global domain: gt_mpi_steps copies them so
    after the first exchange; inside it next keeps its own values), on arrays with
    gt_mpi_steps_halo's halos; the result in each pair's cur, bit for bit."""
    global passed, refused
    for tblock in (1, 2):
        how = "%s, steps_mpi(nsteps 3, tblock %d)" % (what, tblock)
        G, H = global_arrays(d, S, fields, rng, glob, wraps, tblock)
        A = local_arrays(d, S, fields, G, H, glob, wraps, tblock)
        B = local_arrays(d, S, fields, G, H, glob, wraps, tblock)
        code = msg = None
        try:
            S.steps_mpi(d, *args(A), nsteps=3, tblock=tblock)
        except gtcc.StencilError as e:
            code, msg = e.code, e.message
        for q in st["iterate"]:
            p = next(x for x in fields if x["name"] == q["next"])
            frame = frame_of(d, p, H[q["next"]], glob, wraps, B[q["next"]].shape)
            B[q["next"]][frame] = B[q["cur"]][frame]
        code2 = msg2 = None
        for _ in range(3):
            try:
                S.mpi(d, *args(B))
            except gtcc.StencilError as e:
                code2, msg2 = e.code, e.message
                break
            for q in st["iterate"]:
                B[q["next"]], B[q["cur"]] = B[q["cur"]], B[q["next"]]
        if code or code2:
            if code and code2:
                passed += 1
                refused += 1
            else:
                fail("%s: %s; the single calls: %s" % (how, msg or "runs", msg2 or "run"))
            continue
        ok = True
        for q in st["iterate"]:
            p = next(x for x in fields if x["name"] == q["cur"])
            lbox = box_of(d, p, H[p["name"]])
            ok &= same(how, p["name"], np.asarray(B[p["name"]])[lbox],
                       np.asarray(A[p["name"]])[lbox], d, "3 single calls")
        passed += ok


for arg in sys.argv[2:]:
    seed, _, fz = arg.partition(",")
    seed = int(seed)
    cmd = [gen] + (["--fuzz"] if fz == "fuzz" else []) + [str(seed)]
    src = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    mods = compile_all(src)
    if mods is None:
        continue
    for st in mods["naive"].meta["stencils"]:
        one_stencil(mods, st, seed, "seed %s, %s on %d ranks" % (arg, st["name"], comm.size))

for f in failures:
    print("FAIL rank %d: %s" % (comm.rank, f))
print("rank %d of %d: %s, %d passed (%d of them refused alike)" % (
    comm.rank, comm.size, "OK" if not failures else "FAILED", passed, refused))
sys.stdout.flush()
