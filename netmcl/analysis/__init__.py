"""How good is a clustering, how far apart are two, and which known complexes does it recover.

Three families of measures, each usable on a :class:`~netmcl.Clustering`, a
list of clusters (lists of node labels), a dict ``label -> cluster`` or an
``igraph.VertexClustering``:

* **One clustering of a graph** -- :func:`quality` gives the figures of
  ``clm info`` (efficiency, mass fraction, area fraction, modularity and the
  cluster size distribution), each also available on its own.
* **Two clusterings of the same nodes** -- :func:`compare` gives the
  split/join distance (``clm dist``'s default), the variation of information
  (``clm dist -mode vi``), the Mirkin metric (``-mode mk``), the Rand,
  adjusted Rand and Jaccard indices (``--index``), the normalised mutual
  information and the F-score used to compare HipMCL with mcl.
* **A clustering against complexes** -- :func:`compare_to_complexes` gives the
  sensitivity, positive predictive value, geometric accuracy and separation
  of Brohée & van Helden (2006) and the fraction of complexes matched.

Where ``clm`` has a measure, the figure here equals the one ``clm`` prints,
to the digits it prints.

References
----------
.. [1] S. van Dongen, "Performance criteria for graph clustering and Markov
   cluster experiments", CWI report INS-R0012 (2000).
.. [2] S. Brohée and J. van Helden, "Evaluation of clustering algorithms for
   protein-protein interaction networks", BMC Bioinformatics 7:488 (2006).
.. [3] A. Azad et al., "HipMCL: a high-performance parallel implementation of
   the Markov clustering algorithm for large-scale networks", Nucleic Acids
   Research 46:e33 (2018).
"""

import collections.abc
import math
from typing import NamedTuple

import numpy as np

from ..sparse import distinct, indptr_of, spans
from ..adapters import as_clusters
from ..exceptions import NotAPartitionError, ParameterError

__all__ = [
    "quality",
    "efficiency",
    "mass_fraction",
    "area_fraction",
    "modularity",
    "size_distribution",
    "compare",
    "Distance",
    "split_join_distance",
    "variation_of_information",
    "mirkin_distance",
    "rand_index",
    "adjusted_rand_index",
    "jaccard_index",
    "normalized_mutual_information",
    "f_score",
    "compare_to_complexes",
]


# ---------------------------------------------------------------------------
# clusterings in, integer memberships out
# ---------------------------------------------------------------------------


def _membership(clusters, index, what):
    """Cluster number of every indexed label; every label exactly once."""
    member = np.full(len(index), -1, dtype=np.int64)
    for k, cluster in enumerate(clusters):
        for label in cluster:
            i = index.get(label)
            if i is None:
                raise ParameterError(f"Node {label!r} of cluster {k} of {what} is not a node of the graph.")
            if member[i] >= 0:
                raise NotAPartitionError(
                    f"Node {label!r} is in clusters {member[i]} and {k} of {what}; these measures need a "
                    "partition (cluster with overlap='cut' or 'split')."
                )
            member[i] = k
    missing = np.flatnonzero(member < 0)
    if missing.size:
        labels = list(index)
        raise NotAPartitionError(
            f"{missing.size} node(s) of the graph are in no cluster of {what}, for example "
            f"{labels[missing[0]]!r}; every node must be in one cluster (mcl puts each node in one)."
        )
    return member


def _graph_membership(G, clustering, weight):
    """The graph (loops as given) and each node's cluster number."""
    from ..adapters import to_sparse_graph
    from ..clustering import Clustering

    graph = to_sparse_graph(G, weight=weight)
    if isinstance(clustering, Clustering) and clustering.labels == graph.labels:
        if not clustering.is_partition():
            raise NotAPartitionError(
                "This clustering has overlap (overlap='keep'); these measures need a partition."
            )
        return graph, clustering.membership_array(), len(clustering)
    clusters = as_clusters(clustering)
    index = {label: i for i, label in enumerate(graph.labels)}
    return graph, _membership(clusters, index, "the clustering"), len(clusters)


# ---------------------------------------------------------------------------
# one clustering of a graph: clm info
# ---------------------------------------------------------------------------


def _with_max_loops(graph):
    """Rows, columns and weights of the arcs, every loop replaced by its column's largest other weight.

    This is how ``clm info`` prepares the graph, as mcl does (an empty column
    gets a loop of 1).
    """
    looped = graph.csc.with_max_loops()
    return looped.indices.astype(np.int64), looped.columns(), looped.data.astype(np.float64)


def _node_scores(graph, member, n_clusters):
    """Per node: (coverage, fraction of weight inside its cluster) as clm info computes them."""
    n = graph.n
    rows, cols, w = _with_max_loops(graph)
    inside = member[rows] == member[cols]
    sum_in = np.bincount(cols, weights=np.where(inside, w, 0.0), minlength=n)
    total = np.bincount(cols, weights=w, minlength=n)
    sum_sq = np.bincount(cols, weights=w * w, minlength=n)
    outside_count = np.bincount(cols, weights=~inside, minlength=n)
    size = np.bincount(member, minlength=n_clusters)[member].astype(np.float64)
    ok = total > 0
    safe = np.where(ok, total, 1.0)
    center = sum_sq / (safe * safe)
    lean = (2.0 * sum_in - total) / safe
    union = outside_count + size
    coverage = np.where(ok & (center > 0), 1.0 - (size - lean / np.where(center > 0, center, 1.0)) / union, 0.0)
    fraction = np.where(ok, sum_in / safe, 0.0)
    return coverage, fraction


def efficiency(G, clustering, *, weight="weight"):
    """The efficiency of a clustering: ``clm info``'s ``eff``.

    For each node ``v`` with edge weights ``w`` (plus a loop of its largest
    weight, as ``clm info`` adds one) and cluster ``C``, let ``s = sum(w)``,
    ``c = sum(w**2) / s**2`` (the weight *centre*), ``d = (inside - outside)
    / s`` where *inside* is the weight to nodes of ``C``, and ``J`` the number
    of nodes in ``C`` or adjacent to ``v``.  The node's coverage is
    ``1 - (|C| - d / c) / J``; the efficiency is the mean coverage over all
    nodes (van Dongen 2000).  It rewards clusters that capture the heavy edges
    of each node without including nodes it is not linked to; 1 is perfect.

    Parameters
    ----------
    G : graph
        NetworkX, igraph, SparseGraph, edges... (as :func:`netmcl.mcl`).
    clustering : Clustering, list of clusters, dict or VertexClustering
        A partition of the graph's nodes.
    weight : str, default "weight"
        Edge attribute with the weights.

    Returns
    -------
    float

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.barbell_graph(4, 0)
    >>> round(efficiency(G, [[0, 1, 2, 3], [4, 5, 6, 7]]), 5)
    0.95
    """
    graph, member, k = _graph_membership(G, clustering, weight)
    return float(_node_scores(graph, member, k)[0].mean()) if graph.n else 0.0


def mass_fraction(G, clustering, *, weight="weight"):
    """The mass fraction of a clustering: ``clm info``'s ``mf``.

    The mean over nodes of the share of a node's edge weight (its loop of
    maximal weight included, as ``clm info`` adds one) that goes to its own
    cluster.  Near 1: clusters capture almost all edge weight.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.barbell_graph(4, 0)
    >>> round(mass_fraction(G, [[0, 1, 2, 3], [4, 5, 6, 7]]), 5)
    0.95
    """
    graph, member, k = _graph_membership(G, clustering, weight)
    return float(_node_scores(graph, member, k)[1].mean()) if graph.n else 0.0


def area_fraction(clustering, n_nodes=None):
    """The area fraction: ``sum |C| (|C| - 1) / (N (N - 1))``, ``clm info``'s ``af``.

    The share of all node pairs that lie inside clusters: low for a fine
    clustering, 1 when everything is one cluster.

    Parameters
    ----------
    clustering : Clustering, list of clusters, dict or VertexClustering
    n_nodes : int, optional
        N; default: the number of nodes in the clusters.

    Notes
    -----
    When every cluster is a singleton the area fraction is 0; ``clm info``
    prints ``-1 / (N (N - 1))`` in that case (an internal sentinel).

    Examples
    --------
    >>> area_fraction([[0, 1, 2], [3]])
    0.5
    """
    sizes = np.array([len(c) for c in as_clusters(clustering)], dtype=np.float64)
    n = float(sizes.sum()) if n_nodes is None else float(n_nodes)
    return float((sizes * (sizes - 1)).sum() / (n * (n - 1))) if n > 1 else 0.0


def modularity(G, clustering, *, weight="weight"):
    """Newman's modularity of a partition, ``clm info``'s ``mod``.

    ``Q = sum over clusters C of [W(C) / W - (D(C) / W) ** 2]`` where ``W`` is
    twice the total edge weight, ``W(C)`` twice the weight inside ``C`` and
    ``D(C)`` the summed weighted degree of ``C``'s nodes.  Loops are left out,
    as ``clm info`` does; on a graph without loops this is
    ``networkx.community.modularity``.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.barbell_graph(4, 0)
    >>> round(modularity(G, [[0, 1, 2, 3], [4, 5, 6, 7]]), 5)
    0.42308
    """
    return _modularity(*_graph_membership(G, clustering, weight))


def _modularity(graph, member, k):
    m = graph.csc
    rows, cols = m.indices.astype(np.int64), m.columns()
    off = rows != cols
    rows, cols, w = rows[off], cols[off], m.data[off].astype(np.float64)
    total = w.sum()
    if total == 0:
        return 0.0
    inside = np.bincount(member[cols], weights=np.where(member[rows] == member[cols], w, 0.0), minlength=k)
    degree = np.bincount(member[cols], weights=w, minlength=k)
    return float((inside / total - (degree / total) ** 2).sum())


def size_distribution(clustering, n_nodes=None):
    """The cluster size figures of ``clm info`` (its second half).

    Parameters
    ----------
    clustering : Clustering, list of clusters, dict or VertexClustering
    n_nodes : int, optional
        Number of nodes; default: the nodes in the clusters.

    Returns
    -------
    dict
        ``n_clusters`` (clm: ``ncl``), ``max``, ``min``, ``avg`` (nodes per
        cluster), ``ctr`` (the size of the cluster of an average node,
        ``sum |C|**2 / sum |C|``), ``dgi`` (how many of the smallest clusters
        it takes to hold as many nodes as the largest), ``twi`` and ``twl``
        (walking from the largest cluster down, the number of clusters passed
        before half the nodes are covered, and the size of the cluster where
        that happens), ``singletons`` (clm: ``sgl``) and ``at_most_4``
        (clusters of 4 nodes or fewer, clm: ``qrt``).

    Examples
    --------
    >>> d = size_distribution([[1, 2, 3, 4, 5], [6, 7], [8], [9]])
    >>> d["max"], d["dgi"], d["twi"], d["twl"], d["singletons"], d["at_most_4"]
    (5, 4, 0, 5, 2, 3)
    """
    sizes = sorted((len(c) for c in as_clusters(clustering)), reverse=True)
    total = sum(sizes)
    n = total if n_nodes is None else int(n_nodes)
    k = len(sizes)
    out = {
        "n_clusters": k,
        "max": sizes[0] if sizes else 0,
        "min": sizes[-1] if sizes else 0,
        "avg": n / k if k else -1.0,
        "ctr": sum(s * s for s in sizes) / total if total else -1.0,
        "dgi": 0,
        "twi": 0,
        "twl": 0,
        "singletons": sum(1 for s in sizes if s <= 1),
        "at_most_4": sum(1 for s in sizes if s <= 4),
    }
    covered = 0
    dgi_found = twi_found = False
    for d in range(k - 1, -1, -1):  # smallest first
        covered += sizes[d]
        if not dgi_found and covered >= out["max"]:
            out["dgi"], dgi_found = k - d, True
        if not twi_found and covered >= (n + 1) // 2:
            out["twi"], out["twl"], twi_found = d, sizes[d], True
    return out


def quality(G, clustering, *, weight="weight"):
    """All figures ``clm info`` prints for one clustering of a graph.

    Parameters
    ----------
    G : graph
        Anything :func:`netmcl.mcl` takes.
    clustering : Clustering, list of clusters, dict or VertexClustering
        A partition of the graph's nodes.
    weight : str, default "weight"

    Returns
    -------
    dict
        ``efficiency``, ``modularity``, ``mass_fraction``, ``area_fraction``
        and the keys of :func:`size_distribution`.

    See Also
    --------
    efficiency, mass_fraction, area_fraction, modularity, size_distribution

    Notes
    -----
    The figures equal those ``clm info GRAPH CLUSTERING`` prints (``mcxload
    --stream-mirror`` of the same edges as GRAPH), with two quirks of clm
    22-282 not copied: given several clusterings in one call, clm computes
    the efficiency and mass fraction of the second and later ones without
    the loops it added for the first (run it once per clustering to get
    these figures), and for an all-singleton clustering it prints an area
    fraction of ``-1 / (N (N - 1))`` instead of 0.

    Examples
    --------
    >>> import networkx as nx
    >>> import netmcl
    >>> G = nx.barbell_graph(4, 0)
    >>> q = quality(G, netmcl.mcl(G))
    >>> round(q["efficiency"], 5), round(q["modularity"], 5), q["n_clusters"]
    (0.95, 0.42308, 2)
    """
    graph, member, k = _graph_membership(G, clustering, weight)
    clusters = [np.flatnonzero(member == c) for c in range(k)]
    coverage, fraction = _node_scores(graph, member, k)
    out = {
        "efficiency": float(coverage.mean()) if graph.n else 0.0,
        "modularity": _modularity(graph, member, k),
        "mass_fraction": float(fraction.mean()) if graph.n else 0.0,
        "area_fraction": area_fraction(clusters, graph.n),
    }
    out.update(size_distribution(clusters, graph.n))
    return out


# ---------------------------------------------------------------------------
# two clusterings: clm dist
# ---------------------------------------------------------------------------


class Distance(NamedTuple):
    """A distance between clusterings A and B, split as ``clm dist`` prints it.

    Attributes
    ----------
    total : float
        The distance ``d = d1 + d2``.
    d1 : float
        The distance from A to the meet of A and B (the coarsest clustering
        that refines both): 0 when A is a subclustering of B, that is when
        B only joins clusters of A.
    d2 : float
        The distance from B to the meet: 0 when B is a subclustering of A.
    """

    total: float
    d1: float
    d2: float


class _Table(NamedTuple):
    """The non-zero cells of a table of counts, row after row, columns ascending."""

    row: np.ndarray
    col: np.ndarray
    count: np.ndarray


def _count_pairs(rows, cols, n_cols):
    """The table counting how often each (row, column) pair occurs in `rows`, `cols`."""
    codes, counts = distinct(np.asarray(rows, dtype=np.int64) * n_cols + cols, counts=True)
    return _Table(codes // n_cols, codes % n_cols, counts.astype(np.float64))


def _max_by(index, values, size):
    """The largest of `values` at each of ``0 .. size - 1`` of `index` (0 where none)."""
    out = np.zeros(size)
    np.maximum.at(out, index, values)
    return out


def _joined(left, left_node, right_node, right, n_nodes):
    """The pairs (``left[s]``, ``right[t]``) of the memberships s and t that
    name the same node (``left_node[s] == right_node[t]``), s ascending."""
    right_node, left_node = np.asarray(right_node, dtype=np.int64), np.asarray(left_node, dtype=np.int64)
    by_node = np.asarray(right, dtype=np.int64)[np.argsort(right_node, kind="stable")]
    indptr = indptr_of(right_node, n_nodes)  # node v's right memberships: by_node[indptr[v]:indptr[v + 1]]
    reps = np.diff(indptr)[left_node]
    return np.repeat(np.asarray(left, dtype=np.int64), reps), by_node[spans(indptr[left_node], reps)]


def _contingency(a, b):
    """Contingency table of two partitions of the same nodes (a :class:`_Table`), and the cluster sizes."""
    ca, cb = as_clusters(a), as_clusters(b)
    index = {}
    for cluster in ca:
        for label in cluster:
            index.setdefault(label, len(index))
    ma = _membership(ca, index, "the first clustering")
    try:
        mb = _membership(cb, index, "the second clustering")
    except ParameterError:
        nodes_b = {label for cluster in cb for label in cluster}
        extra = next(label for label in nodes_b if label not in index)
        raise ParameterError(
            f"Both clusterings must cover the same nodes; {extra!r} is only in the second "
            f"({len(index)} nodes in the first, {len(nodes_b)} in the second)."
        ) from None
    except NotAPartitionError as exc:
        if "in no cluster" not in str(exc):
            raise
        raise ParameterError(
            "Both clusterings must cover the same nodes; the second leaves out "
            f"{int(len(index) - sum(len(c) for c in cb))} node(s) of the first."
        ) from None
    table = _count_pairs(ma, mb, len(cb))
    sizes_a = np.bincount(ma, minlength=len(ca)).astype(np.float64)
    sizes_b = np.bincount(mb, minlength=len(cb)).astype(np.float64)
    return table, sizes_a, sizes_b


def split_join_distance(a, b):
    """The split/join distance between two partitions, ``clm dist``'s default.

    ``d1`` is the number of nodes that must be moved out of A's clusters to
    reach the meet of A and B: ``N - sum over clusters of A of the largest
    overlap with a cluster of B``; ``d2`` likewise for B.  ``d1 + d2`` nodes
    must be exchanged to turn one clustering into the other (van Dongen
    2000).

    Parameters
    ----------
    a, b : Clustering, list of clusters, dict or VertexClustering
        Partitions of the same nodes.

    Returns
    -------
    Distance
        ``(total, d1, d2)``, integers.

    Examples
    --------
    >>> split_join_distance([[1, 2, 3, 4], [5, 6]], [[1, 2], [3, 4], [5, 6]])
    Distance(total=2, d1=2, d2=0)
    """
    table, sizes_a, sizes_b = _contingency(a, b)
    n = int(sizes_a.sum())
    d1 = n - int(_max_by(table.row, table.count, sizes_a.size).sum())
    d2 = n - int(_max_by(table.col, table.count, sizes_b.size).sum())
    return Distance(d1 + d2, d1, d2)


def _plogp(x):
    x = np.asarray(x, dtype=np.float64)
    x = x[x > 0]
    return float((x * np.log(x)).sum())


def variation_of_information(a, b):
    """The variation of information between two partitions (natural log), ``clm dist -mode vi``.

    ``d1 = H(B | A)`` and ``d2 = H(A | B)``, the conditional entropies of
    the cluster of a random node; ``VI = d1 + d2`` (Meila 2003).

    Returns
    -------
    Distance
        ``(total, d1, d2)`` in nats.

    Examples
    --------
    >>> vi = variation_of_information([[1, 2, 3, 4]], [[1, 2], [3, 4]])
    >>> round(vi.total, 4), round(vi.d1, 4), vi.d2
    (0.6931, 0.6931, 0.0)
    """
    table, sizes_a, sizes_b = _contingency(a, b)
    n = float(sizes_a.sum())
    if n == 0:
        return Distance(0.0, 0.0, 0.0)
    joint = _plogp(table.count)
    d1 = max((_plogp(sizes_a) - joint) / n, 0.0)
    d2 = max((_plogp(sizes_b) - joint) / n, 0.0)
    return Distance(d1 + d2, d1, d2)


def mirkin_distance(a, b):
    """The Mirkin metric between two partitions, ``clm dist -mode mk``.

    ``d1 = sum |A_i|**2 - sum |A_i & B_j|**2`` and likewise ``d2``; the
    total counts the ordered node pairs that are together in one clustering
    and apart in the other.

    Returns
    -------
    Distance
        ``(total, d1, d2)``, integers.

    Examples
    --------
    >>> mirkin_distance([[1, 2, 3, 4]], [[1, 2], [3, 4]])
    Distance(total=8, d1=8, d2=0)
    """
    table, sizes_a, sizes_b = _contingency(a, b)
    meet = float((table.count**2).sum())
    d1 = round(float((sizes_a**2).sum()) - meet)
    d2 = round(float((sizes_b**2).sum()) - meet)
    return Distance(d1 + d2, d1, d2)


def _pair_counts(a, b):
    table, sizes_a, sizes_b = _contingency(a, b)
    n = sizes_a.sum()

    def pairs(x):
        x = np.asarray(x, dtype=np.float64)
        return float((x * (x - 1) / 2).sum())

    return pairs(sizes_a), pairs(sizes_b), pairs(table.count), float(n * (n - 1) / 2)


def rand_index(a, b):
    """The Rand index: the share of node pairs on which two partitions agree.

    Equals ``clm dist --index``'s ``rand``.

    Examples
    --------
    >>> round(rand_index([[1, 2, 3, 4]], [[1, 2], [3, 4]]), 5)
    0.33333
    """
    pa, pb, pm, total = _pair_counts(a, b)
    return (total - pa - pb + 2 * pm) / total if total else 1.0


def adjusted_rand_index(a, b):
    """The Rand index corrected for chance (Hubert & Arabie 1985), ``clm dist --index``'s ``arand``.

    1 for identical partitions, about 0 for unrelated ones.  When both
    partitions put all nodes in one cluster the formula is 0/0: ``clm``
    prints ``nan``, netmcl returns 1 (the partitions are identical).

    Examples
    --------
    >>> adjusted_rand_index([[1, 2], [3, 4]], [[1, 2], [3, 4]])
    1.0
    """
    pa, pb, pm, total = _pair_counts(a, b)
    if not total:
        return 1.0
    expected = pa * pb / total
    denominator = 0.5 * (pa + pb) - expected
    return (pm - expected) / denominator if denominator else 1.0


def jaccard_index(a, b):
    """The Jaccard index of the node pairs clustered together, ``clm dist --index``'s ``jaccard``.

    Examples
    --------
    >>> round(jaccard_index([[1, 2, 3, 4]], [[1, 2], [3, 4]]), 5)
    0.33333
    """
    pa, pb, pm, _ = _pair_counts(a, b)
    union = pa + pb - pm
    return pm / union if union else 1.0


def normalized_mutual_information(a, b):
    """Mutual information of two partitions divided by the mean of their entropies.

    ``NMI = 2 I(A; B) / (H(A) + H(B))`` (Danon et al. 2005; igraph's
    ``compare_communities(method="nmi")``); 1 when the partitions are equal,
    and 1 by convention when both are a single cluster.

    Examples
    --------
    >>> round(normalized_mutual_information([[1, 2, 3, 4]], [[1, 2], [3, 4]]), 5)
    0.0
    """
    table, sizes_a, sizes_b = _contingency(a, b)
    n = float(sizes_a.sum())
    if n == 0:
        return 1.0
    h_a = math.log(n) - _plogp(sizes_a) / n
    h_b = math.log(n) - _plogp(sizes_b) / n
    if h_a + h_b <= 0:
        return 1.0
    mutual = h_a + h_b - (math.log(n) - _plogp(table.count) / n)
    return max(0.0, 2.0 * mutual / (h_a + h_b))


def f_score(reference, clustering):
    """The F-score of a clustering against a reference clustering (HipMCL's check against mcl).

    For a reference cluster ``R`` and a cluster ``C``, precision is the share
    of ``C``'s nodes that are in ``R``, recall the share of ``R``'s nodes that
    are in ``C``, and ``F(R, C)`` their harmonic mean.  The F-score is the
    mean over reference clusters, weighted by their size, of the best
    ``F(R, C)``:  ``sum_R |R| / N * max_C F(R, C)``.  1 means every reference
    cluster is found exactly.  Azad et al. (2018) use it to show that HipMCL
    reproduces mcl's clusters.

    Parameters
    ----------
    reference, clustering : Clustering, list of clusters, dict or VertexClustering
        Partitions of the same nodes (e.g. mcl's clusters and netmcl's).

    Examples
    --------
    >>> round(f_score([[1, 2, 3, 4]], [[1, 2], [3, 4]]), 5)
    0.66667
    """
    table, sizes_r, sizes_c = _contingency(reference, clustering)
    f = 2.0 * table.count / (sizes_r[table.row] + sizes_c[table.col])
    best = _max_by(table.row, f, sizes_r.size)
    n = float(sizes_r.sum())
    return float((sizes_r * best).sum() / n) if n else 1.0


def compare(a, b):
    """Every distance and agreement index between two partitions of the same nodes.

    Parameters
    ----------
    a, b : Clustering, list of clusters, dict or VertexClustering

    Returns
    -------
    dict
        ``n_nodes``, ``n_clusters_a``, ``n_clusters_b``; ``split_join``,
        ``variation_of_information`` and ``mirkin`` as :class:`Distance`;
        ``rand``, ``adjusted_rand``, ``jaccard``, ``nmi`` and ``f_score``
        (with ``a`` as the reference).

    Examples
    --------
    >>> c = compare([[1, 2, 3], [4, 5]], [[1, 2, 3], [4], [5]])
    >>> c["split_join"], round(c["adjusted_rand"], 4)
    (Distance(total=1, d1=1, d2=0), 0.7826)
    """
    ca, cb = as_clusters(a), as_clusters(b)
    return {
        "n_nodes": sum(len(c) for c in ca),
        "n_clusters_a": len(ca),
        "n_clusters_b": len(cb),
        "split_join": split_join_distance(ca, cb),
        "variation_of_information": variation_of_information(ca, cb),
        "mirkin": mirkin_distance(ca, cb),
        "rand": rand_index(ca, cb),
        "adjusted_rand": adjusted_rand_index(ca, cb),
        "jaccard": jaccard_index(ca, cb),
        "nmi": normalized_mutual_information(ca, cb),
        "f_score": f_score(ca, cb),
    }


# ---------------------------------------------------------------------------
# a clustering against known complexes
# ---------------------------------------------------------------------------


def compare_to_complexes(clustering, complexes, *, overlap_threshold=0.25, min_size=3):
    """How well a clustering recovers known protein complexes.

    Complexes are first restricted to the proteins that were clustered
    (complexes left empty are dropped); a protein may be in several
    complexes.  With ``T[i, j]`` the number of proteins complex ``i`` shares
    with cluster ``j`` and ``N[i]`` the size of complex ``i``, the measures
    of Brohée & van Helden (2006) are:

    * **sensitivity** ``Sn = sum_i max_j T[i, j] / sum_i N[i]`` -- how
      completely the best cluster of each complex covers it (complex-wise
      ``max_j T[i, j] / N[i]``, averaged with weights ``N[i]``);
    * **positive predictive value** ``PPV = sum_j max_i T[i, j] / sum_j
      T[., j]`` with ``T[., j] = sum_i T[i, j]`` -- how much of each cluster's
      complex proteins fall in its best complex;
    * **geometric accuracy** ``Acc = sqrt(Sn * PPV)``;
    * **separation**: with ``F_col[i, j] = T[i, j] / T[., j]`` and
      ``F_row[i, j] = T[i, j] / T[i, .]``, ``Sep[i, j] = F_col * F_row``;
      complex-wise separation ``Sep_co`` is the mean over complexes of
      ``sum_j Sep[i, j]``, cluster-wise ``Sep_cl`` the mean over clusters of
      ``sum_i Sep[i, j]``, and ``Sep = sqrt(Sep_co * Sep_cl)``.  1 means a
      one-to-one correspondence.  Clusters made only of proteins that are in
      no complex tell nothing about complexes and are left out of ``Sep_cl``
      (the paper's test graphs contain complex proteins only).

    A complex is **matched** by a cluster when their overlap score
    ``|A & B| ** 2 / (|A| |B|)`` is at least `overlap_threshold` (0.25, the
    threshold used by ClusterONE and PC2P; Bader & Hogue's MCODE used 0.2).
    Only clusters and (restricted) complexes of at least `min_size` members
    take part in matching, since any protein pair trivially "matches" a
    large share of a 2-protein complex.

    Parameters
    ----------
    clustering : Clustering, list of clusters, dict or VertexClustering
        The clusters (a partition; overlap is allowed too).
    complexes : iterable of iterables of labels, or mapping name -> labels
        The gold standard, e.g. :func:`netmcl.datasets.load_cyc2008` (a
        mapping's names are not used here; pictures and views name clusters
        by them).
    overlap_threshold : float, default 0.25
    min_size : int, default 3

    Returns
    -------
    dict
        ``sensitivity``, ``ppv``, ``accuracy``, ``separation``,
        ``separation_complex``, ``separation_cluster``,
        ``fraction_matched`` (share of complexes of at least `min_size`
        matched by some cluster), ``fraction_clusters_matched`` (share of
        clusters of at least `min_size` matching some complex),
        ``n_complexes`` (after restriction) and ``n_matched``.

    Examples
    --------
    >>> clusters = [["a", "b", "c"], ["d", "e", "f"], ["g"]]
    >>> complexes = [["a", "b", "c"], ["d", "e", "x"], ["f", "g"]]
    >>> m = compare_to_complexes(clusters, complexes)
    >>> round(m["sensitivity"], 4), round(m["ppv"], 4), m["fraction_matched"]
    (0.8571, 0.8571, 1.0)
    """
    clusters = as_clusters(clustering)
    if not 0 < overlap_threshold <= 1:
        raise ParameterError(
            f"The 'overlap_threshold' parameter must be in (0, 1]. Got {overlap_threshold!r} instead."
        )
    index = {}
    for cluster in clusters:
        for label in cluster:
            index.setdefault(label, len(index))
    if isinstance(complexes, collections.abc.Mapping):
        complexes = complexes.values()
    rows, cols, sizes = [], [], []
    for cx in complexes:
        members = sorted({index[p] for p in cx if p in index})
        if members:
            rows.extend([len(sizes)] * len(members))
            cols.extend(members)
            sizes.append(len(members))
    n_complexes = len(sizes)
    if not n_complexes:
        raise ParameterError(
            "None of the complexes shares a protein with the clustering; check that both use the "
            "same identifiers (e.g. ORF names vs gene names, STRING ids with the taxon prefix)."
        )
    crow, ccol = [], []
    for j, cluster in enumerate(clusters):
        members = {index[label] for label in cluster}
        crow.extend(members)
        ccol.extend([j] * len(members))
    cluster_sizes = np.bincount(np.asarray(ccol, dtype=np.int64), minlength=len(clusters)).astype(np.float64)
    # T[i, j]: the proteins complex i shares with cluster j, a (complex, cluster) pair per protein in both
    T = _count_pairs(*_joined(rows, cols, crow, ccol, len(index)), len(clusters))
    t, ti, tj = T.count, T.row, T.col
    N = np.asarray(sizes, dtype=np.float64)
    row_sums = np.bincount(ti, weights=t, minlength=n_complexes)
    col_sums = np.bincount(tj, weights=t, minlength=len(clusters))
    row_max = _max_by(ti, t, n_complexes)
    col_max = _max_by(tj, t, len(clusters))

    sensitivity = float(row_max.sum() / N.sum())
    hit = col_sums > 0
    ppv = float(col_max.sum() / col_sums.sum()) if hit.any() else 0.0
    sep = (t / col_sums[tj]) * (t / row_sums[ti])
    sep_co = float(np.bincount(ti, weights=sep, minlength=n_complexes).mean())
    sep_cl = float(np.bincount(tj, weights=sep, minlength=len(clusters))[hit].mean()) if hit.any() else 0.0

    score = t**2 / (N[ti] * cluster_sizes[tj])
    matching = (score >= overlap_threshold) & (N[ti] >= min_size) & (cluster_sizes[tj] >= min_size)
    n_matched = int(np.unique(ti[matching]).size)
    n_big_complexes = int((N >= min_size).sum())
    n_big_clusters = int((cluster_sizes >= min_size).sum())
    return {
        "sensitivity": sensitivity,
        "ppv": ppv,
        "accuracy": math.sqrt(sensitivity * ppv),
        "separation": math.sqrt(sep_co * sep_cl),
        "separation_complex": sep_co,
        "separation_cluster": sep_cl,
        "fraction_matched": n_matched / n_big_complexes if n_big_complexes else 0.0,
        "fraction_clusters_matched": (
            np.unique(tj[matching]).size / n_big_clusters if n_big_clusters else 0.0
        ),
        "n_complexes": n_complexes,
        "n_matched": n_matched,
    }
