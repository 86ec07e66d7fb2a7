"""The guard with its look-ups: :class:`Guard`, the decision core (:mod:`.core`) given a clock,
its files, and the two drivers of its one decision flow.

- ``check`` / ``check_request`` drive the flow synchronously: the look-ups it yields run in the
  guard's own worker threads (:class:`Lookups`), and the caller waits for them at most
  ``timeout`` seconds in all;
- ``acheck`` / ``acheck_request`` drive the same flow from asyncio: the same workers, awaited
  without blocking the event loop.

A look-up still running when the wait ends goes on and caches its answer for the next request
(one per key at a time). At most ``max_lookups`` look-ups wait or run at once; past that a
look-up is refused, and the flow treats the claim it was for by the strictest state
(:mod:`.core`). Each decision a shell makes is logged to the ``robotrules.guard`` logger: a
violation or a spoofed claim at WARNING (what was done, or in observe mode what would have
been done, with the robots.txt line), any other crawler request at INFO. Python prints
WARNING records to stderr even when the application configured no logging.

Threading: one guard serves many threads and one event loop at once.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import RobotsTxt, parse
from .audit import Tally
from .core import Answer, Decision, GuardCore, Mode, Pending, Request, adrive, drive
from .peer import ForwardedHeader, TrustedProxies
from .policy import Policy
from .ranges import RangeStore

if TYPE_CHECKING:
    from .. import RobotsTxt
    from .rdns import ReverseDns
    from .webbotauth import WebBotAuth

__all__ = ["Guard", "Lookups", "answer", "attach", "load_robots", "log", "log_decision", "own_file"]

log = logging.getLogger("robotrules.guard")


def load_robots(robots: str | bytes | Path | RobotsTxt | None, dialect: str
                ) -> tuple[RobotsTxt, bytes]:
    """The parsed file and the exact bytes it was parsed from (served at ``/robots.txt``):
    ``robots`` is text, bytes, a file's path, a parsed file or ``None`` (an empty file)."""

    if isinstance(robots, RobotsTxt):
        return robots, robots.source()
    body: bytes
    if robots is None:
        body = b""
    elif isinstance(robots, Path) or (isinstance(robots, str) and "\n" not in robots
                                      and len(robots) < 4096 and Path(robots).is_file()):
        body = Path(robots).read_bytes()
    elif isinstance(robots, str) and "\n" not in robots and ":" not in robots:
        # one line without a field: a file name that is not there, not a robots.txt
        raise FileNotFoundError(f"no such robots.txt file: {robots}")
    else:
        body = robots.encode("utf-8") if isinstance(robots, str) else bytes(robots)
    return parse(body, dialect), body  # type: ignore[arg-type]


class Lookups:
    """The guard's own look-ups: ``run`` in ``executor`` (default: a pool of ``workers``
    threads), one per :class:`Pending` at a time, at most ``limit`` waiting or running."""

    def __init__(self, run: Callable[[Pending], object], *,
                 executor: cf.Executor | None = None, workers: int = 4,
                 limit: int = 64) -> None:
        self._run = run
        self._executor = executor
        self._workers = workers
        self.limit = limit
        self._running: dict[Pending, cf.Future[object]] = {}
        self._lock = threading.Lock()

    def submit(self, p: Pending) -> cf.Future[object] | None:
        """The running look-up for ``p``, started if need be; ``None`` when ``limit`` are
        already waiting or running (refused)."""
        with self._lock:
            fut = self._running.get(p)
            if fut is not None:
                return fut
            if len(self._running) >= self.limit:
                return None
            if self._executor is None:
                self._executor = cf.ThreadPoolExecutor(self._workers,
                                                       thread_name_prefix="robotrules-guard")
            fut = self._executor.submit(self._safe, p)
            self._running[p] = fut
        # outside the lock: a look-up already done calls back here, at once
        fut.add_done_callback(partial(self._forget, p))
        return fut

    def _safe(self, p: Pending) -> object:
        try:
            return self._run(p)
        except Exception:  # a look-up's own failure is no answer, never the guard's
            log.exception("robotrules guard: look-up %s %s failed", p.kind, p.key)
            return None

    def _forget(self, p: Pending, fut: cf.Future[object]) -> None:
        with self._lock:
            if self._running.get(p) is fut:
                del self._running[p]

    def __len__(self) -> int:
        return len(self._running)

    def start(self, pending: Iterable[Pending]
              ) -> dict[Pending, cf.Future[object] | None]:
        return {p: self.submit(p) for p in pending}

    @staticmethod
    def answers(started: Mapping[Pending, cf.Future[object] | None]
                ) -> dict[Pending, Answer]:
        return {p: "refused" if f is None else "answered" if f.done() else "late"
                for p, f in started.items()}

    def wait(self, pending: Iterable[Pending], timeout: float | None
             ) -> dict[Pending, Answer]:
        """Start ``pending`` and wait for them at most ``timeout`` seconds in all."""
        started = self.start(pending)
        live = [f for f in started.values() if f is not None]
        if live:
            cf.wait(live, timeout=timeout)
        return self.answers(started)

    async def await_(self, pending: Iterable[Pending], timeout: float | None
                     ) -> dict[Pending, Answer]:
        """:meth:`wait` without blocking the event loop."""
        import asyncio

        started = self.start(pending)
        live = [asyncio.wrap_future(f) for f in started.values() if f is not None]
        if live:
            await asyncio.wait(live, timeout=timeout)
        return self.answers(started)

    def close(self) -> None:
        if isinstance(self._executor, cf.ThreadPoolExecutor):
            self._executor.shutdown(wait=False, cancel_futures=True)


class Guard(GuardCore):
    """The site guard. ``robots`` is the site's robots.txt (text, bytes, a path, or a parsed
    :class:`robotrules.RobotsTxt`); ``mode`` ``observe`` (default) or ``enforce``; ``policy``
    a :class:`Policy`; ``trusted_proxies`` the networks whose ``forwarded_header``
    (``x-forwarded-for``, the default; ``forwarded``; ``x-real-ip``) is believed;
    ``ranges`` a :class:`RangeStore` (default: the lists saved by ``robotrules agents ranges
    --refresh``); ``rdns`` a :class:`~.rdns.ReverseDns` (``None``: no reverse DNS checks);
    ``authorities`` this site's own host names (``example.com``, ``www.example.com:8443``):
    Web Bot Auth is on when they are given (a signature must be made for one of them);
    ``web_bot_auth`` a :class:`~.webbotauth.WebBotAuth` of your own (needs ``authorities``
    too); ``signature_agents`` extra ``token -> agent origin`` pairs (over the registry's);
    ``tdmrep`` the body to serve at ``/.well-known/tdmrep.json``; ``vocabulary`` the AIPREF
    vocabulary the preference headers follow; ``on_decision`` a callable given every
    decision (the shells' report hook); ``clock`` the time (``time.time``); ``executor``,
    ``lookup_workers``, ``max_lookups`` the look-ups' threads and how many may wait;
    ``memo_bytes`` the memory the path memo may hold.
    """

    def __init__(self, robots: str | bytes | Path | RobotsTxt | None = None, *,
                 mode: Mode = "observe", policy: Policy | None = None,
                 trusted_proxies: Iterable[str] = (),
                 forwarded_header: ForwardedHeader = "x-forwarded-for",
                 ranges: RangeStore | None = None, rdns: ReverseDns | None = None,
                 authorities: Iterable[str] | None = None,
                 web_bot_auth: WebBotAuth | None = None,
                 signature_agents: Mapping[str, str] | None = None,
                 tdmrep: str | bytes | None = None, dialect: str = "rfc9309",
                 vocabulary: str = "vocab-07", on_decision: Any = None,
                 clock: Callable[[], float] = time.time,
                 executor: cf.Executor | None = None, lookup_workers: int = 4,
                 max_lookups: int = 64, memo_bytes: int = 4 << 20) -> None:
        rules, body = load_robots(robots, dialect)
        names = list(authorities or ())
        if web_bot_auth is None and names:
            from .webbotauth import WebBotAuth

            # the verifier checks @authority against them too (WebBotAuth's authorities=)
            web_bot_auth = WebBotAuth(authorities=names)
        super().__init__(
            rules, body, clock=clock,
            ranges=ranges if ranges is not None else RangeStore.load(), mode=mode,
            policy=policy, proxies=TrustedProxies(trusted_proxies, forwarded_header),
            rdns=rdns, signatures=web_bot_auth, authorities=names,
            signature_agents=signature_agents, tdmrep=tdmrep, vocabulary_name=vocabulary,
            memo_bytes=memo_bytes, on_decision=on_decision)
        self.wba = web_bot_auth
        # out of the box (no lists yet) or a week after the last refresh nothing is blocked
        # by address: say so once, at start-up, not first when a crawler comes
        self.ranges.warn_stale()
        self.lookups = Lookups(self._look_up, executor=executor, workers=lookup_workers,
                               limit=max_lookups)

    def _look_up(self, p: Pending) -> object:
        if p.kind == "keys":
            return self.wba.fetch(p.key) if self.wba is not None else None
        return self.rdns.check(p.key, p.suffixes) if self.rdns is not None else None

    # -- the two drivers of the one flow -----------------------------------------------------

    def check_request(self, req: Request, *, timeout: float | None = None) -> Decision:
        """Decide ``req``, running the look-ups it needs in the guard's workers and waiting
        for them at most ``timeout`` seconds in all (``None``: until each has answered or
        hit its own time limit)."""
        return drive(self.flow(req), partial(self.lookups.wait, timeout=timeout))

    async def acheck_request(self, req: Request, *, timeout: float | None = None
                             ) -> Decision:
        """:meth:`check_request` for asyncio: the event loop is never blocked."""
        return await adrive(self.flow(req), partial(self.lookups.await_, timeout=timeout))

    def check(self, method: str, url: str,
              headers: Mapping[str, str] | Sequence[tuple[str, str]],
              peer: str | None = None, *, timeout: float | None = None) -> Decision:
        """:meth:`~.core.GuardCore.decide`, with the look-ups it needs run first (see
        :meth:`check_request`)."""
        return self.check_request(Request.from_url(method, url, headers, peer),
                                  timeout=timeout)

    async def acheck(self, method: str, url: str,
                     headers: Mapping[str, str] | Sequence[tuple[str, str]],
                     peer: str | None = None, *, timeout: float | None = None) -> Decision:
        """:meth:`check` for asyncio."""
        return await self.acheck_request(Request.from_url(method, url, headers, peer),
                                         timeout=timeout)

    def resolve(self, pending: Iterable[Pending], timeout: float | None = None) -> None:
        """Run the look-ups a decision named (:attr:`Decision.pending`) in the guard's
        workers, waiting at most ``timeout`` seconds in all."""
        self.lookups.wait(pending, timeout)

    async def aresolve(self, pending: Iterable[Pending], timeout: float | None = None
                       ) -> None:
        """:meth:`resolve` without blocking the event loop."""
        await self.lookups.await_(pending, timeout)

    def close(self) -> None:
        """Stop the look-up workers (a look-up under way is not waited for)."""
        self.lookups.close()


def log_decision(d: Decision) -> None:
    """The shells' log line for ``d``: WARNING for a violation or a spoofed claim, INFO for
    any other crawler request."""
    if not d.is_crawler:
        return
    if d.notable:
        log.warning("robotrules guard (%s): %s", d.mode, d.summary())
    elif log.isEnabledFor(logging.INFO):
        log.info("robotrules guard (%s): %s", d.mode, d.summary())


# -- what the ASGI and WSGI shells share ------------------------------------------------------

def attach(robots: Any, mode: str, guard: Guard | None, options: dict[str, Any]
           ) -> tuple[Guard, Any]:
    """The guard a middleware runs (``guard``, or one made from ``robots``, ``mode`` and
    ``options``) and the running tally every decision is added to (before the caller's own
    ``on_decision`` hook, if ``options`` has one)."""

    report = Tally()
    hook = options.pop("on_decision", None)

    def on_decision(d: Decision) -> None:
        report.add(d)
        if hook is not None:
            hook(d)

    if guard is None:
        guard = Guard(robots, mode=mode, on_decision=on_decision,  # type: ignore[arg-type]
                      **options)
    else:
        guard.on_decision = on_decision
    return guard, report


def own_file(guard: Guard, path: str) -> tuple[bytes, str] | None:
    """The body and content type the guard serves itself at ``path`` (the server's decoded
    path), if any: ``/robots.txt`` is the exact bytes the guard enforces."""
    if path == "/robots.txt":
        return guard.robots_body, "text/plain; charset=utf-8"
    if path == "/.well-known/tdmrep.json" and guard.tdmrep is not None:
        return guard.tdmrep, "application/json"
    return None


def answer(d: Decision) -> tuple[int, list[tuple[str, str]], bytes]:
    """The guard's own response for an enforced decision: status, headers, body."""
    body = (f"{d.status} {d.reason}\n").encode("utf-8", "replace")
    headers = [("content-type", "text/plain; charset=utf-8"),
               ("content-length", str(len(body))), *d.block_headers, *d.headers]
    return d.status, headers, body
