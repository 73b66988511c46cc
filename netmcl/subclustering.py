"""Subclustering: MCL within each cluster of a given clustering (``mcl -icl``).

``mcl GRAPH -icl CLUSTERING`` reduces GRAPH to edges inside the clusters of
CLUSTERING and clusters the reduced graph as one: each cluster of the result
lies within one given cluster, and the clusters are numbered over the whole
graph as any clustering (largest first).  :func:`within_clusters` reduces the
graph exactly as mcl 22-282 does (its ``-write-graph`` file, entry for entry)
and :func:`subcluster` clusters it, so its clusters and their order are those
of ``mcl -icl``.

mcl's reduction removes more than the edges between clusters (which its
manual describes): an arc from a node to a member of its own cluster is kept
only if its weight is above the median weight of the node's arcs that leave
the cluster (unless that would keep none of them, when all are kept), and an
edge stays only if both its arcs do, with the smaller of the two weights;
loops are halved.  Nodes in no cluster keep no edge.
"""

import numpy as np

from .exceptions import ParameterError
from .graph import SparseGraph
from .sparse import CscMatrix

__all__ = ["subcluster", "within_clusters"]


def _cluster_ids(graph, clustering, indices):
    """Each node's cluster number (-1: in no cluster)."""
    if hasattr(clustering, "index_clusters"):
        members, indices = clustering.index_clusters, True
    else:
        members = [list(c) for c in clustering]
    ids = np.full(graph.n, -1, dtype=np.int64)
    where = None if indices else {label: k for k, label in enumerate(graph.labels)}
    for number, cluster in enumerate(members):
        for member in cluster:
            if indices:
                node = int(member)
                if not 0 <= node < graph.n:
                    raise ParameterError(
                        f"Cluster {number} lists node {node}, but the graph has nodes 0 to {graph.n - 1}.")
            else:
                node = where.get(member)
                if node is None:
                    raise ParameterError(f"Cluster {number} lists {member!r}, which is not a node of the graph.")
            if ids[node] >= 0 and ids[node] != number:
                raise ParameterError(
                    f"Node {graph.labels[node]!r} is in clusters {ids[node]} and {number}: subclustering needs "
                    "a clustering without overlap.")
            ids[node] = number
    return ids


def within_clusters(G, clustering, *, indices=False, weight="weight", symmetrize=None):
    """The graph ``mcl -icl`` clusters: edges inside the clusters of `clustering`, reduced as mcl does.

    Parameters
    ----------
    G : graph
        Anything :func:`netmcl.mcl` takes.
    clustering : Clustering or iterable of iterables
        The clusters: node labels, or node indices with ``indices=True`` (a
        native cluster file read by :func:`netmcl.read_clusters`).  Nodes in
        no cluster keep no edge.
    indices : bool, default False
        Members are node indices (``0 .. n-1``) instead of labels.
    weight, symmetrize
        As for :func:`netmcl.mcl`.

    Returns
    -------
    SparseGraph
        Same nodes and labels; the arcs mcl 22-282 keeps (see the module's
        text): column ``j`` keeps an arc to a member of ``j``'s cluster whose
        weight is above the median of ``j``'s arcs out of the cluster (all of
        them when none is), an edge stays when both its arcs do, with the
        smaller weight, and loops are halved.

    Raises
    ------
    ParameterError
        For a member that is not a node, or a node in two clusters.

    Examples
    --------
    The edge ``b - c`` (weight 2) goes: ``c``'s arc out of the cluster weighs 3.

    >>> edges = [("a", "b", 1), ("a", "c", 6), ("b", "c", 2), ("c", "d", 3), ("d", "e", 4)]
    >>> g = within_clusters(edges, [["a", "b", "c"], ["d", "e"]])
    >>> sorted((g.labels[i], g.labels[j]) for i, j in zip(*g.matrix.nonzero()) if i < j)
    [('a', 'b'), ('a', 'c'), ('d', 'e')]
    """
    import scipy.sparse as sp

    from .adapters import to_sparse_graph

    graph = to_sparse_graph(G, weight=weight, symmetrize=symmetrize)
    n = graph.n
    ids = _cluster_ids(graph, clustering, indices)
    m = graph.csc
    columns = np.repeat(np.arange(n, dtype=np.int64), np.diff(m.indptr))
    rows = m.indices.astype(np.int64)
    values = m.data.astype(np.float64)
    out = (ids[rows] != ids[columns]) | (ids[columns] < 0)
    # the median of each column's arcs out of its cluster (the mean of the middle two for an even count)
    out_cols, out_vals = columns[out], values[out]
    order = np.lexsort((out_vals, out_cols))
    out_vals = out_vals[order]
    count = np.bincount(out_cols, minlength=n)
    first = np.concatenate(([0], np.cumsum(count)[:-1]))
    median = np.full(n, -np.inf)
    has = count > 0
    median[has] = (out_vals[first[has] + (count[has] - 1) // 2] + out_vals[first[has] + count[has] // 2]) / 2
    keep = ~out & (values > median[columns])
    none_kept = np.bincount(columns[keep], minlength=n) == 0
    keep |= ~out & none_kept[columns]
    kept = sp.csc_array((m.data[keep], (rows[keep], columns[keep])), shape=(n, n))
    both = kept.minimum(kept.T).tocsc()
    both.setdiag(both.diagonal() / 2)
    both.eliminate_zeros()
    both.sort_indices()
    return SparseGraph(CscMatrix.of(both), labels=list(graph.labels))


def subcluster(G, clustering, *, indices=False, weight="weight", symmetrize=None, **params):
    """Cluster within each cluster of `clustering`, as ``mcl -icl`` does.

    The graph is reduced to edges inside the clusters as mcl 22-282 reduces
    it (:func:`within_clusters`) and clustered with :func:`netmcl.mcl`: the
    same clusters, in the same order, as ``mcl GRAPH -icl CLUSTERING``.

    Parameters
    ----------
    G : graph
        Anything :func:`netmcl.mcl` takes.
    clustering : Clustering or iterable of iterables
        The clusters to split: node labels, or node indices with
        ``indices=True``.
    indices : bool, default False
        Members are node indices instead of labels.
    weight, symmetrize
        As for :func:`netmcl.mcl`.
    **params
        MCL's parameters, as for :func:`netmcl.mcl` (e.g. ``inflation=3``).

    Returns
    -------
    Clustering
        The subclusters, largest first, each within one given cluster.

    Examples
    --------
    >>> import networkx as nx
    >>> import netmcl
    >>> G = nx.karate_club_graph()
    >>> coarse = netmcl.mcl(G, inflation=1.6, attribute=None)
    >>> fine = subcluster(G, coarse, inflation=2)
    >>> len(coarse), len(fine)
    (2, 11)
    >>> all(any(set(f) <= set(c) for c in coarse) for f in fine)
    True
    """
    from .mcl import mcl

    graph = within_clusters(G, clustering, indices=indices, weight=weight, symmetrize=symmetrize)
    return mcl(graph, attribute=None, **params)
