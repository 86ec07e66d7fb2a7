"""Which addresses fetch-by-URL may reach.

The tester runs on a person's machine, so a URL typed into it (or pasted by a page that
tricks them) must not become a way to read their router, their cloud metadata service or
another local server. Unless ``serve`` was started with ``--allow-private``, a host is
refused when *any* address it resolves to is not globally routable: loopback, private,
link-local, shared (CGNAT), reserved, unspecified or multicast. IPv4-mapped IPv6 addresses
are judged as the IPv4 address they carry.

Residual risk, stated: the fetch client resolves the name again when it connects (a DNS
rebinding window between the two look-ups), and it follows redirects. The app therefore checks
the final URL after the fetch too and withholds the body when that host is refused; a blind
``GET /robots.txt`` to a private address through a rebinding name or a redirect stays possible.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable

__all__ = ["Resolver", "refusal", "resolve", "unsafe_address"]

Resolver = Callable[[str, int], Iterable[str]]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (blocking: call it from a worker thread)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def unsafe_address(address: str) -> str | None:
    """Why ``address`` is not a public unicast address, or ``None`` when it is one."""
    try:
        ip: IPAddress = ipaddress.ip_address(address.split("%", 1)[0])  # drop an IPv6 zone
    except ValueError:
        return "is not an IP address"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    checks = (  # most specific name first: 0.0.0.0 and 240/4 are also "private" to Python
        ("unspecified", ip.is_unspecified),
        ("loopback", ip.is_loopback),
        ("link-local", ip.is_link_local),
        ("multicast", ip.is_multicast),
        ("reserved", ip.is_reserved),
        ("private", ip.is_private),
    )
    for name, hit in checks:
        if hit:
            return f"is a {name} address"
    if not ip.is_global:  # e.g. 100.64.0.0/10 (shared address space)
        return "is not a globally routable address"
    return None


def refusal(
    host: str, port: int, *, allow_private: bool, resolver: Resolver = resolve
) -> str | None:
    """Why fetching from ``host`` is refused, or ``None`` when it may go ahead."""
    if allow_private:
        return None
    try:
        addresses = list(resolver(host.strip("[]"), port))
    except (OSError, UnicodeError) as exc:
        return f"cannot resolve {host}: {exc}"
    if not addresses:
        return f"cannot resolve {host}"
    for address in addresses:
        why = unsafe_address(address)
        if why is not None:
            return (
                f"{host} resolves to {address}, which {why}; start the server with "
                "--allow-private to fetch from local and private networks"
            )
    return None
