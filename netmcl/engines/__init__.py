"""Where the arithmetic runs: the Engine protocol and the engine registry.

An *engine* owns the iterand of an MCL run and turns it into the next one.
The iteration loop (:mod:`netmcl.mcl`) owns everything else: the start matrix,
the inflation schedule, convergence, the split into groups of connected
components, interpretation of the limit (which an engine may do where it
holds the iterand: :meth:`Engine.clusters`).  A new engine implements the methods
of :class:`Engine` below, registers itself with :func:`register_engine`, and
is correct when the test suite finds its iterands bit-identical to those of
the reference engine (:mod:`netmcl.engines.reference`) on every small test
graph.

The life of an engine
---------------------
1. ``engine.load(start, n_rule=n)`` -- once: the column-stochastic start
   matrix (a :class:`~netmcl.sparse.CscMatrix`: float32 values, int rows
   ascending in every column, column-major).  The engine may move it to its
   own storage (a device, other row types, workers); the caller drops its
   reference afterwards.
2. ``stats = engine.iterate(inflation, pruning)`` -- once an iteration, in
   place; returns an :class:`IterationStats`.  ``inflation=None`` means
   *expand, prune and rescale, but do not inflate* (an inflation sweep shares
   that first half of the first iteration and then calls
   ``engine.inflate(I)``).
3. ``engine.result()`` -- once, for the limit (and whenever a caller of
   :func:`netmcl.mcl_iterates` asks for an iterand): a ``CscMatrix`` on the
   host.
4. ``engine.clusters(overlap)`` -- the clusters of the current iterand, as
   :func:`netmcl.interpret.interpret` finds them; the default interprets
   ``result()`` on the host, an engine may interpret where the iterand lives
   (the GPU engine does, and copies back an int per node).

The arithmetic contract (mcl 22-282's, bit for bit)
---------------------------------------------------
Values are stored as float32.  For column ``j`` of the iterand ``M``:

* **expansion**: ``E[:, j] = M @ M[:, j]``, each sum accumulated in float64
  from 0.0 with ``k`` (the entries of column ``j``) in ascending row order.
  Let ``flops_j`` be the summed entry counts of the columns ``k`` that column
  ``j`` reads.  When ``10 * flops_j >= n_rule`` (mcl's *dense path*) every
  product ``M[i, k] * M[k, j]`` is rounded to float32 before it is added, and
  sums that are exactly 0.0 are dropped; otherwise products are exact in
  float64.  ``n_rule`` is the node count of the whole graph, also when the
  engine was loaded with one group of its components.  Sums are rounded to
  float32 once, at the end.
* **pruning** (``pruning`` is a :class:`Pruning`): ``maxval`` and
  ``center = sum(v * v)`` (float64, ascending) are measured first; entries
  ``>= cutoff`` (compared in float64) are kept; then, in this order:
  recovery when ``recover > 0``, fewer than ``recover`` entries are kept and
  their mass (float64, ascending) is below ``pct``; else selection when
  ``select > 0`` and more than ``select`` are kept (ties with the
  ``select``-th largest value are all kept), followed by recovery from the
  post-cutoff vector under the same condition; with ``recover == 0`` an
  empty column becomes ``{j: 1.0}``.  Recovery keeps entries ``>=`` the
  ``(recover - kept)``-th largest discarded value (multiplicity counted).
* **rescaling**: ``v = float32(float64(v) / mass)`` with the final kept mass.
* **chaos**: ``(maxval - center) * kept_entries`` per column; the
  iteration's chaos is the maximum.
* **inflation**: ``p = float32(pow(float64(v), I))``, ``s = sum(p)`` (float64,
  ascending), ``v = float32(float64(p) / s)``; a column with ``s <= 0`` is
  emptied (counted in ``IterationStats.emptied``).

No fused multiply-add, no approximate division, no reordered (pairwise,
tree, atomic) sums anywhere on this path.  ``mcl-spec.md`` d.9 of the
project's design notes states the same table with mcl's source locations.

Statistics
----------
Every engine fills the generic fields of :class:`IterationStats` (chaos,
entry counts, pruning branches, seconds) and may put figures of its own in
``extra`` (the CPU engine: ``phases``; a GPU engine: device time, transfers).

The registry
------------
:func:`register_engine` maps a name to a factory given as ``"module:attr"``
and an availability probe given the same way, so registering an optional
engine imports nothing; :func:`available_engines` asks the probes,
:func:`get_engine` imports the factory on first use.  ``netmcl.mcl``,
``netmcl.sweep`` and the command line's ``--engine`` all read this registry.
"""

import dataclasses
import importlib
from dataclasses import dataclass, field
from ..exceptions import BackendUnavailableError, ParameterError
from ..params import Pruning

__all__ = [
    "Engine",
    "EngineInfo",
    "IterationStats",
    "Pruning",
    "available_engines",
    "engine_names",
    "get_engine",
    "register_engine",
]


@dataclass
class IterationStats:
    """What one MCL iteration measured.

    Attributes
    ----------
    chaos : float
        The largest column chaos (mcl's ``chaos`` column).
    expanded : int
        Entries of the expanded matrix before pruning.
    kept : int
        Entries of the new iterand.
    recovered, selected, recovered_after_select, emergency : int
        Columns that took each pruning branch.
    dense_path : int
        Columns expanded with float32-rounded products.
    emptied : int
        Columns emptied because inflation found no mass.
    min_mass : float
        Smallest kept mass of a column before rescaling.
    seconds : float
        Wall time of the iteration.
    extra : dict
        The engine's own figures; the CPU engine's ``phases`` is how many
        parts a memory budget cut the iteration into (1 without one).
    """

    chaos: float
    expanded: int = 0
    kept: int = 0
    recovered: int = 0
    selected: int = 0
    recovered_after_select: int = 0
    emergency: int = 0
    dense_path: int = 0
    emptied: int = 0
    min_mass: float = 1.0
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    def to_dict(self):
        """The statistics as a plain dict (JSON-ready)."""
        return dataclasses.asdict(self)


class Engine:
    """The interface every engine implements (see the module's text).

    Attributes
    ----------
    name : str
        The registry name.
    threads : int
        Threads the engine runs on (1 where that means nothing); groups of
        components share them (:meth:`spawn`).
    """

    name = "abstract"
    threads = 1

    def load(self, matrix, *, n_rule):
        """Take the column-stochastic start matrix.

        Parameters
        ----------
        matrix : CscMatrix
            float32 values, rows ascending in every column.
        n_rule : int
            The node count in the dense-path rule ``10 * flops_j >= n_rule``:
            the whole graph's, also when `matrix` is one group of its
            components.
        """
        raise NotImplementedError

    def iterate(self, inflation, pruning):
        """Run one iteration in place.

        Parameters
        ----------
        inflation : float or None
            The inflation of this iteration; None: expand, prune and rescale
            only (the chaos is measured as usual).
        pruning : Pruning

        Returns
        -------
        IterationStats
        """
        raise NotImplementedError

    def iterate_compared(self, inflation, pruning):
        """:meth:`iterate`, and whether the iterand came out unchanged.

        Returns ``(stats, same, ones)``: `same` when the new iterand equals the
        one before bit for bit (a fixed point), `ones` when it does and every
        value is 1.0.  The default compares :meth:`result` before and after;
        an engine that keeps its iterand elsewhere (a device, workers)
        compares it there.
        """
        import numpy as np

        before = self.result()
        stats = self.iterate(inflation, pruning)
        after = self.result()
        same = (np.array_equal(before.indptr, after.indptr) and np.array_equal(before.indices, after.indices)
                and np.array_equal(before.data, after.data))
        return stats, same, same and bool(np.all(after.data == 1.0))

    def inflate(self, inflation):
        """Inflate the current iterand in place (the second half of an
        iteration run with ``inflation=None``); return how many columns were
        emptied."""
        raise NotImplementedError

    def result(self):
        """The current iterand on the host, as a :class:`~netmcl.sparse.CscMatrix`."""
        raise NotImplementedError

    def clusters(self, overlap="cut"):
        """The clusters of the current iterand: :func:`netmcl.interpret.interpret`
        of :meth:`result` with mcl's ``-overlap`` mode `overlap` (sorted arrays
        of node ids, in the order of attractor systems).  An engine may find
        them where it holds the iterand; the answer must be the same lists."""
        from ..interpret import interpret

        return interpret(self.result(), overlap=overlap)

    def start_matrix(self, matrix, params):
        """mcl's start matrix of a graph's weights (:func:`netmcl.sparse.start_of`
        with `params`' ``discard_loops``, ``loop_gain`` and ``preinflation``).

        The loop asks the engine, which may compute it faster, to the same
        bits (the CPU engine uses its compiled kernels); the default is
        NumPy's.
        """
        from ..sparse import start_of

        return start_of(matrix, discard_loops=params.discard_loops, loop_gain=params.loop_gain,
                        preinflation=params.preinflation)

    def components(self, matrix):
        """``(count, labels)``: the weakly connected components of `matrix`'s
        pattern, numbered by their smallest node
        (:func:`netmcl.sparse.weak_components`; an engine may compute them
        faster)."""
        from ..sparse import weak_components

        return weak_components(matrix)

    def release_scratch(self):
        """Free what the iterations keep between them besides the iterand
        (a group of components that has converged while others iterate);
        the next iteration makes it again."""

    def spawn(self, *, threads, share):
        """A fresh engine of the same kind for one group of components.

        `threads` is the group's thread count and `share` the number of
        groups that may run at once (a memory budget is split among them).
        Return None where groups cannot run on engines of their own; the
        loop then iterates the whole matrix on this engine.
        """
        return None


@dataclass(frozen=True)
class EngineInfo:
    """A registry entry (:func:`register_engine`)."""

    name: str
    factory: str
    probe: str = None
    extra: str = None
    doc: str = ""


_REGISTRY = {}


def _resolve(target):
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def register_engine(name, factory, *, probe=None, extra=None, doc=""):
    """Make an engine selectable by name.

    Parameters
    ----------
    name : str
        What users pass as ``engine=`` and ``--engine``.
    factory : str
        ``"module:callable"``: called with the keyword options of
        :func:`get_engine`, imported only when the engine is asked for.
    probe : str, optional
        ``"module:callable"`` returning ``None`` when the engine can run here,
        or a sentence saying why not (what to install, no device visible).
        The module must import without the engine's optional dependencies.
    extra : str, optional
        The pip extra that installs the engine's dependencies.
    doc : str
        One line for ``--help`` and the documentation.

    Examples
    --------
    >>> register_engine("cpu-again", "netmcl.engines.cpu:CpuEngine", doc="the CPU engine under another name")
    >>> "cpu-again" in engine_names()
    True
    >>> _ = _REGISTRY.pop("cpu-again")
    """
    _REGISTRY[name] = EngineInfo(name, factory, probe, extra, doc)


def engine_names():
    """Every registered engine's name, available here or not.

    Examples
    --------
    >>> engine_names()[:2]
    ['cpu', 'reference']
    """
    return list(_REGISTRY)


def why_unavailable(name):
    """None when engine `name` can run here, else the reason (a sentence)."""
    info = _info(name)
    if info.probe is None:
        return None
    try:
        return _resolve(info.probe)()
    except ImportError as exc:  # the probe's module itself needs what is missing
        return f"{exc}"


def available_engines():
    """The names of the engines that can run on this machine.

    Examples
    --------
    >>> available_engines()[:2]
    ['cpu', 'reference']
    """
    return [name for name in _REGISTRY if why_unavailable(name) is None]


def _info(name):
    if name not in _REGISTRY:
        raise ParameterError(
            f"The 'engine' parameter of mcl must be one of {engine_names()}. Got {name!r} instead."
        )
    return _REGISTRY[name]


def get_engine(name="cpu", **options):
    """A fresh engine.

    Parameters
    ----------
    name : str or Engine
        A registered name (:func:`engine_names`); an :class:`Engine` instance
        is returned as is.
    **options
        Passed to the engine's factory: ``threads`` and ``max_memory`` for
        every engine (an engine that has no use for one ignores it), and
        options of its own.

    Raises
    ------
    ParameterError
        For a name that is not registered.
    BackendUnavailableError
        For an engine that cannot run here; the message says what to install
        or what is missing.

    Examples
    --------
    >>> get_engine("cpu", threads=1).name
    'cpu'
    >>> get_engine("reference").name
    'reference'
    """
    if isinstance(name, Engine):
        return name
    info = _info(name)
    reason = why_unavailable(name)
    if reason is not None:
        hint = f" Install it with: python -m pip install 'netmcl[{info.extra}]'." if info.extra else ""
        raise BackendUnavailableError(f"The {name!r} engine cannot run here: {reason}{hint}")
    factory = _resolve(info.factory)
    _check_options(name, factory, options)
    return factory(**options)


def _check_options(name, factory, options):
    """Refuse an engine option of another engine (``scheduler`` for the CPU engine) by name."""
    import inspect

    try:
        accepted = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return
    if any(p.kind == p.VAR_KEYWORD for p in accepted.values()):
        return
    for option in options:
        if option not in accepted:
            raise ParameterError(f"The {name!r} engine takes no option {option!r}.")


register_engine("cpu", "netmcl.engines.cpu.engine:CpuEngine", doc="numba kernels on the CPU's cores (the default)")
register_engine(
    "reference", "netmcl.engines.reference:ReferenceEngine",
    doc="plain NumPy, written to be read: the oracle the other engines are tested against (slow)",
)
register_engine(
    "gpu", "netmcl.engines.gpu:GpuEngine", probe="netmcl.engines.gpu._probe:why_unavailable", extra="cuda12",
    doc="numba-cuda kernels on a CUDA device, CuPy memory (NUMBA_ENABLE_CUDASIM=1: numba's simulator, for tests)",
)
register_engine(
    "dask", "netmcl.engines.dask:DaskEngine", probe="netmcl.engines.dask_probe:why_unavailable", extra="dask",
    doc="the CPU engine's kernels on the workers of a Dask cluster (client=, or --scheduler ADDRESS)",
)
