"""Turn an MCL limit matrix into clusters, exactly as mcl 22-282 does.

The steps (mcl-spec.md d.5): keep in each column the entries near its maximum
(the attractor DAG), renormalise and drop small entries, find the attractors
(nodes with a loop in the DAG) and group them into attractor systems, give
every other node the clusters of the attractors it reaches, then resolve
overlap (cut, keep or split) and sort the clusters.
"""

import numpy as np

from .sparse import CscMatrix, distinct, indptr_of, normalize_columns, spans, weak_components

__all__ = ["interpret", "resolve", "sort_clusters", "OVERLAP_MODES", "SORT_MODES"]

OVERLAP_MODES = ("cut", "keep", "split")
SORT_MODES = ("revsize", "size", "lex", "none")


#: entries of the limit examined at a time by :func:`_attractor_dag`: a run stopped
#: early (``-L``) leaves an iterand of up to billions of entries, and the
#: float64 and int64 temporaries of all of them at once took 5.8x the iterand's
#: own memory (5.6 GB after one iteration of the 200k-node generated graph)
DAG_BLOCK = 1 << 20


def _column_blocks(indptr, block):
    """Consecutive column ranges ``(c0, c1)`` of at most `block` entries (or one column)."""
    n = indptr.size - 1
    c0 = 0
    while c0 < n:
        c1 = int(np.searchsorted(indptr, indptr[c0] + block, side="right")) - 1
        c1 = min(max(c1, c0 + 1), n)
        yield c0, c1
        c0 = c1


def _attractor_dag(limit):
    """Entries of each column close to its maximum or to its diagonal value,
    found :data:`DAG_BLOCK` entries at a time."""
    L = CscMatrix.of(limit)
    n = L.shape[0]
    parts = [(np.zeros(0, dtype=np.int64), L.indices[:0], L.data[:0])]  # (columns, rows, values) kept
    for c0, c1 in _column_blocks(L.indptr, DAG_BLOCK):
        p0, p1 = L.indptr[c0], L.indptr[c1]
        rows, vals = L.indices[p0:p1], L.data[p0:p1].astype(np.float64)
        at = np.repeat(np.arange(c1 - c0), np.diff(L.indptr[c0 : c1 + 1]))  # column - c0 of every entry
        colmax = np.zeros(c1 - c0)
        np.maximum.at(colmax, at, vals)
        diag = np.zeros(c1 - c0)
        on = rows == at + c0
        diag[at[on]] = vals[on]
        bar = np.where(diag < colmax, 0.999 * diag + 0.001 * colmax, diag / 1.01)
        keep = vals >= bar[at]
        parts.append((at[keep] + c0, rows[keep], L.data[p0:p1][keep]))
    cols, rows, data = (np.concatenate(part) for part in zip(*parts))
    indptr = indptr_of(cols, n)
    # the clean-up mcl applies after the DAG: normalise, drop entries < 1/(k+1)
    normalize_columns(indptr, data)
    keep2 = data.astype(np.float64) >= 1.0 / (np.diff(indptr)[cols] + 1.0)
    kept = rows[keep2]
    return CscMatrix(indptr_of(cols[keep2], n), kept, np.ones(kept.size, dtype=np.float32), n)


def interpret(limit, *, overlap="cut"):
    """Clusters of an MCL limit matrix.

    Parameters
    ----------
    limit : CscMatrix or scipy sparse matrix, shape (n, n)
        The converged iterand (column j = where node j's flow ends up).
    overlap : {"cut", "keep", "split"}
        mcl's ``-overlap``: keep each node in its first cluster only (the
        default), keep overlapping memberships, or move nodes in overlap to
        clusters of their own, one per combination of clusters.

    Returns
    -------
    list of numpy.ndarray
        Clusters as sorted arrays of node indices, in the order of attractor
        systems (not yet sorted by :func:`sort_clusters`).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> L = sp.csc_array(([1.0, 1.0, 1.0], ([0, 0, 2], [0, 1, 2])), shape=(3, 3))
    >>> [c.tolist() for c in interpret(L)]
    [[0, 1], [2]]
    """
    D = _attractor_dag(limit)
    n = D.shape[0]
    diag = D.diagonal() != 0
    attractors = np.flatnonzero(diag)
    # attractor systems: components of the DAG restricted to attractors, undirected
    ncomp, comp = weak_components(D.principal(attractors))
    members = _group(attractors, comp, ncomp)
    order = sorted(range(ncomp), key=lambda c: (-members[c].size, members[c][0]))
    cid = np.empty(ncomp, dtype=np.int64)
    cid[order] = np.arange(ncomp)
    node_of, clus_of = _memberships(D, diag, attractors, cid[comp])
    return resolve(node_of, clus_of, n, ncomp, overlap)


def resolve(node_of, clus_of, n, ncomp, overlap="cut"):
    """The clusters of the (node, cluster) memberships of a limit's `n` nodes.

    The last step of :func:`interpret`, shared with engines that find the
    memberships themselves (the GPU engine's ``clusters``): nodes in no
    cluster form one more cluster, then overlap is resolved.

    Parameters
    ----------
    node_of, clus_of : numpy.ndarray of int
        The memberships: node ``node_of[i]`` is in attractor system
        ``clus_of[i]`` (systems numbered ``0 .. ncomp - 1`` in mcl's order:
        largest first, then by smallest attractor); any order.
    n, ncomp : int
        Nodes, attractor systems.
    overlap : {"cut", "keep", "split"}

    Returns
    -------
    list of numpy.ndarray
        As :func:`interpret`.

    Examples
    --------
    >>> import numpy as np
    >>> [c.tolist() for c in resolve(np.array([0, 1, 1, 2]), np.array([0, 0, 1, 1]), 4, 2, "split")]
    [[0], [2], [3], [1]]
    """
    node_of = np.asarray(node_of, dtype=np.int64)
    clus_of = np.asarray(clus_of, dtype=np.int64)
    # nodes in no cluster ("garbage entries") together form one more cluster, as in mcl 22-282
    homeless = np.flatnonzero(np.bincount(node_of, minlength=n) == 0)
    node_of = np.concatenate([node_of, homeless])
    clus_of = np.concatenate([clus_of, np.full(homeless.size, ncomp)])
    k = ncomp + (homeless.size > 0)
    counts = np.bincount(node_of, minlength=n)
    if overlap == "cut":
        first = np.full(n, np.iinfo(np.int64).max)
        np.minimum.at(first, node_of, clus_of)
        node_of, clus_of = np.arange(n), first
    elif overlap == "split":
        multi = counts[node_of] > 1
        single_nodes, single_clus = node_of[~multi], clus_of[~multi]
        mnodes, mclus = node_of[multi], clus_of[multi]
        order_m = np.lexsort((mclus, mnodes))
        mnodes, mclus = mnodes[order_m], mclus[order_m]
        sig = {}
        new_clus = {}
        starts = np.flatnonzero(np.r_[True, mnodes[1:] != mnodes[:-1]]) if mnodes.size else np.zeros(0, int)
        for s, e in zip(starts, np.r_[starts[1:], mnodes.size]):
            key = tuple(mclus[s:e].tolist())
            if key not in sig:
                sig[key] = k + len(sig)
            new_clus[int(mnodes[s])] = sig[key]
        extra_nodes = np.fromiter(new_clus.keys(), dtype=np.int64, count=len(new_clus))
        extra_clus = np.fromiter(new_clus.values(), dtype=np.int64, count=len(new_clus))
        node_of = np.concatenate([single_nodes, extra_nodes])
        clus_of = np.concatenate([single_clus, extra_clus])
    elif overlap != "keep":
        raise ValueError(overlap)
    return _group(node_of, clus_of, int(clus_of.max()) + 1 if clus_of.size else 0)


def _memberships(D, diag, attractors, attractor_cluster):
    """Every (node, cluster) pair of the limit, sorted by node, then cluster.

    An attractor belongs to its own system's cluster only; any other node
    belongs to every cluster of the nodes its DAG column points to, up to the
    fixed point (membership only grows).
    """
    n = D.shape[0]
    k = max(int(attractor_cluster.max()) + 1 if attractor_cluster.size else 0, 1)
    cols = D.columns()
    follows = ~diag[cols]  # arcs d -> i of the nodes d that are not attractors
    parent, child = cols[follows], D.indices[follows].astype(np.int64)
    own = attractors * k + attractor_cluster
    keys = np.sort(own)
    while True:
        node, clus = keys // k, keys % k
        start = np.searchsorted(node, np.arange(n + 1))
        counts = start[child + 1] - start[child]
        inherited = np.repeat(parent, counts) * k + clus[spans(start[child], counts)]
        grown = distinct(np.concatenate([own, inherited]))
        if grown.size == keys.size:
            return node, clus
        keys = grown


def _group(nodes, clus, k):
    """Lists of sorted node arrays per cluster id, empty clusters dropped."""
    order = np.lexsort((nodes, clus))
    nodes, clus = nodes[order], clus[order]
    bounds = np.searchsorted(clus, np.arange(k + 1))
    return [nodes[bounds[c] : bounds[c + 1]] for c in range(k) if bounds[c + 1] > bounds[c]]


def sort_clusters(clusters, mode="revsize"):
    """Order clusters as mcl's ``-sort``.

    Parameters
    ----------
    clusters : list of numpy.ndarray
        Sorted node-index arrays.
    mode : {"revsize", "size", "lex", "none"}
        Largest first (the default), smallest first, lexicographic on the
        member lists, or unchanged.  Size ties are broken lexicographically
        (descending for "size", whose order is the reverse of "revsize").

    Returns
    -------
    list of numpy.ndarray

    Examples
    --------
    >>> import numpy as np
    >>> [c.tolist() for c in sort_clusters([np.array([3]), np.array([0, 5]), np.array([1, 2])])]
    [[0, 5], [1, 2], [3]]
    """
    if mode == "none":
        return list(clusters)
    lex = lambda c: tuple(c.tolist())  # noqa: E731
    if mode == "revsize":
        key = lambda c: (-c.size, lex(c))  # noqa: E731
    elif mode == "size":  # mcl: the exact reverse of revsize (size ties lexicographically descending)
        return sorted(clusters, key=lambda c: (-c.size, lex(c)), reverse=True)
    else:
        key = lex
    return sorted(clusters, key=key)
