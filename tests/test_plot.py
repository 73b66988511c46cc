"""Pictures of clusterings: rendered to PNG and checked pixel by pixel."""

import sys

import networkx as nx
import numpy as np
import pytest

pytest.importorskip("matplotlib")

import netmcl  # noqa: E402
from netmcl import ParameterError  # noqa: E402
from netmcl.palette import NEUTRAL, PALETTE, cluster_colors, hex_to_rgb, size_ranks  # noqa: E402
from netmcl.analysis import quality  # noqa: E402
from netmcl.datasets import load_collins2007  # noqa: E402
from netmcl.viz.plot import cluster_layout, draw, draw_to_file, plot_sizes, plot_sweep  # noqa: E402
from netmcl.sweep import sweep  # noqa: E402


@pytest.fixture(autouse=True)
def _no_figure_left_open():
    """draw() without ax draws into pyplot's current axes, as nx.draw does: each test starts with none."""
    import matplotlib.pyplot as plt

    plt.close("all")
    yield
    plt.close("all")


def _pixels(path):
    from matplotlib.image import imread

    image = imread(path)
    return np.rint(image[..., :3] * 255).astype(int)


def _count(pixels, colour, tol=3):
    """Pixels within `tol` of a '#RRGGBB' colour on every channel."""
    return int((np.abs(pixels - np.array(hex_to_rgb(colour))) <= tol).all(axis=-1).sum())


def _cliques(sizes):
    G = nx.Graph()
    start = 0
    for k, size in enumerate(sizes):
        nodes = range(start, start + size)
        G.add_edges_from((a, b) for a in nodes for b in nodes if a < b)
        if k:
            G.add_edge(start - 1, start, weight=0.1)
        start += size
    return G


@pytest.fixture(scope="module")
def yeast():
    G = load_collins2007()
    return G, netmcl.mcl(G)


def test_palette_follows_size_rank():
    assert size_ranks([2, 5, 2, 7]) == [2, 1, 3, 0]
    assert cluster_colors([1] * 3 + [5] * 10) == [NEUTRAL] * 3 + list(PALETTE) + [NEUTRAL]
    with pytest.raises(ParameterError, match="Got 'blue'"):
        cluster_colors([1], palette=["blue"])


def test_node_picture_has_every_cluster_colour(tmp_path):
    G = nx.karate_club_graph()
    cl = netmcl.mcl(G)
    path = draw_to_file(G, cl, tmp_path / "karate.png")
    assert path == str(tmp_path / "karate.png")
    data = (tmp_path / "karate.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    pixels = _pixels(path)
    assert pixels.shape == (7 * 150, 9 * 150, 3)
    assert (pixels < 250).any(axis=-1).mean() > 0.02  # not blank
    for colour in PALETTE[:3]:  # 3 clusters: the first three colours, nothing else coloured
        assert _count(pixels, colour) > 200, colour
    for colour in PALETTE[3:]:
        assert _count(pixels, colour) == 0, colour
    assert list(tmp_path.iterdir()) == [tmp_path / "karate.png"]  # no temporary file left behind


def test_more_clusters_than_colours_share_the_neutral_colour(tmp_path):
    sizes = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]
    G = _cliques(sizes)
    cl = netmcl.mcl(G, sort="size")
    ax = draw(G, cl)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert [t.split(":")[0] for t in legend] == [f"cluster {k} ({sizes[k]})" for k in range(11, 2, -1)] + [
        "3 other clusters"
    ]
    scatter = ax.collections[-1]
    faces = ["#%02X%02X%02X" % tuple(np.rint(c[:3] * 255).astype(int)) for c in scatter.get_facecolors()]
    member = cl.membership
    assert faces == [cluster_colors(sizes)[member[v]] for v in G]
    path = tmp_path / "cliques.png"
    ax.figure.savefig(path, dpi=100)
    pixels = _pixels(path)
    assert all(_count(pixels, c) > 20 for c in PALETTE + (NEUTRAL,))


def test_large_graphs_get_the_cluster_level_picture(tmp_path, yeast):
    G, cl = yeast
    ax = draw(G, cl, max_nodes=1000)  # 1,622 nodes: one disc per cluster
    assert ax.get_title() == "300 clusters of 1622 nodes (disc area ∝ cluster size)"
    discs = ax.collections[-1]
    assert len(discs.get_paths()) == 300
    radii = sorted((np.ptp(p.vertices[:, 0]) / 2 for p in discs.get_paths()), reverse=True)
    assert np.allclose(np.square(radii[:3]), sorted(cl.sizes, reverse=True)[:3], rtol=1e-3)  # area ∝ members
    lines = ax.collections[0]
    assert len(lines.get_segments()) > 100 and max(lines.get_linewidths()) > 5 * min(lines.get_linewidths())

    path = draw_to_file(G, cl, tmp_path / "yeast.png", level="clusters", max_clusters=50)
    pixels = _pixels(path)
    assert all(_count(pixels, c) > 100 for c in PALETTE + (NEUTRAL,))


def test_cluster_layout_keeps_clusters_together_and_is_deterministic():
    G = _cliques([6, 7, 8, 9])
    cl = netmcl.mcl(G)
    pos = cluster_layout(G, cl)
    assert pos.keys() == set(G)
    xy = np.array([pos[v] for v in G])
    member = np.array([cl.membership[v] for v in G])
    centroids = np.array([xy[member == k].mean(axis=0) for k in range(len(cl))])
    nearest = np.linalg.norm(xy[:, None] - centroids[None], axis=-1).argmin(axis=1)
    assert np.array_equal(nearest, member)  # every node sits with its own cluster
    again = cluster_layout(G, cl)
    assert all(np.array_equal(pos[v], again[v]) for v in G)
    assert not all(np.array_equal(pos[v], p) for v, p in cluster_layout(G, cl, seed=1).items())


def test_given_positions_overlap_and_unclustered_nodes():
    G = nx.karate_club_graph()
    pos = nx.circular_layout(G)
    ax = draw(G, netmcl.mcl(G), pos=pos, with_labels=False)
    assert np.allclose(ax.collections[-1].get_offsets(), [pos[v] for v in G])
    with pytest.raises(ParameterError, match="no position for 1 nodes"):
        draw(G, netmcl.mcl(G), pos={v: p for v, p in pos.items() if v != 5})

    keep = netmcl.mcl(G, overlap="keep", inflation=1.4)
    draw(G, keep)  # nodes in several clusters take the first
    sub = G.subgraph(range(20))
    ax = draw(G, netmcl.mcl(sub))  # nodes 20..33 are not in the clustering: neutral grey
    faces = ax.collections[-1].get_facecolors()
    assert all("#%02X%02X%02X" % tuple(np.rint(c[:3] * 255).astype(int)) == NEUTRAL for c in faces[20:])
    with pytest.raises(ParameterError, match="None of the graph's nodes is in the clustering"):
        draw(nx.path_graph(["x", "y"]), netmcl.mcl(sub))
    with pytest.raises(ParameterError, match="no nodes: there is nothing to draw"):
        draw(nx.Graph(), netmcl.mcl(nx.Graph()))
    ax = draw(nx.empty_graph(1), netmcl.mcl(nx.empty_graph(1)), level="clusters")
    assert len(ax.collections[-1].get_paths()) == 1


def test_draw_to_file_errors_leave_no_file(tmp_path):
    G = nx.path_graph(4)
    cl = netmcl.mcl(G)
    with pytest.raises(ParameterError, match=r"end it with one of .*\.png"):
        draw_to_file(G, cl, tmp_path / "picture.xyz")
    with pytest.raises(ParameterError, match="Cannot write the picture"):
        draw_to_file(G, cl, tmp_path / "missing" / "p.png")
    with pytest.raises(ParameterError, match="level must be"):
        draw_to_file(G, cl, tmp_path / "p.png", level="edges")
    assert list(tmp_path.iterdir()) == []
    svg = draw_to_file(G, cl, tmp_path / "p.svg")
    assert open(svg).read().lstrip().startswith("<?xml")


def test_plot_sizes_shows_the_size_distribution(tmp_path, yeast):
    _, cl = yeast
    ax = cl.plot_sizes()
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    points = ax.lines[0].get_xydata()
    counts = np.unique(cl.sizes, return_counts=True)
    assert np.array_equal(points, np.column_stack(counts))
    assert points[points[:, 0] == 161, 1].tolist() == [1]
    ax.figure.savefig(tmp_path / "sizes.png")
    assert _count(_pixels(tmp_path / "sizes.png"), PALETTE[1]) > 100
    from matplotlib.figure import Figure

    assert plot_sizes(cl, color="#117733", ax=Figure().add_subplot()).lines[0].get_color() == "#117733"


def test_plot_sweep_draws_measures_against_inflation(tmp_path):
    G = nx.karate_club_graph()
    result = sweep(G, inflations=[3.0, 1.4, 5.0, 2.0])
    axes = plot_sweep(result, chosen=2.0)
    measures = ["n_clusters", "efficiency", "mass_fraction", "modularity"]
    assert [a.get_ylabel() for a in axes] == ["number of clusters", "efficiency", "weight inside clusters", "modularity"]
    assert axes[-1].get_xlabel() == "inflation (-I)"
    assert axes[0].get_title().startswith("How the clusters change with inflation")
    rows = sorted(result.table, key=lambda r: r["inflation"])
    for a, m in zip(axes, measures):
        x, y = a.lines[0].get_data()
        assert list(x) == [1.4, 2.0, 3.0, 5.0] and list(y) == [r[m] for r in rows]
        assert list(a.lines[1].get_xdata()) == [2.0, 2.0] and a.lines[1].get_label() == "chosen: 2"
    assert list(axes[0].lines[0].get_ydata()) == [len(netmcl.mcl(G, inflation=i)) for i in (1.4, 2, 3, 5)]
    axes[0].figure.savefig(tmp_path / "sweep.png")
    assert _count(_pixels(tmp_path / "sweep.png"), PALETTE[1]) > 50

    (a,) = plot_sweep(result, ["split_join_previous", "largest"], ax=axes[0].figure.add_subplot(5, 1, 5))
    assert [line.get_label() for line in a.lines] == ["change from previous (split/join distance)",
                                                      "largest cluster (nodes)"]
    assert np.isnan(a.lines[0].get_ydata()).tolist() == [False, False, True, False]  # 3.0 came first: no previous
    by_inflation = {I: quality(G, netmcl.mcl(G, inflation=I)) for I in (2.0, 1.4)}
    assert list(plot_sweep(by_inflation, ["modularity"])[0].lines[0].get_xdata()) == [1.4, 2.0]
    pytest.importorskip("pandas")
    assert len(plot_sweep(result.to_frame(), ["efficiency", "seconds"])) == 2
    with pytest.raises(ParameterError, match="needs numeric measures present in the sweep"):
        plot_sweep(result, ["converged"])
    with pytest.raises(ParameterError, match="mapping inflation"):
        plot_sweep([{"clusters": 3}])


def test_missing_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    G = nx.path_graph(3)
    with pytest.raises(netmcl.BackendUnavailableError, match=r"pip install 'netmcl\[plot\]'"):
        draw(G, netmcl.mcl(G))


def test_cli_plot_writes_the_picture_after_the_clusters(tmp_path):
    from netmcl import cli

    graph = tmp_path / "g.abc"
    graph.write_text("a\tb\t1\nb\tc\t1\na\tc\t1\nd\te\t1\ne\tf\t1\nd\tf\t1\nc\td\t0.1\n")
    out = tmp_path / "out.txt"
    assert cli.main([str(graph), "--abc", "-o", str(out), "--plot", str(tmp_path / "g.png")]) == 0
    assert out.read_text().splitlines() == ["a\tb\tc", "d\te\tf"]
    pixels = _pixels(tmp_path / "g.png")
    assert _count(pixels, PALETTE[0]) > 100 and _count(pixels, PALETTE[1]) > 100
    assert cli.main([str(graph), "--abc", "-o", str(out), "--plot", str(tmp_path / "g.nope")]) == 1
    assert not (tmp_path / "g.nope").exists() and out.exists()


def test_cli_plot_without_matplotlib_says_which_extra(tmp_path, monkeypatch, capsys):
    from netmcl import cli

    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    graph = tmp_path / "g.abc"
    graph.write_text("a\tb\t1\nb\tc\t1\n")
    out = tmp_path / "out.txt"
    assert cli.main([str(graph), "--abc", "-o", str(out), "--plot", str(tmp_path / "g.png")]) == 1
    assert out.read_text() == "a\tb\tc\n" and not (tmp_path / "g.png").exists()
    err = capsys.readouterr().err
    assert "--plot failed" in err and "pip install 'netmcl[plot]'" in err and "clusters were written" in err


def test_draw_without_ax_draws_into_pyplots_current_figure(tmp_path):
    """As nx.draw: plt.show()/plt.savefig() see the picture (Agg, no display)."""
    import matplotlib.pyplot as plt

    plt.close("all")
    G = _cliques([5, 4])
    try:
        ax = draw(G, netmcl.mcl(G))
        assert ax is plt.gca() and plt.get_fignums() == [ax.figure.number]
        plt.savefig(tmp_path / "current.png")
        pixels = _pixels(tmp_path / "current.png")
        assert _count(pixels, PALETTE[0]) > 50 and _count(pixels, PALETTE[1]) > 50
        fig, given = plt.subplots()
        assert draw(G, netmcl.mcl(G), ax=given) is given
        assert plot_sizes(netmcl.mcl(G)) is plt.gca() is given
        before = set(plt.get_fignums())
        axes = plot_sweep(sweep(G, inflations=[1.4, 2]))
        assert axes[0].figure.number in set(plt.get_fignums()) - before
    finally:
        plt.close("all")


def test_draw_to_file_leaves_no_pyplot_figure_open(tmp_path):
    import matplotlib.pyplot as plt

    plt.close("all")
    G = _cliques([3, 3])
    draw_to_file(G, netmcl.mcl(G), tmp_path / "g.png")
    assert plt.get_fignums() == []


def test_draw_names_nodes_and_clusters():
    """Node labels from an attribute; the legend names a cluster by its best complex, else its hubs."""
    from matplotlib.figure import Figure

    G = nx.Graph()
    nx.add_star(G, ["a", "b", "c", "d", "e"])  # hub a
    nx.add_star(G, ["f", "g", "h", "i", "j"])  # hub f
    G.add_edge("e", "j", weight=0.1)
    nx.set_node_attributes(G, {v: f"gene_{v.upper()}$" for v in G}, "symbol")
    cl = netmcl.mcl(G)
    assert len(cl) == 2
    first = cl.membership["a"]
    ax = draw(G, cl, ax=Figure().add_subplot(), label_attribute="symbol", complexes={"the A complex": ["a", "b", "c"]})
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[first].endswith(": the A complex")
    assert legend[1 - first].startswith(f"cluster {1 - first} (5): gene_F\\$")  # the hub first; '$' shown as text
    assert "gene_A\\$" in [t.get_text() for t in ax.texts]
    with pytest.raises(ParameterError, match="gene_symbol"):
        draw(G, cl, ax=Figure().add_subplot(), label_attribute="gene_symbol")
