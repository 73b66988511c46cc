"""``netmcl FILE --report FILE.json``: the run report of the main command.

The report is checked against the clustering the same run wrote, against the
Python API on the same input and flags, and against sha256 of the input's
bytes and of the graph's arrays.
"""

import hashlib
import json
import os
from pathlib import Path


import netmcl
from netmcl.cli import main
from netmcl.io import read_abc, read_clusters, read_mci
from netmcl.io.tables import graph_checksum

IO = Path(__file__).parent / "data" / "io"


def _run(argv, capsys):
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.err


def test_report_is_complete_and_matches_the_clustering(tmp_path, capsys):
    source = IO / "random40.abc"
    out, report = tmp_path / "clusters.txt", tmp_path / "run.json"
    flags = ["-I", "1.6", "-P", "3000", "-S", "700", "-R", "900", "-pct", "80"]
    status, err = _run([source, "--abc", *flags, "-o", out, "--report", report], capsys)
    assert status == 0, err
    data = json.loads(report.read_text())
    for key in ("netmcl_version", "created", "parameters", "engine", "input", "result", "iterations",
                "seconds", "command"):
        assert key in data, key
    assert data["netmcl_version"] == netmcl.__version__
    assert data["engine"]["name"] == "cpu"
    params = data["parameters"]
    assert (params["inflation"], params["pruning_number"], params["select"], params["recover"],
            params["recover_pct"]) == (1.6, 3000, 700, 900, 80)

    expected = netmcl.mcl(read_abc(source), inflation=1.6, pruning_number=3000, select=700, recover=900,
                          recover_pct=80)
    assert [list(c) for c in read_clusters(out)] == [list(c) for c in expected.clusters]
    assert data["result"]["n_clusters"] == len(expected) == len(read_clusters(out))
    assert data["result"]["n_iterations"] == expected.n_iterations == len(data["iterations"])
    assert [it["chaos"] for it in data["iterations"]] == expected.chaos
    assert [it["iteration"] for it in data["iterations"]] == list(range(1, expected.n_iterations + 1))
    assert all(it["kept"] > 0 and it["seconds"] >= 0 for it in data["iterations"])

    assert data["input"]["sha256"] == hashlib.sha256(source.read_bytes()).hexdigest()
    assert data["input"]["graph_sha256"] == graph_checksum(read_abc(source))
    assert data["output"] == str(out)
    assert set(data["seconds"]) == {"read", "cluster", "write"}
    assert data["command"][1:] == [str(source), "--abc", *flags, "-o", str(out), "--report", str(report)]


def test_report_for_native_input_and_standard_input(tmp_path, capsys, monkeypatch):
    source = IO / "stars.mci"
    report = tmp_path / "run.json"
    status, err = _run([source, "-I", "2", "-o", tmp_path / "out", "--report", report], capsys)
    assert status == 0, err
    data = json.loads(report.read_text())
    graph = read_mci(source)
    assert data["input"]["graph_sha256"] == graph_checksum(graph)
    assert data["input"]["nodes"] == graph.n
    assert data["result"]["n_clusters"] == len(read_clusters(tmp_path / "out"))

    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((IO / "edge.abc").read_bytes())))
    status, err = _run(["-", "--abc", "-o", tmp_path / "edge", "--report", report], capsys)
    assert status == 0, err
    data = json.loads(report.read_text())
    assert "sha256" not in data["input"]  # standard input: only the graph's checksum
    assert data["input"]["graph_sha256"] == graph_checksum(read_abc(IO / "edge.abc"))


def test_unwritable_report_is_an_error_after_the_clusters(tmp_path, capsys):
    out = tmp_path / "clusters.txt"
    missing = tmp_path / "no" / "such" / "run.json"
    status, err = _run([IO / "edge.abc", "--abc", "-o", out, "--report", missing], capsys)
    assert status == 1
    assert "report" in err and "the clusters were written" in err
    assert out.exists() and not missing.exists()
    assert os.listdir(tmp_path) == ["clusters.txt"]
