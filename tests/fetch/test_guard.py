"""The fetch clients' address guard (``robotrules/fetch/_guard.py``), with real servers.

Every server is a real HTTP server on 127.0.0.1. The crawl must start on a *public* origin
for the guard to apply, so DNS is a resolver the test controls (``www.public.test`` is the
public address ``PUBLIC``) and a network backend stands in for the internet: it carries
connections for ``PUBLIC`` to the public server's loopback port and passes loopback
connections through untouched, so when the guard lets a hop through, the loopback server
really receives it (the control test shows it does), and no packet leaves the machine.

Expectations: issue 25 ("a robots.txt on a public host that redirects to 127.0.0.1,
localhost, ::1, 0x7f000001, 2130706433 or an IPv4-mapped address" must not be fetched) and
RFC 9309 2.3.1.4 (a robots.txt that cannot be reached: complete disallow).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import httpcore
import pytest
from robots_servers import Response, Server

from robotrules.fetch import AddressGuard

PUBLIC = "93.184.216.34"  # a public address; only ever reached through the test backends
NAME = "www.public.test"
BODY = b"User-agent: *\nDisallow: /secret-of-the-loopback-server/\n"


class Dns:
    """``name -> list of answers`` given in turn (the last one repeats): a rebinding server
    is a name whose answers change. Counts every question."""

    def __init__(self, answers: dict[str, list[list[str]]]) -> None:
        self.answers = answers
        self.asked: list[str] = []

    def __call__(self, host: str, port: int) -> Iterable[str]:
        self.asked.append(host)
        turns = self.answers.get(host.lower())
        if not turns:
            raise OSError(f"[Errno -2] Name or service not known: {host}")
        return turns[min(self.asked.count(host) - 1, len(turns) - 1)]


class Internet(httpcore.NetworkBackend):
    """``PUBLIC`` is carried to a loopback port; loopback addresses are reached as they are."""

    def __init__(self, routes: dict[str, int]) -> None:
        self.routes = routes
        self.inner = httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None, socket_options: Any = None) -> Any:
        if host in self.routes:
            return self.inner.connect_tcp("127.0.0.1", self.routes[host], timeout=timeout)
        return self.inner.connect_tcp(host, port, timeout=timeout)

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


class AsyncInternet(httpcore.AsyncNetworkBackend):
    def __init__(self, routes: dict[str, int]) -> None:
        self.routes = routes
        self.inner = httpcore.AnyIOBackend()

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None, socket_options: Any = None) -> Any:
        if host in self.routes:
            return await self.inner.connect_tcp("127.0.0.1", self.routes[host],
                                                timeout=timeout)
        return await self.inner.connect_tcp(host, port, timeout=timeout)

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


def _guard(dns: Dns, public: Server, allow_private: bool = False) -> AddressGuard:
    routes = {PUBLIC: public.port}
    return AddressGuard(allow_private=allow_private, resolver=dns, backend=Internet(routes),
                        async_backend=AsyncInternet(routes))


def _redirecting(serve: Callable[..., Server], location: str) -> Server:
    return serve(lambda req: Response(301, b"", {"Location": location}))


def _local(serve: Callable[..., Server]) -> Server:
    return serve(lambda req: Response(200, BODY, {"Content-Type": "text/plain"}))


@pytest.mark.parametrize(("target", "why"), [
    ("127.0.0.1", "is a loopback address"),
    ("localhost", "resolves to 127.0.0.1, which is a loopback address"),
    ("0x7f000001", "0x7f000001 (127.0.0.1) is a loopback address"),
    ("2130706433", "2130706433 (127.0.0.1) is a loopback address"),
    ("[::ffff:127.0.0.1]", "an IPv4-mapped address for 127.0.0.1, a loopback address"),
    ("[::1]", "::1 is a loopback address"),
    ("169.254.169.254", "a link-local address"),  # the cloud metadata endpoint
    ("10.0.0.7", "a private address (RFC 1918)"),
])
def test_a_public_origin_redirecting_inwards_is_unreachable(
    make_client: Callable[..., Any], serve: Callable[..., Server], target: str, why: str,
) -> None:
    local = _local(serve)
    public = _redirecting(serve, f"http://{target}:{local.port}/robots.txt")
    dns = Dns({NAME: [[PUBLIC]], "localhost": [["127.0.0.1", "::1"]]})
    client = make_client(guard=_guard(dns, public))
    got = client.rules_for(f"http://{NAME}:{public.port}/page")
    assert got.outcome == "disallow-all"  # RFC 9309 2.3.1.4: unreachable, complete disallow
    assert got.error is not None
    assert got.error.startswith("refused: ")
    assert why in got.error
    assert "allow_private=True" in got.error  # the reason names the switch
    assert public.hits == 1
    assert local.hits == 0  # the loopback server never saw a request
    assert not client.is_allowed(f"http://{NAME}:{public.port}/page")


def test_the_switch_for_internal_crawlers_follows_the_same_redirect(
    make_client: Callable[..., Any], serve: Callable[..., Server],
) -> None:
    """Control: the same redirect with the guard off reaches the loopback server (so the
    refusals above are the guard's doing), IPv4-mapped spelling included."""
    local = _local(serve)
    public = _redirecting(serve, f"http://[::ffff:127.0.0.1]:{local.port}/robots.txt")
    client = make_client(guard=_guard(Dns({NAME: [[PUBLIC]]}), public, allow_private=True))
    got = client.rules_for(f"http://{NAME}:{public.port}/page")
    assert got.outcome == "rules"
    assert local.hits == 1
    assert not client.is_allowed(f"http://{NAME}:{public.port}/secret-of-the-loopback-server/")


def test_a_crawl_that_starts_inside_is_not_refused(
    make_client: Callable[..., Any], serve: Callable[..., Server],
) -> None:
    """The guard applies when the starting origin is public: a crawler pointed at a loopback
    host (an internal site) fetches it, and follows its redirects inside, by default."""
    local = _local(serve)
    inner = _redirecting(serve, f"http://localhost:{local.port}/robots.txt")
    dns = Dns({"localhost": [["127.0.0.1"]]})
    client = make_client(guard=AddressGuard(resolver=dns))
    got = client.rules_for(f"http://127.0.0.1:{inner.port}/")
    assert got.outcome == "rules"
    assert local.hits == 1


def test_a_public_name_that_also_resolves_inside_is_refused_at_the_start(
    make_client: Callable[..., Any], serve: Callable[..., Server],
) -> None:
    public = _local(serve)
    dns = Dns({NAME: [[PUBLIC, "127.0.0.1"]]})
    client = make_client(guard=_guard(dns, public))
    got = client.rules_for(f"http://{NAME}:{public.port}/")
    assert got.outcome == "disallow-all"
    assert got.error is not None
    assert f"{NAME} resolves to 127.0.0.1, which is a loopback address" in got.error
    assert public.hits == 0


def test_each_hop_is_resolved_once_and_a_rebinding_answer_is_refused(
    make_client: Callable[..., Any], serve: Callable[..., Server],
) -> None:
    """A name that answers a public address first and loopback next (DNS rebinding): the
    redirect back to the same name is checked when it connects, with the second answer."""
    public = serve(lambda req: Response(301, b"", {"Location": "/robots2.txt"})
                   if req.path == "/robots.txt" else Response(200, BODY))
    dns = Dns({NAME: [[PUBLIC], ["127.0.0.1"]]})
    client = make_client(guard=_guard(dns, public))
    got = client.rules_for(f"http://{NAME}:{public.port}/")
    assert got.outcome == "disallow-all"
    assert got.error is not None
    assert "resolves to 127.0.0.1" in got.error
    assert dns.asked == [NAME, NAME]  # one question per hop, none between check and connect
    assert public.hits == 1


def test_a_public_crawl_fetches_as_before(
    make_client: Callable[..., Any], serve: Callable[..., Server],
) -> None:
    public = serve(lambda req: Response(200, BODY) if req.path == "/robots.txt"
                   else Response(404))
    dns = Dns({NAME: [[PUBLIC]]})
    client = make_client(guard=_guard(dns, public))
    got = client.rules_for(f"http://{NAME}:{public.port}/")
    assert got.outcome == "rules"
    assert public.requests[0].headers.get("host") == f"{NAME}:{public.port}"
