"""The one internal graph type: integer node ids, float32 weights, labels.

The core and the engines work on :class:`SparseGraph` only; adapters convert
NetworkX graphs, igraph graphs, files and tables into it and map results back
through :attr:`SparseGraph.labels`.
"""

import numpy as np

from .sparse import CscMatrix, indptr_of
from .exceptions import ParameterError

__all__ = ["SparseGraph"]

#: arcs between nodes numbered below this may come with their ids in 2 bytes (uint16)
U16_NODES = 1 << 16


class LabelLines:
    """Labels given as one string, a label a line: a :class:`SparseGraph`
    splits it into its list of labels when they are first asked for.

    A label file's reader gives its labels this way: a list of str takes
    50-60 bytes a short label (1.3 MB for 20,000 of them), the string one a
    character, and a clustering run asks for the labels only once it is done.
    """

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text

    def __len__(self):
        return self.text.count("\n") + 1


class SparseGraph:
    """A weighted graph on nodes ``0 .. n-1`` stored as a CSC matrix.

    Column ``j`` holds the out-arcs of node ``j``: entry ``(i, j)`` is the
    weight of the arc ``j -> i``, the convention of mcl.  Weights are float32,
    as in mcl; row indices are sorted within each column and every stored
    entry is a distinct arc.

    Parameters
    ----------
    matrix : CscMatrix, scipy sparse matrix or array, shape (n, n)
        The weights.  Converted to CSC float32 with sorted indices; duplicate
        entries are merged by maximum.
    labels : sequence of hashable, optional
        The label of each node, in node-id order.  Default: ``range(n)``.

    Attributes
    ----------
    csc : CscMatrix
        The weights as the engines take them (no scipy needed).
    matrix : scipy.sparse.csc_array
        The same weights as a scipy array, made on first use.
    labels : list
        Node labels in id order.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> g = SparseGraph(sp.csc_array([[0, 1.0], [1.0, 0]]), labels=["a", "b"])
    >>> g.n, g.nnz, g.labels
    (2, 2, ['a', 'b'])
    """

    def __init__(self, matrix, labels=None):
        if isinstance(matrix, CscMatrix):  # a graph's rows are int32 (a CscMatrix may hold uint16 ones)
            m = matrix if matrix.indices.dtype == np.int32 else CscMatrix(
                matrix.indptr, matrix.indices.astype(np.int32), matrix.data, matrix.shape[0]
            )
        else:
            import scipy.sparse as sp

            given = sp.csc_array(matrix)
            if given.ndim != 2 or given.shape[0] != given.shape[1]:
                raise ParameterError(
                    f"A graph's weight matrix must be square. Got shape {given.shape} instead."
                )
            m = CscMatrix(given.indptr, given.indices, given.data, given.shape[0])
        if not m.is_canonical():
            m = _merge_max([m.indices, m.columns(), m.data], m.shape[0])
        self.csc = m
        self._scipy = None
        self._n = n = m.shape[0]
        self._labels = labels if isinstance(labels, LabelLines) else list(range(n) if labels is None else labels)
        if len(self._labels) != n:
            raise ParameterError(
                f"A graph with {n} nodes needs {n} labels. Got {len(self._labels)} instead."
            )

    @classmethod
    def from_edges(cls, sources, targets, weights=None, *, labels=None, n=None, symmetrize=True):
        """Build a graph from arcs given as integer node ids, as ``mcl --abc`` does.

        Each arc ``a -> b`` with a non-zero weight is added and, when
        `symmetrize` is true, mirrored ``b -> a``; repeated arcs keep the
        maximum weight.  Arcs of weight zero add nothing, but their nodes
        still exist (they are counted in `n`).

        Parameters
        ----------
        sources, targets : array_like of int
            The arcs' end points.
        weights : array_like of float, optional
            Arc weights; 1.0 for every arc when omitted.
        labels : sequence of hashable, optional
            Node labels in id order.
        n : int, optional
            Number of nodes; default ``len(labels)``, else one more than the
            largest id.
        symmetrize : bool, default True
            Mirror every arc (mcl's label-input rule).

        Returns
        -------
        SparseGraph

        Raises
        ------
        ParameterError
            For a weight that is negative, not finite or above float32's
            largest value (which would become infinity), naming the arc.

        Examples
        --------
        >>> g = SparseGraph.from_edges([0, 1, 1], [1, 0, 2], [0.5, 0.8, 0.0])
        >>> g.matrix.toarray().tolist()
        [[0.0, 0.800000011920929, 0.0], [0.800000011920929, 0.0, 0.0], [0.0, 0.0, 0.0]]
        """
        src, dst = _ids(sources), _ids(targets)
        if src.shape != dst.shape:
            raise ParameterError(
                f"sources and targets must have the same length. Got {src.size} and {dst.size} instead."
            )
        if weights is None:
            w = np.ones(src.size, dtype=np.float32)
        else:  # float32 weights (a reader's) as they are, others compared with 0 before they are rounded
            w = np.asarray(weights)
            w = (w if w.dtype == np.float32 else w.astype(np.float64, copy=False)).ravel()
        if w.shape != src.shape:
            raise ParameterError(
                f"weights must have one value per arc. Got {w.size} values for {src.size} arcs instead."
            )
        if n is None:
            n = len(labels) if labels is not None else (int(max(src.max(), dst.max())) + 1 if src.size else 0)
        if src.size and (min(src.min(), dst.min()) < 0 or max(src.max(), dst.max()) >= n):
            raise ParameterError(f"Node ids must lie in 0..{n - 1}.")
        _check_weights(src, dst, w, labels)
        arcs = [dst, src, w]
        del src, dst, w
        return cls._from_arcs(arcs, n, symmetrize, labels)

    @classmethod
    def _from_arcs(cls, arcs, n, symmetrize, labels, merge=None):
        """:meth:`from_edges` on checked arcs ``[targets, sources, weights]``, a
        list that is emptied once they are merged, so that arrays held only by
        it (a file reader's) are freed before the graph is built.  `merge`
        (default :func:`_merge_max`) turns them into a matrix."""
        keep = arcs[2] != 0
        if not keep.all():
            arcs[:] = [a[keep] for a in arcs]
        del keep
        return cls((merge or _merge_max)(arcs, n, mirror=symmetrize), labels=labels)

    @property
    def matrix(self):
        """The weights as a ``scipy.sparse.csc_array`` (made on first use; values shared with :attr:`csc`)."""
        if self._scipy is None:
            self._scipy = self.csc.to_scipy()
        return self._scipy

    @property
    def labels(self):
        """Node labels in id order (a list)."""
        if isinstance(self._labels, LabelLines):
            self._labels = self._labels.text.split("\n")
        return self._labels

    @property
    def n(self):
        """Number of nodes."""
        return self._n

    @property
    def nnz(self):
        """Number of stored arcs (an undirected edge counts twice, a loop once)."""
        return self.csc.nnz

    def _release_weights(self):
        """Free the weights; the labels and the node count stay.

        For the command line, whose graph is its own: once the start matrix
        is built, nothing after the clustering needs them (unless it plots or
        sends the graph to Cytoscape).
        """
        self.csc = self._scipy = None

    def is_symmetric(self):
        """Return True when every arc has a mirror arc of the same weight."""
        diff = self.matrix - self.matrix.T
        return diff.count_nonzero() == 0

    def __repr__(self):
        return f"<SparseGraph with {self.n} nodes and {self.nnz} arcs>"


#: the largest float32: weights are stored as float32, and a larger one would become infinity
FLT_MAX = float(np.finfo(np.float32).max)


def _check_weights(src, dst, w, labels):
    """Raise a ParameterError naming the first arc whose weight is negative, NaN,
    infinite or above float32's range."""
    if not w.size:
        return
    with np.errstate(invalid="ignore"):
        fine = np.isfinite(w).all() and w.min() >= 0 and w.max() <= FLT_MAX
    if fine:
        return
    with np.errstate(invalid="ignore"):
        k = int(np.flatnonzero(~(np.isfinite(w) & (w >= 0) & (w <= FLT_MAX)))[0])
    u, v = int(src[k]), int(dst[k])
    if labels is not None and not isinstance(labels, LabelLines):
        u, v = labels[u], labels[v]
    raise ParameterError(
        f"Edge weights must be finite, non-negative and at most {FLT_MAX:.4g}, the largest float32 "
        f"(mcl stores weights as float32). Got the edge ({u!r}, {v!r}, {float(w[k])!r}) (arc {k}) instead."
    )


def _ids(nodes):
    """Node ids as a flat integer array: int32 as given, anything else as int64."""
    ids = np.asarray(nodes)
    return (ids if ids.dtype == np.int32 else ids.astype(np.int64, copy=False)).ravel()


def _merge_max(arcs, n, mirror=False):
    """CscMatrix from coordinates ``arcs = [rows, cols, vals]`` (and their
    mirrors when `mirror`), repeats merged by maximum; ids in 0..n-1.  `arcs`
    is emptied once its arrays are no longer needed.

    Examples
    --------
    >>> m = _merge_max([np.array([1, 1, 0]), np.array([0, 0, 1]), np.array([2.0, 3.0, 1.0])], 2)
    >>> m.indptr.tolist(), m.indices.tolist(), m.data.tolist()
    ([0, 1, 2], [1, 0], [3.0, 1.0])
    """
    rows = np.asarray(arcs[0], dtype=np.int64)
    cols = np.asarray(arcs[1], dtype=np.int64)
    vals = np.asarray(arcs[2], dtype=np.float32)
    arcs.clear()
    if mirror:
        rows, cols = np.concatenate([rows, cols]), np.concatenate([cols, rows])
        vals = np.concatenate([vals, vals])
    key = cols * max(int(n), 1) + rows  # column-major position: one sort key
    order = np.argsort(key, kind="stable")
    key, vals = key[order], vals[order]
    del order, rows, cols
    first = np.ones(key.size, dtype=bool)
    np.not_equal(key[1:], key[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    data = np.maximum.reduceat(vals, starts) if starts.size else vals[:0]
    key = key[starts]
    cols = key // max(int(n), 1)
    return CscMatrix(indptr_of(cols, n), (key - cols * max(int(n), 1)).astype(np.int32), data, n)
