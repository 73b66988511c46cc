"""A label file's arcs merged into a matrix by the compiled kernels.

:meth:`netmcl.SparseGraph.from_edges` merges arcs with NumPy; a label file's
millions of arcs are merged here instead, in compiled code and without a copy
of every entry: the memory is the input and the merged entries.
"""

import numpy as np

from ..engines.cpu._buffers import Appender
from ..engines.cpu._compiled import for_rows
from ..sparse import CscMatrix

__all__ = ["merge_arcs"]


def merge_arcs(arcs, n, mirror=False):
    """CscMatrix from coordinates ``arcs = [rows, cols, vals]`` (and their
    mirrors), repeats merged by max; ids in 0..n-1 (uint16 rows and columns
    are taken as they are).  `arcs` is emptied once they are sorted.

    The entries are written in arrays trimmed to the merged ones without a
    copy (:class:`~netmcl.engines.cpu._buffers.Appender`).  Mirrored, each
    edge is merged once, as an entry of the upper triangle (8 bytes an arc
    given), and mirrored into the whole matrix once the input is freed.
    uint16 ids are merged as uint16 (6 bytes an entry); the matrix returned
    has int32 rows.

    Examples
    --------
    >>> m = merge_arcs([np.array([1, 1, 0]), np.array([0, 0, 1]), np.array([2.0, 3.0, 1.0])], 2)
    >>> m.indptr.tolist(), m.indices.tolist(), m.data.tolist()
    ([0, 1, 2], [1, 0], [3.0, 1.0])
    """
    ids = np.uint16 if arcs[0].dtype == arcs[1].dtype == np.uint16 else np.int32
    for i, dtype in enumerate((ids, ids, np.float32)):
        arcs[i] = np.ascontiguousarray(arcs[i], dtype=dtype)
    total = arcs[0].size
    indices, data = Appender(ids, total, total), Appender(np.float32, total, total)
    merge = for_rows("edge_max" if mirror else "csc_max", ids)
    indptr, count = merge(*arcs, int(n), indices.room(total), data.room(total))
    arcs.clear()
    if not mirror:
        return CscMatrix(indptr, indices.array(count).astype(np.int32), data.array(count), n)
    upper = indptr, indices.array(count), data.array(count)
    total = 2 * count
    indices, data = Appender(np.int32, total, total), Appender(np.float32, total, total)
    indptr = for_rows("mirror_edges", ids)(*upper, indices.room(total), data.room(total))
    del upper
    return CscMatrix(indptr, indices.array(int(indptr[-1])), data.array(int(indptr[-1])), n)
