"""``robotrules._token``: how a query's agent and a line's agent are compared (issue 21's two
agent fixes), on both peers (:func:`robotrules.parse`, native where built, and
:func:`robotrules._robots.reference`)."""

from __future__ import annotations

import pytest

import robotrules
from robotrules import _robots, _token

PEERS = {"parse": robotrules.parse, "reference": _robots.reference}
SCRAPY_BODY = """User-Agent: *
Disallow: /admin/
Disallow: /static/

User-Agent: UnicödeBöt
Disallow: /some/randome/page.html
""".encode()


@pytest.mark.parametrize("peer", PEERS)
@pytest.mark.parametrize("body", [SCRAPY_BODY, SCRAPY_BODY.decode()])
def test_1994_non_ascii_agent_finds_its_own_record(peer: str, body: bytes | str) -> None:
    """Source: Scrapy's ``BaseRobotParserTest.test_unicode_url_and_useragent`` (run for the
    1994 dialect: ``UnicödeBöt`` is refused /some/randome/page.html), and the 1994 standard
    (seeds/000): "A case insensitive substring match of the name without version information
    is recommended" — the record's name read from bytes is the caller's name."""
    rules = PEERS[peer](body, "1994")  # type: ignore[operator]
    assert not rules.is_allowed("https://site.local/some/randome/page.html",
                                user_agent="UnicödeBöt")
    assert not rules.is_allowed("/some/randome/page.html", user_agent="unicödeböt")
    assert rules.is_allowed("https://site.local/admin/", user_agent="UnicödeBöt")
    assert not rules.is_allowed("https://site.local/admin/", user_agent="*")
    assert rules.explain("/some/randome/page.html", user_agent="UnicödeBöt").line == 6


@pytest.mark.parametrize("peer", PEERS)
@pytest.mark.parametrize("dialect", ["google", "rfc9309", "1994"])
def test_kelvin_sign_is_not_k(peer: str, dialect: str) -> None:
    """Source: Google's matcher (robots.cc compares agents with ``absl::EqualsIgnoreCase``,
    ASCII only; checked with the jwm-robotstxt oracle below): U+212A KELVIN SIGN does not
    lower-case to ``k``, so ``\u212aelvinBot`` is not ``KelvinBot`` (``str.lower`` made it)."""
    body = b"User-agent: KelvinBot\nDisallow: /\n"
    rules = PEERS[peer](body, dialect)  # type: ignore[operator]
    assert rules.is_allowed("/x", user_agent="\u212aelvinBot")
    assert not rules.is_allowed("/x", user_agent="KELVINBOT")
    assert _token.query_key("\u212aelvinBot") == "\u212aelvinbot"


def test_kelvin_sign_against_google() -> None:
    oracle = pytest.importorskip("tests.core.oracle")
    body = b"User-agent: KelvinBot\nDisallow: /\n"
    assert oracle.google_allowed(body, "\u212aelvinBot", "/x") is True
    assert oracle.google_allowed(body, "kelvinbot", "/x") is False


def test_ascii_lower_keeps_every_other_character() -> None:
    assert _token.ascii_lower("ÄBC\u212a\u0130x") == "Äbc\u212a\u0130x"
    assert _token.ascii_lower("FooBot") == "foobot"
    assert _token.ascii_lower("\ud800A") == "\ud800a"  # lone surrogates survive


@pytest.mark.parametrize(("value", "dialect", "named", "key"), [
    ("*", "rfc9309", "*", "*"),
    ("* foo", "google", "*", "*"),  # robots.cc: "*" then white space is the global group
    ("* foo", "1994", "* foo", "* foo"),  # the 1994 standard: "*" alone (1996 draft 3.2.1)
    ("MJ12bot/1.0", "rfc9309", "MJ12bot", "mj12bot"),
    ("MJ12bot/1.0", "google", "MJ", "mj"),
    ("MJ12bot/1.0", "1994", "MJ12bot/1.0", "mj12bot/1.0"),  # the value as written
    ("\u212aelvinBot", "1994", "\u212aelvinBot", "\u212aelvinbot"),  # ASCII case only
])
def test_line_agent_and_its_key(value: str, dialect: str, named: str, key: str) -> None:
    """What one User-agent value names, per dialect, and the key its group is found by:
    the one decision the index, the groups and lint share (issue 21)."""
    assert _token.line_agent(value, dialect) == named  # type: ignore[arg-type]
    assert _token.agent_key(value, dialect) == key  # type: ignore[arg-type]


@pytest.mark.parametrize(("header", "token"), [
    ("GPTBot (compatible)", "GPTBot"), ("GPTBot; +openai.com", "GPTBot"),
    ("ClaudeBot (claudebot@anthropic.com)", "ClaudeBot"), ("GPTBot,", "GPTBot"),
    ("GPTBot 1.2", "GPTBot"), ("Screaming Frog SEO Spider", "Screaming"),
    ("GPTBot", "GPTBot"), ("Mediapartners-Google", "Mediapartners-Google"),
    ("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "Googlebot"),
    ("GPTBot/1.2", "GPTBot"),
])
def test_a_header_without_a_slash_is_still_a_header(header: str, token: str) -> None:
    """RFC 9110 10.1.5: a User-Agent header is "product *( RWS ( product / comment ) )", the
    product token first, a version after "/" optional; RFC 9309 2.2.1: the crawler's group
    is found by its product token. A header value read whole ("GPTBot (compatible)" as the
    token) matches no ``User-agent:`` line (a line's token stops at white space), so a
    GPTBot claim walked past "User-agent: GPTBot / Disallow: /" (red team, the site guard)."""
    assert _token.header_token(header) == token
