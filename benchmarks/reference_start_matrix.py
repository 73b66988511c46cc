"""How long the reference engine's whole-matrix functions take on a large start matrix.

``netmcl.engines.reference.normalize_columns`` and ``inflate_columns`` are
plain NumPy (sums one after the other, columns side by side) and must equal
the compiled kernels bit for bit.  This times both on a random matrix of
``--entries`` entries (columns of 0..``--longest`` entries, values spanning
60 orders of magnitude), checks that their results are identical, and prints
a row per function.

Examples
--------
python benchmarks/reference_start_matrix.py --entries 20000000
"""

import argparse
import time

import numpy as np

from netmcl.engines.cpu._compiled import kernels
from netmcl.engines import reference as R


def random_matrix(entries, longest, seed):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, longest + 1, max(1, 2 * entries // longest))
    indptr = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    data = (10.0 ** rng.uniform(-30, 30, indptr[-1])).astype(np.float32)
    return indptr, data


def timed(fn, *args):
    t0 = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=20_000_000)
    parser.add_argument("--longest", type=int, default=2000, help="the longest column")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    indptr, data = random_matrix(args.entries, args.longest, args.seed)
    K = kernels()
    print(f"{indptr.size - 1:,} columns, {data.size:,} entries")
    print(f"{'function':<24} {'reference (s)':>14} {'kernel (s)':>11}  identical")
    for name, extra in (("normalize_columns", ()), ("inflate_columns", (2.0,)), ("inflate_columns", (1.4,))):
        mine, theirs = data.copy(), data.copy()
        a, t_ref = timed(getattr(R, name), indptr, mine, *extra)
        b, t_kernel = timed(getattr(K, name), indptr, theirs, *extra)
        same = mine.tobytes() == theirs.tobytes()
        if a is not None:
            same = same and np.asarray(a).tolist() == np.asarray(b, dtype=np.int64).tolist()
        label = name + (f"({extra[0]})" if extra else "")
        print(f"{label:<24} {t_ref:>14.2f} {t_kernel:>11.2f}  {same}")


if __name__ == "__main__":
    main()
