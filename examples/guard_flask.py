"""A Flask (or Django) site behind the robotrules guard: WSGI.

Run it:  waitress-serve --port 8000 examples.guard_flask:app   (GUARD_MODE=enforce to block)
Django (wsgi.py): application = WSGIGuardMiddleware(get_wsgi_application(), robots=..., mode=...)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from flask import Flask, jsonify

from robotrules.guard import WSGIGuardMiddleware

ROBOTS = Path(__file__).with_name("guard_robots.txt")


def build(mode: str = "observe", **options: Any) -> Flask:
    """The site, with the guard in front (``options`` go to the guard)."""
    app = Flask(__name__)
    guard = WSGIGuardMiddleware(app.wsgi_app, robots=ROBOTS, mode=mode, **options)
    app.wsgi_app = guard  # type: ignore[method-assign]

    @app.route("/_guard/report")
    def report() -> Any:  # what the guard saw so far
        return jsonify([row.to_dict() for row in guard.report])

    @app.route("/", defaults={"path": ""})
    @app.route("/<path:path>")
    def page(path: str) -> str:
        return f"page /{path}\n"

    return app


app = build(os.environ.get("GUARD_MODE", "observe"))
