"""Forward-confirmed reverse DNS (robotrules.guard.rdns) against a real DNS server on
127.0.0.1 (dnslib). The method is Google's "Verifying Googlebot": a reverse look-up whose name
is under googlebot.com / google.com, then a forward look-up that gives the same address back.
"""

from __future__ import annotations

import time

import pytest

from .conftest import DnsServer

pytest.importorskip("dns")

from robotrules.guard.rdns import ReverseDns, under

GOOGLE = ("googlebot.com", "google.com")


def resolver(dns: DnsServer, timeout: float = 1.0) -> ReverseDns:
    return ReverseDns(nameservers=["127.0.0.1"], port=dns.port, timeout=timeout)


def test_verified_when_the_name_is_under_the_domain_and_resolves_back(
        dns_server: DnsServer) -> None:
    dns_server.ptr("66.249.66.1", "crawl-66-249-66-1.googlebot.com")
    dns_server.a("crawl-66-249-66-1.googlebot.com", "66.249.66.1")
    r = resolver(dns_server).check("66.249.66.1", GOOGLE)
    assert r.state == "verified"
    assert r.host == "crawl-66-249-66-1.googlebot.com"


def test_ipv6(dns_server: DnsServer) -> None:
    dns_server.ptr("2001:4860:4801:10::1", "crawl-1.googlebot.com")
    dns_server.a("crawl-1.googlebot.com", "2001:4860:4801:10::1")
    assert resolver(dns_server).check("2001:4860:4801:10::1", GOOGLE).state == "verified"


def test_spoofed_when_the_name_is_elsewhere(dns_server: DnsServer) -> None:
    # Google: "verify that the domain name is either googlebot.com, google.com ..."
    dns_server.ptr("198.51.100.7", "host7.example.net")
    dns_server.a("host7.example.net", "198.51.100.7")
    r = resolver(dns_server).check("198.51.100.7", GOOGLE)
    assert r.state == "spoofed"
    assert "not under" in r.detail


def test_a_look_alike_suffix_is_not_the_domain(dns_server: DnsServer) -> None:
    dns_server.ptr("198.51.100.8", "crawl.evilgooglebot.com")
    dns_server.a("crawl.evilgooglebot.com", "198.51.100.8")
    assert resolver(dns_server).check("198.51.100.8", GOOGLE).state == "spoofed"
    assert not under("crawl.evilgooglebot.com", GOOGLE)
    assert under("googlebot.com.", GOOGLE)


def test_spoofed_when_the_name_does_not_resolve_back(dns_server: DnsServer) -> None:
    # a PTR record is the address owner's to write: "crawl.googlebot.com" on any address is
    # caught by the forward look-up ("verify that it's the same as the original IP address")
    dns_server.ptr("198.51.100.9", "crawl-x.googlebot.com")
    dns_server.a("crawl-x.googlebot.com", "66.249.66.2")
    r = resolver(dns_server).check("198.51.100.9", GOOGLE)
    assert r.state == "spoofed"
    assert "does not resolve back" in r.detail


def test_no_reverse_name_is_evidence(dns_server: DnsServer) -> None:
    assert resolver(dns_server).check("203.0.113.1", GOOGLE).state == "spoofed"


def test_a_dead_server_is_unverifiable_and_bounded(dns_server: DnsServer) -> None:
    dns_server.silent = True
    r = resolver(dns_server, timeout=0.3)
    start = time.monotonic()
    result = r.check("66.249.66.1", GOOGLE)
    assert result.state == "unverifiable"
    assert time.monotonic() - start < 2.0


def test_answers_are_cached(dns_server: DnsServer) -> None:
    dns_server.ptr("66.249.66.3", "crawl-3.googlebot.com")
    dns_server.a("crawl-3.googlebot.com", "66.249.66.3")
    r = resolver(dns_server)
    assert r.cached("66.249.66.3", GOOGLE) is None
    r.check("66.249.66.3", GOOGLE)
    n = len(dns_server.queries)
    assert r.check("66.249.66.3", GOOGLE).state == "verified"
    assert len(dns_server.queries) == n
    hit = r.cached("66.249.66.3", GOOGLE)
    assert hit is not None
    assert hit.state == "verified"
    # past its lifetime the entry is gone
    assert r.cached("66.249.66.3", GOOGLE, now=time.monotonic() + 10 * r.ttl) is None


def test_not_an_address() -> None:
    r = ReverseDns(nameservers=["127.0.0.1"], port=9, timeout=0.2)
    assert r.check("not-an-ip", GOOGLE).state == "unverifiable"
