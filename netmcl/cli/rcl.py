"""``netmcl rcl``: mcl's ``rcl`` command (multi-resolution consensus clustering), file for file.

The three steps take rcl's arguments and write rcl's files into the project
directory TAG::

    netmcl rcl setup  TAG -n NETWORK.mci -t NETWORK.tab CLUSTERINGS...
    netmcl rcl tree   TAG [-F] [-D]
    netmcl rcl select TAG -r "50 100 200" [-S]

``netmcl rcl mcl TAG -n NETWORK.mci -I "1.4 2 3"`` makes the clusterings
first, into TAG, as ``rcl mcl`` does (``setup`` then needs no clustering
files).  ``setup`` links the network and label table into TAG (``rcl.input``,
``rcl.tab``) and lists the clusterings in ``rcl.lsocls``; ``tree`` writes the
RCL network ``rcl.rcl``, its single-linkage join order ``rcl.join-order`` and
``rcl.node-values``; ``select`` writes, for each resolution R,
``rcl.res{R}.info``, ``.cls`` (native), ``.labels`` (one cluster per line) and
``.txt`` (label TAB cluster), and ``rcl.hi.{R-R-..}.txt``,
``rcl.hi.{R-R-..}.resdot`` and ``rcl.sy.{R-R-..}.txt`` over all of them.
With ``-S`` it also draws the hierarchy into ``rcl.hi.{R-R-..}.pdf`` (with
matplotlib, where rcl uses GraphViz).  Clusters of equal size are listed by
their smallest node index, where rcl's order changes from run to run.
``rcl.vol`` (clm vol's node scores) is not written.
"""

import argparse
import os
import shutil
import sys

from .._version import __version__
from ..exceptions import InputFileError, ParameterError
from .tools import _command, _Parser, _UsageError

__all__ = ["rcl_main"]

_MODES = ("setup", "tree", "select", "mcl", "version")

_DESCRIPTION = """\
Multi-resolution consensus clusters from several clusterings of one network,
as mcl's rcl computes them (same arguments, same files in TAG):

  1) netmcl rcl setup  TAG -n NETWORK -t TAB  CLUSTERING-FILES...
  2) netmcl rcl tree   TAG [-F]
  3) netmcl rcl select TAG -r "RESOLUTIONS" [-S]

To make the clusterings (mcl at several inflations, into TAG):
  netmcl rcl mcl TAG -n NETWORK -I "INFLATIONS"
then run step 1 without clustering files.

NETWORK and TAB are mcl's native network and its label table (mcxload
-write-tab, or netmcl's write_mci); the clusterings are native cluster files
(mcl NETWORK -I ... writes them). For RESOLUTIONS a doubling is usual, e.g.
-r "50 100 200 400". Run the commands from the directory above TAG.
"""


def _parser():
    p = _Parser(prog="netmcl rcl", description=_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=_MODES, help="the step")
    p.add_argument("tag", nargs="?", help="the project directory")
    p.add_argument("files", nargs="*", help="clusterings (setup)")
    p.add_argument("-n", dest="network", metavar="NETWORK", help="the network, mcl native format (setup)")
    p.add_argument("-t", dest="tab", metavar="TAB", help="the label table of the network (setup)")
    p.add_argument("-r", dest="resolution", metavar="RESOLUTIONS", help='cluster sizes, e.g. "50 100 200" (select)')
    p.add_argument("-I", dest="inflation", metavar="INFLATIONS", help='inflations, e.g. "1.4 2 3 4" (mcl)')
    p.add_argument("-F", dest="force", action="store_true", help="recompute an existing tree (tree)")
    p.add_argument("-D", dest="self_compare", action="store_true",
                   help="compare each clustering with itself too (tree)")
    p.add_argument("-S", dest="draw", action="store_true", help="draw the hierarchy into rcl.hi.*.pdf (select)")
    p.add_argument("-p", dest="cpu", metavar="NCPU", type=int, default=1,
                   help="accepted for rcl's sake; the results do not depend on it")
    return p


def _record(pfx, argv):
    """Append the command to TAG/rcl.cline, as rcl keeps its history."""
    with open(pfx + ".cline", "a", encoding="utf-8") as fh:
        fh.write("-- " + " ".join(argv) + "\n")


def _link(src, dst, *, symbolic_fallback):
    if os.path.lexists(dst):
        os.remove(dst)
    try:
        os.link(src, dst)
    except OSError:
        if symbolic_fallback:
            os.symlink(os.path.abspath(src), dst)
        else:
            shutil.copyfile(src, dst)


def _native_dimension(path):
    """The number of nodes of a native network file, checking that it is one."""
    from ..io import read_input_bytes
    from ..io.native import looks_native

    if not os.path.isfile(path):
        raise InputFileError(path, "No such file.")
    if not looks_native(read_input_bytes(path)):
        raise InputFileError(path, "Not in mcl's native network format (it must start with '(mclheader'); "
                                   "make it with mcxload or netmcl.write_mci.")
    from ..io.native import read_mci

    return read_mci(path)


def _read_labels(path):
    from ..io.native import read_tab

    tab = read_tab(path)
    ids = sorted(tab)
    if ids != list(range(len(ids))):
        raise InputFileError(path, f"The label table must number the nodes 0 .. N-1. It has {len(ids)} entries "
                                   f"from {ids[0] if ids else '-'} to {ids[-1] if ids else '-'}.")
    return [tab[i] for i in ids]


def _setup(args, pfx):
    if not args.network or not args.tab:
        missing = [flag for flag, v in (("-n (a network in mcl format)", args.network),
                                        ("-t (a tab file mapping indexes to labels)", args.tab)) if not v]
        raise _UsageError("setup requires " + " and ".join(missing))
    graph = _native_dimension(args.network)
    n = graph.matrix.shape[0]
    with open(args.tab, "rb") as fh:
        n_tab = sum(1 for _ in fh)
    if n_tab != n:
        raise ParameterError(f"Dimension mismatch between network ({n}) and tab file ({n_tab}).")
    lsocls = pfx + ".lsocls"
    if os.path.exists(lsocls) and not args.force:
        print(f"-- using the clusterings listed in {lsocls}", file=sys.stderr)
    else:
        if len(args.files) < 2:
            raise ParameterError("Please supply a few clusterings (at least two).")
        from ..io.native import read_native_clustering

        for f in args.files:
            if not os.path.isfile(f):
                raise InputFileError(f, "No such file.")
            read_native_clustering(f)
        with open(lsocls, "w", encoding="utf-8") as fh:
            fh.write("".join(f + "\n" for f in sorted(args.files)))
        print("-- Supplied clusterings are in mcl format", file=sys.stderr)
    _link(args.tab, pfx + ".tab", symbolic_fallback=False)
    _link(args.network, pfx + ".input", symbolic_fallback=True)
    with open(pfx + ".nitems", "w", encoding="utf-8") as fh:
        fh.write(f"{n_tab}\n")
    with open(pfx + ".cline", "a", encoding="utf-8") as fh:
        fh.write(f"netmcl {__version__} (rcl of mcl 22-282)\n")
    print(f"Project directory {args.tag} is ready ({pfx}.input)", file=sys.stderr)


def _tree(args, pfx):
    from ..io.native import read_native_clustering, read_mci
    from ..rcl import _edges, rcl_matrix_text, rcl_network, rcl_tree
    from ..io._files import atomic_write

    if not os.path.isfile(pfx + ".input"):
        raise InputFileError(pfx + ".input", f"Expected file not found; did you run netmcl rcl setup {args.tag}?")
    if not os.path.isfile(pfx + ".lsocls"):
        raise InputFileError(pfx + ".lsocls", "The list of clusterings is missing; run netmcl rcl setup again.")
    if os.path.exists(pfx + ".rcl") and not args.force:
        raise ParameterError(f"File {pfx}.rcl exists, use -F to force renewal.")
    with open(pfx + ".lsocls", encoding="utf-8") as fh:
        files = [line.rstrip("\n") for line in fh if line.strip()]
    print(f"-- Computing RCL graph on {' '.join(files)}", file=sys.stderr)
    graph = read_mci(pfx + ".input")
    n = graph.matrix.shape[0]
    labels = _read_labels(pfx + ".tab")
    if len(labels) != n:
        raise ParameterError(f"Dimension mismatch between network ({n}) and tab file ({len(labels)}).")
    clusterings = [read_native_clustering(f) for f in files]
    src, dst = _edges(graph.matrix)
    text, weights = rcl_network(n, src, dst, clusterings, self_compare=args.self_compare)
    tree = rcl_tree(n, src, dst, weights)
    for suffix, body in ((".rcl", rcl_matrix_text(n, src, dst, text)),
                         (".join-order", tree.join_order_text()),
                         (".node-values", tree.node_values_text(labels))):
        with atomic_write(pfx + suffix) as fh:
            fh.write(body)
    print(f"RCL network and linkage both ready, you can run netmcl rcl select {args.tag}", file=sys.stderr)


def _select(args, pfx):
    from ..rcl import _check_resolutions, read_join_order, select, write_selection

    if not args.resolution:
        raise _UsageError('select requires a list of resolution values between quotes for option -r')
    resolutions = _check_resolutions(args.resolution)
    if not os.path.isfile(pfx + ".rcl") or not os.path.isfile(pfx + ".join-order"):
        raise InputFileError(pfx + ".rcl", f"Expected file not found; did you run netmcl rcl tree {args.tag}?")
    labels = _read_labels(pfx + ".tab")
    tree = read_join_order(pfx + ".join-order")
    if tree.n != len(labels):
        raise ParameterError(f"The join order has {tree.n} nodes but the tab file {len(labels)}.")
    sel = select(tree, resolutions)
    write_selection(pfx, sel, labels)
    print(f"-- computing clusterings with resolution parameters {args.resolution}", file=sys.stderr)
    previous = None
    width = len(pfx) + 14
    for r in sel.resolutions:
        clusters = sel.clusters(r)
        top = [frozenset(c) for c in clusters[:30]]
        shared = "--" if previous is None else str(len(set(top) & previous))
        sizes = " ".join(str(len(c)) for c in clusters[:30])
        print(f"{f'{pfx}.res{r}.cls':<{width}} ({shared:>2}) {sizes}")
        previous = set(top)
    tag = "-".join(str(r) for r in sel.resolutions)
    if args.draw:
        from ..rcl import RclResult
        from ..viz.rcl import plot_rcl_to_file

        result = RclResult.from_selection(labels, tree, sel)
        path = f"{pfx}.hi.{tag}.pdf"
        plot_rcl_to_file(result, path)
        print(f"-- map of output produced in {path}", file=sys.stderr)
    print(f"Outputs: {pfx}.res{{R}}.info/.cls/.labels/.txt for R in {args.resolution}; "
          f"{pfx}.hi.{tag}.txt, {pfx}.hi.{tag}.resdot, {pfx}.sy.{tag}.txt", file=sys.stderr)


def _mcl(args, pfx):
    """Cluster the network at each inflation into TAG, as ``rcl mcl`` does (``mcl NETWORK -I i --i3 -odir TAG``)."""
    import contextlib
    import glob

    from . import main as netmcl_main

    if not args.network or not args.inflation:
        raise _UsageError("mcl requires a network in mcl format (-n) and a set of inflation values between quotes (-I)")
    inflations = args.inflation.split()
    for value in inflations:
        try:
            float(value)
        except ValueError:
            raise ParameterError(f"An inflation is a number. Got {value!r}.") from None
    print(f"-- Running mcl for inflation values in ({args.inflation})", file=sys.stderr)
    with open(os.path.join(args.tag, "log.mcl"), "w", encoding="utf-8") as log, contextlib.redirect_stderr(log):
        for value in sorted(inflations, key=float, reverse=True):
            status = netmcl_main([args.network, "-I", value, "--i3", "-odir", args.tag])
            if status:
                raise ParameterError(f"mcl at inflation {value} failed; see {os.path.join(args.tag, 'log.mcl')}.")
    with open(pfx + ".lsocls", "w", encoding="utf-8") as fh:
        fh.write("".join(f + "\n" for f in sorted(glob.glob(os.path.join(glob.escape(args.tag), "out.*.I*")))))
    print(f"-- clusterings are listed in {pfx}.lsocls; run netmcl rcl setup {args.tag} -n NETWORK -t TAB",
          file=sys.stderr)


def _rcl(argv):
    args = _parser().parse_intermixed_args(argv)
    if args.mode == "version":
        print(f"netmcl rcl {__version__}: the results of rcl 22-282 (mcl)")
        return 0
    if not args.tag:
        raise _UsageError(f"mode {args.mode} requires a project directory tag")
    if args.tag.startswith("-"):
        raise _UsageError("the project directory may not start with a hyphen")
    if args.mode != "setup" and args.files:
        raise _UsageError(f"unexpected arguments for mode {args.mode}: {' '.join(args.files)}")
    os.makedirs(args.tag, exist_ok=True)
    pfx = os.path.join(args.tag, "rcl")
    _record(pfx, [args.mode, *argv[1:]])
    {"setup": _setup, "tree": _tree, "select": _select, "mcl": _mcl}[args.mode](args, pfx)
    return 0


def rcl_main(argv):
    """``netmcl rcl setup|tree|select TAG ...``: rcl's three steps; returns the exit status.

    Examples
    --------
    >>> import os, tempfile
    >>> import networkx as nx
    >>> import netmcl
    >>> from netmcl.io.native import write_mci, write_native_clustering
    >>> here = os.getcwd(); os.chdir(tempfile.mkdtemp())
    >>> G = netmcl.adapters.to_sparse_graph(nx.karate_club_graph())
    >>> write_mci("karate.mci", G, tab="karate.tab")
    >>> for i in (1.4, 2, 3, 5):
    ...     cl = netmcl.mcl(G, inflation=i)
    ...     write_native_clustering(f"karate.I{i}.cls", [c.tolist() for c in cl.index_clusters])
    >>> rcl_main(["setup", "T", "-n", "karate.mci", "-t", "karate.tab"] + [f"karate.I{i}.cls" for i in (1.4, 2, 3, 5)])
    0
    >>> rcl_main(["tree", "T"])
    0
    >>> rcl_main(["select", "T", "-r", "2 4 8"])  # doctest: +NORMALIZE_WHITESPACE
    T/rcl.res2.cls       (--) 11 10 4 4 3 1 1
    T/rcl.res4.cls       ( 5) 14 11 4 3 1 1
    T/rcl.res8.cls       ( 0) 34
    0
    >>> open("T/rcl.res4.labels").readline().split()[:5]
    ['8', '9', '14', '15', '18']
    >>> os.chdir(here)
    """
    return _command("rcl", _rcl, argv)
