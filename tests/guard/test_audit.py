"""``robotrules audit`` and ``robotrules agents ranges`` run as users run them (a subprocess),
on the shipped example log and robots.txt, and the tallies behind them; and as an attacker
would feed them: hostile JSON lines, binary and empty logs, directories, an unreachable
robots.txt, silent DNS servers, impostors claiming a real crawler's name."""

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
    assert "1 bad line skipped (of 24 read)" in p.stderr
    assert "no published IP range list is saved" in p.stderr  # a note, once
    assert p.stderr.count("IP range lists missing") == 1


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
    r = rows(p.stdout)
    assert impostor_split(r)


def impostor_split(r: dict[str, dict[str, object]]) -> bool:
    """The example log's Googlebot claims: 66.249.66.1 (Google's) made 7 requests, one to
    /admin/login (line 7 "Disallow: /admin/"); 198.51.100.7 (not Google's) made 2, one to
    /admin/: the impostor's violation is its own row's, never the real crawler's (the issue:
    "an impostor's requests are counted as the real crawler's violations")."""
    g, fake = r["Googlebot"], r["Googlebot (impostor)"]
    assert (g["requests"], g["verified"], g["spoofed"], g["violations"]) == (7, 7, 0, 1)
    assert (fake["requests"], fake["spoofed"], fake["violations"]) == (2, 2, 1)
    assert fake["impostor"] is True
    assert fake["claimed"] == "Googlebot"
    assert fake["purpose"] == "impostor"
    return True


def test_audit_table_gzip_and_stdin(tmp_path: Path) -> None:
    gz = tmp_path / "access.log.gz"
    gz.write_bytes(gzip.compress(Path(LOG).read_bytes()))
    p = run("audit", str(gz), "--robots", ROBOTS, "--no-progress")
    assert p.returncode == 1
    assert "robots.txt violations" in p.stdout
    assert "Disallow: /admin/" in p.stdout
    assert "by purpose" in p.stdout
    header = next(ln for ln in p.stdout.splitlines() if "crawler" in ln and "requests" in ln)
    assert "unsigned" in header  # the issue: "the table has no 'unsigned' column"
    with open(LOG, "rb") as f:
        q = subprocess.run([sys.executable, "-m", "robotrules.cli", "audit", "-", "--robots",
                            ROBOTS, "--json"], stdin=f, capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT / "src")}, timeout=60,
                           check=False)
    assert rows(q.stdout)["Googlebot"]["requests"] == 9


@pytest.mark.parametrize(("what", "message"), [
    ("missing", "no such log file: {path}"),
    ("directory", "{path} is a directory: give the log files in it ({path}/*.log)"),
    ("empty", "{path}: empty, 0 lines read: no access-log records to audit"),
    ("devnull", "/dev/null: empty, 0 lines read: no access-log records to audit"),
    ("binary", "{path}: no access-log records in"),
    ("html", "{path}: no access-log records in 3 lines read"),
])
def test_audit_input_errors_are_one_line(tmp_path: Path, what: str, message: str) -> None:
    # the issue: "a directory or /dev/null is 'no such log file'; an empty or binary log is a
    # success". docs/cli.md: a log with no record at all is an input error (exit 2)
    path = tmp_path / what
    if what == "directory":
        path.mkdir()
    elif what == "empty":
        path.write_bytes(b"")
    elif what == "devnull":
        path = Path("/dev/null")
    elif what == "binary":
        path.write_bytes(os.urandom(50_000))
    elif what == "html":
        path.write_text("<html>\n<body>not a log</body>\n</html>\n")
    p = run("audit", str(path), "--robots", ROBOTS)
    assert p.returncode == 2, p.stderr
    assert p.stdout == ""
    (line,) = p.stderr.splitlines()[-1:]
    assert line.startswith("robotrules: ")
    assert message.format(path=path) in line
    assert "Traceback" not in p.stderr


def test_audit_robots_url_that_cannot_be_fetched(tmp_path: Path) -> None:
    # the issue: "with --robots URL that cannot be fetched it reports '0 violations', exit 0,
    # no warning (every other command warns and exits 3)"
    from .conftest import free_port

    url = f"http://127.0.0.1:{free_port()}/robots.txt"
    p = run("audit", LOG, "--robots", url, "--json")
    assert p.returncode == 3, p.stderr
    assert p.stdout == ""
    assert f"robotrules: warning: could not fetch {url} (connection refused)" in p.stderr


HOSTILE_JSON = [
    b'{"ip": "66.249.66.1", "ts": 1e300, "method": "GET", "uri": "/admin/", "status": 200, '
    b'"ua": "Googlebot/2.1"}',
    b'{"ip": "66.249.66.1", "ts": 1795428000, "method": "GET", "uri": "/admin/", '
    b'"status": 1e400, "ua": "Googlebot/2.1"}',
    b'{"ip": "66.249.66.1", "ts": NaN, "method": "GET", "uri": "/", "status": 200, '
    b'"ua": "Googlebot/2.1"}',
    b'{"ip": "66.249.66.1", "ts": -5, "method": "GET", "uri": "/", "status": 200, '
    b'"ua": "Googlebot/2.1"}',
    b'{"ip": "66.249.66.1", "ts": ' + b"9" * 5000 + b', "method": "GET", "uri": "/", '
    b'"status": 200, "ua": "Googlebot/2.1"}',
    b'{"ip": "66.249.66.1", "ts": 1795428000, "method": "GET", "uri": "/", "status": true, '
    b'"ua": "Googlebot/2.1"}',
    b'{"ip": ["66.249.66.1"], "ts": 1795428000, "method": "GET", "uri": "/", "status": 200}',
    b"[" * 60_000 + b"]" * 60_000,
    b'{"a":' * 30_000 + b"1" + b"}" * 30_000,
    b'{"ip": "66.249.66.1", "ts": "9999999-01-01T00:00:00", "method": "GET", "uri": "/"}',
    b'66.249.66.1 - - [23/Nov/99999:10:00:00 +0000] "GET /admin/ HTTP/1.1" 200 1 "-" "Googlebot"',
    b"\xff\xfe\x00garbage\x00",
]


def test_audit_skips_hostile_json_lines_and_keeps_the_good_ones(tmp_path: Path) -> None:
    # the issue: "one JSON line with 'ts': 1e300, 'status': 1e400 or deep nesting aborts the
    # whole run ('internal error', exit 2; the docs say bad lines are skipped)"
    good = Path(LOG).read_bytes()
    log = tmp_path / "hostile.log"
    log.write_bytes(b"\n".join(HOSTILE_JSON) + b"\n" + good + b"\n".join(HOSTILE_JSON))
    p = run("audit", str(log), "--robots", ROBOTS, "--json")
    assert p.returncode == 1, p.stderr  # the good lines' violations
    r = rows(p.stdout)
    assert r["Googlebot"]["requests"] == 9  # exactly the example's, nothing of the bad lines
    bad = 2 * len(HOSTILE_JSON) + 1  # and the example's own bad line
    assert f"robotrules: note: {bad} bad lines skipped (of {bad + 23} read)" in p.stderr
    assert "internal error" not in p.stderr


def test_audit_rdns_is_concurrent_and_bounded(dns_server: DnsServer, tmp_path: Path) -> None:
    # the issue: "--rdns checks addresses one after another (30 silent addresses: 34 s)"
    import time

    dns_server.silent = True
    lines = [f'66.249.{i}.1 - - [23/Nov/2026:10:00:{i:02d} +0000] "GET /admin/ HTTP/1.1" '
             f'200 1 "-" "Mozilla/5.0 (compatible; Googlebot/2.1)"' for i in range(30)]
    log = tmp_path / "silent.log"
    log.write_text("\n".join(lines) + "\n")
    args = ("audit", str(log), "--robots", ROBOTS, "--json", "--rdns", "--nameserver",
            f"127.0.0.1:{dns_server.port}", "--ranges-dir", str(tmp_path / "none"))
    start = time.monotonic()
    p = run(*args, "--dns-timeout", "1")
    took = time.monotonic() - start
    assert p.returncode == 1, p.stderr
    assert rows(p.stdout)["Googlebot"]["unverifiable"] == 30
    assert took < 12.0  # one after another: 30 s and more
    # a total deadline shorter than one look-up: every address left unchecked, said once
    start = time.monotonic()
    p = run(*args, "--dns-timeout", "4", "--dns-deadline", "1")
    took = time.monotonic() - start
    assert rows(p.stdout)["Googlebot"]["unverifiable"] == 30
    assert "30 addresses not checked within --dns-deadline (1 s)" in p.stderr
    assert took < 12.0


def test_impostor_rows_in_the_live_tally() -> None:
    # the same split for the live guard's report: a spoofed claim is the impostor's row
    from robotrules.guard import Guard, RangeStore, Tally
    from robotrules.guard.ranges import parse_list

    url = checks_for("Googlebot").ranges_url
    assert url is not None
    store = RangeStore()
    store.add(parse_list(b'{"prefixes": [{"ipv4Prefix": "66.249.64.0/19"}]}', url=url,
                         fetched=1795424400.0))
    g = Guard(Path(ROBOTS), ranges=store)
    t = Tally()
    ua = {"user-agent": "Mozilla/5.0 (compatible; Googlebot/2.1)"}
    for ip, path in (("66.249.66.1", "/"), ("198.51.100.7", "/admin/"),
                     ("198.51.100.7", "/admin/x")):
        t.add(g.decide("GET", path, ua, ip, now=1795424500.0))
    real, fake = t.rows["Googlebot"], t.rows["Googlebot (impostor)"]
    assert (real.requests, real.violation_count) == (1, 0)
    assert (fake.requests, fake.spoofed, fake.violation_count) == (2, 2, 2)


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
    assert impostor_split(r)
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
