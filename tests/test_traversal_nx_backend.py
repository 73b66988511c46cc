"""The NetworkX backend "netmcl": NetworkX's own tests run through it, and direct checks.

NetworkX finds a backend through the ``networkx.backends`` entry point of an
installed package: the suite test needs netmcl installed from this checkout
(``python -m pip install -e .``, as .ci/run does) and is skipped, saying so,
when the installed metadata lacks the entry point.
"""

import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import networkx as nx
import pytest

from netmcl.traversal import nx_backend

ROOT = Path(__file__).resolve().parent.parent

SUITES = [
    "networkx.algorithms.traversal.tests",
    "networkx.algorithms.components.tests",
    "networkx.algorithms.shortest_paths.tests",
]

_RUN = """
import sys, pytest
status = pytest.main(["-q", "-p", "no:cacheprovider", "--pyargs", *sys.argv[1:]])
from netmcl.traversal import nx_backend
print("DISPATCHED", dict(nx_backend.CALLS))
sys.exit(status)
"""


def _entry_point():
    found = [ep for ep in entry_points(group="networkx.backends") if ep.name == "netmcl"]
    return found[0] if found else None


def test_networkx_suites_pass_through_the_backend(tmp_path):
    ep = _entry_point()
    if ep is None or ep.value != "netmcl.traversal.nx_backend:backend_interface":
        pytest.skip("the 'netmcl' networkx.backends entry point is not installed: "
                    "run `python -m pip install -e .` in the checkout (as .ci/run does)")
    env = dict(os.environ, NETWORKX_TEST_BACKEND="netmcl", NETWORKX_FALLBACK_TO_NX="True",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    env.pop("PYTEST_ADDOPTS", None)
    run = subprocess.run([sys.executable, "-c", _RUN, *SUITES], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=600)
    tail = (run.stdout + run.stderr)[-3000:]
    assert run.returncode == 0, tail
    assert " passed" in tail and " failed" not in tail, tail
    calls = eval(tail.split("DISPATCHED", 1)[1].strip().splitlines()[0])  # a dict literal we printed
    assert set(calls) == set(nx_backend.FUNCTIONS), calls  # every function ran through the backend
    assert sum(calls.values()) > 100, calls


def test_backend_answers_as_networkx():
    G = nx.les_miserables_graph()
    s = "Valjean"
    assert list(nx_backend.bfs_edges(G, s)) == list(nx.bfs_edges(G, s))
    assert list(nx_backend.bfs_edges(G, s, depth_limit=1)) == list(nx.bfs_edges(G, s, depth_limit=1))
    assert list(nx_backend.bfs_layers(G, [s, "Napoleon"])) == list(nx.bfs_layers(G, [s, "Napoleon"]))
    assert nx_backend.single_source_shortest_path_length(G, s, 2) == nx.single_source_shortest_path_length(G, s, 2)
    assert nx_backend.single_source_dijkstra_path_length(G, s) == nx.single_source_dijkstra_path_length(G, s)
    assert nx_backend.shortest_path_length(G, s, "Gavroche", "weight") == nx.shortest_path_length(
        G, s, "Gavroche", "weight")
    D = nx.gnp_random_graph(200, 0.01, seed=8, directed=True)
    assert list(nx_backend.strongly_connected_components(D)) == list(nx.strongly_connected_components(D))
    U = D.to_undirected()
    assert list(nx_backend.connected_components(U)) == list(nx.connected_components(U))
    assert nx_backend.number_connected_components(U) == nx.number_connected_components(U)
    assert nx_backend.is_connected(U) is nx.is_connected(U)


def test_can_run_declines_what_it_does_not_do_as_networkx():
    G = nx.path_graph(4)
    D = nx.DiGraph(G)
    assert nx_backend.can_run("bfs_edges", (G, 0), {}) is True
    assert isinstance(nx_backend.can_run("bfs_edges", (G, 0), {"sort_neighbors": sorted}), str)
    assert isinstance(nx_backend.can_run("bfs_edges", (D, 0, True), {}), str)
    assert isinstance(nx_backend.can_run("connected_components", (nx.MultiGraph(G),), {}), str)
    assert isinstance(nx_backend.can_run("connected_components", (D,), {}), str)
    assert isinstance(nx_backend.can_run("strongly_connected_components", (G,), {}), str)
    assert isinstance(nx_backend.can_run("single_source_dijkstra_path_length", (G, 0), {"weight": len}), str)
    G[0][1]["weight"] = -1
    assert isinstance(nx_backend.can_run("single_source_dijkstra_path_length", (G, 0), {}), str)
    assert isinstance(nx_backend.can_run("shortest_path_length", (G,), {}), str)
    assert isinstance(nx_backend.can_run("average_shortest_path_length", (G,), {}), str)
