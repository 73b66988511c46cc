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
def test_numpy_and_compiled_merges_give_the_same_matrix(rng, mirror):
    """SparseGraph.from_edges merges arcs with NumPy, a label file's reader with the compiled kernels (uint16
    ids on at most 65,536 nodes): the same matrix, its rows int32."""
    from netmcl.graph import _merge_max
    from netmcl.io._merge import merge_arcs

    for n, m in [(1, 3), (50, 400), (65536, 3000), (70000, 5000)]:
        rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
        vals = (rng.random(m) + 0.01).astype(np.float32)
        vals[1::7] = vals[::7][: vals[1::7].size]  # repeats of equal weight
        numpy_form = _merge_max([rows.astype(np.int32), cols.astype(np.int32), vals], n, mirror=mirror)
        assert numpy_form.indices.dtype == np.int32
        for ids in (np.int32, np.uint16) if n <= 65536 else (np.int32,):
            compiled = merge_arcs([rows.astype(ids), cols.astype(ids), vals], n, mirror=mirror)
            assert compiled.indices.dtype == np.int32 and _same_csc(numpy_form, compiled)


def test_loops_submatrices_and_components_equal_the_compiled_kernels(rng):
    """The core's NumPy forms of mcl's loops, of a group's submatrix and of the components give what the CPU
    engine's compiled kernels give, on random matrices with empty columns and loops."""
    from netmcl.engines.cpu._compiled import for_rows
    from netmcl.sparse import weak_components

    for _ in range(50):
        n = int(rng.integers(1, 60))
        m = CscMatrix.of(_random(rng, n, int(rng.integers(0, 2 * n))))  # some columns empty, some loops
        loops = m.with_max_loops()
        room = m.nnz + n
        idx, val = np.empty(room, dtype=np.int32), np.empty(room, dtype=np.float32)
        indptr, count = for_rows("with_max_loops", np.int32)(m.indptr, m.indices, m.data, idx, val)
        assert _same_csc(loops, CscMatrix(indptr, idx[:count], val[:count], n))
        assert np.all(np.diff(loops.indptr) >= 1)  # every column has its loop
        nodes = np.flatnonzero(rng.random(n) < 0.6)
        for rows in (np.int32, np.uint16):
            narrow = CscMatrix(loops.indptr, loops.indices.astype(rows), loops.data, n)
            part = narrow.principal(nodes)
            want = for_rows("principal", rows)(narrow.indptr, narrow.indices, narrow.data, nodes.astype(np.int64))
            assert part.indices.dtype == rows and _same_csc(part, CscMatrix(*want, nodes.size))
        count, labels = weak_components(loops)
        want_count, want_labels = for_rows("weak_labels", np.int32)(loops.indptr, loops.indices)
        assert count == want_count and np.array_equal(labels, want_labels)


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
