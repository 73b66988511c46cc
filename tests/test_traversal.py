"""netmcl.traversal against scipy.sparse.csgraph, NetworkX and igraph, on both engines.

The GPU engine runs its numba-cuda kernels in numba's CUDA simulator where
there is no GPU (tests/conftest.py sets NUMBA_ENABLE_CUDASIM), on graphs of a
few dozen nodes and in blocks of 8 threads.
"""

import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import netmcl
from netmcl.exceptions import BackendUnavailableError, ParameterError
from netmcl.traversal import (
    Components,
    as_net,
    bfs,
    connected_components,
    shortest_paths,
    strongly_connected_components,
)

DATA = Path(__file__).parent / "data"


@pytest.fixture
def small_blocks(monkeypatch):
    """The GPU engine in blocks of 8 threads (fast in the simulator; answers must not depend on it)."""
    from netmcl.traversal import _gpu

    if _gpu.available() is not None:
        pytest.skip(_gpu.available())
    monkeypatch.setattr(_gpu, "THREADS", 8)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    yield
    sys.setswitchinterval(old)


def _random_graph(n, p, seed, directed, *, zeros=False):
    """A seeded graph whose node order is neither sorted nor id order: labels are shuffled strings."""
    rng = np.random.default_rng(seed)
    G0 = nx.gnp_random_graph(n, p, seed=seed, directed=directed)
    names = [f"{chr(97 + int(x) % 26)}{int(x)}" for x in rng.permutation(10 * n)[:n]]
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(names[i] for i in rng.permutation(n))  # node order: a third order
    for u, v in G0.edges:
        G.add_edge(names[u], names[v], weight=int(rng.integers(0 if zeros else 1, 10)))
    return G


def _scipy(G, weight="weight"):
    """G as a scipy matrix in G's node order (row -> column arcs), explicit zeros kept."""
    nodes = list(G)
    ids = {v: i for i, v in enumerate(nodes)}
    rows, cols, vals = [], [], []
    for u, v, w in G.edges(data=weight, default=1):
        rows.append(ids[u]), cols.append(ids[v]), vals.append(float(w) if weight else 1.0)
        if not G.is_directed():
            rows.append(ids[v]), cols.append(ids[u]), vals.append(float(w) if weight else 1.0)
    return sp.csr_array((vals, (rows, cols)), shape=(len(nodes), len(nodes))), nodes


def _partition(sets):
    return sorted(sorted(map(str, s)) for s in sets)


def _canonical_from_sets(G, sets):
    """Component numbers by order of each component's first node in G's node order."""
    of = {v: k for k, s in enumerate(sets) for v in s}
    new, out = {}, {}
    for v in G:
        out[v] = new.setdefault(of[v], len(new))
    return out


# ---------------------------------------------------------------------------
# breadth-first search
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("k", [1, 3, 70])  # one queue, a few queues, two 64-source words
def test_bfs_matches_scipy_and_networkx(directed, k):
    G = _random_graph(120, 0.02, seed=5 + k, directed=directed)
    M, nodes = _scipy(G, weight=None)
    sources = nodes[::7][:k] if k < 70 else [nodes[i] for i in np.random.default_rng(1).permutation(120)[:k]]
    r = bfs(G, sources)
    ids = [nodes.index(s) for s in sources]
    ref = csgraph.shortest_path(M, directed=True, unweighted=True, indices=ids)
    expected = np.where(np.isinf(ref), -1, ref).astype(np.int32)
    np.testing.assert_array_equal(r.matrix, expected)
    assert r.matrix.dtype == np.int32
    assert r.sources == sources and r.labels == nodes
    for s in sources[:5]:
        assert r[s] == nx.single_source_shortest_path_length(G, s)


def test_bfs_matches_igraph_on_a_bundled_network():
    ig = pytest.importorskip("igraph")
    from netmcl.datasets import load_collins2007

    G = load_collins2007()
    g = ig.Graph.from_networkx(G)
    names = g.vs["_nx_name"]
    sources = [names[i] for i in (0, 17, 400, 1000)]
    r = bfs(G, sources)
    ref = np.asarray(g.distances(source=[names.index(s) for s in sources]))
    order = [names.index(v) for v in r.labels]
    np.testing.assert_array_equal(np.where(r.matrix < 0, np.inf, r.matrix), ref[:, order])


def test_bfs_trees_are_shortest_and_take_the_smallest_parent():
    G = _random_graph(80, 0.04, seed=2, directed=True)
    nodes = list(G)
    r = bfs(G, nodes[:4])
    for s in nodes[:4]:
        hops = r[s]
        pred = r.predecessors(s)
        assert set(pred) == set(hops) - {s}
        for v, p in pred.items():
            parents = [u for u in G.predecessors(v) if hops.get(u) == hops[v] - 1]
            assert p == min(parents, key=nodes.index)
        far = max(hops, key=hops.get)
        path = r.path(s, far)
        assert len(path) == hops[far] + 1 and nx.is_path(G, path)


def test_unreachable_nodes_and_bad_sources():
    G = nx.DiGraph([("a", "b"), ("b", "c")])
    G.add_node("lonely")
    r = bfs(G, "c")
    assert r["c"] == {"c": 0}
    assert r.matrix.tolist() == [[-1, -1, 0, -1]]
    with pytest.raises(ParameterError, match="cannot be reached"):
        r.path("c", "a")
    with pytest.raises(ParameterError, match="'zz' is not in the graph"):
        bfs(G, ["a", "zz"])
    with pytest.raises(ParameterError, match="engine"):
        bfs(G, "a", engine="tpu")


def test_all_sources_by_default():
    G = nx.cycle_graph(5)
    np.testing.assert_array_equal(bfs(G).matrix, csgraph.shortest_path(nx.to_scipy_sparse_array(G), unweighted=True))


# ---------------------------------------------------------------------------
# shortest paths
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("directed", [False, True])
def test_shortest_paths_match_scipy_and_networkx(directed):
    G = _random_graph(100, 0.04, seed=11, directed=directed, zeros=True)
    M, nodes = _scipy(G)
    sources = nodes[:3]
    r = shortest_paths(G, sources)
    ref = csgraph.dijkstra(M, directed=True, indices=[0, 1, 2])
    np.testing.assert_array_equal(r.matrix, ref)
    for s in sources:
        assert r[s] == nx.single_source_dijkstra_path_length(G, s)
        for t, d in list(r[s].items())[-5:]:
            path = r.path(s, t)
            assert path[0] == s and path[-1] == t
            assert sum(G[u][v]["weight"] for u, v in zip(path, path[1:])) == d


def test_shortest_paths_with_float_weights_and_zero_weight_cycles():
    G = nx.DiGraph()
    G.add_weighted_edges_from([("s", "a", 0.1), ("a", "b", 0.0), ("b", "a", 0.0), ("b", "t", 0.2),
                               ("s", "t", 0.30000000000000004), ("t", "u", 1.5)])
    r = shortest_paths(G, "s")
    assert r["s"] == nx.single_source_dijkstra_path_length(G, "s")
    assert r.path("s", "u")[-1] == "u" and r.predecessors("s")["a"] == "s"
    assert r.predecessors("s")["b"] == "a"  # weight-0 arcs a <-> b cannot make the tree a cycle


def test_directed_shortest_paths_follow_arcs_forwards_only():
    r = shortest_paths(nx.DiGraph([("a", "b", {"weight": 2}), ("b", "c", {"weight": 3})]), ["a", "c"])
    assert r["a"] == {"a": 0.0, "b": 2.0, "c": 5.0}
    assert r["c"] == {"c": 0.0}


@pytest.mark.parametrize("make", ["networkx", "scipy", "igraph", "pandas"])
def test_negative_weights_are_refused_naming_the_edge(make):
    edges = [("p", "q", 1.0), ("q", "r", -2.5)]
    if make == "networkx":
        G = nx.Graph()
        G.add_weighted_edges_from(edges)
        where = "('q', 'r', -2.5)"
    elif make == "scipy":
        G = sp.csr_array(([1.0, -2.5], ([0, 1], [1, 2])), shape=(3, 3))
        where = "(1, 2, -2.5)"
    elif make == "igraph":
        ig = pytest.importorskip("igraph")
        G = ig.Graph.TupleList(edges, weights=True)
        where = "('q', 'r', -2.5)"
    else:
        pd = pytest.importorskip("pandas")
        G = pd.DataFrame(edges, columns=["source", "target", "weight"])
        where = "('q', 'r', -2.5)"
    with pytest.raises(ParameterError, match=r"non-negative.*" + where.replace("(", r"\(").replace(")", r"\)")):
        shortest_paths(G, 0 if make == "scipy" else "p")


def test_weight_none_counts_hops():
    G = nx.Graph([("a", "b", {"weight": 5}), ("b", "c", {"weight": 5})])
    assert shortest_paths(G, "a", weight=None)["a"] == {"a": 0.0, "b": 1.0, "c": 2.0}


# ---------------------------------------------------------------------------
# components
# ---------------------------------------------------------------------------

def test_component_labels_follow_the_node_names():
    """cuRnet's bug: labels attached to names in another order (hash order instead of id order).

    Node order here is neither sorted nor the order of the edges, and the graph has
    several components of different sizes, so any misalignment changes the answer."""
    G = nx.DiGraph()
    G.add_nodes_from(["z9", "a1", "m5", "k2", "b7", "y3", "c4"])
    G.add_edges_from([("a1", "c4"), ("c4", "a1"), ("y3", "z9"), ("z9", "y3"), ("z9", "b7"), ("b7", "y3"),
                      ("k2", "m5")])
    scc = strongly_connected_components(G)
    assert scc.membership == {"z9": 0, "a1": 1, "m5": 2, "k2": 3, "b7": 0, "y3": 0, "c4": 1}
    assert scc.components == [["z9", "b7", "y3"], ["a1", "c4"], ["m5"], ["k2"]]
    wcc = connected_components(G)
    assert wcc.membership == {"z9": 0, "a1": 1, "m5": 2, "k2": 2, "b7": 0, "y3": 0, "c4": 1}
    for node in G:
        expected = next(c for c in nx.strongly_connected_components(G) if node in c)
        assert set(scc.components[scc[node]]) == expected


@pytest.mark.parametrize("directed", [False, True])
def test_components_match_networkx_and_scipy(directed):
    G = _random_graph(150, 0.012, seed=7, directed=directed)
    M, nodes = _scipy(G, weight=None)
    wcc = connected_components(G)
    ref = nx.weakly_connected_components(G) if directed else nx.connected_components(G)
    ref = list(ref)
    assert _partition(wcc.components) == _partition(ref)
    assert wcc.membership == _canonical_from_sets(G, ref)
    n_ref, labels = csgraph.connected_components(M, directed=True, connection="weak")
    assert len(wcc) == n_ref
    assert _partition(wcc.components) == _partition(
        [[nodes[i] for i in np.flatnonzero(labels == c)] for c in range(n_ref)])
    scc = strongly_connected_components(G)
    ref = list(nx.strongly_connected_components(G)) if directed else ref
    assert scc.membership == _canonical_from_sets(G, ref)
    assert isinstance(scc, Components) and scc.sizes.sum() == len(G)


def test_strong_components_match_igraph():
    ig = pytest.importorskip("igraph")
    G = _random_graph(300, 0.008, seed=3, directed=True)
    g = ig.Graph.from_networkx(G)
    ref = g.connected_components(mode="strong")
    names = g.vs["_nx_name"]
    sets = [{names[i] for i in c} for c in ref]
    assert strongly_connected_components(G).membership == _canonical_from_sets(G, sets)


# ---------------------------------------------------------------------------
# inputs
# ---------------------------------------------------------------------------

def test_every_input_kind_gives_the_same_answer():
    ig = pytest.importorskip("igraph")
    pd = pytest.importorskip("pandas")
    edges = [("g1", "g2", 2.0), ("g2", "g3", 1.0), ("g1", "g3", 5.0), ("g4", "g5", 1.0)]
    G = nx.Graph()
    G.add_weighted_edges_from(edges)
    expected = {"g1": 0.0, "g2": 2.0, "g3": 3.0}
    inputs = [G, edges, ig.Graph.TupleList(edges, weights=True),
              pd.DataFrame(edges, columns=["source", "target", "weight"]),
              netmcl.adapters.to_sparse_graph(edges)]
    for obj in inputs:
        assert shortest_paths(obj, "g1")["g1"] == expected, type(obj)
        assert bfs(obj, "g1")["g1"] == {"g1": 0, "g2": 1, "g3": 1}, type(obj)
        assert connected_components(obj).membership == {"g1": 0, "g2": 0, "g3": 0, "g4": 1, "g5": 1}


def test_scipy_input_uses_integer_ids_and_csgraph_arc_direction():
    M = sp.csr_array(([1.0, 1.0], ([0, 1], [1, 2])), shape=(4, 4))  # 0 -> 1 -> 2, node 3 alone
    assert bfs(M, 0)[0] == {0: 0, 1: 1, 2: 2}
    assert bfs(M, 2)[2] == {2: 0}
    assert strongly_connected_components(M).membership == {0: 0, 1: 1, 2: 2, 3: 3}
    assert connected_components(M).membership == {0: 0, 1: 0, 2: 0, 3: 1}


def test_label_file_and_string_file():
    g = netmcl.read_abc(DATA / "io" / "random40.abc")
    net = as_net(g)
    r = bfs(g, g.labels[:3])
    ref = csgraph.shortest_path(net.csr(), unweighted=True, indices=[0, 1, 2])
    np.testing.assert_array_equal(np.where(r.matrix < 0, np.inf, r.matrix), ref)
    G = netmcl.read_string(DATA / "string" / "9606.protein.links.sample.txt.gz", min_score=700)
    c = connected_components(G)
    assert _partition(c.components) == _partition(nx.connected_components(G))
    s = next(iter(G))
    assert bfs(G, s)[s] == nx.single_source_shortest_path_length(G, s)


# ---------------------------------------------------------------------------
# the GPU engine (numba-cuda; its simulator without a GPU)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("directed", [False, True])
def test_gpu_engine_gives_the_cpu_engine_s_answers(directed, small_blocks):
    G = _random_graph(24, 0.09, seed=4, directed=directed, zeros=True)
    G.add_node("isolated")
    nodes = list(G)
    sources = [nodes[0], nodes[5], "isolated"]
    for f in (bfs, shortest_paths):
        cpu, gpu = f(G, sources), f(G, sources, engine="gpu")
        np.testing.assert_array_equal(gpu.matrix, cpu.matrix)
        assert gpu.predecessors(nodes[5]) == cpu.predecessors(nodes[5])
    for f in (connected_components, strongly_connected_components):
        np.testing.assert_array_equal(f(G, engine="gpu").ids, f(G).ids)
    # one source (a frontier queue) and 70, repeats included (two 64-source words)
    many = [nodes[(7 * i) % len(nodes)] for i in range(70)]
    for sources in ([nodes[1]], many):
        np.testing.assert_array_equal(bfs(G, sources, engine="gpu").matrix, bfs(G, sources).matrix)


@pytest.mark.parametrize("directed", [False, True])
def test_gpu_delta_stepping_matches_scipy_s_dijkstra(directed, small_blocks):
    """Delta-stepping on integer costs with zeros (zero-weight cycles): scipy's
    distances exactly, whatever the bucket width -- narrower than any arc
    (every arc heavy but the zeros), the default, one bucket (Bellman-Ford)."""
    from netmcl.traversal import _gpu

    G = _random_graph(24, 0.09, seed=4, directed=directed, zeros=True)
    M, nodes = _scipy(G)
    ref = csgraph.dijkstra(M, directed=True, indices=[0, 5, 9])
    net = as_net(G, weight="weight")
    for delta in (0.5, 2.5, None, np.inf):
        np.testing.assert_array_equal(_gpu.sssp(net, [0, 5, 9], method="delta-stepping", delta=delta), ref)
    r = shortest_paths(G, [nodes[0], nodes[5]], engine="gpu", method="delta-stepping")
    cpu = shortest_paths(G, [nodes[0], nodes[5]], method="dijkstra")
    np.testing.assert_array_equal(r.matrix, cpu.matrix)
    assert r.predecessors(nodes[5]) == cpu.predecessors(nodes[5])


def test_gpu_delta_stepping_with_float_costs(small_blocks):
    """Float costs (STRING-like, 1 - score): scipy's distances to a relative
    1e-12, and no arc can shorten any distance (a fixed point of Bellman's equations)."""
    rng = np.random.default_rng(8)
    G0 = nx.gnp_random_graph(30, 0.12, seed=8)
    G = nx.Graph()
    for u, v in G0.edges:
        G.add_edge(u, v, weight=1.0 - rng.integers(400, 1000) / 1000.0)
    M, nodes = _scipy(G)
    ref = csgraph.dijkstra(M, directed=True, indices=[0, 3])
    for method in ("delta-stepping", "bellman-ford"):
        d = shortest_paths(G, [nodes[0], nodes[3]], engine="gpu", method=method).matrix
        np.testing.assert_allclose(d, ref, rtol=1e-12)
        rows, cols = M.nonzero()
        for k in range(2):
            assert (d[k, cols] <= d[k, rows] + M[rows, cols]).all()


def test_shortest_path_methods_are_checked():
    G = nx.path_graph(3)
    with pytest.raises(ParameterError, match="method.*dijkstra"):
        shortest_paths(G, 0, method="delta-stepping")  # a GPU method on the CPU
    with pytest.raises(ParameterError, match="method"):
        shortest_paths(G, 0, weight=None, method="fastest")


def test_gpu_strong_components_on_a_graph_needing_every_phase(small_blocks):
    # a chain (trimmed), a big cycle with a chord (forward-backward), two cycles joined one way (colouring)
    G = nx.DiGraph([(0, 1), (1, 2)])
    nx.add_cycle(G, range(10, 18))
    G.add_edge(12, 15)
    nx.add_cycle(G, [30, 31, 32])
    nx.add_cycle(G, [40, 41])
    G.add_edge(31, 40)
    G.add_edge(2, 10)
    G.add_edge(17, 30)
    gpu = strongly_connected_components(G, engine="gpu")
    assert gpu.membership == _canonical_from_sets(G, list(nx.strongly_connected_components(G)))


def test_device_components_of_a_csc_pattern(small_blocks):
    from netmcl.traversal import _gpu

    # columns 0..5 of an MCL result: arcs 2->0, 0->2, 4->5; nodes 1 and 3 alone
    indptr = np.array([0, 1, 1, 2, 2, 2, 3], dtype=np.int64)
    indices = np.array([2, 0, 4], dtype=np.int32)
    labels = _gpu.components_of_pattern(indptr, indices, 6)
    assert labels.tolist() == [0, 1, 0, 2, 3, 3]


def test_gpu_engine_without_numba_cuda_names_the_extra(monkeypatch):
    from netmcl.traversal import _gpu

    monkeypatch.setattr(_gpu, "_state", {})
    monkeypatch.setitem(sys.modules, "numba.cuda", None)
    with pytest.raises(BackendUnavailableError, match=r"netmcl\[cuda12\]"):
        bfs(nx.path_graph(3), 0, engine="gpu")


def test_multigraphs_keep_the_lightest_edge_and_digraphs_can_be_read_undirected():
    M = nx.MultiDiGraph()
    M.add_edge("a", "b", weight=5)
    M.add_edge("a", "b", weight=2)
    M.add_edge("b", "c", weight=1)
    assert shortest_paths(M, "a")["a"] == {"a": 0.0, "b": 2.0, "c": 3.0}
    assert shortest_paths(M, "c")["c"] == {"c": 0.0}
    r = shortest_paths(M, "c", directed=False)
    assert r["c"] == {"c": 0.0, "b": 1.0, "a": 3.0}
    assert bfs(nx.DiGraph([("x", "y")]), "y", directed=False)["y"] == {"y": 0, "x": 1}


def test_result_tables():
    pd = pytest.importorskip("pandas")
    r = bfs(nx.path_graph(["p", "q", "r"]), ["p", "r"])
    frame = r.to_pandas()
    assert isinstance(frame, pd.DataFrame)
    assert frame.loc["r"].tolist() == [2, 1, 0] and list(frame.columns) == ["p", "q", "r"]
    assert len(r) == 2 and list(r) == ["p", "r"] and "hop counts from 2 sources" in repr(r)


_PTX_AUDIT = """
import sys
from numba import cuda, int32, int64, float64, uint64
try:
    cuda.compile_ptx(lambda a: None, (int32[:],), cc=(9, 0))
except Exception as exc:  # no NVVM (numba-cuda's cu12/cu13 extra) here
    print("SKIP", type(exc).__name__, exc)
    sys.exit(0)
from netmcl.traversal import _gpu_kernels as K
i32, i64, f64, u64 = int32[::1], int64[::1], float64[::1], uint64[::1]
sigs = {
    "bfs_expand": (i64, i32, i32, int32, i32, int32, i32, i32),
    "relax": (i64, i32, f64, i32, int32, f64, i32),
    "relax_class": (i64, i32, f64, i32, int32, f64, i32, float64, int32),
    "take_bucket": (i32, f64, int32, float64, i32, i32),
    "in_bucket": (f64, int32, float64, float64, i32, i32),
    "compact": (i32, int32, i32, i32),
    "hook": (i64, i32, int32, i32, i32),
    "jump": (i32, int32),
    "trim": (i64, i32, i64, i32, int32, i32, i32),
    "reach": (i64, i32, i32, int32, i32, i32, i32, i32, i32),
    "propagate": (i64, i32, int32, i32, i32, i32),
    "words_pull": (i64, i32, int32, int32, uint64, u64, u64, u64, int32[:, ::1], int32, int32, i32),
}
assert set(sigs) == set(K.KERNELS)
for name, sig in sigs.items():
    ptx, _ = cuda.compile_ptx(K.KERNELS[name].py_func, sig, cc=(9, 0))
    assert ".visible .entry" in ptx, name
print("OK", len(sigs))
"""


def test_gpu_kernels_compile_for_a_device():
    """The simulator runs kernels as Python and checks no types: compile each for a real GPU (PTX)."""
    import os
    import subprocess

    pytest.importorskip("numba.cuda")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).resolve().parent.parent), env.get("PYTHONPATH", "")])
    run = subprocess.run([sys.executable, "-c", _PTX_AUDIT], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    if run.stdout.startswith("SKIP"):
        pytest.skip(f"no CUDA compiler for the audit: {run.stdout.strip()}")
    assert run.stdout.strip() == "OK 12"
