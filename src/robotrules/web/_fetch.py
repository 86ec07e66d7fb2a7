"""Fetch-by-URL for the tester: :class:`robotrules.fetch.RobotsClient` over a pinned transport.

The client follows redirects itself (``follow_redirects=False``), so every hop is a request
through :class:`~robotrules.web._pinned.PinnedTransport`, which resolves the hop's host once,
refuses it unless every address is public, and connects to the address it checked. The URL a
person typed is turned into ASCII by :func:`~robotrules.web._safety.ascii_host` before httpx
sees it, so httpx never applies an IDNA spelling of its own.

Residual risk, stated: with the pinned connection there is no second look-up to rebind; what
remains is the resolver's own answer (a name that resolves to a public address that is in
fact the machine's own, e.g. its public IP with a port forwarded to a local service). The
answer goes only to the person who asked, on their own machine. ``--allow-private`` turns the
address check off (the connection is still pinned).
"""

from __future__ import annotations

import ssl
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpcore
import httpx

from robotrules._origin import DEFAULT_PORTS
from robotrules.fetch import RobotsClient
from robotrules.fetch._common import default_ssl_context

from ._pinned import PinnedTransport
from ._safety import FetchRefused, Resolver, ascii_host

__all__ = ["FETCH_USER_AGENT", "FetchRefused", "fetch_robots", "fetch_target"]

FETCH_USER_AGENT = "robotrules-web-tester"
_MAX_URL = 8192

# RFC 9309 2.3.1.x as the transcript says it (by the fetch client's outcome).
_MEANING = {
    "rules": "2.3.1.1 successful access: crawlers follow the rules in this file",
    "allow-all": "2.3.1.3 unavailable: crawlers may access any resource on the site",
    "disallow-all": "2.3.1.4 unreachable: crawlers must assume complete disallow",
}


def fetch_target(raw: str) -> tuple[str, str, int]:
    """What a person typed (``example.com``, a page URL) as an ASCII URL, its host and port."""
    url = raw.strip()
    if not url:
        raise FetchRefused(400, "'url' is empty")
    if len(url) > _MAX_URL:
        raise FetchRefused(400, f"'url' is longer than {_MAX_URL} characters")
    if "://" not in url:
        url = "https://" + url
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise FetchRefused(400, f"not a URL: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise FetchRefused(400, "only http and https URLs can be fetched")
    if not parts.hostname:
        raise FetchRefused(400, "the URL has no host")
    if parts.username is not None or parts.password is not None:
        raise FetchRefused(400, "the URL carries a user name or password; leave them out")
    host = ascii_host(parts.hostname)
    shown = f"[{host}]" if ":" in host else host
    netloc = shown if port is None else f"{shown}:{port}"
    ascii_url = urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))
    return ascii_url, host, port or DEFAULT_PORTS[scheme]


def fetch_robots(
    raw_url: str, *, allow_private: bool, resolver: Resolver, max_bytes: int, timeout: float,
    ssl_context: ssl.SSLContext | None = None,
    network_backend: httpcore.NetworkBackend | None = None,
) -> dict[str, Any]:
    """Fetch the robots.txt for ``raw_url`` through the pinned transport; with a transcript.

    ``ssl_context`` verifies TLS (the fetch client's default CA bundle when ``None``);
    ``network_backend`` is the socket layer (httpcore's own when ``None``).
    """

    url, _host, _port = fetch_target(raw_url)
    transport = PinnedTransport(allow_private=allow_private, resolver=resolver,
                                ssl_context=ssl_context or default_ssl_context(),
                                backend=network_backend)
    http = httpx.Client(transport=transport, follow_redirects=False, trust_env=False,
                        headers={"User-Agent": FETCH_USER_AGENT})
    try:
        with RobotsClient(user_agent=FETCH_USER_AGENT, http_client=http, max_bytes=max_bytes,
                          timeout=timeout, connect_timeout=min(timeout, 5.0)) as client:
            fetched = client.rules_for(url)
    finally:
        http.close()
    refused = transport.refused
    if refused is not None:
        why = refused.refused or "refused"
        raise FetchRefused(403, why if refused is transport.hops[0]
                           else f"redirected to {refused.url}: {why}")
    rules = fetched.rules
    # The editor shows the file as the parser read it (line endings normalised, BOM dropped).
    text = "\n".join(rules.line_text(n) for n in range(1, rules.line_count + 1))
    groups = rules.groups if fetched.outcome == "rules" else ()
    return {
        "url": url,
        "robots_url": fetched.robots_url,
        "final_url": fetched.final_url,
        "status": fetched.status,
        "outcome": fetched.outcome,
        "summary": fetched.summary,
        "size": fetched.size,
        "truncated": fetched.truncated,
        "robots_txt": text if fetched.outcome == "rules" else "",
        "transcript": {
            "hops": [
                {"url": hop.url, "addresses": hop.addresses, "connected": hop.connected}
                for hop in transport.hops
            ],
            "redirects": [{"url": u, "status": s} for u, s in fetched.redirects],
            "headers": dict(fetched.headers),
            "error": fetched.error,
            "meaning": _MEANING.get(fetched.outcome, fetched.outcome),
            "groups": len(groups),
            "rules": sum(len(g.rules) for g in groups),
            "lines": rules.line_count if fetched.outcome == "rules" else 0,
            "max_bytes": max_bytes,
        },
    }
