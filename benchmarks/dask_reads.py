#!/usr/bin/env python
"""How often a Dask worker's phases fetch the other block's columns, for orders of its own columns.

Under a per-worker budget (``netmcl.mcl(..., engine="dask", max_memory=...)``) a worker computes its block's
columns in phases; a phase holds the columns its columns read, fetched from the worker holding them.  This
script takes a graph's iteration-2 input (iteration 1 of the CPU engine), the first of two column blocks of equal
entries, and phases that end where the columns they read would pass ``--room`` of the iterand's entries; it
prints, for each order of the block's columns, how many phases that makes and how many times over the other
block's entries are fetched.  Orders: column order (what the engine does), chains of largest entries (the
order the block step computes heavy columns in), reverse Cuthill-McKee on the block, and with ``--truth`` (a
file of planted communities, one per line, as ``generate_graphs.py --truth`` writes) the planted communities.

    python benchmarks/generate_graphs.py --nodes 50000 --edges 1000000 --seed 1 -o g50.abc --truth g50.truth
    python benchmarks/dask_reads.py g50.abc --truth g50.truth
"""

import argparse
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import netmcl  # noqa: E402


def fetched(matrix, order, split, room):
    """Phases over the columns in `order` and the entries of columns at or past `split` that they fetch."""
    length = np.diff(matrix.indptr)
    need = np.zeros(matrix.shape[0], dtype=bool)
    held = total = phases = 0
    for j in order.tolist():
        reads = np.append(matrix.indices[matrix.indptr[j] : matrix.indptr[j + 1]], j)
        fresh = reads[~need[reads]]
        cost = int(length[fresh].sum())
        if held and held + cost > room:  # the phase ends before column j
            ids = np.flatnonzero(need)
            total += int(length[ids[ids >= split]].sum())
            phases += 1
            need[:] = False
            fresh, cost, held = reads, int(length[reads].sum()), 0
        need[fresh] = True
        held += cost
    ids = np.flatnonzero(need)
    return phases + 1, (total + int(length[ids[ids >= split]].sum())) / int(length[split:].sum())


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("input", help="a label (ABC) file")
    p.add_argument("--room", type=float, default=0.15, help="a phase's room, a fraction of the iterand's entries")
    p.add_argument("--truth", help="planted communities, one per line")
    args = p.parse_args()
    graph = netmcl.read_abc(args.input)
    matrix = sp.csc_matrix(next(iter(netmcl.mcl_iterates(graph, max_iterations=1))).matrix)
    length = np.diff(matrix.indptr)
    split = int(np.searchsorted(np.cumsum(length), length.sum() / 2))
    block = np.arange(split)
    leaders = np.array([matrix.indices[matrix.indptr[j] + np.argmax(matrix.data[matrix.indptr[j] : matrix.indptr[j + 1]])]
                        if length[j] else j for j in range(matrix.shape[0])])
    roots = leaders.copy()
    for _ in range(int(matrix.shape[0]).bit_length()):
        roots = roots[roots]
    own = matrix[:split, :split]
    orders = {
        "column order": block,
        "chains of largest entries": np.argsort(roots[block], kind="stable"),
        "reverse Cuthill-McKee": reverse_cuthill_mckee((own + own.T).tocsr(), symmetric_mode=True).astype(np.int64),
    }
    if args.truth:
        community = {}
        for c, line in enumerate(Path(args.truth).read_text().splitlines()):
            community.update((label, c) for label in line.split())
        planted = np.array([community[str(label)] for label in graph.labels])
        orders["planted communities"] = np.argsort(planted[block], kind="stable")
    room = args.room * matrix.nnz
    print(f"{Path(args.input).name}: {matrix.shape[0]:,} nodes, iterand of {matrix.nnz:,} entries; block of "
          f"{split:,} columns; a phase's room {room:,.0f} entries")
    print("| order | phases | other block fetched, times over |\n| --- | --- | --- |")
    for name, order in orders.items():
        phases, times = fetched(matrix, order, split, room)
        print(f"| {name} | {phases:,} | {times:.0f} |")


if __name__ == "__main__":
    main()
