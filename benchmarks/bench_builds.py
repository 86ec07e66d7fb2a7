"""The builds of robotrules under test: the installed one (native when compiled) and pure Python.

Both are imported into the same process so they alternate with the other libraries like any
other library. The installed package is imported as ``robotrules`` (label ``robotrules``):
``robotrules.NATIVE`` says whether its compiled kernels are in use. When they are, the
pure-Python core is loaded a second time from the source tree, under the alias package
``robotrules_pure`` (the core only uses relative imports), with ``ROBOTRULES_PURE=1`` in the
environment during that import (then the environment is restored): label ``robotrules-pure``.
When the installed package is not native there is only one build to measure, and the report's
header says so.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "robotrules"
PURE_ENV = "ROBOTRULES_PURE"
PURE_ALIAS = "robotrules_pure"
LABEL = "robotrules"
PURE_LABEL = "robotrules-pure"
# ROBOTRULES_BEFORE=DIR: DIR/robotrules, another checkout's source with its native build, is
# measured too (label robotrules-before), so a change's before and after share one run
BEFORE_ENV = "ROBOTRULES_BEFORE"
BEFORE_ALIAS = "robotrules_before"
BEFORE_LABEL = "robotrules-before"


@contextmanager
def pure_env() -> Iterator[None]:
    """``ROBOTRULES_PURE=1`` for the duration of the block, then the environment as it was."""
    old = os.environ.get(PURE_ENV)
    os.environ[PURE_ENV] = "1"
    try:
        yield
    finally:
        if old is None:
            del os.environ[PURE_ENV]
        else:
            os.environ[PURE_ENV] = old


def _load_alias(name: str, package_dir: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        name, package_dir / "__init__.py", submodule_search_locations=[str(package_dir)])
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {package_dir} as {name}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]
        raise
    return module


def is_native(module: ModuleType) -> bool:
    return bool(getattr(module, "NATIVE", False))


def load() -> tuple[list[tuple[str, ModuleType]], str]:
    """``[(label, module)]`` of the builds to benchmark, and a note on what was loaded.

    Must run before anything imports ``robotrules``.
    """
    if "robotrules" in sys.modules:
        raise RuntimeError("robotrules was imported before the builds were chosen")
    import robotrules

    where = Path(robotrules.__file__).parent
    if not is_native(robotrules):
        why = ("robotrules.NATIVE is False" if hasattr(robotrules, "NATIVE")
               else "this robotrules has no NATIVE flag")
        if os.environ.get(PURE_ENV):
            why += f", {PURE_ENV} is set"
        return ([(LABEL, robotrules)],
                f"robotrules: the installed build ({where}) is pure Python ({why}): only it is "
                f"benchmarked, no native build to compare")
    with pure_env():
        pure = _load_alias(PURE_ALIAS, SRC)
    if is_native(pure):
        raise RuntimeError(f"{SRC} loaded with {PURE_ENV}=1 still reports NATIVE")
    builds = [(LABEL, robotrules)]
    note = ""
    before = os.environ.get(BEFORE_ENV)
    if before:  # another native build of the package, to compare before and after a change
        old = _load_alias(BEFORE_ALIAS, Path(before) / "robotrules")
        if not is_native(old):
            raise RuntimeError(f"{before}/robotrules ({BEFORE_ENV}) has no native build")
        builds.append((BEFORE_LABEL, old))
        note = (f"; the build in {before} ({BEFORE_ENV}, loaded as `{BEFORE_ALIAS}`), "
                f"label `{BEFORE_LABEL}`")
    builds.append((PURE_LABEL, pure))
    return (builds,
            f"robotrules: the installed build, native ({where}), and the pure-Python core "
            f"({SRC.relative_to(ROOT)} loaded as `{PURE_ALIAS}` with {PURE_ENV}=1), label "
            f"`{PURE_LABEL}`" + note)


def load_one(label: str) -> ModuleType:
    """The module behind one label of :func:`load`, loaded the same way (for a subprocess that
    measures one library on its own)."""
    if label == PURE_LABEL:
        with pure_env():
            return _load_alias(PURE_ALIAS, SRC)
    if label == BEFORE_LABEL:
        return _load_alias(BEFORE_ALIAS, Path(os.environ[BEFORE_ENV]) / "robotrules")
    if label == LABEL:
        import robotrules

        return robotrules
    raise ValueError(label)
