"""``robotrules.fetch._common.OutageLog``: an unreachable robots.txt is said once per origin and
outage, with its reason (issue 36: "unreachable files are logged once per origin with the
reason"; RFC 9309 2.3.1.4: unreachable means complete disallow, 2.4: a last good copy may
stand in). An outage is one ``failing_since``; an answer that is not failing ends it."""

from __future__ import annotations

import logging

import pytest

import robotrules
from robotrules.fetch import FetchedRobots
from robotrules.fetch._common import OutageLog


def _fetched(origin: str, *, failing_since: float | None, outcome: str = "disallow-all",
             summary: str = "503: unreachable, disallow all") -> FetchedRobots:
    return FetchedRobots(
        rules=robotrules.parse(b""), outcome=outcome, status=503,  # type: ignore[arg-type]
        robots_url=origin + "/robots.txt", final_url=origin + "/robots.txt", redirects=(),
        fetched_at=1_800_000_000.0, expires_at=1_800_000_060.0, size=0, error="503",
        from_cache=False, headers={}, summary=summary, truncated=False,
        failing_since=failing_since, origin=origin)


def test_once_per_origin_and_outage(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    log = OutageLog(logging.getLogger("test.outage"))
    a, b = "https://a.example", "https://b.example"
    for fetched in [
        _fetched(a, failing_since=1.0),  # a's outage: said
        _fetched(a, failing_since=1.0),  # the same outage again: not said
        _fetched(b, failing_since=1.0),  # another origin: said
        _fetched(a, failing_since=None, outcome="rules", summary="200: 1 KiB, rules"),  # ends it
        _fetched(a, failing_since=2.0),  # a new outage of a: said
        _fetched(b, failing_since=1.0, outcome="rules",
                 summary="200: 1 KiB, rules; stale copy, refresh failing since ..."),  # same one
    ]:
        log.note(fetched)
    said = [r.getMessage() for r in caplog.records]
    assert said == [
        "robots.txt of https://a.example is unreachable (503: unreachable, disallow all): every "
        "URL of it is skipped (RFC 9309 2.3.1.4); next try at 2027-01-15T08:01:00Z",
        "robots.txt of https://b.example is unreachable (503: unreachable, disallow all): every "
        "URL of it is skipped (RFC 9309 2.3.1.4); next try at 2027-01-15T08:01:00Z",
        "robots.txt of https://a.example is unreachable (503: unreachable, disallow all): every "
        "URL of it is skipped (RFC 9309 2.3.1.4); next try at 2027-01-15T08:01:00Z",
    ]


def test_a_stale_copy_is_said_to_stand_in(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    OutageLog(logging.getLogger("test.outage")).note(_fetched(
        "https://a.example", failing_since=1.0, outcome="rules",
        summary="200: 1 KiB, rules; stale copy, refresh failing since 2027-01-15T08:00:00Z: 503"))
    (said,) = [r.getMessage() for r in caplog.records]
    assert "its last good copy stands in (RFC 9309 2.4)" in said
