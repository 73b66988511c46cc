"""Every example of the README runs as written, so the README cannot rot.

The Python blocks run, in order, as one script in a fresh process in an
empty directory (the picture it saves and the network it pushes to the CyREST
stand-in are checked).  Each command of the shell blocks runs in an empty
directory holding the files it names (the bundled yeast network as
``net.abc``, STRING's sample files under the names of a real download, ...).
The install commands are not run again: they are checked against ``.ci/run``
and pyproject.toml.
"""

import gzip
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import netmcl
from netmcl.datasets import collins2007_path, cyc2008_path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
STRING_SAMPLE = ROOT / "tests" / "data" / "string"

#: commands of the shell blocks checked rather than run: they set up or test the checkout itself
NOT_RUN = ("python3 -m venv ", ". .venv/bin/activate", "python3 -m pip install ", "python3 -m pytest")


def _blocks(language, text=README):
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.S | re.M)


def _commands(block):
    """The commands of a shell block: comments dropped, ``&&`` chains split."""
    for line in block.splitlines():
        line = re.sub(r"\s+#.*$", "", line).strip()
        if line and not line.startswith("#"):
            yield from (part.strip() for part in line.split(" && "))


def _env():
    return dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")


def _inputs(directory):
    """The files the README's commands read, under the names the README gives them."""
    with gzip.open(collins2007_path(), "rb") as src:
        (directory / "net.abc").write_bytes(src.read())
    with gzip.open(cyc2008_path(), "rb") as src:
        (directory / "complexes.txt").write_bytes(src.read())
    netmcl.write_mci(directory / "graph.mci", netmcl.read_abc(directory / "net.abc"), tab=directory / "graph.tab")
    with gzip.open(ROOT / "tests" / "data" / "networks" / "skunavirus_protein_graphs.txt.gz", "rb") as src:
        (directory / "hits.abc").write_bytes(src.read())  # DIAMOND e-values
    genes = netmcl.datasets.load_yeast_gene_names()
    (directory / "genes.tsv").write_text("".join(f"{orf}\t{gene}\n" for orf, gene in genes.items()))
    (directory / "complexes.gmt").write_text("".join(
        f"{name}\tCYC2008\t" + "\t".join(members) + "\n"
        for name, members in netmcl.datasets.load_cyc2008(named=True).items()))
    shutil.copy(STRING_SAMPLE / "9606.protein.links.sample.txt.gz", directory / "4932.protein.links.v12.0.txt.gz")
    shutil.copy(STRING_SAMPLE / "9606.protein.info.sample.txt.gz", directory / "4932.protein.info.v12.0.txt.gz")


@pytest.fixture(scope="module")
def cytoscape():
    """The CyREST stand-in where py4cytoscape looks for Cytoscape (port 1234)."""
    pytest.importorskip("py4cytoscape", reason="the README's Cytoscape lines need pip install 'netmcl[test]'")
    from netmcl.testing.cyrest_standin import CyRESTStandIn

    standin = CyRESTStandIn()
    for attempt in range(20):  # another test module's stand-in may still hold the port
        try:
            standin.start()
            break
        except OSError:
            if attempt == 19:
                raise
            time.sleep(0.5)
    yield standin
    standin.stop()


def test_the_readme_has_its_blocks():
    assert len(_blocks("python")) >= 2 and len(_blocks("bash")) >= 3
    assert len(README.splitlines()) <= 250  # a manual to read in one sitting; the docs hold the rest


def test_the_readme_speaks_of_the_product_not_its_history():
    assert not re.search(r"\bsessions? \d+", README, flags=re.I)


def test_python_blocks_run_as_one_script(tmp_path, cytoscape):
    for module in ("pandas", "matplotlib"):
        pytest.importorskip(module, reason="the README's Python lines need pip install 'netmcl[test]'")
    cytoscape.reset()
    script = tmp_path / "readme.py"
    script.write_text("\n\n".join(_blocks("python")))
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=_env(), capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    assert "300 clusters of 1622 nodes" in run.stdout  # clusters.summary(), mcl's clustering of Collins 2007
    assert (tmp_path / "clusters.png").stat().st_size > 10_000  # plt.savefig() after netmcl.draw()
    assert (tmp_path / "rcl.png").stat().st_size > 10_000  # the rcl hierarchy
    page = (tmp_path / "clusters.html").read_text(encoding="utf-8")  # netmcl.view, with names
    assert '"cytoplasmic ribosomal large subunit"' in page and '"TFC3"' in page
    (network,) = cytoscape.networks
    assert len(set(network.node_table.column("mcl_cluster"))) == 300


def _run_command(command, directory):
    """Run one README command; return (exit status, standard error).

    ``netmcl ARGS`` runs ``netmcl.cli.main(ARGS)`` and ``python3 -m netmcl.X ARGS``
    ``netmcl.X.main(ARGS)`` in this process (the console script and ``-m`` run
    exactly these); a command that talks to Cytoscape runs in a process of its
    own, so that py4cytoscape is not imported into the test run.
    """
    import contextlib
    import importlib
    import io

    argv = shlex.split(command)
    if argv[0] == "netmcl":
        module, args = "netmcl.cli", argv[1:]
    elif argv[:2] == ["python3", "-m"] and argv[2].startswith("netmcl."):
        module, args = argv[2], argv[3:]
    else:
        pytest.fail(f"the README has a command this test does not know how to run: {command}")
    if "--cytoscape" in args:
        argv = [sys.executable, "-m", "netmcl" if module == "netmcl.cli" else module, *args]
        run = subprocess.run(argv, cwd=directory, env=_env(), capture_output=True, text=True, timeout=300)
        return run.returncode, run.stderr
    err = io.StringIO()
    cwd = os.getcwd()
    os.chdir(directory)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            try:
                status = importlib.import_module(module).main(args)
            except SystemExit as exit:  # argparse's --help
                status = exit.code
    finally:
        os.chdir(cwd)
    return status, err.getvalue()


def test_shell_blocks_run(tmp_path, cytoscape):
    for module in ("matplotlib", "pandas"):
        pytest.importorskip(module, reason="the README's command lines need pip install 'netmcl[test]'")
    cytoscape.reset()
    _inputs(tmp_path)
    ran = []
    for block in _blocks("bash"):
        for command in _commands(block):
            if command.startswith(NOT_RUN):
                continue
            status, err = _run_command(command, tmp_path)
            assert status in (0, None), f"{command}\n{err}"
            ran.append(command)
    assert any(c.startswith("python3 -m netmcl.demo") for c in ran) and sum(c.startswith("netmcl ") for c in ran) >= 8
    # what the commands say they write
    assert (tmp_path / "a.txt").read_text() == (tmp_path / "b.txt").read_text() == (tmp_path / "c.txt").read_text()
    assert (tmp_path / "out.net.abc.I14").exists() and (tmp_path / "graph.cl").exists()
    assert (tmp_path / "clusters.png").stat().st_size > 10_000 and (tmp_path / "string.tsv").exists()
    assert '"complex 1"' in (tmp_path / "view.html").read_text(encoding="utf-8")  # --html --complexes
    assert netmcl.read_clusters(tmp_path / "proj" / "rcl.res50.cls")  # netmcl rcl
    assert len(netmcl.read_clusters(tmp_path / "families.txt")) > 100  # e-values into protein families
    named = (tmp_path / "named.html").read_text(encoding="utf-8")  # --names, --complexes FILE.gmt
    assert '"cytoplasmic ribosomal large subunit"' in named and '"TFC3"' in named
    assert len(cytoscape.networks) == 1


def test_install_commands_are_those_ci_runs():
    commands = [c for block in _blocks("bash") for c in _commands(block)]
    install = commands.index("python3 -m pip install .")
    assert commands[:2] == ["python3 -m venv .venv", ". .venv/bin/activate"]  # a venv first: PEP 668 Pythons
    assert commands[install + 1] == "python3 -m netmcl.build"  # the kernels built at install, not at first use
    ci = (ROOT / ".ci" / "run").read_text()
    test_line = next(line for line in README.splitlines() if line.startswith("python3 -m pip install -e"))
    assert test_line in ci.splitlines()  # CI runs exactly the README's test command
    # every extra the README names exists
    pyproject = (ROOT / "pyproject.toml").read_text()
    extras = set(re.findall(r"^(\w+) = \[", pyproject.split("[project.optional-dependencies]")[1].split("\n[")[0],
                            flags=re.M))
    named = {e for group in re.findall(r'"\.\[([\w,]+)\]"', README) for e in group.split(",")}
    assert named and named <= extras, named - extras


def test_documented_submodules_are_attributes_of_netmcl():
    """``netmcl.datasets.load_cyc2008()`` and the like work after a bare ``import netmcl``."""
    texts = [README] + [p.read_text() for p in (ROOT / "docs").glob("*.rst")]
    texts += [p.read_text() for p in (ROOT / "tutorials").glob("*.py")]
    used = {m for text in texts for m in re.findall(r"(?<![\w/.-])netmcl\.([a-z_]\w*)\.[A-Za-z_]", text)}
    submodules = {m for m in used if (ROOT / "netmcl" / m).is_dir() or (ROOT / "netmcl" / f"{m}.py").exists()}
    assert {"datasets", "cytoscape", "engines"} <= submodules
    code = (
        "import sys, types, netmcl\n"
        f"names = {sorted(submodules)!r}\n"
        "light = not {'matplotlib', 'pandas', 'py4cytoscape', 'netmcl.plot', 'netmcl.cytoscape'} & set(sys.modules)\n"
        "missing = [n for n in names if not isinstance(getattr(netmcl, n, None), types.ModuleType)]\n"
        "internals = [n for n in dir(netmcl) if n in ('importlib', 'one_thread_in_own_programs', 'numpy')]\n"
        "print(light, missing, internals)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.stdout.split("\n")[0] == "True [] []", run.stdout + run.stderr
