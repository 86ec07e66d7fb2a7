"""``robotrules dataset outcomes``: Common Crawl's outcome table on a crawl built with every
category, each count checked.

The categories and their precedence are those of Common Crawl's robotstxt-experiments project
(``src/script/get_robotstxt_ranked_list.py``: the status classes; notebook
``metrics-top-k-sample.ipynb``: the per-host precedence and the MIME / "parsed" tests); the
column names are the header of its ``data/top-k-sample/robotstxt-status-counts-topk.csv``. The
RFC 9309 columns follow RFC 9309 2.3.1.1-2.3.1.4 (4xx allow all, 5xx/429 and unreachable
disallow all) and the duplicate rule of docs/datasets.md.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from robotrules.dataset import DatasetError, read_warcs
from robotrules.dataset.cli import dataset
from robotrules.dataset.outcomes import CATEGORIES, COLUMNS, parse_top, run_outcomes, stratum_label

from ._warcs import Capture, write_warc

RULES = b"User-agent: *\nDisallow: /private/\n"
CAPTURES = [
    Capture("https://rules.example/robots.txt", 200, RULES),
    Capture("https://norules.example/robots.txt", 200, b"# nothing\nSitemap: https://n/s.xml\n"),
    Capture("https://html.example/robots.txt", 200, b"<html><body>Not here</body></html>",
            headers={"Content-Type": "text/html; charset=utf-8"}),
    Capture("https://forbidden.example/robots.txt", 403),
    Capture("https://defer.example/robots.txt", 503),
    Capture("https://gone.example/robots.txt", 404),
    Capture("https://loop.example/robots.txt", 301,
            headers={"Location": "https://nowhere.example/robots.txt"}),
    Capture("https://www.resolved.example/robots.txt", 200, RULES),
    Capture("https://moved.example/robots.txt", 301,
            headers={"Location": "https://target.example/robots.txt"}),
    Capture("https://target.example/robots.txt", 200, RULES),
    Capture("https://mixed.example/robots.txt", 200, RULES, when="2026-09-01T00:00:00Z"),
    Capture("https://mixed.example/robots.txt", 503, when="2026-09-02T00:00:00Z"),
    Capture("https://unauth.example/robots.txt", 401),
    Capture("https://busy.example/robots.txt", 429),
]
RANKS = ["rules", "norules", "html", "forbidden", "defer", "gone", "loop", "resolved", "moved",
         "mixed", "absent", "unauth", "busy"]


@pytest.fixture
def crawl(tmp_path: Path) -> tuple[Path, Path]:
    robots = tmp_path / "robots.parquet"
    read_warcs([write_warc(tmp_path / "c.warc.gz", CAPTURES)], robots)
    ranks = tmp_path / "ranks.csv"
    ranks.write_text("".join(f"{i},{h}.example\n" for i, h in enumerate(RANKS, start=1)))
    return robots, ranks


def test_published_column_names() -> None:
    # the header line of robotstxt-status-counts-topk.csv, as published
    assert ",".join(COLUMNS) == (
        "crawl,top-k,No robots.txt capture,HTTP forbidden,HTTP defer visits,HTTP allow all,"
        "HTTP redirect not resolved,MIME not a robots.txt,Robots.txt no rules,"
        "Robots.txt with rules,dt")
    assert [stratum_label(k) for k in (1000, 10_000, 50_000, 1_000_000, 2_000_000, 7)] == [
        "1k", "10k", "50k", "1M", "2M", "7"]
    assert parse_top("10k,1000,1M") == [1000, 10_000, 1_000_000]


def test_every_category_counted(crawl: tuple[Path, Path], tmp_path: Path) -> None:
    robots, ranks = crawl
    out = tmp_path / "outcomes.csv"
    result = run_outcomes([f"CC-TEST={robots}"], str(ranks), str(out), top=[5, 13])
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0])[:len(COLUMNS)] == list(COLUMNS)
    top5, top13 = ({c: int(r[c]) for c in CATEGORIES} for r in rows)
    assert [r["top-k"] for r in rows] == ["5", "13"]
    assert rows[0]["dt"] == "2026-09-01"
    assert rows[0]["crawl"] == "CC-TEST"
    assert top5 == {"No robots.txt capture": 0, "HTTP forbidden": 1, "HTTP defer visits": 1,
                    "HTTP allow all": 0, "HTTP redirect not resolved": 0,
                    "MIME not a robots.txt": 1, "Robots.txt no rules": 1,
                    "Robots.txt with rules": 1}
    # absent: no capture; 503 + 429 defer; 404 + 401 allow all (CC's 'unauthorized' class);
    # www. host and a redirect resolved in the archive count as the ranked host's robots.txt;
    # a 200 beats a later 503 of the same host
    assert top13 == {"No robots.txt capture": 1, "HTTP forbidden": 1, "HTTP defer visits": 2,
                     "HTTP allow all": 2, "HTTP redirect not resolved": 1,
                     "MIME not a robots.txt": 1, "Robots.txt no rules": 1,
                     "Robots.txt with rules": 4}
    # RFC 9309: every 2xx is rules (html and no-rules files too), 403/401/404 allow all
    # (2.3.1.3), 5xx/429 and a redirect to nowhere disallow all (2.3.1.4); the 503 of mixed
    # falls back to the earlier 200 (2.3.1.4, the duplicate rule)
    assert (int(rows[1]["RFC 9309 rules"]), int(rows[1]["RFC 9309 allow all"]),
            int(rows[1]["RFC 9309 disallow all"])) == (6, 3, 3)
    cross = {(r["top-k"], r["category"]): r for r in result.cross}
    assert cross[("13", "HTTP forbidden")]["RFC 9309 allow all"] == 1
    assert cross[("13", "MIME not a robots.txt")]["RFC 9309 rules"] == 1
    assert cross[("13", "HTTP redirect not resolved")]["RFC 9309 disallow all"] == 1
    assert (tmp_path / "outcomes-rfc9309.csv").is_file()


def test_cli_and_errors(crawl: tuple[Path, Path], tmp_path: Path) -> None:
    robots, ranks = crawl
    out = tmp_path / "o.csv"
    result = CliRunner().invoke(dataset, ["outcomes", "--robots", f"X={robots}", "--ranks",
                                          str(ranks), "--top", "5", "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    assert "X top 5: 1 with rules" in result.stderr
    bad = tmp_path / "bad.csv"
    bad.write_text("rank,name\n1,a.example\n")
    result = CliRunner().invoke(dataset, ["outcomes", "--robots", str(robots), "--ranks",
                                          str(bad), "-o", str(tmp_path / "x.csv")])
    assert result.exit_code == 2
    assert "header needs 'rank' and 'host'" in result.stderr
    assert not (tmp_path / "x.csv").exists()
    with pytest.raises(DatasetError, match="bad --top"):
        parse_top("ten")


@pytest.mark.slow  # a local Spark (JVM start and jobs): CI runs -m slow
def test_spark_gives_the_same_tables(spark: Any, crawl: tuple[Path, Path],
                                     tmp_path: Path) -> None:
    # the same command on both engines (the CLI's Spark session is the fixture's local[2],
    # getOrCreate): byte-identical CSVs over a crawl with every category
    robots, ranks = crawl
    written = {}
    for engine in ("duckdb", "spark"):
        out = tmp_path / engine / "outcomes.csv"
        result = CliRunner().invoke(dataset, [
            "outcomes", "--robots", f"CC-TEST={robots}", "--ranks", str(ranks),
            "--top", "5,13", "--engine", engine, "-o", str(out)])
        assert result.exit_code == 0, result.stderr
        written[engine] = (out.read_text(), out.with_name("outcomes-rfc9309.csv").read_text())
    assert written["duckdb"] == written["spark"]
    assert "CC-TEST,13,1,1,2,2,1,1,1,4,2026-09-01,6,3,3" in written["spark"][0]
