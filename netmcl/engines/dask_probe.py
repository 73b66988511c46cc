"""Whether the Dask engine can run here, answered without importing Dask."""

import importlib.util

__all__ = ["why_unavailable"]


def why_unavailable():
    """None when dask.distributed is installed, else why the Dask engine cannot run.

    Examples
    --------
    >>> why_unavailable() is None or "distributed" in why_unavailable()
    True
    """
    if importlib.util.find_spec("distributed") is None:
        return "the Dask engine needs dask.distributed, which is not installed."
    return None
