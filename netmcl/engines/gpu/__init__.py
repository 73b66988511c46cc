"""The GPU engine: mcl's iterations on a CUDA device, bit-identical to the CPU engine.

Kernels are numba-cuda (``_kernels``); CuPy holds the device memory and does
the scans, reductions and transfers (``_engine``).  Under numba's CUDA
simulator (``NUMBA_ENABLE_CUDASIM=1``) the same kernels run on NumPy arrays,
which is how the test suite proves their arithmetic on machines without a
GPU.  ``python -m pip install 'netmcl[cuda12]'`` (or ``cuda13``) installs
what a device needs.

Nothing here imports a CUDA library until the engine is asked for:
:class:`GpuEngine` is loaded on first use, and the registry's probe is
``_probe.why_unavailable``.
"""

__all__ = ["GpuEngine"]


def __getattr__(name):
    if name == "GpuEngine":
        from ._engine import GpuEngine

        return GpuEngine
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
