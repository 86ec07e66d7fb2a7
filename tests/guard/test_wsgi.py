"""The WSGI shell (robotrules.guard.wsgi) running examples/guard_flask.py under waitress on
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

from .conftest import EXAMPLES, HttpServer, Reply, Signer, waitress_running

pytest.importorskip("waitress")
pytest.importorskip("flask")

GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
GPTBOT = "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)"


def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("guard_flask", EXAMPLES / "guard_flask.py")
    assert spec is not None
    assert spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    app = example().build("enforce", ranges=RangeStore(), tdmrep='[{"location": "/", '
                          '"tdm-reservation": 1}]',
                          policy=Policy(on_purpose={"ai-search": "pay"}))
    with waitress_running(app) as base:
        yield base


def test_serves_robots_txt_and_tdmrep(site: str) -> None:
    r = httpx.get(f"{site}/robots.txt")
    assert r.status_code == 200
    assert r.content == (EXAMPLES / "guard_robots.txt").read_bytes()
    t = httpx.get(f"{site}/.well-known/tdmrep.json")
    assert t.headers["content-type"] == "application/json"
    assert t.json()[0]["tdm-reservation"] == 1


def test_enforce(site: str) -> None:
    assert httpx.get(f"{site}/blog", headers={"User-Agent": GPTBOT}).status_code == 403
    ok = httpx.get(f"{site}/blog", headers={"User-Agent": GOOGLEBOT})
    assert ok.status_code == 200
    assert ok.text == "page /blog\n"
    pay = httpx.get(f"{site}/blog", headers={"User-Agent": "Mozilla/5.0 (compatible; "
                                                           "OAI-SearchBot/1.0)"})
    assert pay.status_code == 402
    assert pay.headers["crawler-price"] == "USD 0.01"
    head = httpx.head(f"{site}/blog", headers={"User-Agent": GPTBOT})
    assert head.status_code == 403


def test_headers_and_report(site: str) -> None:
    r = httpx.get(f"{site}/blog", headers={"User-Agent": "FooBot/1.0"})
    assert r.headers["content-usage"] == "train-ai=n, search=y"
    httpx.get(f"{site}/blog", headers={"User-Agent": GPTBOT})
    rows: list[dict[str, Any]] = httpx.get(f"{site}/_guard/report").json()
    assert any(row["crawler"] == "GPTBot" and row["violations"] >= 1 for row in rows)


def test_hostile_headers_never_500(site: str) -> None:
    for headers in ({"User-Agent": "y" * 30_000},
                    {"User-Agent": GOOGLEBOT, "Signature-Input": "((((", "Signature": "x"},
                    {"User-Agent": GOOGLEBOT, "X-Forwarded-For": "1.1.1.1, , garbage"}):
        r = httpx.get(f"{site}/blog", headers=headers)
        assert r.status_code in (200, 403, 431)


def test_observe_mode_passes_everything() -> None:
    app = example().build("observe", ranges=RangeStore(), serve_files=False)
    with waitress_running(app) as base:
        assert httpx.get(f"{base}/blog", headers={"User-Agent": GPTBOT}).status_code == 200
        # serve_files=False: the app answers /robots.txt itself
        assert httpx.get(f"{base}/robots.txt").text == "page /robots.txt\n"


def test_signed_crawler_with_a_slow_directory_is_bounded(http: HttpServer) -> None:
    # as in ASGI: the request waits at most check_timeout, the fetch goes on in a worker
    # thread and serves the next request from the cache
    signer = Signer(http.base)
    http.routes[DIRECTORY_PATH] = Reply(200, signer.jwks(), {"Content-Type": MEDIA_TYPE},
                                        delay=0.8, chunks=5)
    w = WebBotAuth(trusted_agents=[http.base], use_registry=False, allow_http=True,
                   allow_loopback=True,
                   timeout=5.0)
    app = example().build("enforce", ranges=RangeStore(), web_bot_auth=w,
                          signature_agents={"FooBot": http.base}, check_timeout=0.5,
                          authorities=["site.example"],
                          policy=Policy(on_state={"unverifiable": "block"}))
    with waitress_running(app) as base:
        url = f"{base}/blog"
        site = {"User-Agent": "FooBot/1.0", "Host": "site.example"}
        start = time.monotonic()
        r = httpx.get(url, headers={**site, **signer.sign("https://site.example/blog")},
                      timeout=10)
        assert time.monotonic() - start < 3.0  # not the directory's 4 s
        assert r.status_code == 403
        deadline = time.monotonic() + 10
        while w.directory(http.base) is None and time.monotonic() < deadline:
            time.sleep(0.1)
        r = httpx.get(url, headers={**site, **signer.sign("https://site.example/blog")},
                      timeout=10)
        assert r.status_code == 200
        assert http.hits[DIRECTORY_PATH] == 1


def test_the_report_is_for_this_machine_only() -> None:
    # issue 35: "/_guard/report should not be open to everyone in an example"
    app = example().build("observe", ranges=RangeStore())
    client = app.test_client()
    assert client.get("/_guard/report", environ_base={"REMOTE_ADDR": "203.0.113.5"}
                      ).status_code == 404
    assert client.get("/_guard/report", environ_base={"REMOTE_ADDR": "127.0.0.1"}
                      ).status_code == 200
