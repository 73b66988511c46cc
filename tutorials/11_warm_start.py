"""Tutorial 11: warm restart -- cluster a changed network, reusing what the last run settled.

Needs: netmcl alone (``python -m pip install .``).  Run it as is:
``python tutorials/11_warm_start.py``.  It clusters the yeast network bundled
with netmcl, keeping what a later warm start needs; changes 1 % of its
interactions (a few removed, a few added) and clusters the changed network
warm from the first run: components whose start matrix did not change keep
their clusters without being iterated.  The clusters are byte for byte those
of a cold run, which it checks, and the run's report says what was reused.
"""

import io

import numpy as np

import netmcl
from netmcl.datasets import load_collins2007
from netmcl.io.clusters import write_clusters

# --- 1. The first run keeps its state -----------------------------------------
G = load_collins2007()
first = netmcl.mcl(G, warm_start=True)
print(first)
print(first.warm_state)  # each component's start block, last iterand and when it settled

# --- 2. Change 1 % of the interactions ----------------------------------------
# removing an edge never drops a node here (only edges whose ends keep another),
# and the new edges join proteins already in the network
rng = np.random.default_rng(7)
H = G.copy()
edges = list(H.edges())
k = round(0.01 * len(edges))
removed = 0
for i in rng.permutation(len(edges)):
    u, v = edges[i]
    if H.degree(u) > 1 and H.degree(v) > 1:
        H.remove_edge(u, v)
        removed += 1
        if removed == k // 2:
            break
nodes = list(H)
while H.number_of_edges() < G.number_of_edges() - removed + (k - removed):
    u, v = (nodes[i] for i in rng.integers(len(nodes), size=2))
    if u != v and not H.has_edge(u, v):
        H.add_edge(u, v, weight=0.8)
print(f"{removed} interactions removed, {k - removed} added")

# --- 3. Warm start from the first run -----------------------------------------
warm = netmcl.mcl(H, warm_start=first)
print(warm.warm_report)  # what was reused, what was iterated

# --- 4. The same clusters as a cold run, byte for byte --------------------------
cold = netmcl.mcl(H)


def as_text(clustering):
    out = io.StringIO()
    write_clusters(out, clustering)  # mcl's cluster file
    return out.getvalue()


assert as_text(warm) == as_text(cold)
assert warm.n_iterations == cold.n_iterations
print(f"warm and cold runs agree: {len(warm)} clusters after {warm.n_iterations} iterations")

# --- 5. A chain of changes, and a change of parameters --------------------------
# every warm run keeps its own state, so the next change starts from it
H.remove_edge(*next(iter(H.edges())))
again = netmcl.mcl(H, warm_start=warm)
assert as_text(again) == as_text(netmcl.mcl(H))
print(again.warm_report)
# other parameters give other iterands everywhere: nothing is reused
print(netmcl.mcl(H, warm_start=warm, inflation=3.0).warm_report)
