"""mcl's transform language (``-tf``, ``-abc-tf``): edge-weight and graph-wide transformations.

A specification is a comma-separated list of functions, each ``name(arg)``,
applied from left to right, as in mcl 22-282 (``man mcxio``, "Transformation
syntax")::

    gq(0.7),add(-0.7)        keep weights >= 0.7, then subtract 0.7
    neglog(10),ceil(200)     -log10 of every weight, capped at 200
    #knn(10)                 keep an edge only if it is among the 10 heaviest of both its nodes

Edge functions act on every weight on its own: ``gt gq lt lq`` (keep the
weights greater than, greater than or equal to, less than, less than or equal
to the argument), ``ceil floor`` (cap at, raise to the argument), ``mul add
scale`` (multiply, add, divide), ``pow`` (raise to a power), ``exp log
neglog`` (the argument is the base; an empty ``()`` or 0 is e; the log of a
negative weight is 0, as in mcl), ``abs`` and ``acos`` (pi below -1, 0 above 1).

Functions whose name starts with ``#`` act on the whole graph:

* ``#knn(k)``: an edge stays where it is among the k heaviest entries of both
  its nodes' columns (entries tied with the (k+1)-th heaviest are cut);
  ``#knnj(k)``: where it is among them in either column;
* ``#ceilnb(k)``: nodes in order of decreasing degree lose their lightest
  edges until none has more than k;
* ``#step(k)``: the graph squared k times (paths of 2**k steps);
* ``#ils()``: each edge's weight raised to the inverted log-weighted
  similarity of its nodes (the sum over their common neighbours z of
  1 / log2(degree of z)), loops removed; undirected graphs only;
* ``#mcl(I)``: only the arcs inside the clusters MCL finds at inflation I;
  ``#symmcl(I)``: the same, clustering the graph plus its transpose;
* ``#add() #max() #min() #mul()``: each pair of arcs i->j, j->i made one edge
  of their sum, maximum, minimum or product;
* ``#rev() #tp()``: every arc reversed; ``#selfrm()``: loops removed;
  ``#selfmax()``: each node's loop set to its largest weight (1 where it has
  none); ``#arcmax()``: of two arcs between two nodes the heavier kept (both
  where equal); ``#arcsub()``: the graph minus its transpose.

The arithmetic is mcl's: weights are float32, every function's argument is
read into a float32, each result is computed in double and stored as
float32.  A filter that fails removes a weight for good; a weight that
arithmetic makes 0 goes on through the edge functions after it
(``add(-1),add(1)`` keeps a weight of 1) and is removed before a ``#``
function and at the end.  The results are mcl's bit for bit (checked against
``mcxload -tf`` and ``mcl -tf``).

Functions of mcl that netmcl does not provide, each refused by name:
``rand`` and ``#shrug`` (random: mcl's random numbers cannot be repeated),
``#tug`` and ``#thread`` (which mcl 22-282 refuses too).  A
transform that leaves a negative or non-finite weight is refused as well
(mcl clusters such a graph regardless, meaninglessly).

Examples
--------
``transform=`` of :func:`netmcl.mcl` is mcl's ``-tf``: applied to the graph
after its loops are removed, before the clustering.

>>> import networkx as nx
>>> import netmcl
>>> G = nx.karate_club_graph()
>>> len(netmcl.mcl(G, attribute=None)), len(netmcl.mcl(G, transform="#knn(3)", attribute=None))
(3, 22)

E-values, as ``mcl hits.abc --abc --abc-neg-log10 -abc-tf 'ceil(200)'`` reads
them, are :func:`netmcl.read_abc`'s ``neg_log=`` and ``transform=``:

>>> import io
>>> hits = io.BytesIO(b"p1 p2 1e-180\\np2 p3 3e-20\\np3 p4 0.9\\n")
>>> g = netmcl.read_abc(hits, neg_log="log10", transform="ceil(100)")
>>> [float(w) for w in g.csc.data[:3]]
[100.0, 100.0, 19.522878646850586]
"""

import math
import re

import numpy as np

from .exceptions import ParameterError
from .sparse import CscMatrix, indptr_of

__all__ = ["Transform", "parse_transform", "neg_log", "FLT_MAX", "EDGE_FUNCTIONS", "GRAPH_FUNCTIONS"]

FLT_MAX = float(np.finfo(np.float32).max)

#: edge functions: name -> whether the argument may be left out (``log()``: base e)
EDGE_FUNCTIONS = {
    "gt": False, "gq": False, "lt": False, "lq": False, "ceil": False, "floor": False,
    "mul": False, "add": False, "scale": False, "pow": False,
    "exp": True, "log": True, "neglog": True, "abs": True, "acos": True,
}
#: graph-wide functions: name -> whether they need an argument
GRAPH_FUNCTIONS = {
    "#knn": True, "#knnj": True, "#ceilnb": True, "#step": True,
    "#mcl": True, "#symmcl": True, "#ils": False,
    "#add": False, "#max": False, "#min": False, "#mul": False,
    "#rev": False, "#tp": False, "#selfrm": False, "#selfmax": False, "#arcmax": False, "#arcsub": False,
}
#: mcl's functions netmcl refuses, and why
NOT_PROVIDED = {
    "rand": "it draws random numbers, which cannot be repeated bit for bit",
    "#shrug": "it draws random numbers, which cannot be repeated bit for bit",
    "#tug": "its weights are not reproduced yet",
    "#thread": "mcl 22-282 does not accept it either",
}

_ITEM = re.compile(r"\s*(#?[A-Za-z_][A-Za-z0-9_]*)\s*\(([^()]*)\)\s*")
_NUMBER = re.compile(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*")


def parse_transform(spec):
    """The steps of a transform specification: a tuple of ``(name, arg)``,
    `arg` a float (the float32 mcl reads) or None where none was given.

    Raises
    ------
    ParameterError
        Naming the offending part of `spec`.

    Examples
    --------
    >>> parse_transform("gq(0.5), #knn(3)")
    (('gq', 0.5), ('#knn', 3.0))
    >>> parse_transform("gq(0.5);mul(2)")
    Traceback (most recent call last):
    ...
    netmcl.exceptions.ParameterError: transform 'gq(0.5);mul(2)': cannot read ';mul(2)' (expected name(number), separated by commas).
    """
    if not isinstance(spec, str):
        raise ParameterError(f"A transform is a string such as 'gq(0.5),mul(2)'. Got {spec!r} instead.")
    steps, at = [], 0
    while True:
        m = _ITEM.match(spec, at)
        if m is None:
            rest = spec[at:].strip() or spec
            raise ParameterError(f"transform {spec!r}: cannot read {rest!r} (expected name(number), "
                                 "separated by commas).")
        name, text = m.group(1), m.group(2)
        if name in NOT_PROVIDED:
            raise ParameterError(f"transform {spec!r}: netmcl does not provide mcl's {name}(): {NOT_PROVIDED[name]}.")
        optional = EDGE_FUNCTIONS.get(name, None)
        if optional is None:
            optional = not GRAPH_FUNCTIONS[name] if name in GRAPH_FUNCTIONS else None
        if optional is None:
            known = ", ".join(list(EDGE_FUNCTIONS) + list(GRAPH_FUNCTIONS))
            raise ParameterError(f"transform {spec!r}: unknown function {name!r} (known: {known}).")
        if text.strip():
            if not _NUMBER.fullmatch(text):
                raise ParameterError(f"transform {spec!r}: the argument of {name}() must be a number. Got {text!r}.")
            arg = float(np.float32(float(text)))
        elif optional:
            arg = None
        else:
            raise ParameterError(f"transform {spec!r}: {name}() needs an argument, e.g. {name}(2).")
        if name in ("#knn", "#knnj", "#ceilnb", "#step") and not (arg >= 0 and arg == int(arg)):
            raise ParameterError(f"transform {spec!r}: the argument of {name}() must be a whole number >= 0. "
                                 f"Got {text.strip()!r}.")
        steps.append((name, arg))
        at = m.end()
        if at == len(spec):
            return tuple(steps)
        if spec[at] != ",":
            raise ParameterError(f"transform {spec!r}: cannot read {spec[at:]!r} (expected name(number), "
                                 "separated by commas).")
        at += 1


def _log_base(arg):
    return None if arg is None or arg == 0 else math.log(arg)


def _edge(name, arg, v):
    """One edge function on float32 values `v`: the new float32 values (0: removed)."""
    x = v.astype(np.float64)
    a = arg
    with np.errstate(all="ignore"):
        if name == "gt":
            out = np.where(x > a, x, 0.0)
        elif name == "gq":
            out = np.where(x >= a, x, 0.0)
        elif name == "lt":
            out = np.where(x < a, x, 0.0)
        elif name == "lq":
            out = np.where(x <= a, x, 0.0)
        elif name == "ceil":
            out = np.where(x > a, a, x)
        elif name == "floor":
            out = np.where(x < a, a, x)
        elif name == "mul":
            out = x * a
        elif name == "add":
            out = x + a
        elif name == "scale":
            out = x / a
        elif name == "pow":
            out = np.power(x, a)
        elif name == "exp":
            out = np.exp(x) if a is None or a == 0 else np.power(a, x)
        elif name in ("log", "neglog"):
            base = _log_base(a)
            out = np.log(x) if base is None else np.log(x) / base
            out[x == 0] = -FLT_MAX  # mcl's log of 0 (not divided by the base's log)
            out[x < 0] = 0.0  # mcl's log of a negative weight: 0, which a later function may change
            if name == "neglog":
                out = -out
        elif name == "abs":
            out = np.abs(x)
        elif name == "acos":
            out = np.arccos(np.clip(x, -1, 1))  # as mcl: pi below -1, 0 above 1
        else:  # pragma: no cover - parse_transform admits only the names above
            raise AssertionError(name)
        return out.astype(np.float32)


#: the filters: a weight one of them removes is gone, whatever the functions after it do
FILTERS = ("gt", "gq", "lt", "lq")


def _chain(steps, v):
    """Edge functions `steps` on float32 weights `v`, as mcl applies them to each weight: a
    filter that fails removes the weight (the functions after it are not applied), while a
    weight that arithmetic makes 0 goes on through the functions after it (``add(-1),add(1)``
    keeps a weight of 1).  A weight that is 0 at the end is removed (0 is returned)."""
    removed = np.zeros(v.shape, dtype=bool)
    for name, arg in steps:
        out = _edge(name, arg, v)
        if name in FILTERS:
            removed |= out == 0
        else:
            v = out
    return np.where(removed, np.float32(0), v).astype(np.float32)


def _triples(m):
    """(rows, cols, values) of a CscMatrix, int64 ids."""
    return m.indices.astype(np.int64), m.columns().astype(np.int64), m.data


def _csc(rows, cols, vals, n):
    """CscMatrix of arcs with distinct (row, col), zeros dropped, rows sorted per column."""
    keep = vals != 0
    rows, cols, vals = rows[keep], cols[keep], vals[keep]
    order = np.lexsort((rows, cols))
    rows, cols, vals = rows[order], cols[order], vals[order]
    return CscMatrix(indptr_of(cols, n), rows.astype(np.int32), vals.astype(np.float32), n)


def _mirror(rows, cols, n):
    """For each arc (row, col) the position of the arc (col, row), -1 where there is none
    (arcs sorted by column, then row)."""
    keys = cols * n + rows
    want = rows * n + cols
    at = np.searchsorted(keys, want)
    at = np.minimum(at, max(keys.size - 1, 0))
    found = keys.size > 0
    return np.where(found & (keys[at] == want) if keys.size else np.zeros(0, bool), at, -1)


def _combine(m, name):
    """#add, #max, #min, #mul: the arcs i->j and j->i made one edge (a missing arc counts 0)."""
    n = m.shape[0]
    rows, cols, vals = _triples(m)
    r = np.concatenate([rows, cols])
    c = np.concatenate([cols, rows])
    v = np.concatenate([vals, vals]).astype(np.float64)
    key = c * n + r
    order = np.lexsort((r, c))
    key, v = key[order], v[order]
    first = np.ones(key.size, bool)
    first[1:] = key[1:] != key[:-1]
    starts = np.flatnonzero(first)
    count = np.diff(np.append(starts, key.size))
    # an arc and its mirror give two values per pair; a loop gives its own value twice
    a = v[starts]
    b = np.where(count > 1, v[np.minimum(starts + 1, key.size - 1)], 0.0)
    if name == "#add":
        out = a + b
    elif name == "#max":
        out = np.maximum(a, b)
    elif name == "#min":
        out = np.minimum(a, b)
    else:
        out = a * b
    k = key[starts]
    return _csc(k % n, k // n, out.astype(np.float32), n)


def _transpose(m):
    rows, cols, vals = _triples(m)
    return _csc(cols, rows, vals, m.shape[0])


def _column_bar(m, k):
    """Per column, the (k+1)-th largest value (-inf where a column has at most k entries)."""
    n = m.shape[0]
    cols = m.columns().astype(np.int64)
    counts = np.diff(m.indptr)
    order = np.lexsort((-m.data.astype(np.float64), cols))
    bar = np.full(n, -np.inf)
    long = np.flatnonzero(counts > k)
    bar[long] = m.data[order[m.indptr[long] + k]]
    return bar


def _knn(m, k):
    """#knn(k): an entry stays where it is above the (k+1)-th largest value of its column and
    its mirror is above that of its own column (ties at the bar are cut)."""
    n = m.shape[0]
    rows, cols, vals = _triples(m)
    chosen = vals > _column_bar(m, int(k))[cols]
    mirror = _mirror(rows, cols, n)
    keep = chosen & (mirror >= 0) & chosen[np.maximum(mirror, 0)]
    return _csc(rows[keep], cols[keep], vals[keep], n)


def _knnj(m, k):
    """#knnj(k): the entries above the (k+1)-th largest value of their column, each made an
    edge both ways, of the larger value where both ways were chosen."""
    rows, cols, vals = _triples(m)
    chosen = vals > _column_bar(m, int(k))[cols]
    return _combine(_csc(rows[chosen], cols[chosen], vals[chosen], m.shape[0]), "#max")


def _step(m, k):
    """#step(k): the graph squared k times (paths of 2**k steps), each square's sums of
    products in double stored as float32."""
    import scipy.sparse as sp

    n = m.shape[0]
    a = sp.csc_array((m.data.astype(np.float64), m.indices, m.indptr), shape=(n, n))
    for _ in range(int(k)):
        a = (a @ a).tocsc()
        a.data = a.data.astype(np.float32).astype(np.float64)
    a.sort_indices()
    return _csc(a.indices.astype(np.int64), np.repeat(np.arange(n), np.diff(a.indptr)), a.data.astype(np.float32), n)


def _within_clusters(m, inflation, symmetric, cluster):
    """#mcl(I) and #symmcl(I): the graph's arcs inside the clusters MCL finds at inflation I
    (mcl's other defaults), on the graph itself or on the graph plus its transpose;
    ``cluster(matrix, I)`` runs MCL (:func:`netmcl.mcl.clusters_at`)."""
    if cluster is None:
        raise ParameterError("transform: #mcl() and #symmcl() run MCL on the graph; apply the transform through "
                             "netmcl.mcl (transform=) or give Transform.matrix a cluster= function.")
    clusters = cluster(_combine(m, "#add") if symmetric else m, float(inflation))
    member = np.full(m.shape[0], -1, dtype=np.int64)
    for k, c in enumerate(clusters):
        member[c] = k
    rows, cols, vals = _triples(m)
    keep = member[rows] == member[cols]
    return _csc(rows[keep], cols[keep], vals[keep], m.shape[0])


def _ils(m):
    """#ils(): each edge's weight raised to its inverted log-weighted similarity, the sum over
    the two nodes' common neighbours z of 1 / log2(degree of z) (loops neither counted nor
    kept); an undirected graph only."""
    import scipy.sparse as sp

    n = m.shape[0]
    rows, cols, vals = _triples(m)
    off = rows != cols
    rows, cols, vals = rows[off], cols[off], vals[off]
    if _mirror(rows, cols, n).min(initial=0) < 0:
        raise ParameterError("transform: #ils() needs an undirected graph (every arc's reverse present); "
                             "make it one first, e.g. with #max().")
    degree = np.bincount(cols, minlength=n).astype(np.float64)
    with np.errstate(divide="ignore"):
        weight = np.where(degree > 1, 1.0 / np.log2(np.maximum(degree, 1)), 0.0)
    a = sp.csc_array((np.ones(rows.size), (rows, cols)), shape=(n, n))
    shared = (a @ sp.diags_array(weight) @ a).tocsr()
    common = np.asarray(shared[rows, cols]).ravel()
    return _csc(rows, cols, np.maximum(vals.astype(np.float64), common).astype(np.float32), n)


def _ceilnb(m, k):
    """#ceilnb(k): nodes in order of decreasing degree (then index); a node with more than k
    edges left loses those not above its (k+1)-th largest weight, in both directions."""
    k = int(k)
    n = m.shape[0]
    rows, cols, vals = _triples(m)
    mirror = _mirror(rows, cols, n)
    alive = np.ones(rows.size, bool)
    counts = np.diff(m.indptr)
    for j in np.lexsort((np.arange(n), -counts)).tolist():
        if counts[j] <= k:
            break
        lo, hi = int(m.indptr[j]), int(m.indptr[j + 1])
        here = np.flatnonzero(alive[lo:hi]) + lo
        if here.size <= k:
            continue
        bar = np.sort(vals[here])[::-1][k]
        cut = here[vals[here] <= bar]
        alive[cut] = False
        back = mirror[cut]
        alive[back[back >= 0]] = False
    return _csc(rows[alive], cols[alive], vals[alive], n)


def _arcmax(m):
    rows, cols, vals = _triples(m)
    mirror = _mirror(rows, cols, m.shape[0])
    other = np.where(mirror >= 0, vals[np.maximum(mirror, 0)], -np.inf)
    keep = (mirror < 0) | (vals >= other)
    return _csc(rows[keep], cols[keep], vals[keep], m.shape[0])


def _arcsub(m):
    n = m.shape[0]
    rows, cols, vals = _triples(m)
    r = np.concatenate([rows, cols])
    c = np.concatenate([cols, rows])
    v = np.concatenate([vals.astype(np.float64), -vals.astype(np.float64)])
    key = c * n + r
    uniq, inv = np.unique(key, return_inverse=True)
    out = np.zeros(uniq.size)
    np.add.at(out, inv, v)
    return _csc(uniq % n, uniq // n, out.astype(np.float32), n)


def _graph(name, arg, m, cluster):
    if name in ("#knn", "#knnj", "#ceilnb") and m.nnz and m.data.min() < 0:
        raise ParameterError(f"transform: {name}() ranks weights, and the graph has negative ones here "
                             f"(the smallest is {float(m.data.min()):g}); remove them first, e.g. with gq(0).")
    if name == "#knn":
        return _knn(m, arg)
    if name == "#knnj":
        return _knnj(m, arg)
    if name == "#step":
        return _step(m, arg)
    if name == "#ils":
        return _ils(m)
    if name in ("#mcl", "#symmcl"):
        return _within_clusters(m, arg, name == "#symmcl", cluster)
    if name == "#ceilnb":
        return _ceilnb(m, arg)
    if name in ("#add", "#max", "#min", "#mul"):
        return _combine(m, name)
    if name in ("#rev", "#tp"):
        return _transpose(m)
    rows, cols, vals = _triples(m)
    if name == "#selfrm":
        keep = rows != cols
        return _csc(rows[keep], cols[keep], vals[keep], m.shape[0])
    if name == "#selfmax":
        return m.with_max_loops()
    if name == "#arcmax":
        return _arcmax(m)
    if name == "#arcsub":
        return _arcsub(m)
    raise AssertionError(name)  # pragma: no cover


class Transform:
    """A parsed transform specification (mcl's ``-tf`` / ``-abc-tf`` language).

    Parameters
    ----------
    spec : str
        Functions separated by commas, e.g. ``"gq(0.5),neglog(10),#knn(20)"``
        (see :mod:`netmcl.transforms` for the list).

    Raises
    ------
    ParameterError
        Naming the part of `spec` that is wrong.

    Examples
    --------
    >>> import numpy as np
    >>> tf = Transform("gq(0.5),mul(2)")
    >>> tf.values(np.array([0.25, 0.5, 3.0], dtype=np.float32)).tolist()
    [0.0, 1.0, 6.0]
    >>> Transform("gq(0.5),cell(2)")
    Traceback (most recent call last):
    ...
    netmcl.exceptions.ParameterError: transform 'gq(0.5),cell(2)': unknown function 'cell' ...
    """

    def __init__(self, spec):
        self.spec = spec
        self.steps = parse_transform(spec)

    @property
    def graph_wide(self):
        """Whether a step acts on the graph as a whole (a ``#`` function)."""
        return any(name.startswith("#") for name, _ in self.steps)

    def values(self, values):
        """The edge functions applied to float32 `values` (each value on its own; 0: removed).

        A value a filter (``gt gq lt lq``) removes stays 0 whatever the steps
        after it do; a value arithmetic makes 0 goes on (mcl's order).
        Raises :class:`ParameterError` when the specification has a ``#``
        function (which needs the whole graph: use :meth:`matrix`).
        """
        if self.graph_wide:
            graph = [name for name, _ in self.steps if name.startswith("#")]
            raise ParameterError(f"transform {self.spec!r}: {graph[0]}() acts on the whole graph; a stream transform "
                                 "(-abc-tf) takes edge functions only: give it as -tf (transform=) instead.")
        return _chain(self.steps, np.ascontiguousarray(values, dtype=np.float32))

    def matrix(self, matrix, cluster=None):
        """The transform applied to a :class:`~netmcl.sparse.CscMatrix` (a new one; rows sorted).

        `cluster(matrix, inflation)`, the node indices of each cluster MCL
        finds (:func:`netmcl.mcl.clusters_at`), serves ``#mcl`` and
        ``#symmcl``; without it they are refused.

        Examples
        --------
        >>> from netmcl.sparse import CscMatrix
        >>> m = CscMatrix([0, 2, 4, 5], [1, 2, 0, 2, 0], [0.5, 3.0, 0.5, 1.0, 3.0], 3)
        >>> Transform("#knn(1)").matrix(m).toarray().tolist()
        [[0.0, 0.0, 3.0], [0.0, 0.0, 0.0], [3.0, 0.0, 0.0]]
        """
        m, run = matrix, []
        for step in self.steps + (("#", None),):  # a run of edge functions is one pass over the weights
            if not step[0].startswith("#"):
                run.append(step)
                continue
            if run:
                rows, cols, _ = _triples(m)
                m, run = _csc(rows, cols, _chain(run, m.data), m.shape[0]), []
            if step[0] != "#":
                m = _graph(*step, m, cluster)
        return m if m is not matrix else CscMatrix(m.indptr.copy(), m.indices.copy(), m.data.copy(), m.shape[0])

    def __repr__(self):
        return f"Transform({self.spec!r})"


def neg_log(values, base=None):
    """mcl's ``--abc-neg-log`` (`base` None) and ``--abc-neg-log10`` (`base` 10) on the
    weights as read (float64, before they are stored as float32): ``-log(v)`` (``/ln 10``),
    and for a weight of 0 the largest float32 (``/ln 10``), as float32.

    Examples
    --------
    >>> neg_log(np.array([1e-50, 0.5, 0.0]), base=10).tolist()
    [50.0, 0.3010300099849701, 1.477827475394262e+38]
    """
    x = np.asarray(values, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(x > 0, -np.log(np.where(x > 0, x, 1.0)), FLT_MAX)
    if base is not None:
        out = out / math.log(base)
    return out.astype(np.float32)
