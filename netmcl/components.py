"""Exact MCL on the connected components of a graph, each on its own.

Flow never crosses between components, so every column of the iterand
depends only on the columns of its own component.  netmcl therefore
iterates groups of components separately (in parallel when there are many)
and gets the same iterands as one run over the whole graph, because:

* a group's matrix keeps its nodes in their original relative order, so every
  sum runs over the same k in the same order;
* each column's product path is decided with the whole graph's node count
  (``n_rule``), as mcl decides it;
* the iteration count is the whole run's: mcl stops at the first iteration
  whose chaos (the maximum over all columns) is below 1e-4.  Each group first
  runs to its own convergence; the last group to converge fixes that
  iteration T (before it, that group's chaos was >= 1e-4), the other groups
  are continued to T, and if one of them is above the limit again at T all
  groups go on together until every one is below it.  A group whose iterand
  no longer changes is not recomputed (the result would be bit-identical).
"""

import dataclasses
import logging
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._compiled import for_rows
from .sparse import CscMatrix, spans

__all__ = ["Tracks", "component_groups", "run_components", "split_components", "weak_components"]

log = logging.getLogger("netmcl")

#: components smaller than this are packed together into one group
GROUP_NODES = 4096


def weak_components(matrix):
    """The weakly connected components of a square sparse matrix's pattern.

    Every stored entry links its row and column, whatever its direction or
    value.  Components are numbered by their smallest node.

    Parameters
    ----------
    matrix : CscMatrix, or scipy sparse matrix in CSC or CSR form

    Returns
    -------
    count : int
    labels : numpy.ndarray of int64
        The component of each node.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> m = sp.csc_array(([1.0, 1.0], ([3, 1], [0, 2])), shape=(5, 5))
    >>> count, labels = weak_components(m)
    >>> count, labels.tolist()
    (3, [0, 1, 1, 0, 2])
    """
    rows = np.asarray(matrix.indices)
    if rows.dtype != np.uint16:  # (a start matrix's rows on at most 65,536 nodes are uint16)
        rows = rows.astype(np.int32, copy=False)
    count, labels = for_rows("weak_labels", rows.dtype)(
        np.ascontiguousarray(matrix.indptr, dtype=np.int64), np.ascontiguousarray(rows)
    )
    return int(count), labels


def component_groups(matrix, *, group_nodes=GROUP_NODES):
    """Node sets to iterate separately: big components alone, small ones packed.

    Parameters
    ----------
    matrix : CscMatrix or scipy sparse matrix
        The start matrix (its pattern decides the components).
    group_nodes : int
        Target size of a group of small components.

    Returns
    -------
    list of numpy.ndarray
        Sorted node indices of each group, largest group first; a single
        group when the graph is connected.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> m = sp.csc_array(([1.0] * 4, ([0, 1, 2, 3], [1, 0, 3, 2])), shape=(5, 5))
    >>> [g.tolist() for g in component_groups(m, group_nodes=2)]
    [[0, 1], [2, 3], [4]]
    """
    n = matrix.shape[0]
    ncomp, comp = weak_components(matrix)
    if ncomp <= 1:
        return [np.arange(n)]
    sizes = np.bincount(comp, minlength=ncomp)
    order = np.argsort(-sizes, kind="stable")
    group_of_comp = np.empty(ncomp, dtype=np.int64)
    group, filled = -1, group_nodes
    for c in order.tolist():
        if filled + sizes[c] > group_nodes:
            group, filled = group + 1, 0
        group_of_comp[c] = group
        filled += sizes[c]
    node_group = group_of_comp[comp]
    by_group = np.argsort(node_group, kind="stable")
    bounds = np.searchsorted(node_group[by_group], np.arange(group + 2))
    return [by_group[bounds[g] : bounds[g + 1]] for g in range(group + 1)]


class _Track:
    """One group of components iterated on its own engine."""

    def __init__(self, nodes, engine, matrix, n_rule, done):
        self.nodes = nodes
        self.engine = engine
        engine.load(matrix, n_rule=n_rule)
        self.done = done  # iterations run before the groups were split
        self.stats = []
        self.fixed = False

    @property
    def iteration(self):
        return self.done + len(self.stats)

    def advance(self, params, stop_at, *, until_converged, inflation_at, chaos_limit):
        """Iterate up to iteration `stop_at`, or to this group's own convergence."""
        while self.iteration < stop_at:
            it = self.iteration + 1
            if self.fixed:
                self.stats.append(dataclasses.replace(self.stats[-1], seconds=0.0, extra={}))
                continue
            # only a converged group, continued to the whole run's end, is
            # checked for a fixed point (which holds its last two iterands)
            before = None if until_converged else self.engine.result()
            stats = self.engine.iterate(inflation_at(params, it), params.pruning())
            self.stats.append(stats)
            if until_converged and stats.chaos < chaos_limit:
                self.engine.release_scratch()  # until the whole run's end, if ever, while the others iterate
                return
            if before is not None:
                after = self.engine.result()
                unchanged = (
                    np.array_equal(before.indptr, after.indptr)
                    and np.array_equal(before.indices, after.indices)
                    and np.array_equal(before.data, after.data)
                )
                del before
                # a fixed point stays one if the next inflation is the same,
                # or for any inflation when every column is a single 1.0
                same_next = inflation_at(params, it + 1) == inflation_at(params, it)
                self.fixed = unchanged and (same_next or bool(np.all(after.data == 1.0)))


def split_components(start, groups, engine, *, done=0):
    """Give every group of components its own engine, loaded with its part of `start`.

    Parameters
    ----------
    start : CscMatrix or scipy sparse matrix
        The whole start matrix, or the iterand after `done` iterations.
    groups : list of numpy.ndarray
        From :func:`component_groups`.
    engine : Engine
        Template: groups get engines from ``engine.spawn``.  A group that
        holds a quarter of the entries or more gets all its threads and is
        iterated last, when the others hold their limits (a few entries a
        column) rather than their start matrices; the other groups get one
        thread each and are iterated side by side.  Entries, not nodes:
        iterated side by side with the others, a group with most of the work
        runs on one thread and the process holds two groups' iterations at
        once (the mmseqs2 network's largest group has 20 % of the nodes and
        74 % of the entries; at 2 threads its peak memory went from 43.9 MB
        to 41.1).
    done : int
        Iterations already run on `start` (none of them converged).

    Returns
    -------
    Tracks
        For :func:`run_components`.  The engines hold their own parts, so
        the caller may drop `start` before iterating.
    """
    start = CscMatrix.of(start)
    threads = getattr(engine, "threads", 1)
    big = 4 * int(np.diff(start.indptr)[groups[0]].sum()) >= start.nnz
    tracks = []
    for g, nodes in enumerate(groups):
        alone = big and g == 0
        eng = engine.spawn(threads=threads if alone else 1, share=1 if alone else threads)
        tracks.append(_Track(nodes, eng, start.principal(nodes), start.shape[0], done))
    return Tracks(tracks, start.shape[0], threads, big, done)


@dataclasses.dataclass
class Tracks:
    """Groups of components on their own engines (:func:`split_components`)."""

    tracks: list
    n: int
    threads: int
    big: bool  # the first group has every thread and runs after the others
    done: int


def run_components(tracks, params, *, inflation_at, chaos_limit):
    """Iterate each group of components separately; return (limit, per-iteration stats).

    Parameters
    ----------
    tracks : Tracks
        From :func:`split_components`.
    params : MclParams
    inflation_at, chaos_limit
        The loop's inflation schedule and convergence limit.

    Returns
    -------
    limit : CscMatrix
        The iterand after the whole run's last iteration.
    stats : list of IterationStats
        Of the iterations after `tracks.done`, combined over groups: chaos is
        the maximum, counts and seconds are summed; ``extra`` holds the
        number of groups and the most phases a group's iteration took.

    Examples
    --------
    Two pairs, one group each:

    >>> from netmcl.engines import get_engine
    >>> from netmcl.graph import SparseGraph
    >>> from netmcl.mcl import CHAOS_LIMIT, inflation_at, start_matrix
    >>> from netmcl.params import MclParams
    >>> start = start_matrix(SparseGraph.from_edges([0, 2], [1, 3]), MclParams())
    >>> tracks = split_components(start, component_groups(start, group_nodes=2), get_engine("cpu", threads=1))
    >>> del start  # each group's engine holds its own part
    >>> limit, stats = run_components(tracks, MclParams(), inflation_at=inflation_at, chaos_limit=CHAOS_LIMIT)
    >>> len(tracks.tracks), len(stats), limit.toarray().tolist()
    (2, 1, [[0.5, 0.5, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5], [0.0, 0.0, 0.5, 0.5]])
    """
    done = tracks.done
    common = dict(inflation_at=inflation_at, chaos_limit=chaos_limit)

    def each(fn):
        rest = tracks.tracks[1:] if tracks.big else tracks.tracks
        if tracks.threads > 1 and len(rest) > 1:
            with ThreadPoolExecutor(max_workers=tracks.threads) as pool:
                list(pool.map(fn, rest))
        else:
            for t in rest:
                fn(t)
        if tracks.big:
            fn(tracks.tracks[0])

    cap = params.max_iterations
    each(lambda t: t.advance(params, cap, until_converged=True, **common))
    last = max(t.iteration for t in tracks.tracks)
    while True:
        each(lambda t: t.advance(params, last, until_converged=False, **common))
        if last >= cap or max(t.stats[last - done - 1].chaos for t in tracks.tracks) < chaos_limit:
            break
        last += 1
    log.debug("%d component groups, %d iterations", len(tracks.tracks), last)
    stats = [_combine([t.stats[i] for t in tracks.tracks]) for i in range(last - done)]
    return _assemble(tracks.tracks, tracks.n), stats


def _combine(parts):
    phases = max(p.extra.get("phases", 1) for p in parts)  # the most any group's budget needed
    total = dataclasses.replace(parts[0], extra={"groups": len(parts), "phases": phases})
    for f in dataclasses.fields(total):
        values = [getattr(p, f.name) for p in parts]
        if f.name == "chaos":
            total.chaos = max(values)
        elif f.name == "min_mass":
            total.min_mass = min(values)
        elif f.name != "extra":
            setattr(total, f.name, sum(values))
    return total


def _assemble(tracks, n):
    """The groups' iterands as one matrix on the whole graph's nodes.

    A group's nodes are sorted and its columns hold only its own rows, so
    renumbering keeps every column's rows sorted.
    """
    counts = np.zeros(n, dtype=np.int64)
    parts = [(t.nodes, t.engine.result()) for t in tracks]
    for nodes, m in parts:
        counts[nodes] = np.diff(m.indptr)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    rows = np.empty(int(indptr[-1]), dtype=np.int32)
    vals = np.empty(int(indptr[-1]), dtype=np.float32)
    for nodes, m in parts:
        entries = spans(indptr[nodes], np.diff(m.indptr))
        rows[entries] = nodes[m.indices]
        vals[entries] = m.data
    return CscMatrix(indptr, rows, vals, n)
