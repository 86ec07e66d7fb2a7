"""The one small tree of exceptions robotrules raises.

Parsing never raises on content (the parser is total). Exceptions are for misuse (a wrong
argument, a URL that cannot have a robots.txt) and for transport failures a caller asked to see.
"""

from __future__ import annotations

__all__ = ["FetchError", "InvalidURL", "RobotrulesError", "StoreError"]


class RobotrulesError(Exception):
    """Base class of every exception raised by robotrules."""


class InvalidURL(RobotrulesError, ValueError):
    """A URL that is not http(s), has no host, or cannot be parsed at all."""


class FetchError(RobotrulesError):
    """A transport failure surfaced to a caller that asked for it (never from ``is_allowed``)."""


class StoreError(RobotrulesError):
    """A cache store failed; clients catch it, warn once and fall back to fetching."""
