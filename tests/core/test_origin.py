"""The origin of a URL, its robots.txt URL, and the one IDNA codec (robotrules._origin).

Sources: RFC 9309 2.3 ("crawlers MUST ... access /robots.txt ... at the top-level path of the
service": one file per scheme, host and port) and Google's robots.txt specification ("the
robots.txt file ... is valid for the protocol, host and port it is posted on"); RFC 3986 3.2.2
(host names are case-insensitive), 6.2.3 (a default port is the same origin); IDNA 2008 with
UTS 46 non-transitional mapping (the ``idna`` package, the codec httpx connects with).
"""

from __future__ import annotations

import re

import pytest

from robotrules._origin import ascii_host, origin_of, origin_or_none, robots_url
from robotrules.errors import InvalidURL


@pytest.mark.parametrize(("url", "origin"), [
    ("HTTPS://Example.COM:443/a?b#c", "https://example.com"),  # RFC 3986 3.2.2, 6.2.3
    ("http://user:pw@a.test:8080/x", "http://a.test:8080"),  # userinfo is not the origin
    ("http://[::1]:80/", "http://[::1]"),  # an IPv6 literal keeps its brackets
    ("https://faß.de/", "https://xn--fa-hia.de"),  # IDNA 2008: ß stays (not "fass")
    ("http://xn--fa-hia.de", "http://xn--fa-hia.de"),
    ("  https://a.test/robots.txt  ", "https://a.test"),
])
def test_one_robots_txt_per_scheme_host_and_port(url: str, origin: str) -> None:
    """RFC 9309 2.3: one robots.txt per scheme, host and port."""
    assert origin_of(url) == origin
    assert origin_or_none(url) == origin
    assert robots_url(url) == origin + "/robots.txt"


@pytest.mark.parametrize("url", ["ftp://a/", "example.com", "http://:80/", "http://[zz]/",
                                 "http://a b/", "http://[::1"])
def test_anything_but_an_http_url_with_a_host_is_invalid(url: str) -> None:
    """RFC 9309 2.3 speaks of the http(s) schemes; a URL without a host has no origin: a clear
    error (InvalidURL, a ValueError), or None from origin_or_none."""
    with pytest.raises(InvalidURL):
        origin_of(url)
    assert origin_or_none(url) is None


def test_a_bare_host_gets_a_suggestion() -> None:
    """A host typed without a scheme: the error suggests the https URL (itself checked)."""
    with pytest.raises(InvalidURL, match=re.escape("did you mean 'https://example.com'")):
        origin_of("example.com")


def test_not_a_string_is_invalid() -> None:
    with pytest.raises(InvalidURL, match="must be a string"):
        origin_of(b"https://a.test/")  # type: ignore[arg-type]


@pytest.mark.parametrize(("host", "ascii"), [
    ("faß.de", "xn--fa-hia.de"),  # UTS 46 non-transitional: IDNA 2008, not 2003's "fass.de"
    ("Bücher.example", "xn--bcher-kva.example"),  # mapped to lower case first
    ("EXAMPLE.com", "example.com"),
    ("[::1]", "::1"),
])
def test_ascii_host_is_idna_2008(host: str, ascii: str) -> None:
    assert ascii_host(host) == ascii


def test_a_bad_a_label_is_no_name() -> None:
    """IDNA 2008: an A-label must decode (httpx decodes it too)."""
    with pytest.raises(ValueError):
        ascii_host("xn--zzzzzz-.de")


def test_authority_of_an_origin_is_its_host_and_port() -> None:
    """RFC 6454 4: an origin is (scheme, host, port); its authority is the host and port."""
    from robotrules._origin import authority_of, origin_of

    assert authority_of(origin_of("https://Example.COM/x")) == "example.com"
    assert authority_of(origin_of("http://example.com:8080/x")) == "example.com:8080"
    assert authority_of(origin_of("https://bücher.example/")) == "xn--bcher-kva.example"


def test_origin_parts_are_its_scheme_and_authority() -> None:
    from robotrules._origin import origin_of, origin_parts

    assert origin_parts(origin_of("HTTP://Example.com:80/a")) == ("http", "example.com")
    assert origin_parts(origin_of("https://[::1]:8443/")) == ("https", "[::1]:8443")
