"""``robotrules dataset history``: changes between two generated crawls, known by construction.

Verdicts follow RFC 9309 (2.2.1: a crawler obeys the group naming it, else ``*``; 2.2.2: the
longest match decides; 2.3.1.3 a 4xx allows all; 2.3.1.4 a 5xx disallows all); groups are
known by their user-agent lines (2.1); usage signals as :mod:`robotrules.aipref` reads them
(Content-Signal: Cloudflare's Content Signals Policy, AI-PREFERENCES.md 1.3).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from robotrules.dataset import DatasetError, read_warcs
from robotrules.dataset.cli import dataset
from robotrules.dataset.history import run_history

from ._warcs import Capture, write_warc

SEPT, OCT = "2026-09-01T00:00:00Z", "2026-10-01T00:00:00Z"
CRAWL_1 = [
    Capture("https://a.example/robots.txt", 200, b"User-agent: *\nDisallow: /private/\n",
            when=SEPT),
    Capture("https://b.example/robots.txt", 200, b"User-agent: GPTBot\nDisallow: /\n", when=SEPT),
    Capture("https://c.example/robots.txt", 404, when=SEPT),
    Capture("https://d.example/robots.txt", 200, b"User-agent: *\nDisallow:\n", when=SEPT),
]
CRAWL_2 = [
    Capture("https://a.example/robots.txt", 200,
            b"User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private/\n"
            b"Content-Signal: ai-train=no\n", when=OCT),
    Capture("https://b.example/robots.txt", 200, b"User-agent: *\nAllow: /\n", when=OCT),
    Capture("https://c.example/robots.txt", 503, when=OCT),
    Capture("https://e.example/robots.txt", 200, b"User-agent: *\nDisallow:\n", when=OCT),
]


def _crawls(tmp: Path) -> list[str]:
    out = []
    for name, caps in (("2026-09", CRAWL_1), ("2026-10", CRAWL_2)):
        robots = tmp / f"{name}.parquet"
        read_warcs([write_warc(tmp / f"{name}.warc.gz", caps)], robots)
        out.append(f"{name}={robots}")
    return out


def test_history_of_two_crawls(tmp_path: Path) -> None:
    result = run_history(_crawls(tmp_path), tmp_path / "h", agents=["GPTBot", "Googlebot"],
                         paths=["/", "/search"])
    pair = "2026-09 -> 2026-10"
    # a: GPTBot gets its own group (lost / and /search); b: its group goes (gained both);
    # c: 404 -> 503, allow-all -> disallow-all, both crawlers lose both paths
    assert result.changes[(pair, "origins")] == 3
    assert result.changes[(pair, "lost")] == 2 + 4
    assert result.changes[(pair, "gained")] == 2
    assert (result.changes[(pair, "added")], result.changes[(pair, "removed")]) == (2, 1)
    access = pq.read_table(tmp_path / "h" / "access.parquet").to_pylist()
    a_root = next(r for r in access if r["origin"] == "https://a.example" and r["path"] == "/"
                  and r["agent"] == "GPTBot")
    assert (a_root["change"], a_root["line_after"], a_root["rule_after"]) == (
        "lost", 2, "Disallow: /")
    c_rows = [r for r in access if r["origin"] == "https://c.example"]
    assert {(r["outcome_before"], r["outcome_after"]) for r in c_rows} == {
        ("allow-all", "disallow-all")}
    groups = pq.read_table(tmp_path / "h" / "groups.parquet").to_pylist()
    assert {(r["origin"], r["change"], r["agents"]) for r in groups} == {
        ("https://a.example", "added", "GPTBot"), ("https://b.example", "removed", "GPTBot"),
        ("https://b.example", "added", "*")}
    signals = pq.read_table(tmp_path / "h" / "signals.parquet").to_pylist()
    assert {(r["signal"], r["category"], r["change"], r["after"]) for r in signals} == {
        ("content-signal", "*", "appeared", "yes"),
        ("content-signal", "ai-train", "appeared", "no")}
    crawlers = {(r["crawl"], r["agent"]): r for r in
                pq.read_table(tmp_path / "h" / "crawlers.parquet").to_pylist()}
    assert crawlers[("2026-09", "GPTBot")]["blocked"] == 1  # b
    assert crawlers[("2026-10", "GPTBot")]["blocked"] == 2  # a, c
    assert (crawlers[("2026-10", "GPTBot")]["gained"],
            crawlers[("2026-10", "GPTBot")]["lost"]) == (1, 2)
    assert crawlers[("2026-10", "Googlebot")]["blocked"] == 1  # c
    purposes = {(r["crawl"], r["purpose"]): r["blocked"] for r in
                pq.read_table(tmp_path / "h" / "purposes.parquet").to_pylist()}
    # the registry: GPTBot's purpose is training, Googlebot's search
    assert purposes[("2026-10", "training")] == 2
    assert purposes[("2026-10", "search")] == 1
    assert (tmp_path / "h" / "history.png").read_bytes().startswith(b"\x89PNG")


def test_cli_and_errors(tmp_path: Path) -> None:
    crawls = _crawls(tmp_path)
    out = tmp_path / "h"
    args = ["history", "--robots", crawls[0], "--robots", crawls[1], "--agent", "GPTBot",
            "-o", str(out)]
    result = CliRunner().invoke(dataset, args)
    assert result.exit_code == 0, result.stderr
    assert "2026-09 -> 2026-10: 3 origins in both" in result.stderr
    result = CliRunner().invoke(dataset, ["history", "--robots", crawls[0], "-o", str(out)])
    assert result.exit_code == 2
    assert "two or more crawls" in result.stderr
    with pytest.raises(DatasetError, match="must start with"):
        run_history(crawls, out, agents=["GPTBot"], paths=["search"])


@pytest.mark.slow  # a local Spark (JVM start and jobs): CI runs -m slow
def test_spark_gives_the_same_tables(spark: Any, tmp_path: Path) -> None:
    # the same command on both engines (the CLI's Spark session is the fixture's local[2],
    # getOrCreate): every table equal, row for row
    crawls = _crawls(tmp_path)
    tables = {}
    for engine in ("duckdb", "spark"):
        out = tmp_path / engine
        args = ["history", *(x for c in crawls for x in ("--robots", c)), "--agent", "GPTBot",
                "--agent", "Googlebot", "--paths", "/,/search", "--engine", engine,
                "-o", str(out)]
        result = CliRunner().invoke(dataset, args)
        assert result.exit_code == 0, result.stderr
        tables[engine] = {name: pq.read_table(out / f"{name}.parquet").to_pylist()
                          for name in ("access", "groups", "signals", "crawlers", "purposes")}
        ran, *headline = result.stderr.splitlines() if engine == "spark" else (
            "", *result.stderr.splitlines())
        tables[engine]["headline"] = headline
        if engine == "spark":  # the output says which master ran the job
            assert ran.startswith("ran on spark, master local[2], application ")
    assert tables["duckdb"] == tables["spark"]
    # the counts of test_history_of_two_crawls: lost 2 + 4, gained 2 (crawler x path)
    assert len(tables["spark"]["access"]) == 8


def test_change_rows_spool_to_disk_in_one_order(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # issue 40: history kept every change row in Python lists (2.96 GB on 2 x 50k origins).
    # Spooled one row a file, the tables are the same as spooled in one file, and the
    # scratch folder is empty afterwards
    from robotrules.dataset import history
    examples = Path(__file__).parents[2] / "examples" / "dataset"
    crawls = []
    for n in (1, 2):
        out = tmp_path / f"robots-{n}.parquet"
        read_warcs([examples / f"crawl-{n}.warc.gz"], out)
        crawls.append(f"2026-0{n}={out}")
    tables = {}
    for rows in (50_000, 1):
        monkeypatch.setattr(history._Spool, "ROWS", rows)
        scratch = tmp_path / f"scratch-{rows}"
        run_history(crawls, tmp_path / f"h-{rows}", agents=["GPTBot", "CCBot"],
                    paths=["/", "/private/"], memory_limit="200MB", scratch_dir=str(scratch))
        tables[rows] = {t: pq.read_table(tmp_path / f"h-{rows}" / f"{t}.parquet").to_pylist()
                        for t in ("access", "groups", "signals")}
        assert list(scratch.iterdir()) == []
    assert tables[1] == tables[50_000]
    assert len(tables[1]["access"]) > 1  # more rows than one spool file holds


def test_a_body_many_origins_serve_is_read_once() -> None:
    # RFC 9309 2.2.2: rules match the URL's path, so one body gives the same answers on every
    # origin that serves it: the reader keeps one entry per distinct body, whatever the origin
    from robotrules.dataset.history import _Reader

    body = b"User-agent: *\nDisallow: /private/\n\nUser-agent: GPTBot\nDisallow: /\n"
    reader = _Reader(["GPTBot", "Googlebot", "CCBot"], ["/", "/private/x"], facts=True)
    reads = [reader.read(f"https://{h}.example", "rules", body) for h in ("a", "b", "c")]
    assert len(reader.memo) == 1
    assert reads[0].answers == {
        "GPTBot": ((False, 5, "Disallow: /"), (False, 5, "Disallow: /")),
        "Googlebot": ((True, None, None), (False, 2, "Disallow: /private/")),
        "CCBot": ((True, None, None), (False, 2, "Disallow: /private/"))}
    # agents that fall to the same group (2.2.1) share one copy of their answers
    assert reads[0].answers["CCBot"] is reads[0].answers["Googlebot"]
    assert reads[0].groups == {("*",): ("*", 1), ("gptbot",): ("GPTBot", 4)}
    reader.read("https://d.example", "rules", body + b"Disallow: /x\n")
    assert len(reader.memo) == 2
