"""Numba kernels on a matrix's CSC arrays: components by union-find, principal
submatrices, and the CSC form of coordinates with repeats merged by maximum."""

import numpy as np
from numba import njit

from ._jit import SORT_STACK, leaf, sort_by_key


@leaf
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


@njit(cache=True, nogil=True)
def principal(indptr, indices, data, nodes):
    """CSC arrays ``(indptr, indices, data)`` of the submatrix on `nodes` (ascending
    ids): rows renumbered by their position in `nodes`, other rows dropped."""
    new_id = np.full(indptr.size - 1, -1, dtype=np.int32)
    for t in range(nodes.size):
        new_id[nodes[t]] = t
    sub_indptr = np.zeros(nodes.size + 1, dtype=np.int64)
    for t in range(nodes.size):
        kept = 0
        for p in range(indptr[nodes[t]], indptr[nodes[t] + 1]):
            kept += new_id[indices[p]] >= 0
        sub_indptr[t + 1] = sub_indptr[t] + kept
    sub_indices = np.empty(sub_indptr[-1], dtype=indices.dtype)  # a submatrix's rows fit the matrix's type
    sub_data = np.empty(sub_indptr[-1], dtype=np.float32)
    out = 0
    for t in range(nodes.size):
        for p in range(indptr[nodes[t]], indptr[nodes[t] + 1]):
            row = new_id[indices[p]]
            if row >= 0:
                sub_indices[out] = row
                sub_data[out] = data[p]
                out += 1
    return sub_indptr, sub_indices, sub_data


@njit(cache=True)
def csc_max(rows, cols, vals, n, indices, data):
    """CSC arrays of the entries (rows[t], cols[t]), with rows ascending in each
    column and repeated entries merged by maximum.

    `indices` and `data` receive the entries (room for all of them); returns
    ``(indptr, count)``, the merged entries being their first `count`.  A
    counting sort by column, then each column sorted by row in place: the
    memory is the output, not a sort of every entry at once.
    """
    indptr = _bucket(cols, rows, vals, n, indices, data, False)
    return indptr, _merge_columns(indptr, indices, data, np.empty(SORT_STACK, dtype=np.int64))


@njit(cache=True)
def edge_max(ends, others, vals, n, indices, data):
    """The edges {ends[t], others[t]} each once, merged by maximum: column a of
    the CSC arrays returned holds, ascending, the larger ends b >= a of the
    edges {a, b} (the upper triangle of the symmetric matrix).

    As :func:`csc_max`, whose arguments it takes; :func:`mirror_edges` makes
    the whole symmetric matrix.  An edge given both ways is one entry here, so
    a file that lists every edge twice (a STRING file, an all-against-all
    search) takes half the room before it is mirrored.
    """
    indptr = _bucket(ends, others, vals, n, indices, data, True)
    return indptr, _merge_columns(indptr, indices, data, np.empty(SORT_STACK, dtype=np.int64))


@njit(cache=True)
def _bucket(cols, rows, vals, n, indices, data, by_smaller):
    """Counting sort of the entries by column -- by their smaller end when
    `by_smaller` -- into `indices` (the other end) and `data`; returns the
    columns' starts."""
    indptr = np.zeros(n + 1, dtype=np.int64)
    for t in range(cols.size):
        indptr[(min(cols[t], rows[t]) if by_smaller else cols[t]) + 1] += 1
    for c in range(n):
        indptr[c + 1] += indptr[c]
    fill = indptr[:-1].copy()
    for t in range(cols.size):
        c, r = cols[t], rows[t]
        if by_smaller and r < c:
            c, r = r, c
        indices[fill[c]] = r
        data[fill[c]] = vals[t]
        fill[c] += 1
    return indptr


@njit(cache=True)
def mirror_edges(upper, others, vals, indices, data):
    """CSC arrays of the symmetric matrix whose upper triangle is ``(upper,
    others, vals)`` (:func:`edge_max`): `indices` and `data` receive its
    entries, rows ascending in each column (room for twice the edges); returns
    its ``indptr``.

    Column c takes row a < c from edge {a, c} while the edges of the smaller
    ends a are walked in order, then its own edges' larger ends: ascending
    without a sort.
    """
    n = upper.size - 1
    indptr = np.zeros(n + 1, dtype=np.int64)
    for a in range(n):
        for p in range(upper[a], upper[a + 1]):
            indptr[a + 1] += 1
            if others[p] != a:
                indptr[others[p] + 1] += 1
    for c in range(n):
        indptr[c + 1] += indptr[c]
    fill = indptr[:-1].copy()
    for a in range(n):
        for p in range(upper[a], upper[a + 1]):
            b = others[p]
            indices[fill[a]] = b
            data[fill[a]] = vals[p]
            fill[a] += 1
            if b != a:
                indices[fill[b]] = a
                data[fill[b]] = vals[p]
                fill[b] += 1
    return indptr


@leaf
def _merge_columns(indptr, indices, data, stack):
    """Sort each column of CSC arrays by row and merge repeated rows by maximum,
    in place; return the entry count left (`indptr` then points at them).
    `stack`: the sort's (``sort_by_key``)."""
    n = indptr.size - 1
    out = 0
    for c in range(n):
        lo, hi = indptr[c], indptr[c + 1]
        sort_by_key(indices, data, lo, hi, stack)
        indptr[c] = out
        for t in range(lo, hi):  # out <= t: the entries are moved down, never over one not read yet
            if out > indptr[c] and indices[t] == indices[out - 1]:
                data[out - 1] = max(data[out - 1], data[t])
            else:
                indices[out] = indices[t]
                data[out] = data[t]
                out += 1
    indptr[n] = out
    return out
