"""Well-known crawlers as data, ``assess`` and ``robotrules agents`` (issue 5)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from robotrules import parse
from robotrules.agents import assess, find_agent, known_agents
from tests.cli.conftest import Server

FILE = """\
User-agent: *
Disallow: /private/

User-agent: GPTBot
Disallow: /

User-agent: Googlebot
Disallow: /
Allow: /public/

User-agent: CCBot
Disallow: /
Allow: /$
"""


def test_data_has_the_well_known_crawlers() -> None:
    agents = known_agents()
    assert len(agents) >= 40
    tokens = {a.token for a in agents}
    for t in ("Googlebot", "Bingbot", "GPTBot", "ClaudeBot", "Google-Extended", "CCBot",
              "PerplexityBot", "Bytespider", "AhrefsBot", "SemrushBot"):
        assert t in tokens
    assert len({t.lower() for t in tokens}) == len(tokens)
    assert {a.category for a in agents} >= {"search", "ai", "seo"}
    assert all(a.operator and a.purpose and a.name for a in agents)


@pytest.mark.parametrize(
    ("token", "access", "via", "group_line"),
    [
        ("GPTBot", "blocked", "named", 4),  # RFC 9309 2.2.1: its own group
        ("Googlebot", "partial", "named", 7),  # an allow re-opens /public/ (2.2.2)
        ("CCBot", "partial", "named", 11),  # Allow: /$ is longer than Disallow: /
        ("ClaudeBot", "partial", "global", 1),  # no group names it: * (2.2.1)
        ("Googlebot-Image", "partial", "fallback", 7),  # Google: falls back to Googlebot
        ("AdsBot-Google", "allowed", "none", None),  # Google: AdsBot ignores *
    ],
)
def test_assess(token: str, access: str, via: str, group_line: int | None) -> None:
    a = assess(parse(FILE), token)
    assert (a.access, a.via, a.group_line) == (access, via, group_line)


def test_assess_no_rules_is_allowed() -> None:
    """RFC 9309 2.2.1: no matching group and no * group: no rules apply."""
    a = assess(parse("User-agent: Foo\nDisallow: /\n"), "GPTBot")
    assert a.access == "allowed"
    assert a.group_line is None


def test_assess_disallow_everything_with_dead_allow_is_blocked() -> None:
    """RFC 9309 2.2.2: an allow shorter than the blanket disallow never wins."""
    a = assess(parse("User-agent: GPTBot\nDisallow: /*\nAllow: /\n"), find_agent("gptbot") or "")
    assert a.access == "blocked"


def test_cli_agents_table(cli: Any, tmp_path: Path) -> None:
    p = tmp_path / "robots.txt"
    p.write_text(FILE)
    r = cli("agents", str(p))
    assert r.code == 0
    line = next(x for x in r.out.splitlines() if x.strip().startswith("GPTBot "))
    assert "blocked" in line
    assert "line 4" in line
    assert "OpenAI" in line


def test_cli_agents_json_category(cli: Any, tmp_path: Path) -> None:
    p = tmp_path / "robots.txt"
    p.write_text(FILE)
    r = cli("agents", str(p), "--json", "--category", "seo")
    rows = [json.loads(x) for x in r.out.splitlines()]
    assert rows
    assert all(x["category"] == "seo" for x in rows)
    assert {"token", "operator", "access", "group_line", "purpose"} <= set(rows[0])


def test_rfc9309_2_3_1_4_cli_agents_url_unreachable(cli: Any, server: Server) -> None:
    server.robots("", status=500)
    r = cli("agents", server.base, "--json")
    rows = [json.loads(x) for x in r.out.splitlines()]
    assert rows
    assert all(x["access"] == "blocked" for x in rows)


def test_cli_agents_url(cli: Any, server: Server) -> None:
    server.robots(FILE)
    r = cli("agents", server.base + "/any/page", "--json", "--category", "ai")
    by = {x["token"]: x for x in map(json.loads, r.out.splitlines())}
    assert by["GPTBot"]["access"] == "blocked"
    assert by["ClaudeBot"]["access"] == "partial"


def test_assess_names_that_are_not_rfc_tokens_match_as_written() -> None:
    """Majestic's MJ12bot obeys 'User-agent: MJ12bot' (RFC 9309 2.2.1 would read 'MJ')."""
    rules = parse("User-agent: MJ12bot\nDisallow: /\n\nUser-agent: *\nDisallow: /x/\n")
    a = assess(rules, "MJ12bot")
    assert (a.access, a.via, a.group_line) == ("blocked", "named", 1)


def test_cli_agents_readable_at_80_columns(cli: Any, tmp_path: Path) -> None:
    """Issue 26: at 80 columns names were cut ('Applebot-Extend…') and each reason wrapped
    over five lines; issue 39: the last line broke a word ('know|n') where the terminal
    wrapped it. No line is wider than the terminal, every name is whole, and the sentence
    words wrap between words."""
    p = tmp_path / "robots.txt"
    p.write_text(FILE)
    r = cli("agents", str(p), "--color", "always", env={"COLUMNS": "80"})
    assert r.code == 0
    text = re.sub(r"\x1b\[[0-9;]*m", "", r.out)
    lines = text.splitlines()
    assert max(len(x.rstrip()) for x in lines) <= 80
    assert "\N{HORIZONTAL ELLIPSIS}" not in text
    for token in {a.token for a in known_agents()}:
        assert re.search(rf"(?<![\w-]){re.escape(token)}(?![\w-])", text), token
    assert "known crawlers" in " ".join(x.strip() for x in lines[-2:])


def test_cli_agents_in_a_pipe_honours_columns_without_repeating_itself(
        cli: Any, tmp_path: Path) -> None:
    """Issue 39: in a pipe ``agents`` was 140 columns whatever COLUMNS said, carried trailing
    spaces and ran to 234 lines, most repeating one sentence (every crawler that no group
    names gets the * group's answer). Those crawlers share one sentence per purpose, their
    names listed after it; a named crawler keeps its row."""
    p = tmp_path / "robots.txt"
    p.write_text("User-agent: *\nDisallow: /private/\n\nUser-agent: GPTBot\nDisallow: /\n")
    r = cli("agents", str(p), env={"COLUMNS": "72"})
    assert r.code == 0
    lines = r.out.splitlines()
    assert max(len(x) for x in lines) <= 72
    assert [x for x in lines if x != x.rstrip()] == []
    assert len(lines) < 100
    purposes = len(re.findall(r"^\S+ \(\d+\)$", r.out, re.MULTILINE))
    # 194 crawlers get the * group's answer: the sentence is said about once per purpose (a
    # purpose with fewer than three such crawlers keeps their rows), not once per crawler
    assert purposes <= r.out.count("* group (line 1)") <= purposes + 3
    gpt = next(x for x in lines if x.startswith("GPTBot "))
    assert "blocked" in gpt
    assert "own group (line 4): line 5 Disallow: /" in gpt
    for token in {a.token for a in known_agents()}:
        assert re.search(rf"(?<![\w-]){re.escape(token)}(?![\w-])", r.out), token


POLICY_FILE = "User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n"


def test_cli_policy_token_option(cli: Any, tmp_path: Path) -> None:
    """`--policy-token TOKEN=CATEGORY` (draft-kelley-aipref-training-preference-signal-00: a
    group keyed by a policy token is a usage statement, not a crawler's rules) on agents, lint
    and check; GPTBot stands in for a token here (the draft's spelling is not in the stored
    texts, so the built-in table is empty)."""
    p = tmp_path / "robots.txt"
    p.write_text(POLICY_FILE)
    plain = [json.loads(x) for x in cli("agents", str(p), "--json").out.splitlines()]
    assert next(x for x in plain if x["token"] == "GPTBot")["access"] == "blocked"
    told = cli("agents", str(p), "--json", "--policy-token", "GPTBot=train-ai")
    row = next(json.loads(x) for x in told.out.splitlines() if '"GPTBot"' in x)
    assert row["access"] == "allowed"
    assert "policy token" in row["detail"]
    lint = cli("lint", str(p), "--json", "--policy-token", "GPTBot=train-ai")
    assert [json.loads(x)["code"] for x in lint.out.splitlines()].count("L045") == 1
    check = cli("check", "--json", "-r", str(p), "-a", "ClaudeBot", "https://x.com/a",
                "--policy-token", "GPTBot=train-ai")
    usage = json.loads(check.out)["usage"]
    assert usage["categories"] == {"train-ai": False}
    assert usage["policy_tokens"] == ["GPTBot"]


@pytest.mark.parametrize("command", [["agents"], ["lint"], ["check", "-a", "X", "-r"]])
def test_cli_policy_token_bad_value(cli: Any, tmp_path: Path, command: list[str]) -> None:
    """Bad input: one line on stderr, exit status 2, no traceback."""
    p = tmp_path / "robots.txt"
    p.write_text(POLICY_FILE)
    args = [*command, str(p)] + (["https://x.com/"] if command[0] == "check" else [])
    r = cli(*args, "--policy-token", "not a token")
    assert r.code == 2
    assert "TOKEN=CATEGORY" in r.err
    assert "Traceback" not in r.err

def test_agents_each_purpose_heading_once(cli: Any, sample_robots: Path) -> None:
    """Issue 16: ``agents`` repeated category headings; issue 13: grouped by purpose (each
    crawler under its first purpose)."""
    from robotrules.agents import known_agents, purposes_of

    r = cli("agents", str(sample_robots))
    assert r.code == 0
    for purpose in {purposes_of(a)[0] for a in known_agents()}:
        n = sum(1 for x in r.out.splitlines() if re.match(rf"{purpose} \(\d+\)\s*$", x))
        assert n == 1, (purpose, r.out)


def test_agents_purpose_filter_and_usage(cli: Any, tmp_path: Path) -> None:
    """Issue 13: ``--purpose training`` keeps the training crawlers; each row gives the usage
    preferences the file states for it (attach-05: the * group's Content-Usage applies to a
    crawler without its own group, and not to one with its own group)."""
    import json

    f = tmp_path / "robots.txt"
    f.write_text("User-agent: *\nContent-Usage: train-ai=n\n\nUser-agent: GPTBot\n"
                 "Disallow: /\n", "utf-8")
    r = cli("agents", str(f), "--purpose", "training", "--json")
    assert r.code == 0
    rows = {d["token"]: d for d in map(json.loads, r.out.splitlines())}
    assert all("training" in d["purposes"] for d in rows.values())
    assert rows["GPTBot"]["access"] == "blocked"
    assert rows["GPTBot"]["usage"] == {}  # may not crawl /: no preference applies
    assert rows["ClaudeBot"]["usage"] == {"train-ai": False}
