"""Warm restart: cluster a changed network, reusing what a previous run settled.

After edges are added to a network or removed from it, most of its connected
components are often untouched.  Flow never crosses between components, so
the iterand of a component after iteration ``k``, and the chaos it
contributes to iteration ``k``, depend only on

* its start matrix -- the component's column-stochastic block, its nodes in
  their relative order, every value bit for bit;
* the parameters (inflation, pruning, loops, pre-inflation, ...) and the
  engine's kind;
* for each column expanded, whether ``10 * work >= n``, ``n`` the node count
  of the whole graph (mcl's choice of product path, :mod:`netmcl.engines`);
* ``k`` itself, through the inflation (constant up to iteration 40, then
  multiplied by 1.001 each iteration).

A run with ``warm_start`` records, per component: its start block, its last
iterand ``F``, the iteration from which its iterand stayed ``F``, whether a
later iteration left ``F`` unchanged (a fixed point), an iteration at which
``F`` was its iterand with chaos below 1e-4 (where the run converged), and
the least and largest ``10 * work`` of its columns in every iteration; for
its largest components, iterated alone, also their chaos in every iteration
and their iterand at each iteration where that chaos was below 1e-4.

A later run with the same parameters and engine takes each component whose
start block is bit-identical to a recorded one (and whose recorded work
never lies between the two node counts) without iterating it, and iterates
the others.  mcl stops at the first iteration ``K`` at which every
component's chaos is below 1e-4 (or at the cap).  Where the iterated
components' chaos falls below it at ``K``:

* a reused component whose recorded chaos at ``K`` is not below it keeps the
  run going (its iterand is not needed yet);
* otherwise each reused component must provably have chaos below 1e-4 at
  ``K`` and a known iterand there: ``F`` where ``K`` is the recorded
  converged iteration; a snapshot taken at ``K``; or ``F`` where ``F`` is a
  fixed point reached before ``K`` and ``K`` is within the fixed point's
  horizon -- any iteration when every column of ``F`` is a single 1.0
  (expansion, pruning and inflation of such a column give it back under every
  inflation), iteration 40 (or the recorded run's last, if later) when the
  fixed point was found by iteration 40, as the inflation is the same until
  then, else the recorded run's last iteration.  The chaos of an iteration
  is measured on the expansion of the previous iterand, before inflation, so
  at a fixed point it is the chaos the recorded run measured at convergence.

A reused component that fails this is iterated up to ``K`` -- from the
latest iteration before ``K`` after which its iterand is recorded, else
from its start -- and with the others from then on (those whose chaos is
unknown first: they may keep the run going).  The iterand at the end is
therefore the one a cold run reaches, column for column, and so are the
clusters, their order and the iteration count.  The ``chaos`` and ``stats``
of a warm run's :class:`~netmcl.Clustering` describe the components it
iterated (and, where one kept the run going, a reused component's recorded
chaos).
"""

import dataclasses
import hashlib
import logging
import math

import numpy as np

from .components import GroupedEngine, _combine, component_groups
from .engines import Engine, IterationStats
from .exceptions import ParameterError
from .params import BUMP_FROM, CHAOS_LIMIT
from .engines.reference import column_flops
from .sparse import CscMatrix, spans

__all__ = ["WarmState", "WarmReport", "WarmEngine"]

log = logging.getLogger("netmcl")

#: horizon of a fixed point that holds under every inflation
FOREVER = np.iinfo(np.int64).max
#: the largest components of a run, up to this many, are iterated alone, their chaos recorded: a later
#: warm start that reuses one knows when it keeps the run going, against one engine call each per iteration
ALONE = 8
#: ... where they have at least this many nodes (a smaller one costs little to iterate again when needed)
ALONE_NODES = 256


class _Blocks:
    """The diagonal blocks of a matrix on its components, as flat streams.

    Component ``c`` holds nodes ``nodes[node_off[c]:node_off[c + 1]]``
    (ascending); its block is, column by column, the column lengths, the
    rows numbered within the component and the values' bits.
    """

    def __init__(self, matrix, comp, ncomp, nodes=None, node_off=None):
        n = matrix.shape[0]
        if nodes is None:
            nodes = np.argsort(comp, kind="stable")
            node_off = np.zeros(ncomp + 1, dtype=np.int64)
            np.cumsum(np.bincount(comp, minlength=ncomp), out=node_off[1:])
        self.nodes, self.node_off = nodes, node_off
        local = np.empty(n, dtype=np.int64)
        local[nodes] = np.arange(n) - np.repeat(node_off[:-1], np.diff(node_off))
        self.lengths = np.diff(matrix.indptr)[nodes]
        at = spans(matrix.indptr[nodes], self.lengths)
        self.rows = local[matrix.indices[at]].astype(np.int32)
        self.bits = np.ascontiguousarray(matrix.data[at]).view(np.uint32)
        ends = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(self.lengths, out=ends[1:])
        self.entry_off = ends[node_off]

    def parts(self, c):
        a, b = self.node_off[c], self.node_off[c + 1]
        e, f = self.entry_off[c], self.entry_off[c + 1]
        return self.lengths[a:b], self.rows[e:f], self.bits[e:f]

    def digest(self, c):
        h = hashlib.blake2b(digest_size=16)
        for part in self.parts(c):
            h.update(part.tobytes())
        return h.digest()

    def digests(self):
        """Every component's :meth:`digest`."""
        return [self.digest(c) for c in range(self.node_off.size - 1)]

    def same(self, cs, other, ds):
        """Per pair, whether component ``cs[i]`` here and ``ds[i]`` of `other` are the same
        block, bit for bit."""
        cs, ds = np.asarray(cs, dtype=np.int64), np.asarray(ds, dtype=np.int64)
        same = (np.diff(self.node_off)[cs] == np.diff(other.node_off)[ds]) & (
            np.diff(self.entry_off)[cs] == np.diff(other.entry_off)[ds])
        for off, mine, theirs in (("node_off", self.lengths, other.lengths), ("entry_off", self.rows, other.rows),
                                  ("entry_off", self.bits, other.bits)):
            here, there = getattr(self, off), getattr(other, off)
            counts = np.where(same, np.diff(here)[cs], 0)
            differ = mine[spans(here[cs], counts)] != theirs[spans(there[ds], counts)]
            same &= np.bincount(np.repeat(np.arange(cs.size), counts)[differ], minlength=cs.size) == 0
        return same

    @property
    def nbytes(self):
        return sum(a.nbytes for a in (self.nodes, self.node_off, self.lengths, self.rows, self.bits, self.entry_off))


@dataclasses.dataclass
class WarmState:
    """What a run recorded for a later warm start (``Clustering.warm_state``).

    Attributes
    ----------
    params : MclParams
        The run's parameters; a warm start with other ones reuses nothing.
    engine : str
        The engine's kind.
    n : int
        The graph's node count (mcl's dense-path rule depends on it).
    n_iterations : int
        The iteration at which the run converged.
    start, final : _Blocks
        Each component's start block, and its iterand after `n_iterations`.
    settled : numpy.ndarray
        Per component, the iteration from which its iterand stayed `final`.
    fixed : numpy.ndarray
        Per component, whether an iteration after `settled` left it unchanged.
    horizon : numpy.ndarray
        Per component, the last iteration at which its iterand is provably
        `final` (``FOREVER`` where every column is a single 1.0).
    index : dict
        Start block digest -> the first component with that block.
    chaos : list of float or None
        The chaos of every iteration, where the run measured every component.
    history : dict
        Component -> its chaos in iterations 1, 2, ... (the components
        iterated alone).
    work : numpy.ndarray
        Per component, the least and the largest ``10 * work`` of a column
        in its iterations (the dense-path rule compares it with the node
        count).
    seen : numpy.ndarray
        Per component, an iteration at which `final` was its iterand and its
        chaos below the limit (where a run converged).
    snapshots : dict
        Component -> {iteration: its iterand} where its chaos was below the
        limit (the components iterated alone).
    """

    params: object
    engine: str
    n: int
    n_iterations: int
    start: _Blocks
    final: _Blocks
    settled: np.ndarray
    fixed: np.ndarray
    horizon: np.ndarray
    index: dict
    chaos: list = None
    history: dict = dataclasses.field(default_factory=dict)
    work: np.ndarray = None
    seen: np.ndarray = None
    snapshots: dict = dataclasses.field(default_factory=dict)

    def path_changes(self, c, n):
        """Whether the dense-path rule ``10 * work >= n`` may decide a column of component `c`'s
        iterations otherwise with node count `n` than with this run's: where a value of
        ``10 * work`` (a multiple of 10 within the component's recorded range) lies between them."""
        lo, hi = min(n, self.n), max(n, self.n)
        first = -(-lo // 10) * 10  # the least multiple of 10 >= lo
        least, most = self.work[c]
        return bool(first < hi and max(first, -(-least // 10) * 10) <= min(most, hi - 1))

    @property
    def n_components(self):
        """Number of components recorded."""
        return self.settled.size

    @property
    def nbytes(self):
        """Memory held by the record (bytes)."""
        return (self.start.nbytes + self.final.nbytes + 17 * self.settled.size + 64 * len(self.index)
                + self.work.nbytes + sum(8 * h.size for h in self.history.values())
                + sum(a.nbytes for snaps in self.snapshots.values() for m in snaps.values() for a in m))

    def __repr__(self):
        return (f"<WarmState: {self.n_components} components of {self.n} nodes, "
                f"{self.n_iterations} iterations, {self.nbytes / 2**20:.1f} MiB>")


@dataclasses.dataclass
class WarmReport:
    """What a warm start reused (``Clustering.warm_report``).

    Attributes
    ----------
    components, nodes : int
        The graph's connected components and nodes.
    reused_components, reused_nodes : int
        Those taken from the previous run without iterating them.
    iterated_components : int
        Components iterated from the start (new or changed ones).
    caught_up_components : int
        Recorded components that were iterated after all, because their
        recorded iterand is not provably the one at this run's last iteration.
    resumed_components : int
        Of those, the ones iterated on from their recorded iterand (the run
        went past the last iteration at which it provably holds), not from
        their start.
    path_changed_components : int
        Unchanged components iterated again because the graph's node count
        changed mcl's choice of product path for one of their columns
        (counted among `iterated_components`).
    reason : str or None
        Why nothing was reused, where nothing could be.
    """

    components: int
    nodes: int
    reused_components: int = 0
    reused_nodes: int = 0
    iterated_components: int = 0
    caught_up_components: int = 0
    resumed_components: int = 0
    path_changed_components: int = 0
    reason: str = None

    def __str__(self):
        if self.reason:
            return f"warm start reused nothing: {self.reason}"
        return (f"warm start reused {self.reused_components:,} of {self.components:,} components, "
                f"{self.reused_nodes:,} of {self.nodes:,} nodes; iterated {self.iterated_components:,} components"
                + (f" and caught up {self.caught_up_components:,}" if self.caught_up_components else "")
                + (f" ({self.resumed_components:,} from their recorded iterand)" if self.resumed_components else ""))


def _changed_columns(before, after):
    """Per column, whether `after` differs from `before` (rows or value bits)."""
    la, lb = np.diff(before.indptr), np.diff(after.indptr)
    changed = la != lb
    cols = np.flatnonzero(~changed & (la > 0))
    counts = la[cols]
    pa, pb = spans(before.indptr[cols], counts), spans(after.indptr[cols], counts)
    bad = (before.indices[pa].astype(np.int64) != after.indices[pb]) | (
        np.ascontiguousarray(before.data[pa]).view(np.uint32) != np.ascontiguousarray(after.data[pb]).view(np.uint32))
    if bad.any():
        changed[np.repeat(cols, counts)[bad]] = True
    return changed


class _Live:
    """Components iterated in this run, on one engine, each column's last change tracked,
    and the chaos of each component that an engine (or a group) holds alone."""

    def __init__(self, nodes, comp, engine, block, n_rule, alone, limit):
        self.nodes = nodes
        self.comp = comp  # each node's component
        self.order = np.argsort(comp, kind="stable")  # the columns component by component
        self.firsts = np.flatnonzero(np.r_[True, comp[self.order][1:] != comp[self.order][:-1]])
        self.comps = comp[self.order][self.firsts]
        self.least = np.full(self.comps.size, np.iinfo(np.int64).max)  # 10 x work of its columns' expansions
        self.most = np.zeros(self.comps.size, dtype=np.int64)
        self.engine = engine
        engine.load(block, n_rule=n_rule)
        self.changed = np.zeros(nodes.size, dtype=np.int64)  # the last iteration that changed each column
        self.alone = alone  # component -> its group's index (-1: the engine's only component)
        self.chaos = {c: [] for c in alone}
        self.limit = limit
        self.snapshots = {c: {} for c in alone}  # iteration -> the iterand, where its chaos is below the limit
        self.prefix = {}  # for an engine resumed after iteration j: the recorded chaos of iterations 1..j
        self.resumed = False
        self.stats = None
        # each group's iterand before the iteration, compared with the one after (one part without groups)
        grouped = isinstance(engine, GroupedEngine)
        self.parts = [g.nodes for g in engine.groups] if grouped else [np.arange(nodes.size)]
        self.before = [block.principal(part) for part in self.parts] if grouped else [block.copy()]

    def iterate(self, it, inflation, pruning):
        grouped = isinstance(self.engine, GroupedEngine)
        work = np.empty(self.nodes.size, dtype=np.int64)
        for part, before in zip(self.parts, self.before):
            work[part] = 10 * column_flops(before.indptr, before.indices)
        work = work[self.order]
        np.minimum(self.least, np.minimum.reduceat(work, self.firsts), out=self.least)
        np.maximum(self.most, np.maximum.reduceat(work, self.firsts), out=self.most)
        self.stats = self.engine.iterate(inflation, pruning)
        # a group at a fixed point that the engine did not compute again kept its iterand
        idle = [g.skipped for g in self.engine.groups] if grouped else [False]
        for c, g in self.alone.items():
            self.chaos[c].append(self.stats.chaos if g < 0 else self.engine.groups[g].stats.chaos)
        for i, (part, skip) in enumerate(zip(self.parts, idle)):
            if not skip:
                after = (self.engine.groups[i].engine if grouped else self.engine).result()
                self.changed[part[_changed_columns(self.before[i], after)]] = it
                self.before[i] = after.copy()
        for c, g in self.alone.items():
            if self.chaos[c][-1] < self.limit:
                m = self.before[max(g, 0)]
                self.snapshots[c][it] = (np.diff(m.indptr), m.indices.astype(np.int32), m.data.view(np.uint32).copy())
        return self.stats


class WarmEngine(Engine):
    """An engine that reuses a previous run's settled components and iterates the rest.

    The loop of :mod:`netmcl.mcl` drives it as it drives any engine (with
    ``decompose=False``: it decomposes the graph itself).  See the module's
    text for what is reused and why the iterands are a cold run's.

    Parameters
    ----------
    inner : Engine
        The engine that does the arithmetic (groups of components get
        engines of its kind, as in a cold run).
    previous : WarmState or None
        What the previous run recorded; None: reuse nothing, record.
    params : MclParams
        This run's parameters.
    """

    def __init__(self, inner, previous, params):
        self.inner = inner
        self.name = inner.name
        self.threads = inner.threads
        self.previous = previous
        self.params = params
        self.report = None

    @classmethod
    def resuming(cls, inner, warm_start, params):
        """The engine for :func:`netmcl.mcl`'s `warm_start` (True: record only; an
        earlier result or its :class:`WarmState`: reuse it)."""
        return cls(inner, _previous_state(warm_start), params)

    def finish(self, clustering):
        """Give `clustering` (this engine's run) its ``warm_report`` and the
        ``warm_state`` a later warm start takes; return it."""
        clustering.warm_report = self.report
        clustering.warm_state = self.state(clustering.converged, clustering.chaos)
        if self.previous is not None:
            log.info("%s", self.report)
        return clustering

    def start_matrix(self, matrix, params):
        return self.inner.start_matrix(matrix, params)

    def components(self, matrix):
        return self.inner.components(matrix)

    def _mismatch(self, n_rule):
        prev = self.previous
        if prev is None:
            return "no previous run was given"
        if prev.params != self.params:
            return "the parameters differ from the previous run's"
        if prev.engine != self.inner.name:
            return f"the previous run used the {prev.engine} engine"
        if self.inner.spawn(threads=1, share=1) is None:
            return f"the {self.inner.name} engine cannot iterate components on their own"
        return None

    def load(self, matrix, *, n_rule):
        self.limit, self.bump_from = CHAOS_LIMIT, BUMP_FROM
        start = CscMatrix.of(matrix)
        self.start, self.n, self.n_rule = start, start.shape[0], n_rule
        ncomp, comp = self.inner.components(start)
        self.comp = np.asarray(comp, dtype=np.int64)
        self.blocks = _Blocks(start, self.comp, ncomp)
        self.digests = self.blocks.digests()
        self.source = np.full(ncomp, -1, dtype=np.int64)  # the previous run's component reused, or -1
        reason = self._mismatch(n_rule)
        path = 0
        if reason is None:
            prev = self.previous
            found = [(c, prev.index[h]) for c, h in enumerate(self.digests) if h in prev.index]
            if found:
                cs, ds = (np.array(x, dtype=np.int64) for x in zip(*found))
                same = self.blocks.same(cs, prev.start, ds)
                for c, d in zip(cs[same].tolist(), ds[same].tolist()):
                    if prev.n != n_rule and prev.path_changes(d, n_rule):
                        path += 1  # mcl's choice of product path depends on the node count
                    else:
                        self.source[c] = d
        self.reused = np.flatnonzero(self.source >= 0)
        if path and not self.reused.size:
            reason = (f"the graph has {n_rule:,} nodes, the previous run's {prev.n:,}, which changes mcl's choice of "
                      "product path in every unchanged component")
        sizes = np.diff(self.blocks.node_off)
        self.report = WarmReport(components=int(ncomp), nodes=int(self.n), reason=reason,
                                 reused_components=int(self.reused.size), reused_nodes=int(sizes[self.reused].sum()),
                                 iterated_components=int(ncomp - self.reused.size), path_changed_components=path)
        self.live = []
        self.it = 0
        self.inflations = []
        fresh = np.flatnonzero(self.source < 0)
        if fresh.size:
            self.live.append(self._live(fresh, first=True))
        # every component of the previous run and no other: its chaos, iteration by iteration
        self.replay = None
        if not fresh.size and self.previous.chaos is not None:
            if len(set(self.source.tolist())) == len(self.previous.index):  # each distinct block
                self.replay = self.previous.chaos
        self.exact = not self.reused.size or self.replay is not None
        self._witness()

    def _witness(self):
        """Per iteration, the largest recorded chaos of a reused component (-inf: none recorded)."""
        known = [self.previous.history[d] for d in self.source[self.reused].tolist() if d in self.previous.history] \
            if self.reused.size else []
        self.known = np.full(max((h.size for h in known), default=0), -np.inf)
        for h in known:
            np.maximum(self.known[: h.size], h, out=self.known[: h.size])

    def _live(self, comps, *, first=False, block=None):
        """An engine over components `comps`, loaded with their start blocks: the largest
        alone (their chaos recorded), the others in groups as a cold run makes them."""
        nodes, mask = self._nodes(comps)
        block = self.start.principal(nodes) if block is None else block
        mine = self.comp[nodes]
        if comps.size == 1:
            engine = self.inner if first else self.inner.spawn(threads=self.inner.threads, share=1)
            return _Live(nodes, mine, engine, block, self.n_rule, {int(comps[0]): -1}, self.limit)
        sizes = np.diff(self.blocks.node_off)[comps]
        order = np.argsort(-sizes, kind="stable")[:ALONE]
        alone = comps[order[sizes[order] >= ALONE_NODES]]
        groups = [np.flatnonzero(mine == c) for c in alone.tolist()]
        mask[alone] = False
        rest = np.flatnonzero(mask[mine])
        if rest.size:
            groups += [rest[g] for g in component_groups(block.principal(rest), components=self.inner.components)]
        if len(groups) == 1 or self.inner.spawn(threads=1, share=1) is None:
            engine = self.inner if first else self.inner.spawn(threads=self.inner.threads, share=1)
            return _Live(nodes, mine, engine, block, self.n_rule, {}, self.limit)
        order = sorted(range(len(groups)), key=lambda g: -groups[g].size)  # the largest group first, as a cold run
        groups = [groups[g] for g in order]
        at = {order.index(g): c for g, c in enumerate(alone.tolist())}
        engine = GroupedEngine(self.inner, groups, chaos_limit=CHAOS_LIMIT)
        return _Live(nodes, mine, engine, block, self.n_rule, {c: g for g, c in at.items()}, self.limit)

    def _valid(self, c, it, *, stop):
        """Whether reused component `c`'s recorded iterand is its iterand after iteration `it`
        (and, where the run stops by convergence, its chaos there is below the limit)."""
        prev, d = self.previous, self.source[c]
        if it == prev.seen[d] or it in prev.snapshots.get(d, ()):  # a converged run's iterand, or a snapshot
            return True
        if not stop:  # the cap: the iterand only
            return prev.settled[d] <= it <= prev.horizon[d]
        return bool(prev.fixed[d]) and prev.settled[d] < it <= prev.horizon[d]

    def iterate(self, inflation, pruning):
        self.it += 1
        self.inflations.append(inflation)
        if self.replay is not None:
            return IterationStats(chaos=self.replay[self.it - 1], extra={"groups": 0})
        parts = [live.iterate(self.it, inflation, pruning) for live in self.live]
        chaos = max((s.chaos for s in parts), default=-math.inf)
        cap = self.it >= self.params.max_iterations
        if chaos < self.limit and self.it <= self.known.size and self.known[self.it - 1] >= self.limit:
            # a reused component's recorded chaos keeps the run going: no iterand is needed yet
            chaos = self.known[self.it - 1]
            parts.append(IterationStats(chaos=chaos))
        if (chaos < self.limit or cap) and self.reused.size:
            converging = chaos < self.limit
            bad = np.array([c for c in self.reused.tolist() if not self._valid(c, self.it, stop=converging)],
                           dtype=np.int64)
            if converging and bad.size:
                # those whose chaos here is recorded (below the limit, else the run would go on) are
                # needed only if the run stops here: first the others, which may keep it going
                prev = self.previous
                known = np.array([self.source[c] in prev.history and prev.history[self.source[c]].size >= self.it
                                  for c in bad.tolist()], dtype=bool)
                if known.any() and not known.all():
                    new = self._catch_up(bad[~known], pruning)
                    parts += new
                    chaos = max(chaos, max(p.chaos for p in new))
                    bad = bad[known] if chaos < self.limit else bad[:0]
            if bad.size:
                parts += self._catch_up(bad, pruning)
        if not parts:
            return IterationStats(chaos=0.0, extra={"groups": 0})
        return _combine(parts)

    def _catch_up(self, bad, pruning):
        """Iterate reused components `bad` up to this iteration, and from now on with the others,
        each from the latest iteration before this one after which its iterand is recorded (a
        snapshot, or `final` within its horizon), else from its start.  Returns the statistics
        of this iteration."""
        prev, K = self.previous, self.it
        points = {}
        for c in bad.tolist():
            d = self.source[c]
            j = max([0] + [s for s in prev.snapshots.get(d, ()) if s < K])
            on_final = int(min(K - 1, prev.horizon[d])) if prev.settled[d] < K else -1
            on_final = max(on_final, int(prev.seen[d]) if prev.seen[d] < K else -1)
            points.setdefault(max(j, on_final), []).append(c)
        lates = []
        for j, comps in sorted(points.items()):
            comps = np.array(comps, dtype=np.int64)
            if j == 0:
                late = self._live(comps)
            else:
                nodes, _ = self._nodes(comps)
                late = self._live(comps, block=self._assemble(self._recorded(comps, j)).principal(nodes))
                d = self.source[late.comp]
                snapped = np.array([j in prev.snapshots.get(x, ()) for x in d.tolist()], dtype=bool)
                late.changed = np.where(snapped, j, prev.settled[d])  # each column's last change, at the latest
                d = self.source[late.comps]
                late.least, late.most = prev.work[d, 0].copy(), prev.work[d, 1].copy()
                late.resumed = True
                late.prefix = {c: prev.history[self.source[c]][:j] for c in late.chaos
                               if self.source[c] in prev.history and prev.history[self.source[c]].size >= j}
                for c in late.snapshots:
                    late.snapshots[c] = {s: m for s, m in prev.snapshots.get(self.source[c], {}).items() if s <= j}
                self.report.resumed_components += int(comps.size)
            for it in range(j + 1, K + 1):
                late.iterate(it, self.inflations[it - 1], pruning)
            lates.append(late)
        self.live += lates
        self.source[bad] = -1
        self.reused = self.reused[self.source[self.reused] >= 0]
        self.report.caught_up_components += int(bad.size)
        self.report.reused_components -= int(bad.size)
        self.report.reused_nodes -= int(sum(late.nodes.size for late in lates))
        self.exact = False
        self._witness()
        return [late.stats for late in lates]

    def _nodes(self, comps):
        mask = np.zeros(self.blocks.node_off.size - 1, dtype=bool)
        mask[comps] = True
        return np.flatnonzero(mask[self.comp]), mask

    def _recorded(self, comps, at):
        """The recorded iterands after iteration `at` of reused components `comps` (a snapshot, or
        `final`; None: `final`), as pieces for :meth:`_assemble`."""
        final, snapshots = self.previous.final, self.previous.snapshots
        nodes, counts, rows, vals = [], [], [], []
        for c in comps.tolist():
            mine = self.blocks.nodes[self.blocks.node_off[c]:self.blocks.node_off[c + 1]]
            d = self.source[c]
            lengths, local_rows, bits = snapshots[d][at] if at is not None and at in snapshots.get(d, ()) \
                else final.parts(d)
            nodes.append(mine)
            counts.append(lengths)
            rows.append(mine[local_rows])
            vals.append(bits.view(np.float32))
        mine, lengths = np.concatenate(nodes), np.concatenate(counts)
        return [(mine, lengths, np.cumsum(lengths) - lengths, np.concatenate(rows), np.concatenate(vals))]

    def result(self, at=-1):
        """The iterand (`at` None: with the reused components' `final`, as the record keeps them)."""
        at = self.it if at == -1 else at
        pieces = []
        for live in self.live:
            m = live.engine.result()
            pieces.append((live.nodes, np.diff(m.indptr), m.indptr[:-1], live.nodes[m.indices], m.data))
        if self.reused.size:
            pieces += self._recorded(self.reused, at)
        return self._assemble(pieces)

    def _assemble(self, pieces):
        """One matrix on the graph's nodes from (nodes, column lengths, starts, rows, values)
        pieces; columns of no piece are empty."""
        indptr_parts = np.zeros(self.n, dtype=np.int64)
        for nodes, lengths, *_ in pieces:
            indptr_parts[nodes] = lengths
        indptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(indptr_parts, out=indptr[1:])
        out_rows = np.empty(int(indptr[-1]), dtype=np.int32)
        out_vals = np.empty(int(indptr[-1]), dtype=np.float32)
        for nodes, counts, starts, rows, vals in pieces:
            src = spans(starts, counts)
            dst = spans(indptr[nodes], counts)
            out_rows[dst] = rows[src]
            out_vals[dst] = vals[src]
        return CscMatrix(indptr, out_rows, out_vals, self.n)

    def release_scratch(self):
        for live in self.live:
            live.engine.release_scratch()

    def state(self, converged, chaos):
        """The record of this run for the next warm start (None unless it converged);
        `chaos`: the run's chaos per iteration."""
        if not converged:
            return None
        K = self.it
        final = self.result(at=None)
        ncomp = self.blocks.node_off.size - 1
        fin = _Blocks(final, self.comp, ncomp, self.blocks.nodes, self.blocks.node_off)
        settled = np.zeros(ncomp, dtype=np.int64)
        changed = np.zeros(self.n, dtype=np.int64)
        for live in self.live:
            changed[live.nodes] = live.changed
        np.maximum.at(settled, self.comp, changed)
        fixed = settled < K
        # every column a single 1.0: a fixed point under every inflation
        one = fin.lengths == 1
        lone = one.copy()
        lone[one] = fin.bits[np.cumsum(fin.lengths)[one] - 1] == np.float32(1.0).view(np.uint32)
        ones = np.bincount(self.comp[fin.nodes], weights=(~lone).astype(np.float64), minlength=ncomp) == 0
        horizon = np.where(fixed & ones, FOREVER,
                           np.where(fixed & (settled + 1 <= self.bump_from), max(self.bump_from, K), K))
        seen = np.full(ncomp, K, dtype=np.int64)
        snapshots = {}
        for live in self.live:
            for c, snaps in live.snapshots.items():
                if not live.resumed or c in live.prefix:
                    snapshots[c] = snaps
        if self.reused.size:  # their records stand; `final` is their iterand at K where it provably is
            prev, d = self.previous, self.source[self.reused]
            settled[self.reused], fixed[self.reused], horizon[self.reused] = prev.settled[d], prev.fixed[d], prev.horizon[d]
            on_final = (prev.seen[d] == K) | ((prev.settled[d] <= K) & (K <= prev.horizon[d]))
            seen[self.reused] = np.where(on_final, K, prev.seen[d])
            snapshots.update((c, prev.snapshots[x]) for c, x in zip(self.reused.tolist(), d.tolist())
                             if x in prev.snapshots)
        history = {}
        for live in self.live:
            for c, h in live.chaos.items():
                if not live.resumed or c in live.prefix:
                    history[c] = np.concatenate([live.prefix.get(c, []), np.asarray(h, dtype=np.float64)])
        for c, d in zip(self.reused.tolist(), self.source[self.reused].tolist()):
            if d in self.previous.history:
                history[c] = self.previous.history[d]
        work = np.zeros((ncomp, 2), dtype=np.int64)
        for live in self.live:
            work[live.comps, 0], work[live.comps, 1] = live.least, live.most
        if self.reused.size:
            work[self.reused] = self.previous.work[self.source[self.reused]]
        index = {}
        for c in range(ncomp):
            index.setdefault(self.digests[c], c)
        return WarmState(params=self.params, engine=self.inner.name, n=self.n, n_iterations=K, start=self.blocks,
                         final=fin, settled=settled, fixed=fixed, horizon=horizon, index=index,
                         chaos=list(chaos) if self.exact else None, history=history, work=work, seen=seen,
                         snapshots=snapshots)


def _previous_state(warm_start):
    """The :class:`WarmState` in `warm_start` (True: none; a Clustering: its ``warm_state``)."""
    if warm_start is True:
        return None
    if isinstance(warm_start, WarmState):
        return warm_start
    if not hasattr(warm_start, "warm_state") and type(warm_start).__name__ not in ("Clustering", "VertexClustering"):
        raise ParameterError(
            f"warm_start takes True (record this run for a later warm start) or the result of an earlier "
            f"mcl(..., warm_start=...) run. Got {type(warm_start).__name__} instead.")
    state = getattr(warm_start, "warm_state", False)
    if state is False:
        raise ParameterError("The previous run was made without warm_start: run it with warm_start=True to keep "
                             "what a warm start needs.")
    if state is None:
        raise ParameterError("The previous run left no warm state (it did not converge); run it again with "
                             "warm_start=True.")
    return state
