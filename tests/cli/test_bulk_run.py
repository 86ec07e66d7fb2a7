"""``bulk``'s runner (``robotrules/cli/_bulk_run.py``): verdicts decided in groups through the
batch API give the rows one ``explain`` per URL and agent gives, byte for byte.

The runner groups the URLs it has resolved by robots.txt and asks
``RobotsTxt.decide_many(urls, user_agent=agent)`` once per group and agent (issue 20: "``bulk``
[...] use[s] it"). Its contract (``docs/architecture.md``, the ``Decisions`` docstring) is that
entry ``i`` equals ``explain(urls[i])`` field by field, so the rows must be exactly those of the
per-URL path: here the reference is that path itself, ``FetchedRobots.explain`` per URL and
agent through the sync client, on real corpus files served from 127.0.0.1, interleaved so that
every group mixes origins, with an unavailable (404) and an unreachable (503) origin beside
them (RFC 9309 2.3.1.3 and 2.3.1.4).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from robotrules.cli._bulk_output import Writer
from robotrules.cli._bulk_run import BATCH, kind_of
from robotrules.fetch import RobotsClient
from robotrules.stores import MemoryStore

from .conftest import Server

AGENTS = ("Googlebot", "GPTBot", "bingbot")
FILES = 24  # evenly spaced corpus files, each its own origin
PER_FILE = 30  # URLs per file: paths from its own rules, and a few ordinary ones


def _paths(body: bytes) -> list[str]:
    """Paths a file's rules speak about (their literal parts), and ordinary ones."""
    found = re.findall(rb"(?im)^\s*(?:dis)?allow\s*:\s*(\S+)", body)
    paths = ["/", "/robots.txt", "/index.html", "/a b?q=1", "/%7Euser/x"]
    for raw in found:
        p = raw.decode("utf-8", "replace").replace("*", "x").rstrip("$")
        if p.startswith("/"):
            paths.append(p)
            paths.append(p + "sub/page?x=1")
    return paths[:PER_FILE]


@pytest.fixture(scope="module")
def sites(shared_dir: Path) -> Iterator[list[tuple[Server, list[str]]]]:
    """Servers on 127.0.0.1: FILES corpus files (small enough for the fetch limit), one 404
    and one 503, each with its URLs."""
    names = sorted(p for p in (shared_dir / "corpus" / "sites").glob("*.txt")
                   if p.stat().st_size < 400_000)
    assert len(names) >= FILES, f"the corpus has {len(names)} files"
    step = len(names) // FILES
    chosen = [names[i * step] for i in range(FILES)]
    made: list[tuple[Server, list[str]]] = []
    try:
        for path in chosen:
            s = Server()
            body = path.read_bytes()
            s.robots(body)
            made.append((s, [s.base + p for p in _paths(body)]))
        for status in (404, 503):
            s = Server()
            s.robots(b"gone", status=status)
            made.append((s, [s.base + p for p in ("/", "/private/x", "/a?b")]))
        yield made
    finally:
        for s, _ in made:
            s.close()


def _interleaved(sites: list[tuple[Server, list[str]]]) -> list[str]:
    """The sites' URLs round robin, so consecutive URLs belong to different origins."""
    out: list[str] = []
    longest = max(len(urls) for _, urls in sites)
    for i in range(longest):
        out.extend(urls[i] for _, urls in sites if i < len(urls))
    return out


def _per_url_rows(urls: list[str], fmt: str) -> str:
    """The rows of the per-URL path: ``FetchedRobots.explain`` for each URL and agent."""
    out = io.StringIO()
    writer = Writer(out, fmt)
    # trust_env off: 127.0.0.1 directly, never through a proxy from the environment
    with httpx.Client(follow_redirects=False, trust_env=False) as http, RobotsClient(
            store=MemoryStore(), http_client=http) as client:
        for n, url in enumerate(urls, 1):
            fetched = client.rules_for(url)
            kind, reason = kind_of(fetched)
            for agent in AGENTS:
                v = fetched.explain(url, user_agent=agent)
                writer.row((n, url, agent, v.allowed, v.line,
                            str(v.rule) if v.rule is not None else None, v.reason,
                            fetched.status, fetched.outcome, kind, reason))
    writer.flush()
    return out.getvalue()


def _bulk(cli: Any, urls: list[str], fmt: str, concurrency: int) -> Any:
    args = ["bulk", "-", "--no-cache", "--format", fmt, "--concurrency", str(concurrency)]
    for agent in AGENTS:
        args += ["--agent", agent]
    return cli(*args, input="".join(u + "\n" for u in urls))


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_grouped_rows_equal_the_per_url_path_byte_for_byte(
        cli: Any, sites: list[tuple[Server, list[str]]], fmt: str) -> None:
    """One worker resolves the URLs in input order, so the rows come in input order in both
    paths: the output must be the same bytes."""
    urls = _interleaved(sites)
    assert len(urls) > 500  # enough URLs that groups hold several URLs of one file
    expected = _per_url_rows(urls, fmt)
    r = _bulk(cli, urls, fmt, 1)
    assert r.code in (1, 3), r.err  # some verdicts disallow; the 503 origin is unreachable
    assert r.out == expected
    # the comparison covered every kind of row the runner groups
    for kind in ("verdict", "unavailable", "unreachable"):
        assert kind in expected
    assert "false" in expected.lower()
    assert "true" in expected.lower()


def test_grouped_rows_under_concurrency_are_the_same_rows(
        cli: Any, sites: list[tuple[Server, list[str]]]) -> None:
    """With many workers the rows come in the order URLs are resolved; each row is still the
    per-URL path's row (the same multiset of lines)."""
    urls = _interleaved(sites) * 2
    expected = _per_url_rows(urls, "csv").splitlines()
    r = _bulk(cli, urls, "csv", 8)
    got = r.out.splitlines()
    assert got[0] == expected[0]  # the header first
    assert sorted(got[1:]) == sorted(expected[1:])


def test_batch_bound_is_enforced(cli: Any, sites: list[tuple[Server, list[str]]]) -> None:
    """More URLs than one batch holds: the runner decides in several batches and still writes
    each row once (memory stays bounded by BATCH pending URLs)."""
    one = _interleaved(sites)
    urls = one * (BATCH // len(one) + 2)
    assert len(urls) > BATCH
    r = _bulk(cli, urls, "csv", 4)
    rows = r.out.splitlines()[1:]
    assert len(rows) == len(urls) * len(AGENTS)
    assert sorted({int(x.split(",", 1)[0]) for x in rows}) == list(range(1, len(urls) + 1))



def test_decider_asks_the_batch_api_once_per_file_and_agent(
        sites: list[tuple[Server, list[str]]], monkeypatch: pytest.MonkeyPatch) -> None:
    """In process: every resolved URL handed to the decider, then one flush. Each file with
    enough URLs is decided by ``decide_many`` (counted), never by ``explain``, and the rows are
    the per-URL path's."""
    from robotrules import RobotsTxt
    from robotrules.cli import _bulk_run
    from robotrules.cli._bulk_output import Totals
    from robotrules.cli._bulk_run import Decider

    urls = _interleaved(sites)
    calls = {"decide_many": 0, "explain": 0}
    real_many, real_explain = RobotsTxt.decide_many, RobotsTxt.explain

    def counting_many(self: RobotsTxt, *a: Any, **k: Any) -> Any:
        calls["decide_many"] += 1
        return real_many(self, *a, **k)

    def counting_explain(self: RobotsTxt, *a: Any, **k: Any) -> Any:
        calls["explain"] += 1
        return real_explain(self, *a, **k)

    out = io.StringIO()
    writer = Writer(out, "csv")
    decider = Decider(list(AGENTS), writer, Totals())
    with httpx.Client(follow_redirects=False, trust_env=False) as http, RobotsClient(
            store=MemoryStore(), http_client=http) as client:
        resolved = [(n, url, client.rules_for(url)) for n, url in enumerate(urls, 1)]
    monkeypatch.setattr(_bulk_run, "LATENCY", 3600.0)  # a loaded machine: no early flush
    monkeypatch.setattr(RobotsTxt, "decide_many", counting_many)
    monkeypatch.setattr(RobotsTxt, "explain", counting_explain)
    for item in resolved:
        decider.add(item)
    assert writer.buf.getvalue().count("\n") == 1  # the header only: no row written yet
    decider.flush()
    writer.flush()
    monkeypatch.undo()
    with_rules = sum(1 for _, _, f in resolved if f.outcome == "rules")
    assert with_rules > 0
    assert calls["decide_many"] == FILES * len(AGENTS)  # every file has >= 4 URLs here
    assert calls["explain"] == 0
    assert out.getvalue() == _per_url_rows(urls, "csv")
