"""Results of the traversals, keyed by the user's node labels."""

import numpy as np

from ..exceptions import ParameterError

__all__ = ["Paths", "Components"]


class Paths:
    """Distances from one or more sources, and shortest-path trees on demand.

    Attributes
    ----------
    sources : list
        The sources' labels, one row of :attr:`matrix` each.
    labels : list
        Node labels in id order (the columns of :attr:`matrix`).
    matrix : ndarray, shape (len(sources), n)
        Hop counts (int32, -1 where unreachable) from :func:`~netmcl.traversal.bfs`,
        or distances (float64, inf where unreachable) from
        :func:`~netmcl.traversal.shortest_paths`.

    Examples
    --------
    >>> import networkx as nx
    >>> from netmcl.traversal import bfs
    >>> r = bfs(nx.path_graph(["a", "b", "c"]), "a")
    >>> r["a"], r.path("a", "c")
    ({'a': 0, 'b': 1, 'c': 2}, ['a', 'b', 'c'])
    """

    def __init__(self, net, source_ids, matrix, weighted):
        self._net = net
        self._ids = np.asarray(source_ids, dtype=np.int64)
        self.matrix = matrix
        self.weighted = weighted
        self._pred = {}

    @property
    def labels(self):
        return self._net.labels

    @property
    def sources(self):
        return [self._net.labels[i] for i in self._ids]

    def __len__(self):
        return len(self._ids)

    def __iter__(self):
        return iter(self.sources)

    def _row(self, source):
        hits = np.flatnonzero(self._ids == self._net.ids(source)[0])
        if not hits.size:
            raise ParameterError(f"{source!r} is not one of the sources of this result.")
        return int(hits[0])

    def row(self, source):
        """The row of `source` as an array indexed by node id."""
        return self.matrix[self._row(source)]

    def __getitem__(self, source):
        """``{node: distance}`` for the nodes reachable from `source` (NetworkX's ``*_path_length``)."""
        row = self.row(source)
        reached = np.flatnonzero(row >= 0) if not self.weighted else np.flatnonzero(np.isfinite(row))
        reached = reached[np.argsort(row[reached], kind="stable")]
        labels = self._net.labels
        values = row[reached].tolist()
        return {labels[v]: d for v, d in zip(reached.tolist(), values)}

    def predecessor_ids(self, source):
        """Each node's parent in the shortest-path tree of `source`, by node id (-1: the source, unreachable).

        The parent is the smallest-id node one step nearer, so every engine gives the same tree.
        """
        r = self._row(source)
        if r not in self._pred:
            from . import _cpu

            net = self._net
            rp, ri, rw = net.reverse()
            pred = np.empty((1, net.n), dtype=np.int32)
            if self.weighted:
                _cpu.tight_predecessors(net.indptr, net.indices, net.weights, rp, ri, rw, int(self._ids[r]),
                                        self.matrix[r], pred[0])
            else:
                _cpu.bfs_predecessors(rp, ri, self.matrix[r:r + 1], pred)
            self._pred[r] = pred[0]
        return self._pred[r]

    def predecessors(self, source):
        """``{node: parent}`` for the nodes reachable from `source` (the source itself excluded)."""
        pred = self.predecessor_ids(source)
        labels = self._net.labels
        return {labels[v]: labels[p] for v, p in enumerate(pred.tolist()) if p >= 0}

    def path(self, source, target):
        """A shortest path from `source` to `target` as a list of labels.

        Raises
        ------
        ParameterError
            When `target` cannot be reached from `source`.
        """
        t = int(self._net.ids(target, "Target")[0])
        pred = self.predecessor_ids(source)
        s = int(self._net.ids(source)[0])
        if t != s and pred[t] < 0:
            raise ParameterError(f"{target!r} cannot be reached from {source!r}.")
        out = [t]
        while out[-1] != s:
            out.append(int(pred[out[-1]]))
        labels = self._net.labels
        return [labels[v] for v in reversed(out)]

    def to_pandas(self):
        """The matrix as a ``pandas.DataFrame`` (index: sources, columns: node labels)."""
        from ..adapters.pandas import require_pandas

        return require_pandas().DataFrame(self.matrix, index=self.sources, columns=list(self._net.labels))

    def __repr__(self):
        kind = "distances" if self.weighted else "hop counts"
        return f"<Paths: {kind} from {len(self)} sources to {self.matrix.shape[1]} nodes>"


class Components:
    """A partition of the nodes into components, numbered by their smallest node.

    The component of node id 0 is 0, the component of the smallest node not
    in it is 1, and so on, whatever the engine.

    Attributes
    ----------
    ids : int32 ndarray
        The component of each node, by node id (aligned with :attr:`labels`).
    labels : list
        Node labels in id order.

    Examples
    --------
    >>> from netmcl.traversal import connected_components
    >>> c = connected_components([("b", "a"), ("c", "d")])
    >>> len(c), c["a"], c.membership, c.components
    (2, 0, {'b': 0, 'a': 0, 'c': 1, 'd': 1}, [['b', 'a'], ['c', 'd']])
    """

    def __init__(self, net, ids):
        self._net = net
        self.ids = np.asarray(ids, dtype=np.int32)
        self._index = None

    @property
    def labels(self):
        return self._net.labels

    def __len__(self):
        return int(self.ids.max()) + 1 if self.ids.size else 0

    @property
    def sizes(self):
        """Number of nodes of each component (int64 array)."""
        return np.bincount(self.ids, minlength=len(self))

    @property
    def membership(self):
        """``{node: component}`` in node order."""
        return dict(zip(self._net.labels, self.ids.tolist()))

    def __getitem__(self, node):
        return int(self.ids[self._net.ids(node, "Node")[0]])

    @property
    def components(self):
        """Each component as a list of node labels (in node order), in component order."""
        order = np.argsort(self.ids, kind="stable")
        bounds = np.cumsum(self.sizes)[:-1]
        labels = self._net.labels
        return [[labels[v] for v in part.tolist()] for part in np.split(order, bounds)] if self.ids.size else []

    def __iter__(self):
        return iter(self.components)

    def __repr__(self):
        return f"<Components: {len(self)} components of {self.ids.size} nodes>"
