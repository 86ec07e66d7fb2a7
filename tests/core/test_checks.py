"""``robotrules._checks``: the structural findings on single lines and on the whole file.

Sources: RFC 9309 (``/work/shared/REFERENCE.md`` section 1), Google's ``robots.cc`` (REFERENCE
"Google-specific deltas") and REFERENCE 2b (Sitemap: sitemaps.org, "Absolute URL").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from robotrules import _checks as C
from robotrules import _directives as D
from robotrules import _tokenize as T

if TYPE_CHECKING:
    from robotrules._model import Finding


def summary(findings: list[Finding]) -> list[tuple[str, int, int, str]]:
    return [(f.code, f.line, f.column, f.severity) for f in findings]


# --- file_findings ------------------------------------------------------------------------

def test_full_and_partial_bom() -> None:
    """Google delta "BOM. Skipped" (said, since other parsers may not skip it)."""
    out: list[Finding] = []
    C.file_findings("User-agent: *", 3, out)
    C.file_findings("User-agent: *", 2, out)
    assert [(f.code, f.severity) for f in out] == [("L017", "info"), ("L017", "warning")]
    assert "partial" in out[1].message


def test_utf16_and_invalid_utf8_are_errors() -> None:
    """RFC 9309 2.3: "The file MUST be UTF-8"; the finding names the first bad line."""
    out: list[Finding] = []
    C.file_findings("\xff\xfeU\x00", 0, out)
    C.file_findings("User-agent: *\nDisallow: /\xe4\n", 0, out)
    assert summary(out) == [("L017", 1, 1, "error"), ("L017", 2, 1, "error")]
    assert "UTF-16" in out[0].message


def test_clean_utf8_has_no_finding() -> None:
    out: list[Finding] = []
    C.file_findings("Disallow: /ä".encode().decode("latin-1"), 0, out)
    C.file_findings("Disallow: /", 0, out)
    assert out == []


# --- add_sitemap (REFERENCE 2b: "Sitemap: sitemaps.org. Absolute URL, independent of any
# group"; crawler-commons "dedup'd") -------------------------------------------------------

def test_sitemaps_absolute_resolved_and_deduplicated() -> None:
    found: list[Finding] = []
    sitemaps: list[str] = []
    seen: set[str] = set()
    base = "https://a.example/robots.txt"
    for n, raw in enumerate(["https://a.example/s.xml", "/t.xml", "https://a.example/s.xml",
                             "ftp://f.example/u.xml"], 1):
        C.add_sitemap(raw, n, base, found, sitemaps, seen)
    assert sitemaps == ["https://a.example/s.xml", "https://a.example/t.xml",
                        "ftp://f.example/u.xml"]
    assert summary(found) == [("L015", 3, 1, "info")]


@pytest.mark.parametrize("raw", ["/t.xml", "", "sitemap.xml"])
def test_relative_sitemap_without_base_is_refused(raw: str) -> None:
    found: list[Finding] = []
    sitemaps: list[str] = []
    C.add_sitemap(raw, 7, None, found, sitemaps, set())
    assert sitemaps == []
    assert [(f.code, f.line) for f in found] == [("L015", 7)]


def test_sitemap_scheme_must_be_http() -> None:
    found: list[Finding] = []
    sitemaps: list[str] = []
    C.add_sitemap("gopher://g.example/s.xml", 2, None, found, sitemaps, set())
    assert sitemaps == []
    assert [f.code for f in found] == ["L015"]
    assert "gopher" in found[0].message


def test_sitemap_without_findings_still_collects() -> None:
    sitemaps: list[str] = []
    C.add_sitemap("https://a.example/s.xml", 1, None, None, sitemaps, set())
    C.add_sitemap("nope", 2, None, None, sitemaps, set())
    assert sitemaps == ["https://a.example/s.xml"]


# --- check_agent (RFC 9309 2.2.1: "The product token MUST contain only a-z A-Z _ -";
# REFERENCE: "Google stops at the first invalid char: Googlebot/2.1 → Googlebot") -----------

def test_empty_agent() -> None:
    found: list[Finding] = []
    C.check_agent("", "", 4, found)
    assert [(f.code, f.line) for f in found] == [("L007", 4)]


def test_versioned_agent_is_matched_by_its_token() -> None:
    found: list[Finding] = []
    C.check_agent("Googlebot/2.1", "Googlebot", 1, found)
    assert summary(found) == [("L006", 1, 1, "warning")]
    assert found[0].fix == "User-agent: Googlebot"


def test_agent_that_names_no_crawler_is_an_error() -> None:
    found: list[Finding] = []
    C.check_agent("/bot", "", 1, found)
    assert [(f.code, f.severity, f.fix) for f in found] == [("L006", "error", None)]


def test_digits_are_read_differently_by_google() -> None:
    """The dialect table: rfc9309 keeps digits in a token, Google's ``[A-Za-z_-]*`` does not."""
    found: list[Finding] = []
    C.check_agent("bot2", "bot2", 1, found)
    assert [f.code for f in found] == ["L006"]
    assert "'bot'" in found[0].message


def test_plain_token_has_no_finding() -> None:
    found: list[Finding] = []
    C.check_agent("Foo-Bot_x", "Foo-Bot_x", 1, found)
    assert found == []


# --- check_pattern (RFC 9309 2.2: ``path-pattern = "/" ...``; 2.2.3: ``$`` ends a pattern;
# 5.1's ``Disallow: *.gif$`` example) --------------------------------------------------------

def pattern_findings(line_text: str) -> list[Finding]:
    text = "User-agent: *\n" + line_text
    start = text.index(":", len("User-agent: *\n")) + 1
    while text[start : start + 1] == " ":
        start += 1
    value = text[start:]
    found: list[Finding] = []
    C.check_pattern(text, value, start, T.DISALLOW, 2, found)
    return found


def test_pattern_without_slash_never_matches() -> None:
    found = pattern_findings("Disallow: private")
    assert summary(found) == [("L008", 2, 11, found[0].severity)]
    assert found[0].fix == "Disallow: /private"


def test_leading_star_is_only_info() -> None:
    """RFC 9309 5.1 example ``Disallow: *.gif$`` (REFERENCE: "Accept a leading * and lint it")."""
    assert [(f.code, f.severity) for f in pattern_findings("Disallow: *.gif$")] == [
        ("L008", "info")]


def test_dollar_inside_a_pattern_is_literal() -> None:
    found = pattern_findings("Disallow: /a$b")
    assert [(f.code, f.column) for f in found] == [("L009", 13)]  # the '$' itself


@pytest.mark.parametrize("line", ["Disallow: /ok", "Disallow: /end$", "Disallow:"])
def test_good_patterns_have_no_finding(line: str) -> None:
    """RFC 9309 2.2: ``empty-pattern = *WS`` is valid; a final ``$`` anchors (2.2.3)."""
    assert pattern_findings(line) == []


# --- check_value and check_other ------------------------------------------------------------

@pytest.mark.parametrize(("key", "value", "bad"), [
    ("crawl-delay", "ten", True), ("crawl-delay", "2.5", False),
    ("request-rate", "1/5s", False), ("request-rate", "often", True),
    ("visit-time", "0600-0845", False), ("visit-time", "9-5", True),
    ("host", "anything", False), ("disallow", "anything", False),
])
def test_check_value(key: str, value: str, bad: bool) -> None:
    """REFERENCE 2b: ``Crawl-delay: N``, ``Request-rate: n/t [hhmm-hhmm]``, ``Visit-time:
    hhmm-hhmm``; directives without a value parser are not checked."""
    found: list[Finding] = []
    C.check_value(value, D.kind_of(key), 3, found)
    assert [(f.code, f.line) for f in found] == ([("L028", 3)] if bad else [])


def other(line: str) -> list[Finding]:
    text = T.to_text(line.encode())[0]
    dirs = T.tokenize(text, "google")
    start, vlen = dirs[1], dirs[2]
    found: list[Finding] = []
    C.check_other(text, text[start : start + vlen], start, dirs[0] >> T.KIND_SHIFT, 1, found)
    return found


def test_unknown_field() -> None:
    """RFC 9309 2.3.1.5: unparseable lines are skipped (the finding says so)."""
    found = other("Foo-Bar: 1")
    assert [f.code for f in found] == ["L001"]
    assert "'Foo-Bar'" in found[0].message


def test_bare_url_line() -> None:
    found = other("https://a.example/sitemap.xml")
    assert [(f.code, f.fix) for f in found] == [("L016", "Sitemap: https://a.example/sitemap.xml")]


def test_known_extension_is_not_rfc9309() -> None:
    """REFERENCE 2b: ``Noindex:`` "Retired 2019-09-01"; Google's reporter lists it "unused"."""
    found = other("Noindex: /n")
    assert [f.code for f in found] == ["L002"]
    assert "unsupported by Google since 2019" in found[0].message
