"""Shared fixtures of the python group (tests/python/run.sh sets GTCC, GTCC_LIBDIR,
GTCC_INCLUDEDIR and GTCC_CACHE_DIR to the build tree's gtcc and libgtrt)."""
import os

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
