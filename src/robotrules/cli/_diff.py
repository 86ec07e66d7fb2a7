"""``robotrules diff``: what a change to a robots.txt (or of dialect) does to each agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from robotrules import RobotsTxt, Rule

from ._common import (
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


def _rules_of(rules: RobotsTxt, agent: str) -> list[Rule]:
    g = rules.group_for(agent)
    return list(g.rules) if g is not None else []


def _samples(*files: RobotsTxt) -> list[str]:
    """Paths that exercise every rule: the pattern's literal text, and one step below it."""
    paths = {"/"}
    for rules in files:
        for g in rules.groups:
            for r in g.rules:
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


@click.command("diff", help=HELP, short_help="what a change to a robots.txt does",
               context_settings={"max_content_width": 100})
@click.argument("old", metavar="OLD")
@click.argument("new", metavar="[NEW]", required=False)
@click.option("--agent", "-a", "agent", multiple=True, help="agent to compare (repeatable)")
@click.option("--urls", metavar="FILE", help="URLs or paths to test, one a line")
@dialect_option("dialect for OLD (and NEW unless --vs-dialect)")
@click.option("--vs-dialect", type=click.Choice(("rfc9309", "google", "1994")),
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
    return _compare(ui, old_src, new_src, d_old, d_new, agent, urls)


def _compare(ui: Ui | None, old_src: Source, new_src: Source, d_old: str, d_new: str,
             agent: tuple[str, ...], urls_file: str | None) -> int:
    old, new = old_src.rules(d_old), new_src.rules(d_new)  # type: ignore[arg-type]
    for src in (old_src, new_src):
        if src.fetched is not None and src.fetched.outcome != "rules":
            raise CliError(f"{src.name}: {src.fetched.summary}: there are no rules to compare")
    if agent:
        agents = [agent_token(a) for a in agent]
    else:
        names: dict[str, str] = {}
        for rules in (old, new):
            for g in rules.groups:
                for t in g.tokens:
                    if t and t != "*":
                        names.setdefault(t.lower(), t)
        agents = ["*", *sorted(names.values(), key=str.lower)]
    if urls_file:
        try:
            with open(urls_file, encoding="utf-8", errors="replace") as fh:
                urls = list(iter_lines(fh))
        except OSError as exc:
            raise CliError(f"cannot read {urls_file}: {exc.strerror or exc}") from None
    else:
        urls = [BASE + p for p in _samples(old, new)]
    changed = False
    for name in agents:
        who = OTHER if name == "*" else name
        label = "* (any other crawler)" if name == "*" else name
        before = {(r.directive, r.pattern): r for r in _rules_of(old, who)}
        after = {(r.directive, r.pattern): r for r in _rules_of(new, who)}
        removed = [r for k, r in before.items() if k not in after]
        added = [r for k, r in after.items() if k not in before]
        flips = []
        for url in urls:
            a, b = old.explain(url, user_agent=who), new.explain(url, user_agent=who)
            if a.allowed != b.allowed:
                flips.append((url, a, b))
        if not (removed or added or flips):
            continue
        changed = True
        if ui is None:
            for r in removed:
                emit_json({"type": "rule", "agent": name, "change": "removed", "rule": str(r),
                           "line": r.line})
            for r in added:
                emit_json({"type": "rule", "agent": name, "change": "added", "rule": str(r),
                           "line": r.line})
            for url, a, b in flips:
                emit_json({"type": "flip", "agent": name, "url": url,
                           "old_allowed": a.allowed, "new_allowed": b.allowed,
                           "old_line": a.line, "new_line": b.line,
                           "old_rule": str(a.rule) if a.rule else None,
                           "new_rule": str(b.rule) if b.rule else None})
            continue
        ui.line((f"agent {label}", "bold"))
        for r in removed:
            ui.line(("  - ", "red"), ui.robots_line(str(r), "red"),
                    (f"   (old line {r.line})", "dim"))
        for r in added:
            ui.line(("  + ", "green"), ui.robots_line(str(r), "green"),
                    (f"   (new line {r.line})", "dim"))
        for url, a, b in flips:
            arrow = (("allowed -> disallowed", "red") if a.allowed
                     else ("disallowed -> allowed", "green"))
            why = f"new line {b.line} '{b.rule}'" if b.rule else (
                f"was old line {a.line} '{a.rule}'" if a.rule else b.detail)
            ui.line(f"  {url.removeprefix(BASE) if not urls_file else url}: ", arrow,
                    (f"   ({why})", "dim"))
    if not changed and ui is not None:
        ui.line("no difference for " + ("these agents" if agent else "any agent")
                + f" on {len(urls)} URLs")
    return 1 if changed else 0
