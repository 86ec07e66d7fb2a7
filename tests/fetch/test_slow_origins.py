"""Slow origins must not decide other origins' verdicts (issue 12, item 4).

Reported: once 16 slow-loris origins held the sync client's 16 workers, a healthy origin was
answered "timeout: unreachable, disallow all" after 31 s without a request ever being sent, and
that verdict was cached. Sources for the expectations:

* RFC 9309 2.3.1.4: only an origin that is *unreachable* is disallowed entirely. An origin
  that was never asked is not unreachable; its own answer (here a 200 with rules, 2.3.1.1)
  decides.
* Issue 12 item 4: "Time spent waiting for a worker is not the origin's fault: no origin may be
  judged by another's stall."
* Issue 4 (the fetch design): the total timeout bounds a fetch whatever the server does, and
  many callers asking one origin cause exactly one request.

The slow-loris origins are one selector thread serving many loopback ports: each answers a
status line and then one header byte every 0.2 s, for at most ``STALL_FOR`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import selectors
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from robots_servers import Handler, Response, Server

from robotrules.fetch import AsyncRobotsClient, FetchedRobots, RobotsClient
from robotrules.fetch._common import Budget
from robotrules.stores import MemoryStore

TIMEOUT = 3.0  # the clients' total timeout in these tests
SLOW_BUT_FINE = 1.5  # a healthy origin that needs half its timeout to answer
STALL_FOR = 40.0  # how long a slow-loris origin keeps trickling: far past TIMEOUT
BODY = b"User-agent: *\nDisallow: /private\n"


@dataclass
class _Conn:
    port: int
    sock: socket.socket
    got_request: bool = False
    next_byte: float = 0.0


@dataclass
class SlowLoris:
    """Many slow-loris origins on 127.0.0.1, served by one thread (bounded: ``STALL_FOR``)."""

    origins: list[str] = field(default_factory=list)
    requests: dict[int, int] = field(default_factory=dict)  # port -> requests seen
    open_conns: int = 0  # connections not yet closed by the client
    closed: int = 0  # connections the client closed (a stall cut off at its total timeout)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def requested(self) -> int:
        with self._lock:
            return sum(self.requests.values())

    def still_open(self) -> int:
        with self._lock:
            return self.open_conns

    def cut_off(self) -> int:
        with self._lock:
            return self.closed

    def wait_for(self, test: Callable[[], bool], limit: float) -> bool:
        end = time.monotonic() + limit
        while time.monotonic() < end:
            if test():
                return True
            time.sleep(0.02)
        return test()


@pytest.fixture
def slow_loris() -> Iterator[Callable[[int], SlowLoris]]:
    stop = threading.Event()
    threads: list[threading.Thread] = []

    def start(n: int) -> SlowLoris:
        farm = SlowLoris()
        sel = selectors.DefaultSelector()
        listeners = []
        for _ in range(n):
            lsock = socket.socket()
            lsock.bind(("127.0.0.1", 0))
            lsock.listen(64)
            lsock.setblocking(False)
            port = lsock.getsockname()[1]
            farm.origins.append(f"http://127.0.0.1:{port}")
            farm.requests[port] = 0
            sel.register(lsock, selectors.EVENT_READ, ("listen", port))
            listeners.append(lsock)
        conns: dict[socket.socket, _Conn] = {}

        def close(conn: _Conn) -> None:
            sel.unregister(conn.sock)
            conn.sock.close()
            del conns[conn.sock]
            with farm._lock:
                farm.open_conns -= 1
                farm.closed += 1

        def run() -> None:
            end = time.monotonic() + STALL_FOR
            while not stop.is_set() and time.monotonic() < end:
                for key, _ in sel.select(timeout=0.05):
                    kind, data = key.data
                    if kind == "listen":
                        with contextlib.suppress(OSError):
                            sock, _ = key.fileobj.accept()  # type: ignore[union-attr]
                            sock.setblocking(False)
                            c = _Conn(data, sock)
                            conns[sock] = c
                            sel.register(sock, selectors.EVENT_READ, ("conn", c))
                            with farm._lock:
                                farm.open_conns += 1
                        continue
                    c = data
                    try:
                        chunk = c.sock.recv(65536)
                    except OSError:
                        chunk = b""
                    if not chunk:  # the client closed (or cut) the connection
                        close(c)
                        continue
                    if not c.got_request:
                        c.got_request = True
                        with farm._lock:
                            farm.requests[c.port] += 1
                        with contextlib.suppress(OSError):
                            c.sock.send(b"HTTP/1.1 200 OK\r\n")
                        c.next_byte = time.monotonic() + 0.2
                now = time.monotonic()
                for c in list(conns.values()):
                    if c.got_request and now >= c.next_byte:
                        try:
                            c.sock.send(b"X")  # one more byte of a header that never ends
                        except OSError:
                            close(c)
                            continue
                        c.next_byte = now + 0.2
            for c in list(conns.values()):
                close(c)
            for lsock in listeners:
                sel.unregister(lsock)
                lsock.close()
            sel.close()

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        threads.append(thread)
        return farm

    yield start
    stop.set()
    for thread in threads:
        thread.join(timeout=5)


def _judged_by_its_own_answer(fr: FetchedRobots) -> None:
    assert fr.outcome == "rules", fr.summary  # RFC 9309 2.3.1.1: a 200's rules decide
    assert fr.error is None
    assert fr.status == 200
    assert not fr.is_allowed("/private/x", user_agent="ExampleBot")


def _cached_its_own_answer(store: MemoryStore, origin: str) -> None:
    entry = store.get(origin)
    assert entry is not None
    assert entry.outcome == "rules"
    assert entry.error is None


def _cut_off_at_the_total(fr: FetchedRobots) -> None:
    assert fr.outcome == "disallow-all"  # RFC 9309 2.3.1.4: unreachable
    assert fr.error == "timeout"


# -- the report, sync client --------------------------------------------------------------


def _healthy_origin(serve: Callable[[Handler], Server], farm: SlowLoris
                    ) -> tuple[Server, list[int]]:
    """An origin that answers in ``SLOW_BUT_FINE`` and notes, as its request arrives, how many
    of the farm's stalls the client had already cut off. A request that waited for a slow
    origin's stall (a pool slot, a worker thread) can only have been sent once a stall was cut
    at its total timeout, so "none cut yet" says it never waited, on a machine of any speed
    (a wall-clock bound on its time would also measure the machine's load)."""
    cut_when_asked: list[int] = []
    answer = Response(200, BODY, {}, SLOW_BUT_FINE)

    def handler(req: Any) -> Response:
        if req.path != "/robots.txt":
            return Response(404)
        cut_when_asked.append(farm.cut_off())
        return answer

    return serve(handler), cut_when_asked


@pytest.mark.parametrize("stalls", [16, 40])
def test_sync_healthy_origin_is_judged_by_its_own_answer_while_slow_origins_stall(
    slow_loris: Callable[[int], SlowLoris], serve: Callable[[Handler], Server], stalls: int
) -> None:
    farm = slow_loris(stalls)
    healthy, cut_when_asked = _healthy_origin(serve, farm)
    store = MemoryStore()
    with RobotsClient(user_agent="ExampleBot/1.0", timeout=TIMEOUT, store=store) as client, \
            ThreadPoolExecutor(stalls) as callers:
        t0 = time.monotonic()
        stalled = [callers.submit(client.rules_for, f"{o}/x") for o in farm.origins]
        # every slow origin has its request: before the fix only 16 ever got one
        assert farm.wait_for(lambda: farm.requested() == stalls, TIMEOUT - 0.5), farm.requests
        fr = client.rules_for(f"{healthy.origin}/private/x")
        _judged_by_its_own_answer(fr)
        assert healthy.hits == 1
        assert cut_when_asked == [0]  # it never waited for a slow origin's stall
        _cached_its_own_answer(store, healthy.origin)  # and no "timeout" was cached for it
        for future in stalled:  # each slow origin got its own request and its own verdict
            _cut_off_at_the_total(future.result(timeout=TIMEOUT + 10))
        assert time.monotonic() - t0 < TIMEOUT + 5  # total + grace + a loaded machine's slack
        # the stalled requests were cut, not left running in the background
        assert farm.wait_for(lambda: farm.still_open() == 0, 5.0), farm.still_open()
    assert sorted(farm.requests.values()) == [1] * stalls


def test_sync_pool_wait_of_an_injected_client_is_not_the_origins_fault(
    slow_loris: Callable[[int], SlowLoris], serve_robots: Callable[..., Server]
) -> None:
    """An injected httpx.Client with a connection limit: the healthy origin waits for a free
    connection (not its fault, so not counted), then its own answer decides."""
    farm = slow_loris(3)
    healthy = serve_robots(BODY, delay=SLOW_BUT_FINE)
    http = httpx.Client(limits=httpx.Limits(max_connections=3))
    with http, RobotsClient(user_agent="ExampleBot/1.0", timeout=TIMEOUT,
                            http_client=http) as client, ThreadPoolExecutor(3) as callers:
        stalled = [callers.submit(client.rules_for, f"{o}/x") for o in farm.origins]
        assert farm.wait_for(lambda: farm.requested() == 3, TIMEOUT - 0.5)
        fr = client.rules_for(f"{healthy.origin}/private/x")
        _judged_by_its_own_answer(fr)
        assert healthy.hits == 1
        for future in stalled:
            _cut_off_at_the_total(future.result(timeout=TIMEOUT + 10))


def test_sync_many_threads_one_origin_one_request_while_slow_origins_stall(
    slow_loris: Callable[[int], SlowLoris], serve_robots: Callable[..., Server]
) -> None:
    farm = slow_loris(20)
    healthy = serve_robots(BODY, delay=0.3)
    with RobotsClient(user_agent="ExampleBot/1.0", timeout=TIMEOUT) as client, \
            ThreadPoolExecutor(84) as callers:
        stalled = [callers.submit(client.rules_for, f"{o}/x") for o in farm.origins]
        barrier = threading.Barrier(64)

        def ask(i: int) -> FetchedRobots:
            barrier.wait()
            return client.rules_for(f"{healthy.origin}/private/{i}")

        answers = list(callers.map(ask, range(64)))
        for fr in answers:
            _judged_by_its_own_answer(fr)
        assert healthy.hits == 1  # Issue 4: many callers, one origin, one request
        for future in stalled:
            _cut_off_at_the_total(future.result(timeout=TIMEOUT + 10))
    assert sorted(farm.requests.values()) == [1] * 20


def test_sync_stalled_origin_is_cut_off_at_its_total_timeout(
    slow_loris: Callable[[int], SlowLoris],
) -> None:
    farm = slow_loris(1)
    with RobotsClient(user_agent="ExampleBot/1.0", timeout=TIMEOUT) as client:
        start = time.monotonic()
        fr = client.rules_for(f"{farm.origins[0]}/x")
        took = time.monotonic() - start
        _cut_off_at_the_total(fr)
        assert TIMEOUT - 0.1 <= took < TIMEOUT + 5, took  # the total, not the 40 s stall
        # cut at the deadline (not merely dropped when the client closes its connections)
        assert farm.wait_for(lambda: farm.still_open() == 0, 5.0)
        assert farm.wait_for(lambda: not _fetch_threads(), 5.0)  # and its worker has ended


def _fetch_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("robotrules-fetch")]


def test_sync_total_timeout_holds_for_a_transport_that_cannot_be_cut() -> None:
    """A transport that reports no connection (here httpx's MockTransport, blocking) cannot
    have its socket shut: the caller still answers at the total, and drops the late answer."""
    release = threading.Event()

    def stall(request: httpx.Request) -> httpx.Response:
        release.wait(30)
        return httpx.Response(200, content=BODY)

    http = httpx.Client(transport=httpx.MockTransport(stall))
    try:
        with http, RobotsClient(user_agent="ExampleBot/1.0", timeout=1.0,
                                http_client=http) as client:
            start = time.monotonic()
            fr = client.rules_for("https://stalls.example/x")
            took = time.monotonic() - start
            _cut_off_at_the_total(fr)
            assert 1.0 - 0.1 <= took < 1.0 + 5, took
    finally:
        release.set()


def test_async_total_timeout_holds_for_a_transport_that_reports_nothing() -> None:
    async def stall(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(30)
        return httpx.Response(200, content=BODY)

    async def main() -> tuple[FetchedRobots, float]:
        http = httpx.AsyncClient(transport=httpx.MockTransport(stall))
        async with http, AsyncRobotsClient(user_agent="ExampleBot/1.0", timeout=1.0,
                                           http_client=http) as client:
            start = time.monotonic()
            fr = await client.rules_for("https://stalls.example/x")
            return fr, time.monotonic() - start

    fr, took = asyncio.run(asyncio.wait_for(main(), 15))
    _cut_off_at_the_total(fr)
    assert 1.0 - 0.1 <= took < 1.0 + 5, took


def test_budget_is_not_spent_while_waiting_for_a_connection() -> None:
    """The arithmetic both clients share (issue 12 item 4: time spent waiting is not the
    origin's fault; issue 4: the timeout is a total, redirects included)."""
    b = Budget(10.0)
    assert b.left(0.0) == 10.0
    b.start_hop(100.0, counting=False)  # a transport that reports progress: wait for it
    assert b.left(150.0) is None  # waiting for a pooled connection: the clock is stopped
    assert b.on_wire(150.0)
    assert b.left(153.0) == 7.0
    assert b.left(154.0) == 6.0  # the answer is in; the clock runs on between requests
    b.start_hop(154.0, counting=False)  # a redirect: its wait for a connection is free too
    assert b.left(170.0) is None
    assert b.on_wire(170.0)
    assert b.left(171.0) == 5.0
    b.start_hop(171.0, counting=True)  # a transport not known to report: timed from the call
    assert b.left(173.0) == 3.0
    assert b.on_wire(174.0)  # ... but a first event refunds the wait before it
    assert not b.on_wire(175.0)  # only a request's first event counts
    assert b.left(175.0) == 4.0


# -- the same class of bug, async client ------------------------------------------------------


@pytest.mark.parametrize("stalls", [16, 110])  # 110: past httpx's default pool of 100
def test_async_healthy_origin_is_judged_by_its_own_answer_while_slow_origins_stall(
    slow_loris: Callable[[int], SlowLoris], serve: Callable[[Handler], Server], stalls: int
) -> None:
    farm = slow_loris(stalls)
    healthy, cut_when_asked = _healthy_origin(serve, farm)
    store = MemoryStore()

    async def main() -> None:
        async with AsyncRobotsClient(user_agent="ExampleBot/1.0", timeout=TIMEOUT,
                                     store=store) as client:
            stalled = [asyncio.create_task(client.rules_for(f"{o}/x")) for o in farm.origins]
            while farm.requested() < min(stalls, 100):
                await asyncio.sleep(0.02)
            fr = await client.rules_for(f"{healthy.origin}/private/x")
            _judged_by_its_own_answer(fr)
            assert cut_when_asked == [0]  # it never waited for a slow origin's stall
            for f in await asyncio.gather(*stalled):
                _cut_off_at_the_total(f)

    asyncio.run(asyncio.wait_for(main(), TIMEOUT + 15))
    assert healthy.hits == 1
    _cached_its_own_answer(store, healthy.origin)
    assert sorted(farm.requests.values()) == [1] * stalls
    assert farm.wait_for(lambda: farm.still_open() == 0, 5.0), farm.still_open()


def test_async_pool_wait_of_an_injected_client_is_not_the_origins_fault(
    slow_loris: Callable[[int], SlowLoris], serve_robots: Callable[..., Server]
) -> None:
    farm = slow_loris(3)
    healthy = serve_robots(BODY, delay=SLOW_BUT_FINE)

    async def main() -> None:
        http = httpx.AsyncClient(limits=httpx.Limits(max_connections=3))
        async with http, AsyncRobotsClient(user_agent="ExampleBot/1.0", timeout=TIMEOUT,
                                           http_client=http) as client:
            stalled = [asyncio.create_task(client.rules_for(f"{o}/x")) for o in farm.origins]
            while farm.requested() < 3:
                await asyncio.sleep(0.02)
            _judged_by_its_own_answer(await client.rules_for(f"{healthy.origin}/private/x"))
            for f in await asyncio.gather(*stalled):
                _cut_off_at_the_total(f)

    asyncio.run(asyncio.wait_for(main(), TIMEOUT * 2 + 15))
    assert healthy.hits == 1


def test_async_stalled_origin_is_cut_off_at_its_total_timeout(
    slow_loris: Callable[[int], SlowLoris],
) -> None:
    farm = slow_loris(1)

    async def main() -> tuple[FetchedRobots, float, bool]:
        async with AsyncRobotsClient(user_agent="ExampleBot/1.0", timeout=TIMEOUT) as client:
            start = time.monotonic()
            fr = await client.rules_for(f"{farm.origins[0]}/x")
            took = time.monotonic() - start
            # closed at the deadline (not merely when the client closes its connections)
            closed = await asyncio.to_thread(farm.wait_for, lambda: farm.still_open() == 0, 5.0)
            return fr, took, closed

    fr, took, closed = asyncio.run(asyncio.wait_for(main(), TIMEOUT + 15))
    _cut_off_at_the_total(fr)
    assert TIMEOUT - 0.1 <= took < TIMEOUT + 5, took
    assert closed


# -- the budget over redirects, and the cut under TLS ------------------------------------------


def test_total_timeout_spans_the_redirect_hops(
    make_client: Callable[..., Any], serve: Callable[..., Server],
    slow_loris: Callable[[int], SlowLoris],
) -> None:
    """Issue 4: the timeout is a total, all redirects included (docs/fetching.md, Limits).
    The first hop takes 1.5 s of a 2 s budget; the stalling second hop gets what is left."""
    farm = slow_loris(1)
    first = serve(lambda r: Response(301, headers={"Location": f"{farm.origins[0]}/robots.txt"},
                                     delay=1.5))
    client = make_client(timeout=2.0)
    start = time.monotonic()
    fr = client.rules_for(f"{first.origin}/x")
    took = time.monotonic() - start
    _cut_off_at_the_total(fr)
    assert 2.0 - 0.1 <= took < 3.0, took  # 2 s in all, not 1.5 s + a fresh 2 s


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A self-signed certificate for 127.0.0.1 (openssl), trusted by the test's client only."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl not found")
    where = tmp_path_factory.mktemp("tls")
    cert, key = str(where / "cert.pem"), str(where / "key.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
         "-keyout", key, "-out", cert],
        check=True, capture_output=True, timeout=60,
    )
    return cert, key


def test_sync_stalled_tls_origin_is_cut_off_at_its_total_timeout(
    tls_files: tuple[str, str],
) -> None:
    """Under TLS the worker blocks in an SSL read: shutting the socket down still ends it."""
    cert, key = tls_files
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_ctx.load_cert_chain(cert, key)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    listener.settimeout(10)
    closed_by_client = threading.Event()

    def serve_one() -> None:
        with contextlib.suppress(OSError), listener.accept()[0] as raw, \
                server_ctx.wrap_socket(raw, server_side=True) as conn:
            conn.settimeout(10)
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\n")
            for _ in range(100):  # 20 s at most
                conn.sendall(b"X")
                time.sleep(0.2)
        closed_by_client.set()  # a send failed (or all 100 went out): the loop ended

    thread = threading.Thread(target=serve_one, daemon=True)
    thread.start()
    origin = f"https://127.0.0.1:{listener.getsockname()[1]}"
    http = httpx.Client(verify=ssl.create_default_context(cafile=cert))
    try:
        with http, RobotsClient(user_agent="ExampleBot/1.0", timeout=1.5,
                                http_client=http) as client:
            start = time.monotonic()
            fr = client.rules_for(f"{origin}/x")
            took = time.monotonic() - start
            _cut_off_at_the_total(fr)
            assert 1.5 - 0.1 <= took < 1.5 + 5, took
            assert closed_by_client.wait(5)  # shut at the deadline, not left trickling
    finally:
        listener.close()
        thread.join(timeout=25)


def _broken(request: httpx.Request) -> httpx.Response:
    raise RuntimeError("a bug in a custom transport")


def test_sync_fault_in_the_client_is_raised_not_turned_into_a_timeout_verdict() -> None:
    """A transport that raises what no network failure raises is a fault of the program, not
    of the origin (issue 12 item 4: an origin is judged by its own answer). The client raises
    it at once, as it did from its old worker pool, instead of a "timeout" after 30 s."""
    http = httpx.Client(transport=httpx.MockTransport(_broken))
    with http, RobotsClient(user_agent="ExampleBot/1.0", http_client=http) as client:
        start = time.monotonic()
        with pytest.raises(RuntimeError, match="a bug in a custom transport"):
            client.rules_for("https://site.example/x")
        assert time.monotonic() - start < 10  # at once, not at the 30 s timeout


async def test_async_fault_in_the_client_is_raised_not_turned_into_a_timeout_verdict() -> None:
    http = httpx.AsyncClient(transport=httpx.MockTransport(_broken))
    async with http, AsyncRobotsClient(user_agent="ExampleBot/1.0", http_client=http) as client:
        with pytest.raises(RuntimeError, match="a bug in a custom transport"):
            await client.rules_for("https://site.example/x")
