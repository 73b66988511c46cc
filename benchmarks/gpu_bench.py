#!/usr/bin/env python
"""The GPU engine against ``mcl -te N`` and the CPU engine, end to end, on one machine.

Each contestant reads the label file and writes the cluster file (``mcl
--abc`` output, one cluster a line); the three files must be identical.
Times are wall seconds of a fresh process, from start to exit:

* ``mcl``: ``mcl IN --abc -I 2 -te N -o OUT``;
* ``cpu``: ``python -m netmcl IN --abc -I 2 -te N -o OUT`` (the command line);
* ``gpu``: this script's ``--run-one`` (read_abc, ``netmcl.mcl(engine="gpu")``,
  write_clusters), which also records how long its kernels took to compile
  (``compile_s``, once per process: numba-cuda compiles at the first launch)
  and the iterations (``iterate_s``); then it interprets the limit again on
  the device and on the host (seconds, bytes copied back, same clusters).

Inputs (made under OUTDIR/inputs, seeded): ``gen-10k`` (generated
communities, 10k nodes / 200k edges, as ``run_benchmarks.py``'s),
``krogan`` (ProCope's Krogan network, bundled in tests/data/networks),
``string-20k`` (a generated STRING-like network: 19,600 nodes, 11M edges,
integer scores 150..999, skewed degrees: mean 1,122 and the largest about 8
times that, as STRING's human network has mean 1,101 and largest 11,720;
about 40 s to generate); ``--quick`` uses one 30-node graph instead (it
runs in numba's CUDA simulator where no GPU is present).

Writes OUTDIR/results.json, OUTDIR/results.md and OUTDIR/times.png.

    python benchmarks/gpu_bench.py OUTDIR --mcl /path/to/mcl --threads 16
    python benchmarks/gpu_bench.py OUTDIR --quick            # a tiny input, a minute
    python benchmarks/gpu_bench.py OUTDIR --dry-run          # print what would run
"""

import argparse
import filecmp
import gzip
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GENERATOR = HERE / "generate_graphs.py"

INPUTS = {
    "gen-10k": ["--nodes", "10000", "--edges", "200000", "--seed", "1"],
    "krogan": ROOT / "tests" / "data" / "networks" / "procope_conf_krogan.txt.gz",
    "string-20k": ["--dense-string", "--nodes", "19600", "--edges", "11000000", "--degree-spread", "40",
                   "--seed", "1"],
}
QUICK = {"tiny-30": ["--nodes", "30", "--edges", "90", "--seed", "1"]}


def run_one(path, out, engine, record):
    """Cluster label file `path` with netmcl on `engine`, write `out`, and the timings to `record`."""
    t0 = time.perf_counter()
    sys.path.insert(0, str(ROOT))
    import netmcl
    from netmcl.engines import get_engine

    times = {"import_s": time.perf_counter() - t0}
    if engine == "gpu":  # compile the kernels on a tiny graph first, to report it apart
        t = time.perf_counter()
        netmcl.mcl([("a", "b"), ("b", "c")], engine="gpu", attribute=None)
        times["compile_s"] = time.perf_counter() - t
    t = time.perf_counter()
    graph = netmcl.read_abc(path)
    times["read_s"] = time.perf_counter() - t
    t = time.perf_counter()
    eng = get_engine(engine)
    clustering = netmcl.mcl(graph, engine=eng, attribute=None)
    times["cluster_s"] = time.perf_counter() - t
    times["iterate_s"] = sum(s.seconds for s in clustering.stats)
    times["iterations"] = clustering.n_iterations
    times["phases"] = max(s.extra.get("phases", 1) for s in clustering.stats)
    if engine == "gpu":  # the limit's interpretation on the device (what mcl() used) against the host's
        from netmcl.interpret import interpret

        for where, find in (("device", lambda: eng.clusters("cut")),
                            ("host", lambda: interpret(eng.result(), overlap="cut"))):
            t, before = time.perf_counter(), eng.bytes_to_host
            found = [c.tolist() for c in find()]
            times[f"interpret_{where}_s"] = time.perf_counter() - t
            times[f"interpret_{where}_bytes"] = eng.bytes_to_host - before
            times.setdefault("interpretations", []).append(found)
        device, host = times.pop("interpretations")
        times["interpret_identical"] = device == host
    t = time.perf_counter()
    netmcl.write_clusters(out, clustering)
    times["write_s"] = time.perf_counter() - t
    Path(record).write_text(json.dumps(times))


def prepare(name, spec, inputs, dry):
    target = inputs / f"{name}.abc"
    if isinstance(spec, Path):
        cmd = f"zcat {spec} > {target}"
        if not dry and not target.exists():
            with gzip.open(spec, "rb") as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
    else:
        cmd = [sys.executable, str(GENERATOR), *spec, "-o", str(target)]
        if not dry and not target.exists():
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return target, cmd


def timed(cmd, env, timeout, log):
    t = time.perf_counter()
    try:
        with open(log, "w") as err:
            done = subprocess.run(cmd, env=env, stdout=err, stderr=subprocess.STDOUT, timeout=timeout)
        return time.perf_counter() - t, done.returncode
    except subprocess.TimeoutExpired:
        return time.perf_counter() - t, "timeout"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", nargs="?")
    parser.add_argument("--mcl", default=shutil.which("mcl"), help="the mcl program (default: on PATH)")
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--only", help="comma-separated inputs (default: all)")
    parser.add_argument("--quick", action="store_true", help="one 30-node graph (the simulator where no GPU)")
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per run")
    parser.add_argument("--deadline", type=float, default=None, help="skip runs that would start after this "
                        "many seconds from now")
    parser.add_argument("--run-one", nargs=4, metavar=("IN", "OUT", "ENGINE", "RECORD"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run_one:
        run_one(*args.run_one)
        return 0
    if not args.outdir:
        parser.error("OUTDIR is required")
    start = time.perf_counter()
    out = Path(args.outdir).resolve()
    inputs, runs = out / "inputs", out / "runs"
    for d in (inputs, runs):
        d.mkdir(parents=True, exist_ok=True)
    chosen = QUICK if args.quick else INPUTS
    if args.only:
        chosen = {k: v for k, v in chosen.items() if k in args.only.split(",")}
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    results = []
    for name, spec in chosen.items():
        if args.deadline is not None and time.perf_counter() - start > args.deadline:
            print(f"[{name}] skipped: past the deadline", flush=True)
            results.append({"input": name, "skipped": "deadline", "identical": True, "compared": []})
            continue
        path, made_by = prepare(name, spec, inputs, args.dry_run)
        print(f"[{name}] input: {made_by if isinstance(made_by, str) else ' '.join(made_by)}", flush=True)
        files = {}
        commands = {
            "mcl": [args.mcl or "mcl", str(path), "--abc", "-I", "2", "-te", str(args.threads), "-o",
                    str(runs / f"{name}.mcl.txt")],
            "cpu": [sys.executable, "-m", "netmcl", str(path), "--abc", "-I", "2", "-te", str(args.threads), "-o",
                    str(runs / f"{name}.cpu.txt")],
            "gpu": [sys.executable, str(Path(__file__).resolve()), "--run-one", str(path),
                    str(runs / f"{name}.gpu.txt"), "gpu", str(runs / f"{name}.gpu.json")],
        }
        row = {"input": name}
        for who, cmd in commands.items():
            files[who] = cmd[cmd.index("-o") + 1] if "-o" in cmd else cmd[-3]
            print(f"[{name}] {who}: {' '.join(cmd)}", flush=True)
            if args.dry_run:
                continue
            if who == "mcl" and not args.mcl:
                row["mcl_s"] = "no mcl"
                continue
            if args.deadline is not None and time.perf_counter() - start > args.deadline:
                row[f"{who}_s"] = "skipped (deadline)"
                continue
            seconds, code = timed(cmd, env, args.timeout, runs / f"{name}.{who}.log")
            row[f"{who}_s"] = round(seconds, 2) if code == 0 else f"failed ({code})"
            print(f"[{name}] {who}: {row[f'{who}_s']}", flush=True)
        if args.dry_run:
            continue
        record = runs / f"{name}.gpu.json"
        if record.exists():
            row["gpu_detail"] = json.loads(record.read_text())
        present = [w for w in ("mcl", "cpu", "gpu") if isinstance(row.get(f"{w}_s"), float)]
        row["identical"] = len(present) >= 2 and all(
            filecmp.cmp(files[present[0]], files[w], shallow=False) for w in present[1:])
        row["compared"] = present
        results.append(row)
    if args.dry_run:
        return 0
    (out / "results.json").write_text(json.dumps(results, indent=1))
    lines = [f"GPU engine against mcl -te {args.threads} and the CPU engine at {args.threads} threads, "
             "label file to cluster file, wall seconds of a fresh process (`benchmarks/gpu_bench.py`)", "",
             "| input | mcl | CPU engine | GPU engine | GPU: compile / read / iterate | files identical |",
             "|---|---|---|---|---|---|"]
    for r in results:
        if r.get("skipped"):
            lines.append(f"| {r['input']} | skipped ({r['skipped']}) | | | | |")
            continue
        d = r.get("gpu_detail", {})
        detail = (f"{d.get('compile_s', 0):.1f} / {d.get('read_s', 0):.1f} / {d.get('iterate_s', 0):.2f}"
                  if d else "-")
        lines.append(f"| {r['input']} | {r.get('mcl_s')} | {r.get('cpu_s')} | {r.get('gpu_s')} | {detail} | "
                     f"{'yes' if r['identical'] else 'NO'} ({', '.join(r['compared'])}) |")
    interpreted = [r for r in results if "interpret_device_s" in r.get("gpu_detail", {})]
    if interpreted:
        lines += ["", "The limit's interpretation on the device (the GPU engine's `clusters`, what the run used) "
                  "against the host's (`interpret` of the limit copied back), seconds and bytes copied to the host",
                  "", "| input | device | host (copy included) | bytes: device | bytes: host | same clusters |",
                  "|---|---|---|---|---|---|"]
        for r in interpreted:
            d = r["gpu_detail"]
            lines.append(f"| {r['input']} | {d['interpret_device_s']:.3f} | {d['interpret_host_s']:.3f} | "
                         f"{d['interpret_device_bytes']:,} | {d['interpret_host_bytes']:,} | "
                         f"{'yes' if d['interpret_identical'] else 'NO'} |")
    (out / "results.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 3.5))
        width = 0.27
        results = [r for r in results if not r.get("skipped")]
        for k, who in enumerate(("mcl", "cpu", "gpu")):
            xs = [i + (k - 1) * width for i, r in enumerate(results) if isinstance(r.get(f"{who}_s"), float)]
            ys = [r[f"{who}_s"] for r in results if isinstance(r.get(f"{who}_s"), float)]
            ax.bar(xs, ys, width, label={"mcl": f"mcl -te {args.threads}", "cpu": "netmcl CPU",
                                         "gpu": "netmcl GPU"}[who])
        ax.set_xticks(range(len(results)), [r["input"] for r in results])
        ax.set_ylabel("seconds, label file to clusters")
        ax.set_yscale("log")
        ax.legend()
        fig.tight_layout()
        fig.savefig(out / "times.png", dpi=120)
    except ImportError:
        pass
    return 0 if all(r["identical"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
