"""Tallies of crawler traffic: per crawler and purpose, how many requests, how verified, which
rules were broken (with the deciding line and the first and last time), how often robots.txt
was fetched. One tally serves both the live guard (``GuardMiddleware(...).report``) and
``robotrules audit`` over access logs.

An impostor is not the crawler it names: requests whose claim was checked and found false
(verification ``spoofed``: an address outside the operator's published ranges, a reverse-DNS
name outside its domains, a signature that fails) go to a row of their own, ``Googlebot
(impostor)`` (``impostor`` true, ``claimed`` the crawler named), with their own violations,
so a spoofer's requests to disallowed paths are never counted against the real crawler.
Requests that could not be checked (``unverifiable``) stay in the crawler's row and are
counted as such.

Memory is bounded: at most ``max_crawlers`` distinct crawler rows (later unknown names are
counted under ``(other)``), and violations are keyed by robots.txt line (bounded by the file).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .core import Decision

__all__ = ["CrawlerRow", "Tally", "Violation"]

OTHER = "(other)"
IMPOSTOR = "(impostor)"
IMPOSTOR_PURPOSE = "impostor"


def _iso(t: float | None) -> str | None:
    if t is None:
        return None
    try:
        return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (OverflowError, OSError, ValueError):  # a time no calendar shows
        return None


@dataclass(slots=True)
class Violation:
    """Requests to paths one robots.txt line disallows for the crawler."""

    line: int | None
    rule: str | None
    count: int = 0
    first: float | None = None
    last: float | None = None
    example: str = ""

    def to_dict(self) -> dict[str, object]:
        return {"line": self.line, "rule": self.rule, "count": self.count,
                "first": _iso(self.first), "last": _iso(self.last), "example": self.example}


@dataclass(slots=True)
class CrawlerRow:
    """One crawler's traffic."""

    crawler: str
    operator: str | None
    purposes: tuple[str, ...]
    known: bool
    impostor: bool = False
    claimed: str | None = None
    requests: int = 0
    verified: int = 0
    spoofed: int = 0
    unverifiable: int = 0
    unsigned: int = 0
    blocked: int = 0
    robots_fetches: int = 0
    robots_first: float | None = None
    robots_last: float | None = None
    first: float | None = None
    last: float | None = None
    violations: dict[int | None, Violation] = field(default_factory=dict)

    @property
    def violation_count(self) -> int:
        return sum(v.count for v in self.violations.values())

    def robots_interval(self) -> float | None:
        """Mean seconds between robots.txt fetches (None under two fetches)."""
        if self.robots_fetches < 2 or self.robots_first is None or self.robots_last is None:
            return None
        return (self.robots_last - self.robots_first) / (self.robots_fetches - 1)

    def to_dict(self) -> dict[str, object]:
        return {
            "crawler": self.crawler, "impostor": self.impostor,
            "claimed": self.claimed or self.crawler, "operator": self.operator,
            "purposes": list(self.purposes), "purpose": self.purposes[0] if self.purposes
            else "unknown", "known": self.known, "requests": self.requests,
            "verified": self.verified, "spoofed": self.spoofed,
            "unverifiable": self.unverifiable, "unsigned": self.unsigned,
            "violations": self.violation_count,
            "violation_lines": [v.to_dict() for v in sorted(
                self.violations.values(), key=lambda v: -v.count)],
            "blocked": self.blocked,
            "robots_txt_fetches": self.robots_fetches,
            "robots_txt_interval_s": self.robots_interval(),
            "first": _iso(self.first), "last": _iso(self.last),
        }


class Tally:
    """Adds up decisions (:meth:`add`)."""

    def __init__(self, max_crawlers: int = 10_000) -> None:
        self.rows: dict[str, CrawlerRow] = {}
        self.max_crawlers = max_crawlers
        self.requests = 0
        self.browsers = 0

    def add(self, d: Decision) -> None:
        self.requests += 1
        if not d.is_crawler:
            self.browsers += 1
            return
        name = d.crawler.token if d.crawler is not None else d.token
        state = d.verification.state
        impostor = state == "spoofed"
        key = f"{name} {IMPOSTOR}" if impostor else name
        row = self.rows.get(key)
        if row is None:
            if len(self.rows) >= self.max_crawlers:
                key = OTHER
                row = self.rows.get(OTHER)
            if row is None:
                known = d.crawler is not None and key != OTHER
                row = self.rows[key] = CrawlerRow(
                    key, d.operator if known else None,
                    (IMPOSTOR_PURPOSE,) if impostor and key != OTHER
                    else d.purposes if known else ("unknown",),
                    known, impostor and key != OTHER, name if key != OTHER else None)
        t = d.time
        row.requests += 1
        if state == "verified":
            row.verified += 1
        elif state == "spoofed":
            row.spoofed += 1
        elif state in ("unverifiable", "unverified"):
            row.unverifiable += 1
        else:
            row.unsigned += 1
        if d.enforced:
            row.blocked += 1
        if row.first is None or t < row.first:
            row.first = t
        if row.last is None or t > row.last:
            row.last = t
        if d.path == "/robots.txt" or d.path.startswith("/robots.txt?"):
            row.robots_fetches += 1
            if row.robots_first is None or t < row.robots_first:
                row.robots_first = t
            if row.robots_last is None or t > row.robots_last:
                row.robots_last = t
        if d.allowed is False:
            v = row.violations.get(d.line)
            if v is None:
                v = row.violations[d.line] = Violation(d.line, d.rule, example=d.path[:200])
            v.count += 1
            if v.first is None or t < v.first:
                v.first = t
            if v.last is None or t > v.last:
                v.last = t

    def __iter__(self) -> Iterator[CrawlerRow]:
        """Rows, most requests first."""
        return iter(sorted(self.rows.values(), key=lambda r: (-r.requests, r.crawler)))
