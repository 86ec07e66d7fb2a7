"""The client address the guard judges a claim by, end to end: a dual-stack listener (uvicorn
and gunicorn on ``::``, an IPv4 client), nginx as the trusted proxy, and the core's strict
treatment of a client it cannot determine.

Sources: issue 35 (an IPv4-mapped peer ``::ffff:66.249.66.1`` made the real Googlebot
"spoofed"; a client's own ``Forwarded`` beat the proxy's ``X-Forwarded-For``; ``X-Forwarded-For:
,``, 4 KB of padding and ``for=unknown`` made "spoofed" into "unverifiable"); RFC 4291 2.5.5.2
(IPv4-mapped addresses); nginx's ``$proxy_add_x_forwarded_for`` ("the client request header
field X-Forwarded-For with the $remote_addr variable appended to it"). The Googlebot range is
Google's published ``66.249.64.0/19``; ``198.51.100.0/24`` is TEST-NET-2 (RFC 5737).
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from robotrules.guard import Guard, GuardMiddleware, Policy

from .conftest import EXAMPLES
from .servers import google_ranges, gunicorn_on, nginx_in_front, raw_request, uvicorn_on

GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
ROBOTS = (EXAMPLES / "guard_robots.txt").read_bytes()


def page_app() -> Any:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"page"})

    return app


def ask(port: int, headers: dict[str, str], host: str = "127.0.0.1",
        target: bytes = b"/blog") -> int:
    pairs = [(b"Host", b"site.example"), (b"User-Agent", GOOGLEBOT.encode()),
             *((k.encode(), v.encode()) for k, v in headers.items())]
    return raw_request(port, target, pairs, host=host)[0]


def test_dual_stack_uvicorn_ipv4_client_behind_trusted_proxy() -> None:
    # uvicorn on "::" sees the IPv4 client 127.0.0.1 as ::ffff:127.0.0.1: still the trusted
    # proxy, so its X-Forwarded-For is read and the real Googlebot address is verified
    seen: list[Any] = []
    app = GuardMiddleware(page_app(), robots=ROBOTS, mode="enforce", ranges=google_ranges(),
                          trusted_proxies=["127.0.0.1"], on_decision=seen.append)
    with uvicorn_on(app, "::") as port:
        assert ask(port, {"X-Forwarded-For": "66.249.66.1"}) == 200
        assert seen[-1].client.ip == "66.249.66.1"
        assert seen[-1].verification.state == "verified"
        # the same claim from an address outside the list is refused
        assert ask(port, {"X-Forwarded-For": "198.51.100.7"}) == 403
        assert seen[-1].verification.state == "spoofed"


def test_dual_stack_peer_is_unmapped_without_a_proxy() -> None:
    # no proxy: the peer itself, ::ffff:127.0.0.1 read as 127.0.0.1 (internal, not evidence)
    seen: list[Any] = []
    app = GuardMiddleware(page_app(), robots=ROBOTS, mode="enforce", ranges=google_ranges(),
                          on_decision=seen.append)
    with uvicorn_on(app, "::") as port:
        assert ask(port, {}) == 200
    assert seen[-1].client.ip == "127.0.0.1"
    assert seen[-1].verification.state == "unverifiable"


GUNICORN_APP = textwrap.dedent("""
    from robotrules.guard import WSGIGuardMiddleware
    from tests.guard.servers import google_ranges

    def page(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"page"]

    app = WSGIGuardMiddleware(page, robots="User-agent: *\\nDisallow: /admin/\\n",
                              mode="enforce", ranges=google_ranges(),
                              trusted_proxies=["127.0.0.1"])
""")


def test_dual_stack_gunicorn(tmp_path: Path) -> None:
    (tmp_path / "dsite.py").write_text(GUNICORN_APP)
    with gunicorn_on(tmp_path, "dsite:app", {}, host="::") as port:
        assert ask(port, {"X-Forwarded-For": "66.249.66.1"}) == 200
        assert ask(port, {"X-Forwarded-For": "198.51.100.7"}) == 403
        # the proxy's header is missing: who the client is cannot be told
        assert ask(port, {}) == 403


def test_nginx_trusted_proxy(tmp_path: Path) -> None:
    # The test client plays a trusted CDN in front of nginx: it connects from 127.0.0.1 (a
    # trusted proxy) and says who its client was; nginx appends 127.0.0.1. What only a client
    # writes (Forwarded, or anything left of the first untrusted hop) is never believed.
    seen: list[Any] = []
    app = GuardMiddleware(page_app(), robots=ROBOTS, mode="enforce", ranges=google_ranges(),
                          trusted_proxies=["127.0.0.1"], on_decision=seen.append)
    with uvicorn_on(app) as upstream, nginx_in_front(upstream, tmp_path / "nginx") as port:
        assert ask(port, {"X-Forwarded-For": "66.249.66.1"}) == 200
        assert seen[-1].client.ip == "66.249.66.1"
        spoof = {"X-Forwarded-For": "198.51.100.7", "Forwarded": "for=66.249.66.1"}
        assert ask(port, spoof) == 403
        assert seen[-1].client.ip == "198.51.100.7"
        assert ask(port, {"X-Forwarded-For": "66.249.66.1, 198.51.100.7"}) == 403
        for bad in (",", "unknown", "192.0.2.1, " * 500 + "66.249.66.1", "66.249.66.1, _hidden"):
            # nginx appends ", 127.0.0.1": the hop before it is not an address, or the
            # header is over 4 KiB
            assert ask(port, {"X-Forwarded-For": bad}) == 403, bad
            assert seen[-1].verification.state == "spoofed"
            assert seen[-1].verification.method == "client-address"


@pytest.mark.parametrize("headers", [
    {}, {"X-Forwarded-For": ""}, {"X-Forwarded-For": ","}, {"X-Forwarded-For": "unknown"},
    {"X-Forwarded-For": "1.2.3.4" + " " * 5000}, {"X-Forwarded-For": "66.249.66.1:junk"},
])
def test_undetermined_client_is_strict(headers: dict[str, str]) -> None:
    # issue 35: "when the client cannot be determined treat a claimed crawler by the
    # strictest state, never the most lenient": spoofed (blocked by the default policy)
    g = Guard(ROBOTS, mode="enforce", ranges=google_ranges(), trusted_proxies=["10.0.0.0/8"])
    d = g.decide("GET", "/blog", {"User-Agent": GOOGLEBOT, **headers}, "10.0.0.1")
    assert d.client.determined is False
    assert (d.verification.state, d.verification.method) == ("spoofed", "client-address")
    assert d.status == 403
    # a browser is still not acted on, and an unknown bot has no claim to check
    b = g.decide("GET", "/blog", {"User-Agent": "Mozilla/5.0 Firefox/130.0", **headers},
                 "10.0.0.1")
    assert b.status == 200
    foo = g.decide("GET", "/blog", {"User-Agent": "FooBot/1.0", **headers}, "10.0.0.1")
    assert foo.verification.state == "unsigned"
    # a crawler that publishes no address method is judged as ever
    claude = g.decide("GET", "/blog", {"User-Agent": "ClaudeBot/1.0", **headers}, "10.0.0.1")
    assert claude.verification.state == "unverifiable"


def test_forwarded_header_setting() -> None:
    g = Guard(ROBOTS, ranges=google_ranges(), trusted_proxies=["10.0.0.0/8"],
              forwarded_header="forwarded")
    d = g.decide("GET", "/", {"User-Agent": GOOGLEBOT, "Forwarded": 'for="66.249.66.1:443"',
                              "X-Forwarded-For": "198.51.100.7"}, "10.0.0.1")
    assert (d.client.ip, d.verification.state) == ("66.249.66.1", "verified")
    r = Guard(ROBOTS, ranges=google_ranges(), trusted_proxies=["10.0.0.0/8"],
              forwarded_header="x-real-ip")
    d = r.decide("GET", "/", {"User-Agent": GOOGLEBOT, "X-Real-IP": "66.249.66.1",
                              "X-Forwarded-For": "198.51.100.7"}, "10.0.0.1")
    assert d.client.ip == "66.249.66.1"
    with pytest.raises(ValueError, match="forwarded_header"):
        Guard(ROBOTS, ranges=google_ranges(), forwarded_header="true-client-ip")  # type: ignore[arg-type]


def test_mapped_addresses_in_the_core() -> None:
    g = Guard(ROBOTS, mode="enforce", ranges=google_ranges(), policy=Policy())
    d = g.decide("GET", "/blog", {"User-Agent": GOOGLEBOT}, "::ffff:66.249.66.1")
    assert (d.client.ip, d.verification.state, d.status) == ("66.249.66.1", "verified", 200)
    # a mapped internal address is internal (a proxy the site did not declare)
    i = g.decide("GET", "/blog", {"User-Agent": GOOGLEBOT}, "::ffff:10.1.2.3")
    assert i.verification.state == "unverifiable"
