"""Inflation sweeps: each clustering identical to a separate mcl run, the table equal to clm's figures."""

import importlib.util
import json
import runpy
from pathlib import Path

import pytest

import netmcl
import netmcl.datasets
from netmcl.analysis import compare_to_complexes
from netmcl.cli import output_name
from netmcl.cli.tools import sweep_main
from netmcl.exceptions import ParameterError
from netmcl.sweep import sweep

HERE = Path(__file__).parent
ROOT = HERE.parent
CLM = HERE / "golden" / "clm"
_spec = importlib.util.spec_from_file_location("make_clm_golden", HERE / "golden" / "make_clm_golden.py")
mg = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mg)
GOLDEN = json.loads((CLM / "golden.json").read_text())["cases"]["collins"]
INFLATIONS = list(GOLDEN["clusterings"])  # 1.4 2 3 4 6


@pytest.fixture(scope="module")
def collins():
    return netmcl.read_abc(mg.COLLINS)


@pytest.fixture(scope="module")
def result(collins):
    return sweep(collins, [float(i) for i in INFLATIONS], complexes=netmcl.datasets.load_cyc2008())


def test_each_clustering_is_mcls(collins, result):
    assert list(result) == [1.4, 2.0, 3.0, 4.0, 6.0]
    for inflation, fname in GOLDEN["clusterings"].items():
        clustering = result[float(inflation)]
        assert list(clustering) == netmcl.read_clusters(CLM / fname)  # mcl --abc -I <inflation>
        alone = netmcl.mcl(collins, inflation=float(inflation))
        assert clustering.chaos == alone.chaos and clustering.n_iterations == alone.n_iterations


def test_table_equals_clm(result):
    for row, (inflation, line) in zip(result.table, GOLDEN["info"].items()):
        clm = mg.parse_fields(line)
        assert row["inflation"] == float(inflation)
        assert f"{row['efficiency']:.5f}" == clm["eff"] and f"{row['modularity']:.5f}" == clm["mod"]
        assert f"{row['mass_fraction']:.5f}" == clm["mf"] and f"{row['area_fraction']:.5f}" == clm["af"]
        assert (row["n_clusters"], row["largest"], row["singletons"]) == (int(clm["ncl"]), int(clm["max"]), int(clm["sgl"]))
    # split/join distance to the previous inflation = clm dist --chain
    all_pairs = [(i, j) for i in range(5) for j in range(i + 1, 5)]
    chain = [mg.parse_fields(GOLDEN["dist"]["sj"][all_pairs.index((k, k + 1))])["d"] for k in range(4)]
    assert [row["split_join_previous"] for row in result.table] == [None, *map(int, chain)]


def test_complex_columns(result):
    complexes = netmcl.datasets.load_cyc2008()
    for row in result.table:
        expected = compare_to_complexes(result[row["inflation"]], complexes)
        assert {k: row[k] for k in expected} == expected
    best = result.best("accuracy")
    assert best in result and result.table[list(result).index(best)]["accuracy"] == max(r["accuracy"] for r in result.table)
    frame = result.to_frame()
    assert list(frame.index) == list(result) and frame.loc[2.0, "n_clusters"] == 300
    text = result.format_table().splitlines()
    assert len(text) == 6 and text[0].split()[0] == "inflation" and "accuracy" in text[0]


@pytest.mark.skipif(not mg.have_tools(), reason="mcl not on PATH: live comparison skipped (golden files checked)")
def test_live_mcl(tmp_path, collins):
    abc = mg.COLLINS.read_bytes()
    import gzip

    text = gzip.decompress(abc).decode()
    result = sweep(collins, [1.8, 5.0], scheme=3)
    for inflation in ("1.8", "5"):
        workdir = tmp_path / inflation
        workdir.mkdir()
        (workdir / "g.abc").write_text(text)
        out = mg._run(["mcl", "g.abc", "--abc", "-I", inflation, "-scheme", "3", "-o", "-"], workdir)
        assert list(result[float(inflation)]) == [line.split("\t") for line in out.splitlines()]


def test_cli(tmp_path, capsys):
    table = tmp_path / "sweep.tsv"
    argv = [str(mg.COLLINS), "-I", "1.4", "2", "-o", str(table), "-odir", str(tmp_path)]
    assert sweep_main(argv) == 0
    lines = table.read_text().splitlines()
    assert lines[0].split("\t")[:3] == ["inflation", "n_clusters", "largest"]
    assert [x.split("\t")[1] for x in lines[1:]] == ["252", "300"]
    for inflation, golden in (("1.4", "collins.I14.txt.gz"), ("2", "collins.I2.txt.gz")):
        written = Path(output_name(str(mg.COLLINS), inflation=float(inflation), odir=str(tmp_path)))
        assert written.read_text().splitlines() == ["\t".join(c) for c in netmcl.read_clusters(CLM / golden)]
    complexes = tmp_path / "complexes.txt"
    complexes.write_text("YAL001C YBR123C YDR362C YGR047C\nYOR110W\tYPL007C\n")
    assert sweep_main([str(mg.COLLINS), "-I", "3", "--complexes", str(complexes)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:2] == ["inflation", "n_clusters"] and "accuracy" in out[0] and out[1].split()[1] == "330"


def test_errors(tmp_path, capsys):
    G = [("a", "b"), ("b", "c")]
    with pytest.raises(ParameterError, match="inflation.*> 1"):
        sweep(G, [2.0, 1.0])
    with pytest.raises(ParameterError, match="at least one"):
        sweep(G, [])
    with pytest.raises(ParameterError, match="'inflations'"):
        sweep(G, inflation=2.0)
    with pytest.raises(ParameterError, match="sequence of numbers"):
        sweep(G, ["x"])
    assert sweep_main([str(mg.COLLINS), "-I", "0.5"]) == 1
    assert "inflation" in capsys.readouterr().err
    keep = sweep([(f"v{i}", f"v{i + 1}") for i in range(4)], [2.0], overlap="keep")
    assert "efficiency" not in keep.table[0] and keep[2.0].overlap == 1


def test_tutorial_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    runpy.run_path(str(ROOT / "tutorials" / "02_string_sweep_complexes.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert (tmp_path / "string_clusters.tsv").exists() and (tmp_path / "yeast_sweep.tsv").exists()
    # what the tutorial's text shows is what it prints
    text = (ROOT / "tutorials" / "02_string_sweep_complexes.py").read_text()
    shown = [line.rstrip() for line in out.splitlines() if line.split()[:1] in (["inflation"], ["1.4"], ["6"])]
    assert len(shown) == 6 and "accuracy" in shown[3]
    for line in shown + [out.splitlines()[-1]]:
        assert "# " + line in text
