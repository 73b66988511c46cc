#!/usr/bin/env python
"""The Dask engine against the CPU engine and ``mcl``, on the same input, in one run.

* ``mcl``: ``mcl IN --abc -I 2 -te T -o OUT`` (wall seconds of the process);
* ``cpu``: ``netmcl.mcl(graph, engine="cpu", threads=T)`` in this process;
* ``dask``: ``netmcl.mcl(graph, engine="dask")`` on a LocalCluster of T worker
  processes of one thread each (started before the clock starts), the iterand
  in T column blocks; then in 4T blocks (``blocks=4 * T``).

The three clusterings must be identical (the script stops otherwise).  For
the Dask run it records, per iteration, the bytes of blocks read by a task on
another worker than the one holding them (communication volume) and each
worker's seconds.  The input is the generated community graph ``gen-10k``
(10,000 nodes, 200,000 edges; ``benchmarks/generate_graphs.py --nodes 10000
--edges 200000 --seed 1``).

    python benchmarks/dask_bench.py IN.abc OUT.md [--threads 2]
"""

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args()

    from distributed import Client, LocalCluster

    import netmcl

    t = args.threads
    graph = netmcl.read_abc(args.input)
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        mcl = shutil.which("mcl")
        if mcl:
            out = Path(tmp) / "out"
            t0 = time.perf_counter()
            subprocess.run([mcl, args.input, "--abc", "-I", "2", "-te", str(t), "-o", str(out)], check=True,
                           capture_output=True)
            rows["mcl"] = time.perf_counter() - t0
            reference = [line.split("\t") for line in out.read_text().splitlines()]
    netmcl.mcl(graph, engine="cpu", threads=t, attribute=None, max_iterations=1)  # the kernels loaded
    t0 = time.perf_counter()
    cpu = netmcl.mcl(graph, engine="cpu", threads=t, attribute=None)
    rows["cpu"] = time.perf_counter() - t0
    with LocalCluster(n_workers=t, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        client.run(lambda: __import__("netmcl.engines.cpu._compiled", fromlist=["kernels"]).kernels())
        t0 = time.perf_counter()
        dask = netmcl.mcl(graph, engine="dask", client=client, attribute=None)
        rows["dask"] = time.perf_counter() - t0
        t0 = time.perf_counter()  # more blocks than workers: the scheduler balances them, at more transfers
        more = netmcl.mcl(graph, engine="dask", client=client, attribute=None, blocks=4 * t)
        rows[f"dask, {4 * t} blocks"] = time.perf_counter() - t0
    if list(cpu) != list(dask) or list(more) != list(dask) or (mcl and [list(c) for c in cpu] != reference):
        sys.exit("the clusterings differ")
    moved = [s.extra.get("bytes_between_workers", 0) for s in dask.stats]
    moved_more = sum(s.extra.get("bytes_between_workers", 0) for s in more.stats)
    per_worker = [sorted(s.extra.get("worker_seconds", {}).values()) for s in dask.stats]
    lines = [
        f"# The Dask engine on {Path(args.input).name} ({graph.n:,} nodes, {graph.csc.nnz:,} arcs), {t} threads",
        "",
        f"Identical clusters from all runs ({len(cpu)} clusters, {cpu.n_iterations} iterations).",
        "",
        "| run | wall s | vs cpu |",
        "| --- | --- | --- |",
    ]
    lines += [f"| {name} | {s:.2f} | {s / rows['cpu']:.2f} |" for name, s in rows.items()]
    lines += ["", f"Bytes between workers in all: {sum(moved):,} in {t} blocks, {moved_more:,} in {4 * t} blocks.",
              "Per iteration, in {t} blocks:".format(t=t), ""]
    lines += ["| iteration | entries kept | bytes between workers | dask s (per worker) | cpu s |",
              "| --- | --- | --- | --- | --- |"]
    lines += [f"| {k + 1} | {s.kept:,} | {m:,} | {s.seconds:.3f} ({', '.join(f'{x:.3f}' for x in w)}) "
              f"| {c.seconds:.3f} |" for k, (s, m, w, c) in enumerate(zip(dask.stats, moved, per_worker, cpu.stats))]
    Path(args.output).write_text("\n".join(lines) + "\n")
    Path(args.output).with_suffix(".json").write_text(json.dumps(
        {"seconds": rows, "bytes_between_workers": moved, "worker_seconds": per_worker,
         "bytes_between_workers_more_blocks": moved_more}, indent=1))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
