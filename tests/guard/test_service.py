"""The guard's look-ups and drivers (robotrules.guard.service): its own bounded workers, the
sync and async drivers of the one flow, under a DNS server on 127.0.0.1 that never answers.

Sources: issue 35 ("with reverse DNS on, look-ups that never answer queue behind a few executor
threads and 294 of 300 spoofed requests passed as 'unverifiable' (ASGI); under WSGI a browser
waited 26 s"; "Guard.resolve(timeout=...) deadlocks when a look-up is already done when its
callback is added (it takes the guard's lock twice): every later look-up then hangs"; "keep the
evidence that is there (an address outside a fresh list is still outside it); bound the
queue"). Google publishes 66.249.64.0/19 for Googlebot; 198.51.100.0/24 and 203.0.113.0/24 are
TEST-NET (RFC 5737), outside it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from robotrules.guard import Guard, GuardMiddleware, RangeStore, WSGIGuardMiddleware
from robotrules.guard.core import GuardCore, Pending, Request, drive

from .conftest import EXAMPLES, DnsServer
from .servers import google_ranges, uvicorn_on, waitress_on

pytest.importorskip("dns")

GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
YANDEX = "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)"
ROBOTS = (EXAMPLES / "guard_robots.txt").read_bytes()


def resolver(dns: DnsServer, timeout: float = 1.0) -> Any:
    from robotrules.guard.rdns import ReverseDns

    return ReverseDns(nameservers=["127.0.0.1"], port=dns.port, timeout=timeout)


class Inline(cf.Executor):
    """Runs each task at once, in the caller: every future is done before anyone can add a
    callback to it (the deadlock's trigger, made certain)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> cf.Future[Any]:
        f: cf.Future[Any] = cf.Future()
        f.set_result(fn(*args, **kwargs))
        return f


def in_thread(fn: Callable[[], object], limit: float) -> bool:
    """Run ``fn`` in a daemon thread; whether it finished within ``limit`` seconds."""
    t = threading.Thread(target=fn, daemon=True)
    t.start()
    t.join(limit)
    return not t.is_alive()


def test_resolve_of_a_look_up_already_done_does_not_deadlock(dns_server: DnsServer) -> None:
    dns_server.ptr("66.249.90.1", "crawl-66-249-90-1.googlebot.com")
    dns_server.a("crawl-66-249-90-1.googlebot.com", "66.249.90.1")
    g = Guard(ROBOTS, ranges=RangeStore(), rdns=resolver(dns_server), executor=Inline())
    p = Pending("rdns", "66.249.90.1", ("googlebot.com", "google.com"))
    assert in_thread(lambda: g.resolve([p], timeout=2), 10)
    # and every later look-up still runs
    q = Pending("rdns", "66.249.90.2", ("googlebot.com", "google.com"))
    assert in_thread(lambda: g.resolve([q], timeout=2), 10)
    d = g.decide("GET", "/", {"User-Agent": GOOGLEBOT}, "66.249.90.1")
    assert d.verification.state == "verified"


def test_the_evidence_there_is_kept_when_dns_does_not_answer(dns_server: DnsServer) -> None:
    dns_server.silent = True
    g = Guard(ROBOTS, mode="enforce", ranges=google_ranges(), rdns=resolver(dns_server, 4.0))
    start = time.monotonic()
    d = g.check("GET", "/blog", {"User-Agent": GOOGLEBOT}, "198.51.100.7", timeout=0.3)
    assert time.monotonic() - start < 3.0  # it did not wait for the 4 s look-up
    # Google documents both methods: reverse DNS could still confirm; it did not answer, and
    # an address outside the fresh list stays outside it
    assert (d.verification.state, d.verification.method, d.status) == \
        ("spoofed", "ip-ranges", 403)
    assert d.pending == ()


def test_a_full_queue_is_the_strictest_state(dns_server: DnsServer) -> None:
    dns_server.silent = True
    g = Guard(ROBOTS, mode="enforce", ranges=google_ranges(), rdns=resolver(dns_server, 2.0),
              max_lookups=3, lookup_workers=1)
    states = []
    for n in range(6):
        d = g.check("GET", "/blog", {"User-Agent": YANDEX}, f"203.0.113.{n + 1}",
                    timeout=0.05)
        states.append((d.verification.state, d.status))
    # Yandex documents only reverse DNS: the first three wait and time out (no evidence),
    # then the queue is full and a claim that cannot be checked is not believed
    assert states[:3] == [("unverifiable", 200)] * 3
    assert states[3:] == [("spoofed", 403)] * 3
    assert len(g.lookups) <= 3
    g.close()


def test_one_flow_two_drivers_one_answer() -> None:
    # the sync and async drivers run the same generator to the same decision
    g = Guard(ROBOTS, mode="enforce", ranges=google_ranges())
    req = Request.from_url("GET", "/admin/x", {"User-Agent": GOOGLEBOT}, "66.249.66.1")
    sync = g.check_request(req)
    async_ = asyncio.run(g.acheck_request(req))
    assert (sync.status, sync.line, sync.verification) == \
        (async_.status, async_.line, async_.verification)
    assert drive(g.flow(req, 0.0), dict).status == 403
    assert isinstance(g, GuardCore)


async def _flood(base: str, n: int) -> list[int]:
    limits = httpx.Limits(max_connections=100)
    async with httpx.AsyncClient(limits=limits, timeout=30) as client:
        async def one(i: int) -> int:
            r = await client.get(f"{base}/blog", headers={
                "User-Agent": GOOGLEBOT,
                "X-Forwarded-For": f"198.51.{100 + i // 250}.{i % 250 + 1}"})
            return r.status_code
        return list(await asyncio.gather(*(one(i) for i in range(n))))


@pytest.mark.slow
def test_asgi_300_spoofers_with_silent_dns(dns_server: DnsServer) -> None:
    # issue 35's load: 300 Googlebot claims from 300 addresses outside Google's list, with
    # reverse DNS on and a DNS server that never answers: none passes
    dns_server.silent = True

    async def page(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"page"})

    app = GuardMiddleware(page, robots=ROBOTS, mode="enforce", ranges=google_ranges(),
                          rdns=resolver(dns_server, 1.0), trusted_proxies=["127.0.0.1"],
                          check_timeout=0.5)
    with uvicorn_on(app) as port:
        statuses = asyncio.run(_flood(f"http://127.0.0.1:{port}", 300))
    assert statuses == [403] * 300
    assert len(app.guard.lookups) <= app.guard.lookups.limit
    app.guard.close()


def test_wsgi_request_finishes_within_the_timeout(dns_server: DnsServer) -> None:
    dns_server.silent = True

    def page(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"page"]

    app = WSGIGuardMiddleware(page, robots=ROBOTS, mode="enforce", ranges=google_ranges(),
                              rdns=resolver(dns_server, 5.0), check_timeout=0.5)
    # waitress's own trusted_proxy writes the client into REMOTE_ADDR (guard.md)
    with waitress_on(app, trusted_proxy="127.0.0.1",
                     trusted_proxy_headers={"x-forwarded-for"}) as port:
        base = f"http://127.0.0.1:{port}"
        start = time.monotonic()
        r = httpx.get(f"{base}/blog", headers={"User-Agent": YANDEX,
                                               "X-Forwarded-For": "203.0.113.9"}, timeout=30)
        assert time.monotonic() - start < 3.5  # it did not wait for the 5 s look-up
        assert r.status_code == 200  # no evidence either way, and the queue has room
        start = time.monotonic()
        b = httpx.get(f"{base}/blog", headers={"User-Agent": "Mozilla/5.0 Firefox/130.0"},
                      timeout=30)
        assert b.status_code == 200
        assert time.monotonic() - start < 3.5  # a browser waits for no look-up
    app.guard.close()


def test_a_guard_without_fresh_ip_lists_says_so_at_start_up(
        caplog: pytest.LogCaptureFixture) -> None:
    """Issue 35 (operations): with no IP lists, nothing is blocked by address and that is said
    once, at WARNING, when the guard starts, not first when a crawler comes."""
    import logging

    from robotrules.guard import Guard, RangeStore

    with caplog.at_level(logging.WARNING, logger="robotrules.guard"):
        Guard("User-agent: *\nDisallow: /private\n", ranges=RangeStore())
    said = [r for r in caplog.records
            if r.name == "robotrules.guard" and r.levelno == logging.WARNING]
    assert said, caplog.text
    assert any("missing" in r.getMessage() or "no " in r.getMessage().lower()
               for r in said), [r.getMessage() for r in said]
