"""A real HTTP server on 127.0.0.1 for ``read()``: each path answers a fixed status and body."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


@dataclass
class Site:
    base: str
    routes: dict[str, tuple[int, bytes, dict[str, str]]]
    seen: list[tuple[str, str]] = field(default_factory=list)  # (path, User-Agent)

    def url(self, path: str) -> str:
        return self.base + path


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            site.seen.append((self.path, self.headers.get("User-Agent", "")))
            status, body, headers = site.routes.get(self.path, (404, b"not found", {}))
            self.send_response(status)
            for key, value in headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(body)))
            if "Content-Type" not in headers:
                self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@pytest.fixture
def site() -> Iterator[Site]:
    routes: dict[str, tuple[int, bytes, dict[str, str]]] = {}
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(Site("", routes)))
    site = Site(f"http://127.0.0.1:{server.server_address[1]}", routes)
    server.RequestHandlerClass = _handler(site)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01})
    thread.daemon = True
    thread.start()
    try:
        yield site
    finally:
        server.shutdown()
        thread.join()
        server.server_close()
