"""The GPU engine's host side: storage, phases, the statistics record, the fallback.

Storage.  The start matrix (degrees unbounded) is uploaded once as CSC.  Each
pruned iterand is stored ELLPACK-R: a slab of ``W`` slots per column
(column-major, column ``k`` at ``k * W``), a length per column, and an
overflow pool after the slab for the columns longer than ``W`` (ties kept by
selection and recovery, and the longest tenth of the columns).  ``W`` is
the 90th percentile of the kept column lengths, at most the bound pruning
sets (``ell_bound``); the kernels read both layouts through a start and a
length per column.

An iteration.  ``survey`` counts each column's expansion work (flops); a
column's staging room is ``min(n, flops_j)`` (at least 1), the most entries
its expansion can have.  Columns are cut into phases whose staging fits the
memory left; each phase runs ``expand_prune`` (a column per block), its
kept entries are copied out of the staging, and the staging is freed.  Per
iteration the host reads three small records: the staging total, the
phases' kept counts (with the columns whose inflation is left to the host,
see ``_kernels``), and the iteration's statistics.

The clusters.  ``clusters`` interprets the limit on the device and copies
back an int32 per node (see its docstring), not the limit; ``bytes_to_host``
counts every copy from the device.

Out of device memory.  An iteration that runs out of device memory (a CUDA
allocation failure, or a budget ``max_memory`` too small for its phases) is
run again with twice the phases and half the blocks (the result never
depends on either); when even one column a phase does not fit, the engine
hands the iterand to the CPU engine, logs a warning saying why, and goes on
there.  The current iterand is never written during an iteration, so a
failed attempt leaves nothing half done.
"""

import logging
import math
import time

import numpy as np

from ...exceptions import ParameterError
from ...params import positive_integer
from ...sparse import CscMatrix, spans
from .. import Engine, IterationStats, get_engine
from . import _kernels as K
from ._probe import simulated

__all__ = ["GpuEngine", "ell_bound"]

log = logging.getLogger("netmcl")

#: blocks of the expansion grid on a device: enough to fill an H200's 132
#: multiprocessors several times over; each block holds 13 bytes per node of
#: scratch (accumulator, marks, selection copy)
DEVICE_BLOCKS = 1024
#: threads of a block on a device: each owns a stripe of rows of the column
#: being expanded; more threads share the expansion of one column further but
#: each searches every column read for its stripe
DEVICE_THREADS = 128
#: the same in the CUDA simulator, where each thread is a Python thread and a
#: barrier costs a fraction of a millisecond
SIMULATOR_BLOCKS, SIMULATOR_THREADS = 2, 4
#: without max_memory, the share of the device's free memory an iteration may take
DEVICE_SHARE = 0.8
#: the ELLPACK-R width is this quantile of the kept column lengths (at most the
#: pruning bound): the longest tenth of the columns go to the overflow pool.  On
#: the bundled PPI networks the iterands then take 2.2-3.4 slots an entry over a
#: run, against 2.9-8.0 with the longest column's width and 42-154 with the
#: pruning bound (``benchmarks/ell_padding.py``)
ELL_QUANTILE = 0.9
#: device bytes at most for the powers of the columns that ``inflate`` inflates at once
INFLATE_SCRATCH = 256 << 20
#: device bytes per staging entry: the staged entry (8), its copy among the
#: kept entries (at most 8) and its slot in the next iterand (at most 8)
STAGED_BYTES = 24
#: device bytes per node of a block's scratch: float64 accumulator, uint8 mark, float32 selection copy
SCRATCH_BYTES = 13
#: device bytes per node of the per-column arrays of an iteration
COLUMN_BYTES = 8 * 6 + 8 + 3


#: the host's mark, in ``clusters``, of a node in several attractor systems
SEVERAL = -1


def _several(nodes, lo, hi, indices, label, none):
    """{node: set of systems} of the `nodes` in several attractor systems.

    ``indices[lo[k]:hi[k]]`` are the nodes that ``nodes[k]`` points to in
    the DAG; `label` gives every other node's one system, or `none` (in
    none).  The sets are the union of the children's, to a fixed point (the
    host's ``_memberships`` on these few nodes).
    """
    sets = {int(v): set() for v in nodes}
    spans_of = {int(v): (int(a), int(b)) for v, a, b in zip(nodes, lo, hi)}
    while True:
        grown = False
        for v in sets:
            s = sets[v]
            before = len(s)
            a, b = spans_of[v]
            for i in indices[a:b].tolist():
                c = int(label[i])
                if c == SEVERAL:
                    s |= sets[i]
                elif c != none:
                    s.add(c)
            grown |= len(s) != before
        if not grown:
            return sets


def _allocate(xp, shape, dtype, zero=False):
    """A device array (CuPy) or a NumPy array under the simulator.  Every
    allocation of the engine comes through here."""
    return xp.zeros(shape, dtype=dtype) if zero else xp.empty(shape, dtype=dtype)


def ell_bound(pruning, n):
    """The most entries pruning keeps in a column, ties aside: the ELLPACK width's bound.

    Selection keeps ``S`` (or the cutoff's survivors when fewer), recovery
    ``R``; without selection, the cutoff keeps at most about ``P`` entries
    of a stochastic column.  Ties at a selection or recovery threshold can
    keep more: those columns go to the overflow pool.

    Examples
    --------
    >>> from netmcl.engines import Pruning
    >>> ell_bound(Pruning(0.99999 / 10000, 1100, 1400, 0.9), 50_000)
    1400
    >>> ell_bound(Pruning(0.99999 / 30, 0, 12, 0.9), 50_000), ell_bound(Pruning(-1.0, 0, 0, 0.9), 7)
    (31, 7)
    """
    cut, select, recover, _ = pruning
    if select > 0:
        bound = max(select, recover)
    else:
        bound = max(recover, int(0.99999 / cut) + 1 if cut > 0 else n)
    return max(1, min(n, bound))


class GpuEngine(Engine):
    """Run MCL iterations on a CUDA device (numba-cuda kernels, CuPy memory).

    The iterands are bit-identical to the CPU engine's (and so to mcl's),
    whatever the launch sizes and the memory budget.

    Parameters
    ----------
    threads : int, optional
        CPU threads of the CPU engine the run falls back to when the device
        runs out of memory (default: all cores).
    max_memory : int or str, optional
        Bound on the device memory an iteration takes, e.g. ``"8G"``;
        default: 80 % of what is free on the device.
    blocks : int, optional
        Blocks of the expansion grid (a column per block at a time).
    threads_per_block : int, optional
        Threads per block (at most 1024); each owns a stripe of rows.
    pow_check : {"check", "never", "always"}
        Where inflation's ``pow`` could round otherwise than the C library's,
        let the host inflate the column ("check", the default); "always"
        lets the host inflate every column (for tests); "never" trusts the
        device's ``pow`` (not bit-exact in rare cases).

    Attributes
    ----------
    bytes_to_host : int
        Bytes copied from the device to the host so far: the iterations'
        small records, and for the clusters an int32 per node (``clusters``);
        ``result()`` adds the whole iterand.

    Examples
    --------
    >>> import os
    >>> from netmcl.engines import available_engines
    >>> "gpu" not in available_engines() or GpuEngine(blocks=2, threads_per_block=4).name == "gpu"
    True
    """

    name = "gpu"

    def __init__(self, threads=None, max_memory=None, blocks=None, threads_per_block=None, pow_check="check"):
        from ..cpu import parse_memory

        self.threads = None if threads is None else positive_integer("threads", threads)
        self.max_memory = parse_memory(max_memory)
        self.simulated = simulated()
        if self.simulated:
            self._xp = np
        else:
            import cupy

            self._xp = cupy
        self.blocks = positive_integer(
            "blocks", blocks if blocks is not None else SIMULATOR_BLOCKS if self.simulated else DEVICE_BLOCKS
        )
        tpb = threads_per_block if threads_per_block is not None else (
            SIMULATOR_THREADS if self.simulated else DEVICE_THREADS)
        self.threads_per_block = positive_integer("threads_per_block", tpb)
        if self.threads_per_block > K.MAX_THREADS:
            raise ParameterError(
                f"The 'threads_per_block' parameter of the GPU engine must be at most {K.MAX_THREADS}. "
                f"Got {tpb!r} instead."
            )
        checks = {"never": K.NEVER, "check": K.CHECK, "always": K.ALWAYS}
        if pow_check not in checks:
            raise ParameterError(
                f"The 'pow_check' parameter of the GPU engine must be one of {sorted(checks)}. "
                f"Got {pow_check!r} instead."
            )
        self.pow_check = checks[pow_check]
        self._oom = (MemoryError,)
        if not self.simulated:
            import cupy

            self._oom = (MemoryError, cupy.cuda.memory.OutOfMemoryError)
        self._cpu = None  # the CPU engine the run fell back to
        self._start = self._len = self._rows = self._vals = None
        self._width = None  # W of the ELLPACK-R slab; None: the iterand is CSC (the start matrix)
        self.n = 0
        self.n_rule = 0
        #: bytes copied from the device to the host so far (``_host``)
        self.bytes_to_host = 0

    # ------------------------------------------------------------------ helpers
    def _new(self, shape, dtype, zero=False):
        return _allocate(self._xp, shape, dtype, zero)

    def _device(self, array, dtype):
        """`array` (host) as a device array of `dtype`, a copy of its own."""
        out = self._new(np.shape(array), dtype)
        out[...] = self._xp.asarray(np.ascontiguousarray(array, dtype=dtype))
        return out

    def _host(self, array):
        """`array` on the host: every copy from the device goes through here and is
        counted in ``bytes_to_host`` (under the simulator: what would cross)."""
        self.bytes_to_host += int(array.nbytes)
        return array if self.simulated else array.get()

    def _grid(self, count):
        """Blocks of a one-thread-per-item launch over `count` items (grid-stride loops)."""
        return max(1, min(self.blocks, -(-count // self.threads_per_block)))

    # ------------------------------------------------------------------ protocol
    def load(self, matrix, *, n_rule=None):
        m = CscMatrix.of(matrix)
        self.n = m.shape[0]
        self.n_rule = self.n if n_rule is None else int(n_rule)
        self._cpu = None
        try:
            self._start = self._device(m.indptr[:-1], np.int64)
            self._len = self._device(np.diff(m.indptr), np.int64)
            self._rows = self._device(m.indices, np.int32)
            self._vals = self._device(m.data, np.float32)
            self._width = None
        except self._oom as exc:
            self._release()
            self._fall_back(m, f"the start matrix ({m.nnz:,} entries) does not fit on the device ({exc})")

    def iterate(self, inflation, pruning):
        if inflation is None:
            power = 0.0
        elif not inflation > 0.0:
            raise ParameterError(f"The inflation of an iteration must be positive. Got {inflation!r} instead.")
        else:
            power = float(inflation)
        if self._cpu is not None:
            return self._on_cpu(self._cpu.iterate(inflation, pruning))
        t0 = time.perf_counter()
        phases, blocks, retries = 1, self.blocks, 0
        while True:
            try:
                stats = self._iterate(power, pruning, phases, blocks)
                break
            except self._oom as exc:
                if phases >= self.n and blocks == 1:
                    self._fall_back(self.result(), f"out of device memory even one column at a time ({exc})")
                    return self._on_cpu(self._cpu.iterate(inflation, pruning))
                phases, blocks, retries = min(max(self.n, 1), 2 * phases), max(1, blocks // 2), retries + 1
                log.info("GPU engine: out of device memory (%s); trying again in %d phases on %d blocks",
                         exc, phases, blocks)
        stats.seconds = time.perf_counter() - t0
        stats.extra["retries"] = retries
        return stats

    def inflate(self, inflation):
        if self._cpu is not None:
            return self._cpu.inflate(inflation)
        if not inflation > 0.0:
            raise ParameterError(f"The inflation of an iteration must be positive. Got {inflation!r} instead.")
        xp, n = self._xp, self.n
        tpb = self.threads_per_block
        grid = self._grid(n)
        if float(inflation) != 2.0:  # each thread of the grid copies a column's powers into n floats of its own
            grid = max(1, min(grid, INFLATE_SCRATCH // (4 * tpb * max(n, 1))))
        sel = self._new(grid * tpb * n if float(inflation) != 2.0 else 1, np.float32)
        status = self._new(n, np.int8)
        K.inflate_columns[grid, tpb](
            np.int64(n), self._start, self._len, self._vals, np.float64(inflation), np.int64(self.pow_check), sel,
            status,
        )
        del sel
        pending = xp.nonzero(status == K.PENDING)[0]
        if int(pending.size):
            emptied = self._settle(pending, self._start, self._len, self._vals, float(inflation))
            status[emptied] = K.EMPTIED
        gone = status == K.EMPTIED
        self._len[gone] = 0
        return int(xp.count_nonzero(gone))

    def result(self):
        if self._cpu is not None:
            return self._cpu.result()
        start, length = self._host(self._start), self._host(self._len)
        rows, vals = self._host(self._rows), self._host(self._vals)
        indptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(length, out=indptr[1:])
        at = spans(start, length)
        return CscMatrix(indptr, rows[at], vals[at], self.n)

    def clusters(self, overlap="cut"):
        """The clusters of the current iterand, found on the device.

        The attractor DAG (:func:`~netmcl.interpret.interpret`'s first
        step) is marked in place (``attractor_dag``), the attractor systems
        are the weak components of its arcs among attractors
        (:func:`netmcl.traversal._gpu.components_of_pattern`), numbered in
        mcl's order on the device, and every other node takes the smallest
        and largest system it reaches (``spread_clusters``, to a fixed
        point).  The host gets one int32 per node: the node's system where
        it is in exactly one (its first with ``overlap="cut"``), or a mark
        for none or several.  With "keep" and "split", the DAG columns of
        the nodes in several systems (few) come back too, and their sets are
        completed on the host.  :func:`netmcl.interpret.resolve` then forms
        the clusters, as after the host's interpretation: the same lists.
        """
        if self._cpu is not None:
            return self._cpu.clusters(overlap)
        if overlap not in ("cut", "keep", "split"):
            raise ParameterError(f"The 'overlap' parameter must be one of ['cut', 'keep', 'split']. "
                                 f"Got {overlap!r} instead.")
        from ...interpret import resolve
        from ...traversal import _gpu as T

        xp, n, tpb = self._xp, self.n, self.threads_per_block
        if n == 0:
            return []
        grid = self._grid(n)
        keep = self._new(self._rows.size, np.uint8, zero=True)  # the ELLPACK padding stays 0
        attractor = self._new(n, np.uint8)
        K.attractor_dag[grid, tpb](np.int64(n), self._start, self._len, self._rows, self._vals, keep, attractor)
        # attractor systems: weak components of the DAG's arcs between attractors
        indptr, indices = self._pattern(keep, attractor, attractor)
        comp = T.components_of_pattern(indptr, indices, n, threads=tpb)
        del indptr, indices
        is_attractor = attractor != 0
        size = xp.bincount(comp[is_attractor], minlength=n)  # components are numbered by smallest node
        systems = xp.flatnonzero(size).astype(np.int64)  # ascending: by smallest attractor
        ncomp = int(systems.size)
        order = xp.argsort((n - size[systems]) * (n + 1) + systems)  # largest first, then smallest attractor
        cid = xp.full(n, -1, dtype=np.int32)
        cid[systems[order]] = xp.arange(ncomp, dtype=np.int32)
        none = np.int32(np.iinfo(np.int32).max)
        first = xp.where(is_attractor, cid[comp], none).astype(np.int32)
        last = xp.where(is_attractor, cid[comp], np.int32(-1)).astype(np.int32)
        changed = self._new(1, np.int32)
        while True:
            changed[:] = 0
            K.spread_clusters[grid, tpb](np.int64(n), self._start, self._len, self._rows, keep, attractor, first,
                                         last, changed)
            if not int(self._host(changed)[0]):
                break
        several = (first != last) & (first != none)
        if overlap == "cut":
            label = first
        else:  # SEVERAL: a node in more than one system, its systems found on the host below
            label = xp.where(several, np.int32(SEVERAL), first)
        label = self._host(label)
        alone = label < none
        if overlap == "cut":
            node_of, clus_of = np.flatnonzero(alone), label[alone].astype(np.int64)
        else:
            alone &= label >= 0
            nodes = np.flatnonzero(label == SEVERAL)
            node_of, clus_of = [np.flatnonzero(alone)], [label[alone].astype(np.int64)]
            if nodes.size:  # their DAG columns: a start and an end each, and the arcs
                indptr, indices = self._pattern(keep, several.astype(np.uint8), xp.ones(n, dtype=np.uint8))
                at = xp.asarray(nodes)
                lo, hi, indices = self._host(indptr[at]), self._host(indptr[at + 1]), self._host(indices)
                for node, clus in _several(nodes, lo, hi, indices, label, none).items():
                    node_of.append(np.full(len(clus), node, dtype=np.int64))
                    clus_of.append(np.array(sorted(clus), dtype=np.int64))
            node_of, clus_of = np.concatenate(node_of), np.concatenate(clus_of)
        return resolve(node_of, clus_of, n, ncomp, overlap)

    def _pattern(self, keep, colsel, rowsel):
        """The kept DAG entries of the columns j with colsel[j] in the rows i with
        rowsel[i], as a CSC pattern on the device (indptr int64, indices int32)."""
        xp, n, tpb = self._xp, self.n, self.threads_per_block
        counts = self._new(n, np.int64)
        K.count_arcs[self._grid(n), tpb](np.int64(n), self._start, self._len, self._rows, keep, colsel, rowsel,
                                         counts)
        indptr = self._new(n + 1, np.int64, zero=True)
        indptr[1:] = xp.cumsum(counts)
        indices = self._new(int(self._host(indptr[n:])[0]), np.int32)
        K.gather_arcs[self._grid(n), tpb](np.int64(n), self._start, self._len, self._rows, keep, colsel, rowsel,
                                          indptr, indices)
        return indptr, indices

    def release_scratch(self):
        if self._cpu is not None:
            self._cpu.release_scratch()
        elif not self.simulated:
            self._xp.get_default_memory_pool().free_all_blocks()

    def spawn(self, *, threads, share):
        return None  # one device: groups of components iterate together on it

    # ------------------------------------------------------------------ the fallback
    def _release(self):
        self._start = self._len = self._rows = self._vals = None
        if not self.simulated:
            self._xp.get_default_memory_pool().free_all_blocks()

    def _fall_back(self, matrix, reason):
        log.warning("GPU engine: %s; the run goes on on the CPU engine.", reason)
        self._release()
        # max_memory bounds device memory: the host's is another matter
        self._cpu = get_engine("cpu", threads=self.threads)
        self._cpu.load(matrix, n_rule=self.n_rule)

    @staticmethod
    def _on_cpu(stats):
        stats.extra["engine"] = "cpu"
        return stats

    # ------------------------------------------------------------------ an iteration
    def _room(self, blocks):
        """Staging entries an iteration may hold besides what it holds anyway."""
        held = (self._rows.size * 4 + self._vals.size * 4 + 16 * self.n
                + (COLUMN_BYTES + SCRATCH_BYTES * blocks) * self.n)
        if self.max_memory is not None:
            return (self.max_memory - held) // STAGED_BYTES
        if self.simulated:
            return 1 << 62
        free, _ = self._xp.cuda.runtime.memGetInfo()
        free += self._xp.get_default_memory_pool().free_bytes()
        return int(free * DEVICE_SHARE - (COLUMN_BYTES + SCRATCH_BYTES * blocks) * self.n) // STAGED_BYTES

    def _iterate(self, power, pruning, phases, blocks):
        xp, n = self._xp, self.n
        if n == 0:
            return IterationStats(chaos=0.0, min_mass=np.inf, extra={"phases": 0, "blocks": 0})
        cut, select, recover, pct = pruning
        tpb = self.threads_per_block
        blocks = max(1, min(blocks, n))
        flops = self._new(n, np.int64)
        K.survey[self._grid(n), tpb](np.int64(n), self._start, self._len, self._rows, flops)
        caps = xp.maximum(xp.minimum(flops, n), 1)
        cum = xp.cumsum(caps)
        total, widest = (int(v) for v in self._host(xp.stack([cum[-1], caps.max()]))) if n else (0, 0)
        room = self._room(blocks)
        if widest > room:
            raise MemoryError(f"a column may expand to {widest:,} entries, room is left for {max(room, 0):,}")
        phases = max(phases, -(-total // max(room, 1)))
        kept, chaos, expanded = (self._new(n, t) for t in (np.int64, np.float64, np.int64))
        branch, dense, status = (self._new(n, t) for t in (np.int8, np.uint8, np.int8))
        mass = self._new(n, np.float64)
        acc = self._new(blocks * n, np.float64, zero=True)
        mark = self._new(blocks * n, np.uint8, zero=True)
        sel = self._new(blocks * n, np.float32)
        tally = self._new(blocks * tpb, np.int64)
        if phases > 1:  # phase p ends at the first column whose cumulative room passes p / phases of the total
            targets = xp.arange(1, phases, dtype=np.int64) * total // phases
            cuts = self._host(xp.searchsorted(cum, targets, side="right"))
            edges = np.unique(np.concatenate([[0], cuts, [n]]))
        else:
            edges = np.array([0, n])
        cum_h = self._host(cum[edges[1:] - 1]) if n else np.zeros(0, dtype=np.int64)
        parts = []
        for p, (lo, hi) in enumerate(zip(edges[:-1].tolist(), edges[1:].tolist())):
            base = int(cum_h[p - 1]) if p else 0
            size = int(cum_h[p]) - base
            stage_at = cum[lo:hi] - caps[lo:hi] - base
            st_rows, st_vals = self._new(size, np.int32), self._new(size, np.float32)
            K.expand_prune[blocks, tpb](
                np.int64(n), np.int64(self.n_rule), self._start, self._len, self._rows, self._vals, flops,
                np.int64(lo), np.int64(hi), stage_at, st_rows, st_vals, acc, mark, sel, tally,
                np.float64(cut), np.int64(select), np.int64(recover), np.float64(pct), np.float64(power),
                np.int64(self.pow_check), kept, chaos, expanded, branch, dense, status, mass,
            )
            pending = xp.nonzero(status[lo:hi] == K.PENDING)[0]
            if int(pending.size):
                emptied = self._settle(pending, stage_at, kept[lo:hi], st_vals, power)
                status[lo + emptied] = K.EMPTIED
                kept[lo + emptied] = 0
            part_kept = kept[lo:hi]
            part_at = xp.cumsum(part_kept) - part_kept
            count = int(self._host(part_kept.sum()))
            part_rows, part_vals = self._new(count, np.int32), self._new(count, np.float32)
            K.copy_spans[self._grid(hi - lo), tpb](
                np.int64(hi - lo), stage_at, part_kept, part_at, st_rows, st_vals, part_rows, part_vals
            )
            del st_rows, st_vals
            parts.append((lo, hi, part_at, part_rows, part_vals))
        del acc, mark, sel, tally, flops, caps, cum
        bound = ell_bound(pruning, n)
        quantile = xp.sort(kept)[math.ceil(ELL_QUANTILE * (n - 1))] if n else xp.zeros((), dtype=np.int64)
        width = xp.minimum(quantile, bound)
        over = kept > width
        pool_sizes = xp.where(over, kept, 0)
        record = self._host(xp.stack([xp.asarray(v, dtype=np.float64) for v in (
            xp.max(chaos) if n else xp.zeros(()), xp.sum(expanded), xp.sum(kept),
            xp.count_nonzero(branch == K.RECOVERED),
            xp.count_nonzero((branch == K.SELECTED) | (branch == K.SELECTED_RECOVERED)),
            xp.count_nonzero(branch == K.SELECTED_RECOVERED), xp.count_nonzero(branch == K.EMERGENCY),
            xp.count_nonzero(dense), xp.count_nonzero(status == K.EMPTIED),
            xp.min(mass) if n else xp.full((), np.inf), width, xp.sum(pool_sizes),
        )]))
        chaos_max, n_expanded, n_kept, rec, sel_, sel_rec, emergency, n_dense, emptied, min_mass, w, pool = record
        w, pool = int(w), int(pool)
        slab = n * w
        start = xp.where(over, slab + xp.cumsum(pool_sizes) - pool_sizes, xp.arange(n, dtype=np.int64) * w)
        rows, vals = self._new(slab + pool, np.int32), self._new(slab + pool, np.float32)
        for lo, hi, part_at, part_rows, part_vals in parts:
            K.copy_spans[self._grid(hi - lo), tpb](
                np.int64(hi - lo), part_at, kept[lo:hi], start[lo:hi], part_rows, part_vals, rows, vals
            )
        del parts
        self._start, self._len, self._rows, self._vals, self._width = start, kept, rows, vals, w
        return IterationStats(
            chaos=float(chaos_max) if n else 0.0,
            expanded=int(n_expanded),
            kept=int(n_kept),
            recovered=int(rec),
            selected=int(sel_),
            recovered_after_select=int(sel_rec),
            emergency=int(emergency),
            dense_path=int(n_dense),
            emptied=int(emptied),
            min_mass=float(min_mass),
            extra={"phases": len(edges) - 1, "blocks": blocks, "ell_width": w, "ell_slots": slab + pool,
                   "overflow_columns": int(self._host(xp.count_nonzero(over))) if pool else 0},
        )

    def _settle(self, pending, starts, lengths, vals, power):
        """Inflate the `pending` columns (ids into `starts`/`lengths`) of `vals`
        on the host, with the CPU engine's kernel (the C library's ``pow``);
        return the ids of those emptied."""
        from ..cpu._compiled import kernels

        s, c = self._host(starts[pending]), self._host(lengths[pending])
        at = spans(s, c)
        at_d = self._xp.asarray(at)
        data = np.ascontiguousarray(self._host(vals[at_d]), dtype=np.float32)
        indptr = np.zeros(c.size + 1, dtype=np.int64)
        np.cumsum(c, out=indptr[1:])
        emptied = np.asarray(kernels().inflate_columns(indptr, data, float(power)), dtype=np.int64)
        vals[at_d] = self._xp.asarray(data)
        return pending[self._xp.asarray(emptied)] if emptied.size else pending[:0]
