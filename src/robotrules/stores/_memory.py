"""In-memory LRU store: the library default. One process, no I/O, thread-safe."""

from __future__ import annotations

import threading
from collections import OrderedDict

from robotrules.stores._base import CacheEntry

__all__ = ["MemoryStore"]


class MemoryStore:
    """Keeps the ``max_entries`` most recently used origins; ``ttl`` is not needed here.

    Least-recently-used eviction bounds memory at ``max_entries`` x the size limit (512000 bytes
    each by default) in the worst case. Expiry is the client's decision, so entries are only
    dropped by eviction or :meth:`delete`.
    """

    blocking = False

    def __init__(self, max_entries: int = 10_000) -> None:
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        self.max_entries = max_entries
        self._data: OrderedDict[str, CacheEntry] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> CacheEntry | None:
        with self._lock:
            entry = self._data.get(key)
            if entry is not None:
                self._data.move_to_end(key)
            return entry

    def set(self, key: str, entry: CacheEntry, *, ttl: float) -> None:
        with self._lock:
            self._data[key] = entry
            self._data.move_to_end(key)
            while len(self._data) > self.max_entries:
                self._data.popitem(last=False)

    def delete(self, key: str) -> None:
        with self._lock:
            self._data.pop(key, None)

    def close(self) -> None:
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"MemoryStore(max_entries={self.max_entries}, entries={len(self._data)})"
