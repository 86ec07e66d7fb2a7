"""The registry's verification fields (data/agents.json ``verify``, robotrules.guard.registry).
Sources: Google "Verifying Googlebot and other Google crawlers" (common-crawlers.json,
special-crawlers.json; googlebot.com / google.com), Bing "Verifying Bingbot"
(bingbot.json; search.msn.com), OpenAI's bots page (gptbot.json, searchbot.json,
chatgpt-user.json; ChatGPT agent signs with Signature-Agent https://chatgpt.com)."""

from __future__ import annotations

import json
from importlib import resources
from urllib.parse import urlsplit

from robotrules.agents import find_agent
from robotrules.guard.registry import by_signature_agent, checks_for, range_lists


def test_every_verify_field_is_well_formed() -> None:
    doc = json.loads(resources.files("robotrules").joinpath("data/agents.json")
                     .read_text("utf-8"))
    seen = 0
    for a in doc["agents"]:
        v = a.get("verify")
        if v is None:
            continue
        seen += 1
        assert set(v) <= {"ranges", "rdns", "signature_agent"}, a["tokens"][0]
        if "ranges" in v:
            assert urlsplit(v["ranges"]["url"]).scheme == "https"
            assert v["ranges"]["format"] in ("google", "cidr")
        for s in v.get("rdns", ()):
            assert "." in s
            assert s == s.lower().strip(".")
        if "signature_agent" in v:
            assert urlsplit(v["signature_agent"]).scheme == "https"
    assert seen >= 20


def test_documented_methods() -> None:
    g = checks_for("Googlebot")
    assert g.ranges_url is not None
    assert g.ranges_url.endswith("/common-crawlers.json")
    assert g.rdns == ("googlebot.com", "google.com")
    ads = checks_for(find_agent("AdsBot-Google"))
    assert ads.ranges_url is not None
    assert ads.ranges_url.endswith("/special-crawlers.json")
    assert checks_for("bingbot").rdns == ("search.msn.com",)
    assert checks_for("GPTBot").ranges_url == "https://openai.com/gptbot.json"
    assert checks_for("ChatGPT Agent").signature_agent == "https://chatgpt.com"
    # an operator that publishes nothing (as far as the registry knows): no method
    assert not checks_for("ClaudeBot").any
    assert not checks_for("NoSuchBot").any
    assert "https://www.bing.com/toolbox/bingbot.json" in range_lists()
    found = by_signature_agent("https://chatgpt.com/")
    assert found is not None
    assert found.token == "ChatGPT Agent"
    assert by_signature_agent("https://unknown.example") is None
