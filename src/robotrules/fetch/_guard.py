"""The address guard: which addresses a fetch may connect to, checked on every hop.

One guard for every fetch robotrules makes: the web tester's fetch-by-URL
(:mod:`robotrules.web._fetch`) and the fetch clients (:class:`robotrules.fetch.RobotsClient`,
:class:`robotrules.fetch.AsyncRobotsClient`), so a robots.txt on a public host that redirects
to ``127.0.0.1``, ``localhost``, ``::1``, ``0x7f000001``, ``2130706433``, an IPv4-mapped
address or a cloud metadata endpoint (``169.254.169.254``) is not fetched: that would be a
server-side request forgery for a crawler running inside a company network or a cloud.

When a hop is refused. The web tester refuses every non-public hop, the first included
(``mode="always"``; ``serve --allow-private`` turns it off). A fetch client guards a fetch
whose *starting* origin is public (``mode="public-start"``): its first hop decides, at
connection time, whether the fetch started on the public internet (at least one address the
name resolves to is public); if it did, every hop of that fetch, the first included, must
resolve only to public addresses. A crawler pointed at an internal host (``localhost``, a
private address, a name that resolves only to private ones) fetches it as before, redirects
included. ``AddressGuard(allow_private=True)`` turns the guard off for crawlers of internal
sites. A refused hop raises :class:`AddressRefused` (an ``httpx.ConnectError``), which the
clients report as the "unreachable" outcome of RFC 9309 2.3.1.4 with the reason, e.g.
``refused: 127.0.0.1 is a loopback address``.

How a hop is checked (theory of operation). The clients follow redirects themselves, so each
hop is one request through :class:`PinnedTransport` (or :class:`AsyncPinnedTransport`): it
takes the URL's host as httpx will send it (``raw_host``, ASCII), resolves it **once**
through the guard's resolver, checks every address, and hands the request to a one-request
httpcore connection pool whose network backend ignores the host name it is given and opens
the TCP connection to the checked addresses, in resolver order. Everything above the socket
stays httpcore's: the request line and ``Host`` header carry the name, TLS is started with
the name as SNI and verified against the name's certificate. A DNS server that answers a
public address to the check and a private one later never gets the second question asked.
IPv4 in the spellings the C library accepts (``http://2130706433/``, ``http://0x7f000001/``,
``http://127.1/``: httpx passes them on as host names) is read as ``inet_aton`` reads it and
judged as the address it denotes (``127.0.0.1``), whatever resolver is in use.

Not covered: an ``httpx`` client the caller injects (``http_client=``) uses the caller's
transport, and a proxy from the environment (``HTTPS_PROXY``) is reached instead of the
origin, so the proxy's own policy applies.

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
import re
import socket
import ssl
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

import httpcore
import httpx

from robotrules import _origin
from robotrules._origin import DEFAULT_PORTS

__all__ = ["GUARD_EXTENSION", "AddressGuard", "AddressRefused", "AsyncPinnedTransport",
           "FetchRefused", "Hop", "PinnedTransport", "Resolver", "ascii_host",
           "checked_addresses", "refusal", "resolve", "unsafe_address"]

Resolver = Callable[[str, int], Iterable[str]]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Mode = Literal["always", "public-start", "off"]

#: The request extension a fetch client sets to one dict per fetch (every hop of it): the
#: transport keeps there whether the fetch started on a public origin.
GUARD_EXTENSION = "robotrules.fetch"

_CLIENT_HINT = ("give the client guard=robotrules.fetch.AddressGuard(allow_private=True) to "
                "fetch from internal networks")
_SERVE_HINT = "start the server with --allow-private to fetch from local and private networks"


class FetchRefused(Exception):
    """The URL is not one the guard lets through: ``status`` 400 (not a web URL), 403
    (a refused address) or 502 (the name does not resolve)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class AddressRefused(httpx.ConnectError):
    """A hop the address guard refused; the message says which address and why."""

    robotrules_refused = True  # read by fetch._common.describe_exception


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


_NUMERIC = re.compile(r"[0-9a-fA-FxX.]+")


def _resolved(host: str, port: int, resolver: Resolver) -> tuple[list[str], bool]:
    """Every address of ``host`` (ASCII, or an IP literal) and whether it was a literal.

    IPv4 written as the C library reads it (``inet_aton``: ``2130706433``, ``0x7f000001``,
    ``127.1``, ``0177.0.0.1``) is a literal too, whatever resolver is in use: it is the
    address the socket layer would connect to."""
    name = host.strip("[]")
    try:
        ipaddress.ip_address(name.split("%", 1)[0])
        return [name], True  # a literal: nothing to resolve
    except ValueError:
        pass
    if _NUMERIC.fullmatch(name) and any(c.isdigit() for c in name):
        try:
            return [socket.inet_ntoa(socket.inet_aton(name))], True
        except OSError:
            pass
    try:
        addresses = list(dict.fromkeys(resolver(name, port)))
    except (OSError, UnicodeError) as exc:
        raise FetchRefused(502, f"cannot resolve {host}: {exc}") from None
    if not addresses:
        raise FetchRefused(502, f"cannot resolve {host}")
    return addresses, False


def _refuse_unsafe(host: str, addresses: list[str], literal: bool, hint: str) -> None:
    """:class:`FetchRefused` (403) naming the first address that is not public."""
    for address in addresses:
        why = unsafe_address(address)
        if why is not None:
            if literal:
                shown = host.strip("[]")
                what = f"{host} {why}" if shown == address else f"{host} ({address}) {why}"
            else:
                what = f"{host} resolves to {address}, which {why}"
            raise FetchRefused(403, f"{what}; {hint}")


def checked_addresses(
    host: str, port: int, *, allow_private: bool, resolver: Resolver = resolve
) -> list[str]:
    """Resolve ``host`` (ASCII, or an IP literal) once; every address, all of them allowed.

    Raises :class:`FetchRefused` (403) naming the first refused address, or (502) when the
    name does not resolve. The caller connects to exactly these addresses.
    """
    addresses, literal = _resolved(host, port, resolver)
    if not allow_private:
        _refuse_unsafe(host, addresses, literal, _SERVE_HINT)
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


@dataclass(frozen=True)
class AddressGuard:
    """How a fetch client checks the addresses it connects to (see the module docstring).

    ``allow_private=True`` is the switch for crawlers of internal sites: no address is
    refused (connections are still made to the addresses resolved for the check).
    ``resolver`` answers ``(host, port) -> addresses`` (``getaddrinfo`` by default);
    ``backend`` / ``async_backend`` are httpcore's socket layers (its own by default):
    tests and custom DNS set them.
    """

    allow_private: bool = False
    resolver: Resolver = resolve
    backend: httpcore.NetworkBackend | None = None
    async_backend: httpcore.AsyncNetworkBackend | None = None

    def transport(self, ssl_context: ssl.SSLContext) -> PinnedTransport:
        return PinnedTransport(mode="off" if self.allow_private else "public-start",
                               resolver=self.resolver, ssl_context=ssl_context,
                               backend=self.backend, record=False, hint=_CLIENT_HINT)

    def async_transport(self, ssl_context: ssl.SSLContext) -> AsyncPinnedTransport:
        return AsyncPinnedTransport(mode="off" if self.allow_private else "public-start",
                                    resolver=self.resolver, ssl_context=ssl_context,
                                    backend=self.async_backend, hint=_CLIENT_HINT)


def _hop_addresses(host: str, port: int, mode: Mode, state: dict[str, Any] | None,
                   resolver: Resolver, hint: str) -> list[str]:
    """The addresses one hop may connect to; :class:`FetchRefused` when the guard says no.

    ``state`` is the fetch's own dict (:data:`GUARD_EXTENSION`), ``None`` outside a fetch
    client (each request is then a fetch of its own)."""
    addresses, literal = _resolved(host, port, resolver)
    if mode == "off":
        return addresses
    if mode == "public-start":
        if state is None:
            state = {}
        if "public" not in state:  # the fetch's first hop: did it start on the internet?
            state["public"] = any(unsafe_address(a) is None for a in addresses)
        if not state["public"]:
            return addresses
    _refuse_unsafe(host, addresses, literal, hint)
    return addresses


# -- the transports: connect to the addresses the guard checked -------------------------------

# httpcore's exceptions as the httpx ones callers catch (the same mapping httpx makes).
_ERRORS: tuple[tuple[type[Exception], type[httpx.TransportError]], ...] = (
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.TimeoutException, httpx.TimeoutException),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.NetworkError, httpx.NetworkError),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.ProtocolError, httpx.ProtocolError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
)


def _translate(exc: Exception, request: httpx.Request) -> Exception:
    for core, mapped in _ERRORS:
        if isinstance(exc, core):
            return mapped(str(exc) or type(exc).__name__, request=request)
    return exc


class Hop:
    """One request the transport made or refused: its URL, the addresses, the refusal."""

    __slots__ = ("addresses", "connected", "refused", "url")

    def __init__(self, url: str) -> None:
        self.url = url
        self.addresses: list[str] = []
        self.connected: str | None = None
        self.refused: str | None = None


def _core_request(request: httpx.Request, stream: Any) -> httpcore.Request:
    url = request.url
    return httpcore.Request(
        method=request.method,
        url=httpcore.URL(scheme=url.raw_scheme, host=url.raw_host, port=url.port,
                         target=url.raw_path),
        headers=request.headers.raw,
        content=stream,
        extensions=request.extensions,
    )


def _where(request: httpx.Request) -> tuple[str, int, dict[str, Any] | None]:
    url = request.url
    state = request.extensions.get(GUARD_EXTENSION)
    return (url.raw_host.decode("ascii"), url.port or DEFAULT_PORTS.get(url.scheme, 0),
            state if isinstance(state, dict) else None)


class _PinnedBackend(httpcore.NetworkBackend):
    """Opens every TCP connection to ``addresses`` (tried in order), whatever host is asked."""

    def __init__(self, addresses: list[str], hop: Hop, inner: httpcore.NetworkBackend) -> None:
        self._addresses = addresses
        self._hop = hop
        self._inner = inner

    def connect_tcp(
        self, host: str, port: int, timeout: float | None = None,
        local_address: str | None = None, socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        last: Exception | None = None
        for address in self._addresses:
            try:
                stream = self._inner.connect_tcp(address, port, timeout=timeout,
                                                 local_address=local_address,
                                                 socket_options=socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout, OSError) as exc:
                last = exc
                continue
            self._hop.connected = address
            return stream
        if isinstance(last, (httpcore.ConnectError, httpcore.ConnectTimeout)):
            raise last
        raise httpcore.ConnectError(f"cannot connect to {host}: {last}")

    def connect_unix_socket(
        self, path: str, timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("unix sockets are not used by robotrules' fetches")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class _AsyncPinnedBackend(httpcore.AsyncNetworkBackend):
    """The async twin of :class:`_PinnedBackend`."""

    def __init__(self, addresses: list[str], hop: Hop,
                 inner: httpcore.AsyncNetworkBackend) -> None:
        self._addresses = addresses
        self._hop = hop
        self._inner = inner

    async def connect_tcp(
        self, host: str, port: int, timeout: float | None = None,
        local_address: str | None = None, socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        last: Exception | None = None
        for address in self._addresses:
            try:
                stream = await self._inner.connect_tcp(address, port, timeout=timeout,
                                                       local_address=local_address,
                                                       socket_options=socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout, OSError) as exc:
                last = exc
                continue
            self._hop.connected = address
            return stream
        if isinstance(last, (httpcore.ConnectError, httpcore.ConnectTimeout)):
            raise last
        raise httpcore.ConnectError(f"cannot connect to {host}: {last}")

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("unix sockets are not used by robotrules' fetches")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class _Body(httpx.SyncByteStream):
    """The response body; closing it closes the hop's one-request pool."""

    def __init__(self, stream: Iterable[bytes], request: httpx.Request,
                 pool: httpcore.ConnectionPool, owner: PinnedTransport) -> None:
        self._stream = stream
        self._request = request
        self._pool = pool
        self._owner = owner

    def __iter__(self) -> Iterator[bytes]:
        try:
            yield from self._stream
        except Exception as exc:
            raise _translate(exc, self._request) from exc

    def close(self) -> None:
        close = getattr(self._stream, "close", None)
        try:
            if close is not None:
                close()
        finally:
            self._owner._release(self._pool)


class _AsyncBody(httpx.AsyncByteStream):
    def __init__(self, stream: AsyncIterable[bytes], request: httpx.Request,
                 pool: httpcore.AsyncConnectionPool, owner: AsyncPinnedTransport) -> None:
        self._stream = stream
        self._request = request
        self._pool = pool
        self._owner = owner

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._stream:
                yield chunk
        except Exception as exc:
            raise _translate(exc, self._request) from exc

    async def aclose(self) -> None:
        close = getattr(self._stream, "aclose", None)
        try:
            if close is not None:
                await close()
        finally:
            await self._owner._release(self._pool)


class PinnedTransport(httpx.BaseTransport):
    """Resolve once, check every address, connect to a checked one; on every request.

    Each request gets a connection pool of its own, closed with the response: no bound on
    concurrent connections (each fetch is for a distinct origin, one per origin at a time,
    and its caller is already waiting for it, so the callers' own concurrency is the bound;
    a pool limit would only queue a healthy origin behind stalled ones) and no keep-alive (a
    robots.txt is fetched once per origin per cache lifetime, so a kept connection saves
    nothing, and a connection of its own lets a fetch be cut off at its deadline).

    ``mode``: ``"always"`` (every hop must be public: the web tester), ``"public-start"``
    (hops of a fetch that started on a public origin must be: the fetch clients) or
    ``"off"`` (pinned, nothing refused). With ``record`` (the web tester's transcript)
    ``hops`` lists each request and ``refused`` is the first refusal. ``backend`` is the
    socket layer (httpcore's own by default).
    """

    def __init__(
        self, *, resolver: Resolver, ssl_context: ssl.SSLContext,
        allow_private: bool | None = None, mode: Mode = "always",
        backend: httpcore.NetworkBackend | None = None, record: bool = True,
        hint: str = _SERVE_HINT,
    ) -> None:
        self._mode: Mode = "off" if allow_private else mode
        self._resolver = resolver
        self._ssl = ssl_context
        self._backend = backend or httpcore.SyncBackend()
        self._record = record
        self._hint = hint
        self._pools: set[httpcore.ConnectionPool] = set()
        self.hops: list[Hop] = []

    @property
    def refused(self) -> Hop | None:
        return next((hop for hop in self.hops if hop.refused is not None), None)

    def _release(self, pool: httpcore.ConnectionPool) -> None:
        self._pools.discard(pool)
        pool.close()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        hop = Hop(str(request.url))
        if self._record:
            self.hops.append(hop)
        host, port, state = _where(request)
        try:
            hop.addresses = _hop_addresses(host, port, self._mode, state, self._resolver,
                                           self._hint)
        except FetchRefused as exc:
            hop.refused = str(exc)
            if exc.status == 502:  # the name does not resolve: a DNS failure, as httpx says
                raise httpx.ConnectError(str(exc), request=request) from socket.gaierror(
                    str(exc))
            raise AddressRefused(str(exc), request=request) from None
        pool = httpcore.ConnectionPool(
            ssl_context=self._ssl, max_connections=1, http1=True, http2=False,
            network_backend=_PinnedBackend(hop.addresses, hop, self._backend),
        )
        self._pools.add(pool)
        try:
            response = pool.handle_request(_core_request(request, request.stream))
        except Exception as exc:
            self._release(pool)
            raise _translate(exc, request) from exc
        assert isinstance(response.stream, Iterable)
        return httpx.Response(
            status_code=response.status, headers=response.headers,
            stream=_Body(response.stream, request, pool, self), extensions=response.extensions,
        )

    def close(self) -> None:
        for pool in list(self._pools):
            pool.close()
        self._pools.clear()


class AsyncPinnedTransport(httpx.AsyncBaseTransport):
    """The async twin of :class:`PinnedTransport` (the resolver runs in a worker thread)."""

    def __init__(
        self, *, resolver: Resolver, ssl_context: ssl.SSLContext, mode: Mode = "always",
        backend: httpcore.AsyncNetworkBackend | None = None, hint: str = _SERVE_HINT,
    ) -> None:
        self._mode: Mode = mode
        self._resolver = resolver
        self._ssl = ssl_context
        self._backend = backend or httpcore.AnyIOBackend()
        self._hint = hint
        self._pools: set[httpcore.AsyncConnectionPool] = set()

    async def _release(self, pool: httpcore.AsyncConnectionPool) -> None:
        self._pools.discard(pool)
        await pool.aclose()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        import anyio.to_thread

        hop = Hop(str(request.url))
        host, port, state = _where(request)
        try:
            hop.addresses = await anyio.to_thread.run_sync(
                _hop_addresses, host, port, self._mode, state, self._resolver, self._hint)
        except FetchRefused as exc:
            if exc.status == 502:
                raise httpx.ConnectError(str(exc), request=request) from socket.gaierror(
                    str(exc))
            raise AddressRefused(str(exc), request=request) from None
        pool = httpcore.AsyncConnectionPool(
            ssl_context=self._ssl, max_connections=1, http1=True, http2=False,
            network_backend=_AsyncPinnedBackend(hop.addresses, hop, self._backend),
        )
        self._pools.add(pool)
        try:
            response = await pool.handle_async_request(_core_request(request, request.stream))
        except Exception as exc:
            await self._release(pool)
            raise _translate(exc, request) from exc
        assert isinstance(response.stream, AsyncIterable)
        return httpx.Response(
            status_code=response.status, headers=response.headers,
            stream=_AsyncBody(response.stream, request, pool, self), extensions=response.extensions,
        )

    async def aclose(self) -> None:
        for pool in list(self._pools):
            await pool.aclose()
        self._pools.clear()
