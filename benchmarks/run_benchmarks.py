#!/usr/bin/env python
"""netmcl against mcl (and markov_clustering), end to end, on the same inputs in the same run.

Every measured run is one fresh child process that reads a label (ABC) file
from disk and writes a clustering file:

* ``mcl FILE --abc -I 2 -te T -o OUT``
* ``netmcl FILE --abc -I 2 -te T -o OUT``
* ``python benchmarks/markov_clustering_driver.py FILE -I 2 -o OUT`` (threads 1
  only: it has no thread setting), skipped after it fails to finish once.

Runs are interleaved (mcl, netmcl, markov_clustering, then the next
repetition with the order of mcl and netmcl swapped) so drift of a shared
machine hits every engine alike.  Wall time is ``time.perf_counter`` around the
child, CPU time comes from ``os.wait4`` of that child (Linux) and its peak
resident memory from GNU time, which starts it (``ru_maxrss`` of a child of
this process is never below this process's own size; see `_gnu_time`).
netmcl is started through the console script beside this interpreter.  A watchdog kills a child that runs past ``--timeout`` or grows past
``--kill-above`` GB and records "did not finish".  Cluster files are compared
with mcl's at the same thread count: identical bytes, and identical sets of
clusters; markov_clustering, which prunes differently, gets the fraction of
mcl's clusters it reproduces exactly.

The inputs are prepared into ``benchmarks/work/inputs`` (git-ignored) on first
use and reused while their recipe is unchanged: generated community graphs
(``generate_graphs.py``, seeded), the bundled Collins 2007 network, and the
large real networks in ``../shared/datasets`` (``--shared``).

The results go to ``benchmarks/RESULTS.md``, one section per run name
(``--section``; a section with the same name is replaced), with the machine,
date, commit and exact commands; the raw measurements go to
``benchmarks/work/results/<section>.json``.

Examples
--------
python benchmarks/run_benchmarks.py --sizes small
python benchmarks/run_benchmarks.py --only krogan,collins --threads 1,2 --repeats 3
python benchmarks/run_benchmarks.py --huge --dry-run
"""

import argparse
import datetime
import gzip
import hashlib
import importlib.metadata
import json
import math
import os
import platform
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / "work"
INPUTS = WORK / "inputs"
GENERATOR = HERE / "generate_graphs.py"
MC_DRIVER = HERE / "markov_clustering_driver.py"
BUNDLED_COLLINS = REPO / "netmcl" / "datasets" / "data" / "collins2007.txt.gz"

ENGINES = ("mcl", "netmcl", "markov_clustering")
SIZES = ("small", "medium", "all")
#: mmseqs2 e-value 0 (and anything stronger) becomes this weight, as with mcl's
#: ``--abc-neg-log10 -abc-tf 'ceil(200)'``.
EVALUE_WEIGHT_CAP = 200.0
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


@dataclass
class Dataset:
    """One benchmark input.  ``generator`` holds generate_graphs.py arguments;
    otherwise ``source`` (relative to the shared datasets directory, or
    absolute) is decompressed, or converted by ``convert``.  ``timeout``: the
    seconds a run may take where ``--timeout`` is not given (the longest of the
    inputs selected counts for every run)."""

    name: str
    size: str
    description: str
    generator: list = field(default_factory=list)
    source: str = ""
    convert: str = "decompress"
    timeout: float = 600.0


DATASETS = [
    Dataset("gen-1k", "small", "generated communities, 1k nodes / 10k edges",
            generator=["--nodes", "1000", "--edges", "10000", "--seed", "1"]),
    Dataset("collins", "small", "Collins 2007 yeast PPI (bundled with netmcl)",
            source=str(BUNDLED_COLLINS)),
    Dataset("gen-10k", "medium", "generated communities, 10k nodes / 200k edges",
            generator=["--nodes", "10000", "--edges", "200000", "--seed", "1"]),
    Dataset("krogan", "medium", "ProCope PE Krogan yeast PPI (454k edges)",
            source="yeast_ppi/procope_pe_krogan.txt.gz"),
    Dataset("combined", "medium", "ProCope PE combined yeast PPI (402k edges)",
            source="yeast_ppi/procope_pe_combined.txt.gz"),
    Dataset("bionev-string", "medium", "BioNEV STRING human PPI, unweighted (360k edges)",
            source="human_ppi/bionev_STRING_PPI.edgelist.gz"),
    Dataset("mmseqs2", "medium", "mmseqs2 all-vs-all of 20k UniProt sequences, "
            "weight -log10(e-value) capped at 200 (318k pairs)",
            source="derived/mmseqs2_uniprot20k_allvsall_e1e-5.m8.gz", convert="m8"),
    Dataset("string-5k", "medium", "generated dense STRING-like, 5k nodes / 1M edges, scores 150..999",
            generator=["--dense-string", "--seed", "1"]),
    Dataset("gen-50k", "all", "generated communities, 50k nodes / 1M edges",
            generator=["--nodes", "50000", "--edges", "1000000", "--seed", "1"]),
    Dataset("gen-200k", "all", "generated communities, 200k nodes / 4M edges",
            generator=["--nodes", "200000", "--edges", "4000000", "--seed", "1"],
            timeout=3000.0),  # mcl at 1 thread: 766-936 s on the 2-core hosts
    Dataset("gen-1m", "huge", "generated communities, 1M nodes / 20M edges (netmcl --max-memory 16G)",
            generator=["--nodes", "1000000", "--edges", "20000000", "--seed", "1"], timeout=14400.0),
]
BY_NAME = {d.name: d for d in DATASETS}


# --------------------------------------------------------------------------- running children


@dataclass
class Measurement:
    status: str  # ok | failed | timeout | memory
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    returncode: int
    log: str


def _rss_bytes(pid):
    """Resident bytes of process `pid` and its children (GNU time's command)."""
    total = 0
    try:
        with open(f"/proc/{pid}/statm") as handle:
            total = int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            children = [int(c) for c in handle.read().split()]
    except (OSError, IndexError, ValueError):
        return total
    return total + sum(_rss_bytes(c) for c in children)


def _gnu_time():
    """The path of GNU time, or None.

    A child's own ``ru_maxrss`` is no measure of its peak when it is started
    by this (Python) process: the kernel records the resident size of the
    forked copy of the parent when the child calls exec, so every child
    seems to take at least this harness's 25-30 MB.  GNU time forks its
    command from a process of about 2 MB and reports that command's peak.
    """
    path = shutil.which("time") or ("/usr/bin/time" if os.path.exists("/usr/bin/time") else None)
    if path is None:
        return None
    try:
        banner = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return path if "GNU" in banner.stdout + banner.stderr else None


GNU_TIME = _gnu_time()


def _peak_from_time(path):
    """Peak resident MB from the file GNU time wrote with ``-f %M`` (last line), or None."""
    try:
        words = Path(path).read_text().split()  # "Command exited with non-zero status N" may come first
        return int(words[-1]) / 1024.0
    except (OSError, IndexError, ValueError):
        return None
    finally:
        Path(path).unlink(missing_ok=True)


def measure(cmd, *, log_path, timeout, kill_above_bytes, env=None):
    """Run ``cmd`` as one child; wall time, CPU time and peak RSS of that child.

    The peak is the one GNU time reports (see `_gnu_time`); without GNU time
    it is the child's ``ru_maxrss``, which is never below this harness's own
    resident size.  A watchdog sends SIGKILL to the child's process group
    when it runs past ``timeout`` seconds or its resident memory passes
    ``kill_above_bytes``.
    """
    verdict = []
    done = threading.Event()
    peak_file = Path(str(log_path) + ".peak")
    if GNU_TIME:
        cmd = [GNU_TIME, "-f", "%M", "-o", str(peak_file), "--", *cmd]
    with open(log_path, "wb") as log:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=REPO, start_new_session=True)

        def watchdog():
            while not done.wait(0.2):
                if time.perf_counter() - start > timeout:
                    verdict.append("timeout")
                elif _rss_bytes(proc.pid) > kill_above_bytes:
                    verdict.append("memory")
                else:
                    continue
                os.killpg(proc.pid, signal.SIGKILL)
                return

        guard = threading.Thread(target=watchdog, daemon=True)
        guard.start()
        os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)  # ended, not reaped: its group id stays ours
        wall = time.perf_counter() - start
        done.set()
        guard.join()
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    state = verdict[0] if verdict else ("ok" if proc.returncode == 0 else "failed")
    peak = _peak_from_time(peak_file) if GNU_TIME else None
    return Measurement(state, wall, usage.ru_utime + usage.ru_stime, peak if peak is not None else usage.ru_maxrss / 1024.0,
                       proc.returncode, str(log_path))


def last_line(path, limit=160):
    try:
        lines = [x for x in Path(path).read_text(errors="replace").splitlines() if x.strip()]
    except OSError:
        return ""
    return lines[-1][:limit] if lines else ""


# --------------------------------------------------------------------------- inputs


def _sha256(path, chunk=1 << 20):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(chunk), b""):
            digest.update(block)
    return digest.hexdigest()


def _source_path(dataset, shared):
    path = Path(dataset.source)
    return path if path.is_absolute() else Path(shared) / path


def recipe(dataset, shared):
    """What the prepared file depends on; a change triggers re-preparation."""
    if dataset.generator:
        return {"generator": dataset.generator, "generator_sha256": _sha256(GENERATOR)}
    src = _source_path(dataset, shared)
    return {"source": str(src), "source_bytes": src.stat().st_size, "convert": dataset.convert,
            "cap": EVALUE_WEIGHT_CAP if dataset.convert == "m8" else None}


def _count_abc(path):
    labels, lines = set(), 0
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            fields = line.split("\t") if "\t" in line else line.split()
            if len(fields) >= 2 and not line.lstrip().startswith("#"):
                labels.add(fields[0])
                labels.add(fields[1].strip())
                lines += 1
    return len(labels), lines


def _convert_m8(src, dst):
    """BLAST/mmseqs m8 (query target evalue ...) -> ``query TAB target TAB w``,
    w = -log10(evalue), capped at EVALUE_WEIGHT_CAP (e-value 0 -> the cap)."""
    with gzip.open(src, "rt") as inp, open(dst, "w") as out:
        for line in inp:
            query, target, evalue = line.split("\t")[:3]
            e = float(evalue)
            weight = EVALUE_WEIGHT_CAP if e <= 0 else min(-math.log10(e), EVALUE_WEIGHT_CAP)
            out.write(f"{query}\t{target}\t{weight:.6g}\n")


def prepare(dataset, *, shared, refresh, timeout, kill_above_bytes):
    """The ABC file of ``dataset`` under benchmarks/work/inputs, and its metadata."""
    INPUTS.mkdir(parents=True, exist_ok=True)
    path = INPUTS / f"{dataset.name}.abc"
    meta_path = INPUTS / f"{dataset.name}.json"
    want = recipe(dataset, shared)
    if path.exists() and meta_path.exists() and not refresh:
        meta = json.loads(meta_path.read_text())
        if meta.get("recipe") == want:
            return path, meta
    tmp = path.with_name(path.name + ".tmp")
    meta = {"recipe": want}
    if dataset.generator:
        cmd = [sys.executable, str(GENERATOR), *dataset.generator, "-o", str(tmp)]
        log = INPUTS / f"{dataset.name}.generate.log"
        m = measure(cmd, log_path=log, timeout=timeout, kill_above_bytes=kill_above_bytes)
        if m.status != "ok":
            raise SystemExit(f"Generating {dataset.name} failed ({m.status}): {last_line(log)}")
        info = json.loads(last_line(log, limit=10_000))
        meta.update(nodes=info["nodes_with_edges"], edges=info["edges"], communities=info["communities"],
                    command=_display([sys.executable, GENERATOR, *dataset.generator, "-o", path]),
                    prepare_wall_s=round(m.wall_s, 2), prepare_peak_rss_mb=round(m.peak_rss_mb))
    else:
        src = _source_path(dataset, shared)
        started = time.perf_counter()
        if dataset.convert == "m8":
            _convert_m8(src, tmp)
        else:
            with gzip.open(src, "rb") as inp, open(tmp, "wb") as out:
                shutil.copyfileobj(inp, out, 1 << 20)
        nodes, lines = _count_abc(tmp)
        meta.update(nodes=nodes, edges=lines, prepare_wall_s=round(time.perf_counter() - started, 2))
    os.replace(tmp, path)
    meta["sha256"] = _sha256(path)
    meta_path.write_text(json.dumps(meta, indent=1))
    return path, meta


# --------------------------------------------------------------------------- engines and clusters


def engine_command(engine, input_path, output_path, threads, args):
    if engine == "mcl":
        return [args.mcl, str(input_path), "--abc", "-I", "2", "-te", str(threads), "-o", str(output_path)]
    if engine == "netmcl":
        return [*args.netmcl_cmd, str(input_path), "--abc", "-I", "2", "-te", str(threads),
                "-o", str(output_path), *args.netmcl_args]
    return [sys.executable, str(MC_DRIVER), str(input_path), "-I", "2", "-o", str(output_path)]


def read_clusters(path):
    with open(path, encoding="utf-8", errors="replace") as handle:
        return [tuple(line.rstrip("\n").split("\t")) for line in handle if line.strip()]


def compare(path, reference):
    """(identical bytes, identical sets of clusters, fraction of the reference's clusters found)."""
    if path is None or reference is None:
        return None
    mine, theirs = read_clusters(path), read_clusters(reference)
    mine_sets = {frozenset(c) for c in mine}
    theirs_sets = {frozenset(c) for c in theirs}
    same_bytes = Path(path).read_bytes() == Path(reference).read_bytes()
    found = len(mine_sets & theirs_sets) / len(theirs_sets) if theirs_sets else 1.0
    return {"bytes": same_bytes, "sets": mine_sets == theirs_sets and len(mine) == len(theirs),
            "found": found, "clusters": len(mine)}


def _display(cmd):
    """A command as text: paths relative to the repository, this interpreter as ``python``
    and its console script as ``netmcl``."""
    names = {sys.executable: "python", str(Path(sys.executable).parent / "netmcl"): "netmcl"}
    shown = []
    for part in cmd:
        text = names.get(str(part), str(part))
        if text.startswith(str(REPO) + os.sep):
            text = os.path.relpath(text, REPO)
        shown.append(text)
    return shlex.join(shown)


# --------------------------------------------------------------------------- the run


def netmcl_python(cmd):
    """How to run Python code as the netmcl command `cmd` runs netmcl: a function of the code giving
    the command; None where that cannot be told (a shim, a wrapper script).

    ``PYTHON -m netmcl``: ``PYTHON -c CODE``, both started in the same directory, which both put first
    on ``sys.path``.  A console script: the interpreter on its ``#!`` line, with the script's directory
    first on ``sys.path``, as the script has it (``-c`` would put the working directory there, where
    the harness runs: the repository, whose netmcl may not be the one installed).
    """
    if cmd[1:3] == ["-m", "netmcl"]:
        return lambda code: [cmd[0], "-c", code]
    script = shutil.which(cmd[0])
    if script:
        with open(script, "rb") as f:
            line = f.readline(4096)
        if line.startswith(b"#!") and b"python" in line:
            python = shlex.split(line[2:].decode(errors="replace"))
            first = str(Path(script).resolve().parent)
            return lambda code: [*python, "-c", f"import sys; sys.path[0] = {first!r}; {code}"]
    return None


#: run by netmcl's interpreter: write netmcl's bytecode where it is missing, as ``pip install .`` does
#: when it installs (an editable install writes it on the first import, except where
#: PYTHONDONTWRITEBYTECODE is set: then every netmcl process compiles netmcl's modules again, about
#: 30 ms that no installed copy pays); fails where it cannot write (a read-only site-packages, which
#: has its bytecode already)
_BYTE_COMPILE = ("import compileall, importlib.util, pathlib, sys; "
                 "package = pathlib.Path(importlib.util.find_spec('netmcl').origin).parent; print(package); "
                 "sys.exit(not compileall.compile_dir(str(package), quiet=1))")
#: run by netmcl's interpreter: load every compiled kernel, building those missing, among them the
#: ones for int32 rows (more than 262,144 nodes), which a run builds the first time it needs one
_LOAD_KERNELS = "from netmcl.engines.cpu._compiled import KERNELS, kernels; K = kernels(); [getattr(K, n) for n in KERNELS]"


def warm_up(args, log, kill_above_bytes):
    """Untimed first netmcl runs (on a new machine they build the compiled kernels), and the cost of
    importing netmcl alone: {label: Measurement}.  The byte-compiling, the kernels' load and the import
    run in the interpreter that `--netmcl-cmd` runs, not necessarily this one."""
    small, _ = prepare(BY_NAME["gen-1k"], shared=args.shared, refresh=False, timeout=args.timeout,
                       kill_above_bytes=kill_above_bytes)
    out = WORK / "out" / "warmup.clusters"
    out.parent.mkdir(parents=True, exist_ok=True)
    found = {}
    python = netmcl_python(args.netmcl_cmd)
    if python is None:
        log(f"warm-up: cannot tell which Python `{_display(args.netmcl_cmd)}` runs: netmcl's figures may include "
            "compiling its modules, and on graphs of more than 262,144 nodes building kernels")
    else:
        m = measure(python(_BYTE_COMPILE), log_path=out.with_suffix(".compileall.log"),
                    timeout=args.timeout, kill_above_bytes=kill_above_bytes)
        package = _display((Path(m.log).read_text(errors="replace").splitlines() or ["netmcl"])[:1])
        log(f"warm-up: byte-compiled {package} (as `pip install .` does)" if m.status == "ok" else
            f"warm-up: could not byte-compile {package}; netmcl's figures may include compiling its modules")
        found["every kernel loaded (built where missing)"] = measure(
            python(_LOAD_KERNELS), log_path=out.with_suffix(".kernels.log"), timeout=args.timeout,
            kill_above_bytes=kill_above_bytes)
    for threads in args.threads:
        cmd = engine_command("netmcl", small, out, threads, args)
        m = measure(cmd, log_path=out.with_suffix(".log"), timeout=args.timeout,
                    kill_above_bytes=kill_above_bytes, env=child_env(threads))
        if m.status != "ok":
            raise SystemExit(f"netmcl does not run ({m.status}): {last_line(m.log)}\ncommand: {_display(cmd)}")
        found[f"first run, te {threads}"] = m
    if python is not None:
        # with one BLAS thread, as netmcl's programs load numpy (netmcl/_blas.py) and a `-c` command does
        # not: OpenBLAS would start a thread per core, which spin while numpy loads
        found["`python -c 'import netmcl.cli'` alone"] = measure(
            python("import netmcl.cli"), log_path=out.with_suffix(".import.log"),
            timeout=args.timeout, kill_above_bytes=kill_above_bytes, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    for label, m in found.items():
        log(f"warm-up: {label}: {m.wall_s:.2f} s, {m.peak_rss_mb:.0f} MB")
    return found


def child_env(threads):
    env = dict(os.environ)
    for name in THREAD_VARIABLES:
        env[name] = str(threads)
    return env


def run_dataset(dataset, path, args, runs, log):
    """Interleaved repetitions of every engine at every thread count on one input."""
    out_dir = WORK / "out" / dataset.name
    out_dir.mkdir(parents=True, exist_ok=True)
    dead = set()
    for threads in args.threads:
        engines = [e for e in args.engines if e != "markov_clustering" or threads == 1]
        for rep in range(args.repeats):
            order = engines if rep % 2 == 0 else [*engines[:2][::-1], *engines[2:]]
            for engine in order:
                if engine in dead:
                    continue
                out = out_dir / f"{engine}.te{threads}.rep{rep}.clusters"
                cmd = engine_command(engine, path, out, threads, args)
                m = measure(cmd, log_path=out.with_suffix(".log"), timeout=args.timeout,
                            kill_above_bytes=args.kill_above * 2**30, env=child_env(threads))
                record = {"input": dataset.name, "engine": engine, "threads": threads, "rep": rep,
                          "command": _display(cmd), **m.__dict__}
                if m.status == "ok" and not out.exists():
                    record["status"] = "failed"
                if record["status"] == "ok":
                    record["output"] = str(out)
                    record["output_sha256"] = _sha256(out)
                else:
                    record["error"] = _failure_text(record["status"], m, args)
                    if engine == "markov_clustering":
                        dead.add(engine)
                runs.append(record)
                log(f"  {dataset.name:14s} te{threads} rep{rep} {engine:17s} {m.status:7s} "
                    f"{m.wall_s:8.2f} s {m.peak_rss_mb:8.0f} MB cpu {m.cpu_s:8.2f} s")


def _failure_text(status, m, args):
    if status == "timeout":
        return f"did not finish in {args.timeout:g} s"
    if status == "memory":
        return f"memory blow-up: killed above {args.kill_above:g} GB"
    return f"exit status {m.returncode}: {last_line(m.log) or 'no output file'}"


def summarise(runs):
    """One row per (input, threads, engine): medians, ratios to mcl, comparisons."""
    groups = {}
    for r in runs:
        groups.setdefault((r["input"], r["threads"], r["engine"]), []).append(r)
    rows = []
    for (name, threads, engine), group in groups.items():
        ok = [r for r in group if r["status"] == "ok"]
        row = {"input": name, "threads": threads, "engine": engine, "runs": len(group), "ok": len(ok),
               "walls": [round(r["wall_s"], 2) for r in ok],
               "failure": next((r["error"] for r in group if r["status"] != "ok"), None),
               "stable": len({r.get("output_sha256") for r in ok}) <= 1}
        if ok:
            row["wall_s"] = statistics.median(r["wall_s"] for r in ok)
            row["cpu_s"] = statistics.median(r["cpu_s"] for r in ok)
            row["peak_rss_mb"] = max(r["peak_rss_mb"] for r in ok)
            row["output"] = ok[0]["output"]
        rows.append(row)
    index = {(r["input"], r["threads"], r["engine"]): r for r in rows}
    for row in rows:
        ref = index.get((row["input"], row["threads"], "mcl"))
        if row["engine"] == "mcl" or not ref or "wall_s" not in ref or "wall_s" not in row:
            continue
        row["time_ratio"] = row["wall_s"] / ref["wall_s"]
        row["mem_ratio"] = row["peak_rss_mb"] / ref["peak_rss_mb"]
        row["cpu_ratio"] = row["cpu_s"] / ref["cpu_s"]
        row["vs_mcl"] = compare(row.get("output"), ref.get("output"))
        pairs = _pair_ratios(runs, row, ref)
        if pairs:
            row["pair_ratios"] = pairs
    return rows


def thread_consistency(runs):
    """engine -> inputs whose output differs between thread counts."""
    outputs = {}
    for r in runs:
        if r["status"] == "ok":
            outputs.setdefault((r["engine"], r["input"]), set()).add(r["output_sha256"])
    differ = {}
    for (engine, name), digests in outputs.items():
        differ.setdefault(engine, [])
        if len(digests) > 1:
            differ[engine].append(name)
    return differ


def _pair_ratios(runs, row, ref):
    """netmcl/mcl wall-time ratio of each interleaved repetition."""
    def walls(engine, threads):
        return {r["rep"]: r["wall_s"] for r in runs if r["input"] == row["input"] and r["engine"] == engine
                and r["threads"] == threads and r["status"] == "ok"}
    mine, theirs = walls(row["engine"], row["threads"]), walls("mcl", ref["threads"])
    return [round(mine[k] / theirs[k], 3) for k in sorted(mine) if k in theirs]


# --------------------------------------------------------------------------- report


def machine_info():
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem = next(x for x in Path("/proc/meminfo").read_text().splitlines() if x.startswith("MemTotal"))
        ram_gb = int(mem.split()[1]) / 2**20
    except (OSError, StopIteration):
        ram_gb = float("nan")
    return {"cpu": cpu, "logical_cpus": os.cpu_count(), "usable_cpus": len(os.sched_getaffinity(0)),
            "ram_gb": round(ram_gb, 1), "platform": platform.platform(), "python": platform.python_version()}


def _run_text(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=60, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def versions(args):
    found = {"mcl": (_run_text([args.mcl, "--version"]).splitlines() or ["not found"])[0]}
    for package in ("netmcl", "numpy", "scipy", "numba", "markov_clustering"):
        try:
            found[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            found[package] = "not installed"
    return found


def git_state():
    """Short commit, and how many files that shape the figures (the package, the
    benchmarks, pyproject.toml) differ from it, untracked ones included."""
    commit = _run_text(["git", "rev-parse", "--short", "HEAD"]) or "unknown"
    changed = _run_text(["git", "status", "--porcelain", "--", "netmcl", "benchmarks", "pyproject.toml"])
    count = len(changed.splitlines())
    return commit + (f" (dirty: {count} changed or untracked files in netmcl/, benchmarks/, pyproject.toml)"
                     if count else "")


def _fmt(value, spec, missing="–"):
    return missing if value is None else format(value, spec)


def _mark(ok):
    return "yes" if ok else "**no**"


def render_section(name, context, inputs, rows, warmups, consistency):
    lines = [f"<!-- section: {name} -->", f"## {name}", ""]
    m = context["machine"]
    lines += [
        f"- Date: {context['date']}",
        f"- Commit: {context['commit']}",
        (f"- Machine: {m['cpu']}, {m['logical_cpus']} logical CPUs ({m['usable_cpus']} usable), "
         f"{m['ram_gb']} GB RAM, {m['platform']}, Python {m['python']}"),
        f"- Load average at start / end: {context['load_start']} / {context['load_end']}",
        "- Versions: " + ", ".join(f"{k} {v}" for k, v in context["versions"].items()),
        (f"- Harness: `{context['command']}` ({context['repeats']} repetitions, interleaved; "
         f"timeout {context['timeout']} s; children killed above {context['kill_above']} GB)"),
    ]
    lines += [f"- Note: {note}" for note in context["notes"]]
    lines += ["", (f"Commands (INPUT, OUT and T filled in per row; thread variables "
                   f"{', '.join(THREAD_VARIABLES)} set to T):"), ""]
    lines += [f"- {engine}: `{template}`" for engine, template in context["templates"].items()]
    if warmups:
        lines += ["", "Not in the medians (netmcl's modules byte-compiled, as an installed copy is; netmcl on gen-1k "
                  "before the timed runs, building the compiled kernels where they are not yet; "
                  "and the start-up cost inside every netmcl run): "
                  + "; ".join(f"{label}: {m.wall_s:.2f} s, {m.peak_rss_mb:.0f} MB peak" for label, m in warmups.items())]
    lines += ["", "| input | nodes | lines | description | prepared in |", "|---|---:|---:|---|---|"]
    for name_, meta, desc in inputs:
        prep = f"{meta.get('prepare_wall_s', '?')} s"
        if "prepare_peak_rss_mb" in meta:
            prep += f", {meta['prepare_peak_rss_mb']} MB peak"
        lines.append(f"| {name_} | {meta['nodes']:,} | {meta['edges']:,} | {desc} | {prep} |")
    lines += ["", ("| input | T | engine | wall s (median) | runs s | ×mcl (pairs) | CPU s (×mcl) | peak RSS MB | "
                   "×mcl | clusters | same as mcl |"), "|---|---:|---|---:|---|---|---:|---:|---:|---:|---|"]
    for row in rows:
        if "wall_s" not in row:
            lines.append(f"| {row['input']} | {row['threads']} | {row['engine']} | – "
                         f"| {row['failure']} | | | | | | |")
            continue
        pairs = row.get("pair_ratios")
        ratio = _fmt(row.get("time_ratio"), ".2f")
        if pairs and len(pairs) > 1:
            ratio += f" ({min(pairs):.2f}–{max(pairs):.2f})"
        same = "(reference)" if row["engine"] == "mcl" else "–"
        cmp_ = row.get("vs_mcl")
        if cmp_ and row["engine"] == "markov_clustering":
            same = f"{cmp_['found']:.0%} of mcl's clusters"
        elif cmp_:
            same = f"bytes {_mark(cmp_['bytes'])}, sets {_mark(cmp_['sets'])}"
            if not cmp_["sets"]:
                same += f" ({cmp_['found']:.1%} of mcl's clusters)"
        if not row["stable"]:
            same += "; **outputs differ between repetitions**"
        if row["ok"] < row["runs"]:
            same += f"; {row['runs'] - row['ok']} run(s) failed: {row['failure']}"
        clusters = len(read_clusters(row["output"]))
        cpu = f"{row['cpu_s']:.2f}" + (f" ({row['cpu_ratio']:.2f})" if "cpu_ratio" in row else "")
        lines.append(
            f"| {row['input']} | {row['threads']} | {row['engine']} | {row['wall_s']:.2f} | "
            f"{' '.join(f'{w:.2f}' for w in row['walls'])} | {ratio} | {cpu} | "
            f"{row['peak_rss_mb']:.0f} | {_fmt(row.get('mem_ratio'), '.2f')} | {clusters:,} | {same} |")
    if len(context["threads"]) > 1:
        lines += ["", "Same cluster file at every thread count and repetition: " + "; ".join(
            f"{engine}: " + ("yes" if not bad else f"**no** on {', '.join(bad)}")
            for engine, bad in consistency.items() if engine != "markov_clustering")]
    target_rows = [r for r in rows if r["engine"] == "netmcl"]
    if target_rows:
        lines += ["", "Targets for netmcl (time ≤ 0.5× mcl, peak memory ≤ mcl, clusters identical):", "",
                  "| input | T | time ≤ 0.5× | memory ≤ 1× | identical |", "|---|---:|---|---|---|"]
        for row in target_rows:
            if row.get("time_ratio") is None:
                why = f"**no** ({row['failure']})" if row.get("failure") else "– (no mcl run)"
                lines.append(f"| {row['input']} | {row['threads']} | {why} | – | – |")
                continue
            cmp_ = row.get("vs_mcl") or {}
            lines.append(f"| {row['input']} | {row['threads']} | {_mark(row['time_ratio'] <= 0.5)} "
                         f"({row['time_ratio']:.2f}) | {_mark(row['mem_ratio'] <= 1.0)} ({row['mem_ratio']:.2f}) "
                         f"| {_mark(cmp_.get('sets'))} |")
    lines += ["", f"<!-- /section: {name} -->", ""]
    return "\n".join(lines)


RESULTS_HEADER = """# netmcl benchmark results

Written by `benchmarks/run_benchmarks.py` (see benchmarks/README.md); each section below is one run of the
harness and is replaced when the harness runs again with the same `--section` name.
"""


def report(output, record):
    """Write the section of one harness run (as saved in its JSON) into ``output``."""
    runs = record["runs"]
    warmups = {k: Measurement(**v) for k, v in record["warmups"].items()}
    text = render_section(record["section"], record["context"], record["inputs"], summarise(runs), warmups,
                          thread_consistency(runs))
    write_results(output, record["section"], text)


def write_results(path, name, text):
    """Replace the section called ``name`` in ``path`` (or append it), atomically."""
    path = Path(path)
    old = path.read_text() if path.exists() else RESULTS_HEADER
    pattern = re.compile(rf"<!-- section: {re.escape(name)} -->.*?<!-- /section: {re.escape(name)} -->\n*",
                         re.DOTALL)
    block = text.strip("\n") + "\n\n"
    if pattern.search(old):
        new = pattern.sub(lambda _: block, old, count=1)
    else:
        new = old.rstrip("\n") + "\n\n" + block
    new = new.rstrip("\n") + "\n"
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    tmp.write_text(new)
    os.replace(tmp, path)


# --------------------------------------------------------------------------- command line


def select(args):
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in BY_NAME]
        if unknown:
            raise SystemExit(f"Unknown input(s) {', '.join(unknown)}; choose from {', '.join(BY_NAME)}.")
        return [BY_NAME[n] for n in names]
    if args.huge:
        return [BY_NAME["gen-1m"]]
    upto = SIZES.index(args.sizes)
    return [d for d in DATASETS if d.size in SIZES[: upto + 1]]


def default_netmcl_cmd():
    """The console script installed beside this interpreter, else ``python -m netmcl``.

    Not the first `netmcl` on PATH: that may be a version manager's shim (pyenv's is a
    bash script that adds about 60 ms to every run) or another environment's copy.
    """
    script = Path(sys.executable).parent / "netmcl"
    return [str(script)] if script.is_file() and os.access(script, os.X_OK) else [sys.executable, "-m", "netmcl"]


def parse_args(argv):
    parser = argparse.ArgumentParser(
        description="Benchmark netmcl against mcl and markov_clustering, end to end from file to clusters.",
        epilog="Inputs: " + ", ".join(f"{d.name} ({d.size})" for d in DATASETS),
    )
    parser.add_argument("--sizes", choices=SIZES, default="small", help="input sets up to this size (default small)")
    parser.add_argument("--only", help="comma-separated input names (overrides --sizes)")
    parser.add_argument("--huge", action="store_true",
                        help="the 1M-node / 20M-edge graph, netmcl only, --max-memory 16G, threads 2, 1 repetition")
    parser.add_argument("--engines", help=f"comma-separated subset of {','.join(ENGINES)} (default all; netmcl with --huge)")
    parser.add_argument("--threads", help="comma-separated thread counts (default 1,2; 2 with --huge)")
    parser.add_argument("--repeats", type=int, help="repetitions per engine and thread count (default 3; 1 with --huge)")
    parser.add_argument("--timeout", type=float, help="seconds before a run counts as not finished (default 600; 3000 with gen-200k "
                             "among the inputs, 14400 with --huge)")
    parser.add_argument("--kill-above", type=float, help="GB of resident memory at which a run is killed (default 12; 22 with --huge)")
    parser.add_argument("--netmcl-cmd", type=shlex.split, default=None,
                        help="how to start netmcl (default: `netmcl` on PATH, else `python -m netmcl`)")
    parser.add_argument("--netmcl-args", type=shlex.split, default=None,
                        help="extra netmcl arguments (default none; `--max-memory 16G` with --huge)")
    parser.add_argument("--mcl", default="mcl", help="the mcl binary (default mcl)")
    parser.add_argument("--shared", default=str(REPO.parent / "shared" / "datasets"),
                        help="directory of the shared real networks (default ../shared/datasets)")
    parser.add_argument("--output", default=str(HERE / "RESULTS.md"), help="results file (default benchmarks/RESULTS.md)")
    parser.add_argument("--section", help="section name in the results file (default: date and commit)")
    parser.add_argument("--note", action="append", default=[], help="a note to print with the results (repeatable)")
    parser.add_argument("--refresh", action="store_true", help="prepare the inputs again even if cached")
    parser.add_argument("--no-warmup", action="store_true", help="skip the untimed first netmcl run")
    parser.add_argument("--from-json", metavar="FILE",
                        help="run nothing: write the section of an earlier run from its work/results/*.json")
    parser.add_argument("--dry-run", action="store_true", help="prepare nothing, run nothing: print the commands")
    args = parser.parse_args(argv)
    huge = args.huge
    args.engines = args.engines.split(",") if args.engines else (["netmcl"] if huge else list(ENGINES))
    bad = [e for e in args.engines if e not in ENGINES]
    if bad:
        parser.error(f"unknown engine(s) {bad}; choose from {ENGINES}")
    args.engines = [e for e in ENGINES if e in args.engines]
    args.threads = [int(t) for t in (args.threads or ("2" if huge else "1,2")).split(",")]
    args.timeout = args.timeout or max(d.timeout for d in select(args))
    args.repeats = args.repeats or (1 if huge else 3)
    args.kill_above = args.kill_above or (22.0 if huge else 12.0)
    args.netmcl_cmd = args.netmcl_cmd or default_netmcl_cmd()
    args.netmcl_args = args.netmcl_args if args.netmcl_args is not None else (["--max-memory", "16G"] if huge else [])
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.from_json:
        record = json.loads(Path(args.from_json).read_text())
        report(args.output, record)
        print(f"wrote section '{record['section']}' to {args.output}")
        return 0
    datasets = select(args)

    def log(message):
        print(message, flush=True)

    templates = {e: _display(engine_command(e, "INPUT", "OUT", "T", args)) for e in args.engines}
    if args.dry_run:
        for d in datasets:
            how = _display([sys.executable, GENERATOR, *d.generator, "-o", INPUTS / f"{d.name}.abc"]) \
                if d.generator else f"{d.convert} {_source_path(d, args.shared)}"
            log(f"{d.name}: prepare: {how}")
            for threads in args.threads:
                for e in args.engines:
                    if e != "markov_clustering" or threads == 1:
                        cmd = engine_command(e, INPUTS / f"{d.name}.abc", WORK / "out" / d.name / f"{e}.te{threads}", threads, args)
                        log(f"  {_display(cmd)}")
        return 0

    context = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": git_state(), "machine": machine_info(), "versions": versions(args),
        "command": _display([sys.executable, Path(__file__), *(sys.argv[1:] if argv is None else argv)]),
        "repeats": args.repeats, "threads": args.threads, "timeout": args.timeout, "kill_above": args.kill_above,
        "load_start": " ".join(f"{x:.2f}" for x in os.getloadavg()), "notes": args.note, "templates": templates,
    }
    name = args.section or f"{context['date']} @ {context['commit'].split()[0]}"
    kill = args.kill_above * 2**30
    inputs, runs, warmups = [], [], {}
    prepared = []
    for d in datasets:
        log(f"preparing {d.name} ...")
        path, meta = prepare(d, shared=args.shared, refresh=args.refresh, timeout=args.timeout, kill_above_bytes=kill)
        prepared.append((d, path))
        inputs.append((d.name, meta, d.description))
        log(f"  {path.relative_to(REPO)}: {meta['nodes']:,} nodes, {meta['edges']:,} lines")
    if "netmcl" in args.engines and not args.no_warmup:
        warmups = warm_up(args, log, kill)
    for d, path in prepared:
        log(f"running {d.name} ...")
        run_dataset(d, path, args, runs, log)
    context["load_end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    record = {"section": name, "context": context, "inputs": inputs,
              "warmups": {k: m.__dict__ for k, m in warmups.items()}, "runs": runs}
    results_dir = WORK / "results"
    results_dir.mkdir(parents=True, exist_ok=True)
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_")
    (results_dir / f"{slug}.json").write_text(json.dumps(record, indent=1))
    report(args.output, record)
    log(f"wrote section '{name}' to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
