"""Clusters for R: plain Python values that reticulate turns into R objects.

From R, netmcl is called through reticulate (``netmcl <- import("netmcl")``).
reticulate converts Python's own types in every version: a ``dict`` becomes
a named list, a list of ``str`` a character vector, a list of ``int`` an
integer vector, a list of ``float`` a numeric vector, a list of ``bool`` a
logical vector, a list of lists a list of vectors.  It does not convert every
pandas or numpy object in every version: Debian 12's reticulate 1.28 leaves
a pandas 3 DataFrame (whose class is now ``pandas.DataFrame``) and numpy 2
arrays as Python objects, so ``py_to_r(cl$to_frame())`` is no data.frame
there.  :func:`to_r` therefore builds the results from Python's own types
only, for R's ``as.data.frame`` and igraph's vertex attributes.

In R::

    netmcl <- reticulate::import("netmcl")
    cl <- netmcl$mcl(edges)                 # a data.frame from, to, combined_score
    r <- cl$to_r(nodes = igraph::V(g)$name)
    table <- as.data.frame(r$table)          # node, cluster
    igraph::V(g)$mcl_cluster <- r$membership
    igraph::V(g)$color <- r$colors[r$membership + 1]

Cluster numbers are netmcl's and mcl's: 0 is the largest cluster.
"""

import math
import numbers

from ..palette import NEUTRAL, PALETTE, cluster_colors
from ..exceptions import ParameterError

__all__ = ["to_r"]

#: R's integer vectors are 32-bit; larger whole numbers go over as doubles.
_R_INT_MAX = 2**31 - 1


def _plain(value):
    """`value` as a Python bool, int, float or str (None stays None)."""
    if value is None:
        return None
    if isinstance(value, (bool, str)):
        return value
    if hasattr(value, "item") and not isinstance(value, (list, tuple, dict)):
        try:
            value = value.item()  # numpy scalars
        except (TypeError, ValueError):
            pass
    if isinstance(value, bool):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        value = float(value)
        return None if math.isnan(value) else value
    return value if isinstance(value, str) else str(value)


def _column(values):
    """A list that reticulate turns into one R vector (never an R list).

    All booleans -> logical; all whole numbers within R's integer range ->
    integer; any other numbers (or numbers with gaps) -> double, NaN for a
    gap; anything else -> character, "" for a gap (as in netmcl's TSV tables).

    Examples
    --------
    >>> _column([1, 2]), _column([1, None]), _column([True, False]), _column(["a", None, 3])
    ([1, 2], [1.0, nan], [True, False], ['a', '', '3'])
    """
    values = [_plain(v) for v in values]
    present = [v for v in values if v is not None]
    if present and len(present) == len(values) and all(isinstance(v, bool) for v in present):
        return values
    if present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        if len(present) == len(values) and all(isinstance(v, int) and abs(v) <= _R_INT_MAX for v in present):
            return values
        return [math.nan if v is None else float(v) for v in values]
    return ["" if v is None else str(v) for v in values]


def to_r(clustering, G=None, *, nodes=None, attributes=None, label_attribute=None, palette=None):
    """A clustering as plain Python lists and dicts that R receives as R objects.

    Parameters
    ----------
    clustering : Clustering
        The result of :func:`netmcl.mcl`.
    G : networkx.Graph or igraph.Graph, optional
        The clustered graph; its node attributes become table columns.
    nodes : sequence, optional
        The order of ``membership``: e.g. ``igraph::V(g)$name`` of the R
        graph, so the vector can be assigned as a vertex attribute.  Default:
        the clustered graph's node order (``clustering.labels``: first
        appearance in an edge list, as mcl reads it).
    attributes, label_attribute
        As for :func:`netmcl.to_frame`.
    palette : sequence of str, optional
        ``'#RRGGBB'`` colours for the largest clusters; default netmcl's
        palette (the one :func:`netmcl.draw` and :func:`netmcl.cytoscape.push`
        use).

    Returns
    -------
    dict
        ``table`` -- dict of equal-length columns ``node``, ``cluster`` and
        the attributes, one row per (node, cluster) in cluster order, as
        :func:`netmcl.to_frame` (R: ``as.data.frame(r$table)``);
        ``nodes`` and ``membership`` -- each node's cluster number, in the
        order of `nodes` (the first cluster for a node in several);
        ``clusters`` -- each cluster's nodes (R: a list of character
        vectors); ``sizes``; ``colors`` -- each cluster's colour, ranked by
        size as in netmcl's pictures and Cytoscape styles (R:
        ``r$colors[r$membership + 1]``); ``column`` -- ``"mcl_cluster"``,
        the node column netmcl's Cytoscape push writes; ``palette`` and
        ``neutral`` -- the colours themselves.  Every value is a ``str``,
        ``int``, ``float``, ``bool``, list or dict.  Missing attribute values
        are ``NaN`` in numeric columns and ``""`` in text columns.

    Raises
    ------
    ParameterError
        If `nodes` names a node that is not in the clustering.

    Examples
    --------
    >>> import netmcl
    >>> cl = netmcl.mcl([("a", "b"), ("b", "c"), ("x", "y")])
    >>> r = to_r(cl, nodes=["y", "x", "c", "b", "a"])
    >>> r["table"]
    {'node': ['a', 'b', 'c', 'x', 'y'], 'cluster': [0, 0, 0, 1, 1]}
    >>> r["membership"], r["clusters"]
    ([1, 1, 0, 0, 0], [['a', 'b', 'c'], ['x', 'y']])
    >>> r["colors"], r["column"]
    (['#CC6677', '#332288'], 'mcl_cluster')
    """
    from .tables import _rows

    labels = list(clustering.labels)
    first = clustering.membership_array().tolist()
    if nodes is None:
        order = labels
        membership = first
    else:
        order = [_plain(v) for v in ([nodes] if isinstance(nodes, str) else list(nodes))]
        position = {_plain(label): k for k, label in enumerate(labels)}
        missing = [v for v in order if v not in position]
        if missing:
            raise ParameterError(
                f"nodes names {len(missing)} node(s) that the clustering does not have, "
                f"first {missing[0]!r}; the clustering has {len(labels)} nodes, e.g. {labels[:3]!r}."
            )
        membership = [first[position[v]] for v in order]
    columns = _rows(clustering, G, attributes, label_attribute)
    colors_in = list(PALETTE if palette is None else ([palette] if isinstance(palette, str) else palette))
    return {
        "table": {name: _column(values) for name, values in columns.items()},
        "nodes": _column(order),
        "membership": [int(k) for k in membership],
        "clusters": [_column(cluster) for cluster in clustering.clusters],
        "sizes": [int(s) for s in clustering.sizes],
        "colors": cluster_colors(clustering.sizes, palette=colors_in),
        "column": "mcl_cluster",
        # equal sizes rank clusters by number: the palette itself, checked and upper-cased
        "palette": cluster_colors([1] * len(colors_in), palette=colors_in),
        "neutral": NEUTRAL,
    }
