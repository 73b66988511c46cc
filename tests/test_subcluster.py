"""Subclustering (``netmcl FILE -icl CLUSTERING``, :func:`netmcl.subcluster`) against mcl's -icl.

The reduced graph is compared entry for entry with the graph mcl itself
writes with ``-write-graph`` (a file mcl wrote in tests/data/io, and live on
several networks when mcl is on PATH), and the cluster files byte for byte
with those of the live ``mcl ... -icl`` (native ones without mcl's ``# cline``
line).
"""

import gzip
import shutil
import subprocess
from pathlib import Path

import pytest

import netmcl
from netmcl.cli import main
from netmcl.exceptions import ParameterError
from netmcl.subclustering import subcluster, within_clusters

DATA = Path(__file__).parent / "data"
IO = DATA / "io"

needs_mcl = pytest.mark.skipif(shutil.which("mcl") is None, reason="mcl not on PATH: live comparisons skipped")


def _without_cline(data):
    first, rest = data.split(b"\n", 1)
    assert first.startswith(b"# cline: mcl ")
    return rest


def _same_matrix(a, b):
    a, b = a.matrix, b.matrix
    return a.shape == b.shape and abs(a - b).max() == 0 and a.nnz == b.nnz


def test_the_reduced_graph_is_the_one_mcl_writes():
    graph = netmcl.read_mci(IO / "random40.mci")
    ours = within_clusters(graph, netmcl.read_clusters(IO / "random40.mci.I14"), indices=True)
    assert _same_matrix(ours, netmcl.read_mci(IO / "random40.mci.I14.icl"))
    # more goes than the edges between clusters: mcl's rule for edges inside them
    ids = {v: k for k, c in enumerate(netmcl.read_clusters(IO / "random40.mci.I14")) for v in c}
    rows, cols = graph.matrix.nonzero()
    inside = sum(ids[r] == ids[c] for r, c in zip(rows.tolist(), cols.tolist()))
    assert ours.nnz < inside


def test_subclusters_are_mcls_file(tmp_path, capsys):
    out = tmp_path / "sub"
    assert main([str(IO / "random40.mci"), "-icl", str(IO / "random40.mci.I14"), "-I", "3", "-o", str(out)]) == 0
    assert out.read_bytes() == _without_cline((IO / "random40.mci.I14.I30").read_bytes())
    fine = subcluster(netmcl.read_mci(IO / "random40.mci"), netmcl.read_clusters(IO / "random40.mci.I14"),
                      indices=True, inflation=3)
    netmcl.write_clusters(tmp_path / "api", fine, format="native")
    assert (tmp_path / "api").read_bytes() == out.read_bytes()


def _networks(tmp_path):
    """(input file, extra flags) of the live comparisons."""
    cases = [(IO / "random40.mci", []), (IO / "stars.mci", []), (IO / "domains.mci", [])]
    with gzip.open(DATA / "networks" / "clusterone_krogan2006_core.txt.gz", "rb") as src:
        (tmp_path / "krogan.abc").write_bytes(src.read())
    cases.append((tmp_path / "krogan.abc", ["--abc"]))
    return cases


@needs_mcl
def test_cli_matches_live_mcl_icl_byte_for_byte(tmp_path, capsys):
    for source, flags in _networks(tmp_path):
        coarse = tmp_path / "coarse"
        if flags:  # a label file: mcl -icl takes a native clustering, numbered as mcl numbers the labels
            subprocess.run(["mcxload", "-abc", str(source), "--stream-mirror", "-o", str(tmp_path / "g.mci")],
                           check=True, capture_output=True)
            subprocess.run(["mcl", str(tmp_path / "g.mci"), "-I", "1.4", "-o", str(coarse)], check=True,
                           capture_output=True)
        else:
            subprocess.run(["mcl", str(source), "-I", "1.4", "-o", str(coarse)], check=True, capture_output=True)
        for more in (["-I", "2"], ["-I", "3.5", "-pi", "1.5"], ["-I", "2.5", "--discard-loops=n"]):
            ref, ours = tmp_path / "mcl.out", tmp_path / "netmcl.out"
            run = subprocess.run(["mcl", str(source), *flags, "-icl", str(coarse), *more, "-o", str(ref)],
                                 capture_output=True)
            assert run.returncode == 0, run.stderr
            assert main([str(source), *flags, "-icl", str(coarse), *more, "-o", str(ours)]) == 0
            expected = ref.read_bytes() if flags else _without_cline(ref.read_bytes())
            assert ours.read_bytes() == expected, (source.name, more)


@needs_mcl
def test_reduced_graph_matches_mcls_write_graph_on_real_networks(tmp_path):
    for name in ("clusterone_krogan2006_core", "clusterone_gavin2006_socioaffinities_rescaled"):
        with gzip.open(DATA / "networks" / f"{name}.txt.gz", "rb") as src:
            (tmp_path / "g.abc").write_bytes(src.read())
        subprocess.run(["mcxload", "-abc", str(tmp_path / "g.abc"), "--stream-mirror", "-o", str(tmp_path / "g.mci")],
                       check=True, capture_output=True)
        for inflation in ("1.2", "2"):
            subprocess.run(["mcl", str(tmp_path / "g.mci"), "-I", inflation, "-o", str(tmp_path / "c")],
                           check=True, capture_output=True)
            subprocess.run(["mcl", str(tmp_path / "g.mci"), "-icl", str(tmp_path / "c"), "-write-graph",
                            str(tmp_path / "w.mci"), "-o", str(tmp_path / "out")], check=True, capture_output=True)
            graph = netmcl.read_mci(tmp_path / "g.mci")
            ours = within_clusters(graph, netmcl.read_clusters(tmp_path / "c"), indices=True)
            assert _same_matrix(ours, netmcl.read_mci(tmp_path / "w.mci")), (name, inflation)


def test_a_label_clustering_for_a_label_file(tmp_path, capsys):
    """netmcl also takes the clustering of a label file as labels (mcl only as a native file)."""
    source = IO / "random40.abc"
    assert main([str(source), "--abc", "-I", "1.4", "-o", str(tmp_path / "coarse")]) == 0
    graph = netmcl.read_abc(source)
    coarse = netmcl.read_clusters(tmp_path / "coarse")
    assert main([str(source), "--abc", "-icl", str(tmp_path / "coarse"), "-I", "3", "-o", str(tmp_path / "a")]) == 0
    fine = subcluster(graph, coarse, inflation=3)
    assert (tmp_path / "a").read_text().splitlines() == ["\t".join(c) for c in fine]
    home = {v: k for k, c in enumerate(coarse) for v in c}
    assert all(len({home[v] for v in c}) == 1 for c in fine)
    assert sorted(v for c in fine for v in c) == sorted(graph.labels)


def test_the_automatic_name_follows_the_clustering(tmp_path, capsys):
    assert main(["g.mci", "-icl", "sub/coarse", "-I", "3", "-az"]) == 0
    assert main(["g.mci", "-icl", "sub/coarse", "-I", "3", "-odir", "d", "-az"]) == 0
    assert capsys.readouterr().out.split() == ["sub/coarse.I30", "d/coarse.I30"]


def test_nodes_in_no_cluster_become_singletons():
    graph = netmcl.SparseGraph.from_edges([0, 1, 2, 3], [1, 2, 3, 4], labels=list("abcde"))
    reduced = within_clusters(graph, [["a", "b", "c"]])
    assert sorted(zip(*reduced.matrix.nonzero())) == [(0, 1), (1, 0), (1, 2), (2, 1)]
    fine = subcluster(graph, [["a", "b", "c"]])
    assert sorted(map(sorted, fine)) == [["a", "b", "c"], ["d"], ["e"]]


def test_bad_clusterings_are_named(tmp_path, capsys):
    graph = netmcl.SparseGraph.from_edges([0, 1], [1, 2], labels=["a", "b", "c"])
    with pytest.raises(ParameterError, match="'z'"):
        subcluster(graph, [["a", "z"]])
    with pytest.raises(ParameterError, match="in clusters 0 and 1"):
        subcluster(graph, [["a", "b"], ["b", "c"]])
    with pytest.raises(ParameterError, match="node 7"):
        subcluster(graph, [[0, 7]], indices=True)
    (tmp_path / "bad").write_text("n0\tnobody\n")
    assert main([str(IO / "random40.abc"), "--abc", "-icl", str(tmp_path / "bad"), "-o", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err
    assert "-icl" in err and "'nobody'" in err and not (tmp_path / "o").exists()
