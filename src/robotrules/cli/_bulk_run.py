"""``bulk``'s runner: URLs from the input thread to concurrent workers, one row per verdict.

A reader thread turns the input into ``(line number, URL, error)`` items (:mod:`._bulk_input`)
and hands them over in batches, so a slow pipe never stalls fetches. ``concurrency`` workers
take them from a bounded queue, ask the :class:`~robotrules.fetch.AsyncRobotsClient` for the
URL's robots.txt (the client fetches each origin once, however many workers ask at the same
time; by default through the same SQLite cache as ``check``) and hand the resolved URL to the
:class:`Decider`, which decides the URLs that share a file with one
``RobotsTxt.decide_many`` per agent (the batch API) and writes one row per URL and agent, in
the order the URLs were resolved, within :data:`LATENCY` seconds. Memory is bounded by the
queue, the line cap, :data:`BATCH` pending URLs, the client's memo and one small counter per
origin, not by the number of URLs.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from robotrules import REASONS, InvalidURL

from ._bulk_input import records, split_lines
from ._bulk_output import Bar, Origin, Totals, Writer
from ._common import url_error
from ._outcomes import fetch_failure, is_unreachable

if TYPE_CHECKING:
    import asyncio

    from robotrules.fetch import AsyncRobotsClient, FetchedRobots

__all__ = ["Settings", "run"]


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


def kind_of(fetched: FetchedRobots) -> tuple[str, str | None]:
    """A row's ``kind`` and ``error``: ``verdict`` (the file decided), ``unavailable`` (no
    file: allow all, RFC 9309 2.3.1.3) or ``unreachable`` (could not fetch: disallow all,
    2.3.1.4), with why for the last two."""
    if fetched.outcome == "rules":
        return "verdict", None
    return ("unreachable" if is_unreachable(fetched) else "unavailable"), fetch_failure(fetched)


Item = tuple[int, str, str | None]
#: A URL waiting for its verdicts: its input line, the URL and its robots.txt; or a row of its
#: own (bad input, invalid URL) already made, kept in place so rows keep their order.
Pending = tuple[int, str, "FetchedRobots"] | list[tuple[Any, ...]]
BATCH = 16384  # URLs decided together at most (their robots.txt files and agents grouped)
LATENCY = 0.2  # seconds a resolved URL waits at most for its rows


class Decider:
    """The verdicts of the URLs the workers have resolved, decided in groups: the URLs that
    share a robots.txt get one :meth:`~robotrules.RobotsTxt.decide_many` per agent (the batch
    API: one pass in the kernel) instead of an ``explain`` each, and the rows are written in
    the order the URLs were resolved, exactly as one ``explain`` per URL and agent writes them.

    The workers :meth:`add` what they resolved; the pending URLs are decided and written when
    :data:`BATCH` of them wait, when the oldest has waited :data:`LATENCY` seconds (checked on
    each add and by :meth:`run`, so a slow pipe still gets its rows promptly) and at the end
    (:meth:`flush`). Memory: at most :data:`BATCH` pending URLs. Input that names few origins
    at a time gives big groups; 1,000 origins interleaved give groups of about 16."""

    def __init__(self, agents: list[str], writer: Writer, totals: Totals) -> None:
        self.agents = agents
        self.writer = writer
        self.totals = totals
        self.pending: list[Pending] = []
        self.urls = 0
        self.since = 0.0  # when the oldest pending item came
        self.failed: Exception | None = None  # what stopped run(), raised by the runner

    def add(self, item: Pending) -> None:
        if not self.pending:
            self.since = time.monotonic()
        self.pending.append(item)
        if isinstance(item, tuple):
            self.urls += 1
        if self.urls >= BATCH or time.monotonic() - self.since >= LATENCY:
            self.flush()

    async def run(self) -> None:
        """Decide and write what has waited :data:`LATENCY` while no worker adds (a slow
        input, slow fetches): a task of its own, cancelled at the end."""
        import asyncio

        while True:
            await asyncio.sleep(LATENCY / 2)
            if self.pending and time.monotonic() - self.since >= LATENCY:
                try:
                    self.flush()
                    self.writer.flush()
                except Exception as exc:  # stdout closed (`| head`): the run raises it
                    self.failed = exc
                    return

    def flush(self) -> None:
        pending, self.pending, self.urls = self.pending, [], 0
        # URLs per parsed file (the client hands out one parse per origin and body, inside
        # FetchedRobots values that may differ in from_cache); an HTTP outcome's verdict
        # depends on its FetchedRobots only (the empty file stands in for every such origin)
        groups: dict[tuple[bool, int], tuple[FetchedRobots, list[str]]] = {}
        keys: list[tuple[tuple[bool, int], int]] = []  # each pending URL's group and index
        for item in pending:
            if isinstance(item, tuple):
                fetched = item[2]
                key = ((True, id(fetched.rules)) if fetched.outcome == "rules"
                       else (False, id(fetched)))
                urls = groups.setdefault(key, (fetched, []))[1]
                keys.append((key, len(urls)))
                urls.append(item[1])
        agents = self.agents
        decided = {key: [_decide(fetched, urls, agent) for agent in agents]
                   for key, (fetched, urls) in groups.items()}
        totals, row, k = self.totals, self.writer.row, 0
        for item in pending:
            if not isinstance(item, tuple):
                for values in item:
                    row(values)
                continue
            n, url, fetched = item
            key, i = keys[k]
            k += 1
            kind, reason = kind_of(fetched)
            o = _origin(totals, fetched)
            status, outcome = fetched.status, fetched.outcome
            no = 0
            for agent, answers in zip(agents, decided[key], strict=True):
                allowed, line, rule, why = answers[i]
                no += not allowed
                row((n, url, agent, allowed, line, rule, why, status, outcome, kind, reason))
            totals.rows += len(agents)
            o.allowed += len(agents) - no
            o.disallowed += no
            totals.disallowed += no
            totals.disallowed_urls += no > 0


Answer = tuple[bool, int | None, str | None, str]


def _decide(fetched: FetchedRobots, urls: list[str], agent: str) -> list[Answer]:
    """The answer of each of ``urls`` for ``agent`` (allowed, line, rule, reason), equal to
    ``fetched.explain(url, user_agent=agent)``'s fields."""
    if fetched.outcome != "rules":
        # the HTTP outcome decides (RFC 9309 2.3.1.3, 2.3.1.4): one verdict for every URL
        v = fetched.explain(urls[0], user_agent=agent)
        return [(v.allowed, v.line, None if v.rule is None else str(v.rule), v.reason)
                ] * len(urls)
    rules = fetched.rules
    if len(urls) < 4:  # below this the batch's set-up costs more than it saves (measured)
        return [(v.allowed, v.line, None if v.rule is None else str(v.rule), v.reason)
                for v in (rules.explain(url, user_agent=agent) for url in urls)]
    d = rules.decide_many(urls, user_agent=agent)
    texts = [str(r) for r in d.rules]
    return [(a == 1, line or None, None if r < 0 else texts[r], REASONS[why])
            for a, line, r, why in zip(d.allowed, d.line, d.rule, d.reason, strict=True)]


def _origin(totals: Totals, fetched: FetchedRobots) -> Origin:
    """The origin's counters, made when its first URL is resolved."""
    origin = fetched.origin or fetched.robots_url
    o = totals.origins.get(origin)
    if o is None:
        o = totals.origins[origin] = Origin(fetched.status, fetched.outcome, fetched.summary,
                                            unreachable=is_unreachable(fetched))
    return o


async def _worker(queue: asyncio.Queue[Item | None], client: AsyncRobotsClient,
                  agents: list[str], decider: Decider, totals: Totals) -> None:
    while True:
        item = await queue.get()
        if item is None:
            return
        n, url, error = item
        totals.records += 1
        if error is not None:
            totals.bad_lines += 1
            totals.failed(n)
            decider.add([(n, url, agent, None, None, None, f"bad input line: {error}", None,
                          None, "bad-input", error) for agent in agents])
            continue
        try:
            fetched = await client.rules_for(url)
        except InvalidURL as exc:
            totals.invalid += 1
            totals.failed(n)
            why = url_error(exc)
            decider.add([(n, url, agent, None, None, None, f"invalid URL: {why}", None, None,
                          "invalid-url", why) for agent in agents])
            continue
        totals.urls += 1
        totals.reach.saw(fetched)
        _origin(totals, fetched).urls += 1
        decider.add((n, url, fetched))


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
    decider = Decider(agents, writer, totals)
    workers = [asyncio.create_task(_worker(queue, client, agents, decider, totals))
               for _ in range(s.concurrency)]
    decide = asyncio.create_task(decider.run())
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
        if decider.failed is not None:
            raise decider.failed
    finally:
        try:
            decider.flush()  # what was resolved before an error or an interrupt gets rows
        finally:
            for w in workers:
                w.cancel()
            decide.cancel()
            if ticker is not None:
                ticker.cancel()
            if bar is not None:
                bar.stop()
            try:
                writer.flush()
            finally:
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
