"""HTTP headers (attach-05 §2 "HTTP Content-Usage Header Field"), TDMRep (W3C TDM Reservation
Protocol, CG final report 2024-05-10; AI-PREFERENCES.md 1.4) and combining them with robots.txt
(vocab-07 "Combining Preferences")."""

from __future__ import annotations

import json

from robotrules import aipref, parse

TDMREP = json.dumps([
    {"location": "/images/*", "tdm-reservation": 1, "tdm-policy": "https://e.com/policy.json"},
    {"location": "/images/public/*", "tdm-reservation": 0},  # never reached: first match wins
    {"location": "/*.pdf$", "tdm-reservation": 0},
    {"location": "/", "tdm-reservation": 1},
]).encode()


def test_tdmrep_first_match_wins() -> None:
    """TDMRep: "the most specific match is the first in sequence" (first match, unlike REP)."""
    rep = aipref.parse_tdmrep(TDMREP)
    s = rep.evaluate("https://e.com/images/public/a.png")
    assert s is not None
    assert (s.source, s.get("tdm"), s.path) == ("tdmrep", False, "/images/*")
    assert dict(s.extra) == {"tdm-policy": "https://e.com/policy.json"}


def test_tdmrep_patterns_are_rep_patterns() -> None:
    """TDMRep locations reuse REP `*`, `$` and %-escapes (RFC 9309 2.2.3)."""
    rep = aipref.parse_tdmrep(TDMREP)
    pdf = rep.evaluate("/docs/a.pdf")
    assert pdf is not None
    assert pdf.get("tdm") is True  # reservation 0: not reserved
    other = rep.evaluate("/docs/a.pdf?x")
    assert other is not None
    assert other.path == "/"
    assert aipref.parse_tdmrep(b'[{"location": "/caf%C3%A9", "tdm-reservation": 1}]'
                               ).match("/caf\u00e9/x") is not None


def test_tdmrep_no_match() -> None:
    rep = aipref.parse_tdmrep(b'[{"location": "/a", "tdm-reservation": 1}]')
    assert rep.evaluate("/b") is None


def test_tdmrep_bad_input_is_never_an_exception() -> None:
    assert aipref.parse_tdmrep(b"not json").errors
    assert aipref.parse_tdmrep(b"{}").errors
    assert aipref.parse_tdmrep(b"\xff\xfe").rules == ()
    rep = aipref.parse_tdmrep(json.dumps([
        1, {"tdm-reservation": 1}, {"location": "/a", "tdm-reservation": 2},
        {"location": "/b", "tdm-reservation": True}, {"location": "/c", "tdm-reservation": "1"},
    ]))
    assert [r.location for r in rep.rules] == ["/c"]
    assert len(rep.errors) == 4


def test_headers_content_usage_is_a_dictionary() -> None:
    """attach §2: "The Content-Usage field is a structured field dictionary" with the vocab's
    processing; attach §1.2 example `Content-Usage: train-ai=n`."""
    (s,) = aipref.from_headers({"Content-Type": "text/plain", "Content-Usage": "train-ai=n"})
    assert (s.source, s.get("train-ai"), s.line) == ("http-content-usage", False, None)
    (bad,) = aipref.from_headers([("content-usage", "Train-AI=n")])
    assert bad.error
    assert bad.prefs == ()


def test_headers_repeated_fields_join() -> None:
    """RFC 9110 5.3: repeated field lines combine with commas; SF last duplicate wins."""
    (s,) = aipref.from_headers([("Content-Usage", "train-ai=y"), ("content-usage", "train-ai=n")])
    assert s.get("train-ai") is False


def test_headers_tdm() -> None:
    """TDMRep HTTP headers `tdm-reservation` (0/1) and `tdm-policy`."""
    (s,) = aipref.from_headers({"TDM-Reservation": "1", "TDM-Policy": "https://e.com/p"})
    assert (s.source, s.get("tdm"), dict(s.extra)) == ("http-tdm", False,
                                                       {"tdm-policy": "https://e.com/p"})
    (z,) = aipref.from_headers({"tdm-reservation": "0"})
    assert z.get("tdm") is True
    (junk,) = aipref.from_headers({"tdm-reservation": "yes"})
    assert junk.get("tdm") is None
    assert aipref.from_headers({}) == ()


def test_combined_with_headers_most_restrictive() -> None:
    """vocab "Combining Preferences" (and ietf-wg-aipref/drafts#71: the attachment methods are
    "co-equal and the least permissive option rules")."""
    rules = parse("User-agent: *\nContent-Usage: train-ai=y, search=y\n")
    u = rules.usage("/page")
    headers = aipref.from_headers({"Content-Usage": "train-ai=n", "tdm-reservation": "1"})
    both = u.combined_with(*headers)
    assert (both["train-ai"], both["search"], both["tdm"]) == (False, True, False)
    assert [s.source for s in both.statements] == ["content-usage", "http-content-usage",
                                                   "http-tdm"]
    assert both.lines == u.lines  # header statements have no robots.txt line
    assert u["train-ai"] is True  # the original answer is unchanged (immutable)


def test_combined_with_does_nothing_when_crawl_is_disallowed() -> None:
    """attach §3.1: no preferences for resources that may not be fetched."""
    u = parse("User-agent: *\nDisallow: /\n").usage("/x")
    s = aipref.from_headers({"Content-Usage": "train-ai=y"})
    assert u.combined_with(*s) is u


def test_combined_with_tdmrep() -> None:
    rules = parse("User-agent: *\nAllow: /\n")
    s = aipref.parse_tdmrep(TDMREP).evaluate("/images/x.png")
    assert s is not None
    assert rules.usage("/images/x.png").combined_with(s)["tdm"] is False
