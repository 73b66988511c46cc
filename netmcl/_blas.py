"""One BLAS thread in netmcl's own programs.

numpy loads OpenBLAS when it is imported, and OpenBLAS at once starts a
thread per core (or ``OPENBLAS_NUM_THREADS`` of them), each of which spins for
about 0.1 s waiting for work before it sleeps.  netmcl's programs never call
BLAS (their matrices are sparse, their kernels their own), so there those
threads only burn CPU time and contend with netmcl's threads while the run
starts: ``import numpy`` took 0.5 s of CPU time with one BLAS thread and
1.9-2.2 s with the default on a 16-core machine; on 2 cores a Collins run at
``-te 2`` took 0.28 s of CPU time instead of 0.17 s.

OpenBLAS reads its thread count once, when it is loaded, so this runs before
numpy is imported (first thing in ``netmcl/__init__.py``), and only in a
process started as one of netmcl's programs: the ``netmcl`` command or
``python -m netmcl`` (``netmcl.demo`` ...).  A program that imports netmcl as
a library keeps its BLAS as it set it.
"""

import os
import sys

#: interpreter options followed by a value (``python -X importtime -m netmcl``)
_OPTIONS_WITH_VALUE = ("-W", "-X", "--check-hash-based-pycs")


def started_as_netmcl(argv):
    """Whether the interpreter command line `argv` (``sys.orig_argv``) runs one
    of netmcl's programs: its console script, or ``-m netmcl`` or a module of it.

    Examples
    --------
    >>> started_as_netmcl(["/venv/bin/python", "/venv/bin/netmcl", "net.abc", "--abc"])
    True
    >>> started_as_netmcl(["python3", "-X", "importtime", "-m", "netmcl.demo"])
    True
    >>> started_as_netmcl(["python3", "-c", "import netmcl"]), started_as_netmcl(["python3", "analysis.py"])
    (False, False)
    """
    args = list(argv[1:])
    while args and args[0].startswith("-") and args[0] not in ("-m", "-c", "-"):
        args = args[2:] if args[0] in _OPTIONS_WITH_VALUE else args[1:]
    if not args or args[0] in ("-c", "-"):
        return False
    if args[0] == "-m":
        return len(args) > 1 and args[1].split(".")[0] == "netmcl"
    name = args[0].replace("\\", "/").rsplit("/", 1)[-1].lower()  # a Windows path too
    return name.removesuffix(".exe").removesuffix("-script.py") == "netmcl"


def one_thread_in_own_programs():
    """Set ``OPENBLAS_NUM_THREADS=1`` if this process is one of netmcl's programs
    and numpy is not loaded yet; return whether it was set."""
    if "numpy" in sys.modules or not started_as_netmcl(getattr(sys, "orig_argv", ())):
        return False
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    return True
