"""Warm restart (``mcl(G2, warm_start=previous)``): the clusters of a cold run, byte for byte.

Edits are seeded; each network is clustered cold by netmcl and, where it is on
PATH, by ``mcl --abc``, and the three outputs are compared as files written by
the same writer.  The reports are checked so that each test exercises reuse
(and, where it says so, the condition that stops it).
"""

import gzip
import io
import subprocess
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import netmcl
from netmcl.adapters import to_sparse_graph
from netmcl.engines import get_engine
from netmcl.exceptions import ParameterError
from netmcl.io.clusters import write_clusters
from netmcl.mcl import _states
from netmcl.params import MclParams
from netmcl.warm import WarmEngine

DATA = Path(__file__).parent / "data" / "networks"


def read_edges(name):
    with gzip.open(DATA / name, "rt") as fh:
        return [(a, b, float(w)) for a, b, w in (line.split() for line in fh)]


def text(clustering):
    out = io.StringIO()
    write_clusters(out, clustering)
    return out.getvalue()


def edit(edges, seed, fraction):
    """`edges` with about `fraction` of them changed: half removed (never a node's last
    edge, so the node set stays), half added between nodes not yet linked, at the end."""
    rng = np.random.default_rng(seed)
    k = max(2, round(fraction * len(edges)))
    degree = {}
    for a, b, _ in edges:
        degree[a] = degree.get(a, 0) + 1
        degree[b] = degree.get(b, 0) + 1
    removed = set()
    for i in rng.permutation(len(edges)).tolist():
        a, b, _ = edges[i]
        if len(removed) == k // 2:
            break
        if degree[a] > 1 and degree[b] > 1:
            removed.add(i)
            degree[a] -= 1
            degree[b] -= 1
    nodes = list(degree)
    linked = {frozenset(e[:2]) for e in edges}
    added = []
    while len(added) < k - len(removed):
        a, b = (nodes[i] for i in rng.integers(len(nodes), size=2))
        if a != b and frozenset((a, b)) not in linked:
            linked.add(frozenset((a, b)))
            added.append((a, b, edges[int(rng.integers(len(edges)))][2]))
    return [e for i, e in enumerate(edges) if i not in removed] + added


def live_mcl(edges, tmp_path, *flags):
    """The clusters file of ``mcl FILE --abc``."""
    src, out = tmp_path / "graph.abc", tmp_path / "mcl.out"
    src.write_text("".join(f"{a}\t{b}\t{w!r}\n" for a, b, w in edges))
    subprocess.run(["mcl", str(src), "--abc", *flags, "-o", str(out)], check=True, capture_output=True)
    return out.read_text()


def check(edges, previous, tmp_path, have_mcl, **params):
    """Warm and cold runs of `edges` (and mcl where on PATH): the same file; the warm run returned."""
    warm = netmcl.mcl(edges, warm_start=previous, threads=2, **params)
    cold = netmcl.mcl(edges, threads=2, **params)
    assert text(warm) == text(cold)
    assert warm.n_iterations == cold.n_iterations
    if have_mcl:
        flags = [f for name, flag in (("inflation", "-I"),) if name in params for f in (flag, str(params[name]))]
        assert text(warm) == live_mcl(edges, tmp_path, *flags)
    return warm


def final_iterands(edges, previous, **params):
    """The last iteration and iterand of a cold run and of a warm run from `previous`."""
    graph = to_sparse_graph(edges)
    prm = MclParams.build(**params)
    *_, cold = _states(graph, prm, get_engine("cpu", threads=2))
    cold_m = cold.matrix.copy()
    warm_engine = WarmEngine(get_engine("cpu", threads=2), previous.warm_state, prm)
    *_, warm = _states(graph, prm, warm_engine, decompose=False)
    return cold.iteration, cold_m, warm.iteration, warm.matrix, warm_engine.report


def assert_same_matrix(a, b):
    assert np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
    assert np.array_equal(a.data.view(np.uint32), b.data.view(np.uint32))


@pytest.fixture(scope="module")
def collins():
    edges = read_edges("clusterone_collins2007.txt.gz")
    return edges, netmcl.mcl(edges, warm_start=True, threads=2)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_one_percent_of_collins_changed(collins, seed, tmp_path, have_mcl):
    edges, first = collins
    warm = check(edit(edges, seed, 0.01), first, tmp_path, have_mcl)
    report = warm.warm_report
    assert report.reason is None and report.iterated_components >= 1
    assert report.reused_components > 100  # most of Collins's small components are untouched
    assert report.reused_components + report.iterated_components + report.caught_up_components == report.components


def test_another_network_and_a_chain_of_changes(tmp_path, have_mcl):
    """Each warm run records its own state: two successive changes, each warm from the last."""
    edges = read_edges("bionic_Hu-2007.txt.gz")
    previous = netmcl.mcl(edges, warm_start=True, threads=2)
    for seed in (4, 5):
        edges = edit(edges, seed, 0.01)
        previous = check(edges, previous, tmp_path, have_mcl)
        assert previous.warm_report.reused_components > 0
        assert previous.warm_state is not None


def components_by_size(edges):
    G = nx.Graph()
    G.add_weighted_edges_from(edges)
    return sorted(nx.connected_components(G), key=len, reverse=True)


def test_a_merge_of_two_components(collins, tmp_path, have_mcl):
    edges, first = collins
    parts = components_by_size(edges)
    a, b = sorted(parts[1])[0], sorted(parts[2])[0]
    warm = check(edges + [(a, b, 0.9)], first, tmp_path, have_mcl)
    report = warm.warm_report
    assert report.components == first.warm_state.n_components - 1
    assert report.iterated_components == 1  # the merged one
    assert report.reused_components + report.caught_up_components == report.components - 1


def test_a_split_of_a_component(collins, tmp_path, have_mcl):
    edges, first = collins
    G = nx.Graph()
    G.add_weighted_edges_from(edges)
    giant = max(nx.connected_components(G), key=len)
    split = None
    for u, v in nx.bridges(G):
        if u in giant:
            continue
        H = G.copy()
        H.remove_edge(u, v)
        if min(len(H[u]), len(H[v])) > 0:  # both sides keep an edge: no node disappears
            split = (u, v)
            break
    assert split is not None
    changed = [e for e in edges if set(e[:2]) != set(split)]
    warm = check(changed, first, tmp_path, have_mcl)
    report = warm.warm_report
    assert report.components == first.warm_state.n_components + 1
    # the two halves (a half may be a block another component of the previous run had: reused)
    assert 1 <= report.iterated_components <= 2
    assert report.reused_components + report.iterated_components + report.caught_up_components == report.components


def test_a_changed_weight_is_not_reused(tmp_path, have_mcl):
    """Same pattern, one weight changed: the component is iterated again, and its clusters
    change (reusing the recorded ones would give the old clusters)."""
    edges = [("cat", "hat", 0.2), ("hat", "bat", 0.16), ("bat", "cat", 1.0), ("bat", "bit", 0.125),
             ("bit", "fit", 0.25), ("fit", "hit", 0.5), ("hit", "bit", 0.16),
             ("x", "y", 1.0), ("y", "z", 1.0), ("p", "q", 0.5)]
    first = netmcl.mcl(edges, warm_start=True, threads=1)
    heavier = [(a, b, 5.0) if {a, b} == {"bat", "bit"} else (a, b, w) for a, b, w in edges]
    warm = check(heavier, first, tmp_path, have_mcl)
    assert text(warm) != text(first)
    assert warm.warm_report.iterated_components == 1
    assert warm.warm_report.reused_components == 2


def test_a_slow_unchanged_component_is_caught_up(tmp_path, have_mcl):
    """The changed component settles before unchanged ones that need more iterations: the
    run may not stop there, which a small unchanged component's iterations (caught up from
    its start) show; the largest one, whose chaos the first run recorded, is not needed then
    and stays reused."""
    edges = read_edges("clusterone_collins2007.txt.gz")
    parts = components_by_size(edges)
    giant = parts[0]
    small = sorted(next(p for p in parts if 4 <= len(p) < 10))
    first = netmcl.mcl(edges, warm_start=True, threads=2)
    G = nx.Graph()
    G.add_weighted_edges_from(edges)
    a, b = next((u, v) for i, u in enumerate(small) for v in small[i + 1:] if not G.has_edge(u, v))
    changed = edges + [(a, b, 0.7)]
    warm = check(changed, first, tmp_path, have_mcl)
    report = warm.warm_report
    assert report.iterated_components == 1
    assert report.caught_up_components >= 1
    assert report.reused_nodes >= len(giant)
    cold_it, cold_m, warm_it, warm_m, _ = final_iterands(changed, first)
    assert warm_it == cold_it
    assert_same_matrix(warm_m, cold_m)


def test_a_run_longer_than_the_recorded_one_resumes_components(collins, tmp_path, have_mcl):
    """A small component becomes a 7-cycle, which needs 65 iterations where the network
    needed 22: components not provably settled that long (the largest, still changing at
    22; fixed points past iteration 40, where the inflation starts to grow) are iterated on
    from their recorded iterand.  The final iterand is a cold run's, bit for bit."""
    edges, first = collins
    part = next(p for p in components_by_size(edges) if len(p) == 7)
    nodes = [x for x in dict.fromkeys(a for e in edges for a in e[:2]) if x in part]
    cycle = [(nodes[k], nodes[(k + 1) % 7], 1.0) for k in range(7)]
    changed = [e for e in edges if e[0] not in part] + cycle
    warm = check(changed, first, tmp_path, have_mcl)
    report = warm.warm_report
    assert warm.n_iterations > 40 > first.n_iterations
    assert report.iterated_components == 1 and report.resumed_components == report.caught_up_components > 10
    cold_it, cold_m, warm_it, warm_m, _ = final_iterands(changed, first)
    assert warm_it == cold_it
    assert_same_matrix(warm_m, cold_m)


def test_a_run_shorter_than_the_recorded_one_takes_recorded_iterands(collins, tmp_path, have_mcl):
    """The component that settled last (outside the largest) gets weights of 1: the run now
    stops at an iteration where the largest component's iterand is known only from the
    snapshot the first run kept (its chaos there was below the limit)."""
    edges, first = collins
    state = first.warm_state
    giant = int(np.argmax(np.diff(state.start.node_off)))
    slowest = max((c for c in range(state.n_components) if c != giant), key=lambda c: state.settled[c])
    labels = {first.labels[i] for i in state.start.nodes[state.start.node_off[slowest]:state.start.node_off[slowest + 1]]}
    changed = [(a, b, 1.0) if a in labels else (a, b, w) for a, b, w in edges]
    warm = check(changed, first, tmp_path, have_mcl)
    report = warm.warm_report
    assert warm.n_iterations < first.n_iterations
    assert warm.n_iterations in state.snapshots[giant] and warm.n_iterations <= state.settled[giant]
    assert report.iterated_components == 1 and report.caught_up_components == 0
    cold_it, cold_m, warm_it, warm_m, _ = final_iterands(changed, first)
    assert warm_it == cold_it
    assert_same_matrix(warm_m, cold_m)


def test_changed_parameters_reuse_nothing(collins, tmp_path, have_mcl):
    edges, first = collins
    warm = check(edit(edges, 6, 0.01), first, tmp_path, have_mcl, inflation=3.0)
    assert warm.warm_report.reused_components == 0
    assert "parameters" in warm.warm_report.reason


def test_new_nodes_change_the_product_path_of_large_components(collins, tmp_path, have_mcl):
    """1,000 new pairs of new nodes: the node count in mcl's dense-path rule more than doubles,
    which changes the path of columns of the largest components (iterated again); the small
    ones never take the dense path (reused).  The final iterand is a cold run's, bit for bit."""
    edges, first = collins
    more = edges + [(f"new{i}a", f"new{i}b", 0.5 + i / 4000) for i in range(1000)]
    warm = check(more, first, tmp_path, have_mcl)
    report = warm.warm_report
    assert report.path_changed_components >= 1
    assert report.reused_components > 100
    cold_it, cold_m, warm_it, warm_m, _ = final_iterands(more, first)
    assert warm_it == cold_it
    assert_same_matrix(warm_m, cold_m)


def test_unchanged_network_reuses_everything(collins):
    edges, first = collins
    again = netmcl.mcl(edges, warm_start=first, threads=2)
    assert text(again) == text(first)
    assert again.n_iterations == first.n_iterations
    assert again.warm_report.reused_components == again.warm_report.components


def test_bad_warm_start_arguments(collins, tmp_path):
    edges, first = collins
    with pytest.raises(ParameterError, match="warm_start takes True"):
        netmcl.mcl(edges, warm_start="yes")
    cold = netmcl.mcl(edges[:50])
    with pytest.raises(ParameterError, match="without warm_start"):
        netmcl.mcl(edges[:50], warm_start=cold)
    with pytest.raises(ParameterError, match="checkpoint"):
        netmcl.mcl(edges, warm_start=first, checkpoint=tmp_path / "ck")


def test_igraph_results_carry_the_state():
    ig = pytest.importorskip("igraph")
    edges = read_edges("clusterone_krogan2006_core.txt.gz")
    g = ig.Graph.TupleList(edges, weights=True)
    first = netmcl.mcl(g, warm_start=True)
    g.delete_edges([3, 50])
    warm = netmcl.mcl(g, warm_start=first)
    assert warm.membership == netmcl.mcl(g).membership
    assert warm.warm_report.reused_components > 0


def test_blocks_are_compared_bit_for_bit_not_by_digest(collins):
    """Reuse needs the blocks themselves equal: a block with one value one bit off is refused
    even where its digest were taken for the recorded one's."""
    import copy

    _, first = collins
    start = first.warm_state.start
    other = copy.deepcopy(start)
    c = int(np.argmax(np.diff(start.entry_off)))  # the component with the most entries
    other.bits[other.entry_off[c]] ^= 1
    comps = np.arange(first.warm_state.n_components)
    same = start.same(comps, other, comps)
    assert not same[c] and same.sum() == comps.size - 1
