"""The CPU engine: numba kernels, columns split among threads, phases under a budget.

Columns are cut into chunks of about equal work (summed lengths of the columns
each one reads) and the chunks are handed to a thread pool; the kernels release
the GIL.  A column's arithmetic never depends on the chunking, so the result is
the same for every thread count and every memory budget.

Under a memory budget the columns are processed in phases (HipMCL's idea):
each phase's pruned columns are copied into the next iterand, preallocated from
an estimate of its size, before the next phase starts, so that the transient
memory is bounded by the phase rather than by the whole iteration.  The
unpruned expanded matrix is never held: each column is pruned as soon as it is
expanded.
"""

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp

from ..exceptions import ParameterError
from . import Engine, IterationStats
from . import _kernels as K

__all__ = ["CpuEngine", "parse_memory"]

#: bytes per stored entry of an iterand (int32 row + float32 value)
ENTRY_BYTES = 8
#: bytes of per-thread scratch per node (accumulator, marks, row lists, values, flags)
SCRATCH_BYTES_PER_NODE = 8 + 1 + 4 + 4 + 4 + 4 + 1


def parse_memory(value):
    """Bytes from an int or a string such as ``"16G"``, ``"500M"``, ``"2.5GB"``.

    Examples
    --------
    >>> parse_memory("16G"), parse_memory("512M"), parse_memory(1000)
    (17179869184, 536870912, 1000)
    """
    if value is None:
        return None
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        amount = int(value)
    else:
        text = str(value).strip().upper().removesuffix("B").removesuffix("I")
        scale = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}.get(text[-1:], 1)
        number = text[:-1] if text[-1:] in "KMGT" else text
        try:
            amount = int(float(number) * scale)
        except ValueError:
            amount = -1
    if amount <= 0:
        raise ParameterError(
            f"The 'max_memory' parameter of mcl must be a positive number of bytes or a size "
            f"such as '16G' or '500M'. Got {value!r} instead."
        )
    return amount


class CpuEngine(Engine):
    """Run MCL iterations on the CPU.

    Parameters
    ----------
    threads : int, optional
        Number of threads (mcl's ``-te``); default: the cores available.
    max_memory : int or str, optional
        Bound on the engine's memory (iterands, scratch and phase buffers),
        e.g. ``"16G"``.  Default: no bound (one phase per iteration).

    Examples
    --------
    >>> CpuEngine(threads=2, max_memory="1G").threads
    2
    """

    name = "cpu"

    def __init__(self, threads=None, max_memory=None):
        if threads is None or threads <= 0:
            threads = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        self.threads = int(threads)
        self.max_memory = parse_memory(max_memory)
        self._local = threading.local()
        self._indptr = self._indices = self._data = None
        self.n = 0
        self.n_rule = 0

    def load(self, matrix, *, n_rule=None):
        """Take the start matrix; `n_rule` is the node count of mcl's dense-path rule.

        A component clustered on its own passes the whole graph's node count
        so that every column takes the product path mcl would take.
        """
        m = sp.csc_array(matrix)
        m.sort_indices()
        self.n = m.shape[0]
        self.n_rule = self.n if n_rule is None else int(n_rule)
        self._indptr = np.ascontiguousarray(m.indptr, dtype=np.int64)
        self._indices = np.ascontiguousarray(m.indices, dtype=np.int32)
        self._data = np.ascontiguousarray(m.data, dtype=np.float32)

    def result(self):
        return sp.csc_array((self._data, self._indices, self._indptr), shape=(self.n, self.n))

    def spawn(self, *, threads, share):
        budget = None if self.max_memory is None else max(1, self.max_memory // share)
        return CpuEngine(threads=threads, max_memory=budget)

    def _scratch(self):
        loc = self._local
        if getattr(loc, "n", -1) != self.n:
            loc.n = self.n
            loc.acc = np.zeros(self.n, dtype=np.float64)
            loc.mark = np.zeros(self.n, dtype=np.uint8)
            loc.touched = np.zeros(self.n, dtype=np.int32)
        return loc.acc, loc.mark, loc.touched

    def _column_estimates(self, pruning):
        """Per column: expansion work and a size estimate of the pruned column."""
        colnnz = np.diff(self._indptr)
        owner = np.repeat(np.arange(self.n), colnnz)
        flops = np.bincount(owner, weights=colnnz[self._indices], minlength=self.n).astype(np.int64)
        cut, select, recover, _ = pruning
        cap = max(int(0.99999 / cut) + 1 if cut > 0 else self.n, select, recover, 1)
        return flops, np.minimum(np.minimum(flops, self.n), cap) + 1

    def _phases(self, flops, estimate):
        """Column ranges (phases), each cut into chunks of about equal work."""
        n = self.n
        if n == 0:
            return []
        fixed = ENTRY_BYTES * (self._indices.size + int(estimate.sum())) + 16 * (n + 1)
        fixed += self.threads * SCRATCH_BYTES_PER_NODE * n
        if self.max_memory is None:
            bounds = [0, n]
        else:
            room = self.max_memory - fixed
            least = ENTRY_BYTES * int(estimate.max()) * self.threads
            if room < least:
                raise ParameterError(
                    f"mcl needs about {(fixed + least) / 2**20:.1f} MiB for this iteration (iterands "
                    f"and scratch for {self.threads} threads), more than max_memory = "
                    f"{self.max_memory / 2**20:.1f} MiB. Raise max_memory, use fewer threads, "
                    "or prune harder (lower -P/-S/-R)."
                )
            cum = np.cumsum(estimate) * ENTRY_BYTES
            bounds, start = [0], 0
            while start < n:
                base = cum[start - 1] if start else 0
                stop = int(np.searchsorted(cum, base + room, side="right"))
                start = max(stop, start + 1)
                bounds.append(min(start, n))
        work = flops + 1
        phases = []
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            nchunks = 1 if self.threads == 1 else min(hi - lo, self.threads * 8)
            cum = np.cumsum(work[lo:hi])
            cuts = lo + np.searchsorted(cum, np.linspace(0, cum[-1], nchunks + 1)[1:-1])
            edges = np.unique(np.concatenate([[lo], cuts, [hi]]))
            phases.append(list(zip(edges[:-1].tolist(), edges[1:].tolist())))
        return phases

    def iterate(self, inflation, pruning):
        t0 = time.perf_counter()
        cut, select, recover, pct = pruning
        flops, estimate = self._column_estimates(pruning)
        phases = self._phases(flops, estimate)

        def run(rng):
            acc, mark, touched = self._scratch()
            return K.expand_columns(
                self.n_rule, self.n, self._indptr, self._indices, self._data, rng[0], rng[1],
                cut, select, recover, pct, inflation, acc, mark, touched,
            )

        counts = np.zeros(self.n, dtype=np.int64)
        out_idx = np.empty(int(estimate.sum()), dtype=np.int32)
        out_val = np.empty(out_idx.size, dtype=np.float32)
        filled = 0
        total = np.zeros(K.N_STATS)
        total[K.STAT_MIN_MASS] = np.inf
        chaos = -np.inf
        pool = ThreadPoolExecutor(max_workers=self.threads) if self.threads > 1 else None
        try:
            for chunks in phases:
                parts = pool.map(run, chunks) if pool else map(run, chunks)
                for (lo, hi), (cnt, idx, val, ch, st) in zip(chunks, parts):
                    if filled + idx.size > out_idx.size:  # ties kept more than estimated
                        size = filled + max(idx.size, out_idx.size // 4)
                        out_idx = _grown(out_idx, filled, size)
                        out_val = _grown(out_val, filled, size)
                    out_idx[filled : filled + idx.size] = idx
                    out_val[filled : filled + val.size] = val
                    filled += idx.size
                    counts[lo:hi] = cnt
                    chaos = max(chaos, ch)
                    total[: K.STAT_MIN_MASS] += st[: K.STAT_MIN_MASS]
                    total[K.STAT_MIN_MASS] = min(total[K.STAT_MIN_MASS], st[K.STAT_MIN_MASS])
        finally:
            if pool:
                pool.shutdown()
        indptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        self._indptr = indptr
        self._indices = out_idx[:filled].copy() if filled < out_idx.size // 2 else out_idx[:filled]
        self._data = out_val[:filled].copy() if filled < out_val.size // 2 else out_val[:filled]
        return IterationStats(
            chaos=chaos if self.n else 0.0,
            expanded=int(total[K.STAT_EXPANDED]),
            kept=int(total[K.STAT_KEPT]),
            recovered=int(total[K.STAT_RECOVER]),
            selected=int(total[K.STAT_SELECT]),
            recovered_after_select=int(total[K.STAT_RECOVER_AFTER_SELECT]),
            emergency=int(total[K.STAT_EMERGENCY]),
            dense_path=int(total[K.STAT_DENSE_PATH]),
            emptied=int(total[K.STAT_EMPTIED]),
            min_mass=float(total[K.STAT_MIN_MASS]),
            seconds=time.perf_counter() - t0,
            extra={"phases": len(phases)},
        )


def _grown(array, filled, size):
    """A larger array holding array[:filled]."""
    out = np.empty(size, dtype=array.dtype)
    out[:filled] = array[:filled]
    return out
