"""The builds of robotrules under test: pure Python and, optionally, the mypyc-compiled core.

Both are imported into the same process so they alternate with the other libraries like any
other library. The compiled modules have their package name built in, so the compiled copy
is imported as ``robotrules`` (its folder first on ``sys.path``) and the pure-Python source
tree is loaded under the alias ``robotrules_pure`` (the core only uses relative imports).
The compiled copy is built with the project's ``tools/build_compiled.py`` into a cache folder
named after a hash of the sources, so it is rebuilt only when the sources change.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
import tempfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "robotrules"
CACHE = Path(tempfile.gettempdir()) / "robotrules-bench-mypyc"


def _load_alias(name: str, package_dir: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        name, package_dir / "__init__.py", submodule_search_locations=[str(package_dir)])
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {package_dir} as {name}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _source_hash() -> str:
    h = hashlib.sha256()
    for path in sorted([*SRC.rglob("*.py"), ROOT / "tools" / "build_compiled.py"]):
        if path.is_file():
            h.update(str(path.relative_to(ROOT)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


def build_mypyc() -> Path:
    """A compiled copy of the current sources (cached); the folder to put on sys.path."""
    out = CACHE / _source_hash()
    if (out / "robotrules" / "__init__.py").is_file() and any(
            (out / "robotrules").glob("_robots*.so")):
        return out
    spec = importlib.util.spec_from_file_location("_robotrules_build_compiled_mod",
                                                  ROOT / "tools" / "build_compiled.py")
    if spec is None or spec.loader is None:
        raise ImportError("tools/build_compiled.py not found")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.build(out)
    return out


def load(mypyc: bool, mypyc_dir: Path | None) -> tuple[list[tuple[str, ModuleType]], str]:
    """``[(label, module)]`` of the builds to benchmark, and a note on what was loaded.

    Must run before anything imports ``robotrules``.
    """
    if "robotrules" in sys.modules:
        raise RuntimeError("robotrules was imported before the builds were chosen")
    if not mypyc:
        import robotrules

        kind = "mypyc-compiled" if getattr(robotrules, "COMPILED", False) else "pure Python"
        return [("robotrules", robotrules)], f"robotrules: the installed build ({kind})"
    try:
        folder = mypyc_dir if mypyc_dir is not None else build_mypyc()
    except (Exception, SystemExit) as exc:  # no compiler, no mypyc: benchmark pure Python
        import robotrules

        return ([("robotrules", robotrules)],
                f"robotrules: pure Python only (mypyc build failed: {exc})")
    sys.path.insert(0, str(folder))
    compiled = importlib.import_module("robotrules")
    if not getattr(compiled, "COMPILED", False):
        raise RuntimeError(f"{folder} does not hold a compiled robotrules")
    pure = _load_alias("robotrules_pure", SRC)
    if getattr(pure, "COMPILED", True):
        raise RuntimeError(f"{SRC} is not pure Python")
    return ([("robotrules", pure), ("robotrules-mypyc", compiled)],
            f"robotrules: pure Python ({SRC.relative_to(ROOT)}) and mypyc-compiled "
            f"(tools/build_compiled.py, {folder})")
