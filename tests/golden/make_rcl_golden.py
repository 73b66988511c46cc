"""Capture what rcl 22-282 (mcl's multi-resolution consensus clustering) writes, for tests/test_rcl.py.

Run from anywhere, with ``mcl``, ``mcxload`` and ``rcl`` on PATH::

    python tests/golden/make_rcl_golden.py

For each case it loads the network with ``mcxload -abc FILE --stream-mirror``,
clusters it with ``mcl NETWORK.mci -I <I>`` at each inflation (native
clusterings), runs::

    rcl setup  TAG -n g.mci -t g.tab g.I*.cls
    rcl tree   TAG
    rcl select TAG -r "<resolutions>"

and stores in ``tests/golden/rcl/<case>.json.gz``: the label table, the
clusterings (each as the cluster number of every node), and the text of every
file rcl wrote in TAG except the copies of its inputs (``rcl.input``,
``rcl.tab``), its logs (``rcl.cline``, ``rcl.lsocls``, ``rcl.nitems``) and
``rcl.vol`` (clm vol's node scores, which netmcl does not write).

The cases:

``collins``
    The Collins 2007 yeast network (tests/data/networks), I = 1.4, 2, 3, 4, 6;
    resolutions 10 20 50.
``gavin``
    The Gavin 2006 socio-affinity network (tests/data/networks), I = 1.2, 1.4,
    1.7, 2, 2.5, 3, 4; resolutions 5 20 80.
``isolated``
    A small network with nodes that have no edges (they are single-node tree
    roots, ``sgl_<node>``, in rcl's join order), I = 1.4, 2, 3; resolutions
    2 4.

rcl lists clusters of equal size in an order that changes from run to run;
the tests compare those files as sets of clusters (see tests/test_rcl.py).
"""

import gzip
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent
OUT = GOLDEN / "rcl"
NETWORKS = GOLDEN.parent / "data" / "networks"

#: a network with isolated nodes: "x", "y" and "z" are mentioned only with weight 0
ISOLATED_ABC = (
    "a\tb\t1\na\tc\t1\nb\tc\t1\nc\td\t0.2\nd\te\t1\nd\tf\t1\ne\tf\t1\nf\tg\t0.1\n"
    "g\th\t1\ng\ti\t1\nh\ti\t1\nx\ty\t0\nz\ta\t0\n"
)

CASES = {
    "collins": {"abc": NETWORKS / "clusterone_collins2007.txt.gz", "inflations": ["1.4", "2", "3", "4", "6"],
                "resolutions": "10 20 50"},
    "gavin": {"abc": NETWORKS / "clusterone_gavin2006_socioaffinities_rescaled.txt.gz",
              "inflations": ["1.2", "1.4", "1.7", "2", "2.5", "3", "4"], "resolutions": "5 20 80"},
    "isolated": {"abc": None, "inflations": ["1.4", "2", "3"], "resolutions": "2 4"},
}

#: files of TAG not stored: copies of the inputs, logs, and clm vol's node scores
SKIPPED = {"rcl.input", "rcl.tab", "rcl.cline", "rcl.lsocls", "rcl.nitems", "rcl.vol"}


def have_tools():
    """True when mcl, mcxload and rcl (with the clm it runs) are on PATH."""
    return all(shutil.which(tool) for tool in ("mcl", "mcxload", "rcl", "clm"))


def abc_text(case):
    spec = CASES[case]
    if spec["abc"] is None:
        return ISOLATED_ABC
    with gzip.open(spec["abc"], "rt") as fh:
        return fh.read()


def _run(argv, cwd):
    return subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True, check=True).stdout


def native_inputs(case, workdir):
    """mcxload the case's network and mcl it at each inflation, in `workdir`; returns the clustering files."""
    workdir = Path(workdir)
    (workdir / "g.abc").write_text(abc_text(case))
    _run(["mcxload", "-abc", "g.abc", "--stream-mirror", "-write-tab", "g.tab", "-o", "g.mci"], workdir)
    files = []
    for inflation in CASES[case]["inflations"]:
        name = f"g.I{inflation}.cls"
        _run(["mcl", "g.mci", "-I", inflation, "-o", name], workdir)
        files.append(name)
    return files


def run_rcl(workdir, files, resolutions, tag="T"):
    """rcl setup / tree / select in `workdir`; returns {file name: text} of what rcl wrote in TAG."""
    workdir = Path(workdir)
    _run(["rcl", "setup", tag, "-n", "g.mci", "-t", "g.tab", *files], workdir)
    _run(["rcl", "tree", tag], workdir)
    _run(["rcl", "select", tag, "-r", resolutions], workdir)
    return {p.name: p.read_text() for p in sorted((workdir / tag).iterdir()) if p.name not in SKIPPED}


def memberships(path):
    """The cluster number of every node of a native clustering file."""
    text = Path(path).read_text()
    dims = text.split("dimensions ", 1)[1].split("\n", 1)[0]
    n = int(dims.split("x")[0])
    member = [-1] * n
    body = text.split("begin", 1)[1].rsplit(")", 1)[0]
    for column in body.split("$"):
        tokens = column.split()
        if tokens:
            for v in tokens[1:]:
                member[int(v)] = int(tokens[0])
    return member


def make_case(case):
    with tempfile.TemporaryDirectory() as tmp:
        files = native_inputs(case, tmp)
        outputs = run_rcl(tmp, files, CASES[case]["resolutions"])
        tab = [line.split("\t", 1)[1] for line in (Path(tmp) / "g.tab").read_text().splitlines()]
        return {
            "case": case,
            "inflations": CASES[case]["inflations"],
            "resolutions": CASES[case]["resolutions"],
            "tab": tab,
            "clusterings": [memberships(Path(tmp) / f) for f in files],
            "files": outputs,
        }


def main():
    if not have_tools():
        raise SystemExit("make_rcl_golden.py needs mcl, mcxload, clm and rcl on PATH (Debian package mcl).")
    OUT.mkdir(exist_ok=True)
    for case in CASES:
        data = make_case(case)
        with gzip.GzipFile(OUT / f"{case}.json.gz", "wb", mtime=0, compresslevel=9) as fh:
            fh.write(json.dumps(data, sort_keys=True).encode())
        print(f"{case}: {len(data['files'])} files")


if __name__ == "__main__":
    main()
