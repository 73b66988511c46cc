"""Fuzz netmcl's inputs: every input clusters as mcl clusters it, or fails with one clear line.

Usage::

    python benchmarks/fuzz.py [--cases 10000] [--seed 1] [--timeout 30] [--formats abc,native,...]
                              [--no-mcl] [--json FILE]

Case ``i`` of a seed is made from its own random generator, so any case can
be made again alone (``--first i --cases 1 --show``).  The formats:

``abc``
    label files (``netmcl FILE --abc``): edges with odd labels and weights,
    comments, blank lines, CR line ends, one-field lines, byte-order marks,
    UTF-16, gzip, NUL and other bytes mutated into them;
``native``
    mcl native matrices (``netmcl FILE``): domains, values, comments, repeated
    and out-of-order entries, then mutated bytes;
``string``
    STRING files (``netmcl string FILE``): the header kinds, separators and
    quoting, scores in and out of range, then mutated bytes;
``clusters``
    cluster files (label and native) given to ``netmcl dist`` and
    ``netmcl info``, mutated;
``flags``
    valid label files with random combinations of mcl's flags, values valid
    or not.

Each case runs ``netmcl.cli.main`` in a worker process (one case at a time;
a case that does not finish within ``--timeout`` seconds is a hang: the
worker is killed and a new one goes on with the next case).  It is:

* ``accepted`` (exit status 0): where ``mcl`` is on PATH and takes the same
  input and flags (``abc``, ``native``, ``flags``), its output file is compared
  byte for byte (native: without mcl's ``# cline`` line) -> ``identical`` or
  ``DIFFERENT``; ``mcl refused`` where mcl fails on it;
* ``clean error``: status 1 or 2 and one line ``netmcl...: error: ...`` on
  standard error; ``refused, mcl accepts`` counts those inputs mcl clusters
  (netmcl refuses what mcl would read wrongly), by reason;
* ``traceback``: status 3 ("a bug in netmcl"), an exception out of ``main``,
  or an error not on one line;
* ``hang``.

The target is 0 tracebacks, 0 hangs and 0 DIFFERENT.  A label file starting
with a UTF-8 byte-order mark is compared with mcl's clustering of the file
without it (netmcl drops the mark; mcl would make it part of the first
label).
"""

import argparse
import collections
import contextlib
import gzip
import io
import json
import os
import random
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # this checkout's netmcl, not an installed one
    sys.path.insert(0, str(ROOT))

FORMATS = ("abc", "native", "string", "clusters", "flags")
MCL = shutil.which("mcl")
#: seconds mcl may take on one case (tiny graphs: a run takes milliseconds)
MCL_TIMEOUT = 20
#: seconds a worker may take to start (a first run on a machine builds the kernels: minutes)
STARTUP_SECONDS = 600

# ---------------------------------------------------------------- making inputs

_LABELS = [
    "a", "b", "c", "d", "e", "f", "g", "h", "A", "B", "n1", "n2", "n10", "0", "1", "-1", "1e5", "x#y",
    "\u00fc", "\u540d", "caf\u00e9", "a:b", "$", "(", ")", "\u00a0", "x.y", "P12345", "9606.ENSP1",
]
_SPACED = ["two words", "a b", " lead", "trail "]
_WEIGHTS = [
    "", "1", "0.5", "2e-3", "0", "0.0", "1e-50", "3.4e38", "3.5e38", "1e39", "-1", "-0", "nan", "inf",
    "-inf", "0x1p3", "1,5", ".5", "5.", "+2", "00.7", "1e+2", "abc", "0.5x", "1e", "e5", "7\t8", "1 2",
    "999999999", "1.000000000000000000001", "4e-39", "1.17549435e-38",
]
_MUTANTS = [b"\t", b" ", b"\n", b"\r", b"#", b"\x00", b"\xff", b":", b"$", b"e", b"-", b".", b"(", b")",
            b"\xef\xbb\xbf", b"0", b"9", b"\\", b'"', b","]


def _mutate(rng, data):
    """`data` with a few random byte edits (flips, deletions, insertions, repeats, truncation)."""
    data = bytearray(data)
    for _ in range(rng.choice((1, 1, 2, 3, 5))):
        op = rng.random()
        pos = rng.randrange(len(data) + 1)
        if op < 0.25 and data:
            data[min(pos, len(data) - 1)] = rng.randrange(256)
        elif op < 0.45 and data:
            del data[pos : pos + rng.randrange(1, 6)]
        elif op < 0.75:
            data[pos:pos] = rng.choice(_MUTANTS)
        elif op < 0.9 and data:
            start = rng.randrange(len(data))
            data[pos:pos] = data[start : start + rng.randrange(1, 40)]
        else:
            del data[pos:]
    return bytes(data)


def _abc_text(rng, valid):
    """A label file's text: edges, comments and blank lines, and (unless `valid`) now
    and then a malformed line or an odd weight."""
    labels = rng.sample(_LABELS, rng.randrange(2, 12))
    tabs = rng.random() < 0.5
    if tabs and rng.random() < 0.3:
        labels += rng.sample(_SPACED, 2)
    sep = "\t" if tabs else rng.choice((" ", "  ", " \t"))
    odd = 0.0 if valid else rng.choice((0.02, 0.05, 0.1, 0.3))
    lines = []
    for _ in range(rng.randrange(1, 30)):
        u, v = rng.choice(labels), rng.choice(labels)
        if rng.random() >= odd:
            w = rng.choice(("", "1", "0.5", "2", "0.25", "3e-2", "7", "0", "100", "1.5e1", "0.001"))
            lines.append(sep.join((u, v, w)) if w else sep.join((u, v)))
            if rng.random() < 0.05:
                lines.append(rng.choice(("# comment", "#", "   # indented", "", "  ")))
            continue
        kind = rng.random()
        if kind < 0.6:
            lines.append(sep.join((u, v, rng.choice(_WEIGHTS))))
        elif kind < 0.75:
            lines.append(u)  # one field
        elif kind < 0.85:
            lines.append(f"\t{u}\t{v}")
        else:
            lines.append(sep.join((u, v, "1", "extra")))
    end = "\r\n" if rng.random() < 0.1 else "\n"
    return (end.join(lines) + (end if rng.random() < 0.9 else "")).encode("utf-8")


def _native_text(rng, valid):
    """An mcl native matrix: a random graph, with domains sometimes."""
    n = rng.randrange(1, 25)
    canonical = valid or rng.random() < 0.6
    ids = list(range(n)) if canonical else sorted(rng.sample(range(3 * n + 5), n))
    out = ["(mclheader", "mcltype matrix", f"dimensions {n}x{n}", ")"]
    if rng.random() < 0.2:
        out.insert(0, "# a comment")
    if not canonical:
        out += ["(mcldoms", " ".join(map(str, ids)) + " $", ")"]
    out += ["(mclmatrix", "begin"]
    cols = list(ids)
    if not valid and rng.random() < 0.2:
        rng.shuffle(cols)
    for c in cols:
        if rng.random() < 0.2:
            continue
        entries = []
        for r in rng.sample(ids, rng.randrange(0, min(n, 6) + 1)):
            value = rng.choice(("", ":1", ":0.5", ":2", ":0.125", ":3")) if valid else rng.choice(
                ("", ":1", ":0.5", ":0", ":-1", ":1e39", ":nan", ":x", ":", ":1e-50", ":2e3"))
            entries.append(f"{r}{value}")
        out.append(" ".join([str(c), *entries, "$"]))
    out.append(")")
    return ("\n".join(out) + "\n").encode()


_STRING_HEADERS = [
    ("protein1 protein2 combined_score", " ", 1000),
    ("protein1\tprotein2\tcombined_score", "\t", 1000),
    ("stringId_A\tstringId_B\tpreferredName_A\tpreferredName_B\tncbiTaxonId\tscore\tnscore", "\t", 1),
    ("#node1\tnode2\tnode1_string_id\tnode2_string_id\tcombined_score", "\t", 1),
    ('"from","to","combined_score"', ",", 1000),
    ("from to combined_score", " ", 1000),
]


def _string_text(rng):
    header, sep, scale = rng.choice(_STRING_HEADERS)
    width = len(header.split(sep))
    proteins = [f"9606.ENSP{k:05d}" for k in rng.sample(range(100), rng.randrange(2, 12))]
    lines = [header]
    for _ in range(rng.randrange(1, 25)):
        a, b = rng.choice(proteins), rng.choice(proteins)
        score = rng.randrange(0, 1001) if rng.random() < 0.95 else rng.choice((rng.random(), -5, 2000, "x", "", "nan"))
        score = score / 1000 if scale == 1 and isinstance(score, int) and 0 <= score <= 1000 else score
        cells = [a, b, *[a[-3:], b[-3:], "9606"][: width - 3], str(score)][:width]
        cells += ["0.1"] * (width - len(cells))
        if sep == ",":
            cells = [f'"{c}"' if rng.random() < 0.5 else c for c in cells]
        lines.append(sep.join(cells))
    return ("\n".join(lines) + "\n").encode()


def _cluster_text(rng, labels, native):
    nodes = list(labels)
    rng.shuffle(nodes)
    clusters, k = [], 0
    while k < len(nodes):
        size = rng.randrange(1, 5)
        clusters.append(nodes[k : k + size])
        k += size
    if not native:
        return "".join("\t".join(c) + "\n" for c in clusters).encode()
    index = {v: i for i, v in enumerate(labels)}
    out = ["(mclheader", "mcltype matrix", f"dimensions {len(labels)}x{len(clusters)}", ")", "(mclmatrix", "begin"]
    out += [" ".join([str(j), *(str(index[v]) for v in c), "$"]) for j, c in enumerate(clusters)]
    return ("\n".join([*out, ")"]) + "\n").encode()


#: mcl's flags netmcl takes, with values valid and not
_FLAGS = {
    "-I": ["1.2", "1.4", "2", "3", "5", "6", "1", "0.5", "0", "-2", "abc", "31"],
    "-pi": ["1.5", "2", "0.5", "0", "-1"],
    "-c": ["0", "0.5", "1", "2", "-1"],
    "-P": ["1000", "4000", "10", "0", "-3", "x"],
    "-p": ["0.01", "0.0001", "0.5", "0", "2"],
    "-S": ["50", "1", "5", "0", "-1"],
    "-R": ["100", "1", "0", "-2"],
    "-pct": ["90", "50", "100", "0", "120"],
    "-scheme": ["1", "4", "6", "7", "0", "8"],
    "-resource": ["10", "1", "0"],
    "-L": ["1", "3", "0", "-1"],
    "-overlap": ["cut", "keep", "split", "none"],
    "-sort": ["revsize", "size", "lex", "none", "bogus"],
    "-discard-loops": ["y", "n", "maybe"],
    "-te": ["1", "2", "0"],
}


class Case:
    """One input: its format, files (name -> bytes), netmcl's argv and mcl's, with
    ``{dir}`` standing for the case's directory."""

    def __init__(self, index, fmt, files, argv, mcl_argv=None, mcl_files=None, output="out", native_out=False):
        self.index, self.format, self.files, self.argv = index, fmt, files, argv
        self.mcl_argv, self.mcl_files, self.output, self.native_out = mcl_argv, mcl_files, output, native_out


def make_case(seed, index, formats=FORMATS):
    """Case `index` of `seed` (the same case every time)."""
    rng = random.Random(seed * 1_000_003 + index)
    fmt = formats[index % len(formats)]
    if fmt == "abc":
        data = _abc_text(rng, valid=rng.random() < 0.3)
        if rng.random() < 0.4:
            data = _mutate(rng, data)
        for_mcl = data
        roll = rng.random()
        if roll < 0.04:
            data = b"\xef\xbb\xbf" + data
        elif roll < 0.06:
            data = data.decode("utf-8", "surrogateescape").encode("utf-16", "surrogatepass")
            for_mcl = data
        elif roll < 0.1:
            data = gzip.compress(data, mtime=0)
        flags = _flags(rng, valid=True) if rng.random() < 0.3 else []
        return Case(index, fmt, {"in.abc": data}, ["{dir}/in.abc", "--abc", *flags, "-o", "{dir}/out"],
                    ["mcl", "{dir}/mcl.abc", "--abc", *flags, "-o", "{dir}/mcl.out"], {"mcl.abc": for_mcl})
    if fmt == "native":
        data = _native_text(rng, valid=rng.random() < 0.4)
        if rng.random() < 0.5:
            data = _mutate(rng, data)
        flags = _flags(rng, valid=True) if rng.random() < 0.3 else []
        return Case(index, fmt, {"in.mci": data}, ["{dir}/in.mci", *flags, "-o", "{dir}/out"],
                    ["mcl", "{dir}/in.mci", *flags, "-o", "{dir}/mcl.out"], native_out=True)
    if fmt == "string":
        data = _string_text(rng)
        if rng.random() < 0.5:
            data = _mutate(rng, data)
        extra = rng.choice(([], ["--min-score", "700"], ["--min-score", "0"], ["--format", "labels"], ["-I", "3"]))
        return Case(index, fmt, {"links.txt": data}, ["string", "{dir}/links.txt", *extra, "-o", "{dir}/out"])
    if fmt == "clusters":
        from netmcl.io import read_abc

        graph = _abc_text(rng, valid=True)
        labels = read_abc(io.BytesIO(graph)).labels
        files = {"g.abc": graph}
        for name in ("a.cl", "b.cl"):
            text = _cluster_text(rng, labels, native=rng.random() < 0.3)
            files[name] = _mutate(rng, text) if rng.random() < 0.6 else text
        if rng.random() < 0.5:
            argv = ["dist", "{dir}/a.cl", "{dir}/b.cl", *rng.choice(([], ["-mode", "vi"], ["--index"], ["--all"]))]
        else:
            argv = ["info", "{dir}/g.abc", "{dir}/a.cl", "{dir}/b.cl"]
        return Case(index, fmt, files, [*argv, "-o", "{dir}/out"])
    data = _abc_text(rng, valid=True)
    flags = _flags(rng, valid=rng.random() < 0.6)
    return Case(index, "flags", {"in.abc": data}, ["{dir}/in.abc", "--abc", *flags, "-o", "{dir}/out"],
                ["mcl", "{dir}/in.abc", "--abc", *flags, "-o", "{dir}/mcl.out"])


def _flags(rng, valid):
    out = []
    for flag in rng.sample(sorted(_FLAGS), rng.randrange(1, 5)):
        values = _FLAGS[flag]
        out += [flag, rng.choice(values[: max(1, len(values) // 2)] if valid else values)]
    return out


# ---------------------------------------------------------------- running them


class Hang(BaseException):
    """A case ran past its time (raised by a timer in the tests' in-process runs)."""


def _clean_error(err):
    lines = [line for line in err.splitlines() if line.strip()]
    errors = [line for line in lines if ": error: " in line]
    return len(errors) == 1 and lines[-1] == errors[0] and errors[0].startswith("netmcl") and "Traceback" not in err


def _reason(err):
    """An error message without file names and values: the kind of refusal."""
    text = err.strip().splitlines()[-1].split(": error: ", 1)[-1]
    text = re.sub(r"^\S+?(, line \d+)?: ", "", text)
    text = re.sub(r"Got .*", "", text)
    return re.sub(r"\d+", "N", text)[:90]


def run_case(case, workdir, use_mcl=True):
    """Run `case` in `workdir` (emptied first); return (outcome, detail)."""
    from netmcl.cli import main

    for entry in os.scandir(workdir):
        os.unlink(entry.path)
    for name, data in {**case.files, **(case.mcl_files or {})}.items():
        Path(workdir, name).write_bytes(data)
    argv = [a.replace("{dir}", str(workdir)) for a in case.argv]
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv)
    except Hang:
        raise
    except BaseException as exc:  # anything out of main is a bug
        return "traceback", f"{type(exc).__name__}: {exc}"
    err = err.getvalue()
    if status == 0:
        outcome = "accepted"
    elif status in (1, 2) and _clean_error(err):
        outcome = "clean error"
    else:
        return "traceback", f"status {status}: {err.strip()[-300:]}"
    if not (use_mcl and MCL and case.mcl_argv):
        return outcome, _reason(err) if outcome == "clean error" else ""
    mcl_argv = [MCL if a == "mcl" else a.replace("{dir}", str(workdir)) for a in case.mcl_argv]
    try:
        done = subprocess.run(mcl_argv, cwd=workdir, capture_output=True, timeout=MCL_TIMEOUT)
    except subprocess.TimeoutExpired:
        return outcome, "mcl hung"
    mcl_ok = done.returncode == 0 and Path(workdir, "mcl.out").exists()
    if outcome == "clean error":
        return ("refused, mcl accepts" if mcl_ok else "clean error"), _reason(err)
    if not mcl_ok:
        return "mcl refused", done.stderr.decode("utf-8", "replace").strip()[-200:]
    theirs = Path(workdir, "mcl.out").read_bytes()
    if case.native_out and theirs.startswith(b"# cline"):
        theirs = theirs.split(b"\n", 1)[1]
    return ("identical" if Path(workdir, case.output).read_bytes() == theirs else "DIFFERENT"), ""


def _worker(args):
    """Run cases first .. first + cases - 1, one JSON line each on standard output."""
    formats = tuple(args.formats.split(","))
    import netmcl.cli  # noqa: F401  (imported, as the kernels are loaded, before the first case)
    from netmcl._compiled import kernels

    kernels()  # loaded (built on a new machine) before the first case's clock starts
    print(json.dumps({"ready": True}), flush=True)
    with tempfile.TemporaryDirectory(prefix="netmcl-fuzz-") as workdir:
        for index in range(args.first, args.first + args.cases):
            case = make_case(args.seed, index, formats)
            outcome, detail = run_case(case, workdir, use_mcl=not args.no_mcl)
            print(json.dumps({"case": index, "format": case.format, "outcome": outcome, "detail": detail}), flush=True)


def _format_of(index, formats):
    formats = formats.split(",")
    return formats[index % len(formats)]


def _drive(args):
    """Run the cases in worker processes, a new one after a hang; return the records."""
    records, index, end = [], args.first, args.first + args.cases
    started = time.monotonic()
    while index < end:
        cmd = [sys.executable, __file__, "--worker", "--seed", str(args.seed), "--first", str(index),
               "--cases", str(end - index), "--formats", args.formats] + (["--no-mcl"] if args.no_mcl else [])
        child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
        pending, started_up = b"", False
        while index < end:
            ready, _, _ = select.select([child.stdout], [], [], args.timeout if started_up else STARTUP_SECONDS)
            if not ready:  # the case `index` hangs
                child.kill()
                child.wait()
                fmt = _format_of(index, args.formats)
                records.append({"case": index, "format": fmt, "outcome": "hang", "detail": f"> {args.timeout} s"})
                index += 1
                break
            chunk = os.read(child.stdout.fileno(), 65536)
            if not chunk:  # the worker died: the case it was on crashed it
                child.wait()
                fmt = _format_of(index, args.formats)
                tail = child.stderr.read().decode("utf-8", "replace")[-300:]
                records.append({"case": index, "format": fmt, "outcome": "traceback", "detail": f"worker died: {tail}"})
                index += 1
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                record = json.loads(line)
                if "ready" in record:
                    started_up = True
                    continue
                records.append(record)
                index = record["case"] + 1
            if args.progress and lines:
                print(f"\r{index - args.first}/{args.cases} cases, {time.monotonic() - started:.0f} s",
                      end="", file=sys.stderr, flush=True)
        else:
            child.wait()
    if args.progress:
        print(file=sys.stderr)
    return records


def report(records, seconds=None):
    """The figures as a markdown table, and the cases worth a look."""
    formats = list(dict.fromkeys(r["format"] for r in records))
    columns = ["clean error", "refused, mcl accepts", "accepted", "identical", "DIFFERENT", "mcl refused",
               "traceback", "hang"]
    counts = {f: collections.Counter() for f in formats}
    for r in records:
        c = counts[r["format"]]
        c[r["outcome"]] += 1
        if r["outcome"] in ("identical", "DIFFERENT", "mcl refused"):
            c["accepted"] += 1
        if r["outcome"] == "refused, mcl accepts":
            c["clean error"] += 1
    lines = ["| format | cases | " + " | ".join(columns) + " |", "|---" * (len(columns) + 2) + "|"]
    total = collections.Counter()
    for f in formats:
        n = sum(1 for r in records if r["format"] == f)
        total["cases"] += n
        for col in columns:
            total[col] += counts[f][col]
        lines.append(f"| {f} | {n} | " + " | ".join(str(counts[f][col]) for col in columns) + " |")
    lines.append(f"| all | {total['cases']} | " + " | ".join(str(total[col]) for col in columns) + " |")
    text = "\n".join(lines)
    if seconds is not None:
        text += f"\n\n{len(records)} cases in {seconds:.0f} s."
    refusals = collections.Counter(r["detail"] for r in records if r["outcome"] == "refused, mcl accepts")
    if refusals:
        text += "\n\nRefused where mcl clusters the input, by reason:\n"
        text += "\n".join(f"- {n} x {reason}" for reason, n in refusals.most_common(12))
    bad = [r for r in records if r["outcome"] in ("traceback", "hang", "DIFFERENT", "mcl refused")]
    if bad:
        text += "\n\nCases to look at (python benchmarks/fuzz.py --first CASE --cases 1 --show):\n"
        text += "\n".join(f"- case {r['case']} ({r['format']}): {r['outcome']} {r['detail'][:200]}" for r in bad[:40])
    return text


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", type=int, default=10_000)
    p.add_argument("--first", type=int, default=0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--timeout", type=float, default=30.0, help="seconds a case may take before it is a hang")
    p.add_argument("--formats", default=",".join(FORMATS))
    p.add_argument("--no-mcl", action="store_true", help="do not compare with mcl")
    p.add_argument("--json", help="write every case's record to this file")
    p.add_argument("--show", action="store_true", help="print the cases' input files and argv, do not run them")
    p.add_argument("--progress", action="store_true")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        _worker(args)
        return 0
    if args.show:
        with contextlib.suppress(BrokenPipeError):  # | head
            for index in range(args.first, args.first + args.cases):
                case = make_case(args.seed, index, tuple(args.formats.split(",")))
                print(f"case {index} ({case.format}): netmcl {' '.join(case.argv)}")
                for name, data in {**case.files, **(case.mcl_files or {})}.items():
                    print(f"--- {name}\n{data!r}")
        return 0
    started = time.monotonic()
    records = _drive(args)
    seconds = time.monotonic() - started
    if args.json:
        Path(args.json).write_text("\n".join(json.dumps(r) for r in records) + "\n")
    print(f"seed {args.seed}, cases {args.first}..{args.first + args.cases - 1}, mcl: "
          f"{'not compared' if args.no_mcl or not MCL else MCL}\n")
    print(report(records, seconds))
    bad = sum(r["outcome"] in ("traceback", "hang", "DIFFERENT") for r in records)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
