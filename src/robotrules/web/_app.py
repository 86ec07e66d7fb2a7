"""The web tester: one HTML page and the JSON API it calls.

Routes: ``GET /`` (the page), ``/static/*`` (its script and style, served from the package),
``GET /api/agents`` (the registry), ``GET /api/syntax`` (the directive keys, for the
highlighter), ``POST /api/agents`` (the registry's crawlers open, partly or blocked by a draft,
by purpose), ``POST /api/check``, ``POST /api/usage`` (AI usage preferences per crawler and
URL; optional ``vocabulary`` and ``policy_tokens``, ``["TOKEN=CATEGORY", ...]``),
``POST /api/lint``, ``POST /api/diff``, ``POST /api/fetch``, ``POST /api/live`` (the one-box
test: a page URL's robots.txt fetched and the page judged) and ``POST /api/sitemaps``
(the file's sitemaps fetched and checked, :mod:`robotrules.web._sitemaps`).
Every POST takes ``application/json`` (which also keeps other sites' pages
from posting to it without a CORS preflight the app never grants), capped at ``max_body``
bytes (413 above it).

Bad input is normal input: invalid JSON or UTF-8, JSON nested too deep, wrong types, lone
surrogates and over-long fields get 400 with ``{"error": "..."}``; a check or usage table past
the work budget (URLs x agents, or the estimated matcher work of
:func:`~robotrules.web._work.check_cost` / :func:`~robotrules.web._work.usage_cost`) gets 422
before any work starts. A check or usage table the estimate calls cheap
(:func:`~robotrules.web._work.is_cheap`) is answered at once, in the thread that decoded it;
the rest, and every registry overview, lint and diff, run in killable worker processes
(:class:`~robotrules.web._work.WorkPool`): 429 with ``Retry-After`` when every slot stays busy,
503 past the deadline, and the work stops when the client disconnects. Decoding a body runs in
a worker thread; ``GET /`` and static files never wait for any of it.

Layout: request parsing (``_decode`` .. ``_sitemap_urls``, each turning a body into a
:class:`_Job` or arguments), the handlers (:class:`_Tester`, one method per route, over
:class:`_Settings`), the routes (:func:`_routes`) and :func:`create_app`, which wires them.
"""

from __future__ import annotations

import functools
import json
import os
import threading
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from importlib.resources import files
from typing import TYPE_CHECKING, Any, NamedTuple

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from robotrules import Dialect, RobotrulesError, parse
from robotrules._directives import REGISTRY
from robotrules.agents import known_agents
from robotrules.aipref import Scope as UsageScope
from robotrules.aipref import parse_policy_tokens
from robotrules.aipref.vocabulary import VOCABULARIES

from ._safety import Resolver, resolve
from ._work import (
    DIALECTS,
    SCOPES,
    WORK_BUDGET,
    Busy,
    Gone,
    JobFailed,
    TooSlow,
    WorkPool,
    check_cost,
    is_cheap,
    run_job,
    usage_cost,
)

if TYPE_CHECKING:
    import httpcore

__all__ = ["DIALECTS", "LOOPBACK_HOSTS", "MAX_AGENT", "MAX_AGENTS", "MAX_BODY", "MAX_CELLS",
           "MAX_FETCH_BYTES", "MAX_URL", "MAX_URLS", "create_app"]

MAX_BODY = 1024 * 1024  # request bodies; a robots.txt past 500 KiB is cut by crawlers anyway
MAX_FETCH_BYTES = 500 * 1024  # RFC 9309 2.5: crawlers must parse at least 500 KiB
MAX_URLS = 500
MAX_AGENTS = 50
MAX_CELLS = 5000  # URLs x agents in one check
MAX_URL = 8192  # RFC 9110 4.1: senders and recipients support URIs of at least 8000 octets
MAX_AGENT = 512  # a product token, or a whole User-Agent header line
MAX_FETCHES = 4  # fetch-by-URL, live tests and sitemap checks in flight at once
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

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None
                 ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers


def _known_agents() -> list[dict[str, str]]:
    return [
        {
            "token": agent.token,
            "name": agent.name,
            "operator": agent.operator,
            "category": agent.category,
            "purpose": agent.purpose,
            "description": agent.description,
        }
        for agent in known_agents()
    ]


# -- request parsing ---------------------------------------------------------------------------


async def _read_body(request: Request, max_body: int) -> bytes:
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media_type != "application/json":
        raise ApiError(415, "send the body as application/json")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_body:
        raise ApiError(413, f"request body is larger than {max_body} bytes")
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > max_body:
                raise ApiError(413, f"request body is larger than {max_body} bytes")
            chunks.append(chunk)
    except ClientDisconnect:  # gone mid-upload: nobody reads an answer, nothing to log
        raise ApiError(499, "the client went away before its request was read") from None
    return b"".join(chunks)


_PREPARING = threading.BoundedSemaphore(1)


def _prepared(parse: Callable[..., Any], *args: Any) -> Any:
    """``parse(*args)`` in a worker thread, one request at a time.

    Decoding a 1 MiB body and estimating its work take milliseconds of GIL each, and so does
    answering a cheap check (:func:`_settle`); forty threads doing it at once would each be
    handed the GIL in turn, and the event loop (and ``GET /``) would wait behind all of them.
    Threads queued on the semaphore do not compete.
    """
    with _PREPARING:
        return parse(*args)


def _decode(raw: bytes) -> dict[str, Any]:
    """The body as a JSON object."""
    try:
        data = json.loads(raw)
    except RecursionError:
        raise ApiError(400, "body is not valid JSON: nested too deeply") from None
    except ValueError as exc:  # includes invalid UTF-8 (UnicodeDecodeError)
        raise ApiError(400, f"body is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "body must be a JSON object")
    return data


def _valid_unicode(value: str, what: str) -> str:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = ord(value[exc.start])
        raise ApiError(400, f"{what} holds a lone surrogate (U+{bad:04X}), which is not "
                       "text; send valid Unicode") from None
    return value


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise ApiError(400, f"'{key}' must be a string")
    return _valid_unicode(value, f"'{key}'")


def _dialect(data: dict[str, Any]) -> Dialect:
    value = data.get("dialect", "rfc9309")
    for dialect in DIALECTS:
        if isinstance(value, str) and value == dialect:
            return dialect
    raise ApiError(400, f"'dialect' must be one of {', '.join(DIALECTS)}")


def _lines(data: dict[str, Any], key: str, limit: int, longest: int) -> list[str]:
    value = data.get(key)
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ApiError(400, f"'{key}' must be a list of strings")
    items = [_valid_unicode(item, f"an item of '{key}'").strip() for item in value]
    items = [item for item in items if item]
    if len(items) > limit:
        raise ApiError(400, f"at most {limit} {key} per request")
    if any(len(item) > longest for item in items):
        raise ApiError(400, f"each of '{key}' must be at most {longest} characters")
    return list(dict.fromkeys(items))  # drop repeats, keep order


def _scope(data: dict[str, Any]) -> UsageScope:
    value = data.get("scope", "group")
    for scope in SCOPES:
        if isinstance(value, str) and value == scope:
            return scope
    raise ApiError(400, f"'scope' must be one of {', '.join(SCOPES)} (where Content-Signal "
                   "lines apply: the crawler's group, or the whole file)")


def _queries(data: dict[str, Any], budget: int,
             estimate: Callable[[str, list[str], list[str]], int]
             ) -> tuple[str, list[str], list[str], Dialect, int]:
    """The file, URLs, agents and dialect of a check or usage table, within the limits, and the
    estimated work."""
    body = _text(data, "robots_txt")
    dialect = _dialect(data)
    urls = _lines(data, "urls", MAX_URLS, MAX_URL)
    agents = _lines(data, "agents", MAX_AGENTS, MAX_AGENT)
    return body, urls, agents, dialect, _within_budget(body, urls, agents, budget, estimate)


def _within_budget(body: str, urls: list[str], agents: list[str], budget: int,
                   estimate: Callable[[str, list[str], list[str]], int]) -> int:
    if len(urls) * len(agents) > MAX_CELLS:
        raise ApiError(422, f"{len(urls)} URLs x {len(agents)} agents is more than "
                       f"{MAX_CELLS} verdicts per request; split the check")
    cost = estimate(body, urls, agents)
    if cost > budget and estimate is usage_cost:
        raise ApiError(422, (
            f"this usage table is too much work for the tester: about {cost:.2g} steps where "
            f"one request may take {budget:.2g} (lines of the file x URLs x agents); test "
            "fewer URLs or fewer agents"))
    if cost > budget:
        raise ApiError(422, (
            f"this check is too much work for the tester: about {cost:.2g} matcher steps "
            f"where one request may take {budget:.2g} (rules with '*' x URL length x URLs x "
            "agents); test fewer or shorter URLs, fewer agents, or fewer wildcard rules"))
    return cost


class _Job(NamedTuple):
    """Work for the pool (``result`` None) or already answered here, being cheap."""

    name: str
    args: tuple[Any, ...]
    result: dict[str, Any] | None = None


def _settle(name: str, args: tuple[Any, ...], body: str, cost: int) -> _Job:
    """Answer a cheap job at once, in this thread; leave the rest to the pool."""
    if not is_cheap(body, cost):
        return _Job(name, args)
    try:
        return _Job(name, args, run_job(name, args))
    except RobotrulesError as exc:  # as a worker would answer it
        raise ApiError(422, str(exc)) from None


def _check_job(raw: bytes, budget: int) -> _Job:
    body, urls, agents, dialect, cost = _queries(_decode(raw), budget, check_cost)
    return _settle("check", (body, urls, agents, dialect), body, cost)


def _usage_job(raw: bytes, budget: int) -> _Job:
    data = _decode(raw)
    body, urls, agents, dialect, cost = _queries(data, budget, usage_cost)
    args = (body, urls, agents, dialect, _scope(data), _vocabulary(data),
            _policy_tokens(data))
    return _settle("usage", args, body, cost)


def _policy_tokens(data: dict[str, Any]) -> dict[str, str] | None:
    """The policy tokens of a usage table (``["TOKEN=CATEGORY", ...]``,
    robotrules.aipref.policy_tokens); absent or empty: the built-in table."""

    if data.get("policy_tokens") is None:
        return None
    items = _lines(data, "policy_tokens", MAX_AGENTS, MAX_AGENT)
    try:
        return parse_policy_tokens(items) or None
    except ValueError as exc:
        raise ApiError(400, f"'policy_tokens': {exc}") from None


def _vocabulary(data: dict[str, Any]) -> str:
    """The AIPREF vocabulary version of a usage table (robotrules.aipref.VOCABULARIES)."""

    value = data.get("vocabulary", "vocab-07")
    if isinstance(value, str) and value in VOCABULARIES:
        return value
    raise ApiError(400, f"'vocabulary' must be one of {', '.join(VOCABULARIES)}")


def _lint_job(name: str) -> Callable[[bytes], _Job]:
    def job(raw: bytes) -> _Job:
        data = _decode(raw)
        return _Job(name, (_text(data, "robots_txt"), _dialect(data)))
    return job


def _diff_job(raw: bytes) -> _Job:
    data = _decode(raw)
    return _Job("diff", (_text(data, "before"), _text(data, "after")))


def _fetch_url(raw: bytes) -> str:
    return _text(_decode(raw), "url")


def _live_args(raw: bytes) -> tuple[str, list[str], Dialect]:
    data = _decode(raw)
    url = _text(data, "url")
    if len(url) > MAX_URL:
        raise ApiError(400, f"'url' must be at most {MAX_URL} characters")
    agents = _lines(data, "agents", MAX_AGENTS, MAX_AGENT) if "agents" in data else []
    return url, agents or ["*"], _dialect(data)


def _sitemap_urls(raw: bytes) -> list[str]:
    """The sitemap URLs the parser reads from the body's file (RobotsTxt.sitemaps)."""
    data = _decode(raw)
    body = _text(data, "robots_txt")
    return parse(body, dialect=_dialect(data)).sitemaps


@functools.lru_cache(maxsize=1)
def _syntax() -> dict[str, Any]:
    """Every key spelling the directive registry knows, with its role, for the highlighter."""

    keys: dict[str, str] = {}
    for d in REGISTRY:
        for name in (d.key, *d.spellings):
            keys[name] = d.role
        for name in d.typos:
            keys.setdefault(name, "typo")
    return {"keys": keys}


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


@dataclass(frozen=True)
class _Settings:
    """What :func:`create_app` was given (see its docstring)."""

    allow_private: bool
    max_body: int
    max_fetch_bytes: int
    fetch_timeout: float
    resolver: Resolver
    network_backend: httpcore.NetworkBackend | None
    work_budget: int


class _Tester:
    """The request handlers, over one configuration, one work pool and the fetch slots."""

    def __init__(self, settings: _Settings, pool: WorkPool) -> None:
        self.settings = settings
        self.pool = pool
        self.fetch_slots = threading.BoundedSemaphore(MAX_FETCHES)

        self.index = files(_STATIC).joinpath("static", "index.html")

    # -- pages and reference data

    async def page(self, request: Request) -> Response:
        return FileResponse(str(self.index), media_type="text/html; charset=utf-8")

    async def agents(self, request: Request) -> Response:
        return JSONResponse({"agents": await run_in_threadpool(_known_agents)})

    async def syntax(self, request: Request) -> Response:
        return JSONResponse(_syntax())

    # -- work: answered at once when cheap, else in the pool

    async def _job(self, request: Request, parse_job: Callable[..., _Job], *extra: Any) -> _Job:
        raw = await _read_body(request, self.settings.max_body)
        job: _Job = await run_in_threadpool(_prepared, parse_job, raw, *extra)
        return job

    async def _result(self, request: Request, job: _Job) -> dict[str, Any] | None:
        """The job's answer; None when the client has gone."""
        if job.result is not None:
            return job.result
        try:
            return await self.pool.run(job.name, job.args, request.is_disconnected)
        except Busy as exc:
            raise ApiError(429, str(exc), {"retry-after": str(exc.retry_after)}) from None
        except TooSlow as exc:
            raise ApiError(503, str(exc)) from None
        except JobFailed as exc:
            raise ApiError(exc.status, str(exc)) from None
        except Gone:
            return None

    async def _answer(self, request: Request, job: _Job) -> Response:
        result = await self._result(request, job)
        if result is None:
            return Response(status_code=499)  # nobody reads it: the client has gone
        return JSONResponse(result)

    async def check(self, request: Request) -> Response:
        return await self._answer(request, await self._job(
            request, _check_job, self.settings.work_budget))

    async def usage(self, request: Request) -> Response:
        return await self._answer(request, await self._job(
            request, _usage_job, self.settings.work_budget))

    async def registry(self, request: Request) -> Response:
        return await self._answer(request, await self._job(request, _lint_job("registry")))

    async def lint(self, request: Request) -> Response:
        return await self._answer(request, await self._job(request, _lint_job("lint")))

    async def diff(self, request: Request) -> Response:
        return await self._answer(request, await self._job(request, _diff_job))

    # -- fetches: through the address guard, at most MAX_FETCHES at once

    async def _fetching(self, call: Callable[..., Any], *args: Any) -> Any:
        if not self.fetch_slots.acquire(blocking=False):
            raise ApiError(429, f"{MAX_FETCHES} fetches are already running; retry shortly",
                           {"retry-after": "5"})
        try:
            return await run_in_threadpool(call, *args)
        finally:
            self.fetch_slots.release()

    async def _fetch_robots(self, url: str) -> dict[str, Any]:
        s = self.settings
        result: dict[str, Any] = await self._fetching(
            _fetch, url, s.allow_private, s.resolver, s.network_backend, s.max_fetch_bytes,
            s.fetch_timeout)
        return result

    async def fetch(self, request: Request) -> Response:
        raw = await _read_body(request, self.settings.max_body)
        url = await run_in_threadpool(_prepared, _fetch_url, raw)
        return JSONResponse(await self._fetch_robots(url))

    async def live(self, request: Request) -> Response:
        """The one-box test: a page URL's robots.txt fetched, and the page judged by it."""
        raw = await _read_body(request, self.settings.max_body)
        url, agents, dialect = await run_in_threadpool(_prepared, _live_args, raw)
        fetched = await self._fetch_robots(url)
        page_url: str = fetched["url"]
        checked = None
        if fetched["outcome"] == "rules":
            body: str = fetched["robots_txt"]
            budget = self.settings.work_budget

            def job() -> _Job:
                cost = _within_budget(body, [page_url], agents, budget, check_cost)
                return _settle("check", (body, [page_url], agents, dialect), body, cost)

            checked = await self._result(request, await run_in_threadpool(_prepared, job))
            if checked is None:
                return Response(status_code=499)
        return JSONResponse({"url": page_url, "dialect": dialect, "fetch": fetched,
                             "check": checked, "answers": _live_answers(fetched, checked, agents)})

    async def sitemaps(self, request: Request) -> Response:
        raw = await _read_body(request, self.settings.max_body)
        urls: list[str] = await run_in_threadpool(_prepared, _sitemap_urls, raw)
        s = self.settings
        checked = await self._fetching(functools.partial(
            _check_sitemaps, urls, allow_private=s.allow_private, resolver=s.resolver,
            timeout=min(s.fetch_timeout, 10.0), budget=2 * s.fetch_timeout,
            network_backend=s.network_backend)) if urls else []
        return JSONResponse({"sitemaps": checked, "total": len(urls)})

    @asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        await run_in_threadpool(self.pool.warm)
        yield
        self.pool.close()


def _live_answers(fetched: dict[str, Any], checked: dict[str, Any] | None,
                  agents: list[str]) -> list[dict[str, Any]]:
    """Per agent: may it fetch the page, by which line, and why (in words)."""
    if checked is not None:
        return [{"agent": r["agent"], "allowed": r["verdict"]["allowed"],
                 "line": r["verdict"]["line"], "why": r["verdict"]["detail"]}
                for r in checked["results"]]
    allowed = fetched["outcome"] == "allow-all"  # RFC 9309 2.3.1.3; else 2.3.1.4
    why = f"{fetched['transcript']['meaning']} ({fetched['summary']})"
    return [{"agent": agent, "allowed": allowed, "line": None, "why": why} for agent in agents]


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return JSONResponse({"error": exc.message}, status_code=exc.status, headers=exc.headers)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)
    return Response(exc.detail, status_code=exc.status_code, media_type="text/plain")


_HANDLERS: dict[Any, Callable[[Request, Exception], Any]] = {
    ApiError: _api_error,
    HTTPException: _http_error,
}


def _routes(t: _Tester) -> list[BaseRoute]:
    return [
        Route("/", t.page),
        Route("/api/agents", t.agents, methods=["GET", "HEAD"]),
        Route("/api/agents", t.registry, methods=["POST"]),
        Route("/api/syntax", t.syntax, methods=["GET", "HEAD"]),
        Route("/api/check", t.check, methods=["POST"]),
        Route("/api/usage", t.usage, methods=["POST"]),
        Route("/api/lint", t.lint, methods=["POST"]),
        Route("/api/diff", t.diff, methods=["POST"]),
        Route("/api/fetch", t.fetch, methods=["POST"]),
        Route("/api/live", t.live, methods=["POST"]),
        Route("/api/sitemaps", t.sitemaps, methods=["POST"]),
        Mount("/static", StaticFiles(packages=[(_STATIC, "static")]), name="static"),
    ]


def create_app(
    *,
    allow_private: bool = False,
    max_body: int = MAX_BODY,
    max_fetch_bytes: int = MAX_FETCH_BYTES,
    fetch_timeout: float = 10.0,
    allowed_hosts: Iterable[str] = LOOPBACK_HOSTS,
    resolver: Resolver = resolve,
    network_backend: httpcore.NetworkBackend | None = None,
    workers: int | None = None,
    work_deadline: float = 10.0,
    queue_wait: float = 3.0,
    work_budget: int = WORK_BUDGET,
) -> Starlette:
    """The tester as an ASGI app.

    ``allow_private`` lets fetch-by-URL (and the live test and sitemap checks) reach loopback
    and private networks. ``allowed_hosts`` are the ``Host`` header values accepted (loopback
    names by default, which stops DNS rebinding from turning a web page into a client of this
    API); pass ``["*"]`` when serving on another interface. ``resolver`` maps an ASCII host
    and a port to addresses and ``network_backend`` is the socket layer fetches connect
    through (tests inject both). ``workers`` processes (default: the CPU count, at most 4)
    run checks, lints and diffs too costly to answer at once, each stopped after
    ``work_deadline`` seconds; a request waits ``queue_wait`` seconds for one before 429;
    ``work_budget`` caps a check's estimated matcher steps (422 above).
    """
    settings = _Settings(allow_private=allow_private, max_body=max_body,
                         max_fetch_bytes=max_fetch_bytes, fetch_timeout=fetch_timeout,
                         resolver=resolver, network_backend=network_backend,
                         work_budget=work_budget)
    pool = WorkPool(workers or max(1, min(4, os.cpu_count() or 1)), wait=queue_wait,
                    deadline=work_deadline)
    tester = _Tester(settings, pool)
    app = Starlette(
        routes=_routes(tester),
        middleware=[
            Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)),
            Middleware(_SecurityHeaders),
        ],
        exception_handlers=_HANDLERS,
        lifespan=tester.lifespan,
    )
    app.state.pool = pool
    return app


def _fetch(
    url: str, allow_private: bool, resolver: Resolver,
    network_backend: httpcore.NetworkBackend | None, max_bytes: int, timeout: float,
) -> dict[str, Any]:
    try:  # the fetcher needs httpx: loaded here so the rest of the page works without it
        from ._fetch import FetchRefused, fetch_robots
    except ImportError as exc:
        raise ApiError(501, f"fetching needs the web extra: {exc}") from None
    try:
        return fetch_robots(url, allow_private=allow_private, resolver=resolver,
                            max_bytes=max_bytes, timeout=timeout,
                            network_backend=network_backend)
    except FetchRefused as exc:
        raise ApiError(exc.status, str(exc)) from None
    except (ValueError, UnicodeError) as exc:  # a URL httpx or the fetch client rejects
        raise ApiError(400, f"not a URL that can be fetched: {exc}") from None
    except RobotrulesError as exc:
        raise ApiError(502, f"fetch failed: {exc}") from None


def _check_sitemaps(urls: list[str], **options: Any) -> list[dict[str, Any]]:
    try:  # needs httpx, like _fetch
        from ._sitemaps import check_sitemaps
    except ImportError as exc:
        raise ApiError(501, f"fetching needs the web extra: {exc}") from None
    result: list[dict[str, Any]] = check_sitemaps(urls, **options)
    return result
