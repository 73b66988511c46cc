"""The graph the traversals run on: out-arcs in CSR form, node labels, direction.

:func:`as_net` converts what users hold (NetworkX, igraph, pandas, scipy, edge
lists, :class:`~netmcl.SparseGraph`) into a :class:`Net`.  NetworkX graphs
are read directly, keeping float64 weights and zero-weight edges (both count
for shortest paths); the other kinds go through
:func:`netmcl.adapters.to_sparse_graph`, as for :func:`netmcl.mcl`.
"""

import math

import numpy as np

from ..exceptions import ParameterError
from ..graph import SparseGraph

__all__ = ["Net", "as_net"]


class Net:
    """Out-arcs of nodes ``0..n-1`` in CSR form (row ``u`` lists the heads of ``u``'s arcs).

    Parameters
    ----------
    indptr : int64 array, shape (n + 1,)
    indices : int32 array
        Heads, no repeats within a row (in any order).
    weights : float64 array or None
        Arc weights (None: every arc weighs 1).
    labels : list
        Node labels in id order.
    symmetric : bool or None
        Whether every arc has its reverse (an undirected graph); None: found out when needed.
    directed : bool
        Whether the user's graph is directed.
    """

    def __init__(self, indptr, indices, weights, labels, *, symmetric=None, directed=True):
        self.indptr = np.ascontiguousarray(indptr, dtype=np.int64)
        self.indices = np.ascontiguousarray(indices, dtype=np.int32)
        self.weights = None if weights is None else np.ascontiguousarray(weights, dtype=np.float64)
        self.labels = labels
        self.n = len(self.indptr) - 1
        self.directed = directed
        self._symmetric = symmetric
        self._reverse = None
        self._index = None
        self._csr = None
        self.device = {}  # arrays uploaded by the GPU engine, kept for the next call

    @property
    def m(self):
        """Number of arcs."""
        return int(self.indptr[-1])

    @property
    def symmetric(self):
        """Whether every arc ``u -> v`` comes with ``v -> u`` of the same weight."""
        if self._symmetric is None:
            rp, ri, rw = self.reverse()
            same = np.array_equal(rp, self.indptr) and np.array_equal(ri, self.indices)
            if same and self.weights is not None:
                same = np.array_equal(rw, self.weights)
            self._symmetric = bool(same)
        return self._symmetric

    def reverse(self):
        """The in-arcs in CSR form: ``(indptr, indices, weights)``."""
        if self._reverse is None:
            if self._symmetric:
                self._reverse = (self.indptr, self.indices, self.weights)
            else:
                from ._cpu import transpose

                self._reverse = transpose(self.indptr, self.indices, self.weights, self.n)
        return self._reverse

    def csr(self):
        """The arcs as a ``scipy.sparse.csr_array`` of float64 weights (1 when unweighted)."""
        if self._csr is None:
            import scipy.sparse as sp

            data = self.weights if self.weights is not None else np.ones(self.m, dtype=np.float64)
            # csgraph's routines take int32 index arrays: give them int32 offsets, not a copy per call
            indptr = self.indptr.astype(np.int32) if self.m < 2**31 else self.indptr
            self._csr = sp.csr_array((data, self.indices, indptr), shape=(self.n, self.n), copy=False)
        return self._csr

    def ids(self, nodes, what="Source"):
        """Node ids of the labels `nodes` (one label or a list); ParameterError naming an unknown one."""
        if self._index is None:
            self._index = {label: i for i, label in enumerate(self.labels)}
        try:
            if nodes in self._index:  # one node, even a tuple-labelled one
                return np.asarray([self._index[nodes]], dtype=np.int64)
        except TypeError:  # unhashable: a list of nodes
            pass
        single = not isinstance(nodes, (list, tuple, set, frozenset, np.ndarray, range))
        out = []
        for node in ([nodes] if single else nodes):
            try:
                out.append(self._index[node])
            except (KeyError, TypeError):
                raise ParameterError(f"{what} {node!r} is not in the graph.") from None
        return np.asarray(out, dtype=np.int64)


def _csr_min(src, dst, w, n):
    """CSR arrays from arcs, repeated arcs merged by minimum weight, heads sorted."""
    order = np.lexsort((w, dst, src)) if w is not None else np.lexsort((dst, src))
    src, dst = src[order], dst[order]
    first = np.ones(src.size, dtype=bool)
    first[1:] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
    src, dst = src[first], dst[first]
    if w is not None:
        w = w[order][first]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return indptr, dst.astype(np.int32), w


def negative_weight_error(u, v, w, attribute=None):
    where = f" (attribute {attribute!r})" if attribute is not None else ""
    return ParameterError(
        f"Shortest paths need finite, non-negative weights. Got edge ({u!r}, {v!r}, {w!r}){where} instead; "
        "turn similarities into costs first (e.g. 1 - score)."
    )


def _from_networkx(G, weight, directed):
    """Rows in NetworkX's adjacency order (so that searches meet neighbours in NetworkX's order)."""
    nodes = list(G)
    ids = {v: i for i, v in enumerate(nodes)}
    n = len(nodes)
    if directed or not G.is_directed():
        adj = G._adj  # successors of a DiGraph, neighbours of a Graph
        counts = np.fromiter((len(nbrs) for nbrs in adj.values()), dtype=np.int64, count=n)
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        m = int(indptr[-1])
        indices = np.fromiter((ids[v] for nbrs in adj.values() for v in nbrs), dtype=np.int32, count=m)
        w = None
        if weight is not None:
            w = np.empty(m, dtype=np.float64)
            k = 0
            for u, nbrs in adj.items():
                for v, data in nbrs.items():
                    x = data.get(weight, 1)
                    try:
                        x = float(x)
                    except (TypeError, ValueError):
                        raise ParameterError(f"Edge ({u!r}, {v!r}) has a weight that is not a number: {x!r}.") from None
                    if not (math.isfinite(x) and x >= 0):
                        raise negative_weight_error(u, v, x, weight)
                    w[k] = x
                    k += 1
        return Net(indptr, indices, w, nodes, symmetric=None if directed else True, directed=directed)
    # a DiGraph read as undirected: arcs both ways, repeats merged by minimum weight
    net = _from_networkx(G, weight, True)
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(net.indptr))
    dst = net.indices.astype(np.int64)
    w = None if net.weights is None else np.concatenate([net.weights, net.weights])
    indptr, indices, w = _csr_min(np.concatenate([src, dst]), np.concatenate([dst, src]), w, n)
    return Net(indptr, indices, w, nodes, symmetric=True, directed=False)


def _from_scipy(M, weight):
    import scipy.sparse as sp

    csr = sp.csr_array(M)
    if csr.ndim != 2 or csr.shape[0] != csr.shape[1]:
        raise ParameterError(f"An adjacency matrix must be square. Got shape {csr.shape} instead.")
    csr.sum_duplicates()
    csr.sort_indices()
    w = None
    if weight is not None:
        w = np.asarray(csr.data, dtype=np.float64)
        bad = ~(np.isfinite(w) & (w >= 0))
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            row = int(np.searchsorted(csr.indptr, k, side="right") - 1)
            raise negative_weight_error(row, int(csr.indices[k]), float(w[k]))
    n = csr.shape[0]
    return Net(csr.indptr, csr.indices, w, list(range(n)), directed=True)


def _from_sparse_graph(g, weight, directed):
    # column j of the CSC matrix holds the out-arcs of node j: it is the CSR of the out-arcs
    m = g.csc
    w = None if weight is None else m.data.astype(np.float64)
    return Net(m.indptr, m.indices, w, g.labels, symmetric=False if directed else None,
               directed=True if directed is None else directed)


def _check_adapter_weights(G, weight):
    """Name the first negative weight of an igraph graph, a DataFrame or an edge list."""
    kind = type(G).__module__.split(".")[0]
    if kind == "igraph":
        if isinstance(weight, str) and weight in G.es.attributes():
            w = np.asarray(G.es[weight], dtype=np.float64)
            bad = np.flatnonzero(~(w >= 0))
            if bad.size:
                e = G.es[int(bad[0])]
                names = G.vs["name"] if "name" in G.vs.attributes() else range(G.vcount())
                raise negative_weight_error(names[e.source], names[e.target], float(w[bad[0]]), weight)
    elif kind == "pandas":
        if isinstance(weight, str) and weight in G.columns:
            w = np.asarray(G[weight], dtype=np.float64)
            bad = np.flatnonzero(~(w >= 0))
            if bad.size:
                row = G.iloc[int(bad[0])]
                raise negative_weight_error(row.iloc[0], row.iloc[1], float(w[bad[0]]), weight)
    return G


def as_net(G, *, weight=None, directed=None):
    """The :class:`Net` of a user's graph.

    Parameters
    ----------
    G : Net, SparseGraph, networkx graph, igraph graph, DataFrame, scipy sparse matrix or edge list
        scipy matrices follow :mod:`scipy.sparse.csgraph`: entry ``(i, j)`` is the arc ``i -> j``;
        a :class:`SparseGraph` follows mcl: entry ``(i, j)`` is the arc ``j -> i``.
    weight : str or None
        Edge attribute holding the weights; None reads no weights (every arc weighs 1).
    directed : bool, optional
        Default: as the graph says (NetworkX, igraph); edge lists, DataFrames and
        files are undirected; matrices are directed unless symmetric.

    Returns
    -------
    Net

    Examples
    --------
    >>> import networkx as nx
    >>> net = as_net(nx.path_graph(["a", "b", "c"]))
    >>> net.labels, net.indptr.tolist(), net.indices.tolist()
    (['a', 'b', 'c'], [0, 1, 3, 4], [1, 0, 2, 1])
    """
    if isinstance(G, Net):
        if weight is not None and G.weights is None:
            raise ParameterError("This graph has no weights; pass weight=None.")
        return G
    kind = type(G).__module__.split(".")[0]
    if kind == "networkx":
        if G.is_multigraph():
            import networkx as nx

            H = nx.DiGraph() if G.is_directed() else nx.Graph()
            H.add_nodes_from(G)
            best = {}
            for u, v, x in G.edges(data=weight, default=1):
                key = (u, v) if G.is_directed() else frozenset((u, v))
                if weight is None or key not in best or x < best[key][2]:
                    best[key] = (u, v, x)
            H.add_weighted_edges_from(best.values(), weight=weight or "weight")
            G = H
        d = G.is_directed() if directed is None else directed
        return _from_networkx(G, weight, d and G.is_directed())
    if isinstance(G, SparseGraph):
        return _from_sparse_graph(G, weight, directed)
    from ..adapters import _is_scipy_sparse, to_sparse_graph

    if _is_scipy_sparse(G) or isinstance(G, np.ndarray):
        net = _from_scipy(G, weight)
        if directed is False and not net.symmetric:
            net = _from_scipy(net.csr().maximum(net.csr().T), weight)
            net._symmetric, net.directed = True, False
        elif directed is False:
            net.directed = False
        return net
    if kind == "igraph":
        d = G.is_directed() if directed is None else (directed and G.is_directed())
    else:
        d = bool(directed)
    _check_adapter_weights(G, weight)
    g = to_sparse_graph(G, weight=weight, symmetrize=not d)
    net = _from_sparse_graph(g, weight, d)
    if not d:
        net._symmetric = True
    return net
