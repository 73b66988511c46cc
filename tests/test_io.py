"""mcl's file formats: label input, native matrices, cluster files, atomic output.

Three kinds of reference: a plain line-by-line parser written here from the
format's rules (the oracle for read_abc, run on real networks and on fuzzed
files), the reference ``mcl``/``mcxload``/``mcxdump`` programs run live when
they are installed, and expected files in tests/data/io written by mcl 22-282
(make_fixtures.sh), checked everywhere.
"""

import bz2
import gzip
import io
import lzma
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import netmcl
from netmcl import InputFileError
from netmcl.io import atomic_write, read_abc, read_clusters, read_mci, read_tab, write_clusters, write_mci
from netmcl.io.native import read_native_clustering, write_native_clustering
from netmcl.graph import SparseGraph

DATA = Path(__file__).parent / "data"
IO = DATA / "io"
NETWORKS = DATA / "networks"
REAL = sorted(NETWORKS.glob("*.txt.gz"))
FLT_MAX = float(np.finfo(np.float32).max)

needs_mcl = pytest.mark.skipif(
    not (shutil.which("mcl") and shutil.which("mcxload") and shutil.which("mcxdump")),
    reason="mcl, mcxload or mcxdump not on PATH: live comparisons with the reference skipped "
    "(the expected files in tests/data/io are still checked)",
)


# ---------------------------------------------------------------- the oracle


class OracleError(Exception):
    def __init__(self, kind, line):
        super().__init__(kind, line)
        self.kind, self.line = kind, line


NUMBER = re.compile(rb"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def oracle_read_abc(data, skip_header=False):
    """A line-by-line reader of label files written from the format's rules."""
    ids, edges = {}, {}
    header_pending = skip_header
    first_line = None
    for lineno, line in enumerate(data.split(b"\n"), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith(b"#"):
            continue
        if header_pending:
            header_pending = False
            continue
        first_line = first_line or lineno
        if b"\t" in line:
            a, rest = line.split(b"\t", 1)
            if not a.strip():
                raise OracleError("empty label", lineno)
            b, _, tail = rest.lstrip().partition(b"\t")
            if not b:
                raise OracleError("one field", lineno)
        else:
            fields = line.split()
            if len(fields) < 2:
                raise OracleError("one field", lineno)
            a, b, tail = fields[0], fields[1], b" ".join(fields[2:])
        token = tail.split()[0] if tail.split() else None
        if token is None:
            value = 1.0
        elif not NUMBER.fullmatch(token):
            word = token.lstrip(b"+-").lower()
            raise OracleError(
                "non-finite" if word in (b"inf", b"infinity", b"nan") else "not a number", lineno
            )
        else:
            value = float(token)
            mantissa = re.split(rb"[eE]", token)[0]
            if token.startswith(b"-") and re.search(rb"[1-9]", mantissa):
                raise OracleError("negative", lineno)
            if value > FLT_MAX:
                raise OracleError("too large", lineno)
        i = ids.setdefault(a, len(ids))
        j = ids.setdefault(b, len(ids))
        if value != 0:
            for key in ((j, i), (i, j)):
                edges[key] = max(edges.get(key, 0.0), value)
    if not ids:
        raise OracleError("empty", None)
    labels = [k.decode("utf-8", "surrogateescape") for k in ids]
    return labels, {k: float(np.float32(v)) for k, v in edges.items()}, first_line


KIND = {
    "one field": "single field",
    "empty label": "empty or blank",
    "not a number": "must be a decimal number",
    "non-finite": "finite",
    "negative": "must not be negative",
    "too large": "largest float32",
}


def entries(graph):
    coo = graph.matrix.tocoo()
    return {(int(r), int(c)): float(v) for r, c, v in zip(coo.row, coo.col, coo.data)}


def assert_same_as_oracle(data, skip_header=False):
    try:
        labels, edges, first_line = oracle_read_abc(data, skip_header)
    except OracleError as expected:
        with pytest.raises(InputFileError) as got:
            read_abc(io.BytesIO(data), skip_header=skip_header)
        assert got.value.line == expected.line
        if expected.kind == "empty":
            assert "no edges" in str(got.value)
        else:
            assert KIND[expected.kind] in str(got.value)
        return None
    g = read_abc(io.BytesIO(data), skip_header=skip_header)
    assert g.labels == labels
    assert entries(g) == edges
    return g


# ---------------------------------------------------------------- read_abc


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_read_abc_real_networks_match_the_oracle(path):
    data = gzip.decompress(path.read_bytes())
    g = assert_same_as_oracle(data)
    assert g.is_symmetric()


def test_read_abc_in_blocks_reads_the_same_graph(monkeypatch):
    """A file read a block at a time: the same labels and arrays whatever the blocks' size."""
    from netmcl.io import _files

    path = REAL[0]
    whole = read_abc(path)
    for size in (1000, 4097, 65536):
        monkeypatch.setattr(_files, "BLOCK_BYTES", size)
        g = read_abc(path)
        assert g.labels == whole.labels
        for name in ("indptr", "indices", "data"):
            assert np.array_equal(getattr(g.csc, name), getattr(whole.csc, name))


def test_read_abc_node_ids_widen_past_65536_labels(monkeypatch):
    """Ids are kept in 2 bytes while the labels fit, then widened: a file whose
    65,537th label comes in a later block reads as the oracle reads it."""
    from netmcl.graph import U16_NODES
    from netmcl.io import _files, abc

    widened = []
    monkeypatch.setattr(abc, "_widened", lambda ids, wide=abc._widened: widened.append(ids.size) or wide(ids))

    rng = np.random.default_rng(3)
    n = U16_NODES + 3000
    order = rng.permutation(n)
    a = np.concatenate([order, rng.integers(0, n, 20000)])  # every node, then edges among all of them
    b = np.concatenate([np.roll(order, 1), rng.integers(0, n, 20000)])
    text = "".join(f"n{x} n{y} {w}\n" for x, y, w in zip(a.tolist(), b.tolist(), rng.integers(1, 9, a.size).tolist()))
    monkeypatch.setattr(_files, "BLOCK_BYTES", 1 << 18)  # the labels pass 65,536 in the fourth block or later
    g = assert_same_as_oracle(text.encode())
    assert g.n == n and g.csc.indices.dtype == np.int32
    assert widened and min(widened) > 0  # ids of earlier blocks were widened


def test_values_of_real_files_parse_to_strtod_doubles():
    """Every weight of the real networks (up to 17 significant digits) parses to Python's (= strtod's) double."""
    from netmcl.io import _codes, _scan

    for path in REAL:
        data = gzip.decompress(path.read_bytes())
        tokens = [line.split()[2] for line in data.split(b"\n") if line.strip()]
        joined = b" ".join(tokens)
        buf = np.frombuffer(joined, dtype=np.uint8)
        pos = 0
        for token in tokens:
            status, value = _scan.parse_number(buf, pos, pos + len(token), _codes.POW10)
            if status == _codes.V_FAST:
                assert value == float(token), token
            else:
                assert status == _codes.V_SLOW, token
            pos += len(token) + 1


@pytest.mark.parametrize(
    "token, expected",
    [
        ("123", 123.0),
        ("0.5", 0.5),
        ("1e-5", 1e-5),
        ("1.5E+03", 1500.0),
        ("-0", 0.0),
        (".5", 0.5),
        ("5.", 5.0),
        ("+3", 3.0),
        ("0.1", 0.1),
        ("0.698753", 0.698753),
        ("1e22", 1e22),
        ("1e-22", 1e-22),
        ("9007199254740993", 9007199254740993.0),
        ("0.12345678901234567890123", 0.12345678901234567890123),
        ("1e23", 1e23),
        ("1e-50", 1e-50),
        ("1e-400", 0.0),
        ("000000000000000000000000001.5", 1.5),
        ("2.2250738585072011e-308", 2.2250738585072011e-308),
        ("3.4028234663852886e38", 3.4028234663852886e38),
    ],
)
def test_weights_parse_like_strtod(token, expected):
    g = read_abc(io.BytesIO(f"a b {token}\n".encode()), symmetrize=False)
    assert g.labels == ["a", "b"]
    stored = entries(g).get((1, 0))
    if expected == 0.0:
        assert stored is None  # a zero weight adds the nodes, not the edge
    else:
        assert stored == float(np.float32(expected))


@pytest.mark.parametrize(
    "text, line, kind, value",
    [
        ("a b 1\nprotein1\n", 2, "single field", "protein1"),
        ("a b 1\n\tb c\n", 2, "empty or blank", "\tb c"),
        ("a b 1\nc\t\n", 2, "single field", "c\t"),
        ("a b nan\n", 1, "finite", "nan"),
        ("a b 1\nc d -Infinity\n", 2, "finite", "-Infinity"),
        ("a b 1\n# c\nc d -0.5\n", 3, "must not be negative", "-0.5"),
        ("a b 1e39\n", 1, "largest float32", "1e39"),
        ("a b 1\nc d 1,5\n", 2, "must be a decimal number", "1,5"),
        ("a b 0x10\n", 1, "must be a decimal number", "0x10"),
        ("a b 0.5x\n", 1, "must be a decimal number", "0.5x"),
        ("a\tb\tweight\n", 1, "must be a decimal number", "weight"),
    ],
)
def test_read_abc_errors_name_line_and_value(tmp_path, text, line, kind, value):
    path = tmp_path / "bad.abc"
    path.write_text(text)
    with pytest.raises(InputFileError) as err:
        read_abc(path)
    message = str(err.value)
    assert err.value.line == line and err.value.path == str(path)
    assert message.startswith(f"{path}, line {line}: ")
    assert kind in message and f"Got {value!r}." in message
    assert "\n" not in message


def test_comma_separated_files_get_a_hint(tmp_path):
    path = tmp_path / "ppi.csv"
    path.write_text("YIL033C,YJL164C\n")
    with pytest.raises(InputFileError, match=r"line 1: .*single field.*contains a comma.*Got 'YIL033C,YJL164C'"):
        read_abc(path)


def test_native_matrix_read_as_labels_gets_a_hint():
    with pytest.raises(InputFileError, match=r"line 1: .*native matrix: read it with read_mci"):
        read_abc(IO / "random40.mci")


def test_read_abc_refuses_a_line_longer_than_the_longest(monkeypatch, tmp_path):
    """A file without line ends stops with an error naming the line (the scanner keeps int32 positions)."""
    from netmcl.io import _files, abc

    monkeypatch.setattr(_files, "BLOCK_BYTES", 64)
    monkeypatch.setattr(abc, "LONGEST_LINE", 100)
    path = tmp_path / "blob.abc"
    path.write_bytes(b"a b 1\n" + b"x" * 500)
    with pytest.raises(InputFileError, match=r"line 2: This line is longer than 100 bytes"):
        read_abc(path)


def test_header_line_error_suggests_skip_header(tmp_path):
    path = tmp_path / "links.txt"
    path.write_text("# STRING export\nprotein1 protein2 combined_score\n9606.A 9606.B 700\n")
    with pytest.raises(
        InputFileError, match=r"line 2: .*skip_header=True.*--skip-header.*Got 'combined_score'"
    ):
        read_abc(path)
    g = read_abc(path, skip_header=True)
    assert g.labels == ["9606.A", "9606.B"] and entries(g) == {(1, 0): 700.0, (0, 1): 700.0}
    # the hint is only given for the first line
    path.write_text("a b 1\nc d score\n")
    with pytest.raises(InputFileError) as err:
        read_abc(path)
    assert "skip_header" not in str(err.value)


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n   \n"])
def test_empty_files_are_errors(tmp_path, text):
    path = tmp_path / "empty.abc"
    path.write_text(text)
    with pytest.raises(InputFileError, match="no edges"):
        read_abc(path)


def test_missing_file_is_an_input_file_error(tmp_path):
    with pytest.raises(InputFileError, match=r"nothere.abc: No such file"):
        read_abc(tmp_path / "nothere.abc")


def test_zero_weights_register_nodes_only():
    g = read_abc(io.BytesIO(b"x y 0\ny z 1.5\n"))
    assert g.labels == ["x", "y", "z"]
    assert entries(g) == {(2, 1): 1.5, (1, 2): 1.5}


def test_tab_lines_keep_spaces_in_labels_and_crs_as_mcl():
    text = b"the cat\tsat on\t2\r\n a\t  b c \r\nd e\n"
    g = read_abc(io.BytesIO(text))
    assert g.labels == ["the cat", "sat on", " a", "b c \r", "d", "e"]


def test_labels_are_one_string_until_asked_for(caplog):
    """A list of str takes 50-60 bytes a short label: a clustering run holds the file's labels as one
    string, and the graph splits it when they are first asked for."""
    from netmcl.graph import LabelLines

    g = read_abc(io.BytesIO(b"p q 1\nq r 2\n"))
    assert isinstance(g._labels, LabelLines) and g.n == 3
    assert g.labels == ["p", "q", "r"] and g.labels is g.labels
    assert "carriage return" not in caplog.text
    for text, labels in [(b"p\tq\r\nr\ts\t1\n", ["p", "q\r", "r", "s"]), (b"p q 1\nr\ts\r\n", ["p", "q", "r", "s\r"])]:
        caplog.clear()
        assert read_abc(io.BytesIO(text)).labels == labels
        assert "some labels end in a carriage return" in caplog.text
    with pytest.raises(netmcl.ParameterError, match="needs 3 labels. Got 2 instead"):
        SparseGraph(g.csc, labels=LabelLines("a\nb"))


def test_repeated_and_reversed_edges_keep_the_maximum():
    g = read_abc(io.BytesIO(b"a b 0.5\nb a 0.75\na b 0.25\n"))
    assert entries(g) == {(0, 1): 0.75, (1, 0): 0.75}
    directed = read_abc(io.BytesIO(b"a b 0.5\nb a 0.75\na b 0.25\n"), symmetrize=False)
    assert entries(directed) == {(1, 0): 0.5, (0, 1): 0.75}


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress, lambda b: b])
def test_compressed_input_is_recognised_by_content(tmp_path, compress):
    path = tmp_path / "graph.txt"  # no telling suffix
    path.write_bytes(compress(b"a b 1\nb c 2\n"))
    assert read_abc(path).labels == ["a", "b", "c"]


def test_corrupt_gzip_is_an_input_file_error(tmp_path):
    path = tmp_path / "cut.abc.gz"
    path.write_bytes(gzip.compress(b"a b 1\n" * 1000)[:-20])
    with pytest.raises(InputFileError, match="corrupt or truncated"):
        read_abc(path)


@pytest.mark.parametrize("compress", [bz2.compress, lzma.compress], ids=["bz2", "xz"])
def test_corrupt_bzip2_and_xz_are_input_file_errors(tmp_path, compress):
    path = tmp_path / "cut.abc"
    data = compress(b"a b 1\n" * 1000)
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(InputFileError, match="corrupt or truncated"):
        read_abc(path)


def test_stdin_and_file_objects(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"a b 1\n")))
    assert read_abc("-").labels == ["a", "b"]
    assert read_abc(io.StringIO("c d 2\n")).labels == ["c", "d"]


def _fuzz_lines(rng, valid_only):
    labels = ["a", "b", "c", "d", "YAL001C", "yal001c", "n10", "x y", "ü", "é\u00e9", "q#", "#h"]
    values = [
        "1",
        "0",
        "-0",
        "0.5",
        ".25",
        "3.",
        "+2",
        "1e-3",
        "2.5E+01",
        "7e-50",
        "0.30000000000000004",
        "123456789012345678901234",
        "1e-400",
        "0.000000000000000000001234",
        "4.9406564584124654e-324",
    ]
    bad_values = ["nan", "inf", "-1", "1,5", "score", "0x1p3", "1e", "--1", "1e400", "5e38"]
    for _ in range(rng.randrange(1, 25)):
        roll = rng.random()
        if roll < 0.08:
            yield rng.choice(["", "   ", "# comment", "  # indented", "\t# tabbed"])
            continue
        a, b = rng.choice(labels), rng.choice(labels)
        if not valid_only and roll < 0.12:
            yield rng.choice([a, f"\t{a}\t{b}", f"{a}\t", " \t" + b])
            continue
        value = rng.choice(bad_values) if (not valid_only and roll < 0.17) else rng.choice(values + [None])
        if " " in a + b or rng.random() < 0.4:
            line = f"{a}\t{rng.choice(['', ' ', '  '])}{b}" + (
                "" if value is None else f"\t{rng.choice(['', ' '])}{value}"
            )
        else:
            line = f"{a}{rng.choice([' ', '  ', ' ' * 3])}{b}" + ("" if value is None else f" {value}")
        if value is not None and rng.random() < 0.1:
            line += rng.choice([" trailing", "\textra"])
        yield line + rng.choice(["", "", " ", "\r"])


@pytest.fixture(params=[None, 5, 64], ids=["1MiB-blocks", "5-byte-blocks", "64-byte-blocks"])
def blocks(request, monkeypatch):
    """read_abc taking the file in blocks of this many bytes (None: the default)."""
    from netmcl.io import _files

    if request.param is not None:
        monkeypatch.setattr(_files, "BLOCK_BYTES", request.param)
    return request.param


def test_read_abc_fuzzed_files_match_the_oracle(blocks):
    """Also in blocks of a few bytes: lines, labels and errors spanning blocks, line numbers counted on."""
    rng = random.Random(2024)
    for case in range(400):
        text = "\n".join(_fuzz_lines(rng, valid_only=case % 2 == 0))
        assert_same_as_oracle(text.encode(), skip_header=case % 7 == 0)


def _printed(graph):
    """(labels, entries) with the values as mcl prints them (7 significant digits).

    A weight that is not 0 but 0 in float32 (1e-50) is an explicit 0 entry, which mcl
    prints as ``:0`` and which is dropped when the file is read back.
    """
    printed = {k: float(np.float32(float(f"{v:.7g}"))) for k, v in entries(graph).items()}
    return graph.labels, {k: v for k, v in printed.items() if v}


def _mcl_graph(path, tmp_path):
    """(labels, entries) of a label file as mcl reads it: mcl -write-graph plus mcxload's label table."""
    subprocess.run(
        [
            "mcl",
            str(path),
            "--abc",
            "-write-graph",
            str(tmp_path / "g.mci"),
            "-o",
            os.devnull,
            "-q",
            "x",
            "-V",
            "all",
        ],
        check=True,
        capture_output=True,
    )
    subprocess.run(
        ["mcxload", "-abc", str(path), "-o", os.devnull, "-write-tab", str(tmp_path / "g.tab")],
        check=True,
        capture_output=True,
    )
    tab = read_tab(tmp_path / "g.tab")
    return [tab[i] for i in range(len(tab))], entries(read_mci(tmp_path / "g.mci"))


@needs_mcl
def test_read_abc_fuzzed_files_match_mcl(tmp_path):
    rng = random.Random(7)
    for _ in range(25):
        text = "\n".join(_fuzz_lines(rng, valid_only=True)) + "\nzz1 zz2 1\n"
        path = tmp_path / "fuzz.abc"
        path.write_text(text, encoding="utf-8")
        assert _printed(read_abc(path)) == _mcl_graph(path, tmp_path)


@needs_mcl
@pytest.mark.parametrize(
    "path", [IO / "edge.abc", NETWORKS / "procope_conf_krogan.txt.gz"], ids=lambda p: p.name
)
def test_read_abc_matches_mcl(tmp_path, path):
    plain = tmp_path / "in.abc"
    plain.write_bytes(gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes())
    assert _printed(read_abc(path)) == _mcl_graph(plain, tmp_path)


# ---------------------------------------------------------------- native matrices


def test_read_mci_fixture_matches_its_label_file():
    g = read_mci(IO / "random40.mci", tab=IO / "random40.tab")
    ref = read_abc(IO / "random40.abc")
    assert g.labels == ref.labels
    assert entries(g) == entries(ref)
    assert read_mci(IO / "random40.mci").labels == list(range(39))


def test_write_mci_is_byte_identical_to_mcxload(tmp_path):
    """random40.mci and random40.tab were written by mcxload -abc --stream-mirror -write-tab."""
    write_mci(tmp_path / "out.mci", read_abc(IO / "random40.abc"), tab=tmp_path / "out.tab")
    assert (tmp_path / "out.mci").read_bytes() == (IO / "random40.mci").read_bytes()
    assert (tmp_path / "out.tab").read_bytes() == (IO / "random40.tab").read_bytes()


def test_domains_round_trip_byte_identical(tmp_path):
    g = read_mci(IO / "domains.mci")
    assert g.n == 60 and g.labels[0] == 14829 and g.labels == sorted(g.labels)
    write_mci(tmp_path / "again.mci", g)
    text = (tmp_path / "again.mci").read_text()
    assert text.startswith("(mclheader\nmcltype matrix\ndimensions 60x60\n)\n(mcldoms\n 14829 17211")
    again = read_mci(tmp_path / "again.mci")
    assert again.labels == g.labels and entries(again) == entries(g)


@needs_mcl
@pytest.mark.parametrize(
    "path", [NETWORKS / "clusterone_collins2007.txt.gz", IO / "edge.abc"], ids=lambda p: p.name
)
def test_write_mci_matches_mcxload_live(tmp_path, path):
    plain = tmp_path / "in.abc"
    plain.write_bytes(gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes())
    subprocess.run(
        [
            "mcxload",
            "-abc",
            str(plain),
            "--stream-mirror",
            "-o",
            str(tmp_path / "ref.mci"),
            "-write-tab",
            str(tmp_path / "ref.tab"),
        ],
        check=True,
        capture_output=True,
    )
    write_mci(tmp_path / "mine.mci", read_abc(plain), tab=tmp_path / "mine.tab")
    assert (tmp_path / "mine.mci").read_bytes() == (tmp_path / "ref.mci").read_bytes()
    assert (tmp_path / "mine.tab").read_bytes() == (tmp_path / "ref.tab").read_bytes()


MERGE_CASE = (
    "free text before the header\n(mclheader\nmcltype matrix\ndimensions 4x4\n)\n(mclmatrix\nbegin\n"
    "0 1:0.5 1:0.7 2 $\n0 2:0.25 3:0 $\n1 0:3 # a comment\n 2:1e-1 $\n2:9 0(note):4 3(x) $\n1 0:2 $\n)\n"
)


def test_read_mci_merges_repeats_as_mcl():
    """Within a column listing the first value wins; across listings the larger one."""
    g = read_mci(io.BytesIO(MERGE_CASE.encode()))
    assert entries(g) == {
        (1, 0): 0.5,
        (2, 0): 1.0,
        (0, 1): 3.0,
        (2, 1): float(np.float32(0.1)),
        (0, 2): 4.0,
        (3, 2): 1.0,
    }


@needs_mcl
def test_read_mci_merges_repeats_as_mcxdump(tmp_path):
    path = tmp_path / "m.mci"
    path.write_text(MERGE_CASE)
    out = subprocess.run(["mcxdump", "-imx", str(path)], check=True, capture_output=True, text=True).stdout
    ref = {
        (int(r), int(c)): float(np.float32(float(v)))
        for c, r, v in (ln.split("\t") for ln in out.splitlines())
    }
    assert entries(read_mci(path)) == ref


@pytest.mark.parametrize(
    "body, message, line",
    [
        ("0 1 $\n1 5 $\n)\n", "outside the matrix's row domain 0..2", 8),
        ("0 1 $\n7 1 $\n)\n", "outside the matrix's column domain", 8),
        ("0 1 $\n1 -1 $\n)\n", "must not be negative", 8),
        ("0 1:x $\n)\n", "decimal number", 7),
        ("0 1:nan $\n)\n", "finite", 7),
        ("0 1:-2 $\n)\n", "must not be negative", 7),
        ("0 1 $\n1 0", "truncated", 8),
        ("0 1 $\n1 zero $\n)\n", "Expected a node index", 8),
    ],
)
def test_read_mci_errors(tmp_path, body, message, line):
    path = tmp_path / "bad.mci"
    path.write_text("(mclheader\nmcltype matrix\ndimensions 3x3\n)\n(mclmatrix\nbegin\n" + body)
    with pytest.raises(InputFileError, match=re.escape(message)) as err:
        read_mci(path)
    assert err.value.line == line


@pytest.mark.parametrize(
    "content, message",
    [
        (b"a\tb\t1\n", "pass --abc"),
        (b"\x1b\xc2\x4d\xe8binary", "binary matrix format"),
        (b"(mclheader\nmcltype matrix\ndimensions 3x2\n)\n(mclmatrix\nbegin\n0 1 $\n)\n", "not a graph"),
        (b"(mclheader\nmcltype matrix\n)\n(mclmatrix\nbegin\n)\n", "dimensions"),
        (b"(mclheader\nmcltype matrix\ndimensions 3x3\n)\n(mclfoo\n", "Unknown or repeated section"),
        (
            b"(mclheader\nmcltype matrix\ndimensions 3x3\n)\n(mcldoms\n1 2 $\n)\n(mclmatrix\nbegin\n)\n",
            "lists 2 indices",
        ),
    ],
)
def test_read_mci_rejects_what_it_does_not_support(tmp_path, content, message):
    path = tmp_path / "x.mci"
    path.write_bytes(content)
    with pytest.raises(InputFileError, match=re.escape(message)):
        read_mci(path)


# ---------------------------------------------------------------- clusterings


def test_native_clustering_output_matches_mcl_fixtures():
    """Expected files written by mcl 22-282; netmcl leaves out mcl's '# cline' first line."""
    for graph_file, expected in (("random40.mci", "random40.mci.I20"), ("domains.mci", "domains.mci.I20")):
        out = io.StringIO()
        write_native_clustering(out, netmcl.mcl(read_mci(IO / graph_file)))
        reference = (IO / expected).read_text()
        assert reference.startswith("# cline: mcl ")
        assert out.getvalue() == reference.split("\n", 1)[1]


def test_native_clustering_line_wrapping():
    """Long clusters wrap as mcl wraps them (70 characters minus the lead width)."""
    out = io.StringIO()
    write_native_clustering(out, netmcl.mcl(read_mci(IO / "stars.mci")))
    assert out.getvalue() == (IO / "stars.mci.I20").read_text().split("\n", 1)[1]
    assert read_clusters(IO / "domains.mci.I20")[0] == [14829, 17211, 17657, 17999, 20204, 20495]


def test_write_clusters_labels_matches_mcl_output(tmp_path):
    clustering = netmcl.mcl(read_abc(IO / "edge.abc"))
    write_clusters(tmp_path / "out", clustering)
    assert (tmp_path / "out").read_bytes() == (IO / "edge.abc.I20").read_bytes()
    assert read_clusters(tmp_path / "out") == [list(c) for c in clustering]


def test_read_clusters_both_formats():
    assert read_clusters(IO / "edge.abc.I20")[0] == ["alpha", "beta", "gamma delta", "3"]
    native = read_clusters(IO / "random40.mci.I20")
    assert native[0] == [1, 3, 17, 18, 20, 25] and sum(map(len, native)) == 39
    assert read_native_clustering(IO / "random40.mci.I20") == native
    labelled = read_clusters(IO / "random40.mci.I16.labels")
    tab = read_tab(IO / "random40.tab")
    assert sorted(tab[i] for c in read_clusters(IO / "random40.mci.I20") for i in c) == sorted(
        x for c in labelled for x in c
    )


def test_write_clusters_to_stdout_and_file_objects(capsys):
    write_clusters("-", [["a", "b"], ["c"]])
    assert capsys.readouterr().out == "a\tb\nc\n"
    buf = io.StringIO()
    write_clusters(buf, [[1, 2]], format="labels")
    assert buf.getvalue() == "1\t2\n"


def test_write_clusters_rejects_unknown_format():
    with pytest.raises(netmcl.ParameterError, match="format"):
        write_clusters(io.StringIO(), [["a"]], format="csv")


class Boom(Exception):
    pass


def exploding_clusters():
    yield ["a", "b"]
    raise Boom


def test_atomic_write_leaves_nothing_on_error(tmp_path):
    target = tmp_path / "clusters.txt"
    with pytest.raises(Boom):
        write_clusters(target, exploding_clusters())
    assert list(tmp_path.iterdir()) == []
    # an existing file is kept intact
    target.write_text("old\n")
    with pytest.raises(Boom):
        write_clusters(target, exploding_clusters())
    assert list(tmp_path.iterdir()) == [target] and target.read_text() == "old\n"


def test_atomic_write_steps_around_a_temporary_file_left_by_a_killed_run(tmp_path):
    stale = tmp_path / f".clusters.txt.{os.getpid()}-0.tmp"  # the name this process tries first
    stale.write_text("half")
    with atomic_write(tmp_path / "clusters.txt") as fh:
        fh.write("a\tb\n")
    assert (tmp_path / "clusters.txt").read_text() == "a\tb\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [stale.name, "clusters.txt"]
    assert stale.read_text() == "half"


def test_atomic_write_respects_umask(tmp_path):
    with atomic_write(tmp_path / "f") as fh:
        fh.write("x")
    mask = os.umask(0)
    os.umask(mask)
    assert (tmp_path / "f").stat().st_mode & 0o777 == 0o666 & ~mask


def test_read_tab_errors(tmp_path):
    path = tmp_path / "x.tab"
    path.write_text("0\ta\nb\n")
    with pytest.raises(InputFileError, match="line 2"):
        read_tab(path)


def test_labels_survive_non_utf8_bytes(tmp_path):
    path = tmp_path / "latin1.abc"
    path.write_bytes(b"caf\xe9 th\xe9 1\n")
    clustering = netmcl.mcl(read_abc(path))
    write_clusters(tmp_path / "out", clustering)
    assert (tmp_path / "out").read_bytes() == b"caf\xe9\tth\xe9\n"


def test_large_file_is_parsed_like_the_oracle(tmp_path):
    """60,000 lines: the vectorised path (hash numbering, slow-path floats) agrees with the oracle."""
    rng = np.random.default_rng(3)
    a = rng.integers(0, 20000, 60000)
    b = rng.integers(0, 20000, 60000)
    w = rng.random(60000)
    text = "".join(f"p{x}\tp{y}\t{v!r}\n" for x, y, v in zip(a.tolist(), b.tolist(), w.tolist())).encode()
    assert_same_as_oracle(text)


@pytest.mark.parametrize("symmetrize", [True, False])
def test_from_edges_merges_repeats_by_max(symmetrize):
    """Arcs given many times, both ways and as loops keep their largest weight (mcl --abc)."""
    rng = np.random.default_rng(7)
    n, m = 40, 3000
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.random(m).astype(np.float32)
    w[rng.random(m) < 0.05] = 0.0  # zero weights add no arc
    expected = np.zeros((n, n), dtype=np.float32)
    for a, b, x in zip(src, dst, w):
        expected[b, a] = max(expected[b, a], x)
        if symmetrize:
            expected[a, b] = max(expected[a, b], x)
    g = SparseGraph.from_edges(src, dst, w, n=n, symmetrize=symmetrize)
    assert g.matrix.has_sorted_indices and g.matrix.nnz == np.count_nonzero(expected)
    np.testing.assert_array_equal(g.matrix.toarray(), expected)
