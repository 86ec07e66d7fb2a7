"""A disallowed path is never served to a claimed crawler in enforce mode, however the request
writes it: real servers (uvicorn with Starlette's StaticFiles, waitress and gunicorn with a
static WSGI app that resolves paths as ``os.path.normpath`` does, waitress with Flask, nginx as
a reverse proxy in front of uvicorn), spoken to with request lines written byte for byte.

Source: issue 35's reproductions. ``Host: x?``, ``x#``, ``x;`` turned ``/private/x`` into
another path (the shells re-split ``scheme://Host + path``); ``//private/…``, ``/./private/…``,
``/x/../private/…``, ``/%2e/private/…`` are served by apps that resolve dot segments and merge
slashes while the guard matched the raw path; under WSGI ``Disallow: /café`` never matched
``/caf%C3%A9/…`` (PEP 3333: ``PATH_INFO`` is bytes read as Latin-1). Each case asks the same
request as a browser too: what the app serves to a browser under a disallowed spelling must
reach no crawler (the test counts those cases and fails if there are too few to mean
anything).
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from robotrules.guard import GuardMiddleware, RangeStore, WSGIGuardMiddleware

from .servers import (
    SECRET,
    gunicorn_on,
    nginx_in_front,
    raw_request,
    static_site,
    uvicorn_on,
    waitress_on,
)

ROBOTS = "User-agent: *\nDisallow: /private/\nDisallow: /caf\u00e9/\nDisallow: /admin\n"
CRAWLERS = [b"FooBot/1.0 (+https://foo.example/bot)",
            b"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"]
BROWSER = b"Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/130.0"
TARGETS = [
    b"/private/x", b"//private/x", b"///private/x", b"/./private/x", b"/x/../private/x",
    b"/blog/../private/x", b"/%2e/private/x", b"/%2E%2E/private/x", b"/x/%2e%2e/private/x",
    b"/x/.%2E/private/x", b"/private%2Fx", b"/x/..%2Fprivate/x", b"/x\\..\\private/x",
    b"/%5Cprivate/x", b"/\\private/x", b"/%70rivate/x", b"/private/./x", b"/private//x",
    b"/private/", b"/caf%C3%A9/x", b"/caf%c3%a9/x", "/caf\u00e9/x".encode(),
    b"/caf%C3%A9//x", b"/%61dmin/x", b"/admin/x", b"http://site.example/private/x",
    b"/private/x?q=1", b"/private/x#f", b"/private/%78",
]
HOSTS = [b"site.example", b"x?", b"x#", b"x;", b"x/y", b"x?/../../blog"]


def attack(port: int, host: str = "127.0.0.1", **kw: Any) -> dict[str, int]:
    """Every target with every Host, as each crawler and as a browser: counts; fails when a
    crawler gets a secret page."""
    counts = {"requests": 0, "browser_got_secret": 0, "crawler_blocked": 0}
    leaks: list[str] = []
    for target in TARGETS:
        for h in HOSTS:
            _status, body = raw_request(port, target, [(b"Host", h), (b"User-Agent", BROWSER)],
                                       host=host, **kw)
            counts["requests"] += 1
            secret_served = SECRET in body
            counts["browser_got_secret"] += secret_served
            for ua in CRAWLERS:
                cstatus, cbody = raw_request(port, target, [(b"Host", h), (b"User-Agent", ua)],
                                             host=host, **kw)
                counts["requests"] += 1
                if SECRET in cbody:
                    leaks.append(f"{target!r} Host {h!r} {ua[:20]!r}: {cstatus}")
                if secret_served:
                    # what the app serves under this spelling, the guard refuses itself
                    assert cstatus == 403, (target, h, ua, cstatus)
                    counts["crawler_blocked"] += 1
    assert not leaks, "\n".join(leaks)
    return counts


def check_counts(counts: dict[str, int], at_least: int) -> None:
    # the attack meant something: the app did serve the secret under many spellings
    assert counts["browser_got_secret"] >= at_least, counts
    assert counts["crawler_blocked"] == 2 * counts["browser_got_secret"]


def starlette_site(root: Path, **options: Any) -> GuardMiddleware:
    pytest.importorskip("starlette")
    from starlette.applications import Starlette
    from starlette.routing import Mount
    from starlette.staticfiles import StaticFiles

    app = Starlette(routes=[Mount("/", StaticFiles(directory=root))])
    return GuardMiddleware(app, robots=ROBOTS, mode="enforce", ranges=RangeStore(),
                           **options)


def normpath_app(root: Path) -> Callable[..., Iterable[bytes]]:
    """A static WSGI app that resolves the path as many do: PATH_INFO's bytes, "\\" as "/",
    os.path.normpath, inside the root."""
    base = os.path.realpath(root)

    def app(environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        path = (environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", "")
                ).encode("latin-1").decode("utf-8", "replace").replace("\\", "/")
        full = os.path.normpath(os.path.join(base, path.lstrip("/")))
        if full.startswith(base + os.sep) and os.path.isfile(full):
            with open(full, "rb") as f:
                body = f.read()
            start_response("200 OK", [("Content-Length", str(len(body)))])
            return [body]
        start_response("404 Not Found", [("Content-Length", "0")])
        return [b""]

    return app


def test_uvicorn_starlette_static_files(tmp_path: Path) -> None:
    app = starlette_site(static_site(tmp_path / "site"))
    with uvicorn_on(app) as port:
        counts = attack(port)
    check_counts(counts, 60)


def test_waitress_normpath_app(tmp_path: Path) -> None:
    pytest.importorskip("waitress")
    app = WSGIGuardMiddleware(normpath_app(static_site(tmp_path / "site")), robots=ROBOTS,
                              mode="enforce", ranges=RangeStore())
    with waitress_on(app) as port:
        counts = attack(port)
    check_counts(counts, 60)


def test_waitress_flask(tmp_path: Path) -> None:
    pytest.importorskip("waitress")
    flask = pytest.importorskip("flask")
    root = static_site(tmp_path / "site")
    site = flask.Flask(__name__)

    @site.route("/<path:p>")
    def page(p: str) -> Any:
        return flask.send_from_directory(root, p)

    site.wsgi_app = WSGIGuardMiddleware(site.wsgi_app, robots=ROBOTS,  # type: ignore[method-assign]
                                        mode="enforce", ranges=RangeStore())
    with waitress_on(site) as port:
        counts = attack(port)
    check_counts(counts, 12)


GUNICORN_APP = textwrap.dedent("""
    import os
    from pathlib import Path

    from robotrules.guard import RangeStore, WSGIGuardMiddleware
    from tests.guard.test_paths import ROBOTS, normpath_app

    app = WSGIGuardMiddleware(normpath_app(Path(os.environ["SITE_ROOT"])), robots=ROBOTS,
                              mode="enforce", ranges=RangeStore())
""")


def test_gunicorn_normpath_app(tmp_path: Path) -> None:
    root = static_site(tmp_path / "site")
    (tmp_path / "gsite.py").write_text(GUNICORN_APP)
    with gunicorn_on(tmp_path, "gsite:app", {"SITE_ROOT": str(root)}) as port:
        counts = attack(port)
    check_counts(counts, 60)


def test_nginx_in_front_of_uvicorn(tmp_path: Path) -> None:
    # nginx passes the request URI and Host as sent (proxy_pass without a URI part)
    app = starlette_site(static_site(tmp_path / "site"), trusted_proxies=["127.0.0.1"])
    with uvicorn_on(app) as upstream, nginx_in_front(upstream, tmp_path / "nginx") as port:
        counts = attack(port)
    check_counts(counts, 12)


ANCHORED = "User-agent: *\nDisallow: /*.pdf$\nDisallow: /secret$\n"
ANCHORED_TARGETS = [b"/secret.pdf", b"/secret.pdf/", b"/secret.pdf%2F", b"/secret.pdf/.",
                    b"/secret.pdf//", b"/secret.pdf/x/..", b"/secret.pdf/%2e",
                    b"/secret.pdf\\", b"/secret.pdf%5C", b"/secret", b"/secret/",
                    b"/secret/.", b"/secret%2f", b"/x/../secret"]


def anchored_site(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "secret.pdf").write_bytes(SECRET)
    (root / "secret").write_bytes(SECRET)
    return root


def attack_anchored(port: int) -> int:
    """Every anchored target as Googlebot and as a browser: how many the app served the
    browser; fails when a crawler gets the secret."""
    served = 0
    for target in ANCHORED_TARGETS:
        _s, body = raw_request(port, target, [(b"Host", b"site.example"),
                                              (b"User-Agent", BROWSER)])
        served += SECRET in body
        status, cbody = raw_request(port, target, [(b"Host", b"site.example"),
                                                   (b"User-Agent", CRAWLERS[1])])
        assert SECRET not in cbody, (target, status)
    return served


def test_anchored_rules_hold_for_a_trailing_slash(tmp_path: Path) -> None:
    # RFC 9309 2.2.3: "$" ends the pattern, so "Disallow: /*.pdf$" disallows /secret.pdf;
    # Starlette's StaticFiles and a normpath static app (os.path.normpath drops a final
    # "/") serve that file for /secret.pdf/, /secret.pdf%2F, /secret.pdf/. ... (found by
    # the red team against these servers: the guard let Googlebot have them)
    root = anchored_site(tmp_path / "site")
    asgi = GuardMiddleware(starlette_site(root).app, robots=ANCHORED, mode="enforce",
                           ranges=RangeStore())
    with uvicorn_on(asgi) as port:
        assert attack_anchored(port) >= 10
    wsgi = WSGIGuardMiddleware(normpath_app(root), robots=ANCHORED, mode="enforce",
                               ranges=RangeStore())
    with waitress_on(wsgi) as port:
        assert attack_anchored(port) >= 12
