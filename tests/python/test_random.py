"""The random programs of the differential test (tests/diff/gen.c) through the package:
every stencil of a program called on NumPy arrays built from its --emit=meta (the
generator's signatures: lower-dimensional fields, int, float and bool fields and scalars,
out scalars, iterate's steps), by the naive and openmp backends, on three array layouts
(C order at the halo, Fortran order inside a frame of padding along I and J with the origin
moved, I-contiguous arrays with __gt_dims__ reversed) and C order with the package's default
domain (which the arrays' shapes make the drawn one). Every run must agree with the first
(naive, C order) bit for bit on every field (the out scalars to 1e-9: reduction order),
and write nothing in the padding; a refused call must be refused alike, with the same
message. The steps must equal the single calls they are defined by (each pair's next made
to agree with its cur first): above the domain the frame is interior to the package's
storages, and must be copied as the halo's is (seed 7: it was not). Seed 130 is one whose
mirror condition is read further than its drawn domain is wide (GT_ESHAPE).
GTCC_PY_RANDOM=A-B[,fuzz] runs seeds A to B instead (a longer hunt)."""
import numpy as np
import pytest

import gtcc
from conftest import bits, random_case, random_program, random_seeds

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


def single_calls(mod, st, halos, logical, scalars, domain, nsteps):
    """The definition of the steps (language.md 11): each pair's next made to agree with its
    cur on the frame (its points outside the domain; inside it next keeps its own values,
    which a step that writes next under an if or reads it first depends on), then nsteps
    single calls, the pairs' arrays swapped between calls. Returns None if a call is
    refused, else {cur: its array after the steps} for each pair."""
    arrays = {name: L.copy() for name, L in logical.items()}
    for q in st["iterate"]:
        axes = next(p["axes"] for p in st["params"] if p["name"] == q["next"])
        nxt = arrays[q["next"]]
        inside = np.ones(nxt.shape, dtype=bool)
        for x, ax in enumerate(axes):
            pos = np.arange(nxt.shape[x]) - halos[q["next"]][x][0]
            dims = [1] * nxt.ndim
            dims[x] = -1
            inside = inside & ((pos >= 0) & (pos < domain["IJK".index(ax)])).reshape(dims)
        nxt[~inside] = arrays[q["cur"]][~inside]
    origin = {name: tuple(h[0] for h in halo) for name, halo in halos.items()}
    f = getattr(mod, st["name"])
    for _ in range(nsteps):
        args = [arrays[p["name"]] if p["kind"] == "field" else scalars[p["name"]]
                for p in st["params"] if p["kind"] == "field" or p["intent"] == "in"]
        try:
            f(*args, origin=origin, domain=domain)
        except gtcc.StencilError:
            return None
        for q in st["iterate"]:
            arrays[q["next"]], arrays[q["cur"]] = arrays[q["cur"]], arrays[q["next"]]
    return {q["cur"]: arrays[q["cur"]] for q in st["iterate"]}


def same_result(x, y):
    if isinstance(x, str) or isinstance(y, str):
        return x == y
    if isinstance(x, tuple):
        return isinstance(y, tuple) and len(x) == len(y) and all(
            same_result(u, v) for u, v in zip(x, y))
    if isinstance(x, float):
        return (x != x and y != y) or abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y))
    return x == y


DEFAULT_SEEDS = [(s, False) for s in (1, 2, 3, 4, 7, 10, 130)] + \
                [(s, True) for s in (1, 2, 3, 49)]


@pytest.mark.parametrize("seed,fuzz", random_seeds("GTCC_PY_RANDOM", DEFAULT_SEEDS))
def test_random_program(gen, seed, fuzz):
    _, mods = random_program(gen, seed, fuzz, ("naive", "openmp"))
    for st in mods["naive"].meta["stencils"]:
        domain, halos, logical, scalars = random_case(st, seed)
        for nsteps in [None] + ([3] if st.get("steps") else []):
            runs = [(f"{b}, {lay}", call(mods[b], st, halos, logical, scalars, domain, lay,
                                         nsteps))
                    for b, lay in (("naive", "C"), ("openmp", "C"), ("openmp", "F"),
                                   ("naive", "R"), ("openmp", "R"), ("openmp", "D"))]
            what = f"seed {seed}{' --fuzz' if fuzz else ''}, {st['name']}" \
                   f"{'' if nsteps is None else '.steps'} on {domain}"
            ref_res, ref_out = runs[0][1]
            if nsteps is not None and not isinstance(ref_res, str):
                calls = single_calls(mods["naive"], st, halos, logical, scalars, domain, nsteps)
                assert calls is not None, f"{what}: the steps ran but a single call is refused"
                for field, a in calls.items():
                    assert np.array_equal(bits(ref_out[field]), bits(a)), \
                        f"{what}: field '{field}' differs from {nsteps} single calls"
            for name, (res, out) in runs[1:]:
                assert same_result(ref_res, res), f"{what}, {name}: {res!r}, naive C {ref_res!r}"
                for field, a in out.items():
                    assert np.array_equal(bits(ref_out[field]), bits(a)), \
                        f"{what}, {name}: field '{field}' differs from naive, C order"
