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


# -- paths read from bytes that are not UTF-8 ---------------------------------------------------

# any byte a path can hold on a line: not CR/LF/NUL (end the line, so the preference after the
# path would be cut off), SP/HTAB (end a Content-Usage path) or "#" (starts a comment); nor a
# final VT/FF, which the line reader strips from the end of `Disallow: <bytes>` but which is
# inside a Content-Usage value (only SP and HTAB end its path, attach-05 3)
_PATH_BYTES = st.binary(max_size=6).map(
    lambda b: b"/" + bytes(c for c in b if c not in b"\r\n\x00 \t#").rstrip(b"\x0b\x0c"))
_URL_PATHS = st.one_of(
    _PATH_BYTES.map(lambda b: "".join(chr(c) if 0x21 <= c < 0x7f and c not in b"#?%"
                                      else f"%{c:02X}" for c in b)),
    _SEG.map(lambda s: "/" + s))


@settings(max_examples=200, deadline=None)
@given(raw=_PATH_BYTES, url_path=_URL_PATHS, dialect=st.sampled_from(DIALECTS),
       core=st.sampled_from(sorted(CORES)))
def test_byte_paths_match_like_disallow(raw: bytes, url_path: str, dialect: str,
                                        core: str) -> None:
    """attach-05 3.1 ("Paths specified for Content-Usage rules use the same percent-encoding
    rules as used for Allow/Disallow rules"), on generated byte strings, most of them not
    UTF-8: `Content-Usage: <bytes> train-ai=n` says n exactly where `Disallow: <bytes>`
    disallows (the oracle is `explain`), in each dialect and both cores. The path used to be
    read from its displayed text (U+FFFD for each bad byte), so `/\\xe9` applied to
    `/%EF%BF%BD` instead of where `Disallow: /\\xe9` applies."""
    make = CORES[core]
    crawl = make(b"User-agent: *\nDisallow: " + raw + b"\n", dialect)
    pref = make(b"User-agent: *\nContent-Usage: " + raw + b" train-ai=n\n", dialect)
    url = "https://x.com" + url_path
    disallowed = not crawl.explain(url).allowed
    assert (pref.usage(url)["train-ai"] is False) is disallowed, (raw, url)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_latin1_byte_path_scopes_like_disallow(dialect: str) -> None:
    """attach-05 3.1, the case that was wrong: `Content-Usage: /\\xe9 train-ai=n` read from
    bytes applies where `Disallow: /\\xe9` applies (rfc9309 and 1994 read the byte as `é`,
    Google escapes it as `%E9`), not to `/%EF%BF%BD` (the U+FFFD it is displayed as)."""
    crawl = parse(b"User-agent: *\nDisallow: /\xe9\n", dialect)  # type: ignore[arg-type]
    pref = parse(b"User-agent: *\nContent-Usage: /\xe9 train-ai=n\n",
                 dialect)  # type: ignore[arg-type]
    hits = [u for u in ("https://x.com/%E9", "https://x.com/%C3%A9", "https://x.com/%EF%BF%BD")
            if not crawl.is_allowed(u)]
    assert hits  # the Disallow applies somewhere
    assert "https://x.com/%EF%BF%BD" not in hits
    for u in ("https://x.com/%E9", "https://x.com/%C3%A9", "https://x.com/%EF%BF%BD"):
        assert (pref.usage(u)["train-ai"] is False) is (u in hits), u
    s = pref.usage(hits[0]).statements[0]
    assert s.to_dict()["path"] == "/\ufffd"  # shown as its line is shown
    assert s.raw == "/\ufffd train-ai=n"


_LOCATION_BYTES = st.binary(max_size=6).map(lambda b: b"/" + bytes(c for c in b if c > 0x20))


@settings(max_examples=200, deadline=None)
@given(raw=_LOCATION_BYTES, url_path=_URL_PATHS)
def test_tdmrep_byte_locations_match_like_disallow(raw: bytes, url_path: str) -> None:
    """TDMRep locations are REP patterns (W3C TDMRep, the tdmrep.json "location"); JSON text
    cannot hold bytes that are not UTF-8, but its `\\udcXX` escapes stand for them the way the
    core reads text (`_tokenize.to_bytes`, surrogateescape). So a location equals an rfc9309
    `Disallow:` with the same bytes, for any byte string."""
    import json

    loc = raw.decode("utf-8", "surrogateescape")
    rep = aipref.parse_tdmrep(json.dumps([{"location": loc, "tdm-reservation": 1}]))
    assert not rep.errors
    crawl = parse(b"User-agent: *\nDisallow: " + raw.replace(b"#", b"%23") + b"\n")
    url = "https://x.com" + url_path
    assert (rep.evaluate(url) is not None) is (not crawl.explain(url).allowed), (raw, url)
