"""Injected httpx clients built on MockTransport (STYLE: httpx's offline-test transport).

A handler that returns ``httpx.Response(200, content=...)`` hands over a body httpx has
already read; the clients must use it (capped like any body), not fail on the spent stream.
Source of the semantics: RFC 9309 2.3.1.1 (2xx: parse) and 2.5 (the parsing limit).
"""

from __future__ import annotations

import httpx

from robotrules.fetch import AsyncRobotsClient, RobotsClient

BODY = b"User-agent: *\nDisallow: /private\n"


def _handler(request: httpx.Request) -> httpx.Response:
    if request.url.path == "/robots.txt":
        if request.url.host == "big.example":
            return httpx.Response(200, content=b"User-agent: *\nDisallow: /a\n" + b"#" * 600_000
                                  + b"\nDisallow: /b\n")
        return httpx.Response(200, content=BODY)
    return httpx.Response(404)


def test_sync_client_reads_an_already_read_body() -> None:
    http = httpx.Client(transport=httpx.MockTransport(_handler))
    with RobotsClient(user_agent="ExampleBot/1.0", http_client=http) as client:
        assert not client.is_allowed("https://site.example/private/x", user_agent="ExampleBot")
        assert client.is_allowed("https://site.example/public", user_agent="ExampleBot")
        fetched = client.rules_for("https://big.example/")
        assert fetched.truncated
        assert fetched.size <= 512_000
        assert not client.is_allowed("https://big.example/a", user_agent="x")
        assert client.is_allowed("https://big.example/b", user_agent="x")  # past the cap


async def test_async_client_reads_an_already_read_body() -> None:
    http = httpx.AsyncClient(transport=httpx.MockTransport(_handler))
    async with AsyncRobotsClient(user_agent="ExampleBot/1.0", http_client=http) as client:
        assert not await client.is_allowed("https://site.example/private/x",
                                           user_agent="ExampleBot")
        assert await client.is_allowed("https://site.example/public", user_agent="ExampleBot")
