"""Derive the bundled yeast name tables from the published files they come from.

Run as ``python -m netmcl.datasets.derive_names DATASETS_DIR`` where
DATASETS_DIR holds the files named below (see ``data/PROVENANCE.md``); it
rewrites ``data/yeast_gene_names.tsv.gz`` and ``data/cyc2008_names.txt.gz``.
Nothing in netmcl runs it: the tables it writes are bundled.

* Gene names: the Krogan et al. 2006 TAP-core network was published twice,
  once with systematic ORF ids (ClusterONE's ``krogan2006_core``) and once
  with SGD standard gene names (``TAP_core``), edge for edge in the same
  order.  Pairing the two files line by line gives each ORF its gene name;
  the pairing is checked to be one-to-one and the two weights of every line
  to agree to the decimals the files print.  ORFs without a gene name are
  left out.
* Complex names: CYC2008 as shipped with SWC lists each protein with its
  complex number and name; each bundled complex (``cyc2008.txt.gz``) is
  matched to the named complex with exactly its members.
"""

import gzip
import os
import sys

#: where the derived tables go
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
ORF_NETWORK = "yeast_ppi/clusterone_krogan2006_core.txt.gz"
GENE_NETWORK = "yeast_ppi/krogan2006_TAP_core_genenames.txt.gz"
NAMED_CYC2008 = "gold_standards/yeast_CYC2008_named.tsv.gz"


def _rows(path):
    with gzip.open(path, "rt") as fh:
        return [line.split() for line in fh if line.strip()]


def gene_names(orf_network, gene_network):
    """ORF -> gene name, by pairing the two publications of one network line by line."""
    orfs, genes = _rows(orf_network), _rows(gene_network)
    if len(orfs) != len(genes):
        raise SystemExit(f"{orf_network} has {len(orfs)} lines, {gene_network} {len(genes)}")
    names, back = {}, {}
    for k, (a, b) in enumerate(zip(orfs, genes), 1):
        if abs(float(a[2]) - float(b[2])) > 0.0051:
            raise SystemExit(f"line {k}: weights {a[2]} and {b[2]} differ")
        for orf, gene in zip(a[:2], b[:2]):
            if names.setdefault(orf, gene) != gene or back.setdefault(gene, orf) != orf:
                raise SystemExit(f"line {k}: {orf} -> {gene} contradicts an earlier line")
    return names


def complex_names(bundled, named_file):
    """The name of each bundled CYC2008 complex, in the bundled order."""
    members, titles = {}, {}
    with gzip.open(named_file, "rt") as fh:
        for line in fh:
            orf, number, title = line.rstrip("\n").split("\t")
            members.setdefault(number, set()).add(orf)
            titles[number] = title.strip('"')
    by_members = {frozenset(m): titles[k] for k, m in members.items()}
    out = []
    for k, complex_ in enumerate(_rows(bundled), 1):
        try:
            out.append(by_members[frozenset(complex_)])
        except KeyError:
            raise SystemExit(f"complex {k} of {bundled} has no named twin in {named_file}") from None
    return out


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        raise SystemExit("usage: python -m netmcl.datasets.derive_names DATASETS_DIR")
    root = argv[0]
    pairs = gene_names(os.path.join(root, ORF_NETWORK), os.path.join(root, GENE_NETWORK))
    names = {orf: gene for orf, gene in pairs.items() if gene != orf}
    with gzip.GzipFile(os.path.join(DATA, "yeast_gene_names.tsv.gz"), "wb", mtime=0) as fh:
        fh.write("".join(f"{orf}\t{gene}\n" for orf, gene in sorted(names.items())).encode())
    titles = complex_names(os.path.join(DATA, "cyc2008.txt.gz"), os.path.join(root, NAMED_CYC2008))
    with gzip.GzipFile(os.path.join(DATA, "cyc2008_names.txt.gz"), "wb", mtime=0) as fh:
        fh.write("".join(t + "\n" for t in titles).encode())
    print(f"{len(names)} gene names, {len(titles)} complex names written to {DATA}")


if __name__ == "__main__":
    main()
