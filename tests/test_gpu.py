"""The GPU engine: iterands bit-identical to the CPU engine's, clusters equal to mcl's.

Without a GPU the kernels run in numba's CUDA simulator (``conftest.py`` sets
``NUMBA_ENABLE_CUDASIM=1``): each CUDA thread is a Python thread, so the
graphs here have tens of nodes and the blocks a few threads.  With
``NUMBA_ENABLE_CUDASIM=0`` on a machine with a GPU the same tests run on the
device, at the engine's own launch sizes as well.

Every run goes through :class:`Shadowed`, the GPU engine with a CPU engine
beside it: after each iteration the two iterands must be the same bytes and
the statistics the same numbers.  The clusters are compared with mcl's
golden files (``tests/golden/``), or with ``mcl`` itself.
"""

import gzip
import importlib.util
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import netmcl
from netmcl.engines import Pruning, get_engine, why_unavailable
from netmcl.exceptions import BackendUnavailableError

REASON = why_unavailable("gpu")
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"the GPU engine cannot run here: {REASON}")

ROOT = Path(__file__).resolve().parent.parent
GOLDEN_DIR = ROOT / "tests" / "golden"
_spec = importlib.util.spec_from_file_location("netmcl_make_golden_gpu", GOLDEN_DIR / "make_golden.py")
mg = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mg)

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
#: (blocks, threads per block): two launch shapes; the answer must not depend on them
LAUNCHES = [(2, 4), (3, 2)] if SIMULATED else [(None, None), (7, 32)]


@pytest.fixture(autouse=True, scope="module")
def quick_thread_switches():
    """The simulator's threads hand over at barriers: switch often (gpu-testing notes)."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    yield
    sys.setswitchinterval(before)


def gpu(launch=LAUNCHES[0], **options):
    blocks, threads = launch
    return Shadowed(blocks=blocks, threads_per_block=threads, **options)


class Shadowed:
    """The GPU engine, checked against a CPU engine after every iteration.

    Built on the real GPU engine (a subclass made on first use, so that this
    module imports without numba-cuda); ``checked`` counts the iterations
    compared.
    """

    _cls = None

    def __new__(cls, **options):
        if cls._cls is None:
            from netmcl.engines.gpu import GpuEngine

            class _Shadowed(GpuEngine):
                def load(self, matrix, *, n_rule=None):
                    self.checked = 0
                    self.cpu = get_engine("cpu", threads=2)
                    self.cpu.load(matrix.copy(), n_rule=n_rule)
                    super().load(matrix, n_rule=n_rule)

                def iterate(self, inflation, pruning):
                    mine = super().iterate(inflation, pruning)
                    theirs = self.cpu.iterate(inflation, pruning)
                    self.checked += 1
                    assert_same_matrix(self.result(), self.cpu.result(), f"iteration {self.checked}")
                    for field in ("chaos", "expanded", "kept", "recovered", "selected", "recovered_after_select",
                                  "emergency", "dense_path", "emptied", "min_mass"):
                        assert getattr(mine, field) == getattr(theirs, field), (
                            f"iteration {self.checked}: {field} {getattr(mine, field)} != {getattr(theirs, field)}")
                    return mine

                def inflate(self, inflation):
                    emptied = super().inflate(inflation)
                    assert emptied == self.cpu_inflate(inflation)
                    assert_same_matrix(self.result(), self.cpu.result(), "inflate")
                    return emptied

                def cpu_inflate(self, inflation):
                    from netmcl.engines.cpu._compiled import kernels

                    m = self.cpu.result()
                    emptied = kernels().inflate_columns(m.indptr, m.data, inflation)
                    keep = np.repeat(~np.isin(np.arange(m.shape[0]), emptied), np.diff(m.indptr))
                    counts = np.diff(m.indptr)
                    counts[np.asarray(emptied, dtype=np.int64)] = 0
                    indptr = np.concatenate([[0], np.cumsum(counts)])
                    self.cpu.load(netmcl.sparse.CscMatrix(indptr, m.indices[keep], m.data[keep], m.shape[0]),
                                  n_rule=self.n_rule)
                    return len(emptied)

            cls._cls = _Shadowed
        return cls._cls(**options)


def assert_same_matrix(a, b, what):
    assert a.shape == b.shape, what
    assert np.array_equal(a.indptr, b.indptr), f"{what}: column lengths differ"
    assert np.array_equal(a.indices, b.indices), f"{what}: rows differ"
    assert a.data.tobytes() == b.data.tobytes(), f"{what}: values differ"


def golden_case(family, case_id):
    data = mg.load(family)
    case = next(c for c in data["cases"] if c["id"] == case_id)
    return case, data["inputs"][case["input"]]


def graph_of(spec, tmp_path):
    if "file" in spec:
        return netmcl.read_abc(mg.DATA / spec["file"])
    path = tmp_path / ("input.mci" if "mci" in spec else "input.abc")
    path.write_text(spec["mci"] if "mci" in spec else spec["abc"])
    return netmcl.read_mci(path) if "mci" in spec else netmcl.read_abc(path)


def assert_golden(family, case_id, tmp_path, engine):
    """Cluster a golden case on `engine`; clusters, chaos trace and iteration count must be mcl's."""
    case, spec = golden_case(family, case_id)
    clustering = netmcl.mcl(graph_of(spec, tmp_path), engine=engine, attribute=None, **mg.mcl_kwargs(case["args"]))
    if case["mode"] == "native":
        clusters = [c.tolist() for c in clustering.index_clusters]
    else:
        clusters = [list(c) for c in clustering]
    assert clusters == case["clusters"], f"{family}/{case_id}: clusters differ from mcl's"
    assert [f"{c:.2f}" for c in clustering.chaos] == case["chaos"], f"{family}/{case_id}: chaos differs"
    assert clustering.n_iterations == case["iterations"]
    assert engine.checked == clustering.n_iterations
    return clustering


# ---------------------------------------------------------------------------
# fidelity


def assert_device_interpretation(engine):
    """The engine's own interpretation of its iterand (``clusters``, on the
    device) equals the host's (``interpret`` of ``result()``) in every
    overlap mode, and copies to the host an int32 per node and a flag per
    round of its fixed point -- never the iterand, whose copy the same
    counter sees.  Returns whether a node is in several attractor systems."""
    from netmcl.interpret import interpret

    limit, n = engine.result(), engine.n
    several = 0
    for overlap in ("cut", "keep", "split"):
        before = engine.bytes_to_host
        mine = [c.tolist() for c in engine.clusters(overlap)]
        copied = engine.bytes_to_host - before
        theirs = [c.tolist() for c in interpret(limit, overlap=overlap)]
        assert mine == theirs, f"overlap={overlap}: the device's clusters differ from the host's"
        if overlap == "keep":
            several = sum(map(len, theirs)) - n  # memberships beyond one a node
        # labels, a flag per round of the fixed point, and (keep, split) the columns of the nodes in several systems
        columns = 16 * several + 4 * limit.nnz if overlap != "cut" and several else 0
        assert 4 * n <= copied <= 4 * n + 4 * (n + 1) + columns, f"overlap={overlap}: {copied} bytes copied back"
    before = engine.bytes_to_host
    engine.result()
    assert engine.bytes_to_host - before >= 16 * n + 8 * limit.nnz  # a copy of the iterand is counted
    return several > 0


@pytest.mark.parametrize("launch", LAUNCHES, ids=lambda launch: f"launch{launch}")
def test_cathat_and_line_graphs_every_overlap_mode(launch, tmp_path):
    """Clusters found on the device (the loop asks the engine) are mcl's, and
    equal the host's interpretation of the same limit in every overlap mode."""
    engine = gpu(launch)
    assert_golden("cathat", "cathat", tmp_path, engine)
    several = assert_device_interpretation(engine)
    for case_id in ("line5-I2-cut", "line5-I2-keep", "line5-I2-split", "line7-I1.5-keep", "line4-I3-cut"):
        engine = gpu(launch)
        assert_golden("lines", case_id, tmp_path, engine)
        several |= assert_device_interpretation(engine)
    assert several, "no limit has a node in several attractor systems"


#: small random graphs of the golden set with aggressive -P/-S/-R/-pct: every pruning branch
AGGRESSIVE = [
    "r15-planted-n32-d16-exp-run1", "r15-planted-n32-d16-exp-run2", "r25-hubs-n33-d4-none-run3",
    "r36-planted-n44-d3-none-run3",
]


def test_aggressive_pruning_takes_every_branch(tmp_path):
    totals = dict.fromkeys(["recovered", "selected", "recovered_after_select", "emergency", "dense_path"], 0)
    overflow = 0
    for k, case_id in enumerate(AGGRESSIVE):
        engine = gpu(LAUNCHES[k % 2])
        clustering = assert_golden("random", case_id, tmp_path, engine)
        assert_device_interpretation(engine)
        for stats in clustering.stats:
            for name in totals:
                totals[name] += getattr(stats, name)
            overflow += stats.extra.get("overflow_columns", 0)
    assert all(totals.values()), f"a pruning branch is never taken: {totals}"
    assert overflow, "no column went to the ELLPACK overflow pool"


def test_pow_paths_and_the_host_inflation(tmp_path):
    """I = 1.4 goes through pow; pow_check="always" hands every column's
    inflation to the host (the path of an ambiguous power), with the same bytes."""
    assert_golden("minimal", "inflation_is_float32", tmp_path, gpu(pow_check="always"))
    assert_golden("iterands", "inflation_1.4", tmp_path, gpu(LAUNCHES[1]))
    assert_golden("iterands", "triangle_bumped", tmp_path, gpu(LAUNCHES[1]))  # the x1.001 bump: I is not 2
    # -P 0: sums that underflow to float32 zeros stay as entries on the sparse path
    assert_golden("iterands", "line15_float32_zeros", tmp_path, gpu(LAUNCHES[0]))


def _random_limit(n, rng):
    """A column-stochastic-like matrix with few entries a column: loops or not,
    values from a small set (ties at the column maximum, near the DAG's bar,
    zeros), empty columns.  Its interpretation has chains, cycles without an
    attractor, nodes in several systems and nodes in none."""
    indptr, rows, vals = [0], [], []
    for j in range(n):
        col = set(rng.choice(n, int(rng.integers(0, 4)), replace=False).tolist())
        if rng.random() < 0.4:
            col.add(j)
        col = sorted(col)
        rows += col
        vals += rng.choice([1.0, 0.5, 0.25, 0.2495, 0.7, 0.0], len(col)).tolist()
        indptr.append(len(rows))
    return netmcl.sparse.CscMatrix(np.array(indptr), np.array(rows, dtype=np.int32),
                                   np.array(vals, dtype=np.float32), n)


def test_device_interpretation_of_random_limits():
    """Hand-made limits loaded as they are (CSC, not ELLPACK): the device's
    clusters equal the host's in every mode, with nodes in several systems
    and in none among them."""
    from netmcl.engines.gpu import GpuEngine

    rng = np.random.default_rng(7)
    several = homeless = 0
    for k in range(16):
        limit = _random_limit(12, rng)
        blocks, threads = LAUNCHES[k % 2]
        engine = GpuEngine(blocks=blocks, threads_per_block=threads)
        engine.load(limit.copy(), n_rule=limit.shape[0])
        several += assert_device_interpretation(engine)
        homeless += bool((np.diff(limit.indptr) == 0).any())  # an empty column's node is in no system
    assert several and homeless, (several, homeless)


def test_the_loop_interprets_on_the_device(tmp_path):
    """The last state's clustering (what mcl returns) comes from the engine's
    own interpretation: it copies an int per node, not the limit."""
    from netmcl.engines.gpu import GpuEngine

    case, spec = golden_case("lines", "line5-I2-cut")
    engine = GpuEngine(blocks=LAUNCHES[0][0], threads_per_block=LAUNCHES[0][1])
    *_, last = netmcl.mcl_iterates(graph_of(spec, tmp_path), engine=engine, **mg.mcl_kwargs(case["args"]))
    before = engine.bytes_to_host
    clusters = [list(c) for c in last.clustering()]
    copied = engine.bytes_to_host - before
    assert clusters == case["clusters"]
    n = engine.n
    assert copied <= 4 * n + 4 * (n + 1), f"{copied} bytes copied back for {n} nodes"
    before = engine.bytes_to_host
    engine.result()
    assert engine.bytes_to_host - before > 16 * n > copied


def test_the_simulated_pow_is_the_c_librarys():
    """In the simulator math.pow is the C library's: the ambiguity check finds
    the same float32 either way, and flags values next to a midpoint."""
    from netmcl.engines.gpu import _kernels as K

    rng = np.random.default_rng(5)
    x = rng.random(2000)
    for power in (1.4, 3.5, 2.002):
        d = np.array([np.float64(v) ** power for v in x])
        import math

        assert all(math.pow(v, power) == e for v, e in zip(x, d))
    f = np.float32(0.3)
    midpoint = (np.float64(f) + np.float64(np.nextafter(f, np.float32(1)))) / 2
    assert K._ambiguous(midpoint)
    assert not K._ambiguous(np.float64(f))


def test_device_pow_rounds_as_the_c_library_wherever_unflagged():
    """The device's pow (libdevice's __nv_pow on a GPU, the C library's in the
    simulator), rounded to float32, equals the C library's wherever the
    ambiguity check lets it through; on a GPU this counts the flagged values."""
    import math

    from netmcl.engines.gpu import _kernels as K

    rng = np.random.default_rng(11)
    size = 200 if SIMULATED else 2_000_000
    x = rng.random(size).astype(np.float32)
    x[: size // 4] = x[: size // 4] * np.float32(1e-3)  # the small values of late iterations
    for power in (1.4, 3.5, 2.0 * 1.001**3):
        out, flagged = np.empty(size, np.float32), np.zeros(size, np.uint8)
        if SIMULATED:
            K.pow_probe[2, 4](x, np.float64(power), out, flagged)
        else:
            import cupy

            d_out, d_flagged = cupy.empty(size, np.float32), cupy.zeros(size, np.uint8)
            K.pow_probe[256, 128](cupy.asarray(x), np.float64(power), d_out, d_flagged)
            out, flagged = d_out.get(), d_flagged.get()
        host = np.array([np.float32(math.pow(float(v), power)) for v in x.tolist()], dtype=np.float32)
        differ = out.view(np.uint32) != host.view(np.uint32)
        assert not (differ & (flagged == 0)).any(), f"I = {power}: an unflagged power rounds otherwise than glibc"
        print(f"I = {power}: {int(differ.sum())} of {size} float32 powers differ from the C library's, "
              f"{int(flagged.sum())} flagged")


def real_subnetwork(tmp_path, size):
    """The first `size` nodes reached breadth-first from the best-connected
    protein of the Collins network, with every edge among them, in file order."""
    lines = gzip.open(mg.DATA / "networks" / "clusterone_collins2007.txt.gz", "rt").read().splitlines()
    edges = [line.split("\t") for line in lines if line.strip()]
    neighbours = {}
    for a, b, _ in edges:
        neighbours.setdefault(a, []).append(b)
        neighbours.setdefault(b, []).append(a)
    hub = max(neighbours, key=lambda a: (len(neighbours[a]), a))
    seen, queue = [hub], [hub]
    while queue and len(seen) < size:
        for b in neighbours[queue.pop(0)]:
            if b not in seen and len(seen) < size:
                seen.append(b)
                queue.append(b)
    chosen = set(seen)
    path = tmp_path / "collins_part.abc"
    path.write_text("".join(f"{a}\t{b}\t{w}\n" for a, b, w in edges if a in chosen and b in chosen))
    return path


def test_real_subnetwork(tmp_path, have_mcl):
    args = ["-I", "1.4", "-P", "30", "-S", "8", "-R", "12"]
    path = real_subnetwork(tmp_path, size=40)
    graph = netmcl.read_abc(path)
    assert graph.n == 40
    engine = gpu(LAUNCHES[1])
    clustering = netmcl.mcl(graph, engine=engine, attribute=None, **mg.mcl_kwargs(args))
    assert engine.checked == clustering.n_iterations
    if have_mcl:
        expected = mg.run_mcl(path, args)
        assert [list(c) for c in clustering] == expected["clusters"]
        assert [f"{c:.2f}" for c in clustering.chaos] == expected["chaos"]


def test_the_exact_product_path():
    """A column takes mcl's exact (sparse) product path when 10 * flops < n_rule:
    loaded as a component of a large graph, every column of a small one does,
    and of a middling one some do."""
    from netmcl.mcl import _start, inflation_at

    graph = netmcl.adapters.to_sparse_graph(_karate())
    params = netmcl.MclParams.build(inflation=1.6, pruning_number=30, select=6, recover=9)
    for n_rule, launch in ((100_000, LAUNCHES[0]), (600, LAUNCHES[1])):
        engine = gpu(launch)
        engine.load(_start(graph, params), n_rule=n_rule)
        dense = [engine.iterate(inflation_at(params, it), params.pruning()).dense_path for it in range(1, 4)]
        assert engine.checked == 3
        if n_rule == 100_000:
            assert dense == [0, 0, 0]
        else:
            assert any(0 < d < graph.n for d in dense), dense


def test_expansion_without_inflation_then_inflate():
    """iterate(None) then inflate(I) (an inflation sweep's first iteration)."""
    import networkx as nx

    from netmcl.mcl import _start

    graph = netmcl.adapters.to_sparse_graph(nx.path_graph(12))

    params = netmcl.MclParams.build(inflation=1.4)
    engine = gpu(LAUNCHES[1])
    engine.load(_start(graph, params), n_rule=graph.n)
    engine.iterate(None, params.pruning())
    assert engine.inflate(1.4) == 0
    engine.iterate(2.0, params.pruning())


# ---------------------------------------------------------------------------
# memory: phases, retries, the CPU fallback


def _karate():
    import networkx as nx

    return nx.karate_club_graph()


def test_phases_under_a_budget_give_the_same_iterands():
    engine = gpu(LAUNCHES[0], max_memory=14_000)
    clustering = netmcl.mcl(_karate(), engine=engine, attribute=None, pruning_number=40, select=10, recover=12)
    assert max(s.extra["phases"] for s in clustering.stats) > 1
    assert clustering.clusters == netmcl.mcl(_karate(), attribute=None, pruning_number=40, select=10,
                                             recover=12).clusters


def test_out_of_memory_retries_with_more_phases(monkeypatch):
    """An allocation failure (injected: any staging allocation over 600 entries)
    makes the iteration run again in more phases, with the same result."""
    from netmcl.engines.gpu import _engine

    real = _engine._allocate

    def failing(xp, shape, dtype, zero=False):
        if np.dtype(dtype) == np.int32 and np.prod(shape) > 600:
            raise MemoryError(f"injected: {shape} {np.dtype(dtype)}")
        return real(xp, shape, dtype, zero)

    monkeypatch.setattr(_engine, "_allocate", failing)
    engine = gpu(LAUNCHES[0])
    clustering = netmcl.mcl(_karate(), engine=engine, attribute=None, pruning_number=40, select=10, recover=12)
    assert clustering.stats[0].extra["retries"] >= 1
    assert clustering.stats[0].extra["phases"] > 1
    assert "engine" not in clustering.stats[-1].extra


def test_out_of_memory_falls_back_to_the_cpu_engine(caplog):
    """A budget too small for one column a phase: the run goes on on the CPU
    engine, with a warning that says why, and the answer is mcl's."""
    engine = gpu(LAUNCHES[0], max_memory=6_000)
    with caplog.at_level(logging.WARNING, logger="netmcl"):
        clustering = netmcl.mcl(_karate(), engine=engine, attribute=None)
    assert any("GPU engine" in r.message and "CPU engine" in r.message for r in caplog.records)
    assert clustering.stats[-1].extra.get("engine") == "cpu" != clustering.stats[0].extra.get("engine")
    assert clustering.clusters == netmcl.mcl(_karate(), attribute=None).clusters


# ---------------------------------------------------------------------------
# installation and selection


def _python(code, **env):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, **env}, timeout=300)


def test_import_netmcl_imports_no_cuda_library():
    out = _python("import sys, netmcl; netmcl.engines.engine_names(); "
                  "print(sorted(m for m in ('cupy', 'numba.cuda', 'numba_cuda') if m in sys.modules))")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


@pytest.mark.skipif(not SIMULATED, reason="a device is present")
def test_without_a_device_the_engine_says_what_is_missing():
    out = _python(
        "import netmcl, networkx as nx\n"
        "from netmcl.engines import why_unavailable\n"
        "print(why_unavailable('gpu'))\n"
        "try:\n    netmcl.mcl(nx.path_graph(3), engine='gpu')\n"
        "except netmcl.BackendUnavailableError as e:\n    print('raised:', e)\n",
        NUMBA_ENABLE_CUDASIM="0",
    )
    assert out.returncode == 0, out.stderr
    reason, raised = out.stdout.strip().splitlines()
    assert reason.startswith("no CUDA device is visible")
    assert raised.startswith(f"raised: The 'gpu' engine cannot run here: {reason}")
    assert "netmcl[cuda12]" in raised
    assert issubclass(BackendUnavailableError, ImportError)


def test_ptx_keeps_the_arithmetic_contract():
    """Every kernel compiled for sm_90: no FMA where mcl rounds twice, no
    approximate division, float32 only where mcl rounds to float32."""
    out = _python("from netmcl.engines.gpu._ptx import main; main()", NUMBA_ENABLE_CUDASIM="0")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout.strip().splitlines()[-1])
    if "unavailable" in report:
        pytest.skip(f"NVVM/NVRTC cannot compile here ({report['unavailable']}); "
                    "python -m pip install 'netmcl[test]' brings them")
    assert report["problems"] == []


def test_ptx_audit_catches_a_contracted_product():
    """The audit fails on kernels that break the contract: a float32 product
    added in float32 (contracted to an FMA), a dense product taken in float64."""
    code = (
        "import json, numba\n"
        "from numba import cuda, float32, float64\n"
        "from netmcl.engines.gpu import _ptx\n"
        "_ptx._without_a_device()\n"
        "def fused(f, v, out):\n    out[0] = f[0] * v[0] + out[1]\n"
        "def wide(f, v, out):\n    out[0] += numba.float64(f[0]) * numba.float64(v[0])\n"
        "sig32 = (float32[::1], float32[::1], float32[::1])\n"
        "sig64 = (float32[::1], float32[::1], float64[::1])\n"
        "a, _ = cuda.compile_ptx(fused, sig32, cc=(9, 0))\n"
        "b, _ = cuda.compile_ptx(wide, sig64, cc=(9, 0))\n"
        "print(json.dumps([_ptx.audit('fused', a), _ptx._widened_products(b)]))\n"
    )
    out = _python(code, NUMBA_ENABLE_CUDASIM="0")
    assert out.returncode == 0, out.stderr
    try:
        fused, (dense, exact) = json.loads(out.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        pytest.skip(f"NVVM/NVRTC cannot compile here: {out.stdout[-300:]}")
    assert any("fused multiply-add" in p for p in fused), fused
    assert (dense, exact) == (False, True)


def test_engine_options_are_checked():
    from netmcl.engines.gpu import GpuEngine

    with pytest.raises(netmcl.ParameterError, match="threads_per_block"):
        GpuEngine(threads_per_block=2048)
    with pytest.raises(netmcl.ParameterError, match="pow_check"):
        GpuEngine(pow_check="sometimes")
    engine = GpuEngine(blocks=1, threads_per_block=1)
    engine.load(netmcl.sparse.CscMatrix([0, 1], [0], [1.0], 1))
    with pytest.raises(netmcl.ParameterError, match="inflation"):
        engine.iterate(-1.0, Pruning(-1.0, 0, 0, 0.9))
