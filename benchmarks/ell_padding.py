#!/usr/bin/env python
"""How many slots the GPU engine's ELLPACK-R iterands hold per entry, on real networks.

The GPU engine stores each pruned iterand as a slab of ``W`` slots per column
plus an overflow pool for the columns longer than ``W``
(``netmcl.engines.gpu._engine``).  This script runs the CPU engine (whose
iterands are the GPU engine's, bit for bit) on the networks bundled in
``tests/data/networks`` and, per iteration, counts the slots three widths
would take, as a ratio to the entries (1.00 = no padding, CSC's figure):

* ``p90``: W = the 90th percentile of the kept column lengths, the longest
  tenth of the columns in the pool (what the engine does,
  ``ELL_QUANTILE``); ``p75`` and ``p99`` likewise;
* ``max``: W = the longest kept column, at most the pruning bound: no
  overflow unless ties pass the bound;
* ``bound``: W = the pruning bound itself, min(n, max(S, R)) (1,400 by
  default): the fixed-width layout, no width to compute.

It prints a markdown table (and writes it to ``--out``): per network, the
engine's ratios in iterations 1-3 and the ratio of each width over the whole
run (slots summed over the iterations, against entries summed).  CPU only,
well under a minute.

    python benchmarks/ell_padding.py --out benchmarks/ell_padding.md
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import netmcl  # noqa: E402
from netmcl.engines import Pruning  # noqa: E402
from netmcl.engines.gpu._engine import ell_bound  # noqa: E402

NETWORKS = HERE.parent / "tests" / "data" / "networks"


def slots(counts, width):
    """Slab plus overflow pool for a width."""
    return counts.size * width + int(counts[counts > width].sum())


WIDTHS = ("p90", "p75", "p99", "max", "bound")


def measure(path, inflation):
    graph = netmcl.read_abc(path)
    params = netmcl.MclParams.build(inflation=inflation)
    bound = ell_bound(Pruning(*params.pruning()), graph.n)
    rows = []
    for state in netmcl.mcl_iterates(graph, inflation=inflation):
        counts = np.diff(state.matrix.indptr)
        row = {"nnz": int(counts.sum()), "max": slots(counts, min(bound, int(counts.max()))),
               "bound": slots(counts, bound)}
        for q in (75, 90, 99):
            row[f"p{q}"] = slots(counts, min(bound, int(np.percentile(counts, q, method="higher"))))
        rows.append(row)
    return graph.n, rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inflation", type=float, default=2.0)
    parser.add_argument("--out", help="also write the table here")
    args = parser.parse_args(argv)
    lines = [
        f"ELLPACK-R slots per entry of the GPU engine's iterands (I = {args.inflation}, default pruning;"
        " `python benchmarks/ell_padding.py`). W = p90 is the engine's width; CSC takes 1.00.",
        "",
        "| network | nodes | iterations | W = p90: iterations 1 / 2 / 3 | W = p90: run | W = p75 | W = p99 |"
        " W = longest | W = bound (1,400) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for path in sorted(NETWORKS.glob("*.txt.gz")):
        t0 = time.perf_counter()
        n, rows = measure(path, args.inflation)
        total = sum(r["nnz"] for r in rows)
        run = {k: sum(r[k] for r in rows) / total for k in WIDTHS}
        first = " / ".join(f"{r['p90'] / r['nnz']:.2f}" for r in rows[:3])
        lines.append(f"| {path.name.removesuffix('.txt.gz')} | {n:,} | {len(rows)} | {first} | **{run['p90']:.2f}** | "
                     + " | ".join(f"{run[k]:.2f}" for k in WIDTHS[1:]) + " |")
        print(lines[-1], f"({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
