"""Send a clustering to Cytoscape and colour the network by cluster.

:func:`push` talks to a running Cytoscape desktop through py4cytoscape (the
optional ``cytoscape`` extra: ``pip install 'netmcl[cytoscape]'``).  It puts
each node's cluster number in a node-table column, colours the nodes with the
palette :func:`netmcl.draw` uses (largest clusters first) in a visual style of
its own, and can arrange the nodes in cluster groups.

Cytoscape must be running: start it and wait for its window to open.  To test
code that pushes without Cytoscape, see :mod:`netmcl.testing.cyrest_standin`.
"""

import logging
import os
import sys

from ..palette import NEUTRAL, cluster_colors
from ..adapters import node_labels, to_networkx
from ..exceptions import BackendUnavailableError, CytoscapeError, ParameterError

__all__ = ["push", "DEFAULT_BASE_URL"]

log = logging.getLogger("netmcl")

#: Where Cytoscape's CyREST answers on the local machine.
DEFAULT_BASE_URL = "http://127.0.0.1:1234/v1"

_HOW_TO_START = (
    "Start Cytoscape (3.6 or later; its REST interface, CyREST, is built in and listens on port 1234) "
    "and wait until its window is open, then push again; if Cytoscape runs elsewhere, pass "
    "base_url='http://HOST:PORT/v1' (command line: --cytoscape-url)."
)


def push(
    G,
    clustering,
    *,
    network=None,
    column="mcl_cluster",
    key_column="name",
    title=None,
    collection="netmcl",
    style_name=None,
    palette=None,
    layout=False,
    base_url=DEFAULT_BASE_URL,
    timeout=5.0,
    label_attribute=None,
    complexes=None,
):
    """Load a clustering into Cytoscape and colour the nodes by cluster.

    Without `network`, a new Cytoscape network is created from `G` (with
    its node and edge attributes).  With `network`, the clusters go into
    that network, already open in Cytoscape, matching its nodes to `G`'s by
    the node-table column `key_column`.  Either way, each node's cluster
    number is written to the node column `column` (an Integer column;
    cluster 0 is the first cluster of `clustering`), and a visual style of
    its own (`style_name`) is applied to the network: a discrete fill-colour
    mapping on `column` that gives the palette's colours to the largest
    clusters, in order, and one neutral colour to the rest — the colours of
    :func:`netmcl.draw` — plus node labels from ``name`` (or
    `label_attribute`).  The column ``<column>_name`` gets each node's
    cluster name: the known complex the cluster overlaps best when
    `complexes` are given, or else its most connected members (the names of
    :func:`netmcl.draw`'s legend and :func:`netmcl.view`).  The network's
    previous style is left untouched in Cytoscape's style list.

    Parameters
    ----------
    G : NetworkX graph, SparseGraph or any graph :func:`netmcl.mcl` accepts
        The clustered graph.
    clustering : Clustering
        The result of :func:`netmcl.mcl` on `G`.  A node in several
        clusters (``overlap="keep"``) gets the first.
    network : int or str, optional
        SUID or name of a network open in Cytoscape to load the clusters
        into.  Default: create a new network from `G`.
    column : str, default "mcl_cluster"
        Node-table column for the cluster numbers.
    key_column : str, default "name"
        With `network`: the node-table column holding `G`'s node labels.
        Labels are compared as strings, as Cytoscape stores them.
    title : str, optional
        Name of the new network (default ``"MCL clusters"``).
    collection : str, default "netmcl"
        Collection of the new network.
    style_name : str, optional
        Visual style to create or update; default ``"netmcl <network name>"``.
    palette : sequence of str, optional
        ``'#RRGGBB'`` colours for the largest clusters; default the palette
        of :mod:`netmcl.plot`.
    layout : bool, default False
        Arrange the nodes in one group per cluster (Cytoscape's "Group
        Attributes" layout on `column`).
    base_url : str, default "http://127.0.0.1:1234/v1"
        Cytoscape's CyREST address.
    timeout : float, default 5.0
        Seconds to wait for Cytoscape's first answer.
    label_attribute : str, optional
        Node column to label the nodes with (``"preferred_name"`` for a
        graph from :func:`netmcl.read_string`); default ``name``.  Without
        `network` it must be a node attribute of `G`, and it names the
        clusters too.
    complexes : mapping name -> members, or list of member lists, optional
        Known complexes to name the clusters by (members are `G`'s labels;
        complexes in a list are named by position from 1).

    Returns
    -------
    int
        The SUID of the network in Cytoscape.

    Raises
    ------
    CytoscapeError
        If no Cytoscape answers at `base_url` (the message says how to start
        it), if `network` is not open, if none of its nodes match `G`'s, or
        if Cytoscape refuses a step of the push.  The clustering itself is
        unaffected and can be pushed again or written to a file.
    BackendUnavailableError
        If py4cytoscape is not installed.
    ParameterError
        If `G` and `clustering` share no node, or two node labels are the
        same string.

    See Also
    --------
    netmcl.draw : the same colours in a matplotlib picture.
    netmcl.testing.cyrest_standin : a CyREST stand-in to test pushes.

    Notes
    -----
    py4cytoscape writes a detailed log file when it is imported; unless
    ``PY4CYTOSCAPE_DETAIL_LOGGER_DIR`` is already set, netmcl points it to
    ``~/.cache/netmcl/py4cytoscape`` rather than ``./logs``.
    py4cytoscape also waits 2 s after each style change to let Cytoscape
    catch up (``PY4CYTOSCAPE_MODEL_PROPAGATION_SECS``), so a push takes a
    few seconds however small the network.

    Examples
    --------
    With Cytoscape running:

    >>> import networkx as nx
    >>> import netmcl
    >>> G = nx.karate_club_graph()
    >>> cl = netmcl.mcl(G)
    >>> suid = netmcl.cytoscape.push(G, cl, title="karate", layout=True)  # doctest: +SKIP

    Cytoscape now shows the network "karate" with the node column
    ``mcl_cluster`` and the style "netmcl karate", each cluster in its
    colour, the nodes grouped by cluster.
    """
    keys, clusters = _cluster_table(G, clustering, column)
    if any(ord(c) < 32 for c in column) or (layout and any(c in column for c in '"\\')):
        # the layout is a Cytoscape command line holding the column's name in quotes
        raise ParameterError(
            f"column names a node column; it cannot hold quotes, backslashes or control characters. Got {column!r}."
        )
    named = _cluster_names(G, clustering, None if network is not None else label_attribute, complexes)
    key = "name" if network is None else key_column
    if column in (key, "SUID"):
        raise ParameterError(
            f"column names the node column that receives the cluster numbers; it cannot be {column!r}, "
            f"which identifies the nodes. Got column={column!r}."
        )
    colors = cluster_colors(clustering.sizes, palette=palette)
    p4c = _py4cytoscape()
    import pandas as pd
    import requests
    from py4cytoscape.exceptions import CyError

    _check_cytoscape(base_url, timeout)
    _direct_only(base_url)
    step = "creating the network"
    try:
        if network is None:
            title = title or "MCL clusters"
            suid = p4c.create_network_from_networkx(
                to_networkx(G), title=title, collection=collection, base_url=base_url
            )
        else:
            step = f"finding network {network!r}"
            suid, title = _open_network(p4c, network, base_url)
            step = f"reading column {key!r} of network {title!r}"
            _check_keys(p4c, suid, title, key, keys, base_url)
        step = f"loading column {column!r}"
        table = pd.DataFrame({key: keys, column: pd.Series(clusters, dtype="int64"),
                              f"{column}_name": [named[k] for k in clusters]})
        p4c.load_table_data(table, data_key_column=key, table="node", table_key_column=key, network=suid, base_url=base_url)
        style_name = style_name or f"netmcl {title}"
        step = f"building style {style_name!r}"
        if style_name not in p4c.get_visual_style_names(base_url=base_url):
            p4c.create_visual_style(style_name, base_url=base_url)
        p4c.set_node_color_mapping(
            column,
            [str(k) for k in range(len(clustering))],
            colors,
            mapping_type="d",
            default_color=NEUTRAL,
            style_name=style_name,
            network=suid,
            base_url=base_url,
        )
        p4c.set_node_label_mapping(label_attribute or "name", style_name=style_name, network=suid, base_url=base_url)
        p4c.set_visual_style(style_name, network=suid, base_url=base_url)
        if layout:
            step = "running the cluster layout"
            p4c.layout_network(f'attributes-layout nodeAttribute="{column}"', network=suid, base_url=base_url)
    except (CyError, requests.RequestException, KeyError, TypeError, ValueError) as e:
        # py4cytoscape raises the last three when Cytoscape's answers or G's attributes surprise it
        raise CytoscapeError(
            f"Cytoscape at {base_url} failed while {step}: {e} "
            "The clustering is unaffected; fix the cause and push again."
        ) from e
    log.info("pushed %d clusters of %d nodes to Cytoscape network %r (SUID %d)", len(clustering), len(keys), title, suid)
    return suid


def _cluster_table(G, clustering, column):
    """Node keys as strings and their cluster numbers, for the nodes of G that are clustered."""
    if not isinstance(column, str) or not column:
        raise ParameterError(f"column must be a non-empty column name. Got {column!r} instead.")
    labels = node_labels(G)
    membership = clustering.membership
    pairs = [(str(v), membership[v]) for v in labels if membership.get(v, -1) >= 0]
    if not pairs:
        raise ParameterError(
            "None of the graph's nodes is in the clustering: pass the graph the clustering was computed on. "
            f"Got nodes like {labels[:3]!r} and clustered labels like {clustering.labels[:3]!r}."
        )
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        seen = set()
        dup = next(k for k in keys if k in seen or seen.add(k))
        raise ParameterError(
            "Cytoscape identifies nodes by their names as strings, and two nodes of this graph have the "
            f"same string form. Got {dup!r} twice; relabel the nodes first (networkx.relabel_nodes)."
        )
    return keys, [k for _, k in pairs]


def _cluster_names(G, clustering, label_attribute, complexes):
    """The name of each cluster (see netmcl.viz.names)."""
    from .names import cluster_names, node_names
    from .plot import _groups
    from ..adapters import to_sparse_graph

    graph = to_sparse_graph(G)
    names = node_names(G, graph.labels, label_attribute)
    return [name for name, _ in cluster_names(graph, _groups(graph, clustering), clustering, names,
                                              complexes=complexes)]


def _py4cytoscape():
    """Import py4cytoscape, keeping its log file out of the working directory."""
    if "py4cytoscape" not in sys.modules:
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        os.environ.setdefault("PY4CYTOSCAPE_DETAIL_LOGGER_DIR", os.path.join(cache, "netmcl", "py4cytoscape"))
        # where py4cytoscape would send requests that base_url did not answer: nowhere (see _direct_only)
        os.environ.setdefault("JUPYTER_BRIDGE_URL", "http://127.0.0.1:9")
    try:
        import py4cytoscape
    except ImportError as e:
        raise BackendUnavailableError(
            "Pushing clusters to Cytoscape needs py4cytoscape; install it with pip install 'netmcl[cytoscape]'."
        ) from e
    # py4cytoscape's call-by-call DEBUG log has its own file; keep it out of the application's handlers
    logging.getLogger("py4...").propagate = False
    return py4cytoscape


def _check_cytoscape(base_url, timeout):
    """Fail fast, with instructions, when nothing answers at base_url."""
    import requests

    url = base_url.rstrip("/") + "/version"
    try:
        reply = requests.get(url, timeout=timeout)
        reply.raise_for_status()
        version = reply.json()["cytoscapeVersion"]
    except requests.Timeout:
        reason = f"no answer within {timeout} s"
    except requests.ConnectionError:
        reason = "nothing listens there"
    except (requests.RequestException, ValueError, KeyError, TypeError) as e:
        reason = f"the answer was not CyREST's: {e}"
    else:
        log.info("Cytoscape %s answers at %s", version, base_url)
        return
    raise CytoscapeError(
        f"No Cytoscape answered at {base_url} ({reason}). {_HOW_TO_START} "
        "Nothing is lost: the clustering is unaffected (and the command line writes its files before pushing)."
    )


def _direct_only(base_url):
    """Make py4cytoscape send every request of the push to `base_url` itself.

    When a request to Cytoscape fails, py4cytoscape looks for a remote
    Cytoscape through the Jupyter-Bridge relay on the internet
    (jupyter-bridge.cytoscape.org) and would send the network there.  netmcl
    has just seen Cytoscape answer at `base_url` (:func:`_check_cytoscape`),
    so it records that direct connection as py4cytoscape's execution
    environment, which py4cytoscape then keeps: a later failure is an error,
    not a detour.
    """
    notebook = sys.modules.get("py4cytoscape.py4cytoscape_notebook")
    where = getattr(notebook, "ExecutionEnvironment", None)
    if where is None:  # another py4cytoscape: the environment variable of _py4cytoscape still applies
        return
    direct = where.SHARED_WORKSTATION if base_url == getattr(notebook, "_CYREST_URL_V1", None) else where.REMOTE_DIRECT_URL
    notebook._execution_environment = direct


def _open_network(p4c, network, base_url):
    """SUID and name of an open network given by SUID or name."""
    networks = p4c.get_network_list(base_url=base_url, get_suids=True)
    for net in networks:
        if network in (net["suid"], net["name"]):
            return net["suid"], net["name"]
    names = ", ".join(f"{n['name']!r} (SUID {n['suid']})" for n in networks) or "none"
    raise CytoscapeError(
        f"No network {network!r} is open in Cytoscape at {base_url}. Open networks: {names}. "
        "Pass one of these, or network=None to create a new network from the graph."
    )


def _check_keys(p4c, suid, title, key_column, keys, base_url):
    """Make sure key_column exists and matches some nodes; warn about the rest."""
    columns = p4c.get_table_column_names("node", network=suid, base_url=base_url)
    if key_column not in columns:
        raise CytoscapeError(
            f"Network {title!r} has no node column {key_column!r} to match nodes on. "
            f"Its node columns: {', '.join(map(repr, columns))}. Pass key_column= one that holds the node labels."
        )
    values = p4c.get_table_columns("node", [key_column], network=suid, base_url=base_url)[key_column]
    theirs = {str(v) for v in values if v is not None}
    matched = sum(k in theirs for k in keys)
    if matched == 0:
        raise CytoscapeError(
            f"None of the graph's {len(keys)} nodes matches a value of column {key_column!r} in network "
            f"{title!r}: the graph has {keys[:3]!r}..., Cytoscape has {sorted(theirs)[:3]!r}.... "
            "Pass key_column= the column that holds the same identifiers."
        )
    if matched < len(keys) or matched < len(theirs):
        log.warning(
            "%d of the graph's %d clustered nodes matched in Cytoscape network %r, which has %d nodes; "
            "its unmatched nodes get no cluster",
            matched,
            len(keys),
            title,
            len(theirs),
        )
