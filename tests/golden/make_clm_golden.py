"""Capture what mcl and clm 22-282 answer on the cases of netmcl's analysis, STRING and sweep tests.

Run from anywhere, with ``mcl``, ``mcxload`` and ``clm`` on PATH::

    python tests/golden/make_clm_golden.py

It writes ``tests/golden/clm/golden.json`` and the clusterings mcl wrote
(``tests/golden/clm/*.txt.gz``, one cluster per line as ``mcl --abc`` writes
them).  For every case it records

* ``clusterings``: ``mcl <graph> --abc -I <I>`` at each inflation;
* ``info``: the line ``clm info <graph.mci> <clustering>`` prints, one call per
  clustering (``clm info`` given several clusterings measures the second and
  later ones on a graph without the loops it added for the first);
* ``dist``: the lines of ``clm dist`` (split/join), ``-mode vi``, ``-mode mk``
  and ``--index`` over all the clusterings of the case.

Graphs are given to clm as ``mcxload -abc <graph> --stream-mirror`` makes
them, and label clusterings are turned into native ones with the label table
mcxload wrote, so clm sees the same nodes in the same order as mcl.

The cases:

``collins``
    The Collins 2007 yeast network (tests/data/networks), I = 1.4, 2, 3, 4, 6.
``string700``, ``string400``, ``string900``
    The STRING ``protein.links`` fixture (tests/data/string) filtered at
    combined_score >= 700 / 400 / 900, weights score/1000, as
    :func:`netmcl.read_string` builds it; I = 1.4, 2, 4.  ``raw_clusterings``
    holds mcl's clusters on the same rows with the raw integer scores
    (the file minus its header), which must be the same clusters.
``loops``
    A small graph with loops, an isolated node (weight-0 edge) and a
    loop-only node, with hand-made clusterings (``clusterings`` given, not
    computed), for clm info's loop handling.

The same module is imported by tests/test_analysis.py, tests/test_string.py and
tests/test_sweep.py for the helpers that run mcl and clm live.
"""

import gzip
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent
OUT = GOLDEN / "clm"
DATA = GOLDEN.parent / "data"
COLLINS = DATA / "networks" / "clusterone_collins2007.txt.gz"
STRING_LINKS = DATA / "string" / "9606.protein.links.sample.txt.gz"

COLLINS_INFLATIONS = ["1.4", "2", "3", "4", "6"]
STRING_INFLATIONS = ["1.4", "2", "4"]
STRING_THRESHOLDS = [400, 700, 900]

#: The ``loops`` case: a label graph and clusterings of it (labels).
LOOPS_ABC = (
    "a\tb\t0.5\nb\tc\t2\nc\ta\t1\nc\td\t0.3\nd\te\t1\ne\tf\t0.7\nf\td\t0.2\n"
    "a\ta\t5\nd\td\t0.1\ng\tg\t3\nh\ti\t0\n"
)
LOOPS_CLUSTERINGS = {
    "cut": [["a", "b", "c"], ["d", "e", "f"], ["g"], ["h"], ["i"]],
    "two": [["a", "b", "c", "d"], ["e", "f", "g", "h", "i"]],
    "one": [["a", "b", "c", "d", "e", "f", "g", "h", "i"]],
}


def have_tools():
    """True when mcl, mcxload and clm are all on PATH."""
    return all(shutil.which(tool) for tool in ("mcl", "mcxload", "clm"))


def _run(argv, cwd):
    done = subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


def string_abc(min_score, *, raw=False):
    """The label-file text mcl is given for the STRING fixture at `min_score`.

    Rows in file order with combined_score >= min_score; weights score/1000
    (repr of the float, as netmcl.read_string stores them) or, with `raw`,
    the integer scores as in the file.
    """
    out = []
    with gzip.open(STRING_LINKS, "rt") as fh:
        next(fh)
        for line in fh:
            a, b, score = line.split()
            if int(score) >= min_score:
                out.append(f"{a}\t{b}\t{score if raw else repr(int(score) / 1000)}\n")
    return "".join(out)


def mcl_clusters(abc_text, inflation, workdir):
    """``mcl graph --abc -I inflation``'s clusters (lists of labels)."""
    workdir = Path(workdir)
    (workdir / "g.abc").write_text(abc_text)
    text = _run(["mcl", "g.abc", "--abc", "-I", inflation, "-o", "-"], workdir)
    return [line.split("\t") for line in text.splitlines() if line]


def _native_setup(abc_text, workdir):
    """mcxload the graph; return {label: index}."""
    workdir = Path(workdir)
    (workdir / "g.abc").write_text(abc_text)
    _run(["mcxload", "-abc", "g.abc", "--stream-mirror", "-write-tab", "g.tab", "-o", "g.mci"], workdir)
    index = {}
    for line in (workdir / "g.tab").read_text().splitlines():
        i, label = line.split("\t", 1)
        index[label] = int(i)
    return index


def _write_native(path, clusters, index):
    n = len(index)
    lines = [f"(mclheader\nmcltype matrix\ndimensions {n}x{len(clusters)}\n)\n(mclmatrix\nbegin\n"]
    for k, cluster in enumerate(clusters):
        lines.append(f"{k} " + " ".join(str(i) for i in sorted(index[v] for v in cluster)) + " $\n")
    lines.append(")\n")
    Path(path).write_text("".join(lines))


def clm_figures(abc_text, clusterings, workdir):
    """clm info (one call per clustering) and clm dist lines, for named label clusterings."""
    workdir = Path(workdir)
    index = _native_setup(abc_text, workdir)
    names = list(clusterings)
    for name in names:
        _write_native(workdir / f"{name}.cl", clusterings[name], index)
    info = {name: _run(["clm", "info", "g.mci", f"{name}.cl"], workdir).strip() for name in names}
    files = [f"{name}.cl" for name in names]
    dist = {}
    if len(names) > 1:
        for mode, flags in (("sj", []), ("vi", ["-mode", "vi"]), ("mk", ["-mode", "mk"]), ("index", ["--index"])):
            dist[mode] = _run(["clm", "dist", *flags, *files], workdir).splitlines()
    return {"info": info, "dist": dist}


def parse_fields(line):
    """``key=value`` fields of a clm line, file names left out, values as text."""
    fields = {}
    for token in line.replace("\t", " ").split():
        key, sep, value = token.partition("=")
        if sep and key not in ("n1", "n2", "src", "source"):
            fields[key] = value
    return fields


def _write_clusters_gz(path, clusters):
    text = "".join("\t".join(c) + "\n" for c in clusters)
    with gzip.GzipFile(path, "wb", compresslevel=9, mtime=0) as fh:
        fh.write(text.encode())


def main():
    if not have_tools():
        sys.exit("mcl, mcxload and clm must be on PATH")
    OUT.mkdir(exist_ok=True)
    golden = {
        "mcl": _run(["mcl", "--version"], ".").splitlines()[0],
        "cases": {},
    }
    cases = {
        "collins": (gzip.decompress(COLLINS.read_bytes()).decode(), COLLINS_INFLATIONS, None),
        "loops": (LOOPS_ABC, None, LOOPS_CLUSTERINGS),
    }
    for t in STRING_THRESHOLDS:
        cases[f"string{t}"] = (string_abc(t), STRING_INFLATIONS, None)
    for name, (abc_text, inflations, given) in cases.items():
        with tempfile.TemporaryDirectory() as tmp:
            case = {}
            if given is None:
                clusterings = {I: mcl_clusters(abc_text, I, tmp) for I in inflations}
                case["clusterings"] = {}
                for I, clusters in clusterings.items():
                    fname = f"{name}.I{I.replace('.', '')}.txt.gz"
                    _write_clusters_gz(OUT / fname, clusters)
                    case["clusterings"][I] = fname
                if name.startswith("string"):
                    raw = string_abc(int(name[len("string"):]), raw=True)
                    case["raw_clusterings_equal"] = {
                        I: mcl_clusters(raw, I, tmp) == clusterings[I] for I in inflations
                    }
            else:
                clusterings = given
                case["given"] = given
            case.update(clm_figures(abc_text, clusterings, tmp))
        golden["cases"][name] = case
        print(name, {k: len(v) for k, v in case.items() if isinstance(v, (dict, list))})
    (OUT / "golden.json").write_text(json.dumps(golden, indent=1) + "\n")


if __name__ == "__main__":
    main()
