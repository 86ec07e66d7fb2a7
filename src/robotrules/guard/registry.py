"""How each crawler of the registry can be checked: the ``verify`` fields of ``data/agents.json``.

Per crawler (all optional, absent where the operator publishes nothing or we know of nothing):
``ranges`` ``{url, format}``, the operator's published IP list (format ``google``: the JSON
shape Google, Bing, OpenAI, Apple and Perplexity use, ``{creationTime, prefixes: [{ipv4Prefix |
ipv6Prefix}]}``); ``rdns``, the host-name suffixes a forward-confirmed reverse DNS look-up must
end in; ``signature_agent``, the origin of its Web Bot Auth key directory. The crawlers
themselves (tokens, operator, purposes) are :mod:`robotrules.agents`; this module reads only
the fields that module leaves alone, from the same file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ..agents import KnownAgent, find_agent

__all__ = ["Checks", "by_signature_agent", "checks_for", "range_lists"]


@dataclass(frozen=True, slots=True)
class Checks:
    """The verification methods an operator publishes for one crawler."""

    ranges_url: str | None = None
    ranges_format: str | None = None
    rdns: tuple[str, ...] = ()
    signature_agent: str | None = None

    @property
    def any(self) -> bool:
        return bool(self.ranges_url or self.rdns or self.signature_agent)


NONE = Checks()


@lru_cache(maxsize=1)
def _table() -> dict[str, Checks]:
    text = resources.files("robotrules").joinpath("data/agents.json").read_text("utf-8")
    out: dict[str, Checks] = {}
    for a in json.loads(text)["agents"]:
        v = a.get("verify")
        if not isinstance(v, dict):
            continue
        r = v.get("ranges") or {}
        out[a["tokens"][0].lower()] = Checks(
            ranges_url=r.get("url"), ranges_format=r.get("format"),
            rdns=tuple(s.lower().strip(".") for s in v.get("rdns", ())),
            signature_agent=v.get("signature_agent"))
    return out


def checks_for(agent: KnownAgent | str | None) -> Checks:
    """The checks the registry records for ``agent`` (a crawler or a token), or none."""
    if agent is None:
        return NONE
    if isinstance(agent, str):
        found = find_agent(agent)
        if found is None:
            return NONE
        agent = found
    return _table().get(agent.token.lower(), NONE)


def range_lists() -> dict[str, str]:
    """Every published range list of the registry: URL -> format."""
    return {c.ranges_url: c.ranges_format or "google" for c in _table().values()
            if c.ranges_url}


@lru_cache(maxsize=1)
def _signers() -> dict[str, KnownAgent]:
    out: dict[str, KnownAgent] = {}
    for token, c in _table().items():
        agent = find_agent(token)
        if c.signature_agent and agent is not None:
            out.setdefault(c.signature_agent.rstrip("/").lower(), agent)
    return out


def by_signature_agent(origin: str) -> KnownAgent | None:
    """The crawler whose Web Bot Auth signature agent is ``origin`` (the first in registry
    order), if any: a signed agent that sends a browser's User-Agent is still identified."""
    return _signers().get(origin.rstrip("/").lower())
