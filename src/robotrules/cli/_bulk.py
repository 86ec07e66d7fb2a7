"""``robotrules bulk``: verdicts for many URLs and agents, robots.txt fetched once per origin.

Theory of operation
-------------------
The input is streamed: a reader thread cuts the bytes into lines (``\\n``, ``\\r\\n`` or a lone
``\\r``; at most :data:`MAX_LINE` bytes each), reads each line on its own as plain text, CSV or
JSON Lines (detected from the first line) and puts ``(line number, URL or error)`` on a bounded
queue. ``--concurrency`` workers take them, ask the :class:`~robotrules.fetch.AsyncRobotsClient`
for the URL's robots.txt (the client fetches each origin once, however many workers ask at the
same time; by default it keeps what it fetched in the same SQLite cache as ``check``) and write
one row per URL and agent as soon as it is known.

Bad input is normal input: a line that cannot be read (an unbalanced CSV quote, broken JSON,
a NUL byte, bytes that are not UTF-8, a line over the cap) or a URL that is not an http(s) URL
gives an error row with its line number, and the lines after it are read as usual, because
each line is parsed alone (a CSV field cannot span lines). The run ends with exit status 2
when any row failed, after every good row has been written.

Memory is bounded by the queue, the line cap, the client's memo and one small counter per
origin, not by the number of URLs. Each input byte is looked at a constant number of times,
so the cost is linear in the input plus one fetch per origin.
"""

from __future__ import annotations

import csv
import io
import json
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

import click

from robotrules import InvalidURL

from ._common import (
    CliError,
    agent_token,
    client_settings,
    color_mode,
    color_option,
    dialect_option,
    fetch_options,
    header_for,
    need_fetch,
    url_error,
)

if TYPE_CHECKING:
    import asyncio

    from robotrules.fetch import AsyncRobotsClient

HELP = """Verdicts for many URLs x agents; each robots.txt fetched once per origin, concurrently.

\b
examples:
  robotrules bulk examples/urls.txt -a Googlebot -a GPTBot > verdicts.csv
  cat urls.jsonl | robotrules bulk - --agent CCBot --format jsonl --concurrency 64
  robotrules bulk crawl.csv --agent MyBot --summary origins.jsonl --no-cache

Input: one URL a line; or CSV with a 'url' column (else the first column); or JSON Lines with
a "url" field (detected from the first line). Each line is read on its own: a line that cannot
be read or an invalid URL gives an error row (reason 'bad input line: ...' or 'invalid URL:
...') and the other lines still give theirs. Lines end with LF, CRLF or CR; lines over 64 KiB
are refused. Output (stdout): one row per URL and agent with n (input line number), url,
agent, allowed, line, rule, reason, status, outcome, in the order verdicts are known.
robots.txt files are cached in the same SQLite cache as 'check' (--no-cache to skip). On a
terminal: a progress bar with rate and ETA (stderr); at the end a summary table per origin
(stderr; --summary FILE writes every origin as JSON Lines).

\b
exit status: 0 all allowed, 1 any disallowed, 2 any row failed (bad line, invalid URL) or a
usage error; every good row is written either way."""

COLUMNS = ("n", "url", "agent", "allowed", "line", "rule", "reason", "status", "outcome")
MAX_LINE = 65_536  # bytes; a URL is at most a few KiB (RFC 9110 recommends 8,000 octets)
_PREVIEW = 200  # characters of a bad line kept in its error row


@click.command("bulk", help=HELP, short_help="verdicts for many URLs x agents",
               context_settings={"max_content_width": 100})
@click.argument("source", default="-", metavar="[FILE|-]")
@click.option("--agent", "-a", "agents", multiple=True, required=True,
              help="agent to check (token or User-Agent string; repeatable)")
@click.option("--concurrency", "-j", type=click.IntRange(1, 4096), default=32, metavar="N",
              help="simultaneous robots.txt fetches (default: 32)")
@click.option("--format", "-f", "fmt", type=click.Choice(("csv", "jsonl")), default="csv",
              help="output format (default: csv)")
@dialect_option()
@fetch_options
@click.option("--no-cache", is_flag=True,
              help="keep fetched files in memory only, not in the on-disk cache")
@click.option("--user-agent", metavar="UA", help="User-Agent header for the fetches")
@click.option("--summary", metavar="FILE", help="write the per-origin summary here (JSONL)")
@click.option("--progress", type=click.Choice(("auto", "always", "never")), default="auto",
              help="progress bar on stderr (default: on a terminal)")
@color_option
def bulk(source: str, agents: tuple[str, ...], concurrency: int, fmt: str, dialect: str,
         timeout: float | None, min_ttl: float | None, no_cache: bool, user_agent: str | None,
         summary: str | None, progress: str, color: str | None) -> int:
    need_fetch()
    tokens = list(dict.fromkeys(agent_token(a) for a in agents))
    if user_agent is None:
        user_agent = next((h for h in map(header_for, agents) if h), None)
    if source == "-":
        stream: IO[bytes] = sys.stdin.buffer
    else:
        try:
            stream = open(source, "rb")  # noqa: SIM115 (closed below)
        except OSError as exc:
            raise CliError(f"cannot read {source}: {exc.strerror or exc}") from None
    mode = color_mode(color)
    show = progress == "always" or (progress == "auto" and sys.stderr.isatty())
    settings = _Settings(concurrency, fmt, dialect, user_agent, not no_cache,
                         client_settings(timeout=timeout, min_ttl=min_ttl), source, show, mode)
    totals = _Totals()
    import asyncio

    try:
        elapsed = asyncio.run(_run(settings, tokens, stream, totals))
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    _summary(settings, summary, totals, len(tokens), elapsed)
    failed = totals.invalid + totals.bad_lines
    if failed:
        where = ", ".join(map(str, totals.failed_lines[:10]))
        more = ", ..." if failed > 10 else ""
        sys.stderr.write(f"robotrules: {failed:,} row(s) failed (input line {where}{more}); "
                         "their rows say why\n")
        return 2
    return 1 if totals.disallowed else 0


@dataclass(frozen=True, slots=True)
class _Settings:
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
class _Origin:
    status: int | None = None
    outcome: str = ""
    summary: str = ""
    urls: int = 0
    allowed: int = 0
    disallowed: int = 0


@dataclass(slots=True)
class _Totals:
    records: int = 0  # input rows seen (not blank, not comments)
    urls: int = 0  # valid URLs that got verdicts
    rows: int = 0  # verdicts written
    disallowed: int = 0
    invalid: int = 0  # rows whose URL is not a valid http(s) URL
    bad_lines: int = 0  # rows that could not be read at all
    failed_lines: list[int] = field(default_factory=list)
    origins: dict[str, _Origin] = field(default_factory=dict)

    def failed(self, n: int) -> None:
        if len(self.failed_lines) < 10:
            self.failed_lines.append(n)


# -- input: lines, then records -------------------------------------------------------------


class _LineError(Exception):
    """A line that cannot be read; the message becomes its error row's reason."""


def split_lines(stream: IO[bytes], *, chunk: int = 1 << 16,
                max_line: int = MAX_LINE) -> Iterator[tuple[int, bytes | _LineError, bool]]:
    """``(line number, bytes or error, drained)`` for each line of a binary stream.

    Lines end at LF, CRLF or a lone CR. A line longer than ``max_line`` bytes is an error (its
    bytes are skipped, never stored). ``drained`` is true when no more input was waiting, so
    that the caller hands over what it has before blocking on a slow pipe.
    """
    read1 = getattr(stream, "read1", None) or stream.read
    pending = bytearray()
    n = 0
    skipping = False  # inside an overlong line: drop bytes until its end
    after_cr = False  # the previous chunk ended with CR: a leading LF belongs to it
    first = True
    while True:
        data = read1(chunk)
        if not data:
            break
        if first:
            first = False
            if data.startswith(b"\xef\xbb\xbf"):
                data = data[3:]
        start = 0
        if after_cr and data[:1] == b"\n":
            start = 1
        after_cr = False
        size = len(data)
        i = start
        while i < size:
            cr = data.find(b"\r", i)
            lf = data.find(b"\n", i)
            ends = [p for p in (cr, lf) if p >= 0]
            if not ends:
                if not skipping:
                    pending += data[i:]
                    if len(pending) > max_line:
                        n += 1
                        yield n, _too_long(max_line), False
                        pending.clear()
                        skipping = True
                break
            end = min(ends)
            nxt = end + 1
            if data[end] == 0x0D:
                if nxt < size and data[nxt] == 0x0A:
                    nxt += 1
                elif nxt == size:
                    after_cr = True
            if skipping:
                skipping = False
            else:
                pending += data[i:end]
                n += 1
                if len(pending) > max_line:
                    yield n, _too_long(max_line), nxt >= size
                else:
                    yield n, bytes(pending), nxt >= size
            pending.clear()
            i = nxt
    if pending and not skipping:
        n += 1
        yield n, bytes(pending), True


def _too_long(max_line: int) -> _LineError:
    return _LineError(f"line longer than {max_line:,} bytes")


def _text(raw: bytes) -> str:
    if b"\x00" in raw:
        raise _LineError("binary data (NUL byte), not text")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _LineError(f"not UTF-8 text (byte {exc.start + 1})") from None


def records(lines: Iterator[tuple[int, bytes | _LineError, bool]]
            ) -> Iterator[tuple[int, str, str | None, bool]]:
    """``(line number, URL or preview, error or None, drained)``: URLs from plain lines, CSV
    (a 'url' column, else the first) or JSON Lines, detected from the first non-blank line."""
    kind: str | None = None
    column = 0
    for n, raw, drained in lines:
        if isinstance(raw, _LineError):
            yield n, "", str(raw), drained
            continue
        try:
            text = _text(raw)
        except _LineError as exc:
            yield n, raw[:_PREVIEW].decode("utf-8", "replace"), str(exc), drained
            continue
        line = text.strip()
        if not line:
            continue
        if kind is None:
            if line.startswith("{"):
                kind = "jsonl"
            elif "," in line or line.lower() == "url":
                kind = "csv"
                try:
                    header = [h.strip().lower() for h in next(csv.reader([text], strict=True))]
                except csv.Error:
                    header = []
                if "url" in header:
                    column = header.index("url")
                    continue
            else:
                kind = "lines"
        if kind == "lines":
            if not line.startswith("#"):
                yield n, line, None, drained
        elif kind == "jsonl":
            yield (n, *_json_url(line), drained)
        else:
            yield (n, *_csv_url(text, column), drained)


def _json_url(line: str) -> tuple[str, str | None]:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        return line[:_PREVIEW], f"not JSON ({exc.msg} at column {exc.colno})"
    except ValueError as exc:  # e.g. a number too long to convert
        return line[:_PREVIEW], f"not JSON ({exc})"
    except RecursionError:
        return line[:_PREVIEW], "not JSON (nested too deeply)"
    url = obj.get("url") if isinstance(obj, dict) else None
    if not isinstance(url, str):
        return line[:_PREVIEW], 'not a JSON object with a "url" string'
    return url.strip(), None


def _csv_url(text: str, column: int) -> tuple[str, str | None]:
    try:
        row = next(csv.reader([text], strict=True), [])
    except csv.Error as exc:
        return text.strip()[:_PREVIEW], f"CSV: {exc} (a quote not closed on its line?)"
    if len(row) <= column or not row[column].strip():
        return text.strip()[:_PREVIEW], f"CSV: no URL in column {column + 1}"
    return row[column].strip(), None


# -- output ----------------------------------------------------------------------------------


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


Item = tuple[int, str, str | None]


async def _worker(queue: asyncio.Queue[Item | None], client: AsyncRobotsClient,
                  agents: list[str], writer: _Writer, totals: _Totals) -> None:
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
                            None))
            continue
        try:
            fetched = await client.rules_for(url)
        except InvalidURL as exc:
            totals.invalid += 1
            totals.failed(n)
            for agent in agents:
                writer.row((n, url, agent, None, None, None, f"invalid URL: {url_error(exc)}",
                            None, None))
            continue
        totals.urls += 1
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


async def _run(s: _Settings, agents: list[str], stream: IO[bytes], totals: _Totals) -> float:
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
    writer = _Writer(sys.stdout, s.fmt)
    queue: asyncio.Queue[Item | None] = asyncio.Queue(maxsize=s.concurrency * 8)
    started = time.monotonic()
    workers = [asyncio.create_task(_worker(queue, client, agents, writer, totals))
               for _ in range(s.concurrency)]
    bar = _Bar(s, totals, started) if s.progress else None
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


# -- progress and summary --------------------------------------------------------------------


class _Bar:
    """A Rich progress bar on stderr: URLs done (of the file's line count when known), the
    rate, the time left, origins and disallowed so far."""

    def __init__(self, s: _Settings, totals: _Totals, started: float) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        console = Console(file=sys.stderr, force_terminal=True,
                          no_color=True if s.color == "never" else None)
        expected = _count_lines(s.source) if s.source != "-" else None
        self.totals = totals
        self.started = started
        self.progress = Progress(
            TextColumn("[progress.description]{task.description}"), BarColumn(),
            TextColumn("{task.completed:,.0f}/{task.fields[of]}"),
            TextColumn("{task.fields[rate]} URLs/s"), TimeElapsedColumn(),
            TextColumn("eta"), TimeRemainingColumn(),
            TextColumn("{task.fields[origins]} origins, {task.fields[disallowed]} disallowed"),
            console=console, transient=True, refresh_per_second=5)
        self.task = self.progress.add_task("bulk", total=expected,
                                           of=f"{expected:,}" if expected else "?",
                                           rate="0", origins="0", disallowed="0")
        self.progress.start()

    def update(self) -> None:
        t = self.totals
        dt = max(time.monotonic() - self.started, 1e-6)
        self.progress.update(self.task, completed=t.records, rate=f"{t.records / dt:,.0f}",
                             origins=f"{len(t.origins):,}", disallowed=f"{t.disallowed:,}")

    async def run(self) -> None:
        import asyncio

        while True:
            self.update()
            await asyncio.sleep(0.2)

    def stop(self) -> None:
        self.update()
        self.progress.stop()


def _count_lines(path: str) -> int | None:
    try:
        with open(path, "rb") as fh:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b""))
    except OSError:
        return None


def _summary(s: _Settings, path: str | None, totals: _Totals, n_agents: int,
             elapsed: float) -> None:
    origins = totals.origins
    if path:
        try:
            with open(path, "w", encoding="utf-8") as fh:
                for name, o in origins.items():
                    fh.write(json.dumps({"origin": name, "status": o.status,
                                         "outcome": o.outcome, "summary": o.summary,
                                         "urls": o.urls, "allowed": o.allowed,
                                         "disallowed": o.disallowed}) + "\n")
        except OSError as exc:
            raise CliError(f"cannot write {path}: {exc.strerror or exc}") from None
    from ._ui import Ui

    ui = Ui(s.color, sys.stderr)
    shown = sorted(origins.items(), key=lambda kv: (-kv[1].disallowed, -kv[1].urls, kv[0]))
    limit = 20
    if shown:
        # Reasons wrap between words inside their column, never cut mid-word.
        table = ui.table(("origin", {"overflow": "fold"}), ("robots.txt", {"ratio": 1}),
                         ("URLs", {"justify": "right"}), ("allowed", {"justify": "right"}),
                         ("disallowed", {"justify": "right"}))
        for name, o in shown[:limit]:
            table.add_row(ui.text(name), ui.text(o.summary), f"{o.urls:,}", f"{o.allowed:,}",
                          ui.text((f"{o.disallowed:,}", "red" if o.disallowed else "")))
        ui.render(table)
        if len(shown) > limit:
            more = "; --summary FILE lists all" if not path else ""
            ui.line(f"... {len(shown) - limit:,} more origins{more}")
    rate = totals.records / elapsed if elapsed > 0 else 0.0
    failed = []
    if totals.invalid:
        failed.append(f"{totals.invalid:,} invalid URL(s)")
    if totals.bad_lines:
        failed.append(f"{totals.bad_lines:,} unreadable line(s)")
    ui.line(f"{totals.records:,} input rows: {totals.urls:,} URLs x {n_agents} agent(s) = "
            f"{totals.rows:,} verdicts, {len(origins):,} origins, {totals.disallowed:,} "
            f"disallowed" + (f"; {', '.join(failed)} (rows of their own)" if failed else "")
            + f"; in {elapsed:.1f} s ({rate:,.0f} rows/s)")
