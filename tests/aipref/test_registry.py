"""The crawler registry (data/agents.json; AI-PREFERENCES.md 2.1-2.2) and
tools/refresh_agents.py."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from robotrules.agents import PURPOSES, KnownAgent, by_purpose, find_agent, known_agents

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
TOOL = ROOT / "tools" / "refresh_agents.py"
REGISTRY = ROOT / "src" / "robotrules" / "data" / "agents.json"


def _names() -> list[str]:
    lines = (HERE / "data" / "ai_robots_names.txt").read_text("utf-8").splitlines()
    return [n for n in lines if n and not n.startswith("#")]


def test_every_ai_robots_txt_crawler_is_known() -> None:
    """Issue 13: "Cover at least the crawlers of the ai.robots.txt list" (robots.json keys,
    compared case-insensitively as robots.txt compares product tokens)."""
    missing = [n for n in _names() if find_agent(n) is None]
    assert missing == []
    assert len(_names()) >= 160


def test_search_engines_are_kept() -> None:
    for token in ("Googlebot", "Bingbot", "DuckDuckBot", "Baiduspider", "YandexBot", "Applebot",
                  "SeznamBot", "Yeti", "MojeekBot", "Qwantbot"):
        agent = find_agent(token)
        assert agent is not None
        assert "search" in agent.purposes


def test_fields() -> None:
    agents = known_agents()
    assert len({a.token.lower() for a in agents}) == len(agents)
    for a in agents:
        assert a.tokens[0] == a.token
        assert a.fallback == (a.tokens[1] if len(a.tokens) > 1 else None)
        assert a.name
        assert a.operator
        assert a.description.endswith(".")  # a sentence (data/agents.json "description")
        assert a.purposes
        assert a.purpose == a.purposes[0]  # the main purpose, not the description
        assert set(a.purposes) <= set(PURPOSES)
        assert a.honours_robots in (True, False, None)
        assert a.category in {"search", "ai", "seo", "ads", "social", "archive", "other"}
        assert a.user_agent is None or a.user_agent.strip() == a.user_agent
        assert set(a.to_dict()) >= {"token", "tokens", "purposes", "user_agent",
                                    "honours_robots", "description", "purpose"}


def test_fallback_chains() -> None:
    """AI-PREFERENCES.md 2.1 (susbot): tokens most specific first, then the fallback."""
    image = find_agent("Googlebot-Image")
    assert image is not None
    assert image.tokens == ("Googlebot-Image", "Googlebot")
    other = find_agent("GoogleOther-Video")
    assert other is not None
    assert other.fallback == "GoogleOther"


def test_control_tokens_have_no_user_agent() -> None:
    """AI-PREFERENCES.md 2.1: control tokens (Google-Extended, Applebot-Extended) never fetch."""
    for token in ("Google-Extended", "Applebot-Extended"):
        agent = find_agent(token)
        assert agent is not None
        assert agent.user_agent is None
        assert agent.purposes == ("training",)


def test_purposes_taxonomy() -> None:
    """AI-PREFERENCES.md 2.1 "Purpose taxonomy converging across sources"."""
    assert {"GPTBot", "ClaudeBot", "CCBot", "Google-Extended", "Applebot-Extended",
            "Meta-ExternalAgent"} <= {a.token for a in by_purpose("training")}
    assert {"OAI-SearchBot", "Claude-SearchBot", "PerplexityBot"} <= {
        a.token for a in by_purpose("ai-search")}
    assert {"ChatGPT-User", "Claude-User", "Perplexity-User", "Meta-ExternalFetcher"} <= {
        a.token for a in by_purpose("user-fetch")}


def test_aliases_find_their_crawler() -> None:
    """robots.json lists `MistralAI-User/1.0` and `MistralAI-User` for one crawler."""
    agent = find_agent("MistralAI-User/1.0")
    assert agent is not None
    assert agent.token == "MistralAI-User"
    assert find_agent("  gptbot ") is not None


# Among them, the hard cases: "compatible; Yahoo! Slurp" (an operator's name before the
# product, no "/"), and LinkedIn's "LinkedInBot/1.0 (compatible; Mozilla/5.0;
# Apache-HttpClient ...)" (its own leading product before a "compatible" list of others).
@pytest.mark.parametrize(
    "agent",
    [pytest.param(a, id=a.token) for a in known_agents() if a.user_agent is not None],
)
def test_every_user_agent_string_yields_its_token(agent: KnownAgent) -> None:
    """Issue 13: "the registry's every User-Agent string maps to its token" through the one
    product-token extractor (robotrules._token.product_token). A crawler that documents only
    its fallback's string (Googlebot-News sends Googlebot's) maps to a token of its chain."""
    token_mod = pytest.importorskip("robotrules._token")
    assert agent.user_agent is not None
    got = token_mod.product_token(agent.user_agent)
    assert got.lower() in {t.lower() for t in (*agent.tokens, *agent.aliases)}


def test_user_agent_strings_name_their_crawler() -> None:
    """Independent of the extractor: each string contains one of its crawler's tokens as a
    whole word (ai.robots.txt FAQ: match names as whole words)."""
    import re

    for a in known_agents():
        if a.user_agent is None:
            continue
        names = "|".join(re.escape(t) for t in a.tokens)
        assert re.search(rf"(?<![A-Za-z0-9_-])({names})(?![A-Za-z_-])", a.user_agent,
                         re.IGNORECASE), a.token


# -- tools/refresh_agents.py -------------------------------------------------------------------


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True,
                          check=False, timeout=60)


def test_refresh_merges_a_small_list(tmp_path: Path) -> None:
    reg = tmp_path / "agents.json"
    shutil.copy(REGISTRY, reg)
    before = json.loads(reg.read_text("utf-8"))
    r = _run(str(HERE / "data" / "robots_small.json"), "--registry", str(reg))
    assert r.returncode == 0, r.stderr
    after = json.loads(reg.read_text("utf-8"))
    by_token = {a["tokens"][0]: a for a in after["agents"]}
    # known names change nothing curated
    old_gpt = next(a for a in before["agents"] if a["tokens"][0] == "GPTBot")
    assert by_token["GPTBot"] == old_gpt
    # a new product token: a new crawler, fields derived, the list's text not copied
    new = by_token["NewSearchBot"]
    assert new["operator"] == "Example AI"
    assert new["honours_robots"] is True
    assert new["purposes"] == ["ai-search"]
    assert new["category"] == "ai"
    assert new["user_agent"] is None
    assert "text of the list" not in new["description"]
    # its lower-case twin is the same crawler
    assert "newsearchbot" not in by_token
    # name + version of a known crawler: an alias
    assert "Claude-User/1.0" in by_token["Claude-User"]["aliases"]
    # name + version of an unknown crawler: a crawler of its own
    assert by_token["NewAssistant/2.1"]["honours_robots"] is False
    assert by_token["NewAssistant/2.1"]["purposes"] == ["user-fetch"]
    # the spaced spelling becomes an alias of the token, whatever the order in the file
    assert by_token["OddCrawler"]["aliases"] == ["Odd Crawler"]
    assert by_token["OddCrawler"]["operator"] == "Odd Inc"
    assert len(after["agents"]) == len(before["agents"]) + 3
    # a second run changes nothing
    again = _run(str(HERE / "data" / "robots_small.json"), "--registry", str(reg), "--check")
    assert again.returncode == 0
    assert "0 change" not in again.stdout  # --check prints only the changes
    assert again.stdout.strip() == ""


def test_refresh_check_reports_without_writing(tmp_path: Path) -> None:
    reg = tmp_path / "agents.json"
    shutil.copy(REGISTRY, reg)
    text = reg.read_text("utf-8")
    r = _run(str(HERE / "data" / "robots_small.json"), "--registry", str(reg), "--check")
    assert r.returncode == 1
    assert "added 'NewSearchBot'" in r.stdout
    assert reg.read_text("utf-8") == text


def test_refresh_bad_input_is_one_line_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]", "utf-8")
    r = _run(str(bad), "--registry", str(REGISTRY), "--check")
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1
    r = _run(str(tmp_path / "missing.json"))
    assert r.returncode == 2


@pytest.mark.parametrize("name", [
    "AI2Bot", "AI2Bot-DeepResearchEval", "Ai2Bot-Dolma", "bigsur.ai", "Brightbot 1.0",
    "Channel3Bot", "ChatGPT Agent", "Crawl4AI", "Datenbank Crawler", "Echobot Bot",
    "iaskspider/2.0", "img2dataset", "Kangaroo Bot", "Linguee Bot", "MistralAI-User/1.0",
    "netEstate Imprint Crawler", "panscient.com", "Poseidon Research Crawler", "quillbot.com",
    "Sidetrade indexer bot", "Terra Cotta",
])
def test_the_21_names_that_are_not_product_tokens_are_known(name: str) -> None:
    """AI-PREFERENCES.md 2.2: the 21 keys of ai.robots.txt HEAD 738c80d that are not valid
    RFC 9309 product tokens; the registry finds each (as a crawler or an alias)."""
    assert find_agent(name) is not None
