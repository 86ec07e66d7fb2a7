"""The ``dataset`` command group (Click): ``robots``, ``verdicts`` and ``census``.

The main ``robotrules`` CLI attaches :data:`dataset` as a sub-command; ``python -m
robotrules.dataset.cli`` runs it alone. Errors (a bad or missing file, a missing column, a
missing extra) are one line on stderr and exit status 2, never a traceback. Progress bars are
drawn on stderr when it is a terminal and nowhere otherwise (for ``verdicts``, when the URL
file is Parquet, whose footer gives the total).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import click

from ._deps import DatasetError

__all__ = ["dataset", "main"]


def _fail(message: str) -> NoReturn:
    click.echo(f"robotrules dataset: error: {message}", err=True)
    raise SystemExit(2)


@contextmanager
def _errors() -> Iterator[None]:
    try:
        yield
    except DatasetError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"{exc.filename or ''}{': ' if exc.filename else ''}{exc.strerror or exc}")


@contextmanager
def _progress(total: int | None, label: str) -> Iterator[Callable[[int], None] | None]:
    """A click progress bar on a terminal (stderr), nothing otherwise."""
    if not sys.stderr.isatty() or total is None:
        yield None
        return
    bar: Any
    with click.progressbar(length=total, label=label, file=sys.stderr) as bar:
        yield bar.update


@click.group(name="dataset", context_settings={"help_option_names": ["-h", "--help"]})
def dataset() -> None:
    """robots.txt at dataset scale: web-archive captures, URL verdicts, crawler census.

    \b
    examples:
      robotrules dataset robots CC-MAIN-*.warc.gz -o robots.parquet
      robotrules dataset verdicts --robots robots.parquet --urls urls.parquet \\
          --agent GPTBot --agent Googlebot -o verdicts.parquet
      robotrules dataset census --robots 2025=robots-2025.parquet \\
          --robots 2026=robots-2026.parquet -o census/
    """


@dataset.command("robots")
@click.argument("warcs", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="robots.parquet to write")
def robots_cmd(warcs: tuple[str, ...], output: str) -> None:
    """Read robots.txt captures from WARC files into robots.parquet (one row per capture)."""
    with _errors():
        from .warc import read_warcs
        total = sum(os.path.getsize(w) for w in warcs if os.path.isfile(w))
        with _progress(total, "reading WARC files") as progress:
            stats = read_warcs(warcs, output, progress=progress)
    summary = stats.to_dict()
    click.echo(f"{stats.rows} robots.txt captures ({stats.error_rows} with errors) from "
               f"{stats.records} records -> {output}", err=True)
    if stats.skipped or stats.broken_files:
        click.echo("skipped: " + json.dumps({"records": summary["skipped"],
                                             "broken_files": summary["broken_files"]}), err=True)


@dataset.command("verdicts")
@click.option("--robots", "robots", required=True, multiple=True,
              type=click.Path(dir_okay=False), help="robots.parquet (repeatable: one crawl)")
@click.option("--urls", required=True, type=click.Path(dir_okay=False),
              help="URLs: .parquet, .csv (header line) or .jsonl")
@click.option("--agent", "agents", required=True, multiple=True, help="user agent (repeatable)")
@click.option("-o", "--output", required=True, type=click.Path(),
              help="verdicts.parquet to write (a Parquet directory with --engine spark)")
@click.option("--engine", type=click.Choice(["local", "spark"]), default="local",
              show_default=True)
@click.option("--column", default="url", show_default=True, help="the URL column")
@click.option("--workers", type=click.IntRange(1), default=None,
              help="local engine: worker processes (default: CPU count)")
@click.option("--dialect", type=click.Choice(["rfc9309", "google", "1994"]), default="rfc9309",
              show_default=True)
@click.option("--usage/--no-usage", default=None,
              help="add the AI usage-preference columns (default: when available)")
def verdicts_cmd(robots: tuple[str, ...], urls: str, agents: tuple[str, ...], output: str,
                 engine: str, column: str, workers: int | None, dialect: str,
                 usage: bool | None) -> None:
    """Per-agent verdicts (allowed, deciding line, rule) for every URL of a URL file."""
    with _errors():
        from .engines import run_verdicts
        with _progress(_rows(urls), "URLs") as progress:
            run = run_verdicts(list(robots), urls, output, list(agents),
                               engine=engine, url_column=column,  # type: ignore[arg-type]
                               usage=usage, dialect=dialect,  # type: ignore[arg-type]
                               workers=workers, progress=progress)
    if run.engine == "local":
        click.echo(f"{run.urls} URLs x {len(agents)} agents -> {output} "
                   f"({run.parses} robots.txt parsed)", err=True)
    else:
        click.echo(f"verdicts -> {output} (spark)", err=True)


@dataset.command("census")
@click.option("--robots", "robots", required=True, multiple=True,
              help="robots.parquet of a crawl, as PATH or LABEL=PATH (repeat for a trend)")
@click.option("--purpose", default=None, help="only the crawlers of this purpose (e.g. ai)")
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False),
              help="directory for the Parquet tables and PNG charts")
@click.option("--workers", type=click.IntRange(1), default=None)
def census_cmd(robots: tuple[str, ...], purpose: str | None, output: str,
               workers: int | None) -> None:
    """Per crawler and per purpose: origins blocking it fully, partly or not at all."""
    with _errors():
        from .census import run_census
        with _progress(len(robots), "crawls") as progress:
            result = run_census(list(robots), output, purpose=purpose, workers=workers,
                                progress=progress)
    for crawl in result.crawls:
        click.echo(f"{crawl}: {result.origins.get(crawl, 0)} origins", err=True)
    for path in result.files:
        click.echo(str(path))


def _rows(path: str) -> int | None:
    """Rows of a Parquet URL file from its footer (a bar needs a total); None otherwise."""
    if not path.lower().endswith((".parquet", ".pq")):
        return None
    try:
        import pyarrow.parquet as pq
        return int(pq.read_metadata(path).num_rows)
    except Exception:  # the command itself reports an unreadable file
        return None


def main(argv: list[str] | None = None) -> Any:
    """Run the group as a program (``python -m robotrules.dataset.cli``)."""
    return dataset.main(args=argv, prog_name="robotrules dataset", standalone_mode=True)


if __name__ == "__main__":
    main()
