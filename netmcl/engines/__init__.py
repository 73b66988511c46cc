"""Where the arithmetic runs.

An engine turns the current column-stochastic matrix into the next one:
expansion, pruning, rescaling, chaos and inflation for every column.  The
iteration loop in :mod:`netmcl.mcl` owns everything else (convergence, the
inflation bump, progress), so a new engine only has to implement
:class:`Engine` and pass the fidelity tests.

Engines are looked up by name with :func:`get_engine`; optional ones import
their dependencies only when asked for.
"""

from dataclasses import dataclass, field

from ..exceptions import BackendUnavailableError, ParameterError

__all__ = ["Engine", "IterationStats", "available_engines", "get_engine"]


@dataclass
class IterationStats:
    """What one MCL iteration measured.

    Attributes
    ----------
    chaos : float
        The largest column chaos (mcl's ``chaos`` column).
    expanded : int
        Entries of the expanded matrix before pruning.
    kept : int
        Entries of the new iterand.
    recovered, selected, recovered_after_select, emergency : int
        Columns that took each pruning branch.
    dense_path : int
        Columns expanded with float32-rounded products.
    emptied : int
        Columns emptied because inflation found no mass.
    min_mass : float
        Smallest kept mass of a column before rescaling.
    seconds : float
        Wall time of the iteration.
    extra : dict
        The engine's own figures; the CPU engine's ``phases`` is how many
        parts a memory budget cut the iteration into (1 without one).
    """

    chaos: float
    expanded: int = 0
    kept: int = 0
    recovered: int = 0
    selected: int = 0
    recovered_after_select: int = 0
    emergency: int = 0
    dense_path: int = 0
    emptied: int = 0
    min_mass: float = 1.0
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)


class Engine:
    """The interface every engine implements.

    An engine keeps the iterand in its own storage between iterations; the
    loop hands it the preprocessed matrix once (:meth:`load`), calls
    :meth:`iterate` until convergence and fetches the limit once
    (:meth:`result`).
    """

    name = "abstract"

    def load(self, matrix, *, n_rule=None):
        """Take the column-stochastic start matrix (a :class:`~netmcl._csc.CscMatrix` or scipy matrix).

        `n_rule` is the node count of the whole graph when `matrix` is one of
        its components (mcl decides each column's product path from it).
        """
        raise NotImplementedError

    def iterate(self, inflation, pruning):
        """Run one iteration in place; return its :class:`IterationStats`."""
        raise NotImplementedError

    def result(self):
        """Return the current iterand as a :class:`~netmcl._csc.CscMatrix` (``to_scipy()`` converts)."""
        raise NotImplementedError

    def release_scratch(self):
        """Free what the iterations keep between them besides the iterand
        (a group of components that has converged while others iterate);
        the next iteration makes it again."""

    def spawn(self, *, threads, share):
        """A fresh engine of the same kind for one group of components.

        `threads` is the group's thread count and `share` the number of
        groups that may run at once (their memory budget is split).  Engines
        that cannot run groups separately return None.
        """
        return None


def available_engines():
    """Return the names of the engines that can run on this machine.

    Examples
    --------
    >>> available_engines()
    ['cpu']
    """
    return ["cpu"]


def get_engine(name="cpu", *, threads=None, max_memory=None):
    """Return a fresh engine instance.

    Parameters
    ----------
    name : {"cpu"} or Engine
        The engine; an :class:`Engine` instance is returned as is.
    threads : int, optional
        Threads for the CPU engine (mcl's ``-te``); default: all cores.
    max_memory : int or str, optional
        Memory bound of the CPU engine, e.g. ``"16G"``.

    Examples
    --------
    >>> get_engine("cpu", threads=1).name
    'cpu'
    """
    if isinstance(name, Engine):
        return name
    if name == "cpu":
        from .cpu import CpuEngine

        return CpuEngine(threads=threads, max_memory=max_memory)
    if name in ("gpu", "dask"):
        raise BackendUnavailableError(
            f"This version of netmcl has no {name!r} engine yet; use engine='cpu' "
            "(the only engine, and the reference for any engine to come)."
        )
    raise ParameterError(
        f"The 'engine' parameter of mcl must be one of {available_engines()}. Got {name!r} instead."
    )
