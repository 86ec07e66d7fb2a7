"""``bulk``'s output: the rows (CSV or JSON Lines), the progress bar and the closing summary.

Rows go to stdout through :class:`Writer`, buffered in 64 KiB pieces. On a terminal
:class:`Bar` draws a Rich progress bar on stderr (URLs done, of the file's line count when
known; rate, ETA, origins, disallowed verdicts). :func:`summary` writes the per-origin table
and one line of counts on stderr, and every origin as JSON Lines with ``--summary FILE``,
from the counts the runner keeps (:class:`Totals`, an :class:`Origin` per origin).

Counts say what they count: ``URLs`` are input URLs; ``verdicts`` are URL x agent answers,
and ``allowed`` + ``disallowed`` = ``verdicts``, per origin and in total.
"""

from __future__ import annotations

import csv
import io
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any

from ._common import CliError
from ._outcomes import Reachability

__all__ = ["COLUMNS", "Bar", "Origin", "Totals", "Writer", "summary"]

#: One row per URL and agent. ``kind``: ``verdict`` (the file decided), ``unavailable`` (no
#: robots.txt: allow all), ``unreachable`` (could not fetch it: disallow all), ``bad-input``
#: or ``invalid-url`` (a row of its own); ``error`` says why for all but ``verdict``.
COLUMNS = ("n", "url", "agent", "allowed", "line", "rule", "reason", "status", "outcome",
           "kind", "error")


@dataclass(slots=True)
class Origin:
    status: int | None = None
    outcome: str = ""
    summary: str = ""
    urls: int = 0  # URLs of this origin (each gets one verdict per agent)
    allowed: int = 0  # verdicts
    disallowed: int = 0  # verdicts
    unreachable: bool = False  # its robots.txt could not be fetched (RFC 9309 2.3.1.4)


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


class Writer:
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


class Bar:
    """A Rich progress bar on stderr: URLs done (of the file's line count when known), the
    rate, the time left, origins and disallowed verdicts so far (``counts()`` gives them)."""

    def __init__(self, source: str, color: str, counts: Callable[[], tuple[int, int, int]],
                 started: float) -> None:
        from ._ui import progress_bar

        expected = count_lines(source) if source != "-" else None
        self.counts = counts
        self.started = started
        self.bar = progress_bar(
            "bulk", color, total=expected,
            counts=("{task.completed:,.0f}/{task.fields[of]}", "{task.fields[rate]} URLs/s"),
            after=("{task.fields[origins]} origins, {task.fields[disallowed]} disallowed",),
            refresh_per_second=5, of=f"{expected:,}" if expected else "?", rate="0",
            origins="0", disallowed="0")

    def update(self) -> None:
        done, origins, disallowed = self.counts()
        dt = max(time.monotonic() - self.started, 1e-6)
        self.bar.update(completed=done, rate=f"{done / dt:,.0f}", origins=f"{origins:,}",
                        disallowed=f"{disallowed:,}")

    async def run(self) -> None:
        import asyncio

        while True:
            self.update()
            await asyncio.sleep(0.2)

    def stop(self) -> None:
        self.update()
        self.bar.stop()


def count_lines(path: str) -> int | None:
    try:
        with open(path, "rb") as fh:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b""))
    except OSError:
        return None


LIMIT = 20  # rows of the per-origin table, beyond the unreachable origins


def summary(color: str, path: str | None, totals: Totals, n_agents: int,
            elapsed: float) -> None:
    """The per-origin table (stderr; all origins to ``path`` as JSON Lines) and the counts."""
    origins = totals.origins
    if path:
        try:
            with open(path, "w", encoding="utf-8") as fh:
                for name, o in origins.items():
                    fh.write(json.dumps({"origin": name, "status": o.status,
                                         "outcome": o.outcome, "summary": o.summary,
                                         "urls": o.urls, "verdicts": o.allowed + o.disallowed,
                                         "allowed": o.allowed,
                                         "disallowed": o.disallowed}) + "\n")
        except OSError as exc:
            raise CliError(f"cannot write {path}: {exc.strerror or exc}") from None
    from ._ui import Ui

    ui = Ui(color, sys.stderr)
    # The origins whose robots.txt could not be fetched first, all of them (their verdicts
    # are RFC 9309 2.3.1.4's disallow-all, not the site's rules); then the most disallowed,
    # up to LIMIT rows in all.
    shown = sorted(origins.items(), key=lambda kv: (not kv[1].unreachable, -kv[1].disallowed,
                                                    -kv[1].urls, kv[0]))
    limit = max(LIMIT, sum(o.unreachable for o in origins.values()))
    if shown and ui.console.width < 100:
        # A narrow terminal: a line per origin (wrapped between words), not a squeezed table.
        for name, o in shown[:limit]:
            ui.line((name, "bold"), f": {o.summary}; {o.urls:,} URLs, {o.allowed:,} allowed, ",
                    (f"{o.disallowed:,} disallowed", "red" if o.disallowed else ""))
    elif shown:
        # Origins and numbers whole (an origin folds only when longer than its column);
        # reasons wrap between words.
        number = {"justify": "right", "no_wrap": True}
        table = ui.table(("origin", {"overflow": "fold"}),
                         ("robots.txt", {"ratio": 1, "overflow": "fold"}), ("URLs", number),
                         ("verdicts", number), ("allowed", number), ("disallowed", number))
        for name, o in shown[:limit]:
            table.add_row(ui.text(name), ui.text(o.summary), f"{o.urls:,}",
                          f"{o.allowed + o.disallowed:,}", f"{o.allowed:,}",
                          ui.text((f"{o.disallowed:,}", "red" if o.disallowed else "")))
        ui.render(table)
    if len(shown) > limit:
            more = "; --summary FILE lists all" if not path else ""
            ui.line(f"... {len(shown) - limit:,} more origins{more}")
    ui.line(_counts(totals, n_agents, elapsed))


def _counts(totals: Totals, n_agents: int, elapsed: float) -> str:
    """One line of counts, each saying what it counts (URLs or verdicts)."""
    rate = totals.records / elapsed if elapsed > 0 else 0.0
    failed = []
    if totals.invalid:
        failed.append(f"{totals.invalid:,} invalid URL(s)")
    if totals.bad_lines:
        failed.append(f"{totals.bad_lines:,} unreadable line(s)")
    reach = totals.reach
    unreachable = (f", {reach.answers:,} URL(s) of {len(reach.origins):,} origin(s) whose "
                   "robots.txt could not be fetched" if reach.answers else "")
    return (f"{totals.records:,} input rows: {totals.urls:,} URLs x {n_agents} agent(s) = "
            f"{totals.rows:,} verdicts ({totals.rows - totals.disallowed:,} allowed, "
            f"{totals.disallowed:,} disallowed; {totals.disallowed_urls:,} of the URLs "
            f"disallowed for some agent), {len(totals.origins):,} origins{unreachable}"
            + (f"; {', '.join(failed)} (rows of their own)" if failed else "")
            + f"; in {elapsed:.1f} s ({rate:,.0f} rows/s)")
