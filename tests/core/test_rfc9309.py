"""RFC 9309 behaviour of the default dialect; each test quotes the section it comes from."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robotrules

# RFC 9309 section 5.1, "Simple Example" (verbatim file, including its closing EOF line).
RFC_5_1 = """\
User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot

EOF
"""


@pytest.mark.parametrize(
    ("agent", "path", "allowed"),
    [
        # "*: ... allows access to the URLs with the /publications/ path prefix, and it
        # restricts access to the URLs with the /example/ path prefix and to all URLs with a
        # .gif suffix. The * character designates any character, including the
        # otherwise-required forward slash"
        ("OtherBot", "/publications/a.html", True),
        ("OtherBot", "/example/x", False),
        ("OtherBot", "/images/cat.gif", False),
        ("OtherBot", "/cat.gif?x=1", True),  # $ anchors the end: a query follows the suffix
        ("OtherBot", "/index.html", True),
        # "foobot: ... only has access to two URL path prefixes on the site --
        # /example/page.html and /example/allowed.gif"
        ("foobot", "/example/page.html", True),
        ("foobot", "/example/allowed.gif", True),
        ("foobot", "/example/other.html", False),
        ("foobot", "/", False),
        # "barbot and bazbot: ... not allowed to access the URLs with the /example/page.html
        # path prefix but otherwise have unrestricted access"
        ("barbot", "/example/page.html", False),
        ("bazbot", "/example/page.html", False),
        ("barbot", "/example/x.gif", True),
        # "quxbot: An empty group at the end of the file. The crawler has unrestricted access"
        ("quxbot", "/example/page.html", True),
        ("quxbot", "/a.gif", True),
    ],
)
def test_section_5_1_simple_example(agent: str, path: str, allowed: bool) -> None:
    rules = robotrules.parse(RFC_5_1)
    assert rules.is_allowed("https://www.example.com" + path, user_agent=agent) is allowed


def test_section_5_2_longest_match() -> None:
    """5.2: "the most specific match ... the rule that matches the most octets"."""
    rules = robotrules.parse(
        "User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n")
    assert rules.is_allowed("https://www.example.com/example/page/", user_agent="foobot")
    assert not rules.is_allowed("https://www.example.com/example/page/disallowed.gif",
                                user_agent="foobot")


def test_figure_2_groups_for_the_same_agent_are_combined() -> None:
    """2.2.1: "If there is more than one group matching the user-agent, the matching groups'
    rules MUST be combined into one group" (Figure 2)."""
    rules = robotrules.parse("user-agent: ExampleBot\ndisallow: /foo\ndisallow: /bar\n\n"
                             "user-agent: ExampleBot\ndisallow: /baz\n")
    for path in ("/foo", "/bar", "/baz"):
        assert not rules.is_allowed(path, user_agent="ExampleBot")
    verdict = rules.explain("/baz", user_agent="ExampleBot")
    assert verdict.line == 6
    assert verdict.agents == ("ExampleBot", "ExampleBot")


def test_agent_matching_is_case_insensitive_and_star_is_fallback() -> None:
    """2.2.1: "Crawlers MUST use case-insensitive matching to find the group that matches the
    product token and then obey the rules of the group. If no matching group exists, crawlers
    MUST obey the group with a user-agent line with the "*" value, if present."."""
    rules = robotrules.parse("User-agent: *\nDisallow: /\n\nUser-agent: ExampleBot\n"
                             "Disallow: /private\n")
    assert rules.is_allowed("/public", user_agent="EXAMPLEBOT")
    assert not rules.is_allowed("/public", user_agent="OtherBot")


def test_no_group_and_no_star_means_no_rules() -> None:
    """2.2.1: "If no group matches the product token and there is no group with a user-agent
    line with the "*" value, or no groups are present at all, no rules apply."."""
    rules = robotrules.parse("User-agent: ExampleBot\nDisallow: /\n")
    v = rules.explain("/x", user_agent="OtherBot")
    assert v.allowed
    assert v.reason == "no-group"
    assert v.line is None


def test_full_user_agent_string_is_reduced_to_its_token() -> None:
    """2.2.1: the product token is the name part of the User-Agent (issue 2 interface)."""
    rules = robotrules.parse("User-agent: ExampleBot\nDisallow: /private\n")
    assert not rules.is_allowed("/private/x",
                                user_agent="ExampleBot/2.1 (+https://example.org/bot)")


def test_allow_wins_ties() -> None:
    """2.2.2: "If an "allow" rule and a "disallow" rule are equivalent, then the "allow"
    rule SHOULD be used."."""
    rules = robotrules.parse("User-agent: *\nDisallow: /page\nAllow: /page\n")
    v = rules.explain("/page", user_agent="x")
    assert v.allowed
    assert v.line == 3


def test_robots_txt_is_implicitly_allowed() -> None:
    """2.2.2: "The /robots.txt URI is implicitly allowed."."""
    rules = robotrules.parse("User-agent: *\nDisallow: /\n")
    v = rules.explain("https://example.com/robots.txt", user_agent="x")
    assert v.allowed
    assert v.reason == "robots-txt"
    assert not rules.is_allowed("https://example.com/robots.txt.bak", user_agent="x")
    # Google's matcher has no such rule (the google dialect follows it)
    assert not robotrules.parse("User-agent: *\nDisallow: /\n", "google").is_allowed(
        "/robots.txt", user_agent="x")


@pytest.mark.parametrize(
    ("rule_path", "url_path", "matches"),
    [
        # Figure 4: path / encoded path / path to match
        ("/foo/bar?baz=quz", "/foo/bar?baz=quz", True),
        ("/foo/bar/\u30c4", "/foo/bar/%E3%83%84", True),
        ("/foo/bar/%E3%83%84", "/foo/bar/\u30c4", True),
        ("/foo/bar/%e3%83%84", "/foo/bar/%E3%83%84", True),
        ("/foo/bar/baz", "/foo/bar/%62%61%7A", True),
        ("/foo/bar/%62%61%7A", "/foo/bar/baz", True),
        # reserved characters keep their encoding: %2F is not /
        ("/a/b", "/a%2Fb", False),
        ("/a%2fb", "/a%2Fb", True),
    ],
)
def test_figure_4_percent_encoding(rule_path: str, url_path: str, matches: bool) -> None:
    """2.2.2: octets outside ASCII and reserved octets are compared percent-encoded; encoded
    unreserved octets are decoded before comparison (Figure 4)."""
    rules = robotrules.parse(f"User-agent: *\nDisallow: {rule_path}\n")
    assert rules.is_allowed("https://example.com" + url_path, user_agent="x") is not matches


@pytest.mark.parametrize(
    ("pattern", "url", "matches"),
    [
        # Figure 6: percent-encoded special characters match them literally
        ("/path/file-with-a-%2A.html", "https://www.example.com/path/file-with-a-*.html", True),
        ("/path/foo-%24", "https://www.example.com/path/foo-$", True),
        ("/path/file-with-a-%2A.html", "https://www.example.com/path/file-with-a-x.html", False),
        # Figure 5: $ end of pattern, * any characters
        ("/this/path/exactly$", "https://www.example.com/this/path/exactly", True),
        ("/this/path/exactly$", "https://www.example.com/this/path/exactly/x", False),
        ("/this/*/exactly", "https://www.example.com/this/a/b/exactly", True),
    ],
)
def test_figures_5_and_6_special_characters(pattern: str, url: str, matches: bool) -> None:
    """2.2.3: "$" and "*" are special; "%2A" and "%24" match a literal "*" and "$"."""
    rules = robotrules.parse(f"User-agent: *\nDisallow: {pattern}\n")
    assert rules.is_allowed(url, user_agent="x") is not matches


def test_other_records_do_not_end_a_group() -> None:
    """2.2.4: "parsing of other records MUST NOT interfere with the parsing of explicitly
    defined records ... a "Sitemaps" record MUST NOT terminate a group."."""
    rules = robotrules.parse(
        "User-agent: a\nCrawl-delay: 5\nSitemap: https://e.com/s.xml\nUser-agent: b\n"
        "Disallow: /x\nSitemap: https://e.com/t.xml\nfoo: bar\nDisallow: /y\n")
    assert len(rules.groups) == 1
    for agent in ("a", "b"):
        assert not rules.is_allowed("/x", user_agent=agent)
        assert not rules.is_allowed("/y", user_agent=agent)
        assert rules.crawl_delay(user_agent=agent) == 5.0
    assert rules.sitemaps == ["https://e.com/s.xml", "https://e.com/t.xml"]


def test_rules_outside_groups_are_ignored() -> None:
    """2.2.2: rules not in any group are ignored (and reported)."""
    rules = robotrules.parse("Disallow: /\nUser-agent: *\nDisallow: /x\n")
    assert rules.is_allowed("/y", user_agent="a")
    assert any(f.code == "L005" and f.line == 1 for f in rules.findings)


def test_empty_file_and_empty_disallow_allow_everything() -> None:
    """2.2.2: "If no match is found ... the URI is allowed"; an empty pattern decides nothing.
    The verdict still names the empty line, as robots.cc's matching_line() does (it matches
    an empty pattern at priority 0), so that the answer says why everything is allowed."""
    assert robotrules.parse(b"").is_allowed("/anything", user_agent="a")
    rules = robotrules.parse("User-agent: *\nDisallow:\n")
    v = rules.explain("/x", user_agent="a")
    assert v.allowed
    assert v.line == 2
    assert v.rule is not None
    assert v.rule.pattern == ""
    assert "empty" in v.detail


def test_cr_only_line_endings() -> None:
    """2.2 ABNF: NL = %x0D / %x0A / %x0D.0A."""
    rules = robotrules.parse(b"User-agent: *\rDisallow: /a\rAllow: /a/b\r")
    assert not rules.is_allowed("/a/c", user_agent="x")
    assert rules.is_allowed("/a/b", user_agent="x")


def test_non_utf8_file_patterns_bridge_to_utf8_urls() -> None:
    """2.2.2: implementors MAY bridge encoding mismatches when the file is not UTF-8."""
    rules = robotrules.parse("User-agent: *\nDisallow: /caf\xe9\n".encode("latin-1"))
    assert not rules.is_allowed("https://e.com/caf%C3%A9", user_agent="x")
    assert not rules.is_allowed("https://e.com/café", user_agent="x")


def _reference_normalize(text: str) -> str:
    """RFC 9309 2.2.2 written out plainly, without fast paths: %xx of an unreserved character
    decoded, other escapes upper-cased, a literal '*' or '$' escaped (2.2.3), and every octet
    outside the reserved and unreserved sets percent-encoded as UTF-8."""
    import re
    from urllib.parse import quote_from_bytes

    unreserved = set(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    def fix(m: re.Match[str]) -> str:
        value = int(m.group(1), 16)
        return chr(value) if value in unreserved else "%" + m.group(1).upper()

    text = re.sub(r"%([0-9A-Fa-f]{2})", fix, text).replace("*", "%2A").replace("$", "%24")
    return quote_from_bytes(text.encode("utf-8", "surrogateescape"),
                            safe="-._~:/?#[]@!$&'()*+,;=%")


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from([
    "a", "Z", "0", "-", ".", "_", "~", ":", "/", "?", "#", "[", "]", "@", "!", "$", "&", "'",
    "(", ")", "*", "+", ",", ";", "=", "%", " ", '"', "<", ">", "\\", "^", "`", "{", "|", "}",
    "\x00", "\x7f", "\xe9", "\u20ac", "%2f", "%41", "%zz", "%7e", "%C3", "%e9", "%2A", "%24",
]), max_size=16).map("".join))
def test_path_normalisation_matches_the_plain_reading_of_2_2_2(text: str) -> None:
    """The normaliser's fast paths give what the plain reading of RFC 9309 2.2.2 gives."""
    from robotrules._url import rfc_normalize

    assert rfc_normalize(text) == _reference_normalize(text)
