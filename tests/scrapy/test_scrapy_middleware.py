"""``robotrules.scrapy.RobotsTxtMiddleware`` in real Scrapy crawls of sites on 127.0.0.1.

Sources: RFC 9309 2.2.1 (the crawler's product token picks its group), 2.3.1.2 (redirects
followed), 2.3.1.3 (4xx: "the crawler MAY access any resources on the server"), 2.3.1.4 (5xx,
429 and network errors: "the crawler MUST assume complete disallow"), 2.4 (a file is kept for a
lifetime, then fetched again); Scrapy's own middleware (scrapy/downloadermiddlewares/robotstxt.py:
the ``robots_parsed`` signal, ``robotstxt/*`` stats, "Forbidden by robots.txt" log lines); and
issue 36's reproduction: with Scrapy's middleware a 503 robots.txt was retried, its error page
parsed as the file, and every page crawled. All crawls run in one subprocess (``CrawlerProcess``,
one crawler per site, at once); the servers' own logs are the evidence.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import robotrules

pytest.importorskip("scrapy")

from tests.crawlee.conftest import PAGES, ROBOTS, Site, serving

DOC = Path(__file__).resolve().parents[2] / "docs" / "scrapy.md"


def _documented_settings() -> dict[str, Any]:
    """The settings block of docs/scrapy.md, as a project's settings.py would define them."""
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
                if "DOWNLOADER_MIDDLEWARES" in b]
    names: dict[str, Any] = {}
    exec(block, {}, names)
    return names


#: the crawls' settings: docs/scrapy.md's, as written
OURS = _documented_settings()
AGENT = OURS.pop("USER_AGENT")
#: a rule past RFC 9309 2.5's 500 KiB (robotrules reads 512,000 bytes, whole lines)
BIG = b"User-agent: examplebot\nDisallow: /private/\n" + b"#" * 600_000 + b"\nDisallow: /b\n"
#: Scrapy's own middleware with robotrules' parser: the reproduction of failing open
STOCK = {"ROBOTSTXT_PARSER": "robotrules.scrapy.RobotParser"}

SCRIPT = """\
import asyncio, json, sys

import scrapy
from scrapy import signals
from scrapy.crawler import CrawlerProcess


class SiteSpider(scrapy.Spider):
    later = ""

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.robots_parsed, signal=signals.robots_parsed)
        spider.parsed = []
        return spider

    def robots_parsed(self, robotparser, request):
        cls = type(robotparser)
        fetched = getattr(robotparser, "fetched", None)
        self.parsed.append([f"{cls.__module__}.{cls.__qualname__}",
                            fetched.summary if fetched is not None else None])

    async def start(self):
        yield scrapy.Request(self.base + "/")
        if self.later:  # asked after the robots.txt lifetime of the first answer
            await asyncio.sleep(3)
            yield scrapy.Request(self.base + self.later, dont_filter=True)

    def parse(self, response):
        yield from response.follow_all(css="a::attr(href)", callback=self.parse)

    def closed(self, reason):
        stats = self.crawler.stats
        RESULTS[self.name] = {
            "parsed": self.parsed, "reason": reason,
            "forbidden": stats.get_value("robotstxt/forbidden", 0),
            "requests": stats.get_value("robotstxt/request_count", 0),
        }


RESULTS = {}
plan = json.loads(sys.argv[1])
process = CrawlerProcess(settings={"USER_AGENT": plan["agent"], "ROBOTSTXT_OBEY": True,
                                   "TELNETCONSOLE_ENABLED": False, "LOG_LEVEL": "DEBUG",
                                   "RETRY_TIMES": 2})
for name, crawl in plan["crawls"].items():
    spider = type(name, (SiteSpider,), {"name": name, "base": crawl["base"],
                                        "later": crawl["later"],
                                        "custom_settings": crawl["settings"]})
    process.crawl(spider)
process.start()
with open(plan["out"], "w") as f:
    json.dump(RESULTS, f)
"""


@dataclass
class Crawl:
    site: Site
    settings: dict[str, Any]
    later: str = ""
    result: dict[str, Any] = field(default_factory=dict)
    log: list[str] = field(default_factory=list)  # the lines naming the site
    stderr: str = ""  # the whole log of all the crawls

    def pages(self) -> set[str]:
        return set(self.site.pages())


def _plan() -> dict[str, Crawl]:
    def site(robots: tuple[int, bytes, dict[str, str]]) -> Site:
        return Site(robots=robots)

    redirect = site((301, b"", {"Location": "/robots-live.txt"}))
    redirect.extra["/robots-live.txt"] = (200, ROBOTS, {})
    changing = Site(robots_sequence=[
        (200, b"User-agent: examplebot\nDisallow: /b\n", {"Cache-Control": "max-age=1"}),
        (200, b"User-agent: examplebot\nDisallow: /a\n", {})])
    return {
        "ok": Crawl(site((200, ROBOTS, {})), OURS),
        "gone": Crawl(site((404, b"not here", {})), OURS),
        "busy": Crawl(site((503, b"<html>busy</html>", {})), OURS),
        "slowdown": Crawl(site((429, b"slow down", {"Retry-After": "60"})), OURS),
        "silent": Crawl(site((0, b"", {})), {**OURS, "DOWNLOAD_TIMEOUT": 2}),
        "moved": Crawl(redirect, OURS),
        "changing": Crawl(changing, {**OURS, "ROBOTRULES_MIN_TTL": 0}, later="/b"),
        "stock_busy": Crawl(site((503, b"<html>busy</html>", {})), STOCK),
        "big": Crawl(site((200, BIG, {})), OURS),
        "picky": Crawl(site((200, ROBOTS, {})), {**OURS, "ROBOTSTXT_USER_AGENT": "pickybot"}),
        "paced": Crawl(site((200, b"User-agent: examplebot\nCrawl-delay: 1\nDisallow: /private/\n",
                             {})), OURS),
    }


@pytest.fixture(scope="module")
def crawls(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Crawl]:
    plan = _plan()
    out = tmp_path_factory.mktemp("scrapy") / "results.json"
    src = str(Path(robotrules.__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    env.pop("SCRAPY_SETTINGS_MODULE", None)
    with ExitStack() as stack:
        for crawl in plan.values():
            stack.enter_context(serving(crawl.site))
        arg = json.dumps({"agent": AGENT, "out": str(out), "crawls": {
            name: {"base": c.site.base, "settings": c.settings, "later": c.later}
            for name, c in plan.items()}})
        script = out.parent / "crawl.py"  # a file: Scrapy reads its callbacks' source
        script.write_text(SCRIPT)
        proc = subprocess.run([sys.executable, str(script), arg], env=env, cwd=out.parent,
                              capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-4000:]
    results = json.loads(out.read_text())
    for name, crawl in plan.items():
        crawl.result = results[name]
        crawl.log = [line for line in proc.stderr.splitlines() if crawl.site.base in line]
        crawl.stderr = proc.stderr
    return plan


def _forbidden(crawl: Crawl) -> list[str]:
    return [line.split("Forbidden by robots.txt: ", 1)[1] for line in crawl.log
            if "Forbidden by robots.txt: " in line]


def test_a_file_decides_for_the_agent_scrapy_sends(crawls: dict[str, Crawl]) -> None:
    """RFC 9309 2.2.1: the User-Agent header's token (examplebot) picks its group; each refusal's
    log line says which line decided, and the signal carries robotrules' parser."""
    crawl = crawls["ok"]
    assert crawl.pages() == {"/", "/a", "/b", "/c"}
    assert crawl.result["forbidden"] == 2
    [(parser, summary)] = crawl.result["parsed"]
    assert parser == "robotrules.scrapy.RobotParser"
    assert summary.startswith("200: ")
    assert summary.endswith(", rules")
    reasons = _forbidden(crawl)
    assert len(reasons) == 2
    assert all("line 2 'Disallow: /private/' disallows it" in r for r in reasons)
    assert {agent for _, agent in crawl.site.seen} == {AGENT}  # robots.txt too
    assert crawl.site.paths().count("/robots.txt") == 1


def test_a_4xx_file_allows_everything(crawls: dict[str, Crawl]) -> None:
    """RFC 9309 2.3.1.3: a 4xx robots.txt is unavailable: the crawler MAY access anything."""
    assert crawls["gone"].pages() == set(PAGES)
    assert crawls["gone"].result["forbidden"] == 0


@pytest.mark.parametrize(("name", "why"), [("busy", "503"), ("slowdown", "429"),
                                           ("silent", "timeout")])
def test_an_unreachable_file_crawls_nothing_and_says_why(crawls: dict[str, Crawl], name: str,
                                                         why: str) -> None:
    """RFC 9309 2.3.1.4: 5xx, 429 (as Google) and network errors mean complete disallow. The
    file is asked for once (no retries by Scrapy's RetryMiddleware), the outage is logged once
    with its reason, and the start URL's refusal says the same."""
    crawl = crawls[name]
    assert crawl.pages() == set()
    assert crawl.site.paths() == ["/robots.txt"]
    assert crawl.result["forbidden"] == 1
    assert crawl.result["reason"] == "finished"
    outage = [line for line in crawl.log if "is unreachable" in line]
    assert len(outage) == 1
    assert why in outage[0]
    assert "RFC 9309 2.3.1.4" in outage[0]
    assert _forbidden(crawl) == [f"<GET {crawl.site.base}/>: {crawl.result['parsed'][0][1]}"]
    assert why in crawl.result["parsed"][0][1]
    assert "unreachable, disallow all" in crawl.result["parsed"][0][1]


def test_scrapys_own_middleware_fails_open_on_a_503(crawls: dict[str, Crawl]) -> None:
    """Issue 36's reproduction, kept as the contrast: Scrapy's middleware retries the 503,
    parses its error page as the file, and crawls every page."""
    crawl = crawls["stock_busy"]
    assert crawl.site.paths().count("/robots.txt") == 3  # RETRY_TIMES = 2
    assert crawl.pages() == {"/", "/a", "/b", "/c", "/private/x", "/private/y"}


def test_only_the_first_500_kib_of_a_file_is_read(crawls: dict[str, Crawl]) -> None:
    """RFC 9309 2.5: a parsing limit of at least 500 KiB; the rule past it is not read."""
    assert crawls["big"].pages() == {"/", "/a", "/b", "/c"}
    assert crawls["big"].result["parsed"][0][1].endswith("truncated at the size limit")


def test_a_redirected_file_is_followed(crawls: dict[str, Crawl]) -> None:
    """RFC 9309 2.3.1.2: redirects are followed (at least five)."""
    crawl = crawls["moved"]
    assert crawl.pages() == {"/", "/a", "/b", "/c"}
    assert crawl.site.paths().count("/robots-live.txt") == 1


def test_the_file_is_fetched_again_after_its_lifetime(crawls: dict[str, Crawl]) -> None:
    """RFC 9309 2.4 with ``Cache-Control: max-age=1`` (and ``ROBOTRULES_MIN_TTL = 0``): Scrapy
    kept the first answer for the whole run; here /b, refused by the first file, is asked for
    again after its lifetime and crawled under the second, which is announced again."""
    crawl = crawls["changing"]
    assert crawl.site.paths().count("/robots.txt") == 2
    assert "/b" in crawl.pages()
    assert len(crawl.result["parsed"]) == 2
    assert crawl.result["requests"] == 2


def test_crawl_delay_spaces_the_requests_of_a_site(crawls: dict[str, Crawl]) -> None:
    """Scrapy applies no robots.txt Crawl-delay of its own; the middleware makes it the least
    delay of the site's download slot: the server saw its pages at least 1 s apart."""
    crawl = crawls["paced"]
    assert sorted(crawl.pages()) == ["/", "/a", "/b", "/c"]
    stamps = [t for (path, _), t in zip(crawl.site.seen, crawl.site.stamps, strict=True)
              if path != "/robots.txt"]
    gaps = [later - earlier for earlier, later in itertools.pairwise(stamps)]
    assert len(gaps) == 3
    # measured at the server: one arrival's delay can exceed the next one's on a busy machine,
    # so each gap has 0.25 s of slack; unpaced, the pages come milliseconds apart
    assert min(gaps) >= 0.75, gaps
    assert sum(gaps) >= 2.75, gaps


def test_robotstxt_user_agent_is_checked_and_a_mismatch_warned(crawls: dict[str, Crawl]) -> None:
    """``ROBOTSTXT_USER_AGENT`` picks the agent robots.txt is checked for, as in Scrapy (pickybot
    has no group: ``*`` applies, RFC 9309 2.2.1), and since the pages still go out as
    examplebot, the crawl's start says so (issue 36: "a mismatch is refused or warned about,
    never silent")."""
    crawl = crawls["picky"]
    assert crawl.pages() == {"/", "/b", "/private/x"}  # "*": Disallow: /a
    assert {agent for _, agent in crawl.site.seen} == {AGENT}
    warned = [line for line in crawl.stderr.splitlines()
              if "is not the product token of USER_AGENT" in line]
    assert len(warned) == 1  # the one crawl with a ROBOTSTXT_USER_AGENT
    assert "'pickybot'" in warned[0]
    assert "'examplebot'" in warned[0]


def test_without_the_asyncio_reactor_the_middleware_refuses_to_start(tmp_path: Path) -> None:
    """A middleware that cannot fetch robots.txt must not leave the crawl unchecked (Scrapy's
    NotConfigured would drop it silently): the crawl fails, naming the setting."""
    script = tmp_path / "crawl.py"
    script.write_text(
        "import scrapy\nfrom scrapy.crawler import CrawlerProcess\n"
        "class S(scrapy.Spider):\n    name = 's'\n    start_urls = ['http://127.0.0.1:9/']\n"
        f"settings = {{**{OURS!r}, 'TWISTED_REACTOR': "
        "'twisted.internet.epollreactor.EPollReactor', 'TELNETCONSOLE_ENABLED': False}\n"
        "process = CrawlerProcess(settings=settings)\nprocess.crawl(S)\nprocess.start()\n")
    src = str(Path(robotrules.__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, str(script)], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=False)
    assert "needs the asyncio reactor" in done.stderr
    assert "Spider opened" not in done.stderr  # the crawl never started
