"""Exact MCL on the connected components of a graph, each group on its own engine.

Flow never crosses between components, so every column of the iterand
depends only on the columns of its own component.  :class:`GroupedEngine`
therefore keeps groups of components on engines of their own (big
components alone, small ones packed) and iterates them side by side, and
the iterands are the same as one engine's over the whole graph, because:

* a group's matrix keeps its nodes in their original relative order, so every
  sum runs over the same k in the same order;
* each column's product path is decided with the whole graph's node count
  (``n_rule``), as mcl decides it;
* every group takes every iteration of the run, with the run's inflation; a
  group whose iterand no longer changes is not recomputed (the result would
  be bit-identical).

:class:`GroupedEngine` is itself an :class:`~netmcl.engines.Engine`: the
loop of :mod:`netmcl.mcl` drives it as it drives any engine.
"""

import dataclasses
import logging
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .engines import Engine
from .sparse import CscMatrix, spans, weak_components

__all__ = ["GroupedEngine", "component_groups"]

log = logging.getLogger("netmcl")

#: nodes of a group of small components packed together: fewer engines an iteration, against fixed points found later
GROUP_NODES = 4096


def component_groups(matrix, *, group_nodes=GROUP_NODES, components=weak_components):
    """Node sets to iterate separately: big components alone, small ones packed.

    Parameters
    ----------
    matrix : CscMatrix or scipy sparse matrix
        The start matrix (its pattern decides the components).
    group_nodes : int
        Target size of a group of small components.
    components : callable
        ``components(matrix) -> (count, labels)`` (default
        :func:`netmcl.sparse.weak_components`; the loop passes its engine's
        :meth:`~netmcl.engines.Engine.components`).

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
    ncomp, comp = components(matrix)
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


class _Group:
    """One group of components on its own engine."""

    def __init__(self, nodes, engine):
        self.nodes = nodes
        self.engine = engine
        self.stats = None  # of the last iteration
        self.inflation = None  # the inflation of the last iteration
        self.fixed = False  # whether the last iteration left the iterand unchanged
        self.skipped = False  # whether the last iteration was a fixed point's, not computed again

    def iterate(self, inflation, pruning, chaos_limit):
        if self.fixed and (inflation == self.inflation or self.ones):
            # a fixed point stays one under the same inflation, or any when every column is a single 1.0
            self.stats = dataclasses.replace(self.stats, seconds=0.0, extra={})
            self.skipped = True
            return
        self.skipped = False
        # a group below the chaos limit is checked for a fixed point (which holds its last two iterands)
        if self.stats is not None and self.stats.chaos < chaos_limit:  # by its engine, where the iterand is
            self.stats, self.fixed, self.ones = self.engine.iterate_compared(inflation, pruning)
        else:
            self.stats, self.fixed = self.engine.iterate(inflation, pruning), False
        self.inflation = inflation
        if self.stats.chaos < chaos_limit:
            self.engine.release_scratch()  # kept free while the other groups iterate


class GroupedEngine(Engine):
    """An engine that iterates groups of connected components on engines of their own.

    Parameters
    ----------
    template : Engine
        Groups get engines from ``template.spawn``.  A group that holds a
        quarter of the entries or more gets all of the template's threads
        and is iterated after the others in each iteration; the other groups
        get one thread each and are iterated side by side.  Entries, not
        nodes: a group with most of the work would otherwise run on one
        thread while the process holds two groups' iterations at once.
    groups : list of numpy.ndarray
        From :func:`component_groups`.
    chaos_limit : float
        Below it, a group is checked for a fixed point after each iteration.

    Examples
    --------
    Two pairs, one group each, give the whole matrix's iterands:

    >>> from netmcl.engines import get_engine
    >>> from netmcl.graph import SparseGraph
    >>> from netmcl.mcl import CHAOS_LIMIT, start_matrix
    >>> from netmcl.params import MclParams
    >>> start = start_matrix(SparseGraph.from_edges([0, 2], [1, 3]), MclParams())
    >>> grouped = GroupedEngine(get_engine("cpu", threads=1), component_groups(start, group_nodes=2), chaos_limit=CHAOS_LIMIT)
    >>> grouped.load(start, n_rule=4)
    >>> grouped.iterate(2.0, MclParams().pruning()).extra["groups"]
    2
    >>> grouped.result().toarray().tolist()
    [[0.5, 0.5, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5], [0.0, 0.0, 0.5, 0.5]]
    """

    name = "groups"

    def __init__(self, template, groups, *, chaos_limit):
        self.template = template
        self.threads = template.threads
        self.name = template.name
        self.groups_nodes = groups
        self.chaos_limit = chaos_limit
        self.groups = []
        self.n = 0
        self.big = False

    def load(self, matrix, *, n_rule):
        start = CscMatrix.of(matrix)
        self.n = start.shape[0]
        nodes = self.groups_nodes
        self.big = 4 * int(np.diff(start.indptr)[nodes[0]].sum()) >= start.nnz
        self.groups = []
        for g, part in enumerate(nodes):
            alone = self.big and g == 0
            eng = self.template.spawn(threads=self.threads if alone else 1, share=1 if alone else self.threads)
            eng.load(start.principal(part), n_rule=n_rule)
            self.groups.append(_Group(part, eng))
        sizes = [part.size for part in nodes]
        log.debug("%d component groups of %s nodes", len(sizes),
                  " and ".join(map(str, sizes)) if len(sizes) < 4 else f"{sizes[0]} to {sizes[-1]}")

    def _each(self, fn):
        rest = self.groups[1:] if self.big else self.groups
        if self.threads > 1 and len(rest) > 1:
            with ThreadPoolExecutor(max_workers=self.threads) as pool:
                list(pool.map(fn, rest))
        else:
            for group in rest:
                fn(group)
        if self.big:
            fn(self.groups[0])

    def iterate(self, inflation, pruning):
        self._each(lambda group: group.iterate(inflation, pruning, self.chaos_limit))
        return _combine([group.stats for group in self.groups])

    def inflate(self, inflation):
        emptied = []
        self._each(lambda group: emptied.append(group.engine.inflate(inflation)))
        for group in self.groups:
            group.fixed = False
        return sum(emptied)

    def result(self):
        return _assemble(self.groups, self.n)

    def release_scratch(self):
        for group in self.groups:
            group.engine.release_scratch()


def _combine(parts):
    extra = {}
    for p in parts:  # the groups' own figures: flags any, numbers summed, tables (a worker's seconds) merged
        for key, value in p.extra.items():
            if isinstance(value, bool):
                extra[key] = extra.get(key, False) or value
            elif isinstance(value, (int, float)):
                extra[key] = extra.get(key, 0) + value
            elif isinstance(value, dict):
                table = extra.setdefault(key, {})
                for k, v in value.items():
                    table[k] = table.get(k, 0) + v
    phases = max(p.extra.get("phases", 1) for p in parts)  # the most any group's budget needed
    total = dataclasses.replace(parts[0], extra={**extra, "groups": len(parts), "phases": phases})
    for f in dataclasses.fields(total):
        values = [getattr(p, f.name) for p in parts]
        if f.name == "chaos":
            total.chaos = max(values)
        elif f.name == "min_mass":
            total.min_mass = min(values)
        elif f.name != "extra":
            setattr(total, f.name, sum(values))
    return total


def _assemble(groups, n):
    """The groups' iterands as one matrix on the whole graph's nodes.

    A group's nodes are sorted and its columns hold only its own rows, so
    renumbering keeps every column's rows sorted.
    """
    counts = np.zeros(n, dtype=np.int64)
    parts = [(g.nodes, g.engine.result()) for g in groups]
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
