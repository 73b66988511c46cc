"""Pictures of clusterings, with matplotlib (the ``plot`` extra).

:func:`draw` shows a graph with its nodes coloured by cluster, each cluster
laid out as a group; graphs with more than :data:`MAX_DRAWN_NODES` nodes are
drawn one disc per cluster instead.  :func:`plot_sizes` shows the cluster size
distribution and :func:`plot_sweep` how measures change with inflation.

The colours are those :func:`netmcl.cytoscape.push` uses in Cytoscape: the
palette's colours go to the largest clusters, in order, and every cluster
beyond the palette is :data:`NEUTRAL` grey.

Like :func:`networkx.draw`, :func:`draw`, :func:`plot_sizes` and
:func:`plot_sweep` draw with pyplot when no ``ax`` is given: into the current
axes (``plt.gca()``; :func:`plot_sweep` into a new figure), so that
``plt.show()``, ``plt.savefig()`` and Jupyter's inline pictures see them.
Without a display pyplot falls back to its Agg backend, and ``savefig``
works as usual.  :func:`draw_to_file` builds its figure without pyplot, so
that writing many pictures leaves no figure open.
"""

import collections
import logging
import os

import numpy as np

from .names import cluster_names, node_names
from ..palette import NEUTRAL, PALETTE, cluster_colors, hex_to_rgb, size_ranks
from ..adapters import to_sparse_graph
from ..exceptions import BackendUnavailableError, ParameterError
from ..io import atomic_write

__all__ = [
    "draw",
    "draw_to_file",
    "cluster_layout",
    "plot_sizes",
    "plot_sweep",
    "MAX_DRAWN_NODES",
    "PALETTE",
    "NEUTRAL",
]

log = logging.getLogger("netmcl")

#: Above this many nodes, :func:`draw` draws one disc per cluster.
MAX_DRAWN_NODES = 2000

_EDGE_COLOR = "#BBBBBB"
#: The palette without its two light colours, for lines on white.
_LINE_COLORS = [c for c in PALETTE if c not in ("#DDCC77", "#88CCEE")]


def _figure(figsize):
    """A new figure, made without pyplot."""
    try:
        from matplotlib.figure import Figure
    except ImportError as e:
        raise BackendUnavailableError("Pictures need matplotlib; install it with pip install 'netmcl[plot]'.") from e
    return Figure(figsize=figsize, layout="constrained")


def _pyplot():
    """matplotlib.pyplot, or a clear error naming the extra."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise BackendUnavailableError("Pictures need matplotlib; install it with pip install 'netmcl[plot]'.") from e
    return plt


def _figure_axes(ax, figsize=(8, 7)):
    """`ax`, or pyplot's current axes (in a new figure of `figsize` if none is open)."""
    if ax is not None:
        return ax
    plt = _pyplot()
    if not plt.get_fignums():
        plt.figure(figsize=figsize, layout="constrained")
    return plt.gca()


def _groups(graph, clustering):
    """Cluster number of each node of `graph` (-1 when not clustered)."""
    if graph.n == 0:
        raise ParameterError("The graph has no nodes: there is nothing to draw.")
    if graph.labels == clustering.labels:
        member = clustering.membership_array()
    else:
        lookup = clustering.membership
        member = np.array([lookup.get(v, -1) for v in graph.labels], dtype=np.int64)
    if not (member >= 0).any():
        raise ParameterError(
            "None of the graph's nodes is in the clustering: pass the graph the clustering was computed on. "
            f"Got nodes like {graph.labels[:3]!r} and clustered labels like {clustering.labels[:3]!r}."
        )
    return member


def _flows(graph, member, k):
    """k x k matrix of the weight between clusters (both directions, no diagonal)."""
    import scipy.sparse as sp

    keep = member >= 0
    rows = np.flatnonzero(keep)
    P = sp.csr_array((np.ones(rows.size), (rows, member[keep])), shape=(graph.n, k))
    A = graph.matrix.astype(np.float64)
    Q = (P.T @ (A + A.T) @ P).tocoo()
    off = Q.row != Q.col
    return sp.coo_array((Q.data[off], (Q.row[off], Q.col[off])), shape=(k, k)).tocsr()


def _spread(centres, radii, gap, seed):
    """Move discs apart until none overlap (keeps their rough arrangement)."""
    from scipy.spatial import cKDTree

    rng = np.random.default_rng(seed)
    reach = 2 * radii.max() + gap
    for _ in range(200):
        pairs = cKDTree(centres).query_pairs(reach, output_type="ndarray")
        if not pairs.size:
            break
        i, j = pairs[:, 0], pairs[:, 1]
        d = centres[j] - centres[i]
        dist = np.hypot(d[:, 0], d[:, 1])
        push = radii[i] + radii[j] + gap - dist
        hit = push > 1e-9
        if not hit.any():
            break
        i, j, d, dist, push = i[hit], j[hit], d[hit], dist[hit], push[hit]
        same = dist < 1e-9
        d[same] = rng.normal(size=(same.sum(), 2))
        dist[same] = np.hypot(d[same, 0], d[same, 1])
        step = (d / dist[:, None]) * (push / 2)[:, None]
        np.add.at(centres, i, -step)
        np.add.at(centres, j, step)
    return centres


def _centres(flows, radii, seed):
    """Cluster centres: a spring layout of the cluster graph, spread so discs do not overlap."""
    import networkx as nx
    import scipy.sparse as sp

    k = radii.size
    if k == 1:
        return np.zeros((1, 2))
    H = nx.Graph()
    H.add_nodes_from(range(k))
    coo = sp.triu(flows).tocoo()
    H.add_weighted_edges_from(zip(coo.row.tolist(), coo.col.tolist(), np.log1p(coo.data).tolist()))
    pos = nx.spring_layout(H, seed=seed)
    centres = np.array([pos[c] for c in range(k)], dtype=float)
    centres *= 1.3 * np.sqrt(np.sum(radii**2))  # about the room the discs need
    return _spread(centres, radii, gap=0.5 + 0.1 * radii.mean(), seed=seed)


def _node_positions(graph, member, k, seed):
    """(n, 2) node positions: each cluster a spring layout in a disc, discs placed by _centres."""
    import networkx as nx

    groups = member.copy()
    loose = groups < 0  # nodes outside the clustering become groups of one
    groups[loose] = k + np.arange(loose.sum())
    n_groups = k + int(loose.sum())
    sizes = np.bincount(groups, minlength=n_groups)
    radii = np.sqrt(np.maximum(sizes, 1)).astype(float)
    centres = _centres(_flows(graph, groups, n_groups), radii, seed)
    pos = centres[groups]
    A = graph.matrix
    order = np.argsort(groups, kind="stable")
    bounds = np.searchsorted(groups[order], np.arange(n_groups + 1))
    for c in np.flatnonzero(sizes > 1):
        nodes = order[bounds[c] : bounds[c + 1]]
        sub = A[nodes][:, nodes]
        H = nx.from_scipy_sparse_array(sub.maximum(sub.T))
        local = nx.spring_layout(H, seed=seed, center=(0, 0))
        xy = np.array([local[i] for i in range(nodes.size)])
        extent = np.hypot(xy[:, 0], xy[:, 1]).max() or 1.0
        pos[nodes] = centres[c] + xy * (0.9 * radii[c] / extent)
    return pos


def cluster_layout(G, clustering, *, seed=0, weight="weight"):
    """Node positions that keep each cluster together.

    Each cluster is laid out by a spring layout inside a disc whose area
    grows with its size; the discs are placed by a spring layout of the
    graph of clusters (weighted by the edges between them) and then pushed
    apart until none overlap.  Deterministic for a given `seed`.

    Parameters
    ----------
    G : NetworkX graph, SparseGraph or any graph :func:`netmcl.mcl` accepts
    clustering : Clustering
    seed : int, default 0
    weight : str, default "weight"
        Edge attribute with the weights (NetworkX).

    Returns
    -------
    dict
        Node label -> numpy array ``[x, y]``.

    Examples
    --------
    >>> import networkx as nx
    >>> import netmcl
    >>> G = nx.barbell_graph(5, 0)
    >>> pos = netmcl.plot.cluster_layout(G, netmcl.mcl(G))
    >>> import numpy as np
    >>> within = np.linalg.norm(pos[0] - pos[1]); across = np.linalg.norm(pos[0] - pos[9])
    >>> bool(within < across)
    True
    """
    graph = to_sparse_graph(G, weight=weight)
    member = _groups(graph, clustering)
    pos = _node_positions(graph, member, len(clustering), seed)
    return dict(zip(graph.labels, pos))


#: Legend entries cut cluster names to this many characters, so the legend stays narrower than the picture.
_LEGEND_NAME = 32


def _text(name):
    """`name` as matplotlib shows it literally (a '$' would start mathematics)."""
    return name.replace("$", r"\$")


def _short(name, width=_LEGEND_NAME):
    return _text(name if len(name) <= width else name[: width - 1] + "…")


def _legend(ax, clustering, colors, palette_size, names):
    from matplotlib.lines import Line2D

    ranks = size_ranks(clustering.sizes)
    by_rank = sorted(range(len(clustering)), key=lambda c: ranks[c])
    shown = by_rank[:palette_size]
    handles = [
        Line2D([], [], ls="", marker="o", ms=8, mfc=colors[c], mec="none", label=f"cluster {c} ({clustering.sizes[c]}): {_short(names[c])}")
        for c in shown
    ]
    rest = len(clustering) - len(shown)
    if rest:
        handles.append(Line2D([], [], ls="", marker="o", ms=8, mfc=NEUTRAL, mec="none", label=f"{rest} other clusters"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False, fontsize="small",
              title="cluster (nodes): known complex or\nmost connected members", title_fontsize="small")


def draw(
    G,
    clustering,
    *,
    ax=None,
    level="auto",
    max_nodes=MAX_DRAWN_NODES,
    max_clusters=1000,
    pos=None,
    palette=None,
    node_size=None,
    with_labels=None,
    legend=True,
    title=None,
    seed=0,
    weight="weight",
    label_attribute=None,
    complexes=None,
):
    """Draw a graph with its nodes coloured by cluster.

    The largest clusters get the palette's colours, in order, and all other
    clusters one neutral grey: the colours :func:`netmcl.cytoscape.push`
    gives them in Cytoscape.  Nodes are placed by :func:`cluster_layout`, so
    each cluster is a group.  For a graph too large to draw node by node,
    the picture has one disc per cluster instead, its area proportional to
    the cluster's size, with lines between clusters as wide as the weight of
    the edges joining them.  The legend names each coloured cluster by the
    known complex it overlaps best when `complexes` are given, or else by its
    most connected members.

    Parameters
    ----------
    G : NetworkX graph, SparseGraph or any graph :func:`netmcl.mcl` accepts
    clustering : Clustering
        The result of :func:`netmcl.mcl` on `G`.
    ax : matplotlib Axes, optional
        Where to draw; default pyplot's current axes (``plt.gca()``), as
        :func:`networkx.draw` does, so that ``plt.show()`` shows the picture.
    level : {"auto", "nodes", "clusters"}, default "auto"
        Draw nodes, or one disc per cluster; "auto" draws nodes up to
        `max_nodes` nodes.
    max_nodes : int, default 2000
    max_clusters : int, default 1000
        Cluster-level pictures show at most this many of the largest clusters.
    pos : dict, optional
        Node positions (node -> (x, y)) for the node-level picture, such as
        ``networkx.spring_layout(G)``; default :func:`cluster_layout`.
    palette : sequence of str, optional
        ``'#RRGGBB'`` colours for the largest clusters; default :data:`PALETTE`.
    node_size : float, optional
        Marker area in points²; default shrinks with the number of nodes.
    with_labels : bool, optional
        Write node labels; default only for graphs of at most 60 nodes.
    legend : bool, default True
        A legend of the coloured clusters, largest first.
    title : str, optional
    seed : int, default 0
        Seed of the layouts.
    weight : str, default "weight"
        Edge attribute with the weights (NetworkX).
    label_attribute : str or mapping, optional
        Node attribute with the names to write and to name clusters by
        (``"preferred_name"`` for a graph from :func:`netmcl.read_string`,
        ``"gene"`` for :func:`netmcl.datasets.load_collins2007`), or a
        mapping label -> name; default the node labels.
    complexes : mapping name -> members, or list of member lists, optional
        Known complexes (e.g. :func:`netmcl.datasets.load_cyc2008`; complexes
        in a list are named by position from 1): a cluster is named by the
        complex it overlaps best, when their overlap score (that of
        :func:`netmcl.compare_to_complexes`) is at least 0.25.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    BackendUnavailableError
        If matplotlib is not installed.
    ParameterError
        If `level` is unknown or `G` and `clustering` share no node.

    See Also
    --------
    draw_to_file : the same picture written to a PNG, SVG or PDF file.

    Examples
    --------
    >>> import networkx as nx
    >>> import netmcl
    >>> import matplotlib.pyplot as plt
    >>> G = nx.karate_club_graph()
    >>> ax = netmcl.draw(G, netmcl.mcl(G))      # into plt.gca(), as nx.draw
    >>> ax is plt.gca(), ax.get_title()
    (True, '3 clusters of 34 nodes')
    >>> fig, ax = plt.subplots()
    >>> ax = netmcl.draw(G, netmcl.mcl(G), ax=ax, level="clusters")
    >>> ax.get_title()
    '3 clusters of 34 nodes (disc area ∝ cluster size)'
    >>> plt.close("all")
    """
    if level not in ("auto", "nodes", "clusters"):
        raise ParameterError(f"level must be 'auto', 'nodes' or 'clusters'. Got {level!r} instead.")
    colors = cluster_colors(clustering.sizes, palette=palette)
    palette_size = len(PALETTE if palette is None else palette)
    graph = to_sparse_graph(G, weight=weight)
    member = _groups(graph, clustering)
    names = node_names(G, graph.labels, label_attribute)
    ax = _figure_axes(ax)
    if level == "clusters" or (level == "auto" and graph.n > max_nodes):
        _draw_clusters(ax, graph, member, clustering, colors, max_clusters, seed)
    else:
        _draw_nodes(ax, graph, member, clustering, colors, pos, node_size, with_labels, seed, names)
    if legend:
        named = [name for name, _ in cluster_names(graph, member, clustering, names, complexes=complexes)]
        _legend(ax, clustering, colors, palette_size, named)
    if title is not None:
        ax.set_title(title)
    ax.set_aspect("equal")
    ax.set_axis_off()
    return ax


def _draw_nodes(ax, graph, member, clustering, colors, pos, node_size, with_labels, seed, names):
    import scipy.sparse as sp
    from matplotlib.collections import LineCollection

    n = graph.n
    if pos is None:
        xy = _node_positions(graph, member, len(clustering), seed)
    else:
        missing = [v for v in graph.labels if v not in pos]
        if missing:
            raise ParameterError(f"pos has no position for {len(missing)} nodes. Got none for {missing[0]!r}.")
        xy = np.array([pos[v] for v in graph.labels], dtype=float)
    arcs = sp.triu(graph.matrix.maximum(graph.matrix.T), k=1).tocoo()
    inside = (member[arcs.row] == member[arcs.col]) & (member[arcs.row] >= 0)
    for keep, alpha, width in ((~inside, 0.35, 0.4), (inside, 0.8, 0.6)):  # edges between clusters fainter
        segments = np.stack([xy[arcs.row[keep]], xy[arcs.col[keep]]], axis=1)
        ax.add_collection(LineCollection(segments, colors=_EDGE_COLOR, linewidths=width, alpha=alpha, zorder=1))
    node_colors = [colors[c] if c >= 0 else NEUTRAL for c in member.tolist()]
    size = node_size if node_size is not None else float(np.clip(20000 / max(n, 1), 8, 120))
    ax.scatter(xy[:, 0], xy[:, 1], s=size, c=node_colors, edgecolors="white", linewidths=0.4, zorder=2)
    if with_labels or (with_labels is None and n <= 60):
        for (x, y), label in zip(xy, names):
            ax.annotate(_text(label), (x, y), fontsize=7, ha="center", va="center", xytext=(0, 7),
                        textcoords="offset points", zorder=3)
    ax.autoscale_view()
    ax.set_title(f"{len(clustering)} clusters of {n} nodes")


def _draw_clusters(ax, graph, member, clustering, colors, max_clusters, seed):
    import scipy.sparse as sp
    from matplotlib.collections import LineCollection, PatchCollection
    from matplotlib.patches import Circle

    k = len(clustering)
    ranks = np.array(size_ranks(clustering.sizes))
    shown = np.argsort(ranks)[:max_clusters]  # the largest clusters, largest first
    index = np.full(k, -1)
    index[shown] = np.arange(shown.size)
    sub_member = np.where(member >= 0, index[np.maximum(member, 0)], -1)
    flows = _flows(graph, sub_member, shown.size)
    radii = np.sqrt(np.array(clustering.sizes, dtype=float)[shown])
    centres = _centres(flows, radii, seed)
    coo = sp.triu(flows).tocoo()
    if coo.nnz:
        widths = 0.5 + 5.0 * np.sqrt(coo.data / coo.data.max())
        ax.add_collection(
            LineCollection(np.stack([centres[coo.row], centres[coo.col]], axis=1), colors="#999999",
                           linewidths=widths, alpha=0.5, zorder=1)
        )
    discs = PatchCollection([Circle(c, r) for c, r in zip(centres, radii)], facecolors=[colors[c] for c in shown],
                            edgecolors="white", linewidths=0.5, zorder=2)
    ax.add_collection(discs)
    for c, (x, y) in zip(shown[:len(PALETTE)], centres):
        red, green, blue = hex_to_rgb(colors[c])
        dark = 0.299 * red + 0.587 * green + 0.114 * blue < 150  # white numbers on dark discs
        ax.annotate(str(c), (x, y), ha="center", va="center", fontsize=7, zorder=3, color="white" if dark else "black")
    lo = (centres - radii[:, None]).min(axis=0)
    hi = (centres + radii[:, None]).max(axis=0)
    margin = 0.05 * (hi - lo).max()
    ax.set_xlim(lo[0] - margin, hi[0] + margin)
    ax.set_ylim(lo[1] - margin, hi[1] + margin)
    hidden = k - shown.size
    more = f", the {shown.size} largest drawn" if hidden else ""
    ax.set_title(f"{k} clusters of {graph.n} nodes{more} (disc area ∝ cluster size)")


def draw_to_file(G, clustering, path, *, dpi=150, figsize=(9, 7), **kwargs):
    """Draw a clustered graph (:func:`draw`) into an image file.

    The format follows the file's extension (``.png``, ``.svg``, ``.pdf``,
    ...).  The file is written whole or not at all: the picture goes to a
    temporary file in the same directory, renamed at the end.

    Parameters
    ----------
    G, clustering
        As for :func:`draw`.
    path : str or os.PathLike
    dpi : int, default 150
    figsize : (float, float), default (9, 7)
        Inches.
    **kwargs
        Passed to :func:`draw`.

    Returns
    -------
    str
        `path`.

    Raises
    ------
    ParameterError
        If the extension is not an image format matplotlib writes, or the
        file cannot be written.

    Examples
    --------
    >>> import os, tempfile
    >>> import networkx as nx
    >>> import netmcl
    >>> G = nx.karate_club_graph()
    >>> path = os.path.join(tempfile.mkdtemp(), "karate.png")
    >>> netmcl.plot.draw_to_file(G, netmcl.mcl(G), path) == path
    True
    >>> open(path, "rb").read(4)
    b'\\x89PNG'
    """
    path = os.fspath(path)
    fig = _figure(figsize)
    ax = fig.add_subplot()
    fmt = os.path.splitext(path)[1].lstrip(".").lower()
    formats = fig.canvas.get_supported_filetypes()
    if fmt not in formats:
        raise ParameterError(
            f"Cannot tell the picture format from the file name {path!r}; end it with one of "
            f"{', '.join('.' + f for f in sorted(formats))} (for example .png)."
        )
    draw(G, clustering, ax=ax, **kwargs)
    _save(fig, path, fmt, dpi)
    return path


def _save(fig, path, fmt, dpi):
    """Write a figure whole or not at all."""
    try:
        with atomic_write(path, "wb") as handle:
            fig.savefig(handle, format=fmt, dpi=dpi)
    except OSError as e:
        raise ParameterError(f"Cannot write the picture {path!r}: {e.strerror or e}.") from None
    log.info("wrote %s", path)


def plot_sizes(clustering, *, ax=None, color=None):
    """Plot how many clusters there are of each size, on log-log axes.

    Parameters
    ----------
    clustering : Clustering
    ax : matplotlib Axes, optional
        Default: pyplot's current axes (``plt.gca()``).
    color : str, optional
        Default the palette's second colour.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import networkx as nx
    >>> import netmcl
    >>> cl = netmcl.mcl(nx.karate_club_graph())
    >>> ax = netmcl.plot.plot_sizes(cl)
    >>> ax.get_xscale(), ax.get_yscale()
    ('log', 'log')
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    ax = _figure_axes(ax, figsize=(6, 4))
    counts = collections.Counter(clustering.sizes)
    sizes = np.array(sorted(counts), dtype=float)
    number = np.array([counts[s] for s in sorted(counts)], dtype=float)
    color = color or PALETTE[1]
    ax.vlines(sizes, 0.7, number, colors=color, linewidths=1.5)
    ax.plot(sizes, number, "o", color=color, ms=5)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(0.7, max(number.max() * 1.5, 2))
    ax.set_xlim(0.7, max(sizes.max() * 1.5, 2))
    ax.set_xlabel("cluster size (nodes)")
    ax.set_ylabel("number of clusters")
    ax.set_title(f"{len(clustering)} clusters of {clustering.n_nodes} nodes")
    return ax


#: Measures plot_sweep shows by default, when the sweep has them.
_SWEEP_MEASURES = ("n_clusters", "efficiency", "mass_fraction", "modularity", "accuracy", "fraction_matched")

#: Axis names of the sweep's measures, for readers who do not know the column names.
MEASURE_NAMES = {
    "n_clusters": "number of clusters",
    "largest": "largest cluster (nodes)",
    "singletons": "clusters of one node",
    "n_iterations": "iterations",
    "seconds": "seconds",
    "efficiency": "efficiency",
    "mass_fraction": "weight inside clusters",
    "area_fraction": "area fraction",
    "modularity": "modularity",
    "split_join_previous": "change from previous\n(split/join distance)",
    "sensitivity": "sensitivity\n(complexes covered)",
    "ppv": "PPV (clusters\nin one complex)",
    "accuracy": "accuracy\nagainst complexes",
    "separation": "separation\nagainst complexes",
    "fraction_matched": "complexes recovered\n(fraction)",
}


def _sweep_table(result):
    """Inflations (sorted) and measure name -> values, from the accepted sweep forms."""
    if hasattr(result, "table"):  # netmcl.sweep's SweepResult
        rows = [dict(r) for r in result.table]
    elif hasattr(result, "to_dict") and hasattr(result, "columns"):  # a pandas DataFrame
        frame = result.reset_index() if "inflation" not in result.columns else result
        rows = frame.to_dict("records")
    elif isinstance(result, collections.abc.Mapping):
        rows = [{"inflation": i, **dict(m)} for i, m in result.items()]
    else:
        rows = [dict(r) for r in result]
    if not rows or any("inflation" not in r for r in rows):
        raise ParameterError(
            "plot_sweep takes the result of netmcl.sweep, a mapping inflation -> {measure: value}, a list "
            "of dicts with an 'inflation' key, or a DataFrame with an 'inflation' column or index."
        )
    rows.sort(key=lambda r: float(r["inflation"]))
    inflation = np.array([float(r["inflation"]) for r in rows])
    names = [k for k in rows[0] if k != "inflation"]
    return inflation, {k: [r.get(k) for r in rows] for k in names}


def _numeric(values):
    """True when every value is a number or None (and at least one is a number)."""
    numbers = [v for v in values if v is not None]
    return bool(numbers) and all(
        isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)) for v in numbers
    )


def plot_sweep(result, measures=None, *, ax=None, chosen=None, title="How the clusters change with inflation"):
    """Plot clustering measures against inflation.

    Each measure is on an axis named for a reader (:data:`MEASURE_NAMES`:
    ``n_clusters`` is "number of clusters", ``fraction_matched``
    "complexes recovered", ...); a measure without a name there is shown
    under its own.

    Parameters
    ----------
    result : SweepResult, mapping, list of dict or pandas.DataFrame
        The result of :func:`netmcl.sweep.sweep`; or one entry per
        inflation: a mapping inflation -> {measure: value}, records with an
        ``"inflation"`` key, or a DataFrame with an ``inflation`` column (or
        index) and one column per measure.
    measures : list of str, optional
        Which measures.  Default: those of ``n_clusters``, ``efficiency``,
        ``mass_fraction``, ``modularity`` and ``accuracy`` the sweep has, or
        else every numeric one.
    ax : matplotlib Axes or sequence of Axes, optional
        One Axes for all measures, or one per measure.  Default: a new
        pyplot figure with one panel per measure, sharing the inflation axis.
    chosen : float, optional
        The inflation used, marked on every panel by a dashed line.
    title : str, optional
        Title over the panels; None for none.

    Returns
    -------
    list of matplotlib.axes.Axes

    Examples
    --------
    >>> import networkx as nx
    >>> from netmcl.sweep import sweep
    >>> result = sweep(nx.karate_club_graph(), inflations=[1.4, 2, 3])
    >>> [a.get_ylabel() for a in plot_sweep(result, chosen=2.0)]
    ['number of clusters', 'efficiency', 'weight inside clusters', 'modularity']
    >>> [a.get_ylabel() for a in plot_sweep({1.4: {"clusters": 1}, 2.0: {"clusters": 3}})]
    ['clusters']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    inflation, table = _sweep_table(result)
    if measures is None:
        measures = [m for m in _SWEEP_MEASURES if m in table and _numeric(table[m])]
        measures = measures or [m for m, v in table.items() if _numeric(v)]
    bad = [m for m in measures if m not in table or not _numeric(table[m])]
    if bad or not measures:
        numeric = [m for m, v in table.items() if _numeric(v)]
        raise ParameterError(
            f"plot_sweep needs numeric measures present in the sweep; it has {numeric}. Got {bad or measures!r}."
        )
    if ax is None:
        fig = _pyplot().figure(figsize=(6, 1.0 + 1.8 * len(measures)), layout="constrained")
        axes = list(np.atleast_1d(fig.subplots(len(measures), 1, sharex=True)))
    elif isinstance(ax, (list, tuple, np.ndarray)):
        axes = list(np.ravel(ax))
        if len(axes) != len(measures):
            raise ParameterError(f"ax holds {len(axes)} Axes for {len(measures)} measures; give one per measure.")
    else:
        axes = [ax] * len(measures)
    for k, (a, m) in enumerate(zip(axes, measures)):
        values = np.array([np.nan if v is None else v for v in table[m]], dtype=float)
        name = MEASURE_NAMES.get(m, m)
        a.plot(inflation, values, "o-", color=_LINE_COLORS[k % len(_LINE_COLORS)], label=name.replace("\n", " "))
        a.set_ylabel(name)
    unique = list(dict.fromkeys(axes))
    marks = []
    for a in unique:
        a.grid(True, alpha=0.3)
        if chosen is not None:
            marks.append(a.axvline(float(chosen), color="#555555", linestyle="--", linewidth=1,
                                   label=f"chosen: {float(chosen):g}"))
    unique[-1].set_xlabel("inflation (-I)")
    if title is not None:
        unique[0].set_title(title)
    if marks and len(unique) == len(measures):  # one panel per measure: the mark's legend on the first
        unique[0].legend(handles=marks[:1], frameon=False, fontsize="small")
    if len(unique) < len(measures):
        for a in unique:
            a.set_ylabel("")
            a.legend(frameon=False, fontsize="small")
    return unique
