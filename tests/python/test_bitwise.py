"""Python calls of stencils.stn bitwise equal to the same stencils called from C (driver.c,
through the C API on storages it wraps itself), for the naive and openmp backends, on
C-ordered, Fortran-ordered, strided, offset and axis-permuted (__gt_dims__) arrays of every
dtype. The reference is whatever driver.c's call wrote: independent of the package."""
import os
import subprocess

import numpy as np
import pytest

import gtcc
from conftest import HERE, STENCILS, bits, random_field

PAD = {"I": 2, "J": 2, "K": 1}
N = {"I": 9, "J": 7, "K": 5}
STENCIL_NAMES = ["hdiff", "smooth32", "mixint", "flags"]
LAYOUTS = ["C", "F", "strided", "offset", "dims"]


@pytest.fixture(scope="session")
def drivers(tmp_path_factory):
    """driver.c built against gtcc's C for each backend (gtcc and cc run here, not by the
    package under test)."""
    out = {}
    for b in ("naive", "openmp"):
        d = tmp_path_factory.mktemp("driver_" + b)
        subprocess.run([os.environ["GTCC"], "-b", b, "-o", str(d / "gen.c"), STENCILS],
                       check=True)
        subprocess.run(["cc", "-O2", "-fopenmp", "-I", os.environ["GTCC_INCLUDEDIR"], "-I",
                        str(d), os.path.join(HERE, "driver.c"), str(d / "gen.c"), "-L",
                        os.environ["GTCC_LIBDIR"], "-Wl,-rpath," + os.environ["GTCC_LIBDIR"],
                        "-lgtrt", "-lm", "-o", str(d / "driver")], check=True)
        out[b] = str(d / "driver")
    return out


def place(logical, layout, axes, rng):
    """An array holding `logical` in the given layout; returns (array, origin shift)."""
    if layout == "C":
        return np.array(logical, order="C", copy=True), (0,) * logical.ndim
    if layout == "F":
        return np.array(logical, order="F", copy=True), (0,) * logical.ndim
    if layout == "strided":
        big = np.zeros(tuple(2 * n + 1 for n in logical.shape), logical.dtype)
        view = big[tuple(slice(1, None, 2) for _ in logical.shape)]
        view[...] = logical
        return view, (0,) * logical.ndim
    if layout == "offset":
        shift = (3, 1, 2)[:logical.ndim]
        big = random_field(rng, str(logical.dtype), tuple(n + s + 2 for n, s in
                                                           zip(logical.shape, shift)))
        big = np.asfortranarray(big)
        big[tuple(slice(s, s + n) for s, n in zip(shift, logical.shape))] = logical
        return big, shift
    # dims: stored with the axes reversed, said by __gt_dims__
    arr = np.ascontiguousarray(logical.transpose()).view(gtcc.GtArray)
    arr.__gt_dims__ = tuple(reversed(axes))
    return arr, None


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", STENCIL_NAMES)
def test_bitwise_equal_to_c(mods, drivers, backend, name, layout, tmp_path):
    st = getattr(mods[backend], name)
    rng = np.random.default_rng(abs(hash((name, layout))) % 2**32)
    fields = [p for p in st.meta["params"] if p["kind"] == "field"]
    logical = [random_field(rng, p["dtype"], tuple(N[c] + 2 * PAD[c] for c in p["axes"]))
               for p in fields]
    with open(tmp_path / "in.bin", "wb") as f:
        for a in logical:
            f.write(np.ascontiguousarray(a).tobytes())
    subprocess.run([drivers[backend], name, str(N["I"]), str(N["J"]), str(N["K"]),
                    str(tmp_path / "in.bin"), str(tmp_path / "out.bin")], check=True)
    raw = (tmp_path / "out.bin").read_bytes()
    ref, at = [], 0
    for a in logical:
        ref.append(np.frombuffer(raw[at:at + a.nbytes], a.dtype).reshape(a.shape))
        at += a.nbytes

    arrays, origin, before = [], {}, []
    for p, a in zip(fields, logical):
        arr, shift = place(a, layout, p["axes"], rng)
        if shift is None:        # dims: origin by axis name, the array in reversed order
            origin[p["name"]] = tuple(PAD[c] for c in p["axes"])
        else:
            origin[p["name"]] = tuple(PAD[c] + s for c, s in zip(p["axes"], shift))
        arrays.append((arr, shift))
        before.append(np.array(arr, copy=True))
    args = [arr for arr, _ in arrays]
    if name == "smooth32":
        args.append(0.25)
    st(*args, origin=origin, domain=(N["I"], N["J"], N["K"]))

    for p, (arr, shift), r, b0 in zip(fields, arrays, ref, before):
        if shift is None:
            got = np.asarray(arr).transpose()
            rest_ok = True
        else:
            sl = tuple(slice(s, s + n) for s, n in zip(shift, r.shape))
            got = arr[sl]
            mask = np.ones(arr.shape, bool)
            mask[sl] = False
            rest_ok = np.array_equal(bits(np.asarray(arr)[mask]), bits(b0[mask]))
        assert np.array_equal(bits(got), bits(r)), "%s: field %s differs from C" % (
            name, p["name"])
        assert rest_ok, "%s: field %s: written outside its array's part" % (name, p["name"])
    # the outputs were written at all (the reference is not just the input again)
    assert not np.array_equal(bits(ref[-1]), bits(logical[-1]))
