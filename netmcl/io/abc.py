"""mcl's label input (``mcl --abc``): ``label label [weight]`` per line."""

import logging
import os

import numpy as np

from ..exceptions import InputFileError
from ..graph import U16_NODES, LabelLines, SparseGraph
from ..engines.cpu._buffers import Appender
from ..engines.cpu._compiled import kernels
from ._merge import merge_arcs
from . import _codes
from ._files import display_name, read_input_blocks
from ._sniff import refuse_nul, text_start

__all__ = ["read_abc"]

log = logging.getLogger("netmcl")

#: longest line read (the scanner keeps positions within a block as int32)
LONGEST_LINE = 1 << 30


_COMMA_HINT = (
    " It contains a comma: separate fields by TABs or blanks (for a CSV file: tr ',' '\\t' < in > out) "
    "and write decimals with a point."
)
_HEADER_HINT = " If the first line is a header, pass skip_header=True (--skip-header on the command line)."

_MESSAGES = {
    _codes.E_ONE_FIELD: (
        "This line has a single field; each line of a label file needs two node labels and an "
        "optional weight (separated by TABs when the line has a TAB, by blanks otherwise). "
        "mcl would silently skip it."
    ),
    _codes.E_EMPTY_LABEL: (
        "The first label on this line is empty or blank (does the line start with a TAB?). "
        "mcl would silently skip it."
    ),
    _codes.E_BAD_NUMBER: (
        "The third field, the edge weight, must be a decimal number; mcl would silently read "
        "a weight of 1.0 or of the number's first digits."
    ),
    _codes.E_NONFINITE: (
        "Edge weights must be finite numbers; mcl would silently replace NaN or infinity by 1.0."
    ),
    _codes.E_NEGATIVE: (
        "Edge weights must not be negative: MCL needs similarities >= 0. Transform scores such "
        "as correlations or log-odds first, or drop those edges."
    ),
    _codes.E_TOO_LARGE: (
        f"Edge weight above {_codes.FLT_MAX:.4g}, the largest float32 (mcl stores weights as float32 and "
        "would silently replace it by 1.0). Rescale the weights."
    ),
}


def read_abc(path, *, skip_header=False, symmetrize=True, transform=None, neg_log=None):
    """Read a label (ABC) file exactly as ``mcl --abc`` reads it.

    Each line holds an edge: two node labels and an optional weight.  A line
    containing a TAB is split on TABs, so labels may contain spaces
    (``label<TAB>label[<TAB>weight]``); any other line is split on blanks.
    Blank lines and lines whose first non-blank character is ``#`` are
    skipped.  Nodes are numbered in order of first appearance (the first
    label of a line before the second), also on lines of weight 0, which add
    the nodes but no edge.  Each edge ``a -> b`` is mirrored ``b -> a`` and
    repeated edges keep their largest weight.  Weights are stored as float32.

    Parameters
    ----------
    path : str, os.PathLike or binary file object
        The file; gzip, bzip2 and xz files are decompressed (recognised by
        their content), ``"-"`` reads standard input.
    skip_header : bool, default False
        Skip the first line that is neither blank nor a comment (a header
        such as ``protein1 protein2 combined_score``).
    symmetrize : bool, default True
        Mirror every edge, as mcl does; False keeps arcs as given.
    transform : str, optional
        mcl's ``-abc-tf``: edge functions of the transform language
        (:mod:`netmcl.transforms`, e.g. ``"ceil(200)"``) applied to every
        line's weight as stored (float32), before edges are mirrored and
        merged; a line whose weight it makes 0 adds its nodes but no edge.
    neg_log : {None, "log", "log10"}
        mcl's ``--abc-neg-log`` / ``--abc-neg-log10`` for e-values and
        p-values: every weight ``v`` as read (in double, so that e-values
        below float32's range such as 1e-180 keep their size) is replaced by
        ``-log(v)`` or ``-log10(v)``, and a weight of 0 by the largest
        float32 (divided by ln 10 for log10); `transform` comes after.

    Returns
    -------
    SparseGraph
        With the labels (str) in node order.

    Raises
    ------
    InputFileError
        Naming the file, the line and the offending text, for a missing or
        empty file, a line with a single field, or a weight that is not a
        finite, non-negative decimal number within float32's range.

    Notes
    -----
    Where mcl silently produces a different graph from a malformed line,
    netmcl stops with an error instead:

    * a line with one field, or starting with a TAB, is skipped by mcl;
    * a weight that is not a number (``combined_score`` in a header line,
      ``1,5``, ``0.5x``) is read by mcl as 1.0 or as its leading digits;
    * ``nan``, ``inf`` and weights above float32's maximum become 1.0 in mcl;
    * negative weights are used by mcl and make the MCL process meaningless;
    * hexadecimal weights (``0x1p3``), which C's ``strtod`` accepts, are
      refused;
    * a NUL byte, at which mcl cuts a label, is refused (the file is binary
      or corrupt), and so are UTF-16 and UTF-32 files;
    * a UTF-8 byte-order mark at the start, which mcl makes part of the first
      label (a node of its own), is dropped, with a warning.

    Everything else, including labels that end in a carriage return when a
    TAB-separated file with Windows line ends has no weights, is read as
    mcl reads it, so the clusters are identical.

    The file is read a block (``_files.BLOCK_BYTES``, 1 MiB) at a time, and
    each line's edge kept in 8 bytes (12 once there are more than 65,536
    labels).  Reading a file of n lines with e distinct edges takes about
    8 n bytes and 8 n more while its edges are merged (an edge given both ways
    once), then 24 e while they are mirrored: not the whole file's text.

    BLAST or DIAMOND e-values, as mcl users read them
    (``mcl FILE --abc --abc-neg-log10 -abc-tf 'ceil(200)'``):

    >>> import io
    >>> hits = b"p1 p2 1e-180\\np2 p3 2e-5\\np1 p3 0\\n"
    >>> read_abc(io.BytesIO(hits), neg_log="log10", transform="ceil(200)").matrix.toarray().tolist()
    [[0.0, 180.0, 200.0], [180.0, 0.0, 4.698969841003418], [200.0, 4.698969841003418, 0.0]]

    Examples
    --------
    >>> import io
    >>> text = b"cat hat 0.2\\nhat bat 0.16\\n# a comment\\nbat cat 1.0\\nbat bit\\n"
    >>> g = read_abc(io.BytesIO(text))
    >>> g.labels
    ['cat', 'hat', 'bat', 'bit']
    >>> float(g.matrix[0, 2]), float(g.matrix[3, 2])
    (1.0, 1.0)
    >>> read_abc(io.BytesIO(b"protein1 protein2 combined_score\\na b 700\\n"))
    Traceback (most recent call last):
    ...
    netmcl.exceptions.InputFileError: <stream>, line 1: ... pass skip_header=True ... Got 'combined_score'.
    >>> read_abc(io.BytesIO(b"protein1 protein2 combined_score\\na b 700\\n"), skip_header=True).labels
    ['a', 'b']
    """
    name = display_name(path)
    if neg_log not in (None, "log", "log10"):
        from ..exceptions import ParameterError

        raise ParameterError(
            f"neg_log must be None, 'log' (--abc-neg-log) or 'log10' (--abc-neg-log10). Got {neg_log!r}."
        )
    stream = None
    if transform is not None:
        from ..transforms import Transform

        stream = Transform(transform)
        stream.values(np.zeros(0, np.float32))  # a graph-wide function is refused before the file is read
    weights = _Weights(skip_header) if neg_log is not None else None
    scan = _Scan(name, skip_header)
    pending, first = b"", True
    for block in read_input_blocks(path):
        if first:  # a byte-order mark dropped, UTF-16 or binary refused
            block, first = block[text_start(block, name, "label file") :], False
        block = pending + block if pending else block
        refuse_nul(block, name, int(scan.state[_codes.S_LINE]))
        whole = block.rfind(b"\n") + 1  # the block's whole lines; the rest waits for the next block
        if whole:
            scan(block, whole)
            if weights is not None:
                weights(block, whole)
        pending = block[whole:]
        if len(pending) > LONGEST_LINE:
            line = int(scan.state[_codes.S_LINE]) + 1
            raise InputFileError(
                name, f"This line is longer than {LONGEST_LINE:,} bytes: this is not a label file.", line=line
            )
    if pending:
        scan(pending, len(pending))
        if weights is not None:
            weights(pending, len(pending))
    if not scan.src.size:
        raise InputFileError(
            name, "The file has no edges: it is empty or holds only comments and blank lines."
        )
    labels = scan.labels()
    if "\r\n" in labels.text or labels.text.endswith("\r"):
        log.warning(
            "%s: some labels end in a carriage return (a TAB-separated file with Windows line ends "
            "and no weights); mcl keeps it as part of the label, and so does netmcl.",
            name,
        )
    arcs = [scan.dst.array(), scan.src.array(), scan.values.array()]  # held by this list alone, freed once merged
    if neg_log is not None or stream is not None:
        arcs[2] = _stream_values(name, arcs[2], weights, neg_log, stream, transform)
        if isinstance(arcs[2], int):  # the edge whose weight the transform spoiled: find its line
            _spoiled(path, name, arcs[2], skip_header, neg_log, stream, transform)
    elif scan.tiny:  # mcl keeps these edges, with weight 0: only weights that are 0 add no arc
        arcs[2] = arcs[2].astype(np.float64)
        arcs[2][list(scan.tiny)] = list(scan.tiny.values())
    lines = arcs[0].size
    del scan
    graph = SparseGraph._from_arcs(arcs, len(labels), symmetrize, labels, merge=merge_arcs)
    log.info("read %s: %d lines with edges, %d nodes, %d arcs", name, lines, graph.n, graph.nnz)
    return graph


def _stream_values(name, values, weights, neg_log, stream, spec):
    """The weights of the lines after ``--abc-neg-log[10]`` and ``-abc-tf``, refused where
    they are not finite and >= 0 (MCL needs similarities; mcl would go on regardless).
    ``-abc-tf`` alone takes the weights as stored (float32, as mcl applies it)."""
    read, lines = weights.arrays() if weights is not None else (values.astype(np.float64), None)
    if read.size != values.size:  # the two readers must agree on which lines are edges
        raise AssertionError(f"{read.size} weights for {values.size} edges")
    if neg_log is not None:
        from ..transforms import neg_log as _neg_log

        values = _neg_log(read, base=10 if neg_log == "log10" else None)
    if stream is not None:
        values = stream.values(values)
    bad = ~(values >= 0) | ~np.isfinite(values)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        if lines is None:
            return k
        what = " and ".join(w for w in (
            {"log": "--abc-neg-log", "log10": "--abc-neg-log10"}.get(neg_log), spec and f"-abc-tf {spec!r}") if w)
        hint = " (an e-value above 1 has a negative -log)" if neg_log is not None else ""
        raise InputFileError(
            name, f"After {what}, this line's weight {read[k]:g} becomes {float(values[k]):g}; MCL needs finite "
            f"weights >= 0 (mcl would go on with a meaningless result){hint}. Drop such edges with a filter at the "
            "end of the transform, e.g. -abc-tf 'gq(0)' (transform='gq(0)').", line=int(lines[k]),
        )
    return values


def _spoiled(path, name, k, skip_header, neg_log, stream, spec):
    """Raise the error of :func:`_stream_values` for edge `k`, with its line: the file is read
    again (lines counted) where it can be; standard input and streams are named by edge."""
    if isinstance(path, (str, os.PathLike)) and os.fspath(path) != "-":
        weights = _Weights(skip_header)
        for block in read_input_blocks(path, -1):
            weights(block[text_start(block, name, "label file"):], len(block))
        values = weights.arrays()[0].astype(np.float32)
        _stream_values(name, values, weights, neg_log, stream, spec)
    raise InputFileError(name, f"-abc-tf {spec!r} makes the weight of the file's edge number {k + 1} negative or "
                         "not finite; MCL needs finite weights >= 0. Drop such edges with a filter at the end "
                         "of the transform, e.g. gq(0).")


class _Weights:
    """The weights of a label file's edge lines as the doubles written (what
    ``--abc-neg-log`` takes, before float32 rounds 1e-180 to 0), read line by
    line as :func:`netmcl.io._scan.scan_abc` splits them; that scanner has
    already refused every malformed line, so each field read here is a number."""

    def __init__(self, skip_header):
        self.header = bool(skip_header)
        self.parts, self.numbers, self.line = [], [], 0

    def __call__(self, data, size):
        out, numbers = [], []
        for self.line, line in enumerate(data[:size].split(b"\n"), self.line + 1):
            value = self._field(line)
            if value is not None:
                out.append(1.0 if not value else float(value))
                numbers.append(self.line)
        self.parts.append(np.array(out, dtype=np.float64))
        self.numbers.append(np.array(numbers, dtype=np.int64))
        self.line -= data[:size].endswith(b"\n")  # the empty piece after a block's last newline is no line

    def _field(self, line):
        """The weight's text of an edge line (b"" if none), None for a line that is no edge."""
        stripped = line.lstrip(b" \t\n\r\x0b\x0c")
        if not stripped or stripped[:1] == b"#":
            return None
        if self.header:
            self.header = False
            return None
        lead = line[: len(line) - len(stripped)]
        start = 0 if b"\t" in lead else len(lead)
        tab = line.find(b"\t", start)
        if tab >= 0:  # label TAB label [TAB value]
            rest = line[tab + 1 :].lstrip(b" \t\r\x0b\x0c")
            cut = rest.find(b"\t")
            rest = b"" if cut < 0 else rest[cut:]
        else:  # label label [value], blank-separated
            fields = stripped.split(None, 2)
            rest = fields[2] if len(fields) > 2 else b""
        fields = rest.split(None, 1)
        return fields[0] if fields else b""

    def arrays(self):
        """The weights (float64) and the 1-based line number of each."""
        if not self.parts:
            return np.zeros(0), np.zeros(0, np.int64)
        return np.concatenate(self.parts), np.concatenate(self.numbers)


def _widened(ids):
    """The node ids appended to `ids` (uint16), in a new Appender of int32."""
    wide = Appender(np.int32, 2 * ids.size, 2 * ids.capacity)
    wide.append(ids.array())
    return wide


class _Scan:
    """The edges and labels of a label file, scanned a block of whole lines at a time."""

    def __init__(self, name, skip_header):
        self.name = name
        self.state = np.zeros(_codes.N_STATE, dtype=np.int64)
        self.state[_codes.S_HEADER] = skip_header
        self.tables = (
            np.full(1024, -1, dtype=np.int64),
            np.empty(1024, dtype=np.uint64),
            np.empty((1024, 2), dtype=np.int64),
            np.empty(1 << 16, dtype=np.uint8),
        )
        self.skip_header = bool(skip_header)
        self.tiny = {}  # record: weight, for weights that round to a float32 zero
        self.head = None  # the file's first bytes, for the hints of an error message
        # the edges: their number is known only at the end (the arrays grow without copies); the
        # node ids in 2 bytes while every label numbered so far fits (most networks), else in 4
        self.src, self.dst = Appender(np.uint16, 1 << 16, 1 << 20), Appender(np.uint16, 1 << 16, 1 << 20)
        self.values = Appender(np.float32, 1 << 16, 1 << 20)

    def __call__(self, data, size):
        """Scan ``data[:size]``, whole lines, and append their edges."""
        if self.head is None:
            self.head = data[:65536]
        line_before = int(self.state[_codes.S_LINE])
        src, dst, values, nrec, slow, nslow, err, err_lo, err_hi, *self.tables = kernels().scan_abc(
            np.frombuffer(data, dtype=np.uint8, count=size), _codes.POW10, self.state, *self.tables
        )
        values, slow = values[:nrec], slow[:nslow]
        k = _codes.convert_slow(data, values, slow[:, 0], slow[:, 1], slow[:, 2])
        if k >= 0:
            err, err_lo, err_hi = _codes.E_TOO_LARGE, slow[k, 1], slow[k, 2]
            self.state[_codes.S_LINE] = line_before + data.count(b"\n", 0, err_lo) + 1
        if err != _codes.E_NONE:
            self._fail(err, data[err_lo:err_hi].decode("utf-8", "replace"))
        for rec, lo, hi in slow[values[slow[:, 0]] == 0].tolist():  # (the fast path never rounds to 0)
            self.tiny[self.src.size + rec] = float(data[lo:hi])
        if self.src.dtype == np.uint16 and self.state[_codes.S_LABELS] > U16_NODES:
            self.src, self.dst = _widened(self.src), _widened(self.dst)
        for out, part in ((self.src, src), (self.dst, dst), (self.values, values)):
            out.append(part[:nrec])

    def _fail(self, err, value):
        message = _MESSAGES[err]
        line = int(self.state[_codes.S_LINE])
        if err == _codes.E_BAD_NUMBER and line == self.state[_codes.S_FIRST_LINE] and not self.skip_header:
            message += _HEADER_HINT
        if "," in value:
            message += _COMMA_HINT
        if b"(mclheader" in self.head:
            message += " This looks like an mcl native matrix: read it with read_mci (no --abc)."
        raise InputFileError(self.name, message, line=line, value=value[:200])

    def labels(self):
        """The labels, in the order of their numbers."""
        names = self.tables[3][: max(int(self.state[_codes.S_NAME_BYTES]) - 1, 0)]
        return LabelLines(names.tobytes().decode("utf-8", "surrogateescape"))
