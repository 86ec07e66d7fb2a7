"""robotrules._ua_lint: L041, user-agent values Google misreads (AI-PREFERENCES.md 2.2).

Google's matcher reads a user-agent value as its leading ``[A-Za-z_-]`` run (robots.cc
``ExtractUserAgent``); RFC 9309 2.2.1 asks for such a product token. Moved here from the
AI-preferences tests with the check itself (issue 21: L041 is not an AI-preference finding).
"""

from __future__ import annotations

import pytest

from robotrules import parse
from robotrules._ua_lint import agent_findings


def codes(body: str, dialect: str = "rfc9309") -> list[tuple[str, int, str | None]]:
    return [(f.code, f.line, f.fix) for f in agent_findings(parse(body, dialect))]  # type: ignore[arg-type]


def test_l041_ua_not_a_token_names_a_known_crawler() -> None:
    """AI-PREFERENCES.md 2.2: Google truncates `AI2Bot` to `AI` (robots.cc ExtractUserAgent):
    the group matches no crawler and AI2Bot falls to `*`."""
    found = agent_findings(parse("User-agent: AI2Bot\nDisallow: /\n"))
    assert [(f.code, f.line, f.severity) for f in found] == [("L041", 1, "warning")]
    assert "'AI'" in found[0].message


def test_l041_truncation_lands_on_another_crawler() -> None:
    """`Googlebot2` is read as `Googlebot`: the group applies to Googlebot."""
    assert codes("User-agent: Googlebot2\nDisallow: /\n") == [("L041", 1, "User-agent: Googlebot")]


def test_l041_quiet_when_the_truncation_is_the_crawler_itself() -> None:
    """`MistralAI-User/1.0` is read as `MistralAI-User`, the crawler it names (2.2: "works")."""
    assert codes("User-agent: *\nAllow: /\n\nUser-agent: MistralAI-User/1.0\nDisallow: /\n") == []


@pytest.mark.parametrize("value", ["dotbot/1.0", "Sogou web spider", "Mediapartners-Google*",
                                   "facebookexternalhit/1.1 (+http://www.facebook.com/)"])
def test_l041_quiet_for_versions_and_comments(value: str) -> None:
    """A value cut before a version, space or comment names the token's own crawler (the
    generic not-a-token finding L006 of the core still reports the syntax)."""
    assert codes(f"User-agent: {value}\nDisallow: /\n") == []


def test_l041_severity_error_when_another_crawler_gets_the_group() -> None:
    found = agent_findings(parse("User-agent: Googlebot2\nDisallow: /\n"))
    assert [(f.code, f.severity) for f in found] == [("L041", "error")]


def test_l041_line_is_the_user_agent_line() -> None:
    assert codes("User-agent: Foo\n# hello\n\nUser-agent: AI2Bot\nDisallow: /\n")[0][:2] == (
        "L041", 4)


def test_l041_not_in_1994() -> None:
    """1994: agent names are substrings, no product-token truncation."""
    assert codes("User-agent: AI2Bot\nDisallow: /\n", "1994") == []


