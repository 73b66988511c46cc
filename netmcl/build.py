"""``python -m netmcl.build``: compile netmcl's kernels for this machine now.

netmcl's kernels are numba functions compiled ahead of time into extension
modules kept in netmcl's cache directory.  Without
this command the first run that needs them builds them, which makes that run
take a minute longer.  Run right after ``pip install``, it makes the first
clustering run start as fast as every later one::

    python3 -m pip install . && python3 -m netmcl.build

Why not during ``pip install`` itself: pip builds a package in an isolated
environment with its own numba and numpy, while the build is keyed by (and
must match) the numba, numpy, Python and CPU that run it, so a module compiled
there would be rebuilt at the first run anyway.  This command runs with the
installed netmcl and its runtime, and builds exactly what the first run would.

It builds every part of the kernels that is not built yet
(those already built are only loaded), says where they are, and exits with
status 1 and the reason if they cannot be built (no C compiler, a read-only
cache); netmcl then still runs, through numba's JIT.
"""

import argparse
import os
import sys
import time

__all__ = ["build", "main"]


def build(*, quiet=False):
    """Build (or find) the compiled kernels; return their directories.

    Parameters
    ----------
    quiet : bool, default False
        No progress bar.

    Returns
    -------
    list of str
        The directory of each built module, one per part of the kernels.

    Raises
    ------
    OSError
        If a module cannot be built (the message says why).

    Examples
    --------
    >>> import os
    >>> all(os.path.isdir(d) for d in build(quiet=True))   # built already: only found
    True
    """
    import logging

    from .engines.cpu import _compiled

    logger = logging.getLogger("netmcl")
    previous = logger.level
    if quiet:
        logger.setLevel(logging.ERROR)  # the progress bar shows where warnings would
    try:
        directories = []
        for suffix in _compiled.PARTS:
            directory = os.path.join(_compiled._cache_dir(), _compiled._key() + suffix)
            directory = _compiled._ensure_built(directory, suffix)
            _compiled._load(directory, suffix)  # checks the module holds every kernel, and marks it used
            directories.append(directory)
        return directories
    finally:
        logger.setLevel(previous)


def main(argv=None):
    """Run ``python -m netmcl.build``; return the exit status."""
    parser = argparse.ArgumentParser(prog="python -m netmcl.build", description=__doc__.split("\n\n")[0])
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no message on success")
    args = parser.parse_args(argv)
    if os.environ.get("NETMCL_KERNELS", "").lower() == "jit":
        print("netmcl.build: NETMCL_KERNELS=jit is set, so netmcl runs its kernels through numba's JIT; "
              "building them anyway.", file=sys.stderr)
    t0 = time.perf_counter()
    try:
        directories = build(quiet=args.quiet)
    except (OSError, ImportError) as exc:
        print(f"netmcl.build: error: the kernels could not be compiled ({exc}). netmcl still works, through "
              "numba's JIT (about 0.6 s and 110 MB more per process); a C compiler (e.g. apt-get install gcc) "
              "lets them be compiled.", file=sys.stderr)
        return 1
    if not args.quiet:
        print(f"netmcl's kernels are compiled for this machine ({time.perf_counter() - t0:.1f} s): "
              + ", ".join(directories))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
