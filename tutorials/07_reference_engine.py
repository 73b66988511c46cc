"""Tutorial 7: the reference engine, mcl's arithmetic written to be read.

Needs: netmcl alone (``python -m pip install .``).  Run it as is:
``python tutorials/07_reference_engine.py``.  ``engine="reference"`` runs every step of an MCL iteration in
plain NumPy, following mcl 22-282's arithmetic to the bit: it is slow, and it
is the oracle every other engine is tested against.  This tutorial clusters
a small network with it, checks a faster engine against it iteration by
iteration (what the test suite does for every engine), and looks at two
details of the arithmetic that change mcl's iterands.
"""

import networkx as nx
import numpy as np

import netmcl
from netmcl.engines import Pruning, get_engine
from netmcl.engines import reference as R
from netmcl.mcl import CHAOS_LIMIT, inflation_at, start_matrix
from netmcl.params import MclParams
from netmcl.sparse import CscMatrix

# --- 1. The same clusters as the default engine --------------------------------
# Zachary's karate club: 34 members, 78 friendships.
G = nx.karate_club_graph()
fast = netmcl.mcl(G, inflation=1.8, attribute=None)  # the CPU engine (the default)
slow = netmcl.mcl(G, inflation=1.8, attribute=None, engine="reference")
print(f"{len(slow.clusters)} clusters, the same on both engines:", slow.clusters == fast.clusters)
assert slow.clusters == fast.clusters and slow.chaos == fast.chaos

# --- 2. Checking an engine against the reference, iteration by iteration -------
# Both engines take the same column-stochastic start matrix and must produce
# the same iterands, bit for bit: row numbers, column pointers and float32 values.
params = MclParams.build(inflation=1.8, pruning_number=20, select=4, recover=6)
start = CscMatrix.of(start_matrix(netmcl.adapters.to_sparse_graph(G), params))
reference, candidate = get_engine("reference"), get_engine("cpu", threads=2)
for engine in (reference, candidate):
    engine.load(start.copy(), n_rule=start.shape[0])
for it in range(1, 100):
    a = reference.iterate(inflation_at(params, it), params.pruning())
    b = candidate.iterate(inflation_at(params, it), params.pruning())
    ra, rb = reference.result(), candidate.result()
    same = all(getattr(ra, k).tobytes() == getattr(rb, k).tobytes() for k in ("indptr", "indices", "data"))
    print(f"iteration {it}: chaos {a.chaos:.4f}, {a.kept} entries, {a.selected} columns selected, "
          f"{a.recovered + a.recovered_after_select} recovered; identical: {same}")
    assert same and a.chaos == b.chaos and a.kept == b.kept
    if a.chaos < CHAOS_LIMIT:
        break

# --- 3. Two details of mcl's arithmetic ----------------------------------------
# mcl rounds each product to float32 before adding it (in double) when a
# column's work, the summed lengths of the columns it reads, is at least a
# tenth of the node count (its "dense path"); otherwise products are exact.
# n_rule is that node count: the whole graph's, also for one of its components.
indptr, rows, data = start.indptr, start.indices.astype(np.int64), start.data
dense = R.expand(indptr, rows, data, n_rule=start.shape[0])
exact = R.expand(indptr, rows, data, n_rule=10**9)  # every column on the exact path
print(f"columns on the dense path: {dense[3].sum()} of {dense[3].size}; expanded values that differ "
      f"between the two paths: {np.count_nonzero(dense[2] != exact[2])} of {dense[2].size}")
assert dense[3].all() and not exact[3].any()

# Pruning keeps the entries at or above the cutoff, then selects the S largest;
# ties with the S-th largest value are all kept.
column = np.array([0.30, 0.20, 0.20, 0.15, 0.10, 0.05], dtype=np.float32)
pruned = R.prune_column(0, np.arange(6), column, Pruning(cutoff=0.99999 / 20, select=2, recover=0, pct=0.9))
print(f"select 2 of {[round(v, 2) for v in column.tolist()]}: keeps rows {pruned.rows.tolist()} "
      f"({pruned.branch}), rescaled to {[round(v, 4) for v in pruned.values.tolist()]}")
assert pruned.rows.tolist() == [0, 1, 2]
