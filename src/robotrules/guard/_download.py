"""The guard's one bounded download: key directories (:mod:`.webbotauth`) and published IP
range lists (:mod:`.ranges`) are fetched here, and nowhere else.

What bounds a download:

- the address guard of the fetch clients (:mod:`robotrules.fetch._guard`): every hop resolves
  once, every address is checked, and a private, loopback, link-local or otherwise non-public
  address is refused before a connection is made (``mode="always"``). ``allow_loopback`` is
  the test setting: it lets ``127.0.0.1`` / ``::1`` through (and nothing else that is not
  public);
- redirects: none unless ``max_redirects`` is given (key directories: none, the protocol
  draft: "MUST NOT automatically follow HTTP redirects"), each hop checked again;
- status: only ``200`` is a body (``304`` answers a conditional request); anything else is a
  failure;
- size: the body is decoded by the robots.txt fetcher's :class:`robotrules._policy.BodyDecoder`
  (gzip, deflate, br), which never produces more than ``max_bytes`` + 1 bytes and stops
  reading raw bytes at twice the limit, so a compression bomb costs ``O(max_bytes)`` memory and
  time; a body over the limit is a failure, never cut and used;
- time: ``timeout`` seconds in all, checked after every chunk (a server that drips bytes is cut
  off at the deadline), with httpx's own timeouts for each step.

Failures raise :class:`DownloadError` with one line a person can read (``HTTP 302 (redirects
are not followed)``, ``refused: 10.0.0.1 is a private address ...``, ``over 65536 bytes after
decoding``, ``no complete answer within 2 s``); never raw exception text.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Download", "DownloadError", "adownload", "download"]

_ENCODINGS = "gzip, deflate, br"  # what BodyDecoder decodes
_HINT = "key directories and IP range lists are fetched from public addresses only"


class DownloadError(Exception):
    """A download that did not give a usable body; ``str()`` is one line."""


@dataclass(frozen=True, slots=True)
class Download:
    """A finished download: ``status`` 200 (``body`` decoded) or 304 (not modified)."""

    url: str
    status: int
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def etag(self) -> str | None:
        return self.headers.get("etag")

    @property
    def last_modified(self) -> str | None:
        return self.headers.get("last-modified")


def _request_headers(accept: str, etag: str | None, last_modified: str | None
                     ) -> dict[str, str]:
    from ..fetch._common import DEFAULT_USER_AGENT

    h = {"Accept": accept, "Accept-Encoding": _ENCODINGS, "User-Agent": DEFAULT_USER_AGENT}
    if etag:
        h["If-None-Match"] = etag
    if last_modified:
        h["If-Modified-Since"] = last_modified
    return h


def _loopback_only(url: str) -> None:
    """The test setting's check: every address of the URL's host is public or loopback."""
    import httpx

    from ..fetch._guard import (
        FetchRefused,
        ascii_host,
        checked_addresses,
        resolve,
        unsafe_address,
    )

    u = httpx.URL(url)
    port = u.port or (443 if u.scheme == "https" else 80)
    try:
        host = ascii_host(u.host)
        addresses = checked_addresses(host, port, allow_private=True, resolver=resolve)
    except FetchRefused as exc:
        if exc.status == 502:
            raise DownloadError(_dns_failure(url)) from None
        raise DownloadError(str(exc)) from None
    for a in addresses:
        why = unsafe_address(a)
        if why is not None and not ipaddress.ip_address(a.split("%", 1)[0]).is_loopback:
            shown = host.strip("[]")
            what = f"{shown} {why}" if shown == a else f"{shown} resolves to {a}, which {why}"
            raise DownloadError(f"refused: {what}; {_HINT}")


def _client_kwargs(timeout: float, max_redirects: int, allow_loopback: bool,
                   transport: Any, asynchronous: bool) -> dict[str, Any]:
    import httpx

    from ..fetch._common import default_ssl_context
    from ..fetch._guard import AsyncPinnedTransport, PinnedTransport, resolve

    if transport is None:
        mode = "off" if allow_loopback else "always"  # off: _loopback_only checked the host
        cls = AsyncPinnedTransport if asynchronous else PinnedTransport
        kw: dict[str, Any] = {"resolver": resolve, "ssl_context": default_ssl_context(),
                              "mode": mode, "hint": _HINT}
        if not asynchronous:
            kw["record"] = False
        transport = cls(**kw)
    return {"timeout": httpx.Timeout(timeout), "transport": transport,
            "follow_redirects": max_redirects > 0, "max_redirects": max(max_redirects, 0),
            "trust_env": False}


def _start(r: Any, url: str, max_bytes: int) -> Any:
    """Check the response head; the decoder for its body (``None`` for a 304)."""
    from .._policy import BodyDecoder

    if r.status_code == 304:
        return None
    if r.status_code != 200:
        extra = " (redirects are not followed)" if 300 <= r.status_code < 400 else ""
        raise DownloadError(f"HTTP {r.status_code}{extra}")
    dec = BodyDecoder(r.headers.get("content-encoding", ""), max_bytes)
    if dec.error:
        raise DownloadError(dec.error)
    return dec


def _feed(dec: Any, raw: bytes, max_bytes: int, deadline: float, timeout: float) -> None:
    try:
        full = dec.feed(raw)
    except ValueError as exc:
        raise DownloadError(str(exc)) from None
    if full:
        raise DownloadError(f"over {max_bytes} bytes after decoding")
    if time.monotonic() > deadline:
        raise DownloadError(f"no complete answer within {timeout:g} s")


def _finish(dec: Any, url: str, r: Any) -> Download:
    headers = {k.lower(): v for k, v in r.headers.items()}
    if dec is None:
        return Download(url, 304, b"", headers)
    try:
        body, _cut = dec.finish(complete=True)
    except ValueError as exc:
        raise DownloadError(str(exc)) from None
    return Download(url, 200, body, headers)


def _dns_failure(url: str) -> str:
    import httpx

    return f"DNS failure: {httpx.URL(url).host} does not resolve"


def _words(exc: BaseException, timeout: float, url: str) -> str:
    """A transport failure in the fetch clients' few words (``connection refused``, ...)."""
    from ..fetch._common import describe_exception

    words = describe_exception(exc)
    if words == "DNS failure":
        return _dns_failure(url)
    return f"no answer within {timeout:g} s" if words == "timeout" else words


def download(url: str, *, timeout: float, max_bytes: int, accept: str,
             max_redirects: int = 0, allow_loopback: bool = False,
             etag: str | None = None, last_modified: str | None = None,
             transport: Any = None) -> Download:
    """GET ``url`` within the bounds of the module docstring; :class:`DownloadError` else."""
    import httpx

    try:
        kw = _client_kwargs(timeout, max_redirects, allow_loopback, transport, False)
        deadline = time.monotonic() + timeout  # from here: the SSL context loads once
        if allow_loopback and transport is None:
            _loopback_only(url)
        with httpx.Client(**kw) as client, client.stream(
                "GET", url, headers=_request_headers(accept, etag, last_modified)) as r:
            dec = _start(r, url, max_bytes)
            if dec is not None:
                for raw in r.iter_raw():
                    _feed(dec, raw, max_bytes, deadline, timeout)
            return _finish(dec, url, r)
    except DownloadError:
        raise
    except httpx.TooManyRedirects:
        raise DownloadError(f"more than {max_redirects} redirects") from None
    except (httpx.HTTPError, OSError, ValueError) as exc:
        raise DownloadError(_words(exc, timeout, url)) from None


async def adownload(url: str, *, timeout: float, max_bytes: int, accept: str,
                    max_redirects: int = 0, allow_loopback: bool = False,
                    etag: str | None = None, last_modified: str | None = None,
                    transport: Any = None) -> Download:
    """:func:`download` for asyncio (the event loop never waits on DNS or decoding more than
    one chunk's worth; the whole download is cancelled at the deadline)."""
    import asyncio

    import httpx

    kw = _client_kwargs(timeout, max_redirects, allow_loopback, transport, True)
    deadline = time.monotonic() + timeout

    async def run() -> Download:
        if allow_loopback and transport is None:
            await asyncio.to_thread(_loopback_only, url)
        async with httpx.AsyncClient(**kw) as client, client.stream(
                "GET", url, headers=_request_headers(accept, etag, last_modified)) as r:
            dec = _start(r, url, max_bytes)
            if dec is not None:
                async for raw in r.aiter_raw():
                    _feed(dec, raw, max_bytes, deadline, timeout)
            return _finish(dec, url, r)

    try:
        return await asyncio.wait_for(run(), timeout=max(0.0, deadline - time.monotonic()))
    except DownloadError:
        raise
    except TimeoutError:
        raise DownloadError(f"no complete answer within {timeout:g} s") from None
    except httpx.TooManyRedirects:
        raise DownloadError(f"more than {max_redirects} redirects") from None
    except (httpx.HTTPError, OSError, ValueError) as exc:
        raise DownloadError(_words(exc, timeout, url)) from None
