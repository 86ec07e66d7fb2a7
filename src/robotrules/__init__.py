"""robotrules: the Robots Exclusion Protocol (robots.txt) for Python.

Parse any robots.txt (bytes or text) and ask whether a user agent may fetch a URL, exactly as
RFC 9309 says (``dialect="rfc9309"``, the default), exactly as Google's reference matcher does
(``"google"``) or as the original 1994 standard did (``"1994"``); every verdict explains itself.
"""

from __future__ import annotations

from . import _robots
from ._model import (
    Dialect,
    Finding,
    Group,
    Record,
    RequestRate,
    Rule,
    Severity,
    Verdict,
    VisitTime,
)
from ._robots import RobotsTxt, parse
from .aipref import Statement, Usage
from .errors import FetchError, InvalidURL, RobotrulesError, StoreError

# Imported eagerly so that `robotrules.lint` stays the function even after someone imports
# the submodule `robotrules.lint` (the import system binds a submodule only on first load).
from .lint import lint

__version__ = "0.1.0"

#: True when the core runs as the optional mypyc-compiled build (tools/build_compiled.py).
COMPILED: bool = not _robots.__file__.endswith(".py")

__all__ = [
    "COMPILED",
    "Dialect",
    "FetchError",
    "Finding",
    "Group",
    "InvalidURL",
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
