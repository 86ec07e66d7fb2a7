"""The ``robotrules`` command's entry point: :func:`main`, which always starts.

The command itself is a Click group (:mod:`robotrules.cli._app`), and Click and Rich come with
the ``cli`` extra. A core install (``pip install robotrules``) still has the ``robotrules``
script, so :func:`main` imports the group only when it runs and, when Click (or Rich) is
missing, prints one line naming the extra to install and exits 2 instead of a traceback.
``COMMANDS``, ``LazyGroup`` and ``cli`` are the group module's, loaded on first access.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Sequence
from typing import Any

from ._extra import CLI_DEPENDENCIES, missing_extra

__all__ = ["CLI_DEPENDENCIES", "COMMANDS", "LazyGroup", "cli", "main", "missing_extra"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (2 when the ``cli`` extra is missing)."""
    try:
        from ._app import main as run
    except ImportError as exc:
        name = (exc.name or "").partition(".")[0]
        if name not in CLI_DEPENDENCIES:
            raise
        with contextlib.suppress(OSError):
            sys.stderr.write(missing_extra(name) + "\n")
        return 2
    return run(argv)


def __getattr__(name: str) -> Any:
    if name in ("COMMANDS", "LazyGroup", "cli"):
        from . import _app

        return getattr(_app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
