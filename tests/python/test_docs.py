"""The Python examples of README.md and docs/python.md, run as the pages show them
(tests/golden/docs.sh does the .stn and C ones): each block is executed unchanged, its
results checked against NumPy, and the refusal README.md quotes is the one a call makes."""
import os
import re

import numpy as np
import pytest

import gtcc

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def blocks(page, tag):
    """The fenced blocks of a page with the given language tag ("" for none), in order."""
    with open(os.path.join(ROOT, page)) as f:
        text = f.read()
    return [m.group(2) for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.M | re.S)
            if m.group(1) == tag]


def flat(page):
    with open(os.path.join(ROOT, page)) as f:
        return " ".join(f.read().split())


def hdiff_ref(u, coeff):
    """README.md's hdiff in NumPy, on the interior of arrays with a halo of 2 along I and J."""
    lap = 4.0 * u[1:-1, 1:-1] - (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
    uc = u[1:-1, 1:-1]
    flx = lap[1:, :] - lap[:-1, :]                       # at i = -1 .. n-1 of lap's interior
    flx = np.where(flx * (uc[1:, :] - uc[:-1, :]) > 0.0, 0.0, flx)
    fly = lap[:, 1:] - lap[:, :-1]
    fly = np.where(fly * (uc[:, 1:] - uc[:, :-1]) > 0.0, 0.0, fly)
    # interior points are 1 .. n of lap's index space (lap starts at u's index 1)
    fx, fxm = flx[1:, 1:-1], flx[:-1, 1:-1]
    fy, fym = fly[1:-1, 1:], fly[1:-1, :-1]
    return u[2:-2, 2:-2] - coeff[2:-2, 2:-2] * (fx - fxm + fy - fym)


def test_readme_example(tmp_path, monkeypatch):
    stn, = [b for b in blocks("README.md", "") if b.startswith("function lap")]
    code, = blocks("README.md", "python")
    (tmp_path / "hdiff.stn").write_text(stn)
    monkeypatch.chdir(tmp_path)
    env = {}
    exec(code, env)                                      # as the page shows it
    mod, u, coeff, out = env["mod"], env["u"], env["coeff"], env["out"]
    assert u.__gt_origin__ == (2, 2, 0)
    rng = np.random.default_rng(5)
    u[...] = rng.random(u.shape)
    coeff[...] = rng.random(coeff.shape)
    out[...] = -7.0
    mod.hdiff(u, coeff, out, origin=(2, 2, 0))
    assert np.array_equal(out[2:-2, 2:-2], hdiff_ref(np.asarray(u), coeff))
    assert (out[:2] == -7.0).all() and (out[-2:] == -7.0).all()

    # the refusal README.md quotes: the halo around the domain is the origin below and
    # what the array has beyond the domain above
    quoted = "stencil 'hdiff': field 'u': halo along I is [1,3] but the stencil needs [2,2]"
    assert quoted in flat("README.md")
    before = out.copy()
    with pytest.raises(gtcc.StencilError) as e:
        mod.hdiff(np.asarray(u), coeff, out, origin=(1, 2, 0), domain=(64, 64, 16))
    assert str(e.value).startswith(quoted)
    assert np.array_equal(out, before)                   # and writes nothing


def test_python_md_first_example():
    code = blocks("docs/python.md", "python")[0]
    env = {}
    exec(code, env)
    u, r = env["u"], env["r"]
    ref = -4.0 * u[1:-1, 1:-1] + u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
    # "domain: the largest that fits, 32 x 32 x 8": the interior written, nothing else
    assert ref.shape == (32, 32, 8)
    assert np.array_equal(r[1:-1, 1:-1], ref)
    assert (r[0] == 0).all() and (r[-1] == 0).all() and (r[:, 0] == 0).all() and (r[:, -1] == 0).all()
