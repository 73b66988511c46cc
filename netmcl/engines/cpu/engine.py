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

The iterands of a matrix of at most 262,144 nodes keep their row numbers as
uint16 (6 bytes an entry, against mcl's 8): a quarter less memory, and a
quarter less for the expansion to read.  Past 65,536 nodes they are offsets
in row blocks of 65,536 rows, a column's entries stored block after block, and
the engine keeps, per column, where each block after the first starts
(``cuts``).  On matrices of one row block (at most 65,536 nodes) they are
one-byte gaps from the row before, the rare rows past a gap of 256 or more
stored whole apart (``_kernels._next_row``): 5 bytes an entry on the dense
iterands of community graphs and PPI networks, whose rows cluster.  On Linux
the next iterand is built in anonymous mappings backed by 2 MiB pages where
the kernel has them: the expansion reads it in scattered columns, and large
pages spare it most of the address translations' misses.
"""

import ctypes
import math
import os
import threading
import time
import weakref
from collections import deque
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ...exceptions import ParameterError
from ...params import positive_integer
from .. import Engine, IterationStats
from ._buffers import Appender, physical_memory, resident_memory
from ._compiled import kernels
from ...sparse import CscMatrix, distinct, spans, start_of
from . import _constants as C

__all__ = ["CpuEngine", "column_estimates", "map_large_blocks", "one_arena", "parse_memory", "phase_stop",
           "scratch_bytes"]

#: chunks per thread in a phase: more balance the threads and keep waiting results small; fewer cost less to hand out
CHUNKS_PER_THREAD = 16
#: pieces of a thread's last chunk in a phase (``CpuEngine._chunks``): more end the threads together, at more hand-outs
TAIL_SPLIT = 4
#: most estimated bytes of a chunk's result (2 x threads of them wait to be copied): less memory, against more chunks
CHUNK_BYTES = 8 << 20
#: a column's fixed cost (pruning, rescaling, inflating it) in products: weighs columns against products in a chunk
COLUMN_WORK = 256
#: less estimated work runs on one thread: the others would cost more to start and hand chunks to than they save
SERIAL_WORK = 1 << 24
#: entries from which all the threads share a pass over an iterand (``CpuEngine._by_columns``), at a hand-out each
SPLIT_ENTRIES = 1 << 20
#: least estimated work of a chunk with several threads: handing it out stays a small part of it, at a coarser balance
CHUNK_WORK = 1 << 20
#: matrices of at most this many nodes keep their rows as uint16 in the engine,
#: in row blocks past 65,536
NARROW_NODES = C.BLOCK_MAX << C.BLOCK_SHIFT
#: rows stay one-byte gaps while at most one entry in this many is stored whole: a byte saved, against mispredictions
GAP_EXCEPTIONS = 64
#: bytes of per-thread scratch per node (accumulator, marks, bitmap (rounded
#: up), row lists, pattern, values, partition scratch, cutoff survivors, the
#: cutoff's marks of up to RUN columns)
SCRATCH_BYTES_PER_NODE = 8 + 1 + 1 + 4 + 4 + 4 + 4 + 4 + 4 + 4 + C.RUN // C.LANES
#: and per thread whatever the size (the pruning's selection histogram, a run's measures)
SCRATCH_BYTES = 4 * C.RADIX_BUCKETS + 8 * C.TALLY_FIELDS * C.RUN
#: the budget named by an over-budget error is this much more than the estimate: the rest of the process
#: varies a little from run to run; more asks for memory that is not needed, less retries that fail again
BUDGET_MARGIN = 1.02
#: columns computed apart to estimate the next iterand where a budget does not hold its first column: a
#: closer figure in the error, against more work before it
SAMPLE_COLUMNS = 512
#: the engines of this process that hold an iterand: one under a budget counts what they hold as it
#: changes, and the rest of the process as it was when it was loaded (``CpuEngine.load``)
_LOADED = weakref.WeakSet()
_LOADED_LOCK = threading.Lock()
#: glibc's mallopt parameter M_MMAP_THRESHOLD, and its initial value
_M_MMAP_THRESHOLD = -3
MAPPED_BLOCK_BYTES = 128 * 1024
#: glibc's mallopt parameter M_ARENA_MAX
_M_ARENA_MAX = -8


def map_large_blocks():
    """Give every block of 128 KiB or more its own mapping, returned when freed (glibc).

    glibc maps such blocks separately and unmaps them when they are freed, but
    each time it unmaps one it raises the threshold to that block's size (up
    to 32 MiB).  After the first large array is freed, the chunk results and
    iterands of later iterations come from the heap, where freed blocks stay
    resident: the process's peak grows well past the memory it uses.
    Setting the threshold fixes it at glibc's initial value.

    This changes the allocator of the whole process: the command line calls
    it, and so does a :class:`CpuEngine` given ``max_memory`` (the budget
    assumes that freed blocks are returned).

    Returns
    -------
    bool
        Whether the threshold was set (False where the C library is not glibc).
    """
    return _mallopt(_M_MMAP_THRESHOLD, MAPPED_BLOCK_BYTES)


def one_arena():
    """Have every thread allocate from glibc's main arena.

    glibc gives each thread that allocates an arena of its own, and what a
    thread frees stays in its arena, out of the other threads' reach: what
    the small groups of a graph's components, iterated side by side, free
    there, the largest group's iterations cannot reuse.  The engine's threads
    allocate a few arrays a chunk of columns, so sharing the arena costs them
    little.

    Like :func:`map_large_blocks`, this changes the allocator of the whole
    process: the command line calls it.

    Returns
    -------
    bool
        Whether it was set (False where the C library is not glibc).
    """
    return _mallopt(_M_ARENA_MAX, 1)


def _held_by_engines(but=None):
    """Bytes that the loaded engines of this process hold (``CpuEngine._holding``), `but` one excepted."""
    with _LOADED_LOCK:
        engines = list(_LOADED)
    return sum(engine._holding for engine in engines if engine is not but)


def _mallopt(param, value):
    """glibc's ``mallopt(param, value)``; False where the C library is not glibc."""
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc"):
            return False
        return bool(ctypes.CDLL(None).mallopt(param, value))
    except (AttributeError, OSError, ValueError):
        return False


def available_cores(cgroup_root="/sys/fs/cgroup", own_cgroups="/proc/self/cgroup"):
    """The cores this process may keep busy: those its CPU affinity allows,
    or fewer under a CPU quota (a container's ``--cpus``, a Kubernetes
    limit), rounded up.

    A process with more threads than its quota is stopped each time the
    threads together use up the quota of a period; the engine's threads then
    wait on each other.  The quota is read from cgroup v2's ``cpu.max`` or
    v1's ``cpu.cfs_quota_us``, of this process's group and the groups above
    it; the smallest counts.

    Examples
    --------
    >>> 1 <= available_cores() <= os.cpu_count()
    True
    """
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    root = os.path.normpath(cgroup_root)
    try:
        lines = _text(own_cgroups).splitlines()
    except OSError:
        lines = []
    for line in lines:
        hierarchy, controllers, path = line.split(":", 2)
        if hierarchy == "0":
            mount, files = root, ("cpu.max",)
        elif "cpu" in controllers.split(","):
            mount, files = os.path.join(root, controllers), ("cpu.cfs_quota_us", "cpu.cfs_period_us")
        else:
            continue
        directory = os.path.normpath(os.path.join(mount, path.lstrip("/")))
        # a container sees its own group at the mount's root, whatever its path on the host says
        if not os.path.isdir(directory):
            directory = mount
        while True:  # the group, then the groups above it up to the mount
            try:
                quota, period = " ".join(_text(os.path.join(directory, f)) for f in files).split()[:2]
                if quota not in ("max", "-1"):
                    cores = min(cores, max(1, -(-int(quota) // int(period))))
            except (OSError, ValueError):
                pass
            if directory == mount or directory == os.path.dirname(directory):
                break
            directory = os.path.dirname(directory)
    return cores


def _text(path):
    """The text of the file at `path` (os.path, not pathlib: importing pathlib would add to every run's memory)."""
    with open(path) as f:
        return f.read()


#: the units of a memory size: KiB, MiB, GiB, TiB
_UNITS = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


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
        scale = _UNITS.get(text[-1:], 1)
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


def l2_bytes(cpu="/sys/devices/system/cpu/cpu0"):
    """The size in bytes of the L2 cache of the `cpu` that Linux describes
    under that directory; ``_constants.L2_DEFAULT`` where it does not.

    Examples
    --------
    >>> l2_bytes("/nonexistent") == C.L2_DEFAULT
    True
    """
    try:
        for index in sorted(os.listdir(f"{cpu}/cache")):
            cache = os.path.join(cpu, "cache", index)
            level, kind = (_text(os.path.join(cache, name)).strip() for name in ("level", "type"))
            if level == "2" and kind in ("Unified", "Data"):
                return parse_memory(_text(os.path.join(cache, "size")))
    except (OSError, ParameterError):
        pass
    return C.L2_DEFAULT


#: this machine's L2 cache a core (``l2_bytes``), which bounds runs of LANES and
#: NARROW_LANES (``_constants.lane_nodes``, ``narrow_nodes``)
L2_BYTES = l2_bytes()


def column_estimates(flops, pruning, n):
    """Per column, a bound on the entries of the pruned column (plus one), from
    its expansion work `flops` (``_kernels.column_survey``) on an n-node
    matrix: what a memory budget plans its phases with.

    Examples
    --------
    >>> from netmcl.params import Pruning
    >>> column_estimates(np.array([3, 50_000]), Pruning(1e-4, 1100, 1400, 0.9), 20_000).tolist()
    [4, 10001]
    """
    cut, select, recover, _ = pruning
    cap = max(int(0.99999 / cut) + 1 if cut > 0 else n, select, recover, 1)
    return np.minimum(np.minimum(flops, n), cap) + 1


def phase_stop(cum, start, room):
    """The end (exclusive) of a phase starting at column position `start`:
    the columns whose summed cost, `cum` being the costs' running total over
    positions, fits in `room`; at least one column, and None where not even
    column `start` fits.

    Examples
    --------
    >>> phase_stop(np.array([2, 5, 9, 10]), 1, 4), phase_stop(np.array([2, 5, 9, 10]), 2, 3)
    (2, None)
    """
    base = cum[start - 1] if start else 0
    if room < int(cum[start] - base):
        return None
    return max(start + 1, int(np.searchsorted(cum, base + room, side="right")))


def scratch_bytes(n, run):
    """Bytes of one thread's work arrays for ``expand_columns`` on an n-node
    matrix, heavy columns expanded `run` at a time (``_kernels.work_arrays``)."""
    return (SCRATCH_BYTES_PER_NODE + (8 * run + 4 * C.RUN + 5 if run > 1 else 0)) * n + SCRATCH_BYTES


def _size(nbytes):
    """`nbytes` in the largest binary unit that leaves at least 1, rounded up
    to a tenth (a size named as enough must be enough), as
    :func:`parse_memory` reads it back.

    Examples
    --------
    >>> _size(1), _size(1024), _size(1_100_000), _size(17179869184)
    ('1 B', '1.0 KiB', '1.1 MiB', '16.0 GiB')
    """
    for unit, scale in reversed(_UNITS.items()):
        if nbytes >= scale:
            return f"{math.ceil(nbytes * 10 / scale) / 10:.1f} {unit}iB"
    return f"{nbytes} B"


class CpuEngine(Engine):
    """Run MCL iterations on the CPU.

    Parameters
    ----------
    threads : int, optional
        Number of threads (mcl's ``-te``); default: :func:`available_cores`.
        An iteration of less estimated work than ``SERIAL_WORK`` (about 17
        million products, a column counting ``COLUMN_WORK`` more) runs on one
        thread, which is faster there.
    max_memory : int or str, optional
        Bound on the whole process's resident memory, e.g. ``"16G"``: what
        the process holds when a matrix is loaded (the Python runtime, the
        libraries, the input graph, the caller's data), counted as it is
        then, and the engines' iterands, scratch and phase buffers, counted
        as they change.  The engine takes its columns in as many phases as
        that needs.  Default: no bound (one phase per iteration).  Given a
        bound, the engine also calls :func:`map_large_blocks`.  A bound that
        the process already passes is refused here, and one that cannot hold
        the iterand and the threads' scratch is refused before any column of
        the iteration is computed, with a budget that holds it.
    lane_sharing : float, optional
        When runs of heavy columns take the vector path: each vector
        operation must serve at least this many products, and half as many
        on runs of ``_constants.NARROW_LANES`` (default
        ``_constants.LANE_SHARING``; ``inf`` never, and then the columns are
        also computed in column order; 0 always).  A speed setting only: the
        iterands are the same for every value.
    lone_reads : float, optional
        On the vector path, each column of a run sums the columns that it
        alone reads apart, in an accumulator of its own, where they take at
        least this many times n products (default
        ``_constants.LONE_READS``; ``inf`` never, 0 always).  A speed setting
        only: the iterands are the same for every value (a sum that the
        other order could round to another float32 is summed again in mcl's
        order; ``IterationStats.extra["in_order"]`` counts them).
    narrow_rows : bool, default True
        Keep the row numbers of a matrix of at most 262,144 nodes as uint16
        (past 65,536 nodes, as offsets in blocks of 65,536 rows): an entry
        then takes 6 bytes instead of 8, so the iterands take a quarter less
        memory and the expansion has a quarter less to read.  A memory and
        speed setting only: the iterands are the same either way.  The
        kernels for int32 rows are compiled apart, once, the first time a
        machine needs them (``netmcl.engines.cpu._compiled``).
    wide_runs : bool, optional
        Expand heavy columns up to ``_constants.RUN`` (16) at a time on
        matrices of at most ``LANE_RUN_NODES`` nodes, instead of ``LANES``
        (8): each entry read then serves twice the columns, whose
        accumulators take twice the bytes.  Default ``_constants.WIDE_RUNS``:
        True on AMD's CPUs, which gain from it, False on others.  A speed
        setting only, as `lane_sharing`.
    narrow_runs : bool, default True
        Past the matrices whose heavy columns are taken ``LANES`` at a time,
        expand them ``_constants.NARROW_LANES`` (4) at a time, their
        accumulators interleaved, on matrices whose accumulators then fit
        `l2` (``_constants.narrow_nodes``), instead of alone or in small
        groups.  A speed setting only, as `lane_sharing`.
    gap_rows : bool, default True
        On matrices of at most 65,536 nodes, keep each iterand's row numbers
        as one-byte gaps from the row before in the column, the rows after a
        gap of 256 or more (and a first row of 0) stored whole apart: an
        entry then takes about 5 bytes instead of 6.  An iterand where more
        than one entry in ``GAP_EXCEPTIONS`` would be stored whole keeps
        whole rows.  A memory setting only: the iterands are the same either
        way.
    l2 : int, optional
        Bytes of a core's L2 cache, which bounds the runs of heavy columns:
        runs of ``LANES`` where their accumulators take at most half of it
        (``_constants.lane_nodes``), of ``NARROW_LANES`` where they fit it.
        Default :data:`L2_BYTES`, what the operating system says of
        this machine: a smaller cache takes shorter runs on smaller matrices
        already (on 512 KB, runs of 4 past 4,096 nodes).  A speed setting only.

    Examples
    --------
    >>> CpuEngine(threads=2, max_memory="1G").threads
    2
    """

    name = "cpu"

    def __init__(self, threads=None, max_memory=None, lane_sharing=C.LANE_SHARING, lone_reads=C.LONE_READS,
                 narrow_rows=True, wide_runs=C.WIDE_RUNS, narrow_runs=True, l2=L2_BYTES, gap_rows=True):
        self.threads = available_cores() if threads is None else positive_integer("threads", threads)
        self.max_memory = parse_memory(max_memory)
        self._share = 1  # the component groups that may iterate at once on the budget (see spawn)
        self._outside = 0  # bytes the rest of the process held when the matrix was loaded (see load)
        self._holding = 0  # bytes this engine holds: its iterand and scratch, and the next iterand so far
        if self.max_memory is not None:
            map_large_blocks()
            held = resident_memory()
            if held is not None and held >= self.max_memory:
                raise ParameterError(
                    f"max_memory = {_size(self.max_memory)} is less than this process holds already, "
                    f"{_size(held)} (the Python runtime, the libraries and the data loaded so far): the budget "
                    "counts the whole process. Raise max_memory well past that figure."
                )
        self.lane_sharing = float(lane_sharing)
        self.lone_reads = float(lone_reads)
        self.narrow_rows = bool(narrow_rows)
        self.wide_runs = bool(wide_runs)
        self.narrow_runs = bool(narrow_runs)
        self.l2 = positive_integer("l2", l2)
        self.gap_rows = bool(gap_rows)
        self._gaps = False  # whether the iterands' rows may be stored as gaps (set by load)
        self._local = threading.local()
        # column k of the iterand: rows self._indices[self._colstart[k] : self._colstop[k]], values
        # the same slice of self._data; self._indptr is set while the columns are stored in order;
        # self._cuts[h - 1, k]: where column k's row block h starts (``_kernels._block``; no rows: one block);
        # rows stored as gaps (uint8): column k's rows stored whole are self._exc[self._excat[k]:] (empty otherwise)
        self._indptr = self._colstart = self._colstop = self._indices = self._data = self._cuts = None
        self._exc = self._excat = self._excn = None
        self.n = 0
        self.n_rule = 0

    def load(self, matrix, *, n_rule=None):
        """Take the start matrix; `n_rule` is the node count of mcl's dense-path rule.

        A component clustered on its own passes the whole graph's node count
        so that every column takes the product path mcl would take.

        Under a budget, what the process holds now, apart from `matrix`
        (which the engine's copy replaces) and what the loaded engines hold,
        is counted against the budget for the whole run.
        """
        m = CscMatrix.of(matrix)
        if self.max_memory is not None:
            held = resident_memory()
            given = sum(a.nbytes for a in (m.indptr, m.indices, m.data))
            self._outside = 0 if held is None else max(0, held - given - _held_by_engines())
        self._load(m, n_rule)
        self._holding = self._fixed_bytes()
        with _LOADED_LOCK:
            _LOADED.add(self)

    def _load(self, m, n_rule):
        """Keep `m` (a CscMatrix) as the iterand."""
        self.n = m.shape[0]
        self.n_rule = self.n if n_rule is None else int(n_rule)
        rows, cuts = m.indices, np.empty((0, self.n), dtype=np.int64)
        self._gaps = self.gap_rows and self.narrow_rows and self.n <= 1 << C.BLOCK_SHIFT
        if self.narrow_rows and self.n <= NARROW_NODES:
            blocks = -(-self.n >> C.BLOCK_SHIFT)
            if blocks > 1:
                cuts = kernels().block_cuts(m.indptr[:-1], m.indptr[1:], rows, blocks)
            rows = rows.astype(np.uint16)  # the offset in the row's block: the low 16 bits
        else:
            rows = rows.astype(np.int32, copy=False)  # a start matrix's uint16 rows, widened
        self._store(m.indptr, rows, m.data, None, cuts)
        gaps = _as_gaps(np.diff(m.indptr), rows, always=False) if self._gaps else None
        if gaps is not None:
            gaps, exc, per, inner = gaps
            self._indices = gaps.copy()  # the gaps alone: their bytes, not the rows' twice as many
            self._keep_gaps(exc, per, inner, None, sparser=False)

    def _store(self, indptr, indices, data, order, cuts):
        """Keep an iterand whose columns are stored in `order` (None: 0, 1, ...),
        `indptr` delimiting them in that order; ``cuts[h - 1, c]``: where row
        block h of the c-th column stored starts."""
        self._indices, self._data, self._exc = indices, data, np.empty(0, dtype=indices.dtype)
        self._excat = self._excn = np.empty(0, dtype=np.int64)
        if order is None:
            self._indptr, self._colstart, self._colstop = indptr, indptr[:-1], indptr[1:]
        else:
            self._indptr = None
            self._colstart = np.empty(self.n, dtype=np.int64)
            self._colstop = np.empty(self.n, dtype=np.int64)
            self._colstart[order] = indptr[:-1]
            self._colstop[order] = indptr[1:]
        self._cuts = np.empty((cuts.shape[0], self.n), dtype=np.int64)
        self._cuts[:, slice(None) if order is None else order] = cuts

    def _keep_gaps(self, exc, per, inner, order, sparser, pool=None):
        """Take the iterand's rows, now gaps (``_as_gaps``), with the rows stored
        whole, `exc`, of which the c-th column stored has ``per[c]``, ``inner[c]``
        past its first entry; or keep them as whole rows (uint16) where more than
        one entry in GAP_EXCEPTIONS has one, made by the threads of `pool`
        (``_by_columns``), and then, where this iterand is `sparser` than the one
        before (fewer entries), store the next ones, sparser still, as whole rows
        from the start."""
        starts = np.zeros(self.n, dtype=np.int64)
        np.cumsum(per[:-1], out=starts[1:])
        self._exc, self._excat, self._excn = exc, starts, inner
        if order is not None:
            self._excat, self._excn = np.empty_like(starts), np.empty_like(inner)
            self._excat[order], self._excn[order] = starts, inner
        if GAP_EXCEPTIONS * exc.size > self._indices.size:
            self._indices = self._full_rows(np.uint16, pool)
            self._exc = np.empty(0, dtype=np.uint16)
            self._excat = self._excn = np.empty(0, dtype=np.int64)
            self._gaps = not sparser

    def _full_rows(self, dtype, pool=None):
        """The iterand's rows as `dtype`, block offsets added (in the order stored),
        made by the threads of `pool` (``_by_columns``)."""
        rows = np.empty(self._indices.size, dtype=dtype)
        full_rows = self._kernel("full_rows")

        def part(lo, hi):
            full_rows(self._colstart[lo:hi], self._colstop[lo:hi], np.ascontiguousarray(self._cuts[:, lo:hi]),
                      self._indices, self._exc, self._excat[lo:hi], rows)

        self._by_columns(part, pool)
        return rows

    def result(self):
        rows = self._indices
        if self._cuts.shape[0] or rows.dtype == np.uint8:
            rows = self._full_rows(np.int32 if self._cuts.shape[0] else np.uint16)
        if self._indptr is not None:
            return CscMatrix(self._indptr, rows.astype(np.int32, copy=False), self._data, self.n)
        counts = self._colstop - self._colstart
        indptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        at = spans(self._colstart, counts)
        return CscMatrix(indptr, rows[at].astype(np.int32), self._data[at], self.n)

    def inflate(self, inflation):
        m = self.result()
        m = CscMatrix(m.indptr, m.indices, m.data.copy(), self.n)
        emptied = np.asarray(kernels().inflate_columns(m.indptr, m.data, float(inflation)), dtype=np.int64)
        emptied = emptied[np.diff(m.indptr)[emptied] > 0]  # a column that was empty already is not counted
        if emptied.size:  # the kernel zeroes an emptied column's values: its entries are dropped
            counts = np.diff(m.indptr)
            counts[emptied] = 0
            keep = np.repeat(counts > 0, np.diff(m.indptr))
            indptr = np.zeros_like(m.indptr)
            np.cumsum(counts, out=indptr[1:])
            m = CscMatrix(indptr, m.indices[keep], m.data[keep], self.n)
        self._load(m, self.n_rule)  # the same run: what the rest of the process holds is still counted as it was
        self._holding = self._fixed_bytes()
        return int(emptied.size)

    def start_matrix(self, matrix, params):
        """The start matrix by the compiled kernels (the same bits as NumPy's, faster)."""
        K = kernels()

        def with_max_loops(m):
            room = m.nnz + m.shape[0]  # every column may gain a loop
            rows, vals = Appender(np.int32, room, room), Appender(np.float32, room, room)
            indptr, count = K.with_max_loops(m.indptr, m.indices, m.data, rows.room(room), vals.room(room))
            return CscMatrix(indptr, rows.array(count), vals.array(count), m.shape[0])

        return start_of(matrix, discard_loops=params.discard_loops, loop_gain=params.loop_gain,
                        preinflation=params.preinflation, with_max_loops=with_max_loops,
                        inflate=K.inflate_columns, normalize=K.normalize_columns)

    def components(self, matrix):
        """The components by the compiled union-find (the labels of NumPy's, faster)."""
        count, labels = kernels().weak_labels(np.ascontiguousarray(matrix.indptr, dtype=np.int64),
                                              np.ascontiguousarray(matrix.indices, dtype=np.int32))
        return int(count), labels

    def release_scratch(self):
        self._local = threading.local()  # every thread's work arrays

    def spawn(self, *, threads, share):
        engine = CpuEngine(threads=threads, lane_sharing=self.lane_sharing, lone_reads=self.lone_reads,
                           narrow_rows=self.narrow_rows, wide_runs=self.wide_runs, narrow_runs=self.narrow_runs,
                           l2=self.l2, gap_rows=self.gap_rows)
        # the run's budget, checked as each group is loaded and iterated (an engine made with it would refuse
        # it outright where the input read fills it, without naming one that holds the iterations)
        engine.max_memory = self.max_memory
        engine._share = share  # the groups iterated at once split what the budget leaves free
        return engine

    @property
    def _entry_bytes(self):
        """Bytes per entry of the columns computed: row number (int32 before a matrix is loaded) and value."""
        return (4 if self._exc is None else self._exc.itemsize) + 4

    @property
    def _kept_bytes(self):
        """Bytes per entry of the next iterand, at most: a row stored as a gap may be stored whole as well."""
        return self._entry_bytes + (1 if self._gaps else 0)

    def _kernel(self, name):
        """The compiled kernel `name` for the type of this matrix's rows."""
        return getattr(kernels(), name + {1: "_u8", 2: "_u16", 4: ""}[self._indices.itemsize])

    @property
    def _run(self):
        """The most heavy columns expanded together (``_kernels.run_size``)."""
        narrow = C.narrow_nodes(self.l2) if self.narrow_runs else 0
        return kernels().run_size(self.n, self.wide_runs, C.lane_nodes(self.l2), narrow)

    def _work(self):
        """This thread's work arrays (allocated once per thread and matrix size)."""
        loc = self._local
        if getattr(loc, "n", -1) != self.n:
            loc.n = self.n
            loc.work = kernels().work_arrays(self.n, self._run)
        return loc.work

    def _by_columns(self, task, pool):
        """``task(lo, hi)`` for ranges of the columns lo..hi-1 that cover them all:
        one range per thread of the iteration, of about equal entries, run on
        ``pool()``, where the iterand holds at least SPLIT_ENTRIES entries and
        there are threads; else one range, on this thread (also where `pool` is
        None or the matrix has no columns)."""
        if pool is None or self.threads == 1 or not self.n or self._indices.size < SPLIT_ENTRIES:
            task(0, self.n)
            return
        done = np.cumsum(self._colstop - self._colstart)  # entries, by column
        edges = np.searchsorted(done, done[-1] * np.arange(self.threads + 1) / self.threads)
        edges[0], edges[-1] = 0, self.n
        for _ in pool().map(lambda rng: task(*rng), zip(edges[:-1].tolist(), edges[1:].tolist())):
            pass

    def _survey(self, pool=None):
        """Per column, the expansion work and the leader (``_kernels.column_survey``),
        in one pass over the iterand, by the threads of `pool` (``_by_columns``)."""
        flops, leaders = np.empty(self.n, dtype=np.int64), np.empty(self.n, dtype=np.int64)
        survey = self._kernel("column_survey")
        args = (self._colstart, self._colstop, self._cuts, self._indices, self._exc, self._excat, self._data)
        self._by_columns(lambda lo, hi: survey(*args, lo, hi, flops, leaders), pool)
        return flops, leaders

    def _column_estimates(self, flops, pruning):
        """Per column, a size estimate of the pruned column, from its expansion work `flops`."""
        return column_estimates(flops, pruning, self.n)

    def _order(self, flops, leaders):
        """The order in which to compute the columns, or None for 0, 1, 2, ...

        Runs of heavy columns next to each other are expanded together, on
        the vector path when their patterns overlap enough
        (``_kernels._expand_heavy``).  In column order they rarely do: the
        heavy columns come first, and among them those whose chains of
        largest other entries (`leaders`) end at the same column,
        which on community graphs are columns of one community: their
        patterns overlap, so a vector operation of their run serves more
        products.  Where a heavy column is expanded alone, the columns it
        reads are then often still in cache from the column before.
        Column order where `lane_sharing` is infinite.
        """
        if not np.isfinite(self.lane_sharing):
            return None
        heavy = self._heavy(flops)
        if np.count_nonzero(heavy) < 2 * C.RUN:
            return None
        roots = leaders
        for _ in range(int(self.n).bit_length()):
            roots = roots[roots]
        roots = np.minimum(roots, roots[leaders[roots]])  # a chain ending in a 2-cycle: one name for both ends
        return np.lexsort((roots, ~heavy))

    def _heavy(self, flops):
        """The heavy columns: those `expand_columns` takes into runs (its test
        ``f * 10 < n_rule or f * 2 < n`` ends a run)."""
        return (flops * 10 >= self.n_rule) & (flops * 2 >= self.n)

    def _chunks(self, lo, hi, work, cum, threads):
        """Cut columns lo..hi-1 into chunks of about equal work for `threads` threads.

        With several threads, CHUNKS_PER_THREAD a thread, or fewer where that
        would leave a chunk less than CHUNK_WORK (but one a thread at
        least).  More where needed, so that the columns' summed size
        estimate (`cum`, cumulative) is at most CHUNK_BYTES a chunk.  One
        thread needs no balancing: its chunks are of about equal estimated
        size instead (cut by work, a chunk of light columns can hold several
        times the results of the others, and the peak memory comes as it is
        copied).  With several threads, the last `threads`
        chunks' work is cut in chunks of a quarter of it (TAIL_SPLIT), so
        that the threads finish at about the same time: the work is an
        estimate, and the last chunk of a thread can run well past the
        others'.
        """
        base = cum[lo - 1] if lo else 0
        estimated = self._entry_bytes * int(cum[hi - 1] - base)
        done = np.cumsum(work[lo:hi]) if threads > 1 else cum[lo:hi] - base
        balance = max(threads, min(CHUNKS_PER_THREAD * threads, int(done[-1]) // CHUNK_WORK)) if threads > 1 else 1
        nchunks = min(hi - lo, max(balance, -(-estimated // CHUNK_BYTES)))
        head = nchunks - threads if threads > 1 and nchunks > threads else nchunks
        # the chunks' ends, in chunks of work: whole ones, then the tail's quarters
        ends = np.concatenate([np.arange(1, head), head + np.arange(TAIL_SPLIT * (nchunks - head)) / TAIL_SPLIT])
        cuts = lo + np.searchsorted(done, ends * (done[-1] / nchunks))
        edges = distinct(np.concatenate([[lo], cuts, [hi]]))
        return list(zip(edges[:-1].tolist(), edges[1:].tolist()))

    def _scratch_bytes(self):
        """Bytes of the threads' scratch and the iterand's column bounds, held through an iteration."""
        return 16 * (self.n + 1) + self.threads * scratch_bytes(self.n, self._run)

    def _fixed_bytes(self):
        """Bytes held through an iteration: the iterand (``_scratch_bytes`` besides)."""
        arrays = (self._indices, self._data, self._exc, self._excat, self._excn, self._cuts)
        return sum(a.nbytes for a in arrays) + self._scratch_bytes()

    def _room(self, holding):
        """Bytes of the budget free for this engine's next phase while it holds `holding`
        bytes: what the rest of the process held when the matrix was loaded and
        what every loaded engine holds now are taken out, and the rest is split
        between the component groups iterated at once."""
        self._holding = holding
        return (self.max_memory - self._outside - _held_by_engines()) // self._share

    def _phase_end(self, start, estimate, cum, fixed, written, sampled):
        """Last column (exclusive) of the phase starting at `start`.

        Without a budget the phase is every remaining column.  Under one, the
        phase's pruned columns (at most their estimate) must fit twice in
        what the budget leaves free (``_room``) while this engine holds
        `fixed` (the current iterand and the threads' scratch) and the
        `written` bytes of the next iterand so far.  It must fit twice: once
        as the threads' results and once in the growing next iterand.
        `sampled()`: the next iterand's bytes estimated from a sample of its
        columns, for the error where not even the first column fits.
        """
        if self.max_memory is None:
            return self.n
        room = self._room(fixed + written) // (self._entry_bytes + self._kept_bytes)
        stop = phase_stop(cum, start, room)
        if stop is None:
            raise ParameterError(self._over_budget(start, int(estimate[start]), fixed, written, sampled))
        return stop

    def _over_budget(self, start, entries, fixed, written, sampled):
        """The error's text where the column at `start`, of up to `entries`
        entries, does not fit in the budget, and a budget that does.

        Where no column has been written, the next iterand's size is
        ``sampled()``: a sample of its columns, computed apart (the
        estimates the phases are cut by bound it, several times over).
        Where columns have been written, the next iterand's size is
        extrapolated from them, column for column: a budget raised only past
        what is held now would stop a little later in the same iteration.
        The heavy columns, whose pruned columns are the largest, come first
        where they are expanded in runs, so the figure errs on the generous
        side; weighting the columns by their size estimates instead can
        name too little.  The budget named also holds the next iteration,
        which holds this one's iterand and builds the next, where a budget
        named for this iteration alone would stop there: the next iterand
        is taken to grow as this one grew from the current one, at most
        twice, and not to shrink (MCL's iterands grow in the first one or
        two iterations and shrink after).  The rest of the process counts
        as it did when the matrix was loaded.
        """
        column = (self._entry_bytes + self._kept_bytes) * entries
        held = fixed + written
        outside = self._outside + _held_by_engines(but=self)
        need = held + column
        if start and written:
            built = math.ceil(written * self.n / start)
            done = (f" After {start:,} of its {self.n:,} columns the next iterand takes {_size(written)}; "
                    f"at that rate it will take about {_size(built)}.")
        else:
            built, picked = sampled()
            done = (f" No column of it has been computed; {picked:,} of its {self.n:,} columns, computed apart, "
                    f"say that the next iterand will take about {_size(built)}.")
        # this iteration, then the next one holding this one's iterand (about as written) and building another,
        # grown as this one grew from the current iterand, at most twice
        scratch = self._scratch_bytes()
        later = math.ceil(built * min(2.0, max(1.0, built / max(fixed - scratch, 1))))
        engine = max(fixed + built, scratch + built + later) + column
        enough = math.ceil((outside + self._share * engine) * BUDGET_MARGIN)
        budget = f"max_memory = {_size(self.max_memory)}"
        if self._share > 1:
            budget += f" (shared by the {self._share} component groups iterated at once)"
        return (
            f"This iteration needs at least {_size(outside + held + column)} of memory, more than {budget}: the rest of "
            f"the process holds {_size(outside)} (the Python runtime, the libraries, the input graph), the iterands "
            f"and the scratch of {self.threads} thread{'s' if self.threads > 1 else ''} take {_size(held)} and the "
            f"next column up to {_size(column)} more.{done} Raise max_memory (to {_size(enough)} at least, which "
            "also holds the next iteration unless its iterand grows faster than this one's, or more than twice), "
            "use fewer threads, or prune harder (lower -P/-S/-R)."
        )

    def iterate(self, inflation, pruning):
        t0 = time.perf_counter()
        if inflation is None:
            inflation = 0.0  # the kernels' sign for "no inflation"
        elif not inflation > 0.0:
            raise ParameterError(f"The inflation of an iteration must be positive. Got {inflation!r} instead.")
        started = []

        def pool():
            """The iteration's threads, started when first asked for."""
            if not started:
                started.append(ThreadPoolExecutor(max_workers=self.threads))
            return started[0]

        try:
            return self._iterate(pool, inflation, pruning, t0)
        finally:
            for executor in started:
                executor.shutdown()

    def _iterate(self, pool, inflation, pruning, t0):
        cut, select, recover, pct = pruning
        flops, leaders = self._survey(pool)
        estimate = self._column_estimates(flops, pruning)
        order = self._order(flops, leaders)
        del leaders  # n words, for the whole iteration otherwise
        # from here on, columns are counted by their position in `sequence`
        sequence = np.arange(self.n) if order is None else order
        estimate = estimate[sequence]
        cum = np.cumsum(estimate)
        work = flops[sequence] + COLUMN_WORK
        cuts = self._cuts
        expand_columns = self._kernel("expand_columns")
        least = float(self._data.min()) if self._data.size else 0.0  # where runs' sums are exact (``_exact_below``)

        gaps = self._gaps

        def run(rng):
            """The chunk's columns, and, where rows are kept as gaps, their rows as
            gaps (``_as_gaps``), made by the thread that computed them: the one
            that gathers every chunk's result would otherwise do it for all the
            threads, serially, which grows with the thread count."""
            lo, hi = rng
            room = int(cum[hi - 1] - (cum[lo - 1] if lo else 0))
            cnt, idx, val, ch, st = expand_columns(
                self.n_rule, self.n, self._colstart, self._colstop, self._indices, self._exc, self._excat, self._excn,
                self._data, flops, cuts, sequence, lo, hi, cut, select, recover, pct, inflation, self.lane_sharing,
                self.lone_reads, least, self._run, room, self._work(),
            )
            return cnt, _as_gaps(cnt.ravel(), idx, always=True) if gaps else (idx,), val, ch, st

        def sampled():
            """The next iterand's bytes extrapolated from every step-th column in
            `sequence` (about SAMPLE_COLUMNS of them), computed apart, and their count."""
            step = max(1, self.n // SAMPLE_COLUMNS)
            picks = np.ascontiguousarray(sequence[::step], dtype=np.int64)
            cnt = expand_columns(
                self.n_rule, self.n, self._colstart, self._colstop, self._indices, self._exc, self._excat, self._excn,
                self._data, flops, cuts, picks, 0, picks.size, cut, select, recover, pct, inflation,
                self.lane_sharing, self.lone_reads, least, self._run, int(estimate[::step].sum()), self._work(),
            )[0]
            return math.ceil(int(cnt.sum()) * self._kept_bytes * self.n / max(picks.size, 1)), int(picks.size)

        fixed = self._fixed_bytes()
        counts = np.zeros((self.n, cuts.shape[0] + 1), dtype=np.int64)
        # the next iterand has at most `bound` entries, and likely about as many as this one
        bound = min(int(cum[-1]) + 1 if self.n else 1, (self.max_memory or physical_memory()) // self._entry_bytes)
        likely = min(bound, self._indices.size + self.n + 1)
        out_idx = Appender(np.uint8 if gaps else self._exc.dtype, likely, bound)
        out_val = Appender(np.float32, likely, bound)
        # rows stored as gaps: those stored whole, and per column how many (in all, and past its first entry)
        out_exc = Appender(np.uint16, 1, bound) if gaps else None
        exc_counts = np.zeros((2, self.n), dtype=np.int64) if gaps else None
        total = np.zeros(C.N_STATS)
        total[C.STAT_MIN_MASS] = np.inf
        chaos = -np.inf
        phases = 0
        start = 0
        threads = self.threads if int(work.sum()) >= SERIAL_WORK else 1
        while start < self.n:
            written = sum(out.resident_bytes for out in (out_idx, out_val, out_exc) if out is not None)
            stop = self._phase_end(start, estimate, cum, fixed, written, sampled)
            chunks = self._chunks(start, stop, work, cum, threads)
            for (lo, hi), (cnt, (idx, *whole), val, ch, st) in zip(
                chunks, _in_order(pool() if threads > 1 else None, run, chunks, 2 * threads)
            ):
                most = out_idx.size + idx.size + int(cum[stop - 1] - cum[hi - 1])
                if gaps:  # one row block: the rows stored whole, and per column how many
                    exc, exc_counts[0, lo:hi], exc_counts[1, lo:hi] = whole
                    out_exc.append(exc, most)
                out_idx.append(idx, most)
                out_val.append(val, most)
                counts[lo:hi] = cnt
                chaos = max(chaos, ch)
                total[: C.STAT_MIN_MASS] += st[: C.STAT_MIN_MASS]
                total[C.STAT_MIN_MASS] = min(total[C.STAT_MIN_MASS], st[C.STAT_MIN_MASS])
                del idx, val, whole
            start = stop
            phases += 1
        indptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(counts.sum(axis=1), out=indptr[1:])
        cuts = (indptr[:-1, None] + np.cumsum(counts[:, :-1], axis=1)).T  # blocks' starts, in the order stored
        sparser = out_val.size < self._data.size
        self._store(indptr, out_idx.array(), out_val.array(), order, cuts)
        if gaps:
            self._keep_gaps(out_exc.array(), *exc_counts, order, sparser, pool)
        self._holding = self._fixed_bytes()
        return IterationStats(
            chaos=chaos if self.n else 0.0,
            expanded=int(total[C.STAT_EXPANDED]),
            kept=int(total[C.STAT_KEPT]),
            recovered=int(total[C.STAT_RECOVER]),
            selected=int(total[C.STAT_SELECT]),
            recovered_after_select=int(total[C.STAT_RECOVER_AFTER_SELECT]),
            emergency=int(total[C.STAT_EMERGENCY]),
            dense_path=int(total[C.STAT_DENSE_PATH]),
            emptied=int(total[C.STAT_EMPTIED]),
            min_mass=float(total[C.STAT_MIN_MASS]),
            seconds=time.perf_counter() - t0,
            extra={"phases": phases, "lanes": int(total[C.STAT_LANES]), "ordered": order is not None,
                   "in_order": int(total[C.STAT_IN_ORDER])},
        )


def _as_gaps(counts, rows, always):
    """`rows` (uint16, one row block, columns of ``counts[c]`` entries) as
    one-byte gaps written over them (``_kernels.gap_rows``): the gaps, the
    rows stored whole, and per column how many of those, in all and past its
    first entry; None if not `always` and more than one entry in
    GAP_EXCEPTIONS would be stored whole (the rows are then left as they are)."""
    gap_rows = kernels().gap_rows
    per, inner = np.zeros(counts.size, dtype=np.int64), np.zeros(counts.size, dtype=np.int64)
    gap_rows(counts, rows, np.empty(0, dtype=np.uint8), np.empty(0, dtype=np.uint16), per, inner)
    if not always and GAP_EXCEPTIONS * int(per.sum()) > rows.size:
        return None
    exc = np.empty(int(per.sum()), dtype=np.uint16)
    gaps = rows.view(np.uint8)[: rows.size]
    gap_rows(counts, rows, gaps, exc, per, inner)
    return gaps, exc, per, inner


def _in_order(pool, fn, items, window):
    """fn(item) for each item, in order, with at most `window` running or waiting on a pool."""
    if pool is None:
        yield from map(fn, items)
        return
    pending = deque()
    for item in items:
        pending.append(pool.submit(fn, item))
        if len(pending) >= window:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()
