"""``robotrules audit`` and ``robotrules agents ranges`` run as users run them (a subprocess),
on the shipped example log and robots.txt, and the tallies behind them."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from robotrules.guard.ranges import refresh
from robotrules.guard.registry import checks_for

from .conftest import EXAMPLES, ROOT, DnsServer, HttpServer, Reply

LOG = str(EXAMPLES / "guard_access.log")
ROBOTS = str(EXAMPLES / "guard_robots.txt")


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    e = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "NO_COLOR": "1", "COLUMNS": "160",
         **(env or {})}
    return subprocess.run([sys.executable, "-m", "robotrules.cli", *args], capture_output=True,
                          text=True, env=e, timeout=120, check=False)


def rows(out: str) -> dict[str, dict[str, object]]:
    return {r["crawler"]: r for r in map(json.loads, out.splitlines())}


def test_audit_json_on_the_example(tmp_path: Path) -> None:
    p = run("audit", LOG, "--robots", ROBOTS, "--json", "--ranges-dir", str(tmp_path))
    assert p.returncode == 1, p.stderr  # violations found
    r = rows(p.stdout)
    for row in r.values():
        assert {"crawler", "requests", "violations", "verified", "spoofed",
                "unverifiable"} <= set(row)
    g = r["Googlebot"]
    assert g["requests"] == 9
    assert g["robots_txt_fetches"] == 2
    assert g["robots_txt_interval_s"] == 6 * 3600
    # examples/guard_robots.txt line 7 "Disallow: /admin/" in Googlebot's group
    assert g["violations"] == 2
    assert g["violation_lines"][0]["line"] == 7  # type: ignore[index]
    assert g["violation_lines"][0]["first"] == "2026-11-23T06:05:00Z"  # type: ignore[index]
    assert r["GPTBot"]["violations"] == 2  # line 4 "Disallow: /" for GPTBot and CCBot
    assert r["GPTBot"]["unverifiable"] == 3  # no range list saved: never "spoofed"
    assert "1 of 24 lines were not log records" in p.stderr


def test_audit_with_fresh_ranges_tells_verified_from_spoofed(http: HttpServer,
                                                            tmp_path: Path) -> None:
    # save Google's list (served here) under the registry's URL, as --refresh would
    url = checks_for("Googlebot").ranges_url
    assert url is not None
    http.routes["/g.json"] = Reply(200, b'{"prefixes": [{"ipv4Prefix": "66.249.64.0/19"}]}')
    refresh({f"{http.base}/g.json": "google"}, tmp_path, timeout=5, allow_loopback=True)
    index = json.loads((tmp_path / "index.json").read_text())
    index[url] = index.pop(f"{http.base}/g.json")
    (tmp_path / "index.json").write_text(json.dumps(index))
    p = run("audit", LOG, "--robots", ROBOTS, "--json", "--ranges-dir", str(tmp_path))
    g = rows(p.stdout)["Googlebot"]
    assert (g["verified"], g["spoofed"]) == (7, 2)  # 198.51.100.7 is not Google's


def test_audit_table_gzip_and_stdin(tmp_path: Path) -> None:
    gz = tmp_path / "access.log.gz"
    gz.write_bytes(gzip.compress(Path(LOG).read_bytes()))
    p = run("audit", str(gz), "--robots", ROBOTS, "--no-progress")
    assert p.returncode == 1
    assert "robots.txt violations" in p.stdout
    assert "Disallow: /admin/" in p.stdout
    assert "by purpose" in p.stdout
    with open(LOG, "rb") as f:
        q = subprocess.run([sys.executable, "-m", "robotrules.cli", "audit", "-", "--robots",
                            ROBOTS, "--json"], stdin=f, capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, timeout=60,
                           check=False)
    assert rows(q.stdout)["Googlebot"]["requests"] == 9


def test_audit_errors_are_one_line(tmp_path: Path) -> None:
    p = run("audit", str(tmp_path / "nope.log"), "--robots", ROBOTS)
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1
    assert "no such log file" in p.stderr
    junk = tmp_path / "junk.log"
    junk.write_bytes(os.urandom(50_000))
    p = run("audit", str(junk), "--robots", ROBOTS, "--json")
    assert p.returncode == 0
    assert p.stdout == ""
    assert "were not log records" in p.stderr


def test_audit_is_bounded_on_many_crawler_names(tmp_path: Path) -> None:
    line = '192.0.2.1 - - [23/Nov/2026:10:00:00 +0000] "GET /p HTTP/1.1" 200 1 "-" "Bot{}/1.0"\n'
    log = tmp_path / "many.log"
    log.write_text("".join(line.format(i) for i in range(12_000)))
    from robotrules.guard import Guard, RangeStore, Tally
    from robotrules.guard.logs import LogStats, open_log, read_log

    g = Guard(Path(ROBOTS), ranges=RangeStore())
    t = Tally(max_crawlers=100)
    with open_log(str(log)) as f:
        for rec in read_log(f, LogStats()):
            t.add(g.decide(rec.method, rec.path, {"user-agent": rec.user_agent}, rec.ip,
                           now=rec.time))
    assert len(t.rows) == 101
    assert t.rows["(other)"].requests == 12_000 - 100


def test_agents_ranges_lists_and_agents_is_unchanged(tmp_path: Path) -> None:
    p = run("agents", "ranges", "--dir", str(tmp_path), "--json")
    assert p.returncode == 0, p.stderr
    lists = [json.loads(x) for x in p.stdout.splitlines()]
    google = next(x for x in lists if "Googlebot" in x["crawlers"])
    assert google["saved"] is None
    assert google["fresh"] is False
    a = run("agents", ROBOTS, "--json")
    assert a.returncode == 0
    assert any(json.loads(x)["token"] == "GPTBot" for x in a.stdout.splitlines())
    h = run("agents", "ranges", "--help")
    assert "--refresh" in h.stdout


def test_progress_bar_goes_to_stderr_only(tmp_path: Path) -> None:
    big = tmp_path / "big.log"
    big.write_bytes(Path(LOG).read_bytes() * 800)  # ~19,000 lines: the bar updates
    p = run("audit", str(big), "--robots", ROBOTS, "--json", "--progress")
    assert p.returncode == 1
    assert rows(p.stdout)["Googlebot"]["requests"] == 9 * 800
    assert "audit" in p.stderr


def test_audit_rdns_against_a_dns_server(dns_server: DnsServer) -> None:
    # Googlebot's addresses in the example log: 66.249.66.1 forward-confirmed under
    # googlebot.com, 198.51.100.7 without a reverse name (spoofed); Bing's 157.55.39.1 under
    # search.msn.com
    dns_server.ptr("66.249.66.1", "crawl-66-249-66-1.googlebot.com")
    dns_server.a("crawl-66-249-66-1.googlebot.com", "66.249.66.1")
    dns_server.ptr("157.55.39.1", "msnbot-157-55-39-1.search.msn.com")
    dns_server.a("msnbot-157-55-39-1.search.msn.com", "157.55.39.1")
    p = run("audit", LOG, "--robots", ROBOTS, "--json", "--rdns", "--nameserver",
            f"127.0.0.1:{dns_server.port}", "--ranges-dir", "/nonexistent")
    r = rows(p.stdout)
    assert (r["Googlebot"]["verified"], r["Googlebot"]["spoofed"]) == (7, 2)
    assert r["Bingbot"]["verified"] == 3
    # each address looked up once (PTR + A), however many lines it has
    ptrs = [q for q in dns_server.queries if q[1] == "PTR"]
    assert len(ptrs) == len(set(ptrs))
    bad = run("audit", LOG, "--robots", ROBOTS, "--rdns", "--nameserver", "dns.example")
    assert bad.returncode == 2
    assert "--nameserver" in bad.stderr


def test_agents_ranges_refresh(http: HttpServer, tmp_path: Path,
                               monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
                               ) -> None:
    # the registry's lists pointed at this server (no network in tests)
    from robotrules.cli import main
    from robotrules.guard import registry

    http.routes["/common.json"] = Reply(200, b'{"creationTime": "2026-11-20T00:00:00",'
                                             b' "prefixes": [{"ipv4Prefix": "66.249.64.0/19"}]}')
    lists = {f"{http.base}/common.json": "google", f"{http.base}/missing.json": "google"}
    monkeypatch.setattr(registry, "range_lists", lambda: lists)
    rc = main(["agents", "ranges", "--refresh", "--dir", str(tmp_path), "--json",
               "--allow-loopback"])
    cap = capsys.readouterr()
    out = [json.loads(x) for x in cap.out.splitlines()]
    assert rc == 3  # one list could not be fetched: the CLI's "could not fetch"
    by = {o["url"].rsplit("/", 1)[1]: o for o in out}
    assert by["common.json"]["fresh"] is True
    assert by["common.json"]["prefixes"] == 1
    assert by["common.json"]["created"] == "2026-11-20T00:00:00"
    assert by["missing.json"]["error"] == "HTTP 404"
    assert cap.err == (f"robotrules: warning: could not fetch {http.base}/missing.json "
                       "(HTTP 404): the saved copy, if any, is kept\n")


def test_agents_ranges_refresh_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    # the issue: "agents ranges --refresh offline puts raw exception text in the table and
    # exits 1 (the CLI's rule for 'could not fetch' is 3)"; offline here: a closed port, a
    # name that does not resolve (.invalid, RFC 6761), a private address
    from robotrules.cli import main
    from robotrules.guard import registry

    from .conftest import free_port

    lists = {f"http://127.0.0.1:{free_port()}/closed.json": "google",
             "https://ranges.invalid/nowhere.json": "google",
             "http://10.0.0.1/internal.json": "google"}
    monkeypatch.setattr(registry, "range_lists", lambda: lists)
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("NO_COLOR", "1")
    rc = main(["agents", "ranges", "--refresh", "--dir", str(tmp_path), "--timeout", "3",
               "--allow-loopback"])
    cap = capsys.readouterr()
    assert rc == 3
    reasons = {"closed.json": "connection refused",
               "nowhere.json": "DNS failure: ranges.invalid does not resolve",
               "internal.json": "refused: 10.0.0.1 is a private address"}
    for name, why in reasons.items():
        (line,) = [ln for ln in cap.err.splitlines() if name in ln]
        assert line.startswith("robotrules: warning: could not fetch ")
        assert why in line, line
    table = cap.out
    assert table.count("could not fetch") == 3
    for raw in ("Traceback", "ConnectError", "Errno", "httpx", "gaierror"):
        assert raw not in table + cap.err
    assert len(cap.err.splitlines()) == 3
