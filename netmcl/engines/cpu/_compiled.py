"""netmcl's kernels, compiled once per machine into extension modules.

The kernels are numba functions (``engines/cpu/_kernels.py``, ``io/_scan.py``,
``engines/cpu/_graph_kernels.py``).  Calling them through numba's JIT costs
every process a start-up of about half a second and a hundred MB before any
work is done: numba and LLVM are loaded, and loading even a cached kernel
first builds numba's typing and lowering registries.  On a small graph that
is most of the run, and more than mcl's whole run.

So the first process that needs a kernel compiles them ahead of time with
numba's ``pycc``, for this CPU (``-march`` of the host, as the JIT would),
into an extension module stored in netmcl's cache directory.  The build runs
in a child process, once per machine and version of the kernels, numba, numpy
and Python, and shows a progress bar on standard error unless netmcl's logger
hides warnings (``-q x``).  Every later process imports only the module:
numba is not loaded at all.  The compiled functions release the GIL, as the
JIT-compiled ones do, so the engine's threads run them in parallel.  The
machine code comes from the same source through the same compiler, so the
results are the same bits.

The kernels are built in two modules (:data:`PARTS`), each the first time
one of its kernels is needed: the engine's kernels for matrices of more than
262,144 nodes, whose rows are int32, are needed by few runs, and building them
with the rest would make every first run wait for them.

Where a module cannot be built (no C compiler, a read-only cache), the
kernels run through numba's JIT, with a warning saying why.  The environment
variable ``NETMCL_KERNELS=jit`` asks for the JIT; ``NETMCL_CACHE_DIR`` moves the
cache (default ``$XDG_CACHE_HOME/netmcl`` or ``~/.cache/netmcl``).

A compiled module is machine code run inside the user's process, so it is
loaded only from a cache nobody else can write to.  The rule
(:func:`untrusted`), checked before every load, on the real path (symbolic
links above the cache root resolved):

* the cache root, ``kernels`` in it, the build's directory and the module
  file are each owned by the current user, by root, or by an owner named
  in ``NETMCL_CACHE_OWNERS``; none is writable by its group or by others;
  none below the root is a symbolic link;
* every directory above the cache root is owned by such an owner too and
  writable by no one else, unless it has the sticky bit (``/tmp``): there
  others may add entries but cannot rename or remove ours.

A cache root that breaks the rule (say a ``NETMCL_CACHE_DIR`` in a
world-writable directory) is not used: netmcl warns once, naming the path and
what is wrong, and builds into (or loads from) its default private cache
instead, or runs the JIT where that is the same directory.  A build below a
good root that breaks it, or whose checksum (written by the build, checked
before each load) does not match -- a module truncated by a full disk or
altered -- is removed, with one warning, and this process runs the JIT; the
next one builds it again.

To share one cache among the users of a machine or cluster: let one account
(say ``alice``) own a directory that only it can write (``chmod 755``), build
into it once (``NETMCL_CACHE_DIR=/shared/netmcl netmcl ...``), and have the
others read it with ``NETMCL_CACHE_DIR=/shared/netmcl
NETMCL_CACHE_OWNERS=alice``; their builds for other machines then go to
the JIT (they cannot write there), so build each kind of machine as alice.

Each build (about 1 MB) is marked when a process loads it.  A build that no
process has loaded for :data:`KEEP_UNUSED_DAYS` is removed the next time one
is built, so upgrades do not pile up old builds, while a cache shared by the
machines of a cluster keeps the build of every machine still in use.  The
modules only a build needs (``subprocess``, ``tempfile``, ``shutil``) are
imported by it, not by a process that loads a built module.
"""

import functools
import importlib
import importlib.machinery
import importlib.util
import logging
import os
import stat
import sys
import threading
import time
import types
import warnings
import zlib

import numpy as np

__all__ = ["for_rows", "kernels", "untrusted"]

log = logging.getLogger("netmcl")

#: the extension module's name (its init function is ``PyInit_<name>``)
MODULE = "_netmcl_kernels"

#: the package's directory: the sources below are named from it
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))

_WORK = (
    "Tuple((float64[::1], uint8[::1], uint64[::1], int32[::1], int32[::1], float64[::1], int32[::1], float32[::1],"
    " float32[::1], int32[::1], float32[::1], int64[::1], int64[::1], int64[::1], int64[::1], int32[::1], uint8[::1],"
    " float32[:, ::1], int32[::1], float64[::1], uint64[::1]))"
)
_BYTES = "Array(uint8, 1, 'C', readonly=True)"
_COORDS = "int32[::1], int32[::1], float32[::1], int64, int32[::1], float32[::1]"

#: name: (module, function, argument types as numba spells them).  Callers
#: pass exactly these types: CSC arrays are int64 column pointers, int32 rows
#: and float32 values, C-contiguous.
KERNELS = {
    "block_cuts": ("netmcl.engines.cpu._kernels", "block_cuts", "int64[::1], int64[::1], int32[::1], int64"),
    "column_survey": (
        "netmcl.engines.cpu._kernels",
        "column_survey",
        "int64[::1], int64[::1], int64[:, ::1], int32[::1], int32[::1], int64[::1], float32[::1], int64, int64,"
        " int64[::1], int64[::1]",
    ),
    "expand_columns": (
        "netmcl.engines.cpu._kernels",
        "expand_columns",
        "int64, int64, int64[::1], int64[::1], int32[::1], int32[::1], int64[::1], int64[::1], float32[::1],"
        " int64[::1], int64[:, ::1], int64[::1], int64, int64, float64, int64, int64, float64, float64, float64, float64,"
        f" float64, int64, int64, {_WORK}",
    ),
    "inflate_columns": ("netmcl.engines.cpu._kernels", "inflate_columns", "int64[::1], float32[::1], float64"),
    "copy_spans": (
        "netmcl.engines.cpu._kernels",
        "copy_spans",
        "int64[::1], int64[::1], int64[::1], int32[::1], float32[::1], int32[::1], float32[::1]",
    ),
    "normalize_columns": ("netmcl.engines.cpu._kernels", "normalize_columns", "int64[::1], float32[::1]"),
    "full_rows": (
        "netmcl.engines.cpu._kernels",
        "full_rows",
        "int64[::1], int64[::1], int64[:, ::1], int32[::1], int32[::1], int64[::1], int32[::1]",
    ),
    "gap_rows": (
        "netmcl.engines.cpu._kernels",
        "gap_rows",
        "int64[::1], uint16[::1], uint8[::1], uint16[::1], int64[::1], int64[::1]",
    ),
    "run_size": ("netmcl.engines.cpu._kernels", "run_size", "int64, boolean, int64, int64"),
    "with_max_loops": (
        "netmcl.engines.cpu._kernels",
        "with_max_loops",
        "int64[::1], int32[::1], float32[::1], int32[::1], float32[::1]",
    ),
    "work_arrays": ("netmcl.engines.cpu._kernels", "work_arrays", "int64, int64"),
    "csc_max": ("netmcl.engines.cpu._graph_kernels", "csc_max", _COORDS),
    "edge_max": ("netmcl.engines.cpu._graph_kernels", "edge_max", _COORDS),
    "mirror_edges": (
        "netmcl.engines.cpu._graph_kernels",
        "mirror_edges",
        "int64[::1], int32[::1], float32[::1], int32[::1], float32[::1]",
    ),
    "weak_labels": ("netmcl.engines.cpu._graph_kernels", "weak_labels", "int64[::1], int32[::1]"),
    "principal": ("netmcl.engines.cpu._graph_kernels", "principal", "int64[::1], int32[::1], float32[::1], int64[::1]"),
    "scan_abc": (
        "netmcl.io._scan",
        "scan_abc",
        f"{_BYTES}, float64[::1], int64[::1], int64[::1], uint64[::1], int64[:, ::1], uint8[::1]",
    ),
    "scan_native": ("netmcl.io._scan", "scan_native", f"{_BYTES}, int64, int64, float64[::1]"),
}
#: kernels also compiled for uint16 node ids, named ``<name>_u16``, with the first so many int32 arrays
#: uint16: the engine's rows and the exceptions' array of the same type (matrices of at most 262,144 nodes,
#: in row blocks past 65,536); on at most 65,536 nodes, the coordinates' rows and columns (a label file's
#: arcs) and the rows they are merged into, and the rows of a start matrix and its submatrices
_U16 = {
    "column_survey": 2, "expand_columns": 2, "full_rows": 2,
    "csc_max": 3, "edge_max": 3, "mirror_edges": 1, "weak_labels": 1, "principal": 1,
}
#: the engine's kernels also compiled for rows stored as one-byte gaps, named ``<name>_u8``: the rows uint8,
#: the next so many int32 arrays uint16: the rows stored whole (``_kernels._next_row``) and the rows written out
_U8 = {"column_survey": 1, "expand_columns": 1, "full_rows": 2}
KERNELS.update(
    (f"{name}_u16", (module, function, args.replace("int32[::1]", "uint16[::1]", _U16[name])))
    for name, (module, function, args) in list(KERNELS.items())
    if name in _U16
)
KERNELS.update(
    (f"{name}_u8", (module, function, args.replace("int32[::1]", "uint8[::1]", 1).replace("int32[::1]", "uint16[::1]",
                                                                                            _U8[name])))
    for name, (module, function, args) in list(KERNELS.items())
    if name in _U8
)
del KERNELS["full_rows"]  # int32 rows are stored whole: only narrow rows need it
# a start matrix of at most 65,536 nodes, its rows written as uint16 from the graph's int32
KERNELS["with_max_loops_u16"] = (
    "netmcl.engines.cpu._kernels", "with_max_loops", "int64[::1], int32[::1], float32[::1], uint16[::1], float32[::1]"
)

#: the modules the kernels are built into, by the suffix of the module's name:
#: the engine's kernels for int32 rows, which only a matrix of more than 262,144
#: nodes needs (or ``CpuEngine(narrow_rows=False)``), and all the others
PARTS = {
    "_wide": ("column_survey", "expand_columns"),
}
PARTS[""] = tuple(name for name in KERNELS if name not in PARTS["_wide"])
#: the child building a module prints this line each time it has compiled one of its
#: kernels, and once more when the module is written (machine code, C wrappers, linking)
_STEP_DONE = "netmcl: build step done"

#: days unused after which a build is removed when another is built: less disk, against rebuilds on idle machines
KEEP_UNUSED_DAYS = 30

#: the files whose content the compiled module depends on
_SOURCES = (
    "engines/cpu/_compiled.py",
    "engines/cpu/_graph_kernels.py",
    "engines/cpu/_jit.py",
    "engines/cpu/_constants.py",
    "engines/cpu/_kernels.py",
    "io/_codes.py",
    "io/_scan.py",
)


@functools.cache
def kernels():
    """The kernels, as attributes: compiled ahead of time, or numba's JIT.

    Returns
    -------
    object
        With one attribute per name in :data:`KERNELS`; the module holding
        a kernel is loaded, and built first if need be, when one of its
        kernels is first asked for.

    Examples
    --------
    >>> import numpy as np
    >>> K = kernels()
    >>> indptr = np.array([0, 1, 3], dtype=np.int64)
    >>> one_block = np.empty((0, 2), dtype=np.int64)
    >>> rows, whole = np.array([1, 0, 1], dtype=np.int32), np.empty(0, dtype=np.int32)
    >>> vals = np.array([1.0, 0.5, 0.5], dtype=np.float32)
    >>> flops, leaders = np.empty(2, dtype=np.int64), np.empty(2, dtype=np.int64)
    >>> K.column_survey(indptr[:-1], indptr[1:], one_block, rows, whole, indptr[:0], vals, 0, 2, flops, leaders)
    >>> flops.tolist(), leaders.tolist()
    ([2, 3], [1, 0])
    """
    if os.environ.get("NETMCL_KERNELS", "").lower() == "jit":
        return _jit_kernels()
    return _Compiled()


def for_rows(name, dtype):
    """The kernel `name` for rows of `dtype`: ``<name>_u16`` for uint16 rows
    (the variants of :data:`_U16`), else `name` itself.

    Examples
    --------
    >>> import numpy as np
    >>> for_rows("principal", np.uint16) is kernels().principal_u16
    True
    """
    return getattr(kernels(), name + ("_u16" if np.dtype(dtype) == np.uint16 else ""))


class _Compiled:
    """The kernels of :data:`KERNELS` as attributes, each module of
    :data:`PARTS` loaded (built first if need be) when one of its kernels is
    first asked for."""

    _part_of = {name: suffix for suffix, names in PARTS.items() for name in names}

    def __getattr__(self, name):
        if name not in self._part_of:
            raise AttributeError(f"netmcl has no kernel {name!r}")
        kernel = getattr(part(self._part_of[name]), name)
        setattr(self, name, kernel)  # later lookups do not come here
        return kernel

    def __dir__(self):
        return sorted(KERNELS)


_LOADING = threading.Lock()


@functools.cache
def _cached_part(suffix):
    root = _root()
    if root is None:  # no private cache: the warning has been given
        return _jit_kernels()
    try:
        return _load(_ensure_built(os.path.join(root, "kernels", _key() + suffix), suffix), suffix, root)
    except _BadBuild as exc:
        _warn(f"netmcl did not load its compiled kernels: {exc}. It removed that build, which the next run "
              "builds again; this one runs the kernels through numba's JIT.")
        return _jit_kernels()
    except (OSError, ImportError) as exc:
        _warn(
            f"netmcl could not compile its kernels ahead of time ({exc}); running them through numba's JIT "
            "instead, which adds about 0.6 s and 110 MB to each process. Set NETMCL_KERNELS=jit to silence this."
        )
        return _jit_kernels()


class _BadBuild(Exception):
    """A build in the cache that must not be loaded (it has been removed)."""


def _warn(message):
    warnings.warn(message, RuntimeWarning, stacklevel=5)


def part(suffix):
    """The module of the kernels ``PARTS[suffix]``, built first if it is not
    yet; numba's JIT where it cannot be built (with a warning)."""
    with _LOADING:  # the engine's threads may ask at once: one build, one load
        return _cached_part(suffix)


@functools.cache
def _jit_kernels():
    _private_numba_cache()
    mod = types.ModuleType("netmcl_jit_kernels")
    for name, (module, function, _) in KERNELS.items():
        setattr(mod, name, getattr(importlib.import_module(module), function))
    return mod


def _private_numba_cache():
    """Point numba's cache of JIT-compiled kernels (its index is a pickle: loading it runs code) away from
    a ``NUMBA_CACHE_DIR`` that breaks the rule of :func:`untrusted`, to ``numba`` in netmcl's private cache
    (or a new temporary directory), with a warning."""
    given = os.environ.get("NUMBA_CACHE_DIR")
    why = given and untrusted(given)
    if not why:
        return
    root = _default_root()
    if untrusted(root) is None:
        private = os.path.join(root, "numba")
        _private_dirs(private)
    else:
        import tempfile

        private = tempfile.mkdtemp(prefix="netmcl-numba-")
    _warn(f"netmcl does not let numba load its cache from {given}: {why}. It uses {private} instead.")
    os.environ["NUMBA_CACHE_DIR"] = private
    if "numba" in sys.modules:  # numba reads its settings when imported
        sys.modules["numba"].core.config.reload_config()


def _cache_root():
    """The directory of netmcl's cache (paths are strings here: importing pathlib would add to every run's memory)."""
    return os.environ.get("NETMCL_CACHE_DIR") or _default_root()


def _default_root():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "netmcl")


def _cache_dir():
    """Where the builds are kept."""
    return os.path.join(_cache_root(), "kernels")


@functools.cache
def _root():
    """The cache root to build into and load from: :func:`_cache_root` if it
    is private (see :func:`untrusted`), else the default one if that is
    private and another directory, else None (the JIT); warns once when the
    root asked for is not used."""
    root = _cache_root()
    why = untrusted(root)
    if why is None:  # from here on the real path: a link above it could be changed by its owner
        return os.path.realpath(root)
    fallback = _default_root()
    if os.path.realpath(fallback) != os.path.realpath(root) and untrusted(fallback) is None:
        _warn(f"netmcl does not load compiled code from the cache {root}: {why}. It uses its private cache "
              f"{fallback} instead (see SECURITY.md for sharing a cache safely).")
        return os.path.realpath(fallback)
    _warn(f"netmcl does not load compiled code from the cache {root}: {why}. It runs its kernels through "
          "numba's JIT instead (see SECURITY.md for sharing a cache safely).")
    return None


def _trusted_owners():
    """The user ids whose files may be loaded as code: this process's user, root and ``NETMCL_CACHE_OWNERS``."""
    owners = {0, os.geteuid()}
    for name in os.environ.get("NETMCL_CACHE_OWNERS", "").replace(",", " ").split():
        if name.isdigit():
            owners.add(int(name))
            continue
        import pwd

        try:
            owners.add(pwd.getpwnam(name).pw_uid)
        except KeyError:
            log.warning("NETMCL_CACHE_OWNERS names %r, which is no user of this machine", name)
    return owners


def _problem(path, st, owners, *, sticky_ok):
    """What makes `path` (stat `st`) unfit to hold code loaded by this user, or None."""
    if st.st_uid not in owners:
        try:
            import pwd

            owner = pwd.getpwuid(st.st_uid).pw_name
        except (ImportError, KeyError):
            owner = f"user id {st.st_uid}"
        return f"{path} belongs to {owner}"
    writable = st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    if writable and not (sticky_ok and st.st_mode & stat.S_ISVTX):
        who = " and ".join(w for bit, w in ((stat.S_IWGRP, "its group"), (stat.S_IWOTH, "others")) if writable & bit)
        return f"{path} is writable by {who} (mode {stat.S_IMODE(st.st_mode):o})"
    return None


def untrusted(root, *below):
    """Why compiled code under the cache `root` may not be loaded; None if it may.

    Checks, on the real path, every directory from ``/`` down to `root`
    and every entry from `root` down to ``os.path.join(root, *below)``
    (see the module's text for the rule).  Entries that do not exist yet
    are not checked: whoever creates them is this process.

    Parameters
    ----------
    root : str
        The cache root.
    *below : str
        Path components below it, e.g. ``"kernels", key, module file``.

    Returns
    -------
    str or None
        The first problem found, naming the path.

    Examples
    --------
    >>> import os, tempfile
    >>> root = tempfile.mkdtemp()
    >>> untrusted(root) is None
    True
    >>> os.chmod(root, 0o777)
    >>> untrusted(root).endswith("is writable by its group and others (mode 777)")
    True
    """
    if not hasattr(os, "geteuid"):  # Windows: ownership is ACLs, not checked here
        return None
    owners = _trusted_owners()
    real = os.path.realpath(root)
    parts = [os.sep] + [p for p in real.split(os.sep) if p]
    path = ""
    for depth, name in enumerate(parts):
        path = os.path.join(path, name)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            return f"{path} cannot be examined ({exc.strerror})"
        why = _problem(path, st, owners, sticky_ok=depth < len(parts) - 1)
        if why:
            return why
    for name in below:
        path = os.path.join(path, name)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            return f"{path} cannot be examined ({exc.strerror})"
        if stat.S_ISLNK(st.st_mode):
            return f"{path} is a symbolic link"
        why = _problem(path, st, owners, sticky_ok=False)
        if why:
            return why
    return None


def _private_dirs(path):
    """Make the directories of `path` that are missing, writable by their owner only (whatever the umask)."""
    if os.path.isdir(path):
        return
    _private_dirs(os.path.dirname(path))
    try:
        os.mkdir(path, 0o755)
    except FileExistsError:
        return
    os.chmod(path, stat.S_IMODE(os.stat(path).st_mode) & ~0o022)


def _bytes(path):
    with open(path, "rb") as f:
        return f.read()


def _cpu():
    """What the host's machine code depends on: CPU model and instruction set extensions."""
    try:
        with open("/proc/cpuinfo") as f:
            head = f.read().split("\n\n", 1)[0]
        return "\n".join(ln for ln in head.splitlines() if ln.startswith(("model name", "flags")))
    except OSError:
        import platform

        return f"{platform.machine()} {platform.processor()}"


@functools.cache
def _key():
    """The cache directories' name: two checksums and the length of what the module depends on.

    zlib's checksums, not hashlib's: hashlib loads OpenSSL into every
    process's memory, and the key guards against stale builds, not attacks.
    """
    parts = [_bytes(os.path.join(_ROOT, rel)) for rel in _SOURCES]
    for package in ("numba", "llvmlite"):
        # their versioneer file, found without importing them (importlib.metadata would slow every start)
        init = importlib.util.find_spec(package).origin
        version = os.path.join(os.path.dirname(init), "_version.py")
        parts.append(_bytes(version if os.path.exists(version) else init))
    parts.append(f"{np.__version__} {sys.version} {_cpu()}".encode())
    crc, adler = 0, 1
    for part in parts:
        crc, adler = zlib.crc32(part, crc), zlib.adler32(part, adler)
    return f"{crc:08x}{adler:08x}{sum(map(len, parts)):08x}"


def _module_file(directory, suffix):
    return os.path.join(directory, MODULE + suffix + importlib.machinery.EXTENSION_SUFFIXES[0])


def _checksum(path):
    """The module's size and CRC-32, as the build records them beside it (``<module>.sum``)."""
    data = _bytes(path)
    return f"{len(data)} {zlib.crc32(data):08x}\n"


def _check_build(directory, suffix, root):
    """Raise :class:`_BadBuild` (after removing the build) if the module in
    `directory` may not be loaded: its path breaks the rule of
    :func:`untrusted`, or its checksum does not match."""
    path = _module_file(directory, suffix)
    rel = os.path.relpath(path, root).split(os.sep)
    why = untrusted(root, *rel) or untrusted(root, *rel[:-1], os.path.basename(path) + ".sum")
    if why is None:
        try:
            if _checksum(path) != _bytes(path + ".sum").decode("ascii", "replace"):
                why = f"{path} does not match the checksum its build recorded (truncated or altered)"
        except OSError as exc:
            why = f"{path} or its checksum cannot be read ({exc.strerror or exc})"
    if why is None:
        return
    _remove(directory)
    raise _BadBuild(why)


def _remove(directory):
    """Move a build out of the way at once (a rename: other processes see it whole or not at all), then delete it."""
    import shutil
    import tempfile

    try:
        aside = tempfile.mkdtemp(dir=os.path.dirname(directory), prefix="removed-")
        os.rename(directory, os.path.join(aside, "build"))
        shutil.rmtree(aside)
    except OSError as exc:  # a read-only cache, or another process removed it first
        log.debug("Could not remove %s: %s", directory, exc)


def _ensure_built(directory, suffix):
    """The directory of the module of the kernels ``PARTS[suffix]``, after building it there if it is not yet."""
    directory = os.fspath(directory)
    if os.path.lexists(directory):  # a build (checked before it is loaded), or one another process just finished
        return directory
    import shutil
    import subprocess
    import tempfile
    from collections import deque

    from ..._progress import progress_bar

    _private_dirs(os.path.dirname(directory))
    log.info(
        "Compiling %d of netmcl's kernels for this machine (once per machine and version, about %s) into %s",
        len(PARTS[suffix]), "half a minute" if suffix else "a minute", directory,
    )
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(dir=os.path.dirname(directory), prefix="build-") as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=os.path.join(tmp, "numba"))
        child = subprocess.Popen(
            [sys.executable, "-m", "netmcl.engines.cpu._compiled", tmp, suffix, *PARTS[suffix]],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        said = deque(maxlen=3)
        # a first run would otherwise sit silent through the build: the bar shows where warnings would
        with progress_bar(log.isEnabledFor(logging.WARNING), total=len(PARTS[suffix]) + 1, unit="step",
                          desc="netmcl: compiling kernels for this machine (once)", leave=False) as bar:
            for line in child.stdout:
                if line.rstrip("\n") == _STEP_DONE:
                    bar.update()
                elif line.strip():
                    said.append(line.strip())
        status = child.wait()
        if status != 0 or not os.path.exists(_module_file(tmp, suffix)):
            raise OSError(f"the build exited with status {status}: {' | '.join(said)}")
        final = os.path.join(tmp, "final")
        os.mkdir(final)
        module = _module_file(final, suffix)
        shutil.move(_module_file(tmp, suffix), module)
        with open(module + ".sum", "w") as f:
            f.write(_checksum(module))
        for path in (final, module, module + ".sum"):  # writable by this user only, whatever the umask
            os.chmod(path, stat.S_IMODE(os.stat(path).st_mode) & ~0o022)
        try:
            os.rename(final, directory)
        except OSError:
            if not os.path.lexists(directory):  # not a concurrent build that finished first
                raise
    log.info("Compiled netmcl's kernels in %.1f s", time.perf_counter() - t0)
    _prune(directory)
    return directory


def _prune(built):
    """Remove the builds beside ``built`` (and build directories left by
    killed builds) that no process has used for :data:`KEEP_UNUSED_DAYS`."""
    import shutil

    cutoff = time.time() - KEEP_UNUSED_DAYS * 86400
    built = os.fspath(built)
    for name in os.listdir(os.path.dirname(built)):
        entry = os.path.join(os.path.dirname(built), name)
        try:
            if entry != built and os.stat(entry).st_mtime < cutoff:
                shutil.rmtree(entry)
                log.info("Removed %s, a build of netmcl's kernels unused for %d days", entry, KEEP_UNUSED_DAYS)
        except OSError as exc:  # another process's build, or not ours to remove: leave it
            log.debug("Kept %s: %s", entry, exc)


def _load(directory, suffix, root=None):
    """The module in the build `directory`, after :func:`_check_build` (from
    the cache `root`, default the directory holding the build)."""
    directory = os.fspath(directory)
    _check_build(directory, suffix, os.path.dirname(directory) if root is None else root)
    path = _module_file(directory, suffix)
    spec = importlib.util.spec_from_file_location(f"netmcl.{MODULE}{suffix}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    missing = sorted(set(PARTS[suffix]) - set(dir(mod)))
    if missing:
        raise ImportError(f"{path} lacks {', '.join(missing)}")
    try:
        os.utime(directory)  # marks the build used (see _prune)
    except OSError:  # a read-only cache: the build is kept anyway
        pass
    return mod


def _build(out_dir, suffix, names):
    """Compile the kernels `names` into the module ``MODULE + suffix`` in
    ``out_dir`` (run in a child process), printing :data:`_STEP_DONE` as
    each is compiled and when the module is written."""
    import numba.pycc.compiler
    from numba.core.compiler import Flags
    from numba.pycc import CC

    class _GilFreeFlags(Flags):
        # pycc's wrappers would hold the GIL; the engine's threads need it released
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.release_gil = True

    compile_export = numba.pycc.compiler.compile_extra  # what pycc calls once per exported function

    def compile_and_say(*args, **kwargs):
        result = compile_export(*args, **kwargs)
        print(_STEP_DONE, flush=True)
        return result

    from numba.core.codegen import AOTCPUCodegen, CPUCodeLibrary

    # pycc targets the host's CPU model with the model's full instruction set; a virtual machine may hide
    # some of it (AVX-512 on a model that has it), so take the features the host reports, as the JIT does
    AOTCPUCodegen._customize_tm_features = lambda codegen: codegen._get_host_cpu_features()

    from netmcl.engines.cpu._kernels import ALWAYS_INLINE

    # the innermost loops are marked for LLVM to inline them whatever its estimate of the cost; they are found
    # by their names as numba mangles them (were that to change, they would only be inlined where LLVM chooses)
    add_llvm_module = CPUCodeLibrary.add_llvm_module
    marks = tuple(f"8_kernels{len(name)}{name}B" for name in ALWAYS_INLINE)

    def add_inlined(library, ll_module):
        for fn in ll_module.functions:
            if not fn.is_declaration and any(mark in fn.name for mark in marks):
                fn.add_function_attribute("alwaysinline")
        add_llvm_module(library, ll_module)

    CPUCodeLibrary.add_llvm_module = add_inlined
    numba.pycc.compiler.Flags = _GilFreeFlags
    numba.pycc.compiler.compile_extra = compile_and_say
    cc = CC(MODULE + suffix)
    cc.target_cpu = "host"
    cc.output_dir = out_dir
    for name in names:
        module, function, args = KERNELS[name]
        cc.export(name, f"({args},)")(getattr(importlib.import_module(module), function).py_func)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cc.compile()
    print(_STEP_DONE, flush=True)


if __name__ == "__main__":
    _build(sys.argv[1], sys.argv[2], sys.argv[3:])
