"""Where the datasets feature meets code that other branches are changing, each in one place.

* :func:`origin_of` (RFC 9309 2.3: one robots.txt per scheme, host and port) still lives in the
  fetch policy; when it moves, only the import below changes.
* :func:`purpose_of` groups the crawlers of the registry for the census. The registry records a
  ``category`` today (``ai``, ``search``, ...); when it gains ``purposes`` this function is the
  one line to change.
* The fetch policy's I/O-free pieces are reused, not rewritten: :class:`Attempt` (status and
  redirect semantics of RFC 9309 2.3.1, replayed over archived responses), :data:`MAX_BYTES`
  (RFC 9309 2.5, 500 KiB = 512,000 bytes), :data:`LONG_OUTAGE` (2.3.1.4, 30 days) and
  :func:`path_of`.
"""

from __future__ import annotations

from robotrules.agents import KnownAgent
from robotrules.fetch._policy import DEFAULT_MAX_BYTES as MAX_BYTES
from robotrules.fetch._policy import LONG_OUTAGE, Attempt, origin_of, path_of

__all__ = ["LONG_OUTAGE", "MAX_BYTES", "Attempt", "origin_of", "path_of", "purpose_of"]


def purpose_of(agent: KnownAgent) -> str:
    """The group a crawler is counted in by the census (``--purpose`` filters on it)."""
    return agent.category
