#!/usr/bin/env python
"""netmcl.traversal against igraph, scipy.sparse.csgraph and NetworkX on the same graphs.

Operations: hop distances (BFS) from 1 and from 100 sources, weighted
shortest paths from 1 source, weakly connected components, and strongly
connected components of a directed version; plus the time to build each
library's graph from what a user holds (edge arrays: two id columns and a
STRING score).  Every figure is the best of ``--repeat`` runs, in seconds,
in one process (components: one run, first on a new graph); the answers are
checked against each other as they are timed.

Graphs:

* ``string-like`` (default): a seeded Chung-Lu graph the size of STRING's
  human network (19,576 proteins, about 5.68M interactions = 11.35M arcs),
  heavy-tailed degrees, integer scores 150..999, cost ``1 - score/1000``;
  its directed version keeps each interaction in one random direction, and
  in both for a third of them.
* ``--bionev FILE``: the BioNEV STRING edge list (two integer ids a line,
  gzipped or not), unweighted: costs are drawn from the same seeded scores.

NetworkX runs on graphs below ``--nx-max-edges`` only (its graph of 5.7M
edges takes minutes and gigabytes to build).

Examples
--------
python benchmarks/traversal_bench.py                         # string-like graph, CPU
python benchmarks/traversal_bench.py --bionev bionev_STRING_PPI.edgelist.gz
python benchmarks/traversal_bench.py --engine gpu --tools netmcl scipy   # on a GPU machine

With ``--engine gpu`` shortest paths are timed three ways: "auto" and both
GPU methods (frontier Bellman-Ford, delta-stepping), each checked against
the other tools' distances.
"""

import argparse
import gzip
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's netmcl

#: STRING-sized defaults: proteins and undirected interactions of the human network
NODES, PAIRS = 19_576, 5_676_528


def string_like(n=NODES, pairs=PAIRS, seed=1):
    """(src, dst, score) of `pairs` distinct undirected pairs on `n` nodes, Chung-Lu with a heavy tail."""
    rng = np.random.default_rng(seed)
    # propensities: a Pareto tail above a floor, as protein degrees in STRING (min ~200, max ~14k)
    w = 1.0 + rng.pareto(1.6, n)
    w = np.minimum(w, 60.0)
    p = w / w.sum()
    have = np.empty(0, dtype=np.int64)
    while have.size < pairs:
        need = int((pairs - have.size) * 1.15) + 1000
        a = rng.choice(n, need, p=p)
        b = rng.choice(n, need, p=p)
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        keys = lo[lo != hi] * n + hi[lo != hi]
        have = np.unique(np.concatenate([have, keys]))
    have = rng.permutation(have)[:pairs]
    src, dst = have // n, have % n
    swap = rng.random(pairs) < 0.5  # random orientation, as a links file lists them
    src, dst = np.where(swap, dst, src), np.where(swap, src, dst)
    score = rng.integers(150, 1000, pairs)
    return src.astype(np.int64), dst.astype(np.int64), score


def read_edgelist(path, seed=1):
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as fh:
        pairs = np.loadtxt(fh, dtype=np.int64, usecols=(0, 1))
    ids, inverse = np.unique(pairs.ravel(), return_inverse=True)
    pairs = inverse.reshape(-1, 2)
    keep = pairs[:, 0] != pairs[:, 1]
    pairs = pairs[keep]
    lo, hi = pairs.min(axis=1), pairs.max(axis=1)
    keys = np.unique(lo * ids.size + hi)
    score = np.random.default_rng(seed).integers(150, 1000, keys.size)
    return keys // ids.size, keys % ids.size, score, ids.size


def directed_version(src, dst, seed=2):
    """Each pair as one arc in a random direction, and as both arcs for a third of the pairs."""
    rng = np.random.default_rng(seed)
    flip = rng.random(src.size) < 0.5
    a, b = np.where(flip, dst, src), np.where(flip, src, dst)
    both = rng.random(src.size) < 1 / 3
    return np.concatenate([a, b[both]]), np.concatenate([b, a[both]])


def best(f, repeat):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


# ---------------------------------------------------------------------------
# the contenders: build(src, dst, cost, n, directed) -> graph; ops(graph) -> callables
# ---------------------------------------------------------------------------

def netmcl_tool(engine):
    from netmcl.graph import SparseGraph
    from netmcl.traversal import _graph, hop_matrix, distance_matrix, strong_ids, weak_ids

    def build(src, dst, cost, n, directed):
        g = SparseGraph.from_edges(src, dst, cost, n=n, symmetrize=not directed)
        net = _graph.as_net(g, weight="weight", directed=directed)
        net.reverse()  # the in-arcs (and, undirected, that the arcs are symmetric) once, for every search
        net.symmetric
        net.csr()  # the weighted matrix Dijkstra reads
        return net

    ops = {
        "build": build,
        "bfs1": lambda g, s: hop_matrix(g, s[:1], engine),
        "bfs100": lambda g, s: hop_matrix(g, s, engine),
        "sssp": lambda g, s: distance_matrix(g, s[:1], engine),
        "wcc": lambda g: weak_ids(g, engine),
        "scc": lambda g: strong_ids(g, engine),
    }
    if engine == "gpu":  # both GPU methods, each measured, for the choice of "auto"
        ops["sssp_bf"] = lambda g, s: distance_matrix(g, s[:1], engine, "bellman-ford")
        ops["sssp_delta"] = lambda g, s: distance_matrix(g, s[:1], engine, "delta-stepping")
    return ops


def igraph_tool():
    import igraph as ig

    def build(src, dst, cost, n, directed):
        g = ig.Graph(n=n, edges=np.column_stack([src, dst]), directed=directed)
        g.es["weight"] = cost
        return g

    def hops(g, s):
        d = np.asarray(g.distances(source=list(map(int, s)), mode="out"))
        return np.where(np.isinf(d), -1, d).astype(np.int32)

    return {
        "build": build,
        "bfs1": lambda g, s: hops(g, s[:1]),
        "bfs100": hops,
        "sssp": lambda g, s: np.asarray(g.distances(source=[int(s[0])], weights="weight", mode="out")),
        "wcc": lambda g: np.asarray(g.connected_components(mode="weak").membership),
        "scc": lambda g: np.asarray(g.connected_components(mode="strong").membership),
    }


def scipy_tool():
    import scipy.sparse as sp
    from scipy.sparse import csgraph

    def build(src, dst, cost, n, directed):
        if not directed:  # symmetrised once here; directed=True below avoids csgraph re-symmetrising per call
            src, dst, cost = np.concatenate([src, dst]), np.concatenate([dst, src]), np.concatenate([cost, cost])
        return sp.csr_array((cost, (src, dst)), shape=(n, n))

    def hops(g, s):
        d = csgraph.shortest_path(g, method="D", directed=True, unweighted=True, indices=s)
        return np.where(np.isinf(d), -1, d).astype(np.int32)

    return {
        "build": build,
        "bfs1": lambda g, s: hops(g, s[:1]),
        "bfs100": hops,
        "sssp": lambda g, s: csgraph.dijkstra(g, directed=True, indices=s[:1]),
        "wcc": lambda g: csgraph.connected_components(g, directed=True, connection="weak")[1],
        "scc": lambda g: csgraph.connected_components(g, directed=True, connection="strong")[1],
    }


def networkx_tool():
    import networkx as nx

    def build(src, dst, cost, n, directed):
        G = nx.DiGraph() if directed else nx.Graph()
        G.add_nodes_from(range(n))
        G.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), cost.tolist()))
        return G

    def hops(G, s):
        out = np.full((len(s), len(G)), -1, dtype=np.int32)
        for r, x in enumerate(s.tolist()):
            for v, d in nx.single_source_shortest_path_length(G, x).items():
                out[r, v] = d
        return out

    def sssp(G, s):
        out = np.full((1, len(G)), np.inf)
        for v, d in nx.single_source_dijkstra_path_length(G, int(s[0])).items():
            out[0, v] = d
        return out

    def label(G, sets):
        out = np.empty(len(G), dtype=np.int64)
        for k, c in enumerate(sets):
            out[list(c)] = k
        return out

    return {
        "build": build,
        "bfs1": lambda G, s: hops(G, s[:1]),
        "bfs100": hops,
        "sssp": sssp,
        "wcc": lambda G: label(G, nx.connected_components(G)),
        "scc": lambda G: label(G, nx.strongly_connected_components(G)),
    }


def canonical(labels):
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first)] = np.arange(first.size)
    return rank[inverse]


ROWS = [("build", "build the undirected graph from edge arrays"), ("bfs1", "BFS hops, 1 source"),
        ("bfs100", "BFS hops, 100 sources"), ("sssp", "shortest paths, 1 source (Dijkstra; GPU: auto)"),
        ("sssp_bf", "shortest paths, 1 source: frontier Bellman-Ford (GPU)"),
        ("sssp_delta", "shortest paths, 1 source: delta-stepping (GPU)"),
        ("wcc", "connected components"), ("build_d", "build the directed graph"),
        ("scc", "strongly connected components (directed)")]


def run(name, src, dst, score, n, tools, repeat, nx_max_edges, engine):
    cost = 1.0 - score / 1000.0
    dsrc, ddst = directed_version(src, dst)
    dcost = np.concatenate([cost, cost])[: dsrc.size]
    sources = np.random.default_rng(3).choice(n, 100, replace=False)
    print(f"\n## {name}: {n:,} nodes, {src.size:,} undirected pairs ({2 * src.size:,} arcs); "
          f"directed version {dsrc.size:,} arcs", flush=True)
    results, answers = {}, {}
    for tool in tools:
        if tool == "networkx" and src.size > nx_max_edges:
            print(f"  networkx skipped: {src.size:,} edges > --nx-max-edges {nx_max_edges:,}", flush=True)
            continue
        t = {"netmcl": lambda: netmcl_tool(engine), "igraph": igraph_tool, "scipy": scipy_tool,
             "networkx": networkx_tool}[tool]()
        col = results.setdefault(tool, {})
        col["build"], g = best(lambda: t["build"](src, dst, cost, n, False), 1)
        # components first and once, on a graph nothing has looked at: igraph caches what it
        # learns about a graph (a connected graph's components then cost nothing)
        col["wcc"], out = best(lambda: t["wcc"](g), 1)
        answers.setdefault("wcc", {})[tool] = canonical(out)
        for op in ("bfs1", "bfs100", "sssp", "sssp_bf", "sssp_delta"):
            if op not in t:
                continue
            reps = 1 if tool == "networkx" else repeat
            col[op], out = best(lambda: t[op](g, sources), reps)
            same_as = "sssp" if op.startswith("sssp") else op  # every method's distances are checked
            answers.setdefault(same_as, {})[tool if op == same_as else f"{tool} {op}"] = np.asarray(out)
        del g
        col["build_d"], g = best(lambda: t["build"](dsrc, ddst, dcost, n, True), 1)
        col["scc"], out = best(lambda: t["scc"](g), 1)
        answers.setdefault("scc", {})[tool] = canonical(out)
        del g
        print(f"  {tool}: " + ", ".join(f"{k} {v:.3f}s" for k, v in col.items()), flush=True)
    for op, by_tool in answers.items():  # every tool must give the same numbers
        ref_tool, ref = next(iter(by_tool.items()))
        for tool, out in by_tool.items():
            same = np.allclose(out, ref, rtol=1e-6) if op == "sssp" else np.array_equal(out, ref)
            assert same, f"{op}: {tool} differs from {ref_tool}"
    header = "| operation | " + " | ".join(results) + " |"
    lines = [header, "|" + "---|" * (len(results) + 1)]
    for key, text in ROWS:
        if all(results[tool].get(key) is None for tool in results):
            continue
        cells = []
        for tool in results:
            v = results[tool].get(key)
            cells.append("" if v is None else f"{v * 1000:,.0f} ms" if v < 10 else f"{v:,.1f} s")
        lines.append(f"| {text} | " + " | ".join(cells) + " |")
    table = "\n".join(lines)
    print(table, flush=True)
    return f"## {name}\n\n{n:,} nodes, {src.size:,} undirected pairs; directed version {dsrc.size:,} arcs\n\n{table}\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tools", nargs="+", default=["netmcl", "igraph", "scipy", "networkx"],
                   choices=["netmcl", "igraph", "scipy", "networkx"])
    p.add_argument("--engine", choices=("cpu", "gpu"), default="cpu", help="netmcl's engine")
    p.add_argument("--nodes", type=int, default=NODES)
    p.add_argument("--pairs", type=int, default=PAIRS)
    p.add_argument("--no-string-like", action="store_true", help="skip the generated graph")
    p.add_argument("--bionev", metavar="FILE", help="also the BioNEV STRING edge list")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--nx-max-edges", type=int, default=1_000_000)
    p.add_argument("-o", metavar="FILE", dest="output", help="also write the tables (markdown) here")
    args = p.parse_args(argv)

    if "netmcl" in args.tools:  # compile (or load) the kernels outside the timings
        from netmcl.traversal import _graph, hop_matrix, distance_matrix, strong_ids, weak_ids

        tiny = _graph.as_net(np.array([[0, 1.0, 0], [1.0, 0, 1.0], [0, 0, 0]]), weight="weight")
        for f in (lambda: hop_matrix(tiny, [0], args.engine), lambda: hop_matrix(tiny, [0, 1, 2], args.engine),
                  lambda: distance_matrix(tiny, [0], args.engine),
                  lambda: distance_matrix(tiny, [0], args.engine,
                                          "delta-stepping" if args.engine == "gpu" else "auto"),
                  lambda: weak_ids(tiny, args.engine),
                  lambda: strong_ids(tiny, args.engine)):
            f()
    out = [f"# netmcl.traversal benchmark (engine={args.engine}; best of {args.repeat}, seconds or ms)\n"]
    if not args.no_string_like:
        t = time.perf_counter()
        src, dst, score = string_like(args.nodes, args.pairs)
        print(f"generated the string-like graph in {time.perf_counter() - t:.1f}s", flush=True)
        out.append(run("string-like (seeded Chung-Lu)", src, dst, score, args.nodes, args.tools, args.repeat,
                       args.nx_max_edges, args.engine))
        del src, dst, score
    if args.bionev:
        src, dst, score, n = read_edgelist(args.bionev)
        out.append(run(f"BioNEV STRING ({Path(args.bionev).name})", src, dst, score, n, args.tools, args.repeat,
                       args.nx_max_edges, args.engine))
    if args.output:
        Path(args.output).write_text("\n".join(out))


if __name__ == "__main__":
    main()
