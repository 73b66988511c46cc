"""The CPU engine: numba kernels compiled ahead of time, columns split among threads.

``engine.py``
    :class:`CpuEngine`: the iteration on the CPU's cores (threads, phases
    under a memory budget, the order of heavy columns, row storage).
``_kernels.py``
    The numba kernels of the iteration (expansion with mcl's two product
    paths, pruning, rescaling, inflation) and the row codecs.
``_constants.py``
    The tuning constants the kernels are compiled with.
``_graph_kernels.py``
    Kernels over a graph's pattern: merging arcs, components, submatrices.
``_compiled.py``
    The ahead-of-time build of every kernel (these and the file scanners of
    :mod:`netmcl.io`) into an extension module cached per machine.
``_jit.py``, ``_buffers.py``
    Helpers of the kernels (sorting, inlining) and of the engine (growing
    arrays, memory mappings).

Importing this package loads none of them; the names below are imported on
first use.
"""

import importlib

__all__ = ["CpuEngine", "available_cores", "map_large_blocks", "one_arena", "parse_memory"]


def __getattr__(name):
    if name not in __all__:
        raise AttributeError(f"module 'netmcl.engines.cpu' has no attribute {name!r}")
    return getattr(importlib.import_module("netmcl.engines.cpu.engine"), name)
