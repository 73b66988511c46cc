"""Fuzzed inputs: each one clusters as mcl clusters it, or fails with one clear line.

The cases come from ``benchmarks/fuzz.py`` (seeded: the same cases on every
run): label files, native matrices, STRING files, cluster files and
combinations of mcl's flags, valid or malformed, with bytes mutated.  Each
runs ``netmcl.cli.main`` in this process under a timer.  A few of them are
also run through the live ``mcl`` (where it is on PATH) and the output files
compared byte for byte.  ``python benchmarks/fuzz.py`` runs 10,000 of them.

Below them, the defects fuzzing found, each pinned by the case's essence.
"""

import importlib.util
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from netmcl import cli
from netmcl.cli import main
from netmcl.params import MclParams

FUZZ = Path(__file__).resolve().parents[1] / "benchmarks" / "fuzz.py"
COLLINS = Path(__file__).parent / "data" / "networks" / "clusterone_collins2007.txt.gz"
#: seconds a case may take: tiny inputs cluster in milliseconds
CASE_SECONDS = 20

needs_mcl = pytest.mark.skipif(shutil.which("mcl") is None, reason="mcl not on PATH: live comparison skipped")


@pytest.fixture(scope="module")
def fuzz():
    spec = importlib.util.spec_from_file_location("netmcl_fuzz", FUZZ)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run_timed(fuzz, case, workdir, use_mcl):
    def expire(signum, frame):
        raise fuzz.Hang()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
    try:
        return fuzz.run_case(case, workdir, use_mcl=use_mcl)
    except fuzz.Hang:
        return "hang", f"> {CASE_SECONDS} s"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("fmt", ["abc", "native", "string", "clusters", "flags"])
def test_fuzzed_inputs_cluster_or_fail_cleanly(fuzz, tmp_path, fmt):
    outcomes = {}
    for index in range(60):
        case = fuzz.make_case(11, index, (fmt,))
        outcome, detail = _run_timed(fuzz, case, tmp_path, use_mcl=index % 10 == 0)
        outcomes.setdefault(outcome, []).append((index, detail))
    bad = {k: v for k, v in outcomes.items() if k in ("traceback", "hang", "DIFFERENT")}
    assert not bad, bad
    # the generator makes both kinds of input: the test cannot pass on errors alone
    assert outcomes.get("clean error") or outcomes.get("refused, mcl accepts")
    assert any(k in outcomes for k in ("accepted", "identical", "mcl refused"))


def test_a_clean_error_is_told_from_a_bug(fuzz):
    assert fuzz._clean_error("netmcl: error: g.abc, line 2: bad weight\n")
    assert fuzz._clean_error("[netmcl] some labels end in a CR\nnetmcl string: error: x\n")
    assert not fuzz._clean_error("Traceback (most recent call last):\n  File x\nnetmcl: error: x\n")
    assert not fuzz._clean_error("netmcl: error: one\nnetmcl: error: two\n")
    assert not fuzz._clean_error("")


def test_the_cases_are_the_same_every_time(fuzz):
    a, b = fuzz.make_case(3, 17), fuzz.make_case(3, 17)
    assert (a.format, a.files, a.argv) == (b.format, b.files, b.argv)


# ---------------------------------------------------------------- defects fuzzing found


def test_an_unreadable_cluster_file_for_info_is_an_input_error(tmp_path, capsys):
    (tmp_path / "g.abc").write_text("a\tb\t1\nb\tc\t1\n")
    (tmp_path / "cl").write_text("(mclheader\nmcltype mctrix\ndimensions 3x1\n)\n(mclmatrix\nbegin\n0 0 1 2 $\n)\n")
    status = main(["info", str(tmp_path / "g.abc"), str(tmp_path / "cl")])
    err = capsys.readouterr().err
    assert status == 1 and err.count("\n") == 1 and "mcltype matrix" in err and "bug" not in err


def test_an_api_export_without_its_second_name_column(tmp_path, capsys):
    path = tmp_path / "network.tsv"
    path.write_text("stringId_A\tstringId_B\tpreferredName_A\tscore\n9606.A\t9606.B\tA\t0.9\n")
    status = main(["string", str(path), "-o", str(tmp_path / "out")])
    assert status == 0, capsys.readouterr().err
    assert (tmp_path / "out").read_text().split("\n")[0] == "node\tcluster"


def _pruning(argv):
    args = cli._parser().parse_args(["g.abc", *argv])
    cli._in_mcl_order(args, ["g.abc", *argv])
    p = cli._params_and_engine(args)[0]
    return p.pruning_number, p.select, p.recover, p.recover_pct


@pytest.mark.parametrize(
    "argv, same_as",
    [
        (["-S", "5", "-scheme", "1"], ["-scheme", "1"]),
        (["-P", "10", "-pct", "50", "-scheme", "2"], ["-scheme", "2"]),
        (["-S", "5", "-resource", "3"], ["-resource", "3"]),
        (["-resource", "3", "-scheme", "1"], ["-scheme", "1"]),
        (["-p", "0.05", "-P", "30"], ["-P", "30"]),
        (["-P", "30", "-p", "0.05"], ["-p", "0.05"]),
        (["-scheme", "1", "-resource", "3"], ["-P", "3000", "-S", "3", "-R", "3"]),
    ],
)
def test_flags_apply_in_order_as_in_mcl(argv, same_as):
    assert _pruning(argv) == _pruning(same_as)


def test_later_flags_still_override_a_scheme():
    assert _pruning(["-scheme", "1", "-S", "5"])[1] == 5
    assert _pruning(["-resource", "3", "-S", "5"])[1:3] == (5, 3)
    assert _pruning(["-scheme", "1"]) == tuple(
        getattr(MclParams.build(scheme=1), k) for k in ("pruning_number", "select", "recover", "recover_pct")
    )


def test_inflation_above_mcls_range_is_refused(tmp_path, capsys):
    status = main([str(COLLINS), "--abc", "-I", "31", "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status == 1 and "at most 30" in err and not (tmp_path / "out").exists()
    assert main([str(COLLINS), "--abc", "-I", "30", "-o", str(tmp_path / "out")]) == 0


@needs_mcl
@pytest.mark.parametrize(
    "flags",
    [["-S", "5", "-scheme", "1"], ["-resource", "3", "-scheme", "1"], ["-S", "5", "-resource", "3"],
     ["-scheme", "1", "-resource", "3", "-S", "5"]],
    ids=" ".join,
)
def test_flag_order_matches_mcl_live(tmp_path, capsys, flags):
    import gzip

    graph = tmp_path / "collins.abc"
    graph.write_bytes(gzip.decompress(COLLINS.read_bytes()))
    subprocess.run(["mcl", str(graph), "--abc", *flags, "-o", str(tmp_path / "mcl.out")], check=True,
                   capture_output=True)
    assert main([str(graph), "--abc", *flags, "-o", str(tmp_path / "netmcl.out")]) == 0
    assert (tmp_path / "netmcl.out").read_bytes() == (tmp_path / "mcl.out").read_bytes()


@pytest.mark.parametrize("argv", [["-R", "-2", "-resource", "1"], ["-pct", "100", "-scheme", "7"],
                                  ["-P", "-3", "-scheme", "4"]], ids=" ".join)
def test_a_flag_a_later_one_overrides_is_still_checked(tmp_path, capsys, argv):
    """mcl refuses a value out of range wherever the flag stands."""
    status = main([str(COLLINS), "--abc", *argv, "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status == 1 and err.count("\n") == 1 and argv[0] in err
