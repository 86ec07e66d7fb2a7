"""``robotrules._patterns``: the pattern algebra, held to the matcher it reads patterns with.

Inclusion (:func:`covers`), precedence (:func:`rank`, :func:`beats`), dead rules
(:func:`deciders`), whole-site blocks (:func:`access_of`) and redundant stars
(:func:`redundant_stars`). The properties compare each answer with what a parsed file's own
matcher decides (``RobotsTxt.explain``) on the same rules and paths: the algebra may only
restate the matcher, never a rule of its own.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robotrules
from robotrules._patterns import (
    _CANDIDATES,
    _equals,
    access_of,
    beats,
    covers,
    deciders,
    matches,
    pattern_of,
    rank,
    redundant_stars,
)

DIALECTS = ("rfc9309", "google", "1994")


@pytest.mark.parametrize(
    ("general", "specific", "expected"),
    [("/a", "/a/b", True), ("/a", "/", False), ("/*", "/", True), ("/", "/*", True),
     ("/a$", "/a$", True), ("/a$", "/a", False), ("/a", "/a$", True), ("/*.css", "/x/a.css", True),
     ("/*.css$", "/x/a.css", False), ("*", "/", True), ("/a*", "/a", True), ("/a/", "/a$", False),
     ("/*a*b", "/xaxb", True), ("/*b*a", "/xaxb", False), ("/a*$", "/a/b", True),
     ("/a**b", "/a*b", True)],
)
def test_pattern_inclusion(general: str, specific: str, expected: bool) -> None:
    """RFC 9309 2.2.3: the inclusion table behind L011 and the agents report (``/a*$`` is
    the prefix ``/a``, ``**`` one ``*``: the matcher's reading, ``_match.Pattern``)."""
    assert covers(general, specific) is expected


def test_inclusion_in_1994_reads_no_wildcards() -> None:
    """1996 draft 3.2.2: a pattern is a plain prefix; ``*`` and ``$`` are characters."""
    assert covers("/a", "/a*b", "1994")
    assert not covers("*", "/", "1994")
    assert not covers("/a*", "/ab", "1994")


def _rules(body: str, dialect: str) -> tuple[robotrules.RobotsTxt, list[robotrules.Rule]]:
    parsed = robotrules.parse(body, dialect=dialect)  # type: ignore[arg-type]
    return parsed, [r for g in parsed.groups for r in g.rules]


def test_precedence_is_the_matchers() -> None:
    """RFC 9309 2.2.2: the longest match wins, allow on a tie; the 1996 draft 3.2.2: the
    first match."""
    _, rules = _rules("User-agent: *\nDisallow: /a\nAllow: /a\nDisallow: /a/b\n", "rfc9309")
    dis, allow, longer = rules
    assert beats(allow, dis, "rfc9309")
    assert beats(longer, allow, "rfc9309")
    assert rank(longer, "rfc9309") < rank(allow, "rfc9309") < rank(dis, "rfc9309")
    _, rules = _rules("User-agent: *\nDisallow: /a\nAllow: /a\nDisallow: /a/b\n", "1994")
    dis, allow, longer = rules
    assert beats(dis, allow, "1994")
    assert beats(allow, longer, "1994")


@pytest.mark.parametrize(("body", "dialect", "state", "line"), [
    ("User-agent: *\nDisallow: /\n", "rfc9309", "blocked", 2),
    ("User-agent: *\nDisallow: /\nAllow: /public/\n", "rfc9309", "partial", 2),
    ("User-agent: *\nDisallow: /x/\n", "rfc9309", "partial", 2),
    ("User-agent: *\nDisallow: /x\nAllow: /x\n", "rfc9309", "allowed", None),
    ("User-agent: *\nAllow: /public/\nDisallow: /\n", "1994", "partial", 3),
    ("User-agent: *\nDisallow: *\n", "rfc9309", "blocked", 2),
    ("User-agent: *\nDisallow: *\n", "1994", "partial", 2),  # "*" is a character in 1994
])
def test_access_of(body: str, dialect: str, state: str, line: int | None) -> None:
    """Blocked: a disallow matches every path and no allow beats it (RFC 9309 2.2.2)."""
    _, rules = _rules(body, dialect)
    got, rule = access_of(rules, dialect)  # type: ignore[arg-type]
    assert (got, None if rule is None else rule.line) == (state, line)


@pytest.mark.parametrize(("pattern", "dialect", "expected"), [
    ("/a**b", "rfc9309", ("consecutive", "/a*b")),
    ("/a*", "google", ("trailing", "/a")),
    ("/a*$", "rfc9309", ("trailing", "/a")),
    ("/a*b*", "rfc9309", ("trailing", "/a*b")),
    ("*", "rfc9309", None),  # every path: dropping the star would leave no rule
    ("/a*b", "rfc9309", None),
    ("/a**", "1994", None),  # 1996 draft: no wildcards, every star is a character
])
def test_redundant_stars(pattern: str, dialect: str,
                         expected: tuple[str, str] | None) -> None:
    """RFC 9309 2.2.3: ``*`` matches any run, so runs of stars and a trailing star change no
    match (``_match.Pattern`` drops them)."""
    assert redundant_stars(pattern, dialect) == expected  # type: ignore[arg-type]


_PATTERNS = ["/", "/a", "/a/", "/a/b", "/a*", "/*b", "/a$", "/a/b$", "*.php", "/a*b$", "/%7e",
             "/~", "/a**b"]
_PATHS = ["/", "/a", "/a/", "/a/b", "/ab", "/x/b", "/a/b.php", "/~", "/%7e", "/a/x/b", "/q"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.sampled_from(_PATTERNS)), min_size=1, max_size=8),
       st.sampled_from(DIALECTS))
def test_rank_and_deciders_agree_with_the_matcher(lines: list[tuple[bool, str]],
                                                  dialect: str) -> None:
    """For every path, the matching rule of the smallest :func:`rank` is the one the
    file's own matcher names (``explain``); a rule :func:`deciders` calls dead decides no
    path; a rule covered by another matches no path the other does not."""
    body = "User-agent: *\n" + "".join(
        f"{'Allow' if allow else 'Disallow'}: {p}\n" for allow, p in lines)
    parsed, rules = _rules(body, dialect)
    dead = deciders(rules, dialect)  # type: ignore[arg-type]
    dead_lines = {rule.line for rule, _ in dead.values()}
    for path in _PATHS:
        hits = [r for r in rules if matches(r.pattern, path, dialect)]  # type: ignore[arg-type]
        verdict = parsed.explain("https://example.com" + path)
        if not hits:
            assert verdict.allowed, (path, body)  # no rule matches: allowed (RFC 9309 2.2.2)
            continue
        best = min(hits, key=lambda r: rank(r, dialect))  # type: ignore[arg-type]
        assert verdict.line == best.line, (path, body)
        assert best.line not in dead_lines, (path, body)
    for general in rules:
        for specific in rules:
            if covers(general.pattern, specific.pattern, dialect):
                for path in _PATHS:
                    if matches(specific.pattern, path, dialect):  # type: ignore[arg-type]
                        assert matches(general.pattern, path, dialect), (  # type: ignore[arg-type]
                            general, specific, path)


def _pairwise(rules: list[robotrules.Rule], dialect: str) -> dict[int, tuple[robotrules.Rule,
                                                                          robotrules.Rule]]:
    """:func:`deciders` as its docstring states it, pair by pair with :func:`covers`: equal
    patterns settled first (its own first pass, ``_equals``); then each rule compared with the
    rules that rank before it and whose literal prefix is a prefix of its own, the nearest
    prefix first, the best first among one prefix, at most ``_CANDIDATES`` of them."""
    d = dialect
    dead, live = _equals(rules, d)  # type: ignore[arg-type]

    def prefix(k: int) -> str:
        return pattern_of(rules[k].pattern, d).prefix

    for i in live:
        key = rank(rules[i], d)  # type: ignore[arg-type]
        before = [j for j in live if rank(rules[j], d) < key  # type: ignore[arg-type]
                  and prefix(i).startswith(prefix(j))]
        before.sort(key=lambda j: (-len(prefix(j)), rank(rules[j], d)))  # type: ignore[arg-type]
        for j in before[:_CANDIDATES]:
            if covers(rules[j].pattern, rules[i].pattern, d):
                dead[i] = (rules[i], rules[j])
                break
    return dead


@pytest.mark.parametrize("dialect", DIALECTS)
def test_deciders_is_the_pairwise_reading(dialect: str) -> None:
    """:func:`deciders` finds its candidates by bisection and passes over a wildcard whose
    literal parts the rule lacks; what it finds, and in which order, is the pair-by-pair
    reading of its docstring (:func:`_pairwise`), budget included: up to 150 rules of a small
    alphabet, so that many share a prefix and more than ``_CANDIDATES`` rank before a rule."""
    for seed in range(40):
        rnd = random.Random(seed)
        body = "User-agent: *\n" + "".join(
            f"{'Allow' if rnd.random() < 0.4 else 'Disallow'}: /"
            + "".join(rnd.choice("ab/*$") for _ in range(rnd.randint(0, 7))) + "\n"
            for _ in range(rnd.randint(1, 150)))
        _, rules = _rules(body, dialect)
        assert list(deciders(rules, dialect).items()) == list(  # type: ignore[arg-type]
            _pairwise(rules, dialect).items()), body


def test_deciders_compares_a_rule_with_at_most_the_cap() -> None:
    """``_CANDIDATES``: a rule is compared with at most that many better rules (the analyses
    stay linear); here ``/**b`` covers ``/ab`` and ranks before it (4 octets against 3,
    RFC 9309 2.2.2), but ``_CANDIDATES + 6`` longer wildcards sharing the prefix ``/`` rank
    before it, so ``/ab`` goes unreported; with fewer of them it is reported."""
    for extra, reported in ((_CANDIDATES + 6, False), (_CANDIDATES - 6, True)):
        body = ("User-agent: *\n" + "".join(f"Allow: /*zzzzzzzz{k}\n" for k in range(extra))
                + "Disallow: /**b\nDisallow: /ab\n")
        _, rules = _rules(body, "rfc9309")
        dead = deciders(rules, "rfc9309")
        assert (len(rules) - 1 in dead) is reported
        assert list(dead.items()) == list(_pairwise(rules, "rfc9309").items())


def test_reading_patterns_keeps_the_analysis_patterns_for_the_call_only() -> None:
    # _patterns.reading_patterns (its docstring): within it each pattern is read once and
    # kept for the call; the process-wide memo (PATTERNS, bounded by bytes) is not filled;
    # a nested ``with`` shares the outer scope; after the outermost, nothing is kept.
    from robotrules import _patterns as P

    P.PATTERNS.clear()
    with P.reading_patterns():
        first = P.pattern_of("/scoped/*x", "rfc9309")
        with P.reading_patterns():
            assert P.pattern_of("/scoped/*x", "rfc9309") is first
        assert P.pattern_of("/scoped/*x", "rfc9309") is first
    assert len(P.PATTERNS) == 0
    outside = P.pattern_of("/scoped/*x", "rfc9309")
    assert (outside.kind, outside.prefix, outside.priority) == (
        first.kind, first.prefix, first.priority)
    assert outside is not first  # read again: the call's scope is gone
    assert len(P.PATTERNS) == 1
