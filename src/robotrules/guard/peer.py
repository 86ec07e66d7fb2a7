"""The client's address: the socket peer, or what the site's own proxies say it was.

One forwarding header is read, the one the operator names (``header``: ``x-forwarded-for``,
the default, as nginx's ``$proxy_add_x_forwarded_for``, HAProxy's ``option forwardfor`` and
most load balancers write it; ``forwarded``, RFC 7239; or ``x-real-ip``, one address, as
nginx's ``proxy_set_header X-Real-IP $remote_addr`` writes it), and only when the socket peer
is one of the trusted proxies (a network list such as ``["10.0.0.0/8", "127.0.0.1"]``). Any
other forwarding header is the client's own words and never read: a client that sends
``Forwarded: for=66.249.66.1`` through a proxy that writes ``X-Forwarded-For`` gains nothing.

The header is walked from the right: each hop a trusted proxy added is skipped, and the first
address that is not a trusted proxy is the client; what lies to its left was written by the
client and is not read. Elements are ``192.0.2.1``, ``192.0.2.1:4711``, ``[2001:db8::1]``,
``[2001:db8::1]:4711`` or a bare IPv6 address, and in ``Forwarded`` the ``for=`` node, quoted
or not (RFC 7239 section 6). IPv4-mapped IPv6 addresses (``::ffff:66.249.66.1``, what a
dual-stack listener reports for an IPv4 client) are unmapped everywhere: the peer, each hop,
and the proxy list.

When the client cannot be determined (:attr:`ClientAddress.determined` false) the reason is
in ``note``: the peer is a trusted proxy and its header is missing, empty, over
:data:`MAX_HEADER` bytes, or the walk reaches an element that is not an address (``unknown``,
an obfuscated ``_name``, garbage, an empty element) before an untrusted hop, or more than
:data:`MAX_HOPS` trusted hops. The guard then treats a crawler claim that needs the address
by the strictest state (see :mod:`.core`), never as unverifiable.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final, Literal

__all__ = ["HEADERS", "MAX_HEADER", "MAX_HOPS", "ClientAddress", "ForwardedHeader",
           "TrustedProxies", "parse_ip"]

IPNet = ipaddress.IPv4Network | ipaddress.IPv6Network
IPAddr = ipaddress.IPv4Address | ipaddress.IPv6Address
ForwardedHeader = Literal["x-forwarded-for", "forwarded", "x-real-ip"]
HEADERS: Final[tuple[ForwardedHeader, ...]] = ("x-forwarded-for", "forwarded", "x-real-ip")
MAX_HEADER: Final = 4096  # a forwarding header longer than this is not read
MAX_HOPS: Final = 32  # trusted hops walked at most


@dataclass(frozen=True, slots=True)
class ClientAddress:
    """``ip`` the client address (``None`` when unknown), ``via`` how it was found (``peer``
    or the header's name), ``note`` why a header was not believed; ``determined`` false when
    the peer is a trusted proxy whose header does not say who the client is."""

    ip: str | None
    via: str
    note: str | None = None
    determined: bool = True


_MEMO: dict[str, IPAddr | None] = {}
_MEMO_MAX = 65_536


def parse_ip(text: str) -> IPAddr | None:
    """``text`` as an IP address, IPv4-mapped IPv6 unmapped, or ``None`` (memoised: a site
    sees the same peers again)."""
    try:
        return _MEMO[text]
    except KeyError:
        pass
    try:
        a: IPAddr | None = ipaddress.ip_address(text.strip())
    except ValueError:
        a = None
    if isinstance(a, ipaddress.IPv6Address) and a.ipv4_mapped is not None:
        a = a.ipv4_mapped
    if len(text) <= 64:
        if len(_MEMO) >= _MEMO_MAX:
            _MEMO.clear()
        _MEMO[text] = a
    return a


def _network(text: str) -> IPNet:
    net = ipaddress.ip_network(text.strip(), strict=False)
    if isinstance(net, ipaddress.IPv6Network) and net.network_address.ipv4_mapped is not None \
            and net.prefixlen >= 96:
        # ::ffff:10.0.0.0/104 is 10.0.0.0/8
        return ipaddress.ip_network(f"{net.network_address.ipv4_mapped}/{net.prefixlen - 96}")
    return net


class TrustedProxies:
    """The proxies whose forwarding header (``header``, one of :data:`HEADERS`) is
    believed."""

    def __init__(self, networks: Iterable[str] = (),
                 header: ForwardedHeader = "x-forwarded-for") -> None:
        if header not in HEADERS:
            raise ValueError(f"forwarded_header must be one of {', '.join(HEADERS)}, "
                             f"not {header!r}")
        self.networks: tuple[IPNet, ...] = tuple(_network(n) for n in networks)
        self.header: ForwardedHeader = header

    def __bool__(self) -> bool:
        return bool(self.networks)

    def trusts(self, ip: IPAddr) -> bool:
        return any(ip.version == n.version and ip in n for n in self.networks)

    def client(self, peer: str | None, headers: Mapping[str, str]) -> ClientAddress:
        """The client address for a request from socket peer ``peer`` with ``headers``
        (lower-cased names; repeated fields joined with ``", "``)."""
        p = parse_ip(peer) if peer else None
        if p is None:
            return ClientAddress(None, "peer", "no peer address")
        if not self.networks or not self.trusts(p):
            return ClientAddress(_text(peer or "", p), "peer")
        name = self.header
        value = headers.get(name)
        if value is None or not value.strip():
            return _unknown(p, f"{name} is {'missing' if value is None else 'empty'}")
        if len(value) > MAX_HEADER:
            return _unknown(p, f"{name} is over {MAX_HEADER} bytes")
        elements = [value] if name == "x-real-ip" else _split(value, ",")
        hop: IPAddr | None = p
        for n, element in enumerate(reversed(elements)):
            if n >= MAX_HOPS:
                return _unknown(p, f"{name} has more than {MAX_HOPS} trusted hops")
            hop = _forwarded_for(element) if name == "forwarded" else _element(element)
            if hop is None:
                return _unknown(p, f"{name}: {element.strip()[:40]!r} is not an address")
            if not self.trusts(hop):
                return ClientAddress(str(hop), name)
        # every hop is one of our proxies: the request began inside
        return ClientAddress(str(hop), name)


_TEXT: dict[str, str] = {}


def _text(peer: str, addr: IPAddr) -> str:
    """``addr`` written canonically (memoised by the peer's own text)."""
    hit = _TEXT.get(peer)
    if hit is None:
        hit = str(addr)
        if len(peer) <= 64:
            if len(_TEXT) >= _MEMO_MAX:
                _TEXT.clear()
            _TEXT[peer] = hit
    return hit


def _unknown(proxy: IPAddr, why: str) -> ClientAddress:
    return ClientAddress(None, "peer", f"the client behind proxy {proxy} cannot be "
                         f"determined: {why}", determined=False)


def _element(text: str) -> IPAddr | None:
    """One hop: ``a.b.c.d``, ``a.b.c.d:port``, ``[v6]``, ``[v6]:port`` or a bare IPv6."""
    text = text.strip()
    if not text or len(text) > 64:
        return None
    if text.startswith("["):
        end = text.find("]")
        rest = text[end + 1:] if end > 0 else "x"
        if rest and not (rest[0] == ":" and rest[1:].isdigit() and len(rest) <= 6):
            return None
        a = parse_ip(text[1:end])
        return a if a is not None and ":" in text[1:end] else None
    if text.count(":") == 1:  # a.b.c.d:port
        host, _, port = text.partition(":")
        if not (port.isdigit() and len(port) <= 5):
            return None
        a = parse_ip(host)
        return a if a is not None and a.version == 4 else None
    return parse_ip(text)


def _forwarded_for(element: str) -> IPAddr | None:
    """The ``for=`` node of one ``Forwarded`` element (RFC 7239 section 4 and 6), quoted or
    not; ``None`` when there is none or it is not an address (``unknown``, ``_hidden``)."""
    node: str | None = None
    for pair in _split(element, ";"):
        key, eq, val = pair.partition("=")
        if eq and key.strip().lower() == "for":
            if node is not None:
                return None  # two for= in one element: ambiguous
            node = val.strip()
    if node is None:
        return None
    if len(node) >= 2 and node[0] == '"' and node[-1] == '"':
        node = node[1:-1].replace('\\"', '"')
    return _element(node)


def _split(value: str, sep: str) -> list[str]:
    """``value`` cut at ``sep`` outside quoted strings (RFC 9110 5.6.4)."""
    if '"' not in value:
        return value.split(sep)
    parts: list[str] = []
    cur: list[str] = []
    quoted = escaped = False
    for ch in value:
        if escaped:
            escaped = False
        elif quoted and ch == "\\":
            escaped = True
        elif ch == '"':
            quoted = not quoted
        if ch == sep and not quoted:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts
