"""``robotrules fetch``: the HTTP story of one robots.txt, then what RFC 9309 makes of it."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from ._common import (
    DIALECTS,
    Style,
    color_option,
    emit_json,
    header_for,
    make_client,
)

HELP = "fetch a site's robots.txt and tell its HTTP story (redirects, status, cache, groups)"
EPILOG = """\
examples:
  robotrules fetch https://example.com
  robotrules fetch https://example.com/some/page --agent "MyBot/1.0 (+https://my.example)"
  robotrules fetch https://example.com --json

Shows each request and redirect, the status, size and cache headers, how long the answer may
be cached (RFC 9309 2.4: at most 24 h), what RFC 9309 makes of it (rules, full allow for
4xx, full disallow for 5xx/429/network errors) and the parsed groups. Never uses the cache.
exit status: 0 fetched (whatever the status), 2 usage error."""

_CACHE_HEADERS = ("content-type", "content-length", "cache-control", "expires", "age", "etag",
                  "last-modified", "date", "content-encoding")


def add(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "fetch", help=HELP, description=HELP, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("url", metavar="URL", help="any URL of the site (its /robots.txt is fetched)")
    p.add_argument("--agent", "-a", help="User-Agent header to send (default: robotrules/...)")
    p.add_argument("--dialect", "-d", choices=DIALECTS, default="rfc9309")
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.add_argument("--timeout", type=float, metavar="S", help="HTTP timeout in seconds")
    color_option(p)
    p.set_defaults(func=run)


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ts))


def run(args: argparse.Namespace) -> int:
    out = sys.stdout
    style = Style(out, args.color)
    ua = header_for(args.agent) or args.agent if args.agent else None
    client = make_client(user_agent=ua, dialect=args.dialect, timeout=args.timeout,
                         cache=False)
    started = time.monotonic()
    try:
        f = client.rules_for(args.url)
    finally:
        client.close()
    elapsed = time.monotonic() - started
    rules = f.rules
    groups = [{"line": g.line, "agents": list(g.agents),
               "rules": [{"line": r.line, "rule": str(r)} for r in g.rules],
               "crawl_delay": g.crawl_delay} for g in rules.groups]
    if args.json:
        emit_json({
            "url": args.url, "robots_url": f.robots_url, "final_url": f.final_url,
            "redirects": [{"url": u, "status": s} for u, s in f.redirects],
            "status": f.status, "size": f.size, "truncated": f.truncated,
            "headers": dict(f.headers), "outcome": f.outcome, "summary": f.summary,
            "error": f.error, "fetched_at": f.fetched_at, "expires_at": f.expires_at,
            "seconds": round(elapsed, 3), "groups": groups, "sitemaps": rules.sitemaps,
        }, out)
        return 0
    w = out.write
    w(style.bold(f"robots.txt for {args.url}") + "\n")
    for u, s in f.redirects:
        w(f"  GET {u}  ->  {style.yellow(str(s))} redirect\n")
    shown = str(f.status) if f.status is not None else "no response"
    paint = style.green if f.status and 200 <= f.status < 300 else (
        style.yellow if f.status and f.status < 500 and f.status != 429 else style.red)
    w(f"  GET {f.final_url}  ->  {paint(shown)}"
      + (f"  ({f.error})" if f.error else "") + f"  in {elapsed * 1000:.0f} ms\n")
    w(f"  size: {f.size:,} bytes" + (style.red("  (cut at the 500 KiB limit)") if f.truncated
                                     else "") + "\n")
    for h in _CACHE_HEADERS:
        if h in f.headers:
            w(f"  {h}: {f.headers[h]}\n")
    ttl = f.expires_at - f.fetched_at
    span = f"{ttl / 3600:.1f} h" if ttl >= 3600 else f"{ttl / 60:.0f} min"
    w(f"  cache: fresh until {_when(f.expires_at)} ({span}; RFC 9309 2.4 caps it at 24 h)\n")
    meaning = {"rules": style.green("rules: the file decides"),
               "allow-all": style.yellow("full allow (unavailable, RFC 9309 2.3.1.3)"),
               "disallow-all": style.red("full disallow (unreachable, RFC 9309 2.3.1.4)")}
    w(f"  RFC 9309: {meaning[f.outcome]}: {f.summary}\n")
    if f.outcome != "rules":
        return 0
    w(style.bold(f"\n{len(groups)} group(s)") + "\n")
    for g in rules.groups:
        w(f"  line {g.line}: User-agent: {', '.join(g.agents)}\n")
        for r in g.rules:
            w(f"    {r.line:>4}  {style.red(str(r)) if not r.allow else style.green(str(r))}\n")
        if g.crawl_delay is not None:
            w(f"          Crawl-delay: {g.crawl_delay:g}\n")
        if not g.rules:
            w(style.dim("          (no rules: everything allowed)") + "\n")
    for sitemap in rules.sitemaps:
        w(f"  Sitemap: {sitemap}\n")
    findings = rules.findings
    if findings:
        w(style.dim(f"\n{len(findings)} finding(s): run 'robotrules lint {args.url}'") + "\n")
    return 0
