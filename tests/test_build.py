"""``python -m netmcl.build``: the kernels compiled right after installing, so the first run starts at once."""

import os
import subprocess
import sys
from pathlib import Path

try:
    from netmcl.engines.cpu import _compiled
except ImportError:
    from netmcl import _compiled

ROOT = Path(__file__).resolve().parents[1]


def _build(env=None):
    return subprocess.run([sys.executable, "-m", "netmcl.build"], cwd=ROOT, capture_output=True, text=True,
                          timeout=900, env=dict(os.environ, **(env or {})))


def test_build_makes_every_part_and_a_run_then_builds_nothing(tmp_path):
    run = _build({"NETMCL_KERNELS": ""})
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("netmcl's kernels are compiled for this machine")
    listed = run.stdout.split("): ", 1)[1].strip().split(", ")
    assert len(listed) == len(_compiled.PARTS)
    for directory, suffix in zip(listed, _compiled.PARTS):
        assert Path(_compiled._module_file(directory, suffix)).is_file()
    # the first clustering run after it loads the modules: no build, no progress bar, no numba
    graph = tmp_path / "g.abc"
    graph.write_text("a\tb\t1\nb\tc\t1\na\tc\t1\nd\te\t1\n")
    code = "import sys; from netmcl.cli import main; s = main(sys.argv[1:]); print('numba' in sys.modules); sys.exit(s)"
    first = subprocess.run([sys.executable, "-c", code, str(graph), "--abc", "-o", str(tmp_path / "out")], cwd=ROOT,
                           capture_output=True, text=True, timeout=300, env=dict(os.environ, NETMCL_KERNELS=""))
    assert first.returncode == 0 and first.stdout.strip().endswith("False"), first.stderr
    assert "compiling" not in first.stderr.lower()
    assert (tmp_path / "out").read_text() == "a\tb\tc\nd\te\n"


def test_build_where_it_cannot_says_why_and_that_netmcl_still_runs(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory would be")
    run = _build({"NETMCL_CACHE_DIR": str(blocker), "NETMCL_KERNELS": ""})
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    assert "netmcl.build: error: the kernels could not be compiled" in run.stderr
    assert "netmcl still works, through numba's JIT" in run.stderr and run.stdout == ""
