"""Clients on real stores: shared caches across instances and processes, and store failures.

Source: Issue 4 ("Redis: one cache for a crawler fleet; several processes share fetches";
"if the store fails ... the client falls back to fetching, logs one warning, and never
answers wrongly"); RFC 9309 2.4 (caching).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from robots_servers import FakeClock, Response, Server, refused_port

from robotrules.stores import RedisStore, SQLiteStore

BODY = b"User-agent: *\nDisallow: /private\n"
Make = Callable[..., Any]
Serve = Callable[..., Server]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[2] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_sqlite_shared_between_clients(make_client: Make, serve: Serve, tmp_path: Path) -> None:
    """A second client on the same SQLite file uses the first one's fetch."""
    srv = serve(lambda r: Response(200, BODY))
    path = tmp_path / "robots.sqlite3"
    a = make_client(store=SQLiteStore(path))
    assert a.is_allowed(srv.origin + "/private") is False
    b = make_client(store=SQLiteStore(path))
    fr = b.rules_for(srv.origin)
    assert fr.from_cache is True
    assert b.is_allowed(srv.origin + "/private") is False
    assert srv.hits == 1


WORKER = r"""
import asyncio, sys
from robotrules.fetch import AsyncRobotsClient, RobotsClient
from robotrules.stores import RedisStore, SQLiteStore
kind, twin, where, origin = sys.argv[1:5]
store = RedisStore(where) if kind == "redis" else SQLiteStore(where)
print("ready", flush=True)
sys.stdin.readline()  # the parent releases every worker at once
if twin == "sync":
    with RobotsClient(store=store) as c:
        fr = c.rules_for(origin)
        print(c.is_allowed(origin + "/private"), fr.from_cache, flush=True)
else:
    async def main():
        async with AsyncRobotsClient(store=store) as c:
            fr = await c.rules_for(origin)
            print(await c.is_allowed(origin + "/private"), fr.from_cache, flush=True)
    asyncio.run(main())
"""


def _run_workers(kind: str, where: str, origin: str, twins: list[str]) -> list[str]:
    procs = [
        subprocess.Popen([sys.executable, "-c", WORKER, kind, twin, where, origin],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=_env())
        for twin in twins
    ]
    try:
        for p in procs:
            assert p.stdout is not None
            assert p.stdout.readline().strip() == "ready"
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("go\n")
            p.stdin.flush()
        return [p.communicate(timeout=60)[0].strip() for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()


def test_sqlite_two_processes(serve: Serve, tmp_path: Path) -> None:
    """Issue 4: two processes share one SQLite cache; the second does not fetch again."""
    srv = serve(lambda r: Response(200, BODY))
    path = str(tmp_path / "robots.sqlite3")
    assert _run_workers("sqlite", path, srv.origin, ["sync"]) == ["False False"]
    assert _run_workers("sqlite", path, srv.origin, ["async"]) == ["False True"]
    assert srv.hits == 1


def test_redis_two_processes_at_once(serve: Serve, redis_server: Any) -> None:
    """Issue 4: several processes share fetches. Two processes (one per twin) asking at the
    same moment cause one request: the Redis lease makes the second wait for the first."""
    srv = serve(lambda r: Response(200, BODY, delay=0.5))
    out = _run_workers("redis", redis_server.url, srv.origin, ["sync", "async"])
    assert sorted(out) == ["False False", "False True"]  # one fetched, one read the cache
    assert srv.hits == 1


# --- store failures: fall back to fetching, one warning, right answers ---------------------


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == "robotrules.fetch" and r.levelno == logging.WARNING]


def test_redis_down(make_client: Make, serve: Serve, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 4: Redis down: fetch anyway, warn once, answer right."""
    servers = [serve(lambda r: Response(200, BODY)) for _ in range(3)]
    c = make_client(store=RedisStore(f"redis://127.0.0.1:{refused_port()}/0", socket_timeout=0.5))
    with caplog.at_level(logging.WARNING, logger="robotrules.fetch"):
        for srv in servers:
            assert c.is_allowed(srv.origin + "/private") is False
            assert c.is_allowed(srv.origin + "/public") is True
    assert [s.hits for s in servers] == [1, 1, 1]  # the client's own memory still caches
    assert len(_warnings(caplog)) == 1


def test_redis_dies_mid_run(make_client: Make, serve: Serve, redis_server: Any,
                            clock: FakeClock, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 4: the store fails after working: refreshes still happen, answers stay right."""
    answer = [Response(200, BODY)]
    srv = serve(lambda r: answer[0])
    c = make_client(store=RedisStore(redis_server.url, socket_timeout=0.5))
    assert c.is_allowed(srv.origin + "/private") is False
    redis_server.stop()
    answer[0] = Response(200, b"User-agent: *\nDisallow: /\n")
    clock.advance(86_401)
    with caplog.at_level(logging.WARNING, logger="robotrules.fetch"):
        assert c.is_allowed(srv.origin + "/public") is False  # the new file was fetched
        answer[0] = Response(503)
        clock.advance(86_401)
        # an outage while the store is down: the client's own last copy stands in
        assert c.is_allowed(srv.origin + "/public") is False
        assert c.rules_for(srv.origin).failing_since is not None
    assert srv.hits == 3
    assert len(_warnings(caplog)) == 1


def test_redis_garbage_entry(make_client: Make, serve: Serve, redis_server: Any) -> None:
    """A key holding something else is a miss, then overwritten; never a wrong answer."""
    import redis

    srv = serve(lambda r: Response(200, BODY))
    raw = redis.Redis.from_url(redis_server.url)
    raw.set("robotrules:robots:" + srv.origin, b'{"v": 1, "outcome": "allow-all"}\n')
    c = make_client(store=RedisStore(redis_server.url))
    assert c.is_allowed(srv.origin + "/private") is False
    assert srv.hits == 1
    assert RedisStore(redis_server.url).get(srv.origin) is not None  # repaired
    raw.close()


def test_sqlite_locked_falls_back(make_client: Make, serve: Serve, tmp_path: Path,
                                  caplog: pytest.LogCaptureFixture) -> None:
    """Issue 4: SQLite locked: fetch anyway, warn once, answer right."""
    srv = serve(lambda r: Response(200, BODY))
    path = tmp_path / "robots.sqlite3"
    SQLiteStore(path).close()
    first = SQLiteStore(path)
    first.get("x")  # creates the schema
    first.close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        c = make_client(store=SQLiteStore(path, timeout=0.05))
        with caplog.at_level(logging.WARNING, logger="robotrules.fetch"):
            assert c.is_allowed(srv.origin + "/private") is False
            assert c.is_allowed(srv.origin + "/public") is True
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert srv.hits == 1
    assert len(_warnings(caplog)) == 1


def test_sqlite_corrupt_falls_back(make_client: Make, serve: Serve, tmp_path: Path,
                                   caplog: pytest.LogCaptureFixture) -> None:
    """Issue 4: SQLite corrupt: fetch anyway, warn once, answer right."""
    srv = serve(lambda r: Response(200, BODY))
    other = serve(lambda r: Response(404))
    path = tmp_path / "robots.sqlite3"
    path.write_bytes(b"garbage" * 1000)
    c = make_client(store=SQLiteStore(path))
    with caplog.at_level(logging.WARNING, logger="robotrules.fetch"):
        assert c.is_allowed(srv.origin + "/private") is False
        assert c.is_allowed(other.origin + "/private") is True
    assert (srv.hits, other.hits) == (1, 1)
    assert len(_warnings(caplog)) == 1
    assert path.read_bytes() == b"garbage" * 1000  # the user's file is not "repaired" away


def test_store_evicted_entry_still_known(make_client: Make, serve: Serve,
                                         clock: FakeClock) -> None:
    """RFC 9309 2.4: an entry evicted from a small LRU does not lose the outage copy: the
    client's own memory keeps the last copy it saw."""
    from robotrules.stores import MemoryStore

    answer = [Response(200, BODY)]
    srv = serve(lambda r: answer[0])
    c = make_client(store=MemoryStore(max_entries=1))
    assert c.is_allowed(srv.origin + "/private") is False
    c.store.delete(srv.origin)
    answer[0] = Response(500)
    clock.advance(86_401)
    assert c.is_allowed(srv.origin + "/private") is False
    assert c.is_allowed(srv.origin + "/public") is True  # the copy, not disallow-all
