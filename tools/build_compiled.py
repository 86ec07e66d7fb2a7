"""Build a mypyc-compiled copy of robotrules into a folder, importable with PYTHONPATH.

    python tools/build_compiled.py build/compiled
    PYTHONPATH=build/compiled python -c "import robotrules; print(robotrules.COMPILED)"

The benchmark compares this build with the pure-Python one, and CI runs the core tests against
it, so both stay correct. Requires mypy (which ships mypyc) and a C compiler.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the one list of compiled modules, in pyproject.toml [tool.robotrules] (setup.py reads it too)
CORE: list[str] = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"][
    "robotrules"]["compiled"]


def build(out: Path) -> Path:
    out = out.resolve()
    package = out / "robotrules"
    if package.exists():
        shutil.rmtree(package)
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(ROOT / "src" / "robotrules", package,
                    ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    cmd = [sys.executable, "-m", "mypyc", *(f"robotrules/{m}.py" for m in CORE)]
    result = subprocess.run(cmd, cwd=out, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
        raise SystemExit(f"mypyc failed with exit code {result.returncode}")
    shutil.rmtree(out / "build", ignore_errors=True)
    return package


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "build" / "compiled")
    print(build(target))
