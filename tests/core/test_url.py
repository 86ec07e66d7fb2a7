"""``robotrules._url``: a URL's path as each dialect reads it (issue 21's NUL fix)."""

from __future__ import annotations

import pytest

import robotrules
from robotrules import _robots, _url

PEERS = {"parse": robotrules.parse, "reference": _robots.reference}
RULES = [b"/$", b"/a$", b"/a", b"/ab", b"/a*$", b"*$", b"/"]
URLS = ["/\x00x", "/a\x00", "/a\x00b", "/ab", "http://x.com/a\x00b", "x\x00/a", "/?\x00",
        "//\x00/a", "https://h.com/\x00"]


def test_path_of_ends_at_a_nul() -> None:
    """robots.cc keeps the path as a C string (``InitUserAgentsAndPath(path.c_str())``):
    Google's matcher stops the path at a NUL, after cutting it out of the URL."""
    assert _url.path_of("/\x00x") == "/"
    assert _url.path_of("http://x.com/a\x00b?q") == "/a"
    assert _url.path_of("x\x00/a") == "/a"
    assert _url.path_params_query("/a\x00b") == "/a\x00b"


@pytest.mark.parametrize("peer", PEERS)
def test_nul_in_url_as_google_reads_it(peer: str) -> None:
    """Source: Google's matcher through the jwm-robotstxt oracle: ``Disallow: /$`` and
    ``/\\x00x``: Google disallows; every rule and URL below, as Google answers."""
    oracle = pytest.importorskip("tests.core.oracle")
    for rule in RULES:
        body = b"User-agent: *\nDisallow: " + rule + b"\n"
        rules = PEERS[peer](body, "google")  # type: ignore[operator]
        for url in URLS:
            want = oracle.google_allowed(body, "foo", url)
            assert rules.is_allowed(url, user_agent="foo") == want, (rule, url)
            assert rules.explain(url, user_agent="foo").allowed == want, (rule, url)
    body = b"User-agent: *\nDisallow: /$\n"
    assert not PEERS[peer](body, "google").is_allowed("/\x00x")  # type: ignore[operator]


@pytest.mark.parametrize("peer", PEERS)
def test_rfc9309_keeps_the_nul_percent_encoded(peer: str) -> None:
    """RFC 9309 2.2.2 normalises the path (a NUL octet is percent-encoded, ``%00``): the
    rfc9309 dialect does not cut it."""
    body = b"User-agent: *\nDisallow: /$\nDisallow: /a%00b\n"
    rules = PEERS[peer](body, "rfc9309")  # type: ignore[operator]
    assert rules.is_allowed("/\x00x")
    assert not rules.is_allowed("/a\x00b")


@pytest.mark.parametrize(("value", "base", "expected"), [
    ("/s.xml", "https://a.test/robots.txt", "https://a.test/s.xml"),  # RFC 3986 5.2
    ("https://b.test/s", "https://a.test/", "https://b.test/s"),  # absolute: as written
    ("x", None, "x"),  # nothing to resolve against: as written
    ("http://[::1", None, None),  # issue 41: urllib raises "Invalid IPv6 URL" on these
    ("//[::1/s", "https://a.test/", None),
    ("http://a]/", "https://a.test/", None),
])
def test_resolved_never_raises(value: str, base: str | None, expected: str | None) -> None:
    """``_url.resolved``, the one reading of a URL a file gives (Sitemap, License): RFC 3986
    resolution against the file's URL, and None for what urllib cannot read (issue 41)."""
    assert _url.resolved(value, base) == expected
