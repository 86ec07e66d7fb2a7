"""Stand-ins for the model classes in a module's globals, until the first value is built.

:mod:`robotrules._robots` builds :class:`~robotrules._model.Verdict`, ``Rule``, ``Group`` and
``Record`` values in many methods, none of which a parse or an ``is_allowed`` query runs;
importing :mod:`robotrules._model` with it would load ``dataclasses`` (and through it
``inspect``, ``ast``, ``dis``, ``tokenize``: some 6 ms of ``import robotrules``, issue 15). So it
imports these stand-ins instead (type checkers see the real classes). The first call of a
stand-in imports the model, puts the real class in its place in the calling module's globals,
and builds the value: every later call there is a plain call of the class, at no cost.
"""

from __future__ import annotations

import sys

__all__ = ["Group", "Record", "Rule", "Verdict"]


class _Later:
    """Stands for the class ``name`` of :mod:`robotrules._model` until first called."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, *args: object, **kwargs: object) -> object:
        from . import _model

        cls = getattr(_model, self.name)
        caller = sys._getframe(1).f_globals
        if caller.get(self.name) is self:
            caller[self.name] = cls  # a dict store: atomic; two racing threads store the same
        return cls(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<robotrules._model.{self.name}, imported on first use>"


Group = _Later("Group")
Record = _Later("Record")
Rule = _Later("Rule")
Verdict = _Later("Verdict")
