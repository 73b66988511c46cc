"""The companion commands of ``netmcl``: ``dist``, ``info``, ``sweep`` and ``string``.

``netmcl dist`` and ``netmcl info`` print the lines of ``clm dist`` and
``clm info`` with the same figures, so scripts written for clm keep working;
``netmcl sweep`` replaces a shell loop over ``mcl -I`` followed by ``clm``;
``netmcl string`` clusters a STRING file in one step.  Each ``*_main(argv)``
returns the exit status: 0 on success, 1 for an error in the input or the
parameters (one line on standard error, no traceback), 2 for a command-line
mistake.
"""

import argparse
import io
import sys
import warnings

from ..exceptions import InputFileError, NetmclError, ParameterError

__all__ = ["dist_main", "info_main", "sweep_main", "string_main"]


class _UsageError(Exception):
    """A command-line mistake, reported as one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise _UsageError(message)


def _one_line(exc):
    text = str(exc) or type(exc).__name__
    if isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror
    return " ".join(text.split())


def _command(name, body, argv):
    """Run `body(argv)` and turn errors into one line on stderr and an exit status."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            status = body(argv)
        for w in caught:
            print(f"[netmcl {name}] warning: {' '.join(str(w.message).split())}", file=sys.stderr)
        return int(status or 0)
    except _UsageError as exc:
        print(f"netmcl {name}: error: {exc} (see 'netmcl {name} --help')", file=sys.stderr)
        return 2
    except SystemExit as exc:  # --help
        return exc.code if isinstance(exc.code, int) else 0
    except (NetmclError, OSError) as exc:
        print(f"netmcl {name}: error: {_one_line(exc)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"netmcl {name}: error: interrupted", file=sys.stderr)
        return 130


def _read_graph(path, *, skip_header=False, tab=None):
    """A graph file as mcl reads it: a native matrix, or else a label (ABC) file."""
    from ..io import read_abc, read_input_bytes, read_mci
    from ..io._files import display_name
    from ..io.native import looks_native

    data = read_input_bytes(path)
    stream = io.BytesIO(data)
    stream.name = display_name(path)
    if looks_native(data):
        return read_mci(stream, tab=tab)
    return read_abc(stream, skip_header=skip_header)


def _read_complexes(path):
    """Complexes, one per line, members separated by TABs or blanks (CYC2008's format)."""
    from ..io import read_input_bytes

    text = read_input_bytes(path).decode("utf-8", "surrogateescape")
    return [line.split("\t") if "\t" in line else line.split() for line in text.splitlines() if line.strip()]


#: the parameters the subcommands take: the same for every clustering they run
_SHARED = ("scheme", "resource", "pruning_number", "pruning_threshold", "select", "recover", "recover_pct",
           "max_iterations", "engine", "threads", "max_memory")


def _add_mcl_options(p):
    from ._common import add_parameter_flags

    group = p.add_argument_group("MCL parameters (as mcl; the same for every run)")
    add_parameter_flags(group, names=_SHARED)
    group.add_argument("--scheduler", metavar="ADDRESS",
                       help="the Dask scheduler to iterate on, with --engine dask (needs pip install 'netmcl[dask]')")


def _mcl_options(args):
    from ._common import parameters_of

    options = {name: value for name, value in parameters_of(args, _SHARED).items() if value is not None}
    if getattr(args, "scheduler", None):
        options["scheduler"] = args.scheduler
    return options


# ---------------------------------------------------------------------------
# netmcl dist
# ---------------------------------------------------------------------------

_DIST_DESCRIPTION = """\
Distances between clusterings of the same nodes, as clm dist prints them
(mcl label files or native cluster files). By default every pair is compared.
"""


def _dist(argv):
    from ..analysis import compare
    from ..io import atomic_write, read_clusters

    p = _Parser(prog="netmcl dist", description=_DIST_DESCRIPTION, allow_abbrev=False)
    p.add_argument("files", metavar="CLUSTERING", nargs="+", help="clustering files (at least two)")
    p.add_argument("-mode", choices=("sj", "vi", "mk", "mirkin", "ehd"), default="sj",
                   help="sj: split/join distance (default); vi: variation of information; mk: Mirkin metric")
    p.add_argument("--index", action="store_true", help="print the Rand, Jaccard and adjusted Rand indices instead")
    p.add_argument("--all", action="store_true",
                   help="print every measure on one line (also NMI and the F-score, with the first of a pair as reference)")
    p.add_argument("--chain", action="store_true", help="only compare consecutive clusterings")
    p.add_argument("--one-to-many", dest="one_to_many", action="store_true", help="compare the first clustering to each other one")
    p.add_argument("-o", metavar="FILE", dest="output", default="-", help="output file (default: standard output)")
    args = p.parse_args(argv)
    if len(args.files) < 2:
        raise _UsageError("give at least two clustering files")
    clusterings = [read_clusters(path) for path in args.files]
    n = len(clusterings)
    if args.chain:
        pairs = [(i, i + 1) for i in range(n - 1)]
    elif args.one_to_many:
        pairs = [(0, j) for j in range(1, n)]
    else:
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    lines = []
    for i, j in pairs:
        a, b = clusterings[i], clusterings[j]
        try:
            c = compare(a, b)
        except NetmclError as exc:
            raise ParameterError(f"{args.files[i]} and {args.files[j]}: {exc}") from None
        names = f"n1={args.files[i]}\tn2={args.files[j]}"
        head = f"nn={c['n_nodes']}\tc1={c['n_clusters_a']}\tc2={c['n_clusters_b']}"
        if args.all:
            sj, vi, mk = c["split_join"], c["variation_of_information"], c["mirkin"]
            lines.append(
                f"sj={sj.total}\tsj1={sj.d1}\tsj2={sj.d2}\tvi={vi.total:.3f}\tvi1={vi.d1:.3f}\tvi2={vi.d2:.3f}\t"
                f"mk={mk.total}\trand={c['rand']:.5f}\tjaccard={c['jaccard']:.5f}\tarand={c['adjusted_rand']:.5f}\t"
                f"nmi={c['nmi']:.5f}\tfscore={c['f_score']:.5f}\t{head}\t{names}"
            )
        elif args.index:
            lines.append(
                f"rand={c['rand']:.5f} jaccard={c['jaccard']:.5f} arand={c['adjusted_rand']:.5f} "
                f"n1={args.files[i]} n2={args.files[j]}"
            )
        elif args.mode == "vi":
            d = c["variation_of_information"]
            lines.append(f"d={d.total:.3f}\td1={d.d1:.3f}\td2={d.d2:.3f}\t{head}\t{names}")
        elif args.mode == "sj":
            d = c["split_join"]
            lines.append(f"d={d.total}\td1={d.d1}\td2={d.d2}\t{head}\t{names}\t")
        else:
            d = c["mirkin"]
            lines.append(f"d={d.total}\td1={d.d1}\td2={d.d2}\t{head}\t{names}")
    with atomic_write(args.output) as fh:
        fh.write("".join(line + "\n" for line in lines))
    return 0


def dist_main(argv):
    """``netmcl dist A B ...``: distances between clusterings, as ``clm dist`` prints them.

    The split/join distance by default, ``-mode vi`` the variation of
    information, ``-mode mk`` the Mirkin metric, ``--index`` the Rand,
    Jaccard and adjusted Rand indices, ``--all`` every measure of
    :func:`netmcl.analysis.compare` on one line.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> a, b = os.path.join(d, "a.txt"), os.path.join(d, "b.txt")
    >>> _ = open(a, "w").write("x\\ty\\tz\\nu\\tv\\n")
    >>> _ = open(b, "w").write("x\\ty\\nz\\nu\\tv\\n")
    >>> dist_main([a, b, "-o", os.path.join(d, "out")])
    0
    >>> open(os.path.join(d, "out")).read().split("\\t")[:3]
    ['d=1', 'd1=1', 'd2=0']
    """
    return _command("dist", _dist, argv)


# ---------------------------------------------------------------------------
# netmcl info
# ---------------------------------------------------------------------------

_INFO_DESCRIPTION = """\
Efficiency, modularity, mass and area fractions and cluster sizes of
clusterings of a graph, as clm info prints them. GRAPH is a native matrix or
a label (ABC) file; each CLUSTERING a label file or a native cluster file.
"""


def info_line(q, source):
    """One clustering's figures in ``clm info``'s line format.

    Examples
    --------
    >>> import networkx as nx
    >>> from netmcl.analysis import quality
    >>> info_line(quality(nx.barbell_graph(4, 0), [[0, 1, 2, 3], [4, 5, 6, 7]]), "bb.cl")
    'eff=0.95000 mod=0.42308 mf=0.95000 af=0.42857  src=bb.cl ncl=2 max=4  ctr=4.0 avg=4.0 min=4 DGI=1 TWI=1 TWL=4 sgl=0 qrt=2'
    """
    return (
        f"eff={q['efficiency']:.5f} mod={q['modularity']:.5f} mf={q['mass_fraction']:.5f} "
        f"af={q['area_fraction']:.5f}  src={source} ncl={q['n_clusters']} max={q['max']}  "
        f"ctr={q['ctr']:.1f} avg={q['avg']:.1f} min={q['min']} DGI={q['dgi']} TWI={q['twi']} "
        f"TWL={q['twl']} sgl={q['singletons']} qrt={q['at_most_4']}"
    )


def _info(argv):
    from ..analysis import quality
    from ..io import atomic_write, read_clusters

    p = _Parser(prog="netmcl info", description=_INFO_DESCRIPTION, allow_abbrev=False)
    p.add_argument("graph", metavar="GRAPH", help="the clustered graph")
    p.add_argument("files", metavar="CLUSTERING", nargs="+", help="clustering files")
    p.add_argument("--skip-header", action="store_true", help="skip the first line of a label GRAPH file")
    p.add_argument("-use-tab", metavar="TAB", dest="use_tab", help="native GRAPH: label table, to read label clusterings")
    p.add_argument("-o", metavar="FILE", dest="output", default="-", help="output file (default: standard output)")
    args = p.parse_args(argv)
    graph = _read_graph(args.graph, skip_header=args.skip_header, tab=args.use_tab)
    lines = []
    for path in args.files:
        try:
            q = quality(graph, read_clusters(path))
        except InputFileError:  # names the file already
            raise
        except NetmclError as exc:
            hint = ""
            if isinstance(exc, ParameterError) and args.use_tab is None and graph.n and isinstance(graph.labels[0], int):
                hint = (" GRAPH is a native matrix with numbered nodes: give its label table with -use-tab "
                        "to read label clusterings.")
            raise type(exc)(f"{path}: {exc}{hint}") from None
        lines.append(info_line(q, path))
    with atomic_write(args.output) as fh:
        fh.write("===\n".join(line + "\n" for line in lines))
    return 0


def info_main(argv):
    """``netmcl info GRAPH CL ...``: ``clm info``'s figures for each clustering of GRAPH.

    Efficiency, modularity, mass fraction, area fraction, then the cluster
    sizes (see :func:`netmcl.analysis.quality`), in ``clm info``'s format,
    ``===`` between clusterings.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> g, c = os.path.join(d, "g.abc"), os.path.join(d, "c.txt")
    >>> _ = open(g, "w").write("a\\tb\\t1\\nb\\tc\\t1\\nc\\ta\\t1\\nc\\td\\t0.2\\nd\\te\\t1\\n")
    >>> _ = open(c, "w").write("a\\tb\\tc\\nd\\te\\n")
    >>> info_main([g, c])
    eff=0.99345 mod=0.33900 mf=0.96932 af=0.40000  src=... ncl=2 max=3  ctr=2.6 avg=2.5 min=2 DGI=2 TWI=0 TWL=3 sgl=0 qrt=2
    0
    """
    return _command("info", _info, argv)


# ---------------------------------------------------------------------------
# netmcl sweep
# ---------------------------------------------------------------------------

_SWEEP_DESCRIPTION = """\
Cluster a graph at several inflations (reading and preparing it once) and print
a table of clm's measures per inflation, and of the complexes recovered when a
gold standard is given, to choose an inflation.
"""


def _tsv_table(table):
    columns = list(dict.fromkeys(k for row in table for k in row))
    out = ["\t".join(columns)]
    for row in table:
        out.append("\t".join("" if row.get(c) is None else f"{row[c]:.6g}" if isinstance(row[c], float) else str(row[c])
                             for c in columns))
    return "\n".join(out) + "\n"


def _sweep(argv):
    from ._common import output_name
    from ..io import atomic_write, write_clusters
    from ..sweep import DEFAULT_INFLATIONS, sweep

    p = _Parser(prog="netmcl sweep", description=_SWEEP_DESCRIPTION, allow_abbrev=False)
    p.add_argument("graph", metavar="FILE", help="the graph: a native matrix or a label (ABC) file")
    p.add_argument("-I", metavar="f", dest="inflations", type=float, nargs="+", default=list(DEFAULT_INFLATIONS),
                   help="inflations (default: 1.4 2 3 4 6)")
    p.add_argument("--complexes", metavar="FILE", help="known complexes, one per line (e.g. CYC2008)")
    p.add_argument("--overlap-threshold", dest="overlap_threshold", type=float, default=0.25,
                   help="overlap score for a complex to be matched (default 0.25)")
    p.add_argument("--skip-header", action="store_true", help="skip the first line of a label file")
    p.add_argument("-use-tab", metavar="TAB", dest="use_tab", help="native input: label table")
    p.add_argument("-o", metavar="FILE", dest="output",
                   help="write the table as TSV with every column (default: an aligned table on standard output)")
    p.add_argument("-odir", metavar="DIR",
                   help="also write each clustering to DIR/out.<FILE>.I<xx>, as mcl names them")
    p.add_argument("--progress", action="store_true", help="show a progress bar")
    _add_mcl_options(p)
    args = p.parse_args(argv)
    graph = _read_graph(args.graph, skip_header=args.skip_header, tab=args.use_tab)
    complexes = None if args.complexes is None else _read_complexes(args.complexes)
    result = sweep(graph, args.inflations, complexes=complexes, overlap_threshold=args.overlap_threshold,
                   progress=args.progress, **_mcl_options(args))
    if args.odir is not None:
        labels = not all(isinstance(x, int) for x in graph.labels) or args.use_tab is not None
        for inflation, clustering in result.items():
            write_clusters(output_name(args.graph, inflation=inflation, odir=args.odir), clustering,
                           format="labels" if labels else "native")
    if args.output is None:
        print(result.format_table())
    else:
        with atomic_write(args.output) as fh:
            fh.write(_tsv_table(result.table))
    return 0


def sweep_main(argv):
    """``netmcl sweep FILE -I 1.4 2 3 ...``: cluster at several inflations and tabulate the measures.

    See :func:`netmcl.sweep`.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> g = os.path.join(d, "g.abc")
    >>> _ = open(g, "w").write("a\\tb\\nb\\tc\\nc\\ta\\nc\\td\\nd\\te\\ne\\tf\\nf\\td\\n")
    >>> sweep_main([g, "-I", "2", "3", "-o", os.path.join(d, "t.tsv")])
    0
    >>> open(os.path.join(d, "t.tsv")).read().split("\\n")[1].split("\\t")[:2]
    ['2', '2']
    """
    return _command("sweep", _sweep, argv)


# ---------------------------------------------------------------------------
# netmcl string
# ---------------------------------------------------------------------------

_STRING_DESCRIPTION = """\
Cluster a STRING network file (protein.links[.detailed|.full], an API or web
export, or an R STRINGdb table), keeping interactions with score >= --min-score
(0-1000 scale). Writes a table node, cluster[, preferred_name, ...] (cluster 0
is the largest) or, with --format labels, one cluster per line as mcl does.
"""


def _string(argv):
    from ..io import write_clusters
    from ..io.string import read_string
    from ..io.tables import write_graphml, write_run_report, write_tsv
    from ..mcl import mcl

    p = _Parser(prog="netmcl string", description=_STRING_DESCRIPTION, allow_abbrev=False)
    p.add_argument("links", metavar="FILE", help="the STRING file (gzipped or not)")
    p.add_argument("--min-score", dest="min_score", type=float, default=400,
                   help="keep scores >= this, 0-1000 scale: 150 low, 400 medium (default), 700 high, 900 highest")
    p.add_argument("--channel", default="combined_score",
                   help="evidence channel used as score and weight (default combined_score; e.g. experimental)")
    p.add_argument("--info", metavar="FILE", help="protein.info file, or an R STRINGdb map() table, for names")
    p.add_argument("--aliases", metavar="FILE", help="protein.aliases file, for names")
    p.add_argument("--alias-source", dest="alias_source", metavar="SOURCE", help="alias source to take names from")
    p.add_argument("-I", metavar="f", dest="inflation", type=float, default=2.0, help="inflation (default 2.0)")
    p.add_argument("-o", metavar="FILE", dest="output", default="-", help="output file (default: standard output)")
    p.add_argument("--format", choices=("table", "labels"), default="table",
                   help="table (default): node, cluster, names; labels: one cluster per line")
    p.add_argument("--names", action="store_true", help="with --format labels: write preferred names instead of STRING ids")
    p.add_argument("--graphml", metavar="FILE", help="also write the network with the clusters as GraphML (Cytoscape)")
    p.add_argument("--report", metavar="FILE", help="also write a JSON run report (version, parameters, chaos, checksums)")
    _add_mcl_options(p)
    args = p.parse_args(argv)
    G = read_string(args.links, min_score=args.min_score, channel=args.channel, info=args.info,
                    aliases=args.aliases, alias_source=args.alias_source)
    if G.number_of_nodes() == 0:
        raise ParameterError(f"No interaction of {args.links} scores >= {args.min_score:g}; lower --min-score.")
    clustering = mcl(G, inflation=args.inflation, attribute="mcl_cluster", **_mcl_options(args))
    named = any("preferred_name" in data for _, data in G.nodes(data=True))
    if args.format == "labels":
        clusters = clustering.clusters
        if args.names:
            clusters = [[G.nodes[v].get("preferred_name", v) for v in c] for c in clusters]
        write_clusters(args.output, clusters)
    else:
        write_tsv(args.output, clustering, G, label_attribute="preferred_name" if named else None)
    if args.graphml is not None:
        write_graphml(args.graphml, G)
    if args.report is not None:
        write_run_report(args.report, clustering, graph=G, input_path=None if args.links == "-" else args.links,
                         extra={"command": ["netmcl", "string", *argv]})
    if args.output != "-":
        print(f"[netmcl string] {G.number_of_nodes()} proteins, {G.number_of_edges()} interactions, "
              f"{len(clustering)} clusters; output is in {args.output}", file=sys.stderr)
    return 0


def string_main(argv):
    """``netmcl string LINKS --min-score 700 --info INFO -o clusters.tsv``: cluster a STRING file.

    See :func:`netmcl.read_string`.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> links = os.path.join(d, "links.txt")
    >>> _ = open(links, "w").write("protein1 protein2 combined_score\\n9606.A 9606.B 900\\n9606.B 9606.C 800\\n"
    ...                            "9606.D 9606.E 950\\n9606.C 9606.D 150\\n")
    >>> string_main([links, "--min-score", "700", "--format", "labels"])
    9606.A	9606.B	9606.C
    9606.D	9606.E
    0
    """
    return _command("string", _string, argv)

