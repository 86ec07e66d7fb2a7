"""Fetch-by-URL for the tester: :class:`robotrules.fetch.RobotsClient` behind an address guard.

The client follows redirects itself (with ``follow_redirects=False`` on its httpx client), so
every hop goes through the transport given here, which checks the hop's host with
:func:`~robotrules.web._safety.refusal` before connecting. What remains is stated in
:mod:`robotrules.web._safety`: the DNS rebinding window between the check and the connect.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import httpx

from robotrules.fetch import RobotsClient

from ._safety import Resolver, refusal

__all__ = ["FETCH_USER_AGENT", "FetchRefused", "fetch_robots", "fetch_target"]

FETCH_USER_AGENT = "robotrules-web-tester"
_PORTS = {"http": 80, "https": 443}


class FetchRefused(Exception):
    """The URL is not one the tester may fetch: ``status`` 400 (not a web URL) or 403."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class _GuardedTransport(httpx.BaseTransport):
    """Refuses, before connecting, any request whose host is not allowed."""

    def __init__(self, *, allow_private: bool, resolver: Resolver) -> None:
        self._inner = httpx.HTTPTransport()
        self._allow_private = allow_private
        self._resolver = resolver
        self.refused: str | None = None

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        why = refusal(url.host, url.port or _PORTS.get(url.scheme, 0),
                      allow_private=self._allow_private, resolver=self._resolver)
        if why is not None:
            self.refused = self.refused or f"{url}: {why}"
            raise httpx.ConnectError(why, request=request)
        return self._inner.handle_request(request)

    def close(self) -> None:
        self._inner.close()


def fetch_target(raw: str) -> tuple[str, str, int]:
    """What a person typed (``example.com``, a page URL) as a URL, its host and its port."""
    url = raw.strip()
    if not url:
        raise FetchRefused(400, "'url' is empty")
    if "://" not in url:
        url = "https://" + url
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise FetchRefused(400, f"not a URL: {exc}") from None
    if parts.scheme not in _PORTS:
        raise FetchRefused(400, "only http and https URLs can be fetched")
    if not parts.hostname:
        raise FetchRefused(400, "the URL has no host")
    return url, parts.hostname, port or _PORTS[parts.scheme]


def fetch_robots(
    raw_url: str, *, allow_private: bool, resolver: Resolver, max_bytes: int, timeout: float
) -> dict[str, Any]:
    """Fetch the robots.txt for ``raw_url``; refuse it (and every redirect hop) by address."""
    url, host, port = fetch_target(raw_url)
    why = refusal(host, port, allow_private=allow_private, resolver=resolver)
    if why is not None:  # checked here too, so the answer is a clear 403, not a fetch failure
        raise FetchRefused(403, why)
    transport = _GuardedTransport(allow_private=allow_private, resolver=resolver)
    http = httpx.Client(transport=transport, follow_redirects=False,
                        headers={"User-Agent": FETCH_USER_AGENT})
    try:
        with RobotsClient(user_agent=FETCH_USER_AGENT, http_client=http, max_bytes=max_bytes,
                          timeout=timeout, connect_timeout=min(timeout, 5.0)) as client:
            fetched = client.rules_for(url)
    finally:
        http.close()
    if transport.refused is not None:
        raise FetchRefused(403, f"redirected to {transport.refused}")
    rules = fetched.rules
    # The editor shows the file as the parser read it (line endings normalised, BOM dropped).
    text = "\n".join(rules.line_text(n) for n in range(1, rules.line_count + 1))
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
    }
