"""Both client twins against real HTTP servers on 127.0.0.1 (one port per origin).

Each test names its source: RFC 9309 section, Google's robots.txt spec ("Google:"), or the
issue's requirement ("Issue 4:"). The clock is injected; real time only passes where a real
socket has to time out.
"""

from __future__ import annotations

import gzip
import socket
import time
import zlib
from collections.abc import Callable
from typing import Any

import brotli
import httpx
import pytest
from robots_servers import FakeClock, Request, Response, Server, refused_port, reset

import robotrules
from robotrules.errors import InvalidURL
from robotrules.fetch import DEFAULT_USER_AGENT, FetchedRobots

RULES = b"User-agent: *\nDisallow: /private\nCrawl-delay: 2\nSitemap: /sitemap.xml\n" \
        b"\nUser-agent: otherbot\nDisallow: /\n"

Make = Callable[..., Any]
Serve = Callable[[Callable[[Request], Any]], Server]


# --- 2xx and the basic API --------------------------------------------------------------------


def test_200_rules_and_api(make_client: Make, serve_robots: Callable[..., Server]) -> None:
    """RFC 9309 2.3.1.1: a successful download is parsed and its rules followed."""
    srv = serve_robots(RULES, headers={"Content-Type": "text/plain"})
    c = make_client()
    assert c.is_allowed(f"{srv.origin}/public") is True
    assert c.is_allowed(f"{srv.origin}/private/x") is False
    assert c.is_allowed(f"{srv.origin}/public", user_agent="otherbot") is False
    v = c.explain(f"{srv.origin}/private/x", user_agent="mybot")
    assert (v.allowed, v.line, v.reason) == (False, 2, "rule")
    assert c.crawl_delay(srv.origin + "/", user_agent="mybot") == 2.0
    assert c.sitemaps(srv.origin) == [f"{srv.origin}/sitemap.xml"]  # relative to the file
    fr: FetchedRobots = c.rules_for(srv.origin + "/anything")
    assert (fr.outcome, fr.status, fr.size, fr.truncated) == ("rules", 200, len(RULES), False)
    assert fr.robots_url == fr.final_url == srv.origin + "/robots.txt"
    assert fr.summary == f"200: {len(RULES)} bytes, rules"
    assert fr.headers["content-type"] == "text/plain"
    assert fr.from_cache is True
    assert fr.error is None
    assert fr.redirects == ()
    assert fr.expires_at - fr.fetched_at == 86_400  # RFC 9309 2.4: 24 h without headers
    assert srv.hits == 1  # Issue 4: fetched once per origin


def test_user_agent_header(make_client: Make, serve_robots: Callable[..., Server]) -> None:
    """RFC 9309 2.2.1: the product token SHOULD be part of the User-Agent header sent."""
    srv = serve_robots(b"User-agent: examplebot\nDisallow: /\n")
    c = make_client(user_agent="ExampleBot/1.2 (+https://example.com/bot)")
    assert c.is_allowed(srv.origin + "/x") is False  # product token used when none given
    assert srv.requests[0].headers["user-agent"] == "ExampleBot/1.2 (+https://example.com/bot)"
    assert srv.requests[0].headers["accept-encoding"] == "gzip, deflate, br"
    assert srv.requests[0].method == "GET"  # Google: a non-conditional GET
    assert "if-modified-since" not in srv.requests[0].headers
    d = make_client()
    srv2 = serve_robots(b"")
    d.is_allowed(srv2.origin + "/")
    assert srv2.requests[0].headers["user-agent"] == DEFAULT_USER_AGENT
    assert DEFAULT_USER_AGENT.startswith("robotrules/")


def test_same_origin_spellings_share_one_fetch(make_client: Make,
                                               serve_robots: Callable[..., Server]) -> None:
    """RFC 9309 2.3: one robots.txt per scheme, host and port; host case-insensitive."""
    srv = serve_robots(RULES)
    c = make_client()
    for url in (f"http://127.0.0.1:{srv.port}/a", f"HTTP://127.0.0.1:{srv.port}/b?q",
                f"http://u:p@127.0.0.1:{srv.port}/c#f"):
        assert c.is_allowed(url) is True
    assert srv.hits == 1


def test_origins_are_separate(make_client: Make, serve_robots: Callable[..., Server]) -> None:
    """Google: directives apply only to the host, protocol and port where the file is hosted."""
    a = serve_robots(b"User-agent: *\nDisallow: /\n")
    b = serve_robots(b"User-agent: *\nAllow: /\n")
    c = make_client()
    assert c.is_allowed(a.origin + "/x") is False
    assert c.is_allowed(b.origin + "/x") is True
    assert (a.hits, b.hits) == (1, 1)


@pytest.mark.parametrize("url", ["ftp://127.0.0.1/x", "127.0.0.1/x", "http:///x", "file:///x"])
def test_invalid_url_raises(make_client: Make, url: str) -> None:
    """Issue 4: not http(s) or no host is a clear error, not a guess."""
    with pytest.raises(InvalidURL):
        make_client().is_allowed(url)


def test_html_and_junk_parsed_leniently(make_client: Make, serve: Serve) -> None:
    """RFC 9309 2.3.1.5 / Google: an HTML page served as robots.txt: valid lines only, no error."""
    html = (b"<!doctype html><html><body>\n<p>Not found</p>\nDisallow: /x\n\x00\xff\xfe garbage"
            b"\n</body></html>")
    srv = serve(lambda r: Response(200, html, {"Content-Type": "text/html"}))
    c = make_client()
    fr = c.rules_for(srv.origin)
    assert fr.outcome == "rules"
    assert c.is_allowed(srv.origin + "/x") is True  # the Disallow is outside any group


# --- status codes: RFC 9309 2.3.1, Google ---------------------------------------------------

STATUS_CASES = [
    # status, auth_failure, allowed, outcome, reason, summary
    (204, "allow", True, "rules", "no-group", "204: 0 bytes, rules"),
    (400, "allow", True, "allow-all", "unavailable", "400: unavailable, allow all"),
    (401, "allow", True, "allow-all", "unavailable", "401: unavailable, allow all"),
    (403, "allow", True, "allow-all", "unavailable", "403: unavailable, allow all"),
    (404, "allow", True, "allow-all", "unavailable", "404: unavailable, allow all"),
    (451, "allow", True, "allow-all", "unavailable", "451: unavailable, allow all"),
    (401, "disallow", False, "disallow-all", "unavailable",
     "401: unavailable, disallow all (auth_failure='disallow')"),
    (403, "disallow", False, "disallow-all", "unavailable",
     "403: unavailable, disallow all (auth_failure='disallow')"),
    (429, "allow", False, "disallow-all", "unreachable", "429: unreachable, disallow all"),
    (500, "allow", False, "disallow-all", "unreachable", "500: unreachable, disallow all"),
    (503, "allow", False, "disallow-all", "unreachable", "503: unreachable, disallow all"),
    (599, "allow", False, "disallow-all", "unreachable", "599: unreachable, disallow all"),
]


@pytest.mark.parametrize(("status", "auth", "allowed", "outcome", "reason", "summary"),
                         STATUS_CASES)
def test_status(make_client: Make, serve_robots: Callable[..., Server], status: int, auth: str,
                allowed: bool, outcome: str, reason: str, summary: str) -> None:
    """RFC 9309 2.3.1.3 (4xx: allow), 2.3.1.4 (5xx: disallow), Google (429 like 5xx; 401/403
    like 404); MK1996 3.1 for the opt-in 401/403 = disallow switch."""
    srv = serve_robots(b"User-agent: *\nDisallow: /\n", status=status)
    c = make_client(auth_failure=auth)
    v = c.explain(srv.origin + "/page")
    assert (v.allowed, v.reason) == (allowed, reason)
    fr = c.rules_for(srv.origin)
    assert (fr.outcome, fr.status, fr.summary) == (outcome, status, summary)
    if outcome != "rules":
        assert (v.line, v.rule, v.detail) == (None, None, summary)
        assert fr.size == 0
        assert fr.rules.groups == ()
    assert srv.hits == 1


@pytest.mark.parametrize("status", [404, 503])
@pytest.mark.parametrize(("page", "path"), [
    ("/%7euser", "/~user"),    # RFC 9309 2.2.2: %7E is unreserved, decoded before comparison
    ("/a b?q", "/a%20b?q"),    # RFC 9309 2.2.2: octets outside the URI syntax percent-encoded
])
def test_outcome_verdict_path_is_the_rules_path(make_client: Make,
                                                serve_robots: Callable[..., Server],
                                                status: int, page: str, path: str) -> None:
    """Issue 21: a verdict from an HTTP outcome (no rules) names the path exactly as a verdict
    from rules does: one URL -> path, the dialect's (RFC 9309 2.2.2 for rfc9309)."""
    srv = serve_robots(b"", status=status)
    v = make_client().explain(srv.origin + page)
    assert v.line is None
    assert v.path == path
    assert robotrules.parse(b"User-agent: *\nDisallow: /x\n").explain(
        srv.origin + page, user_agent="*").path == path


# --- redirects: RFC 9309 2.3.1.2 ----------------------------------------------------------


def _hop_server(serve: Serve, n: int, final: Response, *, status: int = 301) -> Server:
    """/robots.txt -> /r1 -> ... -> /r{n} (relative Location), then ``final``."""
    def handler(req: Request) -> Response:
        i = 0 if req.path == "/robots.txt" else int(req.path[2:])
        if i < n:
            return Response(status, headers={"Location": f"/r{i + 1}"})
        return final
    return serve(handler)


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_five_redirects_followed(make_client: Make, serve: Serve, status: int) -> None:
    """RFC 9309 2.3.1.2: crawlers SHOULD follow at least five consecutive redirects."""
    srv = _hop_server(serve, 5, Response(200, b"User-agent: *\nDisallow: /x\n"), status=status)
    c = make_client()
    assert c.is_allowed(srv.origin + "/x") is False
    fr = c.rules_for(srv.origin)
    assert len(fr.redirects) == 5
    assert fr.redirects[0] == (srv.origin + "/robots.txt", status)
    assert fr.final_url == srv.origin + "/r5"
    assert srv.hits == 6


def test_six_redirects_unavailable(make_client: Make, serve: Serve) -> None:
    """RFC 9309 2.3.1.2: more than 5 MAY be unavailable; Google: "treat it as a 404"."""
    srv = _hop_server(serve, 6, Response(200, b"User-agent: *\nDisallow: /\n"))
    c = make_client()
    v = c.explain(srv.origin + "/x")
    assert (v.allowed, v.reason) == (True, "unavailable")
    fr = c.rules_for(srv.origin)
    assert fr.summary == "301 (more than 5 redirects): unavailable, allow all"
    assert srv.hits == 6  # the sixth redirect is not followed


def test_max_redirects_knob(make_client: Make, serve: Serve) -> None:
    srv = _hop_server(serve, 7, Response(200, b"User-agent: *\nDisallow: /\n"))
    assert make_client(max_redirects=7).is_allowed(srv.origin + "/x") is False


def test_redirect_loop(make_client: Make, serve: Serve) -> None:
    """Google: redirects are followed "until ... a loop is recognized"; then unavailable."""
    srv = serve(lambda r: Response(302, headers={"Location": "/a" if r.path != "/a" else
                                                 "/robots.txt"}))
    c = make_client()
    assert c.is_allowed(srv.origin + "/x") is True
    assert c.rules_for(srv.origin).error == "redirect loop"
    assert srv.hits == 2


def test_cross_origin_redirect(make_client: Make, serve: Serve,
                               serve_robots: Callable[..., Server]) -> None:
    """RFC 9309 2.3.1.2: redirects across authorities are followed, and the file is applied
    "in the context of the initial authority"; the target origin has its own robots.txt."""
    target = serve_robots(b"User-agent: *\nDisallow: /private\n")
    first = serve(lambda r: Response(301, headers={"Location": target.origin + "/robots.txt"}))
    c = make_client()
    assert c.is_allowed(first.origin + "/private") is False
    assert c.rules_for(first.origin).final_url == target.origin + "/robots.txt"
    assert target.hits == 1
    # the target origin is not filled in from the first origin's fetch
    assert c.rules_for(target.origin).from_cache is False
    assert target.hits == 2


def test_redirect_to_non_http(make_client: Make, serve: Serve) -> None:
    srv = serve(lambda r: Response(302, headers={"Location": "ftp://127.0.0.1/robots.txt"}))
    assert make_client().is_allowed(srv.origin + "/x") is True


def test_redirect_chain_ends_in_5xx(make_client: Make, serve: Serve) -> None:
    """RFC 9309 2.3.1.2 + 2.3.1.4: the status at the end of the chain decides."""
    srv = _hop_server(serve, 2, Response(503))
    c = make_client()
    assert c.is_allowed(srv.origin + "/x") is False
    assert c.rules_for(srv.origin).status == 503


# --- network failures: unreachable, RFC 9309 2.3.1.4, Google -------------------------------


def test_connection_refused(make_client: Make) -> None:
    """RFC 9309 2.3.1.4: unreachable (network error) -> complete disallow."""
    origin = f"http://127.0.0.1:{refused_port()}"
    c = make_client()
    v = c.explain(origin + "/x")
    assert (v.allowed, v.reason) == (False, "unreachable")
    fr = c.rules_for(origin)
    assert (fr.status, fr.error) == (None, "connection refused")
    assert fr.summary == "connection refused: unreachable, disallow all"


def _raw(status_line: bytes, headers: bytes, body: bytes, then: str) -> Callable[..., None]:
    def reply(conn: socket.socket, req: Request) -> None:
        conn.sendall(status_line + b"\r\n" + headers + b"\r\n" + body)
        if then == "reset":
            time.sleep(0.05)
            reset(conn)
        # "close": the finally of the server closes the socket (FIN)
    return reply


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (_raw(b"HTTP/1.1 200 OK", b"Content-Length: 1000\r\n", b"User-agent: *\n", "close"),
         "incomplete body"),
        (_raw(b"HTTP/1.1 200 OK", b"Content-Length: 1000\r\n", b"User-agent: *\n", "reset"),
         "connection reset"),
        (_raw(b"HTTP/1.1 200 OK", b"Transfer-Encoding: chunked\r\n", b"zz\r\nxx\r\n", "close"),
         "broken chunked encoding"),
        (_raw(b"HTTP/1.1 200 OK", b"Transfer-Encoding: chunked\r\n", b"5\r\nUser-\r\n", "close"),
         "incomplete body"),
        (_raw(b"HTTP/1.1 200 OK", b"Content-Encoding: gzip\r\nContent-Length: 20\r\n",
              b"\x1f\x8b" + b"\0" * 18, "close"), "invalid compressed body"),
        (_raw(b"garbage", b"", b"", "close"), "invalid response"),
        (lambda conn, req: None, "no response"),  # closed without any answer
        (lambda conn, req: reset(conn), "connection reset"),
    ],
    ids=["short-content-length", "reset-mid-body", "bad-chunk-size", "unterminated-chunks",
         "broken-gzip", "not-http", "closed-silently", "reset-before-answer"],
)
def test_broken_transfers(make_client: Make, serve: Serve, reply: Any, error: str) -> None:
    """Google: "timeouts, invalid responses, reset / hung up connections, HTTP chunking errors"
    and incomplete data count as server errors: unreachable, complete disallow (2.3.1.4)."""
    srv = serve(lambda r: reply)
    c = make_client()
    fr = c.rules_for(srv.origin)
    assert fr.outcome == "disallow-all", fr
    assert (fr.error or "").startswith(error), fr.error
    assert c.is_allowed(srv.origin + "/x") is False


def test_tls_failure(make_client: Make) -> None:
    """Google/RFC 9309 2.3.1.4: TLS failures are unreachable (here: https to a server that
    answers the TLS hello in plain HTTP)."""
    def plain(conn: socket.socket) -> None:
        conn.recv(4096)
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")

    srv = Server(lambda r: Response(), raw=plain)
    try:
        c = make_client()
        fr = c.rules_for(f"https://127.0.0.1:{srv.port}/")
        assert (fr.outcome, fr.error) == ("disallow-all", "TLS error")
    finally:
        srv.close()


class _NoDNS(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """Stands in for a resolver failure: the sandbox has no DNS, so only the transport
    (injectable by design) can produce the exception httpx raises for one."""

    def _fail(self, request: httpx.Request) -> httpx.Response:
        import socket as s

        try:
            raise s.gaierror(-2, "Name or service not known")
        except s.gaierror as exc:
            raise httpx.ConnectError("[Errno -2] Name or service not known",
                                     request=request) from exc

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self._fail(request)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return self._fail(request)


def test_dns_failure(make_client: Make, request: pytest.FixtureRequest) -> None:
    """RFC 9309 2.3.1.4: DNS failures are unreachable."""
    is_async = "async" in request.node.callspec.id
    http = httpx.AsyncClient(transport=_NoDNS()) if is_async else httpx.Client(transport=_NoDNS())
    c = make_client(http_client=http)
    fr = c.rules_for("http://no-such-host.invalid/")
    assert (fr.outcome, fr.error) == ("disallow-all", "DNS failure")


def test_stalled_server_times_out(make_client: Make, serve: Serve) -> None:
    """Issue 4: a total timeout; Google: timeouts are unreachable. (Real time: 0.4 s; the
    bound leaves a loaded machine 1.2 s of slack and is still below the 2 s stall.)"""
    def stall(conn: socket.socket, req: Request) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nUser-agent: *\n")
        time.sleep(2.0)
    srv = serve(lambda r: stall)
    c = make_client(timeout=0.4)
    t0 = time.monotonic()
    fr = c.rules_for(srv.origin)
    assert time.monotonic() - t0 < 1.6
    assert (fr.outcome, fr.error) == ("disallow-all", "timeout")


def test_trickling_server_hits_total_timeout(make_client: Make, serve: Serve) -> None:
    """Issue 4: the timeout is total, so a server sending a byte every 50 ms (never idle long
    enough for a read timeout) is still cut off."""
    def trickle(conn: socket.socket, req: Request) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
        for _ in range(60):  # 3 s in all
            conn.sendall(b"#")
            time.sleep(0.05)
    srv = serve(lambda r: trickle)
    c = make_client(timeout=0.5)
    t0 = time.monotonic()
    fr = c.rules_for(srv.origin)
    assert time.monotonic() - t0 < 2.5  # slack for a loaded machine, below the 3 s trickle
    assert (fr.outcome, fr.error) == ("disallow-all", "timeout")


def test_slow_but_in_time(make_client: Make, serve_robots: Callable[..., Server]) -> None:
    """A slow answer within the timeout is a normal answer."""
    srv = serve_robots(b"User-agent: *\nDisallow: /x\n", delay=0.2)
    assert make_client(timeout=3).is_allowed(srv.origin + "/x") is False


# --- size limit and compression: RFC 9309 2.5 ----------------------------------------------

BIG_HEAD = b"User-agent: *\nDisallow: /private\n"


def test_60mb_body_read_only_to_the_limit(make_client: Make, serve: Serve) -> None:
    """RFC 9309 2.5: a parsing limit of at least 500 KiB; Issue 4: the rest is not read."""
    total = 60 * 1024 * 1024
    line = b"# " + b"x" * 61 + b"\n"  # 64-byte lines

    def big(conn: socket.socket, req: Request) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % total + BIG_HEAD)
        block = line * 1024
        sent = len(BIG_HEAD)
        try:
            while sent < total:
                conn.sendall(block)
                sent += len(block)
                srv.add_sent(len(block))
        except OSError:
            pass

    srv = serve(lambda r: big)
    c = make_client()
    t0 = time.monotonic()
    fr = c.rules_for(srv.origin)
    elapsed = time.monotonic() - t0
    assert fr.outcome == "rules"
    assert fr.truncated
    assert fr.size <= 512_000
    assert fr.size > 511_000
    assert fr.size % 64 == len(BIG_HEAD) % 64
    assert c.is_allowed(srv.origin + "/private") is False
    assert elapsed < 3
    time.sleep(0.2)  # let the server notice the closed connection
    assert srv.bytes_sent < total // 4  # socket buffers only, never the 60 MB


def test_limit_is_configurable(make_client: Make, serve_robots: Callable[..., Server]) -> None:
    body = BIG_HEAD + b"User-agent: late\nDisallow: /\n"
    srv = serve_robots(body)
    c = make_client(max_bytes=len(BIG_HEAD) + 5)
    fr = c.rules_for(srv.origin)
    assert fr.truncated
    assert fr.size == len(BIG_HEAD)
    assert c.is_allowed(srv.origin + "/x", user_agent="late") is True  # line never read


def _bomb(coding: str) -> bytes:
    unit = BIG_HEAD + b"# padding\n" * 100_000  # ~1 MB of which the first 34 bytes matter
    if coding == "br":
        return brotli.compress(unit * 64, quality=1)
    co = zlib.compressobj(9, zlib.DEFLATED, 16 + 15 if coding == "gzip" else 15)
    return b"".join(co.compress(unit) for _ in range(64)) + co.flush()


@pytest.fixture(scope="module")
def bombs() -> dict[str, bytes]:
    return {coding: _bomb(coding) for coding in ("gzip", "deflate", "br")}


@pytest.mark.parametrize("coding", ["gzip", "deflate", "br"])
def test_compression_bomb(make_client: Make, serve: Serve, bombs: dict[str, bytes],
                          coding: str) -> None:
    """Issue 4: the cap applies after decompression (no decompression bomb): 64 MB inflated
    from a few hundred KB is read only to 512,000 bytes."""
    data = bombs[coding]
    srv = serve(lambda r: Response(200, data, {"Content-Encoding": coding}))
    c = make_client()
    t0 = time.monotonic()
    fr = c.rules_for(srv.origin)
    assert time.monotonic() - t0 < 2
    assert fr.outcome == "rules"
    assert fr.truncated
    assert 500_000 < fr.size <= 512_000
    assert c.is_allowed(srv.origin + "/private/x") is False


@pytest.mark.parametrize("coding", ["gzip", "deflate", "br"])
def test_compressed_small_body(make_client: Make, serve: Serve, coding: str) -> None:
    """RFC 9110 8.4: content codings we asked for are decoded."""
    data = {"gzip": gzip.compress, "deflate": zlib.compress, "br": brotli.compress}[coding](RULES)
    srv = serve(lambda r: Response(200, data, {"Content-Encoding": coding}))
    c = make_client()
    fr = c.rules_for(srv.origin)
    assert (fr.outcome, fr.size, fr.truncated) == ("rules", len(RULES), False)
    assert c.is_allowed(srv.origin + "/private") is False


# --- caching: RFC 9309 2.4 and 2.3.1.4 (the clock is injected) ------------------------------


class Flip:
    """A server whose answers change between fetches: ``srv.answer`` is what it says now."""

    def __init__(self, serve: Serve, answer: Response) -> None:
        self.answer = answer
        self.srv = serve(lambda r: self.answer)

    @property
    def origin(self) -> str:
        return self.srv.origin


def test_cache_24h_then_refetch(make_client: Make, serve: Serve, clock: FakeClock) -> None:
    """RFC 9309 2.4: SHOULD NOT use a cached copy for more than 24 hours."""
    f = Flip(serve, Response(200, b"User-agent: *\nDisallow: /v1\n"))
    c = make_client()
    assert c.is_allowed(f.origin + "/v1") is False
    f.answer = Response(200, b"User-agent: *\nDisallow: /v2\n")
    clock.advance(86_399)
    assert c.is_allowed(f.origin + "/v1") is False  # still the cached copy
    assert f.srv.hits == 1
    clock.advance(2)
    assert c.is_allowed(f.origin + "/v1") is True
    assert c.is_allowed(f.origin + "/v2") is False
    assert f.srv.hits == 2


@pytest.mark.parametrize(
    ("headers", "ttl"),
    [({"Cache-Control": "max-age=3600"}, 3600),
     ({"Cache-Control": "max-age=999999999"}, 86_400),
     ({"Cache-Control": "no-store"}, 60),
     ({"Expires": "Thu, 01 Jan 2027 01:00:00 GMT", "Date": "Thu, 01 Jan 2027 00:00:00 GMT"},
      3600)],
    ids=["max-age", "max-age-capped", "no-store", "expires"],
)
def test_cache_headers(make_client: Make, serve: Serve, clock: FakeClock,
                       headers: dict[str, str], ttl: int) -> None:
    """RFC 9309 2.4: MAY use standard cache control (RFC 9111), never beyond 24 h."""
    f = Flip(serve, Response(200, b"User-agent: *\nDisallow: /\n", headers))
    c = make_client()
    fr = c.rules_for(f.origin)
    assert fr.expires_at - fr.fetched_at == ttl
    clock.advance(ttl - 1)
    c.is_allowed(f.origin + "/")
    assert f.srv.hits == 1
    clock.advance(1)
    c.is_allowed(f.origin + "/")
    assert f.srv.hits == 2


def test_4xx_cached_like_2xx(make_client: Make, serve: Serve, clock: FakeClock) -> None:
    """Issue 4 / RFC 9309 2.4: a 404 is an answer, cached for the same 24 h."""
    f = Flip(serve, Response(404))
    c = make_client()
    assert c.is_allowed(f.origin + "/x") is True
    clock.advance(3600)
    assert c.is_allowed(f.origin + "/x") is True
    assert f.srv.hits == 1


def test_outage_keeps_copy_then_30_days(make_client: Make, serve: Serve,
                                        clock: FakeClock) -> None:
    """RFC 9309 2.4 ("unless ... unreachable") and 2.3.1.4: a failed refresh keeps the last
    copy, retried with back-off, for 30 days; then complete disallow (the default)."""
    f = Flip(serve, Response(200, b"User-agent: *\nDisallow: /private\n"))
    c = make_client()
    assert c.is_allowed(f.origin + "/public") is True
    f.answer = Response(503)
    clock.advance(86_401)
    fr = c.rules_for(f.origin)
    assert fr.outcome == "rules"
    assert fr.failing_since == clock.now
    assert fr.error == "503"
    assert fr.from_cache is False
    assert "stale copy" in fr.summary
    assert c.is_allowed(f.origin + "/public") is True
    assert c.is_allowed(f.origin + "/private") is False
    assert f.srv.hits == 2
    clock.advance(59)
    c.is_allowed(f.origin + "/public")
    assert f.srv.hits == 2  # back-off: no request within 60 s
    clock.advance(2)
    c.is_allowed(f.origin + "/public")
    assert f.srv.hits == 3  # retried after 60 s, still 503: copy kept, next in 120 s
    clock.advance(29 * 86_400)
    assert c.is_allowed(f.origin + "/public") is True  # day 29: still the copy
    clock.advance(86_400)
    v = c.explain(f.origin + "/public")
    assert (v.allowed, v.reason) == (False, "unreachable")  # day 30: 2.3.1.4 applies
    assert "30 days" in v.detail
    f.answer = Response(200, b"User-agent: *\nAllow: /\n")
    clock.advance(3600)
    assert c.is_allowed(f.origin + "/private") is True  # recovered
    assert c.rules_for(f.origin).failing_since is None


def test_outage_long_outage_allow(make_client: Make, serve: Serve, clock: FakeClock) -> None:
    """RFC 9309 2.3.1.4: after a long outage crawlers MAY treat the file as unavailable
    (Google's choice, ``long_outage="allow"``)."""
    f = Flip(serve, Response(500))
    c = make_client(long_outage="allow")
    assert c.is_allowed(f.origin + "/x") is False
    clock.advance(30 * 86_400)
    v = c.explain(f.origin + "/x")
    assert (v.allowed, v.reason) == (True, "unavailable")


def test_unreachable_without_copy_backs_off(make_client: Make, serve: Serve,
                                            clock: FakeClock) -> None:
    """Issue 4: with no copy, disallow all and retry after a short back-off (not 24 h)."""
    f = Flip(serve, Response(503, headers={"Retry-After": "120"}))
    c = make_client()
    assert c.is_allowed(f.origin + "/x") is False
    clock.advance(100)
    assert c.is_allowed(f.origin + "/x") is False
    assert f.srv.hits == 1  # Retry-After 120 lengthened the 60 s back-off
    f.answer = Response(200, b"User-agent: *\nDisallow: /private\n")
    clock.advance(21)
    assert c.is_allowed(f.origin + "/x") is True
    assert f.srv.hits == 2


def test_network_failure_keeps_copy(make_client: Make, clock: FakeClock) -> None:
    """RFC 9309 2.4: a refresh that cannot connect also keeps the copy."""
    srv = Server(lambda r: Response(200, b"User-agent: *\nDisallow: /private\n"))
    c = make_client()
    try:
        assert c.is_allowed(srv.origin + "/private") is False
    finally:
        srv.close()
    clock.advance(86_401)
    fr = c.rules_for(srv.origin)
    assert fr.outcome == "rules"
    assert fr.error == "connection refused"
    assert c.is_allowed(srv.origin + "/private") is False
    assert c.is_allowed(srv.origin + "/public") is True


def test_forget(make_client: Make, serve_robots: Callable[..., Server]) -> None:
    srv = serve_robots(b"")
    c = make_client()
    c.rules_for(srv.origin)
    c.forget(srv.origin + "/any/path")
    assert c.rules_for(srv.origin).from_cache is False
    assert srv.hits == 2


def test_context_managers(serve_robots: Callable[..., Server]) -> None:
    """Issue 4: close/aclose and context managers; an injected httpx client stays open."""
    import asyncio

    from robotrules.fetch import AsyncRobotsClient, RobotsClient

    srv = serve_robots(b"User-agent: *\nDisallow: /x\n")
    with httpx.Client() as http:
        with RobotsClient(http_client=http) as c:
            assert c.is_allowed(srv.origin + "/x") is False
        assert not http.is_closed
    with RobotsClient() as c2:
        pass
    assert c2.http.is_closed

    async def main() -> None:
        async with AsyncRobotsClient() as c:
            assert await c.is_allowed(srv.origin + "/x") is False
        assert c.http.is_closed

    asyncio.run(main())
