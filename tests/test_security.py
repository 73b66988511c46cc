"""What netmcl refuses to trust (SECURITY.md): shared kernel caches, names inside files, the network.

* A compiled module planted in a cache others can write is never imported:
  the planted module is a real extension module of the cache's name, built
  here with the C compiler, which leaves a marker file when imported.
* Node names and attributes that look like markup come out escaped in
  GraphML and GML, and TAB-separated tables keep one row per line and one
  cell per column whatever the names hold.
* The Cytoscape push talks to the address it is given and nowhere else; no
  other part of netmcl opens a connection (a child process with a guard on
  ``socket`` records every attempt).
"""

import gzip
import importlib.machinery
import io
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx
import pytest

import netmcl
from netmcl.engines.cpu import _compiled
from netmcl.exceptions import ParameterError
from netmcl.io.tables import write_gml, write_graphml, write_tsv

HERE = Path(__file__).parent
ROOT = HERE.parent
RANDOM40 = HERE / "data" / "io" / "random40.mci"
RANDOM40_I20 = HERE / "data" / "io" / "random40.mci.I20"
EXT = importlib.machinery.EXTENSION_SUFFIXES[0]
MODULE_FILE = _compiled.MODULE + EXT

HOSTILE = [
    "<img src=x onerror=alert(1)>",
    "</script><script>alert(1)</script>",
    'quote" and & ampersand',
    "]]><!-- cdata end",
    "tab\tinside",
    "line\nbreak",
    "carriage\rreturn",
    "unicode\u2028line\u2029separators\x85",
    "&lt;already escaped&gt;",
]

MARKER_C = r"""
#include <Python.h>
#include <stdio.h>
#include <stdlib.h>

static struct PyModuleDef planted = {PyModuleDef_HEAD_INIT, "%(name)s", NULL, -1, NULL};

PyMODINIT_FUNC PyInit_%(name)s(void) {
    const char *path = getenv("NETMCL_TEST_MARKER");
    if (path) {
        FILE *f = fopen(path, "w");
        if (f) { fputs("planted code ran\n", f); fclose(f); }
    }
    return PyModule_Create(&planted);
}
"""


@pytest.fixture(scope="module")
def planted_module(tmp_path_factory):
    """A real extension module named like the cache's, that writes $NETMCL_TEST_MARKER when imported."""
    cc = shutil.which(sysconfig.get_config_var("CC").split()[0] if sysconfig.get_config_var("CC") else "cc")
    if cc is None:
        pytest.skip("no C compiler to build the planted module")
    where = tmp_path_factory.mktemp("planted")
    source = where / "planted.c"
    source.write_text(MARKER_C % {"name": _compiled.MODULE})
    out = where / MODULE_FILE
    subprocess.run(
        [cc, "-shared", "-fPIC", f"-I{sysconfig.get_paths()['include']}", str(source), "-o", str(out)],
        check=True, capture_output=True,
    )
    return out


def _plant(directory, module):
    """Put `module` in the build directory `directory`, with the checksum a build would record."""
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copy(module, directory / MODULE_FILE)
    (directory / (MODULE_FILE + ".sum")).write_text(_compiled._checksum(str(directory / MODULE_FILE)))


def _real_build():
    """The directory of this process's compiled kernels; skips where they are the JIT."""
    module = _compiled.part("")
    if not hasattr(module, "__file__"):
        pytest.skip("the kernels could not be compiled on this machine")
    return Path(module.__file__).parent


def _run_cli(tmp_path, env, args=()):
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "netmcl", str(RANDOM40), "-o", str(out), *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert out.read_text() == RANDOM40_I20.read_text().split("\n", 1)[1]
    return proc.stderr


def test_the_planted_module_is_real_and_runs_its_code_when_imported(planted_module, tmp_path):
    # the check of the tests below: importing this file is what an attacker wants, and it leaves the marker
    marker = tmp_path / "marker"
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('netmcl.{_compiled.MODULE}', sys.argv[1])\n"
        "spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
    )
    subprocess.run([sys.executable, "-c", code, str(planted_module)], check=True,
                   env=dict(os.environ, NETMCL_TEST_MARKER=str(marker)))
    assert marker.read_text() == "planted code ran\n"


@pytest.mark.parametrize("mode", [0o777, 0o775])
def test_a_module_planted_in_a_cache_others_can_write_is_never_imported(planted_module, tmp_path, mode):
    shared = tmp_path / "shared-cache"
    _plant(shared / "kernels" / _compiled._key(), planted_module)
    shared.chmod(mode)
    private = tmp_path / "home-cache"
    shutil.copytree(_real_build(), private / "netmcl" / "kernels" / _compiled._key())
    marker = tmp_path / "marker"
    env = dict(os.environ, NETMCL_CACHE_DIR=str(shared), XDG_CACHE_HOME=str(private), NETMCL_KERNELS="",
               NETMCL_TEST_MARKER=str(marker))
    err = _run_cli(tmp_path, env)
    assert not marker.exists(), "the planted module was imported"
    who = "its group and others" if mode & 0o002 else "its group"
    assert err.count("RuntimeWarning") == 1, err
    assert f"netmcl does not load compiled code from the cache {shared}: {shared} is writable by {who}" in err, err
    assert f"It uses its private cache {private / 'netmcl'} instead" in err, err


def test_a_planted_build_below_a_private_root_is_removed_unloaded(planted_module, tmp_path):
    # the root is private but the build's own directory is writable by its group: the module there is
    # not loaded, and the build is removed (the next run builds it again)
    root = tmp_path / "cache"
    build = root / "kernels" / _compiled._key()
    _plant(build, planted_module)
    build.chmod(0o775)
    marker = tmp_path / "marker"
    os.environ["NETMCL_TEST_MARKER"] = str(marker)
    try:
        with pytest.raises(_compiled._BadBuild, match=f"{build} is writable by its group"):
            _compiled._load(str(build), "", str(root))
    finally:
        del os.environ["NETMCL_TEST_MARKER"]
    assert not marker.exists()
    assert not build.exists() and [p.name for p in (root / "kernels").iterdir()] == []


def test_a_module_of_another_owner_is_not_trusted_unless_named(planted_module, tmp_path, monkeypatch):
    if os.geteuid() != 0:
        pytest.skip("giving a file to another user needs root")
    root = tmp_path / "cache"
    build = root / "kernels" / "k"
    _plant(build, planted_module)
    os.chown(build / MODULE_FILE, 65534, -1)
    name = "nobody" if shutil.which("id") and _user(65534) == "nobody" else "user id 65534"
    assert _compiled.untrusted(str(root), "kernels", "k", MODULE_FILE) == f"{build / MODULE_FILE} belongs to {name}"
    monkeypatch.setenv("NETMCL_CACHE_OWNERS", "65534")
    assert _compiled.untrusted(str(root), "kernels", "k", MODULE_FILE) is None


def _user(uid):
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return None


def test_the_trust_rule_above_and_below_the_cache_root(tmp_path):
    sticky = tmp_path / "scratch"  # like /tmp: others may add entries, not move ours
    sticky.mkdir()
    sticky.chmod(0o1777)
    (sticky / "mine").mkdir(mode=0o755)
    assert _compiled.untrusted(str(sticky / "mine")) is None
    open_parent = tmp_path / "open"
    (open_parent / "mine").mkdir(parents=True)
    open_parent.chmod(0o777)
    assert _compiled.untrusted(str(open_parent / "mine")) == f"{open_parent} is writable by its group and others (mode 777)"
    # the root itself may not rely on a sticky bit: others could add a build to it
    assert _compiled.untrusted(str(sticky)).startswith(f"{sticky} is writable by")
    (tmp_path / "root" / "kernels").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "root" / "kernels" / "k").symlink_to(tmp_path / "elsewhere")
    assert _compiled.untrusted(str(tmp_path / "root"), "kernels", "k") == f"{tmp_path / 'root' / 'kernels' / 'k'} is a symbolic link"
    # a link to the root is followed, and the real path checked
    (tmp_path / "link").symlink_to(open_parent / "mine")
    assert _compiled.untrusted(str(tmp_path / "link")).startswith(f"{open_parent} is writable")


# --- names from files others wrote ----------------------------------------------------------------


def _hostile_graph():
    G = nx.Graph()
    for k, name in enumerate(HOSTILE):
        G.add_node(name, note=name, rank=k)
    G.add_edges_from(zip(HOSTILE, HOSTILE[1:]))
    return G


def test_graphml_escapes_hostile_names_for_both_libraries(tmp_path):
    import igraph as ig

    G = _hostile_graph()
    clusters = [HOSTILE[:4], HOSTILE[4:]]
    write_graphml(tmp_path / "nx.graphml", G, clusters)
    g = ig.Graph.from_networkx(G, vertex_attr_hashable="name")
    write_graphml(tmp_path / "ig.graphml", g, clusters)
    for path in (tmp_path / "nx.graphml", tmp_path / "ig.graphml"):
        text = path.read_text(encoding="utf-8")
        assert "<img" not in text and "<script" not in text and "]]>" not in text.replace("]]&gt;", "")
        tree = ET.parse(path)  # well-formed XML, whatever the names
        ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
        keys = {k.get("attr.name"): k.get("id") for k in tree.getroot().findall("g:key", ns)}
        nodes = tree.getroot().findall("g:graph/g:node", ns)
        notes = [n.find(f"g:data[@key='{keys['note']}']", ns).text for n in nodes]
        # XML keeps \r only as a character reference; a conforming reader may give it back as \n
        assert [t.replace("\r\n", "\r") for t in notes] == HOSTILE or [t.replace("\n", "\r") for t in notes] == [
            h.replace("\n", "\r") for h in HOSTILE
        ], notes
    back = nx.read_graphml(tmp_path / "nx.graphml")
    assert sorted(back.nodes) == sorted(HOSTILE)
    assert {v: d["mcl_cluster"] for v, d in back.nodes(data=True)} == {v: int(k >= 4) for k, v in enumerate(HOSTILE)}


@pytest.mark.parametrize("library", ["networkx", "igraph"])
def test_graphml_refuses_characters_xml_cannot_hold(tmp_path, library):
    G = nx.Graph([("ok", "bell\x07")])
    if library == "igraph":
        import igraph as ig

        G = ig.Graph.from_networkx(G, vertex_attr_hashable="name")
    with pytest.raises(ParameterError, match="control character U\\+0007"):
        write_graphml(tmp_path / "g.graphml", G, [["ok", "bell\x07"]])
    assert not (tmp_path / "g.graphml").exists()


def test_gml_quotes_hostile_names_for_both_libraries(tmp_path):
    import igraph as ig

    G = _hostile_graph()
    clusters = [HOSTILE[:4], HOSTILE[4:]]
    write_gml(tmp_path / "nx.gml", G, clusters)
    back = nx.read_gml(tmp_path / "nx.gml")
    assert list(back.nodes) == HOSTILE
    assert [back.nodes[v]["note"] for v in back.nodes] == HOSTILE
    assert [back.nodes[v]["mcl_cluster"] for v in back.nodes] == [int(k >= 4) for k in range(len(HOSTILE))]
    g = ig.Graph.from_networkx(G, vertex_attr_hashable="name")
    write_gml(tmp_path / "ig.gml", g, clusters)
    for path in (tmp_path / "nx.gml", tmp_path / "ig.gml"):
        text = path.read_text(encoding="utf-8")
        # every string ends where it should: the quotes in the file are exactly the strings' delimiters
        strings = [line.split(None, 1)[1] for line in text.splitlines() if line.strip().startswith(("label", "name", "note"))]
        assert len(strings) == 2 * len(HOSTILE) or len(strings) >= len(HOSTILE)
        assert 'quote"' not in text
    h = ig.Graph.Read_GML(str(tmp_path / "ig.gml"))  # (igraph's GML drops the underscore of attribute names)
    assert h.vcount() == len(HOSTILE) and h.vs["mclcluster"] == [int(k >= 4) for k in range(len(HOSTILE))]
    assert h.vs["name"][:4] == HOSTILE[:4]


def test_tsv_keeps_one_row_per_line_and_one_cell_per_column(tmp_path):
    G = _hostile_graph()
    G.nodes[HOSTILE[0]]["evil\tcolumn\nname"] = "x"
    clusters = [HOSTILE[:4], HOSTILE[4:]]
    write_tsv(tmp_path / "t.tsv", clusters, G)
    text = (tmp_path / "t.tsv").read_text(encoding="utf-8")
    lines = text.splitlines()  # the most generous reader: every Unicode line break ends a line
    assert len(lines) == 1 + len(HOSTILE)
    header = lines[0].split("\t")
    assert header[:2] == ["node", "cluster"] and "evil column name" in header
    assert all(len(line.split("\t")) == len(header) for line in lines)
    assert [line.split("\t")[0] for line in lines[1:]] == [
        h.translate(str.maketrans(dict.fromkeys("\t\n\r\u2028\u2029\x85", " "))) for h in HOSTILE
    ]
    import pandas as pd

    frame = pd.read_csv(tmp_path / "t.tsv", sep="\t", keep_default_na=False, dtype=str)
    assert frame.shape == (len(HOSTILE), len(header))


def test_a_column_name_that_would_break_the_layout_command_is_refused():
    G = nx.Graph([("a", "b")])
    with pytest.raises(ParameterError, match="cannot hold quotes"):
        netmcl.cytoscape.push(G, netmcl.mcl(G, attribute=None), column='x" nodeAttribute="name', layout=True,
                              base_url="http://127.0.0.1:9/v1")


# --- the network ----------------------------------------------------------------------------------

GUARD = textwrap.dedent(
    """
    import ipaddress, socket, sys, json
    attempts = []

    def _loopback(host):
        try:
            return ipaddress.ip_address(host.split('%')[0]).is_loopback
        except ValueError:
            return host == "localhost"

    _connect, _connect_ex, _getaddrinfo = socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo

    def connect(self, address, *args):
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(str(address[0])):
            attempts.append(["connect", str(address[0])])
            raise OSError("network blocked by the test")
        return _connect(self, address, *args)

    def connect_ex(self, address, *args):
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _loopback(str(address[0])):
            attempts.append(["connect", str(address[0])])
            return 101
        return _connect_ex(self, address, *args)

    def _literal(host):
        try:
            ipaddress.ip_address(host.split('%')[0])
            return True
        except ValueError:
            return False

    def getaddrinfo(host, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else host
        if name is not None and not _loopback(name) and not _literal(name):  # an address is checked by connect
            attempts.append(["resolve", str(host)])
            raise socket.gaierror("name resolution blocked by the test")
        return _getaddrinfo(host, *args, **kwargs)

    socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo = connect, connect_ex, getaddrinfo
    import atexit
    atexit.register(lambda: print("ATTEMPTS " + json.dumps(attempts)))
    """
)


def _guarded(code, tmp_path, env=None):
    proc = subprocess.run(
        [sys.executable, "-c", GUARD + textwrap.dedent(code)], cwd=tmp_path, capture_output=True, text=True,
        timeout=300, env=dict(os.environ, PYTHONPATH=str(ROOT), **(env or {})),
    )
    import json

    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout.rsplit("ATTEMPTS ", 1)[1]), proc


def test_the_main_workflows_contact_no_network(tmp_path):
    """Reading, clustering (API and command line, with a checkpoint), sweeps, every writer, reports, plots
    and a Cytoscape push (of hostile names) to the address given: not one connection or name lookup off this
    machine."""
    code = f"""
    import os, pkgutil, importlib, gzip
    import networkx as nx
    import netmcl
    from netmcl.io import tables
    for m in pkgutil.walk_packages(netmcl.__path__, "netmcl."):
        if m.name.split(".")[-1] not in ("__main__",):
            try:
                importlib.import_module(m.name)
            except ImportError:
                pass
    G = nx.karate_club_graph()
    cl = netmcl.mcl(G, checkpoint="k.ckpt")
    netmcl.mcl(G, checkpoint="k.ckpt", resume=True)
    tables.write_tsv("t.tsv", cl, G)
    tables.write_graphml("g.graphml", G, cl)
    tables.write_gml("g.gml", G, cl)
    tables.write_run_report("r.json", cl, graph=G)
    from netmcl.cli import main
    assert main([{str(RANDOM40)!r}, "-o", "out", "--checkpoint", "c.ckpt"]) == 0
    assert main(["sweep", {str(RANDOM40)!r}, "-I", "1.4", "2"]) == 0
    assert main(["dist", "out", "out"]) == 0
    try:
        import matplotlib
        matplotlib.use("Agg")
        netmcl.draw_to_file(G, cl, "p.png") if hasattr(netmcl, "draw_to_file") else None
    except ImportError:
        pass
    try:
        import py4cytoscape  # noqa: F401
    except ImportError:
        pass
    else:
        from netmcl.testing.cyrest_standin import CyRESTStandIn
        import json
        hostile = {HOSTILE!r}
        H = nx.Graph(list(zip(hostile, hostile[1:])))
        hcl = netmcl.mcl(H)
        with CyRESTStandIn(port=0) as server:  # names from a file others wrote arrive as the same strings
            suid = netmcl.cytoscape.push(H, hcl, base_url=server.base_url, layout=True)
            nodes = server.network(suid).nodes()
        print("NAMES " + json.dumps(sorted(nodes)))
        assert {{name: row["mcl_cluster"] for name, row in nodes.items()}} == {{str(v): k for v, k in hcl.membership.items()}}
    print("done")
    """
    attempts, proc = _guarded(code, tmp_path, {"PY4CYTOSCAPE_MODEL_PROPAGATION_SECS": "0",
                                               "PY4CYTOSCAPE_DETAIL_LOGGER_DIR": str(tmp_path / "logs")})
    assert "done" in proc.stdout
    assert attempts == []
    if "NAMES " in proc.stdout:
        import json

        assert json.loads(proc.stdout.split("NAMES ", 1)[1].splitlines()[0]) == sorted(HOSTILE)


def test_the_guard_sees_a_connection_off_this_machine(tmp_path):
    # the guard of these tests is not blind: a lookup and a connection elsewhere are both recorded
    attempts, _ = _guarded(
        """
        import socket, urllib.request
        for target in (lambda: socket.create_connection(("192.0.2.1", 80), timeout=1),
                       lambda: urllib.request.urlopen("http://example.invalid/", timeout=1)):
            try:
                target()
            except OSError:
                pass
        """,
        tmp_path,
    )
    assert attempts == [["connect", "192.0.2.1"], ["resolve", "example.invalid"]]


def test_a_push_that_fails_midway_goes_nowhere_else(tmp_path):
    """py4cytoscape looks for Cytoscape through an internet relay (Jupyter-Bridge) when a request to the
    address fails; the push must end in an error instead, having contacted only that address."""
    pytest.importorskip("py4cytoscape")
    code = """
    import networkx as nx, netmcl
    from netmcl.exceptions import CytoscapeError
    from netmcl.testing.cyrest_standin import CyRESTStandIn
    # a Cytoscape that answers /version but fails the request py4cytoscape makes first
    G = nx.karate_club_graph()
    cl = netmcl.mcl(G)
    with CyRESTStandIn(port=0) as server:
        server._routes.insert(0, ("GET", r"/v1/?", lambda query, body: (500, {"errors": ["down"]})))
        try:
            netmcl.cytoscape.push(G, cl, base_url=server.base_url)
            print("pushed")
        except CytoscapeError as e:
            print("refused:", e)
    """
    env = {k: v for k, v in os.environ.items() if k != "JUPYTER_BRIDGE_URL"}
    env.update(PY4CYTOSCAPE_MODEL_PROPAGATION_SECS="0", PY4CYTOSCAPE_DETAIL_LOGGER_DIR=str(tmp_path / "logs"))
    proc = subprocess.run([sys.executable, "-c", GUARD + textwrap.dedent(code)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, env=dict(env, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 0, proc.stderr
    import json

    assert json.loads(proc.stdout.rsplit("ATTEMPTS ", 1)[1]) == []
    assert "pushed" in proc.stdout or "refused:" in proc.stdout


def test_numba_is_not_pointed_at_a_cache_others_can_write(tmp_path):
    # numba's cache index is a pickle: the JIT fallback must not read it from a shared directory
    shared = tmp_path / "numba-shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    code = (
        "import os, warnings\n"
        "from netmcl.engines.cpu import _compiled\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    _compiled._private_numba_cache()\n"
        "print(os.environ['NUMBA_CACHE_DIR'])\n"
        "print(*[str(w.message) for w in caught], sep='\\n')\n"
    )
    env = dict(os.environ, NUMBA_CACHE_DIR=str(shared), XDG_CACHE_HOME=str(tmp_path / "home"))
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    where, message = proc.stdout.splitlines()[:2]
    assert where == str(tmp_path / "home" / "netmcl" / "numba")
    assert message.startswith(f"netmcl does not let numba load its cache from {shared}: {shared} is writable by")
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "home")  # a private one is left as it is
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.stdout.split() == [str(tmp_path / "home")]
