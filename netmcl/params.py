"""MCL parameters: names users know, each mapped to its mcl flag, validated once."""

import math
import numbers

import numpy as np
from dataclasses import asdict, dataclass

from .exceptions import ParameterError
from .interpret import OVERLAP_MODES, SORT_MODES

__all__ = ["MclParams", "SCHEMES"]

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

#: parameter name -> the mcl flag it stands for (used in messages and docs).
FLAGS = {
    "inflation": "-I",
    "pruning_number": "-P",
    "pruning_threshold": "-p",
    "select": "-S",
    "recover": "-R",
    "recover_pct": "-pct",
    "scheme": "-scheme",
    "resource": "-resource",
    "preinflation": "-pi",
    "loop_gain": "-c",
    "discard_loops": "--discard-loops",
    "overlap": "-overlap",
    "sort": "-sort",
    "max_iterations": "-L",
    "threads": "-te",
}


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
        ``-L``: the iteration cap.
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

    @classmethod
    def build(
        cls,
        *,
        inflation=2.0,
        scheme=None,
        resource=None,
        pruning_number=None,
        pruning_threshold=None,
        select=None,
        recover=None,
        recover_pct=None,
        preinflation=None,
        loop_gain=None,
        discard_loops=True,
        overlap="cut",
        sort="revsize",
        max_iterations=10000,
    ):
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
        inflation = _number("inflation", inflation)
        if inflation <= 1.0:
            _fail("inflation", "a float > 1 (values near 1.2 give coarse, 5 fine clusterings)", inflation)
        if scheme is None:
            P, S, R, pct = SCHEMES[6]
        else:
            if scheme not in SCHEMES:
                _fail("scheme", f"one of {sorted(SCHEMES)}", scheme)
            P, S, R, pct = SCHEMES[scheme]
        if resource is not None:
            resource = _number("resource", resource, integer=True)
            if resource < 0:
                _fail("resource", "a non-negative integer", resource)
            S = R = resource
            if scheme is None:  # as mcl: -resource sets P only where neither -P nor -scheme did
                P = 10 * resource
        if pruning_threshold is not None:
            p = _number("pruning_threshold", pruning_threshold)
            if not 0 < p < 1:
                _fail("pruning_threshold", "a float in (0, 1)", pruning_threshold)
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
        )

    @property
    def cutoff(self):
        """The pruning cutoff ``0.99999 / P`` (in double, as mcl), or -1 for none."""
        return 0.99999 / self.pruning_number if self.pruning_number > 0 else -1.0

    def pruning(self):
        """The :class:`~netmcl.engines.Pruning` (cutoff, S, R, pct) the engines take."""
        from .engines import Pruning

        return Pruning(self.cutoff, self.select, self.recover, self.recover_pct / 100.0)

    def to_dict(self):
        """The parameters as a plain dict."""
        return asdict(self)
