"""Optional compiled build of the core.

``ROBOTRULES_COMPILE=1 pip install --no-build-isolation .`` (with mypy installed) compiles the
pure-Python core modules with mypyc; without the variable the package is pure Python. Both
builds run the same source and the same tests (see tools/build_compiled.py and .ci/run).
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from setuptools import setup

_PYPROJECT = tomllib.loads((Path(__file__).parent / "pyproject.toml").read_text("utf-8"))
CORE: list[str] = _PYPROJECT["tool"]["robotrules"]["compiled"]

ext_modules = []
if os.environ.get("ROBOTRULES_COMPILE") == "1":
    from mypyc.build import mypycify

    ext_modules = mypycify([f"src/robotrules/{name}.py" for name in CORE], opt_level="3")

setup(ext_modules=ext_modules)
