#!/usr/bin/env python
"""Warm restart against a cold run, on real networks with 1 % of their edges changed.

For each network, a first run records its state (``warm_start=True``); then
1 % of the edges are changed (half removed, never a node's last edge, half
added between nodes not yet linked, weights drawn from the network's own),
and the changed network is clustered cold and warm from the first run,
``--repeats`` times in alternating order in one process.  The two cluster
files are compared byte for byte (and the iteration counts); the figures are
the clustering's wall time (the graph is built once, beforehand), median of
the repeats, and what the warm start reused.

Edit models:

* ``random``: added edges join any two nodes (in a network with a giant
  component they almost all touch it, so the giant component is iterated
  again and little is saved);
* ``local``: added edges join two nodes of the same connected component
  outside the largest one, and removed edges are drawn from those components
  too (new hits within sequence families, say): the giant component is
  untouched;
* ``few``: as ``local``, within as few components as hold twice the edges
  to change (drawn at random among those outside the largest): an update
  of a few families or complexes.

Networks: ``collins`` (bundled with netmcl, 1,622 proteins, 9,074 edges);
``ssn``: the mmseqs2 all-vs-all search of 20,000 UniProt sequences in the
shared data sets (``derived/mmseqs2_uniprot20k_allvsall_e1e-5.m8.gz``,
bitscores as weights, self hits dropped); ``gavin``: ProCope's Gavin 2006
purification-enrichment network (``yeast_ppi/procope_pe_gavin.txt.gz``).
The shared data sets are read from ``../shared/datasets`` relative to the
repository (``--shared DIR``).

Examples
--------
python benchmarks/warm_start_bench.py                          # collins, ssn and gavin, both edit models
python benchmarks/warm_start_bench.py --networks collins --repeats 5
"""

import argparse
import gzip
import io
import json
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's netmcl

import netmcl  # noqa: E402
from netmcl.adapters import to_sparse_graph  # noqa: E402
from netmcl.engines import get_engine  # noqa: E402
from netmcl.io.clusters import write_clusters  # noqa: E402
from netmcl.mcl import cluster_graph  # noqa: E402
from netmcl.params import MclParams  # noqa: E402
from netmcl.mcl import cluster_graph  # noqa: E402


def read_abc(path):
    with gzip.open(path, "rt") as fh:
        return [(a, b, float(w)) for a, b, w in (line.split()[:3] for line in fh)]


def read_m8(path):
    """query target evalue bitscore: the bitscore as weight, self hits dropped."""
    edges = []
    with gzip.open(path, "rt") as fh:
        for line in fh:
            q, t, _, bits = line.split()
            if q != t:
                edges.append((q, t, float(bits)))
    return edges


def network(name, shared):
    if name == "collins":
        from netmcl.datasets import collins2007_path

        return read_abc(collins2007_path())
    if name == "ssn":
        return read_m8(shared / "derived" / "mmseqs2_uniprot20k_allvsall_e1e-5.m8.gz")
    if name == "gavin":
        return read_abc(shared / "yeast_ppi" / "procope_pe_gavin.txt.gz")
    raise SystemExit(f"unknown network {name!r}")


def components(edges):
    """Each node's component (union-find), and the label of the largest component."""
    parent = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b, _ in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    comp = {x: find(x) for x in parent}
    sizes = {}
    for r in comp.values():
        sizes[r] = sizes.get(r, 0) + 1
    return comp, max(sizes, key=sizes.get)


def edit(edges, seed, fraction, model):
    """`edges` with `fraction` of them changed (see the module's text)."""
    rng = np.random.default_rng(seed)
    k = max(2, round(fraction * len(edges)))
    comp, giant = components(edges)
    local = model in ("local", "few")
    if model == "few":  # random components outside the largest, until they hold 2k edges
        held = {}
        for a, _, _ in edges:
            held[comp[a]] = held.get(comp[a], 0) + 1
        chosen, total = set(), 0
        for r in rng.permutation(sorted(r for r in held if r != giant)).tolist():
            if total >= 2 * k:
                break
            chosen.add(r)
            total += held[r]
        comp = {x: (r if r in chosen else giant) for x, r in comp.items()}  # the others: as untouchable
    degree = {}
    for a, b, _ in edges:
        degree[a] = degree.get(a, 0) + 1
        degree[b] = degree.get(b, 0) + 1
    removed = set()
    for i in rng.permutation(len(edges)).tolist():
        a, b, _ = edges[i]
        if len(removed) == k // 2:
            break
        if degree[a] > 1 and degree[b] > 1 and not (local and comp[a] == giant):
            removed.add(i)
            degree[a] -= 1
            degree[b] -= 1
    nodes = list(degree)
    members = {}
    for x in nodes:
        members.setdefault(comp[x], []).append(x)
    pool = [x for x in nodes if comp[x] != giant and len(members[comp[x]]) > 2] if local else nodes
    linked = {frozenset(e[:2]) for e in edges}
    added, tries = [], 0
    while len(added) < k - len(removed) and tries < 100 * k:
        tries += 1
        a = pool[int(rng.integers(len(pool)))]
        family = members[comp[a]] if local else nodes
        b = family[int(rng.integers(len(family)))]
        if a != b and frozenset((a, b)) not in linked:
            linked.add(frozenset((a, b)))
            added.append((a, b, edges[int(rng.integers(len(edges)))][2]))
    return [e for i, e in enumerate(edges) if i not in removed] + added, len(removed) + len(added)


def text(clustering):
    out = io.StringIO()
    write_clusters(out, clustering)
    return out.getvalue()


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def bench(name, edges, model, args):
    params = MclParams.build(inflation=args.inflation)
    engine = get_engine("cpu", threads=args.threads)
    changed, n_changed = edit(edges, args.seed, args.fraction, model)
    g1, g2 = to_sparse_graph(edges), to_sparse_graph(changed)
    t_first_cold, _ = timed(lambda: cluster_graph(g1, params, engine))
    t_record, first = timed(lambda: cluster_graph(g1, params, engine, warm_start=True))
    cold_s, warm_s = [], []
    for r in range(args.repeats):
        order = ("cold", "warm") if r % 2 == 0 else ("warm", "cold")
        for which in order:
            if which == "cold":
                t, cold = timed(lambda: cluster_graph(g2, params, engine))
                cold_s.append(t)
            else:
                t, warm = timed(lambda: cluster_graph(g2, params, engine, warm_start=first))
                warm_s.append(t)
    same = text(cold) == text(warm) and cold.n_iterations == warm.n_iterations
    rep = warm.warm_report
    row = {
        "network": name, "model": model, "nodes": g2.n, "edges": len(changed), "changed": n_changed,
        "components": rep.components, "reused_components": rep.reused_components,
        "reused_nodes": rep.reused_nodes, "iterated_components": rep.iterated_components,
        "caught_up_components": rep.caught_up_components, "path_changed": rep.path_changed_components,
        "reason": rep.reason, "iterations_before": first.n_iterations, "iterations": cold.n_iterations,
        "cold_s": statistics.median(cold_s), "warm_s": statistics.median(warm_s),
        "cold_all": cold_s, "warm_all": warm_s, "same": same,
        "first_cold_s": t_first_cold, "record_s": t_record, "state_mib": first.warm_state.nbytes / 2**20,
    }
    print(json.dumps(row), flush=True)
    if not same:
        raise SystemExit(f"{name}/{model}: the warm run's clusters differ from the cold run's")
    return row


def markdown(rows, args):
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    lines = [
        f"Command: `python benchmarks/warm_start_bench.py --networks {args.networks} --repeats {args.repeats} "
        f"--threads {args.threads}`; commit {commit}; {platform.machine()}, Python {platform.python_version()}.",
        "",
        "| network | edit (1 %) | nodes | components | reused components | reused nodes | caught up | "
        "iterations | cold s | warm s | warm / cold | same clusters | recording run / plain run |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        lines.append(
            f"| {r['network']} | {r['model']}, {r['changed']:,} edges | {r['nodes']:,} | {r['components']:,} | "
            f"{r['reused_components']:,} | {r['reused_nodes']:,} ({100 * r['reused_nodes'] / r['nodes']:.0f} %) | "
            f"{r['caught_up_components']:,} | {r['iterations']} | {r['cold_s']:.3f} | {r['warm_s']:.3f} | "
            f"{r['warm_s'] / r['cold_s']:.2f} | {'yes' if r['same'] else 'NO'} | "
            f"{r['record_s'] / r['first_cold_s']:.2f} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--networks", default="collins,ssn,gavin")
    ap.add_argument("--models", default="random,local,few")
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "datasets")
    ap.add_argument("--fraction", type=float, default=0.01)
    ap.add_argument("--inflation", type=float, default=2.0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--output", type=Path, default=Path(__file__).parent / "warm_start_results.md")
    args = ap.parse_args()
    rows = []
    for name in args.networks.split(","):
        edges = network(name, args.shared)
        for model in args.models.split(","):
            rows.append(bench(name, edges, model, args))
    md = markdown(rows, args)
    print(md)
    args.output.write_text(md)
    args.output.with_suffix(".json").write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
