"""The ``dataset`` command group (Click): ``robots``, ``verdicts``, ``census``, ``outcomes``
and ``history``.

The main ``robotrules`` CLI attaches :data:`dataset` as a sub-command; ``python -m
robotrules.dataset.cli`` runs it alone. Errors (a bad or missing file, a missing column, a
missing extra) are one line on stderr and exit status 2, never a traceback, and no output file
is left behind. Progress is drawn on stderr when it is a terminal (rich), for every input kind:
a bar when the total is known (Parquet footers, WARC sizes), a running count otherwise.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import click

from robotrules._dialects import NAMES
from robotrules.aipref.vocabulary import DEFAULT_VOCABULARY, VOCABULARIES
from robotrules.cli._common import policy_token_option

from ._deps import DatasetError
from ._io import warc_inputs
from .census import run_census
from .engines import run_verdicts
from .outcomes import parse_top, run_outcomes
from .warc import read_warcs

__all__ = ["dataset", "main"]

_threads_option = click.option("--threads", type=click.IntRange(1), default=None,
                               help="DuckDB threads (default: CPU count)")
_memory_option = click.option("--memory-limit", default=None,
                              help="DuckDB memory limit, e.g. 4GB (spills beyond)")
_scratch_option = click.option(
    "--scratch-dir", type=click.Path(file_okay=False), default=None,
    help="where DuckDB spills and temporary files go (default: the system's temporary "
         "directory)")
_master_option = click.option(
    "--master", default=None,
    help="Spark master URL for --engine spark (spark://host:7077, yarn, k8s://..., local[4]); "
         "default: spark-submit's --master, PYSPARK_SUBMIT_ARGS, spark.master in "
         "spark-defaults.conf, MASTER, else local[*]")


def _fail(message: str) -> NoReturn:
    click.echo(f"robotrules dataset: error: {message}", err=True)
    raise SystemExit(2)


def _terminate(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


@contextmanager
def _errors() -> Iterator[None]:
    """One-line errors; Ctrl-C is exit 130; SIGTERM unwinds like an exception (exit 143), so
    worker pools, temporary folders and partial files are cleaned up as on any error."""
    main = threading.current_thread() is threading.main_thread()
    before = signal.signal(signal.SIGTERM, _terminate) if main else None
    try:
        yield
    except KeyboardInterrupt:
        click.echo("robotrules dataset: interrupted", err=True)
        raise SystemExit(130) from None
    except DatasetError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"{exc.filename or ''}{': ' if exc.filename else ''}{exc.strerror or exc}")
    except Exception as exc:
        # DuckDB reports a Ctrl-C as its InterruptException, or as an error of our UDF
        if type(exc).__name__ == "InterruptException" or "KeyboardInterrupt" in str(exc):
            click.echo("robotrules dataset: interrupted", err=True)
            raise SystemExit(130) from None
        raise
    finally:
        if main:
            signal.signal(signal.SIGTERM, before)


class _Progress:
    """``progress(phase, done, total)`` drawn with rich on a terminal; nothing otherwise."""

    def __init__(self) -> None:
        self.bar: Any = None
        self.tasks: dict[str, Any] = {}
        self.lock = threading.Lock()  # DuckDB calls from several threads: one row per phase

    def __enter__(self) -> _Progress:
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )
            self.bar = Progress(TextColumn("{task.description}"), BarColumn(),
                                MofNCompleteColumn(), TimeElapsedColumn(),
                                console=Console(stderr=True), transient=True)
            self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def __call__(self, phase: str, done: int, total: int | None) -> None:
        if self.bar is None:
            return
        with self.lock:
            if phase not in self.tasks:
                self.tasks[phase] = self.bar.add_task(phase, total=total)
            self.bar.update(self.tasks[phase], completed=done, total=total)


def _engine_line(engine: str) -> None:
    if engine != "duckdb":
        click.echo(f"ran on {engine}", err=True)


@click.group(name="dataset", invoke_without_command=True,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.pass_context
def dataset(ctx: click.Context) -> None:
    """robots.txt at dataset scale: web-archive captures, URL verdicts, census, Common Crawl's
    outcome table, history per origin.

    \b
    examples:
      robotrules dataset robots examples/dataset/crawl-1.warc.gz -o robots-1.parquet
      robotrules dataset verdicts --robots robots-1.parquet \\
          --urls examples/dataset/urls.csv --agent GPTBot --agent Googlebot -o verdicts.parquet
      robotrules dataset census --robots 2026-09=robots-1.parquet -o census/
      robotrules dataset outcomes --robots robots-1.parquet \\
          --ranks examples/dataset/ranks.csv --top 3,10 -o outcomes.csv
      robotrules dataset history --robots 2026-09=robots-1.parquet \\
          --robots 2026-10=robots-2.parquet -o history/
    """
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


@dataset.command("robots", short_help="robots.txt captures of WARC files into robots.parquet")
@click.argument("warcs", nargs=-1, required=True)
@click.option("--prefix", default=None,
              help="folder the relative paths of a list file are under (where Common Crawl's "
                   "robotstxt.paths.gz files were downloaded to; default: the current folder)")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="robots.parquet to write")
def robots_cmd(warcs: tuple[str, ...], prefix: str | None, output: str) -> None:
    """Read robots.txt captures from WARC files into robots.parquet (one row per capture).

    Each WARCS argument is a WARC file, a quoted glob ('crawl/**/*.warc.gz'), a directory
    (its WARC files, all levels down) or a list file, one path a line: @FILE, or a name
    ending .paths, .paths.gz (Common Crawl's robotstxt.paths.gz), .txt or .lst. A whole
    crawl is one run, so redirects resolve across its files.
    """
    with _errors():
        files = warc_inputs(warcs, prefix)
        total = sum(os.path.getsize(w) for w in files)
        with _Progress() as progress:
            done = [0]

            def step(size: int) -> None:
                done[0] += size
                progress("reading WARC files (bytes)", done[0], total)

            stats = read_warcs(files, output, progress=step)
    click.echo(f"{stats.rows:,} robots.txt captures ({stats.error_rows:,} with errors) from "
               f"{stats.records:,} records of {len(files):,} WARC file"
               f"{'s' if len(files) != 1 else ''} -> {output}", err=True)
    for line in stats.summary():
        click.echo(line, err=True)
    for path in stats.files:
        click.echo(str(path))
    if stats.broken_files:
        raise SystemExit(1)


@dataset.command("verdicts", short_help="per-agent verdicts for every URL of URL files")
@click.option("--robots", "robots", required=True, multiple=True,
              help="robots.parquet or a glob (repeatable: one crawl)")
@click.option("--urls", "urls", required=True, multiple=True,
              help="URLs: .parquet, .csv (header line) or .jsonl, or a glob (repeatable)")
@click.option("--agent", "agents", required=True, multiple=True, help="user agent (repeatable)")
@click.option("-o", "--output", required=True, type=click.Path(),
              help="verdicts.parquet to write (a Parquet directory with --engine spark)")
@click.option("--engine", type=click.Choice(["duckdb", "spark"]), default="duckdb",
              show_default=True)
@click.option("--column", default="url", show_default=True, help="the URL column")
@_threads_option
@_memory_option
@click.option("--workers", type=click.IntRange(1), default=1, show_default=True,
              help="processes running the kernel (DuckDB's threads read, join and sort)")
@_scratch_option
@click.option("--dialect", type=click.Choice(NAMES), default="rfc9309",
              show_default=True)
@click.option("--usage/--no-usage", default=None,
              help="add the AI usage-preference columns (default: on)")
@click.option("--vocabulary", type=click.Choice(sorted(VOCABULARIES)),
              default=DEFAULT_VOCABULARY, show_default=True,
              help="the AIPREF vocabulary of the usage columns (vocab-08 adds ai-use)")
@_master_option
def verdicts_cmd(robots: tuple[str, ...], urls: tuple[str, ...], agents: tuple[str, ...],
                 output: str, engine: str, column: str, threads: int | None,
                 memory_limit: str | None, workers: int, scratch_dir: str | None,
                 dialect: str, usage: bool | None, vocabulary: str,
                 master: str | None) -> None:
    """Per-agent verdicts (allowed, deciding line, rule, reason) for every URL of URL files."""
    with _errors(), _Progress() as progress:
        run = run_verdicts(list(robots), list(urls), output, list(agents),
                           engine=engine, url_column=column,  # type: ignore[arg-type]
                           usage=usage, dialect=dialect,  # type: ignore[arg-type]
                           threads=threads, memory_limit=memory_limit, workers=workers,
                           scratch_dir=scratch_dir, progress=progress, master=master,
                           vocabulary=vocabulary)
    if run.engine == "duckdb":
        click.echo(f"{run.urls:,} URLs x {len(agents)} agents -> {output} "
                   f"({run.parses:,} robots.txt parsed)", err=True)
    else:
        click.echo(f"verdicts -> {output} ({run.where})", err=True)
    if run.bad_rows:
        click.echo(f"skipped {run.bad_rows:,} unreadable URL rows", err=True)
    click.echo(output)


@dataset.command("census", short_help="per crawler and purpose: who blocks it; usage signals")
@click.option("--robots", "robots", required=True, multiple=True,
              help="robots.parquet of a crawl, as PATH or LABEL=PATH (repeat for a trend)")
@click.option("--purpose", default=None, help="only the crawlers of this purpose (e.g. training)")
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False),
              help="directory for the Parquet tables and PNG charts")
@click.option("--workers", type=click.IntRange(1), default=None,
              help="processes assessing files (default: CPU count)")
@click.option("--engine", type=click.Choice(["duckdb", "spark"]), default="duckdb",
              show_default=True)
@_threads_option
@_memory_option
@_scratch_option
@policy_token_option
@_master_option
def census_cmd(robots: tuple[str, ...], purpose: str | None, output: str,
               workers: int | None, engine: str, threads: int | None,
               memory_limit: str | None, scratch_dir: str | None,
               policy_tokens: dict[str, str] | None, master: str | None) -> None:
    """Per crawler and purpose: origins blocking it fully, partly or not at all; usage signals."""
    with _errors(), _Progress() as progress:
        done = [0]

        def step(n: int) -> None:
            done[0] += n
            progress("crawls", done[0], len(robots))

        result = run_census(list(robots), output, purpose=purpose, workers=workers,
                            progress=step, engine=engine, policy_tokens=policy_tokens,
                            master=master, threads=threads, memory_limit=memory_limit,
                            scratch_dir=scratch_dir)
    _engine_line(result.engine)
    for line in result.headline():
        click.echo(line, err=True)
    for path in result.files:
        click.echo(str(path))


@dataset.command("outcomes", short_help="Common Crawl's outcome table, with RFC 9309's")
@click.option("--robots", "robots", required=True, multiple=True,
              help="robots.parquet of a crawl, as PATH or LABEL=PATH (repeatable)")
@click.option("--ranks", required=True,
              help="ranked host list: 'rank,host' lines (Tranco), 'rank<TAB>host' lines "
                   "(Common Crawl's tranco_combined.txt.gz), gzip or not, or a CSV whose "
                   "header names rank and host/site/domain")
@click.option("--top", default="1000,10000,50000,100000,1000000", show_default=True,
              help="strata: comma-separated k (1k, 10k, 1M also read); k beyond the list "
                   "are left out, the whole list is always the last stratum")
@click.option("--date", "dates", multiple=True,
              help="LABEL=YYYY-MM-DD for the dt column (default: the Monday of the crawl's "
                   "week: of CC-MAIN-YYYY-WW's ISO week, else of its first capture's)")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="CSV to write (with a -rfc9309.csv companion)")
@click.option("--engine", type=click.Choice(["duckdb", "spark"]), default="duckdb",
              show_default=True)
@_threads_option
@_memory_option
@_scratch_option
@_master_option
def outcomes_cmd(robots: tuple[str, ...], ranks: str, top: str, dates: tuple[str, ...],
                 output: str, engine: str, threads: int | None, memory_limit: str | None,
                 scratch_dir: str | None, master: str | None) -> None:
    """Common Crawl's robots.txt outcome table per top-k stratum (its procedure: the latest
    capture per URL, the exact host, the detected MIME type, redirects followed), with RFC
    9309's outcome beside it. Reads the capture index that 'dataset robots' writes beside
    robots.parquet."""
    with _errors():
        result = run_outcomes(list(robots), ranks, output, top=parse_top(top),
                              dates=dict(d.partition("=")[::2] for d in dates), engine=engine,
                              master=master, threads=threads, memory_limit=memory_limit,
                              scratch_dir=scratch_dir)
    _engine_line(result.engine)
    for line in result.headline():
        click.echo(line, err=True)
    for path in result.files:
        click.echo(str(path))


@dataset.command("history", short_help="what changed per origin between crawls")
@click.option("--robots", "robots", required=True, multiple=True,
              help="robots.parquet of a crawl, LABEL=PATH, oldest first (two or more)")
@click.option("--agent", "agents", multiple=True,
              help="crawlers to follow (default: the registry's, or those of --purpose)")
@click.option("--purpose", default=None, help="only the registry's crawlers of this purpose")
@click.option("--paths", default="/,/search,/api/,/wp-admin/,/private/,/cart",
              show_default=True, help="the path sample checked on every origin")
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False),
              help="directory for the tables (Parquet) and the chart (PNG)")
@click.option("--engine", type=click.Choice(["duckdb", "spark"]), default="duckdb",
              show_default=True)
@_threads_option
@_memory_option
@_scratch_option
@_master_option
def history_cmd(robots: tuple[str, ...], agents: tuple[str, ...], purpose: str | None,
                paths: str, output: str, engine: str, threads: int | None,
                memory_limit: str | None, scratch_dir: str | None, master: str | None) -> None:
    """What changed per origin between consecutive crawls: access, groups, usage signals."""
    with _errors():
        from .history import run_history
        result = run_history(list(robots), output, agents=list(agents) or None,
                             purpose=purpose, paths=[p for p in paths.split(",") if p],
                             engine=engine, master=master, threads=threads,
                             memory_limit=memory_limit, scratch_dir=scratch_dir)
    _engine_line(result.engine)
    for line in result.headline():
        click.echo(line, err=True)
    for path in result.files:
        click.echo(str(path))


def main(argv: list[str] | None = None) -> Any:
    """Run the group as a program (``python -m robotrules.dataset.cli``)."""
    return dataset.main(args=argv, prog_name="robotrules dataset", standalone_mode=True)


if __name__ == "__main__":
    main()
