"""An httpx transport that connects to the very addresses the address guard checked.

Theory of operation: for each request (each redirect hop is a separate request, because the
fetch client follows redirects itself), :class:`PinnedTransport` takes the URL's host as
httpx will send it (``raw_host``: already ASCII, since :func:`~robotrules.web._safety.ascii_host`
spelt it), resolves it **once** through the injected resolver, checks every address
(:func:`~robotrules.web._safety.checked_addresses`) and hands the request to a one-request
httpcore connection pool whose network backend ignores the host name it is given and opens the
TCP connection to the checked addresses, in resolver order. Everything above the socket stays
httpcore's: the request line and ``Host`` header carry the name, and TLS is started with the
name as SNI and verified against the name's certificate. A DNS server that answers a public
address to the check and a private one later never gets the second question asked.

Cost: one resolution and at most one TCP connection attempt per resolved address per hop.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterable, Iterator
from typing import Any

import httpcore
import httpx

from robotrules._origin import DEFAULT_PORTS

from ._safety import FetchRefused, Resolver, checked_addresses

__all__ = ["Hop", "PinnedTransport"]


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
        raise httpcore.ConnectError("unix sockets are not used by the tester")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class _Body(httpx.SyncByteStream):
    def __init__(self, stream: Iterable[bytes], request: httpx.Request) -> None:
        self._stream = stream
        self._request = request

    def __iter__(self) -> Iterator[bytes]:
        try:
            yield from self._stream
        except Exception as exc:
            raise _translate(exc, self._request) from exc

    def close(self) -> None:
        close = getattr(self._stream, "close", None)
        if close is not None:
            close()


class PinnedTransport(httpx.BaseTransport):
    """Resolve once, check every address, connect to a checked one; on every request.

    ``hops`` records each request (for the fetch transcript); ``refused`` is the first
    refusal. ``backend`` is the socket layer (httpcore's own by default).
    """

    def __init__(
        self, *, allow_private: bool, resolver: Resolver, ssl_context: ssl.SSLContext,
        backend: httpcore.NetworkBackend | None = None,
    ) -> None:
        self._allow_private = allow_private
        self._resolver = resolver
        self._ssl = ssl_context
        self._backend = backend or httpcore.SyncBackend()
        self._pools: list[httpcore.ConnectionPool] = []
        self.hops: list[Hop] = []

    @property
    def refused(self) -> Hop | None:
        return next((hop for hop in self.hops if hop.refused is not None), None)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        hop = Hop(str(url))
        self.hops.append(hop)
        host = url.raw_host.decode("ascii")
        port = url.port or DEFAULT_PORTS.get(url.scheme, 0)
        try:
            hop.addresses = checked_addresses(host, port, allow_private=self._allow_private,
                                              resolver=self._resolver)
        except FetchRefused as exc:
            hop.refused = str(exc)
            raise httpx.ConnectError(str(exc), request=request) from None
        pool = httpcore.ConnectionPool(
            ssl_context=self._ssl, max_connections=1, http1=True, http2=False,
            network_backend=_PinnedBackend(hop.addresses, hop, self._backend),
        )
        self._pools.append(pool)
        core = httpcore.Request(
            method=request.method,
            url=httpcore.URL(scheme=url.raw_scheme, host=url.raw_host, port=url.port,
                             target=url.raw_path),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        try:
            response = pool.handle_request(core)
        except Exception as exc:
            raise _translate(exc, request) from exc
        assert isinstance(response.stream, Iterable)
        return httpx.Response(
            status_code=response.status, headers=response.headers,
            stream=_Body(response.stream, request), extensions=response.extensions,
        )

    def close(self) -> None:
        for pool in self._pools:
            pool.close()
        self._pools.clear()
