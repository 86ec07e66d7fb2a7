"""``robotrules fetch``: the HTTP story of one robots.txt, then what RFC 9309 makes of it."""

from __future__ import annotations

import time

import click

from robotrules.errors import InvalidURL

from ._common import (
    CliError,
    Source,
    color_mode,
    color_option,
    dialect_option,
    emit_json,
    fetch_options,
    fetched_body,
    header_for,
    json_option,
    make_client,
    url_error,
)
from ._outcomes import EXIT_UNREACHABLE, Reachability

HELP = """Fetch a site's robots.txt and tell its HTTP story: redirects, status, cache, groups.

\b
examples:
  robotrules fetch https://example.com
  robotrules fetch https://example.com/some/page --agent "MyBot/1.0 (+https://my.example)"
  robotrules fetch https://example.com --json

Shows each request and redirect, the status, size and cache headers, how long the answer may
be cached (RFC 9309 2.4: at most 24 h, at least --min-ttl), what RFC 9309 makes of it (rules,
full allow for 4xx, full disallow for 5xx/429/network errors), the parsed groups and as many
findings as 'robotrules lint' reports for the same URL. Never uses the cache.

\b
exit status: 0 fetched (whatever the status), 2 usage error."""

_CACHE_HEADERS = ("content-type", "content-length", "cache-control", "expires", "age", "etag",
                  "last-modified", "date", "content-encoding")


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ts))


@click.command("fetch", help=HELP, short_help="a site's robots.txt and its HTTP story",
               context_settings={"max_content_width": 100})
@click.argument("url", metavar="URL")
@click.option("--agent", "-a", help="User-Agent header to send (default: robotrules/...)")
@dialect_option()
@json_option("one JSON object")
@fetch_options
@color_option
def fetch(url: str, agent: str | None, dialect: str, as_json: bool, timeout: float | None,
          min_ttl: float | None, color: str | None) -> int:

    ua = header_for(agent) or agent if agent else None
    client = make_client(user_agent=ua, dialect=dialect, timeout=timeout,  # type: ignore[arg-type]
                         cache=False, min_ttl=min_ttl)
    started = time.monotonic()
    try:
        f = client.rules_for(url)
    except InvalidURL as exc:
        raise CliError(url_error(exc)) from None
    finally:
        client.close()
    body = fetched_body(client, f)
    elapsed = time.monotonic() - started
    reach = Reachability()
    status = EXIT_UNREACHABLE if reach.saw(f) else 0
    rules = f.rules
    groups = [{"line": g.line, "agents": list(g.agents),
               "rules": [{"line": r.line, "rule": str(r)} for r in g.rules],
               "crawl_delay": g.crawl_delay} for g in rules.groups]
    if as_json:
        emit_json({
            "url": url, "robots_url": f.robots_url, "final_url": f.final_url,
            "redirects": [{"url": u, "status": s} for u, s in f.redirects],
            "status": f.status, "size": f.size, "truncated": f.truncated,
            "headers": dict(f.headers), "outcome": f.outcome, "summary": f.summary,
            "error": f.error, "fetched_at": f.fetched_at, "expires_at": f.expires_at,
            "seconds": round(elapsed, 3), "groups": groups, "sitemaps": rules.sitemaps,
        })
        return status
    from ._ui import Ui

    ui = Ui(color_mode(color))
    w = ui.line
    w((f"robots.txt for {url}", "bold"))
    for u, st in f.redirects:
        w(f"  GET {u}  ->  ", (str(st), "yellow"), " redirect")
    shown = str(f.status) if f.status is not None else "no response"
    paint = "green" if f.status and 200 <= f.status < 300 else (
        "yellow" if f.status and f.status < 500 and f.status != 429 else "red")
    w(f"  GET {f.final_url}  ->  ", (shown, paint),
      (f"  ({f.error})" if f.error else "") + f"  in {elapsed * 1000:.0f} ms")
    w(f"  size: {f.size:,} bytes",
      ("  (cut at the 500 KiB limit)" if f.truncated else "", "red"))
    for h in _CACHE_HEADERS:
        if h in f.headers:
            w(f"  {h}: {f.headers[h]}")
    ttl = f.expires_at - f.fetched_at
    span = f"{ttl / 3600:.1f} h" if ttl >= 3600 else (
        f"{ttl / 60:.0f} min" if ttl >= 60 else f"{ttl:.0f} s")
    w(f"  cache: fresh until {_when(f.expires_at)} ({span}; RFC 9309 2.4 caps it at 24 h, "
      f"the floor is {client.min_ttl:g} s)")
    meaning = {"rules": ("rules: the file decides", "green"),
               "allow-all": ("full allow (unavailable, RFC 9309 2.3.1.3)", "yellow"),
               "disallow-all": ("full disallow (unreachable, RFC 9309 2.3.1.4)", "red")}
    w("  RFC 9309: ", meaning[f.outcome], f": {f.summary}")
    if f.outcome == "rules":
        w("")
        w((f"{len(groups)} group(s)", "bold"))
        for g in rules.groups:
            w(f"  line {g.line}: User-agent: {', '.join(g.agents)}")
            for r in g.rules:
                w(f"    {r.line:>4}  ", ui.robots_line(str(r), "green" if r.allow else "red"))
            if g.crawl_delay is not None:
                w(f"          Crawl-delay: {g.crawl_delay:g}")
            if not g.rules:
                w(("          (no rules: everything allowed)", "dim"))
        for sitemap in rules.sitemaps:
            w(f"  Sitemap: {sitemap}")
    # The same findings 'robotrules lint URL' reports (its own function, the same body).
    from ._lint import findings_of

    src = Source(f.robots_url, body, f.status, f.headers.get("content-type"), url, f,
                 cut=f.truncated)
    findings = findings_of(src, dialect)
    if findings:
        w("")
        w((f"{len(findings)} finding(s): run 'robotrules lint {url}'", "dim"))
    return status
