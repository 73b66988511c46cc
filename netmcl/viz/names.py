"""Readable names for nodes and clusters, shared by pictures, Cytoscape and the HTML view.

A node is shown by a node attribute of the user's choice (``"preferred_name"``
for a graph from :func:`netmcl.read_string`, gene symbols, ...) and by its
label where it has none.  A cluster is named by the known complex it overlaps
best when complexes are given (the overlap score ``|A & B| ** 2 / (|A| |B|)``
and threshold of :func:`netmcl.compare_to_complexes`), and otherwise by its
most connected members.
"""

import collections.abc

import numpy as np

from ..exceptions import ParameterError

__all__ = ["node_names", "complex_table", "cluster_names"]

#: How many of its most connected members name a cluster without a matching complex.
HUB_NAMES = 3


def node_names(G, labels, label_attribute=None):
    """The name shown for each label of `labels`: its `label_attribute`, or the label.

    Parameters
    ----------
    G : NetworkX graph, igraph Graph or any graph :func:`netmcl.mcl` accepts
        Where the attribute is looked up (NetworkX node data, igraph vertex
        attributes); graphs without node attributes give the labels.
    labels : sequence
        The node labels, in order.
    label_attribute : str or mapping, optional
        Node attribute holding the readable name, or a mapping label -> name
        (e.g. :func:`netmcl.datasets.load_yeast_gene_names`, or a table read
        from a file for a graph without node attributes).

    Returns
    -------
    list of str

    Raises
    ------
    ParameterError
        If no node has `label_attribute` (or the mapping names none of them).

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([("P1", "P2")]); G.nodes["P1"]["symbol"] = "CDC28"
    >>> node_names(G, ["P1", "P2"], "symbol")
    ['CDC28', 'P2']
    >>> node_names(G, ["P1", "P2"], {"P2": "CLN3"})
    ['P1', 'CLN3']
    """
    if label_attribute is None:
        return [str(v) for v in labels]
    found = {}
    if isinstance(label_attribute, collections.abc.Mapping):
        found = {v: str(label_attribute[v]) for v in labels if label_attribute.get(v) not in (None, "")}
        if not found:
            raise ParameterError(
                f"The names given (label_attribute, a mapping of {len(label_attribute):,} entries, e.g. "
                f"{next(iter(label_attribute.items()), None)!r}) name none of the graph's nodes "
                f"(e.g. {next(iter(labels), None)!r}); its keys must be the nodes' labels."
            )
        return [found.get(v, str(v)) for v in labels]
    if hasattr(G, "nodes") and hasattr(G, "adj"):  # NetworkX
        for v, value in G.nodes(data=label_attribute):
            if value is not None and value != "":
                found[v] = str(value)
    elif hasattr(G, "vs") and label_attribute in getattr(G.vs, "attributes", lambda: [])():  # igraph
        keys = G.vs["name"] if "name" in G.vs.attributes() else range(G.vcount())
        for v, value in zip(keys, G.vs[label_attribute]):
            if value is not None and value != "":
                found[v] = str(value)
    if not found:
        raise ParameterError(
            f"No node of the graph has the attribute label_attribute={label_attribute!r}; "
            "for a STRING network read with netmcl.read_string(links, info=...) it is 'preferred_name'."
        )
    return [found.get(v, str(v)) for v in labels]


def complex_table(complexes):
    """(names, member lists) of `complexes`: a mapping name -> members, or a list.

    Complexes given as a list are named by their position from 1
    (``"complex 1"``, ...), which is their line in a file of one complex per
    line such as CYC2008's.

    Examples
    --------
    >>> complex_table({"proteasome": ["a", "b"]})
    (['proteasome'], [['a', 'b']])
    >>> complex_table([["a", "b"], ["c"]])[0]
    ['complex 1', 'complex 2']
    """
    if isinstance(complexes, collections.abc.Mapping):
        names, groups = [str(k) for k in complexes], list(complexes.values())
    else:
        groups = list(complexes)
        names = [f"complex {i + 1}" for i in range(len(groups))]
    if any(isinstance(g, str) for g in groups):
        raise ParameterError(
            "complexes takes lists of member labels (or a mapping name -> list); got a bare string as a complex."
        )
    members = [list(g) for g in groups]
    return names, members


def _hubs(graph, member, k, names, count):
    """For each cluster, the names of its `count` members with the largest weight inside it."""
    A = graph.matrix.tocoo()
    inside = (member[A.row] == member[A.col]) & (member[A.row] >= 0) & (A.row != A.col)
    strength = np.bincount(A.row[inside], weights=np.abs(A.data[inside]), minlength=graph.n)
    strength += np.bincount(A.col[inside], weights=np.abs(A.data[inside]), minlength=graph.n)
    order = np.lexsort((np.arange(graph.n), -strength, member))  # by cluster, strongest first
    hubs = [[] for _ in range(k)]
    for v in order.tolist():
        c = member[v]
        if c >= 0 and len(hubs[c]) < count:
            hubs[c].append(names[v])
    return [", ".join(h) for h in hubs]


def cluster_names(graph, member, clustering, names, *, complexes=None, overlap_threshold=0.25, min_size=2):
    """A name and, when complexes are given, the best complex's overlap score for each cluster.

    Parameters
    ----------
    graph : SparseGraph
    member : numpy array
        Cluster number of each node of `graph` (-1 when not clustered).
    clustering : Clustering
    names : list of str
        Node names, in `graph`'s order (:func:`node_names`).
    complexes : mapping name -> members, or iterable of member lists, optional
        Known complexes; members are node labels, as in `clustering`.
    overlap_threshold : float, default 0.25
        A cluster is named by a complex when their overlap score reaches this.
    min_size : int, default 2
        Clusters smaller than this are never named by a complex.

    Returns
    -------
    list of (str, float or None)
        Per cluster: the complex's name, or its most connected members joined
        by ", "; and the overlap score of the named complex (None for hubs).
    """
    k = len(clustering)
    hubs = _hubs(graph, member, k, names, HUB_NAMES)
    if complexes is None:
        return [(h, None) for h in hubs]
    cx_names, cx_members = complex_table(complexes)
    where = clustering.membership
    sizes = clustering.sizes
    best = [(0.0, None)] * k
    for name, members in zip(cx_names, cx_members):
        present = {p for p in members if where.get(p, -1) >= 0}
        if not present:
            continue
        shared = collections.Counter(where[p] for p in present)
        for c, t in shared.items():
            score = t * t / (len(present) * sizes[c])
            if sizes[c] >= min_size and score > best[c][0]:
                best[c] = (score, name)
    return [(name, score) if name is not None and score >= overlap_threshold else (hub, None)
            for (score, name), hub in zip(best, hubs)]
