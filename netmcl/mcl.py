"""Markov clustering with mcl 22-282's exact semantics: the one iteration loop.

The loop is independent of where the arithmetic runs: it prepares the start
matrix (loops, ``-c``, ``-pi``, normalisation), hands it to an engine
(:mod:`netmcl.engines`), drives the iterations (convergence at chaos < 1e-4,
the x1.001 inflation bump from iteration 40, the cap) and interprets the
limit.  A graph of several connected components is iterated as groups of
components on engines of their own (:class:`~netmcl.components.GroupedEngine`),
with the same iterands.  :func:`mcl_iterates` yields every iteration of this
loop; :func:`mcl` is its last state, interpreted.
"""

import dataclasses
import logging
import time
import warnings

import numpy as np

from ._progress import progress_bar
from .adapters import to_sparse_graph, wrap_result, write_back
from .clustering import Clustering
from .components import GroupedEngine, component_groups
from .engines import Engine, get_engine
from .exceptions import ConvergenceWarning, ParameterError
from .graph import SparseGraph
from .interpret import sort_clusters
from .params import BUMP_FROM, CHAOS_LIMIT, MclParams, parameters_doc, signature_with_parameters, split_options

__all__ = ["mcl", "mcl_iterates", "MclState", "start_matrix", "cluster_graph", "CHAOS_LIMIT"]

log = logging.getLogger("netmcl")



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


def _start(graph, params, engine=None, transformed=None):
    """:func:`start_matrix` as a :class:`CscMatrix` (what the loop uses: no scipy),
    computed by `engine` (:meth:`Engine.start_matrix`; default: NumPy's), from
    `transformed` where the caller has :func:`transformed_input` already."""
    if transformed is None:
        transformed = transformed_input(graph.csc, params)
    return (Engine() if engine is None else engine).start_matrix(transformed, params)


def transformed_input(matrix, params):
    """The input weights after ``-tf`` (``params.transform``), as mcl transforms them: the
    loops removed first where mcl discards them (``--discard-loops``, the default), so that
    the transform sees no loop; `matrix` itself where there is no transform.

    Examples
    --------
    >>> from netmcl.sparse import CscMatrix
    >>> m = CscMatrix([0, 2, 3], [0, 1, 0], [9.0, 0.5, 0.5], 2)
    >>> transformed_input(m, MclParams(transform="mul(4)")).toarray().tolist()
    [[0.0, 2.0], [2.0, 0.0]]
    """
    if params.transform is None:
        return matrix
    from .transforms import Transform

    tf = Transform(params.transform)
    if params.discard_loops:
        tf.steps = (("#selfrm", None),) + tf.steps
    out = tf.matrix(matrix, cluster=clusters_at)
    if out.nnz and not (out.data.min() >= 0 and np.isfinite(out.data).all()):
        bad = out.data[~(out.data >= 0) | ~np.isfinite(out.data)][0]
        raise ParameterError(
            f"The transform {params.transform!r} gives the weight {float(bad):g}: MCL needs finite weights >= 0 "
            "(mcl would go on with a meaningless result). Add a filter such as gq(0) or a ceil() to the transform."
        )
    return out


def clusters_at(matrix, inflation):
    """The node indices of each cluster MCL finds in `matrix` (a :class:`CscMatrix`) at
    `inflation`, mcl's other defaults, on the CPU engine: what the transforms ``#mcl`` and
    ``#symmcl`` keep the arcs within.

    Examples
    --------
    >>> from netmcl.sparse import CscMatrix
    >>> clusters_at(CscMatrix([0, 1, 2, 3, 4], [1, 0, 3, 2], [1.0, 1.0, 1.0, 1.0], 4), 2.0)
    [[0, 1], [2, 3]]
    """
    from .engines.cpu import CpuEngine

    clustering = cluster_graph(SparseGraph(matrix), MclParams.build(inflation=float(inflation)), CpuEngine(threads=1))
    return [c.tolist() for c in clustering.index_clusters]


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

    def __init__(self, iteration, inflation, history, engine, graph, params, split_on=None):
        self.iteration = iteration
        self.inflation = inflation
        self.stats = history[-1]
        self.chaos = self.stats.chaos
        self.converged = self.chaos < CHAOS_LIMIT and iteration > params.initial_iterations
        self._history = list(history)
        self._engine = engine
        self._graph = graph
        self._params = params
        self._split_on = split_on  # with force_connected: the (transformed) input the clusters are split on

    @property
    def matrix(self):
        """The iterand after this iteration (scipy CSC, float32).

        Valid until the generator is advanced.
        """
        return self._engine.result().to_scipy()

    def clustering(self):
        """The clusters of the iterand after this iteration (mcl's interpretation).

        Valid until the generator is advanced.  On the last state this is
        what :func:`mcl` returns (before it is mapped back to the input's
        type).

        Examples
        --------
        >>> import networkx as nx
        >>> *_, last = mcl_iterates(nx.path_graph(4))
        >>> list(last.clustering())
        [[0, 1], [2, 3]]
        """
        params = self._params
        clusters = sort_clusters(self._engine.clusters(overlap=params.overlap), params.sort)
        if not params.force_connected:
            return self._clustering_of(clusters)
        if self._split_on is None:
            self._split_on = transformed_input(self._graph.csc, params)
        parts = connected_parts(clusters, self._split_on)
        clustering = self._clustering_of(parts)
        clustering.before_split = self._clustering_of(clusters) if len(parts) != len(clusters) else None
        return clustering

    def _clustering_of(self, clusters):
        return Clustering(
            clusters,
            self._graph.labels,
            n_iterations=len(self._history),
            converged=self.converged,
            chaos=[s.chaos for s in self._history],
            params=self._params,
            stats=self._history,
        )

    def __repr__(self):
        return f"<MclState iteration={self.iteration} chaos={self.chaos:.4g} nnz={self.stats.kept}>"


def connected_parts(clusters, matrix):
    """mcl's ``--force-connected``: every cluster split into the connected components it
    induces in `matrix` (arcs taken both ways), the parts then ordered largest first, ties
    lexicographically (mcl's ``revsize`` order, whatever its ``-sort``).

    Parameters
    ----------
    clusters : list of numpy.ndarray
        Sorted node indices; a partition.
    matrix : CscMatrix
        The graph (mcl's: the input after ``-tf``).

    Returns
    -------
    list of numpy.ndarray

    Examples
    --------
    >>> from netmcl.sparse import CscMatrix
    >>> path = CscMatrix([0, 1, 3, 4, 4], [1, 0, 2, 1], [1.0, 1.0, 1.0, 1.0], 4)  # 0 - 1 - 2, and 3
    >>> [c.tolist() for c in connected_parts([np.array([0, 2, 3]), np.array([1])], path)]
    [[0], [1], [2], [3]]
    """
    from .sparse import CscMatrix, indptr_of, weak_components

    n = matrix.shape[0]
    member = np.full(n, -1, dtype=np.int64)
    for k, c in enumerate(clusters):
        member[c] = k
    rows = matrix.indices.astype(np.int64)
    cols = matrix.columns().astype(np.int64)
    inside = member[rows] == member[cols]
    within = CscMatrix(indptr_of(cols[inside], n), rows[inside], np.ones(int(inside.sum()), np.float32), n)
    _, part = weak_components(within)
    out = []
    for c in clusters:  # the parts of a cluster in the order of their smallest node (components are numbered so)
        labels = part[c]
        out.extend(c[labels == p] for p in np.unique(labels))
    return sort_clusters(out, "revsize")


def _check_undirected(matrix):
    """Refuse ``force_connected`` on a graph with an arc whose reverse is missing: mcl's split of
    such a graph follows rules netmcl does not reproduce (components neither weak nor strong)."""
    n = matrix.shape[0]
    rows = matrix.indices.astype(np.int64)
    cols = matrix.columns().astype(np.int64)
    if not np.array_equal(np.sort(cols * n + rows), np.sort(rows * n + cols)):
        raise ParameterError(
            "force_connected (--force-connected) needs an undirected graph (every arc's reverse present, as "
            "--abc and symmetrize=True make it); this one has one-way arcs."
        )


def inflation_at(params, iteration):
    """The inflation mcl uses in `iteration` (1-based).

    mcl reads ``-I`` into a float32, then multiplies the value by 1.001 in
    double after every iteration from the 40th; this repeats that arithmetic.
    The first ``-l`` iterations (`initial_iterations`) use ``-i``
    (`initial_inflation`, read into a float32) instead, never bumped; the
    bumps of ``-I`` start after the first iteration of the main phase (after
    iteration ``max(40, l + 1)``), as in mcl.

    Examples
    --------
    >>> inflation_at(MclParams.build(inflation=1.4), 1)
    1.399999976158142
    >>> inflation_at(MclParams(), 40), inflation_at(MclParams(), 41), inflation_at(MclParams(), 42)
    (2.0, 2.002, 2.0040019999999994)
    >>> inflation_at(MclParams(initial_iterations=2, initial_inflation=3.0), 2)
    3.0
    """
    if iteration <= params.initial_iterations:
        return float(np.float32(params.initial_inflation))
    inflation = float(np.float32(params.inflation))
    for _ in range(max(BUMP_FROM, params.initial_iterations + 1), iteration):
        inflation *= 1.001
    return inflation


def first_expansion(graph, params, engine):
    """The first iteration up to, not including, its inflation.

    Everything in it -- preprocessing, expansion, pruning, rescaling and the
    chaos -- is the same for every main inflation, so an inflation sweep
    computes it once and inflates it per inflation with :func:`inflate_first`.

    Returns
    -------
    matrix : CscMatrix
        The pruned, rescaled first expansion.
    stats : IterationStats
        The first iteration's statistics.
    """
    engine.load(_start(graph, params, engine), n_rule=graph.n)
    stats = engine.iterate(None, params.pruning())
    return engine.result().copy(), stats


def inflate_first(expansion, stats, params, engine):
    """Finish the first iteration of :func:`first_expansion` at ``params.inflation``.

    `engine` does the inflation (a group's engine of its kind when it has
    them).  Returns the argument `resume` of :func:`cluster_graph`: bit for
    bit the iterand and statistics of the first iteration of a run at that
    inflation.
    """
    eng = engine.spawn(threads=engine.threads, share=1) or engine
    eng.load(expansion.copy(), n_rule=expansion.shape[0])
    emptied = eng.inflate(inflation_at(params, 1))
    m = eng.result()
    return m, [dataclasses.replace(stats, kept=m.nnz, emptied=emptied)]


def _log_iteration(it, stats):
    """Log iteration `it` (the command line's ``-v``): how many phases a memory
    budget cut it into, and for a graph whose groups of components iterate
    separately, how many groups."""
    phases = stats.extra.get("phases", 1)
    groups = stats.extra.get("groups", 1)
    log.debug(
        "iteration %d: chaos %.4f, kept %d entries%s, %.3fs%s",
        it, stats.chaos, stats.kept, f" in {phases} phases" if phases > 1 else "", stats.seconds,
        f" in {groups} component groups" if groups > 1 else "",
    )


def _states(graph, params, engine, *, decompose=True, resume=None, release_input=False):
    """The one iteration loop: load the start matrix (or `resume`), iterate
    until convergence or the cap, yield an :class:`MclState` after each
    iteration (for a resumed run that had already converged, one state for
    its last iteration)."""
    # with force_connected, the (transformed) input is kept: its start matrix and the clusters' split use it
    split_on = transformed_input(graph.csc, params) if params.force_connected else None
    if resume is None:
        current, history = _start(graph, params, engine, transformed=split_on), []
        if split_on is not None:
            _check_undirected(split_on)
    else:
        current, history = resume[0], list(resume[1])
    if release_input and not params.force_connected:  # --force-connected splits on the input graph
        graph._release_weights()
    # components that converge stop iterating in a group of their own: not during the initial
    # phase (-l), whose iterations mcl runs on every component
    decompose = decompose and params.initial_iterations == 0
    groups = component_groups(current, components=engine.components) if decompose else [None]
    if len(groups) > 1 and engine.spawn(threads=1, share=1) is not None:
        engine = GroupedEngine(engine, groups, chaos_limit=CHAOS_LIMIT)
    engine.load(current, n_rule=graph.n)
    del current  # the engine holds it until the first iteration replaces it
    done = len(history)
    if history and history[-1].chaos < CHAOS_LIMIT and done > params.initial_iterations:
        yield MclState(done, inflation_at(params, done), history, engine, graph, params, split_on)
        return
    for it in range(done + 1, params.initial_iterations + params.max_iterations + 1):
        inflation = inflation_at(params, it)
        history.append(engine.iterate(inflation, params.pruning()))
        _log_iteration(it, history[-1])
        state = MclState(it, inflation, history, engine, graph, params, split_on)
        yield state
        if state.converged:
            return


def _prepare(G, weight, symmetrize, params, caller="mcl"):
    """The graph, the checked parameters and the engine of a run (parameters
    first: a mistake is reported before a large graph is converted)."""
    algorithm, options = split_options(params, caller=caller)
    prm = MclParams.build(**algorithm)
    engine = get_engine(options.pop("engine"), **options)
    return to_sparse_graph(G, weight=weight, symmetrize=symmetrize), prm, engine


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
    graph, prm, engine = _prepare(G, weight, symmetrize, params, caller="mcl_iterates")
    yield from _states(graph, prm, engine)


def mcl(G, *, weight="weight", attribute="mcl_cluster", symmetrize=None, progress=False, checkpoint=None,
        checkpoint_every=None, resume=False, warm_start=None, **params):
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
    weight : str, default "weight"
        Edge attribute holding the weight (NetworkX input); missing: 1.0.
    attribute : str or None, default "mcl_cluster"
        Node attribute that receives each node's cluster number on a NetworkX
        graph; None leaves the graph untouched.
    symmetrize : bool, optional
        Mirror every arc (default: True for edges and NetworkX graphs, False
        for matrices, as mcl).
    <parameters>
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
    warm_start : True or Clustering, optional
        True: keep what a later warm start needs (the result's
        ``warm_state``).  The result of an earlier run with `warm_start`
        (on the network before edges were added or removed): reuse its
        clusters of the components whose start matrix is unchanged, iterate
        the rest, and report what was reused in the result's
        ``warm_report``; the clusters are exactly a cold run's (see
        :mod:`netmcl.warm`).  Nothing is reused after a change of parameters
        or of the node count.

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
    graph, params, eng = _prepare(G, weight, symmetrize, params)
    ckpt = None
    if checkpoint is not None:
        from .checkpoint import Checkpoint

        ckpt = Checkpoint(checkpoint, graph, params, every=checkpoint_every, resume=resume)
    elif resume or checkpoint_every is not None:
        raise ParameterError("resume and checkpoint_every continue or pace a checkpoint: give its file with checkpoint=PATH.")
    if warm_start is not None and warm_start is not False:
        if ckpt is not None:
            raise ParameterError("warm_start and checkpoint cannot be combined: a checkpointed run iterates the "
                                 "whole matrix at once.")
        clustering = cluster_graph(graph, params, eng, progress=progress, warm_start=warm_start)
    else:
        clustering = cluster_graph(graph, params, eng, progress=progress, checkpoint=ckpt)
    if attribute is not None:
        write_back(G, clustering, attribute)
    result = wrap_result(G, clustering)
    if result is not clustering and hasattr(clustering, "warm_state"):  # an igraph VertexClustering
        result.warm_state, result.warm_report = clustering.warm_state, clustering.warm_report
    return result


def cluster_graph(
    graph, params, engine, *, progress=False, decompose=True, resume=None, release_input=False, checkpoint=None,
    warm_start=None,
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
    warm_start : True, Clustering or netmcl.warm.WarmState, optional
        As in :func:`mcl`: the engine is wrapped in a
        :class:`netmcl.warm.WarmEngine`, which reuses the components the
        previous run already iterated, and the result carries
        ``warm_state`` and ``warm_report``.

    Examples
    --------
    >>> from netmcl.graph import SparseGraph
    >>> g = SparseGraph.from_edges([0, 2], [1, 3])
    >>> list(cluster_graph(g, MclParams(), get_engine("cpu")))
    [[0, 1], [2, 3]]
    >>> first = cluster_graph(g, MclParams(), get_engine("cpu"), warm_start=True)
    >>> changed = SparseGraph.from_edges([0, 2, 3], [1, 3, 4])
    >>> second = cluster_graph(changed, MclParams(), get_engine("cpu"), warm_start=first)
    >>> list(second), str(second.warm_report)
    ([[2, 3, 4], [0, 1]], 'warm start reused 1 of 2 components, 2 of 5 nodes; iterated 1 components')
    """
    if warm_start is not None and warm_start is not False:
        from .warm import WarmEngine

        if params.initial_iterations:
            raise ParameterError("warm_start cannot be combined with initial_iterations (-l): the components of "
                                 "a run with an initial phase are iterated together, so none can be reused.")

        warm = WarmEngine.resuming(engine, warm_start, params)
        return warm.finish(cluster_graph(graph, params, warm, progress=progress, decompose=False,
                                         release_input=release_input))
    t0 = time.perf_counter()
    if checkpoint is not None:
        decompose = False
        resume = checkpoint.resume_state() if resume is None else resume
    done = 0 if resume is None else len(resume[1])
    last = None
    with progress_bar(progress, desc="mcl", unit="it", leave=False) as bar:
        for last in _states(graph, params, engine, decompose=decompose, resume=resume, release_input=release_input):
            if checkpoint is not None and last.iteration > done:
                last_one = params.initial_iterations + params.max_iterations
                checkpoint.save(last._engine, last._history, final=last.converged or last.iteration == last_one)
            bar.set_postfix(chaos=f"{last.chaos:.3g}")
            bar.update()
    if not last.converged:
        warnings.warn(
            f"MCL did not converge in {params.max_iterations} iterations "
            f"(last chaos {last.chaos:.3g}); the clusters of the last iterand are returned.",
            ConvergenceWarning,
            stacklevel=3,
        )
    clustering = last.clustering()
    log.info(
        "%d clusters of %d nodes after %d iterations in %.2fs",
        len(clustering), graph.n, clustering.n_iterations, time.perf_counter() - t0,
    )
    return clustering


mcl.__doc__ = mcl.__doc__.replace("    <parameters>\n", parameters_doc())
mcl.__signature__ = signature_with_parameters(mcl)
mcl_iterates.__signature__ = signature_with_parameters(mcl_iterates)
