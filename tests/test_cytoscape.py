"""netmcl.cytoscape.push, run for real through py4cytoscape against the CyREST stand-in.

The stand-in (netmcl.testing.cyrest_standin) listens on 127.0.0.1:1234, where
py4cytoscape looks for Cytoscape, keeps networks, tables and styles as
Cytoscape does, and the tests assert on what it holds after a push.
"""

import importlib.util
import logging
import os
import runpy
import socket
import subprocess
import sys
import time
from http.server import HTTPServer, SimpleHTTPRequestHandler
from pathlib import Path
from threading import Thread

import networkx as nx
import pytest

from netmcl.testing.cyrest_standin import CyRESTStandIn, quiet_py4cytoscape

if importlib.util.find_spec("py4cytoscape") is None:
    pytest.skip("py4cytoscape is not installed (pip install 'netmcl[test]')", allow_module_level=True)
if "py4cytoscape" not in sys.modules:
    # before py4cytoscape's first import: log under a temp dir, no safety sleeps, no internet fallback
    quiet_py4cytoscape()

import netmcl  # noqa: E402
from netmcl import CytoscapeError, ParameterError  # noqa: E402
from netmcl.palette import NEUTRAL, PALETTE, cluster_colors  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def server():
    standin = CyRESTStandIn()
    try:
        standin.start()
    except OSError as e:
        pytest.fail(str(e))
    yield standin
    standin.stop()


@pytest.fixture
def cytoscape(server):
    """The stand-in, as a fresh Cytoscape session."""
    server.reset()
    return server


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cliques(sizes):
    """Disjoint cliques joined in a chain by one edge each: MCL finds the cliques."""
    G = nx.Graph()
    start = 0
    for k, size in enumerate(sizes):
        nodes = [f"p{start + i}" for i in range(size)]
        G.add_edges_from((a, b) for i, a in enumerate(nodes) for b in nodes[i + 1:])
        if k:
            G.add_edge(f"p{start - 1}", nodes[0], weight=0.1)
        start += size
    return G


def test_push_creates_network_with_every_cluster_and_discrete_colours(cytoscape):
    G = nx.karate_club_graph()
    cl = netmcl.mcl(G)
    suid = netmcl.cytoscape.push(G, cl, title="karate", layout=True)

    net = cytoscape.network(suid)
    assert net.title == "karate" and net.collection == "netmcl"
    assert len(net.node_table.rows) == 34 and len(net.edge_table.rows) == G.number_of_edges()
    assert net.node_table.columns["mcl_cluster"]["type"] == "Integer"
    nodes = net.nodes()
    assert {name: row["mcl_cluster"] for name, row in nodes.items()} == {str(v): k for v, k in cl.membership.items()}
    assert nodes["0"]["club"] == "Mr. Hi"  # G's node attributes came along
    weights = {(r["source"], r["target"]): r["weight"] for r in net.edge_table.records()}
    assert weights[("0", "1")] == G.edges[0, 1]["weight"]

    assert net.style == "netmcl karate"
    mapping = cytoscape.styles["netmcl karate"].mappings["NODE_FILL_COLOR"]
    assert mapping["mappingType"] == "discrete" and mapping["mappingColumn"] == "mcl_cluster"
    assert mapping["mappingColumnType"] == "Integer"
    assert mapping["map"] == [{"key": str(k), "value": c} for k, c in enumerate(PALETTE[: len(cl)])]
    assert cytoscape.styles["netmcl karate"].mappings["NODE_LABEL"]["mappingType"] == "passthrough"
    colours = cytoscape.node_fill_colors(suid)
    assert all(colours[str(v)] == PALETTE[k] for v, k in cl.membership.items())
    assert net.layouts[-1] == ("attributes-layout", {"nodeAttribute": "mcl_cluster"})
    assert cytoscape.styles["default"].mappings == {}  # the user's default style is left alone


def test_largest_clusters_get_the_palette_in_order_and_the_rest_share_the_neutral_colour(cytoscape):
    sizes = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]  # 12 clusters, more than the palette's 9 colours
    G = _cliques(sizes)
    cl = netmcl.mcl(G, sort="size")  # cluster 0 is the smallest: colours must follow size, not number
    assert cl.sizes == sizes
    suid = netmcl.cytoscape.push(G, cl, column="clique", title="cliques")

    colours = cytoscape.node_fill_colors(suid)
    by_cluster = {k: {colours[v] for v in cluster} for k, cluster in enumerate(cl)}
    assert all(len(c) == 1 for c in by_cluster.values())
    expected = [NEUTRAL, NEUTRAL, NEUTRAL] + list(reversed(PALETTE))  # 14 nodes -> PALETTE[0], ...
    assert [by_cluster[k].pop() for k in range(12)] == expected
    mapping = cytoscape.styles["netmcl cliques"].mappings["NODE_FILL_COLOR"]
    assert mapping["mappingColumn"] == "clique" and len(mapping["map"]) == 12
    assert cytoscape.styles["netmcl cliques"].defaults["NODE_FILL_COLOR"] == NEUTRAL


def test_custom_palette_and_style_name(cytoscape):
    G = nx.karate_club_graph()
    cl = netmcl.mcl(G)
    suid = netmcl.cytoscape.push(G, cl, palette=["#112233", "#445566"], style_name="mine")
    assert cytoscape.network(suid).style == "mine"
    assert set(cytoscape.node_fill_colors(suid).values()) == {"#112233", "#445566", NEUTRAL}
    with pytest.raises(ParameterError, match="'#RRGGBB'"):
        netmcl.cytoscape.push(G, cl, palette=["red"])


def test_push_into_an_open_network_matches_nodes_by_key_column(cytoscape, caplog):
    G = _cliques([4, 5, 6])
    cl = netmcl.mcl(G)
    # a network already in Cytoscape (say, from a session): node "name" holds display names,
    # "orf" holds our labels; one of our nodes is missing there and it has a node of its own
    nodes = [{"name": f"gene{v[1:]}", "orf": v} for v in G if v != "p14"] + [{"name": "extra", "orf": "x1"}]
    suid = cytoscape.add_network("session network", nodes, [("gene0", "gene1")])

    with caplog.at_level(logging.WARNING, logger="netmcl"):
        got = netmcl.cytoscape.push(G, cl, network="session network", key_column="orf")
    assert got == suid and len(cytoscape.networks) == 1
    rows = {row["orf"]: row for row in cytoscape.network(suid).node_table.records()}
    assert all(rows[v]["mcl_cluster"] == k for v, k in cl.membership.items() if v != "p14")
    assert rows["x1"]["mcl_cluster"] is None
    assert "14 of the graph's 15 clustered nodes matched" in caplog.text
    assert cytoscape.network(suid).style == "netmcl session network"
    colours = cytoscape.node_fill_colors(suid)
    assert colours["gene0"] == cluster_colors(cl.sizes)[cl.membership["p0"]]

    assert netmcl.cytoscape.push(G, cl, network=suid, key_column="orf", column="again") == suid
    assert "again" in cytoscape.network(suid).node_table.columns


def test_open_network_errors_say_what_is_there(cytoscape):
    G = _cliques([4, 5])
    cl = netmcl.mcl(G)
    cytoscape.add_network("ppi", [{"name": v, "symbol": v.upper()} for v in G])
    with pytest.raises(CytoscapeError, match=r"No network 'nope' is open.*'ppi' \(SUID \d+\)"):
        netmcl.cytoscape.push(G, cl, network="nope")
    with pytest.raises(CytoscapeError, match=r"no node column 'orf'.*'symbol'"):
        netmcl.cytoscape.push(G, cl, network="ppi", key_column="orf")
    with pytest.raises(CytoscapeError, match=r"None of the graph's 9 nodes matches.*'symbol'.*\['P0', 'P1'"):
        netmcl.cytoscape.push(G, cl, network="ppi", key_column="symbol")
    assert "mcl_cluster" not in cytoscape.network("ppi").node_table.columns


def test_sparse_graph_from_a_file_is_sent_with_string_keys_and_weights(cytoscape, tmp_path):
    path = tmp_path / "g.abc"
    path.write_text("1\t2\t0.5\n2\t3\t1\n1\t3\t2\n4\t5\t1\n")
    graph = netmcl.read_abc(path)
    cl = netmcl.mcl(graph)
    suid = netmcl.cytoscape.push(graph, cl, title="from file")
    net = cytoscape.network(suid)
    assert {r["name"]: r["mcl_cluster"] for r in net.node_table.records()} == {
        str(v): k for v, k in cl.membership.items()
    }
    weights = {frozenset((r["source"], r["target"])): r["weight"] for r in net.edge_table.records()}
    assert weights == {frozenset("12"): 0.5, frozenset("23"): 1.0, frozenset("13"): 2.0, frozenset("45"): 1.0}

    matrix_graph = nx.to_scipy_sparse_array(nx.path_graph(4))  # integer labels 0..3
    suid = netmcl.cytoscape.push(matrix_graph, netmcl.mcl(matrix_graph), title="matrix")
    assert sorted(cytoscape.network(suid).nodes()) == ["0", "1", "2", "3"]


def test_no_cytoscape_gives_a_fast_clear_error():
    G = nx.karate_club_graph()
    cl = netmcl.mcl(G)
    url = f"http://127.0.0.1:{_free_port()}/v1"
    start = time.perf_counter()
    with pytest.raises(CytoscapeError) as info:
        netmcl.cytoscape.push(G, cl, base_url=url)
    assert time.perf_counter() - start < 3
    message = str(info.value)
    assert f"No Cytoscape answered at {url} (nothing listens there)" in message
    assert "Start Cytoscape" in message and "clustering is unaffected" in message
    assert cl.sizes == [16, 15, 3]


def test_a_server_that_is_not_cytoscape_is_reported(tmp_path):
    handler = lambda *a: SimpleHTTPRequestHandler(*a, directory=str(tmp_path))  # noqa: E731
    web = HTTPServer(("127.0.0.1", 0), handler)
    web.RequestHandlerClass.log_message = lambda *a: None
    Thread(target=web.serve_forever, daemon=True).start()
    try:
        G = nx.path_graph(3)
        with pytest.raises(CytoscapeError, match="the answer was not CyREST's: 404"):
            netmcl.cytoscape.push(G, netmcl.mcl(G), base_url=f"http://127.0.0.1:{web.server_port}/v1")
    finally:
        web.shutdown()
        web.server_close()


def test_bad_inputs_are_refused_before_contacting_cytoscape():
    G = nx.Graph([(1, "1")])
    with pytest.raises(ParameterError, match="same string form. Got '1' twice"):
        netmcl.cytoscape.push(G, netmcl.mcl(G), base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ParameterError, match="None of the graph's nodes is in the clustering"):
        netmcl.cytoscape.push(nx.path_graph(["a", "b"]), netmcl.mcl(nx.path_graph(3)))
    with pytest.raises(ParameterError, match="cannot be 'name', which identifies the nodes"):
        netmcl.cytoscape.push(nx.path_graph(3), netmcl.mcl(nx.path_graph(3)), column="name")
    with pytest.raises(ParameterError, match="cannot be 'orf'"):
        netmcl.cytoscape.push(nx.path_graph(3), netmcl.mcl(nx.path_graph(3)), network="x", key_column="orf", column="orf")


def test_missing_py4cytoscape_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "py4cytoscape", None)  # what an environment without it looks like
    G = nx.path_graph(3)
    with pytest.raises(netmcl.BackendUnavailableError, match=r"pip install 'netmcl\[cytoscape\]'"):
        netmcl.cytoscape.push(G, netmcl.mcl(G))


def test_busy_port_fails_with_a_clear_message(server):
    with pytest.raises(OSError, match="Another program .* holds that port"):
        CyRESTStandIn(port=server.port).start()


def test_standin_answers_like_cyrest_for_errors(cytoscape):
    import requests

    base = cytoscape.base_url
    reply = requests.get(f"{base}/networks/999/tables/defaultnode/columns")
    assert reply.status_code == 404
    error = reply.json()["errors"][0]
    assert error["message"] == "Could not find Network with SUID: 999"
    assert error["type"] == "urn:cytoscape:ci:cyrest-core:v1:networks:errors:1"
    reply = requests.post(f"{base}/commands/nosuch/thing", json={})
    assert reply.status_code == 500 and reply.json()["errors"][0]["message"].startswith("Failed to find command namespace")
    suid = cytoscape.add_network("n", [{"name": "a"}])
    reply = requests.post(f"{base}/networks/{suid}/tables/defaultnode/columns", json={"name": "name", "type": "String"})
    assert reply.status_code == 500 and "Column already exists: name" in reply.text
    reply = requests.put(f"{base}/networks/{suid}/tables/defaultnode", json={"key": "nope", "data": []})
    assert reply.status_code == 404


def test_cli_cytoscape_pushes_after_writing_the_clusters(cytoscape, tmp_path):
    from netmcl import cli

    graph = tmp_path / "g.abc"
    graph.write_text("a\tb\t1\nb\tc\t1\na\tc\t1\nd\te\t1\ne\tf\t1\nd\tf\t1\nc\td\t0.1\n")
    out = tmp_path / "out.txt"
    assert cli.main([str(graph), "--abc", "-o", str(out), "--cytoscape"]) == 0
    assert out.read_text().splitlines() == ["a\tb\tc", "d\te\tf"]
    (net,) = cytoscape.networks
    assert {r["name"]: r["mcl_cluster"] for r in net.node_table.records()} == {
        "a": 0, "b": 0, "c": 0, "d": 1, "e": 1, "f": 1
    }
    assert set(cytoscape.node_fill_colors(net.suid).values()) == set(PALETTE[:2])


def test_cli_without_cytoscape_still_writes_the_clusters(tmp_path, capsys):
    from netmcl import cli

    graph = tmp_path / "g.abc"
    graph.write_text("a\tb\t1\nb\tc\t1\n")
    out = tmp_path / "out.txt"
    status = cli.main([str(graph), "--abc", "-o", str(out), "--cytoscape-url", f"http://127.0.0.1:{_free_port()}/v1"])
    assert status == 1
    assert out.read_text() == "a\tb\tc\n"
    err = capsys.readouterr().err
    assert "No Cytoscape answered" in err and "Start Cytoscape" in err and "clusters were written" in err


def test_cli_in_a_fresh_process_with_a_non_default_url(tmp_path):
    """Any URL but 127.0.0.1:1234 puts py4cytoscape in remote mode (sandbox set-up first)."""
    graph = tmp_path / "g.abc"
    graph.write_text("a\tb\t1\nb\tc\t1\na\tc\t1\nd\te\t1\ne\tf\t1\nd\tf\t1\nc\td\t0.1\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    with CyRESTStandIn(port=0) as remote:
        done = subprocess.run(
            [sys.executable, "-m", "netmcl", str(graph), "--abc", "-o", str(tmp_path / "out"),
             "--cytoscape-url", remote.base_url],
            env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert "POST /v1/commands/filetransfer/setSandbox" in remote.requests
        (net,) = remote.networks
        assert sorted(net.nodes()) == list("abcdef") and net.style == "netmcl MCL clusters"
    assert not (tmp_path / "logs").exists()  # py4cytoscape's log went to the cache, not the cwd


def test_tutorial_runs_and_pushes_the_yeast_network(cytoscape, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ns = runpy.run_path(str(ROOT / "tutorials" / "03_draw_and_cytoscape.py"), run_name="__main__")
    # the figures the tutorial's prose quotes
    assert len(ns["clustering"]) == 300 and max(ns["clustering"].sizes) == 161
    table = {row["inflation"]: row for row in ns["result"].table}
    assert [table[i]["n_clusters"] for i in (1.4, 2.0, 3.0, 4.0)] == [252, 300, 330, 366]
    assert round(table[1.4]["accuracy"], 3) == 0.769 and round(table[3.0]["accuracy"], 3) == 0.792
    assert round(table[1.4]["mass_fraction"], 2) == 0.97 and round(table[4.0]["efficiency"], 2) == 0.69
    for name in ("yeast_clusters", "yeast_cluster_graph", "yeast_cluster_sizes", "yeast_inflation_sweep"):
        assert (tmp_path / f"{name}.png").stat().st_size > 10_000
    page = (tmp_path / "yeast_view.html").read_text(encoding="utf-8")
    assert page == ns["page"].html  # the largest cluster is named by its CYC2008 complex, proteins by gene
    assert '"cytoplasmic ribosomal large subunit"' in page and '"TFC3"' in page
    net = cytoscape.network("Collins 2007 yeast PPI")
    assert len(net.node_table.rows) == 1622 and len(net.edge_table.rows) == 9074
    clusters = net.node_table.column("mcl_cluster")
    assert None not in clusters and len(set(clusters)) == 300
    assert net.style == "netmcl Collins 2007 yeast PPI"
    assert net.layouts[-1] == ("attributes-layout", {"nodeAttribute": "mcl_cluster"})


def test_quiet_py4cytoscape_refuses_once_py4cytoscape_is_imported():
    import py4cytoscape  # noqa: F401  (already imported by the pushes above, or now)

    with pytest.raises(netmcl.NetmclError, match="call quiet_py4cytoscape\\(\\) before the first import"):
        quiet_py4cytoscape()


def test_quiet_py4cytoscape_removes_only_the_log_directory_it_made_at_exit(tmp_path):
    # in a child process, where py4cytoscape is not imported yet
    code = (
        "import os, sys\n"
        "from netmcl.testing.cyrest_standin import quiet_py4cytoscape\n"
        "assert quiet_py4cytoscape(sys.argv[1]) == sys.argv[1]\n"
        "made = quiet_py4cytoscape()\n"
        "import py4cytoscape\n"
        "assert os.listdir(made), 'py4cytoscape wrote no log there'\n"
        "print(made)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    made = done.stdout.strip().splitlines()[-1]
    assert os.path.basename(made).startswith("py4cytoscape-logs-")
    assert not os.path.exists(made) and tmp_path.is_dir()


def test_push_names_clusters_and_labels_nodes(cytoscape):
    """Node labels from an attribute; each node's cluster name in <column>_name (best complex, else hubs)."""
    G = nx.karate_club_graph()
    nx.set_node_attributes(G, {v: f"P{v:02d}" for v in G}, "symbol")
    cl = netmcl.mcl(G)
    first = sorted(cl.clusters[0], key=str)
    suid = netmcl.cytoscape.push(G, cl, title="named", label_attribute="symbol", complexes={"the complex": first})
    net = cytoscape.network(suid)
    label = cytoscape.styles["netmcl named"].mappings["NODE_LABEL"]
    assert label["mappingType"] == "passthrough" and label["mappingColumn"] == "symbol"
    names = {r["name"]: r["mcl_cluster_name"] for r in net.node_table.records()}
    assert all(names[str(v)] == "the complex" for v in first)
    others = [str(v) for v, k in cl.membership.items() if k == 1]
    assert {names[v] for v in others} == {names[others[0]]} and names[others[0]].startswith("P")
    with pytest.raises(netmcl.ParameterError, match="gene_symbol"):
        netmcl.cytoscape.push(G, cl, label_attribute="gene_symbol")
