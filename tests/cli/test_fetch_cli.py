"""``robotrules fetch``: the HTTP story of one robots.txt against real local servers."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from tests.cli.conftest import Reply, Server


def test_rfc9309_2_3_1_2_redirect_across_hosts_and_groups(cli: Any, make_server: Any) -> None:
    """RFC 9309 2.3.1.2: follow redirects, even to another authority; then the groups."""
    a: Server = make_server()
    b: Server = make_server()
    a.routes["/robots.txt"] = Reply(301, b"", {"Location": b.base + "/robots.txt"})
    b.robots("User-agent: *\nDisallow: /x/\n\nUser-agent: GPTBot\nDisallow: /\n"
             "Sitemap: https://example.com/s.xml\n",
             **{"Cache-Control": "max-age=600", "ETag": '"v1"'})
    r = cli("fetch", a.base + "/some/page")
    assert r.code == 0, r.err
    assert f"GET {a.base}/robots.txt  ->  301" in r.out
    assert f"GET {b.base}/robots.txt  ->  200" in r.out
    assert "cache-control: max-age=600" in r.out
    assert 'etag: "v1"' in r.out
    assert "rules" in r.out
    assert "line 4: User-agent: GPTBot" in r.out
    assert "Sitemap: https://example.com/s.xml" in r.out


def test_rfc9309_2_3_1_4_fetch_json_503(cli: Any, server: Server) -> None:
    server.robots("busy", status=503, **{"Retry-After": "120"})
    r = cli("fetch", server.base, "--json")
    row = json.loads(r.out)
    assert r.code == 3  # could not fetch: non-zero (issue 26), distinct from usage errors
    assert row["status"] == 503
    assert row["outcome"] == "disallow-all"
    assert "503" in row["summary"]


def test_rfc9309_2_3_1_3_fetch_404(cli: Any, server: Server) -> None:
    r = cli("fetch", server.base)
    assert r.code == 0
    assert "404" in r.out
    assert "full allow" in r.out


def test_fetch_sends_agent_header(cli: Any, server: Server) -> None:
    server.robots("User-agent: *\nDisallow:\n")
    cli("fetch", server.base, "--agent", "MyBot/1.0 (+https://my.example)")
    assert server.agents == ["MyBot/1.0 (+https://my.example)"]


def test_fetch_invalid_url(cli: Any) -> None:
    r = cli("fetch", "ftp://example.com/")
    assert r.code == 2
    assert "Traceback" not in r.err
    assert len(r.err.splitlines()) == 1


def test_rfc9111_max_age_honoured_down_to_min_ttl(cli: Any, make_server: Any) -> None:
    """RFC 9111 4.2.1 (max-age) within RFC 9309 2.4: with --min-ttl 0 a max-age=1 answer is
    fetched again once it is stale; with the default 60 s floor it is not. (The floor is
    applied when an answer is stored, so each origin keeps the setting it was fetched with.)"""
    floor: Server = make_server()
    exact: Server = make_server()
    for s in (floor, exact):
        s.robots("User-agent: *\nDisallow: /x\n", **{"Cache-Control": "max-age=1"})
    for _ in range(2):
        assert cli("check", "--agent", "A", floor.base + "/x").code == 1
        assert cli("check", "--agent", "A", "--min-ttl", "0", exact.base + "/x").code == 1
        time.sleep(1.2)
    assert floor.hits["/robots.txt"] == 1  # the 60 s floor
    assert exact.hits["/robots.txt"] == 2  # stale after 1 s: fetched again
    r = cli("fetch", exact.base, "--min-ttl", "0", "--json")
    row = json.loads(r.out)
    assert row["expires_at"] - row["fetched_at"] == pytest.approx(1.0)


def test_fetch_html_page_counts_findings_as_lint(cli: Any, server: Server) -> None:
    """Issue 16: fetch said 2 findings where lint said 1 (RFC 9309 2.3: text/plain)."""
    server.robots("<!DOCTYPE html><html><body>Home</body></html>",
                  **{"Content-Type": "text/html; charset=utf-8"})
    lint = cli("lint", "--json", server.base)
    n = len(lint.out.splitlines())
    fetch = cli("fetch", server.base)
    assert f"{n} finding(s): run 'robotrules lint" in fetch.out


def test_fetch_shows_the_ttl_floor(cli: Any, server: Server) -> None:
    server.routes["/robots.txt"] = Reply(200, b"User-agent: *\nDisallow:\n",
                                         {"Cache-Control": "max-age=5"})
    r = cli("fetch", server.base, "--min-ttl", "2")
    assert "(5 s; RFC 9309 2.4 caps it at 24 h, the floor is 2 s)" in r.out
