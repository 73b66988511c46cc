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
from . import analysis
from .adapters.pandas import from_pandas_edgelist
from .analysis import compare, compare_to_complexes, quality
from .io.string import read_string
from .io.tables import to_frame, write_gml, write_graphml, write_run_report, write_tsv
from .sweep import SweepResult, sweep

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
