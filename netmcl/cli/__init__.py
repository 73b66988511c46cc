"""The ``netmcl`` command: mcl's command line, with mcl's flags and output files.

``netmcl FILE [options]`` clusters FILE as ``mcl FILE [options]`` does and
writes the same output file, byte for byte for label (``--abc``) output and,
for native output, without mcl's ``# cline`` comment line.  ``netmcl dist``,
``info``, ``sweep`` and ``string`` run the companion tools of
:mod:`netmcl.cli.tools`.

Errors end the program with a non-zero exit status and one line on standard
error (``netmcl: error: ...``); an output file is never left half-written.
"""

import argparse
import importlib
import logging
import os
import sys
import time
import warnings

import numpy as np

from .._version import __version__
from ..exceptions import InputFileError, NetmclError, ParameterError
from ..io import read_abc, read_mci, write_clusters
from ..params import MclParams, split_options
from ._common import add_parameter_flags, output_name, parameters_of

__all__ = ["main", "output_name"]

#: ``netmcl <command> ...`` runs ``netmcl.cli.tools.<command>_main(args)``.
SUBCOMMANDS = ("dist", "info", "sweep", "string", "bfs", "paths", "components", "rcl")
#: the module of netmcl.cli holding each subcommand's ``<command>_main``
_COMMAND_MODULES = {"bfs": "traversal", "paths": "traversal", "components": "traversal", "rcl": "rcl"}

_PROG = "netmcl"

_DESCRIPTION = """\
Markov clustering with exactly the results of mcl 22-282.

netmcl FILE [options] reads FILE as mcl does (a native matrix, or a label file
with --abc), clusters it and writes the clustering to out.<FILE>.I<inflation>
(mcl's name) or to the file given with -o. Flags have mcl's names and meaning.
"""

_EPILOG = """\
other commands (netmcl COMMAND --help for their options):
  netmcl dist A B ...       distances between clusterings (clm dist)
  netmcl info GRAPH CL ...  efficiency and mass fractions (clm info)
  netmcl sweep FILE ...     cluster at several inflations and compare
  netmcl string FILE ...    cluster a STRING protein.links file
  netmcl bfs FILE -s NODE   hop distances from source nodes
  netmcl paths FILE -s NODE weighted shortest-path distances
  netmcl components FILE    connected components
  netmcl rcl setup|tree|select TAG ...  consensus hierarchy of clusterings (rcl)

examples:
  netmcl graph.abc --abc -I 1.4            # writes out.graph.abc.I14
  netmcl graph.abc --abc -o clusters.txt -te 4
  netmcl proteins.mci -I 2 -o -            # native input, native output to stdout
  zcat links.txt.gz | netmcl - --abc --skip-header -o clusters.txt
"""


class _UsageError(Exception):
    """A command-line mistake, reported as one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise _UsageError(message)


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter, given the width of the help text.

    argparse makes a formatter for every option added; one left to find the
    width itself imports shutil, and with it bz2 and lzma: 0.5 MB of every
    run's memory.  The width is found as shutil finds it: ``COLUMNS``, else
    the terminal's, else 80 (less 2, as argparse leaves).
    """

    def __init__(self, prog):
        try:
            columns = int(os.environ.get("COLUMNS", ""))
        except ValueError:
            columns = 0
        if columns <= 0:
            try:
                columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
            except (AttributeError, ValueError, OSError):
                columns = 0
        super().__init__(prog, width=(columns if columns > 0 else 80) - 2)


def _parser():
    p = _Parser(
        prog=_PROG,
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=_Formatter,
        allow_abbrev=False,
    )
    p.add_argument(
        "file",
        metavar="FILE",
        nargs="?",
        help="input graph; '-' reads standard input; gzip, bzip2 and xz are decompressed",
    )
    p.add_argument(
        "--version", action="version", version=f"{_PROG} {__version__} (clusterings identical to mcl 22-282)"
    )

    g = p.add_argument_group("input and output")
    g.add_argument(
        "--abc",
        action="store_true",
        help="FILE is a label file: 'label label [weight]' per line (TAB-separated when a line has "
        "a TAB); write labels, one cluster per line",
    )
    g.add_argument(
        "--skip-header",
        action="store_true",
        help="skip the first line of a label file (a header such as "
        "'protein1 protein2 combined_score'); netmcl's own flag",
    )
    g.add_argument(
        "-abc-tf",
        metavar="SPEC",
        dest="abc_tf",
        help="with --abc: transform every line's weight with mcl's transform language (edge functions, e.g. "
        "'ceil(200)'), before edges are mirrored and merged",
    )
    g.add_argument(
        "--abc-neg-log10",
        action="store_const",
        const="log10",
        dest="neg_log",
        help="with --abc: replace every weight (an e-value) by -log10 of it, 0 by the largest float/ln 10; "
        "before -abc-tf",
    )
    g.add_argument(
        "--abc-neg-log",
        action="store_const",
        const="log",
        dest="neg_log",
        help="with --abc: replace every weight by -ln of it, 0 by the largest float; before -abc-tf",
    )
    g.add_argument(
        "-use-tab",
        metavar="TAB",
        dest="use_tab",
        help="native input: label table (index TAB label per line, as written by mcxload -write-tab); write labels",
    )
    g.add_argument("-o", metavar="NAME", dest="output", help="output file; '-' writes to standard output")
    g.add_argument("-odir", metavar="DIR", help="directory for the automatically named output file")
    g.add_argument(
        "-ap", metavar="PREFIX", help="use PREFIX instead of out.<FILE> in the automatic output name"
    )
    g.add_argument("-aa", metavar="SUFFIX", help="append SUFFIX to the automatic output name")
    g.add_argument("-az", action="store_true", help="print the output file name netmcl would use, and exit")
    g.add_argument(
        "--i3", action="store_true", help="three digits for the inflation in the automatic output name"
    )
    g.add_argument(
        "-icl",
        metavar="CLUSTERING",
        dest="icl",
        help="subcluster: reduce the graph to edges inside the clusters of CLUSTERING as mcl does, then "
        "cluster it (CLUSTERING: a native cluster file; with --abc also a label one); automatic output "
        "name CLUSTERING.I<inflation>",
    )
    g.add_argument(
        "--report",
        metavar="FILE.json",
        help="also write a JSON run report (version, engine, parameters, input sha256, per-iteration "
        "statistics, times), after the cluster file",
    )

    add_parameter_flags(p.add_argument_group("MCL parameters (mcl's flags and defaults)"), algorithm=True)
    g = p.add_argument_group("engine, performance and messages")
    add_parameter_flags(g, algorithm=False)
    g.add_argument("--scheduler", metavar="ADDRESS",
                   help="the Dask scheduler to iterate on, with --engine dask (needs pip install 'netmcl[dask]')")
    g.add_argument(
        "-q",
        metavar="spec",
        dest="quiet",
        help="quiet: only warnings and errors (mcl's log spec; 'x' silences all)",
    )
    g.add_argument("-V", metavar="mode", dest="silent", help="silent: no summary lines (any mode)")
    g.add_argument(
        "-v", metavar="mode", dest="verbose", help="verbose: per-iteration log lines (any mode, e.g. all)"
    )

    g = p.add_argument_group("checkpoints (resume a stopped or killed run with the same clusters)")
    g.add_argument(
        "--checkpoint",
        metavar="PATH",
        help="save the state of the run to PATH after every iteration (a .npz file of arrays and JSON)",
    )
    g.add_argument(
        "--checkpoint-every",
        metavar="SECONDS",
        dest="checkpoint_every",
        type=float,
        help="save the state at most every SECONDS seconds, and after the last iteration",
    )
    g.add_argument(
        "--resume",
        action="store_true",
        help="continue from the state in --checkpoint PATH if it exists (refused if the input or the "
        "parameters differ); else start from the beginning",
    )

    g = p.add_argument_group("after the clustering (the cluster file is written first)")
    g.add_argument(
        "--plot",
        metavar="FILE.png",
        help="draw the clustered graph into an image file (needs matplotlib: pip install netmcl[plot])",
    )
    g.add_argument(
        "--html",
        metavar="FILE.html",
        help="write an interactive view of the clusters to one HTML file that opens offline in a browser",
    )
    g.add_argument(
        "--complexes",
        metavar="FILE",
        help="known complexes, one per line, members separated by TABs or else white space (CYC2008's layout), "
        "or a gene-set file FILE.gmt (name TAB description TAB members...): "
        "--plot and --html name each cluster by the complex it overlaps best",
    )
    g.add_argument(
        "--names",
        metavar="FILE",
        help="readable node names for --plot and --html: a table of label TAB name per line "
        "(e.g. ORF TAB gene symbol)",
    )
    g.add_argument(
        "--cytoscape",
        action="store_true",
        help="send the graph and clusters to a running Cytoscape (needs py4cytoscape: pip install netmcl[cytoscape])",
    )
    g.add_argument("--cytoscape-url", metavar="URL", help="Cytoscape's REST address (implies --cytoscape)")
    return p


#: the pruning flags, by parameter; mcl applies its flags in the order given, so that a
#: later -scheme resets all of them and a later -resource -S and -R (-P: see _in_mcl_order)
_PRUNING_FLAGS = {
    "pruning_number": ("-P",),
    "pruning_threshold": ("-p",),
    "select": ("-S",),
    "recover": ("-R",),
    "recover_pct": ("-pct",),
    "resource": ("-resource",),
}
def _last(argv, flags):
    """The position of the last of `flags` in `argv` (-1: none)."""
    found = [k for k, token in enumerate(argv) if token in flags or token.split("=")[0] in flags]
    return found[-1] if found else -1


def _in_mcl_order(args, argv):
    """Drop the pruning flags a later flag overrides in mcl, which applies them in order:
    ``-S 5 -scheme 1`` is scheme 1, ``-scheme 1 -S 5`` scheme 1 with S 5; ``-S 5
    -resource 3`` has S 3; of ``-P`` and ``-p`` the later one counts.  (A ``-P`` before
    ``-resource`` still counts: mcl's -resource sets P only where no -P was given.)"""
    scheme, resource = _last(argv, ("-scheme",)), _last(argv, ("-resource",))
    where = {name: _last(argv, flags) for name, flags in _PRUNING_FLAGS.items()}
    dropped = [name for name, position in where.items()
               if 0 <= position < scheme or (name in ("select", "recover") and 0 <= position < resource)]
    if 0 <= where["pruning_number"] < where["pruning_threshold"]:
        dropped.append("pruning_number")
    elif 0 <= where["pruning_threshold"] < where["pruning_number"]:
        dropped.append("pruning_threshold")
    for name in dropped:
        MclParams.build(**{name: getattr(args, name)})  # a value out of range is an error all the same
        setattr(args, name, None)


def _params_and_engine(args):
    """mcl's parameters and the engine, checked before a large file is read."""
    from ..engines import get_engine

    algorithm, engine = split_options(parameters_of(args))
    if getattr(args, "scheduler", None):
        engine["scheduler"] = args.scheduler
    name = engine.pop("engine")
    return MclParams.build(**algorithm), get_engine(name, **engine)


def _read_graph(args):
    if args.abc:
        if args.use_tab is not None:
            raise ParameterError("-use-tab gives labels to a native matrix; a label file (--abc) has its own.")
        return read_abc(args.file, skip_header=args.skip_header, transform=args.abc_tf, neg_log=args.neg_log)
    if args.skip_header:
        raise ParameterError("--skip-header applies to label files; add --abc.")
    if args.abc_tf is not None or args.neg_log is not None:
        raise ParameterError("-abc-tf, --abc-neg-log and --abc-neg-log10 transform a label file's weights as they "
                             "are read; add --abc (for a native matrix use -tf).")
    return read_mci(args.file, tab=args.use_tab)


def _within(graph, path, by_id):
    """-icl: the graph reduced to the clusters in `path` as mcl reduces it.  A native cluster
    file names nodes by their ids: a native matrix's labels (`by_id`), else node indices."""
    from ..io import read_clusters
    from ..subclustering import within_clusters

    clusters = read_clusters(path)
    native = any(not isinstance(m, str) for c in clusters for m in c[:1])
    try:
        return within_clusters(graph, clusters, indices=native and not by_id)
    except ParameterError as exc:
        raise ParameterError(f"-icl {path}: {exc}") from None


def _input_record(file, graph):
    """The report's record of the input: the file's sha256 (not for standard input) and the
    graph's (:func:`netmcl.io.tables.graph_checksum`), taken before the run may free its weights."""
    from ..io.tables import _file_sha256, graph_checksum

    record = {"path": file, "nodes": graph.n, "arcs": graph.nnz, "graph_sha256": graph_checksum(graph)}
    if file != "-":
        record["sha256"] = _file_sha256(file)
    return record


def _log_handler(args):
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("[netmcl] %(message)s"))
    logger = logging.getLogger("netmcl")
    previous = logger.level
    if args.verbose is not None:
        logger.setLevel(logging.DEBUG)
    elif args.quiet is not None or args.silent is not None:
        logger.setLevel(logging.ERROR if args.quiet and "x" in args.quiet else logging.WARNING)
    else:
        logger.setLevel(logging.WARNING)
    logger.addHandler(handler)
    return logger, handler, previous


def _after(args, graph, clustering):
    """--plot, --html and --cytoscape; return the exit status."""
    status = 0
    jobs = []
    named = {}
    for flag, path, key, read in (("--complexes", args.complexes, "complexes", _read_complexes),
                                  ("--names", args.names, "label_attribute", _read_names)):
        if path is not None and (args.plot or args.html):
            try:
                named[key] = read(path)
            except (OSError, InputFileError) as exc:
                _error(f"{flag}: {_one_line(exc).rstrip('.')}; the clusters were written.")
                return 1
    if args.plot:
        jobs.append(("plot", "draw_to_file", lambda f: f(graph, clustering, args.plot, **named), "--plot"))
    if args.html:
        jobs.append(("html", "view", lambda f: f(graph, clustering, args.html, **named), "--html"))
    if args.cytoscape or args.cytoscape_url:
        kw = {} if args.cytoscape_url is None else {"base_url": args.cytoscape_url}
        jobs.append(("cytoscape", "push", lambda f: f(graph, clustering, **kw), "--cytoscape"))
    for module, function, call, flag in jobs:
        try:
            call(getattr(importlib.import_module(f"netmcl.viz.{module}"), function))
        except (NetmclError, OSError) as exc:  # first: BackendUnavailableError is an ImportError too
            _error(f"{flag} failed: {_one_line(exc)} The clusters were written.")
            status = 1
        except (ImportError, AttributeError):
            _error(
                f"{flag} is not available in this installation (netmcl.{module}.{function} is missing); "
                "the clusters were written."
            )
            status = 1
    return status


def _read_complexes(path):
    """The complexes of a file with one complex per line: members separated by TABs when the line
    has one (labels may hold spaces, as in a cluster file), else by white space.  A FILE.gmt is a
    gene-set file: name TAB description TAB members, and gives a mapping name -> members."""
    with open(path, encoding="utf-8", errors="surrogateescape") as handle:
        lines = [(k, line.rstrip("\r\n")) for k, line in enumerate(handle, 1)
                 if line.strip() and not line.startswith("#")]
    if not str(path).lower().endswith(".gmt"):
        return [[m for m in (line.split("\t") if "\t" in line else line.split()) if m] for _, line in lines]
    sets = {}
    for k, line in lines:
        fields = line.split("\t")
        if len(fields) < 3 or not fields[0]:
            raise InputFileError(path, "a .gmt line is name TAB description TAB members.", line=k,
                                 value=line[:80])
        sets[fields[0]] = [m for m in fields[2:] if m]
    return sets


def _read_names(path):
    """label -> readable name, from a file of label TAB name per line."""
    names = {}
    with open(path, encoding="utf-8", errors="surrogateescape") as handle:
        for k, line in enumerate(handle, 1):
            line = line.rstrip("\r\n")
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 2 or not fields[0] or not fields[1]:
                raise InputFileError(path, "a names line is label TAB name.", line=k, value=line[:80])
            names[fields[0]] = fields[1]
    return names


def _one_line(exc):
    text = str(exc) or type(exc).__name__
    if isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror
    return " ".join(text.split())


def _error(message):
    print(f"{_PROG}: error: {message}", file=sys.stderr)


def _run(args):
    if args.file is None:
        raise _UsageError("no input FILE given")
    prefix = args.ap
    if prefix is None and args.icl is not None:  # mcl names a subclustering after the clustering
        prefix = os.path.basename(args.icl) if args.odir is not None else args.icl
    out = (
        args.output
        if args.output is not None
        else output_name(
            args.file,
            inflation=args.inflation,
            preinflation=args.preinflation,
            loop_gain=args.loop_gain,
            initial_iterations=args.initial_iterations,
            initial_inflation=args.initial_inflation,
            odir=args.odir,
            prefix=prefix,
            suffix=args.aa,
            i3=args.i3,
        )
    )
    if args.az:
        print(out)
        return 0
    params, engine = _params_and_engine(args)
    if args.abc_tf is not None:
        from ..transforms import Transform

        Transform(args.abc_tf).values(np.zeros(0, np.float32))  # refused before the file is read
    from ..engines.cpu import map_large_blocks, one_arena
    from ..mcl import cluster_graph

    map_large_blocks()  # this process is ours: freed arrays go back to the system,
    one_arena()  # and memory a thread frees is there for the others
    if (args.resume or args.checkpoint_every is not None) and args.checkpoint is None:
        raise ParameterError("--resume and --checkpoint-every need --checkpoint PATH.")
    t_read = time.perf_counter()
    graph = _read_graph(args)
    t_read = time.perf_counter() - t_read
    source = None if args.report is None else _input_record(args.file, graph)
    if args.icl is not None:
        graph = _within(graph, args.icl, by_id=not args.abc and args.use_tab is None)
    checkpoint = None
    if args.checkpoint is not None:
        from ..checkpoint import Checkpoint

        checkpoint = Checkpoint(args.checkpoint, graph, params, every=args.checkpoint_every, resume=args.resume)
    keep_weights = bool(args.plot or args.html or args.cytoscape or args.cytoscape_url)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t_cluster = time.perf_counter()
        clustering = cluster_graph(graph, params, engine, release_input=not keep_weights, checkpoint=checkpoint)
        t_cluster = time.perf_counter() - t_cluster
    for w in caught:
        print(f"[netmcl] warning: {' '.join(str(w.message).split())}", file=sys.stderr)
    labels_out = args.abc or args.use_tab is not None
    t_write = time.perf_counter()
    try:
        write_clusters(out, clustering, format="labels" if labels_out else "native")
    except OSError as exc:
        raise OSError(f"cannot write the output file {out}: {exc.strerror or exc}") from None
    t_write = time.perf_counter() - t_write
    before = getattr(clustering, "before_split", None)
    if before is not None and out != "-":  # as mcl: the clustering before --force-connected split it
        try:
            write_clusters(out + "-rags", before, format="native")
        except OSError as exc:
            raise OSError(f"cannot write {out}-rags: {exc.strerror or exc}; the clusters were written.") from None
    if args.report is not None:
        from ..io.tables import write_run_report

        extra = {
            "command": [_PROG, *args.argv],
            "engine": {"name": engine.name, "threads": getattr(engine, "threads", 1)},
            "input": source,
            "output": out,
            "seconds": {"read": t_read, "cluster": t_cluster, "write": t_write},
        }
        try:
            write_run_report(args.report, clustering, extra=extra)
        except OSError as exc:
            raise OSError(f"cannot write the report {args.report}: {exc.strerror or exc}; "
                          "the clusters were written.") from None
    if args.quiet is None and args.silent is None:
        print(f"[{_PROG}] {len(clustering)} clusters found", file=sys.stderr)
        where = "on standard output" if out == "-" else f"in {out}"
        print(f"[{_PROG}] output is {where}", file=sys.stderr)
    return _after(args, graph, clustering)


def _subcommand(name, argv):
    try:
        module = f"netmcl.cli.{_COMMAND_MODULES.get(name, 'tools')}"
        entry = getattr(importlib.import_module(module), f"{name}_main")
    except ModuleNotFoundError as exc:
        if exc.name not in (module, "netmcl"):
            _error(f"'{name}' needs {exc.name}, which is not installed.")
        else:
            _error(f"the '{name}' command is not available in this installation of netmcl.")
        return 1
    except AttributeError:
        _error(f"the '{name}' command is not available in this installation of netmcl.")
        return 1
    return int(entry(argv) or 0)


def main(argv=None):
    """Run the ``netmcl`` command line; return the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 1 on an error in the input, the parameters or the
        output, 2 on a command-line mistake, 3 on an internal error.

    Examples
    --------
    >>> main(["graph.abc", "--abc", "-I", "1.4", "-az"])
    out.graph.abc.I14
    0
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if argv and argv[0] in SUBCOMMANDS:
            return _subcommand(argv[0], argv[1:])
        parser = _parser()
        args, unknown = parser.parse_known_args(argv)
        if unknown:
            flags = [a for a in unknown if a.startswith("-") and a != "-"]
            if not flags:
                raise _UsageError(f"unexpected argument {unknown[0]!r}")
            known = [s for action in parser._actions for s in action.option_strings]
            import difflib  # here only: 0.3 MB that a run does not need

            close = difflib.get_close_matches(flags[0].split("=")[0], known, n=1)
            raise _UsageError(f"unknown option {flags[0]}" + (f" (did you mean {close[0]}?)" if close else ""))
        _in_mcl_order(args, argv)
        args.argv = argv
        logger, handler, previous = _log_handler(args)
        try:
            return _run(args)
        finally:
            logger.removeHandler(handler)
            logger.setLevel(previous)
    except _UsageError as exc:
        _error(f"{exc} (see '{_PROG} --help')")
        return 2
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else 0
    except (NetmclError, OSError) as exc:
        _error(_one_line(exc))
        return 1
    except KeyboardInterrupt:
        _error("interrupted")
        return 130
    except MemoryError:
        _error("out of memory; prune harder (lower -P/-S/-R or -resource) or set --max-memory")
        return 1
    except Exception as exc:  # a bug: still one line, no traceback
        _error(f"unexpected {type(exc).__name__} (a bug in netmcl, please report it): {_one_line(exc)}")
        return 3
