"""Published IP ranges (robotrules.guard.ranges): Google's JSON format, freshness, and the
refresh that downloads them from a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import ipaddress
import json
import time
from pathlib import Path

import pytest

from robotrules.guard.ranges import RangeStore, parse_list, refresh

from .conftest import HttpServer, Reply

# the shape of developers.google.com/static/crawling/ipranges/common-crawlers.json
GOOGLE = json.dumps({"creationTime": "2026-11-20T15:46:05.000000", "prefixes": [
    {"ipv6Prefix": "2001:4860:4801:10::/64"}, {"ipv4Prefix": "66.249.64.0/27"},
    {"ipv4Prefix": "66.249.64.32/27"}, {"ipv4Prefix": "not a prefix"}, "junk",
]}).encode()


def ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    return ipaddress.ip_address(text)


def test_google_format() -> None:
    rl = parse_list(GOOGLE, "google", url="u", fetched=100.0)
    assert rl.created == "2026-11-20T15:46:05.000000"
    assert rl.prefixes == 3
    assert rl.skipped == 2
    assert rl.contains(ip("66.249.64.1"))
    assert rl.contains(ip("66.249.64.63"))  # the two /27 merge into one interval
    assert not rl.contains(ip("66.249.64.64"))
    assert rl.contains(ip("2001:4860:4801:10::1"))
    assert not rl.contains(ip("2001:4860:4801:11::1"))


def test_cidr_format_and_errors() -> None:
    rl = parse_list("# comment\n192.0.2.0/24\n\n2001:db8::/32 # doc\n", "cidr")
    assert rl.contains(ip("192.0.2.9"))
    assert rl.contains(ip("2001:db8::9"))
    with pytest.raises(ValueError, match="JSON"):
        parse_list(b"<html>", "google")
    with pytest.raises(ValueError, match="prefixes"):
        parse_list(b"{}", "google")
    with pytest.raises(ValueError, match="format"):
        parse_list(b"", "xml")


def test_stale_and_missing_are_not_out() -> None:
    store = RangeStore(max_age=3600)
    store.add(parse_list(GOOGLE, url="u", fetched=1000.0))
    assert store.state("u", ip("66.249.64.1"), now=1000.0 + 60) == "in"
    assert store.state("u", ip("198.51.100.1"), now=1000.0 + 60) == "out"
    assert store.state("u", ip("198.51.100.1"), now=1000.0 + 7200) == "stale"
    assert store.state("other", ip("66.249.64.1"), now=1000.0) == "missing"


def test_refresh_from_a_server(http: HttpServer, tmp_path: Path) -> None:
    http.routes["/common.json"] = Reply(200, GOOGLE, {"Content-Type": "application/json"})
    http.routes["/huge.json"] = Reply(200, b" " * 100_000, {"Content-Type": "application/json"},
                                      repeat=50)
    http.routes["/broken.json"] = Reply(200, b"<html>", {"Content-Type": "text/html"})
    lists = {f"{http.base}/common.json": "google", f"{http.base}/huge.json": "google",
             f"{http.base}/broken.json": "google", f"{http.base}/gone.json": "google"}
    out = {r.url.rsplit("/", 1)[1]: r for r in refresh(lists, tmp_path, timeout=5,
                                                       max_bytes=1_000_000)}
    assert out["common.json"].ok
    assert out["common.json"].prefixes == 3
    assert not out["huge.json"].ok
    assert "larger" in (out["huge.json"].error or "")
    assert not out["broken.json"].ok
    assert not out["gone.json"].ok
    store = RangeStore.load(tmp_path)
    assert list(store.lists) == [f"{http.base}/common.json"]
    assert store.state(f"{http.base}/common.json", ip("66.249.64.5")) == "in"
    # a failed refresh keeps the old copy and its date (it goes stale in time)
    http.routes["/common.json"] = Reply(500, b"")
    before = store.lists[f"{http.base}/common.json"].fetched
    refresh({f"{http.base}/common.json": "google"}, tmp_path, timeout=5)
    again = RangeStore.load(tmp_path)
    assert again.lists[f"{http.base}/common.json"].fetched == before
    assert before <= time.time()


def test_load_tolerates_damage(tmp_path: Path) -> None:
    assert RangeStore.load(tmp_path).lists == {}
    (tmp_path / "index.json").write_text("{not json")
    assert RangeStore.load(tmp_path).lists == {}
    (tmp_path / "index.json").write_text(json.dumps({"u": {"file": "missing.txt"}}))
    assert RangeStore.load(tmp_path).lists == {}
