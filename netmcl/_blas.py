"""One BLAS thread in netmcl's own programs.

numpy loads OpenBLAS when it is imported, and OpenBLAS at once starts a
thread per core (or ``OPENBLAS_NUM_THREADS`` of them), each of which spins for
about 0.1 s waiting for work before it sleeps.  netmcl's programs never call
BLAS (their matrices are sparse, their kernels their own), so there those
threads only burn CPU time and contend with netmcl's threads while the run
starts, the more so the more cores the machine has.

OpenBLAS reads its thread count once, when it is loaded, so numpy is loaded
under :func:`one_blas_thread` first thing in ``netmcl/__init__.py`` (every
entry point, the console script and ``python -m netmcl...``, imports the
package first, so no entry point could do it earlier).  It acts only in a
process started as one of netmcl's programs, and puts the variable back as it
was once numpy is loaded: importing netmcl changes no environment variable,
and a program that imports netmcl as a library keeps its BLAS as it set it.
"""

import contextlib
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


@contextlib.contextmanager
def one_blas_thread():
    """Within the block, ``OPENBLAS_NUM_THREADS=1`` if this process is one of
    netmcl's programs and numpy is not loaded yet; the variable is put back as
    it was on leaving.  Yields whether it was set.

    Examples
    --------
    >>> import os
    >>> before = os.environ.get("OPENBLAS_NUM_THREADS")
    >>> with one_blas_thread() as set_here:   # numpy is loaded already here
    ...     set_here
    False
    >>> os.environ.get("OPENBLAS_NUM_THREADS") == before
    True
    """
    if "numpy" in sys.modules or not started_as_netmcl(getattr(sys, "orig_argv", ())):
        yield False
        return
    before = os.environ.get("OPENBLAS_NUM_THREADS")
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        yield True
    finally:
        if before is None:
            os.environ.pop("OPENBLAS_NUM_THREADS", None)
        else:
            os.environ["OPENBLAS_NUM_THREADS"] = before
