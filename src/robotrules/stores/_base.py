"""The one ``Store`` protocol every cache backend implements, and what a store holds.

A store maps an origin (``https://example.com``) to a :class:`CacheEntry` (the HTTP policy's
value, :mod:`robotrules._cache_entry`, re-exported here). Stores never decide freshness: the
client does, with its own clock. The ``ttl`` given to :meth:`Store.set` only tells a store
when it may forget the entry (garbage collection), which is always well after ``expires_at`` so
that a last good copy survives an outage.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from robotrules._cache_entry import FORMAT_VERSION, CacheEntry, Outcome

__all__ = ["FORMAT_VERSION", "CacheEntry", "Outcome", "Store"]


@runtime_checkable
class Store(Protocol):
    """Where fetched robots.txt files are kept, keyed by origin.

    Implementations raise :class:`robotrules.errors.StoreError` (or anything else) on failure;
    clients catch it, warn once and fetch instead. ``blocking`` tells the async client whether
    to call the store from a worker thread (True for anything doing I/O).
    """

    blocking: bool

    def get(self, key: str) -> CacheEntry | None:
        """The entry stored under ``key``, or None."""
        ...

    def set(self, key: str, entry: CacheEntry, *, ttl: float) -> None:
        """Store ``entry``; the store may forget it ``ttl`` seconds from now."""
        ...

    def delete(self, key: str) -> None:
        """Forget ``key`` (no error when absent)."""
        ...

    def close(self) -> None:
        """Release connections and files."""
        ...
