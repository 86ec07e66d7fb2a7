"""``robotrules.lint._semantic``: the checks over groups and rules (L010-L014, L022-L028).

The catalogue's one-case-per-code table is in ``test_lint.py``; here, what each group check
must and must not say, with the rule each rests on.
"""

from __future__ import annotations

import pytest

from robotrules.lint import _semantic, lint


def test_L011_names_the_winning_line() -> None:
    f = next(f for f in lint("User-agent: *\nDisallow: /\nAllow: /*\n") if f.code == "L011")
    assert "line 3" in f.message
    assert f.fix


def test_L011_not_for_a_rule_that_decides_somewhere() -> None:
    """RFC 9309 2.2.2: the WordPress pair both decide (the longer allow wins inside)."""
    body = "User-agent: *\nDisallow: /wp-admin/\nAllow: /wp-admin/admin-ajax.php\n"
    assert not [f for f in lint(body) if f.code in ("L011", "L012")]


def test_L011_1994_first_match_shadows() -> None:
    """1996 draft 3.2.2: the first match wins, so a later longer rule can be dead."""
    body = "User-agent: *\nDisallow: /a\nAllow: /a/b\n"
    assert [f.line for f in lint(body, dialect="1994") if f.code == "L011"] == [3]
    assert not [f for f in lint(body) if f.code == "L011"]


def test_L013_is_a_warning_in_1994() -> None:
    body = "User-agent: a\nDisallow: /x\n\nUser-agent: a\nDisallow: /z\n"
    f = next(f for f in lint(body, dialect="1994") if f.code == "L013")
    assert f.severity == "warning"


def test_L014_not_when_the_named_group_blocks_everything() -> None:
    body = "User-agent: *\nDisallow: /private/\n\nUser-agent: GPTBot\nDisallow: /\n"
    assert not [f for f in lint(body) if f.code == "L014"]


def test_L022_not_when_allow_reopens() -> None:
    body = "User-agent: *\nDisallow: /\nAllow: /public/\n"
    assert not [f for f in lint(body) if f.code == "L022"]


def test_L022_not_for_a_named_crawler() -> None:
    """Blocking one AI crawler entirely is a choice, not a mistake."""
    assert not [f for f in lint("User-agent: GPTBot\nDisallow: /\n") if f.code == "L022"]


def test_L010_redundant_stars_as_the_matcher_reads_them() -> None:
    """RFC 9309 2.2.3: ``*`` matches any run of characters, so ``**`` is one ``*`` and a
    trailing ``*`` (also before a final ``$``: ``/a*$`` ends nothing) adds nothing;
    in the 1994 standard (1996 draft 3.2.2) ``*`` is a character like any other."""
    def l010(body: str, dialect: str = "rfc9309") -> list[tuple[int, str | None]]:
        return [(f.line, f.fix) for f in lint(body, dialect=dialect)  # type: ignore[arg-type]
                if f.code == "L010"]

    body = "User-agent: *\nDisallow: /a**b\nDisallow: /c*\nDisallow: /d*$\nDisallow: *\n"
    assert l010(body) == [(2, "Disallow: /a*b"), (3, "Disallow: /c"), (4, "Disallow: /d")]
    assert l010(body, "1994") == []


def test_L022_in_1994_a_star_is_no_wildcard() -> None:
    """1996 draft 3.2.2: no wildcards, so ``Disallow: *`` blocks only paths starting with a
    ``*`` (the agents report said "blocked" before: the pattern was read as RFC 9309's)."""
    body = "User-agent: *\nDisallow: *\n"
    assert [f.code for f in lint(body) if f.code == "L022"] == ["L022"]
    assert not [f for f in lint(body, dialect="1994") if f.code == "L022"]


def test_L013_merges_by_ascii_case_only() -> None:
    """Groups are found by the agent compared in ASCII case only (robots.cc
    ``EqualsIgnoreCase``; ``_token.agent_key``): in 1994, where a value is read as written,
    ``Kelvin`` spelt with U+212A KELVIN SIGN is not ``kelvin``."""
    body = "User-agent: \u212aelvin\nDisallow: /x\n\nUser-agent: kelvin\nDisallow: /y\n"
    assert not [f for f in lint(body, dialect="1994") if f.code == "L013"]
    same = "User-agent: Kelvin\nDisallow: /x\n\nUser-agent: kelvin\nDisallow: /y\n"
    assert [f.line for f in lint(same, dialect="1994") if f.code == "L013"] == [4]


def _lower_calls(monkeypatch: pytest.MonkeyPatch, agents: int) -> int:
    calls = [0]
    real = _semantic.ascii_lower

    def counted(text: str) -> str:
        calls[0] += 1
        return real(text)

    monkeypatch.setattr(_semantic, "ascii_lower", counted)
    # one group of many agents: a Crawl-delay line is no rule (RFC 9309 2.2.2), so every
    # user-agent line after it joins the same group
    lint("".join(f"User-agent: b{j}\nCrawl-delay: {j}\n" for j in range(agents)))
    return calls[0]


def test_naming_the_agents_of_a_big_group_is_linear(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 41 ("lint ... never go quadratic"): each of a group's agents was named for its
    messages by walking the group's agents again (5,618 agents: 15.8 million lower-casings,
    14 s); their spellings are read once per lint."""
    small = _lower_calls(monkeypatch, 1000)
    large = _lower_calls(monkeypatch, 4000)
    assert large <= 4 * small + 100, (small, large)
