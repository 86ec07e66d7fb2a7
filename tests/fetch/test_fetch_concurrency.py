"""Many callers, one request: single-flight per origin in threads and in asyncio tasks.

Source: Issue 4 ("many callers asking for the same origin at once cause exactly one
request"); RFC 9309 2.4 (caching) is what makes the one answer reusable.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from robots_servers import Response, Server

from robotrules.fetch import AsyncRobotsClient, RobotsClient

BODY = b"User-agent: *\nDisallow: /private\n"
N = 64


def test_threads_one_request_per_origin(serve_robots: Callable[..., Server]) -> None:
    srv = serve_robots(BODY, delay=0.3)
    barrier = threading.Barrier(N)
    with RobotsClient() as c:
        def ask(i: int) -> bool:
            barrier.wait()
            return c.is_allowed(f"{srv.origin}/private/{i}")

        t0 = time.monotonic()
        with ThreadPoolExecutor(N) as pool:
            answers = list(pool.map(ask, range(N)))
        elapsed = time.monotonic() - t0
    assert answers == [False] * N
    assert srv.hits == 1
    assert elapsed < 5.0, elapsed  # one 0.3 s fetch, not 64 of them (19 s)


def test_threads_many_origins(serve_robots: Callable[..., Server]) -> None:
    """Callers for different origins do not wait for each other's fetches."""
    servers = [serve_robots(BODY, delay=1.0) for _ in range(8)]
    urls = [f"{s.origin}/x/{i}" for s in servers for i in range(8)]
    with RobotsClient() as c, ThreadPoolExecutor(len(urls)) as pool:
        t0 = time.monotonic()
        assert all(pool.map(c.is_allowed, urls))
        elapsed = time.monotonic() - t0
    assert [s.hits for s in servers] == [1] * 8
    assert elapsed < 5.0, elapsed  # 8 origins fetched in parallel, not 8 x 1 s in series


def test_tasks_one_request_per_origin(serve_robots: Callable[..., Server]) -> None:
    srv = serve_robots(BODY, delay=0.3)
    other = serve_robots(b"User-agent: *\nDisallow: /\n", delay=0.3)

    async def main() -> tuple[list[bool], float]:
        async with AsyncRobotsClient() as c:
            t0 = time.monotonic()
            answers = await asyncio.gather(
                *(c.is_allowed(f"{srv.origin}/p/{i}") for i in range(200)),
                *(c.is_allowed(f"{other.origin}/p/{i}") for i in range(200)),
            )
            return list(answers), time.monotonic() - t0

    answers, elapsed = asyncio.run(main())
    assert answers == [True] * 200 + [False] * 200
    assert (srv.hits, other.hits) == (1, 1)
    assert elapsed < 5.0, elapsed  # two 0.3 s fetches side by side, with slack for load


def test_waiters_share_a_failure(serve: Callable[..., Server]) -> None:
    """A 503 is an answer too (disallow all, back-off): the waiters do not each retry it."""
    srv = serve(lambda r: Response(503, delay=0.2))
    with RobotsClient() as c, ThreadPoolExecutor(16) as pool:
        assert not any(pool.map(lambda i: c.is_allowed(f"{srv.origin}/{i}"), range(16)))
    assert srv.hits == 1
