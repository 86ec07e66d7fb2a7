"""``ROBOTSTXT_PARSER = "robotrules.scrapy.RobotParser"`` in a real Scrapy project.

Source: issue 7 ("tested by a real Scrapy crawl of a local site: the crawl skips exactly the
disallowed pages") and Scrapy's documented parser interface (``scrapy.robotstxt.RobotParser``,
``ROBOTSTXT_USER_AGENT``). Each crawl is ``scrapy crawl`` in a subprocess, in a project
written to a temporary directory, against a site served on 127.0.0.1; the server's own log of
requests is the evidence. The crawls run concurrently to keep the suite fast.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import robotrules

pytest.importorskip("scrapy")

UA_HEADER = "examplebot/1.0 (+http://127.0.0.1/bot)"

ROBOTS = b"""\
User-agent: *
Disallow: /private/
Allow: /private/public-note.html
Disallow: /*.pdf$

User-agent: pickybot
Disallow: /blog/

User-agent: examplebot
Disallow: /private/
Disallow: /drafts/
Allow: /private/public-note.html
"""

LINKS = [
    "/about.html",
    "/blog/",
    "/blog/post-1.html",
    "/private/secret.html",
    "/private/public-note.html",
    "/drafts/x.html",
    "/report.pdf",
    "/report.pdf?download=1",
]
PAGES = {"/", *LINKS}


@dataclass
class Site:
    base: str = ""
    seen: list[tuple[str, str]] = field(default_factory=list)  # (path, User-Agent)

    def paths(self) -> set[str]:
        return {path for path, _ in self.seen}


def _serve(site: Site) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            site.seen.append((self.path, self.headers.get("User-Agent", "")))
            if self.path == "/robots.txt":
                body, kind, status = ROBOTS, "text/plain", 200
            elif self.path in PAGES:
                links = "".join(f'<a href="{link}">{link}</a>\n' for link in LINKS)
                body, kind, status = f"<html><body>{links}</body></html>".encode(), "text/html", 200
            else:
                body, kind, status = b"not found", "text/plain", 404
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    site.base = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
    ).start()
    return server


SETTINGS = f"""\
BOT_NAME = "siteproj"
SPIDER_MODULES = ["siteproj.spiders"]
USER_AGENT = "{UA_HEADER}"
ROBOTSTXT_OBEY = True
TELNETCONSOLE_ENABLED = False
LOG_LEVEL = "WARNING"
CONCURRENT_REQUESTS = 8
"""
SWITCH = 'ROBOTSTXT_PARSER = "robotrules.scrapy.RobotParser"\n'

SPIDER = """\
import json

import scrapy
from scrapy import signals


class SiteSpider(scrapy.Spider):
    name = "site"

    def __init__(self, start="", out="", **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [start]
        self.out = out
        self.parsers = []

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.robots_parsed, signal=signals.robots_parsed)
        return spider

    def robots_parsed(self, robotparser, request):
        cls = type(robotparser)
        self.parsers.append(f"{cls.__module__}.{cls.__qualname__}")

    def parse(self, response):
        yield {"url": response.url}
        yield from response.follow_all(css="a::attr(href)", callback=self.parse)

    def closed(self, reason):
        stats = self.crawler.stats
        with open(self.out, "w") as f:
            json.dump({
                "parsers": self.parsers,
                "forbidden": stats.get_value("robotstxt/forbidden", 0),
                "reason": reason,
            }, f)
"""


def _project(root: Path, *, switched: bool) -> Path:
    package = root / "siteproj"
    (package / "spiders").mkdir(parents=True)
    (root / "scrapy.cfg").write_text("[settings]\ndefault = siteproj.settings\n")
    (package / "__init__.py").write_text("")
    (package / "spiders" / "__init__.py").write_text("")
    (package / "spiders" / "site.py").write_text(SPIDER)
    (package / "settings.py").write_text(SETTINGS + (SWITCH if switched else ""))
    return root


@dataclass
class Crawl:
    name: str
    switched: bool
    extra: list[str]
    site: Site = field(default_factory=Site)
    summary: dict[str, object] = field(default_factory=dict)


@pytest.fixture(scope="module")
def crawls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Crawl]]:
    """Four crawls, run at once: the switched project as examplebot (UA header), as pickybot and
    otherbot (``ROBOTSTXT_USER_AGENT``), and the unswitched project (Scrapy's default, Protego)."""
    plan = [
        Crawl("examplebot", True, []),
        Crawl("pickybot", True, ["-s", "ROBOTSTXT_USER_AGENT=pickybot"]),
        Crawl("otherbot", True, ["-s", "ROBOTSTXT_USER_AGENT=otherbot"]),
        Crawl("protego", False, []),
    ]
    src = str(Path(robotrules.__file__).resolve().parent.parent)
    servers, procs = [], []
    for crawl in plan:
        servers.append(_serve(crawl.site))
        root = _project(tmp_path_factory.mktemp(crawl.name), switched=crawl.switched)
        out = root / "summary.json"
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([src, str(root), os.environ.get("PYTHONPATH", "")]),
        }
        env.pop("SCRAPY_SETTINGS_MODULE", None)
        cmd = [sys.executable, "-m", "scrapy", "crawl", "site",
               "-a", f"start={crawl.site.base}/", "-a", f"out={out}", *crawl.extra]  # fmt: skip
        proc = subprocess.Popen(
            cmd, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        procs.append((crawl, proc, out))
    try:
        for crawl, proc, out in procs:
            log, _ = proc.communicate(timeout=120)
            assert proc.returncode == 0, log
            assert out.exists(), log
            crawl.summary = json.loads(out.read_text())
        yield {crawl.name: crawl for crawl in plan}
    finally:
        for _, proc, _ in procs:
            if proc.poll() is None:
                proc.kill()
        for server in servers:
            server.shutdown()
            server.server_close()


ALL = {"/robots.txt", *PAGES}


def test_switched_project_uses_robotrules(crawls: dict[str, Crawl]) -> None:
    for name in ("examplebot", "pickybot", "otherbot"):
        assert crawls[name].summary["parsers"] == ["robotrules.scrapy.RobotParser"]
        assert crawls[name].summary["reason"] == "finished"
    assert crawls["protego"].summary["parsers"] == ["scrapy.robotstxt.ProtegoRobotParser"]


def test_ua_header_token_selects_its_group(crawls: dict[str, Crawl]) -> None:
    """No ROBOTSTXT_USER_AGENT: Scrapy passes the User-Agent header, whose product token
    (``examplebot``) picks its own group (RFC 9309 2.2.1); the ``*`` group's ``/*.pdf$`` does
    not apply to it, because ``*`` is only a fallback."""
    crawl = crawls["examplebot"]
    skipped = {"/private/secret.html", "/drafts/x.html"}
    assert crawl.site.paths() == ALL - skipped
    assert crawl.summary["forbidden"] == len(skipped)
    assert {ua for _, ua in crawl.site.seen} == {UA_HEADER}


def test_robotstxt_user_agent_is_respected(crawls: dict[str, Crawl]) -> None:
    """``ROBOTSTXT_USER_AGENT=pickybot`` picks the pickybot group; the header is unchanged."""
    crawl = crawls["pickybot"]
    skipped = {"/blog/", "/blog/post-1.html"}
    assert crawl.site.paths() == ALL - skipped
    assert crawl.summary["forbidden"] == len(skipped)
    assert {ua for _, ua in crawl.site.seen} == {UA_HEADER}


def test_unknown_agent_falls_back_to_star_with_longest_match(crawls: dict[str, Crawl]) -> None:
    """otherbot has no group: ``*`` applies. ``Allow: /private/public-note.html`` beats the
    shorter ``Disallow: /private/`` (RFC 9309 2.2.2), and ``/*.pdf$`` spares the query URL."""
    crawl = crawls["otherbot"]
    skipped = {"/private/secret.html", "/report.pdf"}
    assert crawl.site.paths() == ALL - skipped
    assert crawl.summary["forbidden"] == len(skipped)


def test_switch_keeps_the_project_working(crawls: dict[str, Crawl]) -> None:
    """The same project before the one-line switch fetches the same pages on this site."""
    assert crawls["protego"].site.paths() == crawls["examplebot"].site.paths()
