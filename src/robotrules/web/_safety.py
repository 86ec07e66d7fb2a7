"""Which addresses fetch-by-URL may reach, and the one IDNA spelling of a host name.

The tester runs on a person's machine, so a URL typed into it (or pasted by a page that
tricks them) must not become a way to read their router, their cloud metadata service or
another local server. Unless ``serve`` was started with ``--allow-private``, a host is
refused when *any* address it resolves to is not a public unicast address.

The address policy is a table, not Python's ``ipaddress.is_global`` (whose lists change from
one Python release to the next: 3.11 calls ``fec0::1``, ``2002:7f00:1::1`` and
``192.0.0.192`` global). Sources:

- IANA IPv4 Special-Purpose Address Registry and IANA IPv6 Special-Purpose Address Registry
  (RFC 6890, updated by RFC 8190): every block whose "Globally Reachable" is False is refused;
  so are the blocks below whose reachability depends on a relay or translator.
- IPv4: multicast 224.0.0.0/4 (RFC 5771) and the 6to4 relay anycast 192.88.99.0/24
  (deprecated by RFC 7526) are refused too; 192.0.0.0/24 is refused whole (its two anycast
  exceptions are service addresses, never a robots.txt origin).
- IPv6: only the global unicast space 2000::/3 (RFC 4291 2.4) is accepted, minus Teredo
  2001::/32 (RFC 4380: the client address is reached through a relay; refused whole), the
  rest of 2001::/23 (RFC 2928), documentation 2001:db8::/32 (RFC 3849) and 3fff::/20
  (RFC 9637). That also refuses site-local fec0::/10 (deprecated, RFC 3879), unique local
  fc00::/7 (RFC 4193), link-local fe80::/10, multicast ff00::/8, discard 100::/64 (RFC 6666),
  SRv6 SIDs 5f00::/16 (RFC 9602), the local-use NAT64 prefix 64:ff9b:1::/48 (RFC 8215) and
  the deprecated IPv4-compatible ::/96 and IPv4-translated ::ffff:0:0:0/96 forms.
- Addresses that carry an IPv4 address are judged by it: IPv4-mapped ::ffff:0:0/96
  (RFC 4291 2.5.5.2), NAT64's well-known prefix 64:ff9b::/96 (RFC 6052 2.1; a translator
  forwards to the embedded IPv4) and 6to4 2002::/16 (RFC 3056 2; a relay forwards to the
  embedded IPv4): ``2002:7f00:1::1`` is loopback.

Host names are turned into ASCII once, by :func:`ascii_host` (the ``idna`` package, IDNA 2008
with UTS 46 mapping, as httpx does), and the name that was checked is the name resolved and
the addresses resolved are the addresses connected to (see :mod:`robotrules.web._pinned`):
Python's built-in ``"idna"`` codec is IDNA 2003 (``faß`` becomes ``fass``, a different name)
and is never used.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable

from robotrules import _origin

__all__ = ["FetchRefused", "Resolver", "ascii_host", "checked_addresses", "refusal", "resolve",
           "unsafe_address"]

Resolver = Callable[[str, int], Iterable[str]]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class FetchRefused(Exception):
    """The URL is not one the tester may fetch: ``status`` 400 (not a web URL) or 403."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _nets(*pairs: tuple[str, str]) -> tuple[tuple[ipaddress.IPv4Network
                                                    | ipaddress.IPv6Network, str], ...]:
    return tuple((ipaddress.ip_network(net), name) for net, name in pairs)


# Most specific first: the first hit names the reason.
_REFUSED_V4 = _nets(
    ("0.0.0.0/32", "an unspecified address"),
    ("0.0.0.0/8", "a 'this network' address (RFC 791)"),
    ("10.0.0.0/8", "a private address (RFC 1918)"),
    ("100.64.0.0/10", "a shared (CGNAT) address (RFC 6598), not globally routable"),
    ("127.0.0.0/8", "a loopback address"),
    ("169.254.0.0/16", "a link-local address (RFC 3927)"),
    ("172.16.0.0/12", "a private address (RFC 1918)"),
    ("192.0.0.0/24", "an IETF protocol assignment (RFC 6890), not globally routable"),
    ("192.0.2.0/24", "a documentation address (RFC 5737)"),
    ("192.88.99.0/24", "the deprecated 6to4 relay anycast (RFC 7526)"),
    ("192.168.0.0/16", "a private address (RFC 1918)"),
    ("198.18.0.0/15", "a benchmarking address (RFC 2544), not globally routable"),
    ("198.51.100.0/24", "a documentation address (RFC 5737)"),
    ("203.0.113.0/24", "a documentation address (RFC 5737)"),
    ("224.0.0.0/4", "a multicast address"),
    ("255.255.255.255/32", "the broadcast address"),
    ("240.0.0.0/4", "a reserved address (RFC 1112)"),
)
_REFUSED_V6 = _nets(
    ("::/128", "an unspecified address"),
    ("::1/128", "a loopback address"),
    ("2001::/32", "a Teredo address (RFC 4380), reached through a relay"),
    ("2001:db8::/32", "a documentation address (RFC 3849)"),
    ("2001::/23", "an IETF protocol assignment (RFC 2928), not globally routable"),
    ("3fff::/20", "a documentation address (RFC 9637)"),
    ("fec0::/10", "a site-local address (deprecated, RFC 3879)"),
    ("fc00::/7", "a private (unique local) address (RFC 4193)"),
    ("fe80::/10", "a link-local address"),
    ("ff00::/8", "a multicast address"),
    ("64:ff9b:1::/48", "a local-use NAT64 address (RFC 8215)"),
    ("100::/64", "a discard-only address (RFC 6666)"),
    ("5f00::/16", "an SRv6 SID (RFC 9602), not globally routable"),
    ("::/96", "a deprecated IPv4-compatible address (RFC 4291 2.5.5.1)"),
    ("::ffff:0:0:0/96", "a deprecated IPv4-translated address (RFC 2765)"),
)
_GLOBAL_UNICAST_V6 = ipaddress.IPv6Network("2000::/3")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


def ascii_host(host: str) -> str:
    """``host`` in ASCII by the package's one IDNA codec (:func:`robotrules._origin.ascii_host`,
    IDNA 2008 + UTS 46, as httpx); IP literals pass through. :class:`FetchRefused` (400) when
    the name is not a valid IDNA name."""
    try:
        return _origin.ascii_host(host)
    except ValueError as exc:
        raise FetchRefused(400, f"{host!r} is not a valid domain name: {exc}") from None


def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` (ASCII) resolves to (blocking: call it from a worker thread)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def unsafe_address(address: str) -> str | None:
    """Why ``address`` is not a public unicast address, or ``None`` when it is one."""
    try:
        ip: IPAddress = ipaddress.ip_address(address.split("%", 1)[0])  # drop an IPv6 zone
    except ValueError:
        return "is not an IP address"
    if isinstance(ip, ipaddress.IPv6Address):
        embedded: ipaddress.IPv4Address | None = None
        form = ""
        if ip.ipv4_mapped is not None:
            embedded, form = ip.ipv4_mapped, "an IPv4-mapped"
        elif ip in _NAT64:
            embedded, form = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF), "a NAT64"
        elif ip.sixtofour is not None:
            embedded, form = ip.sixtofour, "a 6to4"
        if embedded is not None:
            why = _refused_v4(embedded)
            return None if why is None else f"is {form} address for {embedded}, {why}"
        for net, name in _REFUSED_V6:
            if ip in net:
                return f"is {name}"
        if ip not in _GLOBAL_UNICAST_V6:
            return "is outside the global unicast range 2000::/3 (RFC 4291 2.4)"
        return None
    why = _refused_v4(ip)
    return None if why is None else f"is {why}"


def _refused_v4(ip: ipaddress.IPv4Address) -> str | None:
    for net, name in _REFUSED_V4:
        if ip in net:
            return name
    return None


def checked_addresses(
    host: str, port: int, *, allow_private: bool, resolver: Resolver = resolve
) -> list[str]:
    """Resolve ``host`` (ASCII, or an IP literal) once; every address, all of them allowed.

    Raises :class:`FetchRefused` (403) naming the first refused address, or (502) when the
    name does not resolve. The caller connects to exactly these addresses.
    """
    name = host.strip("[]")
    literal = True
    try:
        ipaddress.ip_address(name.split("%", 1)[0])
        addresses = [name]  # a literal: nothing to resolve
    except ValueError:
        literal = False
        try:
            addresses = list(dict.fromkeys(resolver(name, port)))
        except (OSError, UnicodeError) as exc:
            raise FetchRefused(502, f"cannot resolve {host}: {exc}") from None
    if not addresses:
        raise FetchRefused(502, f"cannot resolve {host}")
    if not allow_private:
        for address in addresses:
            why = unsafe_address(address)
            if why is not None:
                what = f"{host} {why}" if literal else (
                    f"{host} resolves to {address}, which {why}")
                raise FetchRefused(403, f"{what}; start the server with --allow-private to "
                                   "fetch from local and private networks")
    return addresses


def refusal(
    host: str, port: int, *, allow_private: bool, resolver: Resolver = resolve
) -> str | None:
    """Why fetching from ``host`` is refused, or ``None`` when it may go ahead."""
    try:
        checked_addresses(ascii_host(host), port, allow_private=allow_private,
                          resolver=resolver)
    except FetchRefused as exc:
        return str(exc)
    return None
