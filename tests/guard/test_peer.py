"""The client address (robotrules.guard.peer): forwarding headers only from trusted proxies,
read strictly (RFC 7239 for Forwarded; X-Forwarded-For as proxies write it)."""

from __future__ import annotations

import pytest

from robotrules.guard.peer import TrustedProxies

PROXIES = TrustedProxies(["10.0.0.0/8", "::1"])


def test_untrusted_peer_headers_are_ignored() -> None:
    # a client that writes X-Forwarded-For itself gets its own address back
    c = PROXIES.client("203.0.113.5", {"x-forwarded-for": "66.249.66.1"})
    assert (c.ip, c.via) == ("203.0.113.5", "peer")
    assert TrustedProxies().client("10.0.0.1", {"x-forwarded-for": "66.249.66.1"}).ip \
        == "10.0.0.1"


def test_rightmost_untrusted_hop_is_the_client() -> None:
    # the client can prepend anything; only what our proxies appended counts
    c = PROXIES.client("10.0.0.2", {"x-forwarded-for": "66.249.66.1, 198.51.100.7, 10.0.0.9"})
    assert (c.ip, c.via) == ("198.51.100.7", "x-forwarded-for")


@pytest.mark.parametrize(("value", "ip"), [
    ("for=192.0.2.60;proto=http;by=203.0.113.43", "192.0.2.60"),
    ('for="[2001:db8:cafe::17]:4711"', "2001:db8:cafe::17"),
    ('for="192.0.2.43:47011", for=10.1.2.3', "192.0.2.43"),
    ("For=192.0.2.43", "192.0.2.43"),
])
def test_forwarded_rfc7239_examples(value: str, ip: str) -> None:
    # RFC 7239 section 4 and 6 examples
    assert PROXIES.client("10.0.0.2", {"forwarded": value}).ip == ip


@pytest.mark.parametrize("value", [
    "for=unknown", "for=_hidden", "for=[2001:db8::1]", "for=192.0.2.43:80",
    "for", "garbage;;==", "for=192.0.2.1" + ", x" * 2000,
])
def test_forwarded_strict(value: str) -> None:
    # an element that is not an address (obfuscated, unquoted v6 or port, junk, oversized)
    # stops the walk at the proxy: never an address the request made up
    c = PROXIES.client("10.0.0.2", {"forwarded": value})
    assert c.ip == "10.0.0.2"
    assert c.note is not None


@pytest.mark.parametrize("value", ["", "1.2.3.4,,5.6.7.8", "not-an-ip", "1.2.3.4 " * 1000])
def test_xff_strict(value: str) -> None:
    assert PROXIES.client("10.0.0.2", {"x-forwarded-for": value}).ip == "10.0.0.2"


def test_forwarded_wins_over_xff_and_all_trusted_chain() -> None:
    h = {"forwarded": "for=192.0.2.1", "x-forwarded-for": "198.51.100.1"}
    assert PROXIES.client("10.0.0.2", h).ip == "192.0.2.1"
    assert PROXIES.client("10.0.0.2", {"x-forwarded-for": "10.0.0.3, 10.0.0.4"}).ip \
        == "10.0.0.3"


def test_no_peer() -> None:
    assert PROXIES.client(None, {}).ip is None
    assert PROXIES.client("garbage", {}).ip is None
