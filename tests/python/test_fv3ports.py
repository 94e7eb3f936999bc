"""FV3 dynamical-core ports (tests/diff/programs/port_*.stn) against NumPy references
written from the formulas, independently of the compiler: regions on edges and corners
of a corner-centred domain (a2b_ord4), C-grid divergence with corner fixes, a column
fill with forward and backward sweeps and column sums (fillz)."""
import os

import numpy as np
import pytest

import gtcc

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "..", "diff", "programs")
H = 3


def padded(rng, nx, ny, nk=None):
    shape = (nx + 2 * H, ny + 2 * H) + ((nk,) if nk else ())
    return rng.standard_normal(shape)


@pytest.fixture(scope="module", params=["naive", "openmp"])
def a2b(request):
    return gtcc.compile(open(os.path.join(PROGRAMS, "port_a2b.stn")).read(), backend=request.param)


def a2b_numpy(q, dxa, dya, nx, ny):
    b1, b2 = 7.0 / 12.0, -1.0 / 12.0
    c1, c2, c3 = -2.0 / 14.0, 11.0 / 14.0, 5.0 / 14.0
    Q = lambda i, j: q[i + H, j + H]
    DX = lambda i, j: dxa[i + H, j + H]
    DY = lambda i, j: dya[i + H, j + H]

    def edge(qm, q0, dm, d):
        return 0.5 * (((2 * dm + dm) * qm - dm * q0) / (dm + d) + ((2 * d + d) * q0 - d * qm) / (dm + d))

    # the regions overwrite in textual order: on narrow domains they overlap
    def qx(i, j):
        if i == nx - 2:
            return c3 * Q(i - 1, j) + c2 * Q(i, j) + c1 * Q(i + 1, j)
        if i == nx - 1:
            return edge(Q(i - 1, j), Q(i, j), DX(i - 1, j), DX(i, j))
        if i == 1:
            return c1 * Q(i - 2, j) + c2 * Q(i - 1, j) + c3 * Q(i, j)
        if i == 0:
            return edge(Q(i - 1, j), Q(i, j), DX(i - 1, j), DX(i, j))
        return b1 * (Q(i - 1, j) + Q(i, j)) + b2 * (Q(i - 2, j) + Q(i + 1, j))

    def qy(i, j):
        if j == ny - 2:
            return c3 * Q(i, j - 1) + c2 * Q(i, j) + c1 * Q(i, j + 1)
        if j == ny - 1:
            return edge(Q(i, j - 1), Q(i, j), DY(i, j - 1), DY(i, j))
        if j == 1:
            return c1 * Q(i, j - 2) + c2 * Q(i, j - 1) + c3 * Q(i, j)
        if j == 0:
            return edge(Q(i, j - 1), Q(i, j), DY(i, j - 1), DY(i, j))
        return b1 * (Q(i, j - 1) + Q(i, j)) + b2 * (Q(i, j - 2) + Q(i, j + 1))

    out = np.zeros((nx, ny) + q.shape[2:])
    for i in range(nx):
        for j in range(ny):
            if j in (0, ny - 1):
                qxy = 0.5 * (qx(i, j - 1) + qx(i, j))
            else:
                qxy = b1 * (qx(i, j - 1) + qx(i, j)) + b2 * (qx(i, j - 2) + qx(i, j + 1))
            if i in (0, nx - 1):
                qyx = 0.5 * (qy(i - 1, j) + qy(i, j))
            else:
                qyx = b1 * (qy(i - 1, j) + qy(i, j)) + b2 * (qy(i - 2, j) + qy(i + 1, j))
            v = 0.5 * (qxy + qyx)
            if i in (0, nx - 1):
                v = qyx
            if j in (0, ny - 1):
                v = qxy
            r3 = 1.0 / 3.0
            if i == 0 and j == 0:
                v = r3 * (Q(i - 1, j - 1) + Q(i, j - 1) + Q(i - 1, j))
            if i == nx - 1 and j == 0:
                v = r3 * (Q(i - 1, j - 1) + Q(i, j - 1) + Q(i, j))
            if i == nx - 1 and j == ny - 1:
                v = r3 * (Q(i - 1, j - 1) + Q(i - 1, j) + Q(i, j))
            if i == 0 and j == ny - 1:
                v = r3 * (Q(i - 1, j) + Q(i, j) + Q(i, j - 1))
            out[i, j] = v
    return out


@pytest.mark.parametrize("nx,ny", [(9, 8), (6, 6), (4, 5), (3, 3), (2, 3), (1, 2)])
def test_a2b_ord4(a2b, nx, ny):
    rng = np.random.default_rng(nx * 10 + ny)
    nk = 3
    q = padded(rng, nx, ny, nk)
    dxa = 1.0 + np.abs(padded(rng, nx, ny))
    dya = 1.0 + np.abs(padded(rng, nx, ny))
    out = np.full_like(q, np.nan)
    a2b.a2b_ord4(q, dxa, dya, out, origin=(H, H, 0), domain=(nx, ny, nk))
    want = a2b_numpy(q, dxa, dya, nx, ny)
    np.testing.assert_allclose(out[H:H + nx, H:H + ny], want, rtol=1e-13, atol=1e-13)


def fillz_numpy(q, dp):
    nk = q.shape[2]
    out = np.empty_like(q)
    nfix = np.zeros(q.shape[:2], dtype=np.int32)
    carry = np.zeros(q.shape[:2])
    for k in range(nk - 1):
        qk = q[:, :, k] + carry / dp[:, :, k]
        neg = qk < 0.0
        carry = np.where(neg, qk * dp[:, :, k], 0.0)
        nfix += neg
        out[:, :, k] = np.where(neg, 0.0, qk)
    out[:, :, nk - 1] = q[:, :, nk - 1] + carry / dp[:, :, nk - 1]
    up = np.zeros(q.shape[:2])
    for k in range(nk - 1, -1, -1):
        if k < nk - 1:
            out[:, :, k] = out[:, :, k] + up / dp[:, :, k]
        neg = out[:, :, k] < 0.0
        up = np.where(neg, out[:, :, k] * dp[:, :, k], 0.0)
        out[:, :, k] = np.where(neg, 0.0, out[:, :, k])
    sum0 = (q * dp).sum(axis=2)
    sum1 = (out * dp).sum(axis=2)
    fix = (sum1 > 1e-30) & (sum0 > 0.0)
    out = np.where(fix[:, :, None], out * (sum0 / np.where(fix, sum1, 1.0))[:, :, None], out)
    return out, nfix


@pytest.mark.parametrize("backend", ["naive", "openmp"])
@pytest.mark.parametrize("nk", [1, 2, 7])
def test_fillz(backend, nk):
    m = gtcc.compile(open(os.path.join(PROGRAMS, "port_fillz.stn")).read(), backend=backend)
    rng = np.random.default_rng(nk)
    q = rng.standard_normal((6, 5, nk)) + 0.3
    dp = 0.5 + rng.random((6, 5, nk))
    out = np.zeros_like(q)
    nfix = np.zeros((6, 5), dtype=np.int32)
    m.fillz(q, dp, out, nfix)
    want, wfix = fillz_numpy(q, dp)
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(nfix, wfix)


def pk3_numpy(delp, pk3in, ptop, akap, nx, ny, h):
    pe = ptop + np.concatenate([np.zeros(delp.shape[:2] + (1,)),
                                np.cumsum(delp, axis=2)[:, :, :-1]], axis=2)
    inside = np.zeros(delp.shape[:2], dtype=bool)
    inside[h:h + nx, h:h + ny] = True
    pk3 = np.where(inside[:, :, None], pk3in, np.exp(akap * np.log(pe)))
    c = slice(h, h + nx), slice(h, h + ny)
    sx = lambda d: pk3[h + d:h + d + nx, h:h + ny]
    sy = lambda d: pk3[h:h + nx, h + d:h + d + ny]
    return (sx(2) - sx(-2) + 0.5 * (sx(1) - sx(-1)), sy(2) - sy(-2) + 0.5 * (sy(1) - sy(-1)))


@pytest.mark.parametrize("backend", ["naive", "openmp"])
@pytest.mark.parametrize("nx,ny,nk", [(7, 5, 4), (1, 3, 2), (4, 1, 1)])
def test_pk3_halo(backend, nx, ny, nk):
    m = gtcc.compile(open(os.path.join(PROGRAMS, "port_pk3halo.stn")).read(), backend=backend)
    rng = np.random.default_rng(nx + ny + nk)
    h = 2
    delp = 0.5 + rng.random((nx + 2 * h, ny + 2 * h, nk))
    pk3in = rng.standard_normal(delp.shape)
    dpkx = np.full(delp.shape, np.nan)
    dpky = np.full(delp.shape, np.nan)
    m.pk3_halo(delp, pk3in, 3.0, 0.28, dpkx, dpky, origin=(h, h, 0), domain=(nx, ny, nk))
    wx, wy = pk3_numpy(delp, pk3in, 3.0, 0.28, nx, ny, h)
    np.testing.assert_allclose(dpkx[h:h + nx, h:h + ny], wx, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(dpky[h:h + nx, h:h + ny], wy, rtol=1e-13, atol=1e-13)


def divergence_corner_numpy(f, nx, ny):
    g = lambda name, i, j: f[name][i + H, j + H]
    def uf(i, j):
        s = g("dyc", i, j) * 0.5 * (g("sin_sg4", i, j - 1) + g("sin_sg2", i, j))
        if j in (0, ny - 1):
            return g("u", i, j) * s
        return (g("u", i, j) - 0.25 * (g("va", i, j - 1) + g("va", i, j)) *
                (g("cos_sg4", i, j - 1) + g("cos_sg2", i, j))) * s
    def vf(i, j):
        s = g("dxc", i, j) * 0.5 * (g("sin_sg3", i - 1, j) + g("sin_sg1", i, j))
        if i in (0, nx - 1):
            return g("v", i, j) * s
        return (g("v", i, j) - 0.25 * (g("ua", i - 1, j) + g("ua", i, j)) *
                (g("cos_sg3", i - 1, j) + g("cos_sg1", i, j))) * s
    out = np.zeros((nx, ny, 1))
    for i in range(nx):
        for j in range(ny):
            d = vf(i, j - 1) - vf(i, j) + uf(i - 1, j) - uf(i, j)
            if j == 0 and i == 0:
                d -= vf(i, j - 1)
            if j == 0 and i == nx - 1:       # both, where nx = 1: two statements
                d -= vf(i, j - 1)
            if j == ny - 1 and i == 0:
                d += vf(i, j)
            if i == nx - 1 and j == ny - 1:
                d += vf(i, j)
            out[i, j] = d * g("rarea_c", i, j)
    return out


@pytest.mark.parametrize("backend", ["naive", "openmp"])
@pytest.mark.parametrize("nx,ny", [(6, 5), (2, 2), (1, 3)])
def test_divergence_corner(backend, nx, ny):
    m = gtcc.compile(open(os.path.join(PROGRAMS, "port_csw.stn")).read(), backend=backend)
    rng = np.random.default_rng(nx * ny)
    f = {n: padded(rng, nx, ny, 1) for n in ("u", "v", "ua", "va")}
    for n in ("dxc", "dyc", "rarea_c"):
        f[n] = padded(rng, nx, ny)
    for n in ("sin_sg1", "sin_sg2", "sin_sg3", "sin_sg4", "cos_sg1", "cos_sg2", "cos_sg3",
              "cos_sg4"):
        f[n] = padded(rng, nx, ny).astype(np.float32)
    out = np.full_like(f["u"], np.nan)
    m.divergence_corner(f["u"], f["v"], f["ua"], f["va"], f["dxc"], f["dyc"], f["sin_sg1"],
                        f["sin_sg2"], f["sin_sg3"], f["sin_sg4"], f["cos_sg1"], f["cos_sg2"],
                        f["cos_sg3"], f["cos_sg4"], f["rarea_c"], out, origin=(H, H, 0),
                        domain=(nx, ny, 1))
    # float + float stays float, and so does 0.5 * float (a floating literal takes the
    # other operand's type): NumPy 2's scalars follow the same rules (NEP 50)
    want = divergence_corner_numpy(f, nx, ny)
    np.testing.assert_allclose(out[H:H + nx, H:H + ny], want, rtol=1e-12, atol=1e-12)


def sw_step_numpy(h, u, v, fcor, dt):
    """One step of port_swstep.stn: boundary conditions by language.md 7 (h neumann, u
    mirror, v periodic along J and 0 beyond I), fcor from its halo (one point)."""
    nx, ny = h.shape
    H_ = lambda i, j: h[min(max(i, 0), nx - 1), min(max(j, 0), ny - 1)]
    mir = lambda p, n: -p - 1 if p < 0 else (2 * n - p - 1 if p >= n else p)
    U = lambda i, j: u[mir(i, nx), mir(j, ny)]
    V = lambda i, j: 0.0 if i < 0 or i >= nx else v[i, j % ny]
    F = lambda i, j: fcor[i + 1, j + 1]
    upw = lambda c, qm, q: qm if c > 0.0 else q

    def fx(i, j):
        if i == nx:
            return U(i - 1, j) * H_(i - 1, j)
        if i == 0:
            return 0.0
        return U(i, j) * upw(U(i, j), H_(i - 1, j), H_(i, j))

    def fy(i, j):
        return 0.0 if j == 0 else V(i, j) * upw(V(i, j), H_(i, j - 1), H_(i, j))

    ke = lambda i, j: 0.25 * (U(i, j) ** 2 + U(i + 1, j) ** 2 + V(i, j) ** 2 + V(i, j + 1) ** 2)
    vort = lambda i, j: (V(i, j) - V(i - 1, j)) - (U(i, j) - U(i, j - 1)) + F(i, j)
    hn, un, vn = np.empty_like(h), np.empty_like(u), np.empty_like(v)
    for i in range(nx):
        for j in range(ny):
            hn[i, j] = H_(i, j) - dt * (fx(i + 1, j) - fx(i, j) + fy(i, j + 1) - fy(i, j))
            un[i, j] = U(i, j) - dt * ((ke(i, j) - ke(i - 1, j)) - 0.25 * (
                vort(i, j) + vort(i, j + 1)) * (V(i, j) + V(i - 1, j)))
            vn[i, j] = V(i, j) - dt * ((ke(i, j) - ke(i, j - 1)) + 0.25 * (
                vort(i, j) + vort(i + 1, j)) * (U(i, j) + U(i, j - 1)))
            if i == nx - 1:
                un[i, j] = U(i - 1, j)
    return hn, un, vn


@pytest.mark.parametrize("backend", ["naive", "openmp"])
@pytest.mark.parametrize("nx,ny,nsteps", [(7, 6, 1), (5, 4, 3), (2, 3, 2)])
def test_sw_step(backend, nx, ny, nsteps):
    m = gtcc.compile(open(os.path.join(PROGRAMS, "port_swstep.stn")).read(), backend=backend)
    rng = np.random.default_rng(nx + 7 * ny)
    h0 = 1.0 + rng.random((nx, ny))
    u0, v0 = 0.1 * rng.standard_normal((nx, ny)), 0.1 * rng.standard_normal((nx, ny))
    fcor = 0.01 * rng.standard_normal((nx + 2, ny + 2))
    h, u, v = h0.copy(), u0.copy(), v0.copy()
    hn, un, vn = np.zeros_like(h), np.zeros_like(u), np.zeros_like(v)
    m.sw_step.steps(h, u, v, hn, un, vn, fcor, 0.05, nsteps=nsteps,
                    origin={"_all_": (0, 0), "fcor": (1, 1)})
    wh, wu, wv = h0, u0, v0
    for _ in range(nsteps):
        wh, wu, wv = sw_step_numpy(wh, wu, wv, fcor, 0.05)
    np.testing.assert_allclose(h, wh, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(u, wu, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(v, wv, rtol=1e-13, atol=1e-14)


def moist_cv_numpy(nwat, qv, ql, qr, qi, qs, qg, pt, delz, delp, r_vir):
    rdgas, cv_air, cv_vap, c_liq, c_ice = 287.05, 717.55, 1384.5, 4185.5, 1972.0
    zvir = 461.5 / 287.05 - 1.0
    if nwat == 2:
        qliq, qsol = np.maximum(0.0, ql), 0.0 * ql
    elif nwat == 3:
        qliq, qsol = ql, qi
    elif nwat == 4:
        qliq, qsol = ql + qr, 0.0 * ql
    else:
        qliq, qsol = ql + qr, qi + qs + qg
    qd = np.maximum(0.0, 1.0 - qv - qliq - qsol)
    cvm = qd * cv_air + qv * cv_vap + qliq * c_liq + qsol * c_ice
    q_con = 1.0 - qd - qv
    cappa = rdgas / (rdgas + cvm / (1.0 + r_vir * qv))
    rr = -rdgas * delp * (1.0 + zvir * qv) * (1.0 - q_con) / delz
    pos = rr > 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        newpt = (pt.astype(np.float64) * np.exp(cappa / (1.0 - cappa) * np.log(rr))).astype(np.float32)
    pt = np.where(pos, newpt, pt)
    mask = np.where(pos, 2 if nwat > 4 else 1, 0).astype(np.int32)
    return pt, cappa, q_con, mask


@pytest.mark.parametrize("nwat", [2, 3, 4, 6])
def test_moist_cv(nwat):
    """the species chosen by a const (-D nwat=N, GT4Py's external) through an if chain in
    a function with two results"""
    m = gtcc.compile(open(os.path.join(PROGRAMS, "port_moistcv.stn")).read(),
                     defines={"nwat": nwat})
    rng = np.random.default_rng(nwat)
    shape = (5, 4, 3)
    q = [0.01 * rng.random(shape) - (0.002 if n == 1 else 0.0) for n in range(6)]
    pt = (250.0 + 30.0 * rng.random(shape)).astype(np.float32)
    delz = rng.standard_normal(shape) * 100.0
    delp = 100.0 + rng.random(shape)
    cappa, q_con = np.zeros(shape), np.zeros(shape)
    mask = np.full(shape, -1, dtype=np.int32)
    want = moist_cv_numpy(nwat, *q, pt.copy(), delz, delp, 0.6)
    m.moist_cv_pt(*q, pt, delz, delp, cappa, q_con, mask, 0.6)
    np.testing.assert_allclose(cappa, want[1], rtol=1e-14)
    np.testing.assert_allclose(q_con, want[2], rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(mask, want[3])
    np.testing.assert_allclose(pt, want[0], rtol=2e-7)


def xtp_u_numpy(u, c, rdx, nx):
    """port_xtpu.stn on a domain nx wide along I (every J and K alike); u, c, rdx padded by
    H along I and J. c is float: 1.0 - c and 1.0 + c are float, widened when they meet u."""
    U = lambda i: u[i + H]
    def al(i):
        if i == nx - 1 or i == 0:
            return 0.5 * (U(i - 1) + U(i))
        return (7.0 / 12.0) * (U(i - 1) + U(i)) - (1.0 / 12.0) * (U(i - 2) + U(i + 1))
    fx = []
    for i in range(nx):   # each entry: a column along K
        ci = c[i + H]
        up = U(i - 1) + (np.float32(1.0) - ci).astype(np.float64) * (al(i) - U(i - 1))
        down = U(i) + (np.float32(1.0) + ci).astype(np.float64) * (al(i + 1) - U(i))
        if i == 0:
            up = U(i - 1)
        if i == nx - 1:
            down = U(i)
        fx.append(np.where(ci > 0.0, up, down))
    flux = np.array(fx) * c[H:H + nx].astype(np.float64) * rdx[H:H + nx]
    fsm = flux.copy()
    for k in range(1, flux.shape[-1]):
        fsm[..., k] = 0.75 * flux[..., k] + 0.25 * fsm[..., k - 1]
    return flux, fsm


@pytest.mark.parametrize("backend", ["naive", "openmp"])
@pytest.mark.parametrize("nx", [8, 3, 1])
def test_xtp_u(backend, nx):
    """an if whose branches hold regions (run on a mask, language.md 4.5), then a sweep"""
    m = gtcc.compile(open(os.path.join(PROGRAMS, "port_xtpu.stn")).read(), backend=backend)
    rng = np.random.default_rng(nx)
    ny, nk = 4, 3
    u = padded(rng, nx, ny, nk)
    c = padded(rng, nx, ny, nk).astype(np.float32)
    rdx = 1.0 + np.abs(padded(rng, nx, ny))
    flux, fsm = np.full_like(u, np.nan), np.full_like(u, np.nan)
    m.xtp_u(u, c, rdx, flux, fsm, origin=(H, H, 0), domain=(nx, ny, nk))
    for j in range(ny):
        wf, ws = xtp_u_numpy(u[:, H + j], c[:, H + j], rdx[:, H + j, None], nx)
        np.testing.assert_allclose(flux[H:H + nx, H + j], wf, rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(fsm[H:H + nx, H + j], ws, rtol=1e-13, atol=1e-14)
