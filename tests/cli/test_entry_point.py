"""``robotrules.cli.main``, the console script's entry point: the command always starts.

Issue 26: after a core install (``pip install .``, no ``cli`` extra) every ``robotrules ...``
printed a ``ModuleNotFoundError: click`` traceback and exited 1, which is also ``check``'s
"disallowed". Now it prints one line naming the extra and exits 2 (a usage or environment
error, docs/cli.md). The test builds a real core install without Click: a fresh virtual
environment (``python -m venv``, no system site-packages) that sees this checkout's package
and the core dependencies (http-sf, idna) and nothing else, and runs the command there as the
installed script does (``from robotrules.cli import main; sys.exit(main())``).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

import robotrules

ROOT = Path(__file__).resolve().parents[2]
CORE_DEPENDENCIES = ("http_sf", "idna")  # pyproject.toml [project] dependencies


@pytest.fixture(scope="module")
def core_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("core-venv")
    venv = home / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    deps = home / "deps"
    deps.mkdir()
    # the package the tests import (the checkout's, or under nox the installed build), linked
    # alone: a path entry for its parent directory would bring that directory's other
    # packages along (nox's site-packages holds click)
    (deps / "robotrules").symlink_to(Path(robotrules.__file__).parent)
    for name in CORE_DEPENDENCIES:
        spec = importlib.util.find_spec(name)
        assert spec is not None, name
        assert spec.origin is not None, name
        (deps / name).symlink_to(Path(spec.origin).parent)
    site = next((venv / "lib").glob("python3*/site-packages"))
    (site / "robotrules-checkout.pth").write_text(f"{deps}\n")
    script = venv / "bin" / "robotrules"
    script.write_text(f"#!{venv / 'bin' / 'python'}\nimport sys\n"
                      "from robotrules.cli import main\nsys.exit(main())\n")
    script.chmod(0o755)
    return venv


def _run(venv: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    program = str(venv / "bin" / args[0])  # the venv's python or script, by its full path
    return subprocess.run([program, *args[1:]], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def test_the_venv_is_a_core_install_without_click(core_venv: Path) -> None:
    r = _run(core_venv, "python", "-c",
             "import importlib.util, robotrules; "
             "print(importlib.util.find_spec('click'), "
             "robotrules.parse('User-agent: *\\nDisallow: /x\\n').is_allowed('/x'))")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["None", "False"]


@pytest.mark.parametrize("args", [
    ("robotrules", "check", "--robots", "examples/robots.txt", "--agent", "A", "/x"),
    ("robotrules",),
    ("robotrules", "--help"),
    ("python", "-m", "robotrules.cli", "lint", "examples/robots.txt"),
])
def test_without_the_cli_extra_one_line_and_exit_2(core_venv: Path, args: tuple[str, ...]
                                                   ) -> None:
    r = _run(core_venv, *args)
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert "'cli' extra (click is not installed)" in lines[0]
    assert "pip install 'robotrules[cli]'" in lines[0]
    assert "pip install -e '.[cli]'" in lines[0]  # the checkout form too


def test_with_click_the_entry_point_runs_the_command() -> None:
    from robotrules.cli import main

    assert main(["check", "--robots", str(ROOT / "examples" / "robots.txt"), "--agent", "A",
                 "--json", "/"]) == 0
