"""NetworkX in and out."""

import numpy as np

from ..graph import SparseGraph
from . import check_weight

__all__ = ["from_networkx", "set_cluster_attribute", "to_networkx"]


def from_networkx(G, *, weight="weight", symmetrize=True):
    """Convert a NetworkX graph into a :class:`SparseGraph`.

    Nodes keep ``G``'s node order; each edge becomes an arc (mirrored when
    `symmetrize`), parallel edges and both directions are merged by maximum,
    as ``mcl --abc`` does.  Edges without the `weight` attribute weigh 1.

    Parameters
    ----------
    G : networkx.Graph, DiGraph, MultiGraph or MultiDiGraph
    weight : str
        The edge attribute holding weights.
    symmetrize : bool, default True

    Returns
    -------
    SparseGraph

    Examples
    --------
    >>> import networkx as nx
    >>> g = from_networkx(nx.path_graph(["a", "b", "c"]))
    >>> g.labels, g.nnz
    (['a', 'b', 'c'], 4)
    """
    nodes = list(G.nodes)
    ids = {v: i for i, v in enumerate(nodes)}
    m = G.number_of_edges()
    src = np.empty(m, dtype=np.int64)
    dst = np.empty(m, dtype=np.int64)
    wts = np.empty(m, dtype=np.float64)
    for k, (u, v, w) in enumerate(G.edges(data=weight, default=1.0)):
        src[k] = ids[u]
        dst[k] = ids[v]
        wts[k] = check_weight(w, f"edge {u!r}-{v!r} (attribute {weight!r})")
    directed = G.is_directed()
    return SparseGraph.from_edges(src, dst, wts, labels=nodes, symmetrize=symmetrize or not directed)


def set_cluster_attribute(G, clustering, attribute="mcl_cluster"):
    """Write each node's cluster number into node attribute `attribute`.

    A node in several clusters (``overlap="keep"``) gets the first.

    Examples
    --------
    >>> import networkx as nx
    >>> import netmcl
    >>> G = nx.path_graph(3)
    >>> _ = netmcl.mcl(G, attribute="cl")
    >>> G.nodes[0]["cl"]
    0
    """
    for node, k in clustering.membership.items():
        G.nodes[node][attribute] = k


def to_networkx(graph):
    """A NetworkX graph of a :class:`SparseGraph`'s arcs: a ``Graph`` when
    every arc has a mirror of the same weight, else a ``DiGraph``; nodes are
    the labels, in id order, and the weights the ``weight`` attribute.

    Examples
    --------
    >>> g = SparseGraph.from_edges([0], [1], [0.5], labels=["a", "b"])
    >>> list(to_networkx(g).edges(data="weight"))
    [('a', 'b', 0.5)]
    """
    import networkx as nx
    import scipy.sparse as sp

    symmetric = graph.is_symmetric()
    out = nx.Graph() if symmetric else nx.DiGraph()
    out.add_nodes_from(graph.labels)
    arcs = (sp.triu(graph.matrix) if symmetric else graph.matrix).tocoo()  # entry (i, j) is the arc j -> i
    labels = graph.labels
    out.add_weighted_edges_from(
        (labels[j], labels[i], w)
        for i, j, w in zip(arcs.row.tolist(), arcs.col.tolist(), arcs.data.astype(float).tolist())
    )
    return out
