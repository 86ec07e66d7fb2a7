"""A Flask (or Django) site behind the robotrules guard: WSGI.

Run it:  waitress-serve --port 8000 examples.guard_flask:app   (GUARD_MODE=enforce to block;
         GUARD_AUTHORITIES=example.com to check Web Bot Auth signatures made for it). Behind a
         proxy, let waitress read its header: waitress-serve --trusted-proxy 127.0.0.1
         --trusted-proxy-headers x-forwarded-for ... (waitress then gives the client address
         as REMOTE_ADDR, and removes forwarding headers from anyone else)
Django (wsgi.py): application = WSGIGuardMiddleware(get_wsgi_application(), robots=..., mode=...)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from flask import Flask, abort, jsonify, request

from robotrules.guard import WSGIGuardMiddleware

ROBOTS = Path(__file__).with_name("guard_robots.txt")
LOCAL = ("127.0.0.1", "::1", "::ffff:127.0.0.1")  # /_guard/report answers only these


def build(mode: str = "observe", **options: Any) -> Flask:
    """The site, with the guard in front (``options`` go to the guard)."""
    app = Flask(__name__)
    guard = WSGIGuardMiddleware(app.wsgi_app, robots=ROBOTS, mode=mode, **options)
    app.wsgi_app = guard  # type: ignore[method-assign]

    @app.route("/_guard/report")
    def report() -> Any:  # what the guard saw so far, for this machine only
        if request.remote_addr not in LOCAL:
            abort(404)
        return jsonify([row.to_dict() for row in guard.report])

    @app.route("/", defaults={"path": ""})
    @app.route("/<path:path>")
    def page(path: str) -> str:
        return f"page /{path}\n"

    return app


app = build(os.environ.get("GUARD_MODE", "observe"),
            authorities=[a for a in os.environ.get("GUARD_AUTHORITIES", "").split(",") if a])
