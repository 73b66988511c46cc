"""Where outputs go: special files written through, links and modes kept, stale temporaries removed.

No test touches a device node of the system: character devices are private
nodes made in ``tmp_path`` (``os.mknod``, needing root), so code that
replaced them instead of writing through would only replace a test file,
and ``/dev/stdout`` is reached through a link made in ``tmp_path``.
"""

import errno
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from netmcl.cli import main
from netmcl.io import atomic_write

IO = Path(__file__).parent / "data" / "io"
ROOT = Path(__file__).resolve().parents[1]
EDGE = IO / "edge.abc"
#: mcl's clustering of EDGE (--abc, -I 2)
EXPECTED = (IO / "edge.abc.I20").read_bytes()

is_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root (mknod, chown)")


def run(argv, capsys):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def private_null(tmp_path):
    """A character device node like /dev/null (1, 3), made in tmp_path."""
    node = tmp_path / "null"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("creating a device node is not permitted here")
    return node


# ---------------------------------------------------------------- special files


@is_root
def test_a_character_device_is_written_through_not_replaced(tmp_path, capsys):
    node = private_null(tmp_path)
    status, _, err = run([EDGE, "--abc", "-o", node], capsys)
    assert status == 0, err
    assert stat.S_ISCHR(os.lstat(node).st_mode)
    assert os.lstat(node).st_rdev == os.makedev(1, 3)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]  # no temporary file left


@is_root
def test_a_link_to_a_character_device_is_written_through(tmp_path, capsys):
    node = private_null(tmp_path)
    link = tmp_path / "out"
    link.symlink_to(node)
    assert run([EDGE, "--abc", "-o", link], capsys)[0] == 0
    assert link.is_symlink() and os.readlink(link) == str(node)
    assert stat.S_ISCHR(os.lstat(node).st_mode)


def test_a_fifo_is_written_through(tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader, so that the writer's open returns
    try:
        status, _, err = run([EDGE, "--abc", "-o", fifo], capsys)
        assert status == 0, err
        data = b""
        try:
            while chunk := os.read(reader, 65536):
                data += chunk
        except BlockingIOError:
            pass
    finally:
        os.close(reader)
    assert data == EXPECTED
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.parametrize("redirect", ["pipe", "file"])
def test_a_link_to_standard_output_writes_to_it(tmp_path, redirect):
    """``-o /dev/stdout``, through a link of our own to the process's descriptor 1."""
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    if not Path("/proc/self/fd/1").exists():
        pytest.skip("no /proc/self/fd")
    argv = [sys.executable, "-m", "netmcl", str(EDGE), "--abc", "-o", str(link)]
    if redirect == "pipe":
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, timeout=120)
        out = done.stdout
    else:  # as `{ netmcl ... -o /dev/stdout; echo after; } > captured`: one open file throughout
        with open(tmp_path / "captured", "wb") as fh:
            done = subprocess.run(argv, cwd=ROOT, stdout=fh, stderr=subprocess.PIPE, timeout=120)
            fh.write(b"after\n")
        out = (tmp_path / "captured").read_bytes()
        assert out.endswith(b"after\n")
        out = out.removesuffix(b"after\n")
    assert done.returncode == 0, done.stderr
    assert out == EXPECTED
    assert link.is_symlink()


def test_dash_says_standard_output(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    status, out, err = run([EDGE, "--abc", "-o", "-"], capsys)
    assert status == 0 and out == EXPECTED.decode()
    assert "output is on standard output" in err and "output is in -" not in err


def test_a_symlink_is_followed_and_its_target_replaced(tmp_path, capsys):
    target = tmp_path / "real.txt"
    target.write_text("old\n")
    target.chmod(0o640)
    link = tmp_path / "out.txt"
    link.symlink_to(target.name)  # relative, as links usually are
    assert run([EDGE, "--abc", "-o", link], capsys)[0] == 0
    assert link.is_symlink() and os.readlink(link) == "real.txt"
    assert target.read_bytes() == EXPECTED
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_dangling_symlink_creates_its_target(tmp_path, capsys):
    link = tmp_path / "out.txt"
    link.symlink_to("made.txt")
    assert run([EDGE, "--abc", "-o", link], capsys)[0] == 0
    assert link.is_symlink() and (tmp_path / "made.txt").read_bytes() == EXPECTED


def test_a_directory_is_refused_with_a_clear_error(tmp_path, capsys):
    out_dir = tmp_path / "results"
    out_dir.mkdir()
    status, out, err = run([EDGE, "--abc", "-o", out_dir], capsys)
    assert status == 1 and out == ""
    assert err.count("\n") == 1 and "is a directory" in err and "Traceback" not in err
    assert list(out_dir.iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["results"]
    with pytest.raises(IsADirectoryError) as info:
        with atomic_write(out_dir) as fh:
            fh.write("x")
    assert info.value.errno == errno.EISDIR


# ---------------------------------------------------------------- modes, owners, links


def test_a_private_file_stays_private(tmp_path, capsys):
    out = tmp_path / "clusters.txt"
    out.write_text("old\n")
    out.chmod(0o600)
    assert run([EDGE, "--abc", "-o", out], capsys)[0] == 0
    assert out.read_bytes() == EXPECTED
    assert stat.S_IMODE(out.stat().st_mode) == 0o600


def test_a_new_file_gets_the_umask_mode(tmp_path):
    old = os.umask(0o027)
    try:
        with atomic_write(tmp_path / "new.txt") as fh:
            fh.write("a\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640


@is_root
def test_the_owner_and_group_are_kept(tmp_path, capsys):
    out = tmp_path / "clusters.txt"
    out.write_text("old\n")
    os.chown(out, 4321, 8765)
    out.chmod(0o664)
    assert run([EDGE, "--abc", "-o", out], capsys)[0] == 0
    st = out.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (4321, 8765, 0o664)


def test_a_hard_linked_file_is_written_in_place(tmp_path, capsys):
    out = tmp_path / "clusters.txt"
    out.write_text("old\n")
    other = tmp_path / "other-name.txt"
    os.link(out, other)
    inode = out.stat().st_ino
    assert run([EDGE, "--abc", "-o", out], capsys)[0] == 0
    assert out.stat().st_ino == inode and out.stat().st_nlink == 2
    assert other.read_bytes() == EXPECTED == out.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clusters.txt", "other-name.txt"]


def test_a_hard_linked_file_is_untouched_when_the_writer_fails(tmp_path):
    out = tmp_path / "clusters.txt"
    out.write_text("old\n")
    os.link(out, tmp_path / "again.txt")
    with pytest.raises(RuntimeError):
        with atomic_write(out) as fh:
            fh.write("half")
            raise RuntimeError("writer failed")
    assert out.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["again.txt", "clusters.txt"]


# ---------------------------------------------------------------- temporary files of killed runs


def _gone_pid():
    """The id of a process that has ended (its id not yet reused, checked)."""
    for _ in range(20):
        child = subprocess.Popen([sys.executable, "-c", "pass"])
        child.wait()
        try:
            os.kill(child.pid, 0)
        except ProcessLookupError:
            return child.pid
    pytest.skip("process ids are reused at once here")


def test_temporaries_of_killed_runs_are_removed(tmp_path, capsys):
    out = tmp_path / "clusters.txt"
    dead = tmp_path / f".clusters.txt.{_gone_pid()}-0.tmp"
    dead.write_text("half a cluster")
    alive = tmp_path / f".clusters.txt.{os.getppid()}-0.tmp"  # a running process's write
    alive.write_text("in progress")
    other_name = tmp_path / f".other.txt.{_gone_pid()}-0.tmp"  # another output's
    other_name.write_text("not ours")
    assert run([EDGE, "--abc", "-o", out], capsys)[0] == 0
    assert out.read_bytes() == EXPECTED
    assert not dead.exists()
    assert alive.exists() and other_name.exists()


@is_root
def test_another_users_temporaries_are_kept(tmp_path, capsys):
    theirs = tmp_path / f".clusters.txt.{_gone_pid()}-3.tmp"
    theirs.write_text("half")
    os.chown(theirs, 4321, 4321)
    assert run([EDGE, "--abc", "-o", tmp_path / "clusters.txt"], capsys)[0] == 0
    assert theirs.exists()
