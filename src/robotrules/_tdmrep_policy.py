"""TDMRep over HTTP: every decision about ``/.well-known/tdmrep.json`` that needs no socket.

The W3C TDM Reservation Protocol (Final Community Group Report, 2024-05-10) puts site-wide
choices in ``/.well-known/tdmrep.json`` (sec-tdm-file) and per-response choices in the
``tdm-reservation`` / ``tdm-policy`` headers (sec-tdm-header). The fetch clients get this file
"with the same care as robots.txt": the same :class:`robotrules._policy.Attempt` (size limit,
redirect limit and loop detection, bounded decompression), the same settling of the cache
entry (:func:`robotrules._policy.settle`: freshness from the response, back-off after
failures, a good copy kept through an outage), the same store, under a key of its own
(:func:`tdmrep_key`).

Status handling (sec-tdm-file: "Failure to provide access to such a representation implies that
the origin server does not implement this protocol"): anything but a complete 2xx JSON array
gives *no* TDMRep statement. 4xx is cached like a robots.txt 4xx; 5xx, 429 and network failures
are cached only for the back-off (60 s, doubling to 1 h), so the file is asked for again soon.
A body cut at the size limit, or one that is not a JSON array, gives no statement and a note
(:attr:`FetchedTdmRep.error`): a cut JSON document cannot be trusted to mean what it says.

Combining for one URL (:func:`combine_usage`): the robots.txt answer, the file's statement and
the statements of the page's response headers are combined most-restrictively (AIPREF
draft-ietf-aipref-vocab-07 "Combining Preferences"), with one exception the TDMRep report makes
itself (sec-processing-priority): "the values of `tdm-reservation` and `tdm-policy` found in
this header supercede any value inferred from a TDM file", so a ``tdm-reservation`` header
replaces the file's statement instead of being combined with it.

Cost: parsing is :func:`robotrules.aipref.parse_tdmrep` (O(size) for a body capped at
``max_bytes``); evaluating one URL is O(E * P) for E entries and the core matcher's pattern cost.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Literal

from robotrules._cache_entry import CacheEntry
from robotrules._policy import Attempt
from robotrules.aipref import Statement, TdmRep, Usage, from_headers, parse_tdmrep

__all__ = [
    "TDMREP_PATH",
    "FetchedTdmRep",
    "TdmRepAttempt",
    "combine_usage",
    "interpret",
    "tdmrep_key",
    "with_summary",
]

TDMREP_PATH = "/.well-known/tdmrep.json"  # TDMRep sec-tdm-file: "hosted in /.well-known"


def tdmrep_key(origin: str) -> str:
    """The store key of an origin's TDMRep entry: its URL, never equal to an origin (the key of
    the robots.txt entry), so the two share a store without colliding."""
    return origin + TDMREP_PATH


class TdmRepAttempt(Attempt):
    """One fetch of ``/.well-known/tdmrep.json``: robots.txt's attempt with another path.

    401/403 never mean "disallow all" here (no such rule exists for TDMRep): every 4xx is
    "no file". ``robots_url`` of the result holds the tdmrep.json URL.
    """

    def __init__(self, origin: str, *, max_bytes: int, max_redirects: int) -> None:
        super().__init__(origin, max_bytes=max_bytes, max_redirects=max_redirects,
                         auth_failure="allow")
        self.robots_url = self.url = tdmrep_key(origin)
        self._seen = {self.url}


@dataclass(frozen=True, slots=True)
class FetchedTdmRep:
    """One origin's ``tdmrep.json`` and how it was obtained.

    ``policy`` is the parsed file, or None when there is no usable file (``error`` says why:
    a status, a network failure, "larger than ... bytes", "not JSON ..."). A file that parsed
    with some entries skipped has both a ``policy`` and an ``error`` listing them.
    """

    origin: str
    url: str
    policy: TdmRep | None
    status: int | None
    outcome: Literal["file", "none", "unreachable"]
    error: str | None
    summary: str
    fetched_at: float
    expires_at: float
    from_cache: bool

    def statement(self, url: str) -> Statement | None:
        """The TDMRep statement for ``url`` (first matching entry), or None."""
        return None if self.policy is None else self.policy.evaluate(url)


def interpret(origin: str, entry: CacheEntry, *, from_cache: bool) -> FetchedTdmRep:
    """A settled cache entry as a :class:`FetchedTdmRep` (the body is parsed here)."""
    policy: TdmRep | None = None
    error = entry.error
    outcome: Literal["file", "none", "unreachable"]
    if entry.outcome == "rules" and not entry.truncated:
        parsed = parse_tdmrep(entry.body)
        if parsed.rules or not parsed.errors:
            policy, outcome = parsed, "file"
            error = "; ".join(parsed.errors) or None
            summary = f"{entry.status}: tdmrep.json with {len(parsed.rules)} entries"
            if parsed.errors:
                summary += f", {len(parsed.errors)} skipped"
        else:
            outcome = "none"
            error = "invalid tdmrep.json: " + "; ".join(parsed.errors)
            summary = f"{entry.status}: {error}; no TDMRep statement"
    elif entry.outcome == "rules":
        outcome = "none"
        error = "tdmrep.json larger than the size limit (max_bytes): ignored"
        summary = f"{entry.status}: {error}"
    elif entry.copy_ok:  # 4xx, redirect trouble: the origin does not implement TDMRep
        outcome = "none"
        what = str(entry.status) if entry.status is not None else "no file"
        summary = f"{what}{f' ({error})' if error else ''}: no tdmrep.json, no TDMRep statement"
    else:
        outcome = "unreachable"
        summary = f"{error or 'unreachable'}: no TDMRep statement, retried after a back-off"
    if entry.failing_since is not None and entry.copy_ok and outcome == "file":
        summary += f"; stale copy, refresh failing: {entry.error}"
    return FetchedTdmRep(
        origin=origin, url=tdmrep_key(origin), policy=policy, status=entry.status,
        outcome=outcome, error=error, summary=summary, fetched_at=entry.fetched_at,
        expires_at=entry.expires_at, from_cache=from_cache,
    )


def with_summary(entry: CacheEntry) -> CacheEntry:
    """A settled entry (:func:`robotrules._policy.settle`: freshness, back-off, outages, all
    as for robots.txt) with TDMRep's own summary line instead of robots.txt's."""
    return replace(entry, summary=interpret("", entry, from_cache=False).summary)


def combine_usage(base: Usage, url: str, tdm: FetchedTdmRep | None,
                  headers: Mapping[str, str] | Iterable[tuple[str, str]] | None) -> Usage:
    """The robots.txt answer ``base`` combined with the origin's TDMRep file and the page's
    response ``headers`` (see the module docstring for the rules).

    Nothing is combined when the crawl is disallowed (``Usage.combined_with``: no preference
    attaches to a resource that may not be fetched).
    """
    from_page = from_headers(headers) if headers is not None else ()
    header_tdm = any(s.source == "http-tdm" for s in from_page)
    more: list[Statement] = []
    file_statement = tdm.statement(url) if tdm is not None and not header_tdm else None
    if file_statement is not None:
        more.append(file_statement)
    more.extend(from_page)
    return base.combined_with(*more)
