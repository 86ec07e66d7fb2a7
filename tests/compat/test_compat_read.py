"""``RobotFileParser.read()`` against a real HTTP server on 127.0.0.1.

Sources: CPython ``PasswordProtectedSiteTestCase`` (403) and ``NetworkTestCase`` (run here on
a local copy of ``www.pythontest.net/elsewhere/robots.txt``, taken from
python/pythontestdotnet ``www/elsewhere/robots.txt``), the stdlib documentation of ``read()``,
and RFC 9309 2.3.1 for the statuses the stdlib leaves undefined. Each test compares with the
real ``urllib.robotparser`` where the two are meant to agree.
"""

from __future__ import annotations

import socket
import urllib.robotparser
from typing import TYPE_CHECKING

import pytest

from robotrules.compat import RobotFileParser

if TYPE_CHECKING:
    from conftest import Site

# python/pythontestdotnet www/elsewhere/robots.txt
PYTHONTEST_ELSEWHERE = b"""\
# Used by NetworkTestCase in Lib/test/test_robotparser.py

User-agent: Nutch
Disallow: /
Allow: /brian/

User-agent: *
Disallow: /webstats/
"""


def _stdlib(url: str) -> urllib.robotparser.RobotFileParser:
    parser = urllib.robotparser.RobotFileParser(url)
    parser.read()
    return parser


def test_password_protected_site(site: Site) -> None:
    """Source: CPython ``PasswordProtectedSiteTestCase``: 403 means nothing may be fetched.

    Its handler answers 403 to every path; the test sets the site URL, not the file's.
    """
    site.routes["/"] = site.routes["/robots.txt"] = (403, b"Forbidden access", {})
    parser = RobotFileParser()
    parser.set_url(site.base)
    parser.read()
    robots_url = site.url("/robots.txt")
    assert parser.can_fetch("*", robots_url) is False


@pytest.mark.parametrize("status", [401, 403])
def test_auth_failure_default_is_stdlib_disallow(site: Site, status: int) -> None:
    """Source: stdlib ``read()``: 401/403 set ``disallow_all``."""
    site.routes["/robots.txt"] = (status, b"no", {})
    parser = RobotFileParser(site.url("/robots.txt"))
    parser.read()
    stdlib = _stdlib(site.url("/robots.txt"))
    assert (parser.disallow_all, parser.allow_all) == (stdlib.disallow_all, stdlib.allow_all)
    assert parser.disallow_all is True
    assert parser.can_fetch("*", site.url("/page")) is False
    verdict = parser.explain("*", site.url("/page"))
    assert verdict.detail == f"{status}: unavailable, disallow all (auth_failure='disallow')"


@pytest.mark.parametrize("status", [401, 403])
def test_auth_failure_allow_is_rfc9309(site: Site, status: int) -> None:
    """Source: RFC 9309 2.3.1.3: any 4xx is "unavailable" and the crawler may access anything."""
    site.routes["/robots.txt"] = (status, b"no", {})
    parser = RobotFileParser(site.url("/robots.txt"), auth_failure="allow")
    parser.read()
    assert parser.allow_all is True
    assert parser.can_fetch("*", site.url("/page")) is True
    assert parser.explain("*", site.url("/page")).reason == "unavailable"


@pytest.mark.parametrize("status", [404, 410, 400])
def test_read_4xx_allows_all(site: Site, status: int) -> None:
    """Source: CPython ``NetworkTestCase.test_read_404`` and RFC 9309 2.3.1.3."""
    site.routes["/robots.txt"] = (status, b"<html>gone</html>", {"Content-Type": "text/html"})
    parser = RobotFileParser(site.url("/robots.txt"))
    parser.read()
    assert parser.allow_all is True
    assert parser.disallow_all is False
    assert parser.mtime() == 0
    assert parser.crawl_delay("*") is None
    assert parser.request_rate("*") is None
    assert parser.can_fetch("*", site.url("/anything")) is True
    assert parser.status == status


@pytest.mark.parametrize("status", [500, 503, 429])
def test_read_5xx_and_429_disallow_all(site: Site, status: int) -> None:
    """Source: RFC 9309 2.3.1.4 (unreachable: complete disallow). The stdlib reads nothing on
    a 5xx and so denies everything too; it treats 429 as 4xx (allow), this does not."""
    site.routes["/robots.txt"] = (status, b"User-agent: *\nDisallow:\n", {})
    parser = RobotFileParser(site.url("/robots.txt"))
    parser.read()
    assert parser.disallow_all is True
    assert parser.can_fetch("*", site.url("/")) is False
    assert parser.explain("*", site.url("/")).reason == "unreachable"
    if status >= 500:
        assert _stdlib(site.url("/robots.txt")).can_fetch("*", site.url("/")) is False


def test_read_network_error_disallows_instead_of_raising() -> None:
    """Source: RFC 9309 2.3.1.4. The stdlib raises URLError here; this keeps the error."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again on exit: connection refused
    parser = RobotFileParser(f"http://127.0.0.1:{port}/robots.txt", timeout=5)
    parser.read()
    assert parser.disallow_all is True
    assert parser.error is not None
    assert parser.can_fetch("*", "/") is False


def test_read_200_network_test_case(site: Site) -> None:
    """Source: CPython ``NetworkTestCase.test_basic`` and ``test_can_fetch``, served locally.

    Adapted: ``can_fetch('Nutch', url('brian'))`` is True here. RFC 9309 2.2.2 picks the
    longest match (``Allow: /brian/`` beats ``Disallow: /``); the stdlib takes the first.
    """
    site.routes["/elsewhere/robots.txt"] = (200, PYTHONTEST_ELSEWHERE, {})
    parser = RobotFileParser(site.url("/elsewhere/robots.txt"))
    parser.read()
    stdlib = _stdlib(site.url("/elsewhere/robots.txt"))

    assert parser.disallow_all is False
    assert parser.allow_all is False
    assert parser.mtime() > 0
    assert not parser.crawl_delay("*")
    assert not parser.request_rate("*")

    def url(path: str) -> str:  # the CPython helper: a trailing / when there is no extension
        return f"{site.base}/{path}{'/' if '.' not in path else ''}"

    base = site.base + "/"
    same = [
        ("*", url("elsewhere"), True),
        ("Nutch", base, False),
        ("Nutch", url("webstats"), False),
        ("*", url("webstats"), False),
        ("*", base, True),
    ]
    for agent, target, expected in same:
        assert parser.can_fetch(agent, target) is expected, (agent, target)
        assert stdlib.can_fetch(agent, target) is expected, (agent, target)
    # The adaptation (longest match):
    assert parser.can_fetch("Nutch", url("brian")) is True
    assert stdlib.can_fetch("Nutch", url("brian")) is False


def test_read_sends_user_agent_and_fetches_the_url_as_given(site: Site) -> None:
    """Own case: ``user_agent=`` sets the header; the URL is fetched as set (not re-derived)."""
    site.routes["/elsewhere/robots.txt"] = (200, PYTHONTEST_ELSEWHERE, {})
    parser = RobotFileParser(
        site.url("/elsewhere/robots.txt"), user_agent="examplebot/1.0 (+http://127.0.0.1/)"
    )
    parser.read()
    assert site.seen == [("/elsewhere/robots.txt", "examplebot/1.0 (+http://127.0.0.1/)")]


def test_read_follows_redirects(site: Site) -> None:
    """Source: RFC 9309 2.3.1.2 (follow redirects); urllib follows them as the stdlib does."""
    site.routes["/robots.txt"] = (301, b"", {"Location": "/real-robots.txt"})
    site.routes["/real-robots.txt"] = (200, b"User-agent: *\nDisallow: /private/\n", {})
    parser = RobotFileParser(site.url("/robots.txt"))
    parser.read()
    assert parser.can_fetch("*", "/private/x") is False
    assert parser.can_fetch("*", "/public") is True


def test_read_redirect_loop_is_unavailable(site: Site) -> None:
    """Source: RFC 9309 2.3.1.2: past the redirect limit the file MAY count as unavailable."""
    site.routes["/robots.txt"] = (302, b"", {"Location": "/robots.txt"})
    parser = RobotFileParser(site.url("/robots.txt"))
    parser.read()
    assert parser.allow_all is True


def test_read_caps_the_body(site: Site) -> None:
    """Source: RFC 9309 2.5: a parsing limit of at least 500 KiB; content past it is ignored."""
    filler = b"# " + b"x" * 600_000 + b"\n"
    site.routes["/robots.txt"] = (
        200,
        b"User-agent: *\nDisallow: /a\n" + filler + b"Disallow: /b\n",
        {},
    )
    parser = RobotFileParser(site.url("/robots.txt"))
    parser.read()
    assert parser.can_fetch("*", "/a") is False
    assert parser.can_fetch("*", "/b") is True


def test_reread_resets_outcome(site: Site) -> None:
    """Own case: a long-running crawler re-reads; a 404 after a 503 allows again."""
    site.routes["/robots.txt"] = (503, b"", {})
    parser = RobotFileParser(site.url("/robots.txt"))
    parser.read()
    assert parser.can_fetch("*", "/") is False
    site.routes["/robots.txt"] = (404, b"", {})
    parser.read()
    assert parser.can_fetch("*", "/") is True
    site.routes["/robots.txt"] = (200, b"User-agent: *\nDisallow: /\n", {})
    parser.read()
    assert (parser.allow_all, parser.disallow_all) == (False, False)
    assert parser.can_fetch("*", "/") is False


def test_read_sitemaps(site: Site) -> None:
    """Source: CPython ``SitemapTest``, read over HTTP instead of ``parse``."""
    site.routes["/robots.txt"] = (200, b"Sitemap: http://example.com/s.xml\nUser-agent: *\n", {})
    parser = RobotFileParser(site.url("/robots.txt"))
    parser.read()
    assert parser.site_maps() == ["http://example.com/s.xml"]


@pytest.mark.parametrize("auth_failure", ["allow", "disallow"])
@pytest.mark.parametrize("status", [200, 400, 401, 403, 404, 410, 418, 429, 500, 502, 503, 599])
def test_status_table_matches_the_fetch_policy(site: Site, status: int, auth_failure: str) -> None:
    """Source: ``robotrules.fetch``'s I/O-free policy (RFC 9309 2.3.1). The drop-in reads with
    urllib so that it needs no extra; this keeps its status table equal to the fetcher's."""
    from robotrules import _policy as policy
    attempt = policy.Attempt("http://x.test", auth_failure=auth_failure)
    step = attempt.on_response(status, {})
    expected = (
        "rules"
        if step == "read-body"
        else {"unavailable": "allow-all", "auth-disallow": "disallow-all"}.get(
            attempt.result.kind, "disallow-all"
        )
    )
    site.routes["/robots.txt"] = (status, b"User-agent: *\nDisallow: /x\n", {})
    parser = RobotFileParser(site.url("/robots.txt"), auth_failure=auth_failure)  # type: ignore[arg-type]
    parser.read()
    got = "allow-all" if parser.allow_all else "disallow-all" if parser.disallow_all else "rules"
    assert got == expected


def test_failed_reread_drops_the_old_rules(site: Site) -> None:
    """Own case: after a 200 with Crawl-delay, a 404 re-read must not report the old delay."""
    site.routes["/robots.txt"] = (200, b"User-agent: *\nCrawl-delay: 5\nDisallow: /x\n", {})
    parser = RobotFileParser(site.url("/robots.txt"))
    parser.read()
    assert parser.crawl_delay("*") == 5
    site.routes["/robots.txt"] = (404, b"", {})
    parser.read()
    assert parser.crawl_delay("*") is None
    assert parser.can_fetch("*", "/x") is True


def test_read_without_url_is_misuse() -> None:
    """Source: stdlib ``read()`` with no URL set raises ``ValueError`` (misuse, not an outcome)."""
    with pytest.raises(ValueError):
        RobotFileParser().read()


@pytest.mark.parametrize(("status", "auth_failure"), [
    (503, "allow"), (429, "allow"), (404, "allow"), (403, "disallow")])
def test_an_outcome_is_worded_as_the_fetch_clients_word_it(site: Site, status: int,
                                                           auth_failure: str) -> None:
    """One home for an HTTP outcome's verdict and words (``_policy.outcome_verdict`` and
    ``summarize``): the drop-in's ``explain`` says what ``RobotsClient.explain`` says, with
    the same reason (RFC 9309 2.3.1.3: unavailable; 2.3.1.4: unreachable)."""
    pytest.importorskip("httpx")
    from robotrules.fetch import RobotsClient

    site.routes["/robots.txt"] = (status, b"no", {})
    parser = RobotFileParser(site.url("/robots.txt"), auth_failure=auth_failure)  # type: ignore[arg-type]
    parser.read()
    with RobotsClient(auth_failure=auth_failure) as client:  # type: ignore[arg-type]
        theirs = client.explain(site.url("/page"), user_agent="examplebot")
    ours = parser.explain("examplebot", site.url("/page"))
    assert (ours.allowed, ours.reason, ours.detail, ours.path) == (
        theirs.allowed, theirs.reason, theirs.detail, theirs.path)
