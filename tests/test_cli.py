"""The netmcl command line against the mcl command line.

``main([...])`` runs in-process; its output files are compared byte for byte
with those of the reference ``mcl`` run live on the same input and flags (when
mcl is installed) and with expected files mcl wrote (tests/data/io, checked
everywhere).  Native outputs are compared without mcl's ``# cline`` line.
"""

import gzip
import importlib.util
import io
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import netmcl

from netmcl.cli import SUBCOMMANDS, main, output_name
from netmcl.engines.cpu._buffers import resident_memory
from netmcl.engines.cpu.engine import parse_memory

DATA = Path(__file__).parent / "data"
IO = DATA / "io"
COLLINS = DATA / "networks" / "clusterone_collins2007.txt.gz"
GENERATOR = Path(__file__).resolve().parents[1] / "benchmarks" / "generate_graphs.py"

needs_mcl = pytest.mark.skipif(
    shutil.which("mcl") is None,
    reason="mcl not on PATH: live comparisons with the reference skipped (expected files still checked)",
)


def run(argv, capsys):
    """main(argv) -> (status, stdout, stderr)."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def run_mcl(argv, cwd):
    subprocess.run(["mcl", *map(str, argv)], cwd=cwd, check=True, capture_output=True)


def without_cline(text):
    assert text.startswith("# cline: mcl ")
    return text.split("\n", 1)[1]


def copy_input(src, dst_dir, name=None):
    dst = Path(dst_dir) / (name or src.name.removesuffix(".gz"))
    dst.write_bytes(gzip.decompress(src.read_bytes()) if src.suffix == ".gz" else src.read_bytes())
    return dst


# ---------------------------------------------------------------- expected files written by mcl


@pytest.mark.parametrize(
    "flags, expected",
    [
        ([], "edge.abc.I20"),
        (["-I", "1.4"], "edge.abc.I14"),
        (["-I", "3", "-pi", "1.5", "-c", "2"], "edge.abc.I30pi15c20"),
    ],
)
def test_label_output_and_name_match_mcl_fixtures(tmp_path, monkeypatch, capsys, flags, expected):
    src = copy_input(IO / "edge.abc", tmp_path)
    monkeypatch.chdir(tmp_path)
    status, _, err = run([src.name, "--abc", *flags], capsys)
    assert status == 0
    out = tmp_path / ("out." + expected)
    assert out.read_bytes() == (IO / expected).read_bytes()
    n_clusters = len((IO / expected).read_text().splitlines())
    assert err.splitlines() == [
        f"[netmcl] {n_clusters} clusters found",
        f"[netmcl] output is in out.{expected}",
    ]


@pytest.mark.parametrize(
    "graph, flags, expected",
    [
        ("random40.mci", [], "random40.mci.I20"),
        ("domains.mci", [], "domains.mci.I20"),
        ("stars.mci", [], "stars.mci.I20"),
    ],
)
def test_native_output_matches_mcl_fixtures(tmp_path, capsys, graph, flags, expected):
    status, _, _ = run([IO / graph, *flags, "-o", tmp_path / "out"], capsys)
    assert status == 0
    assert (tmp_path / "out").read_text() == without_cline((IO / expected).read_text())


def test_use_tab_writes_labels_like_mcl(tmp_path, capsys):
    status, _, _ = run(
        [IO / "random40.mci", "-I", "1.6", "-use-tab", IO / "random40.tab", "-o", tmp_path / "o"], capsys
    )
    assert status == 0
    assert (tmp_path / "o").read_bytes() == (IO / "random40.mci.I16.labels").read_bytes()


# ---------------------------------------------------------------- live comparisons with mcl

LIVE_FLAGS = [
    [],
    ["-I", "1.4"],
    ["-I", "4", "-pi", "2.5"],
    ["-I", "2.5", "--i3", "-c", "0.5"],
    ["-P", "300", "-S", "20", "-R", "30", "-pct", "80"],
    ["-p", "0.01"],
    ["-scheme", "2"],
    ["-resource", "12"],
    ["-overlap", "keep"],
    ["-overlap", "split", "-sort", "size"],
    ["-sort", "lex"],
    ["--discard-loops=n"],
    ["-discard-loops", "n", "-I", "1.8"],
    ["-te", "2"],
    ["-L", "4"],
    ["-ap", "pre", "-aa", ".post"],
]


@needs_mcl
@pytest.mark.parametrize("flags", LIVE_FLAGS, ids=" ".join)
@pytest.mark.parametrize("source", [IO / "edge.abc", IO / "random40.abc", COLLINS], ids=lambda p: p.name)
def test_label_runs_match_mcl_live(tmp_path, monkeypatch, capsys, source, flags):
    mine, ref = tmp_path / "mine", tmp_path / "ref"
    mine.mkdir()
    ref.mkdir()
    copy_input(source, mine, "graph.abc")
    copy_input(source, ref, "graph.abc")
    run_mcl(["graph.abc", "--abc", *flags], ref)
    monkeypatch.chdir(mine)
    status, _, _ = run(["graph.abc", "--abc", *flags], capsys)
    assert status == 0
    produced = sorted(p.name for p in mine.iterdir())
    assert produced == sorted(p.name for p in ref.iterdir())  # same automatic name
    for name in produced:
        assert (mine / name).read_bytes() == (ref / name).read_bytes(), name


@needs_mcl
@pytest.mark.parametrize("cap", ["1", "2", "3"])
def test_runs_stopped_early_match_mcl_live_with_the_dag_found_in_small_blocks(tmp_path, monkeypatch, capsys, cap):
    """-L leaves an unconverged iterand, whose attractor DAG is found DAG_BLOCK entries at a time."""
    monkeypatch.setattr("netmcl.interpret.DAG_BLOCK", 64)
    copy_input(COLLINS, tmp_path, "graph.abc")
    run_mcl(["graph.abc", "--abc", "-L", cap, "-o", "ref"], tmp_path)
    status, _, _ = run([tmp_path / "graph.abc", "--abc", "-L", cap, "-o", tmp_path / "mine"], capsys)
    assert status == 0
    assert (tmp_path / "mine").read_bytes() == (tmp_path / "ref").read_bytes()


@needs_mcl
@pytest.mark.parametrize(
    "flags", [[], ["-I", "1.5"], ["-I", "3", "-S", "5", "-R", "8"], ["-overlap", "keep"]], ids=" ".join
)
@pytest.mark.parametrize("graph", ["random40.mci", "domains.mci", "stars.mci"])
def test_native_runs_match_mcl_live(tmp_path, capsys, graph, flags):
    run_mcl([IO / graph, *flags, "-o", tmp_path / "ref"], tmp_path)
    status, _, _ = run([IO / graph, *flags, "-o", tmp_path / "mine"], capsys)
    assert status == 0
    assert (tmp_path / "mine").read_text() == without_cline((tmp_path / "ref").read_text())


def generated_components(path, seed):
    """Two or three community graphs of 2,500-4,000 nodes (benchmarks/generate_graphs.py),
    each with labels of its own, lines shuffled together: one group of components each."""
    r = random.Random(seed)
    lines = []
    for part in range(r.choice([2, 3])):
        nodes = r.randint(2500, 4000)
        sub = path.with_name(f"part{part}.abc")
        generate = [GENERATOR, "-o", sub, "--nodes", nodes, "--edges", nodes * r.choice([2, 4, 6]),
                    "--seed", r.randrange(10**6), "--mixing", r.choice([0.1, 0.3, 0.5])]
        subprocess.run([sys.executable, *map(str, generate)], check=True, capture_output=True)
        lines += [f"c{part}_" + line.replace("\t", f"\tc{part}_", 1) for line in sub.read_text().splitlines()]
    r.shuffle(lines)
    path.write_text("\n".join(lines) + "\n")
    flags = ["-I", r.choice(["1.6", "2", "3", "5"])]
    for flag, values in [("-scheme", "1234567"), ("-S", [50, 500]), ("-R", [100, 900]), ("-pct", [50, 95])]:
        if r.random() < 0.4:
            flags += [flag, str(r.choice(values))]
    return flags


@needs_mcl
# the flags these seeds draw: -I 1.6 -pct 95; -I 5 -scheme 2 -S 50; -I 2 -S 500; -I 3 -scheme 3 -S 50 -R 900 -pct 50
@pytest.mark.parametrize("seed", [4, 5, 6, 11])
def test_generated_components_under_a_tight_budget_match_mcl_live(tmp_path, capsys, seed):
    """Mid-size graphs of several components (each iterated apart, heavy
    columns taken in runs) under the tightest budget, at 2 threads, with drawn
    flags: mcl's cluster file, byte for byte."""
    graph = tmp_path / "graph.abc"
    flags = generated_components(graph, seed)
    run_mcl([graph, "--abc", *flags, "-o", tmp_path / "ref"], tmp_path)
    err, phases = tightest_run([graph, "--abc", *flags, "-te", "2", "-o", tmp_path / "mine"], capsys)
    assert " component groups" in err and phases >= 2, err
    assert (tmp_path / "mine").read_bytes() == (tmp_path / "ref").read_bytes(), " ".join(flags)


@needs_mcl
def test_output_names_match_mcl_az(capsys):
    values = [
        "0.95",
        "0.5",
        "0.04",
        "1.25",
        "1.35",
        "1.45",
        "2.45",
        "1.05",
        "1.15",
        "0.9",
        "2",
        "10",
        "12.5",
        "1.999",
        "3.14159",
    ]
    flag_sets = [["-I", v] for v in values] + [
        ["-I", "1.2345", "--i3"],
        ["-I", "1.2355", "--i3"],
        ["-pi", "1.25", "-c", "1.35"],
        ["-c", "12"],
        ["-c", "0.5"],
        ["-pi", "0.05"],
        ["-I", "0.5", "--i3"],
        ["-ap", "x", "-aa", "y", "-odir", "d/"],
        ["-odir", "some/dir"],
        ["-I", "3", "-scheme", "4", "-P", "99"],
    ]
    for flags in flag_sets:
        ref = subprocess.run(
            ["mcl", "dir/graph.abc", "--abc", *flags, "-az"], capture_output=True, text=True
        ).stdout
        main(["dir/graph.abc", "--abc", *flags, "-az"])
        assert capsys.readouterr().out == ref + "\n", flags


def test_output_name_rules():
    assert output_name("a/b/graph.abc") == "out.graph.abc.I20"
    assert output_name("-", inflation=1.45) == "out.-.I15"  # float32(1.45) * 10 = 14.5000005 -> 15
    assert output_name("g", inflation=1.25) == "out.g.I12"  # exactly 12.5: printf rounds to even
    assert output_name("g", inflation=1.2345, i3=True, preinflation=1.234) == "out.g.I123pi12"
    assert output_name("g", prefix="p", suffix=".s", odir="d") == "d/p.I20.s"
    assert output_name("g", loop_gain=0.5) == "out.g.I20c05"  # two digits at least


# ---------------------------------------------------------------- input and output channels


def test_stdin_and_stdout(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((IO / "edge.abc").read_bytes())))
    status, out, err = run(["-", "--abc", "-o", "-"], capsys)
    assert status == 0
    assert out == (IO / "edge.abc.I20").read_text()
    assert "[netmcl] output is on standard output" in err and "output is in" not in err


def test_skip_header_flag(tmp_path, capsys):
    src = tmp_path / "links.txt"
    src.write_text("protein1 protein2 combined_score\n" + (IO / "edge.abc").read_text())
    status, _, err = run([src, "--abc", "-o", tmp_path / "o"], capsys)
    assert status != 0 and "--skip-header" in err
    status, _, _ = run([src, "--abc", "--skip-header", "-o", tmp_path / "o"], capsys)
    assert status == 0 and (tmp_path / "o").read_bytes() == (IO / "edge.abc.I20").read_bytes()


@pytest.mark.parametrize("flags", [["-q", "x"], ["-V", "all"]])
def test_quiet(tmp_path, capsys, flags):
    status, out, err = run([IO / "edge.abc", "--abc", "-o", tmp_path / "o", *flags], capsys)
    assert status == 0 and out == "" and err == ""


def test_verbose_logs_iterations(tmp_path, capsys):
    status, _, err = run([IO / "edge.abc", "--abc", "-o", tmp_path / "o", "-v", "all"], capsys)
    assert status == 0 and "[netmcl] iteration 1: chaos" in err


def test_iteration_cap_warns_in_one_line(tmp_path, capsys):
    status, _, err = run([IO / "random40.abc", "--abc", "-o", tmp_path / "o", "-L", "2"], capsys)
    assert status == 0
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "did not converge in 2 iterations" in warnings[0]


def test_help_explains_every_flag(capsys):
    status, out, _ = run(["--help"], capsys)
    assert status == 0
    for flag in [
        "-I",
        "-o",
        "-odir",
        "--abc",
        "-P",
        "-p",
        "-S",
        "-R",
        "-pct",
        "-pi",
        "-c",
        "--discard-loops",
        "-scheme",
        "-resource",
        "-L",
        "-sort",
        "-overlap",
        "-te",
        "--threads",
        "-q",
        "-V",
        "-v",
        "--skip-header",
        "--version",
        "--plot",
        "--html",
        "--complexes",
        "--names",
        "--cytoscape",
        "--cytoscape-url",
        "--max-memory",
        "-use-tab",
        "-az",
    ]:
        assert f" {flag}" in out, flag
    status, out, _ = run(["--version"], capsys)
    assert status == 0 and out.startswith("netmcl ")


def tightest_run(argv, capsys):
    """Run `argv` under the smallest --max-memory of 1, 2, 4, ... MiB past what
    this process holds (the budget counts the whole process) that it accepts,
    logging its iterations; return that budget's log and the most phases an
    iteration took."""
    for mib in (1 << k for k in range(12)):
        budget = resident_memory() + (mib << 20)
        status, _, err = run([*argv, "--max-memory", str(budget), "-v", "all"], capsys)
        if status == 0:
            return err, max(int(p) for p in re.findall(r" in (\d+) phases", err) or [1])
        if "is less than this process holds already" in err:  # reading the input took more than the budget
            continue
        needed = re.search(r"needs at least .* more than .*max_memory.* Raise max_memory \(to (\S+ \S+) at least", err)
        assert needed and parse_memory(needed[1]) > budget, err  # the budget named is more than was given
    raise AssertionError("no budget up to 2 GiB was accepted")


def test_max_memory_does_not_change_the_clusters(tmp_path, capsys):
    """Under the tightest budget the Collins network's iterations take many
    phases, said in the log, and the cluster file is the unbudgeted one."""
    status, _, _ = run([COLLINS, "--abc", "-te", "2", "-o", tmp_path / "free"], capsys)
    assert status == 0
    _, phases = tightest_run([COLLINS, "--abc", "-te", "2", "-o", tmp_path / "tight"], capsys)
    assert phases >= 4
    assert (tmp_path / "tight").read_bytes() == (tmp_path / "free").read_bytes()


def test_verbose_logs_the_iterations_of_separate_component_groups(tmp_path, capsys):
    """Two rings of 2,100 nodes are iterated as two groups; every iteration is still logged, combined."""
    (tmp_path / "rings.abc").write_text("".join(f"{p}{i}\t{p}{(i + 1) % 2100}\n" for p in "ab" for i in range(2100)))
    status, _, err = run([tmp_path / "rings.abc", "--abc", "-o", tmp_path / "o", "-v", "all"], capsys)
    assert status == 0
    assert "[netmcl] 2 component groups of 2100 and 2100 nodes" in err
    last = int(re.search(r"\[netmcl\] \d+ clusters of 4200 nodes after (\d+) iterations", err).group(1))
    lines = re.findall(r"\[netmcl\] iteration (\d+): chaos .* in 2 component groups\n", err)
    assert [int(i) for i in lines] == list(range(1, last + 1))


def test_python_dash_m():
    proc = subprocess.run(
        [sys.executable, "-m", "netmcl", str(IO / "edge.abc"), "--abc", "-o", "-"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0
    assert proc.stdout == (IO / "edge.abc.I20").read_text()


@pytest.mark.parametrize(
    "argv, ours",
    [
        (["/venv/bin/python", "/venv/bin/netmcl", "net.abc", "--abc"], True),
        (["python3", "-m", "netmcl", "net.abc"], True),
        (["python3", "-X", "importtime", "-I", "-m", "netmcl.demo"], True),
        (["C:\\py\\python.exe", "C:\\venv\\Scripts\\netmcl-script.py"], True),
        (["python3", "-m", "pytest", "-q"], False),
        (["python3", "-c", "import netmcl"], False),
        (["python3", "-W", "ignore", "my_analysis.py"], False),
        (["python3"], False),
    ],
)
def test_only_netmcls_own_programs_are_recognised(argv, ours):
    from netmcl._blas import started_as_netmcl

    assert started_as_netmcl(argv) is ours


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")
def test_netmcls_programs_load_numpy_with_one_blas_thread_and_the_environment_is_left_alone():
    # OpenBLAS starts its threads when numpy loads it; netmcl's programs never call BLAS
    probe = (
        "import sys; {fake}\n"
        "import os, netmcl, numpy\n"
        "print(os.environ['OPENBLAS_NUM_THREADS'], len(os.listdir('/proc/self/task')))\n"
    )
    env = dict(os.environ, OPENBLAS_NUM_THREADS="4")
    own = subprocess.run([sys.executable, "-c", probe.format(fake="sys.orig_argv[1:] = ['-m', 'netmcl']")],
                         env=env, capture_output=True, text=True, check=True).stdout.split()
    assert own == ["4", "1"]  # no thread but the main one, and the variable put back as it was
    library = subprocess.run([sys.executable, "-c", probe.format(fake="")], env=env, capture_output=True,
                             text=True, check=True).stdout.split()
    assert library[0] == "4"


# ---------------------------------------------------------------- errors


def write(path, text):
    path.write_text(text)
    return path


ERROR_CASES = {
    "missing file": (lambda d: [d / "nothere.abc", "--abc"], ["nothere.abc", "No such file"]),
    "empty file": (lambda d: [write(d / "empty.abc", ""), "--abc"], ["empty.abc", "no edges"]),
    "header line": (
        lambda d: [write(d / "h.abc", "protein1 protein2 combined_score\na b 1\n"), "--abc"],
        ["h.abc, line 1", "--skip-header", "'combined_score'"],
    ),
    "nan weight": (
        lambda d: [write(d / "n.abc", "a b 1\nb c nan\n"), "--abc"],
        ["n.abc, line 2", "finite", "'nan'"],
    ),
    "negative weight": (
        lambda d: [write(d / "neg.abc", "a b 1\n\nb c -2.5\n"), "--abc"],
        ["neg.abc, line 3", "negative", "'-2.5'"],
    ),
    "one field": (
        lambda d: [write(d / "one.abc", "a b 1\nlonely\n"), "--abc"],
        ["one.abc, line 2", "single field", "'lonely'"],
    ),
    "inflation": (lambda d: [IO / "edge.abc", "--abc", "-I", "0.9"], ["-I", "> 1", "0.9"]),
    "unknown flag": (
        lambda d: [IO / "edge.abc", "--abc", "-frobnicate", "3"],
        ["unknown option -frobnicate", "--help"],
    ),
    "misspelt flag": (lambda d: [IO / "edge.abc", "--abs"], ["unknown option --abs (did you mean --abc?)"]),
    "tab with labels": (lambda d: [IO / "edge.abc", "--abc", "-use-tab", IO / "random40.tab"], ["-use-tab"]),
    "bad number": (lambda d: [IO / "edge.abc", "--abc", "-I", "two"], ["-I", "'two'", "--help"]),
    "bad choice": (lambda d: [IO / "edge.abc", "--abc", "-overlap", "merge"], ["-overlap", "merge"]),
    "label file without --abc": (lambda d: [IO / "edge.abc"], ["edge.abc", "--abc"]),
    "bad native value": (
        lambda d: [
            write(
                d / "b.mci", "(mclheader\nmcltype matrix\ndimensions 2x2\n)\n(mclmatrix\nbegin\n0 1:x $\n)\n"
            )
        ],
        ["b.mci, line 7", "'x'"],
    ),
    "no input": (lambda d: ["--abc"], ["no input FILE"]),
    "threads": (lambda d: [IO / "edge.abc", "--abc", "-te", "0"], ["-te", "0"]),
    "memory budget": (lambda d: [IO / "edge.abc", "--abc", "--max-memory", "lots"], ["max_memory", "'lots'"]),
    "budget too small": (
        lambda d: [COLLINS, "--abc", "-te", "1", "--max-memory", "1K"],
        ["max_memory = 1.0 KiB", "is less than this process holds already", "counts the whole process",
         "Raise max_memory"],
    ),
}


@pytest.mark.parametrize("case", ERROR_CASES)
def test_errors_are_one_line_without_output(tmp_path, monkeypatch, capsys, case):
    make_argv, expected = ERROR_CASES[case]
    work = tmp_path / "work"
    work.mkdir()
    argv = make_argv(tmp_path)
    monkeypatch.chdir(work)
    status, out, err = run(argv + ["-o", work / "clusters.txt"], capsys)
    assert status != 0
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("netmcl: error: "), err
    assert "Traceback" not in err
    for text in expected:
        assert text in lines[0], (text, lines[0])
    assert list(work.iterdir()) == []  # no (partial) output file


def test_unwritable_output_is_one_line(tmp_path, capsys):
    status, _, err = run([IO / "edge.abc", "--abc", "-o", tmp_path / "no" / "such" / "dir" / "o"], capsys)
    assert status == 1
    assert err.splitlines() == [
        f"netmcl: error: cannot write the output file {tmp_path}/no/such/dir/o: No such file or directory"
    ]


def test_subcommands_are_dispatched(monkeypatch, capsys):
    assert set(SUBCOMMANDS) == {"dist", "info", "sweep", "string", "bfs", "paths", "components", "rcl"}
    monkeypatch.setitem(sys.modules, "netmcl.cli.tools", None)  # as if the module were not installed
    status, _, err = run(["dist", "a", "b"], capsys)
    assert status == 1
    assert err == "netmcl: error: the 'dist' command is not available in this installation of netmcl.\n"


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_every_subcommand_answers_help(capsys, command):
    status, out, _ = run([command, "--help"], capsys)
    assert status == 0 and f"netmcl {command}" in out


# ---------------------------------------------------------------- after the clustering


def test_plot_after_output(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    status, _, err = run(
        [IO / "edge.abc", "--abc", "-o", tmp_path / "o", "--plot", tmp_path / "g.png"], capsys
    )
    assert status == 0, err
    assert (tmp_path / "o").read_bytes() == (IO / "edge.abc.I20").read_bytes()
    assert (tmp_path / "g.png").read_bytes().startswith(b"\x89PNG")


def test_html_view_after_output_names_clusters_by_complexes(tmp_path, capsys):
    import json
    import re

    complexes = tmp_path / "complexes.txt"
    first = (IO / "edge.abc.I20").read_text().splitlines()[0]  # mcl's first cluster, as the second complex
    complexes.write_text(f"# one complex per line\nzz1 zz2\n{first}\n")
    status, _, err = run(
        [IO / "edge.abc", "--abc", "-o", tmp_path / "o", "--html", tmp_path / "v.html", "--complexes", complexes], capsys
    )
    assert status == 0, err
    assert (tmp_path / "o").read_bytes() == (IO / "edge.abc.I20").read_bytes()
    page = (tmp_path / "v.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="netmcl-data">(.*?)</script>', page, re.S).group(1))
    clusters = netmcl.read_clusters(tmp_path / "o")
    assert [c["size"] for c in data["clusters"]] == [len(c) for c in clusters]
    assert data["clusters"][0]["name"] == "complex 2" and data["clusters"][0]["score"] == 1.0
    status, _, err = run([IO / "edge.abc", "--abc", "-o", tmp_path / "o2", "--html", tmp_path / "v2.html",
                          "--complexes", tmp_path / "missing.txt"], capsys)
    assert status == 1 and "--complexes" in err and (tmp_path / "o2").exists() and not (tmp_path / "v2.html").exists()


def test_html_view_takes_names_and_a_gene_set_file(tmp_path, capsys):
    import json
    import re

    first = (IO / "edge.abc.I20").read_text().split("\n")[0].split("\t")  # mcl's first cluster
    (tmp_path / "sets.gmt").write_text("decoy\tnone\tzz1\tzz2\nthe first complex\tby hand\t" + "\t".join(first) + "\n")
    (tmp_path / "names.tsv").write_text("# label TAB name\nalpha\tALP1\ngamma delta\tGD2\n")
    status, _, err = run([IO / "edge.abc", "--abc", "-o", tmp_path / "o", "--html", tmp_path / "v.html",
                          "--complexes", tmp_path / "sets.gmt", "--names", tmp_path / "names.tsv"], capsys)
    assert status == 0, err
    data = json.loads(re.search(r'id="netmcl-data">(.*?)</script>',
                                (tmp_path / "v.html").read_text(encoding="utf-8"), re.S).group(1))
    assert data["clusters"][0]["name"] == "the first complex" and data["clusters"][0]["score"] == 1.0
    shown = dict(zip(data["nodes"]["id"], data["nodes"]["name"]))
    assert shown["alpha"] == "ALP1" and shown["gamma delta"] == "GD2" and shown["beta"] == "beta"
    (tmp_path / "bad.tsv").write_text("alpha\tALP1\nbeta ALP2\n")
    status, _, err = run([IO / "edge.abc", "--abc", "-o", tmp_path / "o3", "--html", tmp_path / "v3.html",
                          "--names", tmp_path / "bad.tsv"], capsys)
    assert status == 1 and "bad.tsv, line 2" in err and "'beta ALP2'" in err and (tmp_path / "o3").exists()
    assert not (tmp_path / "v3.html").exists()
    (tmp_path / "unrelated.tsv").write_text("omega\tOMG1\n")
    status, _, err = run([IO / "edge.abc", "--abc", "-o", tmp_path / "o4", "--html", tmp_path / "v4.html",
                          "--names", tmp_path / "unrelated.tsv"], capsys)
    assert status == 1 and "name none of the graph's nodes" in err and not (tmp_path / "v4.html").exists()


def test_cytoscape_failure_keeps_the_clusters(tmp_path, capsys):
    """No Cytoscape listens on port 9: one line after the output, which is kept."""
    status, _, err = run(
        [IO / "edge.abc", "--abc", "-o", tmp_path / "o", "--cytoscape-url", "http://127.0.0.1:9/v1"], capsys
    )
    assert status == 1
    assert (tmp_path / "o").read_bytes() == (IO / "edge.abc.I20").read_bytes()
    errors = [line for line in err.splitlines() if line.startswith("netmcl: error:")]
    assert len(errors) == 1 and "--cytoscape" in errors[0] and "clusters were written" in errors[0]
