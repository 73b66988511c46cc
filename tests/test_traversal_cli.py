"""``netmcl bfs``, ``netmcl paths`` and ``netmcl components`` against NetworkX on the same files."""

import math
import sys
from pathlib import Path

import networkx as nx
import pytest

import netmcl
from netmcl.cli import main

DATA = Path(__file__).parent / "data"
STRING = DATA / "string" / "9606.protein.links.sample.txt.gz"


def _rows(path):
    lines = Path(path).read_text().splitlines()
    header = lines[0].split("\t")
    return header, [line.split("\t") for line in lines[1:]]


def _abc_graph(path, directed=False):
    G = nx.DiGraph() if directed else nx.Graph()
    for line in Path(path).read_text().splitlines():
        a, b, *w = line.split()
        G.add_edge(a, b, weight=float(w[0]) if w else 1.0)
    return G


@pytest.fixture
def abc(tmp_path):
    path = tmp_path / "g.abc"
    path.write_text("P1\tP2\t0.9\nP2\tP3\t0.4\nP1\tP3\t0.2\nP3\tP4\t0.7\nQ1\tQ2\t1\n")
    return path


def test_bfs_writes_hops_and_parents(abc, tmp_path):
    out = tmp_path / "hops.tsv"
    assert main(["bfs", str(abc), "-s", "P4", "Q1", "-o", str(out)]) == 0
    header, rows = _rows(out)
    assert header == ["source", "node", "hops", "predecessor"]
    G = _abc_graph(abc)
    for s in ("P4", "Q1"):
        got = {r[1]: int(r[2]) for r in rows if r[0] == s}
        assert got == nx.single_source_shortest_path_length(G, s)
        for r in rows:
            if r[0] == s and r[1] != s:
                assert G.has_edge(r[3], r[1]) and got[r[3]] == got[r[1]] - 1


def test_bfs_matrix_on_a_string_file(tmp_path):
    out = tmp_path / "m.tsv"
    G = netmcl.read_string(STRING, min_score=700)
    sources = list(G)[:3]
    assert main(["bfs", str(STRING), "--string", "--min-score", "700", "-s", *sources, "--matrix",
                 "-o", str(out)]) == 0
    header, rows = _rows(out)
    assert header[1:] == list(G)
    for row in rows:
        ref = nx.single_source_shortest_path_length(G, row[0])
        assert {v: int(x) for v, x in zip(header[1:], row[1:]) if x != "-1"} == ref


def test_paths_costs(abc, tmp_path):
    G = _abc_graph(abc)
    for cost, f in (("weight", lambda w: w), ("one-minus", lambda w: 1 - w), ("neglog", lambda w: -math.log(w))):
        out = tmp_path / f"{cost}.tsv"
        assert main(["paths", str(abc), "-s", "P1", "--cost", cost, "-o", str(out)]) == 0
        _, rows = _rows(out)
        H = nx.Graph()
        for u, v, w in G.edges(data="weight"):
            H.add_edge(u, v, weight=f(w))
        ref = nx.single_source_dijkstra_path_length(H, "P1")
        got = {r[1]: float(r[2]) for r in rows}
        assert got.keys() == ref.keys()
        for node, d in ref.items():
            assert got[node] == pytest.approx(d, rel=1e-6)  # weights of a label file are float32, as mcl's


def test_paths_on_a_string_file_turn_scores_into_costs(tmp_path):
    out = tmp_path / "p.tsv"
    G = netmcl.read_string(STRING, min_score=900)
    s = next(iter(G))
    assert main(["paths", str(STRING), "--string", "--min-score", "900", "-s", s, "-o", str(out)]) == 0
    H = nx.Graph()
    H.add_weighted_edges_from((u, v, 1 - w) for u, v, w in G.edges(data="weight"))
    ref = nx.single_source_dijkstra_path_length(H, s)
    _, rows = _rows(out)
    assert {r[1]: float(r[2]) for r in rows} == ref


def test_components_weak_and_strong(tmp_path):
    path = tmp_path / "d.abc"
    path.write_text("z\ta\na\tz\na\tm\nk\tb\n")
    out = tmp_path / "c.tsv"
    assert main(["components", str(path), "-o", str(out)]) == 0
    assert _rows(out)[1] == [["z", "0", "3"], ["a", "0", "3"], ["m", "0", "3"], ["k", "1", "2"], ["b", "1", "2"]]
    assert main(["components", str(path), "--directed", "--strong", "-o", str(out)]) == 0
    assert _rows(out)[1] == [["z", "0", "2"], ["a", "0", "2"], ["m", "1", "1"], ["k", "2", "1"], ["b", "3", "1"]]


def test_errors_are_one_line_and_leave_no_file(abc, tmp_path, capsys):
    out = tmp_path / "never.tsv"
    assert main(["bfs", str(abc), "-s", "nobody", "-o", str(out)]) == 1
    assert "Source 'nobody' is not in the graph" in capsys.readouterr().err
    assert not out.exists()
    assert main(["paths", str(abc), "-s", "P1", "--cost", "neglog", "--string", "-o", str(out)]) == 1
    assert not out.exists()
    assert main(["bfs", str(abc)]) == 2  # no source: a command-line mistake
    assert main(["paths", str(abc), "-s", "P1", "--method", "delta-stepping", "-o", str(out)]) == 1  # a GPU method
    assert "must be one of ['auto', 'dijkstra'] with engine='cpu'" in capsys.readouterr().err
    assert not out.exists()
    bad = tmp_path / "bad.abc"
    bad.write_text("a\tb\t-1\n")
    assert main(["paths", str(bad), "-s", "a", "-o", str(out)]) == 1
    assert not out.exists()


def test_gpu_engine_writes_the_same_tables(abc, tmp_path, monkeypatch):
    from netmcl.traversal import _gpu

    if _gpu.available() is not None:
        pytest.skip(_gpu.available())
    monkeypatch.setattr(_gpu, "THREADS", 8)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    try:
        for command in (["bfs", "-s", "P1", "Q2"], ["paths", "-s", "P3"], ["components"]):
            texts = []
            for engine in ("cpu", "gpu"):
                out = tmp_path / f"{command[0]}.{engine}.tsv"
                assert main([command[0], str(abc), *command[1:], "--engine", engine, "-o", str(out)]) == 0
                texts.append(out.read_text())
            assert texts[0] == texts[1]
        out = tmp_path / "delta.tsv"
        assert main(["paths", str(abc), "-s", "P3", "--engine", "gpu", "--method", "delta-stepping", "-o", str(out)]) == 0
        assert out.read_text() == (tmp_path / "paths.cpu.tsv").read_text()
    finally:
        sys.setswitchinterval(old)
