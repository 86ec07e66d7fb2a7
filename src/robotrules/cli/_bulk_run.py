"""``bulk``'s runner: URLs from the input thread to concurrent workers, one row per verdict.

A reader thread turns the input into ``(line number, URL, error)`` items (:mod:`._bulk_input`)
and hands them over in batches, so a slow pipe never stalls fetches. ``concurrency`` workers
take them from a bounded queue, ask the :class:`~robotrules.fetch.AsyncRobotsClient` for the
URL's robots.txt (the client fetches each origin once, however many workers ask at the same
time; by default through the same SQLite cache as ``check``) and write one row per URL and
agent as soon as it is known. Memory is bounded by the queue, the line cap, the client's memo
and one small counter per origin, not by the number of URLs.
"""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from robotrules import InvalidURL

from ._bulk_input import records, split_lines
from ._bulk_output import Bar, Writer
from ._common import url_error
from ._outcomes import Reachability, fetch_failure, is_unreachable

if TYPE_CHECKING:
    import asyncio

    from robotrules.fetch import AsyncRobotsClient, FetchedRobots

__all__ = ["Origin", "Settings", "Totals", "run"]


@dataclass(frozen=True, slots=True)
class Settings:
    concurrency: int
    fmt: str
    dialect: str
    user_agent: str | None
    cache: bool
    client: dict[str, Any]
    source: str
    progress: bool
    color: str


@dataclass(slots=True)
class Origin:
    status: int | None = None
    outcome: str = ""
    summary: str = ""
    urls: int = 0  # URLs of this origin (each gets one verdict per agent)
    allowed: int = 0  # verdicts
    disallowed: int = 0  # verdicts


@dataclass(slots=True)
class Totals:
    records: int = 0  # input rows seen (not blank, not comments)
    urls: int = 0  # valid URLs that got verdicts
    rows: int = 0  # verdicts written
    disallowed: int = 0  # verdicts that disallow
    disallowed_urls: int = 0  # URLs disallowed for at least one agent
    invalid: int = 0  # rows whose URL is not a valid http(s) URL
    bad_lines: int = 0  # rows that could not be read at all
    failed_lines: list[int] = field(default_factory=list)
    origins: dict[str, Origin] = field(default_factory=dict)
    reach: Reachability = field(default_factory=Reachability)

    def failed(self, n: int) -> None:
        if len(self.failed_lines) < 10:
            self.failed_lines.append(n)


def kind_of(fetched: FetchedRobots) -> tuple[str, str | None]:
    """A row's ``kind`` and ``error``: ``verdict`` (the file decided), ``unavailable`` (no
    file: allow all, RFC 9309 2.3.1.3) or ``unreachable`` (could not fetch: disallow all,
    2.3.1.4), with why for the last two."""
    if fetched.outcome == "rules":
        return "verdict", None
    return ("unreachable" if is_unreachable(fetched) else "unavailable"), fetch_failure(fetched)


Item = tuple[int, str, str | None]


async def _worker(queue: asyncio.Queue[Item | None], client: AsyncRobotsClient,
                  agents: list[str], writer: Writer, totals: Totals) -> None:
    while True:
        item = await queue.get()
        if item is None:
            return
        n, url, error = item
        totals.records += 1
        if error is not None:
            totals.bad_lines += 1
            totals.failed(n)
            for agent in agents:
                writer.row((n, url, agent, None, None, None, f"bad input line: {error}", None,
                            None, "bad-input", error))
            continue
        try:
            fetched = await client.rules_for(url)
        except InvalidURL as exc:
            totals.invalid += 1
            totals.failed(n)
            why = url_error(exc)
            for agent in agents:
                writer.row((n, url, agent, None, None, None, f"invalid URL: {why}", None, None,
                            "invalid-url", why))
            continue
        totals.urls += 1
        totals.reach.saw(fetched)
        kind, reason = kind_of(fetched)
        origin = fetched.origin or fetched.robots_url
        o = totals.origins.get(origin)
        if o is None:
            o = totals.origins[origin] = Origin(fetched.status, fetched.outcome, fetched.summary)
        o.urls += 1
        blocked = False
        for agent in agents:
            v = fetched.explain(url, user_agent=agent)
            totals.rows += 1
            if v.allowed:
                o.allowed += 1
            else:
                o.disallowed += 1
                totals.disallowed += 1
                blocked = True
            writer.row((n, url, agent, v.allowed, v.line,
                        str(v.rule) if v.rule is not None else None, v.reason,
                        fetched.status, fetched.outcome, kind, reason))
        totals.disallowed_urls += blocked


async def run(s: Settings, agents: list[str], stream: IO[bytes], totals: Totals) -> float:
    """Every row of the input, written to stdout; returns the seconds it took."""
    import asyncio

    import httpx

    from robotrules.fetch import DEFAULT_USER_AGENT, AsyncRobotsClient
    from robotrules.stores import MemoryStore, SQLiteStore

    ua = s.user_agent or DEFAULT_USER_AGENT
    limits = httpx.Limits(max_connections=s.concurrency,
                          max_keepalive_connections=min(s.concurrency, 20))
    http = httpx.AsyncClient(follow_redirects=False, limits=limits, headers={"User-Agent": ua})
    store = SQLiteStore() if s.cache else MemoryStore(max_entries=4096)
    try:
        client = AsyncRobotsClient(user_agent=ua, store=store, http_client=http,
                                   dialect=s.dialect, **s.client)  # type: ignore[arg-type]
    except BaseException:
        await http.aclose()
        raise
    writer = Writer(sys.stdout, s.fmt)
    queue: asyncio.Queue[Item | None] = asyncio.Queue(maxsize=s.concurrency * 8)
    started = time.monotonic()
    workers = [asyncio.create_task(_worker(queue, client, agents, writer, totals))
               for _ in range(s.concurrency)]
    bar = Bar(s.source, s.color, lambda: _progress(totals), started) if s.progress else None
    ticker = asyncio.create_task(bar.run()) if bar is not None else None
    try:
        batches: asyncio.Queue[list[Item] | BaseException | None] = asyncio.Queue(4)
        threading.Thread(target=_read, args=(stream, batches, asyncio.get_running_loop()),
                         daemon=True, name="robotrules-bulk-input").start()
        while (batch := await batches.get()) is not None:
            if isinstance(batch, BaseException):
                raise batch
            for item in batch:
                await queue.put(item)
        for _ in workers:
            await queue.put(None)
        await asyncio.gather(*workers)
    finally:
        for w in workers:
            w.cancel()
        if ticker is not None:
            ticker.cancel()
        if bar is not None:
            bar.stop()
        writer.flush()
        await client.aclose()
        await http.aclose()
        if s.cache:
            store.close()
    return time.monotonic() - started


def _progress(t: Totals) -> tuple[int, int, int]:
    """(URLs done, origins, disallowed verdicts) for the progress bar."""
    return t.records, len(t.origins), t.disallowed


def _read(stream: IO[bytes], out: asyncio.Queue[list[Item] | BaseException | None],
          loop: asyncio.AbstractEventLoop) -> None:
    """Read the input in a thread, so a slow pipe never stalls fetches (daemon: no join)."""
    import asyncio
    import concurrent.futures
    import contextlib

    class Gone(Exception):
        """The loop is closed or closing (Ctrl-C, an error): nobody will take the item."""

    def put(item: list[Item] | BaseException | None) -> None:
        try:
            asyncio.run_coroutine_threadsafe(out.put(item), loop).result()
        except (RuntimeError, concurrent.futures.CancelledError, asyncio.CancelledError) as exc:
            raise Gone from exc

    batch: list[Item] = []
    try:
        for n, url, error, drained in records(split_lines(stream)):
            batch.append((n, url, error))
            # hand over what has arrived before blocking for more: big batches under load,
            # prompt verdicts from a slow pipe (`tail -f urls | robotrules bulk -`)
            if len(batch) >= 256 or drained:
                put(batch)
                batch = []
        if batch:
            put(batch)
        put(None)
    except Gone:
        pass  # interrupted: nothing to hand over, and nothing to print from this thread
    except Exception as exc:  # an unreadable stream: raised in the loop
        with contextlib.suppress(Gone):
            put(exc)
