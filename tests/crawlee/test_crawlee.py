"""``robotrules.crawlee`` with the real Crawlee for Python, crawling a site on 127.0.0.1.

Sources: Crawlee's ``RobotsTxtFile`` and crawler hooks (crawlee 1.11: crawlee/_utils/robots.py,
``BasicCrawler._get_robots_txt_file_for_url``, ``PlaywrightCrawler._find_txt_file_for_url``,
``ThrottlingRequestManager.set_crawl_delay``); RFC 9309 2.2.1 (the crawler's own product token
picks its group), 2.3.1.2 (redirects are followed), 2.3.1.3 (4xx: allow all), 2.3.1.4 (5xx,
429, network errors: complete disallow), 2.4 (a cached answer is kept at most 24 hours); and
issue 36's reproduction (checks made for ``*`` or ``examplebot`` while the pages went out as
Crawlee's Firefox; a 503 robots.txt crawling nothing with no word of why; ``Crawl-delay: 0.5``
truncated to 0). The server's own log of (path, User-Agent) is the evidence.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import logging
import os
import re
import shutil
import subprocess
import sys
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("crawlee")

from crawlee._utils.robots import RobotsTxtFile as CrawleeRobotsTxtFile
from crawlee.crawlers import BasicCrawlingContext, HttpCrawler
from crawlee.http_clients import ImpitHttpClient
from crawlee.request_loaders import ThrottlingRequestManager
from crawlee.storage_clients import MemoryStorageClient
from crawlee.storages import RequestQueue

import robotrules
from crawlee import Request
from robotrules.crawlee import MAX_CRAWL_DELAY, RobotsTxtFile, use_robotrules
from robotrules.fetch import AsyncRobotsClient

from .conftest import AGENT, PAGES, ROBOTS, Site

CHROMIUM = os.environ.get("ROBOTRULES_CHROMIUM", "/usr/bin/chromium")
DOC = Path(__file__).resolve().parents[2] / "docs" / "crawlee.md"
SRC = str(Path(robotrules.__file__).resolve().parent.parent)  # the robotrules under test
#: examplebot's pages of the site (conftest.PAGES) under ROBOTS: /private/ is its only rule
EXAMPLEBOT_PAGES = ["/", "/a", "/b", "/c"]


async def _crawler(kind: str, **options: Any) -> Any:
    """A crawler of ``kind`` with a request queue of its own (Crawlee shares the default queue
    of every crawler in a process: a second crawl of a handled URL would crawl nothing)."""
    options.setdefault("storage_client", MemoryStorageClient())
    if "request_manager" not in options:
        options["request_manager"] = await RequestQueue.open(
            alias=uuid.uuid4().hex, storage_client=options["storage_client"])
    return _make(kind, **options)


def _make(kind: str, **options: Any) -> Any:
    options.setdefault("storage_client", MemoryStorageClient())
    options.setdefault("configure_logging", False)
    options.setdefault("max_requests_per_crawl", 20)
    if kind == "http":
        return HttpCrawler(**options)
    if kind == "beautifulsoup":
        from crawlee.crawlers import BeautifulSoupCrawler

        return BeautifulSoupCrawler(**options)
    if kind == "parsel":
        from crawlee.crawlers import ParselCrawler

        return ParselCrawler(**options)
    from crawlee.crawlers import PlaywrightCrawler

    return PlaywrightCrawler(browser_launch_options={
        "executable_path": CHROMIUM, "args": ["--no-sandbox", "--disable-dev-shm-usage"]},
        **options)


async def _crawl(site: Site, crawler: Any) -> tuple[list[str], list[str]]:
    """Crawl ``site`` from its home page: (paths handled, paths skipped), sorted. HttpCrawler
    has no link extractor: its handler adds the links; the others use ``enqueue_links``,
    which asks ``RobotsTxtFile.is_allowed`` with one argument."""
    handled: list[str] = []
    skipped: list[str] = []

    @crawler.router.default_handler
    async def handle(ctx: Any) -> None:
        handled.append(ctx.request.url.removeprefix(site.base))
        if isinstance(crawler, HttpCrawler):
            html = (await ctx.http_response.read()).decode()
            await ctx.add_requests([site.base + p for p in re.findall(r'href="([^"]+)"', html)])
        else:
            await ctx.enqueue_links()

    @crawler.on_skipped_request
    async def skip(url: str, reason: str) -> None:
        skipped.append(f"{url.removeprefix(site.base)} ({reason})")

    await crawler.run([site.base + "/"])
    return sorted(handled), sorted(skipped)


def _crawl_with(site: Site, client_options: dict[str, Any] | None = None, *,
                kind: str = "http") -> tuple[list[str], list[str], str]:
    """One crawl through a fresh robots client: (handled, skipped, the explanation of /)."""

    async def run() -> tuple[list[str], list[str], str]:
        async with AsyncRobotsClient(user_agent=AGENT, **(client_options or {})) as client:
            crawler = await _crawler(kind)
            use_robotrules(crawler, client)
            handled, skipped = await _crawl(site, crawler)
            return handled, skipped, (await client.explain(site.base + "/")).detail

    return asyncio.run(run())


@pytest.mark.parametrize("kind", ["http", "beautifulsoup", "parsel", "playwright"])
def test_each_crawler_checks_robots_txt_for_the_agent_it_sends(site: Site, kind: str) -> None:
    """Issue 36: the check was made for ``*`` (or examplebot) while the pages went out with
    Crawlee's browser User-Agent. Here the group for examplebot decides (RFC 9309 2.2.1: /a
    allowed, /private/ not), and every page and robots.txt request carries examplebot's
    header."""
    if kind == "playwright" and not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        pytest.skip(f"no Chromium at {CHROMIUM} (.ci/run installs Debian's chromium)")
    if kind in ("beautifulsoup", "parsel"):
        pytest.importorskip("bs4" if kind == "beautifulsoup" else "parsel")
    handled, skipped, _ = _crawl_with(site, kind=kind)
    assert handled == EXAMPLEBOT_PAGES
    assert skipped == ["/private/x (robots_txt)", "/private/y (robots_txt)"]
    assert not [p for p in site.paths() if p.startswith("/private/")]
    assert site.paths().count("/robots.txt") == 1  # once per origin: the client's cache
    agents = {agent for path, agent in site.seen if path != "/favicon.ico"}
    assert agents == {AGENT}


@pytest.mark.parametrize(("robots", "handled", "why"), [
    # RFC 9309 2.3.1.3: "If the server status code indicates that the robots.txt file is
    # unavailable to the crawler, then the crawler MAY access any resources on the server."
    ((404, b"gone", {}), ["/", "/a", "/b", "/c", "/private/x", "/private/y"], "404"),
    # 2.3.1.4: "If the robots.txt file is unreachable due to server or network errors, ...
    # the crawler MUST assume complete disallow." Google reads 429 the same way.
    ((429, b"slow down", {"Retry-After": "120"}), [], "429"),
    ((503, b"busy", {}), [], "503"),
    ((0, b"", {}), [], "timeout"),
], ids=["404", "429", "503", "timeout"])
def test_each_robots_txt_outcome(site: Site, caplog: pytest.LogCaptureFixture,
                                 robots: tuple[int, bytes, dict[str, str]],
                                 handled: list[str], why: str) -> None:
    """Crawlee allowed everything on 429, timeouts and network errors; an unreachable file
    crawled nothing with no word of why (issue 36). Here the outcome decides, and the crawler's
    logger says why once for the origin, with each skipped URL's reason."""
    site.robots = robots
    caplog.set_level(logging.INFO)
    crawled, skipped, detail = _crawl_with(site, {"timeout": 1.0})
    assert crawled == handled
    assert why in detail
    outages = [r for r in caplog.records if "is unreachable" in r.getMessage()]
    if handled:
        assert skipped == []
        assert outages == []
        return
    assert skipped == ["/ (robots_txt)"]
    assert site.pages() == []
    assert len(outages) == 1  # once per origin and outage
    assert why in outages[0].getMessage()
    assert "RFC 9309 2.3.1.4" in outages[0].getMessage()
    assert outages[0].name == "HttpCrawler"  # the crawler's own logger (crawler.log)
    reasons = [r.getMessage() for r in caplog.records if "robots.txt: skipped" in r.getMessage()]
    assert reasons == [f"robots.txt: skipped {site.base}/: {detail}"]


def test_a_redirected_robots_txt_is_followed(site: Site) -> None:
    """RFC 9309 2.3.1.2: crawlers "SHOULD follow at least five consecutive redirects"."""
    site.robots = (301, b"", {"Location": "/robots-live.txt"})
    site.extra["/robots-live.txt"] = (200, ROBOTS, {})
    handled, skipped, _ = _crawl_with(site)
    assert handled == EXAMPLEBOT_PAGES
    assert skipped == ["/private/x (robots_txt)", "/private/y (robots_txt)"]
    assert site.paths().count("/robots-live.txt") == 1


def test_the_file_is_fetched_again_when_its_lifetime_ends(site: Site) -> None:
    """RFC 9309 2.4: a cached file SHOULD NOT be used for more than 24 hours. Crawlee kept each
    origin's answer for the whole run; here the client's cache decides. Three crawls by one
    client: the 503 crawls nothing, the file found back crawls, then a changed file (max-age
    60) is obeyed once the lifetime of the one before ends."""
    site.robots = (503, b"busy", {})
    now = [1_800_000_000.0]

    async def run() -> list[tuple[list[str], list[str]]]:
        results = []
        async with AsyncRobotsClient(user_agent=AGENT, clock=lambda: now[0]) as client:
            for robots in [(200, ROBOTS, {"Cache-Control": "max-age=60"}),
                           (200, b"User-agent: examplebot\nDisallow: /b\n", {})]:
                crawler = await _crawler("http")
                use_robotrules(crawler, client)
                results.append(await _crawl(site, crawler))
                site.robots = robots
                now[0] += 3601  # past the 503's back-off and the file's max-age
            crawler = await _crawler("http")
            use_robotrules(crawler, client)
            results.append(await _crawl(site, crawler))
        return results

    first, second, third = asyncio.run(run())
    assert first == ([], ["/ (robots_txt)"])
    assert second[0] == EXAMPLEBOT_PAGES
    assert third == (["/", "/a", "/c", "/private/x", "/private/y"], ["/b (robots_txt)"])
    assert site.paths().count("/robots.txt") == 3


def test_crawl_delay_reaches_crawlees_throttling_as_a_float(site: Site) -> None:
    """Crawlee passes ``get_crawl_delay()`` to ``ThrottlingRequestManager.set_crawl_delay``,
    which spaces a domain's requests by ``timedelta(seconds=delay)``. ``Crawl-delay: 0.5``
    reached it as 0 (``int()``); here 0.5 s, and the server saw the pages that far apart."""
    site.robots = (200, b"User-agent: examplebot\nCrawl-delay: 0.5\nDisallow: /private/\n", {})

    async def run() -> ThrottlingRequestManager[RequestQueue]:
        storage = MemoryStorageClient()
        queue = await RequestQueue.open(storage_client=storage)

        async def opener(**kwargs: Any) -> RequestQueue:
            kwargs["storage_client"] = storage
            return await RequestQueue.open(**kwargs)

        manager = ThrottlingRequestManager(queue, domains=["127.0.0.1"],
                                           request_manager_opener=opener)
        crawler = await _crawler("http", storage_client=storage, request_manager=manager)
        robots = use_robotrules(crawler, user_agent=AGENT)
        try:
            await _crawl(site, crawler)
        finally:
            await robots.aclose()
        return manager

    manager = asyncio.run(run())
    assert manager._domain_states["127.0.0.1"].crawl_delay == timedelta(seconds=0.5)
    assert sorted(site.pages()) == EXAMPLEBOT_PAGES
    stamps = [t for (path, _), t in zip(site.seen, site.stamps, strict=True)
              if path != "/robots.txt"]
    gaps = [later - earlier for earlier, later in itertools.pairwise(stamps)]
    assert len(gaps) == 3
    # measured at the server: each gap has 0.15 s of slack for arrival jitter on a busy
    # machine; unpaced, the pages come milliseconds apart
    assert min(gaps) >= 0.35, gaps
    assert sum(gaps) >= 1.35, gaps


def test_a_huge_crawl_delay_is_capped_not_overflowed(
        site: Site, caplog: pytest.LogCaptureFixture) -> None:
    """A hostile ``Crawl-delay: 99999999999999999`` (1e17 s): Crawlee's own class hands it to
    ``set_crawl_delay``, whose ``timedelta`` raises OverflowError; here the delay is capped at
    MAX_CRAWL_DELAY (30 s, the pacer's default) and the cap logged once per origin."""
    from crawlee.request_loaders._throttling_request_manager import _DomainState

    body = b"User-agent: *\nCrawl-delay: 99999999999999999\nDisallow: /x\n"
    site.robots = (200, body, {})
    caplog.set_level(logging.WARNING)
    crawler = _make("http")
    robots = use_robotrules(crawler, user_agent=AGENT)

    async def files() -> tuple[list[RobotsTxtFile], CrawleeRobotsTxtFile]:
        try:
            ours = [await crawler._get_robots_txt_file_for_url(site.base + "/") for _ in "ab"]
            return ours, await CrawleeRobotsTxtFile.from_content(site.base, body.decode())
        finally:
            await robots.aclose()

    ours, theirs = asyncio.run(files())
    manager = ThrottlingRequestManager.__new__(ThrottlingRequestManager)
    manager._domain_states = {"127.0.0.1": _DomainState(domain="127.0.0.1")}
    with pytest.raises(OverflowError):
        manager.set_crawl_delay(site.base, theirs.get_crawl_delay() or 0)
    assert [f.get_crawl_delay() for f in ours * 2] == [MAX_CRAWL_DELAY] * 4 == [30.0] * 4
    manager.set_crawl_delay(site.base, ours[0].get_crawl_delay())  # type: ignore[arg-type]
    assert manager._domain_states["127.0.0.1"].crawl_delay == timedelta(seconds=30)
    capped = [r.getMessage() for r in caplog.records if "Crawl-delay" in r.getMessage()]
    assert capped == [f"robots.txt of {site.base} asks for Crawl-delay 1e+17 s; 30 s is handed "
                      "to Crawlee's throttling (max_crawl_delay)"]


def test_the_agent_is_read_from_the_crawlers_client_and_a_mismatch_refused(site: Site) -> None:
    """Issue 36: "read it from the crawler's client, or set the client's header ... a mismatch
    is refused or warned about, never silent"."""
    crawler = _make("http", http_client=ImpitHttpClient(headers={"User-Agent": AGENT}))
    robots = use_robotrules(crawler)
    assert robots.user_agent == AGENT
    assert robots.token == "examplebot"
    asyncio.run(robots.aclose())
    other = _make("http", http_client=ImpitHttpClient(headers={"User-Agent": "otherbot/2"}))
    with pytest.raises(ValueError, match=r"otherbot/2.*examplebot|examplebot.*otherbot/2"):
        use_robotrules(other, user_agent=AGENT)

    async def mismatched_client() -> None:
        async with AsyncRobotsClient(user_agent="otherbot/2") as client:
            use_robotrules(_make("http"), client, user_agent=AGENT)

    with pytest.raises(ValueError, match="differ"):
        asyncio.run(mismatched_client())


def test_a_request_asking_for_another_agent_is_sent_as_checked(
        site: Site, caplog: pytest.LogCaptureFixture) -> None:
    """A request that carries its own User-Agent would be sent as an agent robots.txt was not
    checked for: it goes out with the checked one, and a warning says so."""
    caplog.set_level(logging.WARNING)

    async def run() -> list[str]:
        async with AsyncRobotsClient(user_agent=AGENT) as client:
            crawler = await _crawler("http")
            use_robotrules(crawler, client)
            handled: list[str] = []

            @crawler.router.default_handler
            async def handle(ctx: BasicCrawlingContext) -> None:
                handled.append(ctx.request.url)

            await crawler.run([Request.from_url(site.base + "/b",
                                                headers={"User-Agent": "Mozilla/5.0 Firefox"})])
            return handled

    assert asyncio.run(run()) == [site.base + "/b"]
    assert site.seen == [("/robots.txt", AGENT), ("/b", AGENT)]
    assert any("'Mozilla/5.0 Firefox'" in r.getMessage() and "sent as" in r.getMessage()
               for r in caplog.records)


def test_the_api_answers_as_crawlees_does_on_a_plain_file() -> None:
    """Crawlee's own class is the oracle for what its API returns on a plain file."""
    url = "https://shop.example/robots.txt"
    text = ("User-agent: *\nDisallow: /private/\nCrawl-delay: 0.5\nSitemap: /sitemap.xml\n"
            "Sitemap: https://elsewhere.example/sitemap.xml\n")

    async def both() -> tuple[RobotsTxtFile, CrawleeRobotsTxtFile]:
        return (await RobotsTxtFile.from_content(url, text),
                await CrawleeRobotsTxtFile.from_content(url, text))

    ours, theirs = asyncio.run(both())
    for path in ("/", "/private/", "/private/a", "/public/private/", "/privatex"):
        page = "https://shop.example" + path
        assert ours.is_allowed(page, "*") == theirs.is_allowed(page, "*"), path
        assert ours.is_allowed(page) == theirs.is_allowed(page), path  # one argument
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
    assert ours.get_crawl_delay() == 0.5
    verdict = ours.explain("https://shop.example/private/a", "*")
    assert (verdict.allowed, verdict.line) == (False, 2)
    assert "Disallow: /private/" in verdict.detail
    # the signatures Crawlee calls: enqueue_strategy keyword-only on the sitemap methods
    for name in ("get_sitemaps", "parse_sitemaps", "parse_urls_from_sitemaps"):
        for cls in (RobotsTxtFile, CrawleeRobotsTxtFile):
            kind = inspect.signature(getattr(cls, name)).parameters["enqueue_strategy"].kind
            assert kind is inspect.Parameter.KEYWORD_ONLY, (cls, name)


def test_load_and_find_go_through_the_fetch_policy(site: Site) -> None:
    async def run() -> tuple[RobotsTxtFile, RobotsTxtFile]:
        async with AsyncRobotsClient(user_agent=AGENT) as client:
            loaded = await RobotsTxtFile.load(site.base + "/robots.txt", client=client)
            found = await RobotsTxtFile.find(site.base + "/a/page", client=client)
            return loaded, found

    loaded, found = asyncio.run(run())
    assert loaded.fetched is not None
    assert loaded.fetched.outcome == "rules"
    assert loaded.token == "examplebot"
    assert not found.is_allowed(site.base + "/private/x")
    assert found.is_allowed(site.base + "/a")  # examplebot's group, not "*"'s
    assert not found.is_allowed(site.base + "/a", "*")
    assert site.paths().count("/robots.txt") == 1  # find() was answered from the cache


def test_the_hooks_every_crawler_asks_are_replaced() -> None:
    """Crawlee 1.11: ``_is_allowed_based_on_robots_txt_file`` and ``enqueue_links`` ask
    ``_get_robots_txt_file_for_url``, which asks ``_find_txt_file_for_url`` (overridden by the
    Playwright crawler); both answer through robotrules, and the checks are on."""
    crawler = _make("http")
    robots = use_robotrules(crawler, user_agent=AGENT)
    assert crawler._respect_robots_txt_file is True

    async def ask() -> tuple[Any, Any]:
        try:
            return (await crawler._find_txt_file_for_url("http://127.0.0.1:9/x"),
                    await crawler._get_robots_txt_file_for_url("http://127.0.0.1:9/x"))
        finally:
            await robots.aclose()

    found, got = asyncio.run(ask())  # port 9 (discard): nothing answers, unreachable
    for answer in (found, got):
        assert isinstance(answer, RobotsTxtFile)
        assert answer.token == "examplebot"
        assert answer.is_allowed("http://127.0.0.1:9/x") is False


def test_the_docs_examples_run_as_written(site: Site, tmp_path: Path) -> None:
    """docs/crawlee.md's example, saved as crawl.py and run as the page says
    (``python crawl.py URL``), against the site: it crawls examplebot's pages, says why each
    skipped URL was skipped, and sends the one User-Agent; its throttling block builds a
    crawler."""
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    script, throttled = blocks
    (tmp_path / "crawl.py").write_text(script)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "crawl.py", site.base + "/"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert sorted(line for line in lines if line.startswith("crawled")) == [
        f"crawled {site.base}{path}" for path in EXAMPLEBOT_PAGES]
    why = "line 2 'Disallow: /private/' disallows it (the group for 'examplebot' (line 1) applies)"
    assert sorted(line for line in lines if line.startswith("skipped")) == [
        f"skipped {site.base}/private/x - {why}", f"skipped {site.base}/private/y - {why}"]
    assert {agent for _, agent in site.seen} == {"examplebot/1.0 (+https://example.org/bot)"}
    built = subprocess.run(
        [sys.executable, "-c", throttled + "import asyncio\n"
         "print(type(asyncio.run(throttled_crawler())).__name__)"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert built.stdout.split() == ["BeautifulSoupCrawler"], built.stderr[-3000:]


def test_only_the_first_500_kib_of_a_file_is_read(site: Site) -> None:
    """RFC 9309 2.5: crawlers MUST parse at least 500 KiB (robotrules reads 512,000 bytes, whole
    lines only). A rule past the limit is not read: /b is crawled, /private/ still refused."""
    body = b"User-agent: examplebot\nDisallow: /private/\n" + b"#" * 600_000 + b"\nDisallow: /b\n"
    site.robots = (200, body, {})
    handled, skipped, _ = _crawl_with(site)
    assert handled == EXAMPLEBOT_PAGES
    assert skipped == ["/private/x (robots_txt)", "/private/y (robots_txt)"]


def test_crawlees_own_check_fails_open_where_robotrules_does_not(site: Site) -> None:
    """Issue 36's reproduction, kept as the contrast: Crawlee's own robots.txt check
    (``respect_robots_txt_file=True``) reads a 429 as "allow everything", and on a 200 file
    decides for ``*`` while the pages go out with its browser User-Agent."""
    site.robots = (429, b"slow down", {})

    async def own() -> tuple[list[str], list[str]]:
        return await _crawl(site, await _crawler("http", respect_robots_txt_file=True))

    assert asyncio.run(own())[0] == sorted(["/", *PAGES.keys() - {"/"}])
    site.robots, site.seen[:] = (200, ROBOTS, {}), []
    handled, _ = asyncio.run(own())
    assert "/a" not in handled  # "*"'s rule, not examplebot's
    assert "/private/x" in handled
    assert AGENT not in {agent for _, agent in site.seen}


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -1.0])
def test_a_bad_max_crawl_delay_is_refused(bad: float) -> None:
    """A NaN cap compares false with every delay and would hand Crawlee no cap at all."""
    with pytest.raises(ValueError, match="max_crawl_delay"):
        use_robotrules(_make("http"), user_agent=AGENT, max_crawl_delay=bad)
