"""MCL parameters: names users know, each mapped to its mcl flag, validated once."""

import math
import numbers

import numpy as np
from dataclasses import asdict, dataclass
from typing import NamedTuple

from .exceptions import ParameterError
from .interpret import OVERLAP_MODES, SORT_MODES

#: mcl stops when the chaos of an iteration falls below this.
CHAOS_LIMIT = 1e-4
#: from this iteration on, mcl multiplies the inflation by 1.001 each iteration.
BUMP_FROM = 40

__all__ = ["MclParams", "Pruning", "PARAMETERS", "Parameter", "SCHEMES", "parameter_table", "parameters_doc", "split_options"]

#: mcl's ``-scheme`` table: P, S, R, pct (``mcl --show-schemes``).
SCHEMES = {
    1: (3000, 400, 500, 90),
    2: (4000, 500, 600, 90),
    3: (5000, 600, 700, 90),
    4: (6000, 700, 800, 90),
    5: (7000, 800, 900, 90),
    6: (10000, 1100, 1400, 90),
    7: (10000, 1200, 1600, 90),
}

@dataclass(frozen=True)
class Parameter:
    """One row of :data:`PARAMETERS`.

    Attributes
    ----------
    name : str
        The keyword of :func:`netmcl.mcl` (and of :func:`netmcl.mcl_iterates`
        and :func:`netmcl.sweep`).
    flag : str
        mcl's flag for it, which the ``netmcl`` command takes too (a flag
        starting with ``--`` and not mcl's is netmcl's own).
    default : object
        The keyword's default (None: mcl's, resolved by :meth:`MclParams.build`).
    shown : str
        The default as the README and ``--help`` show it.
    metavar : str
        The flag's value in ``--help``.
    kind : {"float", "int", "bool", "str"}
        The flag's value type.
    doc : str
        One line.
    choices : tuple, optional
        The allowed values.
    engine : bool
        True for what the engine takes rather than mcl's algorithm (threads,
        memory): the same clusters for every value.
    """

    name: str
    flag: str
    default: object
    shown: str
    metavar: str
    kind: str
    doc: str
    choices: tuple = None
    engine: bool = False


#: The parameters of an MCL run, in the order the README lists them.
PARAMETERS = (
    Parameter("inflation", "-I", 2.0, "2.0", "f", "float",
              "larger values give more, smaller clusters (1.4, 2, 4 and 6 are usual)"),
    Parameter("scheme", "-scheme", None, "6", "k", "int", "resource scheme 1..7: a preset of P, S, R and pct"),
    Parameter("resource", "-resource", None, "", "n", "int", "S = R = n and P = 10n"),
    Parameter("pruning_number", "-P", None, "10000", "n", "int", "prune entries below 0.99999/n (0: no cutoff)"),
    Parameter("pruning_threshold", "-p", None, "", "f", "float", "prune entries below f; sets P to floor(1/f)"),
    Parameter("select", "-S", None, "1100", "n", "int", "keep at most the n largest entries of a column"),
    Parameter("recover", "-R", None, "1400", "n", "int",
              "recover up to n entries where pruning removed too much mass"),
    Parameter("recover_pct", "-pct", None, "90", "n", "int",
              "recover where a column kept less than n% of its mass (0..99)"),
    Parameter("preinflation", "-pi", None, "", "f", "float", "inflate the input graph once with f first"),
    Parameter("loop_gain", "-c", None, "", "f", "float", "multiply the weights of the loops (self-edges) by f"),
    Parameter("discard_loops", "--discard-loops", True, "True", "y|n", "bool",
              "replace the input's loops by each node's largest weight (n: keep them as they are)"),
    Parameter("transform", "-tf", None, "", "spec", "str",
              "transform the weights first with mcl's transform language, e.g. 'gq(0.3),#knn(20)'"),
    Parameter("force_connected", "--force-connected", False, "False", "y|n", "bool",
              "split every cluster into its connected parts in the (transformed) input graph"),
    Parameter("overlap", "-overlap", "cut", "cut", "mode", "str",
              "nodes attracted to several clusters: cut keeps them in one, keep in all, split apart",
              choices=OVERLAP_MODES),
    Parameter("sort", "-sort", "revsize", "revsize", "mode", "str",
              "cluster order: revsize (largest first), size, lex, none", choices=SORT_MODES),
    Parameter("max_iterations", "-L", 10000, "10000", "n", "int", "stop after n iterations (of the main phase)"),
    Parameter("initial_iterations", "-l", 0, "0", "n", "int",
              "run n iterations at the initial inflation -i before the main phase"),
    Parameter("initial_inflation", "-i", None, "2.0", "f", "float", "the inflation of the first -l iterations"),
    Parameter("engine", "--engine", "cpu", "cpu", "NAME", "str",
              "where the arithmetic runs (netmcl.engines.available_engines())", engine=True),
    Parameter("threads", "-te", None, "all cores", "n", "int",
              "threads (a container's CPU quota respected); the clusters do not depend on it", engine=True),
    Parameter("max_memory", "--max-memory", None, "no bound", "SIZE", "str",
              "memory budget, e.g. 8G or 500M; the clusters do not depend on it", engine=True),
)

#: engine options of particular engines that only Python passes (objects, or
#: flags of one engine's own): given to the engine's factory when given
ENGINE_KEYWORDS = ("client", "scheduler", "blocks", "worker_engine")

#: the largest inflation mcl takes: it ignores a larger -I (with a warning) and clusters at 2.0
MAX_INFLATION = 30.0
#: name -> :class:`Parameter`
BY_NAME = {p.name: p for p in PARAMETERS}
#: parameter name -> the mcl flag it stands for (used in messages and docs).
FLAGS = {p.name: p.flag for p in PARAMETERS}


def parameter_table():
    """The README's parameter table (markdown), made from :data:`PARAMETERS`.

    Examples
    --------
    >>> print(parameter_table().splitlines()[2])
    | `inflation` | `-I` | 2.0 | larger values give more, smaller clusters (1.4, 2, 4 and 6 are usual) |
    """
    rows = ["| netmcl | mcl | default | what it does |", "| --- | --- | --- | --- |"]
    rows += [f"| `{p.name}` | `{p.flag}` | {p.shown} | {p.doc} |" for p in PARAMETERS]
    return "\n".join(rows)


def parameters_doc(indent="    "):
    """The numpydoc entries of :data:`PARAMETERS`, for the docstrings of the functions that take them."""
    kinds = {"float": "float", "int": "int", "bool": "bool", "str": "str"}
    lines = []
    for prm in PARAMETERS:
        kind = "{" + ", ".join(repr(c) for c in prm.choices) + "}" if prm.choices else kinds[prm.kind]
        default = f", default {prm.default!r}" if prm.default is not None else ", optional"
        lines.append(f"{indent}{prm.name} : {kind}{default}")
        lines.append(f"{indent}    mcl ``{prm.flag}``: {prm.doc}." if not prm.engine
                     else f"{indent}    (``{prm.flag}``) {prm.doc[0].upper()}{prm.doc[1:]}.")
    return "\n".join(lines) + "\n"


def signature_with_parameters(function):
    """`function`'s signature with its ``**params`` spelled out from :data:`PARAMETERS` (what
    ``help()`` and editors show)."""
    import inspect

    sig = inspect.signature(function)
    fixed = [q for q in sig.parameters.values() if q.kind != q.VAR_KEYWORD]
    spelled = [inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, default=p.default) for p in PARAMETERS]
    return sig.replace(parameters=fixed + spelled)


def split_options(options, *, caller="mcl"):
    """Split keyword arguments into MCL parameters and engine options, refusing unknown names.

    Examples
    --------
    >>> split_options({"inflation": 1.4, "threads": 2})
    ({'inflation': 1.4}, {'engine': 'cpu', 'threads': 2, 'max_memory': None})
    >>> split_options({"inflaton": 1.4})
    Traceback (most recent call last):
    ...
    netmcl.exceptions.ParameterError: mcl() has no parameter 'inflaton'; did you mean 'inflation'?
    """
    unknown = [name for name in options if name not in BY_NAME and name not in ENGINE_KEYWORDS]
    if unknown:
        import difflib

        near = difflib.get_close_matches(unknown[0], BY_NAME, n=1)
        hint = f"; did you mean {near[0]!r}?" if near else f" (its parameters: {', '.join(BY_NAME)})."
        raise ParameterError(f"{caller}() has no parameter {unknown[0]!r}{hint}")
    algorithm = {k: v for k, v in options.items() if k in BY_NAME and not BY_NAME[k].engine}
    engine = {p.name: options.get(p.name, p.default) for p in PARAMETERS if p.engine}
    engine.update((k, options[k]) for k in ENGINE_KEYWORDS if options.get(k) is not None)
    return algorithm, engine


class Pruning(NamedTuple):
    """The pruning settings of one iteration, as the engines take them.

    Attributes
    ----------
    cutoff : float
        Keep entries ``>= cutoff`` (float64, ``0.99999 / P``); ``-1.0``: no
        cutoff (``-P 0``).
    select : int
        mcl ``-S``; 0: no selection.
    recover : int
        mcl ``-R``; 0: no recovery (an emptied column gets a loop of 1.0).
    pct : float
        mcl ``-pct`` as a fraction (0.90 for 90).
    """

    cutoff: float
    select: int
    recover: int
    pct: float



def _fail(name, requirement, value):
    raise ParameterError(
        f"The '{name}' parameter of mcl ({FLAGS.get(name, name)}) must be {requirement}. "
        f"Got {value!r} instead."
    )


def _number(name, value, *, integer=False):
    # numbers.Real: numpy's scalars too (np.int64 from an array, np.float32)
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or (integer and not float(value).is_integer()):
        _fail(name, "an integer" if integer else "a number", value)
    if not math.isfinite(value):
        _fail(name, "finite", value)
    return int(value) if integer else float(value)


def positive_integer(name, value):
    """`value` as an int, or a :class:`ParameterError` naming parameter `name` and its mcl flag.

    Examples
    --------
    >>> positive_integer("threads", 2.0)
    2
    """
    value = _number(name, value, integer=True)
    if value < 1:
        _fail(name, "a positive integer", value)
    return value


@dataclass(frozen=True)
class MclParams:
    """The settings of one MCL run, with mcl's defaults (scheme 6).

    Use :meth:`build` to create one from user-facing keywords; it validates
    every value and resolves ``scheme``, ``resource`` and
    ``pruning_threshold`` into P, S, R and pct as mcl does.

    Attributes
    ----------
    inflation : float
        ``-I``, > 1.
    pruning_number : int
        ``-P``: entries below ``0.99999 / P`` are cut; 0 disables the cutoff.
    select : int
        ``-S``: columns with more entries than this are cut to the S largest.
    recover : int
        ``-R``: columns cut below this many entries and below `recover_pct`
        mass get their largest discarded entries back.
    recover_pct : int
        ``-pct``, 0..99.
    preinflation : float or None
        ``-pi``: one inflation of the input before the iterations.
    loop_gain : float or None
        ``-c``: multiply every loop weight.
    discard_loops : bool
        ``--discard-loops``: replace input loops by the column maximum
        (True, mcl's default) or leave loops exactly as given (False).
    overlap : {"cut", "keep", "split"}
        ``-overlap``.
    sort : {"revsize", "size", "lex", "none"}
        ``-sort``.
    max_iterations : int
        ``-L``: the iteration cap of the main phase.
    transform : str or None
        ``-tf``: a transform (:mod:`netmcl.transforms`) applied to the graph's
        weights after its loops are removed and before loops are added.
    initial_iterations : int
        ``-l``: iterations at `initial_inflation` before the main phase (which
        checks convergence only after them).
    initial_inflation : float
        ``-i``: the inflation of those iterations.
    force_connected : bool
        ``--force-connected``: split every cluster into the connected
        components it induces in the (transformed) input graph.
    """

    inflation: float = 2.0
    pruning_number: int = 10000
    select: int = 1100
    recover: int = 1400
    recover_pct: int = 90
    preinflation: float = None
    loop_gain: float = None
    discard_loops: bool = True
    overlap: str = "cut"
    sort: str = "revsize"
    max_iterations: int = 10000
    transform: str = None
    initial_iterations: int = 0
    initial_inflation: float = 2.0
    force_connected: bool = False

    @classmethod
    def build(cls, **params):
        """Validate user-facing keywords and return the resolved parameters.

        Examples
        --------
        >>> MclParams.build(inflation=1.4, scheme=3).pruning_number
        5000
        >>> MclParams.build(pruning_threshold=0.001).pruning_number
        999
        >>> MclParams.build(pruning_threshold=0.05).pruning_number  # as mcl: 1 / float32(0.05) < 20
        19
        """
        given, _ = split_options(params, caller="MclParams.build")
        values = {p.name: p.default for p in PARAMETERS if not p.engine}
        values.update(given)
        inflation, scheme, resource = values["inflation"], values["scheme"], values["resource"]
        pruning_number, pruning_threshold = values["pruning_number"], values["pruning_threshold"]
        select, recover, recover_pct = values["select"], values["recover"], values["recover_pct"]
        preinflation, loop_gain, discard_loops = values["preinflation"], values["loop_gain"], values["discard_loops"]
        overlap, sort, max_iterations = values["overlap"], values["sort"], values["max_iterations"]
        inflation = _number("inflation", inflation)
        if inflation <= 1.0:
            _fail("inflation", "a float > 1 (values near 1.2 give coarse, 5 fine clusterings)", inflation)
        if inflation > MAX_INFLATION:
            _fail("inflation", f"at most {MAX_INFLATION:g}, as in mcl (which ignores a larger -I, with a warning, "
                  "and clusters with -I 2)", inflation)
        if scheme is None:
            P, S, R, pct = SCHEMES[6]
        else:
            if scheme not in SCHEMES:
                _fail("scheme", f"one of {sorted(SCHEMES)}", scheme)
            P, S, R, pct = SCHEMES[scheme]
        if resource is not None:
            resource = _number("resource", resource, integer=True)
            if resource < 1:
                _fail("resource", "a positive integer, as in mcl", resource)
            S = R = resource
            if scheme is None:  # as mcl: -resource sets P only where neither -P nor -scheme did
                P = 10 * resource
        if pruning_threshold is not None:
            p = _number("pruning_threshold", pruning_threshold)
            if not 0 < p <= 0.1:
                _fail("pruning_threshold", "a float in (0, 0.1], as in mcl", pruning_threshold)
            P = int(math.floor(1.0 / float(np.float32(p))))  # mcl reads -p into a float
        for name, value in (("pruning_number", pruning_number), ("select", select), ("recover", recover)):
            if value is not None:
                value = _number(name, value, integer=True)
                if value < 0:
                    _fail(name, "a non-negative integer", value)
        P = P if pruning_number is None else int(pruning_number)
        S = S if select is None else int(select)
        R = R if recover is None else int(recover)
        if recover_pct is not None:
            pct = _number("recover_pct", recover_pct, integer=True)
            if not 0 <= pct <= 99:
                _fail("recover_pct", "an integer in 0..99", recover_pct)
        if preinflation is not None:
            preinflation = _number("preinflation", preinflation)
            if preinflation <= 0:
                _fail("preinflation", "a float > 0", preinflation)
        if loop_gain is not None:
            loop_gain = _number("loop_gain", loop_gain)
            if loop_gain < 0:
                _fail("loop_gain", "a float >= 0", loop_gain)
        if not isinstance(discard_loops, bool):
            _fail("discard_loops", "True or False", discard_loops)
        if overlap not in OVERLAP_MODES:
            _fail("overlap", f"one of {OVERLAP_MODES}", overlap)
        if sort not in SORT_MODES:
            _fail("sort", f"one of {SORT_MODES}", sort)
        max_iterations = positive_integer("max_iterations", max_iterations)
        transform = values["transform"]
        if transform is not None:
            from .transforms import parse_transform

            parse_transform(transform)  # a mistake named before a large graph is read
        initial_iterations = _number("initial_iterations", values["initial_iterations"], integer=True)
        if initial_iterations < 0:
            _fail("initial_iterations", "a non-negative integer", initial_iterations)
        initial_inflation = values["initial_inflation"]
        initial_inflation = 2.0 if initial_inflation is None else _number("initial_inflation", initial_inflation)
        if not 0 < initial_inflation <= MAX_INFLATION:
            _fail("initial_inflation", f"a float in (0, {MAX_INFLATION:g}]", initial_inflation)
        force_connected = values["force_connected"]
        if not isinstance(force_connected, bool):
            _fail("force_connected", "True or False", force_connected)
        if force_connected and overlap == "keep":
            _fail("force_connected", "False with overlap='keep' (a node in two clusters has no one part)",
                  force_connected)
        return cls(
            inflation=inflation,
            pruning_number=P,
            select=S,
            recover=R,
            recover_pct=int(pct),
            preinflation=preinflation,
            loop_gain=loop_gain,
            discard_loops=discard_loops,
            overlap=overlap,
            sort=sort,
            max_iterations=max_iterations,
            transform=transform,
            initial_iterations=initial_iterations,
            initial_inflation=initial_inflation,
            force_connected=force_connected,
        )

    @property
    def cutoff(self):
        """The pruning cutoff ``0.99999 / P`` (in double, as mcl), or -1 for none."""
        return 0.99999 / self.pruning_number if self.pruning_number > 0 else -1.0

    def pruning(self):
        """The :class:`Pruning` (cutoff, S, R, pct) the engines take."""
        return Pruning(self.cutoff, self.select, self.recover, self.recover_pct / 100.0)

    def to_dict(self):
        """The parameters as a plain dict."""
        return asdict(self)
