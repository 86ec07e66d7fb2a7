"""The type stub of the native kernels (``_native.pyi``) says what the compiled module has.

mypy reads the stub, never the ``.so``: every public name and method of the compiled module
is in the stub, and every one the stub declares is in the module (a name added to the kernel
but not to the stub is invisible to the type checks; one the stub keeps after the kernel
dropped it type-checks code that fails at run time).
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from robotrules import _peers

native = pytest.importorskip("robotrules._native") if _peers.NATIVE else None
pytestmark = pytest.mark.skipif(native is None, reason="the native kernels are not built")

STUB = Path(_peers.__file__).with_name("_native.pyi")


def _public(name: str) -> bool:
    return not name.startswith("_")


def _stub() -> tuple[set[str], dict[str, set[str]]]:
    """The stub's public top-level names, and each class's public members."""
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    names: set[str] = set()
    members: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        if isinstance(node, ast.ClassDef):
            members[node.name] = {
                n.name if isinstance(n, ast.FunctionDef) else n.target.id  # type: ignore[union-attr]
                for n in node.body
                if isinstance(n, ast.FunctionDef) or (
                    isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name))}
    return {n for n in names if _public(n)}, {
        c: {m for m in ms if _public(m)} for c, ms in members.items() if _public(c)}


def _compiled() -> tuple[set[str], dict[str, set[str]]]:
    """The compiled module's public names (not those it imported), and each class's."""
    names = set()
    classes: dict[str, set[str]] = {}
    for name, value in vars(native).items():
        if not _public(name) or inspect.ismodule(value):
            continue
        if getattr(value, "__module__", native.__name__) != native.__name__:
            continue  # imported (array.array ...)
        names.add(name)
        if inspect.isclass(value):
            classes[name] = {m for m in vars(value) if _public(m)}
    return names, classes


def test_the_stub_names_what_the_module_has() -> None:
    stub_names, stub_members = _stub()
    names, members = _compiled()
    assert stub_names == names
    assert stub_members == members
