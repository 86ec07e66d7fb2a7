"""Real parts for the guard's tests, all on 127.0.0.1: an HTTP server that answers from a table
(key directories, range lists; slow, huge and wrong answers too), a DNS server (dnslib's, in
this process, on a random port), keys made here, uvicorn and waitress running the examples."""

from __future__ import annotations

import base64
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import running

ROOT = Path(__file__).resolve().parents[2]
try:
    import robotrules  # noqa: F401
except ImportError:  # a checkout without `pip install -e .`
    sys.path.insert(0, str(ROOT / "src"))
EXAMPLES = ROOT / "examples"


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds between chunks of the body (a slow server)
    chunks: int = 1
    repeat: int = 1  # send body this many times (a huge answer without the memory)


class HttpServer:
    """A threaded HTTP/1.1 server on 127.0.0.1 answering GET from ``routes``."""

    def __init__(self) -> None:
        self.routes: dict[str, Reply] = {}
        self.hits: dict[str, int] = {}
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                outer.hits[self.path] = outer.hits.get(self.path, 0) + 1
                r = outer.routes.get(self.path, Reply(404, b"not found"))
                self.send_response(r.status)
                for k, v in r.headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(r.body) * r.repeat))
                self.end_headers()
                try:
                    for _ in range(r.repeat):
                        step = max(1, len(r.body) // r.chunks)
                        for i in range(0, len(r.body), step):
                            self.wfile.write(r.body[i:i + step])
                            self.wfile.flush()
                            if r.delay:
                                time.sleep(r.delay)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def http() -> Iterator[HttpServer]:
    s = HttpServer()
    try:
        yield s
    finally:
        s.close()


class DnsServer:
    """dnslib's DNS server on 127.0.0.1 (UDP, random port) answering from ``records``:
    ``(name, type) -> [values]``; names not listed get NXDOMAIN. ``silent`` drops queries."""

    def __init__(self) -> None:
        from dnslib import AAAA, PTR, QTYPE, RCODE, RR, A
        from dnslib.server import BaseResolver, DNSLogger, DNSServer

        self.records: dict[tuple[str, str], list[str]] = {}
        self.queries: list[tuple[str, str]] = []
        self.silent = False
        outer = self
        kinds: dict[str, Callable[[str], Any]] = {"A": A, "AAAA": AAAA, "PTR": PTR}

        class Resolver(BaseResolver):  # type: ignore[misc]
            def resolve(self, request: Any, handler: Any) -> Any:
                if outer.silent:
                    time.sleep(5)  # answer long after any client has given up
                reply = request.reply()
                name = str(request.q.qname).rstrip(".").lower()
                qtype = QTYPE[request.q.qtype]
                outer.queries.append((name, qtype))
                values = outer.records.get((name, qtype))
                if values is None:
                    if not any(n == name for n, _ in outer.records):
                        reply.header.rcode = RCODE.NXDOMAIN
                    return reply
                for v in values:
                    reply.add_answer(RR(request.q.qname, request.q.qtype, rdata=kinds[qtype](v),
                                        ttl=60))
                return reply

        quiet = DNSLogger(logf=lambda _text: None)
        self.server = DNSServer(Resolver(), port=0, address="127.0.0.1", logger=quiet)
        self.port = self.server.server.server_address[1]
        self.server.start_thread()

    def ptr(self, ip: str, *names: str) -> None:
        import dns.reversename

        rev = dns.reversename.from_address(ip).to_text().rstrip(".").lower()
        self.records[(rev, "PTR")] = [n + "." for n in names]

    def a(self, name: str, *ips: str) -> None:
        self.records[(name.lower(), "AAAA" if ":" in ips[0] else "A")] = list(ips)

    def close(self) -> None:
        self.server.stop()


@pytest.fixture
def dns_server() -> Iterator[DnsServer]:
    pytest.importorskip("dnslib")
    s = DnsServer()
    try:
        yield s
    finally:
        s.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- keys and signatures made by the tests ----------------------------------------------------

@dataclass
class Signer:
    """An Ed25519 key of a test agent; :meth:`sign` makes Web Bot Auth headers with
    ``http-message-signatures`` (RFC 9421), the library the guard verifies with."""

    agent: str
    key: Any = None

    def __post_init__(self) -> None:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        if self.key is None:
            self.key = Ed25519PrivateKey.generate()

    @property
    def jwk(self) -> dict[str, str]:
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        raw = self.key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return {"kty": "OKP", "crv": "Ed25519",
                "x": base64.urlsafe_b64encode(raw).rstrip(b"=").decode()}

    @property
    def keyid(self) -> str:
        from robotrules.guard.webbotauth import jwk_thumbprint

        return jwk_thumbprint(self.jwk)

    def jwks(self) -> bytes:
        import json

        return json.dumps({"keys": [{**self.jwk, "kid": self.keyid}]}).encode()

    def sign(self, url: str, *, created: float | None = None, expires: float | None = None,
             nonce: str | None = "n-" + "0" * 8, tag: str | None = "web-bot-auth",
             components: tuple[str, ...] = ("@authority", "signature-agent"),
             agent_header: str | None = None, method: str = "GET",
             extra: dict[str, str] | None = None) -> dict[str, str]:
        import datetime
        import secrets

        from http_message_signatures import HTTPMessageSigner, HTTPSignatureKeyResolver
        from http_message_signatures.algorithms import ED25519

        key = self.key

        class Keys(HTTPSignatureKeyResolver):  # type: ignore[misc]
            def resolve_private_key(self, key_id: str) -> Any:
                return key

        now = time.time() if created is None else created
        headers: dict[str, str] = dict(extra or {})
        if agent_header is not None or "signature-agent" in components:
            headers["Signature-Agent"] = agent_header if agent_header is not None \
                else f'"{self.agent}"'

        @dataclass
        class Req:
            method: str
            url: str
            headers: dict[str, str]

        req = Req(method, url, headers)
        signer = HTTPMessageSigner(signature_algorithm=ED25519, key_resolver=Keys())
        utc = datetime.UTC
        signer.sign(req, key_id=self.keyid, covered_component_ids=components,
                    created=datetime.datetime.fromtimestamp(int(now), utc),
                    expires=datetime.datetime.fromtimestamp(
                        int(now + 60 if expires is None else expires), utc),
                    nonce=(nonce + secrets.token_hex(8)) if nonce else None,
                    tag=tag, label="sig1", include_alg=True)
        return dict(req.headers)


@contextmanager
def uvicorn_running(app: Any) -> Iterator[str]:
    """``app`` under uvicorn on a free 127.0.0.1 port (the web tests' server), with
    ``proxy_headers=False``: uvicorn would otherwise rewrite the client address from
    X-Forwarded-For itself for 127.0.0.1 peers; the guard reads those headers."""
    with running(app, lifespan="off", proxy_headers=False) as base:
        yield base


@contextmanager
def waitress_running(app: Any) -> Iterator[str]:
    """``app`` under waitress (a production WSGI server) on a free 127.0.0.1 port."""
    from waitress.server import create_server

    server = create_server(app, host="127.0.0.1", port=0, threads=4)
    port = server.effective_port  # type: ignore[union-attr]
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.close()
        thread.join(timeout=10)
