"""Fixtures shared by netmcl's tests.

``engine_name``
    Parametrised over :func:`netmcl.engines.available_engines`, so that one
    test body runs once for every engine this machine can run ("cpu" and
    "reference" always, others where their probe finds what they need); the
    test passes ``engine=engine_name`` to ``netmcl.mcl``.
``have_mcl``
    Whether the reference ``mcl`` program is on PATH.
``mcl_binary``
    The path of ``mcl``; the test is skipped, loudly, without it.

Every test runs the CPU engine's iterations on as many threads as it asks
for, in as many chunks as on a large graph, however little work they have
(``cpu.SERIAL_WORK`` is 0 in the tests and ``cpu.CHUNK_WORK`` 1), and reads
every iterand by columns split among those threads (``cpu.SPLIT_ENTRIES`` is
0): the test graphs are small, and the threaded paths are what they check.

Without an NVIDIA GPU (no ``nvidia-smi``), the GPU engine's kernels run in
numba's CUDA simulator: ``NUMBA_ENABLE_CUDASIM=1`` is set here, before numba
is first imported (numba reads it once).  A run that sets
``NUMBA_ENABLE_CUDASIM=0`` itself (the device check) runs the same tests on
the device.  In the simulator a GPU iteration takes seconds, so the
``engine_name`` fixture leaves the GPU engine to ``tests/test_gpu.py`` there.
"""

import os
import shutil

if shutil.which("nvidia-smi") is None:
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import pytest

from netmcl.engines.cpu._compiled import KERNELS, kernels
from netmcl.engines import available_engines

MCL_MISSING = "mcl not on PATH: live differential tests skipped (golden files still checked)"


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels():
    """Load every compiled kernel, building them first on a new machine (about a minute),
    before any test: a test's own timing or warnings then never include a build."""
    K = kernels()
    for name in KERNELS:
        getattr(K, name)
    return K


@pytest.fixture(autouse=True)
def threads_for_small_iterations(monkeypatch):
    """Small iterations on every thread asked for, in as many chunks as on large graphs (see the module docstring)."""
    from netmcl.engines.cpu import engine as cpu

    monkeypatch.setattr(cpu, "SERIAL_WORK", 0)
    monkeypatch.setattr(cpu, "CHUNK_WORK", 1)
    monkeypatch.setattr(cpu, "SPLIT_ENTRIES", 0)


def _fixture_engines():
    """The engines ``engine_name`` runs: all available here, less the simulated GPU engine
    (``tests/test_gpu.py`` runs it on graphs small enough for the simulator) and the Dask engine, which
    needs a cluster (``tests/test_dask.py`` runs the fidelity cases on a local one)."""
    names = [name for name in available_engines() if name != "dask"]  # tests/test_dask.py: on its own cluster
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
        names = [name for name in names if name != "gpu"]
    return names


@pytest.fixture(params=_fixture_engines(), ids=str)
def engine_name(request):
    """The name of an engine to pass to ``netmcl.mcl(..., engine=engine_name)``, one test per available engine."""
    return request.param


@pytest.fixture(scope="session")
def have_mcl():
    """True when the reference ``mcl`` (22-282) is on PATH."""
    return shutil.which("mcl") is not None


@pytest.fixture(scope="session")
def mcl_binary(have_mcl):
    """The path of the reference ``mcl``; skips the test when it is missing."""
    if not have_mcl:
        pytest.skip(MCL_MISSING)
    return shutil.which("mcl")
