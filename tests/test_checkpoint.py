"""Checkpoints: a run killed at any moment and resumed gives the uninterrupted run's clusters, byte for byte;
a checkpoint is data (no pickle) and one of another input, other parameters or altered content is refused."""

import gzip
import json
import os
import pickle
import random
import subprocess
import sys
import time
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import netmcl
import netmcl.cli
from netmcl.checkpoint import Checkpoint, CheckpointError, graph_sha256, read_checkpoint, write_checkpoint
from netmcl.engines import get_engine
from netmcl.io import read_abc
from netmcl.mcl import cluster_graph
from netmcl.params import MclParams

HERE = Path(__file__).parent
ROOT = HERE.parent
COLLINS = HERE / "data" / "networks" / "clusterone_collins2007.txt.gz"
COLLINS_I2 = HERE / "golden" / "clm" / "collins.I2.txt.gz"


def _graph():
    return nx.connected_caveman_graph(8, 6)


class _Crash(Exception):
    pass


class _CrashAfter(Checkpoint):
    """A checkpoint whose process dies right after saving iteration `k`."""

    def __init__(self, *args, k, **kwargs):
        super().__init__(*args, **kwargs)
        self.k = k

    def save(self, engine, stats, *, final=False):
        super().save(engine, stats, final=final)
        if len(stats) == self.k:
            raise _Crash


def test_a_run_resumed_after_any_iteration_gives_the_same_clusters_and_chaos(tmp_path):
    graph = read_abc(COLLINS)
    params = MclParams.build(inflation=2.0)
    whole = cluster_graph(graph, params, get_engine("cpu"))
    assert whole.n_iterations >= 5
    last = whole.n_iterations
    for k in sorted({1, 2, 3, last // 2, last - 1, last}):
        path = tmp_path / f"after{k}.ckpt"
        if k < whole.n_iterations:
            with pytest.raises(_Crash):
                cluster_graph(graph, params, get_engine("cpu"), checkpoint=_CrashAfter(path, graph, params, k=k))
        else:
            cluster_graph(graph, params, get_engine("cpu"), checkpoint=Checkpoint(path, graph, params))
        assert read_checkpoint(path)["iteration"] == k
        resumed = cluster_graph(graph, params, get_engine("cpu"), checkpoint=Checkpoint(path, graph, params, resume=True))
        assert list(resumed) == list(whole)
        assert resumed.chaos == whole.chaos and resumed.converged
    assert "\n".join("\t".join(c) for c in whole) + "\n" == gzip.decompress(COLLINS_I2.read_bytes()).decode()


def test_the_api_checkpoints_and_resumes(tmp_path):
    G = _graph()
    path = tmp_path / "run.ckpt"
    first = netmcl.mcl(G, checkpoint=path, attribute=None)
    state = read_checkpoint(path)
    assert state["iteration"] == first.n_iterations and state["parameters"]["inflation"] == 2.0
    assert state["input_sha256"] == graph_sha256(netmcl.adapters.to_sparse_graph(G))
    again = netmcl.mcl(G, checkpoint=path, resume=True, attribute=None)
    assert list(again) == list(first) and again.chaos == first.chaos
    fresh = netmcl.mcl(G, checkpoint=tmp_path / "none-yet.ckpt", resume=True, attribute=None)
    assert list(fresh) == list(first)
    with pytest.raises(netmcl.ParameterError, match="checkpoint=PATH"):
        netmcl.mcl(G, resume=True)


def test_checkpoint_every_saves_only_when_due_and_after_the_last_iteration(tmp_path, monkeypatch):
    from netmcl import checkpoint

    graph = read_abc(COLLINS)
    params = MclParams()
    writes = []
    write = checkpoint.write_checkpoint

    def counting(path, matrix, stats, **kwargs):
        writes.append(len(stats))
        write(path, matrix, stats, **kwargs)

    monkeypatch.setattr(checkpoint, "write_checkpoint", counting)
    result = cluster_graph(graph, params, get_engine("cpu"), checkpoint=Checkpoint(tmp_path / "c", graph, params, every=3600))
    assert writes == [result.n_iterations]
    writes.clear()
    cluster_graph(graph, params, get_engine("cpu"), checkpoint=Checkpoint(tmp_path / "d", graph, params))
    assert writes == list(range(1, result.n_iterations + 1))


def test_another_input_or_other_parameters_are_refused_saying_which(tmp_path):
    G = _graph()
    path = tmp_path / "run.ckpt"
    netmcl.mcl(G, checkpoint=path, attribute=None)
    H = G.copy()
    H.add_edge(0, 20)
    assert H.number_of_edges() == G.number_of_edges() + 1
    with pytest.raises(CheckpointError, match="another input graph"):
        netmcl.mcl(H, checkpoint=path, resume=True)
    with pytest.raises(CheckpointError, match=r"other parameters \(inflation: 2\.0 there, 1\.4 here; "
                                              r"select: 1100 there, 50 here\)"):
        netmcl.mcl(G, checkpoint=path, resume=True, inflation=1.4, select=50)


def test_the_command_line_refuses_with_one_line(tmp_path):
    out, ckpt = tmp_path / "out", tmp_path / "run.ckpt"
    abc = tmp_path / "g.abc"
    abc.write_text("a b 1\nb c 1\nc a 1\nd e 1\n")
    assert netmcl.cli.main([str(abc), "--abc", "-o", str(out), "--checkpoint", str(ckpt)]) == 0
    proc = subprocess.run([sys.executable, "-m", "netmcl", str(abc), "--abc", "-I", "3", "-o", str(out),
                           "--checkpoint", str(ckpt), "--resume"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr.startswith("netmcl: error: The checkpoint") and "inflation: 2.0 there, 3.0 here" in proc.stderr
    assert proc.stderr.count("\n") == 1
    proc = subprocess.run([sys.executable, "-m", "netmcl", str(abc), "--abc", "-o", str(out), "--resume"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 1 and "need --checkpoint PATH" in proc.stderr


class _Planted:
    """Unpickling this writes a marker file: what a pickle in a checkpoint could do."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (Path(self.marker), "unpickled"))


def _valid(tmp_path):
    G = _graph()
    path = tmp_path / "good.ckpt"
    netmcl.mcl(G, checkpoint=path, attribute=None)
    with np.load(path, allow_pickle=False) as npz:
        return G, path, {k: npz[k] for k in npz.files}


def test_a_checkpoint_holding_a_pickle_is_refused_unexecuted(tmp_path):
    G, good, arrays = _valid(tmp_path)
    marker = tmp_path / "marker"
    planted = np.empty(1, dtype=object)
    planted[0] = _Planted(str(marker))
    bad = tmp_path / "pickled.ckpt"
    with open(bad, "wb") as fh:  # (np.savez would add .npz to a path)
        np.savez(fh, **dict(arrays, data=planted))
    with pytest.raises(CheckpointError, match="not plain numeric data"):
        netmcl.mcl(G, checkpoint=bad, resume=True)
    whole = tmp_path / "whole-pickle.ckpt"
    whole.write_bytes(pickle.dumps(_Planted(str(marker))))
    with pytest.raises(CheckpointError, match="not plain numeric data"):
        read_checkpoint(whole)
    one = tmp_path / "one-array.ckpt"
    with open(one, "wb") as fh:
        np.save(fh, planted, allow_pickle=True)
    with pytest.raises(CheckpointError, match="not plain numeric data"):
        read_checkpoint(one)
    assert not marker.exists()


@pytest.mark.parametrize(
    "change, says",
    [
        (lambda a: a.update(indptr=a["indptr"][:-1]), "shapes"),
        (lambda a: a.update(data=a["data"].astype(np.float64)), "types"),
        (lambda a: a.update(data=a["data"] * np.float32(0.5)), "checksum"),
        (lambda a: a.update(indices=a["indices"][::-1].copy()), "checksum"),
        (lambda a: a.pop("meta"), "not a netmcl checkpoint"),
        (lambda a: a.update(meta=np.frombuffer(b'{"format": "other"}', dtype=np.uint8)), "not a netmcl checkpoint"),
        (lambda a: a.update(meta=np.frombuffer(b"\xff\xfe", dtype=np.uint8)), "not JSON"),
    ],
)
def test_a_checkpoint_with_mismatching_arrays_is_refused(tmp_path, change, says):
    G, good, arrays = _valid(tmp_path)
    change(arrays)
    bad = tmp_path / "bad.ckpt"
    with open(bad, "wb") as fh:
        np.savez(fh, **arrays)
    with pytest.raises(CheckpointError, match=says):
        netmcl.mcl(G, checkpoint=bad, resume=True)


def test_an_altered_iterand_consistent_with_its_checksum_is_still_checked(tmp_path):
    G, good, arrays = _valid(tmp_path)
    state = read_checkpoint(good)
    m = state["matrix"]
    m.indices[0] = m.shape[0] + 5  # out of range, checksum recomputed by the writer
    bad = tmp_path / "bad.ckpt"
    write_checkpoint(bad, m, state["stats"], graph_digest=state["input_sha256"], params=MclParams())
    with pytest.raises(CheckpointError, match="not a valid matrix"):
        read_checkpoint(bad)


def test_a_truncated_checkpoint_is_refused(tmp_path):
    G, good, _ = _valid(tmp_path)
    data = good.read_bytes()
    for size in (0, 10, len(data) // 2, len(data) - 1):
        bad = tmp_path / f"cut{size}.ckpt"
        bad.write_bytes(data[:size])
        with pytest.raises(CheckpointError, match="cannot be used"):
            netmcl.mcl(G, checkpoint=bad, resume=True)


# --- killed at random moments -----------------------------------------------------------------------

CHILD = (
    "import sys, time\n"
    "from netmcl.engines.cpu._compiled import PARTS, kernels\n"
    "K = kernels()\n"
    "for name in PARTS['']:\n"
    "    getattr(K, name)\n"
    "import netmcl.cli, netmcl.checkpoint, netmcl.mcl, netmcl.engines.cpu\n"
    "print('ready', flush=True)\n"
    "t = time.perf_counter()\n"
    "status = netmcl.cli.main(sys.argv[1:])\n"
    "print('seconds', time.perf_counter() - t, flush=True)\n"
    "sys.exit(status)\n"
)


def _start(args):
    proc = subprocess.Popen([sys.executable, "-c", CHILD, *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "ready\n", proc.stderr.read()
    return proc


def test_runs_killed_at_random_moments_resume_to_the_same_bytes(tmp_path):
    args = [str(COLLINS), "--abc", "-I", "2", "-te", "1"]
    reference = tmp_path / "reference"
    proc = _start([*args, "-o", str(reference)])
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    seconds = float(out.split()[-1])
    assert reference.read_bytes() == gzip.decompress(COLLINS_I2.read_bytes())
    rng = random.Random(20240611)
    kills, seen, chain = 0, [], 0
    while kills < 20:
        ckpt, result = tmp_path / f"chain{chain}.ckpt", tmp_path / f"chain{chain}.out"
        progress = []  # the saved iteration after each kill of this chain: a resumed run keeps what was done
        for attempt in range(10):
            if len(progress) < 4 and attempt < 8:
                proc = _start([*args, "-o", str(result), "--checkpoint", str(ckpt), "--resume"])
                time.sleep(rng.uniform(0.0, seconds))
                if proc.poll() is None:
                    proc.kill()
                    proc.communicate(timeout=60)
                    progress.append(read_checkpoint(ckpt)["iteration"] if ckpt.exists() else 0)
                    # killed before it wrote the clusters, or while the interpreter exited after writing them
                    # whole: never a partial file
                    assert not result.exists() or result.read_bytes() == reference.read_bytes()
                    continue
            else:
                proc = _start([*args, "-o", str(result), "--checkpoint", str(ckpt), "--resume", "-v", "all"])
            _, err = proc.communicate(timeout=300)
            assert proc.returncode == 0, err
            if progress and progress[-1] > 0 and "-v" in proc.args:
                assert f"Resuming from {ckpt} after iteration {progress[-1]}" in err, err
            break
        assert result.read_bytes() == reference.read_bytes(), f"chain {chain}"
        assert progress == sorted(progress), progress
        assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left
        kills += len(progress)
        seen += progress
        chain += 1
    assert len(set(seen)) >= 3, seen  # the kills fell in different iterations
