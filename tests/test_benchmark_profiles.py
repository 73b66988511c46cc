"""The profiling scripts of ``benchmarks/`` still run against the engine.

``profile_threads.py`` times the CPU engine's private steps by wrapping them,
so a renamed step would break it silently; ``core_probe.py`` compiles its own
loops.  Both run here in a child process (the first changes the engine's
classes), on small work.
"""

import re
import subprocess
import sys
from pathlib import Path

import netmcl

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
COLLINS = Path(netmcl.__file__).parent / "datasets" / "data" / "collins2007.txt.gz"


def _table(script, *args):
    """The rows of the markdown table that `script` prints, as lists of cells."""
    done = subprocess.run([sys.executable, str(BENCHMARKS / script), *args], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    rows = [line.strip("|").split("|") for line in done.stdout.splitlines() if re.match(r"\| *\w[\w.-]* *\|", line)]
    return [[cell.strip() for cell in row] for row in rows[1:]]  # past the header


def test_profile_threads_times_every_thread_count_over_the_same_iterations():
    rows = _table("profile_threads.py", str(COLLINS), "--threads", "1,2")
    assert [row[0] for row in rows] == ["1", "2"]
    (_, wall1, kernels1, ratio1, busiest1, _, its1), (_, wall2, kernels2, _, busiest2, _, its2) = rows
    assert ratio1 == "1.00" and its1 == its2 and int(its1) > 1
    assert 0 < float(kernels1) <= float(wall1) and 0 < float(busiest2) <= float(kernels2)


def test_core_probe_reports_each_probe_alone_and_at_once():
    rows = _table("core_probe.py", "--threads", "2", "--scale", "0.01")
    assert [row[0] for row in rows] == ["chain", "stream", "gather", "scatter", "lanes", "lanes-l1"]
    assert all(float(row[-1]) > 0 for row in rows)
