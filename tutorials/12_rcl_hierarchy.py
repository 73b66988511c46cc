"""Tutorial 11: one consensus hierarchy from clusterings at several inflations (mcl's ``rcl``).

Run it as is: ``python tutorials/12_rcl_hierarchy.py``.  Which inflation is
right is often unclear: low inflation gives big clusters, high inflation
small ones, and a complex may show up whole at one and split at another.
RCL (restricted contingency linkage, mcl's ``rcl``) combines the clusterings
of an inflation sweep into one tree of nested consensus clusters and cuts it
at the cluster sizes you ask for (*resolutions*).  This tutorial sweeps the
yeast network bundled with netmcl (Collins et al. 2007), builds the
hierarchy with :func:`netmcl.rcl`, compares each level with the CYC2008
complexes, draws the hierarchy (``rcl_hierarchy.png`` in the current
directory), and then runs the same with the command line, which takes
``rcl``'s arguments and writes ``rcl``'s files.

Needs: ``python -m pip install 'netmcl[plot]'`` (matplotlib, for the picture).
"""

try:
    import matplotlib
except ImportError:
    raise SystemExit("This tutorial needs matplotlib: python -m pip install 'netmcl[plot]'") from None

import os
import subprocess
import sys
import tempfile

import netmcl
from netmcl.datasets import load_collins2007, load_cyc2008
from netmcl.io.native import write_mci, write_native_clustering

matplotlib.use("Agg")

G = load_collins2007()
complexes = load_cyc2008()

# --- 1. An inflation sweep ------------------------------------------------------
inflations = [1.4, 2, 3, 4, 6]
runs = [netmcl.mcl(G, inflation=i, attribute=None) for i in inflations]
for i, run in zip(inflations, runs):
    print(f"I {i}: {len(run)} clusters, largest {max(run.sizes)}")

# --- 2. The consensus hierarchy at three resolutions (cluster sizes) -------------
result = netmcl.rcl(G, runs, resolutions=[10, 20, 50])
print(result)
for r, clustering in result.clusterings.items():
    big = [s for s in clustering.sizes if s >= 10]
    scores = netmcl.compare_to_complexes(clustering, complexes)
    print(f"resolution {r}: {len(big)} clusters of 10 or more proteins (largest {big[0]}), "
          f"{scores['n_matched']} of {scores['n_complexes']} complexes matched")

# clusters nest: each cluster at resolution 10 lies inside one cluster at resolution 50
home = {node: k for k, cluster in enumerate(result.clusterings[50]) for node in cluster}
assert all(len({home[node] for node in cluster}) == 1 for cluster in result.clusterings[10])

# the hierarchy, parents before children: the largest cluster and what it splits into
top = result.hierarchy[0]
parts = [h for h in result.hierarchy if h["parent"] == top["name"]]
print(f"largest consensus cluster: {top['size']} proteins, formed at RCL weight {top['joinval']} "
      f"(of 1000); it splits into {[h['size'] for h in parts]}")

# --- 3. The picture (written to the current directory) ------------------------------
picture = result.plot_to_file("rcl_hierarchy.png")
print(f"picture of the hierarchy: {os.path.abspath(picture)}")

# --- 4. The same with the command line (rcl's arguments, rcl's files) -------------
# netmcl rcl reads mcl's native files: the network, its label table, one file per clustering;
# they and the project directory TAG go to a temporary directory, removed at the end
workdir = tempfile.TemporaryDirectory(prefix="netmcl-rcl-")
out = workdir.name
network = netmcl.adapters.to_sparse_graph(G)
write_mci(os.path.join(out, "collins.mci"), netmcl.SparseGraph(network.matrix))
with open(os.path.join(out, "collins.tab"), "w") as fh:
    fh.write("".join(f"{k}\t{label}\n" for k, label in enumerate(network.labels)))
files = []
for i, run in zip(inflations, runs):
    files.append(f"collins.I{i}.cls")
    write_native_clustering(os.path.join(out, files[-1]), [c.tolist() for c in run.index_clusters])

netmcl_cmd = [sys.executable, "-m", "netmcl", "rcl"]
env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(netmcl.__file__))}
for step in (["setup", "TAG", "-n", "collins.mci", "-t", "collins.tab", *files],
             ["tree", "TAG"],
             ["select", "TAG", "-r", "10 20 50"]):
    done = subprocess.run(netmcl_cmd + step, cwd=out, env=env, capture_output=True, text=True, check=True)
    print(done.stdout, end="")
written = sorted(os.listdir(os.path.join(out, "TAG")))
print("files in TAG:", " ".join(written))
with open(os.path.join(out, "TAG", "rcl.res50.labels")) as fh:
    first = fh.readline().rstrip("\n").split("\t")
assert sorted(first) == sorted(result.clusterings[50][0])
print(f"TAG/rcl.res50.labels starts with the same cluster of {len(first)} proteins")
workdir.cleanup()
