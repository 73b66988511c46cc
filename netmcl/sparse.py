"""netmcl's own square CSC matrix: the three arrays the kernels take, nothing more.

The whole path of a clustering run -- reading, the start matrix, the
iterations, the components and the interpretation -- works on
:class:`CscMatrix`, so the command line never imports scipy, whose import
would add to every process's start-up and memory.  :meth:`CscMatrix.to_scipy`
gives a scipy array where a user wants one.
"""

import math

import numpy as np

__all__ = [
    "CscMatrix", "c_pow", "column_sums", "start_of", "indptr_of", "inflate_columns", "normalize_columns", "sequential_sum", "spans",
    "weak_components",
]

#: :func:`sequential_sum` adds up to this many values in a Python loop, more
#: with ``np.cumsum`` (the same additions): a call to NumPy costs about as much
#: as a few dozen additions in Python
SHORT_SUM = 64
#: :func:`column_sums` adds the values of columns longer than this with one
#: ``np.cumsum`` each, the others position by position for all of them at
#: once: it bounds the position loop's Python iterations, at one call per
#: long column
LONG_COLUMN = 512


class CscMatrix:
    """A square sparse matrix in compressed sparse column form.

    Column ``j`` stores rows ``indices[indptr[j]:indptr[j + 1]]`` with values
    ``data[...]``.  The arrays are int64, int32 and float32, C-contiguous
    (converted only where they are not); rows given as uint16 stay uint16
    (a start matrix of at most 65,536 nodes: 6 bytes an entry instead of 8
    before the engine takes it).  Row order within a column is the caller's
    (netmcl keeps it sorted).

    Parameters
    ----------
    indptr, indices, data : array_like
        The column pointers (n + 1), row indices and values.
    n : int
        Number of rows and columns.

    Examples
    --------
    >>> m = CscMatrix([0, 1, 3], [1, 0, 1], [0.5, 1.0, 2.0], 2)
    >>> m.nnz, m.toarray().tolist()
    (3, [[0.0, 1.0], [0.5, 2.0]])
    """

    __slots__ = ("indptr", "indices", "data", "shape")

    def __init__(self, indptr, indices, data, n):
        self.indptr = np.ascontiguousarray(indptr, dtype=np.int64)
        rows = np.asarray(indices)
        self.indices = np.ascontiguousarray(rows, dtype=np.uint16 if rows.dtype == np.uint16 else np.int32)
        self.data = np.ascontiguousarray(data, dtype=np.float32)
        self.shape = (int(n), int(n))

    @classmethod
    def of(cls, matrix):
        """`matrix` itself if it is a CscMatrix, else a copy of a scipy matrix with sorted rows.

        Examples
        --------
        >>> import scipy.sparse as sp
        >>> CscMatrix.of(sp.csr_array([[0, 2.0], [1.0, 0]])).indices.tolist()
        [1, 0]
        """
        if isinstance(matrix, cls):
            return matrix
        import scipy.sparse as sp

        m = sp.csc_array(matrix)
        m.sort_indices()
        return cls(m.indptr, m.indices, m.data, m.shape[0])

    @property
    def nnz(self):
        """Number of stored entries."""
        return int(self.indptr[-1])

    def copy(self):
        """A copy that shares no array with this matrix."""
        return CscMatrix(self.indptr.copy(), self.indices.copy(), self.data.copy(), self.shape[0])

    def columns(self):
        """The column of every stored entry (int64), in storage order."""
        return np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))

    def is_canonical(self):
        """Whether rows strictly increase within every column (sorted, no repeats)."""
        if self.nnz < 2:
            return True
        rising = self.indices[1:] > self.indices[:-1]  # (not np.diff, which wraps around on uint16 rows)
        starts = self.indptr[1:-1]
        rising[starts[(starts > 0) & (starts < self.nnz)] - 1] = True  # a new column may start lower
        return bool(rising.all())

    def principal(self, nodes):
        """The submatrix on `nodes` (sorted node ids), rows renumbered, other rows dropped.

        Examples
        --------
        >>> m = CscMatrix([0, 2, 3, 4], [0, 2, 1, 0], [1.0, 2.0, 3.0, 4.0], 3)
        >>> m.principal([0, 2]).toarray().tolist()
        [[1.0, 4.0], [2.0, 0.0]]
        """
        nodes = np.ascontiguousarray(nodes, dtype=np.int64)
        new_id = np.full(self.shape[0], -1, dtype=np.int64)
        new_id[nodes] = np.arange(nodes.size)
        counts = self.indptr[nodes + 1] - self.indptr[nodes]
        at = spans(self.indptr[nodes], counts)
        rows = new_id[self.indices[at]]
        keep = rows >= 0
        cols = np.repeat(np.arange(nodes.size), counts)[keep]
        return CscMatrix(indptr_of(cols, nodes.size), rows[keep].astype(self.indices.dtype), self.data[at][keep], nodes.size)

    def with_max_loops(self):
        """This matrix with every loop replaced as mcl does by default: each
        column's by its largest other value, or 1 where it has none above
        zero.  Rows must be ascending in every column; they stay so.

        Examples
        --------
        >>> m = CscMatrix([0, 2, 3], [0, 1, 0], [9.0, 2.0, 3.0], 2).with_max_loops()
        >>> m.toarray().tolist()
        [[2.0, 3.0], [2.0, 3.0]]
        """
        n = self.shape[0]
        cols = self.columns()
        rows = self.indices.astype(np.int64)
        off = rows != cols
        rows, cols, vals = rows[off], cols[off], self.data[off]
        del off
        counts = np.bincount(cols, minlength=n)
        loop = np.zeros(n, dtype=np.float32)
        has = counts > 0
        starts = np.cumsum(counts) - counts
        if vals.size:
            loop[has] = np.maximum.reduceat(vals, starts[has])
        loop[~(loop > 0)] = 1.0  # no value above zero: a loop of 1
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts + 1, out=indptr[1:])
        below = np.bincount(cols[rows < cols], minlength=n)  # entries of each column above its diagonal
        out_rows = np.empty(indptr[-1], dtype=np.int32)
        out_vals = np.empty(indptr[-1], dtype=np.float32)
        at = indptr[cols] + (np.arange(rows.size) - starts[cols]) + (rows > cols)
        out_rows[at], out_vals[at] = rows, vals
        diag = indptr[:-1] + below
        out_rows[diag], out_vals[diag] = np.arange(n), loop
        return CscMatrix(indptr, out_rows, out_vals, n)

    def diagonal(self):
        """The diagonal as a float32 array (0 where nothing is stored)."""
        diag = np.zeros(self.shape[0], dtype=np.float32)
        cols = self.columns()
        on = self.indices == cols
        diag[cols[on]] = self.data[on]
        return diag

    def to_scipy(self):
        """The same matrix as a ``scipy.sparse.csc_array`` (scipy may copy the index arrays)."""
        import scipy.sparse as sp

        return sp.csc_array((self.data, self.indices, self.indptr), shape=self.shape)

    def toarray(self):
        """The dense float32 matrix."""
        out = np.zeros(self.shape, dtype=np.float32)
        out[self.indices, self.columns()] = self.data
        return out

    def __repr__(self):
        return f"<CscMatrix {self.shape[0]}x{self.shape[1]} with {self.nnz} stored entries>"


def spans(starts, counts):
    """The positions ``starts[i], ..., starts[i] + counts[i] - 1`` for every i, concatenated.

    Examples
    --------
    >>> spans([5, 0], [2, 3]).tolist()
    [5, 6, 0, 1, 2]
    """
    starts = np.asarray(starts, dtype=np.int64)
    counts = np.asarray(counts, dtype=np.int64)
    return np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))


def indptr_of(cols, n):
    """Column pointers (int64, n + 1) of entries listed column by column, given each one's column.

    Examples
    --------
    >>> indptr_of([0, 0, 2], 3).tolist()
    [0, 2, 2, 3]
    """
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(np.asarray(cols, dtype=np.int64), minlength=n), out=indptr[1:])
    return indptr


def distinct(values, counts=False):
    """The distinct values of an integer array, ascending: ``np.unique(values)``
    without its check for masked arrays, which imports ``numpy.ma`` (a
    noticeable part of a small clustering run's time and memory); with
    ``counts=True`` also how often each occurs, as
    ``np.unique(values, return_counts=True)``.

    Examples
    --------
    >>> distinct([3, 1, 3, 2, 1]).tolist()
    [1, 2, 3]
    >>> [a.tolist() for a in distinct([3, 1, 3, 2, 1], counts=True)]
    [[1, 2, 3], [2, 1, 2]]
    """
    values = np.sort(np.asarray(values).ravel())
    keep = np.empty(values.size, dtype=bool)
    keep[:1] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    if not counts:
        return values[keep]
    starts = np.flatnonzero(keep)
    return values[starts], np.diff(starts, append=values.size)


def sequential_sum(values):
    """The float64 sum of `values` added one after the other, from 0.0.

    mcl's sums run over a column's entries in row order; ``np.sum`` would
    add them in pairs and round differently.

    Parameters
    ----------
    values : array_like
        Converted to float64 (exactly, from float32).

    Returns
    -------
    float

    Examples
    --------
    >>> x = [1.0, 1e-16, 1e-16]
    >>> sequential_sum(x) == (1.0 + 1e-16) + 1e-16
    True
    >>> sequential_sum([])
    0.0
    """
    values = np.asarray(values, dtype=np.float64)
    if values.size > SHORT_SUM:
        return float(np.cumsum(values)[-1])  # the same additions, faster on long arrays
    total = 0.0
    for v in values.tolist():
        total += v
    return total


def column_sums(indptr, values):
    """Per column, the float64 sum of its values in stored order, from 0.0.

    Every column's sum is :func:`sequential_sum` of its values.  Short
    columns are summed together: the values at position ``p`` of all columns
    longer than ``p`` are added to their running sums at once, for
    ``p = 0, 1, 2, ...``, so each sum still receives its terms one after
    the other; columns longer than ``LONG_COLUMN`` are summed one by one.

    Parameters
    ----------
    indptr : array_like of int
        Column pointers (n + 1).
    values : array_like
        The entries' values, column after column (converted to float64).

    Returns
    -------
    numpy.ndarray of float64, shape (n,)

    Examples
    --------
    >>> column_sums([0, 3, 3, 4], np.array([1.0, 1e-16, 1e-16, 2.0])).tolist()
    [1.0, 0.0, 2.0]
    """
    indptr = np.asarray(indptr, dtype=np.int64)
    values = np.asarray(values, dtype=np.float64)
    starts = indptr[:-1]
    lengths = np.diff(indptr)
    sums = np.zeros(lengths.size)
    for j in np.flatnonzero(lengths > LONG_COLUMN):
        sums[j] = sequential_sum(values[starts[j] : indptr[j + 1]])
    # the short columns, longest first: those longer than p are a prefix of `short`
    short = np.flatnonzero((lengths > 0) & (lengths <= LONG_COLUMN))
    short = short[np.argsort(-lengths[short], kind="stable")]
    longer_than = short.size - np.cumsum(np.bincount(lengths[short], minlength=1))  # [p]: columns of length > p
    running = np.zeros(short.size)  # the short columns' sums so far, in that order
    at = starts[short]  # where each short column's next value is
    for p in range(int(lengths[short[0]]) if short.size else 0):
        live = int(longer_than[p])
        running[:live] += values[at[:live]]
        at[:live] += 1
    sums[short] = running
    return sums


# ---------------------------------------------------------------------------
# the start matrix and inflation, on whole matrices


def c_pow(values, power):
    """``pow(float64(v), power)`` for every value, as C's ``pow`` computes it,
    to the bits that survive a rounding to float32.

    mcl calls the C library's ``pow``.  NumPy's ``np.power`` may take another
    route (a SIMD library on some processors, ``sqrt`` for a power of 0.5)
    whose last bits can differ from it; Python's :func:`math.pow` calls C's
    ``pow`` itself, but one value at a time.  Only the result's rounding to
    float32 is ever used, so ``np.power`` is taken wherever a change of its
    result by ``2**-48`` of itself (16 units in the last place; any ``pow`` is
    far more accurate than that) cannot move that rounding, and
    :func:`math.pow` wherever it could: about one value in ten million.
    A power of 2 is a multiplication: the square of a float32 is exact in
    float64, and so is C's ``pow`` of it.

    Parameters
    ----------
    values : array_like
        Non-negative values (converted to float64).
    power : float

    Returns
    -------
    numpy.ndarray of float64
        Equal to C's ``pow`` after a rounding to float32 (everywhere, for a
        power of 2).

    Examples
    --------
    >>> c_pow(np.array([0.5, 0.25], dtype=np.float32), 2.0).tolist()
    [0.25, 0.0625]
    >>> c_pow([1e300], 2.5).tolist()  # C's pow overflows to inf
    [inf]
    """
    x = np.asarray(values, dtype=np.float64)
    power = float(power)
    if power == 2.0:
        return x * x
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.power(x, power)
        low = (out * (1.0 - 2.0**-48)).astype(np.float32)
        high = (out * (1.0 + 2.0**-48)).astype(np.float32)
    near = np.flatnonzero(~(low == high))  # near a float32 rounding boundary, or nan
    out[near] = [_c_pow_one(v, power) for v in x[near].tolist()]
    return out


def _c_pow_one(x, power):
    """C's ``pow(x, power)`` for one value, where :func:`math.pow` may raise instead."""
    try:
        return math.pow(x, power)
    except OverflowError:
        return math.inf
    except ValueError:  # 0 to a negative power, or a negative base and a fractional power
        return math.inf if x == 0.0 else math.nan


def normalize_columns(indptr, data):
    """Make every column sum to one, in place (mcl's ``mclxMakeStochastic``).

    ``s`` is the column's float64 sum in row order (:func:`column_sums`);
    each value becomes ``float32(float64(v) / s)``.  A column summing to 0
    is left as it is.

    Parameters
    ----------
    indptr : array_like of int
        Column pointers (n + 1).
    data : numpy.ndarray of float32
        The values, changed in place.

    Returns
    -------
    None

    Examples
    --------
    >>> data = np.array([1.0, 3.0, 0.0, 2.0], dtype=np.float32)
    >>> normalize_columns([0, 2, 3, 4], data)
    >>> data.tolist()
    [0.25, 0.75, 0.0, 1.0]
    """
    sums = column_sums(indptr, data)
    sums[sums == 0.0] = 1.0  # a column summing to 0 is divided by 1: left as it is
    per_entry = np.repeat(sums, np.diff(np.asarray(indptr, dtype=np.int64)))
    with np.errstate(over="ignore", invalid="ignore"):  # as in C
        data[:] = data.astype(np.float64) / per_entry


def inflate_columns(indptr, data, power):
    """Inflate every column in place (mcl's ``mclvInflate``); return the columns emptied.

    Each value becomes ``p = float32(pow(float64(v), power))``
    (:func:`c_pow`); ``s`` is the column's float64 sum of the ``p`` in row
    order, and the values become ``float32(float64(p) / s)``.  A column with
    ``s <= 0`` is emptied: its values are set to 0 here, and the engines drop
    its entries.  A column without entries has ``s = 0``, and is listed too.

    Parameters
    ----------
    indptr : array_like of int
        Column pointers (n + 1).
    data : numpy.ndarray of float32
        The values, changed in place.
    power : float
        The inflation.

    Returns
    -------
    numpy.ndarray of int64
        The ids of the columns emptied, ascending.

    Examples
    --------
    >>> data = np.array([0.5, 0.25, 0.25, 0.0], dtype=np.float32)
    >>> inflate_columns([0, 3, 4], data, 2.0).tolist()
    [1]
    >>> data.tolist()
    [0.6666666865348816, 0.1666666716337204, 0.1666666716337204, 0.0]
    """
    indptr = np.asarray(indptr, dtype=np.int64)
    with np.errstate(over="ignore"):  # a power past float32's range is inf, as in C
        powers = c_pow(data, power).astype(np.float32)
    sums = column_sums(indptr, powers)
    emptied = sums <= 0.0
    with np.errstate(over="ignore", invalid="ignore"):  # inf / inf is nan, as in C
        data[:] = powers.astype(np.float64) / np.repeat(np.where(emptied, 1.0, sums), np.diff(indptr))
    if emptied.any():
        data[np.repeat(emptied, np.diff(indptr))] = 0.0
    return np.flatnonzero(emptied).astype(np.int64)


# ---------------------------------------------------------------------------
# one iteration: expansion


def start_of(matrix, *, discard_loops=True, loop_gain=None, preinflation=None, with_max_loops=None,
             inflate=inflate_columns, normalize=normalize_columns):
    """mcl's start matrix of a graph's weights: in mcl's order, the loops
    replaced by each column's largest value (`discard_loops`), the loops
    multiplied by `loop_gain` (``-c``), one inflation by `preinflation`
    (``-pi``), and every column made stochastic.  The graph's arrays are not
    changed.

    The steps are NumPy's (:meth:`CscMatrix.with_max_loops`,
    :func:`inflate_columns`, :func:`normalize_columns`) unless an engine
    passes its own `with_max_loops(matrix)`, `inflate(indptr, data, power)`
    and `normalize(indptr, data)`, which must give the same bits.

    Examples
    --------
    >>> m = CscMatrix([0, 1, 2], [1, 0], [0.5, 0.5], 2)
    >>> start_of(m).toarray().tolist()
    [[0.5, 0.5], [0.5, 0.5]]
    """
    if not discard_loops:
        m = matrix.copy()
    else:
        m = matrix.with_max_loops() if with_max_loops is None else with_max_loops(matrix)
    if loop_gain is not None:
        on = m.indices == m.columns()
        m.data[on] = (m.data[on].astype(np.float64) * loop_gain).astype(np.float32)
    if preinflation is not None:
        inflate(m.indptr, m.data, float(preinflation))
    normalize(m.indptr, m.data)
    return m


def weak_components(matrix):
    """The weakly connected components of a square sparse matrix's pattern.

    Every stored entry links its row and column, whatever its direction or
    value.  Components are numbered by their smallest node.  Each round
    hooks every node's root onto the smallest root among its neighbours',
    then shortens every path to its root; a round at least halves what is
    left to join.

    Parameters
    ----------
    matrix : CscMatrix, or scipy sparse matrix in CSC or CSR form

    Returns
    -------
    count : int
    labels : numpy.ndarray of int64
        The component of each node.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> m = sp.csc_array(([1.0, 1.0], ([3, 1], [0, 2])), shape=(5, 5))
    >>> count, labels = weak_components(m)
    >>> count, labels.tolist()
    (3, [0, 1, 1, 0, 2])
    """
    n = matrix.shape[0]
    indptr = np.asarray(matrix.indptr, dtype=np.int64)
    a = np.asarray(matrix.indices, dtype=np.int64)
    b = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    link = a != b
    a, b = a[link], b[link]
    root = np.arange(n, dtype=np.int64)
    while a.size:
        ra, rb = root[a], root[b]
        low = np.minimum(ra, rb)
        np.minimum.at(root, ra, low)
        np.minimum.at(root, rb, low)
        while True:  # every node to its root
            up = root[root]
            if np.array_equal(up, root):
                break
            root = up
        joined = root[a] != root[b]
        a, b = a[joined], b[joined]  # the links still between different trees
    first = root == np.arange(n)
    number = np.cumsum(first) - 1
    return int(first.sum()), number[root]
