"""The 545 conformance cases with Google's answers (shared/conformance).

Source of every expected answer: google/robotstxt robots_test.cc (145 cases) and
google/robotstxt-spec-test (400 cases), as recorded in shared/conformance/*.json.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import robotrules
from robotrules import _token
from tests.conftest import SHARED

FILES = ("google_robots_test.json", "spec_test_cases.json")


def _cases() -> list[Any]:
    out: list[Any] = []
    for name in FILES:
        path = Path(SHARED, "conformance", name)
        if path.exists():
            for case in json.loads(path.read_text("utf-8")):
                out.append(pytest.param(case, id=case["id"]))
    return out


CASES = _cases()


def _body(case: dict[str, Any]) -> bytes:
    return str(case["robots_txt"]).encode("utf-8", "surrogateescape")


@pytest.mark.skipif(not CASES, reason="shared/conformance not present")
@pytest.mark.parametrize("case", CASES)
def test_google_dialect_agrees_with_google(case: dict[str, Any]) -> None:
    """Source: Google's answer recorded in the case (robots_test.cc / robotstxt-spec-test)."""
    rules = robotrules.parse(_body(case), dialect="google")
    assert rules.is_allowed(case["url"], user_agent=case["user_agent"]) is case["allowed"]
    # explain() must give the same verdict as is_allowed()
    assert rules.explain(case["url"], user_agent=case["user_agent"]).allowed is case["allowed"]


def _rfc_differs(case: dict[str, Any]) -> bool:
    """Cases where RFC 9309 rules differently from Google's library (docs/dialects.md)."""
    path = robotrules._url.path_of(case["url"])
    return (
        path.split("?")[0] == "/robots.txt"  # 2.2.2: /robots.txt implicitly allowed
        or "%" in path or "%" in case["robots_txt"]  # 2.2.2 percent-normalisation
        or not path.isascii() or not case["robots_txt"].isascii()
        or any(c in path for c in " *$\"<>\\^`{|}")
        # robotrules' rfc9309 keeps digits and dots in a user-agent token (RFC 9309 2.2.4
        # leniency, docs/dialects.md); Google cuts the token there
        or any(_token.line_token(v, "rfc9309") != _token.line_token(v, "google")
               for v in _ua_values(case["robots_txt"]))
    )


def _ua_values(body: str) -> list[str]:
    out = []
    for line in body.splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower().startswith(("user-agent", "useragent", "user agent")):
            out.append(value.split("#", 1)[0].strip())
    return out


@pytest.mark.skipif(not CASES, reason="shared/conformance not present")
def test_rfc9309_dialect_agrees_where_the_rfc_does_not_differ() -> None:
    """RFC 9309 dialect = Google's behaviour except where RFC 9309 says otherwise."""
    checked = 0
    for param in CASES:
        case = param.values[0]
        if _rfc_differs(case):
            continue
        rules = robotrules.parse(_body(case), dialect="rfc9309")
        assert rules.is_allowed(case["url"], user_agent=case["user_agent"]) is case["allowed"], (
            case["id"])
        checked += 1
    assert checked > 450
