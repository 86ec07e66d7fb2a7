"""Redis store: one cache for a crawler fleet, shared by every process that can reach it.

Each origin is one string key (``prefix + origin``) holding :meth:`CacheEntry.to_bytes`, with
a Redis expiry for garbage collection. Short socket timeouts keep a dead Redis from stalling a
crawler: the call fails fast and the client fetches instead.

:meth:`try_lease` / :meth:`release_lease` (``SET NX PX``) let processes agree that only one of
them fetches an origin at a time; the others wait briefly for its result.
"""

from __future__ import annotations

import contextlib
import uuid
from typing import Any

from robotrules.errors import StoreError
from robotrules.stores._base import CacheEntry

__all__ = ["RedisStore"]


class RedisStore:
    """Cache entries in Redis at ``url`` (or an existing ``redis.Redis`` ``client``)."""

    blocking = True

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        client: Any = None,
        prefix: str = "robotrules:robots:",
        socket_timeout: float = 2.0,
    ) -> None:
        if client is None:
            try:
                import redis
            except ImportError as exc:  # pragma: no cover - depends on the install
                raise ImportError(
                    "RedisStore needs the redis package: pip install robotrules[redis]"
                ) from exc
            client = redis.Redis.from_url(
                url, socket_timeout=socket_timeout, socket_connect_timeout=socket_timeout
            )
        self.client = client
        self.prefix = prefix
        self._token = uuid.uuid4().hex

    def get(self, key: str) -> CacheEntry | None:
        try:
            data = self.client.get(self.prefix + key)
        except Exception as exc:
            raise StoreError(f"Redis store: {exc}") from exc
        if data is None:
            return None
        if not isinstance(data, bytes):
            raise StoreError("Redis store: client must not decode responses")
        return CacheEntry.from_bytes(data)

    def set(self, key: str, entry: CacheEntry, *, ttl: float) -> None:
        try:
            self.client.set(self.prefix + key, entry.to_bytes(), ex=max(1, int(ttl)))
        except Exception as exc:
            raise StoreError(f"Redis store: {exc}") from exc

    def delete(self, key: str) -> None:
        try:
            self.client.delete(self.prefix + key)
        except Exception as exc:
            raise StoreError(f"Redis store: {exc}") from exc

    def try_lease(self, key: str, *, ttl: float) -> bool:
        """Claim the right to fetch ``key`` for ``ttl`` seconds; False if another holds it."""
        try:
            return bool(
                self.client.set(
                    self.prefix + "lease:" + key, self._token, nx=True, px=max(1, int(ttl * 1000))
                )
            )
        except Exception as exc:
            raise StoreError(f"Redis store: {exc}") from exc

    def release_lease(self, key: str) -> None:
        """Give up a lease taken by :meth:`try_lease` (only our own)."""
        script = (
            "if redis.call('get', KEYS[1]) == ARGV[1] then "
            "return redis.call('del', KEYS[1]) else return 0 end"
        )
        try:
            self.client.eval(script, 1, self.prefix + "lease:" + key, self._token)
        except Exception as exc:
            raise StoreError(f"Redis store: {exc}") from exc

    def close(self) -> None:
        with contextlib.suppress(Exception):  # closing a dead connection has nothing to report
            self.client.close()

    def __repr__(self) -> str:
        return f"RedisStore(prefix={self.prefix!r})"
