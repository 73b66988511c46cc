"""Markov clustering with mcl 22-282's exact semantics.

The loop here is independent of where the arithmetic runs: it prepares the
start matrix (loops, ``-c``, ``-pi``, normalisation), hands it to an engine,
drives the iterations (convergence at chaos < 1e-4, the x1.001 inflation bump
from iteration 40, the cap) and interprets the limit.
"""

import dataclasses
import logging
import time
import warnings

import numpy as np

from ._compiled import kernels
from .sparse import CscMatrix
from ._progress import progress_bar
from .adapters import to_sparse_graph, wrap_result, write_back
from .clustering import Clustering
from .components import component_groups, run_components, split_components
from .engines import get_engine
from .exceptions import ConvergenceWarning, ParameterError
from .graph import U16_NODES
from .interpret import interpret, sort_clusters
from .params import MclParams

__all__ = ["mcl", "mcl_iterates", "MclState", "start_matrix", "CHAOS_LIMIT"]

log = logging.getLogger("netmcl")

#: mcl stops when the chaos of an iteration falls below this.
CHAOS_LIMIT = 1e-4
#: from this iteration on, mcl multiplies the inflation by 1.001 each iteration.
BUMP_FROM = 40


def start_matrix(graph, params):
    """The column-stochastic matrix mcl starts iterating from.

    Applies, in mcl's order: removal of input loops and a loop of the column
    maximum on every node (``--discard-loops``, on by default; an empty column
    gets a loop of 1), ``-c`` (loop weights multiplied), ``-pi``
    (pre-inflation) and column normalisation.

    Parameters
    ----------
    graph : SparseGraph
    params : MclParams

    Returns
    -------
    scipy.sparse.csc_array
        float32, rows sorted in every column.

    Examples
    --------
    >>> from netmcl.graph import SparseGraph
    >>> g = SparseGraph.from_edges([0], [1], [0.5])
    >>> start_matrix(g, MclParams()).toarray().tolist()
    [[0.5, 0.5], [0.5, 0.5]]
    """
    return _start(graph, params).to_scipy()


def _start(graph, params):
    """:func:`start_matrix` as a :class:`CscMatrix` (what the loop uses: no scipy)."""
    m = graph.csc
    K = kernels()
    # rows in 2 bytes where they fit, as the engine stores them: 6 bytes an entry until it takes them, not 8
    rows = np.uint16 if m.shape[0] <= U16_NODES else np.int32
    if params.discard_loops:
        m = m.with_max_loops(rows)
    else:  # copies: the graph's arrays stay untouched
        m = CscMatrix(m.indptr.copy(), m.indices.astype(rows), m.data.copy(), m.shape[0])
    if params.loop_gain is not None:
        on = m.indices == m.columns()
        m.data[on] = (m.data[on].astype(np.float64) * params.loop_gain).astype(np.float32)
    if params.preinflation is not None:
        K.inflate_columns(m.indptr, m.data, float(params.preinflation))
    K.normalize_columns(m.indptr, m.data)
    return m


class MclState:
    """One step of an MCL run, as yielded by :func:`mcl_iterates`.

    Attributes
    ----------
    iteration : int
        1 for the first iteration.
    chaos : float
        The iteration's chaos; the run has converged once it is < 1e-4.
    inflation : float
        The inflation this iteration used.
    stats : IterationStats
        Entry counts, pruning branches and timing.
    converged : bool
        Whether this iteration ended the run by convergence.
    """

    def __init__(self, iteration, inflation, stats, converged, engine):
        self.iteration = iteration
        self.inflation = inflation
        self.stats = stats
        self.chaos = stats.chaos
        self.converged = converged
        self._engine = engine

    @property
    def matrix(self):
        """The iterand after this iteration (scipy CSC, float32).

        Valid until the generator is advanced.
        """
        return self._engine.result().to_scipy()

    def __repr__(self):
        return f"<MclState iteration={self.iteration} chaos={self.chaos:.4g} nnz={self.stats.kept}>"


def _prepare(G, weight, symmetrize, kwargs):
    engine_name = kwargs.pop("engine", "cpu")
    threads = kwargs.pop("threads", None)
    max_memory = kwargs.pop("max_memory", None)
    params = MclParams.build(**kwargs)
    graph = to_sparse_graph(G, weight=weight, symmetrize=symmetrize)
    engine = get_engine(engine_name, threads=threads, max_memory=max_memory)
    return graph, params, engine


def inflation_at(params, iteration):
    """The inflation mcl uses in `iteration` (1-based).

    mcl reads ``-I`` into a float32, then multiplies the value by 1.001 in
    double after every iteration from the 40th; this repeats that arithmetic.

    Examples
    --------
    >>> inflation_at(MclParams.build(inflation=1.4), 1)
    1.399999976158142
    >>> inflation_at(MclParams(), 40), inflation_at(MclParams(), 41), inflation_at(MclParams(), 42)
    (2.0, 2.002, 2.0040019999999994)
    """
    inflation = float(np.float32(params.inflation))
    for _ in range(BUMP_FROM, iteration):
        inflation *= 1.001
    return inflation


def first_expansion(graph, params, engine):
    """The first iteration up to, not including, its inflation.

    Everything in it -- preprocessing, expansion, pruning, rescaling and the
    chaos -- is the same for every main inflation, so an inflation sweep
    computes it once and inflates a copy per inflation with
    :func:`inflate_first`.

    Returns
    -------
    matrix : CscMatrix
        The pruned, rescaled first expansion.
    stats : IterationStats
        The first iteration's statistics.
    """
    engine.load(_start(graph, params))
    stats = engine.iterate(None, params.pruning())
    return engine.result(), stats


def inflate_first(expansion, stats, params):
    """Finish the first iteration of :func:`first_expansion` at ``params.inflation``.

    Returns the argument `resume` of :func:`cluster_graph`: bit for bit the
    iterand and statistics of the first iteration of a run at that inflation.
    """
    m = expansion.copy()
    emptied = np.asarray(kernels().inflate_columns(m.indptr, m.data, inflation_at(params, 1)), dtype=np.int64)
    if emptied.size:  # the kernel drops the entries of a column whose mass vanished
        counts = np.diff(m.indptr)
        alive = np.ones(m.shape[0], dtype=bool)
        alive[emptied] = False
        entries = np.repeat(alive, counts)
        counts[~alive] = 0
        indptr = np.zeros_like(m.indptr)
        np.cumsum(counts, out=indptr[1:])
        m = CscMatrix(indptr, m.indices[entries], m.data[entries], m.shape[0])
    first = dataclasses.replace(stats, kept=m.nnz, emptied=int(emptied.size))
    return m, [first]


def _iterations(engine, params, first=1):
    """Iterate the engine's iterand from iteration `first` until convergence or the cap.

    Yields (iteration, inflation, IterationStats).
    """
    for it in range(first, params.max_iterations + 1):
        inflation = inflation_at(params, it)
        stats = engine.iterate(inflation, params.pruning())
        yield it, inflation, stats
        if stats.chaos < CHAOS_LIMIT:
            return


def _log_iteration(it, stats):
    """Log iteration `it` (the command line's ``-v``): how many phases a memory
    budget cut it into, and for a graph whose groups of components iterate
    separately, their figures combined (time summed over the groups)."""
    phases = stats.extra.get("phases", 1)
    groups = stats.extra.get("groups", 1)
    log.debug(
        "iteration %d: chaos %.4f, kept %d entries%s, %.3fs%s",
        it, stats.chaos, stats.kept, f" in {phases} phases" if phases > 1 else "", stats.seconds,
        f" in {groups} component groups" if groups > 1 else "",
    )


def _run(graph, params, engine):
    engine.load(_start(graph, params))
    for it, inflation, stats in _iterations(engine, params):
        yield MclState(it, inflation, stats, stats.chaos < CHAOS_LIMIT, engine)


def mcl_iterates(G, *, weight="weight", symmetrize=None, **params):
    """Run MCL one iteration at a time.

    Takes the same arguments as :func:`mcl` and yields an :class:`MclState`
    after every iteration, so a caller can watch the chaos fall, inspect the
    iterand or stop early.

    Yields
    ------
    MclState

    Examples
    --------
    >>> import networkx as nx
    >>> states = list(mcl_iterates(nx.karate_club_graph(), inflation=2.0))
    >>> states[-1].converged, states[-1].chaos < 1e-4
    (True, True)
    """
    graph, prm, engine = _prepare(G, weight, symmetrize, dict(params))
    yield from _run(graph, prm, engine)


def mcl(
    G,
    *,
    inflation=2.0,
    weight="weight",
    attribute="mcl_cluster",
    symmetrize=None,
    scheme=None,
    resource=None,
    pruning_number=None,
    pruning_threshold=None,
    select=None,
    recover=None,
    recover_pct=None,
    preinflation=None,
    loop_gain=None,
    discard_loops=True,
    overlap="cut",
    sort="revsize",
    max_iterations=10000,
    engine="cpu",
    threads=None,
    max_memory=None,
    progress=False,
    checkpoint=None,
    checkpoint_every=None,
    resume=False,
):
    """Cluster a graph with MCL, giving exactly the clusters of mcl 22-282.

    Parameters
    ----------
    G : networkx.Graph, networkx.DiGraph, SparseGraph, scipy sparse matrix, or iterable of edges
        The graph.  Edges ``(u, v)`` or ``(u, v, w)`` in an iterable are read
        as ``mcl --abc`` reads a label file: nodes numbered by first
        appearance, arcs mirrored, repeated arcs merged by maximum.  NetworkX
        graphs are read the same way with nodes in ``G``'s order.  A scipy
        matrix is taken as is (entry ``(i, j)`` = arc ``j -> i``), like mcl's
        native matrix input.
    inflation : float, default 2.0
        mcl ``-I``.  Larger values give smaller clusters (1.4, 2, 4 and 6
        are usual choices).
    weight : str, default "weight"
        Edge attribute holding the weight (NetworkX input); missing: 1.0.
    attribute : str or None, default "mcl_cluster"
        Node attribute that receives each node's cluster number on a NetworkX
        graph; None leaves the graph untouched.
    symmetrize : bool, optional
        Mirror every arc (default: True for edges and NetworkX graphs, False
        for matrices, as mcl).
    scheme : int, optional
        mcl ``-scheme`` 1..7 (default 6: P=10000, S=1100, R=1400, pct=90).
    resource : int, optional
        mcl ``-resource``: S = R = resource and P = 10 * resource.
    pruning_number : int, optional
        mcl ``-P``: entries below ``0.99999 / P`` are pruned (0: no cutoff).
    pruning_threshold : float, optional
        mcl ``-p``: sets P to ``floor(1 / pruning_threshold)``.
    select : int, optional
        mcl ``-S``.
    recover : int, optional
        mcl ``-R``.
    recover_pct : int, optional
        mcl ``-pct``.
    preinflation : float, optional
        mcl ``-pi``.
    loop_gain : float, optional
        mcl ``-c``.
    discard_loops : bool, default True
        mcl ``--discard-loops``.
    overlap : {"cut", "keep", "split"}, default "cut"
        mcl ``-overlap``.
    sort : {"revsize", "size", "lex", "none"}, default "revsize"
        mcl ``-sort``.
    max_iterations : int, default 10000
        mcl ``-L``.
    engine : {"cpu"} or Engine, default "cpu"
        Where the arithmetic runs.
    threads : int, optional
        mcl ``-te``; default: one per core available (fewer under a
        container's CPU quota).  The result never depends on it.
    max_memory : int or str, optional
        Memory budget of the engine, e.g. ``"16G"``: columns are computed in
        phases so that iterands, scratch and phase buffers fit; the result
        never depends on it.
    progress : bool, default False
        Show a progress bar of the iterations.
    checkpoint : str or os.PathLike, optional
        Save the state of the run to this file after every iteration (see
        :mod:`netmcl.checkpoint`): a stopped or killed run can be resumed.
    checkpoint_every : float, optional
        Save the state at most this often (seconds), and after the last
        iteration; default: after every iteration.
    resume : bool, default False
        Continue from the state in `checkpoint` (if the file exists), with
        exactly the clusters of an uninterrupted run; a checkpoint of
        another input or other parameters is refused (``CheckpointError``).

    Returns
    -------
    Clustering or igraph.VertexClustering
        The clusters (lists of node labels, largest first), plus
        ``n_iterations``, ``converged``, ``chaos`` and ``params``; for an
        igraph graph, an ``igraph.VertexClustering`` in the same order.

    Raises
    ------
    ParameterError
        For a parameter out of range (for example ``inflation <= 1``).

    Warns
    -----
    ConvergenceWarning
        When ``max_iterations`` is reached first; the clustering of the last
        iterand is returned.

    Notes
    -----
    Node order matters: when a node is attracted to two clusters equally,
    mcl keeps it in the cluster of the lower number, which depends on node
    indices.  netmcl numbers nodes as mcl does (first appearance), so the
    same input gives the same clusters.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([("cat", "hat", {"weight": 0.2}), ("hat", "bat", {"weight": 0.16}),
    ...               ("bat", "cat", {"weight": 1.0}), ("bat", "bit", {"weight": 0.125}),
    ...               ("bit", "fit", {"weight": 0.25}), ("fit", "hit", {"weight": 0.5}),
    ...               ("hit", "bit", {"weight": 0.16})])
    >>> clusters = mcl(G)
    >>> list(clusters)
    [['cat', 'hat', 'bat'], ['bit', 'fit', 'hit']]
    >>> G.nodes["fit"]["mcl_cluster"]
    1
    """
    kwargs = dict(
        inflation=inflation, scheme=scheme, resource=resource, pruning_number=pruning_number,
        pruning_threshold=pruning_threshold, select=select, recover=recover, recover_pct=recover_pct,
        preinflation=preinflation, loop_gain=loop_gain, discard_loops=discard_loops, overlap=overlap,
        sort=sort, max_iterations=max_iterations, engine=engine, threads=threads,
        max_memory=max_memory,
    )
    graph, params, eng = _prepare(G, weight, symmetrize, kwargs)
    ckpt = None
    if checkpoint is not None:
        from .checkpoint import Checkpoint

        ckpt = Checkpoint(checkpoint, graph, params, every=checkpoint_every, resume=resume)
    elif resume:
        raise ParameterError("resume=True continues a checkpoint: give its file with checkpoint=PATH.")
    clustering = cluster_graph(graph, params, eng, progress=progress, checkpoint=ckpt)
    if attribute is not None:
        write_back(G, clustering, attribute)
    return wrap_result(G, clustering)


def cluster_graph(
    graph, params, engine, *, progress=False, decompose=True, resume=None, release_input=False, checkpoint=None
):
    """Run MCL on a :class:`SparseGraph` and interpret the limit (no adapters).

    Parameters
    ----------
    graph : SparseGraph
    params : MclParams
    engine : Engine
    progress : bool
        Show a progress bar.
    decompose : bool, default True
        Iterate groups of connected components separately (same result,
        see :mod:`netmcl.components`).
    resume : (matrix, list of IterationStats), optional
        Start from this iterand, reached by these iterations (as
        :func:`netmcl.sweep` does after sharing the first expansion).
    release_input : bool, default False
        Free `graph`'s weights once the start matrix is built (its labels
        stay), as the command line does when nothing after the clustering
        needs them: the input matrix is then not held through the run.
    checkpoint : netmcl.checkpoint.Checkpoint, optional
        Save the state after each iteration, and start from the saved one
        when it resumes (and `resume` is not given); the whole matrix is
        then iterated at once (``decompose=False``: the same iterands, one
        state to save).

    Examples
    --------
    >>> from netmcl.graph import SparseGraph
    >>> g = SparseGraph.from_edges([0, 2], [1, 3])
    >>> list(cluster_graph(g, MclParams(), get_engine("cpu")))
    [[0, 1], [2, 3]]
    """
    t0 = time.perf_counter()
    if checkpoint is not None:
        decompose = False
        resume = checkpoint.resume_state() if resume is None else resume
    current, stats = (_start(graph, params), []) if resume is None else (resume[0], list(resume[1]))
    if release_input:
        graph._release_weights()
    done = len(stats)
    groups = component_groups(current) if decompose else [None]
    if stats and stats[-1].chaos < CHAOS_LIMIT:
        limit = current
    elif len(groups) > 1 and engine.spawn(threads=1, share=1) is not None:
        tracks = split_components(current, groups, engine, done=done)
        del current  # the groups' engines hold their parts
        limit, more = run_components(tracks, params, inflation_at=inflation_at, chaos_limit=CHAOS_LIMIT)
        del tracks
        for it, st in enumerate(more, done + 1):
            _log_iteration(it, st)
        stats += more
    else:
        engine.load(current, n_rule=graph.n)
        del current  # the engine holds it until the first iteration replaces it
        with progress_bar(progress, desc="mcl", unit="it", leave=False) as bar:
            for it, _, st in _iterations(engine, params, done + 1):
                stats.append(st)
                if checkpoint is not None:
                    checkpoint.save(engine, stats, final=st.chaos < CHAOS_LIMIT or it == params.max_iterations)
                _log_iteration(it, st)
                bar.set_postfix(chaos=f"{st.chaos:.3g}")
                bar.update()
        limit = engine.result()
    converged = bool(stats) and stats[-1].chaos < CHAOS_LIMIT
    if not converged:
        warnings.warn(
            f"MCL did not converge in {params.max_iterations} iterations "
            f"(last chaos {stats[-1].chaos:.3g}); the clusters of the last iterand are returned.",
            ConvergenceWarning,
            stacklevel=3,
        )
    clusters = sort_clusters(interpret(limit, overlap=params.overlap), params.sort)
    log.info(
        "%d clusters of %d nodes after %d iterations in %.2fs",
        len(clusters), graph.n, len(stats), time.perf_counter() - t0,
    )
    return Clustering(
        clusters,
        graph.labels,
        n_iterations=len(stats),
        converged=converged,
        chaos=[s.chaos for s in stats],
        params=params,
        stats=stats,
    )
