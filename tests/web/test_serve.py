"""``robotrules serve`` (robotrules.cli._serve, robotrules.web._serve) as a person runs it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import pytest

from tests._proc import default_sigint

httpx = pytest.importorskip("httpx")
pytest.importorskip("uvicorn")


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT are POSIX")
def test_ctrl_c_stops_serve_quietly_with_130() -> None:
    """Issue 26: Ctrl-C on ``robotrules serve`` printed two worker tracebacks and exited 0.
    A terminal sends SIGINT to the whole process group (the worker processes included);
    the command's contract (robotrules.cli: "130 on Ctrl-C, silently") wants 130, no output."""
    child = subprocess.Popen(
        [sys.executable, "-m", "robotrules.cli", "serve", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=default_sigint)
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert match, line
        for _ in range(200):
            try:
                httpx.get(match.group(0), timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.05)
        # Lint runs in a worker process: the workers exist when Ctrl-C comes.
        linted = httpx.post(match.group(0) + "api/lint", json={"robots_txt": "User-agent: *\n"},
                            timeout=30)
        assert linted.status_code == 200
        os.killpg(child.pid, signal.SIGINT)
        out, err = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=10)
    assert child.returncode == 130
    assert err == ""
    assert out == ""
