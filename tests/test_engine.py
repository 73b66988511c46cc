"""The CPU engine: threads, memory budgets and component decomposition never change a bit."""

import gzip
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import netmcl
from netmcl.sparse import CscMatrix
from netmcl.components import GroupedEngine, component_groups
from netmcl.engines import get_engine
from netmcl.engines.cpu._buffers import resident_memory
from netmcl.engines.cpu.engine import SERIAL_WORK, SPLIT_ENTRIES, CpuEngine, available_cores, parse_memory
from netmcl.graph import SparseGraph
from netmcl.mcl import CHAOS_LIMIT, inflation_at, start_matrix
from netmcl.params import MclParams

NETWORKS = Path(__file__).parent / "data" / "networks"


def _abc(name):
    """A real network as a SparseGraph (tab-separated a, b, weight)."""
    ids, src, dst, wts = {}, [], [], []
    with gzip.open(NETWORKS / name, "rt") as fh:
        for line in fh:
            a, b, w = line.split()
            src.append(ids.setdefault(a, len(ids)))
            dst.append(ids.setdefault(b, len(ids)))
            wts.append(float(w))
    return SparseGraph.from_edges(src, dst, wts, labels=list(ids))


@pytest.fixture(scope="module")
def gavin():
    return _abc("clusterone_gavin2006_socioaffinities_rescaled.txt.gz")


def _iterands(graph, engine, params, k):
    engine.load(start_matrix(graph, params))
    out = []
    for it in range(1, k + 1):
        engine.iterate(inflation_at(params, it), params.pruning())
        out.append(engine.result().copy())
    return out


def _same(a, b):
    return (
        np.array_equal(a.indptr, b.indptr)
        and np.array_equal(a.indices, b.indices)
        and np.array_equal(a.data.view(np.uint32), b.data.view(np.uint32))
    )


def test_attractors_of_an_unconverged_iterand_are_found_the_same_a_few_columns_at_a_time(gavin, monkeypatch):
    """A run stopped early (-L) is interpreted DAG_BLOCK entries at a time: blocks of 64
    entries (hundreds of blocks, columns longer than a block) give the DAG of one block."""
    from netmcl import interpret as interp

    params = MclParams.build(inflation=2.0)
    for limit in _iterands(gavin, get_engine("cpu", threads=1), params, 3):
        assert np.diff(limit.indptr).max() > 64
        whole = interp._attractor_dag(limit)
        clusters = interp.interpret(limit)
        monkeypatch.setattr(interp, "DAG_BLOCK", 64)
        assert _same(interp._attractor_dag(limit), whole)
        assert [c.tolist() for c in interp.interpret(limit)] == [c.tolist() for c in clusters]
        monkeypatch.undo()
        assert whole.nnz < limit.nnz and len(clusters) > 1


@pytest.mark.parametrize("threads", [2, 3])
def test_iterands_do_not_depend_on_threads(gavin, threads):
    params = MclParams.build(inflation=1.6)
    one = _iterands(gavin, get_engine("cpu", threads=1), params, 4)
    many = _iterands(gavin, get_engine("cpu", threads=threads), params, 4)
    assert all(_same(a, b) for a, b in zip(one, many))


def test_iterations_with_little_work_run_on_one_thread(gavin, monkeypatch):
    """Below SERIAL_WORK of estimated work an iteration starts no threads, and its iterand is the same."""
    from concurrent.futures import ThreadPoolExecutor

    import netmcl.engines.cpu.engine as cpu

    pools = []
    monkeypatch.setattr(cpu, "ThreadPoolExecutor", lambda max_workers: pools.append(max_workers) or
                        ThreadPoolExecutor(max_workers))
    params = MclParams()
    results = []
    monkeypatch.setattr(cpu, "SPLIT_ENTRIES", SPLIT_ENTRIES)  # Gavin's first iterand is surveyed on one thread
    for serial_work in (0, SERIAL_WORK):  # the tests' setting, then the default
        monkeypatch.setattr(cpu, "SERIAL_WORK", serial_work)
        engine = cpu.CpuEngine(threads=2)
        engine.load(start_matrix(gavin, params))
        assert engine._survey()[0].sum() < SERIAL_WORK  # a small first iteration
        results.append((engine.iterate(inflation_at(params, 1), params.pruning()).chaos, engine.result()))
    assert pools == [2]  # a pool for the first engine only
    assert results[0][0] == results[1][0] and _same(results[0][1], results[1][1])


def test_chunks_capped_by_size_give_the_same_iterands(gavin, monkeypatch):
    import netmcl.engines.cpu.engine as cpu

    params = MclParams.build(inflation=1.6)
    engine = get_engine("cpu", threads=2)
    usual = _iterands(gavin, engine, params, 4)
    chunks = engine._chunks(0, engine.n, np.ones(engine.n), np.arange(1, engine.n + 1), 2)
    # 32 chunks of equal work, of which each thread's last is cut in quarters
    assert len(chunks) == 32 - 2 + 2 * cpu.TAIL_SPLIT
    sizes = np.diff([lo for lo, _ in chunks] + [engine.n])
    assert chunks[0][0] == 0 and sizes.sum() == engine.n
    assert abs(sizes[:30].mean() / sizes[30:].mean() - cpu.TAIL_SPLIT) < 0.2
    assert engine._chunks(0, engine.n, np.ones(engine.n), np.arange(1, engine.n + 1), 1) == [(0, engine.n)]
    # little work: a chunk is at least CHUNK_WORK (5 of them: 3 whole, then each thread's last in quarters)
    monkeypatch.setattr(cpu, "CHUNK_WORK", engine.n // 5)
    assert len(engine._chunks(0, engine.n, np.ones(engine.n), np.arange(1, engine.n + 1), 2)) == 3 + 2 * cpu.TAIL_SPLIT
    monkeypatch.setattr(cpu, "CHUNK_WORK", 10 * engine.n)  # less than a chunk's work: one chunk a thread
    assert len(engine._chunks(0, engine.n, np.ones(engine.n), np.arange(1, engine.n + 1), 2)) == 2
    monkeypatch.setattr(cpu, "CHUNK_WORK", 1)
    monkeypatch.setattr(cpu, "CHUNK_BYTES", 4096)  # 512 estimated entries a chunk
    small = get_engine("cpu", threads=2)
    chunks = small._chunks(0, 2000, np.ones(2000), 64 * np.arange(1, 2001), 2)
    assert len(chunks) == 2000 * 64 // 512 - 2 + 2 * cpu.TAIL_SPLIT
    assert all(_same(a, b) for a, b in zip(usual, _iterands(gavin, small, params, 4)))
    # one thread: chunks bound only their results' memory, and are cut by the estimate, whatever the work
    one = get_engine("cpu", threads=1)  # nothing loaded: 8 bytes an estimated entry, 512 a chunk
    work = np.r_[np.full(100, 1000.0), np.ones(1900)]
    sizes = [hi - lo for lo, hi in one._chunks(0, 2000, work, 64 * np.arange(1, 2001), 1)]
    assert len(sizes) == 250 and sum(sizes) == 2000 and max(sizes) - min(sizes) <= 2  # by work: 245 in the first 100
    assert all(_same(a, b) for a, b in zip(usual, _iterands(gavin, one, params, 4)))


def past_process(size):
    """A budget of `size` past what this process holds now (a budget counts the whole process)."""
    return resident_memory() + parse_memory(size)


def test_memory_budget_gives_the_same_iterands_in_many_phases(gavin):
    params = MclParams.build(inflation=1.6)
    free = _iterands(gavin, get_engine("cpu", threads=2), params, 4)
    tight = get_engine("cpu", threads=2, max_memory=past_process("6M"))
    tight.load(start_matrix(gavin, params))
    phases = []
    for it, expected in enumerate(free, start=1):
        phases.append(tight.iterate(inflation_at(params, it), params.pruning()).extra["phases"])
        assert _same(tight.result(), expected)
    assert max(phases) >= 4


def test_budget_too_small_is_a_clear_error(gavin):
    with pytest.raises(netmcl.ParameterError, match="max_memory"):
        netmcl.mcl(gavin, max_memory="1M")


def _first_failure(graph, params, budget, k=4):
    """The iteration (1..k) at which an engine under `budget` stops, and its message; (None, '') if none.

    The engine takes runs of 16 heavy columns on every host: the default
    depends on the CPU (runs of 8 on Intel's), and with it the threads'
    scratch that the budget must hold, so that a budget that runs out partway
    on one host could be enough on another."""
    engine = CpuEngine(threads=2, max_memory=budget, wide_runs=True)
    engine.load(start_matrix(graph, params))
    for it in range(1, k + 1):
        try:
            engine.iterate(inflation_at(params, it), params.pruning())
        except netmcl.ParameterError as err:
            return it, str(err)
    return None, ""


@pytest.mark.parametrize("budget", ["1250K", "1750K", "2000K"])
def test_budget_too_small_midway_names_a_budget_for_the_whole_iteration(gavin, budget):
    """A budget that runs out partway through an iteration, its next iterand
    filling it, gets the iteration's size extrapolated from the columns done,
    and the budget it names takes the run past that iteration and the next
    ones: a budget only just above what was held (the message said 256.1 MiB
    for 256 MiB on the 50k-node graph at 16 threads) would stop again a few
    columns later, and one for that iteration alone at the next."""
    params = MclParams.build(inflation=1.6)
    failed, message = _first_failure(gavin, params, past_process(budget))
    assert failed is not None
    done = re.search(r"After ([\d,]+) of its 1,855 columns the next iterand takes .*; at that rate it will take "
                     r"about (\S+ \S+)\. Raise max_memory \(to (\S+ \S+) at least", message)
    assert done and 0 < int(done[1].replace(",", "")) < 1855, message
    assert parse_memory(done[3]) > past_process(budget)
    later, message = _first_failure(gavin, params, done[3])
    assert later is None, message


@pytest.mark.parametrize("bad", ["lots", "-1G", 0, "G"])
def test_parse_memory_rejects_nonsense(bad):
    with pytest.raises(netmcl.ParameterError, match="max_memory"):
        parse_memory(bad)


def _cgroups(root, own, files):
    """A fake cgroup mount under `root`: `files` maps paths below it to their text."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "self").write_text(own)
    return str(root / "fs"), str(root / "self")


@pytest.mark.parametrize(
    ("own", "files", "cores"),
    [
        # cgroup v2: a quota on the process's group or any group above it; the smallest counts
        ("0::/a/b\n", {"fs/a/b/cpu.max": "150000 100000\n", "fs/a/cpu.max": "max 100000\n"}, 2),
        ("0::/a/b\n", {"fs/a/b/cpu.max": "max 100000\n", "fs/a/cpu.max": "50000 100000\n"}, 1),
        ("0::/a/b\n", {"fs/a/b/cpu.max": "max 100000\n", "fs/cpu.max": "max 100000\n"}, None),
        # a container: its path on the host is not mounted, its own group is the mount's root
        ("0::/docker/1234\n", {"fs/cpu.max": "100000 100000\n"}, 1),
        # cgroup v1, the cpu controller mounted with cpuacct
        ("4:memory:/x\n3:cpu,cpuacct:/x\n", {"fs/cpu,cpuacct/x/cpu.cfs_quota_us": "100000\n",
                                                 "fs/cpu,cpuacct/x/cpu.cfs_period_us": "100000\n"}, 1),
        ("3:cpu,cpuacct:/x\n", {"fs/cpu,cpuacct/x/cpu.cfs_quota_us": "-1\n",
                                   "fs/cpu,cpuacct/x/cpu.cfs_period_us": "100000\n"}, None),
        ("", {}, None),  # no cgroups at all
    ],
)
def test_default_threads_respect_a_cpu_quota(tmp_path, monkeypatch, own, files, cores):
    """A quota of 1.5 cores gives 2 threads, of half a core 1; no quota (or none readable): every core allowed."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    assert available_cores(*_cgroups(tmp_path, own, files)) == (8 if cores is None else cores)


def test_the_default_thread_count_is_the_cores_available(monkeypatch):
    import netmcl.engines.cpu.engine as cpu

    monkeypatch.setattr(cpu, "available_cores", lambda: 3)
    assert get_engine("cpu").threads == 3 and get_engine("cpu", threads=5).threads == 5


def test_components_give_the_whole_runs_iterands_and_iteration_count(gavin):
    params = MclParams.build(inflation=2.5)
    start = start_matrix(gavin, params)
    groups = component_groups(start, group_nodes=40)
    assert len(groups) >= 4
    grouped = GroupedEngine(get_engine("cpu", threads=2), groups, chaos_limit=CHAOS_LIMIT)
    grouped.load(start, n_rule=gavin.n)
    whole = get_engine("cpu", threads=1)
    whole.load(start, n_rule=gavin.n)
    for it in range(1, 200):
        stats = grouped.iterate(inflation_at(params, it), params.pruning())
        alone = whole.iterate(inflation_at(params, it), params.pruning())
        assert stats.chaos == alone.chaos and stats.kept == alone.kept and stats.extra["groups"] == len(groups)
        assert _same(grouped.result(), whole.result())
        if alone.chaos < CHAOS_LIMIT:
            break
    assert it > 5


def test_a_group_with_a_quarter_of_the_entries_takes_every_thread_first():
    """Entries, not nodes: a 12-node clique and the pairs packed with it hold 40 % of the
    entries in 24 % of the nodes; they are iterated first, on both threads."""
    clique = [(a, b) for a in range(12) for b in range(a + 1, 12)]
    pairs = [(12 + 2 * k, 13 + 2 * k) for k in range(100)]
    g = SparseGraph.from_edges(*zip(*(clique + pairs)))
    start = start_matrix(g, MclParams())
    groups = component_groups(start, group_nodes=50)
    assert groups[0].size == 50 and 4 * groups[0].size < g.n
    grouped = GroupedEngine(get_engine("cpu", threads=2), groups, chaos_limit=CHAOS_LIMIT)
    grouped.load(start, n_rule=g.n)
    assert grouped.big and [group.engine.threads for group in grouped.groups] == [2] + [1] * (len(groups) - 1)


def test_component_groups_cover_every_node_once(gavin):
    groups = component_groups(start_matrix(gavin, MclParams()), group_nodes=100)
    nodes = np.concatenate(groups)
    assert np.array_equal(np.sort(nodes), np.arange(gavin.n))
    assert all(np.all(np.diff(g) > 0) for g in groups)


def test_the_dense_path_rule_uses_the_whole_graph_size():
    # one triangle in a graph of 1,000 nodes: mcl takes the exact (sparse)
    # product path for its columns, because 10 * flops < 1000
    g = SparseGraph.from_edges([0, 1, 2], [1, 2, 0], [0.3, 0.7, 0.11], n=1000)
    params = MclParams()
    alone = get_engine("cpu", threads=1)
    alone.load(start_matrix(g, params)[[0, 1, 2]][:, [0, 1, 2]], n_rule=1000)
    assert alone.iterate(2.0, params.pruning()).dense_path == 0
    small = get_engine("cpu", threads=1)
    small.load(start_matrix(g, params)[[0, 1, 2]][:, [0, 1, 2]])
    assert small.iterate(2.0, params.pruning()).dense_path == 3


def test_iteration_cap_warns_and_returns_clusters():
    from netmcl.datasets import load_collins2007

    G = load_collins2007()
    with pytest.warns(netmcl.ConvergenceWarning, match="did not converge in 3 iterations"):
        cl = netmcl.mcl(G, max_iterations=3, attribute=None)
    assert cl.n_iterations == 3 and not cl.converged
    assert sum(cl.sizes) == G.number_of_nodes()


def test_start_matrix_rows_are_the_graphs_and_engines_choose_their_own(gavin):
    """A start matrix has int32 rows whatever the engine; the CPU engine keeps uint16 rows
    where they fit, or int32 when told, with the same iterands."""
    from netmcl.mcl import _start

    for params in (MclParams(), MclParams.build(discard_loops=False, loop_gain=2.0)):
        start = _start(gavin, params)
        assert start.indices.dtype == np.int32
        scipy_form = start_matrix(gavin, params)
        assert np.array_equal(start.indices, scipy_form.indices) and np.array_equal(start.data, scipy_form.data)
        wide = CpuEngine(threads=1, narrow_rows=False)
        wide.load(start, n_rule=gavin.n)
        assert wide._indices.dtype == np.int32
        usual = CpuEngine(threads=1)
        usual.load(start, n_rule=gavin.n)
        assert usual._indices.dtype != np.int32
        for engine in (wide, usual):
            engine.iterate(inflation_at(params, 1), params.pruning())
        assert _same(wide.result(), usual.result())


def test_start_matrix_loops_and_normalisation():
    # node 0: arcs 0.5 to 1 and 0.25 to 2 plus an input loop of 9 (discarded)
    g = SparseGraph(sp.csc_array(np.array([[9, 0.5, 0.25], [0.5, 0, 0], [0.25, 0, 0]], dtype=np.float32)))
    m = start_matrix(g, MclParams()).toarray()
    assert np.allclose(m[:, 0], np.array([0.5, 0.5, 0.25]) / 1.25)
    assert np.allclose(m.sum(axis=0), 1.0)
    kept = start_matrix(g, MclParams(discard_loops=False)).toarray()
    assert np.allclose(kept[:, 0], np.array([9, 0.5, 0.25]) / 9.75)
    assert kept[1, 1] == 0  # no loop added when loops are kept as given


@pytest.mark.parametrize("inflation", [1.4, 3.0])
def test_shared_first_expansion_is_bit_identical_to_a_first_iteration(gavin, inflation):
    from netmcl.mcl import first_expansion, inflate_first

    params = MclParams.build(inflation=inflation)
    expansion, stats = first_expansion(gavin, MclParams(), get_engine("cpu"))
    matrix, (first,) = inflate_first(expansion, stats, params, get_engine("cpu"))
    (expected,) = _iterands(gavin, get_engine("cpu"), params, 1)
    assert _same(matrix, expected)
    direct = get_engine("cpu")
    direct.load(start_matrix(gavin, params))
    assert direct.iterate(inflation_at(params, 1), params.pruning()).chaos == first.chaos


@pytest.mark.parametrize("network", ["clusterone_gavin2006_socioaffinities_rescaled.txt.gz", "procope_conf_krogan.txt.gz"])
def test_vector_path_gives_the_scalar_iterands(network):
    """Heavy columns expanded together in vector lanes, in runs of 16, of 8 or of 4
    (both networks have fewer than LANE_RUN_NODES nodes; Krogan's more than a
    256 KB L2 cache takes in runs of 8), give the bits of the scalar path."""
    from netmcl.engines.cpu import _constants as C
    from netmcl.engines.cpu.engine import CpuEngine

    graph = _abc(network)
    params = MclParams.build(inflation=2.0)
    runs, again = {}, {}  # again: sums of lone reads summed again in mcl's order
    for name, options in [
        ("never", {"lane_sharing": np.inf}),
        ("always", {"lane_sharing": 0.0, "wide_runs": True}),
        ("always, runs of 8", {"lane_sharing": 0.0, "wide_runs": False, "l2": 2 << 20}),
        ("always, runs of 4", {"lane_sharing": 0.0, "wide_runs": False, "l2": 256 << 10}),
        ("always, lone reads apart", {"lane_sharing": 0.0, "lone_reads": 0.0}),
        ("default", {}),
    ]:
        engine = CpuEngine(threads=2, **options)
        engine.load(start_matrix(graph, params))
        runs[name] = []
        again[name] = 0
        for it in range(1, 5):
            stats = engine.iterate(inflation_at(params, it), params.pruning())
            runs[name].append((engine.result().copy(), stats.extra["lanes"], stats.extra["ordered"]))
            again[name] += stats.extra["in_order"]
    assert sum(lanes for _, lanes, _ in runs["never"]) == 0
    assert not any(ordered for _, _, ordered in runs["never"])
    assert again["never"] == 0 < again["always, lone reads apart"]
    assert sum(lanes for _, lanes, _ in runs["always"]) >= graph.n // 2
    assert sum(lanes for _, lanes, _ in runs["always, runs of 8"]) >= graph.n // 2
    if graph.n > C.lane_nodes(256 << 10):
        assert sum(lanes for _, lanes, _ in runs["always, runs of 4"]) >= graph.n // 2
    for name in ("always", "always, runs of 8", "always, runs of 4", "always, lone reads apart", "default"):
        assert any(ordered for _, _, ordered in runs[name])  # heavy columns computed out of column order
        assert all(_same(a, b) for (a, _, _), (b, _, _) in zip(runs["never"], runs[name]))


@pytest.mark.parametrize(
    "pruning, branch",
    [
        ({"pruning_number": 30, "recover": 900, "recover_pct": 95}, "recovered"),
        ({"select": 50, "recover": 200, "recover_pct": 95}, "recovered_after_select"),
    ],
)
def test_vector_path_prunes_as_the_scalar_path(pruning, branch):
    """The columns of a run are measured together and their entries taken out
    after (all of them where pruning recovers, else the cutoff's survivors):
    every branch of pruning then gives the scalar path's bits."""
    from netmcl.engines.cpu.engine import CpuEngine

    graph = _abc("procope_conf_krogan.txt.gz")
    params = MclParams.build(inflation=2.0, **pruning)
    engines = [CpuEngine(threads=2, lane_sharing=np.inf)] + [
        CpuEngine(threads=2, lane_sharing=0.0, wide_runs=wide, l2=l2)
        for wide, l2 in [(True, 2 << 20), (False, 2 << 20), (False, 256 << 10)]
    ]
    for engine in engines:
        engine.load(start_matrix(graph, params))
    taken = lanes = 0
    for it in range(1, 5):
        stats = [e.iterate(inflation_at(params, it), params.pruning()) for e in engines]
        assert all(s.chaos == stats[0].chaos and s.kept == stats[0].kept for s in stats)
        assert all(_same(engines[0].result(), e.result()) for e in engines[1:])
        if stats[1].extra["lanes"]:
            taken += getattr(stats[1], branch)
            lanes += stats[1].extra["lanes"]
    assert lanes >= graph.n and taken >= 100


@pytest.mark.parametrize("shift, stored", [(0, np.uint16), (1, np.uint8)])
def test_a_lone_read_summed_apart_that_would_round_otherwise_is_summed_again_in_order(shift, stored):
    """Column 5 reads columns 0 to 3; column 4, in the same run, reads 0 and 2.  Row 4's
    products in column 5 are 1, 2**-53, 2**-24 and 2**-53 (k ascending): summed in that
    order, 1 + 2**-24, a float32 rounding midpoint, which rounds to 1.  Columns 1 and 3,
    read by column 5 alone, summed apart and added to the others' sum, give
    1 + 2**-24 + 2**-52, which rounds to 1 + 2**-23: the engine sees the sum near a
    midpoint, sums it again in order, and keeps the scalar path's bits.  The sum again
    searches the columns read for row 4 by bisection where their rows are stored whole,
    and reads them from the start where they are stored as gaps: with the nodes `shift`
    up by one (node 0 alone), no column's first row is 0, and the rows are gaps."""
    from netmcl.sparse import CscMatrix
    from netmcl.engines.cpu.engine import CpuEngine

    columns = {  # column: {row: value}
        0: {4: 1.0, 6: 0.5, 7: 0.5},
        1: {4: 2.0**-27, 6: 0.5, 7: 0.5},
        2: {4: 2.0**-12, 6: 0.5, 7: 0.5},
        3: {4: 2.0**-27, 6: 0.5, 7: 0.5},
        4: {0: 0.5, 2: 0.5, 6: 0.5, 7: 0.5},
        5: {0: 1.0, 1: 2.0**-26, 2: 2.0**-12, 3: 2.0**-26},
        6: {0: 0.5, 2: 0.5, 6: 0.5, 7: 0.5},
        7: {0: 0.5, 2: 0.5, 6: 0.5, 7: 0.5},
    }
    columns = {j + shift: {i + shift: v for i, v in column.items()} for j, column in columns.items()}
    n = 8 + shift
    indptr = np.cumsum([0] + [len(columns.get(j, {})) for j in range(n)])
    rows = np.array([i for j in range(n) for i in sorted(columns.get(j, {}))], dtype=np.int32)
    values = np.array([columns[j][i] for j in range(n) for i in sorted(columns.get(j, {}))], dtype=np.float32)
    products = [1.0, 2.0**-53, 2.0**-24, 2.0**-53]
    in_order = ((products[0] + products[1]) + products[2]) + products[3]
    apart = (products[0] + products[2]) + (products[1] + products[3])
    assert np.float32(in_order) == 1.0 and np.float32(apart) == 1.0 + 2.0**-23
    pruning = (-1.0, 0, 0, 0.0)  # no cutoff, selection or recovery: every sum is kept
    results = []
    for options in ({"lane_sharing": np.inf}, {"lane_sharing": 0.0, "lone_reads": 0.0}):
        engine = CpuEngine(threads=1, **options)
        engine.load(CscMatrix(indptr, rows, values, n))
        assert engine._indices.dtype == stored
        stats = engine.iterate(None, pruning)
        results.append((engine.result(), stats))
    (scalar, by_column), (lanes, summed_apart) = results
    assert by_column.extra["lanes"] == 0 and summed_apart.extra["lanes"] == 8
    assert summed_apart.extra["in_order"] >= 1
    assert _same(scalar, lanes)


def _communities(n, size, degree, seed):
    """A graph of n nodes in communities of `size`, `degree` random arcs a node inside its community
    and one outside (a small generated community graph)."""
    rng = np.random.default_rng(seed)
    src = np.repeat(np.arange(n), degree + 1)
    inside = (src // size) * size + rng.integers(0, size, src.size)
    dst = np.where(np.arange(src.size) % (degree + 1) == degree, rng.integers(0, n, src.size), inside)
    keep = src != dst
    return SparseGraph.from_edges(src[keep], dst[keep], np.ones(int(keep.sum())), labels=[str(i) for i in range(n)])


def test_runs_of_eight_past_the_wide_runs_give_the_scalar_iterands():
    """Between LANE_RUN_NODES and the engine's lane_nodes (LANE_NODES on a 2 MB L2 cache)
    runs of heavy columns are LANES long (accumulators interleaved 8 to a row): the bits
    of the scalar path still."""
    from netmcl.engines.cpu._compiled import kernels
    from netmcl.engines.cpu import _constants as C

    size = kernels().run_size
    lanes, narrow = C.lane_nodes(2 << 20), C.narrow_nodes(2 << 20)
    assert lanes == C.LANE_NODES > C.LANE_RUN_NODES
    assert (size(C.LANE_RUN_NODES, True, lanes, narrow), size(C.LANE_RUN_NODES + 1, True, lanes, narrow)) == (
        C.RUN,
        C.LANES,
    )
    assert size(C.LANE_RUN_NODES, False, lanes, 0) == C.LANES
    assert size(lanes + 1, True, lanes, 0) == size(lanes + 1, False, lanes, 0) < C.LANES
    _lanes_give_the_scalar_iterands(_communities(9000, 150, 12, seed=3), {"l2": 2 << 20})


def test_runs_of_four_past_runs_of_eight_give_the_scalar_iterands():
    """Past lane_nodes, up to narrow_nodes (where their accumulators fit the L2
    cache), runs of heavy columns are NARROW_LANES long (accumulators interleaved
    4 to a row, half a line), and take the vector path at half the sharing: the
    bits of the scalar path still."""
    from netmcl.engines.cpu._compiled import kernels
    from netmcl.engines.cpu import _constants as C

    size = kernels().run_size
    lanes, narrow = C.lane_nodes(2 << 20), C.narrow_nodes(2 << 20)
    assert size(lanes + 1, False, lanes, narrow) == size(narrow, True, lanes, narrow) == C.NARROW_LANES
    assert narrow == C.NARROW_RUN_NODES
    # elsewhere the scalar groups, as many columns as GROUP_BYTES of accumulators hold
    assert size(narrow + 1, False, lanes, narrow) == 1
    assert size(lanes + 1, False, lanes, 0) == C.GROUP_BYTES // (8 * (lanes + 1)) < C.NARROW_LANES
    # a run of four serves about 2 products an operation here: at least 3 / 2, not 3
    _lanes_give_the_scalar_iterands(_communities(17100, 150, 12, seed=4), {"l2": 2 << 20, "lane_sharing": 3.0})


def test_a_smaller_l2_cache_takes_runs_of_four_where_runs_of_eight_overflow_it():
    """On a core with 512 KB of L2 the 10k-node generated graph's runs are four
    columns long (320 KB of accumulators), not eight (640 KB); past 16,384 nodes
    even those overflow it, and the columns go alone or in small groups; with
    narrow runs turned off they do at once."""
    from netmcl.engines.cpu import _constants as C
    from netmcl.engines.cpu.engine import CpuEngine

    def run(n, **options):
        engine = CpuEngine(threads=1, **options)
        engine.n = n
        return engine._run

    small, large = 512 << 10, 2 << 20
    assert (C.lane_nodes(small), C.narrow_nodes(small)) == (4096, 16384)
    assert run(10_000, l2=small, wide_runs=True) == run(16_384, l2=small, wide_runs=False) == C.NARROW_LANES
    assert run(10_000, l2=large, wide_runs=True) == run(10_000, l2=large, wide_runs=False) == C.LANES
    assert run(8_192, l2=small, wide_runs=True) == C.RUN
    assert run(16_385, l2=small) == C.GROUP_BYTES // (8 * 16_385) < C.NARROW_LANES
    assert run(10_000, l2=small, wide_runs=True, narrow_runs=False) == C.GROUP_BYTES // (8 * 10_000)
    assert CpuEngine(l2=small).spawn(threads=1, share=2).l2 == small  # component groups run as their parent
    _lanes_give_the_scalar_iterands(_communities(10_000, 125, 12, seed=5), {"l2": small, "lane_sharing": 3.0})


def test_the_l2_cache_is_read_from_linux_s_description_of_the_cpu(tmp_path):
    """``l2_bytes`` takes the size of the level-2 unified or data cache that sysfs
    lists for the CPU (not the L1's, not the L3's), and 2 MB where
    there is no such list or it cannot be read."""
    from netmcl.engines.cpu import _constants as C
    from netmcl.engines.cpu.engine import l2_bytes

    caches = [("1", "Data", "32K"), ("1", "Instruction", "32K"), ("2", "Unified", "512K"), ("3", "Unified", "32768K")]
    for i, (level, kind, size) in enumerate(caches):
        index = tmp_path / "cache" / f"index{i}"
        index.mkdir(parents=True)
        for name, text in [("level", level), ("type", kind), ("size", size)]:
            (index / name).write_text(text + "\n")
    assert l2_bytes(str(tmp_path)) == 512 << 10
    (tmp_path / "cache" / "index2" / "size").write_text("2M\n")
    assert l2_bytes(str(tmp_path)) == 2 << 20
    (tmp_path / "cache" / "index2" / "size").write_text("large\n")
    assert l2_bytes(str(tmp_path)) == C.L2_DEFAULT
    assert l2_bytes(str(tmp_path / "missing")) == C.L2_DEFAULT


def _lanes_give_the_scalar_iterands(graph, options):
    """Three iterations on `graph` give the iterands and chaos of the scalar path (no lanes)
    with the vector path's engine (`options`), which takes lanes for at least every column once,
    in the order of heavy columns."""
    from netmcl.engines.cpu.engine import CpuEngine

    params = MclParams.build(inflation=2.0)
    engines = [CpuEngine(threads=2, lane_sharing=np.inf), CpuEngine(threads=2, **options)]
    for engine in engines:
        engine.load(start_matrix(graph, params))
    lanes, ordered = 0, False
    for it in range(1, 4):
        stats = [e.iterate(inflation_at(params, it), params.pruning()) for e in engines]
        assert stats[0].chaos == stats[1].chaos
        assert _same(engines[0].result(), engines[1].result())
        lanes += stats[1].extra["lanes"]
        ordered |= stats[1].extra["ordered"]
    assert lanes >= graph.n and ordered


def test_column_leaders_and_the_order_of_heavy_columns(gavin):
    """A column's leader is its largest entry's row other than itself (the first on ties),
    found in the pass that sums the lengths of the columns it reads, over any range of
    columns; the engine computes heavy columns first, a permutation of all columns."""
    from netmcl.engines.cpu._compiled import kernels
    from netmcl.engines.cpu.engine import CpuEngine

    indptr = np.array([0, 3, 4, 7])
    rows = np.array([0, 1, 2, 1, 0, 1, 2], dtype=np.int32)
    vals = np.array([0.5, 0.3, 0.2, 1.0, 0.4, 0.4, 0.2], dtype=np.float32)
    one_block = np.empty((0, 3), dtype=np.int64)
    gaps, whole, per, _ = _gap_rows(np.diff(indptr), rows.astype(np.uint16))
    excat = np.cumsum(per) - per
    for survey, stored in ((kernels().column_survey, (rows, rows[:0], indptr[:0])),
                           (kernels().column_survey_u8, (gaps, whole, excat))):
        flops, leaders = np.full(3, -1), np.full(3, -1)
        for lo, hi in ((0, 1), (1, 3)):
            survey(indptr[:-1], indptr[1:], one_block, *stored, vals, lo, hi, flops, leaders)
        assert flops.tolist() == [7, 1, 7] and leaders.tolist() == [1, 1, 0]
    params = MclParams.build(inflation=2.0)
    engine = CpuEngine(threads=2)
    engine.load(start_matrix(gavin, params))
    engine.iterate(inflation_at(params, 1), params.pruning())
    flops, leaders = engine._survey()
    order = engine._order(flops, leaders)
    heavy = (flops * 10 >= engine.n_rule) & (flops * 2 >= engine.n)
    assert sorted(order.tolist()) == list(range(engine.n))
    assert heavy[order].tolist() == sorted(heavy.tolist(), reverse=True)


def test_rows_put_in_order_by_sorting_or_by_bitmap_give_the_same_iterands(gavin):
    """A column's rows are sorted when few against the matrix size, else ordered
    through a bitmap.  Gavin's network alone takes the bitmap for every column;
    padded with 300,000 isolated nodes (same dense-path rule) its light columns
    are sorted.  Its iterands are the same bits either way."""
    from netmcl.engines.cpu._compiled import kernels
    from netmcl.engines.cpu._constants import SORT_BELOW
    from netmcl.engines.cpu.engine import CpuEngine

    params = MclParams.build(inflation=2.0)
    start = start_matrix(gavin, params)
    n0, pad = start.shape[0], 300_000
    padded = _padded(start, n0 + pad)
    alone, big = CpuEngine(threads=1), CpuEngine(threads=1)
    alone.load(start, n_rule=n0 + pad)
    big.load(padded)
    one_block = np.empty((0, n0), dtype=np.int64)
    rows, whole = start.indices.astype(np.int32), np.empty(0, dtype=np.int32)
    flops, leaders = np.empty(n0, dtype=np.int64), np.empty(n0, dtype=np.int64)
    kernels().column_survey(start.indptr[:-1], start.indptr[1:], one_block, rows, whole, start.indptr[:0],
                            start.data, 0, n0, flops, leaders)
    assert (flops * SORT_BELOW < n0 + pad).any() and (flops > 0).all()
    for it in range(1, 4):
        inflation = inflation_at(params, it)
        assert alone.iterate(inflation, params.pruning()).chaos == big.iterate(inflation, params.pruning()).chaos
        assert _same(alone.result(), _top_left(big.result(), n0))


@pytest.mark.parametrize("n", [70_000, 200_000])
def test_rows_in_blocks_give_the_iterands_of_whole_rows(gavin, n):
    """Past 65,536 nodes rows are kept as uint16 offsets in blocks of 65,536 rows,
    and a heavy column fills its accumulator one block after the other; each row
    still gets its products over k ascending.  Gavin's network and a dense
    community of 400 nodes spread over 70,000 and 200,000 nodes (the rest
    isolated): 2 and 4 blocks, the same bits as int32 rows in one block, on
    the dense, sparse and heavy paths, and as columns computed in column order
    (the others compute the heavy ones first, community by community)."""
    from netmcl.engines.cpu.engine import CpuEngine

    params = MclParams.build(inflation=2.0)
    dense_community = start_matrix(_communities(400, 400, 300, seed=5), params)
    start = sp.block_diag([start_matrix(gavin, params), dense_community], format="csc")
    padded = _padded(start, n)
    spread = np.argsort(np.random.default_rng(1).permutation(n))  # Gavin's nodes land all over the rows
    padded = padded[spread][:, spread].tocsc()
    padded.sort_indices()
    engines = blocked, whole, in_order = (
        CpuEngine(threads=2), CpuEngine(threads=2, narrow_rows=False), CpuEngine(threads=2, lane_sharing=np.inf)
    )
    for engine in engines:
        engine.load(padded)
    assert blocked._cuts.shape == (-(-n // 65_536) - 1, n) and blocked._indices.dtype == np.uint16
    assert whole._cuts.shape == (0, n) and whole._indices.dtype == np.int32
    assert _same(blocked.result(), CscMatrix.of(padded))
    heavy, dense, sparse, ordered = 0, 0, 0, 0
    for it in range(1, 4):
        flops, leaders = zip(*(e._survey() for e in engines))
        assert (flops[0] == flops[1]).all() and (flops[0] == flops[2]).all()
        assert (leaders[0] == leaders[1]).all() and (leaders[0] == leaders[2]).all()
        heavy += int(blocked._heavy(flops[0]).sum())
        stats = [e.iterate(inflation_at(params, it), params.pruning()) for e in engines]
        assert stats[0].chaos == stats[1].chaos == stats[2].chaos
        assert stats[0].dense_path == stats[1].dense_path == stats[2].dense_path
        assert stats[0].extra["ordered"] == stats[1].extra["ordered"] and not stats[2].extra["ordered"]
        ordered += stats[0].extra["ordered"]
        dense, sparse = dense + stats[0].dense_path, sparse + n - stats[0].dense_path
        assert _same(blocked.result(), whole.result()) and _same(blocked.result(), in_order.result())
    assert heavy > 10 and dense > heavy and sparse > 0 and ordered >= 2


def _padded(start, n):
    """The start matrix `start` followed by isolated nodes (a loop each) up to n nodes."""
    return sp.block_diag([start, sp.identity(n - start.shape[0], dtype=np.float32, format="csc")], format="csc")


def _top_left(m, n0):
    """The first n0 columns and rows of a CscMatrix whose first n0 columns only hold rows below n0."""

    indptr = m.indptr[: n0 + 1]
    return CscMatrix(indptr, m.indices[: indptr[-1]], m.data[: indptr[-1]], n0)


@pytest.mark.parametrize("network", ["clusterone_gavin2006_socioaffinities_rescaled.txt.gz", "procope_conf_krogan.txt.gz"])
def test_narrow_rows_give_the_wide_iterands(network):
    """uint16 rows (graphs of at most 65,536 nodes: one row block) give the bits of int32 rows."""
    from netmcl.engines.cpu.engine import CpuEngine

    graph = _abc(network)
    params = MclParams.build(inflation=2.0)
    narrow, wide = CpuEngine(threads=2), CpuEngine(threads=2, narrow_rows=False)
    for engine in (narrow, wide):
        engine.load(start_matrix(graph, params))
    assert (narrow._indices.dtype, wide._indices.dtype) == (np.uint16, np.int32)
    for it in range(1, 6):
        stats = [e.iterate(inflation_at(params, it), params.pruning()) for e in (narrow, wide)]
        assert stats[0].chaos == stats[1].chaos
        assert stats[0].dense_path == stats[1].dense_path
        assert _same(narrow.result(), wide.result())
        assert narrow.result().indices.dtype == np.int32


def _gap_rows(counts, rows):
    """The engine's ``_as_gaps`` on a copy of `rows`: the gaps, the rows stored
    whole, and per column how many, in all and past the first."""
    from netmcl.engines.cpu.engine import _as_gaps

    return _as_gaps(counts, rows.copy(), always=True)


def test_gap_rows_store_gaps_of_one_byte_and_the_other_rows_whole():
    """A gap of 1-255 from the row before is stored as such; a gap of 256 or
    more, and a column's first row where it is 0, as 0, the row stored whole
    apart, counted per column in all and past its first entry; and the rows
    read back are the rows."""
    from netmcl.engines.cpu._compiled import kernels

    counts = np.zeros(800, dtype=np.int64)  # the columns of a matrix of 800 nodes, 4 of them not empty
    counts[:4] = 6, 1, 0, 3
    rows = np.array([0, 1, 255, 256, 512, 767, 300, 5, 261, 262], dtype=np.uint16)
    gaps, whole, per, inner = _gap_rows(counts, rows)
    assert gaps.tolist() == [0, 1, 254, 1, 0, 255, 0, 5, 0, 1]
    assert whole.tolist() == [0, 512, 300, 261] and per[:4].tolist() == [2, 1, 0, 1] and not per[4:].any()
    assert inner[:4].tolist() == [1, 0, 0, 1] and not inner[4:].any()
    indptr = np.concatenate([[0], np.cumsum(counts)])
    one_block = np.empty((0, counts.size), dtype=np.int64)
    back = np.empty(rows.size, dtype=np.uint16)
    kernels().full_rows_u8(indptr[:-1], indptr[1:], one_block, gaps, whole, np.cumsum(per) - per, back)
    assert back.tolist() == rows.tolist()


@pytest.mark.parametrize("threads, budget", [(1, None), (2, None), (2, "6M")])
def test_rows_as_gaps_give_the_iterands_of_whole_rows(gavin, threads, budget):
    """Gavin's iterands with rows stored as one-byte gaps (the dense ones, some
    rows stored whole, in some columns past their first entry, which are read
    with a check an entry, the others without) are the same bits as with
    whole uint16 rows, columns computed in any order, in one phase or many."""
    params = MclParams.build(inflation=1.6)
    whole = _iterands(gavin, CpuEngine(threads=threads, gap_rows=False), params, 5)
    engine = CpuEngine(threads=threads, max_memory=budget and past_process(budget))
    engine.load(start_matrix(gavin, params))
    kinds = set()
    for it, expected in enumerate(whole, start=1):
        stats = engine.iterate(inflation_at(params, it), params.pruning())
        inner = engine._excn[engine._colstop > engine._colstart] if engine._excn.size else np.zeros(1)
        kinds.add((engine._indices.dtype.name, (inner > 0).any() and (inner == 0).any(), stats.extra["ordered"],
                   stats.extra["phases"] > 1))
        assert _same(engine.result(), expected)
    assert ("uint8", True, True, budget is not None) in kinds


def test_rows_turned_back_from_gaps_by_threads_are_those_of_one_thread(gavin):
    """An iterand's rows stored as gaps, turned back into whole rows by the
    threads of a pool, each a range of columns of about equal entries (as an
    iteration does where it keeps no gaps), are those turned back on one thread."""
    from concurrent.futures import ThreadPoolExecutor

    params = MclParams.build(inflation=1.6)
    engine = CpuEngine(threads=3)
    engine.load(start_matrix(gavin, params))
    for it in range(1, 6):
        engine.iterate(inflation_at(params, it), params.pruning())
        if engine._indices.dtype == np.uint8:
            break
    assert engine._indices.dtype == np.uint8 and engine._exc.size
    ranges = []
    with ThreadPoolExecutor(3) as pool:
        engine._by_columns(lambda lo, hi: ranges.append((lo, hi)), lambda: pool)
        by_threads = engine._full_rows(np.uint16, lambda: pool)
    assert len(ranges) == 3 and sorted(ranges)[0][0] == 0 and sorted(ranges)[-1][1] == engine.n
    assert by_threads.tolist() == engine._full_rows(np.uint16).tolist()


@pytest.mark.parametrize("n, rows, blocks", [(65_536, np.uint16, 1), (65_537, np.uint16, 2), (262_145, np.int32, 1)])
def test_rows_are_narrow_up_to_262144_nodes(n, rows, blocks):
    """A ring of n nodes: rows are uint16 (in blocks of 65,536 past 65,536
    nodes) up to 262,144 nodes, and the first iterand is right.  Up to 65,536
    nodes they would be one-byte gaps, but a ring's columns hold 3 entries,
    the first of which takes a row stored whole: more than one in
    GAP_EXCEPTIONS, and whole rows are kept."""
    from netmcl.engines.cpu.engine import CpuEngine

    nodes = np.arange(n)
    graph = SparseGraph.from_edges(nodes, (nodes + 1) % n)
    params = MclParams()
    engine = CpuEngine(threads=1)
    engine.load(start_matrix(graph, params))
    assert engine._indices.dtype == rows and engine._cuts.shape == (blocks - 1, n)
    engine.iterate(inflation_at(params, 1), params.pruning())
    result = engine.result()
    assert result.indices.dtype == np.int32 and result.indices.max() == n - 1
    # column n - 1 of the first iterand: the nodes at most two steps away
    assert result.indices[result.indptr[n - 1] :].tolist() == [0, 1, n - 3, n - 2, n - 1]

def test_interleaved_accumulators_start_at_a_cache_line():
    """A run's interleaved accumulators are read and written a 64-byte row at
    a time: they start at a cache line whatever the allocator gives (numba
    aligns to 32 bytes only; without the alignment several of these sizes
    start at an odd multiple of 32), zeroed, one per row and lane."""
    from netmcl.engines.cpu._compiled import kernels

    kept = []  # the work arrays stay alive, so each allocation lands elsewhere
    for n in (100, 257, 1_000, 3_001, 10_000):
        for run in (8, 16):
            work = kernels().work_arrays(n, run)
            kept.append(work)
            heavy = work[5]
            assert heavy.ctypes.data % 64 == 0 and heavy.size == run * n and not heavy.any()


@pytest.fixture(params=["mapping", "numpy"])
def appender_kind(request, monkeypatch):
    """The next iterand built in a remappable mapping (Linux) or in numpy arrays."""
    from netmcl.engines.cpu import _buffers

    if request.param == "mapping" and not _buffers._MAPPED:
        pytest.skip("anonymous mappings that can be remapped: Linux only")
    monkeypatch.setattr(_buffers, "_MAPPED", request.param == "mapping")
    return request.param


def test_appender_grows_past_its_room_and_trims(appender_kind):
    from netmcl.engines.cpu._buffers import Appender

    parts = [np.arange(start, start + size, dtype=np.uint16) for start, size in [(0, 3), (3, 5000), (5003, 2)]]
    out = Appender(np.uint16, likely=2, reserve=4)
    for i, part in enumerate(parts):
        out.append(part, most=sum(p.size for p in parts))
        held = out.size if appender_kind == "mapping" else out.capacity
        assert out.resident_bytes == 2 * held
    got = out.array()
    assert got.dtype == np.uint16 and np.array_equal(got, np.arange(5005))
    assert (got.base is None) == (appender_kind == "numpy")  # a view of the mapping, or numpy's own


def test_appender_room_filled_in_place_then_trimmed(appender_kind):
    """What csc_max does: room for every entry, filled by a kernel, the first ones kept."""
    from netmcl.engines.cpu._buffers import Appender

    out = Appender(np.int32, likely=3, reserve=3)
    out.append(np.array([7], dtype=np.int32), most=1)
    room = out.room(5)
    room[:] = np.arange(5)
    del room  # a mapping cannot be remapped while a view of it exists
    got = out.array(4)
    assert got.tolist() == [7, 0, 1, 2] and out.resident_bytes == 16
    assert (got.base is None) == (appender_kind == "numpy")


def test_appender_past_its_small_pages_grows(appender_kind):
    """A mapping advised for 2 MiB pages past its first 4 MiB is two regions to Linux,
    which will not grow it in place: it moves, with what it holds (the label-file
    reader's ids, widened to 4 bytes at 65,536 labels, then grown)."""
    from netmcl.engines.cpu._buffers import _SMALL_PAGES, Appender

    first = np.arange(_SMALL_PAGES // 2, dtype=np.int32)  # 8 MiB reserved for 2 MiB of items
    out = Appender(np.int32, likely=first.size, reserve=2 * first.size)
    out.append(first)
    out.append(np.arange(3 * first.size, dtype=np.int32) + first.size)
    got = out.array()
    assert got.size == 4 * first.size and np.array_equal(got, np.arange(got.size))


def test_refused_huge_pages_leave_the_mapping_in_use(monkeypatch):
    from netmcl.engines.cpu import _buffers

    if not _buffers._MAPPED:
        pytest.skip("anonymous mappings that can be remapped: Linux only")

    class Refusing:  # a kernel without 2 MiB pages answers madvise with EINVAL
        def madvise(self, option, start):
            raise OSError(22, "Invalid argument")

    _buffers._advise_huge_pages(Refusing(), _buffers._SMALL_PAGES)  # no error
    asked = []
    monkeypatch.setattr(_buffers, "_advise_huge_pages", lambda mapping, start: asked.append(start))
    out = _buffers.Appender(np.float32, likely=1, reserve=_buffers._SMALL_PAGES)  # 16 MiB, past the small pages
    out.append(np.arange(10, dtype=np.float32), most=10)
    assert asked == [_buffers._SMALL_PAGES]
    assert out.resident_bytes == 40 and out.array().base is not None  # a mapping, not numpy's array


def test_next_iterand_in_a_mapping_equals_the_numpy_one(gavin, monkeypatch):
    from netmcl.engines.cpu import _buffers
    from netmcl.engines.cpu import engine as cpu

    if not _buffers._MAPPED:
        pytest.skip("anonymous mappings that can be remapped: Linux only")
    params = MclParams()
    results = {}
    for mapped in (True, False):
        monkeypatch.setattr(_buffers, "_MAPPED", mapped)
        engine = cpu.CpuEngine(threads=2)
        engine.load(start_matrix(gavin, params))
        results[mapped] = [engine.iterate(inflation_at(params, it), params.pruning()).chaos for it in (1, 2, 3)]
        results[mapped].append(engine.result())
        assert (engine._data.base is None) != mapped
    assert results[True][:3] == results[False][:3]
    assert _same(results[True][3], results[False][3])


def test_output_grows_past_the_estimate_when_pruning_keeps_ties(appender_kind):
    """Recovery keeps every entry tied with the last one, which can exceed the size estimate."""
    from netmcl.engines.cpu.engine import CpuEngine

    edges = [(a, b) for a in range(5) for b in range(a + 1, 5)]
    graph = SparseGraph.from_edges([a for a, _ in edges], [b for _, b in edges])  # K5: five tied entries
    params = MclParams.build(inflation=2.0, pruning_number=2, select=1, recover=1)
    engine = CpuEngine(threads=1)
    engine.load(start_matrix(graph, params))
    assert engine._column_estimates(engine._survey()[0], params.pruning()).sum() < 25  # so the output must grow
    stats = engine.iterate(inflation_at(params, 1), params.pruning())
    assert (stats.kept, stats.recovered) == (25, 5)
    assert np.array_equal(engine.result().toarray(), np.full((5, 5), 0.2, dtype=np.float32))


@pytest.mark.parametrize("wide_runs", [True, False])
def test_output_that_grows_inside_runs_of_heavy_columns_gives_the_same_iterands(gavin, monkeypatch, wide_runs):
    """Estimated at one entry a column, a chunk's output grows at nearly every column, in the middle
    of runs of heavy columns expanded together too, whose other columns wait in their accumulators."""
    from netmcl.engines.cpu.engine import CpuEngine

    params = MclParams.build(inflation=2.0)
    usual = _iterands(gavin, CpuEngine(threads=2, lane_sharing=0.0, wide_runs=wide_runs), params, 3)
    monkeypatch.setattr(CpuEngine, "_column_estimates", lambda self, flops, p: np.ones(self.n))
    engine = CpuEngine(threads=2, lane_sharing=0.0, wide_runs=wide_runs)
    grown = _iterands(gavin, engine, params, 3)
    assert engine.result().nnz > 2 * engine.n  # every chunk's output outgrew its room
    assert all(_same(a, b) for a, b in zip(usual, grown))


@pytest.mark.parametrize("size", [5, 511, 512, 513, 3000])
def test_kth_largest_by_quickselect_or_radix_select(size):
    """Pruning's k-th largest (with multiplicity, among the entries below a limit): quickselect below
    RADIX_BELOW entries, radix select on the float bits above; negative values, signed zeros and ties too."""
    from netmcl.engines.cpu._constants import RADIX_BELOW, RADIX_BUCKETS
    from netmcl.engines.cpu._kernels import _kth_largest

    assert RADIX_BELOW == 512
    rng = np.random.default_rng(size)
    hist = np.empty(RADIX_BUCKETS, dtype=np.int32)
    for values in (rng.exponential(1e-3, size), rng.integers(1, 30, size) * 1e-4, rng.normal(0, 1, size),
                   np.where(rng.random(size) < 0.5, 0.0, -0.0) + rng.integers(0, 3, size),
                   rng.exponential(1, size) * 10.0 ** rng.integers(-30, 30, size)):
        values = values.astype(np.float32)
        for limit in (np.inf, float(np.quantile(values, 0.8))):
            below = np.sort(values[values < limit])
            for k in {k for k in (1, 2, below.size // 3 + 1, below.size) if 1 <= k <= below.size}:
                got = _kth_largest(values, size, limit, k, np.empty(size, dtype=np.float32), hist)
                assert got == below[below.size - k]


def test_sort_by_key_orders_every_kind_of_input():
    """The kernels' own sort (numba's needs its runtime): keys in order, each value still with its key,
    the rest of the arrays untouched; heapsort, its fallback, alike."""
    from netmcl.engines.cpu._jit import SORT_STACK, _heapsort, sort_by_key

    rng = np.random.default_rng(7)
    stack = np.empty(SORT_STACK, dtype=np.int64)
    for size in (0, 1, 2, 3, 15, 16, 17, 40, 1000, 50_000):
        for keys in (rng.integers(0, 10**6, size), rng.integers(0, 4, size), np.arange(size), np.arange(size)[::-1],
                     np.r_[np.arange(size // 2), np.arange(size - size // 2)[::-1]]):  # the last: an organ pipe
            padded = np.r_[[-5, -6], keys, [-7]].astype(np.int32)
            values = padded * np.float32(0.5)
            expected = np.r_[[-5, -6], np.sort(keys), [-7]]
            sort_by_key(padded, values, 2, size + 2, stack)
            assert np.array_equal(padded, expected) and np.array_equal(values, padded * np.float32(0.5))
            alone = np.r_[[-5, -6], keys, [-7]].astype(np.int32)
            _heapsort(alone, alone[:0], 2, size + 2)
            assert np.array_equal(alone, expected)


_HEAP_SCRIPT = """
import sys
import numpy as np
from netmcl.engines.cpu.engine import map_large_blocks

if sys.argv[1] == "mapped":
    assert map_large_blocks()
np.ones(2**21)  # a 16 MiB block, mapped and unmapped: glibc raises its threshold to 16 MiB
blocks = [np.ones(2**20) for _ in range(12)]  # 8 MiB blocks
del blocks[:-1]
print(next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmRSS")))
"""


@pytest.mark.skipif(
    not hasattr(os, "confstr") or not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"),
    reason="glibc's allocator only",
)
def test_map_large_blocks_returns_freed_arrays_to_the_system():
    # glibc's own defaults: a MALLOC_* tunable in the environment (Dask's distributed sets
    # MALLOC_TRIM_THRESHOLD_ when imported) fixes the thresholds and hides the difference
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MALLOC_", "GLIBC_TUNABLES"))}
    rss = {
        mode: int(subprocess.run([sys.executable, "-c", _HEAP_SCRIPT, mode], capture_output=True, text=True,
                                 check=True, env=env).stdout)
        for mode in ("default", "mapped")
    }
    assert rss["default"] - rss["mapped"] > 60 * 1024  # KiB: the eleven freed 8 MiB blocks


_ARENA_SCRIPT = """
import ctypes, os, sys, threading
import numpy as np
from netmcl.engines.cpu.engine import one_arena

if sys.argv[1] == "one":
    assert one_arena()
kept = []
def allocate():
    kept.extend(np.ones(100) for _ in range(1000))  # small blocks: from the thread's arena
threads = [threading.Thread(target=allocate) for _ in range(3)]
for t in threads:
    t.start()
for t in threads:
    t.join()
os.dup2(1, 2)  # malloc_stats writes to standard error
ctypes.CDLL(None).malloc_stats()
"""


@pytest.mark.skipif(
    not hasattr(os, "confstr") or not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"),
    reason="glibc's allocator only",
)
def test_one_arena_keeps_every_thread_in_the_main_arena():
    arenas = {
        mode: subprocess.run([sys.executable, "-c", _ARENA_SCRIPT, mode], capture_output=True, text=True,
                             check=True).stdout.count("Arena ")
        for mode in ("default", "one")
    }
    assert arenas["one"] == 1 and arenas["default"] > 1, arenas


def test_weak_components_match_scipy_on_random_patterns():
    from scipy.sparse.csgraph import connected_components

    from netmcl.components import weak_components

    rng = np.random.default_rng(7)
    for _ in range(200):
        n, m = int(rng.integers(1, 60)), int(rng.integers(0, 80))
        a = sp.csc_array((np.ones(m), (rng.integers(0, n, m), rng.integers(0, n, m))), shape=(n, n))
        for matrix in (a, sp.csr_array(a)):
            count, labels = connected_components(matrix, directed=True, connection="weak")
            got_count, got_labels = weak_components(matrix)
            assert got_count == count and np.array_equal(got_labels, labels)


def test_released_input_gives_the_same_clustering(gavin):
    from netmcl.mcl import cluster_graph

    graph = SparseGraph(gavin.csc.copy(), labels=gavin.labels)
    kept = cluster_graph(gavin, MclParams(), get_engine("cpu"))
    released = cluster_graph(graph, MclParams(), get_engine("cpu"), release_input=True)
    assert graph.csc is None and graph.n == gavin.n and graph.labels == gavin.labels
    assert list(released) == list(kept) and released.chaos == kept.chaos
