"""igraph in and out: ``netmcl.mcl(g)`` on an ``igraph.Graph`` returns a ``VertexClustering``.

igraph is optional; this module is only imported when an igraph object is
passed, so importing it never fails for lack of igraph.
"""

import numpy as np

from ..exceptions import BackendUnavailableError, ParameterError
from ..graph import SparseGraph
from . import check_weight

__all__ = ["from_igraph", "set_cluster_attribute", "to_vertex_clustering"]


def _igraph():
    try:
        import igraph
    except ImportError as exc:  # pragma: no cover - only without igraph
        raise BackendUnavailableError("igraph support needs python-igraph: pip install 'netmcl[igraph]'.") from exc
    return igraph


def _weights(g, weights):
    """Edge weights as float64 array, or None for an unweighted graph."""
    m = g.ecount()
    if weights is None:
        return None
    if isinstance(weights, str):
        if weights not in g.es.attributes():
            if weights == "weight":  # the default: an unweighted graph
                return None
            raise ParameterError(
                f"The graph has no edge attribute {weights!r}; its edge attributes are "
                f"{sorted(g.es.attributes())}. Pass weight=None for an unweighted graph."
            )
        values = g.es[weights]
        where = f"edge attribute {weights!r}"
    else:
        values = list(weights)
        if len(values) != m:
            raise ParameterError(
                f"weights must have one value per edge: the graph has {m} edges. Got {len(values)} values instead."
            )
        where = "the weights sequence"
    out = np.empty(m, dtype=np.float64)
    for k, w in enumerate(values):
        try:
            out[k] = check_weight(w, f"edge {k} ({where})")
        except ParameterError:  # again, naming the edge's ends
            u, v = g.es[k].tuple
            names = _labels(g)
            check_weight(w, f"edge {k} ({names[u]!r}, {names[v]!r}) ({where})")
            raise
    return out


def _labels(g):
    return g.vs["name"] if "name" in g.vs.attributes() else list(range(g.vcount()))


def from_igraph(g, *, weights="weight", symmetrize=True):
    """Convert an ``igraph.Graph`` into a :class:`~netmcl.SparseGraph`.

    Nodes keep igraph's vertex order; labels are the vertex ``name``
    attribute when the graph has one, else vertex ids.  Each edge becomes an
    arc, mirrored as ``mcl --abc`` does (always for an undirected graph, and
    for a directed one unless `symmetrize` is False); multiple edges keep the
    largest weight.

    Parameters
    ----------
    g : igraph.Graph
    weights : str, sequence of float or None, default "weight"
        An edge attribute name or one weight per edge; None (or a missing
        ``"weight"`` attribute) means every edge weighs 1.
    symmetrize : bool, default True

    Returns
    -------
    SparseGraph

    Examples
    --------
    >>> import igraph as ig
    >>> g = ig.Graph.TupleList([("a", "b", 2.0), ("b", "c", 1.0)], weights=True)
    >>> sg = from_igraph(g)
    >>> sg.labels, float(sg.matrix[1, 0])
    (['a', 'b', 'c'], 2.0)
    """
    edges = np.asarray(g.get_edgelist(), dtype=np.int64).reshape(-1, 2)
    return SparseGraph.from_edges(
        edges[:, 0],
        edges[:, 1],
        _weights(g, weights),
        labels=_labels(g),
        n=g.vcount(),
        symmetrize=symmetrize or not g.is_directed(),
    )


def set_cluster_attribute(g, clustering, attribute="mcl_cluster"):
    """Store each vertex's cluster number in vertex attribute `attribute`.

    A vertex in several clusters (``overlap="keep"``) gets the first.

    Examples
    --------
    >>> import igraph as ig
    >>> import netmcl
    >>> g = ig.Graph.Famous("Zachary")
    >>> _ = netmcl.mcl(g, attribute="cl")
    >>> g.vs[0]["cl"], g.vs[33]["cl"]
    (1, 0)
    """
    g.vs[attribute] = clustering.membership_array().tolist()


def to_vertex_clustering(g, clustering, *, weights="weight"):
    """The clusters as an ``igraph.VertexClustering`` of `g` (a ``VertexCover`` for overlap).

    Cluster ``k`` is netmcl's (and mcl's) cluster ``k``.  The netmcl
    :class:`~netmcl.Clustering`, with the chaos trace and the parameters,
    is kept as the attribute ``netmcl`` of the result.

    Parameters
    ----------
    g : igraph.Graph
    clustering : Clustering
    weights : str or None, default "weight"
        Edge attribute used by ``.modularity`` (when the graph has it).

    Returns
    -------
    igraph.VertexClustering or igraph.VertexCover

    Examples
    --------
    >>> import igraph as ig
    >>> import netmcl
    >>> vc = netmcl.mcl(ig.Graph.Famous("Zachary"))
    >>> type(vc).__name__, len(vc), round(vc.modularity, 4), vc.netmcl.n_iterations
    ('VertexClustering', 2, 0.36, 11)
    """
    igraph = _igraph()
    use = weights if isinstance(weights, str) and weights in g.es.attributes() else None
    if clustering.is_partition():
        result = igraph.VertexClustering(
            g,
            membership=clustering.membership_array().tolist(),
            modularity_params={"weights": use},
        )
    else:
        result = igraph.VertexCover(g, [c.tolist() for c in clustering.index_clusters])
    result.netmcl = clustering
    return result
