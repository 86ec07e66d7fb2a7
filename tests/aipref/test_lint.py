"""aipref.lint_findings: codes L031-L040, L042-L047 (AI-PREFERENCES.md 1.6 "Lint rules to add").

``codes()`` leaves out L042, the one overview finding every file with preference lines gets
(tested on its own below); L041 moved to robotrules._ua_lint (tests/lint/test_ua_lint.py)."""

from __future__ import annotations

import pytest

from robotrules import Finding, parse
from robotrules.aipref import lint_findings


def codes(body: str, dialect: str = "rfc9309") -> list[tuple[str, int, str | None]]:
    return [(f.code, f.line, f.fix) for f in lint_findings(parse(body, dialect))  # type: ignore[arg-type]
            if f.code != "L042"]


def test_clean_file_has_no_findings() -> None:
    body = ("User-agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: train-ai=n\n"
            "Content-Usage: /ai-ok/ train-ai=y\nContent-Signal: search=yes, ai-train=no\n")
    assert codes(body) == []


@pytest.mark.parametrize(
    ("label", "fix"),
    [("ai", "train-ai"), ("genai", "train-ai"), ("train-genai", "train-ai"), ("tdm", None),
     ("inference", None), ("all", None), ("bots", None), ("ai-use", None), ("ai-output", None)],
)
def test_l031_superseded_label(label: str, fix: str | None) -> None:
    """AI-PREFERENCES.md 1.1 "Vocabulary churn": labels of vocab -01 to -04 (nuxt-modules/robots
    #226 documents `Content-Usage: ai=n`) are unknown keys today."""
    assert codes(f"User-agent: *\nContent-Usage: {label}=n\n") == [("L031", 2, fix)]


def test_l032_yes_no_in_content_usage() -> None:
    """vocab "Preference Labels": the values are the tokens y and n; `yes` is unknown."""
    assert codes("User-agent: *\nContent-Usage: train-ai=no, search=yes\n") == [
        ("L032", 2, "train-ai=n"), ("L032", 2, "search=y")]


def test_l033_y_n_in_content_signal() -> None:
    """AI-PREFERENCES.md 1.3: Content-Signal values are yes/no."""
    assert codes("User-agent: *\nContent-Signal: ai-train=n\n") == [("L033", 2, "ai-train=no")]


def test_l034_uppercase_key_voids_the_statement() -> None:
    """vocab "Multiple Preferences": a key with uppercase characters fails the parse; every
    preference is unknown."""
    found = [f for f in lint_findings(parse("User-agent: *\nContent-Usage: /x Train-AI=n\n"))
             if f.code != "L042"]
    assert [(f.code, f.severity, f.fix) for f in found] == [
        ("L034", "error", "Content-Usage: /x train-ai=n")]


def test_l035_duplicate_keys() -> None:
    """RFC 9651 / vocab "Multiple Preferences": only the last value applies."""
    assert codes("User-agent: *\nContent-Usage: train-ai=y, train-ai=n\n"
                 "Content-Signal: search=yes, search=no\n") == [("L035", 2, None),
                                                                 ("L035", 3, None)]


def test_l036_unknown_content_signal_key() -> None:
    """AI-PREFERENCES.md 1.3: keys are search, ai-input, ai-train (and use); `search-ai` is
    the misinformation of areweagentready.com."""
    assert codes("User-agent: *\nContent-Signal: search-ai=no, train-ai=no, foo=yes\n") == [
        ("L036", 2, "ai-input"), ("L036", 2, "ai-train"), ("L036", 2, None)]


def test_l037_path_not_starting_with_slash() -> None:
    """attach §3.2: the path "always starts with /"; otherwise the whole value is the
    preference (which then fails to parse)."""
    assert codes("User-agent: *\nContent-Usage: private/ train-ai=n\n") == [
        ("L037", 2, "Content-Usage: /private/ train-ai=n")]
    assert codes("User-agent: *\nContent-Usage: *.pdf train-ai=n\n")[0][0] == "L037"


def test_l038_content_usage_only_on_disallowed_paths() -> None:
    """attach §3.1: "no preferences are implied for resources that are disallowed"."""
    assert codes("User-agent: *\nDisallow: /private/\nContent-Usage: /private/ train-ai=n\n") == [
        ("L038", 3, None)]
    assert codes("User-agent: *\nDisallow: /\nContent-Usage: train-ai=n\n") == [("L038", 3, None)]
    # an Allow re-opens part of it: the preference can apply there
    assert codes("User-agent: *\nDisallow: /private/\nAllow: /private/pub\n"
                 "Content-Usage: /private/ train-ai=n\n") == []


def test_l039_preferences_only_in_the_global_group() -> None:
    """attach §3.1 + RFC 9309 2.2.1: a crawler with its own group does not see `*`'s lines."""
    body = ("User-agent: GPTBot\nDisallow: /x\n\nUser-agent: *\nAllow: /\n"
            "Content-Usage: train-ai=n\n")
    found = [f for f in lint_findings(parse(body)) if f.code != "L042"]
    assert [(f.code, f.line) for f in found] == [("L039", 6)]
    assert "GPTBot" in found[0].message
    both = body + "\nUser-agent: GPTBot\nContent-Usage: train-ai=n\n"
    assert codes(both) == []


def test_l040_content_signal_before_any_user_agent() -> None:
    """AI-PREFERENCES.md 1.3: crawler-commons reads it file-wide, Cloudflare per group."""
    assert codes("Content-Signal: ai-train=no\nUser-agent: *\nAllow: /\n") == [
        ("L040", 1, "put it inside the 'User-agent: *' group")]
    assert codes("Content-Usage: train-ai=n\nUser-agent: *\nAllow: /\n")[0][:2] == ("L040", 1)


def test_findings_are_finding_values_in_line_order() -> None:
    found = lint_findings(parse("Content-Signal: ai-train=n\nUser-agent: *\n"
                                "Content-Usage: ai=n\n"))
    assert all(isinstance(f, Finding) for f in found)
    assert [f.line for f in found] == sorted(f.line for f in found)
    assert all(f.code.startswith("L0") and f.column == 1 for f in found)


def test_l034_space_in_path() -> None:
    """attach §3.1: "SP (U+20) and HTAB (U+09) characters need to be replaced with %20 and
    %09"; a raw space ends the path and the rest fails to parse."""
    found = [f for f in lint_findings(parse("User-agent: *\nContent-Usage: /my docs/ train-ai=n\n"))
             if f.code != "L042"]
    assert [(f.code, f.fix) for f in found] == [
        ("L034", "Content-Usage: /my%20docs/ train-ai=n")]
    assert "%20" in found[0].message
