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
