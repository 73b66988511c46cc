"""What the ``netmcl`` command and its subcommands share: the flags of the
parameter table and mcl's automatic output names."""

import argparse
import os

import numpy as np

from ..params import PARAMETERS

__all__ = ["add_parameter_flags", "output_name", "parameters_of"]


def _yes_no(text):
    value = text.strip().lower()
    if value in ("y", "yes", "1", "true"):
        return True
    if value in ("n", "no", "0", "false"):
        return False
    raise argparse.ArgumentTypeError(f"expected y or n, got {text!r}")


#: other spellings of a parameter's flag that the command takes
_ALIASES = {"discard_loops": ("-discard-loops",), "threads": ("--threads",), "force_connected": ("-force-connected",)}
_KINDS = {"float": float, "int": int, "bool": _yes_no, "str": str}


def add_parameter_flags(group, *, algorithm=True, names=None):
    """Add the flags of :data:`netmcl.params.PARAMETERS` to an argparse group:
    mcl's algorithm parameters (`algorithm` True) or the engine's options,
    or only those in `names`.  Each flag's destination is the parameter's
    name and its default the table's."""
    for prm in PARAMETERS:
        if (names is not None and prm.name not in names) or (names is None and prm.engine == algorithm):
            continue
        shown = f" (default {prm.shown})" if prm.shown else ""
        group.add_argument(
            prm.flag, *_ALIASES.get(prm.name, ()), metavar=prm.metavar, dest=prm.name, type=_KINDS[prm.kind],
            default=prm.default, choices=prm.choices,
            help=(prm.doc + shown).replace("%", "%%"),
        )


def parameters_of(args, names=None):
    """The parameters the flags of :func:`add_parameter_flags` gave (all, or those in `names`)."""
    return {prm.name: getattr(args, prm.name) for prm in PARAMETERS
            if (names is None or prm.name in names) and hasattr(args, prm.name)}


def _code(value, scale):
    """mcl's encoding of a parameter in a file name: ``%02.0f`` of the float32 value times `scale`."""
    return "%02.0f" % (float(np.float32(value)) * scale)


def output_name(
    file, *, inflation=2.0, preinflation=None, loop_gain=None, odir=None, prefix=None, suffix=None, i3=False,
    initial_iterations=0, initial_inflation=None,
):
    """The output file name mcl chooses when no ``-o`` is given.

    ``out.<basename of file>.I<inflation x 10>``, then ``l<n>i<x 10>`` for
    an initial phase (``-l`` n > 0), ``pi<x 10>`` and ``c<x 10>`` when
    ``-pi`` or ``-c`` is given, exactly as mcl 22-282 builds it (check with
    ``mcl FILE -az``).

    Examples
    --------
    >>> output_name("data/graph.abc", inflation=1.4)
    'out.graph.abc.I14'
    >>> output_name("graph.abc", inflation=2.5, preinflation=1.5, loop_gain=3, odir="results")
    'results/out.graph.abc.I25pi15c30'
    >>> output_name("graph.abc", initial_iterations=12, initial_inflation=1.45)
    'out.graph.abc.I20l12i15'
    """
    name = prefix if prefix is not None else "out." + os.path.basename(file)
    name += ".I" + _code(inflation, 100 if i3 else 10)
    if initial_iterations:
        name += f"l{int(initial_iterations)}i" + _code(2.0 if initial_inflation is None else initial_inflation, 10)
    if preinflation is not None:
        name += "pi" + _code(preinflation, 10)
    if loop_gain is not None:
        name += "c" + _code(loop_gain, 10)
    if suffix is not None:
        name += suffix
    if odir is not None:
        name = odir + ("" if odir.endswith("/") else "/") + name
    return name
