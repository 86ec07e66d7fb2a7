"""The build script (``setup.py``) and the package metadata (``pyproject.toml``).

The sources of the expectations: ``setup.py``'s module docstring ("``ROBOTRULES_REQUIRE_NATIVE=1``
makes that failure fail the install instead"; "``ROBOTRULES_SANITIZE=1`` builds it with
AddressSanitizer and UBSan instead ... and fails rather than falling back") and the comment over
``requires-python`` in ``pyproject.toml`` ("requires-python and the classifiers below are the
one place").
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# setup.py run as `python setup.py --name` with Cython made unimportable (a None entry in
# sys.modules makes `import Cython...` raise ImportError), as on a machine without it; from a
# folder holding setup.py alone, as .ci/run's sanitizer stage runs it (the metadata in
# pyproject.toml is pip's to read, with the setuptools its build requirement names)
_NO_CYTHON = (
    "import sys, runpy; sys.modules['Cython'] = None; sys.modules['Cython.Build'] = None; "
    "sys.argv = ['setup.py', '--name']; runpy.run_path('setup.py', run_name='__main__')"
)


def _setup_without_cython(env_extra: dict[str, str], where: Path
                          ) -> subprocess.CompletedProcess[str]:
    shutil.copy(ROOT / "setup.py", where / "setup.py")
    env = {k: v for k, v in os.environ.items()
           if k not in ("ROBOTRULES_REQUIRE_NATIVE", "ROBOTRULES_SANITIZE", "ROBOTRULES_PURE")}
    env.update(env_extra)
    return subprocess.run([sys.executable, "-c", _NO_CYTHON], cwd=where, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("switch", ["ROBOTRULES_REQUIRE_NATIVE", "ROBOTRULES_SANITIZE"])
def test_a_required_kernel_without_cython_fails_loudly(switch: str, tmp_path: Path) -> None:
    p = _setup_without_cython({switch: "1"}, tmp_path)
    assert p.returncode != 0
    assert "Cython is not installed" in p.stderr
    assert p.stdout == ""  # it never got as far as printing the name


def test_an_optional_kernel_without_cython_says_so_and_goes_on(tmp_path: Path) -> None:
    p = _setup_without_cython({}, tmp_path)
    assert p.returncode == 0, p.stderr
    assert "Cython was not found" in p.stderr
    assert "pure-Python core" in p.stderr


def test_the_test_extra_installs_cython_for_the_sanitizer_build() -> None:
    """.ci/run's sanitizer stage runs setup.py itself, outside pip's build isolation."""
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    test = meta["project"]["optional-dependencies"]["test"]
    assert any(re.match(r"(?i)cython\b", req) for req in test)
    assert "ROBOTRULES_SANITIZE=1" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_requires_python_and_the_classifiers_agree() -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    floor = re.fullmatch(r">=\s*3\.(\d+)", meta["requires-python"])
    assert floor, meta["requires-python"]
    minors = sorted(int(m.group(1)) for c in meta["classifiers"]
                    if (m := re.fullmatch(r"Programming Language :: Python :: 3\.(\d+)", c)))
    assert minors[0] == int(floor.group(1))
    assert minors == list(range(minors[0], minors[-1] + 1))  # no gap in the listed versions


def test_a_wheel_built_without_a_compiler_is_tagged_pure(tmp_path: Path) -> None:
    """setup.py: "Such a wheel is tagged ``py3-none-any`` (``TaggedWheel``): it holds no
    compiled module." The compiler is ``false`` (it fails every compile), as on a machine
    without one; the build must go on, say so, and tag the wheel for what it holds."""
    project = tmp_path / "project"
    project.mkdir()
    for name in ("setup.py", "pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, project / name)
    # the sources without any build output (a generated _native.c, kept with its time, spares
    # Cython's run; a compiled module or a build folder would be a different experiment)
    shutil.copytree(ROOT / "src", project / "src", ignore=shutil.ignore_patterns(
        "*.so", "*.pyd", "__pycache__", "*.egg-info", "*.html"))
    env = {k: v for k, v in os.environ.items()
           if k not in ("ROBOTRULES_REQUIRE_NATIVE", "ROBOTRULES_SANITIZE", "ROBOTRULES_PURE")}
    env.update(CC="false", LDSHARED="false")
    p = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps",
                        "--no-build-isolation", "-w", str(tmp_path / "out"), str(project)],
                       env=env, capture_output=True, text=True, timeout=600, check=False)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    assert "the native kernels were not built" in p.stdout + p.stderr
    (wheel,) = (tmp_path / "out").glob("*.whl")
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        assert not [n for n in names if n.endswith((".so", ".pyd"))]
        (info,) = [n for n in names if n.endswith(".dist-info/WHEEL")]
        meta = zf.read(info).decode()
    assert "Root-Is-Purelib: true" in meta
    assert "Tag: py3-none-any" in meta
