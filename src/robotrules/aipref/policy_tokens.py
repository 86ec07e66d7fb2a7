"""Policy-token groups: usage preferences written as ordinary robots.txt groups.

draft-kelley-aipref-training-preference-signal-00 (30 October 2026), abstract: "a service
operator binds usage preferences (e.g., "no AI training") to paths by writing ordinary
robots.txt groups keyed by a per-purpose policy token in the User-Agent line. It introduces no
new directive names and no new grammar: the path language, longest-match precedence, and group
structure of robots.txt are not changed."

So a group whose user-agent is a policy token is a usage statement, never a crawler: for a URL,
the rule of that group that decides (the core's own matcher, ``explain`` with the
token as the agent) gives the token's category ``False`` for a Disallow and ``True`` for an
Allow; when no rule of the group matches, the group states nothing for that URL. A token
without a group of its own (only ``*`` would apply) states nothing.

The spelling of the draft's tokens could not be read. Searched on 2026-11-24 (the search
tool's stores): the draft's HTML, XML and datatracker copies are stored only up to the end of
their first page (abstract and boilerplate); no repository holds its source (find_repos
"aipref", "kelley", "training-preference"; find_files ``draft-kelley-aipref-training-preference-
signal.md``; find_string ``training-preference-signal``: nothing); the issue threads and pages
stores have no quotation of a token; Google's changelog entry (30 Oct 2026) names the signal
but not the token. docs/ai-preferences.md "Policy-token groups" lists the queries.
:data:`POLICY_TOKENS` is therefore empty and callers pass their table (``policy_tokens=
{"<token>": "train-ai"}``; the CLI's ``--policy-token TOKEN=CATEGORY``, the web tester's AI
tab) until the text is read; the mechanism and its tests do not depend on the spelling. When
the spelling is confirmed it goes into :data:`POLICY_TOKENS` (one table, with its source), and
every reader (``usage``, ``agents``, the census, lint) uses it by default.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Final

from ._values import Statement

if TYPE_CHECKING:
    from .._parsed import ParsedFile

__all__ = ["POLICY_TOKENS", "is_policy_token", "parse_policy_tokens", "policy_groups",
           "policy_statements"]

#: Policy token (lower case) -> the usage category its group states. Empty: see the module
#: docstring.
POLICY_TOKENS: Final[Mapping[str, str]] = MappingProxyType({})

POLICY_TOKEN: Final = "policy-token"


# a product token (RFC 9309 2.2.1: [A-Za-z_-]; digits too, as crawlers write them) and a
# usage category (vocab-07 "Preference Labels": [a-z0-9_.*-])
_TOKEN = re.compile(r"[A-Za-z0-9_-]+")
_CATEGORY = re.compile(r"[a-z0-9_.*-]+")


def parse_policy_tokens(items: Iterable[str]) -> dict[str, str]:
    """``TOKEN=CATEGORY`` items (the CLI's ``--policy-token``, the web tester's field) as a
    ``policy_tokens`` table; a blank item is skipped. Raises ``ValueError`` naming the item
    that is not a product token, ``=`` and a lower-case category label."""
    out: dict[str, str] = {}
    for item in items:
        item = item.strip()
        if not item:
            continue
        token, eq, category = (p.strip() for p in item.partition("="))
        if not eq or not _TOKEN.fullmatch(token) or not _CATEGORY.fullmatch(category):
            raise ValueError(
                f"{item[:80]!r} is not TOKEN=CATEGORY (a product token such as "
                "ExampleTrainingPolicy, '=', a lower-case category such as train-ai)")
        out[token] = category
    return out


def _table(tokens: Mapping[str, str] | None) -> Mapping[str, str]:
    return POLICY_TOKENS if tokens is None else {k.lower(): v for k, v in tokens.items()}


def is_policy_token(value: str, tokens: Mapping[str, str] | None = None) -> bool:
    """Whether the user-agent value ``value`` names a policy token (case-insensitively)."""
    return value.strip().lower() in _table(tokens)


def policy_groups(rules: ParsedFile, tokens: Mapping[str, str] | None = None
                  ) -> tuple[tuple[str, str, int], ...]:
    """``(token, category, group line)`` of every group that names a policy token."""
    table = _table(tokens)
    out: list[tuple[str, str, int]] = []
    for g in rules.groups:
        for value in g.agents:
            category = table.get(value.strip().lower())
            if category is not None:
                out.append((value.strip(), category, g.line))
    return tuple(out)


def policy_statements(rules: ParsedFile, url: str, tokens: Mapping[str, str] | None = None
                      ) -> tuple[Statement, ...]:
    """The statements the policy-token groups of ``rules`` make about ``url``."""
    table = _table(tokens)
    if not table:
        return ()
    out: list[Statement] = []
    seen: set[str] = set()
    for token, category, _line in policy_groups(rules, tokens):
        if token.lower() in seen:
            continue  # same-token groups merge: one answer per token
        seen.add(token.lower())
        group = rules.group_for(token)
        if group is None or group.is_global:
            continue
        v = rules.explain(url, user_agent=token)
        if v.rule is None:
            continue  # no rule of the group matches: nothing stated for this URL
        out.append(Statement(POLICY_TOKEN, v.line, str(v.rule), ((category, v.allowed),),
                             v.rule.pattern, extra=(("token", token),), key="User-agent"))
    return tuple(out)
