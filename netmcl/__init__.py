"""netmcl: Markov clustering identical to mcl, from Python.

The main entry point is :func:`mcl`; :func:`mcl_iterates` runs it one
iteration at a time.  Files written by and for the ``mcl`` program are read and
written by :func:`read_abc`, :func:`write_clusters` and friends.
"""

import importlib as _importlib

from ._blas import one_blas_thread as _one_blas_thread

with _one_blas_thread():  # netmcl's own programs load numpy with one BLAS thread
    import numpy as _numpy  # noqa: F401

from .clustering import Clustering  # noqa: E402
from .exceptions import (
    BackendUnavailableError,
    CheckpointError,
    ConvergenceWarning,
    CytoscapeError,
    InputFileError,
    NetmclError,
    NotAPartitionError,
    ParameterError,
)
from .graph import SparseGraph
from .io import atomic_write, read_abc, read_clusters, read_mci, write_clusters, write_mci
from .mcl import mcl, mcl_iterates
from .params import MclParams
# eager: importing the submodule netmcl.sweep later would otherwise rebind the name to it
from .sweep import SweepResult, sweep
from .rcl import RclResult, rcl  # eager, as sweep: the function, not the submodule of the same name

from ._version import __version__  # noqa: E402,F401

# imported on first use, so that a clustering run (the command line) loads
# none of them: name -> (module, attribute or None for the module itself)
_LAZY = {
    "draw": ("viz.plot", "draw"),
    "view": ("viz.html", "view"),
    "compare": ("analysis", "compare"),
    "compare_to_complexes": ("analysis", "compare_to_complexes"),
    "quality": ("analysis", "quality"),
    "from_pandas_edgelist": ("adapters.pandas", "from_pandas_edgelist"),
    "read_string": ("io.string", "read_string"),
    "subcluster": ("subclustering", "subcluster"),
    "to_frame": ("io.tables", "to_frame"),
    "to_r": ("io.r", "to_r"),
    "traversal": ("traversal", None),
    "write_gml": ("io.tables", "write_gml"),
    "write_graphml": ("io.tables", "write_graphml"),
    "write_run_report": ("io.tables", "write_run_report"),
    "write_tsv": ("io.tables", "write_tsv"),
}


def _submodules():
    """The public submodules (``netmcl.datasets``, ...), each reachable as an
    attribute without importing it first: the package's own files, listed
    when first asked for."""
    import os

    here = os.path.dirname(__file__)
    names = set()
    for entry in os.listdir(here):
        name = entry[:-3] if entry.endswith(".py") else entry
        if name.isidentifier() and not name.startswith("_"):
            if entry.endswith(".py") or os.path.isfile(os.path.join(here, entry, "__init__.py")):
                names.add(name)
    return names


def __getattr__(name):
    if name not in _LAZY:
        if name.startswith("_") or name not in _submodules():
            raise AttributeError(f"module 'netmcl' has no attribute {name!r}")
        _LAZY[name] = (name, None)
    module, attribute = _LAZY[name]
    value = _importlib.import_module(f"netmcl.{module}")
    if attribute is not None:
        value = getattr(value, attribute)
    globals()[name] = value
    return value


def __dir__():
    public = {name for name in globals() if not name.startswith("_")} - {"annotations"}
    return sorted(public | set(_LAZY) | _submodules() | {"__version__"})


__all__ = [
    "mcl",
    "draw",
    "view",
    "mcl_iterates",
    "Clustering",
    "SparseGraph",
    "MclParams",
    "NetmclError",
    "InputFileError",
    "ParameterError",
    "BackendUnavailableError",
    "NotAPartitionError",
    "CytoscapeError",
    "CheckpointError",
    "ConvergenceWarning",
    "read_abc",
    "read_mci",
    "write_mci",
    "write_clusters",
    "read_clusters",
    "atomic_write",
    "read_string",
    "from_pandas_edgelist",
    "to_frame",
    "to_r",
    "write_tsv",
    "write_graphml",
    "write_gml",
    "write_run_report",
    "quality",
    "compare",
    "compare_to_complexes",
    "sweep",
    "SweepResult",
    "subcluster",
    "rcl",
    "RclResult",
]
