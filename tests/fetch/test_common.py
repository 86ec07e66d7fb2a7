"""``robotrules.fetch._common.describe_exception``: transport failures in stable words.

The words are what ``FetchedRobots.error``, the CLI's "could not fetch ... (why)" warning and
``bulk``'s ``error`` column show (issue 26), so each class of failure keeps its name. Real
failures where they can be had on loopback (a refused connection, a stalled server, a server
that closes mid-body); the exception shapes of other libraries (DNS, TLS, h11's words) are
built as those libraries raise them.
"""

from __future__ import annotations

import socket
import ssl
import threading

import httpx
import pytest

from robotrules.fetch._common import describe_exception


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port: int = s.getsockname()[1]
    s.close()
    return port


def _raised(url: str, timeout: float = 5.0) -> BaseException:
    try:
        httpx.get(url, timeout=timeout)
    except httpx.HTTPError as exc:
        return exc
    raise AssertionError("no error")


def test_refused_on_loopback() -> None:
    assert describe_exception(_raised(f"http://127.0.0.1:{_free_port()}/")) == (
        "connection refused")


def _server(reply: bytes | None) -> tuple[str, threading.Event]:
    """A one-connection server: sends ``reply`` then closes, or (None) holds the line."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    done = threading.Event()

    def run() -> None:
        conn, _ = srv.accept()
        conn.recv(65536)
        if reply is not None:
            conn.sendall(reply)
        else:
            done.wait(10)
        conn.close()
        srv.close()

    threading.Thread(target=run, daemon=True).start()
    return f"http://127.0.0.1:{srv.getsockname()[1]}/", done


def test_stalled_server_is_a_timeout() -> None:
    url, done = _server(None)
    try:
        assert describe_exception(_raised(url, timeout=0.3)) == "timeout"
    finally:
        done.set()


def test_body_shorter_than_content_length() -> None:
    url, _ = _server(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nUser-agent: *\n")
    assert describe_exception(_raised(url)) == "incomplete body"


def test_no_response_at_all() -> None:
    url, _ = _server(b"")
    assert describe_exception(_raised(url)) == "no response"


def _chained(outer: BaseException, inner: BaseException) -> BaseException:
    try:
        try:
            raise inner
        except BaseException as exc:
            raise outer from exc
    except BaseException as exc:
        return exc


@pytest.mark.parametrize(("exc", "words"), [
    (_chained(httpx.ConnectError("[Errno -2] Name or service not known"),
              socket.gaierror(-2, "Name or service not known")), "DNS failure"),
    (_chained(httpx.ConnectError("x"), ssl.SSLError(1, "CERTIFICATE_VERIFY_FAILED")),
     "TLS error"),
    (_chained(httpx.ReadError("x"), ConnectionResetError(104, "reset by peer")),
     "connection reset"),
    (httpx.RemoteProtocolError("illegal status line: b'HTTP/9'"), "invalid response"),
    (httpx.RemoteProtocolError("malformed chunked data"), "broken chunked encoding"),
    (httpx.RemoteProtocolError("peer closed connection"), "incomplete body"),
    (httpx.RemoteProtocolError("something else"), "protocol error"),
    (RuntimeError("odd"), "network error (RuntimeError)"),
])
def test_words_for_each_kind(exc: BaseException, words: str) -> None:
    assert describe_exception(exc) == words


def test_a_cause_chain_that_loops_is_bounded() -> None:
    a = RuntimeError("a")
    b = RuntimeError("b")
    a.__cause__ = b
    b.__cause__ = a
    assert describe_exception(a) == "network error (RuntimeError)"
