"""The reference engine: mcl 22-282's arithmetic in plain NumPy, written to be read.

This engine is the oracle of the arithmetic contract stated in
:mod:`netmcl.engines` (and in ``mcl-spec.md`` d.4 and d.9 of the design notes).
Every other engine must produce iterands bit-identical to this one's on the
test graphs.  It is slow (Python loops over the columns, and a dense copy of
the iterand); it is meant for graphs of a few hundred nodes and for reading.

The contract, step by step
--------------------------
An iterand ``M`` is column-stochastic, stored as float32 in compressed sparse
columns with ascending rows.  One iteration turns it into the next one:

1. **Expansion** (:func:`expand`).  Column ``j`` of ``E = M @ M`` is
   ``sum over k of M[k, j] * M[:, k]``, the ``k`` taken in ascending order
   (the rows of column ``j``), each sum accumulated in float64 from 0.0.
   mcl computes a column one of two ways, depending on its work ``flops_j``,
   the summed lengths of the columns ``k`` that it reads:

   * ``10 * flops_j >= n_rule``, the *dense path*: every product
     ``M[i, k] * M[k, j]`` is a float32 multiply (rounded to float32), then
     added in float64; a sum that is exactly 0.0 is no entry.
   * otherwise the *sparse path*: products are exact in float64, and every
     row reached is an entry, even one whose sum rounds to a float32 zero.

   ``n_rule`` is the node count of the whole graph, also when the engine
   holds one group of its components.  Sums are rounded to float32 once.
   :func:`expand` adds the outer products of column ``k`` and row ``k`` for
   ``k = 0, 1, 2, ...``, so each sum receives its terms in ascending ``k``.
2. **Measure** (:func:`prune_column`).  Before pruning: ``maxval`` (the
   largest value, at least 0.0) and ``center = sum(v * v)``, in float64,
   added in row order (:func:`sequential_sum`).
3. **Cutoff**: entries ``>= cutoff`` (compared in float64) are kept, their
   count ``n_prune`` and mass (float64, row order) ``mass_prune``.
4. **Branches**, in mcl's order (:func:`prune_column`):

   * ``recover == 0`` and nothing kept: the column becomes ``{j: 1.0}``
     (mcl's "emergency" loop);
   * else *recovery* when ``recover > 0``, ``n_prune < recover`` and
     ``mass_prune < pct``: from the whole expanded column, keep entries ``>=``
     the ``(recover - n_prune)``-th largest value below the cutoff
     (:func:`kth_largest`, multiplicity counted), or every entry where the
     column has at most ``recover``;
   * else *selection* when ``select > 0`` and more than ``select`` survived
     the cutoff: keep the survivors ``>=`` their ``select``-th largest value
     (ties all kept); then, if that left fewer than ``recover`` entries of
     mass below ``pct``, *recovery after selection* from the survivors of
     the cutoff: keep those ``>=`` the ``(recover - n_sel)``-th largest value
     below the selection's bar (or all of them where at most ``recover``
     survived the cutoff).

   Each branch's mass is summed again over the entries it keeps, in row order.
5. **Rescale**: ``v = float32(float64(v) / mass)`` with the final mass (not
   for the emergency loop, whose mass is 0).
6. **Chaos**: ``float32((maxval - center) * kept)`` per column (mcl keeps it as
   a float); the iteration's chaos is the largest.
7. **Inflation** (:func:`inflate_columns`): ``p = float32(pow(float64(v), I))``
   (C's ``pow``, :func:`c_pow`), ``s = sum(p)`` in float64 in row order,
   ``v = float32(float64(p) / s)``; a column with ``s <= 0`` is emptied
   (the engine drops its entries, and counts it if it had any).

The start matrix is made column-stochastic by :func:`normalize_columns`
(``mclxMakeStochastic``); ``-pi`` inflates it first with
:func:`inflate_columns`.  Both work on a whole matrix at once and are fast
enough for large ones (a few seconds for 20 million entries).

NumPy's ``np.sum``, ``add.reduce`` and ``add.reduceat`` add in pairs (pairwise
summation), which rounds differently from mcl's one-after-the-other sums:
none of them is used for a floating-point sum here.  ``np.cumsum`` adds one
after the other, and so does adding the ``p``-th values of many columns to
their running sums at once (:func:`column_sums`).  Comparisons are made
between float64 arrays: NumPy 2 compares a float32 array with a Python float
in float32.  All values are non-negative (netmcl's readers refuse negative
weights).
"""

import math
import time
from typing import NamedTuple

import numpy as np

from ..exceptions import ParameterError
from ..sparse import CscMatrix, c_pow, column_sums, inflate_columns, normalize_columns, sequential_sum
from . import Engine, IterationStats

__all__ = [
    "PrunedColumn",
    "ReferenceEngine",
    "c_pow",
    "column_flops",
    "column_sums",
    "expand",
    "inflate_columns",
    "kth_largest",
    "normalize_columns",
    "prune_column",
    "sequential_sum",
]

#: :func:`expand` updates the rectangle of sums spanned by the terms of one k
#: where it holds at most this many times as many sums as terms, else the
#: terms alone: a slice costs about a tenth of what a term indexed alone costs
SPARSE_RECTANGLE = 8
#: :func:`expand` accumulates at most about this many sums at once (an
#: ``n x columns`` float64 block): 32 MiB of memory against one pass over
#: k = 0 .. n-1 per block of columns
EXPAND_BLOCK = 1 << 22


def column_flops(indptr, indices):
    """Per column ``j``, its expansion work: the summed lengths of the columns it reads.

    Examples
    --------
    >>> column_flops([0, 2, 3], [0, 1, 1]).tolist()  # column 0 reads columns 0 and 1
    [3, 1]
    """
    indptr = np.asarray(indptr, dtype=np.int64)
    lengths = np.diff(indptr)
    reads = np.zeros(indptr[-1] + 1, dtype=np.int64)  # integers: any order of addition is exact
    np.cumsum(lengths[np.asarray(indices, dtype=np.int64)], out=reads[1:])
    return reads[indptr[1:]] - reads[indptr[:-1]]


def expand(indptr, indices, data, n_rule):
    """``E = M @ M`` with mcl's two product paths (the module's step 1).

    ``E[:, J] = sum over k of M[:, k] (outer) M[k, J]``, ``k`` ascending: the
    outer product of column ``k`` and row ``k`` adds one term to every sum
    ``E[i, j]`` that has a term of index ``k``, so each sum receives its
    terms in ascending ``k``, as mcl adds them.  ``J`` is a block of the
    columns that take one path: on the dense path each product is rounded to
    float32 (a float32 multiply), on the sparse path it is exact in float64.
    Only the rectangle spanned by column ``k``'s and row ``k``'s entries is
    updated (a term there without entries is an exact 0, and adding it
    changes no sum), or where that rectangle is mostly empty, the terms
    alone.  The matrix is held densely: small graphs only.

    Parameters
    ----------
    indptr, indices, data : numpy.ndarray
        The n x n iterand ``M`` in compressed sparse columns (int64, int,
        float32), rows ascending in every column.
    n_rule : int
        The node count in mcl's rule ``10 * flops_j >= n_rule`` for the dense path.

    Returns
    -------
    e_indptr, e_indices, e_data : numpy.ndarray
        ``E`` (int64, int64, float32), rows ascending in every column.
    dense : numpy.ndarray of bool
        Per column, whether it took the dense path.

    Examples
    --------
    >>> e = expand(np.array([0, 2, 4]), np.array([0, 1, 0, 1]), np.full(4, 0.5, dtype=np.float32), 2)
    >>> [a.tolist() for a in e]
    [[0, 2, 4], [0, 1, 0, 1], [0.5, 0.5, 0.5, 0.5], [True, True]]
    """
    indptr = np.asarray(indptr, dtype=np.int64)
    indices = np.asarray(indices, dtype=np.int64)
    data = np.asarray(data, dtype=np.float32)
    n = indptr.size - 1
    dense = 10 * column_flops(indptr, indices) >= n_rule
    columns = np.repeat(np.arange(n), np.diff(indptr))
    m = np.zeros((n, n), dtype=np.float32, order="F")  # M, its columns contiguous
    m[indices, columns] = data
    stored = np.zeros((n, n), dtype=bool)  # where M stores an entry (its value may be 0)
    stored[indices, columns] = True
    e_rows, e_values = [None] * n, [None] * n
    width = max(1, EXPAND_BLOCK // max(n, 1))  # columns expanded at once
    for on_dense_path in (True, False):
        path = np.flatnonzero(dense == on_dense_path)
        for block in np.split(path, np.arange(width, path.size, width)):
            sums = np.zeros((n, block.size))  # sums[i, b]: E[i, block[b]] so far, float64
            reached = np.zeros((n, block.size), dtype=bool)  # where a term was added (the sparse path)
            right = np.ascontiguousarray(m[:, block])  # right[k]: row k of M on the block
            right_stored = np.ascontiguousarray(stored[:, block])
            # the k with terms: column k has entries, and so has row k on the block
            for k in np.flatnonzero((np.diff(indptr) > 0) & right_stored.any(axis=1)).tolist():
                rows = indices[indptr[k] : indptr[k + 1]]  # column k's entries
                reads = np.flatnonzero(right_stored[k])  # the block's columns with a term of index k
                r, c = slice(rows[0], rows[-1] + 1), slice(reads[0], reads[-1] + 1)  # the rectangle
                at = (r, c)
                if (r.stop - r.start) * (c.stop - c.start) > SPARSE_RECTANGLE * rows.size * reads.size:
                    r, c, at = rows, reads, np.ix_(rows, reads)  # the terms alone
                if on_dense_path:
                    terms = np.multiply.outer(m[r, k], right[k, c]).astype(np.float64)  # float32 products
                else:
                    terms = np.multiply.outer(m[r, k].astype(np.float64), right[k, c].astype(np.float64))
                    reached[np.ix_(rows, reads)] = True
                sums[at] += terms
            # the dense path drops sums that are exactly zero; on the sparse path every row reached is an
            # entry, even where its sum is 0
            entries = sums != 0.0 if on_dense_path else reached
            for b, j in enumerate(block.tolist()):
                e_rows[j] = np.flatnonzero(entries[:, b])
                e_values[j] = sums[e_rows[j], b].astype(np.float32)
    e_indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum([r.size for r in e_rows], out=e_indptr[1:])
    e_rows = np.concatenate(e_rows + [np.empty(0, dtype=np.int64)])
    e_data = np.concatenate(e_values + [np.empty(0, dtype=np.float32)])
    return e_indptr, e_rows, e_data, dense


# ---------------------------------------------------------------------------
# one iteration: pruning a column


def kth_largest(values, k, below=math.inf):
    """The `k`-th largest of the `values` less than `below`, counted with multiplicity
    (mcl's ``mclvKBar`` with ``ignore=below``).

    Parameters
    ----------
    values : numpy.ndarray of float64
    k : int
        1 for the largest; at most the number of values below `below`.
    below : float

    Returns
    -------
    float

    Examples
    --------
    >>> kth_largest(np.array([0.5, 0.2, 0.5, 0.1]), 2)
    0.5
    >>> kth_largest(np.array([0.5, 0.2, 0.5, 0.1]), 1, below=0.5)
    0.2
    """
    candidates = np.sort(values[values < below])[::-1]
    return float(candidates[k - 1])


class PrunedColumn(NamedTuple):
    """One column after pruning and rescaling (:func:`prune_column`).

    Attributes
    ----------
    rows : numpy.ndarray of int64
        Ascending.
    values : numpy.ndarray of float32
    chaos : float
        ``float32((maxval - center) * kept)``.
    mass : float
        The kept mass before rescaling (0 for the emergency loop).
    branch : str
        "cutoff" (nothing more), "emergency", "recovered", "selected" or
        "recovered_after_select".
    """

    rows: np.ndarray
    values: np.ndarray
    chaos: float
    mass: float
    branch: str


def prune_column(j, rows, values, pruning):
    """Prune and rescale expanded column `j` as mcl does (the module's steps 2-6).

    Parameters
    ----------
    j : int
        The column's id (where the emergency loop goes).
    rows : numpy.ndarray of int
        The expanded column's rows, ascending.
    values : numpy.ndarray of float32
        Its values.
    pruning : Pruning
        ``cutoff`` (negative: none), ``select``, ``recover``, ``pct``.

    Returns
    -------
    PrunedColumn

    Examples
    --------
    >>> from netmcl.engines import Pruning
    >>> v = np.array([0.6, 0.3, 0.1], dtype=np.float32)
    >>> c = prune_column(0, np.arange(3), v, Pruning(cutoff=0.2, select=0, recover=0, pct=0.9))
    >>> c.rows.tolist(), c.values.tolist(), c.branch
    ([0, 1], [0.6666666865348816, 0.3333333432674408], 'cutoff')
    >>> prune_column(0, np.arange(3), v, Pruning(cutoff=0.2, select=0, recover=3, pct=0.95)).branch
    'recovered'
    """
    cut, select, recover, pct = pruning
    rows = np.asarray(rows, dtype=np.int64)
    x = np.asarray(values, dtype=np.float32).astype(np.float64)  # every comparison and sum in float64
    m = x.size
    # step 2: measured before any pruning
    maxval = max(0.0, float(x.max())) if m else 0.0
    center = sequential_sum(x * x)
    # step 3: the cutoff
    survive = x >= cut if cut >= 0.0 else np.ones(m, dtype=bool)
    n_prune = int(np.count_nonzero(survive))
    mass_prune = sequential_sum(x[survive])
    # step 4: the branches, in mcl's order
    if recover == 0 and n_prune == 0:
        return PrunedColumn(np.array([j], dtype=np.int64), np.ones(1, dtype=np.float32),
                            _chaos(maxval, center, 1), mass_prune, "emergency")
    if recover > 0 and n_prune < recover and mass_prune < pct:
        branch = "recovered"
        bar = kth_largest(x, recover - n_prune, below=cut if cut >= 0.0 else math.inf) if m > recover else 0.0
        keep = x >= bar  # from the whole expanded column
    else:
        branch = "cutoff"
        keep = survive
        if select > 0 and n_prune > select:
            branch = "selected"
            pv = x[survive]  # the post-cutoff vector
            sbar = kth_largest(pv, select)
            keep = survive & (x >= sbar)
            n_sel = int(np.count_nonzero(keep))
            if recover > 0 and n_sel < recover and sequential_sum(x[keep]) < pct:
                branch = "recovered_after_select"
                bar = kth_largest(pv, recover - n_sel, below=sbar) if n_prune > recover else 0.0
                keep = survive & (x >= bar)  # from the post-cutoff vector
    kept_rows, kept = rows[keep], x[keep]
    mass = sequential_sum(kept)
    # step 5: rescale
    if mass != 0.0:
        kept = kept / mass
    # step 6: the column's chaos
    return PrunedColumn(kept_rows, kept.astype(np.float32), _chaos(maxval, center, kept.size), mass, branch)


def _chaos(maxval, center, kept):
    """A column's chaos, rounded to float32 as mcl keeps it."""
    return float(np.float32((maxval - center) * kept))


# ---------------------------------------------------------------------------
# the engine


class ReferenceEngine(Engine):
    """Run MCL iterations in plain NumPy, following the module's steps.

    The oracle the other engines are tested against: slow, for small graphs.

    Parameters
    ----------
    threads, max_memory : optional
        Accepted as every engine's options, and ignored: the engine runs on
        one thread and makes no attempt to bound its memory.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from netmcl.engines import Pruning
    >>> start = CscMatrix.of(sp.csc_array(np.full((2, 2), 0.5, dtype=np.float32)))
    >>> engine = ReferenceEngine()
    >>> engine.load(start, n_rule=2)
    >>> stats = engine.iterate(2.0, Pruning(cutoff=1e-4, select=1100, recover=1400, pct=0.9))
    >>> stats.chaos, stats.kept, stats.dense_path
    (0.0, 4, 2)
    >>> engine.result().toarray().tolist()
    [[0.5, 0.5], [0.5, 0.5]]
    """

    name = "reference"
    threads = 1

    def __init__(self, threads=None, max_memory=None):
        self.n = 0
        self.n_rule = 0
        self._indptr = np.zeros(1, dtype=np.int64)
        self._indices = np.empty(0, dtype=np.int64)
        self._data = np.empty(0, dtype=np.float32)

    def load(self, matrix, *, n_rule=None):
        """Take the column-stochastic start matrix (copied).

        Parameters
        ----------
        matrix : CscMatrix or scipy sparse matrix
        n_rule : int, optional
            The node count of the dense-path rule; default the matrix's.
        """
        m = CscMatrix.of(matrix)
        self.n = m.shape[0]
        self.n_rule = self.n if n_rule is None else int(n_rule)
        self._indptr = m.indptr.astype(np.int64)
        self._indices = m.indices.astype(np.int64)
        self._data = m.data.astype(np.float32)

    def iterate(self, inflation, pruning):
        """Expand, prune, rescale and (unless `inflation` is None) inflate, in place.

        Returns
        -------
        IterationStats
        """
        t0 = time.perf_counter()
        if inflation is not None and not inflation > 0.0:
            raise ParameterError(f"The inflation of an iteration must be positive. Got {inflation!r} instead.")
        e_indptr, e_rows, e_data, dense = expand(self._indptr, self._indices, self._data, self.n_rule)
        stats = IterationStats(chaos=0.0, expanded=int(e_indptr[-1]),
                               dense_path=int(np.count_nonzero(dense)), min_mass=math.inf)
        chaos = -math.inf  # a column's chaos can be slightly negative
        columns = []
        for j in range(self.n):
            lo, hi = e_indptr[j], e_indptr[j + 1]
            column = prune_column(j, e_rows[lo:hi], e_data[lo:hi], pruning)
            columns.append(column)
            chaos = max(chaos, column.chaos)
            stats.min_mass = min(stats.min_mass, column.mass)
            stats.emergency += column.branch == "emergency"
            stats.recovered += column.branch == "recovered"
            # a column selected, then recovered, counts in both
            stats.selected += column.branch in ("selected", "recovered_after_select")
            stats.recovered_after_select += column.branch == "recovered_after_select"
        stats.chaos = chaos if self.n else 0.0
        self._store(columns)
        if inflation is not None:
            stats.emptied = self.inflate(inflation)
        stats.kept = int(self._indptr[-1])
        stats.seconds = time.perf_counter() - t0
        return stats

    def _store(self, columns):
        """Make the pruned columns the iterand."""
        indptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum([c.rows.size for c in columns], out=indptr[1:])
        self._indptr = indptr
        self._indices = np.concatenate([c.rows for c in columns] + [np.empty(0, dtype=np.int64)])
        self._data = np.concatenate([c.values for c in columns] + [np.empty(0, dtype=np.float32)])

    def inflate(self, inflation):
        """Inflate the iterand in place (:func:`inflate_columns`), dropping the
        entries of the columns emptied; return how many were emptied."""
        emptied = inflate_columns(self._indptr, self._data, inflation)
        emptied = emptied[np.diff(self._indptr)[emptied] > 0]  # a column without entries is not counted
        if emptied.size:
            lengths = np.diff(self._indptr)
            alive = np.ones(self.n, dtype=bool)
            alive[emptied] = False
            keep = np.repeat(alive, lengths)
            lengths[emptied] = 0
            np.cumsum(lengths, out=self._indptr[1:])
            self._indices, self._data = self._indices[keep], self._data[keep]
        return int(emptied.size)

    def result(self):
        """The iterand: int32 rows ascending in every column, float32 values (copies)."""
        return CscMatrix(self._indptr.copy(), self._indices.astype(np.int32), self._data.copy(), self.n)

    def spawn(self, *, threads, share):
        """A fresh reference engine for one group of components."""
        return ReferenceEngine()
