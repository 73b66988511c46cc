"""Clusterings in mcl's files: one cluster per line (label output) or the native matrix."""

from ..exceptions import ParameterError
from ._files import atomic_write, display_name, read_input_bytes
from ._sniff import checked_text
from .native import clusters_from_native, looks_native, write_native_clustering

__all__ = ["write_clusters", "read_clusters"]

FORMATS = ("labels", "native")


def write_clusters(path, clustering, *, format="labels"):
    """Write a clustering as mcl writes it.

    Parameters
    ----------
    path : str, os.PathLike or text file object
        The output file, written atomically: it appears complete or not at
        all.  ``"-"`` writes to standard output.
    clustering : Clustering or iterable of iterables of labels
        The clusters, in order.
    format : {"labels", "native"}, default "labels"
        ``"labels"``: one cluster per line, labels separated by TABs, the
        output of ``mcl FILE --abc`` byte for byte.  ``"native"``: mcl's
        cluster matrix, the output of ``mcl FILE.mci`` (without mcl's
        ``# cline`` comment line); see
        :func:`~netmcl.io.native.write_native_clustering` for the node
        indices used.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> write_clusters(out, [["cat", "hat", "bat"], ["bit", "fit", "hit"]])
    >>> out.getvalue()
    'cat\\that\\tbat\\nbit\\tfit\\thit\\n'
    """
    if format == "native":
        write_native_clustering(path, clustering)
        return
    if format != "labels":
        raise ParameterError(f"format must be one of {FORMATS}. Got {format!r} instead.")
    with atomic_write(path) as fh:
        fh.write("".join("\t".join(map(str, cluster)) + "\n" for cluster in clustering))


def read_clusters(path):
    """Read a clustering file written by mcl or netmcl.

    Label files (``mcl --abc`` output: one cluster per line, labels
    separated by TABs) give lists of labels; native cluster matrices
    (recognised by their ``(mclheader``) give lists of node indices.

    Parameters
    ----------
    path : str, os.PathLike or binary file object
        The file (gzip, bzip2 and xz are decompressed; ``"-"`` is standard
        input).

    Returns
    -------
    list of list of str, or list of list of int
        The clusters in file order, members in file order.  Blank lines
        are skipped.

    Examples
    --------
    >>> import io
    >>> read_clusters(io.BytesIO(b"cat\\that\\tbat\\nbit\\tfit\\thit\\n"))
    [['cat', 'hat', 'bat'], ['bit', 'fit', 'hit']]
    """
    data = checked_text(read_input_bytes(path), display_name(path), "cluster file")
    if looks_native(data):
        return clusters_from_native(data, display_name(path))
    text = data.decode("utf-8", "surrogateescape")
    return [line.split("\t") for line in text.split("\n") if line]
