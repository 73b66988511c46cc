"""netmcl's own CSC matrix against scipy's on random matrices."""

import numpy as np
import pytest
import scipy.sparse as sp

from netmcl._csc import CscMatrix
from netmcl.graph import SparseGraph


def _random(rng, n, m, *, sorted_rows=True):
    """A scipy CSC matrix of about m entries; with unsorted rows and repeats when asked."""
    rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
    vals = rng.random(m).astype(np.float32) + np.float32(0.01)
    a = sp.csc_array((vals, (rows, cols)), shape=(n, n))
    if sorted_rows:
        return a
    order = np.lexsort((rng.random(m), cols))  # column order, rows shuffled, repeats kept
    counts = np.bincount(cols, minlength=n)
    return sp.csc_array((vals[order], rows[order], np.r_[0, np.cumsum(counts)]), shape=(n, n))


@pytest.fixture
def rng():
    return np.random.default_rng(11)


def test_principal_submatrix_matches_scipy_slicing(rng):
    for _ in range(200):
        n = int(rng.integers(1, 40))
        a = _random(rng, n, int(rng.integers(0, 120)))
        nodes = np.flatnonzero(rng.random(n) < 0.5)
        got = CscMatrix.of(a).principal(nodes)
        want = sp.csc_array(a[nodes][:, nodes])
        want.sort_indices()
        assert got.shape == want.shape
        assert np.array_equal(got.indptr, want.indptr) and np.array_equal(got.indices, want.indices)
        assert np.array_equal(got.data, want.data)


def test_canonical_form_diagonal_and_dense_match_scipy(rng):
    for _ in range(200):
        n, m = int(rng.integers(1, 30)), int(rng.integers(0, 90))
        a = _random(rng, n, m, sorted_rows=bool(rng.integers(0, 2)))
        mine = CscMatrix(a.indptr, a.indices, a.data, n)
        assert mine.is_canonical() == a.has_canonical_format
        if mine.is_canonical():
            assert np.array_equal(mine.diagonal(), a.diagonal())
            assert np.array_equal(mine.toarray(), a.toarray())
            assert (mine.to_scipy() != a).nnz == 0


def test_a_graph_from_unsorted_repeated_entries_keeps_the_maximum(rng):
    a = _random(rng, 30, 400, sorted_rows=False)
    graph = SparseGraph(CscMatrix(a.indptr, a.indices, a.data, 30))
    coo = a.tocoo()
    want = np.zeros((30, 30), dtype=np.float32)
    np.maximum.at(want, (coo.row, coo.col), coo.data)
    assert graph.csc.is_canonical() and np.array_equal(graph.csc.toarray(), want)
    assert np.array_equal(graph.matrix.toarray(), want)
