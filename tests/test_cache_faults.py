"""The kernel cache under faults: two processes building at once, a truncated or altered module, a read-only
cache.  Each ends in a working run (the build, or numba's JIT with one warning), never a crash.

The runs use a copy of this machine's build in a temporary cache, or the JIT, or build one small
kernel: a whole build takes minutes.
"""

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from netmcl.engines.cpu import _compiled

HERE = Path(__file__).parent
ROOT = HERE.parent
RANDOM40 = HERE / "data" / "io" / "random40.mci"
RANDOM40_I20 = HERE / "data" / "io" / "random40.mci.I20"
MODULE_FILE = os.path.basename(_compiled._module_file("", ""))


def _real_build():
    module = _compiled.part("")
    if not hasattr(module, "__file__"):
        pytest.skip("the kernels could not be compiled on this machine")
    return Path(module.__file__).parent


def _cache_with_build(tmp_path):
    root = tmp_path / "cache"
    build = root / "kernels" / _compiled._key()
    shutil.copytree(_real_build(), build)
    return root, build


def _run(tmp_path, env, prefix=()):
    """The command line on random40 in a fresh process; its standard error (the clusters are checked)."""
    out = tmp_path / "out"
    if out.exists():
        out.unlink()
    probe = (
        "import sys\n"
        "from netmcl.cli import main\n"
        "status = main(sys.argv[1:])\n"
        "print('kernels from:', *sorted(getattr(m, '__file__', '') for n, m in sys.modules.items()\n"
        "                               if n.startswith('netmcl._netmcl_kernels')), file=sys.stderr)\n"
        "sys.exit(status)\n"
    )
    proc = subprocess.run(
        [*prefix, sys.executable, "-c", probe, str(RANDOM40), "-o", str(out)],
        cwd=ROOT, env=dict(os.environ, NETMCL_KERNELS="", PYTHONPATH=str(ROOT), **env),
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert out.read_text() == RANDOM40_I20.read_text().split("\n", 1)[1]
    return proc.stderr


def test_a_copied_build_is_loaded_without_a_warning(tmp_path):
    root, build = _cache_with_build(tmp_path)
    err = _run(tmp_path, {"NETMCL_CACHE_DIR": str(root)})
    assert "Warning" not in err, err
    assert f"kernels from: {build / MODULE_FILE}\n" in err, err


@pytest.mark.parametrize("damage", ["truncated", "altered"])
def test_a_damaged_module_is_removed_and_the_run_uses_the_jit(tmp_path, damage):
    root, build = _cache_with_build(tmp_path)
    module = build / MODULE_FILE
    data = module.read_bytes()
    if damage == "truncated":
        module.write_bytes(data[: len(data) // 3])
    else:
        module.write_bytes(data[:4096] + bytes([data[4096] ^ 1]) + data[4097:])
    err = _run(tmp_path, {"NETMCL_CACHE_DIR": str(root)})
    assert err.count("RuntimeWarning") == 1, err
    assert "netmcl did not load its compiled kernels" in err and str(module) in err, err
    assert "kernels from:\n" in err, err  # the JIT
    assert not build.exists()  # the next run builds it again
    assert [p.name for p in (root / "kernels").iterdir()] == []


def test_a_build_without_its_checksum_is_not_loaded(tmp_path):
    root, build = _cache_with_build(tmp_path)
    (build / (MODULE_FILE + ".sum")).unlink()
    with pytest.raises(_compiled._BadBuild, match="or its checksum cannot be read"):
        _compiled._load(str(build), "", str(root))
    assert not build.exists()


def _read_only(path):
    """A command prefix under which `path` is read-only, also for root (a read-only bind mount in a
    mount namespace of its own); None where neither works."""
    if os.geteuid() != 0:
        path.chmod(0o555)
        return ()
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    wrapper = f'mount --bind -o ro "{path}" "{path}" && exec "$@"'
    prefix = (unshare, "-m", "sh", "-c", wrapper, "sh")
    probe = subprocess.run([*prefix, "sh", "-c", f'! touch "{path}/probe" 2>/dev/null'], capture_output=True)
    return prefix if probe.returncode == 0 else None


def test_a_read_only_cache_with_a_build_is_used(tmp_path):
    root, build = _cache_with_build(tmp_path)
    prefix = _read_only(root)
    if prefix is None:
        pytest.skip("cannot make a directory read-only for root here (no unshare/mount)")
    err = _run(tmp_path, {"NETMCL_CACHE_DIR": str(root)}, prefix)
    assert "Warning" not in err, err
    assert f"kernels from: {build / MODULE_FILE}\n" in err, err


def test_a_read_only_cache_without_a_build_falls_back_to_the_jit_with_one_warning(tmp_path):
    root = tmp_path / "cache"
    (root / "kernels").mkdir(parents=True)
    prefix = _read_only(root)
    if prefix is None:
        pytest.skip("cannot make a directory read-only for root here (no unshare/mount)")
    err = _run(tmp_path, {"NETMCL_CACHE_DIR": str(root)}, prefix)
    assert err.count("RuntimeWarning") == 1, err
    assert "netmcl could not compile its kernels ahead of time" in err, err
    assert "Read-only file system" in err or "Permission denied" in err, err
    assert "kernels from:\n" in err, err
    assert [p.name for p in (root / "kernels").iterdir()] == []


def test_two_processes_building_at_once_both_load_the_same_build(tmp_path):
    """Two processes that find no build start one each; the first to finish installs it, the other
    finds it installed and loads it.  A small part (one kernel) keeps the builds short."""
    root = tmp_path / "cache"
    code = textwrap.dedent(
        """
        import logging, sys, numpy as np
        from netmcl.engines.cpu import _compiled
        logging.basicConfig(level=logging.INFO, format="%(message)s")
        _compiled.PARTS["_race"] = ("normalize_columns",)
        print("go", flush=True)
        sys.stdin.readline()
        module = _compiled.part("_race")
        indptr, data = np.array([0, 2, 3], dtype=np.int64), np.array([1, 3, 5], dtype=np.float32)
        module.normalize_columns(indptr, data)
        print(module.__file__, data.tolist())
        """
    )
    env = dict(os.environ, NETMCL_CACHE_DIR=str(root), NETMCL_KERNELS="", PYTHONPATH=str(ROOT))
    procs = [subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    for p in procs:
        assert p.stdout.readline() == "go\n"
    for p in procs:  # both past their imports: released together
        p.stdin.write("\n")
        p.stdin.flush()
    outs = [p.communicate(timeout=600) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    assert all("Warning" not in err for _, err in outs), outs
    assert all("Compiling 1 of netmcl's kernels" in err for _, err in outs), outs  # both built: a real race
    build = root / "kernels" / (_compiled._key() + "_race")
    expected = f"{build / _compiled.os.path.basename(_compiled._module_file('', '_race'))} [0.25, 0.75, 1.0]"
    assert [out.strip() for out, _ in outs] == [expected, expected]
    # one build, its checksum, and no build directory left behind by the process that lost the race
    assert sorted(p.name for p in (root / "kernels").iterdir()) == [build.name]
    assert sorted(p.name for p in build.iterdir()) == sorted(
        [os.path.basename(_compiled._module_file("", "_race")), os.path.basename(_compiled._module_file("", "_race")) + ".sum"]
    )
