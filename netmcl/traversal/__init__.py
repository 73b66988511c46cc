"""Graph traversal on the CPU and the GPU: hop distances, shortest paths, components.

The same inputs as :func:`netmcl.mcl` (NetworkX, igraph, pandas edge lists,
scipy matrices, edge lists, :class:`~netmcl.SparseGraph`, files read by
:func:`netmcl.read_abc` or :func:`netmcl.read_string`); results are keyed by
the graph's own node labels (integer ids for a scipy matrix).

* :func:`bfs` -- hop distances from one or many sources (a dense matrix, one
  row per source) and breadth-first trees;
* :func:`shortest_paths` -- weighted distances (Dijkstra on the CPU, a
  frontier Bellman-Ford or delta-stepping on the GPU) and shortest-path trees;
* :func:`connected_components` and :func:`strongly_connected_components`,
  numbered by each component's smallest node.

``engine="cpu"`` (default) runs scipy.sparse.csgraph and numba kernels;
``engine="gpu"`` runs numba-cuda kernels (``pip install 'netmcl[cuda12]'``).
Both give the same numbers, trees and components.
"""

import numpy as np

from ..exceptions import ParameterError
from ._graph import Net, as_net
from ._results import Components, Paths

__all__ = ["bfs", "shortest_paths", "connected_components", "strongly_connected_components",
           "Paths", "Components", "as_net"]

#: up to this many sources, one queue-based search each; beyond, 64 sources at a time as bits of a word
QUEUE_SOURCES = 2

ENGINES = ("cpu", "gpu")


def _engine(engine):
    if engine not in ENGINES:
        raise ParameterError(f"engine must be 'cpu' or 'gpu'. Got {engine!r} instead.")
    if engine == "gpu":
        from . import _gpu

        _gpu._runtime()
        return _gpu
    return None


def _sources(net, sources):
    if sources is None:
        return np.arange(net.n, dtype=np.int64)
    return net.ids(sources)


def hop_matrix(net, ids, engine="cpu"):
    """Hop counts from the node ids `ids`: int32 array (len(ids), n), -1 where unreachable."""
    gpu = _engine(engine)
    if gpu is not None:
        return gpu.bfs(net, ids)
    from . import _cpu

    out = np.full((len(ids), net.n), -1, dtype=np.int32)
    if len(ids) <= QUEUE_SOURCES:
        queue = np.empty(max(net.n, 1), dtype=np.int32)
        for r, s in enumerate(ids):
            _cpu.bfs_one(net.indptr, net.indices, int(s), out[r], queue)
    else:
        rp, ri, _ = net.reverse()
        _cpu.bfs_many(rp, ri, np.asarray(ids, dtype=np.int64), out)
    return out


def bfs(G, sources=None, *, engine="cpu", directed=None):
    """Hop distances (breadth-first search levels) from one or many sources.

    Parameters
    ----------
    G : graph
        Any input :func:`netmcl.mcl` takes (edge weights are ignored).
    sources : node label or list of labels, optional
        Default: every node (all-pairs hop counts; n x n int32 entries).
    engine : {"cpu", "gpu"}
    directed : bool, optional
        Follow arcs only forwards; default: as the graph is (see :func:`as_net`).

    Returns
    -------
    Paths
        ``result[s]`` is ``{node: hops}`` for the nodes reachable from ``s``;
        ``result.matrix`` the int32 hop counts (-1: unreachable), one row per
        source; ``result.predecessors(s)`` and ``result.path(s, t)`` give the
        breadth-first tree whose parents are the smallest-id nodes one level
        nearer.

    Raises
    ------
    ParameterError
        For a source that is not a node of `G`.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([("TP53", "MDM2"), ("MDM2", "UBE3A"), ("BRCA1", "BARD1")])
    >>> r = bfs(G, ["TP53", "BRCA1"])
    >>> r["TP53"]
    {'TP53': 0, 'MDM2': 1, 'UBE3A': 2}
    >>> r.matrix.tolist()
    [[0, 1, 2, -1, -1], [-1, -1, -1, 0, 1]]
    """
    net = as_net(G, weight=None, directed=directed)
    ids = _sources(net, sources)
    return Paths(net, ids, hop_matrix(net, ids, engine), weighted=False)


#: shortest_paths' methods: "auto" is Dijkstra (scipy) on the CPU and the frontier Bellman-Ford on the GPU
SSSP_METHODS = {"cpu": ("auto", "dijkstra"), "gpu": ("auto", "bellman-ford", "delta-stepping")}


def _check_method(engine, method):
    if engine in SSSP_METHODS and method not in SSSP_METHODS[engine]:
        raise ParameterError(f"The 'method' parameter of shortest_paths must be one of {list(SSSP_METHODS[engine])} "
                             f"with engine={engine!r}. Got {method!r} instead.")


def distance_matrix(net, ids, engine="cpu", method="auto"):
    """Weighted distances from the node ids `ids`: float64 array (len(ids), n), inf where unreachable."""
    _check_method(engine, method)
    gpu = _engine(engine)
    if gpu is not None:
        return gpu.sssp(net, ids, method=method)
    from scipy.sparse.csgraph import dijkstra

    if len(ids) == 0:
        return np.empty((0, net.n))
    return np.atleast_2d(dijkstra(net.csr(), directed=True, indices=np.asarray(ids)))


def shortest_paths(G, sources=None, *, weight="weight", engine="cpu", directed=None, method="auto"):
    """Weighted shortest-path distances from one or many sources.

    Parameters
    ----------
    G : graph
        Any input :func:`netmcl.mcl` takes.  Weights are costs: finite and
        non-negative (0 allowed); a NetworkX edge without the attribute weighs 1.
        For similarity scores (STRING's), turn them into costs first, e.g.
        ``1 - score``: a high score must make a short edge.
    sources : node label or list of labels, optional
        Default: every node.
    weight : str or None, default "weight"
        The edge attribute with the costs; None: every edge costs 1 (hop counts as floats).
    engine : {"cpu", "gpu"}
    directed : bool, optional
        Default: as the graph is (see :func:`as_net`).
    method : {"auto", "dijkstra", "bellman-ford", "delta-stepping"}
        How the distances are found: "dijkstra" (scipy's) on the CPU;
        "bellman-ford" (a frontier Bellman-Ford, as cuRnet's) or
        "delta-stepping" (Meyer and Sanders' buckets of distance) on the GPU.
        "auto": Dijkstra on the CPU, the frontier Bellman-Ford on the GPU.
        Every method gives the same distances (with float costs, to the last
        bit where the shortest path is unique).

    Returns
    -------
    Paths
        ``result[s]`` is ``{node: distance}`` for the nodes reachable from
        ``s``; ``result.matrix`` the float64 distances (inf: unreachable);
        ``result.predecessors(s)`` / ``result.path(s, t)`` a shortest-path tree.

    Raises
    ------
    ParameterError
        For a negative or non-finite weight, naming the edge ``(u, v, w)``, and
        for a source that is not a node.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph()
    >>> G.add_weighted_edges_from([("a", "b", 0.2), ("b", "c", 0.1), ("a", "c", 0.5)])
    >>> r = shortest_paths(G, "a")
    >>> r["a"], r.path("a", "c")
    ({'a': 0.0, 'b': 0.2, 'c': 0.30000000000000004}, ['a', 'b', 'c'])
    """
    _check_method(engine, method)
    if weight is None:
        net = as_net(G, weight=None, directed=directed)
        ids = _sources(net, sources)
        hops = hop_matrix(net, ids, engine).astype(np.float64)
        hops[hops < 0] = np.inf
        return Paths(net, ids, hops, weighted=False)
    net = as_net(G, weight=weight, directed=directed)
    ids = _sources(net, sources)
    return Paths(net, ids, distance_matrix(net, ids, engine, method), weighted=True)


def weak_ids(net, engine="cpu"):
    """Canonical weakly connected component numbers of a :class:`Net` (int32 by node id)."""
    gpu = _engine(engine)
    if gpu is not None:
        return gpu.weak(net)
    from . import _cpu

    roots = _cpu.weak_roots(net.indptr, net.indices, net.n, bool(net._symmetric))
    return _cpu.canonical_from_roots(roots)


def strong_ids(net, engine="cpu"):
    """Canonical strongly connected component numbers of a :class:`Net` (int32 by node id)."""
    if net._symmetric:
        return weak_ids(net, engine)
    gpu = _engine(engine)
    if gpu is not None:
        return gpu.strong(net)
    from . import _cpu

    if net.n == 0:
        return np.zeros(0, dtype=np.int32)
    labels = np.empty(net.n, dtype=np.int32)
    _cpu.tarjan(net.indptr, net.indices, labels)
    return _cpu.canonical(labels)


def connected_components(G, *, engine="cpu"):
    """Connected components (weakly connected ones for a directed graph).

    Parameters
    ----------
    G : graph
        Any input :func:`netmcl.mcl` takes.
    engine : {"cpu", "gpu"}

    Returns
    -------
    Components
        ``result[node]`` is the node's component; components are numbered
        0, 1, ... in the order of their first node in the graph's node order.

    Examples
    --------
    >>> import networkx as nx
    >>> c = connected_components(nx.Graph([("z", "y"), ("a", "b")]))
    >>> c.membership
    {'z': 0, 'y': 0, 'a': 1, 'b': 1}
    """
    net = as_net(G, weight=None)
    return Components(net, weak_ids(net, engine))


def strongly_connected_components(G, *, engine="cpu"):
    """Strongly connected components of a directed graph.

    Parameters
    ----------
    G : graph
        A directed graph (an undirected one gives its connected components).
    engine : {"cpu", "gpu"}

    Returns
    -------
    Components
        Numbered 0, 1, ... in the order of their first node in the graph's node order.

    Examples
    --------
    >>> import networkx as nx
    >>> c = strongly_connected_components(nx.DiGraph([(3, 1), (1, 2), (2, 1)]))
    >>> c.membership, c.components
    ({3: 0, 1: 1, 2: 1}, [[3], [1, 2]])
    """
    net = as_net(G, weight=None)
    return Components(net, strong_ids(net, engine))
