"""``robotrules diff``: what a change to a robots.txt (or of dialect) does to each agent."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from robotrules import RobotsTxt, Rule

from ._common import (
    DIALECTS,
    CliError,
    Style,
    agent_token,
    color_option,
    emit_json,
    iter_lines,
    load_source,
)

HELP = "what a change to a robots.txt does: rules added/removed, verdicts that flip"
EPILOG = """\
examples:
  robotrules diff old/robots.txt new/robots.txt
  robotrules diff old.txt new.txt --agent Googlebot --agent GPTBot --urls urls.txt
  robotrules diff https://example.com staging-robots.txt --json
  robotrules diff robots.txt --dialect rfc9309 --vs-dialect 1994

Without --agent every agent either file names (and '*', every other crawler) is compared;
without --urls the URLs are derived from both files' rules. --urls takes one URL or path a
line. --vs-dialect compares one file (or OLD with NEW) read in two dialects.
exit status: 0 no difference, 1 rules or verdicts differ, 2 usage or input error."""

BASE = "https://example.com"
OTHER = "robotrules-any-other-crawler"  # an agent no group names: the * group's view


def add(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "diff", help=HELP, description=HELP, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("old", metavar="OLD", help="the old robots.txt: file, '-' or URL")
    p.add_argument("new", metavar="NEW", nargs="?",
                   help="the new robots.txt (default: OLD again, with --vs-dialect)")
    p.add_argument("--agent", "-a", action="append", help="agent to compare (repeatable)")
    p.add_argument("--urls", metavar="FILE", help="URLs or paths to test, one a line")
    p.add_argument("--dialect", "-d", choices=DIALECTS, default="rfc9309",
                   help="dialect for OLD (and NEW unless --vs-dialect)")
    p.add_argument("--vs-dialect", choices=DIALECTS, help="dialect for NEW")
    p.add_argument("--json", action="store_true",
                   help="JSON Lines: one object per rule change and per flip")
    p.add_argument("--timeout", type=float, metavar="S", help="HTTP timeout in seconds")
    color_option(p)
    p.set_defaults(func=run)


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


def run(args: argparse.Namespace) -> int:
    out = sys.stdout
    style = Style(out, args.color)
    if args.new is None and args.vs_dialect is None:
        raise CliError("give OLD and NEW, or one file with --vs-dialect")
    d_old = args.dialect
    d_new = args.vs_dialect or args.dialect
    old_src = load_source(args.old, dialect=d_old, timeout=args.timeout)
    new_src = old_src if args.new is None else load_source(args.new, dialect=d_new,
                                                          timeout=args.timeout)
    old, new = old_src.rules(d_old), new_src.rules(d_new)
    for src in (old_src, new_src):
        if src.fetched is not None and src.fetched.outcome != "rules":
            raise CliError(f"{src.name}: {src.fetched.summary}: there are no rules to compare")
    if args.agent:
        agents = [agent_token(a) for a in args.agent]
    else:
        names: dict[str, str] = {}
        for rules in (old, new):
            for g in rules.groups:
                for t in g.tokens:
                    if t and t != "*":
                        names.setdefault(t.lower(), t)
        agents = ["*", *sorted(names.values(), key=str.lower)]
    if args.urls:
        with open(args.urls, encoding="utf-8", errors="replace") as fh:
            urls = list(iter_lines(fh))
    else:
        urls = [BASE + p for p in _samples(old, new)]
    changed = False
    for agent in agents:
        who = OTHER if agent == "*" else agent
        label = "* (any other crawler)" if agent == "*" else agent
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
        if args.json:
            for r in removed:
                emit_json({"type": "rule", "agent": agent, "change": "removed", "rule": str(r),
                           "line": r.line}, out)
            for r in added:
                emit_json({"type": "rule", "agent": agent, "change": "added", "rule": str(r),
                           "line": r.line}, out)
            for url, a, b in flips:
                emit_json({"type": "flip", "agent": agent, "url": url,
                           "old_allowed": a.allowed, "new_allowed": b.allowed,
                           "old_line": a.line, "new_line": b.line,
                           "old_rule": str(a.rule) if a.rule else None,
                           "new_rule": str(b.rule) if b.rule else None}, out)
            continue
        out.write(style.bold(f"agent {label}") + "\n")
        for r in removed:
            out.write(style.red(f"  - {r}") + style.dim(f"   (old line {r.line})") + "\n")
        for r in added:
            out.write(style.green(f"  + {r}") + style.dim(f"   (new line {r.line})") + "\n")
        for url, a, b in flips:
            arrow = (style.red("allowed -> disallowed") if a.allowed
                     else style.green("disallowed -> allowed"))
            why = f"new line {b.line} '{b.rule}'" if b.rule else (
                f"was old line {a.line} '{a.rule}'" if a.rule else b.detail)
            out.write(f"  {url.removeprefix(BASE) if not args.urls else url}: {arrow}"
                      f"{style.dim('   (' + why + ')')}\n")
    if not changed and not args.json:
        out.write("no difference for "
                  + ("these agents" if args.agent else "any agent") + f" on {len(urls)} URLs\n")
    return 1 if changed else 0
