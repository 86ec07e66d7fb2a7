"""ASGI middleware (Starlette, FastAPI, any ASGI 3 app): the guard in front of the app.

``GuardMiddleware(app, robots=..., mode="observe")`` decides every HTTP request
(:class:`~.core.Guard`), answers 403 / 402 / 401 / 429 itself when ``mode="enforce"`` and the
policy says so, adds ``Content-Usage`` / ``Content-Signal`` to the app's responses, and serves
``/robots.txt`` (and ``/.well-known/tdmrep.json`` when ``tdmrep`` is given) from the same
configuration. Look-ups a decision needs (key directories, reverse DNS) run without blocking the
event loop; a request waits for them at most ``check_timeout`` seconds and is decided without
what has not come, while the look-up goes on and its cached answer serves the next requests
(:meth:`~.core.Guard.aresolve`). A failure inside the guard is logged and the request passes
on: the guard never turns a request into a 500. ``report`` is the
running :class:`~.audit.Tally`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from .audit import Tally
from .core import Decision, Guard

__all__ = ["GuardMiddleware"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

log = logging.getLogger("robotrules.guard")


def answer(d: Decision) -> tuple[int, list[tuple[str, str]], bytes]:
    """The guard's own response for an enforced decision: status, headers, body."""
    body = (f"{d.status} {d.reason}\n").encode("utf-8", "replace")
    headers = [("content-type", "text/plain; charset=utf-8"),
               ("content-length", str(len(body))), *d.block_headers, *d.headers]
    return d.status, headers, body


def attach(robots: Any, mode: str, guard: Guard | None, options: dict[str, Any]
           ) -> tuple[Guard, Tally]:
    """The guard a middleware runs (``guard``, or one made from ``robots``, ``mode`` and
    ``options``) and the running tally every decision is added to (before the caller's own
    ``on_decision`` hook, if ``options`` has one): one set-up for the ASGI and WSGI shells."""
    report = Tally()
    hook = options.pop("on_decision", None)

    def on_decision(d: Decision) -> None:
        report.add(d)
        if hook is not None:
            hook(d)

    if guard is None:
        guard = Guard(robots, mode=mode, on_decision=on_decision,  # type: ignore[arg-type]
                      **options)
    else:
        guard.on_decision = on_decision
    return guard, report


def served(guard: Guard, path: str) -> tuple[bytes, str] | None:
    """The body and content type the guard serves itself at ``path``, if any."""
    if path == "/robots.txt":
        return guard.robots_body, "text/plain; charset=utf-8"
    if path == "/.well-known/tdmrep.json" and guard.tdmrep is not None:
        return guard.tdmrep, "application/json"
    return None


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
        path = scope.get("path", "/")
        own = served(self.guard, path) if self.serve_files and \
            scope.get("method") in ("GET", "HEAD") else None
        if own is not None and (d is None or not d.enforced or d.action == "slow-down"):
            body, ctype = own
            await _respond(send, 200, [("content-type", ctype),
                                       ("content-length", str(len(body)))],
                           b"" if scope.get("method") == "HEAD" else body)
            return
        if d is not None and d.enforced:
            status, headers, body = answer(d)
            await _respond(send, status, headers, b"" if scope.get("method") == "HEAD" else body)
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
            pairs = [(k.decode("latin-1"), v.decode("latin-1"))
                     for k, v in scope.get("headers", ())]
            client = scope.get("client")
            peer = client[0] if client else None
            qs = scope.get("query_string", b"")
            path = scope.get("raw_path") or scope.get("path", "/").encode("utf-8")
            path = path.decode("latin-1") if isinstance(path, bytes) else str(path)
            if qs:
                path = f"{path}?{qs.decode('latin-1')}"
            host = next((v for k, v in pairs if k.lower() == "host"), "localhost")
            url = f"{scope.get('scheme', 'http')}://{host}{path}"
            method = str(scope.get("method", "GET"))
            g = self.guard
            d = g.decide(method, url, pairs, peer)
            if d.pending:
                await g.aresolve(d.pending, self.check_timeout)
                d = g.decide(method, url, pairs, peer)
                if d.pending:
                    d = g._without_pending(d)
            if d.is_crawler:
                log.info("%s %s %s: %s, %s -> %s", d.client.ip, d.method, d.path, d.token,
                         d.verification.state, d.action)
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
