"""``robotrules lint``: findings with line, column, severity, stable code, message and fix."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from robotrules import Finding
from robotrules.lint import CATALOGUE, lint

from ._common import DIALECTS, Style, color_option, emit_json, load_source

HELP = "check a robots.txt for mistakes (exit 1 on any warning or error)"
EPILOG = """\
examples:
  robotrules lint robots.txt
  robotrules lint https://example.com/robots.txt --json
  robotrules lint --list            # the catalogue of codes (see docs/lint.md)

Each finding has a line, a column, a severity (error, warning, info), a stable code
(L001-L029) and, where there is one, the fix. Info findings are advice: they never fail.
exit status: 0 no warning or error, 1 any warning or error, 2 usage or input error."""

_ORDER = {"error": 0, "warning": 1, "info": 2}


def add(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "lint", help=HELP, description=HELP, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("source", nargs="?", metavar="FILE_OR_URL",
                   help="a robots.txt file, '-' for stdin, or a URL (its site's robots.txt)")
    p.add_argument("--json", action="store_true", help="JSON Lines: one object per finding")
    p.add_argument("--dialect", "-d", choices=DIALECTS, default="rfc9309",
                   help="read the file as rfc9309 (default), google or 1994 crawlers do")
    p.add_argument("--min-severity", choices=("info", "warning", "error"), default="info",
                   help="hide findings below this severity")
    p.add_argument("--timeout", type=float, metavar="S", help="HTTP timeout in seconds")
    p.add_argument("--list", action="store_true", help="print the catalogue of codes and exit")
    color_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    out = sys.stdout
    style = Style(out, args.color)
    if args.list:
        for code, (kind, sev, text) in CATALOGUE.items():
            if args.json:
                emit_json({"code": code, "kind": kind, "severity": sev, "description": text}, out)
            else:
                out.write(f"{code}  {style.severity(sev):<7}  {kind:<26} {text}\n")
        return 0
    if args.source is None:
        from ._common import CliError

        raise CliError("give a robots.txt FILE, '-' or a URL (or --list)")
    src = load_source(args.source, dialect=args.dialect, timeout=args.timeout,
                      max_bytes=8 * 1024 * 1024)
    findings = lint(src.body, dialect=args.dialect, content_type=src.content_type,
                    status=src.status)
    if src.fetched is not None:
        findings = _with_redirects(findings, src.fetched.redirects, src.fetched.error)
    floor = _ORDER[args.min_severity]
    shown = [f for f in findings if _ORDER[f.severity] <= floor]
    if args.json:
        for f in shown:
            emit_json(f.to_dict(), out)
    else:
        _human(src.name, src, shown, findings, style)
    return 1 if any(f.severity != "info" for f in findings) else 0


def _with_redirects(findings: list[Finding], redirects: tuple[tuple[str, int], ...],
                    error: str | None) -> list[Finding]:
    """L021 for a fetch: the redirect chain and transport failures (RFC 9309 2.3.1.2, 2.3.1.4)."""
    extra: list[Finding] = []
    if len(redirects) > 5:
        extra.append(Finding("L021", "bad-status", "error", 0, 0,
                             f"{len(redirects)} redirects: more than the 5 crawlers must follow "
                             "(RFC 9309 2.3.1.2), so they may treat the file as missing",
                             "serve /robots.txt directly, or redirect once"))
    elif redirects:
        from urllib.parse import urlsplit

        hosts = {urlsplit(u).hostname for u, _ in redirects}
        if len(hosts) > 1:
            chain = " -> ".join(u for u, _ in redirects)
            extra.append(Finding("L021", "bad-status", "info", 0, 0,
                                 f"robots.txt redirects across hosts ({chain}); "
                                 "its rules apply to the first host (RFC 9309 2.3.1.2)"))
    if error and not any(f.code == "L021" for f in findings):
        extra.append(Finding("L021", "bad-status", "error", 0, 0,
                             f"could not fetch the file ({error}): crawlers must assume "
                             "everything is disallowed (RFC 9309 2.3.1.4)"))
    return sorted([*findings, *extra], key=lambda f: (f.line, f.column, f.code))


def _human(name: str, src: Any, shown: list[Finding], findings: list[Finding],
           style: Style) -> None:
    out = sys.stdout
    rules = src.rules("rfc9309") if shown else None
    for f in shown:
        where = f"{name}:{f.line}:{f.column}" if f.line else f"{name}"
        out.write(f"{where}: {style.severity(f.severity)} {style.bold(f.code)} "
                  f"[{f.kind}] {f.message}\n")
        if f.line and rules is not None:
            text = rules.line_text(f.line)
            if text.strip():
                out.write(style.dim(f"    {f.line:>4} | {text[:160]}") + "\n")
        if f.fix:
            out.write(f"    fix: {style.green(f.fix)}\n")
    counts = {s: sum(f.severity == s for f in findings) for s in ("error", "warning", "info")}
    total = ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items())
    hidden = len(findings) - len(shown)
    tail = f" ({hidden} hidden)" if hidden else ""
    verdict = style.green("ok") if not counts["error"] and not counts["warning"] else style.red(
        "problems found")
    out.write(f"{name}: {verdict}: {total}{tail}\n")
