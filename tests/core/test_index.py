"""``robotrules._index``: groups, the agent-token index and the structural findings.

Sources: RFC 9309 (``/work/shared/REFERENCE.md`` section 1), Google's ``robots.cc`` (REFERENCE
"Google-specific deltas") and the 1994 standard (``seeds/000``, REFERENCE "Legacy behaviour").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from robotrules import _directives as D
from robotrules import _index as X
from robotrules import _tokenize as T

if TYPE_CHECKING:
    from robotrules._model import Finding
    from robotrules._types import Dialect


class Built:
    """A file's group index, with the values of its groups' lines for the assertions."""

    def __init__(self, body: str, dialect: Dialect = "rfc9309",
                 base_url: str | None = None) -> None:
        self.text, _ = T.to_text(body.encode())
        self.dirs = T.tokenize(self.text, dialect)
        self.findings: list[Finding] = []
        self.idx = X.build(self.text, self.dirs, dialect, base_url, self.findings)
        self.bare = X.build(self.text, self.dirs, dialect, base_url, None)

    def value(self, i: int) -> str:
        start = self.dirs[3 * i + 1]
        return self.text[start : start + self.dirs[3 * i + 2]]

    def groups(self) -> list[tuple[list[str], list[str]]]:
        return [([self.value(i) for i in self.idx.uas(g)],
                 [self.value(i) for i in self.idx.members(g)]) for g in range(self.idx.count)]

    def codes(self) -> list[tuple[str, int]]:
        return [(f.code, f.line) for f in self.findings]


def test_consecutive_agents_share_a_group_and_a_rule_ends_it() -> None:
    """RFC 9309 2.1: "Consecutive UA lines share one group. A UA line after a rule starts a
    new group"; "The last group may have no rules"."""
    b = Built("User-agent: a\nUser-agent: b\nDisallow: /x\nAllow: /y\n"
              "User-agent: c\nDisallow: /z\nUser-agent: d\n")
    assert b.groups() == [(["a", "b"], ["/x", "/y"]), (["c"], ["/z"]), (["d"], [])]
    assert b.idx.by_token == {"a": (0,), "b": (0,), "c": (1,), "d": (2,)}
    assert b.idx.global_ == ()


def test_group_lines_are_tagged() -> None:
    b = Built("User-agent: a\nAllow: /y\nDisallow: /x\nCrawl-delay: 3\n")
    tags = [v & 3 for v in b.idx.block(0)]
    assert tags == [X.TAG_UA, X.TAG_ALLOW, X.TAG_DISALLOW, X.TAG_OTHER]
    assert [v >> 2 for v in b.idx.block(0)] == [0, 1, 2, 3]


def test_same_agent_in_two_groups_selects_both() -> None:
    """RFC 9309 2.2.1: "If more than one group matches, their rules MUST be combined"; keys
    are case-insensitive ("Crawlers MUST use case-insensitive matching")."""
    b = Built("User-agent: FooBot\nDisallow: /a\nUser-agent: *\nDisallow: /\n"
              "User-agent: foobot\nDisallow: /b\n")
    assert b.idx.by_token["foobot"] == (0, 2)
    assert b.idx.global_ == (1,)


@pytest.mark.parametrize("dialect", ["rfc9309", "google"])
def test_blank_lines_do_not_end_a_group(dialect: Dialect) -> None:
    """RFC 9309 2.1 (REFERENCE): "Blank lines do NOT end a group"."""
    b = Built("User-agent: a\n\nUser-agent: b\n\nDisallow: /x\n", dialect)
    assert b.groups() == [(["a", "b"], ["/x"])]


def test_1994_blank_line_ends_a_record() -> None:
    """seeds/000: "The file consists of one or more records separated by one or more blank
    lines"; a rule after the blank line belongs to no record (MK1994's format)."""
    b = Built("User-agent: a\n\nUser-agent: b\nDisallow: /x\n\nDisallow: /y\n", "1994")
    assert b.groups() == [(["a"], []), (["b"], ["/x"])]
    assert ("L005", 6) in b.codes()


def test_1994_agents_are_kept_as_written_and_the_first_star_record_wins() -> None:
    """REFERENCE "Legacy behaviour": "Obey the first record whose User-Agent value contains
    the robot's name token as a substring" (MK1996 3.2.1): the value is kept whole, lower-cased
    (seeds/000: "A case insensitive substring match of the name without version
    information is recommended")."""
    b = Built("User-agent: *\nDisallow: /a\n\nUser-agent: WebCrawler/3.0\nDisallow: /b\n\n"
              "User-agent: *\nDisallow: /c\n", "1994")
    assert b.idx.by_token == {"webcrawler/3.0": (1,)}
    assert b.idx.global_ == (0,)


def test_sitemap_and_unknown_lines_do_not_end_a_group() -> None:
    """RFC 9309 2.2.4: "a Sitemaps record MUST NOT terminate a group"; "Unknown, Sitemap and
    Crawl-delay lines must not close a group" (REFERENCE)."""
    b = Built("User-agent: a\nSitemap: https://s.example/m.xml\nFoo: bar\nCrawl-delay: 1\n"
              "User-agent: b\nDisallow: /x\n")
    assert b.groups() == [(["a", "b"], ["bar", "1", "/x"])]
    assert list(b.idx.sitemaps) == [1]
    assert ("L030", 5) in b.codes()  # b joins a group whose crawl-delay now applies to it


def test_content_usage_is_a_rule_in_rfc9309_only() -> None:
    """The dialect table (``_dialects``): rfc9309 reads Content-Usage as a rule of its group
    (draft-ietf-aipref-attach); Google ignores it, so the next agent joins the group."""
    body = "User-agent: a\nContent-Usage: train-ai=n\nUser-agent: b\nDisallow: /x\n"
    assert Built(body, "rfc9309").groups() == [(["a"], ["train-ai=n"]), (["b"], ["/x"])]
    assert Built(body, "google").groups() == [(["a", "b"], ["train-ai=n", "/x"])]
    assert Built(body).idx.preferences
    assert not Built("User-agent: a\nDisallow: /\n").idx.preferences


def test_rules_before_any_agent_are_ignored() -> None:
    """RFC 9309 2.2.2: "Ignore allow/disallow rules that are not in any group"."""
    b = Built("Disallow: /x\nCrawl-delay: 4\nUser-agent: a\nAllow: /y\n")
    assert b.groups() == [(["a"], ["/y"])]
    assert b.codes() == [("L005", 1), ("L005", 2)]


def test_file_records_sit_outside_groups() -> None:
    """REFERENCE 2b: Host and Clean-param are records of the whole file (Yandex); unknown
    lines outside a group are kept there too (for the linter)."""
    b = Built("Host: a.example\nFoo: 1\nUser-agent: a\nClean-param: ref\nDisallow: /\n")
    assert [b.value(i) for i in b.idx.outside] == ["a.example", "1", "ref"]
    assert b.groups() == [(["a"], ["/"])]
    assert X.CANONICAL[D.kind_of("host")] == "host"
    assert X.CANONICAL[D.kind_of("crawl-delay")] == "crawl-delay"
    assert D.kind_of("noindex") not in X.CANONICAL


@pytest.mark.parametrize(("value", "token"), [("Googlebot/2.1", "googlebot"),
                                              ("Foo-Bot_X", "foo-bot_x")])
def test_agent_values_index_their_product_token(value: str, token: str) -> None:
    """REFERENCE on RFC 9309 2.2.1: "Google stops at the first invalid char:
    ``Googlebot/2.1`` → ``Googlebot``"; tokens hold ``a-z A-Z _ -``."""
    for dialect in ("rfc9309", "google"):
        assert Built(f"User-agent: {value}\nDisallow: /\n", dialect).idx.by_token == {token: (0,)}


def test_star_with_more_text_is_global() -> None:
    """Google delta "Global group": "A ``*`` followed by whitespace and more text still counts
    as the global group" (L006 says so)."""
    b = Built("User-agent: * foo\nDisallow: /\n", "google")
    assert b.idx.global_ == (0,)
    assert b.idx.by_token == {}
    assert b.codes() == [("L006", 1)]


def test_findings_do_not_change_the_index() -> None:
    b = Built("Disallow: /x\nUser-agent: a\nUser-agent: * x\nSitemap: /rel\nCrawl-delay: x\n"
              "User-agent: b\nDisallow: nope\n\nUser-agent: a\nDisallow: /$x\n", "google",
              base_url="https://a.example/robots.txt")
    assert (list(b.idx.lines), list(b.idx.starts)) == (list(b.bare.lines), list(b.bare.starts))
    assert b.idx.by_token == b.bare.by_token
    assert b.idx.global_ == b.bare.global_
    assert list(b.idx.outside) == list(b.bare.outside)
    assert sorted(b.codes(), key=lambda c: c[1]) == [
        ("L005", 1), ("L006", 3), ("L028", 5), ("L030", 6), ("L008", 7), ("L009", 10)]
