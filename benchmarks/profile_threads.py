"""Where netmcl's iterations spend their time as threads are added.

Clusters a label file with the CPU engine in this process, once per thread
count, and reports for each run (and, with ``--each``, each iteration): the
iterations' wall time; the time of the chunks' kernel calls (``expand_columns``)
summed over the threads, which stays at one thread's where the threads do not
slow each other down; the busiest thread's share of it; and the time the thread
that gathers the chunks' results spends on its own steps (surveying and
ordering the columns, appending the results, storing the next iterand), which
no other thread can take over.  Perfect scaling would give a wall time of the
one-thread kernel time over the threads, plus the gathering thread's steps.
The graph is iterated whole, in one engine (the command line and
``netmcl.mcl`` go on with its components apart once they are known).

It times the engine's private methods by wrapping them: a diagnostic for
developers, not an interface.

Examples
--------
python benchmarks/profile_threads.py benchmarks/work/inputs/gen-10k.abc --threads 1,2,4,8,16
python benchmarks/profile_threads.py krogan.abc --threads 16 --each --glibc-defaults
"""

import argparse
import threading
import time
from collections import defaultdict

from netmcl.engines.cpu import _buffers
from netmcl.engines.cpu import engine as cpu
from netmcl.io.abc import read_abc
from netmcl.mcl import _states
from netmcl.params import MclParams

#: the gathering thread's own steps that are timed
GATHERING_STEPS = ((cpu.CpuEngine, "_survey"), (cpu.CpuEngine, "_order"), (cpu.CpuEngine, "_store"),
                   (cpu.CpuEngine, "_keep_gaps"), (cpu.CpuEngine, "_column_estimates"), (cpu.CpuEngine, "_chunks"),
                   (cpu, "_as_gaps"), (_buffers.Appender, "append"), (_buffers.Appender, "array"))


class Timings:
    """The kernel calls (thread, seconds) and the gathering thread's steps (name: seconds) of an iteration."""

    def __init__(self):
        self.calls, self.steps = [], defaultdict(float)

    def clear(self):
        self.calls.clear()
        self.steps.clear()

    def instrument(self):
        """Wrap the gathering thread's steps and the engine's ``expand_columns`` kernels."""
        for owner, name in GATHERING_STEPS:
            setattr(owner, name, self._step(getattr(owner, name), name.strip("_")))
        kernel = cpu.CpuEngine._kernel

        def timed_kernel(engine, name):
            f = kernel(engine, name)
            return self._call(f) if name.startswith("expand_columns") else f

        cpu.CpuEngine._kernel = timed_kernel

    def _step(self, f, name):
        def step(*args, **kwargs):
            start = time.perf_counter()
            try:
                return f(*args, **kwargs)
            finally:
                if threading.current_thread() is threading.main_thread():
                    self.steps[name] += time.perf_counter() - start
        return step

    def _call(self, f):
        def call(*args):
            start = time.perf_counter()
            result = f(*args)
            self.calls.append((threading.get_ident(), time.perf_counter() - start))
            return result
        return call

    def summary(self):
        """Kernels' seconds summed, the busiest thread's, and the gathering thread's steps'."""
        per_thread = defaultdict(float)
        for thread, seconds in self.calls:
            per_thread[thread] += seconds
        return sum(per_thread.values()), max(per_thread.values(), default=0.0), sum(self.steps.values())


def profile(graph, threads, params, timings, each):
    """Cluster `graph` on `threads` threads, as ``netmcl.mcl`` iterates it; the
    totals (wall, kernels, busiest, gathering, iterations)."""
    engine = cpu.CpuEngine(threads=threads)
    totals = [0.0, 0.0, 0.0, 0.0]
    timings.clear()
    for state in _states(graph, params, engine, decompose=False):
        it, wall = state.iteration, state.stats.seconds
        kernels, busiest, gathering = timings.summary()
        for i, value in enumerate((wall, kernels, busiest, gathering)):
            totals[i] += value
        if each:
            steps = " ".join(f"{k}={v:.3f}" for k, v in sorted(timings.steps.items(), key=lambda kv: -kv[1])[:4])
            print(f"  {threads:>2} threads, iteration {it:>2}: wall {wall:.3f} s, kernels {kernels:.3f} s "
                  f"({len(timings.calls)} calls), busiest {busiest:.3f} s, gathering {gathering:.3f} s ({steps})")
        timings.clear()
    return (*totals, it)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", help="a label (ABC) file")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    parser.add_argument("-I", "--inflation", type=float, default=2.0, help="mcl's -I (default 2)")
    parser.add_argument("-L", "--iterations", type=int, default=10_000, help="stop after this many iterations (mcl's -L)")
    parser.add_argument("--each", action="store_true", help="a line for every iteration")
    parser.add_argument("--glibc-defaults", action="store_true",
                        help="leave glibc's allocator as it is (the command line sets a fixed mmap threshold "
                             "and one arena, and so does this script by default)")
    args = parser.parse_args(argv)
    if not args.glibc_defaults:
        cpu.map_large_blocks()
        cpu.one_arena()
    timings = Timings()
    timings.instrument()
    start = time.perf_counter()
    graph = read_abc(args.file)
    print(f"{args.file}: {graph.n:,} nodes, read in {time.perf_counter() - start:.3f} s")
    params = MclParams.build(inflation=args.inflation, max_iterations=args.iterations)
    rows = []
    for threads in (int(t) for t in args.threads.split(",")):
        rows.append((threads, *profile(graph, threads, params, timings, args.each)))
    one = next((r[2] for r in rows if r[0] == 1), None)
    print("| threads | iterations' wall s | kernels summed s | x one thread's | busiest thread s | gathering thread s |"
          " iterations |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for threads, wall, kernels, busiest, gathering, iterations in rows:
        ratio = f"{kernels / one:.2f}" if one else "–"
        print(f"| {threads} | {wall:.3f} | {kernels:.3f} | {ratio} | {busiest:.3f} | {gathering:.3f} | {iterations} |")


if __name__ == "__main__":
    main()
