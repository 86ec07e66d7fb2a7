"""The version matrix: the core and CLI tests on every supported CPython this machine has.

``nox`` (or ``nox -s tests-3.12``) builds robotrules from this checkout into a fresh venv per
interpreter (``pip install .``: a real wheel build, so the Cython kernel is compiled for that
interpreter) and runs ``tests/core`` and ``tests/cli`` against the installed package, asserting
the native kernel was built (``ROBOTRULES_EXPECT_NATIVE=1``). The full suite (web tester,
datasets, Spark, Scrapy, browsers) runs on the main interpreter in ``.ci/run``; these sessions
prove the package builds, installs and answers the same on each other version.

The versions are not written here: they are the ``Programming Language :: Python :: 3.N``
classifiers in ``pyproject.toml`` (the one place, next to ``requires-python``). Interpreters
are found on ``PATH`` (``python3.N``) and in pyenv's ``~/.pyenv/versions/3.N.*``; a supported
version this machine lacks is skipped (``nox --list`` shows which ran). Nothing is downloaded:
interpreters come from the machine, packages from the configured index.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

import nox

ROOT = Path(__file__).resolve().parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

# the test extra's packages the core and CLI tests use (their pins stay in pyproject.toml)
TEST_PACKAGES = ("pytest", "pytest-asyncio", "pytest-xdist", "hypothesis")
# Google's matcher, the differential tests' oracle: jwm-robotstxt has wheels for some versions
# only (3.11, 3.12 today) and its source build downloads its dependencies, so it is installed
# from a wheel or not at all; without it the tests that need it are left out, and the session
# prints so (CI's 3.11 run always has them).
ORACLE = "jwm-robotstxt"
NEEDS_ORACLE = ["--ignore=tests/core/test_differential.py", "--ignore=tests/core/test_matcher.py",
                "--ignore=tests/core/test_worst_shapes.py",
                "--deselect=tests/core/test_api.py::"
                "test_large_group_index_agrees_with_linear_scan"]


def supported_versions() -> list[str]:
    """``["3.11", "3.12", ...]`` from the classifiers."""
    found = (re.fullmatch(r"Programming Language :: Python :: (3\.\d+)", c)
             for c in PYPROJECT["project"]["classifiers"])
    return [m.group(1) for m in found if m]


def _pyenv_bins() -> list[str]:
    """pyenv's interpreter folders, newest patch first, so ``python3.N`` finds a real one
    before pyenv's shim (which fails for a version that is not the global one)."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    if not root.is_dir():
        return []
    names = [p for p in root.iterdir() if re.fullmatch(r"3\.\d+\.\d+", p.name)]
    names.sort(key=lambda p: tuple(int(x) for x in p.name.split(".")), reverse=True)
    return [str(p / "bin") for p in names if (p / "bin").is_dir()]


os.environ["PATH"] = os.pathsep.join([*_pyenv_bins(), os.environ.get("PATH", "")])
VERSIONS = supported_versions()

nox.options.sessions = ["tests"]
nox.options.download_python = "never"
nox.options.error_on_missing_interpreters = False  # a version the machine lacks is skipped


def _pins(*names: str) -> list[str]:
    """The test extra's requirement strings for ``names``."""
    pins = PYPROJECT["project"]["optional-dependencies"]["test"]
    return [p for p in pins if re.split(r"[<>=!~\[ ;]", p, maxsplit=1)[0] in names]


@nox.session(python=VERSIONS)
def tests(session: nox.Session) -> None:
    """Build and install robotrules (native kernel required), then core + CLI tests."""
    env = {"ROBOTRULES_REQUIRE_NATIVE": "1"}
    session.install(".[cli,fetch]", *_pins(*TEST_PACKAGES), env=env)
    session.run_install("python", "-m", "pip", "install", "-q", "--only-binary", ORACLE,
                        *_pins(ORACLE), success_codes=[0, 1])
    have = session.run("python", "-c", "import importlib.util as u; "
                       "print(u.find_spec('jwm') is not None)", silent=True)
    leave_out: list[str] = []
    if not (isinstance(have, str) and have.strip() == "True"):
        session.warn(f"{ORACLE} has no wheel for this Python: the differential tests against "
                     "Google's matcher are left out of this session")
        leave_out = NEEDS_ORACLE
    session.run("python", "-c",
                "import robotrules, sys; print(sys.version.split()[0], robotrules.__file__,"
                " 'native' if robotrules.NATIVE else 'PURE'); sys.exit(not robotrules.NATIVE)")
    session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                "-n", os.environ.get("NOX_XDIST", "2"), "tests/core", "tests/cli",
                *leave_out, *session.posargs, env={"ROBOTRULES_EXPECT_NATIVE": "1"})
