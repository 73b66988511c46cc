"""An interactive view of a clustering in one self-contained HTML file.

:func:`view` writes a page that opens in any browser, offline: the graph
library (cytoscape.js, MIT, bundled with netmcl under ``viz/static``) and the
data are inlined.  Nodes are coloured by cluster with the palette of
:func:`netmcl.draw` and :func:`netmcl.cytoscape.push`; the page has a search
box for a protein, the list of clusters with their sizes and names, and a
click on a node lists its neighbours and the edge weights.  Graphs of more
than ``max_nodes`` nodes open on the cluster graph (one node per cluster,
edges weighted by the summed weight between clusters), and a click opens a
cluster into its members.  The address can open a cluster or find a protein:
``view.html#cluster=3``, ``view.html#search=CDC28``.

Names come from files other people wrote, so the page treats them as text
only: the data is JSON inside ``<script type="application/json">`` with
``<``, ``>``, ``&``, U+2028 and U+2029 escaped, the page builds its text with
``textContent``, and a Content Security Policy allows only the page's own
scripts (by hash) and no network access.
"""

import base64
import hashlib
import html
import json
import logging
import os
from importlib import resources

import numpy as np

from .names import cluster_names, node_names
from ..palette import NEUTRAL, cluster_colors
from ..adapters import to_sparse_graph
from ..exceptions import ParameterError
from ..io import atomic_write

__all__ = ["view", "View", "MAX_VIEW_NODES"]

log = logging.getLogger("netmcl")

#: Above this many nodes the page opens on the cluster graph: the browser lays
#: out and draws every node at once up to about this size without stalling.
MAX_VIEW_NODES = 3000

_STYLE = """
html, body { margin: 0; height: 100%; font: 13px/1.35 system-ui, sans-serif; color: #222; }
#netmcl-main { display: flex; height: 100vh; }
#netmcl-side { width: 320px; overflow: auto; padding: 8px 10px; border-right: 1px solid #ddd; box-sizing: border-box; }
#netmcl-graph { flex: 1; min-width: 0; height: 100%; position: relative; }
.__________cytoscape_container { position: relative; }
h1 { font-size: 15px; margin: 4px 0 6px; } h2 { font-size: 13px; margin: 10px 0 4px; }
h3 { font-size: 14px; margin: 6px 0 2px; } h4 { font-size: 12px; margin: 8px 0 2px; }
#netmcl-search { width: 100%; box-sizing: border-box; padding: 4px; }
ul, ol { margin: 2px 0; padding-left: 0; list-style: none; }
li, tr { cursor: pointer; } li:hover, tr:hover { background: #f2f2f2; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 5px; margin-right: 5px; }
.num { color: #555; font-variant-numeric: tabular-nums; } td.num { text-align: right; padding-left: 8px; }
.muted { color: #777; } #netmcl-errors { color: #a00; white-space: pre-wrap; }
"""

# Runs before the library: any script error or blocked resource lands in the page, where a reader
# (and a test reading the rendered page) sees it.
_CATCH = """
(function () {
  var log = [];
  function note(text) {
    log.push(text);
    var out = document.getElementById("netmcl-errors");
    if (out) out.textContent = log.join("\\n");
    var st = document.getElementById("netmcl-status");
    if (st) st.setAttribute("data-errors", String(log.length));
  }
  window.addEventListener("error", function (e) { note("error: " + (e.message || e.type)); });
  window.addEventListener("unhandledrejection", function (e) { note("error: " + e.reason); });
  document.addEventListener("securitypolicyviolation", function (e) {
    note("blocked by the page's security policy: " + e.violatedDirective + " " + e.blockedURI);
  });
  var err = console.error;
  console.error = function () { note("console: " + Array.prototype.join.call(arguments, " ")); return err.apply(console, arguments); };
})();
"""


def _static(name):
    return resources.files("netmcl.viz").joinpath("static", name).read_text(encoding="utf-8")


def _sha256(text):
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


def _json_for_script(value):
    """JSON safe inside a <script> element: no '<', '>', '&' or line separators left as such."""
    text = json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _weight(x):
    return float(f"{x:.6g}")


def _data(G, clustering, *, label_attribute, complexes, max_nodes, weight, seed):
    from .plot import _centres, _flows, _groups, _node_positions

    graph = to_sparse_graph(G, weight=weight)
    member = _groups(graph, clustering)
    k = len(clustering)
    names = node_names(G, graph.labels, label_attribute)
    named = cluster_names(graph, member, clustering, names, complexes=complexes)
    colors = cluster_colors(clustering.sizes)
    A = graph.matrix.tocsr()
    sym = A.maximum(A.T).tocoo()
    keep = sym.row < sym.col
    if not np.isfinite(sym.data).all():
        raise ParameterError("The graph has an edge weight that is not a finite number; the view cannot show it.")
    edges = [[int(i), int(j), _weight(w)] for i, j, w in zip(sym.row[keep], sym.col[keep], sym.data[keep])]
    mode = "nodes" if graph.n <= max_nodes else "clusters"
    scale = 60.0  # layout units -> screen pixels at zoom 1
    nodes = {"id": [str(v) for v in graph.labels], "name": names, "cluster": member.tolist()}
    clusters = [{"size": int(s), "name": nm, "score": None if sc is None else round(sc, 2), "color": c}
                for s, (nm, sc), c in zip(clustering.sizes, named, colors)]
    cluster_edges = []
    if mode == "nodes":
        xy = _node_positions(graph, member, k, seed) * scale
        nodes["x"] = np.round(xy[:, 0], 1).tolist()
        nodes["y"] = np.round(-xy[:, 1], 1).tolist()
    else:
        flows = _flows(graph, member, k)
        radii = np.sqrt(np.maximum(np.array(clustering.sizes, dtype=float), 1))
        centres = _centres(flows, radii, seed) * scale
        for c, (x, y) in zip(clusters, centres):
            c["x"], c["y"] = round(float(x), 1), round(float(-y), 1)
        upper = flows.tocoo()
        top = float(upper.data.max()) if upper.nnz else 1.0
        for a, b, w in zip(upper.row.tolist(), upper.col.tolist(), upper.data.tolist()):
            if a < b:
                cluster_edges.append([a, b, _weight(w), round(0.5 + 6 * (w / top) ** 0.5, 2)])
    title = getattr(G, "name", "") if isinstance(getattr(G, "name", None), str) else ""
    return {
        "title": title or "MCL clusters",
        "mode": mode,
        "neutral": NEUTRAL,
        "nodes": nodes,
        "edges": edges,
        "clusters": clusters,
        "cluster_edges": cluster_edges,
        "n_nodes": graph.n,
    }


def _page(data):
    library = _static("cytoscape.min.js")
    app = _static("view.js")
    csp = "; ".join([
        "default-src 'none'",
        f"script-src {_sha256(_CATCH)} {_sha256(library)} {_sha256(app)}",
        f"style-src {_sha256(_STYLE)}",
        "img-src data:",  # the library draws on canvases and may hand them over as data: images
        "connect-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
    ])
    title = html.escape(f"{data['title']} — {len(data['clusters'])} clusters of {data['n_nodes']} nodes")
    what = "cluster graph: click a cluster to open it" if data["mode"] == "clusters" else "click a node for its neighbours"
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n"  # no quotes or markup in it
        # the library adds its own <style> unless one with this id is there; ours carries its one rule
        f"<title>{title}</title>\n<style id=\"__________cytoscape_stylesheet\">{_STYLE}</style>\n"
        f"<script>{_CATCH}</script>\n</head>\n<body>\n<div id=\"netmcl-main\">\n<div id=\"netmcl-side\">\n"
        f"<h1>{title}</h1>\n<div class=\"muted\">{html.escape(what)}; made with netmcl</div>\n"
        "<input id=\"netmcl-search\" type=\"search\" placeholder=\"find a protein\" aria-label=\"find a protein\">\n"
        "<ul id=\"netmcl-hits\"></ul>\n<div id=\"netmcl-panel\"></div>\n<h2>Clusters (size) and names</h2>\n"
        "<ol id=\"netmcl-clusters\"></ol>\n<div id=\"netmcl-errors\"></div>\n"
        f"<div id=\"netmcl-status\" data-nodes=\"{data['n_nodes']}\" data-clusters=\"{len(data['clusters'])}\" "
        f"data-mode=\"{data['mode']}\" data-errors=\"0\"></div>\n</div>\n"
        "<div id=\"netmcl-graph\"></div>\n</div>\n"
        f"<script type=\"application/json\" id=\"netmcl-data\">{_json_for_script(data)}</script>\n"
        f"<script>{library}</script>\n<script>{app}</script>\n</body>\n</html>\n"
    )


class View:
    """A written view: its HTML, shown inline by Jupyter (an isolated iframe).

    Attributes
    ----------
    html : str
        The whole page.
    path : str or None
        Where it was written, if it was.
    """

    def __init__(self, page, path=None, height=640):
        self.html = page
        self.path = path
        self.height = height

    def _repr_html_(self):
        # srcdoc keeps the page whole and offline; sandbox without allow-same-origin keeps its
        # scripts away from the notebook
        return (
            f'<iframe srcdoc="{html.escape(self.html, quote=True)}" sandbox="allow-scripts" '
            f'style="width: 100%; height: {int(self.height)}px; border: 1px solid #ddd"></iframe>'
        )

    def __repr__(self):
        where = f" written to {self.path!r}" if self.path else ""
        return f"<netmcl View of {len(self.html)} characters{where}>"


def view(G, clustering, path=None, *, label_attribute=None, complexes=None, max_nodes=MAX_VIEW_NODES,
         weight="weight", seed=0):
    """Write an interactive view of a clustering to one self-contained HTML file.

    Parameters
    ----------
    G : NetworkX graph, SparseGraph or any graph :func:`netmcl.mcl` accepts
    clustering : Clustering
        The result of :func:`netmcl.mcl` on `G`.
    path : str or os.PathLike, optional
        The HTML file to write (whole or not at all).  Without it, nothing
        is written and the returned :class:`View` shows inline in Jupyter.
    label_attribute : str or mapping, optional
        Node attribute with the names to show (``"preferred_name"`` for a
        graph from :func:`netmcl.read_string`, ``"gene"`` for
        :func:`netmcl.datasets.load_collins2007`), or a mapping label ->
        name; default the node labels.
    complexes : mapping name -> members, or list of member lists, optional
        Known complexes (e.g. :func:`netmcl.datasets.load_cyc2008`): each
        cluster is named by the complex it overlaps best (overlap score of
        :func:`netmcl.compare_to_complexes` at least 0.25), or else by its
        most connected members.  Complexes in a list are named by position
        from 1.
    max_nodes : int, default 3000
        Larger graphs open on the cluster graph.
    weight : str, default "weight"
    seed : int, default 0
        Seed of the layout.

    Returns
    -------
    View
        The page (``.html``), with ``_repr_html_`` for Jupyter.

    Raises
    ------
    ParameterError
        If `G` and `clustering` share no node, `label_attribute` is on no
        node, or the file cannot be written.

    Examples
    --------
    >>> import os, tempfile
    >>> import networkx as nx
    >>> import netmcl
    >>> G = nx.karate_club_graph()
    >>> path = os.path.join(tempfile.mkdtemp(), "karate.html")
    >>> v = netmcl.view(G, netmcl.mcl(G), path, complexes={"officers": [0, 1, 2, 3]})
    >>> v.path == path, "officers" in open(path, encoding="utf-8").read()
    (True, True)
    """
    if max_nodes < 0:
        raise ParameterError(f"max_nodes must be 0 or more. Got {max_nodes!r} instead.")
    page = _page(_data(G, clustering, label_attribute=label_attribute, complexes=complexes,
                       max_nodes=max_nodes, weight=weight, seed=seed))
    if path is not None:
        path = os.fspath(path)
        try:
            with atomic_write(path, "w") as handle:
                handle.write(page)
        except OSError as e:
            raise ParameterError(f"Cannot write the view {path!r}: {e.strerror or e}.") from None
        log.info("wrote %s", path)
    return View(page, path)
