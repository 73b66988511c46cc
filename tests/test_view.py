"""The HTML view (netmcl.view): the page as written, and as headless Chromium renders it offline."""

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import networkx as nx
import pytest

import netmcl
from netmcl.datasets import load_collins2007, load_cyc2008, load_yeast_gene_names
from netmcl.exceptions import ParameterError
from netmcl.viz.html import _json_for_script

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (Debian: apt-get install chromium)")

HOSTILE = ["<img src=x onerror=alert(1)>", "</script><script>alert(1)</script>", "a&amp;b\u2028", "<!--"]


def chromium(url, *args, timeout=60):
    """Run headless Chromium on `url` with no network and a fresh profile; its stdout."""
    with tempfile.TemporaryDirectory() as profile:
        cmd = [
            CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            f"--user-data-dir={profile}", "--virtual-time-budget=5000", *args, url,
        ]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def rendered(path, fragment=""):
    """The rendered DOM and the page's status attributes."""
    dom = chromium(Path(path).resolve().as_uri() + fragment, "--dump-dom")
    tag = re.search(r'<div id="netmcl-status"([^>]*)>', dom)
    assert tag, dom[-2000:]
    status = dict(re.findall(r'(data-[a-z-]+)="([^"]*)"', tag.group(1)))
    errors = re.search(r'<div id="netmcl-errors">(.*?)</div>', dom, re.S).group(1)
    return dom, status, errors


@pytest.fixture(scope="module")
def yeast():
    G = load_collins2007()
    return G, netmcl.mcl(G)


@pytest.fixture(scope="module")
def yeast_page(yeast, tmp_path_factory):
    """The yeast network's view: proteins by gene name, clusters named by CYC2008's complexes."""
    G, cl = yeast
    path = tmp_path_factory.mktemp("view") / "yeast.html"
    return netmcl.view(G, cl, path, label_attribute="gene", complexes=load_cyc2008(named=True))


def test_json_in_a_script_cannot_close_it():
    text = _json_for_script({"name": HOSTILE})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"name": HOSTILE}


def test_page_is_self_contained_and_names_clusters(yeast, yeast_page):
    G, cl = yeast
    v = yeast_page
    page = Path(v.path).read_text(encoding="utf-8")
    assert page == v.html
    assert "http://" not in page.split("<script>")[0] and "src=" not in page.split('id="netmcl-data"')[0]
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page).group(1)
    assert "default-src 'none'" in csp and "connect-src 'none'" in csp and "unsafe" not in csp
    data = json.loads(re.search(r'id="netmcl-data">(.*?)</script>', page, re.S).group(1))
    assert data["mode"] == "nodes" and len(data["nodes"]["name"]) == G.number_of_nodes()
    assert [c["size"] for c in data["clusters"]] == cl.sizes
    # proteins are shown by gene name, or by ORF where they have none
    genes = load_yeast_gene_names()
    assert data["nodes"]["name"] == [genes.get(v, v) for v in data["nodes"]["id"]]
    assert sum(v in genes for v in G) == 1174 and "TFC3" in data["nodes"]["name"]
    # cluster 0 is named by the CYC2008 complex it overlaps best, checked against the overlap score
    members = set(cl.clusters[0]) if hasattr(cl, "clusters") else set(cl.partition()[0])
    complexes = load_cyc2008(named=True)
    scores = {name: len(members & set(c)) ** 2 / (len(members) * len(set(c) & set(G))) if set(c) & set(G) else 0
              for name, c in complexes.items()}
    best = max(scores, key=scores.__getitem__)
    assert scores[best] >= 0.25 and data["clusters"][0]["name"] == best == "cytoplasmic ribosomal large subunit"
    assert "<iframe srcdoc=" in v._repr_html_() and 'sandbox="allow-scripts"' in v._repr_html_()


def test_view_without_path_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    G = nx.karate_club_graph()
    v = netmcl.view(G, netmcl.mcl(G))
    assert v.path is None and list(tmp_path.iterdir()) == []
    assert v.html.startswith("<!DOCTYPE html>")


def test_bad_label_attribute_is_named(tmp_path):
    G = nx.karate_club_graph()
    with pytest.raises(ParameterError, match="gene_symbol"):
        netmcl.view(G, netmcl.mcl(G), label_attribute="gene_symbol")


@needs_chromium
def test_yeast_view_renders_offline_in_chromium(yeast, yeast_page):
    G, cl = yeast
    dom, status, errors = rendered(yeast_page.path, "#search=YPL126W")  # found by its ORF (NAN1), as if clicked
    assert status["data-ready"] == "true", errors
    assert status["data-errors"] == "0" and errors.strip() == ""
    assert int(status["data-rendered-nodes"]) == G.number_of_nodes()
    assert int(status["data-rendered-edges"]) == G.number_of_edges()
    assert dom.count('<li><span class="swatch"') == len(cl)  # the cluster list, one entry per cluster
    assert "<span>cytoplasmic ribosomal large subunit</span>" in dom and "<span>SAGA complex</span>" in dom
    panel = re.search(r'<div id="netmcl-panel">(.*?)</table>', dom, re.S).group(1)
    assert "NAN1" in panel and f"<h4>{G.degree('YPL126W')} neighbours (weight)</h4>" in panel
    shown = re.findall(r'</span>([A-Za-z0-9-]+)</td><td class="num">([0-9.e-]+)</td>', panel)
    assert {v: float(w) for v, w in shown} == pytest.approx(
        {G.nodes[v]["gene"]: float(f"{d['weight']:.3g}") for v, d in G["YPL126W"].items()}, rel=1e-6)


def test_page_script_builds_text_only():
    """The page's own script never parses data as markup."""
    from importlib import resources

    script = resources.files("netmcl.viz").joinpath("static", "view.js").read_text()
    assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function", script)


@needs_chromium
def test_large_graph_opens_on_cluster_graph_and_expands(yeast, tmp_path):
    G, cl = yeast
    netmcl.view(G, cl, tmp_path / "yeast.html", max_nodes=100)
    _, status, errors = rendered(tmp_path / "yeast.html")
    assert status["data-mode"] == "clusters" and status["data-errors"] == "0", errors
    assert int(status["data-rendered-nodes"]) == len(cl)
    _, status, errors = rendered(tmp_path / "yeast.html", "#cluster=2")
    assert status["data-errors"] == "0", errors
    assert int(status["data-rendered-nodes"]) == len(cl) - 1 + cl.sizes[2]


@needs_chromium
def test_hostile_names_stay_text(tmp_path):
    G = nx.Graph(name="<img src=x onerror=alert(2)>")  # the page's title too
    for i, name in enumerate(HOSTILE):  # a star per hostile name: each is its cluster's hub
        G.add_node(f"hub{i}", symbol=name)
        for j in range(4):
            G.add_edge(f"hub{i}", f"leaf{i}_{j}", weight=1.0)
    cl = netmcl.mcl(G)
    path = tmp_path / "hostile.html"
    netmcl.view(G, cl, path, label_attribute="symbol", complexes={"<b>bold</b><svg onload=alert(1)>": ["leaf0_0", "x"]})
    page = path.read_text(encoding="utf-8")
    assert "<img" not in page and "<svg" not in page and "<b>" not in page
    assert page.count("<script") == 4 and page.count("</script>") == 4
    dom, status, errors = rendered(path, "#search=onerror")
    assert status["data-ready"] == "true" and status["data-errors"] == "0", errors
    assert int(status["data-rendered-nodes"]) == G.number_of_nodes()
    # the names are text in the rendered page (the cluster list, the search hits), never elements
    assert "&lt;img src=x onerror=alert(1)&gt;" in dom
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in dom
    assert "<img" not in dom and "<svg" not in dom and "<b>" not in dom
    assert dom.count("<script") == 4


@needs_chromium
def test_screenshot(yeast_page, tmp_path):
    """The picture the documentation shows (docs/_static/view.png) is taken this way."""
    png = tmp_path / "view.png"
    chromium(Path(yeast_page.path).resolve().as_uri() + "#cluster=1", "--hide-scrollbars", "--window-size=1200,800",
             f"--screenshot={png}")
    assert png.read_bytes()[:4] == b"\x89PNG" and png.stat().st_size > 20000


@needs_chromium
def test_jupyter_shows_the_view_inline_in_a_sandboxed_frame(tmp_path):
    """_repr_html_ is an iframe whose page draws the clusters in their colours (read off a screenshot)."""
    image = pytest.importorskip("matplotlib.image")
    import numpy as np

    from netmcl.palette import PALETTE, hex_to_rgb

    G = nx.karate_club_graph()
    cl = netmcl.mcl(G)
    (tmp_path / "notebook.html").write_text(
        "<!DOCTYPE html><html><body>" + netmcl.view(G, cl)._repr_html_() + "</body></html>", encoding="utf-8"
    )
    png = tmp_path / "notebook.png"
    chromium((tmp_path / "notebook.html").as_uri(), "--hide-scrollbars", "--window-size=1000,700",
             f"--screenshot={png}")
    pixels = np.rint(image.imread(png)[..., :3] * 255).astype(int)
    for colour in PALETTE[: len(cl)]:
        assert (np.abs(pixels - hex_to_rgb(colour)).max(axis=-1) <= 2).sum() > 100, colour  # the smallest: 3 discs
