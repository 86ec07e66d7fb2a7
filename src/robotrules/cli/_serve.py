"""``robotrules serve``: the web tester (``robotrules.web``), listed always.

Without the ``web`` extra it says what to install (one line, exit 2); a port already in use is
an environment error (exit 2), never the "disallowed" status 1. Ctrl-C stops it quietly with
exit 130 (the work processes ignore SIGINT; the server stops them).
"""

from __future__ import annotations

import gc
import warnings

import click

from ._common import CliError

HELP = """Serve the robots.txt web tester on this machine and print its address.

Nothing you type leaves the machine unless you use fetch-by-URL.

\b
examples:
  robotrules serve                 # http://127.0.0.1:8000/
  robotrules serve --port 0        # any free port; the address is printed
  robotrules serve --allow-private # also fetch robots.txt from intranet hosts

\b
exit status: 130 stopped with Ctrl-C, 2 the web extra is missing or the port is taken."""

INTERRUPTED = 130  # 128 + SIGINT, as shells report a command stopped by Ctrl-C
INSTALL = "the web tester needs the web extra: pip install 'robotrules[web]'"


@click.command("serve", help=HELP, short_help="open the web tester",
               context_settings={"max_content_width": 100})
@click.option("--host", default="127.0.0.1", show_default=True,
              help="interface to listen on (loopback only by default)")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="port to listen on (0 picks a free port)")
@click.option("--allow-private", is_flag=True,
              help="let fetch-by-URL reach loopback, private and link-local addresses")
def serve(host: str, port: int, allow_private: bool) -> int:
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401

        from robotrules.web import serve as run_server
    except ImportError as exc:
        raise CliError(f"{INSTALL} ({exc.name or exc} is missing)") from None
    try:
        run_server(host=host, port=port, allow_private=allow_private)
    except OSError as exc:
        raise CliError(f"serve: cannot listen on {host}:{port}: "
                       f"{exc.strerror or exc}") from None
    except KeyboardInterrupt:
        # Ctrl-C is how the server is stopped: 130, like every command (128 + SIGINT), and
        # quietly. Pressed while uvicorn is starting, it leaves an event loop behind; collect it
        # now, rather than at exit, where its finaliser would print a stack trace.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ResourceWarning)
            gc.collect()
        return INTERRUPTED
    return 0
