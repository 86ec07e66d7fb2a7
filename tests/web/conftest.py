"""Fixtures for the web tester: a local robots.txt origin on 127.0.0.1, the app under uvicorn,
and a real headless Chromium (Debian's, driven by Playwright) for the browser suites.

Without Chromium or Playwright the ``browser`` fixture skips: every browser test is reported
as its own skip, with the reason, and the rest of the suite runs.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

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


SITEMAP_XML = (b'<?xml version="1.0" encoding="UTF-8"?>\n'
               b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
               + b"".join(b"  <url><loc>https://www.example.com/p%d</loc></url>\n" % i
                          for i in range(3))
               + b"</urlset>\n")
SITEMAP_INDEX = (b'<?xml version="1.0" encoding="UTF-8"?>\n'
                 b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
                 b"  <sitemap><loc>https://www.example.com/a.xml</loc></sitemap>\n"
                 b"  <sitemap><loc>https://www.example.com/b.xml</loc></sitemap>\n"
                 b"</sitemapindex>\n")


class _Sitemaps(BaseHTTPRequestHandler):
    """A site whose robots.txt names four sitemaps: an XML one, a gzipped index, an HTML page
    and a missing one (404); ``/private/`` is disallowed for every crawler."""

    def do_GET(self) -> None:
        import gzip

        base = f"http://127.0.0.1:{self.server.server_address[1]}"
        pages = {
            "/robots.txt": (b"User-agent: *\nDisallow: /private/\n"
                            + b"".join(b"Sitemap: %s%s\n" % (base.encode(), p) for p in (
                                b"/sitemap.xml", b"/index.xml.gz", b"/page.html",
                                b"/missing.xml")), "text/plain"),
            "/sitemap.xml": (SITEMAP_XML, "application/xml"),
            "/index.xml.gz": (gzip.compress(SITEMAP_INDEX), "application/gzip"),
            "/page.html": (b"<!doctype html><html><body>Hello</body></html>", "text/html"),
        }
        if self.path not in pages:
            self.send_response(404)
            self.send_header("content-length", "0")
            self.end_headers()
            return
        body, kind = pages[self.path]
        self.send_response(200)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="session")
def sitemap_origin() -> Iterator[str]:
    """An origin on 127.0.0.1 whose robots.txt names four sitemaps (see ``_Sitemaps``)."""
    with _serve_origin(_Sitemaps) as url:
        yield url


@contextmanager
def running(app: object, **options: Any) -> Iterator[str]:
    """``app`` under uvicorn on a free 127.0.0.1 port: ``http://127.0.0.1:PORT``. ``options``
    go to ``uvicorn.Config`` over these defaults (warnings only, no access log, lifespan on)."""
    uvicorn = pytest.importorskip("uvicorn")
    from robotrules.web._serve import bind

    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, **{"log_level": "warning", "access_log": False,
                                    "lifespan": "on", **options})
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


CHROMIUM = os.environ.get("ROBOTRULES_CHROMIUM", "/usr/bin/chromium")
LAUNCH_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
TIMEOUT_MS = 15_000  # generous: CI machines are small and busy


def _no_browser() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        return f"no Chromium at {CHROMIUM} (.ci/run installs Debian's chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (the test extra: pip install -e '.[test]')"
    return None


def expect(actual: Any, message: str | None = None) -> Any:
    """Playwright's ``expect`` (retrying assertions), imported when a browser test runs."""
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(actual, message)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Headless Chromium, or a skip saying why there is none (each test reports its own)."""
    reason = _no_browser()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import expect as playwright_expect
    from playwright.sync_api import sync_playwright

    playwright_expect.set_options(timeout=TIMEOUT_MS)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield chromium
        chromium.close()


# The page marks itself busy (``<html data-busy>``) from the moment an edit schedules work
# until every answer it asked for is drawn (static/app.js, ``busy``).
_SETTLED = "() => !document.documentElement.hasAttribute('data-busy')"


def settled(page: Any) -> None:
    """Wait until the page has drawn every answer it asked for: nothing is re-drawn while a
    test reads or clicks the page (a redraw under the mouse loses the click)."""
    page.wait_for_function(_SETTLED, timeout=4 * TIMEOUT_MS)  # a deadline, not a delay
