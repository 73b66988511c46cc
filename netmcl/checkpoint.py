"""Checkpoints of an MCL run: resume a stopped or killed run with the same result.

``netmcl.mcl(G, checkpoint=PATH)`` (command line: ``--checkpoint PATH``)
saves the state of the run after every iteration, or at most every
`checkpoint_every` seconds (``--checkpoint-every SECONDS``) and after the
last one; ``resume=True`` (``--resume``) continues from the saved state.
The resumed run gives bit for bit the clusters of an uninterrupted one: the
state is the iterand itself (float32 values, as the engine holds them) and
the next iteration starts from it as it would have.  Without a file at
PATH, ``resume=True`` starts from the beginning, so a job can be rerun with
the same command until it finishes.

A checkpoint is data, never code.  It is one ``.npz`` file (numpy's zip of
``.npy`` arrays, uncompressed): the iterand's three CSC arrays, and a byte
array holding UTF-8 JSON with the rest -- the iteration number, the
statistics of every iteration so far, a SHA-256 of the input graph (its CSC
arrays and labels), the parameters, a SHA-256 of both together, a SHA-256
of the three arrays, the format and netmcl's version.  It is read with
``numpy.load(allow_pickle=False)`` and :mod:`json`, so nothing in a file
can run code, and checked before use (:func:`read_checkpoint`): a file
that is not a checkpoint, is truncated or altered, or was written for
another input or other parameters is refused with a
:class:`CheckpointError` that says which.

Each state is written to a temporary file beside PATH, flushed to disk and
renamed over PATH: a process killed at any moment leaves the previous state
or the new one, never a torn file (the next run on PATH removes the
temporary file a killed one left).  The file stays when the run is done
(holding its last iteration: resuming it again only interprets the limit);
delete it when the clusters are written.

A checkpointed run iterates the whole matrix at once, not each group of
connected components separately (``cluster_graph(decompose=False)``): the
same iterands, one state to save.
"""

import dataclasses
import hashlib
import json
import logging
import os
import time

import numpy as np

from .engines import IterationStats
from .exceptions import CheckpointError, ParameterError
from .sparse import CscMatrix

__all__ = ["Checkpoint", "CheckpointError", "graph_sha256", "read_checkpoint", "write_checkpoint"]

log = logging.getLogger("netmcl")

#: the ``format`` field of every checkpoint, and the version of its layout
FORMAT = "netmcl-checkpoint"
FORMAT_VERSION = 1
#: the arrays of the ``.npz`` file (``meta``: the JSON as uint8)
_ARRAYS = ("indptr", "indices", "data", "meta")
_STATS_FIELDS = {f.name for f in dataclasses.fields(IterationStats)}


def graph_sha256(graph):
    """SHA-256 of a :class:`~netmcl.graph.SparseGraph`: its CSC arrays and labels.

    Examples
    --------
    >>> from netmcl.graph import SparseGraph
    >>> a = SparseGraph.from_edges([0], [1], labels=["x", "y"])
    >>> graph_sha256(a) == graph_sha256(SparseGraph.from_edges([0], [1], labels=["x", "z"]))
    False
    """
    digest = hashlib.sha256()
    m = graph.csc
    digest.update(f"{m.shape[0]}\n".encode())
    for array, dtype in ((m.indptr, np.int64), (m.indices, np.int32), (m.data, np.float32)):
        digest.update(np.ascontiguousarray(array, dtype=dtype).tobytes())
    for label in graph.labels:
        text = str(label).encode("utf-8", "surrogateescape")
        digest.update(len(text).to_bytes(8, "little") + text)
    return digest.hexdigest()


def _params_json(params):
    """The parameters as they are stored: a dict that survives a JSON round trip unchanged."""
    return json.loads(json.dumps(params.to_dict(), sort_keys=True))


def _run_sha256(graph_digest, params):
    return hashlib.sha256((graph_digest + json.dumps(params, sort_keys=True)).encode()).hexdigest()


def _arrays_sha256(indptr, indices, data):
    digest = hashlib.sha256()
    for array in (indptr, indices, data):
        digest.update(str(array.dtype).encode() + b"\0" + array.tobytes())
    return digest.hexdigest()


def _plain(value):
    """JSON for what an engine may put in ``IterationStats.extra``."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


def write_checkpoint(path, matrix, stats, *, graph_digest, params):
    """Write the state of a run atomically.

    Parameters
    ----------
    path : str or os.PathLike
    matrix : CscMatrix
        The iterand after the last iteration of `stats`.
    stats : list of IterationStats
        Every iteration so far.
    graph_digest : str
        :func:`graph_sha256` of the run's input.
    params : MclParams

    Examples
    --------
    >>> import os, tempfile
    >>> from netmcl.params import MclParams
    >>> m = CscMatrix([0, 1, 2], [1, 0], [1.0, 1.0], 2)
    >>> path = os.path.join(tempfile.mkdtemp(), "run.ckpt")
    >>> write_checkpoint(path, m, [IterationStats(chaos=0.5)], graph_digest="0" * 64, params=MclParams())
    >>> state = read_checkpoint(path)
    >>> state["iteration"], state["matrix"].indices.tolist(), state["stats"][0].chaos
    (1, [1, 0], 0.5)
    """
    from ._version import __version__

    path = os.fspath(path)
    indptr = np.ascontiguousarray(matrix.indptr, dtype=np.int64)
    indices = np.ascontiguousarray(matrix.indices)
    data = np.ascontiguousarray(matrix.data, dtype=np.float32)
    stored = _params_json(params)
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "netmcl_version": __version__,
        "n": int(matrix.shape[0]),
        "iteration": len(stats),
        "input_sha256": graph_digest,
        "parameters": stored,
        "run_sha256": _run_sha256(graph_digest, stored),
        "state_sha256": _arrays_sha256(indptr, indices, data),
        "stats": [dataclasses.asdict(s) for s in stats],
    }
    text = json.dumps(meta, default=_plain).encode("utf-8")
    tmp = _temporary(path, os.getpid())
    try:
        with open(tmp, "wb") as fh:
            np.savez(fh, indptr=indptr, indices=indices, data=data, meta=np.frombuffer(text, dtype=np.uint8))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _temporary(path, pid):
    """The file a process writes a state into before renaming it to `path`."""
    return os.path.join(os.path.dirname(os.path.abspath(path)), f".{os.path.basename(path)}.{pid}.tmp")


def _remove_stale(path):
    """Remove the temporary files of `path` left by processes killed while writing it."""
    directory = os.path.dirname(os.path.abspath(path))
    prefix = f".{os.path.basename(path)}."
    try:
        names = [n for n in os.listdir(directory) if n.startswith(prefix) and n.endswith(".tmp")]
    except OSError:
        return
    for name in names:
        pid = name[len(prefix):-len(".tmp")]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:  # its writer is gone
            try:
                os.unlink(os.path.join(directory, name))
            except OSError:
                pass
        except OSError:  # alive, another user's: leave it
            pass


def _refuse(path, why):
    raise CheckpointError(f"The checkpoint {os.fspath(path)} cannot be used: {why}.")


def read_checkpoint(path):
    """Read and check a checkpoint written by :func:`write_checkpoint`.

    Nothing in the file is executed: arrays are read with
    ``allow_pickle=False`` and the rest is JSON.  The arrays' layout, types
    and checksum, and the statistics, are checked before anything is
    returned.

    Returns
    -------
    dict
        ``matrix`` (CscMatrix), ``stats`` (list of IterationStats),
        ``iteration``, ``n``, ``input_sha256``, ``parameters`` (dict),
        ``run_sha256``, ``netmcl_version``.

    Raises
    ------
    CheckpointError
        If the file cannot be read, is not a netmcl checkpoint, or is
        inconsistent (truncated, altered, holds objects).
    """
    try:
        with open(os.fspath(path), "rb") as fh, np.load(fh, allow_pickle=False) as npz:
            if not hasattr(npz, "files"):  # a lone .npy array
                _refuse(path, "it is a single array, not a netmcl checkpoint")
            names = sorted(npz.files)
            if names != sorted(_ARRAYS):
                _refuse(path, f"it holds the arrays {names}, not a netmcl checkpoint's {sorted(_ARRAYS)}")
            arrays = {name: npz[name] for name in _ARRAYS}
    except CheckpointError:
        raise
    except FileNotFoundError:
        _refuse(path, "there is no such file")
    except ValueError as exc:  # numpy refusing an object array (a pickle), or a malformed .npy header
        _refuse(path, f"it is not plain numeric data ({exc})")
    except Exception as exc:  # zipfile.BadZipFile, EOFError, OSError: not a readable .npz file
        _refuse(path, f"it is not a readable .npz file ({type(exc).__name__}: {exc})")
    meta_bytes = arrays["meta"]
    if meta_bytes.dtype != np.uint8 or meta_bytes.ndim != 1:
        _refuse(path, "its 'meta' array is not UTF-8 text")
    try:
        meta = json.loads(meta_bytes.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        _refuse(path, f"its metadata is not JSON ({exc})")
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        _refuse(path, f"it is not a netmcl checkpoint (format {meta.get('format') if isinstance(meta, dict) else None!r})")
    if meta.get("format_version") != FORMAT_VERSION:
        _refuse(path, f"it has layout version {meta.get('format_version')!r}; this netmcl reads {FORMAT_VERSION}")
    for key, kind in (("n", int), ("iteration", int), ("input_sha256", str), ("run_sha256", str),
                      ("state_sha256", str), ("parameters", dict), ("stats", list), ("netmcl_version", str)):
        if not isinstance(meta.get(key), kind) or isinstance(meta.get(key), bool):
            _refuse(path, f"its field {key!r} is missing or not a {kind.__name__}")
    indptr, indices, data = arrays["indptr"], arrays["indices"], arrays["data"]
    n = meta["n"]
    if indptr.dtype != np.int64 or indices.dtype not in (np.int32, np.uint16) or data.dtype != np.float32:
        _refuse(path, f"its arrays have types {indptr.dtype}, {indices.dtype}, {data.dtype}, "
                      "not int64, int32 or uint16, float32")
    if n < 0 or indptr.shape != (n + 1,) or indices.ndim != 1 or data.shape != indices.shape:
        _refuse(path, f"its arrays have shapes {indptr.shape}, {indices.shape}, {data.shape} for {n} nodes")
    if _arrays_sha256(indptr, indices, data) != meta["state_sha256"]:
        _refuse(path, "its arrays do not match the checksum written with them (altered or corrupt)")
    matrix = CscMatrix(indptr, indices, data, n)
    if (indptr[0] != 0 or indptr[-1] != indices.size or np.any(np.diff(indptr) < 0)
            or (indices.size and int(indices.max()) >= n) or not matrix.is_canonical()
            or not np.all(np.isfinite(data)) or np.any(data < 0)):
        _refuse(path, "its iterand is not a valid matrix (column pointers, rows or values out of range)")
    stats = []
    for k, entry in enumerate(meta["stats"], 1):
        if not isinstance(entry, dict) or not set(entry) <= _STATS_FIELDS or "chaos" not in entry:
            _refuse(path, f"the statistics of iteration {k} are not IterationStats fields")
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                   for key, v in entry.items() if key != "extra") or not isinstance(entry.get("extra", {}), dict):
            _refuse(path, f"the statistics of iteration {k} are not numbers")
        stats.append(IterationStats(**entry))
    if len(stats) != meta["iteration"]:
        _refuse(path, f"it says iteration {meta['iteration']} but holds {len(stats)} iterations' statistics")
    if _run_sha256(meta["input_sha256"], meta["parameters"]) != meta["run_sha256"]:
        _refuse(path, "its hash of input and parameters does not match them (altered)")
    return dict(meta, matrix=matrix, stats=stats)


class Checkpoint:
    """The checkpoint of one run, as :func:`netmcl.mcl.cluster_graph` takes it.

    Parameters
    ----------
    path : str or os.PathLike
        The checkpoint file.
    graph : SparseGraph
        The run's input (hashed now: the command line frees its weights
        once the start matrix is built).
    params : MclParams
    every : float, optional
        Save at most this often (seconds), and after the last iteration;
        default: after every iteration.
    resume : bool, default False
        Continue from the state in `path` if there is one.

    Examples
    --------
    >>> import os, tempfile
    >>> import networkx as nx
    >>> import netmcl
    >>> path = os.path.join(tempfile.mkdtemp(), "karate.ckpt")
    >>> first = netmcl.mcl(nx.karate_club_graph(), checkpoint=path, attribute=None)
    >>> again = netmcl.mcl(nx.karate_club_graph(), checkpoint=path, resume=True, attribute=None)
    >>> list(again) == list(first), read_checkpoint(path)["iteration"] == first.n_iterations
    (True, True)
    """

    def __init__(self, path, graph, params, *, every=None, resume=False):
        self.path = os.fspath(path)
        if every is not None and not every >= 0:
            raise ParameterError(f"checkpoint_every is a number of seconds >= 0. Got {every!r} instead.")
        self.every = float(every or 0.0)
        self.resume = bool(resume)
        self.graph_digest = graph_sha256(graph)
        self.n = graph.n
        self.params = params
        self._saved = time.monotonic()
        _remove_stale(self.path)

    def resume_state(self):
        """The argument `resume` of ``cluster_graph``: (iterand, statistics) from the file, or None
        (nothing to resume: ``resume=False``, or no file yet).

        Raises
        ------
        CheckpointError
            If the file is not a valid checkpoint, or is one of another input or other parameters.
        """
        if not self.resume:
            return None
        if not os.path.exists(self.path):
            log.info("No checkpoint at %s yet: the run starts from the beginning", self.path)
            return None
        state = read_checkpoint(self.path)
        ours = _params_json(self.params)
        if state["input_sha256"] != self.graph_digest or state["n"] != self.n:
            raise CheckpointError(
                f"The checkpoint {self.path} was written for another input graph (its nodes, labels or weights "
                f"differ: {state['n']} nodes and SHA-256 {state['input_sha256'][:12]}... there, {self.n} nodes and "
                f"{self.graph_digest[:12]}... here). Resume with the same input, or delete the checkpoint."
            )
        differ = sorted(set(ours) | set(state["parameters"]))
        differ = [k for k in differ if ours.get(k) != state["parameters"].get(k)]
        if differ:
            said = "; ".join(f"{k}: {state['parameters'].get(k)!r} there, {ours.get(k)!r} here" for k in differ)
            raise CheckpointError(
                f"The checkpoint {self.path} was written with other parameters ({said}). "
                "Resume with the same parameters, or delete the checkpoint."
            )
        log.info("Resuming from %s after iteration %d", self.path, state["iteration"])
        return state["matrix"], state["stats"]

    def save(self, engine, stats, *, final=False):
        """Called after each iteration: save the engine's iterand and `stats` when due (always when `final`)."""
        now = time.monotonic()
        if final or now - self._saved >= self.every:
            write_checkpoint(self.path, engine.result(), stats, graph_digest=self.graph_digest, params=self.params)
            self._saved = time.monotonic()
