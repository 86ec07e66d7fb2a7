"""Answers that rest on a robots.txt that could not be fetched: the warning and exit status 3.

RFC 9309 2.3.1.4: when a crawler cannot reach robots.txt (a network failure, a 5xx, Google
also 429) it MUST assume everything is disallowed. The commands keep that verdict (``allowed``
false, ``reason`` ``unreachable``), but a disallow-all that comes from a refused connection or
a DNS failure says nothing about the file, so the commands also say so:

- on stderr, once per origin: ``robotrules: warning: could not fetch
  http://host/robots.txt (connection refused): ...``;
- by the exit status :data:`EXIT_UNREACHABLE` (3), whatever the verdicts, unless
  ``--no-fail-on-unreachable`` is given (then the status follows the verdicts alone: 1 for
  ``check`` and ``bulk``, as RFC 9309's disallow-all is a disallow). 3 is still non-zero, so
  ``robotrules check URL -a Bot && download URL`` still does not download.

The choice of the default, and why, is written in docs/cli.md ("Exit status").
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from robotrules.fetch import FetchedRobots

__all__ = ["EXIT_UNREACHABLE", "Reachability", "fetch_failure", "is_unreachable",
           "unreachable_option"]

EXIT_UNREACHABLE = 3
F = TypeVar("F", bound=Callable[..., Any])


def unreachable_option(f: F) -> F:
    return click.option(
        "--fail-on-unreachable/--no-fail-on-unreachable", default=True, show_default=False,
        help="exit 3 when any answer rests on a robots.txt that could not be fetched (network "
             "error, 5xx, 429: disallow all, RFC 9309 2.3.1.4); the default. --no-... lets "
             "the verdicts alone decide the exit status")(f)


def is_unreachable(fetched: FetchedRobots) -> bool:
    """Whether ``fetched`` is RFC 9309's unreachable case (the verdict's own reason, so that
    a 401/403 read as disallow-all by choice does not count)."""
    if fetched.outcome != "disallow-all":
        return False
    return fetched.explain("/", user_agent="*").reason == "unreachable"


def fetch_failure(fetched: FetchedRobots) -> str:
    """Why the file could not be fetched, in a few words: the transport's, or the status."""
    if fetched.error:  # a status alone ("503", for a failed refresh) gets its "HTTP"
        return f"HTTP {fetched.error}" if fetched.error.isdigit() else fetched.error
    if fetched.status is not None:
        return f"HTTP {fetched.status}"
    return "no response"


class Reachability:
    """Counts the answers that rest on an unreachable robots.txt, and warns once per origin."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream
        self.origins: dict[str, str] = {}  # origin -> why its robots.txt could not be had
        self.answers = 0
        self.stale: set[str] = set()  # origins answered from an older copy (noted once)

    def saw(self, fetched: FetchedRobots) -> bool:
        """Record one answer; True when it rests on an unreachable robots.txt. An answer from
        an older copy that stands in while the site is unreachable is an answer from the
        file (RFC 9309 2.4 lets a crawler keep using a cached copy), said once in a note."""
        if not is_unreachable(fetched):
            if fetched.failing_since is not None and fetched.outcome == "rules":
                self._stale(fetched)
            return False
        self.answers += 1
        origin = fetched.origin or fetched.robots_url
        if origin not in self.origins:
            why = fetch_failure(fetched)
            self.origins[origin] = why
            self.warn(f"could not fetch {fetched.robots_url} ({why}): RFC 9309 2.3.1.4 treats "
                      f"every URL of {origin} as disallowed"
                      + (" (from the cache)" if fetched.from_cache else ""))
        return True

    def _stale(self, fetched: FetchedRobots) -> None:

        origin = fetched.origin or fetched.robots_url
        if origin in self.stale:
            return
        self.stale.add(origin)
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(fetched.fetched_at))
        self.warn(f"could not refresh {fetched.robots_url} ({fetch_failure(fetched)}): "
                  f"answering from the copy fetched {when}", kind="note")

    def warn(self, message: str, kind: str = "warning") -> None:
        from ._ui import visible

        stream = self.stream or sys.stderr
        try:
            stream.write(f"robotrules: {kind}: {visible(message)}\n")
            stream.flush()
        except (BrokenPipeError, OSError):
            pass

    def status(self, verdict_status: int, fail: bool = True) -> int:
        """The exit status: :data:`EXIT_UNREACHABLE` when any answer rested on an unreachable
        file and ``fail``; else ``verdict_status``."""
        if fail and self.answers:
            return EXIT_UNREACHABLE
        return verdict_status
