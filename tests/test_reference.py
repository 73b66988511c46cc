"""The reference engine (``engine="reference"``) computes what mcl computes, bit for bit.

* Iteration by iteration, its iterands (indptr, rows and value bytes) and
  statistics equal the CPU engine's, which equals mcl's ``-dump ite`` and
  clusters on thousands of cases (``test_fidelity.py``), on every small test
  graph: the golden inputs, the files of ``tests/data/io``, a real
  subnetwork, random graphs under aggressive pruning, a component of a
  bigger graph (``n_rule > n``).  The set reaches both product paths and
  every pruning branch (``test_every_branch_is_reached``), so the comparison
  cannot pass for want of work.
* Its whole-matrix :func:`normalize_columns` and :func:`inflate_columns`
  equal the compiled kernels' on matrices of wildly varying magnitudes.
* Its clusters equal live mcl's on fresh random graphs; the golden files'
  clusters are checked for every engine, this one included, by
  ``test_fidelity.py`` (its tests take the ``engine_name`` fixture).
"""

import gzip
import importlib.util
import math
import random
from collections import deque
from pathlib import Path

import numpy as np
import pytest

import netmcl
from netmcl.engines.cpu._compiled import kernels
from netmcl.components import GroupedEngine, component_groups
from netmcl.engines import IterationStats, Pruning, get_engine
from netmcl import sparse as S
from netmcl.engines import reference as R
from netmcl.graph import SparseGraph
from netmcl.mcl import CHAOS_LIMIT, inflation_at, start_matrix
from netmcl.params import MclParams
from netmcl.sparse import CscMatrix

# test_fidelity's golden files and helpers (the tests are imported by path, not as a package)
_spec = importlib.util.spec_from_file_location("netmcl_test_fidelity", Path(__file__).with_name("test_fidelity.py"))
fidelity = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fidelity)
GOLDEN, assert_same, mg = fidelity.GOLDEN, fidelity.assert_same, fidelity.mg

#: the generic statistics every engine fills (``IterationStats`` less ``seconds`` and ``extra``)
FIELDS = ("chaos", "expanded", "kept", "recovered", "selected", "recovered_after_select", "emergency",
          "dense_path", "emptied", "min_mass")
#: an iteration cap for the comparisons (past mcl's inflation bump at 40)
MAX_ITERATIONS = 80


# ---------------------------------------------------------------------------
# the cases: (graph, mcl arguments, n_rule or None)


def _graph_of(spec, tmp):
    """The graph of a golden input spec, read as mcl reads it."""
    if "file" in spec:
        return netmcl.read_abc(mg.DATA / spec["file"])
    path = tmp / ("input.mci" if "mci" in spec else "input.abc")
    path.write_text(spec.get("mci", spec.get("abc", "")))
    return netmcl.read_mci(path) if "mci" in spec else netmcl.read_abc(path)


def _abc_nodes(text):
    """How many nodes a label file's text names."""
    return len({label for line in text.splitlines() for label in line.split("\t")[:2]})


def _golden_cases(family, every=1, most_nodes=None):
    """Specs of every `every`-th case of a golden family, on inputs of at most
    `most_nodes` nodes (label files; mcl's refused ones left out)."""
    out = []
    for case in GOLDEN[family]["cases"][::every]:
        spec = GOLDEN[family]["inputs"][case["input"]]
        if case["input"] in mg.ABC_REFUSED or "file" in spec:
            continue
        if most_nodes is not None and _abc_nodes(spec["abc"]) > most_nodes:
            continue
        out.append(pytest.param(("golden", family, case), id=f"{family}-{case['id']}"))
    return out


def _aggressive_args(r):
    """mcl pruning arguments drawn from `r`: a scheme, or P, S, R and pct of their own."""
    if r.random() < 0.3:
        return ["-scheme", str(r.randint(1, 7))]
    return ["-P", str(r.randint(10, 50)), "-S", str(r.randint(2, 5)), "-R", str(r.randint(0, 8)),
            "-pct", str(r.randint(0, 99))]


def _random_cases():
    """Random graphs of 20-60 nodes under drawn inflations and aggressive pruning."""
    out = []
    for seed in range(1, 13):
        r = random.Random(5000 + seed)
        n = r.randint(20, 60)
        kind = r.choice(["er", "planted", "hubs"])
        args = ["-I", r.choice(["1.4", "2", "3", "5"])] + _aggressive_args(r)
        out.append(pytest.param(("random", seed, kind, n, args), id=f"random{seed}-{kind}-n{n}-{'_'.join(args)}"))
    return out


#: the files of tests/data/io and mcl arguments (stars.mci has 1,200 nodes, mostly isolated: defaults only)
AGGRESSIVE = ["-I", "1.4", "-P", "20", "-S", "3", "-R", "5", "-pct", "60"]
IO_RUNS = [
    ("edge.abc", []), ("edge.abc", AGGRESSIVE), ("random40.abc", []), ("random40.abc", AGGRESSIVE),
    ("random40.abc", ["-P", "4", "-S", "0", "-R", "0"]), ("domains.mci", []), ("domains.mci", AGGRESSIVE),
    ("random40.mci", []), ("random40.mci", AGGRESSIVE), ("stars.mci", []),
]

CASES = (
    _golden_cases("cathat")
    + _golden_cases("lines", every=9)
    + _golden_cases("flipflop")
    + _golden_cases("minimal")
    + _golden_cases("iterands")
    + _golden_cases("abc", every=2)
    + _golden_cases("native", every=4)
    + _golden_cases("random", every=4, most_nodes=60)
    + [pytest.param(("io", name, args), id=f"io-{name}-{'_'.join(args) or 'defaults'}")
       for name, args in IO_RUNS]
    + _random_cases()
    + [pytest.param(("network", args), id=f"collins-subnetwork-{'_'.join(args) or 'defaults'}")
       for args in ([], ["-I", "1.4"], ["-I", "3", "-P", "15", "-S", "4", "-R", "6", "-pct", "85"],
                    ["-I", "2", "-P", "6", "-S", "0", "-R", "0"])]
    + [pytest.param(("complete", 40, ["-I", "30", "-R", "0"]), id="complete40-inflation-empties-columns")]
    + [pytest.param(("component", 12, args), id=f"component-n_rule-{'_'.join(args) or 'defaults'}")
       for args in ([], ["-I", "1.4", "-P", "10", "-S", "3", "-R", "4"])]
)


def _subnetwork(path, size):
    """The `size` nodes of the network in `path` first reached breadth-first from its
    busiest node, and the edges among them: a label file's text."""
    edges = []
    with gzip.open(path, "rt") as f:
        for line in f:
            a, b, *w = line.split()
            edges.append((a, b, w[0] if w else "1"))
    neighbours = {}
    for a, b, _ in edges:
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    start = max(sorted(neighbours), key=lambda v: len(neighbours[v]))
    seen, queue = {start}, deque([start])
    while queue and len(seen) < size:
        for v in sorted(neighbours[queue.popleft()]):
            if len(seen) < size and v not in seen:
                seen.add(v)
                queue.append(v)
    return mg.abc_text([e for e in edges if e[0] in seen and e[1] in seen])


def _case(spec, tmp):
    """(graph, mcl arguments, n_rule) of a case spec."""
    kind, *rest = spec
    if kind == "golden":
        family, case = rest
        return _graph_of(GOLDEN[family]["inputs"][case["input"]], tmp), case["args"], None
    if kind == "io":
        name, args = rest
        path = mg.DATA / "io" / name
        return (netmcl.read_mci(path) if name.endswith(".mci") else netmcl.read_abc(path)), args, None
    if kind == "random":
        seed, graph_kind, n, args = rest
        path = tmp / "random.abc"
        path.write_text(mg.abc_text(mg.random_edges(random.Random(seed), graph_kind, n, 6, "wide")))
        return netmcl.read_abc(path), args, None
    if kind == "network":
        (args,) = rest
        path = tmp / "collins.abc"
        path.write_text(_subnetwork(mg.DATA / "networks" / "clusterone_collins2007.txt.gz", 50))
        return netmcl.read_abc(path), args, None
    if kind == "complete":
        n, args = rest
        rows, cols = np.nonzero(~np.eye(n, dtype=bool))
        return SparseGraph.from_edges(rows, cols, np.ones(rows.size)), args, None
    if kind == "component":
        # a 12-node ring with chords, clustered as one component of a graph of 400 nodes: at n_rule = 400
        # columns reading fewer than 40 entries take the sparse path, where at n_rule = 12 all are dense
        n, args = rest
        ring = [(i, (i + 1) % n) for i in range(n)] + [(i, (i + 5) % n) for i in range(0, n, 3)]
        a, b = zip(*ring)
        return SparseGraph.from_edges(a, b, np.linspace(0.2, 1.0, len(ring))), args, 400
    raise ValueError(kind)


# ---------------------------------------------------------------------------
# running both engines side by side


def _stats(stats):
    return {name: getattr(stats, name) for name in FIELDS}


def _assert_same_iterand(ref, cpu, what):
    for name in ("indptr", "indices", "data"):
        a, b = getattr(ref, name), getattr(cpu, name)
        assert a.dtype == b.dtype, f"{what}: {name} is {a.dtype} in the reference engine, {b.dtype} in the CPU engine"
        if a.tobytes() != b.tobytes():
            if name == "data":
                at = int(np.flatnonzero(a.view(np.uint32) != b.view(np.uint32))[0])
                col = int(np.searchsorted(ref.indptr, at, side="right") - 1)
                pytest.fail(f"{what}: value {at} (column {col}, row {ref.indices[at]}) is {a[at]!r} in the "
                            f"reference engine, {b[at]!r} in the CPU engine")
            pytest.fail(f"{what}: the {name} differ")


def run_side_by_side(graph, args, n_rule=None, *, split_inflation=False):
    """Iterate the reference and CPU engines from the same start matrix until
    mcl would stop, asserting after every iteration that iterands and
    statistics are identical; return the reference's statistics.

    `split_inflation`: the reference iterates with ``inflation=None`` and
    then ``inflate(I)``, against the CPU engine's ``iterate(I)``.
    """
    params = MclParams.build(**{k: v for k, v in mg.mcl_kwargs(args).items() if k in _PARAMS})
    start = CscMatrix.of(start_matrix(graph, params))
    n_rule = graph.n if n_rule is None else n_rule
    ref, cpu = get_engine("reference"), get_engine("cpu", threads=2)
    ref.load(start.copy(), n_rule=n_rule)
    cpu.load(start.copy(), n_rule=n_rule)
    trace = []
    for it in range(1, MAX_ITERATIONS + 1):
        inflation = inflation_at(params, it)
        if split_inflation:
            got = ref.iterate(None, params.pruning())
            got.emptied = ref.inflate(inflation)
            got.kept = ref.result().nnz
        else:
            got = ref.iterate(inflation, params.pruning())
        want = cpu.iterate(inflation, params.pruning())
        what = f"{' '.join(args) or 'defaults'}, n_rule {n_rule}, iteration {it}"
        _assert_same_iterand(ref.result(), cpu.result(), what)
        assert _stats(got) == _stats(want), f"{what}: statistics differ"
        trace.append(got)
        if got.chaos < CHAOS_LIMIT:
            break
    return trace


#: the keywords of MclParams.build (mcl_kwargs also gives threads)
_PARAMS = {"inflation", "scheme", "resource", "pruning_number", "pruning_threshold", "select", "recover",
           "recover_pct", "preinflation", "loop_gain", "discard_loops", "overlap", "sort"}


@pytest.fixture(scope="module")
def side_by_side(tmp_path_factory):
    """``side_by_side(spec)``: the reference's statistics on a case, compared once a session."""
    done = {}

    def run(spec):
        key = repr(spec)
        if key not in done:
            graph, args, n_rule = _case(spec, tmp_path_factory.mktemp("case"))
            done[key] = (graph.n, run_side_by_side(graph, args, n_rule))
        return done[key]

    return run


@pytest.mark.parametrize("spec", CASES)
def test_iterands_equal_the_cpu_engines(spec, side_by_side):
    n, trace = side_by_side(spec)
    assert trace and all(isinstance(s, IterationStats) for s in trace)


def test_every_branch_is_reached(side_by_side):
    """The cases take both product paths and every pruning branch, and empty columns."""
    totals = dict.fromkeys(["recovered", "selected", "recovered_after_select", "emergency", "dense_path",
                            "emptied", "sparse_path"], 0)
    for param in CASES:
        n, trace = side_by_side(param.values[0])
        for stats in trace:
            for name in totals:
                if name != "sparse_path":
                    totals[name] += getattr(stats, name)
            totals["sparse_path"] += n - stats.dense_path
    assert all(totals.values()), f"a path or branch is never taken: {totals}"


def test_split_inflation_equals_one_iteration(tmp_path):
    """``iterate(None)`` then ``inflate(I)`` is ``iterate(I)``, emptied columns included."""
    emptied = 0
    for spec in [("complete", 40, ["-I", "30", "-R", "0"]), ("io", "random40.abc", ["-I", "1.4", "-S", "3"])]:
        trace = run_side_by_side(*_case(spec, tmp_path), split_inflation=True)
        emptied += sum(s.emptied for s in trace)
    assert emptied > 0


def test_component_groups_run_on_spawned_engines():
    """Groups of components, each on an engine spawned from the reference engine and loaded
    with the whole graph's n_rule, give the CPU engine's iterand and statistics."""
    graph = netmcl.read_mci(mg.DATA / "io" / "stars.mci")
    params = MclParams.build(inflation=1.4, pruning_number=20, select=3, recover=5)
    start = start_matrix(graph, params)
    groups = component_groups(start, group_nodes=100)
    assert len(groups) >= 10
    engine = get_engine("reference", threads=3, max_memory="1G")  # options every engine takes, ignored
    assert isinstance(engine.spawn(threads=1, share=2), R.ReferenceEngine)
    grouped = {name: GroupedEngine(engine if name == "reference" else get_engine(name, threads=2), groups,
                                   chaos_limit=CHAOS_LIMIT) for name in ("reference", "cpu")}
    for g in grouped.values():
        g.load(start, n_rule=graph.n)
    for it in range(1, 100):
        ref, cpu = (g.iterate(inflation_at(params, it), params.pruning()) for g in grouped.values())
        assert _stats(ref) == _stats(cpu) and ref.extra["groups"] == len(groups)
        _assert_same_iterand(grouped["reference"].result(), grouped["cpu"].result(), f"iteration {it} of the groups")
        if cpu.chaos < CHAOS_LIMIT:
            break
    assert it > 3


# ---------------------------------------------------------------------------
# the whole-matrix functions of the start matrix


def _wild_matrix(rng, columns, longest):
    """Columns of 0..`longest` entries whose values span 60 orders of magnitude,
    some zero, some columns all zero."""
    lengths = rng.integers(0, longest + 1, columns)
    lengths[:3] = [0, longest, 1]
    indptr = np.zeros(columns + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    data = (10.0 ** rng.uniform(-30, 30, indptr[-1])).astype(np.float32)
    data[rng.random(data.size) < 0.02] = 0.0
    data[indptr[5] : indptr[6]] = 0.0
    return indptr, data


@pytest.mark.parametrize("seed", [1, 2])
def test_normalize_and_inflate_equal_the_kernels(seed):
    rng = np.random.default_rng(seed)
    K = kernels()
    indptr, data = _wild_matrix(rng, 400, 2000)
    mine, theirs = data.copy(), data.copy()
    R.normalize_columns(indptr, mine)
    K.normalize_columns(indptr, theirs)
    assert mine.tobytes() == theirs.tobytes()
    stochastic = mine
    for power in (2.0, 1.4, 3.7, 0.5, 1.001, 12.5):
        for start in (data, stochastic):
            mine, theirs = start.copy(), start.copy()
            emptied = R.inflate_columns(indptr, mine, power)
            expected = np.asarray(K.inflate_columns(indptr, theirs, power), dtype=np.int64)
            assert emptied.tolist() == expected.tolist(), power
            assert mine.tobytes() == theirs.tobytes(), power


def test_sums_add_one_after_the_other():
    """column_sums and sequential_sum add in stored order, where np.sum adds in pairs."""
    rng = np.random.default_rng(3)
    lengths = np.concatenate([rng.integers(0, 40, 300), [S.LONG_COLUMN + 1, 3 * S.LONG_COLUMN, 0]])
    indptr = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    values = rng.uniform(0, 1, indptr[-1]) * 10.0 ** rng.integers(-8, 8, indptr[-1])
    expected = []
    for j in range(lengths.size):
        s = 0.0
        for v in values[indptr[j] : indptr[j + 1]].tolist():
            s += v
        expected.append(s)
    assert R.column_sums(indptr, values).tolist() == expected
    assert [R.sequential_sum(values[a:b]) for a, b in zip(indptr[:-1], indptr[1:])] == expected
    pairwise = [float(np.sum(values[a:b])) for a, b in zip(indptr[:-1], indptr[1:])]
    assert pairwise != expected  # the test would not notice a pairwise sum otherwise


def test_c_pow_rounds_to_float32_as_c_pow():
    rng = np.random.default_rng(4)
    x = (10.0 ** rng.uniform(-40, 10, 200_000)).astype(np.float32)
    for power in (1.4, 0.5, 3.3):
        want = np.array([math.pow(v, power) for v in x.astype(np.float64).tolist()]).astype(np.float32)
        assert R.c_pow(x, power).astype(np.float32).tobytes() == want.tobytes(), power


def test_prune_column_branches():
    """Hand-checked columns: mcl's branch order, ties kept by selection, recovery after selection."""
    rows = np.arange(6)
    v = np.array([0.30, 0.20, 0.20, 0.15, 0.10, 0.05], dtype=np.float32)
    # selection of 2 keeps the ties with the second largest: 3 entries
    c = R.prune_column(9, rows, v, Pruning(cutoff=0.99999 / 20, select=2, recover=0, pct=0.9))
    assert (c.branch, c.rows.tolist()) == ("selected", [0, 1, 2])
    assert c.chaos == float(np.float32((0.30000001192092896 - R.sequential_sum(v.astype(np.float64) ** 2)) * 3))
    # ... then recovery from the cutoff's survivors: the next largest below the selection's bar
    c = R.prune_column(9, rows, v, Pruning(cutoff=0.99999 / 20, select=1, recover=3, pct=0.9))
    assert (c.branch, c.rows.tolist()) == ("recovered_after_select", [0, 1, 2])
    # recovery is checked first, and recovers from the whole column (below the cutoff)
    c = R.prune_column(9, rows, v, Pruning(cutoff=0.25, select=1, recover=4, pct=0.9))
    assert (c.branch, c.rows.tolist()) == ("recovered", [0, 1, 2, 3])
    # nothing survives, no recovery: mcl's emergency loop on the column's own row
    c = R.prune_column(9, rows, v, Pruning(cutoff=0.5, select=0, recover=0, pct=0.9))
    assert (c.branch, c.rows.tolist(), c.values.tolist(), c.mass) == ("emergency", [9], [1.0], 0.0)
    # kept values are rescaled in float64 from the kept mass
    c = R.prune_column(9, rows, v, Pruning(cutoff=0.12, select=0, recover=0, pct=0.9))
    mass = R.sequential_sum(v[:4].astype(np.float64))
    assert c.values.tolist() == (v[:4].astype(np.float64) / mass).astype(np.float32).tolist()


def test_inflation_must_be_positive():
    engine = R.ReferenceEngine()
    engine.load(CscMatrix([0, 1], [0], [1.0], 1))
    with pytest.raises(netmcl.ParameterError, match="inflation"):
        engine.iterate(0.0, Pruning(-1.0, 0, 0, 0.9))


# ---------------------------------------------------------------------------
# against live mcl


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_clusters_equal_live_mcl(seed, mcl_binary, tmp_path):
    r = random.Random(9000 + seed)
    n = r.randint(25, 60)
    path = tmp_path / f"fresh{seed}.abc"
    path.write_text(mg.abc_text(mg.random_edges(r, r.choice(["er", "planted", "hubs"]), n, r.choice([4, 8]),
                                                r.choice(["unif", "exp", "wide"]))))
    graph = netmcl.read_abc(path)
    for args in (["-I", "2"], ["-I", r.choice(["1.4", "3"])] + _aggressive_args(r)):
        expected = mg.run_mcl(path, args)
        clustering = netmcl.mcl(graph, engine="reference", attribute=None, **mg.mcl_kwargs(args))
        assert_same(clustering, expected, f"{path.name} ({' '.join(args)}, reference engine)")


def test_the_cpu_engines_start_matrix_and_components_are_numpys(tmp_path):
    """The loop asks its engine for the start matrix and the components; the CPU engine's compiled
    versions give the bits and labels of the NumPy defaults, with every preprocessing flag."""
    from netmcl.engines import Engine
    from netmcl.sparse import weak_components

    rng = np.random.default_rng(7)
    for n in (1, 30, 300):
        a, b = rng.integers(0, n, 3 * n), rng.integers(0, n, 3 * n)
        graph = netmcl.SparseGraph.from_edges(a, b, rng.random(3 * n) + 0.01, n=n, symmetrize=bool(n % 2))
        for kwargs in ({}, {"discard_loops": False}, {"loop_gain": 2.5, "preinflation": 1.7}):
            params = MclParams.build(**kwargs)
            numpy_form = Engine.start_matrix(Engine(), graph.csc, params)
            compiled = get_engine("cpu").start_matrix(graph.csc, params)
            _assert_same_iterand(compiled, numpy_form, f"start matrix {n} {kwargs}")
        count, labels = get_engine("cpu").components(numpy_form)
        want_count, want_labels = weak_components(numpy_form)
        assert count == want_count and labels.tolist() == want_labels.tolist()
