"""L041: user-agent values Google misreads, checked against the crawler registry.

RFC 9309 2.2.1 asks for a product token (``[A-Za-z_-]``); Google's matcher reads a user-agent
value as its leading run of those characters (robots.cc ``ExtractUserAgent``), so ``AI2Bot``
is ``AI`` and ``Googlebot2`` is ``Googlebot``. When the cut lands on another registry crawler,
or the crawler the value names no longer finds its group, the linter says so. It lives beside
the linter (it judges user-agent lines, not AI preferences) and reads the registry
(:mod:`robotrules.agents`), which is why it is imported by :func:`robotrules.lint` only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._dialects import SPECS
from ._findings import finding
from ._model import Finding
from ._token import GLOBAL, line_agent

if TYPE_CHECKING:
    from ._parsed import ParsedFile

__all__ = ["agent_findings"]


def agent_findings(rules: ParsedFile) -> list[Finding]:
    """L041 findings: user-agent values that are not product tokens, read by Google (and RFC
    9309) as their leading ``[A-Za-z_-]`` run, checked against the crawler registry."""
    out: list[Finding] = []
    _lint_agents(rules, out)
    return out


def _lint_agents(rules: ParsedFile, out: list[Finding]) -> None:
    """User-agent values that are not product tokens, read by Google (and RFC 9309) as their
    leading ``[A-Za-z_-]`` run, checked against the crawler registry."""
    if not SPECS[rules.dialect].token_agents:
        return  # 1994: agent names are substrings, nothing is cut
    from .agents import known_agents

    by_token: dict[str, str] = {}
    for a in known_agents():
        for t in (*a.tokens[:1], *a.aliases):
            by_token.setdefault(t.lower(), a.token)
    for line, written in rules.agent_lines:  # each user-agent line, as the index read it
        value = written.strip()
        token = line_agent(value, "google")  # Google's reading, whatever the dialect
        if not value or token == GLOBAL:
            continue
        if token == value:
            continue
        named = by_token.get(value.lower())
        # the cut falls inside a word ("Googlebot2", "MJ12bot"), not before a version or a
        # comment ("dotbot/1.0", "Sogou web spider"), which name the token's own crawler
        inside = value[len(token)].isalnum() or value[len(token)] == "."
        other = by_token.get(token.lower()) if token and inside else None
        if other is not None and (named is None or other != named):
            out.append(finding(
                "L041", line, 1,
                f"'{value}' is not a product token: Google reads it as '{token}', so this "
                f"group applies to the crawler {other}", f"User-agent: {token}"))
        elif named is not None and token.lower() != named.lower():
            out.append(finding(
                "L041", line, 1,
                f"'{value}' names the crawler {named}, but it is not a product token: "
                f"Google reads it as '{token or '(nothing)'}', which matches no crawler, so "
                f"{named} follows the '*' group instead", None, severity="warning"))

