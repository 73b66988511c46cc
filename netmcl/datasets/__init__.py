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

* **Names**: the SGD standard gene name of 2,105 yeast ORFs (1,174 of the
  network's proteins; the others have no gene name there and keep their
  ORF), and the name of each CYC2008 complex ("26S proteasome", ...).

Both files use systematic ORF names (``YAL001C``); :func:`load_collins2007`
gives each protein its gene name as the node attribute ``"gene"``.  See
``data/PROVENANCE.md`` (and ``derive_names.py``, which derives the names).
"""

import gzip
from importlib import resources

__all__ = ["collins2007_path", "load_collins2007", "cyc2008_path", "load_cyc2008", "load_yeast_gene_names"]


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
    clusters.  Each node carries its gene name as the attribute ``"gene"``
    (:func:`load_yeast_gene_names`; its ORF where it has none), for
    ``label_attribute="gene"`` in pictures, views and Cytoscape.

    Returns
    -------
    networkx.Graph
        1,622 nodes, 9,074 edges, attributes ``weight`` (edges) and
        ``gene`` (nodes).

    Examples
    --------
    >>> G = load_collins2007()
    >>> G.number_of_nodes(), G.number_of_edges()
    (1622, 9074)
    >>> G.nodes["YAL001C"]["gene"]
    'TFC3'
    """
    import networkx as nx

    G = nx.Graph(name="Collins 2007 yeast PPI (ClusterONE)")
    with gzip.open(collins2007_path(), "rt") as fh:
        for line in fh:
            a, b, w = line.split("\t")
            G.add_edge(a, b, weight=float(w))
    genes = load_yeast_gene_names()
    nx.set_node_attributes(G, {v: genes.get(v, v) for v in G}, "gene")
    return G


def load_cyc2008(named=False):
    """The CYC2008 yeast complexes, each a list of ORF names.

    Parameters
    ----------
    named : bool, default False
        Return a mapping from each complex's name to its members instead of
        a list; pictures, views and :func:`netmcl.compare_to_complexes` then
        name clusters by the complexes' names.

    Returns
    -------
    list of list of str, or dict of str to list of str
        408 complexes, in the file's order.

    Examples
    --------
    >>> complexes = load_cyc2008()
    >>> len(complexes), max(len(c) for c in complexes)
    (408, 81)
    >>> named = load_cyc2008(named=True)
    >>> len(named["20S proteasome"])
    14
    """
    with gzip.open(cyc2008_path(), "rt") as fh:
        complexes = [line.split() for line in fh if line.strip()]
    if not named:
        return complexes
    with gzip.open(_path("cyc2008_names.txt.gz"), "rt", encoding="utf-8") as fh:
        names = [line.rstrip("\n") for line in fh]
    return dict(zip(names, complexes, strict=True))


def load_yeast_gene_names():
    """SGD standard gene names of yeast ORFs: a dict ORF -> gene name.

    2,105 ORFs, those of the Krogan et al. 2006 TAP network that have a gene
    name (derived by ``derive_names.py``; see ``data/PROVENANCE.md``).

    Examples
    --------
    >>> names = load_yeast_gene_names()
    >>> names["YBR123C"], names["YGL092W"]
    ('TFC1', 'NUP145')
    """
    with gzip.open(_path("yeast_gene_names.tsv.gz"), "rt", encoding="utf-8") as fh:
        return dict(line.rstrip("\n").split("\t") for line in fh)
