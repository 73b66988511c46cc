"""Subclustering: MCL within each cluster of a given clustering.

:func:`subcluster` removes every edge that joins two different clusters of a
given clustering (and every edge of a node the clustering does not list), then
clusters what is left as one graph: each cluster of the result lies within one
given cluster, and the clusters are numbered over the whole graph as any
clustering (largest first).  This is what mcl's manual describes for
``mcl GRAPH -icl CLUSTERING``; the result is exactly mcl's clustering of that
reduced graph (:func:`within_clusters`).

mcl 22-282's ``-icl`` itself removes more: it also drops some edges inside a
cluster, depending on their weights (its ``-write-graph`` shows the reduced
graph), so its subclusters can differ from :func:`subcluster`'s.
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
    """The graph with only the edges inside a cluster of `clustering`.

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
        Same nodes and labels, arcs within clusters only.

    Raises
    ------
    ParameterError
        For a member that is not a node, or a node in two clusters.

    Examples
    --------
    >>> g = within_clusters([("a", "b"), ("b", "c"), ("c", "d")], [["a", "b"], ["c", "d"]])
    >>> g.labels, g.nnz
    (['a', 'b', 'c', 'd'], 4)
    """
    from .adapters import to_sparse_graph

    graph = to_sparse_graph(G, weight=weight, symmetrize=symmetrize)
    ids = _cluster_ids(graph, clustering, indices)
    m = graph.csc
    columns = np.repeat(np.arange(graph.n, dtype=np.int64), np.diff(m.indptr))
    rows = m.indices.astype(np.int64)
    keep = (ids[rows] == ids[columns]) & (ids[columns] >= 0)
    indptr = np.zeros(graph.n + 1, dtype=np.int64)
    np.cumsum(np.bincount(columns[keep], minlength=graph.n), out=indptr[1:])
    return SparseGraph(CscMatrix(indptr, m.indices[keep], m.data[keep], graph.n), labels=list(graph.labels))


def subcluster(G, clustering, *, indices=False, weight="weight", symmetrize=None, **params):
    """Cluster within each cluster of `clustering`.

    The edges between different clusters (and those of nodes in no cluster)
    are removed and the rest is clustered with :func:`netmcl.mcl`: the same
    clusters, in the same order, as mcl gives for that reduced graph (see
    the module's text for how this differs from mcl's ``-icl``).

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
    >>> fine = subcluster(G, coarse, inflation=4)
    >>> len(coarse), len(fine), len(netmcl.mcl(G, inflation=4, attribute=None))
    (2, 7, 8)
    >>> all(any(set(f) <= set(c) for c in coarse) for f in fine)
    True
    """
    from .mcl import mcl

    graph = within_clusters(G, clustering, indices=indices, weight=weight, symmetrize=symmetrize)
    return mcl(graph, attribute=None, **params)
