"""GPU kernels of the traversals (numba-cuda), on CuPy arrays on a device and on
NumPy arrays in numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``).

The array module `xp` is CuPy on a device and NumPy under the simulator;
everything outside the kernels is written against it.  numba-cuda and CuPy are
imported on first use only.

Algorithms: breadth-first search by frontier queues (a thread per frontier
node claims unvisited heads with a compare-and-swap) from one or two
sources, and from more 64 at a time as the bits of a word per node (a thread
per node pulls its in-neighbours' frontier words); shortest paths by a
frontier Bellman-Ford (a thread per changed node relaxes its arcs with an
atomic minimum; the rounds end when no distance drops) or by delta-stepping
(the same relaxations, taken in buckets of distance); connected components
by minimum-label propagation with pointer jumping (labels converge to each
component's smallest node); strongly connected components by trimming, one
forward-backward search from a pivot (which takes the giant component) and
colouring for the rest (Orzan; the "multistep" method of Slota et al.).
"""


import numpy as np

from ..exceptions import BackendUnavailableError, ParameterError

__all__ = ["available", "components_of_pattern", "bfs", "sssp", "weak", "strong"]

#: threads per block of every launch (the answers do not depend on it; tests use small blocks)
THREADS = 256

_NEEDS = ("engine='gpu' needs numba-cuda and, on a device, CuPy: python -m pip install 'netmcl[cuda12]' "
          "(or 'netmcl[cuda13]' for CUDA 13).")

_state = {}


def _runtime():
    """(cuda, xp, kernels), imported and compiled on first use."""
    if "kernels" in _state:
        return _state["cuda"], _state["xp"], _state["kernels"]
    try:
        from numba import cuda
        from numba.cuda import config
    except ImportError as exc:
        raise BackendUnavailableError(_NEEDS) from exc
    if getattr(config, "ENABLE_CUDASIM", 0):
        xp = np
    else:
        try:
            present = cuda.is_available()
        except Exception:  # noqa: BLE001 - a broken driver is "no device"
            present = False
        if not present:
            raise BackendUnavailableError("engine='gpu' found no CUDA device on this machine. " + _NEEDS)
        try:
            import cupy as xp
        except ImportError as exc:
            raise BackendUnavailableError(_NEEDS) from exc
    from . import _gpu_kernels

    _state.update(cuda=cuda, xp=xp, kernels=_gpu_kernels.KERNELS)
    return cuda, xp, _state["kernels"]


def available():
    """None when engine='gpu' can run here, else the reason."""
    try:
        _runtime()
    except BackendUnavailableError as exc:
        return str(exc)
    return None


def _blocks(size):
    return max(1, (int(size) + THREADS - 1) // THREADS)


def _upload(net, xp, key, arrays):
    """Device copies of `arrays`, kept on the graph for the next call."""
    if key not in net.device:
        net.device[key] = tuple(None if a is None else xp.asarray(a) for a in arrays)
    return net.device[key]


def _flood(K, xp, indptr, indices, queue, qsize, level, n):
    """Breadth-first levels from the nodes in queue[:qsize] (at level 0 already)."""
    nxt = xp.empty(n, dtype=np.int32)
    count = xp.zeros(1, dtype=np.int32)
    depth = 0
    while qsize > 0:
        depth += 1
        count[:] = 0
        K["bfs_expand"][_blocks(qsize), THREADS](indptr, indices, queue, np.int32(qsize), level,
                                                   np.int32(depth), nxt, count)
        qsize = int(count[0])
        queue, nxt = nxt, queue


#: up to this many sources, one frontier-queue search each; beyond, 64 at a time as bits of a word
QUEUE_SOURCES = 2


def bfs(net, sources):
    """Hop distances, shape (len(sources), n), int32, -1 where unreachable (a host array)."""
    _, xp, K = _runtime()
    n = net.n
    out = xp.full((len(sources), n), -1, dtype=np.int32)
    if len(sources) > QUEUE_SOURCES:
        rp, ri, _ = net.reverse()
        rptr, ridx = _upload(net, xp, "in", (rp, ri))
        for lo in range(0, len(sources), 64):
            _words(K, xp, rptr, ridx, np.asarray(sources[lo:lo + 64], dtype=np.int64), out, lo, n)
        return _host(xp, out)
    indptr, indices = _upload(net, xp, "out", (net.indptr, net.indices))
    queue = xp.empty(max(n, 1), dtype=np.int32)
    for r, s in enumerate(sources):
        level = out[r]
        level[int(s)] = 0
        queue[0] = int(s)
        _flood(K, xp, indptr, indices, queue, 1, level, n)
    return _host(xp, out)


def _words(K, xp, rptr, ridx, sources, out, row0, n):
    """Hop distances from up to 64 `sources` into rows row0.. of `out`, all searches at once."""
    k = sources.size
    full = np.uint64(0xFFFFFFFFFFFFFFFF) if k == 64 else np.uint64((1 << k) - 1)
    start = np.zeros(n, dtype=np.uint64)
    np.bitwise_or.at(start, sources, np.left_shift(np.uint64(1), np.arange(k, dtype=np.uint64)))
    seen, front = xp.array(start), xp.array(start)  # two arrays (asarray of NumPy would share one)
    nxt = xp.empty(n, dtype=np.uint64)
    out[xp.asarray(row0 + np.arange(k)), xp.asarray(sources)] = 0
    active = xp.zeros(1, dtype=np.int32)
    depth = 0
    while True:
        depth += 1
        active[:] = 0
        K["words_pull"][_blocks(n), THREADS](rptr, ridx, np.int32(n), np.int32(k), full, seen, front, nxt, out,
                                             np.int32(row0), np.int32(depth), active)
        if int(active[0]) == 0:
            return
        front, nxt = nxt, front


#: the shortest-path methods of the GPU; "auto" is "bellman-ford" until a device's
#: measurements (benchmarks/traversal_bench.py --engine gpu) show where delta-stepping wins
SSSP_METHODS = ("auto", "bellman-ford", "delta-stepping")

#: delta-stepping's bucket width is this many mean arc weights per mean out-degree (the rule
#: cuGraph's near-far method is reported to use): wider buckets take fewer rounds, each with
#: a host synchronisation, and relax more arcs again when a distance drops
DELTA_SCALE = 32.0


def default_delta(net):
    """Delta-stepping's bucket width for `net`: ``DELTA_SCALE * mean weight / mean out-degree``
    (inf where every weight is 0: one bucket, Bellman-Ford)."""
    arcs = net.indices.size
    if arcs == 0 or net.weights is None:
        return np.inf
    mean = float(np.mean(net.weights))
    if mean <= 0.0:
        return np.inf
    return DELTA_SCALE * mean / (arcs / max(net.n, 1))


def sssp(net, sources, method="auto", delta=None):
    """Shortest-path distances, shape (len(sources), n), float64, inf where unreachable (a host array).

    method "bellman-ford" (and "auto"): a frontier Bellman-Ford, the rounds
    relaxing the arcs of the nodes whose distance dropped; "delta-stepping":
    Meyer and Sanders' buckets of width `delta` (default :func:`default_delta`).
    """
    if method not in SSSP_METHODS:
        raise ParameterError(f"The GPU's shortest-path method must be one of {list(SSSP_METHODS)}. "
                             f"Got {method!r} instead.")
    _, xp, K = _runtime()
    n = net.n
    indptr, indices, weights = _upload(net, xp, "weighted", (net.indptr, net.indices, net.weights))
    out = xp.full((len(sources), n), np.inf, dtype=np.float64)
    queue = xp.empty(max(n, 1), dtype=np.int32)
    flag = xp.zeros(max(n, 1), dtype=np.int32)
    count = xp.zeros(1, dtype=np.int32)
    if method == "delta-stepping":
        delta = default_delta(net) if delta is None else float(delta)
        if not delta > 0.0:
            raise ParameterError(f"delta-stepping's bucket width must be positive. Got {delta!r} instead.")
        for r, s in enumerate(sources):
            _delta_stepping(K, xp, indptr, indices, weights, int(s), out[r], queue, flag, count, n, delta)
        return _host(xp, out)
    for r, s in enumerate(sources):
        dist = out[r]
        dist[int(s)] = 0.0
        queue[0] = int(s)
        qsize = 1
        while qsize > 0:
            K["relax"][_blocks(qsize), THREADS](indptr, indices, weights, queue, np.int32(qsize), dist, flag)
            count[:] = 0
            K["compact"][_blocks(n), THREADS](flag, np.int32(n), queue, count)
            qsize = int(count[0])
    return _host(xp, out)


def _delta_stepping(K, xp, indptr, indices, weights, s, dist, queue, flag, count, n, delta):
    """Distances from `s` into `dist` by delta-stepping (Meyer and Sanders, J. Algorithms 49(1), 2003).

    The flagged nodes are those whose distance dropped since their arcs were
    last relaxed.  A bucket starts at the smallest flagged distance ``lo``
    and ends before ``hi = lo + delta``: its flagged nodes relax their light
    arcs (weight <= delta), round after round, until none is left below
    ``hi``; then the nodes it settled (distance in [lo, hi)) relax their
    heavy arcs once, which lands at ``hi`` or beyond.  Distances below ``lo``
    are final.
    """
    dist[s] = 0.0
    flag[s] = 1
    blocks = _blocks(n)
    delta = np.float64(delta)
    while True:
        lo = float(xp.min(xp.where(flag[:n] != 0, dist, np.inf)))
        if lo == np.inf:
            return
        hi = max(np.float64(lo) + delta, np.nextafter(np.float64(lo), np.inf))
        while True:  # light arcs, until the bucket holds no flagged node
            count[:] = 0
            K["take_bucket"][blocks, THREADS](flag, dist, np.int32(n), hi, queue, count)
            qsize = int(count[0])
            if qsize == 0:
                break
            K["relax_class"][_blocks(qsize), THREADS](indptr, indices, weights, queue, np.int32(qsize), dist, flag,
                                                        delta, np.int32(0))
        if delta == np.inf:
            continue  # no heavy arcs
        count[:] = 0
        K["in_bucket"][blocks, THREADS](dist, np.int32(n), np.float64(lo), hi, queue, count)
        qsize = int(count[0])
        if qsize:
            K["relax_class"][_blocks(qsize), THREADS](indptr, indices, weights, queue, np.int32(qsize), dist, flag,
                                                        delta, np.int32(1))


def _ranks(xp, roots):
    """Component numbers in order of each component's smallest node, from each node's smallest node."""
    n = roots.size
    is_root = (roots == xp.arange(n, dtype=roots.dtype)).astype(np.int32)
    rank = xp.cumsum(is_root, dtype=np.int32) - np.int32(1)
    return rank[roots]


def components_of_pattern(indptr, indices, n, threads=None):
    """Weakly connected components of a sparse pattern held on the device.

    For the interpretation of an MCL result on the GPU: the arcs are read in
    both directions, so a CSC pattern (columns = `indptr`) and a CSR one give
    the same components.

    Parameters
    ----------
    indptr : int64 device array (CuPy; NumPy under the simulator), shape (n + 1,)
    indices : int32 device array
    n : int
    threads : int, optional
        Threads per block of the launches (default :data:`THREADS`; the
        answer does not depend on it).

    Returns
    -------
    int32 device array, shape (n,)
        Component numbers 0, 1, ... in order of each component's smallest node.
    """
    _, xp, K = _runtime()
    tpb = THREADS if threads is None else int(threads)
    blocks = max(1, (int(n) + tpb - 1) // tpb)
    label = xp.arange(n, dtype=np.int32)
    changed = xp.zeros(1, dtype=np.int32)
    while n:
        changed[:] = 0
        K["hook"][blocks, tpb](indptr, indices, np.int32(n), label, changed)
        K["jump"][blocks, tpb](label, np.int32(n))
        if int(changed[0]) == 0:
            break
    return _ranks(xp, label)


def weak(net):
    """Weakly connected components (a host int32 array of canonical numbers)."""
    _, xp, _ = _runtime()
    indptr, indices = _upload(net, xp, "out", (net.indptr, net.indices))
    return _host(xp, components_of_pattern(indptr, indices, net.n))


def strong(net):
    """Strongly connected components (a host int32 array of canonical numbers)."""
    _, xp, K = _runtime()
    n = net.n
    if n == 0:
        return np.zeros(0, dtype=np.int32)
    indptr, indices = _upload(net, xp, "out", (net.indptr, net.indices))
    rp, ri, _ = net.reverse()
    rptr, ridx = _upload(net, xp, "in", (rp, ri))
    comp = xp.full(n, -1, dtype=np.int32)  # the smallest node of the component, once decided
    changed = xp.zeros(1, dtype=np.int32)
    blocks = _blocks(n)

    def trim():
        while True:
            changed[:] = 0
            K["trim"][blocks, THREADS](indptr, indices, rptr, ridx, np.int32(n), comp, changed)
            if int(changed[0]) == 0:
                return

    trim()
    # forward-backward search from the undecided node of largest degree product: the giant component
    open_ = comp < 0
    if bool(open_.any()):
        degree = (indptr[1:] - indptr[:-1]) * (rptr[1:] - rptr[:-1])
        pivot = int(xp.argmax(xp.where(open_, degree, -1)))
        color = xp.zeros(n, dtype=np.int32)  # one colour: every undecided node
        sets = []
        for ptr, idx in ((indptr, indices), (rptr, ridx)):
            mark = xp.zeros(n, dtype=np.int32)
            mark[pivot] = 1
            queue = xp.empty(n, dtype=np.int32)
            queue[0] = pivot
            _reach(K, xp, ptr, idx, queue, 1, comp, color, mark, n)
            sets.append(mark)
        both = (sets[0] == 1) & (sets[1] == 1)
        comp[both] = xp.min(xp.flatnonzero(both)).astype(np.int32)
        trim()
    # colouring for the rest: each colour's root and the nodes that reach it within the colour
    node = xp.arange(n, dtype=np.int32)
    while True:
        open_ = comp < 0
        if not bool(open_.any()):
            break
        color = xp.where(open_, node, np.int32(-1)).astype(np.int32)
        while True:
            changed[:] = 0
            K["propagate"][blocks, THREADS](indptr, indices, np.int32(n), comp, color, changed)
            if int(changed[0]) == 0:
                break
        roots = xp.flatnonzero(open_ & (color == node)).astype(np.int32)
        mark = xp.zeros(n, dtype=np.int32)
        mark[roots] = 1
        queue = xp.empty(n, dtype=np.int32)
        queue[: roots.size] = roots
        _reach(K, xp, rptr, ridx, queue, int(roots.size), comp, color, mark, n)
        found = mark == 1
        comp[found] = color[found]
    return _host(xp, _ranks(xp, comp))


def _reach(K, xp, indptr, indices, queue, qsize, comp, color, mark, n):
    nxt = xp.empty(n, dtype=np.int32)
    count = xp.zeros(1, dtype=np.int32)
    while qsize > 0:
        count[:] = 0
        K["reach"][_blocks(qsize), THREADS](indptr, indices, queue, np.int32(qsize), comp, color, mark, nxt, count)
        qsize = int(count[0])
        queue, nxt = nxt, queue


def _host(xp, a):
    return a if xp is np else xp.asnumpy(a)
