"""Opening inputs (compressed or not, ``-`` for stdin) and writing outputs atomically.

The decompressors' modules are imported only for a compressed file, and no
temporary-file module at all: with the modules only a kernel build needs
(``_compiled``), they would add about 1.3 MB to every clustering run's memory.
"""

import contextlib
import importlib
import itertools
import os
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


def _new_file_beside(path):
    """A file created (owner-only, as ``tempfile.mkstemp`` creates it) in the directory of
    `path` under a name no other file has: its descriptor and path."""
    directory, base = os.path.split(os.path.abspath(path))
    for attempt in itertools.count():
        tmp = os.path.join(directory, f".{base}.{os.getpid()}-{attempt}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600), tmp
        except FileExistsError:  # another process's, or one left by a killed run
            continue


@contextlib.contextmanager
def atomic_write(target, mode="w"):
    """Open `target` for writing so that it appears complete or not at all.

    The data go to a temporary file in the same directory, which replaces
    `target` (:func:`os.replace`) when the ``with`` block ends without an
    exception; on an exception the temporary file is removed and `target`
    is left as it was.  ``"-"`` writes to standard output and an open file
    object is written to directly (neither is closed).

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
    fd, tmp = _new_file_beside(path)
    try:
        if binary:
            fh = os.fdopen(fd, "wb")
        else:
            fh = os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", newline="")
        with fh:
            yield fh
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
