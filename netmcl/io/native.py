"""mcl's native (interchange) matrix format: graphs (``.mci``) and clusterings.

A native file has an ``(mclheader ...)`` section with the dimensions, an
optional domain section (``(mcldoms ...)``, or ``(mclrows ...)`` and
``(mclcols ...)``) when the node indices are not ``0 .. N-1``, and an
``(mclmatrix begin ... )`` section with one line per column::

    <col> <row>[:<value>] <row>[:<value>] ... $

A graph is a square matrix whose column ``j`` lists the arcs out of node
``j``; a clustering is an N x K matrix whose column ``c`` lists the nodes of
cluster ``c``.
"""

import logging

import numpy as np

from ..exceptions import InputFileError, ParameterError
from ..graph import SparseGraph
from ..engines.cpu._compiled import kernels
from ..sparse import CscMatrix, distinct
from . import _codes
from ._files import atomic_write, display_name, read_input_bytes
from ._sniff import checked_text

__all__ = [
    "read_mci",
    "write_mci",
    "read_tab",
    "write_tab",
    "read_native_clustering",
    "write_native_clustering",
    "looks_native",
]

log = logging.getLogger("netmcl")

_BINARY_COOKIE = b"\x1b\xc2\x4d\xe8"
#: mcl wraps vector lines once they are longer than this minus the lead width.
_LINE_WIDTH = 70
#: significant digits of values in native files (mcl's default, ``-digits``).
DIGITS = 7

_ENTRY_ERRORS = {
    _codes.E_SYNTAX: "Expected a node index, '$' (end of column) or ')' (end of matrix) here.",
    _codes.E_NEG_INDEX: "Node indices must not be negative.",
    _codes.E_EOF: (
        "The file ends inside the matrix; it is truncated (a column must end with '$' and the matrix with ')')."
    ),
    _codes.E_BAD_NUMBER: "A value after ':' must be a decimal number.",
    _codes.E_NONFINITE: "Matrix values must be finite numbers.",
    _codes.E_NEGATIVE: "Matrix values must not be negative: MCL needs similarities >= 0.",
    _codes.E_TOO_LARGE: f"A value above {_codes.FLT_MAX:.4g}, the largest float32 (mcl stores values as float32).",
}


class _NativeMatrix:
    """What a native file holds: the domains and the entries as (column id, row id, value)."""

    def __init__(self, row_ids, col_ids, cols, rows, vals, canonical):
        self.row_ids = row_ids
        self.col_ids = col_ids
        self.cols = cols
        self.rows = rows
        self.vals = vals
        self.canonical = canonical


def _line_of(data, pos):
    return data.count(b"\n", 0, pos) + 1


def _domain(data, start, name):
    """Parse a domain vector ``<id> <id> ... $ )`` starting at `start`; returns (sorted ids, end)."""
    end = data.find(b"$", start)
    close = data.find(b")", end + 1) if end >= 0 else -1
    if close < 0:
        raise InputFileError(
            name, "A domain section is not closed by '$' and ')'.", line=_line_of(data, start)
        )
    tokens = [t.split(b":")[0] for line in data[start:end].split(b"\n") for t in line.split(b"#")[0].split()]
    try:
        ids = np.array([int(t) for t in tokens], dtype=np.int64)
    except ValueError:
        raise InputFileError(
            name, "A domain section must list non-negative node indices.", line=_line_of(data, start)
        ) from None
    if ids.size and ids.min() < 0:
        raise InputFileError(name, "Domain indices must not be negative.", line=_line_of(data, start))
    return distinct(ids), close + 1


def _parse_native(data, name):
    """Parse a native matrix file into a :class:`_NativeMatrix`."""
    if data.startswith(_BINARY_COOKIE):
        raise InputFileError(
            name,
            "This is mcl's binary matrix format, which netmcl does not read; convert it with "
            "'mcxconvert FILE FILE.mci' first.",
        )
    data = checked_text(data, name, "native matrix")
    start = data.find(b"(mclheader")
    if start < 0:
        raise InputFileError(
            name,
            "No '(mclheader' found: this is not an mcl native matrix. If it is a label file "
            "('label label [weight]' lines), pass --abc on the command line or use netmcl.read_abc().",
        )
    header = {}
    pos = data.find(b"\n", start)
    while pos >= 0:
        nxt = data.find(b"\n", pos + 1)
        line = data[pos + 1 : nxt if nxt >= 0 else len(data)]
        pos = nxt
        if line.startswith(b")"):
            break
        fields = line.split()
        if len(fields) >= 2:
            header[fields[0]] = fields[1]
    else:
        raise InputFileError(name, "The (mclheader section is not closed by ')'.", line=_line_of(data, start))
    header_line = _line_of(data, start)
    if header.get(b"mcltype") != b"matrix":
        raise InputFileError(
            name, "The header must say 'mcltype matrix'.", line=header_line, value=str(header.get(b"mcltype"))
        )
    dims = header.get(b"dimensions", b"").decode("ascii", "replace")
    n_rows, _, n_cols = dims.partition("x")
    if not (n_rows.isdigit() and n_cols.isdigit()):
        raise InputFileError(
            name, "The header must give 'dimensions <rows>x<columns>'.", line=header_line, value=dims
        )
    n_rows, n_cols = int(n_rows), int(n_cols)
    row_ids = col_ids = None
    pos += 1
    while True:
        nxt = data.find(b"\n", pos)
        if nxt < 0:
            raise InputFileError(name, "No '(mclmatrix' section found.", line=_line_of(data, len(data)))
        line = data[pos:nxt]
        if not line.startswith(b"(mcl"):
            pos = nxt + 1
            continue
        section = line.split()[0]
        if section == b"(mclmatrix":
            begin = data.find(b"begin", nxt)
            if begin < 0:
                raise InputFileError(name, "The (mclmatrix section has no 'begin'.", line=_line_of(data, pos))
            pos = begin + len(b"begin")
            break
        if section == b"(mcldoms" and row_ids is None and col_ids is None:
            row_ids, pos = _domain(data, nxt + 1, name)
            col_ids = row_ids
        elif section == b"(mclrows" and row_ids is None:
            row_ids, pos = _domain(data, nxt + 1, name)
        elif section == b"(mclcols" and col_ids is None:
            col_ids, pos = _domain(data, nxt + 1, name)
        else:
            raise InputFileError(
                name,
                "Unknown or repeated section in an mcl native file.",
                line=_line_of(data, pos),
                value=line.decode("utf-8", "replace"),
            )
    canonical = row_ids is None and col_ids is None
    for ids, count, what in ((row_ids, n_rows, "row"), (col_ids, n_cols, "column")):
        if ids is not None and ids.size != count:
            raise InputFileError(
                name,
                f"The {what} domain lists {ids.size} indices but the dimensions say {count}.",
                line=header_line,
            )
    row_ids = np.arange(n_rows, dtype=np.int64) if row_ids is None else row_ids
    col_ids = np.arange(n_cols, dtype=np.int64) if col_ids is None else col_ids

    buf = np.frombuffer(data, dtype=np.uint8)
    cols, rows, vals, vstat, spans, listing, ne, err, err_line, lo, hi = kernels().scan_native(
        buf, pos, _line_of(data, pos), _codes.POW10
    )
    cols, rows, vals, vstat, spans, listing = (
        cols[:ne],
        rows[:ne],
        vals[:ne],
        vstat[:ne],
        spans[:ne],
        listing[:ne],
    )
    slow = np.flatnonzero(vstat == _codes.V_SLOW)
    k = _codes.convert_slow(data, vals, slow, spans[slow, 1], spans[slow, 2])
    if k >= 0:
        k = slow[k]
        err, err_line, lo, hi = _codes.E_TOO_LARGE, _line_of(data, spans[k, 1]), spans[k, 1], spans[k, 2]
    if err != _codes.E_NONE:
        raise InputFileError(
            name,
            _ENTRY_ERRORS[err],
            line=int(err_line),
            value=data[lo : max(hi, lo + 1)].decode("utf-8", "replace")[:80],
        )
    keep = vals != 0.0
    cols, rows, vals, spans, listing = cols[keep], rows[keep], vals[keep], spans[keep], listing[keep]
    for ids, got, what in ((col_ids, cols, "column"), (row_ids, rows, "row")):
        alien = ~_member(got, ids)
        if alien.any():
            k = int(np.flatnonzero(alien)[0])
            raise InputFileError(
                name,
                f"The {what} index is outside the matrix's {what} domain "
                + (f"0..{ids.size - 1}." if canonical else "(its (mcldoms/(mclrows/(mclcols section)."),
                line=_line_of(data, spans[k, 0]),
                value=str(int(got[k])),
            )
    cols, rows, vals = _merge_entries(cols, rows, vals, listing)
    return _NativeMatrix(row_ids, col_ids, cols, rows, vals, canonical)


def _member(values, sorted_ids):
    pos = np.searchsorted(sorted_ids, values)
    pos[pos == sorted_ids.size] = 0
    return sorted_ids[pos] == values if sorted_ids.size else np.zeros(values.size, dtype=bool)


def _merge_entries(cols, rows, vals, listing):
    """mcl's merge of repeated entries: the first within one column listing, the largest across listings."""
    vals = vals.astype(np.float32)
    order = np.lexsort((np.arange(cols.size), listing, rows, cols))
    cols, rows, vals, listing = cols[order], rows[order], vals[order], listing[order]
    if cols.size:
        new_pair = np.ones(cols.size, dtype=bool)
        new_pair[1:] = (cols[1:] != cols[:-1]) | (rows[1:] != rows[:-1])
        first_in_listing = new_pair.copy()
        first_in_listing[1:] |= listing[1:] != listing[:-1]
        cols, rows, vals, new_pair = (
            cols[first_in_listing],
            rows[first_in_listing],
            vals[first_in_listing],
            new_pair[first_in_listing],
        )
        starts = np.flatnonzero(new_pair)
        vals = np.maximum.reduceat(vals, starts)
        cols, rows = cols[starts], rows[starts]
    return cols, rows, vals


def read_tab(path):
    """Read an mcl label table (``mcxload -write-tab``): ``<index><TAB><label>`` per line.

    Returns
    -------
    dict
        Node index (int) -> label (str).

    Examples
    --------
    >>> import io
    >>> read_tab(io.BytesIO(b"0\\tcat\\n1\\tthe hat\\n"))
    {0: 'cat', 1: 'the hat'}
    """
    name = display_name(path)
    text = checked_text(read_input_bytes(path), name, "label table").decode("utf-8", "surrogateescape")
    tab = {}
    for number, line in enumerate(text.split("\n"), 1):
        if not line or line.startswith("#"):
            continue
        index, sep, label = line.partition("\t")
        if not sep or not index.isdigit():
            raise InputFileError(
                name, "A label table line must be '<index><TAB><label>'.", line=number, value=line[:80]
            )
        tab[int(index)] = label
    return tab


def write_tab(path, labels, *, ids=None):
    """Write an mcl label table: ``<index><TAB><label>`` per node.

    Parameters
    ----------
    path : str, os.PathLike or text file object
        Written atomically; ``"-"`` is standard output.
    labels : sequence
        The labels, in node order.
    ids : sequence of int, optional
        The node indices (default ``0 .. len(labels) - 1``).

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> write_tab(out, ["cat", "hat"])
    >>> out.getvalue()
    '0\\tcat\\n1\\that\\n'
    """
    ids = range(len(labels)) if ids is None else ids
    with atomic_write(path) as fh:
        fh.write("".join(f"{i}\t{label}\n" for i, label in zip(ids, labels)))


def read_mci(path, *, tab=None):
    """Read a graph in mcl's native matrix format, as ``mcl FILE`` reads it.

    The matrix is taken as is, not symmetrised: column ``j`` lists the arcs
    out of node ``j`` (make the graph undirected with ``mcxload
    --stream-mirror`` or ``read_mci(...)`` then ``netmcl.mcl(...,
    symmetrize=True)``).  A missing value is 1.0 and values of 0 are
    dropped; within one column listing a repeated entry keeps its first
    value, a column listed twice keeps the larger value of an entry, all as
    mcl does.

    Parameters
    ----------
    path : str, os.PathLike or binary file object
        The file (gzip, bzip2 and xz are decompressed; ``"-"`` is standard
        input).
    tab : str, os.PathLike or file object, optional
        A label table (``mcxload -write-tab``) giving each index its label,
        like mcl's ``-use-tab``; indices missing from it are labelled
        ``?_<index>``, as mcl does.

    Returns
    -------
    SparseGraph
        Nodes in increasing index order.  Labels: from `tab`; else the
        indices (int), which are ``0 .. N-1`` unless the file has a domain
        section.

    Raises
    ------
    InputFileError
        For a file that is not a native matrix, a binary one, a matrix that
        is not square or whose row and column domains differ, an index
        outside the domain, a value that is not a finite, non-negative
        number, or a truncated file; with the line and the offending text.

    Notes
    -----
    mcl reports indices outside the domain and goes on without them;
    netmcl stops, since such a file is damaged.  mcl also accepts negative
    or non-finite values, which make the MCL process meaningless; netmcl
    refuses them.  Binary matrices (``mcxconvert``) are not read.

    Examples
    --------
    >>> import io
    >>> text = b"(mclheader\\nmcltype matrix\\ndimensions 3x3\\n)\\n(mclmatrix\\nbegin\\n0 1:0.5 $\\n1 0:0.5 2 $\\n)\\n"
    >>> g = read_mci(io.BytesIO(text))
    >>> g.labels, g.matrix.toarray().tolist()
    ([0, 1, 2], [[0.0, 0.5, 0.0], [0.5, 0.0, 0.0], [0.0, 1.0, 0.0]])
    """
    name = display_name(path)
    m = _parse_native(read_input_bytes(path), name)
    if m.row_ids.size != m.col_ids.size or not np.array_equal(m.row_ids, m.col_ids):
        raise InputFileError(
            name,
            f"This {m.row_ids.size}x{m.col_ids.size} matrix is not a graph: MCL needs a square matrix with "
            "the same row and column indices. Is it a clustering? Read those with read_clusters.",
        )
    ids = m.row_ids
    n = ids.size
    rows = np.searchsorted(ids, m.rows)
    cols = np.searchsorted(ids, m.cols)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(cols, minlength=n), out=indptr[1:])
    matrix = CscMatrix(indptr, rows, m.vals, n)
    if tab is not None:
        names = read_tab(tab)
        labels = [names.get(i, f"?_{i}") for i in ids.tolist()]
    else:
        labels = ids.tolist()
    graph = SparseGraph(matrix, labels=labels)
    log.info("read %s: native %dx%d matrix, %d arcs", name, n, n, graph.nnz)
    return graph


def _native_ids(labels):
    """Node indices for a native file: the labels when they are distinct non-negative ints, else positions."""
    if all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) and x >= 0 for x in labels):
        ids = np.asarray(labels, dtype=np.int64)
        if distinct(ids).size == ids.size:
            return ids
    return np.arange(len(labels), dtype=np.int64)


def _lead_width(max_id):
    """mcl's lead width: ``floor(log10(max_id + 1)) + 2``."""
    return len(str(max_id + 1)) + 1


def _vector_text(vid, tokens, lead):
    """One column as mcl writes it: id, padding, entries wrapped at 70 - `lead` characters, ``$``."""
    parts = []
    if vid is None:
        width = 0
    else:
        head = str(vid)
        parts.append(head.ljust(lead - 1))
        width = max(len(head), lead - 1)
    last = len(tokens) - 1
    for d, tok in enumerate(tokens):
        parts.append(tok)
        width += len(tok)
        if width > _LINE_WIDTH - lead and d < last:
            if vid is None:
                parts.append("\n")
                width = 0
            else:
                parts.append("\n" + " " * (lead + 1))
                width = lead + 1
    parts.append(" $\n")
    return "".join(parts)


def _write_native(fh, n_rows, n_cols, columns, *, row_ids=None, col_ids=None, graph=False):
    """Write a native matrix: `columns` is a list of (column id, list of entry strings) for non-empty columns."""
    rows_canonical = row_ids is None
    max_row = n_rows - 1 if rows_canonical else int(row_ids[-1]) if len(row_ids) else -1
    lead = _lead_width(max(max_row, 0))
    fh.write(f"(mclheader\nmcltype matrix\ndimensions {n_rows}x{n_cols}\n)\n")
    if graph and not rows_canonical:
        fh.write("(mcldoms\n" + _vector_text(None, [f" {i}" for i in row_ids.tolist()], lead) + ")\n")
    else:
        for ids, section in ((row_ids, "(mclrows"), (col_ids, "(mclcols")):
            if ids is not None:
                fh.write(section + "\n" + _vector_text(None, [f" {i}" for i in ids.tolist()], lead) + ")\n")
    fh.write("(mclmatrix\nbegin\n")
    for vid, tokens in columns:
        fh.write(_vector_text(vid, tokens, lead))
    fh.write(")\n")


def write_mci(path, graph, *, tab=None):
    """Write a graph in mcl's native matrix format, byte for byte as mcl's tools write it.

    Values are written with 7 significant digits (mcl's default).  Node
    indices are the labels when these are distinct non-negative integers (a
    domain section is written when they are not ``0 .. N-1``), else the node
    positions; `tab` then receives the labels (``mcxload -write-tab`` format)
    so that ``mcl FILE -use-tab TAB`` writes labels.

    Parameters
    ----------
    path : str, os.PathLike or text file object
        Written atomically; ``"-"`` is standard output.
    graph : SparseGraph
    tab : str, os.PathLike or text file object, optional
        Where to write the label table.

    Examples
    --------
    >>> import io
    >>> from netmcl.graph import SparseGraph
    >>> out = io.StringIO()
    >>> write_mci(out, SparseGraph.from_edges([0, 1], [1, 2], [0.2, 1.0]))
    >>> print(out.getvalue(), end="")
    (mclheader
    mcltype matrix
    dimensions 3x3
    )
    (mclmatrix
    begin
    0 1:0.2 $
    1 0:0.2 2:1 $
    2 1:1 $
    )
    """
    if not isinstance(graph, SparseGraph):
        raise ParameterError(f"write_mci writes a SparseGraph. Got {type(graph).__name__} instead.")
    import scipy.sparse as sp

    m = graph.matrix
    ids = _native_ids(graph.labels)
    order = np.argsort(ids, kind="stable")
    sorted_ids = ids[order]
    canonical = np.array_equal(sorted_ids, np.arange(ids.size))
    m = m[order][:, order] if not np.array_equal(order, np.arange(ids.size)) else m
    m = sp.csc_array(m)
    m.sort_indices()
    columns = []
    id_list = sorted_ids.tolist()
    for j in range(m.shape[1]):
        lo, hi = m.indptr[j], m.indptr[j + 1]
        if hi > lo:
            tokens = [
                f" {id_list[r]}:{float(v):.{DIGITS}g}"
                for r, v in zip(m.indices[lo:hi].tolist(), m.data[lo:hi].tolist())
            ]
            columns.append((id_list[j], tokens))
    with atomic_write(path) as fh:
        _write_native(fh, ids.size, ids.size, columns, row_ids=None if canonical else sorted_ids, graph=True)
    if tab is not None:
        write_tab(tab, [graph.labels[k] for k in order.tolist()], ids=id_list)


def read_native_clustering(path):
    """Read a clustering in mcl's native format (what ``mcl FILE`` writes without ``--abc``).

    Returns
    -------
    list of list of int
        The node indices of each cluster, in file order; empty clusters are
        left out.

    Examples
    --------
    >>> import io
    >>> text = b"(mclheader\\nmcltype matrix\\ndimensions 6x2\\n)\\n(mclmatrix\\nbegin\\n0 0 1 2 $\\n1 3 4 5 $\\n)\\n"
    >>> read_native_clustering(io.BytesIO(text))
    [[0, 1, 2], [3, 4, 5]]
    """
    return clusters_from_native(read_input_bytes(path), display_name(path))


def clusters_from_native(data, name):
    """The clusters of the native cluster matrix in the bytes `data` (`name` for messages)."""
    m = _parse_native(data, name)
    order = np.lexsort((m.rows, m.cols))
    cols, rows = m.cols[order], m.rows[order]
    bounds = np.flatnonzero(np.diff(cols)) + 1
    return [c.tolist() for c in np.split(rows, bounds)] if rows.size else []


def write_native_clustering(path, clustering, *, n_nodes=None):
    """Write a clustering as mcl writes it for native input (without mcl's ``# cline`` comment).

    Parameters
    ----------
    path : str, os.PathLike or text file object
        Written atomically; ``"-"`` is standard output.
    clustering : Clustering or list of list of int
        A :class:`~netmcl.Clustering`: the node indices are its labels when
        these are distinct non-negative integers (a graph read by
        :func:`read_mci`), else the node positions.  A list of lists: node
        indices.
    n_nodes : int, optional
        For a list of lists, the number of nodes (default: largest index + 1).

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> write_native_clustering(out, [[0, 1, 2], [3, 4, 5]])
    >>> print(out.getvalue(), end="")
    (mclheader
    mcltype matrix
    dimensions 6x2
    )
    (mclmatrix
    begin
    0 0 1 2 $
    1 3 4 5 $
    )
    """
    if hasattr(clustering, "index_clusters"):
        ids = _native_ids(clustering.labels)
        clusters = [np.sort(ids[c]) for c in clustering.index_clusters]
        domain = np.sort(ids)
    else:
        clusters = []
        for c in clustering:
            c = np.asarray(list(c))
            if c.size and (c.dtype.kind not in "iu" or c.min() < 0):
                raise ParameterError(
                    "A native clustering holds non-negative integer node indices. "
                    f"Got {c.tolist()[:5]!r} instead; use write_clusters for labels."
                )
            clusters.append(np.sort(c.astype(np.int64)))
        top = max((int(c[-1]) for c in clusters if c.size), default=-1)
        domain = np.arange(max(top + 1, n_nodes or 0), dtype=np.int64)
    canonical = np.array_equal(domain, np.arange(domain.size))
    columns = [(k, [f" {i}" for i in c.tolist()]) for k, c in enumerate(clusters) if c.size]
    with atomic_write(path) as fh:
        _write_native(fh, domain.size, len(clusters), columns, row_ids=None if canonical else domain)


def looks_native(data):
    """True when the bytes `data` are an mcl native matrix: ``(mclheader`` after optional ``#`` lines.

    Examples
    --------
    >>> looks_native(b"# cline: mcl x.mci\\n(mclheader\\nmcltype matrix\\n"), looks_native(b"a\\tb\\n")
    (True, False)
    """
    if data.startswith(_BINARY_COOKIE):
        return True
    for line in data[:65536].split(b"\n"):
        line = line.strip()
        if line and not line.startswith(b"#"):
            return line.startswith(b"(mclheader")
    return False
