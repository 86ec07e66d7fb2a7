"""The crawler registry, kept as data, and what a robots.txt lets each crawler do.

The registry lives in ``data/agents.json``. Per crawler: ``tokens`` (the robots.txt product
tokens it obeys, most specific first, then the fallback it uses when no group names it, as
Googlebot-Image then Googlebot), ``name``, ``operator``, ``category`` (one display bucket:
search, ai, seo, ads, social, archive, other), ``purposes`` (a subset of training, search,
ai-search, user-fetch, ads, seo, archive, social, other), ``honours_robots`` (``true``, ``false``
or ``null`` when unknown: as the operator documents it, or as ai.robots.txt records it),
``user_agent`` (a real User-Agent header as the operator documents it; ``null`` for control
tokens such as Google-Extended that never fetch, and where no documented string is known),
``description`` (a sentence), ``aliases`` (other spellings seen in lists, e.g.
``MistralAI-User/1.0``) and ``ignores_global`` (a crawler that never obeys the ``*`` group, as
Google's AdsBot). ``tools/refresh_agents.py`` merges ai.robots.txt's ``robots.json`` into it.

:func:`assess` says whether a parsed file blocks one crawler entirely, partly or not at all,
and by which group.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Literal

from ._model import Group
from ._patterns import access_of
from .aipref.policy_tokens import is_policy_token

if TYPE_CHECKING:
    from ._model import Rule
    from ._parsed import ParsedFile

__all__ = ["PURPOSES", "Access", "AgentAccess", "KnownAgent", "Purpose", "assess",
           "assess_many", "by_purpose", "find_agent", "known_agents", "purposes_of"]

Via = Literal["named", "fallback", "global", "none"]
_VIA: dict[str, Via] = {"named": "named", "fallback": "fallback", "global": "global",
                        "none": "none"}
Access = Literal["blocked", "partial", "allowed"]
Category = Literal["search", "ai", "seo", "ads", "social", "archive", "other"]
Purpose = Literal["training", "search", "ai-search", "user-fetch", "ads", "seo", "archive",
                  "social", "other"]
#: Every purpose a crawler can have, in display order.
PURPOSES: tuple[Purpose, ...] = ("training", "search", "ai-search", "user-fetch", "ads", "seo",
                                 "archive", "social", "other")


@dataclass(frozen=True, slots=True)
class KnownAgent:
    """A crawler of the registry: the product tokens robots.txt names it by, who runs it, why.

    ``token`` is the most specific token (``tokens[0]``), ``fallback`` the next one if any;
    ``description`` is one sentence on what it does; ``purposes`` what it crawls for (a
    subset of :data:`PURPOSES`), the first the main one (:attr:`purpose`).
    """

    token: str
    name: str
    operator: str
    category: str
    description: str
    fallback: str | None = None
    ignores_global: bool = False
    tokens: tuple[str, ...] = ()
    purposes: tuple[str, ...] = ()
    user_agent: str | None = None
    honours_robots: bool | None = None
    aliases: tuple[str, ...] = ()

    @property
    def purpose(self) -> str:
        """The main purpose: the first of :attr:`purposes` (the display category when none is
        known, as :func:`purposes_of`)."""
        return purposes_of(self)[0]

    def to_dict(self) -> dict[str, object]:
        return {
            "token": self.token,
            "name": self.name,
            "operator": self.operator,
            "category": self.category,
            "description": self.description,
            "purpose": self.purpose,
            "fallback": self.fallback,
            "ignores_global": self.ignores_global,
            "tokens": list(self.tokens or (self.token,)),
            "purposes": list(self.purposes),
            "user_agent": self.user_agent,
            "honours_robots": self.honours_robots,
            "aliases": list(self.aliases),
        }


@dataclass(frozen=True, slots=True)
class AgentAccess:
    """What a robots.txt lets one crawler do.

    ``access``: ``blocked`` (a rule disallows every path and nothing re-allows any), ``partial``
    or ``allowed``. ``via``: which group applies: ``named`` (a group names the token),
    ``fallback`` (the group of the crawler's fallback token), ``global`` (``*``) or ``none``.
    ``group_line`` is that group's first line, ``line`` the deciding rule's line.
    """

    agent: KnownAgent
    access: Access
    via: Via
    group_line: int | None
    group_agents: tuple[str, ...]
    line: int | None
    rule: Rule | None
    detail: str

    def to_dict(self) -> dict[str, object]:
        return {
            "token": self.agent.token,
            "operator": self.agent.operator,
            "category": self.agent.category,
            "access": self.access,
            "via": self.via,
            "group_line": self.group_line,
            "group_agents": list(self.group_agents),
            "line": self.line,
            "rule": str(self.rule) if self.rule is not None else None,
            "detail": self.detail,
        }


@lru_cache(maxsize=1)
def known_agents() -> tuple[KnownAgent, ...]:
    """The bundled crawler registry, in the data file's order."""
    text = resources.files("robotrules").joinpath("data/agents.json").read_text("utf-8")
    return tuple(_agent(a) for a in json.loads(text)["agents"])


def _agent(a: dict[str, Any]) -> KnownAgent:
    tokens = tuple(a["tokens"])
    return KnownAgent(
        token=tokens[0],
        name=a["name"],
        operator=a["operator"],
        category=a["category"],
        description=a["description"],
        fallback=tokens[1] if len(tokens) > 1 else None,
        ignores_global=bool(a.get("ignores_global", False)),
        tokens=tokens,
        purposes=tuple(a["purposes"]),
        user_agent=a.get("user_agent"),
        honours_robots=a.get("honours_robots"),
        aliases=tuple(a.get("aliases", ())),
    )


@lru_cache(maxsize=1)
def _by_name() -> dict[str, KnownAgent]:
    out: dict[str, KnownAgent] = {}
    for a in known_agents():  # the first crawler to claim a name keeps it
        out.setdefault(a.token.lower(), a)
    for a in known_agents():
        for alias in a.aliases:
            out.setdefault(alias.lower(), a)
    return out


def find_agent(token: str) -> KnownAgent | None:
    """The crawler whose token (or alias, e.g. ``MistralAI-User/1.0``) is ``token``,
    case-insensitively, if any."""
    return _by_name().get(token.strip().lower())


def by_purpose(purpose: str) -> tuple[KnownAgent, ...]:
    """The crawlers that have ``purpose`` (one of :data:`PURPOSES`), in registry order."""
    return tuple(a for a in known_agents() if purpose in a.purposes)


def _group(rules: ParsedFile, agent: KnownAgent) -> tuple[Group | None, str]:
    # the dialect decides what a user-agent line names (robotrules._token): rfc9309 reads
    # "MJ12bot" as MJ12bot, Google's reading cuts it to "MJ"
    group = rules.group_for(agent.token)
    via = "none" if group is None else ("global" if group.is_global else "named")
    if via != "named" and agent.fallback:
        # compat(google): Googlebot-Image & co. obey Googlebot's group when none names them.
        fb = rules.group_for(agent.fallback)
        if fb is not None and not fb.is_global:
            return fb, "fallback"
    if via == "global" and agent.ignores_global:
        return None, "none"  # compat(google): AdsBot ignores the * group
    return group, via


def obeyed_token(rules: ParsedFile, agent: KnownAgent) -> str:
    """The product token whose group ``agent`` obeys in ``rules``: its own, or its fallback
    when no group names it and one names the fallback (Googlebot-Image obeys the Googlebot
    group), as :func:`assess` decides."""
    _g, via = _group(rules, agent)
    return agent.fallback if via == "fallback" and agent.fallback else agent.token


def assess(rules: ParsedFile, agent: KnownAgent | str, *,
           policy_tokens: Mapping[str, str] | None = None) -> AgentAccess:
    """Whether ``rules`` block ``agent`` entirely, partly or not at all, and by which group.

    ``policy_tokens`` (token -> usage category; default the built-in
    :data:`robotrules.aipref.POLICY_TOKENS`): a policy token is never a blocked crawler."""
    return _assess(rules, agent, {}, policy_tokens)


def assess_many(rules: ParsedFile, agents: Iterable[KnownAgent | str], *,
                policy_tokens: Mapping[str, str] | None = None) -> list[AgentAccess]:
    """:func:`assess` for each of ``agents``; a group shared by many crawlers (often ``*``) is
    judged once."""
    memo: dict[tuple[int, tuple[str, ...]], tuple[str, Rule | None]] = {}
    return [_assess(rules, agent, memo, policy_tokens) for agent in agents]


def _assess(rules: ParsedFile, agent: KnownAgent | str,
            memo: dict[tuple[int, tuple[str, ...]], tuple[str, Rule | None]],
            policy_tokens: Mapping[str, str] | None = None) -> AgentAccess:
    if isinstance(agent, str):
        agent = find_agent(agent) or KnownAgent(agent, agent, "", "other", "")
    if is_policy_token(agent.token, policy_tokens):
        # draft-kelley-aipref-training-preference-signal-00: a usage statement, never a
        # crawler, so never counted as a blocked one (robotrules.aipref.policy_tokens)
        return AgentAccess(agent, "allowed", "none", None, (), None, None,
                           "a policy token: its group states a usage preference, not a crawl "
                           "rule for a crawler")
    group, via = _group(rules, agent)
    if group is None:
        why = (f"{agent.token} ignores the * group and no group names it" if agent.ignores_global
               else "no group applies")
        return AgentAccess(agent, "allowed", "none", None, (), None, None,
                           f"{why}: everything is allowed")
    key = (group.line, group.agents)
    judged = memo.get(key)
    if judged is None:
        judged = memo[key] = access_of(group.rules, rules.dialect)
    state, rule = judged
    where = {"named": f"its own group (line {group.line})",
             "fallback": f"the {agent.fallback} group (line {group.line})",
             "global": f"the * group (line {group.line})"}[via]
    if state == "blocked":
        detail = f"blocked by {where}: line {rule.line if rule else '?'} '{rule}'"
    elif state == "partial":
        detail = f"partly blocked by {where}, e.g. line {rule.line if rule else '?'} '{rule}'"
    else:
        detail = f"{where} blocks nothing"
    access: Access = "blocked" if state == "blocked" else (
        "partial" if state == "partial" else "allowed")
    return AgentAccess(agent, access, _VIA[via], group.line, group.agents,
                       rule.line if rule else None, rule, detail)


def purposes_of(agent: KnownAgent) -> tuple[str, ...]:
    """What ``agent`` crawls for (its purposes; its display category when none is known)."""
    return agent.purposes or (agent.category,)
