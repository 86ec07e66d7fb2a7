"""Type aliases the core needs at import time, free of any heavier import.

:data:`Dialect` and :data:`Severity` live here rather than in :mod:`robotrules._model` so that
the parser can name them (``typing.get_args(Dialect)`` in :mod:`robotrules._dialects`) without
loading the model's dataclasses; :mod:`robotrules._model` re-exports both.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["Dialect", "Severity"]

Dialect = Literal["rfc9309", "google", "1994"]
Severity = Literal["error", "warning", "info"]
