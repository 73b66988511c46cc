#!/usr/bin/env python
"""Seeded community graphs for benchmarking MCL, written as mcl label (ABC) files.

The model is a planted partition in the spirit of the LFR benchmark:

* community sizes follow a power law (exponent ``--community-exponent``)
  between a minimum and a maximum size;
* every node gets a degree propensity from a power law (exponent
  ``--degree-exponent``, at most ``--degree-spread`` times the smallest), so
  degrees are skewed as in real interaction networks;
* a fraction ``1 - mixing`` of the edges is drawn inside communities
  (community chosen in proportion to its total propensity, both endpoints in
  proportion to their propensity: a Chung-Lu graph per community), the rest is
  background drawn the same way over the whole graph;
* self-pairs and repeated pairs are dropped and replaced until exactly
  ``--edges`` distinct undirected pairs exist;
* community edges are heavier than background edges, so MCL at ``-I 2`` finds
  the planted structure.

Weights are written with three decimals (0.001 .. 1.000); ``--dense-string``
writes STRING-like integer combined scores 150 .. 999 instead and sets the
dense defaults (5,000 nodes, 1,000,000 edges).  Lines come in random order and
random orientation, one undirected pair per line, ``label TAB label TAB
weight``: the input ``mcl --abc`` and ``netmcl --abc`` read.

Everything is vectorised with NumPy and the file is written in chunks, so the
200k-node / 4M-edge and 1M-node / 20M-edge graphs are generated in seconds to
minutes and a few GB of memory.  The output depends only on the parameters and
``--seed``.

Examples
--------
python benchmarks/generate_graphs.py --nodes 1000 --edges 10000 -o g.abc
python benchmarks/generate_graphs.py --dense-string -o string5k.abc.gz
python benchmarks/generate_graphs.py --nodes 1000000 --edges 20000000 -o big.abc
"""

import argparse
import contextlib
import functools
import gzip
import json
import math
import os
import sys
import time

import numpy as np

#: Lines formatted and written per chunk.
CHUNK = 1_000_000
#: Stubs per unit of degree propensity (propensities are 1 .. --degree-spread).
STUBS_PER_UNIT = 8
#: Weight ranges (low, high) of community and background edges.
FLOAT_WEIGHTS = {"community": (0.4, 1.0), "background": (0.05, 0.6)}
#: STRING combined scores are integers in 150 .. 999 (150 is STRING's lowest cut-off).
STRING_SCORE_RANGE = (150, 999)
DENSE_STRING_DEFAULTS = {"nodes": 5_000, "edges": 1_000_000, "mixing": 0.4}


def power_law(rng, size, exponent, low, high):
    """Continuous power-law samples on ``[low, high]`` with density ~ x**-exponent."""
    u = rng.random(size)
    if exponent == 1.0:
        return low * (high / low) ** u
    a = 1.0 - exponent
    return ((high**a - low**a) * u + low**a) ** (1.0 / a)


def community_sizes(rng, nodes, exponent, low, high):
    """Power-law community sizes in ``[low, high]`` that add up to ``nodes``.

    The last community absorbs the remainder (merged into the one before it
    when the remainder is smaller than ``low``).
    """
    if nodes <= high:
        return np.array([nodes], dtype=np.int64)
    draw = np.floor(power_law(rng, 2 * nodes // low + 2, exponent, low, high + 1)).astype(np.int64)
    ends = np.cumsum(draw)
    k = int(np.searchsorted(ends, nodes))
    sizes = draw[: k + 1].copy()
    sizes[-1] = nodes - (ends[k - 1] if k else 0)
    if sizes[-1] < low and len(sizes) > 1:
        sizes[-2] += sizes[-1]
        sizes = sizes[:-1]
    return sizes


def _stub_pairs(rng, stub_node, starts, spans, count):
    """Draw ``count`` node pairs: both ends of pair k are uniform stubs in
    ``stub_node[starts[k] : starts[k] + spans[k]]``."""
    first = starts + (rng.random(count) * spans).astype(np.int64)
    second = starts + (rng.random(count) * spans).astype(np.int64)
    return stub_node[first], stub_node[second]


def _distinct_pairs(rng, sampler, target, nodes, exclude):
    """Exactly ``target`` distinct undirected pairs (as keys ``lo * nodes + hi``),
    a uniform random subset of what ``sampler(k)`` draws, none in ``exclude``."""
    keys = np.empty(0, dtype=np.int64)
    stalled = 0
    while keys.size < target:
        deficit = target - keys.size
        a, b = sampler(int(deficit * 1.2) + 64)
        a, b = a.astype(np.int64), b.astype(np.int64)
        loop = a == b
        lo, hi = np.minimum(a, b)[~loop], np.maximum(a, b)[~loop]
        # np.sort, not np.unique (several times slower in NumPy 2.3+); a stable
        # sort of the two sorted runs is a linear merge
        fresh = _drop_repeats(np.sort(lo * nodes + hi))
        merged = _drop_repeats(np.sort(np.concatenate([keys, fresh]), kind="stable"))
        if exclude.size:
            merged = merged[~_sorted_contains(exclude, merged)]
        stalled = stalled + 1 if merged.size - keys.size < 0.01 * deficit else 0
        if stalled >= 5:
            raise SystemExit(
                f"Cannot place {target} distinct edges: the communities are too small for "
                f"that many edges (stuck at {merged.size}). Lower --edges or --mixing, or "
                "raise --min-community."
            )
        keys = merged
    return keys[rng.permutation(keys.size)[:target]]


def _drop_repeats(values):
    """The distinct values of a sorted array."""
    first = np.ones(values.size, dtype=bool)
    np.not_equal(values[1:], values[:-1], out=first[1:])
    return values[first]


def _sorted_contains(haystack, needles):
    """Boolean mask: which ``needles`` occur in the sorted array ``haystack``."""
    pos = np.searchsorted(haystack, needles)
    pos[pos == haystack.size] = 0
    return haystack[pos] == needles


def generate(
    nodes,
    edges,
    *,
    seed=1,
    mixing=0.3,
    min_community=None,
    max_community=None,
    community_exponent=1.5,
    degree_exponent=2.5,
    degree_spread=5.0,
    string_scores=False,
):
    """A planted-partition graph as arrays.

    Returns
    -------
    dict
        ``src``, ``dst`` (int32 node ids, one distinct undirected pair per
        entry, shuffled), ``weight_code`` (int16: weight in thousandths, or
        the STRING score), ``community`` (int32, per node) and the parameters
        actually used (``min_community``, ``max_community``, ``communities``).
    """
    if edges > nodes * (nodes - 1) // 2:
        raise SystemExit(f"{nodes} nodes have at most {nodes * (nodes - 1) // 2} distinct pairs; asked for {edges}.")
    rng = np.random.default_rng(seed)
    mean_degree = 2.0 * edges / nodes
    if min_community is None:
        # small dense communities: MCL at -I 2 recovers them; large sparse ones it shatters
        min_community = min(nodes, max(10, math.ceil(1.25 * mean_degree * (1.0 - mixing))))
    if max_community is None:
        max_community = max(min_community, min(nodes // 4, 5 * min_community))
    sizes = community_sizes(rng, nodes, community_exponent, min_community, max_community)
    community = np.repeat(np.arange(sizes.size, dtype=np.int32), sizes)
    propensity = power_law(rng, nodes, degree_exponent, 1.0, degree_spread)
    # each node owns stubs in proportion to its propensity: a uniform stub is a
    # propensity-weighted node, drawn in O(1) (no binary search)
    stubs = np.maximum(1, np.rint(propensity * STUBS_PER_UNIT)).astype(np.int64)
    stub_node = np.repeat(np.arange(nodes, dtype=np.int32), stubs)
    stub_end = np.cumsum(stubs)
    community_start = np.concatenate([[0], stub_end[np.cumsum(sizes) - 1]])[:-1]
    community_stubs = np.bincount(community, weights=stubs, minlength=sizes.size).astype(np.int64)

    def community_pairs(k):
        # the community of a uniform stub: communities in proportion to their propensity
        c = community[stub_node[rng.integers(0, stub_node.size, k)]]
        return _stub_pairs(rng, stub_node, community_start[c], community_stubs[c], k)

    def background_pairs(k):
        return _stub_pairs(rng, stub_node, np.zeros(k, np.int64), np.full(k, stub_node.size), k)

    n_community = round((1.0 - mixing) * edges)
    inner = _distinct_pairs(rng, community_pairs, n_community, nodes, np.empty(0, np.int64))
    outer = _distinct_pairs(rng, background_pairs, edges - n_community, nodes, np.sort(inner))
    if string_scores:
        lo, hi = STRING_SCORE_RANGE
        codes = np.concatenate([
            lo + np.rint((hi - lo) * rng.beta(3.0, 1.5, inner.size)),
            lo + np.rint((hi - lo) * rng.beta(1.2, 4.0, outer.size)),
        ])
    else:
        codes = np.concatenate([
            np.rint(1000 * rng.uniform(*FLOAT_WEIGHTS["community"], inner.size)),
            np.rint(1000 * rng.uniform(*FLOAT_WEIGHTS["background"], outer.size)),
        ])
    keys = np.concatenate([inner, outer])
    order = rng.permutation(keys.size)
    keys, codes = keys[order], codes[order].astype(np.int16)
    lo, hi = keys // nodes, keys % nodes
    swap = rng.random(keys.size) < 0.5
    src = np.where(swap, hi, lo).astype(np.int32)
    dst = np.where(swap, lo, hi).astype(np.int32)
    return {
        "src": src,
        "dst": dst,
        "weight_code": codes,
        "community": community,
        "min_community": int(min_community),
        "max_community": int(max_community),
        "communities": int(sizes.size),
    }


@contextlib.contextmanager
def _atomic_text(path):
    """A text file (gzip-compressed when ``path`` ends in .gz) written under a
    temporary name and moved onto ``path`` only when complete."""
    tmp = f"{path}.tmp{os.getpid()}"
    opener = functools.partial(gzip.open, compresslevel=3) if str(path).endswith(".gz") else open
    try:
        with opener(tmp, "wt", encoding="ascii", newline="\n") as handle:
            yield handle
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def write_abc(path, src, dst, weight_code, *, string_scores=False):
    """Write the pairs as ``label TAB label TAB weight`` lines, chunk by chunk,
    to a temporary file that replaces ``path`` once complete."""
    top = int(max(src.max(initial=0), dst.max(initial=0))) + 1
    labels = np.array([f"v{i}" for i in range(top)], dtype=object)
    if string_scores:
        weights = np.array([str(k) for k in range(1000)], dtype=object)
    else:
        weights = np.array([f"{k / 1000:.3f}" for k in range(1001)], dtype=object)
    with _atomic_text(path) as out:
        for start in range(0, src.size, CHUNK):
            stop = start + CHUNK
            columns = zip(labels[src[start:stop]], labels[dst[start:stop]], weights[weight_code[start:stop]])
            out.write("\n".join(map("\t".join, columns)))
            out.write("\n")


def write_truth(path, community):
    """One line per planted community: its node labels, TAB separated."""
    order = np.argsort(community, kind="stable")
    cuts = np.flatnonzero(np.diff(community[order])) + 1
    with _atomic_text(path) as out:
        for members in np.split(order, cuts):
            out.write("\t".join(f"v{i}" for i in members) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Write a seeded planted-partition community graph as an mcl label (ABC) file.",
        epilog="Example: python benchmarks/generate_graphs.py --nodes 10000 --edges 200000 -o g.abc",
    )
    parser.add_argument("-o", "--output", required=True, help="output file (.gz: gzip-compressed)")
    parser.add_argument("--nodes", type=int, help="number of nodes (default 1000; 5000 with --dense-string)")
    parser.add_argument("--edges", type=int, help="distinct undirected edges (default 10000; 1e6 with --dense-string)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--mixing", type=float, help="fraction of background edges (default 0.3; 0.4 with --dense-string)")
    parser.add_argument("--min-community", type=int, help="smallest community (default: 1.25x the mean community degree)")
    parser.add_argument("--max-community", type=int, help="largest community (default: min(nodes/4, 5x the smallest))")
    parser.add_argument("--community-exponent", type=float, default=1.5, help="power-law exponent of community sizes")
    parser.add_argument("--degree-exponent", type=float, default=2.5, help="power-law exponent of degrees")
    parser.add_argument("--degree-spread", type=float, default=5.0, help="largest / smallest degree propensity")
    parser.add_argument("--dense-string", action="store_true",
                        help="STRING-like: integer scores 150..999, 5k nodes / 1M edges unless given")
    parser.add_argument("--truth", help="also write the planted communities here, one per line")
    args = parser.parse_args(argv)
    dense = DENSE_STRING_DEFAULTS if args.dense_string else {"nodes": 1_000, "edges": 10_000, "mixing": 0.3}
    nodes = args.nodes or dense["nodes"]
    edges = args.edges or dense["edges"]
    mixing = dense["mixing"] if args.mixing is None else args.mixing
    if not 0.0 <= mixing < 1.0 or nodes < 2 or edges < 1:
        parser.error("need nodes >= 2, edges >= 1 and 0 <= mixing < 1")

    t0 = time.perf_counter()
    graph = generate(
        nodes, edges, seed=args.seed, mixing=mixing, min_community=args.min_community,
        max_community=args.max_community, community_exponent=args.community_exponent,
        degree_exponent=args.degree_exponent, degree_spread=args.degree_spread,
        string_scores=args.dense_string,
    )
    t1 = time.perf_counter()
    write_abc(args.output, graph["src"], graph["dst"], graph["weight_code"], string_scores=args.dense_string)
    if args.truth:
        write_truth(args.truth, graph["community"])
    t2 = time.perf_counter()
    present = np.count_nonzero(np.bincount(graph["src"], minlength=nodes) + np.bincount(graph["dst"], minlength=nodes))
    summary = {
        "output": args.output, "seed": args.seed, "nodes": nodes, "nodes_with_edges": int(present),
        "edges": int(graph["src"].size), "mixing": mixing, "communities": graph["communities"],
        "min_community": graph["min_community"], "max_community": graph["max_community"],
        "weights": "string scores 150..999" if args.dense_string else "0.001..1.000",
        "generate_s": round(t1 - t0, 2), "write_s": round(t2 - t1, 2),
    }
    json.dump(summary, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
