"""Fixtures for the web tester: a local robots.txt origin on 127.0.0.1 and the app under uvicorn."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

ORIGIN_ROBOTS = b"User-agent: *\nDisallow: /from-origin/\n"


class _Origin(BaseHTTPRequestHandler):
    """``/robots.txt`` serves ``ORIGIN_ROBOTS``, or redirects to ``redirect_to`` when set."""

    redirect_to: str | None = None

    def do_GET(self) -> None:
        if self.path == "/robots.txt" and self.redirect_to:
            self.send_response(302)
            self.send_header("location", self.redirect_to)
            self.send_header("content-length", "0")
            self.end_headers()
            return
        if self.path == "/robots.txt":
            self.send_response(200)
            self.send_header("content-type", "text/plain")
            self.send_header("content-length", str(len(ORIGIN_ROBOTS)))
            self.end_headers()
            self.wfile.write(ORIGIN_ROBOTS)
            return
        self.send_response(404)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def _serve_origin(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def origin() -> Iterator[str]:
    """An HTTP origin on 127.0.0.1 serving a robots.txt: ``http://127.0.0.1:PORT``."""
    with _serve_origin(_Origin) as url:
        yield url


@pytest.fixture(scope="session")
def redirecting_origin(origin: str) -> Iterator[str]:
    """An origin whose /robots.txt redirects to ``origin``'s, named ``localhost``."""
    port = origin.rsplit(":", 1)[1]
    handler = type("_Redirect", (_Origin,), {"redirect_to": f"http://localhost:{port}/robots.txt"})
    with _serve_origin(handler) as url:
        yield url


@contextmanager
def running(app: object) -> Iterator[str]:
    """``app`` under uvicorn on a free 127.0.0.1 port: ``http://127.0.0.1:PORT``."""
    uvicorn = pytest.importorskip("uvicorn")
    from robotrules.web._serve import bind

    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@pytest.fixture(scope="session")
def live_server() -> Iterator[str]:
    """The tester under uvicorn on a free 127.0.0.1 port (fetch may reach the local origin)."""
    pytest.importorskip("uvicorn")
    from robotrules.web import create_app

    with running(create_app(allow_private=True)) as url:
        yield url
