"""``POST /api/usage`` (AI usage preferences per crawler and URL) and ``POST /api/agents`` (the
registry's crawlers open, partly or blocked by a draft, by purpose), through Starlette's
TestClient.

Sources of the expectations, quoted where used:

- draft-ietf-aipref-attach-05 ("attach-05"), summarised in /work/shared/AI-PREFERENCES.md 1.2:
  its worked example, "Content-Usage Rule Semantics" (group selection is RFC 9309 2.2.1,
  preferences attach only to crawlable resources, identical paths combine most-restrictively).
- Cloudflare's Content Signals Policy (AI-PREFERENCES.md 1.3): a key left out "neither grants
  nor restricts"; the scope of a Content-Signal line is per group in Cloudflare's reading and
  file-wide in crawler-commons' (``RobotsExtension.CONTENT_SIGNALS``, ``isPerGroup()==false``).
- RFC 9309 2.2.1 and 2.2.2 for which group a crawler obeys and what ``Disallow: /`` blocks.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

with warnings.catch_warnings():  # Starlette 1.x prefers httpx2; httpx is what is installed
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from robotrules.agents import PURPOSES, known_agents, purposes_of
from robotrules.web import create_app
from robotrules.web._app import MAX_AGENTS, MAX_CELLS, MAX_URLS
from robotrules.web._work import usage_cost

from .test_bad_input import json_values, text

pytestmark = pytest.mark.filterwarnings(
    "ignore:Using `httpx` with `starlette.testclient`:DeprecationWarning"
)

# attach-05, the worked example: the * group of a site.
ATTACH_05 = """\
User-agent: *
Allow: /
Disallow: /never/
Content-Usage: train-ai=n
Content-Usage: /ai-ok/ train-ai=y
"""

SIGNALS = """\
User-agent: *
Disallow: /private/
Content-Signal: search=yes, ai-train=no

User-agent: GPTBot
Disallow: /drafts/
"""


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(workers=1), base_url="http://127.0.0.1") as c:
        yield c


def usage(client: TestClient, body: str, urls: list[str], agents: list[str],
          **extra: Any) -> dict[tuple[str, str], dict[str, Any]]:
    response = client.post("/api/usage", json={"robots_txt": body, "urls": urls,
                                               "agents": agents, **extra})
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["columns"] == ["train-ai", "search", "ai-train", "ai-input"]
    assert len(data["results"]) == len(urls) * len(agents)
    return {(r["agent"], r["url"]): r for r in data["results"]}


# -- /api/usage ----------------------------------------------------------------------------------


def test_attach05_worked_example(client: TestClient) -> None:
    got = usage(client, ATTACH_05, ["/test", "/never/test", "/ai-ok/test"], ["ExampleBot"])
    # "/test": crawl yes, train-ai=n (the path-less rule, length 0, is the only match)
    test = got[("ExampleBot", "/test")]
    assert test["crawl"] is True
    assert test["categories"]["train-ai"] is False
    assert test["lines"] == [4]
    assert test["crawl_line"] == 2  # Allow: / decides the crawl
    # "/never/test": crawl no; "no preferences are implied for resources that are disallowed"
    never = got[("ExampleBot", "/never/test")]
    assert never["crawl"] is False
    assert set(never["categories"].values()) == {None}
    assert never["lines"] == []
    assert never["crawl_line"] == 3
    # "/ai-ok/test": crawl yes, train-ai=y (the longer matching path decides)
    ok = got[("ExampleBot", "/ai-ok/test")]
    assert ok["crawl"] is True
    assert ok["categories"]["train-ai"] is True
    assert ok["lines"] == [5]
    # the vocabulary's other categories are stated nowhere: unknown
    assert test["categories"]["search"] is None


def test_a_crawler_with_its_own_group_does_not_see_the_star_preferences(
        client: TestClient) -> None:
    # attach-05 "Content-Usage Rule Semantics": group selection is RFC 9309 2.2.1
    body = ATTACH_05 + "\nUser-agent: GPTBot\nAllow: /\n"
    got = usage(client, body, ["/test"], ["GPTBot", "OtherBot"])
    assert got[("GPTBot", "/test")]["categories"]["train-ai"] is None
    assert got[("GPTBot", "/test")]["lines"] == []
    assert got[("OtherBot", "/test")]["categories"]["train-ai"] is False


def test_identical_paths_combine_most_restrictively(client: TestClient) -> None:
    # attach-05: identical paths with conflicting preferences both apply, "most restrictive"
    body = "User-agent: *\nContent-Usage: /a/ train-ai=y\nContent-Usage: /a/ train-ai=n\n"
    got = usage(client, body, ["/a/b"], ["*"])
    assert got[("*", "/a/b")]["categories"]["train-ai"] is False
    assert got[("*", "/a/b")]["lines"] == [2, 3]


def test_the_content_signal_scope_switch(client: TestClient) -> None:
    urls = ["/page", "/private/x"]
    agents = ["GPTBot", "ClaudeBot"]
    group = usage(client, SIGNALS, urls, agents, scope="group")
    # Cloudflare's reading: the line belongs to the * group; GPTBot has its own group.
    assert group[("ClaudeBot", "/page")]["categories"]["ai-train"] is False
    assert group[("ClaudeBot", "/page")]["categories"]["search"] is True
    assert group[("ClaudeBot", "/page")]["lines"] == [3]
    assert group[("GPTBot", "/page")]["categories"]["ai-train"] is None
    assert group[("GPTBot", "/page")]["lines"] == []
    # a key left out "neither grants nor restricts"
    assert group[("ClaudeBot", "/page")]["categories"]["ai-input"] is None
    # disallowed: no preferences attach (attach-05)
    assert group[("ClaudeBot", "/private/x")]["crawl"] is False
    assert group[("ClaudeBot", "/private/x")]["categories"]["ai-train"] is None

    file = usage(client, SIGNALS, urls, agents, scope="file")
    # crawler-commons' reading: every Content-Signal line applies to every crawler.
    assert file[("GPTBot", "/page")]["categories"]["ai-train"] is False
    assert file[("GPTBot", "/page")]["lines"] == [3]
    assert file[("GPTBot", "/private/x")]["crawl"] is True  # GPTBot's group only has /drafts/
    assert file[("GPTBot", "/private/x")]["scope"] == "file"
    assert file[("ClaudeBot", "/private/x")]["crawl"] is False


def test_the_scope_defaults_to_per_group_and_the_dialect_is_used(client: TestClient) -> None:
    response = client.post("/api/usage", json={"robots_txt": SIGNALS, "urls": ["/"],
                                               "agents": ["GPTBot"], "dialect": "google"})
    assert response.status_code == 200
    data = response.json()
    assert (data["scope"], data["dialect"]) == ("group", "google")


# -- bad input: the same validation and limits as /api/check --------------------------------------


def post_raw(client: TestClient, path: str, raw: bytes,
             content_type: str = "application/json") -> tuple[int, dict[str, Any]]:
    response = client.post(path, content=raw, headers={"content-type": content_type})
    return response.status_code, response.json()


@pytest.mark.parametrize(("body", "message"), [
    ({"urls": ["/"], "agents": ["a"]}, "'robots_txt' must be a string"),
    ({"robots_txt": "", "urls": "/", "agents": ["a"]}, "'urls' must be a list of strings"),
    ({"robots_txt": "", "urls": ["/"], "agents": [1]}, "'agents' must be a list of strings"),
    ({"robots_txt": "", "urls": ["/"], "agents": ["a"], "scope": "site"}, "'scope' must be one"),
    ({"robots_txt": "", "urls": ["/"], "agents": ["a"], "scope": None}, "'scope' must be one"),
    ({"robots_txt": "", "urls": ["/"], "agents": ["a"], "dialect": "bing"}, "'dialect' must be"),
    ({"robots_txt": "", "urls": ["/"] * 0 + [f"/{i}" for i in range(MAX_URLS + 1)],
      "agents": ["a"]}, f"at most {MAX_URLS} urls"),
    ({"robots_txt": "", "urls": ["/"], "agents": [f"a{i}" for i in range(MAX_AGENTS + 1)]},
     f"at most {MAX_AGENTS} agents"),
    ({"robots_txt": "", "urls": ["/" + "a" * 9000], "agents": ["a"]}, "at most 8192"),
])
def test_bad_fields_get_400(client: TestClient, body: dict[str, Any], message: str) -> None:
    status, data = post_raw(client, "/api/usage", json.dumps(body).encode())
    assert status == 400
    assert message in data["error"]


@pytest.mark.parametrize("raw", [b"{", b"[]", b"\xff\xfe", b"[" * 100_000,
                                 b'{"robots_txt": "\\ud800", "urls": [], "agents": []}'])
def test_bad_json_gets_400(client: TestClient, raw: bytes) -> None:
    for path in ("/api/usage", "/api/agents"):
        status, data = post_raw(client, path, raw)
        assert status == 400, (path, raw[:20])
        assert data["error"]


def test_wrong_media_type_and_huge_bodies(client: TestClient) -> None:
    for path in ("/api/usage", "/api/agents"):
        assert post_raw(client, path, b"{}", "text/plain")[0] == 415
        assert post_raw(client, path, b" " * (1024 * 1024 + 1))[0] == 413


def test_too_many_cells_get_422(client: TestClient) -> None:
    urls = [f"/{i}" for i in range(MAX_URLS)]
    agents = [f"bot{i}" for i in range(MAX_CELLS // MAX_URLS + 1)]
    status, data = post_raw(client, "/api/usage", json.dumps(
        {"robots_txt": "", "urls": urls, "agents": agents}).encode())
    assert status == 422
    assert "verdicts per request" in data["error"]


def test_past_the_work_budget_gets_422_before_any_work() -> None:
    body = "User-agent: *\n" + "Content-Usage: /*a*b*c train-ai=n\n" * 2000
    urls, agents = ["/" + "a" * 4000], ["BotA", "BotB"]
    cost = usage_cost(body, urls, agents)
    with TestClient(create_app(workers=1, work_budget=cost - 1),
                    base_url="http://127.0.0.1") as c:
        response = c.post("/api/usage", json={"robots_txt": body, "urls": urls,
                                              "agents": agents})
        assert response.status_code == 422
        assert "too much work" in response.json()["error"]
        assert c.app.state.pool.killed == 0  # type: ignore[attr-defined]
    with TestClient(create_app(workers=1, work_budget=cost),
                    base_url="http://127.0.0.1") as c:
        response = c.post("/api/usage", json={"robots_txt": body, "urls": urls,
                                              "agents": agents})
        assert response.status_code == 200, response.text


def test_usage_cost_counts_content_usage_rules_and_lines() -> None:
    plain = usage_cost("User-agent: *\n", ["/abc"], ["a"])
    more = usage_cost("User-agent: *\nContent-Usage: /x train-ai=n\n", ["/abc"], ["a"])
    assert more > plain
    assert usage_cost("x", ["/abc"], ["a", "b"]) == 2 * usage_cost("x", ["/abc"], ["a"])


# -- POST /api/agents: the registry by purpose ---------------------------------------------------


def overview(client: TestClient, body: str, dialect: str = "rfc9309") -> dict[str, Any]:
    response = client.post("/api/agents", json={"robots_txt": body, "dialect": dialect})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def rows(data: dict[str, Any], purpose: str) -> dict[str, dict[str, Any]]:
    group = next(p for p in data["purposes"] if p["purpose"] == purpose)
    return {a["token"]: a for a in group["agents"]}


def test_registry_by_purpose_with_the_deciding_group_and_line(client: TestClient) -> None:
    body = "User-agent: *\nDisallow: /private/\n\nUser-agent: GPTBot\nDisallow: /\n"
    data = overview(client, body)
    agents = known_agents()
    assert data["total"] == len(agents)
    # every crawler is listed under each of its purposes, in PURPOSES order
    listed = [p["purpose"] for p in data["purposes"]]
    assert listed == [p for p in PURPOSES if any(p in purposes_of(a) for a in agents)]
    for group in data["purposes"]:
        expected = [a.token for a in agents if group["purpose"] in purposes_of(a)]
        assert [a["token"] for a in group["agents"]] == expected
        counts = group["counts"]
        assert sum(counts.values()) == len(expected)
        for state in ("allowed", "partial", "blocked"):
            assert counts[state] == sum(1 for a in group["agents"] if a["access"] == state)
    assert sum(data["counts"].values()) == len(agents)

    # RFC 9309 2.2.1: GPTBot obeys its own group; 2.2.2: "Disallow: /" matches every path
    gpt = rows(data, "training")["GPTBot"]
    assert (gpt["access"], gpt["via"], gpt["group_line"], gpt["line"]) == (
        "blocked", "named", 4, 5)
    assert gpt["rule"] == "Disallow: /"
    # a crawler no group names obeys *: partly blocked by line 2
    other = next(a for a in rows(data, "training").values() if a["token"] != "GPTBot"
                 and a["via"] == "global")
    assert (other["access"], other["group_line"], other["line"]) == ("partial", 1, 2)


def test_registry_of_an_empty_file_is_all_open(client: TestClient) -> None:
    # RFC 9309 2.2.1: with no group for a crawler, it may crawl everything
    data = overview(client, "")
    assert data["counts"] == {"allowed": len(known_agents()), "partial": 0, "blocked": 0}


def test_registry_follows_the_dialect(client: TestClient) -> None:
    # Google's parser reads "User-agent: AI2Bot" as "AI" (AI-PREFERENCES.md, issue 13),
    # so the group names no real crawler there; RFC 9309 reads the whole token.
    body = "User-agent: AI2Bot\nDisallow: /\n"
    assert "AI2Bot" in {a.token for a in known_agents()}  # the registry ships it
    rfc = {a["token"]: a for p in overview(client, body)["purposes"] for a in p["agents"]}
    google = {a["token"]: a
              for p in overview(client, body, "google")["purposes"] for a in p["agents"]}
    assert rfc["AI2Bot"]["access"] == "blocked"
    assert google["AI2Bot"]["access"] == "allowed"


def test_registry_bad_input(client: TestClient) -> None:
    for body in ({}, {"robots_txt": 3}, {"robots_txt": "", "dialect": "msn"}):
        status, data = post_raw(client, "/api/agents", json.dumps(body).encode())
        assert status == 400
        assert data["error"]


def test_get_api_agents_is_unchanged(client: TestClient) -> None:
    response = client.get("/api/agents")
    assert response.status_code == 200
    assert len(response.json()["agents"]) == len(known_agents())
    assert client.put("/api/agents", json={}).status_code == 405


# -- fuzz: no input gives a 5xx --------------------------------------------------------------------

keys = st.sampled_from(["robots_txt", "urls", "agents", "dialect", "scope"])
FUZZ = settings(max_examples=80, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@FUZZ
@given(path=st.sampled_from(["/api/usage", "/api/agents"]),
       body=st.one_of(st.dictionaries(keys, json_values, max_size=5), json_values))
def test_no_json_body_gets_a_5xx(client: TestClient, path: str, body: Any) -> None:
    response = post_raw(client, path, json.dumps(body).encode())
    assert response[0] < 500, (body, response)


lines = st.lists(st.sampled_from([
    "User-agent: *", "User-agent: GPTBot", "User-agent: Googlebot", "Allow: /", "Disallow: /",
    "Disallow: /a", "Content-Usage: train-ai=n", "Content-Usage: /a train-ai=y",
    "Content-Usage: /a* search=y, train-ai=?", "Content-Usage: (", "content-signal: SEARCH=Yes",
    "Content-Signal: ai-train=no, ai-input=maybe, use=reference", "LLM-Policy: /llms.txt", "",
]) | text, max_size=12).map("\n".join)


@FUZZ
@given(body=lines, urls=st.lists(text, max_size=3), agents=st.lists(text, max_size=3),
       scope=st.sampled_from(["group", "file"]),
       dialect=st.sampled_from(["rfc9309", "google", "1994"]))
def test_any_file_gets_an_answer(client: TestClient, body: str, urls: list[str],
                                 agents: list[str], scope: str, dialect: str) -> None:
    status, data = post_raw(client, "/api/usage", json.dumps(
        {"robots_txt": body, "urls": urls, "agents": agents, "scope": scope,
         "dialect": dialect}).encode())
    assert status in (200, 400), data  # 400 only for a lone surrogate
    if status == 200:
        # attach-05: nothing attaches to a URL the crawler may not fetch
        for r in data["results"]:
            assert r["crawl"] or (not r["lines"] and set(r["categories"].values()) <= {None})
    status, data = post_raw(client, "/api/agents", json.dumps(
        {"robots_txt": body, "dialect": dialect}).encode())
    assert status in (200, 400), data
