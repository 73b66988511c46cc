#!/usr/bin/env python
"""netmcl rcl against mcl's rcl 22-282 on the same files: the time of ``tree`` and ``select``.

For each network of tests/data/networks named on the command line (default:
Collins 2007, Gavin 2006, and the ProCope bootstrap network), the script loads
it with ``mcxload``, clusters it with ``mcl`` at five inflations, and then
runs, in two project directories, ``rcl tree`` / ``rcl select`` and ``netmcl
rcl tree`` / ``netmcl rcl select`` (each as its own process, as a user runs
them), timing each step once, and checks that both wrote the same clusters
(tests/test_rcl.py's comparison).  Needs ``mcl``, ``mcxload``, ``clm`` and
``rcl`` on PATH.

Examples
--------
python benchmarks/rcl_bench.py
python benchmarks/rcl_bench.py clusterone_collins2007.txt.gz --resolutions "10 20 50 100"
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "golden"))

NETWORKS = ["clusterone_collins2007.txt.gz", "clusterone_gavin2006_socioaffinities_rescaled.txt.gz",
            "procope_bootstrap_combined.txt.gz"]
INFLATIONS = ["1.4", "2", "3", "4", "6"]


def _timed(argv, cwd, env=None):
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def bench(network, resolutions, workdir):
    import gzip

    from test_rcl import compare
    import make_rcl_golden as mk

    workdir = Path(workdir)
    with gzip.open(ROOT / "tests" / "data" / "networks" / network, "rt") as fh:
        (workdir / "g.abc").write_text(fh.read())
    subprocess.run(["mcxload", "-abc", "g.abc", "--stream-mirror", "-write-tab", "g.tab", "-o", "g.mci"],
                   cwd=workdir, check=True, capture_output=True)
    files = []
    for inflation in INFLATIONS:
        files.append(f"g.I{inflation}.cls")
        subprocess.run(["mcl", "g.mci", "-I", inflation, "-o", files[-1]], cwd=workdir, check=True, capture_output=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    netmcl = [sys.executable, "-m", "netmcl", "rcl"]
    times = {}
    for name, cmd, tag, extra_env in (("rcl", ["rcl"], "R", None), ("netmcl", netmcl, "N", env)):
        subprocess.run(cmd + ["setup", tag, "-n", "g.mci", "-t", "g.tab", *files], cwd=workdir, env=extra_env,
                       check=True, capture_output=True)
        times[name] = (_timed(cmd + ["tree", tag], workdir, extra_env),
                       _timed(cmd + ["select", tag, "-r", resolutions], workdir, extra_env))
    read = lambda tag: {p.name: p.read_text() for p in sorted((workdir / tag).iterdir())  # noqa: E731
                        if p.name not in mk.SKIPPED}
    compare(read("N"), read("R"))
    n_edges = sum(1 for _ in open(workdir / "g.abc"))
    n_nodes = sum(1 for _ in open(workdir / "g.tab"))
    return n_nodes, n_edges, times


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("networks", nargs="*", default=NETWORKS, help="files of tests/data/networks")
    ap.add_argument("--resolutions", default="10 20 50 100")
    args = ap.parse_args()
    if not all(shutil.which(t) for t in ("mcl", "mcxload", "clm", "rcl")):
        raise SystemExit("rcl_bench.py needs mcl, mcxload, clm and rcl on PATH (Debian package mcl).")
    print(f"# netmcl rcl against rcl 22-282 (one run each, seconds; inflations {' '.join(INFLATIONS)}, "
          f"resolutions {args.resolutions})\n")
    print("| network | nodes | edges | rcl tree | netmcl rcl tree | rcl select | netmcl rcl select | same clusters |")
    print("|---|---|---|---|---|---|---|---|")
    for network in args.networks:
        with tempfile.TemporaryDirectory() as tmp:
            n, m, t = bench(network, args.resolutions, tmp)
        print(f"| {network} | {n:,} | {m:,} | {t['rcl'][0]:.2f} | {t['netmcl'][0]:.2f} | {t['rcl'][1]:.2f} | "
              f"{t['netmcl'][1]:.2f} | yes |", flush=True)


if __name__ == "__main__":
    main()
