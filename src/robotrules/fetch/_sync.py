"""The synchronous client: drives :mod:`robotrules._policy` with an ``httpx.Client``.

Concurrency. Callers for one origin queue on that origin's lock (and, across processes, on the
store's lease), so one request is sent and its answer shared. Callers for distinct origins
never wait for each other: each fetch runs in a thread of its own, started when the fetch
starts; there is no fixed pool for a few stalled origins to fill. The thread count is the
callers' own concurrency (each caller blocks on its fetch).

Why a thread and not the caller's own: httpx times each socket read, so a server trickling
its headers a byte at a time could hold a request far past the total timeout. The caller
watches the fetch's :class:`~._common.Budget`; when it runs out, the caller shuts the fetch's
socket down (so the worker ends at once and its connection is released) and returns
"timeout". Where no socket can be reached (a transport that reports no connections, a
connection an injected client reused, a name lookup) the worker is left to end on its own, its
late answer dropped; the caller still returns on time.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from functools import partial
from types import TracebackType
from typing import Any, Literal

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


_GRACE = 1.0  # seconds a cut-off worker gets to report before it is abandoned


class _Flight:
    """One fetch in flight: its budget, its sockets, its result, shared by worker and caller.

    The worker reports progress (httpcore's trace events, which also hand over each new
    connection's stream) and finally its result; the caller waits for the result until the
    budget runs out, then cuts the sockets. One condition guards it all.
    """

    def __init__(self, client: RobotsClient, total: float) -> None:
        self._client = client
        self._cond = threading.Condition()
        self._budget = Budget(total)
        self._streams: list[Any] = []  # httpcore network streams opened for this fetch
        self.cut = False  # the caller shut the sockets down: any error now means "timeout"
        self.result: _policy.AttemptResult | None = None
        self.error: BaseException | None = None  # a bug, not a network failure: re-raised

    # -- worker side --

    # The caller is woken only when its clock starts (it was waiting with no deadline). A
    # deadline that moves later needs no wake-up: the caller looks again when the old one
    # passes.

    def start_hop(self) -> float:
        """Before each request: the seconds left for it (a pool wait will be refunded)."""
        with self._cond:
            now = time.monotonic()
            left = self._budget.left(now)
            self._budget.start_hop(now, counting=not self._client._traced)
            return self._budget.total if left is None else left

    def on_wire(self) -> None:
        with self._cond:
            self._on_wire()

    def _on_wire(self) -> None:
        waiting = self._budget.left(time.monotonic()) is None
        if self._budget.on_wire(time.monotonic()) and waiting:
            self._cond.notify_all()

    def expired(self) -> bool:
        with self._cond:
            left = self._budget.left(time.monotonic())
        return left is not None and left <= 0

    def trace(self, name: str, info: Mapping[str, Any]) -> None:
        """httpcore's trace hook: the request is on the wire; keep each new stream."""
        self._client._traced = True
        stream = info.get("return_value")
        with self._cond:
            self._on_wire()
            if hasattr(stream, "get_extra_info"):  # connect_tcp / start_tls completed
                self._streams.append(stream)
                if self.cut:  # connected just as the caller gave up
                    _shut(stream)

    def run(self, fetch: Callable[[_Flight], _policy.AttemptResult]) -> None:
        """The worker thread's body: the result, or the exception, goes to the caller."""
        try:
            result = fetch(self)
        except BaseException as exc:  # the caller re-raises it: never a silent "timeout"
            with self._cond:
                self.error = exc
                self._cond.notify_all()
        else:
            with self._cond:
                self.result = result
                self._cond.notify_all()

    def _done(self) -> bool:
        return self.result is not None or self.error is not None

    # -- caller side --

    def wait(self) -> _policy.AttemptResult | None:
        """The worker's result; or, once the budget is spent, cut and give it a moment."""
        with self._cond:
            while not self._done():
                left = self._budget.left(time.monotonic())
                if left is not None and left <= 0:
                    break
                self._cond.wait(left)  # None: until the request goes on the wire
            if not self._done():
                self.cut = True
                for stream in self._streams:
                    _shut(stream)
                end = time.monotonic() + _GRACE
                while not self._done() and (rest := end - time.monotonic()) > 0:
                    self._cond.wait(rest)
            if self.error is not None:
                raise self.error
            return self.result


def _shut(stream: Any) -> None:
    """Shut a connection down under a thread blocked reading it (it wakes with EOF)."""
    sock = stream.get_extra_info("socket")
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            # socket.socket's own shutdown: an SSLSocket's would also drop its TLS state,
            # which the blocked worker is still using
            socket.socket.shutdown(sock, socket.SHUT_RDWR)


class RobotsClient(BaseClient):
    """Fetches, caches and applies robots.txt files (RFC 9309 2.3, 2.4), synchronously.

    Thread-safe: many threads asking about one origin at once cause exactly one request.
    ``user_agent`` is the User-Agent header sent; its leading product token (``robotrules``
    for the default) is the agent matched when a call gives no ``user_agent``. ``guard``:
    the address guard of the client's own connections (:mod:`robotrules.fetch._guard`; a
    fetch that starts on a public origin reaches public addresses only;
    ``AddressGuard(allow_private=True)`` for internal crawlers).
    """

    def __init__(
        self,
        *,
        user_agent: str = DEFAULT_USER_AGENT,
        store: Store | None = None,
        http_client: httpx.Client | None = None,
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
        self.http = http_client if http_client is not None else httpx.Client(
            follow_redirects=False, headers={"User-Agent": user_agent},
            transport=(guard or AddressGuard()).transport(default_ssl_context()),
        )
        # Does the transport report progress (httpcore's trace)? Ours does; an injected
        # client's is learned from its first event. Until then its pool waits are counted.
        self._traced = self._own_http
        self._locks = _KeyedLocks()

    # -- public API ---------------------------------------------------------------------------

    def rules_for(self, url: str) -> FetchedRobots:
        """The robots.txt governing ``url`` (from the cache, or fetched now)."""
        return self._cached(origin_of(url), self.robots_resource)

    def tdmrep_for(self, url: str) -> FetchedTdmRep:
        """The origin's ``/.well-known/tdmrep.json`` (W3C TDMRep), fetched and cached like
        robots.txt; ``policy`` is None when the origin has no usable file."""
        return self._cached(origin_of(url), self.tdmrep_resource)

    def usage(self, url: str, *, user_agent: str | None = None,
              headers: Mapping[str, str] | None = None) -> Usage:
        """What ``user_agent`` may do with ``url``: robots.txt (``RobotsTxt.usage``), the
        origin's TDMRep file and the page's own response ``headers`` (``Content-Usage``,
        ``tdm-reservation``; the caller's response, this client fetches no page), combined
        most-restrictively. The TDMRep file is fetched only when the crawl is allowed."""
        fr = self.rules_for(url)
        tdm = self.tdmrep_for(url) if fr.is_allowed(url, user_agent=self.ua(user_agent)) \
            else None
        return self.combine_usage(fr, tdm, url, user_agent, headers)

    def _cached(self, origin: str, kind: Resource[R]) -> R:
        """One origin's file from memory, the store, a peer process, or fetched now; one
        request per origin and file at a time (a lock here, the store's lease across
        processes)."""
        hit = kind.fresh(origin, self.clock())
        if hit is not None:
            return hit
        key = kind.key(origin)
        with self._locks.hold(key):
            hit = kind.fresh(origin, self.clock())  # a thread ahead of us fetched it
            if hit is not None:
                return hit
            previous = self._store_get(key) or kind.last_entry(origin)
            if previous is not None and self.clock() < previous.expires_at:
                return kind.materialize(origin, previous, True)
            leased = self._lease(key)  # None: the store has no leases
            try:
                if leased is False:
                    peer, leased = self._wait_for_peer(key, previous)
                    if peer is not None:
                        return kind.materialize(origin, peer, True)
                result = self._fetch(origin, kind.attempt)
                entry = kind.settle(previous, result)
                self._store_set(key, entry)
            finally:
                if leased:
                    self._release(key)
            return kind.materialize(origin, entry, False)

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
        """Drop the origin (robots.txt and tdmrep.json) from this client's memory and from the
        store (next call fetches)."""
        origin = origin_of(url_or_origin)
        self.memo_drop(origin)
        try:
            self.store.delete(origin)
            self.store.delete(tdmrep_key(origin))
        except Exception as exc:
            self.store_failed(exc, "delete")

    def close(self) -> None:
        """Close the HTTP client and store this client created (not ones passed in)."""
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

    def _fetch(self, origin: str, make: Callable[[str], _policy.Attempt] | None = None
               ) -> _policy.AttemptResult:
        """Fetch within the total timeout, whatever the server does (see the module doc).
        ``make`` builds the attempt (default: robots.txt's)."""
        make = make or self.new_attempt
        flight = _Flight(self, self.timeout)
        worker = threading.Thread(
            target=flight.run, args=(partial(self._fetch_now, origin, make),), daemon=True,
            name=f"robotrules-fetch {origin}",
        )
        worker.start()
        result = flight.wait()
        if result is None:  # cut off, and its transport could not be reached: abandoned
            attempt = make(origin)
            attempt.on_error("timeout")
            assert attempt.result is not None
            result = attempt.result
        return result

    def _fetch_now(self, origin: str, make: Callable[[str], _policy.Attempt], flight: _Flight
                   ) -> _policy.AttemptResult:
        attempt = make(origin)
        headers = self.request_headers()
        # the address guard's note on this fetch (did it start on a public origin?), every hop
        extensions: dict[str, Any] = {"trace": flight.trace, GUARD_EXTENSION: {}}
        while attempt.result is None:
            left = flight.start_hop()
            if left <= 0:
                attempt.on_error("timeout")
                break
            # no pool timeout: waiting for a connection is not the origin's fault, and the
            # waits end as the fetches holding connections end (each within its own budget)
            limits = httpx.Timeout(left, connect=min(self.connect_timeout, left), pool=None)
            try:
                with self.http.stream(
                    "GET", attempt.url, headers=headers, timeout=limits, follow_redirects=False,
                    extensions=extensions,
                ) as response:
                    flight.on_wire()  # a transport that reports nothing: counted from the call
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
                        if flight.expired():
                            attempt.on_error("timeout")
                            break
                    if attempt.result is None:
                        attempt.on_body_end(complete=complete)
            except (httpx.HTTPError, httpx.InvalidURL, OSError) as exc:
                # after the caller's cut, whatever broke was broken by the deadline
                attempt.on_error("timeout" if flight.cut else describe_exception(exc))
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
            self.store.set(origin, entry, ttl=_policy.store_ttl(entry, self.clock()))
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
