"""Per-origin politeness for crawlers: wait until an origin may be hit again.

Theory of operation. Each origin (scheme, host, port) has one "next free" instant. A call to
``wait(url)`` looks up the delay the origin's robots.txt asks of the agent, clamps it to
``[min_delay, max_delay]``, then *reserves* the earliest slot: ``start = max(now, next_free)``
and ``next_free = start + delay``. The reservation is made under a lock before sleeping, so
threads (or tasks) sharing a pacer queue up one delay apart instead of all waking at once.
The first request to an origin never waits.

Where the delay comes from, in order:

1. ``Crawl-delay`` and ``Request-rate: n/t`` (as ``t / n`` seconds between requests) of the
   group that applies to the agent; when both are present the larger (politer) wins.
2. Otherwise ``default_delay``.

The delay is read from ``client.rules_for(url).rules``: the fetching client's cached robots.txt,
the same object its ``is_allowed`` verdicts come from. A plain :class:`~robotrules.RobotsTxt`
can be passed per call instead (``rules=``), for code that parses robots.txt itself.

A delay above ``max_delay`` is capped, never applied silently: the first time per origin a
warning is logged, a :class:`CappedDelay` is kept in :attr:`Pacer.capped` and ``on_capped`` is
called. Per-origin state is an LRU bounded by ``max_origins``. Every call costs O(1) besides
the client's ``rules_for``. Clock and sleep are injected, so tests never sleep.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from robotrules import RobotsTxt
from robotrules._origin import origin_or_none

__all__ = ["AsyncPacer", "CappedDelay", "Pacer", "RulesSource"]

logger = logging.getLogger("robotrules.pacer")



class _HasRules(Protocol):
    @property
    def rules(self) -> RobotsTxt: ...


class RulesSource(Protocol):
    """What a pacer needs of a client: ``rules_for(url)`` giving an object with ``.rules``.

    :class:`robotrules.fetch.RobotsClient` fits; so does
    :class:`~robotrules.fetch.AsyncRobotsClient` for :class:`AsyncPacer` (its ``rules_for``
    returns an awaitable).
    """

    def rules_for(self, url: str) -> Any: ...


@dataclass(frozen=True, slots=True)
class CappedDelay:
    """A robots.txt asked for more than ``max_delay``; ``applied`` was used instead."""

    origin: str
    user_agent: str
    requested: float
    applied: float
    source: Literal["crawl-delay", "request-rate"]
    at: float  # the pacer's clock when first seen


class _PacerCore:
    """Every decision that needs no I/O, shared by :class:`Pacer` and :class:`AsyncPacer`."""

    def __init__(
        self,
        *,
        user_agent: str | None,
        default_delay: float,
        min_delay: float,
        max_delay: float,
        use_request_rate: bool,
        max_origins: int,
        on_capped: Callable[[CappedDelay], object] | None,
        clock: Callable[[], float],
    ) -> None:
        if not 0 <= min_delay <= max_delay:
            raise ValueError("need 0 <= min_delay <= max_delay")
        if default_delay < 0:
            raise ValueError("default_delay must be >= 0")
        if max_origins < 1:
            raise ValueError("max_origins must be >= 1")
        self.user_agent = user_agent
        self.default_delay = float(default_delay)
        self.min_delay = float(min_delay)
        self.max_delay = float(max_delay)
        self.use_request_rate = use_request_rate
        self.max_origins = max_origins
        self.on_capped = on_capped
        self.clock = clock
        self._next_free: OrderedDict[str, float] = OrderedDict()
        self._capped: OrderedDict[str, CappedDelay] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def capped(self) -> Mapping[str, CappedDelay]:
        """Origins whose robots.txt asked for more than ``max_delay`` (a snapshot copy)."""
        with self._lock:
            return dict(self._capped)

    def _agent(self, user_agent: str | None, client: object) -> str:
        # The call's agent, else the pacer's, else the client's (its product token, as the
        # client's own is_allowed uses), else "*".
        for candidate in (
            user_agent,
            self.user_agent,
            getattr(client, "token", None),
            getattr(client, "user_agent", None),
        ):
            if isinstance(candidate, str) and candidate:
                return candidate
        return "*"

    def _delay(self, url: str, user_agent: str, rules: RobotsTxt | None) -> float:
        """The delay to apply for ``url``'s origin, clamped, reporting a cap."""
        requested: float | None = None
        source: Literal["crawl-delay", "request-rate"] = "crawl-delay"
        if rules is not None:
            requested = rules.crawl_delay(user_agent=user_agent)
            if self.use_request_rate:
                rate = rules.request_rate(user_agent=user_agent)
                if rate is not None and rate.requests > 0:
                    interval = rate.seconds / rate.requests
                    if requested is None or interval > requested:
                        requested, source = interval, "request-rate"
        if requested is None:
            requested = self.default_delay
        applied = min(max(requested, self.min_delay), self.max_delay)
        if requested > self.max_delay:
            self._report_cap(_origin_of(url), user_agent, requested, applied, source)
        return applied

    def _report_cap(
        self,
        origin: str,
        user_agent: str,
        requested: float,
        applied: float,
        source: Literal["crawl-delay", "request-rate"],
    ) -> None:
        with self._lock:
            known = self._capped.get(origin)
            if known is not None and known.requested == requested:
                self._capped.move_to_end(origin)
                return
            record = CappedDelay(origin, user_agent, requested, applied, source, self.clock())
            self._capped[origin] = record
            while len(self._capped) > self.max_origins:
                self._capped.popitem(last=False)
        logger.warning(
            "%s asks %s for %g s between requests (%s); capped to %g s (max_delay)",
            origin, user_agent, requested, source, applied,
        )  # fmt: skip
        if self.on_capped is not None:
            self.on_capped(record)

    def _reserve(self, url: str, delay: float) -> float:
        """Book the next slot for ``url``'s origin; return how long to sleep until it."""
        origin = _origin_of(url)
        with self._lock:
            now = self.clock()
            start = max(now, self._next_free.get(origin, now))
            self._next_free[origin] = start + delay
            self._next_free.move_to_end(origin)
            # Evicting the least recently used origin forgets its slot; with max_origins well
            # above the number of origins crawled at once, that slot is long past anyway.
            while len(self._next_free) > self.max_origins:
                self._next_free.popitem(last=False)
        return start - now

    def next_free(self, url: str) -> float | None:
        """The clock time at which ``url``'s origin may next be hit (``None``: unknown)."""
        with self._lock:
            return self._next_free.get(_origin_of(url))


class Pacer(_PacerCore):
    """Blocking per-origin pacer. Share one between threads.

    ``client`` is a :class:`robotrules.fetch.RobotsClient` (or anything with ``rules_for``),
    or ``None`` when every call passes ``rules=``. ``user_agent`` defaults to the client's.

    >>> pacer = Pacer(client, max_delay=30)          # doctest: +SKIP
    >>> if client.is_allowed(url, user_agent=ua):    # doctest: +SKIP
    ...     pacer.wait(url, user_agent=ua)
    ...     fetch(url)
    """

    def __init__(
        self,
        client: RulesSource | None = None,
        *,
        user_agent: str | None = None,
        default_delay: float = 0.0,
        min_delay: float = 0.0,
        max_delay: float = 30.0,
        use_request_rate: bool = True,
        max_origins: int = 10_000,
        on_capped: Callable[[CappedDelay], object] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], object] = time.sleep,
    ) -> None:
        super().__init__(
            user_agent=user_agent, default_delay=default_delay, min_delay=min_delay,
            max_delay=max_delay, use_request_rate=use_request_rate, max_origins=max_origins,
            on_capped=on_capped, clock=clock,
        )  # fmt: skip
        self.client = client
        self.sleep = sleep

    def delay_for(
        self, url: str, *, user_agent: str | None = None, rules: RobotsTxt | None = None
    ) -> float:
        """Seconds (after clamping) this pacer keeps between hits on ``url``'s origin."""
        agent = self._agent(user_agent, self.client)
        if rules is None and self.client is not None:
            fetched: _HasRules = self.client.rules_for(url)
            rules = fetched.rules
        return self._delay(url, agent, rules)

    def wait(
        self, url: str, *, user_agent: str | None = None, rules: RobotsTxt | None = None
    ) -> float:
        """Block until ``url``'s origin may be hit again; return the seconds slept."""
        pause = self._reserve(url, self.delay_for(url, user_agent=user_agent, rules=rules))
        if pause > 0:
            self.sleep(pause)
        return pause


class AsyncPacer(_PacerCore):
    """The asyncio twin of :class:`Pacer`; ``client`` is an ``AsyncRobotsClient``.

    A client whose ``rules_for`` is synchronous works too.
    """

    def __init__(
        self,
        client: RulesSource | None = None,
        *,
        user_agent: str | None = None,
        default_delay: float = 0.0,
        min_delay: float = 0.0,
        max_delay: float = 30.0,
        use_request_rate: bool = True,
        max_origins: int = 10_000,
        on_capped: Callable[[CappedDelay], object] | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        super().__init__(
            user_agent=user_agent, default_delay=default_delay, min_delay=min_delay,
            max_delay=max_delay, use_request_rate=use_request_rate, max_origins=max_origins,
            on_capped=on_capped, clock=clock,
        )  # fmt: skip
        self.client = client
        self.sleep = sleep

    async def delay_for(
        self, url: str, *, user_agent: str | None = None, rules: RobotsTxt | None = None
    ) -> float:
        """Seconds (after clamping) this pacer keeps between hits on ``url``'s origin."""
        agent = self._agent(user_agent, self.client)
        if rules is None and self.client is not None:
            fetched = self.client.rules_for(url)
            if inspect.isawaitable(fetched):
                fetched = await fetched
            rules = fetched.rules
        return self._delay(url, agent, rules)

    async def wait(
        self, url: str, *, user_agent: str | None = None, rules: RobotsTxt | None = None
    ) -> float:
        """Wait until ``url``'s origin may be hit again; return the seconds slept."""
        delay = await self.delay_for(url, user_agent=user_agent, rules=rules)
        pause = self._reserve(url, delay)
        if pause > 0:
            await self.sleep(pause)
        return pause


def _origin_of(url: str) -> str:
    """The origin pacing is keyed by: :func:`robotrules._origin.origin_of` (RFC 9309 2.3:
    scheme and authority), so the keys of :attr:`Pacer.capped` match
    ``FetchedRobots.origin``; unlike it, this never raises (an odd URL paces on its own)."""
    return origin_or_none(url) or url
