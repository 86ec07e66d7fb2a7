"""``robotrules bulk``: many URLs over many local origins, robots.txt fetched once each.

Origins are distinct (address, port) pairs on 127.x.y.z, all this machine (RFC 9309 2.3: one
robots.txt per scheme, host and port). Statuses per origin follow many_origins.py.
"""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import Server

HERE = Path(__file__).resolve().parent


class Origins:
    def __init__(self, ips: int, ports: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(HERE / "many_origins.py"), "--ips", str(ips), "--ports",
             str(ports)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.origins: list[str] = json.loads(self.proc.stdout.readline())

    def stats(self) -> dict[str, int]:
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write("stats\n")
        self.proc.stdin.flush()
        hits: dict[str, int] = json.loads(self.proc.stdout.readline())
        return hits

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def origins() -> Iterator[Origins]:
    o = Origins(ips=10, ports=4)  # 40 origins on 10 loopback addresses
    yield o
    o.close()


def _urls(origins: list[str], n: int) -> list[str]:
    paths = ["/", "/private/x", "/private/ok", "/a/b?q=1"]
    k = len(origins)
    return [f"{origins[i % k]}{paths[(i // k) % len(paths)]}" for i in range(n)]


def test_rfc9309_2_3_bulk_once_per_origin_csv(cli: Any, origins: Origins, tmp_path: Path) -> None:
    urls = _urls(origins.origins, 400)
    before = origins.stats()
    src = tmp_path / "urls.txt"
    src.write_text("\n".join(urls) + "\n")
    summary = tmp_path / "summary.jsonl"
    r = cli("bulk", str(src), "--agent", "GPTBot", "--agent", "Googlebot",
            "--concurrency", "8", "--summary", str(summary))
    assert r.code == 3, r.err  # some origins answer 503: rows resting on them (docs/cli.md)
    rows = list(csv.DictReader(io.StringIO(r.out)))
    assert len(rows) == 800  # one row per URL and agent
    after = origins.stats()
    fetched = {o: after.get(o, 0) - before.get(o, 0) for o in origins.origins}
    assert set(fetched.values()) == {1}, "robots.txt fetched exactly once per origin"
    by = {(x["url"], x["agent"]): x for x in rows}
    k0 = origins.origins[0]  # rules, GPTBot blocked (even)
    assert by[(k0 + "/private/ok", "Googlebot")]["allowed"] == "true"  # RFC 9309 2.2.2
    assert by[(k0 + "/private/x", "Googlebot")]["line"] == "2"
    assert by[(k0 + "/", "GPTBot")]["allowed"] == "false"
    k9 = origins.origins[9]  # 503: unreachable, disallow all (2.3.1.4)
    assert by[(k9 + "/", "Googlebot")]["allowed"] == "false"
    assert by[(k9 + "/", "Googlebot")]["outcome"] == "disallow-all"
    assert (by[(k9 + "/", "Googlebot")]["kind"], by[(k9 + "/", "Googlebot")]["error"]) == (
        "unreachable", "HTTP 503")
    k8 = origins.origins[8]  # 404: unavailable, allow all (2.3.1.3)
    assert by[(k8 + "/private/x", "Googlebot")]["allowed"] == "true"
    assert by[(k8 + "/private/x", "Googlebot")]["kind"] == "unavailable"
    assert by[(k0 + "/", "GPTBot")]["kind"] == "verdict"
    # the warning once per unreachable origin, not once per URL
    warned = [x for x in r.err.splitlines() if x.startswith("robotrules: warning: could not")]
    assert len(warned) == len({x.split()[5] for x in warned}) == 4, warned
    assert len(summary.read_text().splitlines()) == 40
    assert "40 origins" in r.err


def test_bulk_jsonl_in_and_out_from_stdin(cli: Any, origins: Origins) -> None:
    urls = _urls(origins.origins, 60)
    text = "".join(json.dumps({"url": u, "id": i}) + "\n" for i, u in enumerate(urls))
    r = cli("bulk", "-", "--agent", "ClaudeBot", "--format", "jsonl", input=text)
    rows = [json.loads(x) for x in r.out.splitlines()]
    assert len(rows) == 60
    assert sorted(x["n"] for x in rows) == list(range(1, 61))
    assert {"url", "agent", "allowed", "line"} <= set(rows[0])


def test_bulk_csv_input_with_url_column(cli: Any, origins: Origins, tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    src.write_text("id,url\n1," + origins.origins[1] + "/private/x\n2," + origins.origins[1]
                   + "/ok\n")
    r = cli("bulk", str(src), "--agent", "Bot", "--format", "jsonl")
    rows = sorted((json.loads(x) for x in r.out.splitlines()), key=lambda x: x["n"])
    assert [x["allowed"] for x in rows] == [False, True]
    assert r.code == 1


def test_bulk_invalid_url_is_a_row_and_exit_2(cli: Any, origins: Origins) -> None:
    r = cli("bulk", "-", "--agent", "Bot", input=origins.origins[0] + "/\nnot a url\n")
    assert r.code == 2
    assert "invalid URL" in r.out
    assert "Traceback" not in r.err


def test_bulk_progress_on_request(cli: Any, origins: Origins) -> None:
    r = cli("bulk", "-", "--agent", "Bot", "--progress", "always",
            input="\n".join(_urls(origins.origins, 2000)))
    assert "URLs/s" in r.err


def test_bulk_counts_say_what_they_count(cli: Any, origins: Origins) -> None:
    """Issue 26: '259 URLs ... 518 disallowed' counted URLs in one column and verdicts in the
    next. Verdicts are URL x agent; allowed + disallowed = verdicts, in total and per origin."""
    import re

    urls = _urls(origins.origins[:8], 40)
    r = cli("bulk", "-", "-a", "GPTBot", "-a", "Googlebot", "--no-fail-on-unreachable",
            input="\n".join(urls) + "\n")
    m = re.search(r"(\d+) URLs x 2 agent\(s\) = (\d+) verdicts \((\d+) allowed, (\d+) "
                  r"disallowed; (\d+) of the URLs disallowed for some agent\)", r.err)
    assert m is not None, r.err
    n_urls, verdicts, allowed, disallowed, urls_blocked = map(int, m.groups())
    assert n_urls == 40
    assert verdicts == 2 * n_urls == allowed + disallowed
    assert urls_blocked <= n_urls
    rows = list(csv.DictReader(io.StringIO(r.out)))
    assert sum(x["allowed"] == "false" for x in rows) == disallowed
    assert len({x["n"] for x in rows if x["allowed"] == "false"}) == urls_blocked


def test_bulk_uses_the_same_cache_as_check(cli: Any, server: Server) -> None:
    """Issue 16: two bulk runs in a row fetch each robots.txt once; --no-cache skips it."""
    server.robots("User-agent: *\nDisallow: /x\n", **{"Cache-Control": "max-age=3600"})
    urls = f"{server.base}/x\n{server.base}/y\n"
    for _ in range(2):
        r = cli("bulk", "-", "--agent", "A", input=urls)
        assert r.code == 1, r.err
    assert server.hits["/robots.txt"] == 1
    assert cli("check", "--agent", "A", server.base + "/y").code == 0
    assert server.hits["/robots.txt"] == 1  # check reads what bulk cached
    cli("bulk", "-", "--agent", "A", "--no-cache", input=urls)
    assert server.hits["/robots.txt"] == 2


def test_bulk_counts_invalid_urls_apart(cli: Any, server: Server) -> None:
    """Issue 16: 10 rows, 3 invalid, 2 agents: 7 URLs x 2 = 14 verdicts, 3 invalid."""
    server.robots("User-agent: *\nDisallow: /x\n")
    good = [f"{server.base}/p{i}" for i in range(7)]
    rows = [*good[:3], "not a url", *good[3:5], "ftp://e.com/", "https:///x", *good[5:]]
    r = cli("bulk", "-", "-a", "A", "-a", "B", input="\n".join(rows) + "\n")
    assert r.code == 2
    assert "10 input rows: 7 URLs x 2 agent(s) = 14 verdicts" in r.err
    assert "3 invalid URL(s)" in r.err
    assert "input line 4, 7, 8" in r.err


def test_bulk_summary_never_cuts_words(cli: Any, make_server: Any, tmp_path: Path) -> None:
    """Issue 16: the per-origin summary wraps reasons between words, never inside one."""
    servers = [make_server() for _ in range(3)]
    servers[0].robots("User-agent: *\nDisallow: /x\n")
    servers[1].robots("busy", status=503)
    urls = "".join(f"{s.base}/a\n" for s in servers)
    summary = tmp_path / "origins.jsonl"
    r = cli("bulk", "-", "-a", "A", "--summary", str(summary), input=urls,
            env={"COLUMNS": "60"})
    reasons = [json.loads(x)["summary"] for x in summary.read_text().splitlines()]
    assert len(reasons) == 3
    for word in re.findall(r"[\w,]+", " ".join(reasons)):
        assert re.search(rf"(?<![\w,]){re.escape(word)}(?![\w,])", r.err), (word, r.err)


def test_bulk_table_always_shows_origins_whose_file_could_not_be_fetched(
        cli: Any, origins: Origins) -> None:
    """Issue 39: the per-origin table showed the 20 origins with the most disallowed verdicts
    and hid the rest ("... 2 more origins"), the 503 origin among them. An unreachable file's
    verdicts are RFC 9309 2.3.1.4's disallow-all, not the site's rules: those origins always
    show. many_origins.py: origin k answers 503 when k % 10 == 9, rules otherwise."""
    urls = []
    for k, origin in enumerate(origins.origins):
        if k % 10 == 9:
            urls.append(origin + "/")  # one URL: one disallowed verdict, the fewest of all
        elif k % 10 != 8:
            urls += [f"{origin}/private/{i}" for i in range(3)]  # Disallow: /private/
    r = cli("bulk", "-", "-a", "Bot", "--color", "never", "--no-fail-on-unreachable",
            input="\n".join(urls) + "\n")
    failed = [o for k, o in enumerate(origins.origins) if k % 10 == 9]
    rows = [line.split()[0] for line in r.err.splitlines() if line.startswith("http://")]
    assert set(failed) <= set(rows), r.err
    assert set(rows[:len(failed)]) == set(failed)  # first
    assert len(rows) == 20
    assert f"... {len(origins.origins) - 4 - 20} more origins" in r.err
