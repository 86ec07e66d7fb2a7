"""``robotrules agents``: which well-known crawlers a robots.txt blocks, and by which group."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from robotrules.agents import AgentAccess, KnownAgent, assess, known_agents

from ._common import (
    color_mode,
    color_option,
    dialect_option,
    emit_json,
    fetch_options,
    json_option,
    load_source,
    size_option,
)

if TYPE_CHECKING:
    from ._ui import Ui

HELP = """Which well-known crawlers (search, AI, SEO ...) a robots.txt blocks, and by which group.

\b
examples:
  robotrules agents examples/robots.txt
  robotrules agents https://example.com --category ai
  robotrules agents examples/robots.txt --json | grep '"access": "blocked"'

For each crawler of the bundled list (token, operator, purpose) it says whether the file
blocks it entirely, partly or not at all, and which group decides. Googlebot-Image & co. fall
back to Googlebot's group and AdsBot ignores the * group, as Google documents.

\b
exit status: 0, or 2 on a usage or input error."""


def _categories() -> list[str]:
    return list(dict.fromkeys(a.category for a in known_agents()))


@click.command("agents", help=HELP, short_help="which well-known crawlers a file blocks",
               context_settings={"max_content_width": 100})
@click.argument("source", metavar="FILE_OR_URL")
@click.option("--category", "-c", "categories", multiple=True,
              type=click.Choice(sorted(_categories())),
              help="only these categories (repeatable)")
@dialect_option()
@json_option("JSON Lines: one object per crawler")
@fetch_options
@size_option
@color_option
def agents(source: str, categories: tuple[str, ...], dialect: str, as_json: bool,
           timeout: float | None, min_ttl: float | None, no_size_limit: bool,
           color: str | None) -> int:
    src = load_source(source, dialect=dialect, timeout=timeout,  # type: ignore[arg-type]
                      min_ttl=min_ttl, whole=no_size_limit)
    rules = src.rules(dialect)  # type: ignore[arg-type]
    chosen = [a for a in known_agents() if not categories or a.category in categories]
    rows: list[AgentAccess] = []
    for a in chosen:
        if src.fetched is not None and src.fetched.outcome != "rules":
            rows.append(_outcome_access(a, src.fetched.outcome, src.fetched.summary))
        else:
            rows.append(assess(rules, a))
    if as_json:
        for r in rows:
            d = r.to_dict()
            d["name"] = r.agent.name
            d["purpose"] = r.agent.purpose
            emit_json(d)
        return 0
    from ._ui import Ui

    _human(Ui(color_mode(color)), src.name, rows)
    return 0


def _outcome_access(agent: KnownAgent, outcome: str, summary: str) -> AgentAccess:
    blocked = outcome == "disallow-all"
    return AgentAccess(agent, "blocked" if blocked else "allowed", "none", None, (), None, None,
                       summary)


_PAINT = {"blocked": "bold red", "partial": "yellow", "allowed": "green"}


def _human(ui: Ui, name: str, rows: list[AgentAccess]) -> None:
    # One table per category, each heading once, in the order the data lists categories.
    order = {c: i for i, c in enumerate(_categories())}
    by: dict[str, list[AgentAccess]] = {}
    for r in sorted(rows, key=lambda r: order.get(r.agent.category, len(order))):
        by.setdefault(r.agent.category, []).append(r)
    for category, members in by.items():
        table = ui.table("crawler", "access", "group", "operator",
                         ("why", {"overflow": "fold"}), title=f"{category} ({len(members)})")
        for r in members:
            group = f"line {r.group_line}" if r.group_line else "-"
            table.add_row(ui.text(r.agent.token), ui.text((r.access, _PAINT[r.access])),
                          group, ui.text(r.agent.operator), ui.text((r.detail, "dim")))
        ui.render(table)
        ui.line("")
    counts = {k: sum(r.access == k for r in rows) for k in ("blocked", "partial", "allowed")}
    ui.line(f"{name}: ", (f"{counts['blocked']} blocked", _PAINT["blocked"]), ", ",
            (f"{counts['partial']} partly blocked", _PAINT["partial"]), ", ",
            (f"{counts['allowed']} allowed", _PAINT["allowed"]),
            f" of {len(rows)} known crawlers")
