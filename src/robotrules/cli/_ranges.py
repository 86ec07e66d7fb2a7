"""``robotrules agents ranges``: the crawler operators' published IP lists, downloaded and kept
with their dates for the guard (``robotrules.guard``) and ``robotrules audit``.

``robotrules agents ranges`` lists them (URL, format, which crawlers, saved when, how many
prefixes); ``--refresh`` downloads each (:func:`robotrules.guard.ranges.refresh`: public
addresses only, a decoded-size cap, a deadline per list, conditional on the saved ETag) into
the cache directory (``--dir``; default ``~/.cache/robotrules/ranges``). A list that cannot be
fetched keeps its previous copy and date, so the guard calls it stale in time and says
"unverifiable" rather than trusting it; the table says why in one line, a warning on stderr
says which lists could not be fetched, and the exit status is 3 (the CLI's "could not
fetch").

``agents`` itself stays the command of ``robotrules.cli._agents``: :data:`agents` hands every
other argument list to it, so ``robotrules agents FILE`` is unchanged.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import click

from robotrules.agents import find_agent

from ._agents import agents as _agents_cmd
from ._common import CliError, Seconds, color_mode, color_option, emit_json, json_option
from ._outcomes import EXIT_UNREACHABLE, Reachability


def warn(message: str) -> None:
    """A warning on stderr (the form every command's "could not fetch" takes)."""

    Reachability().warn(message)

HELP = """The crawler operators' published IP lists, for the guard and 'audit'.

\b
examples:
  robotrules agents ranges
  robotrules agents ranges --refresh
  robotrules agents ranges --refresh --dir ./ranges --json

Lists each range list of the registry (Google, Bing, OpenAI, Apple, Perplexity ...), which
crawlers it covers, when it was saved and how many prefixes it has. --refresh downloads them
(network) into --dir (default ~/.cache/robotrules/ranges).

\b
exit status: 0; 3 if a --refresh download failed (the saved copies are kept); 2 on a
usage error."""


@click.command("ranges", help=HELP, short_help="the operators' published IP lists",
               context_settings={"max_content_width": 100})
@click.option("--refresh", is_flag=True, help="download every list now (network)")
@click.option("--dir", "directory", type=click.Path(file_okay=False), default=None,
              help="where the lists are kept (default ~/.cache/robotrules/ranges)")
@click.option("--timeout", type=Seconds(), default=15.0, metavar="S",
              help="time limit in seconds per list, all of the download (default 15)")
@click.option("--allow-loopback", is_flag=True, hidden=True,
              help="also fetch from 127.0.0.1 / ::1 (tests)")
@json_option("JSON Lines: one object per list")
@color_option
def ranges(refresh: bool, directory: str | None, timeout: float, allow_loopback: bool,
           as_json: bool, color: str | None) -> int:
    from robotrules.guard.ranges import RangeStore, default_dir
    from robotrules.guard.ranges import refresh as do_refresh
    from robotrules.guard.registry import _table, range_lists

    lists = range_lists()
    who: dict[str, list[str]] = {}
    for token, checks in _table().items():
        if checks.ranges_url:
            who.setdefault(checks.ranges_url, []).append(token)
    errors: dict[str, str] = {}
    unchanged: set[str] = set()
    if refresh:
        try:
            done = do_refresh(lists, directory, timeout=timeout, allow_loopback=allow_loopback)
        except OSError as exc:  # the cache directory itself
            raise CliError(f"--dir: cannot write {directory or default_dir()}: "
                           f"{exc.strerror or exc}") from None
        for r in done:
            if not r.ok:
                errors[r.url] = r.error or "failed"
            elif r.not_modified:
                unchanged.add(r.url)
        for url, why in errors.items():
            warn(f"could not fetch {url} ({why}): the saved copy, if any, is kept")
    store = RangeStore.load(directory)
    now = time.time()
    rows: list[dict[str, Any]] = []

    for url, fmt in lists.items():
        rl = store.lists.get(url)
        names = [a.token if (a := find_agent(t)) else t for t in who.get(url, [])]
        rows.append({
            "url": url, "format": fmt, "crawlers": names,
            "saved": datetime.fromtimestamp(rl.fetched, UTC).isoformat() if rl else None,
            "age_s": round(now - rl.fetched) if rl else None,
            "created": rl.created if rl else None,
            "prefixes": rl.prefixes if rl else 0,
            "fresh": rl is not None and now - rl.fetched <= store.max_age,
            "error": errors.get(url),
            "not_modified": url in unchanged,
        })
    status = EXIT_UNREACHABLE if errors else 0
    if as_json:
        for row in rows:
            emit_json(row)
        return status
    from ._ui import Ui

    ui = Ui(color_mode(color))
    table = ui.table("list", "crawlers", "saved", "prefixes", "state",
                     title=f"published IP ranges ({directory or default_dir()})")
    for row in rows:
        state = ("fresh", "green") if row["fresh"] else (
            ("stale", "yellow") if row["saved"] else ("missing", "yellow"))
        if row["error"]:
            state = (f"{state[0]}; could not fetch: {row['error']}", "bold red")
        elif row["not_modified"]:
            state = ("fresh (not modified)", "green")
        table.add_row(ui.text(row["url"]), ui.text(", ".join(row["crawlers"])),
                      str(row["saved"] or "-")[:19], str(row["prefixes"]), ui.text(state))
    ui.render(table)
    if not refresh and not any(r["saved"] for r in rows):
        ui.line("none saved yet: run 'robotrules agents ranges --refresh'")
    return status


class _Agents(click.Command):
    """``agents``: the ``ranges`` sub-command when named first, the agents command else."""

    def make_context(self, info_name: str | None, args: list[str],
                     parent: click.Context | None = None, **extra: Any) -> click.Context:
        if args and args[0] == "ranges":
            return ranges.make_context(f"{info_name} ranges", args[1:], parent=parent, **extra)
        return _agents_cmd.make_context(info_name, args, parent=parent, **extra)


_EPILOG = ("also: 'robotrules agents ranges [--refresh]', the operators' published IP "
           "lists (see 'robotrules agents ranges --help')")
if _EPILOG not in (_agents_cmd.epilog or ""):  # shown by 'robotrules agents --help'
    _agents_cmd.epilog = f"{_agents_cmd.epilog}\n\n{_EPILOG}" if _agents_cmd.epilog \
        else _EPILOG
agents = _Agents("agents", help=_agents_cmd.help, short_help=_agents_cmd.short_help,
                 params=_agents_cmd.params, callback=_agents_cmd.callback,
                 context_settings=_agents_cmd.context_settings, epilog=_EPILOG)
