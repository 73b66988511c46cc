"""Telling a text file from what is not one, before it is parsed.

netmcl reads UTF-8 (or ASCII, or any bytes without NUL as labels, as mcl
does).  A file's first block tells the rest apart:

* a UTF-8 byte-order mark (written by Windows editors and Excel's "CSV UTF-8")
  is dropped: mcl would read it as part of the first label and make a node
  ``'\\ufeffA'`` beside ``'A'``, a wrong clustering without a word;
* UTF-16 and UTF-32 text (a byte-order mark, or a NUL beside every ASCII
  character) is refused with the ``iconv`` line that converts it;
* a NUL byte anywhere is refused with its line: a file with one is binary
  (an executable, an archive) or corrupt, and mcl would cut a label at it.
"""

import logging

from ..exceptions import InputFileError

__all__ = ["text_start", "refuse_nul", "checked_text", "UTF8_BOM"]

log = logging.getLogger("netmcl")

UTF8_BOM = b"\xef\xbb\xbf"
#: byte-order marks of the encodings netmcl does not read, longest first
_WIDE_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)
#: magic bytes of common binary files, and what to say about them
_BINARY = (
    (b"PK\x03\x04", "a zip archive (unzip it first)"),
    (b"\x7fELF", "an executable program"),
    (b"%PDF", "a PDF document"),
    (b"\x89PNG", "a PNG image"),
    (b"SQLite format 3\x00", "an SQLite database"),
)
#: bytes of the first block looked at to tell UTF-16 without a byte-order mark
_SAMPLE = 4096


def _wide_encoding(head):
    """'UTF-16', 'UTF-32' (with a byte-order mark) or 'UTF-16LE', ... (ASCII text
    without one) when `head` is such text, else None."""
    for bom, encoding in _WIDE_BOMS:
        if head.startswith(bom):
            return encoding
    sample = head[: _SAMPLE - _SAMPLE % 4]
    if len(sample) < 4 or b"\x00" not in sample:
        return None
    quarter = len(sample) // 4
    zero = [sample[k::4].count(0) >= 0.9 * quarter for k in range(4)]
    few = [sample[k::4].count(0) <= 0.1 * quarter for k in range(4)]
    if few[0] and zero[1] and zero[2] and zero[3]:
        return "UTF-32LE"
    if zero[0] and zero[1] and zero[2] and few[3]:
        return "UTF-32BE"
    if few[0] and few[2] and zero[1] and zero[3]:
        return "UTF-16LE"
    if zero[0] and zero[2] and few[1] and few[3]:
        return "UTF-16BE"
    return None


def text_start(head, name, what):
    """The number of bytes to skip at the start of a text file whose first block is
    `head` (3 for a UTF-8 byte-order mark, else 0).

    Raises an :class:`InputFileError` naming `name` for UTF-16 or UTF-32
    text and for a binary file (one with a NUL byte in `head`); `what` says
    what the file should have been (``"label file"``).

    Examples
    --------
    >>> text_start(b"\\xef\\xbb\\xbfa b 1\\n", "g.abc", "label file")
    3
    >>> text_start("a b 1\\n".encode("utf-16"), "g.abc", "label file")
    Traceback (most recent call last):
    ...
    netmcl.exceptions.InputFileError: g.abc: This is UTF-16 text; ... iconv -f UTF-16 -t UTF-8 g.abc > g.abc.utf8
    """
    encoding = _wide_encoding(head)
    if encoding is not None:
        raise InputFileError(
            name,
            f"This is {encoding} text; netmcl reads UTF-8 (or ASCII) text. Convert it first: "
            + (f"iconv -f {encoding} -t UTF-8 {name} > {name}.utf8" if not name.startswith("<")
               else f"pipe it through iconv -f {encoding} -t UTF-8."),
        )
    if head.startswith(UTF8_BOM):
        if what == "label file":
            log.warning(
                "%s: the UTF-8 byte-order mark at the start of the file is dropped (mcl would make it "
                "part of the first label, a node of its own)", name
            )
        return len(UTF8_BOM)
    nul = head.find(b"\x00")
    if nul >= 0:
        kind = next((", " + text for magic, text in _BINARY if head.startswith(magic)), "")
        if kind or b"\n" not in head[:nul]:
            raise InputFileError(name, f"This is a binary file{kind}, not a {what}: it holds NUL bytes.")
        refuse_nul(head, name, 0)
    return 0


def refuse_nul(data, name, lines_before):
    """Raise an :class:`InputFileError` for the first NUL byte in `data`, naming its
    line (`lines_before` lines precede `data`, which starts a line or continues the
    line after them)."""
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InputFileError(
            name,
            "This line holds a NUL byte: the file is corrupt or binary (mcl would cut the label at it).",
            line=lines_before + data.count(b"\n", 0, nul) + 1,
        )


def checked_text(data, name, what):
    """All of a text file's bytes `data`, a UTF-8 byte-order mark dropped; UTF-16,
    UTF-32, binary files and NUL bytes refused (:func:`text_start`, :func:`refuse_nul`).

    Examples
    --------
    >>> checked_text(b"\\xef\\xbb\\xbfa\\tb\\n", "cl.txt", "cluster file")
    b'a\\tb\\n'
    """
    data = data[text_start(data, name, what) :]
    refuse_nul(data, name, 0)
    return data
