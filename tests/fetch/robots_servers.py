"""Real HTTP servers on 127.0.0.1 for the fetch tests: one per origin, raw sockets.

Raw sockets (not http.server) so that a test can do what real servers do wrong: stall, reset
mid-body, close before Content-Length, break chunking, send 60 MB. Each server records the
requests it saw and how many body bytes it managed to send.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

__all__ = [
    "AsyncAdapter", "FakeClock", "Request", "Response", "Server", "free_port", "refused_port",
]


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]


@dataclass
class Response:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering (a slow server)


Reply = Response | Callable[[socket.socket, Request], None]
Handler = Callable[[Request], Reply]


def write_response(conn: socket.socket, resp: Response) -> int:
    head = [f"HTTP/1.1 {resp.status} X"]
    names = {k.lower() for k in resp.headers}
    if "content-length" not in names and "transfer-encoding" not in names:
        head.append(f"Content-Length: {len(resp.body)}")
    head += [f"{k}: {v}" for k, v in resp.headers.items()]
    head.append("Connection: close")
    conn.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + resp.body)
    return len(resp.body)


def reset(conn: socket.socket) -> None:
    """Close with RST instead of FIN (SO_LINGER 0): a connection reset for the peer."""
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()


class Server:
    """A threaded server on 127.0.0.1:<free port>; ``handler(request) -> Response | callable``."""

    def __init__(self, handler: Handler,
                 raw: Callable[[socket.socket], None] | None = None) -> None:
        self.handler = handler
        self.raw = raw  # called with the connection before any parsing (non-HTTP talk)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(256)
        self.port: int = self.sock.getsockname()[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        self.requests: list[Request] = []
        self.bytes_sent = 0
        self._lock = threading.Lock()
        self._closed = False
        self._threads: list[threading.Thread] = []
        self._accept = threading.Thread(target=self._serve, daemon=True)
        self._accept.start()

    @property
    def hits(self) -> int:
        return len(self.requests)

    def hits_for(self, path: str) -> int:
        return sum(1 for r in self.requests if r.path == path)

    def add_sent(self, n: int) -> None:
        with self._lock:
            self.bytes_sent += n

    def _serve(self) -> None:
        while not self._closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            t = threading.Thread(target=self._handle, args=(conn,), daemon=True)
            t.start()
            self._threads.append(t)

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(10)
        try:
            if self.raw is not None:
                self.raw(conn)
                return
            data = b""
            while b"\r\n\r\n" not in data and len(data) < 65536:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                data += chunk
            lines = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            headers = {}
            for line in lines[1:]:
                k, _, v = line.partition(":")
                headers[k.strip().lower()] = v.strip()
            req = Request(method, path, headers)
            with self._lock:
                self.requests.append(req)
            reply = self.handler(req)
            if isinstance(reply, Response):
                if reply.delay:
                    time.sleep(reply.delay)
                self.add_sent(write_response(conn, reply))
            else:
                reply(conn, req)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                conn.close()

    def close(self) -> None:
        self._closed = True
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept()
        with contextlib.suppress(OSError):
            self.sock.close()
        for t in self._threads:
            t.join(timeout=5)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def refused_port() -> int:
    """A port on 127.0.0.1 where nothing listens (connection refused)."""
    return free_port()


class FakeClock:
    """The injected clock: wall time that only moves when a test says so."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class AsyncAdapter:
    """Runs an AsyncRobotsClient's coroutines on a private loop, so one test body covers both
    twins. Attribute access passes through; coroutine methods are awaited."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.loop = asyncio.new_event_loop()

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.client, name)
        if inspect.iscoroutinefunction(attr):
            return lambda *a, **k: self.loop.run_until_complete(attr(*a, **k))
        return attr

    def close(self) -> None:
        self.loop.run_until_complete(self.client.aclose())
        self.loop.close()


@pytest.fixture
def serve() -> Iterator[Callable[[Handler], Server]]:
    """``serve(handler)`` starts one origin (a new port); all are closed after the test.

    Shared by tests/fetch and tests/stores (imported into both conftests)."""
    servers: list[Server] = []

    def start(handler: Handler) -> Server:
        server = Server(handler)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()
