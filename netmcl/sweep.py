"""Inflation sweeps: cluster one graph at several inflations and tabulate the measures.

mcl users run ``mcl -I`` in a shell loop (or ``-write-expanded`` once and
``-if`` for each inflation) and then ``clm info`` / ``clm dist`` on the
results, to choose an inflation.  :func:`sweep` does all of that in one
call.
"""

import logging
import time
from collections.abc import Mapping

from ._progress import progress_bar
from .adapters import to_sparse_graph
from .engines import get_engine
from .exceptions import ParameterError
from .mcl import cluster_graph, first_expansion, inflate_first
from .params import MclParams, split_options

__all__ = ["sweep", "SweepResult", "DEFAULT_INFLATIONS"]

log = logging.getLogger("netmcl")

#: The inflations mcl's documentation suggests trying.
DEFAULT_INFLATIONS = (1.4, 2.0, 3.0, 4.0, 6.0)

#: Columns of the sweep table shown by :meth:`SweepResult.format_table`, with their formats.
_SHOWN = (
    ("inflation", "{:g}"),
    ("n_clusters", "{:d}"),
    ("largest", "{:d}"),
    ("singletons", "{:d}"),
    ("n_iterations", "{:d}"),
    ("efficiency", "{:.5f}"),
    ("mass_fraction", "{:.5f}"),
    ("area_fraction", "{:.5f}"),
    ("modularity", "{:.5f}"),
    ("split_join_previous", "{:d}"),
    ("sensitivity", "{:.4f}"),
    ("ppv", "{:.4f}"),
    ("accuracy", "{:.4f}"),
    ("separation", "{:.4f}"),
    ("fraction_matched", "{:.4f}"),
)


class SweepResult(Mapping):
    """The clusterings of an inflation sweep and a table of their measures.

    A mapping ``inflation -> Clustering`` in the order the inflations were
    given.

    Attributes
    ----------
    table : list of dict
        One row per inflation: ``inflation``, ``n_clusters``, ``largest``,
        ``singletons``, ``n_iterations``, ``converged``, ``seconds``, the
        ``clm info`` measures (``efficiency``, ``mass_fraction``,
        ``area_fraction``, ``modularity``, see :func:`netmcl.analysis.quality`),
        ``split_join_previous`` (split/join distance to the previous
        inflation's clustering, as ``clm dist --chain``; None for the first)
        and, when complexes were given, the measures of
        :func:`netmcl.analysis.compare_to_complexes`.  Pass it to
        :func:`netmcl.plot.plot_sweep` to plot them.
    clusterings : dict
        ``inflation -> Clustering``.
    """

    def __init__(self, clusterings, table):
        self.clusterings = dict(clusterings)
        self.table = list(table)

    def __getitem__(self, inflation):
        return self.clusterings[float(inflation)]

    def __iter__(self):
        return iter(self.clusterings)

    def __len__(self):
        return len(self.clusterings)

    def __repr__(self):
        inflations = ", ".join(f"{i:g}" for i in self.clusterings)
        return f"<SweepResult: inflations {inflations}>"

    def best(self, measure="efficiency"):
        """The inflation whose clustering has the largest value of `measure`.

        Parameters
        ----------
        measure : str, default "efficiency"
            A numeric column of :attr:`table` (``"accuracy"`` when complexes
            were given is the usual choice for protein complexes).

        Examples
        --------
        >>> import networkx as nx
        >>> result = sweep(nx.karate_club_graph(), inflations=[1.4, 2, 3])
        >>> result.best("modularity")
        2.0
        """
        values = [(row.get(measure), row["inflation"]) for row in self.table]
        values = [(v, i) for v, i in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if not values:
            raise ParameterError(
                f"The sweep table has no numeric column {measure!r}; it has {list(self.table[0])}."
            )
        return max(values, key=lambda vi: vi[0])[1]

    def to_frame(self):
        """The table as a pandas DataFrame indexed by inflation (needs pandas)."""
        from .adapters.pandas import require_pandas

        return require_pandas().DataFrame(self.table).set_index("inflation")

    def format_table(self):
        """The table as aligned text, one line per inflation (missing columns left out).

        Examples
        --------
        >>> import networkx as nx
        >>> print(sweep(nx.karate_club_graph(), inflations=[2, 3]).format_table().splitlines()[0])
        inflation  n_clusters  largest  singletons  n_iterations  efficiency  mass_fraction  area_fraction  modularity  split_join_previous
        """
        shown = [(name, fmt) for name, fmt in _SHOWN if any(name in row for row in self.table)]
        cells = [[name for name, _ in shown]]
        for row in self.table:
            cells.append(["" if row.get(name) is None else fmt.format(row[name]) for name, fmt in shown])
        widths = [max(len(r[k]) for r in cells) for k in range(len(shown))]
        return "\n".join("  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in cells)

    def __str__(self):
        return self.format_table()


def sweep(
    G,
    inflations=DEFAULT_INFLATIONS,
    *,
    weight="weight",
    symmetrize=None,
    complexes=None,
    overlap_threshold=0.25,
    progress=False,
    **params,
):
    """Cluster a graph at several inflations and measure each clustering.

    The graph is converted and validated once, and the first iteration's
    expansion, pruning and rescaling -- the same for every inflation, and the
    costliest step on dense networks -- are computed once and inflated per
    inflation (what mcl users do with ``-write-expanded`` and ``-if``).  Every
    clustering is exactly what ``netmcl.mcl(G, inflation=I, ...)`` (and
    ``mcl -I``) gives.

    Parameters
    ----------
    G : graph
        Anything :func:`netmcl.mcl` takes.
    inflations : sequence of float, default (1.4, 2, 3, 4, 6)
        The inflations, each > 1; repeated values are run once.
    weight : str, default "weight"
    symmetrize : bool, optional
        As in :func:`netmcl.mcl`.
    complexes : iterable of iterables of labels, or mapping name -> labels, optional
        Known complexes (e.g. :func:`netmcl.datasets.load_cyc2008`); adds the
        gold-standard measures of
        :func:`netmcl.analysis.compare_to_complexes` to the table.
    overlap_threshold : float, default 0.25
        Overlap score for a complex to count as matched.
    progress : bool, default False
        Show a progress bar of the inflations.
    **params
        Any other parameter of :func:`netmcl.mcl` (``scheme``,
        ``pruning_number``, ``overlap``, ``engine``, ``threads``...), the
        same for every inflation.
        Measures that need a partition are left out of the table when
        ``overlap="keep"`` makes clusters overlap.

    Returns
    -------
    SweepResult
        ``result[I]`` is the clustering at inflation ``I``;
        ``result.table`` the measures; ``print(result)`` shows them.

    See Also
    --------
    netmcl.analysis.quality, netmcl.analysis.compare_to_complexes, netmcl.plot.plot_sweep

    Examples
    --------
    >>> import networkx as nx
    >>> import netmcl
    >>> result = sweep(nx.karate_club_graph(), inflations=[1.4, 2, 3])
    >>> [row["n_clusters"] for row in result.table]
    [1, 3, 5]
    >>> list(result[2.0]) == list(netmcl.mcl(nx.karate_club_graph(), inflation=2.0))
    True
    """
    if "inflation" in params:
        raise ParameterError("sweep takes 'inflations' (a list), not 'inflation'.")
    if "attribute" in params:
        raise ParameterError("sweep does not write node attributes; drop the 'attribute' parameter.")
    try:
        values = [float(i) for i in inflations]
    except (TypeError, ValueError):
        raise ParameterError(f"'inflations' must be a sequence of numbers > 1. Got {inflations!r} instead.") from None
    values = list(dict.fromkeys(values))
    if not values:
        raise ParameterError("'inflations' must hold at least one inflation.")
    algorithm, options = split_options(params, caller="sweep")
    settings = [MclParams.build(inflation=i, **algorithm) for i in values]  # validates everything first
    from .analysis import compare_to_complexes, quality, split_join_distance  # not loaded by a clustering run

    graph = to_sparse_graph(G, weight=weight, symmetrize=symmetrize)
    if isinstance(complexes, Mapping):
        complexes = complexes.values()
    complexes = None if complexes is None else [list(c) for c in complexes]
    eng = get_engine(options.pop("engine"), **options)

    clusterings, table = {}, []
    previous = None
    expansion, first = first_expansion(graph, settings[0], eng)
    # an engine on a cluster runs each inflation as a task of its own (the Dask engine's sweep_runs)
    runs = eng.sweep_runs(graph, settings, expansion, first, _inflation_run) if hasattr(eng, "sweep_runs") else None
    for prm in progress_bar(progress, settings, desc="sweep", unit="inflation", leave=False):
        t0 = time.perf_counter()
        if runs is None:
            clustering = cluster_graph(graph, prm, eng, resume=inflate_first(expansion, first, prm, eng))
        else:
            clustering, seconds = next(runs)
            t0 = time.perf_counter() - seconds  # the run's time on its worker
        row = {
            "inflation": prm.inflation,
            "n_clusters": len(clustering),
            "largest": max(clustering.sizes, default=0),
            "singletons": sum(1 for s in clustering.sizes if s == 1),
            "n_iterations": clustering.n_iterations,
            "converged": clustering.converged,
            "seconds": time.perf_counter() - t0,
        }
        if clustering.is_partition():
            q = quality(graph, clustering)
            for key in ("efficiency", "mass_fraction", "area_fraction", "modularity"):
                row[key] = q[key]
            row["split_join_previous"] = None if previous is None else split_join_distance(previous, clustering).total
            previous = clustering
        if complexes is not None:
            row.update(compare_to_complexes(clustering, complexes, overlap_threshold=overlap_threshold))
        log.info("inflation %g: %d clusters in %.2fs", prm.inflation, len(clustering), row["seconds"])
        clusterings[prm.inflation] = clustering
        table.append(row)
    return SweepResult(clusterings, table)


def _inflation_run(graph, params, expansion, first):
    """One inflation of a sweep after the shared first expansion, with the CPU engine on one
    thread (an engine on a cluster runs it as a task on a worker): its clustering and seconds."""
    from .engines.cpu.engine import CpuEngine

    t0 = time.perf_counter()
    engine = CpuEngine(threads=1)
    clustering = cluster_graph(graph, params, engine, resume=inflate_first(expansion, first, params, engine))
    return clustering, time.perf_counter() - t0
