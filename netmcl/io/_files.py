"""Opening inputs (compressed or not, ``-`` for stdin) and writing outputs atomically.

The decompressors' modules are imported only for a compressed file, and no
temporary-file module at all: with the modules only a kernel build needs
(``_compiled``), they would add about 1.3 MB to every clustering run's memory.
"""

import contextlib
import errno
import importlib
import itertools
import os
import re
import stat
import sys
import zlib

from ..exceptions import InputFileError

__all__ = ["read_input_bytes", "read_input_blocks", "atomic_write", "display_name"]

_GZIP = b"\x1f\x8b"
_BZIP2 = b"BZh"
_XZ = b"\xfd7zXZ\x00"
_ZSTD = b"\x28\xb5\x2f\xfd"
#: magic bytes, and the module whose ``open`` decompresses what starts with them
_DECOMPRESSORS = ((_GZIP, "gzip"), (_BZIP2, "bz2"), (_XZ, "lzma"))
#: what a decompressor raises on corrupt data besides EOFError and zlib.error: (module, class)
_CORRUPT = (("gzip", "BadGzipFile"), ("lzma", "LZMAError"))
#: bytes a reader takes from a file at a time
BLOCK_BYTES = 1 << 20


def display_name(source):
    """The name used for `source` in messages: its path, ``<stdin>`` or the file object's name."""
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        return "<stdin>" if name == "-" else name
    return str(getattr(source, "name", "<stream>"))


def read_input_bytes(source):
    """All bytes of `source`, decompressed when they are gzip, bzip2 or xz data.

    Compression is recognised by the magic bytes, whatever the file name.

    Parameters
    ----------
    source : str, os.PathLike or binary file object
        A path, ``"-"`` for standard input, or an open file.

    Returns
    -------
    bytes

    Raises
    ------
    InputFileError
        If the file does not exist, cannot be read or is corrupt.

    Examples
    --------
    >>> import gzip, io
    >>> read_input_bytes(io.BytesIO(gzip.compress(b"a b 1\\n")))
    b'a b 1\\n'
    """
    return b"".join(read_input_blocks(source, -1))


def read_input_blocks(source, size=None):
    """The bytes of `source` in blocks of `size` bytes (default ``BLOCK_BYTES``; the last
    one shorter), decompressed as :func:`read_input_bytes` decompresses them; ``size=-1``:
    one block.

    The file is read as the blocks are taken, so that a reader holds one
    block at a time rather than the whole file.

    Examples
    --------
    >>> import io
    >>> list(read_input_blocks(io.BytesIO(b"a b 1\\nb c 2\\n"), 8))
    [b'a b 1\\nb ', b'c 2\\n']
    """
    name = display_name(source)
    size = BLOCK_BYTES if size is None else size
    with _errors_named(name), contextlib.ExitStack() as stack:
        if not isinstance(source, (str, os.PathLike)):
            stream = source
        elif os.fspath(source) == "-":
            stream = sys.stdin.buffer
        else:
            stream = stack.enter_context(open(source, "rb"))
        first = _as_bytes(stream.read(max(size, len(_XZ)) if size >= 0 else -1))
        if first.startswith(_ZSTD):
            raise InputFileError(
                name, "This file is zstd-compressed; decompress it first (zstd -d), or recompress it with gzip."
            )
        for magic, module in _DECOMPRESSORS:
            if first.startswith(magic):
                stream = stack.enter_context(importlib.import_module(module).open(_Replay(first, stream)))
                first = stream.read(size)
                break
        while first:
            yield first
            first = _as_bytes(stream.read(size)) if size >= 0 else b""


def _as_bytes(data):
    """Bytes read from a binary stream, or a text one (encoded as netmcl writes labels)."""
    return data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data


class _Replay:
    """A stream that gives `head` again before the rest of `stream` (a decompressor's input)."""

    def __init__(self, head, stream):
        self._head, self._stream = head, stream

    def read(self, size=-1):
        if not self._head:
            return _as_bytes(self._stream.read(size))
        if size < 0:
            data, self._head = self._head + _as_bytes(self._stream.read()), b""
            return data
        data, self._head = self._head[:size], self._head[size:]
        return data


@contextlib.contextmanager
def _errors_named(name):
    """Raise what goes wrong opening or reading `name` as an InputFileError naming it."""
    try:
        yield
    except FileNotFoundError:
        raise InputFileError(name, "No such file; check the path and the current directory.") from None
    except IsADirectoryError:
        raise InputFileError(name, "This is a directory, not a file.") from None
    except (EOFError, zlib.error, *_corrupt_data_errors()) as exc:
        raise InputFileError(name, f"The compressed data is corrupt or truncated ({exc}).") from None
    except OSError as exc:
        if str(exc).startswith("Invalid data stream"):  # bz2
            raise InputFileError(name, f"The compressed data is corrupt or truncated ({exc}).") from None
        raise InputFileError(name, f"Cannot read this file: {exc.strerror or exc}.") from None


def _corrupt_data_errors():
    """The corrupt-data exceptions of the decompressors imported so far (no other one can be raised)."""
    return tuple(getattr(sys.modules[module], name) for module, name in _CORRUPT if module in sys.modules)


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _temp_name(directory, base, attempt):
    return os.path.join(directory, f".{base}.{os.getpid()}-{attempt}.tmp")


def _new_file_beside(path):
    """A file created (owner-only, as ``tempfile.mkstemp`` creates it) in the directory of
    `path` under a name no other file has: its descriptor and path."""
    directory, base = os.path.split(os.path.abspath(path))
    for attempt in itertools.count():
        tmp = _temp_name(directory, base, attempt)
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600), tmp
        except FileExistsError:  # another process's, or one left by a killed run
            continue


def _process_gone(pid):
    """True when no process `pid` exists (on this machine's process table)."""
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, another user's
        return False
    return False


def _remove_stale_temporaries(path):
    """Remove the temporary files of writes of `path` whose process is gone (a killed run's).

    Only files named as :func:`_new_file_beside` names them for this very
    `path`, owned by the current user and left by a process id that no
    longer exists are removed; anything else, or an error, is left alone.
    """
    directory, base = os.path.split(os.path.abspath(path))
    pattern = re.compile(r"\." + re.escape(base) + r"\.([0-9]+)-[0-9]+\.tmp")
    uid = os.getuid() if hasattr(os, "getuid") else None
    with contextlib.suppress(OSError):
        with os.scandir(directory) as entries:
            for entry in entries:
                match = pattern.fullmatch(entry.name)
                if match is None or not _process_gone(int(match.group(1))):
                    continue
                with contextlib.suppress(OSError):
                    st = entry.stat(follow_symlinks=False)
                    if stat.S_ISREG(st.st_mode) and (uid is None or st.st_uid == uid):
                        os.unlink(entry.path)


def _keep_owner_and_mode(tmp, st):
    """Give the file `tmp` the owner (where permitted) and the permission bits of `st`."""
    if hasattr(os, "chown"):
        for uid, gid in ((st.st_uid, st.st_gid), (-1, st.st_gid)):
            try:
                os.chown(tmp, uid, gid)
                break
            except OSError:  # not permitted: the writer's own (or its group) stays
                continue
    os.chmod(tmp, stat.S_IMODE(st.st_mode))  # after chown, which may clear set-id bits


def _descriptor(path):
    """The descriptor `path` names, when it or a link on the way to it is one of a
    process's descriptors (``/dev/stdout``, ``/dev/fd/N``, ``/proc/self/fd/N``): N for
    one of this process's, -1 for another process's; else None."""
    path = os.path.abspath(path)
    for _ in range(40):  # links followed at most (as the system's own limit)
        folder = os.path.realpath(os.path.dirname(path))
        match = re.fullmatch(r"/proc/([0-9]+)/fd", folder)
        if match is not None:
            name = os.path.basename(path)
            mine = int(match.group(1)) == os.getpid() and name.isdigit()
            return int(name) if mine else -1
        path = os.path.join(folder, os.path.basename(path))
        if not os.path.islink(path):
            return None
        path = os.path.join(folder, os.readlink(path))
    return None


def _output_kind(path):
    """How `path` is written, the path written and its stat (None for a new file): kind
    ``"new"`` (no file yet), ``"replace"`` (a regular file replaced atomically; the path
    is the file a symbolic link points to), ``"copy"`` (a regular file with other hard
    links, written in place once complete) or ``"stream"`` (a device, FIFO or socket,
    or a process's descriptor, written through)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "new", os.path.realpath(path), None
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(
            errno.EISDIR, "it is a directory; give the output a file name (e.g. DIR/clusters.txt)", path
        )
    if not stat.S_ISREG(st.st_mode) or _descriptor(path) is not None:
        return "stream", path, st
    return ("copy" if st.st_nlink > 1 else "replace"), os.path.realpath(path), st


@contextlib.contextmanager
def atomic_write(target, mode="w"):
    """Open `target` for writing so that it appears complete or not at all.

    The data go to a temporary file in the same directory, which replaces
    `target` (:func:`os.replace`) when the ``with`` block ends without an
    exception; on an exception the temporary file is removed and `target`
    is left as it was.  ``"-"`` writes to standard output and an open file
    object is written to directly (neither is closed).

    What is at `target` decides how it is written, as ``cp`` and ``install``
    users expect:

    * a regular file is replaced atomically and the new one keeps its
      permission bits and, where permitted, its owner and group (a ``0600``
      file stays private); a new file gets ``0666`` less the umask;
    * a symbolic link is followed: the file it points to is replaced (or
      created), the link stays;
    * a regular file with several hard links is written in place once the
      output is complete in the temporary file (as ``cp`` writes into an
      existing file), so every name of it shows the new output;
    * a character or block device, a FIFO or a socket is written through,
      as the data come (``-o /dev/null`` discards them and leaves the device
      as it is), and so is a process's descriptor (``/dev/stdout``,
      ``/dev/fd/N``, ``/proc/self/fd/N``, whatever it is open on: this
      process's own is written as ``"-"`` writes to standard output);
    * a directory is refused (:class:`IsADirectoryError`).

    Temporary files (``.NAME.PID-N.tmp``) left in the directory by killed
    runs writing the same `target` are removed once the new output is in
    place, when their process is gone and the current user owns them.

    Parameters
    ----------
    target : str, os.PathLike or file object
        Where to write.
    mode : {"w", "wb"}
        Text (UTF-8, labels' undecodable bytes restored, ``\\n`` line ends on
        every platform) or binary.

    Yields
    ------
    file object

    Raises
    ------
    IsADirectoryError
        If `target` is a directory.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "clusters.txt")
    >>> with atomic_write(path) as fh:
    ...     _ = fh.write("a\\tb\\n")
    >>> open(path).read()
    'a\\tb\\n'
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb'. Got {mode!r} instead.")
    binary = mode == "wb"
    if not isinstance(target, (str, os.PathLike)):
        yield target
        return
    path = os.fspath(target)
    if path == "-":
        stream = sys.stdout.buffer if binary else sys.stdout
        yield stream
        stream.flush()
        return
    kind, path, st = _output_kind(path)
    if kind == "stream":
        fd = _descriptor(path)
        if fd is not None and fd >= 0:  # this process's own: written as "-" writes to stdout
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(AttributeError, OSError, ValueError):
                    stream.flush()
            fd = os.dup(fd)
        else:
            fd = os.open(path, os.O_WRONLY | (os.O_TRUNC if st is not None and stat.S_ISREG(st.st_mode) else 0))
        with _opened(fd, binary) as fh:
            yield fh
        return
    fd, tmp = _new_file_beside(path)
    try:
        with _opened(fd, binary) as fh:
            yield fh
        if kind == "copy":
            _copy_into(tmp, path)
            os.unlink(tmp)
        else:
            if st is None:
                os.chmod(tmp, 0o666 & ~_umask())
            else:
                _keep_owner_and_mode(tmp, st)
            os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _remove_stale_temporaries(path)


def _opened(fd, binary):
    if binary:
        return os.fdopen(fd, "wb")
    return os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", newline="")


def _copy_into(source, path):
    """Write the bytes of file `source` over the content of the existing file `path`."""
    flags = os.O_WRONLY | os.O_TRUNC | getattr(os, "O_BINARY", 0)
    with open(source, "rb") as src, os.fdopen(os.open(path, flags), "wb") as dst:
        while True:
            block = src.read(BLOCK_BYTES)
            if not block:
                break
            dst.write(block)
