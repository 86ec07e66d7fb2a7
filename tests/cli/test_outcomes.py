"""Answers resting on a robots.txt that could not be fetched (``robotrules.cli._outcomes``).

Issue 26: offline, ``check`` printed "disallowed" and exited 1 like a real disallow, ``agents``
printed 197 identical rows, ``fetch`` exited 0, and nothing went to stderr. RFC 9309 2.3.1.4
("If the robots.txt is unreachable due to server or network errors, [...] the crawlers MUST
assume complete disallow") still decides the verdict; the CLI adds a warning once per origin
and exit status 3 (docs/cli.md, "Exit status"). The servers are real, on 127.0.0.1: one that
refuses, one that stalls, one that answers 503. A name that does not resolve cannot be had
without the network (the machine's resolver is remote), so that one case runs the command in
this process with ``socket.getaddrinfo`` failing as glibc fails for an unknown name.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import Server

WARNING = "robotrules: warning: could not fetch"


def _warnings(err: str) -> list[str]:
    return [x for x in err.splitlines() if x.startswith(WARNING)]


@pytest.fixture
def refused() -> str:
    """An origin on 127.0.0.1 whose port nobody listens on: connection refused."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def stalled() -> Iterator[str]:
    """An origin that accepts the connection and never answers."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            held.append(conn)

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.getsockname()[1]}"
    stop.set()
    t.join(timeout=5)
    for c in held:
        c.close()
    srv.close()


def test_check_refused_is_disallowed_with_a_warning_and_exit_3(cli: Any, refused: str) -> None:
    r = cli("check", "--agent", "Googlebot", f"{refused}/a", f"{refused}/b", f"{refused}/c")
    assert r.code == 3
    assert r.out.count("disallowed") == 3  # the verdict stays RFC 9309's disallow-all
    warned = _warnings(r.err)
    assert len(warned) == 1, r.err  # once per origin, not once per URL
    assert f"{refused}/robots.txt (connection refused)" in warned[0]
    assert "Traceback" not in r.err


def test_no_fail_on_unreachable_lets_the_verdict_decide(cli: Any, refused: str) -> None:
    r = cli("check", "--agent", "Googlebot", "--no-fail-on-unreachable", f"{refused}/a")
    assert r.code == 1  # RFC 9309 2.3.1.4: disallow all
    assert len(_warnings(r.err)) == 1  # still said


def test_check_json_keeps_the_verdict_fields(cli: Any, refused: str) -> None:
    r = cli("check", "--agent", "Googlebot", "--json", f"{refused}/a")
    row = json.loads(r.out)
    assert (row["allowed"], row["reason"], row["outcome"]) == (False, "unreachable",
                                                               "disallow-all")
    assert r.code == 3


def test_check_stalled_server_times_out(cli: Any, stalled: str) -> None:
    started = time.monotonic()
    r = cli("check", "--agent", "A", "--timeout", "1", "--no-cache", f"{stalled}/x")
    assert r.code == 3
    assert "(timeout)" in _warnings(r.err)[0]
    assert time.monotonic() - started < 30


def test_check_503_is_unreachable(cli: Any, server: Server) -> None:
    server.robots("down", status=503)
    r = cli("check", "--agent", "A", f"{server.base}/x")
    assert r.code == 3
    assert "(HTTP 503)" in _warnings(r.err)[0]


def test_check_404_is_an_answer_not_a_failure(cli: Any, server: Server) -> None:
    """RFC 9309 2.3.1.3: unavailable (4xx) means allow all; nothing failed."""
    r = cli("check", "--agent", "A", f"{server.base}/x")
    assert r.code == 0
    assert _warnings(r.err) == []


def test_check_unresolvable_name(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    from robotrules.cli import main

    real = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(host, str | bytes) and "no-such-host" in str(host):
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    code = main(["check", "--agent", "A", "--no-cache", "http://no-such-host.test/x",
                 "http://no-such-host.test/y"])
    out, err = capsys.readouterr()
    assert code == 3
    assert out.count("disallowed") == 2
    warned = _warnings(err)
    assert len(warned) == 1
    assert "(DNS failure)" in warned[0]


def test_fetch_exits_non_zero_when_it_could_not_fetch(cli: Any, refused: str,
                                                      server: Server) -> None:
    r = cli("fetch", refused)
    assert r.code == 3
    assert len(_warnings(r.err)) == 1
    server.robots("User-agent: *\nDisallow:\n")
    assert cli("fetch", server.base).code == 0


def test_agents_summarises_an_unreachable_origin_in_one_line(cli: Any, refused: str) -> None:
    r = cli("agents", refused)
    assert r.code == 3
    lines = [x for x in r.out.splitlines() if x.strip()]
    assert len(lines) == 1, r.out
    assert "known crawlers blocked" in lines[0]
    assert "connection refused" in lines[0]
    assert len(_warnings(r.err)) == 1
    # JSON stays one object per crawler, for scripts
    j = cli("agents", refused, "--json", "--no-fail-on-unreachable")
    rows = [json.loads(x) for x in j.out.splitlines()]
    assert len(rows) > 100
    assert {x["access"] for x in rows} == {"blocked"}
    assert j.code == 0


def test_agents_missing_file_is_one_line_too(cli: Any, server: Server) -> None:
    r = cli("agents", server.base)  # 404: RFC 9309 2.3.1.3, allow all
    assert r.code == 0
    lines = [x for x in r.out.splitlines() if x.strip()]
    assert len(lines) == 1
    assert "known crawlers allowed" in lines[0]


def test_lint_url_that_cannot_be_fetched(cli: Any, refused: str) -> None:
    r = cli("lint", refused + "/robots.txt")
    assert r.code == 3
    assert "L021" in r.out
    assert len(_warnings(r.err)) == 1


def test_bulk_kind_column_and_exit_3(cli: Any, refused: str, server: Server) -> None:
    server.robots("User-agent: *\nDisallow: /x\n")
    urls = f"{refused}/a\n{refused}/b\n{server.base}/x\n{server.base}/y\nnot a url\n"
    r = cli("bulk", "-", "-a", "A", "--format", "jsonl", input=urls)
    rows = {x["url"]: x for x in map(json.loads, r.out.splitlines())}
    assert (rows[f"{refused}/a"]["kind"], rows[f"{refused}/a"]["error"]) == (
        "unreachable", "connection refused")
    assert rows[f"{refused}/a"]["allowed"] is False
    assert (rows[f"{server.base}/x"]["kind"], rows[f"{server.base}/x"]["error"]) == (
        "verdict", None)
    assert rows["not a url"]["kind"] == "invalid-url"
    assert r.code == 2  # a failed row outranks the unreachable origin
    assert len(_warnings(r.err)) == 1
    good = cli("bulk", "-", "-a", "A", input=urls.replace("not a url\n", ""))
    assert good.code == 3
    assert "2 URL(s) of 1 origin(s) whose robots.txt could not be fetched" in good.err


def test_stale_copy_is_an_answer_with_a_note(cli: Any, server: Server) -> None:
    """RFC 9309 2.4 lets a crawler use a cached copy while the file is unreachable: the file
    still decides (exit as the verdict says), and a note says the refresh failed."""
    server.robots("User-agent: *\nDisallow: /x\n", **{"Cache-Control": "max-age=0"})
    first = cli("check", "--agent", "A", "--min-ttl", "0", f"{server.base}/x")
    assert first.code == 1
    server.robots("down", status=503)
    r = cli("check", "--agent", "A", "--min-ttl", "0", f"{server.base}/x", f"{server.base}/y")
    assert r.code == 1  # disallowed by the file's line 2, not by the outage
    assert _warnings(r.err) == []
    notes = [x for x in r.err.splitlines() if x.startswith("robotrules: note: could not refresh")]
    assert len(notes) == 1, r.err
    assert "(HTTP 503)" in notes[0]
