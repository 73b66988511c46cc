"""mcl's transform language and e-value options give mcl 22-282's weights and clusters exactly.

The expected answers are tests/golden/transforms.json.gz, written by
tests/golden/make_transform_golden.py from ``mcxload -tf`` (the weights of
every transform function, bit for bit), ``mcl -write-graph`` (the graph mcl
reads with ``--abc-neg-log10``, ``--abc-neg-log`` and ``-abc-tf``) and ``mcl``
runs with ``-tf``, ``-abc-tf``, the e-value options and the initial phase
``-l``/``-i`` (clusters, chaos, iterations).  Where ``mcl`` is on PATH the live
tests also compare fresh inputs on the spot.
"""

import importlib.util
import io
import random
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

import netmcl
from netmcl.cli import main
from netmcl.mcl import clusters_at
from netmcl.exceptions import InputFileError, ParameterError
from netmcl.transforms import Transform, parse_transform

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
_spec = importlib.util.spec_from_file_location("netmcl_make_transform_golden", GOLDEN_DIR / "make_transform_golden.py")
tg = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tg)
GOLDEN = tg.load()


def _entries(matrix, labels):
    """{(column label, row label): float32} of a CscMatrix."""
    cols = matrix.columns()
    return {(labels[c], labels[r]): v for c, r, v in zip(cols.tolist(), matrix.indices.tolist(), matrix.data)}


def _expected(pairs):
    return {(c, r): np.float32(v) for c, r, v in pairs}


def _assert_same_weights(got, expected, what):
    assert set(got) == set(expected), f"{what}: entries differ: only netmcl {sorted(set(got) - set(expected))[:3]}, " \
                                      f"only mcl {sorted(set(expected) - set(got))[:3]}"
    differ = [k for k in expected if got[k].tobytes() != expected[k].tobytes()]
    assert not differ, f"{what}: {len(differ)} weights differ, e.g. {differ[0]}: netmcl {got[differ[0]]!r}, " \
                       f"mcl {expected[differ[0]]!r}"


@pytest.mark.parametrize("case", GOLDEN["weights"]["cases"],
                         ids=lambda c: f"{c['input']}-{c['spec'].strip()}-{'mirrored' if c['mirror'] else 'directed'}")
def test_transform_weights_equal_mcxload(case):
    text = GOLDEN["weights"]["inputs"][case["input"]]
    graph = netmcl.read_abc(io.BytesIO(text.encode()), symmetrize=case["mirror"])
    got = _entries(Transform(case["spec"]).matrix(graph.csc, cluster=clusters_at), graph.labels)
    _assert_same_weights(got, _expected(case["pairs"]), f"-tf {case['spec']!r}")


def _stream_options(args):
    neg_log = {"--abc-neg-log10": "log10", "--abc-neg-log": "log"}
    options = {"neg_log": next((neg_log[a] for a in args if a in neg_log), None)}
    if "-abc-tf" in args:
        options["transform"] = args[args.index("-abc-tf") + 1]
    return options


@pytest.mark.parametrize("case", GOLDEN["stream"]["cases"], ids=lambda c: f"{c['input']}{''.join(c['args'])}")
def test_evalue_weights_equal_mcl(case):
    """--abc-neg-log10/--abc-neg-log take the weights as written (1e-300 is not 0 for them), -abc-tf the float32."""
    text = GOLDEN["stream"]["inputs"][case["input"]]
    graph = netmcl.read_abc(io.BytesIO(text.encode()), **_stream_options(case["args"]))
    got = _entries(graph.csc, [f"#{i}" for i in range(graph.n)])
    _assert_same_weights(got, _expected(case["pairs"]), " ".join(case["args"]))


def _keywords(args):
    """netmcl.mcl keywords of mcl's clustering flags in `args` (the stream ones are read_abc's)."""
    kwargs, args = {}, list(args)
    names = {"-tf": ("transform", str), "-I": ("inflation", float), "-l": ("initial_iterations", int),
             "-i": ("initial_inflation", float), "-L": ("max_iterations", int), "-sort": ("sort", str)}
    while args:
        flag = args.pop(0)
        if flag == "--discard-loops=n":
            kwargs["discard_loops"] = False
        elif flag == "--force-connected=y":
            kwargs["force_connected"] = True
        elif flag in names:
            kwargs[names[flag][0]] = names[flag][1](args.pop(0))
        elif flag == "-abc-tf":
            args.pop(0)
        elif flag not in ("--abc-neg-log10", "--abc-neg-log"):
            raise ValueError(flag)
    return kwargs


def _input(name, tmp_path):
    spec = GOLDEN["runs"]["inputs"][name]
    if "file" in spec:
        return tg.mg.DATA / spec["file"]
    path = tmp_path / f"{name}.abc"
    path.write_text(spec["abc"])
    return path


@pytest.mark.parametrize("case", GOLDEN["runs"]["cases"], ids=lambda c: c["id"])
def test_runs_equal_mcl(case, tmp_path):
    """Clusters, chaos and iterations of mcl with -tf, -abc-tf, the e-value options and -l/-i."""
    graph = netmcl.read_abc(_input(case["input"], tmp_path), **_stream_options(case["args"]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", netmcl.ConvergenceWarning)  # -L 3 stops before convergence, as in mcl
        clustering = netmcl.mcl(graph, **_keywords(case["args"]))
    assert [list(c) for c in clustering] == case["clusters"]
    assert [f"{c:.2f}" for c in clustering.chaos] == case["chaos"]
    assert clustering.n_iterations == case["iterations"]


def test_golden_covers_the_initial_phase_and_real_evalues():
    runs = GOLDEN["runs"]["cases"]
    # the initial phase runs all its -l iterations though the chaos is near 0 in it (-l 8 -L 3: 8 + 1),
    assert any(c["args"][:2] == ["-l", "8"] and c["iterations"] == 9 and c["chaos"][5:8] == ["0.00"] * 3 for c in runs)
    # and the x1.001 bumps of the main inflation start after the main phase's first iteration
    assert {c["id"]: c["iterations"] for c in runs if c["input"] == "triangle"} == {
        "triangle-l5i2": 54, "triangle-l45i2": 60, "triangle-l42i3": 43}
    sk = [c for c in runs if c["input"] == "skunavirus"]
    assert len(sk) == 3 and all(len(c["clusters"]) > 90 for c in sk)


@pytest.mark.parametrize("case", [c for c in GOLDEN["runs"]["cases"]
                                  if c["input"] in ("skunavirus", "split5", "split78") or c["id"].endswith("-6")],
                         ids=lambda c: c["id"])
def test_command_line_equals_mcl(case, tmp_path, capsys):
    """The netmcl command with mcl's flags writes mcl's label output, byte for byte, and with
    --force-connected=y mcl's OUT-rags file of the clustering before the split, where it split one."""
    out = tmp_path / "out"
    assert main([str(_input(case["input"], tmp_path)), "--abc", *case["args"], "-o", str(out)]) == 0
    assert out.read_text() == "".join("\t".join(c) + "\n" for c in case["clusters"])
    rags = Path(f"{out}-rags")
    assert (rags.read_text() if rags.exists() else None) == case.get("rags")


def test_golden_covers_split_clusters():
    split = [c for c in GOLDEN["runs"]["cases"] if "--force-connected=y" in c["args"]]
    assert len(split) == 24 and sum(c["rags"] is not None for c in split) >= 12


@pytest.mark.parametrize("args, name", [
    (["-l", "2", "-i", "3"], "out.g.abc.I20l2i30"),
    (["-l", "12", "-i", "1.45", "-pi", "1.5"], "out.g.abc.I20l12i15pi15"),
    (["-l", "2"], "out.g.abc.I20l2i20"),
    (["-i", "3", "-tf", "gq(1)", "--abc-neg-log10"], "out.g.abc.I20"),
])
def test_output_names(args, name, capsys, mcl_binary_or_none):
    """mcl's automatic output name with -l/-i (checked against mcl -az where mcl is on PATH)."""
    assert main(["g.abc", "--abc", *args, "-az"]) == 0
    assert capsys.readouterr().out.strip() == name
    if mcl_binary_or_none:
        got = subprocess.run([mcl_binary_or_none, "g.abc", "--abc", *args, "-az"], capture_output=True, text=True)
        assert got.stdout.strip() == name


@pytest.fixture
def mcl_binary_or_none():
    return shutil.which("mcl")


# ---------------------------------------------------------------------------
# errors


@pytest.mark.parametrize("spec, words", [
    ("gq(0.5);mul(2)", "cannot read ';mul(2)'"),
    ("gq(0.5),,", "cannot read ','"),
    ("GQ(0.5)", "unknown function 'GQ'"),
    ("gq()", "gq() needs an argument"),
    ("gq(abc)", "must be a number. Got 'abc'"),
    ("#knn(2.5)", "whole number"),
    ("rand(0.5)", "does not provide mcl's rand()"),
    ("#tug(2)", "does not provide mcl's #tug()"),
    ("", "cannot read ''"),
])
def test_parse_errors_name_the_text(spec, words):
    with pytest.raises(ParameterError, match=None) as err:
        parse_transform(spec)
    assert words in str(err.value)


def test_mcl_refuses_a_bad_transform_before_reading():
    with pytest.raises(ParameterError, match="unknown function 'cell'"):
        netmcl.mcl([("a", "b", 1.0)], transform="cell(2)")


def test_negative_weights_are_refused_with_the_line(tmp_path, capsys):
    path = tmp_path / "hits.abc"
    path.write_text("a b 1e-5\n# comment\n\nb c 20\n")
    assert main([str(path), "--abc", "--abc-neg-log10", "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "line 4" in err and "20" in err and "gq(0)" in err
    assert not (tmp_path / "out").exists()
    assert main([str(path), "--abc", "--abc-neg-log10", "-abc-tf", "gq(0)", "-o", str(tmp_path / "out")]) == 0
    with pytest.raises(ParameterError, match="gives the weight -0.693147"):
        netmcl.mcl([("a", "b", 0.5), ("b", "c", 2.0)], transform="log()")


def test_graph_functions_are_refused_in_a_stream_transform(tmp_path, capsys):
    path = tmp_path / "g.abc"
    path.write_text("a b 1\n")
    assert main([str(path), "--abc", "-abc-tf", "#knn(2)", "-o", "-"]) == 1
    assert "give it as -tf" in capsys.readouterr().err
    assert main([str(path), "-abc-tf", "ceil(2)", "-o", "-"]) == 1
    assert "add --abc" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# live: fresh inputs against the reference binaries


def test_live_random_transforms(mcl_binary):
    if shutil.which("mcxload") is None or shutil.which("mcxdump") is None:
        pytest.skip("mcxload/mcxdump not on PATH")
    rng = random.Random()
    seed = rng.randrange(10**6)
    edge = ["gq", "gt", "lq", "lt", "ceil", "floor", "mul", "add", "scale", "pow", "log", "neglog", "exp"]
    for k in range(4):
        steps = []
        for _ in range(rng.randint(1, 3)):
            name = rng.choice(edge + ["#knn", "#knnj", "#ceilnb", "#max", "#add", "#arcmax", "#selfmax"])
            if name in ("#knn", "#knnj", "#ceilnb"):
                steps.append(f"{name}({rng.randint(1, 6)})")
            elif name.startswith("#"):
                steps.append(f"{name}()")
            else:
                steps.append(f"{name}({rng.choice(['0.5', '2', '1.5', '3', '0.25'])})")
        spec = ",".join(["gq(0.1)"] + steps)
        if any(s.startswith(("#knn", "#ceilnb")) for s in steps):  # (#knnj too) they rank weights >= 0
            spec = ",".join(["gq(0.1)"] + [s for s in steps if not s.startswith(("log", "neglog", "add"))])
        text = tg.weight_graph(seed + k, ties=k % 2 == 1)
        graph = netmcl.read_abc(io.BytesIO(text.encode()))
        got = _entries(Transform(spec).matrix(graph.csc, cluster=clusters_at), graph.labels)
        _assert_same_weights(got, _expected(tg.mcxload_weights(text, spec, True)), f"seed {seed + k}: -tf {spec!r}")


@pytest.mark.parametrize("spec", ["add(-2),log(),add(1)", "add(-2),neglog(10),add(1)", "add(-1.5),acos(),add(1)",
                                  "add(1),acos(),add(1)", "gq(0.1),neglog(1.5),scale(0.5),neglog(0.25)"])
def test_log_and_acos_outside_their_domain_are_mcls(mcl_binary, spec):
    """The log of a negative weight is 0 (a later function may make it nonzero again), acos is pi below -1
    and 0 above 1: as mcxload computes them."""
    if shutil.which("mcxload") is None or shutil.which("mcxdump") is None:
        pytest.skip("mcxload/mcxdump not on PATH")
    text = tg.weight_graph(999409, ties=False)
    graph = netmcl.read_abc(io.BytesIO(text.encode()))
    got = _entries(Transform(spec).matrix(graph.csc, cluster=clusters_at), graph.labels)
    _assert_same_weights(got, _expected(tg.mcxload_weights(text, spec, True)), f"-tf {spec!r}")


def test_ils_refuses_a_directed_graph():
    one_way = netmcl.SparseGraph.from_edges([0, 1], [1, 2], [1.0, 1.0], symmetrize=False)
    with pytest.raises(ParameterError, match="#ils"):
        Transform("#ils()").matrix(one_way.csc)


def test_force_connected_refuses_what_it_cannot_split_as_mcl():
    with pytest.raises(ParameterError, match="overlap='keep'"):
        netmcl.mcl([("a", "b")], force_connected=True, overlap="keep")
    one_way = netmcl.SparseGraph.from_edges([0, 1], [1, 2], [1.0, 1.0], symmetrize=False)
    with pytest.raises(ParameterError, match="one-way arcs"):
        netmcl.mcl(one_way, force_connected=True)


def test_a_stream_transform_names_the_line_it_spoils(tmp_path):
    path = tmp_path / "g.abc"
    path.write_text("# a comment\na b 2\n\nb c 0.5\n")
    with pytest.raises(InputFileError, match=r"g.abc, line 4: .*0.5 becomes -0.5"):
        netmcl.read_abc(path, transform="add(-1)")
    with pytest.raises(InputFileError, match="edge number 2"):  # a stream cannot be read again
        netmcl.read_abc(io.BytesIO(path.read_bytes()), transform="add(-1)")
