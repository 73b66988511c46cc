"""The benchmark harness measures each child, not itself.

The harness (``benchmarks/run_benchmarks.py``) is not part of the package,
but its figures are the project's claims: these tests pin the two ways its
measurements went wrong before (a child's peak memory read as at least the
harness's own size; netmcl started through a version manager's shim) and the
watchdog that stops runaway children.
"""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

HARNESS = Path(__file__).resolve().parents[1] / "benchmarks" / "run_benchmarks.py"

# the harness reads /proc, as its README says
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the benchmark harness needs Linux")


@pytest.fixture(scope="module")
def harness():
    spec = importlib.util.spec_from_file_location("run_benchmarks", HARNESS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(harness, tmp_path, code, **limits):
    limits = {"timeout": 60.0, "kill_above_bytes": 4 << 30, **limits}
    return harness.measure([sys.executable, "-S", "-c", code], log_path=tmp_path / "child.log", **limits)


def test_a_childs_peak_is_its_own(harness, tmp_path):
    if harness.GNU_TIME is None:
        pytest.skip("GNU time not installed: the harness falls back to ru_maxrss, a floor at its own size")
    ballast = b"x" * (200 << 20)  # the harness (here: this test process) holds 200 MB
    small = _run(harness, tmp_path, "pass")
    large = _run(harness, tmp_path, "x = b'x' * (120 << 20)")
    assert small.status == large.status == "ok"
    assert small.peak_rss_mb < 60
    assert 120 < large.peak_rss_mb < 180
    del ballast
    assert not list(tmp_path.glob("*.peak"))


def test_the_watchdog_stops_the_child_and_its_children(harness, tmp_path):
    grow = "import time\nx = b'x' * (300 << 20)\ntime.sleep(30)"
    m = _run(harness, tmp_path, grow, kill_above_bytes=150 << 20)
    assert m.status == "memory" and m.wall_s < 20
    m = _run(harness, tmp_path, "import time\ntime.sleep(30)", timeout=0.5)
    assert m.status == "timeout" and m.wall_s < 20
    assert _run(harness, tmp_path, "raise SystemExit(3)").status == "failed"


def test_netmcl_starts_without_a_shim(harness):
    cmd = harness.default_netmcl_cmd()
    assert cmd[0] in (str(Path(sys.executable).parent / "netmcl"), sys.executable)
    assert harness._display(cmd).split()[0] in ("netmcl", "python")


def test_the_warm_up_runs_netmcls_own_interpreter(harness, tmp_path):
    python = harness.netmcl_python([sys.executable, "-m", "netmcl"])
    assert python("pass") == [sys.executable, "-c", "pass"]
    script = tmp_path / "bin" / "netmcl"
    script.parent.mkdir()
    script.write_text(f"#!{sys.executable} -I\nimport sys\n")
    script.chmod(0o755)
    for cmd in ([str(script)], [str(script), "-v"]):
        command = harness.netmcl_python(cmd)("print(sys.path[0])")
        assert command[:3] == [sys.executable, "-I", "-c"]
        # the script's directory first on sys.path, as the script has it, not the working directory
        found = subprocess.run(command, capture_output=True, text=True, check=True, cwd=tmp_path)
        assert found.stdout.strip() == str(script.parent.resolve())
    script.write_text("#!/usr/bin/env python3\nimport sys\n")
    assert harness.netmcl_python([str(script)])("pass")[:3] == ["/usr/bin/env", "python3", "-c"]
    script.write_text('#!/bin/bash\nexec python -m netmcl "$@"\n')  # a shim: which Python it runs is not written
    assert harness.netmcl_python([str(script)]) is None
    # the default command's interpreter is this one, or one of the same environment
    command = harness.netmcl_python(harness.default_netmcl_cmd())("import sys; print(sys.prefix)")
    found = subprocess.run(command, capture_output=True, text=True, check=True)
    assert found.stdout.strip() == sys.prefix


@pytest.mark.parametrize(
    ("argv", "timeout"),
    [
        (["--sizes", "medium"], 600.0),
        (["--sizes", "all"], 3000.0),  # mcl at 1 thread on gen-200k: 766-936 s; 600 s killed it
        (["--only", "gen-200k"], 3000.0),
        (["--huge"], 14400.0),
        (["--sizes", "all", "--timeout", "5"], 5.0),
    ],
)
def test_the_default_timeout_lets_mcl_finish_the_inputs_chosen(harness, argv, timeout):
    assert harness.parse_args(argv).timeout == timeout


def test_the_import_alone_is_timed_with_one_blas_thread_as_netmcls_programs_run(harness, tmp_path, monkeypatch):
    calls = []

    def record(cmd, *, log_path, timeout, kill_above_bytes, env=None):
        calls.append((cmd, env))
        Path(log_path).write_text("netmcl\n")
        return harness.Measurement("ok", 0.1, 0.1, 30.0, 0, str(log_path))

    monkeypatch.setattr(harness, "measure", record)
    monkeypatch.setattr(harness, "prepare", lambda *args, **kwargs: (tmp_path / "gen-1k.abc", {}))
    monkeypatch.setattr(harness, "WORK", tmp_path)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "8")
    args = harness.parse_args(["--only", "gen-1k", "--threads", "2"])
    found = harness.warm_up(args, print, 1 << 30)
    (imports,) = [env for cmd, env in calls if cmd[-1].endswith("import netmcl.cli")]
    assert imports["OPENBLAS_NUM_THREADS"] == "1"
    # the runs on gen-1k keep the thread count of the timed runs
    (run,) = [env for cmd, env in calls if str(tmp_path / "gen-1k.abc") in cmd]
    assert run["OPENBLAS_NUM_THREADS"] == "2"
    assert "`python -c 'import netmcl.cli'` alone" in found


def test_results_md_keeps_the_written_sections_outside_the_harness_sections(harness, tmp_path):
    """Rewriting a harness section of RESULTS.md replaces that run's figures and nothing else:
    each harness section holds one heading, and rewriting each one keeps every other heading."""
    import re

    results = HARNESS.parent / "RESULTS.md"
    text = results.read_text()
    sections = re.findall(r"<!-- section: (.*?) -->\n(.*?)<!-- /section: \1 -->", text, flags=re.S)
    assert sections
    for name, body in sections:
        assert re.findall(r"^## .*", body, flags=re.M) == [f"## {name}"], name
        copy = tmp_path / "RESULTS.md"
        copy.write_text(text)
        harness.write_results(copy, name, f"<!-- section: {name} -->\n## {name}\n\nrerun\n\n<!-- /section: {name} -->\n")
        headings = set(re.findall(r"^## .*", copy.read_text(), flags=re.M))
        assert headings == set(re.findall(r"^## .*", text, flags=re.M)), name
