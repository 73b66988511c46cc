"""Every tutorial runs as a user would run it, so none of them rots."""

import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

TUTORIALS = Path(__file__).parent.parent / "tutorials"

#: tutorials run by another test module, with its fixtures or extra checks
RUN_ELSEWHERE = {
    "02_string_sweep_complexes.py": "test_sweep.py",  # also checks the tables its text quotes
    "03_draw_and_cytoscape.py": "test_cytoscape.py",  # under the CyREST stand-in
}


def _tutorials():
    return sorted(p.name for p in TUTORIALS.glob("*.py"))


def test_there_are_tutorials():
    assert "01_quickstart.py" in _tutorials()
    assert "04_gpu_engine.py" in _tutorials()  # the GPU engine, in numba's CUDA simulator without a GPU


@pytest.mark.parametrize("name", [t for t in _tutorials() if t not in RUN_ELSEWHERE])
def test_tutorial_runs(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    runpy.run_path(str(TUTORIALS / name), run_name="__main__")


@pytest.mark.parametrize("name", sorted(RUN_ELSEWHERE))
def test_tutorials_run_elsewhere_really_are(name):
    assert name in _tutorials()
    assert name in (Path(__file__).parent / RUN_ELSEWHERE[name]).read_text()


def test_r_tutorials_are_run_by_test_r():
    """Tutorials in R run under Rscript in test_r.py (skipped there without R)."""
    r_tutorials = sorted(p.name for p in TUTORIALS.glob("*.R"))
    assert r_tutorials
    text = (Path(__file__).parent / "test_r.py").read_text()
    assert all(name in text for name in r_tutorials)


#: what each tutorial needs beyond netmcl: the modules, and the extra its top names
NEEDS = {
    "02_string_sweep_complexes.py": (["pandas"], "netmcl[tables]"),
    "03_draw_and_cytoscape.py": (["matplotlib", "py4cytoscape"], "netmcl[plot,cytoscape]"),
    "09_dask_engine.py": (["distributed"], "netmcl[dask]"),
    "12_rcl_hierarchy.py": (["matplotlib"], "netmcl[plot]"),
}


@pytest.mark.parametrize("name", _tutorials())
def test_tutorial_says_at_its_top_what_it_needs(name):
    head = "\n".join((TUTORIALS / name).read_text().splitlines()[:25])
    assert re.search(r"Needs: ", head), name
    if name in NEEDS:
        assert f"python -m pip install '{NEEDS[name][1]}'" in head


@pytest.mark.parametrize("name", sorted(NEEDS))
def test_a_tutorial_without_its_extra_prints_the_install_line_and_exits(name, tmp_path):
    modules, extra = NEEDS[name]
    for missing in modules:
        code = (f"import sys, runpy; sys.modules[{missing!r}] = None; "
                f"runpy.run_path({str(TUTORIALS / name)!r}, run_name='__main__')")
        run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                             timeout=120, env={**__import__("os").environ, "PYTHONPATH": str(TUTORIALS.parent)})
        assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
        assert run.stderr.strip().endswith(f"python -m pip install '{extra}'"), run.stderr
        assert run.stdout == ""  # it stops before doing anything
