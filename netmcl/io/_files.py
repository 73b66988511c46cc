"""Opening inputs (compressed or not, ``-`` for stdin) and writing outputs atomically."""

import bz2
import contextlib
import gzip
import lzma
import os
import sys
import tempfile
import zlib

from ..exceptions import InputFileError

__all__ = ["read_input_bytes", "atomic_write", "display_name"]

_GZIP = b"\x1f\x8b"
_BZIP2 = b"BZh"
_XZ = b"\xfd7zXZ\x00"
_ZSTD = b"\x28\xb5\x2f\xfd"


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
    name = display_name(source)
    try:
        if isinstance(source, (str, os.PathLike)):
            if os.fspath(source) == "-":
                data = sys.stdin.buffer.read()
            else:
                with open(source, "rb") as fh:
                    data = fh.read()
        else:
            data = source.read()
            if isinstance(data, str):
                data = data.encode("utf-8", "surrogateescape")
    except FileNotFoundError:
        raise InputFileError(name, "No such file; check the path and the current directory.") from None
    except IsADirectoryError:
        raise InputFileError(name, "This is a directory, not a file.") from None
    except OSError as exc:
        raise InputFileError(name, f"Cannot read this file: {exc.strerror or exc}.") from None
    try:
        if data.startswith(_GZIP):
            return gzip.decompress(data)
        if data.startswith(_BZIP2):
            return bz2.decompress(data)
        if data.startswith(_XZ):
            return lzma.decompress(data)
    except (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError) as exc:
        raise InputFileError(name, f"The compressed data is corrupt or truncated ({exc}).") from None
    if data.startswith(_ZSTD):
        raise InputFileError(
            name, "This file is zstd-compressed; decompress it first (zstd -d), or recompress it with gzip."
        )
    return data


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


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
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
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
