"""Convert the graphs users hold into :class:`SparseGraph` and write results back.

Each adapter knows one outside type; the core knows none of them.
:func:`to_sparse_graph` picks the adapter by the object's type (optional
libraries are only imported when an object of theirs is passed).
"""

import math
import sys

import numpy as np

from ..exceptions import ParameterError
from ..graph import SparseGraph

__all__ = ["as_clusters", "node_labels", "to_networkx", "to_sparse_graph", "write_back", "wrap_result", "from_edge_list"]

#: the largest float32: mcl stores weights as float32, and a larger weight would become infinity
FLT_MAX = float(np.finfo(np.float32).max)


def _module_of(G):
    return type(G).__module__.split(".")[0]


def _is_networkx(G):
    return _module_of(G) == "networkx"


def _is_igraph(G):
    return _module_of(G) == "igraph"


def _is_pandas(G):
    return _module_of(G) == "pandas"


def to_sparse_graph(G, *, weight="weight", symmetrize=None):
    """Convert a supported graph object into a :class:`SparseGraph`.

    Parameters
    ----------
    G : SparseGraph, networkx graph, scipy sparse matrix, numpy array or iterable of edges
    weight : str
        Edge attribute with the weight (NetworkX).
    symmetrize : bool, optional
        Mirror arcs; default True except for matrices and SparseGraph.

    Returns
    -------
    SparseGraph

    Examples
    --------
    >>> to_sparse_graph([("a", "b", 2.0), ("b", "c")]).labels
    ['a', 'b', 'c']
    """
    if isinstance(G, SparseGraph):
        if symmetrize:
            return _symmetrized(G)
        return G
    if _is_networkx(G):
        from .networkx import from_networkx

        return from_networkx(G, weight=weight, symmetrize=True if symmetrize is None else symmetrize)
    if _is_igraph(G):
        from .igraph import from_igraph

        return from_igraph(G, weights=weight, symmetrize=True if symmetrize is None else symmetrize)
    if _is_pandas(G):
        from .pandas import from_dataframe

        return from_dataframe(G, weight=weight, symmetrize=True if symmetrize is None else symmetrize)
    if _is_scipy_sparse(G) or isinstance(G, np.ndarray):
        graph = SparseGraph(_checked_matrix(G))
        return _symmetrized(graph) if symmetrize else graph
    if isinstance(G, (str, bytes)) or not hasattr(G, "__iter__"):
        raise ParameterError(
            "mcl takes a NetworkX graph, a scipy sparse matrix, a SparseGraph or an iterable of "
            f"(u, v[, weight]) edges. Got {type(G).__name__} instead; to read a file use "
            "netmcl.read_abc(path)."
        )
    return from_edge_list(G, symmetrize=True if symmetrize is None else symmetrize)


def _symmetrized(graph):
    m = graph.matrix
    return SparseGraph(m.maximum(m.T), labels=graph.labels)


def _is_scipy_sparse(G):
    """scipy.sparse.issparse without importing scipy (a matrix implies it is imported)."""
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(G)


def _checked_matrix(m):
    import scipy.sparse as sp

    m = sp.csc_array(m)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise ParameterError(f"A weight matrix must be square. Got shape {m.shape} instead.")
    data = np.asarray(m.data, dtype=np.float64)
    bad = ~np.isfinite(data) | (data < 0) | (data > FLT_MAX)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        coo = m.tocoo()
        raise ParameterError(
            f"MCL needs finite, non-negative weights up to {FLT_MAX:.4g} (the largest float32). "
            f"Got {float(data[k])!r} at entry ({int(coo.row[k])}, {int(coo.col[k])}) instead."
        )
    m.eliminate_zeros()
    return m


def check_weight(value, where):
    """Return `value` as a float, or raise a ParameterError naming `where`."""
    try:
        w = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"MCL needs numeric weights. Got {value!r} on {where} instead.") from None
    if not math.isfinite(w) or w < 0:
        raise ParameterError(f"MCL needs finite, non-negative weights. Got {value!r} on {where} instead.")
    if w > FLT_MAX:
        raise ParameterError(
            f"Edge weights must not exceed {FLT_MAX:.4g}, the largest float32 (mcl stores weights as float32; "
            f"a larger one would become infinity). Got {value!r} on {where} instead; rescale the weights."
        )
    return w


def from_edge_list(edges, *, symmetrize=True):
    """A :class:`SparseGraph` from ``(u, v)`` or ``(u, v, w)`` tuples, as ``mcl --abc``.

    Nodes are numbered in order of first appearance (``u`` before ``v``);
    zero weights register the nodes but add no edge.

    Examples
    --------
    >>> g = from_edge_list([("x", "y", 0.0), ("y", "z", 1.5)])
    >>> g.labels, g.nnz
    (['x', 'y', 'z'], 2)
    """
    ids = {}
    src, dst, wts = [], [], []
    for k, edge in enumerate(edges):
        if not isinstance(edge, (tuple, list)) or len(edge) not in (2, 3):
            raise ParameterError(f"An edge must be (u, v) or (u, v, weight). Got {edge!r} (edge {k}) instead.")
        u, v = edge[0], edge[1]
        w = 1.0 if len(edge) == 2 else check_weight(edge[2], f"edge {k} {u!r}-{v!r}")
        src.append(ids.setdefault(u, len(ids)))
        dst.append(ids.setdefault(v, len(ids)))
        wts.append(w)
    return SparseGraph.from_edges(src, dst, wts, labels=list(ids), symmetrize=symmetrize)


def write_back(G, clustering, attribute):
    """Store each node's cluster number on the user's graph, where it has nodes."""
    if _is_networkx(G):
        from .networkx import set_cluster_attribute

        set_cluster_attribute(G, clustering, attribute)
    elif _is_igraph(G):
        from .igraph import set_cluster_attribute

        set_cluster_attribute(G, clustering, attribute)


def wrap_result(G, clustering):
    """The result in the input's own convention (igraph: a VertexClustering)."""
    if _is_igraph(G):
        from .igraph import to_vertex_clustering

        return to_vertex_clustering(G, clustering)
    return clustering


def as_clusters(clustering):
    """The clusters of any supported clustering object, as lists of labels.

    Accepts a :class:`~netmcl.Clustering`, an ``igraph.VertexClustering``
    (vertex ``name``\\ s when present, else vertex ids), a dict
    ``label -> cluster id``, or an iterable of iterables of labels.

    Examples
    --------
    >>> as_clusters({"a": 0, "b": 1, "c": 0})
    [['a', 'c'], ['b']]
    >>> as_clusters([("x", "y"), {"z"}])
    [['x', 'y'], ['z']]
    """
    if type(clustering).__module__.split(".")[0] == "igraph":
        graph = clustering.graph
        names = graph.vs["name"] if "name" in graph.vs.attributes() else list(range(graph.vcount()))
        return [[names[v] for v in cluster] for cluster in clustering]
    if isinstance(clustering, dict):
        groups = {}
        for label, k in clustering.items():
            groups.setdefault(k, []).append(label)
        return [groups[k] for k in sorted(groups, key=_sort_key)]
    if isinstance(clustering, (str, bytes)) or not hasattr(clustering, "__iter__"):
        raise ParameterError(
            "A clustering must be a netmcl Clustering, a list of clusters (lists of node labels), "
            f"a dict node -> cluster or an igraph VertexClustering. Got {type(clustering).__name__} instead."
        )
    clusters = []
    for k, cluster in enumerate(clustering):
        if isinstance(cluster, (str, bytes)) or not hasattr(cluster, "__iter__"):
            raise ParameterError(
                f"Each cluster must be a collection of node labels. Got {cluster!r} as cluster {k} instead."
            )
        clusters.append(list(cluster))
    return clusters


def _sort_key(value):
    return (type(value).__name__, value) if not isinstance(value, (int, float)) else ("", value)


def node_labels(G):
    """The node labels of any input :func:`to_sparse_graph` takes, in id order.

    Examples
    --------
    >>> import networkx as nx
    >>> node_labels(nx.path_graph(["x", "y"]))
    ['x', 'y']
    """
    return list(G.nodes) if _is_networkx(G) else to_sparse_graph(G).labels


def to_networkx(G):
    """`G` itself when it is a NetworkX graph, else a NetworkX graph of its arcs
    (see :func:`netmcl.adapters.networkx.to_networkx`).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> sorted(to_networkx(sp.csc_array([[0, 1.0], [1.0, 0]])).edges)
    [(0, 1)]
    """
    if _is_networkx(G):
        return G
    from .networkx import to_networkx as convert

    return convert(to_sparse_graph(G))
