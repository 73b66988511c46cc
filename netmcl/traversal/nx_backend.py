"""A NetworkX backend: ``nx.connected_components(G, backend="netmcl")`` and friends.

Registered through the ``networkx.backends`` and ``networkx.backend_info``
entry points of netmcl's package metadata, so NetworkX finds it once netmcl is
installed.  It runs breadth-first searches, unweighted and Dijkstra path
lengths and (strongly) connected components on netmcl's CPU kernels and
returns what NetworkX returns, in NetworkX's order where NetworkX defines
one (``bfs_edges``, ``bfs_layers``).  :func:`can_run` declines what it does
not do the NetworkX way (multigraphs, weight functions, negative weights,
``sort_neighbors``, ``reverse``, ...), and NetworkX then runs its own code.

With netmcl installed, ``nx.connected_components(G, backend="netmcl")`` runs
:func:`connected_components` here.

Examples
--------
>>> import networkx as nx
>>> G = nx.Graph([(1, 2), (3, 4), (4, 5)])
>>> list(connected_components(G)), can_run("connected_components", (G,), {})
([{1, 2}, {3, 4, 5}], True)
>>> can_run("connected_components", (nx.MultiGraph(G),), {})
'multigraphs are left to NetworkX'
"""

import collections
import math

import numpy as np

__all__ = ["backend_interface", "backend_info", "NetmclGraph"]

#: calls answered by this backend, by function name (to check that it was used)
CALLS = collections.Counter()

FUNCTIONS = (
    "bfs_edges", "bfs_layers", "single_source_shortest_path_length", "shortest_path_length",
    "single_source_dijkstra_path_length", "connected_components", "number_connected_components",
    "is_connected", "strongly_connected_components",
)

#: graphs with fewer nodes plus edges are left to NetworkX by automatic dispatch (conversion costs more)
SMALL = 1000


def backend_info():
    """What NetworkX shows about this backend (the ``networkx.backend_info`` entry point)."""
    return {
        "backend_name": "netmcl",
        "project": "netmcl",
        "package": "netmcl",
        "url": "https://pypi.org/project/netmcl/",
        "short_summary": "Breadth-first search, shortest path lengths and components on netmcl's CPU kernels.",
        "functions": {name: {} for name in FUNCTIONS},
        "default_config": {},
    }


class NetmclGraph:
    """A NetworkX graph as the backend holds it: the graph and its CSR forms, made once per weight."""

    __networkx_backend__ = "netmcl"

    def __init__(self, G):
        self.G = G
        self._nets = {}

    def net(self, weight=None):
        if weight not in self._nets:
            from ._graph import _from_networkx

            self._nets[weight] = _from_networkx(self.G, weight, self.G.is_directed())
        return self._nets[weight]

    def is_directed(self):
        return self.G.is_directed()

    def is_multigraph(self):
        return self.G.is_multigraph()

    def __contains__(self, node):
        return node in self.G

    def __len__(self):
        return len(self.G)


def _nx():
    import networkx as nx

    return nx


def _graph(G):
    return G if isinstance(G, NetmclGraph) else NetmclGraph(G)


def _ids(net, nodes):
    index = net._index
    if index is None:
        index = net._index = {label: i for i, label in enumerate(net.labels)}
    return [index[v] for v in nodes]


def _search(net, sources, depth_limit=None):
    """(order, parent, level) of a breadth-first search from `sources` (ids) in adjacency order."""
    from ._cpu import bfs_order

    order = np.empty(net.n, dtype=np.int32)
    parent = np.full(net.n, -1, dtype=np.int32)
    level = np.full(net.n, -1, dtype=np.int32)
    limit = np.iinfo(np.int32).max if depth_limit is None else max(int(depth_limit), -1)
    count = bfs_order(net.indptr, net.indices, np.asarray(sources, dtype=np.int64), limit, order, parent, level)
    return order[:count], parent, level


def _count(name):
    CALLS[name] += 1


# ---------------------------------------------------------------------------
# traversal
# ---------------------------------------------------------------------------

def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    _count("bfs_edges")
    g = _graph(G)
    if source not in g:
        raise _nx().NetworkXError(f"The node {source} is not in the graph.")
    net = g.net()
    order, parent, _ = _search(net, _ids(net, [source]), depth_limit)
    labels = net.labels
    for v in order[1:].tolist():
        yield labels[parent[v]], labels[v]


def bfs_layers(G, sources):
    _count("bfs_layers")
    g = _graph(G)
    if sources in g:
        sources = [sources]
    first = list(set(sources))  # NetworkX's first layer: the sources in a set's order
    for s in first:
        if s not in g:
            raise _nx().NetworkXError(f"The node {s} is not in the graph.")
    net = g.net()
    order, _, level = _search(net, _ids(net, first))
    labels = net.labels
    levels = level[order]
    bounds = np.flatnonzero(np.diff(levels)) + 1
    for part in np.split(order, bounds) if order.size else []:
        yield [labels[v] for v in part.tolist()]


# ---------------------------------------------------------------------------
# path lengths
# ---------------------------------------------------------------------------

def _hop_lengths(g, source, cutoff=None):
    net = g.net()
    order, _, level = _search(net, _ids(net, [source]), None if cutoff is None else math.floor(cutoff))
    labels = net.labels
    return {labels[v]: d for v, d in zip(order.tolist(), level[order].tolist())}


def single_source_shortest_path_length(G, source, cutoff=None):
    _count("single_source_shortest_path_length")
    g = _graph(G)
    if source not in g:
        raise _nx().NodeNotFound(f"Source {source} is not in G")
    return _hop_lengths(g, source, cutoff)


def _dijkstra_lengths(g, source, weight, cutoff=None):
    from scipy.sparse.csgraph import dijkstra

    net = g.net(weight)
    s = _ids(net, [source])[0]
    dist = dijkstra(net.csr(), directed=True, indices=s)
    reached = np.flatnonzero(np.isfinite(dist) if cutoff is None else dist <= cutoff)
    reached = reached[np.argsort(dist[reached], kind="stable")]
    labels = net.labels
    return {labels[v]: d for v, d in zip(reached.tolist(), dist[reached].tolist())}


def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    _count("single_source_dijkstra_path_length")
    g = _graph(G)
    if source not in g:
        raise _nx().NodeNotFound(f"Node {source} not found in graph")
    return _dijkstra_lengths(g, source, weight, cutoff)


def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    _count("shortest_path_length")
    nx = _nx()
    g = _graph(G)
    if source not in g:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if target is not None and target not in g:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    lengths = _hop_lengths(g, source) if weight is None else _dijkstra_lengths(g, source, weight)
    if target is None:
        return lengths
    if target not in lengths:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return lengths[target]


# ---------------------------------------------------------------------------
# components
# ---------------------------------------------------------------------------

def _component_sets(net, ids):
    from ._results import Components

    return (set(c) for c in Components(net, ids).components)


def connected_components(G):
    _count("connected_components")
    from . import weak_ids

    net = _graph(G).net()
    return _component_sets(net, weak_ids(net))


def number_connected_components(G):
    _count("number_connected_components")
    from . import weak_ids

    ids = weak_ids(_graph(G).net())
    return int(ids.max()) + 1 if ids.size else 0


def is_connected(G):
    _count("is_connected")
    from . import weak_ids

    g = _graph(G)
    if len(g) == 0:
        raise _nx().NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return bool((weak_ids(g.net()) == 0).all())


def strongly_connected_components(G):
    _count("strongly_connected_components")
    from ._cpu import tarjan

    net = _graph(G).net()
    comp = np.empty(net.n, dtype=np.int32)
    count = tarjan(net.indptr, net.indices, comp)  # NetworkX's order of components: they complete in its order
    order = np.argsort(comp, kind="stable")
    bounds = np.cumsum(np.bincount(comp, minlength=count))[:-1]
    labels = net.labels
    return (set(labels[v] for v in part.tolist()) for part in (np.split(order, bounds) if net.n else []))


# ---------------------------------------------------------------------------
# the backend interface
# ---------------------------------------------------------------------------

def _arguments(name, args, kwargs):
    import inspect

    bound = inspect.signature(getattr(_nx(), name)).bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.arguments


def _negative(G, weight):
    for _, _, w in G.edges(data=weight, default=1):
        try:
            if not float(w) >= 0 or math.isinf(float(w)):
                return True
        except (TypeError, ValueError):
            return True
    return False


def can_run(name, args, kwargs):
    """True when this backend computes exactly what NetworkX would; else the reason it does not."""
    if name not in FUNCTIONS:
        return f"{name} is not implemented by netmcl"
    a = _arguments(name, args, kwargs)
    G = a["G"]
    G = G.G if isinstance(G, NetmclGraph) else G
    if G.is_multigraph():
        return "multigraphs are left to NetworkX"
    directed = G.is_directed()
    if name in ("connected_components", "number_connected_components", "is_connected") and directed:
        return "not defined for directed graphs (NetworkX raises)"
    if name == "strongly_connected_components" and not directed:
        return "not defined for undirected graphs (NetworkX raises)"
    if name == "bfs_edges":
        if a["sort_neighbors"] is not None:
            return "sort_neighbors is not supported"
        if a["reverse"] and directed:
            return "reverse=True is not supported"
        limit = a["depth_limit"]
        if limit is not None and not isinstance(limit, int | np.integer):
            return "depth_limit must be an integer"
    if name in ("single_source_shortest_path_length", "single_source_dijkstra_path_length"):
        cutoff = a["cutoff"]
        if cutoff is not None and not isinstance(cutoff, int | float | np.integer | np.floating):
            return "cutoff must be a number"
    if name == "shortest_path_length":
        if a["source"] is None:
            return "only lengths from a source are supported"
        if a["method"] not in ("dijkstra", "bellman-ford"):
            return "unknown method (NetworkX raises)"
    weight = a.get("weight")
    if name in ("single_source_dijkstra_path_length", "shortest_path_length") and weight is not None:
        if not isinstance(weight, str):
            return "weight functions are not supported"
        if _negative(G, weight):
            return "negative, infinite or non-numeric weights are left to NetworkX"
    return True


def should_run(name, args, kwargs):
    """Worth it only beyond small graphs: converting costs more than NetworkX's own search there."""
    G = _arguments(name, args, kwargs)["G"]
    G = G.G if isinstance(G, NetmclGraph) else G
    if G.number_of_nodes() + G.number_of_edges() < SMALL:
        return "small graph: NetworkX is as fast"
    return True


def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False, preserve_node_attrs=False,
                    preserve_graph_attrs=False, name=None, graph_name=None):
    """The backend's graph: the NetworkX graph, its CSR forms made on first use per weight."""
    return NetmclGraph(G)


def convert_to_nx(obj, *, name=None):
    """Results are NetworkX's types already; a backend graph gives back its NetworkX graph."""
    return obj.G if isinstance(obj, NetmclGraph) else obj


class _Interface:
    """The object of the ``networkx.backends`` entry point."""

    def __init__(self):
        g = globals()
        for fname in FUNCTIONS + ("can_run", "should_run", "convert_from_nx", "convert_to_nx"):
            setattr(self, fname, g[fname])


backend_interface = _Interface()
