"""The three stores behind one Protocol, tested for real: memory, a SQLite file, redis-server.

Source: Issue 4 (stores; "if the store fails ... never answers wrongly"); RFC 9309 2.4 (what is
cached) and 2.3.1.4 (entries outlive their freshness to serve an outage).
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from robotrules.errors import StoreError
from robotrules.stores import (
    CacheEntry,
    MemoryStore,
    RedisStore,
    SQLiteStore,
    Store,
    default_cache_path,
)


def entry(origin: str = "http://h", body: bytes = b"User-agent: *\nDisallow: /\n") -> CacheEntry:
    return CacheEntry(
        robots_url=origin + "/robots.txt", outcome="rules", status=200,
        final_url=origin + "/robots.txt", fetched_at=1e9, expires_at=1e9 + 86_400, body=body,
        redirects=((origin + "/old", 301),), headers={"content-type": "text/plain"},
        summary="200: 26 bytes, rules",
    )


@pytest.fixture(params=["memory", "sqlite", "redis"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "memory":
        s: Store = MemoryStore()
    elif request.param == "sqlite":
        s = SQLiteStore(tmp_path / "robots.sqlite3")
    else:
        redis_server = request.getfixturevalue("redis_server")
        s = RedisStore(redis_server.url)
    yield s
    s.close()


def test_protocol_round_trip(store: Store) -> None:
    """Every store keeps entries byte for byte, including non-UTF-8 bodies."""
    assert isinstance(store, Store)
    assert store.get("http://h") is None
    e = entry(body=b"User-agent: *\r\nDisallow: /\xff\x00\n")
    store.set("http://h", e, ttl=3600)
    assert store.get("http://h") == e
    e2 = entry(body=b"")
    store.set("http://h", e2, ttl=3600)
    assert store.get("http://h") == e2
    store.set("https://other", entry("https://other"), ttl=3600)
    store.delete("http://h")
    store.delete("http://never-there")
    assert store.get("http://h") is None
    assert store.get("https://other") is not None


def test_memory_lru() -> None:
    """Issue 4: in-memory LRU; the least recently used origin goes first."""
    s = MemoryStore(max_entries=2)
    s.set("a", entry("a"), ttl=1)
    s.set("b", entry("b"), ttl=1)
    assert s.get("a") is not None  # a is now the most recent
    s.set("c", entry("c"), ttl=1)
    assert (s.get("a") is not None, s.get("b"), s.get("c") is not None) == (True, None, True)
    assert len(s) == 2
    with pytest.raises(ValueError):
        MemoryStore(max_entries=0)


def test_entry_garbage_is_a_store_error() -> None:
    for data in (b"", b"not json\n", b'{"v": 99}\nbody', b'{"v": 1}\n', b"\xff\xfe\n"):
        with pytest.raises(StoreError):
            CacheEntry.from_bytes(data)


# --- SQLite ---------------------------------------------------------------------------------


def test_sqlite_persists_across_instances_and_processes(tmp_path: Path) -> None:
    """Issue 4: SQLite is embedded and persistent (shared by processes on one machine)."""
    path = tmp_path / "sub" / "robots.sqlite3"
    s = SQLiteStore(path)
    s.set("http://h", entry(), ttl=3600)
    s.close()
    assert SQLiteStore(path).get("http://h") == entry()
    code = (
        "import sys; from robotrules.stores import SQLiteStore;"
        "e = SQLiteStore(sys.argv[1]).get('http://h'); print(e.body.decode().splitlines()[1])"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                         text=True, check=True, env=_env(), timeout=60)
    assert out.stdout.strip() == "Disallow: /"


def _env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[2] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_default_cache_path_honours_xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 4: the CLI default lives under the user cache dir, XDG_CACHE_HOME honoured."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_path() == tmp_path / "xdg" / "robotrules" / "robots.sqlite3"
    s = SQLiteStore()
    s.set("http://h", entry(), ttl=60)
    s.close()
    assert (tmp_path / "xdg" / "robotrules" / "robots.sqlite3").exists()
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")  # XDG spec: relative paths ignored
    assert default_cache_path().is_absolute()
    assert default_cache_path().parts[-2:] == ("robotrules", "robots.sqlite3")


def test_sqlite_prunes_forgettable_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from robotrules.stores import _sqlite

    monkeypatch.setattr(_sqlite, "_PRUNE_EVERY", 1)
    s = SQLiteStore(tmp_path / "r.sqlite3")
    s.set("old", entry(), ttl=-1)  # already forgettable
    s.set("new", entry(), ttl=3600)
    assert s.get("old") is None
    assert s.get("new") is not None
    s.close()


def test_sqlite_corrupt_file(tmp_path: Path) -> None:
    """Issue 4: a corrupt SQLite file is a StoreError on use, never at construction."""
    path = tmp_path / "robots.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    s = SQLiteStore(path)
    with pytest.raises(StoreError):
        s.get("http://h")
    with pytest.raises(StoreError):
        s.set("http://h", entry(), ttl=1)
    s.close()


def test_sqlite_locked(tmp_path: Path) -> None:
    """Issue 4: a locked database fails within the store's timeout (then the client fetches)."""
    path = tmp_path / "robots.sqlite3"
    first = SQLiteStore(path)
    first.set("http://h", entry(), ttl=60)
    first.close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # WAL: readers still read, writers wait then fail
    try:
        s = SQLiteStore(path, timeout=0.05)
        with pytest.raises(StoreError):
            s.set("http://h", entry(), ttl=60)
        s.close()
    finally:
        holder.execute("ROLLBACK")
        holder.close()


# --- Redis ----------------------------------------------------------------------------------


def test_redis_ttl_and_prefix(redis_server: Any) -> None:
    """RFC 9309 2.3.1.4: entries stay long enough (30+ days) to stand in during an outage;
    Redis forgets them after that."""
    import redis

    raw = redis.Redis.from_url(redis_server.url)
    s = RedisStore(redis_server.url, prefix="fleet1:")
    s.set("https://h", entry("https://h"), ttl=31 * 86_400)
    assert raw.exists("fleet1:https://h")
    assert 30 * 86_400 < raw.ttl("fleet1:https://h") <= 31 * 86_400
    assert RedisStore(redis_server.url, prefix="fleet2:").get("https://h") is None
    raw.set("fleet1:https://h", b"garbage written by someone else")
    with pytest.raises(StoreError):
        s.get("https://h")
    s.close()
    raw.close()


def test_redis_lease(redis_server: Any) -> None:
    """One fetcher per origin across processes: SET NX PX, released only by its holder."""
    a, b = RedisStore(redis_server.url), RedisStore(redis_server.url)
    assert a.try_lease("http://h", ttl=5) is True
    assert b.try_lease("http://h", ttl=5) is False
    b.release_lease("http://h")  # not b's: no effect
    assert b.try_lease("http://h", ttl=5) is False
    a.release_lease("http://h")
    assert b.try_lease("http://h", ttl=5) is True
    a.close()
    b.close()


def test_redis_down_is_a_store_error() -> None:
    from robots_servers import refused_port

    s = RedisStore(f"redis://127.0.0.1:{refused_port()}/0", socket_timeout=0.5)
    with pytest.raises(StoreError):
        s.get("http://h")
    with pytest.raises(StoreError):
        s.set("http://h", entry(), ttl=1)
    with pytest.raises(StoreError):
        s.try_lease("http://h", ttl=1)
    s.close()
