"""SQLite store: embedded and persistent, shared by every process on one machine.

One table, one row per origin. WAL mode lets readers and one writer work at once across
processes; ``timeout`` bounds how long a locked database is waited for before the call fails
(the client then fetches instead). The connection is opened lazily, so a corrupt or unreadable
file surfaces as a :class:`StoreError` on use, never in the constructor.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from pathlib import Path

from robotrules.errors import StoreError
from robotrules.stores._base import CacheEntry

__all__ = ["SQLiteStore", "default_cache_path"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS robots (
    key TEXT PRIMARY KEY,
    entry BLOB NOT NULL,
    keep_until REAL NOT NULL
)
"""
_PRUNE_EVERY = 256  # writes between two deletions of forgettable rows


def default_cache_path() -> Path:
    """``<user cache dir>/robotrules/robots.sqlite3``; ``XDG_CACHE_HOME`` wins when set.

    ``XDG_CACHE_HOME`` is honoured on every platform (the XDG spec ignores relative values);
    otherwise platformdirs picks the platform's cache directory, and ``~/.cache`` is the
    fallback when platformdirs is not installed.
    """
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        base = Path(xdg)
    else:
        try:
            import platformdirs
        except ImportError:  # pragma: no cover - platformdirs is in the fetch extra
            base = Path.home() / ".cache"
        else:
            base = Path(platformdirs.user_cache_dir(appauthor=False))
    return base / "robotrules" / "robots.sqlite3"


class SQLiteStore:
    """Cache entries in a SQLite file (``None``: :func:`default_cache_path`)."""

    blocking = True

    def __init__(self, path: str | os.PathLike[str] | None = None, *, timeout: float = 5.0) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        self.timeout = timeout
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._writes = 0

    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                self.path, timeout=self.timeout, check_same_thread=False, isolation_level=None
            )
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute(_SCHEMA)
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    def get(self, key: str) -> CacheEntry | None:
        with self._lock:
            try:
                row = self._connect().execute(
                    "SELECT entry FROM robots WHERE key = ?", (key,)
                ).fetchone()
            except (sqlite3.Error, OSError) as exc:
                raise StoreError(f"SQLite store {self.path}: {exc}") from exc
        if row is None:
            return None
        return CacheEntry.from_bytes(bytes(row[0]))

    def set(self, key: str, entry: CacheEntry, *, ttl: float) -> None:
        data = entry.to_bytes()
        now = time.time()
        with self._lock:
            try:
                conn = self._connect()
                conn.execute(
                    "INSERT OR REPLACE INTO robots (key, entry, keep_until) VALUES (?, ?, ?)",
                    (key, data, now + ttl),
                )
                self._writes += 1
                if self._writes % _PRUNE_EVERY == 0:
                    conn.execute("DELETE FROM robots WHERE keep_until < ?", (now,))
            except (sqlite3.Error, OSError) as exc:
                raise StoreError(f"SQLite store {self.path}: {exc}") from exc

    def delete(self, key: str) -> None:
        with self._lock:
            try:
                self._connect().execute("DELETE FROM robots WHERE key = ?", (key,))
            except (sqlite3.Error, OSError) as exc:
                raise StoreError(f"SQLite store {self.path}: {exc}") from exc

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __repr__(self) -> str:
        return f"SQLiteStore({str(self.path)!r})"
