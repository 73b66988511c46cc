"""netmcl imports and clusters without any optional dependency; features that need one say which extra."""

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import sys
    BLOCK = {"pandas", "igraph", "matplotlib", "py4cytoscape", "cupy", "numba_cuda", "dask", "distributed"}

    class Blocker:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCK:
                raise ModuleNotFoundError(f"No module named {name!r}")

    sys.meta_path.insert(0, Blocker())
    import networkx as nx
    import netmcl

    G = nx.barbell_graph(3, 0)
    assert list(netmcl.mcl(G)) == [[0, 1, 2], [3, 4, 5]]
    assert not BLOCK & {m.split(".")[0] for m in sys.modules}
    cl = netmcl.mcl(G)
    for call, extra in (
        (lambda: netmcl.to_frame(cl), "tables"),
        (lambda: netmcl.draw(G, cl), "plot"),
        (lambda: netmcl.cytoscape.push(G, cl), "cytoscape"),
    ):
        try:
            call()
        except netmcl.BackendUnavailableError as e:
            assert f"netmcl[{extra}]" in str(e), str(e)
        else:
            raise AssertionError(f"no error without the {extra} extra")
    try:
        netmcl.mcl(G, engine="gpu")
    except netmcl.BackendUnavailableError as e:
        assert "netmcl[cuda12]" in str(e), str(e)
    else:
        raise AssertionError("the GPU engine ran without numba-cuda")
    try:
        netmcl.mcl(G, engine="dask")
    except netmcl.BackendUnavailableError as e:
        assert "netmcl[dask]" in str(e), str(e)
    else:
        raise AssertionError("the Dask engine ran without dask")
    print("ok")
    """
)


def test_import_and_cluster_without_optional_dependencies():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0")  # the GPU engine's probe then asks for numba-cuda
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
