"""Fixtures for the store tests: a real redis-server on a free port, servers, clients."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "fetch"))  # robots_servers: the shared test servers
try:
    import robotrules  # noqa: F401
except ImportError:  # running from a checkout without `pip install -e .`
    sys.path.insert(0, str(HERE.parents[1] / "src"))

# after the sys.path set-up above:
from robots_servers import (  # noqa: E402
    AsyncAdapter,
    FakeClock,
    free_port,
    serve,  # noqa: F401 - a fixture: importing registers it
)

from robotrules.fetch import AsyncRobotsClient, RobotsClient  # noqa: E402

REDIS = shutil.which("redis-server")


class RedisServer:
    def __init__(self, tmp: Path) -> None:
        assert REDIS is not None
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc = subprocess.Popen(
            [REDIS, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(tmp), "--protected-mode", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        import redis

        client = redis.Redis.from_url(self.url, socket_timeout=1)
        for _ in range(100):  # bounded: at most ~5 s for the server to listen
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if self.proc.poll() is not None:
                    raise RuntimeError("redis-server exited at start") from None
                time.sleep(0.05)
        else:
            raise RuntimeError("redis-server did not start")
        client.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A real redis-server, started for this test on a free port of 127.0.0.1."""
    if REDIS is None:
        pytest.skip("redis-server binary not found (CI installs it: apt-get install redis-server)")
    server = RedisServer(tmp_path)
    yield server
    server.stop()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=["sync", "async"])
def make_client(request: pytest.FixtureRequest, clock: FakeClock) -> Iterator[Callable[..., Any]]:
    """``make_client(**kwargs)``: either twin (the async one behind a sync facade)."""
    made: list[Any] = []

    def make(**kwargs: Any) -> Any:
        kwargs.setdefault("clock", clock)
        kwargs.setdefault("timeout", 5.0)
        client: Any = (RobotsClient(**kwargs) if request.param == "sync"
                       else AsyncAdapter(AsyncRobotsClient(**kwargs)))
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()
