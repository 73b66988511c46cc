"""STRING files in: every layout, thresholds, names, errors, and mcl's clusters of the same graph.

The fixtures in tests/data/string are real STRING web exports re-shaped into
each STRING layout (tests/data/string/derive_fixtures.py, PROVENANCE.md).
mcl's clusterings of the STRING-derived graphs were captured by
tests/golden/make_clm_golden.py and are recomputed live when mcl is on PATH.
"""

import gzip
import hashlib
import importlib.util
import io
import json
from pathlib import Path

import pytest

import netmcl
from netmcl.cli.tools import string_main
from netmcl.exceptions import InputFileError, ParameterError
from netmcl.io.string import read_string

HERE = Path(__file__).parent
STRING = HERE / "data" / "string"
LINKS = STRING / "9606.protein.links.sample.txt.gz"
DETAILED = STRING / "9606.protein.links.detailed.sample.txt.gz"
FULL = STRING / "9606.protein.links.full.sample.txt.gz"
API = STRING / "string_api_network.tsv.gz"
R_INTERACTIONS = STRING / "stringdb_get_interactions.csv.gz"
R_MAP = STRING / "stringdb_map.tsv.gz"
INFO = STRING / "9606.protein.info.sample.txt.gz"
ALIASES = STRING / "9606.protein.aliases.sample.txt.gz"

_spec = importlib.util.spec_from_file_location("make_clm_golden", HERE / "golden" / "make_clm_golden.py")
mg = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mg)
GOLDEN = json.loads((HERE / "golden" / "clm" / "golden.json").read_text())["cases"]

#: The network of the small web export, in four layouts (see derive_fixtures.py).
SAME_NETWORK = [DETAILED, FULL, API, R_INTERACTIONS]


def edges(G):
    return sorted((min(u, v), max(u, v), w) for u, v, w in G.edges(data="weight"))


def test_protein_links_file():
    G = read_string(LINKS, min_score=700)
    assert G.graph["format"] == "protein.links" and G.graph["min_score"] == 700
    assert "protein1" not in G and "combined_score" not in G  # the header is never a node
    assert all(n.startswith("9606.ENSP") for n in G)
    assert (G.number_of_nodes(), G.number_of_edges()) == (427, 4054)
    # each pair is listed twice in the file (A B and B A), it becomes one edge weighing score/1000
    assert G["9606.ENSP00000297323"]["9606.ENSP00000243052"]["weight"] == 0.72
    assert min(w for *_, w in edges(G)) >= 0.7


def test_thresholds_are_inclusive_on_the_0_1000_scale():
    rows = b"protein1 protein2 combined_score\nA B 700\nB C 699\nC D 1000\nD E 150\n"
    assert edges(read_string(io.BytesIO(rows), min_score=700)) == [("A", "B", 0.7), ("C", "D", 1.0)]
    assert len(read_string(io.BytesIO(rows), min_score=0).edges) == 4
    assert list(read_string(io.BytesIO(rows), min_score=701)) == ["C", "D"]
    # 0-1 scores (API, web exports) are compared after x1000
    api = b"stringId_A\tstringId_B\tpreferredName_A\tpreferredName_B\tncbiTaxonId\tscore\nA\tB\ta\tb\t9606\t0.7\n"
    assert edges(read_string(io.BytesIO(api), min_score=700)) == [("A", "B", 0.7)]
    assert read_string(io.BytesIO(api), min_score=701).number_of_nodes() == 0


def test_both_orientations_become_one_edge_with_the_largest_score():
    rows = b"protein1 protein2 combined_score\nA B 500\nB A 800\nA B 600\n"
    G = read_string(io.BytesIO(rows), min_score=0)
    assert edges(G) == [("A", "B", 0.8)] and list(G) == ["A", "B"]


def test_all_layouts_give_the_same_graph():
    graphs = [read_string(path, min_score=400) for path in SAME_NETWORK]
    assert [G.graph["format"] for G in graphs] == [
        "protein.links", "protein.links", "STRING API network", "STRINGdb"
    ]
    for G in graphs[1:]:
        assert edges(G) == edges(graphs[0]) and list(G) == list(graphs[0])
    # the R table lists every pair in both orientations (1,406 rows): 703 edges
    assert graphs[3].number_of_edges() == 703
    for channel in ("experimental", "textmining", "coexpression", "database", "neighborhood", "fusion", "cooccurence"):
        same = [edges(read_string(path, min_score=150, channel=channel)) for path in (DETAILED, FULL, API)]
        assert same[0] == same[1] == same[2], channel
    assert read_string(FULL, min_score=150, channel="experiments").graph["channel"] == "experiments"
    assert read_string(DETAILED, min_score=0, channel="database").number_of_nodes() == 55  # 0 scores: nodes only


def test_api_exports_name_their_proteins():
    G = read_string(API, min_score=400)
    assert G.nodes["9606.ENSP00000363512"]["preferred_name"] == "ALOX5"
    assert all("preferred_name" in d for _, d in G.nodes(data=True))
    assert read_string(API, min_score=400, name_attribute="symbol").nodes["9606.ENSP00000363512"] == {
        "symbol": "ALOX5"
    }


def test_gzip_and_plain_text_read_alike(tmp_path):
    plain = tmp_path / "links.txt"
    plain.write_bytes(gzip.decompress(LINKS.read_bytes()))
    a, b = read_string(LINKS, min_score=900), read_string(plain, min_score=900)
    assert edges(a) == edges(b)
    assert a.graph["sha256"] == b.graph["sha256"] == hashlib.sha256(plain.read_bytes()).hexdigest()
    with open(plain, "rb") as fh:
        assert edges(read_string(fh, min_score=900)) == edges(a)


def test_windows_line_ends_and_quoted_r_tables(tmp_path):
    path = tmp_path / "interactions.tsv"
    # write.table(..., sep="\t") on Windows: quoted header without a row-name cell, CRLF
    path.write_bytes(b'"from"\t"to"\t"combined_score"\r\n"1"\t"A"\t"B"\t950\r\n"2"\t"B"\t"C"\t420\r\n')
    assert edges(read_string(path, min_score=400)) == [("A", "B", 0.95), ("B", "C", 0.42)]


def test_names_from_info_map_and_aliases():
    G = read_string(LINKS, min_score=700, info=INFO)
    assert G.nodes["9606.ENSP00000297323"]["preferred_name"] == "ADCY1"
    assert "annotation" not in G.nodes["9606.ENSP00000297323"]  # empty cells are not stored
    assert all("preferred_name" in d for _, d in G.nodes(data=True))
    R = read_string(LINKS, min_score=700, info=R_MAP)  # R's map(): the first column names the protein
    assert {n: d["preferred_name"] for n, d in R.nodes(data=True)} == {
        n: d["preferred_name"] for n, d in G.nodes(data=True)
    }
    A = read_string(LINKS, min_score=700, aliases=ALIASES, alias_source="web_export_preferred_name")
    assert A.nodes["9606.ENSP00000297323"]["preferred_name"] == "ADCY1"
    first = read_string(LINKS, min_score=700, aliases=ALIASES)  # no source: the first alias listed
    assert first.nodes["9606.ENSP00000297323"]["preferred_name"] == "ENSP00000297323"
    # names never add nodes
    assert first.number_of_nodes() == G.number_of_nodes() == 427


@pytest.mark.parametrize("threshold", [400, 700, 900])
def test_clusters_equal_mcl_on_the_same_graph(threshold):
    G = read_string(LINKS, min_score=threshold)
    case = GOLDEN[f"string{threshold}"]
    for inflation, fname in case["clusterings"].items():
        expected = netmcl.read_clusters(HERE / "golden" / "clm" / fname)
        assert list(netmcl.mcl(G, inflation=float(inflation), attribute=None)) == expected
        # mcl gives the same clusters on the raw integer scores of the file
        assert case["raw_clusterings_equal"][inflation] is True


@pytest.mark.skipif(not mg.have_tools(), reason="mcl not on PATH: live comparison skipped (golden files checked)")
def test_live_mcl_on_raw_string_rows(tmp_path):
    for threshold in (400, 900):
        G = read_string(LINKS, min_score=threshold)
        for inflation in ("1.4", "3"):
            expected = mg.mcl_clusters(mg.string_abc(threshold, raw=True), inflation, tmp_path)
            assert list(netmcl.mcl(G, inflation=float(inflation), attribute=None)) == expected


def test_cli_writes_mcls_output(tmp_path, capsys):
    out = tmp_path / "clusters.txt"
    assert string_main([str(LINKS), "--min-score", "700", "--format", "labels", "-o", str(out)]) == 0
    golden = gzip.decompress((HERE / "golden" / "clm" / "string700.I2.txt.gz").read_bytes()).decode()
    assert out.read_text() == golden
    table = tmp_path / "clusters.tsv"
    report = tmp_path / "run.json"
    graphml = tmp_path / "net.graphml"
    argv = [str(LINKS), "--min-score", "700", "--info", str(INFO), "-o", str(table), "--report", str(report),
            "--graphml", str(graphml)]
    assert string_main(argv) == 0
    assert "427 proteins, 4054 interactions" in capsys.readouterr().err
    lines = table.read_text().splitlines()
    assert lines[0] == "node\tcluster\tpreferred_name"
    assert lines[1].split("\t")[1] == "0" and len(lines) == 428
    first = golden.splitlines()[0].split("\t")
    assert [x.split("\t")[0] for x in lines[1 : 1 + len(first)]] == first
    data = json.loads(report.read_text())
    assert data["input"]["sha256"] == hashlib.sha256(LINKS.read_bytes()).hexdigest()
    assert data["input"]["min_score"] == 700 and data["parameters"]["inflation"] == 2.0
    import networkx as nx

    H = nx.read_graphml(graphml)
    assert H.nodes["9606.ENSP00000297323"]["mcl_cluster"] == 0
    named = tmp_path / "named.txt"
    assert string_main([str(LINKS), "--min-score", "700", "--info", str(INFO), "--format", "labels", "--names",
                        "-o", str(named)]) == 0
    assert named.read_text().splitlines()[0].split("\t")[0] == "ADCY1"


def test_errors_name_file_line_and_value(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("protein1 protein2 combined_score\nA B 700\nA B high\n")
    with pytest.raises(InputFileError, match=r"bad.txt, line 3: The combined_score score must be a number. Got 'high'"):
        read_string(bad)
    bad.write_text("protein1 protein2 combined_score\nA B\n")
    with pytest.raises(InputFileError, match="line 2: This line has 2 fields"):
        read_string(bad)
    bad.write_text("protein1 protein2 combined_score\nA B 1700\n")
    with pytest.raises(InputFileError, match="must lie in 0..1000"):
        read_string(bad)
    bad.write_text("YAL001C\tYBR123C\t0.98\n")  # an ABC file, no header: never read as STRING
    with pytest.raises(InputFileError, match="line 1: This is not a STRING network file.*read_abc"):
        read_string(bad)
    bad.write_text("")
    with pytest.raises(InputFileError, match="empty"):
        read_string(bad)
    with pytest.raises(InputFileError, match="No such file"):
        read_string(tmp_path / "missing.txt")
    with pytest.raises(ParameterError, match="did you mean 700"):
        read_string(LINKS, min_score=0.7)
    with pytest.raises(ParameterError, match="0-1000 scale"):
        read_string(LINKS, min_score=1500)
    with pytest.raises(ParameterError, match="'channel'.*one of \\['combined_score'\\]"):
        read_string(LINKS, channel="experimental")
    with pytest.raises(InputFileError, match="protein.info"):
        read_string(LINKS, info=LINKS)
    with pytest.raises(InputFileError, match="protein.aliases"):
        read_string(LINKS, aliases=LINKS)


def test_corrupt_gzip(tmp_path):
    broken = tmp_path / "links.txt.gz"
    broken.write_bytes(LINKS.read_bytes()[:2000])
    with pytest.raises(InputFileError, match="corrupt or truncated"):
        read_string(broken)


def test_cli_errors(tmp_path, capsys):
    assert string_main([str(LINKS), "--min-score", "0.9"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("netmcl string: error:") and err.count("\n") == 1
    assert string_main([str(LINKS), "--min-score", "1000"]) == 1
    assert "lower --min-score" in capsys.readouterr().err
    assert string_main([]) == 2
