"""Shared fixtures of the python group (tests/python/run.sh sets GTCC, GTCC_LIBDIR,
GTCC_INCLUDEDIR and GTCC_CACHE_DIR to the build tree's gtcc and libgtrt)."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import gtcc

HERE = os.path.dirname(os.path.abspath(__file__))
STENCILS = os.path.join(HERE, "stencils.stn")


def pytest_configure(config):
    for var in ("GTCC", "GTCC_LIBDIR", "GTCC_INCLUDEDIR", "GTCC_CACHE_DIR"):
        if not os.environ.get(var):
            raise pytest.UsageError("tests/python: %s is not set (run make python)" % var)


@pytest.fixture(scope="session", params=["naive", "openmp"])
def backend(request):
    return request.param


@pytest.fixture(scope="session")
def mods():
    return {b: gtcc.compile(STENCILS, backend=b) for b in ("naive", "openmp")}


@pytest.fixture(scope="session")
def mod(mods):
    return mods["openmp"]


def random_field(rng, dtype, shape, ints=1000):
    """Random values of a gtcc dtype (--emit=meta's name): normal reals, ints in
    (-ints, ints), bools."""
    if dtype == "float64":
        return rng.standard_normal(shape)
    if dtype == "float32":
        return rng.standard_normal(shape).astype(np.float32)
    if dtype == "int32":
        return rng.integers(-ints, ints, shape, dtype=np.int32)
    return rng.integers(0, 2, shape).astype(np.bool_)


def bits(a):
    """The bits of an array (bools as bytes), for comparisons that tell -0.0 from 0.0 and
    NaN payloads apart."""
    a = np.ascontiguousarray(a)
    return a.view(np.uint8) if a.dtype == np.bool_ else a.view("u%d" % a.dtype.itemsize)


GEN_C = os.path.join(HERE, "..", "diff", "gen.c")


@pytest.fixture(scope="session")
def gen(tmp_path_factory):
    """tests/diff/gen.c built: the differential test's random programs."""
    exe = str(tmp_path_factory.mktemp("gen") / "gen")
    subprocess.run([os.environ.get("CC", "cc"), "-std=c11", "-O1",
                    "-D_POSIX_C_SOURCE=200809L", "-o", exe, GEN_C], check=True)
    return exe


def random_seeds(var, default):
    """The (seed, fuzz) pairs to run: $var as A-B[,fuzz] (a longer hunt), else `default`."""
    spec = os.environ.get(var)
    if spec:
        rng, _, fuzz = spec.partition(",")
        a, _, b = rng.partition("-")
        return [(s, fuzz == "fuzz") for s in range(int(a), int(b or a) + 1)]
    return default


def random_program(gen, seed, fuzz, backends):
    """gen.c's program of `seed` compiled by the package for each backend; pytest.skip where
    gtcc refuses it by the generator's own rare miss (an if reading at an offset what it
    writes, which language.md forbids)."""
    src = subprocess.run([gen] + (["--fuzz"] if fuzz else []) + [str(seed)],
                         capture_output=True, text=True, check=True).stdout
    try:
        return src, {b: gtcc.compile(src, backend=b) for b in backends}
    except gtcc.GtccError as e:
        if "is written inside this if" in str(e):
            pytest.skip("gen.c made a program gtcc refuses: " + str(e).splitlines()[0][:120])
        raise


def random_case(st, seed):
    """A call of stencil `st` (its --emit=meta entry) drawn from `seed`: (domain, halos,
    logical, scalars): a small domain, each field's halo (the pairs of iterate grown to the
    larger of the two, as their storages swap roles over the steps), each field's values on
    its domain and halo (axes in I J K order) and the in scalars' values."""
    rng = np.random.default_rng(seed * 1000 + len(st["name"]))
    domain = (int(rng.integers(3, 11)), int(rng.integers(2, 9)),
              max(st["min_nk"] or 1, int(rng.integers(2, 7))))
    halos = {p["name"]: [list(h) for h in p["halo"]]
             for p in st["params"] if p["kind"] == "field"}
    for pair in st.get("iterate") or []:
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
    return domain, halos, logical, scalars


def run_mpi(np_, script, *args):
    """python SCRIPT ARGS under mpirun -np np_ (Open MPI allowed as root, shared memory, one
    OpenMP thread a rank); pytest.skip without mpirun, libgtrt-mpi.so or mpi4py."""
    mpirun = shutil.which("mpirun")
    if not mpirun or not os.path.exists(os.path.join(os.environ["GTCC_LIBDIR"],
                                                     "libgtrt-mpi.so")):
        pytest.skip("no mpirun or no libgtrt-mpi.so")
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        pytest.skip("mpi4py is not installed")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl="self,vader", OMP_NUM_THREADS="1")
    return subprocess.run([mpirun, "-np", str(np_), "--oversubscribe", sys.executable,
                           os.path.join(HERE, script)] + list(args), env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=1200)
