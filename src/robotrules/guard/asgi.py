"""ASGI middleware (Starlette, FastAPI, any ASGI 3 app): the guard in front of the app.

``GuardMiddleware(app, robots=..., mode="observe")`` decides every HTTP request
(:class:`~.service.Guard`), answers 403 / 402 / 401 / 429 itself when ``mode="enforce"`` and
the policy says so, adds ``Content-Usage`` / ``Content-Signal`` to the app's responses, and
serves ``/robots.txt`` (and ``/.well-known/tdmrep.json`` when ``tdmrep`` is given) from the
same configuration. The request is read as the app will read it: the target from
``raw_path`` (the bytes as sent) and ``path`` (as the server decoded them), the query, the
peer; the ``Host`` header only for a signature's authority. Look-ups a decision needs (key
directories, reverse DNS) run in the guard's workers without blocking the event loop; a
request waits for them at most ``check_timeout`` seconds (:meth:`~.service.Guard.acheck_request`).
A failure inside the guard is logged and the request passes on: the guard never turns a
request into a 500. ``report`` is the running :class:`~.audit.Tally`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from .core import Decision, Request
from .service import Guard, answer, attach, log, log_decision, own_file

__all__ = ["GuardMiddleware", "request_of"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def request_of(scope: Scope) -> Request:
    """The :class:`~.core.Request` of an ASGI HTTP scope."""
    raw = scope.get("raw_path")
    path = scope.get("path")
    client = scope.get("client")
    return Request(
        method=str(scope.get("method", "GET")),
        path=raw if isinstance(raw, bytes) else None,
        query=scope.get("query_string", b"") or b"",
        headers=tuple((k.decode("latin-1"), v.decode("latin-1"))
                      for k, v in scope.get("headers", ())),
        peer=str(client[0]) if client else None,
        served_path=path.encode("utf-8", "surrogateescape") if isinstance(path, str)
        else None,
        scheme=str(scope.get("scheme", "http")))


class GuardMiddleware:
    """See the module docstring. ``robots``: the site's robots.txt (text, bytes or a path);
    ``mode``: ``observe`` or ``enforce``; ``guard``: a ready :class:`Guard` instead;
    ``serve_files=False`` leaves ``/robots.txt`` and ``tdmrep.json`` to the app; other keyword
    arguments go to :class:`Guard`."""

    def __init__(self, app: ASGIApp, robots: Any = None, mode: str = "observe", *,
                 guard: Guard | None = None, check_timeout: float = 2.0,
                 serve_files: bool = True, **options: Any) -> None:
        self.app = app
        self.serve_files = serve_files
        self.guard, self.report = attach(robots, mode, guard, options)
        self.check_timeout = check_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        d = await self._decide(scope)
        method = scope.get("method")
        own = own_file(self.guard, scope.get("path", "/")) \
            if self.serve_files and method in ("GET", "HEAD") else None
        if own is not None and (d is None or not d.enforced or d.action == "slow-down"):
            body, ctype = own
            await _respond(send, 200, [("content-type", ctype),
                                       ("content-length", str(len(body)))],
                           b"" if method == "HEAD" else body)
            return
        if d is not None and d.enforced:
            status, headers, body = answer(d)
            await _respond(send, status, headers, b"" if method == "HEAD" else body)
            return
        if d is None or not d.headers:
            await self.app(scope, receive, send)
            return
        extra = [(k.lower().encode("latin-1"), v.encode("latin-1", "replace"))
                 for k, v in d.headers]

        async def send_with(message: Message) -> None:
            if message.get("type") == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", ())}
                message = dict(message)
                message["headers"] = [*message.get("headers", ()),
                                      *((k, v) for k, v in extra if k not in names)]
            await send(message)

        await self.app(scope, receive, send_with)

    async def _decide(self, scope: Scope) -> Decision | None:
        try:
            d = await self.guard.acheck_request(request_of(scope),
                                                timeout=self.check_timeout)
            log_decision(d)
            return d
        except Exception:  # the guard must never break the site
            log.exception("robotrules guard failed; the request passes on")
            return None


async def _respond(send: Send, status: int, headers: list[tuple[str, str]], body: bytes
                   ) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(k.lower().encode("latin-1"), v.encode("latin-1", "replace"))
                            for k, v in headers]})
    await send({"type": "http.response.body", "body": body})
