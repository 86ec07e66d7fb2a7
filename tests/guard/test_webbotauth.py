"""Web Bot Auth (robotrules.guard.webbotauth): the published vectors (RFC 9421 Appendix B,
draft-ietf-webbotauth-httpsig-protocol's Test Vectors, cases re-derived from Cloudflare's
web-bot-auth test data; tests/guard/data/webbotauth_vectors.json), signatures made here with
generated keys, key directories served by a real HTTP server on 127.0.0.1, and what an
attacker would try: forged, replayed, cross-site, expired, uncovered, keyid-only and
test-key signatures; malformed and oversized headers; huge, slow, redirecting, compressed-bomb
and private-address key directories."""

from __future__ import annotations

import base64
import json
import math
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import HttpServer, Reply, Signer

pytest.importorskip("http_message_signatures")

from robotrules.guard.webbotauth import (
    DIRECTORY_PATH,
    MAX_KEYS,
    MEDIA_TYPE,
    TEST_KEY_IDS,
    WebBotAuth,
    jwk_thumbprint,
    normalize_authority,
    parse_signature_agent,
)

VECTORS = json.loads((Path(__file__).parent / "data" / "webbotauth_vectors.json")
                     .read_text("utf-8"))
KEYS = VECTORS["rfc9421_keys"]
RFC_JWK = KEYS["test-key-ed25519"]["jwk"]
RFC_KID = KEYS["test-key-ed25519"]["thumbprint"]
SITE = "site.example"


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


def rfc_signer(agent: str) -> Signer:
    """A signer holding the RFC 9421 B.1.4 private key (published: anyone can sign with it)."""
    from cryptography.hazmat.primitives.serialization import load_der_private_key

    der = base64.b64decode(KEYS["test-key-ed25519"]["private_pkcs8_base64"])
    return Signer(agent, load_der_private_key(der, None))


def test_thumbprints_of_the_rfc9421_keys_are_the_refused_test_keys() -> None:
    # RFC 7638 thumbprints of RFC 9421 B.1.1-B.1.4; the draft ("Test and Demonstration Keys"):
    # "Verifiers SHOULD reject known test keys"
    for name, k in KEYS.items():
        assert jwk_thumbprint(k["jwk"]) == k["thumbprint"], name
    assert {k["thumbprint"] for k in KEYS.values()} == TEST_KEY_IDS
    # the draft's vectors name the Ed25519 and RSA-PSS keys by these key ids
    assert {v["signature_input"].split('keyid="')[1].split('"')[0]
            for v in VECTORS["draft_vectors"]} == {KEYS["test-key-ed25519"]["thumbprint"],
                                                    KEYS["test-key-rsa-pss"]["thumbprint"]}


def library_verifier(key_name: str, keyid: str) -> Any:
    """``http-message-signatures``' Ed25519 verifier holding one RFC 9421 key under
    ``keyid``, with no clock limit (the vectors are years old)."""
    import datetime

    from http_message_signatures import HTTPMessageVerifier, HTTPSignatureKeyResolver
    from http_message_signatures.algorithms import ED25519

    from robotrules.guard.webbotauth import _public_key

    key = _public_key(KEYS[key_name]["jwk"])

    class Keys(HTTPSignatureKeyResolver):  # type: ignore[misc]
        def resolve_public_key(self, key_id: str) -> Any:
            return key if key_id == keyid else None

    v = HTTPMessageVerifier(signature_algorithm=ED25519, key_resolver=Keys())
    v.max_clock_skew = datetime.timedelta(days=365 * 100)
    return v


def test_rfc9421_b26_through_the_library() -> None:
    # RFC 9421 B.2.6 "Signing a Request Using ed25519": the library the guard verifies with
    # checks the RFC's own signature with the B.1.4 key (no web-bot-auth tag: the library)
    from http_message_signatures import InvalidSignature

    from robotrules.guard.webbotauth import _Message

    v26 = VECTORS["rfc9421_b26"]
    headers = [tuple(h) for h in v26["headers"]]
    v = library_verifier(v26["key"], v26["keyid"])
    out = v.verify(_Message(v26["method"], v26["url"], headers), max_age=None)
    assert out[0].label == v26["label"]
    # one changed byte of the covered Content-Length and the RFC's signature fails
    bad = [(n, "19" if n == "Content-Length" else val) for n, val in headers]
    with pytest.raises(InvalidSignature):
        v.verify(_Message(v26["method"], v26["url"], bad), max_age=None)


def vector_headers(v: dict[str, Any]) -> dict[str, str]:
    h = {"Signature-Input": v["signature_input"], "Signature": v["signature"]}
    if "signature_agent" in v:
        h["Signature-Agent"] = v["signature_agent"]
    return h


@pytest.mark.parametrize("v", VECTORS["draft_vectors"], ids=lambda v: v["name"])
def test_draft_vectors_verify_with_test_keys_allowed(v: dict[str, Any]) -> None:
    # draft-ietf-webbotauth-httpsig-protocol, "Test Vectors": each verifies under the RFC 9421
    # key it names, for a request to example.com, attributed to https://signature-agent.test
    def verifier(**kw: Any) -> WebBotAuth:
        w = WebBotAuth(use_registry=False, allow_test_keys=True, authorities=[v["authority"]],
                       **kw)
        w.add_keys("https://signature-agent.test", {"keys": [KEYS[v["key"]]["jwk"]]})
        return w

    url = f"https://{v['authority']}/path/to/resource"
    long_lived = v["signature_input"].endswith("expires=4889289600") or \
        "expires=4889289600;" in v["signature_input"]
    if long_lived:
        # "an expires far enough out that they do not age": over the 24 h this guard takes
        # by default ("RECOMMENDED that expires be no more than 24 hours after created")
        r = verify(verifier(), url, vector_headers(v), now=v["now"])
        assert r.state == "invalid"
        assert "window" in r.detail
    w = verifier(max_window=math.inf)
    r = verify(w, url, vector_headers(v), now=v["now"])
    assert r.state == "verified", r
    assert r.agent == "https://signature-agent.test"
    assert r.directory == "https://signature-agent.test" + DIRECTORY_PATH
    assert "@authority" in r.covered
    # the nonce makes a second use a replay (RFC 9421 7.2.2)
    again = verify(w, url, vector_headers(v), now=v["now"])
    assert again.state == "invalid"
    assert "replay" in again.detail
    # a changed signed value: the Signature-Agent member (dictionary) or field (legacy)
    w2 = verifier(max_window=math.inf)
    w2.add_keys("https://other-agent.test", {"keys": [KEYS[v["key"]]["jwk"]]})
    moved = {**vector_headers(v), "Signature-Agent": v["signature_agent"].replace(
        "signature-agent.test", "other-agent.test")}
    assert verify(w2, url, moved, now=v["now"]).state == "invalid"


@pytest.mark.parametrize("v", VECTORS["draft_vectors"], ids=lambda v: v["name"])
def test_draft_vectors_are_refused_in_production(v: dict[str, Any], http: HttpServer) -> None:
    # the draft: "Test keys, including the example keys in [RFC 9421], MUST NOT be used in
    # production. Verifiers SHOULD reject known test keys when they are detected in key
    # directories or out-of-band configuration."
    w = WebBotAuth(use_registry=False, authorities=[v["authority"]])
    with pytest.raises(ValueError, match="test key"):
        w.add_keys("https://signature-agent.test", {"keys": [KEYS[v["key"]]["jwk"]]})
    r = verify(w, f"https://{v['authority']}/", vector_headers(v), now=v["now"])
    assert r.state == "invalid"
    assert "test key" in r.detail
    # served in a directory: the key is dropped, never held
    http.routes[DIRECTORY_PATH] = Reply(200, json.dumps({"keys": [KEYS[v["key"]]["jwk"]]})
                                        .encode(), {"Content-Type": MEDIA_TYPE})
    w2 = WebBotAuth(use_registry=False, trusted_agents=[http.base], allow_http=True,
                    allow_loopback=True)
    d = w2.fetch(http.base)
    assert not d.keys
    assert d.error is not None
    assert "test keys" in d.error


def test_cross_site_replay_is_invalid() -> None:
    # the reproduction: a signature made for attacker.example (its @authority),
    # replayed here with Host: attacker.example; this site is site.example
    signer = Signer("https://agent.example")
    w = WebBotAuth(use_registry=False, authorities=[SITE])
    w.add_keys("https://agent.example", signer.jwks())
    headers = signer.sign("https://attacker.example/private")
    r = verify(w, "https://attacker.example/private", headers)
    assert r.state == "invalid"
    assert "cross-site" in r.detail
    # the same signer's signature for this site verifies
    ok = verify(w, f"https://{SITE}/", signer.sign(f"https://{SITE}/"))
    assert ok.state == "verified"
    # and a signature for this site sent with another Host fails the signature itself
    moved = verify(w, "https://attacker.example/", signer.sign(f"https://{SITE}/"))
    assert moved.state == "invalid"


@pytest.mark.parametrize(("configured", "url", "ok"), [
    ("bücher.example", "https://xn--bcher-kva.example/", True),  # IDNA (the idna package)
    ("Site.Example:443", "https://site.example/", True),
    ("site.example", "https://site.example:443/", True),
    ("site.example:8443", "https://site.example:8443/", True),
    ("site.example", "https://site.example:8443/", False),
    ("site.example", "https://site.example.attacker.example/", False),
    ("site.example", "https://sub.site.example/", False),
])
def test_authorities_compare_as_rfc9421_normalizes_them(configured: str, url: str,
                                                        ok: bool) -> None:
    # RFC 9421 2.2.3: @authority is host[:port], host lower-cased, the default port omitted
    signer = Signer("https://agent.example")
    w = WebBotAuth(use_registry=False, authorities=[configured])
    w.add_keys("https://agent.example", signer.jwks())
    r = verify(w, url, signer.sign(url))
    assert (r.state == "verified") is ok, r
    assert normalize_authority("[::1]:8080") == "[::1]:8080"
    assert normalize_authority("a b") is None


def test_authorities_must_be_authorities() -> None:
    with pytest.raises(ValueError):
        WebBotAuth(use_registry=False, authorities=["https://site.example/path"])


@pytest.fixture
def agent(http: HttpServer) -> tuple[HttpServer, Signer, WebBotAuth]:
    signer = Signer(http.base)
    directory(http, signer)
    w = WebBotAuth(trusted_agents=[http.base], use_registry=False, allow_http=True,
                   allow_loopback=True, timeout=5.0, authorities=[SITE])
    return http, signer, w


URL = f"https://{SITE}/page"


def test_signed_request_fetches_the_directory_once(
        agent: tuple[HttpServer, Signer, WebBotAuth]) -> None:
    http, signer, w = agent
    headers = signer.sign(URL)
    assert verify(w, URL, headers) is None  # the directory is not known yet: a pending fetch
    _pairs, h = pairs_of(headers)
    assert w.agent_of(h) == http.base + DIRECTORY_PATH
    d = w.fetch(w.agent_of(h) or "")
    assert d.error is None
    assert signer.keyid in d.keys
    r = verify(w, URL, headers)  # the pending answer consumed no nonce
    assert r.state == "verified"
    assert r.agent == http.base
    assert verify(w, URL, signer.sign(URL)).state == "verified"
    assert http.hits[DIRECTORY_PATH] == 1  # cached


def two_agents() -> tuple[Signer, Signer, WebBotAuth]:
    """Agents A and B with their keys pinned, and a verifier for this site."""
    a, b = Signer("https://agent-a.example"), Signer("https://agent-b.example")
    w = WebBotAuth(use_registry=False, authorities=[SITE])
    w.add_keys("https://agent-a.example", a.jwks())
    w.add_keys("https://agent-b.example", b.jwks())
    return a, b, w


def test_keys_are_held_by_directory_and_keyid_never_keyid_alone(http: HttpServer) -> None:
    # the draft: "Key lookup MUST be keyed on the (URL, key) pair, not on the key alone"
    _a, b, w = two_agents()
    # B signs, but names A's directory: A does not publish B's key
    forged = b.sign(URL, agent_header='"https://agent-a.example"')
    r = verify(w, URL, forged)
    assert r.state == "unverified"
    assert r.agent == "https://agent-a.example"
    assert "not in" in r.detail
    # signed with no Signature-Agent at all: a held key is never matched by keyid
    bare = b.sign(URL, components=("@authority",))
    r = verify(w, URL, bare)
    assert r.state == "unverified"
    assert r.agent is None
    # the same with the draft's Ed25519 vector that names no agent (re-derived case)
    for v in VECTORS["rederived"]["no_signature_agent"]:
        w2 = WebBotAuth(use_registry=False, allow_test_keys=True)
        w2.add_keys("https://signature-agent.test", {"keys": [KEYS[v["key"]]["jwk"]]})
        r = verify(w2, f"https://{v['authority']}/path/to/resource", vector_headers(v),
                   now=v["now"])
        assert r.state == v["expect"], v["name"]
        assert r.agent is None, v["name"]


def test_only_the_covered_member_names_the_signer() -> None:
    # the draft: "A verifier MUST NOT attribute a signature to a member that signature does
    # not cover"
    a, _b, w = two_agents()
    h = a.sign(URL, components=("@authority", '"signature-agent";key="sig1"'),
               agent_header='sig1="https://agent-a.example"')
    h["Signature-Agent"] += ', sig9="https://agent-b.example"'  # a member added on the way
    r = verify(w, URL, h)
    assert r.state == "verified"
    assert r.agent == "https://agent-a.example"
    # a member carrying parameters is ignored (the draft: "MUST ignore a member that carries
    # parameters"; Cloudflare's jwks_uri / cimd forms)
    for form in VECTORS["rederived"]["signature_agent_forms"]:
        assert parse_signature_agent(form["field"], form["label"]) == form["url"], form["name"]


def test_a_second_signature_agent_line_is_read_as_the_signature_base_reads_it() -> None:
    # RFC 9421 2.1: a field's lines are combined; RFC 9651: the last member of a key wins. A
    # second line re-keying the covered member to another agent changes the signed value
    a, _b, w = two_agents()
    h = a.sign(URL, components=("@authority", '"signature-agent";key="sig1"'),
               agent_header='sig1="https://agent-a.example"')
    pairs = [*h.items(), ("Signature-Agent", 'sig1="https://agent-b.example"')]
    r = w.verify("GET", URL, pairs, {k.lower(): v for k, v in h.items()}, None)
    assert r is not None
    # the combined field names B for sig1: B does not publish A's key
    assert r.state == "unverified"
    assert r.agent == "https://agent-b.example"


def test_a_path_on_a_trusted_host_is_not_trusted(http: HttpServer) -> None:
    # the draft: "TLS authenticates the host but not the path. An arbitrary path does not
    # name the host's operator."
    signer = Signer(http.base)
    http.routes["/uploads/keys.json"] = Reply(200, signer.jwks(), {"Content-Type": MEDIA_TYPE})
    w = WebBotAuth(trusted_agents=[http.base], use_registry=False, allow_http=True,
                   allow_loopback=True, authorities=[SITE])
    h = signer.sign(URL, agent_header=f'"{http.base}/uploads/keys.json"')
    r = verify(w, URL, h)
    assert r.state == "unverified"
    assert "trust" in r.detail
    assert w.fetch(http.base + "/uploads/keys.json").error is not None
    assert http.hits.get("/uploads/keys.json") is None
    # trusted by its exact URL, the same directory works
    w2 = WebBotAuth(trusted_agents=[http.base + "/uploads/keys.json"], use_registry=False,
                    allow_http=True, allow_loopback=True, authorities=[SITE])
    assert verify(w2, URL, h) is None
    assert w2.fetch(http.base + "/uploads/keys.json").error is None
    assert verify(w2, URL, h).state == "verified"


def test_replayed_nonce(agent: tuple[HttpServer, Signer, WebBotAuth]) -> None:
    http, signer, w = agent
    w.fetch(http.base)
    headers = signer.sign(URL)
    assert verify(w, URL, headers).state == "verified"
    r = verify(w, URL, headers)
    assert r.state == "invalid"
    assert "replay" in r.detail


# created/expires as offsets from the moment the test runs (a time taken when the module is
# collected is many minutes old by the time a long parallel run reaches the test)
@pytest.mark.parametrize(("kwargs", "why"), [
    ({"created": -3600, "expires": -3000}, "expired"),
    ({"created": 600, "expires": 660}, "future"),
    ({"created": 0, "expires": 3 * 86400}, "window"),
    ({"components": ("signature-agent",)}, "@authority"),
    ({"components": ("@authority",), "agent_header": None}, "Signature-Agent"),
])
def test_bad_windows_and_coverage(agent: tuple[HttpServer, Signer, WebBotAuth],
                                  kwargs: dict[str, Any], why: str) -> None:
    http, signer, w = agent
    now = time.time()
    kwargs = {k: now + v if k in ("created", "expires") else v for k, v in kwargs.items()}
    w.fetch(http.base)
    headers = signer.sign(URL, **kwargs)
    if "agent_header" in kwargs:  # signed without the header, then the header added
        headers["Signature-Agent"] = f'"{http.base}"'
    r = verify(w, URL, headers)
    assert r.state == "invalid", r
    assert why in r.detail


def test_short_window_vector() -> None:
    # re-derived from Cloudflare's example: @authority and the whole Signature-Agent field, a
    # 10 s window; verified inside it, expired 20 s later (5 s of skew)
    v = VECTORS["rederived"]["short_window"]
    w = WebBotAuth(use_registry=False, allow_test_keys=True, authorities=[v["authority"]])
    w.add_keys(v["directory"], {"keys": [KEYS[v["key"]]["jwk"]]})
    url = f"https://{v['authority']}/"
    assert verify(w, url, vector_headers(v), now=v["verified_at"]).state == "verified"
    r = verify(w, url, vector_headers(v), now=v["expired_at"])
    assert r.state == "invalid"
    assert "expired" in r.detail


def test_target_uri_coverage_is_enough_and_binds_the_authority() -> None:
    # the draft: "Agents MUST include at least one of @authority, @target-uri"
    signer = Signer("https://agent.example")
    w = WebBotAuth(use_registry=False, authorities=[SITE])
    w.add_keys("https://agent.example", signer.jwks())
    h = signer.sign(URL, components=("@target-uri", "signature-agent"))
    assert verify(w, URL, h).state == "verified"
    other = "https://attacker.example/page"
    h2 = signer.sign(other, components=("@target-uri", "signature-agent"))
    assert verify(w, other, h2).state == "invalid"


def test_a_forged_signature_is_invalid(agent: tuple[HttpServer, Signer, WebBotAuth]) -> None:
    http, signer, w = agent
    w.fetch(http.base)
    other = Signer(http.base)  # a key the agent does not publish, same key id claimed
    headers = other.sign(URL)
    headers["Signature-Input"] = headers["Signature-Input"].replace(other.keyid, signer.keyid)
    assert verify(w, URL, headers).state == "invalid"


def test_hmac_and_unknown_algorithms(agent: tuple[HttpServer, Signer, WebBotAuth]) -> None:
    http, signer, w = agent
    w.fetch(http.base)
    h = signer.sign(URL)
    hmac = {**h, "Signature-Input": h["Signature-Input"].replace('alg="ed25519"',
                                                                  'alg="hmac-sha256"')}
    r = verify(w, URL, hmac)
    assert r.state == "invalid"
    assert "HMAC" in r.detail
    odd = {**h, "Signature-Input": h["Signature-Input"].replace('alg="ed25519"', 'alg="rot13"')}
    assert verify(w, URL, odd).state == "unverified"


def test_several_signatures_one_invalid_is_invalid(
        agent: tuple[HttpServer, Signer, WebBotAuth]) -> None:
    # the draft: "Verifiers MUST validate each signature independently"
    http, signer, w = agent
    w.fetch(http.base)
    good = signer.sign(URL)
    other = Signer(http.base)
    bad = other.sign(URL)
    h = {"Signature-Agent": good["Signature-Agent"],
         "Signature-Input": good["Signature-Input"] + ", " +
         bad["Signature-Input"].replace("sig1=", "sig2=").replace(other.keyid, signer.keyid),
         "Signature": good["Signature"] + ", " + bad["Signature"].replace("sig1=", "sig2=")}
    assert verify(w, URL, h).state == "invalid"


def test_untagged_is_not_web_bot_auth(agent: tuple[HttpServer, Signer, WebBotAuth]) -> None:
    http, signer, w = agent
    w.fetch(http.base)
    r = verify(w, URL, signer.sign(URL, tag=None))
    assert r.state == "unverified"
    assert "web-bot-auth" in r.detail


@pytest.mark.parametrize("mangle", [
    lambda h: {**h, "Signature-Input": "sig1=(((("},
    lambda h: {**h, "Signature": "sig1=:not base64:"},
    lambda h: {**h, "Signature": "sig1=:" + "A" * 8000 + ":"},
    lambda h: {**h, "Signature-Agent": "not a structured field ((("},
    lambda h: {**h, "Signature-Agent": '"ftp://agent.example"'},
    lambda h: {**h, "Signature-Agent": '"https://user:pw@agent.example"'},
    lambda h: {**h, "Signature-Input": h["Signature-Input"].replace("keyid=", "kid=")},
    lambda h: {**h, "Signature-Input": h["Signature-Input"] + ";created=\"x\""},
    lambda h: {**h, "Signature-Input": h["Signature-Input"].replace("created=", "created=9" * 40)},
    lambda h: {**h, "Signature-Input": ", ".join([h["Signature-Input"]] * 6)},
    lambda h: {k: v for k, v in h.items() if k != "Signature-Agent"},
    lambda h: {**h, "Signature-Input": h["Signature-Input"].replace("web-bot-auth", "x")},
])
def test_malformed_headers_never_raise_or_verify(
        agent: tuple[HttpServer, Signer, WebBotAuth], mangle: Any) -> None:
    http, signer, w = agent
    w.fetch(http.base)
    headers = mangle(signer.sign(URL))
    r = verify(w, URL, headers)
    assert r.state in ("invalid", "unverified")


def test_a_field_split_over_many_lines_is_bounded_too(
        agent: tuple[HttpServer, Signer, WebBotAuth]) -> None:
    # 200 Signature-Input lines of 100 bytes each: each under the limit, 20 KB together
    http, signer, w = agent
    w.fetch(http.base)
    h = signer.sign(URL)
    pairs = [(n, v) for n, v in h.items()] + [
        ("Signature-Input", f'x{i:03d}=("a");tag="{"t" * 80}"') for i in range(200)]
    r = w.verify("GET", URL, pairs, {k.lower(): v for k, v in h.items()}, None)
    assert r.state == "unverified"
    assert "over 4096 bytes" in r.detail


def test_an_agent_the_site_does_not_know_is_never_fetched(http: HttpServer) -> None:
    signer = Signer(http.base)
    directory(http, signer)
    w = WebBotAuth(use_registry=False, allow_http=True, allow_loopback=True)
    r = verify(w, URL, signer.sign(URL))
    assert r.state == "unverified"
    assert w.fetch(http.base).error is not None
    assert http.hits.get(DIRECTORY_PATH) is None


@pytest.mark.parametrize("where", [
    "http://127.0.0.1:{port}", "http://[::1]:{port}", "http://localhost:{port}",
    "http://2130706433:{port}", "http://0x7f000001:{port}", "http://169.254.169.254",
    "http://10.0.0.1", "http://[::ffff:127.0.0.1]:{port}", "http://192.168.1.1",
])
def test_directories_on_private_addresses_are_never_fetched(http: HttpServer,
                                                            where: str) -> None:
    # the draft (SSRF): "Verifiers SHOULD prevent directory fetches to private, loopback, and
    # link-local address ranges"; production settings (no allow_loopback)
    port = http.base.rsplit(":", 1)[1]
    base = where.format(port=port)
    signer = Signer(base)
    directory(http, signer)
    w = WebBotAuth(trusted_agents=[base], use_registry=False, allow_http=True, timeout=2.0)
    start = time.monotonic()
    d = w.fetch(base)
    assert time.monotonic() - start < 3.0
    assert d.error is not None
    assert "refused" in d.error, d.error
    assert "Traceback" not in d.error
    assert http.hits.get(DIRECTORY_PATH) is None


def test_a_redirect_is_not_followed(http: HttpServer) -> None:
    # the draft: "MUST treat all other HTTP status codes as discovery failures and MUST NOT
    # automatically follow HTTP redirects"
    signer = Signer(http.base)
    http.routes["/elsewhere"] = Reply(200, signer.jwks(), {"Content-Type": MEDIA_TYPE})
    http.routes[DIRECTORY_PATH] = Reply(302, b"", {"Location": http.base + "/elsewhere"})
    w = WebBotAuth(trusted_agents=[http.base], use_registry=False, allow_http=True,
                   allow_loopback=True)
    d = w.fetch(http.base)
    assert d.error == "HTTP 302 (redirects are not followed)"
    assert http.hits.get("/elsewhere") is None


def test_failures_are_cached_at_most_five_minutes(http: HttpServer) -> None:
    # the draft: "Negative cache entries should expire after no more than five minutes"
    http.routes[DIRECTORY_PATH] = Reply(503, b"down")
    w = WebBotAuth(trusted_agents=[http.base], use_registry=False, allow_http=True,
                   allow_loopback=True, fail_ttl=3600.0)
    d = w.fetch(http.base)
    assert d.error == "HTTP 503"
    assert d.expires - time.monotonic() <= 300.0


def test_a_failed_refetch_keeps_the_last_good_keys(http: HttpServer) -> None:
    # the draft: "A directory that fails to resolve is not evidence and MUST NOT evict a
    # cached entry"; "A directory that resolves and does not contain the key is evidence:
    # ... That is how a removed key stops verifying."
    signer = Signer(http.base)
    directory(http, signer)
    w = WebBotAuth(trusted_agents=[http.base], use_registry=False, allow_http=True,
                   allow_loopback=True, authorities=[SITE], key_ttl=60.0)
    assert w.fetch(http.base).error is None
    for reply in (Reply(500, b"oops"), Reply(200, b"<html>", {"Content-Type": "text/html"}),
                  Reply(200, b"{not json", {"Content-Type": MEDIA_TYPE})):
        http.routes[DIRECTORY_PATH] = reply
        d = w.fetch(http.base)
        assert d.error is not None
        assert signer.keyid in d.keys
        assert verify(w, URL, signer.sign(URL)).state == "verified"
    # past the keys' own expiry plus the grace, they go
    held = w._dirs[http.base + DIRECTORY_PATH]
    w._dirs[held.url] = type(held)(held.agent, held.keys, held.expires, held.error, held.url,
                                   time.monotonic() - 1)
    assert verify(w, URL, signer.sign(URL)).state == "unverified"
    # the directory answers without the key: the key is removed at once
    directory(http, signer)
    assert w.fetch(http.base).error is None
    http.routes[DIRECTORY_PATH] = Reply(200, Signer(http.base).jwks(),
                                        {"Content-Type": MEDIA_TYPE})
    assert w.fetch(http.base).error is None
    r = verify(w, URL, signer.sign(URL))
    assert r.state == "unverified"
    assert "not in" in r.detail


def test_a_conditional_refetch(http: HttpServer) -> None:
    # the draft, "Directory Availability": ETag and conditional requests reduce fetch load
    signer = Signer(http.base)
    http.routes[DIRECTORY_PATH] = Reply(200, signer.jwks(), {"Content-Type": MEDIA_TYPE,
                                                             "ETag": '"v1"'})
    w = WebBotAuth(trusted_agents=[http.base], use_registry=False, allow_http=True,
                   allow_loopback=True)
    assert w.fetch(http.base).etag == '"v1"'
    http.routes[DIRECTORY_PATH] = Reply(304, b"")
    d = w.fetch(http.base)
    assert d.error is None
    assert signer.keyid in d.keys


def test_a_directory_with_many_keys_is_read_up_to_the_cap(http: HttpServer) -> None:
    # the draft (SSRF): "Verifiers SHOULD enforce a maximum key count"
    signers = [Signer(http.base) for _ in range(MAX_KEYS + 6)]
    body = json.dumps({"keys": [s.jwk for s in signers]}).encode()
    http.routes[DIRECTORY_PATH] = Reply(200, body, {"Content-Type": MEDIA_TYPE})
    w = WebBotAuth(trusted_agents=[http.base], use_registry=False, allow_http=True,
                   allow_loopback=True, max_bytes=1_000_000)
    d = w.fetch(http.base)
    assert len(d.keys) == MAX_KEYS


def bomb(kind: str) -> bytes:
    """1 GiB of zeros compressed: brotli in one stream; gzip as 1024 members of 1 MiB."""
    import gzip

    import brotli

    chunk = b"\0" * (1 << 20)
    if kind == "br":
        c = brotli.Compressor(quality=1)
        return b"".join([c.process(chunk) for _ in range(1024)] + [c.finish()])
    return gzip.compress(chunk, 9) * 1024


@pytest.fixture(scope="module")
def bombs() -> dict[str, bytes]:
    pytest.importorskip("brotli")
    return {k: bomb(k) for k in ("br", "gzip")}


@pytest.mark.parametrize("kind", ["br", "gzip"])
def test_a_compression_bomb_is_cut_off(http: HttpServer, bombs: dict[str, bytes],
                                       kind: str) -> None:
    # the issue: "a 1 GiB brotli bomb blocked the event loop 8 s"; the draft: "reject
    # responses exceeding a defined byte limit after content decoding"
    import tracemalloc

    http.routes[DIRECTORY_PATH] = Reply(200, bombs[kind], {
        "Content-Type": MEDIA_TYPE, "Content-Encoding": kind})
    w = WebBotAuth(trusted_agents=[http.base], use_registry=False, allow_http=True,
                   allow_loopback=True, timeout=10.0)
    tracemalloc.start()
    start = time.monotonic()
    try:
        d = w.fetch(http.base)
        took = time.monotonic() - start
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert d.error == "over 65536 bytes after decoding"
    assert took < 3.0
    assert peak < 16 * 2**20  # the decoded gigabyte never exists


async def test_a_compression_bomb_does_not_block_the_event_loop(
        http: HttpServer, bombs: dict[str, bytes]) -> None:
    import asyncio

    http.routes[DIRECTORY_PATH] = Reply(200, bombs["br"], {
        "Content-Type": MEDIA_TYPE, "Content-Encoding": "br"})
    w = WebBotAuth(trusted_agents=[http.base], use_registry=False, allow_http=True,
                   allow_loopback=True, timeout=10.0)
    gaps: list[float] = []

    async def ticker() -> None:
        last = time.monotonic()
        while True:
            await asyncio.sleep(0.01)
            now = time.monotonic()
            gaps.append(now - last)
            last = now

    tick = asyncio.create_task(ticker())
    d = await w.afetch(http.base)
    tick.cancel()
    assert d.error == "over 65536 bytes after decoding"
    assert max(gaps, default=0.0) < 1.0


@pytest.mark.parametrize(("reply", "why"), [
    (Reply(200, b"{}" + b" " * 70_000, {"Content-Type": MEDIA_TYPE}), "over 65536 bytes"),
    (Reply(200, b"x" * 1_000_000, {"Content-Type": MEDIA_TYPE}, repeat=50), "over 65536"),
    (Reply(200, b"<html>keys</html>", {"Content-Type": "text/html"}), "content type"),
    (Reply(200, b"not json", {"Content-Type": MEDIA_TYPE}), "not JSON"),
    (Reply(200, b"[" * 100_000, {"Content-Type": MEDIA_TYPE}, ), ""),
    (Reply(200, json.dumps({"keys": "no"}).encode(), {"Content-Type": MEDIA_TYPE}), "JWKS"),
    (Reply(200, json.dumps({"keys": [{"kty": "RSA", "n": "x", "e": "AQAB"}]}).encode(),
           {"Content-Type": MEDIA_TYPE}), "no usable key"),
    (Reply(200, b"x", {"Content-Type": MEDIA_TYPE, "Content-Encoding": "zstd"}), "zstd"),
    (Reply(200, b"not gzip", {"Content-Type": MEDIA_TYPE, "Content-Encoding": "gzip"}),
     "invalid compressed body"),
    (Reply(404, b"gone"), "HTTP 404"),
    (Reply(200, b'{"keys": []}' + b" " * 2000, {"Content-Type": MEDIA_TYPE}, delay=0.3,
           chunks=20), "within 1 s"),
])
def test_hostile_directories_are_unverified_and_bounded(http: HttpServer, reply: Reply,
                                                        why: str) -> None:
    signer = Signer(http.base)
    http.routes[DIRECTORY_PATH] = reply
    # a generous limit for the quick answers (a loaded machine), 1 s for the slow one
    limit = 1.0 if reply.delay else 10.0
    w = WebBotAuth(trusted_agents=[http.base], use_registry=False, allow_http=True,
                   allow_loopback=True, timeout=limit)
    start = time.monotonic()
    d = w.fetch(http.base)
    assert time.monotonic() - start < limit + 2.0
    assert d.error is not None
    assert why in d.error
    r = verify(w, URL, signer.sign(URL))
    assert r.state == "unverified"


async def test_async_fetch_is_bounded(http: HttpServer) -> None:
    signer = Signer(http.base)
    directory(http, signer, delay=0.5, chunks=10)
    w = WebBotAuth(trusted_agents=[http.base], use_registry=False, allow_http=True,
                   allow_loopback=True, timeout=0.5)
    start = time.monotonic()
    d = await w.afetch(http.base)
    assert time.monotonic() - start < 4.0  # cut at its 0.5 s, not after the server's 5 s
    assert d.error is not None
    directory(http, signer)
    w.timeout = 30.0  # the recovery is what is checked now, not the bound (a loaded machine)
    d = await w.afetch(http.base)
    assert d.error is None


@pytest.mark.parametrize("components", [("@authority", '"signature-agent";key="sig1"'),
                                        ("@authority", "signature-agent")])
def test_signature_agent_as_a_dictionary(components: tuple[str, ...]) -> None:
    # draft-ietf-webbotauth-httpsig-protocol: Signature-Agent as a Dictionary keyed by the
    # signature's label, covered as a member ("signature-agent";key="sig1") or whole
    signer = Signer("https://agent.example")
    w = WebBotAuth(use_registry=False, authorities=[SITE])
    w.add_keys("https://agent.example", signer.jwks())
    headers = signer.sign(URL, components=components,
                          agent_header='sig1="https://agent.example"')
    r = verify(w, URL, headers)
    assert r.state == "verified"
    assert r.agent == "https://agent.example"


def test_pinned_keys_never_expire() -> None:
    signer = Signer("https://agent.example")
    w = WebBotAuth(use_registry=False)
    w.add_keys("https://agent.example", signer.jwks())
    d = w.directory("https://agent.example")
    assert d is not None
    assert d.expires == math.inf


def test_the_rfc_key_signs_anything_so_it_proves_nothing() -> None:
    # the RFC 9421 B.1.4 private key is published: anyone makes a valid signature with it
    # for any agent; a production verifier says invalid, whatever directory served the key
    forger = rfc_signer("https://agent.example")
    h = forger.sign(URL)
    w = WebBotAuth(use_registry=False, authorities=[SITE])
    r = verify(w, URL, h)
    assert r.keyid == RFC_KID
    assert r.state in ("unverified", "invalid")
    w2 = WebBotAuth(use_registry=False, authorities=[SITE], trusted_agents=[
        "https://agent.example"])
    assert verify(w2, URL, h).state == "invalid"


def same_fields(h: dict[str, str], good: dict[str, str]) -> bool:
    """The three fields parse to the same Structured Field values."""
    from robotrules._sf import parse_dictionary, parse_item

    def value(text: str) -> object:
        item = parse_item(text)
        return item if item is not None else parse_dictionary(text).members

    return all(value(h[k]) == value(good[k]) for k in good)


def test_random_tampering_never_verifies() -> None:
    # an attacker's edits to a genuine signed request, 1,200 of them from a fixed seed: a
    # changed signature byte, covered parameter, covered component list, Signature-Agent,
    # authority, or bytes spliced into any of the three fields; RFC 9421 3.2: the signature
    # base covers all of these, so none may verify, and none may raise
    import random

    rng = random.Random(9421)
    a, _b, w = two_agents()
    b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

    def signature(h: dict[str, str]) -> dict[str, str]:
        value = h["Signature"]
        start = value.index(":") + 1
        i = rng.randrange(start, start + 84)  # 64 bytes: 86 characters, the last carries pad
        c = rng.choice([x for x in b64 if x != value[i]])
        return {**h, "Signature": value[:i] + c + value[i + 1:]}

    def parameter(h: dict[str, str]) -> dict[str, str]:
        si = h["Signature-Input"]
        for name in rng.sample(["created=", "expires=", 'nonce="', 'keyid="'], 4):
            at = si.find(name)
            if at >= 0:
                i = at + len(name) + rng.randrange(0, 6)
                c = "1" if si[i] != "1" else "2"
                return {**h, "Signature-Input": si[:i] + c + si[i + 1:]}
        raise AssertionError(si)

    def components(h: dict[str, str]) -> dict[str, str]:
        si = h["Signature-Input"]
        extra = rng.choice(['"@method"', '"@path"', '"user-agent"', '"@query"'])
        return {**h, "Signature-Input": si.replace("(", f"({extra} ", 1)}

    def agent(h: dict[str, str]) -> dict[str, str]:
        return {**h, "Signature-Agent": '"https://agent-b.example"'}

    def splice(h: dict[str, str]) -> dict[str, str]:
        name = rng.choice(["Signature", "Signature-Input", "Signature-Agent"])
        v = h[name]
        i = rng.randrange(0, len(v) + 1)
        junk = "".join(rng.choice(';,=:"() \\x\t') for _ in range(rng.randrange(1, 4)))
        return {**h, name: v[:i] + junk + v[i:]}

    kinds = {"signature": signature, "parameter": parameter, "components": components,
             "agent": agent, "splice": splice, "authority": lambda h: h}
    counts = dict.fromkeys(kinds, 0)
    for n in range(1200):
        kind = list(kinds)[n % len(kinds)]
        good = a.sign(URL)
        h = kinds[kind](good)
        url = URL if kind != "authority" else rng.choice([
            "https://attacker.example/page", f"https://{SITE}.evil.example/page",
            f"https://{SITE}:8443/page", f"http://{SITE}:443/page"])
        if url == URL and same_fields(h, good):
            continue  # white space RFC 9651 allows (";  nonce"): the same field values

        r = verify(w, url, h)
        assert r.state != "verified", (kind, h, url)
        assert r.state in ("invalid", "unverified"), r
        counts[kind] += 1
    assert min(counts.values()) >= 150, counts
    assert verify(w, URL, a.sign(URL)).state == "verified"  # the untouched request still does


async def test_async_fetch_refuses_private_addresses(http: HttpServer) -> None:
    # the same address guard on the asyncio path (production settings)
    signer = Signer(http.base)
    directory(http, signer)
    w = WebBotAuth(trusted_agents=[http.base], use_registry=False, allow_http=True)
    d = await w.afetch(http.base)
    assert d.error is not None
    assert d.error.startswith("refused: 127.0.0.1 is a loopback address")
    assert http.hits.get(DIRECTORY_PATH) is None


def test_a_cross_site_signature_costs_no_fetch(
        agent: tuple[HttpServer, Signer, WebBotAuth]) -> None:
    # decided before any key is needed: a replay from another site never makes the guard
    # fetch a directory (the draft: bound what untrusted requests make a verifier fetch)
    http, signer, w = agent
    r = verify(w, "https://attacker.example/", signer.sign("https://attacker.example/"))
    assert r is not None
    assert r.state == "invalid"
    assert http.hits.get(DIRECTORY_PATH) is None


def test_draft_signed_directory_response() -> None:
    # the draft's "Signed Directory Response": the directory signs its own response over
    # @authority (of the request that fetched it) and Content-Digest; the library checks it,
    # and the same proof fails for the key set re-served under another authority or changed
    from http_message_signatures import InvalidSignature

    from robotrules.guard.webbotauth import _Headers, keys_from_jwks

    v = VECTORS["draft_directory_response"]
    keyid = KEYS[v["key"]]["thumbprint"]

    class Request:
        def __init__(self, url: str) -> None:
            self.method = v["request"]["method"]
            self.url = url
            self.headers = _Headers([tuple(h) for h in v["request"]["headers"]])

    class Response:
        status_code = 200

        def __init__(self, url: str) -> None:
            self.request = Request(url)
            self.headers = _Headers([tuple(h) for h in v["headers"]])

    verifier = library_verifier(v["key"], keyid)
    body = v["body"].encode()
    url = v["request"]["url"]
    (out,) = verifier.verify(Response(url), max_age=None, expect_tag=v["tag"], body=body)
    assert out.label == v["label"]
    with pytest.raises(InvalidSignature):
        verifier.verify(Response(url.replace("signature-agent.test", "mirror.example")),
                        max_age=None, expect_tag=v["tag"], body=body)
    with pytest.raises(InvalidSignature):
        verifier.verify(Response(url), max_age=None, expect_tag=v["tag"],
                        body=body.replace(b'"use":"sig"', b'"use":"enc"'))
    # the key set itself: the RFC 9421 B.1.4 key, refused in production
    assert list(keys_from_jwks(body)[0]) == [KEYS[v["key"]]["thumbprint"]]
    assert keys_from_jwks(body, allow_test_keys=False) == ({}, 1)
