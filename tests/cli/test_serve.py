"""``robotrules serve`` (``robotrules/cli/_serve.py``): a busy port and a missing web extra
are environment errors, one line and exit 2 (issue 16)."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import SRC, one_line_error


def test_serve_port_taken_exits_2(cli: Any) -> None:
    """Issue 16: a busy port is an environment error (2), not "disallowed" (1)."""
    pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        r = cli("serve", "--port", str(port))
    assert one_line_error(r), r.err
    assert str(port) in r.err


def test_serve_without_the_web_extra(cli: Any, tmp_path: Path) -> None:
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "uvicorn.py").write_text("raise ImportError('no uvicorn', name='uvicorn')\n")
    r = cli("serve", env={"PYTHONPATH": f"{shadow}{os.pathsep}{SRC}"})
    assert one_line_error(r), r.err
    assert "robotrules[web]" in r.err
