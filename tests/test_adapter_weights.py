"""In-memory graphs with weights beyond float32's range are refused, as the file reader refuses them.

mcl stores weights as float32: a weight above its largest value (3.4028235e38)
would become infinity and the clustering would be wrong though marked
converged.  Every way in (NetworkX, igraph, pandas, scipy, numpy, an edge
list, ``SparseGraph.from_edges``) stops with a ParameterError naming the edge.
"""

import io

import numpy as np
import pytest

import netmcl
from netmcl.adapters import to_sparse_graph
from netmcl.exceptions import InputFileError, ParameterError
from netmcl.graph import SparseGraph
from netmcl.io import read_abc

FLT_MAX = float(np.finfo(np.float32).max)
ABOVE = 3.5e38  # finite as a double, infinity as a float32
with np.errstate(over="ignore"):
    assert np.isinf(np.float32(ABOVE)) and ABOVE < float("inf")


def networkx_graph(w):
    nx = pytest.importorskip("networkx")
    G = nx.Graph()
    G.add_edge("a", "b", weight=1.0)
    G.add_edge("b", "c", weight=w)
    return G


def igraph_graph(w):
    ig = pytest.importorskip("igraph")
    return ig.Graph.TupleList([("a", "b", 1.0), ("b", "c", w)], weights=True)


def pandas_frame(w):
    pd = pytest.importorskip("pandas")
    return pd.DataFrame({"source": ["a", "b"], "target": ["b", "c"], "weight": [1.0, w]})


def scipy_matrix(w):
    sp = pytest.importorskip("scipy.sparse")
    return sp.csr_array(np.array([[0, 1.0, 0], [1.0, 0, w], [0, w, 0]]))


def numpy_matrix(w):
    return np.array([[0, 1.0, 0], [1.0, 0, w], [0, w, 0]])


def edge_list(w):
    return [("a", "b", 1.0), ("b", "c", w)]


MAKERS = [networkx_graph, igraph_graph, pandas_frame, scipy_matrix, numpy_matrix, edge_list]


@pytest.mark.parametrize("make", MAKERS, ids=lambda f: f.__name__)
def test_a_weight_above_float32_is_refused_naming_the_edge(make):
    with pytest.raises(ParameterError) as info:
        netmcl.mcl(make(ABOVE))
    message = str(info.value)
    assert "3.5e+38" in message and "float32" in message
    if make in (networkx_graph, igraph_graph, pandas_frame, edge_list):
        assert "'b'" in message and "'c'" in message
    else:
        assert "(2, 1)" in message or "(1, 2)" in message


@pytest.mark.parametrize("make", MAKERS, ids=lambda f: f.__name__)
def test_the_largest_float32_weight_is_kept(make):
    graph = to_sparse_graph(make(FLT_MAX))
    assert float(graph.matrix.data.max()) == FLT_MAX
    assert np.isfinite(graph.matrix.data).all()


@pytest.mark.parametrize("w", [ABOVE, float("inf"), float("nan"), -1.0])
def test_from_edges_names_the_edge(w):
    with pytest.raises(ParameterError) as info:
        SparseGraph.from_edges([0, 1], [1, 2], [0.5, w], labels=["x", "y", "z"])
    assert f"('y', 'z', {w!r})" in str(info.value)


def test_the_file_reader_refuses_the_same_weight():
    with pytest.raises(InputFileError) as info:
        read_abc(io.BytesIO(b"a b 1\nb c 3.5e38\n"))
    assert info.value.line == 2
