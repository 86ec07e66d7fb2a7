"""Web Bot Auth (robotrules.guard.webbotauth): RFC 9421 signatures checked against key
directories served on 127.0.0.1, with the drafts' and the RFC's own test vectors, signatures
made here with generated keys, and hostile inputs (forged, replayed, expired, malformed,
oversized; huge, slow and wrong key directories)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from .conftest import HttpServer, Reply, Signer

pytest.importorskip("http_message_signatures")

from robotrules.guard.webbotauth import (
    DIRECTORY_PATH,
    MEDIA_TYPE,
    WebBotAuth,
    jwk_thumbprint,
    parse_signature_agent,
)

# RFC 9421 Appendix B.1.4 "Example Ed25519 Test Key" (public part), as a JWK
RFC_JWK = {"kty": "OKP", "crv": "Ed25519", "x": "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs"}
# draft-meunier-http-message-signatures-directory / web-bot-auth-architecture: the key id of
# that key is its RFC 7638 thumbprint
RFC_KID = "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"


def pairs_of(headers: dict[str, str]) -> tuple[list[tuple[str, str]], dict[str, str]]:
    pairs = list(headers.items())
    return pairs, {k.lower(): v for k, v in pairs}


def verify(w: WebBotAuth, url: str, headers: dict[str, str], now: float | None = None,
           method: str = "GET") -> Any:
    pairs, h = pairs_of(headers)
    return w.verify(method, url, pairs, h, now)


def directory(http: HttpServer, signer: Signer, **reply: Any) -> None:
    http.routes[DIRECTORY_PATH] = Reply(200, signer.jwks(), {"Content-Type": MEDIA_TYPE},
                                        **reply)


def test_thumbprint_of_the_rfc_key() -> None:
    assert jwk_thumbprint(RFC_JWK) == RFC_KID


def test_architecture_draft_vector() -> None:
    # the web-bot-auth architecture draft's Ed25519 example: GET to example.com, covering
    # @authority, created 1735689600, tag web-bot-auth, signed with the RFC 9421 B.1.4 key
    w = WebBotAuth(use_registry=False, max_window=float("inf"))
    w.add_keys("https://signature-agent.test", {"keys": [RFC_JWK]})
    headers = {
        "Signature-Input": 'sig1=("@authority");created=1735689600;keyid="' + RFC_KID + '";'
        'alg="ed25519";expires=4889289600;nonce="zIW8+cdmA3vdYagbxojpONwa/l0EKJ/O3/wD486Vvs'
        'QjO/RxPaSt6ZxvQaMcQzNnqKN/mQ6hpGiFro2L2qkz5A==";tag="web-bot-auth"',
        "Signature": "sig1=:QKN4fTdIYfh82fvoZCQiQA1weuozfCS/Led2zTMbewMMqH8PI2Wsy/5c4ao6B6D09"
        "nraNQdBNOADg8aM1MqfCg==:",
    }
    r = verify(w, "https://example.com/", headers, now=1735689660)
    assert r.state == "verified"
    # the same signature for another host: @authority differs, the signature fails
    w2 = WebBotAuth(use_registry=False, max_window=float("inf"))
    w2.add_keys("https://signature-agent.test", {"keys": [RFC_JWK]})
    assert verify(w2, "https://example.org/", headers, now=1735689660).state == "invalid"
    # and the nonce makes a second use a replay
    assert verify(w, "https://example.com/", headers, now=1735689660).state == "invalid"


def test_signature_agent_covered_vector() -> None:
    # Cloudflare Research's web-bot-auth example: @authority and signature-agent covered,
    # Signature-Agent "https://myexample.com", the RFC 9421 B.1.4 key, a 10 s window
    w = WebBotAuth(use_registry=False)
    w.add_keys("https://myexample.com", {"keys": [RFC_JWK]})
    headers = {
        "Signature-Agent": '"https://myexample.com"',
        "Signature-Input": 'sig1=("@authority" "signature-agent");alg="ed25519";keyid="'
        + RFC_KID + '";nonce="ZO3/XMEZjrvSnLtAP9M7jK0WGQf3J+pbmQRUpKDhF9/jsNCWqUh2sq+TH4WTX'
        '3/GpNoSZUa8eNWMKqxWp2/c2g==";tag="web-bot-auth";created=1749332605;expires=1749332615',
        "Signature": "sig1=:GXzHSRZ9Sf6WwLOZjxAhfE6WEUPfDMrVBJITsL2sbG8gtcZgqKe2Yn7uavk0iNQrf"
        "cPzgGq8h8Pk5osNGqdtCw==:",
    }
    assert verify(w, "https://example.com/", headers, now=1749332606).state == "verified"
    # 20 s later it has expired (created + 10 s, 5 s of skew)
    w.add_keys("https://myexample.com", {"keys": [RFC_JWK]})
    r = verify(w, "https://example.com/", headers, now=1749332635)
    assert r.state == "invalid"
    assert "expired" in r.detail


def test_rfc9421_b26_through_the_library() -> None:
    # RFC 9421 B.2.6 "Signing a Request Using ed25519": the library the guard verifies with
    # checks the RFC's own signature (no web-bot-auth tag there, so through the library)
    import datetime

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from http_message_signatures import HTTPMessageVerifier, HTTPSignatureKeyResolver
    from http_message_signatures.algorithms import ED25519

    from robotrules.guard.webbotauth import _Message, _unb64url

    key = Ed25519PublicKey.from_public_bytes(_unb64url(RFC_JWK["x"]))

    class Keys(HTTPSignatureKeyResolver):  # type: ignore[misc]
        def resolve_public_key(self, key_id: str) -> Any:
            return key if key_id == "test-key-ed25519" else None

    headers = [
        ("Host", "example.com"), ("Date", "Tue, 20 Apr 2021 02:07:55 GMT"),
        ("Content-Type", "application/json"), ("Content-Length", "18"),
        ("Signature-Input", 'sig-b26=("date" "@method" "@path" "@authority" "content-type" '
                            '"content-length");created=1618884473;keyid="test-key-ed25519"'),
        ("Signature", "sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPi"
                      "u4A0w6vuQv5lIp5WPpBKRCw==:"),
    ]
    v = HTTPMessageVerifier(signature_algorithm=ED25519, key_resolver=Keys())
    v.max_clock_skew = datetime.timedelta(days=365 * 100)
    out = v.verify(_Message("POST", "https://example.com/foo?param=Value&Pet=dog", headers),
                   max_age=None)
    assert out[0].label == "sig-b26"


@pytest.fixture
def agent(http: HttpServer) -> tuple[HttpServer, Signer, WebBotAuth]:
    signer = Signer(http.base)
    directory(http, signer)
    w = WebBotAuth(trusted_agents=[http.base], use_registry=False, allow_http=True,
                   timeout=1.0)
    return http, signer, w


def test_signed_request_fetches_the_directory_once(
        agent: tuple[HttpServer, Signer, WebBotAuth]) -> None:
    http, signer, w = agent
    url = "https://site.example/page"
    headers = signer.sign(url)
    assert verify(w, url, headers) is None  # the directory is not known yet: a pending fetch
    d = w.fetch(http.base)
    assert d.error is None
    assert signer.keyid in d.keys
    r = verify(w, url, headers)
    assert r.state == "verified"
    assert r.agent == http.base
    assert verify(w, url, signer.sign(url)).state == "verified"
    assert http.hits[DIRECTORY_PATH] == 1  # cached


def test_replayed_nonce(agent: tuple[HttpServer, Signer, WebBotAuth]) -> None:
    http, signer, w = agent
    w.fetch(http.base)
    headers = signer.sign("https://site.example/")
    assert verify(w, "https://site.example/", headers).state == "verified"
    r = verify(w, "https://site.example/", headers)
    assert r.state == "invalid"
    assert "replay" in r.detail


@pytest.mark.parametrize(("kwargs", "why"), [
    ({"created": time.time() - 3600, "expires": time.time() - 3000}, "expired"),
    ({"created": time.time() + 600, "expires": time.time() + 660}, "future"),
    ({"created": time.time(), "expires": time.time() + 3 * 86400}, "window"),
    ({"components": ("signature-agent",)}, "@authority"),
    ({"components": ("@authority",), "agent_header": None}, "Signature-Agent"),
])
def test_bad_windows_and_coverage(agent: tuple[HttpServer, Signer, WebBotAuth],
                                  kwargs: dict[str, Any], why: str) -> None:
    http, signer, w = agent
    w.fetch(http.base)
    headers = signer.sign("https://site.example/", **kwargs)
    if "agent_header" in kwargs:  # signed without the header, then the header added
        headers["Signature-Agent"] = f'"{http.base}"'
    r = verify(w, "https://site.example/", headers)
    assert r.state == "invalid", r
    assert why in r.detail


def test_a_forged_signature_is_invalid(agent: tuple[HttpServer, Signer, WebBotAuth]) -> None:
    http, signer, w = agent
    w.fetch(http.base)
    other = Signer(http.base)  # a key the agent does not publish, same key id claimed
    headers = other.sign("https://site.example/")
    headers["Signature-Input"] = headers["Signature-Input"].replace(other.keyid, signer.keyid)
    assert verify(w, "https://site.example/", headers).state == "invalid"
    # a signature for one path replayed on another host
    good = signer.sign("https://site.example/")
    assert verify(w, "https://other.example/", good).state == "invalid"


def test_untagged_or_other_algorithms_are_not_web_bot_auth(
        agent: tuple[HttpServer, Signer, WebBotAuth]) -> None:
    http, signer, w = agent
    w.fetch(http.base)
    r = verify(w, "https://site.example/", signer.sign("https://site.example/", tag=None))
    assert r.state == "unverifiable"
    assert "web-bot-auth" in r.detail


@pytest.mark.parametrize("mangle", [
    lambda h: {**h, "Signature-Input": "sig1=(((("},
    lambda h: {**h, "Signature": "sig1=:not base64:"},
    lambda h: {**h, "Signature": "sig1=:" + "A" * 8000 + ":"},
    lambda h: {**h, "Signature-Agent": "not a structured field ((("},
    lambda h: {**h, "Signature-Agent": '"ftp://agent.example"'},
    lambda h: {**h, "Signature-Input": h["Signature-Input"].replace("keyid=", "kid=")},
    lambda h: {**h, "Signature-Input": h["Signature-Input"] + ";created=\"x\""},
    lambda h: {k: v for k, v in h.items() if k != "Signature-Agent"},
])
def test_malformed_headers_never_raise(agent: tuple[HttpServer, Signer, WebBotAuth],
                                       mangle: Any) -> None:
    http, signer, w = agent
    w.fetch(http.base)
    headers = mangle(signer.sign("https://site.example/"))
    r = verify(w, "https://site.example/", headers)
    assert r.state in ("invalid", "unverifiable")


def test_an_agent_the_site_does_not_know_is_never_fetched(http: HttpServer) -> None:
    signer = Signer(http.base)
    directory(http, signer)
    w = WebBotAuth(use_registry=False, allow_http=True)
    r = verify(w, "https://site.example/", signer.sign("https://site.example/"))
    assert r.state == "unverifiable"
    assert http.hits.get(DIRECTORY_PATH) is None


def test_parse_signature_agent_forms() -> None:
    # architecture draft: an sf-string; protocol draft: a Dictionary keyed by the label
    assert parse_signature_agent('"https://a.example"') == "https://a.example"
    assert parse_signature_agent('sig1="https://a.example"', "sig1") == "https://a.example"
    assert parse_signature_agent("(((") is None
    assert parse_signature_agent('"' + "a" * 5000 + '"') is None


@pytest.mark.parametrize(("reply", "why"), [
    (Reply(200, b"{}" + b" " * 70_000, {"Content-Type": MEDIA_TYPE}), "larger"),
    (Reply(200, b"x" * 1_000_000, {"Content-Type": MEDIA_TYPE}, repeat=50), "larger"),
    (Reply(200, b"<html>keys</html>", {"Content-Type": "text/html"}), "content type"),
    (Reply(200, b"not json", {"Content-Type": MEDIA_TYPE}), ""),
    (Reply(200, json.dumps({"keys": "no"}).encode(), {"Content-Type": MEDIA_TYPE}), "JWKS"),
    (Reply(200, json.dumps({"keys": [{"kty": "RSA", "n": "x", "e": "AQAB"}]}).encode(),
           {"Content-Type": MEDIA_TYPE}), "no Ed25519"),
    (Reply(404, b"gone"), "404"),
    (Reply(200, b'{"keys": []}' + b" " * 2000, {"Content-Type": MEDIA_TYPE}, delay=0.3,
           chunks=20), ""),
])
def test_hostile_directories_are_unverifiable_and_bounded(http: HttpServer, reply: Reply,
                                                          why: str) -> None:
    signer = Signer(http.base)
    http.routes[DIRECTORY_PATH] = reply
    # a generous limit for the quick answers (a loaded machine), 1 s for the slow one
    limit = 1.0 if reply.delay else 10.0
    w = WebBotAuth(trusted_agents=[http.base], use_registry=False, allow_http=True,
                   timeout=limit)
    start = time.monotonic()
    d = w.fetch(http.base)
    assert time.monotonic() - start < limit + 2.0
    assert d.error is not None
    assert why in d.error
    r = verify(w, "https://site.example/", signer.sign("https://site.example/"))
    assert r.state == "unverifiable"


async def test_async_fetch_is_bounded(http: HttpServer) -> None:
    signer = Signer(http.base)
    directory(http, signer, delay=0.5, chunks=10)
    w = WebBotAuth(trusted_agents=[http.base], use_registry=False, allow_http=True,
                   timeout=0.5)
    start = time.monotonic()
    d = await w.afetch(http.base)
    assert time.monotonic() - start < 2.0
    assert d.error is not None
    directory(http, signer)
    d = await w.afetch(http.base)
    assert d.error is None


@pytest.mark.parametrize("components", [("@authority", '"signature-agent";key="sig1"'),
                                        ("@authority", "signature-agent")])
def test_signature_agent_as_a_dictionary(components: tuple[str, ...]) -> None:
    # draft-ietf-webbotauth-httpsig-protocol: Signature-Agent as a Dictionary keyed by the
    # signature's label, covered as a member ("signature-agent";key="sig1") or whole
    signer = Signer("https://agent.example")
    w = WebBotAuth(use_registry=False)
    w.add_keys("https://agent.example", signer.jwks())
    headers = signer.sign("https://site.example/", components=components,
                          agent_header='sig1="https://agent.example"')
    r = verify(w, "https://site.example/", headers)
    assert r.state == "verified"
    assert r.agent == "https://agent.example"
