"""The import graph of ``src/robotrules`` is a DAG that follows the written layer order.

The layers are written once, in ``tests/layers.toml`` (lowest first); docs/architecture.md
states the same table (checked here). The graph is read with :mod:`ast` from every ``.py`` file
and from the ``import`` statements of the Cython sources (``.pyx``, ``.pxi``; ``cimport`` is C
and not counted): module-level *and* function-level imports, since a function-level import runs
too. Imports for type checkers only (under ``if TYPE_CHECKING:``, or in the ``else`` of ``if
not TYPE_CHECKING:``) are read too: they may not close a circle with the others, and one that
runs up the layers may only name a Protocol of the module it imports (the contract a lower
layer declares and the upper one satisfies: ``robotrules._parsed.ParsedFile``); the body of
``if not TYPE_CHECKING:`` runs and counts as any import. Imports by name
(``importlib.import_module``, the lazy attribute maps of the package faces) are not seen.
``from pkg import name`` counts as an import of ``pkg.name`` when that is a module, else of
``pkg``.
"""

from __future__ import annotations

import ast
import re
import tomllib
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "robotrules"
TABLE = Path(__file__).resolve().parent / "layers.toml"
DOC = ROOT / "docs" / "architecture.md"
_CYTHON_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+\S+[ \t]+import[ \t]|import[ \t])", re.M)


def _layers() -> list[tuple[str, list[str]]]:
    data = tomllib.loads(TABLE.read_text("utf-8"))
    return [(layer["name"], list(layer["modules"])) for layer in data["layer"]]


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name relative to it (``__init__`` the face)."""
    out: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*")):
        if path.suffix not in (".py", ".pyx", ".pxi") or "__pycache__" in path.parts:
            continue
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__" and len(parts) > 1:
            parts.pop()  # a subpackage is named by its directory
        out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return ast.unparse(test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def _statements(path: Path, *, typing: bool = False) -> list[ast.Import | ast.ImportFrom]:
    """The import statements that run (``typing``: those for type checkers only)."""
    text = path.read_text("utf-8")
    if path.suffix == ".py":
        tree = ast.parse(text)
    else:  # Cython: only its Python import statements, each read on its own
        snippets = []
        for m in _CYTHON_IMPORT.finditer(text):
            end = text.index("\n", m.start())
            line = text[m.start():end].strip()
            if "(" in line and ")" not in line:
                line = text[m.start():text.index(")", m.start()) + 1].strip()
            snippets.append(line)
        tree = ast.parse("\n".join(snippets))
    only: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.If):
            continue
        if _is_type_checking(node.test):
            body = node.body
        elif isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not) and (
                _is_type_checking(node.test.operand)):
            body = node.orelse  # `if not TYPE_CHECKING:` runs its body, not its else
        else:
            continue
        only.update(id(sub) for stmt in body for sub in ast.walk(stmt))
    return [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)
            and (id(node) in only) == typing]


def _graph(*, typing: bool = False) -> dict[str, set[str]]:
    """Module -> the package modules it imports (names relative to the package); ``typing``:
    by the imports for type checkers only."""
    return {name: {target for target, _ in edges} for name, edges in _edges(typing).items()}


def _edges(typing: bool) -> dict[str, set[tuple[str, str]]]:
    """Module -> ``(module, name)`` for each package module it imports and each name it
    takes from it (``""``: the module itself)."""
    modules = _modules()

    def known(dotted: str) -> str | None:
        while dotted and dotted not in modules:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    graph: dict[str, set[tuple[str, str]]] = {}
    for name, path in modules.items():
        package = name.split(".") if path.stem == "__init__" and name != "__init__" else (
            name.split(".")[:-1])
        targets: set[tuple[str, str]] = set()
        for node in _statements(path, typing=typing):
            found: list[tuple[str, str]]
            if isinstance(node, ast.Import):
                heads = [a.name for a in node.names]
                found = [(h.removeprefix("robotrules."), "") for h in heads
                         if h.startswith("robotrules.")]
                found += [("__init__", "") for h in heads if h == "robotrules"]
            else:
                if node.level:
                    base = package[: len(package) - node.level + 1]
                    parts = [*base, *(node.module.split(".") if node.module else [])]
                elif node.module and (node.module + ".").startswith("robotrules."):
                    parts = node.module.split(".")[1:]
                else:
                    continue
                found = []
                for alias in node.names:
                    sub = ".".join([*parts, alias.name])
                    if sub in modules:
                        found.append((sub, ""))
                    else:
                        found.append((".".join(parts) if parts else "__init__", alias.name))
            for target, what in found:
                hit = "__init__" if target == "__init__" else known(target)
                if hit is not None and hit != name:
                    targets.add((hit, what))
        graph[name] = targets
    return graph


def _place(name: str, layers: list[tuple[str, list[str]]]) -> int | None:
    """The index of the layer that places ``name``: an exact entry, else the longest
    ``pkg.*`` entry that holds it."""
    best: tuple[int, int] | None = None  # (specificity, layer)
    for n, (_, entries) in enumerate(layers):
        for entry in entries:
            if entry == name:
                return n
            if entry.endswith(".*"):
                pkg = entry[:-2]
                if (name == pkg or fnmatchcase(name, entry)) and (
                        best is None or len(pkg) > best[0]):
                    best = (len(pkg), n)
    return None if best is None else best[1]


def test_every_module_has_a_layer() -> None:
    layers = _layers()
    unplaced = sorted(name for name in _modules() if _place(name, layers) is None)
    assert not unplaced, (
        f"modules that no layer places: {', '.join('robotrules.' + m for m in unplaced)}; add "
        "each to its layer in tests/layers.toml and in the Layers table of docs/architecture.md")


def test_no_import_runs_up_the_layers() -> None:
    layers = _layers()
    graph = _graph()
    upward = []
    for name, targets in sorted(graph.items()):
        mine = _place(name, layers)
        for target in sorted(targets):
            theirs = _place(target, layers)
            if mine is not None and theirs is not None and theirs > mine:
                upward.append(f"robotrules.{name} ({layers[mine][0]}) imports "
                              f"robotrules.{target} ({layers[theirs][0]})")
    assert not upward, "imports that run up the layers:\n" + "\n".join(upward)


def _protocols(path: Path) -> set[str]:
    """The classes of a module that are Protocols (a base named ``Protocol``)."""
    tree = ast.parse(path.read_text("utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.ClassDef) and any(
        ast.unparse(b).split("[")[0].rpartition(".")[2] == "Protocol" for b in node.bases)}


def test_a_type_only_import_runs_up_only_to_a_protocol() -> None:
    """An import for type checkers never runs, but it is a dependency all the same: one that
    runs up the layers names only a Protocol the upper module declares (the lower layer's
    readers take a contract, never the module above: robotrules._parsed.ParsedFile)."""
    layers = _layers()
    modules = _modules()
    upward = []
    for name, edges in sorted(_edges(typing=True).items()):
        mine = _place(name, layers)
        for target, what in sorted(edges):
            theirs = _place(target, layers)
            if mine is None or theirs is None or theirs <= mine:
                continue
            if what and what in _protocols(modules[target]):
                continue
            upward.append(f"robotrules.{name} ({layers[mine][0]}) names "
                          f"robotrules.{target}{'.' + what if what else ''} "
                          f"({layers[theirs][0]}), not a Protocol")
    assert not upward, "type-only imports that run up the layers:\n" + "\n".join(upward)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append([*path[path.index(nxt):], nxt])
            elif nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return cycles


def _all_edges() -> dict[str, set[str]]:
    """The imports that run and those for type checkers, together."""
    graph = _graph()
    for name, targets in _graph(typing=True).items():
        graph.setdefault(name, set()).update(targets)
    return graph


def test_the_import_graph_has_no_cycle() -> None:
    """No circle, whether its imports run or are for type checkers only (a module that
    names another for its types depends on it as much)."""
    cycles = _cycles(_all_edges())
    assert not cycles, "import circles:\n" + "\n".join(
        " -> ".join(f"robotrules.{m}" for m in cycle) for cycle in cycles)


def test_the_graph_reader_sees_function_level_imports_and_type_checking_apart() -> None:
    """The reader itself: a function-level import is an edge, a TYPE_CHECKING one is an edge
    for type checkers (``agents`` imports ``_patterns`` at module level; ``lint`` imports
    ``aipref`` inside :func:`robotrules.lint.lint`; ``_patterns`` names ``_model`` only for
    type checkers; ``aipref.usage`` names the ParsedFile Protocol of ``_parsed``)."""
    graph = _graph()
    typing = _edges(typing=True)
    assert ("_model", "") in {(t, "") for t, _ in typing["_patterns"]}
    assert ("_parsed", "ParsedFile") in typing["aipref.usage"]
    assert "_patterns" in graph["agents"]
    assert "aipref" in graph["lint"]
    assert "_model" not in graph["_patterns"]
    assert {"_compile", "_tables"} <= graph["_native"]  # the kernel reads its tables there
    assert {"_compile", "_match", "_token"} <= graph["_tables"]


def _doc_table() -> list[tuple[str, list[str]]]:
    text = DOC.read_text("utf-8")
    start, end = text.index("<!-- layers:start -->"), text.index("<!-- layers:end -->")
    rows = []
    for line in text[start:end].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].isdigit():
            continue
        rows.append((cells[1], re.findall(r"`([^`]+)`", cells[2])))
    return rows


def test_the_architecture_doc_states_the_same_layers() -> None:
    assert _doc_table() == _layers()


@pytest.mark.parametrize(("name", "layer"), [
    ("_types", "values"), ("_dialects", "protocol tables"), ("_index", "reading"),
    ("_patterns", "matching"), ("aipref.usage", "features on values"),
    ("aipref.rsl_fetch", "shells"), ("lint._semantic", "analyses"), ("__init__", "package face"),
    ("cli._app", "shells"),
])
def test_placing_prefers_the_exact_entry(name: str, layer: str) -> None:
    layers = _layers()
    found = _place(name, layers)
    assert found is not None
    assert layers[found][0] == layer


def test_the_reader_counts_what_runs_under_not_type_checking(tmp_path: Path) -> None:
    """``if not TYPE_CHECKING:`` runs its body (an import that runs) and not its ``else``
    (one for type checkers); ``if TYPE_CHECKING:`` the other way round."""
    path = tmp_path / "x.py"
    path.write_text("from typing import TYPE_CHECKING\n"
                    "if TYPE_CHECKING:\n    from . import a\nelse:\n    from . import b\n"
                    "if not TYPE_CHECKING:\n    from . import c\nelse:\n    from . import d\n",
                    "utf-8")
    runs = {n.names[0].name for n in _statements(path) if isinstance(n, ast.ImportFrom)
            and n.level}
    typing = {n.names[0].name for n in _statements(path, typing=True)
              if isinstance(n, ast.ImportFrom) and n.level}
    assert (runs, typing) == ({"b", "c"}, {"a", "d"})
