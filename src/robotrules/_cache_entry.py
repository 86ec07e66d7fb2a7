"""The HTTP policy's cache entry: one origin's robots.txt as fetched, as a value.

:class:`CacheEntry` is what :func:`robotrules._policy.settle` makes and what every cache store
keeps (``robotrules.stores`` re-exports it): the body as fetched (already cut to the size limit),
how it was obtained, when it expires and the failure state RFC 9309 2.3.1.4 needs (since when
refreshes have been failing). It belongs to the sans-I/O policy, which owns its meaning; the
stores only keep it.

Entries cross process boundaries (SQLite, Redis) as one byte string: a JSON header line, a
newline, then the raw body. JSON escapes newlines, so the first ``\\n`` ends the header.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Literal

from robotrules.errors import StoreError

__all__ = ["FORMAT_VERSION", "CacheEntry", "Outcome"]

Outcome = Literal["rules", "allow-all", "disallow-all"]
FORMAT_VERSION = 1
_OUTCOMES = ("rules", "allow-all", "disallow-all")


@dataclass(frozen=True, slots=True)
class CacheEntry:
    """One origin's robots.txt as fetched, plus the state needed to refresh it correctly.

    ``body`` is what the parser reads (at most the size limit, cut at the last line end when
    the limit was hit). ``copy_ok`` says whether this entry is a definitive answer from the
    server (2xx, 4xx, redirect limit) that may stand in during a later outage; ``failing_since``
    and ``failures`` count the refreshes that have failed as unreachable since then.
    """

    robots_url: str
    outcome: Outcome
    status: int | None
    final_url: str
    fetched_at: float
    expires_at: float
    body: bytes = b""
    redirects: tuple[tuple[str, int], ...] = ()
    truncated: bool = False
    error: str | None = None
    summary: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    copy_ok: bool = True
    failing_since: float | None = None
    failures: int = 0

    def to_bytes(self) -> bytes:
        meta = {
            "v": FORMAT_VERSION,
            "robots_url": self.robots_url,
            "outcome": self.outcome,
            "status": self.status,
            "final_url": self.final_url,
            "fetched_at": self.fetched_at,
            "expires_at": self.expires_at,
            "redirects": [list(hop) for hop in self.redirects],
            "truncated": self.truncated,
            "error": self.error,
            "summary": self.summary,
            "headers": self.headers,
            "copy_ok": self.copy_ok,
            "failing_since": self.failing_since,
            "failures": self.failures,
        }
        return json.dumps(meta, separators=(",", ":")).encode() + b"\n" + self.body

    @classmethod
    def from_bytes(cls, data: bytes) -> CacheEntry:
        """Decode :meth:`to_bytes`; anything unexpected raises :class:`StoreError`.

        A store that returns garbage (a corrupt file, another program's key) must turn into a
        cache miss, never into a wrong answer, so every field is checked.
        """
        try:
            head, sep, body = data.partition(b"\n")
            meta = json.loads(head)
            if not sep or not isinstance(meta, dict) or meta.get("v") != FORMAT_VERSION:
                raise ValueError("unknown entry format")
            outcome = meta["outcome"]
            if outcome not in _OUTCOMES:
                raise ValueError(f"unknown outcome {outcome!r}")
            status = meta["status"]
            if status is not None and not isinstance(status, int):
                raise ValueError("bad status")
            failing_since = meta["failing_since"]
            headers = meta["headers"]
            if not isinstance(headers, dict):
                raise ValueError("bad headers")
            return cls(
                robots_url=_str(meta["robots_url"]),
                outcome=outcome,
                status=status,
                final_url=_str(meta["final_url"]),
                fetched_at=float(meta["fetched_at"]),
                expires_at=float(meta["expires_at"]),
                body=bytes(body),
                redirects=tuple((_str(u), int(s)) for u, s in meta["redirects"]),
                truncated=bool(meta["truncated"]),
                error=None if meta["error"] is None else _str(meta["error"]),
                summary=_str(meta["summary"]),
                headers={_str(k): _str(v) for k, v in headers.items()},
                copy_ok=bool(meta["copy_ok"]),
                failing_since=None if failing_since is None else float(failing_since),
                failures=int(meta["failures"]),
            )
        except (ValueError, KeyError, TypeError) as exc:  # JSONDecodeError is a ValueError
            raise StoreError(f"undecodable cache entry: {exc}") from exc


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value
