"""The linter's face: :func:`lint` (every finding for a body, sorted by line) and the catalogue.

Theory of operation
-------------------
The parser already reports everything a single line can show (typos, missing colons, tokens,
paths, encoding ...) as :class:`~robotrules.Finding` values on its one token stream; the linter
never re-reads the lines. It adds the findings that need more than a line, by job:

- :mod:`robotrules.lint._transport`: what came with the body (size L018, HTML and media type
  L020, HTTP status L021, NUL bytes L048, a cut line L049);
- :mod:`robotrules.lint._semantic`: the groups and their rules (L010-L014, L022-L028), with
  patterns and precedence read by the matching layer (:mod:`robotrules._patterns`);
- :mod:`robotrules._ua_lint`: user-agent values Google misreads, with the registry (L041);
- :mod:`robotrules.aipref.findings`: AI usage preferences (L031-L040, L042-L047).

This module only runs them and merges what they find. ``robotrules.lint`` is this module, and
the module is callable: ``robotrules.lint(body)`` runs :func:`lint`.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from .._findings import CATALOGUE
from .._patterns import access_of, covers, matches, reading_patterns
from .._robots import parse
from .._tokenize import to_bytes
from ._semantic import HUGE_CRAWL_DELAY, semantic
from ._transport import HTML_NOISE, looks_html, not_text, transport, whole_size

if TYPE_CHECKING:
    from .._model import Finding
    from .._types import Dialect

# access_of, covers and matches live in robotrules._patterns; named here as before
__all__ = ["CATALOGUE", "HUGE_CRAWL_DELAY", "access_of", "covers", "lint", "matches"]


def lint(
    body: bytes | str,
    *,
    dialect: Dialect = "rfc9309",
    content_type: str | None = None,
    status: int | None = None,
    size: int | None = None,
    truncated: bool = False,
    policy_tokens: Mapping[str, str] | None = None,
) -> list[Finding]:
    """Every finding for ``body``, sorted by line: the parser's and the semantic checks'.

    ``content_type`` and ``status``, when the file came over HTTP, add L020 and L021. A clean,
    ordinary file gets no warning and no error (``info`` findings are advice).

    ``truncated`` says that ``body`` is only the start of a longer file (what a reader with a
    size limit read) and ``size`` is the whole file's size when known: L018 reports that size.
    The partial last line of a truncated body is not parsed, as crawlers drop it (RFC 9309
    2.5), but it is looked at: NUL bytes anywhere are L048, a line that runs on past the
    500 KiB crawlers read is L049.

    ``policy_tokens`` (token -> usage category) names the policy tokens whose groups are usage
    statements (L045, :mod:`robotrules.aipref.policy_tokens`); by default the built-in table
    :data:`robotrules.aipref.POLICY_TOKENS`.
    """
    # Imported late: aipref needs http_sf and json, and the registry (L041) reads its data
    # file, which `import robotrules` (it binds lint()) must not pay for.
    from .. import aipref
    from .._ua_lint import agent_findings

    raw = to_bytes(body)  # the same bytes the parser reads
    tail = b""
    if truncated:
        cut = max(raw.rfind(b"\n"), raw.rfind(b"\r")) + 1
        raw, tail = raw[:cut], raw[cut:]
        body = raw
    rules = parse(body, dialect=dialect)
    with reading_patterns():  # each rule's pattern read once for the call, then dropped
        findings = list(rules.findings)
        if looks_html(raw):
            # An HTML page: one finding for the page, not one per line of markup.
            findings = [f for f in findings if f.code not in HTML_NOISE]
        findings.extend(not_text(raw, tail, truncated))
        findings.extend(transport(raw, content_type, status, whole_size(raw, tail, size,
                                                                        truncated)))
        findings.extend(semantic(rules))
        # AI preferences: their own findings; the parser's L002 on each of their lines is
        # replaced by one L042; L041 (user-agent values Google misreads) in robotrules._ua_lint
        findings = aipref.without_core_noise(findings, rules)
        findings.extend(aipref.lint_findings(rules, policy_tokens=policy_tokens))
        findings.extend(agent_findings(rules))
    findings = _dedupe(findings)
    findings.sort(key=lambda f: (f.line, f.column, f.code))
    return findings


_ONCE_PER_LINE = frozenset({"L011", "L012", "L023"})  # not once per agent of the group


def _dedupe(findings: Iterable[Finding]) -> list[Finding]:
    findings = list(findings)
    # L041 says with the registry what L006 says in general about the same value
    misread = {f.line for f in findings if f.code == "L041"}
    seen: set[tuple[str, int, str]] = set()
    out = []
    for f in findings:
        if f.code == "L006" and f.line in misread:
            continue
        key = (f.code, f.line, "" if f.code in _ONCE_PER_LINE else f.message)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


class _LintModule(types.ModuleType):
    """This module's class: ``robotrules.lint`` is the module (``import robotrules.lint as L``
    gives it), and calling it runs :func:`lint` (``robotrules.lint(body)``)."""

    def __call__(self, body: bytes | str, *, dialect: Dialect = "rfc9309",
                 content_type: str | None = None, status: int | None = None,
                 size: int | None = None, truncated: bool = False) -> list[Finding]:
        return lint(body, dialect=dialect, content_type=content_type, status=status,
                    size=size, truncated=truncated)


sys.modules[__name__].__class__ = _LintModule
