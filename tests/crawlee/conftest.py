"""A small real site on 127.0.0.1 whose robots.txt answers as a test sets it: a status and a
body, a redirect, no answer at all (a timeout), or a file that changes. The server's log of
(path, User-Agent) is the evidence of what a crawler fetched, and as whom. The Scrapy tests
serve their sites with :func:`serving` too."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

AGENT = "examplebot/1.0 (+https://example.org/bot)"
#: examplebot's group differs from the "*" group: a check made for "*" (Crawlee's default)
#: would skip /a and crawl /private/ (RFC 9309 2.2.1: the crawler's own group applies).
ROBOTS = b"""User-agent: examplebot
Disallow: /private/

User-agent: *
Disallow: /a
"""
PAGES = {
    "/": '<a href="/a">a</a> <a href="/private/x">x</a> <a href="/b">b</a>',
    "/a": '<a href="/private/y">y</a> <a href="/c">c</a>',
    "/b": "<p>b</p>",
    "/c": "<p>c</p>",
    "/private/x": "<p>secret</p>",
    "/private/y": "<p>secret</p>",
}


@dataclass
class Site:
    """``robots`` is what /robots.txt answers: (status, body, headers); a status of 0 never
    answers (the server holds the connection until the test ends)."""

    robots: tuple[int, bytes, dict[str, str]] = (200, ROBOTS, {})
    extra: dict[str, tuple[int, bytes, dict[str, str]]] = field(default_factory=dict)
    robots_sequence: list[tuple[int, bytes, dict[str, str]]] = field(default_factory=list)
    seen: list[tuple[str, str]] = field(default_factory=list)
    stamps: list[float] = field(default_factory=list)  # time.monotonic() of each of ``seen``
    base: str = ""
    release: threading.Event = field(default_factory=threading.Event)

    def paths(self) -> list[str]:
        return [path for path, _ in self.seen]

    def pages(self) -> list[str]:
        """The pages requested (robots.txt files and the favicon left out), in order."""
        return [p for p in self.paths() if "robots" not in p and p != "/favicon.ico"]


@contextlib.contextmanager
def serving(s: Site) -> Iterator[Site]:
    """Serve ``s`` on 127.0.0.1 (its ``base`` is set) until the block ends. A list of answers
    in ``s.robots_sequence`` is served in turn (the last one stays), before ``s.robots``."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            s.stamps.append(time.monotonic())
            s.seen.append((self.path, self.headers.get("User-Agent", "")))
            if self.path == "/robots.txt":
                if s.robots_sequence:
                    s.robots = s.robots_sequence.pop(0)
                status, body, headers = s.robots
            elif self.path in s.extra:
                status, body, headers = s.extra[self.path]
            elif self.path in PAGES:
                status, body, headers = 200, PAGES[self.path].encode(), {
                    "Content-Type": "text/html; charset=utf-8"}
            else:
                status, body, headers = 404, b"not found", {}
            if status == 0:
                s.release.wait(30)
                return
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            if "Content-Type" not in headers:
                self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    s.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02},
                              daemon=True)
    thread.start()
    try:
        yield s
    finally:
        s.release.set()
        httpd.shutdown()
        thread.join()
        httpd.server_close()


@pytest.fixture
def site() -> Iterator[Site]:
    with serving(Site()) as s:
        yield s
