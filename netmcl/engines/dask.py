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

Under a per-worker budget (``max_memory``) each block sits on a worker of its
own and its task computes its columns in phases, as the CPU engine does under
its budget: the task plans a phase from its own columns and the lengths of
the columns they read, fetches those columns from the workers holding them
(a small task on each), computes the phase and drops what it fetched.  No
worker, and not the client, then holds more than its block, the next one and
one phase's columns.  A group of components near convergence is checked for a
fixed point on the workers too (:meth:`DaskEngine.iterate_compared`): only
the answer comes back.

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

import contextlib
import logging
import operator
import time
import uuid
import warnings

import numpy as np

from ..exceptions import NetmclError, ParameterError
from ..sparse import CscMatrix
from . import Engine, IterationStats

__all__ = ["DaskEngine"]

log = logging.getLogger("netmcl")


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


def _workers(client):
    """The cluster's workers now, ``{address: threads}``, asked of the scheduler.

    Not ``client.scheduler_info()["workers"]``: distributed refreshes that cached reply in the
    background with one that lists no worker, which can replace the full one before it is read.
    """
    return dict(client.nthreads())


def _block_of(lo, hi, indptr, indices, data):
    """A start block as the tasks keep it (a task, so that a lost one can be made again)."""
    return lo, hi, indptr, indices, data


def _reads(indices, bounds):
    """The blocks that hold rows `indices` (the blocks a block's next expansion reads)."""
    present = np.zeros(int(bounds[-1]), dtype=bool)
    present[indices] = True  # a pass over the entries, where sorting them would cost a good part of the step
    return np.flatnonzero(np.logical_or.reduceat(present, bounds[:-1])).astype(np.int64) if present.size \
        else np.zeros(0, dtype=np.int64)


def _unchanged(old, new):
    """Whether block `new` equals block `old` (a fixed point), and whether its values are all 1.0."""
    same = (np.array_equal(old[2], new[2]) and np.array_equal(old[3], new[3]) and np.array_equal(old[4], new[4]))
    return same, same and bool(np.all(new[4] == 1.0))


def _block_step(n_rule, n, lo, hi, inflation, pruning, least, compare, bounds, *parts):
    """One iteration of columns lo..hi-1 of an n x n iterand whose columns
    are in `parts` (blocks ``(lo, hi, indptr, rows, values)``): the new block
    and its statistics (with `compare`, whether the block came out unchanged).
    Columns absent from `parts` are empty here; none of columns lo..hi-1
    reads one of them."""
    from distributed import get_worker

    from .cpu import _constants as C
    from .cpu._buffers import Appender
    from .cpu._compiled import kernels
    from .cpu.engine import L2_BYTES, NARROW_NODES, column_estimates

    t0 = time.perf_counter()
    K = kernels()
    colstart, colstop = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    offset = 0
    for blo, bhi, indptr, _, _ in parts:
        colstart[blo:bhi] = indptr[:-1] + offset
        colstop[blo:bhi] = indptr[1:] + offset
        offset += int(indptr[-1])
    narrow = n <= NARROW_NODES  # rows as the CPU engine keeps them: uint16 offsets in row blocks (less to read)
    blocks = -(-n >> C.BLOCK_SHIFT) if narrow else 1
    cuts = np.empty((max(blocks - 1, 0), n), dtype=np.int64)
    # the iterand's columns in one mapping each for rows and values, backed by 2 MiB pages where the kernel has
    # them (as the CPU engine keeps its iterand): the expansion reads them in scattered columns
    rows_map = Appender(np.uint16 if narrow else np.int32, offset, offset)
    values_map = Appender(np.float32, offset, offset)
    indices, data = rows_map.room(offset), values_map.room(offset)
    at = 0
    for blo, bhi, indptr, rows, values in parts:
        if blocks > 1:
            cuts[:, blo:bhi] = K.block_cuts(indptr[:-1], indptr[1:], rows.astype(np.int32, copy=False), blocks) + at
        indices[at : at + rows.size] = rows  # the low 16 bits where narrow: the offset in the row's block
        data[at : at + rows.size] = values
        at += rows.size
    survey, expand = (K.column_survey_u16, K.expand_columns_u16) if narrow else (K.column_survey, K.expand_columns)
    exc, none = np.empty(0, dtype=indices.dtype), np.empty(0, dtype=np.int64)
    flops, leaders = np.zeros(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    survey(colstart, colstop, cuts, indices, exc, none, data, lo, hi, flops, leaders)
    cut, select, recover, pct = pruning
    room = int(column_estimates(flops[lo:hi], pruning, n).sum())
    run = K.run_size(n, C.WIDE_RUNS, C.lane_nodes(L2_BYTES), C.narrow_nodes(L2_BYTES))
    sequence = np.arange(n, dtype=np.int64)
    order = _order(n_rule, n, lo, hi, flops, leaders)
    if order is not None:
        sequence[lo:hi] = order
    cnt, idx, val, chaos, st = expand(
        n_rule, n, colstart, colstop, indices, exc, none, none, data, flops, cuts, sequence,
        lo, hi, cut, select, recover, pct, 0.0 if inflation is None else inflation, C.LANE_SHARING, C.LONE_READS,
        least, run, room, K.work_arrays(n, run),
    )
    del indices, data, colstart, colstop, rows_map, values_map
    cnt = cnt.reshape(hi - lo, -1)
    if cnt.shape[1] > 1:  # a column's entries row block after row block: each block's offset added back
        ends = np.cumsum(cnt, axis=1)
        start = np.zeros(hi - lo, dtype=np.int64)
        np.cumsum(ends[:-1, -1], out=start[1:])
        wide = np.empty(idx.size, dtype=np.int32)
        K.full_rows_u16(start, start + ends[:, -1], np.ascontiguousarray((start[:, None] + ends[:, :-1]).T), idx,
                        exc, none, wide)
        idx = wide
        del ends, start, wide
    cnt = cnt.sum(axis=1)
    idx = idx.astype(np.int32, copy=False)
    if order is not None:  # the columns back in column order
        at = np.zeros(hi - lo, dtype=np.int64)
        np.cumsum(cnt[:-1], out=at[1:])
        position = np.empty(hi - lo, dtype=np.int64)
        position[order - lo] = np.arange(hi - lo)
        cnt = cnt[position]
        moved = np.empty_like(idx), np.empty_like(val)
        _copy_columns(at[position], cnt, idx, val, *moved)
        idx, val = moved
        del moved
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
    block = (lo, hi, indptr, idx, val)
    if compare:
        stats["same"], stats["ones"] = _unchanged(next(p for p in parts if p[0] == lo), block)
    return block, stats


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


#: the most columns a phase's plan looks at at a time: the union of what they read is found with one sort per chunk
PLAN_COLUMNS = 4096
#: where a phase's columns read columns of other blocks, bytes held per byte of them: as received, in the
#: phase's buffer, and as the copy this worker serves to another block's phase at the same time
READ_COPIES = 3
#: bytes held per estimated entry of a phase's new columns: the kernel's results and their copy in the new block
KEPT_COPIES = 2
#: heavy columns are expanded in runs only where the runs' work arrays take at most 1/RUN_SHARE of a step's budget
RUN_SHARE = 8


def _copy_columns(starts, counts, indices, data, to_idx, to_val):
    """Columns (`starts`, `counts` into `indices`, `data`) copied one after the other into `to_idx`, `to_val`."""
    from .cpu._compiled import kernels

    at = np.zeros(counts.size, dtype=np.int64)
    np.cumsum(counts[:-1], out=at[1:])
    kernels().copy_spans(np.ascontiguousarray(starts, dtype=np.int64), at,
                         np.ascontiguousarray(counts, dtype=np.int64), indices, data, to_idx, to_val)


def _take(block, ids):
    """Columns `ids` (ascending, all in the block) of a block: their entry counts, rows and values."""
    lo, _, indptr, indices, data = block
    local = np.asarray(ids, dtype=np.int64) - lo
    counts = indptr[local + 1] - indptr[local]
    total = int(counts.sum())
    idx, val = np.empty(total, dtype=np.int32), np.empty(total, dtype=np.float32)
    _copy_columns(indptr[local], counts, indices, data, idx, val)
    return counts, idx, val


def _block_bytes(block):
    return sum(a.nbytes for a in block[2:])


def _plan_phase(start, indptr, indices, lo, length, estimate, room, need, hint=PLAN_COLUMNS):
    """The end (exclusive, a position in the block) of the phase of the
    block's columns from position `start` on, as the CPU engine's budget
    plans them (``phase_stop`` over running costs), where a column costs
    KEPT_COPIES times the bytes of its estimated new entries and READ_COPIES
    times those of the columns it reads that the phase's columns before it do
    not (itself among them); None where not even column `start` fits in
    `room` bytes.  `need` is a scratch mark per node, left cleared.  The
    columns are looked at in chunks, the first of about `hint` columns (the
    phase before's length), each next one twice as long: a phase of a few
    columns that read many then costs a sort of what they read, not of what
    PLAN_COLUMNS columns read.  The answer does not depend on `hint`."""
    from .cpu.engine import phase_stop

    m = indptr.size - 1
    spent, pos, marked = 0, start, []
    size = min(PLAN_COLUMNS, max(1, int(hint) + 1))
    try:
        while pos < m:
            end = min(m, pos + size)
            size = min(PLAN_COLUMNS, 2 * size)
            counts = indptr[pos + 1 : end + 1] - indptr[pos:end]
            # each column's reads, itself first, column after column: a node costs the first column that reads
            # it in the chunk, and nothing where a chunk before read it
            rows = np.insert(indices[indptr[pos] : indptr[end]].astype(np.int64), indptr[pos:end] - indptr[pos],
                             np.arange(lo + pos, lo + end))
            owner = np.repeat(np.arange(end - pos), counts + 1)
            nodes, first = np.unique(rows, return_index=True)
            fresh = ~need[nodes]
            cost = KEPT_COPIES * 8 * estimate[pos:end]
            np.add.at(cost, owner[first[fresh]], READ_COPIES * 8 * length[nodes[fresh]])
            cum = np.cumsum(np.concatenate([[spent], cost]))  # position 0: what the chunks before took
            fits = phase_stop(cum, 1, room - spent)
            if fits is None:
                return None if pos == start else pos
            if fits - 1 < end - pos:
                return pos + fits - 1
            need[nodes[fresh]] = True
            marked.append(nodes[fresh])
            spent, pos = int(cum[-1]), end
        return m
    finally:
        for nodes in marked:
            need[nodes] = False


def _phased_step(n_rule, n, inflation, pruning, least, budget, bounds, keys, compare, own, *lengths):
    """One iteration of block `own` under a memory budget of `budget` bytes:
    its columns in phases, each phase fetching the columns its columns read
    from the blocks that hold them (``keys``: every block's key; ``lengths``:
    every block's column entry counts), computing its columns with the CPU
    engine's kernel and dropping what it fetched before the next phase.  The
    new block and its statistics (phases, the bytes held at most by the
    budget's count, the worker process's resident memory at most, the bytes
    fetched from other workers)."""
    import psutil
    from distributed import Future, get_worker, worker_client

    from .cpu import _constants as C
    from .cpu._buffers import Appender
    from .cpu._compiled import kernels
    from .cpu.engine import L2_BYTES, column_estimates, scratch_bytes

    t0 = time.perf_counter()
    K = kernels()
    process = psutil.Process()
    rss = process.memory_info().rss
    lo, hi, indptr, indices, data = own
    m = hi - lo
    length = np.concatenate(lengths).astype(np.int64, copy=False)
    run = K.run_size(n, C.WIDE_RUNS, C.lane_nodes(L2_BYTES), C.narrow_nodes(L2_BYTES))
    if run > 1 and RUN_SHARE * scratch_bytes(n, run) > budget:
        run = 1  # heavy columns one at a time: slower, but their accumulators would take much of the budget
    # the survey of the block's columns reads only its own entries and the other columns' lengths
    colstart, colstop = np.zeros(n, dtype=np.int64), length.copy()
    colstart[lo:hi], colstop[lo:hi] = indptr[:-1], indptr[1:]
    cuts = np.empty((0, n), dtype=np.int64)
    exc, none = np.empty(0, dtype=np.int32), np.empty(0, dtype=np.int64)
    flops, leaders = np.zeros(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    K.column_survey(colstart, colstop, cuts, indices, exc, none, data, lo, hi, flops, leaders)
    del leaders
    estimate = column_estimates(flops[lo:hi], pruning, n)
    sequence = np.arange(lo, hi, dtype=np.int64)  # the block's columns in column order
    need = np.zeros(n, dtype=bool)
    counts_out = np.zeros(m, dtype=np.int64)
    work = K.work_arrays(n, run)
    # the block, colstart, colstop, flops, length and need, the new column counts and order, the work arrays
    fixed = _block_bytes(own) + 8 * 4 * n + n + 16 * m + scratch_bytes(n, run)
    reserve = int(estimate.sum()) + 1
    out_idx, out_val = Appender(np.int32, min(reserve, indices.size + m + 1), reserve), \
        Appender(np.float32, min(reserve, indices.size + m + 1), reserve)
    cut, select, recover, pct = pruning
    chaos, phases, peak, fetched = 0.0, 0, fixed, 0
    # seconds the phases spent planning, copying their own columns, receiving the other blocks' and computing
    spent = dict.fromkeys(("plan", "local", "fetch", "kernel"), 0.0)
    total = np.zeros(C.N_STATS)
    total[C.STAT_MIN_MASS] = np.inf
    own_key = keys[int(np.searchsorted(bounds, lo, side="right")) - 1]
    sources = {}  # block -> its future, made when first read (the step then leaves the worker's thread pool)
    client = None
    with contextlib.ExitStack() as stack:
        start, last = 0, PLAN_COLUMNS
        while start < m:
            written = out_idx.resident_bytes + out_val.resident_bytes
            t1 = time.perf_counter()
            stop = _plan_phase(start, indptr, indices, lo, length, estimate, budget - fixed - written, need,
                               hint=last)
            if stop is None:  # said by the client (a task that raised would be retried)
                return None, {"error": (
                    f"A Dask worker's memory budget (max_memory = {budget:,} bytes for this block) cannot hold "
                    f"column {lo + start} of this iteration: the block's columns and the worker's scratch take "
                    f"{fixed + written:,} bytes, and the column with the columns it reads up to "
                    f"{KEPT_COPIES * 8 * int(estimate[start]) + READ_COPIES * 8 * int(length[indices[indptr[start]:indptr[start + 1]]].sum() + length[lo + start]):,} more. "
                    "Raise max_memory, use more workers (smaller blocks), or prune harder (lower -P/-S/-R)."
                )}, None
            t2 = time.perf_counter()
            spent["plan"] += t2 - t1
            need[indices[indptr[start] : indptr[stop]]] = True
            need[lo + start : lo + stop] = True
            ids = np.flatnonzero(need)
            need[ids] = False
            sizes = length[ids]
            at = np.zeros(ids.size + 1, dtype=np.int64)
            np.cumsum(sizes, out=at[1:])
            colstart[ids], colstop[ids] = at[:-1], at[1:]
            buf_idx, buf_val = np.empty(int(at[-1]), dtype=np.int32), np.empty(int(at[-1]), dtype=np.float32)
            edges = np.searchsorted(ids, bounds)
            held, parts, mine = 0, [], []
            for c in range(bounds.size - 1):
                a, b = int(edges[c]), int(edges[c + 1])
                if a == b:
                    continue
                if keys[c] == own_key:
                    mine.append((a, b))
                    continue
                if client is None:
                    client = stack.enter_context(worker_client())
                if c not in sources:
                    sources[c] = Future(keys[c], client=client)
                parts.append((a, b, client.submit(_take, sources[c], ids[a:b], pure=False)))
            for a, b in mine:  # while the other blocks' holders prepare theirs
                local = ids[a:b] - lo
                _copy_columns(indptr[local], indptr[local + 1] - indptr[local], indices, data,
                              buf_idx[at[a] : at[b]], buf_val[at[a] : at[b]])
            t3 = time.perf_counter()
            spent["local"] += t3 - t2  # with marking what the phase reads and submitting the fetches
            for a, b, part in parts:  # prepared side by side by their holders, received one at a time
                _, got_idx, got_val = part.result()
                part.release()
                held = max(held, got_idx.nbytes + got_val.nbytes)
                buf_idx[at[a] : at[b]], buf_val[at[a] : at[b]] = got_idx, got_val
                fetched += got_idx.nbytes + got_val.nbytes
                del got_idx, got_val
            del parts
            t4 = time.perf_counter()
            spent["fetch"] += t4 - t3
            cnt, idx, val, ch, st = K.expand_columns(
                n_rule, n, colstart, colstop, buf_idx, exc, none, none, buf_val, flops, cuts, sequence,
                start, stop, cut, select, recover, pct, 0.0 if inflation is None else inflation,
                C.LANE_SHARING, C.LONE_READS, least, run, int(estimate[start:stop].sum()), work,
            )
            peak = max(peak, fixed + written + buf_idx.nbytes + buf_val.nbytes + held + 2 * (idx.nbytes + val.nbytes))
            rss = max(rss, process.memory_info().rss)
            spent["kernel"] += time.perf_counter() - t4
            del buf_idx, buf_val
            colstart[ids], colstop[ids] = 0, length[ids]
            counts_out[start:stop] = cnt.ravel()
            out_idx.append(idx.astype(np.int32, copy=False))
            out_val.append(val)
            del idx, val
            chaos = max(chaos, float(ch))
            total[: C.STAT_MIN_MASS] += st[: C.STAT_MIN_MASS]
            total[C.STAT_MIN_MASS] = min(total[C.STAT_MIN_MASS], st[C.STAT_MIN_MASS])
            phases += 1
            last = stop - start
            log.debug("block at column %d: phase %d, columns %d..%d, %d columns read; so far %d bytes fetched, "
                      "%d held at most, seconds %s", lo, phases, lo + start, lo + stop - 1, ids.size, fetched, peak,
                      {k: round(v, 2) for k, v in spent.items()})
            start = stop
        sources.clear()
    new_indptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(counts_out, out=new_indptr[1:])
    val = out_val.array()
    block = (lo, hi, new_indptr, out_idx.array(), val)
    st = total.copy()
    st[C.STAT_MIN_MASS] = total[C.STAT_MIN_MASS] if m else 1.0
    stats = {
        "chaos": chaos if m else 0.0, "st": st, "least": float(val.min()) if val.size else np.inf,
        "reads": np.zeros(0, dtype=np.int64), "bytes": _block_bytes(block), "worker": get_worker().address,
        "seconds": time.perf_counter() - t0, "engine": "cpu", "phases": phases, "peak": int(peak), "rss": int(rss),
        "fetched": int(fetched), "budget": int(budget), "spent": spent,
    }
    if compare:
        stats["same"], stats["ones"] = _unchanged(own, block)
    return block, stats, counts_out


def _block_with_engine(name, n_rule, n, inflation, pruning, bounds, compare, block):
    """One iteration of a one-block iterand (all n columns) on a fresh engine
    `name` on the worker (``worker_engine``); with `compare`, whether it came
    out unchanged."""
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
    new = (0, n, m.indptr, idx, m.data)
    if compare:
        stats["same"], stats["ones"] = _unchanged(block, new)
    return new, stats


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


def _lengths_of(block):
    """The entry counts of a block's columns."""
    return np.diff(block[2])


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
    max_memory : int or str, optional
        A budget per worker (``"6G"``), planned as the CPU engine plans its
        own (:func:`~netmcl.engines.cpu.engine.column_estimates`,
        :func:`~netmcl.engines.cpu.engine.phase_stop`): each block then sits
        on a worker of its own (at most one block a worker) and iterates in
        phases, each phase fetching from the other workers only the columns
        its columns read, and dropping them before the next.  It bounds what
        the step holds: its block, the new block as it grows, the work
        arrays and a phase's columns; a worker of several threads shares it
        among them.  A worker holds its part of the iterand twice (the
        block and the next one), so the budget must exceed twice the
        iterand divided by the workers; the phases fit the rest.  Default:
        no budget (each block's task receives the whole blocks it reads).
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

    Notes
    -----
    Each iteration's :class:`~netmcl.engines.IterationStats` carries in
    ``extra``: ``blocks``, ``worker_seconds`` (per worker address),
    ``bytes_between_workers`` and ``worker_engines``; under `max_memory` also
    ``phases`` (the most of any block), ``worker_budget``,
    ``worker_peak_bytes`` (by the budget's count), ``worker_rss`` and
    ``worker_phase_seconds``: per worker, the seconds its phases spent
    planning (``plan``), copying their own columns (``local``), receiving
    the columns of other workers' blocks (``fetch``) and computing
    (``kernel``).  With the ``netmcl`` logger at DEBUG on the workers, each
    phase logs its columns and these figures as it ends.

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
        from .cpu.engine import parse_memory

        self.client = _client(client, scheduler)
        if threads is None:
            threads = sum(_workers(self.client).values())
        self.threads = max(1, int(threads))
        self.max_memory = parse_memory(max_memory)
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
        self._lengths = []  # per block under a budget, the future of its columns' entry counts
        self._reads = []  # per block, the blocks its next expansion reads
        self._sizes = []  # per block, its bytes
        self._holders = []  # per block, the worker that computed it (None: not known)
        self._budget = None  # bytes of a block's step under max_memory
        self.n = self.n_rule = 0
        self.bounds = np.zeros(1, dtype=np.int64)
        self._least = 0.0

    @property
    def phased(self):
        """Whether blocks iterate in phases under `max_memory` (with the CPU engine's kernel)."""
        return self.max_memory is not None and self.worker_engine == "cpu"

    def spawn(self, *, threads, share):
        return DaskEngine(threads=threads, max_memory=self.max_memory, client=self.client,
                          blocks=self.blocks if threads > 1 else 1, worker_engine=self.worker_engine,
                          lost_after=self.lost_after)

    def _key(self, kind, b):
        return f"netmcl-{self._run}-{self._iteration:04d}-{kind}-{b}"

    def load(self, matrix, *, n_rule):
        m = CscMatrix.of(matrix)
        self.n, self.n_rule = m.shape[0], int(n_rule)
        workers = _workers(self.client)
        names = sorted(workers)
        q = 1 if self.worker_engine != "cpu" else min(max(self.n, 1), self.blocks or self.threads)
        if self.phased and names:
            q = min(q, len(names))  # one block a worker: a block's budget is its worker's
        counts = np.cumsum(np.diff(m.indptr))
        cuts = np.searchsorted(counts, counts[-1] * np.arange(1, q) / q) if self.n else np.zeros(0, dtype=np.int64)
        self.bounds = np.unique(np.concatenate([[0], cuts, [self.n]])).astype(np.int64)
        self._least = float(m.data.min()) if m.nnz else 0.0
        if self.phased:
            # a worker runs at once as many steps as it has threads (groups of components) or blocks of one run
            share = max([*workers.values(), 1])
            self._budget = max(1, self.max_memory // share)
        self._iteration += 1
        self._futures, self._lengths, self._reads, self._sizes, self._holders = [], [], [], [], []
        for b, (lo, hi) in enumerate(zip(self.bounds[:-1].tolist(), self.bounds[1:].tolist())):
            at, to = int(m.indptr[lo]), int(m.indptr[hi])
            indices = m.indices[at:to].astype(np.int32)
            block = (lo, hi, m.indptr[lo : hi + 1] - at, indices, m.data[at:to].copy())
            # under a budget, each block of several on a worker of its own (another one where that one is lost)
            spread = self.phased and names and self.bounds.size > 2
            where = dict(workers=[names[b % len(names)]], allow_other_workers=True) if spread else {}
            with warnings.catch_warnings():  # the data travels with the task (its lineage's root), by design
                warnings.filterwarnings("ignore", "Sending large graph", UserWarning)
                self._futures.append(self.client.submit(_block_of, *block, key=self._key("start", b), pure=False,
                                                        **where))
            if self.phased:
                self._lengths.append(self.client.submit(_same, np.diff(block[2]), key=self._key("lengths", b),
                                                        pure=False, **where))
            self._reads.append(np.union1d(_reads(indices, self.bounds), [b]))
            self._sizes.append(sum(a.nbytes for a in block[2:]))
            self._holders.append(None)

    def _gather(self, futures):
        """The futures' values; a clear error when the cluster has had no worker for `lost_after` seconds."""
        from distributed.client import _wait

        lost = None
        while True:
            try:
                self.client.sync(_wait, futures, timeout=1.0)
                break
            except TimeoutError:
                if _workers(self.client):
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
        return self._iterate(inflation, pruning, compare=False)[0]

    def iterate_compared(self, inflation, pruning):
        """:meth:`iterate`, and whether the iterand came out unchanged, each
        block compared with the one before on its worker: only the answer
        comes back."""
        stats, same, ones = self._iterate(inflation, pruning, compare=True)
        return stats, same, ones

    def _iterate(self, inflation, pruning, compare):
        t0 = time.perf_counter()
        if inflation is not None and not inflation > 0.0:
            raise ParameterError(f"The inflation of an iteration must be positive. Got {inflation!r} instead.")
        self._iteration += 1
        if any(h is None for h in self._holders):  # where the start blocks went (later: where each was computed)
            where = self.client.who_has(self._futures)
            self._holders = [(sorted(where.get(f.key, ())) or [None])[0] for f in self._futures]
        holders = self._holders
        keys = [f.key for f in self._futures]
        steps, remote = [], 0
        for b, (lo, hi) in enumerate(zip(self.bounds[:-1].tolist(), self.bounds[1:].tolist())):
            pin = dict(workers=[holders[b]], allow_other_workers=True) if holders[b] else {}
            if self.worker_engine != "cpu":
                step = self.client.submit(_block_with_engine, self.worker_engine, self.n_rule, self.n, inflation,
                                          pruning, self.bounds, compare, self._futures[b], key=self._key("step", b),
                                          pure=False, retries=2)
            elif self.phased:
                step = self.client.submit(_phased_step, self.n_rule, self.n, inflation, tuple(pruning), self._least,
                                          self._budget, self.bounds, keys, compare, self._futures[b],
                                          *self._lengths, key=self._key("step", b), pure=False, retries=2, **pin)
            else:
                reads = [self._futures[c] for c in self._reads[b].tolist()]
                step = self.client.submit(_block_step, self.n_rule, self.n, lo, hi, inflation, tuple(pruning),
                                          self._least, compare, self.bounds, *reads, key=self._key("step", b),
                                          pure=False, retries=2)
            steps.append(step)
        blocks = [self.client.submit(operator.getitem, s, 0, key=self._key("block", b), pure=False)
                  for b, s in enumerate(steps)]
        lengths = [self.client.submit(operator.getitem, s, 2, key=self._key("lengths", b), pure=False)
                   for b, s in enumerate(steps)] if self.phased else []
        stats = self._gather([self.client.submit(operator.getitem, s, 1, key=self._key("stats", b), pure=False)
                              for b, s in enumerate(steps)])
        refused = [s["error"] for s in stats if "error" in s]
        if refused:
            raise ParameterError(refused[0])
        if self.phased:  # bytes that moved between workers: the columns each step fetched
            remote = sum(s["fetched"] for s in stats)
        else:  # blocks read by a task that ran elsewhere than they were
            for b, s in enumerate(stats):
                for c in self._reads[b].tolist():
                    if s["worker"] != holders[c]:
                        remote += self._sizes[c]
        self._futures = blocks  # the blocks before stay in the lineage: a lost block is recomputed from them
        self._lengths = lengths
        self._reads = [np.union1d(s["reads"], [b]) for b, s in enumerate(stats)]
        self._sizes = [s["bytes"] for s in stats]
        self._holders = [s["worker"] for s in stats]
        self._keep_least([s["least"] for s in stats])
        st = np.sum([s["st"] for s in stats], axis=0)
        per_worker, engines = {}, {}
        for s in stats:
            per_worker[s["worker"]] = per_worker.get(s["worker"], 0.0) + s["seconds"]
            engines[s["engine"]] = engines.get(s["engine"], 0) + 1
        extra = {"blocks": len(stats), "worker_seconds": per_worker, "bytes_between_workers": int(remote),
                 "worker_engines": engines}
        if self.phased:
            extra["phases"] = max((s["phases"] for s in stats), default=1)
            extra["worker_budget"] = int(self._budget)
            # per worker, the most any of its steps held by the budget's count, and its process's resident memory
            extra["worker_peak_bytes"], extra["worker_rss"], extra["worker_phase_seconds"] = {}, {}, {}
            for s in stats:
                for key, value in (("worker_peak_bytes", s["peak"]), ("worker_rss", s["rss"])):
                    extra[key][s["worker"]] = max(extra[key].get(s["worker"], 0), value)
                parts = extra["worker_phase_seconds"].setdefault(s["worker"], dict.fromkeys(s["spent"], 0.0))
                for part, seconds in s["spent"].items():
                    parts[part] += seconds
        result = IterationStats(
            chaos=max(s["chaos"] for s in stats) if stats else 0.0,
            expanded=int(st[0]), kept=int(st[1]), recovered=int(st[2]), selected=int(st[3]),
            recovered_after_select=int(st[4]), emergency=int(st[5]), dense_path=int(st[6]), emptied=int(st[7]),
            min_mass=float(min(s["st"][10] for s in stats)) if stats else 1.0,
            seconds=time.perf_counter() - t0, extra=extra,
        )
        same = compare and all(s["same"] for s in stats)
        return result, same, same and all(s["ones"] for s in stats)

    def inflate(self, inflation):
        self._iteration += 1
        both = [self.client.submit(_block_inflate, f, inflation, key=self._key("inflate", b), pure=False)
                for b, f in enumerate(self._futures)]
        self._futures = [self.client.submit(operator.getitem, f, 0, key=self._key("inflated", b), pure=False)
                         for b, f in enumerate(both)]
        counts = self._gather([self.client.submit(operator.getitem, f, 1, key=self._key("emptied", b), pure=False)
                               for b, f in enumerate(both)])
        self._keep_least([least for _, least in counts])
        if self.phased:  # inflation may have emptied columns
            self._lengths = [self.client.submit(_lengths_of, f, key=self._key("lengths", b), pure=False)
                             for b, f in enumerate(self._futures)]
        self._holders = [None] * len(self._futures)
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

    def sweep_runs(self, graph, settings, expansion, first, run):
        """Each inflation's run of a sweep (after the shared first expansion) as a task:
        ``run(graph, params, expansion, first)`` on a worker, which returns ``(clustering,
        seconds)``; yields these in the order of `settings`."""
        with warnings.catch_warnings():  # the data travels with the tasks (their lineage's root), by design
            warnings.filterwarnings("ignore", "Sending large graph", UserWarning)
            g = self.client.submit(_same, graph, key=f"netmcl-{self._run}-graph", pure=False)
            e = self.client.submit(_same, expansion, key=f"netmcl-{self._run}-expansion", pure=False)
        workers = sorted(_workers(self.client))
        # spread over the workers (the inputs' holder would otherwise take them all), any other one if it is lost
        where = [dict(workers=workers[k % len(workers)], allow_other_workers=True) if workers else {}
                 for k in range(len(settings))]
        runs = [self.client.submit(run, g, prm, e, first, key=f"netmcl-{self._run}-sweep-{k}", pure=False,
                                   retries=2, **where[k])
                for k, prm in enumerate(settings)]
        for task in runs:
            yield self._gather([task])[0]


