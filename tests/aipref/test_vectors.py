"""tests/aipref/data/vectors.json: the AI-preference test vectors, run against robotrules.

The file is written for other implementations too (its ``description`` says how to read it);
each vector names the sentence it follows. Both cores run every vector.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from robotrules import _robots, parse

DATA = Path(__file__).parent / "data" / "vectors.json"
VECTORS: list[dict[str, Any]] = json.loads(DATA.read_text("utf-8"))["vectors"]


def test_vectors_are_well_formed() -> None:
    assert len(VECTORS) >= 30
    ids = [v["id"] for v in VECTORS]
    assert len(ids) == len(set(ids))
    for v in VECTORS:
        assert v["source"], v["id"]
        assert v["expected"], v["id"]
        assert set(v) <= {"id", "body", "url", "agent", "dialect", "vocabulary",
                          "content_signal_scope", "policy_tokens", "expected", "source"}


@pytest.mark.parametrize("core", ["native", "pure"])
@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_vector(vector: dict[str, Any], core: str) -> None:
    body = vector["body"].encode("utf-8")
    rules = (parse(body, vector["dialect"]) if core == "native"
             else _robots.reference(body, vector["dialect"]))
    u = rules.usage(vector["url"], user_agent=vector["agent"],
                    content_signal_scope=vector["content_signal_scope"],
                    vocabulary=vector["vocabulary"], policy_tokens=vector.get("policy_tokens"))
    got = {k: (u.crawl if k == "crawl" else u[k]) for k in vector["expected"]}
    assert got == vector["expected"], vector["source"]
