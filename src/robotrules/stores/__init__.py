"""Cache stores for fetched robots.txt files: memory (LRU), SQLite (file), Redis (fleet).

All implement :class:`Store`; the fetch clients accept any of them (``store=``). The backends
load on first use, so that the core (which needs only :class:`CacheEntry`) imports no sqlite3.
"""

from __future__ import annotations

import importlib as _importlib
from typing import TYPE_CHECKING
from typing import Any as _Any

from robotrules.stores._base import CacheEntry, Outcome, Store

if TYPE_CHECKING:
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

_LAZY = {"MemoryStore": "_memory", "RedisStore": "_redis", "SQLiteStore": "_sqlite",
         "default_cache_path": "_sqlite"}


def __getattr__(name: str) -> _Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'robotrules.stores' has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"robotrules.stores.{module}"), name)
    globals()[name] = value
    return value
