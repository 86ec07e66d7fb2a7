"""Access logs (robotrules.guard.logs): Apache/nginx combined (Apache's mod_log_config
"combined" LogFormat, nginx's predefined "combined" log_format), JSON Lines, gzip, malformed
and over-long lines."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

from robotrules.guard.logs import LogStats, open_log, parse_line, read_log

GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
LINE = (f'66.249.66.1 - - [23/Nov/2026:10:00:05 +0100] "GET /a?b=1 HTTP/1.1" 200 512 '
        f'"https://ref.example/" "{GOOGLEBOT}"').encode()


def test_combined() -> None:
    r = parse_line(LINE)
    assert r is not None
    assert (r.ip, r.method, r.path, r.status, r.user_agent) == \
        ("66.249.66.1", "GET", "/a?b=1", 200, GOOGLEBOT)
    assert r.time == 1795424405.0  # 2026-11-23 09:00:05 UTC


def test_common_format_and_escaped_quotes() -> None:
    common = parse_line(b'192.0.2.1 - frank [10/Oct/2000:13:55:36 -0700] '
                        b'"GET /apache_pb.gif HTTP/1.0" 200 2326')
    assert common is not None
    assert common.user_agent == ""
    quoted = parse_line(b'192.0.2.1 - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.1" 200 - '
                        b'"-" "Bot \\"quoted\\"/1.0"')
    assert quoted is not None
    assert quoted.user_agent == 'Bot "quoted"/1.0'


def test_json_lines() -> None:
    r = parse_line(b'{"remote_addr": "20.171.207.2", "time_iso8601": '
                   b'"2026-11-23T10:00:00+00:00", "request": "GET /x HTTP/1.1", '
                   b'"status": "200", "http_user_agent": "GPTBot/1.2"}')
    assert r is not None
    assert (r.ip, r.path, r.user_agent, r.time) == ("20.171.207.2", "/x", "GPTBot/1.2",
                                                    1795428000.0)
    caddy = parse_line(b'{"ip": "192.0.2.1", "ts": 1795428000.5, "method": "HEAD", "uri": "/y",'
                       b' "status": 404, "user_agent": "x"}')
    assert caddy is not None
    assert (caddy.method, caddy.status) == ("HEAD", 404)


def test_malformed_are_none() -> None:
    for bad in (b"", b"garbage", b"{", b"[1,2]", b'{"ip": "1.2.3.4"}',
                b'1.2.3.4 - - [99/Xyz/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "a"',
                b'1.2.3.4 - - [23/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" abc 1 "-" "a"'):
        assert parse_line(bad) is None, bad


def test_read_log_counts_and_skips(tmp_path: Path) -> None:
    body = b"\n".join([LINE, b"not a line", b"x" * 200_000, LINE, b"", LINE]) + b"\n"
    stats = LogStats()
    records = list(read_log(io.BytesIO(body), stats))
    assert len(records) == 3
    assert stats.malformed == 2
    assert stats.lines == 6
    p = tmp_path / "access.log.gz"
    p.write_bytes(gzip.compress(body))
    stats = LogStats()
    with open_log(str(p)) as f:
        assert len(list(read_log(f, stats))) == 3
    # a truncated gzip file: what could be read, then the damage counted
    p.write_bytes(gzip.compress(body * 50)[:-40])
    stats = LogStats()
    with open_log(str(p)) as f:
        n = len(list(read_log(f, stats)))
    assert n >= 1
    assert stats.malformed >= 1


def test_hostile_json_values_are_malformed_never_raise() -> None:
    # the issue: "'ts': 1e300, 'status': 1e400 or deep nesting aborts the whole run"; a line
    # whose time no calendar shows (1e300 s), whose status is infinity or a boolean, nested
    # past the recursion limit, with a 5000-digit number: malformed, counted, skipped
    base = {"ip": "66.249.66.1", "ts": 1795428000, "method": "GET", "uri": "/", "status": 200,
            "ua": "Googlebot/2.1"}
    import json

    assert parse_line(json.dumps(base).encode()) is not None
    for key, value in (("ts", "1e300"), ("ts", "NaN"), ("ts", "-1"), ("ts", "Infinity"),
                       ("ts", "9" * 5000), ("ts", '"99999-01-01T00:00:00"'),
                       ("status", "1e400"), ("status", "true"), ("status", "2000"),
                       ("status", "200.5"), ("status", '"2OO"'), ("method", '""'),
                       ("uri", '"' + "a" * 20_000 + '"'), ("ip", "[1]")):
        line = json.dumps(base).replace(f'"{key}": {json.dumps(base[key])}',
                                        f'"{key}": {value}').encode()
        assert line != json.dumps(base).encode(), key
        assert parse_line(line) is None, (key, value[:20])
    assert parse_line(json.dumps({**base, "status": 404.0}).encode()) is not None
    assert parse_line(json.dumps({**base, "ts": 1795428000123}).encode()) is not None  # ms
    for deep in (b"[" * 100_000, b'{"a":' * 50_000 + b"1" + b"}" * 50_000):
        assert parse_line(deep) is None
    assert parse_line(b'1.2.3.4 - - [23/Nov/99999:10:00:00 +0000] "GET / HTTP/1.1" 200 1 '
                      b'"-" "a"') is None


def test_one_bad_line_never_costs_the_good_ones() -> None:
    good = LINE
    body = b"\n".join([good, b"[" * 100_000, good, b'{"ts": 1e300}', good]) + b"\n"
    stats = LogStats()
    assert len(list(read_log(io.BytesIO(body), stats))) == 3
    assert (stats.lines, stats.records, stats.malformed) == (5, 3, 2)
