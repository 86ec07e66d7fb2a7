"""Cache stores for fetched robots.txt files: memory (LRU), SQLite (file), Redis (fleet).

All implement :class:`Store`; the fetch clients accept any of them (``store=``).
"""

from __future__ import annotations

from robotrules.stores._base import CacheEntry, Outcome, Store
from robotrules.stores._memory import MemoryStore
from robotrules.stores._redis import RedisStore
from robotrules.stores._sqlite import SQLiteStore, default_cache_path

__all__ = [
    "CacheEntry",
    "MemoryStore",
    "Outcome",
    "RedisStore",
    "SQLiteStore",
    "Store",
    "default_cache_path",
]
