"""Tutorial 10: split coarse clusters into finer ones (``mcl -icl``), and keep a record of each run.

Run it as is: ``python tutorials/10_subclusters_and_report.py``.  It clusters
the yeast network bundled with netmcl (Collins et al. 2007) coarsely, splits
every coarse cluster at a higher inflation with :func:`netmcl.subcluster` (the
clusters of ``mcl GRAPH -icl COARSE``), compares both levels with the CYC2008
complexes, and then does the same from the command line with ``-icl`` and
``--report``, reading back the JSON record of the run.

Needs: netmcl.
"""

import json
import os
import subprocess
import sys
import tempfile

import netmcl
from netmcl.datasets import collins2007_path, load_collins2007, load_cyc2008

G = load_collins2007()
complexes = load_cyc2008()

# --- 1. Coarse clusters, then subclusters within each of them -----------------
coarse = netmcl.mcl(G, inflation=1.4, attribute=None)
fine = netmcl.subcluster(G, coarse, inflation=3.0)
print(f"coarse (I 1.4): {len(coarse)} clusters, largest {max(coarse.sizes)}")
print(f"fine (I 3 within them): {len(fine)} clusters, largest {max(fine.sizes)}")

# every subcluster lies inside one coarse cluster
home = {node: k for k, cluster in enumerate(coarse) for node in cluster}
assert all(len({home[node] for node in cluster}) == 1 for cluster in fine)

for name, clustering in (("coarse", coarse), ("fine", fine)):
    scores = netmcl.compare_to_complexes(clustering, complexes)
    print(f"{name}: {scores['n_matched']} of {scores['n_complexes']} complexes matched, "
          f"accuracy {scores['accuracy']:.3f}")

# --- 2. The same from the command line, with a run report ----------------------
work = tempfile.mkdtemp(prefix="netmcl-tutorial-")
links = str(collins2007_path())
env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(netmcl.__file__))))
coarse_file = os.path.join(work, "coarse.txt")
subprocess.run([sys.executable, "-m", "netmcl", links, "--abc", "-I", "1.4", "-o", coarse_file, "-q", "x"],
               check=True, env=env)
# -icl takes the coarse clustering; with no -o the output is named after it: coarse.txt.I30
report = os.path.join(work, "run.json")
subprocess.run([sys.executable, "-m", "netmcl", links, "--abc", "-icl", coarse_file, "-I", "3",
                "--report", report, "-q", "x"], check=True, env=env)
with open(coarse_file + ".I30") as handle:
    from_shell = [line.rstrip("\n").split("\t") for line in handle]
assert from_shell == [list(cluster) for cluster in fine]

with open(report) as handle:
    run = json.load(handle)
print(f"report: netmcl {run['netmcl_version']}, engine {run['engine']['name']}, "
      f"inflation {run['parameters']['inflation']}, {run['result']['n_iterations']} iterations, "
      f"input sha256 {run['input']['sha256'][:12]}...")
print("chaos per iteration:", ", ".join(f"{it['chaos']:.3g}" for it in run["iterations"]))
