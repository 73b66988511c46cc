"""The Dask engine on a LocalCluster of two single-thread worker processes.

Each level of distribution must give mcl's clusters (the golden files) and
the CPU engine's iterands bit for bit: groups of components on different
workers, one component cut into column blocks across workers, the
inflations of a sweep as tasks; and a worker killed between iterations must
change nothing.
"""

import functools
import importlib
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

distributed = pytest.importorskip("distributed", reason="the Dask engine needs dask[distributed] (netmcl[dask])")

import netmcl  # noqa: E402
from netmcl.components import component_groups  # noqa: E402
from netmcl.engines import get_engine  # noqa: E402
from netmcl.mcl import _states, mcl_iterates  # noqa: E402
from netmcl.params import MclParams  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from test_fidelity import GOLDEN, assert_same, mg  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as c:
        yield c


@pytest.fixture(scope="module")
def client(cluster):
    # not the default client: the engine must be given one (or find none, and say so)
    with distributed.Client(cluster, set_as_default=False) as c:
        yield c


def _graph(family, name, tmp_path):
    spec = GOLDEN[family]["inputs"][name]
    if "file" in spec:
        return netmcl.read_abc(mg.DATA / spec["file"])
    path = tmp_path / f"{name}.abc"
    path.write_text(spec["abc"])
    return netmcl.read_abc(path)


def _case(family, case_id):
    return next(c for c in GOLDEN[family]["cases"] if c["id"] == case_id)


def _small_groups(monkeypatch):
    """Groups of at most 300 nodes, so that graphs of 1,100 to 1,600 nodes make several."""
    loop = importlib.import_module("netmcl.mcl")
    monkeypatch.setattr(loop, "component_groups", functools.partial(component_groups, group_nodes=300))


def _same_matrix(a, b):
    return (np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)
            and np.array_equal(a.data, b.data))


@pytest.mark.parametrize("case_id", ["clusterone_collins2007-I2", "bionic_Hu-2007-I1.4"])
def test_groups_of_components_on_the_workers_give_mcls_clusters(client, case_id, tmp_path, monkeypatch):
    _small_groups(monkeypatch)
    case = _case("networks", case_id)
    graph = _graph("networks", case["input"], tmp_path)
    clustering = netmcl.mcl(graph, engine="dask", client=client, attribute=None, **mg.mcl_kwargs(case["args"]))
    assert_same(clustering, case, f"networks/{case_id} on the dask engine")
    assert clustering.stats[0].extra["groups"] > 1
    workers = set()
    for s in clustering.stats:
        workers |= set(s.extra.get("worker_seconds", {}))
    assert len(workers) == 2  # the groups ran on both workers


@pytest.mark.parametrize("case_id", ["r14-er-n187-d24-wide-run0", "r3-planted-n181-d16-int-run1",
                                     "r6-er-n154-d6-exp-run2"])
def test_a_component_in_column_blocks_has_the_cpu_engines_iterands(client, case_id, tmp_path):
    case = _case("random", case_id)
    graph = _graph("random", case["input"], tmp_path)
    params = MclParams.build(**mg.mcl_kwargs(case["args"]))
    cpu = _states(graph, params, get_engine("cpu", threads=1), decompose=False)
    dask = _states(graph, params, get_engine("dask", client=client, blocks=3), decompose=False)
    moved = 0
    n = 0
    for a, b in zip(cpu, dask, strict=True):
        assert _same_matrix(a._engine.result(), b._engine.result()), f"iteration {a.iteration}"
        assert (a.chaos, a.stats.kept, a.stats.expanded) == (b.chaos, b.stats.kept, b.stats.expanded)
        assert b.stats.extra["blocks"] == 3
        moved += b.stats.extra["bytes_between_workers"]
        n = b.iteration
        last = b
    assert moved > 0  # blocks did travel between the two workers
    assert_same(last.clustering(), case, f"random/{case_id} in 3 column blocks")
    assert n == case["iterations"]


def test_a_sweep_runs_its_inflations_on_the_workers(client, tmp_path):
    cases = {float(c["args"][1]): c for c in GOLDEN["networks"]["cases"] if c["input"] == "clusterone_collins2007"}
    graph = _graph("networks", "clusterone_collins2007", tmp_path)
    with distributed.get_task_stream(client=client) as stream:
        result = netmcl.sweep(graph, sorted(cases), engine="dask", client=client)
    runs = [t for t in stream.data if "-sweep-" in str(t["key"])]
    assert len(runs) == len(cases) and len({t["worker"] for t in runs}) == 2  # one task an inflation, on both workers
    assert len(result) == len(cases) >= 3
    for inflation, case in cases.items():
        assert_same(result[inflation], case, f"sweep at {inflation} on the dask engine")


@pytest.mark.parametrize("budget", [None, "8M"], ids=["whole blocks", "phases under a budget"])
def test_a_worker_killed_between_iterations_changes_nothing(client, tmp_path, budget):
    case = _case("networks", "bionic_Hu-2007-I1.4")
    graph = _graph("networks", case["input"], tmp_path)
    kwargs = mg.mcl_kwargs(case["args"])
    states = mcl_iterates(graph, engine="dask", client=client, blocks=2, max_memory=budget, **kwargs)
    first = next(states)
    victim = sorted(first.stats.extra["worker_seconds"])[0]
    # the worker exits: the blocks it held are recomputed from the iteration before, elsewhere
    killer = threading.Thread(target=lambda: _quietly(client.run, os._exit, 1, workers=[victim]))
    killer.start()
    killer.join(timeout=30)
    *_, last = states
    assert_same(last.clustering(), case, "bionic_Hu-2007-I1.4 with a worker killed after iteration 1")
    assert budget is None or max(s.extra["phases"] for s in last.clustering().stats) > 1
    client.wait_for_workers(2, timeout=60)
    assert victim not in client.nthreads()  # it did exit (its nanny started another)


def _quietly(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception:  # the worker's connection closes as it exits
        pass


def test_a_giant_component_is_split_across_the_workers(client, tmp_path, monkeypatch):
    _small_groups(monkeypatch)
    case = _case("networks", "bionic_Hu-2007-I1.4")
    graph = _graph("networks", case["input"], tmp_path)
    clustering = netmcl.mcl(graph, engine="dask", client=client, attribute=None, **mg.mcl_kwargs(case["args"]))
    assert_same(clustering, case, "bionic_Hu-2007-I1.4")
    # the largest group holds most entries: it is cut in one block a worker thread, the others one block each
    first = clustering.stats[0]
    assert first.extra["blocks"] == first.extra["groups"] + 1


def test_worker_engine_runs_another_engine_on_the_workers(client, tmp_path):
    case = _case("random", "r30-planted-n186-d3-wide-run0")
    graph = _graph("random", case["input"], tmp_path)
    clustering = netmcl.mcl(graph, engine="dask", client=client, worker_engine="reference", attribute=None,
                            **mg.mcl_kwargs(case["args"]))
    assert_same(clustering, case, "r30 with the reference engine on the workers")
    assert all(set(s.extra["worker_engines"]) == {"reference"} for s in clustering.stats if s.seconds)


def test_the_command_line_takes_a_scheduler_address(cluster, tmp_path):
    case = _case("cathat", "cathat")
    spec = GOLDEN["cathat"]["inputs"]["cathat"]
    graph_file = mg.DATA / spec["file"] if "file" in spec else tmp_path / "cathat.abc"
    if "file" not in spec:
        graph_file.write_text(spec["abc"])
    out = tmp_path / "out"
    subprocess.run([sys.executable, "-m", "netmcl", str(graph_file), "--abc", "-o", str(out), "--engine", "dask",
                    "--scheduler", cluster.scheduler_address], check=True, cwd=Path(__file__).parent.parent,
                   capture_output=True, text=True)
    clusters = [line.split("\t") for line in out.read_text().splitlines()]
    assert clusters == case["clusters"]
    tables = []
    for engine in (["--engine", "dask", "--scheduler", cluster.scheduler_address], ["--engine", "cpu"]):
        table = tmp_path / f"sweep-{engine[1]}.tsv"
        subprocess.run([sys.executable, "-m", "netmcl", "sweep", str(graph_file), "-I", "1.4", "3", "-o", str(table),
                        *engine], check=True, cwd=Path(__file__).parent.parent, capture_output=True, text=True)
        rows = [line.split("\t") for line in table.read_text().splitlines()]
        timed = rows[0].index("seconds")
        tables.append([row[:timed] + row[timed + 1:] for row in rows])
    assert tables[0] == tables[1] and len(tables[0]) == 3


def test_without_a_client_the_error_says_how_to_make_one():
    with pytest.raises(netmcl.ParameterError, match="Create one first"):
        get_engine("dask")
    with pytest.raises(netmcl.ParameterError, match="'cpu' engine takes no option 'scheduler'"):
        netmcl.mcl([(0, 1)], scheduler="tcp://127.0.0.1:1")


def test_losing_every_worker_is_a_clear_error():
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0",
                                  worker_dashboard_address=":0") as local, \
            distributed.Client(local, set_as_default=False) as c:
        engine = get_engine("dask", client=c, lost_after=1.0)
        start = netmcl.graph.SparseGraph.from_edges([0, 1], [1, 2])
        states = _states(start, MclParams(), engine, decompose=False)
        next(states)
        local.scale(0)
        deadline = time.monotonic() + 30
        while c.nthreads() and time.monotonic() < deadline:
            time.sleep(0.1)
        with pytest.raises(netmcl.NetmclError, match="no worker"):
            next(states)


def test_an_iteration_split_in_expansion_and_inflation_is_the_cpu_engines(client, tmp_path):
    """``iterate(None)`` then ``inflate(I)``, as a sweep's shared first iteration does, block by block."""
    from netmcl.mcl import _start, inflation_at

    graph = _graph("random", "r37-er-n188-d24-wide", tmp_path)
    params = MclParams.build(inflation=1.4)
    engines = [get_engine("cpu", threads=1), get_engine("dask", client=client, blocks=2)]
    results = []
    for engine in engines:
        engine.load(_start(graph, params), n_rule=graph.n)
        stats = engine.iterate(None, params.pruning())
        emptied = engine.inflate(inflation_at(params, 1))
        stats2 = engine.iterate(inflation_at(params, 2), params.pruning())
        results.append((engine.result(), stats.chaos, stats.kept, emptied, stats2.chaos))
    assert _same_matrix(results[0][0], results[1][0])
    assert results[0][1:] == results[1][1:]


@pytest.mark.skipif(importlib.util.find_spec("numba_cuda") is None,
                    reason="the GPU engine on the workers runs in numba-cuda's simulator (pip install numba-cuda)")
def test_the_gpu_engine_on_the_workers_in_the_cuda_simulator(tmp_path):
    """worker_engine="gpu", as on dask-cuda workers, here in numba's CUDA simulator (one worker process)."""
    case = _case("random", "r25-hubs-n33-d4-none-run0")
    graph = _graph("random", case["input"], tmp_path)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  env={"NUMBA_ENABLE_CUDASIM": "1"}) as local, \
            distributed.Client(local, set_as_default=False) as c:
        clustering = netmcl.mcl(graph, engine="dask", client=c, worker_engine="gpu", attribute=None,
                                **mg.mcl_kwargs(case["args"]))
    assert_same(clustering, case, "r25 with the GPU engine (simulated) on the workers")
    assert all(set(s.extra["worker_engines"]) == {"gpu"} for s in clustering.stats)


def _ring(n, k, seed):
    """A ring of n nodes, each linked to the k after it, with seeded random weights (no ties to select among)."""
    rng = np.random.default_rng(seed)
    src = np.repeat(np.arange(n), k)
    dst = (src + np.tile(np.arange(1, k + 1), n)) % n
    return src, dst, rng.uniform(0.1, 1.0, src.size).round(6)


def test_column_blocks_of_a_graph_past_65536_nodes_have_the_cpu_engines_iterands(client, tmp_path, have_mcl):
    """Past 65,536 nodes a block's rows are 16-bit offsets in row blocks while it iterates; every
    iterand that comes back (rows whole again) is the CPU engine's, and the clusters are mcl's."""
    src, dst, weights = _ring(70_000, 2, 5)
    path = tmp_path / "ring.abc"
    path.write_text("".join(f"{i}\t{j}\t{w}\n" for i, j, w in zip(src.tolist(), dst.tolist(), weights.tolist())))
    graph = netmcl.read_abc(path)
    params = MclParams()
    cpu = _states(graph, params, get_engine("cpu", threads=1), decompose=False)
    dask = _states(graph, params, get_engine("dask", client=client, blocks=3), decompose=False)
    for a, b in zip(cpu, dask, strict=True):
        m = b._engine.result()
        assert _same_matrix(a._engine.result(), m), f"iteration {a.iteration}"
        assert (a.chaos, a.stats.kept) == (b.chaos, b.stats.kept)
    assert m.indices.max() >= 65_536  # rows past the first row block came back
    clusters = [list(c) for c in b.clustering()]
    if have_mcl:
        subprocess.run(["mcl", str(path), "--abc", "-o", str(tmp_path / "mcl.out")], check=True, capture_output=True)
        assert clusters == [line.split("\t") for line in (tmp_path / "mcl.out").read_text().splitlines()]


def test_a_worker_budget_smaller_than_the_iterand_gives_the_cpu_engines_iterands(tmp_path, have_mcl):
    """max_memory bounds each worker: its block iterates in phases, each fetching the columns it reads.

    Four single-thread workers (in this process), each block of a 5,000-node
    ring on its own worker, under 1.75 MiB a worker while the iterand reaches
    2 MB: every iterand is the CPU engine's, and the clusters are mcl's.
    """
    path = tmp_path / "ring.abc"
    path.write_text("".join(f"{i}\t{j}\t{w}\n" for i, j, w in zip(*(a.tolist() for a in _ring(5_000, 10, 3)))))
    graph = netmcl.read_abc(path)
    flags = ["-I", "2", "-P", "50", "-S", "50", "-R", "50"]
    params = MclParams.build(**mg.mcl_kwargs(flags))
    budget = int(1.75 * 2**20)
    cpu = [(s.stats, s._engine.result().copy())
           for s in _states(graph, params, get_engine("cpu", threads=1), decompose=False)]
    assert max(s.kept for s, _ in cpu) * 8 > budget  # the iterand outgrows a worker's budget
    with distributed.LocalCluster(n_workers=4, threads_per_worker=1, processes=False, dashboard_address=":0",
                                  worker_dashboard_address=":0") as local, \
            distributed.Client(local, set_as_default=False) as c:
        engine = get_engine("dask", client=c, max_memory="1.75M")
        phases = []
        for (a, m), b in zip(cpu, _states(graph, params, engine, decompose=False), strict=True):
            assert _same_matrix(m, b._engine.result()), f"iteration {b.iteration}"
            assert (a.chaos, a.kept, a.expanded) == (b.stats.chaos, b.stats.kept, b.stats.expanded)
            extra = b.stats.extra
            assert extra["blocks"] == 4 and extra["worker_budget"] == budget
            assert len(extra["worker_peak_bytes"]) == 4  # one block a worker
            assert max(extra["worker_peak_bytes"].values()) <= budget
            for parts in extra["worker_phase_seconds"].values():  # where each worker's phases spent their time
                assert set(parts) == {"plan", "local", "fetch", "kernel"} and min(parts.values()) >= 0
            phases.append(extra["phases"])
        assert max(phases) > 1 and b.converged
        clusters = [list(c) for c in b.clustering()]
    if have_mcl:
        subprocess.run(["mcl", str(path), "--abc", *flags, "-o", str(tmp_path / "mcl.out")], check=True,
                       capture_output=True)
        expected = [line.split("\t") for line in (tmp_path / "mcl.out").read_text().splitlines()]
        assert clusters == expected


def test_a_budget_too_small_for_one_column_says_so(client):
    engine = get_engine("dask", client=client, max_memory="100K")
    src, dst, weights = _ring(2_000, 10, 3)
    states = _states(netmcl.graph.SparseGraph.from_edges(src, dst, weights), MclParams(), engine, decompose=False)
    with pytest.raises(netmcl.ParameterError, match="memory budget .* cannot hold column"):
        next(states)


def test_fixed_points_of_groups_are_found_on_the_workers(client, tmp_path, monkeypatch):
    """A group near convergence is compared with its iterand before on the workers: no iterand comes back
    to the client before the limit."""
    from netmcl.engines.dask import DaskEngine

    _small_groups(monkeypatch)
    pulled = []
    result = DaskEngine.result
    monkeypatch.setattr(DaskEngine, "result", lambda self: pulled.append(self) or result(self))
    case = _case("networks", "clusterone_collins2007-I2")
    graph = _graph("networks", case["input"], tmp_path)
    clustering = netmcl.mcl(graph, engine="dask", client=client, attribute=None, **mg.mcl_kwargs(case["args"]))
    assert_same(clustering, case, "clusterone_collins2007-I2, fixed points found on the workers")
    groups = clustering.stats[0].extra["groups"]
    assert len(pulled) == groups  # each group's limit, once
    # groups found at a fixed point are not iterated again
    assert any(s.extra.get("blocks", 0) < groups for s in clustering.stats)


def test_a_phase_plan_does_not_depend_on_how_many_columns_it_looks_at_first():
    """A phase's end is the same whatever the first chunk of columns the plan sorts (the phase before's length)."""
    from netmcl.engines.dask import PLAN_COLUMNS, _plan_phase

    rng = np.random.default_rng(7)
    n, lo, m = 3_000, 1_000, 1_200
    counts = rng.integers(0, 40, m)
    indptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    indices = np.concatenate([np.sort(rng.choice(n, c, replace=False)) for c in counts]).astype(np.int32)
    length = rng.integers(1, 60, n).astype(np.int64)
    estimate = rng.integers(1, 30, m).astype(np.int64)
    need = np.zeros(n, dtype=bool)
    for start in (0, 5, 700):
        for room in (10**3, 10**4, 10**5, 10**6, 10**8):
            stops = {_plan_phase(start, indptr, indices, lo, length, estimate, room, need, hint=h)
                     for h in (0, 1, 3, 40, 555, PLAN_COLUMNS)}
            assert len(stops) == 1, (start, room, stops)
            assert not need.any()
    assert _plan_phase(0, indptr, indices, lo, length, estimate, 10**8, need, hint=2) == m  # all fits: to the end
    assert _plan_phase(0, indptr, indices, lo, length, estimate, 10, need, hint=2) is None  # not one column fits


def test_columns_are_copied_whole_in_the_order_given():
    from netmcl.engines.dask import _copy_columns
    from netmcl.sparse import spans

    rng = np.random.default_rng(3)
    counts = rng.integers(0, 9, 500).astype(np.int64)
    indptr = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    rows = rng.integers(0, 10**6, int(indptr[-1])).astype(np.int32)
    values = rng.random(rows.size).astype(np.float32)
    ids = rng.permutation(counts.size)[:300]
    got = np.full(int(counts[ids].sum()), -1, dtype=np.int32), np.zeros(int(counts[ids].sum()), dtype=np.float32)
    _copy_columns(indptr[ids], counts[ids], rows, values, *got)
    entries = spans(indptr[ids], counts[ids])
    assert np.array_equal(got[0], rows[entries]) and np.array_equal(got[1], values[entries])
