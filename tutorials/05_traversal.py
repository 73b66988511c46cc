"""Tutorial 5: hop distances, shortest paths and components of a STRING network, on CPU and GPU.

Run it as is: ``python tutorials/05_traversal.py``.  It reads the human STRING
sample bundled with netmcl's tests (461 proteins around calcium and RAS
signalling, with STRING's combined scores), measures how far every protein
is from four cancer genes, finds the most confident path from one of them
to a muscle gene, compares the components at two score thresholds, and runs the same
searches with ``engine="gpu"``.

Needs: netmcl.  The GPU part needs numba-cuda (``python -m pip install
'netmcl[cuda12]'``, or ``'netmcl[cuda13]'``); without a GPU it runs the same
kernels in numba's CUDA simulator, on the smaller high-confidence network.
"""

import os
import sys
from pathlib import Path

if not os.path.exists("/dev/nvidiactl"):  # no GPU: the GPU part runs in numba-cuda's simulator
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")  # (set before numba is imported)

import numpy as np  # noqa: E402

import netmcl  # noqa: E402
from netmcl.exceptions import BackendUnavailableError  # noqa: E402
from netmcl.traversal import bfs, connected_components, shortest_paths  # noqa: E402

SAMPLE = Path(__file__).resolve().parent.parent / "tests" / "data" / "string"
LINKS = SAMPLE / "9606.protein.links.sample.txt.gz"
INFO = SAMPLE / "9606.protein.info.sample.txt.gz"

# --- 1. The network, with gene names ------------------------------------------
# Medium confidence (combined score >= 400, STRING's default); nodes are STRING
# ids, each with its gene name in the "preferred_name" attribute.
G = netmcl.read_string(LINKS, min_score=400, info=INFO)
name = {v: d.get("preferred_name", v) for v, d in G.nodes(data=True)}
protein = {n: v for v, n in name.items()}
print(f"STRING sample: {G.number_of_nodes()} proteins, {G.number_of_edges()} interactions (score >= 400)")

# --- 2. Hop distances from disease genes --------------------------------------
# One call, one row of hop counts per source (-1: unreachable).
genes = ["KRAS", "BRAF", "EGFR", "PIK3CA"]
hops = bfs(G, [protein[g] for g in genes])
print("\nproteins at 0, 1, 2, 3, ... hops:")
for g, row in zip(genes, hops.matrix):
    counts = np.bincount(row[row >= 0])
    print(f"  {g:7s}", " ".join(str(c) for c in counts))
# the neighbourhood shared by all four: proteins one hop from every gene
shared = [name[v] for v, col in zip(hops.labels, hops.matrix.T) if (col == 1).all()]
print(f"one hop from all of {', '.join(genes)}: {', '.join(sorted(shared))}")
assert hops[protein["KRAS"]][protein["KRAS"]] == 0

# --- 3. The most confident path -----------------------------------------------
# A score is a similarity: as a cost, 1 - score makes confident links short.
for u, v, d in G.edges(data=True):
    d["cost"] = 1.0 - d["weight"]
paths = shortest_paths(G, protein["KRAS"], weight="cost")
# KRAS to the muscular-dystrophy gene DMD: two hops at the fewest, but the most
# confident route takes more, each of them a near-certain interaction.
route = paths.path(protein["KRAS"], protein["DMD"])
print(f"\nmost confident path KRAS -> DMD: {' -> '.join(name[v] for v in route)}"
      f" (cost {paths[protein['KRAS']][protein['DMD']]:.3f})")
print(f"fewest hops KRAS -> DMD: {hops[protein['KRAS']][protein['DMD']]}")
assert len(route) - 1 >= hops[protein["KRAS"]][protein["DMD"]]

# --- 4. Components at two thresholds ------------------------------------------
# Raising the threshold to 900 (highest confidence) breaks the network apart.
H = netmcl.read_string(LINKS, min_score=900, info=INFO)
for label, graph in (("score >= 400", G), ("score >= 900", H)):
    c = connected_components(graph)
    sizes = sorted(c.sizes.tolist(), reverse=True)
    print(f"\n{label}: {len(c)} components, largest {sizes[:5]}")
    for g in genes:
        if protein[g] in graph:
            print(f"  {g} is in component {c[protein[g]]} of {c.sizes[c[protein[g]]]} proteins")
c900 = connected_components(H)
assert len(c900) >= len(connected_components(G))

# --- 5. The same on the GPU ----------------------------------------------------
try:
    gpu_hops = bfs(H, [protein[g] for g in genes if protein[g] in H], engine="gpu")
except BackendUnavailableError as exc:
    print(f"\nGPU part skipped: {exc}")
    sys.exit(0)
cpu_hops = bfs(H, gpu_hops.sources)
assert np.array_equal(gpu_hops.matrix, cpu_hops.matrix)
gpu_components = connected_components(H, engine="gpu")
assert np.array_equal(gpu_components.ids, c900.ids)
print(f"\nengine='gpu' gives the same hop counts and the same {len(gpu_components)} components"
      + (" (in numba's CUDA simulator)" if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1" else ""))
# Shortest paths on the GPU: a frontier Bellman-Ford (method="auto", as cuRnet) or
# delta-stepping, which relaxes the arcs in buckets of distance; both are Dijkstra's distances.
for u, v, d in H.edges(data=True):
    d["cost"] = 1.0 - d["weight"]
kras = protein["KRAS"]
dijkstra = shortest_paths(H, kras, weight="cost").matrix
for method in ("bellman-ford", "delta-stepping"):
    on_gpu = shortest_paths(H, kras, weight="cost", engine="gpu", method=method).matrix
    assert np.allclose(on_gpu, dijkstra, rtol=1e-12, atol=0) and (np.isinf(on_gpu) == np.isinf(dijkstra)).all()
print(f"shortest paths from KRAS at score >= 900: the GPU's Bellman-Ford and delta-stepping give Dijkstra's "
      f"{int(np.isfinite(dijkstra).sum())} distances")
