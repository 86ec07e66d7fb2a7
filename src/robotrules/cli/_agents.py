"""``robotrules agents``: which well-known crawlers a robots.txt blocks, and by which group."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from robotrules.agents import (
    PURPOSES,
    AgentAccess,
    KnownAgent,
    assess_many,
    known_agents,
    purposes_of,
)
from robotrules.aipref import usage_keys

from ._common import (
    color_mode,
    color_option,
    dialect_option,
    emit_json,
    fetch_options,
    json_option,
    load_source,
    policy_token_option,
    size_option,
)
from ._outcomes import Reachability, fetch_failure, unreachable_option

if TYPE_CHECKING:
    from robotrules import RobotsTxt
    from robotrules.fetch import FetchedRobots

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
@unreachable_option
@policy_token_option
@color_option
def agents(source: str, purposes: tuple[str, ...], categories: tuple[str, ...], dialect: str,
           as_json: bool, timeout: float | None, min_ttl: float | None, no_size_limit: bool,
           fail_on_unreachable: bool, policy_tokens: dict[str, str] | None,
           color: str | None) -> int:
    reach = Reachability()
    src = load_source(source, dialect=dialect, timeout=timeout,  # type: ignore[arg-type]
                      min_ttl=min_ttl, whole=no_size_limit, reach=reach)
    rules = src.rules(dialect)  # type: ignore[arg-type]
    chosen = [a for a in known_agents()
              if (not categories or a.category in categories)
              and (not purposes or set(purposes) & set(purposes_of(a)))]
    if src.fetched is not None and src.fetched.outcome != "rules":
        rows = [_outcome_access(a, src.fetched.outcome, src.fetched.summary) for a in chosen]
        prefs: list[dict[str, bool | None]] = [{} for _ in chosen]
    else:
        rows = assess_many(rules, chosen, policy_tokens=policy_tokens)
        prefs = [_preferences(rules, a, policy_tokens) for a in chosen]
    if as_json:
        for r, pref in zip(rows, prefs, strict=True):
            d = r.to_dict()
            d["name"] = r.agent.name
            d["purpose"] = r.agent.purpose
            d["description"] = r.agent.description
            d["purposes"] = list(purposes_of(r.agent))
            d["usage"] = pref
            emit_json(d)
        return reach.status(0, fail_on_unreachable)
    from ._ui import Ui

    ui = Ui(color_mode(color))
    if src.fetched is not None and src.fetched.outcome != "rules":
        _one_line(ui, src.fetched, len(rows))
    else:
        _human(ui, src.name, rows, prefs)
    return reach.status(0, fail_on_unreachable)




def _preferences(rules: RobotsTxt, agent: KnownAgent,
                 policy_tokens: dict[str, str] | None = None) -> dict[str, bool | None]:
    """The usage preferences the file states for ``agent`` at the site root (robotrules.aipref:
    only stated categories; an agent that may not crawl "/" has none)."""
    u = rules.usage("/", user_agent=agent.token, policy_tokens=policy_tokens)
    return {k: u[k] for k in usage_keys() if u[k] is not None}


def _outcome_access(agent: KnownAgent, outcome: str, summary: str) -> AgentAccess:
    blocked = outcome == "disallow-all"
    return AgentAccess(agent, "blocked" if blocked else "allowed", "none", None, (), None, None,
                       summary)


_PAINT = {"blocked": "bold red", "partial": "yellow", "allowed": "green"}
_WIDE = 110  # columns from which the operator gets a column of its own


def _one_line(ui: Ui, fetched: FetchedRobots, n: int) -> None:
    """A file that decides nothing (unreachable, or not there): the same answer for every
    crawler, so one line says it instead of a table of identical rows."""
    if fetched.outcome == "disallow-all":
        ui.line(f"{fetched.robots_url}: ", (f"all {n} known crawlers blocked", _PAINT["blocked"]),
                f": could not fetch it ({fetch_failure(fetched)}), so RFC 9309 2.3.1.4 "
                "disallows everything")
    else:
        ui.line(f"{fetched.robots_url}: ", (f"all {n} known crawlers allowed", _PAINT["allowed"]),
                f": {fetched.summary} (RFC 9309 2.3.1.3)")


def _decided_by(r: AgentAccess) -> str:
    """Which group and rule decide, briefly: ``own group (line 8): line 10 Disallow: /``."""
    if r.group_line is None:
        group = "no group applies"
    elif r.via == "global":
        group = f"* group (line {r.group_line})"
    elif r.via == "fallback":
        owner = r.group_agents[0] if r.group_agents else "a fallback"
        group = f"{owner}'s group (line {r.group_line})"
    else:
        group = f"own group (line {r.group_line})"
    if r.rule is not None:
        return f"{group}: line {r.line} {r.rule}"
    return group + (": nothing disallowed" if r.group_line is not None else "")


SHARED = 3  # crawlers of a purpose that the same answer from the * group (or no group) covers


def _human(ui: Ui, name: str, rows: list[AgentAccess],
           prefs: list[dict[str, bool | None]]) -> None:
    # One table per purpose (a crawler under its first purpose), each heading once, in the
    # registry's order of purposes.
    order: dict[str, int] = {p: i for i, p in enumerate(PURPOSES)}
    by: dict[str, list[tuple[AgentAccess, dict[str, bool | None]]]] = {}
    for r, pref in sorted(zip(rows, prefs, strict=True),
                          key=lambda rp: order.get(purposes_of(rp[0].agent)[0], len(order))):
        by.setdefault(purposes_of(r.agent)[0], []).append((r, pref))
    # Readable at 80 columns: names and access never cut or wrapped; what decides is the one
    # column that may wrap (a line or two); usage only when a crawler of the table has some;
    # the operator only on wide terminals; the full sentence (AgentAccess.detail) in --json.
    # Crawlers that no group names and that get the same answer (most of the registry, for
    # most files) share one paragraph listing their names, instead of a row each repeating it.
    wide = ui.console.width >= _WIDE
    for purpose, members in by.items():
        shared: dict[tuple[str, str, str], list[AgentAccess]] = {}
        for r, pref in members:
            if r.via in ("global", "none"):
                shared.setdefault((r.access, _decided_by(r), _usage(pref)), []).append(r)
        together = {key: rs for key, rs in shared.items() if len(rs) >= SHARED}
        apart = [(r, pref) for r, pref in members
                 if (r.access, _decided_by(r), _usage(pref)) not in together]
        title = f"{purpose} ({len(members)})"
        if apart:
            _purpose_table(ui, title, apart, wide)
        else:
            ui.line((title, "bold"))
        for (access, decided, usage), rs in together.items():
            more = "more " if apart else ""
            ui.render(ui.text((f"{len(rs)} {more}crawlers {access}", _PAINT[access]),
                              f" ({decided}{', usage ' + usage if usage != '-' else ''}):"))
            for line in _packed([r.agent.token for r in rs], ui.console.width - 2):
                ui.line("  " + line)
        ui.line("")
    counts = {k: sum(r.access == k for r in rows) for k in ("blocked", "partial", "allowed")}
    ui.render(ui.text(f"{name}: ", (f"{counts['blocked']} blocked", _PAINT["blocked"]), ", ",
                      (f"{counts['partial']} partly blocked", _PAINT["partial"]), ", ",
                      (f"{counts['allowed']} allowed", _PAINT["allowed"]),
                      f" of {len(rows)} known crawlers"))


def _packed(names: list[str], width: int) -> list[str]:
    """``names`` comma-separated in lines of at most ``width`` characters, never splitting a
    name (some hold a space: "Linguee Bot")."""
    lines: list[str] = []
    line = ""
    for i, name in enumerate(names):
        item = name + ("," if i < len(names) - 1 else "")
        if line and len(line) + 1 + len(item) > width:
            lines.append(line)
            line = item
        else:
            line = f"{line} {item}" if line else item
    return [*lines, line] if line else lines


def _usage(pref: dict[str, bool | None]) -> str:
    return " ".join(f"{k}={'y' if v else 'n'}" for k, v in pref.items()) or "-"


def _purpose_table(ui: Ui, title: str,
                   members: list[tuple[AgentAccess, dict[str, bool | None]]],
                   wide: bool) -> None:
    names = max(len(r.agent.token) for r, _ in members)
    with_usage = any(pref for _, pref in members)
    columns: list[str | tuple[str, dict[str, Any]]] = [
        ("crawler", {"no_wrap": True, "min_width": names}),
        ("access", {"no_wrap": True}),
        ("decided by", {"ratio": 1})]
    if with_usage:
        columns.append(("usage", {"no_wrap": True}))
    if wide:
        columns.append(("operator", {"no_wrap": True}))
    table = ui.table(*columns, title=title)
    for r, pref in members:
        cells: list[Any] = [ui.text(r.agent.token), ui.text((r.access, _PAINT[r.access])),
                            ui.text((_decided_by(r), "dim"))]
        if with_usage:
            cells.append(_usage(pref))
        if wide:
            cells.append(ui.text(r.agent.operator))
        table.add_row(*cells)
    ui.render(table)
