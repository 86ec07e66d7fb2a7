"""``robotrules lint``: findings with line, column, severity, stable code, message and fix."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import click

from robotrules import Finding
from robotrules.lint import CATALOGUE, lint

from ._common import (
    CliError,
    Source,
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
from ._outcomes import EXIT_UNREACHABLE, Reachability

if TYPE_CHECKING:
    from ._ui import Ui

CODES = f"{min(CATALOGUE)}\N{EN DASH}{max(CATALOGUE)}"  # the catalogue's own range

HELP = f"""Check a robots.txt for mistakes: findings with line, column, code and fix.

\b
examples:
  robotrules lint examples/robots.txt
  robotrules lint https://example.com/robots.txt --json
  robotrules lint --list            # the catalogue of codes (see docs/lint.md)

Each finding has a line, a column, a severity (error, warning, info), a stable code
({CODES}) and, where there is one, the fix. Info findings are advice: they never fail. A file
is read up to 500 KiB (what crawlers read, RFC 9309 2.5) and 64 KiB more, so that what the
limit cuts off is reported; --no-size-limit reads it all.

\b
exit status: 0 no warning or error, 1 any warning or error, 2 usage or input error."""

_ORDER = {"error": 0, "warning": 1, "info": 2}


@click.command("lint", help=HELP, short_help="check a robots.txt for mistakes",
               context_settings={"max_content_width": 100})
@click.argument("source", required=False, metavar="FILE_OR_URL")
@json_option("JSON Lines: one object per finding")
@dialect_option("read the file as rfc9309 (default), google or 1994 crawlers do")
@click.option("--min-severity", type=click.Choice(("info", "warning", "error")), default="info",
              help="hide findings below this severity (default: info, show all)")
@fetch_options
@size_option
@click.option("--list", "list_codes", is_flag=True, help="print the catalogue of codes and exit")
@policy_token_option
@color_option
def lint_cmd(source: str | None, as_json: bool, dialect: str, min_severity: str,
             timeout: float | None, min_ttl: float | None, no_size_limit: bool,
             list_codes: bool, policy_tokens: dict[str, str] | None, color: str | None) -> int:
    ui: Ui | None = None
    if not as_json:
        from ._ui import Ui

        ui = Ui(color_mode(color))
    if list_codes:
        _catalogue(ui)
        return 0
    if source is None:
        raise CliError("give a robots.txt FILE, '-' or a URL (or --list)")
    reach = Reachability()
    src = load_source(source, dialect=dialect, timeout=timeout,  # type: ignore[arg-type]
                      min_ttl=min_ttl, for_lint=True, whole=no_size_limit, reach=reach)
    findings = findings_of(src, dialect, policy_tokens)
    floor = _ORDER[min_severity]
    shown = [f for f in findings if _ORDER[f.severity] <= floor]
    if ui is None:
        for f in shown:
            emit_json(f.to_dict())
    else:
        _human(ui, src, shown, findings, dialect)
    if reach.answers:  # nothing was linted: the file could not be fetched
        return EXIT_UNREACHABLE
    return 1 if any(f.severity != "info" for f in findings) else 0


def findings_of(src: Source, dialect: str, policy_tokens: dict[str, str] | None = None
                ) -> list[Finding]:
    """Every finding for a source: the file's, and for a fetch its status and redirects."""
    size = src.size
    if size is None and src.fetched is not None and src.cut:
        length = src.fetched.headers.get("content-length", "")
        size = int(length) if length.isdigit() else None
    findings = lint(src.body, dialect=dialect, content_type=src.content_type,  # type: ignore[arg-type]
                    status=src.status, size=size, truncated=src.cut,
                    policy_tokens=policy_tokens)
    if src.fetched is not None:
        findings = _with_redirects(findings, src.fetched.redirects, src.fetched.error)
    return findings


def _catalogue(ui: Ui | None) -> None:
    if ui is None:
        for code, (kind, sev, text) in CATALOGUE.items():
            emit_json({"code": code, "kind": kind, "severity": sev, "description": text})
        return
    table = ui.table("code", "severity", "kind", "what it finds")
    for code, (kind, sev, text) in CATALOGUE.items():
        table.add_row(code, ui.text((sev, _SEVERITY[sev])), kind, text)
    ui.render(table)


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


_SEVERITY = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def _human(ui: Ui, src: Source, shown: list[Finding], findings: list[Finding],
           dialect: str) -> None:
    name = src.name
    rules = src.rules(dialect) if shown else None  # type: ignore[arg-type]
    for f in shown:
        where = f"{name}:{f.line}:{f.column}" if f.line else name
        ui.line(f"{where}: ", (f.severity, _SEVERITY[f.severity]), " ", (f.code, "bold"),
                f" [{f.kind}] {f.message}")
        if f.line and rules is not None:
            text = rules.line_text(f.line)
            if text.strip():
                ui.line((f"    {f.line:>4} | ", "dim"), ui.robots_line(text[:160]),
                        ("\N{HORIZONTAL ELLIPSIS}" if len(text) > 160 else "", "dim"))
        if f.fix:
            ui.line("    fix: ", (f.fix, "green"))
    if len(shown) > 1:
        _summary_table(ui, shown)
    counts = {s: sum(f.severity == s for f in findings) for s in ("error", "warning", "info")}
    total = ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items())
    hidden = len(findings) - len(shown)
    tail = f" ({hidden} hidden)" if hidden else ""
    ok = not counts["error"] and not counts["warning"]
    ui.line(f"{name}: ", ("ok", "bold green") if ok else ("problems found", "bold red"),
            f": {total}{tail}; {_read(src)}")


def _read(src: Source) -> str:
    """How much of the file lint read: all of it, or its first bytes of how many."""
    read = len(src.body)
    if not src.cut:
        return f"read {read:,} byte{'s' if read != 1 else ''}"
    whole = f" of {src.size:,}" if src.size is not None else ""
    return f"read the first {read:,} bytes{whole}"


def _summary_table(ui: Ui, shown: list[Finding]) -> None:
    by: dict[str, list[Finding]] = {}
    for f in shown:
        by.setdefault(f.code, []).append(f)
    table = ui.table("code", "severity", "kind", ("findings", {"justify": "right"}),
                     "lines")
    for code in sorted(by, key=lambda c: (_ORDER[by[c][0].severity], c)):
        group = by[code]
        lines = sorted({f.line for f in group if f.line})
        shown_lines = ", ".join(map(str, lines[:8])) + (
            f" \N{HORIZONTAL ELLIPSIS} (+{len(lines) - 8})" if len(lines) > 8 else "")
        sev = group[0].severity
        table.add_row(code, ui.text((sev, _SEVERITY[sev])), group[0].kind, str(len(group)),
                      shown_lines or "-")
    ui.line("")
    ui.render(table)
