"""Imports inside functions: each one defers a module that its own module's import does not load.

The rule, from docs/architecture.md ("Layers", "Imports"): an import sits at the top of its
module unless placing it there would make importing the module load something it does not load
now (an optional extra's package such as httpx, duckdb or cryptography; the CLI's and the
facade's heavier parts, which ``import robotrules`` and ``robotrules --help`` do not pay for).
An import inside a function of a module whose own import loads the same module anyway defers
nothing: it only hides a dependency, so it is a defect here.

How it is read: every ``import``/``from … import`` inside a function of ``src/robotrules`` (found
with :mod:`ast`), then, in a fresh interpreter per module, whether importing that module alone
already bound what the statement names (the module in ``sys.modules``, or the name in it).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "robotrules"

# run in a fresh interpreter: import the module, then say which deferred names were there
_PROBE = """
import importlib, json, sys
importlib.import_module(sys.argv[1])
there = []
for line, module, name in json.loads(sys.argv[2]):
    m = sys.modules.get(module)
    if name:
        hit = module + "." + name in sys.modules or (m is not None and name in vars(m))
    else:
        hit = m is not None
    if hit:
        there.append([line, module, name])
print(json.dumps(there))
"""


def _dotted(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _deferred(path: Path, name: str) -> list[tuple[int, str, str]]:
    """``(line, module, name)`` for each name an import inside a function of module ``name``
    (at ``path``) takes."""
    package = name if path.stem == "__init__" else name.rpartition(".")[0]
    found: list[tuple[int, str, str]] = []
    for func in ast.walk(ast.parse(path.read_text("utf-8"))):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(func):
            if isinstance(node, ast.Import):
                found += [(node.lineno, a.name, "") for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    module = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    module = node.module or ""
                found += [(node.lineno, module, a.name) for a in node.names]
    return sorted(set(found))


def _loaded_anyway(item: tuple[str, list[tuple[int, str, str]]]) -> list[str]:
    module, deferred = item
    p = subprocess.run([sys.executable, "-c", _PROBE, module, json.dumps(deferred)],
                       capture_output=True, text=True, timeout=300, check=False)
    assert p.returncode == 0, f"import {module} failed: {p.stderr[-2000:]}"
    return [f"{module}:{line} imports {m}{' ' + n if n else ''} inside a function, but "
            f"`import {module}` loads it already" for line, m, n in json.loads(p.stdout)]


def test_an_import_inside_a_function_defers_something() -> None:
    work = [(_dotted(p), d) for p in sorted(PACKAGE.rglob("*.py"))
            if "__pycache__" not in p.parts and (d := _deferred(p, _dotted(p)))]
    assert len(work) > 10  # the walk found the package's deferred imports
    with ThreadPoolExecutor(4) as pool:
        defects = [d for found in pool.map(_loaded_anyway, work) for d in found]
    assert not defects, ("imports that defer nothing (move them to the top of the module):\n"
                         + "\n".join(defects))


def test_the_check_finds_an_import_that_defers_nothing(tmp_path: Path) -> None:
    """The check itself, on a module made here: it imports ``os`` at its top and again in a
    function (found), and defers a module nothing else loads (not found)."""
    (tmp_path / "probe_mod.py").write_text(
        "import os\n\n\ndef f():\n    import os\n    from os import path\n    return os, path\n"
        "\n\ndef g():\n    import probe_other\n    return probe_other\n", "utf-8")
    (tmp_path / "probe_other.py").write_text("X = 1\n", "utf-8")
    deferred = _deferred(tmp_path / "probe_mod.py", "probe_mod")
    assert deferred == [(5, "os", ""), (6, "os", "path"), (11, "probe_other", "")]
    p = subprocess.run([sys.executable, "-c", _PROBE, "probe_mod", json.dumps(deferred)],
                       capture_output=True, text=True, timeout=60, check=True, cwd=tmp_path,
                       env={"PYTHONPATH": str(tmp_path)})
    assert json.loads(p.stdout) == [[5, "os", ""], [6, "os", "path"]]
