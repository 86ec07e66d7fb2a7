"""``robotrules bulk``: verdicts for many URLs and agents, robots.txt fetched once per origin.

Theory of operation
-------------------
The input is streamed: a reader puts URLs on a bounded queue, ``--concurrency`` workers take
them, ask the :class:`~robotrules.fetch.AsyncRobotsClient` for the URL's robots.txt (the client
fetches each origin once, however many workers ask at the same time, and keeps it in its
bounded memory store) and write one row per URL and agent as soon as it is known. Memory is
therefore bounded by the queue, the client's store and one small counter per origin, not by
the number of URLs. Rows come out in completion order; ``n`` is the input row number.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from robotrules import InvalidURL

from ._common import DIALECTS, CliError, agent_token, color_option, header_for, need_fetch

if TYPE_CHECKING:
    import asyncio

    from robotrules.fetch import AsyncRobotsClient

HELP = "verdicts for many URLs x agents; robots.txt fetched once per origin, concurrently"
EPILOG = """\
examples:
  robotrules bulk urls.txt --agent Googlebot --agent GPTBot > verdicts.csv
  cat urls.jsonl | robotrules bulk - --agent CCBot --format jsonl --concurrency 64
  robotrules bulk crawl.csv --agent MyBot --summary origins.jsonl

Input: one URL a line; or CSV with a 'url' column (else the first column); or JSON Lines with
a "url" field (detected from the first line). Output (stdout): one row per URL and agent with
n (input row), url, agent, allowed, line, rule, reason, status, outcome. Rows come in the
order their verdicts are known. A progress line on a terminal (stderr), and a summary per
origin at the end (stderr; --summary FILE writes every origin as JSON Lines).
exit status: 0 all allowed, 1 any disallowed, 2 usage or input error."""

COLUMNS = ("n", "url", "agent", "allowed", "line", "rule", "reason", "status", "outcome")


def add(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "bulk", help=HELP, description=HELP, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("source", nargs="?", default="-", metavar="FILE|-",
                   help="URLs: lines, CSV or JSON Lines (default: stdin)")
    p.add_argument("--agent", "-a", action="append", required=True,
                   help="agent to check (token or User-Agent string; repeatable)")
    p.add_argument("--concurrency", "-j", type=int, default=32, metavar="N",
                   help="simultaneous robots.txt fetches (default: 32)")
    p.add_argument("--format", "-f", choices=("csv", "jsonl"), default="csv",
                   help="output format (default: csv)")
    p.add_argument("--dialect", "-d", choices=DIALECTS, default="rfc9309")
    p.add_argument("--timeout", type=float, metavar="S", help="HTTP timeout in seconds")
    p.add_argument("--user-agent", metavar="UA", help="User-Agent header for the fetches")
    p.add_argument("--summary", metavar="FILE", help="write the per-origin summary here (JSONL)")
    p.add_argument("--progress", choices=("auto", "always", "never"), default="auto",
                   help="progress line on stderr (default: on a terminal)")
    color_option(p)
    p.set_defaults(func=run)


@dataclass(slots=True)
class _Origin:
    status: int | None = None
    outcome: str = ""
    summary: str = ""
    urls: int = 0
    allowed: int = 0
    disallowed: int = 0


@dataclass(slots=True)
class _Totals:
    urls: int = 0
    rows: int = 0
    disallowed: int = 0
    invalid: int = 0
    origins: dict[str, _Origin] = field(default_factory=dict)


def _urls(stream: Iterator[str]) -> Iterator[str]:
    """URLs from lines, CSV (a 'url' column, else the first) or JSON Lines."""
    first = ""
    for first in stream:
        if first.strip():
            break
    else:
        return
    head = first.strip()
    rest = stream
    if head.startswith("{"):
        for line in _chain(first, rest):
            line = line.strip()
            if not line:
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                raise CliError(f"not a JSON object: {line[:60]!r}") from None
            url = obj.get("url") if isinstance(obj, dict) else None
            if not isinstance(url, str):
                raise CliError(f"JSON line without a \"url\" string: {line[:60]!r}")
            yield url
    elif "," in head or head.lower() == "url":
        reader = csv.reader(_chain(first, rest))
        header = next(reader)
        names = [h.strip().lower() for h in header]
        if "url" in names:
            col = names.index("url")
        else:
            col = 0
            if header and header[0].strip():
                yield header[0].strip()
        for row in reader:
            if len(row) > col and row[col].strip():
                yield row[col].strip()
    else:
        for line in _chain(first, rest):
            line = line.strip()
            if line and not line.startswith("#"):
                yield line


def _chain(first: str, rest: Iterator[str]) -> Iterator[str]:
    yield first
    yield from rest


class _Writer:
    def __init__(self, out: IO[str], fmt: str) -> None:
        self.out = out
        self.fmt = fmt
        self.buf = io.StringIO()
        self.csv = csv.writer(self.buf, lineterminator="\n")
        if fmt == "csv":
            self.csv.writerow(COLUMNS)

    def row(self, values: tuple[Any, ...]) -> None:
        if self.fmt == "csv":
            self.csv.writerow(["" if v is None else ("true" if v else "false")
                               if isinstance(v, bool) else v for v in values])
        else:
            self.buf.write(json.dumps(dict(zip(COLUMNS, values, strict=True)),
                                      ensure_ascii=False) + "\n")
        if self.buf.tell() > 1 << 16:
            self.flush()

    def flush(self) -> None:
        self.out.write(self.buf.getvalue())
        self.buf.seek(0)
        self.buf.truncate()
        self.out.flush()


async def _worker(queue: asyncio.Queue[tuple[int, str] | None], client: AsyncRobotsClient,
                  agents: list[str], writer: _Writer, totals: _Totals) -> None:
    while True:
        item = await queue.get()
        if item is None:
            return
        n, url = item
        totals.urls += 1
        try:
            fetched = await client.rules_for(url)
        except InvalidURL as exc:
            totals.invalid += 1
            for agent in agents:
                writer.row((n, url, agent, None, None, None, f"invalid URL: {exc}", None, None))
            continue
        origin = fetched.origin or fetched.robots_url
        o = totals.origins.get(origin)
        if o is None:
            o = totals.origins[origin] = _Origin(fetched.status, fetched.outcome, fetched.summary)
        o.urls += 1
        for agent in agents:
            v = fetched.explain(url, user_agent=agent)
            totals.rows += 1
            if v.allowed:
                o.allowed += 1
            else:
                o.disallowed += 1
                totals.disallowed += 1
            writer.row((n, url, agent, v.allowed, v.line,
                        str(v.rule) if v.rule is not None else None, v.reason,
                        fetched.status, fetched.outcome))


async def _run(args: argparse.Namespace, agents: list[str], stream: IO[str],
               totals: _Totals, progress: bool) -> float:
    import asyncio

    from robotrules.fetch import DEFAULT_USER_AGENT, AsyncRobotsClient
    from robotrules.stores import MemoryStore

    kwargs: dict[str, Any] = {}
    if args.timeout is not None:
        kwargs.update(timeout=args.timeout, connect_timeout=args.timeout)
    import httpx

    limits = httpx.Limits(max_connections=args.concurrency,
                          max_keepalive_connections=min(args.concurrency, 20))
    http = httpx.AsyncClient(follow_redirects=False, limits=limits,
                             headers={"User-Agent": args.user_agent or DEFAULT_USER_AGENT})
    client = AsyncRobotsClient(user_agent=args.user_agent or DEFAULT_USER_AGENT,
                               store=MemoryStore(max_entries=4096), http_client=http,
                               dialect=args.dialect, **kwargs)
    writer = _Writer(sys.stdout, args.format)
    queue: asyncio.Queue[tuple[int, str] | None] = asyncio.Queue(maxsize=args.concurrency * 8)
    started = time.monotonic()
    workers = [asyncio.create_task(_worker(queue, client, agents, writer, totals))
               for _ in range(args.concurrency)]
    expected = _count_lines(args.source) if progress and args.source != "-" else None
    ticker = asyncio.create_task(_progress(totals, started, expected)) if progress else None
    try:
        batches: asyncio.Queue[list[tuple[int, str]] | BaseException | None] = asyncio.Queue(4)
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
            sys.stderr.write("\r\x1b[K")
        writer.flush()
        await client.aclose()
        await http.aclose()
    return time.monotonic() - started


class _LineSource:
    """Lines of a text stream read one ``read1()`` chunk at a time.

    ``drained`` is true once the lines handed out are all that the stream had available, so
    that the reader knows the next line may block.
    """

    def __init__(self, stream: IO[str]) -> None:
        self.drained = False
        self._stream = stream

    def __iter__(self) -> Iterator[str]:
        read1 = getattr(getattr(self._stream, "buffer", None), "read1", None)
        if read1 is None:  # not a binary-backed stream: no way to tell, hand over each line
            self.drained = True
            yield from self._stream
            return
        pending = b""
        first = True
        while True:
            chunk = read1(1 << 16)
            if not chunk:
                break
            if first and chunk.startswith(b"\xef\xbb\xbf"):
                chunk = chunk[3:]
            first = False
            pending += chunk
            lines = pending.split(b"\n")
            pending = lines.pop()
            last = len(lines) - 1
            for j, raw in enumerate(lines):
                self.drained = j == last
                yield raw.decode("utf-8", "replace") + "\n"
        if pending:
            self.drained = True
            yield pending.decode("utf-8", "replace")


def _read(stream: IO[str], out: asyncio.Queue[list[tuple[int, str]] | BaseException | None],
          loop: asyncio.AbstractEventLoop) -> None:
    """Read the input in a thread, so a slow pipe never stalls fetches (daemon: no join)."""
    import asyncio
    import concurrent.futures
    import contextlib

    class Gone(Exception):
        """The loop is closed or closing (Ctrl-C, an error): nobody will take the item."""

    def put(item: list[tuple[int, str]] | BaseException | None) -> None:
        try:
            asyncio.run_coroutine_threadsafe(out.put(item), loop).result()
        except (RuntimeError, concurrent.futures.CancelledError, asyncio.CancelledError) as exc:
            raise Gone from exc

    batch: list[tuple[int, str]] = []
    source = _LineSource(stream)
    try:
        for n, url in enumerate(_urls(iter(source)), 1):
            batch.append((n, url))
            # hand over what has arrived before blocking for more: big batches under load,
            # prompt verdicts from a slow pipe (`tail -f urls | robotrules bulk -`)
            if len(batch) >= 256 or source.drained:
                put(batch)
                batch = []
        if batch:
            put(batch)
        put(None)
    except Gone:
        pass  # interrupted: nothing to hand over, and nothing to print from this thread
    except Exception as exc:  # e.g. a CliError for a bad JSON line: raised in the loop
        with contextlib.suppress(Gone):
            put(exc)


async def _progress(totals: _Totals, started: float, expected: int | None) -> None:
    """A bar when the number of input lines is known (a file), else a moving marker."""
    import asyncio

    width = 24
    while True:
        await asyncio.sleep(0.2)
        dt = max(time.monotonic() - started, 1e-6)
        rate = totals.urls / dt
        if expected:
            done = min(totals.urls / expected, 1.0)
            bar = "#" * int(done * width) + "-" * (width - int(done * width))
            eta = (expected - totals.urls) / rate if rate > 0 else 0.0
            lead = f"[{bar}] {done:4.0%} eta {eta:4.0f} s "
        else:
            at = int(time.monotonic() * 4) % width
            lead = "[" + "".join("=" if i == at else " " for i in range(width)) + "] "
        sys.stderr.write(f"\r{lead}{totals.urls:,} URLs  {len(totals.origins):,} origins  "
                         f"{rate:,.0f} URLs/s  {totals.disallowed:,} disallowed\x1b[K")
        sys.stderr.flush()


def _count_lines(path: str) -> int | None:
    try:
        with open(path, "rb") as fh:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b""))
    except OSError:
        return None


def run(args: argparse.Namespace) -> int:
    need_fetch()
    if args.concurrency < 1:
        raise CliError("--concurrency must be at least 1")
    agents = list(dict.fromkeys(agent_token(a) for a in args.agent))
    if args.user_agent is None:
        args.user_agent = next((h for h in map(header_for, args.agent) if h), None)
    if args.source == "-":
        stream: IO[str] = sys.stdin
    else:
        try:
            stream = open(args.source, encoding="utf-8", errors="replace", newline="")  # noqa: SIM115
        except OSError as exc:
            raise CliError(f"cannot read {args.source}: {exc.strerror or exc}") from None
    progress = args.progress == "always" or (args.progress == "auto" and sys.stderr.isatty())
    totals = _Totals()
    import asyncio

    try:
        elapsed = asyncio.run(_run(args, agents, stream, totals, progress))
    finally:
        if stream is not sys.stdin:
            stream.close()
    _summary(args, totals, elapsed)
    if totals.invalid:
        sys.stderr.write(f"robotrules: {totals.invalid} invalid URL(s) (see the rows)\n")
        return 2
    return 1 if totals.disallowed else 0


def _summary(args: argparse.Namespace, totals: _Totals, elapsed: float) -> None:
    err = sys.stderr
    origins = totals.origins
    if args.summary:
        with open(args.summary, "w", encoding="utf-8") as fh:
            for name, o in origins.items():
                fh.write(json.dumps({"origin": name, "status": o.status, "outcome": o.outcome,
                                     "summary": o.summary, "urls": o.urls,
                                     "allowed": o.allowed, "disallowed": o.disallowed}) + "\n")
    shown = sorted(origins.items(), key=lambda kv: (-kv[1].disallowed, -kv[1].urls, kv[0]))
    limit = 20
    err.write(f"{'origin':<40} {'robots.txt':<34} {'URLs':>7} {'allowed':>8} {'disallowed':>10}\n")
    for name, o in shown[:limit]:
        err.write(f"{name[:40]:<40} {o.summary[:34]:<34} {o.urls:>7} {o.allowed:>8} "
                  f"{o.disallowed:>10}\n")
    if len(shown) > limit:
        more = "; --summary FILE lists all" if not args.summary else ""
        err.write(f"... {len(shown) - limit} more origins{more}\n")
    rate = totals.urls / elapsed if elapsed > 0 else 0.0
    err.write(f"{totals.urls:,} URLs x {len(args.agent)} agent(s) = {totals.rows:,} verdicts, "
              f"{len(origins):,} origins, {totals.disallowed:,} disallowed, in {elapsed:.1f} s "
              f"({rate:,.0f} URLs/s)\n")
