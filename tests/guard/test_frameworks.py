"""The guard in FastAPI (examples/guard_fastapi.py, under uvicorn) and Django
(examples/guard_django.py, under waitress): the same answers as the Starlette and Flask
examples (test_asgi.py, test_wsgi.py), through each framework's own way of adding it."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import httpx
import pytest

from robotrules.guard import RangeStore

from .conftest import EXAMPLES, uvicorn_running, waitress_running

GPTBOT = "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)"
GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None
    assert spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def check_site(base: str) -> None:
    robots = httpx.get(f"{base}/robots.txt")
    assert robots.status_code == 200
    assert robots.content == (EXAMPLES / "guard_robots.txt").read_bytes()
    assert httpx.get(f"{base}/blog", headers={"User-Agent": GPTBOT}).status_code == 403
    ok = httpx.get(f"{base}/blog", headers={"User-Agent": GOOGLEBOT})
    assert ok.status_code == 200
    assert "/blog" in ok.text
    other = httpx.get(f"{base}/blog", headers={"User-Agent": "FooBot/1.0"})
    assert other.headers["content-usage"] == "train-ai=n, search=y"  # the * group's line
    admin = httpx.get(f"{base}/admin/x", headers={"User-Agent": GOOGLEBOT})
    assert admin.status_code == 403  # line 7, Googlebot's own group


def test_fastapi() -> None:
    pytest.importorskip("fastapi")
    app = load(EXAMPLES / "guard_fastapi.py").build("enforce", ranges=RangeStore())
    with uvicorn_running(app) as base:
        check_site(base)


def test_django() -> None:
    pytest.importorskip("django")
    pytest.importorskip("waitress")
    app = load(EXAMPLES / "guard_django.py").build("enforce", ranges=RangeStore())
    with waitress_running(app) as base:
        check_site(base)
