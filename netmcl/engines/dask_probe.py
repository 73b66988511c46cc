"""Whether the Dask engine can run here, answered without importing Dask."""

import importlib.util

__all__ = ["why_unavailable"]


def why_unavailable():
    """None when dask.distributed is installed, else why the Dask engine cannot run.

    Examples
    --------
    >>> why_unavailable() is None or "not installed" in why_unavailable()
    True
    """
    for module in ("dask", "distributed"):
        try:
            found = importlib.util.find_spec(module) is not None
        except ImportError:
            found = False
        if not found:
            return f"the Dask engine needs {module}, which is not installed."
    return None
