"""MPI from Python: tests/python/mpi_heat.py under mpirun -np 1, 2 and 3 (skipped without
mpirun, mpi4py or libgtrt-mpi)."""
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import HERE


@pytest.mark.parametrize("np_", [1, 2, 3])
def test_mpi_heat(np_):
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
    r = subprocess.run([mpirun, "-np", str(np_), "--oversubscribe", sys.executable,
                        os.path.join(HERE, "mpi_heat.py")], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=300)
    assert r.returncode == 0, r.stdout
    # (mpirun may join the ranks' lines)
    ok = sorted(re.findall(r"rank (\d+) of (\d+): OK", r.stdout))
    assert ok == [(str(k), str(np_)) for k in range(np_)], r.stdout
