"""The client address (robotrules.guard.peer): one forwarding header, the operator's, only from
trusted proxies, walked from the right (RFC 7239 for Forwarded; X-Forwarded-For and X-Real-IP
as nginx writes them: ``$proxy_add_x_forwarded_for`` appends the peer, ``X-Real-IP
$remote_addr`` is the peer), IPv4-mapped addresses unmapped (RFC 4291 2.5.5.2), and "cannot be
determined" when the proxies' own part of the header is not addresses (issue 35)."""

from __future__ import annotations

import pytest

from robotrules.guard.peer import MAX_HEADER, MAX_HOPS, TrustedProxies, parse_ip

XFF = TrustedProxies(["10.0.0.0/8", "::1"])
FWD = TrustedProxies(["10.0.0.0/8", "::1"], "forwarded")
REAL = TrustedProxies(["10.0.0.0/8"], "x-real-ip")


def test_untrusted_peer_headers_are_ignored() -> None:
    # a client that writes X-Forwarded-For itself gets its own address back
    c = XFF.client("203.0.113.5", {"x-forwarded-for": "66.249.66.1"})
    assert (c.ip, c.via, c.determined) == ("203.0.113.5", "peer", True)
    assert TrustedProxies().client("10.0.0.1", {"x-forwarded-for": "66.249.66.1"}).ip \
        == "10.0.0.1"


def test_rightmost_untrusted_hop_is_the_client() -> None:
    # the client can prepend anything; only what our proxies appended counts
    c = XFF.client("10.0.0.2", {"x-forwarded-for": "66.249.66.1, 198.51.100.7, 10.0.0.9"})
    assert (c.ip, c.via) == ("198.51.100.7", "x-forwarded-for")


def test_only_the_named_header_is_read() -> None:
    # issue 35: behind a proxy that writes X-Forwarded-For, a client's own
    # "Forwarded: for=66.249.66.1" made a spoofer a verified Googlebot
    h = {"forwarded": "for=66.249.66.1", "x-forwarded-for": "198.51.100.1"}
    assert XFF.client("10.0.0.2", h).ip == "198.51.100.1"
    assert FWD.client("10.0.0.2", {"x-forwarded-for": "66.249.66.1"}).determined is False
    with pytest.raises(ValueError, match="forwarded_header"):
        TrustedProxies(["10.0.0.0/8"], "x-client-ip")  # type: ignore[arg-type]


@pytest.mark.parametrize(("value", "ip"), [
    ("for=192.0.2.60;proto=http;by=203.0.113.43", "192.0.2.60"),
    ('for="[2001:db8:cafe::17]:4711"', "2001:db8:cafe::17"),
    ('for="192.0.2.43:47011", for=10.1.2.3', "192.0.2.43"),
    ("For=192.0.2.43", "192.0.2.43"),
    ('for=unknown, for="198.51.100.17"', "198.51.100.17"),  # left of the client: not read
])
def test_forwarded_rfc7239_examples(value: str, ip: str) -> None:
    # RFC 7239 section 4 and 6 examples
    assert FWD.client("10.0.0.2", {"forwarded": value}).ip == ip


@pytest.mark.parametrize(("value", "ip"), [
    ("66.249.66.1:4711", "66.249.66.1"),  # addr:port (Azure, IIS ARR write it)
    ("[2001:db8::1]:4711", "2001:db8::1"),
    ("[2001:db8::1]", "2001:db8::1"),
    ("2001:db8::1", "2001:db8::1"),
    ("::ffff:66.249.66.1", "66.249.66.1"),  # IPv4-mapped, unmapped
    ("garbage, ,unknown, 66.249.66.1", "66.249.66.1"),  # the client's own words: not read
])
def test_xff_elements(value: str, ip: str) -> None:
    assert XFF.client("10.0.0.2", {"x-forwarded-for": value}).ip == ip


@pytest.mark.parametrize(("headers", "why"), [
    ({}, "missing"),
    ({"x-forwarded-for": ""}, "empty"),
    ({"x-forwarded-for": " , "}, "not an address"),
    ({"x-forwarded-for": "66.249.66.1, unknown"}, "not an address"),
    ({"x-forwarded-for": "66.249.66.1," + " " * MAX_HEADER + "10.0.0.3"}, "over"),
    ({"x-forwarded-for": ", ".join(["10.0.0.3"] * (MAX_HOPS + 1))}, "trusted hops"),
    ({"x-forwarded-for": "66.249.66.1:http"}, "not an address"),
])
def test_xff_cannot_be_determined(headers: dict[str, str], why: str) -> None:
    # issue 35: "X-Forwarded-For: ,", 4 KB of padding, "for=unknown" made the proxy the
    # client ("unverifiable"); now the client is unknown and the core is strict
    c = XFF.client("10.0.0.2", headers)
    assert c.ip is None
    assert c.determined is False
    assert c.note is not None
    assert why in c.note


@pytest.mark.parametrize("value", [
    "for=unknown", "for=_hidden", "for", "garbage;;==", "by=10.0.0.1",
    "for=192.0.2.1;for=192.0.2.2", "for=192.0.2.1" + ", x" * 2000,
])
def test_forwarded_cannot_be_determined(value: str) -> None:
    # RFC 7239 6.2/6.3: "unknown" and obfuscated identifiers are not addresses
    c = FWD.client("10.0.0.2", {"forwarded": value})
    assert (c.ip, c.determined) == (None, False)


def test_x_real_ip() -> None:
    assert REAL.client("10.0.0.2", {"x-real-ip": "66.249.66.1"}).ip == "66.249.66.1"
    assert REAL.client("10.0.0.2", {"x-real-ip": "66.249.66.1, 1.2.3.4"}).determined is False
    assert REAL.client("10.0.0.2", {"x-forwarded-for": "66.249.66.1"}).determined is False


def test_ipv4_mapped_peer_and_proxies() -> None:
    # issue 35: a dual-stack listener reports "::ffff:66.249.66.1" for an IPv4 client; the
    # real Googlebot was called spoofed, and mapped internal proxies counted as public
    assert parse_ip("::ffff:66.249.66.1") == parse_ip("66.249.66.1")
    c = XFF.client("::ffff:66.249.66.1", {})
    assert (c.ip, c.via) == ("66.249.66.1", "peer")
    via = XFF.client("::ffff:10.0.0.2", {"x-forwarded-for": "66.249.66.1"})
    assert (via.ip, via.via) == ("66.249.66.1", "x-forwarded-for")
    mapped_list = TrustedProxies(["::ffff:10.0.0.0/104"])
    assert mapped_list.client("10.1.1.1", {"x-forwarded-for": "66.249.66.1"}).ip \
        == "66.249.66.1"
    hop = XFF.client("10.0.0.2", {"x-forwarded-for": "66.249.66.1, ::ffff:10.0.0.7"})
    assert hop.ip == "66.249.66.1"


def test_all_trusted_chain_is_the_leftmost() -> None:
    assert XFF.client("10.0.0.2", {"x-forwarded-for": "10.0.0.3, 10.0.0.4"}).ip == "10.0.0.3"


def test_no_peer() -> None:
    assert XFF.client(None, {}).ip is None
    assert XFF.client("garbage", {}).ip is None
