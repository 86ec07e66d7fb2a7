"""robotrules.aipref.rsl: RSL 1.0 licence documents (RSL-SPEC-1.0, rslstandard.org/rsl).

Element structure from the specification's element list (``<rsl>`` with xmlns
``https://rslstandard.org/rsl``; ``<content url server>``; ``<license>``; ``<permits
type="usage">`` / ``<prohibits type="usage">`` with comma-separated values; ``<payment type>``
with ``<amount currency>``); ``url`` "follows the URL-matching rules of the Robots Exclusion
Protocol (RFC 9309), including support for the special characters * ... and $". Usage tokens
(``all``, ``ai-all``, ``ai-train``, ``ai-input``, ``ai-index``, ``search``): AI-PREFERENCES.md
7.2 (secondary). Hardening: defusedxml refuses DTDs, entities and external references.
"""

from __future__ import annotations

import pytest

from robotrules import aipref, parse

NS = 'xmlns="https://rslstandard.org/rsl"'
DOC = f"""<?xml version="1.0" encoding="UTF-8"?>
<rsl {NS}>
  <content url="/" server="https://olp.example.com">
    <license>
      <permits type="usage">ai-index,search</permits>
      <prohibits type="usage">ai-train</prohibits>
      <payment type="crawl"><amount currency="USD">0.001</amount></payment>
    </license>
  </content>
  <content url="/research/">
    <license>
      <permits type="usage">ai-train</permits>
      <payment type="training"><amount currency="USD">10.00</amount>
        <standard>https://x.com/rates</standard></payment>
    </license>
  </content>
  <content url="/open/*.html$">
    <license><permits type="usage">all</permits><payment type="free"/></license>
  </content>
</rsl>
"""


def test_terms_for_the_root_content() -> None:
    doc = aipref.parse_rsl(DOC)
    assert doc.errors == ()
    t = doc.terms("https://x.com/news/a")
    assert t.content is not None
    assert t.content.url == "/"
    assert dict(t.usages) == {"ai-train": False, "ai-input": False, "ai-index": True,
                              "search": True}
    assert t.server == "https://olp.example.com"
    assert [p.type for p in t.payments["search"]] == ["crawl"]
    assert t.payments["search"][0].amounts == (("0.001", "USD"),)
    assert "ai-train" not in t.payments


def test_longest_matching_content_decides() -> None:
    """RFC 9309 URL matching; the most specific (longest) `<content>` wins."""
    t = aipref.parse_rsl(DOC).terms("https://x.com/research/paper")
    assert t.permits("ai-train") is True
    assert t.payments["ai-train"][0].standard == "https://x.com/rates"
    assert t.permits("search") is False  # this licence grants ai-train only


def test_wildcards_and_umbrella_tokens() -> None:
    """`*` and `$` as in RFC 9309; `all` covers every usage."""
    doc = aipref.parse_rsl(DOC)
    assert set(doc.terms("https://x.com/open/a/b.html").usages.values()) == {True}
    assert doc.terms("https://x.com/open/a.htmlx").content.url == "/"  # type: ignore[union-attr]
    ai_all = aipref.parse_rsl(f'<rsl {NS}><content url="/"><license><prohibits type="usage">'
                              'ai-all</prohibits></license></content></rsl>')
    t = ai_all.terms("/x")
    assert (t.permits("ai-train"), t.permits("ai-input"), t.permits("search")) == (
        False, False, True)


def test_no_content_matches() -> None:
    doc = aipref.parse_rsl(f'<rsl {NS}><content url="/only/"><license/></content></rsl>')
    assert set(doc.terms("https://x.com/else").usages.values()) == {None}


def test_full_url_content_is_origin_bound() -> None:
    doc = aipref.parse_rsl(f'<rsl {NS}><content url="https://x.com/a/"><license>'
                           '<permits type="usage">search</permits></license></content></rsl>')
    assert doc.terms("https://x.com/a/b").permits("search") is True
    assert doc.terms("https://y.com/a/b").permits("search") is None



def test_full_url_content_origin_is_canonical() -> None:
    """A full-URL `<content>` is bound to its origin as robots.txt is (RFC 9309 2.3: one
    origin per scheme, host and port): case, a default port and an IDN host written in
    Unicode do not make another origin; another port or scheme does."""
    doc = aipref.parse_rsl(f'<rsl {NS}><content url="HTTPS://Bücher.Example:443/a/"><license>'
                           '<permits type="usage">search</permits></license></content></rsl>')
    assert doc.terms("https://xn--bcher-kva.example/a/b").permits("search") is True
    assert doc.terms("https://bücher.example:8443/a/b").permits("search") is None
    assert doc.terms("http://bücher.example/a/b").permits("search") is None

def test_unicode_content_path() -> None:
    doc = aipref.parse_rsl(f'<rsl {NS}><content url="/ツ/"><license/></content></rsl>')
    assert doc.terms("https://x.com/%E3%83%84/a").content is not None


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]>'
         f'<rsl {NS}>&b;</rsl>', "refused"),  # entity expansion (billion laughs' seed)
        ('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
         f'<rsl {NS}>&x;</rsl>', "refused"),  # external entity
        ("<rsl", "not XML"),
        ("<html><body/></html>", "root element"),
        (b"\xff\xfe<rsl/>", "not XML"),
    ],
)
def test_hostile_or_broken_documents_give_an_error_not_an_exception(body: str | bytes,
                                                                     error: str) -> None:
    doc = aipref.parse_rsl(body)
    assert doc.contents == ()
    assert error in doc.errors[0]


def test_size_cap() -> None:
    doc = aipref.parse_rsl(DOC, max_bytes=100)
    assert doc.contents == ()
    assert "larger than 100 bytes" in doc.errors[0]


def test_missing_namespace_is_read_with_an_error() -> None:
    doc = aipref.parse_rsl('<rsl><content url="/"><license/></content></rsl>')
    assert len(doc.contents) == 1
    assert "xmlns" in doc.errors[0]


def test_license_links_from_headers() -> None:
    """RFC 8288 Link syntax; RSL discovery uses rel="license" type="application/rsl+xml"."""
    headers = {"Link": '</license.xml>; rel="license"; type="application/rsl+xml", '
                       '<https://x.com/a,b>; rel="next", <https://c.org/l>; rel="LICENSE other"'}
    assert aipref.license_links(headers, "https://x.com/robots.txt") == (
        ("https://x.com/license.xml", "application/rsl+xml"), ("https://c.org/l", None))


def test_license_urls_from_robots_and_headers() -> None:
    rules = parse("License: https://x.com/license.xml\nUser-agent: *\nAllow: /\n")
    assert aipref.license_urls(rules, {"link": '<https://x.com/l2.xml>; rel="license"'},
                               "https://x.com/robots.txt") == (
        "https://x.com/license.xml", "https://x.com/l2.xml")
    assert parse("License: /l.xml\n").usage("/").licenses == ("/l.xml",)
    assert aipref.license_urls(parse("License: /l.xml\n"), None, "https://x.com/robots.txt") == (
        "https://x.com/l.xml",)
