"""The random programs of the differential test (tests/diff/gen.c) through the package:
every stencil of a program called on NumPy arrays built from its --emit=meta (the
generator's signatures: lower-dimensional fields, int, float and bool fields and scalars,
out scalars, iterate's steps), by the naive and openmp backends, on three array layouts
(C order at the halo, Fortran order inside a frame of padding along I and J with the origin
moved, I-contiguous arrays with __gt_dims__ reversed) and C order with the package's default
domain (which the arrays' shapes make the drawn one). Every run must agree with the first
(naive, C order) bit for bit on every field (the out scalars to 1e-9: reduction order),
and write nothing in the padding; a refused call must be refused alike, with the same
message. Seed 130 is one whose mirror condition is read further than its drawn domain is
wide (GT_ESHAPE). GTCC_PY_RANDOM=A-B[,fuzz] runs seeds A to B instead (a longer hunt)."""
import os
import subprocess

import numpy as np
import pytest

import gtcc
from conftest import HERE, bits, random_field

GEN_C = os.path.join(HERE, "..", "diff", "gen.c")


def seeds():
    spec = os.environ.get("GTCC_PY_RANDOM")
    if spec:
        rng, _, fuzz = spec.partition(",")
        a, _, b = rng.partition("-")
        return [(s, fuzz == "fuzz") for s in range(int(a), int(b or a) + 1)]
    return [(s, False) for s in (1, 2, 3, 4, 10, 130)] + [(s, True) for s in (1, 2, 3, 49)]


@pytest.fixture(scope="module")
def gen(tmp_path_factory):
    exe = str(tmp_path_factory.mktemp("gen") / "gen")
    subprocess.run([os.environ.get("CC", "cc"), "-std=c11", "-O1",
                    "-D_POSIX_C_SOURCE=200809L", "-o", exe, GEN_C], check=True)
    return exe


PAD = 2
FILL = 7


def call(mod, st, halos, logical, scalars, domain, layout, nsteps):
    """One call on arrays holding `logical` (per field: domain and halo, I J K order);
    returns (result or "refused: message", {field: logical array after the call})."""
    arrays, origin, pads = {}, {}, {}
    for p in st["params"]:
        if p["kind"] != "field":
            continue
        name, L = p["name"], logical[p["name"]]
        lo = [h[0] for h in halos[name]]
        if layout in ("C", "D"):
            a, o = L.copy(), lo
        elif layout == "F":
            pad = [0 if ax == "K" else PAD for ax in p["axes"]]
            a = np.full(tuple(n + 2 * q for n, q in zip(L.shape, pad)), FILL, dtype=L.dtype,
                        order="F")
            a[tuple(slice(q, q + n) for n, q in zip(L.shape, pad))] = L
            o = [x + q for x, q in zip(lo, pad)]
            pads[name] = pad
        else:
            a = np.array(L.transpose(), order="C", copy=True).view(gtcc.GtArray)
            a.__gt_dims__ = tuple(p["axes"])[::-1]
            o = lo
        arrays[name], origin[name] = a, tuple(o)
    args = [arrays[p["name"]] if p["kind"] == "field" else scalars[p["name"]]
            for p in st["params"] if p["kind"] == "field" or p["intent"] == "in"]
    f = getattr(mod, st["name"])
    if layout == "D":
        domain = None   # the package's default: the largest that fits, here the same
    try:
        if nsteps is None:
            res = f(*args, origin=origin, domain=domain)
        else:
            res = f.steps(*args, nsteps=nsteps, origin=origin, domain=domain)
    except gtcc.StencilError as e:
        res = "refused: " + str(e)
    out = {}
    for name, a in arrays.items():
        if layout == "F":
            inner = tuple(slice(q, q + n) for n, q in zip(logical[name].shape, pads[name]))
            rest = a.copy()
            rest[inner] = FILL
            assert np.all(rest == np.array(FILL).astype(rest.dtype)), \
                f"{st['name']}: field '{name}' written outside its domain and halo"
            out[name] = np.array(a[inner])
        elif layout == "R":
            out[name] = np.array(np.asarray(a).transpose())
        else:
            out[name] = np.array(a)
    return res, out


def same_result(x, y):
    if isinstance(x, str) or isinstance(y, str):
        return x == y
    if isinstance(x, tuple):
        return isinstance(y, tuple) and len(x) == len(y) and all(
            same_result(u, v) for u, v in zip(x, y))
    if isinstance(x, float):
        return (x != x and y != y) or abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y))
    return x == y


@pytest.mark.parametrize("seed,fuzz", seeds())
def test_random_program(gen, seed, fuzz):
    src = subprocess.run([gen] + (["--fuzz"] if fuzz else []) + [str(seed)],
                         capture_output=True, text=True, check=True).stdout
    try:
        mods = {b: gtcc.compile(src, backend=b) for b in ("naive", "openmp")}
    except gtcc.GtccError as e:
        # the generator's own rare misses (an if reading at an offset what it writes)
        if "is written inside this if" in str(e):
            pytest.skip("gen.c made a program gtcc refuses: " + str(e).splitlines()[0][:120])
        raise
    for st in mods["naive"].meta["stencils"]:
        rng = np.random.default_rng(seed * 1000 + len(st["name"]))
        domain = (int(rng.integers(3, 11)), int(rng.integers(2, 9)),
                  max(st["min_nk"] or 1, int(rng.integers(2, 7))))
        halos = {p["name"]: [list(h) for h in p["halo"]]
                 for p in st["params"] if p["kind"] == "field"}
        for pair in st.get("iterate") or []:   # a pair's storages swap roles over the steps
            a, b = halos[pair["next"]], halos[pair["cur"]]
            for x in range(len(a)):
                for side in range(2):
                    a[x][side] = b[x][side] = max(a[x][side], b[x][side])
        logical = {}
        for p in st["params"]:
            if p["kind"] == "field":
                shape = tuple(domain["IJK".index(ax)] + halos[p["name"]][x][0] +
                              halos[p["name"]][x][1] for x, ax in enumerate(p["axes"]))
                logical[p["name"]] = random_field(rng, p["dtype"], shape, ints=10)
        scalars = {p["name"]: random_field(rng, p["dtype"], (), ints=10).item()
                   for p in st["params"] if p["kind"] == "scalar" and p["intent"] == "in"}
        for nsteps in [None] + ([3] if st.get("steps") else []):
            runs = [(f"{b}, {lay}", call(mods[b], st, halos, logical, scalars, domain, lay,
                                         nsteps))
                    for b, lay in (("naive", "C"), ("openmp", "C"), ("openmp", "F"),
                                   ("naive", "R"), ("openmp", "R"), ("openmp", "D"))
                    if lay != "D" or not st.get("iterate")]   # (pairs' halos grown above)
            what = f"seed {seed}{' --fuzz' if fuzz else ''}, {st['name']}" \
                   f"{'' if nsteps is None else '.steps'} on {domain}"
            ref_res, ref_out = runs[0][1]
            for name, (res, out) in runs[1:]:
                assert same_result(ref_res, res), f"{what}, {name}: {res!r}, naive C {ref_res!r}"
                for field, a in out.items():
                    assert np.array_equal(bits(ref_out[field]), bits(a)), \
                        f"{what}, {name}: field '{field}' differs from naive, C order"
