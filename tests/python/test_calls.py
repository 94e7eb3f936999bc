"""Out scalars, keyword arguments, steps, origins by GT4Py's rules, allocation helpers."""
import warnings

import numpy as np
import pytest

import gtcc

SRC = """
stencil reduce(field<double> x, out double s, out double lo, out int n) {
  s = sum(x);
  lo = min(x);
  n = max(int(x > 0.0));
}
stencil heat(field<double, IJ> u, field<double, IJ> un, double a) iterate(un -> u) {
  un = u + a * (u[i-1] + u[i+1] + u[j-1] + u[j+1] - 4.0 * u);
}
stencil shift(field<double> a, field<double> b) { b = a[i-1] + 10.0 * a[k+1]; }
"""


@pytest.fixture(scope="module")
def m():
    return gtcc.compile(SRC)


def test_out_scalars(m):
    x = np.random.default_rng(3).standard_normal((7, 5, 4))
    s, lo, n = m.reduce(x)
    assert abs(s - x.sum()) <= 1e-12 * np.abs(x).sum()
    assert lo == x.min() and n == 1 and isinstance(n, int)
    s2, lo2, n2 = m.reduce(x=-np.abs(x))
    assert n2 == 0 and lo2 == -np.abs(x).max()
    # passed as in C or Fortran, an out scalar is named in Python's TypeError (it was
    # "unexpected keyword argument 's'" of a parameter the stencil has)
    with pytest.raises(TypeError, match=r"^reduce\(\) got an unexpected keyword argument 's' "
                       r"\('s' is an out scalar: the call returns it\)$"):
        m.reduce(x, s=0.0)
    with pytest.raises(TypeError, match=r"^reduce\(\) takes 1 positional argument but 4 were "
                       r"given \(the out scalars 's', 'lo', 'n' are returned, not passed\)$"):
        m.reduce(x, 0.0, 0.0, 0)
    with pytest.raises(TypeError, match=r"^reduce\(\) got an unexpected keyword argument 'y'$"):
        m.reduce(x, y=0.0)


def test_help_shows_the_parameters(m):
    # help(mod.S), IPython's mod.S? and editors read inspect.signature and __doc__: they
    # showed (*args, origin=None, domain=None, **kwargs) and the class's text
    import inspect
    import pydoc
    assert str(inspect.signature(m.heat)) == ("(u: 'field<float64, IJ>', un: 'field<float64, "
                                             "IJ>', a: 'float64', *, origin=None, domain=None)")
    assert str(inspect.signature(m.reduce)) == ("(x: 'field<float64, IJK>', *, origin=None, "
                                               "domain=None)")
    doc = inspect.getdoc(m.reduce)
    assert doc.startswith("reduce(x, origin=None, domain=None): the stencil 'reduce'")
    assert "x: field<float64, IJK>, read" in doc
    assert "returns: s (float64), lo (float64), n (int32)" in doc
    doc = pydoc.render_doc(m.heat)
    assert "un: field<float64, IJ>, written" in doc and "a: float64 scalar" in doc
    assert "heat.steps(..., nsteps=N)" in doc
    assert "meta" in str(inspect.signature(gtcc.Stencil))     # the class's own, still


def heat_numpy(u, a, nsteps):
    u = u.copy()
    for _ in range(nsteps):
        un = u.copy()
        un[1:-1, 1:-1] = u[1:-1, 1:-1] + a * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                                              u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])
        u = un
    return u


@pytest.mark.parametrize("nsteps", [0, 1, 4, 7])
def test_steps(m, nsteps):
    u0 = np.random.default_rng(nsteps).standard_normal((12, 9))
    u = gtcc.zeros(u0.shape, halo=1)
    u[...] = u0
    un = gtcc.zeros(u0.shape, halo=1)
    un[...] = u0                      # the frame agrees (docs/generated-api.md, S_steps)
    m.heat.steps(u, un, 0.1, nsteps=nsteps)
    np.testing.assert_array_equal(np.asarray(u), heat_numpy(u0, 0.1, nsteps))


@pytest.mark.parametrize("name", ["sync", "read", "time"])
def test_steps_of_a_stencil_named_like_libc(backend, name):
    # a stencil named like a C library function that gen.c does not declare: S_steps's
    # call of S went to libc's (already loaded, so first in the lookup): sync computed
    # nothing and said 0 (silently the input back), read and time gave a bare rc; the
    # package links the library -Bsymbolic, its references bound to its own definitions;
    # gtcc's warning about the name (for C programs) is not shown: it does not apply
    with warnings.catch_warnings():
        warnings.simplefilter("error", gtcc.GtccWarning)
        m = gtcc.compile("stencil %s(field<double, IJ> u, field<double, IJ> un, double a) "
                         "iterate(un -> u) {\n  un = u + a * (u[i-1] + u[i+1] + u[j-1] + "
                         "u[j+1] - 4.0 * u);\n}\n" % name, backend=backend)
    u0 = np.random.default_rng(7).standard_normal((12, 9))
    u = gtcc.zeros(u0.shape, halo=1)
    u[...] = u0
    un = gtcc.zeros(u0.shape, halo=1)
    un[...] = u0
    m.stencils[name].steps(u, un, 0.1, nsteps=3)
    np.testing.assert_array_equal(np.asarray(u), heat_numpy(u0, 0.1, 3))


def test_libc_name_warning_dropped_others_kept():
    # of gtcc's warnings, only the one about a C library name is dropped (with its quoted
    # line): a dead temporary's still shows
    src = ("stencil sync(field<double> u, field<double> v) {\n  double dead = 2.0 * u;\n"
           "  v = u;\n}\n")
    with pytest.warns(gtcc.GtccWarning) as got:
        gtcc.compile(src)
    text = "\n".join(str(w.message) for w in got)
    assert "temporary 'dead' is never used" in text, text
    assert "C library" not in text and "stencil sync(" not in text, text


SCRATCH = """
stencil keep(field<double> u, field<double> un) iterate(un -> u) {
  if (u > 0.5) { un = 0.5 * u; }
}
stencil above(field<double> u, field<double> un) iterate(un -> u) {
  computation(forward) {
    interval(0, end-1) { un = u + 0.5 * un[k+1]; }
    interval(end-1, end) { un = 0.25 * u; }
  }
}
"""


def scratch_numpy(name, u, un, nsteps):
    """nsteps single calls with the pair swapped (language.md 11), by hand: keep writes un
    where u > 0.5 only, above reads un[k+1] before the step writes it (the levels a forward
    sweep has not reached hold what un held before the step)."""
    a, b = u.copy(), un.copy()
    for _ in range(nsteps):
        if name == "keep":
            b = np.where(a > 0.5, 0.5 * a, b)
        else:
            for k in range(a.shape[2] - 1):
                b[:, :, k] = a[:, :, k] + 0.5 * b[:, :, k + 1]
            b[:, :, -1] = 0.25 * a[:, :, -1]
        a, b = b, a
    return a


@pytest.mark.parametrize("tile", [None, "3,1", "3,2"])
@pytest.mark.parametrize("name", ["keep", "above"])
def test_steps_keep_next(backend, name, tile, monkeypatch):
    # S_steps equals the single calls where un holds other values than u on the domain: a
    # step keeps un's values where it writes under an if and reads them at levels a sweep
    # has not written yet (odd counts gave u's there: after 3 steps of keep, 0.3 at the point
    # where u is 0.3 and un 0.9, which the calls keep: 0.9, 0.45, 0.9)
    if tile:
        monkeypatch.setenv("GT_STEPS_TILE", tile)
    st = gtcc.compile(SCRATCH, backend=backend).stencils[name]
    rng = np.random.default_rng(7)
    for nsteps in (1, 2, 3, 4, 5):
        u0, un0 = rng.random((4, 12, 5)), rng.random((4, 12, 5))
        u0[1, 2, 3], un0[1, 2, 3] = 0.3, 0.9
        u, un = u0.copy(), un0.copy()
        st.steps(u, un, nsteps=nsteps)
        np.testing.assert_array_equal(u, scratch_numpy(name, u0, un0, nsteps),
                                      err_msg="%s, %d steps" % (name, nsteps))


def test_steps_read_only_cur(m):
    # a single call only reads u, but steps leave the result in it: refused, nothing written
    u = np.random.default_rng(5).standard_normal((12, 9))
    un = u.copy()
    u.flags.writeable = False
    m.heat(u, un, 0.1, origin=(1, 1))     # one step: u an input, fine
    before = un.copy()
    with pytest.raises(gtcc.StencilError, match="field 'u': the array is read-only"):
        m.heat.steps(u, un, 0.1, nsteps=2, origin=(1, 1))
    np.testing.assert_array_equal(un, before)


def test_steps_negative(m):
    u = gtcc.zeros((6, 6), halo=1)
    un = gtcc.zeros((6, 6), halo=1)
    with pytest.raises(gtcc.StencilError) as e:
        m.heat.steps(u, un, 0.1, nsteps=-1)
    assert e.value.code == -1


def test_origin_precedence(m):
    a = np.arange(6 * 5 * 4, dtype=np.float64).reshape(6, 5, 4)

    def expect(o, d):
        e = np.zeros_like(a)
        i, j, k = o
        e[i:i + d[0], j:j + d[1], k:k + d[2]] = (a[i - 1:i - 1 + d[0], j:j + d[1], k:k + d[2]]
                                                  + 10.0 * a[i:i + d[0], j:j + d[1],
                                                             k + 1:k + 1 + d[2]])
        return e
    g = a.view(gtcc.GtArray)
    g.__gt_origin__ = (1, 0, 0)
    # __gt_origin__ of both (1,0,0); default domain: a needs [1,0] along I, [0,1] along K
    b = np.zeros_like(a).view(gtcc.GtArray)
    b.__gt_origin__ = (1, 0, 0)
    m.shift(g, b)
    np.testing.assert_array_equal(b, expect((1, 0, 0), (5, 5, 3)))
    # _all_ beats __gt_origin__; a per-field origin beats _all_
    b = np.zeros_like(a).view(gtcc.GtArray)
    b.__gt_origin__ = (5, 4, 3)
    m.shift(g, b, origin={"_all_": (2, 1, 0), "b": (2, 1, 0)}, domain=(3, 2, 2))
    np.testing.assert_array_equal(b, expect((2, 1, 0), (3, 2, 2)))
    b = np.zeros_like(a)
    m.shift(a, b, origin=(2, 1, 1))                 # a bare tuple: every field
    np.testing.assert_array_equal(b, expect((2, 1, 1), (4, 4, 2)))


def test_gtarray_copies_keep_origin_and_dims():
    # a checkpoint (pickle), copy.copy/deepcopy and .copy() of a GtArray are the same points
    # along the same axes: origin and dims kept (they were lost: a restored KJI array was
    # read as I, J, K from 0, silently where the shapes allowed it); views and arithmetic
    # results still have neither
    import copy
    import pickle
    m = gtcc.compile("stencil dx(field<double> u, field<double> d) { d = u[i+1] - u; }")
    g = gtcc.zeros((3, 5, 8), halo=((0, 0), (0, 0), (1, 1)), axes="KJI")
    g[...] = np.random.default_rng(3).standard_normal(g.shape)
    want = np.zeros((8, 5, 3))
    m.dx(g, want, origin={"d": (0, 0, 0)}, domain=(6, 5, 3))
    for c in (pickle.loads(pickle.dumps(g)), copy.copy(g), copy.deepcopy(g), g.copy(),
              g.copy(order="F")):
        assert type(c) is gtcc.GtArray
        assert c.__gt_origin__ == (0, 0, 1) and c.__gt_dims__ == ("K", "J", "I")
        got = np.zeros((8, 5, 3))
        m.dx(c, got, origin={"d": (0, 0, 0)}, domain=(6, 5, 3))
        np.testing.assert_array_equal(got, want)
    for v in (g[:], g * 2.0, g.T):
        assert v.__gt_origin__ is None and v.__gt_dims__ is None


def test_zeros_empty_aligned():
    for dtype in (np.float64, np.float32, np.int32, np.bool_):
        for layout in (None, "C", "F", "cuda", "JKI"):
            z = gtcc.zeros((13, 7, 3), dtype, halo=((3, 1), (2, 2), (0, 0)), layout=layout)
            assert z.__gt_origin__ == (3, 2, 0) and z.__gt_dims__ == ("I", "J", "K")
            assert z.dtype == dtype and z.shape == (13, 7, 3) and not z.any()
            lay = {None: "KJI", "C": "IJK", "F": "KJI", "cuda": "KJI", "JKI": "JKI"}[layout]
            # strides decrease in the layout's order, the last axis contiguous
            st = [z.strides["IJK".index(c)] for c in lay]
            assert st == sorted(st, reverse=True) and st[-1] == z.itemsize
            align = 128 if layout == "cuda" else 64
            for j in range(2, 7):
                for k in range(3):
                    idx = [0, 0, 0]
                    idx["IJK".index(lay[0])] = k % z.shape["IJK".index(lay[0])]
                    idx["IJK".index(lay[1])] = j % z.shape["IJK".index(lay[1])]
                    idx["IJK".index(lay[2])] = (3, 2, 0)["IJK".index(lay[2])]
                    addr = z[tuple(idx)].ctypes.data if False else \
                        z.ctypes.data + sum(i * s for i, s in zip(idx, z.strides))
                    assert addr % align == 0, (dtype, layout, idx)
    e = gtcc.empty((4, 5), np.float32, halo=1, aligned=False)
    assert e.__gt_origin__ == (1, 1) and e.strides == (4, 16)


def test_gtarray_reductions_are_scalars():
    # g.sum(), g.max(), np.mean(g) of a GtArray are NumPy scalars as an ndarray's are (they
    # were 0-d GtArrays, NumPy's default for a subclass: json.dumps refused a model's total);
    # elementwise results and reductions along an axis stay arrays
    import json
    g = gtcc.zeros((4, 3, 2), halo=1)
    g[...] = np.arange(24.0).reshape(4, 3, 2)
    for x, want in ((g.sum(), 276.0), (g.max(), 23.0), (np.mean(g), 11.5), (g.min(), 0.0),
                    ((g > 10.0).sum(), 13), (g.any(), True)):
        assert not isinstance(x, np.ndarray) and np.ndim(x) == 0 and x == want
    assert json.dumps(g.sum()) == "276.0"          # (np.float64 is a float)
    assert type(g * 2.0) is gtcc.GtArray and (g * 2.0).shape == (4, 3, 2)
    assert type(g.sum(axis=2)) is gtcc.GtArray and g.sum(axis=2).shape == (4, 3)


def test_zeros_axes_as_a_sequence():
    # axes as GT4Py's dimensions=["I", "J", "K"] and as __gt_dims__ itself holds them (a
    # tuple of one-letter strs): the same array as the str (it was an AttributeError, so
    # gtcc.zeros(g.shape, axes=g.__gt_dims__) failed)
    g = gtcc.zeros((3, 5, 8), halo=((0, 0), (0, 0), (1, 1)), axes="KJI")
    for axes in (["K", "J", "I"], ("k", "j", "i"), g.__gt_dims__, iter("KJI")):
        z = gtcc.zeros(g.shape, halo=((0, 0), (0, 0), (1, 1)), axes=axes)
        assert z.__gt_dims__ == ("K", "J", "I") and z.__gt_origin__ == (0, 0, 1)
        # I contiguous (the default layout), then J, K slowest: strides decrease K, J, I
        assert z.strides[2] == 8 and z.strides[0] > z.strides[1] > z.strides[2]
        assert z.strides == g.strides
    for axes in (3, ("IJ", "K"), b"IJK"):
        with pytest.raises(TypeError, match=r"axes .*: give the axis names as a str"):
            gtcc.zeros((3, 5, 8), axes=axes)


def test_zeros_layout_either_case():
    # "c" and "f" as NumPy's order= takes them (they were "not a permutation of the axes
    # IJK"), "CPU" and "Cuda" as "cpu" and "cuda"
    for lay, same in (("c", "C"), ("f", "F"), ("CPU", "cpu"), ("Cuda", "cuda"), ("kji", "KJI")):
        a = gtcc.zeros((5, 4, 3), np.float32, halo=1, layout=lay)
        b = gtcc.zeros((5, 4, 3), np.float32, halo=1, layout=same)
        assert a.strides == b.strides, lay
        assert (a.ctypes.data + sum(a.strides)) % (128 if same == "cuda" else 64) == 0
    assert gtcc.zeros((5, 4, 3), layout="c", aligned=False).strides == \
        np.zeros((5, 4, 3), order="c").strides
    assert gtcc.zeros((5, 4, 3), layout="f", aligned=False).strides == \
        np.zeros((5, 4, 3), order="f").strides


def test_one_point_axis_any_stride():
    # a 1-level field flipped along K (x[:, :, ::-1], as a model flips its levels): NumPy
    # calls it contiguous, its K stride -8 moves to no other element; it was refused
    # ("stride along K is -1; negative strides are not supported"), input and output alike
    m = gtcc.compile("stencil dxk(field<double> u, field<double> d) { d = u[i+1] - u; }")
    u2 = np.random.default_rng(4).standard_normal((6, 5))
    u = np.zeros((6, 5, 1))
    u[:, :, 0] = u2
    u = u[:, :, ::-1]
    d = np.zeros((6, 5, 1))[:, :, ::-1]
    assert u.strides[2] < 0 and d.strides[2] < 0 and u.flags.c_contiguous
    m.dxk(u, d, domain=(5, 5, 1))
    np.testing.assert_array_equal(d[:5, :, 0], u2[1:] - u2[:-1])
    assert (d[5] == 0.0).all()
    # along an axis of more points a negative stride is still refused
    with pytest.raises(gtcc.StencilError, match="negative strides are not supported"):
        m.dxk(np.zeros((6, 5, 2))[:, :, ::-1], np.zeros((6, 5, 2)))


def test_zeros_without_math_lcm(monkeypatch):
    # python/pyproject.toml says Python 3.8, whose math has no lcm (3.9): gtcc.zeros raised
    # AttributeError there for every aligned array; here without math.lcm, as on 3.8
    import math
    monkeypatch.delattr(math, "lcm", raising=False)
    for dtype, layout in ((np.float64, None), (np.float32, "cuda"), (np.bool_, "C")):
        z = gtcc.zeros((13, 7, 3), dtype, halo=((3, 1), (2, 2), (1, 0)), layout=layout)
        first = z.ctypes.data + sum(h * s for h, s in zip((3, 2, 1), z.strides))
        assert first % (128 if layout == "cuda" else 64) == 0


def test_zeros_origin_used(m):
    u0 = np.random.default_rng(9).standard_normal((10, 8))
    u = gtcc.zeros(u0.shape, halo=1)
    un = gtcc.zeros(u0.shape, halo=1)
    u[...] = u0
    m.heat(u, un, 0.2)                 # origin from __gt_origin__, domain 8 x 6
    e = np.zeros_like(u0)
    e[1:-1, 1:-1] = heat_numpy(u0, 0.2, 1)[1:-1, 1:-1]
    np.testing.assert_array_equal(np.asarray(un), e)


def test_storage_reuse_follows_the_array(m):
    # the package reuses the storage of the last call on the same array object: a new
    # origin, a reshaped array, a new array (perhaps at the old address) each get their own
    rng = np.random.default_rng(5)
    for shape in [(9, 8), (9, 8), (7, 6), (12, 5)]:
        u0 = rng.standard_normal(shape)
        u = u0.copy()
        un = np.zeros(shape)
        for o in [(1, 1), (2, 1), (1, 1)]:
            un[...] = 0
            m.heat(u, un, 0.3, origin=o, domain=(shape[0] - o[0] - 1, shape[1] - o[1] - 1, 1))
            e = np.zeros(shape)
            i, j = o
            e[i:-1, j:-1] = (u0[i:-1, j:-1] + 0.3 * (u0[i - 1:-2, j:-1] + u0[i + 1:, j:-1] +
                             u0[i:-1, j - 1:-2] + u0[i:-1, j + 1:] - 4.0 * u0[i:-1, j:-1]))
            np.testing.assert_array_equal(un, e)
        u.shape = (shape[1], shape[0])          # same object, another shape: a new wrap
        un2 = np.zeros_like(u)
        m.heat(u, un2, 0.0, origin=(1, 1))
        np.testing.assert_array_equal(un2[1:-1, 1:-1], u[1:-1, 1:-1])
        del u, un, un2


def test_threads(m):
    import threading
    u0 = np.random.default_rng(6).standard_normal((40, 30))
    u = gtcc.zeros(u0.shape, halo=1)
    u[...] = u0
    want = heat_numpy(u0, 0.1, 1)[1:-1, 1:-1]
    errors = []

    def work():
        try:
            for _ in range(50):
                un = gtcc.zeros(u0.shape, halo=1)
                m.heat(u, un, 0.1)
                np.testing.assert_array_equal(np.asarray(un)[1:-1, 1:-1], want)
        except Exception as e:        # reported below
            errors.append(e)
    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    assert not errors, errors[0]


def test_empty_arrays(m):
    # NumPy gives an empty array strides gt_wrap refuses (0 along an axis of extent 2): the
    # package wraps it with dense ones; nothing to compute
    a = np.zeros((2, 0, 3))
    b = np.zeros((2, 0, 3))
    assert 0 in a.strides
    m.shift(a, b, origin=(1, 0, 0), domain=(0, 0, 0))
    m.shift(a, b, origin=(1, 0, 0))            # the default domain: 1 x 0 x 2


def test_empty_domain_at_the_corner(m):
    # an empty domain at the array's last corner (the origin at the end along I and J:
    # a[4:, 5:]) was refused by gt_wrap ('puts the interior's first point 150 elements into
    # a wrapped buffer of 120'), where at the end along one axis it ran; nothing to compute
    a = np.ones((4, 5, 6))
    b = np.zeros_like(a)
    m.shift(a, b, origin=(4, 5, 0), domain=(0, 0, 5))
    m.shift(a, b, origin=(4, 5, 2), domain=(0, 0, 0))
    assert not b.any()


FORK = r"""
import os, sys, threading, time
import numpy as np
import gtcc
m = gtcc.compile(sys.argv[1])
u = np.random.default_rng(5).standard_normal((40, 30, 6))
ref = np.zeros_like(u)
ref[1:, :, :5] = u[:-1, :, :5] + 10.0 * u[1:, :, 1:]     # b = a[i-1] + 10 a[k+1]
def call():
    b = np.zeros_like(u)
    m.shift(u, b, origin=(1, 0, 0))
    assert np.array_equal(b, ref)
if sys.argv[2] == "thread":         # another thread ran OpenMP: the forking one did not
    t = threading.Thread(target=call)
    t.start()
    t.join()
else:
    call()
pid = os.fork()
if pid == 0:
    call()
    t = threading.Thread(target=call)     # a thread of the child: a pool of its own
    t.start()
    t.join()
    os._exit(0)
for _ in range(600):
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        sys.exit(0 if status == 0 else 1)
    time.sleep(0.05)
os.kill(pid, 9)
print("the forked child hung")
sys.exit(2)
"""


@pytest.mark.parametrize("where", ["main", "thread"])
def test_fork_after_openmp(where):
    # libgomp's pool of threads does not survive a fork: a child's openmp call hung forever
    # (multiprocessing's fork pool) where its forking thread had called an openmp stencil
    import os
    import subprocess
    import sys
    env = dict(os.environ, OMP_NUM_THREADS="2")
    r = subprocess.run([sys.executable, "-c", FORK, SRC, where], env=env, timeout=120,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert r.returncode == 0, r.stdout


def _shift_in(stencil, seed):
    """A worker's call: stencil (unpickled there) on its own arrays."""
    u = np.random.default_rng(seed).standard_normal((9, 7, 4))
    b = np.zeros_like(u)
    stencil(u, b, origin=(1, 0, 0))
    return u, b


def test_pickled_to_another_process(m):
    # a module or a stencil pickled (multiprocessing's spawn, joblib, a closure sent to a
    # worker) was 'Can't pickle local object CDLL.__init__.<locals>._FuncPtr'; it is its
    # cache entry, loaded again where it is unpickled
    import multiprocessing
    import pickle
    again = pickle.loads(pickle.dumps(m))
    assert again.path == m.path and not again.built and set(again.stencils) == set(m.stencils)
    st = pickle.loads(pickle.dumps(m.shift))
    u, b = _shift_in(st, 0)
    assert np.array_equal(b[1:, :, :3], u[:-1, :, :3] + 10.0 * u[1:, :, 1:])
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        for u, b in pool.starmap(_shift_in, [(m.shift, 1), (again.shift, 2)]):
            expect = np.zeros_like(u)
            expect[1:, :, :3] = u[:-1, :, :3] + 10.0 * u[1:, :, 1:]    # b = a[i-1] + 10 a[k+1]
            assert np.array_equal(b, expect)
    gone = pickle.dumps(m.shift).replace(m.path.encode(), m.path.encode()[:-1] + b"X")
    with pytest.raises(gtcc.GtccError, match="does not exist here"):
        pickle.loads(gone)


@pytest.mark.parametrize("backend", ["naive", "openmp"])
def test_absolute_level_is_ij(backend):
    # a read at an absolute level that does not vary along K is an IJ value: it goes into
    # IJ fields in a parallel computation (it was refused as IJK)
    m = gtcc.compile("""
stencil surface(field<double> pe, field<int, IJ> kb, field<double, IJ> ps,
                field<double, IJ> top) {
  field<double, IJ> t = pe[k = (0)];
  ps = pe[k = (kb)];
  if (pe[k = (0)] > 0.0) { top = 2.0 * t; } else { top = -1.0; }
}""", backend=backend)
    rng = np.random.default_rng(5)
    pe = rng.standard_normal((5, 4, 6))
    kb = rng.integers(0, 6, (5, 4)).astype(np.int32)
    ps, top = np.zeros((5, 4)), np.zeros((5, 4))
    m.surface(pe, kb, ps, top)
    i, j = np.meshgrid(range(5), range(4), indexing="ij")
    np.testing.assert_array_equal(ps, pe[i, j, kb])
    np.testing.assert_array_equal(top, np.where(pe[:, :, 0] > 0, 2 * pe[:, :, 0], -1.0))


@pytest.mark.parametrize("backend", ["naive", "openmp"])
def test_region_widened_in_branches(backend):
    # a temporary written in a region before an if and widened by both branches is
    # read after the if where both left it (refused before); values as NumPy computes them
    m = gtcc.compile("""
stencil both(field<double> u, field<double> r, double c) {
  field<double, IJK> t;
  region(i(0, 2)) { t = u; }
  if (c > 0.0) { region(i(2, end)) { t = 2.0 * u; } } else { region(i(1, end)) { t = 3.0 * u; } }
  r = t;
}
stencil nested(field<double> u, field<double> r, double c, double d) {
  field<double, IJK> t;
  region(j(end - 1, end)) { t = u; }
  if (c > 0.0) {
    if (d > 0.0) { t = 2.0 * u; } else { t = 4.0; }
  } else {
    region(j(0, end - 1)) { t = 3.0 * u; }
  }
  r = t;
}
stencil deep(field<double> u, field<double> r, double c, double d, double e) {
  field<double, IJK> t;
  region(i(0, 2)) { t = u; }
  if (c > 0.0) {
    region(i(2, end)) { t = 1.0; }
  } else {
    if (d > 0.0) {
      region(i(2, 3)) { t = 2.0; }
      if (e > 0.0) { region(i(3, end)) { t = 5.0; } } else { region(i(3, end)) { t = 6.0; } }
    } else {
      region(i(1, end)) { t = 3.0; }
    }
  }
  r = t;
}""", backend=backend)
    rng = np.random.default_rng(6)
    for ni in range(1, 6):
        u = rng.standard_normal((ni, 4, 3))
        for c in (1.0, -1.0):
            r = np.full_like(u, np.nan)
            m.both(u, r, c)
            want = u * np.where(np.arange(ni) < (2 if c > 0 else 1), 1.0,
                                2.0 if c > 0 else 3.0)[:, None, None]
            np.testing.assert_array_equal(r, want)
            for d in (1.0, -1.0):
                r = np.full_like(u, np.nan)
                m.nested(u, r, c, d)
                want = 2.0 * u if d > 0 else np.full_like(u, 4.0)
                if c < 0:
                    want = 3.0 * u
                want[:, -1] = u[:, -1] if c < 0 else want[:, -1]
                np.testing.assert_array_equal(r, want)
                for e in (1.0, -1.0):
                    r = np.full_like(u, np.nan)
                    m.deep(u, r, c, d, e)
                    col = np.arange(ni)
                    if c > 0:
                        t = np.where(col < 2, np.nan, 1.0)
                    elif d > 0:
                        t = np.where(col < 2, np.nan, np.where(col < 3, 2.0, 5.0 if e > 0 else 6.0))
                    else:
                        t = np.where(col < 1, np.nan, 3.0)
                    want = np.where(np.isnan(t)[:, None, None], u, t[:, None, None])
                    np.testing.assert_array_equal(r, want)
