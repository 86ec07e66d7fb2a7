"""A FastAPI site behind the robotrules guard (ASGI, added as FastAPI middleware).

Run it:  uvicorn --no-proxy-headers examples.guard_fastapi:app   (GUARD_MODE=enforce to
         answer 403/402/...; the guard reads the client address itself: trusted_proxies)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from robotrules.guard import GuardMiddleware

ROBOTS = Path(__file__).with_name("guard_robots.txt")


def build(mode: str = "observe", **options: Any) -> FastAPI:
    """The site; ``options`` go to the guard (trusted_proxies, policy, rdns ...)."""
    app = FastAPI()
    app.add_middleware(GuardMiddleware, robots=ROBOTS, mode=mode, **options)

    @app.get("/{path:path}")
    async def page(path: str) -> dict[str, str]:
        return {"page": f"/{path}"}

    return app


app = build(os.environ.get("GUARD_MODE", "observe"))
