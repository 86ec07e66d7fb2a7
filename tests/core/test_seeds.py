"""Every example of the seed documents (shared/seeds) as a test.

000: "A Standard for Robot Exclusion" (1994); 001: its Spanish translation; 002: a 1990s
tutorial of the same standard; 003: the encyclopedia article on the extensions; 004: Google's
robots.txt specification.
"""

from __future__ import annotations

import pytest

import robotrules
from robotrules import Dialect

ALL: tuple[Dialect, ...] = ("rfc9309", "google", "1994")

EX1 = """# robots.txt for http://www.example.com/

User-agent: *
Disallow: /cyberworld/map/ # This is an infinite virtual URL space
Disallow: /tmp/ # these will soon disappear
Disallow: /foo.html
"""
EX2 = """# robots.txt for http://www.example.com/

User-agent: *
Disallow: /cyberworld/map/ # This is an infinite virtual URL space

# Cybermapper knows where to go.
User-agent: cybermapper
Disallow:
"""
EX3 = "# go away\nUser-agent: *\nDisallow: /\n"


@pytest.mark.parametrize("dialect", ALL)
def test_000_example_1(dialect: Dialect) -> None:
    """000: "no robots should visit any URL starting with /cyberworld/map/ or /tmp/, or
    /foo.html"."""
    rules = robotrules.parse(EX1, dialect)
    for path in ("/cyberworld/map/index.html", "/tmp/x", "/foo.html"):
        assert not rules.is_allowed(path, user_agent="AnyBot")
    assert rules.is_allowed("/cyberworld/other", user_agent="AnyBot")
    assert rules.is_allowed("/foo.htm", user_agent="AnyBot")


@pytest.mark.parametrize("dialect", ALL)
def test_000_example_2_cybermapper(dialect: Dialect) -> None:
    """000: "no robots should visit any URL starting with /cyberworld/map/, except the robot
    called cybermapper"."""
    rules = robotrules.parse(EX2, dialect)
    assert not rules.is_allowed("/cyberworld/map/x", user_agent="AnyBot")
    assert rules.is_allowed("/cyberworld/map/x", user_agent="cybermapper")


@pytest.mark.parametrize("dialect", ALL)
def test_000_example_3_go_away(dialect: Dialect) -> None:
    """000: "This example indicates that no robots should visit this site further"."""
    assert not robotrules.parse(EX3, dialect).is_allowed("/", user_agent="AnyBot")


@pytest.mark.parametrize("dialect", ALL)
def test_000_help_prefix_example(dialect: Dialect) -> None:
    """000: "Disallow: /help disallows both /help.html and /help/index.html, whereas
    Disallow: /help/ would disallow /help/index.html but allow /help.html"."""
    a = robotrules.parse("User-agent: *\nDisallow: /help\n", dialect)
    b = robotrules.parse("User-agent: *\nDisallow: /help/\n", dialect)
    assert not a.is_allowed("/help.html", user_agent="x")
    assert not a.is_allowed("/help/index.html", user_agent="x")
    assert not b.is_allowed("/help/index.html", user_agent="x")
    assert b.is_allowed("/help.html", user_agent="x")


def test_000_comment_lines_do_not_separate_records_1994() -> None:
    """000: "Lines containing only a comment are discarded completely, and therefore do not
    indicate a record boundary."; records are separated by blank lines."""
    rules = robotrules.parse("User-agent: a\n# note\nUser-agent: b\nDisallow: /x\n", "1994")
    assert not rules.is_allowed("/x", user_agent="b")
    assert not rules.is_allowed("/x", user_agent="a")
    rules = robotrules.parse("User-agent: a\n\nUser-agent: b\nDisallow: /x\n", "1994")
    assert rules.is_allowed("/x", user_agent="a")  # the blank line ended a's record


def test_000_substring_name_match_1994() -> None:
    """000: "A case insensitive substring match of the name without version information is
    recommended."; "*" is the default for robots "that has not matched any of the other
    records"."""
    rules = robotrules.parse(
        "User-agent: WebCrawler/3.0 MyExampleBot\nDisallow: /a\n\nUser-agent: *\nDisallow: /\n",
        "1994")
    assert not rules.is_allowed("/a", user_agent="examplebot/1.2")
    assert rules.is_allowed("/b", user_agent="examplebot/1.2")
    assert rules.is_allowed("/b", user_agent="webcrawler")
    assert not rules.is_allowed("/b", user_agent="OtherBot")


def test_1994_first_matching_record_wins_and_first_rule_wins() -> None:
    """1994 dialect: the first record whose agent contains the name applies (no merging);
    within it the first matching rule decides (003: "by standard implementation the first
    matching robots.txt pattern always wins")."""
    body = "User-agent: foobot\nDisallow: /a\n\nUser-agent: foobot\nDisallow: /b\n"
    rules = robotrules.parse(body, "1994")
    assert not rules.is_allowed("/a", user_agent="foobot")
    assert rules.is_allowed("/b", user_agent="foobot")
    rules = robotrules.parse("User-agent: *\nDisallow: /folder1/\nAllow: /folder1/myfile.html\n",
                             "1994")
    assert not rules.is_allowed("/folder1/myfile.html", user_agent="x")


def test_1994_has_no_wildcards() -> None:
    """000: "any URL that starts with this value will not be retrieved" (plain prefix)."""
    rules = robotrules.parse("User-agent: *\nDisallow: /*.gif$\n", "1994")
    assert rules.is_allowed("/a.gif", user_agent="x")
    assert not rules.is_allowed("/*.gif$", user_agent="x")


def test_001_spanish_translation_empty_file_welcomes_everyone() -> None:
    """001: "Un archivo /robots.txt vacío no significa nada ... todos los robots son
    bienvenidos"."""
    for dialect in ALL:
        assert robotrules.parse("", dialect).is_allowed("/x", user_agent="a")


def test_002_example_2_cybermapper_without_blank_line() -> None:
    """002 Example 2: "the search robot 'cybermapper' is granted full access, while the rest
    do not have access to content of '/cyberworld/map/'" (no blank line between records)."""
    body = ("# robots.txt for http://www.site.com\nUser-Agent: *\n"
            "Disallow: /cyberworld/map/ # this is an infinite virtual URL space\n"
            "# Cybermapper knows where to go\nUser-Agent: cybermapper\nDisallow:\n")
    for dialect in ALL:
        rules = robotrules.parse(body, dialect)
        assert rules.is_allowed("/cyberworld/map/x", user_agent="cybermapper"), dialect
        assert not rules.is_allowed("/cyberworld/map/x", user_agent="other"), dialect


@pytest.mark.parametrize("dialect", ALL)
def test_003_article_examples(dialect: Dialect) -> None:
    """003: the article's examples: allow all, keep all out, four directories, one bot, one
    file, comments, Crawl-delay."""
    assert robotrules.parse("User-agent: *\n", dialect).is_allowed("/x", user_agent="a")
    assert not robotrules.parse("User-agent: *\nDisallow: /\n", dialect).is_allowed(
        "/x", user_agent="a")
    four = robotrules.parse("User-agent: *\nDisallow: /cgi-bin/\nDisallow: /images/\n"
                            "Disallow: /tmp/\nDisallow: /private/\n", dialect)
    assert not four.is_allowed("/images/a.png", user_agent="a")
    assert four.is_allowed("/public/", user_agent="a")
    bad = robotrules.parse("User-agent: BadBot # replace the 'BadBot' with the actual "
                           "user-agent of the bot\nDisallow: /private/\n", dialect)
    assert not bad.is_allowed("/private/x", user_agent="BadBot")
    assert bad.is_allowed("/private/x", user_agent="GoodBot")
    one = robotrules.parse("User-agent: *\nDisallow: /directory/file.html\n", dialect)
    assert not one.is_allowed("/directory/file.html", user_agent="a")
    assert one.is_allowed("/directory/other.html", user_agent="a")  # "all other files ..."
    comments = robotrules.parse('# Comments appear after the "#" symbol\n'
                                "User-agent: * # match all bots\nDisallow: / # keep them out\n",
                                dialect)
    assert not comments.is_allowed("/x", user_agent="a")
    assert robotrules.parse("User-agent: *\nCrawl-delay: 10\n", dialect).crawl_delay(
        user_agent="a") == 10.0


def test_003_allow_order_google_vs_first_match() -> None:
    """003: "Allow: /folder1/myfile.html / Disallow: /folder1/ ... will Disallow anything in
    /folder1/ except /folder1/myfile.html ... In case of Google, though, the order is not
    important"."""
    first = "User-agent: *\nAllow: /folder1/myfile.html\nDisallow: /folder1/\n"
    reverse = "User-agent: *\nDisallow: /folder1/\nAllow: /folder1/myfile.html\n"
    for dialect in ALL:
        rules = robotrules.parse(first, dialect)
        assert rules.is_allowed("/folder1/myfile.html", user_agent="a")
        assert not rules.is_allowed("/folder1/other.html", user_agent="a")
    for dialect in ("rfc9309", "google"):
        assert robotrules.parse(reverse, dialect).is_allowed("/folder1/myfile.html",
                                                             user_agent="a")


@pytest.mark.parametrize("dialect", ["rfc9309", "google"])
def test_004_example_groups(dialect: Dialect) -> None:
    """004: "three distinct groups ... one for a and one for b as well as one for both e and
    f"."""
    rules = robotrules.parse("user-agent: a\ndisallow: /c\n\nuser-agent: b\ndisallow: /d\n\n"
                             "user-agent: e\nuser-agent: f\ndisallow: /g\n", dialect)
    assert len(rules.groups) == 3
    assert not rules.is_allowed("/c", user_agent="a")
    assert rules.is_allowed("/d", user_agent="a")
    assert not rules.is_allowed("/d", user_agent="b")
    assert not rules.is_allowed("/g", user_agent="e")
    assert not rules.is_allowed("/g", user_agent="f")


@pytest.mark.parametrize("dialect", ["rfc9309", "google"])
def test_004_order_of_precedence_for_user_agents(dialect: Dialect) -> None:
    """004: googlebot-news follows group 1, googlebot group 3, otherbot group 2; "both
    googlebot/1.2 and googlebot* are equivalent to googlebot"."""
    body = ("user-agent: googlebot-news\ndisallow: /1\n\nuser-agent: *\ndisallow: /2\n\n"
            "user-agent: googlebot\ndisallow: /3\n")
    rules = robotrules.parse(body, dialect)
    assert rules.explain("/1", user_agent="googlebot-news").line == 2
    assert rules.explain("/3", user_agent="Googlebot").line == 8
    assert rules.explain("/2", user_agent="Otherbot").line == 5
    star = robotrules.parse("user-agent: googlebot*\ndisallow: /x\n", dialect)
    assert not star.is_allowed("/x", user_agent="googlebot")
    version = robotrules.parse("user-agent: googlebot/1.2\ndisallow: /x\n", dialect)
    assert not version.is_allowed("/x", user_agent="googlebot")


@pytest.mark.parametrize(
    ("allow", "disallow", "path", "allowed"),
    [
        # 004 "Sample situations" (order of precedence for group-member records)
        ("/p", "/", "/page", True),
        ("/folder", "/folder", "/folder/page", True),
        ("/page", "/*.htm", "/page.htm", False),  # "undefined"; Google: longer pattern wins
        ("/$", "/", "/", True),
        ("/$", "/", "/page.htm", False),
    ],
)
def test_004_sample_situations(allow: str, disallow: str, path: str, allowed: bool) -> None:
    """004: "the most specific rule based on the length of the [path] entry will trump the
    less specific (shorter) rule"."""
    for dialect in ("rfc9309", "google"):
        rules = robotrules.parse(f"user-agent: *\nallow: {allow}\ndisallow: {disallow}\n",
                                 dialect)
        assert rules.is_allowed("http://example.com" + path, user_agent="a") is allowed


def test_004_directives_without_path_are_ignored_and_html_is_lenient() -> None:
    """004: "When no path is specified, the directive is ignored."; "if the resulting document
    is a HTML page, only valid text lines will be taken into account"."""
    rules = robotrules.parse("<html><body>\nuser-agent: *\ndisallow:\ndisallow: /x\n"
                             "<p>hello</p></body></html>\n", "google")
    assert rules.is_allowed("/y", user_agent="a")
    assert not rules.is_allowed("/x", user_agent="a")
    assert any(f.code == "L020" for f in rules.findings)


def test_004_sitemap_is_a_non_group_record() -> None:
    """004: sitemap records "are not tied to any specific user-agents"."""
    rules = robotrules.parse("user-agent: a\ndisallow: /\nsitemap: https://other.example/s.xml\n"
                             "sitemap: https://other.example/s.xml\nsitemap: /relative.xml\n")
    assert rules.sitemaps == ["https://other.example/s.xml"]
    rel = robotrules.parse("sitemap: /relative.xml\n", url="https://e.com/robots.txt")
    assert rel.sitemaps == ["https://e.com/relative.xml"]
