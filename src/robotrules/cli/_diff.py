"""``robotrules diff``: what a change to a robots.txt (or of dialect) does to each agent.

Work grows with the files, not with their square: each agent is asked about the paths its own
rules (old and new) suggest, not about every path every group suggests, so a file is read once
per side and each rule costs a constant number of verdicts; :func:`is_allowed` finds the
flips and only a flip is explained. ``--vs-dialect`` names the two sides by their dialects.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import click

from robotrules import RobotsTxt, Rule, Verdict

from ._common import (
    DIALECTS,
    CliError,
    Source,
    agent_token,
    color_mode,
    color_option,
    dialect_option,
    emit_json,
    fetch_options,
    iter_lines,
    json_option,
    load_source,
    size_option,
)

if TYPE_CHECKING:
    from ._ui import Ui

HELP = """What a change to a robots.txt does: rules added and removed, verdicts that flip.

\b
examples:
  robotrules diff examples/old.txt examples/new.txt
  robotrules diff examples/old.txt examples/new.txt -a Googlebot -a GPTBot --urls examples/urls.txt
  robotrules diff https://example.com staging-robots.txt --json
  robotrules diff examples/robots.txt --dialect rfc9309 --vs-dialect 1994

Without --agent every agent either file names (and '*', every other crawler) is compared;
without --urls the URLs are derived from both files' rules. --urls takes one URL or path a
line. --vs-dialect compares one file (or OLD with NEW) read in two dialects. Files are read up
to 500 KiB, as crawlers read them (RFC 9309 2.5; --no-size-limit reads them whole).

\b
exit status: 0 no difference, 1 rules or verdicts differ, 2 usage or input error."""

BASE = "https://example.com"
OTHER = "robotrules-any-other-crawler"  # an agent no group names: the * group's view


@dataclass(frozen=True)
class Side:
    """One side of the comparison: where it was read from, its dialect, how it is named."""

    source: Source
    dialect: str
    label: str  # "old"/"new", or the dialect's name with --vs-dialect

    def rules(self) -> RobotsTxt:
        return self.source.rules(self.dialect)  # type: ignore[arg-type]


@dataclass
class Flip:
    url: str
    old: Verdict
    new: Verdict


@dataclass
class AgentDiff:
    """What changes for one agent: rules removed and added, verdicts that flip."""

    name: str
    removed: list[Rule] = field(default_factory=list)
    added: list[Rule] = field(default_factory=list)
    flips: list[Flip] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.removed or self.added or self.flips)


def _rules_of(rules: RobotsTxt, agent: str) -> list[Rule]:
    g = rules.group_for(agent)
    return list(g.rules) if g is not None else []


def _samples(rules: Iterable[Rule]) -> list[str]:
    """Paths that exercise every rule: the pattern's literal text, and one step below it."""
    paths = {"/"}
    for r in rules:
        p = r.pattern
        if not p:
            continue
        anchored = p.endswith("$")
        core = (p[:-1] if anchored else p).replace("*", "x")
        if not core.startswith("/"):
            core = "/" + core.lstrip("x")
        paths.add(core)
        if not anchored:
            paths.add(core + ("x" if core.endswith("/") else "/x"))
    return sorted(paths)


def _agents(old: RobotsTxt, new: RobotsTxt, asked: tuple[str, ...]) -> list[str]:
    """The agents to compare: those asked for, else ``*`` and every token either file names."""
    if asked:
        return [agent_token(a) for a in asked]
    names: dict[str, str] = {}
    for rules in (old, new):
        for g in rules.groups:
            for t in g.tokens:
                if t and t != "*":
                    names.setdefault(t.lower(), t)
    return ["*", *sorted(names.values(), key=str.lower)]


def _read_urls(urls_file: str) -> list[str]:
    try:
        with open(urls_file, encoding="utf-8", errors="replace") as fh:
            return list(iter_lines(fh))
    except OSError as exc:
        raise CliError(f"cannot read {urls_file}: {exc.strerror or exc}") from None


def _agent_diff(old: RobotsTxt, new: RobotsTxt, name: str, urls: list[str] | None) -> AgentDiff:
    """Rules and verdicts that differ for ``name`` (``urls``: the user's, else derived from
    this agent's rules on both sides)."""
    who = OTHER if name == "*" else name
    out = AgentDiff(name)
    before_rules, after_rules = _rules_of(old, who), _rules_of(new, who)
    before = {(r.directive, r.pattern): r for r in before_rules}
    after = {(r.directive, r.pattern): r for r in after_rules}
    out.removed = [r for k, r in before.items() if k not in after]
    out.added = [r for k, r in after.items() if k not in before]
    if urls is None:
        urls = [BASE + p for p in _samples([*before_rules, *after_rules])]
    for url in urls:
        if old.is_allowed(url, user_agent=who) != new.is_allowed(url, user_agent=who):
            out.flips.append(Flip(url, old.explain(url, user_agent=who),
                                  new.explain(url, user_agent=who)))
    return out


def _emit_json_rows(d: AgentDiff, sides: tuple[Side, Side]) -> None:
    names = {"old_dialect": sides[0].dialect, "new_dialect": sides[1].dialect}
    for change, rules in (("removed", d.removed), ("added", d.added)):
        for r in rules:
            emit_json({"type": "rule", "agent": d.name, "change": change, "rule": str(r),
                       "line": r.line, **names})
    for f in d.flips:
        emit_json({"type": "flip", "agent": d.name, "url": f.url,
                   "old_allowed": f.old.allowed, "new_allowed": f.new.allowed,
                   "old_line": f.old.line, "new_line": f.new.line,
                   "old_rule": str(f.old.rule) if f.old.rule else None,
                   "new_rule": str(f.new.rule) if f.new.rule else None, **names})


def _why(f: Flip, sides: tuple[Side, Side]) -> str:
    if f.new.rule:
        return f"{sides[1].label} line {f.new.line} '{f.new.rule}'"
    if f.old.rule:
        return f"was {sides[0].label} line {f.old.line} '{f.old.rule}'"
    return f.new.detail


def _show(ui: Ui, d: AgentDiff, sides: tuple[Side, Side], full_urls: bool) -> None:
    ui.line((f"agent {'* (any other crawler)' if d.name == '*' else d.name}", "bold"))
    old_label, new_label = sides[0].label, sides[1].label
    for r in d.removed:
        ui.line(("  - ", "red"), ui.robots_line(str(r), "red"),
                (f"   ({old_label} line {r.line})", "dim"))
    for r in d.added:
        ui.line(("  + ", "green"), ui.robots_line(str(r), "green"),
                (f"   ({new_label} line {r.line})", "dim"))
    for f in d.flips:
        arrow = (("allowed -> disallowed", "red") if f.old.allowed
                 else ("disallowed -> allowed", "green"))
        url = f.url if full_urls else f.url.removeprefix(BASE)
        ui.line(f"  {url}: ", arrow, (f"   ({_why(f, sides)})", "dim"))


@click.command("diff", help=HELP, short_help="what a change to a robots.txt does",
               context_settings={"max_content_width": 100})
@click.argument("old", metavar="OLD")
@click.argument("new", metavar="[NEW]", required=False)
@click.option("--agent", "-a", "agent", multiple=True, help="agent to compare (repeatable)")
@click.option("--urls", metavar="FILE", help="URLs or paths to test, one a line")
@dialect_option("dialect for OLD (and NEW unless --vs-dialect)")
@click.option("--vs-dialect", type=click.Choice(DIALECTS),
              help="dialect for NEW")
@json_option("JSON Lines: one object per rule change and per flip")
@fetch_options
@size_option
@color_option
def diff(old: str, new: str | None, agent: tuple[str, ...], urls: str | None, dialect: str,
         vs_dialect: str | None, as_json: bool, timeout: float | None, min_ttl: float | None,
         no_size_limit: bool, color: str | None) -> int:
    if new is None and vs_dialect is None:
        raise CliError("give OLD and NEW, or one file with --vs-dialect")
    d_old = dialect
    d_new = vs_dialect or dialect
    old_src = load_source(old, dialect=d_old, timeout=timeout,  # type: ignore[arg-type]
                          min_ttl=min_ttl, whole=no_size_limit)
    new_src = old_src if new is None else load_source(
        new, dialect=d_new, timeout=timeout, min_ttl=min_ttl,  # type: ignore[arg-type]
        whole=no_size_limit)
    ui: Ui | None = None
    if not as_json:
        from ._ui import Ui

        ui = Ui(color_mode(color))
    sides = (Side(old_src, d_old, d_old if vs_dialect else "old"),
             Side(new_src, d_new, d_new if vs_dialect else "new"))
    return _compare(ui, sides, agent, urls)


def _compare(ui: Ui | None, sides: tuple[Side, Side], agent: tuple[str, ...],
             urls_file: str | None) -> int:
    old, new = sides[0].rules(), sides[1].rules()
    for side in sides:
        fetched = side.source.fetched
        if fetched is not None and fetched.outcome != "rules":
            raise CliError(f"{side.source.name}: {fetched.summary}: there are no rules to "
                           "compare")
    urls = _read_urls(urls_file) if urls_file else None
    if ui is not None and sides[0].label != "old":
        ui.line((f"{sides[0].source.name} read as {sides[0].label} (-) and as "
                 f"{sides[1].label} (+)", "dim"))
    changed = 0
    for name in _agents(old, new, agent):
        d = _agent_diff(old, new, name, urls)
        if not d:
            continue
        changed += 1
        if ui is None:
            _emit_json_rows(d, sides)
        else:
            _show(ui, d, sides, full_urls=urls_file is not None)
    if not changed and ui is not None:
        what = f"on {len(urls)} URLs" if urls is not None else "on the paths their rules name"
        ui.line("no difference for " + ("these agents" if agent else "any agent") + f" {what}")
    return 1 if changed else 0
