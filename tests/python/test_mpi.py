"""MPI from Python: tests/python/mpi_heat.py under mpirun -np 1, 2 and 3 (skipped without
mpirun, mpi4py or libgtrt-mpi)."""
import re

import pytest

from conftest import run_mpi


@pytest.mark.parametrize("np_", [1, 2, 3])
def test_mpi_heat(np_):
    r = run_mpi(np_, "mpi_heat.py")
    assert r.returncode == 0, r.stdout
    # (mpirun may join the ranks' lines)
    ok = sorted(re.findall(r"rank (\d+) of (\d+): OK", r.stdout))
    assert ok == [(str(k), str(np_)) for k in range(np_)], r.stdout
