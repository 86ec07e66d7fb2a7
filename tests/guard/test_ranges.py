"""Published IP ranges (robotrules.guard.ranges): Google's JSON format, freshness and its
warnings, and the refresh (one pass and in the background) that downloads them from a real
HTTP server on 127.0.0.1: conditional requests, failures that never replace a good list,
compression bombs, redirects and private addresses."""

from __future__ import annotations

import gzip
import ipaddress
import json
import logging
import time
from pathlib import Path

import pytest

from robotrules.guard.ranges import RangeRefresher, RangeStore, parse_list, refresh

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
                                                       max_bytes=1_000_000,
                                                       allow_loopback=True)}
    assert out["common.json"].ok
    assert out["common.json"].prefixes == 3
    assert not out["huge.json"].ok
    assert out["huge.json"].error == "over 1000000 bytes after decoding"
    assert not out["broken.json"].ok
    assert not out["gone.json"].ok
    store = RangeStore.load(tmp_path)
    assert list(store.lists) == [f"{http.base}/common.json"]
    assert store.state(f"{http.base}/common.json", ip("66.249.64.5")) == "in"
    # a failed refresh keeps the old copy and its date (it goes stale in time)
    http.routes["/common.json"] = Reply(500, b"")
    before = store.lists[f"{http.base}/common.json"].fetched
    refresh({f"{http.base}/common.json": "google"}, tmp_path, timeout=5, allow_loopback=True)
    again = RangeStore.load(tmp_path)
    assert again.lists[f"{http.base}/common.json"].fetched == before
    assert before <= time.time()


def test_load_tolerates_damage(tmp_path: Path) -> None:
    assert RangeStore.load(tmp_path).lists == {}
    (tmp_path / "index.json").write_text("{not json")
    assert RangeStore.load(tmp_path).lists == {}
    (tmp_path / "index.json").write_text(json.dumps({"u": {"file": "missing.txt"}}))
    assert RangeStore.load(tmp_path).lists == {}


def test_a_refresh_is_conditional_on_the_saved_etag(http: HttpServer, tmp_path: Path) -> None:
    # RFC 9110 13.1.2 If-None-Match: a 304 confirms the saved copy; its date is renewed
    url = f"{http.base}/common.json"
    http.routes["/common.json"] = Reply(200, GOOGLE, {"ETag": '"g1"'})
    first = refresh({url: "google"}, tmp_path, timeout=5, allow_loopback=True)[0]
    assert first.ok
    assert json.loads((tmp_path / "index.json").read_text())[url]["etag"] == '"g1"'
    http.routes["/common.json"] = Reply(304, b"")
    store = RangeStore.load(tmp_path)
    again = refresh({url: "google"}, tmp_path, timeout=5, allow_loopback=True, store=store)[0]
    assert again.ok
    assert again.not_modified
    assert again.prefixes == 3
    assert store.lists[url].fetched == again.fetched
    assert RangeStore.load(tmp_path).lists[url].fetched == again.fetched


@pytest.mark.parametrize(("reply", "why"), [
    (Reply(500, b"down"), "HTTP 500"),
    (Reply(200, b"<html>maintenance</html>"), "not a JSON range list"),
    (Reply(200, b'{"prefixes": []}'), "no prefix"),
    (Reply(200, json.dumps({"creationTime": "2020-01-01T00:00:00", "prefixes": [
        {"ipv4Prefix": "192.0.2.0/24"}]}).encode()), "older than the saved copy"),
    (Reply(200, gzip.compress(b" " * 8_000_000), {"Content-Encoding": "gzip"}),
     "after decoding"),
])
def test_a_failure_never_replaces_a_good_list(http: HttpServer, tmp_path: Path, reply: Reply,
                                              why: str) -> None:
    url = f"{http.base}/common.json"
    http.routes["/common.json"] = Reply(200, GOOGLE)
    refresh({url: "google"}, tmp_path, timeout=5, allow_loopback=True)
    store = RangeStore.load(tmp_path)
    http.routes["/common.json"] = reply
    r = refresh({url: "google"}, tmp_path, timeout=5, allow_loopback=True, store=store)[0]
    assert not r.ok
    assert r.error is not None
    assert why in r.error
    assert "\n" not in r.error
    for s in (store, RangeStore.load(tmp_path)):
        assert s.state(url, ip("66.249.64.1")) == "in"


def test_a_range_list_bomb_is_bounded(http: HttpServer, tmp_path: Path) -> None:
    # the issue: range-list downloads decompressed without a cap; 1 GiB of brotli
    brotli = pytest.importorskip("brotli")
    c = brotli.Compressor(quality=1)
    chunk = b"\0" * (1 << 20)
    body = b"".join([c.process(chunk) for _ in range(1024)] + [c.finish()])
    http.routes["/bomb.json"] = Reply(200, body, {"Content-Encoding": "br"})
    start = time.monotonic()
    r = refresh({f"{http.base}/bomb.json": "google"}, tmp_path, timeout=10,
                allow_loopback=True)[0]
    assert time.monotonic() - start < 5.0
    assert r.error == "over 4000000 bytes after decoding"


def test_redirects_are_bounded_and_private_addresses_refused(http: HttpServer,
                                                             tmp_path: Path) -> None:
    for i in range(5):
        http.routes[f"/r{i}"] = Reply(302, b"", {"Location": f"{http.base}/r{i + 1}"})
    r = refresh({f"{http.base}/r0": "google"}, tmp_path, timeout=5, allow_loopback=True)[0]
    assert r.error == "more than 3 redirects"
    http.routes["/common.json"] = Reply(200, GOOGLE)
    # production settings: 127.0.0.1 is refused before any connection
    r = refresh({f"{http.base}/common.json": "google"}, tmp_path, timeout=5)[0]
    assert r.error is not None
    assert r.error.startswith("refused: 127.0.0.1 is a loopback address")
    assert http.hits.get("/common.json") is None


def test_staleness_says_why_nothing_is_blocked(caplog: pytest.LogCaptureFixture) -> None:
    # the issue: "Out of the box (no IP lists yet) and 7 days after the last refresh nothing
    # is blocked and nothing says so above INFO: warn once"
    empty = RangeStore()
    assert empty.staleness(expected=["u"])[0].startswith("IP range lists missing")
    with caplog.at_level(logging.WARNING, logger="robotrules.guard"):
        assert len(empty.warn_stale(expected=["u"])) == 1
        assert empty.warn_stale(expected=["u"]) == []  # once
        empty.state("u", ip("66.249.64.1"))  # the first missing answer was already said
    assert [r.levelno for r in caplog.records] == [logging.WARNING]
    caplog.clear()
    store = RangeStore(max_age=7 * 86400)
    store.add(parse_list(GOOGLE, url="u", fetched=1000.0))
    assert store.staleness(now=1000.0 + 86400, expected=["u"]) == []
    later = 1000.0 + 8 * 86400
    (text,) = store.staleness(now=later, expected=["u"])
    assert "8.0 days ago" in text
    with caplog.at_level(logging.WARNING, logger="robotrules.guard"):
        for _ in range(3):  # a list that goes stale while serving: said once
            assert store.state("u", ip("66.249.64.1"), now=later) == "stale"
        assert store.warn_stale(now=later, expected=["u"]) == []
    assert len(caplog.records) == 1
    assert caplog.records[0].name == "robotrules.guard"
    assert "stale" in caplog.records[0].getMessage()
    store.add(parse_list(GOOGLE, url="u", fetched=later))  # refreshed: a later staleness is new
    assert "stale u" not in store._warned


def test_the_background_refresher(http: HttpServer, tmp_path: Path) -> None:
    url = f"{http.base}/common.json"
    http.routes["/common.json"] = Reply(200, GOOGLE)
    store = RangeStore()
    bg = RangeRefresher(store, {url: "google"}, tmp_path, interval=3600.0, jitter=0.1,
                        timeout=5.0, allow_loopback=True)
    assert bg.next_delay() == 0.0  # missing: at once
    bg.start()
    deadline = time.monotonic() + 10
    while url not in store.lists and time.monotonic() < deadline:
        time.sleep(0.05)
    bg.stop(timeout=5)
    assert store.state(url, ip("66.249.64.1")) == "in"
    delays = [bg.next_delay() for _ in range(50)]
    assert all(3240.0 <= d <= 3960.0 for d in delays)  # the interval, +-10 %
    assert len(set(delays)) > 1  # jittered
    # a failed pass keeps the good list
    http.routes["/common.json"] = Reply(503, b"")
    (r,) = bg.refresh_now()
    assert not r.ok
    assert store.state(url, ip("66.249.64.1")) == "in"
    with pytest.raises(ValueError, match="jitter"):
        RangeRefresher(store, {}, tmp_path, jitter=1.5)
