"""Numba kernels on a matrix's CSC arrays: components by union-find, and the CSC
form of coordinates with repeats merged by maximum."""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def root(parent, v):
    """The root of v's tree in the union-find forest `parent`, halving the path walked."""
    while parent[v] != v:
        parent[v] = parent[parent[v]]  # path halving
        v = parent[v]
    return v


@njit(cache=True, nogil=True)
def weak_labels(indptr, indices):
    """``(count, labels)``: the weakly connected components of a CSC pattern, numbered
    by their smallest node (see :func:`netmcl.components.weak_components`)."""
    n = indptr.size - 1
    parent = np.arange(n)
    for j in range(n):
        for p in range(indptr[j], indptr[j + 1]):
            a = root(parent, j)
            b = root(parent, indices[p])
            parent[max(a, b)] = min(a, b)  # every root is its component's smallest node
    labels = np.empty(n, dtype=np.int64)
    count = 0
    for v in range(n):
        r = root(parent, v)
        if r == v:
            labels[v] = count
            count += 1
        else:
            labels[v] = labels[r]
    return count, labels


@njit(cache=True)
def csc_max(rows, cols, vals, n, mirror):
    """CSC arrays of the entries (rows[t], cols[t]) -- and (cols[t], rows[t]) when `mirror` --
    with rows ascending in each column and repeated entries merged by maximum.

    A counting sort by column, then a sort of each column by row: the memory is
    the output plus one column, not a sort of every entry at once.
    """
    indptr = np.zeros(n + 1, dtype=np.int64)
    for t in range(rows.size):
        indptr[cols[t] + 1] += 1
        if mirror:
            indptr[rows[t] + 1] += 1
    for c in range(n):
        indptr[c + 1] += indptr[c]
    fill = indptr[:-1].copy()
    indices = np.empty(indptr[n], dtype=np.int32)
    data = np.empty(indptr[n], dtype=np.float32)
    for t in range(rows.size):
        c = cols[t]
        indices[fill[c]] = rows[t]
        data[fill[c]] = vals[t]
        fill[c] += 1
        if mirror:
            c = rows[t]
            indices[fill[c]] = cols[t]
            data[fill[c]] = vals[t]
            fill[c] += 1
    out = 0
    for c in range(n):
        lo, hi = indptr[c], indptr[c + 1]
        order = np.argsort(indices[lo:hi])
        seg_rows = indices[lo:hi][order]
        seg_vals = data[lo:hi][order]
        indptr[c] = out
        for t in range(seg_rows.size):
            if t > 0 and seg_rows[t] == seg_rows[t - 1]:
                data[out - 1] = max(data[out - 1], seg_vals[t])
            else:
                indices[out] = seg_rows[t]
                data[out] = seg_vals[t]
                out += 1
    indptr[n] = out
    if out == indices.size:  # no repeats: keep the arrays rather than copy them
        return indptr, indices, data
    return indptr, indices[:out].copy(), data[:out].copy()
