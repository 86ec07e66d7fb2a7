"""``robotrules.scrapy.RobotParser`` against Scrapy's parser interface, without a crawl.

Source of the ``scrapy:`` cases: Scrapy's ``tests/test_robotstxt_interface.py``
(``BaseRobotParserTest``, the checks every ROBOTSTXT_PARSER backend must pass), ported to
pytest. ``test_order_based_precedence`` is a first-match expectation that RFC 9309 2.2.2
rejects; it runs under ``ROBOTRULES_DIALECT = "1994"``, the dialect that has first match.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("scrapy")

from scrapy.robotstxt import RobotParser as ScrapyRobotParser
from scrapy.utils.test import get_crawler

from robotrules.scrapy import RobotParser


def _rp(body: bytes, **settings: object) -> RobotParser:
    crawler = get_crawler(settings_dict=settings) if settings else None
    return RobotParser.from_crawler(crawler, body)


def test_implements_scrapys_interface() -> None:
    assert issubclass(RobotParser, ScrapyRobotParser)
    rp = RobotParser.from_crawler(get_crawler(), b"")  # what RobotsTxtMiddleware does first
    assert rp.allowed("http://site.local/", "*") is True


def test_allowed() -> None:
    """Source: scrapy ``BaseRobotParserTest.test_allowed``."""
    rp = _rp(b"User-agent: * \nDisallow: /disallowed \nAllow: /allowed \nCrawl-delay: 10")
    assert rp.allowed("https://www.site.local/allowed", "*")
    assert not rp.allowed("https://www.site.local/disallowed", "*")
    assert rp.crawl_delay("*") == 10


def test_allowed_wildcards() -> None:
    """Source: scrapy ``BaseRobotParserTest.test_allowed_wildcards`` (indentation kept)."""
    rp = _rp(
        b"""User-agent: first
                                Disallow: /disallowed/*/end$

                                User-agent: second
                                Allow: /*allowed
                                Disallow: /
                                """
    )
    assert rp.allowed("https://www.site.local/disallowed", "first")
    assert not rp.allowed("https://www.site.local/disallowed/xyz/end", "first")
    assert not rp.allowed("https://www.site.local/disallowed/abc/end", "first")
    assert rp.allowed("https://www.site.local/disallowed/xyz/endinglater", "first")
    assert rp.allowed("https://www.site.local/allowed", "second")
    assert rp.allowed("https://www.site.local/is_still_allowed", "second")
    assert rp.allowed("https://www.site.local/is_allowed_too", "second")


def test_length_based_precedence() -> None:
    """Source: scrapy ``BaseRobotParserTest.test_length_based_precedence``; RFC 9309 2.2.2."""
    rp = _rp(b"User-agent: * \nDisallow: / \nAllow: /page")
    assert rp.allowed("https://www.site.local/page", "*")


def test_order_based_precedence_in_1994_dialect() -> None:
    """Source: scrapy ``BaseRobotParserTest.test_order_based_precedence``. Adapted: only under
    ``ROBOTRULES_DIALECT = "1994"`` (MK1996 3.2.2, first match); RFC 9309 gives the opposite."""
    body = b"User-agent: * \nDisallow: / \nAllow: /page"
    assert not _rp(body, ROBOTRULES_DIALECT="1994").allowed("https://www.site.local/page", "*")
    assert _rp(body, ROBOTRULES_DIALECT="rfc9309").allowed("https://www.site.local/page", "*")


def test_empty_response() -> None:
    """Source: scrapy ``BaseRobotParserTest.test_empty_response``: empty means allow all."""
    rp = _rp(b"")
    assert rp.allowed("https://site.local/", "*")
    assert rp.allowed("https://site.local/", "chrome")
    assert rp.allowed("https://site.local/index.html", "*")
    assert rp.allowed("https://site.local/disallowed", "*")


def test_garbage_response() -> None:
    """Source: scrapy ``BaseRobotParserTest.test_garbage_response``: garbage means allow all."""
    rp = _rp(b"GIF89a\xd3\x00\xfe\x00\xa2")
    assert rp.allowed("https://site.local/", "*")
    assert rp.allowed("https://site.local/", "chrome")
    assert rp.allowed("https://site.local/index.html", "*")
    assert rp.allowed("https://site.local/disallowed", "*")


def test_unicode_url_and_useragent() -> None:
    """Source: scrapy ``BaseRobotParserTest.test_unicode_url_and_useragent``.

    Adapted: ``UnicödeBöt`` is not a product token (RFC 9309 2.2.1: only letters, ``-`` and
    ``_``), so it names no group and the ``*`` group applies to it (as in Google's matcher);
    Scrapy's test expects the ``UnicödeBöt`` group. The percent-encoding cases are unchanged.
    """
    rp = _rp(
        """
        User-Agent: *
        Disallow: /admin/
        Disallow: /static/
        # taken from https://en.wikipedia.org/robots.txt
        Disallow: /wiki/K%C3%A4ytt%C3%A4j%C3%A4:
        Disallow: /wiki/Käyttäjä:

        User-Agent: UnicödeBöt
        Disallow: /some/randome/page.html""".encode()
    )
    assert rp.allowed("https://site.local/", "*")
    assert not rp.allowed("https://site.local/admin/", "*")
    assert not rp.allowed("https://site.local/static/", "*")
    assert not rp.allowed("https://site.local/admin/", "UnicödeBöt")  # adapted
    assert not rp.allowed("https://site.local/wiki/K%C3%A4ytt%C3%A4j%C3%A4:", "*")
    assert not rp.allowed("https://site.local/wiki/Käyttäjä:", "*")
    assert rp.allowed("https://site.local/some/randome/page.html", "*")
    assert rp.allowed("https://site.local/some/randome/page.html", "UnicödeBöt")  # adapted


def test_bytes_arguments_and_full_user_agent_header() -> None:
    """Source: the interface's types (``str | bytes``) and RobotsTxtMiddleware, which passes the
    request's User-Agent header when ROBOTSTXT_USER_AGENT is unset (RFC 9309 2.2.1 token)."""
    rp = _rp(b"User-agent: examplebot\nCrawl-delay: 2.5\nDisallow: /x\n")
    header = b"examplebot/1.0 (+http://127.0.0.1/bot)"
    assert rp.allowed(b"http://site.local/x", header) is False
    assert rp.allowed("http://site.local/y", header) is True
    assert rp.crawl_delay(header) == 2.5
    assert rp.crawl_delay("otherbot") is None


def test_dialect_setting_is_checked() -> None:
    with pytest.raises(ValueError, match="ROBOTRULES_DIALECT"):
        _rp(b"", ROBOTRULES_DIALECT="2026")


def test_scrapy_stays_optional() -> None:
    """Issue 7: Scrapy is an optional extra; importing robotrules (and its other drop-ins)
    must not import it."""
    code = (
        "import sys, robotrules, robotrules.compat, robotrules.pacer\n"
        "assert 'scrapy' not in sys.modules, 'scrapy imported'\n"
        "assert 'twisted' not in sys.modules, 'twisted imported'\n"
    )
    import robotrules

    src = robotrules.__file__.rsplit("/robotrules/", 1)[0]
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
        env={"PYTHONPATH": src, "PATH": ""},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
