"""Tutorial 9: the Dask engine, exact MCL on the workers of a Dask cluster.

Needs: ``python -m pip install 'netmcl[dask]'`` (dask and distributed).  Run it as is:
``python tutorials/09_dask_engine.py``.  It starts a cluster on this machine
(two worker processes of one thread each), clusters a protein network on it,
checks that the clusters and every iterand are those of the CPU engine, runs
it again under a memory budget per worker, runs an inflation sweep with one
inflation a task, and shows the same code against a cluster that is already
running (a scheduler's address).
"""

try:
    from distributed import Client, LocalCluster
except ImportError:
    raise SystemExit("This tutorial needs dask.distributed: python -m pip install 'netmcl[dask]'") from None

from pathlib import Path

import numpy as np

import netmcl
from netmcl.mcl import mcl_iterates

NETWORK = Path(__file__).resolve().parent.parent / "tests" / "data" / "networks" / "bionic_Hu-2007.txt.gz"


def main():
    # --- 1. A cluster on this machine ------------------------------------------
    # Worker processes import netmcl and run the CPU engine's kernels; a script
    # that starts them needs the `if __name__ == "__main__":` guard below.
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        graph = netmcl.read_abc(NETWORK)
        print(f"{graph.n} proteins; workers: {sorted(client.nthreads())}")

        # --- 2. The same clusters as the CPU engine ------------------------------
        # engine="dask" takes the default client (the one just made), or client=.
        # The iterand stays on the workers in column blocks: each worker expands
        # its columns, fetching from the others the columns they read; only a few
        # statistics per block come back here.
        on_dask = netmcl.mcl(graph, inflation=1.4, engine="dask", attribute=None)
        local = netmcl.mcl(graph, inflation=1.4, attribute=None)
        print(f"{len(on_dask)} clusters, the same as the CPU engine's:", list(on_dask) == list(local))
        assert list(on_dask) == list(local) and on_dask.chaos == local.chaos

        # --- 3. Every iterand, bit for bit ---------------------------------------
        # Each column is computed whole by one task with the CPU engine's kernel,
        # so the arithmetic is the same; here in 3 column blocks.
        for a, b in zip(mcl_iterates(graph, inflation=1.4),
                        mcl_iterates(graph, inflation=1.4, engine="dask", blocks=3), strict=True):
            x, y = a.matrix, b.matrix
            assert np.array_equal(x.indices, y.indices) and np.array_equal(x.data, y.data)
        extra = b.stats.extra
        print(f"{b.iteration} iterations, identical; last one in {extra['blocks']} blocks, "
              f"{extra['bytes_between_workers']} bytes between workers, seconds per worker:",
              {w: round(s, 4) for w, s in extra["worker_seconds"].items()})

        # --- 4. A memory budget per worker --------------------------------------
        # max_memory bounds what each worker's step holds (its block, the next
        # one, the work arrays and one phase's columns): a block then iterates in
        # phases, each fetching from the other worker only the columns it reads,
        # as the CPU engine splits an iteration under its own budget.  A worker
        # holds its part of the iterand twice (this block and the next), so the
        # budget must exceed twice the iterand divided by the workers.
        budget = netmcl.mcl(graph, inflation=1.4, engine="dask", max_memory="12M", attribute=None)
        assert list(budget) == list(local)
        worst = max(budget.stats, key=lambda s: s.extra["phases"])
        print(f"under 12 MiB a worker: the same clusters; at most {worst.extra['phases']} phases in an "
              f"iteration, each worker holding at most {max(worst.extra['worker_peak_bytes'].values()):,} bytes "
              f"of its {worst.extra['worker_budget']:,}")

        # --- 5. An inflation sweep, one inflation a task ----------------------------
        result = netmcl.sweep(graph, [1.4, 2.0, 3.0], engine="dask")
        print(result.format_table())

    # --- 6. A cluster that is already running -----------------------------------
    # Start a scheduler and workers on your machines (or with dask-jobqueue on a
    # SLURM allocation):
    #     dask scheduler                       # prints tcp://HOST:8786
    #     dask worker tcp://HOST:8786 --nthreads 1 --nworkers 8
    # then, from Python:
    #     client = Client("tcp://HOST:8786")
    #     clusters = netmcl.mcl(graph, engine="dask", client=client)
    # or from the command line:
    #     python -m netmcl network.abc --abc --engine dask --scheduler tcp://HOST:8786 -o out.txt
    # A worker lost during the run is replaced by recomputing what it held from
    # the iteration before; the clusters do not change.


if __name__ == "__main__":
    main()
