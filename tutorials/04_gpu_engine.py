"""Tutorial 4: the GPU engine, and proof that it gives the CPU engine's answer bit for bit.

Needs: ``python -m pip install 'netmcl[cuda12]'`` (or ``netmcl[cuda13]``) on a
machine with an NVIDIA GPU.  Without a GPU it runs anyway, in numba's CUDA
simulator, which needs only ``python -m pip install 'netmcl[cudasim]'``: the
simulator runs every CUDA thread as a Python thread, so this tutorial keeps
to a 34-node graph there (seconds), where a GPU takes networks of tens of
thousands of proteins.

``engine="gpu"`` is all it takes: the iterations run on the device, each
iterand identical to the CPU engine's (and so to mcl's) in every bit, and the
limit is interpreted on the device: only each node's cluster comes back.
"""

import os
import shutil

# The simulator must be chosen before numba is first imported (netmcl imports numba).
if shutil.which("nvidia-smi") is None:
    os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")

import networkx as nx  # noqa: E402

import netmcl  # noqa: E402
from netmcl.engines import why_unavailable  # noqa: E402


def main():
    print("running on", "numba's CUDA simulator (no GPU here)" if SIMULATED else "the GPU")

    # --- 1. Same clusters as the CPU engine ---------------------------------------
    # Zachary's karate club, pruned as mcl -P 40 -S 10 -R 12 would: small enough for
    # the simulator, pruned hard enough to take the selection and recovery branches.
    G = nx.karate_club_graph()
    options = dict(inflation=1.8, pruning_number=40, select=10, recover=12)
    on_gpu = netmcl.mcl(G, engine="gpu", attribute=None, **options)
    on_cpu = netmcl.mcl(G, engine="cpu", attribute=None, **options)
    print(on_gpu)
    assert on_gpu.clusters == on_cpu.clusters
    assert on_gpu.chaos == on_cpu.chaos  # every iteration's chaos, as exact floats
    print("GPU and CPU engines: same clusters, same chaos in all", on_gpu.n_iterations, "iterations")

    # --- 2. Same iterands, bit for bit --------------------------------------------
    # mcl's man-page example, iteration by iteration on both engines.
    cathat = nx.Graph()
    cathat.add_weighted_edges_from([("cat", "hat", 0.2), ("hat", "bat", 0.16), ("bat", "cat", 1.0), ("bat", "bit", 0.125),
                                    ("bit", "fit", 0.25), ("fit", "hit", 0.5), ("hit", "bit", 0.16)])
    gpu_run, cpu_run = netmcl.mcl_iterates(cathat, engine="gpu"), netmcl.mcl_iterates(cathat, engine="cpu")
    for a, b in zip(gpu_run, cpu_run):
        ma, mb = a.matrix, b.matrix
        assert (ma.indptr == mb.indptr).all() and (ma.indices == mb.indices).all()
        assert ma.data.tobytes() == mb.data.tobytes()
        extra = a.stats.extra
        # the pruned iterand is stored ELLPACK-R: ell_width slots a column, longer columns (ties) in an overflow pool
        print(f"iteration {a.iteration}: chaos {a.chaos:.2f}, {a.stats.kept} entries in {extra['ell_slots']} slots "
              f"(width {extra['ell_width']}), {a.stats.dense_path} columns on mcl's float32-product path")

    # --- 3. Launch sizes and memory budgets never change the answer ---------------
    from netmcl.engines.gpu import GpuEngine

    small = GpuEngine(blocks=3, threads_per_block=2, max_memory=1_300)  # a tiny budget: several phases
    tight = netmcl.mcl(cathat, engine=small, attribute=None)
    assert tight.clusters == netmcl.mcl(cathat, attribute=None).clusters == [
        ["cat", "hat", "bat"], ["bit", "fit", "hit"]]
    print("in", max(s.extra["phases"] for s in tight.stats), "phases on 3 blocks of 2 threads: the same clusters")

    # --- 4. The clusters are found on the device ----------------------------------
    # The attractors, their systems and every node's cluster are worked out where the
    # limit lives; the engine counts what it copies to the host.
    engine = GpuEngine(blocks=3, threads_per_block=2)
    *_, last = netmcl.mcl_iterates(cathat, engine=engine, overlap="keep")
    before = engine.bytes_to_host
    clusters = last.clustering()
    copied = engine.bytes_to_host - before
    before = engine.bytes_to_host
    engine.result()  # what interpreting on the host would copy first
    print(f"clusters {list(clusters)}: {copied} bytes came back for {engine.n} nodes; "
          f"the limit itself is {engine.bytes_to_host - before} bytes")


if __name__ == "__main__":
    reason = why_unavailable("gpu")
    if reason is None:
        main()
    else:
        print(f"The GPU engine cannot run here: {reason}")
        print("Install it with: python -m pip install 'netmcl[cuda12]' (or 'netmcl[cudasim]' for the simulator)")
