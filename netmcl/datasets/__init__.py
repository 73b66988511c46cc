"""Real networks bundled with netmcl.

* **Collins 2007** yeast protein-interaction network: 1,622 proteins,
  9,074 weighted interactions (purification-enrichment scores, 0.48..0.99)
  from Collins et al., *Mol Cell Proteomics* 6:439 (2007), as distributed
  with ClusterONE (Nepusz, Yu & Paccanaro, *Nat Methods* 9:471, 2012).
  File taken unchanged from github.com/SaraOmranian/PC2P,
  ``Yeast/Collins/collins2007.txt`` (commit 960811d9), MIT licence.
* **CYC2008** yeast protein complexes: 408 complexes of 1,627 proteins
  (Pu et al., *Nucleic Acids Res* 37:825, 2009), the gold standard for the
  network above.  File taken unchanged from the same repository,
  ``Yeast/CYC2008_complexes.txt``, MIT licence.

Both use systematic ORF names (``YAL001C``).  See ``data/PROVENANCE.md``.
"""

import gzip
from importlib import resources

__all__ = ["collins2007_path", "load_collins2007", "cyc2008_path", "load_cyc2008"]


def _path(name):
    return resources.files(__name__).joinpath("data", name)


def collins2007_path():
    """Path of the bundled Collins 2007 network, an mcl label (ABC) file, gzipped.

    Examples
    --------
    >>> collins2007_path().name
    'collins2007.txt.gz'
    """
    return _path("collins2007.txt.gz")


def cyc2008_path():
    """Path of the bundled CYC2008 complexes (one complex per line), gzipped."""
    return _path("cyc2008.txt.gz")


def load_collins2007():
    """The Collins 2007 yeast PPI network as a weighted NetworkX graph.

    Nodes are ORF names in order of first appearance in the file, so
    :func:`netmcl.mcl` on this graph gives exactly ``mcl FILE --abc``'s
    clusters.

    Returns
    -------
    networkx.Graph
        1,622 nodes, 9,074 edges, attribute ``weight``.

    Examples
    --------
    >>> G = load_collins2007()
    >>> G.number_of_nodes(), G.number_of_edges()
    (1622, 9074)
    """
    import networkx as nx

    G = nx.Graph(name="Collins 2007 yeast PPI (ClusterONE)")
    with gzip.open(collins2007_path(), "rt") as fh:
        for line in fh:
            a, b, w = line.split("\t")
            G.add_edge(a, b, weight=float(w))
    return G


def load_cyc2008():
    """The CYC2008 yeast complexes, each a list of ORF names.

    Returns
    -------
    list of list of str
        408 complexes.

    Examples
    --------
    >>> complexes = load_cyc2008()
    >>> len(complexes), max(len(c) for c in complexes)
    (408, 81)
    """
    with gzip.open(cyc2008_path(), "rt") as fh:
        return [line.split() for line in fh if line.strip()]
