"""The census on a small generated crawl whose answers are known by construction.

Six origins: a group naming GPTBot with ``Disallow: /`` (blocked, RFC 9309 2.2.1: a crawler
obeys the group that names it), a ``*`` group disallowing one directory (partial for every
crawler that falls back to ``*``), a group naming ClaudeBot only, a 404 (allow-all, 2.3.1.3), a
503 (disallow-all, 2.3.1.4) and an empty file (nothing disallowed).
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from robotrules.dataset import DatasetError, read_warcs, run_census

from ._warcs import Capture, write_warc

CRAWL_1 = [
    Capture("https://gpt.example/robots.txt", 200, b"User-agent: GPTBot\nDisallow: /\n"),
    Capture("https://dir.example/robots.txt", 200, b"User-agent: *\nDisallow: /private/\n"),
    Capture("https://claude.example/robots.txt", 200, b"User-agent: ClaudeBot\nDisallow: /\n"),
    Capture("https://gone.example/robots.txt", 404),
    Capture("https://down.example/robots.txt", 503),
    Capture("https://empty.example/robots.txt", 200, b""),
]
# a later crawl: the directory site now also blocks GPTBot entirely
CRAWL_2 = [*CRAWL_1[:1], Capture(
    "https://dir.example/robots.txt", 200,
    b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private/\n",
    when="2026-10-01T00:00:00Z"), *CRAWL_1[2:]]


def _robots(tmp: Path, name: str, captures: list[Capture]) -> Path:
    out = tmp / f"{name}.parquet"
    read_warcs([write_warc(tmp / f"{name}.warc.gz", captures)], out)
    return out


@pytest.fixture(scope="module")
def census(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("census")
    one, two = _robots(tmp, "c1", CRAWL_1), _robots(tmp, "c2", CRAWL_2)
    out = tmp / "census"
    run_census([f"2026-09={one}", f"2026-10={two}"], out, workers=1)
    return out


def _agent(out: Path, crawl: str, token: str) -> dict[str, object]:
    rows = [r for r in pq.read_table(out / "agents.parquet").to_pylist()
            if r["crawl"] == crawl and r["token"] == token]
    assert len(rows) == 1
    return rows[0]


def test_counts_per_crawler(census: Path) -> None:
    gpt = _agent(census, "2026-09", "GPTBot")
    # blocked: gpt (named group), down (503); partial: dir (* group); allowed: the rest
    assert (gpt["origins"], gpt["blocked"], gpt["partial"], gpt["allowed"]) == (6, 2, 1, 3)
    assert gpt["blocked_share"] == pytest.approx(2 / 6)
    claude = _agent(census, "2026-09", "ClaudeBot")
    assert (claude["blocked"], claude["partial"], claude["allowed"]) == (2, 1, 3)
    google = _agent(census, "2026-09", "Googlebot")
    assert (google["blocked"], google["partial"], google["allowed"]) == (1, 1, 4)


def test_trend_over_two_crawls(census: Path) -> None:
    assert _agent(census, "2026-10", "GPTBot")["blocked"] == 3
    assert _agent(census, "2026-10", "GPTBot")["partial"] == 0
    assert (census / "trend.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_groups_take_the_strictest_crawler(census: Path) -> None:
    # "Consent in Crisis" (arXiv 2407.14933): a group's status is its strictest member's
    groups = {(r["crawl"], r["purpose"]): r for r in
              pq.read_table(census / "groups.parquet").to_pylist()}
    ai = groups[("2026-09", "training")]
    # gpt, claude and down block some AI crawler entirely; dir is partial; gone, empty open
    assert (ai["blocked"], ai["partial"], ai["allowed"]) == (3, 1, 2)
    search = groups[("2026-09", "search")]
    assert (search["blocked"], search["partial"], search["allowed"]) == (1, 1, 4)


def test_outcomes_and_charts(census: Path) -> None:
    outcomes = {r["crawl"]: r for r in pq.read_table(census / "outcomes.parquet").to_pylist()}
    assert (outcomes["2026-09"]["rules"], outcomes["2026-09"]["allow_all"],
            outcomes["2026-09"]["disallow_all"]) == (4, 1, 1)
    for name in ("agents-2026-09.png", "agents-2026-10.png", "groups.png"):
        assert (census / name).read_bytes().startswith(b"\x89PNG")


def test_purpose_filter_and_unknown_purpose(tmp_path: Path) -> None:
    robots = _robots(tmp_path, "c", CRAWL_1)
    out = tmp_path / "training"
    run_census([str(robots)], out, purpose="training", workers=1)
    purposes = pq.read_table(out / "agents.parquet").column("purpose").to_pylist()
    assert purposes
    assert all("training" in p.split(", ") for p in purposes)
    with pytest.raises(DatasetError, match="no crawler has purpose 'nope'"):
        run_census([str(robots)], tmp_path / "x", purpose="nope", workers=1)


SIGNAL_CRAWL = [
    # Content-Usage (draft-ietf-aipref-attach): train-ai=n; Content-Signal (Cloudflare's
    # policy): search=yes, ai-train=no; RSL 1.0: a License: line; Google-Extended: a policy
    # token group (the registry: "Not a crawler"), here disallowing the whole site
    Capture("https://cu.example/robots.txt", 200,
            b"User-agent: *\nAllow: /\nContent-Usage: train-ai=n\n"),
    Capture("https://cs.example/robots.txt", 200,
            b"User-agent: *\nAllow: /\nContent-Signal: search=yes, ai-train=no\n"),
    Capture("https://rsl.example/robots.txt", 200,
            b"License: https://rsl.example/license.xml\nUser-agent: *\nAllow: /\n"),
    Capture("https://ext.example/robots.txt", 200,
            b"User-agent: Google-Extended\nDisallow: /\n\nUser-agent: *\nAllow: /\n"),
    Capture("https://plain.example/robots.txt", 200, b"User-agent: *\nDisallow: /x\n"),
]


def test_usage_signal_census(tmp_path: Path) -> None:
    robots = _robots(tmp_path, "s", SIGNAL_CRAWL)
    result = run_census([f"S={robots}"], tmp_path / "out", workers=1, purpose="training")
    rows = {(r["signal"], r["category"]): r for r in
            pq.read_table(tmp_path / "out" / "signals.parquet").to_pylist()}
    assert rows[("content-usage", "*")]["files"] == 1
    assert (rows[("content-usage", "train-ai")]["no"], rows[("content-usage", "train-ai")]["yes"]
            ) == (1, 0)
    assert rows[("content-signal", "*")]["files"] == 1
    assert rows[("content-signal", "search")]["yes"] == 1
    assert rows[("content-signal", "ai-train")]["no"] == 1
    assert rows[("license", "*")]["files"] == 1
    assert rows[("policy-token", "*")]["files"] == 1
    assert rows[("policy-token", "disallow")]["yes"] == 1
    assert all(r["files_with_rules"] == 5 for r in rows.values())
    (line,) = result.headline()
    assert line.startswith("S: 5 origins; most blocked: ")
    assert "content-usage 1" in line
    assert "license 1" in line


POLICY_CRAWL = [
    Capture("https://pt.example/robots.txt", 200,
            b"User-agent: ExamplePolicy\nDisallow: /\n\nUser-agent: *\nAllow: /\n"),
    Capture("https://gpt.example/robots.txt", 200, b"User-agent: GPTBot\nDisallow: /\n"),
]


def test_census_takes_policy_tokens(tmp_path: Path) -> None:
    """run_census(policy_tokens=...): a group keyed by a policy token is a usage signal, never
    a blocked crawler (draft-kelley-aipref-training-preference-signal-00, abstract). The
    built-in table is empty (the draft's spelling is not in the stored texts), so the tokens
    are given: ExamplePolicy, and GPTBot standing in for a token the registry also knows."""
    robots = _robots(tmp_path, "p", POLICY_CRAWL)
    run_census([f"P={robots}"], tmp_path / "plain", workers=1)
    assert _agent(tmp_path / "plain", "P", "GPTBot")["blocked"] == 1
    run_census([f"P={robots}"], tmp_path / "told", workers=1,
               policy_tokens={"ExamplePolicy": "train-ai", "GPTBot": "train-ai"})
    gpt = _agent(tmp_path / "told", "P", "GPTBot")
    assert (gpt["blocked"], gpt["allowed"]) == (0, 2)
    rows = {(r["signal"], r["category"]): r for r in
            pq.read_table(tmp_path / "told" / "signals.parquet").to_pylist()}
    assert rows[("policy-token", "*")]["files"] == 2
    assert rows[("policy-token", "disallow")]["yes"] == 2


def test_the_chart_legend_covers_no_bar() -> None:
    # issue 39: "the census chart legend still covers the last bars"
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from robotrules.dataset.census import legend_outside
    fig, ax = plt.subplots(figsize=(8, 3))
    ax.barh(["a", "b", "c"], [100, 100, 100], label="blocked")
    ax.set_xlim(0, 100)
    legend = legend_outside(ax)
    fig.canvas.draw()
    box, plot = legend.get_window_extent(), ax.get_window_extent()
    assert box.x0 >= plot.x1  # the legend starts right of the plot area
    plt.close(fig)


def test_a_body_is_counted_once_per_worker_whatever_its_origins() -> None:
    # RFC 9309 2.2.2 matches paths: what an origin adds to the census depends on its body, not
    # on its host, so a body served by many origins, over several batches, is assessed once
    # and counted once per origin
    from robotrules.dataset import census

    body = b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private/\n"
    tokens = ["GPTBot", "CCBot"]
    census._SEEN.clear()
    one = census._count_rows({"origin": ["https://a.example"], "outcome": ["rules"],
                              "body": [body]}, tokens, True)
    many = census._count_rows({"origin": ["https://b.example", "https://c.example",
                                          "https://d.example"],
                               "outcome": ["rules", "rules", "allow-all"],
                               "body": [body, body, None]}, tokens, True)
    assert [len(seen) for seen in census._SEEN.values()] == [1]
    assert one[("agent", "GPTBot", "blocked")] == 1
    assert one[("agent", "CCBot", "partial")] == 1
    assert many[("agent", "GPTBot", "blocked")] == 2
    assert many[("agent", "CCBot", "partial")] == 2
    assert many[("agent", "CCBot", "allowed")] == 1  # 2.3.1.3: a 4xx allows everything
    assert many[("outcome", "rules")] == 2
    assert many[("outcome", "allow-all")] == 1
    census._SEEN.clear()
