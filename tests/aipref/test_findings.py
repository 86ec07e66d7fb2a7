"""aipref.findings (lint_findings): L031-L040, L042-L047 (AI-PREFERENCES.md 1.6, 7.1).

``codes()`` leaves out L042, the one overview finding every file with preference lines gets
(tested on its own below); L041 moved to robotrules._ua_lint (tests/lint/test_ua_lint.py)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robotrules import Finding, parse
from robotrules._model import Rule
from robotrules._patterns import covers
from robotrules._types import Dialect
from robotrules.aipref import findings as findings_module
from robotrules.aipref import lint_findings
from robotrules.aipref.findings import _Reopening


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


# -- issue 24/26: lint upgrades ------------------------------------------------------------------


def test_l042_preference_lines_named_once_instead_of_l002_on_each() -> None:
    """Issue 26: every Content-Usage/Content-Signal line used to get an info 'not part of RFC
    9309'. Now: one L042 saying what they are (Google lists content-usage and content-signal as
    known, unused tags: google/robotstxt 4af32e5)."""
    import robotrules

    body = ("User-agent: *\nAllow: /\nContent-Usage: train-ai=n\n"
            "Content-Signal: search=yes, ai-train=no\nContent-Usage: /a/ train-ai=y\n")
    found = robotrules.lint(body)
    assert [f.code for f in found] == ["L042"]
    assert (found[0].line, found[0].severity) == (3, "info")
    assert "3 AI usage-preference lines" in found[0].message
    assert "ignore" in found[0].message
    assert robotrules.lint("User-agent: *\nDisallow: /x/\n") == []
    other = robotrules.lint("User-agent: *\nNoindex: /x\n")  # other L002s stay
    assert [f.code for f in other] == ["L002"]


@pytest.mark.parametrize("value", ["/license.xml", "license.xml", "ftp://x.com/l.xml", "//x.com/l"])
def test_l043_relative_license(value: str) -> None:
    """RSL 1.0 discovery: `License:` holds an absolute URI (AI-PREFERENCES.md 7.2)."""
    found = [f for f in lint_findings(parse(f"License: {value}\nUser-agent: *\nAllow: /\n"))
             if f.code == "L043"]
    assert [(f.line, f.severity) for f in found] == [(1, "warning")]


def test_l043_quiet_for_an_absolute_license() -> None:
    body = "License: https://x.com/license.xml\nUser-agent: *\nAllow: /\n"
    assert codes(body) == []


@pytest.mark.parametrize(("line", "fix"), [("ai-train=no", "train-ai=n"),
                                           ("ai-train=n", "train-ai=n"),
                                           ("ai-input=no", "Content-Signal: ai-input=no")])
def test_l046_content_signal_spelling_in_content_usage(line: str, fix: str) -> None:
    """AI-PREFERENCES.md 7.1 "Field mistake to lint: `Content-Usage: ai-train=no` (Content-Signal
    spelling; states nothing)"; vocab-07 "Processing Algorithm": unknown keys are ignored."""
    rules = parse(f"User-agent: *\nContent-Usage: {line}\n")
    assert rules.usage("/")["train-ai"] is None  # states nothing
    assert codes(f"User-agent: *\nContent-Usage: {line}\n") == [("L046", 2, fix)]


@pytest.mark.parametrize("pref", ["train-ai=0", 'train-ai="n"', "train-ai", "train-ai=?1",
                                  "train-ai=maybe"])
def test_l047_values_other_than_y_n(pref: str) -> None:
    """vocab-07 "Preference Labels": only the Tokens y and n state a preference."""
    rules = parse(f"User-agent: *\nContent-Usage: {pref}\n")
    assert rules.usage("/")["train-ai"] is None
    assert codes(f"User-agent: *\nContent-Usage: {pref}\n") == [("L047", 2, None)]


def test_l034_upper_case_key_says_the_whole_line_states_nothing() -> None:
    """vocab-07 "Multiple Preferences": a parse failure makes every preference of the line
    unknown; an upper-case key is one (RFC 9651 keys are lower case)."""
    rules = parse("User-agent: *\nContent-Usage: Train-AI=n, search=y\n")
    assert rules.usage("/").categories == {}
    found = [f for f in lint_findings(rules) if f.code == "L034"]
    assert "the whole line state nothing" in found[0].message
    assert found[0].fix == "Content-Usage: train-ai=n, search=y"


def test_l031_follows_the_vocabulary() -> None:
    """`ai-use` is a superseded -02 label for vocab-07 and a category of vocab-08."""
    rules = parse("User-agent: *\nContent-Usage: ai-use=n\n")
    assert [f.code for f in lint_findings(rules) if f.code != "L042"] == ["L031"]
    assert [f.code for f in lint_findings(rules, vocabulary_name="vocab-08")
            if f.code != "L042"] == []


# The preference lines lint reads are the tokenizer's (Record.directive, issue 21;
# robotrules._directives.classify_key: no case, "_" and " " as "-"), in every dialect:
# L040 for a Content-Usage line before any group ("attach-05: it is a rule inside a group"),
# L042 naming the lines; "ContentUsage" is no key the registry has.
@pytest.mark.parametrize("dialect", ["rfc9309", "google", "1994"])
@pytest.mark.parametrize(("key", "read"), [
    ("Content-Usage", True), ("Content_Usage", True), ("content usage", True),
    ("CONTENT-USAGE", True), ("ContentUsage", False)])
def test_preference_key_spellings(dialect: str, key: str, read: bool) -> None:
    body = f"{key}: train-ai=n\nUser-agent: *\nAllow: /\n"
    found = [(f.code, f.line) for f in lint_findings(parse(body, dialect))]  # type: ignore[arg-type]
    assert found == ([("L040", 1), ("L042", 1)] if read else [])


_SEGMENTS = ["a", "ab", "b", "%61", "%2F", "é", "~", "$", "*"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_SEGMENTS), min_size=0, max_size=3), min_size=1,
                max_size=8),
       st.lists(st.sampled_from(_SEGMENTS), min_size=0, max_size=3),
       st.sampled_from(["rfc9309", "google", "1994"]))
def test_the_sorted_reading_of_reopening_rules_is_the_rule_by_rule_one(
        allows: list[list[str]], probe: list[str], dialect: Dialect) -> None:
    """L038's "no Allow rule reopens part of the path" read by bisection over the literal
    rules' prefixes equals its definition, rule by rule: an Allow rule with a wildcard, or
    one the path covers (robotrules._patterns.covers)."""
    rules = tuple(Rule("allow", "/" + "".join(a), n + 2)
                  for n, a in enumerate(allows))
    path = ("/" + "".join(probe)).split("*", 1)[0].rstrip("$") or "/"
    by_rule = any("*" in r.pattern or covers(path, r.pattern, dialect) for r in rules)
    assert _Reopening(rules, dialect).under(path, dialect) == by_rule


def test_l038_reads_each_content_usage_line_once_whatever_the_allow_rules(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 41: "lint's Content-Usage check linear": 2,000 disallowed Content-Usage paths
    beside 2,000 Allow rules that reopen none of them made 4 million pairwise comparisons
    (12 s for 190 KB); the prefixes are bisected instead, and no pair is compared."""
    calls = []
    real = findings_module.covers

    def counted(*args: Any) -> bool:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(findings_module, "covers", counted)
    body = "\n".join(["User-agent: *", "Disallow: /"]
                     + [f"Allow: /a{i}" for i in range(2000)]
                     + [f"Content-Usage: /q{i}/ train-ai=n" for i in range(2000)])
    found = [c for c in codes(body) if c[0] == "L038"]
    assert len(found) == 2000  # every one of them is disallowed, and none reopened
    assert calls == []
