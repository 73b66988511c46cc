"""Does one thread's work slow down when many threads run at once on this machine?

Times simple numba loops on one thread alone and on N threads at once (each
doing the same work), to tell apart what can make netmcl's kernels take more
CPU time when many threads run them (``profile_threads.py``):

- ``chain``: a dependent chain of scalar floating-point operations, bound by
  the clock: slower at once means the cores' clock drops with more of them busy;
- ``stream``: sequential reads of one array shared by the threads (40 MB,
  beyond L2, within a server's L3), bound by the shared cache;
- ``gather``: random reads of that array, bound by its latency;
- ``scatter``: random adds into an array of each thread's own, sized to fill
  most of a core's L2 cache, as the engine's accumulators do: slower at once
  means the threads share L2 caches (two hardware threads of one core, which
  a virtual machine may present as two cores);
- ``lanes``: the same adds made as the engine's runs of heavy columns make
  them (``_kernels._add_lanes``: eight float32 products widened and added to
  a row of eight doubles, one 512-bit operation on a machine with AVX-512),
  into interleaved accumulators of each thread's own, as large: slower at
  once than ``scatter`` means the cores' clock drops under wide vector
  operations on many cores;
- ``lanes-l1``: those operations into one row, over and over: a dependent
  chain, bound by the clock alone, as ``chain`` is for scalar operations.

Each is run alone, then at once, then alone again (the first can be cold).

Examples
--------
python benchmarks/core_probe.py --threads 16
"""

import argparse
import time
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from netmcl.engines.cpu._constants import LANES
from netmcl.engines.cpu._kernels import _add_lanes, _lanes, _line_aligned_zeros
from netmcl.engines.cpu.engine import L2_BYTES


@numba.njit(nogil=True)
def chain(n):
    x, y = 1.0, 0.5
    for _ in range(n):
        x = x * 1.0000001 + y
        y = y * 0.9999999 + 1e-9
    return x + y


@numba.njit(nogil=True)
def stream(a, reps):
    s = 0.0
    for _ in range(reps):
        for i in range(a.size):
            s += a[i]
    return s


@numba.njit(nogil=True)
def gather(a, at, reps):
    s = 0.0
    for _ in range(reps):
        for i in range(at.size):
            s += a[at[i]]
    return s


@numba.njit(nogil=True)
def scatter(at, rows, reps):
    acc = np.zeros(rows)
    for _ in range(reps):
        for i in range(at.size):
            acc[at[i]] += 1.0
    return acc.sum()


@numba.njit(nogil=True)
def lanes(at, rows, reps):
    acc = _line_aligned_zeros(rows * LANES)  # a row straddling two cache lines would cost two
    factors = np.full((1, 2 * LANES), 0.5, dtype=np.float32)
    f = _lanes(factors, 0, 0)
    for _ in range(reps):
        for i in range(at.size):
            _add_lanes(acc, numba.uintp(at[i]) * numba.uintp(LANES), f, np.float32(1.0))
    return acc.sum()


def probes(scale):
    """The probes: name -> (function, arguments), about 0.3-0.6 s each alone at scale 1."""
    rng = np.random.default_rng(1)
    shared = rng.random(5_000_000)
    rows = int(0.75 * L2_BYTES) // 8
    return {
        "chain": (chain, (int(300_000_000 * scale),)),
        "stream": (stream, (shared, max(1, int(150 * scale)))),
        "gather": (gather, (shared, rng.integers(0, shared.size, 2_000_000).astype(np.int32), max(1, int(50 * scale)))),
        "scatter": (scatter, (rng.integers(0, rows, 2_000_000).astype(np.int32), rows, max(1, int(100 * scale)))),
        "lanes": (lanes, (rng.integers(0, rows // LANES, 2_000_000).astype(np.int32), rows // LANES,
                          max(1, int(40 * scale)))),
        "lanes-l1": (lanes, (np.zeros(2_000_000, dtype=np.int32), 1, max(1, int(40 * scale)))),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2, help="threads at once (default 2)")
    parser.add_argument("--scale", type=float, default=1.0, help="work of each probe, relative (default 1)")
    args = parser.parse_args(argv)
    print(f"L2 a core: {L2_BYTES >> 10} KiB; numba {numba.__version__}")
    print("| probe | alone s | at once s (least-median-most) | alone again s | at once / alone |")
    print("|---|---:|---|---:|---:|")
    for name, (f, fargs) in probes(args.scale).items():
        f(*fargs[:-1], 1)  # compiled before it is timed

        def timed(_):
            start = time.perf_counter()
            f(*fargs)
            return time.perf_counter() - start

        runs = []
        for k in (1, args.threads, 1):
            with ThreadPoolExecutor(k) as pool:
                runs.append(sorted(pool.map(timed, range(k))))
        alone, together, again = runs
        median = together[len(together) // 2]
        print(f"| {name} | {alone[0]:.3f} | {together[0]:.3f}-{median:.3f}-{together[-1]:.3f} | {again[0]:.3f} "
              f"| {median / min(alone[0], again[0]):.2f} |")


if __name__ == "__main__":
    main()
