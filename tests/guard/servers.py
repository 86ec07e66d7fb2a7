"""Real servers for the guard's attack tests, all on loopback: uvicorn on a socket the test
binds (dual-stack ``::`` too), gunicorn and nginx as child processes, waitress in a thread,
and a client that writes a request line byte for byte (httpx would normalise the hostile
targets before sending them)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SECRET = b"SECRET-PAGE"  # what every disallowed file holds: it must never reach a crawler


def google_ranges() -> Any:
    """A range store holding Googlebot's published list as fresh (Google's 66.249.64.0/19)."""
    from robotrules.guard import RangeStore
    from robotrules.guard.ranges import parse_list
    from robotrules.guard.registry import checks_for

    s = RangeStore()
    url = checks_for("Googlebot").ranges_url
    assert url is not None
    s.add(parse_list('{"prefixes": [{"ipv4Prefix": "66.249.64.0/19"}]}', url=url,
                     fetched=time.time()))
    return s


def static_site(root: Path) -> Path:
    """A site's files: public pages, and disallowed ones holding :data:`SECRET`."""
    for rel, body in (("index.html", b"home"), ("blog/one", b"blog one"),
                      ("private/x", SECRET), ("private/index.html", SECRET),
                      ("caf\u00e9/x", SECRET), ("admin/x", SECRET)):
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(body)
    return root


def raw_request(port: int, target: bytes, headers: list[tuple[bytes, bytes]],
                host: str = "127.0.0.1", method: bytes = b"GET",
                source: str | None = None, timeout: float = 10.0) -> tuple[int, bytes]:
    """Send one HTTP/1.1 request line and headers exactly as given; the status (0 when the
    server closed without one) and the whole response (headers and body)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        if source is not None:
            s.bind((source, 0))
        s.connect((host, port))
        lines = [method + b" " + target + b" HTTP/1.1"]
        lines += [k + b": " + v for k, v in headers]
        lines.append(b"Connection: close")
        s.sendall(b"\r\n".join(lines) + b"\r\n\r\n")
        chunks = []
        while True:
            try:
                data = s.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not data:
                break
            chunks.append(data)
    raw = b"".join(chunks)
    try:
        status = int(raw.split(b" ", 2)[1]) if raw.startswith(b"HTTP/") else 0
    except (IndexError, ValueError):
        status = 0
    return status, raw


def _wait_port(port: int, host: str = "127.0.0.1", deadline: float = 30.0,
               proc: subprocess.Popen[bytes] | None = None) -> None:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the server exited with status {proc.returncode}")
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {host}:{port}")


def bound(host: str = "127.0.0.1") -> socket.socket:
    """A listening TCP socket on a free port; ``::`` is dual-stack (IPv4 clients appear as
    ``::ffff:a.b.c.d``, as on any dual-stack listener)."""
    if ":" in host:
        s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    else:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, 0))
    s.listen(128)
    return s


@contextmanager
def uvicorn_on(app: Any, host: str = "127.0.0.1") -> Iterator[int]:
    """``app`` under uvicorn (``proxy_headers=False``, as guard.md says to run it) on a free
    port of ``host``: the port."""
    uvicorn = pytest.importorskip("uvicorn")
    sock = bound(host)
    port = int(sock.getsockname()[1])
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                            proxy_headers=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    end = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > end or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@contextmanager
def waitress_on(app: Any, **options: Any) -> Iterator[int]:
    """``app`` under waitress on a free 127.0.0.1 port; ``options`` go to waitress (its own
    ``trusted_proxy``: without it waitress removes the forwarding headers)."""
    from waitress.server import create_server

    server = create_server(app, host="127.0.0.1", port=0, threads=4, **options)
    port = int(server.effective_port)  # type: ignore[union-attr]
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield port
    finally:
        server.close()
        thread.join(timeout=10)


@contextmanager
def gunicorn_on(module_dir: Path, app: str, env: dict[str, str], host: str = "127.0.0.1"
                ) -> Iterator[int]:
    """``app`` (``module:attribute`` in ``module_dir``) under gunicorn (one sync worker) on a
    free port of ``host``, as a child process stopped at the end."""
    pytest.importorskip("gunicorn")
    with bound(host) as s:
        port = int(s.getsockname()[1])
    bind = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    from gunicorn.config import KNOWN_SETTINGS

    # a gunicorn that has a control socket opens it at one fixed path: two servers would share it
    extra = ["--no-control-socket"] if any(
        s.name == "control_socket_disable" for s in KNOWN_SETTINGS) else []
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--workers", "1", "--bind", bind, "--chdir",
         str(module_dir), "--log-level", "warning", "--graceful-timeout", "1", *extra, app],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")]), **env},
        stdout=subprocess.DEVNULL, stderr=(module_dir / "gunicorn.log").open("wb"))
    try:
        _wait_port(port, "::1" if ":" in host else host, proc=proc)
        yield port
    finally:
        _stop(proc, signal.SIGTERM)


NGINX_CONF = """
daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://127.0.0.1:{upstream};
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Real-IP $remote_addr;
        }}
    }}
}}
"""


@contextmanager
def nginx_in_front(upstream: int, workdir: Path) -> Iterator[int]:
    """nginx on a free 127.0.0.1 port passing every request to ``upstream`` as a reverse
    proxy configured the usual way (the request URI as sent, ``Host`` as sent,
    ``X-Forwarded-For $proxy_add_x_forwarded_for``, ``X-Real-IP $remote_addr``)."""
    exe = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists()
                                    else None)
    if exe is None:
        pytest.skip("nginx is not installed (apt-get install nginx-light)")
    with bound() as s:
        port = int(s.getsockname()[1])
    workdir.mkdir(parents=True, exist_ok=True)
    conf = workdir / "nginx.conf"
    conf.write_text(NGINX_CONF.format(dir=workdir, port=port, upstream=upstream))
    proc = subprocess.Popen([exe, "-c", str(conf), "-p", str(workdir)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_port(port, proc=proc)
        yield port
    finally:
        _stop(proc, signal.SIGQUIT)


def _stop(proc: subprocess.Popen[bytes], how: signal.Signals) -> None:
    """Stop a server this module started: ``how``, then a kill after 10 s."""
    proc.send_signal(how)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
