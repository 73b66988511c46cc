#!/usr/bin/env python
"""The Dask engine against the CPU engine (and ``mcl``), on the same input, in one run.

* ``mcl``: ``mcl IN --abc -I 2 -te T -o OUT`` (wall seconds of the process; ``--skip mcl`` leaves it out);
* ``cpu``: ``netmcl.mcl(graph, engine="cpu", threads=T, max_memory=--cpu-max-memory)`` in this process;
* ``dask``: ``netmcl.mcl(graph, engine="dask", max_memory=--max-memory)`` on a LocalCluster of W worker
  processes of one thread each (started, their kernels loaded, before the clock starts), the iterand in W
  column blocks; then, unless ``--skip more``, in 4W blocks (``blocks=4 * W``).

The clusterings must be identical (the script stops otherwise).  For the Dask run it records, per
iteration, the communication volume (bytes of blocks, or under a budget of columns, that a task read from
another worker), each worker's seconds, and under a budget the phases, the most each worker's step held by
the budget's count and the worker's resident memory; a thread on the client also samples every worker's
resident memory (``psutil``) every ``--sample`` seconds, for the whole run.

Inputs: the generated community graphs of ``benchmarks/generate_graphs.py`` (seeded):
``--nodes 10000 --edges 200000 --seed 1`` (gen-10k), ``--nodes 200000 --edges 4000000 --seed 1``
(gen-200k), ``--nodes 1000000 --edges 20000000 --seed 1`` (gen-1m).

    python benchmarks/dask_bench.py gen-10k.abc OUT.md
    nice python benchmarks/dask_bench.py gen-200k.abc OUT.md --skip mcl,more
    nice python benchmarks/dask_bench.py gen-1m.abc OUT.md --skip mcl,more --max-memory 6G --cpu-max-memory 16G
"""

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

#: the netmcl of this checkout, in this process and in the workers' (the commit the output names), not an
#: installed one elsewhere
ROOT = str(Path(__file__).resolve().parent.parent)
sys.path.insert(0, ROOT)
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))


def _rss():
    import psutil

    return psutil.Process().memory_info().rss


def _load_kernels():
    from netmcl.engines.cpu._compiled import kernels

    kernels()


class Sampler(threading.Thread):
    """Every worker's resident memory, sampled every `every` seconds: the most seen per worker."""

    def __init__(self, client, every):
        super().__init__(daemon=True)
        self.client, self.every, self.peak = client, every, {}
        self.done = threading.Event()

    def run(self):
        while not self.done.wait(self.every):
            try:
                for worker, rss in self.client.run(_rss).items():
                    self.peak[worker] = max(self.peak.get(worker, 0), rss)
            except Exception:  # a worker going or coming between two samples
                pass


def _commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).parent, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--threads", type=int, default=2, help="the CPU engine's threads and mcl's (default 2)")
    p.add_argument("--workers", type=int, help="Dask worker processes of one thread each (default --threads)")
    p.add_argument("--max-memory", help="the Dask engine's budget per worker (e.g. 6G); default none")
    p.add_argument("--cpu-max-memory", help="the CPU engine's budget (e.g. 16G); default none")
    p.add_argument("--skip", default="", help="comma-separated runs to leave out: mcl, more")
    p.add_argument("--sample", type=float, default=0.5, help="seconds between samples of the workers' memory")
    args = p.parse_args()
    skip = set(filter(None, args.skip.split(",")))

    import psutil
    from distributed import Client, LocalCluster

    import netmcl

    if Path(netmcl.__file__).resolve().parent.parent != Path(ROOT):
        raise SystemExit(f"netmcl was imported from {netmcl.__file__}, not from this checkout ({ROOT})")
    t, w = args.threads, args.workers or args.threads
    graph = netmcl.read_abc(args.input)
    rows, reference = {}, None
    with tempfile.TemporaryDirectory() as tmp:
        mcl = shutil.which("mcl") if "mcl" not in skip else None
        if mcl:
            out = Path(tmp) / "out"
            t0 = time.perf_counter()
            subprocess.run([mcl, args.input, "--abc", "-I", "2", "-te", str(t), "-o", str(out)], check=True,
                           capture_output=True)
            rows["mcl"] = time.perf_counter() - t0
            reference = [line.split("\t") for line in out.read_text().splitlines()]
    netmcl.mcl(graph, engine="cpu", threads=t, attribute=None, max_iterations=1)  # the kernels loaded
    t0 = time.perf_counter()
    cpu = netmcl.mcl(graph, engine="cpu", threads=t, attribute=None, max_memory=args.cpu_max_memory)
    rows["cpu"] = time.perf_counter() - t0
    with LocalCluster(n_workers=w, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        client.run(_load_kernels)
        sampler = Sampler(client, args.sample)
        sampler.start()
        t0 = time.perf_counter()
        dask = netmcl.mcl(graph, engine="dask", client=client, attribute=None, max_memory=args.max_memory)
        rows["dask"] = time.perf_counter() - t0
        sampler.done.set()
        sampler.join()
        more = None
        if "more" not in skip:
            t0 = time.perf_counter()  # more blocks than workers: the scheduler balances them, at more transfers
            more = netmcl.mcl(graph, engine="dask", client=client, attribute=None, blocks=4 * w,
                              max_memory=args.max_memory)
            rows[f"dask, {4 * w} blocks"] = time.perf_counter() - t0
    if list(cpu) != list(dask) or (more is not None and list(more) != list(dask)) or \
            (reference is not None and [list(c) for c in cpu] != reference):
        sys.exit("the clusterings differ")
    moved = [s.extra.get("bytes_between_workers", 0) for s in dask.stats]
    per_worker = [sorted(s.extra.get("worker_seconds", {}).values()) for s in dask.stats]
    phases = [s.extra.get("phases", 1) for s in dask.stats]
    held = [max(s.extra.get("worker_peak_bytes", {0: 0}).values()) for s in dask.stats]
    # under a budget, the phases' seconds by part, summed over the workers
    parts = [{part: sum(w.get(part, 0.0) for w in s.extra.get("worker_phase_seconds", {}).values())
              for part in ("plan", "local", "fetch", "kernel")} for s in dask.stats]
    budget = dask.stats[0].extra.get("worker_budget")
    sampled = dict(sorted(sampler.peak.items()))
    lines = [
        f"# The Dask engine on {Path(args.input).name} ({graph.n:,} nodes, {graph.csc.nnz:,} arcs)",
        "",
        f"- {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {_commit()}; {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} logical CPUs, {psutil.virtual_memory().total / 2**30:.1f} GiB, Python "
        f"{platform.python_version()}; load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}",
        f"- `{' '.join(['python', *sys.argv])}`",
        f"- CPU engine: {t} threads, max_memory {args.cpu_max_memory or 'none'}; Dask: LocalCluster of {w} worker "
        f"processes x 1 thread, max_memory {args.max_memory or 'none'} per worker"
        + (f" ({budget:,} bytes a block's step)" if budget else ""),
        "",
        f"Identical clusters from all runs ({len(cpu)} clusters, {cpu.n_iterations} iterations).",
        "",
        "| run | wall s | vs cpu |",
        "| --- | --- | --- |",
    ]
    lines += [f"| {name} | {s:.2f} | {s / rows['cpu']:.2f} |" for name, s in rows.items()]
    lines += ["", f"Communication volume (bytes between workers): {sum(moved):,} in all.", "",
              "Workers' resident memory at most (sampled every "
              f"{args.sample:g} s): " + ", ".join(f"{rss / 2**30:.2f} GiB" for rss in sampled.values()), ""]
    lines += ["| iteration | entries kept | bytes between workers | phases | held at most (budget's count) "
              "| dask s (per worker) | phases: plan / local / fetch / kernel s | cpu s |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    lines += [f"| {k + 1} | {s.kept:,} | {m:,} | {ph} | {h:,} | {s.seconds:.3f} ({', '.join(f'{x:.3f}' for x in ws)}) "
              f"| {' / '.join(f'{x:.1f}' for x in pt.values())} | {c.seconds:.3f} |"
              for k, (s, m, ws, c, ph, h, pt) in enumerate(zip(dask.stats, moved, per_worker, cpu.stats, phases, held,
                                                               parts))]
    Path(args.output).write_text("\n".join(lines) + "\n")
    Path(args.output).with_suffix(".json").write_text(json.dumps(
        {"seconds": rows, "bytes_between_workers": moved, "worker_seconds": per_worker, "phases": phases,
         "held_at_most": held, "worker_budget": budget, "worker_rss_sampled": sampled,
         "worker_rss_steps": [s.extra.get("worker_rss", {}) for s in dask.stats],
         "worker_phase_seconds": [s.extra.get("worker_phase_seconds", {}) for s in dask.stats], "argv": sys.argv},
        indent=1))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
