"""CPU kernels of the traversals (numba, compiled on first use and cached on disk).

scipy.sparse.csgraph does what it does fastest (Dijkstra, Pearce's strongly
connected components); these kernels do the rest: hop distances from one
source (a queue) and from many (64 sources at a time as the bits of a word,
"The More the Merrier", Then et al., PVLDB 2014), weakly connected components
(union-find), predecessor trees and canonical component numbers.
"""

import numpy as np
from numba import njit, prange

__all__ = [
    "transpose", "bfs_one", "bfs_many", "bfs_predecessors", "tight_predecessors",
    "weak_roots", "canonical", "canonical_from_roots", "bfs_order", "tarjan",
]

#: sources traversed together as the bits of one word by :func:`bfs_many`
WORD = 64


@njit(cache=True)
def _transpose(indptr, indices, weights, n, out_ptr, out_idx, out_w, has_w):
    counts = np.zeros(n + 1, dtype=np.int64)
    for e in range(indices.size):
        counts[indices[e] + 1] += 1
    for v in range(n):
        counts[v + 1] += counts[v]
    out_ptr[:] = counts
    for u in range(n):  # rows visited in order: each row of the transpose comes out sorted
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            k = counts[v]
            out_idx[k] = u
            if has_w:
                out_w[k] = weights[e]
            counts[v] = k + 1


def transpose(indptr, indices, weights, n):
    """The reversed arcs in CSR form ``(indptr, indices, weights)``, indices sorted within rows.

    Examples
    --------
    >>> p, i, w = transpose(np.array([0, 2, 2]), np.array([0, 1], np.int32), None, 2)
    >>> p.tolist(), i.tolist(), w
    ([0, 1, 2], [0, 0], None)
    """
    out_ptr = np.empty(n + 1, dtype=np.int64)
    out_idx = np.empty(indices.size, dtype=np.int32)
    has_w = weights is not None
    out_w = np.empty(indices.size if has_w else 0, dtype=np.float64)
    _transpose(indptr, indices, weights if has_w else out_w, n, out_ptr, out_idx, out_w, has_w)
    return out_ptr, out_idx, (out_w if has_w else None)


@njit(cache=True)
def bfs_one(indptr, indices, source, level, queue):
    """Hop distances from `source` into `level` (filled with -1 before), by a FIFO queue."""
    level[source] = 0
    queue[0] = source
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        d = level[u] + 1
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if level[v] < 0:
                level[v] = d
                queue[tail] = v
                tail += 1


@njit(cache=True)
def _bfs_word(rptr, ridx, sources, out, row0, seen, front, nxt):
    """Hop distances from up to 64 sources at once, their rows of `out` starting at `row0`.

    Each node holds a word whose bit b says "reached from source b"; a level
    pulls the frontier words of a node's in-neighbours, and skips the nodes
    every source has reached.
    """
    n = rptr.size - 1
    k = sources.size
    full = np.uint64(0xFFFFFFFFFFFFFFFF) if k == 64 else (np.uint64(1) << np.uint64(k)) - np.uint64(1)
    seen[:] = 0
    front[:] = 0
    for b in range(k):
        s = sources[b]
        bit = np.uint64(1) << np.uint64(b)
        seen[s] |= bit
        front[s] |= bit
        out[row0 + b, s] = 0
    depth = 0
    active = 1
    while active > 0:
        depth += 1
        active = 0
        for v in range(n):
            sv = seen[v]
            if sv == full:
                nxt[v] = np.uint64(0)
                continue
            acc = np.uint64(0)
            for e in range(rptr[v], rptr[v + 1]):
                acc |= front[ridx[e]]
            acc &= ~sv
            nxt[v] = acc
            if acc != np.uint64(0):
                seen[v] = sv | acc
                active += 1
                for b in range(k):
                    if (acc >> np.uint64(b)) & np.uint64(1):
                        out[row0 + b, v] = depth
        front, nxt = nxt, front


@njit(cache=True, parallel=True)
def _bfs_words(rptr, ridx, sources, out):
    # one 64-source word per parallel iteration: a level is too little work to split among threads
    n = rptr.size - 1
    words = (sources.size + WORD - 1) // WORD
    for w in prange(words):
        lo = w * WORD
        hi = min(lo + WORD, sources.size)
        seen = np.empty(n, dtype=np.uint64)
        front = np.empty(n, dtype=np.uint64)
        nxt = np.empty(n, dtype=np.uint64)
        _bfs_word(rptr, ridx, sources[lo:hi], out, lo, seen, front, nxt)


def bfs_many(rptr, ridx, sources, out):
    """Hop distances from each of `sources` into the rows of `out` (filled with -1 before).

    `rptr`, `ridx` are the in-arcs (the reversed graph) in CSR form.
    """
    sources = np.ascontiguousarray(sources, dtype=np.int64)
    if sources.size <= WORD:  # one word: no parallel region to start
        n = rptr.size - 1
        _bfs_word(rptr, ridx, sources, out, 0, *(np.empty(n, dtype=np.uint64) for _ in range(3)))
    else:
        _bfs_words(rptr, ridx, sources, out)


@njit(cache=True, parallel=True)
def bfs_predecessors(rptr, ridx, hops, pred):
    """For each row of `hops`, the smallest in-neighbour one hop nearer the source (-1: none)."""
    k, n = hops.shape
    for r in prange(k):
        for v in range(n):
            h = hops[r, v]
            p = -1
            if h > 0:
                for e in range(rptr[v], rptr[v + 1]):
                    u = ridx[e]
                    if hops[r, u] == h - 1 and (p < 0 or u < p):
                        p = u
            pred[r, v] = p


@njit(cache=True)
def tight_predecessors(indptr, indices, weights, rptr, ridx, rw, source, dist, pred):
    """A shortest-path tree of `dist` (distances from `source`): the smallest-id parent
    one level nearer in a breadth-first search over the tight arcs
    (``dist[u] + w == dist[v]``), so arcs of weight 0 cannot make a cycle."""
    n = indptr.size - 1
    level = np.full(n, -1, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    level[source] = 0
    queue[0] = source
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if level[v] < 0 and dist[u] + weights[e] == dist[v]:
                level[v] = level[u] + 1
                queue[tail] = v
                tail += 1
    for v in range(n):
        p = -1
        if level[v] > 0:
            for e in range(rptr[v], rptr[v + 1]):
                u = ridx[e]
                if level[u] == level[v] - 1 and dist[u] + rw[e] == dist[v] and (p < 0 or u < p):
                    p = u
        pred[v] = p


@njit(cache=True)
def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@njit(cache=True)
def weak_roots(indptr, indices, n, upper_only):
    """The smallest node of each node's weakly connected component (union-find,
    the larger root always linked under the smaller).  `upper_only`: the graph
    is symmetric, so each edge is read once (``u < v``)."""
    parent = np.arange(n, dtype=np.int32)
    for u in range(n):
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if upper_only and v <= u:
                continue
            a = _find(parent, u)
            b = _find(parent, v)
            if a < b:
                parent[b] = a
            elif b < a:
                parent[a] = b
    for v in range(n):  # parent[v] <= v: the parents' roots are known when v is reached
        parent[v] = parent[parent[v]]
    return parent


@njit(cache=True)
def canonical_from_roots(roots):
    """Component numbers 0, 1, ... in order of each component's smallest node, from
    each node's smallest node (`roots`)."""
    n = roots.size
    out = np.empty(n, dtype=np.int32)
    c = 0
    for v in range(n):
        if roots[v] == v:
            out[v] = c
            c += 1
        else:
            out[v] = out[roots[v]]
    return out


@njit(cache=True)
def canonical(labels):
    """Renumber arbitrary component labels 0, 1, ... in order of each component's smallest node."""
    n = labels.size
    new = np.full(labels.max() + 1 if n else 1, -1, dtype=np.int32)
    out = np.empty(n, dtype=np.int32)
    c = 0
    for v in range(n):
        x = labels[v]
        if new[x] < 0:
            new[x] = c
            c += 1
        out[v] = new[x]
    return out


@njit(cache=True)
def bfs_order(indptr, indices, sources, depth_limit, order, parent, level):
    """Breadth-first search from `sources` (first-in first-out, neighbours in row order) down to
    `depth_limit` levels: fills the visit order, each node's discoverer and level; returns the
    number of nodes visited."""
    tail = 0
    for s in sources:
        if level[s] < 0:
            level[s] = 0
            order[tail] = s
            tail += 1
    head = 0
    while head < tail:
        u = order[head]
        head += 1
        d = level[u] + 1
        if d > depth_limit:
            continue
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if level[v] < 0:
                level[v] = d
                parent[v] = u
                order[tail] = v
                tail += 1
    return tail


@njit(cache=True)
def tarjan(indptr, indices, comp):
    """Strongly connected components by Tarjan's depth-first search, iterative, starting
    from the nodes in id order and following arcs in row order; `comp` gets each node's
    component numbered in the order the components complete (NetworkX's order).
    Returns the number of components."""
    n = indptr.size - 1
    index = np.full(n, -1, dtype=np.int64)
    low = np.empty(n, dtype=np.int64)
    on_stack = np.zeros(n, dtype=np.bool_)
    stack = np.empty(n, dtype=np.int64)
    frames = np.empty(n, dtype=np.int64)
    edges = np.empty(n, dtype=np.int64)
    counter = 0
    c = 0
    sp = 0
    for s in range(n):
        if index[s] >= 0:
            continue
        top = 0
        frames[0] = s
        edges[0] = indptr[s]
        index[s] = low[s] = counter
        counter += 1
        stack[sp] = s
        sp += 1
        on_stack[s] = True
        while top >= 0:
            u = frames[top]
            e = edges[top]
            if e < indptr[u + 1]:
                edges[top] = e + 1
                v = indices[e]
                if index[v] < 0:
                    index[v] = low[v] = counter
                    counter += 1
                    stack[sp] = v
                    sp += 1
                    on_stack[v] = True
                    top += 1
                    frames[top] = v
                    edges[top] = indptr[v]
                elif on_stack[v] and index[v] < low[u]:
                    low[u] = index[v]
            else:
                top -= 1
                if low[u] == index[u]:
                    while True:
                        sp -= 1
                        w = stack[sp]
                        on_stack[w] = False
                        comp[w] = c
                        if w == u:
                            break
                    c += 1
                if top >= 0:
                    p = frames[top]
                    if low[u] < low[p]:
                        low[p] = low[u]
    return c
