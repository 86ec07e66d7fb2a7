"""The indexed matcher's structure: sorted prefixes with parent links, one key per plain prefix.

Sources: RFC 9309 2.2.2 ("the most specific match found MUST be used", "if an allow rule and a
disallow rule are equivalent, then the allow rule SHOULD be used") and Google's matcher
(robots.cc through jwm-robotstxt, the test oracle) for the generated files. Groups here have
more than eight rules, so they take the indexed matcher, not the linear scan.
"""

from __future__ import annotations

import random

import pytest

import robotrules
from robotrules import _compile
from tests.core.oracle import google_allowed

# Prefixes that nest ("/a" < "/a/" < "/a/b/") with siblings that sort between a prefix and its
# children ("/a-b", "/a.b"): the chain walk must skip the siblings and still find "/a".
_NESTED = ["/a", "/a-b", "/a.b", "/a/", "/a/b", "/a/b/", "/a/b/c", "/a/bc", "/a0", "/b",
           "/ab", "/abc", "/a/b/c/d"]


def _body(rules: list[tuple[str, str]]) -> bytes:
    return ("User-agent: *\n" + "".join(f"{verb}: {pat}\n" for verb, pat in rules)).encode()


def test_longest_nested_prefix_decides_past_siblings() -> None:
    """RFC 9309 2.2.2: the longest matching pattern decides, whatever sorts between."""
    rules = [("Disallow" if i % 2 else "Allow", p) for i, p in enumerate(_NESTED)]
    txt = robotrules.parse(_body(rules))
    expected = {
        "/a-c": ("Allow", "/a"),
        "/a/x": ("Disallow", "/a/"),
        "/a/b/x": ("Disallow", "/a/b/"),
        "/a/b/c/e": ("Allow", "/a/b/c"),
        "/a-bx": ("Disallow", "/a-b"),
        "/abcd": ("Disallow", "/abc"),
        "/a/b/c/d/e": ("Allow", "/a/b/c/d"),
        "/a/bz": ("Allow", "/a/b"),
        "/a.bz": ("Allow", "/a.b"),
        "/abd": ("Allow", "/ab"),
        "/c": None,
    }
    for path, want in expected.items():
        verdict = txt.explain(path)
        if want is None:
            assert verdict.reason == "no-matching-rule", path
            assert verdict.allowed, path
        else:
            assert verdict.rule is not None, path
            assert (verdict.rule.directive.capitalize(), verdict.rule.pattern) == want, path
            assert verdict.allowed is (want[0] == "Allow"), path


def test_equal_plain_rules_allow_wins_and_first_line_is_shown() -> None:
    """RFC 9309 2.2.2: equivalent allow and disallow, allow wins; among identical rules the
    first line is reported (Google's Match::Set keeps the first)."""
    rules = [("Disallow", f"/filler{i}/") for i in range(10)]
    rules += [("Disallow", "/x"), ("Allow", "/x"), ("Allow", "/x"), ("Disallow", "/x")]
    txt = robotrules.parse(_body(rules))
    verdict = txt.explain("/x/page")
    assert verdict.allowed
    assert verdict.line == 13  # the first 'Allow: /x' (line 1 is the user-agent)
    assert not txt.is_allowed("/filler3/a")


def test_wildcard_rules_under_a_plain_prefix() -> None:
    """A wildcard rule filed under the same literal prefix as plain rules is still tried."""
    rules = [("Disallow", f"/p{i}/") for i in range(10)]
    rules += [("Disallow", "/shop"), ("Allow", "/shop*.html$"), ("Allow", "/shop/*/free")]
    txt = robotrules.parse(_body(rules))
    assert not txt.is_allowed("/shop/a")
    assert txt.is_allowed("/shop/a.html")
    assert txt.is_allowed("/shop/x/free/y")
    assert not txt.is_allowed("/shop/a.html?x")


@pytest.mark.parametrize("seed", range(4))
def test_random_nested_prefix_sets_agree_with_google(seed: int) -> None:
    """Many nested plain and wildcard rules, against Google's matcher."""
    rng = random.Random(seed)
    atoms = ["a", "b", "/", "-", ".", "ab", "0"]
    rules = []
    for _ in range(rng.randint(20, 300)):
        pat = "/" + "".join(rng.choice(atoms) for _ in range(rng.randint(0, 6)))
        if rng.random() < 0.2:
            pat += rng.choice(["*", "*b", "$", "*.a$"])
        rules.append((rng.choice(["Allow", "Disallow"]), pat))
    body = _body(rules)
    txt = robotrules.parse(body, dialect="google")
    for _ in range(200):
        url = "http://example.com/" + "".join(rng.choice([*atoms, "c"])
                                              for _ in range(rng.randint(0, 9)))
        assert txt.is_allowed(url, user_agent="x") is google_allowed(body, "x", url), url


def test_clear_caches_changes_no_answer() -> None:
    """The process-wide memos are caches only: emptied, every answer stays the same."""
    body = _body([("Disallow", "/*.pdf$"), ("Allow", "/a*b"), ("Disallow", "/a")])
    paths = ["/x.pdf", "/ab", "/a", "/acb", "/z"]
    before = [robotrules.parse(body).is_allowed(p) for p in paths]
    _compile.clear_caches()
    assert all(not memo for memo in _compile._PATTERNS.values())
    assert [robotrules.parse(body).is_allowed(p) for p in paths] == before == [
        False, True, False, True, True]


@pytest.mark.parametrize("wildcard", [False, True])
def test_deeply_nested_prefixes(wildcard: bool) -> None:
    """1,000 rules each a prefix of the next ('/a', '/aa', ...): the longest match decides
    (RFC 9309 2.2.2), with or without a wildcard rule that makes the matcher walk the whole
    chain; answers checked against Google's matcher."""
    rules = [("Allow" if n % 3 == 0 else "Disallow", "/" + "a" * n) for n in range(1, 1001)]
    if wildcard:
        rules.append(("Allow", "/aaaa*b"))
    body = _body(rules)
    txt = robotrules.parse(body, dialect="google")
    for n in (1, 3, 500, 999, 1000, 1500):
        for tail in ("", "b"):
            url = "http://example.com/" + "a" * n + tail
            assert txt.is_allowed(url, user_agent="x") is google_allowed(body, "x", url), (
                n, tail)
    verdict = txt.explain("/" + "a" * 999)
    assert verdict.rule is not None
    assert verdict.rule.pattern == "/" + "a" * 999
