#!/usr/bin/env python
"""``--max-memory`` on the medium inputs: the process's peak against the budget, and mcl's clusters.

For each input and thread count, every run a fresh child measured by GNU
time (``run_benchmarks.measure``):

1. ``mcl FILE --abc -I 2 -te T -o OUT``: the reference clusters and its peak;
2. netmcl without a budget: its peak, U;
3. netmcl under each ``--fractions`` of U (default 0.7 and 0.9): its peak
   against the budget, whether it ran to the end, and where it failed: after
   how many seconds, how many iterations logged, whether any column of the
   failing iteration had been computed;
4. where that failed, netmcl again under the budget its error named (the
   first retry): its peak against that budget and the most phases an
   iteration took.

Every cluster file written is compared with mcl's, byte for byte.  The
figures go to stdout and ``benchmarks/work/results/budget.json``; with
``--markdown FILE``, a table to that file.

Examples
--------
python benchmarks/budget_bench.py                        # krogan, combined, bionev-string, gen-10k at 1 thread
python benchmarks/budget_bench.py --only krogan --threads 1,2 --fractions 0.7
python benchmarks/budget_bench.py --from-json benchmarks/work/results/budget.json --markdown benchmarks/budget_results.md
"""

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run_benchmarks as rb  # noqa: E402  (the harness's inputs, measurement and machine description)

INPUTS = ("krogan", "combined", "bionev-string", "gen-10k")
SUGGESTED = re.compile(r"Raise max_memory \(to (\S+) (\S+) at least")
MIB = 1 << 20


def netmcl(path, out, threads, budget=None):
    cmd = [sys.executable, "-m", "netmcl", str(path), "--abc", "-I", "2", "-te", str(threads), "-v", "all",
           "-o", str(out)]
    return cmd + (["--max-memory", budget] if budget is not None else [])


def run(cmd, log, timeout):
    m = rb.measure(cmd, log_path=log, timeout=timeout, kill_above_bytes=16 << 30, env=rb.child_env(1))
    text = Path(log).read_text(errors="replace")
    phases = [int(p) for p in re.findall(r" in (\d+) phases", text)]
    named = SUGGESTED.search(text)
    return {
        "status": m.status, "wall_s": round(m.wall_s, 2), "peak_mib": round(m.peak_rss_mb, 1),
        "iterations": len(re.findall(r"\] iteration \d+:", text)), "phases": max(phases, default=1),
        "no_column": "No column of it has been computed" in text,
        "named": None if named is None else f"{named[1]}{named[2][0]}",
        "error": next((line for line in text.splitlines() if line.startswith("netmcl: error")), "")[:300],
    }


def same(out, ref):
    return Path(out).exists() and Path(out).read_bytes() == Path(ref).read_bytes()


def bench(name, threads, fractions, args, work):
    path, meta = rb.prepare(rb.BY_NAME[name], shared=args.shared, refresh=False, timeout=args.timeout,
                            kill_above_bytes=16 << 30)
    tag = f"{name}.te{threads}"
    ref = work / f"{tag}.mcl"
    row = {"input": name, "nodes": meta["nodes"], "edges": meta["edges"], "threads": threads}
    m = rb.measure([args.mcl, str(path), "--abc", "-I", "2", "-te", str(threads), "-o", str(ref)],
                   log_path=work / f"{tag}.mcl.log", timeout=args.timeout, kill_above_bytes=16 << 30)
    row["mcl"] = {"status": m.status, "wall_s": round(m.wall_s, 2), "peak_mib": round(m.peak_rss_mb, 1)}
    free = run(netmcl(path, work / f"{tag}.free", threads), work / f"{tag}.free.log", args.timeout)
    free["same_as_mcl"] = same(work / f"{tag}.free", ref)
    row["free"] = free
    row["budgets"] = []
    for fraction in fractions:
        budget_mib = round(fraction * free["peak_mib"], 1)
        out = work / f"{tag}.b{fraction}"
        out.unlink(missing_ok=True)
        tried = run(netmcl(path, out, threads, f"{budget_mib}M"), work / f"{tag}.b{fraction}.log", args.timeout)
        tried.update(fraction=fraction, budget_mib=budget_mib, ratio=round(tried["peak_mib"] / budget_mib, 3),
                     same_as_mcl=same(out, ref) if tried["status"] == "ok" else None)
        if tried["status"] != "ok" and tried["named"]:
            again = work / f"{tag}.b{fraction}.retry"
            again.unlink(missing_ok=True)
            retry = run(netmcl(path, again, threads, tried["named"]), work / f"{tag}.b{fraction}.retry.log",
                        args.timeout)
            named_mib = _mib(tried["named"])
            retry.update(budget_mib=round(named_mib, 1), ratio=round(retry["peak_mib"] / named_mib, 3),
                         same_as_mcl=same(again, ref) if retry["status"] == "ok" else None)
            tried["retry"] = retry
        row["budgets"].append(tried)
        print(json.dumps({"input": name, "threads": threads, **{k: tried[k] for k in (
            "fraction", "budget_mib", "status", "peak_mib", "ratio", "wall_s", "iterations", "no_column", "named")},
            "retry": tried.get("retry")}), flush=True)
    return row


def _mib(size):
    """MiB of a size as the command line reads it."""
    sys.path.insert(0, str(rb.REPO))
    from netmcl.engines.cpu.engine import parse_memory

    return parse_memory(size) / MIB


def markdown(rows, context):
    lines = [
        f"Machine: {context['machine']['cpu']}, {context['machine']['usable_cpus']} usable CPUs "
        f"(`nproc` {context['nproc']}), {context['machine']['ram_gb']} GB; {context['date']}; "
        f"commit {context['commit']}.",
        f"Command: `{context['command']}`. Peaks: GNU time's maximum resident set, MiB. A budget is a fraction "
        "of netmcl's unbudgeted peak; where netmcl refuses it, the budget its error names is tried once.",
        "",
        "| input | -te | mcl peak | netmcl, no budget | budget | result | peak / budget | named budget "
        "| first retry | peak / named | phases | = mcl |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        free = row["free"]
        for b in row["budgets"]:
            if b["status"] == "ok":
                result = f"ran, {b['wall_s']:.1f} s"
            else:
                where = ("before any column of iteration " if b["no_column"] else "in iteration ") + str(
                    b["iterations"] + 1)
                result = f"refused {where}, after {b['wall_s']:.1f} s"
            r = b.get("retry")
            retried = "–" if r is None else (f"ran, {r['wall_s']:.1f} s" if r["status"] == "ok" else "**failed**")
            equal = b["same_as_mcl"] if r is None else r["same_as_mcl"]
            lines.append(
                f"| {row['input']} | {row['threads']} | {row['mcl']['peak_mib']:.1f} | {free['peak_mib']:.1f}, "
                f"{free['wall_s']:.1f} s ({'= mcl' if free['same_as_mcl'] else '**≠ mcl**'}) | {b['budget_mib']:.1f} ({b['fraction']}×) "
                f"| {result} | {b['ratio']:.3f} | {b['named'] or '–'} | {retried} "
                f"| {'–' if r is None else format(r['ratio'], '.3f')} "
                f"| {(b if r is None else r)['phases']} | {'–' if equal is None else ('yes' if equal else '**no**')} |"
            )
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(INPUTS), help="comma-separated inputs (run_benchmarks names)")
    parser.add_argument("--threads", default="1", help="comma-separated thread counts")
    parser.add_argument("--fractions", type=float, nargs="+", default=[0.7, 0.9],
                        help="budgets as fractions of the unbudgeted peak")
    parser.add_argument("--shared", default=str(rb.REPO.parent / "shared" / "datasets"))
    parser.add_argument("--mcl", default="mcl")
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--markdown", help="write the table to this file")
    parser.add_argument("--from-json", help="run nothing: the table of a run's budget.json")
    args = parser.parse_args(argv)
    if args.from_json:
        record = json.loads(Path(args.from_json).read_text())
        table = markdown(record["rows"], record["context"])
        print(table)
        if args.markdown:
            Path(args.markdown).write_text(table)
        return 0
    work = rb.WORK / "budget"
    work.mkdir(parents=True, exist_ok=True)
    rows = [bench(name, int(t), args.fractions, args, work)
            for name in args.only.split(",") for t in args.threads.split(",")]
    context = {
        "machine": rb.machine_info(), "nproc": subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": rb.git_state(), "command": " ".join(["python", "benchmarks/budget_bench.py", *(argv or sys.argv[1:])]),
    }
    (rb.WORK / "results").mkdir(parents=True, exist_ok=True)
    (rb.WORK / "results" / "budget.json").write_text(json.dumps({"context": context, "rows": rows}, indent=1))
    table = markdown(rows, context)
    print(table)
    if args.markdown:
        Path(args.markdown).write_text(table)


if __name__ == "__main__":
    sys.exit(main())
