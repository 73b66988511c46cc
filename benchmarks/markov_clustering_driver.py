#!/usr/bin/env python
"""Cluster an mcl label (ABC) file with the ``markov_clustering`` package.

The benchmark's third contestant.  The file is read as ``mcl --abc`` reads it
(TAB or whitespace separated ``label label [weight]``; missing weight 1;
``#`` lines skipped; labels numbered in order of first appearance, also on
zero-weight lines; every arc mirrored; repeated arcs merged by maximum), then
``markov_clustering.run_mcl`` runs with its defaults (self loops of 1,
expansion 2, inflation ``-I``, pruning threshold 0.001) and
``markov_clustering.get_clusters`` reads the clusters off the result.

The clusters are written like mcl's label output: one line per cluster, labels
TAB separated in node order, clusters by size descending.
``markov_clustering`` prunes differently from mcl and may report overlapping
clusters, so its output is compared with mcl's by agreement, not identity.

Usage: python benchmarks/markov_clustering_driver.py FILE -I 2 -o OUT
"""

import argparse
import math
import os

import numpy as np
import scipy.sparse as sp


def read_abc(path):
    """(n x n symmetric CSC matrix merged by max, labels in first-appearance order)."""
    index, src, dst, weight = {}, [], [], []
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            line = line.rstrip("\r\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = line.split("\t") if "\t" in line else line.split()
            if len(fields) < 2:
                continue
            a = index.setdefault(fields[0], len(index))
            b = index.setdefault(fields[1], len(index))
            try:
                value = float(fields[2].split()[0]) if len(fields) > 2 and fields[2].strip() else 1.0
            except ValueError:
                continue
            if not math.isfinite(value):
                value = 1.0
            if value:
                src.append(a)
                dst.append(b)
                weight.append(value)
    n = len(index)
    rows = np.concatenate([np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)])
    cols = np.concatenate([np.asarray(dst, dtype=np.int64), np.asarray(src, dtype=np.int64)])
    vals = np.concatenate([np.asarray(weight, dtype=np.float64)] * 2)
    keep = rows != cols
    rows, cols, vals = rows[keep], cols[keep], vals[keep]
    # merge repeated arcs by maximum: sort by (col, row, value), keep the last of each arc
    order = np.lexsort((vals, rows, cols))
    rows, cols, vals = rows[order], cols[order], vals[order]
    last = np.ones(rows.size, dtype=bool)
    last[:-1] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
    matrix = sp.csc_matrix((vals[last], (rows[last], cols[last])), shape=(n, n))
    labels = [None] * n
    for label, i in index.items():
        labels[i] = label
    return matrix, labels


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input")
    parser.add_argument("-I", dest="inflation", type=float, default=2.0)
    parser.add_argument("-o", dest="output", required=True)
    args = parser.parse_args(argv)

    import markov_clustering

    matrix, labels = read_abc(args.input)
    result = markov_clustering.run_mcl(matrix, inflation=args.inflation)
    clusters = [sorted(c) for c in markov_clustering.get_clusters(result)]
    clusters.sort(key=lambda c: (-len(c), c))
    tmp = f"{args.output}.tmp{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as out:
            out.writelines("\t".join(labels[i] for i in cluster) + "\n" for cluster in clusters)
        os.replace(tmp, args.output)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


if __name__ == "__main__":
    main()
