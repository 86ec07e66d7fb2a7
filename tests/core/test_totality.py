"""Bad input is normal input: the parser is total and every query is bounded.

Sources: RFC 9309 section 3 ("parsers ... should treat the content as untrusted"),
RFC 9309 2.3.1.5 ("crawlers MUST try to parse each line ... and use the parseable rules"),
and the conformance README's list of Google's line-handling quirks.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robotrules
from robotrules import Dialect
from robotrules._robots import reference
from tests.conftest import SHARED

DIALECTS: tuple[Dialect, ...] = ("rfc9309", "google", "1994")


def _corpus() -> list[Path]:
    return sorted(Path(SHARED, "corpus", "sites").glob("*.txt")) + sorted(
        Path(SHARED, "corpus", "fixtures").glob("*"))


@pytest.mark.skipif(not _corpus(), reason="shared/corpus not present")
@pytest.mark.parametrize("dialect", DIALECTS)
def test_no_corpus_file_makes_the_parser_raise(dialect: Dialect) -> None:
    """RFC 9309 2.3.1.5: parse every line; never reject the file."""
    for path in _corpus():
        rules = robotrules.parse(path.read_bytes(), dialect)
        for agent in ("Googlebot", "*", "GPTBot/1.0 (+https://openai.com/gptbot)", ""):
            v = rules.explain("https://example.com/a/b?c=d", user_agent=agent)
            assert v.allowed is rules.is_allowed("https://example.com/a/b?c=d", user_agent=agent)
        for group in rules.groups:
            assert group.agents
        for finding in rules.findings:
            assert finding.line >= 0
            assert finding.severity in ("error", "warning", "info")


@settings(max_examples=400, deadline=None)
@given(body=st.binary(max_size=600), url=st.text(max_size=60), agent=st.text(max_size=20))
def test_random_bytes_never_raise(body: bytes, url: str, agent: str) -> None:
    for dialect in DIALECTS:
        rules = robotrules.parse(body, dialect)
        assert isinstance(rules.is_allowed(url, user_agent=agent), bool)
        rules.explain(url, user_agent=agent)
        rules.crawl_delay(user_agent=agent)
        rules.request_rate(user_agent=agent)
        _ = rules.groups, rules.sitemaps, rules.findings


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=400))
def test_random_text_never_raises(text: str) -> None:
    """str input, lone surrogates included (encoded with surrogateescape/surrogatepass)."""
    for dialect in DIALECTS:
        robotrules.parse(text, dialect).is_allowed("/", user_agent="a")


HOSTILE = [
    b"\x00" * 1000,
    b"User-agent: *\nDisallow: /a\x00b\n",
    b"User-agent: *\nDisallow: /" + b"a" * 100_000 + b"\n",
    b"\xff\xfeU\x00s\x00e\x00r\x00",  # UTF-16
    b"\n" * 200_000,
    b"\r\n" * 50_000 + b"User-agent: *\r\nDisallow: /\r\n",
    b"User-agent: *\n" + b"Disallow: /" + b"*" * 5_000 + b"\n",
    b"User-agent: *\n" + b"Disallow: " + b"$" * 500 + b"\n",
    b"<html><script>alert(1)</script></html>",
    b"User-agent: " + b"A" * 20_000 + b"\nDisallow: /\n",
    b"\xef\xbb\xbf\xef\xbb\xbfUser-agent: *\nDisallow: /\n",
    bytes(range(256)) * 20,
]


@pytest.mark.parametrize("body", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_bodies(body: bytes) -> None:
    for dialect in DIALECTS:
        rules = robotrules.parse(body, dialect)
        rules.is_allowed("https://example.com/" + "a" * 5000, user_agent="A" * 50)
        rules.explain("/x", user_agent="*")


def test_line_cut_at_google_limit() -> None:
    """Conformance README: "Only the first 16,663 bytes of a line are kept"."""
    pattern = "/" + "a" * 16_700
    rules = robotrules.parse(f"User-agent: *\nDisallow: {pattern}\n", "google")
    kept = "Disallow: " + pattern
    kept = kept[:16_663]
    assert not rules.is_allowed("/" + kept[len("Disallow: /"):] + "zzz", user_agent="x")
    assert any(f.code == "L019" for f in rules.findings)


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_every_split_point_and_line_ending_gives_the_same_rules(eol: str) -> None:
    """h11-style: the same file with each line-ending style answers the same, and inserting a
    line break at any position never raises."""
    base = ("User-agent: FooBot\nDisallow: /private\nAllow: /private/ok\n\n"
            "User-agent: *\nDisallow: /\nCrawl-delay: 2\n")
    text = base.replace("\n", eol)
    rules = robotrules.parse(text)
    assert not rules.is_allowed("/private/x", user_agent="FooBot")
    assert rules.is_allowed("/private/ok", user_agent="FooBot")
    assert not rules.is_allowed("/x", user_agent="Other")
    assert rules.crawl_delay(user_agent="Other") == 2.0
    for i in range(len(text) + 1):
        split = text[:i] + eol + text[i:]
        robotrules.parse(split).is_allowed("/private/x", user_agent="FooBot")


def test_adversarial_wildcards_are_answered() -> None:
    """Issue 2: "/*a*a*a...*a*b against a 4,000-char URL" (no backtracking; timed by the
    benchmark, here only its answer is checked)."""
    pattern = "/" + "*a" * 60 + "*b"
    rules = robotrules.parse(f"User-agent: *\nDisallow: {pattern}\n")
    assert rules.is_allowed("/" + "a" * 4000, user_agent="x")
    assert not rules.is_allowed("/" + "a" * 4000 + "b", user_agent="x")
    anchored = robotrules.parse("User-agent: *\nDisallow: /" + "*a" * 60 + "*b$\n")
    assert anchored.is_allowed("/" + "a" * 4000 + "bc", user_agent="x")


def test_one_object_serves_many_threads() -> None:
    """STYLE principle 2: a query mutates nothing visible; one object serves many threads."""
    names = [f"bot{chr(97 + i % 26)}{chr(97 + i // 26)}" for i in range(50)]
    body = "".join(f"User-agent: {names[i]}\nDisallow: /p{i}/\n" for i in range(50))
    rules = robotrules.parse("User-agent: *\nDisallow: /x\n" + body)
    errors: list[str] = []

    def work(n: int) -> None:
        for i in range(200):
            agent = names[(i + n) % 50]
            if rules.is_allowed(f"/p{(i + n) % 50}/a", user_agent=agent):
                errors.append(agent)
            if rules.is_allowed("/x", user_agent="other"):
                errors.append("other")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_unknown_dialect_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown dialect"):
        robotrules.parse("", "rfc")  # type: ignore[arg-type]


@pytest.mark.skipif(not _corpus(), reason="shared/corpus not present")
@pytest.mark.parametrize("dialect", DIALECTS)
def test_fast_and_careful_tokenizer_paths_agree(dialect: Dialect) -> None:
    """One token stream (STYLE: a line can never be read two ways): the fast path for plain
    `key: value` lines must yield exactly what the careful, finding-collecting path yields,
    on every corpus file and on the hostile bodies."""
    from robotrules import _tokenize as T

    bodies = [p.read_bytes() for p in _corpus()] + HOSTILE
    for body in bodies:
        text, _ = T.to_text(body)
        assert T.tokenize(text, dialect) == T.tokenize(text, dialect, []), body[:200]


_LINE_PARTS = st.sampled_from([
    "Disallow", "allow", "User-agent", "foo", "<a", "href", ":", " ", "  ", "\t", "\v", "\f",
    "\x1c", "\xa0", "#", "\0", "/x", "*", "$", "\r", "\n", "\r\n", "",
])


@settings(max_examples=500, deadline=None)
@given(parts=st.lists(_LINE_PARTS, max_size=40),
       dialect=st.sampled_from(["rfc9309", "google", "1994"]))
def test_fast_and_careful_paths_agree_on_odd_white_space(parts: list[str],
                                                         dialect: Dialect) -> None:
    """The fast path's shortcuts (comment, white-space-only and one-word lines skipped
    without the careful path) yield the careful path's directives, whatever white space,
    NUL bytes, '#' and missing colons a line mixes (property-based)."""
    from robotrules import _tokenize as T

    text, _ = T.to_text("".join(parts).encode("latin-1"))
    assert T.tokenize(text, dialect) == T.tokenize(text, dialect, [])


def test_fuzz_regression_control_character_key() -> None:
    """Found by fuzzing (issue 11): a line of a control character (which Python's str.split
    treats as white space, robots.cc does not), a space and a word made key_of raise."""
    found = robotrules.lint("\x1c x")
    assert [f.line for f in found]
    assert all(f.line == 1 for f in found)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_fuzz_regression_lone_surrogate_in_url(dialect: Dialect) -> None:
    """Found by fuzzing (issue 11): a lone surrogate in a URL made the rfc9309 URL path raise
    UnicodeEncodeError. RFC 9309 section 3: treat input as untrusted; answer, never raise."""
    rules = robotrules.parse("User-agent: *\nDisallow: /x", dialect)
    for url in ("/\ud800", "https://a.example/\ud800\udc80?q=\udfff", "/x\ud800"):
        v = rules.explain(url)
        assert v.allowed is rules.is_allowed(url)
    assert rules.explain("/x\ud800").allowed is False  # still under Disallow: /x


_ANY_CHAR = st.characters(codec=None, exclude_categories=())  # surrogates and controls too


@settings(max_examples=300, deadline=None)
@given(body=st.text(_ANY_CHAR, max_size=200), url=st.text(_ANY_CHAR, max_size=40),
       agent=st.text(_ANY_CHAR, max_size=20),
       dialect=st.sampled_from(DIALECTS))
def test_any_text_at_all_answers(body: str, url: str, agent: str, dialect: Dialect) -> None:
    """Every str (lone surrogates, controls) as body, URL and agent: a verdict, never an
    exception; lint and findings too (RFC 9309 section 3)."""
    rules = robotrules.parse(body, dialect)
    assert rules.explain(url, user_agent=agent).allowed is rules.is_allowed(url,
                                                                              user_agent=agent)
    robotrules.lint(body, dialect=dialect)


# -- issue 41: values an extension line gives that cannot be read are findings, on both peers --

PARSERS = [pytest.param(reference, id="pure"),
           pytest.param(robotrules.parse, id="native", marks=pytest.mark.skipif(
               not robotrules.NATIVE, reason="the native peer is not in use in this build"))]


@pytest.fixture(params=PARSERS)
def parse_with(request: pytest.FixtureRequest) -> object:
    return request.param


# the values of issue 41's reproduction: urllib raises ValueError on each ("Invalid IPv6 URL")
UNREADABLE_URLS = ("http://[::1", "http://[zz]/s.xml", "//[::1/s", "http://a]/")


@pytest.mark.parametrize("value", UNREADABLE_URLS)
@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("base", [None, "https://example.com/robots.txt"])
def test_a_sitemap_urllib_cannot_read_is_a_finding(parse_with: Any, dialect: Dialect,
                                                   value: str, base: str | None) -> None:
    """Issue 41's reproduction: ``Sitemap: http://[::1`` made ``sitemaps``, ``findings`` and
    ``lint`` raise ValueError. RFC 9309 2.3.1.5 ("use the parseable rules") and the totality
    principle: the line is a finding (L015, the sitemap code) and the good line still counts.
    ``License:`` values go through the same reading (RSL's L043)."""
    body = (f"User-agent: *\nDisallow: /x\nSitemap: {value}\n"
            f"Sitemap: https://example.com/s.xml\nLicense: {value}\n")
    rules = parse_with(body, dialect, url=base)
    assert rules.sitemaps == ["https://example.com/s.xml"]
    assert [f.line for f in rules.findings if f.code == "L015"] == [3]
    found = robotrules.lint(body, dialect=dialect)
    assert [f.line for f in found if f.code == "L015"] == [3]
    assert [f.line for f in found if f.code == "L043"] == [5]
    from robotrules.aipref import license_urls
    assert license_urls(rules, base=base) == ()  # names no licence


HUGE_RATE = "9" * 4400  # past CPython's 4,300 digits for int(str)
HUGE_DELAY = "9" * 400  # past the largest float: float() reads inf


@pytest.mark.parametrize("dialect", DIALECTS)
def test_numbers_past_a_float_are_no_value_and_a_finding(parse_with: Any,
                                                        dialect: Dialect) -> None:
    """Issue 41's reproduction: ``Request-rate:`` with more than 4,300 digits raised from
    ``request_rate``, ``groups``, ``group_for``, ``findings``, ``usage``, ``usage_many`` and
    ``lint``; ``Crawl-delay:`` of 309 digits read as ``inf``. The documented bound
    (``robotrules._directives``): a number past the largest finite float is no value (None,
    as any unreadable value) and a finding (L028, "crawl-delay, request-rate or visit-time
    unreadable")."""
    body = (f"User-agent: *\nRequest-rate: {HUGE_RATE}/1\nCrawl-delay: {HUGE_DELAY}\n"
            f"Request-rate: 1/{HUGE_DELAY}d\nDisallow: /x\nContent-Usage: train-ai=n\n")
    rules = parse_with(body, dialect)
    assert rules.request_rate() is None
    assert rules.crawl_delay() is None
    group = rules.group_for("*")
    assert group is not None
    assert (group.request_rate, group.crawl_delay) == (None, None)
    assert rules.groups[0].request_rate is None
    assert [f.line for f in rules.findings if f.code == "L028"] == [2, 3, 4]
    assert [f.line for f in robotrules.lint(body, dialect=dialect)
            if f.code == "L028"] == [2, 3, 4]
    assert rules.usage("/a").crawl
    assert list(rules.usage_many(["/a", "/x"])["crawl"]) == [1, 0]
    # the last finite numbers are still values (308 digits: about 1e308 < 1.8e308)
    edge = parse_with(f"User-agent: *\nCrawl-delay: {'9' * 308}\nRequest-rate: "
                      f"{'9' * 308}/1\n", dialect)
    assert edge.crawl_delay() == float("9" * 308)
    rate = edge.request_rate()
    assert rate is not None
    assert rate.requests == int("9" * 308)


def test_agents_that_select_the_same_groups_share_what_they_derive(parse_with: Any) -> None:
    """Issue 41: "Agents that select the same groups should share what they derive": 40
    agents named by the same 20 groups select those groups merged (RFC 9309 2.2.1: "If
    there is more than one group matching the user-agent, the matching groups' rules MUST
    be combined"), so the file keeps one selection for all of them; each verdict still
    names its own agent (the sentence is written from the verdict's agent when read)."""
    names = [f"bot{i}" for i in range(40)]
    head = "".join(f"User-agent: {n}\n" for n in names)
    body = "".join(f"{head}Disallow: /g{g}/\n" for g in range(20))
    rules = parse_with(body)
    for i, name in enumerate(names):
        v = rules.explain(f"/g{i % 20}/x", user_agent=name)
        assert not v.allowed
        assert v.line == 41 * (i % 20 + 1)
        assert f"the group for '{name}' (lines 1, 42," in v.detail
        u = rules.usage(f"/g{i % 20}/x", user_agent=f"{name}/1.0")
        assert not u.crawl
        assert f"the group for '{name}'" in u.verdict.detail
    kept = rules._kept()
    assert len(kept.selections) == 1
    assert len(kept.uses) == 1
    assert len(kept.selection_of_agent) == 80  # each string finds the one selection
    assert kept.evictions == 0


def test_what_the_answers_derive_stays_within_the_budget(
        parse_with: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 41: "what an agent keeps should be bounded by the file's size": past the budget
    (``_robots._DERIVED_MIN`` plus ``_DERIVED_PER_BYTE`` per byte, here made small) what the
    answers derived is dropped before more is kept, and every answer stays the one a fresh
    parse gives (RFC 9309 2.2.1: each agent's own group)."""
    from robotrules import _robots

    monkeypatch.setattr(_robots, "_DERIVED_MIN", 20_000)
    monkeypatch.setattr(_robots, "_DERIVED_PER_BYTE", 0)
    body = "".join(f"User-agent: bot{g}\nDisallow: /g{g}/\nAllow: /g{g}/ok\n\n"
                   for g in range(300))
    rules = parse_with(body)
    for g in range(300):
        for path in (f"/g{g}/x", f"/g{g}/ok", "/other"):
            v = rules.explain(path, user_agent=f"bot{g}")
            assert v == parse_with(body).explain(path, user_agent=f"bot{g}")
            assert v.line == {"/other": None}.get(path, 4 * g + (3 if "ok" in path else 2))
        rules.usage(f"/g{g}/ok", user_agent=f"bot{g}")
    kept = rules._kept()
    assert kept.evictions > 0
    assert kept.derived_bytes <= kept.budget == 20_000
