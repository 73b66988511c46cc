"""Derive the STRING-format test fixtures in this folder from real STRING web exports.

Run once by a developer (it reads /work/shared, which tests never do):

    python tests/data/string/derive_fixtures.py /work/shared/datasets/string_format

The sources are STRING web "export as tabular text" files (scores on the 0-1
scale, channels in named columns).  Each fixture re-shapes the same real
rows into another STRING layout, with scores x1000 rounded to integers where
that layout uses the 0-1000 scale.  Nothing is invented except where a layout
has columns the exports lack (see PROVENANCE.md): the ``_transferred``
channels of ``protein.links.full`` are 0 and ``protein.info``'s size and
annotation are empty.
"""

import gzip
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WEB_CHANNELS = [
    "neighborhood_on_chromosome", "gene_fusion", "phylogenetic_cooccurrence", "homology", "coexpression",
    "experimentally_determined_interaction", "database_annotated", "automated_textmining", "combined_score",
]


def rows(path):
    with gzip.open(path, "rt", newline="") as fh:
        header = fh.readline().rstrip("\n").lstrip("#").split("\t")
        for line in fh:
            yield dict(zip(header, line.rstrip("\n").split("\t")))


def milli(x):
    return str(round(float(x) * 1000))


def write(name, text):
    with gzip.GzipFile(os.path.join(HERE, name), "wb", compresslevel=9, mtime=0) as fh:
        fh.write(text.encode())


def main(src):
    human = list(rows(os.path.join(src, "string_web_export_human_18704edges.tsv.gz")))
    small = list(rows(os.path.join(src, "string_web_export_small_dsxksss.tsv.gz")))
    short = list(rows(os.path.join(src, "string_web_export_short_dsxksss.tsv.gz")))

    # protein.links (v11/v12): space separated, both orientations, as downloaded
    out = ["protein1 protein2 combined_score"]
    out += [f"{r['node1_string_id']} {r['node2_string_id']} {milli(r['combined_score'])}" for r in human]
    write("9606.protein.links.sample.txt.gz", "\n".join(out) + "\n")

    # protein.links.detailed
    detailed = ["neighborhood_on_chromosome", "gene_fusion", "phylogenetic_cooccurrence", "coexpression",
                "experimentally_determined_interaction", "database_annotated", "automated_textmining",
                "combined_score"]
    out = [("protein1 protein2 neighborhood fusion cooccurence coexpression experimental database textmining "
            "combined_score")]
    out += [" ".join([r["node1_string_id"], r["node2_string_id"]] + [milli(r[c]) for c in detailed]) for r in small]
    write("9606.protein.links.detailed.sample.txt.gz", "\n".join(out) + "\n")

    # protein.links.full: the _transferred channels are not in the exports (0 here)
    out = [("protein1 protein2 neighborhood neighborhood_transferred fusion cooccurence homology coexpression "
            "coexpression_transferred experiments experiments_transferred database database_transferred "
            "textmining textmining_transferred combined_score")]
    for r in small:
        v = {c: milli(r[c]) for c in WEB_CHANNELS}
        out.append(" ".join([
            r["node1_string_id"], r["node2_string_id"], v["neighborhood_on_chromosome"], "0", v["gene_fusion"],
            v["phylogenetic_cooccurrence"], v["homology"], v["coexpression"], "0",
            v["experimentally_determined_interaction"], "0", v["database_annotated"], "0",
            v["automated_textmining"], "0", v["combined_score"],
        ]))
    write("9606.protein.links.full.sample.txt.gz", "\n".join(out) + "\n")

    # STRING API /api/tsv/network: each pair once, 0-1 scores
    api = ["stringId_A", "stringId_B", "preferredName_A", "preferredName_B", "ncbiTaxonId", "score", "nscore",
           "fscore", "pscore", "ascore", "escore", "dscore", "tscore"]
    out = ["\t".join(api)]
    for r in short:
        out.append("\t".join([
            r["node1_string_id"], r["node2_string_id"], r["node1"], r["node2"], "9606", r["combined_score"],
            r["neighborhood_on_chromosome"], r["gene_fusion"], r["phylogenetic_cooccurrence"], r["coexpression"],
            r["experimentally_determined_interaction"], r["database_annotated"], r["automated_textmining"],
        ]))
    write("string_api_network.tsv.gz", "\n".join(out) + "\n")

    # R: write.csv(string_db$get_interactions(ids), file) -> quoted header, row names, both orientations
    out = ['"","from","to","combined_score"']
    out += [f'"{k}","{r["node1_string_id"]}","{r["node2_string_id"]}",{milli(r["combined_score"])}'
            for k, r in enumerate(small, start=1)]
    write("stringdb_get_interactions.csv.gz", "\n".join(out) + "\n")

    # R: write.table(string_db$map(df, "gene"), sep="\t") -> no header cell over the row names
    names = {}
    for r in human:
        names.setdefault(r["node1_string_id"], r["node1"])
        names.setdefault(r["node2_string_id"], r["node2"])
    out = ['"gene"\t"STRING_id"']
    out += [f'"{k}"\t"{g}"\t"{i}"' for k, (i, g) in enumerate(sorted(names.items(), key=lambda x: x[1]), start=1)]
    write("stringdb_map.tsv.gz", "\n".join(out) + "\n")

    # protein.info (v12 header); size and annotation are not in the exports (empty here)
    out = ["#string_protein_id\tpreferred_name\tprotein_size\tannotation"]
    out += [f"{i}\t{g}\t\t" for i, g in names.items()]
    write("9606.protein.info.sample.txt.gz", "\n".join(out) + "\n")

    # protein.aliases (v12 header)
    out = ["#string_protein_id\talias\tsource"]
    for i, g in names.items():
        out.append(f"{i}\t{i.split('.', 1)[1]}\tEnsembl_protein_id")
        out.append(f"{i}\t{g}\tweb_export_preferred_name")
    write("9606.protein.aliases.sample.txt.gz", "\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
