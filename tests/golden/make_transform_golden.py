"""Write tests/golden/transforms.json.gz: what mcl 22-282 answers with its transforms.

Run with the reference ``mcl``, ``mcxload`` and ``mcxdump`` on PATH::

    python tests/golden/make_transform_golden.py

Three kinds of cases:

``weights``
    ``mcxload -abc <input> [--stream-mirror] -tf <spec> --write-binary``, the
    matrix dumped by ``mcxdump --dump-pairs -digits 9`` (nine digits name a
    float32 exactly): every transform function on random graphs, directed and
    mirrored.
``stream``
    ``mcl <input> --abc [--abc-neg-log10 | --abc-neg-log] [-abc-tf <spec>]
    -write-graph <file> --write-binary``: the graph as mcl reads it, e-values
    included.
``runs``
    ``mcl <input> --abc <args>``: clusters, chaos and iterations (as
    ``make_golden.run_mcl`` records them) with ``-tf``, ``-abc-tf``,
    ``--abc-neg-log10`` and the initial phase ``-l``/``-i``, on random graphs,
    the flip-flop graphs and the Skunavirus DIAMOND e-value network of
    tests/data/networks/.

Inputs are drawn from ``random.Random(seed)`` and stored in the file; running
the script twice writes identical files.  Imported by tests/test_transforms.py
for the helpers that run mcl live.
"""

import gzip
import importlib.util
import json
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("netmcl_make_golden", GOLDEN / "make_golden.py")
mg = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mg)

PATH = GOLDEN / "transforms.json.gz"
SKUNAVIRUS = "networks/skunavirus_protein_graphs.txt.gz"

#: every function netmcl provides, alone and in chains
WEIGHT_SPECS = [
    "gq(1)", "gt(1)", "lq(2)", "lt(2)", "ceil(2)", "floor(0.5)", "mul(0.1)", "add(-0.3)", "scale(3)",
    "pow(0.5)", "pow(2.5)", "exp()", "exp(2)", "log()", "log(10)", "neglog()", "neglog(10)", "abs()", "acos()",
    "#knn(1)", "#knn(2)", "#knn(4)", "#knnj(1)", "#knnj(3)", "#step(1)", "#step(2)", "#mcl(2)", "#mcl(4)", "#symmcl(2)", "#ils()", "#ceilnb(1)", "#ceilnb(3)", "#ceilnb(5)", "#add()", "#max()", "#min()",
    "#mul()", "#rev()", "#tp()", "#selfrm()", "#selfmax()", "#arcmax()", "#arcsub()",
    "lt(0.5),add(1)", "add(-1),add(1)", "add(-1),gq(0),add(1)", "gq(1),#knn(3),neglog(10)",
    "mul(0),#add(),add(1)", " gq (0.5) , mul(2)",
]


#: functions netmcl takes on undirected graphs only
UNDIRECTED_ONLY = ("#ils()",)


def weight_graph(seed, ties):
    """Label-file text of a random graph of 30 nodes with loops, repeated pairs and, for
    `ties`, few distinct weights (ties for #knn and #ceilnb)."""
    rng = random.Random(seed)
    lines = []
    for _ in range(120):
        a, b = rng.randrange(30), rng.randrange(30)
        w = rng.choice([0.5, 1, 2, 3]) if ties else round(rng.lognormvariate(0, 1.5), rng.choice([1, 3, 6]))
        lines.append(f"n{a} n{b} {w}\n")
    return "".join(lines)


def evalue_graph(seed):
    """Label-file text of e-values: tiny ones below float32's range, zeros, up to 1."""
    rng = random.Random(seed)
    lines = []
    for _ in range(150):
        a, b = rng.randrange(40), rng.randrange(40)
        kind = rng.random()
        if kind < 0.1:
            w = "0"
        elif kind < 0.4:
            w = f"{rng.uniform(1, 9):.1f}e-{rng.randint(40, 300)}"
        else:
            w = f"{rng.uniform(1, 9):.2g}e-{rng.randint(1, 30)}"
        lines.append(f"p{a}\tp{b}\t{w}\n")
    return "".join(lines)


def pairs(path, labels):
    """The entries of a native matrix file as [column label, row label, value text]."""
    out = subprocess.run(["mcxdump", "-imx", str(path), "--dump-pairs", "-digits", "9"],
                         capture_output=True, text=True, check=True).stdout
    return [[labels[int(c)], labels[int(r)], v] for c, r, v in (line.split("\t") for line in out.splitlines())]


def read_tab(path):
    return dict(line.split("\t", 1) for line in Path(path).read_text().splitlines() if line)


def mcxload_weights(text, spec, mirror):
    """``mcxload -tf`` of a label file: its entries (see :func:`pairs`)."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "in.abc").write_text(text)
        cmd = ["mcxload", "-abc", str(tmp / "in.abc"), "-o", str(tmp / "m.mci"), "-write-tab", str(tmp / "t.tab"),
               "--write-binary", "-tf", spec] + (["--stream-mirror"] if mirror else [])
        subprocess.run(cmd, capture_output=True, text=True, check=True)
        tab = read_tab(tmp / "t.tab")
        return pairs(tmp / "m.mci", {int(k): v for k, v in tab.items()})


def mcl_graph(path, args):
    """The graph ``mcl <path> --abc <args>`` reads (``-write-graph``): its entries and labels."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cmd = ["mcl", str(path), "--abc", *args, "-write-graph", str(tmp / "g.mci"), "--write-binary",
               "-o", str(tmp / "out")]
        subprocess.run(cmd, capture_output=True, text=True, check=True)
        return pairs(tmp / "g.mci", {i: f"#{i}" for i in range(100000)})


def weight_cases():
    inputs, cases = {}, []
    for seed in range(4):
        name = f"w{seed}"
        inputs[name] = weight_graph(seed, ties=seed % 2 == 1)
        for spec in WEIGHT_SPECS:
            for mirror in (True, False) if spec not in UNDIRECTED_ONLY else (True,):
                cases.append({"input": name, "spec": spec, "mirror": mirror,
                              "pairs": mcxload_weights(inputs[name], spec, mirror)})
    return inputs, cases


STREAM_ARGS = [
    ["--abc-neg-log10"],
    ["--abc-neg-log"],
    ["--abc-neg-log10", "-abc-tf", "ceil(200)"],
    ["--abc-neg-log", "-abc-tf", "gq(50),mul(0.5)"],
    ["-abc-tf", "add(1)"],
    ["-abc-tf", "gq(1e-10)"],
]


def stream_cases(tmp):
    inputs, cases = {}, []
    for seed in range(2):
        name = f"e{seed}"
        inputs[name] = evalue_graph(seed)
        path = Path(tmp) / f"{name}.abc"
        path.write_text(inputs[name])
        for args in STREAM_ARGS:
            cases.append({"input": name, "args": args, "pairs": mcl_graph(path, args)})
    return inputs, cases


RUN_ARGS = [
    ["-tf", "gq(0.3)"],
    ["-tf", "#knn(4)", "-I", "1.6"],
    ["-tf", "#ceilnb(5),pow(2)"],
    ["-tf", "neglog(10),gq(0),add(0.5)", "-I", "3"],
    ["-abc-tf", "ceil(1.5)"],
    ["-tf", "mul(3)", "--discard-loops=n"],
    ["-l", "3", "-i", "3"],
    ["-l", "2", "-i", "1.4", "-I", "4"],
    ["-l", "8", "-i", "5", "-L", "3"],
]


#: seeds of :func:`split_graph` on which mcl's clusters are not all connected (found by a search)
SPLIT_SEEDS = {5: "5", 60: "5", 78: "3", 128: "5", 133: "5", 142: "5"}


def split_graph(seed):
    """Label-file text of a small random graph, bipartite for half the seeds, where MCL may
    give clusters that are not connected in the graph (what --force-connected splits)."""
    r = random.Random(seed)
    n = r.randint(5, 14)
    edges = set()
    if r.random() < 0.5:
        a = r.randint(2, n - 2)
        for _ in range(r.randint(n, 3 * n)):
            edges.add((r.randrange(a), r.randrange(a, n)))
    else:
        for _ in range(r.randint(n, 3 * n)):
            x, y = r.randrange(n), r.randrange(n)
            if x != y:
                edges.add((x, y))
    return "".join(f"v{x} v{y} {r.choice([1, 1, 2, 3])}\n" for x, y in sorted(edges))


def mcl_rags(text, args):
    """The file ``<out>-rags`` (the clustering before the split) that ``mcl --force-connected=y`` writes."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "in.abc").write_text(text)
        subprocess.run(["mcl", str(tmp / "in.abc"), "--abc", *args, "-o", str(tmp / "out")],
                       capture_output=True, check=True)
        rags = tmp / "out-rags"
        return "".join(line for line in rags.read_text().splitlines(True) if not line.startswith("# cline")) \
            if rags.exists() else None


def run_cases():
    inputs = {}
    runs = []
    for seed in (3, 11, 29):
        for name, s, kind, n, degree, weights in mg.random_graph_specs([seed]):
            if weights == "none":
                weights = "exp"
            inputs[name] = {"abc": mg.random_graph(s, kind, n, degree, weights)}
            for k, args in enumerate(RUN_ARGS):
                runs.append((f"{name}-{k}", name, args))
    flips = mg.flipflop_inputs()
    for name in ("triangle", "prism5"):
        inputs[name] = {"abc": flips[name]}
        for args in (["-l", "5", "-i", "2"], ["-l", "45", "-i", "2"], ["-l", "42", "-i", "3"]):
            runs.append((f"{name}-l{args[1]}i{args[3]}", name, ["--discard-loops=n", *args]))
    for seed, inflation in SPLIT_SEEDS.items():
        name = f"split{seed}"
        inputs[name] = {"abc": split_graph(seed)}
        for sort in ("revsize", "lex", "size"):
            runs.append((f"{name}-{sort}", name, ["-I", inflation, "--force-connected=y", "-sort", sort]))
        runs.append((f"{name}-tf", name, ["-I", inflation, "-tf", "gq(2)", "--force-connected=y"]))
    inputs["skunavirus"] = {"file": SKUNAVIRUS}
    for args in (["--abc-neg-log10", "-abc-tf", "ceil(200)"],
                 ["--abc-neg-log10", "-abc-tf", "ceil(200)", "-tf", "#knn(10)", "-I", "4"],
                 ["--abc-neg-log", "-abc-tf", "gq(20),ceil(400)", "-I", "1.4"]):
        runs.append(("skunavirus" + "".join(a for a in args if a[0] not in "-"), "skunavirus", args))
    with tempfile.TemporaryDirectory() as tmp:
        plain = dict(inputs)
        path = Path(tmp) / "skunavirus.abc"  # mcl reads plain text
        with gzip.open(mg.DATA / SKUNAVIRUS, "rb") as src, open(path, "wb") as dst:
            shutil.copyfileobj(src, dst)
        plain["skunavirus"] = {"file": path}
        cases = mg._run_cases(plain, runs)
    for case in cases:
        if "--force-connected=y" in case["args"]:
            case["rags"] = mcl_rags(inputs[case["input"]]["abc"], case["args"])
    return inputs, cases


def load():
    """The golden file, as a dict."""
    with gzip.open(PATH, "rt") as f:
        return json.load(f)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        w_inputs, w_cases = weight_cases()
        s_inputs, s_cases = stream_cases(tmp)
    r_inputs, r_cases = run_cases()
    golden = {
        "mcl": mg.mcl_version(),
        "weights": {"inputs": w_inputs, "cases": w_cases},
        "stream": {"inputs": s_inputs, "cases": s_cases},
        "runs": {"inputs": r_inputs, "cases": r_cases},
    }
    with gzip.GzipFile(PATH, "wb", mtime=0) as out:  # no time stamp: the same file every run
        out.write((json.dumps(golden, separators=(",", ":")) + "\n").encode())
    print(f"{PATH.name}: {len(w_cases)} weight cases, {len(s_cases)} stream cases, {len(r_cases)} runs, "
          f"{PATH.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
