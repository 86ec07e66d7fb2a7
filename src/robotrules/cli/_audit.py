"""``robotrules audit``: who crawled the site, who was real, and who broke its robots.txt,
from access logs (nginx / Apache combined, JSON Lines, gzip).

Each log line goes through the guard's decision core (:class:`robotrules.guard.Guard`) in
observe mode, with the time and client address of the line: the crawler by the product-token
rule and the registry, verification from the published IP ranges on disk (``robotrules agents
ranges --refresh``) and, with ``--rdns``, forward-confirmed reverse DNS: the lines are judged
in batches, the addresses of a batch that need a look-up are checked at once by a bounded pool
of threads (``--dns-workers``), each look-up bounded by ``--dns-timeout`` and all of them by
``--dns-deadline`` (after it, the rest are "unverifiable"); the robots.txt verdict with its
deciding line. The tallies are :class:`robotrules.guard.Tally` (an impostor gets a row of its
own). Memory is bounded by the number of distinct crawlers and one batch, never by the size of
the logs.

Bad input: a line that is not a log record is counted and skipped (``N bad lines skipped``);
a log with no record at all (empty, binary, another format) is an input error (exit 2), as is
a path that is not a readable file (a directory, a missing file); a ``--robots`` URL that
cannot be fetched is the CLI's "could not fetch" (a warning, exit 3): the audit does not guess
the site's rules.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import stat
import sys
import threading
import time
from typing import IO, TYPE_CHECKING, Any

import click

from ._common import (
    CliError,
    Seconds,
    color_mode,
    color_option,
    dialect_option,
    emit_json,
    json_option,
    load_source,
    note,
)
from ._outcomes import EXIT_UNREACHABLE, Reachability

if TYPE_CHECKING:
    from robotrules.guard import Tally
    from robotrules.guard.logs import LogStats

    from ._ui import Ui

HELP = """Who crawled the site, who was real, and who broke its robots.txt, from access logs.

\b
examples:
  robotrules audit examples/guard_access.log --robots examples/guard_robots.txt
  robotrules audit examples/guard_access.log --robots examples/guard_robots.txt --json
  robotrules audit /var/log/nginx/access.log*.gz --robots https://example.com --rdns

Reads nginx / Apache combined logs and JSON Lines (gzip too; - is stdin). Per crawler and
purpose: requests; verified / unverifiable / unsigned (from the client addresses: the
operators' published IP ranges saved by 'robotrules agents ranges --refresh', and with --rdns
forward-confirmed reverse DNS); requests to paths the site's robots.txt disallows for that
crawler (violations, with the deciding line and the first and last time); how often it
fetched robots.txt. Requests whose claim was found false (spoofed) are an impostor's: they get
a row of their own ('Googlebot (impostor)') and never count as the real crawler's. A
malformed line is counted and skipped; a log with no record at all is an error.

\b
exit status: 0; 1 if a crawler (not an impostor) fetched a disallowed path; 2 on a usage or
input error (no such file, a directory, no log record); 3 if --robots is a URL that could
not be fetched."""


@click.command("audit", help=HELP, short_help="crawlers in access logs: real? obeyed?",
               context_settings={"max_content_width": 100})
@click.argument("logs", nargs=-1, required=True, metavar="LOG...")
@click.option("--robots", "robots", required=True, metavar="FILE_OR_URL",
              help="the site's robots.txt (a file, - or a URL)")
@dialect_option()
@click.option("--ranges-dir", type=click.Path(file_okay=False), default=None,
              help="where 'agents ranges --refresh' saved the IP lists (default: the cache)")
@click.option("--max-age", type=Seconds(), default=7 * 86400.0, metavar="S",
              help="trust a range list for this long after its download (default 7 days)")
@click.option("--rdns", is_flag=True, help="also check addresses by forward-confirmed "
              "reverse DNS (network; each address once)")
@click.option("--dns-timeout", type=Seconds(), default=1.0, metavar="S",
              help="time limit of one reverse DNS check (default 1)")
@click.option("--dns-workers", type=click.IntRange(1, 256), default=32, metavar="N",
              help="reverse DNS checks run at once (default 32)")
@click.option("--dns-deadline", type=Seconds(), default=120.0, metavar="S",
              help="time limit of all reverse DNS checks of the run; later addresses are "
                   "'unverifiable' (default 120)")
@click.option("--nameserver", default=None, metavar="IP[:PORT]",
              help="ask this DNS server instead of the system's resolvers (with --rdns)")
@click.option("--progress/--no-progress", default=None,
              help="a progress bar on stderr (default: when stderr is a terminal)")
@json_option("JSON Lines: one object per crawler")
@color_option
def audit(logs: tuple[str, ...], robots: str, dialect: str, ranges_dir: str | None,
          max_age: float, rdns: bool, dns_timeout: float, dns_workers: int,
          dns_deadline: float, nameserver: str | None, progress: bool | None,
          as_json: bool, color: str | None) -> int:
    from robotrules.guard import Guard, RangeStore, Tally
    from robotrules.guard.logs import LogStats, open_log, read_log

    for name in logs:
        _check_log_path(name)
    reach = Reachability()
    src = load_source(robots, dialect=dialect, reach=reach)  # type: ignore[arg-type]
    if reach.answers:  # warned: "could not fetch ..."; no rules, no audit
        note("the audit needs the site's own robots.txt: no log was read")
        return EXIT_UNREACHABLE
    rules = src.rules(dialect)  # type: ignore[arg-type]
    resolver = None
    if rdns:
        try:
            from robotrules.guard.rdns import ReverseDns
        except ImportError:
            raise CliError("--rdns needs the guard extra: pip install 'robotrules[guard]'"
                           ) from None
        servers, port = _nameserver(nameserver)
        resolver = ReverseDns(nameservers=servers, port=port, timeout=dns_timeout)
    store = RangeStore.load(ranges_dir, max_age=max_age)
    store.log_warnings = False  # said here, once, as a note
    for text in store.staleness():
        note(text)
    guard = Guard(rules, mode="observe", ranges=store, rdns=resolver, dialect=dialect)
    tally = Tally()
    stats = LogStats()
    dns = _DnsPool(resolver, dns_workers, dns_deadline) if resolver is not None else None
    show = progress if progress is not None else sys.stderr.isatty()
    bar = _Bar(logs, color_mode(color)) if show else None
    started = time.monotonic()
    run = _Run(guard, tally, dns)
    try:
        for name in logs:
            try:
                stream = open_log(name)
            except OSError as exc:
                raise CliError(f"cannot read {name}: {exc.strerror or exc}") from None
            raw = getattr(stream, "fileobj", None) or stream
            try:
                run.feed(read_log(stream, stats), bar, raw)
            finally:
                if name != "-":
                    stream.close()
                if bar is not None:
                    bar.next_file()
    finally:
        if bar is not None:
            bar.stop()
        if dns is not None:
            dns.close()
    elapsed = time.monotonic() - started
    if not stats.records:
        where = ", ".join(logs)
        if not stats.lines:
            raise CliError(f"{where}: empty, 0 lines read: no access-log records to audit")
        raise CliError(f"{where}: no access-log records in {stats.lines:,} "
                       f"line{'s' if stats.lines != 1 else ''} read "
                       "(not nginx / Apache combined or common, nor JSON Lines)")
    if stats.malformed:
        note(f"{stats.malformed:,} bad line{'s' if stats.malformed != 1 else ''} skipped "
             f"(of {stats.lines:,} read): not a log record in a known format")
    if run.unjudged:
        note(f"{run.unjudged:,} lines could not be judged ({run.why}): skipped")
    if dns is not None and dns.unchecked:
        note(f"reverse DNS: {dns.unchecked:,} addresses not checked within --dns-deadline "
             f"({dns_deadline:g} s): their requests are 'unverifiable'")
    rows = list(tally)
    if as_json:
        for row in rows:
            emit_json(row.to_dict())
    else:
        from ._ui import Ui

        _human(Ui(color_mode(color)), tally, stats, elapsed)
    return 1 if any(r.violations for r in rows if not r.impostor) else 0


def _check_log_path(name: str) -> None:
    """A one-line error for a LOG argument that is not a readable file (``-`` is stdin; a
    device or a pipe such as ``/dev/null`` or ``<(zcat ...)`` is read as a stream)."""

    if name == "-":
        return
    try:
        mode = os.stat(name).st_mode
    except FileNotFoundError:
        raise CliError(f"no such log file: {name}") from None
    except OSError as exc:
        raise CliError(f"cannot read {name}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(mode):
        raise CliError(f"{name} is a directory: give the log files in it "
                       f"({name.rstrip('/')}/*.log)")
    if not os.access(name, os.R_OK):
        raise CliError(f"cannot read {name}: permission denied")


def _nameserver(text: str | None) -> tuple[list[str] | None, int]:
    """``IP``, ``IP:PORT`` or ``[IPv6]:PORT`` -> ([IP], port)."""

    if text is None:
        return None, 53
    host, port = text.strip(), "53"
    if host.startswith("["):
        host, _, rest = host[1:].partition("]")
        port = rest.lstrip(":") or "53"
    elif host.count(":") == 1:
        host, port = host.split(":")
    try:
        ipaddress.ip_address(host)
        number = int(port)
        if not 0 < number < 65536:
            raise ValueError
    except ValueError:
        raise CliError(f"--nameserver: {text!r} is not IP[:PORT]") from None
    return [host], number


class _DnsPool:
    """Reverse DNS checks for the audit: at most ``workers`` daemon threads, each look-up
    bounded by the resolver's own timeout and all of them by ``deadline`` seconds from the
    first. A look-up still running at the deadline is abandoned (its thread ends by its own
    timeout, and never holds up the exit)."""

    def __init__(self, resolver: Any, workers: int, deadline: float) -> None:
        import queue

        self.resolver = resolver
        self.workers = workers
        self.deadline = deadline
        self.ends: float | None = None
        self.unchecked = 0
        self._queue: queue.SimpleQueue[tuple[_Batch, tuple[str, tuple[str, ...]]]] = \
            queue.SimpleQueue()
        self._threads = 0

    def check(self, wanted: dict[tuple[str, tuple[str, ...]], None]) -> None:
        """Look each ``(address, suffixes)`` up at once; wait at most until the deadline."""

        if not wanted:
            return
        now = time.monotonic()
        if self.ends is None:
            self.ends = now + self.deadline
        left = self.ends - now
        if left <= 0:
            self.unchecked += len(wanted)
            return
        batch = _Batch(len(wanted))
        for item in wanted:
            self._queue.put((batch, item))
        while self._threads < min(self.workers, self._threads + len(wanted)):
            threading.Thread(target=self._work, name="robotrules-audit-dns",
                             daemon=True).start()
            self._threads += 1
        with batch.cond:
            batch.cond.wait_for(lambda: batch.left == 0, timeout=left)
            batch.cancelled = True
            self.unchecked += batch.left

    def _work(self) -> None:
        while True:
            batch, (ip, suffixes) = self._queue.get()
            if not batch.cancelled:
                # a failed look-up leaves no answer: "unverifiable", as a timeout does
                with contextlib.suppress(Exception):
                    self.resolver.check(ip, suffixes)
            with batch.cond:
                batch.left -= 1
                batch.cond.notify_all()

    def close(self) -> None:
        """Nothing to wait for: the threads are daemons, idle or ending by their timeout."""


class _Batch:
    def __init__(self, n: int) -> None:

        self.left = n
        self.cancelled = False
        self.cond = threading.Condition()


class _Run:
    """Judges log records in batches: decide each, check the addresses the batch needs
    (reverse DNS, at once), decide those again, add everything to the tally in order."""

    BATCH = 4096

    def __init__(self, guard: Any, tally: Tally, dns: _DnsPool | None) -> None:
        self.guard = guard
        self.tally = tally
        self.dns = dns
        self.unjudged = 0
        self.why = ""

    def feed(self, records: Any, bar: _Bar | None, raw: IO[bytes] | None) -> None:
        batch: list[Any] = []
        for n, rec in enumerate(records, 1):
            batch.append(rec)
            if len(batch) == self.BATCH:
                self._judge(batch)
                batch = []
            if bar is not None and not n & 0x3FFF:
                bar.update(raw)
        self._judge(batch)

    def _decide(self, rec: Any) -> Any:
        try:
            return self.guard.decide(rec.method, rec.path, {"user-agent": rec.user_agent},
                                     rec.ip, now=rec.time)
        except Exception as exc:  # one line the guard cannot judge never costs the others
            self.unjudged += 1
            self.why = self.why or f"{type(exc).__name__}"
            return None

    def _judge(self, batch: list[Any]) -> None:
        decisions = [self._decide(rec) for rec in batch]
        if self.dns is not None:
            wanted: dict[tuple[str, tuple[str, ...]], None] = {}
            for d in decisions:
                for p in getattr(d, "pending", ()) or ():
                    if getattr(p, "kind", None) == "rdns":
                        wanted[(p.key, tuple(p.suffixes))] = None
            if wanted:
                self.dns.check(wanted)
                decisions = [self._decide(rec) if d is not None and d.pending else d
                             for rec, d in zip(batch, decisions, strict=True)]
        for d in decisions:
            if d is not None:
                self.tally.add(d)


class _Bar:
    """Bytes of the log files read, on stderr."""

    def __init__(self, logs: tuple[str, ...], color: str) -> None:
        from ._ui import BYTES, progress_bar

        self.sizes = [os.path.getsize(n) if n != "-" else 0 for n in logs]
        self.done = 0
        self.index = 0
        self.bar = progress_bar("audit", color, total=sum(self.sizes) or None, counts=(BYTES,))

    def update(self, raw: IO[bytes] | None) -> None:
        try:
            pos = raw.tell() if raw is not None else 0
        except (OSError, ValueError):
            pos = 0
        self.bar.update(completed=self.done + pos)

    def next_file(self) -> None:
        if self.index < len(self.sizes):
            self.done += self.sizes[self.index]
            self.index += 1
        self.bar.update(completed=self.done)

    def stop(self) -> None:
        self.bar.stop()


def _when(iso: object) -> str:
    return str(iso).replace("T", " ").rstrip("Z") if iso else "-"


def _human(ui: Ui, tally: Tally, stats: LogStats, elapsed: float) -> None:
    rows = list(tally)
    table = ui.table("crawler", "purpose", "operator", "requests", "verified", "spoofed",
                     "unverif.", "unsigned", "violations", "robots.txt", title="crawlers")
    for r in rows:
        iv = r.robots_interval()
        robots = f"{r.robots_fetches}" + (f" (every {_span(iv)})" if iv else "")
        table.add_row(ui.text((r.crawler, "bold red" if r.impostor else "")),
                      r.purposes[0] if r.purposes else "unknown",
                      ui.text(r.operator or "-"), f"{r.requests:,}",
                      ui.text((f"{r.verified:,}", "green" if r.verified else "")),
                      ui.text((f"{r.spoofed:,}", "bold red" if r.spoofed else "")),
                      f"{r.unverifiable:,}", f"{r.unsigned:,}",
                      ui.text((f"{r.violation_count:,}", "bold red" if r.violations else "")),
                      robots)
    ui.render(table)
    by: dict[str, list[int]] = {}
    for r in rows:
        t = by.setdefault(r.purposes[0] if r.purposes else "unknown", [0] * 7)
        for i, n in enumerate((1, r.requests, r.verified, r.spoofed, r.unverifiable,
                               r.unsigned, r.violation_count)):
            t[i] += n
    if len(by) > 1:
        ui.line("")
        pt = ui.table("purpose", "crawlers", "requests", "verified", "spoofed", "unverif.",
                      "unsigned", "violations", title="by purpose")
        for purpose, t in sorted(by.items(), key=lambda kv: -kv[1][1]):
            pt.add_row(purpose, *(f"{n:,}" for n in t))
        ui.render(pt)
    broken = [(r, v) for r in rows for v in r.violations.values()]
    if broken:
        ui.line("")
        vt = ui.table("crawler", "line", "rule", "requests", "first", "last",
                      ("e.g.", {"overflow": "fold"}), title="robots.txt violations")
        for r, v in sorted(broken, key=lambda rv: -rv[1].count):
            d = v.to_dict()
            vt.add_row(ui.text((r.crawler, "bold red" if r.impostor else "")),
                       str(v.line or "-"), ui.text(v.rule or "-"), f"{v.count:,}",
                       _when(d["first"]), _when(d["last"]), ui.text(v.example))
        ui.render(vt)
    ui.line("")
    crawl = sum(r.requests for r in rows)
    rate = stats.lines / elapsed * 60 if elapsed > 0 else 0.0
    real = sum(r.violation_count for r in rows if not r.impostor)
    fake = sum(r.violation_count for r in rows if r.impostor)
    ui.line(f"{stats.lines:,} lines ({stats.malformed:,} malformed), {crawl:,} crawler "
            f"requests from {len(rows):,} crawlers, {tally.browsers:,} browser requests; "
            f"{sum(r.spoofed for r in rows):,} spoofed, {real:,} violations"
            + (f" (+{fake:,} by impostors)" if fake else "") + f" ({rate:,.0f} lines/min)")


def _span(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} d"
