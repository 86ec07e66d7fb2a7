"""Fixtures for the fetch tests: servers per origin, an injected clock, both client twins."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

try:
    import robotrules  # noqa: F401
except ImportError:  # running from a checkout without `pip install -e .`
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from robots_servers import (
    AsyncAdapter,
    FakeClock,
    Handler,
    Response,
    Server,
    serve,  # noqa: F401 - a fixture: importing registers it
)

from robotrules.fetch import AsyncRobotsClient, RobotsClient


@pytest.fixture
def serve_robots(serve: Callable[[Handler], Server]) -> Callable[..., Server]:  # noqa: F811
    """``serve_robots(body, status=200, headers={})``: an origin serving one /robots.txt."""

    def start(body: bytes = b"", status: int = 200, headers: dict[str, str] | None = None,
              delay: float = 0.0) -> Server:
        resp = Response(status, body, headers or {}, delay)
        return serve(lambda req: resp if req.path == "/robots.txt" else Response(404))

    return start


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=["sync", "async"])
def make_client(request: pytest.FixtureRequest, clock: FakeClock) -> Iterator[Callable[..., Any]]:
    """``make_client(**kwargs)``: a RobotsClient, or an AsyncRobotsClient behind a sync facade.

    The injected fake clock is the default; every client is closed after the test.
    """
    made: list[Any] = []

    def make(**kwargs: Any) -> Any:
        kwargs.setdefault("clock", clock)
        kwargs.setdefault("timeout", 5.0)
        if request.param == "sync":
            client: Any = RobotsClient(**kwargs)
        else:
            client = AsyncAdapter(AsyncRobotsClient(**kwargs))
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()
