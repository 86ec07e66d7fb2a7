"""The optional packages of ``robotrules[dataset]`` and ``robotrules[spark]``, and the error
raised when one is missing (the CLI turns it into a one-line message and exit status 2)."""

from __future__ import annotations

import importlib
from types import ModuleType

from robotrules.errors import RobotrulesError

__all__ = ["DatasetError", "MissingExtra", "require"]


class DatasetError(RobotrulesError):
    """Bad input to the datasets tools: an unreadable file, a missing column, a bad option."""


class MissingExtra(DatasetError):
    """An optional package is not installed."""


def require(module: str, extra: str = "dataset") -> ModuleType:
    """Import ``module`` or say which extra provides it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        raise MissingExtra(
            f"{top} is not installed: pip install 'robotrules[{extra}]'") from exc
