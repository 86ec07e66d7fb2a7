"""Fetching RSL licence documents: the one module of robotrules.aipref that does I/O.

An RSL document is fetched "with the same care as robots.txt": at most ``max_bytes`` are read
(the transfer stops there and the document is refused), every request has a timeout,
redirects are followed up to five times, and each answer (documents, refusals and failures
alike) is kept in a bounded in-memory cache for the freshness its response gives
(:func:`robotrules._policy.freshness_lifetime`, the robots.txt rule: ``max-age``/``Expires``,
at least 60 s, at most 24 h); failures are kept for ``failure_ttl``. The body is parsed by
:func:`robotrules.aipref.rsl.parse_rsl` (``defusedxml``). A media type other than
``application/rsl+xml`` is reported (:attr:`FetchedRsl.media_type_ok`, lint L044) but the
document is still read. A 401/402 with ``WWW-Authenticate: License`` is reported as "licence
required" (:func:`robotrules._policy.license_challenge`).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from .._findings import finding
from .._model import Finding
from .._policy import freshness_lifetime, license_challenge
from .rsl import DEFAULT_RSL_MAX_BYTES, RSL_MEDIA_TYPE, RslDocument, parse_rsl

if TYPE_CHECKING:
    import httpx

__all__ = ["FetchedRsl", "RslFetcher", "media_type_findings"]

_FAILURE_TTL: Final = 300.0


@dataclass(frozen=True, slots=True)
class FetchedRsl:
    """One RSL document and how it was obtained. ``document`` is None when none could be used
    (``error`` says why); ``licence_required`` is set for a 401/402 License challenge."""

    url: str
    status: int | None
    media_type: str | None
    document: RslDocument | None
    error: str | None
    licence_required: str | None
    fetched_at: float
    expires_at: float
    from_cache: bool = False

    @property
    def media_type_ok(self) -> bool:
        """Served as ``application/rsl+xml`` (RSL 1.0's media type)."""
        return self.media_type == RSL_MEDIA_TYPE

    def to_dict(self) -> dict[str, object]:
        return {"url": self.url, "status": self.status, "media_type": self.media_type,
                "media_type_ok": self.media_type_ok, "error": self.error,
                "licence_required": self.licence_required,
                "errors": list(self.document.errors) if self.document else [],
                "contents": len(self.document.contents) if self.document else 0}


class RslFetcher:
    """Fetches and caches RSL documents with an ``httpx.Client`` (its own unless given).

    ``max_bytes``: the size cap; ``timeout``: seconds per request (connect, read, write, pool);
    ``max_entries``: the cache bound (least recently used first out); ``failure_ttl``: how long
    a failure is remembered. Thread-safe; ``close()`` closes the client it made.
    """

    def __init__(self, *, client: httpx.Client | None = None,
                 max_bytes: int = DEFAULT_RSL_MAX_BYTES, timeout: float = 10.0,
                 max_entries: int = 1024, failure_ttl: float = _FAILURE_TTL,
                 user_agent: str = "robotrules") -> None:
        import httpx

        self._own = client is None
        self._client = client or httpx.Client(timeout=timeout, follow_redirects=True,
                                              max_redirects=5)
        self._timeout = httpx.Timeout(timeout)
        self.max_bytes = max_bytes
        self.max_entries = max_entries
        self.failure_ttl = failure_ttl
        self.user_agent = user_agent
        self._cache: OrderedDict[str, FetchedRsl] = OrderedDict()
        self._lock = threading.Lock()

    def close(self) -> None:
        if self._own:
            self._client.close()

    def __enter__(self) -> RslFetcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def fetch(self, url: str) -> FetchedRsl:
        """The RSL document at ``url`` (from the cache while fresh)."""
        now = time.time()
        with self._lock:
            hit = self._cache.get(url)
            if hit is not None and hit.expires_at > now:
                self._cache.move_to_end(url)
                return FetchedRsl(hit.url, hit.status, hit.media_type, hit.document, hit.error,
                                  hit.licence_required, hit.fetched_at, hit.expires_at, True)
        got = self._get(url, now)
        with self._lock:
            self._cache[url] = got
            self._cache.move_to_end(url)
            while len(self._cache) > self.max_entries:
                self._cache.popitem(last=False)
        return got

    def _get(self, url: str, now: float) -> FetchedRsl:
        import httpx

        def failed(error: str, status: int | None = None, media: str | None = None,
                   licence: str | None = None) -> FetchedRsl:
            return FetchedRsl(url, status, media, None, error, licence, now,
                              now + self.failure_ttl)

        try:
            with self._client.stream("GET", url, timeout=self._timeout,
                                     headers={"user-agent": self.user_agent,
                                              "accept": f"{RSL_MEDIA_TYPE}, */*;q=0.1"}) as r:
                headers = {k.lower(): v for k, v in r.headers.items()}
                media = headers.get("content-type", "").split(";", 1)[0].strip().lower() or None
                if r.status_code != 200:
                    licence = license_challenge(r.status_code, headers)
                    return failed(licence or f"HTTP {r.status_code}", r.status_code, media,
                                  licence)
                chunks: list[bytes] = []
                size = 0
                for chunk in r.iter_bytes():
                    chunks.append(chunk)
                    size += len(chunk)
                    if size > self.max_bytes:
                        return failed(f"larger than {self.max_bytes:,} bytes: not read", 200,
                                      media)
        except httpx.HTTPError as exc:
            return failed(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
        doc = parse_rsl(b"".join(chunks), max_bytes=self.max_bytes, base=url)
        error = "; ".join(doc.errors) or None
        usable = doc if doc.contents else None
        ttl = freshness_lifetime(headers) if usable is not None else self.failure_ttl
        return FetchedRsl(url, 200, media, usable, error, None, now, now + ttl)


def media_type_findings(fetched: FetchedRsl, line: int = 0) -> list[Finding]:
    """L044 when ``fetched`` came with a media type other than ``application/rsl+xml``
    (``line``: the robots.txt ``License:`` line that pointed to it; 0 for the file)."""
    if fetched.status != 200 or fetched.media_type_ok:
        return []
    return [finding("L044", line, 1,
                    f"the RSL document {fetched.url} is served as "
                    f"'{fetched.media_type or 'no media type'}', not {RSL_MEDIA_TYPE} (RSL 1.0)",
                    f"serve it with 'Content-Type: {RSL_MEDIA_TYPE}'")]
