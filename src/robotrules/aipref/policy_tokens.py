"""Policy-token groups: usage preferences written as ordinary robots.txt groups.

draft-kelley-aipref-training-preference-signal-00 (30 October 2026), abstract: "a service
operator binds usage preferences (e.g., "no AI training") to paths by writing ordinary
robots.txt groups keyed by a per-purpose policy token in the User-Agent line. It introduces no
new directive names and no new grammar: the path language, longest-match precedence, and group
structure of robots.txt are not changed."

So a group whose user-agent is a policy token is a usage statement, never a crawler: for a URL,
the rule of that group that decides (the core's own matcher, ``RobotsTxt.explain`` with the
token as the agent) gives the token's category ``False`` for a Disallow and ``True`` for an
Allow; when no rule of the group matches, the group states nothing for that URL. A token
without a group of its own (only ``*`` would apply) states nothing.

The spelling of the draft's tokens could not be read: the stored copies hold the draft's first
page only. :data:`POLICY_TOKENS` is therefore empty and callers pass their table
(``policy_tokens={"<token>": "train-ai"}``) until the text is confirmed; the mechanism and its
tests do not depend on the spelling.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Final

from ._values import Statement

if TYPE_CHECKING:
    from .._robots import RobotsTxt

__all__ = ["POLICY_TOKENS", "is_policy_token", "policy_groups", "policy_statements"]

#: Policy token (lower case) -> the usage category its group states. Empty: see the module
#: docstring.
POLICY_TOKENS: Final[Mapping[str, str]] = MappingProxyType({})

POLICY_TOKEN: Final = "policy-token"


def _table(tokens: Mapping[str, str] | None) -> Mapping[str, str]:
    return POLICY_TOKENS if tokens is None else {k.lower(): v for k, v in tokens.items()}


def is_policy_token(value: str, tokens: Mapping[str, str] | None = None) -> bool:
    """Whether the user-agent value ``value`` names a policy token (case-insensitively)."""
    return value.strip().lower() in _table(tokens)


def policy_groups(rules: RobotsTxt, tokens: Mapping[str, str] | None = None
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


def policy_statements(rules: RobotsTxt, url: str, tokens: Mapping[str, str] | None = None
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
