"""The picture of an RCL hierarchy: one row per resolution, one bar per cluster.

The nodes are laid out once along the horizontal axis so that every cluster,
at every resolution, is one unbroken bar: the coarsest clusters at the top,
each splitting into the clusters below it.  A bar's width is the number of
nodes in the cluster (its size is written on it when there is room); clusters
smaller than the smallest resolution are the grey "smaller clusters".
Colours come from :mod:`netmcl.palette`, in turn (repeating after its
last): a cluster keeps its colour in the rows below for as long as it does
not split, and each part of a split gets a colour of its own.
"""

import numpy as np

from ..palette import NEUTRAL, PALETTE
from .plot import _figure, _figure_axes, _save

__all__ = ["plot_rcl", "plot_rcl_to_file"]

#: a bar gets its size written on it when it is at least this fraction of the axis wide
_LABEL_MIN_WIDTH = 0.025


def _levels(result):
    """(resolutions, {resolution: clusters as index arrays}, number of nodes) of an RclResult."""
    try:
        resolutions = list(result.resolutions)
        clusterings = {r: [np.asarray(c) for c in result.clusterings[r].index_clusters] for r in resolutions}
        n = len(result.labels)
    except (AttributeError, KeyError, TypeError):
        from ..exceptions import ParameterError

        raise ParameterError(f"plot_rcl draws the result of netmcl.rcl. Got {type(result).__name__} instead.") from None
    return resolutions, clusterings, n


def _node_order(resolutions, clusterings, n):
    """Node order in which each cluster of each resolution is contiguous (coarsest resolution first)."""
    keys = []
    for r in sorted(resolutions, reverse=True):
        pos = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
        for k, c in enumerate(clusterings[r]):
            pos[c] = k
        keys.append(pos)
    return np.lexsort(keys[::-1]) if keys else np.arange(n)


def plot_rcl(result, *, ax=None, title=None):
    """Draw an RCL hierarchy: resolutions top (coarse) to bottom (fine), clusters as bars.

    Parameters
    ----------
    result : RclResult
        What :func:`netmcl.rcl` returns.
    ax : matplotlib Axes, optional
        Default: pyplot's current axes (``plt.gca()``).
    title : str, optional
        Default: "Consensus clusters at N resolutions (M proteins)".

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import networkx as nx
    >>> import netmcl
    >>> G = nx.karate_club_graph()
    >>> from netmcl.rcl import rcl     # netmcl.rcl
    >>> res = rcl(G, [netmcl.mcl(G, inflation=i) for i in (1.4, 2, 3, 5)], resolutions=[2, 4, 8])
    >>> ax = plot_rcl(res)
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('proteins (nodes), grouped by cluster', 'resolution (cluster size, rcl -r)')
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['8', '4', '2']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    resolutions, clusterings, n = _levels(result)
    ax = _figure_axes(ax, figsize=(10, 1.2 + 0.9 * len(resolutions)))
    order = _node_order(resolutions, clusterings, n)
    where = np.empty(n, dtype=np.int64)
    where[order] = np.arange(n)
    smallest = min(resolutions)
    rows = sorted(resolutions, reverse=True)
    # a cluster keeps its colour down the rows while it stays whole; each new cluster takes the next colour
    colour_of = {}
    for y, r in enumerate(rows):
        spans, colours = [], []
        for c in clusterings[r]:
            if c.size == 0:
                continue
            start = int(where[c].min())
            small = c.size < smallest
            key = (int(c.min()), int(c.size))
            if not small and key not in colour_of:
                colour_of[key] = PALETTE[len(colour_of) % len(PALETTE)]
            color = NEUTRAL if small else colour_of[key]
            spans.append((start, int(c.size)))
            colours.append(color)
            if not small and c.size >= _LABEL_MIN_WIDTH * n:
                dark = color in ("#332288", "#117733", "#882255", "#AA4499", "#CC6677")
                ax.text(start + c.size / 2, y, str(c.size), ha="center", va="center", fontsize="small",
                        color="white" if dark else "black")
        # one collection per row: one bar (path) per cluster
        ax.broken_barh(spans, (y - 0.38, 0.76), facecolors=colours, edgecolors="white", linewidth=0.5,
                       label=f"resolution {r}")
    ax.set_xlim(0, max(n, 1))
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_yticks(range(len(rows)), [f"{r:g}" if isinstance(r, float) else str(r) for r in rows])
    ax.set_ylabel("resolution (cluster size, rcl -r)")
    ax.set_xlabel("proteins (nodes), grouped by cluster")
    counts = ", ".join(f"{sum(1 for c in clusterings[r] if c.size >= smallest)} at {r}" for r in rows)
    ax.set_title(title if title is not None else
                 f"Consensus clusters at {len(rows)} resolutions ({n} proteins)\n"
                 f"clusters of at least {smallest} proteins: {counts}; grey: smaller clusters",
                 fontsize="medium")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return ax


def plot_rcl_to_file(result, path, *, dpi=150, figsize=None, title=None):
    """Draw :func:`plot_rcl` into a picture file (format from the name: .png, .pdf, .svg); returns `path`.

    Examples
    --------
    >>> import os, tempfile
    >>> import networkx as nx
    >>> import netmcl
    >>> G = nx.karate_club_graph()
    >>> from netmcl.rcl import rcl     # netmcl.rcl
    >>> res = rcl(G, [netmcl.mcl(G, inflation=i) for i in (1.4, 2, 3)], resolutions=[2, 8])
    >>> path = plot_rcl_to_file(res, os.path.join(tempfile.mkdtemp(), "hierarchy.png"))
    >>> os.path.getsize(path) > 0
    True
    """
    import os

    fmt = os.path.splitext(str(path))[1].lstrip(".").lower() or "png"
    resolutions = list(getattr(result, "resolutions", []))
    fig = _figure(figsize or (10, 1.2 + 0.9 * max(len(resolutions), 1)))
    plot_rcl(result, ax=fig.add_subplot(), title=title)
    _save(fig, path, fmt, dpi)
    return path
