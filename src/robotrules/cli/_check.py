"""``robotrules check``: may an agent fetch these URLs? One verdict per URL, with its line."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from robotrules import InvalidURL, RobotsTxt, Verdict, parse

from ._common import (
    DIALECTS,
    CliError,
    Style,
    agent_token,
    color_option,
    emit_json,
    header_for,
    make_client,
    read_file,
)

HELP = "may an agent fetch these URLs? (exit 0 all allowed, 1 any disallowed)"
EPILOG = """\
examples:
  robotrules check https://example.com/private/x --agent Googlebot
  robotrules check --robots robots.txt --agent GPTBot https://example.com/a /b?q=1
  robotrules check --json --agent "Mozilla/5.0 (compatible; bingbot/2.0)" https://example.com/

Without --robots each URL's robots.txt is fetched (cached under the user cache directory,
XDG_CACHE_HOME honoured; --no-cache to skip). With --robots FILE and one URL this is a drop-in
for the CLI google/robotstxt-spec-test drives: exit 0 allowed, 1 disallowed.
exit status: 0 all allowed, 1 any disallowed, 2 usage or input error."""


def add(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "check", help=HELP, description=HELP, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("urls", nargs="+", metavar="URL", help="absolute URL (or a path with --robots)")
    p.add_argument("--agent", "-a", required=True,
                   help="product token (Googlebot) or a full User-Agent string")
    p.add_argument("--robots", "-r", metavar="FILE",
                   help="use this robots.txt file ('-' for stdin) instead of fetching")
    p.add_argument("--dialect", "-d", choices=DIALECTS, default="rfc9309",
                   help="matching rules: rfc9309 (default), google or 1994")
    p.add_argument("--json", action="store_true", help="JSON Lines: one object per URL")
    p.add_argument("--timeout", type=float, metavar="S", help="HTTP timeout in seconds")
    p.add_argument("--no-cache", action="store_true", help="do not use the on-disk cache")
    color_option(p)
    p.set_defaults(func=run)


def _quote(rules: RobotsTxt | None, line: int | None) -> str | None:
    if rules is None or line is None:
        return None
    return rules.line_text(line).strip()


def run(args: argparse.Namespace) -> int:
    token = agent_token(args.agent)
    style = Style(sys.stdout, args.color)
    out = sys.stdout
    any_disallowed = False
    fixed: RobotsTxt | None = None
    client = None
    if args.robots is not None:
        fixed = parse(read_file(args.robots), args.dialect)
    else:
        bad = [u for u in args.urls if not u.lower().startswith(("http://", "https://"))]
        if bad:
            raise CliError(f"{bad[0]!r} is not an absolute http(s) URL (or pass --robots FILE)")
        client = make_client(user_agent=header_for(args.agent), dialect=args.dialect,
                             timeout=args.timeout, cache=not args.no_cache)
    try:
        for url in args.urls:
            fetched = None
            try:
                if client is not None:
                    fetched = client.rules_for(url)
                    rules: RobotsTxt | None = fetched.rules
                    verdict = fetched.explain(url, user_agent=token)
                else:
                    rules = fixed
                    assert fixed is not None
                    verdict = fixed.explain(url, user_agent=token)
            except InvalidURL as exc:
                raise CliError(f"{url}: {exc}") from None
            any_disallowed |= not verdict.allowed
            text = _quote(rules, verdict.line)
            if args.json:
                row: dict[str, Any] = {"url": url, "allowed": verdict.allowed,
                                       "line": verdict.line, "text": text, "agent": token}
                row.update({k: v for k, v in verdict.to_dict().items()
                            if k not in ("allowed", "line")})
                if fetched is not None:
                    row.update(robots_url=fetched.robots_url, status=fetched.status,
                               outcome=fetched.outcome, summary=fetched.summary,
                               from_cache=fetched.from_cache)
                emit_json(row, out)
            else:
                out.write(_human(url, token, verdict, text, fetched, style) + "\n")
    finally:
        if client is not None:
            client.close()
    return 1 if any_disallowed else 0


def _human(url: str, token: str, v: Verdict, text: str | None, fetched: Any,
           style: Style) -> str:
    mark = style.green("allowed   ") if v.allowed else style.red("disallowed")
    lines = [f"{mark} {style.bold(url)}  (agent {token})"]
    if v.line is not None:
        lines.append(f"    line {v.line}: \"{style.bold(text or '')}\"")
    why = v.detail or v.reason
    if v.agents:
        why += f" [group: User-agent: {', '.join(v.agents)}]"
    lines.append(f"    why: {why}")
    if fetched is not None:
        src = "cache" if fetched.from_cache else "fetched"
        lines.append(style.dim(f"    robots.txt: {fetched.robots_url} ({src}): {fetched.summary}"))
    return "\n".join(lines)
