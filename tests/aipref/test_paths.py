"""robotrules.aipref._paths: preference paths read exactly as Allow/Disallow patterns.

attach-05 3.1 ("Content-Usage Rule Semantics"): "Any Content-Usage rules determine the usage
preferences for resources using the same path prefix matching rules as defined for Allow and
Disallow." and "Paths specified for Content-Usage rules use the same percent-encoding rules as
used for Allow/Disallow rules". So the oracle of every test here is the core's own answer for
a ``Disallow`` line with the same path: a ``Content-Usage: <path> train-ai=n`` must say ``n``
exactly where ``Disallow: <path>`` disallows, in every dialect and both cores. Issue 24: a path
outside Latin-1 used to raise UnicodeEncodeError for every URL of the file.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robotrules import RobotsTxt, _robots, aipref, parse

DIALECTS = ("rfc9309", "google", "1994")
PATHS = ("/€", "/é", "/ツ", "/a%20b", "/%7e", "/~x", "/%E9", "/*.pdf$", "/caf%C3%A9/", "/𝄞")
URLS = ("https://x.com/€", "https://x.com/%E2%82%AC", "https://x.com/é", "https://x.com/%C3%A9",
        "https://x.com/%E9", "https://x.com/ツ", "https://x.com/%E3%83%84", "https://x.com/%7ex",
        "https://x.com/~x", "https://x.com/doc.pdf", "https://x.com/a%20b", "https://x.com/a b",
        "https://x.com/café/", "https://x.com/%F0%9D%84%9E", "https://x.com/𝄞")
CORES: dict[str, Callable[[bytes, str], RobotsTxt]] = {
    "native": lambda body, d: parse(body, d),  # type: ignore[arg-type]
    "pure": lambda body, d: _robots.reference(body, d),  # type: ignore[arg-type]
}


@pytest.mark.parametrize("core", sorted(CORES))
@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("path", PATHS)
def test_content_usage_path_matches_like_disallow(core: str, dialect: str, path: str) -> None:
    """attach-05 3.1: the same matching and percent-encoding rules as Allow/Disallow."""
    make = CORES[core]
    crawl = make(f"User-agent: *\nDisallow: {path}\n".encode(), dialect)
    pref = make(f"User-agent: *\nContent-Usage: {path} train-ai=n\n".encode(), dialect)
    for url in URLS:
        disallowed = not crawl.is_allowed(url)
        assert (pref.usage(url)["train-ai"] is False) is disallowed, (url, dialect)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_non_latin_path_never_raises(dialect: str) -> None:
    """Issue 24: `Content-Usage: /€ train-ai=n` made explain() and usage() raise for every
    URL; explain() appends the preferences to its detail, so it is exercised too."""
    rules = parse("User-agent: *\nContent-Usage: /€ train-ai=n\n",
                  dialect)  # type: ignore[arg-type]
    for url in URLS:
        assert rules.explain(url).allowed is True
        assert rules.usage(url).crawl is True
    assert rules.usage("https://x.com/%E2%82%AC")["train-ai"] is False
    assert "train-ai=n" in rules.explain("https://x.com/%E2%82%AC").detail


def test_google_reads_e_acute_as_utf8() -> None:
    """attach-05 3.1 + robots.cc MaybeEscapePattern: `/é` is `/%C3%A9` (its UTF-8 octets), the
    same as `Disallow: /é` in Google's reading; it used to apply to `/%E9`."""
    rules = parse("User-agent: *\nContent-Usage: /é train-ai=n\n", "google")
    assert rules.usage("https://x.com/%C3%A9")["train-ai"] is False
    assert rules.usage("https://x.com/%E9")["train-ai"] is None


def test_length_counts_encoded_octets() -> None:
    """attach-05 3.1: "the path prefix length is determined by counting the number of bytes in
    the encoded path": `/é` (7 octets as /%C3%A9) beats `/%C3` (4)."""
    rules = parse("User-agent: *\nContent-Usage: /%C3 train-ai=y\nContent-Usage: /é train-ai=n\n")
    assert rules.usage("https://x.com/%C3%A9x")["train-ai"] is False
    assert rules.usage("https://x.com/%C3%A8")["train-ai"] is True


def test_tdmrep_location_outside_latin1() -> None:
    """TDMRep locations are REP paths (W3C TDMRep sec-tdm-file); `"/ツ"` used to make
    evaluate() raise for every URL. It is read as its UTF-8 percent-encoding."""
    rep = aipref.parse_tdmrep('[{"location": "/ツ", "tdm-reservation": 1}]')
    for url in URLS:
        rep.evaluate(url)  # never raises
    hit = rep.evaluate("https://x.com/%E3%83%84/a")
    assert hit is not None
    assert hit.get("tdm") is False
    assert rep.evaluate("https://x.com/ツ") is not None
    assert rep.evaluate("https://x.com/x") is None


def test_pattern_is_the_core_pattern() -> None:
    """One reader: the pattern object is the core's (`_compile.new_pattern`) for the same
    octets an Allow/Disallow line would hold."""
    from robotrules._compile import new_pattern

    raw = "/é".encode().decode("latin-1")
    assert aipref._paths.pattern("/é", "google").prefix == new_pattern(raw, "google", False).prefix


_SEG = st.lists(st.sampled_from([*"ab/%*$~ é€ツ𝄞Ö09-._", "%C3%A9", "%E9", "%20", "%7E"]),
                max_size=8).map("".join)


@settings(max_examples=150, deadline=None)
@given(path=_SEG, url_path=_SEG, dialect=st.sampled_from(DIALECTS))
def test_random_paths_match_like_disallow(path: str, url_path: str, dialect: str) -> None:
    """attach-05 3.1, on generated paths (any Unicode): `Content-Usage: /p train-ai=n` says n
    exactly where `Disallow: /p` disallows, and nothing raises."""
    p = "/" + path.replace(" ", "%20")
    crawl = parse(f"User-agent: *\nDisallow: {p}\n", dialect)  # type: ignore[arg-type]
    pref = parse(f"User-agent: *\nContent-Usage: {p} train-ai=n\n", dialect)  # type: ignore[arg-type]
    url = "https://x.com/" + url_path
    assert (pref.usage(url)["train-ai"] is False) is (not crawl.is_allowed(url))
