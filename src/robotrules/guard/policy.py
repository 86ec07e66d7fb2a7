"""What the site wants done with each kind of request: the guard's policy (plain values).

Actions: ``allow``; ``block`` (403); ``pay`` (402 with Cloudflare pay-per-crawl's
``crawler-price`` header); ``license`` (401 with ``WWW-Authenticate: License``, RSL 1.0: a
crawler must come back with a licence token); ``slow-down`` (429 with ``Retry-After`` from the
site's Crawl-delay for that crawler). A crawler that comes back with a price offer
(``crawler-exact-price`` / ``crawler-max-price``, covered by its verified Web Bot Auth
signature) or a licence the site's ``accept_license`` accepts is let through. Which applies,
first match wins:

1. the verification state has an action (``on_state``; by default ``spoofed`` is blocked);
2. robots.txt disallows the path for the crawler (``on_disallowed``, default ``block``);
3. the crawler's purpose has an action (``on_purpose``: ``training``, ``search``,
   ``ai-search``, ``user-fetch``, ``ads``, ``seo``, ``archive``, ``social``, ``other`` and
   ``unknown`` for crawlers the registry does not know; the strictest of a crawler's purposes
   wins);
4. ``pace``: a crawler that comes back sooner than its Crawl-delay is asked to slow down;
5. otherwise ``allow``.

Browsers (a User-Agent whose product token is a browser's, e.g. ``Mozilla``) are never acted
on. ``content_usage`` / ``content_signal``, when given, are sent as response headers as they
are; otherwise the guard sends what the robots.txt states for that crawler and path.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["ACTIONS", "STATUS", "Action", "Policy"]

Action = Literal["allow", "block", "pay", "license", "slow-down"]
ACTIONS: tuple[Action, ...] = ("allow", "block", "pay", "license", "slow-down")
STATUS: dict[str, int] = {"allow": 200, "block": 403, "pay": 402, "license": 401,
                          "slow-down": 429}
_STRICT = {"allow": 0, "slow-down": 1, "pay": 2, "license": 3, "block": 4}
STATES = ("verified", "spoofed", "unverifiable", "unsigned")


@dataclass(frozen=True)
class Policy:
    """The site's answers; see the module docstring for the order they are applied in."""

    on_state: Mapping[str, Action] = field(default_factory=lambda: {"spoofed": "block"})
    on_disallowed: Action = "block"
    on_purpose: Mapping[str, Action] = field(default_factory=dict)
    pace: bool = False
    price: str = "USD 0.01"
    content_usage: str | None = None
    content_signal: str | None = None
    #: RSL: called with the token of ``Authorization: License <token>``; True lets it in
    accept_license: Callable[[str], bool] | None = None
    #: pay per crawl: called with the price when a crawler's offer is accepted
    on_charge: Callable[[str], object] | None = None

    def __post_init__(self) -> None:
        for where, values in (("on_state", self.on_state.values()),
                              ("on_purpose", self.on_purpose.values()),
                              ("on_disallowed", (self.on_disallowed,))):
            for v in values:
                if v not in _STRICT:
                    raise ValueError(f"{where}: unknown action {v!r} "
                                     f"(actions: {', '.join(ACTIONS)})")
        for s in self.on_state:
            if s not in STATES:
                raise ValueError(f"on_state: unknown state {s!r} (states: {', '.join(STATES)})")

    def for_purposes(self, purposes: tuple[str, ...]) -> Action | None:
        """The strictest action of any of ``purposes``, if any is set."""
        found: list[Action] = [self.on_purpose[p] for p in purposes if p in self.on_purpose]
        if not found:
            return None
        found.sort(key=_rank)
        return found[-1]


def _rank(action: str) -> int:
    return _STRICT[action]
