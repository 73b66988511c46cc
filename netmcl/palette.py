"""The one cluster palette, shared by pictures and Cytoscape.

Clusters are ranked by size (largest first, ties by cluster number) and the
first :data:`PALETTE` ``[0]``, :data:`PALETTE` ``[1]``, ... go to the largest
clusters, so a legend reads from the biggest cluster down and the same
cluster has the same colour in a matplotlib picture and in Cytoscape.
Clusters beyond the palette share :data:`NEUTRAL`.

The colours are Paul Tol's colour-blind safe "muted" qualitative scheme
(https://personal.sron.nl/~pault/), with its pale grey for the rest.
"""

import re

from .exceptions import ParameterError

__all__ = ["PALETTE", "NEUTRAL", "cluster_colors", "size_ranks", "hex_to_rgb"]

#: Qualitative colours for the largest clusters, in order.
PALETTE = (
    "#CC6677",  # rose
    "#332288",  # indigo
    "#DDCC77",  # sand
    "#117733",  # green
    "#88CCEE",  # cyan
    "#882255",  # wine
    "#44AA99",  # teal
    "#999933",  # olive
    "#AA4499",  # purple
)

#: The colour shared by every cluster beyond the palette.
NEUTRAL = "#DDDDDD"

_HEX = re.compile(r"^#[0-9A-Fa-f]{6}$")


def _checked(colors, name):
    colors = [colors] if isinstance(colors, str) else list(colors)
    for c in colors:
        if not isinstance(c, str) or not _HEX.match(c):
            raise ParameterError(
                f"{name} takes colours as '#RRGGBB' hex strings (Cytoscape needs that form). Got {c!r} instead."
            )
    return [c.upper() for c in colors]


def size_ranks(sizes):
    """Rank of each cluster by size: 0 for the largest, ties by cluster number.

    Examples
    --------
    >>> size_ranks([2, 5, 2, 7])
    [2, 1, 3, 0]
    """
    order = sorted(range(len(sizes)), key=lambda k: (-sizes[k], k))
    ranks = [0] * len(sizes)
    for r, k in enumerate(order):
        ranks[k] = r
    return ranks


def cluster_colors(sizes, *, palette=None, neutral=None):
    """The colour of each cluster, given the cluster sizes.

    Parameters
    ----------
    sizes : sequence of int
        Size of each cluster, in cluster order (``Clustering.sizes``).
    palette : sequence of str, optional
        ``'#RRGGBB'`` colours for the largest clusters; default :data:`PALETTE`.
    neutral : str, optional
        Colour of the clusters beyond the palette; default :data:`NEUTRAL`.

    Returns
    -------
    list of str
        One upper-case ``'#RRGGBB'`` colour per cluster.

    Examples
    --------
    >>> cluster_colors([3, 10, 1], palette=["#ff0000", "#00ff00"])
    ['#00FF00', '#FF0000', '#DDDDDD']
    """
    palette = _checked(PALETTE if palette is None else palette, "palette")
    neutral = _checked(NEUTRAL if neutral is None else neutral, "neutral")[0]
    return [palette[r] if r < len(palette) else neutral for r in size_ranks(list(sizes))]


def hex_to_rgb(color):
    """``'#RRGGBB'`` as a tuple of three ints in 0..255.

    Examples
    --------
    >>> hex_to_rgb("#CC6677")
    (204, 102, 119)
    """
    color = _checked(color, "color")[0]
    return tuple(int(color[i : i + 2], 16) for i in (1, 3, 5))
