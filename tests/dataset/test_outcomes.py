"""``robotrules dataset outcomes``: Common Crawl's procedure, cell for cell, with RFC 9309's
reading beside it.

The oracle (:func:`common_crawl_table`) re-expresses, in this test's own code and straight from
the WARC file, the rules of Common Crawl's commoncrawl/robotstxt-experiments project:
``get_robotstxt_captures_athena.py`` (its Athena query: captures whose ``url_host_name`` equals
the ranked host, path ``/robots.txt``, no query, ``ROW_NUMBER() OVER(PARTITION BY cc.url ORDER
BY cc.fetch_time DESC) = 1``; then up to five rounds of redirect targets, relative ones
``urljoin``-ed, empty and self redirects dropped, the latest capture per (host, URL)),
``get_robotstxt_ranked_list.py`` (``fetch_status_classify``), ``get_robotstxt_download_list.py``
(``is_robotstxt_mime_type``), ``robotstxt_statistics.py`` (which records give a ruleset) and
``metrics-top-k-sample.ipynb`` (``robotstxt_status_counts``: the category sets and their
precedence; ``date_of``: the Monday of the crawl's ISO week; the ``2M`` row = the whole list).
The column names are the header of its ``data/top-k-sample/robotstxt-status-counts-topk.csv``.
The RFC 9309 columns follow RFC 9309 2.3.1.1-2.3.1.4 and the duplicate rule of
docs/datasets.md.
"""

from __future__ import annotations

import csv
import gzip
import io
import re
from collections import defaultdict
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import pytest
from click.testing import CliRunner
from fastwarc.warc import ArchiveIterator, WarcRecordType

from robotrules.dataset import DatasetError, read_warcs
from robotrules.dataset.cli import dataset
from robotrules.dataset.outcomes import (
    CATEGORIES,
    COLUMNS,
    cc_ruleset_agents,
    parse_top,
    read_ranks,
    run_outcomes,
    stratum_label,
)

from ._warcs import Capture, write_warc

RULES = b"User-agent: *\nDisallow: /private/\n"
HTML = b"<html><body>Not here</body></html>"
EARLY, LATE = "2026-09-15T00:00:00Z", "2026-09-16T00:00:00Z"
CAPTURES = [
    Capture("https://rules.example/robots.txt", 200, RULES),
    Capture("https://norules.example/robots.txt", 200, b"# nothing\nSitemap: https://n/s.xml\n"),
    Capture("https://html.example/robots.txt", 200, HTML,
            headers={"Content-Type": "text/html; charset=utf-8"}),
    Capture("https://forbidden.example/robots.txt", 403),
    Capture("https://defer.example/robots.txt", 503),
    Capture("https://gone.example/robots.txt", 404),
    Capture("https://unauth.example/robots.txt", 401),
    Capture("https://busy.example/robots.txt", 429),
    Capture("https://nocontent.example/robots.txt", 204),
    # exact host: only www. is captured, the ranked name is not
    Capture("https://www.wwwonly.example/robots.txt", 200, RULES),
    # latest capture per URL: the later 503 replaces the earlier 200 of the same URL ...
    Capture("https://flaky.example/robots.txt", 200, RULES, when=EARLY),
    Capture("https://flaky.example/robots.txt", 503, when=LATE),
    # ... but http and https are two URLs, each with its latest capture
    Capture("http://twourls.example/robots.txt", 200, RULES, when=EARLY),
    Capture("https://twourls.example/robots.txt", 503, when=LATE),
    # the detected MIME type decides over the Content-Type
    Capture("https://detected-html.example/robots.txt", 200, RULES,
            warc={"WARC-Identified-Payload-Type": "text/html"}),
    Capture("https://detected-text.example/robots.txt", 200, RULES,
            headers={"Content-Type": "text/html"},
            warc={"WARC-Identified-Payload-Type": "text/plain"}),
    # text/x-php passes the ranked list's test but not the statistics job's plain-text set
    Capture("https://php.example/robots.txt", 200, RULES,
            warc={"WARC-Identified-Payload-Type": "text/x-php"}),
    # an HTML first line under a text type: the statistics job passes it over
    Capture("https://htmlbody.example/robots.txt", 200, b"<!DOCTYPE html>\n<p>x</p>\n"),
    # no Content-Type and no detected type: the MIME test lets it through, the job does not
    Capture("https://notype.example/robots.txt", 200, RULES, headers={"Content-Type": None}),
    # redirects: absolute to another host's other path, relative, not archived, a loop
    Capture("https://moved.example/robots.txt", 301,
            headers={"Location": "https://cdn.example/files/robots.txt"}),
    Capture("https://cdn.example/files/robots.txt", 200, RULES),
    Capture("https://relative.example/robots.txt", 302, headers={"Location": "/r/robots.txt"}),
    Capture("https://relative.example/r/robots.txt", 403),
    Capture("https://lost.example/robots.txt", 301,
            headers={"Location": "https://nowhere.example/robots.txt"}),
    Capture("https://loop.example/robots.txt", 301,
            headers={"Location": "https://loop2.example/robots.txt"}),
    Capture("https://loop2.example/robots.txt", 301,
            headers={"Location": "https://loop.example/robots.txt"}),
    Capture("https://self.example/robots.txt", 301,
            headers={"Location": "https://self.example/robots.txt"}),
    # an empty Disallow is a rule; a user-agent after a rule starts a new set
    Capture("https://empty.example/robots.txt", 200, b"User-agent: a\nDisallow:\n"),
    # a query is not a robots.txt URL
    Capture("https://query.example/robots.txt?x=1", 200, RULES),
]
RANKS = ["rules", "norules", "html", "forbidden", "defer", "gone", "unauth", "busy",
         "nocontent", "wwwonly", "flaky", "twourls", "detected-html", "detected-text", "php",
         "htmlbody", "notype", "moved", "relative", "lost", "loop", "self", "empty", "query",
         "absent"]


@pytest.fixture
def crawl(tmp_path: Path) -> tuple[Path, Path, Path]:
    warc = write_warc(tmp_path / "c.warc.gz", CAPTURES)
    robots = tmp_path / "robots.parquet"
    read_warcs([warc], robots)
    ranks = tmp_path / "ranks.csv"
    ranks.write_text("".join(f"{i},{h}.example\n" for i, h in enumerate(RANKS, start=1)))
    return warc, robots, ranks


# --- the oracle: Common Crawl's procedure, re-expressed here -------------------------------


def _index(warc: Path) -> list[dict[str, Any]]:
    """Common Crawl's URL index columns of every response record, read here with FastWARC."""
    out = []
    with open(warc, "rb") as f:
        for rec in ArchiveIterator(f, parse_http=True, record_types=WarcRecordType.response):
            url = rec.headers["WARC-Target-URI"]
            parts = urlsplit(url)
            http = {k.lower(): v for k, v in rec.http_headers.items()}
            body = rec.reader.read()
            ctype = http.get("content-type")
            out.append({
                "url": url, "host": parts.hostname, "path": parts.path,
                "query": parts.query or None, "time": rec.record_date,
                "status": rec.http_headers.status_code, "redirect": http.get("location"),
                "mime": ctype.split(";")[0].strip() if ctype else None,
                "detected": rec.headers.get("WARC-Identified-Payload-Type"), "body": body})
    return out


def _status_class(code: int) -> str:  # get_robotstxt_ranked_list.py, fetch_status_classify
    return ("success" if code == 200 else "forbidden" if code == 403 else
            "defer_visits" if 500 <= code <= 599 or code == 429 else
            "redirect" if 300 <= code < 400 else
            "notfound" if code in (404, 410, 400) else
            "unauthorized" if code == 401 else "other")


def _mime_ok(r: dict[str, Any]) -> bool:  # get_robotstxt_download_list.py
    det, mime = r["detected"], r["mime"]
    s1 = det is None or (det.startswith("text/") and det != "text/html") or det in (
        "message/rfc822", "plain/text")
    s2 = det is not None or mime is None or bool(re.search("(?i)text(?!/html)", mime))
    return s1 and s2


PLAIN = {"text/x-robots", "text/plain", "message/rfc822", "text/text", "text/txt", "text",
         "plain/text", "text/pain", "text/plan"}


def _ruleset(r: dict[str, Any]) -> bool:  # robotstxt_statistics.py, --extract_rulesets
    if r["status"] != 200:
        return False
    kind = r["detected"] or (r["mime"] or "").lower()
    if not kind or kind not in PLAIN:
        return False
    stream = io.BytesIO(r["body"])
    line = stream.readline()
    if line.startswith(b"\xef\xbb\xbf"):
        line = line[3:]
    if re.match(rb"^(?:<html|<!DOCTYPE html)\b", line, re.I):
        return False
    agents: set[bytes] = set()
    rules: dict[bytes, int] = defaultdict(int)
    inblock = False
    while line:
        m = re.match(rb"^\s*(user-agent|disallow|allow)\s*:\s*([^\r#]*)", line, re.I)
        if m and m.group(1).lower() == b"user-agent":
            if inblock:
                agents = set()
            agents.add(m.group(2).strip())
        elif m:
            inblock = True
            for a in agents:
                rules[a] += 1
        line = stream.readline()
    return bool(rules)


def common_crawl_table(warc: Path, ranks: list[tuple[int, str]], label: str,
                       strata: list[tuple[str, int]]) -> list[dict[str, Any]]:
    index = _index(warc)
    by_host = {h: rank for rank, h in ranks}
    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for r in index:  # the Athena query: latest capture per URL of a ranked host
        if r["host"] in by_host and r["path"] == "/robots.txt" and r["query"] is None:
            key = (r["host"], r["url"])
            if key not in latest or r["time"] > latest[key]["time"]:
                latest[key] = r
    rows = [(host, r) for (host, _), r in latest.items()]
    level = rows
    for _ in range(5):  # five rounds of redirect targets
        targets = set()
        for host, r in level:
            target = r["redirect"]
            if not target:
                continue
            if not target.startswith(("http://", "https://")):
                target = urljoin(r["url"], target)
            if target != r["url"]:
                targets.add((host, target))
        found: dict[tuple[str, str], dict[str, Any]] = {}
        for host, target in targets:
            for r in index:
                if r["url"] == target and ((host, target) not in found
                                           or r["time"] > found[(host, target)]["time"]):
                    found[(host, target)] = r
        level = [(host, r) for (host, _), r in found.items()]
        rows += level
    table = []
    for top, k in strata:  # metrics-top-k-sample.ipynb, robotstxt_status_counts
        d = [(h, r) for h, r in rows if by_host[h] <= k]

        def hosts(cond: Any, d: list[tuple[str, dict[str, Any]]] = d) -> set[str]:
            return {h for h, r in d if cond(r)}
        success = hosts(lambda r: _status_class(r["status"]) == "success")
        allow = hosts(lambda r: _status_class(r["status"]) in (
            "notfound", "other", "unauthorized")) - success
        forbidden = hosts(lambda r: _status_class(r["status"]) == "forbidden") - success - allow
        defer = hosts(lambda r: _status_class(r["status"]) == "defer_visits") - success - \
            allow - forbidden
        redirect = hosts(lambda r: _status_class(r["status"]) == "redirect") - forbidden - \
            defer - success - allow
        robotstxt = hosts(lambda r: r["status"] == 200 and _mime_ok(r))
        parsed = hosts(lambda r: r["status"] == 200 and _mime_ok(r) and _ruleset(r))
        first = min(r["time"] for r in index).date()
        year, week = label.split("-")[2:] if label.startswith("CC-MAIN-") else (
            first.isocalendar()[0], first.isocalendar()[1])
        table.append({
            "crawl": label, "top-k": top,
            "No robots.txt capture": k - len({by_host[h] for h, _ in d}),
            "HTTP forbidden": len(forbidden), "HTTP defer visits": len(defer),
            "HTTP allow all": len(allow), "HTTP redirect not resolved": len(redirect),
            "MIME not a robots.txt": len(success) - len(robotstxt),
            "Robots.txt no rules": len(robotstxt) - len(parsed),
            "Robots.txt with rules": len(parsed),
            "dt": date.fromisocalendar(int(year), int(week), 1).isoformat()})
    return table


# --- the tests --------------------------------------------------------------------------------


def _read(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_published_column_names() -> None:
    # the header line of robotstxt-status-counts-topk.csv, as published
    assert ",".join(COLUMNS) == (
        "crawl,top-k,No robots.txt capture,HTTP forbidden,HTTP defer visits,HTTP allow all,"
        "HTTP redirect not resolved,MIME not a robots.txt,Robots.txt no rules,"
        "Robots.txt with rules,dt")
    assert [stratum_label(k) for k in (1000, 10_000, 50_000, 1_000_000, 2_000_000, 7)] == [
        "1k", "10k", "50k", "1M", "2M", "7"]
    assert parse_top("10k,1000,1M") == [1000, 10_000, 1_000_000]


@pytest.mark.parametrize("label", ["CC-MAIN-2026-38", "my-crawl"])
def test_common_crawls_procedure_cell_for_cell(crawl: tuple[Path, Path, Path], tmp_path: Path,
                                               label: str) -> None:
    warc, robots, ranks = crawl
    out = tmp_path / "outcomes.csv"
    run_outcomes([f"{label}={robots}"], str(ranks), str(out), top=[5, 12, 1000])
    got = _read(out)
    # 1000 is beyond the list's 25 ranks: left out; the whole list is the last stratum
    strata = [("5", 5), ("12", 12), ("25", 25)]
    want = common_crawl_table(warc, read_ranks(str(ranks)), label, strata)
    assert [{c: r[c] for c in COLUMNS} for r in got] == [
        {c: str(r[c]) for c in COLUMNS} for r in want]


def test_the_procedures_rules_one_by_one(crawl: tuple[Path, Path, Path], tmp_path: Path) -> None:
    # each expectation is one rule of the procedure (module docstring), on hosts ranked alone
    _, robots, _ = crawl
    expected = {
        "rules": "Robots.txt with rules", "norules": "Robots.txt no rules",
        "html": "MIME not a robots.txt", "forbidden": "HTTP forbidden",
        "defer": "HTTP defer visits", "gone": "HTTP allow all", "unauth": "HTTP allow all",
        "busy": "HTTP defer visits", "nocontent": "HTTP allow all",
        "wwwonly": "No robots.txt capture",  # the Athena join is on the exact host name
        "flaky": "HTTP defer visits",  # the latest capture of the URL only
        "twourls": "Robots.txt with rules",  # http's 200 and https's 503: two URLs
        "detected-html": "MIME not a robots.txt",  # the detected type decides
        "detected-text": "Robots.txt with rules",
        "php": "Robots.txt no rules",  # text/x-php: not in the job's plain-text set
        "htmlbody": "Robots.txt no rules", "notype": "Robots.txt no rules",
        "moved": "Robots.txt with rules",  # the target's 200, another host and path
        "relative": "HTTP forbidden",  # the relative target's 403 beats the 3xx
        "lost": "HTTP redirect not resolved", "loop": "HTTP redirect not resolved",
        "self": "HTTP redirect not resolved",
        "empty": "Robots.txt with rules",  # an empty Disallow is a rule
        "query": "No robots.txt capture",  # a URL with a query is not looked up
        "absent": "No robots.txt capture",
    }
    for host, category in expected.items():
        ranks = tmp_path / f"{host}.csv"
        ranks.write_text(f"1,{host}.example\n")
        out = tmp_path / f"{host}-out.csv"
        run_outcomes([f"CC-MAIN-2026-38={robots}"], str(ranks), str(out))
        row = _read(out)[0]
        assert row["top-k"] == "1"  # one row: the whole list, no copied 1k ... 1M rows
        assert row[category] == "1", (host, category, row)
        assert sum(int(row[c]) for c in CATEGORIES) == 1
        assert row["dt"] == "2026-09-14"  # Monday of ISO week 38 of 2026


def test_rfc9309_columns_and_cross_table(crawl: tuple[Path, Path, Path],
                                         tmp_path: Path) -> None:
    _, robots, ranks = crawl
    out = tmp_path / "o.csv"
    result = run_outcomes([f"CC-MAIN-2026-38={robots}"], str(ranks), str(out), top=[3])
    first = _read(out)[0]
    # rules (2xx, 2.3.1.1) for rules/norules/html; nothing else in the top 3
    assert (first["RFC 9309 rules"], first["RFC 9309 allow all"],
            first["RFC 9309 disallow all"]) == ("3", "0", "0")
    cross = {(r["top-k"], r["category"]): r for r in result.cross}
    # 403 is allow all for RFC 9309 (2.3.1.3), "HTTP forbidden" for Common Crawl
    assert cross[("25", "HTTP forbidden")]["RFC 9309 allow all"] == 2
    # flaky's latest 503 falls back to its earlier 200 (2.3.1.4, the duplicate rule)
    assert cross[("25", "HTTP defer visits")]["RFC 9309 rules"] == 1
    assert (tmp_path / "o-rfc9309.csv").is_file()


def test_ranked_list_formats(tmp_path: Path) -> None:
    # Common Crawl's tranco_combined.txt.gz: rank<TAB>host, gzip (data preparation notebook)
    cc = tmp_path / "tranco_combined.txt.gz"
    cc.write_bytes(gzip.compress(b"1\tgoogle.com\n2\tWWW.Example.org.\n"))
    assert read_ranks(str(cc)) == [(1, "google.com"), (2, "www.example.org")]
    tranco = tmp_path / "tranco.csv"
    tranco.write_text("1,a.example\n2,b.example\n")
    assert read_ranks(str(tranco)) == [(1, "a.example"), (2, "b.example")]
    named = tmp_path / "named.csv"
    named.write_text("site,rank\nc.example,3\n")
    assert read_ranks(str(named)) == [(3, "c.example")]
    bad = tmp_path / "bad.csv"
    bad.write_text("1,a.example\nx,b.example\n")
    with pytest.raises(DatasetError, match="line 2"):
        read_ranks(str(bad))
    with pytest.raises(DatasetError, match="is a directory"):
        read_ranks(str(tmp_path))


def test_cc_ruleset_agents_quirks() -> None:
    # robotstxt_statistics.py: a user-agent line after any rule starts the set over, so b
    # (between two rules' groups) is replaced by c; comments cut values; LF ends lines
    body = b"\xef\xbb\xbfUser-agent: a\nDisallow: /x\nUser-agent: b\nUser-agent: C # c\n" \
           b"Allow: /y\n"
    assert cc_ruleset_agents(body, None, "text/plain; charset=utf-8") == ["a", "c"]
    assert cc_ruleset_agents(body, "text/html", "text/plain") is None
    assert cc_ruleset_agents(b"<HTML>\nUser-agent: *\nDisallow: /\n", None, "text/plain") is None
    assert cc_ruleset_agents(b"Disallow: /\n", None, "text/plain") == []  # no user-agent


def test_cli_and_errors(crawl: tuple[Path, Path, Path], tmp_path: Path) -> None:
    _, robots, ranks = crawl
    out = tmp_path / "o.csv"
    result = CliRunner().invoke(dataset, ["outcomes", "--robots", f"X={robots}", "--ranks",
                                          str(ranks), "--top", "5", "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    assert "X top 5: 1 with rules" in result.stderr
    assert result.stdout.split() == [str(out), str(tmp_path / "o-rfc9309.csv")]
    # --help and the docs say the same of dt
    helped = CliRunner().invoke(dataset, ["outcomes", "--help"]).stdout
    assert "Monday of the crawl's" in " ".join(helped.split())
    docs = (Path(__file__).parents[2] / "docs" / "datasets.md").read_text()
    assert "the Monday of the crawl's ISO week" in " ".join(docs.split())
    bad = tmp_path / "bad.csv"
    bad.write_text("rank,name\n1,a.example\n")
    result = CliRunner().invoke(dataset, ["outcomes", "--robots", str(robots), "--ranks",
                                          str(bad), "-o", str(tmp_path / "x.csv")])
    assert result.exit_code == 2
    assert "header needs 'rank' and 'host'" in result.stderr
    assert not (tmp_path / "x.csv").exists()
    (tmp_path / "robots.captures.parquet").unlink()
    result = CliRunner().invoke(dataset, ["outcomes", "--robots", str(robots), "--ranks",
                                          str(ranks), "-o", str(tmp_path / "y.csv")])
    assert result.exit_code == 2
    assert "no capture index robots.captures.parquet" in result.stderr
    with pytest.raises(DatasetError, match="bad --top"):
        parse_top("ten")


def test_duckdb_options_give_the_same_table(crawl: tuple[Path, Path, Path],
                                            tmp_path: Path) -> None:
    # issue 40: "census, outcomes and history have no --memory-limit, --scratch-dir or
    # --threads". With them, outcomes writes the same table, its spill folder is gone
    # afterwards, and a bad limit is one line, exit 2
    _, robots, ranks = crawl
    plain, bounded = tmp_path / "plain.csv", tmp_path / "bounded.csv"
    run_outcomes([f"X={robots}"], str(ranks), str(plain), top=[5, 12])
    scratch = tmp_path / "scratch"
    result = CliRunner().invoke(dataset, [
        "outcomes", "--robots", f"X={robots}", "--ranks", str(ranks), "--top", "5,12",
        "--threads", "1", "--memory-limit", "64MB", "--scratch-dir", str(scratch),
        "-o", str(bounded)])
    assert result.exit_code == 0, result.stderr
    assert _read(bounded) == _read(plain)
    assert list(scratch.iterdir()) == []
    result = CliRunner().invoke(dataset, [
        "outcomes", "--robots", f"X={robots}", "--ranks", str(ranks), "--memory-limit",
        "lots", "-o", str(tmp_path / "z.csv")])
    assert result.exit_code == 2
    assert "bad memory limit 'lots'" in result.stderr
    assert not (tmp_path / "z.csv").exists()


@pytest.mark.slow  # a local Spark (JVM start and jobs): CI runs -m slow
def test_spark_gives_the_same_tables(spark: Any, crawl: tuple[Path, Path, Path],
                                     tmp_path: Path) -> None:
    # the same command on both engines (the CLI's Spark session is the fixture's local[2],
    # getOrCreate): byte-identical CSVs over a crawl with every category
    _, robots, ranks = crawl
    written = {}
    for engine in ("duckdb", "spark"):
        out = tmp_path / engine / "outcomes.csv"
        result = CliRunner().invoke(dataset, [
            "outcomes", "--robots", f"CC-MAIN-2026-38={robots}", "--ranks", str(ranks),
            "--top", "5,12", "--engine", engine, "-o", str(out)])
        assert result.exit_code == 0, result.stderr
        written[engine] = (out.read_text(), out.with_name("outcomes-rfc9309.csv").read_text())
    assert written["duckdb"] == written["spark"]
    assert "ran on spark, master local[2]" in result.stderr
