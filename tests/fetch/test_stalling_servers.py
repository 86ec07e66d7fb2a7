"""Servers that stall while sending headers: the total timeout still holds.

Source: issue 4 ("a connect and a total timeout"; "network failures ... timeout ...:
unreachable") and RFC 9309 2.3.1.4 (unreachable: disallow all). httpx times each socket read,
so a server that trickles its status line and headers a byte at a time would otherwise hold
the client for as long as it likes.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest

from robotrules.fetch import AsyncRobotsClient, RobotsClient

TIMEOUT = 1.0
BOUND = TIMEOUT + 5.0  # total + grace + a loaded machine's slack; far below the stall


@pytest.fixture
def trickling_port() -> Iterator[int]:
    """Answers every connection with a status line, then one header byte every 0.2 s for
    up to 30 s (bounded: the server stops by itself)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.2)
    stop = threading.Event()

    def handle(conn: socket.socket) -> None:
        try:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\n")
            for _ in range(150):
                if stop.is_set():
                    break
                conn.sendall(b"X")
                time.sleep(0.2)
        except OSError:
            pass
        finally:
            conn.close()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            threading.Thread(target=handle, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield srv.getsockname()[1]
    stop.set()
    thread.join(timeout=5)
    srv.close()


def test_sync_client_gives_up_at_the_total_timeout(trickling_port: int) -> None:
    with RobotsClient(user_agent="ExampleBot/1.0", timeout=TIMEOUT) as client:
        start = time.monotonic()
        fetched = client.rules_for(f"http://127.0.0.1:{trickling_port}/x")
        elapsed = time.monotonic() - start
    assert elapsed < BOUND
    assert fetched.outcome == "disallow-all"
    assert fetched.error is not None
    assert "timeout" in fetched.error


async def test_async_client_gives_up_at_the_total_timeout(trickling_port: int) -> None:
    async with AsyncRobotsClient(user_agent="ExampleBot/1.0", timeout=TIMEOUT) as client:
        start = time.monotonic()
        fetched = await client.rules_for(f"http://127.0.0.1:{trickling_port}/x")
        elapsed = time.monotonic() - start
    assert elapsed < BOUND
    assert fetched.outcome == "disallow-all"
    assert fetched.error is not None
    assert "timeout" in fetched.error


def test_urllib_drop_in_read_gives_up_at_its_timeout(trickling_port: int) -> None:
    """robotrules.compat.RobotFileParser.read(): urllib times each socket operation; the
    drop-in bounds the whole read and, unreachable, disallows all (RFC 9309 2.3.1.4)."""
    from robotrules.compat import RobotFileParser

    rp = RobotFileParser(f"http://127.0.0.1:{trickling_port}/robots.txt", timeout=TIMEOUT)
    start = time.monotonic()
    rp.read()
    assert time.monotonic() - start < BOUND
    assert rp.disallow_all
    assert isinstance(rp.error, TimeoutError)
    assert not rp.can_fetch("ExampleBot", f"http://127.0.0.1:{trickling_port}/page")
