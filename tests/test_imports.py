"""The package's import graph has no circle.

Module-level imports only (those that run when a module is imported); an import inside a function runs when it
is called and is how optional dependencies and rarely used parts are loaded lazily.  A circle would mean that
which module works depends on which one was imported first.
"""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "netmcl"


def _module_name(path, root):
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path, root, modules):
    """The package's modules that `path` imports when it is imported (not those its functions import)."""
    name = _module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    stack = list(ast.parse(path.read_text(encoding="utf-8")).body)  # the top level, and its if/try blocks
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, ast.If) and "TYPE_CHECKING" not in ast.unparse(stmt.test):
            stack += stmt.body + stmt.orelse
        elif isinstance(stmt, ast.Try):
            stack += stmt.body + stmt.orelse + stmt.finalbody + [s for h in stmt.handlers for s in h.body]
        elif isinstance(stmt, ast.Import):
            found |= {a.name for a in stmt.names}
        elif isinstance(stmt, ast.ImportFrom):
            base = stmt.module or ""
            if stmt.level:
                anchor = package.split(".")[: len(package.split(".")) - (stmt.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            # `from . import x` where x is a module imports x (its package is already being imported);
            # `from .m import y` imports m
            submodules = {f"{base}.{a.name}" for a in stmt.names} & modules.keys()
            found |= submodules if len(submodules) == len(stmt.names) else {base}
    return {m for m in found if m in modules and m != name}


def _circle(root):
    """A circle of module-level imports in the package at `root`, as a list of module names, or None."""
    paths = {_module_name(p, root): p for p in root.rglob("*.py")}
    graph = {m: _imports(p, root, paths) for m, p in paths.items()}
    state, path = {}, []

    def visit(m):
        state[m] = "open"
        path.append(m)
        for t in sorted(graph[m]):
            if state.get(t) == "open":
                return path[path.index(t):] + [t]
            if t not in state and (found := visit(t)):
                return found
        path.pop()
        state[m] = "done"
        return None

    return next((c for m in sorted(graph) if m not in state and (c := visit(m))), None), graph


def test_the_import_graph_has_no_circle():
    circle, graph = _circle(PACKAGE)
    assert sum(len(v) for v in graph.values()) > 50  # the graph was read
    assert circle is None, "import circle: " + " -> ".join(circle)


def test_a_circle_is_found(tmp_path):
    """The check can fail: two modules that import each other at their top level are a circle."""
    pkg = tmp_path / "netmcl"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .sub import b\n")
    (pkg / "sub" / "b.py").write_text("try:\n    from ..a import x\nexcept ImportError:\n    pass\n")
    assert _circle(pkg)[0] == ["netmcl.a", "netmcl.sub.b", "netmcl.a"]
    (pkg / "sub" / "b.py").write_text("def f():\n    from ..a import x\n")  # lazily: no circle
    assert _circle(pkg)[0] is None
