"""netmcl.subclustering: clustering within the clusters of a given clustering.

The reduced graph is built here independently with scipy (the weights times
the block indicator ``C @ C.T`` of the given clusters); :func:`subcluster` must
give exactly mcl's clustering of it, compared byte for byte with the cluster
file of the live ``mcl`` (when on PATH) and with :func:`netmcl.mcl` everywhere.
"""

import gzip
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import netmcl
from netmcl.exceptions import ParameterError
from netmcl.subclustering import subcluster, within_clusters

DATA = Path(__file__).parent / "data"
IO = DATA / "io"

needs_mcl = pytest.mark.skipif(shutil.which("mcl") is None, reason="mcl not on PATH: live comparisons skipped")


def _reduced(graph, clusters):
    """The graph's weights on arcs inside one of `clusters` (lists of node indices), with scipy."""
    rows = [v for c in clusters for v in c]
    cols = [k for k, c in enumerate(clusters) for _ in c]
    C = sp.csr_array((np.ones(len(rows)), (rows, cols)), shape=(graph.n, max(len(clusters), 1)))
    block = (C @ C.T).tocsc()
    return netmcl.SparseGraph(sp.csc_array(graph.matrix.multiply(block != 0)), labels=list(graph.labels))


def _native(path, clustering):
    netmcl.write_clusters(path, clustering, format="native")
    return path.read_bytes()


def _mcl_file(path):
    """An mcl cluster file without its first line, the ``# cline`` comment."""
    lines = path.read_bytes().split(b"\n", 1)
    assert lines[0].startswith(b"# cline: mcl ")
    return lines[1]


def _graphs(tmp_path):
    """(name, graph, coarse clustering as node indices) for the test networks."""
    cases = []
    for name, inflation in (("random40.mci", 1.4), ("domains.mci", 1.4), ("stars.mci", 2.0)):
        graph = netmcl.read_mci(IO / name)
        coarse = netmcl.mcl(graph, inflation=inflation)
        cases.append((name, graph, [c.tolist() for c in coarse.index_clusters]))
    with gzip.open(DATA / "networks" / "clusterone_krogan2006_core.txt.gz", "rb") as src:
        (tmp_path / "krogan.abc").write_bytes(src.read())
    graph = netmcl.read_abc(tmp_path / "krogan.abc")
    coarse = netmcl.mcl(graph, inflation=1.4)
    cases.append(("krogan2006_core", graph, [c.tolist() for c in coarse.index_clusters]))
    return cases


def test_the_reduced_graph_keeps_exactly_the_arcs_inside_clusters():
    graph = netmcl.read_mci(IO / "random40.mci")
    clusters = [c.tolist() for c in netmcl.mcl(graph, inflation=1.4).index_clusters]
    ours = within_clusters(graph, clusters, indices=True)
    expected = _reduced(graph, clusters)
    assert (ours.matrix != expected.matrix).nnz == 0
    assert 0 < ours.nnz < graph.nnz
    # by label: the same graph
    by_label = within_clusters(graph, [[graph.labels[v] for v in c] for c in clusters])
    assert (by_label.matrix != expected.matrix).nnz == 0


def test_subclusters_are_mcl_on_the_reduced_graph_and_lie_within_the_given_clusters(tmp_path):
    for name, graph, coarse in _graphs(tmp_path):
        fine = subcluster(graph, coarse, indices=True, inflation=3.0)
        expected = netmcl.mcl(_reduced(graph, coarse), inflation=3.0)
        assert [c.tolist() for c in fine.index_clusters] == [c.tolist() for c in expected.index_clusters], name
        home = {v: k for k, c in enumerate(coarse) for v in c}
        assert all(len({home[v] for v in c.tolist()}) == 1 for c in fine.index_clusters), name
        assert sorted(v for c in fine.index_clusters for v in c.tolist()) == list(range(graph.n))


@needs_mcl
def test_subclusters_match_live_mcl_byte_for_byte(tmp_path):
    for name, graph, coarse in _graphs(tmp_path):
        netmcl.write_mci(tmp_path / "reduced.mci", _reduced(graph, coarse))
        for inflation in ("2", "3.5"):
            out = tmp_path / "mcl.out"
            subprocess.run(["mcl", str(tmp_path / "reduced.mci"), "-I", inflation, "-o", str(out)],
                           check=True, capture_output=True)
            fine = subcluster(graph, coarse, indices=True, inflation=float(inflation))
            assert _native(tmp_path / "netmcl.out", fine) == _mcl_file(out), (name, inflation)


def test_nodes_in_no_cluster_become_singletons():
    graph = netmcl.SparseGraph.from_edges([0, 1, 2, 3], [1, 2, 3, 4], labels=list("abcde"))
    fine = subcluster(graph, [["a", "b", "c"]])
    assert sorted(map(sorted, fine)) == [["a", "b", "c"], ["d"], ["e"]]


def test_networkx_input_by_label():
    import networkx as nx

    G = nx.karate_club_graph()
    coarse = netmcl.mcl(G, inflation=1.6, attribute=None)
    fine = subcluster(G, coarse, inflation=4)
    reduced = G.edge_subgraph([(u, v) for u, v in G.edges if any(u in c and v in c for c in map(set, coarse))])
    H = nx.Graph()
    H.add_nodes_from(G.nodes)
    H.add_edges_from(reduced.edges(data=True))
    assert list(fine) == list(netmcl.mcl(H, inflation=4, attribute=None))


def test_bad_clusterings_are_named():
    graph = netmcl.SparseGraph.from_edges([0, 1], [1, 2], labels=["a", "b", "c"])
    with pytest.raises(ParameterError, match="'z'"):
        subcluster(graph, [["a", "z"]])
    with pytest.raises(ParameterError, match="in clusters 0 and 1"):
        subcluster(graph, [["a", "b"], ["b", "c"]])
    with pytest.raises(ParameterError, match="node 7"):
        subcluster(graph, [[0, 7]], indices=True)
