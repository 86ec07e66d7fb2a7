"""Differential tests: the ``google`` dialect against Google's C++ matcher (the oracle).

Source of every expected answer: google/robotstxt robots.cc through jwm-robotstxt==1.0.8.
Inputs: generated bodies full of Google's quirks (tests/core/gen.py), hypothesis-built
bodies, and every real file of shared/corpus with queries derived from its own rules.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import robotrules
from tests.conftest import SHARED
from tests.core.gen import AGENTS, PATH_ATOMS, QUERY_AGENTS, rand_body, rand_url
from tests.core.oracle import google_allowed

RULE_RE = re.compile(rb"^\s*(?:dis)?allow\s*:\s*([^\s#]*)", re.IGNORECASE | re.MULTILINE)
UA_RE = re.compile(rb"^\s*user-agent\s*:\s*([A-Za-z_-]+)", re.IGNORECASE | re.MULTILINE)


def _url_from_rule(rng: random.Random, pattern: str) -> str:
    """A URL that sits near a rule: the pattern with wildcards filled in, cut or extended."""
    pattern = pattern.rstrip("$") if rng.random() < 0.7 else pattern
    filled = "".join(rng.choice(["", "x", "a/b", ".gif", "?q=1"]) if c == "*" else c
                     for c in pattern)
    r = rng.random()
    if r < 0.3:
        filled = filled[: rng.randint(0, len(filled))]
    elif r < 0.6:
        filled += rng.choice(PATH_ATOMS)
    if not filled.startswith("/"):
        filled = "/" + filled
    return "http://example.com" + filled


def _check(body: bytes, agent: str, url: str) -> None:
    expected = google_allowed(body, agent, url)
    got = robotrules.parse(body, dialect="google").is_allowed(url, user_agent=agent)
    assert got is expected, (body[:300], agent, url)


def test_generated_cases_agree_with_google() -> None:
    """10,000 generated bodies x 3 queries each, half the URLs derived from the rules."""
    rng = random.Random(20221)
    disallowed = 0
    for _ in range(10_000):
        text = rand_body(rng)
        body = text.encode("utf-8", "surrogateescape")
        rules = robotrules.parse(body, dialect="google")
        patterns = [m.decode("latin-1") for m in RULE_RE.findall(body)]
        for _ in range(3):
            agent = rng.choice(QUERY_AGENTS)
            if patterns and rng.random() < 0.6:
                url = _url_from_rule(rng, rng.choice(patterns))
            else:
                url = rand_url(rng)
            expected = google_allowed(body, agent, url)
            assert rules.is_allowed(url, user_agent=agent) is expected, (text, agent, url)
            disallowed += not expected
    assert disallowed > 2_000  # the cases really exercise disallow decisions


_line = st.one_of(
    st.builds(lambda k, sep, v: k + sep + v,
              st.sampled_from(["user-agent", "allow", "disallow", "useragent", "disalow",
                               "Allowance", "sitemap", "crawl-delay", "x"]),
              st.sampled_from([":", ": ", " ", "\t", " : "]),
              st.one_of(st.sampled_from(AGENTS),
                        st.lists(st.sampled_from(PATH_ATOMS), max_size=6).map(
                            lambda s: "/" + "".join(s)))),
    st.text(max_size=20),
)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(_line, max_size=12),
    eol=st.sampled_from(["\n", "\r\n", "\r"]),
    agent=st.sampled_from(QUERY_AGENTS),
    path=st.lists(st.sampled_from(PATH_ATOMS), max_size=8).map("".join),
)
def test_hypothesis_bodies_agree_with_google(
    lines: list[str], eol: str, agent: str, path: str
) -> None:
    body = eol.join(lines).encode("utf-8", "surrogateescape")
    _check(body, agent, "http://example.com/" + path)


def _corpus() -> list[Path]:
    return sorted(Path(SHARED, "corpus", "sites").glob("*.txt")) + sorted(
        Path(SHARED, "corpus", "fixtures").glob("*"))


@pytest.mark.skipif(not _corpus(), reason="shared/corpus not present")
def test_every_corpus_file_agrees_with_google() -> None:
    """Every real file of shared/corpus, 12 queries each derived from its own rules/agents."""
    rng = random.Random(9309)
    files = _corpus()
    queries = 0
    for path in files:
        body = path.read_bytes()
        rules = robotrules.parse(body, dialect="google")
        patterns = [m.decode("latin-1") for m in RULE_RE.findall(body)][:400]
        agents = [*(m.decode() for m in UA_RE.findall(body)[:50]), "Googlebot", "FooBot"]
        for _ in range(12):
            agent = rng.choice(agents)
            url = (_url_from_rule(rng, rng.choice(patterns)) if patterns and rng.random() < 0.8
                   else rand_url(rng))
            expected = google_allowed(body, agent, url)
            assert rules.is_allowed(url, user_agent=agent) is expected, (path.name, agent, url)
            queries += 1
    assert queries >= 12 * len(files)


def _big_group_body(rng: random.Random, n: int) -> str:
    atoms = ["a", "b", "ab", "?x=", "&y=", ".gif", "/", "abc", "q", "zz"]
    lines = ["User-agent: *"]
    for _ in range(n):
        shape = rng.random()
        lit = "".join(rng.choice(atoms) for _ in range(rng.randint(1, 3)))
        if shape < 0.3:
            pat = "/*" + lit + rng.choice(["", "*", "$", "**"])
        elif shape < 0.45:
            pat = "*" + lit + rng.choice(["", "$"])
        elif shape < 0.6:
            pat = "/*" + lit + "*" + rng.choice(atoms) + rng.choice(["", "$"])
        elif shape < 0.8:
            pat = "/" + lit + rng.choice(["", "*", "*" + rng.choice(atoms), "$"])
        else:
            pat = "/" + "/".join(rng.choice(atoms) for _ in range(rng.randint(1, 4)))
        lines.append(f"{rng.choice(['Allow', 'Disallow'])}: {pat}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("size", [12, 40, 300, 1200])
def test_large_groups_agree_with_google(size: int) -> None:
    """Groups large enough for the indexed matcher (sorted prefixes with parent links, the
    literal-head index of rules starting with "/*" or "*"), with redundant stars, against
    Google's matcher."""
    rng = random.Random(size)
    for _ in range(6):
        body = _big_group_body(rng, size)
        raw = body.encode()
        rules = robotrules.parse(raw, dialect="google")
        for _ in range(60):
            path = "/" + "".join(rng.choice(["a", "b", "ab", "?x=", "&y=", ".gif", "/", "abc",
                                             "q", "zz", "c"]) for _ in range(rng.randint(0, 8)))
            url = "http://example.com" + path
            assert rules.is_allowed(url, user_agent="x") is google_allowed(raw, "x", url), (
                body, url)


def _google_line(body: bytes, agent: str, url: str) -> int:
    from tests.core.oracle import _MATCHER

    _MATCHER.OneAgentAllowedByRobots(body, agent.encode("utf-8"),
                                     url.encode("utf-8", "surrogateescape"))
    return int(_MATCHER.matching_line())


def test_deciding_line_is_googles_matching_line() -> None:
    """google dialect: explain().line equals robots.cc's matching_line() (0 when it reports
    none), including empty Allow:/Disallow: patterns matched at priority 0. Source: Google's
    matcher through jwm-robotstxt; 5,000 generated bodies x 4 queries."""
    rng = random.Random(9309)
    empties = 0
    for n in range(5_000):
        text = rand_body(rng)
        if n % 3 == 0:  # make empty patterns common
            text = text.replace("Disallow: /", "Disallow:\nDisallow: /", 1)
            text = text.replace("Allow: /", "Allow:\nAllow: /", 1)
        body = text.encode("utf-8", "surrogateescape")
        rules = robotrules.parse(body, dialect="google")
        patterns = [m.decode("latin-1") for m in RULE_RE.findall(body)]
        for _ in range(4):
            agent = rng.choice(QUERY_AGENTS)
            if patterns and rng.random() < 0.6:
                url = _url_from_rule(rng, rng.choice(patterns))
            else:
                url = rand_url(rng)
            v = rules.explain(url, user_agent=agent)
            expected = _google_line(body, agent, url)
            assert (v.line or 0) == expected, (body[:300], agent, url, v)
            assert v.allowed is google_allowed(body, agent, url)
            empties += v.rule is not None and v.rule.pattern == ""
    assert empties > 100  # the priority-0 case was exercised
