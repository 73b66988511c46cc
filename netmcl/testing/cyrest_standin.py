"""A stand-in for Cytoscape's CyREST API, to test Cytoscape pushes without Cytoscape.

Cytoscape is a desktop application; CI machines and servers cannot run it.
:class:`CyRESTStandIn` is a small HTTP server (standard library only) that
answers the CyREST routes py4cytoscape uses to create a network, load node
tables, build and apply a visual style and run a layout, with the response
shapes and status codes of CyREST 3.10 (read from the cytoscape/cyREST
source), and that keeps the resulting state like Cytoscape does: networks
with node, edge and network tables, visual styles with defaults and
mappings, the style applied to each network's view and the layouts run.
Real py4cytoscape runs against it unmodified, and a test then asserts on
what Cytoscape would hold after the push.

It is a stand-in, not an emulator: views have no coordinates (layouts are
recorded, not computed), only Cytoscape.js JSON is read, and only the
commands listed in :data:`COMMANDS` exist.

Examples
--------
>>> from netmcl.testing.cyrest_standin import CyRESTStandIn
>>> import json, urllib.request
>>> with CyRESTStandIn(port=0) as server:
...     with urllib.request.urlopen(server.base_url + "/version") as reply:
...         json.load(reply)["apiVersion"]
'v1'
"""

import atexit
import json
import os
import re
import shutil
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

from ..exceptions import NetmclError

__all__ = ["CyRESTStandIn", "StandInNetwork", "StandInTable", "StandInStyle", "quiet_py4cytoscape", "COMMANDS"]

#: py4cytoscape treats exactly this address as "Cytoscape on this machine".
DEFAULT_PORT = 1234

_URN = "urn:cytoscape:ci:cyrest-core:v1"
_LOG_LINK = "file:/CytoscapeConfiguration/3/framework-cytoscape.log"

#: Built-in defaults of a visual style (the ones a new style starts from).
_STYLE_DEFAULTS = {
    "EDGE_LINE_TYPE": "SOLID",
    "EDGE_STROKE_UNSELECTED_PAINT": "#848484",
    "EDGE_TRANSPARENCY": 255,
    "EDGE_WIDTH": 2.0,
    "NETWORK_BACKGROUND_PAINT": "#FFFFFF",
    "NODE_BORDER_PAINT": "#CCCCCC",
    "NODE_BORDER_WIDTH": 0.0,
    "NODE_FILL_COLOR": "#89D0F5",
    "NODE_HEIGHT": 35.0,
    "NODE_LABEL": "",
    "NODE_LABEL_COLOR": "#000000",
    "NODE_LABEL_FONT_SIZE": 12,
    "NODE_SHAPE": "ROUND_RECTANGLE",
    "NODE_SIZE": 35.0,
    "NODE_TRANSPARENCY": 255,
    "NODE_WIDTH": 75.0,
}

_LAYOUTS = {
    "attribute-circle": "nodeAttribute",
    "attributes-layout": "nodeAttribute",
    "circular": None,
    "cose": None,
    "degree-circle": None,
    "force-directed": None,
    "fruchterman-rheingold": None,
    "grid": None,
    "hierarchical": None,
    "isom": None,
    "kamada-kawai": None,
    "stacked-node-layout": None,
}

#: Commands the stand-in knows, as (namespace, command).
COMMANDS = (
    ("network", "get attribute"),
    ("vizmap", "apply"),
    ("filetransfer", "setSandbox"),
    ("layout", "apply preferred"),
) + tuple(("layout", name) for name in _LAYOUTS)


def quiet_py4cytoscape(log_dir=None):
    """Set the environment so py4cytoscape is fast and quiet in tests.

    py4cytoscape reads these settings once, when it is first imported, so
    call this before anything imports it.  It makes py4cytoscape write its
    log file under `log_dir` instead of ``./logs`` (by default a new
    temporary directory, removed with the log when the process exits), skips
    its safety sleeps after style changes (Cytoscape needs them, the
    stand-in does not) and points its Jupyter-Bridge fallback at a closed
    local port instead of the internet.

    Parameters
    ----------
    log_dir : str, optional
        Where py4cytoscape writes its log; kept when the process exits.

    Returns
    -------
    str
        The log directory.

    Raises
    ------
    NetmclError
        If py4cytoscape is already imported (the settings would be ignored).
    """
    if "py4cytoscape" in sys.modules:
        raise NetmclError(
            "py4cytoscape is already imported, so it would ignore these settings; "
            "call quiet_py4cytoscape() before the first import of py4cytoscape."
        )
    if not log_dir:
        log_dir = tempfile.mkdtemp(prefix="py4cytoscape-logs-")
        atexit.register(shutil.rmtree, log_dir, ignore_errors=True)
    os.environ["PY4CYTOSCAPE_DETAIL_LOGGER_DIR"] = log_dir
    os.environ["PY4CYTOSCAPE_MODEL_PROPAGATION_SECS"] = "0"
    os.environ["PY4CYTOSCAPE_CATCHUP_NETWORK_SECS"] = "0"
    os.environ["JUPYTER_BRIDGE_URL"] = "http://127.0.0.1:9"
    return log_dir


class _CIError(Exception):
    """An error CyREST reports as ``{"data": {}, "errors": [CIError]}``."""

    def __init__(self, status, resource, code, message):
        super().__init__(message)
        self.status = status
        self.body = {
            "data": {},
            "errors": [
                {
                    "status": status,
                    "type": f"{_URN}:{resource}:errors:{code}",
                    "message": message,
                    "link": _LOG_LINK,
                }
            ],
        }


def _command_error(message):
    return _CIError(500, "handle-json-command", 2, message)


def _json_type(value):
    """The column type Cytoscape picks for a JSON value of a new column."""
    if isinstance(value, bool):
        return "Boolean"
    if isinstance(value, (int, float)):
        return "Double"
    return "String"


def _coerce(value, kind):
    """A JSON value read as a column type, as Jackson's ``asText``/``asInt``/... do."""
    if value is None:
        return None
    if kind == "String":
        if isinstance(value, bool):
            return "true" if value else "false"
        return value if isinstance(value, str) else json.dumps(value)
    if kind == "Boolean":
        if isinstance(value, str):
            return value.strip().lower() == "true"
        return bool(value)
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = 0.0
    return number if kind == "Double" else int(number)


class StandInTable:
    """A Cytoscape table: typed columns and rows keyed by SUID.

    Attributes
    ----------
    columns : dict
        Column name -> ``{"type": ..., "immutable": ..., "primaryKey": ...}``
        (plus ``"listType"`` for list columns), in creation order.
    rows : dict
        SUID -> dict column name -> value, in creation order.
    """

    def __init__(self, columns):
        self.columns = {}
        self.rows = {}
        self.add_column("SUID", "Long", immutable=True, primary_key=True)
        for name, kind in columns:
            self.add_column(name, kind)

    def add_column(self, name, kind, *, list_type=None, immutable=False, primary_key=False):
        """Create a column (``kind`` is a Cytoscape type name such as ``"Integer"``)."""
        if name in self.columns:
            raise _CIError(500, "networks:tables", 7, f"Column already exists: {name}")
        spec = {"type": kind, "immutable": immutable, "primaryKey": primary_key}
        if list_type is not None:
            spec["listType"] = list_type
        self.columns[name] = spec
        for row in self.rows.values():
            row.setdefault(name, None)

    def add_row(self, suid):
        self.rows[suid] = {name: None for name in self.columns}
        self.rows[suid]["SUID"] = suid
        return self.rows[suid]

    def set(self, row, name, value):
        """Store a JSON value, creating the column from its type when new."""
        if name not in self.columns:
            if isinstance(value, list):
                kinds = {_json_type(v) for v in value}
                if len(kinds) != 1:
                    return
                self.add_column(name, "List", list_type=kinds.pop())
            else:
                self.add_column(name, _json_type(value))
        spec = self.columns[name]
        if spec["type"] == "List":
            row[name] = None if value is None else [_coerce(v, spec["listType"]) for v in value]
        else:
            row[name] = _coerce(value, spec["type"])

    def column(self, name):
        """The values of a column, in row order."""
        return [row[name] for row in self.rows.values()]

    def records(self):
        """The rows as dicts, in row order."""
        return [dict(row) for row in self.rows.values()]

    def describe(self):
        return [{"name": name, **spec} for name, spec in self.columns.items()]


class StandInNetwork:
    """A network as Cytoscape holds it: three tables, a view's style, layouts run.

    Attributes
    ----------
    suid : int
    collection : str
    node_table, edge_table, network_table : StandInTable
    style : str
        Name of the visual style applied to the network's view.
    layouts : list of (str, dict)
        Layouts run on the view, with their arguments, in order.
    """

    def __init__(self, suid, title, collection):
        self.suid = suid
        self.collection = collection
        self.node_table = StandInTable([("shared name", "String"), ("name", "String"), ("selected", "Boolean")])
        self.edge_table = StandInTable(
            [
                ("shared name", "String"),
                ("shared interaction", "String"),
                ("name", "String"),
                ("selected", "Boolean"),
                ("interaction", "String"),
            ]
        )
        self.network_table = StandInTable([("shared name", "String"), ("name", "String"), ("selected", "Boolean")])
        row = self.network_table.add_row(suid)
        row.update({"shared name": title, "name": title, "selected": False})
        self.style = "default"
        self.layouts = []

    @property
    def title(self):
        """The network's name."""
        return self.network_table.rows[self.suid]["name"]

    def table(self, kind):
        tables = {"defaultnode": self.node_table, "defaultedge": self.edge_table, "defaultnetwork": self.network_table}
        if kind not in tables:
            raise _CIError(404, "networks:tables", 4, f"No such table type: {kind}")
        return tables[kind]

    def nodes(self):
        """Dict node name -> its node-table row."""
        return {row["name"]: row for row in self.node_table.rows.values()}

    def __repr__(self):
        return f"<StandInNetwork {self.suid} {self.title!r}: {len(self.node_table.rows)} nodes>"


class StandInStyle:
    """A visual style: default values and mappings by visual property.

    ``mappings`` holds each mapping in the JSON form CyREST serves it.
    """

    def __init__(self, title):
        self.title = title
        self.defaults = dict(_STYLE_DEFAULTS)
        self.mappings = {}

    def add_mapping(self, spec):
        """Parse one mapping as VisualStyleMapper does (discrete keys must be JSON strings)."""
        try:
            kind = spec["mappingType"]
            vp = spec["visualProperty"]
            mapping = {
                "mappingType": kind,
                "mappingColumn": spec["mappingColumn"],
                "mappingColumnType": spec["mappingColumnType"],
                "visualProperty": vp,
            }
        except (KeyError, TypeError) as e:
            raise _CIError(500, "styles", 6, "Could not create new Mapping.") from e
        if kind == "discrete":
            pairs = []
            for pair in spec.get("map", []):
                key, value = pair.get("key"), pair.get("value")
                if isinstance(key, str) and value is not None:
                    pairs.append({"key": key, "value": value.upper() if vp.endswith(("COLOR", "PAINT")) else value})
            mapping["map"] = pairs
        elif kind == "continuous":
            mapping["points"] = list(spec.get("points", []))
        elif kind != "passthrough":
            raise _CIError(500, "styles", 6, "Could not create new Mapping.")
        self.mappings[vp] = mapping

    def value_for(self, vp, row, column_types):
        """The value of visual property `vp` for a table row under this style."""
        mapping = self.mappings.get(vp)
        default = self.defaults.get(vp)
        if mapping is None or row.get(mapping["mappingColumn"]) is None:
            return default
        value = row[mapping["mappingColumn"]]
        if mapping["mappingType"] == "passthrough":
            return str(value)
        if mapping["mappingType"] == "discrete":
            kind = column_types.get(mapping["mappingColumn"], "String")
            for pair in mapping["map"]:
                if _coerce(pair["key"], kind) == value:
                    return pair["value"]
        return default


class _Handler(BaseHTTPRequestHandler):
    server_version = "Grizzly/2.4"

    def log_message(self, format, *args):  # quiet: the stand-in keeps its own request log
        pass

    def _serve(self, method):
        standin = self.server.standin
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        status, payload = standin._dispatch(method, url.path, parse_qs(url.query), raw)
        if payload is None:
            body, ctype = b"", None
        elif isinstance(payload, bytes):
            body, ctype = payload, "text/plain"
        else:
            body, ctype = json.dumps(payload).encode(), "application/json"
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self._serve("GET")

    def do_POST(self):
        self._serve("POST")

    def do_PUT(self):
        self._serve("PUT")


class CyRESTStandIn:
    """A local stand-in for Cytoscape's CyREST server that keeps state.

    Parameters
    ----------
    port : int, default 1234
        Port to listen on; 1234 is where py4cytoscape looks by default and
        the only one it treats as "Cytoscape on this machine".  ``0`` picks
        a free port.
    host : str, default "127.0.0.1"
        Address to bind (keep it local).
    cytoscape_version : str, default "3.10.3"

    Attributes
    ----------
    styles : dict
        Style name -> :class:`StandInStyle`.  A ``"default"`` style exists.
    requests : list of str
        ``"METHOD /path"`` of every request received, in order.

    Examples
    --------
    >>> with CyRESTStandIn(port=0) as server:
    ...     suid = server.add_network("demo", [{"name": "a"}, {"name": "b"}], [("a", "b")])
    ...     server.network("demo").node_table.column("name")
    ['a', 'b']
    """

    def __init__(self, port=DEFAULT_PORT, *, host="127.0.0.1", cytoscape_version="3.10.3"):
        self.host = host
        self.port = port
        self.cytoscape_version = cytoscape_version
        self._httpd = None
        self._thread = None
        self._lock = threading.RLock()
        self.reset()
        self._routes = [
            ("GET", r"/", self._root),
            ("GET", r"/v1", self._status),
            ("GET", r"/v1/version", self._version),
            ("GET", r"/v1/networks", self._list_networks),
            ("POST", r"/v1/networks", self._create_network),
            ("GET", r"/v1/networks\.names", self._network_names),
            ("GET", r"/v1/networks/(\d+)/tables/([^/]+)/columns", self._get_columns),
            ("POST", r"/v1/networks/(\d+)/tables/([^/]+)/columns", self._create_columns),
            ("GET", r"/v1/networks/(\d+)/tables/([^/]+)/columns/([^/]+)", self._get_column_values),
            ("PUT", r"/v1/networks/(\d+)/tables/([^/]+)", self._update_table),
            ("POST", r"/v1/styles", self._create_style),
            ("GET", r"/v1/styles/([^/]+)/defaults", self._get_defaults),
            ("PUT", r"/v1/styles/([^/]+)/defaults", self._set_defaults),
            ("GET", r"/v1/styles/([^/]+)/mappings", self._get_mappings),
            ("POST", r"/v1/styles/([^/]+)/mappings", self._create_mappings),
            ("PUT", r"/v1/styles/([^/]+)/mappings/([^/]+)", self._update_mapping),
            ("GET", r"/v1/apply/styles", self._style_names),
            ("GET", r"/v1/apply/styles/([^/]+)/(\d+)", self._apply_style),
            ("POST", r"/v1/commands/([^/]+)/([^/]+)", self._command),
        ]

    # --- life cycle -----------------------------------------------------------------

    @property
    def base_url(self):
        """The CyREST base URL to give py4cytoscape (``base_url=``)."""
        return f"http://{self.host}:{self.port}/v1"

    def start(self):
        """Start serving in a background thread.

        Raises
        ------
        OSError
            If the port is taken, with a message saying what to do.
        """
        try:
            self._httpd = ThreadingHTTPServer((self.host, self.port), _Handler)
        except OSError as e:
            raise OSError(
                e.errno,
                f"The CyREST stand-in cannot listen on {self.host}:{self.port}: {e.strerror}. "
                "Another program (perhaps a running Cytoscape) holds that port; close it, or start "
                "the stand-in with port=0 and pass its base_url to py4cytoscape.",
            ) from None
        self._httpd.daemon_threads = True
        self._httpd.standin = self
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="cyrest-standin", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        """Stop serving and free the port."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._thread.join()
            self._httpd = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def reset(self):
        """Forget every network, style and request, as a fresh Cytoscape session."""
        with self._lock:
            self._networks = {}
            self._current = None
            self._next = 52
            self.styles = {"default": StandInStyle("default")}
            self.requests = []

    # --- state for assertions ---------------------------------------------------------

    @property
    def networks(self):
        """The open networks, in creation order."""
        return list(self._networks.values())

    def network(self, which):
        """A network by SUID (int) or title (str).

        Raises
        ------
        KeyError
            If there is no such network.
        """
        for net in self._networks.values():
            if which in (net.suid, net.title):
                return net
        raise KeyError(f"No network {which!r} in the stand-in; open: {[n.title for n in self.networks]}")

    def node_fill_colors(self, which):
        """Dict node name -> the fill colour Cytoscape would draw it with."""
        net = self.network(which)
        style = self.styles[net.style]
        types = {name: spec["type"] for name, spec in net.node_table.columns.items()}
        return {row["name"]: style.value_for("NODE_FILL_COLOR", row, types) for row in net.node_table.rows.values()}

    def add_network(self, title, nodes, edges=(), *, collection=None):
        """Open a network as if Cytoscape had loaded it (e.g. from a session).

        Parameters
        ----------
        title : str
        nodes : iterable of dict
            Node attributes; each needs ``"name"``.
        edges : iterable of (source, target) or (source, target, dict)
            By node name.
        collection : str, optional

        Returns
        -------
        int
            The network's SUID.
        """
        elements = {"nodes": [{"data": {"id": n["name"], **n}} for n in nodes], "edges": []}
        for edge in edges:
            source, target = edge[0], edge[1]
            attrs = edge[2] if len(edge) > 2 else {}
            elements["edges"].append(
                {"data": {"name": f"{source} (interacts with) {target}", "source": source, "target": target,
                          "interaction": "interacts with", **attrs}}
            )
        with self._lock:
            return self._build_network(title, collection or title, elements).suid

    # --- dispatch ---------------------------------------------------------------------

    def _dispatch(self, method, path, query, raw):
        with self._lock:
            self.requests.append(f"{method} {path}")
            for verb, pattern, handler in self._routes:
                match = re.fullmatch(pattern, path)
                if verb == method and match:
                    args = [unquote(g) for g in match.groups()]
                    try:
                        body = json.loads(raw) if raw else None
                    except ValueError:
                        if path == "/v1/networks":
                            return 412, _CIError(412, "networks", 7, "Could not parse the given network JSON.").body
                        return 500, _CIError(500, "", 2, "Could not parse the input JSON.").body
                    try:
                        return handler(*args, query=query, body=body)
                    except _CIError as e:
                        return e.status, e.body
                    except Exception as e:  # what CyExceptionMapper does with anything unexpected
                        message = f"Uncaught exception while processing resource [{threading.current_thread().name}]: {e}"
                        return 500, _CIError(500, "", 1, message).body
            return 404, b"Not Found"

    def _suid(self):
        self._next += 1
        return self._next

    def _net(self, suid):
        suid = int(suid)
        if suid not in self._networks:
            raise _CIError(404, "networks", 1, f"Could not find Network with SUID: {suid}")
        return self._networks[suid]

    def _style(self, name):
        if name not in self.styles:
            raise _CIError(404, "styles", 1, f"Could not find Visual Style: {name}")
        return self.styles[name]

    # --- root and networks ------------------------------------------------------------

    def _root(self, query, body):
        return 200, {"availableApiVersions": ["v1"]}

    def _status(self, query, body):
        return 200, {
            "allAppsStarted": True,
            "apiVersion": "v1",
            "numberOfCores": os.cpu_count() or 1,
            "memoryStatus": {"usedMemory": 512, "freeMemory": 1536, "totalMemory": 2048, "maxMemory": 16384},
        }

    def _version(self, query, body):
        return 200, {"apiVersion": "v1", "cytoscapeVersion": self.cytoscape_version}

    def _list_networks(self, query, body):
        return 200, list(self._networks)

    def _network_names(self, query, body):
        return 200, [{"SUID": n.suid, "name": n.title} for n in self._networks.values()]

    def _create_network(self, query, body):
        fmt = query.get("format", ["json"])[0].lower()
        if fmt not in ("json", "cyjs") or not isinstance(body, dict) or not isinstance(body.get("elements"), dict):
            raise _CIError(412, "networks", 7, "Could not parse the given network JSON (the stand-in reads Cytoscape.js JSON).")
        title = query.get("title", ["From Cytoscape.js"])[0]
        net = self._build_network(title, query.get("collection", [title])[0], body["elements"])
        return 200, {"networkSUID": net.suid}

    def _build_network(self, title, collection, elements):
        """The Cytoscape.js reader: name = data.id, other data fields become columns."""
        net = StandInNetwork(self._suid(), title, collection)
        ids = {}
        for node in elements.get("nodes", []):
            data = node.get("data") if isinstance(node, dict) else None
            if not isinstance(data, dict) or "id" not in data:
                raise _CIError(412, "networks", 7, "Could not parse the given network JSON: a node has no data.id.")
            row = net.node_table.add_row(self._suid())
            name = _coerce(data["id"], "String")
            row.update({"name": name, "shared name": name, "selected": False})
            for key, value in data.items():
                if key not in ("SUID", "selected"):
                    net.node_table.set(row, key, value)
            ids[name] = row["SUID"]
        for edge in elements.get("edges", []):
            data = edge.get("data") if isinstance(edge, dict) else None
            ends = None if not isinstance(data, dict) else (data.get("source"), data.get("target"))
            if ends is None or any(_coerce(e, "String") not in ids for e in ends):
                raise _CIError(412, "networks", 7, f"Could not parse the given network JSON: edge {data!r} "
                               "names a node that does not exist.")
            row = net.edge_table.add_row(self._suid())
            row["selected"] = False
            for key, value in data.items():
                if key not in ("SUID", "selected"):
                    net.edge_table.set(row, key, value)
            row["shared name"] = row["name"]
            row["shared interaction"] = row["interaction"]
        self._networks[net.suid] = net
        self._current = net.suid
        return net

    # --- tables -----------------------------------------------------------------------

    def _get_columns(self, suid, kind, query, body):
        return 200, self._net(suid).table(kind).describe()

    def _get_column_values(self, suid, kind, column, query, body):
        table = self._net(suid).table(kind)
        if column not in table.columns:
            raise AttributeError(f"'NoneType' object has no attribute 'getType' (no column {column!r})")
        return 200, {"name": column, "values": table.column(column)}

    def _create_columns(self, suid, kind, query, body):
        table = self._net(suid).table(kind)
        for spec in body if isinstance(body, list) else [body]:
            if not isinstance(spec, dict) or spec.get("type") not in ("String", "Integer", "Long", "Double", "Boolean"):
                raise _CIError(500, "networks:tables", 7, "Could not process column JSON.")
            if spec.get("list"):
                table.add_column(spec["name"], "List", list_type=spec["type"], immutable=bool(spec.get("immutable")))
            else:
                table.add_column(spec["name"], spec["type"], immutable=bool(spec.get("immutable")))
        return 201, None

    def _update_table(self, suid, kind, query, body):
        """TableMapper.updateTableValues: match rows on `key`, create unknown columns."""
        table = self._net(suid).table(kind)
        if not isinstance(body, dict) or "data" not in body:
            raise _CIError(500, "networks:tables", 7, "Data array is missing.")
        if not isinstance(body["data"], list):
            raise _CIError(500, "networks:tables", 7, "Data should be an array.")
        key = body.get("key", "SUID")
        data_key = body.get("dataKey", "SUID")
        if key not in table.columns:
            raise _CIError(404, "networks:tables", 4, f"No such column in the table: {key}")
        index = {}
        for row in table.rows.values():
            index.setdefault(row[key], []).append(row)
        for entry in body["data"]:
            if not isinstance(entry, dict) or entry.get(data_key) is None:
                continue
            for row in index.get(_coerce(entry[data_key], table.columns[key]["type"]), []):
                for field, value in entry.items():
                    if not table.columns.get(field, {}).get("immutable"):
                        table.set(row, field, value)
        return 200, None

    # --- styles -----------------------------------------------------------------------

    def _style_names(self, query, body):
        return 200, list(self.styles)

    def _create_style(self, query, body):
        if not isinstance(body, dict) or not isinstance(body.get("title"), str):
            raise _CIError(500, "styles", 6, "Could not create new Visual Style.")
        title, k = body["title"], 0
        while title in self.styles:  # Cytoscape renames a style whose title is taken
            k += 1
            title = f"{body['title']}_{k}"
        style = StandInStyle(title)
        for item in body.get("defaults", []):
            style.defaults[item["visualProperty"]] = item["value"]
        for mapping in body.get("mappings", []):
            style.add_mapping(mapping)
        self.styles[title] = style
        return 201, {"title": title}

    def _get_defaults(self, name, query, body):
        style = self._style(name)
        return 200, {"defaults": [{"visualProperty": vp, "value": v} for vp, v in sorted(style.defaults.items())]}

    def _set_defaults(self, name, query, body):
        style = self._style(name)
        for item in body or []:
            style.defaults[item["visualProperty"]] = item["value"]
        return 200, None

    def _get_mappings(self, name, query, body):
        return 200, list(self._style(name).mappings.values())

    def _create_mappings(self, name, query, body):
        style = self._style(name)
        for mapping in body if isinstance(body, list) else [body]:
            style.add_mapping(mapping)
        return 201, None

    def _update_mapping(self, name, vp, query, body):
        style = self._style(name)
        if vp not in style.mappings:
            raise _CIError(404, "styles", 3, f"Could not find visual mapping function for {vp}")
        for mapping in body if isinstance(body, list) else [body]:
            style.add_mapping(mapping)
        return 200, None

    def _apply_style(self, name, suid, query, body):
        net = self._net(suid)
        if name not in self.styles:
            raise _CIError(404, "apply", 4, f"Visual Style does not exist: {name}")
        net.style = name
        return 200, {"message": "Visual Style applied."}

    # --- commands ---------------------------------------------------------------------

    def _command(self, namespace, command, query, body):
        given = dict(body or {})
        args = {str(k).lower(): v for k, v in given.items()}
        known = {(ns, cmd.lower()) for ns, cmd in COMMANDS}
        if namespace not in {ns for ns, _ in COMMANDS}:
            raise _command_error(f"Failed to find command namespace: '{namespace}'")
        if (namespace, command.lower()) not in known:
            raise _command_error(f"Failed to find command: '{command}' (from namespace: {namespace})")
        if namespace == "network":
            net = self._network_arg(args.get("network", "current"))
            columns = [c.strip() for c in args.get("columnlist", "SUID").split(",")]
            row = net.network_table.rows[net.suid]
            return 200, {"data": [{c: row.get(c) for c in columns}], "errors": []}
        if namespace == "vizmap":
            name = args.get("styles", "default")
            if name not in self.styles:
                raise _command_error(f"Visual Style not found: {name}")
            if self._current is not None:
                self._networks[self._current].style = name
            return 200, {"data": {}, "errors": []}
        if namespace == "filetransfer":
            name = args.get("sandboxname", "default_sandbox")
            return 200, {"data": {"sandboxPath": f"/CytoscapeConfiguration/filetransfer/{name}"}, "errors": []}
        name = command.lower()
        if name == "apply preferred":
            net = self._network_arg(args.get("networkselected", "current"))
            net.layouts.append(("preferred", {}))
        else:
            net = self._network_arg(args.get("network", "current"))
            attribute = _LAYOUTS[name]
            if attribute and args.get(attribute.lower()) not in net.node_table.columns:
                raise _command_error(
                    f"Task Cancelled. Could not validate Tunable inputs: no node column {args.get(attribute.lower())!r}"
                )
            net.layouts.append((name, {k: v for k, v in given.items() if k.lower() != "network"}))
        return 200, {"data": {}, "errors": []}

    def _network_arg(self, value):
        value = str(value)
        if value == "current" and self._current is not None:
            return self._networks[self._current]
        if value.upper().startswith("SUID:"):
            return self._net(value[5:])
        for net in self._networks.values():
            if net.title == value:
                return net
        raise _command_error(f"Network not found: {value}")
