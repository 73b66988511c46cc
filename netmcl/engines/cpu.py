"""The CPU engine: numba kernels, columns split among threads.

Columns are cut into chunks of about equal work (summed lengths of the columns
each one reads) and the chunks are handed to a thread pool; the kernels release
the GIL.  A column's arithmetic never depends on the chunking, so the result is
the same for every thread count.
"""

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp

from . import Engine, IterationStats
from . import _kernels as K

__all__ = ["CpuEngine"]


class CpuEngine(Engine):
    """Run MCL iterations on the CPU.

    Parameters
    ----------
    threads : int, optional
        Number of threads (mcl's ``-te``); default: the cores available.

    Examples
    --------
    >>> CpuEngine(threads=2).threads
    2
    """

    name = "cpu"

    def __init__(self, threads=None):
        if threads is None or threads <= 0:
            threads = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        self.threads = int(threads)
        self._local = threading.local()
        self._indptr = self._indices = self._data = None
        self.n = 0

    def load(self, matrix):
        m = sp.csc_array(matrix)
        self.n = m.shape[0]
        self._indptr = np.ascontiguousarray(m.indptr, dtype=np.int64)
        self._indices = np.ascontiguousarray(m.indices, dtype=np.int32)
        self._data = np.ascontiguousarray(m.data, dtype=np.float32)

    def result(self):
        return sp.csc_array((self._data, self._indices, self._indptr), shape=(self.n, self.n))

    def _scratch(self):
        loc = self._local
        if getattr(loc, "n", -1) != self.n:
            loc.n = self.n
            loc.acc = np.zeros(self.n, dtype=np.float64)
            loc.mark = np.zeros(self.n, dtype=np.uint8)
            loc.touched = np.zeros(self.n, dtype=np.int32)
        return loc.acc, loc.mark, loc.touched

    def _chunks(self):
        """Column ranges of about equal expansion work."""
        n = self.n
        indptr = self._indptr
        colnnz = np.diff(indptr)
        owner = np.repeat(np.arange(n), colnnz)
        work = np.bincount(owner, weights=colnnz[self._indices], minlength=n) + 1
        nchunks = 1 if self.threads == 1 else min(n, self.threads * 8)
        if nchunks <= 1:
            return [(0, n)]
        cum = np.cumsum(work)
        bounds = np.searchsorted(cum, np.linspace(0, cum[-1], nchunks + 1)[1:-1])
        edges = np.unique(np.concatenate([[0], bounds, [n]]))
        return list(zip(edges[:-1].tolist(), edges[1:].tolist()))

    def iterate(self, inflation, pruning):
        t0 = time.perf_counter()
        cut, select, recover, pct = pruning

        def run(rng):
            acc, mark, touched = self._scratch()
            return K.expand_columns(
                self.n, self._indptr, self._indices, self._data, rng[0], rng[1],
                cut, select, recover, pct, inflation, acc, mark, touched,
            )

        chunks = self._chunks()
        if len(chunks) == 1 or self.threads == 1:
            parts = [run(c) for c in chunks]
        else:
            with ThreadPoolExecutor(max_workers=self.threads) as pool:
                parts = list(pool.map(run, chunks))
        counts = np.concatenate([p[0] for p in parts])
        indptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        self._indptr = indptr
        self._indices = np.concatenate([p[1] for p in parts])
        self._data = np.concatenate([p[2] for p in parts])
        total = np.sum([p[4] for p in parts], axis=0)
        return IterationStats(
            chaos=max(p[3] for p in parts),
            expanded=int(total[K.STAT_EXPANDED]),
            kept=int(total[K.STAT_KEPT]),
            recovered=int(total[K.STAT_RECOVER]),
            selected=int(total[K.STAT_SELECT]),
            recovered_after_select=int(total[K.STAT_RECOVER_AFTER_SELECT]),
            emergency=int(total[K.STAT_EMERGENCY]),
            dense_path=int(total[K.STAT_DENSE_PATH]),
            emptied=int(total[K.STAT_EMPTIED]),
            min_mass=float(min(p[4][K.STAT_MIN_MASS] for p in parts)),
            seconds=time.perf_counter() - t0,
        )
