"""Every refused call raises StencilError with the runtime's own message (or the package's,
for what the runtime cannot see) and writes nothing."""
import inspect

import numpy as np
import pytest

import gtcc

N = (8, 6, 3)


def arrays(dtype=np.float64):
    rng = np.random.default_rng(1)
    u = rng.standard_normal((N[0] + 4, N[1] + 4, N[2]))
    c = np.full_like(u, 0.1)
    out = rng.standard_normal(u.shape).astype(dtype)
    return u.astype(dtype), c.astype(dtype), out


def refused(call, out, match, code=None):
    before = out.copy()
    with pytest.raises(gtcc.StencilError) as e:
        call()
    assert e.value.message == str(e.value)
    assert match in e.value.message, e.value.message
    # a GtccError that is also a ValueError, as NumPy's refusals of arrays are
    assert isinstance(e.value, gtcc.GtccError) and isinstance(e.value, ValueError)
    if code is not None:
        assert e.value.code == code
    np.testing.assert_array_equal(out, before)     # nothing written
    return e.value


def test_ok_first(mod):
    u, c, out = arrays()
    mod.hdiff(u, c, out, origin=(2, 2, 0))         # the call the others break
    assert not np.array_equal(out[2:-2, 2:-2], arrays()[2][2:-2, 2:-2])


def test_refusal_is_a_value_error(mod):
    # `except ValueError`, as a NumPy user catches a shape that does not fit, catches it
    u, c, out = arrays()
    try:
        mod.hdiff(u, c, out, origin=(2, 2, 0), domain=(N[0], N[1], N[2] + 1))
        raise AssertionError("not refused")
    except ValueError as e:
        assert isinstance(e, gtcc.StencilError) and e.code == -5


def test_wrong_dtype(mod):
    u, c, out = arrays()
    refused(lambda: mod.hdiff(u.astype(np.float32), c, out, origin=(2, 2, 0)), out,
            "stencil 'hdiff': field 'u'", code=-3)


def test_wrong_dtype_says_the_fix(mod, mods):
    # the runtime's 'the storage is float32' names a storage the caller never made: the
    # message says the array's dtype and how to give the field's; a copy (astype) only for a
    # field the stencil reads, not one it writes, whose results the copy would drop
    u, c, out = arrays()
    refused(lambda: mod.hdiff(u.astype(np.float32), c, out, origin=(2, 2, 0)), out,
            "stencil 'hdiff': field 'u' is float64 but the storage is float32 (the array's "
            "dtype is float32: make it float64 where it is made, dtype=np.float64, or pass "
            "u.astype(np.float64), a copy the stencil only reads)", code=-3)
    out32 = out.astype(np.float32)
    e = refused(lambda: mod.hdiff(u, c, out32, origin=(2, 2, 0)), out32,
                "stencil 'hdiff': field 'out_u' is float64 but the storage is float32 (the "
                "array's dtype is float32: make it float64 where it is made, dtype=np.float64)",
                code=-3)
    assert e.message.endswith("dtype=np.float64)")
    m = mods["openmp"]
    x = np.zeros((4, 4, 2))
    res = np.zeros((4, 4, 2), dtype=bool)
    refused(lambda: m.flags(x, x, res, origin=(1, 1, 0), domain=(2, 2, 2)), res,
            "field 'm' is bool but the storage is float64 (the array's dtype is float64: make "
            "it bool where it is made, dtype=np.bool_, or pass m.astype(np.bool_), a copy the "
            "stencil only reads)", code=-3)


def test_dtype_without_gtcc_type(mod):
    u, c, out = arrays()
    refused(lambda: mod.hdiff(u.astype(np.int64), c, out, origin=(2, 2, 0)), out,
            "stencil 'hdiff': field 'u': dtype int64 has no gtcc type")


def test_halo_too_small(mod):
    u, c, out = arrays()
    # origin 1 along I: one point below; above, shape - origin - domain = 12 - 1 - 8 = 3
    refused(lambda: mod.hdiff(u, c, out, origin=(1, 2, 0), domain=N), out,
            "stencil 'hdiff': field 'u': halo along I is [1,3] but the stencil needs [2,2]",
            code=-6)


def test_halo_too_small_says_the_fix(mod):
    # the runtime's 'halo' is, from Python, the origin (below) and what the array has
    # beyond origin + domain (above): the message says which to change (it said 'halo' only,
    # a word the caller never used)
    u, c, out = arrays()
    e = refused(lambda: mod.hdiff(u, c, out), out,
                "stencil 'hdiff': field 'u': halo along I is [0,2] but the stencil needs [2,2] "
                "(below the domain the halo is the origin: 0 along I where the stencil reads 2 "
                "below: give origin= with at least 2 along I, or an array with that "
                "__gt_origin__, as gtcc.zeros(..., halo=...) makes)", code=-6)
    assert e.message.endswith("makes)")
    refused(lambda: mod.hdiff(u, c, out, origin=(2, 2, 0), domain=(9, 6, 3)), out,
            "stencil 'hdiff': field 'u': halo along I is [2,1] but the stencil needs [2,2] "
            "(above the domain the halo is what the array has beyond origin + domain: 1 along "
            "I where the stencil reads 2 beyond: give a smaller domain= (none: the largest "
            "that fits) or a larger array)", code=-6)


def test_read_only_output(mod):
    u, c, out = arrays()
    out.flags.writeable = False
    refused(lambda: mod.hdiff(u, c, out, origin=(2, 2, 0)), out,
            "stencil 'hdiff': field 'out_u': the array is read-only")


def test_masked_array(mod):
    # a masked point would be read (or written) as if unmasked: refused; a masked array
    # without masked points is its data
    u, c, out = arrays()
    mu = np.ma.masked_array(u, mask=np.zeros(u.shape, bool))
    mu.mask[3, 3, 1] = True
    refused(lambda: mod.hdiff(mu, c, out, origin=(2, 2, 0)), out,
            "stencil 'hdiff': field 'u': a masked array with 1 masked point(s)")
    mout = np.ma.masked_array(out.copy(), mask=np.zeros(u.shape, bool))
    mout.mask[0, 0, 0] = True
    refused(lambda: mod.hdiff(u, c, mout, origin=(2, 2, 0)), mout.data,
            "stencil 'hdiff': field 'out_u': a masked array with 1 masked point(s)")
    want = out.copy()
    mod.hdiff(u, c, want, origin=(2, 2, 0))
    mout = np.ma.masked_array(out.copy())
    mod.hdiff(np.ma.masked_array(u, mask=np.zeros(u.shape, bool)), c, mout, origin=(2, 2, 0))
    np.testing.assert_array_equal(mout.data, want)


def test_aliasing(mod):
    u, c, out = arrays()
    refused(lambda: mod.hdiff(u, c, u, origin=(2, 2, 0)), u,
            "stencil 'hdiff': output 'out_u' shares memory with field 'u', which the stencil "
            "reads at an offset", code=-7)


def test_aliasing_says_the_fix(mod, mods):
    # GT_EALIAS says what to pass: a copy of a field the stencil only reads (as NumPy's
    # ufuncs copy an overlapping input themselves); arrays of their own for fields it
    # writes, steps' iterate pairs included, whose results a copy would drop
    u, c, out = arrays()
    refused(lambda: mod.hdiff(u, c, u, origin=(2, 2, 0)), u,
            "stencil 'hdiff': output 'out_u' shares memory with field 'u', which the stencil "
            "reads at an offset (pass a copy of 'u', u.copy(), as NumPy's ufuncs copy an "
            "input that overlaps their output)", code=-7)
    m = gtcc.compile("stencil t(field<double> u, field<double> v, field<double> w) "
                     "{ v = u[i+1] * 2.0; w = u; }\n"
                     "stencil s(field<double> u, field<double> v) iterate(v -> u) "
                     "{ v = u[i+1] * 2.0; }")
    a = np.ones((4, 3, 2))
    refused(lambda: m.t(np.ones((3, 3, 2)), a[:2], a[1:3]), a,
            "stencil 't': outputs 'v' and 'w' share memory (give each field the stencil writes "
            "an array of its own)", code=-7)
    refused(lambda: m.s.steps(a, a, nsteps=2), a,
            "output 'v' shares memory with field 'u', which the stencil reads at an offset "
            "(give each field the stencil writes an array of its own)", code=-7)
    refused(lambda: m.s(a, a), a, "(pass a copy of 'u', u.copy(), as NumPy's ufuncs copy an "
            "input that overlaps their output)", code=-7)
    m.s(a.copy(), a)                       # the copy it names
    np.testing.assert_array_equal(a[:3], 2.0)
    np.testing.assert_array_equal(a[3], 1.0)


def test_aliasing_views(mod):
    # two views of one array, overlapping: still refused
    u, c, out = arrays()
    big = np.zeros((N[0] + 6, N[1] + 4, N[2]))
    refused(lambda: mod.hdiff(big[:-2], c, big[2:], origin=(2, 2, 0)), big,
            "shares memory with field 'u'", code=-7)


def test_disjoint_views_of_one_array():
    # views of one array whose elements do not meet share no memory (np.shares_memory is
    # False): the components of a model's state q[..., n], the lower and upper levels. They
    # were refused as 'shares memory' because their byte ranges intersect
    src = ("stencil lapk(field<double> u, field<double> r) {\n"
           "  r = -4.0 * u + u[i-1] + u[i+1] + u[j-1] + u[j+1] + u[k+1];\n}")

    def lapk(u):           # over the whole interior: origin (1, 1, 0), one level less
        c = u[1:-1, 1:-1, :-1]
        return (-4.0 * c + u[:-2, 1:-1, :-1] + u[2:, 1:-1, :-1] + u[1:-1, :-2, :-1] +
                u[1:-1, 2:, :-1] + u[1:-1, 1:-1, 1:])
    rng = np.random.default_rng(4)
    for backend in ("naive", "openmp"):
        m = gtcc.compile(src, backend=backend)
        q = rng.standard_normal((9, 8, 5, 3))
        expect = q.copy()
        expect[1:-1, 1:-1, :-1, 1] = lapk(q[..., 0])
        m.lapk(q[..., 0], q[..., 1], origin=(1, 1, 0))
        np.testing.assert_array_equal(q, expect)
        qf = np.asfortranarray(q.transpose(3, 0, 1, 2))     # components first: interleaved
        expect = qf.copy()
        expect[2, 1:-1, 1:-1, :-1] = lapk(qf[0])
        m.lapk(qf[0], qf[2], origin=(1, 1, 0))
        np.testing.assert_array_equal(qf, expect)
        k = rng.standard_normal((9, 8, 10))                  # C order: the levels' halves
        expect = k.copy()
        expect[1:-1, 1:-1, 5:9] = lapk(k[:, :, :5])
        m.lapk(k[:, :, :5], k[:, :, 5:], origin=(1, 1, 0))
        np.testing.assert_array_equal(k, expect)
        # one level further the output's elements meet the input's: refused
        refused(lambda: m.lapk(k[:, :, :5], k[:, :, 4:9], origin=(1, 1, 0)), k,
                "stencil 'lapk': output 'r' shares memory with field 'u', which the stencil "
                "reads at an offset", code=-7)
        refused(lambda: m.lapk(q[:, :, :4, 0], q[:, :, 1:, 0], origin=(1, 1, 0)), q,
                "shares memory with field 'u'", code=-7)


def test_domain_too_big(mod):
    u, c, out = arrays()
    refused(lambda: mod.hdiff(u, c, out, origin=(2, 2, 0), domain=(N[0], N[1], N[2] + 1)),
            out, "stencil 'hdiff': field 'u': the domain is 4 along K but the storage's "
            "interior is 3", code=-5)


def test_domain_too_big_says_the_fix(mod):
    # the runtime's 'the storage's interior is 12' is, from Python, what the array has from
    # its origin on: the message says so and what to change
    u, c, out = arrays()
    refused(lambda: mod.hdiff(u, c, out, origin=(2, 2, 0), domain=(8, 6, 4)), out,
            "the domain is 4 along K but the storage's interior is 3 (shape 3, halo [0,0]) "
            "(the array has 3 points along K from its origin 0: give a smaller domain= (none: "
            "the largest that fits) or a larger array)", code=-5)


def test_domain_negative(mod):
    u, c, out = arrays()
    refused(lambda: mod.hdiff(u, c, out, origin=(2, 2, 0), domain=(-1, 2, 2)), out,
            "stencil 'hdiff': domain size along I is -1; must be >= 0", code=-1)


def test_default_domain_none_fits(mod):
    # the default domain (none given) of an array too small for what the stencil reads
    # beyond it: the field and the numbers named, not "domain size along I is -1" of a domain
    # the caller never gave
    u, c, out = arrays()
    e = refused(lambda: mod.hdiff(u[:3], c, out, origin=(2, 2, 0)), out,
                "stencil 'hdiff': field 'u': no domain fits along I: the array has 3 points "
                "along I, from its origin 2, and the stencil reads 2 beyond the domain")
    assert e.code == 0
    z = np.zeros((0,) + u.shape[1:])
    refused(lambda: mod.hdiff(z, z, z.copy()), z, "field 'u': no domain fits along I: the "
            "array has 0 points along I, from its origin 0")


def test_domain_wrong_length(mod):
    u, c, out = arrays()
    refused(lambda: mod.hdiff(u, c, out, origin=(2, 2, 0), domain=(4, 4)), out,
            "the domain (4, 4) has 2 entries; it takes 3")


def test_origin_outside(mod):
    u, c, out = arrays()
    refused(lambda: mod.hdiff(u, c, out, origin=(2, 2, 7)), out,
            "stencil 'hdiff': field 'u': origin along K is 7 but the array has 3 points along K")
    refused(lambda: mod.hdiff(u, c, out, origin={"_all_": (2, 2, 0), "coeff": (-1, 2, 0)}), out,
            "stencil 'hdiff': field 'coeff': origin along I is -1; it must be >= 0 (the index "
            "of the first interior point in the array)")
    # origin 3 of 3 points along K: no level left, so the explicit domain's 3 do not fit
    refused(lambda: mod.hdiff(u, c, out, origin=(2, 2, 3), domain=N), out,
            "stencil 'hdiff': field 'u'")


def test_gt_origin_outside(mod):
    u, c, out = arrays()
    a = gtcc.empty(u.shape, dtype=u.dtype, halo=((2, 2), (2, 2), (0, 0)))
    a[...] = u
    a.__gt_origin__ = (2, -2, 0)
    refused(lambda: mod.hdiff(a, c, out, origin={"coeff": (2, 2, 0), "out_u": (2, 2, 0)}), out,
            "stencil 'hdiff': field 'u': __gt_origin__ along J is -2; it must be >= 0")
    # a __gt_origin__ that is no sequence: a StencilError naming it, not Python's bare
    # TypeError "'int' object is not iterable"
    a.__gt_origin__ = 2
    refused(lambda: mod.hdiff(a, c, out, origin={"coeff": (2, 2, 0), "out_u": (2, 2, 0)}), out,
            "stencil 'hdiff': field 'u': __gt_origin__ is 2 (an int); it must be a sequence of "
            "integers, one per dimension of the array")


def test_wrong_ndim(mod):
    u, c, out = arrays()
    refused(lambda: mod.hdiff(u[:, :, 0], c, out, origin=(2, 2, 0)), out,
            "field 'u': the array has 2 dimensions but the field has axes IJK")


def test_bad_gt_dims(mod):
    # __gt_dims__ that is no sequence of one-letter names: a StencilError naming the field
    # and the value, not "'int' object is not iterable" or bytes read as "757473"
    u, c, out = arrays()
    for dims, shown in ((3, "3 (an int)"), (b"IJK", "b'IJK' (a bytes)"),
                        (("IJ", "K"), "('IJ', 'K') (a tuple)"), (("I", "J", 3), "('I', 'J', 3)")):
        g = u.view(gtcc.GtArray)
        g.__gt_dims__ = dims
        refused(lambda: mod.hdiff(g, c, out, origin=(2, 2, 0)), out,
                "stencil 'hdiff': field 'u': __gt_dims__ is %s" % shown)
    g = u.view(gtcc.GtArray)
    g.__gt_dims__ = "ijk"                  # a string, lower case: the axes I, J, K
    mod.hdiff(g, c, out, origin=(2, 2, 0))


def test_broadcast_array(mod):
    # a stride of 0 (np.broadcast_to: a vertical profile spread over the plane) is refused
    # as overlapping elements, with a hint a NumPy user can act on
    u, c, out = arrays()
    prof = np.broadcast_to(np.linspace(0.0, 1.0, N[2]), u.shape)
    refused(lambda: mod.hdiff(u, prof, out, origin=(2, 2, 0)), out,
            "stencil 'hdiff': field 'coeff': gt_wrap: stride along I is 0 but the shape is 12: "
            "elements overlap (a broadcast array: pass a copy, np.ascontiguousarray(x), or give "
            "the field only the axes it varies along, as field<double, K>)", code=-1)


def test_negative_strides(mod):
    u, c, out = arrays()
    refused(lambda: mod.hdiff(u[::-1], c, out, origin=(2, 2, 0)), out,
            "negative strides are not supported", code=-1)


def test_reversed_or_misaligned_view_says_the_fix(mod):
    # gt_wrap's refusal of a reversed view (a negative stride) or one at an offset that is no
    # multiple of the element size (np.frombuffer(b, offset=1)) says what to pass: a copy
    # where the stencil only reads the field; where it writes it, an array of its own whose
    # result goes back into the view (a copy would drop the results). The copy suggested
    # works: np.ascontiguousarray of a contiguous misaligned view is the same view
    u, c, out = arrays()
    refused(lambda: mod.hdiff(u[::-1], c, out, origin=(2, 2, 0)), out,
            "negative strides are not supported (a reversed view (x[::-1]): pass a copy, "
            "x.copy(), which the stencil only reads)", code=-1)
    back = out[::-1]
    refused(lambda: mod.hdiff(u, c, back, origin=(2, 2, 0)), out,
            "field 'out_u': gt_wrap: stride along I is -%d; negative strides are not supported "
            "(a reversed view (x[::-1]): the stencil writes it, so write into an array of its "
            "own, np.empty_like(x, order='C'), and copy the result into the view)"
            % (out.strides[0] // 8), code=-1)
    raw = np.zeros(u.nbytes + 1, dtype=np.uint8)
    odd = np.frombuffer(raw.data, dtype=np.float64, count=u.size, offset=1).reshape(u.shape)
    odd[...] = u
    e = refused(lambda: mod.hdiff(odd, c, out, origin=(2, 2, 0)), out,
                "is not aligned to the 8 bytes of a float64 (a view at an offset that is no "
                "multiple of the element size: pass a copy, x.copy(), which the stencil only "
                "reads)", code=-1)
    assert e.message.startswith("stencil 'hdiff': field 'u': gt_wrap: data ")
    mod.hdiff(odd.copy(), c, out, origin=(2, 2, 0))       # the fix it names
    ref = out.copy()
    mod.hdiff(u, c, ref, origin=(2, 2, 0))
    np.testing.assert_array_equal(out, ref)


def test_not_an_array(mod):
    u, c, out = arrays()
    refused(lambda: mod.hdiff([[1.0]], c, out), out, "a list is not an array")

    # only __array__ (xarray's DataArray, a pandas DataFrame): it said "a DataArray is not an
    # array"; np.asarray of one may be a copy, so the message says to pass its NumPy array
    class DataArray:
        def __init__(self, a):
            self.values = a

        def __array__(self, dtype=None, copy=None):
            return self.values

    refused(lambda: mod.hdiff(DataArray(u), c, out, origin=(2, 2, 0)), out,
            "stencil 'hdiff': field 'u': a DataArray offers only __array__, which may copy, "
            "not its memory in place (DLPack, __cuda_array_interface__, the array interface or "
            "a buffer): pass its NumPy array (x.values, x.to_numpy(), np.asarray(x))")
    mod.hdiff(DataArray(u).values, c, out, origin=(2, 2, 0))


def test_wrong_arguments(mod):
    # Python's own messages, as for a def with the stencil's parameters
    u, c, out = arrays()
    before = out.copy()
    with pytest.raises(TypeError, match=r"^hdiff\(\) missing 1 required argument: 'out_u'$"):
        mod.hdiff(u, c)
    with pytest.raises(TypeError, match=r"^hdiff\(\) missing 2 required arguments: "
                                        r"'coeff' and 'out_u'$"):
        mod.hdiff(u)
    with pytest.raises(TypeError, match=r"^hdiff\(\) missing 3 required arguments: "
                                        r"'u', 'coeff', and 'out_u'$"):
        mod.hdiff()
    with pytest.raises(TypeError, match=r"^hdiff\(\) got an unexpected keyword argument "
                                        r"'nope'$"):
        mod.hdiff(u, c, out, nope=1)
    with pytest.raises(TypeError, match=r"^hdiff\(\) got multiple values for argument 'u'$"):
        mod.hdiff(u, c, out, u=u)
    with pytest.raises(TypeError, match=r"^hdiff\(\) takes 3 positional arguments but 4 "
                                        r"were given$"):
        mod.hdiff(u, c, out, out)
    np.testing.assert_array_equal(out, before)     # nothing ran


def test_parameters_named_like_the_call(tmp_path, monkeypatch):
    # parameters named self, decomp or like the call's own keywords: self and decomp go by
    # keyword too; origin=, domain=, nsteps= are the call's, so such a parameter goes by
    # position, and a keyword call says so instead of "missing 'origin'" alone
    m = gtcc.compile("stencil s(field<double> origin, field<double> domain) "
                     "{ domain = origin * 2.0; }\n"
                     "stencil t(field<double> self, field<double> decomp, double nsteps) "
                     "iterate(decomp -> self) { decomp = self * nsteps; }")
    a, b = np.ones((2, 2, 2)), np.zeros((2, 2, 2))
    m.s(a, b)
    assert (b == 2).all()
    with pytest.raises(TypeError, match=r"^s\(\) missing 1 required argument: 'origin' "
                                        r"\(origin= is the call's own keyword: pass the "
                                        r"stencil's parameter 'origin' by position\)$"):
        m.s(origin=a, domain=b)
    m.t(self=a, decomp=b, nsteps=3.0)
    assert (b == 3).all()
    m.t.steps(a, b, 0.5, nsteps=2)
    assert (a == 0.25).all()
    with pytest.raises(TypeError, match=r"^t\.steps\(\) missing 1 required argument: "
                                        r"'nsteps' \(nsteps= is the call's own keyword"):
        m.t.steps(self=a, decomp=b, nsteps=2)
    assert (a == 0.25).all()


def test_steps_wrong_arguments_name_the_steps(tmp_path, monkeypatch):
    # steps' TypeErrors name S.steps, as Python names the function called: a call without
    # nsteps said "Stencil.steps() missing ..." (the package's class), the others "t() ..."
    m = gtcc.compile("stencil t(field<double> u, field<double> v, double a) iterate(v -> u) "
                     "{ v = u * a; }")
    a, b = np.ones((2, 2, 2)), np.zeros((2, 2, 2))
    for call, words in (
            (lambda: m.t.steps(a, b, 0.5), r"^t\.steps\(\) missing 1 required keyword-only "
             r"argument: 'nsteps'$"),
            (lambda: m.t.steps(a, b, 0.5, 2), r"^t\.steps\(\) takes 3 positional arguments "
             r"but 4 were given$"),
            (lambda: m.t.steps(a, b, nsteps=2), r"^t\.steps\(\) missing 1 required argument: "
             r"'a'$"),
            (lambda: m.t.steps(a, b, 0.5, nsteps=2, w=1), r"^t\.steps\(\) got an unexpected "
             r"keyword argument 'w'$"),
            (lambda: m.t(a, b), r"^t\(\) missing 1 required argument: 'a'$")):
        with pytest.raises(TypeError, match=words):
            call()
        assert (a == 1).all() and (b == 0).all()
    assert "nsteps=<required>" in str(inspect.signature(m.t.steps))


def test_no_steps(mod):
    u, c, out = arrays()
    refused(lambda: mod.hdiff.steps(u, c, out, nsteps=2), out, "has no iterate")


def test_compile_error_shows_diagnostics(tmp_path, monkeypatch):
    monkeypatch.setenv("GTCC_CACHE_DIR", str(tmp_path))
    with pytest.raises(gtcc.GtccError) as e:
        gtcc.compile("stencil s(field<double> u, field<double> v) { v = u[i+1] }")
    assert "error: expected ';' after expression, saw '}'" in str(e.value)
    with open(e.value.log_path) as f:
        assert "error: expected ';' after expression, saw '}'" in f.read()


def test_build_error_log_kept(tmp_path, monkeypatch):
    # gtcc accepts it, the C compiler refuses the flags: the log is kept and raised
    monkeypatch.setenv("GTCC_CACHE_DIR", str(tmp_path))
    with pytest.raises(gtcc.GtccError) as e:
        gtcc.compile("stencil s(field<double> u, field<double> v) { v = u; }",
                     cflags=["-Wl,--no-such-linker-flag"])
    assert e.value.log_path and e.value.log_path.endswith(".failed.log")
    with open(e.value.log_path) as f:
        log = f.read()
    assert "--no-such-linker-flag" in log and log in str(e.value)
    assert not [p for p in tmp_path.rglob(".tmp-*")], "a temporary build directory was left"


def test_bad_scalars(tmp_path, monkeypatch):
    m = gtcc.compile("stencil sc(field<int> a, int n, double x) { a = n + int(x); }")
    a = np.zeros((2, 2, 2), np.int32)
    refused(lambda: m.sc(a, 2**31, 1.0), a, "stencil 'sc': scalar 'n': 2147483648 is out of "
            "int32's range")
    # what NumPy would not cast safely is refused, not truncated or parsed (as pybind11 does)
    refused(lambda: m.sc(a, 1, "x"), a, "stencil 'sc': scalar 'x': 'x' (a str) is not a real "
            "number")
    refused(lambda: m.sc(a, 1, "1.5"), a, "scalar 'x': '1.5' (a str) is not a real number")
    refused(lambda: m.sc(a, 1, 1j), a, "scalar 'x': 1j (a complex) is not a real number")
    # an int beyond a double's range: the scalar and the value named (not Python's bare
    # 'int too large to convert to float')
    refused(lambda: m.sc(a, 1, 10**400), a, "stencil 'sc': scalar 'x': %d (an int) is out of "
            "float64's range" % 10**400)
    refused(lambda: m.sc(a, 2.0, 1.0), a, "stencil 'sc': scalar 'n': 2.0 (a float) is not an "
            "integer")
    refused(lambda: m.sc(a, np.float32(3), 1.0), a, "scalar 'n': np.float32(3.0) (a float32) "
            "is not an integer")
    refused(lambda: m.sc(a, "3", 1.0), a, "scalar 'n': '3' (a str) is not an integer")
    refused(lambda: m.sc(a, None, 1.0), a, "scalar 'n': None is not an integer")
    m.sc(a, -2**31 + 5, 2.0)
    assert (a == -2**31 + 7).all()
    # NumPy integers and 0-d arrays are numbers; an int or a bool is a real number too
    m.sc(a, np.int64(4), np.array(3.9))
    assert (a == 7).all()
    m.sc(a, np.array(-2, np.int16), True)
    assert (a == -1).all()
    # a NumPy bool is an integer as Python's bool is (docs/python.md: "a Python or NumPy
    # int or bool"), not refused as "not an integer"
    m.sc(a, np.bool_(True), 2.0)
    assert (a == 3).all()
    m.sc(a, np.array(False), 1.0)
    assert (a == 1).all()

    b = gtcc.compile("stencil sb(field<int> a, bool on, float x) { a = int(on) + int(x); }")
    refused(lambda: b.sb(a, 1, 0.0), a, "stencil 'sb': scalar 'on': 1 (an int) is not a bool "
            "(True or False)")
    refused(lambda: b.sb(a, None, 0.0), a, "scalar 'on': None is not a bool (True or False)")
    refused(lambda: b.sb(a, "False", 0.0), a, "scalar 'on': 'False' (a str) is not a bool")
    # a float scalar: float32's range (3.4028235e38), not silently infinite
    refused(lambda: b.sb(a, True, 1e39), a, "stencil 'sb': scalar 'x': 1e+39 is out of "
            "float32's range")
    refused(lambda: b.sb(a, True, -10**400), a, "stencil 'sb': scalar 'x': -%d (an int) is out "
            "of float32's range" % 10**400)
    b.sb(a, np.bool_(True), 2.5)
    assert (a == 3).all()
    b.sb(a, np.array(False), -1.0)
    assert (a == -1).all()


def test_numpy_scalars_not_real_numbers():
    # float() takes NumPy values that are no real number: a 0-d str or bytes array is
    # parsed, a NumPy complex loses its imaginary part (a ComplexWarning only), a timedelta
    # is its count of units, a longdouble beyond a double's range becomes inf. NumPy casts
    # none of them to float64 safely: each is refused, naming it
    import decimal
    m = gtcc.compile("stencil sx(field<double> a, double x) { a = x; }")
    a = np.zeros((2, 2, 2))
    refused(lambda: m.sx(a, np.array("1.5")), a, "stencil 'sx': scalar 'x': array('1.5', "
            "dtype='<U3') (a ndarray) is not a real number")
    refused(lambda: m.sx(a, np.array(b"1.5")), a, "is not a real number")
    refused(lambda: m.sx(a, np.complex128(2 + 3j)), a, "scalar 'x': np.complex128(2+3j) (a "
            "complex128) is not a real number")
    refused(lambda: m.sx(a, np.array(2 + 0j)), a, "is not a real number")
    refused(lambda: m.sx(a, np.timedelta64(5, "s")), a, "is not a real number")
    refused(lambda: m.sx(a, np.array(2.0, dtype=object)), a, "is not a real number")
    refused(lambda: m.sx(a, np.array([2.0])), a, "is not a real number")
    big = np.longdouble(10) ** 400
    if np.isfinite(big):        # a longdouble wider than a double (x86)
        refused(lambda: m.sx(a, big), a, "is out of float64's range")
    refused(lambda: m.sx(a, decimal.Decimal("1e400")), a, "scalar 'x': Decimal('1E+400') (a "
            "Decimal) is out of float64's range")
    # NumPy's numbers of every kind still are, infinities too
    for x, v in ((np.float16(1.5), 1.5), (np.uint8(3), 3.0), (np.array(True), 1.0),
                 (np.longdouble(0.25), 0.25), (decimal.Decimal("0.5"), 0.5),
                 (np.inf, np.inf), (decimal.Decimal("-Infinity"), -np.inf)):
        m.sx(a, x)
        assert (a == v).all(), x


def test_integers_not_truncated(mod, m_heat):
    # origins, domains and step counts are integers: 1.5 (or 2.0) is refused, not truncated
    u, c, out = arrays()
    refused(lambda: mod.hdiff(u, c, out, origin=(2.0, 2, 0)), out,
            "stencil 'hdiff': field 'u': an entry of origin (2.0, 2, 0) is 2.0 (a float); it "
            "must be an integer")
    refused(lambda: mod.hdiff(u, c, out, origin={"_all_": (2, 2, 0), "coeff": (2, 2.5, 0)}),
            out, "field 'coeff': an entry of origin (2, 2.5, 0) is 2.5 (a float)")
    # a key that names no field is a typo, not a field left at its default origin
    refused(lambda: mod.hdiff(u, c, out, origin={"_all_": (2, 2, 0), "coef": (2, 2, 0)}), out,
            "stencil 'hdiff': origin names 'coef', which is not a field (its fields: u, coeff, "
            "out_u; \"_all_\" for every field)")
    refused(lambda: mod.hdiff(u, c, out, origin=2), out,
            "field 'u': origin is 2 (an int); it must be a sequence of integers (I, J, K)")
    # a set has no order ({2, 1, 0} iterates as 0, 1, 2): refused, not taken in its order
    refused(lambda: mod.hdiff(u, c, out, origin={2, 1, 0}), out,
            "field 'u': origin is {0, 1, 2} (a set); it must be a sequence of integers")
    refused(lambda: mod.hdiff(u, c, out, origin=(2, 2, 0), domain={8, 6, 3}), out,
            "stencil 'hdiff': the domain is {8, 3, 6} (a set); it must be a sequence")
    # a 0-d array is no sequence: a StencilError naming it, not NumPy's bare TypeError
    refused(lambda: mod.hdiff(u, c, out, origin=np.array(2)), out,
            "field 'u': origin is array(2) (a ndarray); it must be a sequence of integers")
    refused(lambda: mod.hdiff(u, c, out, origin=(2, 2, 0), domain=np.array(3)), out,
            "stencil 'hdiff': the domain is array(3) (a ndarray); it must be a sequence")
    # an iterator is read once, for every field (not used up by the first field, the
    # others then told their origin () has 0 entries)
    e = out.copy()
    mod.hdiff(u, c, e, origin=(2, 2, 0))
    mod.hdiff(u, c, out, origin=(x for x in (2, 2, 0)))
    assert np.array_equal(out, e)
    refused(lambda: mod.hdiff(u, c, out, origin=map(float, (2, 2, 0))), out,
            "stencil 'hdiff': field 'u': an entry of origin (2.0, 2.0, 0.0) is 2.0 (a float)")
    refused(lambda: mod.hdiff(u, c, out, origin=(2, 2, 0), domain=(8, 6.0, 3)), out,
            "stencil 'hdiff': an entry of the domain (8, 6.0, 3) is 6.0 (a float); it must be "
            "an integer")
    refused(lambda: mod.hdiff(u, c, out, origin=(2, 2, 0), domain="863"), out,
            "stencil 'hdiff': the domain is '863' (a str); it must be a sequence")
    g = u.view(gtcc.GtArray)
    g.__gt_origin__ = (2, 2, 0.0)
    refused(lambda: mod.hdiff(g, c, out), out,
            "field 'u': an entry of __gt_origin__ (2, 2, 0.0) is 0.0 (a float)")
    v = np.random.default_rng(2).standard_normal((6, 5))
    vn = v.copy()
    for n, what in ((2.0, "2.0 (a float)"), ("2", "'2' (a str)"), (None, "None")):
        refused(lambda: m_heat.heat.steps(v, vn, 0.1, nsteps=n, origin=(1, 1)), vn,
                "stencil 'heat': steps: nsteps is %s; it must be an integer" % what)
    # NumPy integers are integers: one step, as a single call gives it
    v0, e = v.copy(), v.copy()
    m_heat.heat(v, e, 0.1, origin=(1, 1), domain=(4, 3, 1))
    m_heat.heat.steps(v, vn, 0.1, nsteps=np.int32(1), origin=np.array([1, 1]),
                      domain=(np.int64(4), 3, 1))
    assert np.array_equal(v, e) and not np.array_equal(e, v0)
    # NumPy bools are integers too (nsteps, origin and domain entries)
    v, e = v0.copy(), v0.copy()
    m_heat.heat(v, e, 0.1, origin=(1, 1), domain=(4, 3, 1))
    m_heat.heat.steps(v, vn, 0.1, nsteps=np.bool_(True), origin=(np.True_, 1),
                      domain=(4, 3, np.True_))
    assert np.array_equal(v, e)


def test_integers_not_wrapped(mod, m_heat):
    # a domain entry or a step count beyond int64_t is refused, not wrapped by ctypes
    # (2**64 + 4 went to C as 4: a call on a smaller domain than asked, silently)
    u, c, out = arrays()
    for big in (2**64 + 4, -2**64 + 8, 2**63):
        refused(lambda: mod.hdiff(u, c, out, origin=(2, 2, 0), domain=(big, 6, 3)), out,
                "stencil 'hdiff': an entry of the domain (%d, 6, 3) is %d, out of the range "
                "of a 64-bit integer" % (big, big))
    refused(lambda: mod.hdiff(u, c, out, origin=(2, 2, 0), domain=[np.uint64(2**64 - 1), 6, 3]),
            out, "is 18446744073709551615, out of the range of a 64-bit integer")
    v = np.random.default_rng(2).standard_normal((6, 5))
    vn = v.copy()
    for n in (2**64 + 1, 2**63):
        refused(lambda: m_heat.heat.steps(v, vn, 0.1, nsteps=n, origin=(1, 1)), vn,
                "stencil 'heat': steps: nsteps is %d, out of the range of a 64-bit integer" % n)
    assert np.array_equal(v, np.random.default_rng(2).standard_normal((6, 5)))


@pytest.fixture(scope="module")
def m_heat():
    return gtcc.compile("stencil heat(field<double, IJ> u, field<double, IJ> un, double a) "
                        "iterate(un -> u) { un = u + a * (u[i-1] + u[i+1] - 2.0 * u); }")


def test_zeros_refuses_bad_sizes():
    # gtcc.zeros/empty: NumPy's exception types, every size an integer, halos that fit
    for kw, exc, match in (
            (dict(shape=(4.0, 4, 4)), TypeError, r"shape \(4.0, 4, 4\): 4.0 \(a float\) is not"),
            (dict(shape=(-1, 4, 4)), ValueError, "negative dimensions are not allowed"),
            (dict(shape=(8, 8, 4), halo=-1), ValueError, r"halo along I is \(-1, -1\); it "
             "must be >= 0"),
            (dict(shape=(8, 8, 4), halo=(1, (2, -1), 0)), ValueError, r"halo along J is "
             r"\(2, -1\)"),
            (dict(shape=(8, 8, 4), halo=(1, 1, 3)), ValueError, r"halo along K is \(3, 3\): "
             "wider than the shape's 4 points"),
            (dict(shape=(8, 8, 4), halo=1.0), TypeError, "halo 1.0: an int, or one int or"),
            (dict(shape=(8, 8, 4), halo=(1, (1, 1, 1), 0)), ValueError, r"halo along J: "
             r"\(1, 1, 1\) is neither an int nor a \(lower, upper\) pair"),
            (dict(shape=(8, 8, 4), halo=(1, (1, 0.5), 0)), TypeError, r"0.5 \(a float\) is "
             "not an integer"),
            (dict(shape=(8, 8, 4), halo=(1, 1)), ValueError, "for a shape of 3 dimensions"),
            (dict(shape=(8, 8, 4), axes="IIK"), ValueError, "each of I, J and K at most once"),
            (dict(shape=(8, 8, 4), layout="KJIX"), ValueError, "not a permutation"),
            # a 0-d shape: refused here, not a GtArray of no axes that every stencil refuses
            (dict(shape=()), ValueError, r"shape \(\): a field's array has 1 to 3 dimensions"),
            # a layout of another type: NumPy's TypeError naming it, not an AttributeError
            (dict(shape=(8, 8, 4), layout=3), TypeError, r"layout 3 \(an int\): give a str")):
        with pytest.raises(exc, match=match):
            gtcc.zeros(**kw)
    z = gtcc.zeros(np.array([8, 6, 4]), halo=(np.int64(1), (2, np.int32(1)), 0))
    assert z.shape == (8, 6, 4) and z.__gt_origin__ == (1, 2, 0)
    # one size as a 0-d integer array, as np.zeros takes it (it was "iteration over a 0-d
    # array"); a 0-d float array is a size that is not an integer
    z = gtcc.zeros(np.array(5), halo=1)
    assert z.shape == (5,) == np.zeros(np.array(5)).shape and z.__gt_origin__ == (1,)
    with pytest.raises(TypeError, match=r"shape \(array\(5\.\)\,\): array\(5\.\) \(a "
                       r"ndarray\) is not an integer"):
        gtcc.zeros(np.array(5.0))


def test_mpi_no_decomposition(mod, m_heat):
    # S.mpi and S.steps_mpi given something that is no gtcc.Decomposition (None, a
    # communicator): a StencilError naming it, not an AttributeError from inside the call
    u, c, out = arrays()
    refused(lambda: mod.hdiff.mpi(None, u, c, out), out, "stencil 'hdiff': mpi: the "
            "decomposition is None; it must be a gtcc.Decomposition")
    v = np.zeros((6, 5))
    vn = v.copy()
    refused(lambda: m_heat.heat.steps_mpi(3, v, vn, 0.1, nsteps=1), vn, "stencil 'heat': "
            "steps_mpi: the decomposition is 3 (an int); it must be a gtcc.Decomposition")


def test_bad_array_interface(mod):
    # an __array_interface__ NumPy refuses (a NULL pointer with data): a StencilError naming
    # the field, not NumPy's bare ValueError
    class Bad:
        __array_interface__ = {"shape": (12, 10, 3), "typestr": "<f8", "data": (0, False),
                               "version": 3}
    u, c, out = arrays()
    refused(lambda: mod.hdiff(Bad(), c, out, origin=(2, 2, 0)), out,
            "stencil 'hdiff': field 'u': a Bad whose array interface NumPy refuses: ")


def test_too_few_levels():
    # the count is named in words that fit it: "1 level", "2 levels" (it said "1 levels")
    m = gtcc.compile("stencil lev(field<double> a, field<double> b) {\n"
                     "  computation(parallel) {\n"
                     "    interval(0, 3) { b = a; }\n"
                     "    interval(3, end) { b = 2.0 * a; }\n  }\n}")
    for nk, words in ((1, "1 level along K"), (2, "2 levels along K")):
        a = np.ones((2, 2, nk))
        b = np.zeros_like(a)
        refused(lambda: m.lev(a, b), b, "stencil 'lev': the domain has %s; its intervals need 3 "
                "or more" % words, code=-5)


def test_bool_bytes_other_than_0_and_1(mods):
    # a uint8 mask viewed as bool (bytes 0, 1, 2, 255): NumPy reads any nonzero byte as
    # True, C's bool only 1, so the stencil computed !2 as 3 (a true) and 2 == true as false
    # silently; refused now, naming the field and the way out (m != 0), whose result is
    # NumPy's own logic
    rng = np.random.default_rng(5)
    raw = rng.choice(np.array([0, 1, 2, 255], np.uint8), (7, 6, 2))
    raw[0, 0, 0] = 2                                 # one at least
    x = rng.random((7, 6, 2))
    mb = raw != 0                                    # NumPy's truth of the bytes
    want = np.zeros((7, 6, 2), bool)
    want[1:, :-1] = (mb[:-1, :-1] & (x[1:, :-1] > 0.5)) | ~mb[1:, 1:]
    for b, mod in mods.items():
        for m in (raw.view(np.bool_), np.asfortranarray(raw).view(np.bool_),
                  raw.view(np.bool_).view(gtcc.GtArray)):
            res = np.zeros((7, 6, 2), bool)
            refused(lambda: mod.flags(m, x, res, origin=(1, 0, 0)), res,
                    "stencil 'flags': field 'm': the bool array holds bytes other than 0 and 1 "
                    "(%d of them; " % np.count_nonzero(raw > 1))
            mod.flags(m != 0, x, res, origin=(1, 0, 0))
            np.testing.assert_array_equal(res.view(np.uint8), want.view(np.uint8), err_msg=b)
