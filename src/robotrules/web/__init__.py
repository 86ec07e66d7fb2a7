"""The robots.txt web tester (the ``web`` extra): ``robotrules serve`` or :func:`create_app`.

:func:`serve` (what ``robotrules serve`` runs, robotrules.cli._serve) and :func:`create_app`
load Starlette and uvicorn on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._serve import serve

if TYPE_CHECKING:
    from ._app import create_app

__all__ = ["create_app", "serve"]


def __getattr__(name: str) -> object:
    if name == "create_app":
        from ._app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
