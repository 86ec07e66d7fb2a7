"""What the sync and async clients share: configuration, cache lookups, verdicts, time budgets.

Everything here is free of network I/O; :mod:`._sync` and :mod:`._async` only send requests,
read bodies and talk to the store (from a thread, for the async client).

The total timeout is a :class:`Budget` whose clock starts when the origin's own request goes
out. A request that waits for a connection from the HTTP client's pool (something other
origins hold) spends nothing: no origin is judged by another's stall.
"""

from __future__ import annotations

import errno
import logging
import socket
import ssl
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType
from typing import Generic, Literal, TypeVar

import httpx

import robotrules
from robotrules import Dialect, RobotsTxt, Verdict, _policy, _tdmrep_policy
from robotrules._origin import origin_of
from robotrules._policy import check_number
from robotrules._token import product_token
from robotrules.aipref import Usage, license_urls, usage_of_verdict
from robotrules.stores._base import CacheEntry, Outcome, Store
from robotrules.stores._memory import MemoryStore

__all__ = ["DEFAULT_USER_AGENT", "FetchedRobots", "FetchedTdmRep"]

FetchedTdmRep = _tdmrep_policy.FetchedTdmRep
R = TypeVar("R")

log = logging.getLogger("robotrules.fetch")

DEFAULT_USER_AGENT = f"robotrules/{robotrules.__version__} (+https://pypi.org/project/robotrules/)"
_MEMO_SIZE = 1024  # parsed files kept per client (the store keeps bytes; parsing costs)
_EMPTY: dict[str, RobotsTxt] = {}


def _empty(dialect: Dialect) -> RobotsTxt:
    if dialect not in _EMPTY:
        _EMPTY[dialect] = robotrules.parse(b"", dialect)
    return _EMPTY[dialect]


@dataclass(frozen=True, slots=True)
class FetchedRobots:
    """One origin's robots.txt and how it was obtained.

    ``outcome`` is ``"rules"`` (a file was fetched and parsed: ``rules`` decides),
    ``"allow-all"`` (unavailable: 4xx, redirect limit; RFC 9309 2.3.1.3) or ``"disallow-all"``
    (unreachable: 5xx, 429, network failure; 2.3.1.4). For the last two ``rules`` is the parse
    of an empty file. ``expires_at`` is when the client will fetch again; ``error`` says why a
    fetch failed (for a stale copy: why the refresh failed); ``failing_since`` is set while the
    origin has been unreachable and an older copy stands in.
    """

    rules: RobotsTxt
    outcome: Outcome
    status: int | None
    robots_url: str
    final_url: str
    redirects: tuple[tuple[str, int], ...]
    fetched_at: float
    expires_at: float
    size: int
    error: str | None
    from_cache: bool
    headers: Mapping[str, str]
    summary: str
    truncated: bool
    failing_since: float | None = None
    origin: str = field(default="", compare=False)

    @property
    def allow_all(self) -> bool:
        return self.outcome == "allow-all"

    @property
    def disallow_all(self) -> bool:
        return self.outcome == "disallow-all"

    def explain(self, url: str, *, user_agent: str) -> Verdict:
        """The verdict for ``url``: the rules', or the HTTP outcome's (line None)."""
        if self.outcome == "rules":
            return self.rules.explain(url, user_agent=user_agent)
        return _policy.outcome_verdict(
            url, allowed=self.outcome == "allow-all", status=self.status,
            failing=self.failing_since is not None, user_agent=user_agent,
            dialect=self.rules.dialect, detail=self.summary)

    def usage(self, url: str, *, user_agent: str) -> Usage:
        """The AI usage preferences of ``url`` under this file (``RobotsTxt.usage``); when the
        file could not be had, only the HTTP outcome's crawl verdict (no preference)."""
        return usage_of_verdict(self.rules, self.explain(url, user_agent=user_agent))

    # -- RSL: where the licences are, and a licence challenge -------------------

    @property
    def licenses(self) -> tuple[str, ...]:
        """RSL licence URLs: the file's ``License:`` lines (resolved against the robots.txt
        URL) and the response's ``Link: <...>; rel="license"`` headers
        (:func:`robotrules.aipref.license_urls`)."""

        return license_urls(self.rules, self.headers, self.final_url or self.robots_url)

    @property
    def licence_required(self) -> str | None:
        """Set when the robots.txt answer was a 401/402 with ``WWW-Authenticate: License``
        (RSL 1.0): "licence required", not a generic failure."""
        return _policy.license_challenge(self.status, self.headers)

    def is_allowed(self, url: str, *, user_agent: str) -> bool:
        if self.outcome == "rules":
            return self.rules.is_allowed(url, user_agent=user_agent)
        return self.outcome == "allow-all"


_SSL_LOCK = threading.Lock()
_SSL: list[ssl.SSLContext] = []


def default_ssl_context() -> ssl.SSLContext:
    """One verifying SSL context for every client this process creates.

    Loading the CA bundle costs ~0.3 s; a context is safe to share between connections and
    threads, so clients created later (one per worker, per test) reuse it.
    """
    with _SSL_LOCK:
        if not _SSL:
            _SSL.append(httpx.create_ssl_context())
        return _SSL[0]


class Budget:
    """The total timeout of one fetch (all its redirects), not spent while waiting for a slot.

    The clock starts when the fetch's first request goes on the wire and runs until the fetch
    ends, except while a request waits for a connection from the HTTP client's pool: that wait
    is not the origin's doing and costs it nothing. The shell calls :meth:`start_hop` before
    each request. For a transport that reports its progress (httpcore's ``trace`` extension:
    the first event of a request is its connect, or its request head on a reused connection)
    the clock stops there and restarts at that first event, :meth:`on_wire`. A transport that
    reports nothing is timed from the call (``counting=True``). Pure arithmetic: the caller
    supplies ``now`` (monotonic seconds) and, in threads, the lock.
    """

    __slots__ = ("_on_wire", "_since", "_spent", "_waiting", "total")

    def __init__(self, total: float) -> None:
        self.total = total
        self._spent = 0.0  # counted before ``_since``
        self._since: float | None = None  # the clock runs from here (None: stopped)
        self._waiting = False  # the running request waits to go on the wire
        self._on_wire = False  # the running request has shown itself on the network

    def start_hop(self, now: float, *, counting: bool) -> None:
        if self._since is not None:
            self._spent += now - self._since
        self._since = now if counting else None
        self._waiting = not counting
        self._on_wire = False

    def on_wire(self, now: float) -> bool:
        """The request is on the network: count from now. True on the request's first call."""
        if self._on_wire:
            return False
        self._on_wire = True
        self._waiting = False
        self._since = now  # the wait since start_hop (for the pool) is refunded
        return True

    def left(self, now: float) -> float | None:
        """Seconds left; None while a request waits to go on the wire (the clock is stopped)."""
        if self._waiting:
            return None
        running = 0.0 if self._since is None else now - self._since
        return self.total - self._spent - running


def _errno_is(e: BaseException, code: int) -> bool:
    return getattr(e, "errno", None) == code


# How a transport failure is named, from the most to the least certain evidence. First the
# exception types and errno values anywhere in the cause chain (the chain's order first, then
# this table's); then, for libraries that only say it in words (httpx, h11, anyio), the words
# of the whole chain: a timeout, then this table's phrases in order.
_BY_TYPE: tuple[tuple[str, Callable[[BaseException], bool]], ...] = (
    ("connection refused", lambda e: isinstance(e, ConnectionRefusedError)
     or _errno_is(e, errno.ECONNREFUSED)),
    ("connection reset", lambda e: isinstance(e, ConnectionResetError)
     or _errno_is(e, errno.ECONNRESET)),
    ("DNS failure", lambda e: isinstance(e, socket.gaierror)),
    ("TLS error", lambda e: isinstance(e, ssl.SSLError)),
)
_BY_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # fewer bytes than Content-Length, or chunks cut short
    ("incomplete body", ("without sending complete message body",)),
    ("broken chunked encoding", ("chunk",)),
    ("no response", ("without sending a response",)),
    ("invalid response", ("illegal status line", "illegal header", "invalid")),
    ("connection refused", ("refused",)),
    ("connection reset", ("reset",)),
    ("DNS failure", ("name or service", "nodename", "getaddrinfo")),
    ("TLS error", ("ssl", "certificate", "tls")),
    ("incomplete body", ("incomplete", "peer closed")),
)


def _cause_chain(exc: BaseException, limit: int = 8) -> list[BaseException]:
    chain: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and len(chain) < limit:
        chain.append(cur)
        cur = cur.__cause__ or cur.__context__
    return chain


def describe_exception(exc: BaseException) -> str:
    """Transport failures in a few stable words ("connection refused", "timeout" ...)."""
    chain = _cause_chain(exc)
    for e in chain:
        if getattr(e, "robotrules_refused", False):  # the address guard (fetch/_guard.py)
            return f"refused: {e}"
        for words, test in _BY_TYPE:
            if test(e):
                return words
    name = type(exc).__name__
    text = " ".join(str(e) for e in chain).lower()
    if "timeout" in name.lower() or "timed out" in text:
        return "timeout"
    for words, phrases in _BY_WORDS:
        if any(p in text for p in phrases):
            return words
    return "protocol error" if name == "RemoteProtocolError" else f"network error ({name})"


@dataclass(frozen=True, slots=True)
class Resource(Generic[R]):
    """One kind of per-origin file the clients fetch and cache (robots.txt, tdmrep.json): how
    to key it in the store, read this client's memory, build and settle its fetch. The shells'
    single-flight lookup (``_cached``) is written once over this."""

    key: Callable[[str], str]  # origin -> store and lock key
    fresh: Callable[[str, float], R | None]  # (origin, now) -> the remembered answer, if fresh
    last_entry: Callable[[str], CacheEntry | None]  # origin -> last entry seen (store failing)
    materialize: Callable[[str, CacheEntry, bool], R]  # (origin, entry, from_cache) -> answer
    attempt: Callable[[str], _policy.Attempt]
    settle: Callable[[CacheEntry | None, _policy.AttemptResult], CacheEntry]


class BaseClient:
    """Configuration and every decision shared by :class:`RobotsClient` and its async twin."""

    def __init__(
        self,
        *,
        user_agent: str,
        store: Store | None,
        clock: Callable[[], float] | None,
        dialect: Dialect,
        max_bytes: int,
        connect_timeout: float,
        timeout: float,
        auth_failure: Literal["allow", "disallow"],
        max_redirects: int,
        long_outage: Literal["disallow", "allow"],
        min_ttl: float = _policy.MIN_TTL,
    ) -> None:
        # Every number is checked by name: a NaN timeout compares false with everything and
        # once turned every fetch into "timeout: disallow all", cached for the next run.
        check_number("max_bytes", max_bytes, minimum=1, integer=True)
        check_number("max_redirects", max_redirects, integer=True)
        check_number("timeout", timeout, allow_zero=False)
        check_number("connect_timeout", connect_timeout, allow_zero=False)
        check_number("min_ttl", min_ttl)
        if min_ttl > _policy.MAX_TTL:
            raise ValueError(f"min_ttl must be at most {_policy.MAX_TTL:g} s (RFC 9309 2.4: 24 h), "
                             f"got {min_ttl!r}")
        if max_bytes < _policy.DEFAULT_MAX_BYTES:
            # RFC 9309 2.5: the parsing limit MUST be at least 500 KiB. Smaller limits are
            # still accepted (tests, embedded use), but they are not conformant.
            log.debug("max_bytes=%d is below RFC 9309's 500 KiB minimum", max_bytes)
        if auth_failure not in ("allow", "disallow"):
            raise ValueError("auth_failure must be 'allow' or 'disallow'")
        if long_outage not in ("allow", "disallow"):
            raise ValueError("long_outage must be 'allow' or 'disallow'")
        robotrules.parse(b"", dialect)  # validates the dialect now rather than on first use
        self.user_agent = user_agent
        self.token = product_token(user_agent)
        self._own_store = store is None
        self.store: Store = store if store is not None else MemoryStore()
        self.clock: Callable[[], float] = clock or time.time
        self.dialect: Dialect = dialect
        self.max_bytes = max_bytes
        self.connect_timeout = connect_timeout
        self.timeout = timeout
        self.auth_failure: Literal["allow", "disallow"] = auth_failure
        self.max_redirects = max_redirects
        self.long_outage: Literal["disallow", "allow"] = long_outage
        self.min_ttl = float(min_ttl)
        self._memo: OrderedDict[str, tuple[CacheEntry, FetchedRobots]] = OrderedDict()
        self._memo_lock = threading.Lock()
        self._store_ok = True
        self._tdm_memo: OrderedDict[
            str, tuple[CacheEntry, _tdmrep_policy.FetchedTdmRep]] = OrderedDict()

    # -- request ----------------------------------------------------------------------------

    def request_headers(self) -> dict[str, str]:
        return {
            "User-Agent": self.user_agent,
            "Accept": "text/plain, */*;q=0.5",
            "Accept-Encoding": "gzip, deflate, br",
        }

    def new_attempt(self, origin: str) -> _policy.Attempt:
        return _policy.Attempt(
            origin,
            max_bytes=self.max_bytes,
            max_redirects=self.max_redirects,
            auth_failure=self.auth_failure,
        )

    # -- cache --------------------------------------------------------------------------------

    def memo_fresh(self, origin: str, now: float) -> FetchedRobots | None:
        with self._memo_lock:
            item = self._memo.get(origin)
            if item is None or now >= item[1].expires_at:
                return None
            self._memo.move_to_end(origin)
        return item[1]  # stored with from_cache=True

    def memo_entry(self, origin: str) -> CacheEntry | None:
        """The last entry this client saw for ``origin`` (stands in when the store fails)."""
        with self._memo_lock:
            item = self._memo.get(origin)
        return None if item is None else item[0]

    def materialize(self, origin: str, entry: CacheEntry, *, from_cache: bool) -> FetchedRobots:
        """Entry -> FetchedRobots, reusing the parse of an identical earlier body."""
        with self._memo_lock:
            old = self._memo.get(origin)
        if entry.outcome != "rules":
            rules = _empty(self.dialect)
        elif (old is not None and old[0].outcome == "rules" and old[0].body == entry.body
              and old[0].final_url == entry.final_url):
            rules = old[1].rules
        else:
            rules = robotrules.parse(entry.body, self.dialect, url=entry.final_url)
        fr = FetchedRobots(
            rules=rules,
            outcome=entry.outcome,
            status=entry.status,
            robots_url=entry.robots_url,
            final_url=entry.final_url,
            redirects=entry.redirects,
            fetched_at=entry.fetched_at,
            expires_at=entry.expires_at,
            size=len(entry.body),
            error=entry.error,
            from_cache=from_cache,
            headers=MappingProxyType(dict(entry.headers)),
            summary=entry.summary,
            truncated=entry.truncated,
            failing_since=entry.failing_since,
            origin=origin,
        )
        with self._memo_lock:
            self._memo[origin] = (entry, fr if from_cache else replace(fr, from_cache=True))
            self._memo.move_to_end(origin)
            while len(self._memo) > _MEMO_SIZE:
                self._memo.popitem(last=False)
        return fr

    def memo_drop(self, origin: str) -> None:
        with self._memo_lock:
            self._memo.pop(origin, None)
            self._tdm_memo.pop(origin, None)

    def is_news(self, entry: CacheEntry | None, previous: CacheEntry | None) -> bool:
        """Did another process store a fresh entry since we looked (``previous``)?"""
        if entry is None or self.clock() >= entry.expires_at:
            return False
        return previous is None or (entry.fetched_at, entry.expires_at) != (
            previous.fetched_at, previous.expires_at
        )

    def store_failed(self, exc: BaseException, action: str) -> None:
        if self._store_ok:
            log.warning(
                "robots.txt cache store %r failed to %s (%s); fetching without it until it "
                "recovers", self.store, action, exc,
            )
        else:
            log.debug("store still failing to %s: %s", action, exc)
        self._store_ok = False

    def store_recovered(self) -> None:
        if not self._store_ok:
            log.info("robots.txt cache store %r works again", self.store)
        self._store_ok = True

    def settle(self, previous: CacheEntry | None, result: _policy.AttemptResult) -> CacheEntry:
        return _policy.settle(previous, result, self.clock(), long_outage=self.long_outage,
                        min_ttl=self.min_ttl)

    def ua(self, user_agent: str | None) -> str:
        return self.token if user_agent is None else user_agent

    # -- the two cached files -------------------------------------------------------------

    # Built once per client (rules_for is the hot path); a race between two first calls
    # builds two equal objects, one of which is kept.
    @cached_property
    def robots_resource(self) -> Resource[FetchedRobots]:
        return Resource(
            key=lambda origin: origin,
            fresh=self.memo_fresh,
            last_entry=self.memo_entry,
            materialize=lambda o, e, c: self.materialize(o, e, from_cache=c),
            attempt=self.new_attempt,
            settle=self.settle,
        )

    @cached_property
    def tdmrep_resource(self) -> Resource[_tdmrep_policy.FetchedTdmRep]:
        return Resource(
            key=_tdmrep_policy.tdmrep_key,
            fresh=self.tdm_memo_fresh,
            last_entry=self.tdm_memo_entry,
            materialize=self.tdm_materialize,
            attempt=self.new_tdmrep_attempt,
            settle=lambda previous, result: _tdmrep_policy.with_summary(
                self.settle(previous, result)),
        )

    # -- TDMRep ---------------------------------------------------------------------------

    def new_tdmrep_attempt(self, origin: str) -> _policy.Attempt:
        """Same size cap and redirect limit as robots.txt (TDMRep asks for no others)."""
        return _tdmrep_policy.TdmRepAttempt(origin, max_bytes=self.max_bytes,
                               max_redirects=self.max_redirects)

    def tdm_memo_fresh(self, origin: str, now: float) -> _tdmrep_policy.FetchedTdmRep | None:
        with self._memo_lock:
            item = self._tdm_memo.get(origin)
            if item is None or now >= item[1].expires_at:
                return None
            self._tdm_memo.move_to_end(origin)
        return item[1]

    def tdm_memo_entry(self, origin: str) -> CacheEntry | None:
        with self._memo_lock:
            item = self._tdm_memo.get(origin)
        return None if item is None else item[0]

    def tdm_materialize(self, origin: str, entry: CacheEntry, from_cache: bool
                        ) -> _tdmrep_policy.FetchedTdmRep:
        """Entry -> FetchedTdmRep (parsed once per entry: the memo keeps the parse)."""
        with self._memo_lock:
            old = self._tdm_memo.get(origin)
        if old is not None and old[0] == entry:
            fetched = replace(old[1], from_cache=from_cache)
        else:
            fetched = _tdmrep_policy.interpret(origin, entry, from_cache=from_cache)
            if fetched.outcome == "none" and fetched.error and fetched.status is not None \
                    and 200 <= fetched.status < 300:
                log.warning("%s: %s", fetched.url, fetched.error)
        with self._memo_lock:
            self._tdm_memo[origin] = (entry, replace(fetched, from_cache=True))
            self._tdm_memo.move_to_end(origin)
            while len(self._tdm_memo) > _MEMO_SIZE:
                self._tdm_memo.popitem(last=False)
        return fetched

    def combine_usage(self, fr: FetchedRobots, tdm: _tdmrep_policy.FetchedTdmRep | None, url: str,
                      user_agent: str | None,
                      headers: Mapping[str, str] | None) -> Usage:
        return _tdmrep_policy.combine_usage(fr.usage(url, user_agent=self.ua(user_agent)), url,
                                            tdm, headers)


#: The longest Crawl-delay the crawler shells hand their framework's throttling, in seconds (the
#: pacer's default cap, as Nutch and StormCrawler): a longer one is capped and logged once.
MAX_CRAWL_DELAY = 30.0


class OutageLog:
    """Says once per origin and outage that its robots.txt is unreachable, with the reason and
    what follows (the crawler shells: :mod:`robotrules.crawlee`, :mod:`robotrules.scrapy`).
    An outage is one ``failing_since``; an answer that is not failing ends it."""

    def __init__(self, log: logging.Logger) -> None:
        self.log = log
        self._outages: dict[str, float] = {}  # origin -> failing_since of the outage logged

    def note(self, fetched: FetchedRobots) -> None:
        origin = fetched.origin or origin_of(fetched.robots_url)
        if fetched.failing_since is None:
            self._outages.pop(origin, None)
            return
        if self._outages.get(origin) == fetched.failing_since:
            return
        self._outages[origin] = fetched.failing_since
        if fetched.disallow_all:
            what = "every URL of it is skipped (RFC 9309 2.3.1.4)"
        else:
            what = "its last good copy stands in (RFC 9309 2.4)"
        retry = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(fetched.expires_at))
        self.log.warning("robots.txt of %s is unreachable (%s): %s; next try at %s", origin,
                         fetched.summary, what, retry)
