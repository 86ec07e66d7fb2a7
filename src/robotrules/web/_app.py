"""The web tester: one HTML page and the JSON API it calls.

Routes: ``GET /`` (the page), ``/static/*`` (its script and style, served from the package),
``GET /api/agents``, ``POST /api/check``, ``POST /api/lint`` and ``POST /api/fetch``. Every
POST takes ``application/json`` (which also keeps other sites' pages from posting to it
without a CORS preflight the app never grants), capped at ``max_body`` bytes (413 above it);
bad input gives 400 with ``{"error": "..."}``. Parsing runs in a worker thread so one large
file does not stall the event loop.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any, get_args

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from robotrules import Dialect, Finding, RobotrulesError, parse
from robotrules.agents import known_agents
from robotrules.lint import lint

from ._safety import Resolver, resolve

__all__ = ["DIALECTS", "LOOPBACK_HOSTS", "MAX_BODY", "MAX_FETCH_BYTES", "create_app"]

DIALECTS: tuple[Dialect, ...] = get_args(Dialect)
MAX_BODY = 1024 * 1024  # request bodies; a robots.txt past 500 KiB is cut by crawlers anyway
MAX_FETCH_BYTES = 512 * 1024  # RFC 9309 2.5: crawlers must parse at least 500 KiB
MAX_URLS = 500
MAX_AGENTS = 50
MAX_FIELD = 8192  # one URL or agent
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")

_STATIC = "robotrules.web"
_SECURITY_HEADERS = {
    # Everything comes from the package: no CDN, no inline script, nothing framed.
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}


class ApiError(Exception):
    """A request the API refuses: its HTTP status and a sentence for the caller."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _known_agents() -> list[dict[str, str]]:
    return [
        {
            "token": agent.token,
            "name": agent.name,
            "operator": agent.operator,
            "category": agent.category,
            "purpose": agent.purpose,
        }
        for agent in known_agents()
    ]


# -- request parsing ---------------------------------------------------------------------------


async def _read_json(request: Request, max_body: int) -> dict[str, Any]:
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type != "application/json":
        raise ApiError(415, "send the body as application/json")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_body:
        raise ApiError(413, f"request body is larger than {max_body} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > max_body:
            raise ApiError(413, f"request body is larger than {max_body} bytes")
        chunks.append(chunk)
    try:
        data = json.loads(b"".join(chunks))
    except ValueError as exc:
        raise ApiError(400, f"body is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "body must be a JSON object")
    return data


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise ApiError(400, f"'{key}' must be a string")
    return value


def _dialect(data: dict[str, Any]) -> Dialect:
    value = data.get("dialect", "rfc9309")
    for dialect in DIALECTS:
        if value == dialect:
            return dialect
    raise ApiError(400, f"'dialect' must be one of {', '.join(DIALECTS)}")


def _lines(data: dict[str, Any], key: str, limit: int) -> list[str]:
    value = data.get(key)
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ApiError(400, f"'{key}' must be a list of strings")
    items = [item.strip() for item in value if item.strip()]
    if len(items) > limit:
        raise ApiError(400, f"at most {limit} {key} per request")
    if any(len(item) > MAX_FIELD for item in items):
        raise ApiError(400, f"each of '{key}' must be at most {MAX_FIELD} characters")
    return list(dict.fromkeys(items))  # drop repeats, keep order


# -- the work (plain functions, run in a worker thread) ----------------------------------------


def check(
    body: str, urls: Sequence[str], agents: Sequence[str], dialect: Dialect
) -> dict[str, Any]:
    """Every agent x URL verdict in ``dialect``, with how the other dialects answer."""
    parsed = {d: parse(body, dialect=d) for d in DIALECTS}
    results: list[dict[str, Any]] = []
    for url in urls:
        for agent in agents:
            verdicts = {d: parsed[d].explain(url, user_agent=agent) for d in DIALECTS}
            results.append(
                {
                    "agent": agent,
                    "url": url,
                    "verdict": verdicts[dialect].to_dict(),
                    "dialects": {
                        d: {"allowed": v.allowed, "line": v.line} for d, v in verdicts.items()
                    },
                    "dialects_disagree": len({v.allowed for v in verdicts.values()}) > 1,
                }
            )
    return {"dialect": dialect, "urls": list(urls), "agents": list(agents), "results": results}


def lint_findings(body: str, dialect: Dialect) -> dict[str, Any]:
    findings: list[Finding] = lint(body, dialect=dialect)  # sorted by line
    return {"dialect": dialect, "findings": [f.to_dict() for f in findings]}


# -- the app -----------------------------------------------------------------------------------


class _SecurityHeaders:
    """Adds the headers above to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                for name, value in _SECURITY_HEADERS.items():
                    if name.encode() not in present:
                        headers.append((name.encode(), value.encode()))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app(
    *,
    allow_private: bool = False,
    max_body: int = MAX_BODY,
    max_fetch_bytes: int = MAX_FETCH_BYTES,
    fetch_timeout: float = 10.0,
    allowed_hosts: Iterable[str] = LOOPBACK_HOSTS,
    resolver: Resolver = resolve,
) -> Starlette:
    """The tester as an ASGI app.

    ``allow_private`` lets fetch-by-URL reach loopback and private networks. ``allowed_hosts``
    are the ``Host`` header values accepted (loopback names by default, which stops DNS
    rebinding from turning a web page into a client of this API); pass ``["*"]`` when serving
    on another interface. ``resolver`` maps a host and port to addresses (tests inject one).
    """
    from importlib.resources import files

    index = files(_STATIC).joinpath("static", "index.html")

    async def page(request: Request) -> Response:
        return FileResponse(str(index), media_type="text/html; charset=utf-8")

    async def agents(request: Request) -> Response:
        return JSONResponse({"agents": await run_in_threadpool(_known_agents)})

    async def api_check(request: Request) -> Response:
        data = await _read_json(request, max_body)
        body = _text(data, "robots_txt")
        dialect = _dialect(data)
        urls = _lines(data, "urls", MAX_URLS)
        user_agents = _lines(data, "agents", MAX_AGENTS)
        return JSONResponse(await run_in_threadpool(check, body, urls, user_agents, dialect))

    async def api_lint(request: Request) -> Response:
        data = await _read_json(request, max_body)
        body = _text(data, "robots_txt")
        return JSONResponse(await run_in_threadpool(lint_findings, body, _dialect(data)))

    async def api_fetch(request: Request) -> Response:
        data = await _read_json(request, max_body)
        url = _text(data, "url")
        result = await run_in_threadpool(
            _fetch, url, allow_private, resolver, max_fetch_bytes, fetch_timeout
        )
        return JSONResponse(result)

    async def api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": exc.detail}, status_code=exc.status_code)
        return Response(exc.detail, status_code=exc.status_code, media_type="text/plain")

    handlers: dict[Any, Callable[[Request, Exception], Any]] = {
        ApiError: api_error,
        HTTPException: http_error,
    }
    return Starlette(
        routes=[
            Route("/", page),
            Route("/api/agents", agents),
            Route("/api/check", api_check, methods=["POST"]),
            Route("/api/lint", api_lint, methods=["POST"]),
            Route("/api/fetch", api_fetch, methods=["POST"]),
            Mount("/static", StaticFiles(packages=[(_STATIC, "static")]), name="static"),
        ],
        middleware=[
            Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)),
            Middleware(_SecurityHeaders),
        ],
        exception_handlers=handlers,
    )


def _fetch(
    url: str, allow_private: bool, resolver: Resolver, max_bytes: int, timeout: float
) -> dict[str, Any]:
    try:  # the fetcher needs httpx: loaded here so the rest of the page works without it
        from ._fetch import FetchRefused, fetch_robots
    except ImportError as exc:
        raise ApiError(501, f"fetching needs the web extra: {exc}") from None
    try:
        return fetch_robots(url, allow_private=allow_private, resolver=resolver,
                            max_bytes=max_bytes, timeout=timeout)
    except FetchRefused as exc:
        raise ApiError(exc.status, str(exc)) from None
    except RobotrulesError as exc:
        raise ApiError(502, f"fetch failed: {exc}") from None
