"""``POST /api/usage``: the issue-24 fields (vocabulary version, Content-Signal ``use``, RSL
licences, the file's signal summary) and non-Latin Content-Usage paths, which used to answer
500 (attach-05 3.1: Content-Usage paths use the percent-encoding rules of Allow/Disallow)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import pytest

pytest.importorskip("starlette")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from robotrules.web import create_app

pytestmark = pytest.mark.filterwarnings(
    "ignore:Using `httpx` with `starlette.testclient`:DeprecationWarning")

BODY = ("License: https://x.com/license.xml\nUser-agent: *\nAllow: /\n"
        "Content-Usage: /€ train-ai=n, ai-use=n\n"
        "Content-Signal: search=yes, ai-train=no, use=reference\n")


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(workers=1), base_url="http://127.0.0.1") as c:
        yield c


@pytest.mark.parametrize("endpoint", ["/api/usage", "/api/check"])
def test_non_latin_path_answers(client: TestClient, endpoint: str) -> None:
    r = client.post(endpoint, json={"robots_txt": BODY, "urls": ["/€", "/%E2%82%AC", "/x"],
                                    "agents": ["GPTBot"]})
    assert r.status_code == 200, r.text


def test_new_fields(client: TestClient) -> None:
    r = client.post("/api/usage", json={"robots_txt": BODY, "urls": ["/%E2%82%AC"],
                                        "agents": ["GPTBot"], "vocabulary": "vocab-08"})
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["vocabulary"] == "vocab-08"
    row = data["results"][0]
    assert row["categories"]["train-ai"] is False
    assert row["categories"]["ai-use"] is False  # vocab-08 reads ai-use
    assert row["use"] == "reference"
    assert row["licenses"] == ["https://x.com/license.xml"]
    assert data["signals"]["use"] == ["reference"]
    assert data["signals"]["licenses"] == ["https://x.com/license.xml"]
    assert data["signals"]["content_usage"] == [4]


def test_default_vocabulary_and_bad_one(client: TestClient) -> None:
    r = client.post("/api/usage", json={"robots_txt": BODY, "urls": ["/"], "agents": ["*"]})
    assert r.json()["vocabulary"] == "vocab-07"
    bad = client.post("/api/usage", json={"robots_txt": BODY, "urls": ["/"], "agents": ["*"],
                                          "vocabulary": "vocab-99"})
    assert bad.status_code == 400
    assert "vocab-07" in bad.json()["error"]


def test_columns_follow_the_vocabulary(client: TestClient) -> None:
    """robotrules.aipref.VOCABULARIES (docs/ai-preferences.md "Vocabulary versions"): vocab-08
    adds the category ai-use, so its table has that column; vocab-07 reads `ai-use` as a
    superseded label (ignored) and has no such column."""
    ask = {"robots_txt": BODY, "urls": ["/%E2%82%AC"], "agents": ["GPTBot"]}
    old = client.post("/api/usage", json=ask).json()
    new = client.post("/api/usage", json={**ask, "vocabulary": "vocab-08"}).json()
    assert old["columns"] == ["train-ai", "search", "ai-train", "ai-input"]
    # in the vocabulary's order (aipref.usage_keys: its labels, then Content-Signal's)
    assert new["columns"] == ["train-ai", "search", "ai-use", "ai-train", "ai-input"]
    assert "ai-use" not in old["results"][0]["categories"]
    assert new["results"][0]["categories"]["ai-use"] is False


POLICY = "User-agent: *\nAllow: /\n\nUser-agent: ExamplePolicy\nDisallow: /private/\n"


def test_policy_tokens(client: TestClient) -> None:
    """draft-kelley-aipref-training-preference-signal-00, abstract: a group "keyed by a
    per-purpose policy token in the User-Agent line" binds a usage preference to the paths it
    disallows. The built-in table is empty (the token's spelling is not in the stored texts),
    so the tester names it: `ExamplePolicy=train-ai` makes `/private/x` train-ai=n."""
    ask = {"robots_txt": POLICY, "urls": ["/private/x", "/a"], "agents": ["ClaudeBot"]}
    plain = client.post("/api/usage", json=ask).json()
    assert plain["policy_tokens"] == {}
    assert plain["results"][0]["categories"]["train-ai"] is None
    told = client.post("/api/usage", json={**ask, "policy_tokens": ["ExamplePolicy=train-ai"]})
    assert told.status_code == 200, told.text
    data = told.json()
    assert data["policy_tokens"] == {"ExamplePolicy": "train-ai"}
    private, other = data["results"]
    assert private["categories"]["train-ai"] is False
    assert private["policy_tokens"] == ["ExamplePolicy"]
    assert private["lines"] == [5]
    assert other["categories"]["train-ai"] is None  # no rule of the group matches /a
    assert data["signals"]["policy_groups"] == [
        {"token": "ExamplePolicy", "category": "train-ai", "line": 4}]


@pytest.mark.parametrize("tokens", [["not a token"], ["X=Train-AI"], "X=train-ai", [1]])
def test_bad_policy_tokens(client: TestClient, tokens: object) -> None:
    """Bad input is a clear 400, never a 500."""
    r = client.post("/api/usage", json={"robots_txt": POLICY, "urls": ["/"],
                                        "agents": ["*"], "policy_tokens": tokens})
    assert r.status_code == 400, r.text
    assert "policy_tokens" in r.json()["error"]
