"""Every command: ``--help`` with an example; errors are one line and exit 2 (issue 5)."""

from __future__ import annotations

import http.server
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests._proc import default_sigint
from tests.cli.conftest import SRC, cli_env, one_line_error


@pytest.mark.parametrize("command", ["check", "lint", "fetch", "bulk", "diff", "agents"])
def test_help_explains_with_an_example(cli: Any, command: str) -> None:
    r = cli(command, "--help")
    assert r.code == 0
    assert "example" in r.out
    assert f"robotrules {command}" in r.out
    assert "exit status" in r.out


def test_top_level_help_lists_commands(cli: Any) -> None:
    r = cli("--help")
    for command in ("check", "lint", "fetch", "bulk", "diff", "agents"):
        assert command in r.out


def test_no_command_is_a_usage_error(cli: Any) -> None:
    assert cli().code == 2


def test_broken_pipe_is_quiet(tmp_path: Path) -> None:
    """`robotrules check ... | head -1`: the reader has what it wanted, so the command stops
    quietly with 0, as Unix filters do (issue 26: exit 2 broke `set -o pipefail` scripts)."""
    robots = tmp_path / "r.txt"
    robots.write_text("User-agent: *\nDisallow: /x\n")
    urls = [f"/p{i}" for i in range(20000)]
    p = subprocess.Popen([sys.executable, "-m", "robotrules.cli", "check", "--robots",
                          str(robots), "--agent", "A", *urls], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=cli_env(tmp_path))
    assert p.stdout is not None
    assert p.stderr is not None
    p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(timeout=30) == 0
    assert err == ""


def test_pipefail_script_goes_on_after_head(tmp_path: Path) -> None:
    """The issue's own case: `set -o pipefail; robotrules ... | head -n 1` succeeds."""
    robots = tmp_path / "r.txt"
    robots.write_text("User-agent: *\nAllow: /\n")
    urls = " ".join(f"/p{i}" for i in range(3000))  # ~300 KB of output: past a pipe buffer
    script = (f"set -o pipefail; {sys.executable} -m robotrules.cli check --robots {robots} "
              f"--agent A {urls} | head -n 1 >/dev/null")
    p = subprocess.run(["bash", "-c", script], env=cli_env(tmp_path), capture_output=True,
                       text=True, timeout=60, check=False)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""


def test_keyboard_interrupt_exits_130_silently(tmp_path: Path) -> None:
    """Ctrl-C: the shell convention 128 + SIGINT (2), no traceback and nothing to read."""
    p = subprocess.Popen([sys.executable, "-m", "robotrules.cli", "bulk", "-", "--agent", "A"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=cli_env(tmp_path), preexec_fn=default_sigint)
    assert p.stdin is not None
    # Wait until it is really running, not for a fixed time (under load the interpreter may
    # still be importing when a timer fires): feed it a URL on a local server and wait for
    # that server to see the robots.txt request.
    seen = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.set()
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        p.stdin.write(f"http://127.0.0.1:{server.server_address[1]}/a\n".encode())
        p.stdin.flush()
        assert seen.wait(timeout=60)
    finally:
        server.shutdown()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 130
    assert err.decode().strip() == ""


def test_missing_extra_names_it(cli: Any, tmp_path: Path) -> None:
    """Issue 5: 'when an extra is missing, say which one to install'."""
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "httpx.py").write_text("raise ImportError('no httpx here', name='httpx')\n")
    r = cli("check", "--agent", "A", "https://example.com/",
            env={"PYTHONPATH": f"{shadow}{os.pathsep}{SRC}"})
    assert one_line_error(r)
    assert "robotrules[cli]" in r.err


def _on_a_terminal(args: list[str], env: dict[str, str]) -> str:
    import pty

    leader, follower = pty.openpty()
    p = subprocess.Popen([sys.executable, "-m", "robotrules.cli", *args], stdout=follower,
                         stderr=subprocess.PIPE, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:  # EIO: the other side closed
            break
        if not data:
            break
        chunks.append(data)
    p.wait(timeout=30)
    os.close(leader)
    return b"".join(chunks).decode()


def test_colour_on_a_terminal_unless_no_color(tmp_path: Path) -> None:
    """Issue 5: colour on a terminal; NO_COLOR (no-color.org) turns it off."""
    robots = tmp_path / "r.txt"
    robots.write_text("User-agent: *\nDisallow: /x\n")
    args = ["check", "--robots", str(robots), "--agent", "A", "/x"]
    env = cli_env(tmp_path)  # NO_COLOR unset
    env["TERM"] = "xterm"
    assert re.search(r"\x1b\[[0-9;]*31m", _on_a_terminal(args, env))  # red: "disallowed"
    assert "\x1b[" not in _on_a_terminal(args, {**env, "NO_COLOR": "1"})
