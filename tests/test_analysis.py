"""Quality and comparison measures against clm's figures, igraph and hand-computed values.

Golden figures were captured from clm 22-282 by tests/golden/make_clm_golden.py
(``clm info`` and ``clm dist`` on the Collins yeast network, the STRING fixture
and a small graph with loops); when clm is on PATH they are also recomputed
live.
"""

import gzip
import importlib.util
import io
import json
import math
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

import netmcl
import netmcl.datasets
from netmcl.analysis import (
    adjusted_rand_index,
    area_fraction,
    as_clusters,
    compare,
    compare_to_complexes,
    efficiency,
    f_score,
    jaccard_index,
    mass_fraction,
    mirkin_distance,
    modularity,
    normalized_mutual_information,
    quality,
    rand_index,
    size_distribution,
    split_join_distance,
    variation_of_information,
)
from netmcl.cli.tools import dist_main, info_line, info_main
from netmcl.exceptions import NotAPartitionError, ParameterError

GOLDEN_DIR = Path(__file__).parent / "golden"
CLM = GOLDEN_DIR / "clm"
_spec = importlib.util.spec_from_file_location("make_clm_golden", GOLDEN_DIR / "make_clm_golden.py")
mg = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mg)
GOLDEN = json.loads((CLM / "golden.json").read_text())["cases"]

needs_clm = pytest.mark.skipif(not mg.have_tools(), reason="mcl/mcxload/clm not on PATH: live clm comparison skipped")


def case_graph(name):
    """The graph of a golden case, as netmcl reads it."""
    if name == "collins":
        return netmcl.read_abc(mg.COLLINS)
    if name == "loops":
        return netmcl.read_abc(io.BytesIO(mg.LOOPS_ABC.encode()))
    return netmcl.read_string(mg.STRING_LINKS, min_score=int(name[len("string"):]))


def case_clusterings(name):
    case = GOLDEN[name]
    if "given" in case:
        return case["given"]
    return {I: netmcl.read_clusters(CLM / f) for I, f in case["clusterings"].items()}


CASES = sorted(GOLDEN)


@pytest.mark.parametrize("name", CASES)
def test_quality_equals_clm_info(name):
    graph = case_graph(name)
    for key, clusters in case_clusterings(name).items():
        ours = mg.parse_fields(info_line(quality(graph, clusters), "x"))
        assert ours == mg.parse_fields(GOLDEN[name]["info"][key]), (name, key)


@pytest.mark.parametrize("name", CASES)
def test_comparisons_equal_clm_dist(name):
    clusterings = list(case_clusterings(name).values())
    pairs = [(i, j) for i in range(len(clusterings)) for j in range(i + 1, len(clusterings))]
    dist = GOLDEN[name]["dist"]
    for k, (i, j) in enumerate(pairs):
        a, b = clusterings[i], clusterings[j]
        sj = mg.parse_fields(dist["sj"][k])
        assert tuple(split_join_distance(a, b)) == (int(sj["d"]), int(sj["d1"]), int(sj["d2"]))
        vi = mg.parse_fields(dist["vi"][k])
        assert tuple(f"{x:.3f}" for x in variation_of_information(a, b)) == (vi["d"], vi["d1"], vi["d2"])
        mk = mg.parse_fields(dist["mk"][k])
        assert tuple(mirkin_distance(a, b)) == (int(mk["d"]), int(mk["d1"]), int(mk["d2"]))
        index = mg.parse_fields(dist["index"][k])
        assert f"{rand_index(a, b):.5f}" == index["rand"]
        assert f"{jaccard_index(a, b):.5f}" == index["jaccard"]
        if index["arand"] == "-nan":  # 0/0: both are the one-cluster clustering; identical, so 1 here
            assert a == b and adjusted_rand_index(a, b) == 1.0
        else:
            assert f"{adjusted_rand_index(a, b):.5f}" == index["arand"]


def _golden_files(tmp_path, name):
    """The case's graph and clusterings as files, as a user would have them."""
    case = GOLDEN[name]
    if "given" in case:
        files = []
        for key, clusters in case["given"].items():
            path = tmp_path / f"{key}.txt"
            path.write_text("".join("\t".join(c) + "\n" for c in clusters))
            files.append(path)
        graph = tmp_path / "loops.abc"
        graph.write_text(mg.LOOPS_ABC)
        return graph, files
    graph = mg.COLLINS if name == "collins" else tmp_path / f"{name}.abc"
    if name != "collins":
        graph.write_text(mg.string_abc(int(name[len("string"):])))
    return graph, [CLM / f for f in case["clusterings"].values()]


@pytest.mark.parametrize("name", ["collins", "loops", "string700"])
def test_cli_info_and_dist_print_clms_lines(name, tmp_path, capsys):
    graph, files = _golden_files(tmp_path, name)
    assert info_main([str(graph), *map(str, files)]) == 0
    blocks = capsys.readouterr().out.split("===\n")
    expected = list(GOLDEN[name]["info"].values())
    assert [mg.parse_fields(b) for b in blocks] == [mg.parse_fields(e) for e in expected]
    for mode, flags in (("sj", []), ("vi", ["-mode", "vi"]), ("mk", ["-mode", "mk"]), ("index", ["--index"])):
        out = tmp_path / f"{mode}.txt"
        assert dist_main([*flags, *map(str, files), "-o", str(out)]) == 0
        lines = out.read_text().splitlines()
        assert [mg.parse_fields(x) for x in lines] == [mg.parse_fields(x) for x in GOLDEN[name]["dist"][mode]]
        if mode == "sj":  # clm's exact layout: TAB-separated, trailing TAB
            assert lines[0].startswith("d=") and lines[0].endswith("\t") and lines[0].count("\t") == 8


@needs_clm
@pytest.mark.parametrize("name", ["collins", "loops"])
def test_live_clm_agrees(name, tmp_path):
    graph = case_graph(name)
    clusterings = case_clusterings(name)
    abc = gzip.decompress(mg.COLLINS.read_bytes()).decode() if name == "collins" else mg.LOOPS_ABC
    live = mg.clm_figures(abc, clusterings, tmp_path)
    for key, clusters in clusterings.items():
        assert mg.parse_fields(info_line(quality(graph, clusters), "x")) == mg.parse_fields(live["info"][key])
    keys = list(clusterings)
    a, b = clusterings[keys[0]], clusterings[keys[1]]
    assert tuple(split_join_distance(a, b)) == tuple(int(mg.parse_fields(live["dist"]["sj"][0])[k]) for k in ("d", "d1", "d2"))


def test_figures_match_igraph_and_networkx():
    """Independent implementations: igraph's compare_communities, networkx's modularity."""
    ig = pytest.importorskip("igraph")
    clusterings = case_clusterings("collins")
    a, b = clusterings["2"], clusterings["4"]
    labels = [v for c in a for v in c]
    ma = netmcl.analysis._membership(a, {v: i for i, v in enumerate(labels)}, "a")
    mb = netmcl.analysis._membership(b, {v: i for i, v in enumerate(labels)}, "b")
    assert variation_of_information(a, b).total == pytest.approx(ig.compare_communities(ma, mb, "vi"), abs=1e-12)
    assert normalized_mutual_information(a, b) == pytest.approx(ig.compare_communities(ma, mb, "nmi"), abs=1e-12)
    assert rand_index(a, b) == pytest.approx(ig.compare_communities(ma, mb, "rand"), abs=1e-12)
    assert adjusted_rand_index(a, b) == pytest.approx(ig.compare_communities(ma, mb, "adjusted_rand"), abs=1e-12)
    assert tuple(split_join_distance(a, b))[1:] == tuple(ig.split_join_distance(ma, mb))
    G = netmcl.datasets.load_collins2007()
    partition = [set(c) for c in a]
    assert modularity(G, a) == pytest.approx(nx.community.modularity(G, partition, weight="weight"), abs=1e-6)


def test_single_measures_agree_with_quality():
    G = netmcl.datasets.load_collins2007()
    clusters = case_clusterings("collins")["3"]
    q = quality(G, clusters)
    assert efficiency(G, clusters) == q["efficiency"]
    assert mass_fraction(G, clusters) == q["mass_fraction"]
    assert area_fraction(clusters) == q["area_fraction"]
    assert size_distribution(clusters)["dgi"] == q["dgi"] == 50
    assert area_fraction([[v] for c in clusters for v in c]) == 0.0  # clm prints its sentinel -1/(N(N-1))
    # a Clustering straight from netmcl.mcl takes the fast path and gives the same figures
    assert quality(G, netmcl.mcl(G, inflation=3.0, attribute=None)) == q


def test_identical_and_nested_clusterings():
    clusters = case_clusterings("collins")["2"]
    c = compare(clusters, clusters)
    assert c["split_join"] == (0, 0, 0) and c["mirkin"] == (0, 0, 0)
    assert c["variation_of_information"] == (0.0, 0.0, 0.0)
    assert c["rand"] == c["adjusted_rand"] == c["jaccard"] == c["nmi"] == c["f_score"] == 1.0
    # splitting every cluster into singletons: d1 = N - #clusters, d2 = 0
    singles = [[v] for cl in clusters for v in cl]
    assert split_join_distance(clusters, singles) == (1622 - 300, 1622 - 300, 0)


def test_f_score_by_hand():
    reference = [["a", "b", "c", "d"], ["e", "f"]]
    found = [["a", "b", "c"], ["d", "e", "f"]]
    # R1: best F = 2*3/(4+3) = 6/7 ; R2: best F = 2*2/(2+3) = 4/5 ; weighted by 4/6 and 2/6
    assert f_score(reference, found) == pytest.approx(4 / 6 * 6 / 7 + 2 / 6 * 4 / 5)
    assert f_score(found, found) == 1.0


def test_complex_measures_by_hand():
    clusters = [["a", "b", "c"], ["d", "e", "f"], ["g"], ["x"]]
    complexes = [["a", "b", "c", "d"], ["e", "f", "zz"], ["c", "g"], ["q", "r"]]
    m = compare_to_complexes(clusters, complexes)
    # zz, q, r are not clustered: complexes restricted to {a,b,c,d}, {e,f}, {c,g}; {q,r} dropped
    assert m["n_complexes"] == 3
    assert m["sensitivity"] == pytest.approx(6 / 8)  # (3 + 2 + 1) / (4 + 2 + 2)
    assert m["ppv"] == pytest.approx(6 / 8)  # (3 + 2 + 1) / (4 + 3 + 1)
    assert m["accuracy"] == pytest.approx(0.75)
    assert m["separation_complex"] == pytest.approx((31 / 48 + 2 / 3 + 5 / 8) / 3)
    assert m["separation_cluster"] == pytest.approx((11 / 16 + 3 / 4 + 1 / 2) / 3)  # cluster {x} left out
    assert m["separation"] == pytest.approx(math.sqrt(m["separation_complex"] * m["separation_cluster"]))
    # matching with min_size=3: only {a,b,c,d} and clusters {a,b,c}, {d,e,f}; 9/12 >= 0.25
    assert (m["fraction_matched"], m["fraction_clusters_matched"], m["n_matched"]) == (1.0, 0.5, 1)
    m2 = compare_to_complexes(clusters, complexes, min_size=2)
    assert m2["fraction_matched"] == pytest.approx(2 / 3)  # {e,f} ~ {d,e,f}: 4/6; {c,g}: 1/6 at best
    assert m2["fraction_clusters_matched"] == 1.0
    assert compare_to_complexes(clusters, complexes, overlap_threshold=0.8)["fraction_matched"] == 0.0


def test_complex_measures_on_cyc2008():
    G = netmcl.datasets.load_collins2007()
    complexes = netmcl.datasets.load_cyc2008()
    coarse = compare_to_complexes(netmcl.mcl(G, inflation=1.4, attribute=None), complexes)
    fine = compare_to_complexes(netmcl.mcl(G, inflation=6.0, attribute=None), complexes)
    assert 0 < fine["sensitivity"] < coarse["sensitivity"] <= 1  # bigger clusters cover complexes better
    assert 0 < coarse["ppv"] < fine["ppv"] <= 1  # smaller clusters are purer
    disjoint, seen = [], set()
    for c in complexes:
        if seen.isdisjoint(c):
            disjoint.append(c)
            seen.update(c)
    perfect = compare_to_complexes(disjoint, disjoint, min_size=1)
    assert perfect["sensitivity"] == perfect["ppv"] == perfect["separation"] == perfect["fraction_matched"] == 1.0
    # complexes sharing proteins cannot all be clusters of a partition: PPV < 1 when used as clusters
    assert compare_to_complexes(complexes, complexes)["ppv"] < 1


def test_quality_comparisons_and_complex_scores_load_no_scipy():
    """clm info's figures, distances between clusterings and scores against
    complexes count with numpy alone: importing scipy.sparse takes longer
    (0.2-0.4 s) than the README's demo spends on them."""
    script = (
        "import sys, netmcl, netmcl.datasets\n"
        "from netmcl.analysis import compare, compare_to_complexes, quality\n"
        "G = netmcl.datasets.load_collins2007()\n"
        "a, b = netmcl.mcl(G, attribute=None), netmcl.mcl(G, inflation=4.0, attribute=None)\n"
        "compare(a, b)\n"
        "q = quality(G, a)\n"
        "m = compare_to_complexes(a, netmcl.datasets.load_cyc2008())\n"
        "print(round(q['modularity'], 5), round(m['sensitivity'], 3), 'scipy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0.78714", "0.945", "False"]


def test_inputs_accepted():
    G = nx.barbell_graph(4, 0)
    ref = quality(G, [[0, 1, 2, 3], [4, 5, 6, 7]])
    assert quality(G, {0: 0, 1: 0, 2: 0, 3: 0, 4: 1, 5: 1, 6: 1, 7: 1}) == ref
    assert quality(G, netmcl.mcl(G, attribute=None)) == ref
    ig = pytest.importorskip("igraph")
    g = ig.Graph.from_networkx(G)
    g.vs["name"] = g.vs["_nx_name"]
    vc = netmcl.mcl(g)
    assert as_clusters(vc) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert quality(g, vc) == ref


def test_errors_are_clear():
    G = nx.path_graph(["a", "b", "c"])
    with pytest.raises(NotAPartitionError, match="in no cluster.*'c'"):
        quality(G, [["a", "b"]])
    with pytest.raises(NotAPartitionError, match="clusters 0 and 1"):
        quality(G, [["a", "b"], ["b", "c"]])
    with pytest.raises(ParameterError, match="'z' .* not a node of the graph"):
        quality(G, [["a", "b", "c", "z"]])
    with pytest.raises(ParameterError, match="same nodes"):
        compare([["a", "b"]], [["a", "b", "c"]])
    with pytest.raises(ParameterError, match="same nodes"):
        compare([["a", "b", "c"]], [["a", "b"]])
    with pytest.raises(ParameterError, match="same identifiers"):
        compare_to_complexes([["a", "b"]], [["YAL001C", "YBR123C"]])
    with pytest.raises(ParameterError, match="Got str instead"):
        quality(G, "abc")


def test_cli_errors(tmp_path, capsys):
    a = tmp_path / "a.txt"
    a.write_text("x\ty\n")
    b = tmp_path / "b.txt"
    b.write_text("x\ty\tz\n")
    assert dist_main([str(a), str(b)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("netmcl dist: error:") and "same nodes" in err and err.count("\n") == 1
    assert dist_main([str(a)]) == 2
    assert info_main([str(tmp_path / "missing.abc"), str(a)]) == 1
    assert "No such file" in capsys.readouterr().err
    mci = tmp_path / "g.mci"
    mci.write_text("(mclheader\nmcltype matrix\ndimensions 2x2\n)\n(mclmatrix\nbegin\n0 1 $\n1 0 $\n)\n")
    assert info_main([str(mci), str(a)]) == 1
    assert "-use-tab" in capsys.readouterr().err
    tab = tmp_path / "g.tab"
    tab.write_text("0\tx\n1\ty\n")
    assert info_main([str(mci), "-use-tab", str(tab), str(a)]) == 0
    assert capsys.readouterr().out.startswith("eff=1.00000 mod=0.00000")
