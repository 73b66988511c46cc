"""The Dask engine: exact MCL iterations on the workers of a Dask cluster.

The iterand lives on the workers, cut into *column blocks*: block ``b`` holds
columns ``bounds[b] .. bounds[b + 1] - 1`` whole (every row, ascending), as a
future.  An iteration submits one task a block; the task receives the blocks
whose columns its own columns read (worker to worker; the client never holds
them), and computes its columns with the CPU engine's kernel
(``_kernels.expand_columns``), the same arithmetic column for column, so the
iterands are bit-identical to the CPU engine's for every block count and
every placement.  Only each block's statistics (a few numbers, and which
blocks its rows fall in, which the next iteration's task reads) come back to
the client.  No partial products are ever summed across tasks.

Three levels of distribution use this one task:

* a graph of several connected components: :meth:`DaskEngine.spawn` gives each
  group of components an engine of its own (one block, or one a worker thread
  for a group holding most of the entries), and the groups' tasks run on the
  workers side by side (:class:`~netmcl.components.GroupedEngine`);
* one giant component: its columns are cut into blocks of about equal entries,
  one a worker thread by default;
* an inflation sweep (:func:`netmcl.sweep`): each inflation's run after the
  shared first expansion is one task (:meth:`DaskEngine.sweep_runs`).

Faults: every block task is a pure function of the previous iteration's block
futures, and the start blocks are tasks holding their data (never scattered),
so a worker that dies takes nothing that cannot be recomputed: Dask recomputes
the blocks it held from their lineage, the blocks of the iterations before,
back to the start blocks where those are gone too (the earlier iterands are
not kept: a worker lost late in a long run costs the recomputation of the
columns its blocks depended on).  A task whose workers keep dying fails
(``KilledWorker``), and when no worker is left for ``lost_after`` seconds the
iteration stops; both raise a :class:`~netmcl.exceptions.NetmclError`.
"""

import operator
import time
import uuid

import numpy as np

from ..exceptions import NetmclError, ParameterError
from ..sparse import CscMatrix, spans
from . import Engine, IterationStats

__all__ = ["DaskEngine"]


#: what distributed raises where a task's inputs or its workers were lost beyond recovery
_LOST = ("KilledWorker", "FutureCancelledError", "FuturesCancelledError", "CancelledError")


def _client(client, scheduler):
    """The Dask client of an engine: `client`, one connected to `scheduler`, or the default client."""
    import distributed

    if client is not None:
        return client
    if scheduler is not None:
        return distributed.Client(scheduler)
    try:
        return distributed.default_client()
    except ValueError:
        raise ParameterError(
            "The 'dask' engine found no Dask client. Create one first (from dask.distributed import Client; "
            "client = Client(scheduler_address), or Client(LocalCluster()) on this machine), pass it as "
            "client=, or give the scheduler's address as scheduler= (--scheduler on the command line)."
        ) from None


def _block_of(lo, hi, indptr, indices, data):
    """A start block as the tasks keep it (a task, so that a lost one can be made again)."""
    return lo, hi, indptr, indices, data


def _reads(indices, bounds):
    """The blocks that hold rows `indices` (the blocks a block's next expansion reads)."""
    return np.unique(np.searchsorted(bounds, indices, side="right") - 1).astype(np.int64)


def _block_step(n_rule, n, lo, hi, inflation, pruning, least, bounds, *parts):
    """One iteration of columns lo..hi-1 of an n x n iterand whose columns
    are in `parts` (blocks ``(lo, hi, indptr, rows, values)``): the new block
    and its statistics.  Columns absent from `parts` are empty here; none of
    columns lo..hi-1 reads one of them."""
    from distributed import get_worker

    from .cpu import _constants as C
    from .cpu._compiled import kernels
    from .cpu.engine import L2_BYTES

    t0 = time.perf_counter()
    K = kernels()
    colstart, colstop = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    offset = 0
    for blo, bhi, indptr, _, _ in parts:
        colstart[blo:bhi] = indptr[:-1] + offset
        colstop[blo:bhi] = indptr[1:] + offset
        offset += int(indptr[-1])
    indices = np.concatenate([p[3] for p in parts]).astype(np.int32, copy=False)
    data = np.concatenate([p[4] for p in parts])
    cuts = np.empty((0, n), dtype=np.int64)
    exc, none = np.empty(0, dtype=np.int32), np.empty(0, dtype=np.int64)
    flops, leaders = np.zeros(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    K.column_survey(colstart, colstop, cuts, indices, exc, none, data, lo, hi, flops, leaders)
    cut, select, recover, pct = pruning
    cap = max(int(0.99999 / cut) + 1 if cut > 0 else n, select, recover, 1)
    room = int((np.minimum(np.minimum(flops[lo:hi], n), cap) + 1).sum())
    run = K.run_size(n, C.WIDE_RUNS, C.lane_nodes(L2_BYTES), C.narrow_nodes(L2_BYTES))
    sequence = np.arange(n, dtype=np.int64)
    order = _order(n_rule, n, lo, hi, flops, leaders)
    if order is not None:
        sequence[lo:hi] = order
    cnt, idx, val, chaos, st = K.expand_columns(
        n_rule, n, colstart, colstop, indices, exc, none, none, data, flops, cuts, sequence,
        lo, hi, cut, select, recover, pct, 0.0 if inflation is None else inflation, C.LANE_SHARING, C.LONE_READS,
        least, run, room, K.work_arrays(n, run),
    )
    cnt = cnt.ravel()
    idx = idx.astype(np.int32, copy=False)
    if order is not None:  # the columns back in column order
        at = np.zeros(hi - lo, dtype=np.int64)
        np.cumsum(cnt[:-1], out=at[1:])
        position = np.empty(hi - lo, dtype=np.int64)
        position[order - lo] = np.arange(hi - lo)
        cnt = cnt[position]
        entries = spans(at[position], cnt)
        idx, val = idx[entries], val[entries]
    indptr = np.zeros(hi - lo + 1, dtype=np.int64)
    np.cumsum(cnt, out=indptr[1:])
    stats = {
        "chaos": float(chaos) if hi > lo else 0.0,
        "st": np.asarray(st, dtype=np.float64),
        "least": float(val.min()) if val.size else np.inf,
        "reads": _reads(idx, bounds),
        "bytes": idx.nbytes + val.nbytes + indptr.nbytes,
        "worker": get_worker().address,
        "seconds": time.perf_counter() - t0,
        "engine": "cpu",
    }
    return (lo, hi, indptr, idx, val), stats


def _order(n_rule, n, lo, hi, flops, leaders):
    """The order in which to compute columns lo..hi-1 (None: column order), as
    ``CpuEngine._order`` chooses it, on the block's own columns: heavy columns
    first, those whose chains of largest entries end at the same column
    together (a speed choice only; no column's result depends on it)."""
    from .cpu import _constants as C

    block = slice(lo, hi)
    heavy = (flops[block] * 10 >= n_rule) & (flops[block] * 2 >= n)
    if np.count_nonzero(heavy) < 2 * C.RUN:
        return None
    roots = np.arange(n, dtype=np.int64)  # a chain leaving the block ends where it leaves
    roots[block] = leaders[block]
    links = roots.copy()
    for _ in range(int(n).bit_length()):
        roots = roots[roots]
    roots = np.minimum(roots, roots[links[roots]])
    return lo + np.lexsort((roots[block], ~heavy))


def _block_with_engine(name, n_rule, n, inflation, pruning, bounds, block):
    """One iteration of a one-block iterand (all n columns) on a fresh engine
    `name` on the worker (``worker_engine``)."""
    from distributed import get_worker

    from . import get_engine

    t0 = time.perf_counter()
    _, _, indptr, indices, data = block
    engine = get_engine(name, threads=1)
    engine.load(CscMatrix(indptr, indices, data, n), n_rule=n_rule)
    s = engine.iterate(inflation, pruning)
    m = engine.result()
    idx = m.indices.astype(np.int32, copy=False)
    st = np.zeros(11)
    for k, f in enumerate(("expanded", "kept", "recovered", "selected", "recovered_after_select", "emergency",
                           "dense_path", "emptied")):
        st[k] = getattr(s, f)
    st[10] = s.min_mass
    stats = {"chaos": s.chaos, "st": st, "least": float(m.data.min()) if m.nnz else np.inf,
             "reads": np.zeros(1, dtype=np.int64), "bytes": m.indptr.nbytes + idx.nbytes + m.data.nbytes,
             "worker": get_worker().address, "seconds": time.perf_counter() - t0, "engine": engine.name}
    return (0, n, m.indptr, idx, m.data), stats


def _block_inflate(block, inflation):
    """The block inflated (as ``CpuEngine.inflate``), with how many columns inflation emptied and its least value."""
    from .cpu._compiled import kernels

    lo, hi, indptr, indices, data = block
    data = data.copy()
    emptied = np.asarray(kernels().inflate_columns(indptr, data, float(inflation)), dtype=np.int64)
    counts = np.diff(indptr)
    emptied = emptied[counts[emptied] > 0]
    if emptied.size:
        counts[emptied] = 0
        keep = np.repeat(counts > 0, np.diff(indptr))
        indptr = np.zeros_like(indptr)
        np.cumsum(counts, out=indptr[1:])
        indices, data = indices[keep], data[keep]
    return (lo, hi, indptr, indices, data), (int(emptied.size), float(data.min()) if data.size else np.inf)


def _sweep_run(graph, params, expansion, first):
    """One inflation of a sweep, on a worker, with the CPU engine on one thread: its clustering and seconds."""
    from ..mcl import cluster_graph, inflate_first
    from .cpu.engine import CpuEngine

    t0 = time.perf_counter()
    engine = CpuEngine(threads=1)
    clustering = cluster_graph(graph, params, engine, resume=inflate_first(expansion, first, params, engine))
    return clustering, time.perf_counter() - t0


def _same(value):
    """`value` (a task holding data, recomputable where a worker holding it is lost)."""
    return value


class DaskEngine(Engine):
    """Run MCL iterations on a Dask cluster, bit-identical to the CPU engine.

    Parameters
    ----------
    threads : int, optional
        How many groups of components the client keeps iterating at once, and
        the default block count of one component; default: the cluster's
        worker threads.
    max_memory : optional
        Not used (each worker has its own memory limit).
    client : distributed.Client, optional
        The cluster's client; default: `scheduler`'s, else the default client
        (``distributed.default_client()``).  No cluster is ever started here.
    scheduler : str, optional
        A scheduler's address (``tcp://host:8786``) to connect to.
    blocks : int, optional
        Column blocks of a graph's (or a component group's) iterand; default
        `threads`.
    worker_engine : str, default "cpu"
        The engine the workers iterate with.  Other than "cpu", each group of
        components is one block iterated by a fresh engine of that name on its
        worker (e.g. "gpu" on dask-cuda workers).
    lost_after : float, default 60
        Seconds without any worker after which an iteration gives up.

    Examples
    --------
    Two workers in this process (``processes=True`` gives them processes of
    their own; ``Client("tcp://HOST:8786")`` joins a running cluster):

    >>> import networkx as nx
    >>> import netmcl
    >>> from distributed import Client, LocalCluster
    >>> with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0",
    ...                   worker_dashboard_address=":0") as cluster, Client(cluster) as client:
    ...     list(netmcl.mcl(nx.barbell_graph(4, 0), engine="dask", client=client, attribute=None))
    [[0, 1, 2, 3], [4, 5, 6, 7]]
    """

    name = "dask"

    def __init__(self, threads=None, max_memory=None, client=None, scheduler=None, blocks=None,
                 worker_engine="cpu", lost_after=60.0):
        self.client = _client(client, scheduler)
        if threads is None:
            threads = sum(w["nthreads"] for w in self.client.scheduler_info()["workers"].values())
        self.threads = max(1, int(threads))
        self.blocks = None if blocks is None else max(1, int(blocks))
        if worker_engine != "cpu":
            from . import engine_names

            if worker_engine not in engine_names():
                raise ParameterError(f"worker_engine must be one of {engine_names()}. Got {worker_engine!r} instead.")
        self.worker_engine = worker_engine
        self.lost_after = float(lost_after)
        self._run = uuid.uuid4().hex[:8]
        self._iteration = 0
        self._futures = []  # per block, the future of (lo, hi, indptr, rows, values)
        self._reads = []  # per block, the blocks its next expansion reads
        self._sizes = []  # per block, its bytes
        self.n = self.n_rule = 0
        self.bounds = np.zeros(1, dtype=np.int64)
        self._least = 0.0

    def spawn(self, *, threads, share):
        return DaskEngine(threads=threads, client=self.client, blocks=self.blocks if threads > 1 else 1,
                          worker_engine=self.worker_engine, lost_after=self.lost_after)

    def _key(self, kind, b):
        return f"netmcl-{self._run}-{self._iteration:04d}-{kind}-{b}"

    def load(self, matrix, *, n_rule):
        m = CscMatrix.of(matrix)
        self.n, self.n_rule = m.shape[0], int(n_rule)
        q = 1 if self.worker_engine != "cpu" else min(max(self.n, 1), self.blocks or self.threads)
        counts = np.cumsum(np.diff(m.indptr))
        cuts = np.searchsorted(counts, counts[-1] * np.arange(1, q) / q) if self.n else np.zeros(0, dtype=np.int64)
        self.bounds = np.unique(np.concatenate([[0], cuts, [self.n]])).astype(np.int64)
        self._least = float(m.data.min()) if m.nnz else 0.0
        self._iteration += 1
        self._futures, self._reads, self._sizes = [], [], []
        for b, (lo, hi) in enumerate(zip(self.bounds[:-1].tolist(), self.bounds[1:].tolist())):
            at, to = int(m.indptr[lo]), int(m.indptr[hi])
            indices = m.indices[at:to].astype(np.int32)
            block = (lo, hi, m.indptr[lo : hi + 1] - at, indices, m.data[at:to].copy())
            self._futures.append(self.client.submit(_block_of, *block, key=self._key("start", b), pure=False))
            self._reads.append(np.union1d(_reads(indices, self.bounds), [b]))
            self._sizes.append(sum(a.nbytes for a in block[2:]))

    def _gather(self, futures):
        """The futures' values; a clear error when the cluster has had no worker for `lost_after` seconds."""
        from distributed.client import _wait

        lost = None
        while True:
            try:
                self.client.sync(_wait, futures, timeout=1.0)
                break
            except TimeoutError:
                if self.client.scheduler_info()["workers"]:
                    lost = None
                elif lost is None:
                    lost = time.monotonic()
                elif time.monotonic() - lost > self.lost_after:
                    raise NetmclError(
                        f"The Dask cluster has had no worker for {self.lost_after:g} seconds: every worker "
                        "was lost. Start workers again (dask worker SCHEDULER_ADDRESS) and rerun."
                    ) from None
        try:
            return self.client.gather(futures)
        except Exception as exc:
            if type(exc).__name__ in _LOST:
                raise NetmclError(f"The Dask cluster lost the iteration's work: {exc}") from exc
            raise

    def iterate(self, inflation, pruning):
        t0 = time.perf_counter()
        if inflation is not None and not inflation > 0.0:
            raise ParameterError(f"The inflation of an iteration must be positive. Got {inflation!r} instead.")
        self._iteration += 1
        where = self.client.who_has(self._futures)
        sizes = self._sizes
        steps, remote = [], 0
        for b, (lo, hi) in enumerate(zip(self.bounds[:-1].tolist(), self.bounds[1:].tolist())):
            if self.worker_engine != "cpu":
                step = self.client.submit(_block_with_engine, self.worker_engine, self.n_rule, self.n, inflation,
                                          pruning, self.bounds, self._futures[b], key=self._key("step", b),
                                          pure=False, retries=2)
            else:
                reads = [self._futures[c] for c in self._reads[b].tolist()]
                step = self.client.submit(_block_step, self.n_rule, self.n, lo, hi, inflation, tuple(pruning),
                                          self._least, self.bounds, *reads, key=self._key("step", b), pure=False,
                                          retries=2)
            steps.append(step)
        blocks = [self.client.submit(operator.getitem, s, 0, key=self._key("block", b), pure=False)
                  for b, s in enumerate(steps)]
        stats = self._gather([self.client.submit(operator.getitem, s, 1, key=self._key("stats", b), pure=False)
                              for b, s in enumerate(steps)])
        # bytes that moved between workers: blocks read by a task that ran elsewhere than they were
        holders = {f.key: set(where.get(f.key, ())) for f in self._futures}
        if sizes is not None:
            for b, s in enumerate(stats):
                for c in self._reads[b].tolist():
                    if s["worker"] not in holders[self._futures[c].key]:
                        remote += sizes[c]
        self._futures = blocks  # the blocks before stay in the lineage: a lost block is recomputed from them
        self._reads = [np.union1d(s["reads"], [b]) for b, s in enumerate(stats)]
        self._sizes = [s["bytes"] for s in stats]
        self._keep_least([s["least"] for s in stats])
        st = np.sum([s["st"] for s in stats], axis=0)
        per_worker, engines = {}, {}
        for s in stats:
            per_worker[s["worker"]] = per_worker.get(s["worker"], 0.0) + s["seconds"]
            engines[s["engine"]] = engines.get(s["engine"], 0) + 1
        return IterationStats(
            chaos=max(s["chaos"] for s in stats) if stats else 0.0,
            expanded=int(st[0]), kept=int(st[1]), recovered=int(st[2]), selected=int(st[3]),
            recovered_after_select=int(st[4]), emergency=int(st[5]), dense_path=int(st[6]), emptied=int(st[7]),
            min_mass=float(min(s["st"][10] for s in stats)) if stats else 1.0,
            seconds=time.perf_counter() - t0,
            extra={"blocks": len(stats), "worker_seconds": per_worker, "bytes_between_workers": int(remote),
                   "worker_engines": engines},
        )

    def inflate(self, inflation):
        self._iteration += 1
        both = [self.client.submit(_block_inflate, f, inflation, key=self._key("inflate", b), pure=False)
                for b, f in enumerate(self._futures)]
        self._futures = [self.client.submit(operator.getitem, f, 0, key=self._key("inflated", b), pure=False)
                         for b, f in enumerate(both)]
        counts = self._gather([self.client.submit(operator.getitem, f, 1, key=self._key("emptied", b), pure=False)
                               for b, f in enumerate(both)])
        self._keep_least([least for _, least in counts])
        return sum(emptied for emptied, _ in counts)

    def _keep_least(self, values):
        """The iterand's least value, from its blocks' (the kernel's bound on where sums are exact)."""
        least = min(values, default=np.inf)
        self._least = float(least) if np.isfinite(least) else 0.0

    def result(self):
        blocks = self._gather(self._futures)
        counts = np.concatenate([np.diff(b[2]) for b in blocks]) if blocks else np.zeros(0, dtype=np.int64)
        indptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        rows = np.concatenate([b[3] for b in blocks]) if blocks else np.zeros(0, dtype=np.int32)
        vals = np.concatenate([b[4] for b in blocks]) if blocks else np.zeros(0, dtype=np.float32)
        return CscMatrix(indptr, rows.astype(np.int32, copy=False), vals, self.n)

    def release_scratch(self):
        pass

    def sweep_runs(self, graph, settings, expansion, first):
        """Each inflation's run of a sweep (after the shared first expansion) as a task:
        yields ``(clustering, seconds)`` in the order of `settings`."""
        g = self.client.submit(_same, graph, key=f"netmcl-{self._run}-graph", pure=False)
        e = self.client.submit(_same, expansion, key=f"netmcl-{self._run}-expansion", pure=False)
        workers = sorted(self.client.scheduler_info()["workers"]) or [None]
        # spread over the workers (the inputs' holder would otherwise take them all), any other one if it is lost
        runs = [self.client.submit(_sweep_run, g, prm, e, first, key=f"netmcl-{self._run}-sweep-{k}", pure=False,
                                   retries=2, workers=workers[k % len(workers)], allow_other_workers=True)
                for k, prm in enumerate(settings)]
        for run in runs:
            yield self._gather([run])[0]


