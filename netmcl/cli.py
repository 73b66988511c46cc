"""The ``netmcl`` command: mcl's command line, with mcl's flags and output files.

``netmcl FILE [options]`` clusters FILE as ``mcl FILE [options]`` does and
writes the same output file, byte for byte for label (``--abc``) output and,
for native output, without mcl's ``# cline`` comment line.  ``netmcl dist``,
``info``, ``sweep`` and ``string`` run the companion tools of
:mod:`netmcl.cli_tools`.

Errors end the program with a non-zero exit status and one line on standard
error (``netmcl: error: ...``); an output file is never left half-written.
"""

import argparse
import importlib
import logging
import os
import sys
import warnings

import numpy as np

from . import __version__
from .exceptions import NetmclError, ParameterError
from .interpret import OVERLAP_MODES, SORT_MODES
from .io import read_abc, read_mci, write_clusters
from .params import SCHEMES, MclParams

__all__ = ["main", "output_name"]

#: ``netmcl <command> ...`` runs ``netmcl.cli_tools.<command>_main(args)``.
SUBCOMMANDS = ("dist", "info", "sweep", "string")

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


def _yes_no(text):
    value = text.strip().lower()
    if value in ("y", "yes", "1", "true"):
        return True
    if value in ("n", "no", "0", "false"):
        return False
    raise argparse.ArgumentTypeError(f"expected y or n, got {text!r}")


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

    g = p.add_argument_group("MCL parameters (mcl's defaults)")
    g.add_argument(
        "-I",
        metavar="f",
        dest="inflation",
        type=float,
        default=2.0,
        help="inflation (default 2.0); larger gives smaller clusters, usual values 1.2 to 6",
    )
    g.add_argument(
        "-scheme",
        metavar="k",
        type=int,
        choices=sorted(SCHEMES),
        help="resource scheme 1..7 setting -P -S -R -pct (default 6: 10000 1100 1400 90)",
    )
    g.add_argument(
        "-resource",
        metavar="n",
        type=int,
        help="keep at most n entries per column throughout: -S n -R n -P 10n",
    )
    g.add_argument(
        "-P",
        metavar="n",
        dest="pruning_number",
        type=int,
        help="prune entries below 1/n in each column (0: no such pruning)",
    )
    g.add_argument(
        "-p",
        metavar="f",
        dest="pruning_threshold",
        type=float,
        help="prune entries below f; sets -P to floor(1/f)",
    )
    g.add_argument(
        "-S",
        metavar="n",
        dest="select",
        type=int,
        help="keep at most the n largest entries of a column after pruning",
    )
    g.add_argument(
        "-R",
        metavar="n",
        dest="recover",
        type=int,
        help="recover up to n entries when pruning removed too much mass",
    )
    g.add_argument(
        "-pct",
        metavar="n",
        dest="recover_pct",
        type=int,
        help="recover when a column kept less than n%% of its mass (0..99)",
    )
    g.add_argument(
        "-pi",
        metavar="f",
        dest="preinflation",
        type=float,
        help="inflate the input graph once with f before clustering",
    )
    g.add_argument(
        "-c",
        metavar="f",
        dest="loop_gain",
        type=float,
        help="multiply the weights of the loops (self-edges) by f",
    )
    g.add_argument(
        "-discard-loops",
        "--discard-loops",
        metavar="y|n",
        dest="discard_loops",
        type=_yes_no,
        default=True,
        help="y (default): replace loops by the largest weight of each node; "
        "n: keep the loops of the input as they are",
    )
    g.add_argument(
        "-L", metavar="n", dest="max_iterations", type=int, default=10000, help="stop after n iterations"
    )
    g.add_argument(
        "-overlap",
        metavar="mode",
        choices=OVERLAP_MODES,
        default="cut",
        help="nodes attracted to several clusters: cut (default) keeps them in one, keep in all, "
        "split makes them a cluster of their own",
    )
    g.add_argument(
        "-sort",
        metavar="mode",
        choices=SORT_MODES,
        default="revsize",
        help="cluster order: revsize (default, largest first), size, lex, none",
    )

    g = p.add_argument_group("performance and messages")
    g.add_argument(
        "-te",
        "--threads",
        metavar="n",
        dest="threads",
        type=int,
        help="threads for the expansion (default: the cores available, fewer under a container's CPU quota); "
        "the clusters do not depend on it",
    )
    g.add_argument(
        "--max-memory",
        metavar="SIZE",
        dest="max_memory",
        help="memory budget of the computation, e.g. 8G or 500M; the clusters do not depend on it",
    )
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
        "--cytoscape",
        action="store_true",
        help="send the graph and clusters to a running Cytoscape (needs py4cytoscape: pip install netmcl[cytoscape])",
    )
    g.add_argument("--cytoscape-url", metavar="URL", help="Cytoscape's REST address (implies --cytoscape)")
    return p


def _code(value, scale):
    """mcl's encoding of a parameter in a file name: ``%02.0f`` of the float32 value times `scale`."""
    return "%02.0f" % (float(np.float32(value)) * scale)


def output_name(
    file, *, inflation=2.0, preinflation=None, loop_gain=None, odir=None, prefix=None, suffix=None, i3=False
):
    """The output file name mcl chooses when no ``-o`` is given.

    ``out.<basename of file>.I<inflation x 10>``, then ``pi<x 10>`` and
    ``c<x 10>`` when ``-pi`` or ``-c`` is given, exactly as mcl 22-282
    builds it (check with ``mcl FILE -az``).

    Examples
    --------
    >>> output_name("data/graph.abc", inflation=1.4)
    'out.graph.abc.I14'
    >>> output_name("graph.abc", inflation=2.5, preinflation=1.5, loop_gain=3, odir="results")
    'results/out.graph.abc.I25pi15c30'
    """
    name = prefix if prefix is not None else "out." + os.path.basename(file)
    name += ".I" + _code(inflation, 100 if i3 else 10)
    if preinflation is not None:
        name += "pi" + _code(preinflation, 10)
    if loop_gain is not None:
        name += "c" + _code(loop_gain, 10)
    if suffix is not None:
        name += suffix
    if odir is not None:
        name = odir + ("" if odir.endswith("/") else "/") + name
    return name


_PARAM_NAMES = (
    "inflation",
    "scheme",
    "resource",
    "pruning_number",
    "pruning_threshold",
    "select",
    "recover",
    "recover_pct",
    "preinflation",
    "loop_gain",
    "discard_loops",
    "overlap",
    "sort",
    "max_iterations",
)


def _params_and_engine(args):
    """mcl's parameters and the engine, checked before a large file is read."""
    params = MclParams.build(**{name: getattr(args, name) for name in _PARAM_NAMES})
    from .engines import get_engine

    return params, get_engine("cpu", threads=args.threads, max_memory=args.max_memory)


def _read_graph(args):
    if args.abc:
        if args.use_tab is not None:
            raise ParameterError("-use-tab gives labels to a native matrix; a label file (--abc) has its own.")
        return read_abc(args.file, skip_header=args.skip_header)
    if args.skip_header:
        raise ParameterError("--skip-header applies to label files; add --abc.")
    return read_mci(args.file, tab=args.use_tab)


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
    """--plot and --cytoscape; return the exit status."""
    status = 0
    jobs = []
    if args.plot:
        jobs.append(("plot", "draw_to_file", lambda f: f(graph, clustering, args.plot), "--plot"))
    if args.cytoscape or args.cytoscape_url:
        kw = {} if args.cytoscape_url is None else {"base_url": args.cytoscape_url}
        jobs.append(("cytoscape", "push", lambda f: f(graph, clustering, **kw), "--cytoscape"))
    for module, function, call, flag in jobs:
        try:
            call(getattr(importlib.import_module(f"netmcl.{module}"), function))
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
    out = (
        args.output
        if args.output is not None
        else output_name(
            args.file,
            inflation=args.inflation,
            preinflation=args.preinflation,
            loop_gain=args.loop_gain,
            odir=args.odir,
            prefix=args.ap,
            suffix=args.aa,
            i3=args.i3,
        )
    )
    if args.az:
        print(out)
        return 0
    params, engine = _params_and_engine(args)
    from .engines.cpu import map_large_blocks, one_arena
    from .mcl import cluster_graph

    map_large_blocks()  # this process is ours: freed arrays go back to the system,
    one_arena()  # and memory a thread frees is there for the others
    if (args.resume or args.checkpoint_every is not None) and args.checkpoint is None:
        raise ParameterError("--resume and --checkpoint-every need --checkpoint PATH.")
    graph = _read_graph(args)
    checkpoint = None
    if args.checkpoint is not None:
        from .checkpoint import Checkpoint

        checkpoint = Checkpoint(args.checkpoint, graph, params, every=args.checkpoint_every, resume=args.resume)
    keep_weights = bool(args.plot or args.cytoscape or args.cytoscape_url)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clustering = cluster_graph(graph, params, engine, release_input=not keep_weights, checkpoint=checkpoint)
    for w in caught:
        print(f"[netmcl] warning: {' '.join(str(w.message).split())}", file=sys.stderr)
    labels_out = args.abc or args.use_tab is not None
    try:
        write_clusters(out, clustering, format="labels" if labels_out else "native")
    except OSError as exc:
        raise OSError(f"cannot write the output file {out}: {exc.strerror or exc}") from None
    if args.quiet is None and args.silent is None:
        print(f"[{_PROG}] {len(clustering)} clusters found", file=sys.stderr)
        print(f"[{_PROG}] output is in {out}", file=sys.stderr)
    return _after(args, graph, clustering)


def _subcommand(name, argv):
    try:
        tools = importlib.import_module("netmcl.cli_tools")
        entry = getattr(tools, f"{name}_main")
    except ModuleNotFoundError as exc:
        if exc.name not in ("netmcl.cli_tools", "netmcl"):
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
