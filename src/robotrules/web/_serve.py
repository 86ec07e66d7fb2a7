"""``robotrules serve``: bind a socket, run the app under uvicorn, print the address once it
answers.

Nothing here imports Starlette or uvicorn at import time, so the command can be listed (and
explain what to install) even when the ``web`` extra is missing.
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from starlette.applications import Starlette

__all__ = ["bind", "display_url", "is_loopback", "serve"]



def is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def display_url(host: str, port: int) -> str:
    shown = "127.0.0.1" if host in ("", "0.0.0.0") else host
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (``port`` 0 picks a free one)."""
    info = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(info[0], socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(info[4])
        sock.listen(1024)  # a burst of clients (ab -c 200) queues instead of retrying SYNs
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def serve(
    *, host: str = "127.0.0.1", port: int = 8000, allow_private: bool = False,
    out: TextIO | None = None,
) -> None:
    """Serve the tester until interrupted, after printing where to open it."""
    import uvicorn

    from ._app import LOOPBACK_HOSTS, create_app

    out = out or sys.stdout
    loopback = is_loopback(host)
    app: Starlette = create_app(
        allow_private=allow_private, allowed_hosts=LOOPBACK_HOSTS if loopback else ["*"]
    )
    sock = bind(host, port)
    bound_port = int(sock.getsockname()[1])
    lines = [f"robotrules web tester: {display_url(host, bound_port)}  (Ctrl+C to stop)"]
    if not loopback:
        lines.append(f"warning: listening on {host}, not loopback: anyone who can reach this "
                     "address can use the tester and its fetch-by-URL")
    if allow_private:
        lines.append("note: fetch-by-URL may reach loopback and private addresses")

    class Announcing(uvicorn.Server):
        """Prints the address once the tester answers: its work processes started (the
        lifespan) and uvicorn's Ctrl-C handling in place, so a Ctrl-C pressed after the
        address appears always stops it (one pressed earlier stops the start-up)."""

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                print("\n".join(lines), file=out, flush=True)

    # The lifespan starts the work processes before the first request and stops them after.
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")
    try:
        Announcing(config).run(sockets=[sock])
    finally:
        sock.close()
