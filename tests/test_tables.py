"""Tables in and out: pandas edge lists, node tables, GraphML/GML, the JSON run report."""

import gzip
import hashlib
import json
import os
from pathlib import Path

import networkx as nx
import pytest

import netmcl
import netmcl.datasets
from netmcl.adapters.pandas import from_dataframe, from_pandas_edgelist
from netmcl.exceptions import ParameterError
from netmcl.io.tables import (
    graph_checksum,
    run_report,
    to_frame,
    write_gml,
    write_graphml,
    write_run_report,
    write_tsv,
)

pd = pytest.importorskip("pandas")

HERE = Path(__file__).parent
COLLINS = HERE / "data" / "networks" / "clusterone_collins2007.txt.gz"
CLM = HERE / "golden" / "clm"
STRING = HERE / "data" / "string"


def test_dataframe_in_equals_mcl():
    df = pd.read_csv(COLLINS, sep="\t", header=None)  # an mcl --abc file: columns 0, 1, 2
    expected = netmcl.read_clusters(CLM / "collins.I2.txt.gz")
    assert list(netmcl.mcl(df)) == expected
    named = df.rename(columns={0: "a", 1: "b", 2: "w"})
    assert list(netmcl.mcl(from_pandas_edgelist(named, source="a", target="b", weight="w"))) == expected
    assert list(netmcl.mcl(named.rename(columns={"a": "source", "b": "target", "w": "weight"}))) == expected
    # the graph is the one read_abc builds from the file
    assert graph_checksum(from_dataframe(df)) == graph_checksum(netmcl.read_abc(COLLINS))


def test_stringdb_dataframe():
    df = pd.read_csv(STRING / "stringdb_get_interactions.csv.gz", index_col=0)
    assert list(df.columns) == ["from", "to", "combined_score"]
    kept = df[df.combined_score >= 700]
    G = netmcl.read_string(STRING / "stringdb_get_interactions.csv.gz", min_score=700)
    assert list(netmcl.mcl(kept, attribute=None)) == list(netmcl.mcl(G, attribute=None))


def test_dataframe_column_rules():
    df = pd.DataFrame({"x": ["a", "b"], "y": ["b", "c"], "note": ["p", "q"]})
    assert from_dataframe(df).nnz == 4  # unweighted: no numeric third column
    with pytest.raises(ParameterError, match="no column 'w'"):
        netmcl.mcl(df, weight="w")
    with pytest.raises(ParameterError, match="at least two columns"):
        netmcl.mcl(pd.DataFrame({"x": [1]}))
    with pytest.raises(ParameterError, match="missing node"):
        from_pandas_edgelist(pd.DataFrame({"source": ["a", None], "target": ["b", "c"]}), weight=None)
    with pytest.raises(ParameterError, match="row 1 of column 'weight'"):
        from_pandas_edgelist(pd.DataFrame({"source": ["a", "b"], "target": ["b", "c"], "weight": [1, "x"]}))


def test_to_frame_and_tsv(tmp_path):
    G = netmcl.read_string(STRING / "9606.protein.links.sample.txt.gz", min_score=900,
                           info=STRING / "9606.protein.info.sample.txt.gz")
    clustering = netmcl.mcl(G)
    frame = clustering.to_frame(G, label_attribute="preferred_name")
    assert list(frame.columns) == ["node", "cluster", "preferred_name"]
    assert len(frame) == G.number_of_nodes()
    assert frame.cluster.tolist() == sorted(frame.cluster.tolist())  # cluster 0 (the largest) first
    assert frame.groupby("cluster").size().tolist() == clustering.sizes
    assert dict(zip(frame.node, frame.cluster)) == clustering.membership
    assert dict(zip(frame.node, frame.preferred_name)) == nx.get_node_attributes(G, "preferred_name")
    path = tmp_path / "clusters.tsv"
    write_tsv(path, clustering, G, label_attribute="preferred_name")
    back = pd.read_csv(path, sep="\t")
    pd.testing.assert_frame_equal(back, frame)
    assert to_frame([["a", "b"], ["c"]]).to_dict("list") == {"node": ["a", "b", "c"], "cluster": [0, 0, 1]}
    with pytest.raises(ParameterError, match="no attribute 'x'"):
        to_frame(clustering, G, attributes=["x"])


def test_overlap_rows():
    clustering = netmcl.mcl([(f"v{i}", f"v{i + 1}") for i in range(4)], overlap="keep")
    frame = to_frame(clustering)
    assert frame[frame.node == "v2"].cluster.tolist() == [0, 1]


def test_graphml_and_gml_round_trip(tmp_path):
    G = netmcl.datasets.load_collins2007()
    clustering = netmcl.mcl(G, attribute=None)
    expected = clustering.membership
    write_graphml(tmp_path / "c.graphml", G, clustering)
    assert "mcl_cluster" not in G.nodes["YAL001C"]  # the user's graph is left alone
    H = nx.read_graphml(tmp_path / "c.graphml")
    assert nx.get_node_attributes(H, "mcl_cluster") == expected
    assert 'attr.name="mcl_cluster" attr.type="long"' in (tmp_path / "c.graphml").read_text()
    write_gml(tmp_path / "c.gml", G, clustering, attribute="mclCluster")
    H = nx.read_gml(tmp_path / "c.gml")
    assert nx.get_node_attributes(H, "mclCluster") == expected
    with pytest.raises(ParameterError, match="GML attribute names"):
        write_gml(tmp_path / "bad.gml", G, clustering, attribute="__mclCluster")
    assert not (tmp_path / "bad.gml").exists()
    assert H["YAL001C"]["YBR123C"]["weight"] == G["YAL001C"]["YBR123C"]["weight"]


def test_graphml_from_igraph(tmp_path):
    ig = pytest.importorskip("igraph")
    g = ig.Graph.TupleList([("a", "b", 1.0), ("b", "c", 1.0), ("d", "e", 1.0)], weights=True)
    vc = netmcl.mcl(g, attribute=None)
    write_graphml(tmp_path / "g.graphml", g, vc)
    back = ig.Graph.Read_GraphML(str(tmp_path / "g.graphml"))
    assert back.vs["name"] == ["a", "b", "c", "d", "e"]
    assert [int(x) for x in back.vs["mcl_cluster"]] == vc.membership == [0, 0, 0, 1, 1]


def test_failed_write_leaves_nothing(tmp_path):
    G = nx.path_graph(["a", "b"])
    G.nodes["a"]["bad"] = [1, 2]  # GraphML cannot hold a list
    target = tmp_path / "out.graphml"
    with pytest.raises(nx.NetworkXError):
        write_graphml(target, G, [["a", "b"]])
    assert os.listdir(tmp_path) == []


def test_run_report(tmp_path):
    path = tmp_path / "links.txt.gz"
    path.write_bytes((STRING / "9606.protein.links.sample.txt.gz").read_bytes())
    G = netmcl.read_string(path, min_score=700)
    clustering = netmcl.mcl(G, inflation=3.0)
    write_run_report(tmp_path / "run.json", clustering, graph=G, input_path=path, extra={"note": "test"})
    report = json.loads((tmp_path / "run.json").read_text())
    assert report["netmcl_version"] == netmcl.__version__
    assert report["parameters"] == clustering.params.to_dict()
    assert [it["chaos"] for it in report["iterations"]] == clustering.chaos
    assert all(it["seconds"] >= 0 for it in report["iterations"]) and len(report["iterations"]) == clustering.n_iterations
    assert report["input"]["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert report["input"]["min_score"] == 700 and report["input"]["format"] == "protein.links"
    assert report["input"]["graph_sha256"] == graph_checksum(netmcl.adapters.to_sparse_graph(G))
    assert report["result"]["n_clusters"] == len(clustering) and report["note"] == "test"
    # the graph checksum identifies the graph whatever its file
    plain = tmp_path / "links.txt"
    plain.write_bytes(gzip.decompress(path.read_bytes()))
    same = run_report(clustering, graph=netmcl.read_string(plain, min_score=700))
    assert same["input"]["graph_sha256"] == report["input"]["graph_sha256"]
