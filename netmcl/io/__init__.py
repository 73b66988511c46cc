"""Reading and writing files: mcl's label and native formats.

* :func:`read_abc`: label files (``label label [weight]`` lines), as ``mcl --abc``.
* :func:`read_mci`, :func:`write_mci`: graphs in mcl's native matrix format.
* :func:`write_clusters`, :func:`read_clusters`: clusterings, one per line or native.
* :func:`atomic_write`: the all-or-nothing output every netmcl writer uses.
"""

from ._files import atomic_write, read_input_bytes
from .abc import read_abc
from .clusters import read_clusters, write_clusters
from .native import read_mci, read_tab, write_mci, write_tab

__all__ = [
    "read_abc",
    "read_mci",
    "write_mci",
    "read_tab",
    "write_tab",
    "write_clusters",
    "read_clusters",
    "atomic_write",
    "read_input_bytes",
]
