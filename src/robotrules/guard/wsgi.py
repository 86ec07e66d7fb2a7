"""WSGI middleware (Flask, Django, any WSGI app): the guard in front of the app.

``WSGIGuardMiddleware(app, robots=..., mode="observe")`` does what the ASGI one does
(:mod:`.asgi`): decide each request, answer it when enforcing, add the preference headers,
serve ``/robots.txt`` and ``/.well-known/tdmrep.json``. The target is read as the app reads
it: ``SCRIPT_NAME`` + ``PATH_INFO``, which PEP 3333 gives as the decoded bytes of the path read
as Latin-1 (so they are read back as bytes), and the request line's own target when the
server gives it (``RAW_URI``: gunicorn; ``REQUEST_URI``: waitress, uWSGI). Look-ups run in the
guard's worker threads; a request waits for them at most ``check_timeout`` seconds. A failure
inside the guard is logged and the request passes on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .core import Decision, Request
from .service import Guard, answer, attach, log, log_decision, own_file

__all__ = ["WSGIGuardMiddleware", "request_of"]

StartResponse = Callable[..., Any]
WSGIApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


def _bytes(text: object) -> bytes:
    """A PEP 3333 native string (bytes as Latin-1 characters) as its bytes."""
    return str(text).encode("latin-1", "replace")


def request_of(environ: dict[str, Any]) -> Request:
    """The :class:`~.core.Request` of a WSGI environ."""
    pairs: list[tuple[str, str]] = []
    for k, v in environ.items():
        if k.startswith("HTTP_"):
            pairs.append((k[5:].replace("_", "-").lower(), str(v)))
    for k in ("CONTENT_TYPE", "CONTENT_LENGTH"):
        if environ.get(k):
            pairs.append((k.replace("_", "-").lower(), str(environ[k])))
    served = _bytes(environ.get("SCRIPT_NAME", "")) + _bytes(environ.get("PATH_INFO", ""))
    raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
    sent: bytes | None = None
    if raw:
        sent = Request.from_url("GET", _bytes(raw).decode("utf-8", "surrogateescape")).path
    return Request(
        method=str(environ.get("REQUEST_METHOD", "GET")), path=sent,
        query=_bytes(environ.get("QUERY_STRING", "")), headers=tuple(pairs),
        peer=environ.get("REMOTE_ADDR"), served_path=served or b"/",
        scheme=str(environ.get("wsgi.url_scheme", "http")))


class WSGIGuardMiddleware:
    """See the module docstring; the arguments are :class:`~.asgi.GuardMiddleware`'s."""

    def __init__(self, app: WSGIApp, robots: Any = None, mode: str = "observe", *,
                 guard: Guard | None = None, serve_files: bool = True,
                 check_timeout: float = 2.0, **options: Any) -> None:
        self.app = app
        self.check_timeout = check_timeout
        self.serve_files = serve_files
        self.guard, self.report = attach(robots, mode, guard, options)

    def __call__(self, environ: dict[str, Any], start_response: StartResponse
                 ) -> Iterable[bytes]:
        d = self._decide(environ)
        method = environ.get("REQUEST_METHOD", "GET")
        own = own_file(self.guard, environ.get("PATH_INFO", "/")) \
            if self.serve_files and method in ("GET", "HEAD") else None
        if own is not None and (d is None or not d.enforced or d.action == "slow-down"):
            body, ctype = own
            start_response("200 OK", [("Content-Type", ctype),
                                      ("Content-Length", str(len(body)))])
            return [b"" if method == "HEAD" else body]
        if d is not None and d.enforced:
            status, headers, body = answer(d)
            start_response(f"{status} {_REASON.get(status, 'Error')}", headers)
            return [b"" if method == "HEAD" else body]
        if d is None or not d.headers:
            return self.app(environ, start_response)
        extra = list(d.headers)

        def start_with(status: str, headers: list[tuple[str, str]], exc_info: Any = None
                       ) -> Any:
            names = {k.lower() for k, _ in headers}
            headers = [*headers, *((k, v) for k, v in extra if k.lower() not in names)]
            return start_response(status, headers, exc_info) if exc_info is not None \
                else start_response(status, headers)

        return self.app(environ, start_with)

    def _decide(self, environ: dict[str, Any]) -> Decision | None:
        try:
            d = self.guard.check_request(request_of(environ), timeout=self.check_timeout)
            log_decision(d)
            return d
        except Exception:  # the guard must never break the site
            log.exception("robotrules guard failed; the request passes on")
            return None


_REASON = {401: "Unauthorized", 402: "Payment Required", 403: "Forbidden",
           429: "Too Many Requests"}
