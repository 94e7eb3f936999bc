"""The random programs of the differential test through S.mpi: tests/python/mpi_random.py
under mpirun -np 2 and 3 (skipped without mpirun, mpi4py or libgtrt-mpi), every stencil
against one process's call on the global domain, bit for bit, and the iterate stencils'
S.steps_mpi against the distributed single calls with swaps. Seeds 1-7 and --fuzz 1-3;
GTCC_MPI_RANDOM=A-B[,fuzz] runs seeds A to B instead (a longer hunt)."""
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import HERE, random_seeds

DEFAULT_SEEDS = [(s, False) for s in range(1, 8)] + [(s, True) for s in (1, 2, 3)]


@pytest.mark.parametrize("np_", [2, 3])
def test_mpi_random(gen, np_):
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
    seeds = ["%d%s" % (s, ",fuzz" if fuzz else "")
             for s, fuzz in random_seeds("GTCC_MPI_RANDOM", DEFAULT_SEEDS)]
    r = subprocess.run([mpirun, "-np", str(np_), "--oversubscribe", sys.executable,
                        os.path.join(HERE, "mpi_random.py"), gen] + seeds, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=1200)
    assert r.returncode == 0, r.stdout
    assert "FAIL" not in r.stdout, r.stdout
    # (mpirun may join the ranks' lines)
    ok = re.findall(r"rank (\d+) of (\d+): OK, (\d+) passed \((\d+) of them", r.stdout)
    assert sorted((int(k), int(n)) for k, n, _, _ in ok) == [(k, np_) for k in range(np_)], \
        r.stdout
    # comparisons made, not only refusals
    assert all(int(p) > int(f) for _, _, p, f in ok), r.stdout
