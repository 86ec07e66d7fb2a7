"""A Django site behind the robotrules guard (WSGI), in one file.

Run it:  waitress-serve --port 8000 examples.guard_django:application   (behind a proxy:
         --trusted-proxy 127.0.0.1 --trusted-proxy-headers x-forwarded-for, waitress's own)
In a project's wsgi.py the guard is one line around Django's application:
    application = WSGIGuardMiddleware(get_wsgi_application(), robots=..., mode=...)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar

import django
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.urls import re_path

from robotrules.guard import WSGIGuardMiddleware

ROBOTS = Path(__file__).with_name("guard_robots.txt")



def page(request: HttpRequest, path: str = "") -> HttpResponse:
    return HttpResponse(f"page /{path}\n", content_type="text/plain")


class Urls:
    """The URL configuration (one catch-all page), as an object Django reads urlpatterns off."""

    urlpatterns: ClassVar[list[Any]] = [re_path(r"^(?P<path>.*)$", page)]


if not settings.configured:
    settings.configure(DEBUG=False, ALLOWED_HOSTS=["*"], ROOT_URLCONF=Urls,
                       SECRET_KEY="example-only", MIDDLEWARE=[])
    django.setup()


def build(mode: str = "observe", **options: Any) -> WSGIGuardMiddleware:
    """Django's WSGI application with the guard in front (``options`` go to the guard)."""
    from django.core.wsgi import get_wsgi_application

    return WSGIGuardMiddleware(get_wsgi_application(), robots=ROBOTS, mode=mode, **options)


application = build(os.environ.get("GUARD_MODE", "observe"))
