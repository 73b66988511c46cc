"""netmcl gives exactly mcl 22-282's answers: clusters, their order, labels, chaos, iterations.

The expected answers are the golden files of ``tests/golden/`` written by
``tests/golden/make_golden.py`` from the reference ``mcl`` binary (see that
script for the families of cases).  They are always checked.  Where ``mcl`` is
on PATH, the live differential tests also run it on freshly generated graphs
and compare on the spot.

Every test that compares clusters takes the ``engine_name`` fixture
(``conftest.py``): it runs once for every engine available here.  Engines too
slow for the larger graphs run those up to ``MOST_NODES`` nodes and skip the
others, naming the limit.
"""

import importlib.util
import os
import random
import shutil
from pathlib import Path

import pytest

import netmcl

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
_spec = importlib.util.spec_from_file_location("netmcl_make_golden", GOLDEN_DIR / "make_golden.py")
mg = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mg)

GOLDEN = {family: mg.load(family) for family in mg.FAMILIES}


#: engines too slow for the larger test graphs, and the most nodes of a graph they are run on here; the larger
#: graphs are checked on the other engines (the reference engine takes 0.1-0.4 s a run at 150-200 nodes)
MOST_NODES = {"reference": 150}


def fits(engine_name, graph):
    """Whether `engine_name` is run on `graph` here (``MOST_NODES``)."""
    return graph.n <= MOST_NODES.get(engine_name, graph.n)


def skip_unless_fits(engine_name, graph):
    """Skip the test where `graph` is too large for `engine_name` (``MOST_NODES``)."""
    if not fits(engine_name, graph):
        pytest.skip(f"the {engine_name!r} engine runs graphs of at most {MOST_NODES[engine_name]} nodes here; "
                    "the other engines check the larger ones")


def _cases(family, keep=lambda case: True):
    return [pytest.param(c, id=c["id"]) for c in GOLDEN[family]["cases"] if keep(c)]


# ---------------------------------------------------------------------------
# running netmcl on golden inputs (memoised for the session)


@pytest.fixture(scope="session")
def golden_graph(tmp_path_factory):
    """``golden_graph(family, name)``: the SparseGraph of a golden input, read as mcl reads it."""
    tmp = tmp_path_factory.mktemp("golden_inputs")
    cache = {}

    def load(family, name):
        if (family, name) not in cache:
            spec = GOLDEN[family]["inputs"][name]
            if "file" in spec:
                cache[family, name] = netmcl.read_abc(mg.DATA / spec["file"])
            elif "mci" in spec:
                path = tmp / f"{family}-{name}.mci"
                path.write_text(spec["mci"])
                cache[family, name] = netmcl.read_mci(path)
            else:
                path = tmp / f"{family}-{name}.abc"
                path.write_text(spec["abc"])
                cache[family, name] = netmcl.read_abc(path)
        return cache[family, name]

    return load


@pytest.fixture(scope="session")
def golden_result(golden_graph):
    """``golden_result(family, case, engine_name)``: netmcl's clustering of a golden case."""
    cache = {}

    def run(family, case, engine_name):
        key = (family, case["id"], engine_name)
        if key not in cache:
            graph = golden_graph(family, case["input"])
            skip_unless_fits(engine_name, graph)
            cache[key] = netmcl.mcl(graph, engine=engine_name, attribute=None, **mg.mcl_kwargs(case["args"]))
        return cache[key]

    return run


def found(clustering, mode="abc"):
    """What netmcl answered, in the form the golden files record."""
    if mode == "native":
        clusters = [c.tolist() for c in clustering.index_clusters]
    else:
        clusters = [list(c) for c in clustering]
    return {
        "clusters": clusters,
        "chaos": [f"{c:.2f}" for c in clustering.chaos],
        "iterations": clustering.n_iterations,
    }


def assert_same(clustering, expected, what):
    """Clusters (order included), chaos trace and iteration count all equal mcl's."""
    got = found(clustering, expected.get("mode", "abc"))
    if got["clusters"] != expected["clusters"]:
        first = next(
            (k for k, (a, b) in enumerate(zip(got["clusters"], expected["clusters"])) if a != b),
            min(len(got["clusters"]), len(expected["clusters"])),
        )
        pytest.fail(
            f"{what}: clusters differ from mcl's ({len(got['clusters'])} vs {len(expected['clusters'])} clusters); "
            f"first difference at cluster {first}: netmcl {got['clusters'][first:first + 1]} "
            f"mcl {expected['clusters'][first:first + 1]}"
        )
    assert got["chaos"] == expected["chaos"], f"{what}: chaos trace differs from mcl's"
    assert got["iterations"] == expected["iterations"], f"{what}: iteration count differs from mcl's"


def check_golden(family, case, engine_name, golden_result):
    clustering = golden_result(family, case, engine_name)
    what = f"{family}/{case['id']} ({' '.join(case['args'])}, engine {engine_name})"
    if family == "minimal":
        what += f": {mg.MINIMAL[case['id']][2]}"
    assert_same(clustering, case, what)
    return clustering


# ---------------------------------------------------------------------------
# golden families


def test_cathat_man_page(engine_name, golden_result):
    case = GOLDEN["cathat"]["cases"][0]
    # The golden file holds the man page's answer ...
    assert case["clusters"] == mg.CATHAT_CLUSTERS
    assert case["chaos"] == mg.CATHAT_CHAOS
    # ... and netmcl gives it.
    clustering = check_golden("cathat", case, engine_name, golden_result)
    assert clustering.clusters == [["cat", "hat", "bat"], ["bit", "fit", "hit"]]
    assert clustering.converged


@pytest.mark.parametrize("case", _cases("lines"))
def test_line_graphs(case, engine_name, golden_result):
    check_golden("lines", case, engine_name, golden_result)


def test_line_graphs_include_the_overlap_cases():
    """mcl-spec d.7: the odd lines n = 5..15 have overlap (at some inflation)."""
    with_overlap = {int(c["input"][4:]) for c in GOLDEN["lines"]["cases"] if c["overlap"]}
    assert {5, 7, 9, 11, 13, 15} <= with_overlap
    keep_differs = [
        c["id"] for c in GOLDEN["lines"]["cases"]
        if c["args"][-1] == "keep" and sum(map(len, c["clusters"])) > int(c["input"][4:])
    ]
    assert keep_differs, "no line graph keeps overlap: the overlap modes are not exercised"


@pytest.mark.parametrize("case", _cases("random"))
def test_random_graphs(case, engine_name, golden_result):
    check_golden("random", case, engine_name, golden_result)


def test_random_graphs_exercise_every_pruning_branch(engine_name, golden_graph, golden_result):
    """The random family reaches every branch of mcl's pruning (mcl-spec d.4), also on the
    graphs an engine runs here."""
    totals = dict.fromkeys(["recovered", "selected", "recovered_after_select", "emergency", "dense_path"], 0)
    for case in GOLDEN["random"]["cases"]:
        if not fits(engine_name, golden_graph("random", case["input"])):
            continue
        for stats in golden_result("random", case, engine_name).stats:
            for name in totals:
                totals[name] += getattr(stats, name)
    assert all(totals.values()), f"a pruning branch is never taken: {totals}"
    assert any(c["bumped"] for c in GOLDEN["random"]["cases"])


@pytest.mark.parametrize("case", _cases("abc", lambda c: c["input"] not in mg.ABC_REFUSED))
def test_label_file_edge_cases(case, engine_name, golden_result):
    check_golden("abc", case, engine_name, golden_result)


@pytest.mark.parametrize("case", _cases("abc", lambda c: c["input"] in mg.ABC_REFUSED))
def test_label_file_refused_weights(case, engine_name, tmp_path):
    """Where mcl silently reads a weight as 1.0, netmcl names the file, line and value instead;
    the file with those weights written as 1 gives mcl's clusters."""
    refused = mg.ABC_REFUSED[case["input"]]
    path = tmp_path / "refused.abc"
    path.write_text(GOLDEN["abc"]["inputs"][case["input"]]["abc"])
    with pytest.raises(netmcl.InputFileError) as error:
        netmcl.read_abc(path)
    assert str(error.value).startswith(f"{path}, line {refused['line']}: ")
    assert str(error.value).endswith(f"Got {refused['value']!r}.")
    path.write_text(refused["as_mcl_reads_it"])
    graph = netmcl.read_abc(path)
    skip_unless_fits(engine_name, graph)
    clustering = netmcl.mcl(graph, engine=engine_name, attribute=None, **mg.mcl_kwargs(case["args"]))
    assert_same(clustering, case, f"abc/{case['id']} with the weights mcl substitutes")


@pytest.mark.parametrize("case", _cases("flipflop"))
def test_flip_flop_inflation_bump(case, engine_name, golden_result):
    """mcl multiplies the inflation by 1.001 from iteration 40 on; these graphs need it."""
    assert case["bumped"] and case["iterations"] > 40
    clustering = check_golden("flipflop", case, engine_name, golden_result)
    assert clustering.converged


@pytest.mark.parametrize("case", _cases("preprocessing"))
def test_preprocessing_flags(case, engine_name, golden_result):
    check_golden("preprocessing", case, engine_name, golden_result)


def test_thread_count_does_not_change_results(engine_name, golden_graph, golden_result):
    """mcl -te 1 and -te 2 agree, and so do netmcl's threads=1 and threads=2."""
    cases = {(c["input"], tuple(c["args"])): c for c in GOLDEN["preprocessing"]["cases"]}
    pairs = [(c, cases[c["input"], ("-te", "2")]) for key, c in cases.items() if key[1] == ("-te", "1")]
    assert len(pairs) >= 3
    for one, two in pairs:
        assert (one["clusters"], one["chaos"]) == (two["clusters"], two["chaos"])
        if not fits(engine_name, golden_graph("preprocessing", one["input"])):
            continue
        a = golden_result("preprocessing", one, engine_name)
        b = golden_result("preprocessing", two, engine_name)
        assert found(a) == found(b)


@pytest.mark.parametrize("case", _cases("native"))
def test_native_matrix_input(case, engine_name, golden_result):
    check_golden("native", case, engine_name, golden_result)


def test_native_input_is_not_symmetrised(golden_graph):
    """A native matrix is read as is; the same arcs in a label file are mirrored (mcl-spec d.1)."""
    cases = GOLDEN["native"]["cases"]
    for name in {c["input"][: -len("_mci")] for c in cases if c["mode"] == "native"}:
        native = golden_graph("native", name + "_mci")
        mirrored = golden_graph("native", name + "_abc")
        assert not native.is_symmetric()
        assert mirrored.is_symmetric()
        assert native.n == mirrored.n
    by_id = {c["id"]: c for c in cases}
    differ = [
        i for i in by_id
        if "-native-I" in i and by_id[i]["chaos"] != by_id[i.replace("-native-", "-abc-")]["chaos"]
    ]
    assert differ, "native and --abc runs never differ: the native vectors test nothing"


@pytest.mark.parametrize("case", _cases("networks"))
def test_real_networks(case, engine_name, golden_result):
    check_golden("networks", case, engine_name, golden_result)


@pytest.mark.parametrize("case", _cases("minimal"))
def test_minimal_reproductions(case, engine_name, golden_result):
    """The smallest inputs found for single subtle behaviours of mcl (make_golden.MINIMAL)."""
    check_golden("minimal", case, engine_name, golden_result)


def _columns(matrix):
    """{column: {row: value rounded as mcl's dump prints it (7 significant digits)}}, as text keys."""
    m = matrix.tocsc()
    return {
        str(j): {str(i): float(f"{v:.7g}") for i, v in zip(m.indices[a:b].tolist(), m.data[a:b].tolist())}
        for j, (a, b) in enumerate(zip(m.indptr[:-1].tolist(), m.indptr[1:].tolist()))
        if b > a
    }




@pytest.mark.parametrize(
    "case",
    [pytest.param(c, id=c["id"]) for c in GOLDEN["iterands"]["cases"]],
)
def test_iterands_match_mcl_dumps(case, engine_name, golden_graph):
    """Every iterand, start matrix included, equals mcl's ``-dump ite`` to the 7 digits it prints,
    with the same entries (explicit float32 zeros included): the bump, -pi, -c, I = 1.4, P = 0."""
    from netmcl.mcl import start_matrix

    graph = golden_graph("iterands", case["input"])
    skip_unless_fits(engine_name, graph)
    kwargs = mg.mcl_kwargs(case["args"])
    mine = [_columns(start_matrix(graph, netmcl.MclParams.build(**kwargs)))]
    mine += [_columns(state.matrix) for state in netmcl.mcl_iterates(graph, engine=engine_name, **kwargs)]
    assert len(mine) == len(case["iterands"])
    for k, (got, dumped) in enumerate(zip(mine, case["iterands"])):
        expected = {j: {i: float(v) for i, v in col.items()} for j, col in dumped.items() if col}
        if got != expected:
            j = next(j for j in sorted(set(got) | set(expected), key=int) if got.get(j) != expected.get(j))
            pytest.fail(
                f"iterands/{case['id']} ({' '.join(case['args'])}, engine {engine_name}): iterand {k} differs "
                f"from mcl's first in column {j}: netmcl {got.get(j)} mcl {expected.get(j)}"
            )


def test_golden_files_cover_the_conformance_vectors():
    """The golden set is what mcl-spec d.7 asks for (and no family went missing)."""
    counts = {family: len(GOLDEN[family]["cases"]) for family in mg.FAMILIES}
    assert counts["lines"] >= 14 * 5 * 3
    assert counts["random"] >= 150
    assert len(GOLDEN["networks"]["inputs"]) >= 6
    assert {c["args"][1] for c in GOLDEN["networks"]["cases"]} == {"1.4", "2", "4", "6"}
    for family in mg.FAMILIES:
        assert GOLDEN[family]["mcl"] == "mcl 22-282", family
    every_case = [c for family in mg.FAMILIES for c in GOLDEN[family]["cases"]]
    # mcl's corner cases are in: garbage nodes, a slightly negative chaos, the bump.
    assert any(c["garbage"] for c in every_case)
    assert any("-0.00" in c["chaos"] for c in every_case)
    assert sum(c["bumped"] for c in every_case) >= 10


# ---------------------------------------------------------------------------
# live differential tests: run mcl now


def _live_seeds():
    """Seeds of the fresh random graphs; NETMCL_LIVE_SEEDS="1,2,3" replaces them."""
    env = os.environ.get("NETMCL_LIVE_SEEDS")
    return [int(s) for s in env.split(",")] if env else list(mg.LIVE_SEEDS)


@pytest.mark.parametrize("seed", _live_seeds())
def test_live_fresh_random_graphs(seed, engine_name, mcl_binary, tmp_path):
    (name, *spec), = mg.random_graph_specs([seed])
    path = tmp_path / f"{name}.abc"
    path.write_text(mg.random_graph(*spec))
    graph = netmcl.read_abc(path)
    skip_unless_fits(engine_name, graph)
    for args in mg.random_runs(seed):
        expected = mg.run_mcl(path, args)
        clustering = netmcl.mcl(graph, engine=engine_name, attribute=None, **mg.mcl_kwargs(args))
        assert_same(clustering, expected, f"fresh graph {name} ({' '.join(args)}, engine {engine_name})")


def quirky_label_file(seed):
    """A label file that uses every liberty of mcl's --abc reader, drawn from `seed`."""
    r = random.Random(seed)
    names = [f"p{i}" for i in range(r.randint(8, 30))] + ["gene a", "gene b", "x y z"]
    lines = []
    for _ in range(r.randint(15, 60)):
        a, b = r.choice(names), r.choice(names)
        w = r.choice(["", "0", "1", "0.5", "2.5e-1", ".75", "3", "1e-2", "1E+1", "7."])
        sep = "\t" if " " in a + b else r.choice([" ", "\t", "  ", " \t"])
        lines.append(sep.join([a, b] + ([w] if w else [])))
        if r.random() < 0.1:
            lines.append(r.choice(["# comment", "", "   # indented", "\t#\ttab comment"]))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(1, 7))
def test_live_quirky_label_files(seed, engine_name, mcl_binary, tmp_path):
    path = tmp_path / f"quirky{seed}.abc"
    path.write_text(quirky_label_file(seed))
    graph = netmcl.read_abc(path)
    skip_unless_fits(engine_name, graph)
    for args in (["-I", "2"], ["-I", "1.5", "-overlap", "keep"], ["-I", "3", "--discard-loops=n"]):
        expected = mg.run_mcl(path, args)
        clustering = netmcl.mcl(graph, engine=engine_name, attribute=None, **mg.mcl_kwargs(args))
        assert_same(clustering, expected, f"{path.name} ({' '.join(args)}, engine {engine_name})")


@pytest.mark.parametrize("seed", range(1, 4))
def test_live_fresh_native_matrices(seed, engine_name, mcl_binary, tmp_path):
    if shutil.which("mcxload") is None:
        pytest.skip("mcxload not on PATH: live native-matrix tests skipped (golden files still checked)")
    r = random.Random(7000 + seed)
    n = r.randint(15, 80)
    arcs = [(f"d{r.randrange(n)}", f"d{r.randrange(n)}", f"{r.uniform(0.05, 3):.3f}") for _ in range(4 * n)]
    path = tmp_path / f"directed{seed}.mci"
    path.write_text(mg.mcxload(mg.abc_text(arcs)))
    graph = netmcl.read_mci(path)
    skip_unless_fits(engine_name, graph)
    for args in (["-I", "2"], ["-I", "1.4", "-P", "30", "-S", "8", "-R", "12"], ["--discard-loops=n"]):
        expected = dict(mg.run_mcl(path, args, mode="native"), mode="native")
        clustering = netmcl.mcl(graph, engine=engine_name, attribute=None, **mg.mcl_kwargs(args))
        assert_same(clustering, expected, f"{path.name} ({' '.join(args)}, engine {engine_name})")


@pytest.mark.parametrize("family", [f for f in mg.FAMILIES if f != "networks"])
def test_live_golden_files_are_current(family, mcl_binary, tmp_path):
    """The installed mcl still writes the golden answers (every 5th case of a family)."""
    inputs = GOLDEN[family]["inputs"]
    for case in GOLDEN[family]["cases"][::5]:
        spec = inputs[case["input"]]
        path = tmp_path / (case["input"] + (".mci" if "mci" in spec else ".abc"))
        path.write_text(spec.get("mci", spec.get("abc")))
        expected = mg.run_mcl(path, case["args"], mode=case["mode"])
        assert {k: case[k] for k in expected} == expected, f"{family}/{case['id']}: regenerate the golden files"
