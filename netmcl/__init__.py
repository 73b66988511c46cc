"""netmcl: Markov clustering identical to mcl, from Python.

The main entry point is :func:`mcl`; :func:`mcl_iterates` runs it one
iteration at a time.  Files written by and for the ``mcl`` program are read and
written by :func:`read_abc`, :func:`write_clusters` and friends.
"""

import importlib

from ._blas import one_thread_in_own_programs

one_thread_in_own_programs()  # before numpy is loaded, by the imports below

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

__version__ = "0.1.0"

# imported on first use, so that a clustering run (the command line) loads
# none of them: name -> (module, attribute or None for the module itself)
_LAZY = {
    "cytoscape": ("cytoscape", None),
    "plot": ("plot", None),
    "analysis": ("analysis", None),
    "draw": ("plot", "draw"),
    "compare": ("analysis", "compare"),
    "compare_to_complexes": ("analysis", "compare_to_complexes"),
    "quality": ("analysis", "quality"),
    "from_pandas_edgelist": ("adapters.pandas", "from_pandas_edgelist"),
    "read_string": ("io.string", "read_string"),
    "to_frame": ("io.tables", "to_frame"),
    "write_gml": ("io.tables", "write_gml"),
    "write_graphml": ("io.tables", "write_graphml"),
    "write_run_report": ("io.tables", "write_run_report"),
    "write_tsv": ("io.tables", "write_tsv"),
}


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'netmcl' has no attribute {name!r}")
    module, attribute = _LAZY[name]
    value = importlib.import_module(f"netmcl.{module}")
    if attribute is not None:
        value = getattr(value, attribute)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "mcl",
    "draw",
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
    "write_tsv",
    "write_graphml",
    "write_gml",
    "write_run_report",
    "quality",
    "compare",
    "compare_to_complexes",
    "sweep",
    "SweepResult",
]
