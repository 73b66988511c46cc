"""Whether the GPU engine can run here, asked without importing CuPy or numba-cuda up front.

The registry calls :func:`why_unavailable` only when someone asks for the
engine (``available_engines``, ``get_engine("gpu")``, ``--engine gpu``), so
``import netmcl`` never imports a CUDA library.
"""

import importlib.util
import os

__all__ = ["simulated", "why_unavailable"]


def simulated():
    """Whether numba's CUDA simulator is on (``NUMBA_ENABLE_CUDASIM=1``).

    The kernels then run as Python threads on NumPy arrays: slow, exact,
    for tests and tutorials on machines without a GPU.  numba reads the
    variable once, when it is first imported; this reads numba's setting
    where numba is imported already.
    """
    import sys

    config = getattr(sys.modules.get("numba"), "config", None)
    if config is not None and hasattr(config, "ENABLE_CUDASIM"):
        return bool(config.ENABLE_CUDASIM)
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


def why_unavailable():
    """None when the GPU engine can run here, else a sentence saying what is missing.

    It needs numba-cuda and either a CUDA device that answers (with CuPy,
    which holds the device arrays) or numba's CUDA simulator.

    Examples
    --------
    >>> reason = why_unavailable()
    >>> reason is None or isinstance(reason, str)
    True
    """
    if importlib.util.find_spec("numba_cuda") is None:
        return "numba-cuda (NVIDIA's CUDA target for numba) is not installed."
    if simulated():
        return None
    try:
        from numba import cuda

        if not cuda.is_available():
            return ("no CUDA device is visible (numba.cuda.is_available() is False: no GPU or no driver); "
                    "NUMBA_ENABLE_CUDASIM=1 runs the engine in numba's CUDA simulator instead (slow, for tests).")
        if importlib.util.find_spec("cupy") is None:
            return "CuPy is not installed."
        import cupy

        if cupy.cuda.runtime.getDeviceCount() < 1:
            return "CuPy finds no CUDA device."
    except Exception as exc:  # a driver or toolkit that does not load says why here
        return f"the CUDA device does not answer ({type(exc).__name__}: {exc})."
    return None
