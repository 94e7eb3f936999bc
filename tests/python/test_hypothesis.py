"""Random shapes, origins, domains and layouts (Hypothesis) against NumPy references written
here, independently of gtcc: every point of the domain as NumPy computes it (the same
operations in the same order: bitwise), every other point untouched."""
import numpy as np
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st

import gtcc

SRC = """
stencil lap(field<double> u, field<double> r) {
  r = -4.0 * u + u[i-1] + u[i+1] + u[j-1] + u[j+1];
}
stencil kdiff(field<float> a, field<float> b, float s) {
  b = s * (a[k+1] - a[k-1]);
}
stencil pos2(field<double, IJ> x, field<int, IJ> c) {
  if (x[i+1] > x) { c = 1; } else { c = -1; }
}
"""

# per stencil: (input axes, input dtype, output dtype, lower halo, upper halo by axis)
SPECS = {
    "lap": ("IJK", np.float64, np.float64, {"I": 1, "J": 1, "K": 0}, {"I": 1, "J": 1, "K": 0}),
    "kdiff": ("IJK", np.float32, np.float32, {"I": 0, "J": 0, "K": 1}, {"I": 0, "J": 0, "K": 1}),
    "pos2": ("IJ", np.float64, np.int32, {"I": 0, "J": 0}, {"I": 1, "J": 0}),
}


def reference(name, u, o, d, s=None):
    """The stencil on u (logical I, J, K order) at origin o over domain d, in NumPy."""
    def at(di=0, dj=0, dk=0):
        sl = [slice(o[0] + di, o[0] + di + d[0]), slice(o[1] + dj, o[1] + dj + d[1])]
        if u.ndim == 3:
            sl.append(slice(o[2] + dk, o[2] + dk + d[2]))
        return u[tuple(sl)]
    if name == "lap":
        return -4.0 * at() + at(-1) + at(1) + at(0, -1) + at(0, 1)
    if name == "kdiff":
        return np.float32(s) * (at(0, 0, 1) - at(0, 0, -1))
    return np.where(at(1) > at(), 1, -1).astype(np.int32)


@pytest.fixture(scope="module")
def mod():
    return gtcc.compile(SRC, backend="openmp")


def layout_array(data, kind):
    if kind == "C":
        return np.array(data, order="C", copy=True), None
    if kind == "F":
        return np.array(data, order="F", copy=True), None
    arr = np.ascontiguousarray(data.transpose()).view(gtcc.GtArray)   # axes reversed
    arr.__gt_dims__ = tuple("IJK"[:data.ndim])[::-1]
    return arr, arr


@st.composite
def case(draw, name):
    axes, din, dout, lo, hi = SPECS[name]
    origin, dom, shape = [], [], []
    for c in axes:
        o = draw(st.integers(lo[c], lo[c] + 3))
        n = draw(st.integers(0, 6))
        # (an origin at the array's very end is refused by gt_wrap: the interior's first
        # point must lie inside the array)
        extra = draw(st.integers(max(hi[c], 1 - n), hi[c] + 3))
        origin.append(o)
        dom.append(n)
        shape.append(o + n + extra)
    layouts = (draw(st.sampled_from(["C", "F", "T"])), draw(st.sampled_from(["C", "F", "T"])))
    explicit = draw(st.booleans())
    return origin, dom, shape, layouts, explicit, draw(st.integers(0, 2**31))


def run_case(mod, name, c):
    axes, din, dout, lo, hi = SPECS[name]
    origin, dom, shape, layouts, explicit, seed = c
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(shape).astype(din)
    r0 = rng.standard_normal(shape).astype(dout) if dout != np.int32 else \
        rng.integers(-9, 9, shape, dtype=np.int32)
    ua, uview = layout_array(u, layouts[0])
    ra, rview = layout_array(r0, layouts[1])
    dom3 = tuple(dom) + (1,) * (3 - len(dom))
    args = [ua, ra] + ([0.5] if name == "kdiff" else [])
    if explicit:
        mod.stencils[name](*args, origin=tuple(origin), domain=dom3)
    else:
        # __gt_origin__ (in the array's dims order) and the default domain: the largest
        # that fits, which is dom here only when the extra room equals the upper halo; so
        # give the output's room as its shape
        ua = ua.view(gtcc.GtArray)
        ra = ra.view(gtcc.GtArray)
        if uview is not None:
            ua.__gt_dims__ = uview.__gt_dims__
        if rview is not None:
            ra.__gt_dims__ = rview.__gt_dims__
        ua.__gt_origin__ = tuple(origin)[::-1] if uview is not None else tuple(origin)
        ra.__gt_origin__ = tuple(origin)[::-1] if rview is not None else tuple(origin)
        args = [ua, ra] + args[2:]
        # default domain per axis: min over fields of shape - origin - upper halo needed
        dom = [s - o - hi[cc] for s, o, cc in zip(shape, origin, axes)]
        mod.stencils[name](*args)
    got = np.asarray(ra).transpose() if rview is not None else np.asarray(ra)
    expect = r0.copy()
    sl = tuple(slice(o, o + n) for o, n in zip(origin, dom))
    expect[sl] = reference(name, u, origin, dom, 0.5)
    assert got.dtype == expect.dtype
    np.testing.assert_array_equal(got, expect)
    assert np.array_equal(np.asarray(ua).transpose() if uview is not None else np.asarray(ua),
                          u), "the input was written"


SETTINGS = settings(max_examples=40, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


@SETTINGS
@given(case("lap"))
def test_lap(mod, c):
    run_case(mod, "lap", c)


@SETTINGS
@given(case("kdiff"))
def test_kdiff(mod, c):
    run_case(mod, "kdiff", c)


@SETTINGS
@given(case("pos2"))
def test_pos2(mod, c):
    run_case(mod, "pos2", c)
