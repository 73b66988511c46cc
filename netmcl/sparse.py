"""netmcl's own square CSC matrix: the three arrays the kernels take, nothing more.

The whole path of a clustering run -- reading, the start matrix, the
iterations, the components and the interpretation -- works on
:class:`CscMatrix`, so the command line never imports scipy (0.17 s and
22 MB of every process).  :meth:`CscMatrix.to_scipy` gives a scipy array
where a user wants one.
"""

import numpy as np

from ._buffers import Appender
from ._compiled import for_rows

__all__ = ["CscMatrix", "indptr_of", "spans"]


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
        principal = for_rows("principal", self.indices.dtype)
        return CscMatrix(*principal(self.indptr, self.indices, self.data, nodes), nodes.size)

    def with_max_loops(self, rows=np.int32):
        """This matrix, whose rows must be int32 (a graph's), with every loop
        replaced as mcl does by default: each column's by its largest other
        value, or 1 where it has none above zero; the rows of the result of
        type `rows` (int32, or uint16 on at most 65,536 nodes).

        Examples
        --------
        >>> m = CscMatrix([0, 2, 3], [0, 1, 0], [9.0, 2.0, 3.0], 2).with_max_loops(np.uint16)
        >>> m.indices.dtype, m.toarray().tolist()
        (dtype('uint16'), [[2.0, 3.0], [2.0, 3.0]])
        """
        n = self.shape[0]
        room = self.nnz + n  # every column may gain a loop
        indices, data = Appender(rows, room, room), Appender(np.float32, room, room)
        loops = for_rows("with_max_loops", rows)
        indptr, count = loops(self.indptr, self.indices, self.data, indices.room(room), data.room(room))
        return CscMatrix(indptr, indices.array(count), data.array(count), n)

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
    without its check for masked arrays, which imports ``numpy.ma`` (16 ms and
    1.3 MB, a tenth of a small clustering run); with ``counts=True`` also how
    often each occurs, as ``np.unique(values, return_counts=True)``.

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
