"""robotrules: the Robots Exclusion Protocol (robots.txt) for Python.

Parse any robots.txt (bytes or text) and ask whether a user agent may fetch a URL, exactly as
RFC 9309 says (``dialect="rfc9309"``, the default), exactly as Google's reference matcher does
(``"google"``) or as the original 1994 standard did (``"1994"``); every verdict explains itself.
"""

from __future__ import annotations

import typing as _typing
from importlib import import_module as _import_module

from ._peers import NATIVE
from ._robots import RobotsTxt, parse
from ._types import Dialect, Severity
from .errors import FetchError, InvalidURL, RobotrulesError, StoreError

# `robotrules.lint` is the module robotrules.lint, and the module is callable: calling it runs
# lint.lint(), so `robotrules.lint(body)` and `import robotrules.lint as L` both mean what they
# say (docs/lint.md). Type checkers see the function, whose signature the call has.
# Cheap: robotrules.lint imports its heavy parts (aipref, the fetch policy) when lint() runs.
if _typing.TYPE_CHECKING:
    from .lint import lint
else:
    from . import lint

if _typing.TYPE_CHECKING:
    from ._model import (
        REASONS,
        Decisions,
        Finding,
        Group,
        Record,
        RequestRate,
        Rule,
        Verdict,
        VisitTime,
    )
    from .aipref import Statement, Usage

__version__ = "0.1.0"

# NATIVE (imported above from the selector, robotrules._peers): True when queries run on the
# native kernels (robotrules._native, Cython, built by pip with the package; ROBOTRULES_PURE=1
# turns them off), False on the pure-Python core.

__all__ = [  # noqa: RUF022 - plain sorted order, as tests/core/test_api.py checks
    "Decisions",
    "Dialect",
    "FetchError",
    "Finding",
    "Group",
    "InvalidURL",
    "NATIVE",
    "REASONS",
    "Record",
    "RequestRate",
    "RobotrulesError",
    "RobotsTxt",
    "Rule",
    "Severity",
    "Statement",
    "StoreError",
    "Usage",
    "Verdict",
    "VisitTime",
    "__version__",
    "lint",
    "parse",
]

# Names whose modules cost start-up (aipref needs http_sf and json; the model's dataclasses
# load inspect and ast), loaded on first access (PEP 562) so that `import robotrules` costs only
# the parser; tests/core/test_import_cost.py keeps it so. The submodules listed were bound by
# `import robotrules` before, as a side effect.
_LAZY: dict[str, tuple[str, str | None]] = {
    "Decisions": ("._model", "Decisions"),
    "REASONS": ("._model", "REASONS"),
    "Finding": ("._model", "Finding"),
    "Group": ("._model", "Group"),
    "Record": ("._model", "Record"),
    "RequestRate": ("._model", "RequestRate"),
    "Rule": ("._model", "Rule"),
    "Verdict": ("._model", "Verdict"),
    "VisitTime": ("._model", "VisitTime"),
    "Statement": (".aipref", "Statement"),
    "Usage": (".aipref", "Usage"),
    "aipref": (".aipref", None),
    "stores": (".stores", None),
}

if not _typing.TYPE_CHECKING:  # type checkers see the imports above, and flag unknown names

    def __getattr__(name: str) -> object:
        try:
            module, attr = _LAZY[name]
        except KeyError:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
        value = _import_module(module, __name__)
        if attr is not None:
            value = getattr(value, attr)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
