"""Derive the small yeast STRING sample of tutorials/06_from_r_stringdb.R (run once, by hand).

Source: the SWC composite yeast network with STRING combined scores as weights
(avancayetano/cs199-bioinformatics ``data/weighted/all_edges/features/string.csv``),
scores 0.5..1.0 for 175,712 protein pairs of S. cerevisiae (systematic ORF names).

Sample: the proteins of the CYC2008 complexes with 4 to 8 members (netmcl's
bundled ``netmcl.datasets.load_cyc2008()``) and the pairs among them whose
STRING score is at least 0.900, written in the layout STRINGdb 2.10 reads for
STRING v11.5 (species 4932):

* ``4932.protein.links.v11.5.txt.gz`` -- ``protein1 protein2 combined_score``,
  space separated, ids ``4932.<ORF>``, score ``round(1000 * weight)``
  capped at 999 (STRING's largest score), every
  pair in both orientations, sorted, as STRING's own files are;
* ``4932.protein.info.v11.5.txt.gz`` -- ``#string_protein_id preferred_name
  protein_size annotation`` (TAB); the source has no gene names, sizes or
  annotations, so preferred_name is the ORF and the other two are empty;
* ``4932.protein.aliases.v11.5.txt.gz`` -- ``#string_protein_id alias source``
  (TAB), one alias per protein: its ORF name, source ``systematic_name``.

Usage: python tutorials/data/string_yeast/derive.py SOURCE.txt.gz
"""

import gzip
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from netmcl.datasets import load_cyc2008  # noqa: E402

HERE = Path(__file__).parent
TAXON = "4932"
MIN_SIZE, MAX_SIZE, MIN_SCORE = 4, 8, 900


def _write(name, lines):
    # level 9, mtime 0: the bytes depend on the content only
    with open(HERE / name, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as fh:
        fh.write("".join(lines).encode())


def main(source):
    proteins = {p for c in load_cyc2008() if MIN_SIZE <= len(c) <= MAX_SIZE for p in c}
    pairs = {}
    with gzip.open(source, "rt") as fh:
        for line in fh:
            a, b, w = line.split("\t")
            score = min(round(1000 * float(w)), 999)  # STRING's scores stop at 999
            if a in proteins and b in proteins and a != b and score >= MIN_SCORE:
                for u, v in ((a, b), (b, a)):
                    pairs[u, v] = max(score, pairs.get((u, v), 0))
    links = ["protein1 protein2 combined_score\n"]
    links += [f"{TAXON}.{u} {TAXON}.{v} {s}\n" for (u, v), s in sorted(pairs.items())]
    present = sorted({u for u, _ in pairs})
    info = ["#string_protein_id\tpreferred_name\tprotein_size\tannotation\n"]
    info += [f"{TAXON}.{p}\t{p}\t\t\n" for p in present]
    aliases = ["#string_protein_id\talias\tsource\n"]
    aliases += [f"{TAXON}.{p}\t{p}\tsystematic_name\n" for p in present]
    _write(f"{TAXON}.protein.links.v11.5.txt.gz", links)
    _write(f"{TAXON}.protein.info.v11.5.txt.gz", info)
    _write(f"{TAXON}.protein.aliases.v11.5.txt.gz", aliases)
    print(f"{len(present)} proteins, {len(pairs) // 2} pairs, {len(links) - 1} link lines")


if __name__ == "__main__":
    main(sys.argv[1])
