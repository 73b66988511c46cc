"""Write the golden files: what mcl 22-282 answers on netmcl's fidelity cases.

Run from anywhere, with the reference ``mcl`` (and ``mcxload``) on PATH::

    python tests/golden/make_golden.py            # all families
    python tests/golden/make_golden.py lines abc  # some families

Every family is written to ``tests/golden/<family>.json`` (``.json.gz`` for the
big ones) as ``{"family", "mcl", "inputs", "cases"}``.  ``inputs`` maps an input
name to its text (``{"abc": ...}`` or ``{"mci": ...}``) or to a network file
under ``tests/data/`` (``{"file": ...}``).  Each case records the input name,
the mode (``"abc"``: ``mcl <input> --abc``; ``"native"``: ``mcl <input>``), the
mcl arguments that follow, and what mcl printed: the clusters (label lines
split on TAB, or node indices for native output), the chaos of every iteration
(column 3 of mcl's iteration lines, as printed), the iteration count, whether
the inflation was bumped, and the overlap instances and garbage nodes it
reported.

Random inputs are drawn from ``random.Random(seed)`` with fixed seeds and stored
in the golden files, so the tests never depend on a random number generator;
running the script twice writes identical files.

The same module is imported by ``tests/test_fidelity.py`` for the helpers that
run mcl and translate its flags into :func:`netmcl.mcl` keywords.
"""

import gzip
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent
DATA = GOLDEN.parent / "data"

#: The networks of tests/data/networks/ (see tests/data/PROVENANCE.md).
NETWORKS = [
    "clusterone_collins2007",
    "clusterone_gavin2006_socioaffinities_rescaled",
    "clusterone_krogan2006_core",
    "clusterone_krogan2006_extended",
    "procope_conf_krogan",
    "procope_bootstrap_combined",
    "bionic_Hu-2007",
]
NETWORK_INFLATIONS = ["1.4", "2", "4", "6"]

#: Families stored gzipped (the others are plain JSON, one case a line).
GZIPPED = {"random", "networks", "iterands"}

# An iteration line: number, progress dots, chaos, time, hom(avg/lo/hi).  Pruning
# warnings ("___>" and " ->" lines) may split one such line over many.
_ITERATION = re.compile(r"(?<!\S)(\d+)\s+[.\s]*\s(-?\d+\.\d\d)\s+\d+\.\d\d\s+\d+\.\d\d/\d+\.\d\d/\d+\.\d\d\s")
_OVERLAP = re.compile(r"\[mcl\] (?:cut|kept|split) <(\d+)> instances of overlap")
_GARBAGE = re.compile(r"\[mcl\] added <(\d+)> garbage entries")


# ---------------------------------------------------------------------------
# running mcl


def mcl_version():
    """The first line of ``mcl --version`` (e.g. ``'mcl 22-282'``)."""
    out = subprocess.run(["mcl", "--version"], capture_output=True, text=True, check=True).stdout
    return out.splitlines()[0].strip()


def parse_chaos(stderr):
    """Iteration numbers and chaos values (strings, as printed) from mcl's stderr.

    Examples
    --------
    >>> parse_chaos(" ite ---  chaos  time hom(avg,lo,hi)\\n  1  ...   0.47  0.00 0.87/0.80/0.95 1.33\\n")
    ['0.47']
    """
    kept = [line for line in stderr.splitlines() if line.strip() and not line.startswith(("___>", " ->"))]
    chaos = []
    for m in _ITERATION.finditer(" ".join(kept) + " "):
        if int(m.group(1)) != len(chaos) + 1:
            raise RuntimeError(f"unexpected iteration {m.group(0)!r} in mcl's output")
        chaos.append(m.group(2))
    return chaos


def parse_native_clusters(text):
    """Clusters (lists of node indices) of an mcl native cluster matrix.

    Examples
    --------
    >>> parse_native_clusters("(mclmatrix\\nbegin\\n0 0 2 $\\n1 1\\n 3 $\\n)\\n")
    [[0, 2], [1, 3]]
    """
    body = text.split("begin", 1)[1].rsplit(")", 1)[0]
    clusters = []
    for entry in body.split("$"):
        tokens = entry.split()
        if tokens:
            clusters.append([int(t) for t in tokens[1:]])
    return clusters


def run_mcl(input_path, args, *, mode="abc"):
    """Run mcl on a file and return what the golden files record.

    Parameters
    ----------
    input_path : path
        The input file.
    args : list of str
        mcl arguments after the input (``-I 2``, ...).
    mode : {"abc", "native"}
        ``--abc`` label input and output, or a native matrix.

    Returns
    -------
    dict
        ``clusters``, ``chaos``, ``iterations``, ``bumped``, ``overlap`` (the
        instances mcl reports) and ``garbage`` (nodes no attractor reaches,
        which mcl puts together in one extra cluster).
    """
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        cmd = ["mcl", str(input_path)] + (["--abc"] if mode == "abc" else []) + list(args) + ["-o", str(out)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr}")
        text = out.read_text()
    if mode == "abc":
        clusters = [line.split("\t") for line in text.split("\n") if line]
    else:
        clusters = parse_native_clusters(text)
    chaos = parse_chaos(proc.stderr)
    overlap = _OVERLAP.search(proc.stderr)
    garbage = _GARBAGE.search(proc.stderr)
    return {
        "clusters": clusters,
        "chaos": chaos,
        "iterations": len(chaos),
        "bumped": "Inflation bumped" in proc.stderr,
        "overlap": int(overlap.group(1)) if overlap else 0,
        "garbage": int(garbage.group(1)) if garbage else 0,
    }


def mcxload(abc_text, *, mirror=False):
    """The native matrix text ``mcxload -abc`` makes of a label file."""
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "in.abc", Path(tmp) / "out.mci"
        src.write_text(abc_text)
        cmd = ["mcxload", "-abc", str(src), "-o", str(dst)] + (["--stream-mirror"] if mirror else [])
        subprocess.run(cmd, capture_output=True, text=True, check=True)
        return dst.read_text()


# ---------------------------------------------------------------------------
# mcl flags -> netmcl keywords

_FLAG_KWARGS = {
    "-I": ("inflation", float),
    "-P": ("pruning_number", int),
    "-p": ("pruning_threshold", float),
    "-S": ("select", int),
    "-R": ("recover", int),
    "-pct": ("recover_pct", int),
    "-pi": ("preinflation", float),
    "-c": ("loop_gain", float),
    "-overlap": ("overlap", str),
    "-sort": ("sort", str),
    "-scheme": ("scheme", int),
    "-resource": ("resource", int),
    "-te": ("threads", int),
}


def mcl_kwargs(args):
    """Translate mcl arguments into keywords of :func:`netmcl.mcl`.

    Examples
    --------
    >>> mcl_kwargs(["-I", "1.4", "-P", "30", "--discard-loops=n", "-overlap", "keep"])
    {'inflation': 1.4, 'pruning_number': 30, 'discard_loops': False, 'overlap': 'keep'}
    """
    kwargs = {}
    args = list(args)
    while args:
        flag = args.pop(0)
        if flag == "--discard-loops=n":
            kwargs["discard_loops"] = False
        elif flag in _FLAG_KWARGS:
            name, kind = _FLAG_KWARGS[flag]
            kwargs[name] = kind(args.pop(0))
        else:
            raise ValueError(f"no netmcl keyword for mcl flag {flag!r}")
    return kwargs


# ---------------------------------------------------------------------------
# inputs


def abc_text(edges):
    """Label-file text of ``(a, b[, w])`` tuples, TAB separated.

    Examples
    --------
    >>> abc_text([("a", "b", 0.5), ("b", "c")])
    'a\\tb\\t0.5\\nb\\tc\\n'
    """
    return "".join("\t".join(str(x) for x in e) + "\n" for e in edges)


def line_graph(n):
    """The path v0 - v1 - ... - v(n-1), weight 1."""
    return abc_text((f"v{i}", f"v{i + 1}") for i in range(n - 1))


CATHAT = "cat hat 0.2\nhat bat 0.16\nbat cat 1.0\nbat bit 0.125\nbit fit 0.25\nfit hit 0.5\nhit bit 0.16\n"
CATHAT_CLUSTERS = [["cat", "hat", "bat"], ["bit", "fit", "hit"]]
CATHAT_CHAOS = "0.47 0.53 0.35 0.44 0.24 0.20 0.12 0.20 0.25 0.15 0.02 0.00 0.00".split()

_WEIGHTS = {
    "none": None,
    "unif": lambda r: f"{r.uniform(0.01, 1.0):.4f}",
    "int": lambda r: str(r.randint(1, 20)),
    "exp": lambda r: f"{r.expovariate(1.0):.5g}",
    "wide": lambda r: f"{10 ** r.uniform(-6, 3):.3g}",
}


def random_edges(rng, kind, n, degree, weights):
    """Edges of a random graph, in shuffled order, nodes named n0, n1, ...

    kind is "er" (uniform pairs), "planted" (groups of 5-25 nodes, 85% of the
    edges inside a group) or "hubs" (a third of the edges touch one of 3 hubs).
    Pairs may repeat and come in both directions (mcl merges them by max).
    """
    groups = []
    while sum(groups) < n:
        groups.append(rng.randint(5, 25))
    group = [g for g, size in enumerate(groups) for _ in range(size)][:n]
    members = {}
    for node, g in enumerate(group):
        members.setdefault(g, []).append(node)
    draw = _WEIGHTS[weights]
    edges = []
    for _ in range(n * degree // 2):
        a = rng.randrange(n)
        if kind == "planted" and rng.random() < 0.85:
            b = rng.choice(members[group[a]])
        elif kind == "hubs" and rng.random() < 0.33:
            b = rng.randrange(3)
        else:
            b = rng.randrange(n)
        if a == b:
            continue
        edges.append((f"n{a}", f"n{b}") + ((draw(rng),) if draw else ()))
    rng.shuffle(edges)
    return edges


#: mcl pruning flag sets for the random family: every branch of mcl's pruning.
PRUNING_SETS = [
    [],
    ["-P", "30", "-S", "8", "-R", "12"],
    ["-P", "30", "-S", "8", "-R", "12", "-pct", "50"],
    ["-P", "20", "-S", "10", "-R", "15", "-pct", "95"],
    ["-P", "0", "-S", "10", "-R", "0"],
    ["-P", "0", "-S", "0", "-R", "0"],
    ["-P", "5", "-S", "0", "-R", "0"],
    ["-P", "8", "-S", "0", "-R", "6", "-pct", "90"],
    ["-P", "50", "-S", "5", "-R", "0"],
    ["-P", "40", "-S", "6", "-R", "10", "-pct", "80"],
    ["-P", "12", "-S", "3", "-R", "4", "-pct", "70"],
    ["-P", "100", "-S", "12", "-R", "30", "-pct", "99"],
]


def random_graph_specs(seeds):
    """(name, seed, kind, n, degree, weights) for each seed, drawn from the seed."""
    specs = []
    for seed in seeds:
        r = random.Random(seed)
        kind = r.choice(["er", "planted", "planted", "hubs"])
        n = r.randint(30, 200)
        degree = r.choice([3, 4, 6, 10, 16, 24])
        weights = r.choice(sorted(_WEIGHTS))
        specs.append((f"r{seed}-{kind}-n{n}-d{degree}-{weights}", seed, kind, n, degree, weights))
    return specs


def random_graph(seed, kind, n, degree, weights):
    """Label-file text of one random graph (see :func:`random_edges`)."""
    return abc_text(random_edges(random.Random(seed * 7919 + 1), kind, n, degree, weights))


def random_runs(seed):
    """The mcl arguments of the four runs made on random graph `seed`."""
    r = random.Random(-seed - 1)
    sets = r.sample(range(len(PRUNING_SETS)), 4)
    return [["-I", r.choice(["1.4", "2", "2.5", "3.5", "5"])] + PRUNING_SETS[k] for k in sets]


#: Graph seeds of the random family (golden) and of the live test (fresh).
GOLDEN_SEEDS = range(1, 41)
LIVE_SEEDS = range(1001, 1009)

# Edge cases of the label format (mcl-spec d.1).
ABC_EDGE = {
    "duplicate_reversed": "a b 0.5\nb a 0.9\na b 0.3\nb c 1\nc a 0.2\nc d 2\nd c 0.1\nd e 1\ne d 1.5\ne f 0.4\nf e 0.4\n",
    "zero_weights": "z y 0\nx y 0\nx y 1\na b 1\nb c 1\nc a 1\nc q 0\ny w 0\nw v 1\n",
    "self_loops": "s s 2\na a 5\na b 1\nb c 1\nc a 0.5\nt t 1\nc d 0.2\nd d 9\nd e 1\n",
    "tab_labels_with_spaces": (
        "protein A\tprotein B\t0.5\nprotein B\tprotein C\t1\nprotein C\tprotein A\t0.8\n"
        "protein C\tgene x y\t0.1\ngene x y\tgene z\t1\ngene z\tgene x\t1\ngene x\tgene x y\t1\n"
    ),
    "comments_and_blank_lines": (
        "# a comment line\na b 1\n   # indented comment\n\nb c 0.5\n\t# tab-indented comment\n"
        "c a 1 # trailing text after the value\n#d e 1\nc d 0.1\nd e 1\ne f 1\nf d 1\n\n"
    ),
    "missing_weights": "a b\nb\tc\nc\ta\t\nc d 0.2\nd\te\ne f\nf d\n",
    "mixed_tab_space": "a b 0.5\nc\td\t2\na\tb 0.5\n  e   f   3\nb c 1\nf\ta\t0.7\nd e 1\n",
    "value_formats": "a b 1e-3\nb c .5\nc a 5.\nc d +2\nd e 1E0\ne a 0.25e1\n",
    "non_finite": "a b inf\nb c nan\nc a 1e40\nc d 0.5\nd e 1\ne f INF\nf d 1\n",
    "first_appearance_order": "q p 0\nb a 1\nc b 1\na c 1\np r 1\nr s 1\ns p 1\np a 0.01\n",
}

#: Label files netmcl refuses on purpose, where mcl silently substitutes 1.0 for a
#: weight: the line and value the error must name, and the file as mcl reads it.
ABC_REFUSED = {
    "non_finite": {
        "line": 1,
        "value": "inf",
        "as_mcl_reads_it": "a b 1\nb c 1\nc a 1\nc d 0.5\nd e 1\ne f 1\nf d 1\n",
    },
}

# Small graphs for the preprocessing family.
LOOPY = abc_text(
    [("h1", "h1", 4), ("h1", "h2", 1), ("h2", "h3", 1), ("h3", "h1", 1), ("h3", "h4", 0.3), ("h4", "h4", 0.1),
     ("h4", "h5", 1), ("h5", "h6", 1), ("h6", "h4", 1), ("h6", "h7", 0.2), ("h7", "h7", 2), ("h7", "h8", 1),
     ("h8", "h9", 1), ("h9", "h7", 1), ("h9", "h1", 0.05), ("h2", "h2", 0.5), ("h8", "h8", 1)]
)
PREPROCESSING_RUNS = {
    "cathat": [
        ["-c", "0.5"], ["-c", "3"], ["-pi", "1.5"], ["-pi", "3"], ["--discard-loops=n"],
        ["--discard-loops=n", "-I", "3"], ["-te", "1"], ["-te", "2"], ["-scheme", "1"], ["-scheme", "4"],
        ["-scheme", "7"], ["-resource", "4"], ["-p", "0.05"], ["-c", "2", "-pi", "2"],
    ],
    "loopy": [
        [], ["--discard-loops=n"], ["--discard-loops=n", "-c", "2"], ["--discard-loops=n", "-pi", "1.5"],
        ["-c", "0.2"], ["-c", "4"], ["-pi", "2"], ["-pi", "1.3", "-I", "1.6"], ["-te", "1"], ["-te", "2"],
        ["--discard-loops=n", "-te", "2", "-I", "3"],
    ],
    "dense": [
        ["-scheme", str(k), "-I", "1.6"] for k in range(1, 8)
    ] + [
        ["-resource", "3"], ["-resource", "10"], ["-resource", "30", "-P", "200"], ["-te", "1"], ["-te", "2"],
        ["-p", "0.002"], ["-p", "0.05", "-I", "1.4"], ["-c", "1.5", "-pi", "1.2", "-I", "1.5"],
    ],
}

# Asymmetric graphs for the native family: read as is (native) or mirrored by max (--abc).
NATIVE_GRAPHS = {
    "directed_small": "a b 0.5\nb c 2\nc a 1\nd a 0.3\nc c 4\ne d 1\nd e 0.1\nf e 1\n",
    "directed_sink": "a b 1\nb c 1\nc d 1\nd b 0.5\ne c 2\nf f 1\ng a 0.7\n",
}


def circulant(n, steps):
    """Label-file text of the circulant graph: i ~ i+s (mod n) for s in steps, weight 1."""
    edges, seen = [], set()
    for i in range(n):
        for step in steps:
            pair = frozenset((i, (i + step) % n))
            if pair not in seen:
                seen.add(pair)
                edges.append((f"v{i}", f"v{(i + step) % n}", 1))
    return abc_text(edges)


def flipflop_inputs():
    """Loop-free symmetric graphs on which mcl --discard-loops=n flip-flops past iteration 40.

    Found by running mcl on small vertex-transitive graphs (cycles, circulants,
    prisms) at I = 2.
    """
    prism = [(f"v{i}", f"v{(i + 1) % 5}", 1) for i in range(5)]
    prism += [(f"v{5 + i}", f"v{5 + (i + 1) % 5}", 1) for i in range(5)]
    prism += [(f"v{i}", f"v{5 + i}", 1) for i in range(5)]
    return {
        "triangle": circulant(3, [1]),
        "hexagon": circulant(6, [1]),
        "octahedron": circulant(6, [1, 2]),
        "circulant11": circulant(11, [1, 3]),
        "prism5": abc_text(prism),
    }


# ---------------------------------------------------------------------------
# families


def _run_cases(inputs, runs, *, mode="abc"):
    """Run mcl for ``(case_id, input_name, args)`` runs; inputs maps name -> text or file."""
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for name, spec in inputs.items():
            if "file" in spec:
                paths[name] = DATA / spec["file"]
            else:
                text = spec.get("abc", spec.get("mci"))
                paths[name] = Path(tmp) / (name + (".abc" if "abc" in spec else ".mci"))
                paths[name].write_text(text)
        for case_id, name, args, *rest in runs:
            case_mode = rest[0] if rest else mode
            result = run_mcl(paths[name], args, mode=case_mode)
            cases.append({"id": case_id, "input": name, "mode": case_mode, "args": list(args), **result})
    return cases


def family_cathat():
    inputs = {"cathat": {"abc": CATHAT}}
    cases = _run_cases(inputs, [("cathat", "cathat", [])])
    if cases[0]["clusters"] != CATHAT_CLUSTERS or cases[0]["chaos"] != CATHAT_CHAOS:
        raise RuntimeError(f"mcl does not give the man page's cathat answer: {cases[0]}")
    return inputs, cases


def family_lines():
    inputs = {f"line{n}": {"abc": line_graph(n)} for n in range(2, 16)}
    runs = [
        (f"line{n}-I{inf}-{ov}", f"line{n}", ["-I", inf, "-overlap", ov])
        for n in range(2, 16)
        for inf in ["1.2", "1.5", "2", "3", "5"]
        for ov in ["cut", "keep", "split"]
    ]
    runs += [
        (f"line{n}-I{inf}-{ov}-sort-{so}", f"line{n}", ["-I", inf, "-overlap", ov, "-sort", so])
        for n in [5, 9, 12, 15]
        for inf in ["1.5", "3"]
        for ov in ["keep", "split"]
        for so in ["revsize", "size", "lex", "none"]
    ]
    return inputs, _run_cases(inputs, runs)


def family_random():
    inputs, runs = {}, []
    for name, seed, kind, n, degree, weights in random_graph_specs(GOLDEN_SEEDS):
        inputs[name] = {"abc": random_graph(seed, kind, n, degree, weights)}
        for k, args in enumerate(random_runs(seed)):
            runs.append((f"{name}-run{k}", name, args))
    return inputs, _run_cases(inputs, runs)


def family_abc():
    inputs = {name: {"abc": text} for name, text in ABC_EDGE.items()}
    runs = [(f"{name}-I{inf}", name, ["-I", inf]) for name in ABC_EDGE for inf in ["1.5", "2", "3"]]
    runs += [(f"{name}-loops-kept", name, ["--discard-loops=n"]) for name in ["self_loops", "zero_weights"]]
    return inputs, _run_cases(inputs, runs)


def family_flipflop():
    graphs = flipflop_inputs()
    inputs = {name: {"abc": text} for name, text in graphs.items()}
    inputs["triangle_native"] = {"mci": mcxload(graphs["triangle"], mirror=True)}
    runs = [(f"{name}-I2", name, ["--discard-loops=n"]) for name in graphs]
    runs.append(("triangle_native-I2", "triangle_native", ["--discard-loops=n"], "native"))
    cases = _run_cases(inputs, runs)
    for case in cases:
        if not (case["bumped"] and case["iterations"] > 40):
            raise RuntimeError(f"{case['id']}: mcl did not bump the inflation")
    return inputs, cases


def family_preprocessing():
    dense = random_graph(9001, "planted", 200, 24, "unif")
    inputs = {"cathat": {"abc": CATHAT}, "loopy": {"abc": LOOPY}, "dense": {"abc": dense}}
    runs = [
        (f"{name}-{'_'.join(a.lstrip('-') for a in args) or 'default'}", name, args)
        for name, arg_sets in PREPROCESSING_RUNS.items()
        for args in arg_sets
    ]
    return inputs, _run_cases(inputs, runs)


def family_native():
    inputs, runs = {}, []
    graphs = dict(NATIVE_GRAPHS)
    for seed in [1, 2, 3]:
        r = random.Random(5000 + seed)
        n = r.randint(20, 60)
        edges = [(f"d{r.randrange(n)}", f"d{r.randrange(n)}", f"{r.uniform(0.05, 2):.3f}") for _ in range(3 * n)]
        graphs[f"directed_random{seed}"] = abc_text(edges)
    for name, text in graphs.items():
        inputs[name + "_abc"] = {"abc": text}
        inputs[name + "_mci"] = {"mci": mcxload(text)}
        for inf in ["1.5", "2", "3"]:
            runs.append((f"{name}-native-I{inf}", name + "_mci", ["-I", inf], "native"))
            runs.append((f"{name}-abc-I{inf}", name + "_abc", ["-I", inf], "abc"))
        runs.append((f"{name}-native-loops-kept", name + "_mci", ["--discard-loops=n"], "native"))
    return inputs, _run_cases(inputs, runs)


def family_networks():
    inputs = {name: {"file": f"networks/{name}.txt.gz"} for name in NETWORKS}
    runs = [(f"{name}-I{inf}", name, ["-I", inf]) for name in NETWORKS for inf in NETWORK_INFLATIONS]
    with tempfile.TemporaryDirectory() as tmp:
        # mcl reads plain text: decompress next to the runs.
        plain = {}
        for name, spec in inputs.items():
            path = Path(tmp) / f"{name}.abc"
            with gzip.open(DATA / spec["file"], "rb") as src, open(path, "wb") as dst:
                shutil.copyfileobj(src, dst)
            plain[name] = {"file": path}
        return inputs, _run_cases(plain, runs)


#: The smallest inputs found that show one subtle behaviour of mcl each:
#: name -> (label file, mcl arguments, what it shows).
MINIMAL = {
    "chaos_is_float32": (
        abc_text([("v0", "v3", 1), ("v1", "v3", 1), ("v1", "v4", 2), ("v1", "v7", 3), ("v2", "v3", 3),
                  ("v2", "v5", 3), ("v2", "v7", 2), ("v3", "v5", 3), ("v3", "v6", 1), ("v3", "v7", 3),
                  ("v4", "v6", 2)]),
        ["-I", "2"],
        "iteration 1: a column chaos of 0.80499998748 in double is 0.805000007 as float32, printed 0.81",
    ),
    "inflation_is_float32": (
        abc_text([("v0", "v1", 3), ("v0", "v3", 2), ("v0", "v4", 1), ("v0", "v6", 2), ("v1", "v5", 3),
                  ("v2", "v5", 1), ("v3", "v4", 1), ("v3", "v6", 2), ("v4", "v5", 3), ("v4", "v6", 2),
                  ("v5", "v6", 1)]),
        ["-I", "1.4"],
        "the power is float32(1.4) = 1.39999998: iterands drift by an ulp, chaos differs at iteration 30",
    ),
    "prune_threshold_is_float32": (
        abc_text([("v0", "v2", 2), ("v0", "v4", 2), ("v0", "v6", 1), ("v0", "v7", 2), ("v1", "v2", 1),
                  ("v1", "v4", 3), ("v2", "v3", 3), ("v2", "v4", 3), ("v2", "v5", 3), ("v2", "v6", 2),
                  ("v2", "v7", 3), ("v3", "v6", 3), ("v3", "v7", 3), ("v4", "v6", 2)]),
        ["-p", "0.05"],
        "-p 0.05 gives P = floor(1 / float32(0.05)) = 19, not 20 (mcl -z: 'Prune number 19')",
    ),
    "garbage_nodes_form_one_cluster": (
        "a b 1\nc c 0\nd d 0\ne e 0\n",
        ["--discard-loops=n"],
        "c, d, e reach no attractor: mcl 'added <3> garbage entries' as ONE cluster c d e",
    ),
    "chaos_can_be_negative": (
        line_graph(4),
        ["-I", "3"],
        "iteration 5: every column's (max - sum of squares) is slightly negative; mcl prints -0.00",
    ),
    "sort_size_reverses_revsize": (
        line_graph(5),
        ["-I", "3", "-overlap", "keep", "-sort", "size"],
        "-sort size is the exact reverse of -sort revsize, ties included",
    ),
}


def family_minimal():
    inputs = {name: {"abc": text} for name, (text, _, _) in MINIMAL.items()}
    return inputs, _run_cases(inputs, [(name, name, args) for name, (_, args, _) in MINIMAL.items()])


#: Runs whose every iterand mcl dumps (``-dump ite``, 7 significant digits):
#: name -> (label file, mcl arguments).  Iterand 0 is the start matrix.
ITERAND_RUNS = {
    "cathat": (CATHAT, []),
    "triangle_bumped": (circulant(3, [1]), ["--discard-loops=n"]),
    "circulant11_bumped": (circulant(11, [1, 3]), ["--discard-loops=n"]),
    "loopy_preinflation": (LOOPY, ["-pi", "1.3", "-I", "1.6"]),
    "loopy_loop_gain": (LOOPY, ["-c", "0.2", "-pi", "1.2"]),
    "inflation_1.4": (MINIMAL["inflation_is_float32"][0], ["-I", "1.4"]),
    "line15_float32_zeros": (line_graph(15), ["-I", "5", "-P", "0", "-S", "0", "-R", "0"]),
    "planted40_pruned": (random_graph(77, "planted", 40, 6, "unif"), ["-I", "1.4", "-P", "30", "-S", "8", "-R", "12"]),
}


def mcl_iterands(abc, args):
    """The iterands mcl dumps for a label file: per iterand, per column, {row: value text}."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "in.abc"
        src.write_text(abc)
        cmd = ["mcl", str(src), "--abc", *args, "-o", "out", "-dump", "ite", "-dump-stem", "x",
               "-dump-interval", "0:100000"]
        subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, check=True)
        iterands = []
        while (Path(tmp) / f"ite-{len(iterands)}.x").exists():
            text = (Path(tmp) / f"ite-{len(iterands)}.x").read_text()
            body = text.split("begin", 1)[1].rsplit(")", 1)[0]
            columns = {}
            for entry in body.split("$"):
                tokens = entry.split()
                if tokens:
                    column = tokens[0].split(":")[0]
                    columns[column] = dict(t.split(":") for t in tokens[1:])
            iterands.append(columns)
        return iterands


def family_iterands():
    inputs = {name: {"abc": text} for name, (text, _) in ITERAND_RUNS.items()}
    cases = _run_cases(inputs, [(name, name, args) for name, (_, args) in ITERAND_RUNS.items()])
    for case in cases:
        case["iterands"] = mcl_iterands(*ITERAND_RUNS[case["id"]])
        if len(case["iterands"]) != case["iterations"] + 1:
            raise RuntimeError(f"{case['id']}: mcl dumped {len(case['iterands'])} iterands")
    return inputs, cases


FAMILIES = {
    "cathat": family_cathat,
    "lines": family_lines,
    "random": family_random,
    "abc": family_abc,
    "flipflop": family_flipflop,
    "preprocessing": family_preprocessing,
    "native": family_native,
    "networks": family_networks,
    "minimal": family_minimal,
    "iterands": family_iterands,
}


# ---------------------------------------------------------------------------
# reading and writing golden files


def golden_path(family):
    return GOLDEN / (f"{family}.json.gz" if family in GZIPPED else f"{family}.json")


def dump(family, version, inputs, cases):
    """Serialise deterministically: one input and one case a line."""
    lines = [
        "{",
        f'"family": {json.dumps(family)},',
        f'"mcl": {json.dumps(version)},',
        '"inputs": {',
        ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in inputs.items()),
        "},",
        '"cases": [',
        ",\n".join(json.dumps(c) for c in cases),
        "]",
        "}",
    ]
    text = "\n".join(lines) + "\n"
    json.loads(text)  # well-formed
    path = golden_path(family)
    tmp = path.with_name(path.name + ".tmp")
    if family in GZIPPED:
        with open(tmp, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz:
            gz.write(text.encode())
    else:
        tmp.write_text(text)
    tmp.replace(path)
    return path


def load(family):
    """The golden file of a family, as a dict."""
    path = golden_path(family)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        return json.load(f)


def main(argv):
    for tool in ("mcl", "mcxload"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is not on PATH: install the reference mcl 22-282 (Debian/Ubuntu: apt-get install mcl).")
    version = mcl_version()
    if "22-282" not in version:
        print(f"warning: the golden files are meant to come from mcl 22-282, this is {version!r}", file=sys.stderr)
    families = argv or list(FAMILIES)
    unknown = [f for f in families if f not in FAMILIES]
    if unknown:
        sys.exit(f"unknown families {unknown}; choose from {list(FAMILIES)}")
    for family in families:
        inputs, cases = FAMILIES[family]()
        path = dump(family, version, inputs, cases)
        bumped = sum(c["bumped"] for c in cases)
        longest = max(c["iterations"] for c in cases)
        print(f"{path.name}: {len(cases)} runs, {len(inputs)} inputs, longest {longest} iterations, "
              f"{bumped} bumped, {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main(sys.argv[1:])
