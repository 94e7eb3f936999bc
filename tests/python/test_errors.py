"""Every refused call raises StencilError with the runtime's own message (or the package's,
for what the runtime cannot see) and writes nothing."""
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
    if code is not None:
        assert e.value.code == code
    np.testing.assert_array_equal(out, before)     # nothing written
    return e.value


def test_ok_first(mod):
    u, c, out = arrays()
    mod.hdiff(u, c, out, origin=(2, 2, 0))         # the call the others break
    assert not np.array_equal(out[2:-2, 2:-2], arrays()[2][2:-2, 2:-2])


def test_wrong_dtype(mod):
    u, c, out = arrays()
    refused(lambda: mod.hdiff(u.astype(np.float32), c, out, origin=(2, 2, 0)), out,
            "stencil 'hdiff': field 'u'", code=-3)


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


def test_read_only_output(mod):
    u, c, out = arrays()
    out.flags.writeable = False
    refused(lambda: mod.hdiff(u, c, out, origin=(2, 2, 0)), out,
            "stencil 'hdiff': field 'out_u': the array is read-only")


def test_aliasing(mod):
    u, c, out = arrays()
    refused(lambda: mod.hdiff(u, c, u, origin=(2, 2, 0)), u,
            "stencil 'hdiff': output 'out_u' shares memory with field 'u', which the stencil "
            "reads at an offset", code=-7)


def test_aliasing_views(mod):
    # two views of one array, overlapping: still refused
    u, c, out = arrays()
    big = np.zeros((N[0] + 6, N[1] + 4, N[2]))
    refused(lambda: mod.hdiff(big[:-2], c, big[2:], origin=(2, 2, 0)), big,
            "shares memory with field 'u'", code=-7)


def test_domain_too_big(mod):
    u, c, out = arrays()
    refused(lambda: mod.hdiff(u, c, out, origin=(2, 2, 0), domain=(N[0], N[1], N[2] + 1)),
            out, "stencil 'hdiff': field 'u': the domain is 4 along K but the storage's "
            "interior is 3", code=-5)


def test_domain_negative(mod):
    u, c, out = arrays()
    refused(lambda: mod.hdiff(u, c, out, origin=(2, 2, 0), domain=(-1, 2, 2)), out,
            "stencil 'hdiff': domain size along I is -1; must be >= 0", code=-1)


def test_domain_wrong_length(mod):
    u, c, out = arrays()
    refused(lambda: mod.hdiff(u, c, out, origin=(2, 2, 0), domain=(4, 4)), out,
            "the domain (4, 4) has 2 entries; it takes 3")


def test_origin_outside(mod):
    u, c, out = arrays()
    refused(lambda: mod.hdiff(u, c, out, origin=(2, 2, 7)), out,
            "stencil 'hdiff': field 'u': gt_wrap: halo along K is [7,0], more than the")


def test_wrong_ndim(mod):
    u, c, out = arrays()
    refused(lambda: mod.hdiff(u[:, :, 0], c, out, origin=(2, 2, 0)), out,
            "field 'u': the array has 2 dimensions but the field has axes IJK")


def test_negative_strides(mod):
    u, c, out = arrays()
    refused(lambda: mod.hdiff(u[::-1], c, out, origin=(2, 2, 0)), out,
            "negative strides are not supported", code=-1)


def test_not_an_array(mod):
    u, c, out = arrays()
    refused(lambda: mod.hdiff([[1.0]], c, out), out, "a list is not an array")


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
    refused(lambda: m.sc(a, 1, "x"), a, "stencil 'sc': scalar 'x': could not convert")
    m.sc(a, -2**31 + 5, 2.0)
    assert (a == -2**31 + 7).all()
