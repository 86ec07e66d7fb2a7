"""The WARC reader: one robots.parquet row per robots.txt capture, with the RFC 9309 outcome.

Expectations cite RFC 9309 (sections in each test), Google's robots.txt specification for 429
("Google treats 429 like 5xx") and Common Crawl's archive layout (AI-PREFERENCES.md 3.1: a
request and a response record per capture, redirect targets in the same subset).
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from robotrules.dataset import DatasetError, choose, read_warcs, robots_schema

from ._warcs import Capture, capture_records, write_warc

RULES = b"User-agent: *\nDisallow: /private\n"


def rows(tmp_path: Path, captures: list[Capture], **kw: Any) -> dict[str, dict[str, Any]]:
    warc = write_warc(tmp_path / "t.warc.gz", captures, **kw)
    out = tmp_path / "robots.parquet"
    read_warcs([warc], out)
    table = pq.read_table(out)
    assert table.schema.equals(robots_schema(), check_metadata=False)
    return {r["robots_url"]: r for r in table.to_pylist()}


def test_2xx_gives_rules_and_the_body(tmp_path: Path) -> None:
    # RFC 9309 2.3.1.1: a successful response's rules MUST be followed
    got = rows(tmp_path, [Capture("https://a.example/robots.txt", 200, RULES)])
    r = got["https://a.example/robots.txt"]
    assert (r["origin"], r["status"], r["outcome"], r["body"], r["truncated"], r["hops"]) == (
        "https://a.example", 200, "rules", RULES, False, 0)
    assert r["fetch_time"].isoformat() == "2026-09-01T00:00:00+00:00"
    assert r["warc_file"].endswith("t.warc.gz")
    assert r["warc_offset"] > 0


@pytest.mark.parametrize(("status", "outcome"), [
    (404, "allow-all"),  # RFC 9309 2.3.1.3: unavailable (4xx): MAY access any resource
    (401, "allow-all"),  # 2.3.1.3 covers the whole 400-499 range, 401 and 403 included
    (503, "disallow-all"),  # RFC 9309 2.3.1.4: unreachable (5xx): MUST assume complete disallow
    (429, "disallow-all"),  # Google's spec: 429 is treated as a server error
])
def test_status_outcomes(tmp_path: Path, status: int, outcome: str) -> None:
    got = rows(tmp_path, [Capture("https://s.example/robots.txt", status, b"<html>x</html>")])
    r = got["https://s.example/robots.txt"]
    assert (r["status"], r["outcome"], r["body"]) == (status, outcome, None)


def test_redirects_are_followed_within_the_archive(tmp_path: Path) -> None:
    # RFC 9309 2.3.1.2: follow at least five consecutive redirects, even across authorities;
    # Common Crawl stores the target's response in the same subset
    got = rows(tmp_path, [
        Capture("http://a.example/robots.txt", 301,
                headers={"Location": "https://a.example/robots.txt"}),
        Capture("https://a.example/robots.txt", 200, RULES),
        Capture("https://b.example/robots.txt", 302, headers={"Location": "/moved/r.txt"}),
        Capture("https://b.example/moved/r.txt", 302,
                headers={"Location": "https://cdn.example/b-robots.txt"}),
        Capture("https://cdn.example/b-robots.txt", 200, b"User-agent: *\nDisallow: /b\n"),
    ])
    a = got["http://a.example/robots.txt"]
    assert (a["status"], a["redirect"], a["final_url"], a["final_status"], a["hops"]) == (
        301, "https://a.example/robots.txt", "https://a.example/robots.txt", 200, 1)
    assert (a["outcome"], a["body"]) == ("rules", RULES)
    b = got["https://b.example/robots.txt"]
    assert (b["redirect"], b["final_url"], b["hops"], b["outcome"]) == (
        "https://b.example/moved/r.txt", "https://cdn.example/b-robots.txt", 2, "rules")
    assert b["body"] == b"User-agent: *\nDisallow: /b\n"
    assert "https://cdn.example/b-robots.txt" not in got  # not a /robots.txt: no row of its own


def _chain(host: str, hops: int) -> list[Capture]:
    caps = [Capture(f"https://{host}/robots.txt", 301, headers={"Location": f"/r{1}"})]
    caps += [Capture(f"https://{host}/r{i}", 301, headers={"Location": f"/r{i + 1}"})
             for i in range(1, hops)]
    caps.append(Capture(f"https://{host}/r{hops}", 200, RULES))
    return caps


def test_five_hops_are_followed_and_six_are_not(tmp_path: Path) -> None:
    # RFC 9309 2.3.1.2: at least five; beyond, the crawler MAY assume the file unavailable
    got = rows(tmp_path, _chain("five.example", 5) + _chain("six.example", 6))
    five = got["https://five.example/robots.txt"]
    assert (five["hops"], five["outcome"], five["body"]) == (5, "rules", RULES)
    six = got["https://six.example/robots.txt"]
    assert six["outcome"] == "allow-all"
    assert "more than 5 redirects" in six["error"]


def test_redirect_loop_and_missing_target(tmp_path: Path) -> None:
    got = rows(tmp_path, [
        Capture("https://l.example/robots.txt", 302, headers={"Location": "/a"}),
        Capture("https://l.example/a", 302, headers={"Location": "/robots.txt"}),
        Capture("https://m.example/robots.txt", 301,
                headers={"Location": "https://elsewhere.example/robots.txt"}),
    ])
    loop = got["https://l.example/robots.txt"]
    # a loop can never reach a file: unavailable (2.3.1.2, as after too many redirects)
    assert (loop["outcome"], loop["error"]) == ("allow-all", "redirect loop")
    gone = got["https://m.example/robots.txt"]
    # the archive has no response for the target: unreachable, complete disallow (2.3.1.4)
    assert (gone["outcome"], gone["error"]) == ("disallow-all",
                                                "redirect target not in the archive")


def test_gzip_content_encoding_is_decoded(tmp_path: Path) -> None:
    got = rows(tmp_path, [Capture("https://g.example/robots.txt", 200, gzip.compress(RULES),
                                  headers={"Content-Encoding": "gzip"})])
    assert got["https://g.example/robots.txt"]["body"] == RULES


def test_oversize_body_is_cut_at_500_kib(tmp_path: Path) -> None:
    # RFC 9309 2.5: a limit of at least 500 KiB; content after it MAY be ignored
    line = b"Disallow: /" + b"x" * 88 + b"\n"  # 100 bytes
    body = b"User-agent: *\n" + line * 6000  # 600 KB
    r = rows(tmp_path, [Capture("https://big.example/robots.txt", 200, body)])[
        "https://big.example/robots.txt"]
    assert r["truncated"] is True
    assert len(r["body"]) <= 512_000
    assert body.startswith(r["body"])
    assert r["body"].endswith(b"\n")  # the line cut by the limit is dropped, not half-parsed


def test_non_utf8_body_is_kept_as_bytes(tmp_path: Path) -> None:
    # RFC 9309 2.3: the file is UTF-8; other bytes are kept as captured for the parser
    body = "User-agent: *\nDisallow: /caf\xe9\n".encode("latin-1")
    r = rows(tmp_path, [Capture("https://l1.example/robots.txt", 200, body)])[
        "https://l1.example/robots.txt"]
    assert (r["body"], r["outcome"]) == (body, "rules")


def test_http_and_https_and_several_captures_stay_rows(tmp_path: Path) -> None:
    got = pq.read_table(write_and_read(tmp_path, [
        Capture("http://d.example/robots.txt", 200, b"User-agent: *\nDisallow: /http\n"),
        Capture("https://d.example/robots.txt", 200, b"User-agent: *\nDisallow: /old\n",
                when="2026-09-01T00:00:00Z"),
        Capture("https://d.example/robots.txt", 200, b"User-agent: *\nDisallow: /new\n",
                when="2026-09-02T00:00:00Z"),
    ])).to_pylist()
    assert sorted((r["origin"], r["fetch_time"].day) for r in got) == [
        ("http://d.example", 1), ("https://d.example", 1), ("https://d.example", 2)]


def write_and_read(tmp_path: Path, captures: list[Capture]) -> Path:
    out = tmp_path / "robots.parquet"
    read_warcs([write_warc(tmp_path / "d.warc.gz", captures)], out)
    return out


def _choice(tmp_path: Path, captures: list[Capture]) -> dict[str, dict[str, Any]]:
    table = choose(pq.read_table(write_and_read(tmp_path, captures)))
    return {r["origin"]: r for r in table.to_pylist()}


def test_duplicate_rule_latest_capture_per_origin(tmp_path: Path) -> None:
    # RFC 9309 2.3: http and https are separate origins, each keeps its own file
    got = _choice(tmp_path, [
        Capture("http://d.example/robots.txt", 200, b"User-agent: *\nDisallow: /http\n"),
        Capture("https://d.example/robots.txt", 200, b"User-agent: *\nDisallow: /new\n",
                when="2026-09-02T00:00:00Z"),
        Capture("https://d.example/robots.txt", 200, b"User-agent: *\nDisallow: /old\n",
                when="2026-09-01T00:00:00Z"),
    ])
    assert got["http://d.example"]["body"].endswith(b"/http\n")
    assert got["https://d.example"]["body"].endswith(b"/new\n")


def test_duplicate_rule_outage_keeps_the_earlier_copy(tmp_path: Path) -> None:
    # RFC 9309 2.3.1.4: after an outage a crawler may keep using a cached copy for up to
    # 30 days; beyond that the unreachable capture stands
    got = _choice(tmp_path, [
        Capture("https://o.example/robots.txt", 200, RULES, when="2026-09-01T00:00:00Z"),
        Capture("https://o.example/robots.txt", 503, when="2026-09-10T00:00:00Z"),
        Capture("https://p.example/robots.txt", 200, RULES, when="2026-07-01T00:00:00Z"),
        Capture("https://p.example/robots.txt", 503, when="2026-09-10T00:00:00Z"),
        Capture("https://q.example/robots.txt", 200, RULES, when="2026-09-01T00:00:00Z"),
        Capture("https://q.example/robots.txt", 404, when="2026-09-10T00:00:00Z"),
    ])
    assert got["https://o.example"]["outcome"] == "rules"
    assert got["https://p.example"]["outcome"] == "disallow-all"
    assert got["https://q.example"]["outcome"] == "allow-all"  # 4xx is an answer, not an outage


def test_broken_records_are_counted_not_fatal(tmp_path: Path) -> None:
    good = [Capture("https://ok.example/robots.txt", 200, RULES)]
    no_http = capture_records(Capture("https://bad.example/robots.txt", 200, b""))[1]
    # a response record whose block is not HTTP at all
    block_start = no_http.index(b"\r\n\r\n") + 4
    broken = no_http[:block_start] + b"x" * (len(no_http) - block_start)
    warc = write_warc(tmp_path / "b.warc.gz", good,
                      extra=gzip.compress(broken) + b"\x1f\x8b\x08garbage, a cut gzip member")
    out = tmp_path / "robots.parquet"
    stats = read_warcs([warc], out)
    got = {r["origin"]: r for r in pq.read_table(out).to_pylist()}
    assert got["https://ok.example"]["outcome"] == "rules"
    if "https://bad.example" in got:  # an error row: no parsable response is unreachable
        assert got["https://bad.example"]["outcome"] == "disallow-all"
        assert got["https://bad.example"]["error"]
    assert stats.broken_files
    assert stats.broken_files[0].startswith(str(warc))


def test_a_second_file_is_read_after_a_broken_one(tmp_path: Path) -> None:
    first = write_warc(tmp_path / "1.warc.gz", [Capture("https://one.example/robots.txt", 200,
                                                        RULES)], extra=b"\x00" * 50)
    second = write_warc(tmp_path / "2.warc.gz", [Capture("https://two.example/robots.txt", 404)])
    out = tmp_path / "robots.parquet"
    stats = read_warcs([first, second], out)
    origins = {r["origin"] for r in pq.read_table(out).to_pylist()}
    assert origins == {"https://one.example", "https://two.example"}
    assert stats.rows == 2
    assert len(stats.broken_files) == 1


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no such WARC file"):
        read_warcs([tmp_path / "absent.warc.gz"], tmp_path / "out.parquet")


def test_empty_archive_writes_an_empty_table(tmp_path: Path) -> None:
    got = rows(tmp_path, [])
    assert got == {}


def test_chunked_transfer_coding_is_undone(tmp_path: Path) -> None:
    # RFC 9112 7.1: a chunked message body is the concatenation of its chunks
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(RULES), RULES)
    got = rows(tmp_path, [Capture("https://c.example/robots.txt", 200, chunked,
                                  headers={"Transfer-Encoding": "chunked"})])
    assert got["https://c.example/robots.txt"]["body"] == RULES


@pytest.mark.parametrize(("reason", "outcome", "truncated"), [
    # the crawler stopped reading (WARC 1.1 section 5.18: WARC-Truncated "time" /
    # "disconnect"): the file is incomplete, as a transfer cut mid-body, which the live
    # fetcher reads as unreachable (RFC 9309 2.3.1.4)
    ("time", "disallow-all", False),
    ("disconnect", "disallow-all", False),
    # the crawler's size cap ("length"): RFC 9309 2.5 lets a crawler stop at its limit; the
    # partial last line is dropped, as for robotrules' own limit
    ("length", "rules", True),
])
def test_warc_truncated_captures_are_not_complete_files(tmp_path: Path, reason: str,
                                                        outcome: str, truncated: bool) -> None:
    body = b"User-agent: *\nDisallow: /private\nDisallow: /pri"
    got = rows(tmp_path, [Capture("https://t.example/robots.txt", 200, body,
                                  warc={"WARC-Truncated": reason})])
    r = got["https://t.example/robots.txt"]
    assert (r["outcome"], r["truncated"]) == (outcome, truncated)
    if outcome == "rules":
        assert r["body"] == b"User-agent: *\nDisallow: /private\n"
    else:
        assert r["error"] == f"capture truncated by the crawler (WARC-Truncated: {reason})"


def test_capture_index_beside_robots_parquet(tmp_path: Path) -> None:
    # Common Crawl's URL index columns, one row per response record whatever its path
    # (commoncrawl/robotstxt-experiments reads url_host_name, url_path, url_query,
    # fetch_status, fetch_redirect, content_mime_type, content_mime_detected)
    from robotrules.dataset.captures import index_schema
    from robotrules.dataset.warc import captures_path
    warc = write_warc(tmp_path / "i.warc.gz", [
        Capture("https://A.example/robots.txt", 302, headers={"Location": "/x/r.txt"}),
        Capture("https://a.example/x/r.txt?q=1", 200, RULES,
                headers={"Content-Type": "text/plain; charset=utf-8"},
                warc={"WARC-Identified-Payload-Type": "text/plain"}),
    ])
    out = tmp_path / "robots.parquet"
    stats = read_warcs([warc], out)
    side = captures_path(out)
    assert side.name == "robots.captures.parquet"
    assert stats.files == [out, side]
    table = pq.read_table(side)
    assert table.schema.equals(index_schema(), check_metadata=False)
    first, second = table.to_pylist()
    assert (first["url_host_name"], first["url_path"], first["fetch_status"],
            first["fetch_redirect"], first["redirect_target"]) == (
        "a.example", "/robots.txt", 302, "/x/r.txt", "https://A.example/x/r.txt")
    assert (second["url_path"], second["url_query"], second["content_mime_type"],
            second["content_mime_detected"], second["ruleset_agents"],
            second["has_ruleset"], second["is_robotstxt_mime"]) == (
        "/x/r.txt", "q=1", "text/plain", "text/plain", ["*"], True, True)
