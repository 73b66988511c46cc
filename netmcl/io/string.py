"""STRING networks in: download files, API and web exports, R STRINGdb tables.

:func:`read_string` recognises the file by its header line, so a header never
becomes a node, and returns a NetworkX graph ready for :func:`netmcl.mcl`:

=====================  ===============================================  =========
file                   header (first columns)                           scores
=====================  ===============================================  =========
``protein.links``      ``protein1 protein2 combined_score``             0..1000
``….links.detailed``   ``protein1 protein2 neighborhood … combined_score``  0..1000
``….links.full``       ``protein1 protein2 neighborhood … combined_score``  0..1000
API ``network`` TSV    ``stringId_A stringId_B preferredName_A …``      0..1
web export TSV         ``#node1 node2 node1_string_id …``               0..1
R STRINGdb table       ``from to [channels…] combined_score``           0..1000
=====================  ===============================================  =========

Files may be gzip-, bzip2- or xz-compressed, space-, TAB- or comma-separated
(with R's quoted headers and row names).  ``protein.info`` and
``protein.aliases`` files, or the table R's ``STRINGdb$map()`` returns, give
the proteins' preferred names.
"""

import bz2
import codecs
import csv
import gzip
import hashlib
import io
import lzma
import os
import sys

from ..exceptions import InputFileError, ParameterError
from ._files import display_name
from ._sniff import refuse_nul, text_start

__all__ = ["read_string", "CHANNELS"]

#: Evidence channels, by the names used in ``protein.links.full`` (plus
#: ``experimental`` of ``protein.links.detailed``).
CHANNELS = (
    "combined_score",
    "neighborhood",
    "neighborhood_transferred",
    "fusion",
    "cooccurence",
    "homology",
    "coexpression",
    "coexpression_transferred",
    "experimental",
    "experiments_transferred",
    "database",
    "database_transferred",
    "textmining",
    "textmining_transferred",
)

# Column names of each format mapped to the channel names above.
_API_COLUMNS = {
    "score": "combined_score",
    "nscore": "neighborhood",
    "fscore": "fusion",
    "pscore": "cooccurence",
    "ascore": "coexpression",
    "escore": "experimental",
    "dscore": "database",
    "tscore": "textmining",
}
_WEB_COLUMNS = {
    "neighborhood_on_chromosome": "neighborhood",
    "gene_fusion": "fusion",
    "phylogenetic_cooccurrence": "cooccurence",
    "homology": "homology",
    "coexpression": "coexpression",
    "experimentally_determined_interaction": "experimental",
    "database_annotated": "database",
    "automated_textmining": "textmining",
    "combined_score": "combined_score",
}
# user spellings -> channel
_SYNONYMS = {
    "combined": "combined_score",
    "score": "combined_score",
    "cooccurrence": "cooccurence",
    "experiments": "experimental",
    "experiment": "experimental",
}

_KNOWN_HEADERS = (
    "'protein1 protein2 combined_score' (protein.links), 'stringId_A stringId_B ...' (API network), "
    "'#node1 node2 node1_string_id ...' (web export) or 'from to combined_score' (R STRINGdb)"
)

_MAGIC = ((b"\x1f\x8b", gzip.open), (b"BZh", bz2.open), (b"\xfd7zXZ\x00", lzma.open))


class _Lines:
    """The lines of a text file (compressed or not), decoded, with a running sha256 of the content."""

    def __init__(self, source):
        self.name = display_name(source)
        self.sha256 = hashlib.sha256()
        self.line = 0
        self._close = None
        try:
            if isinstance(source, (str, os.PathLike)):
                raw = sys.stdin.buffer if os.fspath(source) == "-" else open(source, "rb")
                self._close = None if raw is sys.stdin.buffer else raw
            else:
                raw = source
            if isinstance(raw, io.TextIOBase):
                raw = io.BytesIO(raw.read().encode("utf-8", "surrogateescape"))
            head = raw.peek(6)[:6] if hasattr(raw, "peek") else b""
            if not head and hasattr(raw, "seek"):
                head = raw.read(6)
                raw.seek(0)
            self._stream = raw
            for magic, opener in _MAGIC:
                if head.startswith(magic):
                    self._stream = opener(raw, "rb")
                    break
        except FileNotFoundError:
            raise InputFileError(self.name, "No such file; check the path and the current directory.") from None
        except IsADirectoryError:
            raise InputFileError(self.name, "This is a directory, not a file.") from None
        except OSError as exc:
            raise InputFileError(self.name, f"Cannot read this file: {exc.strerror or exc}.") from None

    def __iter__(self):
        rest = ""
        decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        first = True
        try:
            while True:
                block = self._stream.read(1 << 22)
                if not block:
                    break
                self.sha256.update(block)
                if first:  # a byte-order mark dropped, UTF-16 or binary refused
                    block, first = block[text_start(block, self.name, "STRING network file") :], False
                refuse_nul(block, self.name, self.line)
                lines = (rest + decoder.decode(block)).split("\n")
                rest = lines.pop()
                for text in lines:
                    self.line += 1
                    yield text.rstrip("\r")
            if rest:
                self.line += 1
                yield rest.rstrip("\r")
        except (OSError, EOFError, lzma.LZMAError) as exc:
            raise InputFileError(self.name, f"The compressed data is corrupt or truncated ({exc}).") from None
        finally:
            if self._close is not None:
                self._close.close()

    def error(self, message, value=None):
        return InputFileError(self.name, message, line=self.line, value=value)


def _splitter(header):
    """A function splitting a line of this file into unquoted fields."""
    if "\t" in header:
        delimiter = "\t"
    elif "," in header:
        delimiter = ","
    else:
        return str.split
    if '"' not in header:
        return lambda line: line.split(delimiter)
    return lambda line: next(csv.reader([line], delimiter=delimiter, strict=False))


def _header_cells(cells):
    return [c.strip().lstrip("#").strip() for c in cells]


class _Table:
    """The rows of a delimited file with a header; R's row names dropped."""

    def __init__(self, lines):
        self.lines = lines
        self._iter = iter(lines)
        for text in self._iter:
            if text.strip():
                self.split = _splitter(text)
                self.raw_header = text
                self.header = _header_cells(self._cells(text))
                break
        else:
            raise InputFileError(lines.name, "The file is empty.")
        # write.csv: an empty first header cell over the row names
        self.skip = 1 if self.header and self.header[0] == "" else 0
        self.header = self.header[self.skip :]

    def _cells(self, text):
        try:
            return self.split(text)
        except csv.Error as exc:  # a carriage return inside an unquoted field, ...
            raise self.lines.error(f"This line cannot be split into fields ({exc}).", value=text[:120]) from None

    def rows(self):
        width = len(self.header)
        for text in self._iter:
            if not text.strip():
                continue
            cells = self._cells(text)
            if len(cells) == width + 1 and not self.skip:  # write.table: row names, no header cell
                cells = cells[1:]
            elif self.skip:
                cells = cells[self.skip :]
            yield cells


def _detect(header, name):
    """(format, id columns, name columns, scale, {column index: channel})."""
    lower = [h.lower() for h in header]

    def channels(mapping=None):
        found = {}
        for k, h in enumerate(lower[2:], start=2):
            channel = mapping.get(h) if mapping is not None else h
            if channel is not None:
                found[k] = channel
        return found

    if lower[:2] == ["protein1", "protein2"]:
        return "protein.links", (0, 1), None, 1000.0, channels()
    if lower[:2] == ["from", "to"]:
        return "STRINGdb", (0, 1), None, 1000.0, channels()
    if lower[:2] == ["stringid_a", "stringid_b"]:
        both = "preferredname_a" in lower and "preferredname_b" in lower
        names = (lower.index("preferredname_a"), lower.index("preferredname_b")) if both else None
        return "STRING API network", (0, 1), names, 1.0, channels(_API_COLUMNS)
    if lower[:2] == ["node1", "node2"]:
        for a, b in (("node1_string_id", "node2_string_id"), ("node1_external_id", "node2_external_id")):
            if a in lower and b in lower:
                return "STRING web export", (lower.index(a), lower.index(b)), (0, 1), 1.0, channels(_WEB_COLUMNS)
        return "STRING web export", (0, 1), None, 1.0, channels(_WEB_COLUMNS)
    return None


def _canonical_channel(channel):
    key = str(channel).strip().lower()
    return _SYNONYMS.get(key, key)


def _check_min_score(min_score):
    if isinstance(min_score, bool) or not isinstance(min_score, (int, float)) or not 0 <= min_score <= 1000:
        raise ParameterError(
            "The 'min_score' parameter must be a score on STRING's 0-1000 scale (150 low, 400 medium, "
            f"700 high, 900 highest confidence). Got {min_score!r} instead."
        )
    if 0 < min_score < 1:
        raise ParameterError(
            "The 'min_score' parameter is on STRING's 0-1000 scale, also for files with 0-1 scores "
            f"(those are multiplied by 1000). Got {min_score!r} instead; did you mean {min_score * 1000:g}?"
        )


def read_string(
    path,
    *,
    min_score=400,
    channel="combined_score",
    info=None,
    aliases=None,
    alias_source=None,
    name_attribute="preferred_name",
):
    """Read a STRING network into a NetworkX graph ready for :func:`netmcl.mcl`.

    The file's kind is recognised from its header line (see the module
    documentation); every later line is an interaction.  An interaction is
    kept when its score in the chosen `channel` is ``>= min_score`` on the
    0-1000 scale (scores on the 0-1 scale, as in API and web exports, are
    multiplied by 1000 for the comparison).  Each kept interaction becomes an
    undirected edge whose ``weight`` is the score on the 0-1 scale (700 ->
    0.7), so every kind of file gives the same graph; a pair listed twice,
    in both orientations, keeps its largest score.

    Nodes are STRING ids (``9606.ENSP00000000233``) numbered in order of first
    appearance, as ``mcl --abc`` numbers them, so ``netmcl.mcl(G)`` gives
    exactly ``mcl``'s clusters of the same kept interactions.

    Parameters
    ----------
    path : str, os.PathLike or binary file object
        The network file; gzip, bzip2 or xz compressed or not.
    min_score : float, default 400
        Keep interactions scoring at least this, on the 0-1000 scale: 150
        (low), 400 (medium, STRING's default), 700 (high) or 900 (highest
        confidence); 0 keeps everything.
    channel : str, default "combined_score"
        The evidence channel used as score and weight: ``combined_score`` or
        one of the channels of the file (``neighborhood``, ``fusion``,
        ``cooccurence``, ``coexpression``, ``experimental``, ``database``,
        ``textmining``, ``homology`` and the ``_transferred`` ones of
        ``protein.links.full``), under STRING's names for them whatever the
        file's own column names are.
    info : path, optional
        A ``protein.info`` file (``#string_protein_id preferred_name ...``),
        or a table with a ``STRING_id`` column such as R's
        ``STRINGdb$map()`` output, whose first other column then gives the
        name.  Its other columns (``annotation``, your own data) become node
        attributes too.  These names replace those of the network file.
    aliases : path, optional
        A ``protein.aliases`` file; gives names to proteins `info` did not name.
    alias_source : str, optional
        The alias source to take names from (e.g. ``"Ensembl_HGNC_symbol"``,
        ``"BioMart_HUGO"``); default: the first alias listed for a protein.
    name_attribute : str, default "preferred_name"
        Node attribute for the names (API and web exports name proteins
        themselves).

    Returns
    -------
    networkx.Graph
        Edge attribute ``weight``; node attribute `name_attribute` where a
        name is known; ``G.graph`` holds ``source``, ``format``, ``channel``,
        ``min_score`` and ``sha256`` (of the decompressed file).

    Raises
    ------
    InputFileError
        For a file that is not a STRING network (unknown header), a line
        with missing fields or a score that is not a number in range, with
        the file, line and value.
    ParameterError
        For a `min_score` off the 0-1000 scale or a `channel` the file lacks.

    See Also
    --------
    netmcl.mcl, netmcl.io.tables.to_frame

    Examples
    --------
    >>> import io
    >>> links = io.BytesIO(
    ...     b"protein1 protein2 combined_score\\n"
    ...     b"9606.A 9606.B 800\\n9606.B 9606.A 800\\n9606.B 9606.C 450\\n9606.C 9606.D 990\\n")
    >>> G = read_string(links, min_score=700)
    >>> list(G.nodes), G["9606.A"]["9606.B"]["weight"]
    (['9606.A', '9606.B', '9606.C', '9606.D'], 0.8)
    >>> G.number_of_edges()
    2
    """
    import networkx as nx

    _check_min_score(min_score)
    lines = _Lines(path)
    table = _Table(lines)
    detected = _detect(table.header, lines.name)
    if detected is None:
        raise InputFileError(
            lines.name,
            f"This is not a STRING network file: its first line should be a header such as {_KNOWN_HEADERS}. "
            "For a plain edge list use netmcl.read_abc.",
            line=lines.line,
            value=table.raw_header[:120],
        )
    kind, (ia, ib), names, scale, columns = detected
    wanted = _canonical_channel(channel)
    by_channel = {c: k for k, c in columns.items()}
    if kind == "protein.links" and wanted == "experimental" and "experiments" in by_channel:
        wanted = "experiments"  # protein.links.full spells it so
    if wanted not in by_channel:
        available = sorted(by_channel)
        raise ParameterError(
            f"The 'channel' parameter must name a score column of {lines.name} ({kind}): one of "
            f"{available}. Got {channel!r} instead."
        )
    k_score = by_channel[wanted]
    needed = max(ia, ib, k_score, *(names or (0,))) + 1
    threshold = float(min_score) / (1000.0 / scale)  # on the file's own scale
    tolerance = 1e-9 * scale

    ids = {}
    weights = {}
    labels = {}
    for cells in table.rows():
        if len(cells) < needed:
            raise lines.error(
                f"This line has {len(cells)} fields; a {kind} line needs {len(table.header)} "
                f"({' '.join(table.header)}).",
                value=" ".join(cells)[:120],
            )
        text = cells[k_score].strip()
        try:
            score = float(text)
        except ValueError:
            raise lines.error(f"The {table.header[k_score]} score must be a number.", value=text) from None
        if not 0 <= score <= scale:
            raise lines.error(
                f"The {table.header[k_score]} score of a {kind} file must lie in 0..{scale:g}.", value=text
            )
        if score < threshold - tolerance:
            continue
        a, b = cells[ia].strip(), cells[ib].strip()
        if not a or not b:
            raise lines.error("A protein id is empty.", value=" ".join(cells)[:120])
        ida = ids.setdefault(a, len(ids))
        idb = ids.setdefault(b, len(ids))
        if names is not None:
            labels.setdefault(a, cells[names[0]].strip())
            labels.setdefault(b, cells[names[1]].strip())
        if score > 0:
            weight = score / scale
            key = (ida, idb) if ida <= idb else (idb, ida)
            if weight > weights.get(key, -1.0):
                weights[key] = weight

    G = nx.Graph(
        source=lines.name,
        format=kind,
        channel=wanted,
        min_score=min_score,
        sha256=lines.sha256.hexdigest(),
    )
    G.add_nodes_from(ids)
    nodes = list(ids)
    G.add_weighted_edges_from((nodes[i], nodes[j], w) for (i, j), w in weights.items())
    if labels:
        nx.set_node_attributes(G, labels, name_attribute)
    if info is not None:
        _add_info(G, info, name_attribute)
    if aliases is not None:
        _add_aliases(G, aliases, alias_source, name_attribute)
    return G


def _add_info(G, path, name_attribute):
    """Node names (and other columns) from a protein.info file or a STRINGdb map() table."""
    lines = _Lines(path)
    table = _Table(lines)
    lower = [h.lower() for h in table.header]
    if lower and lower[0] in ("string_protein_id", "protein_external_id"):
        id_col = 0
        columns = {k: h for k, h in enumerate(table.header) if k != id_col and lower[k] != "protein_size"}
        name_col = lower.index("preferred_name") if "preferred_name" in lower else None
    elif "string_id" in lower:
        id_col = lower.index("string_id")
        columns = {k: h for k, h in enumerate(table.header) if k != id_col}
        name_col = min(columns) if columns else None
    else:
        raise InputFileError(
            lines.name,
            "This is neither a STRING protein.info file (header '#string_protein_id preferred_name ...') "
            "nor a table with a STRING_id column (R's STRINGdb$map() output).",
            line=lines.line,
            value=table.raw_header[:120],
        )
    for cells in table.rows():
        if len(cells) <= id_col:
            raise lines.error("This line has too few fields.", value=" ".join(cells)[:120])
        node = cells[id_col].strip()
        if node not in G:
            continue
        attrs = G.nodes[node]
        for k, column in columns.items():
            value = cells[k].strip() if k < len(cells) else ""
            if value:
                attrs[name_attribute if k == name_col else column] = value


def _add_aliases(G, path, source, name_attribute):
    """Names from a protein.aliases file for nodes that have none yet."""
    lines = _Lines(path)
    it = iter(lines)
    for text in it:
        if text.strip():
            first = text
            break
    else:
        raise InputFileError(lines.name, "The file is empty.")
    header = first.lstrip("#").split()
    if not header or header[0].lower() != "string_protein_id":
        raise InputFileError(
            lines.name,
            "This is not a STRING protein.aliases file: its first line should be "
            "'#string_protein_id alias source'.",
            line=lines.line,
            value=first[:120],
        )
    for text in it:
        cells = text.split("\t")
        if len(cells) < 2:
            if text.strip():
                raise lines.error("An alias line needs a protein id and an alias, separated by a TAB.", value=text[:120])
            continue
        node = cells[0].strip()
        if node not in G or name_attribute in G.nodes[node]:
            continue
        if source is not None and (len(cells) < 3 or source not in cells[2].split()):
            continue
        G.nodes[node][name_attribute] = cells[1].strip()
