"""Fixtures shared by netmcl's tests.

``engine``
    Parametrised over :func:`netmcl.engines.available_engines`, so a test that
    takes it runs once for every engine this machine can run ("cpu" always,
    "gpu" where CuPy finds a device).
``have_mcl``
    Whether the reference ``mcl`` program is on PATH.
``mcl_binary``
    The path of ``mcl``; the test is skipped, loudly, without it.

Every test runs the CPU engine's iterations on as many threads as it asks
for, in as many chunks as on a large graph, however little work they have
(``cpu.SERIAL_WORK`` is 0 in the tests and ``cpu.CHUNK_WORK`` 1), and reads
every iterand by columns split among those threads (``cpu.SPLIT_ENTRIES`` is
0): the test graphs are small, and the threaded paths are what they check.
"""

import os
import shutil

if not os.path.exists("/dev/nvidiactl"):  # no GPU: numba-cuda kernels run in its simulator
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")

import pytest  # noqa: E402

from netmcl._compiled import KERNELS, kernels  # noqa: E402
from netmcl.engines import available_engines  # noqa: E402

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
    from netmcl.engines import cpu

    monkeypatch.setattr(cpu, "SERIAL_WORK", 0)
    monkeypatch.setattr(cpu, "CHUNK_WORK", 1)
    monkeypatch.setattr(cpu, "SPLIT_ENTRIES", 0)


@pytest.fixture(params=available_engines())
def engine(request):
    """The name of an engine to pass to ``netmcl.mcl(..., engine=engine)``."""
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
