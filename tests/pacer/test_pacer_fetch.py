"""The pacer on top of ``robotrules.fetch``'s clients (httpx ``MockTransport``, offline).

Source: issue 7, "works with the fetching client's cache, so the delay comes from the same
robots.txt the verdict came from". The fetch clock and the pacer clock are both injected.
"""

from __future__ import annotations

import logging

import pytest

httpx = pytest.importorskip("httpx")
fetch = pytest.importorskip("robotrules.fetch")

from fake_clock import FakeClock  # noqa: E402

from robotrules.pacer import AsyncPacer, Pacer  # noqa: E402

UA = "examplebot/1.0 (+http://127.0.0.1/bot)"
ROBOTS = b"""\
User-agent: *
Disallow: /private/

User-agent: examplebot
Crawl-delay: 3600
Disallow: /drafts/
"""


def _ok(body: bytes) -> httpx.Response:
    # A stream, not content=: a Response built from bytes counts as already read, and the
    # client reads the raw stream (bounded, RFC 9309 2.5).
    return httpx.Response(
        200, stream=httpx.ByteStream(body), headers={"Content-Type": "text/plain"}
    )


def _handler(hits: list[str], body: bytes = ROBOTS):  # type: ignore[no-untyped-def]
    def handle(request: httpx.Request) -> httpx.Response:
        hits.append(str(request.url))
        if request.url.path == "/robots.txt":
            return _ok(body)
        return httpx.Response(404)

    return handle


def test_sync_client_verdict_and_delay_from_one_fetch(caplog: pytest.LogCaptureFixture) -> None:
    clock = FakeClock(now=1_000_000.0)
    hits: list[str] = []
    client = fetch.RobotsClient(
        user_agent=UA,
        clock=clock,
        http_client=httpx.Client(transport=httpx.MockTransport(_handler(hits))),
    )
    pacer = Pacer(client, clock=clock, sleep=clock.sleep, max_delay=30)
    with caplog.at_level(logging.WARNING, logger="robotrules.pacer"):
        for path in ("/a", "/b", "/c"):
            url = "http://site.test" + path
            assert client.is_allowed(url)  # the client's token: examplebot's group
            pacer.wait(url)
    assert not client.is_allowed("http://site.test/drafts/x")
    assert hits == ["http://site.test/robots.txt"]  # one fetch served verdicts and delays
    assert clock.sleeps == [30, 30]  # 3600 asked, capped
    capped = pacer.capped["http://site.test"]
    assert (capped.requested, capped.applied) == (3600, 30)
    assert capped.origin == client.rules_for("http://site.test/").origin
    assert sum("capped to 30" in r.getMessage() for r in caplog.records) == 1
    client.close()


def test_sync_client_refetch_changes_the_delay() -> None:
    """After the cache expires (24 h at most, RFC 9309 2.4) the new file's delay applies."""
    clock = FakeClock(now=1_000_000.0)
    bodies = [ROBOTS, b"User-agent: examplebot\nCrawl-delay: 2\nDisallow: /drafts/\n"]
    hits: list[str] = []

    def handle(request: httpx.Request) -> httpx.Response:
        hits.append(str(request.url))
        return _ok(bodies[min(len(hits) - 1, 1)])

    client = fetch.RobotsClient(
        user_agent=UA, clock=clock, http_client=httpx.Client(transport=httpx.MockTransport(handle))
    )
    pacer = Pacer(client, clock=clock, sleep=clock.sleep, max_delay=30)
    assert pacer.delay_for("http://site.test/") == 30
    clock.now += 86_400 + 1
    assert pacer.delay_for("http://site.test/") == 2
    assert len(hits) == 2
    client.close()


def test_unreachable_robots_uses_the_default_delay() -> None:
    """A 503 robots.txt is disallow-all (2.3.1.4): its (empty) rules ask for nothing."""
    clock = FakeClock(now=1_000_000.0)

    def handle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503)

    client = fetch.RobotsClient(
        user_agent=UA, clock=clock, http_client=httpx.Client(transport=httpx.MockTransport(handle))
    )
    pacer = Pacer(client, clock=clock, sleep=clock.sleep, default_delay=1.0)
    assert client.rules_for("http://down.test/").outcome == "disallow-all"
    assert pacer.delay_for("http://down.test/") == 1.0
    client.close()


async def test_async_client() -> None:
    clock = FakeClock(now=1_000_000.0)
    hits: list[str] = []
    client = fetch.AsyncRobotsClient(
        user_agent=UA,
        clock=clock,
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(_handler(hits))),
    )
    pacer = AsyncPacer(client, clock=clock, sleep=clock.asleep, max_delay=10)
    assert await pacer.wait("http://site.test/a") == 0
    assert await pacer.wait("http://site.test/b") == 10
    # otherbot (the * group) asks for no delay, but the slot booked by /b still stands:
    assert await pacer.wait("http://site.test/c", user_agent="otherbot") == 10
    assert await pacer.wait("http://site.test/d", user_agent="otherbot") == 0
    assert hits == ["http://site.test/robots.txt"]
    await client.aclose()
