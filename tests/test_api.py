"""netmcl.mcl from the user's side: inputs, write-back, parameters, the Clustering object."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import netmcl
from netmcl.datasets import load_collins2007

CATHAT = [
    ("cat", "hat", 0.2), ("hat", "bat", 0.16), ("bat", "cat", 1.0), ("bat", "bit", 0.125),
    ("bit", "fit", 0.25), ("fit", "hit", 0.5), ("hit", "bit", 0.16),
]  # fmt: skip
CATHAT_CLUSTERS = [["cat", "hat", "bat"], ["bit", "fit", "hit"]]
CATHAT_CHAOS = "0.47 0.53 0.35 0.44 0.24 0.20 0.12 0.20 0.25 0.15 0.02 0.00 0.00".split()


def test_networkx_graph_gets_mcls_clusters_and_attributes():
    G = nx.Graph()
    G.add_weighted_edges_from(CATHAT)
    cl = netmcl.mcl(G)
    assert cl.clusters == CATHAT_CLUSTERS
    assert [f"{c:.2f}" for c in cl.chaos] == CATHAT_CHAOS
    assert cl.n_iterations == 13 and cl.converged
    assert {v: d["mcl_cluster"] for v, d in G.nodes(data=True)} == cl.membership
    assert cl.membership["fit"] == 1


def test_attribute_name_and_opting_out():
    G = nx.Graph()
    G.add_weighted_edges_from(CATHAT)
    netmcl.mcl(G, attribute="module")
    assert G.nodes["cat"]["module"] == 0 and "mcl_cluster" not in G.nodes["cat"]
    H = nx.Graph()
    H.add_weighted_edges_from(CATHAT)
    netmcl.mcl(H, attribute=None)
    assert all(not d for _, d in H.nodes(data=True))


def test_every_input_type_gives_the_same_clusters():
    edges = list(CATHAT)
    G = nx.Graph()
    G.add_weighted_edges_from(edges)
    D = nx.DiGraph()
    D.add_weighted_edges_from(edges)  # one direction only: symmetrised as mcl --abc does
    W = nx.Graph()
    W.add_edges_from((a, b, {"score": w}) for a, b, w in edges)
    assert netmcl.mcl(D).clusters == CATHAT_CLUSTERS
    assert netmcl.mcl(edges).clusters == CATHAT_CLUSTERS
    assert netmcl.mcl(W, weight="score").clusters == CATHAT_CLUSTERS
    matrix = nx.to_scipy_sparse_array(G, weight="weight")
    by_index = netmcl.mcl(matrix)
    assert [[list(G.nodes)[i] for i in c] for c in by_index] == CATHAT_CLUSTERS


def test_matrix_input_is_not_symmetrised_unless_asked():
    from netmcl.adapters import to_sparse_graph

    # arcs 0->1 and 1->2 only (entry (i, j) = arc j -> i), as mcl's native input
    m = sp.csc_array(([1.0, 1.0], ([1, 2], [0, 1])), shape=(3, 3))
    assert to_sparse_graph(m).matrix.toarray().tolist() == m.toarray().tolist()
    mirrored = to_sparse_graph(m, symmetrize=True).matrix.toarray()
    assert mirrored.tolist() == (m + m.T).toarray().tolist()
    assert netmcl.mcl(m).n_nodes == 3


def test_real_network_from_networkx_equals_the_label_file():
    G = load_collins2007()
    from netmcl.datasets import collins2007_path

    assert netmcl.mcl(G, attribute=None).clusters == netmcl.mcl(netmcl.read_abc(collins2007_path())).clusters


@pytest.mark.parametrize(
    ("weight", "match"),
    [(float("nan"), "finite"), (-1.0, "non-negative"), ("high", "numeric"), (float("inf"), "finite")],
)
def test_bad_weights_name_the_edge(weight, match):
    G = nx.Graph()
    G.add_edge("a", "b", weight=weight)
    with pytest.raises(netmcl.ParameterError, match=match) as err:
        netmcl.mcl(G)
    assert "'a'" in str(err.value) and "'b'" in str(err.value)


@pytest.mark.parametrize(
    ("kwargs", "flag"),
    [
        ({"inflation": 1.0}, "-I"),
        ({"inflation": 0.9}, "-I"),
        ({"inflation": "2"}, "-I"),
        ({"select": -1}, "-S"),
        ({"recover_pct": 100}, "-pct"),
        ({"scheme": 9}, "-scheme"),
        ({"overlap": "merge"}, "-overlap"),
        ({"sort": "random"}, "-sort"),
        ({"pruning_threshold": 2}, "-p"),
        ({"max_iterations": 0}, "-L"),
        ({"threads": 0}, "-te"),
        ({"threads": 1.5}, "-te"),
        ({"threads": "2"}, "-te"),
        ({"threads": True}, "-te"),
    ],
)
def test_parameter_errors_name_parameter_flag_and_value(kwargs, flag):
    with pytest.raises(netmcl.ParameterError) as err:
        netmcl.mcl(nx.path_graph(3), **kwargs)
    text = str(err.value)
    (name, value), = kwargs.items()
    assert f"'{name}'" in text and f"({flag})" in text and repr(value) in text


def test_numpy_scalars_are_numbers():
    """Values taken from numpy arrays (a sweep over np.arange, say) are parameters like any other."""
    G = nx.karate_club_graph()
    plain = netmcl.mcl(G, inflation=1.75, select=500, threads=2, attribute=None).clusters
    scalars = netmcl.mcl(G, inflation=np.float32(1.75), select=np.int64(500), threads=np.int32(2), attribute=None)
    assert scalars.clusters == plain


def test_unknown_engine_and_unsupported_input():
    with pytest.raises(netmcl.ParameterError, match="'engine'"):
        netmcl.mcl(nx.path_graph(3), engine="quantum")
    with pytest.raises(netmcl.ParameterError, match="read_abc"):
        netmcl.mcl("graph.abc")


def test_overlap_keep_and_partitions():
    line = nx.path_graph(["v0", "v1", "v2", "v3", "v4"])
    cut = netmcl.mcl(line)
    keep = netmcl.mcl(line, overlap="keep")
    split = netmcl.mcl(line, overlap="split")
    assert cut.clusters == [["v0", "v1", "v2"], ["v3", "v4"]]
    assert keep.clusters == [["v0", "v1", "v2"], ["v2", "v3", "v4"]]
    assert split.clusters == [["v0", "v1"], ["v3", "v4"], ["v2"]]
    assert cut.is_partition() and cut.overlap == 0
    assert not keep.is_partition() and keep.overlap == 1
    assert keep.memberships()["v2"] == [0, 1]
    with pytest.raises(netmcl.NotAPartitionError, match="overlap"):
        keep.partition()
    assert cut.partition() == [{"v0", "v1", "v2"}, {"v3", "v4"}]


def test_clustering_object():
    cl = netmcl.mcl(CATHAT)
    assert len(cl) == 2 and cl[1] == ["bit", "fit", "hit"] and cl[:1] == [["cat", "hat", "bat"]]
    assert cl.sizes == [3, 3] and cl.n_nodes == 6
    assert cl.membership_array().tolist() == [0, 0, 0, 1, 1, 1]
    assert [c.tolist() for c in cl.index_clusters] == [[0, 1, 2], [3, 4, 5]]
    d = cl.to_dict()
    assert d["clusters"] == CATHAT_CLUSTERS and d["params"]["inflation"] == 2.0 and d["n_iterations"] == 13
    assert "2 clusters of 6 nodes after 13 iterations (converged)" in cl.summary()
    assert "2 clusters" in repr(cl)


def test_mcl_iterates_watches_the_same_run():
    states = list(netmcl.mcl_iterates(CATHAT))
    assert [f"{s.chaos:.2f}" for s in states] == CATHAT_CHAOS
    assert states[-1].converged and not states[0].converged
    last = states[-1].matrix
    assert last.shape == (6, 6) and np.allclose(last.sum(axis=0), 1.0)


def test_threads_and_progress_do_not_change_anything():
    G = load_collins2007()
    base = netmcl.mcl(G, attribute=None, threads=1)
    other = netmcl.mcl(G, attribute=None, threads=2, progress=True)
    assert base.clusters == other.clusters and base.chaos == other.chaos


def test_every_public_name_resolves_and_is_listed():
    import inspect

    for name in netmcl.__all__:
        assert getattr(netmcl, name) is not None, name
    assert set(netmcl.__all__) <= set(dir(netmcl))
    assert inspect.isfunction(netmcl.sweep) and inspect.isfunction(netmcl.draw)
    assert inspect.ismodule(netmcl.plot) and inspect.ismodule(netmcl.cytoscape)
    with pytest.raises(AttributeError, match="no attribute 'clusterize'"):
        netmcl.clusterize
