"""The result of a clustering: clusters of node labels in mcl's order."""

from collections.abc import Sequence

import numpy as np

from .exceptions import NotAPartitionError

__all__ = ["Clustering"]


class Clustering(Sequence):
    """Clusters of a graph's nodes, in mcl's order, with how they were found.

    A :class:`Clustering` is a sequence of clusters; each cluster is a list
    of node labels in node order (for an mcl label file: first appearance).
    Cluster ``0`` is the first line of mcl's output.

    Parameters
    ----------
    index_clusters : list of numpy.ndarray
        Each cluster as sorted node indices.
    labels : list
        Node labels by index.
    n_iterations : int, optional
        MCL iterations run.
    converged : bool, optional
        Whether the chaos fell below 1e-4 before the iteration cap.
    chaos : list of float, optional
        Chaos after each iteration.
    params : MclParams, optional
        The parameters of the run.
    stats : list of IterationStats, optional
        Per-iteration measurements.

    Examples
    --------
    >>> import networkx as nx
    >>> import netmcl
    >>> G = nx.barbell_graph(4, 0)
    >>> cl = netmcl.mcl(G)
    >>> list(cl)
    [[0, 1, 2, 3], [4, 5, 6, 7]]
    >>> cl.membership[5], cl.sizes
    (1, [4, 4])
    """

    def __init__(self, index_clusters, labels, *, n_iterations=0, converged=True, chaos=(), params=None, stats=()):
        self.index_clusters = [np.asarray(c, dtype=np.int64) for c in index_clusters]
        self.labels = list(labels)
        self.n_iterations = n_iterations
        self.converged = converged
        self.chaos = list(chaos)
        self.params = params
        self.stats = list(stats)

    def __len__(self):
        return len(self.index_clusters)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        return [self.labels[k] for k in self.index_clusters[i].tolist()]

    def __repr__(self):
        return (
            f"<Clustering: {len(self)} clusters of {len(self.labels)} nodes, "
            f"largest {max(self.sizes, default=0)}, {self.n_iterations} iterations>"
        )

    @property
    def clusters(self):
        """All clusters as lists of labels."""
        return [self[i] for i in range(len(self))]

    @property
    def sizes(self):
        """Cluster sizes, in cluster order."""
        return [int(c.size) for c in self.index_clusters]

    @property
    def n_nodes(self):
        """Number of nodes of the clustered graph."""
        return len(self.labels)

    @property
    def overlap(self):
        """Number of extra memberships (0 for a partition)."""
        return sum(self.sizes) - len({int(v) for c in self.index_clusters for v in c}) if self.index_clusters else 0

    def is_partition(self):
        """True when every node is in exactly one cluster."""
        total = sum(self.sizes)
        if total != self.n_nodes:
            return False
        seen = np.zeros(self.n_nodes, dtype=bool)
        for c in self.index_clusters:
            seen[c] = True
        return bool(seen.all())

    def membership_array(self):
        """Cluster number of each node, by node index (first cluster if in several).

        Examples
        --------
        >>> Clustering([[1, 2], [0]], ["a", "b", "c"]).membership_array().tolist()
        [1, 0, 0]
        """
        out = np.full(self.n_nodes, -1, dtype=np.int64)
        for k in range(len(self.index_clusters) - 1, -1, -1):
            out[self.index_clusters[k]] = k
        return out

    @property
    def membership(self):
        """Dict node label -> cluster number (the first cluster for a node in several)."""
        return dict(zip(self.labels, self.membership_array().tolist()))

    def memberships(self):
        """Dict node label -> list of all its cluster numbers (for overlap='keep')."""
        out = {lab: [] for lab in self.labels}
        for k, c in enumerate(self.index_clusters):
            for v in c.tolist():
                out[self.labels[v]].append(k)
        return out

    def partition(self):
        """The clusters as a list of sets (NetworkX's community convention).

        Raises
        ------
        NotAPartitionError
            If a node is in several clusters or in none.
        """
        if not self.is_partition():
            raise NotAPartitionError(
                "This clustering has overlap (it was made with overlap='keep'); "
                "use overlap='cut' or 'split' to get a partition."
            )
        return [set(c) for c in self.clusters]

    def summary(self):
        """A few lines describing the clustering.

        Examples
        --------
        >>> print(Clustering([[0, 1], [2]], ["a", "b", "c"], n_iterations=3).summary().splitlines()[0])
        2 clusters of 3 nodes after 3 iterations (converged)
        """
        sizes = self.sizes
        state = "converged" if self.converged else "NOT converged"
        lines = [f"{len(self)} clusters of {self.n_nodes} nodes after {self.n_iterations} iterations ({state})"]
        if sizes:
            singletons = sum(1 for s in sizes if s == 1)
            lines.append(
                f"sizes: largest {max(sizes)}, "
                f"median {int(np.median(sizes))}, singletons {singletons}"
            )
        return "\n".join(lines)

    def plot_sizes(self, *, ax=None, **kwargs):
        """Plot the cluster size distribution (log-log); see :func:`netmcl.plot.plot_sizes`.

        Returns
        -------
        matplotlib.axes.Axes

        Examples
        --------
        >>> Clustering([[0, 1, 2], [3]], list("abcd")).plot_sizes().get_xlabel()
        'cluster size (nodes)'
        """
        from .viz.plot import plot_sizes

        return plot_sizes(self, ax=ax, **kwargs)

    def to_frame(self, G=None, *, attributes=None, label_attribute=None):
        """The clusters as a pandas DataFrame ``node, cluster, <node attributes of G>``.

        See :func:`netmcl.io.tables.to_frame` (needs pandas).

        Examples
        --------
        >>> Clustering([[0, 2], [1]], ["a", "b", "c"]).to_frame()
          node  cluster
        0    a        0
        1    c        0
        2    b        1
        """
        from .io.tables import to_frame

        return to_frame(self, G, attributes=attributes, label_attribute=label_attribute)

    def to_r(self, G=None, *, nodes=None, attributes=None, label_attribute=None, palette=None):
        """The clustering as plain lists and dicts that R (reticulate) receives as R objects.

        See :func:`netmcl.io.r.to_r`: ``table`` (R: ``as.data.frame``),
        ``membership`` in the order of `nodes`, ``clusters``, ``colors``.

        Examples
        --------
        >>> r = Clustering([[0, 2], [1]], ["a", "b", "c"]).to_r()
        >>> r["table"], r["membership"]
        ({'node': ['a', 'c', 'b'], 'cluster': [0, 0, 1]}, [0, 1, 0])
        """
        from .io.r import to_r

        return to_r(self, G, nodes=nodes, attributes=attributes, label_attribute=label_attribute, palette=palette)

    def to_dict(self):
        """Plain-Python form: clusters, iterations, chaos and parameters."""
        return {
            "clusters": self.clusters,
            "n_iterations": self.n_iterations,
            "converged": self.converged,
            "chaos": self.chaos,
            "params": None if self.params is None else self.params.to_dict(),
        }
