"""Bad input gets 400 with a message, never a 5xx (issue 12 item 8), plus a fuzz of the API.

Bodies are sent as raw bytes: JSON may escape a lone surrogate (``"\\ud800"``, RFC 8259 8.2
notes such strings exist and their behaviour is unpredictable), which no UTF-8 encoder on the
client side would produce. Fetch-by-URL runs with a resolver that answers nothing, so no
fuzzed host name ever reaches the system DNS.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from robotrules.web import create_app

pytestmark = pytest.mark.filterwarnings(
    "ignore:Using `httpx` with `starlette.testclient`:DeprecationWarning"
)
JSON = {"content-type": "application/json"}
ENDPOINTS = ["/api/check", "/api/lint", "/api/diff", "/api/fetch"]


def no_dns(host: str, port: int) -> list[str]:
    raise OSError("this test resolves nothing")


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(resolver=no_dns), base_url="http://127.0.0.1") as c:
        yield c


def post(client: TestClient, path: str, raw: bytes) -> Any:
    return client.post(path, content=raw, headers=JSON)


@pytest.mark.parametrize(
    ("path", "raw", "message"),
    [
        ("/api/check", b'{"robots_txt": "", "urls": ["/\\ud800"], "agents": ["*"]}',
         "lone surrogate (U+D800)"),
        ("/api/check", b'{"robots_txt": "", "urls": ["/"], "agents": ["Bot\\udfff"]}',
         "lone surrogate (U+DFFF)"),
        ("/api/check", b'{"robots_txt": "Disallow: /\\ud83d", "urls": [], "agents": []}',
         "lone surrogate"),
        ("/api/lint", b'{"robots_txt": "\\udc80"}', "lone surrogate"),
        ("/api/fetch", b'{"url": "http://\\ud800.example/"}', "lone surrogate"),
        ("/api/diff", b'{"before": "a", "after": "\\ud800"}', "lone surrogate"),
        ("/api/check", b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        ("/api/lint", b'{"robots_txt": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
         "nested too deeply"),
        ("/api/lint", b'{"robots_txt": "\xff\xfe"}', "not valid JSON"),  # invalid UTF-8
        ("/api/lint", b'{"robots_txt": "\xc3"}', "not valid JSON"),
        ("/api/check", b'{"robots_txt": "", "urls": [["/"]], "agents": []}',
         "'urls' must be a list of strings"),
        ("/api/check", b'{"robots_txt": "", "urls": [], "agents": [], "dialect": ["x"]}',
         "'dialect' must be one of"),
        ("/api/check", b'{"robots_txt": "", "urls": [], "agents": [], "dialect": {}}',
         "'dialect' must be one of"),
        ("/api/fetch", b'{"url": 12}', "'url' must be a string"),
        ("/api/fetch", b'{"url": "http://xn--/"}', "not a valid domain name"),
        ("/api/fetch", b'{"url": "http://a\\u0000b.example/"}', ""),
        ("/api/diff", b'{"before": null, "after": ""}', "'before' must be a string"),
        ("/api/lint", b'{"robots_txt": 1e999}', "'robots_txt' must be a string"),
        ("/api/lint", b'{"robots_txt": ' + b"9" * 5000 + b"}", "not valid JSON"),
    ],
)
def test_bad_input_is_400_with_a_message(
    client: TestClient, path: str, raw: bytes, message: str
) -> None:
    response = post(client, path, raw)
    assert 400 <= response.status_code < 500, response.text
    assert message in response.json()["error"]


# -- fuzz ---------------------------------------------------------------------------------------

text = st.one_of(
    st.text(max_size=40),
    st.text(st.characters(codec=None, min_codepoint=0xD7F0, max_codepoint=0xE010), max_size=4),
    st.sampled_from(["*", "/", "$", "http://[::1", "http://faß.example/", "\x00", "\ufeff",
                     "rfc9309", "google", "1994", "User-agent: *\nDisallow: /*a$"]),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | text,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(text, children, max_size=4),
    max_leaves=12,
)
keys = st.sampled_from(["robots_txt", "urls", "agents", "dialect", "url", "before", "after"])
bodies = st.one_of(
    st.dictionaries(keys, json_values, max_size=7),
    json_values,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(ENDPOINTS), body=bodies)
def test_no_json_body_gets_a_5xx(client: TestClient, path: str, body: Any) -> None:
    raw = json.dumps(body).encode()  # ensure_ascii: lone surrogates travel as \\ud800 escapes
    response = post(client, path, raw)
    assert response.status_code < 500, (raw[:200], response.text[:300])
    assert "error" in response.json() or response.status_code == 200


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(ENDPOINTS), raw=st.binary(max_size=64))
def test_no_byte_string_gets_a_5xx(client: TestClient, path: str, raw: bytes) -> None:
    response = post(client, path, raw)
    assert response.status_code < 500, (raw, response.text[:300])


def test_a_client_gone_mid_upload_leaves_no_traceback_in_the_log() -> None:
    """Issue 39: a client that disconnects while its body is being read left "Exception in
    ASGI application" and a traceback in the server log. A client going away is normal
    input (the developers' guide: "Bad input is normal input"): no answer, nothing logged."""
    import logging
    import socket
    import threading

    import httpx

    from .conftest import running

    done = threading.Event()
    inner = create_app()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        try:
            await inner(scope, receive, send)
        finally:
            if scope["type"] == "http" and scope["path"] == "/api/check":
                done.set()

    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    with running(app) as url:
        keep = Keep(logging.WARNING)
        logging.getLogger("uvicorn.error").addHandler(keep)
        try:
            host, port = url.removeprefix("http://").split(":")
            with socket.create_connection((host, int(port))) as sock:
                sock.sendall(b"POST /api/check HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             b"Content-Type: application/json\r\nContent-Length: 100000\r\n"
                             b"\r\n" + b'{"robots_txt": "User-agent: *' + b"x" * 5000)
            assert done.wait(30), "the server never finished the request"
            # One more request: the server has run past the step that would have logged.
            assert httpx.get(url + "/", timeout=30).status_code == 200
        finally:
            logging.getLogger("uvicorn.error").removeHandler(keep)
    assert [r.getMessage() for r in records] == []
