"""``robotrules agents``: which well-known crawlers a robots.txt blocks, and by which group."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from robotrules.agents import AgentAccess, KnownAgent, assess, known_agents

from ._common import DIALECTS, Style, color_option, emit_json, load_source

HELP = "which well-known crawlers (search, AI, SEO ...) a robots.txt blocks"
EPILOG = """\
examples:
  robotrules agents robots.txt
  robotrules agents https://example.com --category ai
  robotrules agents robots.txt --json | grep '"access": "blocked"'

For each crawler of the bundled list (token, operator, purpose) it says whether the file
blocks it entirely, partly or not at all, and which group decides. Googlebot-Image & co. fall
back to Googlebot's group and AdsBot ignores the * group, as Google documents.
exit status: 0, or 2 on a usage or input error."""


def add(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "agents", help=HELP, description=HELP, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("source", metavar="FILE_OR_URL", help="a robots.txt file, '-', or a URL")
    p.add_argument("--category", "-c", action="append",
                   choices=sorted({a.category for a in known_agents()}),
                   help="only these categories (repeatable)")
    p.add_argument("--dialect", "-d", choices=DIALECTS, default="rfc9309")
    p.add_argument("--json", action="store_true", help="JSON Lines: one object per crawler")
    p.add_argument("--timeout", type=float, metavar="S", help="HTTP timeout in seconds")
    color_option(p)
    p.set_defaults(func=run)


def _outcome_access(agent: KnownAgent, outcome: str, summary: str) -> AgentAccess:
    blocked = outcome == "disallow-all"
    return AgentAccess(agent, "blocked" if blocked else "allowed", "none", None, (), None, None,
                       summary)


def run(args: argparse.Namespace) -> int:
    out = sys.stdout
    style = Style(out, args.color)
    src = load_source(args.source, dialect=args.dialect, timeout=args.timeout)
    rules = src.rules(args.dialect)
    agents = [a for a in known_agents() if not args.category or a.category in args.category]
    rows = []
    for a in agents:
        if src.fetched is not None and src.fetched.outcome != "rules":
            rows.append(_outcome_access(a, src.fetched.outcome, src.fetched.summary))
        else:
            rows.append(assess(rules, a))
    if args.json:
        for r in rows:
            d = r.to_dict()
            d["name"] = r.agent.name
            d["purpose"] = r.agent.purpose
            emit_json(d, out)
        return 0
    paint = {"blocked": style.red, "partial": style.yellow, "allowed": style.green}
    width = max(len(a.token) for a in agents) if agents else 10
    current = None
    for r in rows:
        if r.agent.category != current:
            current = r.agent.category
            out.write(style.bold(f"\n{current}") + "\n")
        state = paint[r.access](f"{r.access:<8}")
        group = f"line {r.group_line}" if r.group_line else "-"
        out.write(f"  {r.agent.token:<{width}}  {state} {group:<9} {r.agent.operator}: "
                  f"{style.dim(r.detail)}\n")
    counts = {k: sum(r.access == k for r in rows) for k in ("blocked", "partial", "allowed")}
    out.write(f"\n{src.name}: {counts['blocked']} blocked, {counts['partial']} partly blocked, "
              f"{counts['allowed']} allowed of {len(rows)} known crawlers\n")
    return 0
