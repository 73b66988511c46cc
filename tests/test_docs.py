"""The documentation site builds with warnings as errors (broken references, bad docstrings, missing pages)."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

if importlib.util.find_spec("sphinx") is None or importlib.util.find_spec("numpydoc") is None:
    pytest.skip("the documentation build needs pip install -e '.[docs]' (sphinx, numpydoc)", allow_module_level=True)


def test_the_documentation_builds_without_a_warning(tmp_path):
    pytest.importorskip("matplotlib", reason="the tutorial pages show pictures: pip install -e '.[docs]'")
    out = tmp_path / "html"
    run = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(ROOT / "docs"), str(out),
         "-d", str(tmp_path / "doctrees")],
        capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stderr[-5000:]
    pages = {p.relative_to(out).as_posix() for p in out.rglob("*.html")}
    assert {"index.html", "install.html", "api.html", "mcl_compatibility.html", "coming_from_mcl.html",
            "coming_from_markov_clustering.html", "tutorial_pictures.html", "api/analysis.html",
            "generated/netmcl.mcl.html"} <= pages
    # the API reference is the docstrings, the tutorial page shows the tutorial's pictures
    assert "giving exactly the clusters of mcl 22-282" in (out / "generated" / "netmcl.mcl.html").read_text()
    assert len(list((out / "_images").glob("yeast_*.png"))) == 4
    assert "-discard-loops" in (out / "mcl_compatibility.html").read_text()  # the command's own --help
