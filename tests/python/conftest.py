"""Shared fixtures of the python group (tests/python/run.sh sets GTCC, GTCC_LIBDIR,
GTCC_INCLUDEDIR and GTCC_CACHE_DIR to the build tree's gtcc and libgtrt)."""
import os

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
