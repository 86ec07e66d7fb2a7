"""The tester's work functions (``robotrules/web/_work.py``): the multi-URL check answers the
other dialects through the batch API with exactly what ``explain`` answers.

``check`` explains each URL and agent in the chosen dialect and asks ``decide_many`` once per
other dialect and agent (issue 20: the web tester uses the batch API). The batch API's
contract (the ``Decisions`` docstring: entry ``i`` equals ``explain(urls[i])`` field by field)
makes the result the one the per-URL path gives; the reference here is that path, run on real
corpus files with URLs built from their own rules.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, get_args

import pytest

from robotrules import Dialect, parse
from robotrules.web._work import check

DIALECTS: tuple[Dialect, ...] = get_args(Dialect)
AGENTS = ["Googlebot", "GPTBot", "bingbot", "*"]


def _reference(body: str, urls: list[str], agents: list[str], dialect: Dialect
               ) -> dict[str, Any]:
    """The per-URL path: ``explain`` in every dialect for every URL and agent."""
    parsed = {d: parse(body, dialect=d) for d in DIALECTS}
    results = []
    for url in urls:
        for agent in agents:
            verdicts = {d: parsed[d].explain(url, user_agent=agent) for d in DIALECTS}
            results.append({
                "agent": agent, "url": url, "verdict": verdicts[dialect].to_dict(),
                "dialects": {d: {"allowed": v.allowed, "line": v.line}
                             for d, v in verdicts.items()},
                "dialects_disagree": len({v.allowed for v in verdicts.values()}) > 1,
            })
    return {"dialect": dialect, "urls": urls, "agents": agents,
            "tokens": {agent: agent for agent in agents},  # bare tokens are used as given
            "results": results}


def _urls(body: str) -> list[str]:
    paths = ["/", "/robots.txt", "/a b?q", "/%7Euser", "/index.htm"]
    for raw in re.findall(r"(?im)^\s*(?:dis)?allow\s*:\s*(\S+)", body)[:40]:
        p = raw.replace("*", "zz").rstrip("$")
        paths += [p, p + "/deeper?x=1"]
    return ["https://example.com" + p if p.startswith("/") else p for p in paths]


@pytest.fixture(scope="module")
def corpus(shared_dir: Path) -> list[str]:
    files = sorted((shared_dir / "corpus" / "sites").glob("*.txt"))
    assert len(files) >= 100, f"the corpus has {len(files)} files"
    return [files[i].read_text("utf-8", "replace")
            for i in range(0, len(files), len(files) // 40)]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_check_equals_explain_in_every_dialect_on_corpus_files(
        corpus: list[str], dialect: Dialect) -> None:
    disagreements = 0
    for body in corpus:
        urls = _urls(body)
        got = check(body, urls, AGENTS, dialect)
        assert got == _reference(body, urls, AGENTS, dialect)
        disagreements += sum(r["dialects_disagree"] for r in got["results"])
    # the comparison reached rows where the dialects differ (the other dialects' columns matter)
    assert disagreements > 0


def test_check_names_the_product_token_each_agent_is_matched_by() -> None:
    """The page labels a whole User-Agent header by the token the check matched it with
    (issue 39); Google documents Googlebot's header as
    ``Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)``."""
    header = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
    got = check("User-agent: googlebot\nDisallow: /x\n", ["/x"], [header, "GPTBot"], "rfc9309")
    assert got["tokens"] == {header: "Googlebot", "GPTBot": "GPTBot"}
    assert got["results"][0]["verdict"]["allowed"] is False
