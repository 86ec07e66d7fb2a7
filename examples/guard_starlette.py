"""A Starlette (or FastAPI) site behind the robotrules guard: ASGI.

Run it:  uvicorn --no-proxy-headers examples.guard_starlette:app
         (GUARD_MODE=enforce to answer 403/402/...; GUARD_AUTHORITIES=example.com,www.example.com
         to check Web Bot Auth signatures made for those host names; behind a proxy, give the
         guard trusted_proxies=[...] and keep --no-proxy-headers so that uvicorn leaves the
         client address to the guard)
FastAPI: app = FastAPI(); app.add_middleware(GuardMiddleware, robots=ROBOTS, mode="observe")
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from robotrules.guard import GuardMiddleware

ROBOTS = Path(__file__).with_name("guard_robots.txt")
LOCAL = ("127.0.0.1", "::1", "::ffff:127.0.0.1")  # /_guard/report answers only these


async def home(request: Request) -> PlainTextResponse:
    return PlainTextResponse(f"page {request.url.path}\n")


def build(mode: str = "observe", **options: Any) -> GuardMiddleware:
    """The site, with the guard in front (``options`` go to the guard: trusted_proxies,
    policy, rdns, web_bot_auth, signature_agents, tdmrep ...)."""
    app = Starlette(routes=[Route("/{path:path}", home)])
    guard = GuardMiddleware(app, robots=ROBOTS, mode=mode, **options)

    async def report(request: Request) -> Response:  # what the guard saw so far
        if not request.client or request.client.host not in LOCAL:  # not for the world
            return PlainTextResponse("not found\n", status_code=404)
        return JSONResponse([row.to_dict() for row in guard.report])

    app.router.routes.insert(0, Route("/_guard/report", report))
    return guard  # an ASGI app: the guard in front of the site


app = build(os.environ.get("GUARD_MODE", "observe"),
            authorities=[a for a in os.environ.get("GUARD_AUTHORITIES", "").split(",") if a])
