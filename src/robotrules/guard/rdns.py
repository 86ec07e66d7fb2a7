"""Forward-confirmed reverse DNS: does this address's host name end in the operator's domain,
and does that name resolve back to the same address?

The method operators document (Google: "run a reverse DNS lookup ... verify that the domain
name is either googlebot.com, google.com ... run a forward DNS lookup on the domain name ...
verify that it's the same as the original accessed IP address"; Bing: ``search.msn.com``).
Answers: ``verified`` (a PTR name under a suffix resolves back to the address), ``spoofed``
(evidence: the address has no PTR name, its names are outside the operator's domains, or the
name does not resolve back to it), ``unverifiable`` (the look-up failed or timed out: no
evidence either way). Each look-up is bounded by ``timeout`` seconds in all (dnspython's
``lifetime``); answers are cached (positive ``ttl``, negative and failed ``fail_ttl``) in a
bounded map.
"""

from __future__ import annotations

import ipaddress
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = ["RdnsResult", "ReverseDns"]

RdnsState = Literal["verified", "spoofed", "unverifiable"]


@dataclass(frozen=True, slots=True)
class RdnsResult:
    state: RdnsState
    host: str | None
    detail: str


def under(host: str, suffixes: Sequence[str]) -> bool:
    """``host`` is one of ``suffixes`` or a name below one (label-wise, not a string suffix:
    ``evilgooglebot.com`` is not under ``googlebot.com``)."""
    h = host.lower().rstrip(".")
    return any(h == s or h.endswith("." + s) for s in suffixes)


class ReverseDns:
    """FCrDNS checks with a cache. ``nameservers``/``port`` point the resolver at given servers
    (the tests run one on 127.0.0.1); by default the system's resolver configuration is used."""

    def __init__(self, *, nameservers: Sequence[str] | None = None, port: int = 53,
                 timeout: float = 1.0, ttl: float = 3600.0, fail_ttl: float = 300.0,
                 max_entries: int = 100_000) -> None:
        import dns.resolver

        if nameservers:
            self._resolver = dns.resolver.Resolver(configure=False)
            self._resolver.nameservers = list(nameservers)
            self._resolver.port = port
        else:
            self._resolver = dns.resolver.Resolver()
        self._resolver.lifetime = timeout
        self._resolver.timeout = timeout
        self.timeout = timeout
        self.ttl = ttl
        self.fail_ttl = fail_ttl
        self.max_entries = max_entries
        self._cache: OrderedDict[tuple[str, tuple[str, ...]], tuple[float, RdnsResult]] = \
            OrderedDict()
        self._lock = threading.Lock()

    def cached(self, ip: str, suffixes: Sequence[str], now: float | None = None
               ) -> RdnsResult | None:
        """The cached answer, if any and not expired (no I/O)."""
        key = (ip, tuple(suffixes))
        hit = self._cache.get(key)
        if hit is None:
            return None
        if hit[0] < (time.monotonic() if now is None else now):
            with self._lock:
                self._cache.pop(key, None)
            return None
        return hit[1]

    def check(self, ip: str, suffixes: Sequence[str]) -> RdnsResult:
        """Look ``ip`` up (bounded by the timeout) and cache the answer."""
        hit = self.cached(ip, suffixes)
        if hit is not None:
            return hit
        result = self._lookup(ip, tuple(suffixes))
        life = self.ttl if result.state == "verified" else self.fail_ttl
        with self._lock:
            self._cache[(ip, tuple(suffixes))] = (time.monotonic() + life, result)
            while len(self._cache) > self.max_entries:
                self._cache.popitem(last=False)
        return result

    def _lookup(self, ip: str, suffixes: tuple[str, ...]) -> RdnsResult:
        import dns.exception
        import dns.resolver
        import dns.reversename

        try:
            addr = ipaddress.ip_address(ip)
        except ValueError:
            return RdnsResult("unverifiable", None, f"not an IP address: {ip!r}")
        deadline = time.monotonic() + self.timeout
        try:
            answer = self._resolver.resolve(dns.reversename.from_address(str(addr)), "PTR",
                                            lifetime=self.timeout)
        except dns.resolver.NXDOMAIN:
            return RdnsResult("spoofed", None, f"{addr} has no reverse DNS name")
        except dns.resolver.NoAnswer:
            return RdnsResult("spoofed", None, f"{addr} has no PTR record")
        except (dns.exception.DNSException, OSError) as exc:
            return RdnsResult("unverifiable", None,
                              f"reverse look-up of {addr} failed: {type(exc).__name__}")
        names = [r.to_text().rstrip(".").lower() for r in answer][:8]
        ours = [n for n in names if under(n, suffixes)]
        if not ours:
            return RdnsResult("spoofed", names[0] if names else None,
                              f"{addr} is {', '.join(names)}, not under "
                              f"{', '.join(suffixes)}")
        rtype = "A" if addr.version == 4 else "AAAA"
        for name in ours:
            left = deadline - time.monotonic()
            if left <= 0:
                return RdnsResult("unverifiable", name, "forward look-up: out of time")
            try:
                fwd = self._resolver.resolve(name, rtype, lifetime=left)
            except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
                continue
            except (dns.exception.DNSException, OSError) as exc:
                return RdnsResult("unverifiable", name,
                                  f"forward look-up of {name} failed: {type(exc).__name__}")
            if any(ipaddress.ip_address(r.to_text()) == addr for r in fwd):
                return RdnsResult("verified", name, f"{addr} is {name}, which resolves back")
        return RdnsResult("spoofed", ours[0],
                          f"{ours[0]} does not resolve back to {addr} (not forward-confirmed)")
