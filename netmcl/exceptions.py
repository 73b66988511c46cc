"""The netmcl exception hierarchy.

Every error netmcl raises on purpose is a :class:`NetmclError`, so a caller can
catch them all with one ``except`` clause.  Each message says what was wrong,
where (file and line when the problem is in a file) and what to do about it.
"""

__all__ = [
    "NetmclError",
    "InputFileError",
    "ParameterError",
    "BackendUnavailableError",
    "NotAPartitionError",
    "CytoscapeError",
    "CheckpointError",
    "ConvergenceWarning",
]


class NetmclError(Exception):
    """Base class of every error raised by netmcl."""


class InputFileError(NetmclError, ValueError):
    """A file could not be read as the format it should have.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    message : str
        What is wrong and how to fix it.
    line : int, optional
        The 1-based line number, when the problem is on one line.
    value : str, optional
        The offending text on that line.
    """

    def __init__(self, path, message, *, line=None, value=None):
        self.path = str(path)
        self.line = line
        self.value = value
        where = self.path if line is None else f"{self.path}, line {line}"
        text = f"{where}: {message}"
        if value is not None:
            text += f" Got {value!r}."
        super().__init__(text)


class ParameterError(NetmclError, ValueError):
    """A parameter has a value netmcl cannot use."""


class BackendUnavailableError(NetmclError, ImportError):
    """An optional dependency or engine is not available on this machine."""


class NotAPartitionError(NetmclError):
    """A clustering with overlap was used where a partition is required."""


class CytoscapeError(NetmclError, ConnectionError):
    """Cytoscape could not be reached or refused a request."""


class CheckpointError(NetmclError, ValueError):
    """A checkpoint that cannot be used: unreadable, corrupt, or written for another input or other parameters."""


class ConvergenceWarning(UserWarning):
    """MCL stopped at the iteration cap before the chaos fell below 1e-4."""
