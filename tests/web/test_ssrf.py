"""Fetch-by-URL's address guard against the attacks of issue 12 item 1, with real servers.

Every origin is a real HTTP(S) server on 127.0.0.1. DNS is a resolver the test controls (the
app takes one), modelled on ``getaddrinfo``: a non-ASCII name is looked up under Python's
built-in IDNA 2003 spelling, as ``socket.getaddrinfo`` does. Where a test needs a *public*
address to answer, a network backend stands in for the internet: it carries connections for
the listed public addresses to a loopback port and refuses everything else, so no packet
leaves the machine.
"""

from __future__ import annotations

import ssl
import subprocess
import threading
import warnings
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpcore")

import httpcore

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from robotrules.web import create_app
from robotrules.web._fetch import fetch_robots
from robotrules.web._safety import ascii_host

pytestmark = pytest.mark.filterwarnings(
    "ignore:Using `httpx` with `starlette.testclient`:DeprecationWarning"
)

PUBLIC = "93.184.216.34"  # a public address; only ever reached through LoopbackInternet
BODY = b"User-agent: *\nDisallow: /secret-of-the-loopback-server/\n"


class Origin:
    """A real HTTP server on 127.0.0.1 that records every request (path and Host header)."""

    def __init__(self, redirect_to: str | None = None,
                 tls: ssl.SSLContext | None = None) -> None:
        self.requests: list[tuple[str, str]] = []
        self.sni: list[str | None] = []
        origin = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                origin.requests.append((self.path, self.headers.get("host", "")))
                if redirect_to:
                    self.send_response(301)
                    self.send_header("location", redirect_to)
                    self.send_header("content-length", "0")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("content-type", "text/plain")
                self.send_header("content-length", str(len(BODY)))
                self.end_headers()
                self.wfile.write(BODY)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if tls is not None:
            def remember(sock: Any, name: str | None, ctx: Any) -> None:
                origin.sni.append(name)

            tls.sni_callback = remember
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.port = int(self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def origins() -> Iterator[list[Origin]]:
    made: list[Origin] = []
    yield made
    for origin in made:
        origin.close()


class Dns:
    """A resolver the test controls: ASCII name -> addresses, counting every question.

    ``answers`` values are lists of answers given in turn (the last one repeats), which
    models a rebinding DNS server. Unicode names are spelt as getaddrinfo spells them.
    """

    def __init__(self, answers: dict[str, list[list[str]]]) -> None:
        self.answers = answers
        self.asked: list[str] = []

    def __call__(self, host: str, port: int) -> list[str]:
        name = host if host.isascii() else host.encode("idna").decode("ascii")  # IDNA 2003
        self.asked.append(name)
        turns = self.answers.get(name.lower())
        if not turns:
            raise OSError(f"[Errno -2] Name or service not known: {name}")
        return turns[min(self.asked.count(name) - 1, len(turns) - 1)]


class LoopbackInternet(httpcore.NetworkBackend):  # type: ignore[misc]
    """The internet for these tests: ``routes`` maps a public address to a loopback port."""

    def __init__(self, routes: dict[str, int]) -> None:
        self.routes = routes
        self.connections: list[tuple[str, int]] = []
        self._inner = httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None, socket_options: Any = None) -> Any:
        self.connections.append((host, port))
        if host == "127.0.0.1":
            return self._inner.connect_tcp(host, port, timeout=timeout)
        if host in self.routes:
            return self._inner.connect_tcp("127.0.0.1", self.routes[host], timeout=timeout)
        raise httpcore.ConnectError(f"{host} is unreachable from this test")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def client_for(**options: Any) -> TestClient:
    return TestClient(create_app(**options), base_url="http://127.0.0.1")


# -- IDNA: one spelling, checked and connected ------------------------------------------------


def test_ascii_host_is_idna_2008_with_uts46() -> None:
    # UTS 46 nontransitional processing keeps ß (IDNA 2008, RFC 5892); IDNA 2003 maps it to ss.
    assert ascii_host("faß.test") == "xn--fa-hia.test"
    assert "faß.test".encode("idna") == b"fass.test"  # the codec the old guard used
    assert ascii_host("ＥＸＡＭＰＬＥ.com") == "example.com"  # UTS 46 mapping (fullwidth)
    assert ascii_host("Example.COM") == "example.com"
    assert ascii_host("[::1]") == "::1"


def test_a_name_whose_two_idna_spellings_differ_never_reaches_loopback(
    origins: list[Origin],
) -> None:
    """Issue 12 item 1: ``fass`` (IDNA 2003) is public, ``xn--fa-hia`` (IDNA 2008) loopback."""
    local = Origin()
    origins.append(local)
    dns = Dns({"fass.test": [[PUBLIC]], "xn--fa-hia.test": [["127.0.0.1"]]})
    with client_for(resolver=dns) as c:
        response = c.post("/api/fetch", json={"url": f"http://faß.test:{local.port}/"})
    assert response.status_code == 403, response.text
    assert "xn--fa-hia.test resolves to 127.0.0.1" in response.json()["error"]
    assert local.requests == []
    assert dns.asked == ["xn--fa-hia.test"]  # checked once, in the spelling httpx sends


def test_the_checked_name_is_the_one_connected_and_sent(origins: list[Origin]) -> None:
    """With private addresses allowed, the same name reaches the server through the address
    the resolver gave (no other look-up: the system DNS knows no ``xn--fa-hia.test``) and the
    Host header carries the IDNA 2008 name."""
    local = Origin()
    origins.append(local)
    dns = Dns({"fass.test": [[PUBLIC]], "xn--fa-hia.test": [["127.0.0.1"]]})
    with client_for(resolver=dns, allow_private=True) as c:
        response = c.post("/api/fetch", json={"url": f"http://faß.test:{local.port}/x"})
    assert response.status_code == 200, response.text
    assert response.json()["robots_txt"] == BODY.decode().rstrip("\n") + "\n"
    assert local.requests == [("/robots.txt", f"xn--fa-hia.test:{local.port}")]
    hop = response.json()["transcript"]["hops"][0]
    assert (hop["addresses"], hop["connected"]) == (["127.0.0.1"], "127.0.0.1")


def test_a_redirect_to_the_other_spelling_is_refused_too(origins: list[Origin]) -> None:
    local = Origin()
    public = Origin(redirect_to=f"http://faß.test:{local.port}/robots.txt")
    origins += [local, public]
    dns = Dns({"www.public.test": [[PUBLIC]], "fass.test": [[PUBLIC]],
               "xn--fa-hia.test": [["127.0.0.1"]]})
    internet = LoopbackInternet({PUBLIC: public.port})
    with client_for(resolver=dns, network_backend=internet) as c:
        response = c.post("/api/fetch", json={"url": f"http://www.public.test:{public.port}/"})
    assert response.status_code == 403, response.text
    error = response.json()["error"]
    assert error.startswith("redirected to http://xn--fa-hia.test:")
    assert "loopback" in error
    assert len(public.requests) == 1
    assert local.requests == []
    assert "Disallow" not in response.text


def test_a_redirect_to_localhost_is_refused(origins: list[Origin]) -> None:
    local = Origin()
    public = Origin(redirect_to=f"http://localhost:{local.port}/robots.txt")
    origins += [local, public]
    dns = Dns({"www.public.test": [[PUBLIC]], "localhost": [["127.0.0.1"]]})
    internet = LoopbackInternet({PUBLIC: public.port})
    with client_for(resolver=dns, network_backend=internet) as c:
        response = c.post("/api/fetch", json={"url": f"http://www.public.test:{public.port}"})
    assert response.status_code == 403, response.text
    assert "localhost resolves to 127.0.0.1, which is a loopback address" in (
        response.json()["error"])
    assert local.requests == []


# -- DNS rebinding: resolve once, connect to what was checked ---------------------------------


def test_a_rebinding_name_never_gets_a_connection_to_loopback(origins: list[Origin]) -> None:
    """The resolver answers public first and loopback ever after: the fetch asks it once
    and connects to the public answer (carried to another loopback port by the stand-in
    internet), never to 127.0.0.1."""
    private = Origin()
    public = Origin()
    origins += [private, public]
    dns = Dns({"rebind.test": [[PUBLIC], ["127.0.0.1"]]})
    internet = LoopbackInternet({PUBLIC: public.port})
    with client_for(resolver=dns, network_backend=internet) as c:
        response = c.post("/api/fetch", json={"url": f"http://rebind.test:{private.port}/"})
    assert response.status_code == 200, response.text
    assert dns.asked == ["rebind.test"]
    assert internet.connections == [(PUBLIC, private.port)]
    assert private.requests == []
    assert public.requests == [("/robots.txt", f"rebind.test:{private.port}")]


@pytest.mark.parametrize(
    "host",
    ["[2002:7f00:1::1]", "[64:ff9b::7f00:1]", "[::ffff:127.0.0.1]", "[fec0::1]",
     "[2001:0:4136:e378:8000:63bf:3fff:fdd2]", "0x7f.1", "2130706433"],
)
def test_literal_addresses_that_carry_loopback_are_refused(host: str) -> None:
    """6to4, NAT64, mapped, site-local, Teredo, and the numeric IPv4 spellings WHATWG URL
    parsing (and httpx) read as 127.0.0.1."""
    internet = LoopbackInternet({})
    with client_for(network_backend=internet) as c:
        response = c.post("/api/fetch", json={"url": f"http://{host}/"})
    assert response.status_code in (400, 403), response.text
    assert internet.connections == []


# -- TLS: connect to the address, verify the name ---------------------------------------------


def _certificate(tmp_path: Path, name: str) -> tuple[Path, Path]:
    cert, key = tmp_path / f"{name}.pem", tmp_path / f"{name}.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", f"/CN={name}", "-addext", f"subjectAltName=DNS:{name}",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )
    return cert, key


def test_tls_is_verified_against_the_name_while_connecting_to_the_checked_address(
    tmp_path: Path, origins: list[Origin],
) -> None:
    cert, key = _certificate(tmp_path, "pinned.test")
    server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_tls.load_cert_chain(cert, key)
    secure = Origin(tls=server_tls)
    origins.append(secure)
    client_tls = ssl.create_default_context(cafile=str(cert))
    dns = Dns({"pinned.test": [["127.0.0.1"]], "other.test": [["127.0.0.1"]]})

    good = fetch_robots(f"https://pinned.test:{secure.port}/", allow_private=True,
                        resolver=dns, max_bytes=500 * 1024, timeout=10,
                        ssl_context=client_tls)
    assert (good["status"], good["outcome"]) == (200, "rules")
    assert secure.sni == ["pinned.test"]
    assert secure.requests == [("/robots.txt", f"pinned.test:{secure.port}")]

    # Same address, another name: the certificate does not cover it, so nothing is read.
    bad = fetch_robots(f"https://other.test:{secure.port}/", allow_private=True,
                       resolver=dns, max_bytes=500 * 1024, timeout=10, ssl_context=client_tls)
    assert bad["outcome"] == "disallow-all"
    assert bad["robots_txt"] == ""
    assert "tls" in (bad["transcript"]["error"] or "").lower()  # verification failed
    assert len(secure.requests) == 1
