"""numba-cuda kernels of :mod:`netmcl.traversal._gpu` (imported on first use of engine="gpu").

Module-level functions, so that numba's CUDA simulator can swap in its own
``cuda`` while running them.  Every literal is cast (``int32(...)``): the
simulator runs the kernels as Python on NumPy scalars, where an uncast
literal could promote differently than in compiled code.
"""

from numba import cuda, int32, uint64


@cuda.jit
def bfs_expand(indptr, indices, queue, qsize, level, depth, nxt, count):
    t = cuda.grid(1)
    if t < qsize:
        u = queue[t]
        for e in range(indptr[u], indptr[u + int32(1)]):
            v = indices[e]
            if cuda.atomic.cas(level, v, int32(-1), depth) == int32(-1):
                slot = cuda.atomic.add(count, 0, int32(1))
                nxt[slot] = v


@cuda.jit
def relax(indptr, indices, weights, queue, qsize, dist, flag):
    t = cuda.grid(1)
    if t < qsize:
        u = queue[t]
        du = dist[u]
        for e in range(indptr[u], indptr[u + int32(1)]):
            v = indices[e]
            nd = du + weights[e]
            if nd < dist[v]:
                old = cuda.atomic.min(dist, v, nd)
                if nd < old:
                    flag[v] = int32(1)


@cuda.jit
def relax_class(indptr, indices, weights, queue, qsize, dist, flag, delta, heavy):
    # delta-stepping: relax the light arcs (weight <= delta) of the queued nodes, or with heavy != 0
    # the heavy ones (weight > delta); a node whose distance drops is flagged
    t = cuda.grid(1)
    if t < qsize:
        u = queue[t]
        du = dist[u]
        for e in range(indptr[u], indptr[u + int32(1)]):
            w = weights[e]
            if (w > delta) == (heavy != int32(0)):
                v = indices[e]
                nd = du + w
                if nd < dist[v]:
                    old = cuda.atomic.min(dist, v, nd)
                    if nd < old:
                        flag[v] = int32(1)


@cuda.jit
def take_bucket(flag, dist, n, hi, queue, count):
    # queue (and unflag) the flagged nodes of the current bucket, distance below hi; the others stay flagged
    v = cuda.grid(1)
    if v < n and flag[v] != int32(0) and dist[v] < hi:
        flag[v] = int32(0)
        slot = cuda.atomic.add(count, 0, int32(1))
        queue[slot] = v


@cuda.jit
def in_bucket(dist, n, lo, hi, queue, count):
    # queue the nodes the bucket [lo, hi) settled: their heavy arcs are relaxed once
    v = cuda.grid(1)
    if v < n and dist[v] >= lo and dist[v] < hi:
        slot = cuda.atomic.add(count, 0, int32(1))
        queue[slot] = v


@cuda.jit
def compact(flag, n, queue, count):
    v = cuda.grid(1)
    if v < n and flag[v] != int32(0):
        flag[v] = int32(0)
        slot = cuda.atomic.add(count, 0, int32(1))
        queue[slot] = v


@cuda.jit
def hook(indptr, indices, n, label, changed):
    # both ends of every arc: weak components of a directed pattern without a transpose
    u = cuda.grid(1)
    if u < n:
        for e in range(indptr[u], indptr[u + int32(1)]):
            v = indices[e]
            lu = label[u]
            lv = label[v]
            if lu < lv:
                cuda.atomic.min(label, v, lu)
                changed[0] = int32(1)
            elif lv < lu:
                cuda.atomic.min(label, u, lv)
                changed[0] = int32(1)


@cuda.jit
def jump(label, n):
    v = cuda.grid(1)
    if v < n:
        label[v] = label[label[v]]


@cuda.jit
def trim(indptr, indices, rptr, ridx, n, comp, changed):
    # a node with no arc in, or none out, among the undecided ones is a component by itself
    v = cuda.grid(1)
    if v < n and comp[v] < int32(0):
        has_out = False
        for e in range(indptr[v], indptr[v + int32(1)]):
            u = indices[e]
            if u != v and comp[u] < int32(0):
                has_out = True
                break
        has_in = False
        if has_out:
            for e in range(rptr[v], rptr[v + int32(1)]):
                u = ridx[e]
                if u != v and comp[u] < int32(0):
                    has_in = True
                    break
        if not (has_out and has_in):
            comp[v] = v
            changed[0] = int32(1)


@cuda.jit
def reach(indptr, indices, queue, qsize, comp, color, mark, nxt, count):
    # breadth-first step among undecided nodes of the frontier node's colour
    t = cuda.grid(1)
    if t < qsize:
        u = queue[t]
        cu = color[u]
        for e in range(indptr[u], indptr[u + int32(1)]):
            v = indices[e]
            if comp[v] < int32(0) and color[v] == cu:
                if cuda.atomic.cas(mark, v, int32(0), int32(1)) == int32(0):
                    slot = cuda.atomic.add(count, 0, int32(1))
                    nxt[slot] = v


@cuda.jit
def propagate(indptr, indices, n, comp, color, changed):
    # colour = the smallest undecided node that reaches the node
    u = cuda.grid(1)
    if u < n and comp[u] < int32(0):
        cu = color[u]
        for e in range(indptr[u], indptr[u + int32(1)]):
            v = indices[e]
            if comp[v] < int32(0) and cu < color[v]:
                cuda.atomic.min(color, v, cu)
                changed[0] = int32(1)


@cuda.jit
def words_pull(rptr, ridx, n, k, full, seen, front, nxt, out, row0, depth, active):
    # up to 64 searches at once: bit b of a node's word = reached from source b; a node pulls
    # the frontier words of its in-neighbours (no atomics: each thread writes its own node)
    v = cuda.grid(1)
    if v < n:
        sv = seen[v]
        if sv == full:
            nxt[v] = uint64(0)
            return
        acc = uint64(0)
        for e in range(rptr[v], rptr[v + int32(1)]):
            acc |= front[ridx[e]]
        acc &= ~sv
        nxt[v] = acc
        if acc != uint64(0):
            seen[v] = sv | acc
            active[0] = int32(1)
            for b in range(k):
                if (acc >> uint64(b)) & uint64(1):
                    out[row0 + b, v] = depth


KERNELS = dict(bfs_expand=bfs_expand, relax=relax, relax_class=relax_class, take_bucket=take_bucket,
               in_bucket=in_bucket, compact=compact, hook=hook, jump=jump, trim=trim,
               reach=reach, propagate=propagate, words_pull=words_pull)
