"""``robotrules.crawlee`` with the real Crawlee for Python, crawling a site on 127.0.0.1.

Sources: Crawlee's ``RobotsTxtFile`` (crawlee/_utils/robots.py: ``from_content``, ``load``,
``find``, ``is_allowed``, ``get_sitemaps``, ``get_crawl_delay``; the crawler's
``respect_robots_txt_file`` skips disallowed requests), RFC 9309 2.3.1.4 (an unreachable
robots.txt, a 5xx: complete disallow) and 2.4 (a cached answer is kept at most 24 hours),
issue 25 ("a 5xx read as allow-all and cached for the whole run"). The server's own log of
requests is the evidence of what the crawler fetched.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("crawlee")

from crawlee._utils.robots import RobotsTxtFile as CrawleeRobotsTxtFile
from crawlee.crawlers import HttpCrawler, HttpCrawlingContext
from crawlee.storage_clients import MemoryStorageClient

from crawlee import Request
from robotrules.crawlee import RobotsTxtFile, use_robotrules
from robotrules.fetch import AsyncRobotsClient

ROBOTS = b"""User-agent: *
Disallow: /private/
Crawl-delay: 0.5
Sitemap: /sitemap.xml
Sitemap: https://elsewhere.example/sitemap.xml
"""
PAGES = {
    "/": '<a href="/a">a</a> <a href="/private/x">x</a> <a href="/b">b</a>',
    "/a": '<a href="/private/y">y</a> <a href="/c">c</a>',
    "/b": "b",
    "/c": "c",
    "/private/x": "secret",
    "/private/y": "secret",
}


@dataclass
class Site:
    """A small site on 127.0.0.1; ``robots`` is (status, body) of /robots.txt."""

    robots: tuple[int, bytes] = (200, ROBOTS)
    hits: list[str] = field(default_factory=list)
    base: str = ""


@pytest.fixture
def site() -> Iterator[Site]:
    s = Site()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            s.hits.append(self.path)
            if self.path == "/robots.txt":
                status, body = s.robots
                kind = "text/plain"
            elif self.path in PAGES:
                status, body, kind = 200, PAGES[self.path].encode(), "text/html"
            else:
                status, body, kind = 404, b"not found", "text/plain"
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    s.base = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield s
    httpd.shutdown()
    httpd.server_close()


async def _crawl(site: Site, client: AsyncRobotsClient) -> tuple[list[str], list[str]]:
    """A Crawlee crawl of ``site`` from its home page: (paths handled, paths skipped)."""
    crawler = HttpCrawler(storage_client=MemoryStorageClient(), max_requests_per_crawl=20,
                          configure_logging=False)
    use_robotrules(crawler, client)
    handled: list[str] = []
    skipped: list[str] = []

    @crawler.router.default_handler
    async def handle(ctx: HttpCrawlingContext) -> None:
        handled.append(ctx.request.url.removeprefix(site.base))
        html = (await ctx.http_response.read()).decode()
        await ctx.add_requests([site.base + p for p in re.findall(r'href="([^"]+)"', html)])

    @crawler.on_skipped_request
    async def skip(request: Request | str, reason: str) -> None:
        url = request.url if isinstance(request, Request) else request
        skipped.append(f"{url.removeprefix(site.base)} ({reason})")

    await crawler.run([site.base + "/"])
    return sorted(handled), sorted(skipped)


def test_a_crawlee_crawl_honours_robots_txt(site: Site) -> None:
    async def run() -> tuple[list[str], list[str]]:
        async with AsyncRobotsClient(user_agent="examplebot/1.0") as client:
            return await _crawl(site, client)

    handled, skipped = asyncio.run(run())
    assert handled == ["/", "/a", "/b", "/c"]
    assert skipped == ["/private/x (robots_txt)", "/private/y (robots_txt)"]
    assert not [p for p in site.hits if p.startswith("/private/")]
    assert site.hits.count("/robots.txt") == 1  # one fetch, then the client's cache


def test_a_5xx_robots_txt_stops_the_crawl_and_is_fetched_again_later(site: Site) -> None:
    """RFC 9309 2.3.1.4: a 5xx means complete disallow (Crawlee users saw allow-all). The
    answer is the client's cache entry, not the crawl's: once it expires the file is asked
    for again, and a crawl that finds it back crawls."""
    site.robots = (503, b"busy")
    now = [1_800_000_000.0]

    async def run() -> tuple[tuple[list[str], list[str]], tuple[list[str], list[str]], str]:
        async with AsyncRobotsClient(clock=lambda: now[0]) as client:
            first = await _crawl(site, client)
            why = (await client.explain(site.base + "/")).detail
            site.robots = (200, ROBOTS)
            now[0] += 24 * 3600 + 1  # past any cache lifetime (RFC 9309 2.4: 24 h at most)
            second = await _crawl(site, client)
            return first, second, why

    first, second, why = asyncio.run(run())
    assert first == ([], ["/ (robots_txt)"])
    assert "503" in why
    assert second[0] == ["/", "/a", "/b", "/c"]
    assert site.hits.count("/robots.txt") == 2


def test_the_api_answers_as_crawlees_does_on_a_plain_file() -> None:
    """Crawlee's own class is the oracle for what its API returns on a plain file."""
    url = "https://shop.example/robots.txt"

    async def both() -> tuple[RobotsTxtFile, CrawleeRobotsTxtFile]:
        return (await RobotsTxtFile.from_content(url, ROBOTS.decode()),
                await CrawleeRobotsTxtFile.from_content(url, ROBOTS.decode()))

    ours, theirs = asyncio.run(both())
    for path in ("/", "/private/", "/private/a", "/public/private/", "/privatex"):
        page = "https://shop.example" + path
        assert ours.is_allowed(page, "*") == theirs.is_allowed(page, "*"), path
    other = "https://other.example/private/"
    assert ours.is_allowed(other) is theirs.is_allowed(other) is True  # not this origin's
    # The absolute entry both keep; the relative one ("/sitemap.xml") robotrules resolves
    # against the file's URL, where Crawlee (protego) drops it as having no http(s) scheme.
    assert theirs.get_sitemaps(enqueue_strategy="all") == [
        "https://elsewhere.example/sitemap.xml"]
    assert ours.get_sitemaps(enqueue_strategy="all") == [
        "https://shop.example/sitemap.xml", "https://elsewhere.example/sitemap.xml"]
    assert theirs.get_sitemaps(enqueue_strategy="same-hostname") == []
    assert ours.get_sitemaps(enqueue_strategy="same-hostname") == [
        "https://shop.example/sitemap.xml"]
    assert theirs.get_crawl_delay() == 0  # Crawlee truncates 0.5 s to none
    assert ours.get_crawl_delay() == 1  # robotrules rounds up: the file asked for a pause
    verdict = ours.explain("https://shop.example/private/a", "*")
    assert (verdict.allowed, verdict.line) == (False, 2)
    assert "Disallow: /private/" in verdict.detail


def test_load_and_find_go_through_the_fetch_policy(site: Site) -> None:
    async def run() -> tuple[RobotsTxtFile, RobotsTxtFile]:
        async with AsyncRobotsClient() as client:
            loaded = await RobotsTxtFile.load(site.base + "/robots.txt", client=client)
            found = await RobotsTxtFile.find(site.base + "/a/page", client=client)
            return loaded, found

    loaded, found = asyncio.run(run())
    assert loaded.fetched is not None
    assert loaded.fetched.outcome == "rules"
    assert loaded.get_sitemaps() == [site.base + "/sitemap.xml",
                                     "https://elsewhere.example/sitemap.xml"]
    assert not found.is_allowed(site.base + "/private/x")
    assert found.is_allowed(site.base + "/a")
    assert site.hits.count("/robots.txt") == 1  # find() was answered from the cache
