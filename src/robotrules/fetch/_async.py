"""The asynchronous client: drives :mod:`robotrules._policy` with an ``httpx.AsyncClient``.

The twin of :mod:`._sync`; stores that do I/O are called from a worker thread so that a slow
SQLite file or Redis server never blocks the event loop.

Concurrency. Tasks for one origin queue on that origin's lock (and, across processes, on the
store's lease), so one request is sent and its answer shared. Tasks for distinct origins never
wait for each other: the client's own httpx client has no connection limit, and with an
injected one the wait for a pooled connection is not counted against the origin (the
:class:`~._common.Budget` starts at httpcore's first trace event of the request). The total
timeout is an ``asyncio.timeout`` rescheduled when the budget's clock starts; cancelling the
request closes its connection, so a stalled server holds nothing past its deadline.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Any, Literal, TypeVar

import httpx

from robotrules import Dialect, RequestRate, Verdict, _policy
from robotrules._origin import origin_of
from robotrules._tdmrep_policy import tdmrep_key
from robotrules.aipref import Usage
from robotrules.fetch._common import (
    DEFAULT_USER_AGENT,
    BaseClient,
    Budget,
    FetchedRobots,
    FetchedTdmRep,
    R,
    Resource,
    default_ssl_context,
    describe_exception,
)
from robotrules.fetch._guard import GUARD_EXTENSION, AddressGuard
from robotrules.stores._base import CacheEntry, Store

__all__ = ["AsyncRobotsClient"]

_PEER_POLL = 0.05
T = TypeVar("T")


class _KeyedLocks:
    """One asyncio lock per origin, dropped when nobody holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, list[int]]] = {}

    @asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        lock, users = self._locks.setdefault(key, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if users[0] == 0:
                del self._locks[key]


class AsyncRobotsClient(BaseClient):
    """Fetches, caches and applies robots.txt files (RFC 9309 2.3, 2.4), with asyncio.

    Many tasks asking about one origin at once cause exactly one request. Use one instance
    per event loop. ``guard``: the address guard, as for :class:`RobotsClient`.
    """

    def __init__(
        self,
        *,
        user_agent: str = DEFAULT_USER_AGENT,
        store: Store | None = None,
        http_client: httpx.AsyncClient | None = None,
        clock: Callable[[], float] | None = None,
        dialect: Dialect = "rfc9309",
        max_bytes: int = _policy.DEFAULT_MAX_BYTES,
        connect_timeout: float = _policy.DEFAULT_CONNECT_TIMEOUT,
        timeout: float = _policy.DEFAULT_TIMEOUT,
        auth_failure: Literal["allow", "disallow"] = "allow",
        max_redirects: int = 5,
        long_outage: Literal["disallow", "allow"] = "disallow",
        min_ttl: float = _policy.MIN_TTL,
        guard: AddressGuard | None = None,
    ) -> None:
        super().__init__(
            user_agent=user_agent, store=store, clock=clock, dialect=dialect,
            max_bytes=max_bytes, connect_timeout=connect_timeout, timeout=timeout,
            auth_failure=auth_failure, max_redirects=max_redirects, long_outage=long_outage,
            min_ttl=min_ttl,
        )
        self._own_http = http_client is None
        # guard: the address guard (fetch/_guard.py) of the client's own connections: a fetch
        # that starts on a public origin connects to public addresses only, every hop
        # checked; AddressGuard(allow_private=True) for crawlers of internal sites
        self.http = http_client if http_client is not None else httpx.AsyncClient(
            follow_redirects=False, headers={"User-Agent": user_agent},
            transport=(guard or AddressGuard()).async_transport(default_ssl_context()),
        )
        # Does the transport report progress (httpcore's trace)? Ours does; an injected
        # client's is learned from its first event. Until then its pool waits are counted.
        self._traced = self._own_http
        self._locks = _KeyedLocks()

    # -- public API ---------------------------------------------------------------------------

    async def rules_for(self, url: str) -> FetchedRobots:
        """The robots.txt governing ``url`` (from the cache, or fetched now)."""
        return await self._cached(origin_of(url), self.robots_resource)

    async def tdmrep_for(self, url: str) -> FetchedTdmRep:
        """The origin's ``/.well-known/tdmrep.json`` (W3C TDMRep), fetched and cached like
        robots.txt; ``policy`` is None when the origin has no usable file."""
        return await self._cached(origin_of(url), self.tdmrep_resource)

    async def usage(self, url: str, *, user_agent: str | None = None,
                    headers: Mapping[str, str] | None = None) -> Usage:
        """What ``user_agent`` may do with ``url``: robots.txt (``RobotsTxt.usage``), the
        origin's TDMRep file and the page's own response ``headers`` (``Content-Usage``,
        ``tdm-reservation``; the caller's response, this client fetches no page), combined
        most-restrictively. The TDMRep file is fetched only when the crawl is allowed."""
        fr = await self.rules_for(url)
        allowed = fr.is_allowed(url, user_agent=self.ua(user_agent))
        tdm = await self.tdmrep_for(url) if allowed else None
        return self.combine_usage(fr, tdm, url, user_agent, headers)

    async def _cached(self, origin: str, kind: Resource[R]) -> R:
        """One origin's file from memory, the store, a peer process, or fetched now; one
        request per origin and file at a time (a lock here, the store's lease across
        processes)."""
        hit = kind.fresh(origin, self.clock())
        if hit is not None:
            return hit
        key = kind.key(origin)
        async with self._locks.hold(key):
            hit = kind.fresh(origin, self.clock())  # a task ahead of us fetched it
            if hit is not None:
                return hit
            previous = await self._store_get(key) or kind.last_entry(origin)
            if previous is not None and self.clock() < previous.expires_at:
                return kind.materialize(origin, previous, True)
            leased = await self._lease(key)  # None: the store has no leases
            try:
                if leased is False:
                    peer, leased = await self._wait_for_peer(key, previous)
                    if peer is not None:
                        return kind.materialize(origin, peer, True)
                result = await self._fetch(origin, kind.attempt)
                entry = kind.settle(previous, result)
                await self._store_set(key, entry)
            finally:
                if leased:
                    await self._release(key)
            return kind.materialize(origin, entry, False)

    async def is_allowed(self, url: str, *, user_agent: str | None = None) -> bool:
        """May ``user_agent`` (default: the client's product token) fetch ``url``?"""
        return (await self.rules_for(url)).is_allowed(url, user_agent=self.ua(user_agent))

    async def explain(self, url: str, *, user_agent: str | None = None) -> Verdict:
        """Why ``url`` is allowed or not: the deciding rule, or the HTTP outcome."""
        return (await self.rules_for(url)).explain(url, user_agent=self.ua(user_agent))

    async def crawl_delay(self, url: str, *, user_agent: str | None = None) -> float | None:
        """The ``Crawl-delay`` for ``user_agent`` at ``url``'s origin (None if none)."""
        return (await self.rules_for(url)).rules.crawl_delay(user_agent=self.ua(user_agent))

    async def request_rate(self, url: str, *, user_agent: str | None = None) -> RequestRate | None:
        """The ``Request-rate`` for ``user_agent`` at ``url``'s origin (None if none)."""
        return (await self.rules_for(url)).rules.request_rate(user_agent=self.ua(user_agent))

    async def sitemaps(self, url_or_origin: str) -> list[str]:
        """The ``Sitemap`` URLs listed in the origin's robots.txt."""
        return list((await self.rules_for(url_or_origin)).rules.sitemaps)

    async def forget(self, url_or_origin: str) -> None:
        """Drop the origin (robots.txt and tdmrep.json) from this client's memory and from the
        store (next call fetches)."""
        origin = origin_of(url_or_origin)
        self.memo_drop(origin)
        try:
            await self._call_store(self.store.delete, origin)
            await self._call_store(self.store.delete, tdmrep_key(origin))
        except Exception as exc:
            self.store_failed(exc, "delete")

    async def aclose(self) -> None:
        """Close the HTTP client and store this client created (not ones passed in)."""
        if self._own_http:
            await self.http.aclose()
        if self._own_store:
            await self._call_store(self.store.close)

    async def __aenter__(self) -> AsyncRobotsClient:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # -- I/O -------------------------------------------------------------------------------

    async def _fetch(self, origin: str, make: Callable[[str], _policy.Attempt] | None = None
                     ) -> _policy.AttemptResult:
        attempt = (make or self.new_attempt)(origin)
        budget = Budget(self.timeout)
        headers = self.request_headers()
        loop = asyncio.get_running_loop()
        guard_state: dict[str, Any] = {}  # the address guard's note on this fetch, every hop
        while attempt.result is None:
            left = budget.left(time.monotonic())
            if left is None:  # only if the last request never went out (the attempt is over)
                left = budget.total
            if left <= 0:
                attempt.on_error("timeout")
                break
            # no pool timeout: waiting for a connection is not the origin's fault, and the
            # waits end as the fetches holding connections end (each within its own budget)
            limits = httpx.Timeout(left, connect=min(self.connect_timeout, left), pool=None)
            budget.start_hop(time.monotonic(), counting=not self._traced)
            try:
                # httpx times each socket read; this bounds the whole exchange, so that a
                # server trickling its headers a byte at a time cannot hold us past the total
                async with asyncio.timeout(None) as deadline:

                    def arm() -> None:
                        rest = budget.left(time.monotonic())
                        deadline.reschedule(None if rest is None else loop.time() + rest)

                    async def trace(name: str, info: Mapping[str, Any]) -> None:
                        self._traced = True
                        if budget.on_wire(time.monotonic()):
                            arm()

                    arm()
                    async with self.http.stream(
                        "GET", attempt.url, headers=headers, timeout=limits,
                        follow_redirects=False,
                        extensions={"trace": trace, GUARD_EXTENSION: guard_state},
                    ) as response:
                        if budget.on_wire(time.monotonic()):  # a transport that traces nothing
                            arm()
                        step = attempt.on_response(response.status_code, response.headers)
                        if step != "read-body":
                            continue
                        complete = True
                        if response.is_stream_consumed:  # already read by the client
                            attempt.body_already_decoded()
                            chunks: AsyncIterator[bytes] = _once(response.content)
                        else:
                            chunks = response.aiter_raw()
                        async for chunk in chunks:
                            if attempt.feed(chunk):
                                complete = False
                                break
                        if attempt.result is None:
                            attempt.on_body_end(complete=complete)
            except TimeoutError:  # the total deadline (not httpx's own timeouts)
                if attempt.result is None:
                    attempt.on_error("timeout")
            except (httpx.HTTPError, httpx.InvalidURL, OSError) as exc:
                attempt.on_error(describe_exception(exc))
        assert attempt.result is not None
        return attempt.result

    async def _call_store(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        if getattr(self.store, "blocking", True):
            return await asyncio.to_thread(fn, *args, **kwargs)
        return fn(*args, **kwargs)

    async def _store_get(self, origin: str) -> CacheEntry | None:
        try:
            entry = await self._call_store(self.store.get, origin)
        except Exception as exc:  # a failing store must never make an answer wrong
            self.store_failed(exc, "read")
            return None
        self.store_recovered()
        return entry

    async def _store_set(self, origin: str, entry: CacheEntry) -> None:
        try:
            ttl = _policy.store_ttl(entry, self.clock())
            await self._call_store(self.store.set, origin, entry, ttl=ttl)
        except Exception as exc:
            self.store_failed(exc, "write")
        else:
            self.store_recovered()

    async def _lease(self, origin: str) -> bool | None:
        try_lease = getattr(self.store, "try_lease", None)
        if try_lease is None or not self._store_ok:
            return None
        try:
            return bool(await self._call_store(try_lease, origin, ttl=self.timeout + 5.0))
        except Exception as exc:
            self.store_failed(exc, "lease")
            return None

    async def _release(self, origin: str) -> None:
        try:
            await self._call_store(self.store.release_lease, origin)  # type: ignore[attr-defined]
        except Exception as exc:
            self.store_failed(exc, "release a lease")

    async def _wait_for_peer(
        self, origin: str, previous: CacheEntry | None
    ) -> tuple[CacheEntry | None, bool | None]:
        """Another process holds the fetch lease: wait (bounded) for its result in the store."""
        deadline = time.monotonic() + self.timeout + 5.0
        while time.monotonic() < deadline:
            await asyncio.sleep(_PEER_POLL)
            entry = await self._store_get(origin)
            if self.is_news(entry, previous):
                return entry, False
            if not self._store_ok:
                return None, None
            if await self._lease(origin):
                entry = await self._store_get(origin)
                if self.is_news(entry, previous):
                    await self._release(origin)
                    return entry, False
                return None, True
        return None, None


async def _once(data: bytes) -> AsyncIterator[bytes]:
    yield data
