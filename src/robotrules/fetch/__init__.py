"""Fetch robots.txt over HTTP and cache it as RFC 9309 requires (needs ``robotrules[fetch]``).

:class:`RobotsClient` and :class:`AsyncRobotsClient` are twins over one I/O-free policy
(:mod:`robotrules._policy`): origin scoping (2.3), status handling (2.3.1), the 500 KiB
limit (2.5) and caching (2.4). ``usage(url)`` adds the origin's W3C TDMRep file
(``/.well-known/tdmrep.json``, fetched the same way) and the page's response headers.
See ``docs/fetching.md`` for the table of semantics. :class:`AddressGuard` sets which addresses
the clients may connect to (by default: none that is private when a fetch starts on a public
origin).
"""

from __future__ import annotations

from robotrules._origin import origin_of, robots_url
from robotrules.fetch._async import AsyncRobotsClient
from robotrules.fetch._common import DEFAULT_USER_AGENT, FetchedRobots, FetchedTdmRep
from robotrules.fetch._guard import AddressGuard
from robotrules.fetch._sync import RobotsClient

__all__ = [
    "DEFAULT_USER_AGENT",
    "AddressGuard",
    "AsyncRobotsClient",
    "FetchedRobots",
    "FetchedTdmRep",
    "RobotsClient",
    "origin_of",
    "robots_url",
]
