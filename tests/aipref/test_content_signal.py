"""Content-Signal (Cloudflare's Content Signals Policy; AI-PREFERENCES.md 1.3) and how it meets
Content-Usage. "CF docs" = cloudflare-docs managed-robots-txt.mdx as quoted in 1.3."""

from __future__ import annotations

import pytest

from robotrules import aipref, parse

# CF docs: the managed block as shipped (inside the * group)
MANAGED = """\
User-Agent: *
Content-signal: search=yes, ai-train=no
Allow: /
"""


def test_cf_docs_managed_block() -> None:
    """CF docs: `Content-signal: search=yes, ai-train=no` inside `User-Agent: *`; ai-input is
    left out, so it "neither grants nor restricts" (unknown)."""
    u = parse(MANAGED).usage("https://example.com/page", user_agent="GPTBot")
    assert u.crawl is True
    assert (u["search"], u["ai-train"], u["ai-input"]) == (True, False, None)
    assert u.lines == (2,)
    assert [s.source for s in u.statements] == ["content-signal"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("search=yes, ai-input=no, ai-train=no", {"search": True, "ai-input": False,
                                                  "ai-train": False}),
        ("search=yes,ai-train=no,use=reference", {"search": True, "ai-train": False}),
        ("ai-train=no", {"ai-train": False}),  # missing keys: absent (unknown)
        ("ai-train=n", {"ai-train": None}),  # values are yes/no: "n" is unknown
        ("ai-train=maybe", {"ai-train": None}),
        ("Search=Yes, AI-Train=No", {"search": True, "ai-train": False}),  # case-insensitive
        ("ai-train=yes, ai-train=no", {"ai-train": False}),  # last duplicate wins
        ("search-ai=no", {}),  # an invented key (areweagentready) is ignored
        ("", {}),
        (",,, =, ai-train", {"ai-train": None}),  # junk: never an error
    ],
)
def test_cf_parse(value: str, expected: dict[str, bool | None]) -> None:
    assert aipref.parse_content_signal(value).values == expected


def test_cf_use_level_is_kept() -> None:
    """2026 managed files: `use=reference` (immediate, reference, full)."""
    u = parse("User-agent: *\nContent-Signal: search=yes,ai-train=no,use=reference\n").usage("/")
    assert u.use == "reference"
    assert u["use"] is None  # not a yes/no category


def test_scope_group_is_the_default() -> None:
    """AI-PREFERENCES.md 1.3 scoping: per group by default (Cloudflare, squirrelscan): a
    crawler with its own group does not see `*`'s Content-Signal."""
    rules = parse("User-agent: *\nContent-Signal: ai-train=no\nAllow: /\n\n"
                  "User-agent: GPTBot\nAllow: /\n")
    assert rules.usage("/", user_agent="GPTBot")["ai-train"] is None
    assert rules.usage("/", user_agent="GPTBot", content_signal_scope="group")["ai-train"] is None
    assert rules.usage("/", user_agent="Other")["ai-train"] is False


def test_scope_file_applies_every_line_to_every_crawler() -> None:
    """AI-PREFERENCES.md 1.3: crawler-commons reads content-signal as global, file-wide."""
    rules = parse("User-agent: *\nContent-Signal: ai-train=no\nAllow: /\n\n"
                  "User-agent: GPTBot\nAllow: /\n")
    u = rules.usage("/", user_agent="GPTBot", content_signal_scope="file")
    assert (u["ai-train"], u.lines, u.scope) == (False, (2,), "file")


def test_scope_before_any_user_agent() -> None:
    """crawler-commons' test file places Content-Signal before any group: file scope applies it,
    group scope does not (it belongs to no group)."""
    rules = parse("Content-Signal: search=yes, ai-train=no\n\nUser-agent: *\nAllow: /\n")
    assert rules.usage("/", content_signal_scope="group")["ai-train"] is None
    assert rules.usage("/", content_signal_scope="file")["ai-train"] is False


def test_scope_file_combines_most_restrictively() -> None:
    rules = parse("Content-Signal: ai-train=yes, search=yes\nUser-agent: a\nAllow: /\n"
                  "Content-Signal: ai-train=no\n")
    u = rules.usage("/", user_agent="b", content_signal_scope="file")
    assert (u["ai-train"], u["search"], u.lines) == (False, True, (1, 4))


def test_cloudflare_prepended_group_merges() -> None:
    """CF docs: the managed file is prepended, giving two `*` groups that RFC 9309 2.2.1
    merges; the signal of the first applies together with the site's own rules."""
    rules = parse(MANAGED + "\nUser-agent: *\nDisallow: /admin/\n")
    assert rules.usage("/admin/x").crawl is False
    assert rules.usage("/admin/x")["ai-train"] is None  # not fetchable: nothing applies
    assert rules.usage("/blog")["ai-train"] is False


def test_content_signal_only_for_fetchable_urls() -> None:
    """attach §3.1 applied to every robots.txt preference: disallowed URLs carry none."""
    rules = parse("User-agent: *\nDisallow: /x\nContent-Signal: ai-train=no\n")
    u = rules.usage("/x/1", content_signal_scope="file")
    assert (u.crawl, u["ai-train"], u.statements) == (False, None, ())


@pytest.mark.parametrize(
    ("usage_value", "signal_value", "search"),
    [
        ("search=y", "search=yes", True),
        ("search=y", "search=no", False),  # most restrictive wins across vocabularies
        ("search=n", "search=yes", False),
        ("train-ai=n", "search=yes", True),  # only one states it
        ("search=y", "ai-train=no", True),
        ("search=yes", "search=no", False),  # Content-Usage `yes` is unknown; signal decides
    ],
)
def test_search_in_both_vocabularies_combines(usage_value: str, signal_value: str,
                                              search: bool) -> None:
    """`search` is a category of both (AI-PREFERENCES.md 1.3 "Mapping to AIPREF"); the two
    statements combine per vocab "Combining Preferences" (any n wins, then any y)."""
    rules = parse(f"User-agent: *\nContent-Usage: {usage_value}\n"
                  f"Content-Signal: {signal_value}\n")
    u = rules.usage("/")
    assert u["search"] is search
    assert u.lines == (2, 3)


def test_ai_train_and_train_ai_stay_apart() -> None:
    """`ai-train` only approximates `train-ai` (AI-PREFERENCES.md 1.3): kept under its own name
    (nuxtseo docs: sites emit both)."""
    rules = parse("User-agent: *\nContent-Usage: train-ai=y\n"
                  "Content-Signal: ai-train=yes, search=yes, ai-input=yes\n")
    u = rules.usage("/")
    assert (u["train-ai"], u["ai-train"], u["ai-input"], u["search"]) == (True, True, True, True)


def test_llm_policy_and_license_are_file_wide_statements() -> None:
    """AI-PREFERENCES.md 1.4: `LLM-Policy` (crawler-commons: global) and RSL `License` are kept
    as typed records; they state no category."""
    rules = parse("LLM-Policy: /llms.txt\nLicense: https://e.com/license.xml\n"
                  "User-agent: *\nAllow: /\n")
    u = rules.usage("/")
    assert [(s.source, s.line, s.raw) for s in u.statements] == [
        ("llm-policy", 1, "/llms.txt"), ("license", 2, "https://e.com/license.xml")]
    assert u.lines == ()
    assert [s.source for s in aipref.records(rules)] == ["llm-policy", "license"]


def test_records_lists_every_ai_record_in_file_order() -> None:
    rules = parse("Content-Signal: search=yes\nUser-agent: a\nContent-Usage: train-ai=n\n"
                  "User-agent: b\nDisallow: /\nContent-Usage: /x search=n\nLLM-Policy: /l\n")
    got = [(s.source, s.line) for s in aipref.records(rules)]
    assert got == [("content-signal", 1), ("content-usage", 3), ("content-usage", 6),
                   ("llm-policy", 7)]


# -- use= and the mapping to AIPREF (issue 24) --------------------------------------------------


@pytest.mark.parametrize("level", ["immediate", "reference", "full"])
def test_use_is_parsed_and_reported(level: str) -> None:
    """AI-PREFERENCES.md 1.3: Cloudflare-managed files emit `use=immediate|reference|full`
    ("how AI systems may consume the content"); it states no category."""
    rules = parse(f"User-agent: *\nContent-Signal: search=yes, ai-train=no, use={level}\n")
    u = rules.usage("/x")
    assert u.use == level
    assert u.to_dict()["use"] == level
    assert "use" not in u.categories
    assert aipref.summarize_signals(rules).use == (level,)


def test_use_levels_are_ordered_least_permissive_first() -> None:
    """Cloudflare's crawl endpoint: "from least to most permissive, reference and full"."""
    levels = aipref.USE_LEVELS
    assert levels.index("reference") < levels.index("full")


@pytest.mark.parametrize(
    ("vocab", "expected"),
    [("vocab-07", {"search": True, "train-ai": False}),
     ("vocab-08", {"search": True, "train-ai": False, "ai-use": False})],
)
def test_mapping_to_aipref(vocab: str, expected: dict[str, bool]) -> None:
    """robotrules' own table (docs/ai-preferences.md, "Content-Signal and AIPREF"): search is
    search, ai-train approximates train-ai, ai-input approximates vocab-08's ai-use, use maps to
    nothing."""
    s = aipref.parse_content_signal("search=yes, ai-train=no, ai-input=no, use=reference")
    assert aipref.to_aipref(s, vocab) == expected
    u = parse("User-agent: *\nContent-Signal: search=yes, ai-train=no, ai-input=no\n").usage(
        "/", vocabulary=vocab)
    assert u.content_signal_as_aipref == expected
    assert u["train-ai"] is None  # a view: the answer keeps Content-Signal's own keys
    assert u["ai-train"] is False
