"""Sphinx configuration of netmcl's documentation.

Build: ``python -m sphinx -W -b html docs docs/_build/html`` (the ``docs``
extra installs what it needs).  Before the build, this file writes the
command line's ``--help`` texts and runs tutorial 3 for its pictures, into
``docs/_generated`` (git-ignored), so the pages show what this version does.
"""

import contextlib
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

import netmcl  # noqa: E402

project = "netmcl"
author = "netmcl developers"
copyright = "netmcl developers, MIT licence"
version = release = netmcl.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
]
autosummary_generate = True
autodoc_default_options = {"members": True}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
html_theme = "alabaster"
html_title = f"netmcl {release}"
exclude_patterns = ["_build", "_generated/*.txt"]
templates_path = []
# numpydoc renames a docstring's reference labels; one only listed under References is not cited in the text
suppress_warnings = ["config.cache", "ref.citation"]

GENERATED = HERE / "_generated"
GENERATED.mkdir(exist_ok=True)
shutil.rmtree(HERE / "generated", ignore_errors=True)  # autosummary's pages, written afresh: none left stale


def _write_help():
    """``netmcl --help`` and the companion commands' help, as this version prints them."""
    from netmcl import cli

    for name, argv in {"netmcl": ["--help"], **{c: [c, "--help"] for c in getattr(cli, "SUBCOMMANDS", ())}}.items():
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            try:
                cli.main(argv)
            except SystemExit:
                pass
        (GENERATED / f"help_{name}.txt").write_text(out.getvalue())


#: the pictures tutorial 3 saves, shown on its page
TUTORIAL_PICTURES = ("yeast_clusters", "yeast_cluster_graph", "yeast_cluster_sizes", "yeast_inflation_sweep")


def _tutorial_pictures():
    """Run tutorial 3 (in a scratch directory) unless its pictures are newer than it and netmcl's drawing code."""
    script = ROOT / "tutorials" / "03_draw_and_cytoscape.py"
    pictures = [GENERATED / f"{name}.png" for name in TUTORIAL_PICTURES]
    sources = [script, ROOT / "netmcl" / "viz" / "plot.py", ROOT / "netmcl" / "palette.py"]
    newest = max(p.stat().st_mtime for p in sources)
    if all(p.exists() and p.stat().st_mtime > newest for p in pictures):
        return
    scratch = GENERATED / "tutorial-run"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir()
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(ROOT))
    subprocess.run([sys.executable, str(script)], cwd=scratch, env=env, check=True, capture_output=True, timeout=600)
    for picture in pictures:
        shutil.move(scratch / picture.name, picture)
    shutil.rmtree(scratch, ignore_errors=True)


_write_help()
_tutorial_pictures()
