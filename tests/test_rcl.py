"""netmcl rcl against rcl 22-282: golden files (tests/golden/rcl, made by make_rcl_golden.py) and live runs.

File by file, what "the same" means:

* ``rcl.join-order``, ``rcl.node-values``, ``rcl.hi.*.txt`` header and root
  line: byte for byte.
* ``rcl.rcl``: the same entries, byte for byte except a few weights in a
  thousand (at most 5) that differ from clm vol's in the sixth significant digit (float
  rounding; they do not change the join order).
* Files listing clusters (``rcl.res*.info/.cls/.labels/.txt``, the lines of
  ``rcl.hi.*.txt``, ``rcl.hi.*.resdot``, ``rcl.sy.*.txt``): the same clusters
  and lines as sets, because rcl orders clusters of equal size differently
  from run to run.  The ``nesting`` tags (``B_A``...) of ``.info`` and
  ``rcl.sy`` number clusters in that order, so they are left out of the
  comparison; netmcl's order (largest first, then smallest node index) is
  checked on its own.
"""

import gzip
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import netmcl
from netmcl.cli.rcl import rcl_main
from netmcl.exceptions import NotAPartitionError, ParameterError
from netmcl.io.native import write_mci, write_native_clustering
from netmcl.rcl import rcl as rcl_function

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden" / "rcl"
sys.path.insert(0, str(HERE / "golden"))
import make_rcl_golden as mk  # noqa: E402

CASES = ["collins", "gavin", "isolated"]


def golden(case):
    with gzip.open(GOLDEN / f"{case}.json.gz", "rt") as fh:
        return json.load(fh)


def _graph(case):
    return netmcl.read_abc(__import__("io").StringIO(mk.abc_text(case)))


def _prepare(case, workdir):
    """The case's network, label table and clusterings as native files in `workdir`, written by netmcl."""
    data = golden(case)
    graph = _graph(case)
    assert list(graph.labels) == data["tab"]  # netmcl reads the nodes in mcxload's order
    ids = netmcl.SparseGraph(graph.matrix)
    write_mci(workdir / "g.mci", ids)
    (workdir / "g.tab").write_text("".join(f"{i}\t{label}\n" for i, label in enumerate(data["tab"])))
    files = []
    for inflation, member in zip(data["inflations"], data["clusterings"]):
        member = np.asarray(member)
        clusters = [np.flatnonzero(member == k).tolist() for k in range(member.max() + 1)]
        write_native_clustering(workdir / f"g.I{inflation}.cls", clusters, n_nodes=member.size)
        files.append(f"g.I{inflation}.cls")
    return data, files


def _netmcl_cli(workdir, files, resolutions, tag="T"):
    here = os.getcwd()
    os.chdir(workdir)
    try:
        assert rcl_main(["setup", tag, "-n", "g.mci", "-t", "g.tab", *files]) == 0
        assert rcl_main(["tree", tag]) == 0
        assert rcl_main(["select", tag, "-r", resolutions]) == 0
    finally:
        os.chdir(here)
    return {p.name: p.read_text() for p in sorted((workdir / tag).iterdir()) if p.name not in mk.SKIPPED}


def _golden_runs(case, G):
    """The case's mcl clusterings, as lists of clusters of `G`'s node labels."""
    labels = list(G.nodes)
    return [[[labels[v] for v in np.flatnonzero(np.asarray(m) == k)] for k in range(max(m) + 1)]
            for m in golden(case)["clusterings"]]


# ---------------------------------------------------------------------------
# comparison, file by file
# ---------------------------------------------------------------------------

def _entries(text):
    body = text.split("begin", 1)[1].rsplit(")", 1)[0]
    out = {}
    for column in body.split("$"):
        tokens = column.split()
        if tokens:
            for tok in tokens[1:]:
                row, value = tok.split(":")
                out[(int(tokens[0]), int(row))] = value
    return out


def _compare_rcl_network(mine, theirs):
    assert mine.split("begin")[0] == theirs.split("begin")[0]
    a, b = _entries(mine), _entries(theirs)
    assert a.keys() == b.keys()
    differ = [k for k in a if a[k] != b[k]]
    assert len(differ) <= max(2, len(a) // 200), differ[:10]
    for k in differ:  # the sixth significant digit at most
        x, y = float(a[k]), float(b[k])
        assert abs(x - y) <= 1.01e-5 * max(abs(x), abs(y)) + 1e-12, (k, a[k], b[k])


def _clusters_of_native(text):
    entries = _entries(text)
    clusters = {}
    for (col, row), value in entries.items():
        assert value == "1"
        clusters.setdefault(col, set()).add(row)
    return clusters


def _drop_column(text, k):
    return Counter("\t".join(f for i, f in enumerate(line.split("\t")) if i != k) for line in text.splitlines())


def _sizes_in_order(info_text):
    return [(int(line.split("\t")[2]), int(line.split("\t")[4].split()[0])) for line in info_text.splitlines()[1:]]


def compare(mine, theirs):
    """Assert that netmcl's TAG files `mine` are rcl's `theirs` (see the module docstring)."""
    assert sorted(mine) == sorted(theirs)
    for name in sorted(theirs):
        a, b = mine[name], theirs[name]
        if name in ("rcl.join-order", "rcl.node-values"):
            assert a == b, name
        elif name == "rcl.rcl":
            _compare_rcl_network(a, b)
        elif name.endswith(".info"):
            assert a.splitlines()[0] == b.splitlines()[0]
            assert _drop_column(a, 3) == _drop_column(b, 3), name
            order = _sizes_in_order(a)  # netmcl's order: largest first, then smallest node index
            assert order == sorted(order, key=lambda t: (-t[0], t[1])), name
        elif name.endswith(".cls"):
            assert a.split("(mclmatrix")[0] == b.split("(mclmatrix")[0], name
            ca, cb = _clusters_of_native(a), _clusters_of_native(b)
            assert sorted(map(sorted, ca.values())) == sorted(map(sorted, cb.values())), name
        elif name.endswith(".labels") or name.endswith(".resdot"):
            assert Counter(a.splitlines()) == Counter(b.splitlines()), name
        elif name.endswith(".txt") and name.startswith("rcl.res"):
            def groups(text):
                g = {}
                for line in text.splitlines():
                    label, k = line.split("\t")
                    g.setdefault(k, set()).add(label)
                return sorted(map(sorted, g.values()))
            assert [line.split("\t")[0] for line in a.splitlines()] == [line.split("\t")[0] for line in b.splitlines()]
            assert groups(a) == groups(b), name
        elif name.startswith("rcl.hi."):
            assert a.splitlines()[:2] == b.splitlines()[:2], name
            assert Counter(a.splitlines()) == Counter(b.splitlines()), name
        elif name.startswith("rcl.sy."):
            assert a.splitlines()[:2] == b.splitlines()[:2], name
            assert _drop_column(a, 6) == _drop_column(b, 6), name
        else:
            raise AssertionError(f"no comparison for {name}")


# ---------------------------------------------------------------------------
# golden files
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES)
def test_cli_writes_rcls_files(case, tmp_path):
    data, files = _prepare(case, tmp_path)
    mine = _netmcl_cli(tmp_path, files, data["resolutions"])
    compare(mine, data["files"])


def test_python_api_gives_rcls_clusterings_and_files(tmp_path):
    data = golden("collins")
    G = netmcl.datasets.load_collins2007()
    labels = list(G.nodes)
    assert labels == data["tab"]
    runs = _golden_runs("collins", G)
    resolutions = [int(r) for r in data["resolutions"].split()]
    res = rcl_function(G, runs, resolutions=resolutions)
    assert res.resolutions == resolutions
    for r in resolutions:
        theirs = sorted(sorted(line.split("\t")) for line in data["files"][f"rcl.res{r}.labels"].splitlines())
        assert sorted(sorted(c) for c in res.clusterings[r]) == theirs
        assert res.clusterings[r].is_partition()
        assert res.clusterings[r].sizes == sorted(res.clusterings[r].sizes, reverse=True)
    # the hierarchy: the lines of rcl.hi.*.txt, parents before children
    hi = data["files"]["rcl.hi.10-20-50.txt"].splitlines()[2:]
    rows = [(h["level"], h["size"], h["joinval"], sorted(h["nodes"])) for h in res.hierarchy]
    theirs = [(int(f[0]), int(f[1]), int(f[2]), sorted(labels[int(v)] for v in f[7].split()))
              for f in (line.split("\t") for line in hi)]
    assert sorted(rows) == sorted(theirs)
    names = {h["name"]: h for h in res.hierarchy}
    for h in res.hierarchy:
        if h["parent"] is not None:
            assert names[h["parent"]]["level"] == h["level"] - 1
            assert set(h["nodes"]) <= set(names[h["parent"]]["nodes"])
    # the Clustering objects of mcl give the same as lists of labels
    same = rcl_function(G, [netmcl.Clustering([np.flatnonzero(np.asarray(m) == k) for k in range(max(m) + 1)], labels)
                            for m in data["clusterings"]], resolutions=resolutions)
    assert all(same.clusterings[r].clusters == res.clusterings[r].clusters for r in resolutions)
    res.write(tmp_path / "T")
    written = {p.name: p.read_text() for p in (tmp_path / "T").iterdir()}
    compare(written, data["files"])
    weights = res.weights
    assert weights.nnz == 2 * 9074 and float(weights.matrix.max()) == 1000.0


def test_the_package_attribute_is_the_function():
    code = "import netmcl, netmcl.rcl; print(callable(netmcl.rcl), netmcl.rcl.__module__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=HERE.parent, check=True)
    assert out.stdout.split() == ["True", "netmcl.rcl"]


# ---------------------------------------------------------------------------
# live: rcl on PATH
# ---------------------------------------------------------------------------

live = pytest.mark.skipif(not mk.have_tools(), reason="rcl, clm, mcl and mcxload (Debian package mcl) are not on PATH")


@live
@pytest.mark.parametrize("case,resolutions", [("collins", "20 40 80 160"), ("gavin", "10 30")])
def test_live_rcl(case, resolutions, tmp_path):
    theirs_dir = tmp_path / "rcl"
    mine_dir = tmp_path / "netmcl"
    theirs_dir.mkdir()
    mine_dir.mkdir()
    _, files = _prepare(case, mine_dir)  # mcl's clusterings from the golden file, at other resolutions
    for name in ["g.mci", "g.tab", *files]:
        (theirs_dir / name).write_bytes((mine_dir / name).read_bytes())
    theirs = mk.run_rcl(theirs_dir, files, resolutions)
    compare(_netmcl_cli(mine_dir, files, resolutions), theirs)


@live
def test_live_self_comparison(tmp_path):
    _, files = _prepare("collins", tmp_path)
    subprocess.run(["clm", "vol", "--self", "-imx", "g.mci", "-write-rcl", "theirs.rcl", "-o", "/dev/null", *files],
                   cwd=tmp_path, capture_output=True, check=True)
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert rcl_main(["setup", "T", "-n", "g.mci", "-t", "g.tab", *files]) == 0
        assert rcl_main(["tree", "T", "-D"]) == 0
    finally:
        os.chdir(here)
    _compare_rcl_network((tmp_path / "T" / "rcl.rcl").read_text(), (tmp_path / "theirs.rcl").read_text())


# ---------------------------------------------------------------------------
# the picture
# ---------------------------------------------------------------------------

def test_picture_has_a_title_axis_names_and_one_bar_per_cluster(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection

    G = netmcl.datasets.load_collins2007()
    res = rcl_function(G, _golden_runs("collins", G), resolutions=[10, 50])
    fig, ax = plt.subplots()
    assert res.plot(ax=ax) is ax
    assert ax.get_title().startswith("Consensus clusters at 2 resolutions (1622 proteins)")
    assert ax.get_xlabel() == "proteins (nodes), grouped by cluster"
    assert ax.get_ylabel() == "resolution (cluster size, rcl -r)"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["50", "10"]
    rows = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert [c.get_label() for c in rows] == ["resolution 50", "resolution 10"]
    # one bar per cluster, as wide as the cluster; each row covers every protein once
    for row, r in zip(rows, (50, 10)):
        boxes = [p.get_extents() for p in row.get_paths()]
        assert sorted(int(round(box.width)) for box in boxes) == sorted(res.clusterings[r].sizes)
        spans = sorted((box.x0, box.x1) for box in boxes)
        assert spans[0][0] == 0 and spans[-1][1] == 1622
        assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
        grey = sum(1 for f in row.get_facecolors() if matplotlib.colors.to_hex(f) == "#dddddd")
        assert grey == sum(1 for size in res.clusterings[r].sizes if size < 10)
    labelled = {t.get_text() for t in ax.texts}
    assert str(res.clusterings[50].sizes[0]) in labelled
    plt.close(fig)
    path = res.plot_to_file(tmp_path / "h.png")
    assert Path(path).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------

def test_bad_input_gets_clear_errors(tmp_path, capsys):
    G = netmcl.datasets.load_collins2007()
    run = netmcl.mcl(G, inflation=2)
    with pytest.raises(ParameterError, match="at least two clusterings"):
        rcl_function(G, [run], resolutions=[10])
    with pytest.raises(NotAPartitionError, match="leaves 1 of the 1622 nodes out"):
        rcl_function(G, [run, run.clusters[1:] + [run.clusters[0][1:]]], resolutions=[10])
    with pytest.raises(ParameterError, match="not a node of the graph"):
        rcl_function(G, [run, [["nope"]]], resolutions=[10])
    with pytest.raises(ParameterError, match="positive cluster size"):
        rcl_function(G, [run, run], resolutions=[0])
    with pytest.raises(ParameterError, match="a number"):
        rcl_function(G, [run, run], resolutions=["ten"])
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert rcl_main(["tree", "T"]) == 1
        assert "did you run netmcl rcl setup T?" in capsys.readouterr().err
        (tmp_path / "g.abc").write_text("a\tb\t1\n")
        assert rcl_main(["setup", "T", "-n", "g.abc", "-t", "g.abc", "x.cls", "y.cls"]) == 1
        assert "native network format" in capsys.readouterr().err
        assert rcl_main(["setup", "T"]) == 2
        assert "requires -n" in capsys.readouterr().err
        assert rcl_main(["select", "T", "-r", "10"]) == 1
        assert "did you run netmcl rcl tree T?" in capsys.readouterr().err
        assert rcl_main(["select", "-T"]) == 2
    finally:
        os.chdir(here)


@live
@pytest.mark.parametrize("seed", range(4))
def test_live_rcl_on_random_networks(seed, tmp_path):
    """Small random networks (isolated nodes, many equal weights and sizes), random inflations and resolutions."""
    import networkx as nx

    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 120))
    G = nx.gnm_random_graph(n, int(n * rng.uniform(1.0, 3.0)), seed=seed)
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.choice([1, 0.5, 0.2]))
    graph = netmcl.adapters.to_sparse_graph(G)
    mine_dir, theirs_dir = tmp_path / "netmcl", tmp_path / "rcl"
    files = []
    for inflation in rng.choice([1.2, 1.4, 1.6, 2, 2.5, 3, 4, 5], size=int(rng.integers(2, 6)), replace=False):
        clustering = netmcl.mcl(graph, inflation=float(inflation))
        files.append(f"g.I{inflation}.cls")
        for d in (mine_dir, theirs_dir):
            d.mkdir(exist_ok=True)
            write_native_clustering(d / files[-1], [c.tolist() for c in clustering.index_clusters], n_nodes=n)
    for d in (mine_dir, theirs_dir):
        write_mci(d / "g.mci", graph)
        (d / "g.tab").write_text("".join(f"{k}\tn{k}\n" for k in range(n)))
    resolutions = " ".join(str(r) for r in sorted(set(rng.choice([2, 3, 4, 5, 8, 10, 16, 20], size=3).tolist())))
    compare(_netmcl_cli(mine_dir, files, resolutions), mk.run_rcl(theirs_dir, files, resolutions))


def test_mcl_mode_makes_mcls_clusterings_in_the_project_directory(tmp_path):
    data, _ = _prepare("collins", tmp_path)
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert rcl_main(["mcl", "T", "-n", "g.mci", "-I", "3 1.4"]) == 0
        assert (tmp_path / "T" / "rcl.lsocls").read_text() == "T/out.g.mci.I140\nT/out.g.mci.I300\n"
        assert rcl_main(["setup", "T", "-n", "g.mci", "-t", "g.tab"]) == 0  # the clusterings listed by 'mcl'
    finally:
        os.chdir(here)
    for name, inflation in (("out.g.mci.I140", "1.4"), ("out.g.mci.I300", "3")):
        golden_member = data["clusterings"][data["inflations"].index(inflation)]
        assert mk.memberships(tmp_path / "T" / name) == golden_member
