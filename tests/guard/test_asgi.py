"""The ASGI shell (robotrules.guard.asgi) running examples/guard_starlette.py under uvicorn on
127.0.0.1, spoken to over real HTTP."""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import httpx
import pytest

from robotrules.guard import Policy, RangeStore
from robotrules.guard.webbotauth import DIRECTORY_PATH, MEDIA_TYPE, WebBotAuth

from .conftest import EXAMPLES, HttpServer, Reply, Signer, uvicorn_running

pytest.importorskip("uvicorn")
pytest.importorskip("starlette")

GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
GPTBOT = "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)"


def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("guard_starlette",
                                                  EXAMPLES / "guard_starlette.py")
    assert spec is not None
    assert spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def site() -> Iterator[tuple[str, Any]]:
    app = example().build("enforce", ranges=RangeStore(), trusted_proxies=["10.0.0.0/8"])
    with uvicorn_running(app) as base:
        yield base, app


def test_serves_robots_txt_from_the_same_file(site: tuple[str, Any]) -> None:
    base, _ = site
    r = httpx.get(f"{base}/robots.txt", headers={"User-Agent": GPTBOT})
    assert r.status_code == 200
    assert r.content == (EXAMPLES / "guard_robots.txt").read_bytes()


def test_enforce_blocks_the_disallowed_and_passes_the_rest(site: tuple[str, Any]) -> None:
    base, _ = site
    r = httpx.get(f"{base}/blog/one", headers={"User-Agent": GPTBOT})
    assert r.status_code == 403
    assert "line 4" in r.text
    ok = httpx.get(f"{base}/blog/one", headers={"User-Agent": GOOGLEBOT})
    assert ok.status_code == 200
    assert ok.text == "page /blog/one\n"
    browser = httpx.get(f"{base}/admin/", headers={"User-Agent": "Mozilla/5.0 Firefox/130.0"})
    assert browser.status_code == 200
    report = {row["crawler"]: row for row in httpx.get(f"{base}/_guard/report").json()}
    assert report["GPTBot"]["violations"] >= 1
    assert report["GPTBot"]["blocked"] >= 1


def test_preference_headers_are_added(site: tuple[str, Any]) -> None:
    base, _ = site
    r = httpx.get(f"{base}/blog", headers={"User-Agent": "FooBot/1.0"})
    assert r.status_code == 200
    assert r.headers["content-usage"] == "train-ai=n, search=y"
    assert r.headers["content-signal"] == "search=yes, ai-train=no"


def test_spoofed_xff_from_an_untrusted_peer_is_ignored(site: tuple[str, Any]) -> None:
    base, app = site
    seen: list[Any] = []
    app.guard.on_decision, hook = (lambda d: (seen.append(d), hook(d))), app.guard.on_decision
    try:
        httpx.get(f"{base}/blog", headers={"User-Agent": GOOGLEBOT,
                                           "X-Forwarded-For": "66.249.66.1"})
    finally:
        app.guard.on_decision = hook
    assert seen[-1].client.ip == "127.0.0.1"


def test_oversized_and_hostile_headers_never_500(site: tuple[str, Any]) -> None:
    base, _ = site
    for headers in ({"User-Agent": "x" * 60_000},
                    {"User-Agent": GOOGLEBOT, "Signature": "sig1=:AAAA:",
                     "Signature-Input": 'sig1=("@authority");tag="web-bot-auth";keyid="k"',
                     "Signature-Agent": '"https://evil.example"'},
                    {"User-Agent": GOOGLEBOT, "Forwarded": "for=" + "1" * 3000}):
        r = httpx.get(f"{base}/blog", headers=headers)
        assert r.status_code in (200, 403, 431), r.status_code


def test_signed_crawler_with_a_slow_directory_is_bounded(http: HttpServer) -> None:
    # the directory takes ~4 s; the request waits at most check_timeout (0.5 s) and is
    # decided without it, while the fetch goes on and serves the next request from the cache
    signer = Signer(http.base)
    http.routes[DIRECTORY_PATH] = Reply(200, signer.jwks(), {"Content-Type": MEDIA_TYPE},
                                        delay=0.8, chunks=5)
    w = WebBotAuth(trusted_agents=[http.base], use_registry=False, allow_http=True,
                   allow_loopback=True,
                   timeout=5.0)
    app = example().build("enforce", ranges=RangeStore(), web_bot_auth=w,
                          signature_agents={"FooBot": http.base}, check_timeout=0.5,
                          authorities=["site.example"],
                          policy=Policy(on_state={"spoofed": "block",
                                                  "unverifiable": "block"}))
    with uvicorn_running(app) as base:
        url = f"{base}/blog"
        site = {"User-Agent": "FooBot/1.0", "Host": "site.example"}
        start = time.monotonic()
        r = httpx.get(url, headers={**site, **signer.sign("https://site.example/blog")},
                      timeout=10)
        assert time.monotonic() - start < 3.0  # not the directory's 4 s
        assert r.status_code == 403  # unverifiable: the directory did not come in time
        deadline = time.monotonic() + 10
        while w.directory(http.base) is None and time.monotonic() < deadline:
            time.sleep(0.1)
        r = httpx.get(url, headers={**site, **signer.sign("https://site.example/blog")},
                      timeout=10)
        assert r.status_code == 200
        assert http.hits[DIRECTORY_PATH] == 1


def test_the_report_is_for_this_machine_only() -> None:
    # issue 35: "/_guard/report should not be open to everyone in an example"
    import asyncio

    app = example().build("observe", ranges=RangeStore())

    async def status(client: tuple[str, int]) -> int:
        transport = httpx.ASGITransport(app=app, client=client)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://site.example") as c:
            return (await c.get("/_guard/report")).status_code

    assert asyncio.run(status(("203.0.113.5", 4711))) == 404
    assert asyncio.run(status(("127.0.0.1", 4711))) == 200
