"""Clusters out as tables, annotated graphs and a provenance report.

* :func:`to_frame` -- a pandas DataFrame ``node, cluster, <node attributes>``;
* :func:`write_tsv` -- the same table as a TAB-separated file (no pandas
  needed);
* :func:`write_graphml`, :func:`write_gml` -- the graph with each node's
  cluster as a node attribute, for Cytoscape, Gephi or yEd;
* :func:`run_report`, :func:`write_run_report` -- a JSON record of a run:
  netmcl version, parameters, per-iteration chaos and timing, and checksums
  of the input.

Cluster numbers are mcl's: 0 is the largest cluster (the first line of mcl's
output).  Every file is written atomically: it appears complete or not at
all.
"""

import dataclasses
import datetime
import hashlib
import json
import platform
import re
import sys

import numpy as np

from ..adapters.pandas import require_pandas
from ..exceptions import ParameterError
from ._files import atomic_write

__all__ = ["to_frame", "write_tsv", "write_graphml", "write_gml", "run_report", "write_run_report"]


def _module_of(obj):
    return type(obj).__module__.split(".")[0]


def _node_attributes(G, labels, attributes, skip):
    """{attribute: [value per label]} for the graph's node attributes (None where absent)."""
    if G is None:
        return {}
    if _module_of(G) == "igraph":
        names = G.vs["name"] if "name" in G.vs.attributes() else list(range(G.vcount()))
        position = {name: k for k, name in enumerate(names)}
        available = [a for a in G.vs.attributes() if a != "name"]
        table = {a: G.vs[a] for a in available}

        def value(label, a):
            k = position.get(label)
            return None if k is None else table[a][k]

    elif _module_of(G) == "networkx":
        available = []
        for _, data in G.nodes(data=True):
            available.extend(a for a in data if a not in available)

        def value(label, a):
            return G.nodes[label].get(a) if label in G else None

    else:
        raise ParameterError(
            f"Node attributes can be read from a NetworkX or igraph graph. Got {type(G).__name__} instead."
        )
    if attributes is None:
        attributes = [a for a in available if a not in skip]
    else:
        attributes = list(attributes)
        missing = [a for a in attributes if a not in available]
        if missing:
            raise ParameterError(
                f"The graph's nodes have no attribute {missing[0]!r}; they have {sorted(available)}."
            )
    return {a: [value(label, a) for label in labels] for a in attributes}


def _rows(clustering, G, attributes, label_attribute):
    """Columns of the node table: one row per (node, cluster), clusters in order."""
    from ..adapters import as_clusters

    clusters = as_clusters(clustering)
    nodes = [label for cluster in clusters for label in cluster]
    number = [k for k, cluster in enumerate(clusters) for _ in cluster]
    skip = {"mcl_cluster", "__mclCluster"} | ({label_attribute} if label_attribute else set())
    extra = _node_attributes(G, nodes, attributes, skip)
    columns = {"node": nodes, "cluster": number}
    if label_attribute is not None:
        names = _node_attributes(G, nodes, [label_attribute], set())[label_attribute]
        columns[label_attribute] = names
    columns.update(extra)
    return columns


def to_frame(clustering, G=None, *, attributes=None, label_attribute=None):
    """The clusters as a pandas DataFrame: one row per node, clusters in mcl's order.

    Parameters
    ----------
    clustering : Clustering, list of clusters, dict or VertexClustering
    G : networkx.Graph or igraph.Graph, optional
        The clustered graph; its node attributes become columns.
    attributes : list of str, optional
        The node attributes to include; default: all (except the cluster
        attribute netmcl wrote).
    label_attribute : str, optional
        A node attribute with readable names (``"preferred_name"`` for a
        graph from :func:`netmcl.read_string`), put right after ``cluster``.

    Returns
    -------
    pandas.DataFrame
        Columns ``node``, ``cluster`` (0 = the largest), then the
        attributes.  A node in several clusters (``overlap="keep"``) has one
        row per cluster.

    Raises
    ------
    BackendUnavailableError
        Without pandas (``pip install 'netmcl[tables]'``).

    Examples
    --------
    >>> import networkx as nx
    >>> import netmcl
    >>> G = nx.barbell_graph(3, 0)
    >>> nx.set_node_attributes(G, {0: "hub", 5: "tip"}, "role")
    >>> to_frame(netmcl.mcl(G), G)
       node  cluster role
    0     0        0  hub
    1     1        0  NaN
    2     2        0  NaN
    3     3        1  NaN
    4     4        1  NaN
    5     5        1  tip
    """
    return require_pandas().DataFrame(_rows(clustering, G, attributes, label_attribute))


#: what would break a TAB-separated table's layout: the TAB, and every character that some reader takes
#: for the end of a line (Python's ``str.splitlines`` takes them all); each becomes a space
_TSV_BREAKS = str.maketrans(dict.fromkeys("\t\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029", " "))


def _cell(value):
    if value is None:
        return ""
    return str(value).translate(_TSV_BREAKS)


def write_tsv(path, clustering, G=None, *, attributes=None, label_attribute=None):
    """Write the node table of :func:`to_frame` as a TAB-separated file with a header.

    Needs no pandas.  Missing attribute values are empty cells; TABs and
    line breaks inside names and values (also the header's: the attribute
    names) become spaces, so that every row is one line of as many cells
    as the header, whatever the names hold.  Cells are not otherwise
    changed: a spreadsheet may take one starting with ``=`` for a formula
    (import the file as text).

    Parameters
    ----------
    path : str, os.PathLike or file object
        ``"-"`` writes to standard output.
    clustering, G, attributes, label_attribute
        As :func:`to_frame`.

    Examples
    --------
    >>> import sys
    >>> write_tsv(sys.stdout, [["a", "b"], ["c"]])
    node	cluster
    a	0
    b	0
    c	1
    """
    columns = _rows(clustering, G, attributes, label_attribute)
    names = list(columns)
    with atomic_write(path) as fh:
        fh.write("\t".join(map(_cell, names)) + "\n")
        for row in zip(*columns.values()):
            fh.write("\t".join(_cell(v) for v in row) + "\n")


def _first_cluster(clustering):
    """Dict label -> number of the first cluster holding it."""
    from ..adapters import as_clusters

    membership = {}
    for k, cluster in enumerate(as_clusters(clustering)):
        for label in cluster:
            membership.setdefault(label, k)
    return membership


#: characters XML 1.0 cannot hold, not even as character references (so GraphML cannot); igraph's GML
#: writer drops them silently
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _check_text(G, fmt):
    """Refuse names and text attributes holding characters the file could not keep (see _NOT_XML)."""
    if _module_of(G) == "igraph":
        items = [(f"vertex {v.index}", v.attributes()) for v in G.vs] + [(f"edge {e.tuple}", e.attributes()) for e in G.es]
        names = [(item, value) for item, attrs in items for value in attrs.values()]
        keys = G.vs.attributes() + G.es.attributes() + G.attributes()
        names += [(f"graph attribute {k!r}", G[k]) for k in G.attributes()]
    else:
        names = [(f"node {n!r}", n) for n in G.nodes]
        names += [(f"node {n!r}", v) for n, data in G.nodes(data=True) for v in data.values()]
        names += [(f"edge {(u, v)!r}", x) for u, v, data in G.edges(data=True) for x in data.values()]
        keys = [k for _, data in G.nodes(data=True) for k in data] + [k for *_, data in G.edges(data=True) for k in data]
    names += [(f"attribute name {k!r}", k) for k in keys]
    for where, value in names:
        bad = _NOT_XML.search(value) if isinstance(value, str) else None
        if bad:
            raise ParameterError(
                f"Cannot write {fmt.upper()}: {where} holds the control character U+{ord(bad.group()):04X}, which "
                f"{fmt.upper()} cannot represent. Remove or replace it (e.g. networkx.relabel_nodes) first."
            )


def _write_graph(path, G, clustering, attribute, fmt):
    import networkx as nx

    membership = None if clustering is None else _first_cluster(clustering)
    if fmt == "graphml" or _module_of(G) == "igraph":
        _check_text(G, fmt)
    if _module_of(G) == "igraph":
        g = G.copy()
        if membership is not None:
            names = g.vs["name"] if "name" in g.vs.attributes() else range(g.vcount())
            g.vs[attribute] = [membership.get(name, -1) for name in names]
        with atomic_write(path, "wb") as fh:
            getattr(g, f"write_{fmt}")(fh)
        return
    if _module_of(G) != "networkx":
        raise ParameterError(
            f"write_{fmt} writes a NetworkX or igraph graph. Got {type(G).__name__} instead."
        )
    H = G
    if membership is not None:
        H = G.copy()
        for node, data in H.nodes(data=True):
            data[attribute] = membership.get(node, -1)
    with atomic_write(path, "wb") as fh:
        getattr(nx, f"write_{fmt}")(H, fh)


def write_graphml(path, G, clustering=None, *, attribute="mcl_cluster"):
    """Write the graph as GraphML with each node's cluster number as a node attribute.

    Cytoscape, Gephi and yEd read GraphML; the cluster becomes an integer
    (``long``) node column.  `G` itself is not modified.  Node names and
    attributes are written as XML text, escaped (``<`` as ``&lt;``...): a
    name never becomes markup.  A name or text attribute holding a control
    character XML cannot represent is refused (ParameterError).

    Parameters
    ----------
    path : str, os.PathLike or binary file object
    G : networkx.Graph or igraph.Graph
    clustering : Clustering, list of clusters, dict or VertexClustering, optional
        Default: the graph is written as it is (e.g. after ``netmcl.mcl``
        stored the attribute).
    attribute : str, default "mcl_cluster"
        The node attribute; use ``"__mclCluster"`` for Cytoscape
        clusterMaker2's column.  Nodes in no cluster get -1.

    Examples
    --------
    >>> import io
    >>> import networkx as nx
    >>> buf = io.BytesIO()
    >>> write_graphml(buf, nx.path_graph(["a", "b"]), [["a", "b"]])
    >>> b'attr.name="mcl_cluster" attr.type="long"' in buf.getvalue()
    True
    """
    _write_graph(path, G, clustering, attribute, "graphml")


def write_gml(path, G, clustering=None, *, attribute="mcl_cluster"):
    """Write the graph as GML with each node's cluster number as a node attribute.

    Parameters as :func:`write_graphml`; GML names must start with a
    letter and hold only letters, digits and underscores.  Strings are
    quoted, with ``"`` and ``&`` (NetworkX: also control characters)
    written as character references, so a name never ends its string.

    Examples
    --------
    >>> import io
    >>> import networkx as nx
    >>> buf = io.BytesIO()
    >>> write_gml(buf, nx.path_graph(["a", "b"]), [["a", "b"]])
    >>> print(buf.getvalue().decode().split("]")[0])
    graph [
      node [
        id 0
        label "a"
        mcl_cluster 0
    <BLANKLINE>
    """
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", attribute):
        raise ParameterError(
            "GML attribute names must start with a letter and hold only letters, digits and underscores "
            f"(e.g. 'mcl_cluster' or 'mclCluster'). Got {attribute!r} instead."
        )
    _write_graph(path, G, clustering, attribute, "gml")


def _file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def graph_checksum(graph):
    """sha256 of a :class:`~netmcl.SparseGraph`: labels, arcs and float32 weights.

    Two inputs with the same checksum give the same MCL run.

    Examples
    --------
    >>> from netmcl.graph import SparseGraph
    >>> a = SparseGraph.from_edges([0], [1], labels=["x", "y"])
    >>> b = SparseGraph.from_edges([1], [0], labels=["x", "y"])
    >>> graph_checksum(a) == graph_checksum(b)
    True
    """
    digest = hashlib.sha256()
    digest.update("\n".join(map(str, graph.labels)).encode("utf-8", "surrogateescape"))
    m = graph.matrix
    for array, dtype in ((m.indptr, np.int64), (m.indices, np.int32), (m.data, np.float32)):
        digest.update(np.ascontiguousarray(array, dtype=dtype).tobytes())
    return digest.hexdigest()


def run_report(clustering, *, graph=None, input_path=None, extra=None):
    """A JSON-ready record of an MCL run, for provenance.

    Parameters
    ----------
    clustering : Clustering
        The result of :func:`netmcl.mcl` (for igraph: ``result.netmcl``).
    graph : graph, optional
        The clustered graph (anything :func:`netmcl.mcl` takes); its
        checksum (:func:`graph_checksum`) and size are recorded, and for a
        graph read by :func:`netmcl.read_string` its source file, format,
        threshold and the file's checksum.
    input_path : str, optional
        The input file; its sha256 is recorded.
    extra : dict, optional
        More fields to record (e.g. the command line).

    Returns
    -------
    dict
        ``netmcl_version``, ``created`` (UTC, ISO 8601), ``python``,
        ``platform``, ``parameters``, ``input``, ``result`` (clusters,
        iterations, convergence, total seconds) and ``iterations`` (one entry
        per iteration: ``chaos``, ``seconds``, entries kept, pruning
        branches).

    Examples
    --------
    >>> import networkx as nx
    >>> import netmcl
    >>> G = nx.karate_club_graph()
    >>> report = run_report(netmcl.mcl(G), graph=G)
    >>> report["parameters"]["inflation"], report["result"]["n_clusters"], len(report["iterations"])
    (2.0, 3, 10)
    """
    from .._version import __version__

    iterations = []
    for k, stats in enumerate(clustering.stats, start=1):
        entry = {"iteration": k}
        entry.update({key: value for key, value in dataclasses.asdict(stats).items() if key != "extra"})
        entry.update(stats.extra)
        iterations.append(entry)
    source = {}
    if input_path is not None:
        source["path"] = str(input_path)
        source["sha256"] = _file_sha256(input_path)
    if graph is not None:
        from ..adapters import to_sparse_graph

        sg = to_sparse_graph(graph)
        source["nodes"] = sg.n
        source["arcs"] = sg.nnz
        source["graph_sha256"] = graph_checksum(sg)
        meta = getattr(graph, "graph", None)
        if isinstance(meta, dict) and "sha256" in meta:
            for key in ("source", "format", "channel", "min_score"):
                if key in meta:
                    source[key] = meta[key]
            source.setdefault("sha256", meta["sha256"])
    report = {
        "netmcl_version": __version__,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "parameters": None if clustering.params is None else clustering.params.to_dict(),
        "input": source,
        "result": {
            "n_clusters": len(clustering),
            "n_nodes": clustering.n_nodes,
            "largest": max(clustering.sizes, default=0),
            "n_iterations": clustering.n_iterations,
            "converged": clustering.converged,
            "seconds": float(sum(s.seconds for s in clustering.stats)),
        },
        "iterations": iterations,
    }
    if extra:
        report.update(extra)
    return report


def write_run_report(path, clustering, *, graph=None, input_path=None, extra=None):
    """Write :func:`run_report` as indented JSON.

    Examples
    --------
    >>> import json, os, tempfile
    >>> import netmcl
    >>> path = os.path.join(tempfile.mkdtemp(), "run.json")
    >>> write_run_report(path, netmcl.mcl([("a", "b"), ("b", "c")]))
    >>> json.load(open(path))["result"]["n_clusters"]
    1
    """
    report = run_report(clustering, graph=graph, input_path=input_path, extra=extra)
    with atomic_write(path) as fh:
        json.dump(report, fh, indent=2, default=_json_default)
        fh.write("\n")


def _json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")
