"""pandas edge lists in: ``netmcl.mcl(df)`` on a DataFrame of edges.

pandas is optional; this module is only imported when a DataFrame is passed
or :func:`from_pandas_edgelist` is called.
"""

import numpy as np

from ..exceptions import BackendUnavailableError, ParameterError
from ..graph import SparseGraph
from . import FLT_MAX, check_weight


def require_pandas():
    """pandas, imported on first use; without it, an error naming the extra that installs it."""
    try:
        import pandas
    except ImportError as exc:  # pragma: no cover - only without pandas
        raise BackendUnavailableError("Tables need pandas: pip install 'netmcl[tables]'.") from exc
    return pandas

__all__ = ["from_dataframe", "from_pandas_edgelist"]

#: Column-name pairs recognised as the two ends of an edge, in this order.
END_COLUMNS = (("source", "target"), ("from", "to"), ("protein1", "protein2"), ("node1", "node2"))


def _column(df, name, role):
    if name not in df.columns:
        raise ParameterError(
            f"The DataFrame has no column {name!r} for the edges' {role}; its columns are {list(df.columns)}."
        )
    return df[name]


def from_pandas_edgelist(df, *, source="source", target="target", weight="weight", symmetrize=True):
    """A :class:`~netmcl.SparseGraph` from a DataFrame with one edge per row, as ``mcl --abc``.

    Nodes are numbered in order of first appearance, the source of a row
    before its target, so the clusters equal those of ``mcl --abc`` on the
    same rows written as a label file.  Rows of weight 0 add their nodes but
    no edge; each edge is mirrored (unless `symmetrize` is False) and a pair
    listed twice keeps its largest weight.

    Parameters
    ----------
    df : pandas.DataFrame
    source, target : str, default "source", "target"
        The columns holding the edges' end points.
    weight : str or None, default "weight"
        The column holding the weights; None: every edge weighs 1.
    symmetrize : bool, default True

    Returns
    -------
    SparseGraph
        Ready for :func:`netmcl.mcl`.

    Examples
    --------
    >>> import pandas as pd
    >>> import netmcl
    >>> df = pd.DataFrame({"a": ["x", "y", "u"], "b": ["y", "z", "v"], "w": [1.0, 0.5, 2.0]})
    >>> g = from_pandas_edgelist(df, source="a", target="b", weight="w")
    >>> g.labels
    ['x', 'y', 'z', 'u', 'v']
    >>> list(netmcl.mcl(g))
    [['x', 'y', 'z'], ['u', 'v']]
    """
    import pandas as pd

    ends = np.empty(2 * len(df), dtype=object)
    ends[0::2] = _column(df, source, "sources").to_numpy(dtype=object)
    ends[1::2] = _column(df, target, "targets").to_numpy(dtype=object)
    codes, labels = pd.factorize(ends, sort=False)  # first appearance, source before target
    if (codes < 0).any():
        k = int(np.flatnonzero(codes < 0)[0]) // 2
        raise ParameterError(
            f"Row {k} of the DataFrame has a missing node ({ends[2 * k]!r}, {ends[2 * k + 1]!r})."
        )
    if weight is None:
        weights = None
    else:
        column = _column(df, weight, "weights")
        weights = pd.to_numeric(column, errors="coerce").to_numpy(dtype=np.float64)
        bad = ~np.isfinite(weights) | (weights < 0) | (weights > FLT_MAX)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            edge = f"row {k} of column {weight!r} (the edge {ends[2 * k]!r}-{ends[2 * k + 1]!r})"
            check_weight(column.iloc[k : k + 1].tolist()[0], edge)
    src, dst = codes[0::2].astype(np.int64), codes[1::2].astype(np.int64)
    return SparseGraph.from_edges(src, dst, weights, labels=list(labels), n=len(labels), symmetrize=symmetrize)


def from_dataframe(df, *, weight="weight", symmetrize=True):
    """The graph of a DataFrame passed to :func:`netmcl.mcl`: the columns are found by name.

    The edges' ends are the first pair of columns found among
    ``source/target``, ``from/to`` (R, STRINGdb), ``protein1/protein2``
    (STRING) and ``node1/node2``, else the first two columns.  The weight is
    column `weight` when present, else, for the default ``"weight"``, a
    ``combined_score`` column or a numeric third column (an ``mcl --abc``
    file read with ``pandas.read_csv``); otherwise edges weigh 1.  Use
    :func:`from_pandas_edgelist` to name the columns yourself.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"from": ["a", "b"], "to": ["b", "c"], "combined_score": [900, 400]})
    >>> g = from_dataframe(df)
    >>> g.labels, float(g.matrix[1, 0])
    (['a', 'b', 'c'], 900.0)
    """
    columns = list(df.columns)
    if len(columns) < 2:
        raise ParameterError(
            f"An edge-list DataFrame needs at least two columns (source and target). Got {columns} instead."
        )
    for source, target in END_COLUMNS:
        if source in columns and target in columns:
            break
    else:
        source, target = columns[0], columns[1]
    if weight is not None and weight not in columns:
        if weight != "weight":
            _column(df, weight, "weights")
        rest = [c for c in columns if c not in (source, target)]
        if "combined_score" in rest:
            weight = "combined_score"
        elif len(columns) >= 3 and columns[2] in rest and df[columns[2]].dtype.kind in "iuf":
            weight = columns[2]
        else:
            weight = None
    return from_pandas_edgelist(df, source=source, target=target, weight=weight, symmetrize=symmetrize)
