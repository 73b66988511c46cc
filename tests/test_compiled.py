"""The kernels compiled ahead of time, and numba's JIT when they cannot be.

Each case runs the command line in a fresh Python process (the choice of
kernels is made once per process) on the bundled Collins network and on a
native matrix, and compares its cluster files with those mcl wrote.
"""

import gzip
import logging
import os
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import numpy as np
import pytest

from netmcl.engines.cpu import _compiled
from netmcl.engines.cpu._compiled import KERNELS, PARTS, kernels

HERE = Path(__file__).parent
COLLINS = HERE / "data" / "networks" / "clusterone_collins2007.txt.gz"
COLLINS_I2 = HERE / "golden" / "clm" / "collins.I2.txt.gz"
RANDOM40 = HERE / "data" / "io" / "random40.mci"
RANDOM40_I20 = HERE / "data" / "io" / "random40.mci.I20"

# runs the command line, then says which heavy modules the process loaded, and which of those
# that only building the kernels or a mistyped option needs it imported
PROBE = (
    "import sys\n"
    "before = set(sys.modules)\n"
    "from netmcl.cli import main\n"
    "status = main(sys.argv[1:])\n"
    "print('loaded:', *sorted(m for m in ('hashlib', 'numba', 'llvmlite', 'numpy.ma', 'scipy.sparse', 'tqdm') if m in sys.modules))\n"
    "print('kernel modules:', *sorted(m for m in sys.modules if m.startswith('netmcl._netmcl_kernels')))\n"
    "print('imported for no use:', *sorted(m for m in ('subprocess', 'tempfile', 'random', 'difflib')\n"
    "                                      if m in sys.modules and m not in before))\n"
    "sys.exit(status)\n"
)


def cluster(tmp_path, env=None):
    """Cluster Collins (labels) and random40 (native) in one child process per input;
    return the child's stdout+stderr of each run."""
    logs = []
    for args, out in (
        ([str(COLLINS), "--abc", "-I", "2"], "collins.out"),
        ([str(RANDOM40)], "random40.out"),
    ):
        proc = subprocess.run(
            [sys.executable, "-c", PROBE, *args, "-o", str(tmp_path / out)],
            env=dict(os.environ, **(env or {})),
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.returncode == 0, proc.stderr
        logs.append(proc.stdout + proc.stderr)
    assert (tmp_path / "collins.out").read_bytes() == gzip.decompress(COLLINS_I2.read_bytes())
    assert (tmp_path / "random40.out").read_text() == RANDOM40_I20.read_text().split("\n", 1)[1]
    return logs


def compiled_module(suffix=""):
    """The module of the kernels ``PARTS[suffix]``; skips the test where it could not be built."""
    module = _compiled.part(suffix)
    if not hasattr(module, "__file__"):
        pytest.skip("the kernels could not be compiled on this machine (see the RuntimeWarning)")
    return module


def test_compiled_kernels_are_loaded_without_numba_scipy_tqdm_or_openssl(tmp_path):
    compiled_module()
    for log in cluster(tmp_path):
        assert "loaded:\n" in log, log
        assert "imported for no use:\n" in log, log
        # graphs of fewer than 262,144 nodes: the kernels for int32 rows are not even loaded
        assert "kernel modules: netmcl._netmcl_kernels\n" in log, log


def test_each_kernel_comes_from_its_part():
    for suffix, names in PARTS.items():
        module = compiled_module(suffix)
        assert all(getattr(kernels(), name) is getattr(module, name) for name in names)
    assert sorted(name for names in PARTS.values() for name in names) == sorted(KERNELS)


def test_a_build_shows_its_progress_and_gives_a_working_module(tmp_path, monkeypatch, capfd):
    monkeypatch.setitem(PARTS, "_probe", ("run_size", "normalize_columns"))
    directory = _compiled._ensure_built(tmp_path / "probe", "_probe")
    bar = capfd.readouterr().err
    assert "netmcl: compiling kernels for this machine (once)" in bar and "3/3" in bar, bar
    module = _compiled._load(directory, "_probe")
    indptr, data = np.array([0, 2, 3], dtype=np.int64), np.array([1, 3, 5], dtype=np.float32)
    module.normalize_columns(indptr, data)
    assert data.tolist() == [0.25, 0.75, 1.0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["probe"]  # no build directory left behind


def test_a_build_hidden_where_warnings_are(tmp_path, monkeypatch, capfd):
    monkeypatch.setitem(PARTS, "_probe", ("run_size",))
    previous = _compiled.log.level
    _compiled.log.setLevel(logging.ERROR)  # as the command line's -q x does
    try:
        _compiled._ensure_built(tmp_path / "probe", "_probe")
    finally:
        _compiled.log.setLevel(previous)
    assert "compiling kernels" not in capfd.readouterr().err


def test_a_failed_build_says_why(tmp_path, monkeypatch):
    monkeypatch.setitem(PARTS, "_probe", ("no_such_kernel",))
    with pytest.raises(OSError, match="the build exited with status 1: .*KeyError: 'no_such_kernel'"):
        _compiled._ensure_built(tmp_path / "probe", "_probe")
    assert list(tmp_path.iterdir()) == []


def test_a_clustering_run_loads_neither_pathlib_nor_shutil(tmp_path):
    """pathlib takes 0.5 MB of a run's memory; shutil, with bz2 and lzma, which argparse's help formatter
    loads unless told the terminal's width, 0.5 MB more.  Run with -S: in this process a .pth file's hook
    may have loaded them before netmcl was imported."""
    code = (
        "import sys\n"
        "from netmcl.cli import main\n"
        "status = main(sys.argv[1:])\n"
        "print('loaded:', *sorted(m for m in ('pathlib', 'shutil', 'bz2', 'lzma') if m in sys.modules))\n"
        "sys.exit(status)\n"
    )
    path = os.pathsep.join([str(HERE.parent), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    proc = subprocess.run(
        [sys.executable, "-S", "-c", code, str(COLLINS), "--abc", "-I", "2", "-o", str(tmp_path / "out")],
        env=dict(os.environ, PYTHONPATH=path), capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert "loaded:\n" in proc.stdout, proc.stdout
    assert (tmp_path / "out").read_bytes() == gzip.decompress(COLLINS_I2.read_bytes())


def test_jit_kernels_give_the_same_clusters(tmp_path):
    for log in cluster(tmp_path, {"NETMCL_KERNELS": "jit"}):
        # numba itself loads hashlib and numpy.ma; still neither scipy.sparse nor tqdm
        assert "loaded: hashlib llvmlite numba numpy.ma\n" in log
        assert "RuntimeWarning" not in log


def test_unbuildable_cache_falls_back_to_the_jit_with_a_warning(tmp_path):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory would be")
    for log in cluster(tmp_path, {"NETMCL_CACHE_DIR": str(blocker), "NETMCL_KERNELS": ""}):
        assert "netmcl could not compile its kernels ahead of time" in log
        assert "loaded: hashlib llvmlite numba" in log


def test_every_kernel_is_exported():
    assert sorted(n for n in KERNELS if callable(getattr(kernels(), n))) == sorted(KERNELS)


def test_builds_unused_for_a_month_are_removed_when_another_is_built(tmp_path):
    month = _compiled.KEEP_UNUSED_DAYS * 86400
    now = time.time()
    ages = {"just-built": month + 60, "used-yesterday": 86400, "unused": month + 60, "build-killed": month + 60}
    for name, age in ages.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / os.path.basename(_compiled._module_file(".", ""))).write_bytes(b"\0")
        os.utime(tmp_path / name, (now - age, now - age))
    _compiled._prune(tmp_path / "just-built")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["just-built", "used-yesterday"]


def test_loading_a_build_marks_it_used():
    directory = Path(compiled_module().__file__).parent
    long_ago = time.time() - 2 * _compiled.KEEP_UNUSED_DAYS * 86400
    os.utime(directory, (long_ago, long_ago))
    _compiled._load(directory, "")
    assert directory.stat().st_mtime > time.time() - 3600
