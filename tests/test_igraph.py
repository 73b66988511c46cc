"""igraph in and out: netmcl.mcl(igraph.Graph) -> VertexClustering, same clusters as NetworkX and mcl."""

import gzip
from pathlib import Path

import networkx as nx
import pytest

import netmcl
from netmcl.adapters.igraph import from_igraph
from netmcl.exceptions import ParameterError

ig = pytest.importorskip("igraph")

HERE = Path(__file__).parent
COLLINS = HERE / "data" / "networks" / "clusterone_collins2007.txt.gz"
CLM = HERE / "golden" / "clm"


def collins_rows():
    rows = []
    for line in gzip.decompress(COLLINS.read_bytes()).decode().splitlines():
        a, b, w = line.split("\t")
        rows.append((a, b, float(w)))
    return rows


def test_collins_equals_networkx_and_mcl():
    rows = collins_rows()
    g = ig.Graph.TupleList(rows, weights=True)
    G = nx.Graph()
    G.add_weighted_edges_from(rows)
    for inflation, fname in (("2", "collins.I2.txt.gz"), ("4", "collins.I4.txt.gz")):
        vc = netmcl.mcl(g, inflation=float(inflation))
        expected = netmcl.read_clusters(CLM / fname)  # mcl --abc
        assert isinstance(vc, ig.VertexClustering)
        assert [[g.vs[v]["name"] for v in cluster] for cluster in vc] == expected
        assert list(netmcl.mcl(G, inflation=float(inflation))) == expected
        assert vc.membership == [G.nodes[name]["mcl_cluster"] for name in g.vs["name"]]
        assert g.vs["mcl_cluster"] == vc.membership
        assert vc.modularity == pytest.approx(g.modularity(vc.membership, weights="weight"))
        assert vc.modularity == pytest.approx(netmcl.analysis.modularity(G, expected), abs=1e-6)
        assert vc.netmcl.params.inflation == float(inflation) and vc.netmcl.converged
        assert [sub.vcount() for sub in vc.subgraphs()] == vc.sizes()


def test_weights_as_sequence_or_attribute_name():
    rows = collins_rows()[:400]
    g = ig.Graph.TupleList(rows, weights=True)
    by_name = netmcl.mcl(g, attribute=None)
    g.es["score"] = g.es["weight"]
    by_other = netmcl.mcl(g, weight="score", attribute=None)
    by_list = netmcl.mcl(g, weight=list(g.es["weight"]), attribute=None)
    assert by_name.membership == by_other.membership == by_list.membership
    unweighted = netmcl.mcl(g, weight=None, attribute=None)
    assert unweighted.membership == netmcl.mcl(nx.Graph([(a, b) for a, b, _ in rows]), weight=None, attribute=None) \
        .membership_array().tolist()
    assert "mcl_cluster" not in g.vs.attributes()


def test_vertex_ids_as_labels_and_directed_graphs():
    g = ig.Graph.Famous("Zachary")
    sg = from_igraph(g)
    assert sg.labels == list(range(34)) and sg.is_symmetric()
    d = ig.Graph(n=4, edges=[(0, 1), (1, 2), (2, 0), (3, 2)], directed=True)
    assert from_igraph(d).is_symmetric()  # mirrored, as mcl --abc
    assert not from_igraph(d, symmetrize=False).is_symmetric()
    assert list(netmcl.mcl(d, attribute=None)) == list(netmcl.mcl([(0, 1), (1, 2), (2, 0), (3, 2)]))


def test_overlap_keep_gives_a_vertex_cover():
    g = ig.Graph(n=5, edges=[(0, 1), (1, 2), (2, 3), (3, 4)])  # the line graph of mcl-spec d.5
    cover = netmcl.mcl(g, overlap="keep", attribute=None)
    assert isinstance(cover, ig.VertexCover)
    assert [list(c) for c in cover] == [[0, 1, 2], [2, 3, 4]]
    assert netmcl.mcl(g, attribute=None).membership == [0, 0, 0, 1, 1]


def test_bad_weights():
    g = ig.Graph(n=3, edges=[(0, 1), (1, 2)])
    with pytest.raises(ParameterError, match="no edge attribute 'w'"):
        netmcl.mcl(g, weight="w")
    with pytest.raises(ParameterError, match="one value per edge"):
        netmcl.mcl(g, weight=[1.0])
    g.es["weight"] = [1.0, -2.0]
    with pytest.raises(ParameterError, match="non-negative.*edge 1"):
        netmcl.mcl(g)
