"""Run the CLI as users do (a subprocess) against files and real HTTP servers on 127.0.0.1."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[2] / "src")
try:
    import robotrules
except ImportError:  # running from a checkout without `pip install -e .`
    sys.path.insert(0, SRC)
    import robotrules
# The CLI subprocess imports the robotrules this process imported: the checkout's src/, an
# editable install, or an installed wheel (noxfile.py's sessions test the installed build).
SRC = str(Path(robotrules.__file__).resolve().parents[1])


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "text/plain"})


class Server:
    """A threaded HTTP server on 127.0.0.1 answering from a table of path -> Reply."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.routes: dict[str, Reply] = {}
        self.hits: Counter[str] = Counter()
        self.agents: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                outer.hits[self.path] += 1
                outer.agents.append(self.headers.get("User-Agent", ""))
                reply = outer.routes.get(self.path, Reply(404, b"not found"))
                self.send_response(reply.status)
                for k, v in reply.headers.items():
                    self.send_header(k, v.replace("{base}", outer.base))
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer((host, 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://{host}:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def robots(self, body: bytes | str, status: int = 200, **headers: str) -> None:
        data = body.encode() if isinstance(body, str) else body
        self.routes["/robots.txt"] = Reply(status, data, {"Content-Type": "text/plain", **headers})

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server()
    yield s
    s.close()


@pytest.fixture
def make_server() -> Iterator[type[Server]]:
    made: list[Server] = []

    class Tracked(Server):
        def __init__(self, host: str = "127.0.0.1") -> None:
            super().__init__(host)
            made.append(self)

    yield Tracked
    for s in made:
        s.close()


#: A small file with a group for every crawler and one for GPTBot (``sample_robots``).
SAMPLE_ROBOTS = """\
User-agent: *
Disallow: /private/
Disallow: /tmp/

User-agent: GPTBot
Disallow: /
Allow: /public/
"""


@pytest.fixture
def sample_robots(tmp_path: Path) -> Path:
    """:data:`SAMPLE_ROBOTS` in a file (line 7 is ``Allow: /public/``)."""
    p = tmp_path / "sample-robots.txt"
    p.write_text(SAMPLE_ROBOTS)
    return p


@dataclass
class Result:
    code: int
    out: str
    err: str
    #: with ``peak=True``: the child's own peak resident set (``VmHWM`` of its address space
    #: after exec), in MiB. Not ``ru_maxrss``: Linux carries the forking process's resident
    #: size into the child's (a test worker of 450 MiB made every child read 450 MiB)
    peak_rss_mib: float = 0.0


#: ``python -c PEAK_WRAPPER module args...`` runs ``python -m module args...`` and, at exit,
#: writes the process's ``VmHWM`` (KiB) to the file named by ``ROBOTRULES_TEST_PEAK``
PEAK_WRAPPER = """
import atexit, os, runpy, sys
def _peak():
    with open("/proc/self/status") as f, open(os.environ["ROBOTRULES_TEST_PEAK"], "w") as out:
        out.write(next(line.split()[1] for line in f if line.startswith("VmHWM:")))
atexit.register(_peak)
del sys.argv[0]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
"""


def cli_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a ``python -m robotrules.cli`` run by a test: this checkout's
    sources, a private cache dir (no robots.txt another test cached for a reused loopback
    port), no proxy between it and the loopback servers, no colour or width setting of the
    caller (pytest-xdist's workers set COLUMNS=80, which a command in a pipe honours)."""
    e = {k: v for k, v in os.environ.items()
         if k not in ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "LINES")}
    e["PYTHONPATH"] = SRC + os.pathsep + e.get("PYTHONPATH", "")
    e["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    e["NO_PROXY"] = "*"
    e.pop("HTTP_PROXY", None)
    e.pop("HTTPS_PROXY", None)
    e.pop("ALL_PROXY", None)
    return e


@pytest.fixture
def cli(tmp_path: Path) -> object:
    """``cli(*args, input=...)`` runs ``python -m robotrules.cli`` in :func:`cli_env`
    (``peak=True``: through :data:`PEAK_WRAPPER`, its peak resident set in the result)."""

    def run(*args: str, input: str | None = None, env: dict[str, str] | None = None,
            timeout: float = 60, peak: bool = False) -> Result:
        e = cli_env(tmp_path)
        e.update(env or {})
        if not peak:
            p = subprocess.run([sys.executable, "-m", "robotrules.cli", *args], input=input,
                               capture_output=True, text=True, env=e, timeout=timeout,
                               check=False)
            return Result(p.returncode, p.stdout, p.stderr)
        e["ROBOTRULES_TEST_PEAK"] = str(tmp_path / "peak-kib")
        p = subprocess.run([sys.executable, "-c", PEAK_WRAPPER, "robotrules.cli", *args],
                           input=input, capture_output=True, text=True, env=e,
                           timeout=timeout, check=False)
        kib = (tmp_path / "peak-kib").read_text()
        return Result(p.returncode, p.stdout, p.stderr, int(kib) / 1024)

    return run


def one_line_error(r: Result) -> bool:
    """Exit 2 with exactly one line on stderr and no traceback (issue 5: exit codes)."""
    lines = [x for x in r.err.splitlines() if x.strip()]
    return r.code == 2 and len(lines) == 1 and "Traceback" not in r.err
