"""The synchronous client: drives :mod:`robotrules._policy` with an ``httpx.Client``."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from types import TracebackType
from typing import Literal

import httpx

from robotrules import Dialect, RequestRate, Verdict
from robotrules import _policy as P
from robotrules._origin import origin_of
from robotrules.fetch._common import (
    DEFAULT_USER_AGENT,
    BaseClient,
    FetchedRobots,
    default_ssl_context,
    describe_exception,
)
from robotrules.stores._base import CacheEntry, Store

__all__ = ["RobotsClient"]

_PEER_POLL = 0.05  # seconds between looks at a shared store while another process fetches


class _KeyedLocks:
    """One lock per origin, created on demand and dropped when nobody holds or waits for it."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, tuple[threading.Lock, list[int]]] = {}

    @contextmanager
    def hold(self, key: str) -> Iterator[None]:
        with self._guard:
            lock, users = self._locks.setdefault(key, (threading.Lock(), [0]))
            users[0] += 1
        try:
            with lock:
                yield
        finally:
            with self._guard:
                users[0] -= 1
                if users[0] == 0:
                    del self._locks[key]


_WORKERS = 16  # concurrent fetches of one client (one per origin at a time)
_GRACE = 1.0  # seconds past the total timeout before a stalled fetch is given up


class RobotsClient(BaseClient):
    """Fetches, caches and applies robots.txt files (RFC 9309 2.3, 2.4), synchronously.

    Thread-safe: many threads asking about one origin at once cause exactly one request.
    ``user_agent`` is the User-Agent header sent; its leading product token (``robotrules``
    for the default) is the agent matched when a call gives no ``user_agent``.
    """

    def __init__(
        self,
        *,
        user_agent: str = DEFAULT_USER_AGENT,
        store: Store | None = None,
        http_client: httpx.Client | None = None,
        clock: Callable[[], float] | None = None,
        dialect: Dialect = "rfc9309",
        max_bytes: int = P.DEFAULT_MAX_BYTES,
        connect_timeout: float = P.DEFAULT_CONNECT_TIMEOUT,
        timeout: float = P.DEFAULT_TIMEOUT,
        auth_failure: Literal["allow", "disallow"] = "allow",
        max_redirects: int = 5,
        long_outage: Literal["disallow", "allow"] = "disallow",
        min_ttl: float = P.MIN_TTL,
    ) -> None:
        super().__init__(
            user_agent=user_agent, store=store, clock=clock, dialect=dialect,
            max_bytes=max_bytes, connect_timeout=connect_timeout, timeout=timeout,
            auth_failure=auth_failure, max_redirects=max_redirects, long_outage=long_outage,
            min_ttl=min_ttl,
        )
        self._own_http = http_client is None
        self.http = http_client if http_client is not None else httpx.Client(
            follow_redirects=False, headers={"User-Agent": user_agent},
            verify=default_ssl_context(),
        )
        self._locks = _KeyedLocks()
        self._workers: ThreadPoolExecutor | None = None  # made on first fetch
        self._workers_lock = threading.Lock()

    # -- public API ---------------------------------------------------------------------------

    def rules_for(self, url: str) -> FetchedRobots:
        """The robots.txt governing ``url`` (from the cache, or fetched now)."""
        origin = origin_of(url)
        hit = self.memo_fresh(origin, self.clock())
        if hit is not None:
            return hit
        with self._locks.hold(origin):
            hit = self.memo_fresh(origin, self.clock())  # a thread ahead of us fetched it
            if hit is not None:
                return hit
            previous = self._store_get(origin) or self.memo_entry(origin)
            if previous is not None and self.clock() < previous.expires_at:
                return self.materialize(origin, previous, from_cache=True)
            leased = self._lease(origin)  # None: the store has no leases
            try:
                if leased is False:
                    peer, leased = self._wait_for_peer(origin, previous)
                    if peer is not None:
                        return self.materialize(origin, peer, from_cache=True)
                result = self._fetch(origin)
                entry = self.settle(previous, result)
                self._store_set(origin, entry)
            finally:
                if leased:
                    self._release(origin)
            return self.materialize(origin, entry, from_cache=False)

    def is_allowed(self, url: str, *, user_agent: str | None = None) -> bool:
        """May ``user_agent`` (default: the client's product token) fetch ``url``?"""
        return self.rules_for(url).is_allowed(url, user_agent=self.ua(user_agent))

    def explain(self, url: str, *, user_agent: str | None = None) -> Verdict:
        """Why ``url`` is allowed or not: the deciding rule, or the HTTP outcome."""
        return self.rules_for(url).explain(url, user_agent=self.ua(user_agent))

    def crawl_delay(self, url: str, *, user_agent: str | None = None) -> float | None:
        """The ``Crawl-delay`` for ``user_agent`` at ``url``'s origin (None if none)."""
        return self.rules_for(url).rules.crawl_delay(user_agent=self.ua(user_agent))

    def request_rate(self, url: str, *, user_agent: str | None = None) -> RequestRate | None:
        """The ``Request-rate`` for ``user_agent`` at ``url``'s origin (None if none)."""
        return self.rules_for(url).rules.request_rate(user_agent=self.ua(user_agent))

    def sitemaps(self, url_or_origin: str) -> list[str]:
        """The ``Sitemap`` URLs listed in the origin's robots.txt."""
        return list(self.rules_for(url_or_origin).rules.sitemaps)

    def forget(self, url_or_origin: str) -> None:
        """Drop the origin from this client's memory and from the store (next call fetches)."""
        origin = origin_of(url_or_origin)
        self.memo_drop(origin)
        try:
            self.store.delete(origin)
        except Exception as exc:
            self.store_failed(exc, "delete")

    def close(self) -> None:
        """Close the HTTP client and store this client created (not ones passed in)."""
        if self._workers is not None:
            self._workers.shutdown(wait=False, cancel_futures=True)
        if self._own_http:
            self.http.close()
        if self._own_store:
            self.store.close()

    def __enter__(self) -> RobotsClient:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- I/O -------------------------------------------------------------------------------

    def _fetch(self, origin: str) -> P.AttemptResult:
        """Fetch within the total timeout, whatever the server does.

        httpx times each socket read, so a server trickling its headers a byte at a time
        could hold a request far past the total. The request runs on a small worker pool and
        the caller waits at most the total (plus a little): a worker held by such a server is
        left to finish on its own, and its late answer is dropped.
        """
        pool = self._workers
        if pool is None:
            with self._workers_lock:
                pool = self._workers
                if pool is None:
                    pool = self._workers = ThreadPoolExecutor(
                        max_workers=_WORKERS, thread_name_prefix="robotrules-fetch")
        future = pool.submit(self._fetch_now, origin)
        try:
            return future.result(timeout=self.timeout + _GRACE)
        except FutureTimeout:
            attempt = self.new_attempt(origin)
            attempt.on_error("timeout")
            assert attempt.result is not None
            return attempt.result

    def _fetch_now(self, origin: str) -> P.AttemptResult:
        attempt = self.new_attempt(origin)
        deadline = time.monotonic() + self.timeout
        headers = self.request_headers()
        while attempt.result is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                attempt.on_error("timeout")
                break
            limits = httpx.Timeout(remaining, connect=min(self.connect_timeout, remaining))
            try:
                with self.http.stream(
                    "GET", attempt.url, headers=headers, timeout=limits, follow_redirects=False
                ) as response:
                    if attempt.on_response(response.status_code, response.headers) != "read-body":
                        continue
                    complete = True
                    if response.is_stream_consumed:  # already read by the client
                        attempt.body_already_decoded()
                        chunks: Iterable[bytes] = (response.content,)
                    else:
                        chunks = response.iter_raw()
                    for chunk in chunks:
                        if attempt.feed(chunk):
                            complete = False
                            break
                        if time.monotonic() > deadline:
                            attempt.on_error("timeout")
                            break
                    if attempt.result is None:
                        attempt.on_body_end(complete=complete)
            except (httpx.HTTPError, httpx.InvalidURL, OSError) as exc:
                attempt.on_error(describe_exception(exc))
        assert attempt.result is not None
        return attempt.result

    def _store_get(self, origin: str) -> CacheEntry | None:
        try:
            entry = self.store.get(origin)
        except Exception as exc:  # a failing store must never make an answer wrong
            self.store_failed(exc, "read")
            return None
        self.store_recovered()
        return entry

    def _store_set(self, origin: str, entry: CacheEntry) -> None:
        try:
            self.store.set(origin, entry, ttl=P.store_ttl(entry, self.clock()))
        except Exception as exc:
            self.store_failed(exc, "write")
        else:
            self.store_recovered()

    def _lease(self, origin: str) -> bool | None:
        try_lease = getattr(self.store, "try_lease", None)
        if try_lease is None or not self._store_ok:
            return None
        try:
            return bool(try_lease(origin, ttl=self.timeout + 5.0))
        except Exception as exc:
            self.store_failed(exc, "lease")
            return None

    def _release(self, origin: str) -> None:
        try:
            self.store.release_lease(origin)  # type: ignore[attr-defined]
        except Exception as exc:
            self.store_failed(exc, "release a lease")

    def _wait_for_peer(
        self, origin: str, previous: CacheEntry | None
    ) -> tuple[CacheEntry | None, bool | None]:
        """Another process holds the fetch lease: wait (bounded) for its result in the store.

        Returns the peer's entry, or None and whether we now hold the lease ourselves.
        """
        deadline = time.monotonic() + self.timeout + 5.0
        while time.monotonic() < deadline:
            time.sleep(_PEER_POLL)
            entry = self._store_get(origin)
            if self.is_news(entry, previous):
                return entry, False
            if not self._store_ok:
                return None, None
            if self._lease(origin):  # the peer gave up or finished between two looks
                entry = self._store_get(origin)
                if self.is_news(entry, previous):
                    self._release(origin)
                    return entry, False
                return None, True
        return None, None
