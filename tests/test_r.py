"""netmcl from R: to_r's plain values, and the R tutorial run with R, reticulate and STRINGdb.

The tutorial test runs ``Rscript tutorials/06_from_r_stringdb.R`` with reticulate pointed at
this Python and this checkout's netmcl, then checks what R wrote against live ``mcl`` on the
same edges.  It is skipped, with the reason, where Rscript, the R packages or mcl are missing
(``.ci/run`` installs them from Debian's packages).
"""

import gzip
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import netmcl
from netmcl.palette import PALETTE, cluster_colors
from netmcl.datasets import load_cyc2008
from netmcl.exceptions import ParameterError
from netmcl.io.r import to_r

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "tutorials" / "06_from_r_stringdb.R"
LINKS = ROOT / "tutorials" / "data" / "string_yeast" / "4932.protein.links.v11.5.txt.gz"
R_PACKAGES = ("reticulate", "STRINGdb", "igraph")
PLAIN = (bool, int, float, str)


def _all_plain(value):
    if isinstance(value, dict):
        return all(isinstance(k, str) and _all_plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_all_plain(v) for v in value)
    return type(value) in PLAIN


# --- to_r without R ------------------------------------------------------------------


def test_to_r_gives_only_python_builtins_reticulate_converts():
    edges = [("a", "b", np.float32(2.0)), ("b", "c", 1.0), ("x", "y", 1.0), ("y", "z", 1.0)]
    r = netmcl.mcl(edges).to_r()
    assert _all_plain(r)
    assert r["table"] == {"node": ["a", "b", "c", "x", "y", "z"], "cluster": [0, 0, 0, 1, 1, 1]}
    assert r["nodes"] == ["a", "b", "c", "x", "y", "z"]
    assert r["membership"] == [0, 0, 0, 1, 1, 1]
    assert r["clusters"] == [["a", "b", "c"], ["x", "y", "z"]]
    assert r["sizes"] == [3, 3]
    assert r["colors"] == cluster_colors([3, 3]) == list(PALETTE[:2])
    assert r["column"] == "mcl_cluster" and r["palette"] == list(PALETTE)
    own = netmcl.mcl(edges).to_r(palette=["#00ff00"])
    assert own["palette"] == ["#00FF00"] and own["colors"] == ["#00FF00", own["neutral"]]
    with pytest.raises(ParameterError, match="RRGGBB"):
        netmcl.mcl(edges).to_r(palette=["green"])


def test_to_r_membership_follows_the_nodes_given():
    cl = netmcl.mcl([("a", "b"), ("b", "c"), ("x", "y")])
    r = cl.to_r(nodes=["y", "a", "x", "c", "b"])
    assert r["nodes"] == ["y", "a", "x", "c", "b"]
    assert r["membership"] == [cl.membership[v] for v in r["nodes"]] == [1, 0, 1, 0, 0]
    with pytest.raises(ParameterError, match="'q'"):
        cl.to_r(nodes=["a", "q"])


def test_to_r_columns_never_mix_types():
    nx = pytest.importorskip("networkx")
    G = nx.path_graph(4)
    nx.set_node_attributes(G, {0: "hub", 3: "tip"}, "role")
    nx.set_node_attributes(G, {0: np.int64(5), 1: 7, 2: 2.5, 3: 1}, "score")
    nx.set_node_attributes(G, {0: 1, 1: 2}, "rank")
    nx.set_node_attributes(G, {v: bool(v % 2) for v in G}, "odd")
    nx.set_node_attributes(G, {v: 2**40 for v in G}, "big")
    r = to_r(netmcl.mcl(G), G)
    table = r["table"]
    assert _all_plain(r)
    assert table["node"] == [0, 1, 2, 3]
    assert table["role"] == ["hub", "", "", "tip"]  # text: "" for a gap
    assert table["score"] == [5.0, 7.0, 2.5, 1.0]  # whole and fractional: all doubles
    assert table["rank"][:2] == [1.0, 2.0] and all(math.isnan(v) for v in table["rank"][2:])
    assert table["odd"] == [False, True, False, True]
    assert table["big"] == [float(2**40)] * 4  # beyond R's 32-bit integers
    assert list(table) == ["node", "cluster", "role", "score", "rank", "odd", "big"]


# --- the R tutorial ---------------------------------------------------------------------


def _r_missing():
    """Why the R tutorial cannot run here, or None."""
    if shutil.which("Rscript") is None:
        return "Rscript is not installed (Debian: apt-get install r-base-core)"
    check = "cat(names(which(!sapply(c({}), requireNamespace, quietly = TRUE))))".format(
        ", ".join(f'"{p}"' for p in R_PACKAGES)
    )
    done = subprocess.run(["Rscript", "-e", check], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        return f"Rscript fails: {done.stderr.strip()[-300:]}"
    if done.stdout.strip():
        return (
            f"R packages missing: {done.stdout.strip()} "
            "(Debian: apt-get install r-cran-reticulate r-bioc-stringdb r-cran-igraph)"
        )
    if shutil.which("mcl") is None:
        return "mcl is not installed (Debian: apt-get install mcl); the R clusters are checked against it"
    return None


@pytest.fixture(scope="module")
def r_run(tmp_path_factory):
    reason = _r_missing()
    if reason:
        pytest.skip(reason)
    out = tmp_path_factory.mktemp("r_tutorial")
    env = dict(os.environ)
    env["RETICULATE_PYTHON"] = sys.executable
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.pop("NETMCL_ONLINE", None)
    done = subprocess.run(
        ["Rscript", str(TUTORIAL), str(out)], cwd=out, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out, done.stdout


def _lines(path):
    return Path(path).read_text().splitlines()


def test_r_tutorial_clusters_equal_mcl_on_the_same_edges(r_run):
    out, _ = r_run
    # the whole STRING sample was clustered: every link of the file (each pair twice, as
    # STRING lists it; igraph's undirected edges may list a pair's ends either way round)
    def undirected(rows):
        return sorted((*sorted(row[:2]), row[2]) for row in rows)

    with gzip.open(LINKS, "rt") as fh:
        links = undirected(line.split() for line in list(fh)[1:])
    assert undirected(line.split("\t") for line in _lines(out / "edges.abc")) == links
    subprocess.run(
        ["mcl", str(out / "edges.abc"), "--abc", "-I", "2", "-o", str(out / "mcl.out")],
        check=True,
        capture_output=True,
    )
    assert _lines(out / "clusters.txt") == _lines(out / "mcl.out")


def test_r_tutorial_gets_a_data_frame_and_a_vertex_attribute(r_run):
    out, stdout = r_run
    clusters = [line.split("\t") for line in _lines(out / "clusters.txt")]
    number = {v: k for k, c in enumerate(clusters) for v in c}
    # the data.frame, written by R's write.table: node, cluster, in cluster order
    table = [line.split("\t") for line in _lines(out / "clusters_table.tsv")]
    assert table[0] == ["node", "cluster"]
    assert [(v, int(k)) for v, k in table[1:]] == [(v, k) for k, c in enumerate(clusters) for v in c]
    # the igraph vertex attribute: every vertex of STRINGdb's graph, its cluster and colour
    vertices = [line.split("\t") for line in _lines(out / "vertex_clusters.tsv")]
    assert vertices[0] == ["name", "mcl_cluster", "color"]
    colors = cluster_colors([len(c) for c in clusters])
    assert sorted(v for v, _, _ in vertices[1:]) == sorted(number)
    assert all(int(k) == number[v] and c == colors[number[v]] for v, k, c in vertices[1:])
    assert (out / "clusters.png").stat().st_size > 0
    assert "The clustering as an R data.frame:" in stdout
    assert f"from {ROOT / 'netmcl'} " in stdout  # this checkout's netmcl, not an installed one


def test_r_tutorial_prints_the_comparison_with_stringdb(r_run):
    out, stdout = r_run
    clusters = [line.split("\t") for line in _lines(out / "clusters.txt")]
    rows = {}
    for line in stdout.splitlines():
        for method in ("netmcl (mcl -I 2)", "STRINGdb fastgreedy", "STRINGdb walktrap"):
            if line.strip().startswith(method):
                rows[method] = line.strip()[len(method) :].split()
    assert set(rows) == {"netmcl (mcl -I 2)", "STRINGdb fastgreedy", "STRINGdb walktrap"}
    assert int(rows["netmcl (mcl -I 2)"][0]) == len(clusters)
    # the netmcl row: compare_to_complexes on the clusters (equal to mcl's), computed here
    complexes = [[f"4932.{p}" for p in c] for c in load_cyc2008()]
    m = netmcl.compare_to_complexes(clusters, complexes)
    printed = [float(x) for x in rows["netmcl (mcl -I 2)"][1:]]
    expected = [m["sensitivity"], m["ppv"], m["accuracy"], m["separation"], m["fraction_matched"]]
    assert printed == pytest.approx(expected, abs=6e-4)
    assert "netmcl vs fastgreedy: adjusted Rand" in stdout
