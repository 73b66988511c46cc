"""``--max-memory`` bounds the whole process: its peak resident memory, the
error of a budget too small, and the budget that error names."""

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import netmcl
from netmcl.engines.cpu._buffers import resident_memory
from netmcl.engines.cpu.engine import parse_memory

REPO = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(resident_memory() is None or not Path("/proc/self/status").exists(),
                                reason="the process's resident memory is read from Linux's /proc")

#: runs the command line and writes its peak resident memory (VmHWM, which exec resets, unlike ru_maxrss) last
CHILD = """
import sys
from netmcl.cli import main
try:
    code = main(sys.argv[1:])
finally:
    with open("/proc/self/status") as status:
        peak = next(line for line in status if line.startswith("VmHWM"))
    sys.stderr.write(f"peak {int(peak.split()[1]) * 1024}\\n")
sys.exit(code)
"""

SUGGESTED = re.compile(r"Raise max_memory \(to (\S+ \S+) at least")


def communities(nodes=20_000, size=100, inner=5, bridges=0.1, seed=1):
    """Edges of communities of `size` nodes, each node with `inner` edges into
    its own and a tenth of them one to anywhere: its iterands reach some
    3 million entries (about 15 MB), in two seconds' work at one thread."""
    rng = np.random.default_rng(seed)
    src = np.repeat(np.arange(nodes), inner)
    dst = src // size * size + rng.integers(0, size, src.size)
    across = np.flatnonzero(rng.random(nodes) < bridges)
    src, dst = np.r_[src, across], np.r_[dst, rng.integers(0, nodes, across.size)]
    keep = src != dst
    return src[keep], dst[keep]


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    path = tmp_path_factory.mktemp("budget") / "communities.abc"
    src, dst = communities()
    path.write_text("".join(f"{a}\t{b}\n" for a, b in zip(src.tolist(), dst.tolist())))
    return path


def run_child(graph, out, budget=None):
    """The command line on `graph` at one thread, under `budget` (bytes or a
    size): its exit status, log and peak resident bytes."""
    # glibc's defaults: a MALLOC_* tunable left in the environment changes what freed memory stays resident
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MALLOC_", "GLIBC_TUNABLES"))}
    argv = [str(graph), "--abc", "-I", "2", "-te", "1", "-v", "all", "-o", str(out)]
    if budget is not None:
        argv += ["--max-memory", str(budget)]
    proc = subprocess.run([sys.executable, "-c", CHILD, *argv], capture_output=True, text=True, cwd=REPO, env=env,
                          timeout=600)
    peak = re.search(r"^peak (\d+)$", proc.stderr, re.M)
    assert peak, proc.stderr
    return proc.returncode, proc.stderr, int(peak[1])


def test_budget_holds_the_whole_process_and_names_one_that_works_first_time(graph, tmp_path):
    """Under a budget of three quarters of the unbudgeted peak the process
    stays within the budget (it stops, the budget cannot hold the
    iterations, before its peak passes it), and the budget its error names
    runs to the end at the first retry, within that budget, in phases, to the
    unbudgeted clusters byte for byte."""
    status, _, free_peak = run_child(graph, tmp_path / "free")
    assert status == 0
    tight = int(0.75 * free_peak)
    status, log, peak = run_child(graph, tmp_path / "tight", tight)
    assert peak <= 1.1 * tight, (peak, tight)
    named = SUGGESTED.search(log)
    assert status != 0 and named, log
    assert not (tmp_path / "tight").exists()
    status, log, peak = run_child(graph, tmp_path / "retry", named[1].replace(" ", ""))
    assert status == 0, log
    assert peak <= 1.1 * parse_memory(named[1].replace(" ", "")), (peak, named[1])
    assert max(int(p) for p in re.findall(r" in (\d+) phases", log) or [1]) >= 2, log
    assert (tmp_path / "retry").read_bytes() == (tmp_path / "free").read_bytes()


def test_budget_that_cannot_hold_the_first_column_fails_before_any(graph):
    """A budget that the process and the loaded iterand already fill is
    refused before any column is computed: no iteration completes, and the
    error says so, naming the process's share and a budget from a sample of
    the first iteration's columns."""
    src, dst = communities()
    adjacency = sp.coo_matrix((np.ones(src.size), (src, dst)), shape=(20_000, 20_000)).tocsr()
    budget = resident_memory() + (1 << 20)  # the start matrix and the scratch of a thread take some 6 MiB
    states = []
    with pytest.raises(netmcl.ParameterError) as error:
        for state in netmcl.mcl_iterates(adjacency, symmetrize=True, inflation=2.0, threads=1, max_memory=budget):
            states.append(state)
    message = str(error.value)
    assert not states
    assert "No column of it has been computed" in message and "the rest of the process holds" in message, message
    assert parse_memory(SUGGESTED.search(message)[1].replace(" ", "")) > budget


def test_budget_the_process_already_passes_is_refused_before_the_input_is_read(tmp_path):
    """A budget below what the process holds at start fails before the input
    is read: a file that is not there is never reached."""
    proc = subprocess.run([sys.executable, "-m", "netmcl", str(tmp_path / "absent.abc"), "--abc",
                           "--max-memory", "4M", "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=REPO, timeout=300)
    assert proc.returncode != 0
    assert "max_memory = 4.0 MiB is less than this process holds already" in proc.stderr, proc.stderr
    assert not (tmp_path / "out").exists()
