"""WSGI middleware (Flask, Django, any WSGI app): the guard in front of the app.

``WSGIGuardMiddleware(app, robots=..., mode="observe")`` does what the ASGI one does
(:mod:`.asgi`): decide each request, answer it when enforcing, add the preference headers,
serve ``/robots.txt`` and ``/.well-known/tdmrep.json``. Look-ups run in a small pool of worker
threads; a request waits for them at most ``check_timeout`` seconds and is decided without
what has not come, while the look-up goes on and its cached answer serves the next requests.
A failure inside the guard is logged and the request passes on.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from .asgi import answer, attach, served
from .core import Decision, Guard

__all__ = ["WSGIGuardMiddleware"]

log = logging.getLogger("robotrules.guard")
StartResponse = Callable[..., Any]
WSGIApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


def _headers(environ: dict[str, Any]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for k, v in environ.items():
        if k.startswith("HTTP_"):
            out.append((k[5:].replace("_", "-").lower(), str(v)))
    for k in ("CONTENT_TYPE", "CONTENT_LENGTH"):
        if environ.get(k):
            out.append((k.replace("_", "-").lower(), str(environ[k])))
    return out


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
        own = served(self.guard, environ.get("PATH_INFO", "/")) \
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
            pairs = _headers(environ)
            path = environ.get("PATH_INFO", "/") or "/"
            if environ.get("QUERY_STRING"):
                path = f"{path}?{environ['QUERY_STRING']}"
            host = environ.get("HTTP_HOST") or environ.get("SERVER_NAME", "localhost")
            url = f"{environ.get('wsgi.url_scheme', 'http')}://{host}{path}"
            d = self.guard.check(environ.get("REQUEST_METHOD", "GET"), url, pairs,
                                 environ.get("REMOTE_ADDR"), timeout=self.check_timeout)
            if d.is_crawler:
                log.info("%s %s %s: %s, %s -> %s", d.client.ip, d.method, d.path, d.token,
                         d.verification.state, d.action)
            return d
        except Exception:  # the guard must never break the site
            log.exception("robotrules guard failed; the request passes on")
            return None


_REASON = {401: "Unauthorized", 402: "Payment Required", 403: "Forbidden",
           429: "Too Many Requests"}
