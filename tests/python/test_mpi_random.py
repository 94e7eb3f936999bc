"""The random programs of the differential test through S.mpi: tests/python/mpi_random.py
under mpirun -np 2 and 3 (skipped without mpirun, mpi4py or libgtrt-mpi), every stencil
against one process's call on the global domain, bit for bit, and the iterate stencils'
S.steps_mpi against the distributed single calls with swaps. Seeds 1-7 and --fuzz 1-3;
GTCC_MPI_RANDOM=A-B[,fuzz] runs seeds A to B instead (a longer hunt)."""
import re

import pytest

from conftest import random_seeds, run_mpi

DEFAULT_SEEDS = [(s, False) for s in range(1, 8)] + [(s, True) for s in (1, 2, 3)]


@pytest.mark.parametrize("np_", [2, 3])
def test_mpi_random(gen, np_):
    seeds = ["%d%s" % (s, ",fuzz" if fuzz else "")
             for s, fuzz in random_seeds("GTCC_MPI_RANDOM", DEFAULT_SEEDS)]
    r = run_mpi(np_, "mpi_random.py", gen, *seeds)
    assert r.returncode == 0, r.stdout
    assert "FAIL" not in r.stdout, r.stdout
    # (mpirun may join the ranks' lines)
    ok = re.findall(r"rank (\d+) of (\d+): OK, (\d+) passed \((\d+) of them", r.stdout)
    assert sorted((int(k), int(n)) for k, n, _, _ in ok) == [(k, np_) for k in range(np_)], \
        r.stdout
    # comparisons made, not only refusals
    assert all(int(p) > int(f) for _, _, p, f in ok), r.stdout
