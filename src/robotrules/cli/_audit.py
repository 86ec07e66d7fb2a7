"""``robotrules audit``: who crawled the site, who was real, and who broke its robots.txt,
from access logs (nginx / Apache combined, JSON Lines, gzip).

Each log line goes through the guard's decision core (:class:`robotrules.guard.Guard`) in
observe mode, with the time and client address of the line: the crawler by the product-token
rule and the registry, verification from the published IP ranges on disk (``robotrules agents
ranges --refresh``) and, with ``--rdns``, forward-confirmed reverse DNS (each address once,
bounded by ``--dns-timeout``); the robots.txt verdict with its deciding line. The tallies are
:class:`robotrules.guard.Tally`. Memory is bounded by the number of distinct crawlers, never by
the size of the logs.
"""

from __future__ import annotations

import os
import sys
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
purpose: requests; verified / spoofed / unverifiable / unsigned (from the client addresses:
the operators' published IP ranges saved by 'robotrules agents ranges --refresh', and with
--rdns forward-confirmed reverse DNS); requests to paths the site's robots.txt disallows for
that crawler (violations, with the deciding line and the first and last time); how often it
fetched robots.txt. A malformed line is counted and skipped.

\b
exit status: 0, 1 if any crawler fetched a disallowed path, 2 on a usage or input error."""


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
@click.option("--nameserver", default=None, metavar="IP[:PORT]",
              help="ask this DNS server instead of the system's resolvers (with --rdns)")
@click.option("--progress/--no-progress", default=None,
              help="a progress bar on stderr (default: when stderr is a terminal)")
@json_option("JSON Lines: one object per crawler")
@color_option
def audit(logs: tuple[str, ...], robots: str, dialect: str, ranges_dir: str | None,
          max_age: float, rdns: bool, dns_timeout: float, nameserver: str | None,
          progress: bool | None,
          as_json: bool, color: str | None) -> int:
    from robotrules.guard import Guard, RangeStore, Tally
    from robotrules.guard.logs import LogStats, open_log, read_log

    src = load_source(robots, dialect=dialect)  # type: ignore[arg-type]
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
    guard = Guard(rules, mode="observe", ranges=RangeStore.load(ranges_dir, max_age=max_age),
                  rdns=resolver, dialect=dialect)
    tally = Tally()
    stats = LogStats()
    for name in logs:
        if name != "-" and not os.path.isfile(name):
            raise CliError(f"no such log file: {name}")
    show = progress if progress is not None else sys.stderr.isatty()
    bar = _Bar(logs, color_mode(color)) if show else None
    started = time.monotonic()
    try:
        for name in logs:
            stream = open_log(name)
            raw = getattr(stream, "fileobj", None) or stream
            try:
                _run(guard, read_log(stream, stats), tally, rdns, bar, raw)
            finally:
                if name != "-":
                    stream.close()
                if bar is not None:
                    bar.next_file()
    finally:
        if bar is not None:
            bar.stop()
    elapsed = time.monotonic() - started
    if stats.malformed:
        note(f"{stats.malformed:,} of {stats.lines:,} lines were not log records: skipped")
    rows = list(tally)
    if as_json:
        for row in rows:
            emit_json(row.to_dict())
    else:
        from ._ui import Ui

        _human(Ui(color_mode(color)), tally, stats, elapsed)
    return 1 if any(r.violations for r in rows) else 0


def _nameserver(text: str | None) -> tuple[list[str] | None, int]:
    """``IP``, ``IP:PORT`` or ``[IPv6]:PORT`` -> ([IP], port)."""
    import ipaddress

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


def _run(guard: Any, records: Any, tally: Tally, rdns: bool, bar: _Bar | None,
         raw: IO[bytes] | None) -> None:
    decide = guard.decide
    add = tally.add
    headers: dict[str, str] = {}
    for n, rec in enumerate(records, 1):
        headers["user-agent"] = rec.user_agent
        d = decide(rec.method, rec.path, headers, rec.ip, now=rec.time)
        if d.pending and rdns:
            guard.resolve(d.pending)
            d = decide(rec.method, rec.path, headers, rec.ip, now=rec.time)
        add(d)
        if bar is not None and not n & 0x3FFF:
            bar.update(raw)


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
                     "unverif.", "violations", "robots.txt", title="crawlers")
    for r in rows:
        iv = r.robots_interval()
        robots = f"{r.robots_fetches}" + (f" (every {_span(iv)})" if iv else "")
        table.add_row(ui.text(r.crawler), r.purposes[0] if r.purposes else "unknown",
                      ui.text(r.operator or "-"), f"{r.requests:,}",
                      ui.text((f"{r.verified:,}", "green" if r.verified else "")),
                      ui.text((f"{r.spoofed:,}", "bold red" if r.spoofed else "")),
                      f"{r.unverifiable:,}",
                      ui.text((f"{r.violation_count:,}", "bold red" if r.violations else "")),
                      robots)
    ui.render(table)
    by: dict[str, list[int]] = {}
    for r in rows:
        t = by.setdefault(r.purposes[0] if r.purposes else "unknown", [0] * 6)
        for i, n in enumerate((1, r.requests, r.verified, r.spoofed, r.unverifiable,
                               r.violation_count)):
            t[i] += n
    if len(by) > 1:
        ui.line("")
        pt = ui.table("purpose", "crawlers", "requests", "verified", "spoofed", "unverif.",
                      "violations", title="by purpose")
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
            vt.add_row(ui.text(r.crawler), str(v.line or "-"), ui.text(v.rule or "-"),
                       f"{v.count:,}", _when(d["first"]), _when(d["last"]), ui.text(v.example))
        ui.render(vt)
    ui.line("")
    crawl = sum(r.requests for r in rows)
    rate = stats.lines / elapsed * 60 if elapsed > 0 else 0.0
    ui.line(f"{stats.lines:,} lines ({stats.malformed:,} malformed), {crawl:,} crawler "
            f"requests from {len(rows):,} crawlers, {tally.browsers:,} browser requests; "
            f"{sum(r.spoofed for r in rows):,} spoofed, "
            f"{sum(r.violation_count for r in rows):,} violations "
            f"({rate:,.0f} lines/min)")


def _span(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} d"
