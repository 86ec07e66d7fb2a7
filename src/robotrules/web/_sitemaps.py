"""The sitemaps of a robots.txt, fetched and checked through the same address guard.

``Sitemap:`` lines name URLs a crawler may fetch from anywhere (sitemaps.org allows another
host), so checking them is a fetch like fetch-by-URL: every request and every redirect hop goes
through :class:`~robotrules.web._pinned.PinnedTransport` (resolve once, refuse unless every
address is public, connect to the address checked), the typed URL is made ASCII by
:func:`~robotrules.web._fetch.fetch_target`, and the answer is read only in part:

- at most :data:`READ_BYTES` of the body (raw bytes, ``Accept-Encoding: identity``) and at most
  :data:`DECODED_BYTES` once a gzip body (``.xml.gz`` or ``Content-Encoding: gzip``) is
  unpacked, so a large sitemap or a gzip bomb costs no more than that;
- at most :data:`MAX_SITEMAPS` sitemaps per request, 5 redirects each, and one time budget for
  the whole request (``timeout`` per fetch, ``budget`` in all); past it the rest are listed as
  not checked.

What is reported per sitemap: the HTTP status, the final URL, the content type, what the head
of the body is (a sitemaps.org ``urlset`` or ``sitemapindex``, an RSS or Atom feed, which Google
accepts, a text list of URLs, an HTML page, or unknown), the ``<loc>`` entries (or lines) seen
in the part read, and whether that part was the whole body. Which ``Sitemap:`` lines count is
the parser's answer (:attr:`robotrules.RobotsTxt.sitemaps`: absolute URLs); a relative one is a
lint finding, not a sitemap.
"""

from __future__ import annotations

import re
import ssl
import time
import zlib
from typing import Any

import httpcore
import httpx

from robotrules.fetch._common import default_ssl_context

from ._fetch import FETCH_USER_AGENT, fetch_target
from ._pinned import PinnedTransport
from ._safety import FetchRefused, Resolver

__all__ = ["DECODED_BYTES", "MAX_SITEMAPS", "READ_BYTES", "check_sitemaps", "sniff"]

MAX_SITEMAPS = 10
READ_BYTES = 256 * 1024
DECODED_BYTES = 1024 * 1024
_GOOD = ("urlset", "sitemapindex", "feed", "text")


def sniff(head: bytes) -> tuple[str, int]:
    """What the start of a (decoded) sitemap body is, and how many entries it holds."""
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n").decode("utf-8", "replace")
    lower = text[:4096].lower()
    if lower.startswith("<"):
        for tag, kind in (("<urlset", "urlset"), ("<sitemapindex", "sitemapindex"),
                          ("<rss", "feed"), ("<feed", "feed"), ("<html", "html"),
                          ("<!doctype html", "html")):
            if tag in lower:
                if kind in ("urlset", "sitemapindex"):
                    return kind, len(re.findall(r"<loc[\s>]", text, flags=re.IGNORECASE))
                if kind == "feed":
                    return kind, len(re.findall(r"<(?:item|entry)[\s>]", text, re.IGNORECASE))
                return kind, 0
        return "unknown", 0
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if lines and all(line.startswith(("http://", "https://")) for line in lines[:20]):
        return "text", len(lines)
    return "unknown", 0


def _read(response: httpx.Response) -> tuple[bytes, bool]:
    """At most READ_BYTES of the raw body; whether that was all of it."""
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_raw():
        chunks.append(chunk)
        size += len(chunk)
        if size > READ_BYTES:
            return b"".join(chunks)[:READ_BYTES], False
    return b"".join(chunks), True


def _gunzip(raw: bytes) -> bytes:
    """The start of a gzip body, never more than DECODED_BYTES however well it packs."""
    try:
        return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw, DECODED_BYTES)
    except zlib.error:
        return b""


def _blank(url: str, error: str | None = None) -> dict[str, Any]:
    return {"url": url, "final_url": None, "status": None, "content_type": None, "kind": None,
            "entries": 0, "bytes_read": 0, "complete": False, "gzip": False, "ok": False,
            "error": error, "connected": []}


def _check_one(url: str, *, allow_private: bool, resolver: Resolver, ssl_context: ssl.SSLContext,
               network_backend: httpcore.NetworkBackend | None, timeout: float
               ) -> dict[str, Any]:
    out = _blank(url)
    try:
        target, _host, _port = fetch_target(url)
    except FetchRefused as exc:
        out["error"] = str(exc)
        return out
    transport = PinnedTransport(allow_private=allow_private, resolver=resolver,
                                ssl_context=ssl_context, backend=network_backend)
    client = httpx.Client(transport=transport, follow_redirects=True, max_redirects=5,
                          trust_env=False, timeout=httpx.Timeout(timeout),
                          headers={"User-Agent": FETCH_USER_AGENT,
                                   "Accept-Encoding": "identity"})
    try:
        with client.stream("GET", target) as response:
            out["status"] = response.status_code
            out["final_url"] = str(response.url)
            out["content_type"] = response.headers.get("content-type")
            raw, out["complete"] = _read(response)
    except (httpx.HTTPError, httpcore.ProtocolError, OSError, ValueError) as exc:
        refused = transport.refused
        if refused is not None:
            why = refused.refused or "refused"
            out["error"] = why if refused is transport.hops[0] else \
                f"redirected to {refused.url}: {why}"
        else:
            out["error"] = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return out
    finally:
        client.close()
        out["connected"] = [hop.connected for hop in transport.hops if hop.connected]
    out["bytes_read"] = len(raw)
    if raw.startswith(b"\x1f\x8b"):
        out["gzip"] = True
        raw = _gunzip(raw)
    out["kind"], out["entries"] = sniff(raw)
    out["ok"] = out["status"] == 200 and out["kind"] in _GOOD
    return out


def check_sitemaps(
    urls: list[str], *, allow_private: bool, resolver: Resolver, timeout: float,
    budget: float, network_backend: httpcore.NetworkBackend | None = None,
    ssl_context: ssl.SSLContext | None = None,
) -> list[dict[str, Any]]:
    """Fetch and check each sitemap URL (at most MAX_SITEMAPS), within ``budget`` seconds."""

    context = ssl_context or default_ssl_context()
    end = time.monotonic() + budget
    results: list[dict[str, Any]] = []
    for url in urls[:MAX_SITEMAPS]:
        left = end - time.monotonic()
        if left < 0.5:
            results.append(_blank(url, "not checked: this request's time ran out"))
            continue
        results.append(_check_one(url, allow_private=allow_private, resolver=resolver,
                                  ssl_context=context, network_backend=network_backend,
                                  timeout=min(timeout, left)))
    return results
