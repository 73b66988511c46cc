"""netmcl: Markov clustering identical to mcl, from Python.

The main entry point is :func:`mcl`; :func:`mcl_iterates` runs it one
iteration at a time.  Files written by and for the ``mcl`` program are read and
written by :func:`read_abc`, :func:`write_clusters` and friends.
"""

from .clustering import Clustering
from .exceptions import (
    BackendUnavailableError,
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
from . import cytoscape, plot
from .plot import draw

__version__ = "0.1.0"

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
    "ConvergenceWarning",
    "read_abc",
    "read_mci",
    "write_mci",
    "write_clusters",
    "read_clusters",
    "atomic_write",
]
