"""robotrules.aipref.policy_tokens: groups keyed by a per-purpose policy token.

draft-kelley-aipref-training-preference-signal-00, abstract: an operator "binds usage
preferences (e.g., "no AI training") to paths by writing ordinary robots.txt groups keyed by a
per-purpose policy token in the User-Agent line. It introduces no new directive names and no new
grammar: the path language, longest-match precedence, and group structure of robots.txt are not
changed." The draft's token spelling was not readable in the stored copies, so these tests pass
their own table; ``example-no-train`` is a placeholder, not the draft's token.
"""

from __future__ import annotations

import pytest

from robotrules import agents, aipref, parse

TOKENS = {"example-no-train": "train-ai"}
BODY = """\
User-agent: *
Allow: /

User-agent: example-no-train
Disallow: /private/
Allow: /private/open/
"""


def test_disallow_in_the_token_group_states_n() -> None:
    """A Disallow of the token's group is "no training" for the paths it matches."""
    u = parse(BODY).usage("https://x.com/private/a", user_agent="SomeBot", policy_tokens=TOKENS)
    assert u.crawl is True  # the crawler's own reading is untouched
    assert u["train-ai"] is False
    assert u.lines == (5,)
    assert u.policy_tokens == ("example-no-train",)


def test_longest_match_precedence_is_unchanged() -> None:
    """"longest-match precedence ... not changed": Allow: /private/open/ wins there."""
    u = parse(BODY).usage("https://x.com/private/open/x", policy_tokens=TOKENS)
    assert u["train-ai"] is True


def test_no_matching_rule_states_nothing() -> None:
    u = parse(BODY).usage("https://x.com/public", policy_tokens=TOKENS)
    assert u["train-ai"] is None
    assert u.policy_tokens == ()


def test_without_a_table_the_group_is_an_ordinary_group() -> None:
    """The default table is empty until the draft's spelling is confirmed."""
    assert aipref.POLICY_TOKENS == {}
    assert parse(BODY).usage("https://x.com/private/a")["train-ai"] is None


def test_combined_most_restrictively_with_content_usage() -> None:
    """vocab-07 "Combining Preferences": any n wins."""
    body = BODY.replace("Allow: /\n", "Allow: /\nContent-Usage: train-ai=y\n", 1)
    u = parse(body).usage("https://x.com/private/a", policy_tokens=TOKENS)
    assert u["train-ai"] is False
    assert parse(body).usage("https://x.com/public", policy_tokens=TOKENS)["train-ai"] is True


def test_token_without_own_group_states_nothing() -> None:
    """Only a group naming the token speaks; `*` does not stand in for it."""
    u = parse("User-agent: *\nDisallow: /x\n").usage("https://x.com/y", policy_tokens=TOKENS)
    assert u["train-ai"] is None


def test_agents_never_count_a_policy_token_as_a_blocked_crawler(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(aipref.policy_tokens, "POLICY_TOKENS", TOKENS)
    rules = parse("User-agent: example-no-train\nDisallow: /\n")
    got = agents.assess(rules, "example-no-train")
    assert got.access == "allowed"
    assert "policy token" in got.detail


def test_lint_explains_the_group() -> None:
    found = [f for f in aipref.lint_findings(parse(BODY), policy_tokens=TOKENS)
             if f.code == "L045"]
    assert [(f.code, f.line, f.severity) for f in found] == [("L045", 4, "info")]
    assert "not a crawler" in found[0].message


def test_summary_counts_the_group() -> None:
    s = aipref.summarize_signals(parse(BODY), policy_tokens=TOKENS)
    assert s.policy_groups == (("example-no-train", "train-ai", 4),)
    assert s.categories["train-ai"]["group"] == 1
    assert s.any


# -- the policy_tokens= path, everywhere (the built-in table is empty until the draft's spelling
# is read from its text; docs/ai-preferences.md "Policy-token groups" lists what was searched)


def test_parse_policy_tokens() -> None:
    """`TOKEN=CATEGORY`: a product token (RFC 9309 2.2.1) and a lower-case category label
    (vocab-07 "Preference Labels"); blanks skipped; the last repeat counts."""
    assert aipref.parse_policy_tokens(["example-no-train=train-ai", " ", "X = search",
                                       "X=train-ai"]) == {"example-no-train": "train-ai",
                                                          "X": "train-ai"}
    assert aipref.parse_policy_tokens([]) == {}


@pytest.mark.parametrize("item", ["no-equals", "=train-ai", "a b=train-ai", "X=Train-AI",
                                  "X=", "X=train ai", "É=train-ai"])
def test_parse_policy_tokens_refuses(item: str) -> None:
    with pytest.raises(ValueError, match="TOKEN=CATEGORY"):
        aipref.parse_policy_tokens([item])


def test_assess_takes_the_table() -> None:
    """`agents` never counts a policy token as a blocked crawler; the table is passed, not
    patched, and without it the same group is an ordinary crawler's."""
    rules = parse("User-agent: example-no-train\nDisallow: /\n")
    assert agents.assess(rules, "example-no-train").access == "blocked"
    got = agents.assess(rules, "example-no-train", policy_tokens=TOKENS)
    assert got.access == "allowed"
    assert "policy token" in got.detail
    many = agents.assess_many(rules, ["example-no-train", "GPTBot"], policy_tokens=TOKENS)
    assert [a.access for a in many] == ["allowed", "allowed"]


def test_lint_takes_the_table() -> None:
    """robotrules.lint.lint passes the table to the AI-preference findings (L045)."""
    from robotrules.lint import lint

    assert not [f for f in lint(BODY) if f.code == "L045"]
    found = [f for f in lint(BODY, policy_tokens=TOKENS) if f.code == "L045"]
    assert [(f.line, f.severity) for f in found] == [(4, "info")]
