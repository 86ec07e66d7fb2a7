"""The per-origin pacer, sync and async, with an injected clock: no test sleeps.

Sources: Crawl-delay and Request-rate as read by the core (the 1996-era extensions that
RFC 9309 2.2.4 lets crawlers interpret), the caps crawlers use (Nutch/StormCrawler 30 s,
Heritrix 300 s: REFERENCE.md section 5) and issue 7's "cap it and report it".
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

import pytest
from fake_clock import FakeClock

import robotrules
from robotrules import RobotsTxt
from robotrules.pacer import AsyncPacer, CappedDelay, Pacer

UA = "examplebot"


def rules(body: str) -> RobotsTxt:
    return robotrules.parse(body)


@dataclass
class Fetched:
    rules: RobotsTxt


class FakeClient:
    """What the pacer needs of ``robotrules.fetch.RobotsClient``: ``rules_for`` (cached)."""

    def __init__(self, body: str, user_agent: str = "examplebot/1.0 (+http://127.0.0.1/)"):
        self.user_agent = user_agent
        self.bodies: dict[str, RobotsTxt] = {}
        self.default = rules(body)
        self.calls: list[str] = []

    def rules_for(self, url: str) -> Fetched:
        self.calls.append(url)
        host = url.split("/")[2]
        return Fetched(self.bodies.get(host, self.default))


class FakeAsyncClient(FakeClient):
    async def rules_for(self, url: str) -> Fetched:  # type: ignore[override]
        return super().rules_for(url)


def test_crawl_delay_spaces_hits_on_one_origin() -> None:
    """Crawl-delay (1996-era extension, RFC 9309 2.2.4 MAY): seconds between hits."""
    clock = FakeClock()
    pacer = Pacer(clock=clock, sleep=clock.sleep)
    r = rules(f"User-agent: {UA}\nCrawl-delay: 2\n")
    assert pacer.wait("http://a.test/1", user_agent=UA, rules=r) == 0  # first hit: no wait
    assert pacer.wait("http://a.test/2", user_agent=UA, rules=r) == 2
    clock.now += 0.5  # time spent fetching counts towards the delay
    assert pacer.wait("http://a.test/3", user_agent=UA, rules=r) == 1.5
    clock.now += 10
    assert pacer.wait("http://a.test/4", user_agent=UA, rules=r) == 0
    assert clock.sleeps == [2, 1.5]


def test_origins_are_independent_and_normalised() -> None:
    """RFC 9309 2.3: robots.txt, and so pacing, is per scheme, host and port."""
    clock = FakeClock()
    pacer = Pacer(clock=clock, sleep=clock.sleep)
    r = rules("User-agent: *\nCrawl-delay: 3\n")
    assert pacer.wait("http://a.test/", rules=r) == 0
    assert pacer.wait("http://b.test/", rules=r) == 0
    assert pacer.wait("https://a.test/", rules=r) == 0  # another scheme: another origin
    assert pacer.wait("HTTP://A.test:80/x", rules=r) == 3  # same origin as http://a.test/


def test_request_rate_is_an_interval_and_the_politer_wins() -> None:
    """``Request-rate: 3/15`` -> one request every 5 s; with ``Crawl-delay: 1`` 5 s wins."""
    clock = FakeClock()
    pacer = Pacer(clock=clock, sleep=clock.sleep)
    both = rules("User-agent: *\nCrawl-delay: 1\nRequest-rate: 3/15\n")
    assert pacer.delay_for("http://a.test/", rules=both) == 5
    only_delay = rules("User-agent: *\nCrawl-delay: 7\nRequest-rate: 3/15\n")
    assert pacer.delay_for("http://a.test/", rules=only_delay) == 7
    off = Pacer(clock=clock, sleep=clock.sleep, use_request_rate=False)
    assert off.delay_for("http://a.test/", rules=both) == 1


def test_default_min_and_max() -> None:
    """Issue 7: a configurable default, minimum and maximum."""
    clock = FakeClock()
    pacer = Pacer(clock=clock, sleep=clock.sleep, default_delay=1.5, min_delay=0.25, max_delay=10)
    assert pacer.delay_for("http://a.test/", rules=rules("")) == 1.5  # nothing asked
    assert pacer.delay_for("http://a.test/") == 1.5  # no rules, no client
    assert (
        pacer.delay_for("http://a.test/", rules=rules("User-agent: *\nCrawl-delay: 0.1\n")) == 0.25
    )
    assert pacer.delay_for("http://a.test/", rules=rules("User-agent: *\nCrawl-delay: 4\n")) == 4


def test_the_agents_own_group_decides() -> None:
    """RFC 9309 2.2.1: the agent's group (token from a full UA string), else ``*``."""
    pacer = Pacer(clock=FakeClock())
    # Each group needs a rule: RFC 9309 2.1 ends a group at a user-agent line after *rules*.
    r = rules(f"User-agent: *\nCrawl-delay: 1\nDisallow:\n\nUser-agent: {UA}\nCrawl-delay: 4\n")
    assert pacer.delay_for("http://a.test/", user_agent=UA, rules=r) == 4
    assert pacer.delay_for("http://a.test/", user_agent=f"{UA}/2.0 (+http://x)", rules=r) == 4
    assert pacer.delay_for("http://a.test/", user_agent="otherbot", rules=r) == 1
    assert Pacer(user_agent=UA).delay_for("http://a.test/", rules=r) == 4


def test_huge_delay_is_capped_and_reported_once_per_origin(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Issue 7: "a file asking for an hour between requests should not stall a crawler
    silently: cap it and report it"."""
    clock = FakeClock()
    seen: list[CappedDelay] = []
    pacer = Pacer(clock=clock, sleep=clock.sleep, max_delay=30, on_capped=seen.append)
    hour = rules("User-agent: *\nCrawl-delay: 3600\n")
    with caplog.at_level(logging.WARNING, logger="robotrules.pacer"):
        for _ in range(3):
            pacer.wait("http://slow.test/page", rules=hour)
        pacer.wait("http://other.test/page", rules=hour)
    assert clock.sleeps == [30, 30]
    assert [r.origin for r in seen] == ["http://slow.test", "http://other.test"]
    record = pacer.capped["http://slow.test"]
    assert (record.requested, record.applied, record.source) == (3600, 30, "crawl-delay")
    warnings = [r for r in caplog.records if r.name == "robotrules.pacer"]
    assert len(warnings) == 2
    assert "3600" in warnings[0].getMessage()
    assert "capped to 30" in warnings[0].getMessage()


def test_request_rate_cap_names_its_source() -> None:
    """Issue 7 (cap and report); ``Request-rate: 1/1h`` as parsed by the core."""
    pacer = Pacer(clock=FakeClock(), max_delay=60)
    pacer.delay_for("http://a.test/", rules=rules("User-agent: *\nRequest-rate: 1/1h\n"))
    assert pacer.capped["http://a.test"].source == "request-rate"
    assert pacer.capped["http://a.test"].requested == 3600


def test_concurrent_callers_queue_one_delay_apart() -> None:
    """Reservation happens before sleeping, so N callers get slots 0, d, 2d, ..."""
    clock = FakeClock()
    slept: list[float] = []
    lock = threading.Lock()

    def sleep(seconds: float) -> None:  # the clock does not move: all callers are concurrent
        with lock:
            slept.append(seconds)

    pacer = Pacer(clock=clock, sleep=sleep)
    r = rules("User-agent: *\nCrawl-delay: 2\n")
    threads = [
        threading.Thread(target=pacer.wait, args=("http://a.test/",), kwargs={"rules": r})
        for _ in range(5)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(slept) == [2, 4, 6, 8]  # the first caller did not sleep


def test_state_is_bounded_lru() -> None:
    """STYLE.md (no unbounded caches, the Protego anti-pattern): per-origin state is an LRU."""
    clock = FakeClock()
    pacer = Pacer(clock=clock, sleep=clock.sleep, max_origins=2, default_delay=5)
    for host in ("a", "b", "c"):
        pacer.wait(f"http://{host}.test/")
    assert pacer.next_free("http://a.test/") is None  # evicted
    assert pacer.next_free("http://c.test/") == 1005
    assert pacer.wait("http://a.test/") == 0  # forgotten, so no wait


def test_client_supplies_the_rules_and_the_agent() -> None:
    """Issue 7: the delay comes from the same cached robots.txt the verdict came from."""
    clock = FakeClock()
    client = FakeClient(
        "User-agent: *\nCrawl-delay: 1\nDisallow: /x\n\nUser-agent: examplebot\nCrawl-delay: 3\n"
    )
    pacer = Pacer(client, clock=clock, sleep=clock.sleep)
    pacer.wait("http://a.test/1")
    assert pacer.wait("http://a.test/2") == 3  # the client's UA header -> examplebot group
    assert client.calls == ["http://a.test/1", "http://a.test/2"]
    # The client refetched robots.txt (its cache expired): the next delay follows the new file.
    client.bodies["a.test"] = rules("User-agent: examplebot\nCrawl-delay: 10\n")
    assert pacer.wait("http://a.test/3") == 3  # the slot booked with the old delay
    assert pacer.wait("http://a.test/4") == 10


def test_validation() -> None:
    """Own case: misuse raises ValueError at construction."""
    with pytest.raises(ValueError, match="min_delay"):
        Pacer(min_delay=5, max_delay=1)
    with pytest.raises(ValueError, match="default_delay"):
        Pacer(default_delay=-1)
    with pytest.raises(ValueError, match="max_origins"):
        Pacer(max_origins=0)


async def test_async_pacer_with_async_client() -> None:
    """STYLE.md (httpx): the async twin behaves as the sync one."""
    clock = FakeClock()
    client = FakeAsyncClient("User-agent: *\nCrawl-delay: 2\n")
    pacer = AsyncPacer(client, clock=clock, sleep=clock.asleep, max_delay=30)
    assert await pacer.wait("http://a.test/1") == 0
    assert await pacer.wait("http://a.test/2") == 2
    assert await pacer.wait("http://b.test/1") == 0
    assert clock.sleeps == [2]


async def test_async_pacer_caps_and_accepts_sync_client_or_rules() -> None:
    """Issue 7 (cap and report), async; a sync client or ``rules=`` also work."""
    clock = FakeClock()
    seen: list[CappedDelay] = []
    pacer = AsyncPacer(
        FakeClient("User-agent: *\nCrawl-delay: 600\n"),
        clock=clock, sleep=clock.asleep, max_delay=60, on_capped=seen.append,
    )  # fmt: skip
    await pacer.wait("http://a.test/")
    assert await pacer.wait("http://a.test/") == 60
    assert len(seen) == 1
    r = rules("User-agent: *\nCrawl-delay: 4\n")
    assert await pacer.delay_for("http://a.test/", rules=r) == 4


def test_numbers_no_float_holds_leave_the_default() -> None:
    """Issue 41's reproduction: one 4.4 KB ``Request-rate:`` line (more than 4,300 digits)
    made ``wait()`` and ``delay_for()`` raise with their defaults, and ``Crawl-delay:`` of
    309 digits read as ``inf``. Such a value is no value (robotrules._directives: past the
    largest finite float), so the pacer uses ``default_delay``; the largest value that is one
    is capped at ``max_delay`` and reported (issue 7)."""
    clock = FakeClock()
    pacer = Pacer(clock=clock, sleep=clock.sleep, default_delay=1.5)
    r = rules(f"User-agent: *\nRequest-rate: {'9' * 4400}/1\nCrawl-delay: {'9' * 400}\n")
    assert pacer.delay_for("http://a.test/", rules=r) == 1.5
    assert pacer.wait("http://a.test/1", rules=r) == 0
    assert pacer.wait("http://a.test/2", rules=r) == 1.5
    edge = rules(f"User-agent: *\nCrawl-delay: {'9' * 308}\nRequest-rate: 1/{'9' * 300}d\n")
    assert pacer.delay_for("http://b.test/", rules=edge) == pacer.max_delay
    assert list(pacer.capped) == ["http://b.test"]
