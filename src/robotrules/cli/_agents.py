"""``robotrules agents``: which well-known crawlers a robots.txt blocks, and by which group."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from robotrules.agents import (
    PURPOSES,
    AgentAccess,
    KnownAgent,
    assess_many,
    known_agents,
    purposes_of,
)

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
    from robotrules import RobotsTxt

    from ._ui import Ui

HELP = """Which well-known crawlers (search, AI, SEO ...) a robots.txt blocks, and by which group.

\b
examples:
  robotrules agents examples/robots.txt
  robotrules agents examples/robots.txt --purpose training
  robotrules agents examples/robots.txt --json | grep '"access": "blocked"'

For each crawler of the registry (token, operator, purposes) it says whether the file blocks
it entirely, partly or not at all, which group and line decide, and the AI usage preferences
the file states for it (Content-Usage, Content-Signal) at the site root. Crawlers are grouped
by purpose (training, search, ai-search, user-fetch, ads, seo, archive, social, other).
Googlebot-Image & co. fall back to Googlebot's group and AdsBot ignores the * group, as
Google documents.

\b
exit status: 0, or 2 on a usage or input error."""


def _categories() -> list[str]:
    return list(dict.fromkeys(a.category for a in known_agents()))


@click.command("agents", help=HELP, short_help="which well-known crawlers a file blocks",
               context_settings={"max_content_width": 100})
@click.argument("source", metavar="FILE_OR_URL")
@click.option("--purpose", "-p", "purposes", multiple=True, type=click.Choice(PURPOSES),
              help="only crawlers with these purposes (repeatable)")
@click.option("--category", "-c", "categories", multiple=True,
              type=click.Choice(sorted(_categories())),
              help="only these display categories (repeatable)")
@dialect_option()
@json_option("JSON Lines: one object per crawler")
@fetch_options
@size_option
@color_option
def agents(source: str, purposes: tuple[str, ...], categories: tuple[str, ...], dialect: str,
           as_json: bool,
           timeout: float | None, min_ttl: float | None, no_size_limit: bool,
           color: str | None) -> int:
    src = load_source(source, dialect=dialect, timeout=timeout,  # type: ignore[arg-type]
                      min_ttl=min_ttl, whole=no_size_limit)
    rules = src.rules(dialect)  # type: ignore[arg-type]
    chosen = [a for a in known_agents()
              if (not categories or a.category in categories)
              and (not purposes or set(purposes) & set(purposes_of(a)))]
    if src.fetched is not None and src.fetched.outcome != "rules":
        rows = [_outcome_access(a, src.fetched.outcome, src.fetched.summary) for a in chosen]
        prefs: list[dict[str, bool | None]] = [{} for _ in chosen]
    else:
        rows = assess_many(rules, chosen)
        prefs = [_preferences(rules, a) for a in chosen]
    if as_json:
        for r, pref in zip(rows, prefs, strict=True):
            d = r.to_dict()
            d["name"] = r.agent.name
            d["purpose"] = r.agent.purpose
            d["purposes"] = list(purposes_of(r.agent))
            d["usage"] = pref
            emit_json(d)
        return 0
    from ._ui import Ui

    _human(Ui(color_mode(color)), src.name, rows, prefs)
    return 0


_USAGE_KEYS = ("train-ai", "search", "ai-train", "ai-input")


def _preferences(rules: RobotsTxt, agent: KnownAgent) -> dict[str, bool | None]:
    """The usage preferences the file states for ``agent`` at the site root (robotrules.aipref:
    only stated categories; an agent that may not crawl "/" has none)."""
    u = rules.usage("/", user_agent=agent.token)
    return {k: u[k] for k in _USAGE_KEYS if u[k] is not None}


def _outcome_access(agent: KnownAgent, outcome: str, summary: str) -> AgentAccess:
    blocked = outcome == "disallow-all"
    return AgentAccess(agent, "blocked" if blocked else "allowed", "none", None, (), None, None,
                       summary)


_PAINT = {"blocked": "bold red", "partial": "yellow", "allowed": "green"}


def _human(ui: Ui, name: str, rows: list[AgentAccess],
           prefs: list[dict[str, bool | None]]) -> None:
    # One table per purpose (a crawler under its first purpose), each heading once, in the
    # registry's order of purposes.
    order: dict[str, int] = {p: i for i, p in enumerate(PURPOSES)}
    by: dict[str, list[tuple[AgentAccess, dict[str, bool | None]]]] = {}
    for r, pref in sorted(zip(rows, prefs, strict=True),
                          key=lambda rp: order.get(purposes_of(rp[0].agent)[0], len(order))):
        by.setdefault(purposes_of(r.agent)[0], []).append((r, pref))
    for purpose, members in by.items():
        table = ui.table("crawler", "access", "group", "usage", "operator",
                         ("why", {"overflow": "fold"}), title=f"{purpose} ({len(members)})")
        for r, pref in members:
            group = f"line {r.group_line}" if r.group_line else "-"
            usage = " ".join(f"{k}={'y' if v else 'n'}" for k, v in pref.items()) or "-"
            table.add_row(ui.text(r.agent.token), ui.text((r.access, _PAINT[r.access])),
                          group, ui.text(usage), ui.text(r.agent.operator),
                          ui.text((r.detail, "dim")))
        ui.render(table)
        ui.line("")
    counts = {k: sum(r.access == k for r in rows) for k in ("blocked", "partial", "allowed")}
    ui.line(f"{name}: ", (f"{counts['blocked']} blocked", _PAINT["blocked"]), ", ",
            (f"{counts['partial']} partly blocked", _PAINT["partial"]), ", ",
            (f"{counts['allowed']} allowed", _PAINT["allowed"]),
            f" of {len(rows)} known crawlers")
