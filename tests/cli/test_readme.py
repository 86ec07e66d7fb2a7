"""Every ``robotrules ...`` command in README.md's shell blocks runs as written (issue 16).

The commands run from the repository root through a ``robotrules`` on PATH that is the real
entry point (``python -m robotrules.cli``), so the files they name must exist in the checkout.
What is changed, and only that, because tests must not use the network:

- ``https://example.com`` and ``https://www.example.com`` become a local HTTP server (the
  host rewritten, path kept) that serves ``examples/robots.txt``; for ``bulk`` the URLs in
  ``examples/urls.txt`` get the same host rewrite in a temporary copy;
- a ``> FILE`` redirection writes into a temporary directory instead of the checkout;
- ``robotrules serve`` listens on a free port (``--port 0``) instead of 8000, which another
  process may hold, and is stopped with Ctrl-C once it has printed its address.

Skipped, with the reason: the ``pip install ...`` before ``&&`` in the quick start (it changes
the environment; this suite already runs in an installed one) and commands that are not
``robotrules`` (the test suite itself, benchmarks).
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import SRC, Server

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
HOSTS = re.compile(r"https://(?:www\.)?example\.com")


def readme_commands() -> list[str]:
    """``robotrules`` commands of the README's shell blocks, comments and ``pip ... &&`` cut."""
    text = README.read_text()
    commands: list[str] = []
    for block in re.findall(r"```(?:sh|bash|console)\n(.*?)```", text, re.S):
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            if not words:
                continue
            parts = " ".join(shlex.quote(w) if w not in ("&&", ">", "|") else w
                             for w in words).split(" && ")
            commands.extend(p.strip() for p in parts if p.strip().startswith("robotrules "))
    return commands


COMMANDS = readme_commands()


def test_the_readme_has_the_commands_of_the_issue() -> None:
    assert any(c.startswith("robotrules check --robots examples/robots.txt") for c in COMMANDS)
    assert len(COMMANDS) >= 10


def test_every_file_the_readme_names_exists() -> None:
    for command in COMMANDS:
        for word in shlex.split(command):
            if word.startswith("examples/"):
                assert (ROOT / word).is_file(), (command, word)


@pytest.fixture(scope="module")
def site() -> Iterator[Server]:
    s = Server()
    s.robots((ROOT / "examples" / "robots.txt").read_bytes())
    yield s
    s.close()


@pytest.fixture
def shell_env(tmp_path: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "robotrules"
    script.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m robotrules.cli "$@"\n')
    script.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
               PYTHONPATH=SRC + os.pathsep + env.get("PYTHONPATH", ""),
               XDG_CACHE_HOME=str(tmp_path / "cache"), NO_PROXY="*")
    for k in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env.pop(k, None)
    return env


def _local(command: str, site: Server, tmp_path: Path) -> str:
    command = HOSTS.sub(site.base, command)
    if "examples/urls.txt" in command and command.startswith("robotrules bulk"):
        urls = tmp_path / "urls.txt"
        urls.write_text(HOSTS.sub(site.base, (ROOT / "examples" / "urls.txt").read_text()))
        command = command.replace("examples/urls.txt", shlex.quote(str(urls)))
    return re.sub(r"> (\S+)", lambda m: "> " + shlex.quote(str(tmp_path / m.group(1))),
                  command)


@pytest.mark.parametrize("command", [c for c in COMMANDS if not c.startswith("robotrules serve")])
def test_readme_command_runs_as_written(command: str, site: Server, tmp_path: Path,
                                        shell_env: dict[str, str]) -> None:
    p = subprocess.run(["sh", "-c", _local(command, site, tmp_path)], cwd=ROOT,
                       env=shell_env, capture_output=True, text=True, timeout=120, check=False)
    assert p.returncode in (0, 1), (command, p.stderr)
    assert "Traceback" not in p.stderr
    assert not [x for x in p.stderr.splitlines() if x.startswith("robotrules:")
                and "note:" not in x], p.stderr
    written = list(tmp_path.glob("*.csv"))
    assert p.stdout.strip() or any(f.stat().st_size for f in written), command


@pytest.mark.parametrize("command", [c for c in COMMANDS if c.startswith("robotrules serve")])
def test_readme_serve_starts_and_stops(command: str, shell_env: dict[str, str]) -> None:
    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    p = subprocess.Popen([*shlex.split(command), "--port", "0"], cwd=ROOT, env=shell_env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout is not None
    line = p.stdout.readline()
    assert re.search(r"http://127\.0\.0\.1:\d+/", line), line
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert p.returncode in (0, 130), err
    assert "Traceback" not in err
