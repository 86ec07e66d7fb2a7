"""The client's address: the socket peer, or what trusted proxies say it was.

``X-Forwarded-For`` and ``Forwarded`` (RFC 7239) are read only when the socket peer is one of
the configured trusted proxies (a network list such as ``["10.0.0.0/8", "127.0.0.1"]``), and
then from the right: each hop a trusted proxy added is skipped, and the first address that is
not a trusted proxy is the client. Parsing is strict: an element that is not an IP address
(``unknown``, an obfuscated ``_hidden`` name, garbage, a header over 4 KiB) stops the walk and
the last address known to be real, the proxy's, is used (so the verdict is "unverifiable",
never a crawler's address the request made up). ``Forwarded`` wins over ``X-Forwarded-For``
when both are present (RFC 7239 section 7.4 leaves it to configuration; the standard header
first).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = ["ClientAddress", "TrustedProxies", "parse_ip"]

IPNet = ipaddress.IPv4Network | ipaddress.IPv6Network
MAX_HEADER = 4096


@dataclass(frozen=True, slots=True)
class ClientAddress:
    """``ip`` the client address (``None`` when unknown), ``via`` how it was found
    (``peer``, ``forwarded``, ``x-forwarded-for``), ``note`` any header that was refused."""

    ip: str | None
    via: str
    note: str | None = None


_MEMO: dict[str, ipaddress.IPv4Address | ipaddress.IPv6Address | None] = {}
_MEMO_MAX = 65_536


def parse_ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``text`` as an IP address, or ``None`` (memoised: a site sees the same peers again)."""
    try:
        return _MEMO[text]
    except KeyError:
        pass
    try:
        a: ipaddress.IPv4Address | ipaddress.IPv6Address | None = \
            ipaddress.ip_address(text.strip())
    except ValueError:
        a = None
    if len(_MEMO) >= _MEMO_MAX:
        _MEMO.clear()
    if len(text) <= 64:
        _MEMO[text] = a
    return a


_addr = parse_ip


class TrustedProxies:
    """The proxies whose forwarding headers are believed."""

    def __init__(self, networks: Iterable[str] = ()) -> None:
        self.networks: tuple[IPNet, ...] = tuple(
            ipaddress.ip_network(n.strip(), strict=False) for n in networks)

    def __bool__(self) -> bool:
        return bool(self.networks)

    def trusts(self, ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
        return any(ip.version == n.version and ip in n for n in self.networks)

    def client(self, peer: str | None, headers: Mapping[str, str]) -> ClientAddress:
        """The client address for a request from socket peer ``peer`` with ``headers``
        (lower-cased names)."""
        p = _addr(peer) if peer else None
        if p is None:
            return ClientAddress(None, "peer", "no peer address")
        if not self.networks or not self.trusts(p):
            return ClientAddress(str(p) if peer is None or peer != peer.strip() else peer,
                                 "peer")
        fwd = headers.get("forwarded")
        if fwd is not None:
            hops = _forwarded(fwd)
            name = "forwarded"
        else:
            xff = headers.get("x-forwarded-for")
            if xff is None:
                return ClientAddress(str(p), "peer")
            hops = _xff(xff)
            name = "x-forwarded-for"
        if hops is None:
            return ClientAddress(str(p), "peer", f"malformed {name} header ignored")
        last = p
        for hop in reversed(hops):
            if hop is None:
                return ClientAddress(str(last), name, f"{name}: a hop is not an address")
            if not self.trusts(hop):
                return ClientAddress(str(hop), name)
            last = hop
        return ClientAddress(str(last), name)


def _xff(value: str) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address | None] | None:
    if len(value) > MAX_HEADER:
        return None
    parts = [v.strip() for v in value.split(",")]
    if not all(parts):
        return None
    return [_addr(v) for v in parts]


def _forwarded(value: str) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address | None] | None:
    """The ``for=`` node of each element of a ``Forwarded`` header (RFC 7239 section 4/6)."""
    if len(value) > MAX_HEADER:
        return None
    out: list[ipaddress.IPv4Address | ipaddress.IPv6Address | None] = []
    for element in _split(value, ","):
        node: str | None = None
        for pair in _split(element, ";"):
            if not pair.strip():
                continue
            key, eq, val = pair.partition("=")
            if not eq or not key.strip():
                return None
            if key.strip().lower() == "for":
                node = val.strip()
        if node is None:
            out.append(None)
            continue
        out.append(_node(node))
    return out


def _split(value: str, sep: str) -> list[str]:
    parts: list[str] = []
    cur: list[str] = []
    quoted = False
    for ch in value:
        if ch == '"':
            quoted = not quoted
        if ch == sep and not quoted:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def _node(node: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """RFC 7239 section 6: ``192.0.2.43``, ``"192.0.2.43:47011"``, ``"[2001:db8::1]:4711"``;
    an IPv6 address or any port must be quoted; ``unknown`` and ``_obfuscated`` are not
    addresses."""
    quoted = len(node) >= 2 and node[0] == '"' and node[-1] == '"'
    text = node[1:-1] if quoted else node
    if text.startswith("["):
        end = text.find("]")
        if end < 0 or not quoted:
            return None
        rest = text[end + 1:]
        if rest and not (rest[0] == ":" and rest[1:].isdigit()):
            return None
        a = _addr(text[1:end])
        return a if a is not None and a.version == 6 else None
    host, colon, port = text.partition(":")
    if colon and (not quoted or not port.isdigit()):
        return None
    a = _addr(host)
    return a if a is not None and a.version == 4 else None
