"""netmcl's own CSC matrix against scipy's on random matrices."""

import numpy as np
import pytest
import scipy.sparse as sp

from netmcl.sparse import CscMatrix
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


def _same_csc(a, b):
    return (a.shape == b.shape and np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
            and np.array_equal(a.data, b.data))


@pytest.mark.parametrize("mirror", [True, False])
def test_uint16_ids_merge_into_the_matrix_int32_ids_give(rng, mirror):
    """A label file's arcs come with uint16 ids on at most 65,536 nodes: merged in 2 bytes an id, the graph
    is the one int32 ids give, its rows int32."""
    from netmcl.graph import _merge_max

    for n, m in [(1, 3), (50, 400), (65536, 3000)]:
        rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
        vals = (rng.random(m) + 0.01).astype(np.float32)
        wide = _merge_max([rows.astype(np.int32), cols.astype(np.int32), vals], n, mirror=mirror)
        narrow = _merge_max([rows.astype(np.uint16), cols.astype(np.uint16), vals], n, mirror=mirror)
        assert narrow.indices.dtype == np.int32 and _same_csc(narrow, wide)


def test_uint16_rows_give_the_loops_submatrices_and_components_of_int32_rows(rng):
    """A start matrix of at most 65,536 nodes has uint16 rows: mcl's loops, the groups' submatrices and the
    components are those of int32 rows, and the rows stay uint16."""
    from netmcl.components import weak_components

    for _ in range(50):
        n = int(rng.integers(1, 60))
        m = CscMatrix.of(_random(rng, n, int(rng.integers(0, 2 * n))))  # some columns empty, some loops
        wide, narrow = m.with_max_loops(), m.with_max_loops(np.uint16)
        assert wide.indices.dtype == np.int32 and narrow.indices.dtype == np.uint16 and _same_csc(narrow, wide)
        assert np.all(np.diff(wide.indptr) >= 1)  # every column has its loop
        nodes = np.flatnonzero(rng.random(n) < 0.6)
        part = narrow.principal(nodes)
        assert part.indices.dtype == np.uint16 and _same_csc(part, wide.principal(nodes))
        (count, labels), (count16, labels16) = weak_components(wide), weak_components(narrow)
        assert count == count16 and np.array_equal(labels, labels16)


def test_uint16_rows_are_canonical_as_int32_rows_are():
    for rows, canonical in [([0, 2, 1], True), ([2, 1, 0], False), ([0, 0, 1], False)]:  # columns [0, 2], [1], []
        for dtype in (np.int32, np.uint16):
            assert CscMatrix([0, 2, 3, 3], np.array(rows, dtype=dtype), [1.0, 1.0, 1.0], 3).is_canonical() == canonical


def test_a_graph_given_uint16_rows_keeps_int32_rows_and_clusters():
    from netmcl.engines import get_engine
    from netmcl.mcl import cluster_graph
    from netmcl.params import MclParams

    rows = np.array([1, 0, 3, 2], dtype=np.uint16)
    graph = SparseGraph(CscMatrix([0, 1, 2, 3, 4], rows, [1.0, 1.0, 1.0, 1.0], 4))
    assert graph.csc.indices.dtype == np.int32
    assert list(cluster_graph(graph, MclParams(), get_engine("cpu"))) == [[0, 1], [2, 3]]
