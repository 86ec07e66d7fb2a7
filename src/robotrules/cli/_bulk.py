"""``robotrules bulk``: verdicts for many URLs and agents, robots.txt fetched once per origin.

The command (this module: options, the input stream, the exit status) over three modules by
job: :mod:`._bulk_input` reads the input (bytes to lines to URLs, each line on its own, no
Click), :mod:`._bulk_run` runs the workers (one fetch per origin, one row per verdict) and
:mod:`._bulk_output` writes the rows, the progress bar and the summary. The exit status is 2
when any row failed (after every good row has been written), 3 when any rests on a robots.txt
that could not be fetched (``_outcomes``), else 1 when any verdict disallows.
"""

from __future__ import annotations

import sys
from typing import IO

import click

from ._bulk_input import MAX_LINE, records, split_lines
from ._bulk_output import COLUMNS, Totals
from ._bulk_output import summary as write_summary
from ._bulk_run import Settings, run
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
)
from ._outcomes import unreachable_option

__all__ = ["COLUMNS", "MAX_LINE", "bulk", "records", "split_lines"]

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
agent, allowed, line, rule, reason, status, outcome, kind (verdict, unavailable, unreachable,
bad-input, invalid-url) and error (why, for all but verdict), in the order verdicts are
known. A site whose robots.txt cannot be fetched (network error, 5xx, 429) gets RFC 9309's
disallow-all rows, kind 'unreachable', and a warning on stderr once.
robots.txt files are cached in the same SQLite cache as 'check' (--no-cache to skip). On a
terminal: a progress bar with rate and ETA (stderr); at the end a summary table per origin
(stderr; --summary FILE writes every origin as JSON Lines).

\b
exit status: 0 all allowed, 1 any disallowed, 2 any row failed (bad line, invalid URL) or a
usage error, 3 any row rests on a robots.txt that could not be fetched
(--no-fail-on-unreachable: 1); every good row is written either way."""


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
@unreachable_option
@color_option
def bulk(source: str, agents: tuple[str, ...], concurrency: int, fmt: str, dialect: str,
         timeout: float | None, min_ttl: float | None, no_cache: bool, user_agent: str | None,
         summary: str | None, progress: str, fail_on_unreachable: bool,
         color: str | None) -> int:
    need_fetch()
    tokens = list(dict.fromkeys(agent_token(a) for a in agents))
    if user_agent is None:
        user_agent = next((h for h in map(header_for, agents) if h), None)
    if source == "-":
        # stdin unbuffered (its descriptor, left open): the reader thread then blocks in a raw
        # read that holds no lock, so an exit (Ctrl-C) while it waits for input cannot meet
        # the interpreter's shutdown on sys.stdin's buffer lock (a fatal abort, SIGABRT)
        stream: IO[bytes] = open(sys.stdin.fileno(), "rb", buffering=0, closefd=False)  # noqa: SIM115
    else:
        try:
            stream = open(source, "rb")  # noqa: SIM115 (closed below)
        except OSError as exc:
            raise CliError(f"cannot read {source}: {exc.strerror or exc}") from None
    mode = color_mode(color)
    show = progress == "always" or (progress == "auto" and sys.stderr.isatty())
    settings = Settings(concurrency, fmt, dialect, user_agent, not no_cache,
                        client_settings(timeout=timeout, min_ttl=min_ttl), source, show, mode)
    totals = Totals()
    import asyncio

    try:
        elapsed = asyncio.run(run(settings, tokens, stream, totals))
    finally:
        stream.close()
    write_summary(settings.color, summary, totals, len(tokens), elapsed)
    failed = totals.invalid + totals.bad_lines
    if failed:
        where = ", ".join(map(str, totals.failed_lines[:10]))
        more = ", ..." if failed > 10 else ""
        sys.stderr.write(f"robotrules: {failed:,} row(s) failed (input line {where}{more}); "
                         "their rows say why\n")
        return 2
    return totals.reach.status(1 if totals.disallowed else 0, fail_on_unreachable)
