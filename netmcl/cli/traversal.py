"""``netmcl bfs``, ``netmcl paths`` and ``netmcl components``: traversals of a graph file.

Each reads a label (ABC) file, as ``mcl --abc`` does, or a STRING network
file (``--string``), and writes a TSV table (``-o FILE``, standard output by
default; a file appears complete or not at all).  Each ``*_main(argv)``
returns the exit status: 0 on success, 1 for an error in the input or the
parameters, 2 for a command-line mistake.
"""

import math

import numpy as np

__all__ = ["bfs_main", "paths_main", "components_main", "COMMANDS"]

#: the subcommands this module adds to ``netmcl``, with their one-line summaries
COMMANDS = {
    "bfs": "hop distances from source nodes",
    "paths": "weighted shortest-path distances from source nodes",
    "components": "connected (or strongly connected) components",
}


def _parser(name, description):
    from .tools import _Parser

    p = _Parser(prog=f"netmcl {name}", description=description, allow_abbrev=False)
    p.add_argument("graph", metavar="FILE", help="the graph: a label (ABC) file, or a STRING file with --string")
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--abc", action="store_true",
                      help="FILE is a label file: 'node node [weight]' a line (the default)")
    kind.add_argument("--string", action="store_true", help="FILE is a STRING protein.links file (or an export)")
    p.add_argument("--min-score", dest="min_score", type=float, default=400,
                   help="--string: keep scores >= this, 0-1000 scale (default 400)")
    p.add_argument("--skip-header", action="store_true", help="skip the first line of a label file")
    p.add_argument("--directed", action="store_true",
                   help="label file: read each line as an arc (default: an edge, mirrored as mcl does)")
    p.add_argument("--engine", choices=("cpu", "gpu"), default="cpu", help="cpu (default) or gpu")
    p.add_argument("-o", metavar="FILE", dest="output", default="-", help="output file (default: standard output)")
    return p


def _read(args):
    if args.string:
        from ..io.string import read_string

        return read_string(args.graph, min_score=args.min_score)
    from ..io import read_abc

    return read_abc(args.graph, skip_header=args.skip_header, symmetrize=not args.directed)


def _add_sources(p):
    p.add_argument("-s", "--source", metavar="NODE", dest="sources", nargs="+", action="extend", required=True,
                   help="source node(s), as named in FILE")
    p.add_argument("--matrix", action="store_true",
                   help="write one row per source and one column per node (default: source, node, ... rows)")


def _cell(x):
    if isinstance(x, float):
        return "inf" if math.isinf(x) else repr(x)
    return str(x)


def _write_paths(args, result):
    from ..io import atomic_write

    with atomic_write(args.output) as fh:
        if args.matrix:
            fh.write("\t".join(["source", *map(str, result.labels)]) + "\n")
            for source, row in zip(result.sources, result.matrix.tolist()):
                fh.write("\t".join([str(source), *(_cell(x) if x != -1 or result.weighted else "-1" for x in row)])
                         + "\n")
            return
        column = "distance" if result.weighted else "hops"
        fh.write(f"source\tnode\t{column}\tpredecessor\n")
        for source in result.sources:
            pred = result.predecessors(source)
            for node, d in result[source].items():
                fh.write(f"{source}\t{node}\t{_cell(d)}\t{pred.get(node, '')}\n")


def _bfs(argv):
    from ..traversal import bfs

    p = _parser("bfs", "Hop distances (breadth-first search levels) from source nodes.")
    _add_sources(p)
    args = p.parse_args(argv)
    result = bfs(_read(args), args.sources, engine=args.engine, directed=args.directed or None)
    _write_paths(args, result)
    return 0


def _costs(net, how):
    """Turn the graph's weights into costs: as they are, 1 - w, or -ln w (w in (0, 1])."""
    from ..exceptions import ParameterError

    if how == "weight":
        return net
    w = net.weights
    if w.size and not ((w > 0) & (w <= 1)).all():
        bad = float(w[~((w > 0) & (w <= 1))][0])
        raise ParameterError(f"--cost {how} needs weights in (0, 1] (scores). Got {bad!r} instead.")
    net.weights = 1.0 - w if how == "one-minus" else -np.log(w)
    net._csr = None
    net.device.clear()
    return net


def _paths(argv):
    from ..traversal import as_net, shortest_paths

    p = _parser("paths", "Weighted shortest-path distances from source nodes. Weights are costs; "
                "for similarity scores (STRING's) use --cost one-minus or neglog, the default with --string.")
    _add_sources(p)
    p.add_argument("--cost", choices=("weight", "one-minus", "neglog"),
                   help="the cost of an edge: its weight, 1 - weight or -ln(weight) "
                        "(default: weight; one-minus with --string, whose weights are scores in 0-1)")
    p.add_argument("--method", choices=("auto", "dijkstra", "bellman-ford", "delta-stepping"), default="auto",
                   help="auto (default: Dijkstra on the CPU, Bellman-Ford on the GPU), dijkstra (CPU), "
                        "bellman-ford or delta-stepping (GPU)")
    args = p.parse_args(argv)
    how = args.cost or ("one-minus" if args.string else "weight")
    net = _costs(as_net(_read(args), weight="weight", directed=args.directed or None), how)
    _write_paths(args, shortest_paths(net, args.sources, engine=args.engine, method=args.method))
    return 0


def _components(argv):
    from ..io import atomic_write
    from ..traversal import connected_components, strongly_connected_components

    p = _parser("components", "Connected components (weakly connected ones of a directed graph), or strongly "
                "connected ones with --strong; numbered from 0 in order of each component's first node.")
    p.add_argument("--strong", action="store_true", help="strongly connected components (with --directed)")
    args = p.parse_args(argv)
    graph = _read(args)
    find = strongly_connected_components if args.strong else connected_components
    result = find(graph, engine=args.engine)
    sizes = result.sizes.tolist()
    with atomic_write(args.output) as fh:
        fh.write("node\tcomponent\tsize\n")
        for node, c in zip(result.labels, result.ids.tolist()):
            fh.write(f"{node}\t{c}\t{sizes[c]}\n")
    return 0


def bfs_main(argv):
    """``netmcl bfs FILE -s NODE ...``: hop distances from source nodes, as TSV.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> g = os.path.join(d, "g.abc")
    >>> _ = open(g, "w").write("a\\tb\\nb\\tc\\nx\\ty\\n")
    >>> bfs_main([g, "-s", "a", "-o", os.path.join(d, "h.tsv")])
    0
    >>> print(open(os.path.join(d, "h.tsv")).read().strip())
    source  node  hops  predecessor
    a       a     0
    a       b     1     a
    a       c     2     b
    """
    from .tools import _command

    return _command("bfs", _bfs, argv)


def paths_main(argv):
    """``netmcl paths FILE -s NODE ...``: weighted shortest-path distances, as TSV.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> g = os.path.join(d, "g.abc")
    >>> _ = open(g, "w").write("a\\tb\\t2\\nb\\tc\\t0.5\\na\\tc\\t4\\n")
    >>> paths_main([g, "-s", "a", "-o", os.path.join(d, "p.tsv")])
    0
    >>> print(open(os.path.join(d, "p.tsv")).read().strip())
    source  node  distance  predecessor
    a       a     0.0
    a       b     2.0       a
    a       c     2.5       b
    """
    from .tools import _command

    return _command("paths", _paths, argv)


def components_main(argv):
    """``netmcl components FILE``: each node's component, as TSV.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> g = os.path.join(d, "g.abc")
    >>> _ = open(g, "w").write("x\\ty\\na\\tb\\nb\\tc\\n")
    >>> components_main([g, "-o", os.path.join(d, "c.tsv")])
    0
    >>> print(open(os.path.join(d, "c.tsv")).read().strip())
    node  component  size
    x     0          2
    y     0          2
    a     1          3
    b     1          3
    c     1          3
    """
    from .tools import _command

    return _command("components", _components, argv)
