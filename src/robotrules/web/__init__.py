"""The robots.txt web tester (the ``web`` extra): ``robotrules serve`` or :func:`create_app`.

``add_serve_command`` imports nothing from the extra, so the CLI can always list ``serve`` and
say what to install; ``create_app`` loads Starlette on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._serve import add_serve_command, serve

if TYPE_CHECKING:
    from ._app import create_app

__all__ = ["add_serve_command", "create_app", "serve"]


def __getattr__(name: str) -> object:
    if name == "create_app":
        from ._app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
