"""Text encodings and binary files: byte-order marks, UTF-16/32, NUL bytes, executables.

A UTF-8 byte-order mark is dropped (mcl would make it part of the first
label: a phantom node), UTF-16 and UTF-32 files are refused with the
``iconv`` line that converts them, and a NUL byte (a binary or corrupt
file; mcl cuts a label at it) is refused with its line, by every reader and
on the command line with one line and status 1.
"""

import gzip
import io
import logging
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from netmcl.cli import main
from netmcl.exceptions import InputFileError
from netmcl.io import read_abc, read_clusters, read_mci, read_tab, write_clusters
from netmcl.io import _files
from netmcl.io.string import read_string

IO = Path(__file__).parent / "data" / "io"
ROOT = Path(__file__).resolve().parents[1]
BOM = b"\xef\xbb\xbf"
TEXT = "A\tB\t1\nB\tC\t1\nC\tA\t1\nD\tE\t0.5\nE\tF\t1\nF\tD\t1\n"
LINKS = "protein1 protein2 combined_score\n9606.A 9606.B 900\n9606.B 9606.C 800\n"
#: a real binary file: the start of the Python interpreter running the tests
BINARY = Path(sys.executable).resolve().read_bytes()[:65536]

needs_mcl = pytest.mark.skipif(shutil.which("mcl") is None, reason="mcl not on PATH: live comparison skipped")


def run(argv, capsys):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


# ---------------------------------------------------------------- byte-order marks


def test_a_utf8_bom_is_dropped_not_made_a_node(caplog):
    with caplog.at_level(logging.WARNING, logger="netmcl"):
        graph = read_abc(io.BytesIO(BOM + TEXT.encode()))
    assert graph.labels == ["A", "B", "C", "D", "E", "F"]
    assert graph.matrix.toarray().tolist() == read_abc(io.BytesIO(TEXT.encode())).matrix.toarray().tolist()
    assert "byte-order mark" in caplog.text


@needs_mcl
def test_a_bom_file_clusters_as_mcl_clusters_the_file_without_it(tmp_path, capsys):
    (tmp_path / "plain.abc").write_text(TEXT)
    (tmp_path / "bom.abc").write_bytes(BOM + TEXT.encode())
    subprocess.run(["mcl", "plain.abc", "--abc", "-o", "mcl.out"], cwd=tmp_path, check=True, capture_output=True)
    assert run([tmp_path / "bom.abc", "--abc", "-o", tmp_path / "netmcl.out"], capsys)[0] == 0
    assert (tmp_path / "netmcl.out").read_bytes() == (tmp_path / "mcl.out").read_bytes()


def test_a_bom_is_dropped_by_the_other_readers(tmp_path):
    G = read_string(io.BytesIO(BOM + LINKS.encode()))
    assert list(G.nodes) == ["9606.A", "9606.B", "9606.C"]
    assert read_clusters(io.BytesIO(BOM + b"A\tB\nC\n")) == [["A", "B"], ["C"]]
    assert read_tab(io.BytesIO(BOM + b"0\tA\n1\tB\n")) == {0: "A", 1: "B"}
    native = (IO / "stars.mci").read_bytes()
    assert read_mci(io.BytesIO(BOM + native)).matrix.toarray().tolist() == read_mci(IO / "stars.mci").matrix.toarray().tolist()


# ---------------------------------------------------------------- UTF-16 and UTF-32


@pytest.mark.parametrize(
    "encoding, said",
    [("utf-16", "UTF-16"), ("utf-16-le", "UTF-16LE"), ("utf-16-be", "UTF-16BE"), ("utf-32", "UTF-32"),
     ("utf-32-le", "UTF-32LE")],
)
def test_wide_encodings_are_refused_with_the_conversion(tmp_path, encoding, said):
    path = tmp_path / "g.abc"
    path.write_bytes(TEXT.encode(encoding))
    with pytest.raises(InputFileError) as info:
        read_abc(path)
    assert f"This is {said} text" in str(info.value) and f"iconv -f {said} -t UTF-8 {path}" in str(info.value)


def test_wide_encodings_are_refused_by_every_reader_also_compressed(tmp_path):
    data = gzip.compress(LINKS.encode("utf-16"))
    for read in (read_abc, read_string, read_mci, read_clusters, read_tab):
        with pytest.raises(InputFileError, match="UTF-16"):
            read(io.BytesIO(data))


def test_utf16_on_the_command_line_is_one_line(tmp_path, capsys):
    path = tmp_path / "g.abc"
    path.write_bytes(TEXT.encode("utf-16"))
    for argv in ([path, "--abc"], [path], ["string", path]):
        status, out, err = run([*argv, "-o", tmp_path / "out"], capsys)
        assert status == 1 and out == "" and err.count("\n") == 1, err
        assert "UTF-16" in err and "iconv" in err
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------- binary files and NUL bytes


@pytest.mark.parametrize("argv", [["--abc"], [], ["string"]], ids=["abc", "native", "string"])
def test_a_binary_file_is_called_binary(tmp_path, capsys, argv):
    path = tmp_path / "program"
    path.write_bytes(BINARY)
    argv = ["string", path] if argv == ["string"] else [path, *argv]
    status, out, err = run([*argv, "-o", tmp_path / "out"], capsys)
    assert status == 1 and out == "" and err.count("\n") == 1, err
    assert "binary file" in err and "Traceback" not in err and "bug" not in err
    assert len(err) < 300  # no dump of the file's bytes


def test_a_nul_in_a_label_is_refused_with_its_line():
    with pytest.raises(InputFileError) as info:
        read_abc(io.BytesIO(b"A\tB\t1\nB\tC\t1\nC\x00x\tA\t1\n"))
    assert info.value.line == 3 and "NUL" in str(info.value)


def test_a_nul_in_a_later_block_is_refused_with_its_line(monkeypatch):
    monkeypatch.setattr(_files, "BLOCK_BYTES", 16)  # many blocks, a line across two of them
    lines = [f"n{k}\tn{k + 1}\t1\n" for k in range(40)]
    lines[29] = "n29\tn\x0030\t1\n"
    with pytest.raises(InputFileError) as info:
        read_abc(io.BytesIO("".join(lines).encode()))
    assert info.value.line == 30
    with pytest.raises(InputFileError) as info:
        read_string(io.BytesIO(("protein1 protein2 combined_score\n" + "".join(lines)).encode()))
    assert info.value.line == 31


def test_a_nul_in_native_and_cluster_files_is_refused(tmp_path):
    native = (IO / "stars.mci").read_bytes().replace(b"$", b"\x00$", 1)
    with pytest.raises(InputFileError, match="NUL"):
        read_mci(io.BytesIO(native))
    with pytest.raises(InputFileError, match="NUL"):
        read_clusters(io.BytesIO(b"A\tB\nC\x00\n"))


def test_string_command_reports_a_field_it_cannot_split(tmp_path, capsys):
    path = tmp_path / "links.csv"
    path.write_bytes(b'"protein1","protein2","combined_score"\na\rb,"c",500\n')
    status, out, err = run(["string", path, "-o", tmp_path / "out"], capsys)
    assert status == 1 and err.count("\n") == 1 and "line 2" in err and "bug" not in err


def test_labels_with_other_bytes_still_round_trip(tmp_path):
    """Latin-1 and other non-UTF-8 labels without NUL are read as mcl reads them, bytes kept."""
    raw = "caf\xe9\tna\xefve\t1\n".encode("latin-1")
    graph = read_abc(io.BytesIO(raw))
    out = tmp_path / "cl.txt"
    write_clusters(out, [graph.labels])
    assert out.read_bytes() == b"caf\xe9\tna\xefve\n"
